// The block fill on the device: one thread per block writes its id, a block
// histogram counts the ids, and thread t < 16 adds the thread block's count
// of block type t to the chunk's totals. Rust twin: src/worldgen/fill.rs.
#include "block_histogram.cuh"
#include "worldgen_params.cuh"

// Grid (BW_FILL_BLOCKS_PER_CHUNK, chunk_count), block BW_FILL_THREADS.
// `counts` (BW_MAX_BLOCK_TYPES per chunk) must be zeroed before the launch;
// every byte of `blocks` for the launched chunks is written.
extern "C" __global__ void __launch_bounds__(BW_FILL_THREADS)
    bw_fill(const ChunkJob* jobs, unsigned int chunk_count, const int* heights, const unsigned char* biomes,
            unsigned char* blocks, unsigned int* counts) {
    __shared__ unsigned int s_counts[BW_MAX_BLOCK_TYPES];
    const WorldParams* params = &bw_world;

    const unsigned int chunk = blockIdx.y;
    const bool active = chunk < chunk_count;
    const unsigned int index = blockIdx.x * BW_FILL_THREADS + threadIdx.x;  // y fastest, then x, then z
    const unsigned int ly = index % BW_CHUNK;
    const unsigned int column = index / BW_CHUNK;  // z * 32 + x

    unsigned int block = params->air_block;
    if (active) {
        const ChunkJob job = jobs[chunk];
        const long long h = heights[job.column * BW_CHUNK_AREA + column];
        const unsigned int biome = biomes[job.column * BW_CHUNK_AREA + column];
        const long long y = (long long)job.y * BW_CHUNK + ly;
        if (y > h) {
            block = y <= (long long)params->water_level ? params->water_block : params->air_block;
        } else if (y == h) {
            block = h > (long long)params->snow_above ? params->snow_block : params->biome_top[biome];
        } else if (y >= h - (long long)params->under_depth) {
            block = params->biome_under[biome];
        } else {
            block = params->deep_block;
        }
        blocks[(size_t)chunk * BW_CHUNK_VOLUME + index] = (unsigned char)block;
    }

    bw_block_histogram<BW_MAX_BLOCK_TYPES>(block, active && block < BW_MAX_BLOCK_TYPES, s_counts);

    if (active && threadIdx.x < BW_MAX_BLOCK_TYPES) {
        const unsigned int n = s_counts[threadIdx.x];
        if (n != 0) atomicAdd(&counts[chunk * BW_MAX_BLOCK_TYPES + threadIdx.x], n);
    }
}
