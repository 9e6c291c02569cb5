// Block-level prefix sum, CUB-style (cub::BlockScan::ExclusiveSum): every
// thread of the block calls it with one value (it contains barriers) and
// gets the sum of the values of the threads before it; `total` receives the
// block's sum. Hillis–Steele over two shared buffers, so no step reads a
// slot another thread is writing in the same step.
#pragma once

// `s_scan` holds 2 × THREADS values; it may be reused once this returns.
template <int THREADS>
__device__ __forceinline__ unsigned int bw_block_exclusive_sum(unsigned int value, unsigned int* s_scan,
                                                               unsigned int* total) {
    const unsigned int tid = threadIdx.x;
    unsigned int in = 0;
    s_scan[tid] = value;
    __syncthreads();
    for (unsigned int offset = 1; offset < THREADS; offset <<= 1) {
        unsigned int v = s_scan[in * THREADS + tid];
        if (tid >= offset) v += s_scan[in * THREADS + tid - offset];
        s_scan[(1 - in) * THREADS + tid] = v;
        in = 1 - in;
        __syncthreads();
    }
    const unsigned int inclusive = s_scan[in * THREADS + tid];
    *total = s_scan[in * THREADS + THREADS - 1];
    __syncthreads();
    return inclusive - value;
}
