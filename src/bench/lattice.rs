//! `blockworld bench lattice`: the Brno project's lattice table in its own
//! shape, one 128³ volume at 1 to 8 octaves (cells `8 << o`), on one
//! thread. Each row is one way of evaluating the same noise:
//!
//! * **naive, scalar**: every block hashes its own eight corners;
//! * **shared gradients, scalar** (the project's optimisation 1): each
//!   8×8×8 group hashes its corners once, each block does the rest;
//! * **shared partial products, scalar** (optimisations 1 and 2): the
//!   group also forms the per-axis products `g·(f − c)` once;
//! * **shared partial products, 8 lanes**: the same, eight blocks per
//!   AVX2 vector (the game's path).
//!
//! All four give the same bits (a test holds them equal), so the ratios
//! separate what sharing buys (naive over shared, both scalar) from what
//! SIMD buys (scalar over 8 lanes). Beside them, the well-known CPU
//! libraries at the same points and octaves, the counterparts of the
//! project's shader-library rows: the `noise` crate's Perlin (its f64
//! API) and fastnoise-lite's Perlin and OpenSimplex2 (f32).

use super::density::{each_block, each_group, seed001_noise, VOLUME_SIDE};
use super::machine::Machine;
use super::median;
use crate::worldgen::density::{group_noise_as, noise_at, GroupRows, Sharing};
use crate::worldgen::noise::lattice::GROUP;
use crate::worldgen::params::FlatCaveNoise;
use crate::worldgen::preset::MAX_CAVE_OCTAVES;
use serde::Serialize;
use std::time::Instant;

/// The seed of every row's noise.
const SEED: u32 = 1234;

#[derive(Clone, Debug, Serialize)]
pub struct LatticeRow {
    pub name: &'static str,
    /// Ours (same bits in every row) or a library's own noise.
    pub ours: bool,
    /// Eight blocks per vector.
    pub lanes: bool,
    /// ms for the whole volume at 1, 2, … octaves, median of the repeats.
    pub ms: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LatticeReport {
    pub machine: Machine,
    pub volume_side: usize,
    pub repeat: usize,
    pub rows: Vec<LatticeRow>,
    /// Naive over shared partial products, both scalar, per octave count:
    /// what cooperation buys.
    pub cooperation: Vec<f64>,
    /// Shared partial products, scalar over 8 lanes: what SIMD buys.
    pub simd: Vec<f64>,
    /// Naive, scalar over 8 lanes: what SIMD buys without sharing.
    pub simd_naive: Vec<f64>,
}

/// The volume's low corner: away from the origin, across cell borders.
const ORIGIN: [i32; 3] = [-64, -96, -64];

/// Ours, group by group with `sharing`; a checksum so nothing is optimised away.
fn shared(n: &FlatCaveNoise, sharing: Sharing) -> f32 {
    let mut out: GroupRows = [[0.0; GROUP]; GROUP * GROUP];
    let mut sum = 0f32;
    each_group(ORIGIN, |o| {
        group_noise_as(n, o, &mut out, sharing);
        sum += out.iter().flatten().sum::<f32>();
    });
    sum
}

/// Ours, every block alone.
fn naive(n: &FlatCaveNoise) -> f32 {
    every_block(|p| noise_at(n, p))
}

fn every_block(f: impl FnMut([i32; 3]) -> f32) -> f32 {
    each_block(ORIGIN, f)
}

/// Ours, every block alone, eight blocks of a y run at a time: SIMD without
/// sharing. Without AVX2, the scalar row again.
fn naive_lanes(n: &FlatCaveNoise) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = crate::worldgen::noise::perlin_avx2::avx2() {
        use crate::worldgen::noise::lattice::{octave_at_x8, octave_seed};
        let mut sum = 0f32;
        for z in 0..VOLUME_SIDE as i32 {
            for x in 0..VOLUME_SIDE as i32 {
                for y in (0..VOLUME_SIDE as i32).step_by(8) {
                    let p = [[ORIGIN[0] + x; 8], std::array::from_fn(|l| ORIGIN[1] + y + l as i32), [ORIGIN[2] + z; 8]];
                    let mut acc = [0f32; 8];
                    for o in 0..n.octaves {
                        let v = octave_at_x8(avx2, octave_seed(n.seed, o), n.shift_xz - o, n.shift_y - o, p);
                        for (a, v) in acc.iter_mut().zip(v) {
                            *a += n.weights[o as usize] * v;
                        }
                    }
                    sum += acc.iter().sum::<f32>();
                }
            }
        }
        return sum;
    }
    naive(n)
}

/// A library's noise at our block centres and octaves: octave o samples
/// at `(p + ½) / cell_o` with our weights.
fn octaves_of(n: &FlatCaveNoise) -> Vec<(f32, f32)> {
    (0..n.octaves).map(|o| (1.0 / (1u32 << (n.shift_xz - o)) as f32, n.weights[o as usize])).collect()
}

fn noise_crate(n: &FlatCaveNoise, perlin: &noise::Perlin) -> f32 {
    use noise::NoiseFn;
    let octaves = octaves_of(n);
    every_block(|p| {
        let c = p.map(|v| v as f64 + 0.5);
        octaves.iter().map(|&(f, w)| w * perlin.get(c.map(|v| v * f as f64)) as f32).sum()
    })
}

fn fastnoise(n: &FlatCaveNoise, noise: &fastnoise_lite::FastNoiseLite) -> f32 {
    let octaves = octaves_of(n);
    every_block(|p| {
        let c = p.map(|v| v as f32 + 0.5);
        octaves.iter().map(|&(f, w)| w * noise.get_noise_3d(c[0] * f, c[1] * f, c[2] * f)).sum()
    })
}

fn fastnoise_of(kind: fastnoise_lite::NoiseType) -> fastnoise_lite::FastNoiseLite {
    let mut n = fastnoise_lite::FastNoiseLite::with_seed(SEED as i32);
    n.set_noise_type(Some(kind));
    n.set_frequency(Some(1.0));
    n
}

/// The table: every row at 1..=`max_octaves` octaves, `repeat` runs each.
pub fn run(max_octaves: u32, repeat: usize) -> LatticeReport {
    let max_octaves = max_octaves.clamp(1, MAX_CAVE_OCTAVES as u32);
    let repeat = repeat.max(1);
    let perlin = noise::Perlin::new(SEED);
    let (fnl_perlin, fnl_simplex) =
        (fastnoise_of(fastnoise_lite::NoiseType::Perlin), fastnoise_of(fastnoise_lite::NoiseType::OpenSimplex2));
    let lanes = crate::worldgen::noise::perlin_avx2::available();
    type Eval<'a> = Box<dyn Fn(&FlatCaveNoise) -> f32 + 'a>;
    let rows: Vec<(&'static str, bool, bool, Eval)> = vec![
        ("naive, scalar", true, false, Box::new(naive)),
        ("naive, 8 lanes", true, lanes, Box::new(naive_lanes)),
        ("shared gradients (opt. 1), scalar", true, false, Box::new(|n| shared(n, Sharing::Gradients))),
        (
            "shared partial products (opt. 1+2), scalar",
            true,
            false,
            Box::new(|n| shared(n, Sharing::PartialProducts { lanes: false })),
        ),
        (
            "shared partial products (opt. 1+2), 8 lanes",
            true,
            lanes,
            Box::new(|n| shared(n, Sharing::PartialProducts { lanes: true })),
        ),
        ("noise crate 0.9 Perlin (f64)", false, false, Box::new(|n| noise_crate(n, &perlin))),
        ("fastnoise-lite 1.1 Perlin", false, false, Box::new(|n| fastnoise(n, &fnl_perlin))),
        ("fastnoise-lite 1.1 OpenSimplex2", false, false, Box::new(|n| fastnoise(n, &fnl_simplex))),
    ];
    let rows: Vec<LatticeRow> = rows
        .into_iter()
        .map(|(name, ours, lanes, eval)| {
            let ms = (1..=max_octaves)
                .map(|octaves| {
                    let n = seed001_noise(octaves, SEED);
                    let mut sink = 0f32;
                    let runs = (0..repeat)
                        .map(|_| {
                            let t = Instant::now();
                            sink += eval(&n);
                            t.elapsed().as_secs_f64() * 1e3
                        })
                        .collect();
                    std::hint::black_box(sink);
                    median(runs)
                })
                .collect();
            LatticeRow { name, ours, lanes, ms }
        })
        .collect();
    let ratio = |a: usize, b: usize| rows[a].ms.iter().zip(&rows[b].ms).map(|(x, y)| x / y).collect();
    let (cooperation, simd, simd_naive) = (ratio(0, 3), ratio(3, 4), ratio(0, 1));
    LatticeReport { machine: Machine::here(), volume_side: VOLUME_SIDE, repeat, rows, cooperation, simd, simd_naive }
}

impl std::fmt::Display for LatticeReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = &self.machine;
        writeln!(
            f,
            "The Brno lattice table: one {0}³ volume, cells 8 << o, one thread, ms (median of {1})",
            self.volume_side, self.repeat
        )?;
        writeln!(f, "{m}")?;
        let octaves = self.rows.first().map_or(0, |r| r.ms.len());
        write!(f, "{:<46}", "octaves")?;
        for o in 1..=octaves {
            write!(f, " {o:>8}")?;
        }
        writeln!(f)?;
        for r in &self.rows {
            let lanes = if r.ours && r.name.ends_with("8 lanes") && !r.lanes { " (no AVX2: scalar)" } else { "" };
            write!(f, "{:<46}", format!("{}{lanes}", r.name))?;
            for ms in &r.ms {
                write!(f, " {ms:>8.2}")?;
            }
            writeln!(f)?;
        }
        for (name, v) in [
            ("cooperation (naive / opt. 1+2, scalar)", &self.cooperation),
            ("SIMD (opt. 1+2 scalar / 8 lanes)", &self.simd),
            ("SIMD alone (naive scalar / 8 lanes)", &self.simd_naive),
        ] {
            write!(f, "{name:<46}")?;
            for x in v {
                write!(f, " {x:>7.1}×")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sharing_gives_the_naive_bits() {
        let n = seed001_noise(3, 7);
        let origin = [-8, 16, 24];
        for sharing in
            [Sharing::Gradients, Sharing::PartialProducts { lanes: false }, Sharing::PartialProducts { lanes: true }]
        {
            let mut out: GroupRows = [[0.0; GROUP]; GROUP * GROUP];
            group_noise_as(&n, origin, &mut out, sharing);
            for (r, run) in out.iter().enumerate() {
                for (j, v) in run.iter().enumerate() {
                    let p = [origin[0] + (r % GROUP) as i32, origin[1] + j as i32, origin[2] + (r / GROUP) as i32];
                    assert_eq!(v.to_bits(), noise_at(&n, p).to_bits(), "{sharing:?} at {p:?}");
                }
            }
        }
    }
}
