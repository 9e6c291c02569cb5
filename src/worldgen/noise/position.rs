//! Noise positions in double precision, so the terrain is as fine at the
//! edge of the accepted range as at the origin (no Far Lands).
//!
//! A single-precision position `x·frequency·λʲ` keeps 24 bits: at
//! 2²⁴ blocks a fine octave's lattice coordinate is past 2³⁰ and its
//! fraction, the part Perlin noise is made of, is gone. So the noise graph
//! carries its coordinates as f64, every octave scales them in f64, and
//! only then are they split into a lattice cell (wrapped to 32 bits, which
//! is all the corner hashes read) and the fraction inside it (rounded to
//! f32, where the rest of the octave runs). A fraction is exact to 2⁻²⁵
//! anywhere a fine octave's cell index stays below 2²⁸.
//!
//! Every step is a single IEEE operation in a fixed order: the AVX2 lanes
//! (`perlin_avx2::split`) and the kernels (`bw_split` in
//! `kernels/perlin.cuh`) repeat it bit for bit.

/// 1.5·2⁵²: added to a whole number below 2⁵¹ in magnitude, it leaves the
/// number's two's complement in the low 32 bits of the sum's mantissa.
/// Past 2⁵¹ the low word is still one IEEE addition's, the same on every
/// engine; only the cells stop being consecutive, and by then the fraction
/// is long gone anyway (no preset comes near: positions are whole blocks
/// below 2²⁴ times products of validated frequencies).
pub const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// Every f64 of magnitude 2⁵² or more is whole.
const WHOLE: f64 = 4_503_599_627_370_496.0;

/// `v.floor()` without a library call, bit for bit (-0.0 included).
#[inline(always)]
fn floor(v: f64) -> f64 {
    if v.abs() < WHOLE {
        let t = v as i64 as f64;
        let r = t - (t > v) as i64 as f64;
        f64::from_bits(r.to_bits() | (v.to_bits() & 0x8000_0000_0000_0000))
    } else {
        v
    }
}

/// The lattice cell of a finite position `p` (its floor, wrapped to 32
/// bits) and the fraction inside it, in [0, 1] (a fraction within 2⁻²⁵ of
/// 1 rounds to 1, where the next cell's blend starts with the same value).
/// Positions are finite: whole blocks scaled and offset by finite values.
#[inline(always)]
pub fn split(p: f64) -> (i32, f32) {
    let f = floor(p);
    ((f + ROUND_MAGIC).to_bits() as u32 as i32, (p - f) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_f64_floor_bit_for_bit() {
        let mut cases =
            vec![0.0f64, -0.0, 0.5, -0.5, -1.0, -1.5, 1e-300, -1e-300, 4.5e15, -4.5e15, WHOLE, -WHOLE, 1e300];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let v = f64::from_bits(s);
            if v.is_finite() {
                cases.push(v);
            }
            cases.push((s >> 11) as f64 / (1u64 << 20) as f64 - (1u64 << 32) as f64);
        }
        for v in cases {
            assert_eq!(floor(v).to_bits(), v.floor().to_bits(), "{v:e}");
        }
    }

    #[test]
    fn the_cell_wraps_like_twos_complement_and_the_fraction_stays_fine() {
        assert_eq!(split(3.25), (3, 0.25));
        assert_eq!(split(-0.75), (-1, 0.25));
        assert_eq!(split(-2_147_483_649.5), (2_147_483_646, 0.5));
        assert_eq!(split(4_294_967_301.125), (5, 0.125));
        // Where f32 has no fraction left, f64 still has it.
        let far = 16_777_215.0f64 * 128.0 / 1.01;
        let (cell, frac) = split(far);
        assert_eq!(cell, far.floor() as i64 as i32);
        assert!((frac as f64 - far.fract()).abs() < 1e-7, "{frac} vs {}", far.fract());
        assert_eq!((far as f32).fract(), 0.0, "the single-precision position has lost it");
        // Past 2⁵² every position is whole: its fraction is 0.
        assert_eq!(split(1e17).1, 0.0);
    }
}
