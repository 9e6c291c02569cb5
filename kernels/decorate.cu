// The decoration plan on the device: which trees reach into each chunk
// column. One thread per tree candidate (the Chile thesis's pattern at the tree
// spacing, over the column and `tree_reach` blocks around it), survivors
// packed with a block-level prefix sum and one atomic per round. The trees'
// blocks are written by bw_fill. Rust twin: src/worldgen/decorate.rs (plan).
#include "block_scan.cuh"
#include "column.cuh"
#include "decorations.cuh"

// Grid = column job count, block BW_DECORATE_THREADS. Per job: its trees
// (up to BW_MAX_TREES_PER_COLUMN, in `trees` from job × that), their number
// in `tree_counts`, and the highest block any of them places in
// `extremes[3·job + 2]` (the heightmap kernel wrote [0] and [1]).
extern "C" __global__ void __launch_bounds__(BW_DECORATE_THREADS)
    bw_decorate(const ColumnJob* jobs, unsigned int job_count, PlacedTree* trees, unsigned int* tree_counts,
                int* extremes) {
    __shared__ unsigned int s_scan[2 * BW_DECORATE_THREADS];
    __shared__ unsigned int s_base;
    __shared__ int s_top;
    const WorldParams* p = &bw_world;

    const unsigned int job = blockIdx.x;
    // Every thread reaches every barrier: an out-of-range block only skips
    // its loads and stores.
    const bool active = job < job_count;
    const ColumnJob col = active ? jobs[job] : ColumnJob{0, 0};
    if (threadIdx.x == 0) {
        s_top = BW_NO_TREE_TOP;
        if (active) tree_counts[job] = 0u;
    }
    __syncthreads();

    const long long unit = p->tree_unit > 0 ? p->tree_unit : 1;
    const long long reach = p->tree_reach;
    const long long x0 = (long long)col.x * BW_CHUNK, z0 = (long long)col.z * BW_CHUNK;
    const long long lo = -reach, hi = BW_CHUNK + reach;
    const long long gx0 = bw_div_floor(x0 + lo, unit), gz0 = bw_div_floor(z0 + lo, unit);
    const long long nx = bw_div_floor(x0 + hi - 1, unit) - gx0 + 1;
    const long long nz = bw_div_floor(z0 + hi - 1, unit) - gz0 + 1;
    const long long squares = p->tree_unit > 0 ? nx * nz : 0;
    const long long rounds = (squares + BW_DECORATE_THREADS - 1) / BW_DECORATE_THREADS;

    for (long long r = 0; r < rounds; ++r) {
        const long long k = r * BW_DECORATE_THREADS + threadIdx.x;
        unsigned int keep = 0;
        PlacedTree tree = {0, 0, 0, 0, 0};
        if (active && k < squares) {
            const BwCandidate c = bw_candidate(p, unit, gx0 + k % nx, gz0 + k / nx);
            const long long rx = c.x - x0, rz = c.z - z0;
            if (rx >= lo && rx < hi && rz >= lo && rz < hi && c.threshold < p->tree_max_density) {
                // The footing, as the heightmap kernel computes it: h_b at
                // the four diagonal neighbours in stencil order, the biome
                // at the column itself.
                float h_b[5];
                unsigned char biome[5];
                const long long dx[5] = {-1, 1, -1, 1, 0}, dz[5] = {-1, -1, 1, 1, 0};
                for (int i = 0; i < 5; ++i) {
                    bw_sample_column(p, SwitchFields{}, (float)(c.x + dx[i]), (float)(c.z + dz[i]), &h_b[i],
                                     &biome[i]);
                }
                const float v = (((h_b[0] + h_b[1]) + h_b[2]) + h_b[3]) * 0.25f;
                const int h = (int)v;
                const float slope = fmaxf(fmaxf(fmaxf(h_b[0], h_b[1]), h_b[2]), h_b[3]) -
                                    fminf(fminf(fminf(h_b[0], h_b[1]), h_b[2]), h_b[3]);
                const unsigned int b = biome[4] % BW_MAX_BIOMES;
                // The biome's density map at the candidate, as
                // FlatDensityMap::factor computes it (1 without a map).
                const FlatDensityMap map = p->biome_tree_map[b];
                float factor = 1.0f;
                if (map.node < p->node_count) {
                    const float v = bw_eval_node(p, map.node, (float)c.x, (float)c.z);
                    factor = fminf(fmaxf(v * map.scale + map.offset, map.min), map.max);
                }
                const int l = bw_layer_of(c.threshold, p->biome_trees[b], p->biome_tree_count[b], factor);
                if (l >= 0) {
                    const FlatLayer layer = p->biome_trees[b][l];
                    const bool dry = h >= p->water_level;
                    const bool footing = (layer.on_mask >> (bw_surface_block(p, h, b) & 31)) & 1u;
                    if (layer.what < BW_MAX_TREE_KINDS && dry && footing && !(slope > p->tree_max_slope)) {
                        const FlatTree kind = p->tree_kinds[layer.what];
                        tree.x = (int)rx;
                        tree.z = (int)rz;
                        tree.base = h + 1;
                        tree.kind = layer.what;
                        tree.trunk = kind.trunk_min + (unsigned int)(c.variant % ((unsigned long long)kind.trunk_span + 1));
                        keep = 1;
                    }
                }
            }
        }
        unsigned int total = 0;
        const unsigned int offset = bw_block_exclusive_sum<BW_DECORATE_THREADS>(keep, s_scan, &total);
        if (threadIdx.x == 0 && active && total != 0) s_base = atomicAdd(&tree_counts[job], total);
        __syncthreads();
        if (keep) {
            const unsigned int slot = s_base + offset;
            if (slot < BW_MAX_TREES_PER_COLUMN) trees[(size_t)job * BW_MAX_TREES_PER_COLUMN + slot] = tree;
            atomicMax(&s_top, bw_tree_top(p, tree));
        }
        __syncthreads();
    }
    if (active && threadIdx.x == 0) extremes[job * 3 + 2] = s_top;
}
