//! Ken Perlin's improved noise on his fixed permutation table: the lattice
//! the founding game samples through Stefan Gustavson's noise1234. CUDA
//! twin: `kernels/permutation.cuh`.
//!
//! Where [`super::perlin`] hashes each lattice corner with a seed, this
//! lattice looks its corners up in one 256-entry table, so it repeats every
//! 256 cells and has no seed of its own: the founding game moves the seed
//! into the third coordinate (`seed + 32·offset`, in single precision), so
//! its worlds are the 256 planes of one lattice.
//!
//! Everything follows noise1234's `noise3` operation for operation, in its
//! order, so the founding game's values come out bit for bit where the
//! positions are the same:
//! * a whole coordinate falls in the cell *below*, at fraction 1
//!   (noise1234's `FASTFLOOR`), which matters on the third axis, always
//!   whole in the founding recipe: its blend takes all eight corners;
//! * the gradient set is Perlin's reference one, whose last four indices
//!   repeat (y+x, −y+z, y−x, −y−z); the `noise` crate's differs there;
//! * the blend runs along the third axis first, then the second, then the
//!   first, and the sum is scaled by 0.936 and not clamped.
//!
//! The positions are the noise graph's double-precision ones
//! ([`super::position`]), split into cell and fraction as every other kind
//! splits them; the founding game computes them in single precision.

use super::perlin::{fade, lattice, lerp};
use super::position::split;

/// Ken Perlin's permutation of 0..=255, from his improved-noise reference
/// implementation (noise1234 holds it twice to skip the wrap).
pub const PERMUTATION: [u8; 256] = [
    151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225, 140, 36, 103, 30, 69, 142, 8, 99, 37, 240,
    21, 10, 23, 190, 6, 148, 247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32, 57, 177, 33, 88,
    237, 149, 56, 87, 174, 20, 125, 136, 171, 168, 68, 175, 74, 165, 71, 134, 139, 48, 27, 166, 77, 146, 158, 231, 83,
    111, 229, 122, 60, 211, 133, 230, 220, 105, 92, 41, 55, 46, 245, 40, 244, 102, 143, 54, 65, 25, 63, 161, 1, 216,
    80, 73, 209, 76, 132, 187, 208, 89, 18, 169, 200, 196, 135, 130, 116, 188, 159, 86, 164, 100, 109, 198, 173, 186,
    3, 64, 52, 217, 226, 250, 124, 123, 5, 202, 38, 147, 118, 126, 255, 82, 85, 212, 207, 206, 59, 227, 47, 16, 58, 17,
    182, 189, 28, 42, 223, 183, 170, 213, 119, 248, 152, 2, 44, 154, 163, 70, 221, 153, 101, 155, 167, 43, 172, 9, 129,
    22, 39, 253, 19, 98, 108, 110, 79, 113, 224, 232, 178, 185, 112, 104, 218, 246, 97, 228, 251, 34, 242, 193, 238,
    210, 144, 12, 191, 179, 162, 241, 81, 51, 145, 235, 249, 14, 239, 107, 49, 192, 214, 31, 181, 199, 106, 157, 184,
    84, 204, 176, 115, 121, 50, 45, 127, 4, 150, 254, 138, 236, 205, 93, 222, 114, 67, 29, 24, 72, 243, 141, 128, 195,
    78, 66, 215, 61, 156, 180,
];

/// noise1234's 3D output scale.
pub const SCALE: f32 = 0.936;

/// Perlin's reference gradient set in the bit code of
/// [`super::perlin::GRADIENT_CODES`]: nibble `i` is index `i`'s code.
/// Indices 12 to 15 are y+x, −y+z, y−x and −y−z; the sums are exact
/// whichever term comes first.
pub const GRADIENT_CODES: u64 = 0xF1D0_FEDC_7654_3210;

#[inline(always)]
fn table(i: usize) -> usize {
    PERMUTATION[i & 255] as usize
}

/// noise1234's corner hash, `perm[x + perm[y + perm[z]]]` on the doubled
/// table, from cells already wrapped to 0..=255.
#[inline(always)]
pub fn corner(x: usize, y: usize, z: usize) -> u32 {
    table(x + table(y + table(z))) as u32
}

/// A cell and fraction as noise1234's `FASTFLOOR` has them: a whole
/// coordinate (fraction 0) belongs to the cell below, at fraction 1.
#[inline(always)]
pub fn from_below((cell, frac): (i32, f32)) -> (i32, f32) {
    if frac == 0.0 {
        (cell.wrapping_sub(1), 1.0)
    } else {
        (cell, frac)
    }
}

/// Perlin's reference gradient `index` dotted with (x, y, z).
#[inline(always)]
pub fn gradient(index: u32, x: f32, y: f32, z: f32) -> f32 {
    let code = (GRADIENT_CODES >> ((index & 15) * 4)) as u32 & 15;
    let u = if code & 8 != 0 { y } else { x };
    let v = if code & 4 != 0 { z } else { y };
    let u = if code & 1 != 0 { -u } else { u };
    let v = if code & 2 != 0 { -v } else { v };
    u + v
}

/// noise1234's `noise3` at double-precision x and y and a single-precision
/// z: the founding game's `noise3(x, z, seed + 32·o)` with the graph's x and
/// z as the first two coordinates.
#[inline(always)]
pub fn noise3_at(x: f64, y: f64, z: f32) -> f32 {
    let (x0, fx0) = from_below(split(x));
    let (y0, fy0) = from_below(split(y));
    let (z0, fz0) = from_below(lattice(z));
    let (fx1, fy1, fz1) = (fx0 - 1.0, fy0 - 1.0, fz0 - 1.0);
    let wrap = |c: i32| (c & 255) as usize;
    let (ix0, iy0, iz0) = (wrap(x0), wrap(y0), wrap(z0));
    let (ix1, iy1, iz1) = (wrap(x0.wrapping_add(1)), wrap(y0.wrapping_add(1)), wrap(z0.wrapping_add(1)));
    let r = fade(fz0);
    let t = fade(fy0);
    let s = fade(fx0);
    // One x side of the cell: its four corners blended along z, then y.
    let side = |ix: usize, fx: f32| {
        let nx0 = lerp(r, gradient(corner(ix, iy0, iz0), fx, fy0, fz0), gradient(corner(ix, iy0, iz1), fx, fy0, fz1));
        let nx1 = lerp(r, gradient(corner(ix, iy1, iz0), fx, fy1, fz0), gradient(corner(ix, iy1, iz1), fx, fy1, fz1));
        lerp(t, nx0, nx1)
    };
    let n0 = side(ix0, fx0);
    let n1 = side(ix1, fx1);
    SCALE * lerp(s, n0, n1)
}

/// The third coordinate of a founding-game noise of offset `offset` in
/// world `seed`: `seed + 32·offset` in single precision, the seed rounded
/// to f32 first, as the founding game passes it.
pub fn plane(seed: u64, offset: u32) -> f32 {
    seed as f32 + (32 * offset as i64) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// noise1234's `noise3` as written, in single precision, for the
    /// reference (with its `FASTFLOOR` and its table indexing).
    fn reference(x: f32, y: f32, z: f32) -> f32 {
        let fast_floor = |v: f32| if (v as i32 as f32) < v { v as i32 } else { v as i32 - 1 };
        let perm = |i: i32| PERMUTATION[(i & 255) as usize] as i32;
        let grad = |hash: i32, x: f32, y: f32, z: f32| {
            let h = hash & 15;
            let u = if h < 8 { x } else { y };
            let v = if h < 4 {
                y
            } else if h == 12 || h == 14 {
                x
            } else {
                z
            };
            (if h & 1 != 0 { -u } else { u }) + (if h & 2 != 0 { -v } else { v })
        };
        let (ix0, iy0, iz0) = (fast_floor(x), fast_floor(y), fast_floor(z));
        let (fx0, fy0, fz0) = (x - ix0 as f32, y - iy0 as f32, z - iz0 as f32);
        let (fx1, fy1, fz1) = (fx0 - 1.0, fy0 - 1.0, fz0 - 1.0);
        let (ix1, iy1, iz1) = ((ix0 + 1) & 255, (iy0 + 1) & 255, (iz0 + 1) & 255);
        let (ix0, iy0, iz0) = (ix0 & 255, iy0 & 255, iz0 & 255);
        let (r, t, s) = (fade(fz0), fade(fy0), fade(fx0));
        let h = |a: i32, b: i32, c: i32| perm(a + perm(b + perm(c)));
        let nx0 = lerp(r, grad(h(ix0, iy0, iz0), fx0, fy0, fz0), grad(h(ix0, iy0, iz1), fx0, fy0, fz1));
        let nx1 = lerp(r, grad(h(ix0, iy1, iz0), fx0, fy1, fz0), grad(h(ix0, iy1, iz1), fx0, fy1, fz1));
        let n0 = lerp(t, nx0, nx1);
        let nx0 = lerp(r, grad(h(ix1, iy0, iz0), fx1, fy0, fz0), grad(h(ix1, iy0, iz1), fx1, fy0, fz1));
        let nx1 = lerp(r, grad(h(ix1, iy1, iz0), fx1, fy1, fz0), grad(h(ix1, iy1, iz1), fx1, fy1, fz1));
        let n1 = lerp(t, nx0, nx1);
        0.936 * lerp(s, n0, n1)
    }

    /// At positions exact in single precision the lattice is noise1234's,
    /// bit for bit, whole coordinates and negative cells included.
    #[test]
    fn equals_noise1234_bit_for_bit() {
        let mut checked = 0;
        for i in 0..40_000u32 {
            let f = i as f32;
            let x = ((f * 0.618_034) % 1.0) * 600.0 - 300.0;
            let y = ((f * 0.754_877_7) % 1.0) * 600.0 - 300.0;
            // The founding recipe's planes: whole numbers, some negative.
            let z = (i % 700) as f32 - 200.0;
            for (x, y) in [(x, y), (x.round(), y), (x, y.round()), (x.floor() + 0.5, y.floor())] {
                let (want, got) = (reference(x, y, z), noise3_at(x as f64, y as f64, z));
                assert_eq!(want.to_bits(), got.to_bits(), "({x}, {y}, {z}): {want} vs {got}");
                checked += 1;
            }
        }
        assert_eq!(checked, 160_000);
    }

    /// Negative control: with the crate's gradient set (which differs at
    /// 13 and 14) the values are not noise1234's.
    #[test]
    fn the_crate_gradient_set_differs() {
        let crate_grad = |i: u32, x: f32, y: f32, z: f32| super::super::perlin::gradient3(i, x, y, z);
        let differ = (0..16u32).filter(|&i| crate_grad(i, 0.25, 0.5, 0.125) != gradient(i, 0.25, 0.5, 0.125)).count();
        assert_eq!(differ, 2);
    }

    #[test]
    fn the_table_is_a_permutation() {
        let mut seen = [false; 256];
        for &v in &PERMUTATION {
            assert!(!seen[v as usize]);
            seen[v as usize] = true;
        }
    }

    #[test]
    fn the_plane_rounds_the_seed_first() {
        assert_eq!(plane(42, 3), 138.0);
        // 2^24 + 1 rounds to 2^24 before the offset is added.
        assert_eq!(plane((1 << 24) + 1, 0), 16_777_216.0);
        assert_eq!(plane(7, 0), 7.0);
    }
}
