// The decoration plan on the device: which trees and rocks reach into each
// chunk column. One thread per candidate (the Chile thesis's pattern at the
// tree spacing, then at the rock spacing, over the column and the reach
// around it), survivors packed with a block-level prefix sum and one atomic
// per round. Their blocks are written by bw_fill. Rust twin:
// src/worldgen/decorate.rs (plan).
#include "block_scan.cuh"
#include "column.cuh"
#include "decorations.cuh"
#include "patches.cuh"

// The tree a tree candidate grows, if the rules allow one: `tree` gets its
// base, kind and trunk height. Twin: accepted_tree.
__device__ bool bw_accepted_tree(const WorldParams* p, const BwCandidate& c, PlacedObject* tree) {
    if (c.threshold >= p->deco.trees.max_density) return false;
    const BwFooting f = bw_footing(p, c.x, c.z);
    // The biome's density map at the candidate, as FlatDensityMap::factor
    // computes it (1 without a map).
    const FlatDensityMap map = p->deco.trees.biome_map[f.biome];
    float factor = 1.0f;
    if (map.node < p->terrain.node_count) factor = bw_map_factor(map, bw_eval_node(p, map.node, (float)c.x, (float)c.z));
    const int l = bw_layer_of(c.threshold, p->deco.trees.biome_layers[f.biome], p->deco.trees.biome_count[f.biome], factor);
    if (l < 0) return false;
    const FlatLayer layer = p->deco.trees.biome_layers[f.biome][l];
    if (layer.what >= BW_MAX_TREE_KINDS || !bw_surface_allows(p, layer, f.height, f.biome) ||
        f.slope > p->deco.trees.max_slope)
        return false;
    const FlatTree kind = p->deco.trees.kinds[layer.what];
    tree->base = f.height + 1;
    tree->kind = layer.what;
    tree->shape =
        bw_tree_shape(kind.trunk_min + (unsigned int)(c.variant % ((unsigned long long)kind.trunk_span + 1)), c.variant);
    return true;
}

// Whether a rock centred on (x, z) of shape `shape` yields to a tree whose
// trunk stands in or beside its footprint. Twin: rock_yields.
__device__ bool bw_rock_yields(const WorldParams* p, long long x, long long z, unsigned int shape) {
    if (p->deco.trees.unit <= 0) return false;
    const long long unit = p->deco.trees.unit;
    const long long rx = bw_rock_radius(shape, 0) + 1, rz = bw_rock_radius(shape, 2) + 1;
    const long long gx0 = bw_div_floor(x - rx, unit), gx1 = bw_div_floor(x + rx, unit);
    const long long gz0 = bw_div_floor(z - rz, unit), gz1 = bw_div_floor(z + rz, unit);
    for (long long gz = gz0; gz <= gz1; ++gz) {
        for (long long gx = gx0; gx <= gx1; ++gx) {
            const BwCandidate c = bw_candidate(p, unit, gx, gz);
            const long long ax = c.x - x, az = c.z - z;
            PlacedObject tree;
            if (ax >= -rx && ax <= rx && az >= -rz && az <= rz && bw_accepted_tree(p, c, &tree)) return true;
        }
    }
    return false;
}

// A rock's shape word from its kind and its candidate's hash. Twin: rock_shape.
__device__ unsigned int bw_rock_shape(const FlatRock& kind, unsigned long long variant) {
    const unsigned int r = kind.radius_min + (unsigned int)(variant % ((unsigned long long)kind.radius_span + 1));
    // A log lies along x or z, from one bit of the hash.
    if (kind.form == BW_FORM_LOG) return ((variant >> 32) & 1ull) == 0 ? r : r << 16;
    const unsigned int stretch = (unsigned int)((variant >> 32) % 3);
    const unsigned int rx = stretch == 1 ? r + 1 : r, rz = stretch == 2 ? r + 1 : r;
    const unsigned int ry = r + (unsigned int)((variant >> 40) & 1ull);
    return rx | ry << 8 | rz << 16;
}

// Whether a rock candidate at (rx, rz) from the column's corner may reach
// into the column: some biome's layers give its threshold a kind whose
// shape spans the way in along both axes. Checked before the footing is
// sampled. Twin: rock_may_reach.
__device__ bool bw_rock_may_reach(const WorldParams* p, const BwCandidate& c, long long rx, long long rz) {
    const long long dx = rx < 0 ? -rx : (rx > BW_CHUNK - 1 ? rx - (BW_CHUNK - 1) : 0);
    const long long dz = rz < 0 ? -rz : (rz > BW_CHUNK - 1 ? rz - (BW_CHUNK - 1) : 0);
    if (dx == 0 && dz == 0) return true;
    for (int b = 0; b < BW_MAX_BIOMES; ++b) {
        const int l = bw_layer_of(c.threshold, p->deco.rocks.biome_layers[b], p->deco.rocks.biome_count[b], 1.0f);
        if (l < 0) continue;
        const unsigned int what = p->deco.rocks.biome_layers[b][l].what;
        if (what >= BW_MAX_ROCK_KINDS) continue;
        const unsigned int shape = bw_rock_shape(p->deco.rocks.kinds[what], c.variant);
        if ((long long)bw_rock_radius(shape, 0) >= dx && (long long)bw_rock_radius(shape, 2) >= dz) return true;
    }
    return false;
}

// The rock a rock candidate lays, if the rules allow one and it does not
// yield to a tree: `rock` gets its centre height, kind and radii. Twin:
// rock_at and rock_yields.
__device__ bool bw_accepted_rock(const WorldParams* p, const BwCandidate& c, PlacedObject* rock) {
    if (c.threshold >= p->deco.rocks.max_density) return false;
    const BwFooting f = bw_footing(p, c.x, c.z);
    const int l = bw_layer_of(c.threshold, p->deco.rocks.biome_layers[f.biome], p->deco.rocks.biome_count[f.biome], 1.0f);
    if (l < 0) return false;
    const FlatLayer layer = p->deco.rocks.biome_layers[f.biome][l];
    if (layer.what >= BW_MAX_ROCK_KINDS) return false;
    const FlatRock kind = p->deco.rocks.kinds[layer.what];
    if (!bw_surface_allows(p, layer, f.height, f.biome) || f.slope > kind.max_slope) return false;
    const unsigned int shape = bw_rock_shape(kind, c.variant);
    const bool log = kind.form == BW_FORM_LOG;
    if (bw_rock_yields(p, c.x, c.z, shape)) return false;
    rock->base = f.height + (log ? 1 : 0);
    rock->kind = BW_ROCK_KIND + layer.what;
    rock->shape = shape;
    return true;
}

// Grid = column job count, block BW_DECORATE_THREADS. Per job, in `trees`
// from job × BW_OBJECTS_PER_COLUMN: its trees and rocks (up to
// BW_MAX_TREES_PER_COLUMN), then from BW_MAX_TREES_PER_COLUMN on its patch
// centres (up to BW_MAX_PATCHES_PER_COLUMN); `tree_counts` holds the two
// counts (trees in bits 0-15, patches above), and `extremes[3·job + 2]` the
// highest block any tree or rock places (the heightmap kernel wrote [0]
// and [1] and, in `heights` and `biomes`, the column's surface), or
// BW_PATCH_OVERFLOW where the patches outgrew their list.
extern "C" __global__ void __launch_bounds__(BW_DECORATE_THREADS)
    bw_decorate(const ColumnJob* jobs, unsigned int job_count, const int* heights, const unsigned char* biomes,
                PlacedObject* trees, unsigned int* tree_counts, int* extremes) {
    __shared__ unsigned int s_scan[2 * BW_DECORATE_THREADS];
    __shared__ unsigned int s_base;
    __shared__ unsigned int s_patches;
    __shared__ int s_top;
    const WorldParams* p = &bw_world;

    const unsigned int job = blockIdx.x;
    // Every thread reaches every barrier: an out-of-range block only skips
    // its loads and stores.
    const bool active = job < job_count;
    const ColumnJob col = active ? jobs[job] : ColumnJob{0, 0};
    if (threadIdx.x == 0) {
        s_top = BW_NO_TREE_TOP;
        s_patches = 0u;
        if (active) tree_counts[job] = 0u;
    }
    __syncthreads();

    const long long x0 = (long long)col.x * BW_CHUNK, z0 = (long long)col.z * BW_CHUNK;
    // Pass 0 plans the trees, pass 1 the rocks; both passes' bounds are the
    // same for every thread of the block, so all of them hold the barriers.
    for (int pass = 0; pass < 2; ++pass) {
        const int grid = pass == 0 ? p->deco.trees.unit : p->deco.rocks.unit;
        const long long unit = grid > 0 ? grid : 1;
        const long long reach = pass == 0 ? p->deco.trees.reach : p->deco.rocks.reach;
        const unsigned long long seed = pass == 0 ? bw_deco_seed(p) : ((unsigned long long)p->deco.rocks.seed[0] |
                                                                       ((unsigned long long)p->deco.rocks.seed[1] << 32));
        const long long lo = -reach, hi = BW_CHUNK + reach;
        const long long gx0 = bw_div_floor(x0 + lo, unit), gz0 = bw_div_floor(z0 + lo, unit);
        const long long nx = bw_div_floor(x0 + hi - 1, unit) - gx0 + 1;
        const long long nz = bw_div_floor(z0 + hi - 1, unit) - gz0 + 1;
        const long long squares = grid > 0 ? nx * nz : 0;
        const long long rounds = (squares + BW_DECORATE_THREADS - 1) / BW_DECORATE_THREADS;

        for (long long r = 0; r < rounds; ++r) {
            const long long k = r * BW_DECORATE_THREADS + threadIdx.x;
            unsigned int keep = 0;
            PlacedObject obj = {0, 0, 0, 0, 0};
            if (active && k < squares) {
                const BwCandidate c = bw_candidate_seeded(p, seed, unit, gx0 + k % nx, gz0 + k / nx);
                const long long rx = c.x - x0, rz = c.z - z0;
                if (rx >= lo && rx < hi && rz >= lo && rz < hi &&
                    (pass == 0 ? bw_accepted_tree(p, c, &obj)
                               : bw_rock_may_reach(p, c, rx, rz) && bw_accepted_rock(p, c, &obj))) {
                    obj.x = (int)rx;
                    obj.z = (int)rz;
                    keep = 1;
                }
            }
            unsigned int total = 0;
            const unsigned int offset = bw_block_exclusive_sum<BW_DECORATE_THREADS>(keep, s_scan, &total);
            if (threadIdx.x == 0 && active && total != 0) s_base = atomicAdd(&tree_counts[job], total);
            __syncthreads();
            if (keep) {
                const unsigned int slot = s_base + offset;
                if (slot < BW_MAX_TREES_PER_COLUMN) trees[(size_t)job * BW_OBJECTS_PER_COLUMN + slot] = obj;
                atomicMax(&s_top, bw_tree_top(p, obj));
            }
            __syncthreads();
        }
    }

    // Patch centres: every column within the widest patch's reach of the
    // chunk column, each slot apart. Inside the column the heightmap gives
    // its surface; beyond it a footing is sampled, only for a hash that
    // passes the slot's bounds. The bounds are the same for the whole
    // block, so every thread holds every barrier.
    const long long reach = p->deco.plants.patch_reach;
    unsigned int slots = 0;
    for (unsigned int b = 0; b < BW_MAX_BIOMES; ++b) {
        if (p->deco.plants.patch_count[b] > slots) slots = p->deco.plants.patch_count[b];
    }
    if (slots > BW_MAX_BIOME_LAYERS) slots = BW_MAX_BIOME_LAYERS;
    const long long side = BW_CHUNK + 2 * reach;
    const long long squares = reach > 0 ? side * side : 0;
    const long long rounds = (squares + BW_DECORATE_THREADS - 1) / BW_DECORATE_THREADS;
    const int* hs = heights + (size_t)job * BW_CHUNK_AREA;
    const unsigned char* bs = biomes + (size_t)job * BW_CHUNK_AREA;
    for (long long r = 0; r < rounds; ++r) {
        const long long k = r * BW_DECORATE_THREADS + threadIdx.x;
        const long long rx = k % side - reach, rz = k / side - reach;
        for (unsigned int slot = 0; slot < slots; ++slot) {
            unsigned int keep = 0;
            PlacedObject obj = {0, 0, 0, 0, 0};
            if (active && k < squares) {
                const long long x = x0 + rx, z = z0 + rz;
                const unsigned long long hash = bw_patch_hash(bw_deco_seed(p), x, z, slot);
                const unsigned int bits = bw_patch_chance_bits(hash);
                if (bits < p->deco.plants.patch_bound[slot]) {
                    if (rx >= 0 && rx < BW_CHUNK && rz >= 0 && rz < BW_CHUNK) {
                        const unsigned int i = (unsigned int)(rz * BW_CHUNK + rx);
                        keep = bw_patch_centre(p, x, z, (int)rx, (int)rz, hs[i], bs[i], slot, hash, &obj) ? 1u : 0u;
                    } else if (bw_patch_may_reach(p, slot, hash, rx, rz) && bits < bw_patch_ring_bound(p, slot, x, z)) {
                        const BwFooting f = bw_footing(p, x, z);
                        keep = bw_patch_centre(p, x, z, (int)rx, (int)rz, f.height, f.biome, slot, hash, &obj) ? 1u : 0u;
                    }
                }
            }
            unsigned int total = 0;
            const unsigned int offset = bw_block_exclusive_sum<BW_DECORATE_THREADS>(keep, s_scan, &total);
            if (threadIdx.x == 0) s_base = s_patches;
            __syncthreads();
            if (keep) {
                const unsigned int at = s_base + offset;
                if (at < BW_MAX_PATCHES_PER_COLUMN)
                    trees[(size_t)job * BW_OBJECTS_PER_COLUMN + BW_MAX_TREES_PER_COLUMN + at] = obj;
            }
            __syncthreads();
            if (threadIdx.x == 0) s_patches += total;
        }
    }
    __syncthreads();
    if (active && threadIdx.x == 0) {
        const bool overflow = s_patches > BW_MAX_PATCHES_PER_COLUMN;
        tree_counts[job] = (tree_counts[job] & 0xFFFFu) | ((overflow ? 0u : s_patches) << 16);
        extremes[job * 3 + 2] = overflow ? BW_PATCH_OVERFLOW : s_top;
    }
}
