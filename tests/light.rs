//! The light engine against hand-worked examples, and its incremental
//! updates against a relight from scratch and a brute-force fixpoint.

use blockworld::light::{BlockSource, ChunkLight, Light, LightMap};
use blockworld::world::block::BlockId;
use blockworld::world::chunk::Chunk;
use blockworld::world::coords::{block_index, ChunkPos};
use blockworld::world::edits::BlockPos;
use std::collections::HashMap;

/// Chunks in a box; sky falls into the top of the box or not at all.
struct World {
    chunks: HashMap<ChunkPos, Chunk>,
    sky: bool,
}

impl BlockSource for World {
    fn chunk(&self, pos: ChunkPos) -> Option<&Chunk> {
        self.chunks.get(&pos)
    }
    fn sky_above(&self, _: ChunkPos, _: usize, _: usize) -> bool {
        self.sky
    }
}

impl World {
    fn filled(from: ChunkPos, to: ChunkPos, block: BlockId, sky: bool) -> World {
        let mut chunks = HashMap::new();
        for x in from.x..=to.x {
            for y in from.y..=to.y {
                for z in from.z..=to.z {
                    let pos = ChunkPos::new(x, y, z);
                    chunks.insert(pos, Chunk::uniform(pos, block));
                }
            }
        }
        World { chunks, sky }
    }

    fn set(&mut self, x: i64, y: i64, z: i64, b: BlockId) {
        let p = BlockPos::new(x, y, z);
        let [lx, ly, lz] = p.local();
        let chunk = self.chunks.get_mut(&p.chunk().unwrap()).expect("inside the box");
        chunk.set(block_index(lx, ly, lz), b);
    }

    fn fill(&mut self, from: [i64; 3], to: [i64; 3], b: BlockId) {
        for x in from[0]..=to[0] {
            for y in from[1]..=to[1] {
                for z in from[2]..=to[2] {
                    self.set(x, y, z, b);
                }
            }
        }
    }

    fn positions(&self) -> Vec<ChunkPos> {
        let mut v: Vec<ChunkPos> = self.chunks.keys().copied().collect();
        v.sort();
        v
    }

    /// A light map of every chunk, added in the given order.
    fn lit_in(&self, order: &[ChunkPos]) -> LightMap {
        self.lit_into(LightMap::new(), order)
    }

    fn lit_into(&self, mut m: LightMap, order: &[ChunkPos]) -> LightMap {
        for &p in order {
            m.add_chunk(self, p);
        }
        m
    }

    fn lit(&self) -> LightMap {
        self.lit_in(&self.positions())
    }

    fn block(&self, p: [i64; 3]) -> Option<BlockId> {
        let b = BlockPos::new(p[0], p[1], p[2]);
        let [x, y, z] = b.local();
        Some(self.chunks.get(&b.chunk()?)?.blocks().get(x, y, z))
    }

    /// Every block of every chunk.
    fn cells(&self) -> Vec<[i64; 3]> {
        let mut cells = Vec::new();
        for p in self.positions() {
            let o = p.origin();
            for x in 0..32 {
                for y in 0..32 {
                    for z in 0..32 {
                        cells.push([o[0] + x, o[1] + y, o[2] + z]);
                    }
                }
            }
        }
        cells
    }

    /// The light by brute force: every block takes the best its
    /// neighbours offer, over and over until nothing changes. Written
    /// apart from the engine, from the rules as the module states them.
    /// The sweeps alternate direction so light crosses the box in a few;
    /// the order cannot change the answer, the least light above each
    /// block's own that no neighbour can raise.
    fn fixpoint(&self) -> HashMap<[i64; 3], Light> {
        let cells = self.cells();
        let lo = [0, 1, 2].map(|a| cells.iter().map(|c| c[a]).min().unwrap_or(0));
        let size = [0, 1, 2].map(|a| cells.iter().map(|c| c[a]).max().unwrap_or(0) - lo[a] + 1);
        let index = |p: [i64; 3]| -> Option<usize> {
            let q = [p[0] - lo[0], p[1] - lo[1], p[2] - lo[2]];
            (0..3).all(|a| (0..size[a]).contains(&q[a])).then(|| ((q[0] * size[1] + q[1]) * size[2] + q[2]) as usize)
        };
        let info = |b: BlockId| b.info();
        let clear = |b: BlockId| !info(b).opaque();
        let own = |p: [i64; 3], b: BlockId| {
            let [r, g, bl] = info(b).light;
            let top = p[1].rem_euclid(32) == 31 && self.block([p[0], p[1] + 1, p[2]]).is_none() && self.sky;
            // As if an open-sky block sat above: sky falls in at full
            // strength only into a block that does not dim it.
            let sky = match (top && clear(b), info(b).dims) {
                (false, _) => 0,
                (true, 0) => 15,
                (true, dims) => 14u8.saturating_sub(dims),
            };
            [sky, r, g, bl]
        };
        // Light by index; None outside every chunk.
        let mut light: Vec<Option<[u8; 4]>> = vec![None; (size[0] * size[1] * size[2]) as usize];
        let blocks: Vec<(usize, BlockId, [Option<usize>; 6])> = cells
            .iter()
            .map(|&p| {
                let b = self.block(p).unwrap();
                let i = index(p).unwrap();
                light[i] = Some(own(p, b));
                let n = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
                    .map(|n| index([p[0] + n[0], p[1] + n[1], p[2] + n[2]]));
                (i, b, n)
            })
            .collect();
        for sweep in 0.. {
            let mut changed = false;
            let mut step = |&(i, b, neighbours): &(usize, BlockId, [Option<usize>; 6])| {
                if !clear(b) {
                    return;
                }
                let Some(mut best) = light[i] else { return };
                for (d, n) in neighbours.iter().enumerate() {
                    let Some(l) = n.and_then(|n| light[n]) else { continue };
                    for c in 0..4 {
                        let from_above = d == 2;
                        let offer = if c == 0 && from_above && l[0] == 15 && info(b).dims == 0 {
                            15
                        } else {
                            l[c].saturating_sub(1 + info(b).dims)
                        };
                        best[c] = best[c].max(offer);
                    }
                }
                if Some(best) != light[i] {
                    light[i] = Some(best);
                    changed = true;
                }
            };
            if sweep % 2 == 0 {
                blocks.iter().for_each(&mut step);
            } else {
                blocks.iter().rev().for_each(&mut step);
            }
            if !changed {
                break;
            }
        }
        cells
            .iter()
            .zip(&blocks)
            .map(|(&p, &(i, _, _))| {
                let l = light[i].unwrap();
                (p, Light::new(l[0], l[1], l[2], l[3]))
            })
            .collect()
    }
}

fn at(m: &LightMap, x: i64, y: i64, z: i64) -> Light {
    m.get(BlockPos::new(x, y, z)).expect("lit")
}

/// Every block of the world lit as the fixpoint says.
fn assert_matches_fixpoint(w: &World, m: &LightMap, what: &str) {
    let want = w.fixpoint();
    let mut wrong: Vec<_> = want
        .iter()
        .filter(|(p, l)| m.get(BlockPos::new(p[0], p[1], p[2])) != Some(**l))
        .map(|(p, l)| (*p, *l, m.get(BlockPos::new(p[0], p[1], p[2]))))
        .collect();
    wrong.sort_by_key(|w| w.0);
    assert!(wrong.is_empty(), "{what}: {} blocks differ, first {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
}

fn torch_rgb(distance: u8) -> [u8; 3] {
    let [r, g, b] = BlockId::TORCH.info().light;
    [r.saturating_sub(distance), g.saturating_sub(distance), b.saturating_sub(distance)]
}

#[test]
fn a_torch_lights_an_enclosed_room_and_nothing_beyond_its_walls() {
    let mut w = World::filled(ChunkPos::new(0, 0, 0), ChunkPos::new(0, 0, 0), BlockId::STONE, true);
    // A 9×5×9 room; the torch in its middle on the floor.
    w.fill([4, 4, 4], [12, 8, 12], BlockId::AIR);
    w.set(8, 4, 8, BlockId::TORCH);
    let m = w.lit();
    assert_eq!(at(&m, 8, 4, 8).rgb(), torch_rgb(0));
    assert_eq!(at(&m, 9, 4, 8).rgb(), torch_rgb(1));
    assert_eq!(at(&m, 12, 4, 12).rgb(), torch_rgb(8), "the corner, 8 steps away");
    assert_eq!(at(&m, 12, 8, 12).rgb(), torch_rgb(12), "the far top corner, 12 steps away");
    assert_eq!(at(&m, 13, 4, 8), Light::DARK, "the wall takes no light");
    assert_eq!(at(&m, 14, 4, 8), Light::DARK);
    assert_eq!(at(&m, 8, 9, 8).sky(), 0, "no sky in a closed room");
    assert_matches_fixpoint(&w, &m, "room");
}

#[test]
fn light_goes_round_a_wall_through_its_gap() {
    let mut w = World::filled(ChunkPos::new(0, 0, 0), ChunkPos::new(0, 0, 0), BlockId::STONE, false);
    // Two rooms side by side on x, a wall at x = 10 with one gap at z = 12.
    w.fill([2, 2, 2], [18, 4, 14], BlockId::AIR);
    w.fill([10, 2, 2], [10, 4, 14], BlockId::STONE);
    w.set(10, 2, 12, BlockId::AIR);
    w.set(6, 2, 4, BlockId::TORCH);
    let m = w.lit();
    // Torch (6, 4) to the gap (10, 12) is 4 + 8 = 12 steps; one more to (11, 12).
    assert_eq!(at(&m, 10, 2, 12).rgb(), torch_rgb(12));
    assert_eq!(at(&m, 11, 2, 12).rgb(), torch_rgb(13));
    // Right behind the wall, opposite the torch: 13 + 8 back along z.
    assert_eq!(at(&m, 11, 2, 4).rgb(), [0, 0, 0], "the wall shades what is behind it");
    assert_eq!(at(&m, 9, 2, 4).rgb(), torch_rgb(3), "in front of the wall");
    assert_matches_fixpoint(&w, &m, "gap");
}

#[test]
fn a_skylight_shaft_reaches_a_cave_at_full_strength() {
    // Two chunks high: open sky over the top one.
    let mut w = World::filled(ChunkPos::new(0, 0, 0), ChunkPos::new(0, 1, 0), BlockId::STONE, true);
    w.fill([10, 10, 10], [20, 14, 20], BlockId::AIR); // the cave
    w.fill([15, 15, 15], [15, 63, 15], BlockId::AIR); // the shaft to the top
    let m = w.lit();
    assert_eq!(at(&m, 15, 63, 15).sky(), 15);
    assert_eq!(at(&m, 15, 32, 15).sky(), 15, "across the chunk border, still full");
    assert_eq!(at(&m, 15, 10, 15).sky(), 15, "straight down to the cave floor");
    assert_eq!(at(&m, 16, 10, 15).sky(), 14, "sideways costs a level");
    assert_eq!(at(&m, 20, 10, 20).sky(), 5, "ten steps off the shaft's foot");
    assert_eq!(at(&m, 16, 14, 15).sky(), 14);
    assert_eq!(at(&m, 14, 20, 15).sky(), 0, "rock beside the shaft stays dark");
    assert_matches_fixpoint(&w, &m, "shaft");
}

#[test]
fn leaves_and_water_dim_the_sky() {
    let mut w = World::filled(ChunkPos::new(0, 0, 0), ChunkPos::new(0, 0, 0), BlockId::AIR, true);
    w.fill([0, 20, 0], [31, 20, 31], BlockId::LEAVES);
    w.fill([0, 0, 0], [31, 10, 31], BlockId::WATER);
    let m = w.lit();
    assert_eq!(at(&m, 5, 21, 5).sky(), 15);
    assert_eq!(at(&m, 5, 20, 5).sky(), 13, "a leaf costs 1 + 1");
    assert_eq!(at(&m, 5, 19, 5).sky(), 12, "below the canopy sky falls off per block");
    assert_eq!(at(&m, 5, 11, 5).sky(), 4);
    assert_eq!(at(&m, 5, 10, 5).sky(), 1, "water costs 1 + 2");
    assert_eq!(at(&m, 5, 9, 5).sky(), 0);
    assert_matches_fixpoint(&w, &m, "dimming");
}

#[test]
fn light_crosses_chunk_borders_in_any_load_order() {
    let mut w = World::filled(ChunkPos::new(0, 0, 0), ChunkPos::new(1, 0, 0), BlockId::STONE, false);
    w.fill([20, 5, 5], [45, 5, 5], BlockId::AIR);
    w.set(31, 5, 5, BlockId::TORCH);
    for order in [[ChunkPos::new(0, 0, 0), ChunkPos::new(1, 0, 0)], [ChunkPos::new(1, 0, 0), ChunkPos::new(0, 0, 0)]] {
        let m = w.lit_in(&order);
        assert_eq!(at(&m, 32, 5, 5).rgb(), torch_rgb(1), "load order {order:?}");
        assert_eq!(at(&m, 40, 5, 5).rgb(), torch_rgb(9));
        assert_eq!(at(&m, 20, 5, 5).rgb(), torch_rgb(11));
        assert_matches_fixpoint(&w, &m, "border");
    }
}

#[test]
fn breaking_the_torch_takes_its_light_away() {
    let mut w = World::filled(ChunkPos::new(0, 0, 0), ChunkPos::new(1, 0, 0), BlockId::STONE, false);
    w.fill([20, 5, 5], [45, 8, 8], BlockId::AIR);
    w.set(30, 5, 5, BlockId::TORCH);
    w.set(44, 8, 8, BlockId::GLOWSTONE);
    let mut m = w.lit();
    assert!(at(&m, 25, 6, 6).rgb()[0] > 0);
    w.set(30, 5, 5, BlockId::AIR);
    m.take_changed();
    m.block_changed(&w, BlockPos::new(30, 5, 5));
    assert_eq!(at(&m, 30, 5, 5), Light::DARK, "the glowstone is 20 steps away");
    assert_eq!(at(&m, 25, 6, 6), Light::DARK);
    assert_eq!(at(&m, 43, 8, 8).rgb(), [14, 12, 8], "the glowstone's own light stays");
    let changed = m.take_changed();
    assert!(changed.contains(&ChunkPos::new(0, 0, 0)) && changed.contains(&ChunkPos::new(1, 0, 0)));
    assert_matches_fixpoint(&w, &m, "torch broken");
}

/// A small xorshift so the random edits are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Blocks the random tests scatter: air most often, then everything that
/// stops, dims or gives light.
const SCATTER: [BlockId; 11] = [
    BlockId::AIR,
    BlockId::AIR,
    BlockId::AIR,
    BlockId::STONE,
    BlockId::STONE,
    BlockId::GLASS,
    BlockId::LEAVES,
    BlockId::WATER,
    BlockId::TORCH,
    BlockId::GLOWSTONE,
    BlockId::LAVA,
];

/// A 2×2×2-chunk world, chunks y = -1 and 0: ground up to y = -3 with
/// caves in it and an opening, a leaf canopy and a pond; air above.
fn cave_world() -> World {
    let mut w = World::filled(ChunkPos::new(0, -1, 0), ChunkPos::new(1, 0, 1), BlockId::STONE, true);
    w.fill([0, -2, 0], [63, 31, 63], BlockId::AIR);
    w.fill([10, -20, 10], [40, -6, 50], BlockId::AIR);
    w.fill([30, -6, 30], [30, -3, 30], BlockId::AIR);
    w.fill([5, 8, 5], [25, 8, 25], BlockId::LEAVES);
    w.fill([40, -3, 40], [55, -2, 55], BlockId::WATER);
    w
}

/// A random block of the world, and a random block to put there.
fn scatter(rng: &mut Rng) -> ([i64; 3], BlockId) {
    let (x, y, z) = (rng.below(64) as i64, rng.below(64) as i64 - 32, rng.below(64) as i64);
    ([x, y, z], SCATTER[rng.below(SCATTER.len() as u64) as usize])
}

/// Random edits applied one by one to the cave world keep the light
/// equal to a relight from scratch (in a shuffled load order) and to the
/// brute-force fixpoint.
#[test]
fn incremental_updates_equal_a_full_relight() {
    for seed in 1..=3u64 {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed);
        let mut w = cave_world();
        // Packing every dense chunk at the end of each operation, so the
        // edits also run through packed light (unpacked on the first change).
        let mut m = w.lit_into(LightMap::with_pack_delay(0), &w.positions());
        for step in 0..60 {
            let ([x, y, z], b) = scatter(&mut rng);
            w.set(x, y, z, b);
            m.block_changed(&w, BlockPos::new(x, y, z));
            if step % 20 == 19 {
                assert_matches_fixpoint(&w, &m, &format!("seed {seed}, after edit {step}"));
                let mut order = w.positions();
                for i in (1..order.len()).rev() {
                    order.swap(i, rng.below(i as u64 + 1) as usize);
                }
                let fresh = w.lit_in(&order);
                for p in w.cells() {
                    let bp = BlockPos::new(p[0], p[1], p[2]);
                    assert_eq!(m.get(bp), fresh.get(bp), "seed {seed}, edit {step}: {bp} differs from a fresh relight");
                }
            }
        }
    }
}

/// Chunks leave the cave world (with random blocks scattered in it) one
/// at a time, a top chunk over open ground first and the rest in random
/// order: after each, the chunks that stay are lit as if the gone ones had
/// never been there.
#[test]
fn chunks_leaving_in_any_order_leave_the_light_of_those_that_stay() {
    for seed in 1..=2u64 {
        let mut rng = Rng(0x51_7cc1_b727_220a ^ seed);
        let mut w = cave_world();
        for _ in 0..400 {
            let ([x, y, z], b) = scatter(&mut rng);
            w.set(x, y, z, b);
        }
        // Light that crosses the floor of the top chunk downwards.
        w.set(3, 0, 3, BlockId::GLOWSTONE);
        w.set(60, 0, 3, BlockId::TORCH);
        let mut m = w.lit_into(LightMap::with_pack_delay(0), &w.positions());
        let mut order = w.positions();
        order.retain(|p| *p != ChunkPos::new(0, 0, 0));
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        order.insert(0, ChunkPos::new(0, 0, 0));
        order.pop();
        for pos in order {
            m.remove_chunk(&w, pos);
            w.chunks.remove(&pos);
            assert_matches_fixpoint(&w, &m, &format!("seed {seed}, {pos:?} removed"));
        }
    }
}

#[test]
fn a_chunk_that_leaves_and_comes_back_leaves_no_trace() {
    let mut w = World::filled(ChunkPos::new(0, 0, 0), ChunkPos::new(1, 1, 0), BlockId::STONE, true);
    w.fill([0, 40, 0], [63, 63, 31], BlockId::AIR);
    w.fill([10, 5, 5], [50, 45, 8], BlockId::AIR);
    w.set(20, 10, 6, BlockId::TORCH);
    w.set(40, 20, 6, BlockId::LAVA);
    let mut m = w.lit();
    let before: Vec<_> = w.fixpoint().keys().map(|p| (*p, m.get(BlockPos::new(p[0], p[1], p[2])))).collect();
    // The top-left chunk leaves: the one below it now tops its column.
    m.remove_chunk(&w, ChunkPos::new(0, 1, 0));
    let gone = w.chunks.remove(&ChunkPos::new(0, 1, 0)).unwrap();
    assert_matches_fixpoint(&w, &m, "a chunk removed");
    w.chunks.insert(gone.pos, gone);
    m.add_chunk(&w, ChunkPos::new(0, 1, 0));
    for (p, l) in before {
        assert_eq!(m.get(BlockPos::new(p[0], p[1], p[2])), l, "{p:?}");
    }
}

/// Ore in stone makes a dense chunk that holds no light: it is lit as
/// solid rock is, without a walk over its blocks, beside a torch-lit cave.
/// One air block on its face towards the cave lets light in, and the
/// fixpoint holds either way.
#[test]
fn dense_rock_stays_dark_and_a_hole_in_it_takes_light() {
    for hole in [false, true] {
        let mut w = World::filled(ChunkPos::new(0, 0, 0), ChunkPos::new(1, 0, 0), BlockId::STONE, false);
        w.fill([4, 4, 4], [31, 12, 12], BlockId::AIR);
        w.set(28, 6, 8, BlockId::TORCH);
        for i in (0..32 * 32 * 32).step_by(7) {
            w.set(32 + i % 32, i / 32 % 32, i / 1024, BlockId::COAL_ORE);
        }
        if hole {
            w.set(32, 6, 8, BlockId::AIR);
        }
        let m = w.lit();
        assert_matches_fixpoint(&w, &m, &format!("hole {hole}"));
        let dark = matches!(m.chunk_light(ChunkPos::new(1, 0, 0)), Some(ChunkLight::Uniform(l)) if *l == Light::DARK);
        assert_eq!(dark, !hole, "hole {hole}: the rock's light");
        assert_eq!(at(&m, 32, 6, 8).rgb(), if hole { torch_rgb(4) } else { [0, 0, 0] });
    }
}
