// Seed 001's 3D gradient lattice, the noise under the caves. Rust twin:
// src/worldgen/noise/lattice.rs (which explains why the cooperative and the
// naive evaluation give the same bits).
#pragma once
#include "perlin.cuh"
#include "worldgen_params.cuh"

// Seed 001's integer hash: xor-shift and multiply twice, then xor-shift.
__device__ __forceinline__ unsigned int bw_mix(unsigned int x) {
    x = ((x >> 16) ^ x) * 0x045d9f3bu;
    x = ((x >> 16) ^ x) * 0x045d9f3bu;
    return (x >> 16) ^ x;
}

// The hash of lattice corner (x, y, z), chained axis by axis.
__device__ __forceinline__ unsigned int bw_corner_hash(unsigned int seed, int x, int y, int z) {
    return bw_mix(bw_mix(bw_mix(seed ^ (unsigned int)x) ^ (unsigned int)y) ^ (unsigned int)z);
}

// One of the 12 cube-edge directions: i = h mod 12 picks the plane by i / 4
// and the two signs by bits 0 and 1.
__device__ __forceinline__ void bw_gradient(unsigned int h, float g[3]) {
    const unsigned int i = h % 12u;
    const float s1 = (i & 1u) ? -1.0f : 1.0f;
    const float s2 = (i & 2u) ? -1.0f : 1.0f;
    const unsigned int plane = i >> 2;
    g[0] = plane == 2u ? 0.0f : s1;
    g[1] = plane == 0u ? s2 : (plane == 1u ? 0.0f : s1);
    g[2] = plane == 0u ? 0.0f : s2;
}

// The cell of block coordinate v in cells of 1 << shift blocks, and the
// block centre's fraction of it.
__device__ __forceinline__ int bw_cell_index(int v, unsigned int shift) { return v >> shift; }
__device__ __forceinline__ float bw_cell_fraction(int v, unsigned int shift) {
    const int mask = (1 << shift) - 1;
    return ((float)(v & mask) + 0.5f) * (1.0f / (float)(1u << shift));
}

__device__ __forceinline__ unsigned int bw_octave_seed(unsigned int seed, unsigned int o) {
    return seed + o * (unsigned int)BW_OCTAVE_SEED_STEP;
}

// The trilinear blend of the corner values (bit 0: +x, bit 1: +y, bit 2:
// +z): along x, then y, then z, with Perlin's own lerp (perlin.cuh).
__device__ __forceinline__ float bw_blend(const float d[8], float u, float v, float w) {
    const float a00 = bw_lerp(u, d[0], d[1]);
    const float a10 = bw_lerp(u, d[2], d[3]);
    const float a01 = bw_lerp(u, d[4], d[5]);
    const float a11 = bw_lerp(u, d[6], d[7]);
    return bw_lerp(w, bw_lerp(v, a00, a10), bw_lerp(v, a01, a11));
}

// One block's octave value with its own cell and eight corner hashes (seed
// 001's non-cooperative evaluation).
__device__ __forceinline__ float bw_octave_at(unsigned int seed, unsigned int shift_xz, unsigned int shift_y, int x,
                                              int y, int z) {
    const int cx = bw_cell_index(x, shift_xz), cy = bw_cell_index(y, shift_y), cz = bw_cell_index(z, shift_xz);
    const float fx = bw_cell_fraction(x, shift_xz), fy = bw_cell_fraction(y, shift_y),
                fz = bw_cell_fraction(z, shift_xz);
    float d[8];
    for (int c = 0; c < 8; ++c) {
        const int ox = c & 1, oy = (c >> 1) & 1, oz = (c >> 2) & 1;
        float g[3];
        bw_gradient(bw_corner_hash(seed, cx + ox, cy + oy, cz + oz), g);
        d[c] = (g[0] * (fx - (float)ox) + g[1] * (fy - (float)oy)) + g[2] * (fz - (float)oz);
    }
    return bw_blend(d, bw_fade(fx), bw_fade(fy), bw_fade(fz));
}
