// The flat world description uploaded by the host. Layout twin of
// `WorldParams` / `FlatNode` in src/worldgen/params.rs (a Rust test checks
// the sizes below against the Rust types).
#pragma once

#define BW_MAX_NODES 64
#define BW_MAX_BIOMES 16
#define BW_MAX_BLOCK_TYPES 16
#define BW_THRESHOLDS 5
#define BW_TABLE_SIZE 6
#define BW_FIELD_COUNT 6
#define BW_FLAT_NODE_BYTES 32
#define BW_WORLD_PARAMS_BYTES 2668

#define BW_CHUNK 32
#define BW_APRON 34
#define BW_CHUNK_AREA 1024
#define BW_APRON_AREA 1156
#define BW_CHUNK_VOLUME 32768

#define BW_NODE_BASIC 0
#define BW_NODE_OCTAVE 1
#define BW_NODE_COMBINED 2
#define BW_NODE_EXPSCALE 3

#define BW_FIELD_HEIGHT 0
#define BW_FIELD_MOISTURE 1
#define BW_FIELD_TEMPERATURE 2
#define BW_FIELD_ROUGHNESS 3
#define BW_FIELD_MOUNTAIN 4
#define BW_FIELD_PEAKS 5

struct FlatNode {
    unsigned int kind;
    unsigned int seed;
    unsigned int octaves;
    int source;
    int offset_by;
    float z_offset;
    float exponent;
    float scale;
};

struct WorldParams {
    unsigned int node_count;
    unsigned int biome_count;
    unsigned int field_roots[BW_FIELD_COUNT];
    FlatNode nodes[BW_MAX_NODES];

    float height_amplitude;
    float mountain_amplitude;
    float roughness_amplitude;
    float temperature_mountain_cooling;
    float peak_exponent_scale;

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
    unsigned int biome_table[BW_TABLE_SIZE][BW_TABLE_SIZE];

    unsigned int biome_top[BW_MAX_BIOMES];
    unsigned int biome_under[BW_MAX_BIOMES];
    float biome_roughness[BW_MAX_BIOMES];
    float biome_scale[BW_MAX_BIOMES];
    float biome_exponent[BW_MAX_BIOMES];

    int water_level;
    int snow_above;
    int under_depth;
    unsigned int water_block;
    unsigned int deep_block;
    unsigned int snow_block;
    unsigned int air_block;
};

static_assert(sizeof(FlatNode) == BW_FLAT_NODE_BYTES, "FlatNode layout");
static_assert(sizeof(WorldParams) == BW_WORLD_PARAMS_BYTES, "WorldParams layout");

// One chunk column of a batch: its coordinates and where its results go.
struct ColumnJob {
    int x;
    int z;
};

// One chunk of a batch: its coordinates and the index of its column job.
struct ChunkJob {
    int x;
    int y;
    int z;
    unsigned int column;
};
