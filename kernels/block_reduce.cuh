// Block-level reductions over shared memory, CUB-style (cub::BlockReduce): every thread of the
// block calls them (they contain barriers), and thread 0 gets the result.
#pragma once

// Minimum of `lo` and maximum of `hi` across the block.
template <int THREADS>
__device__ __forceinline__ void bw_block_reduce_min_max(int* lo, int* hi, int* s_lo, int* s_hi) {
    const unsigned int tid = threadIdx.x;
    s_lo[tid] = *lo;
    s_hi[tid] = *hi;
    __syncthreads();
    for (unsigned int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s_lo[tid] = min(s_lo[tid], s_lo[tid + stride]);
            s_hi[tid] = max(s_hi[tid], s_hi[tid + stride]);
        }
        __syncthreads();
    }
    *lo = s_lo[0];
    *hi = s_hi[0];
    __syncthreads();
}
