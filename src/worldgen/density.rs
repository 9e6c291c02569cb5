//! The density stage: caves carved out of the filled terrain. CUDA twin:
//! `kernels/density.cu`.
//!
//! The preset's cave noises are 3D noise on seed 001's lattice
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
//! **Proofs.** Each group's noise bounds ([`GroupCell::bounds`]) rule out
//! layers that cannot fire there; a group where none can is skipped, and a
//! chunk where every group is ruled out is provably solid
//! ([`proves_solid`]), which keeps deep chunks uniform and cheap.

use super::heightmap::Heightmap;
use super::noise::lattice::{self, GroupCell, GROUP, GROUP_VOLUME};
use super::params::{FlatCaveLayer, FlatCaveNoise, WorldParams, CAVE_CHAMBERS};
use super::preset::MAX_CAVE_NOISES;
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
    let w = p.water_level as i64;
    y <= h - min_depth
        && y >= p.cave_bottom as i64
        && y <= p.cave_top as i64
        && (y > w || y <= h.min(w) - p.cave_water_clearance as i64)
}

/// Whether layer `l` fires for these noise values.
#[inline(always)]
pub fn fires(l: &FlatCaveLayer, values: &[f32; MAX_CAVE_NOISES]) -> bool {
    let a = values[l.a as usize % MAX_CAVE_NOISES];
    if l.kind == CAVE_CHAMBERS {
        a > l.threshold
    } else {
        let b = values[l.b as usize % MAX_CAVE_NOISES];
        a.abs() < l.threshold && b.abs() < l.threshold
    }
}

/// Bounds of a noise over the group at `origin`.
pub fn group_bounds(n: &FlatCaveNoise, origin: [i32; 3]) -> (f32, f32) {
    let (mut lo, mut hi) = (0f32, 0f32);
    for o in 0..n.octaves {
        let (l, h) = GroupCell::new(lattice::octave_seed(n.seed, o), n.shift_xz - o, n.shift_y - o, origin).bounds();
        let w = n.weights[o as usize];
        lo += w * l;
        hi += w * h;
    }
    (lo - BOUNDS_MARGIN, hi + BOUNDS_MARGIN)
}

/// Whether layer `l` can fire anywhere in a group, given bounds per noise.
fn may_fire(
    l: &FlatCaveLayer,
    bounds: &mut [Option<(f32, f32)>; MAX_CAVE_NOISES],
    p: &WorldParams,
    origin: [i32; 3],
) -> bool {
    let mut b = |i: u32| {
        let i = i as usize % MAX_CAVE_NOISES;
        *bounds[i].get_or_insert_with(|| group_bounds(&p.cave_noises[i], origin))
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
                if p.cave_layers().iter().any(|l| may_fire(l, &mut bounds, p, origin)) {
                    return false;
                }
            }
        }
    }
    true
}

/// A noise over one group, `out[(z·8 + x)·8 + y]`, the cells shared.
pub fn group_noise(n: &FlatCaveNoise, origin: [i32; 3], out: &mut [f32; GROUP_VOLUME]) {
    #[cfg(target_arch = "x86_64")]
    if crate::worldgen::noise::perlin_avx2::available() {
        // SAFETY: AVX2 presence was just checked.
        return unsafe { group_noise_avx2(n, origin, out) };
    }
    group_noise_generic(n, origin, out)
}

/// The portable form: each y run of eight blocks, lane by lane. Rust never
/// fuses a multiply and an add, so it gives the bits of the AVX2 form.
#[inline(always)]
fn group_noise_generic(n: &FlatCaveNoise, origin: [i32; 3], out: &mut [f32; GROUP_VOLUME]) {
    out.fill(0.0);
    for o in 0..n.octaves {
        let cell = GroupCell::new(lattice::octave_seed(n.seed, o), n.shift_xz - o, n.shift_y - o, origin);
        let weight = n.weights[o as usize];
        let [px, py, pz] = &cell.part;
        let v = cell.fade[1];
        for k in 0..GROUP {
            let w = cell.fade[2][k];
            for i in 0..GROUP {
                let u = cell.fade[0][i];
                let row = &mut out[(k * GROUP + i) * GROUP..][..GROUP];
                for j in 0..GROUP {
                    let mut d = [0f32; 8];
                    for (c, dc) in d.iter_mut().enumerate() {
                        *dc = (px[c][i] + py[c][j]) + pz[c][k];
                    }
                    row[j] += weight * lattice::blend(&d, u, v[j], w);
                }
            }
        }
    }
}

/// The AVX2 form: one y run of eight blocks per vector. `px + py` is formed
/// once per (x, corner) and reused for every z, the same sums in the same
/// order as [`group_noise_generic`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn group_noise_avx2(n: &FlatCaveNoise, origin: [i32; 3], out: &mut [f32; GROUP_VOLUME]) {
    use std::arch::x86_64::*;
    let lerp = |a: __m256, b: __m256, t: __m256| _mm256_add_ps(a, _mm256_mul_ps(t, _mm256_sub_ps(b, a)));
    let mut acc = [_mm256_setzero_ps(); GROUP * GROUP];
    for o in 0..n.octaves {
        let cell = GroupCell::new(lattice::octave_seed(n.seed, o), n.shift_xz - o, n.shift_y - o, origin);
        let weight = _mm256_set1_ps(n.weights[o as usize]);
        let [px, py, pz] = &cell.part;
        // SAFETY (loads): every row is an [f32; 8].
        let v = _mm256_loadu_ps(cell.fade[1].as_ptr());
        let mut pxy = [[_mm256_setzero_ps(); 8]; GROUP];
        for (i, at_x) in pxy.iter_mut().enumerate() {
            for (c, r) in at_x.iter_mut().enumerate() {
                *r = _mm256_add_ps(_mm256_set1_ps(px[c][i]), _mm256_loadu_ps(py[c].as_ptr()));
            }
        }
        for k in 0..GROUP {
            let w = _mm256_set1_ps(cell.fade[2][k]);
            let zc: [__m256; 8] = std::array::from_fn(|c| _mm256_set1_ps(pz[c][k]));
            for (i, at_x) in pxy.iter().enumerate() {
                let u = _mm256_set1_ps(cell.fade[0][i]);
                let d: [__m256; 8] = std::array::from_fn(|c| _mm256_add_ps(at_x[c], zc[c]));
                let a00 = lerp(d[0], d[1], u);
                let a10 = lerp(d[2], d[3], u);
                let a01 = lerp(d[4], d[5], u);
                let a11 = lerp(d[6], d[7], u);
                let value = lerp(lerp(a00, a10, v), lerp(a01, a11, v), w);
                let slot = &mut acc[k * GROUP + i];
                *slot = _mm256_add_ps(*slot, _mm256_mul_ps(weight, value));
            }
        }
    }
    for (dst, src) in out.chunks_exact_mut(GROUP).zip(&acc) {
        _mm256_storeu_ps(dst.as_mut_ptr(), *src);
    }
}

/// A noise at one block, every octave's cell set up for it alone: seed
/// 001's non-cooperative evaluation (same bits, far more hashing).
pub fn noise_at(n: &FlatCaveNoise, p: [i32; 3]) -> f32 {
    let mut acc = 0f32;
    for o in 0..n.octaves {
        acc += n.weights[o as usize]
            * lattice::octave_at(lattice::octave_seed(n.seed, o), n.shift_xz - o, n.shift_y - o, p);
    }
    acc
}

/// The blocks of a chunk that caves carve, or `None` if there are none.
pub fn carve_mask(p: &WorldParams, pos: ChunkPos, hm: &Heightmap) -> Option<Box<CaveMask>> {
    let y0 = pos.y as i64 * CHUNK_SIZE as i64;
    if !p.has_caves()
        || y0 + CHUNK_SIZE as i64 - 1 < p.cave_bottom as i64
        || y0 > p.cave_top as i64
        || y0 > hm.max_height as i64
    {
        return None;
    }
    let mut mask: Box<CaveMask> = Box::new([0; CHUNK_VOLUME / 8]);
    let mut any = false;
    let mut values = vec![[0f32; GROUP_VOLUME]; MAX_CAVE_NOISES];
    for gz in 0..GROUPS {
        for gx in 0..GROUPS {
            let column = |i: usize, k: usize| (gz * GROUP + k) * CHUNK_SIZE + gx * GROUP + i;
            let group_top =
                (0..GROUP * GROUP).map(|c| hm.heights[column(c % GROUP, c / GROUP)]).max().unwrap_or(i32::MIN);
            for gy in 0..GROUPS {
                let origin = group_origin(pos, [gx, gy, gz]);
                if origin[1] as i64 > group_top as i64
                    || origin[1] as i64 + GROUP as i64 - 1 < p.cave_bottom as i64
                    || origin[1] as i64 > p.cave_top as i64
                {
                    continue;
                }
                let mut bounds = [None; MAX_CAVE_NOISES];
                let mut computed = [false; MAX_CAVE_NOISES];
                let mut rows = [0u8; GROUP * GROUP];
                for l in p.cave_layers() {
                    if !may_fire(l, &mut bounds, p, origin) {
                        continue;
                    }
                    // Where the layer may open, by column and height: one byte per y run.
                    let mut open = [0u8; GROUP * GROUP];
                    for (r, bits) in open.iter_mut().enumerate() {
                        let h = hm.heights[column(r % GROUP, r / GROUP)] as i64;
                        *bits = lane_bits(|j| may_open(p, origin[1] as i64 + j as i64, h, l.min_depth as i64));
                    }
                    if open.iter().all(|&b| b == 0) {
                        continue;
                    }
                    let t = l.threshold;
                    let mut fire = [0u8; GROUP * GROUP];
                    let a = ensure_noise(p, origin, l.a, &mut computed, &mut values);
                    for (r, bits) in fire.iter_mut().enumerate() {
                        let run = &a[r * GROUP..][..GROUP];
                        *bits = open[r]
                            & if l.kind == CAVE_CHAMBERS {
                                lane_bits(|j| run[j] > t)
                            } else {
                                lane_bits(|j| run[j].abs() < t)
                            };
                    }
                    // Tunnels need the second noise only where the first is near zero.
                    if l.kind != CAVE_CHAMBERS && fire.iter().any(|&b| b != 0) {
                        let b = ensure_noise(p, origin, l.b, &mut computed, &mut values);
                        for (r, bits) in fire.iter_mut().enumerate() {
                            let run = &b[r * GROUP..][..GROUP];
                            *bits &= lane_bits(|j| run[j].abs() < t);
                        }
                    }
                    for (dst, bits) in rows.iter_mut().zip(&fire) {
                        *dst |= bits;
                    }
                }
                for (r, &bits) in rows.iter().enumerate() {
                    mask[column(r % GROUP, r / GROUP) * GROUPS + gy] = bits;
                    any |= bits != 0;
                }
            }
        }
    }
    any.then_some(mask)
}

/// Noise `i` over the group at `origin`, evaluated on first use.
fn ensure_noise<'v>(
    p: &WorldParams,
    origin: [i32; 3],
    i: u32,
    computed: &mut [bool; MAX_CAVE_NOISES],
    values: &'v mut [[f32; GROUP_VOLUME]],
) -> &'v [f32; GROUP_VOLUME] {
    let i = i as usize % MAX_CAVE_NOISES;
    if !std::mem::replace(&mut computed[i], true) {
        group_noise(&p.cave_noises[i], origin, &mut values[i]);
    }
    &values[i]
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

/// Carves a filled chunk: air, or lava below `lava_below`; counts kept.
pub fn apply(p: &WorldParams, pos: ChunkPos, mask: &CaveMask, bytes: &mut [u8], counts: &mut [u32]) {
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
            let new = if y0 + (ly as i64) < p.cave_lava_below as i64 { p.cave_lava_block } else { p.air_block } as u8;
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
    fn the_avx2_group_gives_the_portable_bits() {
        #[cfg(target_arch = "x86_64")]
        if crate::worldgen::noise::perlin_avx2::available() {
            let n = crate::bench::density::seed001_noise(4, 99);
            for origin in [[0, 0, 0], [-8, 1016, -4096], [123_456, -64, 8]] {
                let origin = origin.map(|v: i32| v & !7);
                let (mut a, mut b) = ([0f32; GROUP_VOLUME], [0f32; GROUP_VOLUME]);
                // SAFETY: AVX2 presence was just checked.
                unsafe { group_noise_avx2(&n, origin, &mut a) };
                group_noise_generic(&n, origin, &mut b);
                assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "{origin:?}");
            }
        }
    }
}
