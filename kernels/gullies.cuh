// One octave of the erosion filter: gullies that run down the slope. Unit
// cells with one jittered feature point each; a point's stripes have phase
// (q - point)·d with d across the slope, blended with weights that vanish
// within BW_GULLY_REACH of the point, so only the 3×3 cells around q count
// and nothing steps at a cell border. The stripe profile is a polynomial,
// 2(1 - 4r²)² - 1, so no engine needs a shared trigonometry.
// Rust twin: src/worldgen/noise/gullies.rs (same operations, same order).
#pragma once
#include "generated/twins.cuh"
#include "perlin.cuh"

#define BW_GULLY_JITTER 0.25f
#define BW_GULLY_INV_REACH_SQ 0.64f

// The stripe profile at `phase`: its value and slope.
__device__ __forceinline__ void bw_gully_profile(float phase, float* value, float* slope) {
    float t;
    bw_lattice(phase + 0.5f, &t);
    float r = t - 0.5f;
    float s = 1.0f - 4.0f * (r * r);
    *value = 2.0f * (s * s) - 1.0f;
    *slope = -32.0f * (r * s);
}

// The gullies at (x, z) on the integer plane `plane` for a direction (dx, dz)
// across the slope: the value in [-1, 1] and its slope along d.
__device__ __forceinline__ void bw_gullies(unsigned int seed, double x, double z, float plane, float dx, float dz,
                                           float* value, float* slope) {
    float fx, fz, fy;
    int cx = bw_split(x, &fx);
    int cz = bw_split(z, &fz);
    int cy = bw_lattice(plane, &fy);
    float sum = 0.0f, dsum = 0.0f, weight = 0.0f;
    for (int j = -1; j <= 1; ++j) {
        for (int i = -1; i <= 1; ++i) {
            int gx = (int)((unsigned int)cx + (unsigned int)i);
            int gz = (int)((unsigned int)cz + (unsigned int)j);
            float ox = (float)i + 0.5f + bw_value_corner(seed, gx, gz, cy) * BW_GULLY_JITTER;
            float oz = (float)j + 0.5f + bw_value_corner(seed ^ (unsigned int)BW_GULLY_JITTER_Z_SEED, gx, gz, cy) *
                                             BW_GULLY_JITTER;
            float px = fx - ox;
            float pz = fz - oz;
            float t = fmaxf(1.0f - (px * px + pz * pz) * BW_GULLY_INV_REACH_SQ, 0.0f);
            float w = t * t;
            float p, dp;
            bw_gully_profile(px * dx + pz * dz, &p, &dp);
            sum = sum + w * p;
            dsum = dsum + w * dp;
            weight = weight + w;
        }
    }
    *value = sum / weight;
    *slope = dsum / weight;
}
