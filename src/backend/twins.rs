//! The Rust ↔ CUDA twins, defined once: launch sizes, the job structs the
//! host uploads, and the byte layout of every struct both sides share.
//!
//! `kernels/generated/twins.cuh` is generated from this module (sourcegen,
//! as rust-analyzer does it): the constants the kernels use, and a
//! `static_assert` on the size of each shared struct and the offset and size
//! of every one of its fields. The test `generated_header_is_current`
//! regenerates the text and fails on any difference, so a change on the Rust
//! side alone fails a test; a change to a C struct alone breaks the
//! `static_assert`s in nvcc and in the emulation build.
//!
//! Regenerate with `UPDATE_SOURCEGEN=1 cargo test --lib generated_header`.

use crate::far::clipmap::TILE_CELLS;
use crate::far::tile::TILE_AREA;
use crate::world::block::MAX_BLOCK_TYPES;
use crate::world::coords::{CHUNK_AREA, CHUNK_VOLUME};
use crate::worldgen::decorate::PlacedObject;
use crate::worldgen::noise::lattice::GROUP;
use crate::worldgen::noise::permutation::{self, PERMUTATION};
use crate::worldgen::params::{
    self, BiomeParams, CaveParams, DecorationParams, FlatCaveLayer, FlatCaveNoise, FlatDensityMap, FlatLayer,
    FlatLeafLayer, FlatNode, FlatPatch, FlatRock, FlatTree, FlatVein, PlantParams, RiverParams, RockParams,
    SurfaceParams, TerrainParams, TreeParams, VeinParams, WorldParams,
};
use crate::worldgen::placement;
use crate::worldgen::preset::{
    MAX_BIOMES, MAX_BIOME_LAYERS, MAX_CANOPY_LAYERS, MAX_CAVE_LAYERS, MAX_CAVE_NOISES, MAX_CAVE_OCTAVES, MAX_DEPTH,
    MAX_NODES, MAX_ROCK_KINDS, MAX_SHORE_REACH, MAX_TREE_KINDS, MAX_VEIN_KINDS, MAX_VEIN_REACH, TABLE_SIZE, THRESHOLDS,
    VEIN_SPACING_RANGE,
};
use std::fmt::Write;

/// Threads per thread block of `bw_heightmap` (one block per chunk column).
pub const HEIGHTMAP_THREADS: u32 = 256;
/// Threads per thread block of `bw_fill` (one thread per block of the chunk).
pub const FILL_THREADS: u32 = 512;
/// Thread blocks per chunk of `bw_fill` (grid x).
pub const FILL_BLOCKS_PER_CHUNK: u32 = CHUNK_VOLUME as u32 / FILL_THREADS;
const _: () = assert!((CHUNK_VOLUME as u32).is_multiple_of(FILL_THREADS));
/// Bytes of a run-stream segment's header (see kernels/fill.cu).
pub const RUN_HEADER_BYTES: u32 = 4;
/// Bytes of one run: the id and the height it starts at.
pub const RUN_BYTES: u32 = 2;
/// The most run-stream bytes one chunk can take: every block its own run.
pub const RUNS_BYTES_PER_CHUNK: usize =
    (FILL_BLOCKS_PER_CHUNK * (RUN_HEADER_BYTES + RUN_BYTES * FILL_THREADS)) as usize;
// The header's fields: group in 6 bits, run count (at most FILL_THREADS) in 10.
const _: () = assert!(FILL_BLOCKS_PER_CHUNK <= 64 && FILL_THREADS <= 1023);

/// Threads per thread block of `bw_density`: one 8×8×8 group of blocks,
/// which shares one lattice cell per octave (the Brno project's work group).
pub const DENSITY_THREADS: u32 = (GROUP * GROUP * GROUP) as u32;
/// Thread blocks per chunk of `bw_density` (grid x).
pub const DENSITY_GROUPS_PER_CHUNK: u32 = (CHUNK_VOLUME / (GROUP * GROUP * GROUP)) as u32;

/// Threads per thread block of `bw_decorate` (one block per chunk column,
/// one thread per tree candidate, in rounds).
pub const DECORATE_THREADS: u32 = 128;
/// Room for trees and rocks in one column's plan: at the smallest spacings
/// the square around a column each reaches into spans at most 14 × 14 tree
/// and 6 × 6 rock unit squares, each with one candidate.
pub const MAX_TREES_PER_COLUMN: usize = 256;
const _: () = {
    use crate::worldgen::preset::{MAX_ROCK_RADIUS, MAX_TREE_REACH, ROCK_SPACING_RANGE, TREE_SPACING_RANGE};
    let chunk = crate::world::coords::CHUNK_SIZE;
    let trees = (chunk + 2 * MAX_TREE_REACH as usize).div_ceil(*TREE_SPACING_RANGE.start() as usize) + 1;
    let rocks = (chunk + 2 * (MAX_ROCK_RADIUS as usize + 1)).div_ceil(*ROCK_SPACING_RANGE.start() as usize) + 1;
    assert!(trees * trees + rocks * rocks <= MAX_TREES_PER_COLUMN);
};

/// Room for patch centres in one column's plan, after its trees and rocks.
/// Classic's densest meadows list about a tenth of it; a plan that would
/// list more is refused by the device ([`PATCH_OVERFLOW`]) and made on the
/// CPU.
pub const MAX_PATCHES_PER_COLUMN: usize = 768;
/// A column plan's whole list on the device: trees and rocks, then patches.
pub const OBJECTS_PER_COLUMN: usize = MAX_TREES_PER_COLUMN + MAX_PATCHES_PER_COLUMN;
/// The decoration top `bw_decorate` reports for a column whose patch
/// centres outgrew [`MAX_PATCHES_PER_COLUMN`].
pub const PATCH_OVERFLOW: i32 = i32::MAX;

/// Room for vein candidates in one `bw_fill` thread block: its slab of
/// blocks (16 columns in a row, 32 high) grown by the largest reach holds at
/// most this many candidate cubes at the smallest spacing, and each thread
/// below it tests one.
pub const VEIN_SLAB_CANDIDATES: u32 = 256;
const fn vein_cubes(len: usize) -> usize {
    (len - 1 + 2 * MAX_VEIN_REACH as usize) / *VEIN_SPACING_RANGE.start() as usize + 2
}
const _: () = {
    let cubes = vein_cubes;
    let columns = FILL_THREADS as usize / crate::world::coords::CHUNK_SIZE;
    let slab = cubes(columns) * cubes(crate::world::coords::CHUNK_SIZE) * cubes(1);
    assert!(slab <= VEIN_SLAB_CANDIDATES as usize && VEIN_SLAB_CANDIDATES <= FILL_THREADS);
    assert!(crate::world::coords::CHUNK_SIZE.is_multiple_of(columns));
};

/// Threads per thread block of `bw_far_cells` (one thread per far cell;
/// a tile's cells span several blocks).
pub const FAR_THREADS: u32 = 128;
/// Thread blocks per far tile of `bw_far_cells` (grid x).
pub const FAR_BLOCKS_PER_TILE: u32 = TILE_AREA as u32 / FAR_THREADS;
const _: () = assert!((TILE_AREA as u32).is_multiple_of(FAR_THREADS));

/// One far tile of a batch: its north-west corner and its cell edge, in
/// blocks. Twin of `FarJob` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FarJob {
    pub x: i32,
    pub z: i32,
    pub cell: i32,
}

/// One chunk column of a batch. Twin of `ColumnJob` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ColumnJob {
    pub x: i32,
    pub z: i32,
}

/// One chunk of a batch. Twin of `ChunkJob` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChunkJob {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    /// Index into the batch's column jobs.
    pub column: u32,
}

// SAFETY: plain `#[repr(C)]` integers, no padding, valid for any bit pattern.
unsafe impl cudarc::driver::DeviceRepr for ColumnJob {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for ChunkJob {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for PlacedObject {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for FarJob {}

/// The layout of one shared struct, read off the Rust definition.
pub struct Layout {
    pub name: &'static str,
    pub size: usize,
    /// (field, offset, size)
    pub fields: Vec<(&'static str, usize, usize)>,
}

fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    std::mem::size_of::<F>()
}

/// Lists a struct's fields with their offsets and sizes. The destructuring
/// pattern is exhaustive, so a field added in Rust and not listed here is a
/// compile error.
macro_rules! layout {
    ($ty:ident { $($field:ident),* $(,)? }) => {{
        #[allow(dead_code)]
        fn exhaustive(v: &$ty) {
            let $ty { $($field: _),* } = v;
        }
        Layout {
            name: stringify!($ty),
            size: std::mem::size_of::<$ty>(),
            fields: vec![$((stringify!($field), std::mem::offset_of!($ty, $field), field_size(|s: &$ty| &s.$field))),*],
        }
    }};
}

/// Every struct the host and the kernels share.
pub fn layouts() -> Vec<Layout> {
    vec![
        layout!(FlatNode { kind, seed, octaves, input, children, z_offset, slots }),
        layout!(WorldParams { terrain, biomes, surface, deco, caves, veins }),
        layout!(TerrainParams {
            node_count,
            field_roots,
            nodes,
            perlin_gain,
            height_amplitude,
            mountain_amplitude,
            roughness_amplitude,
            temperature_mountain_cooling,
            peak_exponent_scale,
            rivers,
        }),
        layout!(RiverParams { on, course, biome, width, inv_width, inv_span, water, bed, bank, inv_max_height }),
        layout!(BiomeParams {
            count,
            ocean_max_height,
            ocean_max_mountain,
            beach_max_height,
            mountain_min,
            mountain_min_with_height,
            heat_thresholds,
            moisture_thresholds,
            threshold_search_limit,
            ocean_biome,
            beach_biome,
            mountain_biome,
            table,
            roughness,
            scale,
            exponent,
        }),
        layout!(SurfaceParams {
            top,
            under,
            water_level,
            snow_above,
            under_depth,
            water_block,
            deep_block,
            snow_block,
            air_block
        }),
        layout!(DecorationParams { seed, trunk_soil_block, block_priority, trees, rocks, plants, pattern, bayer }),
        layout!(TreeParams {
            unit,
            reach,
            max_slope,
            max_density,
            kind_count,
            kinds,
            biome_count,
            biome_layers,
            biome_map
        }),
        layout!(RockParams { unit, reach, max_density, kind_count, seed, kinds, biome_count, biome_layers }),
        layout!(PlantParams {
            reach,
            biome_count,
            biome_layers,
            layer_maps,
            max_density,
            shore,
            patch_reach,
            patch_count,
            patches,
            patch_bound
        }),
        layout!(FlatPatch { what, chance, on_mask, above_water, map, half_min, half_span, jitter, share }),
        layout!(CaveParams {
            layer_count,
            noise_count,
            bottom,
            top,
            lava_below,
            lava_block,
            water_clearance,
            lava_cover,
            noises,
            layers
        }),
        layout!(VeinParams { kind_count, spacing, reach, lowest, highest, seed, kinds, bayer }),
        layout!(FlatVein {
            block,
            replace_mask,
            lowest,
            highest,
            density_top,
            density_bottom,
            radius_top,
            radius_bottom,
            blobs_min,
            blobs_span,
        }),
        layout!(FlatCaveNoise { seed, octaves, shift_xz, shift_y, weights }),
        layout!(FlatCaveLayer { kind, a, b, threshold, min_depth }),
        layout!(FlatLeafLayer { dy, radius, round, lean }),
        layout!(FlatTree { trunk_block, leaves_block, trunk_min, trunk_span, on_mask, crown, layer_count, layers }),
        layout!(FlatRock { block, top_block, radius_min, radius_span, on_mask, max_slope, form, along_z_block }),
        layout!(FlatLayer { what, density, on_mask, above_water }),
        layout!(FlatDensityMap { node, scale, offset, min, max }),
        layout!(PlacedObject { x, z, base, kind, shape }),
        layout!(ColumnJob { x, z }),
        layout!(ChunkJob { x, y, z, column }),
        layout!(FarJob { x, z, cell }),
    ]
}

/// The constants the kernels take from Rust, as (name, value).
pub fn constants() -> Vec<(&'static str, i64)> {
    vec![
        ("BW_MAX_NODES", MAX_NODES as i64),
        ("BW_MAX_BIOMES", MAX_BIOMES as i64),
        ("BW_MAX_BLOCK_TYPES", MAX_BLOCK_TYPES as i64),
        ("BW_MAX_DEPTH", MAX_DEPTH as i64),
        ("BW_THRESHOLDS", THRESHOLDS as i64),
        ("BW_TABLE_SIZE", TABLE_SIZE as i64),
        ("BW_FIELD_COUNT", params::FIELD_COUNT as i64),
        ("BW_CHUNK", crate::world::coords::CHUNK_SIZE as i64),
        ("BW_APRON", crate::worldgen::heightmap::APRON as i64),
        ("BW_CHUNK_AREA", CHUNK_AREA as i64),
        ("BW_APRON_AREA", (crate::worldgen::heightmap::APRON * crate::worldgen::heightmap::APRON) as i64),
        ("BW_CHUNK_VOLUME", CHUNK_VOLUME as i64),
        ("BW_NODE_BASIC", params::NODE_BASIC as i64),
        ("BW_NODE_OCTAVE", params::NODE_OCTAVE as i64),
        ("BW_NODE_COMBINED", params::NODE_COMBINED as i64),
        ("BW_NODE_EXPSCALE", params::NODE_EXPSCALE as i64),
        ("BW_NODE_FBM", params::NODE_FBM as i64),
        ("BW_NODE_HETERO", params::NODE_HETERO as i64),
        ("BW_NODE_HYBRID", params::NODE_HYBRID as i64),
        ("BW_NODE_DISTORT", params::NODE_DISTORT as i64),
        ("BW_NODE_NORMALIZE", params::NODE_NORMALIZE as i64),
        ("BW_NODE_LINEAR", params::NODE_LINEAR as i64),
        ("BW_NODE_BIAS", params::NODE_BIAS as i64),
        ("BW_NODE_GAIN", params::NODE_GAIN as i64),
        ("BW_NODE_QUILEZ", params::NODE_QUILEZ as i64),
        ("BW_NODE_RIDGED", params::NODE_RIDGED as i64),
        ("BW_NODE_ERODED", params::NODE_ERODED as i64),
        ("BW_INPUT_RIDGED", params::INPUT_RIDGED as i64),
        ("BW_INPUT_BILLOW", params::INPUT_BILLOW as i64),
        ("BW_INPUT_VALUE_BASIS", params::INPUT_VALUE_BASIS as i64),
        ("BW_INPUT_PERMUTATION", params::INPUT_PERMUTATION as i64),
        ("BW_NODE_SLOTS", params::NODE_SLOTS as i64),
        ("BW_NODE_CHILDREN", params::NODE_CHILDREN as i64),
        ("BW_SLOT_EXPONENT", params::SLOT_EXPONENT as i64),
        ("BW_SLOT_SCALE", params::SLOT_SCALE as i64),
        ("BW_SLOT_EXPONENT_HIGH", params::SLOT_EXPONENT_HIGH as i64),
        ("BW_SLOT_LACUNARITY", params::SLOT_LACUNARITY as i64),
        ("BW_SLOT_WEIGHT", params::SLOT_WEIGHT as i64),
        ("BW_SLOT_FREQUENCY", params::SLOT_FREQUENCY as i64),
        ("BW_SLOT_SHIFT", params::SLOT_SHIFT as i64),
        ("BW_SLOT_CREST", params::SLOT_CREST as i64),
        ("BW_SLOT_RIDGE_GAIN", params::SLOT_RIDGE_GAIN as i64),
        ("BW_SLOT_GULLY_FREQUENCY", params::SLOT_GULLY_FREQUENCY as i64),
        ("BW_SLOT_GULLY_STRENGTH", params::SLOT_GULLY_STRENGTH as i64),
        ("BW_SLOT_GULLY_OCTAVES", params::SLOT_GULLY_OCTAVES as i64),
        ("BW_GULLY_JITTER_Z_SEED", crate::worldgen::noise::gullies::JITTER_Z_SEED as i64),
        ("BW_GULLY_SEED", params::GULLY_SEED as i64),
        ("BW_ROUND_MAGIC", crate::worldgen::noise::position::ROUND_MAGIC as i64),
        ("BW_SLOT_STRENGTH", params::SLOT_STRENGTH as i64),
        ("BW_SLOT_LOW", params::SLOT_LOW as i64),
        ("BW_SLOT_INV_SPAN", params::SLOT_INV_SPAN as i64),
        ("BW_SLOT_MUL", params::SLOT_MUL as i64),
        ("BW_SLOT_ADD", params::SLOT_ADD as i64),
        ("BW_FIELD_HEIGHT", params::FIELD_HEIGHT as i64),
        ("BW_FIELD_MOISTURE", params::FIELD_MOISTURE as i64),
        ("BW_FIELD_TEMPERATURE", params::FIELD_TEMPERATURE as i64),
        ("BW_FIELD_ROUGHNESS", params::FIELD_ROUGHNESS as i64),
        ("BW_FIELD_MOUNTAIN", params::FIELD_MOUNTAIN as i64),
        ("BW_FIELD_PEAKS", params::FIELD_PEAKS as i64),
        ("BW_HEIGHTMAP_THREADS", HEIGHTMAP_THREADS as i64),
        ("BW_FILL_THREADS", FILL_THREADS as i64),
        ("BW_FILL_BLOCKS_PER_CHUNK", FILL_BLOCKS_PER_CHUNK as i64),
        ("BW_RUN_HEADER_BYTES", RUN_HEADER_BYTES as i64),
        ("BW_RUN_BYTES", RUN_BYTES as i64),
        ("BW_MAX_TREE_KINDS", MAX_TREE_KINDS as i64),
        ("BW_MAX_ROCK_KINDS", MAX_ROCK_KINDS as i64),
        ("BW_FORM_BOULDER", params::FORM_BOULDER as i64),
        ("BW_FORM_LOG", params::FORM_LOG as i64),
        ("BW_MAX_CANOPY_LAYERS", MAX_CANOPY_LAYERS as i64),
        ("BW_MAX_BIOME_LAYERS", MAX_BIOME_LAYERS as i64),
        ("BW_MAX_SHORE_REACH", MAX_SHORE_REACH as i64),
        ("BW_PATTERN_POINTS", placement::PATTERN_POINTS as i64),
        ("BW_CELL_UNITS", placement::CELL_UNITS as i64),
        ("BW_PATTERN_SUB", placement::SUB as i64),
        ("BW_DENSITY_ONE", placement::DENSITY_ONE as i64),
        ("BW_NO_DENSITY_MAP", params::NO_DENSITY_MAP as i64),
        ("BW_DECORATE_THREADS", DECORATE_THREADS as i64),
        ("BW_MAX_TREES_PER_COLUMN", MAX_TREES_PER_COLUMN as i64),
        ("BW_MAX_PATCHES_PER_COLUMN", MAX_PATCHES_PER_COLUMN as i64),
        ("BW_OBJECTS_PER_COLUMN", OBJECTS_PER_COLUMN as i64),
        ("BW_PATCH_OVERFLOW", PATCH_OVERFLOW as i64),
        ("BW_MAX_CAVE_NOISES", MAX_CAVE_NOISES as i64),
        ("BW_MAX_CAVE_LAYERS", MAX_CAVE_LAYERS as i64),
        ("BW_MAX_CAVE_OCTAVES", MAX_CAVE_OCTAVES as i64),
        ("BW_CAVE_CHAMBERS", params::CAVE_CHAMBERS as i64),
        ("BW_CAVE_TUNNELS", params::CAVE_TUNNELS as i64),
        ("BW_OCTAVE_SEED_STEP", params::OCTAVE_SEED_STEP as i64),
        ("BW_GROUP", GROUP as i64),
        ("BW_DENSITY_THREADS", DENSITY_THREADS as i64),
        ("BW_DENSITY_GROUPS_PER_CHUNK", DENSITY_GROUPS_PER_CHUNK as i64),
        ("BW_CAVE_MASK_BYTES", (CHUNK_VOLUME / 8) as i64),
        ("BW_MAX_VEIN_KINDS", MAX_VEIN_KINDS as i64),
        ("BW_VEIN_CELL_CUBES", crate::worldgen::veins::CELL_CUBES),
        ("BW_VEIN_SLAB_CANDIDATES", VEIN_SLAB_CANDIDATES as i64),
        ("BW_FAR_THREADS", FAR_THREADS as i64),
        ("BW_FAR_TILE_CELLS", TILE_CELLS as i64),
        ("BW_FAR_TILE_AREA", TILE_AREA as i64),
    ]
}

/// The text of `kernels/generated/twins.cuh`.
pub fn header() -> String {
    let mut s = String::new();
    s.push_str(
        "// GENERATED by src/backend/twins.rs — do not edit. Regenerate with\n\
         // `UPDATE_SOURCEGEN=1 cargo test --lib generated_header`.\n\
         // Constants the kernels share with Rust, and the layout of every struct\n\
         // the host uploads, checked field by field where the structs are defined.\n\
         #pragma once\n\n",
    );
    for (name, value) in constants() {
        let _ = writeln!(s, "#define {name} {value}");
    }
    // Perlin's permutation table, held once here for `kernels/permutation.cuh`.
    let table: Vec<String> = PERMUTATION.iter().map(|v| v.to_string()).collect();
    let _ = writeln!(s, "#define BW_PERMUTATION_TABLE {{{}}}", table.join(", "));
    let _ = writeln!(s, "#define BW_PERMUTATION_GRADIENT_CODES 0x{:X}ull", permutation::GRADIENT_CODES);
    let _ = writeln!(s, "#define BW_PERMUTATION_SCALE {:?}f", permutation::SCALE);
    s.push_str("\n#define BW_TWIN_LAYOUT_CHECKS \\\n");
    let mut lines = Vec::new();
    for l in layouts() {
        lines.push(format!("    static_assert(sizeof({}) == {}, \"{} size\");", l.name, l.size, l.name));
        for (f, off, size) in &l.fields {
            lines.push(format!(
                "    static_assert(__builtin_offsetof({n}, {f}) == {off} && sizeof(((const {n}*)0)->{f}) == {size}, \"{n}.{f}\");",
                n = l.name
            ));
        }
    }
    s.push_str(&lines.join(" \\\n"));
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/generated/twins.cuh");

    #[test]
    fn generated_header_is_current() {
        let want = header();
        if std::env::var("UPDATE_SOURCEGEN").as_deref() == Ok("1") {
            std::fs::write(PATH, &want).expect("write kernels/generated/twins.cuh");
        }
        let have = std::fs::read_to_string(PATH).unwrap_or_default();
        assert!(
            have == want,
            "kernels/generated/twins.cuh is out of date with src/backend/twins.rs; \
             regenerate it with `UPDATE_SOURCEGEN=1 cargo test --lib generated_header`"
        );
    }

    #[test]
    fn a_changed_constant_changes_the_header() {
        // Negative control: the comparison above can fail.
        let edited = header().replace("#define BW_FILL_THREADS 512", "#define BW_FILL_THREADS 256");
        assert_ne!(edited, header());
    }

    #[test]
    fn layouts_cover_every_byte_of_the_flat_structs() {
        for l in layouts() {
            let covered: usize = l.fields.iter().map(|f| f.2).sum();
            assert_eq!(covered, l.size, "{} has padding or an unlisted field", l.name);
        }
    }

    #[test]
    fn every_kernel_header_constant_comes_from_the_generated_file() {
        // No kernel source may define a twin constant by hand.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels");
        for entry in std::fs::read_dir(dir).expect("kernels/") {
            let path = entry.expect("entry").path();
            if !matches!(path.extension().and_then(|e| e.to_str()), Some("cu" | "cuh")) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read kernel");
            for (name, _) in constants() {
                assert!(
                    !text.contains(&format!("#define {name} ")),
                    "{} defines {name}, which belongs to kernels/generated/twins.cuh",
                    path.display()
                );
            }
        }
    }
}
