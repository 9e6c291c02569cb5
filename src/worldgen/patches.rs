//! Plants in patches, as the founding game plants its flowers and tall
//! grass. CUDA twin: `kernels/patches.cuh`.
//!
//! * **Centres.** Every column is a candidate centre of each patch slot
//!   `k` of the biome under it, independently, with the layer's chance
//!   scaled by its density map at the column ([`patch_hash`]: 24 bits for
//!   the chance, others for the size). The founding game rolls a chance per
//!   column too; a hash in place of its random stream makes the result
//!   independent of the order chunks are made in.
//! * **Extent.** A patch is the rectangle of half-extents `s ± jitter`
//!   around its centre ([`patch_extents`]), `s` from the layer's `size`.
//! * **Fill.** A column of the rectangle holds the plant when its surface
//!   stands at the centre's surface height, the layer takes its surface
//!   block and height window, and its own hash for that patch falls within
//!   the layer's share ([`patch_takes`]). The founding game fills only the
//!   columns its chunk had already filled (a defect of its fill order);
//!   here every column of the rectangle counts, across chunk borders.
//! * **Overlaps** are settled per column, without regard to order: the
//!   higher claim (priority, id) wins, single plants included.
//!
//! A chunk column's plan finds every centre whose rectangle can reach it:
//! inside the column from its heightmap, beyond it (up to
//! `patch_reach`) from footings sampled with the plan's other taps, and
//! only for the candidates whose hash passes the slot's bound
//! ([`PlantParams::patch_bound`]) and, where the maps allow a tighter one,
//! [`ring_bound`]'s.

use super::decorate::{claim_key, surface_allows, Footing, PlacedPlant};
use super::heightmap::Heightmap;
use super::params::{scaled_density, splitmix64, FlatPatch, PlantParams, WorldParams};
use super::preset::{MAX_BIOMES, MAX_BIOME_LAYERS};
use super::NoiseProgram;
use crate::world::coords::{column_index, ColumnPos, CHUNK_SIZE, CHUNK_SIZE_I64};

/// Keeps the patches' hashes apart from every other use of the seed.
const PATCH_SALT: u64 = 0x7061_7463_6865_7321;

/// The hash of column (x, z) as a candidate centre of patch slot `k`.
/// Twin: `bw_patch_hash`.
#[inline]
pub fn patch_hash(seed: u64, x: i64, z: i64, k: usize) -> u64 {
    let key = ((x as u32 as u64) << 32) | z as u32 as u64;
    splitmix64(seed ^ PATCH_SALT ^ splitmix64(key) ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The 24 bits of a centre's hash its chance is compared with.
#[inline]
pub fn chance_bits(hash: u64) -> u32 {
    (hash >> 40) as u32
}

/// Half-extents (along x, along z) of the patch of `layer` whose centre
/// hash is `hash`. Twin: `bw_patch_extents`.
#[inline]
pub fn patch_extents(layer: &FlatPatch, hash: u64) -> (i32, i32) {
    let s = layer.half_min + (hash & 0xFFFF) as u32 % (layer.half_span + 1);
    let j = 2 * layer.jitter + 1;
    let l = s - layer.jitter + ((hash >> 16) & 0xFF) as u32 % j;
    let w = s - layer.jitter + ((hash >> 24) & 0xFF) as u32 % j;
    (l as i32, w as i32)
}

/// Whether the patch of centre hash `hash` fills the column (dx, dz) from
/// its centre, by its share (given the column is one it takes). Twin:
/// `bw_patch_takes`.
#[inline]
pub fn patch_takes(layer: &FlatPatch, hash: u64, dx: i32, dz: i32) -> bool {
    let at = (((dz + 64) as u64) << 8 | (dx + 64) as u64) + 1;
    chance_bits(splitmix64(hash.wrapping_add(at))) < layer.share
}

/// The seed the patches hash: the decorations' seed.
#[inline]
fn seed(p: &WorldParams) -> u64 {
    p.deco.seed()
}

/// The chance of a centre of `layer` where its map's factor is `factor`,
/// in 24 bits.
#[inline]
fn centre_chance(layer: &FlatPatch, factor: f32) -> u32 {
    scaled_density(layer.chance, factor)
}

/// The largest chance slot `k` has at column (x, z) in any biome, its maps
/// read there: a hash at or above it makes no centre whatever biome the
/// column is, so its footing is never sampled. Twin: `bw_patch_ring_bound`.
pub fn ring_bound(program: &NoiseProgram, plants: &PlantParams, k: usize, x: i64, z: i64) -> u32 {
    let mut seen: Option<(u32, f32)> = None;
    let mut bound = 0;
    for b in 0..MAX_BIOMES {
        if (plants.patch_count[b] as usize) > k {
            let layer = &plants.patches[b][k];
            let factor = program.density_factor_sharing(&layer.map, x as f32, z as f32, &mut seen);
            bound = bound.max(centre_chance(layer, factor));
        }
    }
    bound
}

/// The widest half-extents slot `k`'s hash gives in any biome.
fn widest(plants: &PlantParams, k: usize, hash: u64) -> (i32, i32) {
    let mut widest = (0, 0);
    for b in 0..MAX_BIOMES {
        if (plants.patch_count[b] as usize) > k {
            let (l, w) = patch_extents(&plants.patches[b][k], hash);
            widest = (widest.0.max(l), widest.1.max(w));
        }
    }
    widest
}

/// Whether a rectangle of half-extents `e` around (rx, rz), relative to a
/// chunk column's corner, overlaps the column.
#[inline]
fn reaches_column(rx: i64, rz: i64, e: (i32, i32)) -> bool {
    let (l, w) = (e.0 as i64, e.1 as i64);
    rx + l >= 0 && rx - l < CHUNK_SIZE_I64 && rz + w >= 0 && rz - w < CHUNK_SIZE_I64
}

/// A patch centre that reaches a chunk column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchCentre {
    /// Relative to the chunk column's corner.
    pub x: i32,
    pub z: i32,
    pub height: i32,
    pub biome: u8,
    pub slot: u8,
    pub hash: u64,
}

/// A candidate centre beyond the chunk column, waiting for its footing.
struct RingCandidate {
    x: i64,
    z: i64,
    slot: u8,
    hash: u64,
    /// Index of its column among [`PendingPatches::columns`].
    column: usize,
}

/// The patches of one chunk column's plan, in two steps: the centres
/// inside the column from its heightmap, and the candidates beyond it,
/// whose footings the plan samples with its other taps.
pub struct PendingPatches {
    col: ColumnPos,
    centres: Vec<PatchCentre>,
    ring: Vec<RingCandidate>,
    columns: Vec<(i64, i64)>,
}

impl PendingPatches {
    /// `None` where the world has no patches.
    pub fn new(program: &NoiseProgram, p: &WorldParams, col: ColumnPos, hm: &Heightmap) -> Option<PendingPatches> {
        let plants = &p.deco.plants;
        if plants.patch_reach <= 0 {
            return None;
        }
        let (x0, z0) = (col.x as i64 * CHUNK_SIZE_I64, col.z as i64 * CHUNK_SIZE_I64);
        let slots = (0..MAX_BIOMES).map(|b| plants.patch_count[b] as usize).max().unwrap_or(0).min(MAX_BIOME_LAYERS);
        let r = plants.patch_reach as i64;
        let mut out = PendingPatches { col, centres: Vec::new(), ring: Vec::new(), columns: Vec::new() };
        for rz in -r..CHUNK_SIZE_I64 + r {
            for rx in -r..CHUNK_SIZE_I64 + r {
                let (x, z) = (x0 + rx, z0 + rz);
                let inside = (0..CHUNK_SIZE_I64).contains(&rx) && (0..CHUNK_SIZE_I64).contains(&rz);
                for k in 0..slots {
                    let hash = patch_hash(seed(p), x, z, k);
                    let bits = chance_bits(hash);
                    if bits >= plants.patch_bound[k] {
                        continue;
                    }
                    if inside {
                        let i = column_index(rx as usize, rz as usize);
                        let b = hm.biomes[i] as usize % MAX_BIOMES;
                        if let Some(centre) = centre_at(program, plants, (x, z), (rx, rz), hm.heights[i], b, k, hash) {
                            out.centres.push(centre);
                        }
                    } else if reaches_column(rx, rz, widest(plants, k, hash))
                        && bits < ring_bound(program, plants, k, x, z)
                    {
                        if out.columns.last() != Some(&(x, z)) {
                            out.columns.push((x, z));
                        }
                        let column = out.columns.len() - 1;
                        out.ring.push(RingCandidate { x, z, slot: k as u8, hash, column });
                    }
                }
            }
        }
        Some(out)
    }

    /// The columns beyond the chunk column whose footings [`Self::finish`] needs.
    pub fn columns(&self) -> &[(i64, i64)] {
        &self.columns
    }

    /// Settles the ring's candidates from their `footings` (one per
    /// [`Self::columns`]), then adds each column's patch plant to `plants`
    /// where it outclaims the plant already there.
    pub fn finish(
        mut self,
        program: &NoiseProgram,
        p: &WorldParams,
        hm: &Heightmap,
        footings: &[Footing],
        plants: &mut Vec<PlacedPlant>,
    ) {
        let params = &p.deco.plants;
        let (x0, z0) = (self.col.x as i64 * CHUNK_SIZE_I64, self.col.z as i64 * CHUNK_SIZE_I64);
        for c in &self.ring {
            let f = footings[c.column];
            let b = f.biome as usize % MAX_BIOMES;
            let rel = (c.x - x0, c.z - z0);
            if let Some(centre) = centre_at(program, params, (c.x, c.z), rel, f.height, b, c.slot as usize, c.hash) {
                self.centres.push(centre);
            }
        }
        if self.centres.is_empty() {
            return;
        }
        let mut best = [0u8; CHUNK_SIZE * CHUNK_SIZE];
        for pl in plants.iter() {
            best[column_index(pl.x as usize, pl.z as usize)] = pl.block;
        }
        let before = best;
        for c in &self.centres {
            let layer = &params.patches[c.biome as usize][c.slot as usize];
            let plant = layer.layer();
            let (l, w) = patch_extents(layer, c.hash);
            let (lo_x, hi_x) = ((c.x - l).max(0), (c.x + l).min(CHUNK_SIZE as i32 - 1));
            let (lo_z, hi_z) = ((c.z - w).max(0), (c.z + w).min(CHUNK_SIZE as i32 - 1));
            for tz in lo_z..=hi_z {
                for tx in lo_x..=hi_x {
                    let i = column_index(tx as usize, tz as usize);
                    let (h, b) = (hm.heights[i], hm.biomes[i] as usize % MAX_BIOMES);
                    if h != c.height
                        || !surface_allows(p, &plant, h, b)
                        || !patch_takes(layer, c.hash, tx - c.x, tz - c.z)
                    {
                        continue;
                    }
                    if best[i] == 0 || claim_key(p, layer.what) > claim_key(p, best[i] as u32) {
                        best[i] = layer.what as u8;
                    }
                }
            }
        }
        if best != before {
            plants.clear();
            for (i, &block) in best.iter().enumerate().filter(|(_, &b)| b != 0) {
                let (x, z) = (i % CHUNK_SIZE, i / CHUNK_SIZE);
                plants.push(PlacedPlant { x: x as u8, z: z as u8, block });
            }
        }
    }
}

/// The centre of slot `k` at column `at` (`rel` to the chunk column's
/// corner) of surface height `h` and biome `b`, if its hash makes one.
#[allow(clippy::too_many_arguments)]
#[inline]
fn centre_at(
    program: &NoiseProgram,
    plants: &PlantParams,
    at: (i64, i64),
    rel: (i64, i64),
    h: i32,
    b: usize,
    k: usize,
    hash: u64,
) -> Option<PatchCentre> {
    if plants.patch_count[b] as usize <= k {
        return None;
    }
    let layer = &plants.patches[b][k];
    let factor = program.density_factor(&layer.map, at.0 as f32, at.1 as f32);
    (chance_bits(hash) < centre_chance(layer, factor)).then_some(PatchCentre {
        x: rel.0 as i32,
        z: rel.1 as i32,
        height: h,
        biome: b as u8,
        slot: k as u8,
        hash,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flowers() -> FlatPatch {
        FlatPatch { half_min: 2, half_span: 4, jitter: 1, share: 1 << 23, ..FlatPatch::default() }
    }

    #[test]
    fn extents_stay_within_size_and_jitter() {
        let layer = flowers();
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..20_000u64 {
            let (l, w) = patch_extents(&layer, splitmix64(i));
            assert!((1..=7).contains(&l) && (1..=7).contains(&w), "({l}, {w})");
            seen.insert(l);
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), (1..=7).collect::<Vec<_>>());
    }

    #[test]
    fn a_share_of_one_half_takes_about_half() {
        let layer = flowers();
        let taken = (0..400u64)
            .flat_map(|c| (-7..=7).flat_map(move |dz| (-7..=7).map(move |dx| (c, dx, dz))))
            .filter(|&(c, dx, dz)| patch_takes(&layer, splitmix64(c), dx, dz))
            .count();
        let n = 400 * 15 * 15;
        // 5σ of a binomial(n, 1/2).
        let sigma = (n as f64 * 0.25).sqrt();
        assert!((taken as f64 - n as f64 / 2.0).abs() < 5.0 * sigma, "{taken} of {n}");
    }

    #[test]
    fn slots_and_columns_hash_apart() {
        let s = 42;
        assert_ne!(patch_hash(s, 3, 4, 0), patch_hash(s, 3, 4, 1));
        assert_ne!(patch_hash(s, 3, 4, 0), patch_hash(s, 4, 3, 0));
        assert_ne!(patch_hash(s, -1, 0, 0), patch_hash(s, 0, -1, 0));
    }
}
