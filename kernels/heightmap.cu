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
        for (unsigned int i = 0; i < params->terrain.node_count; ++i) {
            objects[i] = bw_make_noise_object(params, params->terrain.nodes[i], objects);
        }
    }
}

// Frees them. Launch <<<1, 1>>>.
extern "C" __global__ void bw_destroy_noise_objects(NoiseObject** objects) {
    const WorldParams* params = &bw_world;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (unsigned int i = 0; i < params->terrain.node_count; ++i) {
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

// Far terrain (src/far/tile.rs): the ground height and biome of each far
// cell at its sample point, exactly what the chunk heightmap holds for that
// column: the diagonal stencil over four samples of h_b, and the centre
// sample's biome. One thread per cell: grid = (BW_FAR_TILE_AREA / BW_FAR_THREADS
// blocks per tile, tile count), block = BW_FAR_THREADS. Only on the 2 m
// level do neighbouring cells share taps, so no shared-memory apron: each
// thread takes the same five samples as the CPU path. No barrier follows,
// so a thread past the jobs may return at once.
template <typename Fields>
__device__ __forceinline__ void bw_far_cells_body(const WorldParams* params, const Fields& fields, const FarJob* jobs,
                                                  unsigned int job_count, int* heights, unsigned char* biomes) {
    const unsigned int job = blockIdx.y;
    const unsigned int cell = blockIdx.x * blockDim.x + threadIdx.x;
    if (job >= job_count || cell >= BW_FAR_TILE_AREA) return;
    const FarJob f = jobs[job];
    const long long step = f.cell;
    const long long sx = (long long)f.x + (long long)(cell % BW_FAR_TILE_CELLS) * step + step / 2;
    const long long sz = (long long)f.z + (long long)(cell / BW_FAR_TILE_CELLS) * step + step / 2;
    // The taps in heightmap.rs's order: (−1,−1), (+1,−1), (−1,+1), (+1,+1).
    float h[4];
    unsigned char unused;
    for (int t = 0; t < 4; ++t) {
        long long dx = (t & 1) ? 1 : -1;
        long long dz = (t & 2) ? 1 : -1;
        bw_sample_column(params, fields, (float)(sx + dx), (float)(sz + dz), &h[t], &unused);
    }
    float centre;
    unsigned char biome;
    bw_sample_column(params, fields, (float)sx, (float)sz, &centre, &biome);
    const size_t out = (size_t)job * BW_FAR_TILE_AREA + cell;
    heights[out] = (int)((((h[0] + h[1]) + h[2]) + h[3]) * 0.25f);
    biomes[out] = biome;
}

extern "C" __global__ void __launch_bounds__(BW_FAR_THREADS)
    bw_far_cells(NoiseObject* const* objects, const FarJob* jobs, unsigned int job_count, int* heights,
                 unsigned char* biomes) {
    bw_far_cells_body(&bw_world, VirtualFields{objects}, jobs, job_count, heights, biomes);
}

extern "C" __global__ void __launch_bounds__(BW_FAR_THREADS)
    bw_far_cells_switch(const FarJob* jobs, unsigned int job_count, int* heights, unsigned char* biomes) {
    bw_far_cells_body(&bw_world, SwitchFields{}, jobs, job_count, heights, biomes);
}
