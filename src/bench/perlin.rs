//! Perlin 3D per point on one thread: ours (8 lanes and scalar), the
//! `noise` crate and fastnoise-lite, on the same points, in one run.
//!
//! Two point sets, because they explain the spread of published figures:
//! random points in [-1000, 1000]³ (every point in a fresh lattice cell),
//! and points 1/32 apart along a line (32 to a cell, as a heightmap samples
//! them). The `noise` crate picks each corner's gradient with a 16-way
//! `match` on a hash: on random points those eight branches per point are
//! unpredictable, on a line they repeat for 32 points and predict well.
//! Ours and fastnoise-lite pick gradients without branching on the data.

use serde::Serialize;
use std::time::Instant;

/// Nanoseconds per point, medians.
#[derive(Clone, Debug, Serialize)]
pub struct PerlinFigures {
    /// Random points: ours with the CPU's widest lanes (AVX2: 8).
    pub ours_lanes: f64,
    /// Random points: ours one point at a time.
    pub ours_scalar: f64,
    /// Random points: the `noise` crate 0.9, through its f64 API.
    pub noise_crate: f64,
    /// Random points: fastnoise-lite's Perlin (f32), frequency 1.
    pub fastnoise_lite_perlin: f64,
    /// Random points: fastnoise-lite's OpenSimplex2 (f32), frequency 1.
    pub fastnoise_lite_opensimplex2: f64,
    /// Points along a line, 32 to a cell: ours one at a time.
    pub ours_scalar_line: f64,
    /// Points along a line, 32 to a cell: the `noise` crate.
    pub noise_crate_line: f64,
}

const N: usize = 1 << 18;

fn random_points() -> [Vec<f32>; 3] {
    let mut s = 0x9E37_79B9u32;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        (s as f32 / u32::MAX as f32) * 2000.0 - 1000.0
    };
    let mut p = [Vec::with_capacity(N), Vec::with_capacity(N), Vec::with_capacity(N)];
    for _ in 0..N {
        for axis in p.iter_mut() {
            axis.push(next());
        }
    }
    p
}

/// Along x from -1000 in steps of 1/32, at a fixed y and z inside a cell.
fn line_points() -> [Vec<f32>; 3] {
    [(0..N).map(|i| -1000.0 + i as f32 / 32.0).collect(), vec![12.37; N], vec![-40.61; N]]
}

/// Median ns per point of `f` over all points, `repeat` times.
fn per_point(repeat: usize, mut f: impl FnMut() -> f32) -> f64 {
    let mut times: Vec<f64> = (0..repeat.max(1))
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e9 / N as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn ours_scalar(p: &[Vec<f32>; 3]) -> f32 {
    let h = crate::worldgen::noise::perlin::SeededHash(1234);
    (0..N).map(|i| crate::worldgen::noise::perlin::perlin3(&h, p[0][i], p[1][i], p[2][i])).sum()
}

fn noise_crate(perlin: &noise::Perlin, p: &[Vec<f32>; 3]) -> f32 {
    use noise::NoiseFn;
    (0..N).map(|i| perlin.get([p[0][i] as f64, p[1][i] as f64, p[2][i] as f64]) as f32).sum()
}

fn fastnoise(kind: fastnoise_lite::NoiseType, p: &[Vec<f32>; 3]) -> impl FnMut() -> f32 + '_ {
    let mut n = fastnoise_lite::FastNoiseLite::with_seed(1234);
    n.set_noise_type(Some(kind));
    n.set_frequency(Some(1.0));
    move || (0..N).map(|i| n.get_noise_3d(p[0][i], p[1][i], p[2][i])).sum()
}

pub fn perlin_figures(repeat: usize) -> PerlinFigures {
    let random = random_points();
    let line = line_points();
    let mut out = vec![0.0f32; N];
    let crate_perlin = noise::Perlin::new(1234);
    PerlinFigures {
        ours_lanes: per_point(repeat, || {
            crate::worldgen::noise::perlin3_batch(1234, &random[0], &random[1], &random[2], &mut out);
            out[N / 2]
        }),
        ours_scalar: per_point(repeat, || ours_scalar(&random)),
        noise_crate: per_point(repeat, || noise_crate(&crate_perlin, &random)),
        fastnoise_lite_perlin: per_point(repeat, fastnoise(fastnoise_lite::NoiseType::Perlin, &random)),
        fastnoise_lite_opensimplex2: per_point(repeat, fastnoise(fastnoise_lite::NoiseType::OpenSimplex2, &random)),
        ours_scalar_line: per_point(repeat, || ours_scalar(&line)),
        noise_crate_line: per_point(repeat, || noise_crate(&crate_perlin, &line)),
    }
}
