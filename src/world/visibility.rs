//! Which faces of a chunk see each other: for each of the 15 pairs of its
//! six faces, whether a path of non-opaque blocks inside the chunk joins a
//! block on one face to a block on the other.
//!
//! Why: a line of sight that enters a chunk through one face and leaves
//! through another crosses only open blocks, so it runs along such a path.
//! The renderer walks chunks outward from the eye through linked faces
//! (`render::culling`), and a chunk no walk reaches shows the eye nothing:
//! sealed caves and the rock around them are not drawn.
//!
//! The flood runs on column bitmasks (bit y of column (x, z), as the
//! mesher's visibility does), 32 blocks a step.

use super::block::{BlockId, MAX_BLOCK_TYPES};
use super::chunk::Chunk;
use super::coords::{ChunkPos, CHUNK_AREA, CHUNK_SIZE};

/// Face `d` is the chunk side that step `d` of
/// [`FACE_STEPS`](super::coords::FACE_STEPS) leaves through: 0 +x, 1 −x,
/// 2 +y, 3 −y, 4 +z, 5 −z. `d ^ 1` is the opposite face.
pub const FACES: usize = 6;

/// The 15 face pairs of one chunk, one bit each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FaceLinks(u16);

/// Bit of the pair (a, b), a ≠ b, in a triangle of the 6 × 6 pairs.
const fn pair_bit(a: usize, b: usize) -> u16 {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    1 << (a * (11 - a) / 2 + b - a - 1)
}

/// The bit of each pair, 0 on the diagonal.
const PAIRS: [[u16; FACES]; FACES] = {
    let mut t = [[0; FACES]; FACES];
    let mut a = 0;
    while a < FACES {
        let mut b = 0;
        while b < FACES {
            if a != b {
                t[a][b] = pair_bit(a, b);
            }
            b += 1;
        }
        a += 1;
    }
    t
};

impl FaceLinks {
    /// No face sees another (solid rock, or open pockets that touch at
    /// most one face).
    pub const NONE: FaceLinks = FaceLinks(0);
    /// Every face sees every other (air, water, or not known yet).
    pub const ALL: FaceLinks = FaceLinks((1 << 15) - 1);

    /// Whether faces `a` and `b` see each other. A face is not linked to
    /// itself: a sight line never leaves through the face it came in by.
    pub fn sees(self, a: usize, b: usize) -> bool {
        a != b && self.0 & pair_bit(a, b) != 0
    }

    /// These links with (a, b) set (or cleared).
    pub fn with(self, a: usize, b: usize, linked: bool) -> FaceLinks {
        if a == b {
            return self;
        }
        FaceLinks(if linked { self.0 | pair_bit(a, b) } else { self.0 & !pair_bit(a, b) })
    }

    /// Faces any face in `from` sees, as a 6-bit mask.
    pub fn seen_from(self, from: u8) -> u8 {
        if self == FaceLinks::ALL {
            // Every face but the one entered by, if it is the only one.
            return if from.count_ones() == 1 {
                0x3f & !from
            } else if from == 0 {
                0
            } else {
                0x3f
            };
        }
        let mut seen = 0;
        let mut rest = from;
        while rest != 0 {
            let a = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            for (b, &bit) in PAIRS[a].iter().enumerate() {
                if self.0 & bit != 0 {
                    seen |= 1 << b;
                }
            }
        }
        seen
    }

    pub fn bits(self) -> u16 {
        self.0
    }

    pub fn from_bits(bits: u16) -> FaceLinks {
        FaceLinks(bits & FaceLinks::ALL.0)
    }

    /// The links of a chunk's blocks.
    pub fn of(chunk: &Chunk) -> FaceLinks {
        if chunk.is_solid() {
            return FaceLinks::NONE;
        }
        if chunk.blocks().uniform().is_some() {
            return FaceLinks::ALL;
        }
        FaceLinks::from_open(&open_columns(chunk))
    }

    /// The links of a chunk whose open blocks are `open`: bit y of
    /// column z·32 + x (the mesher has these masks at hand).
    pub fn from_open(open: &[u32; CHUNK_AREA]) -> FaceLinks {
        let mut flood = Flood { open, visited: [0; CHUNK_AREA], stack: Vec::new() };
        let mut links = FaceLinks::NONE;
        const TOP_BOTTOM: u32 = 1 | 1 << (CHUNK_SIZE - 1);
        for (c, &column) in open.iter().enumerate() {
            let (x, z) = (c % CHUNK_SIZE, c / CHUNK_SIZE);
            let side = x == 0 || x == CHUNK_SIZE - 1 || z == 0 || z == CHUNK_SIZE - 1;
            let border = if side { u32::MAX } else { TOP_BOTTOM };
            loop {
                let seeds = border & column & !flood.visited[c];
                if seeds == 0 {
                    break;
                }
                let faces = flood.component(c, seeds & seeds.wrapping_neg());
                for a in 0..FACES {
                    for b in a + 1..FACES {
                        if faces >> a & 1 != 0 && faces >> b & 1 != 0 {
                            links = links.with(a, b, true);
                        }
                    }
                }
            }
        }
        links
    }
}

/// Face links by chunk position in a toroidal grid (x and z modulo 128,
/// y modulo 32), so a walk over the loaded range reads them without
/// hashing: at render distance 32 the renderer's walk reads ~20 000 a
/// frame, and lookups in the store's map missed the cache on most.
///
/// A slot is four bytes: the links, and a tag of the position's next bits
/// up (5 of x, 6 of y, 4 of z; the 16th bit marks an empty slot). The grid
/// is wider than any loaded range (67 columns, 23 levels) and a tag tells
/// apart positions up to 2 048 chunks apart, far beyond it, so a slot
/// answers only for the chunk last set in it. Should two loaded chunks ever share a slot, the later one wins and
/// the other reads as open, which culls less, never more.
#[derive(Default)]
pub struct LinkIndex {
    slots: Vec<u32>,
}

const INDEX_XZ: i32 = 128;
const INDEX_Y: i32 = 32;
/// A slot no chunk was set in: open, and a tag no position has (bit 15,
/// above the 15 bits of a position's tag).
const EMPTY: u32 = (FaceLinks::ALL.0 as u32) | 0x8000 << 16;

impl LinkIndex {
    /// The slot (y fastest: the walk steps up and down most) and the tag.
    fn slot(p: ChunkPos) -> (usize, u32) {
        let (x, y, z) = (p.x.rem_euclid(INDEX_XZ), p.y.rem_euclid(INDEX_Y), p.z.rem_euclid(INDEX_XZ));
        let (tx, ty, tz) = (p.x.div_euclid(INDEX_XZ) & 31, p.y.div_euclid(INDEX_Y) & 63, p.z.div_euclid(INDEX_XZ) & 15);
        (((z * INDEX_XZ + x) * INDEX_Y + y) as usize, (tx | ty << 5 | tz << 11) as u32)
    }

    /// The links of `pos`; open when not recorded.
    pub fn get(&self, pos: ChunkPos) -> FaceLinks {
        let (i, tag) = Self::slot(pos);
        match self.slots.get(i) {
            Some(&v) if v >> 16 == tag => FaceLinks(v as u16),
            _ => FaceLinks::ALL,
        }
    }

    /// Whether `pos` itself was set last in its slot and not removed
    /// since: a loaded chunk, up to positions 2 048 chunks apart.
    pub fn holds(&self, pos: ChunkPos) -> bool {
        let (i, tag) = Self::slot(pos);
        self.slots.get(i).is_some_and(|&v| v >> 16 == tag)
    }

    pub fn set(&mut self, pos: ChunkPos, links: Option<FaceLinks>) {
        if self.slots.is_empty() {
            self.slots = vec![EMPTY; (INDEX_XZ * INDEX_XZ * INDEX_Y) as usize];
        }
        let (i, tag) = Self::slot(pos);
        self.slots[i] = tag << 16 | links.unwrap_or(FaceLinks::ALL).0 as u32;
    }

    pub fn remove(&mut self, pos: ChunkPos) {
        let (i, tag) = Self::slot(pos);
        if let Some(v) = self.slots.get_mut(i) {
            if *v >> 16 == tag {
                *v = EMPTY;
            }
        }
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<u32>()
    }
}

/// Bit y of column z·32 + x is set where the block is not opaque.
fn open_columns(chunk: &Chunk) -> [u32; CHUNK_AREA] {
    let mut opaque = [false; MAX_BLOCK_TYPES];
    for b in BlockId::all() {
        opaque[b.0 as usize] = b.info().opaque();
    }
    let mut open = [0u32; CHUNK_AREA];
    let mut index = 0;
    // Block index (z·32 + x)·32 + y: the ids come column by column.
    chunk.blocks().for_each_run(|run| {
        for &b in run {
            if !opaque[b.0 as usize] {
                open[index / CHUNK_SIZE] |= 1 << (index % CHUNK_SIZE);
            }
            index += 1;
        }
    });
    open
}

struct Flood<'a> {
    open: &'a [u32; CHUNK_AREA],
    visited: [u32; CHUNK_AREA],
    stack: Vec<(usize, u32)>,
}

/// The open blocks of a column reachable along y from `seeds` (a
/// Kogge–Stone fill each way through the open run).
fn fill_column(seeds: u32, open: u32) -> u32 {
    let (mut up, mut pu) = (seeds, open);
    let (mut down, mut pd) = (seeds, open);
    for shift in [1, 2, 4, 8, 16] {
        up |= pu & (up << shift);
        pu &= pu << shift;
        down |= pd & (down >> shift);
        pd &= pd >> shift;
    }
    (up | down) & open
}

impl Flood<'_> {
    /// Floods the open component holding `seed` (one bit of column `c`),
    /// marks it visited, and returns the faces it touches as a 6-bit mask.
    fn component(&mut self, c: usize, seed: u32) -> u8 {
        let mut faces = 0u8;
        self.stack.push((c, seed));
        while let Some((c, seeds)) = self.stack.pop() {
            let fresh = fill_column(seeds, self.open[c]) & !self.visited[c];
            if fresh == 0 {
                continue;
            }
            self.visited[c] |= fresh;
            let (x, z) = (c % CHUNK_SIZE, c / CHUNK_SIZE);
            const LAST: usize = CHUNK_SIZE - 1;
            faces |= u8::from(x == LAST)
                | u8::from(x == 0) << 1
                | u8::from(fresh >> LAST != 0) << 2
                | u8::from(fresh & 1 != 0) << 3
                | u8::from(z == LAST) << 4
                | u8::from(z == 0) << 5;
            let mut spread = |n: usize| {
                let next = fresh & self.open[n] & !self.visited[n];
                if next != 0 {
                    self.stack.push((n, next));
                }
            };
            if x > 0 {
                spread(c - 1);
            }
            if x < LAST {
                spread(c + 1);
            }
            if z > 0 {
                spread(c - CHUNK_SIZE);
            }
            if z < LAST {
                spread(c + CHUNK_SIZE);
            }
        }
        faces
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::chunk::ChunkBlocks;
    use crate::world::coords::{block_index, CHUNK_VOLUME};

    fn chunk(f: impl Fn(usize, usize, usize) -> BlockId) -> Chunk {
        let mut ids = vec![BlockId::STONE; CHUNK_VOLUME].into_boxed_slice();
        for z in 0..CHUNK_SIZE {
            for x in 0..CHUNK_SIZE {
                for y in 0..CHUNK_SIZE {
                    ids[block_index(x, y, z)] = f(x, y, z);
                }
            }
        }
        Chunk::from_blocks(ChunkPos::new(0, 0, 0), ChunkBlocks::Dense(ids))
    }

    /// The faces linked, as pairs, by a plain block-by-block flood.
    fn reference(c: &Chunk) -> FaceLinks {
        const L: usize = CHUNK_SIZE - 1;
        let open = |i: usize| !c.blocks().get_index(i).info().opaque();
        let mut seen = vec![false; CHUNK_VOLUME];
        let mut links = FaceLinks::NONE;
        for start in 0..CHUNK_VOLUME {
            if seen[start] || !open(start) {
                continue;
            }
            seen[start] = true;
            let mut stack = vec![start];
            let mut faces = 0u8;
            while let Some(i) = stack.pop() {
                let (z, x, y) = (i / (CHUNK_SIZE * CHUNK_SIZE), (i / CHUNK_SIZE) % CHUNK_SIZE, i % CHUNK_SIZE);
                let on = [x == L, x == 0, y == L, y == 0, z == L, z == 0];
                for (f, &o) in on.iter().enumerate() {
                    faces |= u8::from(o) << f;
                }
                let p = [x as i32, y as i32, z as i32];
                for s in crate::world::coords::FACE_STEPS {
                    let q = [p[0] + s[0], p[1] + s[1], p[2] + s[2]];
                    if q.iter().any(|&v| !(0..CHUNK_SIZE as i32).contains(&v)) {
                        continue;
                    }
                    let j = block_index(q[0] as usize, q[1] as usize, q[2] as usize);
                    if !seen[j] && open(j) {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
            for a in 0..FACES {
                for b in 0..FACES {
                    if faces >> a & 1 != 0 && faces >> b & 1 != 0 {
                        links = links.with(a, b, true);
                    }
                }
            }
        }
        links
    }

    #[test]
    fn pairs_have_distinct_bits_and_read_back() {
        let mut all = 0u16;
        for a in 0..FACES {
            for b in a + 1..FACES {
                assert_eq!(all & pair_bit(a, b), 0);
                all |= pair_bit(a, b);
                assert_eq!(pair_bit(a, b), pair_bit(b, a));
                let one = FaceLinks::NONE.with(a, b, true);
                assert!(one.sees(a, b) && one.sees(b, a));
                assert_eq!(one.seen_from(1 << a), 1 << b);
            }
        }
        assert_eq!(all, FaceLinks::ALL.bits());
        assert!(!FaceLinks::ALL.sees(2, 2));
    }

    #[test]
    fn shapes_link_the_faces_they_open() {
        let air = Chunk::uniform(ChunkPos::new(0, 0, 0), BlockId::AIR);
        assert_eq!(FaceLinks::of(&air), FaceLinks::ALL);
        let rock = Chunk::uniform(ChunkPos::new(0, 0, 0), BlockId::STONE);
        assert_eq!(FaceLinks::of(&rock), FaceLinks::NONE);
        // A tunnel along x at y = z = 10 joins +x and −x only.
        let tunnel = chunk(|_, y, z| if y == 10 && z == 10 { BlockId::AIR } else { BlockId::STONE });
        assert_eq!(FaceLinks::of(&tunnel), FaceLinks::NONE.with(0, 1, true));
        // Ore in stone is closed; the same tunnel through it is not.
        let ore = |x: usize, y: usize, z: usize| {
            if (x + y + z).is_multiple_of(5) {
                BlockId::COAL_ORE
            } else {
                BlockId::STONE
            }
        };
        assert_eq!(FaceLinks::of(&chunk(ore)), FaceLinks::NONE);
        let ore_tunnel = chunk(|x, y, z| if y == 10 && z == 10 { BlockId::AIR } else { ore(x, y, z) });
        assert_eq!(FaceLinks::of(&ore_tunnel), FaceLinks::NONE.with(0, 1, true));
        // A sealed pocket links nothing; an L-shaped bend links its ends.
        let pocket = chunk(|x, y, z| {
            if (5..9).contains(&x) && (5..9).contains(&y) && (5..9).contains(&z) {
                BlockId::AIR
            } else {
                BlockId::STONE
            }
        });
        assert_eq!(FaceLinks::of(&pocket), FaceLinks::NONE);
        let bend = chunk(|x, y, z| {
            if (z == 4 && y == 4 && x <= 4) || (x == 4 && z == 4 && y >= 4) {
                BlockId::AIR
            } else {
                BlockId::STONE
            }
        });
        assert_eq!(FaceLinks::of(&bend), FaceLinks::NONE.with(1, 2, true));
        // Ground with air above: the sides and the top see each other, the
        // bottom sees nothing; water and leaves are seen through.
        let ground = chunk(|_, y, _| match y {
            0..=11 => BlockId::STONE,
            12..=14 => BlockId::WATER,
            15 => BlockId::LEAVES,
            _ => BlockId::AIR,
        });
        let links = FaceLinks::of(&ground);
        assert!(links.sees(0, 2) && links.sees(4, 5) && links.sees(1, 4));
        assert_eq!(links.seen_from(1 << 3), 0, "the bottom is rock");
    }

    #[test]
    fn column_flood_agrees_with_a_block_flood() {
        // Random caves: noise-like open blocks at several densities.
        let mut seed = 0x9e37_79b9_u32;
        for density in [30u32, 45, 55, 65] {
            for _ in 0..4 {
                seed = seed.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
                let s = seed;
                let c = chunk(|x, y, z| {
                    let h = (x as u32).wrapping_mul(73_856_093)
                        ^ (y as u32).wrapping_mul(19_349_663)
                        ^ (z as u32).wrapping_mul(83_492_791)
                        ^ s;
                    let h = h.wrapping_mul(0x2c1b_3c6d) >> 7;
                    if h % 100 < density {
                        BlockId::AIR
                    } else {
                        BlockId::STONE
                    }
                });
                assert_eq!(FaceLinks::of(&c), reference(&c), "density {density}");
            }
        }
    }

    #[test]
    fn the_index_reads_back_what_it_holds_and_open_elsewhere() {
        let mut index = LinkIndex::default();
        let (a, b) = (ChunkPos::new(-3, 2, 70), ChunkPos::new(-3 + 128, 2 + 32, 70));
        assert_eq!(index.get(a), FaceLinks::ALL);
        index.set(a, Some(FaceLinks::NONE));
        assert_eq!(index.get(a), FaceLinks::NONE);
        assert_eq!(index.get(b), FaceLinks::ALL, "the same slot, another chunk");
        index.set(b, Some(FaceLinks::NONE.with(0, 1, true)));
        assert_eq!(index.get(a), FaceLinks::ALL, "overwritten: open, never closed");
        index.remove(a);
        assert_eq!(index.get(b), FaceLinks::NONE.with(0, 1, true), "removing another chunk leaves the slot");
        index.remove(b);
        assert_eq!(index.get(b), FaceLinks::ALL);
    }

    #[test]
    fn the_index_holds_exactly_the_chunks_set_in_it() {
        let mut index = LinkIndex::default();
        let a = ChunkPos::new(5, -1, 9);
        assert!(!index.holds(a), "an empty index holds nothing");
        index.set(a, None);
        assert!(index.holds(a));
        // Every slot untouched, at positions whose high bits vary: none
        // may read as held (an empty slot's tag is no position's).
        for &(x, y, z) in &[(0, 0, 2048), (0, 0, 2100), (-4096, -64, -2048), (4095, 63, 2047), (127, 31, 127)] {
            assert!(!index.holds(ChunkPos::new(x, y, z)), "({x}, {y}, {z}) was never set");
        }
        let b = ChunkPos::new(5 + 128, -1, 9);
        index.set(b, None);
        assert!(index.holds(b) && !index.holds(a), "the same slot answers for the chunk set last");
        index.remove(b);
        assert!(!index.holds(b));
    }

    #[test]
    fn fill_stops_at_closed_blocks() {
        assert_eq!(fill_column(1 << 4, 0b0111_1100), 0b0111_1100);
        assert_eq!(fill_column(1 << 4 | 1 << 2, 0b0111_1100), 0b0111_1100);
        assert_eq!(fill_column(1 << 9, 0b1110_0111_0000_0000), 0b0000_0111_0000_0000);
        assert_eq!(fill_column(1 << 31, u32::MAX), u32::MAX);
    }
}
