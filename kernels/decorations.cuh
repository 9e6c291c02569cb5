// The rules of the decoration stage shared by bw_decorate (which trees
// reach a chunk column) and bw_fill (the blocks they and the plants place).
// Rust twin: src/worldgen/decorate.rs.
#pragma once
#include "column.cuh"
#include "placement.cuh"

#define BW_NO_TREE_TOP (-2147483647 - 1)

__device__ __forceinline__ unsigned int bw_surface_block(const WorldParams* p, int h, unsigned int b) {
    return h > p->surface.snow_above ? p->surface.snow_block : p->surface.top[b];
}

// PlacedObject::kind of the first rock kind.
#define BW_ROCK_KIND BW_MAX_TREE_KINDS

__device__ __forceinline__ int bw_rock_radius(unsigned int shape, int axis) { return (int)((shape >> (8 * axis)) & 255u); }

// The highest block of a tree or rock.
__device__ __forceinline__ int bw_tree_top(const WorldParams* p, const PlacedObject& t) {
    if (t.kind >= BW_ROCK_KIND) return t.base + bw_rock_radius(t.shape, 1);
    const int crown = t.kind < BW_MAX_TREE_KINDS ? p->deco.trees.kinds[t.kind].crown : 0;
    return t.base + (int)(t.shape & 255u) - 1 + crown;
}

// A tree's shape word: trunk height, and the crown's lean (on, way) and
// slimness from the candidate's hash. Twin: tree_shape.
__device__ __forceinline__ unsigned int bw_tree_shape(unsigned int trunk, unsigned long long variant) {
    const unsigned int bits = (unsigned int)(variant >> 48);
    const unsigned int lean = bits & 1u, dir = (bits >> 1) & 3u, slim = ((bits >> 3) & 3u) == 0u ? 1u : 0u;
    return trunk | dir << 8 | lean << 10 | slim << 11;
}

// Whether (dx, dy, dz) lies in the ellipsoid of a rock's radii, each grown
// by half a block, in integers.
__device__ __forceinline__ bool bw_in_rock(unsigned int shape, int dx, int dy, int dz) {
    const int rx = 2 * bw_rock_radius(shape, 0) + 1, ry = 2 * bw_rock_radius(shape, 1) + 1;
    const int rz = 2 * bw_rock_radius(shape, 2) + 1;
    const int a = rx * rx, b = ry * ry, c = rz * rz;
    return 4 * (dx * dx * b * c + dy * dy * a * c + dz * dz * a * b) <= a * b * c;
}

// What a rock places at (dx, dy, dz) from its centre; 0 for nothing. A
// log is its row: `block` along x, `along_z_block` along z. Twin:
// rock_block_at.
__device__ __forceinline__ unsigned int bw_rock_block_at(const FlatRock& rock, unsigned int shape, int dx, int dy,
                                                         int dz) {
    if (rock.form == BW_FORM_LOG) {
        const int rx = bw_rock_radius(shape, 0), rz = bw_rock_radius(shape, 2);
        const bool on_row = dy == 0 && dx >= -rx && dx <= rx && dz >= -rz && dz <= rz;
        return !on_row ? 0u : rz > rx ? rock.along_z_block : rock.block;
    }
    if (!bw_in_rock(shape, dx, dy, dz)) return 0;
    return bw_in_rock(shape, dx, dy + 1, dz) ? rock.block : rock.top_block;
}

// What a tree of shape word `shape` places at (dx, dy, dz) from its lowest
// log; 0 for nothing. Twin: tree_block_at.
__device__ __forceinline__ unsigned int bw_tree_block_at(const FlatTree& kind, unsigned int shape, int dx, int dy,
                                                         int dz) {
    const int trunk = (int)(shape & 255u);
    if (dx == 0 && dz == 0 && dy >= 0 && dy < trunk) return kind.trunk_block;
    const int above_top = dy - (trunk - 1);
    const unsigned int dir = (shape >> 8) & 3u;
    const bool leans = ((shape >> 10) & 1u) != 0u;
    const int ox = leans ? (dir == 0 ? 1 : dir == 2 ? -1 : 0) : 0;
    const int oz = leans ? (dir == 1 ? 1 : dir == 3 ? -1 : 0) : 0;
    const bool slim = ((shape >> 11) & 1u) != 0u;
    for (unsigned int i = 0; i < kind.layer_count && i < BW_MAX_CANOPY_LAYERS; ++i) {
        const FlatLeafLayer l = kind.layers[i];
        const int sx = l.lean != 0 ? dx - ox : dx, sz = l.lean != 0 ? dz - oz : dz;
        const int ax = sx < 0 ? -sx : sx, az = sz < 0 ? -sz : sz;
        const int r = slim && l.radius >= 2 ? l.radius - 1 : l.radius;
        const bool corner = l.round != 0 && r > 0 && ax == r && az == r;
        if (above_top == l.dy && ax <= r && az <= r && !corner) return kind.leaves_block;
    }
    return 0;
}

// Whether `layer` grows over a surface of height h and biome b: within its
// window of heights over the water, on a surface block it lists. Twin:
// surface_allows and FlatLayer::takes_height.
__device__ __forceinline__ bool bw_surface_allows(const WorldParams* p, const FlatLayer& layer, int h, unsigned int b) {
    const long long d = (long long)h - (long long)p->surface.water_level;
    const bool window = (long long)layer.above_water[0] <= d && d <= (long long)layer.above_water[1];
    return window && ((layer.on_mask >> (bw_surface_block(p, h, b) & 31)) & 1u) != 0u;
}

// A candidate column's surface, as the heightmap kernel computes it: h_b at
// the four diagonal neighbours in stencil order, the biome at the column
// itself. Twin: footing in src/worldgen/decorate.rs.
struct BwFooting {
    int height;
    unsigned int biome;
    float slope;
};

__device__ BwFooting bw_footing(const WorldParams* p, long long x, long long z) {
    float h_b[5];
    unsigned char biome[5];
    const long long dx[5] = {-1, 1, -1, 1, 0}, dz[5] = {-1, -1, 1, 1, 0};
    for (int i = 0; i < 5; ++i) {
        bw_sample_column(p, SwitchFields{}, (float)(x + dx[i]), (float)(z + dz[i]), &h_b[i], &biome[i]);
    }
    const float v = (((h_b[0] + h_b[1]) + h_b[2]) + h_b[3]) * 0.25f;
    BwFooting f;
    f.height = (int)v;
    f.slope = fmaxf(fmaxf(fmaxf(h_b[0], h_b[1]), h_b[2]), h_b[3]) - fminf(fminf(fminf(h_b[0], h_b[1]), h_b[2]), h_b[3]);
    f.biome = biome[4] % BW_MAX_BIOMES;
    return f;
}

// bw_footing's height alone: its four diagonal samples, without the
// centre's biome. Twin: footing_heights.
__device__ int bw_footing_height(const WorldParams* p, long long x, long long z) {
    float h[4];
    unsigned char unused;
    const long long dx[4] = {-1, 1, -1, 1}, dz[4] = {-1, -1, 1, 1};
    for (int i = 0; i < 4; ++i) {
        bw_sample_column(p, SwitchFields{}, (float)(x + dx[i]), (float)(z + dz[i]), &h[i], &unused);
    }
    return (int)((((h[0] + h[1]) + h[2]) + h[3]) * 0.25f);
}

// A density map's factor where its node gives v. Twin: FlatDensityMap::factor.
__device__ __forceinline__ float bw_map_factor(const FlatDensityMap& map, float v) {
    return fminf(fmaxf(v * map.scale + map.offset, map.min), map.max);
}

// The plant of column (x, z) of surface height h and biome b, or 0. It
// stands at bw_plant_height. Each layer's chance is scaled by its density
// map at the column; layers reading one node share its value. A layer
// with a shore reach grows only where a column that near in x plus z (a
// diamond: reach 1 is the four sides) lies across the water line. `heights` is the heightmap of the chunk column whose corner
// block is (x0, z0). Twin: plant_at.
__device__ __forceinline__ unsigned int bw_plant_at(const WorldParams* p, long long x, long long z, int h,
                                                    unsigned int b, const int* heights, long long x0, long long z0) {
    b %= BW_MAX_BIOMES;
    unsigned int n = p->deco.plants.biome_count[b];
    if (n > BW_MAX_BIOME_LAYERS) n = BW_MAX_BIOME_LAYERS;
    if (n == 0) return 0;
    const BwCandidate c = bw_candidate(p, 1, x, z);
    if (c.threshold >= p->deco.plants.max_density[b]) return 0;
    unsigned int sum = 0, seen_node = BW_NO_DENSITY_MAP;
    float seen = 0.0f;
    int l = -1;
    for (unsigned int i = 0; i < n && l < 0; ++i) {
        const FlatDensityMap map = p->deco.plants.layer_maps[b][i];
        float factor = 1.0f;
        if (map.node < p->terrain.node_count) {
            if (map.node != seen_node) {
                seen = bw_eval_node(p, map.node, (float)x, (float)z);
                seen_node = map.node;
            }
            factor = bw_map_factor(map, seen);
        }
        sum += bw_scaled_density(p->deco.plants.biome_layers[b][i].density, factor);
        if (sum > c.threshold) l = (int)i;
    }
    if (l < 0) return 0;
    const FlatLayer layer = p->deco.plants.biome_layers[b][l];
    if (!bw_surface_allows(p, layer, h, b)) return 0;
    unsigned int d = p->deco.plants.shore[b][l];
    if (d > BW_MAX_SHORE_REACH) d = BW_MAX_SHORE_REACH;
    if (d == 0) return layer.what;
    // Any one column across the water line decides, so the heights at hand
    // (the chunk column's heightmap) go first, and a column beyond it is
    // sampled, as the heightmap samples it, only when none of them did.
    const bool wet = h < p->surface.water_level;
    const long long r = (long long)d;
    for (int beyond = 0; beyond < 2; ++beyond) {
        for (long long dz = -r; dz <= r; ++dz) {
            const long long half = r - (dz < 0 ? -dz : dz);
            for (long long dx = -half; dx <= half; ++dx) {
                const long long rx = x + dx - x0, rz = z + dz - z0;
                const bool inside = rx >= 0 && rx < BW_CHUNK && rz >= 0 && rz < BW_CHUNK;
                if (inside == (beyond != 0)) continue;
                const int at = inside ? heights[rz * BW_CHUNK + rx] : bw_footing_height(p, x + dx, z + dz);
                if ((at < p->surface.water_level) != wet) return layer.what;
            }
        }
    }
    return 0;
}

// Where a column of surface height h holds its plant: on the ground, or on
// the water over it. Twin: plant_height.
__device__ __forceinline__ long long bw_plant_height(const WorldParams* p, long long h) {
    const long long w = p->surface.water_level;
    return (h > w ? h : w) + 1;
}

// The order in which decorations claim a block: higher wins.
__device__ __forceinline__ unsigned int bw_claim_key(const WorldParams* p, unsigned int id) {
    return (id < BW_MAX_BLOCK_TYPES ? p->deco.block_priority[id] : 0u) << 8 | id;
}
