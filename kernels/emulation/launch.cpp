// Host entry points into the emulated kernels, called from Rust
// (src/backend/emulated.rs). The kernel files are included unchanged. Each
// entry point first stores the world description where the kernels read it
// (`bw_world`, constant memory on a GPU). With fibers each OS thread has its
// own `bw_world` and shared memory, so calls from different threads may run
// at once; the threads build shares them, and Rust serialises its calls.
#define BW_EMU_PER_THREAD_STATICS
#include "cuda_emulation.h"

#include "../decorate.cu"
#include "../density.cu"
#include "../fill.cu"
#include "../heightmap.cu"

extern "C" {

void bw_emu_build_noise_objects(const WorldParams* params, NoiseObject** objects) {
    bw_world = *params;
    BW_LAUNCH(bw_build_noise_objects, dim3(1), dim3(1), objects);
}

void bw_emu_destroy_noise_objects(const WorldParams* params, NoiseObject** objects) {
    bw_world = *params;
    BW_LAUNCH(bw_destroy_noise_objects, dim3(1), dim3(1), objects);
}

void bw_emu_heightmap(const WorldParams* params, NoiseObject* const* objects, const ColumnJob* jobs,
                      unsigned int job_count, int* heights, unsigned char* biomes, int* min_max) {
    if (job_count == 0) return;
    bw_world = *params;
    BW_LAUNCH(bw_heightmap, dim3(job_count), dim3(BW_HEIGHTMAP_THREADS), objects, jobs, job_count, heights, biomes,
              min_max);
}

void bw_emu_heightmap_switch(const WorldParams* params, const ColumnJob* jobs, unsigned int job_count, int* heights,
                             unsigned char* biomes, int* min_max) {
    if (job_count == 0) return;
    bw_world = *params;
    BW_LAUNCH(bw_heightmap_switch, dim3(job_count), dim3(BW_HEIGHTMAP_THREADS), jobs, job_count, heights, biomes,
              min_max);
}

void bw_emu_far_cells(const WorldParams* params, NoiseObject* const* objects, const FarJob* jobs,
                      unsigned int job_count, int* heights, unsigned char* biomes) {
    if (job_count == 0) return;
    bw_world = *params;
    BW_LAUNCH(bw_far_cells, dim3(BW_FAR_TILE_AREA / BW_FAR_THREADS, job_count), dim3(BW_FAR_THREADS), objects, jobs,
              job_count, heights, biomes);
}

void bw_emu_far_cells_switch(const WorldParams* params, const FarJob* jobs, unsigned int job_count, int* heights,
                             unsigned char* biomes) {
    if (job_count == 0) return;
    bw_world = *params;
    BW_LAUNCH(bw_far_cells_switch, dim3(BW_FAR_TILE_AREA / BW_FAR_THREADS, job_count), dim3(BW_FAR_THREADS), jobs,
              job_count, heights, biomes);
}

void bw_emu_decorate(const WorldParams* params, const ColumnJob* jobs, unsigned int job_count, const int* heights,
                     const unsigned char* biomes, PlacedObject* trees, unsigned int* tree_counts, int* extremes) {
    if (job_count == 0) return;
    bw_world = *params;
    BW_LAUNCH(bw_decorate, dim3(job_count), dim3(BW_DECORATE_THREADS), jobs, job_count, heights, biomes, trees,
              tree_counts, extremes);
}

void bw_emu_density(const WorldParams* params, const ChunkJob* jobs, unsigned int chunk_count, const int* heights,
                    unsigned char* caves, unsigned int cooperative) {
    if (chunk_count == 0) return;
    bw_world = *params;
    BW_LAUNCH(bw_density, dim3(BW_DENSITY_GROUPS_PER_CHUNK, chunk_count), dim3(BW_DENSITY_THREADS), jobs, chunk_count,
              heights, caves, cooperative);
}

void bw_emu_fill(const WorldParams* params, const ChunkJob* jobs, unsigned int chunk_count, const int* heights,
                 const unsigned char* biomes, const PlacedObject* trees, const unsigned int* tree_counts,
                 const unsigned char* caves, unsigned char* runs, unsigned int* runs_used,
                 unsigned int runs_capacity, unsigned int* counts) {
    *runs_used = 0;
    if (chunk_count == 0) return;
    std::memset(counts, 0, sizeof(unsigned int) * BW_MAX_BLOCK_TYPES * chunk_count);
    bw_world = *params;
    BW_LAUNCH(bw_fill, dim3(BW_FILL_BLOCKS_PER_CHUNK, chunk_count), dim3(BW_FILL_THREADS), jobs, chunk_count, heights,
              biomes, trees, tree_counts, caves, runs, runs_used, runs_capacity, counts);
}

unsigned int bw_emu_sizeof_noise_object_ptr() { return sizeof(NoiseObject*); }

// One block's cave octave as the naive kernel path computes it, for the
// value-level parity test (the kernels' outputs are masks, which hide
// rounding differences unless a value sits on a threshold).
float bw_emu_octave_at(unsigned int seed, unsigned int shift_xz, unsigned int shift_y, int x, int y, int z) {
    return bw_octave_at(seed, shift_xz, shift_y, x, y, z);
}

#if defined(BW_EMU_THREADS)
// Self-test of the race detection: a shared-memory exchange between
// neighbouring threads, with or without the barrier that orders it.
__global__ void bw_selftest_exchange(int* out, int with_barrier) {
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x;
    if (with_barrier) __syncthreads();  // uniform across the block
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}

void bw_emu_selftest_exchange(int* out, int with_barrier) {
    BW_LAUNCH(bw_selftest_exchange, dim3(1), dim3(64), out, with_barrier);
}
#endif

}  // extern "C"
