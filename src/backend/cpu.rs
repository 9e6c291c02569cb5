//! The Rust CPU path as a backend: serial, or parallel on rayon.

use super::{BackendError, ChunkBackend, Engine};
use crate::far::{tile, TileKey};
use crate::world::chunk::Chunk;
use crate::world::coords::{ChunkPos, ColumnPos};
use crate::worldgen::heightmap::Heightmap;
use crate::worldgen::WorldGen;
use rayon::prelude::*;
use std::sync::Arc;

pub struct CpuBackend {
    world: Arc<WorldGen>,
    parallel: bool,
}

impl CpuBackend {
    pub fn serial(world: Arc<WorldGen>) -> Self {
        Self { world, parallel: false }
    }
    pub fn parallel(world: Arc<WorldGen>) -> Self {
        Self { world, parallel: true }
    }
    pub fn world(&self) -> &Arc<WorldGen> {
        &self.world
    }
}

/// The distinct columns of `positions`, in order of first appearance.
pub fn distinct_columns(positions: &[ChunkPos]) -> Vec<ColumnPos> {
    let mut seen = std::collections::HashSet::new();
    positions.iter().map(|p| p.column()).filter(|c| seen.insert(*c)).collect()
}

impl ChunkBackend for CpuBackend {
    fn kind(&self) -> Engine {
        if self.parallel {
            Engine::Cpu
        } else {
            Engine::CpuSerial
        }
    }

    fn generate(&self, positions: &[ChunkPos]) -> Result<Vec<Chunk>, BackendError> {
        let w = &self.world;
        if !self.parallel {
            return Ok(positions.iter().map(|&p| w.generate(p)).collect());
        }
        // Heightmaps first, one task per column, so vertical neighbours never
        // compute the same column twice; then the fills.
        distinct_columns(positions).par_iter().for_each(|&c| {
            w.column(c);
        });
        Ok(positions.par_iter().map(|&p| w.generate(p)).collect())
    }

    fn describe(&self) -> String {
        let lanes = format!("{:?} lanes", self.world.lanes);
        if self.parallel {
            format!("CPU, rayon with {} threads, {lanes}", rayon::current_num_threads())
        } else {
            format!("CPU, one thread, {lanes}")
        }
    }

    fn far_cells(&self, tiles: &[TileKey]) -> Result<Vec<(i32, u8)>, BackendError> {
        let w = &self.world;
        Ok(if self.parallel {
            tiles.par_iter().flat_map_iter(|&t| tile::sample(w, t)).collect()
        } else {
            tiles.iter().flat_map(|&t| tile::sample(w, t)).collect()
        })
    }

    fn heightmaps(&self, columns: &[ColumnPos]) -> Result<Vec<Heightmap>, BackendError> {
        Ok(if self.parallel {
            columns.par_iter().map(|&c| self.world.compute_heightmap(c)).collect()
        } else {
            columns.iter().map(|&c| self.world.compute_heightmap(c)).collect()
        })
    }
}
