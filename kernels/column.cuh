// The column sampler: fields → biome and pre-smoothing height h_b.
// Rust twin: src/worldgen/column.rs.
#pragma once
#include "noise_kinds.cuh"
#include "noise_objects.cuh"

#define BW_MAX_SURFACE 1048576.0f
#define BW_MAX_EXPONENT 3.0e38f

__device__ __forceinline__ unsigned int bw_threshold_index(float v, const float* thresholds, unsigned int limit) {
    for (unsigned int i = 0; i < limit; ++i) {
        if (v <= thresholds[i]) return i;
    }
    return limit;
}

// The original's get_biome(h, m, t, n, n + h), driven by the preset's rules.
__device__ __forceinline__ unsigned int bw_select_biome(const WorldParams* p, float h, float m, float t, float n,
                                                        float nh) {
    if (h <= p->biomes.ocean_max_height || n <= p->biomes.ocean_max_mountain) return p->biomes.ocean_biome;
    if (h <= p->biomes.beach_max_height) return p->biomes.beach_biome;
    if (n >= p->biomes.mountain_min && nh >= p->biomes.mountain_min_with_height) return p->biomes.mountain_biome;
    unsigned int limit = p->biomes.threshold_search_limit;
    unsigned int row = bw_threshold_index(m, p->biomes.moisture_thresholds, limit);
    unsigned int col = bw_threshold_index(t, p->biomes.heat_thresholds, limit);
    return p->biomes.table[row][col];
}

// The six fields through the polymorphic noise objects (the seed-004 design).
struct VirtualFields {
    NoiseObject* const* objects;
    __device__ float compute(const WorldParams* p, int field, float x, float z) const {
        return objects[p->terrain.field_roots[field]]->compute((double)x, (double)z);
    }
    __device__ float compute_node(const WorldParams*, unsigned int node, float x, float z) const {
        return objects[node]->compute((double)x, (double)z);
    }
};

// The same graph walked by a switch over node kinds with an explicit stack:
// no indirect calls and no recursion, so ptxas knows the stack size (the
// recursive form needed ~88 B per level, more than the default 1 KiB stack
// at the allowed depth of 12). The operations and their order are those of
// the recursive form, so results are bit-identical. Selected at run time
// beside the virtual path; both are held equal to the CPU path by the
// parity tests.
struct BwEvalFrame {
    unsigned int node;
    unsigned int stage;
    double x;
    double z;
    float held;  // Distort: the x offset while the z offset is evaluated
};

// x and z are whole blocks (exact in float); the walk carries them as doubles.
__device__ inline float bw_eval_node(const WorldParams* p, unsigned int root, float x, float z) {
    BwEvalFrame stack[BW_MAX_DEPTH];
    int top = 0;
    stack[0] = BwEvalFrame{root, 0u, (double)x, (double)z, 0.0f};
    float ret = 0.0f;
    while (top >= 0) {
        BwEvalFrame& f = stack[top];
        const FlatNode n = p->terrain.nodes[f.node];
        unsigned int source = (unsigned int)n.children[0];
        switch (n.kind) {
        case BW_NODE_BASIC:
            ret = bw_node_noise3((n.input & BW_INPUT_PERMUTATION) != 0u, n.seed, f.x, f.z, n.z_offset) *
                  p->terrain.perlin_gain;
            top -= 1;
            break;
        case BW_NODE_OCTAVE: {
            double xd = f.x * BW_OCTAVE_SCALE;
            double zd = f.z * BW_OCTAVE_SCALE;
            float u = 1.0f;
            float v = 0.0f;
            for (unsigned int k = 0; k < n.octaves; ++k) {
                float noise = bw_node_noise3((n.input & BW_INPUT_PERMUTATION) != 0u, n.seed, xd * (double)u,
                                             zd * (double)u, n.z_offset);
                v = v + (1.0f / u) * noise;
                u = u * 2.0f;
            }
            ret = v * p->terrain.perlin_gain;
            top -= 1;
            break;
        }
        case BW_NODE_FBM:
        case BW_NODE_HETERO:
        case BW_NODE_HYBRID:
        case BW_NODE_QUILEZ:
        case BW_NODE_RIDGED:
        case BW_NODE_ERODED:
            ret = bw_fractal(n, p->terrain.perlin_gain, f.x, f.z);
            top -= 1;
            break;
        case BW_NODE_COMBINED:
            // stage 0: evaluate offset_by at (x, z); 1: source at (x + shift, z); 2: done.
            if (f.stage == 0u) {
                f.stage = 1u;
                stack[top + 1] = BwEvalFrame{(unsigned int)n.children[1], 0u, f.x, f.z, 0.0f};
                top += 1;
            } else if (f.stage == 1u) {
                f.stage = 2u;
                stack[top + 1] = BwEvalFrame{source, 0u, f.x + (double)ret, f.z, 0.0f};
                top += 1;
            } else {
                top -= 1;
            }
            break;
        case BW_NODE_DISTORT:
            // stage 0: the x offset; 1: the z offset; 2: source at the moved point; 3: done.
            if (f.stage == 0u) {
                f.stage = 1u;
                stack[top + 1] = BwEvalFrame{(unsigned int)n.children[1], 0u, f.x, f.z, 0.0f};
                top += 1;
            } else if (f.stage == 1u) {
                f.stage = 2u;
                f.held = ret;
                stack[top + 1] = BwEvalFrame{(unsigned int)n.children[2], 0u, f.x, f.z, 0.0f};
                top += 1;
            } else if (f.stage == 2u) {
                f.stage = 3u;
                float s = n.slots[BW_SLOT_STRENGTH];
                stack[top + 1] = BwEvalFrame{source, 0u, f.x + (double)(s * f.held), f.z + (double)(s * ret), 0.0f};
                top += 1;
            } else {
                top -= 1;
            }
            break;
        default:
            // One-input kinds: the source (ExpScale at scaled coordinates), then the kind.
            if (f.stage == 0u) {
                f.stage = 1u;
                float scale = n.kind == BW_NODE_EXPSCALE ? n.slots[BW_SLOT_SCALE] : 1.0f;
                double sx = n.kind == BW_NODE_EXPSCALE ? f.x * (double)scale : f.x;
                double sz = n.kind == BW_NODE_EXPSCALE ? f.z * (double)scale : f.z;
                stack[top + 1] = BwEvalFrame{source, 0u, sx, sz, 0.0f};
                top += 1;
            } else {
                ret = bw_unary(n, ret);
                top -= 1;
            }
            break;
        }
    }
    return ret;
}

struct SwitchFields {
    __device__ float compute(const WorldParams* p, int field, float x, float z) const {
        return bw_eval_node(p, p->terrain.field_roots[field], x, z);
    }
    __device__ float compute_node(const WorldParams* p, unsigned int node, float x, float z) const {
        return bw_eval_node(p, node, x, z);
    }
};

// A column's height after the river carving, and whether it lies in the
// channel. Twin: RiverParams::carve in src/worldgen/params.rs.
__device__ __forceinline__ float bw_river(const RiverParams& r, float h, float course, bool* channel) {
    float a = fabsf(course);
    float lift = fminf(fmaxf((h - r.water) * r.inv_max_height, 0.0f), 1.0f);
    // In the channel from the bed up to the bank, then up the valley wall.
    float valley_floor;
    if (a < r.width) {
        float q = fminf(fmaxf(a * r.inv_width, 0.0f), 1.0f);
        valley_floor = r.bed + (r.bank - r.bed) * (q * q * (3.0f - 2.0f * q));
    } else {
        float t = fminf(fmaxf((a - r.width) * r.inv_span, 0.0f), 1.0f);
        valley_floor = r.bank + (h - r.bank) * (t * t * (3.0f - 2.0f * t));
    }
    float carved = h + (valley_floor - h) * (1.0f - lift);
    float out = fminf(h, carved);
    *channel = a < r.width && out < r.water && h >= r.water;
    return out;
}

template <typename Fields>
__device__ __forceinline__ void bw_sample_column(const WorldParams* p, const Fields& fields, float x, float z,
                                                 float* h_b, unsigned char* biome) {
    float f[BW_FIELD_COUNT];
    for (int i = 0; i < BW_FIELD_COUNT; ++i) f[i] = fields.compute(p, i, x, z);
    float h = f[BW_FIELD_HEIGHT];
    float m = f[BW_FIELD_MOISTURE] * 0.5f + 0.5f;
    float t = f[BW_FIELD_TEMPERATURE] * 0.5f + 0.5f;
    float r = f[BW_FIELD_ROUGHNESS];
    float peaks = fminf(fmaxf(f[BW_FIELD_PEAKS], -1.0f), 1.0f);  // see column.rs
    float n = f[BW_FIELD_MOUNTAIN];
    n = n + bw_signpow(peaks, fminf(fmaxf((1.0f - n) * p->terrain.peak_exponent_scale, 0.0f), BW_MAX_EXPONENT));
    t = fminf(fmaxf(t - p->terrain.temperature_mountain_cooling * n, 0.0f), 1.0f);
    float nh = n + h;
    unsigned int b = bw_select_biome(p, h, m, t, n, nh);
    h = bw_signpow(h, p->biomes.exponent[b]);
    float base = h * p->terrain.height_amplitude + n * p->terrain.mountain_amplitude;
    float out = base * p->biomes.scale[b] + p->biomes.roughness[b] * r * p->terrain.roughness_amplitude;
    out = fminf(fmaxf(out, -BW_MAX_SURFACE), BW_MAX_SURFACE);
    if (p->terrain.rivers.on != 0u) {
        bool channel;
        out = bw_river(p->terrain.rivers, out, fields.compute_node(p, p->terrain.rivers.course, x, z), &channel);
        if (channel) b = p->terrain.rivers.biome;
    }
    *h_b = out;
    *biome = (unsigned char)b;
}
