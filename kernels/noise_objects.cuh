// The polymorphic noise objects of seed 004: one C++ object per node of the
// world's noise graph, each with a virtual `compute`. They are built once per
// world on the device by `bw_build_noise_objects` (heightmap.cu) from the
// flat node array the host uploads, and held through an array of pointers
// (an array of base objects would slice them). Rust twin:
// src/worldgen/graph.rs (one node kind there per class here).
#pragma once
#include "fastmath.cuh"
#include "perlin.cuh"
#include "worldgen_params.cuh"

#define BW_OCTAVE_DIVISOR 1.01f

// The virtual calls nest as deep as the graph (up to BW_MAX_DEPTH), so
// ptxas cannot size the stack of these kernels; the host sets the stack
// limit from the frames ptxas reports (src/backend/cuda.rs). Under the
// emulation, the probe measures the nesting so the driver stand-in can check
// that limit against what a launch really needed.
#ifndef BW_RECURSION_PROBE
#define BW_RECURSION_PROBE()
#endif

class NoiseObject {
public:
    __device__ virtual ~NoiseObject() {}
    __device__ virtual float compute(float x, float z) const = 0;
};

// gain · perlin3(x, z, 32·offset)
class BasicNoise final : public NoiseObject {
public:
    __device__ BasicNoise(unsigned int seed, float z_offset, float gain) : seed_(seed), z_offset_(z_offset), gain_(gain) {}
    __device__ float compute(float x, float z) const override {
        BW_RECURSION_PROBE(); return bw_perlin3(seed_, x, z, z_offset_) * gain_; }

private:
    unsigned int seed_;
    float z_offset_;
    float gain_;
};

// gain · Σ 2^-i · perlin3((x/1.01)·2^i, (z/1.01)·2^i, 32·offset)
class OctaveNoise final : public NoiseObject {
public:
    __device__ OctaveNoise(unsigned int seed, float z_offset, unsigned int octaves, float gain)
        : seed_(seed), z_offset_(z_offset), octaves_(octaves), gain_(gain) {}
    __device__ float compute(float x, float z) const override {
        BW_RECURSION_PROBE();
        float xd = x / BW_OCTAVE_DIVISOR;
        float zd = z / BW_OCTAVE_DIVISOR;
        float u = 1.0f;
        float v = 0.0f;
        for (unsigned int i = 0; i < octaves_; ++i) {
            float n = bw_perlin3(seed_, xd * u, zd * u, z_offset_);
            v = v + (1.0f / u) * n;
            u = u * 2.0f;
        }
        return v * gain_;
    }

private:
    unsigned int seed_;
    float z_offset_;
    unsigned int octaves_;
    float gain_;
};

// source(x + offset_by(x, z), z)
class CombinedNoise final : public NoiseObject {
public:
    __device__ CombinedNoise(const NoiseObject* source, const NoiseObject* offset_by)
        : source_(source), offset_by_(offset_by) {}
    __device__ float compute(float x, float z) const override {
        BW_RECURSION_PROBE();
        float shift = offset_by_->compute(x, z);
        return source_->compute(x + shift, z);
    }

private:
    const NoiseObject* source_;
    const NoiseObject* offset_by_;
};

// sign(v)·|v|^exponent with v = source(x·scale, z·scale)
class ExpScaleNoise final : public NoiseObject {
public:
    __device__ ExpScaleNoise(const NoiseObject* source, float exponent, float scale)
        : source_(source), exponent_(exponent), scale_(scale) {}
    __device__ float compute(float x, float z) const override {
        BW_RECURSION_PROBE();
        float v = source_->compute(x * scale_, z * scale_);
        return bw_signpow(v, exponent_);
    }

private:
    const NoiseObject* source_;
    float exponent_;
    float scale_;
};

// Builds the object of flat node `i`; children come earlier in the array
// (the preset loader guarantees it), so they already exist.
__device__ inline NoiseObject* bw_make_noise_object(const WorldParams* p, const FlatNode& n,
                                                    NoiseObject* const* built) {
    switch (n.kind) {
    case BW_NODE_BASIC:
        return new BasicNoise(n.seed, n.z_offset, p->perlin_gain);
    case BW_NODE_OCTAVE:
        return new OctaveNoise(n.seed, n.z_offset, n.octaves, p->perlin_gain);
    case BW_NODE_COMBINED:
        return new CombinedNoise(built[n.source], built[n.offset_by]);
    case BW_NODE_EXPSCALE:
        return new ExpScaleNoise(built[n.source], n.exponent, n.scale);
    default:
        return nullptr;
    }
}
