// Heightmaps on the device: the noise-object setup, and one fused kernel per
// batch that samples h_b over each column's 34×34 apron into shared memory,
// synchronises, and applies the diagonal smoothing stencil (the original
// needed two launches and a device sync). Rust twin: src/worldgen/heightmap.rs.
#include "block_reduce.cuh"
#include "column.cuh"

// Builds the noise objects once per world. Launch <<<1, 1>>>.
extern "C" __global__ void bw_build_noise_objects(NoiseObject** objects) {
    const WorldParams* params = &bw_world;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (unsigned int i = 0; i < params->node_count; ++i) {
            objects[i] = bw_make_noise_object(params, params->nodes[i], objects);
        }
    }
}

// Frees them. Launch <<<1, 1>>>.
extern "C" __global__ void bw_destroy_noise_objects(NoiseObject** objects) {
    const WorldParams* params = &bw_world;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (unsigned int i = 0; i < params->node_count; ++i) {
            delete objects[i];
            objects[i] = nullptr;
        }
    }
}

// One thread block per chunk column (grid = job count, block = 256 threads).
// Outputs per job: 1024 heights, 1024 biome ids, and {min, max} height
// into `min_max[3·job]` (bw_decorate adds the trees' top as the third).
template <typename Fields>
__device__ __forceinline__ void bw_heightmap_body(const WorldParams* params, const Fields& fields, const ColumnJob* jobs,
                                                  unsigned int job_count, int* heights, unsigned char* biomes,
                                                  int* min_max) {
    __shared__ float s_hb[BW_APRON_AREA];
    __shared__ unsigned char s_biome[BW_APRON_AREA];
    __shared__ int s_lo[BW_HEIGHTMAP_THREADS];
    __shared__ int s_hi[BW_HEIGHTMAP_THREADS];

    const unsigned int job = blockIdx.x;
    // Every thread reaches every barrier: an out-of-range block (never
    // launched by the host) only skips its loads and stores.
    const bool active = job < job_count;
    const ColumnJob c = active ? jobs[job] : ColumnJob{0, 0};

    for (unsigned int i = threadIdx.x; i < BW_APRON_AREA; i += blockDim.x) {
        long long wx = (long long)c.x * BW_CHUNK + (long long)(i % BW_APRON) - 1;
        long long wz = (long long)c.z * BW_CHUNK + (long long)(i / BW_APRON) - 1;
        bw_sample_column(params, fields, (float)wx, (float)wz, &s_hb[i], &s_biome[i]);
    }
    __syncthreads();

    int lo = 2147483647;
    int hi = -2147483647 - 1;
    for (unsigned int i = threadIdx.x; i < BW_CHUNK_AREA; i += blockDim.x) {
        unsigned int x = i % BW_CHUNK;
        unsigned int z = i / BW_CHUNK;
        float a = s_hb[z * BW_APRON + x];
        float b = s_hb[z * BW_APRON + x + 2];
        float cc = s_hb[(z + 2) * BW_APRON + x];
        float d = s_hb[(z + 2) * BW_APRON + x + 2];
        float v = (((a + b) + cc) + d) * 0.25f;
        int h = (int)v;
        if (active) {
            heights[job * BW_CHUNK_AREA + i] = h;
            biomes[job * BW_CHUNK_AREA + i] = s_biome[(z + 1) * BW_APRON + x + 1];
        }
        lo = min(lo, h);
        hi = max(hi, h);
    }
    bw_block_reduce_min_max<BW_HEIGHTMAP_THREADS>(&lo, &hi, s_lo, s_hi);
    if (active && threadIdx.x == 0) {
        min_max[job * 3] = lo;
        min_max[job * 3 + 1] = hi;
    }
}

// Through the virtual noise objects built by bw_build_noise_objects.
extern "C" __global__ void __launch_bounds__(BW_HEIGHTMAP_THREADS)
    bw_heightmap(NoiseObject* const* objects, const ColumnJob* jobs, unsigned int job_count, int* heights,
                 unsigned char* biomes, int* min_max) {
    bw_heightmap_body(&bw_world, VirtualFields{objects}, jobs, job_count, heights, biomes, min_max);
}

// Through the switch over node kinds (no objects needed).
extern "C" __global__ void __launch_bounds__(BW_HEIGHTMAP_THREADS)
    bw_heightmap_switch(const ColumnJob* jobs, unsigned int job_count, int* heights, unsigned char* biomes,
                        int* min_max) {
    bw_heightmap_body(&bw_world, SwitchFields{}, jobs, job_count, heights, biomes, min_max);
}
