//! `WorldGen`: a preset and a seed made ready to generate chunks on the CPU,
//! with a bounded per-column heightmap cache shared by the vertical chunks
//! of a column.

use super::fill;
use super::graph::NoiseProgram;
use super::heightmap::{self, Heightmap, Lanes};
use super::params::WorldParams;
use super::preset::Preset;
use crate::world::chunk::Chunk;
use crate::world::coords::{ChunkPos, ColumnPos};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Heightmaps kept by default: a render distance of 32 needs 65² columns.
pub const DEFAULT_CACHE_COLUMNS: usize = 8192;

pub struct WorldGen {
    pub preset: Preset,
    pub seed: u64,
    pub params: Box<WorldParams>,
    pub program: NoiseProgram,
    pub lanes: Lanes,
    cache: Mutex<HeightmapCache>,
}

struct HeightmapCache {
    map: HashMap<ColumnPos, Arc<Heightmap>>,
    order: VecDeque<ColumnPos>,
    capacity: usize,
}

impl HeightmapCache {
    fn get(&self, col: ColumnPos) -> Option<Arc<Heightmap>> {
        self.map.get(&col).cloned()
    }
    fn insert(&mut self, col: ColumnPos, hm: Arc<Heightmap>) {
        if self.capacity == 0 || self.map.insert(col, hm).is_some() {
            return;
        }
        self.order.push_back(col);
        while self.map.len() > self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
    }
}

impl WorldGen {
    pub fn new(preset: Preset, seed: u64) -> WorldGen {
        Self::with_options(preset, seed, Lanes::detect(), DEFAULT_CACHE_COLUMNS)
    }

    pub fn with_options(preset: Preset, seed: u64, lanes: Lanes, cache_columns: usize) -> WorldGen {
        let params = WorldParams::new(&preset, seed);
        let program = NoiseProgram::compile(&params);
        WorldGen {
            preset,
            seed,
            params,
            program,
            lanes,
            cache: Mutex::new(HeightmapCache { map: HashMap::new(), order: VecDeque::new(), capacity: cache_columns }),
        }
    }

    /// Computes a heightmap, bypassing the cache.
    pub fn compute_heightmap(&self, col: ColumnPos) -> Heightmap {
        heightmap::compute(&self.program, &self.params, col, self.lanes)
    }

    /// The cached heightmap of a column, computing it on a miss. Two threads
    /// missing the same column both compute it; the results are identical.
    pub fn heightmap(&self, col: ColumnPos) -> Arc<Heightmap> {
        if let Some(hm) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(col) {
            return hm;
        }
        let hm = Arc::new(self.compute_heightmap(col));
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).insert(col, hm.clone());
        hm
    }

    pub fn cached_heightmap(&self, col: ColumnPos) -> Option<Arc<Heightmap>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(col)
    }

    pub fn clear_cache(&self) {
        let mut c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        c.map.clear();
        c.order.clear();
    }

    pub fn fill(&self, pos: ChunkPos, hm: &Heightmap) -> Chunk {
        fill::fill(&self.params, pos, hm)
    }

    pub fn generate(&self, pos: ChunkPos) -> Chunk {
        let hm = self.heightmap(pos.column());
        self.fill(pos, &hm)
    }
}
