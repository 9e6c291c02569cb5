//! No far lands: at every position the game accepts, the terrain's
//! statistics are those near the origin (biome shares, height percentiles,
//! the fine relief between neighbouring columns, the cave share). The
//! negative control runs the same noise graph with single-precision
//! positions, as the engines had them before, and must fail the same
//! comparison at the edge of the range.

use blockworld::world::block::BlockId;
use blockworld::world::coords::{column_index, ChunkPos, ColumnPos, ACCEPTED_BLOCKS};
use blockworld::worldgen::column;
use blockworld::worldgen::heightmap::smoothed;
use blockworld::worldgen::noise::lanes::Lanes;
use blockworld::worldgen::{Preset, WorldGen};

/// One column at a time with every noise position rounded to f32 after
/// each step, as the engines computed positions before they moved to
/// double precision (the octave sum's x/1.01 now a multiply by its
/// reciprocal, in f32 here): the negative control.
#[derive(Clone, Copy)]
struct SinglePrecision(f32);

impl Lanes for SinglePrecision {
    const WIDTH: usize = 1;
    type Pos = f64;
    fn splat(self, v: f32) -> Self {
        SinglePrecision(v)
    }
    fn load(self, src: &[f32]) -> Self {
        SinglePrecision(src[0])
    }
    fn store(self, dst: &mut [f32]) {
        dst[0] = self.0;
    }
    fn add(self, o: Self) -> Self {
        SinglePrecision(self.0 + o.0)
    }
    fn sub(self, o: Self) -> Self {
        SinglePrecision(self.0 - o.0)
    }
    fn mul(self, o: Self) -> Self {
        SinglePrecision(self.0 * o.0)
    }
    fn div(self, o: Self) -> Self {
        SinglePrecision(self.0 / o.0)
    }
    fn clamp(self, lo: f32, hi: f32) -> Self {
        SinglePrecision(Lanes::clamp(self.0, lo, hi))
    }
    fn signpow(self, exponent: Self) -> Self {
        SinglePrecision(Lanes::signpow(self.0, exponent.0))
    }
    fn abs(self) -> Self {
        SinglePrecision(self.0.abs())
    }
    fn select_below(self, t: f32, below: Self, above: Self) -> Self {
        if self.0 < t {
            below
        } else {
            above
        }
    }
    fn sqrt(self) -> Self {
        SinglePrecision(self.0.sqrt())
    }
    fn widen(self) -> f64 {
        self.0 as f64
    }
    fn shift(p: f64, by: Self) -> f64 {
        (p as f32 + by.0) as f64
    }
    fn scale(p: f64, s: f64) -> f64 {
        (p as f32 * s as f32) as f64
    }
    fn perlin3(seed: u32, x: f64, y: f64, z: f32) -> Self {
        SinglePrecision(<f32 as Lanes>::perlin3(seed, x, y, z))
    }
    fn permuted3(x: f64, y: f64, z: f32) -> Self {
        SinglePrecision(<f32 as Lanes>::permuted3(x, y, z))
    }
    fn perlin3_d(seed: u32, x: f64, y: f64, z: f32) -> (Self, Self, Self) {
        let (v, dx, dy) = <f32 as Lanes>::perlin3_d(seed, x, y, z);
        (SinglePrecision(v), SinglePrecision(dx), SinglePrecision(dy))
    }
    fn value3_d(seed: u32, x: f64, y: f64, z: f32) -> (Self, Self, Self) {
        let (v, dx, dy) = <f32 as Lanes>::value3_d(seed, x, y, z);
        (SinglePrecision(v), SinglePrecision(dx), SinglePrecision(dy))
    }
    fn gullies(seed: u32, x: f64, z: f64, plane: f32, dx: Self, dz: Self) -> (Self, Self) {
        let (v, s) = <f32 as Lanes>::gullies(seed, x, z, plane, dx.0, dz.0);
        (SinglePrecision(v), SinglePrecision(s))
    }
}

/// A column's pre-smoothing height and biome through lanes `L`.
fn sample<L: Lanes>(w: &WorldGen, like: L, x: i64, z: i64) -> (f32, u8) {
    let (mut h_b, mut biome) = ([0.0f32], [0u8]);
    column::sample::<L>(&w.program, &w.params, like.splat(x as f32), like.splat(z as f32), &mut h_b, &mut biome);
    (h_b[0], biome[0])
}

/// What the far lands would change.
#[derive(Debug)]
struct Stats {
    /// Share of each biome among the sampled columns.
    shares: Vec<f64>,
    /// The 5th, 25th, 50th, 75th and 95th percentile of the final height.
    heights: [i32; 5],
    /// The median and 90th percentile of the second difference
    /// |h_b(x − 1) − 2·h_b(x) + h_b(x + 1)| over land: the relief the
    /// finest octaves make, which positions that lost their fraction flatten
    /// into steps.
    relief: [f64; 2],
}

const SAMPLES: usize = 24_000;
/// The sampled square's half-width: wide enough to hold many biomes.
const HALF: i64 = 1 << 19;

fn percentile<T: Copy + PartialOrd>(sorted: &[T], p: f64) -> T {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The statistics of `SAMPLES` columns scattered over the square of
/// half-width [`HALF`] around `(cx, cz)`.
fn stats<L: Lanes>(w: &WorldGen, like: L, cx: i64, cz: i64) -> Stats {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as i64).rem_euclid(2 * HALF) - HALF
    };
    let mut counts = vec![0usize; w.preset.biomes.len()];
    let (mut heights, mut relief) = (Vec::with_capacity(SAMPLES), Vec::new());
    let sea = w.params.surface.water_level as f32;
    for _ in 0..SAMPLES {
        let (x, z) = (cx + next(), cz + next());
        let (h, biome) = sample(w, like, x, z);
        counts[biome as usize] += 1;
        let tap = |dx: i64, dz: i64| sample(w, like, x + dx, z + dz).0;
        heights.push(smoothed(tap(-1, -1), tap(1, -1), tap(-1, 1), tap(1, 1)));
        if h > sea {
            relief.push((tap(-1, 0) as f64 - 2.0 * h as f64 + tap(1, 0) as f64).abs());
        }
    }
    heights.sort_unstable();
    relief.sort_by(f64::total_cmp);
    Stats {
        shares: counts.iter().map(|&c| c as f64 / SAMPLES as f64).collect(),
        heights: [0.05, 0.25, 0.5, 0.75, 0.95].map(|p| percentile(&heights, p)),
        relief: [percentile(&relief, 0.5), percentile(&relief, 0.9)],
    }
}

/// Where `far` differs from `near` by more than sampling explains, in words.
fn differences(w: &WorldGen, near: &Stats, far: &Stats) -> Vec<String> {
    let mut out = Vec::new();
    for (b, (a, f)) in near.shares.iter().zip(&far.shares).enumerate() {
        // Five binomial standard errors of the difference, and at least half a point.
        let sigma = ((a * (1.0 - a) + f * (1.0 - f)) / SAMPLES as f64).sqrt();
        if (a - f).abs() > (5.0 * sigma).max(0.005) {
            out.push(format!("{} share {:.4} against {:.4}", w.preset.biomes[b].name, f, a));
        }
    }
    for (i, (a, f)) in near.heights.iter().zip(&far.heights).enumerate() {
        if (a - f).abs() > 3 + a.abs() / 8 {
            out.push(format!("height percentile #{i} {f} against {a}"));
        }
    }
    for (i, (a, f)) in near.relief.iter().zip(&far.relief).enumerate() {
        // Sampling moves these by about 3 %; lost fractions add 9 to 60 %.
        if (f / a - 1.0).abs() > 0.08 {
            out.push(format!("relief percentile #{i} {f:.4} against {a:.4}"));
        }
    }
    out
}

/// Centres from the origin out to the edge of the accepted range, the
/// squares held wholly inside it.
fn centres() -> [(i64, i64); 5] {
    let edge = ACCEPTED_BLOCKS - HALF - 2;
    [(3 * HALF, -2 * HALF), (1 << 22, -(1 << 23)), (-edge, 1 << 23), (edge, -edge), (-edge, edge)]
}

/// Every bundled preset.
fn presets() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/worldgen"))
        .expect("the bundled presets")
        .filter_map(|e| e.ok()?.path().file_stem()?.to_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

#[test]
fn the_terrain_far_out_is_the_terrain_near_the_origin() {
    let names = presets();
    assert!(names.len() >= 10, "{names:?}");
    std::thread::scope(|s| {
        for preset in &names {
            s.spawn(move || {
                let w = WorldGen::new(Preset::load(preset).expect("bundled"), 42);
                let near = stats(&w, 0.0f32, 0, 0);
                for (x, z) in centres() {
                    let far = stats(&w, 0.0f32, x, z);
                    let diff = differences(&w, &near, &far);
                    assert!(diff.is_empty(), "{preset} at ({x}, {z}): {diff:?}\nnear {near:?}\nfar {far:?}");
                }
            });
        }
    });
}

/// The negative control: the same comparison with single-precision
/// positions fails at the edge of the range, for the presets whose finest
/// octaves run at block scale there. (In ridged, highlands and the like the
/// finest octave is coarser and the loss smaller: 7 to 16 %, close to the
/// tolerance.)
#[test]
fn single_precision_positions_fail_the_far_out_comparison() {
    for preset in ["classic", "eroded", "foothills", "warped"] {
        let w = WorldGen::new(Preset::load(preset).expect("bundled"), 42);
        let single = SinglePrecision(0.0);
        let near = stats(&w, single, 0, 0);
        assert!(differences(&w, &near, &stats(&w, 0.0f32, 0, 0)).is_empty(), "{preset}: near the origin f32 is fine");
        let (x, z) = centres()[3];
        let far = stats(&w, single, x, z);
        assert!(
            !differences(&w, &near, &far).is_empty(),
            "{preset}: single precision passed at ({x}, {z})\nnear {near:?}\nfar {far:?}"
        );
    }
}

/// The share of the blocks under the surface that caves open, over 128
/// chunk columns scattered over the square around `(x, z)`, three chunk
/// layers below sea level each.
fn cave_share(w: &WorldGen, x: i64, z: i64) -> f64 {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as i64).rem_euclid(2 * HALF) - HALF
    };
    let (mut under, mut open) = (0u64, 0u64);
    for _ in 0..128 {
        let col = ColumnPos { x: (x + next()).div_euclid(32) as i32, z: (z + next()).div_euclid(32) as i32 };
        let heights = w.column(col).heightmap.heights.clone();
        for cy in -3..0 {
            let chunk = w.generate(ChunkPos::new(col.x, cy, col.z));
            for lz in 0..32 {
                for lx in 0..32 {
                    let top = heights[column_index(lx, lz)] as i64;
                    for ly in 0..32 {
                        if (cy as i64 * 32 + ly as i64) < top {
                            under += 1;
                            open += matches!(chunk.blocks().get(lx, ly, lz), BlockId::AIR | BlockId::LAVA) as u64;
                        }
                    }
                }
            }
        }
    }
    open as f64 / under as f64
}

/// Caves are made on an integer lattice, so they cannot lose precision;
/// this checks that nothing on the way (heights, the fill, the cave bands)
/// changes their share far out.
#[test]
fn caves_open_as_much_far_out_as_near_the_origin() {
    let w = WorldGen::new(Preset::classic(), 42);
    let near: Vec<f64> = [(0, 0), (3 * HALF, 0), (0, -3 * HALF)].iter().map(|&(x, z)| cave_share(&w, x, z)).collect();
    let mean = near.iter().sum::<f64>() / near.len() as f64;
    for (x, z) in centres() {
        let far = cave_share(&w, x, z);
        // The share moves by some 15 % from one scattered sample to the next.
        assert!((far / mean - 1.0).abs() < 0.3, "cave share {far:.4} at ({x}, {z}) against {near:?} near the origin");
    }
}
