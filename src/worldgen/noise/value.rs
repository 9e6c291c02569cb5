//! Seeded value noise with its analytic derivatives: the fractal-terrain
//! thesis's other basis function. Each lattice corner holds a number in
//! [−1, 1) drawn from the same corner hash as Perlin's gradients, and the
//! point's value is their quintic-faded bilinear blend, so it has Perlin's
//! smoothness but shows the grid (the thesis's own observation).
//!
//! Like [`perlin3_d`](super::perlin::perlin3_d) it is evaluated on an integer
//! z (the graph's third coordinate is always 32·offset), returning (value,
//! ∂/∂x, ∂/∂y). Every expression has one fixed order and no fused
//! multiply-add; the AVX2 lanes (`perlin_avx2::value3_d`) and the kernels
//! (`bw_value3_d` in `kernels/perlin.cuh`) repeat it exactly.

use super::perlin::{fade, fade_d, lattice, lerp, HASH_MIX, PRIME_X, PRIME_Y, PRIME_Z};
use super::position::split;

/// 2⁻²³: a 24-bit hash times this is in [0, 2), exactly.
pub const CORNER_SCALE: f32 = 1.0 / 8_388_608.0;

/// A corner's value: the top 24 bits of its mixed hash mapped to [−1, 1).
/// The conversion, the power-of-two scale and the subtraction are all exact
/// in f32, so every engine gets the same number.
#[inline(always)]
pub fn corner(seed: u32, x: i32, y: i32, z: i32) -> f32 {
    let h =
        seed ^ (x as u32).wrapping_mul(PRIME_X) ^ (y as u32).wrapping_mul(PRIME_Y) ^ (z as u32).wrapping_mul(PRIME_Z);
    (h.wrapping_mul(HASH_MIX) >> 8) as f32 * CORNER_SCALE - 1.0
}

/// Value noise at (x, y) on the integer plane z, with its derivatives along
/// x and y: (value, ∂/∂x, ∂/∂y). The value lies in [−1, 1].
#[inline(always)]
pub fn value3_d(seed: u32, x: f64, y: f64, z: f32) -> (f32, f32, f32) {
    let (x0, tx) = split(x);
    let (y0, ty) = split(y);
    let (z0, _) = lattice(z);
    let (x1, y1) = (x0.wrapping_add(1), y0.wrapping_add(1));
    let (v00, v10) = (corner(seed, x0, y0, z0), corner(seed, x1, y0, z0));
    let (v01, v11) = (corner(seed, x0, y1, z0), corner(seed, x1, y1, z0));
    let (fx, fy) = (fade(tx), fade(ty));
    let (a, b) = (lerp(fx, v00, v10), lerp(fx, v01, v11));
    let value = lerp(fy, a, b);
    let dx = fade_d(tx) * lerp(fy, v10 - v00, v11 - v01);
    let dy = fade_d(ty) * (b - a);
    (value, dx, dy)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corners' values are spread over [−1, 1), and a point on a corner
    /// takes that corner's value.
    #[test]
    fn corners_cover_the_range_and_the_blend_meets_them() {
        let values: Vec<f32> = (0..4096).map(|i| corner(7, i % 64 - 32, i / 64 - 32, 96)).collect();
        let (lo, hi) = values.iter().fold((1.0f32, -1.0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        assert!(lo >= -1.0 && hi < 1.0 && lo < -0.99 && hi > 0.99, "{lo} {hi}");
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / values.len() as f64;
        assert!(mean.abs() < 0.05, "mean {mean}");
        for (x, y) in [(0, 0), (5, -3), (-17, 40)] {
            assert_eq!(value3_d(7, x as f64, y as f64, 96.0).0, corner(7, x, y, 96));
        }
    }

    /// The value against the definition in f64, and the derivatives against
    /// central differences of the value.
    #[test]
    fn value_and_slopes_match_the_definition() {
        let fade64 = |t: f64| t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
        for i in 0..2000 {
            let x = (i as f32 * 0.37).sin() * 300.0;
            let y = (i as f32 * 0.53).cos() * 300.0 + 0.25;
            let (v, dx, dy) = value3_d(11, x as f64, y as f64, 64.0);
            let (x0, y0) = (x.floor() as i32, y.floor() as i32);
            let (tx, ty) = ((x - x0 as f32) as f64, (y - y0 as f32) as f64);
            let c = |dx: i32, dy: i32| corner(11, x0 + dx, y0 + dy, 64) as f64;
            let a = c(0, 0) + fade64(tx) * (c(1, 0) - c(0, 0));
            let b = c(0, 1) + fade64(tx) * (c(1, 1) - c(0, 1));
            let expected = a + fade64(ty) * (b - a);
            assert!((v as f64 - expected).abs() < 1e-5, "value at ({x}, {y}): {v} against {expected}");
            let h = 1e-3f64;
            let at = |x: f64, y: f64| {
                let (x0, y0) = (x.floor(), y.floor());
                let (tx, ty) = (x - x0, y - y0);
                let c = |dx: f64, dy: f64| corner(11, (x0 + dx) as i32, (y0 + dy) as i32, 64) as f64;
                let a = c(0.0, 0.0) + fade64(tx) * (c(1.0, 0.0) - c(0.0, 0.0));
                let b = c(0.0, 1.0) + fade64(tx) * (c(1.0, 1.0) - c(0.0, 1.0));
                a + fade64(ty) * (b - a)
            };
            let (xf, yf) = (x as f64, y as f64);
            // Central differences need both sides in the same cell.
            if tx > 2.0 * h && tx < 1.0 - 2.0 * h && ty > 2.0 * h && ty < 1.0 - 2.0 * h {
                let ex = (at(xf + h, yf) - at(xf - h, yf)) / (2.0 * h);
                let ey = (at(xf, yf + h) - at(xf, yf - h)) / (2.0 * h);
                assert!((dx as f64 - ex).abs() < 1e-3, "∂x at ({x}, {y}): {dx} against {ex}");
                assert!((dy as f64 - ey).abs() < 1e-3, "∂y at ({x}, {y}): {dy} against {ey}");
            }
        }
    }
}
