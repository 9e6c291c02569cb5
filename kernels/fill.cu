// The block fill on the device: one thread per block finds its id (the
// terrain, with the veins that reach it, carved where bw_density marked a
// cave, then what the column's trees and plants claim there), a block
// histogram counts the ids, and thread t < 32 adds the thread block's
// count of block type t to the chunk's totals. Rust twins: src/worldgen/fill.rs, src/worldgen/veins.rs
// and src/worldgen/decorate.rs (apply).
//
// The ids leave the device as vertical runs, not as 32 KiB per chunk: a
// column of 32 blocks is a few runs (stone, dirt, grass, air), so the copy
// back and the host's work shrink with it. Each thread block (16 columns)
// reserves one segment of the launch's run stream with one atomic:
//   header, 4 bytes little-endian: group (bits 0-5, the thread block's
//     index in the chunk), chunk (bits 6-15, index in the launch), run
//     count (bits 16-25);
//   then 2 bytes per run, column by column, bottom first: the id and the
//     height its run starts at (0 starts the next column).
// Segments land in whatever order the atomics ran; each names its place,
// so the decoded blocks never depend on that order. Rust reader:
// src/backend/runs.rs.
#include "block_histogram.cuh"
#include "block_scan.cuh"
#include "decorations.cuh"
#include "patches.cuh"
#include "veins.cuh"

// The block at height y of column (lx, lz) of chunk column `col` whose
// terrain put `block` there: the trunk soil, or the decoration with the
// highest claim where the terrain left air. Gathering per block makes the
// result independent of the order of the column's trees.
__device__ __forceinline__ unsigned int bw_decorate_block(const WorldParams* p, ColumnJob col, unsigned int lx,
                                                          unsigned int lz, long long y, long long h, unsigned int biome,
                                                          unsigned int block, const PlacedObject* trees,
                                                          unsigned int counts, const int* heights) {
    unsigned int tree_count = counts & 0xFFFFu, patch_count = counts >> 16;
    if (tree_count > BW_MAX_TREES_PER_COLUMN) tree_count = BW_MAX_TREES_PER_COLUMN;
    if (patch_count > BW_MAX_PATCHES_PER_COLUMN) patch_count = BW_MAX_PATCHES_PER_COLUMN;
    if (y == h) {
        for (unsigned int i = 0; i < tree_count; ++i) {
            const PlacedObject t = trees[i];
            if (t.kind < BW_MAX_TREE_KINDS && t.x == (int)lx && t.z == (int)lz) return p->deco.trunk_soil_block;
        }
        return block;
    }
    if (y <= h || y <= (long long)p->surface.water_level) return block;
    unsigned int best = block;
    if (y == bw_plant_height(p, h)) {
        const long long x0 = (long long)col.x * BW_CHUNK, z0 = (long long)col.z * BW_CHUNK;
        const unsigned int plant = bw_plant_at(p, x0 + lx, z0 + lz, (int)h, biome, heights, x0, z0);
        if (plant != 0 && bw_claim_key(p, plant) > bw_claim_key(p, best)) best = plant;
        const PlacedObject* patches = trees + BW_MAX_TREES_PER_COLUMN;
        for (unsigned int i = 0; i < patch_count; ++i) {
            const unsigned int id = bw_patch_plant(p, patches[i], (int)lx, (int)lz, (int)h, biome, x0, z0);
            if (id != 0 && bw_claim_key(p, id) > bw_claim_key(p, best)) best = id;
        }
    }
    for (unsigned int i = 0; i < tree_count; ++i) {
        const PlacedObject t = trees[i];
        const int dx = (int)lx - t.x, dz = (int)lz - t.z;
        unsigned int id = 0;
        if (t.kind < BW_MAX_TREE_KINDS) {
            if (dx < -p->deco.trees.reach || dx > p->deco.trees.reach || dz < -p->deco.trees.reach || dz > p->deco.trees.reach) continue;
            id = bw_tree_block_at(p->deco.trees.kinds[t.kind], t.shape, dx, (int)(y - t.base), dz);
        } else if (t.kind - BW_ROCK_KIND < BW_MAX_ROCK_KINDS) {
            const long long dy = y - t.base;
            if (dx < -p->deco.rocks.reach || dx > p->deco.rocks.reach || dz < -p->deco.rocks.reach || dz > p->deco.rocks.reach ||
                dy < -p->deco.rocks.reach || dy > p->deco.rocks.reach)
                continue;
            id = bw_rock_block_at(p->deco.rocks.kinds[t.kind - BW_ROCK_KIND], t.shape, dx, (int)dy, dz);
        }
        if (id != 0 && bw_claim_key(p, id) > bw_claim_key(p, best)) best = id;
    }
    return best;
}

// Grid (BW_FILL_BLOCKS_PER_CHUNK, chunk_count), block BW_FILL_THREADS.
// `counts` (BW_MAX_BLOCK_TYPES per chunk) and `*runs_used` must be zeroed
// before the launch; `runs` receives the segments described above, and
// `*runs_used` ends as the bytes they take (a total above `runs_capacity`
// means segments were dropped: the host refuses the launch). `caves` holds
// bw_density's masks for the same chunks (read only in worlds with caves).
extern "C" __global__ void __launch_bounds__(BW_FILL_THREADS)
    bw_fill(const ChunkJob* jobs, unsigned int chunk_count, const int* heights, const unsigned char* biomes,
            const PlacedObject* trees, const unsigned int* tree_counts, const unsigned char* caves, unsigned char* runs,
            unsigned int* runs_used, unsigned int runs_capacity, unsigned int* counts) {
    __shared__ unsigned int s_counts[BW_MAX_BLOCK_TYPES];
    __shared__ unsigned char s_ids[BW_FILL_THREADS];
    __shared__ unsigned int s_scan[2 * BW_FILL_THREADS];
    __shared__ unsigned int s_base;
    __shared__ BwVein s_veins[BW_VEIN_SLAB_CANDIDATES];
    const WorldParams* params = &bw_world;

    const unsigned int chunk = blockIdx.y;
    const bool active = chunk < chunk_count;
    const unsigned int index = blockIdx.x * BW_FILL_THREADS + threadIdx.x;  // y fastest, then x, then z
    const unsigned int ly = index % BW_CHUNK;
    const unsigned int column = index / BW_CHUNK;  // z * 32 + x

    // This thread block's slab: a row of columns at one z, the chunk's height.
    ChunkJob job = {0, 0, 0, 0u};
    if (active) job = jobs[chunk];
    const long long corner[3] = {(long long)job.x * BW_CHUNK, (long long)job.y * BW_CHUNK,
                                 (long long)job.z * BW_CHUNK};
    const unsigned int first = blockIdx.x * (BW_FILL_THREADS / BW_CHUNK);
    const long long lo[3] = {corner[0] + first % BW_CHUNK, corner[1], corner[2] + first / BW_CHUNK};
    const long long hi[3] = {lo[0] + BW_FILL_THREADS / BW_CHUNK - 1, corner[1] + BW_CHUNK - 1, lo[2]};
    // The same for every thread of the block, so all of them reach the
    // gather's barriers or none does.
    const bool veins = active && params->veins.kind_count > 0 &&
                       hi[1] >= (long long)params->veins.lowest - params->veins.reach &&
                       lo[1] <= (long long)params->veins.highest + params->veins.reach;
    unsigned int vein_count = 0;
    if (veins) bw_gather_veins<BW_FILL_THREADS>(params, lo, hi, corner, s_veins, s_scan, &vein_count);

    unsigned int block = params->surface.air_block;
    if (active) {
        const long long h = heights[job.column * BW_CHUNK_AREA + column];
        const unsigned int biome = biomes[job.column * BW_CHUNK_AREA + column];
        const long long y = (long long)job.y * BW_CHUNK + ly;
        if (y > h) {
            block = y <= (long long)params->surface.water_level ? params->surface.water_block : params->surface.air_block;
        } else if (y == h) {
            block = h > (long long)params->surface.snow_above ? params->surface.snow_block : params->surface.top[biome];
        } else if (y >= h - (long long)params->surface.under_depth) {
            block = params->surface.under[biome];
        } else {
            block = params->surface.deep_block;
        }
        // Below the surface, or on it under water (beds).
        if (vein_count > 0 && (y < h || (y == h && h < (long long)params->surface.water_level))) {
            block = bw_vein_block(params, s_veins, vein_count, corner, (int)(column % BW_CHUNK), (int)ly,
                                  (int)(column / BW_CHUNK), block);
        }
        if (params->caves.layer_count > 0 &&
            ((caves[(size_t)chunk * BW_CAVE_MASK_BYTES + column * 4u + ly / 8u] >> (ly % 8u)) & 1u)) {
            // Twin: density::cave_block.
            block = y < (long long)params->caves.lava_below && y <= h - (long long)params->caves.lava_cover
                        ? params->caves.lava_block
                        : params->surface.air_block;
        }
        if (params->deco.trees.unit > 0 || params->deco.plants.reach > 0 || params->deco.rocks.unit > 0) {
            block = bw_decorate_block(params, ColumnJob{job.x, job.z}, column % BW_CHUNK, column / BW_CHUNK, y, h, biome,
                                      block, trees + (size_t)job.column * BW_OBJECTS_PER_COLUMN,
                                      tree_counts[job.column], heights + (size_t)job.column * BW_CHUNK_AREA);
        }
    }

    bw_block_histogram<BW_MAX_BLOCK_TYPES>(block, active && block < BW_MAX_BLOCK_TYPES, s_counts);

    if (active && threadIdx.x < BW_MAX_BLOCK_TYPES) {
        const unsigned int n = s_counts[threadIdx.x];
        if (n != 0) atomicAdd(&counts[chunk * BW_MAX_BLOCK_TYPES + threadIdx.x], n);
    }

    // Runs: a thread starts one where its id differs from the one below it
    // in the column (the bottom of a column always starts one). Every
    // thread takes part in the scan, active or not: it holds barriers.
    s_ids[threadIdx.x] = (unsigned char)block;
    __syncthreads();
    const bool starts = ly == 0 || s_ids[threadIdx.x - 1] != (unsigned char)block;
    unsigned int total = 0;
    const unsigned int rank = bw_block_exclusive_sum<BW_FILL_THREADS>(starts ? 1u : 0u, s_scan, &total);
    const unsigned int bytes = BW_RUN_HEADER_BYTES + BW_RUN_BYTES * total;
    if (threadIdx.x == 0) s_base = active ? atomicAdd(runs_used, bytes) : 0u;
    __syncthreads();
    const unsigned int base = s_base;
    if (active && base <= runs_capacity && bytes <= runs_capacity - base) {
        if (threadIdx.x == 0) {
            const unsigned int header = blockIdx.x | (chunk << 6) | (total << 16);
            for (unsigned int b = 0; b < BW_RUN_HEADER_BYTES; ++b) runs[base + b] = (unsigned char)(header >> (8 * b));
        }
        if (starts) {
            unsigned char* run = runs + base + BW_RUN_HEADER_BYTES + BW_RUN_BYTES * rank;
            run[0] = (unsigned char)block;
            run[1] = (unsigned char)ly;
        }
    }
}
