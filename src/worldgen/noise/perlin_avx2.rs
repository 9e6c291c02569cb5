//! AVX2 lanes: eight columns per instruction. Every function repeats the
//! scalar definition in `perlin.rs` / `fastmath.rs` step for step (same
//! operations, same order, no FMA), so results are bit-identical; the tests
//! below check that on many inputs.
//!
//! Everything here is `#[inline(always)]` and only reached from functions
//! compiled with `#[target_feature(enable = "avx2")]` after a runtime check.
//!
//! The one exception to the crate's `unsafe_op_in_unsafe_fn = "deny"`:
//! these helpers are `#[inline(always)]` (which `#[target_feature]` does not
//! allow beside it), so every intrinsic in them is an unsafe call, and one
//! `unsafe` block per operation would bury the arithmetic that must match
//! `perlin.rs` step for step. Their soundness argument is one and the same
//! for all: they run only inside AVX2-enabled callers, reached through the
//! [`Avx2`] proof.
#![allow(unsafe_op_in_unsafe_fn)]

use super::gullies::{INV_REACH_SQ, JITTER as GULLY_JITTER, JITTER_Z_SEED};
use super::lanes::Lanes;
use super::perlin::{HASH_MIX, LATTICE_MAX, LATTICE_MIN, PRIME_X, PRIME_Y, PRIME_Z, SCALE_2D, SCALE_3D};
use super::position::ROUND_MAGIC;
use super::value::CORNER_SCALE;
use std::arch::x86_64::*;

/// True when this CPU can run the eight-lane path.
pub fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Proof that this CPU runs AVX2: only [`avx2`] makes one, after checking.
#[derive(Clone, Copy)]
pub struct Avx2(());

/// The proof, where this CPU has AVX2.
pub fn avx2() -> Option<Avx2> {
    available().then_some(Avx2(()))
}

/// Eight lanes. Made only by [`F32x8::load`] with an [`Avx2`] proof, or
/// from another `F32x8`, so its safe methods never run on a CPU without
/// AVX2:
///
/// ```
/// use blockworld::worldgen::noise::{lanes::Lanes, perlin_avx2::{avx2, F32x8}};
/// if let Some(proof) = avx2() {
///     let x = F32x8::load(proof, &[1.0; 8]);
///     let mut out = [0.0; 8];
///     x.add(x.splat(0.5)).store(&mut out);
///     assert_eq!(out, [1.5; 8]);
/// }
/// ```
///
/// and without the proof there is no way to make one:
///
/// ```compile_fail
/// use blockworld::worldgen::noise::{lanes::Lanes, perlin_avx2::F32x8};
/// let x = F32x8(unsafe { std::mem::zeroed() });
/// ```
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct F32x8(__m256);

impl F32x8 {
    /// Reads eight values from the start of `src`.
    #[inline(always)]
    pub fn load(_: Avx2, src: &[f32]) -> F32x8 {
        assert!(src.len() >= 8);
        // SAFETY: AVX2 is present (the proof); `src` holds eight values.
        F32x8(unsafe { _mm256_loadu_ps(src.as_ptr()) })
    }
}

#[inline(always)]
fn ps(v: f32) -> __m256 {
    // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
    unsafe { _mm256_set1_ps(v) }
}

#[inline(always)]
fn epi(v: u32) -> __m256i {
    // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
    unsafe { _mm256_set1_epi32(v as i32) }
}

#[inline(always)]
unsafe fn lattice(v: __m256) -> (__m256i, __m256) {
    let f = _mm256_floor_ps(v);
    let c = _mm256_min_ps(_mm256_max_ps(f, ps(LATTICE_MIN)), ps(LATTICE_MAX));
    (_mm256_cvttps_epi32(c), _mm256_sub_ps(v, f))
}

/// Eight double-precision positions (see `position`), in two halves.
#[derive(Clone, Copy)]
pub struct F64x8([__m256d; 2]);

impl F64x8 {
    /// The eight positions, in lane order.
    #[inline(always)]
    fn lanes(self) -> [f64; 8] {
        let mut out = [0.0f64; 8];
        // SAFETY: an F64x8 exists only where AVX2 is present; `out` holds eight values.
        unsafe {
            _mm256_storeu_pd(out.as_mut_ptr(), self.0[0]);
            _mm256_storeu_pd(out.as_mut_ptr().add(4), self.0[1]);
        }
        out
    }
}

/// `position::split` on eight lanes: the floor, the fraction rounded to
/// f32 and the cell from the low word of the rounding sum.
#[inline(always)]
unsafe fn split(p: F64x8) -> (__m256i, __m256) {
    let magic = _mm256_set1_pd(ROUND_MAGIC);
    let (f0, f1) = (_mm256_floor_pd(p.0[0]), _mm256_floor_pd(p.0[1]));
    let (r0, r1) = (_mm256_add_pd(f0, magic), _mm256_add_pd(f1, magic));
    // The low words of both halves: [r0.0 r0.1 r1.0 r1.1 | r0.2 r0.3 r1.2 r1.3],
    // then the middle 64-bit pairs swapped into lane order.
    let low = _mm256_shuffle_ps::<0b10_00_10_00>(_mm256_castpd_ps(r0), _mm256_castpd_ps(r1));
    let cells = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256(low));
    let fractions =
        _mm256_set_m128(_mm256_cvtpd_ps(_mm256_sub_pd(p.0[1], f1)), _mm256_cvtpd_ps(_mm256_sub_pd(p.0[0], f0)));
    (cells, fractions)
}

/// A scalar z's lattice cell and fraction on every lane.
#[inline(always)]
unsafe fn plane(z: f32) -> (__m256i, __m256) {
    let (c, t) = super::perlin::lattice(z);
    (epi(c as u32), ps(t))
}

#[inline(always)]
unsafe fn fade(t: __m256) -> __m256 {
    // t * t * t * (t * (t * 6 - 15) + 10)
    let inner = _mm256_add_ps(_mm256_mul_ps(t, _mm256_sub_ps(_mm256_mul_ps(t, ps(6.0)), ps(15.0))), ps(10.0));
    _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(t, t), t), inner)
}

#[inline(always)]
unsafe fn lerp(t: __m256, a: __m256, b: __m256) -> __m256 {
    _mm256_add_ps(a, _mm256_mul_ps(t, _mm256_sub_ps(b, a)))
}

#[inline(always)]
unsafe fn finish_hash(h: __m256i) -> __m256i {
    _mm256_srli_epi32(_mm256_mullo_epi32(h, epi(HASH_MIX)), 28)
}

/// Gradient codes of crate indices 0..16 (see `perlin::GRADIENT_CODES`),
/// one byte each, repeated in both 128-bit halves for `pshufb`.
#[inline(always)]
unsafe fn code_table() -> __m256i {
    _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 0, 1, 13, 15, //
        0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 0, 1, 13, 15,
    )
}

#[inline(always)]
unsafe fn gradient3(table: __m256i, index: __m256i, x: __m256, y: __m256, z: __m256) -> __m256 {
    let code = _mm256_shuffle_epi8(table, index);
    let u = _mm256_blendv_ps(x, y, _mm256_castsi256_ps(_mm256_slli_epi32(code, 28)));
    let v = _mm256_blendv_ps(y, z, _mm256_castsi256_ps(_mm256_slli_epi32(code, 29)));
    let su = _mm256_castsi256_ps(_mm256_slli_epi32(code, 31));
    let sv = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_srli_epi32(code, 1), 31));
    _mm256_add_ps(_mm256_xor_ps(u, su), _mm256_xor_ps(v, sv))
}

#[inline(always)]
unsafe fn gradient2(index: __m256i, x: __m256, y: __m256) -> __m256 {
    let su = _mm256_castsi256_ps(_mm256_slli_epi32(index, 31));
    let sv = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_srli_epi32(index, 1), 31));
    _mm256_add_ps(_mm256_xor_ps(x, su), _mm256_xor_ps(y, sv))
}

/// d/dt of [`fade`]: t·t·(t·(t·30 − 60) + 30), as `perlin::fade_d`.
#[inline(always)]
unsafe fn fade_d(t: __m256) -> __m256 {
    let inner = _mm256_add_ps(_mm256_mul_ps(t, _mm256_sub_ps(_mm256_mul_ps(t, ps(30.0)), ps(60.0))), ps(30.0));
    _mm256_mul_ps(_mm256_mul_ps(t, t), inner)
}

/// A corner's value from its unmixed hash (seed ^ primed coordinates), as
/// `value::corner`: the top 24 bits of the mixed hash mapped to [−1, 1).
#[inline(always)]
unsafe fn value_corner(h: __m256i) -> __m256 {
    let bits = _mm256_srli_epi32(_mm256_mullo_epi32(h, epi(HASH_MIX)), 8);
    _mm256_sub_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(bits), ps(CORNER_SCALE)), ps(1.0))
}

/// Value noise on an integer z with its derivatives along x and y; the
/// same operations in the same order as `value::value3_d`.
///
/// # Safety
/// The CPU must support AVX2 (see [`available`]).
#[inline(always)]
pub unsafe fn value3_d(seed: u32, x: F64x8, y: F64x8, z: f32) -> (__m256, __m256, __m256) {
    let (x0, tx) = split(x);
    let (y0, ty) = split(y);
    let (z0, _) = plane(z);
    let px0 = _mm256_mullo_epi32(x0, epi(PRIME_X));
    let px1 = _mm256_add_epi32(px0, epi(PRIME_X));
    let py0 = _mm256_xor_si256(_mm256_mullo_epi32(y0, epi(PRIME_Y)), epi(seed));
    let py1 = _mm256_xor_si256(_mm256_add_epi32(_mm256_mullo_epi32(y0, epi(PRIME_Y)), epi(PRIME_Y)), epi(seed));
    let pz = _mm256_mullo_epi32(z0, epi(PRIME_Z));
    let (y0z, y1z) = (_mm256_xor_si256(py0, pz), _mm256_xor_si256(py1, pz));
    let v00 = value_corner(_mm256_xor_si256(px0, y0z));
    let v10 = value_corner(_mm256_xor_si256(px1, y0z));
    let v01 = value_corner(_mm256_xor_si256(px0, y1z));
    let v11 = value_corner(_mm256_xor_si256(px1, y1z));
    let (fx, fy) = (fade(tx), fade(ty));
    let (a, b) = (lerp(fx, v00, v10), lerp(fx, v01, v11));
    let value = lerp(fy, a, b);
    let dx = _mm256_mul_ps(fade_d(tx), lerp(fy, _mm256_sub_ps(v10, v00), _mm256_sub_ps(v11, v01)));
    let dy = _mm256_mul_ps(fade_d(ty), _mm256_sub_ps(b, a));
    (value, dx, dy)
}

/// `gullies::gullies` on eight lanes: the same operations in the same
/// order (the corner hashes xor'ed in another order, which gives the same
/// bits).
///
/// # Safety
/// The CPU must support AVX2 (see [`available`]).
#[inline(always)]
pub unsafe fn gullies(seed: u32, x: F64x8, z: F64x8, plane: f32, dx: __m256, dz: __m256) -> (__m256, __m256) {
    let (cx, fx) = split(x);
    let (cz, fz) = split(z);
    let plane_hash = (super::perlin::lattice(plane).0 as u32).wrapping_mul(PRIME_Z);
    let (seed_x, seed_z) = (epi(seed ^ plane_hash), epi(seed ^ JITTER_Z_SEED ^ plane_hash));
    let zero = _mm256_setzero_ps();
    let (mut sum, mut slope, mut weight) = (zero, zero, zero);
    for j in -1i32..=1 {
        let hz = _mm256_mullo_epi32(_mm256_add_epi32(cz, epi(j as u32)), epi(PRIME_Y));
        for i in -1i32..=1 {
            let hxz = _mm256_xor_si256(_mm256_mullo_epi32(_mm256_add_epi32(cx, epi(i as u32)), epi(PRIME_X)), hz);
            let jx = value_corner(_mm256_xor_si256(hxz, seed_x));
            let jz = value_corner(_mm256_xor_si256(hxz, seed_z));
            let ox = _mm256_add_ps(ps(i as f32 + 0.5), _mm256_mul_ps(jx, ps(GULLY_JITTER)));
            let oz = _mm256_add_ps(ps(j as f32 + 0.5), _mm256_mul_ps(jz, ps(GULLY_JITTER)));
            let (px, pz) = (_mm256_sub_ps(fx, ox), _mm256_sub_ps(fz, oz));
            let d2 = _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(px, px), _mm256_mul_ps(pz, pz)), ps(INV_REACH_SQ));
            let t = _mm256_max_ps(_mm256_sub_ps(ps(1.0), d2), zero);
            let w = _mm256_mul_ps(t, t);
            // The stripe profile (`gullies::profile`).
            let phase = _mm256_add_ps(_mm256_mul_ps(px, dx), _mm256_mul_ps(pz, dz));
            let (_, frac) = lattice(_mm256_add_ps(phase, ps(0.5)));
            let r = _mm256_sub_ps(frac, ps(0.5));
            let s = _mm256_sub_ps(ps(1.0), _mm256_mul_ps(ps(4.0), _mm256_mul_ps(r, r)));
            let p = _mm256_sub_ps(_mm256_mul_ps(ps(2.0), _mm256_mul_ps(s, s)), ps(1.0));
            let dp = _mm256_mul_ps(ps(-32.0), _mm256_mul_ps(r, s));
            sum = _mm256_add_ps(sum, _mm256_mul_ps(w, p));
            slope = _mm256_add_ps(slope, _mm256_mul_ps(w, dp));
            weight = _mm256_add_ps(weight, w);
        }
    }
    (_mm256_div_ps(sum, weight), _mm256_div_ps(slope, weight))
}

/// [`perlin3`] on an integer z with its derivatives along x and y; the
/// same operations in the same order as `perlin::perlin3_d`.
///
/// # Safety
/// The CPU must support AVX2 (see [`available`]).
#[inline(always)]
pub unsafe fn perlin3_d(seed: u32, x: F64x8, y: F64x8, z: f32) -> (__m256, __m256, __m256) {
    let (x0, tx) = split(x);
    let (y0, ty) = split(y);
    let (z0, _) = plane(z);
    let (one, zero) = (ps(1.0), _mm256_setzero_ps());
    let (ux, uy) = (_mm256_sub_ps(tx, one), _mm256_sub_ps(ty, one));
    let px0 = _mm256_mullo_epi32(x0, epi(PRIME_X));
    let px1 = _mm256_add_epi32(px0, epi(PRIME_X));
    let py0 = _mm256_mullo_epi32(y0, epi(PRIME_Y));
    let py1 = _mm256_add_epi32(py0, epi(PRIME_Y));
    let pz0 = _mm256_xor_si256(_mm256_mullo_epi32(z0, epi(PRIME_Z)), epi(seed));
    let h = |px: __m256i, py: __m256i| finish_hash(_mm256_xor_si256(px, _mm256_xor_si256(py, pz0)));
    let i = [h(px0, py0), h(px1, py0), h(px0, py1), h(px1, py1)];
    let table = code_table();
    let (g00, g10) = (gradient3(table, i[0], tx, ty, zero), gradient3(table, i[1], ux, ty, zero));
    let (g01, g11) = (gradient3(table, i[2], tx, uy, zero), gradient3(table, i[3], ux, uy, zero));
    // Written out, not `i.map(..)`: `map` is a generic function compiled
    // without AVX2, so the closure's intrinsics would not inline into it and
    // each would become a call (8 lanes ran slower than one column at a
    // time; `bench kinds`, the Quilez row).
    let (mut gx, mut gy) = ([zero; 4], [zero; 4]);
    for ((&c, gx), gy) in i.iter().zip(&mut gx).zip(&mut gy) {
        *gx = gradient3(table, c, one, zero, zero);
        *gy = gradient3(table, c, zero, one, zero);
    }
    let (fx, fy) = (fade(tx), fade(ty));
    let (dfx, dfy) = (fade_d(tx), fade_d(ty));
    let (a, b) = (lerp(fx, g00, g10), lerp(fx, g01, g11));
    let along = |g0: __m256, g1: __m256| _mm256_add_ps(g0, _mm256_mul_ps(fx, _mm256_sub_ps(g1, g0)));
    let ax = _mm256_add_ps(along(gx[0], gx[1]), _mm256_mul_ps(dfx, _mm256_sub_ps(g10, g00)));
    let bx = _mm256_add_ps(along(gx[2], gx[3]), _mm256_mul_ps(dfx, _mm256_sub_ps(g11, g01)));
    let (ay, by) = (along(gy[0], gy[1]), along(gy[2], gy[3]));
    let scale = ps(SCALE_3D);
    let value = _mm256_mul_ps(lerp(fy, a, b), scale);
    let value = _mm256_min_ps(_mm256_max_ps(value, ps(-1.0)), one);
    let dx = _mm256_mul_ps(lerp(fy, ax, bx), scale);
    let dy = _mm256_mul_ps(_mm256_add_ps(lerp(fy, ay, by), _mm256_mul_ps(dfy, _mm256_sub_ps(b, a))), scale);
    (value, dx, dy)
}

/// `perlin::perlin3` at single-precision coordinates.
///
/// # Safety
/// The CPU must support AVX2 (see [`available`]).
#[inline(always)]
pub unsafe fn perlin3(seed: u32, x: __m256, y: __m256, z: __m256) -> __m256 {
    perlin3_cells(seed, lattice(x), lattice(y), lattice(z))
}

/// `perlin::perlin3_at`: double-precision x and y on a scalar z.
///
/// # Safety
/// The CPU must support AVX2 (see [`available`]).
#[inline(always)]
pub unsafe fn perlin3_at(seed: u32, x: F64x8, y: F64x8, z: f32) -> __m256 {
    perlin3_cells(seed, split(x), split(y), plane(z))
}

/// `perlin::perlin3_cells`.
#[inline(always)]
unsafe fn perlin3_cells(
    seed: u32,
    (x0, tx): (__m256i, __m256),
    (y0, ty): (__m256i, __m256),
    (z0, tz): (__m256i, __m256),
) -> __m256 {
    let one = ps(1.0);
    let (ux, uy, uz) = (_mm256_sub_ps(tx, one), _mm256_sub_ps(ty, one), _mm256_sub_ps(tz, one));
    // (c + 1) * P == c * P + P in wrapping arithmetic, so one multiply per axis.
    let px0 = _mm256_mullo_epi32(x0, epi(PRIME_X));
    let px1 = _mm256_add_epi32(px0, epi(PRIME_X));
    let py0 = _mm256_mullo_epi32(y0, epi(PRIME_Y));
    let py1 = _mm256_add_epi32(py0, epi(PRIME_Y));
    let pz0 = _mm256_xor_si256(_mm256_mullo_epi32(z0, epi(PRIME_Z)), epi(seed));
    let pz1 = _mm256_xor_si256(_mm256_add_epi32(_mm256_mullo_epi32(z0, epi(PRIME_Z)), epi(PRIME_Z)), epi(seed));
    let y0z0 = _mm256_xor_si256(py0, pz0);
    let y1z0 = _mm256_xor_si256(py1, pz0);
    let y0z1 = _mm256_xor_si256(py0, pz1);
    let y1z1 = _mm256_xor_si256(py1, pz1);
    let table = code_table();
    let h = |px: __m256i, yz: __m256i| finish_hash(_mm256_xor_si256(px, yz));
    let g000 = gradient3(table, h(px0, y0z0), tx, ty, tz);
    let g100 = gradient3(table, h(px1, y0z0), ux, ty, tz);
    let g010 = gradient3(table, h(px0, y1z0), tx, uy, tz);
    let g110 = gradient3(table, h(px1, y1z0), ux, uy, tz);
    let (fx, fy) = (fade(tx), fade(ty));
    let a = lerp(fy, lerp(fx, g000, g100), lerp(fx, g010, g110));
    // Lanes on an integer z take `a` (see perlin::perlin3); when all do,
    // the far corners are not computed at all.
    let z_integer = _mm256_cmp_ps(tz, _mm256_setzero_ps(), _CMP_EQ_OQ);
    let r = if _mm256_movemask_ps(z_integer) == 0xff {
        a
    } else {
        let g001 = gradient3(table, h(px0, y0z1), tx, ty, uz);
        let g101 = gradient3(table, h(px1, y0z1), ux, ty, uz);
        let g011 = gradient3(table, h(px0, y1z1), tx, uy, uz);
        let g111 = gradient3(table, h(px1, y1z1), ux, uy, uz);
        let b = lerp(fy, lerp(fx, g001, g101), lerp(fx, g011, g111));
        _mm256_blendv_ps(lerp(fade(tz), a, b), a, z_integer)
    };
    let r = _mm256_mul_ps(r, ps(SCALE_3D));
    _mm256_min_ps(_mm256_max_ps(r, ps(-1.0)), ps(1.0))
}

/// # Safety
/// The CPU must support AVX2 (see [`available`]).
#[inline(always)]
pub unsafe fn perlin2(seed: u32, x: __m256, y: __m256) -> __m256 {
    let (x0, tx) = lattice(x);
    let (y0, ty) = lattice(y);
    let one = ps(1.0);
    let (ux, uy) = (_mm256_sub_ps(tx, one), _mm256_sub_ps(ty, one));
    let px0 = _mm256_xor_si256(_mm256_mullo_epi32(x0, epi(PRIME_X)), epi(seed));
    let px1 = _mm256_xor_si256(_mm256_add_epi32(_mm256_mullo_epi32(x0, epi(PRIME_X)), epi(PRIME_X)), epi(seed));
    let py0 = _mm256_mullo_epi32(y0, epi(PRIME_Y));
    let py1 = _mm256_add_epi32(py0, epi(PRIME_Y));
    let h = |a: __m256i, b: __m256i| finish_hash(_mm256_xor_si256(a, b));
    let g00 = gradient2(h(px0, py0), tx, ty);
    let g10 = gradient2(h(px1, py0), ux, ty);
    let g01 = gradient2(h(px0, py1), tx, uy);
    let g11 = gradient2(h(px1, py1), ux, uy);
    let (fx, fy) = (fade(tx), fade(ty));
    let r = _mm256_mul_ps(lerp(fy, lerp(fx, g00, g10), lerp(fx, g01, g11)), ps(SCALE_2D));
    _mm256_min_ps(_mm256_max_ps(r, ps(-1.0)), ps(1.0))
}

#[inline(always)]
unsafe fn log2(x: __m256) -> __m256 {
    let bits = _mm256_castps_si256(x);
    let e = _mm256_sub_epi32(_mm256_and_si256(_mm256_srli_epi32(bits, 23), epi(0xff)), epi(127));
    let m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, epi(0x007f_ffff)), epi(0x3f80_0000)));
    let big = _mm256_cmp_ps(m, ps(std::f32::consts::SQRT_2), _CMP_GT_OQ);
    let m = _mm256_blendv_ps(m, _mm256_mul_ps(m, ps(0.5)), big);
    // big is all ones (-1 as i32) where m was halved: e - (-1) = e + 1.
    let e = _mm256_sub_epi32(e, _mm256_castps_si256(big));
    let s = _mm256_div_ps(_mm256_sub_ps(m, ps(1.0)), _mm256_add_ps(m, ps(1.0)));
    let s2 = _mm256_mul_ps(s, s);
    let c = |v: f32| ps(v);
    let mut poly = _mm256_add_ps(c(0.222_222_22), _mm256_mul_ps(s2, c(0.181_818_19)));
    poly = _mm256_add_ps(c(0.285_714_3), _mm256_mul_ps(s2, poly));
    poly = _mm256_add_ps(c(0.4), _mm256_mul_ps(s2, poly));
    poly = _mm256_add_ps(c(0.666_666_7), _mm256_mul_ps(s2, poly));
    poly = _mm256_add_ps(c(2.0), _mm256_mul_ps(s2, poly));
    let ln_m = _mm256_mul_ps(s, poly);
    _mm256_add_ps(_mm256_mul_ps(ln_m, ps(std::f32::consts::LOG2_E)), _mm256_cvtepi32_ps(e))
}

#[inline(always)]
unsafe fn exp2(t: __m256) -> __m256 {
    let t = _mm256_min_ps(_mm256_max_ps(t, ps(-126.0)), ps(126.0));
    let i = _mm256_floor_ps(_mm256_add_ps(t, ps(0.5)));
    let g = _mm256_mul_ps(_mm256_sub_ps(t, i), ps(std::f32::consts::LN_2));
    let c = |v: f32| ps(v);
    let mut p = _mm256_add_ps(c(0.001_388_888_9), _mm256_mul_ps(g, c(0.000_198_412_7)));
    p = _mm256_add_ps(c(0.008_333_334), _mm256_mul_ps(g, p));
    p = _mm256_add_ps(c(0.041_666_668), _mm256_mul_ps(g, p));
    p = _mm256_add_ps(c(0.166_666_67), _mm256_mul_ps(g, p));
    p = _mm256_add_ps(c(0.5), _mm256_mul_ps(g, p));
    p = _mm256_add_ps(c(1.0), _mm256_mul_ps(g, p));
    p = _mm256_add_ps(c(1.0), _mm256_mul_ps(g, p));
    let scale = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(i), epi(127)), 23);
    _mm256_mul_ps(p, _mm256_castsi256_ps(scale))
}

#[inline(always)]
unsafe fn signpow(x: __m256, y: __m256) -> __m256 {
    let sign_mask = ps(-0.0);
    let a = _mm256_andnot_ps(sign_mask, x);
    let tiny = _mm256_cmp_ps(a, ps(super::fastmath::MIN_NORMAL), _CMP_LT_OQ);
    // Tiny lanes compute log2(1) instead of garbage; their result is zeroed.
    let safe = _mm256_blendv_ps(a, ps(1.0), tiny);
    let r = _mm256_andnot_ps(tiny, exp2(_mm256_mul_ps(y, log2(safe))));
    let negative = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
    _mm256_xor_ps(r, _mm256_and_ps(negative, sign_mask))
}

impl Lanes for F32x8 {
    const WIDTH: usize = 8;
    #[inline(always)]
    fn splat(self, v: f32) -> Self {
        F32x8(ps(v))
    }
    #[inline(always)]
    fn load(self, src: &[f32]) -> Self {
        assert!(src.len() >= 8);
        // SAFETY: an F32x8 exists only where AVX2 is present; `src` holds eight values.
        F32x8(unsafe { _mm256_loadu_ps(src.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, dst: &mut [f32]) {
        assert!(dst.len() >= 8);
        // SAFETY: an F32x8 exists only where AVX2 is present; `dst` holds eight values.
        unsafe { _mm256_storeu_ps(dst.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { _mm256_add_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { _mm256_sub_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { _mm256_mul_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { _mm256_div_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn clamp(self, lo: f32, hi: f32) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { _mm256_min_ps(_mm256_max_ps(self.0, ps(lo)), ps(hi)) })
    }
    #[inline(always)]
    fn signpow(self, exponent: Self) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { signpow(self.0, exponent.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { _mm256_andnot_ps(ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn select_below(self, t: f32, below: Self, above: Self) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { _mm256_blendv_ps(above.0, below.0, _mm256_cmp_ps(self.0, ps(t), _CMP_LT_OQ)) })
    }
    type Pos = F64x8;
    #[inline(always)]
    fn widen(self) -> F64x8 {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        unsafe {
            F64x8([
                _mm256_cvtps_pd(_mm256_castps256_ps128(self.0)),
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(self.0)),
            ])
        }
    }
    #[inline(always)]
    fn shift(p: F64x8, by: Self) -> F64x8 {
        let by = by.widen();
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        unsafe { F64x8([_mm256_add_pd(p.0[0], by.0[0]), _mm256_add_pd(p.0[1], by.0[1])]) }
    }
    #[inline(always)]
    fn scale(p: F64x8, s: f64) -> F64x8 {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        unsafe {
            let s = _mm256_set1_pd(s);
            F64x8([_mm256_mul_pd(p.0[0], s), _mm256_mul_pd(p.0[1], s)])
        }
    }
    #[inline(always)]
    fn perlin3(seed: u32, x: F64x8, y: F64x8, z: f32) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { perlin3_at(seed, x, y, z) })
    }
    #[inline(always)]
    fn permuted3(x: F64x8, y: F64x8, z: f32) -> Self {
        // A table lookup per corner: lane by lane on the scalar definition,
        // which the founding preset alone uses (no gathers to keep in step).
        let (xs, ys) = (x.lanes(), y.lanes());
        let v: [f32; 8] = std::array::from_fn(|i| super::permutation::noise3_at(xs[i], ys[i], z));
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { _mm256_loadu_ps(v.as_ptr()) })
    }
    #[inline(always)]
    fn perlin3_d(seed: u32, x: F64x8, y: F64x8, z: f32) -> (Self, Self, Self) {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        let (v, dx, dy) = unsafe { perlin3_d(seed, x, y, z) };
        (F32x8(v), F32x8(dx), F32x8(dy))
    }
    #[inline(always)]
    fn value3_d(seed: u32, x: F64x8, y: F64x8, z: f32) -> (Self, Self, Self) {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        let (v, dx, dy) = unsafe { value3_d(seed, x, y, z) };
        (F32x8(v), F32x8(dx), F32x8(dy))
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        F32x8(unsafe { _mm256_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn gullies(seed: u32, x: F64x8, z: F64x8, plane: f32, dx: Self, dz: Self) -> (Self, Self) {
        // SAFETY: reached only where AVX2 is present (an F32x8 or an AVX2 caller proves it).
        let (v, s) = unsafe { gullies(seed, x, z, plane, dx.0, dz.0) };
        (F32x8(v), F32x8(s))
    }
}

/// Fills `out[i] = perlin3(seed, xs[i], ys[i], zs[i])` eight at a time.
/// The tail is scalar.
///
/// # Safety
/// The CPU must support AVX2 (see [`available`]).
#[target_feature(enable = "avx2")]
pub unsafe fn perlin3_batch(seed: u32, xs: &[f32], ys: &[f32], zs: &[f32], out: &mut [f32]) {
    let n = out.len().min(xs.len()).min(ys.len()).min(zs.len());
    let full = n / 8 * 8;
    for i in (0..full).step_by(8) {
        let r = perlin3(
            seed,
            _mm256_loadu_ps(xs.as_ptr().add(i)),
            _mm256_loadu_ps(ys.as_ptr().add(i)),
            _mm256_loadu_ps(zs.as_ptr().add(i)),
        );
        _mm256_storeu_ps(out.as_mut_ptr().add(i), r);
    }
    let hash = super::perlin::SeededHash(seed);
    for i in full..n {
        out[i] = super::perlin::perlin3(&hash, xs[i], ys[i], zs[i]);
    }
}

/// Fills `out[i] = perlin2(seed, xs[i], ys[i])`; see [`perlin3_batch`].
///
/// # Safety
/// The CPU must support AVX2 (see [`available`]).
#[target_feature(enable = "avx2")]
pub unsafe fn perlin2_batch(seed: u32, xs: &[f32], ys: &[f32], out: &mut [f32]) {
    let n = out.len().min(xs.len()).min(ys.len());
    let full = n / 8 * 8;
    for i in (0..full).step_by(8) {
        let r = perlin2(seed, _mm256_loadu_ps(xs.as_ptr().add(i)), _mm256_loadu_ps(ys.as_ptr().add(i)));
        _mm256_storeu_ps(out.as_mut_ptr().add(i), r);
    }
    let hash = super::perlin::SeededHash(seed);
    for i in full..n {
        out[i] = super::perlin::perlin2(&hash, xs[i], ys[i]);
    }
}

#[cfg(test)]
#[target_feature(enable = "avx2")]
unsafe fn signpow_batch(xs: &[f32], ys: &[f32], out: &mut [f32]) {
    for i in (0..out.len() / 8 * 8).step_by(8) {
        let r = signpow(_mm256_loadu_ps(xs.as_ptr().add(i)), _mm256_loadu_ps(ys.as_ptr().add(i)));
        _mm256_storeu_ps(out.as_mut_ptr().add(i), r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::noise::{fastmath, perlin};

    fn inputs(n: usize, span: f32) -> Vec<f32> {
        let mut state = 0x1234_5678u32;
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                (state as f32 / u32::MAX as f32 * 2.0 - 1.0) * span
            })
            .collect()
    }

    #[test]
    fn avx2_perlin_is_bit_identical_to_scalar() {
        if !available() {
            eprintln!("skipping: no AVX2 on this CPU");
            return;
        }
        for span in [4.0f32, 1000.0, 3.0e6, 5.0e9] {
            let (xs, ys, zs) = (inputs(4096, span), inputs(4096, span * 0.7), inputs(4096, span * 0.3));
            let mut out3 = vec![0.0; 4096];
            let mut out2 = vec![0.0; 4096];
            // SAFETY: AVX2 was checked at the top of the test.
            unsafe {
                perlin3_batch(0xDEAD_BEEF, &xs, &ys, &zs, &mut out3);
                perlin2_batch(0xDEAD_BEEF, &xs, &ys, &mut out2);
            }
            let h = perlin::SeededHash(0xDEAD_BEEF);
            for i in 0..4096 {
                assert_eq!(
                    out3[i].to_bits(),
                    perlin::perlin3(&h, xs[i], ys[i], zs[i]).to_bits(),
                    "3D lane {i} span {span}"
                );
                assert_eq!(out2[i].to_bits(), perlin::perlin2(&h, xs[i], ys[i]).to_bits(), "2D lane {i} span {span}");
            }
        }
    }

    /// Eight positions as lanes of double precision.
    fn positions(_: Avx2, v: &[f64]) -> F64x8 {
        assert!(v.len() >= 8);
        // SAFETY: AVX2 is present (the proof); `v` holds eight values.
        unsafe { F64x8([_mm256_loadu_pd(v.as_ptr()), _mm256_loadu_pd(v.as_ptr().add(4))]) }
    }

    /// Positions from the origin to past the accepted range, with fractions
    /// f32 could not hold.
    fn far_inputs(n: usize, salt: u32) -> Vec<f64> {
        let mut state = 0x2545_f491u32 ^ salt;
        (0..n)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let span = [4.0, 1000.0, 3.0e6, 2.0e9, 5.0e14][i % 5];
                (state as f64 / u32::MAX as f64 * 2.0 - 1.0) * span
            })
            .collect()
    }

    #[test]
    fn avx2_split_and_noise_at_double_positions_are_bit_identical_to_scalar() {
        type Lane = fn(u32, F64x8, F64x8, f32) -> (F32x8, F32x8, F32x8);
        type One = fn(u32, f64, f64, f32) -> (f32, f32, f32);
        let perlin_lane: Lane = |s, x, y, z| {
            let v = <F32x8 as Lanes>::perlin3(s, x, y, z);
            (v, v, v)
        };
        let perlin_one: One = |s, x, y, z| {
            let v = perlin::perlin3_at(s, x, y, z);
            (v, v, v)
        };
        let pairs: [(Lane, One); 3] = [
            (perlin_lane, perlin_one),
            (<F32x8 as Lanes>::perlin3_d, crate::worldgen::noise::perlin::perlin3_d),
            (<F32x8 as Lanes>::value3_d, crate::worldgen::noise::value::value3_d),
        ];
        let Some(avx2) = avx2() else { return };
        let (xs, ys) = (far_inputs(4096, 1), far_inputs(4096, 2));
        for (lanes, scalar) in pairs {
            for z in [64.0f32, 64.5] {
                for i in (0..xs.len()).step_by(8) {
                    let (v, dx, dy) = lanes(77, positions(avx2, &xs[i..]), positions(avx2, &ys[i..]), z);
                    let (mut out_v, mut out_x, mut out_y) = ([0.0f32; 8], [0.0f32; 8], [0.0f32; 8]);
                    v.store(&mut out_v);
                    dx.store(&mut out_x);
                    dy.store(&mut out_y);
                    for l in 0..8 {
                        let want = scalar(77, xs[i + l], ys[i + l], z);
                        let got = (out_v[l], out_x[l], out_y[l]);
                        assert_eq!(
                            (got.0.to_bits(), got.1.to_bits(), got.2.to_bits()),
                            (want.0.to_bits(), want.1.to_bits(), want.2.to_bits()),
                            "at ({}, {})",
                            xs[i + l],
                            ys[i + l]
                        );
                    }
                }
            }
        }
        // The split itself, lane by lane, whole positions past 2⁵¹ included.
        let mut special = far_inputs(64, 3);
        special.extend([-0.0, 0.0, -0.5, 4_503_599_627_370_497.0, -2_251_799_813_685_249.5, 1e17, 1e300, -1e300]);
        for i in (0..special.len()).step_by(8) {
            // SAFETY: AVX2 is present (the proof above).
            let (cells, fracs) = unsafe { split(positions(avx2, &special[i..])) };
            let (mut c, mut f) = ([0i32; 8], [0.0f32; 8]);
            // SAFETY: AVX2 is present; the arrays hold eight values each.
            unsafe {
                _mm256_storeu_si256(c.as_mut_ptr().cast(), cells);
                _mm256_storeu_ps(f.as_mut_ptr(), fracs);
            }
            for l in 0..8 {
                let (wc, wf) = crate::worldgen::noise::position::split(special[i + l]);
                assert_eq!((c[l], f[l].to_bits()), (wc, wf.to_bits()), "split({})", special[i + l]);
            }
        }
    }

    /// The gullies on eight lanes against `gullies::gullies`, over steep
    /// and flat directions, far cells included.
    #[test]
    fn avx2_gullies_are_bit_identical_to_scalar() {
        let Some(avx2) = avx2() else { return };
        let (xs, zs) = (far_inputs(4096, 4), far_inputs(4096, 5));
        let (dxs, dzs) = (inputs(4096, 0.7), inputs(4096, 0.7));
        for i in (0..xs.len()).step_by(8) {
            let lane = |v: &[f32]| F32x8::load(avx2, &v[i..]);
            let (v, s) = <F32x8 as Lanes>::gullies(
                91,
                positions(avx2, &xs[i..]),
                positions(avx2, &zs[i..]),
                96.0,
                lane(&dxs),
                lane(&dzs),
            );
            let (mut out_v, mut out_s) = ([0.0f32; 8], [0.0f32; 8]);
            v.store(&mut out_v);
            s.store(&mut out_s);
            for l in 0..8 {
                let want =
                    crate::worldgen::noise::gullies::gullies(91, xs[i + l], zs[i + l], 96.0, dxs[i + l], dzs[i + l]);
                assert_eq!(
                    (out_v[l].to_bits(), out_s[l].to_bits()),
                    (want.0.to_bits(), want.1.to_bits()),
                    "at ({}, {}) d ({}, {})",
                    xs[i + l],
                    zs[i + l],
                    dxs[i + l],
                    dzs[i + l]
                );
            }
        }
    }

    #[test]
    fn avx2_signpow_is_bit_identical_to_scalar() {
        if !available() {
            return;
        }
        let mut xs = inputs(8192, 1.2);
        xs[0] = 0.0;
        xs[1] = -0.0;
        xs[2] = 1e-39;
        let ys: Vec<f32> = inputs(8192, 4.0).iter().map(|v| v.abs() + 0.1).collect();
        let mut out = vec![0.0; 8192];
        // SAFETY: AVX2 was checked at the top of the test; the slices are equally long.
        unsafe { signpow_batch(&xs, &ys, &mut out) };
        for i in 0..8192 {
            assert_eq!(out[i].to_bits(), fastmath::signpow(xs[i], ys[i]).to_bits(), "x={} y={}", xs[i], ys[i]);
        }
    }
}
