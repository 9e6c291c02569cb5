// Block-level histogram, CUB-style (cub::BlockHistogram with the atomic
// algorithm): every thread of the block calls it with at most one sample,
// and on return `s_bins` holds the block's counts, readable by every thread.
// Two barriers and shared-memory atomics; nothing lives in local memory.
#pragma once

template <int BINS>
__device__ __forceinline__ void bw_block_histogram(unsigned int sample, bool valid, unsigned int* s_bins) {
    for (unsigned int i = threadIdx.x; i < BINS; i += blockDim.x) s_bins[i] = 0u;
    __syncthreads();
    if (valid) atomicAdd(&s_bins[sample], 1u);
    __syncthreads();
}
