// Seeded 3D Perlin noise, bit-identical to src/worldgen/noise/perlin.rs
// (SeededHash). Same operations in the same order; nvcc runs with
// --fmad=false and the host emulation with -ffp-contract=off, so no step
// is fused.
#pragma once
#include "generated/twins.cuh"

#define BW_PRIME_X 0x9E3779B1u
#define BW_PRIME_Y 0x85EBCA77u
#define BW_PRIME_Z 0xC2B2AE3Du
#define BW_HASH_MIX 0x27D4EB2Fu
#define BW_GRADIENT_CODES 0xFD10FEDC76543210ull
#define BW_SCALE_3D 1.15470052f
#define BW_LATTICE_MAX 2147483520.0f
#define BW_LATTICE_MIN -2147483648.0f

__device__ __forceinline__ float bw_fade(float t) {
    return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}

__device__ __forceinline__ float bw_lerp(float t, float a, float b) { return a + t * (b - a); }

__device__ __forceinline__ unsigned int bw_hash3(unsigned int seed, int x, int y, int z) {
    unsigned int h = seed ^ ((unsigned int)x * BW_PRIME_X) ^ ((unsigned int)y * BW_PRIME_Y) ^
                     ((unsigned int)z * BW_PRIME_Z);
    return (h * BW_HASH_MIX) >> 28;
}

__device__ __forceinline__ float bw_gradient3(unsigned int index, float x, float y, float z) {
    unsigned int code = (unsigned int)(BW_GRADIENT_CODES >> ((index & 15u) * 4u)) & 15u;
    float u = (code & 8u) ? y : x;
    float v = (code & 4u) ? z : y;
    u = (code & 1u) ? -u : u;
    v = (code & 2u) ? -v : v;
    return u + v;
}

__device__ __forceinline__ int bw_lattice(float v, float* frac) {
    float f = floorf(v);
    *frac = v - f;
    // Clamp before converting so out-of-range cells convert the same way on
    // every engine (Rust `as` saturates; C++ would be undefined).
    float c = fminf(fmaxf(f, BW_LATTICE_MIN), BW_LATTICE_MAX);
    return (int)c;
}

// A finite double-precision position's lattice cell (its floor wrapped to 32
// bits: below 2^51, adding 1.5·2^52 leaves its two's complement in the low
// word) and the fraction inside it rounded to f32. Twin: position::split in
// src/worldgen/noise/position.rs.
__device__ __forceinline__ int bw_split(double p, float* frac) {
    double f = floor(p);
    *frac = (float)(p - f);
    return (int)(unsigned int)(unsigned long long)__double_as_longlong(f + (double)BW_ROUND_MAGIC);
}

// Value noise: a corner's number in [-1, 1), the top 24 bits of its mixed
// hash (the conversion, the power-of-two scale and the subtraction are
// exact). Twin: value::corner in src/worldgen/noise/value.rs.
__device__ __forceinline__ float bw_value_corner(unsigned int seed, int x, int y, int z) {
    unsigned int h = seed ^ ((unsigned int)x * BW_PRIME_X) ^ ((unsigned int)y * BW_PRIME_Y) ^
                     ((unsigned int)z * BW_PRIME_Z);
    return (float)((h * BW_HASH_MIX) >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

// The lattice cell of a point and the gradient indices of its four corners
// on the near z plane, shared by bw_perlin3 and bw_perlin3_d.
struct BwCell {
    int x0, y0, z0, x1, y1;
    float tx, ty, tz, ux, uy;
    unsigned int i00, i10, i01, i11;
};

__device__ __forceinline__ BwCell bw_cell(unsigned int seed, double x, double y, float z) {
    BwCell c;
    c.x0 = bw_split(x, &c.tx);
    c.y0 = bw_split(y, &c.ty);
    c.z0 = bw_lattice(z, &c.tz);
    c.x1 = (int)((unsigned int)c.x0 + 1u);
    c.y1 = (int)((unsigned int)c.y0 + 1u);
    c.ux = c.tx - 1.0f;
    c.uy = c.ty - 1.0f;
    c.i00 = bw_hash3(seed, c.x0, c.y0, c.z0);
    c.i10 = bw_hash3(seed, c.x1, c.y0, c.z0);
    c.i01 = bw_hash3(seed, c.x0, c.y1, c.z0);
    c.i11 = bw_hash3(seed, c.x1, c.y1, c.z0);
    return c;
}

// At double-precision x and y (the noise graph's positions). Twin: perlin3_at.
__device__ __forceinline__ float bw_perlin3(unsigned int seed, double x, double y, float z) {
    BwCell c = bw_cell(seed, x, y, z);
    int x0 = c.x0, y0 = c.y0, x1 = c.x1, y1 = c.y1;
    int z1 = (int)((unsigned int)c.z0 + 1u);
    float tx = c.tx, ty = c.ty, tz = c.tz, ux = c.ux, uy = c.uy, uz = tz - 1.0f;
    float g000 = bw_gradient3(c.i00, tx, ty, tz);
    float g100 = bw_gradient3(c.i10, ux, ty, tz);
    float g010 = bw_gradient3(c.i01, tx, uy, tz);
    float g110 = bw_gradient3(c.i11, ux, uy, tz);
    float fx = bw_fade(tx), fy = bw_fade(ty);
    float a = bw_lerp(fy, bw_lerp(fx, g000, g100), bw_lerp(fx, g010, g110));
    // On an integer z the z interpolation returns `a`: skip the far corners
    // (part of the definition shared with the Rust engines).
    if (tz == 0.0f) return fminf(fmaxf(a * BW_SCALE_3D, -1.0f), 1.0f);
    float g001 = bw_gradient3(bw_hash3(seed, x0, y0, z1), tx, ty, uz);
    float g101 = bw_gradient3(bw_hash3(seed, x1, y0, z1), ux, ty, uz);
    float g011 = bw_gradient3(bw_hash3(seed, x0, y1, z1), tx, uy, uz);
    float g111 = bw_gradient3(bw_hash3(seed, x1, y1, z1), ux, uy, uz);
    float fz = bw_fade(tz);
    float b = bw_lerp(fy, bw_lerp(fx, g001, g101), bw_lerp(fx, g011, g111));
    float r = bw_lerp(fz, a, b) * BW_SCALE_3D;
    return fminf(fmaxf(r, -1.0f), 1.0f);
}

__device__ __forceinline__ float bw_fade_d(float t) { return t * t * (t * (t * 30.0f - 60.0f) + 30.0f); }

// bw_perlin3 on an integer z with its derivatives along x and y (value,
// d/dx, d/dy); the value is bw_perlin3's, the derivatives those of the value
// before the clamp. Twin: perlin3_d in src/worldgen/noise/perlin.rs.
__device__ __forceinline__ void bw_perlin3_d(unsigned int seed, double x, double y, float z, float* value, float* dx,
                                             float* dy) {
    BwCell c = bw_cell(seed, x, y, z);
    float tx = c.tx, ty = c.ty, ux = c.ux, uy = c.uy;
    unsigned int i00 = c.i00, i10 = c.i10, i01 = c.i01, i11 = c.i11;
    float g00 = bw_gradient3(i00, tx, ty, 0.0f), g10 = bw_gradient3(i10, ux, ty, 0.0f);
    float g01 = bw_gradient3(i01, tx, uy, 0.0f), g11 = bw_gradient3(i11, ux, uy, 0.0f);
    float fx = bw_fade(tx), fy = bw_fade(ty);
    float dfx = bw_fade_d(tx), dfy = bw_fade_d(ty);
    float a = bw_lerp(fx, g00, g10), b = bw_lerp(fx, g01, g11);
    float gx00 = bw_gradient3(i00, 1.0f, 0.0f, 0.0f), gx10 = bw_gradient3(i10, 1.0f, 0.0f, 0.0f);
    float gx01 = bw_gradient3(i01, 1.0f, 0.0f, 0.0f), gx11 = bw_gradient3(i11, 1.0f, 0.0f, 0.0f);
    float gy00 = bw_gradient3(i00, 0.0f, 1.0f, 0.0f), gy10 = bw_gradient3(i10, 0.0f, 1.0f, 0.0f);
    float gy01 = bw_gradient3(i01, 0.0f, 1.0f, 0.0f), gy11 = bw_gradient3(i11, 0.0f, 1.0f, 0.0f);
    float ax = (gx00 + fx * (gx10 - gx00)) + dfx * (g10 - g00);
    float bx = (gx01 + fx * (gx11 - gx01)) + dfx * (g11 - g01);
    float ay = gy00 + fx * (gy10 - gy00);
    float by = gy01 + fx * (gy11 - gy01);
    *value = fminf(fmaxf(bw_lerp(fy, a, b) * BW_SCALE_3D, -1.0f), 1.0f);
    *dx = (ax + fy * (bx - ax)) * BW_SCALE_3D;
    *dy = ((ay + fy * (by - ay)) + dfy * (b - a)) * BW_SCALE_3D;
}

// Value noise on an integer z with its derivatives along x and y.
// Twin: value::value3_d in src/worldgen/noise/value.rs.
__device__ __forceinline__ void bw_value3_d(unsigned int seed, double x, double y, float z, float* value, float* dx,
                                            float* dy) {
    float tx, ty, tz;
    int x0 = bw_split(x, &tx);
    int y0 = bw_split(y, &ty);
    int z0 = bw_lattice(z, &tz);
    (void)tz;  // z is a whole number: one plane of corners
    int x1 = (int)((unsigned int)x0 + 1u);
    int y1 = (int)((unsigned int)y0 + 1u);
    float v00 = bw_value_corner(seed, x0, y0, z0), v10 = bw_value_corner(seed, x1, y0, z0);
    float v01 = bw_value_corner(seed, x0, y1, z0), v11 = bw_value_corner(seed, x1, y1, z0);
    float fx = bw_fade(tx), fy = bw_fade(ty);
    float a = bw_lerp(fx, v00, v10), b = bw_lerp(fx, v01, v11);
    *value = bw_lerp(fy, a, b);
    *dx = bw_fade_d(tx) * bw_lerp(fy, v10 - v00, v11 - v01);
    *dy = bw_fade_d(ty) * (b - a);
}
