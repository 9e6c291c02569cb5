// The Brno project's 3D gradient lattice, the noise under the caves. Rust twin:
// src/worldgen/noise/lattice.rs (which explains why the cooperative and the
// naive evaluation give the same bits).
#pragma once
#include "perlin.cuh"
#include "worldgen_params.cuh"

// The Brno project's integer hash: xor-shift and multiply twice, then xor-shift.
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

// One face's values blended along x (fade u), then z (fade w); the face's
// corners in blend order.
__device__ __forceinline__ float bw_face(const float d[8], int c0, int c1, int c2, int c3, float u, float w) {
    return bw_lerp(w, bw_lerp(u, d[c0], d[c1]), bw_lerp(u, d[c2], d[c3]));
}

// The trilinear blend of a block's corner dot products (bit 0: +x, bit 1:
// +y, bit 2: +z), given as each corner's x + z part pxz and y gradient gy:
// the bottom face blends to k_b + g_b·fy, the top face to k_t + g_t·(fy − 1),
// then y blends the two (the Rust twin explains why), with Perlin's own
// lerp (perlin.cuh).
__device__ __forceinline__ float bw_blend(const float pxz[8], const float gy[8], float fy, float u, float v, float w) {
    const float bottom = bw_face(pxz, 0, 1, 4, 5, u, w) + bw_face(gy, 0, 1, 4, 5, u, w) * fy;
    const float top = bw_face(pxz, 2, 3, 6, 7, u, w) + bw_face(gy, 2, 3, 6, 7, u, w) * (fy - 1.0f);
    return bw_lerp(v, bottom, top);
}

// One block's octave value with its own cell and eight corner hashes (seed
// 001's non-cooperative evaluation).
__device__ __forceinline__ float bw_octave_at(unsigned int seed, unsigned int shift_xz, unsigned int shift_y, int x,
                                              int y, int z) {
    const int cx = bw_cell_index(x, shift_xz), cy = bw_cell_index(y, shift_y), cz = bw_cell_index(z, shift_xz);
    const float fx = bw_cell_fraction(x, shift_xz), fy = bw_cell_fraction(y, shift_y),
                fz = bw_cell_fraction(z, shift_xz);
    float pxz[8], gy[8];
    for (int c = 0; c < 8; ++c) {
        const int ox = c & 1, oy = (c >> 1) & 1, oz = (c >> 2) & 1;
        float g[3];
        bw_gradient(bw_corner_hash(seed, cx + ox, cy + oy, cz + oz), g);
        pxz[c] = g[0] * (fx - (float)ox) + g[2] * (fz - (float)oz);
        gy[c] = g[1];
    }
    return bw_blend(pxz, gy, fy, bw_fade(fx), bw_fade(fy), bw_fade(fz));
}
