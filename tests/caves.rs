//! Caves: they exist in sane amounts, reach the surface, never hang under
//! water, and run across chunk borders without a seam.

use blockworld::world::block::BlockId;
use blockworld::world::chunk::Chunk;
use blockworld::world::coords::{column_index, ChunkPos, ColumnPos};
use blockworld::worldgen::density;
use blockworld::worldgen::preset::CaveLayer;
use blockworld::worldgen::{Preset, WorldGen};
use std::collections::{HashMap, VecDeque};

/// Every chunk of an inclusive box, by position.
fn generate(w: &WorldGen, from: ChunkPos, to: ChunkPos) -> HashMap<ChunkPos, Chunk> {
    let mut out = HashMap::new();
    for z in from.z..=to.z {
        for x in from.x..=to.x {
            for y in from.y..=to.y {
                let pos = ChunkPos::new(x, y, z);
                out.insert(pos, w.generate(pos));
            }
        }
    }
    out
}

fn block(chunks: &HashMap<ChunkPos, Chunk>, x: i64, y: i64, z: i64) -> Option<BlockId> {
    let pos = ChunkPos::new(x.div_euclid(32) as i32, y.div_euclid(32) as i32, z.div_euclid(32) as i32);
    chunks
        .get(&pos)
        .map(|c| c.blocks().get(x.rem_euclid(32) as usize, y.rem_euclid(32) as usize, z.rem_euclid(32) as usize))
}

fn height(w: &WorldGen, x: i64, z: i64) -> i64 {
    let col = w.column(ColumnPos { x: x.div_euclid(32) as i32, z: z.div_euclid(32) as i32 });
    col.heightmap.heights[column_index(x.rem_euclid(32) as usize, z.rem_euclid(32) as usize)] as i64
}

const FROM: ChunkPos = ChunkPos { x: -4, y: -3, z: -4 };
const TO: ChunkPos = ChunkPos { x: 3, y: 3, z: 3 };

/// The share of blocks under the surface that are cave air or lava.
fn cave_share(preset: Preset) -> f64 {
    let w = WorldGen::new(preset, 42);
    let chunks = generate(&w, FROM, TO);
    let (mut under, mut open) = (0u64, 0u64);
    for x in FROM.x as i64 * 32..(TO.x as i64 + 1) * 32 {
        for z in FROM.z as i64 * 32..(TO.z as i64 + 1) * 32 {
            let h = height(&w, x, z);
            for y in FROM.y as i64 * 32..=h.min(TO.y as i64 * 32 + 31) {
                under += 1;
                let b = block(&chunks, x, y, z);
                open += matches!(b, Some(BlockId::AIR) | Some(BlockId::LAVA)) as u64;
            }
        }
    }
    open as f64 / under as f64
}

fn no_caves() -> Preset {
    let mut p = Preset::classic();
    p.caves = None;
    p
}

#[test]
fn caves_open_between_3_and_25_percent_of_the_underground() {
    let share = cave_share(Preset::classic());
    assert!((0.03..=0.25).contains(&share), "{:.1} % of the underground is cave", share * 100.0);
}

/// Negative control: without the density stage the share is (almost) zero,
/// so the range above is not met by terrain alone (lakes and overhangs).
#[test]
fn the_share_check_fails_without_caves() {
    let share = cave_share(no_caves());
    assert!(share < 0.03, "{:.2} % open without caves", share * 100.0);
}

/// How many blocks at least 10 below their column's surface the sky reaches
/// through air.
fn deep_reachable(preset: Preset) -> usize {
    let w = WorldGen::new(preset, 42);
    let chunks = generate(&w, FROM, TO);
    let (x0, x1) = (FROM.x as i64 * 32, (TO.x as i64 + 1) * 32);
    let (z0, z1) = (FROM.z as i64 * 32, (TO.z as i64 + 1) * 32);
    let (y0, y1) = (FROM.y as i64 * 32, (TO.y as i64 + 1) * 32);
    // From every open block just above the surface, through air, down into
    // the rock.
    let mut seen = std::collections::HashSet::new();
    let mut queue = VecDeque::new();
    for x in x0..x1 {
        for z in z0..z1 {
            let y = height(&w, x, z) + 1;
            if (y0..y1).contains(&y) && block(&chunks, x, y, z) == Some(BlockId::AIR) && seen.insert((x, y, z)) {
                queue.push_back((x, y, z));
            }
        }
    }
    let mut deep = 0;
    while let Some((x, y, z)) = queue.pop_front() {
        if y <= height(&w, x, z) - 10 {
            deep += 1;
        }
        for (dx, dy, dz) in [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)] {
            let n = (x + dx, y + dy, z + dz);
            if !(x0..x1).contains(&n.0) || !(y0..y1).contains(&n.1) || !(z0..z1).contains(&n.2) {
                continue;
            }
            // Only below the surface: the open sky connects everything.
            if n.1 <= height(&w, n.0, n.2) && block(&chunks, n.0, n.1, n.2) == Some(BlockId::AIR) && seen.insert(n) {
                queue.push_back(n);
            }
        }
    }
    deep
}

/// More than a tunnel of 3 × 3 blocks running 30 blocks down from a mouth
/// (classic reaches 652 here, with a few smooth tunnels on 128-block cells;
/// without caves, 0).
const DEEP_REACHED: usize = 300;

#[test]
fn caves_reach_the_surface() {
    let deep = deep_reachable(Preset::classic());
    assert!(deep > DEEP_REACHED, "only {deep} cave blocks 10 or more below the surface connect to the sky");
}

/// Negative control: without caves nothing deep is reachable.
#[test]
fn the_reach_check_fails_without_caves() {
    let deep = deep_reachable(no_caves());
    assert!(deep <= DEEP_REACHED, "{deep} deep blocks reachable without caves");
}

/// Water blocks with cave air or lava right under them.
fn under_water_violations(preset: Preset) -> usize {
    let w = WorldGen::new(preset, 42);
    // An area with sea and lakes around the origin.
    let (from, to) = (ChunkPos::new(-6, -3, -6), ChunkPos::new(5, 1, 5));
    let chunks = generate(&w, from, to);
    let mut bad = 0;
    for (pos, c) in &chunks {
        for x in 0..32 {
            for z in 0..32 {
                for y in 0..32 {
                    if c.blocks().get(x, y, z) != BlockId::WATER {
                        continue;
                    }
                    let (wx, wy, wz) =
                        (pos.x as i64 * 32 + x as i64, pos.y as i64 * 32 + y as i64, pos.z as i64 * 32 + z as i64);
                    if matches!(block(&chunks, wx, wy - 1, wz), Some(BlockId::AIR) | Some(BlockId::LAVA)) {
                        bad += 1;
                    }
                }
            }
        }
    }
    bad
}

#[test]
fn no_cave_opens_under_water() {
    assert_eq!(under_water_violations(Preset::classic()), 0);
}

/// Negative control: without the clearance rule (caves may carve up to any
/// floor), the same check finds cave air under the sea.
#[test]
fn the_water_check_catches_caves_without_clearance() {
    let mut p = Preset::classic();
    let caves = p.caves.as_mut().expect("classic has caves");
    caves.water_clearance = 0;
    // Let the carving reach the sea floor itself: below the water level the
    // rule keeps `min(h, w) − clearance`, which is the floor when clearance is 0.
    assert!(under_water_violations(p) > 0, "cave air under water went unnoticed");
}

/// Cave masks of a 4×4 box of deep chunks (every block below the surface),
/// each chunk's taken from `mask_of`.
fn carved_grid(w: &WorldGen, mask_of: impl Fn(ChunkPos) -> Option<Box<density::CaveMask>>) -> Vec<Vec<bool>> {
    // One horizontal slice per chunk height band, x fastest.
    let mut g = vec![vec![false; 128 * 128]; 32];
    for cz in 0..4 {
        for cx in 0..4 {
            let mask = mask_of(ChunkPos::new(cx, -2, cz));
            let _ = w;
            for z in 0..32 {
                for x in 0..32 {
                    for (y, slice) in g.iter_mut().enumerate() {
                        let carved = mask.as_ref().is_some_and(|m| density::is_carved(m, column_index(x, z) * 32 + y));
                        slice[(cz as usize * 32 + z) * 128 + cx as usize * 32 + x] = carved;
                    }
                }
            }
        }
    }
    g
}

/// The share of neighbour pairs (along x and z) that differ, for pairs
/// crossing a chunk border and for the rest.
fn change_rates(g: &[Vec<bool>]) -> ((u64, u64), (u64, u64)) {
    let (mut border, mut inner) = ((0u64, 0u64), (0u64, 0u64));
    for slice in g {
        for a in 0..128 {
            for b in 0..127 {
                for (p, q) in [(a * 128 + b, a * 128 + b + 1), (b * 128 + a, (b + 1) * 128 + a)] {
                    let bucket = if b % 32 == 31 { &mut border } else { &mut inner };
                    bucket.0 += (slice[p] != slice[q]) as u64;
                    bucket.1 += 1;
                }
            }
        }
    }
    (border, inner)
}

/// Whether the border rate lies within 4 standard errors of the inner rate.
fn seamless(g: &[Vec<bool>]) -> (bool, f64, f64) {
    let ((bd, bn), (id, inn)) = change_rates(g);
    let (pb, pi) = (bd as f64 / bn as f64, id as f64 / inn as f64);
    let se = (pi * (1.0 - pi) / bn as f64).sqrt();
    ((pb - pi).abs() < 4.0 * se, pb, pi)
}

#[test]
fn caves_cross_chunk_borders_without_a_seam() {
    let w = WorldGen::new(Preset::classic(), 42);
    let g = carved_grid(&w, |pos| {
        let col = w.column(ColumnPos { x: pos.x, z: pos.z });
        density::carve_mask(&w.params, pos, &col.heightmap)
    });
    let carved = g.iter().flatten().filter(|c| **c).count();
    assert!(carved > 10_000, "the box must hold caves ({carved} carved blocks)");
    let (ok, pb, pi) = seamless(&g);
    assert!(ok, "cave walls change {pb:.4} per step across borders, {pi:.4} inside");
}

/// Negative control: masks computed for the wrong place (a lattice that
/// restarts in every chunk would do this) leave a seam the test sees.
#[test]
fn the_seam_test_detects_chunks_that_do_not_line_up() {
    let w = WorldGen::new(Preset::classic(), 42);
    let g = carved_grid(&w, |pos| {
        let shifted = ChunkPos::new(pos.x * 7 + 3, pos.y, pos.z * 5 - 2);
        let col = w.column(ColumnPos { x: shifted.x, z: shifted.z });
        let mut hm = col.heightmap.clone();
        hm.heights.fill(1000);
        hm.max_height = 1000;
        density::carve_mask(&w.params, shifted, &hm)
    });
    let (ok, pb, pi) = seamless(&g);
    assert!(!ok, "misaligned chunks went unnoticed ({pb:.4} across borders, {pi:.4} inside)");
}

/// Deep rock the bounds prove solid really is. Classic's tunnels run
/// everywhere, so no whole chunk of it can be ruled out; this uses its
/// chambers alone, where the proof succeeds for some chunks and fails for others.
#[test]
fn proofs_of_solid_rock_hold() {
    let mut p = Preset::classic();
    let caves = p.caves.as_mut().expect("classic has caves");
    caves.layers.retain(|l| matches!(l, CaveLayer::Chambers { .. }));
    for layer in &mut caves.layers {
        if let CaveLayer::Chambers { above, .. } = layer {
            *above = 0.4;
        }
    }
    let w = WorldGen::new(p, 42);
    let col = w.column(ColumnPos { x: 0, z: 0 });
    let mut hm = col.heightmap.clone();
    hm.heights.fill(1000);
    hm.max_height = 1000;
    let (mut proved, mut open) = (0, 0);
    for x in -6..6 {
        for z in -6..6 {
            for y in -2..2 {
                let pos = ChunkPos::new(x, y, z);
                let mask = density::carve_mask(&w.params, pos, &hm);
                if density::proves_solid(&w.params, pos) {
                    proved += 1;
                    assert!(mask.is_none(), "{pos} was proved solid but has caves");
                }
                open += mask.is_some() as u32;
            }
        }
    }
    assert!(proved > 0 && open > 0, "{proved} chunks proved solid, {open} with caves: the check saw only one side");
}

/// Lava blocks within `cover` blocks of their column's surface, and lava
/// blocks in all, over 160 chunk columns scattered over 8 km of `preset`,
/// in the two chunk layers around the water (its lava lies below 10).
fn lava_near_the_surface(preset: &Preset, cover: i64) -> (u64, u64) {
    let w = WorldGen::new(preset.clone(), 42);
    let (mut near, mut all) = (0u64, 0u64);
    let mut state = 0x853c_49e6_748f_ea9bu64;
    for _ in 0..160 {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let (cx, cz) = (((state >> 33) % 256) as i32 - 128, ((state >> 45) % 256) as i32 - 128);
        let heights = w.column(ColumnPos { x: cx, z: cz }).heightmap.heights.clone();
        for cy in -1..=0 {
            let chunk = w.generate(ChunkPos::new(cx, cy, cz));
            for z in 0..32 {
                for x in 0..32 {
                    let h = heights[column_index(x, z)] as i64;
                    for y in 0..32 {
                        if chunk.blocks().get(x, y, z) == BlockId::LAVA {
                            all += 1;
                            near += (cy as i64 * 32 + y as i64 > h - cover) as u64;
                        }
                    }
                }
            }
        }
    }
    (near, all)
}

/// A preset's `lava_cover` keeps lava that far under the surface, so a
/// tunnel opening on low land by the water shows none in the open; the
/// negative control (eroded without its cover) has lava up to the surface.
#[test]
fn lava_stays_under_its_cover() {
    let eroded = Preset::load("eroded").expect("bundled");
    let cover = eroded.caves.as_ref().expect("eroded has caves").lava_cover as i64;
    assert!(cover > 0);
    let (near, all) = lava_near_the_surface(&eroded, cover);
    assert!(all > 1000, "only {all} lava blocks: the check sees too little lava");
    assert_eq!(near, 0, "{near} lava blocks within {cover} of the surface");
    let mut bare = eroded;
    bare.caves.as_mut().expect("caves").lava_cover = 0;
    let (near, _) = lava_near_the_surface(&bare, cover);
    assert!(near > 0, "without its cover no lava came near the surface: the check cannot fail");
    let (at_surface, _) = lava_near_the_surface(&bare, 1);
    assert!(at_surface > 0, "without its cover no lava lay on the surface");
}
