// noise1234's noise3 on Ken Perlin's permutation table, bit-identical to
// src/worldgen/noise/permutation.rs: a whole coordinate falls in the cell
// below at fraction 1, the blend runs along z, then y, then x, and the sum
// is scaled by 0.936 without a clamp. The table and the gradient codes come
// from the generated header.
#pragma once
#include "perlin.cuh"

__constant__ unsigned char bw_permutation[256] = BW_PERMUTATION_TABLE;

__device__ __forceinline__ unsigned int bw_permutation_at(unsigned int i) { return bw_permutation[i & 255u]; }

// perm[x + perm[y + perm[z]]] on the doubled table, from wrapped cells.
__device__ __forceinline__ unsigned int bw_permutation_corner(unsigned int x, unsigned int y, unsigned int z) {
    return bw_permutation_at(x + bw_permutation_at(y + bw_permutation_at(z)));
}

__device__ __forceinline__ float bw_permutation_gradient(unsigned int index, float x, float y, float z) {
    unsigned int code = (unsigned int)(BW_PERMUTATION_GRADIENT_CODES >> ((index & 15u) * 4u)) & 15u;
    float u = (code & 8u) ? y : x;
    float v = (code & 4u) ? z : y;
    u = (code & 1u) ? -u : u;
    v = (code & 2u) ? -v : v;
    return u + v;
}

__device__ __forceinline__ int bw_from_below(int cell, float* frac) {
    if (*frac == 0.0f) {
        *frac = 1.0f;
        return (int)((unsigned int)cell - 1u);
    }
    return cell;
}

// Twin: permutation::noise3_at.
__device__ __forceinline__ float bw_permuted3(double x, double y, float z) {
    float fx0, fy0, fz0;
    int x0 = bw_from_below(bw_split(x, &fx0), &fx0);
    int y0 = bw_from_below(bw_split(y, &fy0), &fy0);
    int z0 = bw_from_below(bw_lattice(z, &fz0), &fz0);
    float fx1 = fx0 - 1.0f, fy1 = fy0 - 1.0f, fz1 = fz0 - 1.0f;
    unsigned int ix0 = (unsigned int)x0 & 255u, iy0 = (unsigned int)y0 & 255u, iz0 = (unsigned int)z0 & 255u;
    unsigned int ix1 = ((unsigned int)x0 + 1u) & 255u, iy1 = ((unsigned int)y0 + 1u) & 255u;
    unsigned int iz1 = ((unsigned int)z0 + 1u) & 255u;
    float r = bw_fade(fz0), t = bw_fade(fy0), s = bw_fade(fx0);
    float n[2];
    for (int side = 0; side < 2; ++side) {
        unsigned int ix = side ? ix1 : ix0;
        float fx = side ? fx1 : fx0;
        float nx0 = bw_lerp(r, bw_permutation_gradient(bw_permutation_corner(ix, iy0, iz0), fx, fy0, fz0),
                            bw_permutation_gradient(bw_permutation_corner(ix, iy0, iz1), fx, fy0, fz1));
        float nx1 = bw_lerp(r, bw_permutation_gradient(bw_permutation_corner(ix, iy1, iz0), fx, fy1, fz0),
                            bw_permutation_gradient(bw_permutation_corner(ix, iy1, iz1), fx, fy1, fz1));
        n[side] = bw_lerp(t, nx0, nx1);
    }
    return BW_PERMUTATION_SCALE * bw_lerp(s, n[0], n[1]);
}

// A Basic or Octave node's noise: the seeded lattice, or the permutation one.
__device__ __forceinline__ float bw_node_noise3(bool permuted, unsigned int seed, double x, double y, float z) {
    return permuted ? bw_permuted3(x, y, z) : bw_perlin3(seed, x, y, z);
}
