//! The flat, `#[repr(C)]` form of a preset plus a seed: the one description
//! both engines run. The CPU compiles it into a lane program
//! ([`super::graph`]); the CUDA backend uploads the same bytes and builds
//! its noise objects from them. Layout twin: `kernels/worldgen_params.cuh`.

use super::noise::perlin::SCALE_3D;
use super::placement::{self, DENSITY_ONE, PATTERN_POINTS};
use super::preset::RockForm;
use super::preset::{
    Basis, CaveLayer, Caves, Decorations, DensityMap, Input, Lattice, NodeKind, Preset, Veins, MAX_BIOMES,
    MAX_BIOME_LAYERS, MAX_CANOPY_LAYERS, MAX_CAVE_LAYERS, MAX_CAVE_NOISES, MAX_CAVE_OCTAVES, MAX_NODES, MAX_ROCK_KINDS,
    MAX_TREE_KINDS, MAX_TREE_REACH, MAX_VEIN_KINDS, TABLE_SIZE, THRESHOLDS,
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
/// Musgrave's ridged multifractal: a fractal sum whose octaves weight the next.
pub const NODE_RIDGED: u32 = 13;
/// fBm with the erosion filter's gullies: a fractal sum, then gully octaves
/// steered by its analytic slope.
pub const NODE_ERODED: u32 = 14;

/// T_in codes of [`FlatNode::input`].
pub const INPUT_PLAIN: u32 = 0;
pub const INPUT_RIDGED: u32 = 1;
pub const INPUT_BILLOW: u32 = 2;
/// Or'ed into a fractal's `input`: its octaves draw value noise, not Perlin.
pub const INPUT_VALUE_BASIS: u32 = 4;
/// Or'ed into a Basic or Octave node's `input`: it samples Perlin's
/// permutation lattice (`noise::permutation`), its `z_offset` the founding
/// game's `seed + 32·offset`, and its seed unused.
pub const INPUT_PERMUTATION: u32 = 8;

/// Slots of [`FlatNode::slots`], by kind.
pub const SLOT_EXPONENT: usize = 0; // ExpScale; Bias; Gain below ½
pub const SLOT_SCALE: usize = 1; // ExpScale
pub const SLOT_EXPONENT_HIGH: usize = 1; // Gain above ½
pub const SLOT_LACUNARITY: usize = 0; // fractals
pub const SLOT_WEIGHT: usize = 1; // fractals: w = λ^(−H)
pub const SLOT_FREQUENCY: usize = 2; // fractals
pub const SLOT_SHIFT: usize = 3; // Hetero, Hybrid
pub const SLOT_CREST: usize = 3; // Ridged: Musgrave's offset
pub const SLOT_RIDGE_GAIN: usize = 4; // Ridged: Musgrave's gain
pub const SLOT_GULLY_FREQUENCY: usize = 3; // Eroded: gully cells per unit of the fBm's coordinates
pub const SLOT_GULLY_STRENGTH: usize = 4; // Eroded: the first gully octave's depth
pub const SLOT_GULLY_OCTAVES: usize = 5; // Eroded: gully octaves, a whole number
pub const SLOT_STRENGTH: usize = 0; // Distort
pub const SLOT_LOW: usize = 0; // Normalize
pub const SLOT_INV_SPAN: usize = 1; // Normalize
pub const SLOT_MUL: usize = 0; // Linear
pub const SLOT_ADD: usize = 1; // Linear
pub const NODE_SLOTS: usize = 6;
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
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FlatNode {
    pub kind: u32,
    /// Gradient-hash seed derived from the world seed and the node's offset
    /// (octave j of a fractal adds j·[`OCTAVE_SEED_STEP`]).
    pub seed: u32,
    pub octaves: u32,
    /// T_in of a fractal (`INPUT_*`), with [`INPUT_VALUE_BASIS`] where its
    /// octaves draw value noise.
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
            slots: [0.0; NODE_SLOTS],
        }
    }
}

/// One layer of leaves of a tree kind. Twin: `FlatLeafLayer` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
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
    /// [`FORM_BOULDER`] or [`FORM_LOG`].
    pub form: u32,
    /// A log's block along z (`block` lies along x).
    pub along_z_block: u32,
}

/// [`FlatRock::form`]: an ellipsoid half sunk in the ground.
pub const FORM_BOULDER: u32 = 0;
/// [`FlatRock::form`]: a row of logs lying on the ground along x or z.
pub const FORM_LOG: u32 = 1;

/// One decoration layer of a biome. Twin: `FlatLayer` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FlatLayer {
    /// Tree or rock kind index (tree and rock layers) or block id (plant layers).
    pub what: u32,
    /// Share of the candidates it takes, in 1/`DENSITY_ONE`.
    pub density: u32,
    /// Bit b set: grows on block id b.
    pub on_mask: u32,
    /// The surface heights it takes, less the water level, inclusive:
    /// [`DRY`] for trees and rocks; a plant window below 0 puts the plant
    /// on the water (lily pads), one within 0..=1 on the shore (reeds).
    pub above_water: [i32; 2],
}

/// [`FlatLayer::above_water`] of every layer that lists no window: any
/// surface at or above the water level.
pub const DRY: [i32; 2] = [0, i32::MAX];

impl FlatLayer {
    /// Whether a surface at height `h` lies in the layer's window over
    /// water level `water`. Twin: `bw_in_window`.
    #[inline]
    pub fn takes_height(&self, h: i32, water: i32) -> bool {
        let d = h as i64 - water as i64;
        self.above_water[0] as i64 <= d && d <= self.above_water[1] as i64
    }
}

/// A biome's tree density map (see `DensityMap` in the preset): the node
/// of the noise graph, or [`NO_DENSITY_MAP`], and its transform. Twin:
/// `FlatDensityMap` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
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
/// Xor'ed into an Eroded node's seed for its gully octaves, so the gullies
/// never draw the fBm's own lattice numbers.
pub const GULLY_SEED: u32 = 0x68E3_1DA4;

pub const CAVE_CHAMBERS: u32 = 0;
pub const CAVE_TUNNELS: u32 = 1;

/// A cave layer. Twin: `FlatCaveLayer` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
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

/// The whole world description: one block per generation stage, each read
/// by that stage on both engines. The blocks are `Pod`, so the compiler
/// proves there is no padding and the upload is plain bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WorldParams {
    pub terrain: TerrainParams,
    pub biomes: BiomeParams,
    pub surface: SurfaceParams,
    pub deco: DecorationParams,
    pub caves: CaveParams,
    pub veins: VeinParams,
}

/// The noise graph and the height recipe of the column stage.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TerrainParams {
    pub node_count: u32,
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
    pub rivers: RiverParams,
}

/// Rivers (`preset::Rivers`): the column stage's carving, applied after a
/// column's height is found. Twin: `RiverParams` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RiverParams {
    /// 1 where the preset has rivers.
    pub on: u32,
    /// The node whose zero line they follow.
    pub course: u32,
    /// The channel's biome.
    pub biome: u32,
    pub width: f32,
    /// 1 / width, and 1 / (valley − width).
    pub inv_width: f32,
    pub inv_span: f32,
    /// The water level, the bed (the water level less the depth) and the
    /// bank (one block above the water).
    pub water: f32,
    pub bed: f32,
    pub bank: f32,
    pub inv_max_height: f32,
}

impl RiverParams {
    fn new(preset: &Preset) -> RiverParams {
        let Some(r) = &preset.rivers else { return RiverParams::default() };
        let water = preset.fill.water_level as f32;
        RiverParams {
            on: 1,
            course: preset.node_indices().get(r.course.as_str()).copied().unwrap_or(0) as u32,
            biome: preset.biome_index(&r.biome).unwrap_or(0) as u32,
            width: r.width,
            inv_width: (1.0 / r.width as f64) as f32,
            inv_span: (1.0 / (r.valley as f64 - r.width as f64)) as f32,
            water,
            bed: water - r.depth,
            bank: water + 1.0,
            inv_max_height: (1.0 / r.max_height as f64) as f32,
        }
    }

    /// A column's height `h` after the river carving, and whether it lies
    /// in the channel: |course| = `a`. One fixed order of single f32
    /// operations, as `bw_river` in kernels/column.cuh.
    #[inline(always)]
    pub fn carve(&self, h: f32, course: f32) -> (f32, bool) {
        let a = course.abs();
        // 0 at the water, 1 from max_height above it: how much the land resists.
        let lift = ((h - self.water) * self.inv_max_height).clamp(0.0, 1.0);
        // The floor: in the channel from the bed up to the bank, then up the
        // valley wall from the bank to the land, smooth at both edges.
        let floor = if a < self.width {
            let q = (a * self.inv_width).clamp(0.0, 1.0);
            self.bed + (self.bank - self.bed) * (q * q * (3.0 - 2.0 * q))
        } else {
            let t = ((a - self.width) * self.inv_span).clamp(0.0, 1.0);
            self.bank + (h - self.bank) * (t * t * (3.0 - 2.0 * t))
        };
        // The carving fades out as the land rises.
        let carved = h + (floor - h) * (1.0 - lift);
        let out = h.min(carved);
        // A channel only where it cut into land: the sea floor stays sea.
        (out, a < self.width && out < self.water && h >= self.water)
    }
}

/// How the column stage picks a biome, and how each biome shapes height.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BiomeParams {
    pub count: u32,
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
    pub table: [[u32; TABLE_SIZE]; TABLE_SIZE],
    pub roughness: [f32; MAX_BIOMES],
    pub scale: [f32; MAX_BIOMES],
    pub exponent: [f32; MAX_BIOMES],
}

/// The fill stage: which block lies where over a column's surface.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SurfaceParams {
    /// Each biome's top and under block.
    pub top: [u32; MAX_BIOMES],
    pub under: [u32; MAX_BIOMES],
    pub water_level: i32,
    pub snow_above: i32,
    pub under_depth: i32,
    pub water_block: u32,
    pub deep_block: u32,
    pub snow_block: u32,
    pub air_block: u32,
}

/// The decoration stage: trees, rocks and plants, placed by the candidate
/// pattern ([`placement`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DecorationParams {
    /// The world seed (low, high word): picks each cell's dithering offset
    /// and each tree's height, by hashing, never as a random stream.
    pub seed: [u32; 2],
    pub trunk_soil_block: u32,
    /// Where two decorations claim one block, the higher of
    /// (priority, id) wins: trunks over rocks over leaves over plants, air lowest.
    pub block_priority: [u32; MAX_BLOCK_TYPES],
    pub trees: TreeParams,
    pub rocks: RockParams,
    pub plants: PlantParams,
    /// The candidate pattern and the dithering matrix ([`placement`]).
    pub pattern: [[u8; 2]; PATTERN_POINTS],
    pub bayer: [u8; PATTERN_POINTS],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TreeParams {
    /// Candidate spacing in blocks; 0: no trees.
    pub unit: i32,
    /// How far outside a chunk column trees can reach into it.
    pub reach: i32,
    pub max_slope: f32,
    /// The largest total tree density of any biome: candidates above it are rejected unseen.
    pub max_density: u32,
    pub kind_count: u32,
    pub kinds: [FlatTree; MAX_TREE_KINDS],
    pub biome_count: [u32; MAX_BIOMES],
    pub biome_layers: [[FlatLayer; MAX_BIOME_LAYERS]; MAX_BIOMES],
    /// Each biome's tree density map.
    pub biome_map: [FlatDensityMap; MAX_BIOMES],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RockParams {
    /// Candidate spacing in blocks; 0: no rocks.
    pub unit: i32,
    /// How far from its centre block a rock reaches along any axis: its
    /// largest radius, one more where its hash stretches or raises it.
    pub reach: i32,
    /// The largest total rock density of any biome.
    pub max_density: u32,
    pub kind_count: u32,
    /// The seed rock candidates hash: not the trees', so the two grids'
    /// thresholds are unrelated.
    pub seed: [u32; 2],
    pub kinds: [FlatRock; MAX_ROCK_KINDS],
    pub biome_count: [u32; MAX_BIOMES],
    pub biome_layers: [[FlatLayer; MAX_BIOME_LAYERS]; MAX_BIOMES],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PlantParams {
    /// 1 when some biome has plants (they stand one block above the surface).
    pub reach: i32,
    pub biome_count: [u32; MAX_BIOMES],
    pub biome_layers: [[FlatLayer; MAX_BIOME_LAYERS]; MAX_BIOMES],
    /// Each plant layer's density map.
    pub layer_maps: [[FlatDensityMap; MAX_BIOME_LAYERS]; MAX_BIOMES],
    /// Per biome, the plants' total density where every map is at its
    /// highest: candidates at or above it are rejected unseen.
    pub max_density: [u32; MAX_BIOMES],
    /// Each plant layer's reach to the water's edge: it grows only where
    /// a column within this many blocks (in x plus z) lies on the other
    /// side of the water line; 0 for no limit.
    pub shore: [[u32; MAX_BIOME_LAYERS]; MAX_BIOMES],
    /// The farthest any patch reaches from its centre; 0: no patches.
    pub patch_reach: i32,
    pub patch_count: [u32; MAX_BIOMES],
    /// Per biome, its patch layers, in the order listed.
    pub patches: [[FlatPatch; MAX_BIOME_LAYERS]; MAX_BIOMES],
    /// Per patch slot, the largest chance any biome's layer there reaches
    /// where its map is highest: a centre hash at or above it is rejected
    /// before the column under it is known.
    pub patch_bound: [u32; MAX_BIOME_LAYERS],
}

/// One patch layer of a biome (`Patch` in the preset). Twin: `FlatPatch`
/// in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FlatPatch {
    /// The plant's block id.
    pub what: u32,
    /// A column's chance of being a centre, in 1/[`PATCH_ONE`].
    pub chance: u32,
    pub on_mask: u32,
    pub above_water: [i32; 2],
    pub map: FlatDensityMap,
    /// The patch's `s` is `half_min` plus up to `half_span`; each
    /// half-extent is `s` ± up to `jitter`.
    pub half_min: u32,
    pub half_span: u32,
    pub jitter: u32,
    /// The share of the columns it takes that hold the plant, in 1/[`PATCH_ONE`].
    pub share: u32,
}

impl Default for FlatPatch {
    fn default() -> Self {
        FlatPatch {
            what: 0,
            chance: 0,
            on_mask: 0,
            above_water: DRY,
            map: FlatDensityMap::default(),
            half_min: 0,
            half_span: 0,
            jitter: 0,
            share: 0,
        }
    }
}

impl FlatPatch {
    /// The layer's rules for the columns it fills, as a plant layer.
    pub fn layer(&self) -> FlatLayer {
        FlatLayer { what: self.what, density: 0, on_mask: self.on_mask, above_water: self.above_water }
    }
}

/// The unit of a patch's chance and share: 24 bits of a hash.
pub const PATCH_ONE: u32 = 1 << 24;

/// A patch chance or share in 1/[`PATCH_ONE`].
fn patch_fraction(v: f32) -> u32 {
    ((v as f64 * PATCH_ONE as f64).round() as u32).min(PATCH_ONE)
}

/// The cave stage (the density pass).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CaveParams {
    /// 0: no caves.
    pub layer_count: u32,
    pub noise_count: u32,
    pub bottom: i32,
    pub top: i32,
    pub lava_below: i32,
    pub lava_block: u32,
    pub water_clearance: i32,
    /// Lava only at or below the surface minus this.
    pub lava_cover: i32,
    pub noises: [FlatCaveNoise; MAX_CAVE_NOISES],
    pub layers: [FlatCaveLayer; MAX_CAVE_LAYERS],
}

/// The vein stage: ore and patches in the rock.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct VeinParams {
    /// 0: no veins.
    pub kind_count: u32,
    /// Candidate spacing in blocks (one per spacing³ cube).
    pub spacing: i32,
    /// The furthest any vein reaches from its centre along an axis.
    pub reach: i32,
    /// The lowest and highest vein centre of any kind.
    pub lowest: i32,
    pub highest: i32,
    /// Hashed from the world seed apart from the decorations' (low, high word).
    pub seed: [u32; 2],
    pub kinds: [FlatVein; MAX_VEIN_KINDS],
    /// The 4 × 4 × 4 ordered-dithering matrix of the vein candidates.
    pub bayer: [u8; PATTERN_POINTS],
}

/// Priority classes of [`DecorationParams::block_priority`].
pub const PRIORITY_PLANT: u32 = 1;
pub const PRIORITY_LEAVES: u32 = 2;
pub const PRIORITY_ROCK: u32 = 3;
pub const PRIORITY_TRUNK: u32 = 4;
/// Salt of [`RockParams::seed`].
const ROCK_SEED_SALT: u64 = 0x526F_636B_5365_6564;

// Validation keeps the names of a mask below MASK_BLOCK_IDS.
const _: () = assert!(super::preset::MASK_BLOCK_IDS <= u32::BITS as usize);

fn block_mask(names: &[String]) -> u32 {
    names.iter().fold(0, |m, n| m | 1u32.checked_shl(block(n)).unwrap_or(0))
}

fn density(chance: f32, candidates_per_column: f32) -> u32 {
    ((chance as f64 * candidates_per_column as f64 * DENSITY_ONE as f64).round() as u32).min(DENSITY_ONE)
}

/// Fills the decoration part of `p` from the preset's `decorations`.
fn flatten_decorations(p: &mut DecorationParams, preset: &Preset, d: &Decorations, seed: u64) {
    let unit2 = (d.tree_spacing * d.tree_spacing) as f32;
    let nodes = preset.node_indices();
    let flat_map = |m: &DensityMap| FlatDensityMap {
        node: nodes.get(m.noise.as_str()).map_or(NO_DENSITY_MAP, |&i| i as u32),
        scale: m.scale,
        offset: m.offset,
        min: m.min,
        max: m.max,
    };
    p.trees.unit = d.tree_spacing as i32;
    p.trees.max_slope = d.tree_max_slope;
    p.trunk_soil_block = block(&d.trunk_soil);
    p.trees.kind_count = d.trees.len() as u32;
    let mut raise = |id: u32, class: u32| {
        if let Some(slot) = p.block_priority.get_mut(id as usize) {
            *slot = (*slot).max(class);
        }
    };
    let mut reach = 0;
    for (slot, t) in p.trees.kinds.iter_mut().zip(&d.trees) {
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
    p.trees.reach = reach;
    for b in &d.biomes {
        let Some(bi) = preset.biome_index(&b.biome) else { continue };
        if let Some(m) = &b.tree_density {
            p.trees.biome_map[bi] = flat_map(m);
        }
        let top = p.trees.biome_map[bi].max;
        let mut total = 0;
        for (slot, (name, chance)) in p.trees.biome_layers[bi].iter_mut().zip(&b.trees) {
            let kind = d.trees.iter().position(|t| &t.name == name).unwrap_or(0);
            let dens = density(*chance, unit2);
            // The bound for the unseen rejection: the scaled density is
            // monotone in the factor, which never exceeds `max`.
            total += scaled_density(dens, top);
            *slot =
                FlatLayer { what: kind as u32, density: dens, on_mask: p.trees.kinds[kind].on_mask, above_water: DRY };
        }
        p.trees.biome_count[bi] = b.trees.len() as u32;
        p.trees.max_density = p.trees.max_density.max(total);
        let mut plant_total = 0;
        let mut l = 0;
        for plant in b.plants.iter().take(MAX_BIOME_LAYERS) {
            let map = plant.density.as_ref().map_or_else(FlatDensityMap::default, &flat_map);
            if let Some(patch) = &plant.patch {
                let k = p.plants.patch_count[bi] as usize;
                let flat = FlatPatch {
                    what: block(&plant.block),
                    chance: patch_fraction(plant.chance),
                    on_mask: block_mask(&plant.on),
                    above_water: plant.above_water.map_or(DRY, |(lo, hi)| [lo, hi]),
                    map,
                    half_min: patch.size.0,
                    half_span: patch.size.1 - patch.size.0,
                    jitter: patch.jitter,
                    share: patch_fraction(patch.share),
                };
                raise(flat.what, PRIORITY_PLANT);
                p.plants.patch_bound[k] = p.plants.patch_bound[k].max(scaled_density(flat.chance, map.max));
                p.plants.patch_reach = p.plants.patch_reach.max((patch.size.1 + patch.jitter) as i32);
                p.plants.patches[bi][k] = flat;
                p.plants.patch_count[bi] += 1;
                continue;
            }
            let slot = FlatLayer {
                what: block(&plant.block),
                density: density(plant.chance, 1.0),
                on_mask: block_mask(&plant.on),
                above_water: plant.above_water.map_or(DRY, |(lo, hi)| [lo, hi]),
            };
            plant_total += scaled_density(slot.density, map.max);
            raise(slot.what, PRIORITY_PLANT);
            p.plants.biome_layers[bi][l] = slot;
            p.plants.layer_maps[bi][l] = map;
            p.plants.shore[bi][l] = plant.shore.unwrap_or(0);
            l += 1;
        }
        let layers: Vec<_> =
            (0..l).map(|l| (p.plants.biome_layers[bi][l].density, p.plants.layer_maps[bi][l])).collect();
        p.plants.max_density[bi] = plant_total.min(plant_bound(&layers));
        p.plants.biome_count[bi] = l as u32;
        if !b.plants.is_empty() {
            p.plants.reach = 1;
        }
    }
    if p.trees.max_density == 0 {
        p.trees.unit = 0;
    }
    flatten_rocks(p, preset, d, seed);
}

/// Above the most a biome's plant layers (density, map) can sum to at one
/// column, scaled by their maps: the bound a candidate's threshold must
/// be below for any layer to take it. Layers that read one node see one
/// value of it there, so their sum is a piecewise linear function of that
/// value (before truncation), largest where some layer's factor starts or
/// stops changing or as the value runs off to either side; roses where a
/// map is high and buttercups where it is low never count together.
/// Layers of different nodes, or of none, add their largest each.
fn plant_bound(layers: &[(u32, FlatDensityMap)]) -> u32 {
    let mut bound = 0u32;
    let mut nodes: Vec<u32> = Vec::new();
    for (d, map) in layers {
        if map.node == NO_DENSITY_MAP {
            bound += scaled_density(*d, map.max);
        } else if !nodes.contains(&map.node) {
            nodes.push(map.node);
        }
    }
    for node in nodes {
        let group: Vec<_> = layers.iter().filter(|(_, m)| m.node == node).collect();
        let clamp = |m: &FlatDensityMap, f: f64| f.max(m.min as f64).min(m.max as f64);
        // The factors where the value runs off below and above.
        let limit = |m: &FlatDensityMap, up: bool| match (m.scale > 0.0, m.scale < 0.0) {
            (true, _) => (if up { m.max } else { m.min }) as f64,
            (_, true) => (if up { m.min } else { m.max }) as f64,
            _ => clamp(m, m.offset as f64),
        };
        let mut sums: Vec<f64> =
            [false, true].iter().map(|&up| group.iter().map(|(d, m)| *d as f64 * limit(m, up)).sum()).collect();
        for (_, m) in &group {
            if m.scale == 0.0 {
                continue;
            }
            for edge in [m.min, m.max] {
                let v = (edge as f64 - m.offset as f64) / m.scale as f64;
                sums.push(group.iter().map(|(d, k)| *d as f64 * clamp(k, v * k.scale as f64 + k.offset as f64)).sum());
            }
        }
        let most = sums.into_iter().fold(0.0f64, f64::max);
        // The f32 factors may round a hair above the line: a block per
        // layer of slack keeps the bound above every truncated sum.
        bound += (most * (1.0 + 1e-6)).ceil() as u32 + group.len() as u32;
    }
    bound
}

/// Fills the rock part of `p` from the preset's `decorations`.
fn flatten_rocks(p: &mut DecorationParams, preset: &Preset, d: &Decorations, seed: u64) {
    let s = splitmix64(seed ^ ROCK_SEED_SALT);
    p.rocks.seed = [s as u32, (s >> 32) as u32];
    p.rocks.kind_count = d.rocks.len() as u32;
    let mut reach = 0;
    for (slot, r) in p.rocks.kinds.iter_mut().zip(&d.rocks) {
        *slot = FlatRock {
            block: block(&r.block),
            top_block: block(r.top.as_deref().unwrap_or(&r.block)),
            radius_min: r.radius.0,
            radius_span: r.radius.1 - r.radius.0,
            on_mask: block_mask(&r.on),
            max_slope: r.max_slope,
            form: match r.form {
                RockForm::Boulder => FORM_BOULDER,
                RockForm::Log => FORM_LOG,
            },
            along_z_block: r.along_z.as_deref().map_or(0, block),
        };
        reach = reach.max(r.radius.1 as i32 + 1);
        // A boulder has no block along z: air keeps the lowest claim.
        for id in [slot.block, slot.top_block, slot.along_z_block].into_iter().filter(|&id| id != 0) {
            if let Some(slot) = p.block_priority.get_mut(id as usize) {
                *slot = (*slot).max(PRIORITY_ROCK);
            }
        }
    }
    p.rocks.reach = reach;
    let unit2 = (d.rock_spacing * d.rock_spacing) as f32;
    for b in &d.biomes {
        let Some(bi) = preset.biome_index(&b.biome) else { continue };
        let mut total = 0;
        for (slot, (name, chance)) in p.rocks.biome_layers[bi].iter_mut().zip(&b.rocks) {
            let kind = d.rocks.iter().position(|r| &r.name == name).unwrap_or(0);
            *slot = FlatLayer {
                what: kind as u32,
                density: density(*chance, unit2),
                on_mask: p.rocks.kinds[kind].on_mask,
                above_water: DRY,
            };
            total += slot.density;
        }
        p.rocks.biome_count[bi] = b.rocks.len() as u32;
        p.rocks.max_density = p.rocks.max_density.max(total);
    }
    if p.rocks.max_density > 0 {
        p.rocks.unit = d.rock_spacing as i32;
    }
}

/// Fills the cave part of `p` from the preset's `caves`.
fn flatten_caves(p: &mut CaveParams, preset: &Preset, c: &Caves, seed: u64) {
    p.bottom = c.bottom;
    p.top = c.top;
    p.lava_below = c.lava_below;
    p.lava_block = block(&c.lava);
    p.water_clearance = c.water_clearance as i32;
    p.lava_cover = c.lava_cover as i32;
    p.noise_count = c.noises.len() as u32;
    for (slot, n) in p.noises.iter_mut().zip(&c.noises) {
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
    p.layer_count = c.layers.len() as u32;
    for (slot, l) in p.layers.iter_mut().zip(&c.layers) {
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
fn flatten_veins(p: &mut VeinParams, v: &Veins, seed: u64) {
    let s = splitmix64(seed ^ VEIN_SEED_SALT);
    p.seed = [s as u32, (s >> 32) as u32];
    p.spacing = v.spacing as i32;
    p.kind_count = v.kinds.len() as u32;
    p.lowest = v.kinds.iter().map(|k| k.heights.0).min().unwrap_or(0);
    p.highest = v.kinds.iter().map(|k| k.heights.1).max().unwrap_or(-1);
    p.reach = v.kinds.iter().map(|k| super::preset::reach(k) as i32).max().unwrap_or(0);
    for (slot, k) in p.kinds.iter_mut().zip(&v.kinds) {
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
/// A fractal node whose octaves draw `basis`.
fn with_basis(node: FlatNode, basis: Basis) -> FlatNode {
    match basis {
        Basis::Perlin => node,
        Basis::Value => FlatNode { input: node.input | INPUT_VALUE_BASIS, ..node },
    }
}

pub(crate) fn flatten_node(node: &NodeKind, seed: u64, child: &dyn Fn(&str) -> i32) -> FlatNode {
    let leaf = |kind: u32, offset: u32, octaves: u32| FlatNode {
        kind,
        seed: node_seed(seed, offset),
        octaves,
        z_offset: 32.0 * offset as f32,
        ..FlatNode::default()
    };
    // The slots a kind uses, the rest zero.
    let slots = |used: &[f32]| {
        let mut all = [0.0; NODE_SLOTS];
        all[..used.len()].copy_from_slice(used);
        all
    };
    let unary = |kind: u32, source: &str, used: &[f32]| FlatNode {
        kind,
        children: [child(source), -1, -1],
        slots: slots(used),
        ..FlatNode::default()
    };
    let fractal =
        |kind: u32, octaves: u32, offset: u32, lacunarity: f32, h: f32, frequency: f32, input: Input, extra: &[f32]| {
            // w = λ^(−H) once, in f64, so both engines multiply by the same f32.
            let weight = (lacunarity as f64).powf(-(h as f64)) as f32;
            let input = match input {
                Input::Plain => INPUT_PLAIN,
                Input::Ridged => INPUT_RIDGED,
                Input::Billow => INPUT_BILLOW,
            };
            let used: Vec<f32> = [lacunarity, weight, frequency].into_iter().chain(extra.iter().copied()).collect();
            FlatNode { input, slots: slots(&used), ..leaf(kind, offset, octaves) }
        };
    // bias_b(t) = t^(ln b / ln ½)
    let bias = |b: f32| ((b as f64).ln() / 0.5f64.ln()) as f32;
    match node {
        NodeKind::Basic { offset } => leaf(NODE_BASIC, *offset, 1),
        NodeKind::Octave { octaves, offset } => leaf(NODE_OCTAVE, *offset, *octaves),
        NodeKind::Fbm { octaves, offset, lacunarity, h, frequency, input, basis } => {
            with_basis(fractal(NODE_FBM, *octaves, *offset, *lacunarity, *h, *frequency, *input, &[]), *basis)
        }
        NodeKind::Hetero { octaves, offset, lacunarity, h, frequency, input, shift, basis } => {
            with_basis(fractal(NODE_HETERO, *octaves, *offset, *lacunarity, *h, *frequency, *input, &[*shift]), *basis)
        }
        NodeKind::Hybrid { octaves, offset, lacunarity, h, frequency, input, shift, basis } => {
            with_basis(fractal(NODE_HYBRID, *octaves, *offset, *lacunarity, *h, *frequency, *input, &[*shift]), *basis)
        }
        NodeKind::Quilez { octaves, offset, lacunarity, h, frequency, basis } => {
            with_basis(fractal(NODE_QUILEZ, *octaves, *offset, *lacunarity, *h, *frequency, Input::Plain, &[]), *basis)
        }
        NodeKind::Eroded { octaves, offset, lacunarity, h, frequency, basis, gullies } => with_basis(
            fractal(
                NODE_ERODED,
                *octaves,
                *offset,
                *lacunarity,
                *h,
                *frequency,
                Input::Plain,
                &[gullies.frequency, gullies.strength, gullies.octaves as f32],
            ),
            *basis,
        ),
        NodeKind::Ridged { octaves, offset, lacunarity, h, frequency, crest, gain, basis } => with_basis(
            fractal(NODE_RIDGED, *octaves, *offset, *lacunarity, *h, *frequency, Input::Plain, &[*crest, *gain]),
            *basis,
        ),
        NodeKind::Combined { source, offset_by } => {
            FlatNode { kind: NODE_COMBINED, children: [child(source), child(offset_by), -1], ..FlatNode::default() }
        }
        NodeKind::Distort { source, by, strength } => FlatNode {
            kind: NODE_DISTORT,
            children: [child(source), child(&by.0), child(&by.1)],
            slots: slots(&[*strength]),
            ..FlatNode::default()
        },
        NodeKind::ExpScale { source, exponent, scale } => unary(NODE_EXPSCALE, source, &[*exponent, *scale]),
        NodeKind::Normalize { source, from } => {
            let inv_span = (1.0 / (from.1 as f64 - from.0 as f64)) as f32;
            unary(NODE_NORMALIZE, source, &[from.0, inv_span])
        }
        NodeKind::Linear { source, mul, add } => unary(NODE_LINEAR, source, &[*mul, *add]),
        NodeKind::Bias { source, b } | NodeKind::Glacier { source, b } => unary(NODE_BIAS, source, &[bias(*b)]),
        NodeKind::Gain { source, g } | NodeKind::Canyon { source, g } => {
            unary(NODE_GAIN, source, &[bias(1.0 - g), bias(1.0 - g)])
        }
        NodeKind::Plateau { source, g } => unary(NODE_GAIN, source, &[bias(1.0 - g), bias(*g)]),
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
        Box::new(WorldParams {
            terrain: TerrainParams::new(preset, seed),
            biomes: BiomeParams::new(preset),
            surface: SurfaceParams::new(preset),
            deco: DecorationParams::new(preset, seed),
            caves: CaveParams::new(preset, seed),
            veins: VeinParams::new(seed, preset.veins.as_ref()),
        })
    }

    /// Whether this world has caves.
    pub fn has_caves(&self) -> bool {
        self.caves.layer_count > 0
    }

    /// Whether this world has veins.
    pub fn has_veins(&self) -> bool {
        self.veins.kind_count > 0
    }

    /// Whether anything grows in this world.
    pub fn decorates(&self) -> bool {
        self.deco.trees.unit > 0 || self.deco.plants.reach > 0 || self.deco.rocks.unit > 0
    }

    /// The raw bytes uploaded to the device.
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::bytes_of(self)
    }
}

impl TerrainParams {
    fn new(preset: &Preset, seed: u64) -> TerrainParams {
        let index = preset.node_indices();
        let child = |name: &str| index.get(name).map(|&i| i as i32).unwrap_or(-1);
        let mut nodes = [FlatNode::default(); MAX_NODES];
        let permuted = preset.lattice == Lattice::Permutation;
        for (slot, named) in nodes.iter_mut().zip(&preset.noise) {
            *slot = flatten_node(&named.node, seed, &child);
            if let (true, NodeKind::Basic { offset } | NodeKind::Octave { offset, .. }) = (permuted, &named.node) {
                slot.input |= INPUT_PERMUTATION;
                slot.seed = 0;
                slot.z_offset = super::noise::permutation::plane(seed, *offset);
            }
        }
        // The gain brings the lattice's own scale to the preset's amplitude:
        // exactly 1 for noise1234's 0.936 on its own lattice.
        let lattice_scale = if permuted { super::noise::permutation::SCALE } else { SCALE_3D };
        let mut field_roots = [0u32; FIELD_COUNT];
        for (root, (_, name)) in field_roots.iter_mut().zip(preset.fields.in_order()) {
            *root = index.get(name).copied().unwrap_or(0) as u32;
        }
        let c = &preset.column;
        TerrainParams {
            node_count: preset.noise.len() as u32,
            field_roots,
            nodes,
            perlin_gain: (preset.perlin_amplitude as f64 / lattice_scale as f64) as f32,
            height_amplitude: c.height_amplitude,
            mountain_amplitude: c.mountain_amplitude,
            roughness_amplitude: c.roughness_amplitude,
            temperature_mountain_cooling: c.temperature_mountain_cooling,
            peak_exponent_scale: c.peak_exponent_scale,
            rivers: RiverParams::new(preset),
        }
    }

    pub fn nodes(&self) -> &[FlatNode] {
        &self.nodes[..self.node_count as usize]
    }
}

impl BiomeParams {
    fn new(preset: &Preset) -> BiomeParams {
        let biome = |name: &str| preset.biome_index(name).unwrap_or(0) as u32;
        let r = &preset.biome_rules;
        let mut p = BiomeParams {
            count: preset.biomes.len() as u32,
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
            table: [[0; TABLE_SIZE]; TABLE_SIZE],
            roughness: [0.0; MAX_BIOMES],
            scale: [0.0; MAX_BIOMES],
            exponent: [1.0; MAX_BIOMES],
        };
        p.heat_thresholds.copy_from_slice(&r.heat_thresholds);
        p.moisture_thresholds.copy_from_slice(&r.moisture_thresholds);
        for (row, names) in p.table.iter_mut().zip(&r.table) {
            for (cell, name) in row.iter_mut().zip(names) {
                *cell = biome(name);
            }
        }
        for (i, b) in preset.biomes.iter().enumerate().take(MAX_BIOMES) {
            p.roughness[i] = b.roughness;
            p.scale[i] = b.scale;
            p.exponent[i] = b.exponent;
        }
        p
    }

    /// The biomes the rules can ever select: ocean, beach, mountain and the
    /// table cells within the threshold search limit.
    pub fn reachable(&self) -> Vec<u32> {
        let limit = self.threshold_search_limit as usize;
        let mut v = vec![self.ocean_biome, self.beach_biome, self.mountain_biome];
        for row in &self.table[..=limit] {
            v.extend_from_slice(&row[..=limit]);
        }
        v.sort_unstable();
        v.dedup();
        v
    }
}

impl WorldParams {
    /// Every biome the column stage can choose: the rules' and the rivers'.
    pub fn reachable_biomes(&self) -> Vec<u32> {
        let mut v = self.biomes.reachable();
        if self.terrain.rivers.on != 0 {
            v.push(self.terrain.rivers.biome);
            v.sort_unstable();
            v.dedup();
        }
        v
    }
}

impl SurfaceParams {
    fn new(preset: &Preset) -> SurfaceParams {
        let f = &preset.fill;
        let mut p = SurfaceParams {
            top: [0; MAX_BIOMES],
            under: [0; MAX_BIOMES],
            water_level: f.water_level,
            snow_above: f.snow_above,
            under_depth: f.under_depth,
            water_block: block(&f.water),
            deep_block: block(&f.deep),
            snow_block: block(&f.snow),
            air_block: BlockId::AIR.0 as u32,
        };
        for (i, b) in preset.biomes.iter().enumerate().take(MAX_BIOMES) {
            p.top[i] = block(&b.top);
            p.under[i] = block(&b.under);
        }
        p
    }
}

impl DecorationParams {
    fn new(preset: &Preset, seed: u64) -> DecorationParams {
        let layers = [[FlatLayer::default(); MAX_BIOME_LAYERS]; MAX_BIOMES];
        let mut p = DecorationParams {
            seed: [seed as u32, (seed >> 32) as u32],
            trunk_soil_block: 0,
            block_priority: [0; MAX_BLOCK_TYPES],
            trees: TreeParams {
                unit: 0,
                reach: 0,
                max_slope: 0.0,
                max_density: 0,
                kind_count: 0,
                kinds: [FlatTree::default(); MAX_TREE_KINDS],
                biome_count: [0; MAX_BIOMES],
                biome_layers: layers,
                biome_map: [FlatDensityMap::default(); MAX_BIOMES],
            },
            rocks: RockParams {
                unit: 0,
                reach: 0,
                max_density: 0,
                kind_count: 0,
                seed: [0; 2],
                kinds: [FlatRock::default(); MAX_ROCK_KINDS],
                biome_count: [0; MAX_BIOMES],
                biome_layers: layers,
            },
            plants: PlantParams {
                reach: 0,
                biome_count: [0; MAX_BIOMES],
                biome_layers: layers,
                layer_maps: [[FlatDensityMap::default(); MAX_BIOME_LAYERS]; MAX_BIOMES],
                max_density: [0; MAX_BIOMES],
                shore: [[0; MAX_BIOME_LAYERS]; MAX_BIOMES],
                patch_reach: 0,
                patch_count: [0; MAX_BIOMES],
                patches: [[FlatPatch::default(); MAX_BIOME_LAYERS]; MAX_BIOMES],
                patch_bound: [0; MAX_BIOME_LAYERS],
            },
            pattern: placement::pattern(),
            bayer: placement::bayer8(),
        };
        if let Some(d) = &preset.decorations {
            flatten_decorations(&mut p, preset, d, seed);
        }
        p
    }

    /// The world seed the decorations hash.
    pub fn seed(&self) -> u64 {
        self.seed[0] as u64 | (self.seed[1] as u64) << 32
    }
}

impl RockParams {
    /// The seed rock candidates hash.
    pub fn seed(&self) -> u64 {
        self.seed[0] as u64 | (self.seed[1] as u64) << 32
    }
}

impl CaveParams {
    fn new(preset: &Preset, seed: u64) -> CaveParams {
        let mut p = CaveParams {
            layer_count: 0,
            noise_count: 0,
            bottom: 0,
            top: -1,
            lava_below: i32::MIN,
            lava_block: 0,
            water_clearance: 0,
            lava_cover: 0,
            noises: [FlatCaveNoise::default(); MAX_CAVE_NOISES],
            layers: [FlatCaveLayer::default(); MAX_CAVE_LAYERS],
        };
        if let Some(c) = &preset.caves {
            flatten_caves(&mut p, preset, c, seed);
        }
        p
    }

    pub fn noises(&self) -> &[FlatCaveNoise] {
        &self.noises[..(self.noise_count as usize).min(MAX_CAVE_NOISES)]
    }

    pub fn layers(&self) -> &[FlatCaveLayer] {
        &self.layers[..(self.layer_count as usize).min(MAX_CAVE_LAYERS)]
    }
}

impl VeinParams {
    fn new(seed: u64, veins: Option<&Veins>) -> VeinParams {
        let mut p = VeinParams {
            kind_count: 0,
            spacing: 0,
            reach: 0,
            lowest: 0,
            highest: -1,
            seed: [0; 2],
            kinds: [FlatVein::default(); MAX_VEIN_KINDS],
            bayer: super::veins::bayer4x4x4(),
        };
        if let Some(v) = veins {
            flatten_veins(&mut p, v, seed);
        }
        p
    }

    pub fn kinds(&self) -> &[FlatVein] {
        &self.kinds[..(self.kind_count as usize).min(MAX_VEIN_KINDS)]
    }

    /// The seed the vein candidates hash.
    pub fn seed(&self) -> u64 {
        self.seed[0] as u64 | (self.seed[1] as u64) << 32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The river carving at hand-worked points: the channel reaches the bed
    /// on low land, the valley's edge and beyond keep the land, high land
    /// resists, and the sea floor is neither raised nor made a channel.
    #[test]
    fn river_carving_hand_checked() {
        let r = RiverParams {
            on: 1,
            course: 0,
            biome: 1,
            width: 0.01,
            inv_width: 100.0,
            inv_span: 1.0 / 0.04,
            water: 0.0,
            bed: -3.0,
            bank: 1.0,
            inv_max_height: 1.0 / 40.0,
        };
        // On the channel's line, on land at the water: down to the bed;
        // halfway to its edge, halfway up to the bank (−3 + 4·½).
        assert_eq!(r.carve(0.0, 0.0), (-3.0, true));
        assert_eq!(r.carve(0.0, 0.005), (-1.0, true));
        assert_eq!(r.carve(0.0, -0.005), (-1.0, true));
        // Just past the channel's edge, on land 5 above the water: towards
        // the bank at 1, an eighth resisted (5 − 4·⅞), dry.
        let (h, channel) = r.carve(5.0, 0.0100001);
        assert!((h - 1.5).abs() < 1e-3 && !channel, "{h}");
        // At and beyond the valley's edge (|c| ≥ 0.05): untouched.
        assert_eq!(r.carve(10.0, 0.05), (10.0, false));
        assert_eq!(r.carve(10.0, -0.3), (10.0, false));
        // Halfway up the valley wall (t = ½, smoothstep ½) on land 10
        // above the water: floor 1 + 9·½ = 5.5, a quarter resisted → 10 − 4.5·¾.
        let (h, channel) = r.carve(10.0, 0.03);
        assert!((h - (10.0 - 4.5 * 0.75)).abs() < 1e-5, "{h}");
        assert!(!channel);
        // In the channel on land 20 above: half the cut, a dry gully at 8.5.
        assert_eq!(r.carve(20.0, 0.0), (8.5, false));
        // At max_height and above: untouched.
        assert_eq!(r.carve(40.0, 0.0), (40.0, false));
        assert_eq!(r.carve(90.0, 0.0), (90.0, false));
        // The sea floor stays as it is, and stays sea.
        assert_eq!(r.carve(-12.0, 0.0), (-12.0, false));
        assert_eq!(r.carve(-1.0, 0.0), (-3.0, false));
    }

    #[test]
    fn seeds_above_2_pow_32_differ_from_their_low_bits() {
        let low = 42u64;
        let high = low + (1u64 << 32);
        assert_ne!(node_seed(low, 1), node_seed(high, 1));
        assert_ne!(node_seed(low, 1), node_seed(low, 2));
    }

    /// The stages index their tables with the biomes the rules pick and
    /// the noises the cave layers name, unchecked beyond Rust's own bounds
    /// check: every such index points inside the preset's own entries.
    #[test]
    fn the_indices_the_stages_follow_point_inside_their_tables() {
        for (name, _) in crate::worldgen::preset::BUNDLED {
            let preset = Preset::load(name).expect("a bundled preset loads");
            let p = WorldParams::new(&preset, 7);
            let n = p.biomes.count;
            assert!(n as usize == preset.biomes.len() && n as usize <= MAX_BIOMES, "{name}: {n} biomes");
            let mut picks = [p.biomes.ocean_biome, p.biomes.beach_biome, p.biomes.mountain_biome]
                .into_iter()
                .chain(p.biomes.table.iter().flatten().copied());
            assert!(picks.all(|b| b < n), "{name}: a rule picks a biome past the preset's {n}");
            let c = &p.caves;
            assert!(c.noise_count as usize <= MAX_CAVE_NOISES && c.layer_count as usize <= MAX_CAVE_LAYERS);
            for l in &c.layers[..c.layer_count as usize] {
                assert!(
                    l.a < c.noise_count && l.b < c.noise_count,
                    "{name}: a cave layer reads noise {} or {}",
                    l.a,
                    l.b
                );
            }
        }
    }

    #[test]
    fn classic_flattens_to_39_perlin_evaluations() {
        let p = WorldParams::new(&Preset::classic(), 1);
        fn cost(p: &WorldParams, i: usize) -> u32 {
            let n = p.terrain.nodes[i];
            match n.kind {
                NODE_BASIC => 1,
                NODE_OCTAVE => n.octaves,
                NODE_COMBINED => cost(p, n.children[0] as usize) + cost(p, n.children[1] as usize),
                _ => cost(p, n.children[0] as usize),
            }
        }
        let total: u32 = p.terrain.field_roots.iter().map(|&r| cost(&p, r as usize)).sum();
        assert_eq!(total, 39);
        assert_eq!(p.as_bytes().len(), std::mem::size_of::<WorldParams>());
    }

    /// The plant bound lies above every sum the layers reach over a fine
    /// sweep of their node's value, as the decoration stage computes it
    /// (f32 factors, truncated densities), and within a block a layer of
    /// the sweep's largest; on classic's grassland (its flowers a chance
    /// per column, not in patches) it is well under the sum of each
    /// layer's largest, since roses and buttercups never meet.
    #[test]
    fn the_plant_bound_holds_every_sum_and_is_tight() {
        let reached = |layers: &[(u32, FlatDensityMap)]| {
            (-300_000..=300_000)
                .map(|i| i as f32 * 1e-5)
                .map(|v| layers.iter().map(|(d, m)| scaled_density(*d, m.factor(v))).sum::<u32>())
                .max()
                .unwrap_or(0)
        };
        let (_, text) = crate::worldgen::preset::BUNDLED.iter().find(|(n, _)| *n == "classic").expect("bundled");
        let per_column = text
            .replace(",\n                 patch: (size: (2, 6), share: 0.5)", "")
            .replace(", patch: (size: (2, 10), share: 0.5)", "");
        let p = WorldParams::new(&Preset::parse(&per_column, "classic.ron").expect("classic without patches"), 7);
        let mut checked = 0;
        for b in 0..MAX_BIOMES {
            let n = (p.deco.plants.biome_count[b] as usize).min(MAX_BIOME_LAYERS);
            let layers: Vec<_> =
                (0..n).map(|l| (p.deco.plants.biome_layers[b][l].density, p.deco.plants.layer_maps[b][l])).collect();
            if layers.iter().all(|(_, m)| m.node == NO_DENSITY_MAP) {
                continue;
            }
            let (most, bound) = (reached(&layers), p.deco.plants.max_density[b]);
            assert!(bound > most, "biome {b}: bound {bound}, a column reaches {most}");
            assert!(bound <= most + 1 + n as u32, "biome {b}: bound {bound} is loose against {most}");
            let each: u32 = layers.iter().map(|(d, m)| scaled_density(*d, m.max)).sum();
            assert!(bound < each, "biome {b}: {bound} against {each} layer by layer");
            checked += 1;
        }
        assert!(checked >= 5, "{checked} biomes with plant maps");
        // One layer rising to its largest where another starts to fall:
        // both are at their largest only between, at 0.4.
        let rising = FlatDensityMap { node: 0, scale: 10.0, offset: 0.0, min: 0.0, max: 4.0 };
        let falling = FlatDensityMap { node: 0, scale: -10.0, offset: 8.0, min: 0.0, max: 4.0 };
        let layers = [(100, rising), (50, falling)];
        assert!(plant_bound(&layers) > reached(&layers));
        assert!(reached(&layers) >= 599, "the sweep finds the middle: {}", reached(&layers));
    }
}
