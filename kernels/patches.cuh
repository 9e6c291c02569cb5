// Plants in patches, as the founding game plants its flowers and tall grass:
// a column is a patch centre of a slot by its hash and the layer's chance,
// and a patch fills a share of the columns of its rectangle that stand at
// its centre's height. bw_decorate lists each chunk column's centres after
// its trees and rocks; bw_fill plants them. Rust twin:
// src/worldgen/patches.rs.
#pragma once
#include "decorations.cuh"

#define BW_PATCH_SALT 0x7061746368657321ull

// Twin: patch_hash.
__device__ __forceinline__ unsigned long long bw_patch_hash(unsigned long long seed, long long x, long long z,
                                                            unsigned int k) {
    const unsigned long long key = ((unsigned long long)(unsigned int)x << 32) | (unsigned int)z;
    return bw_splitmix64(seed ^ BW_PATCH_SALT ^ bw_splitmix64(key) ^ ((unsigned long long)k + 1ull) * 0x9E3779B97F4A7C15ull);
}

__device__ __forceinline__ unsigned int bw_patch_chance_bits(unsigned long long hash) { return (unsigned int)(hash >> 40); }

// Half-extents along x (*l) and z (*w). Twin: patch_extents.
__device__ __forceinline__ void bw_patch_extents(const FlatPatch& layer, unsigned long long hash, int* l, int* w) {
    const unsigned int s = layer.half_min + (unsigned int)(hash & 0xFFFFull) % (layer.half_span + 1u);
    const unsigned int j = 2u * layer.jitter + 1u;
    *l = (int)(s - layer.jitter + (unsigned int)((hash >> 16) & 0xFFull) % j);
    *w = (int)(s - layer.jitter + (unsigned int)((hash >> 24) & 0xFFull) % j);
}

// Twin: patch_takes.
__device__ __forceinline__ bool bw_patch_takes(const FlatPatch& layer, unsigned long long hash, int dx, int dz) {
    const unsigned long long at = ((((unsigned long long)(dz + 64)) << 8) | (unsigned long long)(dx + 64)) + 1ull;
    return bw_patch_chance_bits(bw_splitmix64(hash + at)) < layer.share;
}

// A layer's map factor at (x, z), 1 without a map.
__device__ __forceinline__ float bw_patch_factor(const WorldParams* p, const FlatPatch& layer, long long x, long long z) {
    if (layer.map.node >= p->terrain.node_count) return 1.0f;
    return bw_map_factor(layer.map, bw_eval_node(p, layer.map.node, (float)x, (float)z));
}

// The largest chance slot k reaches at (x, z) in any biome. Twin: ring_bound.
__device__ unsigned int bw_patch_ring_bound(const WorldParams* p, unsigned int k, long long x, long long z) {
    unsigned int bound = 0u, seen_node = BW_NO_DENSITY_MAP;
    float seen = 0.0f;
    for (unsigned int b = 0; b < BW_MAX_BIOMES; ++b) {
        if (p->deco.plants.patch_count[b] <= k) continue;
        const FlatPatch layer = p->deco.plants.patches[b][k];
        float factor = 1.0f;
        if (layer.map.node < p->terrain.node_count) {
            if (layer.map.node != seen_node) {
                seen = bw_eval_node(p, layer.map.node, (float)x, (float)z);
                seen_node = layer.map.node;
            }
            factor = bw_map_factor(layer.map, seen);
        }
        const unsigned int c = bw_scaled_density(layer.chance, factor);
        if (c > bound) bound = c;
    }
    return bound;
}

// Whether the widest rectangle slot k's hash gives in any biome, around
// (rx, rz) from the chunk column's corner, overlaps the column.
__device__ __forceinline__ bool bw_patch_may_reach(const WorldParams* p, unsigned int k, unsigned long long hash,
                                                   long long rx, long long rz) {
    int l = 0, w = 0;
    for (unsigned int b = 0; b < BW_MAX_BIOMES; ++b) {
        if (p->deco.plants.patch_count[b] <= k) continue;
        int el = 0, ew = 0;
        bw_patch_extents(p->deco.plants.patches[b][k], hash, &el, &ew);
        if (el > l) l = el;
        if (ew > w) w = ew;
    }
    return rx + l >= 0 && rx - l < BW_CHUNK && rz + w >= 0 && rz - w < BW_CHUNK;
}

// The centre of slot k at (x, z) (rx, rz from the column's corner) of
// surface height h and biome b, if its hash makes one: `obj` gets it as the
// plan lists it (kind: the biome's patch table index, shape: the
// half-extents). Twin: centre_at.
__device__ __forceinline__ bool bw_patch_centre(const WorldParams* p, long long x, long long z, int rx, int rz, int h,
                                                unsigned int b, unsigned int k, unsigned long long hash,
                                                PlacedObject* obj) {
    b %= BW_MAX_BIOMES;
    if (p->deco.plants.patch_count[b] <= k) return false;
    const FlatPatch layer = p->deco.plants.patches[b][k];
    const float factor = bw_patch_factor(p, layer, x, z);
    if (bw_patch_chance_bits(hash) >= bw_scaled_density(layer.chance, factor)) return false;
    int l = 0, w = 0;
    bw_patch_extents(layer, hash, &l, &w);
    obj->x = rx;
    obj->z = rz;
    obj->base = h;
    obj->kind = b * BW_MAX_BIOME_LAYERS + k;
    obj->shape = (unsigned int)l | ((unsigned int)w << 8);
    return true;
}

// The plant the listed patch `c` puts on column (lx, lz) of surface height
// h and biome b (chunk column corner (x0, z0)), or 0.
__device__ __forceinline__ unsigned int bw_patch_plant(const WorldParams* p, const PlacedObject& c, int lx, int lz, int h,
                                                       unsigned int b, long long x0, long long z0) {
    const int dx = lx - c.x, dz = lz - c.z;
    const int l = (int)(c.shape & 255u), w = (int)((c.shape >> 8) & 255u);
    if (h != c.base || dx < -l || dx > l || dz < -w || dz > w) return 0u;
    const unsigned int table = c.kind;
    if (table >= BW_MAX_BIOMES * BW_MAX_BIOME_LAYERS) return 0u;
    const FlatPatch layer = p->deco.plants.patches[table / BW_MAX_BIOME_LAYERS][table % BW_MAX_BIOME_LAYERS];
    FlatLayer plant;
    plant.what = layer.what;
    plant.density = 0u;
    plant.on_mask = layer.on_mask;
    plant.above_water[0] = layer.above_water[0];
    plant.above_water[1] = layer.above_water[1];
    if (!bw_surface_allows(p, plant, h, b % BW_MAX_BIOMES)) return 0u;
    const unsigned long long hash = bw_patch_hash(bw_deco_seed(p), x0 + c.x, z0 + c.z, table % BW_MAX_BIOME_LAYERS);
    return bw_patch_takes(layer, hash, dx, dz) ? layer.what : 0u;
}
