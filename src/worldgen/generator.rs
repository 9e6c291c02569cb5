//! `WorldGen`: a preset and a seed made ready to generate chunks on the CPU,
//! with a bounded per-column cache (heightmap and decoration plan) shared
//! by the vertical chunks of a column.

use super::decorate::{self, ColumnDecorations};
use super::fill;
use super::graph::NoiseProgram;
use super::heightmap::{self, Apron, Heightmap, Lanes};
use super::params::WorldParams;
use super::preset::Preset;
use crate::world::chunk::Chunk;
use crate::world::coords::{ChunkPos, ColumnPos};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Heightmaps kept by default: the data range of render distance 64 holds
/// about 13 500 columns (a disc 131 across), and the rest is for moving.
pub const DEFAULT_CACHE_COLUMNS: usize = 20_000;

pub struct WorldGen {
    pub preset: Preset,
    pub seed: u64,
    pub params: Box<WorldParams>,
    pub program: NoiseProgram,
    pub lanes: Lanes,
    cache: Mutex<HeightmapCache>,
}

/// What the chunks of one column share: its heightmap and the trees that
/// reach into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnData {
    pub heightmap: Heightmap,
    pub decorations: ColumnDecorations,
}

struct HeightmapCache {
    map: HashMap<ColumnPos, Arc<ColumnData>>,
    order: VecDeque<ColumnPos>,
    capacity: usize,
}

impl HeightmapCache {
    fn get(&self, col: ColumnPos) -> Option<Arc<ColumnData>> {
        self.map.get(&col).cloned()
    }
    fn insert(&mut self, col: ColumnPos, hm: Arc<ColumnData>) {
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

    /// [`Self::compute_heightmap`], keeping the samples it smoothed for
    /// [`Self::plan_decorations`].
    pub fn compute_heightmap_with_apron(&self, col: ColumnPos) -> (Heightmap, Apron) {
        heightmap::compute_with_apron(&self.program, &self.params, col, self.lanes)
    }

    /// The trees that reach into a column, given its heightmap and, where
    /// at hand, the apron it was smoothed from (bypassing the cache). The
    /// apron saves samples; the plan is the same without it.
    pub fn plan_decorations(&self, col: ColumnPos, hm: &Heightmap, apron: Option<&Apron>) -> ColumnDecorations {
        decorate::plan(&self.program, &self.params, col, hm, apron, self.lanes)
    }

    /// The cached heightmap and decoration plan of a column, computing them
    /// on a miss. Two threads missing the same column both compute it; the
    /// results are identical.
    pub fn column(&self, col: ColumnPos) -> Arc<ColumnData> {
        if let Some(data) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(col) {
            return data;
        }
        let (heightmap, apron) = self.compute_heightmap_with_apron(col);
        let decorations = self.plan_decorations(col, &heightmap, Some(&apron));
        let data = Arc::new(ColumnData { heightmap, decorations });
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).insert(col, data.clone());
        data
    }

    pub fn cached_column(&self, col: ColumnPos) -> Option<Arc<ColumnData>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(col)
    }

    pub fn clear_cache(&self) {
        let mut c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        c.map.clear();
        c.order.clear();
    }

    /// The terrain of a chunk alone, undecorated (a benchmark stage).
    pub fn fill_terrain(&self, pos: ChunkPos, hm: &Heightmap) -> Chunk {
        fill::fill(&self.params, pos, hm, None)
    }

    pub fn generate(&self, pos: ChunkPos) -> Chunk {
        let data = self.column(pos.column());
        fill::fill(&self.params, pos, &data.heightmap, Some(&data.decorations))
    }
}
