//! Density (cave) figures of `blockworld bench gen`, on one CPU thread:
//!
//! * the density stage per underground chunk (a chunk wholly below its
//!   column's surface and inside the cave range), as the CPU path runs it;
//! * the Brno project's comparison: noise over a 128³ volume with the lattice cell
//!   shared by each 8×8×8 group (cooperative, 8 lanes) and with every block
//!   hashing its own corners (naive, scalar), same volume, same run, same
//!   bits. The ratio mixes sharing with SIMD; `bench lattice`
//!   ([`super::lattice`]) separates them, at 1 to 8 octaves.

use super::median;
use crate::world::coords::{ChunkPos, ColumnPos, CHUNK_SIZE};
use crate::worldgen::density::{self, group_noise, noise_at, GroupRows};
use crate::worldgen::noise::lattice::GROUP;
use crate::worldgen::params::FlatCaveNoise;
use crate::worldgen::preset::MAX_CAVE_OCTAVES;
use crate::worldgen::WorldGen;
use serde::Serialize;
use std::time::Instant;

/// The side of the Brno project's volume.
pub const VOLUME_SIDE: usize = 128;

#[derive(Clone, Debug, Serialize)]
pub struct DensityFigures {
    /// The density stage per underground chunk, one thread.
    pub ms_per_chunk_density: f64,
    /// How many underground chunks that median is over.
    pub underground_chunks: usize,
    /// The preset's first cave noise over the 128³ volume, per block.
    pub ns_per_voxel_cooperative: f64,
    pub ns_per_voxel_naive: f64,
    pub naive_over_cooperative: f64,
}

/// Wall time of `f` in ms, median of `repeat` runs.
fn timed(repeat: usize, mut f: impl FnMut() -> f32) -> f64 {
    let mut sink = 0f32;
    let ms = median(
        (0..repeat.max(1))
            .map(|_| {
                let t = Instant::now();
                sink += f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    );
    std::hint::black_box(sink);
    ms
}

/// Every aligned 8³ group of the 128³ volume whose low corner is
/// `origin`, by the group's low corner.
pub(super) fn each_group(origin: [i32; 3], mut f: impl FnMut([i32; 3])) {
    let (groups, side) = ((VOLUME_SIDE / GROUP) as i32, GROUP as i32);
    for gz in 0..groups {
        for gx in 0..groups {
            for gy in 0..groups {
                f([origin[0] + gx * side, origin[1] + gy * side, origin[2] + gz * side]);
            }
        }
    }
}

/// The sum of `f` over every block of that volume, y fastest.
pub(super) fn each_block(origin: [i32; 3], mut f: impl FnMut([i32; 3]) -> f32) -> f32 {
    let mut sum = 0f32;
    for z in 0..VOLUME_SIDE as i32 {
        for x in 0..VOLUME_SIDE as i32 {
            for y in 0..VOLUME_SIDE as i32 {
                sum += f([origin[0] + x, origin[1] + y, origin[2] + z]);
            }
        }
    }
    sum
}

/// The noise over the volume, group by group with shared cells; returns a
/// checksum so nothing is optimised away.
fn volume_cooperative(n: &FlatCaveNoise, origin: [i32; 3]) -> f32 {
    let mut out: GroupRows = [[0.0; GROUP]; GROUP * GROUP];
    let mut sum = 0f32;
    each_group(origin, |o| {
        group_noise(n, o, &mut out);
        sum += out[0][0] + out[GROUP * GROUP - 1][GROUP - 1];
    });
    sum
}

/// The same volume, every block alone.
fn volume_naive(n: &FlatCaveNoise, origin: [i32; 3]) -> f32 {
    each_block(origin, |p| noise_at(n, p))
}

/// The Brno project's noise of `octaves` octaves: cells of 8 << o blocks, weights halving.
pub fn seed001_noise(octaves: u32, seed: u32) -> FlatCaveNoise {
    let shift = 3 + octaves - 1;
    let raw: Vec<f64> = (0..octaves).map(|o| 0.5f64.powi(o as i32)).collect();
    let total: f64 = raw.iter().sum();
    let mut weights = [0f32; MAX_CAVE_OCTAVES];
    for (w, r) in weights.iter_mut().zip(&raw) {
        *w = (r / total) as f32;
    }
    FlatCaveNoise { seed, octaves, shift_xz: shift, shift_y: shift, weights }
}

/// `None` for a world without caves.
pub fn density_figures(world: &WorldGen, repeat: usize) -> Option<DensityFigures> {
    let p = &world.params;
    let noise = *p.caves.noises().first()?;
    // Underground chunks under the 16 benchmark columns.
    let mut times = Vec::new();
    for i in 0..16 {
        let col = ColumnPos { x: i % 4 - 2, z: i / 4 - 2 };
        let data = world.column(col);
        let hm = &data.heightmap;
        let top = (hm.min_height as i64).min(p.caves.top as i64);
        let mut y = (p.caves.bottom as i64).div_euclid(CHUNK_SIZE as i64);
        while (y + 1) * CHUNK_SIZE as i64 - 1 <= top {
            let pos = ChunkPos::new(col.x, y as i32, col.z);
            times.push(timed(repeat, || density::carve_mask(p, pos, hm).map_or(0.0, |m| m[0] as f32)));
            y += 1;
        }
    }
    let origin = [-64, -96, -64];
    let voxels = (VOLUME_SIDE * VOLUME_SIDE * VOLUME_SIDE) as f64;
    let coop = timed(repeat, || volume_cooperative(&noise, origin));
    let naive = timed(repeat, || volume_naive(&noise, origin));
    Some(DensityFigures {
        ms_per_chunk_density: median(times.clone()),
        underground_chunks: times.len(),
        ns_per_voxel_cooperative: coop * 1e6 / voxels,
        ns_per_voxel_naive: naive * 1e6 / voxels,
        naive_over_cooperative: naive / coop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_volume_walks_sum_the_same_noise() {
        // Small volume check: every group's values equal the naive ones.
        let n = seed001_noise(3, 7);
        let mut out: GroupRows = [[0.0; GROUP]; GROUP * GROUP];
        group_noise(&n, [-8, 16, 24], &mut out);
        for (i, v) in out.iter().flatten().enumerate() {
            let (k, x, y) = (i / 64, (i / 8) % 8, i % 8);
            assert_eq!(v.to_bits(), noise_at(&n, [-8 + x as i32, 16 + y as i32, 24 + k as i32]).to_bits());
        }
    }
}
