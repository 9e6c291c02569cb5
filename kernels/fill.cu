// The block fill on the device: one thread per block writes its id, then a
// block-level reduction of packed one-hot counters gives the count of each
// block type; thread 0 adds the thread block's partial counts to the chunk's
// totals. Rust twin: src/worldgen/fill.rs.
#include "block_reduce.cuh"
#include "worldgen_params.cuh"

#define BW_FILL_THREADS 512
#define BW_FILL_BLOCKS_PER_CHUNK (BW_CHUNK_VOLUME / BW_FILL_THREADS)
#define BW_COUNT_WORDS (BW_MAX_BLOCK_TYPES / 4)

// Grid (64, chunk_count), block 512. `counts` (16 per chunk) must be zeroed
// before the launch; every byte of `blocks` for the launched chunks is written.
extern "C" __global__ void __launch_bounds__(BW_FILL_THREADS)
    bw_fill(const WorldParams* params, const ChunkJob* jobs, unsigned int chunk_count, const int* heights,
            const unsigned char* biomes, unsigned char* blocks, unsigned int* counts) {
    __shared__ unsigned long long s_counts[BW_COUNT_WORDS * BW_FILL_THREADS];

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

    unsigned long long packed[BW_COUNT_WORDS];
    for (int w = 0; w < BW_COUNT_WORDS; ++w) packed[w] = 0ull;
    packed[block / 4] = 1ull << ((block % 4) * 16);
    bw_block_reduce_sum<BW_FILL_THREADS, BW_COUNT_WORDS>(packed, s_counts);

    if (active && threadIdx.x < BW_MAX_BLOCK_TYPES) {
        const unsigned int t = threadIdx.x;
        const unsigned int n = (unsigned int)((packed[t / 4] >> ((t % 4) * 16)) & 0xffffull);
        if (n != 0) atomicAdd(&counts[chunk * BW_MAX_BLOCK_TYPES + t], n);
    }
}
