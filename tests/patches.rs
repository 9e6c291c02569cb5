//! Flowers and tall grass in patches, as the founding game plants them
//! (src/worldgen/patches.rs): a plan's plants equal the rule applied to
//! the whole world column by column, across chunk borders, and each
//! biome's density matches what the rule's numbers promise.

use blockworld::world::block::BlockId;
use blockworld::world::coords::{column_index, ColumnPos};
use blockworld::worldgen::decorate::claim_key;
use blockworld::worldgen::params::{scaled_density, FlatPatch, WorldParams, PATCH_ONE};
use blockworld::worldgen::patches::{chance_bits, patch_extents, patch_hash, patch_takes};
use blockworld::worldgen::preset::{MAX_BIOMES, MAX_BIOME_LAYERS};
use blockworld::worldgen::{Preset, WorldGen};
use std::collections::BTreeMap;

/// Surface heights and biomes over a square of chunk columns and one more
/// on each side (wider than any patch reaches), and the plants the plans
/// of the inner columns list.
struct Area {
    /// Block coordinates of the inner square's corner, and its side in blocks.
    x0: i64,
    z0: i64,
    side: i64,
    heights: Vec<i32>,
    biomes: Vec<u8>,
    /// Per column of the whole square and patch slot of its biome, the
    /// centre chance there (its map read), in 1/`PATCH_ONE`.
    chances: Vec<[u32; MAX_BIOME_LAYERS]>,
    plants: Vec<u8>,
}

const MARGIN: i64 = 32;

impl Area {
    fn new(w: &WorldGen, corner: ColumnPos, chunks: i32) -> Area {
        let outer = (chunks + 2) as i64 * 32;
        let mut a = Area {
            x0: corner.x as i64 * 32,
            z0: corner.z as i64 * 32,
            side: chunks as i64 * 32,
            heights: vec![0; (outer * outer) as usize],
            biomes: vec![0; (outer * outer) as usize],
            chances: vec![[0; MAX_BIOME_LAYERS]; (outer * outer) as usize],
            plants: vec![0; (chunks as usize * 32).pow(2)],
        };
        for dz in -1..=chunks {
            for dx in -1..=chunks {
                let col = ColumnPos { x: corner.x + dx, z: corner.z + dz };
                let hm = w.compute_heightmap(col);
                for z in 0..32 {
                    for x in 0..32 {
                        let (ox, oz) = ((dx + 1) as i64 * 32 + x as i64, (dz + 1) as i64 * 32 + z as i64);
                        let i = (oz * outer + ox) as usize;
                        a.heights[i] = hm.heights[column_index(x, z)];
                        a.biomes[i] = hm.biomes[column_index(x, z)];
                        let b = a.biomes[i] as usize % MAX_BIOMES;
                        let plants = &w.params.deco.plants;
                        let (wx, wz) = (a.x0 - MARGIN + ox, a.z0 - MARGIN + oz);
                        for (k, layer) in plants.patches[b][..plants.patch_count[b] as usize].iter().enumerate() {
                            let factor = w.program.density_factor(&layer.map, wx as f32, wz as f32);
                            a.chances[i][k] = scaled_density(layer.chance, factor);
                        }
                    }
                }
                if (0..chunks).contains(&dx) && (0..chunks).contains(&dz) {
                    for pl in w.plan_decorations(col, &hm, None).plants {
                        let (x, z) = (dx as i64 * 32 + pl.x as i64, dz as i64 * 32 + pl.z as i64);
                        a.plants[(z * a.side + x) as usize] = pl.block;
                    }
                }
            }
        }
        a
    }

    fn index(&self, x: i64, z: i64) -> usize {
        let outer = self.side + 2 * MARGIN;
        ((z - self.z0 + MARGIN) * outer + (x - self.x0 + MARGIN)) as usize
    }

    /// Height and biome of world column (x, z), within the margin.
    fn at(&self, x: i64, z: i64) -> (i32, usize) {
        let i = self.index(x, z);
        (self.heights[i], self.biomes[i] as usize % MAX_BIOMES)
    }
}

fn surface_allows(p: &WorldParams, layer: &FlatPatch, h: i32, b: usize) -> bool {
    let top = if h > p.surface.snow_above { p.surface.snow_block } else { p.surface.top[b] };
    let d = h as i64 - p.surface.water_level as i64;
    layer.above_water[0] as i64 <= d && d <= layer.above_water[1] as i64 && layer.on_mask >> (top & 31) & 1 == 1
}

/// The patch plant of world column (x, z) by the rule, from every centre
/// that could reach it, with no regard to chunks (0: none), and the centre
/// of the patch that put it there.
fn by_the_rule(w: &WorldGen, a: &Area, x: i64, z: i64) -> (u8, (i64, i64)) {
    let p = &*w.params;
    let plants = &p.deco.plants;
    let r = plants.patch_reach as i64;
    let (h, b) = a.at(x, z);
    let (mut best, mut from) = (0u32, (x, z));
    for cz in z - r..=z + r {
        for cx in x - r..=x + r {
            let (hc, bc) = a.at(cx, cz);
            for k in 0..plants.patch_count[bc] as usize {
                let layer = &plants.patches[bc][k];
                let hash = patch_hash(p.deco.seed(), cx, cz, k);
                if chance_bits(hash) >= a.chances[a.index(cx, cz)][k] {
                    continue;
                }
                let (l, wz) = patch_extents(layer, hash);
                let (dx, dz) = ((x - cx) as i32, (z - cz) as i32);
                if dx.abs() > l || dz.abs() > wz || hc != h || !surface_allows(p, layer, h, b) {
                    continue;
                }
                if patch_takes(layer, hash, dx, dz) && (best == 0 || claim_key(p, layer.what) > claim_key(p, best)) {
                    (best, from) = (layer.what, (cx, cz));
                }
            }
        }
    }
    (best as u8, from)
}

/// Every plant a plan lists in a 3 × 3 square of chunk columns is the one
/// the rule gives its column, counted from every centre near it whichever
/// chunk column holds the centre; patches that cross borders are many.
#[test]
fn plans_plant_what_the_rule_gives_across_chunk_borders() {
    let w = WorldGen::new(Preset::classic(), 42);
    // Grassland and forest near the origin at seed 42 (a place with meadows).
    let mut crossing = 0;
    let mut planted = 0;
    for corner in [ColumnPos { x: -2, z: -2 }, ColumnPos { x: 40, z: -31 }, ColumnPos { x: -90, z: 64 }] {
        let a = Area::new(&w, corner, 3);
        for tz in 0..a.side {
            for tx in 0..a.side {
                let (x, z) = (a.x0 + tx, a.z0 + tz);
                let listed = a.plants[(tz * a.side + tx) as usize];
                let (rule, (cx, cz)) = by_the_rule(&w, &a, x, z);
                let single = listed != 0 && !is_patch_plant(&w.params, listed);
                if !single {
                    assert_eq!(listed, rule, "column ({x}, {z}): the plan lists {listed}, the rule gives {rule}");
                }
                planted += (rule != 0) as u32;
                // Planted from a centre in another chunk column.
                if rule != 0 && (cx.div_euclid(32), cz.div_euclid(32)) != (x.div_euclid(32), z.div_euclid(32)) {
                    crossing += 1;
                }
            }
        }
    }
    assert!(planted > 1000, "only {planted} patch plants");
    assert!(crossing > 200, "only {crossing} of {planted} plants from a centre in another chunk column");
}

fn is_patch_plant(p: &WorldParams, block: u8) -> bool {
    (0..MAX_BIOMES).any(|b| {
        p.deco.plants.patches[b][..p.deco.plants.patch_count[b] as usize].iter().any(|l| l.what == block as u32)
    })
}

/// Probability that a patch of `layer` covers the offset (dx, dz) from
/// its centre, from its size and jitter alone.
fn cover(layer: &FlatPatch, dx: i64, dz: i64) -> f64 {
    let (lo, span, j) = (layer.half_min as i64, layer.half_span as i64, layer.jitter as i64);
    let mut p = 0.0;
    for s in lo..=lo + span {
        let reach = |d: i64| (0..=2 * j).filter(|u| s - j + u >= d.abs()).count() as f64 / (2 * j + 1) as f64;
        p += reach(dx) * reach(dz);
    }
    p / (span + 1) as f64
}

/// Per biome and plant: columns where the layer may grow, plants grown,
/// and what the rule's numbers promise (and a control rule's).
#[derive(Default, Clone, Copy)]
struct Tally {
    grown: f64,
    expected: f64,
    /// Half the share.
    control: f64,
    /// The chance a column as a plant's, no patches (the rule before).
    per_column: f64,
}

/// The density the rule promises, with the independent centres it draws:
/// at each column, the chance that some patch of each plant takes it and
/// none of a plant with a higher claim does.
fn promise(w: &WorldGen, a: &Area, x: i64, z: i64, share_scale: f64) -> BTreeMap<u32, f64> {
    let p = &*w.params;
    let plants = &p.deco.plants;
    let r = plants.patch_reach as i64;
    let (h, b) = a.at(x, z);
    // Per plant: the chance no patch of it takes the column.
    let mut none: BTreeMap<u32, f64> = BTreeMap::new();
    for cz in z - r..=z + r {
        for cx in x - r..=x + r {
            let (hc, bc) = a.at(cx, cz);
            if hc != h {
                continue;
            }
            for (k, layer) in plants.patches[bc][..plants.patch_count[bc] as usize].iter().enumerate() {
                if !surface_allows(p, layer, h, b) {
                    continue;
                }
                let q = a.chances[a.index(cx, cz)][k] as f64 / PATCH_ONE as f64;
                let share = layer.share as f64 / PATCH_ONE as f64 * share_scale;
                *none.entry(layer.what).or_insert(1.0) *= 1.0 - q * cover(layer, x - cx, z - cz) * share;
            }
        }
    }
    let mut out = BTreeMap::new();
    for (&what, &n) in &none {
        let above: f64 = none.iter().filter(|(&o, _)| claim_key(p, o) > claim_key(p, what)).map(|(_, &m)| m).product();
        out.insert(what, (1.0 - n) * above);
    }
    out
}

/// Over 160 squares of 2 × 2 chunk columns scattered over 20 km of classic,
/// each biome's flowers and tall grass number what the patch rule
/// promises within 5σ, σ from the spread between squares (patches make
/// neighbouring columns agree, so a binomial σ would be too small). A rule
/// with half the share (the control) is refused by the same test.
#[test]
fn flower_and_grass_density_per_biome_is_what_the_patch_rule_promises() {
    let w = WorldGen::new(Preset::classic(), 42);
    let preset = Preset::classic();
    // Per square, per (biome, plant).
    let mut squares: Vec<BTreeMap<(usize, u32), Tally>> = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..160 {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let (x, z) = (((state >> 33) % 640) as i32 - 320, ((state >> 45) % 640) as i32 - 320);
        let a = Area::new(&w, ColumnPos { x, z }, 2);
        let mut tallies: BTreeMap<(usize, u32), Tally> = BTreeMap::new();
        for tz in 0..a.side {
            for tx in 0..a.side {
                let (wx, wz) = (a.x0 + tx, a.z0 + tz);
                let (_, b) = a.at(wx, wz);
                let listed = a.plants[(tz * a.side + tx) as usize] as u32;
                let control = promise(&w, &a, wx, wz, 0.5);
                for (what, e) in promise(&w, &a, wx, wz, 1.0) {
                    let t = tallies.entry((b, what)).or_default();
                    t.grown += (listed == what) as u32 as f64;
                    t.expected += e;
                    t.control += control.get(&what).copied().unwrap_or(0.0);
                    let plants = &w.params.deco.plants;
                    let slot = plants.patches[b][..plants.patch_count[b] as usize].iter().position(|l| l.what == what);
                    if let Some(k) = slot {
                        t.per_column += a.chances[a.index(wx, wz)][k] as f64 / PATCH_ONE as f64;
                    }
                }
            }
        }
        squares.push(tallies);
    }
    let mut keys: Vec<(usize, u32)> = squares.iter().flat_map(|s| s.keys().copied()).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut tested = 0;
    let mut report = Vec::new();
    // The controls over every pair: their residuals, and the variance.
    let (mut off, mut off_column, mut spread) = (0.0, 0.0, 0.0);
    let mut failed = Vec::new();
    for key in keys {
        let rows: Vec<Tally> = squares.iter().filter_map(|s| s.get(&key).copied()).collect();
        let (grown, expected, control, per_column): (f64, f64, f64, f64) = rows
            .iter()
            .fold((0.0, 0.0, 0.0, 0.0), |a, t| (a.0 + t.grown, a.1 + t.expected, a.2 + t.control, a.3 + t.per_column));
        if rows.len() < 8 || expected < 200.0 {
            continue;
        }
        // The spread of the squares' residuals gives the variance of the sum.
        let var: f64 = rows.iter().map(|t| (t.grown - t.expected).powi(2)).sum();
        let (z, z_control, z_column) =
            ((grown - expected) / var.sqrt(), (grown - control) / var.sqrt(), (grown - per_column) / var.sqrt());
        (off, off_column, spread) = (off + grown - control, off_column + grown - per_column, spread + var);
        let name = format!("{} {}", preset.biomes[key.0].name, BlockId(key.1 as u8).name());
        report.push(format!(
            "{name}: {grown} grown, {expected:.0} promised (z {z:.2}); half the share {control:.0} (z {z_control:.2}); \
             a chance per column {per_column:.0} (z {z_column:.1}); {} squares",
            rows.len()
        ));
        if z.abs() >= 5.0 {
            failed.push(format!("{name}: {grown} grown, {expected:.1} promised, z = {z:.2}"));
        }
        tested += 1;
    }
    println!("{}", report.join("\n"));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    let (z_control, z_column) = (off / spread.sqrt(), off_column / spread.sqrt());
    println!("every pair: half the share z = {z_control:.1}, a chance per column z = {z_column:.1}");
    assert!(z_control.abs() > 5.0, "the control rule (half the share) passed, z = {z_control:.2}");
    assert!(z_column.abs() > 5.0, "the rule before patches passed, z = {z_column:.2}");
    assert!(tested >= 6, "only {tested} (biome, plant) pairs had enough columns:\n{}", report.join("\n"));
}
