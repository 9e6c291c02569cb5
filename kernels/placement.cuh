// The Chile thesis's deterministic placement: candidate points of a tileable
// pattern per cell, accepted by an ordered-dithering threshold shifted per
// cell by a hash of the world seed. Rust twin: src/worldgen/placement.rs.
#pragma once
#include "worldgen_params.cuh"

__device__ __forceinline__ unsigned long long bw_splitmix64(unsigned long long z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ __forceinline__ unsigned long long bw_deco_seed(const WorldParams* p) {
    return (unsigned long long)p->deco.seed[0] | ((unsigned long long)p->deco.seed[1] << 32);
}

// Floor division. A 64-bit division is a long subroutine on the GPU; where
// both operands fit 32 bits (almost always: block coordinates near the
// origin, small divisors) the 32-bit division gives the same quotient.
__device__ __forceinline__ long long bw_div_floor(long long a, long long b) {
    if (a >= -2147483647ll && a <= 2147483647ll && b > 0 && b <= 2147483647ll) {
        const int q = (int)a / (int)b;
        return (q * (int)b != (int)a && a < 0) ? (long long)q - 1 : (long long)q;
    }
    long long q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// a / b rounded toward zero, as C and Rust divide (b not 0); the 32-bit
// division where a fits it, for the reason above.
__device__ __forceinline__ long long bw_div_trunc(long long a, long long b) {
    if (a >= -2147483647ll && a <= 2147483647ll && b >= -2147483647ll && b <= 2147483647ll) return (long long)((int)a / (int)b);
    return a / b;
}

struct BwCandidate {
    long long x;
    long long z;
    unsigned int threshold;
    unsigned long long variant;
};

// The candidate of global unit square (gx, gz) at spacing `unit` blocks on
// the grid of `seed`.
__device__ __forceinline__ BwCandidate bw_candidate_seeded(const WorldParams* p, unsigned long long seed, long long unit,
                                                           long long gx, long long gz) {
    const long long cells = BW_CELL_UNITS;
    const long long cx = bw_div_floor(gx, cells);
    const long long cz = bw_div_floor(gz, cells);
    const unsigned int i = (unsigned int)((gx - cx * cells) + cells * (gz - cz * cells));
    const unsigned long long key = ((unsigned long long)(unsigned int)cx << 32) | (unsigned int)cz;
    const unsigned long long hash = bw_splitmix64(seed ^ bw_splitmix64(key));
    const unsigned int ox = (unsigned int)(hash & 7), oz = (unsigned int)((hash >> 3) & 7);
    const unsigned int sub = (unsigned int)((hash >> 6) & 63);
    const unsigned int ux = (i + ox) % 8, uz = (i / 8 + oz) % 8;
    const long long cell = unit * cells;
    BwCandidate c;
    c.x = cx * cell + (long long)p->deco.pattern[i][0] * unit / BW_PATTERN_SUB;
    c.z = cz * cell + (long long)p->deco.pattern[i][1] * unit / BW_PATTERN_SUB;
    c.threshold = (unsigned int)p->deco.bayer[ux + 8 * uz] * (BW_DENSITY_ONE / BW_PATTERN_POINTS) + sub;
    c.variant = bw_splitmix64(hash + (unsigned long long)i + 1ull);
    return c;
}

// A candidate of the trees' and plants' grid.
__device__ __forceinline__ BwCandidate bw_candidate(const WorldParams* p, long long unit, long long gx, long long gz) {
    return bw_candidate_seeded(p, bw_deco_seed(p), unit, gx, gz);
}

// A layer density scaled by a density map's factor, truncated (exact for a
// factor of 1). Twin: scaled_density in src/worldgen/params.rs.
__device__ __forceinline__ unsigned int bw_scaled_density(unsigned int density, float factor) {
    return (unsigned int)((float)density * factor);
}

// The first layer whose accumulated density, each scaled by `factor` (1:
// the listed densities, exactly), exceeds the threshold, or -1.
__device__ __forceinline__ int bw_layer_of(unsigned int threshold, const FlatLayer* layers, unsigned int count,
                                           float factor) {
    unsigned int sum = 0;
    for (unsigned int i = 0; i < count && i < BW_MAX_BIOME_LAYERS; ++i) {
        sum += bw_scaled_density(layers[i].density, factor);
        if (sum > threshold) return (int)i;
    }
    return -1;
}
