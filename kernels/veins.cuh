// Ore veins and patches of other rock: candidate points in cubes of
// `veins.spacing` blocks, accepted by a 4×4×4 ordered dithering shifted per
// cell, each a string of blobs. Rust twin: src/worldgen/veins.rs, which
// states the rule; every step here is the same integer arithmetic.
//
// bw_fill gathers, once per thread block, the veins that can reach its slab
// of blocks: each thread below the slab's candidate count tests one
// candidate cube, and a block prefix sum packs the kept veins into shared
// memory (bw_gather_veins). Then each thread asks of its own block which
// listed vein of the first-listed kind covers it (bw_vein_block).
#pragma once
#include "block_scan.cuh"
#include "placement.cuh"

// One gathered vein, its centre relative to the chunk's corner block.
struct BwVein {
    int x, y, z;
    int sx, sy, sz;  // from one blob centre to the next
    int radius;
    int lo[3], hi[3];  // the box holding every block the vein can cover
    unsigned int kind;
    unsigned int blobs;
    unsigned int salt;
};

__device__ __forceinline__ unsigned int bw_vein_density(const FlatVein& k, long long y) {
    const long long lo = k.lowest, hi = k.highest;
    if (y < lo || y > hi) return 0u;
    if (hi == lo) return k.density_top;
    const long long top = k.density_top, bottom = k.density_bottom;
    return (unsigned int)(top + bw_div_trunc((bottom - top) * (hi - y), hi - lo));
}

__device__ __forceinline__ long long bw_vein_radius(const FlatVein& k, long long y) {
    const long long lo = k.lowest, hi = k.highest;
    if (hi == lo) return k.radius_top;
    const long long span = hi - lo;
    return bw_div_trunc((long long)k.radius_top * (y - lo) + (long long)k.radius_bottom * (hi - y) + span / 2, span);
}

__device__ __forceinline__ unsigned int bw_vein_block_hash(long long x, long long y, long long z, unsigned int salt) {
    unsigned int h =
        ((unsigned int)x * 0x8DA6B343u) ^ ((unsigned int)y * 0xD8163841u) ^ ((unsigned int)z * 0xCB1AB31Fu) ^ salt;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    return h ^ (h >> 12);
}

// The vein of candidate cube (gx, gy, gz), with its centre in world blocks
// in (*ox, *oy, *oz); false where the candidate is not accepted.
__device__ __forceinline__ bool bw_vein_candidate(const WorldParams* p, long long gx, long long gy, long long gz,
                                                  BwVein* v, long long* ox, long long* oy, long long* oz) {
    const long long unit = p->veins.spacing, cells = BW_VEIN_CELL_CUBES;
    const long long cx = bw_div_floor(gx, cells), cy = bw_div_floor(gy, cells), cz = bw_div_floor(gz, cells);
    const long long lx = gx - cx * cells, ly = gy - cy * cells, lz = gz - cz * cells;
    const unsigned long long index = (unsigned long long)(lx + cells * ly + cells * cells * lz);
    const unsigned long long seed = (unsigned long long)p->veins.seed[0] | ((unsigned long long)p->veins.seed[1] << 32);
    const unsigned long long xz = bw_splitmix64(((unsigned long long)(unsigned int)cx << 32) | (unsigned int)cz);
    const unsigned long long hash = bw_splitmix64(seed ^ bw_splitmix64(xz ^ (unsigned long long)(unsigned int)cy));
    const unsigned int ux = (unsigned int)(((unsigned long long)lx + hash) & 3ull);
    const unsigned int uy = (unsigned int)(((unsigned long long)ly + (hash >> 2)) & 3ull);
    const unsigned int uz = (unsigned int)(((unsigned long long)lz + (hash >> 4)) & 3ull);
    const unsigned int level = p->veins.bayer[ux + 4u * uy + 16u * uz];
    const unsigned int limit = level * (BW_DENSITY_ONE / BW_PATTERN_POINTS) + (unsigned int)((hash >> 6) & 63ull);
    const unsigned long long variant = bw_splitmix64(hash + index + 1ull);
    // Offsets below 2^16 and a spacing of 8..=32: 32-bit remainders are exact.
    const unsigned int u = (unsigned int)unit;
    *ox = gx * unit + (long long)((unsigned int)(variant & 0xFFFFull) % u);
    *oy = gy * unit + (long long)((unsigned int)((variant >> 16) & 0xFFFFull) % u);
    *oz = gz * unit + (long long)((unsigned int)((variant >> 32) & 0xFFFFull) % u);
    unsigned int sum = 0, kind = BW_MAX_VEIN_KINDS;
    for (unsigned int k = 0; k < p->veins.kind_count && k < BW_MAX_VEIN_KINDS; ++k) {
        sum += bw_vein_density(p->veins.kinds[k], *oy);
        if (sum > limit) {
            kind = k;
            break;
        }
    }
    if (kind == BW_MAX_VEIN_KINDS) return false;
    const FlatVein& k = p->veins.kinds[kind];
    const long long radius = bw_vein_radius(k, *oy);
    const int d = (int)((unsigned int)(variant >> 56) % 27u);
    int dx = (int)(d % 3) - 1, dy = (int)((d / 3) % 3) - 1, dz = (int)(d / 9) - 1;
    if (dx == 0 && dy == 0 && dz == 0) dx = 1;
    const int stride = radius > 1 ? (int)radius : 1;
    v->sx = dx * stride;
    v->sy = dy * stride;
    v->sz = dz * stride;
    v->radius = (int)radius;
    v->kind = kind;
    v->blobs = k.blobs_min + (unsigned int)((variant >> 48) & 0xFFull) % (k.blobs_span + 1u);
    v->salt = (unsigned int)(variant >> 24);
    return true;
}

// Whether the vein's blocks, centre (ox, oy, oz), can reach the box lo..hi.
__device__ __forceinline__ bool bw_vein_reaches(const BwVein& v, long long ox, long long oy, long long oz,
                                                const long long lo[3], const long long hi[3]) {
    const long long last = v.blobs > 0 ? (long long)v.blobs - 1 : 0;
    const long long o[3] = {ox, oy, oz};
    const long long s[3] = {v.sx, v.sy, v.sz};
    for (int a = 0; a < 3; ++a) {
        const long long end = o[a] + last * s[a];
        const long long a0 = (o[a] < end ? o[a] : end) - v.radius, a1 = (o[a] > end ? o[a] : end) + v.radius;
        if (a0 > hi[a] || a1 < lo[a]) return false;
    }
    return true;
}

// Every thread of the block calls this (it holds barriers) with the same
// slab lo..hi (world blocks) and chunk corner; on return s_veins[0..*count)
// holds the veins that can reach the slab, readable by every thread.
template <int THREADS>
__device__ __forceinline__ void bw_gather_veins(const WorldParams* p, const long long lo[3],
                                                const long long hi[3], const long long corner[3], BwVein* s_veins,
                                                unsigned int* s_scan, unsigned int* count) {
    const long long unit = p->veins.spacing > 0 ? p->veins.spacing : 1, reach = p->veins.reach;
    long long g0[3], n[3];
    for (int a = 0; a < 3; ++a) {
        g0[a] = bw_div_floor(lo[a] - reach, unit);
        n[a] = bw_div_floor(hi[a] + reach, unit) - g0[a] + 1;
    }
    const unsigned long long cubes = (unsigned long long)(n[0] * n[1] * n[2]);
    const unsigned long long t = threadIdx.x;
    BwVein v = {};
    bool keep = false;
    if (t < cubes && t < BW_VEIN_SLAB_CANDIDATES) {
        long long ox, oy, oz;
        const long long gx = g0[0] + (long long)(t % n[0]), gy = g0[1] + (long long)((t / n[0]) % n[1]),
                        gz = g0[2] + (long long)(t / (n[0] * n[1]));
        if (bw_vein_candidate(p, gx, gy, gz, &v, &ox, &oy, &oz) && bw_vein_reaches(v, ox, oy, oz, lo, hi)) {
            keep = true;
            v.x = (int)(ox - corner[0]);
            v.y = (int)(oy - corner[1]);
            v.z = (int)(oz - corner[2]);
            const int o[3] = {v.x, v.y, v.z}, s[3] = {v.sx, v.sy, v.sz};
            const int last = v.blobs > 0 ? (int)v.blobs - 1 : 0;
            for (int a = 0; a < 3; ++a) {
                const int end = o[a] + last * s[a];
                v.lo[a] = (o[a] < end ? o[a] : end) - v.radius;
                v.hi[a] = (o[a] > end ? o[a] : end) + v.radius;
            }
        }
    }
    unsigned int total = 0;
    const unsigned int rank = bw_block_exclusive_sum<THREADS>(keep ? 1u : 0u, s_scan, &total);
    if (keep) s_veins[rank] = v;
    *count = total;
    __syncthreads();
}

// The block that `block` (terrain below its column's surface, or on it under
// water) at
// (x, y, z) relative to the chunk corner becomes: the block of the
// first-listed kind among the gathered veins that cover it and may replace
// it, else itself.
__device__ __forceinline__ unsigned int bw_vein_block(const WorldParams* p, const BwVein* veins, unsigned int count,
                                                      const long long corner[3], int x, int y, int z,
                                                      unsigned int block) {
    // Coordinates relative to the chunk corner are a few dozen blocks at
    // most, so 32-bit arithmetic is exact here; 64-bit products cost several
    // instructions each on the GPU. The box test skips most gathered veins
    // for a given block, since a vein covers a few hundred of the slab
    // neighbourhood's blocks.
    unsigned int best = BW_MAX_VEIN_KINDS;
    for (unsigned int i = 0; i < count; ++i) {
        const BwVein& v = veins[i];
        if (v.kind >= best || x < v.lo[0] || x > v.hi[0] || y < v.lo[1] || y > v.hi[1] || z < v.lo[2] ||
            z > v.hi[2])
            continue;
        if (((p->veins.kinds[v.kind].replace_mask >> block) & 1u) == 0u) continue;
        const int r2 = v.radius * v.radius;
        bool hit = false, shell = false;
        for (unsigned int j = 0; j < v.blobs && !hit; ++j) {
            const int dx = x - (v.x + (int)j * v.sx), dy = y - (v.y + (int)j * v.sy), dz = z - (v.z + (int)j * v.sz);
            const int d2 = dx * dx + dy * dy + dz * dz;
            hit = d2 <= r2;
            shell = shell || d2 <= r2 + v.radius;
        }
        if (!hit && shell)
            hit = (bw_vein_block_hash(corner[0] + x, corner[1] + y, corner[2] + z, v.salt) & 1u) == 1u;
        if (hit) best = v.kind;
    }
    return best < BW_MAX_VEIN_KINDS ? p->veins.kinds[best].block : block;
}
