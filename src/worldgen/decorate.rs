//! The decoration stage: trees, flowers and grass on the filled terrain,
//! placed by [`super::placement`] from the preset's `decorations`.
//! CUDA twins: `kernels/decorate.cu` (the tree plan of a chunk column, see
//! [`plan`]) and the decoration part of `kernels/fill.cu` (see [`apply`]).
//!
//! * **Trees** stand on one candidate grid (`tree_spacing`). A chunk
//!   column's plan lists every tree whose canopy can reach into it, from
//!   candidates up to `tree_reach` blocks beyond its border. A tree's base
//!   is one above the smoothed surface of its own column, sampled exactly as
//!   the heightmap computes it, so the neighbour that holds the trunk and
//!   the one that holds a branch agree on where the tree stands.
//! * **Plants** use spacing 1: every surface column is a candidate.
//! * **Rules:** nothing grows where the surface is under water, on a
//!   surface block the kind does not list (`on`: snow, sand…), or, for
//!   trees, on a slope steeper than `tree_max_slope`. The surface block
//!   under a trunk becomes `trunk_soil`.
//! * **Overlaps** are settled without regard to order: a decoration only
//!   fills blocks the terrain left as air, and where two claim one block
//!   the higher (priority, id) wins (trunks, then leaves, then plants).

use super::heightmap::{sample_points, Heightmap, Lanes};
use super::params::{scaled_density, FlatTree, WorldParams};
use super::placement::{candidate, layer_of, unit_squares};
use super::NoiseProgram;
use crate::world::block::MAX_BLOCK_TYPES;
use crate::world::coords::{column_index, ColumnPos, CHUNK_SIZE, CHUNK_SIZE_I64};

/// One tree of a chunk column's plan. Twin: `PlacedTree` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PlacedTree {
    /// Trunk column relative to the chunk column's corner block (may lie
    /// outside 0..32 by up to the reach).
    pub x: i32,
    pub z: i32,
    /// World height of the lowest log: one above the surface.
    pub base: i32,
    pub kind: u32,
    pub trunk: u32,
}

/// "No tree": below every height.
pub const NO_TREE_TOP: i32 = i32::MIN;

/// The trees that reach into one chunk column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnDecorations {
    pub trees: Vec<PlacedTree>,
    /// The highest block any of them places, or [`NO_TREE_TOP`].
    pub tree_top: i32,
}

impl ColumnDecorations {
    pub fn none() -> Self {
        Self { trees: Vec::new(), tree_top: NO_TREE_TOP }
    }
}

/// The highest block a column's decorations can occupy, given its highest
/// surface: trees, and plants one above the surface.
pub fn decoration_top(p: &WorldParams, max_height: i32, tree_top: i32) -> i32 {
    tree_top.max(max_height.saturating_add(p.plant_reach))
}

/// The highest block of a tree.
pub fn tree_top(p: &WorldParams, t: &PlacedTree) -> i32 {
    let crown = p.tree_kinds.get(t.kind as usize).map_or(0, |k| k.crown);
    t.base + t.trunk as i32 - 1 + crown
}

/// What a tree places at (dx, dy, dz) from its lowest log; 0 (air) for nothing.
#[inline]
pub fn tree_block_at(kind: &FlatTree, trunk: i32, dx: i32, dy: i32, dz: i32) -> u32 {
    if dx == 0 && dz == 0 && (0..trunk).contains(&dy) {
        return kind.trunk_block;
    }
    let above_top = dy - (trunk - 1);
    for l in &kind.layers[..(kind.layer_count as usize).min(kind.layers.len())] {
        let (ax, az) = (dx.abs(), dz.abs());
        let corner = l.round != 0 && l.radius > 0 && ax == l.radius && az == l.radius;
        if above_top == l.dy && ax <= l.radius && az <= l.radius && !corner {
            return kind.leaves_block;
        }
    }
    0
}

/// The terrain's top block over a column of height `h` and biome `b`.
#[inline]
fn surface_block(p: &WorldParams, h: i32, b: usize) -> u32 {
    if h > p.snow_above {
        p.snow_block
    } else {
        p.biome_top[b]
    }
}

/// A candidate column's surface, sampled as the heightmap samples it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footing {
    pub height: i32,
    pub biome: u32,
    /// Largest minus smallest of the four pre-smoothing heights.
    pub slope: f32,
    /// The biome's tree density map at the column (1 without one).
    pub density: f32,
}

/// Samples the footing of the column (x, z): `h_b` at its four diagonal
/// neighbours (the smoothing stencil, in the heightmap's order) and the
/// biome at the column itself, and that biome's tree density there.
pub fn footing(program: &NoiseProgram, p: &WorldParams, lanes: Lanes, x: i64, z: i64) -> Footing {
    let xs = [x - 1, x + 1, x - 1, x + 1, x, x, x, x].map(|v| v as f32);
    let zs = [z - 1, z - 1, z + 1, z + 1, z, z, z, z].map(|v| v as f32);
    let (mut h_b, mut biome) = ([0.0f32; 8], [0u8; 8]);
    sample_points(program, p, lanes, &xs, &zs, &mut h_b, &mut biome);
    let [a, b, c, d, ..] = h_b;
    let v = (((a + b) + c) + d) * 0.25;
    let slope = a.max(b).max(c).max(d) - a.min(b).min(c).min(d);
    let density = program.tree_density_factor(p, biome[4] as usize % p.biome_trees.len(), x as f32, z as f32);
    Footing { height: v as i32, biome: biome[4] as u32, slope, density }
}

/// The tree kind layer a candidate threshold selects in biome `b`, its
/// densities scaled by `factor`, if any.
#[inline]
fn tree_layer(p: &WorldParams, b: usize, threshold: u32, factor: f32) -> Option<usize> {
    let n = p.biome_tree_count[b] as usize;
    layer_of(threshold, p.biome_trees[b][..n].iter().map(|l| scaled_density(l.density, factor)))
}

/// The tree growing at a candidate, if the rules allow it.
pub fn tree_at(p: &WorldParams, threshold: u32, variant: u64, f: Footing) -> Option<(u32, u32)> {
    let b = f.biome as usize % p.biome_trees.len();
    let layer = p.biome_trees[b][tree_layer(p, b, threshold, f.density)?];
    let kind = p.tree_kinds.get(layer.what as usize)?;
    let dry = f.height >= p.water_level;
    let footing = layer.on_mask >> (surface_block(p, f.height, b) & 31) & 1 == 1;
    if !dry || !footing || f.slope > p.tree_max_slope {
        return None;
    }
    let trunk = kind.trunk_min + (variant % (kind.trunk_span as u64 + 1)) as u32;
    Some((layer.what, trunk))
}

/// The trees that reach into chunk column `col`: every accepted candidate
/// within `tree_reach` blocks of it. `hm` is the column's own heightmap: it
/// settles the biome of candidates inside the column without sampling.
pub fn plan(
    program: &NoiseProgram,
    p: &WorldParams,
    col: ColumnPos,
    hm: &Heightmap,
    lanes: Lanes,
) -> ColumnDecorations {
    let mut out = ColumnDecorations::none();
    if p.tree_unit <= 0 {
        return out;
    }
    let unit = p.tree_unit as i64;
    let reach = p.tree_reach as i64;
    let (x0, z0) = (col.x as i64 * CHUNK_SIZE_I64, col.z as i64 * CHUNK_SIZE_I64);
    let (lo, hi) = (-reach, CHUNK_SIZE_I64 + reach);
    let seed = p.deco_seed();
    for gz in unit_squares(unit, z0 + lo, z0 + hi) {
        for gx in unit_squares(unit, x0 + lo, x0 + hi) {
            let c = candidate(&p.pattern, &p.bayer, seed, unit, gx, gz);
            let (rx, rz) = (c.x - x0, c.z - z0);
            if rx < lo || rx >= hi || rz < lo || rz >= hi || c.threshold >= p.tree_max_density {
                continue;
            }
            let inside = (0..CHUNK_SIZE_I64).contains(&rx) && (0..CHUNK_SIZE_I64).contains(&rz);
            if inside {
                let b = hm.biomes[column_index(rx as usize, rz as usize)] as usize % p.biome_trees.len();
                // The density map costs one node's noise, the footing
                // eight columns': settle the threshold first.
                let factor = program.tree_density_factor(p, b, c.x as f32, c.z as f32);
                if tree_layer(p, b, c.threshold, factor).is_none() {
                    continue;
                }
            }
            let f = footing(program, p, lanes, c.x, c.z);
            if let Some((kind, trunk)) = tree_at(p, c.threshold, c.variant, f) {
                let t = PlacedTree { x: rx as i32, z: rz as i32, base: f.height + 1, kind, trunk };
                out.tree_top = out.tree_top.max(tree_top(p, &t));
                out.trees.push(t);
            }
        }
    }
    out
}

/// The plant on the surface column (x, z) of height `h` and biome `b`, or 0.
#[inline]
pub fn plant_at(p: &WorldParams, x: i64, z: i64, h: i32, b: usize) -> u32 {
    let b = b % p.biome_plants.len();
    let n = p.biome_plant_count[b] as usize;
    if n == 0 || h < p.water_level {
        return 0;
    }
    let c = candidate(&p.pattern, &p.bayer, p.deco_seed(), 1, x, z);
    let Some(l) = layer_of(c.threshold, p.biome_plants[b][..n].iter().map(|l| l.density)) else {
        return 0;
    };
    let layer = p.biome_plants[b][l];
    if layer.on_mask >> (surface_block(p, h, b) & 31) & 1 == 1 {
        layer.what
    } else {
        0
    }
}

/// The order in which decorations claim a block: higher wins.
#[inline]
pub fn claim_key(p: &WorldParams, id: u32) -> u32 {
    p.block_priority.get(id as usize).copied().unwrap_or(0) << 8 | id
}

/// A chunk's blocks being decorated, with their counts kept right.
struct Target<'a> {
    p: &'a WorldParams,
    hm: &'a Heightmap,
    y0: i64,
    bytes: &'a mut [u8],
    counts: &'a mut [u32; MAX_BLOCK_TYPES],
}

impl Target<'_> {
    fn index(x: i32, ly: i64, z: i32) -> usize {
        column_index(x as usize, z as usize) * CHUNK_SIZE + ly as usize
    }

    fn set(&mut self, i: usize, id: u32) {
        let old = self.bytes[i] as usize;
        self.counts[old] -= 1;
        // `id` is a block the validated preset names, so it is in the registry.
        self.counts[id as usize] += 1;
        self.bytes[i] = id as u8;
    }

    /// Claims (x, y, z) for `id` if the terrain left it as air and no
    /// decoration of a higher key holds it.
    fn claim(&mut self, x: i32, y: i64, z: i32, id: u32) {
        let ly = y - self.y0;
        if id == 0 || !(0..CHUNK_SIZE as i32).contains(&x) || !(0..CHUNK_SIZE as i32).contains(&z) {
            return;
        }
        if !(0..CHUNK_SIZE_I64).contains(&ly) {
            return;
        }
        let h = self.hm.heights[column_index(x as usize, z as usize)] as i64;
        if y <= h || y <= self.p.water_level as i64 {
            return;
        }
        let i = Self::index(x, ly, z);
        if claim_key(self.p, id) > claim_key(self.p, self.bytes[i] as u32) {
            self.set(i, id);
        }
    }
}

/// Decorates the filled blocks of chunk `pos` (column heightmap `hm`, plan
/// `deco`), keeping `counts` right.
pub fn apply(
    p: &WorldParams,
    pos: crate::world::coords::ChunkPos,
    hm: &Heightmap,
    deco: &ColumnDecorations,
    bytes: &mut [u8],
    counts: &mut [u32; MAX_BLOCK_TYPES],
) {
    let y0 = pos.y as i64 * CHUNK_SIZE_I64;
    let y1 = y0 + CHUNK_SIZE_I64;
    let mut t = Target { p, hm, y0, bytes, counts };
    if p.plant_reach > 0 && (hm.max_height as i64 + 1) >= y0 && (hm.min_height as i64 + 1) < y1 {
        let (x0, z0) = (pos.x as i64 * CHUNK_SIZE_I64, pos.z as i64 * CHUNK_SIZE_I64);
        for z in 0..CHUNK_SIZE {
            for x in 0..CHUNK_SIZE {
                let c = column_index(x, z);
                let y = hm.heights[c] as i64 + 1;
                if (y0..y1).contains(&y) {
                    let plant = plant_at(p, x0 + x as i64, z0 + z as i64, hm.heights[c], hm.biomes[c] as usize);
                    t.claim(x as i32, y, z as i32, plant);
                }
            }
        }
    }
    let reach = p.tree_reach;
    for tree in &deco.trees {
        let Some(kind) = p.tree_kinds.get(tree.kind as usize) else { continue };
        let (lo, hi) = (tree.base as i64 - 1, tree_top(p, tree) as i64);
        if hi < y0 || lo >= y1 {
            continue;
        }
        let in_column = (0..CHUNK_SIZE as i32).contains(&tree.x) && (0..CHUNK_SIZE as i32).contains(&tree.z);
        if in_column && (y0..y1).contains(&lo) {
            let i = Target::index(tree.x, lo - y0, tree.z);
            t.set(i, p.trunk_soil_block);
        }
        for y in (lo + 1).max(y0)..=hi.min(y1 - 1) {
            let dy = (y - tree.base as i64) as i32;
            for dz in -reach..=reach {
                for dx in -reach..=reach {
                    let id = tree_block_at(kind, tree.trunk as i32, dx, dy, dz);
                    t.claim(tree.x + dx, y, tree.z + dz, id);
                }
            }
        }
    }
}
