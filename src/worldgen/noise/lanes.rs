//! A small lane abstraction so the noise program and the column formula are
//! written once and run either one column at a time (`f32`, the portable
//! reference) or eight at a time (`F32x8`, AVX2). Both give the same bits:
//! each operation is the same single IEEE operation in the same order.

use super::{fastmath, gullies, perlin};

/// New values are made from an existing one (`x.splat(v)`, `x.load(..)`),
/// never from nothing: a value of a wide type exists only where its
/// instructions run (see `perlin_avx2::Avx2`), so all it makes can run too.
pub trait Lanes: Copy {
    const WIDTH: usize;
    /// Every lane `v`.
    fn splat(self, v: f32) -> Self;
    /// Reads `WIDTH` values from the start of `src`.
    fn load(self, src: &[f32]) -> Self;
    /// Writes `WIDTH` values to the start of `dst`.
    fn store(self, dst: &mut [f32]);
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    /// min(max(self, lo), hi)
    fn clamp(self, lo: f32, hi: f32) -> Self;
    fn signpow(self, exponent: Self) -> Self;
    /// |self|
    fn abs(self) -> Self;
    /// `below` in the lanes where self < t, else `above`.
    fn select_below(self, t: f32, below: Self, above: Self) -> Self;
    /// Double-precision positions, one per lane (see [`super::position`]).
    type Pos: Copy;
    /// The lanes as positions (exact).
    fn widen(self) -> Self::Pos;
    /// `p + by`, `by` widened first.
    fn shift(p: Self::Pos, by: Self) -> Self::Pos;
    /// `p · s`
    fn scale(p: Self::Pos, s: f64) -> Self::Pos;
    /// `perlin::perlin3_at`.
    fn perlin3(seed: u32, x: Self::Pos, y: Self::Pos, z: f32) -> Self;
    /// `permutation::noise3_at`: noise1234 on Perlin's permutation table.
    fn permuted3(x: Self::Pos, y: Self::Pos, z: f32) -> Self;
    /// `perlin::perlin3_d`: the value and its derivatives along x and y.
    fn perlin3_d(seed: u32, x: Self::Pos, y: Self::Pos, z: f32) -> (Self, Self, Self);
    /// `value::value3_d`: value noise and its derivatives along x and y.
    fn value3_d(seed: u32, x: Self::Pos, y: Self::Pos, z: f32) -> (Self, Self, Self);
    /// √self, correctly rounded.
    fn sqrt(self) -> Self;
    /// `gullies::gullies`.
    fn gullies(seed: u32, x: Self::Pos, z: Self::Pos, plane: f32, dx: Self, dz: Self) -> (Self, Self);
}

impl Lanes for f32 {
    const WIDTH: usize = 1;
    #[inline(always)]
    fn splat(self, v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn load(self, src: &[f32]) -> Self {
        src[0]
    }
    #[inline(always)]
    fn store(self, dst: &mut [f32]) {
        dst[0] = self;
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self + o
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self - o
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self * o
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        self / o
    }
    #[inline(always)]
    fn clamp(self, lo: f32, hi: f32) -> Self {
        self.max(lo).min(hi)
    }
    #[inline(always)]
    fn signpow(self, exponent: Self) -> Self {
        fastmath::signpow(self, exponent)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn select_below(self, t: f32, below: Self, above: Self) -> Self {
        if self < t {
            below
        } else {
            above
        }
    }
    type Pos = f64;
    #[inline(always)]
    fn widen(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn shift(p: f64, by: Self) -> f64 {
        p + by as f64
    }
    #[inline(always)]
    fn scale(p: f64, s: f64) -> f64 {
        p * s
    }
    #[inline(always)]
    fn perlin3(seed: u32, x: f64, y: f64, z: f32) -> Self {
        perlin::perlin3_at(seed, x, y, z)
    }
    #[inline(always)]
    fn permuted3(x: f64, y: f64, z: f32) -> Self {
        super::permutation::noise3_at(x, y, z)
    }
    #[inline(always)]
    fn perlin3_d(seed: u32, x: f64, y: f64, z: f32) -> (Self, Self, Self) {
        perlin::perlin3_d(seed, x, y, z)
    }
    #[inline(always)]
    fn value3_d(seed: u32, x: f64, y: f64, z: f32) -> (Self, Self, Self) {
        super::value::value3_d(seed, x, y, z)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn gullies(seed: u32, x: f64, z: f64, plane: f32, dx: Self, dz: Self) -> (Self, Self) {
        gullies::gullies(seed, x, z, plane, dx, dz)
    }
}
