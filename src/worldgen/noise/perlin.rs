//! Seeded gradient (Perlin) noise in f32, defined so that the Rust lanes and
//! the CUDA twin (`kernels/perlin.cuh`) produce the same bits.
//!
//! The algorithm is the `noise` crate's improved Perlin (quintic fade, the
//! same twelve edge gradients selected by the same 4-bit index, the same
//! output scale and clamp). Only the corner hash differs: production uses
//! [`SeededHash`], an integer hash of the lattice corner and a 32-bit seed,
//! so the lattice has no 256-cell period and no table lookup (which would
//! need slow gathers in SIMD and memory traffic on the GPU).
//! [`PermutationHash`] reproduces the crate's permutation-table hash so that
//! a test can compare both on the same lattice.
//!
//! The noise graph reaches it through [`perlin3_at`], at double-precision
//! positions split into cell and fraction ([`super::position`]).
//!
//! Every expression is written in one fixed order with no fused
//! multiply-add; the AVX2 lanes and the kernels repeat that order exactly.

/// The crate's 3D output scale, 2/sqrt(3), rounded to f32.
pub const SCALE_3D: f32 = 1.154_700_5;
/// The crate's 2D output scale, 2/sqrt(2), rounded to f32.
pub const SCALE_2D: f32 = std::f32::consts::SQRT_2;

pub const PRIME_X: u32 = 0x9E37_79B1;
pub const PRIME_Y: u32 = 0x85EB_CA77;
pub const PRIME_Z: u32 = 0xC2B2_AE3D;
pub const HASH_MIX: u32 = 0x27D4_EB2F;

/// The crate's gradient index (0..16) re-encoded so the gradient can be
/// evaluated with bit tests instead of a 16-way match:
/// bit 3: first axis is y (else x); bit 2: second axis is z (else y);
/// bit 0: negate the first term; bit 1: negate the second term.
/// Nibble `i` of this constant is the code of crate index `i`.
pub const GRADIENT_CODES: u64 = 0xFD10_FEDC_7654_3210;

/// Largest f32 strictly below 2^31: lattice coordinates are clamped to the
/// i32 range before conversion so every engine converts identically.
pub const LATTICE_MAX: f32 = 2_147_483_520.0;
pub const LATTICE_MIN: f32 = -2_147_483_648.0;

use super::position::split;

/// Chooses the gradient at a lattice corner.
pub trait CornerHash {
    /// A value whose low four bits select the crate's gradient index.
    fn index3(&self, x: i32, y: i32, z: i32) -> u32;
    fn index2(&self, x: i32, y: i32) -> u32;
}

/// The production hash: seed ^ primed coordinates, one multiply, top bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeededHash(pub u32);

impl CornerHash for SeededHash {
    #[inline(always)]
    fn index3(&self, x: i32, y: i32, z: i32) -> u32 {
        hash3(self.0, x, y, z)
    }
    #[inline(always)]
    fn index2(&self, x: i32, y: i32) -> u32 {
        hash2(self.0, x, y)
    }
}

#[inline(always)]
pub fn hash3(seed: u32, x: i32, y: i32, z: i32) -> u32 {
    let h =
        seed ^ (x as u32).wrapping_mul(PRIME_X) ^ (y as u32).wrapping_mul(PRIME_Y) ^ (z as u32).wrapping_mul(PRIME_Z);
    h.wrapping_mul(HASH_MIX) >> 28
}

#[inline(always)]
pub fn hash2(seed: u32, x: i32, y: i32) -> u32 {
    let h = seed ^ (x as u32).wrapping_mul(PRIME_X) ^ (y as u32).wrapping_mul(PRIME_Y);
    h.wrapping_mul(HASH_MIX) >> 28
}

/// The `noise` crate's permutation-table hash, for comparison tests.
#[derive(Clone, Debug)]
pub struct PermutationHash {
    pub values: [u8; 256],
}

impl PermutationHash {
    /// Reads the table out of a crate `PermutationTable`: hashing a single
    /// coordinate returns `values[c & 255]`.
    pub fn from_crate(table: &noise::permutationtable::PermutationTable) -> Self {
        use noise::permutationtable::NoiseHasher;
        let mut values = [0u8; 256];
        for (i, v) in values.iter_mut().enumerate() {
            *v = table.hash(&[i as isize]) as u8;
        }
        Self { values }
    }
    fn step(&self, acc: usize, c: i32) -> usize {
        self.values[acc] as usize ^ (c & 0xff) as usize
    }
}

impl CornerHash for PermutationHash {
    fn index3(&self, x: i32, y: i32, z: i32) -> u32 {
        let a = self.step((x & 0xff) as usize, y);
        let a = self.step(a, z);
        self.values[a] as u32
    }
    fn index2(&self, x: i32, y: i32) -> u32 {
        let a = self.step((x & 0xff) as usize, y);
        self.values[a] as u32
    }
}

#[inline(always)]
pub fn fade(t: f32) -> f32 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

#[inline(always)]
pub fn lerp(t: f32, a: f32, b: f32) -> f32 {
    a + t * (b - a)
}

/// `v.floor()` without a library call: x86-64's baseline (SSE2) has no
/// rounding instruction, and `floorf` costs more than the rest of a corner.
/// Every f32 of magnitude 2²³ or more is already whole. Bit for bit
/// `f32::floor`, -0.0 included (the result takes the sign of `v`: it is
/// negative or -0.0 exactly when `v` is).
#[inline(always)]
fn floor(v: f32) -> f32 {
    if v.abs() < 8_388_608.0 {
        let t = v as i32 as f32;
        let r = t - (t > v) as i32 as f32;
        f32::from_bits(r.to_bits() | (v.to_bits() & 0x8000_0000))
    } else {
        v
    }
}

/// Splits a coordinate into its lattice cell and the offset inside it.
#[inline(always)]
pub fn lattice(v: f32) -> (i32, f32) {
    let f = floor(v);
    let cell = f.clamp(LATTICE_MIN, LATTICE_MAX) as i32;
    (cell, v - f)
}

/// `if bit != 0 { a } else { b }` on the bits, so the compiler cannot turn
/// it into a branch on the data (scalar float selects become branches on
/// x86-64, and random gradients mispredict half of them).
#[inline(always)]
fn pick(bit: u32, a: f32, b: f32) -> f32 {
    let m = 0u32.wrapping_sub((bit != 0) as u32);
    f32::from_bits((a.to_bits() & m) | (b.to_bits() & !m))
}

/// `-v` where `bit` is set: the sign bit flipped, exactly as negation.
#[inline(always)]
fn negate_if(bit: u32, v: f32) -> f32 {
    f32::from_bits(v.to_bits() ^ (((bit != 0) as u32) << 31))
}

#[inline(always)]
pub fn gradient3(index: u32, x: f32, y: f32, z: f32) -> f32 {
    let code = (GRADIENT_CODES >> ((index & 15) * 4)) as u32 & 15;
    let u = pick(code & 8, y, x);
    let v = pick(code & 4, z, y);
    negate_if(code & 1, u) + negate_if(code & 2, v)
}

#[inline(always)]
pub fn gradient2(index: u32, x: f32, y: f32) -> f32 {
    negate_if(index & 1, x) + negate_if(index & 2, y)
}

/// 3D Perlin noise in [-1, 1] at single-precision coordinates.
#[inline(always)]
pub fn perlin3<H: CornerHash>(hash: &H, x: f32, y: f32, z: f32) -> f32 {
    perlin3_cells(hash, lattice(x), lattice(y), lattice(z))
}

/// [`perlin3`] at double-precision x and y (see [`super::position`]): the
/// noise graph's form.
#[inline(always)]
pub fn perlin3_at(seed: u32, x: f64, y: f64, z: f32) -> f32 {
    perlin3_cells(&SeededHash(seed), split(x), split(y), lattice(z))
}

/// 3D Perlin noise from each axis's lattice cell and fraction.
#[inline(always)]
pub fn perlin3_cells<H: CornerHash>(hash: &H, (x0, tx): (i32, f32), (y0, ty): (i32, f32), (z0, tz): (i32, f32)) -> f32 {
    let (x1, y1, z1) = (x0.wrapping_add(1), y0.wrapping_add(1), z0.wrapping_add(1));
    let (ux, uy, uz) = (tx - 1.0, ty - 1.0, tz - 1.0);
    let g000 = gradient3(hash.index3(x0, y0, z0), tx, ty, tz);
    let g100 = gradient3(hash.index3(x1, y0, z0), ux, ty, tz);
    let g010 = gradient3(hash.index3(x0, y1, z0), tx, uy, tz);
    let g110 = gradient3(hash.index3(x1, y1, z0), ux, uy, tz);
    let (fx, fy) = (fade(tx), fade(ty));
    let a = lerp(fy, lerp(fx, g000, g100), lerp(fx, g010, g110));
    // On an integer z (the recipe's third coordinate is 32·offset) the z
    // interpolation returns `a`: skip the far four corners. Part of the
    // definition, so every engine does the same (it can only change the
    // sign of a zero result).
    if tz == 0.0 {
        return (a * SCALE_3D).clamp(-1.0, 1.0);
    }
    let g001 = gradient3(hash.index3(x0, y0, z1), tx, ty, uz);
    let g101 = gradient3(hash.index3(x1, y0, z1), ux, ty, uz);
    let g011 = gradient3(hash.index3(x0, y1, z1), tx, uy, uz);
    let g111 = gradient3(hash.index3(x1, y1, z1), ux, uy, uz);
    let fz = fade(tz);
    let b = lerp(fy, lerp(fx, g001, g101), lerp(fx, g011, g111));
    (lerp(fz, a, b) * SCALE_3D).clamp(-1.0, 1.0)
}

/// d/dt of [`fade`].
#[inline(always)]
pub fn fade_d(t: f32) -> f32 {
    t * t * (t * (t * 30.0 - 60.0) + 30.0)
}

/// [`perlin3_at`] on an integer z (the graph's third coordinate is always
/// 32·offset) with its derivatives along x and y: (value, ∂/∂x, ∂/∂y). The
/// value is perlin3_at's, bit for bit; the derivatives are those of the value
/// before the clamp. A gradient's dot product is linear, so its derivative
/// along an axis is the dot product with that axis. Twin: `bw_perlin3_d`.
#[inline(always)]
pub fn perlin3_d(seed: u32, x: f64, y: f64, z: f32) -> (f32, f32, f32) {
    let hash = SeededHash(seed);
    let (x0, tx) = split(x);
    let (y0, ty) = split(y);
    let (z0, _) = lattice(z);
    let (x1, y1) = (x0.wrapping_add(1), y0.wrapping_add(1));
    let (ux, uy) = (tx - 1.0, ty - 1.0);
    let i = [hash.index3(x0, y0, z0), hash.index3(x1, y0, z0), hash.index3(x0, y1, z0), hash.index3(x1, y1, z0)];
    let (g00, g10) = (gradient3(i[0], tx, ty, 0.0), gradient3(i[1], ux, ty, 0.0));
    let (g01, g11) = (gradient3(i[2], tx, uy, 0.0), gradient3(i[3], ux, uy, 0.0));
    let gx = i.map(|c| gradient3(c, 1.0, 0.0, 0.0));
    let gy = i.map(|c| gradient3(c, 0.0, 1.0, 0.0));
    let (fx, fy) = (fade(tx), fade(ty));
    let (dfx, dfy) = (fade_d(tx), fade_d(ty));
    let (a, b) = (lerp(fx, g00, g10), lerp(fx, g01, g11));
    let ax = (gx[0] + fx * (gx[1] - gx[0])) + dfx * (g10 - g00);
    let bx = (gx[2] + fx * (gx[3] - gx[2])) + dfx * (g11 - g01);
    let ay = gy[0] + fx * (gy[1] - gy[0]);
    let by = gy[2] + fx * (gy[3] - gy[2]);
    let value = (lerp(fy, a, b) * SCALE_3D).clamp(-1.0, 1.0);
    let dx = (ax + fy * (bx - ax)) * SCALE_3D;
    let dy = ((ay + fy * (by - ay)) + dfy * (b - a)) * SCALE_3D;
    (value, dx, dy)
}

/// 2D Perlin noise in [-1, 1].
#[inline(always)]
pub fn perlin2<H: CornerHash>(hash: &H, x: f32, y: f32) -> f32 {
    let (x0, tx) = lattice(x);
    let (y0, ty) = lattice(y);
    let (x1, y1) = (x0.wrapping_add(1), y0.wrapping_add(1));
    let (ux, uy) = (tx - 1.0, ty - 1.0);
    let g00 = gradient2(hash.index2(x0, y0), tx, ty);
    let g10 = gradient2(hash.index2(x1, y0), ux, ty);
    let g01 = gradient2(hash.index2(x0, y1), tx, uy);
    let g11 = gradient2(hash.index2(x1, y1), ux, uy);
    let (fx, fy) = (fade(tx), fade(ty));
    (lerp(fy, lerp(fx, g00, g10), lerp(fx, g01, g11)) * SCALE_2D).clamp(-1.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use noise::permutationtable::PermutationTable;

    fn sample_points() -> impl Iterator<Item = [f32; 3]> {
        // A fixed low-discrepancy walk over [-100, 100]^3: reproducible and
        // covering negative cells, cell borders and fractional positions.
        (0..20_000).map(|i| {
            let f = i as f32;
            [
                ((f * 0.618_034) % 1.0) * 200.0 - 100.0,
                ((f * 0.754_877_7) % 1.0) * 200.0 - 100.0,
                ((f * 0.569_840_3) % 1.0) * 200.0 - 100.0,
            ]
        })
    }

    /// Our f32 Perlin, driven by the crate's own permutation table, agrees
    /// with `noise::core::perlin::perlin_3d` (f64) to 1e-4 everywhere.
    #[test]
    fn perlin3_matches_noise_crate_on_same_permutation() {
        for seed in [0u32, 1, 12345] {
            let table = PermutationTable::new(seed);
            let ours = PermutationHash::from_crate(&table);
            let mut worst = 0.0f64;
            for [x, y, z] in sample_points() {
                let theirs = noise::core::perlin::perlin_3d([x as f64, y as f64, z as f64].into(), &table);
                let mine = perlin3(&ours, x, y, z) as f64;
                worst = worst.max((theirs - mine).abs());
            }
            assert!(worst < 1e-4, "seed {seed}: max |ours - crate| = {worst}");
        }
    }

    #[test]
    fn perlin2_matches_noise_crate_on_same_permutation() {
        let table = PermutationTable::new(7);
        let ours = PermutationHash::from_crate(&table);
        let mut worst = 0.0f64;
        for [x, y, _] in sample_points() {
            let theirs = noise::core::perlin::perlin_2d([x as f64, y as f64].into(), &table);
            worst = worst.max((theirs - perlin2(&ours, x, y) as f64).abs());
        }
        assert!(worst < 1e-4, "max |ours - crate| = {worst}");
    }

    #[test]
    fn seeded_noise_is_in_range_and_varies() {
        let h = SeededHash(99);
        let values: Vec<f32> = sample_points().map(|[x, y, z]| perlin3(&h, x, y, z)).collect();
        assert!(values.iter().all(|v| (-1.0..=1.0).contains(v)));
        let mean = values.iter().sum::<f32>() / values.len() as f32;
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / values.len() as f32;
        assert!(mean.abs() < 0.02, "mean {mean}");
        assert!(var > 0.02, "variance {var}");
        // Zero at lattice points, as gradient noise must be.
        assert_eq!(perlin3(&h, 3.0, -7.0, 12.0), 0.0);
    }

    #[test]
    fn different_seeds_give_different_noise() {
        let (a, b) = (SeededHash(1), SeededHash(2));
        let differing =
            sample_points().take(1000).filter(|&[x, y, z]| perlin3(&a, x, y, z) != perlin3(&b, x, y, z)).count();
        assert!(differing > 900);
    }

    #[test]
    fn the_floor_without_a_library_call_is_f32_floor_bit_for_bit() {
        let mut cases = vec![
            0.0f32,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            -1.5,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            -8_388_608.0,
            1e10,
            -1e10,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
        ];
        let mut s = 0x1234_5678u32;
        for _ in 0..100_000 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            cases.push(f32::from_bits(s));
        }
        for v in cases {
            let (want, got) = (v.floor(), floor(v));
            assert!(want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()), "{v:e}: {want:e} vs {got:e}");
        }
    }

    #[test]
    fn huge_coordinates_stay_finite() {
        let h = SeededHash(5);
        for v in [3.0e9f32, -3.0e9, 1.0e30, -1.0e30] {
            assert!(perlin3(&h, v, v, 0.5).is_finite());
        }
    }
}
