//! Heightmaps: `h_b` and biome over a 34×34 apron around a chunk column,
//! then the diagonal smoothing stencil for the inner 32×32. Because the
//! apron reaches into the neighbours, heights are continuous across chunk
//! borders (the original clamped at the border and showed seams).
//! CUDA twin: `kernels/heightmap.cu`.

use super::column;
use super::graph::NoiseProgram;
use super::params::WorldParams;
use crate::world::coords::{column_index, ColumnPos, CHUNK_AREA, CHUNK_SIZE, CHUNK_SIZE_I64};

pub const APRON: usize = CHUNK_SIZE + 2;
pub const APRON_AREA: usize = APRON * APRON;
/// The apron rounded up to whole eight-lane groups.
const APRON_PADDED: usize = APRON_AREA.div_ceil(8) * 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heightmap {
    /// Final integer surface height of each column, [`column_index`] order.
    pub heights: Box<[i32; CHUNK_AREA]>,
    /// Biome index of each column.
    pub biomes: Box<[u8; CHUNK_AREA]>,
    pub min_height: i32,
    pub max_height: i32,
}

/// Which lane implementation samples the columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// One column at a time: the portable reference.
    Scalar,
    /// Eight columns per instruction (x86-64 with AVX2).
    Avx2,
}

impl Lanes {
    /// The fastest this CPU supports (both give the same bits; tests and
    /// benchmarks that compare them pass a choice to `WorldGen::with_options`).
    pub fn detect() -> Lanes {
        #[cfg(target_arch = "x86_64")]
        if super::noise::perlin_avx2::available() {
            return Lanes::Avx2;
        }
        Lanes::Scalar
    }
}

/// World coordinate of apron cell `i` (row-major, x fastest), as f32 the
/// way every engine converts it: i64 → nearest f32.
#[inline(always)]
pub fn apron_coords(col: ColumnPos, i: usize) -> (f32, f32) {
    let ax = (i % APRON) as i64;
    let az = (i / APRON) as i64;
    let x = col.x as i64 * CHUNK_SIZE_I64 + ax - 1;
    let z = col.z as i64 * CHUNK_SIZE_I64 + az - 1;
    (x as f32, z as f32)
}

/// Samples `h_b` and the biome for the whole apron.
pub fn sample_apron(program: &NoiseProgram, p: &WorldParams, col: ColumnPos, lanes: Lanes) -> (Vec<f32>, Vec<u8>) {
    let mut xs = vec![0.0f32; APRON_PADDED];
    let mut zs = vec![0.0f32; APRON_PADDED];
    for i in 0..APRON_PADDED {
        (xs[i], zs[i]) = apron_coords(col, i.min(APRON_AREA - 1));
    }
    let mut h_b = vec![0.0f32; APRON_PADDED];
    let mut biome = vec![0u8; APRON_PADDED];
    sample_points(program, p, lanes, &xs, &zs, &mut h_b, &mut biome);
    h_b.truncate(APRON_AREA);
    biome.truncate(APRON_AREA);
    (h_b, biome)
}

/// Samples `h_b` and the biome at the points (`xs[i]`, `zs[i]`); the
/// lengths are a multiple of eight.
pub fn sample_points(
    program: &NoiseProgram,
    p: &WorldParams,
    lanes: Lanes,
    xs: &[f32],
    zs: &[f32],
    h_b: &mut [f32],
    biome: &mut [u8],
) {
    #[cfg(target_arch = "x86_64")]
    if matches!(lanes, Lanes::Avx2) {
        if let Some(avx2) = super::noise::perlin_avx2::avx2() {
            // SAFETY: AVX2 is present (the proof).
            unsafe { sample_points_avx2(avx2, program, p, xs, zs, h_b, biome) };
            return;
        }
    }
    let _ = lanes; // read on x86_64 only
    for i in 0..xs.len() {
        column::sample::<f32>(program, p, xs[i], zs[i], &mut h_b[i..], &mut biome[i..]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sample_points_avx2(
    avx2: super::noise::perlin_avx2::Avx2,
    program: &NoiseProgram,
    p: &WorldParams,
    xs: &[f32],
    zs: &[f32],
    h_b: &mut [f32],
    biome: &mut [u8],
) {
    use super::noise::perlin_avx2::F32x8;
    for i in (0..xs.len()).step_by(8) {
        let (x, z) = (F32x8::load(avx2, &xs[i..]), F32x8::load(avx2, &zs[i..]));
        column::sample::<F32x8>(program, p, x, z, &mut h_b[i..], &mut biome[i..]);
    }
}

/// The final height of a column from `h_b` at its four diagonal
/// neighbours, in the order (−1,−1), (+1,−1), (−1,+1), (+1,+1): their mean,
/// truncated toward zero. The kernel sums in the same order.
#[inline(always)]
pub fn smoothed(nw: f32, ne: f32, sw: f32, se: f32) -> i32 {
    ((((nw + ne) + sw) + se) * 0.25) as i32
}

/// Height and biome of single columns anywhere, without their chunk
/// column's heightmap: five samples each (the four diagonal neighbours and
/// the column itself), so a sparse set of columns (a coarse map) costs five
/// samples per column instead of a whole 34×34 apron. Equal to
/// [`compute`]'s value for the same column.
pub fn sample_columns(program: &NoiseProgram, p: &WorldParams, lanes: Lanes, columns: &[[i64; 2]]) -> Vec<(i32, u8)> {
    const TAPS: [[i64; 2]; 5] = [[-1, -1], [1, -1], [-1, 1], [1, 1], [0, 0]];
    let n = (columns.len() * TAPS.len()).div_ceil(8) * 8;
    let (mut xs, mut zs) = (vec![0.0f32; n], vec![0.0f32; n]);
    for (i, c) in columns.iter().enumerate() {
        for (t, d) in TAPS.iter().enumerate() {
            xs[i * TAPS.len() + t] = (c[0] + d[0]) as f32;
            zs[i * TAPS.len() + t] = (c[1] + d[1]) as f32;
        }
    }
    let (mut h_b, mut biome) = (vec![0.0f32; n], vec![0u8; n]);
    sample_points(program, p, lanes, &xs, &zs, &mut h_b, &mut biome);
    h_b.chunks_exact(TAPS.len())
        .zip(biome.chunks_exact(TAPS.len()))
        .take(columns.len())
        .map(|(h, b)| (smoothed(h[0], h[1], h[2], h[3]), b[4]))
        .collect()
}

/// The diagonal four-neighbour mean over the apron, truncated toward zero.
pub fn smooth(h_b: &[f32], biome: &[u8]) -> Heightmap {
    let mut heights = Box::new([0i32; CHUNK_AREA]);
    let mut biomes = Box::new([0u8; CHUNK_AREA]);
    let (mut lo, mut hi) = (i32::MAX, i32::MIN);
    for z in 0..CHUNK_SIZE {
        for x in 0..CHUNK_SIZE {
            // Inner column (x, z) is apron (x + 1, z + 1); its diagonal
            // neighbours are apron (x, z), (x + 2, z), (x, z + 2), (x + 2, z + 2).
            let a = |ax: usize, az: usize| h_b[az * APRON + ax];
            let h = smoothed(a(x, z), a(x + 2, z), a(x, z + 2), a(x + 2, z + 2));
            let c = column_index(x, z);
            heights[c] = h;
            biomes[c] = biome[(z + 1) * APRON + x + 1];
            lo = lo.min(h);
            hi = hi.max(h);
        }
    }
    Heightmap { heights, biomes, min_height: lo, max_height: hi }
}

pub fn compute(program: &NoiseProgram, p: &WorldParams, col: ColumnPos, lanes: Lanes) -> Heightmap {
    compute_with_apron(program, p, col, lanes).0
}

/// [`compute`], keeping the samples it smoothed, for the decoration plan
/// of the same column.
pub fn compute_with_apron(program: &NoiseProgram, p: &WorldParams, col: ColumnPos, lanes: Lanes) -> (Heightmap, Apron) {
    let (h_b, biome) = sample_apron(program, p, col, lanes);
    (smooth(&h_b, &biome), Apron { col, h_b, biome })
}

/// The `h_b` samples a chunk column's heightmap was smoothed from: one
/// column beyond it on every side. A footing or a column height asked
/// inside it reads these instead of sampling them again.
pub struct Apron {
    col: ColumnPos,
    h_b: Vec<f32>,
    biome: Vec<u8>,
}

impl Apron {
    /// `h_b` at world column (x, z), if the apron holds it.
    #[inline]
    pub fn at(&self, x: i64, z: i64) -> Option<f32> {
        self.sample(x, z).map(|(h, _)| h)
    }

    /// `h_b` and the biome at world column (x, z), as [`sample_points`]
    /// gives them there, if the apron holds them.
    #[inline]
    pub fn sample(&self, x: i64, z: i64) -> Option<(f32, u8)> {
        let ax = x - (self.col.x as i64 * CHUNK_SIZE_I64 - 1);
        let az = z - (self.col.z as i64 * CHUNK_SIZE_I64 - 1);
        let side = 0..APRON as i64;
        (side.contains(&ax) && side.contains(&az)).then(|| {
            let i = az as usize * APRON + ax as usize;
            (self.h_b[i], self.biome[i])
        })
    }

    pub fn column(&self) -> ColumnPos {
        self.col
    }
}
