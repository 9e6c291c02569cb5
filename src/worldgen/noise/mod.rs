//! Noise primitives shared by every generation engine.
pub mod fastmath;
pub mod gullies;
pub mod lanes;
pub mod lattice;
pub mod perlin;
#[cfg(target_arch = "x86_64")]
pub mod perlin_avx2;
pub mod permutation;
pub mod position;
pub mod value;

/// `out[i] = perlin3(seed, xs[i], ys[i], zs[i])` with the fastest lanes this
/// CPU has; bit-identical whichever runs.
pub fn perlin3_batch(seed: u32, xs: &[f32], ys: &[f32], zs: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if perlin_avx2::available() {
        // SAFETY: AVX2 presence was just checked.
        unsafe { perlin_avx2::perlin3_batch(seed, xs, ys, zs, out) };
        return;
    }
    let h = perlin::SeededHash(seed);
    for (i, o) in out.iter_mut().enumerate().take(xs.len().min(ys.len()).min(zs.len())) {
        *o = perlin::perlin3(&h, xs[i], ys[i], zs[i]);
    }
}

/// `out[i] = perlin2(seed, xs[i], ys[i])`, as [`perlin3_batch`].
pub fn perlin2_batch(seed: u32, xs: &[f32], ys: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if perlin_avx2::available() {
        // SAFETY: AVX2 presence was just checked.
        unsafe { perlin_avx2::perlin2_batch(seed, xs, ys, out) };
        return;
    }
    let h = perlin::SeededHash(seed);
    for (i, o) in out.iter_mut().enumerate().take(xs.len().min(ys.len())) {
        *o = perlin::perlin2(&h, xs[i], ys[i]);
    }
}
