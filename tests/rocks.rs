//! Rocks: their chance per biome, their overlaps with trees settled the
//! same whatever the order (with a negative control that is not), no rock
//! through a trunk (with one that is), and seams, on the CPU path (the
//! kernels are held equal to it by tests/kernel_parity.rs).

use blockworld::backend::cpu::CpuBackend;
use blockworld::backend::ChunkBackend;
use blockworld::cli::region_hash::region_positions;
use blockworld::world::block::BlockId;
use blockworld::world::chunk::Chunk;
use blockworld::world::coords::{ChunkPos, ColumnPos};
use blockworld::worldgen::decorate::{self, ColumnDecorations, PlacedObject, ROCK_KIND};
use blockworld::worldgen::heightmap::Lanes;
use blockworld::worldgen::placement::{candidate, candidates, unit_squares, DENSITY_ONE};
use blockworld::worldgen::{fill, Preset, WorldGen};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

const SEED: u64 = 42;

fn world() -> WorldGen {
    WorldGen::new(Preset::classic(), SEED)
}

/// Forest and woodland of seed 42, thick with trees and mossy boulders, in
/// chunk columns.
const COLS: std::ops::Range<i32> = 2..12;
const ROWS: std::ops::Range<i32> = -14..-4;

/// A settled object in world coordinates: a trunk, or a rock's centre and
/// its radii (x, y, z).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Object {
    Tree([i64; 2]),
    Rock([i64; 2], (i32, i32, i32)),
}

impl Object {
    fn at(&self) -> [i64; 2] {
        match *self {
            Object::Tree(a) | Object::Rock(a, _) => a,
        }
    }
    /// The square it keeps for itself: a trunk its column, a rock its
    /// footprint grown by one.
    fn reach(&self) -> (i64, i64) {
        match *self {
            Object::Tree(_) => (0, 0),
            Object::Rock(_, r) => (r.0 as i64 + 1, r.2 as i64 + 1),
        }
    }
    fn meets(&self, o: &Object) -> bool {
        let (a, b) = (self.at(), o.at());
        let (ra, rb) = (self.reach(), o.reach());
        (a[0] - b[0]).abs() <= ra.0 + rb.0 && (a[1] - b[1]).abs() <= ra.1 + rb.1
    }
}

/// Every tree and rock the rules accept in the block rectangle, before any
/// settling of overlaps.
fn accepted(w: &WorldGen, lo: (i64, i64), hi: (i64, i64)) -> Vec<Object> {
    let p = &*w.params;
    let mut out = Vec::new();
    for c in candidates(&p.deco.pattern, &p.deco.bayer, p.deco.seed(), p.deco.trees.unit as i64, lo, hi) {
        if decorate::accepted_tree(&w.program, p, w.lanes, c).is_some() {
            out.push(Object::Tree([c.x, c.z]));
        }
    }
    for c in candidates(&p.deco.pattern, &p.deco.bayer, p.deco.rocks.seed(), p.deco.rocks.unit as i64, lo, hi) {
        let f = decorate::footing(&w.program, p, w.lanes, c.x, c.z);
        if let Some((_, shape)) = decorate::rock_at(p, c.threshold, c.variant, f) {
            out.push(Object::Rock([c.x, c.z], decorate::rock_radii(shape)));
        }
    }
    out
}

/// The objects of the column plans over the area, in world coordinates.
/// Columns that see one object must agree on it.
fn planned(w: &WorldGen) -> BTreeSet<Object> {
    let mut seen: HashMap<[i64; 2], PlacedObject> = HashMap::new();
    for cz in ROWS {
        for cx in COLS {
            for t in &w.column(ColumnPos { x: cx, z: cz }).decorations.trees {
                let at = [cx as i64 * 32 + t.x as i64, cz as i64 * 32 + t.z as i64];
                let o = PlacedObject { x: 0, z: 0, ..*t };
                if let Some(prev) = seen.insert(at, o) {
                    assert_eq!(prev, o, "two columns disagree about the object at {at:?}");
                }
            }
        }
    }
    seen.into_iter()
        .map(|(at, t)| match t.rock() {
            Some(_) => Object::Rock(at, decorate::rock_radii(t.shape)),
            None => Object::Tree(at),
        })
        .collect()
}

/// The two ways to settle overlaps between footprints.
#[derive(Clone, Copy)]
enum Rule {
    /// blockworld's: a rock yields to any accepted tree it meets; trees
    /// never yield, so no decision depends on another.
    RockYieldsToTrees,
    /// Negative control: first come, first kept; an object yields to any
    /// object kept before it.
    FirstComeFirstKept,
}

fn settle(objects: &[Object], rule: Rule) -> BTreeSet<Object> {
    let mut kept: Vec<Object> = Vec::new();
    for o in objects {
        let keep = match rule {
            Rule::RockYieldsToTrees => {
                matches!(o, Object::Tree(_)) || !objects.iter().any(|t| matches!(t, Object::Tree(_)) && o.meets(t))
            }
            Rule::FirstComeFirstKept => !kept.iter().any(|k| k.meets(o)),
        };
        if keep {
            kept.push(*o);
        }
    }
    kept.into_iter().collect()
}

/// A fixed shuffle (xorshift) of `v` under `seed`.
fn shuffled<T: Clone>(v: &[T], seed: u64) -> Vec<T> {
    let mut v = v.to_vec();
    let mut s = seed | 1;
    for i in (1..v.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.swap(i, (s % (i as u64 + 1)) as usize);
    }
    v
}

fn inside(o: &Object, lo: (i64, i64), hi: (i64, i64)) -> bool {
    let a = o.at();
    (lo.0..hi.0).contains(&a[0]) && (lo.1..hi.1).contains(&a[1])
}

/// The column plans hold exactly the objects that settling every accepted
/// candidate by blockworld's rule leaves, and that rule leaves the same set
/// in every order; the first-come rule, given the same candidates in the
/// same orders, does not (the negative control: the order test can fail).
#[test]
fn rocks_yield_to_trees_the_same_in_any_order() {
    let w = world();
    let (lo, hi) = ((COLS.start as i64 * 32, ROWS.start as i64 * 32), (COLS.end as i64 * 32, ROWS.end as i64 * 32));
    // Candidates from a margin around the area, so objects inside see all
    // their neighbours; compared only inside, less the plans' reach.
    let m = 16;
    let all = accepted(&w, (lo.0 - m, lo.1 - m), (hi.0 + m, hi.1 + m));
    let (inner_lo, inner_hi) = ((lo.0 + m, lo.1 + m), (hi.0 - m, hi.1 - m));
    let keep_inner =
        |s: BTreeSet<Object>| -> BTreeSet<Object> { s.into_iter().filter(|o| inside(o, inner_lo, inner_hi)).collect() };

    let rocks = all.iter().filter(|o| matches!(o, Object::Rock(..))).count();
    let plan = keep_inner(planned(&w));
    let plan_rocks = plan.iter().filter(|o| matches!(o, Object::Rock(..))).count();
    assert!(plan_rocks >= 10, "the area must hold rocks ({plan_rocks} planned of {rocks} accepted)");
    let yielded = rocks
        - all
            .iter()
            .filter(|o| matches!(o, Object::Rock(..)) && settle(&all, Rule::RockYieldsToTrees).contains(o))
            .count();
    assert!(yielded >= 10, "rocks must meet trees here, or the rule goes untested ({yielded} yielded)");

    let reference = keep_inner(settle(&all, Rule::RockYieldsToTrees));
    assert_eq!(plan, reference, "the plans differ from the settled candidates");
    let mut first_come = BTreeSet::new();
    for seed in [1u64, 2, 3, 0x9E37_79B9] {
        let order = shuffled(&all, seed);
        assert_eq!(keep_inner(settle(&order, Rule::RockYieldsToTrees)), reference, "order {seed} changed the outcome");
        first_come.insert(keep_inner(settle(&order, Rule::FirstComeFirstKept)));
    }
    assert!(first_come.len() > 1, "the negative control: first come, first kept must depend on the order");
}

/// Whether `id` is a rock's block: stone, cobblestone or mossy stone above
/// the terrain of its column.
fn rock_block(id: BlockId) -> bool {
    [BlockId::STONE, BlockId::COBBLESTONE, BlockId::MOSSY_STONE, BlockId::LOG_X, BlockId::LOG_Z].contains(&id)
}

/// Blocks of a rock that share a column with a trunk, or touch one from a
/// side, in the generated chunks.
fn rocks_against_trunks(w: &WorldGen, chunks: &[Chunk]) -> (usize, usize) {
    let by_pos: HashMap<ChunkPos, &Chunk> = chunks.iter().map(|c| (c.pos, c)).collect();
    let get = |b: [i64; 3]| {
        let c = by_pos.get(&ChunkPos::containing(b))?;
        Some(c.blocks().get(b[0].rem_euclid(32) as usize, b[1].rem_euclid(32) as usize, b[2].rem_euclid(32) as usize))
    };
    let logs: Vec<u32> =
        w.params.deco.trees.kinds[..w.params.deco.trees.kind_count as usize].iter().map(|k| k.trunk_block).collect();
    let (mut trunks, mut touching) = (0, 0);
    for c in chunks {
        let hm = &w.column(c.pos.column()).heightmap;
        for z in 0..32i64 {
            for x in 0..32i64 {
                for ly in 0..32i64 {
                    let b = [c.pos.x as i64 * 32 + x, c.pos.y as i64 * 32 + ly, c.pos.z as i64 * 32 + z];
                    if !logs.contains(&(c.blocks().get(x as usize, ly as usize, z as usize).0 as u32)) {
                        continue;
                    }
                    trunks += 1;
                    for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                        let n = [b[0] + dx, b[1], b[2] + dz];
                        let ground = if ChunkPos::containing(n).column() == c.pos.column() {
                            hm.heights[blockworld::world::coords::column_index((x + dx) as usize, (z + dz) as usize)]
                                as i64
                        } else {
                            let col = ChunkPos::containing(n).column();
                            w.column(col).heightmap.heights[blockworld::world::coords::column_index(
                                n[0].rem_euclid(32) as usize,
                                n[2].rem_euclid(32) as usize,
                            )] as i64
                        };
                        if n[1] > ground && get(n).is_some_and(rock_block) {
                            touching += 1;
                        }
                    }
                }
            }
        }
    }
    (trunks, touching)
}

fn area_chunks() -> Vec<ChunkPos> {
    region_positions(ChunkPos::new(COLS.start, -1, ROWS.start), ChunkPos::new(COLS.end - 1, 1, ROWS.end - 1)).unwrap()
}

#[test]
fn no_rock_touches_a_trunk() {
    let w = Arc::new(world());
    let chunks = CpuBackend::parallel(w.clone()).generate(&area_chunks()).unwrap();
    let count = |b: BlockId| chunks.iter().map(|c| c.counts().0[b.0 as usize] as u64).sum::<u64>();
    let mossy = count(BlockId::MOSSY_STONE);
    assert!(mossy > 100, "the area must hold mossy boulders ({mossy} blocks)");
    let fallen = count(BlockId::LOG_X) + count(BlockId::LOG_Z);
    assert!(fallen > 20, "the area must hold fallen logs ({fallen} blocks)");
    let (trunks, touching) = rocks_against_trunks(&w, &chunks);
    assert!(trunks > 1000, "the area must hold trees ({trunks} logs)");
    assert_eq!(touching, 0, "rock blocks beside a trunk");
}

/// Negative control: the same chunks filled from plans whose rocks never
/// yield put rock blocks against trunks, and the check above sees them.
#[test]
fn rocks_that_never_yield_touch_trunks_and_the_check_sees_it() {
    let w = world();
    let p = &*w.params;
    let chunks: Vec<Chunk> = area_chunks()
        .into_iter()
        .map(|pos| {
            let data = w.column(pos.column());
            let mut d = ColumnDecorations {
                trees: data.decorations.trees.iter().copied().filter(|t| t.rock().is_none()).collect(),
                tree_top: i32::MAX,
                plants: data.decorations.plants.clone(),
            };
            let (x0, z0) = (pos.x as i64 * 32, pos.z as i64 * 32);
            let reach = p.deco.rocks.reach as i64;
            for c in candidates(
                &p.deco.pattern,
                &p.deco.bayer,
                p.deco.rocks.seed(),
                p.deco.rocks.unit as i64,
                (x0 - reach, z0 - reach),
                (x0 + 32 + reach, z0 + 32 + reach),
            ) {
                let f = decorate::footing(&w.program, p, w.lanes, c.x, c.z);
                if let Some((kind, shape)) = decorate::rock_at(p, c.threshold, c.variant, f) {
                    let (x, z) = ((c.x - x0) as i32, (c.z - z0) as i32);
                    let base = decorate::rock_base(p, kind, f.height);
                    d.trees.push(PlacedObject { x, z, base, kind: ROCK_KIND + kind, shape });
                }
            }
            fill::fill(p, pos, &data.heightmap, Some(&d))
        })
        .collect();
    let (_, touching) = rocks_against_trunks(&w, &chunks);
    assert!(touching > 0, "rocks that never yield must meet trunks here");
}

/// Rocks that cross chunk borders are whole: each chunk generated alone, by
/// a fresh generator, equals the same chunk of one batch, over a box where
/// some rock's footprint spans a border.
#[test]
fn rocks_across_chunk_borders_are_seamless() {
    let w = Arc::new(world());
    let positions = region_positions(ChunkPos::new(4, -1, -12), ChunkPos::new(8, 1, -8)).unwrap();
    let crossing = positions
        .iter()
        .filter(|p| p.y == 0)
        .flat_map(|p| w.column(p.column()).decorations.trees.clone())
        .filter(|t| {
            let (rx, _, rz) = decorate::rock_radii(t.shape);
            t.rock().is_some() && (t.x - rx < 0 || t.x + rx > 31 || t.z - rz < 0 || t.z + rz > 31)
        })
        .count();
    assert!(crossing > 0, "no rock crosses a chunk border in the box");
    let batch = CpuBackend::parallel(w).generate(&positions).unwrap();
    for c in &batch {
        let alone = WorldGen::with_options(Preset::classic(), SEED, Lanes::detect(), 0).generate(c.pos);
        assert!(alone == *c, "chunk {} differs between alone and batch", c.pos);
    }
}

/// Per biome and rock kind, before yielding: the share of eligible rock
/// candidates that become that kind is its chance × spacing², within 5σ.
#[test]
fn each_biome_lays_its_rock_chance() {
    let w = world();
    let p = &*w.params;
    let preset = Preset::classic();
    let unit = p.deco.rocks.unit as i64;
    assert!(unit > 0, "classic has rocks");
    // (biome, kind) → (eligible candidates, laid, expected).
    let mut tally: HashMap<(usize, u32), (u64, u64, f64)> = HashMap::new();
    let (x0, z0, span) = (-6000i64, -6000i64, 12000i64);
    for gz in unit_squares(unit, z0, z0 + span).step_by(2) {
        for gx in unit_squares(unit, x0, x0 + span).step_by(2) {
            let c = candidate(&p.deco.pattern, &p.deco.bayer, p.deco.rocks.seed(), unit, gx, gz);
            let f = decorate::footing(&w.program, p, w.lanes, c.x, c.z);
            let b = f.biome as usize;
            let laid = decorate::rock_at(p, c.threshold, c.variant, f).map(|(k, _)| k);
            let n = p.deco.rocks.biome_count[b] as usize;
            let surface = if f.height > p.surface.snow_above { p.surface.snow_block } else { p.surface.top[b] };
            for layer in &p.deco.rocks.biome_layers[b][..n] {
                let kind = &p.deco.rocks.kinds[layer.what as usize];
                let eligible =
                    f.height >= p.surface.water_level && layer.on_mask >> surface & 1 == 1 && f.slope <= kind.max_slope;
                if eligible {
                    let e = tally.entry((b, layer.what)).or_default();
                    e.0 += 1;
                    e.1 += (laid == Some(layer.what)) as u64;
                    e.2 += layer.density as f64 / DENSITY_ONE as f64;
                } else {
                    assert_ne!(laid, Some(layer.what), "a rock where the rules forbid it");
                }
            }
            if n == 0 {
                assert_eq!(laid, None, "a rock in {}", preset.biomes[b].name);
            }
        }
    }
    let mut tested = 0;
    for ((b, k), (eligible, laid, expected)) in &tally {
        if *eligible < 2000 {
            continue;
        }
        let q = expected / *eligible as f64;
        let sigma = (*eligible as f64 * q * (1.0 - q)).sqrt();
        let name = &preset.biomes[*b].name;
        assert!(
            (*laid as f64 - expected).abs() <= 5.0 * sigma + 2.0,
            "{name}, rock {k}: {laid} on {eligible} eligible candidates, expected {expected:.1} ± {sigma:.1}"
        );
        tested += 1;
    }
    assert!(tested >= 5, "only {tested} (biome, rock) pairs had enough candidates");
}

/// A fallen log is one row of 2r + 1 logs at its centre's height, turned
/// the way it lies: `log_x` along x, `log_z` along z.
#[test]
fn a_fallen_log_is_one_row_turned_the_way_it_lies() {
    let w = world();
    let p = &*w.params;
    let k = p.deco.rocks.kinds[..p.deco.rocks.kind_count as usize]
        .iter()
        .position(|r| r.form == blockworld::worldgen::params::FORM_LOG)
        .expect("classic has a fallen log");
    let log = p.deco.rocks.kinds[k];
    for (shape, block, axis) in [(2u32, BlockId::LOG_X, 0), (2 << 16, BlockId::LOG_Z, 2)] {
        let mut cells = Vec::new();
        for dy in -3..=3 {
            for dz in -3..=3 {
                for dx in -3..=3 {
                    let id = decorate::rock_block_at(&log, shape, dx, dy, dz);
                    if id != 0 {
                        cells.push(([dx, dy, dz], id));
                    }
                }
            }
        }
        assert_eq!(cells.len(), 5, "{cells:?}");
        for ([dx, dy, dz], id) in cells {
            let off_axis = if axis == 0 { dz } else { dx };
            assert!(dy == 0 && off_axis == 0 && id == block.0 as u32, "{dx} {dy} {dz}: {id}");
        }
    }
}

/// A log without its block along z, a log with a top, and a boulder lying
/// along z are refused, naming the field.
#[test]
fn malformed_logs_are_refused_naming_the_field() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/worldgen/classic.ron"))
        .expect("classic.ron is readable");
    let log = r#"block: "log_x", along_z: "log_z", form: Log,"#;
    assert!(text.contains(log));
    for (with, field) in [
        (r#"block: "log_x", form: Log,"#, "(fallen_log).along_z"),
        (r#"block: "log_x", along_z: "log_z", top: "log", form: Log,"#, "(fallen_log).top"),
        (r#"block: "log_x", along_z: "log_z","#, "(fallen_log).along_z"),
    ] {
        let err = Preset::parse(&text.replacen(log, with, 1), "bad.ron").expect_err(with).to_string();
        assert!(err.contains(field), "{with}: {err}");
    }
}
