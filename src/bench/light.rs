//! Light figures of `blockworld bench gen`, on one thread: the cost of
//! lighting one chunk (sky and RGB block light as flood fills, see
//! `src/light/`) as it arrives among neighbours that are already loaded
//! and lit, for a surface chunk and for a cave chunk.

use super::median;
use crate::light::map::{BlockSource, LightMap};
use crate::light::rules::props;
use crate::world::chunk::Chunk;
use crate::world::coords::{ChunkPos, ColumnPos, CHUNK_SIZE, CHUNK_VOLUME};
use crate::worldgen::WorldGen;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

#[derive(Clone, Debug, Serialize)]
pub struct LightFigures {
    /// A chunk holding the terrain surface, ms.
    pub surface: f64,
    pub surface_chunk: [i32; 3],
    /// A chunk below the surface with cave air in it, ms.
    pub cave: Option<f64>,
    pub cave_chunk: Option<[i32; 3]>,
}

struct Neighbourhood {
    chunks: HashMap<ChunkPos, Chunk>,
}

impl BlockSource for Neighbourhood {
    fn chunk(&self, pos: ChunkPos) -> Option<&Chunk> {
        self.chunks.get(&pos)
    }

    /// The benchmark's 3×3×3 block sits at the surface or below it; the sky
    /// enters its top only where the world above is open air.
    fn sky_above(&self, pos: ChunkPos, _: usize, _: usize) -> bool {
        pos.y as i64 * CHUNK_SIZE as i64 > 200
    }
}

/// Lights `centre` after its 26 neighbours are in and lit; the median of
/// `repeat` runs of that last step, in ms.
fn time_chunk(world: &WorldGen, centre: ChunkPos, repeat: usize) -> f64 {
    let mut chunks = HashMap::new();
    for dz in -1..=1 {
        for dy in -1..=1 {
            for dx in -1..=1 {
                let p = ChunkPos::new(centre.x + dx, centre.y + dy, centre.z + dz);
                chunks.insert(p, world.generate(p));
            }
        }
    }
    let n = Neighbourhood { chunks };
    let times = (0..repeat.max(1))
        .map(|_| {
            let mut map = LightMap::new();
            for &p in n.chunks.keys().filter(|&&p| p != centre) {
                map.add_chunk(&n, p);
            }
            let t = Instant::now();
            map.add_chunk(&n, centre);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            std::hint::black_box(map.heap_bytes());
            ms
        })
        .collect();
    median(times)
}

/// Whether a chunk holds blocks light passes through (air, water, leaves).
fn has_open_cells(c: &Chunk) -> bool {
    (0..CHUNK_VOLUME).step_by(7).any(|i| props(c.blocks().get_index(i)).clear)
}

pub fn light_figures(world: &WorldGen, repeat: usize) -> LightFigures {
    let col = ColumnPos { x: 0, z: 0 };
    let hm = world.compute_heightmap(col);
    let surface = ChunkPos::new(0, hm.max_height.div_euclid(CHUNK_SIZE as i32), 0);
    // The first chunk below the whole column's surface with cave air in it.
    let mut cave = None;
    for col in (0..16).map(|i| ColumnPos { x: i % 4, z: i / 4 }) {
        let hm = world.compute_heightmap(col);
        let below = (hm.min_height - 8).div_euclid(CHUNK_SIZE as i32) - 1;
        if let Some(pos) = (below - 4..=below)
            .rev()
            .map(|y| ChunkPos::new(col.x, y, col.z))
            .find(|&p| has_open_cells(&world.generate(p)))
        {
            cave = Some(pos);
            break;
        }
    }
    let at = |p: ChunkPos| [p.x, p.y, p.z];
    LightFigures {
        surface: time_chunk(world, surface, repeat),
        surface_chunk: at(surface),
        cave: cave.map(|p| time_chunk(world, p, repeat)),
        cave_chunk: cave.map(at),
    }
}
