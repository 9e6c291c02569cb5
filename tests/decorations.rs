//! Trees, flowers and grass: seams, spacing, biome chances, and the
//! uniform-chunk shortcut, on the CPU path (the kernels are held equal to it
//! by tests/kernel_parity.rs).

use blockworld::backend::cpu::CpuBackend;
use blockworld::backend::ChunkBackend;
use blockworld::cli::region_hash::region_positions;
use blockworld::world::block::BlockId;
use blockworld::world::chunk::Chunk;
use blockworld::world::coords::{column_index, ChunkPos, ColumnPos};
use blockworld::worldgen::decorate::{self, ColumnDecorations, PlacedObject};
use blockworld::worldgen::heightmap::Lanes;
use blockworld::worldgen::params::{scaled_density, WorldParams, PATCH_ONE};
use blockworld::worldgen::patches::{chance_bits, patch_hash};
use blockworld::worldgen::placement::{candidate, least_block_distance, unit_squares, DENSITY_ONE};
use blockworld::worldgen::preset::{MAX_BIOMES, MAX_BIOME_LAYERS};
use blockworld::worldgen::{fill, Preset, WorldGen};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

const SEED: u64 = 42;

fn world() -> WorldGen {
    WorldGen::new(Preset::classic(), SEED)
}

/// A forest slope of seed 42 (see README, the forest screenshot).
fn forest_box() -> (ChunkPos, ChunkPos) {
    (ChunkPos::new(4, -1, -12), ChunkPos::new(9, 1, -7))
}

struct Blocks(HashMap<ChunkPos, Chunk>);

impl Blocks {
    fn new(chunks: Vec<Chunk>) -> Self {
        Blocks(chunks.into_iter().map(|c| (c.pos, c)).collect())
    }
    fn get(&self, b: [i64; 3]) -> Option<BlockId> {
        let c = self.0.get(&ChunkPos::containing(b))?;
        let l = |v: i64| v.rem_euclid(32) as usize;
        Some(c.blocks().get(l(b[0]), l(b[1]), l(b[2])))
    }
}

/// Every trunk standing on soil in `blocks` whose whole shape lies in it:
/// each position its shape fills above the terrain must hold something (its
/// leaves or another tree's), never air. (At or below a column's surface
/// the terrain wins, and a cave may have carved it.) Returns (trees
/// checked, cut trees).
fn check_whole_trees(w: &WorldGen, blocks: &Blocks) -> (usize, Vec<String>) {
    let p: &WorldParams = &w.params;
    let height = |x: i64, z: i64| {
        let col =
            w.column(blockworld::world::coords::ColumnPos { x: x.div_euclid(32) as i32, z: z.div_euclid(32) as i32 });
        col.heightmap.heights
            [blockworld::world::coords::column_index(x.rem_euclid(32) as usize, z.rem_euclid(32) as usize)]
            as i64
    };
    let mut checked = 0;
    let mut cut = Vec::new();
    let soil = BlockId(p.deco.trunk_soil_block as u8);
    let kinds = &p.deco.trees.kinds[..p.deco.trees.kind_count as usize];
    for (pos, chunk) in &blocks.0 {
        for z in 0..32i64 {
            for x in 0..32i64 {
                for ly in 0..32i64 {
                    let b = [pos.x as i64 * 32 + x, pos.y as i64 * 32 + ly, pos.z as i64 * 32 + z];
                    let here = chunk.blocks().get(x as usize, ly as usize, z as usize);
                    let log = kinds.iter().any(|k| k.trunk_block == here.0 as u32 && k.layer_count > 0);
                    if !log || blocks.get([b[0], b[1] - 1, b[2]]) != Some(soil) {
                        continue;
                    }
                    let mut trunk = 0;
                    while blocks.get([b[0], b[1] + trunk, b[2]]) == Some(here) {
                        trunk += 1;
                    }
                    // Its plan gives its kind and variant (lean, slimness);
                    // the blocks must show the planned trunk.
                    let plan = w.column(ColumnPos { x: b[0].div_euclid(32) as i32, z: b[2].div_euclid(32) as i32 });
                    let Some(tree) =
                        plan.decorations.trees.iter().find(|t| {
                            t.rock().is_none() && t.x as i64 == x && t.z as i64 == z && t.base as i64 == b[1]
                        })
                    else {
                        continue;
                    };
                    let kind = &kinds[tree.kind as usize];
                    if decorate::trunk_height(tree.shape) as i64 != trunk {
                        cut.push(format!("tree at {b:?}: a trunk of {trunk}, planned {}", tree.shape & 255));
                        continue;
                    }
                    let r = p.deco.trees.reach as i64;
                    let top = trunk - 1 + kind.crown as i64;
                    let mut missing = 0;
                    let mut inside = true;
                    for dy in 0..=top {
                        for dz in -r..=r {
                            for dx in -r..=r {
                                let want = decorate::tree_block_at(kind, tree.shape, dx as i32, dy as i32, dz as i32);
                                if want == 0 {
                                    continue;
                                }
                                match blocks.get([b[0] + dx, b[1] + dy, b[2] + dz]) {
                                    None => inside = false,
                                    Some(BlockId::AIR) if b[1] + dy > height(b[0] + dx, b[2] + dz) => missing += 1,
                                    Some(_) => {}
                                }
                            }
                        }
                    }
                    if inside {
                        checked += 1;
                        if missing > 0 {
                            cut.push(format!("tree at {b:?}: {missing} blocks of its shape are air"));
                        }
                    }
                }
            }
        }
    }
    (checked, cut)
}

#[test]
fn chunks_alone_in_random_order_equal_one_batch_and_no_tree_is_cut() {
    let (from, to) = forest_box();
    let mut positions = region_positions(from, to).unwrap();
    assert_eq!(positions.len(), 6 * 6 * 3);
    let batch = CpuBackend::parallel(Arc::new(world())).generate(&positions).unwrap();

    // A fixed shuffle (xorshift), each chunk from a fresh generator with no cache.
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    for i in (1..positions.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        positions.swap(i, (s % (i as u64 + 1)) as usize);
    }
    let alone: Vec<Chunk> = positions
        .iter()
        .map(|&p| WorldGen::with_options(Preset::classic(), SEED, Lanes::detect(), 0).generate(p))
        .collect();
    let alone: HashMap<ChunkPos, Chunk> = alone.into_iter().map(|c| (c.pos, c)).collect();
    for c in &batch {
        assert!(alone[&c.pos] == *c, "chunk {} differs between alone and batch", c.pos);
    }

    let w = world();
    let (checked, cut) = check_whole_trees(&w, &Blocks::new(batch));
    assert!(checked >= 40, "the forest box must hold whole trees ({checked})");
    assert!(cut.is_empty(), "{} of {checked} trees are cut:\n{}", cut.len(), cut.join("\n"));
}

/// Negative control: chunks that see only the trees of their own column
/// (no look across the border) cut the trees near borders, and the check
/// above finds them.
#[test]
fn without_looking_across_borders_trees_are_cut_and_the_check_sees_it() {
    let w = world();
    let (from, to) = forest_box();
    let chunks: Vec<Chunk> = region_positions(from, to)
        .unwrap()
        .into_iter()
        .map(|pos| {
            let data = w.column(pos.column());
            let own: Vec<PlacedObject> = data
                .decorations
                .trees
                .iter()
                .copied()
                .filter(|t| (0..32).contains(&t.x) && (0..32).contains(&t.z))
                .collect();
            let d = ColumnDecorations { trees: own, ..data.decorations.clone() };
            fill::fill(&w.params, pos, &data.heightmap, Some(&d))
        })
        .collect();
    let (_, cut) = check_whole_trees(&w, &Blocks::new(chunks));
    assert!(!cut.is_empty(), "border trees must show as cut");
}

/// A chunk the shortcut calls uniform air holds no decoration: generating
/// every chunk of the box densely (no shortcut) gives the same blocks, and
/// the box has chunks above all terrain that hold only tree tops.
#[test]
fn the_uniform_air_shortcut_accounts_for_tree_tops() {
    let w = world();
    let mut tops_only = 0;
    for pos in region_positions(ChunkPos::new(-2, 0, -14), ChunkPos::new(11, 1, -3)).unwrap() {
        let data = w.column(pos.column());
        let shortcut = w.generate(pos);
        let no_shortcut = ColumnDecorations { tree_top: i32::MAX, ..data.decorations.clone() };
        let dense = fill::fill(&w.params, pos, &data.heightmap, Some(&no_shortcut));
        assert!(shortcut == dense, "chunk {pos}: the shortcut changed its blocks");
        let y0 = pos.y as i64 * 32;
        if y0 > data.heightmap.max_height as i64 + 1 && dense.blocks().uniform().is_none() {
            tops_only += 1;
        }
    }
    assert!(tops_only > 0, "no chunk above the terrain holds tree tops: the test would not see a wrong shortcut");
}

/// Trees from the plans of many columns, in world coordinates; a tree seen
/// by several columns must be the same tree in each.
fn trees_of_area(
    w: &WorldGen,
    cols: std::ops::Range<i32>,
    rows: std::ops::Range<i32>,
) -> Vec<([i64; 2], PlacedObject)> {
    let mut seen: HashMap<[i64; 2], PlacedObject> = HashMap::new();
    for cz in rows {
        for cx in cols.clone() {
            let data = w.column(ColumnPos { x: cx, z: cz });
            for t in data.decorations.trees.iter().filter(|t| t.rock().is_none()) {
                let at = [cx as i64 * 32 + t.x as i64, cz as i64 * 32 + t.z as i64];
                let world_tree = PlacedObject { x: 0, z: 0, ..*t };
                if let Some(prev) = seen.insert(at, world_tree) {
                    assert_eq!(prev, world_tree, "two columns disagree about the tree at {at:?}");
                }
            }
        }
    }
    seen.into_iter().collect()
}

#[test]
fn trunks_keep_their_spacing_across_chunk_borders() {
    let w = world();
    let trees = trees_of_area(&w, 2..12, -14..-4);
    assert!(trees.len() > 150, "{} trees", trees.len());
    let least = least_block_distance(w.params.deco.trees.unit as i64);
    let mut closest = f64::MAX;
    for (i, (a, _)) in trees.iter().enumerate() {
        for (b, _) in &trees[i + 1..] {
            let d = (((a[0] - b[0]).pow(2) + (a[1] - b[1]).pow(2)) as f64).sqrt();
            closest = closest.min(d);
        }
    }
    assert!(closest >= least, "two trunks {closest:.2} blocks apart, below the footprint {least:.2}");
    // Trunks never touch, not even diagonally.
    assert!(closest >= 2.0, "closest trunks {closest:.2}");
}

/// Names of the biomes with trees and with plants.
fn decorating(p: &WorldParams, preset: &Preset) -> (HashSet<String>, HashSet<String>) {
    let names = |counts: &[u32; 16]| {
        preset.biomes.iter().enumerate().filter(|(i, _)| counts[*i] > 0).map(|(_, b)| b.name.clone()).collect()
    };
    (names(&p.deco.trees.biome_count), names(&p.deco.plants.biome_count))
}

/// The chance that a candidate of biome `b` grows some tree, its layers'
/// densities scaled by `factor` (the biome's density map there).
fn scaled_total(p: &WorldParams, b: usize, factor: f32) -> f64 {
    let n = p.deco.trees.biome_count[b] as usize;
    let sum: u32 = p.deco.trees.biome_layers[b][..n].iter().map(|l| scaled_density(l.density, factor)).sum();
    sum as f64 / DENSITY_ONE as f64
}

/// Density maps: in each biome that has one, eligible candidates binned by
/// the map's factor grow as many trees as the scaled chances predict,
/// within 5σ (the per-layer acceptance test); the sparsest bin is a
/// clearing and the densest a grove; and over the area each biome keeps its
/// listed (the founding game's) chance within 10 %.
#[test]
fn density_maps_make_groves_and_clearings_at_the_listed_average() {
    let w = world();
    let p = &*w.params;
    let preset = Preset::classic();
    let unit = p.deco.trees.unit as i64;
    let (x0, z0, span) = (-5000i64, 2000i64, 6000i64);
    const BINS: [f32; 3] = [0.5, 1.5, f32::INFINITY];
    // Per biome and bin: (eligible, grown, expected, variance), and the
    // same per layer (tree kind) of the biome.
    type Row = (u64, u64, f64, f64);
    let mut bins: HashMap<usize, [(Row, [Row; MAX_BIOME_LAYERS]); 3]> = HashMap::new();
    for gz in unit_squares(unit, z0, z0 + span).step_by(2) {
        for gx in unit_squares(unit, x0, x0 + span).step_by(2) {
            let c = candidate(&p.deco.pattern, &p.deco.bayer, SEED, unit, gx, gz);
            let f = decorate::footing(&w.program, p, w.lanes, c.x, c.z);
            let b = f.biome as usize;
            if p.deco.trees.biome_map[b].node >= p.terrain.node_count || p.deco.trees.biome_count[b] == 0 {
                continue;
            }
            let kind = &p.deco.trees.kinds[p.deco.trees.biome_layers[b][0].what as usize];
            let surface = if f.height > p.surface.snow_above { p.surface.snow_block } else { p.surface.top[b] };
            if f.height < p.surface.water_level || kind.on_mask >> surface & 1 == 0 || f.slope > p.deco.trees.max_slope
            {
                continue;
            }
            let grown = decorate::tree_at(p, c.threshold, c.variant, f).map(|(kind, _)| kind);
            let (e, layers) = &mut bins.entry(b).or_default()[BINS.iter().position(|&t| f.density < t).unwrap_or(2)];
            let q = scaled_total(p, b, f.density);
            *e = (e.0 + 1, e.1 + grown.is_some() as u64, e.2 + q, e.3 + q * (1.0 - q));
            for (layer, r) in
                p.deco.trees.biome_layers[b][..p.deco.trees.biome_count[b] as usize].iter().zip(layers.iter_mut())
            {
                let q = scaled_density(layer.density, f.density) as f64 / DENSITY_ONE as f64;
                *r = (r.0 + 1, r.1 + (grown == Some(layer.what)) as u64, r.2 + q, r.3 + q * (1.0 - q));
            }
        }
    }
    let mut tested = 0;
    for (b, rows) in &bins {
        let name = &preset.biomes[*b].name;
        let listed = scaled_total(p, *b, 1.0);
        let eligible: u64 = rows.iter().map(|r| r.0 .0).sum();
        if eligible < 2000 || rows.iter().any(|r| r.0 .0 < 200) {
            continue;
        }
        for (i, (total, layers)) in rows.iter().enumerate() {
            for (what, (n, grown, expected, variance)) in
                std::iter::once(("all", total)).chain(layers.iter().map(|l| ("a layer", l)))
            {
                let sigma = variance.sqrt();
                assert!(
                    (*grown as f64 - expected).abs() <= 5.0 * sigma + 2.0,
                    "{name}, factor bin {i}, {what}: {grown} trees on {n} candidates, expected {expected:.1} ± {sigma:.1}"
                );
            }
        }
        let rate = |r: &Row| r.1 as f64 / r.0 as f64 / listed;
        assert!(rate(&rows[0].0) < 0.5, "{name}: no clearings (sparsest bin at {:.2}× the chance)", rate(&rows[0].0));
        assert!(rate(&rows[2].0) > 1.5, "{name}: no groves (densest bin at {:.2}× the chance)", rate(&rows[2].0));
        let grown: u64 = rows.iter().map(|r| r.0 .1).sum();
        let average = grown as f64 / eligible as f64 / listed;
        println!(
            "{name}: {eligible} candidates; clearings {:.2}×, middle {:.2}×, groves {:.2}× the listed chance; {average:.3}× on average",
            rate(&rows[0].0),
            rate(&rows[1].0),
            rate(&rows[2].0)
        );
        assert!((0.9..=1.1).contains(&average), "{name}: {average:.3}× the listed chance on average");
        tested += 1;
    }
    assert!(tested >= 3, "only {tested} biomes with density maps had enough candidates: {:?}", bins.keys());
}

/// Over a large area, the share of eligible candidates (dry, the right
/// surface, not too steep) that grow a tree is each biome's chance × the
/// candidate spacing², within binomial tolerance; biomes without trees have
/// none. Plants likewise per layer, over the columns its window and
/// surfaces admit (shore reeds and lily pads on shallow water included).
#[test]
fn each_biome_grows_its_chance() {
    let w = world();
    let p = &*w.params;
    let preset = Preset::classic();
    let (tree_biomes, plant_biomes) = decorating(p, &preset);
    let unit = p.deco.trees.unit as i64;
    let (x0, z0, span) = (-3000i64, -3000i64, 6000i64);

    // Trees: per biome, (eligible candidates, grown, expected, variance):
    // each candidate grows with the chance its biome's density map gives it.
    let mut trees: HashMap<u32, (u64, u64, f64, f64)> = HashMap::new();
    let mut grown_in: HashSet<String> = HashSet::new();
    for gz in unit_squares(unit, z0, z0 + span).step_by(3) {
        for gx in unit_squares(unit, x0, x0 + span).step_by(3) {
            let c = candidate(&p.deco.pattern, &p.deco.bayer, SEED, unit, gx, gz);
            let f = decorate::footing(&w.program, p, w.lanes, c.x, c.z);
            let b = f.biome as usize;
            let n = p.deco.trees.biome_count[b] as usize;
            let grown = decorate::tree_at(p, c.threshold, c.variant, f).is_some();
            if grown {
                grown_in.insert(preset.biomes[b].name.clone());
            }
            // Eligible: the rules pass for the biome's first tree kind (all
            // kinds of one biome share their surfaces in the classic data).
            if n == 0 {
                continue;
            }
            let kind = &p.deco.trees.kinds[p.deco.trees.biome_layers[b][0].what as usize];
            let surface = if f.height > p.surface.snow_above { p.surface.snow_block } else { p.surface.top[b] };
            let eligible = f.height >= p.surface.water_level
                && kind.on_mask >> surface & 1 == 1
                && f.slope <= p.deco.trees.max_slope;
            if eligible {
                let q = scaled_total(p, b, f.density);
                let e = trees.entry(b as u32).or_default();
                e.0 += 1;
                e.1 += grown as u64;
                e.2 += q;
                e.3 += q * (1.0 - q);
            } else {
                assert!(!grown, "a tree grew where the rules forbid it");
            }
        }
    }
    assert!(grown_in.is_subset(&tree_biomes), "trees in biomes without trees: {grown_in:?}");
    let mut tested = 0;
    for (b, (eligible, grown, expected, variance)) in &trees {
        if *eligible < 400 {
            continue;
        }
        let sigma = variance.sqrt();
        let name = &preset.biomes[*b as usize].name;
        assert!(
            (*grown as f64 - expected).abs() <= 5.0 * sigma + 2.0,
            "{name}: {grown} trees on {eligible} eligible candidates, expected {expected:.1} ± {sigma:.1}"
        );
        tested += 1;
    }
    assert!(tested >= 4, "only {tested} tree biomes had enough candidates");

    // Plants: per (biome, layer), (eligible columns, plants of the layer,
    // expected, variance). A layer's window and surfaces decide where it
    // may grow; where one may, it takes its own share of the candidate
    // thresholds, scaled by its density map there.
    let mut plants: HashMap<(usize, usize), (u64, u64, f64, f64)> = HashMap::new();
    for cz in (-96..96).step_by(6) {
        for cx in (-96..96).step_by(6) {
            let hm = w.compute_heightmap(ColumnPos { x: cx, z: cz });
            for z in 0..32 {
                for x in 0..32 {
                    let c = column_index(x, z);
                    let (h, b) = (hm.heights[c], hm.biomes[c] as usize);
                    let (wx, wz) = (cx as i64 * 32 + x as i64, cz as i64 * 32 + z as i64);
                    let col = ColumnPos { x: cx, z: cz };
                    let surface = decorate::Surface { program: &w.program, params: p, lanes: w.lanes, col, hm: &hm };
                    let height = |x, z| surface.height(x, z, true).expect("sampled");
                    let plant = decorate::plant_at(&w.program, p, wx, wz, h, b, &|x, z, _| Some(height(x, z)));
                    let n = p.deco.plants.biome_count[b] as usize;
                    if n == 0 {
                        assert_eq!(plant, 0, "a plant in {}", preset.biomes[b].name);
                        continue;
                    }
                    let surface = if h > p.surface.snow_above { p.surface.snow_block } else { p.surface.top[b] };
                    let mut allowed = false;
                    for (l, layer) in p.deco.plants.biome_layers[b][..n].iter().enumerate() {
                        let d = h as i64 - p.surface.water_level as i64;
                        let window = (layer.above_water[0] as i64..=layer.above_water[1] as i64).contains(&d);
                        let r = p.deco.plants.shore[b][l] as i64;
                        let wet = h < p.surface.water_level;
                        // Within r in x plus z: reach 1 is the four sides.
                        let shore = r == 0
                            || (-r..=r).any(|dz| {
                                let half = r - dz.abs();
                                (-half..=half).any(|dx| (height(wx + dx, wz + dz) < p.surface.water_level) != wet)
                            });
                        if window && shore && layer.on_mask >> surface & 1 == 1 {
                            let factor =
                                w.program.density_factor(&p.deco.plants.layer_maps[b][l], wx as f32, wz as f32);
                            let q = scaled_density(layer.density, factor) as f64 / DENSITY_ONE as f64;
                            let e = plants.entry((b, l)).or_default();
                            *e = (e.0 + 1, e.1 + (plant == layer.what) as u64, e.2 + q, e.3 + q * (1.0 - q));
                            allowed |= plant == layer.what;
                        }
                    }
                    assert!(plant == 0 || allowed, "{} where the rules forbid it", BlockId(plant as u8).name());
                }
            }
        }
    }
    let mut tested = HashSet::new();
    for (&(b, l), &(eligible, grown, expected, variance)) in &plants {
        if eligible < 2_000 {
            continue;
        }
        let layer = p.deco.plants.biome_layers[b][l];
        let sigma = variance.sqrt();
        let name = &preset.biomes[b].name;
        assert!(plant_biomes.contains(name));
        let what = BlockId(layer.what as u8).name();
        assert!(
            (grown as f64 - expected).abs() <= 5.0 * sigma + 2.0,
            "{name}, {what}: {grown} on {eligible} eligible columns, expected {expected:.1} ± {sigma:.1}"
        );
        tested.insert(what);
    }
    // Flowers and tall grass grow in patches: tests/patches.rs.
    for what in ["reeds", "lily_pad"] {
        assert!(tested.contains(what), "no biome had enough columns to test {what}: {tested:?}");
    }
}

/// Meadows: flowers follow their density map. Flowers grow in patches
/// (tests/patches.rs checks the patches themselves); here their centres.
/// Over a large area, in each biome with flowers, columns binned by a
/// flower layer's factor are as many centres as the scaled chance
/// predicts, within 5σ; the lowest bin has none and the highest several
/// times the listed chance, and over the area each layer keeps its listed
/// (the founding game's) chance within 10 %. Roses and buttercups gather
/// in different places.
#[test]
fn meadows_gather_flowers_at_the_listed_average() {
    let w = world();
    let p = &*w.params;
    let preset = Preset::classic();
    let (rose, buttercup) = ["rose", "buttercup"].map(|n| BlockId::by_name(n).expect("registered").0 as u32).into();
    const BINS: [f32; 3] = [0.25, 8.0, f32::INFINITY];
    // Per (biome, slot) and factor bin: (eligible, centres, expected, variance).
    type Row = (u64, u64, f64, f64);
    let mut bins: HashMap<(usize, usize), [Row; 3]> = HashMap::new();
    // Columns where both flowers' factors are above 1: rose and buttercup
    // meadows overlapping.
    let (mut both, mut either) = (0u64, 0u64);
    // Single columns on a 13-block grid over 12 km: meadows are about 40
    // blocks across, so the sample spans thousands of them per biome.
    for wz in (-6000i64..6000).step_by(13) {
        for wx in (-6000i64..6000).step_by(13) {
            let f = decorate::footing(&w.program, p, w.lanes, wx, wz);
            let b = f.biome as usize % MAX_BIOMES;
            let n = p.deco.plants.patch_count[b] as usize;
            let mut high = [false; 2];
            for (k, layer) in p.deco.plants.patches[b][..n].iter().enumerate() {
                let flower = [rose, buttercup].iter().position(|&f| f == layer.what);
                let map = &layer.map;
                if flower.is_none() {
                    continue;
                }
                assert!(map.node < p.terrain.node_count, "{}: flowers without a map", preset.biomes[b].name);
                let factor = w.program.density_factor(map, wx as f32, wz as f32);
                high[flower.unwrap_or(0)] = factor > 1.0;
                let chance = scaled_density(layer.chance, factor);
                let centre = chance_bits(patch_hash(p.deco.seed(), wx, wz, k)) < chance;
                let q = chance as f64 / PATCH_ONE as f64;
                let r = &mut bins.entry((b, k)).or_default()[BINS.iter().position(|&t| factor < t).unwrap_or(2)];
                *r = (r.0 + 1, r.1 + centre as u64, r.2 + q, r.3 + q * (1.0 - q));
            }
            both += (high[0] && high[1]) as u64;
            either += (high[0] || high[1]) as u64;
        }
    }
    let (mut tested, mut contrasted) = (0, 0);
    for (&(b, k), rows) in &bins {
        let layer = p.deco.plants.patches[b][k];
        let name = format!("{}, {}", preset.biomes[b].name, BlockId(layer.what as u8).name());
        let eligible: u64 = rows.iter().map(|r| r.0).sum();
        if eligible < 20_000 || rows.iter().any(|r| r.0 < 300) {
            continue;
        }
        for (i, (n, grown, expected, variance)) in rows.iter().enumerate() {
            let sigma = variance.sqrt();
            assert!(
                (*grown as f64 - expected).abs() <= 5.0 * sigma + 2.0,
                "{name}, factor bin {i}: {grown} on {n} columns, expected {expected:.1} ± {sigma:.1}"
            );
        }
        let listed = layer.chance as f64 / PATCH_ONE as f64;
        let rate = |r: &Row| r.1 as f64 / r.0 as f64 / listed;
        let grown: u64 = rows.iter().map(|r| r.1).sum();
        // The map's mean factor over the biome: the chance a column has on
        // average, free of the flowers' own sampling noise.
        let average = rows.iter().map(|r| r.2).sum::<f64>() / eligible as f64 / listed;
        println!(
            "{name}: {eligible} columns, {grown} patch centres; {:.2}× the listed chance outside meadows, {:.2}× at their edges, {:.2}× in them; {average:.3}× on average ({:.3}× counted); {:.0} % of columns in meadows",
            rate(&rows[0]),
            rate(&rows[1]),
            rate(&rows[2]),
            grown as f64 / eligible as f64 / listed,
            100.0 * rows[2].0 as f64 / eligible as f64
        );
        assert_eq!(rows[0].1, 0, "{name}: patches where the map is 0");
        // Rare flowers (a few dozen in the sample) cannot show the contrast.
        if rows[2].2 >= 25.0 {
            assert!(rate(&rows[2]) > 3.0, "{name}: no meadows (densest bin at {:.2}× the chance)", rate(&rows[2]));
            contrasted += 1;
        }
        assert!((0.9..=1.1).contains(&average), "{name}: {average:.3}× the listed chance on average");
        tested += 1;
    }
    assert!(tested >= 6, "only {tested} flower layers had enough columns: {:?}", bins.keys());
    assert!(contrasted >= 4, "only {contrasted} flower layers had enough flowers to show meadows");
    println!("columns where both flowers are above their chance: {both} of {either} where either is");
    assert!(both * 10 < either, "roses and buttercups share their meadows: {both} of {either}");
}

/// Each kind comes in variants from its candidate's hash: over a forest
/// area, crowns lean each of the four ways or stand straight, about half
/// lean and a quarter are slim (within 5σ), and a leaning crown is the
/// straight one with its top layers moved a block, no leaf lost.
#[test]
fn trees_come_in_shape_variants() {
    let w = world();
    let trees = trees_of_area(&w, 2..12, -14..-4);
    let n = trees.len() as f64;
    let leaning: Vec<u32> = trees.iter().map(|(_, t)| t.shape).filter(|s| s >> 10 & 1 == 1).collect();
    let ways: HashSet<u32> = leaning.iter().map(|s| s >> 8 & 3).collect();
    assert_eq!(ways.len(), 4, "crowns lean every way");
    let slim = trees.iter().filter(|(_, t)| t.shape >> 11 & 1 == 1).count() as f64;
    for (what, count, q) in [("leaning", leaning.len() as f64, 0.5), ("slim", slim, 0.25)] {
        let sigma = (n * q * (1.0 - q)).sqrt();
        assert!(
            (count - n * q).abs() <= 5.0 * sigma,
            "{count} {what} of {n} trees, expected {:.0} ± {sigma:.1}",
            n * q
        );
    }
    let oak = &w.params.deco.trees.kinds[0];
    let straight = decorate::tree_shape(5, 0);
    let blocks = |shape: u32| {
        let mut v = Vec::new();
        for dy in 0..12 {
            for dz in -3..=3 {
                for dx in -3..=3 {
                    if decorate::tree_block_at(oak, shape, dx, dy, dz) != 0 {
                        v.push((dx, dy, dz));
                    }
                }
            }
        }
        v
    };
    for way in 0..4u32 {
        let lean = straight | way << 8 | 1 << 10;
        assert_ne!(blocks(lean), blocks(straight), "way {way}");
        assert_eq!(blocks(lean).len(), blocks(straight).len(), "way {way}: the same leaves, moved");
    }
}

/// The fill visits a tree layer by layer ([`decorate::tree_layer_blocks`]);
/// the kernels ask block by block ([`decorate::tree_block_at`]). Both give
/// the same blocks, the trunk winning where a layer covers it, for every
/// classic kind, trunk height and variant.
#[test]
fn a_tree_visited_by_layer_equals_it_asked_by_block() {
    let w = world();
    let p = &*w.params;
    let key = |id: u32| decorate::claim_key(p, id);
    let mut compared = 0;
    for kind in &p.deco.trees.kinds[..p.deco.trees.kind_count as usize] {
        for trunk in kind.trunk_min..=kind.trunk_min + kind.trunk_span {
            for variant in 0..16u64 {
                let shape = decorate::tree_shape(trunk, variant << 48);
                for dy in -2..40 {
                    let mut by_layer: HashMap<(i32, i32), u32> = HashMap::new();
                    decorate::tree_layer_blocks(kind, shape, dy, |dx, dz, id| {
                        let e = by_layer.entry((dx, dz)).or_insert(0);
                        if key(id) > key(*e) {
                            *e = id;
                        }
                    });
                    for dz in -4..=4 {
                        for dx in -4..=4 {
                            let want = decorate::tree_block_at(kind, shape, dx, dy, dz);
                            let got = by_layer.get(&(dx, dz)).copied().unwrap_or(0);
                            assert_eq!(got, want, "kind {}, shape {shape:#x}, at {dx},{dy},{dz}", kind.trunk_block);
                            compared += (want != 0) as usize;
                        }
                    }
                }
            }
        }
    }
    assert!(compared > 10_000, "{compared} blocks compared");
}

/// The share of the reeds' columns that have a column across the water
/// line (dry land for a reed in the water, water for one on the sand)
/// within `r` blocks in x plus z (r = 1: on one of its four sides; 2),
/// over the sample of
/// `each_biome_grows_its_chance`, counting only columns at least 2 blocks
/// inside their chunk so that every neighbour looked at is in the same
/// heightmap.
fn reeds_at_the_edge(w: &WorldGen) -> [f64; 2] {
    let p = &*w.params;
    let reeds = BlockId::by_name("reeds").expect("reeds are registered").0 as u32;
    let (mut all, mut near) = (0u64, [0u64; 2]);
    for cz in (-96..96).step_by(6) {
        for cx in (-96..96).step_by(6) {
            let col = ColumnPos { x: cx, z: cz };
            let hm = w.compute_heightmap(col);
            let surface = decorate::Surface { program: &w.program, params: p, lanes: w.lanes, col, hm: &hm };
            let height = &surface;
            for z in 2..30i32 {
                for x in 2..30i32 {
                    let (h, b) = (
                        hm.heights[column_index(x as usize, z as usize)],
                        hm.biomes[column_index(x as usize, z as usize)],
                    );
                    let (wx, wz) = (cx as i64 * 32 + x as i64, cz as i64 * 32 + z as i64);
                    if decorate::plant_at(&w.program, p, wx, wz, h, b as usize, height) != reeds {
                        continue;
                    }
                    all += 1;
                    let wet = h < p.surface.water_level;
                    for (k, r) in [1i32, 2].into_iter().enumerate() {
                        let across = (-r..=r).any(|dz| {
                            let half = r - dz.abs();
                            (-half..=half).any(|dx| {
                                let n = hm.heights[column_index((x + dx) as usize, (z + dz) as usize)];
                                (n < p.surface.water_level) != wet
                            })
                        });
                        near[k] += across as u64;
                    }
                }
            }
        }
    }
    assert!(all > 1_000, "only {all} reeds in the sample");
    near.map(|n| n as f64 / all as f64)
}

/// Reeds grow at the water's edge: in a block of water beside the land, or
/// on the sand beside the water (`shore: 1`: on one of its four sides,
/// not only across a corner), every one of them (the
/// figures in docs/worldgen.md, "Shores"). The same layer without its
/// shore reach (the negative control) grows over the flats as well.
#[test]
fn reeds_stand_at_the_waters_edge() {
    let shares = reeds_at_the_edge(&world());
    println!(
        "reeds across the water line within 1 block: {:.1} %, within 2: {:.1} %",
        100.0 * shares[0],
        100.0 * shares[1]
    );
    assert_eq!(shares[0], 1.0, "a reed away from the water's edge");

    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/worldgen/classic.ron"))
        .expect("classic.ron is readable");
    let anywhere = text.replacen(", shore: 1", "", 1);
    assert_ne!(anywhere, text, "the control finds the reeds' shore reach");
    let preset = Preset::parse(&anywhere, "classic, reeds anywhere").expect("the control preset is valid");
    let control = reeds_at_the_edge(&WorldGen::new(preset, SEED));
    println!("without the reach: {:.1} %, within 2: {:.1} %", 100.0 * control[0], 100.0 * control[1]);
    assert!(control[0] < 0.8, "reeds without a shore reach are as near the edge: {control:?}");
}

/// The shore's samples beyond a chunk column take two columns a sample;
/// each must get the height its own footing gives, on every lane kind,
/// over hills, coasts and far coordinates.
#[test]
fn two_columns_in_one_sample_have_their_footing_heights() {
    let w = world();
    let p = &*w.params;
    let mut differ = 0;
    for lanes in [Lanes::Scalar, w.lanes] {
        for i in 0..1500i64 {
            let a = (i * 7919 % 20011 - 10005, i * 104_729 % 30011 - 15005);
            let b = (a.0 + (i % 5) - 2, a.1 * 3 + 1_000_003 * (i % 3));
            let got = decorate::footing_heights(&w.program, p, lanes, [a, b]);
            let want = [a, b].map(|(x, z)| decorate::footing(&w.program, p, lanes, x, z).height);
            differ += (got != want) as usize;
        }
    }
    assert_eq!(differ, 0, "{differ} pairs differ from their footings");
}

/// A plan reads the footings inside its chunk column, and the diagonal
/// samples of shore columns just beyond it, from the apron its heightmap
/// was smoothed from. Sampling everything anew gives the same plan: on
/// coasts (reeds), in forests and on rocky land.
#[test]
fn reading_the_apron_changes_no_plan() {
    let reeds = BlockId::by_name("reeds").expect("reeds are registered").0;
    let mut edge_reeds = 0;
    for name in ["classic", "foothills", "alpine"] {
        let w = WorldGen::new(Preset::load(name).expect("bundled"), SEED);
        let (mut trees, mut plants, mut columns) = (0usize, 0usize, 0usize);
        for cz in (-60..60).step_by(7) {
            for cx in (-60..60).step_by(7) {
                let col = ColumnPos { x: cx, z: cz };
                let (hm, apron) = w.compute_heightmap_with_apron(col);
                assert_eq!(hm, w.compute_heightmap(col));
                let read = w.plan_decorations(col, &hm, Some(&apron));
                let sampled = w.plan_decorations(col, &hm, None);
                assert_eq!(read, sampled, "{name}: column {cx}, {cz}");
                // Plant by plant, each shore column sampled where it is asked.
                let p = &*w.params;
                let surface = decorate::Surface { program: &w.program, params: p, lanes: w.lanes, col, hm: &hm };
                let one_by_one: Vec<(u8, u8, u8)> = (0..32)
                    .flat_map(|z| (0..32).map(move |x| (x, z)))
                    .filter_map(|(x, z)| {
                        let c = column_index(x, z);
                        let (wx, wz) = (cx as i64 * 32 + x as i64, cz as i64 * 32 + z as i64);
                        let b = hm.biomes[c] as usize;
                        let plant = decorate::plant_at(&w.program, p, wx, wz, hm.heights[c], b, &surface);
                        (plant != 0).then_some((x as u8, z as u8, plant as u8))
                    })
                    .collect();
                // Flowers and grass grow in patches (tests/patches.rs).
                let patch_plants: Vec<u8> =
                    p.deco.plants.patches.iter().flatten().filter(|l| l.chance > 0).map(|l| l.what as u8).collect();
                let planned: Vec<(u8, u8, u8)> = read
                    .plants
                    .iter()
                    .map(|pl| (pl.x, pl.z, pl.block))
                    .filter(|(_, _, b)| !patch_plants.contains(b))
                    .collect();
                assert_eq!(planned, one_by_one, "{name}: plants of column {cx}, {cz}");
                let edge = |v: u8| !(2..30).contains(&v);
                edge_reeds += planned.iter().filter(|&&(x, z, b)| b == reeds && (edge(x) || edge(z))).count();
                trees += read.trees.len();
                plants += read.plants.len();
                columns += 1;
            }
        }
        assert!(trees > columns / 2 && plants > columns, "{name}: {trees} objects, {plants} plants");
    }
    // Reeds within the shore reach of the chunk column's edge: settled by
    // the columns beyond it.
    assert!(edge_reeds > 20, "only {edge_reeds} reeds by the edge");
}
