//! A far tile's cells: the surface height and top block at each cell's
//! sample point, from the same column sampler as the chunks and the map
//! (`heightmap::sample_columns`), so a cell stands exactly as high as the
//! full chunk's ground at that column.

use super::clipmap::{TileKey, TILE_CELLS};
use crate::world::block::BlockId;
use crate::worldgen::decorate::{footing, tree_at, trunk_height};
use crate::worldgen::heightmap::sample_columns;
use crate::worldgen::placement::candidates;
use crate::worldgen::WorldGen;

pub const TILE_AREA: usize = TILE_CELLS * TILE_CELLS;

/// One cell: the height of its ground block (the chunk heightmap's value),
/// the block seen from above (water where the ground is under the water
/// level), and on the finest levels the crown of a tree over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub ground: i32,
    pub top: BlockId,
    /// The biome's block under the top one.
    pub under: BlockId,
    pub canopy: Option<Canopy>,
}

/// A tree crown over a cell: the height just above its highest leaves,
/// and the leaf block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canopy {
    pub surface: i32,
    pub leaves: BlockId,
}

/// Levels whose cells show trees: 2 m and 4 m cells. Farther out a crown
/// is smaller than a cell and the haze takes it.
pub const TREE_LEVELS: u8 = 2;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FarTile {
    pub key: TileKey,
    /// Row-major, x fastest, north (−z) row first.
    pub cells: Vec<Cell>,
    pub water_level: i32,
    /// The rock under the under-layer, and that layer's depth.
    pub deep: BlockId,
    pub under_depth: i32,
}

impl FarTile {
    pub fn cell(&self, i: usize, j: usize) -> Cell {
        self.cells[j * TILE_CELLS + i]
    }

    /// Where the cell's visible surface is: the top of its ground block, or
    /// of the water above it, or of the crown over it.
    pub fn surface(&self, i: usize, j: usize) -> i32 {
        let c = self.cell(i, j);
        let ground = c.ground.max(self.water_level) + 1;
        c.canopy.map_or(ground, |t| t.surface.max(ground))
    }

    /// The block a side of the cell's column shows, going down `drop`
    /// blocks from its surface: the crown's leaves, the top block's own
    /// layer for a one-block step, the under-layer where the side is no
    /// deeper than it, and rock below (a cliff).
    pub fn side(&self, i: usize, j: usize, drop: i32) -> BlockId {
        let c = self.cell(i, j);
        if self.visible(i, j) != c.top {
            return self.visible(i, j);
        }
        if drop <= 1 || c.ground < self.water_level {
            c.top
        } else if drop <= self.under_depth + 1 {
            c.under
        } else {
            self.deep
        }
    }

    /// The block seen from above.
    pub fn visible(&self, i: usize, j: usize) -> BlockId {
        let c = self.cell(i, j);
        match c.canopy {
            Some(t) if t.surface > c.ground.max(self.water_level) + 1 => t.leaves,
            _ => c.top,
        }
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
    if h < p.surface.water_level {
        BlockId(p.surface.water_block as u8)
    } else if h > p.surface.snow_above {
        BlockId(p.surface.snow_block as u8)
    } else {
        BlockId(p.surface.top.get(biome as usize).copied().unwrap_or(p.surface.deep_block) as u8)
    }
}

/// Generates one tile on the calling thread.
pub fn generate(world: &WorldGen, key: TileKey) -> FarTile {
    assemble(world, key, &sample(world, key))
}

/// The ground height and biome at each cell's sample point, row-major: the
/// column stage of a tile, which `bw_far_cells` computes on a device.
pub fn sample(world: &WorldGen, key: TileKey) -> Vec<(i32, u8)> {
    let points: Vec<[i64; 2]> =
        (0..TILE_CELLS).flat_map(|j| (0..TILE_CELLS).map(move |i| sample_point(key, i, j))).collect();
    sample_columns(&world.program, &world.params, world.lanes, &points)
}

/// A tile from its cells' ground heights and biomes (from [`sample`] or a
/// device): the top and under blocks, and the tree crowns on the finest
/// levels.
pub fn assemble(world: &WorldGen, key: TileKey, columns: &[(i32, u8)]) -> FarTile {
    let p = &world.params;
    let mut cells: Vec<Cell> = columns
        .iter()
        .map(|&(ground, biome)| {
            let under = p.surface.under.get(biome as usize).copied().unwrap_or(p.surface.deep_block);
            Cell { ground, top: top_block(world, ground, biome), under: BlockId(under as u8), canopy: None }
        })
        .collect();
    if key.level < TREE_LEVELS {
        grow_canopies(world, key, &mut cells);
    }
    FarTile {
        key,
        cells,
        water_level: p.surface.water_level,
        deep: BlockId(p.surface.deep_block as u8),
        under_depth: p.surface.under_depth,
    }
}

/// Where the decoration planner puts trees (the same candidates, footing
/// and rules as `decorate::plan`), the cells whose sample point lies under
/// a crown, and the cell holding the trunk, show the crown's leaves at its
/// top.
fn grow_canopies(world: &WorldGen, key: TileKey, cells: &mut [Cell]) {
    let p = &world.params;
    if p.deco.trees.unit <= 0 {
        return;
    }
    let ([x0, z0], b, c) = (key.origin(), key.blocks(), key.cell());
    let reach = p.deco.trees.reach as i64;
    let found = candidates(
        &p.deco.pattern,
        &p.deco.bayer,
        p.deco.seed(),
        p.deco.trees.unit as i64,
        (x0 - reach, z0 - reach),
        (x0 + b + reach, z0 + b + reach),
    );
    for cand in found.into_iter().filter(|t| t.threshold < p.deco.trees.max_density) {
        let f = footing(&world.program, p, world.lanes, cand.x, cand.z);
        let Some((kind, shape)) = tree_at(p, cand.threshold, cand.variant, f) else { continue };
        let trunk = trunk_height(shape);
        let Some(k) = p.deco.trees.kinds.get(kind as usize) else { continue };
        if k.leaves_block == 0 {
            continue;
        }
        let radius =
            k.layers[..(k.layer_count as usize).min(k.layers.len())].iter().map(|l| l.radius).max().unwrap_or(0) as i64;
        // The lowest log is one above the ground; the top leaf `crown`
        // above the top log; the surface one above that.
        let canopy = Canopy { surface: f.height + trunk + k.crown + 1, leaves: BlockId(k.leaves_block as u8) };
        let cell_of = |v: i64, o: i64| (v - o).div_euclid(c);
        let n = TILE_CELLS as i64;
        for j in cell_of(cand.z - radius, z0).max(0)..=cell_of(cand.z + radius, z0).min(n - 1) {
            for i in cell_of(cand.x - radius, x0).max(0)..=cell_of(cand.x + radius, x0).min(n - 1) {
                let [sx, sz] = sample_point(key, i as usize, j as usize);
                let under = (sx - cand.x).abs() <= radius && (sz - cand.z).abs() <= radius;
                let trunk_cell = cell_of(cand.x, x0) == i && cell_of(cand.z, z0) == j;
                let cell = &mut cells[j as usize * TILE_CELLS + i as usize];
                if (under || trunk_cell) && cell.canopy.is_none_or(|t| t.surface < canopy.surface) {
                    cell.canopy = Some(canopy);
                }
            }
        }
    }
}
