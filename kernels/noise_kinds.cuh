// The evaluators of the noise vocabulary's newer kinds: the Caracas thesis's fractal
// sums (fBm, heterogeneous and hybrid multifractal, each with its T_in, and
// derivative-damped fBm), Musgrave's ridged multifractal and
// the one-input kinds (ExpScale's power, Normalize, Linear, the bias and
// gain curves). Both heightmap paths, the virtual objects and the switch,
// call these, so each kind has one CUDA evaluator.
// Rust twin: src/worldgen/noise_kinds.rs (same operations, same order).
#pragma once
#include "fastmath.cuh"
#include "gullies.cuh"
#include "perlin.cuh"
#include "worldgen_params.cuh"

// An octave's basis with its derivatives: value noise, or Perlin times the gain.
__device__ __forceinline__ void bw_basis_d(bool value_basis, unsigned int seed, double px, double pz, float z,
                                           float gain, float* s, float* sx, float* sz) {
    if (value_basis) {
        bw_value3_d(seed, px, pz, z, s, sx, sz);
    } else {
        bw_perlin3_d(seed, px, pz, z, s, sx, sz);
        *s = *s * gain;
        *sx = *sx * gain;
        *sz = *sz * gain;
    }
}

// fBm with its analytic slope, carved by the erosion filter's gully octaves
// (NodeKind::Eroded; Rust twin: noise_kinds::eroded). Positions are in
// double precision (bw_split); a double times a float parameter is the
// Rust side's product with the parameter widened.
__device__ __forceinline__ float bw_eroded(const FlatNode& n, float gain, double x, double z) {
    float f = n.slots[BW_SLOT_FREQUENCY];
    float lacunarity = n.slots[BW_SLOT_LACUNARITY];
    double x0 = x * (double)f;
    double z0 = z * (double)f;
    double px = x0;
    double pz = z0;
    bool value_basis = (n.input & (unsigned int)BW_INPUT_VALUE_BASIS) != 0u;
    // The slope in the first octave's coordinates: octave j's times λ^j.
    float amp = 1.0f;
    float chain = 1.0f;
    float v = 0.0f;
    float gx = 0.0f;
    float gz = 0.0f;
    for (unsigned int j = 0; j < n.octaves; ++j) {
        unsigned int seed = n.seed + j * (unsigned int)BW_OCTAVE_SEED_STEP;
        float s, sx, sz;
        bw_basis_d(value_basis, seed, px, pz, n.z_offset, gain, &s, &sx, &sz);
        float ac = amp * chain;
        v = v + amp * s;
        gx = gx + ac * sx;
        gz = gz + ac * sz;
        px = px * (double)lacunarity;
        pz = pz * (double)lacunarity;
        amp = amp * n.slots[BW_SLOT_WEIGHT];
        chain = chain * lacunarity;
    }
    float gf = n.slots[BW_SLOT_GULLY_FREQUENCY];
    double qx = x0 * (double)gf;
    double qz = z0 * (double)gf;
    float depth = n.slots[BW_SLOT_GULLY_STRENGTH] * 0.5f;
    float scale = gf;
    unsigned int gully_seed = n.seed ^ (unsigned int)BW_GULLY_SEED;
    unsigned int gully_octaves = (unsigned int)n.slots[BW_SLOT_GULLY_OCTAVES];
    for (unsigned int i = 0; i < gully_octaves; ++i) {
        // Across the slope: d = (gz, -gx)·|g|/(1 + |g|²), below one stripe a
        // cell where steep and nearly none where flat.
        float m = gx * gx + gz * gz;
        float k = sqrtf(m) / (1.0f + m);
        float dx = gz * k;
        float dz = (0.0f - gx) * k;
        float e, de;
        bw_gullies(gully_seed + i * (unsigned int)BW_OCTAVE_SEED_STEP, qx, qz, n.z_offset, dx, dz, &e, &de);
        // (e - 1)/2 in [-1, 0]: gullies carve, crests keep the height.
        v = v + depth * (e - 1.0f);
        float ks = depth * scale * de;
        gx = gx + ks * dx;
        gz = gz + ks * dz;
        qx = qx * 2.0;
        qz = qz * 2.0;
        depth = depth * 0.5f;
        scale = scale * 2.0f;
    }
    return v;
}

// Σ over octaves of w^j·T_in(N(frequency·λ^j·p)), summed the kind's way.
// `gain` is the world's Perlin gain (TerrainParams::perlin_gain).
__device__ __forceinline__ float bw_fractal(const FlatNode& n, float gain, double x, double z) {
    if (n.kind == BW_NODE_ERODED) {
        return bw_eroded(n, gain, x, z);
    }
    float f = n.slots[BW_SLOT_FREQUENCY];
    float lacunarity = n.slots[BW_SLOT_LACUNARITY];
    float weight = n.slots[BW_SLOT_WEIGHT];
    float shift = n.slots[BW_SLOT_SHIFT];
    float crest = n.slots[BW_SLOT_CREST];
    float ridge_gain = n.slots[BW_SLOT_RIDGE_GAIN];
    double px = x * (double)f;
    double pz = z * (double)f;
    float amp = 1.0f;
    float v = 0.0f;
    float k = 0.0f;
    float dx = 0.0f;
    float dz = 0.0f;
    bool value_basis = (n.input & (unsigned int)BW_INPUT_VALUE_BASIS) != 0u;
    unsigned int t_in = n.input & ~(unsigned int)BW_INPUT_VALUE_BASIS;
    for (unsigned int j = 0; j < n.octaves; ++j) {
        unsigned int seed = n.seed + j * (unsigned int)BW_OCTAVE_SEED_STEP;
        if (n.kind == BW_NODE_QUILEZ) {
            // Derivative-damped: the slope summed so far damps each octave.
            float s, sx, sz;
            bw_basis_d(value_basis, seed, px, pz, n.z_offset, gain, &s, &sx, &sz);
            dx = dx + sx;
            dz = dz + sz;
            v = v + (amp * s) / (1.0f + (dx * dx + dz * dz));
            px = px * (double)lacunarity;
            pz = pz * (double)lacunarity;
            amp = amp * weight;
            continue;
        }
        float s;
        if (value_basis) {
            float sx, sz;
            bw_value3_d(seed, px, pz, n.z_offset, &s, &sx, &sz);
        } else {
            s = bw_perlin3(seed, px, pz, n.z_offset) * gain;
        }
        if (n.kind == BW_NODE_RIDGED) {
            // k holds the octave before; its crests let this one through.
            float c = crest - fabsf(s);
            c = c * c;
            if (j == 0) {
                v = c;
                k = c;
            } else {
                c = c * fminf(fmaxf(k * ridge_gain, 0.0f), 1.0f);
                v = v + amp * c;
                k = c;
            }
            px = px * (double)lacunarity;
            pz = pz * (double)lacunarity;
            amp = amp * weight;
            continue;
        }
        if (t_in == BW_INPUT_RIDGED) {
            s = 1.0f - fabsf(s);
        } else if (t_in == BW_INPUT_BILLOW) {
            s = fabsf(s);
        }
        if (n.kind == BW_NODE_HETERO) {
            v = j == 0 ? s + shift : v + v * (amp * (s + shift));
        } else if (n.kind == BW_NODE_HYBRID) {
            if (j == 0) {
                v = s + shift;
                k = v;
            } else {
                k = fminf(k, 1.0f);
                float a = amp * (s + shift);
                v = v + k * a;
                k = k * a;
            }
        } else {
            v = v + amp * s;
        }
        px = px * (double)lacunarity;
        pz = pz * (double)lacunarity;
        amp = amp * weight;
    }
    return v;
}

// A one-input kind applied to its source's value.
__device__ __forceinline__ float bw_unary(const FlatNode& n, float v) {
    switch (n.kind) {
    case BW_NODE_EXPSCALE:
    case BW_NODE_BIAS:
        return bw_signpow(v, n.slots[BW_SLOT_EXPONENT]);
    case BW_NODE_NORMALIZE:
        return fminf(fmaxf((v - n.slots[BW_SLOT_LOW]) * n.slots[BW_SLOT_INV_SPAN], 0.0f), 1.0f);
    case BW_NODE_LINEAR:
        return v * n.slots[BW_SLOT_MUL] + n.slots[BW_SLOT_ADD];
    case BW_NODE_GAIN: {
        float low = bw_signpow(v * 2.0f, n.slots[BW_SLOT_EXPONENT]) * 0.5f;
        float high = 1.0f - bw_signpow(2.0f - v * 2.0f, n.slots[BW_SLOT_EXPONENT_HIGH]) * 0.5f;
        return v < 0.5f ? low : high;
    }
    default:
        return v;
    }
}
