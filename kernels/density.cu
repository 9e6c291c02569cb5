// The density stage on the device: which blocks the caves carve. One
// thread block per 8×8×8 group of blocks (the Brno project's work group), which lies
// in one lattice cell per octave. Cooperative: the group's corner gradients,
// then the per-axis partial products and fades, are computed once into
// shared memory and every block only adds and blends. Naive (`cooperative`
// = 0, for the comparison): every block hashes its own eight corners per
// octave. Both give the same bits. Rust twin: src/worldgen/density.rs.
#include "lattice.cuh"

// Whether the block at height y over a column of surface h may be carved by
// a layer reaching up to min_depth below the surface.
__device__ __forceinline__ bool bw_may_open(const WorldParams* p, long long y, long long h, long long min_depth) {
    const long long w = p->surface.water_level;
    return y <= h - min_depth && y >= (long long)p->caves.bottom && y <= (long long)p->caves.top &&
           (y > w || y <= (h < w ? h : w) - (long long)p->caves.water_clearance);
}

__device__ __forceinline__ bool bw_layer_fires(const FlatCaveLayer& l, const float v[BW_MAX_CAVE_NOISES]) {
    const float a = v[l.a % BW_MAX_CAVE_NOISES];
    if (l.kind == BW_CAVE_CHAMBERS) return a > l.threshold;
    const float b = v[l.b % BW_MAX_CAVE_NOISES];
    return fabsf(a) < l.threshold && fabsf(b) < l.threshold;
}

// Grid (BW_DENSITY_GROUPS_PER_CHUNK, chunk_count), block BW_DENSITY_THREADS
// (y fastest, then x, then z). Writes every byte of each launched chunk's
// mask: bit (y mod 8) of byte `column · 4 + y / 8` set where a cave opens.
extern "C" __global__ void __launch_bounds__(BW_DENSITY_THREADS)
    bw_density(const ChunkJob* jobs, unsigned int chunk_count, const int* heights, unsigned char* caves,
               unsigned int cooperative) {
    __shared__ float s_grad[BW_MAX_CAVE_NOISES][BW_MAX_CAVE_OCTAVES][8][3];
    __shared__ float s_part[BW_MAX_CAVE_NOISES][BW_MAX_CAVE_OCTAVES][3][8][BW_GROUP];
    __shared__ float s_fade[BW_MAX_CAVE_NOISES][BW_MAX_CAVE_OCTAVES][3][BW_GROUP];
    __shared__ unsigned char s_carved[BW_DENSITY_THREADS];
    __shared__ int s_open;
    const WorldParams* p = &bw_world;

    const unsigned int tid = threadIdx.x;
    const unsigned int j = tid % BW_GROUP, i = (tid / BW_GROUP) % BW_GROUP, k = tid / (BW_GROUP * BW_GROUP);
    const unsigned int g = blockIdx.x;
    const unsigned int gy = g % 4u, gx = (g / 4u) % 4u, gz = g / 16u;
    const unsigned int chunk = blockIdx.y;
    // Every thread reaches every barrier: an inactive block only skips its
    // loads and stores, and the skip below is uniform across the block.
    const bool active = chunk < chunk_count;
    const ChunkJob job = active ? jobs[chunk] : ChunkJob{0, 0, 0, 0u};
    const unsigned int column = (gz * BW_GROUP + k) * BW_CHUNK + gx * BW_GROUP + i;
    const int ox = job.x * BW_CHUNK + (int)(gx * BW_GROUP), oy = job.y * BW_CHUNK + (int)(gy * BW_GROUP),
              oz = job.z * BW_CHUNK + (int)(gz * BW_GROUP);
    const long long h = active ? (long long)heights[(size_t)job.column * BW_CHUNK_AREA + column] : 0;
    const long long y = (long long)oy + j;
    const unsigned int noise_count =
        p->caves.noise_count < BW_MAX_CAVE_NOISES ? p->caves.noise_count : BW_MAX_CAVE_NOISES;
    const unsigned int layer_count =
        p->caves.layer_count < BW_MAX_CAVE_LAYERS ? p->caves.layer_count : BW_MAX_CAVE_LAYERS;

    if (tid == 0) s_open = 0;
    __syncthreads();
    bool open = false;
    for (unsigned int l = 0; l < layer_count; ++l) open = open || bw_may_open(p, y, h, p->caves.layers[l].min_depth);
    if (active && open) atomicMax(&s_open, 1);
    __syncthreads();
    const bool work = s_open != 0;

    // Corner gradients: one thread per (noise, octave, corner).
    if (work && cooperative) {
        const unsigned int e = tid, c = e % 8u, o = (e / 8u) % BW_MAX_CAVE_OCTAVES, n = e / (8u * BW_MAX_CAVE_OCTAVES);
        if (n < noise_count && o < p->caves.noises[n].octaves) {
            const FlatCaveNoise nz = p->caves.noises[n];
            const unsigned int sxz = nz.shift_xz - o, sy = nz.shift_y - o;
            float gr[3];
            bw_gradient(bw_corner_hash(bw_octave_seed(nz.seed, o), bw_cell_index(ox, sxz) + (int)(c & 1u),
                                       bw_cell_index(oy, sy) + (int)((c >> 1) & 1u),
                                       bw_cell_index(oz, sxz) + (int)((c >> 2) & 1u)),
                        gr);
            for (int a = 0; a < 3; ++a) s_grad[n][o][c][a] = gr[a];
        }
    }
    __syncthreads();
    // Partial products g_c[axis]·(f − c_axis) along x and z, and fades.
    if (work && cooperative) {
        for (unsigned int e = tid; e < BW_MAX_CAVE_NOISES * BW_MAX_CAVE_OCTAVES * 3u * 8u * BW_GROUP;
             e += BW_DENSITY_THREADS) {
            const unsigned int at = e % BW_GROUP, c = (e / BW_GROUP) % 8u, axis = (e / (BW_GROUP * 8u)) % 3u,
                               o = (e / (BW_GROUP * 24u)) % BW_MAX_CAVE_OCTAVES,
                               n = e / (BW_GROUP * 24u * BW_MAX_CAVE_OCTAVES);
            if (n >= noise_count || o >= p->caves.noises[n].octaves) continue;
            const FlatCaveNoise nz = p->caves.noises[n];
            const unsigned int shift = (axis == 1u ? nz.shift_y : nz.shift_xz) - o;
            const int origin = axis == 0u ? ox : (axis == 1u ? oy : oz);
            const float f = bw_cell_fraction(origin + (int)at, shift);
            const float corner = (float)((c >> axis) & 1u);
            // y needs no partials: the blend takes the y gradient and fraction.
            if (axis != 1u) s_part[n][o][axis][c][at] = s_grad[n][o][c][axis] * (f - corner);
            if (c == 0u) s_fade[n][o][axis][at] = bw_fade(f);
        }
    }
    __syncthreads();

    bool carved = false;
    if (work && active) {
        float v[BW_MAX_CAVE_NOISES] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (unsigned int n = 0; n < noise_count; ++n) {
            const FlatCaveNoise nz = p->caves.noises[n];
            float acc = 0.0f;
            for (unsigned int o = 0; o < nz.octaves && o < BW_MAX_CAVE_OCTAVES; ++o) {
                float value;
                if (cooperative) {
                    float pxz[8], gy[8];
                    for (int c = 0; c < 8; ++c) {
                        pxz[c] = s_part[n][o][0][c][i] + s_part[n][o][2][c][k];
                        gy[c] = s_grad[n][o][c][1];
                    }
                    value = bw_blend(pxz, gy, bw_cell_fraction(oy + (int)j, nz.shift_y - o), s_fade[n][o][0][i],
                                     s_fade[n][o][1][j], s_fade[n][o][2][k]);
                } else {
                    value = bw_octave_at(bw_octave_seed(nz.seed, o), nz.shift_xz - o, nz.shift_y - o, ox + (int)i,
                                         oy + (int)j, oz + (int)k);
                }
                acc += nz.weights[o] * value;
            }
            v[n] = acc;
        }
        for (unsigned int l = 0; l < layer_count; ++l) {
            const FlatCaveLayer layer = p->caves.layers[l];
            carved = carved || (bw_may_open(p, y, h, layer.min_depth) && bw_layer_fires(layer, v));
        }
    }
    s_carved[tid] = carved ? 1 : 0;
    __syncthreads();
    if (active && j == 0) {
        unsigned int byte = 0;
        for (unsigned int b = 0; b < BW_GROUP; ++b) byte |= (unsigned int)s_carved[tid + b] << b;
        caves[(size_t)chunk * BW_CAVE_MASK_BYTES + (size_t)column * 4u + gy] = (unsigned char)byte;
    }
}
