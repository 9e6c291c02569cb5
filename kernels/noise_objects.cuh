// The polymorphic noise objects of the Bologna thesis: one C++ object per node of the
// world's noise graph, each with a virtual `compute`. They are built once per
// world on the device by `bw_build_noise_objects` (heightmap.cu) from the
// flat node array the host uploads, and held through an array of pointers
// (an array of base objects would slice them). Rust twin:
// src/worldgen/graph.rs. Positions are doubles (see bw_split in
// perlin.cuh), values floats. One class per shape of node (Perlin leaves, the
// fractal sums, Combined, Distort, the one-input kinds); the arithmetic of
// the newer kinds lives in noise_kinds.cuh, shared with the switch path.
#pragma once
#include "fastmath.cuh"
#include "noise_kinds.cuh"
#include "perlin.cuh"
#include "permutation.cuh"
#include "worldgen_params.cuh"

#define BW_OCTAVE_DIVISOR 1.01f
// x/1.01 is taken as x times this (Rust: graph::OCTAVE_SCALE, the same
// correctly rounded quotient).
#define BW_OCTAVE_SCALE (1.0 / (double)BW_OCTAVE_DIVISOR)

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
    __device__ virtual float compute(double x, double z) const = 0;
};

// gain · perlin3(x, z, 32·offset)
class BasicNoise final : public NoiseObject {
public:
    __device__ BasicNoise(bool permuted, unsigned int seed, float z_offset, float gain)
        : permuted_(permuted), seed_(seed), z_offset_(z_offset), gain_(gain) {}
    __device__ float compute(double x, double z) const override {
        BW_RECURSION_PROBE(); return bw_node_noise3(permuted_, seed_, x, z, z_offset_) * gain_; }

private:
    bool permuted_;
    unsigned int seed_;
    float z_offset_;
    float gain_;
};

// gain · Σ 2^-i · perlin3((x/1.01)·2^i, (z/1.01)·2^i, 32·offset)
class OctaveNoise final : public NoiseObject {
public:
    __device__ OctaveNoise(bool permuted, unsigned int seed, float z_offset, unsigned int octaves, float gain)
        : permuted_(permuted), seed_(seed), z_offset_(z_offset), octaves_(octaves), gain_(gain) {}
    __device__ float compute(double x, double z) const override {
        BW_RECURSION_PROBE();
        double xd = x * BW_OCTAVE_SCALE;
        double zd = z * BW_OCTAVE_SCALE;
        float u = 1.0f;
        float v = 0.0f;
        for (unsigned int i = 0; i < octaves_; ++i) {
            float n = bw_node_noise3(permuted_, seed_, xd * (double)u, zd * (double)u, z_offset_);
            v = v + (1.0f / u) * n;
            u = u * 2.0f;
        }
        return v * gain_;
    }

private:
    bool permuted_;
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
    __device__ float compute(double x, double z) const override {
        BW_RECURSION_PROBE();
        float shift = offset_by_->compute(x, z);
        return source_->compute(x + (double)shift, z);
    }

private:
    const NoiseObject* source_;
    const NoiseObject* offset_by_;
};

// The one-input kinds: v = source(x·scale, z·scale) for ExpScale, else
// source(x, z); then the kind applied to v (bw_unary).
class UnaryNoise final : public NoiseObject {
public:
    __device__ UnaryNoise(const NoiseObject* source, const FlatNode& n)
        : source_(source), node_(n), scale_(n.kind == BW_NODE_EXPSCALE ? n.slots[BW_SLOT_SCALE] : 1.0f) {}
    __device__ float compute(double x, double z) const override {
        BW_RECURSION_PROBE();
        float v = node_.kind == BW_NODE_EXPSCALE ? source_->compute(x * (double)scale_, z * (double)scale_)
                                                 : source_->compute(x, z);
        return bw_unary(node_, v);
    }

private:
    const NoiseObject* source_;
    FlatNode node_;
    float scale_;
};

// The Caracas thesis's fractal sums (bw_fractal).
class FractalNoise final : public NoiseObject {
public:
    __device__ FractalNoise(const FlatNode& n, float gain) : node_(n), gain_(gain) {}
    __device__ float compute(double x, double z) const override {
        BW_RECURSION_PROBE();
        return bw_fractal(node_, gain_, x, z);
    }

private:
    FlatNode node_;
    float gain_;
};

// source(x + strength·by_x(x, z), z + strength·by_z(x, z))
class DistortNoise final : public NoiseObject {
public:
    __device__ DistortNoise(const NoiseObject* source, const NoiseObject* by_x, const NoiseObject* by_z, float strength)
        : source_(source), by_x_(by_x), by_z_(by_z), strength_(strength) {}
    __device__ float compute(double x, double z) const override {
        BW_RECURSION_PROBE();
        float a = by_x_->compute(x, z);
        float b = by_z_->compute(x, z);
        return source_->compute(x + (double)(strength_ * a), z + (double)(strength_ * b));
    }

private:
    const NoiseObject* source_;
    const NoiseObject* by_x_;
    const NoiseObject* by_z_;
    float strength_;
};

// Builds the object of flat node `i`; children come earlier in the array
// (the preset loader guarantees it), so they already exist.
__device__ inline NoiseObject* bw_make_noise_object(const WorldParams* p, const FlatNode& n,
                                                    NoiseObject* const* built) {
    switch (n.kind) {
    case BW_NODE_BASIC:
        return new BasicNoise((n.input & BW_INPUT_PERMUTATION) != 0u, n.seed, n.z_offset, p->terrain.perlin_gain);
    case BW_NODE_OCTAVE:
        return new OctaveNoise((n.input & BW_INPUT_PERMUTATION) != 0u, n.seed, n.z_offset, n.octaves,
                               p->terrain.perlin_gain);
    case BW_NODE_FBM:
    case BW_NODE_HETERO:
    case BW_NODE_HYBRID:
    case BW_NODE_QUILEZ:
    case BW_NODE_RIDGED:
    case BW_NODE_ERODED:
        return new FractalNoise(n, p->terrain.perlin_gain);
    case BW_NODE_COMBINED:
        return new CombinedNoise(built[n.children[0]], built[n.children[1]]);
    case BW_NODE_DISTORT:
        return new DistortNoise(built[n.children[0]], built[n.children[1]], built[n.children[2]],
                                n.slots[BW_SLOT_STRENGTH]);
    default:
        return new UnaryNoise(built[n.children[0]], n);
    }
}
