//! The density stage: caves carved out of the filled terrain. CUDA twin:
//! `kernels/density.cu`.
//!
//! The preset's cave noises are 3D noise on the Brno project's lattice
//! ([`crate::worldgen::noise::lattice`]); its layers turn them into
//! chambers (one noise above a threshold) and tunnels (two noises both
//! near zero). A chunk is worked in 8×8×8 groups: each group's lattice
//! cells are set up once per octave and shared by its 512 blocks, eight
//! blocks (a y run) per step.
//!
//! **Where caves may open** (block at height y, column surface h, water
//! level w, clearance c): `bottom ≤ y ≤ top`, `y ≤ h − min_depth` of the
//! layer, and either `y > w` or `y ≤ min(h, w) − c`. So caves reach the
//! air on land, never come within `c` blocks under a sea or lake floor,
//! and stay `c` below the water level everywhere, away from shore water.
//! Carved blocks below `lava_below` are lava.
//!
//! **Proofs.** Each group's noise bounds ([`lattice::GroupEdges::bounds`]) rule out
//! layers that cannot fire there; a group where none can is skipped, and a
//! chunk where every group is ruled out is provably solid
//! ([`proves_solid`]), which keeps deep chunks uniform and cheap.

use super::canvas::Canvas;
use super::heightmap::Heightmap;
use super::noise::lattice::{self, GroupCell, GroupCorners, GROUP};
use super::params::{FlatCaveLayer, FlatCaveNoise, WorldParams, CAVE_CHAMBERS};
use super::preset::{MAX_CAVE_NOISES, MAX_CAVE_OCTAVES};
use crate::world::coords::{ChunkPos, CHUNK_SIZE, CHUNK_VOLUME};

/// One bit per block, `bit (y mod 8)` of byte `column · 4 + y / 8`.
pub type CaveMask = [u8; CHUNK_VOLUME / 8];

/// How far the rounding of a blend can stray past the exact bounds; far
/// more than the few ulps it can, so proofs stay sound.
const BOUNDS_MARGIN: f32 = 1e-3;

/// Groups per chunk along an axis.
const GROUPS: usize = CHUNK_SIZE / GROUP;

/// Whether the block at height `y` over a column of surface `h` may be
/// carved by a layer reaching up to `min_depth` below the surface.
#[inline(always)]
pub fn may_open(p: &WorldParams, y: i64, h: i64, min_depth: i64) -> bool {
    let w = p.surface.water_level as i64;
    y <= h - min_depth
        && y >= p.caves.bottom as i64
        && y <= p.caves.top as i64
        && (y > w || y <= h.min(w) - p.caves.water_clearance as i64)
}

/// Whether layer `l` fires for these noise values.
#[inline(always)]
pub fn fires(l: &FlatCaveLayer, values: &[f32; MAX_CAVE_NOISES]) -> bool {
    let a = values[l.a as usize];
    if l.kind == CAVE_CHAMBERS {
        a > l.threshold
    } else {
        let b = values[l.b as usize];
        a.abs() < l.threshold && b.abs() < l.threshold
    }
}

/// Bounds of a noise over the group at `origin`.
pub fn group_bounds(n: &FlatCaveNoise, origin: [i32; 3]) -> (f32, f32) {
    let mut octaves = GroupOctaves::default();
    octaves.build(n, origin);
    octaves.total
}

/// Whether layer `l` can fire anywhere in a group, given bounds per noise.
fn may_fire(
    l: &FlatCaveLayer,
    bounds: &mut [Option<(f32, f32)>; MAX_CAVE_NOISES],
    p: &WorldParams,
    origin: [i32; 3],
) -> bool {
    let mut b = |i: u32| {
        let i = i as usize;
        *bounds[i].get_or_insert_with(|| group_bounds(&p.caves.noises[i], origin))
    };
    if l.kind == CAVE_CHAMBERS {
        b(l.a).1 > l.threshold
    } else {
        let (alo, ahi) = b(l.a);
        if alo >= l.threshold || ahi <= -l.threshold {
            return false;
        }
        let (blo, bhi) = b(l.b);
        blo < l.threshold && bhi > -l.threshold
    }
}

/// The lowest block of group (gx, gy, gz) of a chunk.
fn group_origin(pos: ChunkPos, g: [usize; 3]) -> [i32; 3] {
    let s = CHUNK_SIZE as i32;
    [pos.x * s + (g[0] * GROUP) as i32, pos.y * s + (g[1] * GROUP) as i32, pos.z * s + (g[2] * GROUP) as i32]
}

/// Whether the noise bounds alone rule out every cave in the chunk.
pub fn proves_solid(p: &WorldParams, pos: ChunkPos) -> bool {
    for gz in 0..GROUPS {
        for gx in 0..GROUPS {
            for gy in 0..GROUPS {
                let origin = group_origin(pos, [gx, gy, gz]);
                let mut bounds = [None; MAX_CAVE_NOISES];
                if p.caves.layers().iter().any(|l| may_fire(l, &mut bounds, p, origin)) {
                    return false;
                }
            }
        }
    }
    true
}

/// A noise's values over one group: y run `z·8 + x`, eight blocks up.
pub type GroupRows = [[f32; GROUP]; GROUP * GROUP];

/// Set bits of a row mask, lowest first.
fn bits(mut rows: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (rows != 0).then(|| {
            let r = rows.trailing_zeros() as usize;
            rows &= rows - 1;
            r
        })
    })
}

/// Adds `weight ·` the octave of `cell` to the y runs of `acc` whose bit
/// is set in `rows`. Every run gets the same operations in the same order
/// whichever others are skipped, so a run's bits never depend on `rows`.
#[inline(always)]
fn accumulate(cell: &GroupCell, weight: f32, rows: u64, acc: &mut GroupRows) {
    #[cfg(target_arch = "x86_64")]
    if crate::worldgen::noise::perlin_avx2::available() {
        // SAFETY: AVX2 presence was just checked.
        return unsafe { accumulate_avx2(cell, weight, rows, acc) };
    }
    accumulate_generic(cell, weight, rows, acc)
}

/// The portable form, block by block ([`lattice::blend`]). Rust never
/// fuses a multiply and an add, so it gives the bits of the AVX2 form.
#[inline(always)]
fn accumulate_generic(cell: &GroupCell, weight: f32, rows: u64, acc: &mut GroupRows) {
    let [px, _, pz] = &cell.part;
    for r in bits(rows) {
        let (i, k) = (r % GROUP, r / GROUP);
        let pxz: [f32; 8] = std::array::from_fn(|c| px[c][i] + pz[c][k]);
        let (u, w) = (cell.fade[0][i], cell.fade[2][k]);
        for (j, slot) in acc[r].iter_mut().enumerate() {
            *slot += weight * lattice::blend(&pxz, &cell.grad_y, cell.frac_y[j], u, cell.fade[1][j], w);
        }
    }
}

/// The AVX2 form. For each z, the four face blends of [`lattice::blend`]
/// are formed for the eight x at once (one x per lane); each y run then
/// takes its x's lane of them and finishes its eight blocks in one vector:
/// the same operations in the same order as [`accumulate_generic`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn accumulate_avx2(cell: &GroupCell, weight: f32, rows: u64, acc: &mut GroupRows) {
    use std::arch::x86_64::*;
    let lerp = |t: __m256, a: __m256, b: __m256| _mm256_add_ps(a, _mm256_mul_ps(t, _mm256_sub_ps(b, a)));
    let weight = _mm256_set1_ps(weight);
    let [px, _, pz] = &cell.part;
    let px: [__m256; 8] = std::array::from_fn(|c| {
        // SAFETY: every row is an [f32; 8].
        unsafe { _mm256_loadu_ps(px[c].as_ptr()) }
    });
    // SAFETY: an [f32; 8].
    let u = unsafe { _mm256_loadu_ps(cell.fade[0].as_ptr()) };
    // SAFETY: an [f32; 8].
    let v = unsafe { _mm256_loadu_ps(cell.fade[1].as_ptr()) };
    // SAFETY: an [f32; 8].
    let fy = unsafe { _mm256_loadu_ps(cell.frac_y.as_ptr()) };
    let fy_top = _mm256_sub_ps(fy, _mm256_set1_ps(1.0));
    let gy: [__m256; 8] = std::array::from_fn(|c| _mm256_set1_ps(cell.grad_y[c]));
    let face =
        |d: &[__m256; 8], c: [usize; 4], w: __m256| lerp(w, lerp(u, d[c[0]], d[c[1]]), lerp(u, d[c[2]], d[c[3]]));
    let (bottom, top) = ([0, 1, 4, 5], [2, 3, 6, 7]);
    for k in 0..GROUP {
        let at_z = (rows >> (k * GROUP)) as u8;
        if at_z == 0 {
            continue;
        }
        let w = _mm256_set1_ps(cell.fade[2][k]);
        let pxz: [__m256; 8] = std::array::from_fn(|c| _mm256_add_ps(px[c], _mm256_set1_ps(pz[c][k])));
        let kb = face(&pxz, bottom, w);
        let gb = face(&gy, bottom, w);
        let kt = face(&pxz, top, w);
        let gt = face(&gy, top, w);
        for i in bits(at_z as u64) {
            let lane = _mm256_set1_epi32(i as i32);
            let at = |x: __m256| _mm256_permutevar8x32_ps(x, lane);
            let b = _mm256_add_ps(at(kb), _mm256_mul_ps(at(gb), fy));
            let t = _mm256_add_ps(at(kt), _mm256_mul_ps(at(gt), fy_top));
            let value = lerp(v, b, t);
            let slot = acc[k * GROUP + i].as_mut_ptr();
            // SAFETY: `slot` is a whole [f32; 8] run of `acc`, read and then written.
            unsafe { _mm256_storeu_ps(slot, _mm256_add_ps(_mm256_loadu_ps(slot), _mm256_mul_ps(weight, value))) };
        }
    }
}

/// A noise over one whole group, the cells shared.
pub fn group_noise(n: &FlatCaveNoise, origin: [i32; 3], out: &mut GroupRows) {
    group_noise_as(n, origin, out, Sharing::PartialProducts { lanes: true });
}

/// What an evaluation over a group shares, the Brno project's
/// optimisations: 1, the corner gradients (hashed once per group, not per
/// block); 2, also the partial products `g·(f − c)` along each axis. With
/// 2, `lanes` runs eight blocks per AVX2 vector where the CPU has it.
/// Every form gives the same bits as [`noise_at`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    Gradients,
    PartialProducts { lanes: bool },
}

/// [`group_noise`] with the sharing chosen, for the lattice benchmark.
pub fn group_noise_as(n: &FlatCaveNoise, origin: [i32; 3], out: &mut GroupRows, sharing: Sharing) {
    *out = [[0.0; GROUP]; GROUP * GROUP];
    for o in 0..n.octaves {
        let (seed, weight) = (lattice::octave_seed(n.seed, o), n.weights[o as usize]);
        let corners = GroupCorners::new(seed, n.shift_xz - o, n.shift_y - o, origin);
        match sharing {
            Sharing::Gradients => {
                for (r, run) in out.iter_mut().enumerate() {
                    for (j, slot) in run.iter_mut().enumerate() {
                        *slot += weight * corners.block([r % GROUP, j, r / GROUP]);
                    }
                }
            }
            Sharing::PartialProducts { lanes: true } => accumulate(&corners.cell(), weight, u64::MAX, out),
            Sharing::PartialProducts { lanes: false } => accumulate_generic(&corners.cell(), weight, u64::MAX, out),
        }
    }
}

/// A noise at one block, every octave's cell set up for it alone: the
/// Brno project's non-cooperative evaluation (same bits, far more hashing).
pub fn noise_at(n: &FlatCaveNoise, p: [i32; 3]) -> f32 {
    let mut acc = 0f32;
    for o in 0..n.octaves {
        acc += n.weights[o as usize]
            * lattice::octave_at(lattice::octave_seed(n.seed, o), n.shift_xz - o, n.shift_y - o, p);
    }
    acc
}

/// One noise's octaves over a group: the corner gradients hashed once and
/// shared by the group's bounds and, where the bounds leave the layer a
/// chance, its evaluation. Most groups are ruled out by their bounds, which
/// need only the group's edges, so the 512 blocks' cells are set up only
/// for the rest ([`GroupOctaves::lanes`]).
#[derive(Default)]
struct GroupOctaves {
    corners: Vec<GroupCorners>,
    cells: Vec<GroupCell>,
    /// After octave o: the bounds of what the later octaves can still add,
    /// with the margin; exactly (0, 0) after the last, so the final test is
    /// the plain one.
    rest: Vec<(f32, f32)>,
    /// The whole noise's bounds, with the margin.
    total: (f32, f32),
}

impl GroupOctaves {
    #[inline(always)]
    fn build(&mut self, n: &FlatCaveNoise, origin: [i32; 3]) {
        self.corners.clear();
        self.cells.clear();
        let mut weighted = [(0f32, 0f32); MAX_CAVE_OCTAVES];
        let (mut lo, mut hi) = (0f32, 0f32);
        for o in 0..n.octaves {
            let corners = GroupCorners::new(lattice::octave_seed(n.seed, o), n.shift_xz - o, n.shift_y - o, origin);
            let (l, h) = corners.edges().bounds();
            let w = n.weights[o as usize];
            weighted[o as usize] = (w * l, w * h);
            lo += w * l;
            hi += w * h;
            self.corners.push(corners);
        }
        self.total = (lo - BOUNDS_MARGIN, hi + BOUNDS_MARGIN);
        self.rest.clear();
        self.rest.resize(self.corners.len(), (0.0, 0.0));
        let (mut lo, mut hi) = (0f32, 0f32);
        for o in (0..self.corners.len().saturating_sub(1)).rev() {
            lo += weighted[o + 1].0;
            hi += weighted[o + 1].1;
            self.rest[o] = (lo - BOUNDS_MARGIN, hi + BOUNDS_MARGIN);
        }
    }

    /// The lanes of `start` (one byte per y run) where `test` holds for the
    /// noise. Octaves are added one at a time, and a run is dropped as soon
    /// as no lane can pass whatever the later octaves add; the runs kept
    /// get every octave, so the answer is the one a full evaluation gives
    /// (a noise has at least one octave: the preset loader checks it).
    fn lanes(&mut self, n: &FlatCaveNoise, test: Test, start: &[u8; GROUP * GROUP]) -> [u8; GROUP * GROUP] {
        let mut lanes = *start;
        let mut alive = start.iter().enumerate().fold(0u64, |m, (r, &b)| m | ((b != 0) as u64) << r);
        let mut acc: GroupRows = [[0.0; GROUP]; GROUP * GROUP];
        for o in 0..self.corners.len() {
            if alive == 0 {
                break;
            }
            if self.cells.len() == o {
                self.cells.push(self.corners[o].cell());
            }
            accumulate(&self.cells[o], n.weights[o], alive, &mut acc);
            alive = test.keep(&acc, alive, self.rest[o], &mut lanes);
        }
        lanes
    }
}

/// A layer's test on one noise.
#[derive(Clone, Copy)]
enum Test {
    Above(f32),
    NearZero(f32),
}

impl Test {
    /// Keeps in `lanes` only the lanes of the runs in `rows` where the test
    /// can hold once something within `rest` is added (with `rest` =
    /// (0, 0), exactly where it holds); returns the runs with a lane left.
    #[inline(always)]
    fn keep(self, acc: &GroupRows, rows: u64, rest: (f32, f32), lanes: &mut [u8; GROUP * GROUP]) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if crate::worldgen::noise::perlin_avx2::available() {
            // SAFETY: AVX2 presence was just checked.
            return unsafe { self.keep_avx2(acc, rows, rest, lanes) };
        }
        self.keep_generic(acc, rows, rest, lanes)
    }

    fn keep_generic(self, acc: &GroupRows, rows: u64, rest: (f32, f32), lanes: &mut [u8; GROUP * GROUP]) -> u64 {
        let mut left = rows;
        for r in bits(rows) {
            let (row, (lo, hi)) = (&acc[r], rest);
            lanes[r] &= match self {
                Test::Above(t) => lane_bits(|j| row[j] + hi > t),
                Test::NearZero(t) => lane_bits(|j| row[j] + lo < t && row[j] + hi > -t),
            };
            if lanes[r] == 0 {
                left &= !(1 << r);
            }
        }
        left
    }

    /// The same comparisons, a run per vector.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn keep_avx2(self, acc: &GroupRows, rows: u64, rest: (f32, f32), lanes: &mut [u8; GROUP * GROUP]) -> u64 {
        use std::arch::x86_64::*;
        let (lo, hi) = (_mm256_set1_ps(rest.0), _mm256_set1_ps(rest.1));
        let mut left = rows;
        for r in bits(rows) {
            // SAFETY: every run is an [f32; 8].
            let row = unsafe { _mm256_loadu_ps(acc[r].as_ptr()) };
            let pass = match self {
                Test::Above(t) => _mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_add_ps(row, hi), _mm256_set1_ps(t)),
                Test::NearZero(t) => _mm256_and_ps(
                    _mm256_cmp_ps::<_CMP_LT_OQ>(_mm256_add_ps(row, lo), _mm256_set1_ps(t)),
                    _mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_add_ps(row, hi), _mm256_set1_ps(-t)),
                ),
            };
            lanes[r] &= _mm256_movemask_ps(pass) as u8;
            if lanes[r] == 0 {
                left &= !(1 << r);
            }
        }
        left
    }
}

/// Bits of the y run over a column where `y` lies in `lo..=hi`.
#[inline(always)]
fn span_bits(y0: i64, lo: i64, hi: i64) -> u8 {
    let (a, b) = ((lo - y0).max(0), (hi - y0).min(GROUP as i64 - 1));
    if a > b {
        0
    } else {
        ((0xffu32 >> (GROUP as i64 - 1 - (b - a))) << a) as u8
    }
}

/// [`may_open`] for the eight blocks from `y0` up: the same rule as two
/// spans, above the water level and deep enough under it.
#[inline(always)]
fn open_bits(p: &WorldParams, y0: i64, h: i64, min_depth: i64) -> u8 {
    let w = p.surface.water_level as i64;
    let (bottom, top) = (p.caves.bottom as i64, (p.caves.top as i64).min(h - min_depth));
    span_bits(y0, bottom.max(w + 1), top) | span_bits(y0, bottom, top.min(h.min(w) - p.caves.water_clearance as i64))
}

/// The blocks of a chunk that caves carve, or `None` if there are none.
pub fn carve_mask(p: &WorldParams, pos: ChunkPos, hm: &Heightmap) -> Option<Box<CaveMask>> {
    #[cfg(target_arch = "x86_64")]
    if crate::worldgen::noise::perlin_avx2::available() {
        // SAFETY: AVX2 presence was just checked.
        return unsafe { carve_mask_avx2(p, pos, hm) };
    }
    carve_mask_in(p, pos, hm)
}

/// [`carve_mask`] compiled for AVX2, so the cell set-up and the bounds
/// inlined into it use eight-lane vectors too (same operations, same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn carve_mask_avx2(p: &WorldParams, pos: ChunkPos, hm: &Heightmap) -> Option<Box<CaveMask>> {
    carve_mask_in(p, pos, hm)
}

#[inline(always)]
fn carve_mask_in(p: &WorldParams, pos: ChunkPos, hm: &Heightmap) -> Option<Box<CaveMask>> {
    let y0 = pos.y as i64 * CHUNK_SIZE as i64;
    if !p.has_caves()
        || y0 + CHUNK_SIZE as i64 - 1 < p.caves.bottom as i64
        || y0 > p.caves.top as i64
        || y0 > hm.max_height as i64
    {
        return None;
    }
    let mut mask: Box<CaveMask> = Box::new([0; CHUNK_VOLUME / 8]);
    let mut any = false;
    let mut octaves: [GroupOctaves; MAX_CAVE_NOISES] = Default::default();
    for gz in 0..GROUPS {
        for gx in 0..GROUPS {
            let column = |r: usize| (gz * GROUP + r / GROUP) * CHUNK_SIZE + gx * GROUP + r % GROUP;
            let heights: [i64; GROUP * GROUP] = std::array::from_fn(|r| hm.heights[column(r)] as i64);
            let group_top = heights.iter().copied().max().unwrap_or(i64::MIN);
            let group_floor = heights.iter().copied().min().unwrap_or(i64::MIN);
            for gy in 0..GROUPS {
                let origin = group_origin(pos, [gx, gy, gz]);
                let oy = origin[1] as i64;
                if oy > group_top || oy + GROUP as i64 - 1 < p.caves.bottom as i64 || oy > p.caves.top as i64 {
                    continue;
                }
                let mut built = [false; MAX_CAVE_NOISES];
                let mut rows = [0u8; GROUP * GROUP];
                for l in p.caves.layers() {
                    // Open bits only grow with the surface height, so if
                    // the lowest column is open throughout, every one is.
                    let open: [u8; GROUP * GROUP] = if open_bits(p, oy, group_floor, l.min_depth as i64) == 0xff {
                        [0xff; GROUP * GROUP]
                    } else {
                        std::array::from_fn(|r| open_bits(p, oy, heights[r], l.min_depth as i64))
                    };
                    if open.iter().all(|&b| b == 0) {
                        continue;
                    }
                    // Noise i's cells over this group, built on first use.
                    let mut noise = |octaves: &mut [GroupOctaves; MAX_CAVE_NOISES], i: u32| {
                        let i = i as usize;
                        if !std::mem::replace(&mut built[i], true) {
                            octaves[i].build(&p.caves.noises[i], origin);
                        }
                        i
                    };
                    let t = l.threshold;
                    let fire = if l.kind == CAVE_CHAMBERS {
                        let a = noise(&mut octaves, l.a);
                        if octaves[a].total.1 <= t {
                            continue;
                        }
                        octaves[a].lanes(&p.caves.noises[a], Test::Above(t), &open)
                    } else {
                        let near = |o: &GroupOctaves| o.total.0 < t && o.total.1 > -t;
                        let a = noise(&mut octaves, l.a);
                        if !near(&octaves[a]) {
                            continue;
                        }
                        // The second noise only where the first passes.
                        let first = octaves[a].lanes(&p.caves.noises[a], Test::NearZero(t), &open);
                        if first.iter().all(|&b| b == 0) {
                            continue;
                        }
                        let b = noise(&mut octaves, l.b);
                        if !near(&octaves[b]) {
                            continue;
                        }
                        octaves[b].lanes(&p.caves.noises[b], Test::NearZero(t), &first)
                    };
                    for (dst, bits) in rows.iter_mut().zip(&fire) {
                        *dst |= bits;
                    }
                }
                for (r, &bits) in rows.iter().enumerate() {
                    mask[column(r) * GROUPS + gy] = bits;
                    any |= bits != 0;
                }
            }
        }
    }
    any.then_some(mask)
}

/// Bit j set where `f(j)` holds, for the eight blocks of a y run.
#[inline(always)]
fn lane_bits(f: impl Fn(usize) -> bool) -> u8 {
    (0..GROUP).fold(0u8, |bits, j| bits | (f(j) as u8) << j)
}

/// Whether block `index` (chunk order) is carved.
#[inline(always)]
pub fn is_carved(mask: &CaveMask, index: usize) -> bool {
    let (column, y) = (index / CHUNK_SIZE, index % CHUNK_SIZE);
    mask[column * GROUPS + y / GROUP] >> (y % GROUP) & 1 != 0
}

/// The cave pass: carves the canvas where [`carve_mask`] says.
pub fn carve(c: &mut Canvas) {
    if let Some(mask) = carve_mask(c.params, c.pos, c.heightmap) {
        apply(c.params, c.pos, &mask, &c.heightmap.heights[..], c.blocks, c.counts);
    }
}

/// What a cave leaves at height `y` of a column of surface `h`: lava below
/// `lava_below` and at least `lava_cover` under the surface, else air.
/// Twin: the cave step of `bw_fill` (kernels/fill.cu).
#[inline(always)]
pub fn cave_block(p: &WorldParams, y: i64, h: i64) -> u32 {
    if y < p.caves.lava_below as i64 && y <= h - p.caves.lava_cover as i64 {
        p.caves.lava_block
    } else {
        p.surface.air_block
    }
}

/// Carves a filled chunk with [`cave_block`]; counts kept.
fn apply(p: &WorldParams, pos: ChunkPos, mask: &CaveMask, heights: &[i32], bytes: &mut [u8], counts: &mut [u32]) {
    let y0 = pos.y as i64 * CHUNK_SIZE as i64;
    for (at, &m) in mask.iter().enumerate() {
        if m == 0 {
            continue;
        }
        for bit in 0..GROUP {
            if m >> bit & 1 == 0 {
                continue;
            }
            let ly = (at % GROUPS) * GROUP + bit;
            let index = (at / GROUPS) * CHUNK_SIZE + ly;
            let new = cave_block(p, y0 + ly as i64, heights[at / GROUPS] as i64) as u8;
            let old = &mut bytes[index];
            counts[*old as usize] = counts[*old as usize].saturating_sub(1);
            counts[new as usize] += 1;
            *old = new;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_avx2_runs_give_the_portable_bits_whichever_runs_are_skipped() {
        #[cfg(target_arch = "x86_64")]
        if crate::worldgen::noise::perlin_avx2::available() {
            let n = crate::bench::density::seed001_noise(4, 99);
            for (origin, rows) in
                [([0, 0, 0], u64::MAX), ([-8, 1016, -4096], 0x8001_0203_f00f_0001), ([123_456, -64, 8], 1)]
            {
                let origin = origin.map(|v: i32| v & !7);
                let (mut a, mut b) = ([[0f32; GROUP]; GROUP * GROUP], [[0f32; GROUP]; GROUP * GROUP]);
                let mut full = [[0f32; GROUP]; GROUP * GROUP];
                group_noise(&n, origin, &mut full);
                for o in 0..n.octaves {
                    let cell = GroupCell::new(lattice::octave_seed(n.seed, o), n.shift_xz - o, n.shift_y - o, origin);
                    // SAFETY: AVX2 presence was just checked.
                    unsafe { accumulate_avx2(&cell, n.weights[o as usize], rows, &mut a) };
                    accumulate_generic(&cell, n.weights[o as usize], rows, &mut b);
                }
                for r in 0..GROUP * GROUP {
                    let want = if rows >> r & 1 != 0 { full[r] } else { [0.0; GROUP] };
                    assert_eq!(a[r].map(f32::to_bits), want.map(f32::to_bits), "{origin:?} run {r}");
                    assert_eq!(b[r].map(f32::to_bits), want.map(f32::to_bits), "{origin:?} run {r}");
                }
            }
        }
    }

    #[test]
    fn the_avx2_lane_tests_are_the_portable_ones() {
        #[cfg(target_arch = "x86_64")]
        if crate::worldgen::noise::perlin_avx2::available() {
            let mut acc = [[0f32; GROUP]; GROUP * GROUP];
            let mut next = 1u32;
            for v in acc.iter_mut().flatten() {
                next = lattice::mix(next.wrapping_add(1));
                *v = (next % 2001) as f32 / 1000.0 - 1.0;
            }
            for test in [Test::Above(0.3), Test::NearZero(0.06), Test::NearZero(0.0)] {
                for rest in [(0.0, 0.0), (-0.2, 0.25), (-0.01, 0.0)] {
                    for rows in [u64::MAX, 0x0f0f_0000_ffff_0001] {
                        let start: [u8; GROUP * GROUP] = std::array::from_fn(|r| (r * 37) as u8 | 0x81);
                        let (mut a, mut b) = (start, start);
                        // SAFETY: AVX2 presence was just checked.
                        let left_a = unsafe { test.keep_avx2(&acc, rows, rest, &mut a) };
                        let left_b = test.keep_generic(&acc, rows, rest, &mut b);
                        assert_eq!((left_a, a), (left_b, b));
                    }
                }
            }
        }
    }

    #[test]
    fn open_bits_follow_may_open() {
        let p = crate::worldgen::WorldGen::new(crate::worldgen::preset::Preset::classic(), 1).params;
        let w = p.surface.water_level as i64;
        for h in [w - 40, w - 6, w - 5, w, w + 1, w + 9, w + 30, 300] {
            for min_depth in [0i64, 3, 10] {
                for y0 in (-120..200).step_by(8) {
                    let want = lane_bits(|j| may_open(&p, y0 + j as i64, h, min_depth));
                    assert_eq!(open_bits(&p, y0, h, min_depth), want, "h {h} depth {min_depth} y0 {y0}");
                }
            }
        }
    }

    /// Every block on its own: both noises at the block, `may_open`, `fires`.
    fn plain_mask(p: &WorldParams, pos: ChunkPos, hm: &Heightmap) -> Vec<bool> {
        let mut out = vec![false; CHUNK_VOLUME];
        for (index, carved) in out.iter_mut().enumerate() {
            let (column, ly) = (index / CHUNK_SIZE, index % CHUNK_SIZE);
            let (lx, lz) = (column % CHUNK_SIZE, column / CHUNK_SIZE);
            let s = CHUNK_SIZE as i32;
            let at = [pos.x * s + lx as i32, pos.y * s + ly as i32, pos.z * s + lz as i32];
            let h = hm.heights[column] as i64;
            let mut values = [0f32; MAX_CAVE_NOISES];
            for (v, n) in values.iter_mut().zip(p.caves.noises()) {
                *v = noise_at(n, at);
            }
            *carved =
                p.caves.layers().iter().any(|l| may_open(p, at[1] as i64, h, l.min_depth as i64) && fires(l, &values));
        }
        out
    }

    #[test]
    fn pruned_masks_equal_every_block_evaluated_alone() {
        let mut w = crate::worldgen::WorldGen::new(crate::worldgen::preset::Preset::classic(), 7);
        // Wider tunnels and lower chambers too, so the pruning is tried at
        // other thresholds than the bundled ones.
        for (chambers, tunnels) in [(None, None), (Some(0.1), Some(0.2)), (Some(-0.2), Some(0.01))] {
            for (l, t) in w.params.caves.layers.iter_mut().zip([chambers, tunnels]) {
                if let Some(t) = t {
                    l.threshold = t;
                }
            }
            let mut carved = 0;
            for (cx, cy, cz) in [(0, 0, 0), (1, -1, 0), (-3, 1, 2), (5, -2, -4), (40, 0, -17)] {
                let pos = ChunkPos::new(cx, cy, cz);
                let hm = &w.column(crate::world::coords::ColumnPos { x: cx, z: cz }).heightmap;
                let mask = carve_mask(&w.params, pos, hm);
                let plain = plain_mask(&w.params, pos, hm);
                for (index, &want) in plain.iter().enumerate() {
                    let got = mask.as_ref().is_some_and(|m| is_carved(m, index));
                    assert_eq!(got, want, "chunk {pos:?} block {index} ({chambers:?}, {tunnels:?})");
                    carved += want as usize;
                }
            }
            assert!(carved > 1000, "the chunks hold caves to compare: {carved}");
        }
    }
}
