//! The flat, `#[repr(C)]` form of a preset plus a seed: the one description
//! both engines run. The CPU compiles it into a lane program
//! ([`super::graph`]); the CUDA backend uploads the same bytes and builds
//! its noise objects from them. Layout twin: `kernels/worldgen_params.cuh`.

use super::noise::perlin::SCALE_3D;
use super::placement::{self, DENSITY_ONE, PATTERN_POINTS};
use super::preset::{
    CaveLayer, Caves, Decorations, Input, NodeKind, Preset, Veins, MAX_BIOMES, MAX_BIOME_LAYERS, MAX_CANOPY_LAYERS,
    MAX_CAVE_LAYERS, MAX_CAVE_NOISES, MAX_CAVE_OCTAVES, MAX_NODES, MAX_ROCK_KINDS, MAX_TREE_KINDS, MAX_TREE_REACH,
    MAX_VEIN_KINDS, TABLE_SIZE, THRESHOLDS,
};
use crate::world::block::{BlockId, MAX_BLOCK_TYPES};

// Flat node kinds. One evaluator per kind on each engine: the CPU's in
// `noise_kinds.rs` / `graph.rs`, the kernels' in `kernels/noise_kinds.cuh`.
pub const NODE_BASIC: u32 = 0;
pub const NODE_OCTAVE: u32 = 1;
pub const NODE_COMBINED: u32 = 2;
pub const NODE_EXPSCALE: u32 = 3;
/// fBm, heterogeneous and hybrid multifractal: one loop, three ways to sum.
pub const NODE_FBM: u32 = 4;
pub const NODE_HETERO: u32 = 5;
pub const NODE_HYBRID: u32 = 6;
pub const NODE_DISTORT: u32 = 7;
pub const NODE_NORMALIZE: u32 = 8;
pub const NODE_LINEAR: u32 = 9;
/// Bias and glacier.
pub const NODE_BIAS: u32 = 10;
/// Gain, canyon and plateau: two bias exponents, below and above ½.
pub const NODE_GAIN: u32 = 11;
/// Derivative-damped ("Quilez") fBm: a fractal sum like NODE_FBM.
pub const NODE_QUILEZ: u32 = 12;

/// T_in codes of [`FlatNode::input`].
pub const INPUT_PLAIN: u32 = 0;
pub const INPUT_RIDGED: u32 = 1;
pub const INPUT_BILLOW: u32 = 2;

/// Slots of [`FlatNode::slots`], by kind.
pub const SLOT_EXPONENT: usize = 0; // ExpScale; Bias; Gain below ½
pub const SLOT_SCALE: usize = 1; // ExpScale
pub const SLOT_EXPONENT_HIGH: usize = 1; // Gain above ½
pub const SLOT_LACUNARITY: usize = 0; // fractals
pub const SLOT_WEIGHT: usize = 1; // fractals: w = λ^(−H)
pub const SLOT_FREQUENCY: usize = 2; // fractals
pub const SLOT_SHIFT: usize = 3; // Hetero, Hybrid
pub const SLOT_STRENGTH: usize = 0; // Distort
pub const SLOT_LOW: usize = 0; // Normalize
pub const SLOT_INV_SPAN: usize = 1; // Normalize
pub const SLOT_MUL: usize = 0; // Linear
pub const SLOT_ADD: usize = 1; // Linear
pub const NODE_SLOTS: usize = 4;
pub const NODE_CHILDREN: usize = 3;

pub const FIELD_HEIGHT: usize = 0;
pub const FIELD_MOISTURE: usize = 1;
pub const FIELD_TEMPERATURE: usize = 2;
pub const FIELD_ROUGHNESS: usize = 3;
pub const FIELD_MOUNTAIN: usize = 4;
pub const FIELD_PEAKS: usize = 5;
pub const FIELD_COUNT: usize = 6;

/// One node of the noise graph: a kind and its parameter slots. What each
/// child and slot means is the kind's (the `SLOT_*` constants); the preset
/// loader has validated every value.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlatNode {
    pub kind: u32,
    /// Gradient-hash seed derived from the world seed and the node's offset
    /// (octave j of a fractal adds j·[`OCTAVE_SEED_STEP`]).
    pub seed: u32,
    pub octaves: u32,
    /// T_in of a fractal (`INPUT_*`).
    pub input: u32,
    /// Child node indices, −1 where unused. Combined: source, offset_by;
    /// Distort: source, x noise, z noise; one-input kinds: source.
    pub children: [i32; NODE_CHILDREN],
    /// The third noise coordinate, 32·offset.
    pub z_offset: f32,
    pub slots: [f32; NODE_SLOTS],
}

impl Default for FlatNode {
    fn default() -> Self {
        FlatNode {
            kind: 0,
            seed: 0,
            octaves: 0,
            input: 0,
            children: [-1; NODE_CHILDREN],
            z_offset: 0.0,
            slots: [0.0; 4],
        }
    }
}

/// One layer of leaves of a tree kind. Twin: `FlatLeafLayer` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlatLeafLayer {
    /// Height above the top log.
    pub dy: i32,
    pub radius: i32,
    /// 1: the four corners stay empty.
    pub round: u32,
    /// 1: the layer follows a leaning crown (it lies above the top log and
    /// shifting it a block stays within the widest reach).
    pub lean: u32,
}

/// A tree kind. Twin: `FlatTree` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlatTree {
    pub trunk_block: u32,
    /// 0 (air) for a bare trunk.
    pub leaves_block: u32,
    pub trunk_min: u32,
    /// Trunk heights are `trunk_min + 0..=trunk_span`.
    pub trunk_span: u32,
    /// Bit b set: grows on block id b.
    pub on_mask: u32,
    /// Highest leaf layer above the top log (≥ 0).
    pub crown: i32,
    pub layer_count: u32,
    pub layers: [FlatLeafLayer; MAX_CANOPY_LAYERS],
}

/// A rock kind. Twin: `FlatRock` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlatRock {
    pub block: u32,
    /// The block of its upper surface.
    pub top_block: u32,
    pub radius_min: u32,
    /// Radii are `radius_min + 0..=radius_span`.
    pub radius_span: u32,
    /// Bit b set: lies on block id b.
    pub on_mask: u32,
    pub max_slope: f32,
}

/// One decoration layer of a biome. Twin: `FlatLayer` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlatLayer {
    /// Tree or rock kind index (tree and rock layers) or block id (plant layers).
    pub what: u32,
    /// Share of the candidates it takes, in 1/`DENSITY_ONE`.
    pub density: u32,
    /// Bit b set: grows on block id b.
    pub on_mask: u32,
}

/// A biome's tree density map (see `DensityMap` in the preset): the node
/// of the noise graph, or [`NO_DENSITY_MAP`], and its transform. Twin:
/// `FlatDensityMap` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlatDensityMap {
    pub node: u32,
    pub scale: f32,
    pub offset: f32,
    pub min: f32,
    pub max: f32,
}

/// `FlatDensityMap::node` of a biome without a map: the factor is 1.
pub const NO_DENSITY_MAP: u32 = u32::MAX;

impl Default for FlatDensityMap {
    fn default() -> Self {
        FlatDensityMap { node: NO_DENSITY_MAP, scale: 0.0, offset: 1.0, min: 1.0, max: 1.0 }
    }
}

impl FlatDensityMap {
    /// The factor at a point where the map's node gives `v`: the same f32
    /// operations, in the same order, as `bw_density_factor`.
    #[inline]
    pub fn factor(&self, v: f32) -> f32 {
        (v * self.scale + self.offset).max(self.min).min(self.max)
    }
}

/// A layer density scaled by a density map's factor, truncated; exact for
/// a factor of 1. Twin: `bw_scaled_density`.
#[inline]
pub fn scaled_density(density: u32, factor: f32) -> u32 {
    (density as f32 * factor) as u32
}

/// A cave noise. Twin: `FlatCaveNoise` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlatCaveNoise {
    /// Lattice-hash seed of octave 0 (octave o adds o·[`OCTAVE_SEED_STEP`]).
    pub seed: u32,
    pub octaves: u32,
    /// log2 of octave 0's cell across and high.
    pub shift_xz: u32,
    pub shift_y: u32,
    /// Each octave's weight, summing to 1.
    pub weights: [f32; MAX_CAVE_OCTAVES],
}

pub const OCTAVE_SEED_STEP: u32 = 0x9E37_79B9;

pub const CAVE_CHAMBERS: u32 = 0;
pub const CAVE_TUNNELS: u32 = 1;

/// A cave layer. Twin: `FlatCaveLayer` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlatCaveLayer {
    /// [`CAVE_CHAMBERS`] or [`CAVE_TUNNELS`].
    pub kind: u32,
    /// Noise indices (tunnels use both).
    pub a: u32,
    pub b: u32,
    /// Chambers: above this; tunnels: |a| and |b| below this.
    pub threshold: f32,
    pub min_depth: i32,
}

/// A kind of vein. Twin: `FlatVein` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlatVein {
    pub block: u32,
    /// Bit b set: replaces block id b.
    pub replace_mask: u32,
    /// Heights its centres lie within, inclusive.
    pub lowest: i32,
    pub highest: i32,
    /// Share of the candidates it takes at its highest and lowest centre,
    /// in 1/`DENSITY_ONE`; linear between.
    pub density_top: u32,
    pub density_bottom: u32,
    /// Blob radius at its highest and lowest centre; linear between, rounded.
    pub radius_top: u32,
    pub radius_bottom: u32,
    /// Blobs per vein: `blobs_min + 0..=blobs_span`.
    pub blobs_min: u32,
    pub blobs_span: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldParams {
    pub node_count: u32,
    pub biome_count: u32,
    pub field_roots: [u32; FIELD_COUNT],
    pub nodes: [FlatNode; MAX_NODES],
    /// Every Basic and Octave node's value is multiplied by this: the
    /// preset's Perlin amplitude over the crate's 2/√3, exactly 1 when the
    /// preset keeps the crate's.
    pub perlin_gain: f32,

    pub height_amplitude: f32,
    pub mountain_amplitude: f32,
    pub roughness_amplitude: f32,
    pub temperature_mountain_cooling: f32,
    pub peak_exponent_scale: f32,

    pub ocean_max_height: f32,
    pub ocean_max_mountain: f32,
    pub beach_max_height: f32,
    pub mountain_min: f32,
    pub mountain_min_with_height: f32,
    pub heat_thresholds: [f32; THRESHOLDS],
    pub moisture_thresholds: [f32; THRESHOLDS],
    pub threshold_search_limit: u32,
    pub ocean_biome: u32,
    pub beach_biome: u32,
    pub mountain_biome: u32,
    /// `[moisture index][heat index]` → biome index.
    pub biome_table: [[u32; TABLE_SIZE]; TABLE_SIZE],

    pub biome_top: [u32; MAX_BIOMES],
    pub biome_under: [u32; MAX_BIOMES],
    pub biome_roughness: [f32; MAX_BIOMES],
    pub biome_scale: [f32; MAX_BIOMES],
    pub biome_exponent: [f32; MAX_BIOMES],

    pub water_level: i32,
    pub snow_above: i32,
    pub under_depth: i32,
    pub water_block: u32,
    pub deep_block: u32,
    pub snow_block: u32,
    pub air_block: u32,

    /// The world seed (low, high word): picks each cell's dithering offset
    /// and each tree's height, by hashing, never as a random stream.
    pub deco_seed: [u32; 2],
    /// Tree candidate spacing in blocks; 0: no trees.
    pub tree_unit: i32,
    /// How far outside a chunk column trees can reach into it.
    pub tree_reach: i32,
    pub tree_max_slope: f32,
    /// The largest total tree density of any biome: candidates above it are rejected unseen.
    pub tree_max_density: u32,
    pub trunk_soil_block: u32,
    /// 1 when some biome has plants (they stand one block above the surface).
    pub plant_reach: i32,
    pub tree_kind_count: u32,
    pub tree_kinds: [FlatTree; MAX_TREE_KINDS],
    pub biome_tree_count: [u32; MAX_BIOMES],
    pub biome_trees: [[FlatLayer; MAX_BIOME_LAYERS]; MAX_BIOMES],
    /// Each biome's tree density map.
    pub biome_tree_map: [FlatDensityMap; MAX_BIOMES],
    pub biome_plant_count: [u32; MAX_BIOMES],
    pub biome_plants: [[FlatLayer; MAX_BIOME_LAYERS]; MAX_BIOMES],
    /// Rock candidate spacing in blocks; 0: no rocks.
    pub rock_unit: i32,
    /// How far from its centre block a rock reaches along any axis: its
    /// largest radius, one more where its hash stretches or raises it.
    pub rock_reach: i32,
    /// The largest total rock density of any biome.
    pub rock_max_density: u32,
    pub rock_kind_count: u32,
    /// The seed rock candidates hash: not the trees', so the two grids'
    /// thresholds are unrelated.
    pub rock_seed: [u32; 2],
    pub rock_kinds: [FlatRock; MAX_ROCK_KINDS],
    pub biome_rock_count: [u32; MAX_BIOMES],
    pub biome_rocks: [[FlatLayer; MAX_BIOME_LAYERS]; MAX_BIOMES],
    /// Where two decorations claim one block, the higher of
    /// (priority, id) wins: trunks over leaves over plants, air lowest.
    pub block_priority: [u32; MAX_BLOCK_TYPES],
    /// The candidate pattern and the dithering matrix ([`placement`]).
    pub pattern: [[u8; 2]; PATTERN_POINTS],
    pub bayer: [u8; PATTERN_POINTS],

    /// 0: no caves.
    pub cave_layer_count: u32,
    pub cave_noise_count: u32,
    pub cave_bottom: i32,
    pub cave_top: i32,
    pub cave_lava_below: i32,
    pub cave_lava_block: u32,
    pub cave_water_clearance: i32,
    pub cave_noises: [FlatCaveNoise; MAX_CAVE_NOISES],
    pub cave_layers: [FlatCaveLayer; MAX_CAVE_LAYERS],

    /// 0: no veins.
    pub vein_kind_count: u32,
    /// Candidate spacing in blocks (one per spacing³ cube).
    pub vein_spacing: i32,
    /// The furthest any vein reaches from its centre along an axis.
    pub vein_reach: i32,
    /// The lowest and highest vein centre of any kind.
    pub vein_lowest: i32,
    pub vein_highest: i32,
    /// Hashed from the world seed apart from the decorations' (low, high word).
    pub vein_seed: [u32; 2],
    pub vein_kinds: [FlatVein; MAX_VEIN_KINDS],
    /// The 4 × 4 × 4 ordered-dithering matrix of the vein candidates.
    pub vein_bayer: [u8; PATTERN_POINTS],
}

/// Priority classes of [`WorldParams::block_priority`].
pub const PRIORITY_PLANT: u32 = 1;
pub const PRIORITY_LEAVES: u32 = 2;
pub const PRIORITY_ROCK: u32 = 3;
pub const PRIORITY_TRUNK: u32 = 4;
/// Salt of [`WorldParams::rock_seed`].
const ROCK_SEED_SALT: u64 = 0x526F_636B_5365_6564;

fn block_mask(names: &[String]) -> u32 {
    names.iter().fold(0, |m, n| m | 1u32.checked_shl(block(n)).unwrap_or(0))
}

fn density(chance: f32, candidates_per_column: f32) -> u32 {
    ((chance as f64 * candidates_per_column as f64 * DENSITY_ONE as f64).round() as u32).min(DENSITY_ONE)
}

/// Fills the decoration part of `p` from the preset's `decorations`.
fn flatten_decorations(p: &mut WorldParams, preset: &Preset, d: &Decorations, seed: u64) {
    let unit2 = (d.tree_spacing * d.tree_spacing) as f32;
    let nodes = preset.node_indices();
    p.tree_unit = d.tree_spacing as i32;
    p.tree_max_slope = d.tree_max_slope;
    p.trunk_soil_block = block(&d.trunk_soil);
    p.tree_kind_count = d.trees.len() as u32;
    let mut raise = |id: u32, class: u32| {
        if let Some(slot) = p.block_priority.get_mut(id as usize) {
            *slot = (*slot).max(class);
        }
    };
    let mut reach = 0;
    for (slot, t) in p.tree_kinds.iter_mut().zip(&d.trees) {
        let mut layers = [FlatLeafLayer::default(); MAX_CANOPY_LAYERS];
        for (l, def) in layers.iter_mut().zip(&t.canopy) {
            let lean = def.dy > 0 && def.radius < MAX_TREE_REACH;
            *l = FlatLeafLayer { dy: def.dy, radius: def.radius as i32, round: def.round as u32, lean: lean as u32 };
            reach = reach.max(def.radius as i32 + lean as i32);
        }
        *slot = FlatTree {
            trunk_block: block(&t.trunk),
            leaves_block: block(&t.leaves),
            trunk_min: t.trunk_height.0,
            trunk_span: t.trunk_height.1 - t.trunk_height.0,
            on_mask: block_mask(&t.on),
            crown: t.canopy.iter().map(|l| l.dy).max().unwrap_or(0).max(0),
            layer_count: t.canopy.len() as u32,
            layers,
        };
        raise(slot.trunk_block, PRIORITY_TRUNK);
        if !t.canopy.is_empty() {
            raise(slot.leaves_block, PRIORITY_LEAVES);
        }
    }
    p.tree_reach = reach;
    for b in &d.biomes {
        let Some(bi) = preset.biome_index(&b.biome) else { continue };
        if let Some(m) = &b.tree_density {
            p.biome_tree_map[bi] = FlatDensityMap {
                node: nodes.get(m.noise.as_str()).map_or(NO_DENSITY_MAP, |&i| i as u32),
                scale: m.scale,
                offset: m.offset,
                min: m.min,
                max: m.max,
            };
        }
        let top = p.biome_tree_map[bi].max;
        let mut total = 0;
        for (slot, (name, chance)) in p.biome_trees[bi].iter_mut().zip(&b.trees) {
            let kind = d.trees.iter().position(|t| &t.name == name).unwrap_or(0);
            let dens = density(*chance, unit2);
            // The bound for the unseen rejection: the scaled density is
            // monotone in the factor, which never exceeds `max`.
            total += scaled_density(dens, top);
            *slot = FlatLayer { what: kind as u32, density: dens, on_mask: p.tree_kinds[kind].on_mask };
        }
        p.biome_tree_count[bi] = b.trees.len() as u32;
        p.tree_max_density = p.tree_max_density.max(total);
        for (slot, plant) in p.biome_plants[bi].iter_mut().zip(&b.plants) {
            *slot = FlatLayer {
                what: block(&plant.block),
                density: density(plant.chance, 1.0),
                on_mask: block_mask(&plant.on),
            };
            raise(slot.what, PRIORITY_PLANT);
        }
        p.biome_plant_count[bi] = b.plants.len() as u32;
        if !b.plants.is_empty() {
            p.plant_reach = 1;
        }
    }
    if p.tree_max_density == 0 {
        p.tree_unit = 0;
    }
    flatten_rocks(p, preset, d, seed);
}

/// Fills the rock part of `p` from the preset's `decorations`.
fn flatten_rocks(p: &mut WorldParams, preset: &Preset, d: &Decorations, seed: u64) {
    let s = splitmix64(seed ^ ROCK_SEED_SALT);
    p.rock_seed = [s as u32, (s >> 32) as u32];
    p.rock_kind_count = d.rocks.len() as u32;
    let mut reach = 0;
    for (slot, r) in p.rock_kinds.iter_mut().zip(&d.rocks) {
        *slot = FlatRock {
            block: block(&r.block),
            top_block: block(r.top.as_deref().unwrap_or(&r.block)),
            radius_min: r.radius.0,
            radius_span: r.radius.1 - r.radius.0,
            on_mask: block_mask(&r.on),
            max_slope: r.max_slope,
        };
        reach = reach.max(r.radius.1 as i32 + 1);
        for id in [slot.block, slot.top_block] {
            if let Some(slot) = p.block_priority.get_mut(id as usize) {
                *slot = (*slot).max(PRIORITY_ROCK);
            }
        }
    }
    p.rock_reach = reach;
    let unit2 = (d.rock_spacing * d.rock_spacing) as f32;
    for b in &d.biomes {
        let Some(bi) = preset.biome_index(&b.biome) else { continue };
        let mut total = 0;
        for (slot, (name, chance)) in p.biome_rocks[bi].iter_mut().zip(&b.rocks) {
            let kind = d.rocks.iter().position(|r| &r.name == name).unwrap_or(0);
            *slot =
                FlatLayer { what: kind as u32, density: density(*chance, unit2), on_mask: p.rock_kinds[kind].on_mask };
            total += slot.density;
        }
        p.biome_rock_count[bi] = b.rocks.len() as u32;
        p.rock_max_density = p.rock_max_density.max(total);
    }
    if p.rock_max_density > 0 {
        p.rock_unit = d.rock_spacing as i32;
    }
}

/// Fills the cave part of `p` from the preset's `caves`.
fn flatten_caves(p: &mut WorldParams, preset: &Preset, c: &Caves, seed: u64) {
    p.cave_bottom = c.bottom;
    p.cave_top = c.top;
    p.cave_lava_below = c.lava_below;
    p.cave_lava_block = block(&c.lava);
    p.cave_water_clearance = c.water_clearance as i32;
    p.cave_noise_count = c.noises.len() as u32;
    for (slot, n) in p.cave_noises.iter_mut().zip(&c.noises) {
        let raw: Vec<f64> = (0..n.octaves).map(|o| (n.gain as f64).powi(o as i32)).collect();
        let total: f64 = raw.iter().sum();
        let mut weights = [0.0f32; MAX_CAVE_OCTAVES];
        for (w, r) in weights.iter_mut().zip(&raw) {
            *w = (r / total) as f32;
        }
        *slot = FlatCaveNoise {
            seed: node_seed(seed, n.offset),
            octaves: n.octaves,
            shift_xz: n.cell.trailing_zeros(),
            shift_y: n.cell_y.trailing_zeros(),
            weights,
        };
    }
    let noise = |name: &str| preset.cave_noise_index(name).unwrap_or(0) as u32;
    p.cave_layer_count = c.layers.len() as u32;
    for (slot, l) in p.cave_layers.iter_mut().zip(&c.layers) {
        *slot = match l {
            CaveLayer::Chambers { noise: n, above, min_depth } => FlatCaveLayer {
                kind: CAVE_CHAMBERS,
                a: noise(n),
                b: noise(n),
                threshold: *above,
                min_depth: *min_depth as i32,
            },
            CaveLayer::Tunnels { noises, width, min_depth } => FlatCaveLayer {
                kind: CAVE_TUNNELS,
                a: noise(&noises.0),
                b: noise(&noises.1),
                threshold: *width,
                min_depth: *min_depth as i32,
            },
        };
    }
}

/// Fills the vein part of `p` from the preset's `veins`.
fn flatten_veins(p: &mut WorldParams, v: &Veins, seed: u64) {
    let s = splitmix64(seed ^ VEIN_SEED_SALT);
    p.vein_seed = [s as u32, (s >> 32) as u32];
    p.vein_spacing = v.spacing as i32;
    p.vein_kind_count = v.kinds.len() as u32;
    p.vein_lowest = v.kinds.iter().map(|k| k.heights.0).min().unwrap_or(0);
    p.vein_highest = v.kinds.iter().map(|k| k.heights.1).max().unwrap_or(-1);
    p.vein_reach = v.kinds.iter().map(|k| super::preset::reach(k) as i32).max().unwrap_or(0);
    for (slot, k) in p.vein_kinds.iter_mut().zip(&v.kinds) {
        *slot = FlatVein {
            block: block(&k.block),
            replace_mask: block_mask(&k.replaces),
            lowest: k.heights.0,
            highest: k.heights.1,
            density_top: density(k.chance.top, 1.0),
            density_bottom: density(k.chance.bottom, 1.0),
            radius_top: k.radius.top,
            radius_bottom: k.radius.bottom,
            blobs_min: k.blobs.0,
            blobs_span: k.blobs.1 - k.blobs.0,
        };
    }
}

/// Keeps the vein hashes apart from the decorations', which share the seed.
const VEIN_SEED_SALT: u64 = 0x7E1A_5EED_0BE5_0001;

/// The flat form of one node: its kind's slots (see the `SLOT_*` constants).
pub(crate) fn flatten_node(node: &NodeKind, seed: u64, child: &dyn Fn(&str) -> i32) -> FlatNode {
    let leaf = |kind: u32, offset: u32, octaves: u32| FlatNode {
        kind,
        seed: node_seed(seed, offset),
        octaves,
        z_offset: 32.0 * offset as f32,
        ..FlatNode::default()
    };
    let unary = |kind: u32, source: &str, slots: [f32; NODE_SLOTS]| FlatNode {
        kind,
        children: [child(source), -1, -1],
        slots,
        ..FlatNode::default()
    };
    let fractal =
        |kind: u32, octaves: u32, offset: u32, lacunarity: f32, h: f32, frequency: f32, input: Input, shift: f32| {
            // w = λ^(−H) once, in f64, so both engines multiply by the same f32.
            let weight = (lacunarity as f64).powf(-(h as f64)) as f32;
            let input = match input {
                Input::Plain => INPUT_PLAIN,
                Input::Ridged => INPUT_RIDGED,
                Input::Billow => INPUT_BILLOW,
            };
            FlatNode { input, slots: [lacunarity, weight, frequency, shift], ..leaf(kind, offset, octaves) }
        };
    // bias_b(t) = t^(ln b / ln ½)
    let bias = |b: f32| ((b as f64).ln() / 0.5f64.ln()) as f32;
    match node {
        NodeKind::Basic { offset } => leaf(NODE_BASIC, *offset, 1),
        NodeKind::Octave { octaves, offset } => leaf(NODE_OCTAVE, *offset, *octaves),
        NodeKind::Fbm { octaves, offset, lacunarity, h, frequency, input } => {
            fractal(NODE_FBM, *octaves, *offset, *lacunarity, *h, *frequency, *input, 0.0)
        }
        NodeKind::Hetero { octaves, offset, lacunarity, h, frequency, input, shift } => {
            fractal(NODE_HETERO, *octaves, *offset, *lacunarity, *h, *frequency, *input, *shift)
        }
        NodeKind::Hybrid { octaves, offset, lacunarity, h, frequency, input, shift } => {
            fractal(NODE_HYBRID, *octaves, *offset, *lacunarity, *h, *frequency, *input, *shift)
        }
        NodeKind::Quilez { octaves, offset, lacunarity, h, frequency } => {
            fractal(NODE_QUILEZ, *octaves, *offset, *lacunarity, *h, *frequency, Input::Plain, 0.0)
        }
        NodeKind::Combined { source, offset_by } => {
            FlatNode { kind: NODE_COMBINED, children: [child(source), child(offset_by), -1], ..FlatNode::default() }
        }
        NodeKind::Distort { source, by, strength } => FlatNode {
            kind: NODE_DISTORT,
            children: [child(source), child(&by.0), child(&by.1)],
            slots: [*strength, 0.0, 0.0, 0.0],
            ..FlatNode::default()
        },
        NodeKind::ExpScale { source, exponent, scale } => unary(NODE_EXPSCALE, source, [*exponent, *scale, 0.0, 0.0]),
        NodeKind::Normalize { source, from } => {
            let inv_span = (1.0 / (from.1 as f64 - from.0 as f64)) as f32;
            unary(NODE_NORMALIZE, source, [from.0, inv_span, 0.0, 0.0])
        }
        NodeKind::Linear { source, mul, add } => unary(NODE_LINEAR, source, [*mul, *add, 0.0, 0.0]),
        NodeKind::Bias { source, b } | NodeKind::Glacier { source, b } => {
            unary(NODE_BIAS, source, [bias(*b), 0.0, 0.0, 0.0])
        }
        NodeKind::Gain { source, g } | NodeKind::Canyon { source, g } => {
            unary(NODE_GAIN, source, [bias(1.0 - g), bias(1.0 - g), 0.0, 0.0])
        }
        NodeKind::Plateau { source, g } => unary(NODE_GAIN, source, [bias(1.0 - g), bias(*g), 0.0, 0.0]),
    }
}

/// splitmix64: spreads a 64-bit seed so seeds above 2³² and neighbouring
/// seeds give unrelated noise.
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The gradient-hash seed of a noise offset. The world seed never becomes a
/// float coordinate (the original's `seed + 32·o` lost precision).
pub fn node_seed(world_seed: u64, offset: u32) -> u32 {
    (splitmix64(world_seed ^ splitmix64(offset as u64)) >> 32) as u32
}

fn block(name: &str) -> u32 {
    // Names were validated when the preset was loaded.
    BlockId::by_name(name).map(|b| b.0 as u32).unwrap_or(0)
}

impl WorldParams {
    pub fn new(preset: &Preset, seed: u64) -> Box<WorldParams> {
        let index = preset.node_indices();
        let child = |name: &str| index.get(name).map(|&i| i as i32).unwrap_or(-1);
        let mut nodes = [FlatNode::default(); MAX_NODES];
        for (slot, named) in nodes.iter_mut().zip(&preset.noise) {
            *slot = flatten_node(&named.node, seed, &child);
        }
        let mut field_roots = [0u32; FIELD_COUNT];
        for (root, (_, name)) in field_roots.iter_mut().zip(preset.fields.in_order()) {
            *root = index.get(name).copied().unwrap_or(0) as u32;
        }
        let biome = |name: &str| preset.biome_index(name).unwrap_or(0) as u32;
        let r = &preset.biome_rules;
        let mut biome_table = [[0u32; TABLE_SIZE]; TABLE_SIZE];
        for (row, names) in biome_table.iter_mut().zip(&r.table) {
            for (cell, name) in row.iter_mut().zip(names) {
                *cell = biome(name);
            }
        }
        let mut p = WorldParams {
            node_count: preset.noise.len() as u32,
            biome_count: preset.biomes.len() as u32,
            field_roots,
            nodes,
            perlin_gain: (preset.perlin_amplitude as f64 / SCALE_3D as f64) as f32,
            height_amplitude: preset.column.height_amplitude,
            mountain_amplitude: preset.column.mountain_amplitude,
            roughness_amplitude: preset.column.roughness_amplitude,
            temperature_mountain_cooling: preset.column.temperature_mountain_cooling,
            peak_exponent_scale: preset.column.peak_exponent_scale,
            ocean_max_height: r.ocean_max_height,
            ocean_max_mountain: r.ocean_max_mountain,
            beach_max_height: r.beach_max_height,
            mountain_min: r.mountain_min,
            mountain_min_with_height: r.mountain_min_with_height,
            heat_thresholds: [0.0; THRESHOLDS],
            moisture_thresholds: [0.0; THRESHOLDS],
            threshold_search_limit: r.threshold_search_limit,
            ocean_biome: biome(&r.ocean),
            beach_biome: biome(&r.beach),
            mountain_biome: biome(&r.mountain),
            biome_table,
            biome_top: [0; MAX_BIOMES],
            biome_under: [0; MAX_BIOMES],
            biome_roughness: [0.0; MAX_BIOMES],
            biome_scale: [0.0; MAX_BIOMES],
            biome_exponent: [1.0; MAX_BIOMES],
            water_level: preset.fill.water_level,
            snow_above: preset.fill.snow_above,
            under_depth: preset.fill.under_depth,
            water_block: block(&preset.fill.water),
            deep_block: block(&preset.fill.deep),
            snow_block: block(&preset.fill.snow),
            air_block: BlockId::AIR.0 as u32,
            deco_seed: [seed as u32, (seed >> 32) as u32],
            tree_unit: 0,
            tree_reach: 0,
            tree_max_slope: 0.0,
            tree_max_density: 0,
            trunk_soil_block: 0,
            plant_reach: 0,
            tree_kind_count: 0,
            tree_kinds: [FlatTree::default(); MAX_TREE_KINDS],
            biome_tree_count: [0; MAX_BIOMES],
            biome_trees: [[FlatLayer::default(); MAX_BIOME_LAYERS]; MAX_BIOMES],
            biome_tree_map: [FlatDensityMap::default(); MAX_BIOMES],
            biome_plant_count: [0; MAX_BIOMES],
            biome_plants: [[FlatLayer::default(); MAX_BIOME_LAYERS]; MAX_BIOMES],
            rock_unit: 0,
            rock_reach: 0,
            rock_max_density: 0,
            rock_kind_count: 0,
            rock_seed: [0; 2],
            rock_kinds: [FlatRock::default(); MAX_ROCK_KINDS],
            biome_rock_count: [0; MAX_BIOMES],
            biome_rocks: [[FlatLayer::default(); MAX_BIOME_LAYERS]; MAX_BIOMES],
            block_priority: [0; MAX_BLOCK_TYPES],
            pattern: placement::pattern(),
            bayer: placement::bayer8(),
            cave_layer_count: 0,
            cave_noise_count: 0,
            cave_bottom: 0,
            cave_top: -1,
            cave_lava_below: i32::MIN,
            cave_lava_block: 0,
            cave_water_clearance: 0,
            cave_noises: [FlatCaveNoise::default(); MAX_CAVE_NOISES],
            cave_layers: [FlatCaveLayer::default(); MAX_CAVE_LAYERS],
            vein_kind_count: 0,
            vein_spacing: 0,
            vein_reach: 0,
            vein_lowest: 0,
            vein_highest: -1,
            vein_seed: [0; 2],
            vein_kinds: [FlatVein::default(); MAX_VEIN_KINDS],
            vein_bayer: super::veins::bayer4x4x4(),
        };
        p.heat_thresholds.copy_from_slice(&r.heat_thresholds);
        p.moisture_thresholds.copy_from_slice(&r.moisture_thresholds);
        for (i, b) in preset.biomes.iter().enumerate() {
            p.biome_top[i] = block(&b.top);
            p.biome_under[i] = block(&b.under);
            p.biome_roughness[i] = b.roughness;
            p.biome_scale[i] = b.scale;
            p.biome_exponent[i] = b.exponent;
        }
        if let Some(d) = &preset.decorations {
            flatten_decorations(&mut p, preset, d, seed);
        }
        if let Some(c) = &preset.caves {
            flatten_caves(&mut p, preset, c, seed);
        }
        if let Some(v) = &preset.veins {
            flatten_veins(&mut p, v, seed);
        }
        Box::new(p)
    }

    /// Whether this world has caves.
    pub fn has_caves(&self) -> bool {
        self.cave_layer_count > 0
    }

    pub fn cave_noises(&self) -> &[FlatCaveNoise] {
        &self.cave_noises[..(self.cave_noise_count as usize).min(MAX_CAVE_NOISES)]
    }

    pub fn cave_layers(&self) -> &[FlatCaveLayer] {
        &self.cave_layers[..(self.cave_layer_count as usize).min(MAX_CAVE_LAYERS)]
    }

    /// Whether this world has veins.
    pub fn has_veins(&self) -> bool {
        self.vein_kind_count > 0
    }

    pub fn vein_kinds(&self) -> &[FlatVein] {
        &self.vein_kinds[..(self.vein_kind_count as usize).min(MAX_VEIN_KINDS)]
    }

    /// Whether anything grows in this world.
    pub fn decorates(&self) -> bool {
        self.tree_unit > 0 || self.plant_reach > 0 || self.rock_unit > 0
    }

    /// The seed rock candidates hash.
    pub fn rock_seed(&self) -> u64 {
        self.rock_seed[0] as u64 | (self.rock_seed[1] as u64) << 32
    }

    /// The seed the vein candidates hash.
    pub fn vein_seed(&self) -> u64 {
        self.vein_seed[0] as u64 | (self.vein_seed[1] as u64) << 32
    }

    /// The world seed the decorations hash.
    pub fn deco_seed(&self) -> u64 {
        self.deco_seed[0] as u64 | (self.deco_seed[1] as u64) << 32
    }

    pub fn nodes(&self) -> &[FlatNode] {
        &self.nodes[..self.node_count as usize]
    }

    /// The raw bytes uploaded to the device.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: repr(C), only u32/i32/f32 fields and u8 arrays, no pointers;
        // `twins::layouts_cover_every_byte_of_the_flat_structs` proves there is
        // no padding, so every byte is initialised.
        unsafe { std::slice::from_raw_parts((self as *const Self).cast::<u8>(), std::mem::size_of::<Self>()) }
    }

    /// The biomes the rules can ever select: ocean, beach, mountain and the
    /// table cells within the threshold search limit.
    pub fn reachable_biomes(&self) -> Vec<u32> {
        let limit = self.threshold_search_limit as usize;
        let mut v = vec![self.ocean_biome, self.beach_biome, self.mountain_biome];
        for row in &self.biome_table[..=limit] {
            v.extend_from_slice(&row[..=limit]);
        }
        v.sort_unstable();
        v.dedup();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_above_2_pow_32_differ_from_their_low_bits() {
        let low = 42u64;
        let high = low + (1u64 << 32);
        assert_ne!(node_seed(low, 1), node_seed(high, 1));
        assert_ne!(node_seed(low, 1), node_seed(low, 2));
    }

    #[test]
    fn classic_flattens_to_39_perlin_evaluations() {
        let p = WorldParams::new(&Preset::classic(), 1);
        fn cost(p: &WorldParams, i: usize) -> u32 {
            let n = p.nodes[i];
            match n.kind {
                NODE_BASIC => 1,
                NODE_OCTAVE => n.octaves,
                NODE_COMBINED => cost(p, n.children[0] as usize) + cost(p, n.children[1] as usize),
                _ => cost(p, n.children[0] as usize),
            }
        }
        let total: u32 = p.field_roots.iter().map(|&r| cost(&p, r as usize)).sum();
        assert_eq!(total, 39);
        assert_eq!(p.as_bytes().len(), std::mem::size_of::<WorldParams>());
    }
}
