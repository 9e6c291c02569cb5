//! Open space reachable from a point: the blocks a flood from the eye
//! meets through non-opaque blocks (air, water, leaves, glass, plants),
//! face to face, over the loaded chunks.
//!
//! Why it bounds what can be seen: a face is drawn against the open block
//! in front of it, and a line of sight from the eye to that block crosses
//! block boundaries through faces (crossing exactly at an edge or corner
//! is a measure-zero set of rays, and the meshes of the blocks meeting
//! there are watertight), every block it crosses being open. So every face
//! the eye can see borders a block this flood reaches, and a chunk with no
//! reached block in it or across one of its faces shows the eye nothing.
//! That holds while the loaded chunks contain every line of sight, which
//! the streaming range does (a disc of columns grown by a ring, and a
//! vertical band).
//!
//! `blockworld bench view` uses it to say how much of the first view's
//! work goes to chunks the eye cannot see from where it stands: sealed
//! caves, and rock under a sea floor.

use super::block::BlockId;
use super::chunk::Chunk;
use super::coords::{block_index, ChunkPos, CHUNK_SIZE, CHUNK_VOLUME, FACE_STEPS};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

const WORDS: usize = CHUNK_VOLUME / 64;
const LAST: usize = CHUNK_SIZE - 1;

type Bits = Box<[u64; WORDS]>;

enum Visit {
    /// A uniform open chunk, all of it reached at once.
    Whole,
    /// A stored chunk: its open blocks, and those reached (a chunk may be
    /// entered at an opaque block and stay unreached).
    Cells { open: Bits, reached: Bits },
}

/// The open blocks reached from the eye.
pub struct Reach {
    visits: FxHashMap<ChunkPos, Visit>,
    /// Blocks reached in stored chunks (uniform open chunks not counted).
    pub cells: u64,
}

fn is_opaque(b: BlockId) -> bool {
    b.info().opaque()
}

fn get(bits: &[u64; WORDS], i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 != 0
}

fn set(bits: &mut [u64; WORDS], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

fn zeroed() -> Bits {
    Box::new([0; WORDS])
}

fn coords(i: usize) -> [usize; 3] {
    [(i / CHUNK_SIZE) % CHUNK_SIZE, i % CHUNK_SIZE, i / (CHUNK_SIZE * CHUNK_SIZE)]
}

/// The block one step along axis `a` (0 x, 1 y, 2 z) in direction `d`,
/// and whether that step left the chunk (then the index is in the
/// neighbour, on its opposite face).
fn step(i: usize, a: usize, d: i32) -> (usize, bool) {
    let mut p = coords(i);
    let left = (d < 0 && p[a] == 0) || (d > 0 && p[a] == LAST);
    p[a] = if left {
        if d < 0 {
            LAST
        } else {
            0
        }
    } else {
        (p[a] as i32 + d) as usize
    };
    (block_index(p[0], p[1], p[2]), left)
}

impl Reach {
    /// Floods from the block at `eye` through the chunks `chunk` gives.
    /// Nothing is reached when the eye's chunk is not loaded or the eye is
    /// inside an opaque block.
    pub fn flood<'a>(eye: [i64; 3], chunk: impl Fn(ChunkPos) -> Option<&'a Chunk>) -> Reach {
        let mut reach = Reach { visits: FxHashMap::default(), cells: 0 };
        let start = ChunkPos::containing(eye);
        let local = |v: i64| v.rem_euclid(CHUNK_SIZE as i64) as usize;
        let mut queue: VecDeque<(ChunkPos, usize)> = VecDeque::new();
        queue.push_back((start, block_index(local(eye[0]), local(eye[1]), local(eye[2]))));
        while let Some((pos, i)) = queue.pop_front() {
            reach.enter(pos, i, &chunk, &mut queue);
        }
        reach
    }

    /// Enters block `i` of chunk `pos` and floods all it can reach inside
    /// that chunk; steps out of the chunk go on `queue`.
    fn enter<'a>(
        &mut self,
        pos: ChunkPos,
        i: usize,
        chunk: &impl Fn(ChunkPos) -> Option<&'a Chunk>,
        queue: &mut VecDeque<(ChunkPos, usize)>,
    ) {
        let Some(c) = chunk(pos) else { return };
        if let Some(b) = c.blocks().uniform() {
            if is_opaque(b) || self.visits.contains_key(&pos) {
                return;
            }
            self.visits.insert(pos, Visit::Whole);
            // Every block of every face steps into the neighbour; a uniform
            // neighbour needs only one of them.
            for (d, s) in FACE_STEPS.iter().enumerate() {
                let n = ChunkPos::new(pos.x + s[0], pos.y + s[1], pos.z + s[2]);
                let Some(nc) = chunk(n) else { continue };
                let (a, dir) = (d / 2, s[d / 2]);
                let face = if dir < 0 { LAST } else { 0 };
                let on_face = |u: usize, v: usize| {
                    let mut p = [0; 3];
                    (p[a], p[(a + 1) % 3], p[(a + 2) % 3]) = (face, u, v);
                    block_index(p[0], p[1], p[2])
                };
                if nc.blocks().uniform().is_some() {
                    queue.push_back((n, on_face(0, 0)));
                } else {
                    for u in 0..CHUNK_SIZE {
                        for v in 0..CHUNK_SIZE {
                            queue.push_back((n, on_face(u, v)));
                        }
                    }
                }
            }
            return;
        }
        let visit = self.visits.entry(pos).or_insert_with(|| {
            let mut open = zeroed();
            for k in 0..CHUNK_VOLUME {
                if !is_opaque(c.blocks().get_index(k)) {
                    set(&mut open, k);
                }
            }
            Visit::Cells { open, reached: zeroed() }
        });
        let Visit::Cells { open, reached } = visit else { return };
        if !get(open, i) || get(reached, i) {
            return;
        }
        set(reached, i);
        self.cells += 1;
        let mut stack = vec![i];
        while let Some(k) = stack.pop() {
            for (d, s) in FACE_STEPS.iter().enumerate() {
                let a = d / 2;
                let (n, left) = step(k, a, s[a]);
                if left {
                    queue.push_back((ChunkPos::new(pos.x + s[0], pos.y + s[1], pos.z + s[2]), n));
                } else if get(open, n) && !get(reached, n) {
                    set(reached, n);
                    self.cells += 1;
                    stack.push(n);
                }
            }
        }
    }

    /// Whether a block of chunk `pos` was reached.
    pub fn reached(&self, pos: ChunkPos) -> bool {
        match self.visits.get(&pos) {
            Some(Visit::Whole) => true,
            Some(Visit::Cells { reached, .. }) => reached.iter().any(|&w| w != 0),
            None => false,
        }
    }

    /// Whether chunk `pos` can show the eye a face: a reached block lies in
    /// it or in one of its six face neighbours (a face on the chunk's
    /// border is seen through the neighbour's block).
    pub fn may_show(&self, pos: ChunkPos) -> bool {
        self.reached(pos)
            || FACE_STEPS.iter().any(|s| self.reached(ChunkPos::new(pos.x + s[0], pos.y + s[1], pos.z + s[2])))
    }

    /// Chunks with a reached block.
    pub fn reached_chunks(&self) -> usize {
        self.visits.keys().filter(|&&p| self.reached(p)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::chunk::ChunkBlocks;
    use std::collections::HashMap;

    fn uniform(pos: ChunkPos, b: BlockId) -> Chunk {
        Chunk::uniform(pos, b)
    }

    fn dense(pos: ChunkPos, f: impl Fn(usize, usize, usize) -> BlockId) -> Chunk {
        let mut ids = vec![BlockId::STONE; CHUNK_VOLUME].into_boxed_slice();
        for z in 0..CHUNK_SIZE {
            for x in 0..CHUNK_SIZE {
                for y in 0..CHUNK_SIZE {
                    ids[block_index(x, y, z)] = f(x, y, z);
                }
            }
        }
        let blocks = ChunkBlocks::Dense(ids);
        Chunk::from_blocks(pos, blocks)
    }

    /// Sky above, then a stone chunk with a cave pocket, and a cave
    /// pocket at the bottom of the ground chunk that `shaft` opens to the
    /// air through the chunk's top face (a column of air at x = z = 4).
    fn world(shaft: bool) -> HashMap<ChunkPos, Chunk> {
        let mut w = HashMap::new();
        let (sky, ground, deep) = (ChunkPos::new(0, 1, 0), ChunkPos::new(0, 0, 0), ChunkPos::new(0, -1, 0));
        w.insert(sky, uniform(sky, BlockId::AIR));
        w.insert(
            ground,
            dense(ground, |x, y, z| {
                let pocket = (10..14).contains(&x) && (2..6).contains(&y) && (4..8).contains(&z);
                let tunnel = (2..12).contains(&x) && (4..6).contains(&y) && (4..6).contains(&z);
                let up = shaft && x == 4 && z == 4 && y >= 4;
                if pocket || tunnel || up {
                    BlockId::AIR
                } else {
                    BlockId::STONE
                }
            }),
        );
        w.insert(
            deep,
            dense(deep, |x, y, z| {
                if (8..20).contains(&x) && (8..20).contains(&y) && (8..20).contains(&z) {
                    BlockId::AIR
                } else {
                    BlockId::STONE
                }
            }),
        );
        w
    }

    #[test]
    fn a_sealed_pocket_is_not_reached_and_a_shaft_opens_it() {
        let eye = [16, 40, 16];
        for shaft in [false, true] {
            let w = world(shaft);
            let reach = Reach::flood(eye, |p| w.get(&p));
            assert!(reach.reached(ChunkPos::new(0, 1, 0)), "the eye's own chunk");
            assert_eq!(reach.reached(ChunkPos::new(0, 0, 0)), shaft, "the pocket under the ground (shaft: {shaft})");
            assert!(!reach.reached(ChunkPos::new(0, -1, 0)), "the deep pocket is sealed either way");
            // The ground chunk's top blocks face the sky: it can show faces
            // with or without its cave; the deep one only through its
            // neighbour's reached blocks.
            assert!(reach.may_show(ChunkPos::new(0, 0, 0)));
            assert_eq!(reach.may_show(ChunkPos::new(0, -1, 0)), shaft);
            // The shaft (28 blocks), the tunnel (10 × 2 × 2) and the
            // pocket it runs into (4³), less what they share (2 and 8).
            let expect = if shaft { 28 + 40 + 64 - 2 - 8 } else { 0 };
            assert_eq!(reach.cells, expect);
        }
    }

    #[test]
    fn water_is_seen_through_and_the_flood_stops_at_unloaded_chunks() {
        let mut w = HashMap::new();
        for x in 0..3 {
            let p = ChunkPos::new(x, 0, 0);
            w.insert(p, uniform(p, if x == 1 { BlockId::WATER } else { BlockId::AIR }));
        }
        let reach = Reach::flood([5, 5, 5], |p| w.get(&p));
        assert!((0..3).all(|x| reach.reached(ChunkPos::new(x, 0, 0))), "through the water chunk");
        assert_eq!(reach.reached_chunks(), 3);
        assert!(!reach.reached(ChunkPos::new(3, 0, 0)), "not loaded");
        let nothing = Reach::flood([5, 5, 5], |_| None);
        assert_eq!(nothing.reached_chunks(), 0, "no chunk at the eye: nothing reached");
        let stone = uniform(ChunkPos::new(0, 0, 0), BlockId::STONE);
        let buried = Reach::flood([5, 5, 5], |p| if p.x == 0 { Some(&stone) } else { w.get(&p) });
        assert_eq!(buried.reached_chunks(), 0, "an eye inside rock reaches nothing");
    }

    #[test]
    fn steps_cross_faces_into_the_opposite_face() {
        assert_eq!(step(block_index(0, 5, 7), 0, -1), (block_index(LAST, 5, 7), true));
        assert_eq!(step(block_index(3, LAST, 7), 1, 1), (block_index(3, 0, 7), true));
        assert_eq!(step(block_index(3, 4, 7), 2, 1), (block_index(3, 4, 8), false));
        for i in [0, 77, CHUNK_VOLUME - 1] {
            assert_eq!(block_index(coords(i)[0], coords(i)[1], coords(i)[2]), i);
        }
    }
}
