//! One octave of the erosion filter: gullies that run down the slope.
//!
//! The plane is cut into unit cells, each with one feature point jittered
//! around its centre. Every feature point carries a stripe pattern whose
//! phase is `(q − point)·d`, where `d` lies across the slope, so a stripe is
//! constant along the fall line: a gully or a ridge between two. The
//! point's stripes are blended with weights that fall to zero within
//! [`REACH`] of it, which makes the result a function of the 3×3 cells
//! around `q` alone: no seam where the nearest cells change, and no need
//! for anything beyond the column's own neighbourhood. Where the ground is
//! flat, `d` is short, every phase stays near zero and the profile near its
//! crest, so flats are left alone.
//!
//! The stripe profile is a polynomial, not a cosine, so every engine gets
//! the same bits without a shared trigonometry: `(2(1 − 4r²)² − 1)` for the
//! phase's distance `r` to the nearest whole number, 1 on a crest and −1 in
//! a gully, with zero slope at both. Twin: `bw_gullies` in
//! `kernels/gullies.cuh` (the same operations in the same order).

use super::perlin::lattice;
use super::position::split;
use super::value::corner;

/// How far a feature point strays from its cell's centre, per axis.
pub const JITTER: f32 = 0.25;
/// Beyond this distance a feature point weighs nothing: 1.5 − [`JITTER`],
/// the nearest a point outside the 3×3 cells around `q` can come.
pub const REACH: f32 = 1.25;
/// 1 / REACH², exact in f32 (0.64 rounds the same way on every engine).
pub const INV_REACH_SQ: f32 = 0.64;
/// Xor'ed into the seed for the jitter along z, so x and z draw apart.
pub const JITTER_Z_SEED: u32 = 0x5BD1_E995;

/// The stripe profile at `phase`: (value, ∂value/∂phase).
#[inline(always)]
pub fn profile(phase: f32) -> (f32, f32) {
    let (_, t) = lattice(phase + 0.5);
    let r = t - 0.5;
    let s = 1.0 - 4.0 * (r * r);
    (2.0 * (s * s) - 1.0, -32.0 * (r * s))
}

/// The gullies at `(x, z)` on the integer plane `plane` for a direction
/// `(dx, dz)` across the slope, |d| ≤ 1: (value in [−1, 1], its slope along
/// d per unit of d's length), the slope leaving out the weights' own change
/// as the erosion filters this follows do.
#[inline(always)]
pub fn gullies(seed: u32, x: f64, z: f64, plane: f32, dx: f32, dz: f32) -> (f32, f32) {
    let (cx, fx) = split(x);
    let (cz, fz) = split(z);
    let (cy, _) = lattice(plane);
    let (mut sum, mut slope, mut weight) = (0.0f32, 0.0f32, 0.0f32);
    for j in -1i32..=1 {
        for i in -1i32..=1 {
            let (gx, gz) = (cx.wrapping_add(i), cz.wrapping_add(j));
            let ox = i as f32 + 0.5 + corner(seed, gx, gz, cy) * JITTER;
            let oz = j as f32 + 0.5 + corner(seed ^ JITTER_Z_SEED, gx, gz, cy) * JITTER;
            let (px, pz) = (fx - ox, fz - oz);
            let t = (1.0 - (px * px + pz * pz) * INV_REACH_SQ).max(0.0);
            let w = t * t;
            let (p, dp) = profile(px * dx + pz * dz);
            sum += w * p;
            slope += w * dp;
            weight += w;
        }
    }
    (sum / weight, slope / weight)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The profile is 1 on whole phases, −1 halfway, flat at both, and its
    /// slope matches central differences.
    #[test]
    fn profile_is_periodic_with_its_slope() {
        for k in -3..=3 {
            assert_eq!(profile(k as f32), (1.0, 0.0));
            assert_eq!(profile(k as f32 + 0.5).0, -1.0);
        }
        for i in 0..400 {
            let p = i as f32 * 0.0137 - 2.5;
            let h = 1e-3f32;
            let numeric = (profile(p + h).0 - profile(p - h).0) / (2.0 * h);
            assert!((numeric - profile(p).1).abs() < 0.05, "at {p}: {numeric} against {}", profile(p).1);
        }
    }

    /// The nearest feature point is always within reach (the blend never
    /// divides by zero), and no point outside the 3×3 cells could weigh
    /// anything: the value is continuous across cell borders. The negative
    /// control widens the reach past what the 3×3 cells cover, and the same
    /// walk then finds a jump.
    #[test]
    fn gullies_are_continuous_across_cell_borders() {
        let jump = |reach_sq_inv: f32| {
            let eval = |x: f32, z: f32| {
                let (cx, fx) = lattice(x);
                let (cz, fz) = lattice(z);
                let (mut sum, mut weight) = (0.0f32, 0.0f32);
                for j in -1i32..=1 {
                    for i in -1i32..=1 {
                        let (gx, gz) = (cx + i, cz + j);
                        let ox = i as f32 + 0.5 + corner(3, gx, gz, 0) * JITTER;
                        let oz = j as f32 + 0.5 + corner(3 ^ JITTER_Z_SEED, gx, gz, 0) * JITTER;
                        let (px, pz) = (fx - ox, fz - oz);
                        let t = (1.0 - (px * px + pz * pz) * reach_sq_inv).max(0.0);
                        sum += t * t * profile(px * 0.6 + pz * 0.3).0;
                        weight += t * t;
                    }
                }
                assert!(weight > 0.0);
                sum / weight
            };
            let mut worst = 0.0f32;
            for k in 0..4000 {
                let z = k as f32 * 0.0173;
                for border in [-2.0f32, 0.0, 1.0, 7.0] {
                    let a = eval(border - 1e-4, z);
                    let b = eval(border + 1e-4, z);
                    worst = worst.max((a - b).abs());
                }
            }
            worst
        };
        assert!(jump(INV_REACH_SQ) < 0.01, "a step of {} at a cell border", jump(INV_REACH_SQ));
        assert!(jump(0.25) > 0.05, "the negative control found no step: {}", jump(0.25));
        assert_eq!(INV_REACH_SQ, 1.0 / (REACH * REACH));
        assert_eq!(REACH, 1.5 - JITTER);
    }

    /// Stripes follow the fall line: with the slope along x (d along z),
    /// the value changes far less along x than along z.
    #[test]
    fn gullies_run_down_the_slope() {
        let (mut along, mut across) = (0.0f64, 0.0f64);
        for k in 0..2000 {
            let (x, z) = ((k % 50) as f64 * 0.173, (k / 50) as f64 * 0.211);
            let h = 0.05;
            let v = gullies(9, x, z, 32.0, 0.0, 1.0).0;
            along += (gullies(9, x + h, z, 32.0, 0.0, 1.0).0 - v).abs() as f64;
            across += (gullies(9, x, z + h, 32.0, 0.0, 1.0).0 - v).abs() as f64;
        }
        assert!(across > 3.0 * along, "across {across} along {along}");
        // Flat ground (d = 0) is left on the crest.
        assert_eq!(gullies(9, 3.3, -7.1, 32.0, 0.0, 0.0), (1.0, 0.0));
    }
}
