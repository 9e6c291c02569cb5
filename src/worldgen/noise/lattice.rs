//! The Brno project's 3D gradient lattice, the noise under the caves. CUDA twin:
//! `kernels/lattice.cuh`.
//!
//! Octave cells are powers of two no smaller than 8 blocks and aligned to
//! the world grid, so every aligned 8×8×8 group of blocks lies inside one
//! cell per octave. The group's eight corner gradients, and the per-axis
//! partial products `g·(f − c)` along its x and z edges, are computed once
//! and shared by all 512 blocks ([`GroupCell`]); a block then needs only
//! additions and the trilinear blend. Sampling at block centres
//! (`f = (x mod cell + ½) / cell`) keeps every sample off the lattice
//! planes, where Perlin noise is pinned to zero.
//!
//! The blend ([`blend`]) is Perlin's trilinear one, summed in an order that
//! lets a y run of blocks share most of it: each face of the cell is blended
//! along x and z first, which leaves a line in y per face. The fade and the
//! lerp are Perlin's own ([`super::perlin::fade`], [`super::perlin::lerp`]).
//! Every value is computed the same way on both engines: the partial
//! products are exact (gradients are 0/±1, fractions are dyadic with few
//! bits), the fade and the blends are single IEEE operations in a fixed
//! order, so the cooperative and the naive evaluation give the same bits.

use super::perlin::{fade, lerp};

/// A group of blocks: 8 along each axis.
pub const GROUP: usize = 8;
pub const GROUP_VOLUME: usize = GROUP * GROUP * GROUP;

/// The Brno project's integer hash: xor-shift and multiply twice, then xor-shift.
#[inline(always)]
pub fn mix(mut x: u32) -> u32 {
    x = ((x >> 16) ^ x).wrapping_mul(0x045d_9f3b);
    x = ((x >> 16) ^ x).wrapping_mul(0x045d_9f3b);
    (x >> 16) ^ x
}

/// The hash of lattice corner (x, y, z), chained axis by axis.
#[inline(always)]
pub fn corner_hash(seed: u32, x: i32, y: i32, z: i32) -> u32 {
    mix(mix(mix(seed ^ x as u32) ^ y as u32) ^ z as u32)
}

/// One of the 12 cube-edge directions, from a hash: `i = h mod 12` picks
/// the plane (xy, xz, yz) by `i / 4` and the two signs by bits 0 and 1.
#[inline(always)]
pub fn gradient(h: u32) -> [f32; 3] {
    let i = h % 12;
    let s1 = if i & 1 != 0 { -1.0 } else { 1.0 };
    let s2 = if i & 2 != 0 { -1.0 } else { 1.0 };
    match i >> 2 {
        0 => [s1, s2, 0.0],
        1 => [s1, 0.0, s2],
        _ => [0.0, s1, s2],
    }
}

/// Where block coordinate `v` sits in its cell of `1 << shift` blocks:
/// the cell index and the block centre's fraction of the cell.
#[inline(always)]
pub fn cell_of(v: i32, shift: u32) -> (i32, f32) {
    let mask = (1i32 << shift) - 1;
    (v >> shift, ((v & mask) as f32 + 0.5) * (1.0 / (1u32 << shift) as f32))
}

/// The seed of octave `o` of a noise whose octave 0 has `seed`.
#[inline(always)]
pub fn octave_seed(seed: u32, o: u32) -> u32 {
    seed.wrapping_add(o.wrapping_mul(crate::worldgen::params::OCTAVE_SEED_STEP))
}

/// One octave's cell as seen by an 8×8×8 group: for corner `c` (bit 0: +x,
/// bit 1: +y, bit 2: +z) and block `i` along each axis, the partial
/// product `g_c[axis] · (f_i − c_axis)`, and the fades along each axis.
#[derive(Clone, Debug)]
pub struct GroupCell {
    pub part: [[[f32; GROUP]; 8]; 3],
    pub fade: [[f32; GROUP]; 3],
    /// The y gradient component of each corner.
    pub grad_y: [f32; 8],
    /// The y fractions of the group's blocks.
    pub frac_y: [f32; GROUP],
}

/// The eight corner gradients of the cell of one octave that holds a
/// group, and where the group's first block sits in that cell: all the
/// hashing a group needs, shared by its bounds ([`GroupEdges`]) and its
/// values ([`GroupCell`]).
#[derive(Clone, Copy, Debug)]
pub struct GroupCorners {
    grad: [[f32; 3]; 8],
    /// The first block's offset in the cell along each axis, and the
    /// cell's reciprocal size.
    first: [i32; 3],
    scale: [f32; 3],
}

impl GroupCorners {
    /// `origin` is the group's lowest block (a multiple of 8 on each axis).
    #[inline(always)]
    pub fn new(seed: u32, shift_xz: u32, shift_y: u32, origin: [i32; 3]) -> GroupCorners {
        let shifts = [shift_xz, shift_y, shift_xz];
        let mut cell = [0i32; 3];
        let mut first = [0i32; 3];
        let mut scale = [0f32; 3];
        for axis in 0..3 {
            cell[axis] = cell_of(origin[axis], shifts[axis]).0;
            first[axis] = origin[axis] & ((1i32 << shifts[axis]) - 1);
            scale[axis] = 1.0 / (1u32 << shifts[axis]) as f32;
        }
        // The corner hashes chain x, then y, then z, so the eight corners
        // share two x stages and four y stages: 14 mixes, not 24.
        let hx: [u32; 2] = std::array::from_fn(|c| mix(seed ^ (cell[0] + c as i32) as u32));
        let hxy: [u32; 4] = std::array::from_fn(|c| mix(hx[c & 1] ^ (cell[1] + (c >> 1) as i32) as u32));
        let grad = std::array::from_fn(|c| gradient(mix(hxy[c & 3] ^ (cell[2] + (c >> 2) as i32) as u32)));
        GroupCorners { grad, first, scale }
    }

    /// The fraction of block `i` of the group along `axis`. The group never
    /// crosses a cell: the eight fractions are the first one's plus whole
    /// blocks, all exact, as `cell_of` gives.
    #[inline(always)]
    fn frac(&self, axis: usize, i: usize) -> f32 {
        ((self.first[axis] + i as i32) as f32 + 0.5) * self.scale[axis]
    }

    /// The partial product `g_c[axis] · (f_i − c_axis)`.
    #[inline(always)]
    fn part(&self, axis: usize, c: usize, i: usize) -> f32 {
        self.grad[c][axis] * (self.frac(axis, i) - ((c >> axis) & 1) as f32)
    }

    /// The group's first and last block of every partial product and fade:
    /// what its bounds are made of, without the 512 blocks' set-up.
    #[inline(always)]
    pub fn edges(&self) -> GroupEdges {
        let ends = [0, GROUP - 1];
        GroupEdges {
            part: std::array::from_fn(|axis| std::array::from_fn(|c| ends.map(|i| self.part(axis, c, i)))),
            fade: std::array::from_fn(|axis| ends.map(|i| fade(self.frac(axis, i)))),
        }
    }

    /// The octave at block `[i, j, k]` of the group from the shared
    /// gradients alone: its own partial products and fades, as
    /// [`octave_at`] forms them, so the same bits.
    #[inline(always)]
    pub fn block(&self, [i, j, k]: [usize; 3]) -> f32 {
        let pxz: [f32; 8] = std::array::from_fn(|c| self.part(0, c, i) + self.part(2, c, k));
        let gy = self.grad.map(|g| g[1]);
        let fy = self.frac(1, j);
        blend(&pxz, &gy, fy, fade(self.frac(0, i)), fade(fy), fade(self.frac(2, k)))
    }

    /// The whole cell as the group's blocks see it.
    #[inline(always)]
    pub fn cell(&self) -> GroupCell {
        let frac: [[f32; GROUP]; 3] = std::array::from_fn(|axis| std::array::from_fn(|i| self.frac(axis, i)));
        GroupCell {
            part: std::array::from_fn(|axis| std::array::from_fn(|c| std::array::from_fn(|i| self.part(axis, c, i)))),
            fade: frac.map(|axis| axis.map(fade)),
            grad_y: self.grad.map(|g| g[1]),
            frac_y: frac[1],
        }
    }
}

/// A group's first and last block of each partial product (per axis and
/// corner) and of each fade (per axis).
#[derive(Clone, Copy, Debug)]
pub struct GroupEdges {
    pub part: [[[f32; 2]; 8]; 3],
    pub fade: [[f32; 2]; 3],
}

impl GroupEdges {
    /// Bounds of the octave over the whole group. Each corner's dot product
    /// is linear, so its extremes lie at the group's edges; the trilinear
    /// blend is multilinear in (corner values, fades), so its extremes lie
    /// at the vertices of their intervals.
    #[inline(always)]
    pub fn bounds(&self) -> (f32, f32) {
        let mut d = [(0f32, 0f32); 8];
        for (c, dc) in d.iter_mut().enumerate() {
            for axis in 0..3 {
                let [a, b] = self.part[axis][c];
                dc.0 += a.min(b);
                dc.1 += a.max(b);
            }
        }
        let t = |axis: usize| (self.fade[axis][0], self.fade[axis][1]);
        let span = |a: (f32, f32), b: (f32, f32), t: (f32, f32)| {
            let mut lo = f32::INFINITY;
            let mut hi = f32::NEG_INFINITY;
            for av in [a.0, a.1] {
                for bv in [b.0, b.1] {
                    for tv in [t.0, t.1] {
                        let v = lerp(tv, av, bv);
                        lo = lo.min(v);
                        hi = hi.max(v);
                    }
                }
            }
            (lo, hi)
        };
        let (tx, ty, tz) = (t(0), t(1), t(2));
        let x00 = span(d[0], d[1], tx);
        let x10 = span(d[2], d[3], tx);
        let x01 = span(d[4], d[5], tx);
        let x11 = span(d[6], d[7], tx);
        span(span(x00, x10, ty), span(x01, x11, ty), tz)
    }
}

impl GroupCell {
    /// `origin` is the group's lowest block (a multiple of 8 on each axis).
    #[inline(always)]
    pub fn new(seed: u32, shift_xz: u32, shift_y: u32, origin: [i32; 3]) -> GroupCell {
        GroupCorners::new(seed, shift_xz, shift_y, origin).cell()
    }
}

/// Corner `c` of a cell (bit 0: +x, bit 1: +y, bit 2: +z) as 0/1 offsets,
/// and its gradient.
#[inline(always)]
fn corner_gradient(seed: u32, cell: [i32; 3], c: usize) -> ([usize; 3], [f32; 3]) {
    let corner = [c & 1, (c >> 1) & 1, (c >> 2) & 1];
    let h = corner_hash(seed, cell[0] + corner[0] as i32, cell[1] + corner[1] as i32, cell[2] + corner[2] as i32);
    (corner, gradient(h))
}

/// One block's octave value, computed alone: its own cell, its own eight
/// corner hashes (the non-cooperative evaluation the Brno project compares with).
#[inline(always)]
pub fn octave_at(seed: u32, shift_xz: u32, shift_y: u32, p: [i32; 3]) -> f32 {
    let shifts = [shift_xz, shift_y, shift_xz];
    let mut cell = [0i32; 3];
    let mut f = [0f32; 3];
    for axis in 0..3 {
        (cell[axis], f[axis]) = cell_of(p[axis], shifts[axis]);
    }
    let (mut pxz, mut gy) = ([0f32; 8], [0f32; 8]);
    for c in 0..8 {
        let (corner, g) = corner_gradient(seed, cell, c);
        pxz[c] = g[0] * (f[0] - corner[0] as f32) + g[2] * (f[2] - corner[2] as f32);
        gy[c] = g[1];
    }
    blend(&pxz, &gy, f[1], fade(f[0]), fade(f[1]), fade(f[2]))
}

/// Eight blocks' octave values, one block a lane, each computed alone as
/// [`octave_at`] does (its own cell, its own eight corner hashes): the
/// naive evaluation with SIMD and no sharing, the same bits as `octave_at`.
#[cfg(target_arch = "x86_64")]
pub fn octave_at_x8(_: super::perlin_avx2::Avx2, seed: u32, shift_xz: u32, shift_y: u32, p: [[i32; 8]; 3]) -> [f32; 8] {
    // SAFETY: the Avx2 proof says this CPU runs AVX2.
    unsafe { octave_at_avx2(seed, shift_xz, shift_y, p) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn octave_at_avx2(seed: u32, shift_xz: u32, shift_y: u32, p: [[i32; 8]; 3]) -> [f32; 8] {
    use std::arch::x86_64::*;
    let shifts = [shift_xz, shift_y, shift_xz];
    let (mut cell, mut f) = ([_mm256_setzero_si256(); 3], [_mm256_setzero_ps(); 3]);
    for axis in 0..3 {
        // SAFETY: an [i32; 8] is 32 bytes; loadu needs no alignment.
        let v = unsafe { _mm256_loadu_si256(p[axis].as_ptr().cast()) };
        let shift = shifts[axis];
        cell[axis] = _mm256_srav_epi32(v, _mm256_set1_epi32(shift as i32));
        let within = _mm256_cvtepi32_ps(_mm256_and_si256(v, _mm256_set1_epi32((1i32 << shift) - 1)));
        f[axis] =
            _mm256_mul_ps(_mm256_add_ps(within, _mm256_set1_ps(0.5)), _mm256_set1_ps(1.0 / (1u32 << shift) as f32));
    }
    let mix = |x: __m256i| {
        let k = _mm256_set1_epi32(0x045d_9f3b);
        let x = _mm256_mullo_epi32(_mm256_xor_si256(_mm256_srli_epi32::<16>(x), x), k);
        let x = _mm256_mullo_epi32(_mm256_xor_si256(_mm256_srli_epi32::<16>(x), x), k);
        _mm256_xor_si256(_mm256_srli_epi32::<16>(x), x)
    };
    // h mod 12 without division: h / 12 = (h · 0xAAAA_AAAB) >> 35 for every
    // u32, taken on the even lanes and then the odd ones.
    let mod12 = |h: __m256i| {
        let k = _mm256_set1_epi32(0xAAAA_AAABu32 as i32);
        let even = _mm256_srli_epi64::<35>(_mm256_mul_epu32(h, k));
        let odd = _mm256_srli_epi64::<35>(_mm256_mul_epu32(_mm256_srli_epi64::<32>(h), k));
        let q = _mm256_or_si256(even, _mm256_slli_epi64::<32>(odd));
        _mm256_sub_epi32(h, _mm256_mullo_epi32(q, _mm256_set1_epi32(12)))
    };
    // ±1 with the sign from bit `B` of i, as `gradient` picks it.
    let sign = |i: __m256i, bit: __m256i| {
        let b = _mm256_slli_epi32::<31>(_mm256_and_si256(i, bit));
        _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(_mm256_set1_ps(1.0)), b))
    };
    let lerp = |t: __m256, a: __m256, b: __m256| _mm256_add_ps(a, _mm256_mul_ps(t, _mm256_sub_ps(b, a)));
    let fade = |t: __m256| {
        let inner = _mm256_add_ps(
            _mm256_mul_ps(t, _mm256_sub_ps(_mm256_mul_ps(t, _mm256_set1_ps(6.0)), _mm256_set1_ps(15.0))),
            _mm256_set1_ps(10.0),
        );
        _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(t, t), t), inner)
    };
    let (mut pxz, mut gy) = ([_mm256_setzero_ps(); 8], [_mm256_setzero_ps(); 8]);
    for c in 0..8 {
        let corner = [c & 1, (c >> 1) & 1, (c >> 2) & 1];
        let at = |axis: usize| _mm256_add_epi32(cell[axis], _mm256_set1_epi32(corner[axis] as i32));
        let h = mix(_mm256_xor_si256(
            mix(_mm256_xor_si256(mix(_mm256_xor_si256(_mm256_set1_epi32(seed as i32), at(0))), at(1))),
            at(2),
        ));
        let i = mod12(h);
        let plane = _mm256_srli_epi32::<2>(i);
        let (s1, s2) = (sign(i, _mm256_set1_epi32(1)), sign(_mm256_srli_epi32::<1>(i), _mm256_set1_epi32(1)));
        let is = |n: i32| _mm256_castsi256_ps(_mm256_cmpeq_epi32(plane, _mm256_set1_epi32(n)));
        // Planes 0: (s1, s2, 0), 1: (s1, 0, s2), 2: (0, s1, s2).
        let gx = _mm256_andnot_ps(is(2), s1);
        let g_y = _mm256_or_ps(_mm256_and_ps(is(0), s2), _mm256_and_ps(is(2), s1));
        let gz = _mm256_andnot_ps(is(0), s2);
        let off = |axis: usize| _mm256_sub_ps(f[axis], _mm256_set1_ps(corner[axis] as f32));
        pxz[c] = _mm256_add_ps(_mm256_mul_ps(gx, off(0)), _mm256_mul_ps(gz, off(2)));
        gy[c] = g_y;
    }
    let (u, v, w) = (fade(f[0]), fade(f[1]), fade(f[2]));
    let face = |values: &[__m256; 8], c: [usize; 4]| {
        lerp(w, lerp(u, values[c[0]], values[c[1]]), lerp(u, values[c[2]], values[c[3]]))
    };
    let bottom = _mm256_add_ps(face(&pxz, BOTTOM), _mm256_mul_ps(face(&gy, BOTTOM), f[1]));
    let top = _mm256_add_ps(face(&pxz, TOP), _mm256_mul_ps(face(&gy, TOP), _mm256_sub_ps(f[1], _mm256_set1_ps(1.0))));
    let mut out = [0f32; 8];
    // SAFETY: an [f32; 8] is 32 bytes; storeu needs no alignment.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), lerp(v, bottom, top)) };
    out
}

/// Corners of the bottom (y = 0) and the top (y = 1) face, in blend order.
const BOTTOM: [usize; 4] = [0, 1, 4, 5];
const TOP: [usize; 4] = [2, 3, 6, 7];

/// One face's values blended along x (fade `u`), then z (fade `w`).
#[inline(always)]
pub fn face(values: &[f32; 8], corners: [usize; 4], u: f32, w: f32) -> f32 {
    lerp(w, lerp(u, values[corners[0]], values[corners[1]]), lerp(u, values[corners[2]], values[corners[3]]))
}

/// The trilinear blend of a block's eight corner dot products, given as
/// each corner's x + z part `pxz` (`g_x(f_x − c_x) + g_z(f_z − c_z)`) and
/// y gradient `gy`. The bottom face blends to `k_b + g_b·f_y` and the top
/// face to `k_t + g_t·(f_y − 1)` (the blends are linear), then y blends
/// the two. The same value as blending the dot products x, y, z, but a y
/// run of blocks shares the four face blends: only the last two lines
/// are per block.
#[inline(always)]
pub fn blend(pxz: &[f32; 8], gy: &[f32; 8], fy: f32, u: f32, v: f32, w: f32) -> f32 {
    let bottom = face(pxz, BOTTOM, u, w) + face(gy, BOTTOM, u, w) * fy;
    let top = face(pxz, TOP, u, w) + face(gy, TOP, u, w) * (fy - 1.0);
    lerp(v, bottom, top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn eight_lanes_alone_give_each_blocks_bits() {
        let Some(avx2) = crate::worldgen::noise::perlin_avx2::avx2() else { return };
        let mut state = 0x9e37_79b9u32;
        let mut next = || {
            state = mix(state.wrapping_add(0x6d2b_79f5));
            state as i32 >> 4
        };
        for (shift_xz, shift_y) in [(3, 3), (6, 4), (9, 7), (12, 10)] {
            for seed in [0, 7, 0xdead_beef] {
                let p: [[i32; 8]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| next()));
                let lanes = octave_at_x8(avx2, seed, shift_xz, shift_y, p);
                for l in 0..8 {
                    let one = octave_at(seed, shift_xz, shift_y, [p[0][l], p[1][l], p[2][l]]);
                    assert_eq!(lanes[l].to_bits(), one.to_bits(), "lane {l}, shifts {shift_xz}/{shift_y}, seed {seed}");
                }
            }
        }
    }

    #[test]
    fn the_hash_is_seed_001s() {
        let mut x: u32 = 1;
        x = ((x >> 16) ^ x).wrapping_mul(0x045d_9f3b);
        x = ((x >> 16) ^ x).wrapping_mul(0x045d_9f3b);
        x ^= x >> 16;
        assert_eq!(mix(1), x);
        assert_eq!(mix(0), 0);
        assert_ne!(corner_hash(7, 1, 2, 3), corner_hash(7, 3, 2, 1), "the axes are not symmetric");
    }

    #[test]
    fn gradients_are_the_twelve_cube_edges() {
        let mut seen: Vec<[i32; 3]> = (0..12u32).map(|h| gradient(h).map(|v| v as i32)).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 12);
        for g in seen {
            assert_eq!(g.iter().filter(|v| **v == 0).count(), 1, "{g:?}");
        }
    }

    #[test]
    fn cells_floor_negative_coordinates() {
        assert_eq!(cell_of(-1, 3), (-1, 7.5 / 8.0));
        assert_eq!(cell_of(8, 3), (1, 0.5 / 8.0));
    }

    #[test]
    fn a_shared_cell_gives_the_same_bits_as_each_block_alone() {
        let origin = [-24, 40, 1016];
        for (sxz, sy) in [(3, 3), (5, 4), (10, 6)] {
            let corners = GroupCorners::new(99, sxz, sy, origin);
            let cell = corners.cell();
            let (lo, hi) = corners.edges().bounds();
            for k in 0..GROUP {
                for i in 0..GROUP {
                    for j in 0..GROUP {
                        let pxz: [f32; 8] = std::array::from_fn(|c| cell.part[0][c][i] + cell.part[2][c][k]);
                        let (u, v, w) = (cell.fade[0][i], cell.fade[1][j], cell.fade[2][k]);
                        let shared = blend(&pxz, &cell.grad_y, cell.frac_y[j], u, v, w);
                        let alone =
                            octave_at(99, sxz, sy, [origin[0] + i as i32, origin[1] + j as i32, origin[2] + k as i32]);
                        assert_eq!(shared.to_bits(), alone.to_bits());
                        assert!(lo <= alone && alone <= hi, "{alone} outside the bounds {lo}..{hi}");
                    }
                }
            }
        }
    }
}
