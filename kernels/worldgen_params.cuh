// The flat world description uploaded by the host, and the job structs.
// Layout twins of `WorldParams` and its stage blocks (`RiverParams` in `TerrainParams`), `FlatNode`, `FlatTree`, `FlatLeafLayer`,
// `FlatRock`, `FlatLayer`, `FlatDensityMap`, `FlatCaveNoise`, `FlatCaveLayer`, `FlatVein` in src/worldgen/params.rs, `PlacedObject` in
// src/worldgen/decorate.rs and `ColumnJob` / `ChunkJob` / `FarJob` in
// src/backend/twins.rs; the generated checks
// below hold every field's offset equal to Rust's.
#pragma once
#include "generated/twins.cuh"

// One node of the noise graph: a kind and its parameter slots (the meaning
// of each child and slot is the kind's: BW_SLOT_* and params.rs).
struct FlatNode {
    unsigned int kind;
    unsigned int seed;
    unsigned int octaves;
    unsigned int input;
    int children[BW_NODE_CHILDREN];
    float z_offset;
    float slots[BW_NODE_SLOTS];
};

struct FlatLeafLayer {
    int dy;
    int radius;
    unsigned int round;
    unsigned int lean;
};

struct FlatTree {
    unsigned int trunk_block;
    unsigned int leaves_block;
    unsigned int trunk_min;
    unsigned int trunk_span;
    unsigned int on_mask;
    int crown;
    unsigned int layer_count;
    FlatLeafLayer layers[BW_MAX_CANOPY_LAYERS];
};

// A kind of vein (src/worldgen/veins.rs): block, what it replaces, the
// heights of its centres, and chance and radius at its top and bottom.
struct FlatVein {
    unsigned int block;
    unsigned int replace_mask;
    int lowest;
    int highest;
    unsigned int density_top;
    unsigned int density_bottom;
    unsigned int radius_top;
    unsigned int radius_bottom;
    unsigned int blobs_min;
    unsigned int blobs_span;
};

struct FlatRock {
    unsigned int block;
    unsigned int top_block;
    unsigned int radius_min;
    unsigned int radius_span;
    unsigned int on_mask;
    float max_slope;
    unsigned int form;  // BW_FORM_BOULDER or BW_FORM_LOG
    unsigned int along_z_block;
};

struct FlatLayer {
    unsigned int what;
    unsigned int density;
    unsigned int on_mask;
    // The surface heights it takes less the water level, inclusive.
    int above_water[2];
};

// A tree biome's or plant layer's density map: a node of the noise graph (BW_NO_DENSITY_MAP:
// none, the factor is 1) and clamp(v·scale + offset, min, max).
struct FlatDensityMap {
    unsigned int node;
    float scale;
    float offset;
    float min;
    float max;
};

struct FlatCaveNoise {
    unsigned int seed;
    unsigned int octaves;
    unsigned int shift_xz;
    unsigned int shift_y;
    float weights[BW_MAX_CAVE_OCTAVES];
};

struct FlatCaveLayer {
    unsigned int kind;
    unsigned int a;
    unsigned int b;
    float threshold;
    int min_depth;
};

// One block per generation stage, as in src/worldgen/params.rs.
// Rivers: the column stage's carving (params.rs RiverParams).
struct RiverParams {
    unsigned int on;
    unsigned int course;
    unsigned int biome;
    float width;
    float inv_width;
    float inv_span;
    float water;
    float bed;
    float bank;
    float inv_max_height;
};

struct TerrainParams {
    unsigned int node_count;
    unsigned int field_roots[BW_FIELD_COUNT];
    FlatNode nodes[BW_MAX_NODES];
    float perlin_gain;
    float height_amplitude;
    float mountain_amplitude;
    float roughness_amplitude;
    float temperature_mountain_cooling;
    float peak_exponent_scale;
    RiverParams rivers;
};

struct BiomeParams {
    unsigned int count;
    float ocean_max_height;
    float ocean_max_mountain;
    float beach_max_height;
    float mountain_min;
    float mountain_min_with_height;
    float heat_thresholds[BW_THRESHOLDS];
    float moisture_thresholds[BW_THRESHOLDS];
    unsigned int threshold_search_limit;
    unsigned int ocean_biome;
    unsigned int beach_biome;
    unsigned int mountain_biome;
    unsigned int table[BW_TABLE_SIZE][BW_TABLE_SIZE];
    float roughness[BW_MAX_BIOMES];
    float scale[BW_MAX_BIOMES];
    float exponent[BW_MAX_BIOMES];
};

struct SurfaceParams {
    unsigned int top[BW_MAX_BIOMES];
    unsigned int under[BW_MAX_BIOMES];
    int water_level;
    int snow_above;
    int under_depth;
    unsigned int water_block;
    unsigned int deep_block;
    unsigned int snow_block;
    unsigned int air_block;
};

struct TreeParams {
    int unit;
    int reach;
    float max_slope;
    unsigned int max_density;
    unsigned int kind_count;
    FlatTree kinds[BW_MAX_TREE_KINDS];
    unsigned int biome_count[BW_MAX_BIOMES];
    FlatLayer biome_layers[BW_MAX_BIOMES][BW_MAX_BIOME_LAYERS];
    FlatDensityMap biome_map[BW_MAX_BIOMES];
};

struct RockParams {
    int unit;
    int reach;
    unsigned int max_density;
    unsigned int kind_count;
    unsigned int seed[2];
    FlatRock kinds[BW_MAX_ROCK_KINDS];
    unsigned int biome_count[BW_MAX_BIOMES];
    FlatLayer biome_layers[BW_MAX_BIOMES][BW_MAX_BIOME_LAYERS];
};

// One patch layer of a biome. Twin: FlatPatch.
struct FlatPatch {
    unsigned int what;
    unsigned int chance;
    unsigned int on_mask;
    int above_water[2];
    FlatDensityMap map;
    unsigned int half_min;
    unsigned int half_span;
    unsigned int jitter;
    unsigned int share;
};

struct PlantParams {
    int reach;
    unsigned int biome_count[BW_MAX_BIOMES];
    FlatLayer biome_layers[BW_MAX_BIOMES][BW_MAX_BIOME_LAYERS];
    FlatDensityMap layer_maps[BW_MAX_BIOMES][BW_MAX_BIOME_LAYERS];
    unsigned int max_density[BW_MAX_BIOMES];
    unsigned int shore[BW_MAX_BIOMES][BW_MAX_BIOME_LAYERS];
    int patch_reach;
    unsigned int patch_count[BW_MAX_BIOMES];
    FlatPatch patches[BW_MAX_BIOMES][BW_MAX_BIOME_LAYERS];
    unsigned int patch_bound[BW_MAX_BIOME_LAYERS];
};

struct DecorationParams {
    unsigned int seed[2];
    unsigned int trunk_soil_block;
    unsigned int block_priority[BW_MAX_BLOCK_TYPES];
    TreeParams trees;
    RockParams rocks;
    PlantParams plants;
    unsigned char pattern[BW_PATTERN_POINTS][2];
    unsigned char bayer[BW_PATTERN_POINTS];
};

struct CaveParams {
    unsigned int layer_count;
    unsigned int noise_count;
    int bottom;
    int top;
    int lava_below;
    unsigned int lava_block;
    int water_clearance;
    int lava_cover;
    FlatCaveNoise noises[BW_MAX_CAVE_NOISES];
    FlatCaveLayer layers[BW_MAX_CAVE_LAYERS];
};

struct VeinParams {
    unsigned int kind_count;
    int spacing;
    int reach;
    int lowest;
    int highest;
    unsigned int seed[2];
    FlatVein kinds[BW_MAX_VEIN_KINDS];
    unsigned char bayer[BW_PATTERN_POINTS];
};

struct WorldParams {
    TerrainParams terrain;
    BiomeParams biomes;
    SurfaceParams surface;
    DecorationParams deco;
    CaveParams caves;
    VeinParams veins;
};

// One tree or rock of a chunk column's plan (written by bw_decorate, read by
// bw_fill); see PlacedObject in src/worldgen/decorate.rs for the fields.
struct PlacedObject {
    int x;
    int z;
    int base;
    unsigned int kind;
    unsigned int shape;
};


// One chunk column of a batch: its coordinates and where its results go.
struct ColumnJob {
    int x;
    int z;
};

// One far tile of a batch: its north-west corner and its cell edge, in blocks.
struct FarJob {
    int x;
    int z;
    int cell;
};

// One chunk of a batch: its coordinates and the index of its column job.
struct ChunkJob {
    int x;
    int y;
    int z;
    unsigned int column;
};

// Every field's offset and size as Rust lays it out (generated). NVRTC has
// no offsetof; nvcc and the emulation build check the same structs.
#if !defined(__CUDACC_RTC__)
BW_TWIN_LAYOUT_CHECKS
#endif

// The world description lives in constant memory: every thread of a warp
// reads the same node at the same time, which the constant cache broadcasts.
// Each module (heightmap, fill) has its own copy; the host uploads the bytes
// to both through cuModuleGetGlobal.
__constant__ WorldParams bw_world;
