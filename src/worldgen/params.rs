//! The flat, `#[repr(C)]` form of a preset plus a seed: the one description
//! both engines run. The CPU compiles it into a lane program
//! ([`super::graph`]); the CUDA backend uploads the same bytes and builds
//! its noise objects from them. Layout twin: `kernels/worldgen_params.cuh`.

use super::preset::{NodeKind, Preset, MAX_BIOMES, MAX_NODES, TABLE_SIZE, THRESHOLDS};
use crate::world::block::BlockId;

pub const NODE_BASIC: u32 = 0;
pub const NODE_OCTAVE: u32 = 1;
pub const NODE_COMBINED: u32 = 2;
pub const NODE_EXPSCALE: u32 = 3;

pub const FIELD_HEIGHT: usize = 0;
pub const FIELD_MOISTURE: usize = 1;
pub const FIELD_TEMPERATURE: usize = 2;
pub const FIELD_ROUGHNESS: usize = 3;
pub const FIELD_MOUNTAIN: usize = 4;
pub const FIELD_PEAKS: usize = 5;
pub const FIELD_COUNT: usize = 6;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlatNode {
    pub kind: u32,
    /// Gradient-hash seed derived from the world seed and the node's offset.
    pub seed: u32,
    pub octaves: u32,
    /// Child indices (Combined: source and offset_by; ExpScale: source), else -1.
    pub source: i32,
    pub offset_by: i32,
    /// The third noise coordinate, 32·offset.
    pub z_offset: f32,
    pub exponent: f32,
    pub scale: f32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldParams {
    pub node_count: u32,
    pub biome_count: u32,
    pub field_roots: [u32; FIELD_COUNT],
    pub nodes: [FlatNode; MAX_NODES],

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
        let mut nodes = [FlatNode { source: -1, offset_by: -1, ..FlatNode::default() }; MAX_NODES];
        for (slot, named) in nodes.iter_mut().zip(&preset.noise) {
            *slot = match &named.node {
                NodeKind::Basic { offset } => FlatNode {
                    kind: NODE_BASIC,
                    seed: node_seed(seed, *offset),
                    octaves: 1,
                    source: -1,
                    offset_by: -1,
                    z_offset: 32.0 * *offset as f32,
                    exponent: 1.0,
                    scale: 1.0,
                },
                NodeKind::Octave { octaves, offset } => FlatNode {
                    kind: NODE_OCTAVE,
                    seed: node_seed(seed, *offset),
                    octaves: *octaves,
                    source: -1,
                    offset_by: -1,
                    z_offset: 32.0 * *offset as f32,
                    exponent: 1.0,
                    scale: 1.0,
                },
                NodeKind::Combined { source, offset_by } => FlatNode {
                    kind: NODE_COMBINED,
                    source: child(source),
                    offset_by: child(offset_by),
                    ..FlatNode::default()
                },
                NodeKind::ExpScale { source, exponent, scale } => FlatNode {
                    kind: NODE_EXPSCALE,
                    source: child(source),
                    offset_by: -1,
                    exponent: *exponent,
                    scale: *scale,
                    ..FlatNode::default()
                },
            };
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
        Box::new(p)
    }

    pub fn nodes(&self) -> &[FlatNode] {
        &self.nodes[..self.node_count as usize]
    }

    /// The raw bytes uploaded to the device.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: repr(C), only u32/i32/f32 fields (no padding, no pointers).
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
                NODE_COMBINED => cost(p, n.source as usize) + cost(p, n.offset_by as usize),
                _ => cost(p, n.source as usize),
            }
        }
        let total: u32 = p.field_roots.iter().map(|&r| cost(&p, r as usize)).sum();
        assert_eq!(total, 39);
        assert_eq!(p.as_bytes().len(), std::mem::size_of::<WorldParams>());
    }
}
