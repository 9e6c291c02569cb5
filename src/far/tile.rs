//! A far tile's cells: the surface height and top block at each cell's
//! sample point, from the same column sampler as the chunks and the map
//! (`heightmap::sample_columns`), so a cell stands exactly as high as the
//! full chunk's ground at that column.

use super::clipmap::{TileKey, TILE_CELLS};
use crate::world::block::BlockId;
use crate::worldgen::heightmap::sample_columns;
use crate::worldgen::WorldGen;

pub const TILE_AREA: usize = TILE_CELLS * TILE_CELLS;

/// One cell: the height of its ground block (the chunk heightmap's value),
/// and the block seen from above (water where the ground is under the
/// water level).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub ground: i32,
    pub top: BlockId,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FarTile {
    pub key: TileKey,
    /// Row-major, x fastest, north (−z) row first.
    pub cells: Vec<Cell>,
    pub water_level: i32,
}

impl FarTile {
    pub fn cell(&self, i: usize, j: usize) -> Cell {
        self.cells[j * TILE_CELLS + i]
    }

    /// Where the cell's visible surface is: the top of its ground block, or
    /// of the water above it.
    pub fn surface(&self, i: usize, j: usize) -> i32 {
        let c = self.cell(i, j);
        c.ground.max(self.water_level) + 1
    }
}

/// The block column a cell samples: its centre (the north-west of the
/// centre's four blocks for even cells).
pub fn sample_point(key: TileKey, i: usize, j: usize) -> [i64; 2] {
    let [x0, z0] = key.origin();
    let c = key.cell();
    [x0 + i as i64 * c + c / 2, z0 + j as i64 * c + c / 2]
}

/// The top block of a column of ground height `h` and biome `b`, as the
/// fill writes it (snow above the snow line), or water over sunken ground.
pub fn top_block(world: &WorldGen, h: i32, biome: u8) -> BlockId {
    let p = &world.params;
    if h < p.water_level {
        BlockId(p.water_block as u8)
    } else if h > p.snow_above {
        BlockId(p.snow_block as u8)
    } else {
        BlockId(p.biome_top.get(biome as usize).copied().unwrap_or(p.deep_block) as u8)
    }
}

/// Generates one tile on the calling thread.
pub fn generate(world: &WorldGen, key: TileKey) -> FarTile {
    let points: Vec<[i64; 2]> =
        (0..TILE_CELLS).flat_map(|j| (0..TILE_CELLS).map(move |i| sample_point(key, i, j))).collect();
    let cells = sample_columns(&world.program, &world.params, world.lanes, &points)
        .into_iter()
        .map(|(ground, biome)| Cell { ground, top: top_block(world, ground, biome) })
        .collect();
    FarTile { key, cells, water_level: world.params.water_level }
}
