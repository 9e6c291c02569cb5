//! `pow` and friends in plain f32 arithmetic, identical on every platform.
//!
//! libm's `powf` differs between glibc, the CUDA math library and others in
//! the last bits, which would break bit-identical chunks across backends. These
//! use only +, -, *, /, floor and bit casts in a fixed order; the CUDA twin is
//! `kernels/fastmath.cuh` and the AVX2 lanes repeat the same steps.

const LN2_INV: f32 = std::f32::consts::LOG2_E;
const LN2: f32 = std::f32::consts::LN_2;
const SQRT2: f32 = std::f32::consts::SQRT_2;
/// Smallest normal f32. Inputs below it (subnormals, zero) are treated as 0.
pub const MIN_NORMAL: f32 = f32::MIN_POSITIVE;

/// log2(x) for normal x > 0, about 1 ulp of error on the mantissa part.
#[inline(always)]
pub fn log2(x: f32) -> f32 {
    let bits = x.to_bits();
    let mut e = ((bits >> 23) & 0xff) as i32 - 127;
    let mut m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    if m > SQRT2 {
        m *= 0.5;
        e += 1;
    }
    // ln(m) = 2·atanh(s), s = (m-1)/(m+1), |s| < 0.172.
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let poly = 2.0 + s2 * (0.666_666_7 + s2 * (0.4 + s2 * (0.285_714_3 + s2 * (0.222_222_22 + s2 * 0.181_818_19))));
    let ln_m = s * poly;
    ln_m * LN2_INV + e as f32
}

/// 2^t, t clamped to [-126, 126].
#[inline(always)]
pub fn exp2(t: f32) -> f32 {
    let t = t.clamp(-126.0, 126.0);
    let i = (t + 0.5).floor();
    let g = (t - i) * LN2; // |g| <= ln2 / 2
    let p = 1.0
        + g * (1.0
            + g * (0.5
                + g * (0.166_666_67
                    + g * (0.041_666_668 + g * (0.008_333_334 + g * (0.001_388_888_9 + g * 0.000_198_412_7))))));
    p * f32::from_bits(((i as i32 + 127) as u32) << 23)
}

/// |x|^y with sign(x) kept: the recipe's `sign(v)·|v|^e`. Zero and
/// subnormal inputs give 0, so a negative exponent never yields infinity.
#[inline(always)]
pub fn signpow(x: f32, y: f32) -> f32 {
    let a = x.abs();
    let r = if a < MIN_NORMAL { 0.0 } else { exp2(y * log2(a)) };
    if x < 0.0 {
        -r
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signpow_tracks_libm_closely() {
        let mut worst = 0.0f64;
        for i in 1..20_000 {
            let x = i as f32 / 10_000.0 - 1.0; // [-1, 1)
            for y in [0.3f32, 1.0, 1.2, 1.3, 2.5, 3.0, 5.7] {
                let exact = (x as f64).abs().powf(y as f64).copysign(x as f64);
                let ours = signpow(x, y) as f64;
                let err = (ours - exact).abs() / exact.abs().max(1e-6);
                worst = worst.max(err);
            }
        }
        assert!(worst < 2e-6, "worst relative error {worst}");
    }

    #[test]
    fn exponent_one_is_nearly_identity_and_zero_is_zero() {
        assert_eq!(signpow(0.0, 3.0), 0.0);
        assert_eq!(signpow(-0.0, 0.5), 0.0);
        assert_eq!(signpow(1e-40, -2.0), 0.0);
        for x in [0.25f32, -0.5, 0.75, 1.0] {
            assert!((signpow(x, 1.0) - x).abs() <= 2.0 * f32::EPSILON);
        }
    }

    #[test]
    fn log2_and_exp2_hand_checked() {
        assert!((log2(8.0) - 3.0).abs() < 1e-6);
        assert!((log2(0.5) + 1.0).abs() < 1e-6);
        assert!((exp2(10.0) - 1024.0).abs() < 1e-3);
        assert!((exp2(-1.5) - 0.353_553_39).abs() < 1e-6);
        assert!(exp2(1000.0).is_finite());
    }
}
