//! The decoration stage: trees, rocks, flowers and grass on the filled terrain,
//! placed by [`super::placement`] from the preset's `decorations`.
//! CUDA twins: `kernels/decorate.cu` (the tree plan of a chunk column, see
//! [`plan`]) and the decoration part of `kernels/fill.cu` (see [`apply`]).
//!
//! * **Trees** stand on one candidate grid (`tree_spacing`). A chunk
//!   column's plan lists every tree whose canopy can reach into it, from
//!   candidates up to `trees.reach` blocks beyond its border. A tree's base
//!   is one above the smoothed surface of its own column, sampled exactly as
//!   the heightmap computes it, so the neighbour that holds the trunk and
//!   the one that holds a branch agree on where the tree stands.
//! * **Plants** use spacing 1: every surface column is a candidate, settled
//!   once per chunk column in its plan. A layer's chance may follow a
//!   density map (flower meadows). A plant layer may name a window of surface heights over the water level
//!   (`above_water`): reeds on the shore, lily pads on shallow water, where
//!   they stand on the water's surface.
//! * **Rules:** nothing grows outside its layer's window (trees, rocks and
//!   plants without one: anywhere dry), on a surface block the kind does
//!   not list (`on`: snow, sand…), or, for trees, on a slope steeper than
//!   `tree_max_slope`. The surface block under a trunk becomes `trunk_soil`.
//! * **Rocks** stand on a grid of their own (`rock_spacing`, another seed):
//!   an ellipsoid centred on the surface, so half of it is sunk, stretched
//!   or not and sized by the candidate's hash, its upper surface of the
//!   kind's `top` block; or, for a kind of form `Log`, a fallen log lying
//!   on the ground along x or z. The rules are as for trees, with a slope
//!   limit per kind.
//! * **Overlaps** are settled without regard to order. Between objects of
//!   different footprints: a rock yields to any tree the rules accept whose
//!   trunk is inside its footprint or beside it, and trees never look at
//!   rocks, so no decision feeds back ([`rock_yields`]). Per block: a
//!   decoration only fills blocks the terrain left as air, and where two
//!   claim one block the higher (priority, id) wins (trunks, then rocks,
//!   then leaves, then plants).

use super::canvas::Canvas;
use super::heightmap::{sample_points, smoothed, Apron, Heightmap, Lanes};
use super::params::{scaled_density, FlatDensityMap, FlatLayer, FlatRock, FlatTree, WorldParams, FORM_LOG};
use super::patches::PendingPatches;
use super::placement::{candidate, layer_of, unit_squares, Candidate};
use super::preset::{MAX_BIOMES, MAX_BIOME_LAYERS, MAX_SHORE_REACH, MAX_TREE_KINDS};
use super::NoiseProgram;
use crate::world::block::MAX_BLOCK_TYPES;
use crate::world::coords::{column_index, ColumnPos, CHUNK_SIZE, CHUNK_SIZE_I64};

/// One tree or rock of a chunk column's plan. Twin: `PlacedObject` in
/// kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PlacedObject {
    /// Trunk or centre column relative to the chunk column's corner block
    /// (may lie outside 0..32 by up to the reach).
    pub x: i32,
    pub z: i32,
    /// Trees: world height of the lowest log, one above the surface.
    /// Rocks: world height of the centre, the surface itself.
    pub base: i32,
    /// A tree kind, or [`ROCK_KIND`] + a rock kind.
    pub kind: u32,
    /// Trees: the shape word ([`tree_shape`]). Rocks: the radii,
    /// x | y << 8 | z << 16.
    pub shape: u32,
}

/// `PlacedObject::kind` of the first rock kind: tree kinds lie below it.
pub const ROCK_KIND: u32 = MAX_TREE_KINDS as u32;

impl PlacedObject {
    /// The rock kind, if this is a rock.
    pub fn rock(&self) -> Option<usize> {
        self.kind.checked_sub(ROCK_KIND).map(|k| k as usize)
    }
}

/// A rock's radii (x, y, z) from its shape word.
#[inline]
pub fn rock_radii(shape: u32) -> (i32, i32, i32) {
    ((shape & 255) as i32, (shape >> 8 & 255) as i32, (shape >> 16 & 255) as i32)
}

/// "No tree": below every height.
pub const NO_TREE_TOP: i32 = i32::MIN;

/// The plant of one column of a chunk column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacedPlant {
    pub x: u8,
    pub z: u8,
    pub block: u8,
}

/// The trees and rocks that reach into one chunk column, and its plants.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnDecorations {
    pub trees: Vec<PlacedObject>,
    /// The highest block any of them places, or [`NO_TREE_TOP`].
    pub tree_top: i32,
    /// The column's plants, settled once for every chunk of the column
    /// (a plant's density map costs a noise evaluation).
    pub plants: Vec<PlacedPlant>,
}

impl ColumnDecorations {
    pub fn none() -> Self {
        Self { trees: Vec::new(), tree_top: NO_TREE_TOP, plants: Vec::new() }
    }
}

/// The highest block a column's decorations can occupy, given its highest
/// surface: trees, and plants one above the surface or the water.
pub fn decoration_top(p: &WorldParams, max_height: i32, tree_top: i32) -> i32 {
    let plants_on = if p.deco.plants.reach > 0 { max_height.max(p.surface.water_level) } else { max_height };
    tree_top.max(plants_on.saturating_add(p.deco.plants.reach))
}

/// The highest block of a tree or rock.
pub fn tree_top(p: &WorldParams, t: &PlacedObject) -> i32 {
    if t.rock().is_some() {
        return t.base + rock_radii(t.shape).1;
    }
    let crown = p.deco.trees.kinds.get(t.kind as usize).map_or(0, |k| k.crown);
    t.base + trunk_height(t.shape) - 1 + crown
}

/// Whether (dx, dy, dz) from a rock's centre lies in its ellipsoid of radii
/// `r`: each radius grown by half a block, in integers.
#[inline]
fn in_rock(r: (i32, i32, i32), dx: i32, dy: i32, dz: i32) -> bool {
    let (a, b, c) = ((2 * r.0 + 1).pow(2), (2 * r.1 + 1).pow(2), (2 * r.2 + 1).pow(2));
    4 * (dx * dx * b * c + dy * dy * a * c + dz * dz * a * b) <= a * b * c
}

/// What a rock places at (dx, dy, dz) from its centre: its top block where
/// the block above lies outside it, its block elsewhere inside, 0 outside.
/// A log is its row: `block` along x, `along_z_block` along z.
#[inline]
pub fn rock_block_at(rock: &FlatRock, shape: u32, dx: i32, dy: i32, dz: i32) -> u32 {
    let r = rock_radii(shape);
    if rock.form == FORM_LOG {
        let on_row = dy == 0 && dx.abs() <= r.0 && dz.abs() <= r.2;
        return match (on_row, r.2 > r.0) {
            (false, _) => 0,
            (true, false) => rock.block,
            (true, true) => rock.along_z_block,
        };
    }
    if !in_rock(r, dx, dy, dz) {
        0
    } else if in_rock(r, dx, dy + 1, dz) {
        rock.block
    } else {
        rock.top_block
    }
}

/// A tree's shape word: its trunk height, and the variant its candidate's
/// hash picks: whether the crown above the top log leans a block, which
/// way (a rotation of one asymmetric shape), and whether the crown is slim
/// (the layers of radius 2 or more one smaller).
pub fn tree_shape(trunk: u32, variant: u64) -> u32 {
    let bits = (variant >> 48) as u32;
    let (lean, dir, slim) = (bits & 1, bits >> 1 & 3, (bits >> 3 & 3 == 0) as u32);
    trunk | dir << 8 | lean << 10 | slim << 11
}

/// The trunk height of a tree's shape word.
#[inline]
pub fn trunk_height(shape: u32) -> i32 {
    (shape & 255) as i32
}

/// The offset of a leaning crown's layers, (0, 0) when it stands straight.
#[inline]
fn lean_offset(shape: u32) -> (i32, i32) {
    if shape >> 10 & 1 == 0 {
        return (0, 0);
    }
    [(1, 0), (0, 1), (-1, 0), (0, -1)][(shape >> 8 & 3) as usize]
}

/// What a tree of shape word `shape` places at (dx, dy, dz) from its
/// lowest log; 0 (air) for nothing.
#[inline]
pub fn tree_block_at(kind: &FlatTree, shape: u32, dx: i32, dy: i32, dz: i32) -> u32 {
    let trunk = trunk_height(shape);
    if dx == 0 && dz == 0 && (0..trunk).contains(&dy) {
        return kind.trunk_block;
    }
    let above_top = dy - (trunk - 1);
    let (ox, oz) = lean_offset(shape);
    let slim = shape >> 11 & 1 == 1;
    for l in &kind.layers[..(kind.layer_count as usize).min(kind.layers.len())] {
        let (ax, az) = if l.lean != 0 { ((dx - ox).abs(), (dz - oz).abs()) } else { (dx.abs(), dz.abs()) };
        let r = if slim && l.radius >= 2 { l.radius - 1 } else { l.radius };
        let corner = l.round != 0 && r > 0 && ax == r && az == r;
        if above_top == l.dy && ax <= r && az <= r && !corner {
            return kind.leaves_block;
        }
    }
    0
}

/// The terrain's top block over a column of height `h` and biome `b`.
#[inline]
fn surface_block(p: &WorldParams, h: i32, b: usize) -> u32 {
    if h > p.surface.snow_above {
        p.surface.snow_block
    } else {
        p.surface.top[b]
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
    footing_of([a, b, c, d], biome[4], program.tree_density_factor(p, biome[4] as usize, x as f32, z as f32))
}

/// [`footing`] of each column in `cols`, five samples each (the four
/// diagonal neighbours and the column), packed eight lanes a call where
/// [`footing`] takes a call per column: the same bits, lane by lane, with
/// column `i`'s tree density `density(i, biome)`.
#[cfg(test)]
fn footings(
    program: &NoiseProgram,
    p: &WorldParams,
    lanes: Lanes,
    cols: &[(i64, i64)],
    density: impl Fn(usize, u8) -> f32,
) -> Vec<Footing> {
    let mut taps = Taps::default();
    footing_taps(cols, None, &mut taps);
    let (h_b, biome) = taps.sample(program, p, lanes);
    footings_of(&h_b, &biome, cols, density)
}

/// The five samples of each footing of `cols`, appended to `taps`; those
/// the `apron` holds are read from it.
fn footing_taps(cols: &[(i64, i64)], apron: Option<&Apron>, taps: &mut Taps) {
    const TAPS: [(i64, i64); 5] = [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)];
    for &(x, z) in cols {
        for (dx, dz) in TAPS {
            match apron.and_then(|a| a.sample(x + dx, z + dz)) {
                Some(read) => taps.read(read),
                None => taps.push(x + dx, z + dz),
            }
        }
    }
}

/// The footings of `cols` from their samples ([`footing_taps`]).
fn footings_of(h_b: &[f32], biome: &[u8], cols: &[(i64, i64)], density: impl Fn(usize, u8) -> f32) -> Vec<Footing> {
    (0..cols.len())
        .map(|i| {
            let h = [0, 1, 2, 3].map(|t| h_b[5 * i + t]);
            let b = biome[5 * i + 4];
            footing_of(h, b, density(i, b))
        })
        .collect()
}

/// Columns to sample together, eight lanes a call: gathering every sample
/// a plan needs into one list leaves one part-filled call, not one per
/// kind of object. A tap whose value is already at hand (in the apron)
/// keeps its place in the list without being sampled.
#[derive(Default)]
struct Taps {
    xs: Vec<f32>,
    zs: Vec<f32>,
    /// Per tap, its lane among `xs`, or its value where it was at hand.
    taps: Vec<Result<usize, (f32, u8)>>,
}

impl Taps {
    /// Room for `n` taps, so that a plan's list grows without copying.
    fn with_capacity(n: usize) -> Taps {
        Taps { xs: Vec::with_capacity(n), zs: Vec::with_capacity(n), taps: Vec::with_capacity(n) }
    }

    fn push(&mut self, x: i64, z: i64) {
        self.taps.push(Ok(self.xs.len()));
        self.xs.push(x as f32);
        self.zs.push(z as f32);
    }

    /// A tap whose `h_b` and biome are at hand.
    fn read(&mut self, value: (f32, u8)) {
        self.taps.push(Err(value));
    }

    fn len(&self) -> usize {
        self.taps.len()
    }

    /// `h_b` and the biome at every tap, in order.
    fn sample(mut self, program: &NoiseProgram, p: &WorldParams, lanes: Lanes) -> (Vec<f32>, Vec<u8>) {
        let n = self.xs.len().div_ceil(8) * 8;
        self.xs.resize(n, self.xs.last().copied().unwrap_or(0.0));
        self.zs.resize(n, self.zs.last().copied().unwrap_or(0.0));
        let (mut h_b, mut biome) = (vec![0.0f32; n], vec![0u8; n]);
        sample_points(program, p, lanes, &self.xs, &self.zs, &mut h_b, &mut biome);
        self.taps.iter().map(|t| t.map_or_else(|read| read, |lane| (h_b[lane], biome[lane]))).unzip()
    }
}

/// Whether a column (rx, rz), relative to a chunk column's corner, lies inside it.
#[inline]
fn inside_column(rx: i64, rz: i64) -> bool {
    (0..CHUNK_SIZE_I64).contains(&rx) && (0..CHUNK_SIZE_I64).contains(&rz)
}

/// The distinct nodes with a program that `maps` read, in the order first
/// read (a map without one has factor 1 and needs no value).
fn map_nodes<const N: usize>(program: &NoiseProgram, maps: &[FlatDensityMap]) -> ([u32; N], usize) {
    let mut nodes = ([0u32; N], 0usize);
    for map in maps {
        if program.has_map(map.node) && !nodes.0[..nodes.1].contains(&map.node) {
            nodes.0[nodes.1] = map.node;
            nodes.1 += 1;
        }
    }
    nodes
}

/// The tree density maps at a plan's candidates: each distinct node that
/// a biome's map reads, evaluated once per candidate that may need it and
/// eight candidates a call where the CPU allows, which gives the bits
/// [`NoiseProgram::tree_density_factor`] reads a call per candidate.
struct TreeMaps<'a> {
    program: &'a NoiseProgram,
    /// The distinct nodes with a program that the biomes' tree maps read.
    nodes: ([u32; MAX_BIOMES], usize),
    at: Vec<(i64, i64)>,
    /// Per candidate, its first value in `values` (one per node, in
    /// `nodes` order), or None where it was not evaluated.
    first: Vec<Option<u32>>,
    values: Vec<f32>,
}

impl<'a> TreeMaps<'a> {
    /// The maps at `at`, evaluated where `needed` says a candidate may read one.
    fn new(ground: &Ground<'a>, at: Vec<(i64, i64)>, needed: impl Fn(usize) -> bool) -> TreeMaps<'a> {
        let (program, p) = (ground.program, ground.params);
        let nodes: ([u32; MAX_BIOMES], usize) = map_nodes(program, &p.deco.trees.biome_map);
        let n = nodes.1;
        let mut first = vec![None; at.len()];
        let (mut xs, mut zs) = (Vec::new(), Vec::new());
        if n > 0 {
            for (k, &(x, z)) in at.iter().enumerate().filter(|&(k, _)| needed(k)) {
                first[k] = Some((xs.len() * n) as u32);
                xs.push(x as f32);
                zs.push(z as f32);
            }
        }
        let mut values = vec![0.0f32; xs.len() * n];
        let mut out = vec![0.0f32; xs.len()];
        for (slot, &node) in nodes.0[..n].iter().enumerate() {
            program.map_values(node, ground.lanes, &xs, &zs, &mut out);
            for (i, &v) in out.iter().enumerate() {
                values[i * n + slot] = v;
            }
        }
        TreeMaps { program, nodes, at, first, values }
    }

    /// Biome `b`'s tree density factor at candidate `k`.
    fn factor(&self, p: &WorldParams, b: usize, k: usize) -> f32 {
        let Some(map) = p.deco.trees.biome_map.get(b) else { return 1.0 };
        let (nodes, n) = self.nodes;
        match (nodes[..n].iter().position(|&node| node == map.node), self.first[k]) {
            (Some(slot), Some(first)) => map.factor(self.values[first as usize + slot]),
            // Not evaluated ahead: asked alone, with the same bits.
            (Some(_), None) => self.program.density_factor(map, self.at[k].0 as f32, self.at[k].1 as f32),
            (None, _) => 1.0,
        }
    }
}

/// The footing over the four diagonal samples `h` (in the heightmap's
/// order), in biome `biome`, under tree density `density`.
#[inline]
fn footing_of(h: [f32; 4], biome: u8, density: f32) -> Footing {
    let [a, b, c, d] = h;
    let slope = a.max(b).max(c).max(d) - a.min(b).min(c).min(d);
    Footing { height: smoothed(a, b, c, d), biome: biome as u32, slope, density }
}

/// Where a plan finds the ground under its candidates: inside its chunk
/// column, the heightmap and the apron it was smoothed from; elsewhere,
/// sampled. Both give the same bits, since the apron holds the very
/// samples a footing would take.
#[derive(Clone, Copy)]
pub struct Ground<'a> {
    pub program: &'a NoiseProgram,
    pub params: &'a WorldParams,
    pub lanes: Lanes,
    /// The chunk column's heightmap and apron, when at hand.
    pub column: Option<(&'a Heightmap, &'a Apron)>,
}

impl Ground<'_> {
    /// The footing of column (x, z), read or sampled.
    pub fn footing(&self, x: i64, z: i64) -> Footing {
        let (p, program) = (self.params, self.program);
        self.read(x, z, |b| program.tree_density_factor(p, b as usize, x as f32, z as f32))
            .unwrap_or_else(|| footing(program, p, self.lanes, x, z))
    }

    /// The footing of column (x, z) from the heightmap and apron, with the
    /// tree density `density(biome)`, if the column lies inside.
    fn read(&self, x: i64, z: i64, density: impl FnOnce(u8) -> f32) -> Option<Footing> {
        let (hm, apron) = self.column?;
        let col = apron.column();
        let (rx, rz) = (x - col.x as i64 * CHUNK_SIZE_I64, z - col.z as i64 * CHUNK_SIZE_I64);
        if !inside_column(rx, rz) {
            return None;
        }
        let h = [(x - 1, z - 1), (x + 1, z - 1), (x - 1, z + 1), (x + 1, z + 1)].map(|(x, z)| apron.at(x, z));
        let [Some(a), Some(b), Some(c), Some(d)] = h else { return None };
        let biome = hm.biomes[column_index(rx as usize, rz as usize)];
        Some(footing_of([a, b, c, d], biome, density(biome)))
    }
}

/// The heights of two columns as [`footing`] gives them, from their four
/// diagonal samples each: the eight lanes of one sample, without the
/// centres' biomes or the density map that a footing also reads.
pub fn footing_heights(program: &NoiseProgram, p: &WorldParams, lanes: Lanes, cols: [(i64, i64); 2]) -> [i32; 2] {
    let [(x0, z0), (x1, z1)] = cols;
    let xs = [x0 - 1, x0 + 1, x0 - 1, x0 + 1, x1 - 1, x1 + 1, x1 - 1, x1 + 1].map(|v| v as f32);
    let zs = [z0 - 1, z0 - 1, z0 + 1, z0 + 1, z1 - 1, z1 - 1, z1 + 1, z1 + 1].map(|v| v as f32);
    let (mut h, mut biome) = ([0.0f32; 8], [0u8; 8]);
    sample_points(program, p, lanes, &xs, &zs, &mut h, &mut biome);
    [0, 4].map(|i| ((((h[i] + h[i + 1]) + h[i + 2]) + h[i + 3]) * 0.25) as i32)
}

/// The most biome `b`'s tree density map can scale its layers by (a
/// factor never exceeds its map's `max`, and is 1 without a map).
#[inline]
fn tree_factor_bound(p: &WorldParams, b: usize) -> f32 {
    p.deco.trees.biome_map[b].max.max(1.0)
}

/// Whether biome `b` may take a tree at `threshold` at any factor its map
/// gives: the layers' sum only grows with the factor, so where it does
/// not exceed the threshold at the bound, it does nowhere.
#[inline]
fn tree_layer_may(p: &WorldParams, b: usize, threshold: u32) -> bool {
    tree_layer(p, b, threshold, tree_factor_bound(p, b)).is_some()
}

/// The tree kind layer a candidate threshold selects in biome `b`, its
/// densities scaled by `factor`, if any.
#[inline]
fn tree_layer(p: &WorldParams, b: usize, threshold: u32, factor: f32) -> Option<usize> {
    let n = p.deco.trees.biome_count[b] as usize;
    layer_of(threshold, p.deco.trees.biome_layers[b][..n].iter().map(|l| scaled_density(l.density, factor)))
}

/// Whether `layer` grows over a surface of height `h` and biome `b`: within
/// its window of heights over the water (dry for trees and rocks), on a
/// surface block it lists.
#[inline]
pub(crate) fn surface_allows(p: &WorldParams, layer: &FlatLayer, h: i32, b: usize) -> bool {
    layer.takes_height(h, p.surface.water_level) && layer.on_mask >> (surface_block(p, h, b) & 31) & 1 == 1
}

/// Whether an object of `layer` may stand on footing `f` in biome `b`: on a
/// surface the layer takes, and no steeper than `max_slope`.
#[inline]
fn footing_allows(p: &WorldParams, layer: &FlatLayer, f: Footing, b: usize, max_slope: f32) -> bool {
    surface_allows(p, layer, f.height, b) && f.slope <= max_slope
}

/// The tree growing at a candidate, if the rules allow it: its kind and shape word.
pub fn tree_at(p: &WorldParams, threshold: u32, variant: u64, f: Footing) -> Option<(u32, u32)> {
    let b = f.biome as usize;
    let layer = p.deco.trees.biome_layers[b][tree_layer(p, b, threshold, f.density)?];
    let kind = p.deco.trees.kinds.get(layer.what as usize)?;
    if !footing_allows(p, &layer, f, b, p.deco.trees.max_slope) {
        return None;
    }
    let trunk = kind.trunk_min + (variant % (kind.trunk_span as u64 + 1)) as u32;
    Some((layer.what, tree_shape(trunk, variant)))
}

/// The tree standing at a tree candidate, if any: its footing, kind and shape word.
pub fn accepted_tree(
    program: &NoiseProgram,
    p: &WorldParams,
    lanes: Lanes,
    c: Candidate,
) -> Option<(Footing, u32, u32)> {
    accepted_tree_on(&Ground { program, params: p, lanes, column: None }, c)
}

/// [`accepted_tree`] on `ground`.
fn accepted_tree_on(ground: &Ground, c: Candidate) -> Option<(Footing, u32, u32)> {
    if !may_take_tree(ground, c) {
        return None;
    }
    let f = ground.footing(c.x, c.z);
    tree_at(ground.params, c.threshold, c.variant, f).map(|(kind, shape)| (f, kind, shape))
}

/// Whether a tree may grow at candidate `c`, before its footing is known.
fn may_take_tree(ground: &Ground, c: Candidate) -> bool {
    let p = ground.params;
    c.threshold < p.deco.trees.max_density && some_biome_takes(ground.program, p, c)
}

/// Whether the tree layers of some biome, scaled by its density map at the
/// candidate, take the candidate's threshold. [`tree_at`] asks the same of
/// the one biome the footing finds, so where no biome takes it no tree
/// grows, and the footing's eight columns need not be sampled: in a
/// clearing most candidates end here for the price of one node's noise.
fn some_biome_takes(program: &NoiseProgram, p: &WorldParams, c: Candidate) -> bool {
    // Maps that read one node share its value.
    let mut seen: Option<(u32, f32)> = None;
    some_biome_takes_given(p, c.threshold, |b| {
        program.density_factor_sharing(&p.deco.trees.biome_map[b], c.x as f32, c.z as f32, &mut seen)
    })
}

/// [`some_biome_takes`] given each biome's density factor at the candidate.
fn some_biome_takes_given(p: &WorldParams, threshold: u32, mut factor: impl FnMut(usize) -> f32) -> bool {
    let t = &p.deco.trees;
    (0..t.biome_count.len()).any(|b| t.biome_count[b] != 0 && tree_layer(p, b, threshold, factor(b)).is_some())
}

/// The rock layer a candidate threshold selects in biome `b`, if any.
#[inline]
fn rock_layer(p: &WorldParams, b: usize, threshold: u32) -> Option<FlatLayer> {
    let layers = &p.deco.rocks.biome_layers[b];
    let n = (p.deco.rocks.biome_count[b] as usize).min(layers.len());
    layer_of(threshold, layers[..n].iter().map(|l| l.density)).map(|l| layers[l])
}

/// The rock lying at a rock candidate, if the rules allow it: its kind and shape.
pub fn rock_at(p: &WorldParams, threshold: u32, variant: u64, f: Footing) -> Option<(u32, u32)> {
    let b = f.biome as usize;
    let layer = rock_layer(p, b, threshold)?;
    let rock = p.deco.rocks.kinds.get(layer.what as usize)?;
    if !footing_allows(p, &layer, f, b, rock.max_slope) {
        return None;
    }
    Some((layer.what, rock_shape(rock, variant)))
}

/// The shape word of a rock of kind `rock` whose candidate hashed
/// `variant`: its radius, and which way it stretches, rises or lies.
pub fn rock_shape(rock: &FlatRock, variant: u64) -> u32 {
    let r = rock.radius_min + (variant % (rock.radius_span as u64 + 1)) as u32;
    if rock.form == FORM_LOG {
        // Along x or along z, from another bit of the hash.
        return if variant >> 32 & 1 == 0 { r } else { r << 16 };
    }
    // Stretched along x, along z, or round, and one block taller or not,
    // from other bits of the hash.
    let (rx, rz) = match (variant >> 32) % 3 {
        0 => (r, r),
        1 => (r + 1, r),
        _ => (r, r + 1),
    };
    let ry = r + (variant >> 40 & 1) as u32;
    rx | ry << 8 | rz << 16
}

/// Whether a rock candidate at (rx, rz) from a chunk column's corner may
/// reach into the column: some kind that some biome's layers give its
/// threshold, in the shape its hash gives, spans the way in along both
/// axes. A candidate that cannot is left out of the column's plan before
/// its footing is sampled; the kernel leaves out the same ones.
pub fn rock_may_reach(p: &WorldParams, c: &Candidate, rx: i64, rz: i64) -> bool {
    let way_in = |r: i64| (-r).max(r - (CHUNK_SIZE_I64 - 1)).max(0);
    let (dx, dz) = (way_in(rx), way_in(rz));
    if dx == 0 && dz == 0 {
        return true;
    }
    // The kinds the biomes' layers give the threshold, each shaped once.
    let rocks = &p.deco.rocks;
    let mut kinds = 0u32;
    for b in 0..rocks.biome_count.len() {
        if let Some(layer) = rock_layer(p, b, c.threshold) {
            kinds |= 1 << layer.what.min(31);
        }
    }
    rocks.kinds.iter().enumerate().filter(|&(k, _)| kinds >> k & 1 != 0).any(|(_, rock)| {
        let (ex, _, ez) = rock_radii(rock_shape(rock, c.variant));
        ex as i64 >= dx && ez as i64 >= dz
    })
}

/// A rock's centre height over a surface of height `h`: the surface itself
/// (half sunk), or the block above it for a log lying on the ground.
#[inline]
pub fn rock_base(p: &WorldParams, kind: u32, h: i32) -> i32 {
    let log = p.deco.rocks.kinds.get(kind as usize).is_some_and(|r| r.form == FORM_LOG);
    h + log as i32
}

/// Whether a rock centred on (x, z) with radii `r` yields to a tree: some
/// tree candidate the rules accept has its trunk within the rock's
/// footprint or beside it. Trees never look at rocks, so what a rock
/// decides never changes what another object decides: the outcome does not
/// depend on the order anything is planned in.
pub fn rock_yields(program: &NoiseProgram, p: &WorldParams, lanes: Lanes, x: i64, z: i64, r: (i32, i32, i32)) -> bool {
    rock_yields_given(&Ground { program, params: p, lanes, column: None }, x, z, r, &[])
}

/// [`rock_yields`], taking the outcome of tree candidates already settled
/// (their column, and whether a tree grows there) from `known`.
fn rock_yields_given(ground: &Ground, x: i64, z: i64, r: (i32, i32, i32), known: &[([i64; 2], bool)]) -> bool {
    let p = ground.params;
    if p.deco.trees.unit <= 0 {
        return false;
    }
    let (reach_x, reach_z) = (r.0 as i64 + 1, r.2 as i64 + 1);
    let unit = p.deco.trees.unit as i64;
    let seed = p.deco.seed();
    for gz in unit_squares(unit, z - reach_z, z + reach_z + 1) {
        for gx in unit_squares(unit, x - reach_x, x + reach_x + 1) {
            let c = candidate(&p.deco.pattern, &p.deco.bayer, seed, unit, gx, gz);
            if (c.x - x).abs() > reach_x || (c.z - z).abs() > reach_z || c.threshold >= p.deco.trees.max_density {
                continue;
            }
            let grows = match known.iter().find(|(at, _)| *at == [c.x, c.z]) {
                Some(&(_, grows)) => grows,
                None => accepted_tree_on(ground, c).is_some(),
            };
            if grows {
                return true;
            }
        }
    }
    false
}

/// The candidates of one grid (spacing `unit`, hashed from `seed`) whose
/// columns lie within `reach` blocks of chunk column `col` and whose
/// threshold lies below `max_density`, each with its column relative to the
/// chunk column's corner.
fn near_column(
    p: &WorldParams,
    col: ColumnPos,
    unit: i64,
    reach: i64,
    seed: u64,
    max_density: u32,
) -> impl Iterator<Item = (Candidate, i64, i64)> + '_ {
    let (x0, z0) = (col.x as i64 * CHUNK_SIZE_I64, col.z as i64 * CHUNK_SIZE_I64);
    let (lo, hi) = (-reach, CHUNK_SIZE_I64 + reach);
    unit_squares(unit, z0 + lo, z0 + hi)
        .flat_map(move |gz| unit_squares(unit, x0 + lo, x0 + hi).map(move |gx| (gx, gz)))
        .filter_map(move |(gx, gz)| {
            let c = candidate(&p.deco.pattern, &p.deco.bayer, seed, unit, gx, gz);
            let (rx, rz) = (c.x - x0, c.z - z0);
            let near = (lo..hi).contains(&rx) && (lo..hi).contains(&rz);
            (near && c.threshold < max_density).then_some((c, rx, rz))
        })
}

/// The rock candidates of [`plan`] within `rocks.reach` blocks of its
/// chunk column that its biome does not rule out, with their footings
/// where the column holds them; the rest wait for the plan's one batch.
struct PendingRocks {
    near: Vec<(Candidate, i64, i64)>,
    read: Vec<Option<Footing>>,
}

impl PendingRocks {
    fn new(ground: &Ground, col: ColumnPos, hm: &Heightmap) -> PendingRocks {
        let p = ground.params;
        if p.deco.rocks.unit <= 0 {
            return PendingRocks { near: Vec::new(), read: Vec::new() };
        }
        let (unit, reach) = (p.deco.rocks.unit as i64, p.deco.rocks.reach as i64);
        // Inside the column its own biome settles the threshold before the
        // footing's columns are read.
        let near: Vec<_> = near_column(p, col, unit, reach, p.deco.rocks.seed(), p.deco.rocks.max_density)
            .filter(|&(c, rx, rz)| {
                if !inside_column(rx, rz) {
                    return rock_may_reach(p, &c, rx, rz);
                }
                let b = hm.biomes[column_index(rx as usize, rz as usize)] as usize;
                rock_layer(p, b, c.threshold).is_some()
            })
            .collect();
        // Rocks read no density map: their footings' factor stays 1.
        let read = near.iter().map(|(c, _, _)| ground.read(c.x, c.z, |_| 1.0)).collect();
        PendingRocks { near, read }
    }

    /// The columns whose footings are to be sampled.
    fn columns(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.near.iter().zip(&self.read).filter(|(_, f)| f.is_none()).map(|((c, _, _), _)| (c.x, c.z))
    }

    /// The rocks, given the sampled footings in [`Self::columns`] order,
    /// less those that yield to a tree; `known` holds the tree candidates
    /// the column's tree plan settled.
    fn finish(self, ground: &Ground, sampled: &[Footing], known: &[([i64; 2], bool)], out: &mut ColumnDecorations) {
        let p = ground.params;
        let mut sampled = sampled.iter().copied();
        for (&(c, rx, rz), f) in self.near.iter().zip(self.read) {
            let Some(f) = f.or_else(|| sampled.next()) else { continue };
            let Some((kind, shape)) = rock_at(p, c.threshold, c.variant, f) else { continue };
            if rock_yields_given(ground, c.x, c.z, rock_radii(shape), known) {
                continue;
            }
            let t = PlacedObject {
                x: rx as i32,
                z: rz as i32,
                base: rock_base(p, kind, f.height),
                kind: ROCK_KIND + kind,
                shape,
            };
            out.tree_top = out.tree_top.max(tree_top(p, &t));
            out.trees.push(t);
        }
    }
}

/// The trees and rocks that reach into chunk column `col`: every accepted
/// tree candidate within `deco.trees.reach` blocks of it, and every
/// accepted rock candidate within `deco.rocks.reach` that
/// [`rock_may_reach`] keeps. `hm` is the
/// column's own heightmap: it settles the biome of tree candidates inside
/// the column without sampling. With the `apron` it was smoothed from,
/// footings inside the column and shore heights just beyond it are read
/// rather than sampled; the plan is the same either way.
pub fn plan(
    program: &NoiseProgram,
    p: &WorldParams,
    col: ColumnPos,
    hm: &Heightmap,
    apron: Option<&Apron>,
    lanes: Lanes,
) -> ColumnDecorations {
    let ground = Ground { program, params: p, lanes, column: apron.filter(|a| a.column() == col).map(|a| (hm, a)) };
    let mut out = ColumnDecorations::none();
    // Trees, rocks and plants settle what the column decides, then sample
    // what they still need in one batch: one part-filled call, not three.
    let (trees, rocks) = (PendingTrees::new(&ground, col, hm), PendingRocks::new(&ground, col, hm));
    let mut plants = (p.deco.plants.reach > 0).then(|| PendingPlants::new(&ground, col, hm, &mut out));
    let patches = PendingPatches::new(program, p, col, hm);
    let patch_cols = patches.as_ref().map_or(&[][..], |c| c.columns());
    let cols: Vec<_> = trees.columns().chain(rocks.columns()).chain(patch_cols.iter().copied()).collect();
    // Room for the footings and a shore ring's usual share.
    let mut taps = Taps::with_capacity(5 * cols.len() + RING_TAPS_HINT);
    footing_taps(&cols, ground.column.map(|(_, a)| a), &mut taps);
    let ring_from = taps.len();
    if let Some(plants) = &mut plants {
        plants.ring.taps(&ground, &mut taps);
    }
    let (h_b, biome) = taps.sample(program, p, lanes);
    let n = trees.unsampled.len();
    let sampled = footings_of(&h_b, &biome, &cols, |i, b| if i < n { trees.density(p, i, b) } else { 1.0 });
    // Every tree candidate settled here, for the rocks' yielding.
    let mut known: Vec<([i64; 2], bool)> = Vec::with_capacity(trees.near.len());
    trees.finish(p, &sampled[..n], &mut known, &mut out);
    let from = cols.len() - patch_cols.len();
    rocks.finish(&ground, &sampled[n..from], &known, &mut out);
    if let Some(plants) = plants {
        plants.finish(p, col, hm, &h_b[ring_from..], &mut out);
    }
    if let Some(patches) = patches {
        patches.finish(program, p, hm, &sampled[from..], &mut out.plants);
    }
    out
}

/// The plants of [`plan`], in two passes. Most columns settle on the
/// heightmap alone; those a shore reach leaves undecided note the columns
/// beyond the chunk column they need ([`ShoreRing`]), which are sampled in
/// the plan's batch, and only those columns are settled again.
struct PendingPlants<'a> {
    maps: PlantMaps,
    ring: ShoreRing<'a>,
    undecided: Vec<usize>,
}

/// Adds the plant `block` of column `i` (0: none) to the plan.
fn place_plant(out: &mut ColumnDecorations, (block, i): (u32, usize)) {
    if block != 0 {
        let (x, z) = (i % CHUNK_SIZE, i / CHUNK_SIZE);
        out.plants.push(PlacedPlant { x: x as u8, z: z as u8, block: block as u8 });
    }
}

impl<'a> PendingPlants<'a> {
    /// The first pass: every plant the heightmap settles goes into `out`.
    fn new(ground: &Ground, col: ColumnPos, hm: &'a Heightmap, out: &mut ColumnDecorations) -> PendingPlants<'a> {
        let p = ground.params;
        let ring = ShoreRing::new(hm, col, p.surface.water_level);
        let mut undecided = Vec::new();
        let maps = PlantMaps::new(ground, col, hm);
        for k in 0..maps.growing.len() {
            let asked = ring.asked.borrow().len();
            let planted = maps.plant(p, col, hm, k, &ring);
            if ring.asked.borrow().len() > asked {
                undecided.push(k);
            } else {
                place_plant(out, planted);
            }
        }
        PendingPlants { maps, ring, undecided }
    }

    /// The second pass, given the values of the ring's taps.
    fn finish(mut self, p: &WorldParams, col: ColumnPos, hm: &Heightmap, h_b: &[f32], out: &mut ColumnDecorations) {
        if self.undecided.is_empty() {
            return;
        }
        self.ring.settle(h_b);
        let before = out.plants.len();
        for &k in &self.undecided {
            place_plant(out, self.maps.plant(p, col, hm, k, &self.ring));
        }
        if out.plants.len() > before {
            // The plan lists plants row by row, however they were settled.
            out.plants.sort_unstable_by_key(|pl| (pl.z, pl.x));
        }
    }
}

/// Columns a shore reach may look at beyond a chunk column: up to
/// [`MAX_SHORE_REACH`] on each side.
const RING_SIDE: usize = CHUNK_SIZE + 2 * MAX_SHORE_REACH as usize;
/// Their diagonal samples: one more on each side.
const RING_SAMPLES_SIDE: usize = RING_SIDE + 2;
/// Room a plan's list of taps keeps for a shore ring: about what a column
/// by the sea asks (a hint for the list's first size, not a limit).
const RING_TAPS_HINT: usize = 32;

/// The surface around a chunk column for [`PendingPlants`]: the heightmap
/// inside; beyond it, the columns plants have asked for, once sampled.
/// Asked together, neighbouring columns share their diagonal samples (a
/// column's four are each another column's too), and none is sampled
/// twice, where asking plant by plant sampled each column for every plant
/// that reached it.
struct ShoreRing<'a> {
    hm: &'a Heightmap,
    /// The world column of ring cell (0, 0).
    origin: (i64, i64),
    /// The columns asked for, in order, with their heights: empty until
    /// the ring is settled. A handful of columns, searched, where a grid
    /// of the whole ring cost more to clear than to search.
    heights: Vec<((i64, i64), i32)>,
    /// Columns beyond the heightmap that plants asked for and that were
    /// not sampled yet.
    asked: std::cell::RefCell<Vec<(i64, i64)>>,
    /// Their samples, once gathered.
    pending: Option<RingSamples>,
    /// Per row of the chunk column, a bit per column under the water line
    /// `water`: made on the first look, so that a shore reach inside the
    /// column is a few masks, not a column at a time.
    wet: std::cell::OnceCell<[u32; CHUNK_SIZE]>,
    water: i32,
}

// A row of the chunk column is one u32 of `ShoreRing::wet`.
const _: () = assert!(CHUNK_SIZE == 32);

impl<'a> ShoreRing<'a> {
    fn new(hm: &'a Heightmap, col: ColumnPos, water: i32) -> Self {
        let r = MAX_SHORE_REACH as i64;
        ShoreRing {
            hm,
            origin: (col.x as i64 * CHUNK_SIZE_I64 - r, col.z as i64 * CHUNK_SIZE_I64 - r),
            heights: Vec::new(),
            asked: Default::default(),
            pending: None,
            wet: Default::default(),
            water,
        }
    }

    /// [`Self::wet`], made if it was not.
    fn wet_rows(&self) -> &[u32; CHUNK_SIZE] {
        self.wet.get_or_init(|| {
            std::array::from_fn(|z| {
                let row = &self.hm.heights[column_index(0, z)..][..CHUNK_SIZE];
                row.iter().enumerate().fold(0u32, |m, (x, &h)| m | ((h < self.water) as u32) << x)
            })
        })
    }

    /// Whether the ring holds world column (x, z).
    fn holds(&self, x: i64, z: i64) -> bool {
        let (rx, rz) = (x - self.origin.0, z - self.origin.1);
        let side = 0..RING_SIDE as i64;
        side.contains(&rx) && side.contains(&rz)
    }

    /// The diagonal samples of every column asked for, each distinct one
    /// once, appended to `taps` where the apron does not hold them.
    fn taps(&mut self, ground: &Ground, taps: &mut Taps) {
        let mut asked = std::mem::take(self.asked.get_mut());
        if asked.is_empty() {
            return;
        }
        // Neighbouring plants ask for the same columns.
        asked.sort_unstable();
        asked.dedup();
        let mut slot = vec![0u16; RING_SAMPLES_SIDE * RING_SAMPLES_SIDE];
        let (mut values, mut lanes) = (Vec::new(), Vec::new());
        let apron = ground.column.map(|(_, a)| a);
        for &(x, z) in &asked {
            for d in ring_diagonals(x, z) {
                let at = self.sample_index(d);
                if slot[at] != 0 {
                    continue;
                }
                let read = apron.and_then(|a| a.at(d.0, d.1));
                if read.is_none() {
                    lanes.push(values.len());
                    taps.push(d.0, d.1);
                }
                values.push(read.unwrap_or(0.0));
                slot[at] = values.len() as u16;
            }
        }
        self.pending = Some(RingSamples { asked, slot, values, lanes });
    }

    /// Place of diagonal sample `d` in the ring's grid of samples.
    fn sample_index(&self, (x, z): (i64, i64)) -> usize {
        let (sx, sz) = (self.origin.0 - 1, self.origin.1 - 1);
        (z - sz) as usize * RING_SAMPLES_SIDE + (x - sx) as usize
    }

    /// Each asked column's height from its four samples as the heightmap
    /// smooths them, given the values of the taps in [`Self::taps`] order.
    fn settle(&mut self, h_b: &[f32]) {
        let Some(mut s) = self.pending.take() else { return };
        for (&v, &i) in h_b.iter().zip(&s.lanes) {
            s.values[i] = v;
        }
        // `asked` is sorted, and so is `heights`.
        self.heights = s
            .asked
            .iter()
            .map(|&(x, z)| {
                let [nw, ne, sw, se] =
                    ring_diagonals(x, z).map(|d| s.values[s.slot[self.sample_index(d)] as usize - 1]);
                ((x, z), smoothed(nw, ne, sw, se))
            })
            .collect();
    }
}

/// The four diagonal samples a column's height is smoothed from.
fn ring_diagonals(x: i64, z: i64) -> [(i64, i64); 4] {
    [(x - 1, z - 1), (x + 1, z - 1), (x - 1, z + 1), (x + 1, z + 1)]
}

/// The samples of a [`ShoreRing`] between gathering its taps and settling.
struct RingSamples {
    /// The columns asked for.
    asked: Vec<(i64, i64)>,
    /// Each diagonal sample's place in `values` plus one (0: not asked).
    slot: Vec<u16>,
    values: Vec<f32>,
    /// `lanes[i]`: the place in `values` of the `i`th tap.
    lanes: Vec<usize>,
}

impl ShoreHeights for ShoreRing<'_> {
    /// Inside the chunk column, a mask over each row of the window; beyond
    /// it, the columns settled so far, one at a time.
    fn across_at_hand(&self, x: i64, z: i64, d: i64, wet: bool, water: i32) -> (bool, bool) {
        debug_assert_eq!(water, self.water, "the ring's masks are of the plan's water line");
        let r = MAX_SHORE_REACH as i64;
        let (rx, rz) = (x - self.origin.0 - r, z - self.origin.1 - r);
        let last = CHUNK_SIZE_I64 - 1;
        // Row by row of the diamond, the span of columns inside the chunk column.
        let rows = self.wet_rows();
        for dz in -d..=d {
            let z = rz + dz;
            let half = d - dz.abs();
            let (x_lo, x_hi) = ((rx - half).max(0), (rx + half).min(last));
            if !(0..=last).contains(&z) || x_lo > x_hi {
                continue;
            }
            let span = (x_hi - x_lo + 1) as u32;
            let mask = (u32::MAX >> (32 - span)) << x_lo;
            let row = rows[z as usize];
            if (if wet { !row } else { row }) & mask != 0 {
                return (true, false);
            }
        }
        let inside = rx - d >= 0 && rx + d <= last && rz - d >= 0 && rz + d <= last;
        if inside {
            return (false, false);
        }
        let mut beyond = false;
        for (x, z) in shore_window(x, z, d) {
            // The masks answered for the columns inside.
            if inside_column(x - self.origin.0 - r, z - self.origin.1 - r) {
                continue;
            }
            match self.at_hand(x, z) {
                Some(h) if (h < water) != wet => return (true, beyond),
                Some(_) => {}
                None => beyond = true,
            }
        }
        (false, beyond)
    }

    fn at_hand(&self, x: i64, z: i64) -> Option<i32> {
        let r = MAX_SHORE_REACH as i64;
        let (rx, rz) = (x - self.origin.0 - r, z - self.origin.1 - r);
        if inside_column(rx, rz) {
            return Some(self.hm.heights[column_index(rx as usize, rz as usize)]);
        }
        self.heights.binary_search_by_key(&(x, z), |&(c, _)| c).ok().map(|i| self.heights[i].1)
    }

    /// Notes the columns for [`ShoreRing::taps`] and answers no: the
    /// plant is settled again once they are sampled, when every column it
    /// asks for is at hand.
    fn any_beyond(&self, cols: impl Iterator<Item = (i64, i64)>, _across: impl Fn(i32) -> bool) -> bool {
        self.asked.borrow_mut().extend(cols.filter(|&(x, z)| self.holds(x, z)));
        false
    }
}

/// The tree candidates of [`plan`] in range of its chunk column, each
/// settled where the column or a threshold decides it; the rest wait for
/// their footings, sampled in the plan's one batch.
struct PendingTrees<'a> {
    near: Vec<(Candidate, i64, i64)>,
    maps: TreeMaps<'a>,
    /// Per candidate its tree, or None while its footing is unsampled.
    trees: Vec<Option<Option<(Footing, u32, u32)>>>,
    /// The candidates whose footings must be sampled, in order.
    unsampled: Vec<usize>,
}

impl<'a> PendingTrees<'a> {
    fn new(ground: &Ground<'a>, col: ColumnPos, hm: &Heightmap) -> PendingTrees<'a> {
        let (program, p) = (ground.program, ground.params);
        let (unit, reach) = (p.deco.trees.unit as i64, p.deco.trees.reach as i64);
        let near: Vec<_> = if unit > 0 {
            near_column(p, col, unit, reach, p.deco.seed(), p.deco.trees.max_density).collect()
        } else {
            Vec::new()
        };
        // A candidate inside the column reads only its own biome's map
        // while the apron is at hand, and none where no tree of that biome
        // could take its threshold at the most the map allows; any other
        // may read every biome's.
        let needed = |k: usize| {
            let (c, rx, rz) = near[k];
            !inside_column(rx, rz) || ground.column.is_none() || {
                let b = hm.biomes[column_index(rx as usize, rz as usize)] as usize;
                program.has_map(p.deco.trees.biome_map[b].node) && tree_layer_may(p, b, c.threshold)
            }
        };
        let maps = TreeMaps::new(ground, near.iter().map(|(c, _, _)| (c.x, c.z)).collect(), needed);
        let mut trees = Vec::with_capacity(near.len());
        let mut unsampled = Vec::new();
        for (k, &(c, rx, rz)) in near.iter().enumerate() {
            let inside = inside_column(rx, rz);
            let tree = if inside {
                let b = hm.biomes[column_index(rx as usize, rz as usize)] as usize;
                // Settle the threshold before the footing's columns are read.
                if !tree_layer_may(p, b, c.threshold) {
                    trees.push(Some(None));
                    continue;
                }
                let factor = maps.factor(p, b, k);
                if tree_layer(p, b, c.threshold, factor).is_none() {
                    Some(None)
                } else {
                    ground
                        .read(c.x, c.z, |_| factor)
                        .map(|f| tree_at(p, c.threshold, c.variant, f).map(|(kind, shape)| (f, kind, shape)))
                }
            } else {
                None
            };
            // Where no biome takes the threshold, the footing's eight
            // columns need not be sampled.
            let tree =
                tree.or_else(|| (!some_biome_takes_given(p, c.threshold, |b| maps.factor(p, b, k))).then_some(None));
            if tree.is_none() {
                unsampled.push(k);
            }
            trees.push(tree);
        }
        PendingTrees { near, maps, trees, unsampled }
    }

    /// The columns whose footings are to be sampled.
    fn columns(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.unsampled.iter().map(|&k| (self.near[k].0.x, self.near[k].0.z))
    }

    /// The tree density of the `i`th column to sample, in biome `b`.
    fn density(&self, p: &WorldParams, i: usize, b: u8) -> f32 {
        self.maps.factor(p, b as usize, self.unsampled[i])
    }

    /// The trees, given the sampled footings in [`Self::columns`] order,
    /// noting in `known` what each candidate gave.
    fn finish(
        mut self,
        p: &WorldParams,
        sampled: &[Footing],
        known: &mut Vec<([i64; 2], bool)>,
        out: &mut ColumnDecorations,
    ) {
        for (&k, &f) in self.unsampled.iter().zip(sampled) {
            let c = self.near[k].0;
            self.trees[k] = Some(tree_at(p, c.threshold, c.variant, f).map(|(kind, shape)| (f, kind, shape)));
        }
        for (&(c, rx, rz), tree) in self.near.iter().zip(self.trees) {
            let tree = tree.flatten();
            known.push(([c.x, c.z], tree.is_some()));
            if let Some((f, kind, shape)) = tree {
                let t = PlacedObject { x: rx as i32, z: rz as i32, base: f.height + 1, kind, shape };
                out.tree_top = out.tree_top.max(tree_top(p, &t));
                out.trees.push(t);
            }
        }
    }
}

/// The plant of the column (x, z) of surface height `h` and biome `b`, or
/// 0. It stands at [`plant_height`]. Each layer's chance is scaled by its
/// density map at the column. `heights` gives the surface around it, for a
/// layer that grows only near the water's edge.
#[inline]
pub fn plant_at(
    program: &NoiseProgram,
    p: &WorldParams,
    x: i64,
    z: i64,
    h: i32,
    b: usize,
    heights: &impl ShoreHeights,
) -> u32 {
    let c = candidate(&p.deco.pattern, &p.deco.bayer, p.deco.seed(), 1, x, z);
    // Layers that read one node share its value.
    let mut seen: Option<(u32, f32)> = None;
    plant_given(p, c.threshold, x, z, h, b, heights, |map| {
        program.density_factor_sharing(map, x as f32, z as f32, &mut seen)
    })
}

/// Whether a column of biome `b` whose candidate has `threshold` can take
/// any plant, at the densest its maps allow.
#[inline]
fn plant_may_grow(p: &WorldParams, threshold: u32, b: usize) -> bool {
    p.deco.plants.biome_count[b] > 0 && threshold < p.deco.plants.max_density[b]
}

/// [`plant_at`] given the column's candidate threshold and its maps'
/// factors (`factor` is asked layer by layer, as far as the choice goes).
#[inline]
#[allow(clippy::too_many_arguments)]
fn plant_given(
    p: &WorldParams,
    threshold: u32,
    x: i64,
    z: i64,
    h: i32,
    b: usize,
    heights: &impl ShoreHeights,
    mut factor: impl FnMut(&FlatDensityMap) -> f32,
) -> u32 {
    if !plant_may_grow(p, threshold, b) {
        return 0;
    }
    let n = (p.deco.plants.biome_count[b] as usize).min(MAX_BIOME_LAYERS);
    let layers = &p.deco.plants.biome_layers[b][..n];
    let maps = &p.deco.plants.layer_maps[b];
    let densities = layers.iter().zip(maps).map(|(layer, map)| scaled_density(layer.density, factor(map)));
    let Some(l) = layer_of(threshold, densities) else { return 0 };
    let layer = layers[l];
    if !surface_allows(p, &layer, h, b) {
        return 0;
    }
    let d = p.deco.plants.shore[b][l].min(MAX_SHORE_REACH) as i64;
    let wet = h < p.surface.water_level;
    let across = |h: i32| (h < p.surface.water_level) != wet;
    if d == 0 {
        return layer.what;
    }
    // Heights at hand first: most shore columns decide without sampling;
    // the columns beyond are gathered for one batched look.
    let (found, beyond) = heights.across_at_hand(x, z, d, wet, p.surface.water_level);
    if found {
        return layer.what;
    }
    if beyond && heights.any_beyond(shore_window(x, z, d).filter(|&(x, z)| heights.at_hand(x, z).is_none()), across) {
        layer.what
    } else {
        0
    }
}

/// The columns of a chunk column that may take a plant, and the density
/// maps' values their layers read, computed together: a map's node is
/// evaluated only at those columns, eight per call where the CPU allows,
/// which gives the bits a call per column gives.
struct PlantMaps {
    /// Columns whose candidate may take a plant, row by row, with its threshold.
    growing: Vec<(u16, u32)>,
    /// Per growing column, the value of each distinct node its biome's
    /// layers read, in [`Self::nodes`] order.
    values: Vec<[f32; MAX_BIOME_LAYERS]>,
    /// Per biome, the distinct nodes with a program its layers read.
    nodes: [([u32; MAX_BIOME_LAYERS], usize); MAX_BIOMES],
}

impl PlantMaps {
    fn new(ground: &Ground, col: ColumnPos, hm: &Heightmap) -> PlantMaps {
        let (program, p) = (ground.program, ground.params);
        let (x0, z0) = (col.x as i64 * CHUNK_SIZE_I64, col.z as i64 * CHUNK_SIZE_I64);
        let nodes: [([u32; MAX_BIOME_LAYERS], usize); MAX_BIOMES] = std::array::from_fn(|b| {
            let n = (p.deco.plants.biome_count[b] as usize).min(MAX_BIOME_LAYERS);
            map_nodes(program, &p.deco.plants.layer_maps[b][..n])
        });
        // Sized for a column where one in eight may grow: grown from empty,
        // these lists cost more in copies than the rest of the first pass.
        let mut growing = Vec::with_capacity(CHUNK_SIZE * CHUNK_SIZE / 8);
        // (node, growing column, its slot there) of every value needed.
        let mut asked: Vec<(u32, u16, u8)> = Vec::with_capacity(CHUNK_SIZE * CHUNK_SIZE / 8);
        for z in 0..CHUNK_SIZE {
            for x in 0..CHUNK_SIZE {
                let i = column_index(x, z);
                let b = hm.biomes[i] as usize;
                // A biome without plants needs no candidate.
                if p.deco.plants.biome_count[b] == 0 {
                    continue;
                }
                let c = candidate(&p.deco.pattern, &p.deco.bayer, p.deco.seed(), 1, x0 + x as i64, z0 + z as i64);
                // Where no layer of the biome takes the surface, whichever
                // layer the maps choose plants nothing: no map is read.
                let layers =
                    &p.deco.plants.biome_layers[b][..(p.deco.plants.biome_count[b] as usize).min(MAX_BIOME_LAYERS)];
                if plant_may_grow(p, c.threshold, b) && layers.iter().any(|l| surface_allows(p, l, hm.heights[i], b)) {
                    let (list, n) = nodes[b];
                    let k = growing.len() as u16;
                    asked.extend(list[..n].iter().enumerate().map(|(slot, &node)| (node, k, slot as u8)));
                    growing.push((i as u16, c.threshold));
                }
            }
        }
        let mut values = vec![[0.0f32; MAX_BIOME_LAYERS]; if asked.is_empty() { 0 } else { growing.len() }];
        asked.sort_unstable();
        let (mut xs, mut zs, mut out) = (Vec::new(), Vec::new(), Vec::new());
        for run in asked.chunk_by(|a, b| a.0 == b.0) {
            let node = run[0].0;
            xs.clear();
            zs.clear();
            for &(_, k, _) in run {
                let i = growing[k as usize].0 as usize;
                xs.push((x0 + (i % CHUNK_SIZE) as i64) as f32);
                zs.push((z0 + (i / CHUNK_SIZE) as i64) as f32);
            }
            out.resize(xs.len(), 0.0);
            program.map_values(node, ground.lanes, &xs, &zs, &mut out);
            for (&(_, k, slot), &v) in run.iter().zip(&out) {
                values[k as usize][slot as usize] = v;
            }
        }
        PlantMaps { growing, values, nodes }
    }

    /// The plant of growing column `k` and its place in the chunk column,
    /// as [`plant_at`] gives it.
    #[inline]
    fn plant(&self, p: &WorldParams, col: ColumnPos, hm: &Heightmap, k: usize, ring: &ShoreRing) -> (u32, usize) {
        let (i, threshold) = self.growing[k];
        let i = i as usize;
        let b = hm.biomes[i] as usize;
        let (list, n) = self.nodes[b];
        let (x, z) = (
            col.x as i64 * CHUNK_SIZE_I64 + (i % CHUNK_SIZE) as i64,
            col.z as i64 * CHUNK_SIZE_I64 + (i / CHUNK_SIZE) as i64,
        );
        let block = plant_given(p, threshold, x, z, hm.heights[i], b, ring, |map| {
            match list[..n].iter().position(|&m| m == map.node) {
                Some(slot) => map.factor(self.values[k][slot]),
                None => 1.0,
            }
        });
        (block, i)
    }
}

/// The surface around chunk column `col`: its heightmap `hm`, and beyond
/// it columns sampled as the heightmap samples them.
pub struct Surface<'a> {
    pub program: &'a NoiseProgram,
    pub params: &'a WorldParams,
    pub lanes: Lanes,
    pub col: ColumnPos,
    pub hm: &'a Heightmap,
}

impl Surface<'_> {
    /// The surface height of column (x, z): from the heightmap inside the
    /// chunk column; beyond it sampled, or None unless `sample`.
    pub fn height(&self, x: i64, z: i64, sample: bool) -> Option<i32> {
        let (rx, rz) = (x - self.col.x as i64 * CHUNK_SIZE_I64, z - self.col.z as i64 * CHUNK_SIZE_I64);
        if inside_column(rx, rz) {
            Some(self.hm.heights[column_index(rx as usize, rz as usize)])
        } else {
            sample.then(|| footing_heights(self.program, self.params, self.lanes, [(x, z); 2])[0])
        }
    }
}

/// The columns within `d` blocks of (x, z) in x plus z (a diamond; 1 is
/// the four sides), row by row.
fn shore_window(x: i64, z: i64, d: i64) -> impl Iterator<Item = (i64, i64)> {
    (-d..=d).flat_map(move |dz| {
        let half = d - dz.abs();
        (-half..=half).map(move |dx| (x + dx, z + dz))
    })
}

/// The surface around a plant, for a layer with a shore reach.
pub trait ShoreHeights {
    /// Column (x, z)'s surface height if it is at hand, without sampling.
    fn at_hand(&self, x: i64, z: i64) -> Option<i32>;
    /// Whether a column within `d` blocks of (x, z) in x plus z, at hand,
    /// lies across the water line `water` from a column that is `wet`
    /// (below it); and whether some column there is not at hand.
    fn across_at_hand(&self, x: i64, z: i64, d: i64, wet: bool, water: i32) -> (bool, bool) {
        let mut beyond = false;
        for (x, z) in shore_window(x, z, d) {
            match self.at_hand(x, z) {
                Some(h) if (h < water) != wet => return (true, beyond),
                Some(_) => {}
                None => beyond = true,
            }
        }
        (false, beyond)
    }
    /// Whether the surface of any of `cols`, none of them at hand, is one
    /// that `across` takes.
    fn any_beyond(&self, cols: impl Iterator<Item = (i64, i64)>, across: impl Fn(i32) -> bool) -> bool;
}

/// Beyond the chunk column, two columns a sample: eight lanes.
impl ShoreHeights for Surface<'_> {
    fn at_hand(&self, x: i64, z: i64) -> Option<i32> {
        self.height(x, z, false)
    }

    fn any_beyond(&self, cols: impl Iterator<Item = (i64, i64)>, across: impl Fn(i32) -> bool) -> bool {
        let cols: Vec<_> = cols.collect();
        cols.chunks(2).any(|pair| {
            let pair = [pair[0], *pair.last().unwrap_or(&pair[0])];
            footing_heights(self.program, self.params, self.lanes, pair).into_iter().any(&across)
        })
    }
}

/// A closure `height(x, z, sample)`: where a column is at hand, or, with
/// `sample`, anywhere.
impl<F: Fn(i64, i64, bool) -> Option<i32>> ShoreHeights for F {
    fn at_hand(&self, x: i64, z: i64) -> Option<i32> {
        self(x, z, false)
    }

    fn any_beyond(&self, mut cols: impl Iterator<Item = (i64, i64)>, across: impl Fn(i32) -> bool) -> bool {
        cols.any(|(x, z)| self(x, z, true).is_some_and(&across))
    }
}

/// Where a column of surface height `h` holds its plant: on the ground, or
/// on the water where the ground lies under it.
#[inline]
pub fn plant_height(p: &WorldParams, h: i32) -> i64 {
    h.max(p.surface.water_level) as i64 + 1
}

/// The order in which decorations claim a block: higher wins.
#[inline]
pub fn claim_key(p: &WorldParams, id: u32) -> u32 {
    p.deco.block_priority.get(id as usize).copied().unwrap_or(0) << 8 | id
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
        if y <= h || y <= self.p.surface.water_level as i64 {
            return;
        }
        let i = Self::index(x, ly, z);
        if claim_key(self.p, id) > claim_key(self.p, self.bytes[i] as u32) {
            self.set(i, id);
        }
    }
}

/// The decoration pass: the plan's plants, then its trees and rocks, on the
/// canvas's filled blocks.
pub fn apply(c: &mut Canvas) {
    let Some(deco) = c.plan else { return };
    let (p, pos, hm) = (c.params, c.pos, c.heightmap);
    let (bytes, counts) = (&mut *c.blocks, &mut *c.counts);
    let y0 = pos.y as i64 * CHUNK_SIZE_I64;
    let y1 = y0 + CHUNK_SIZE_I64;
    let mut t = Target { p, hm, y0, bytes, counts };
    if plant_height(p, hm.max_height) >= y0 && plant_height(p, hm.min_height) < y1 {
        for plant in &deco.plants {
            let y = plant_height(p, hm.heights[column_index(plant.x as usize, plant.z as usize)]);
            if (y0..y1).contains(&y) {
                t.claim(plant.x as i32, y, plant.z as i32, plant.block as u32);
            }
        }
    }
    for tree in &deco.trees {
        if let Some(k) = tree.rock() {
            if let Some(rock) = p.deco.rocks.kinds.get(k) {
                place_rock(&mut t, rock, tree);
            }
            continue;
        }
        let Some(kind) = p.deco.trees.kinds.get(tree.kind as usize) else { continue };
        let (lo, hi) = (tree.base as i64 - 1, tree_top(p, tree) as i64);
        if hi < y0 || lo >= y1 {
            continue;
        }
        let in_column = (0..CHUNK_SIZE as i32).contains(&tree.x) && (0..CHUNK_SIZE as i32).contains(&tree.z);
        if in_column && (y0..y1).contains(&lo) {
            let i = Target::index(tree.x, lo - y0, tree.z);
            t.set(i, p.deco.trunk_soil_block);
        }
        for y in (lo + 1).max(y0)..=hi.min(y1 - 1) {
            let dy = (y - tree.base as i64) as i32;
            tree_layer_blocks(kind, tree.shape, dy, |dx, dz, id| t.claim(tree.x + dx, y, tree.z + dz, id));
        }
    }
}

/// Every block a tree of shape word `shape` places at height `dy` above its
/// lowest log, as (dx, dz, id): the blocks where [`tree_block_at`] is not
/// air, visiting only the trunk and the layers at that height rather than
/// the whole reach. Where a layer covers the trunk it names both; the
/// claim order keeps the trunk, as `tree_block_at` does.
#[inline]
pub fn tree_layer_blocks(kind: &FlatTree, shape: u32, dy: i32, mut put: impl FnMut(i32, i32, u32)) {
    let trunk = trunk_height(shape);
    if (0..trunk).contains(&dy) {
        put(0, 0, kind.trunk_block);
    }
    let above_top = dy - (trunk - 1);
    let (ox, oz) = lean_offset(shape);
    let slim = shape >> 11 & 1 == 1;
    for l in &kind.layers[..(kind.layer_count as usize).min(kind.layers.len())] {
        if l.dy != above_top || kind.leaves_block == 0 {
            continue;
        }
        let r = if slim && l.radius >= 2 { l.radius - 1 } else { l.radius };
        let (cx, cz) = if l.lean != 0 { (ox, oz) } else { (0, 0) };
        for dz in -r..=r {
            for dx in -r..=r {
                if !(l.round != 0 && r > 0 && dx.abs() == r && dz.abs() == r) {
                    put(cx + dx, cz + dz, kind.leaves_block);
                }
            }
        }
    }
}

/// Claims the blocks of rock `r` (kind `rock`) within the chunk.
fn place_rock(t: &mut Target, rock: &FlatRock, r: &PlacedObject) {
    let (rx, ry, rz) = rock_radii(r.shape);
    let y1 = t.y0 + CHUNK_SIZE_I64;
    for y in (r.base as i64 - ry as i64).max(t.y0)..=(r.base as i64 + ry as i64).min(y1 - 1) {
        let dy = (y - r.base as i64) as i32;
        for dz in -rz..=rz {
            for dx in -rx..=rx {
                t.claim(r.x + dx, y, r.z + dz, rock_block_at(rock, r.shape, dx, dy, dz));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::Preset;

    /// Footings packed eight lanes a call equal a call per column, bit for
    /// bit, over an odd count (a last partial call) on two presets.
    #[test]
    fn packed_footings_equal_one_call_each() {
        for preset in [Preset::classic(), Preset::load("alpine").expect("bundled")] {
            let p = WorldParams::new(&preset, 42);
            let program = NoiseProgram::compile(&p);
            let cols: Vec<(i64, i64)> = (0..37).map(|i| (i * 41 - 700, 300 - i * 29)).collect();
            for lanes in [Lanes::Scalar, Lanes::detect()] {
                let density = |i: usize, b: u8| {
                    let (x, z) = cols[i];
                    program.tree_density_factor(&p, b as usize, x as f32, z as f32)
                };
                let packed = footings(&program, &p, lanes, &cols, density);
                for (&(x, z), f) in cols.iter().zip(&packed) {
                    let one = footing(&program, &p, lanes, x, z);
                    assert_eq!(
                        (f.height, f.biome, f.slope.to_bits(), f.density.to_bits()),
                        (one.height, one.biome, one.slope.to_bits(), one.density.to_bits()),
                        "column {x}, {z} with {lanes:?}"
                    );
                }
            }
        }
    }

    /// A rock candidate left out of a column's plan can lay no rock that
    /// reaches into the column, in any biome, at any height or slope the
    /// rules take; and the check leaves out some candidates, so it saves
    /// their footings.
    #[test]
    fn rocks_left_out_of_a_plan_cannot_reach_its_column() {
        let p = WorldParams::new(&Preset::classic(), 42);
        let (unit, reach) = (p.deco.rocks.unit as i64, p.deco.rocks.reach as i64);
        let heights: Vec<i32> = (p.surface.water_level - 4..p.surface.water_level + 120).step_by(3).collect();
        let (mut left_out, mut kept) = (0, 0);
        for cz in -6..6 {
            for cx in -6..6 {
                let col = ColumnPos { x: cx, z: cz };
                for (c, rx, rz) in near_column(&p, col, unit, reach, p.deco.rocks.seed(), p.deco.rocks.max_density) {
                    if inside_column(rx, rz) {
                        continue;
                    }
                    let may = rock_may_reach(&p, &c, rx, rz);
                    if may {
                        kept += 1;
                        continue;
                    }
                    left_out += 1;
                    for biome in 0..MAX_BIOMES as u32 {
                        for &height in &heights {
                            let f = Footing { height, biome, slope: 0.0, density: 1.0 };
                            if let Some((_, shape)) = rock_at(&p, c.threshold, c.variant, f) {
                                let (ex, _, ez) = rock_radii(shape);
                                let reaches = |r: i64, e: i32| r + e as i64 >= 0 && r - (e as i64) < CHUNK_SIZE_I64;
                                assert!(
                                    !(reaches(rx, ex) && reaches(rz, ez)),
                                    "a rock at {rx}, {rz} from column {cx}, {cz} (biome {biome}, radii {ex}, {ez}) was left out"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(left_out > 0 && kept > 0, "{left_out} left out, {kept} kept");
    }
}
