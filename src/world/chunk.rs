//! Chunk storage and per-chunk block statistics.

use super::block::{BlockId, MAX_BLOCK_TYPES, OPAQUE_IDS};
use super::coords::{block_index, ChunkPos, CHUNK_SIZE, CHUNK_VOLUME};
use super::packed::PackedBlocks;

/// The blocks of one chunk. A chunk made of one block type (all air above
/// the terrain, all stone deep below) is a single value, not 32 KiB; one of
/// a few types (stone, cave air and lava) is a palette and 1–4 bits a block.
/// Generation hands out `Uniform` or `Dense`; [`Chunk::compact`] packs a
/// chunk before the world store keeps it.
///
/// Equality is by content: a packed chunk equals the dense chunk it came
/// from, so determinism checks compare blocks, not storage choices.
#[derive(Clone, Debug)]
pub enum ChunkBlocks {
    Uniform(BlockId),
    /// `CHUNK_VOLUME` ids in [`block_index`] order.
    Dense(Box<[BlockId]>),
    Packed(PackedBlocks),
}

/// One y column of a chunk, bottom first, read without copying where the
/// storage allows.
pub enum Column<'a> {
    Uniform(BlockId),
    Dense(&'a [BlockId]),
    Packed([BlockId; CHUNK_SIZE]),
}

impl Column<'_> {
    #[inline(always)]
    pub fn get(&self, y: usize) -> BlockId {
        match self {
            Column::Uniform(b) => *b,
            Column::Dense(ids) => ids[y],
            Column::Packed(ids) => ids[y],
        }
    }
}

impl PartialEq for ChunkBlocks {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ChunkBlocks::Uniform(a), ChunkBlocks::Uniform(b)) => a == b,
            (ChunkBlocks::Dense(a), ChunkBlocks::Dense(b)) => a == b,
            _ => self.to_dense() == other.to_dense(),
        }
    }
}

impl Eq for ChunkBlocks {}

impl ChunkBlocks {
    pub fn get(&self, x: usize, y: usize, z: usize) -> BlockId {
        self.get_index(block_index(x, y, z))
    }

    pub fn get_index(&self, index: usize) -> BlockId {
        match self {
            ChunkBlocks::Uniform(b) => *b,
            ChunkBlocks::Dense(v) => v[index],
            ChunkBlocks::Packed(p) => p.get_index(index),
        }
    }

    /// Column (x, z): a slice of dense storage, or its ids unpacked.
    #[inline]
    pub fn column(&self, x: usize, z: usize) -> Column<'_> {
        match self {
            ChunkBlocks::Uniform(b) => Column::Uniform(*b),
            ChunkBlocks::Dense(v) => Column::Dense(&v[block_index(x, 0, z)..block_index(x, 0, z) + CHUNK_SIZE]),
            ChunkBlocks::Packed(p) => Column::Packed(p.column(x, z)),
        }
    }

    /// Block (x, 31, z) where `top`, else block (x, 0, z): what the chunk
    /// shows the chunk above or below it.
    #[inline(always)]
    pub fn end(&self, top: bool, x: usize, z: usize) -> BlockId {
        let y = if top { CHUNK_SIZE - 1 } else { 0 };
        match self {
            ChunkBlocks::Uniform(b) => *b,
            ChunkBlocks::Dense(v) => v[block_index(x, y, z)],
            ChunkBlocks::Packed(p) => p.end(top, x, z),
        }
    }

    pub fn uniform(&self) -> Option<BlockId> {
        match self {
            ChunkBlocks::Uniform(b) => Some(*b),
            ChunkBlocks::Dense(_) | ChunkBlocks::Packed(_) => None,
        }
    }

    /// Feeds all ids in index order to `sink` (uniform and packed chunks
    /// expanded a run at a time).
    pub fn for_each_run(&self, mut sink: impl FnMut(&[BlockId])) {
        const RUN: usize = 1024;
        match self {
            ChunkBlocks::Uniform(b) => {
                let run = [*b; RUN];
                for _ in 0..CHUNK_VOLUME / RUN {
                    sink(&run);
                }
            }
            ChunkBlocks::Dense(v) => sink(v),
            ChunkBlocks::Packed(p) => {
                let mut run = [BlockId::AIR; RUN];
                for start in (0..CHUNK_VOLUME).step_by(RUN) {
                    p.unpack_range(start, &mut run);
                    sink(&run);
                }
            }
        }
    }

    /// The ids as dense storage, for an edit (edited chunks stay dense).
    pub fn to_dense(&self) -> Box<[BlockId]> {
        match self {
            ChunkBlocks::Dense(v) => v.clone(),
            ChunkBlocks::Uniform(b) => vec![*b; CHUNK_VOLUME].into_boxed_slice(),
            ChunkBlocks::Packed(p) => {
                let mut v = vec![BlockId::AIR; CHUNK_VOLUME].into_boxed_slice();
                p.unpack_range(0, &mut v);
                v
            }
        }
    }

    /// Builds storage from dense ids, collapsing to `Uniform` when the
    /// counts say there is only one type.
    pub fn from_dense(ids: Box<[BlockId]>, counts: &BlockCounts) -> Self {
        match counts.single_type() {
            Some(b) => ChunkBlocks::Uniform(b),
            None => ChunkBlocks::Dense(ids),
        }
    }

    pub fn heap_bytes(&self) -> usize {
        match self {
            ChunkBlocks::Uniform(_) => 0,
            ChunkBlocks::Dense(v) => v.len(),
            ChunkBlocks::Packed(p) => p.heap_bytes(),
        }
    }
}

/// How many blocks of each type a chunk holds, produced by generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockCounts(pub [u32; MAX_BLOCK_TYPES]);

impl Default for BlockCounts {
    fn default() -> Self {
        Self([0; MAX_BLOCK_TYPES])
    }
}

impl BlockCounts {
    pub fn uniform(b: BlockId) -> Self {
        let mut c = [0; MAX_BLOCK_TYPES];
        c[b.0 as usize] = CHUNK_VOLUME as u32;
        Self(c)
    }
    pub fn get(&self, b: BlockId) -> u32 {
        self.0[b.0 as usize]
    }
    pub fn total(&self) -> u64 {
        self.0.iter().map(|&c| c as u64).sum()
    }
    /// Bit b set where type b has a block here.
    pub fn present(&self) -> u64 {
        self.0.iter().enumerate().fold(0, |m, (b, &c)| m | ((c != 0) as u64) << b)
    }
    pub fn single_type(&self) -> Option<BlockId> {
        self.0.iter().position(|&c| c as usize == CHUNK_VOLUME).map(|i| BlockId(i as u8))
    }
    /// Counts by walking the blocks; the reference the generated counts are
    /// checked against.
    pub fn tally(blocks: &ChunkBlocks) -> Self {
        let mut c = [0u32; MAX_BLOCK_TYPES];
        blocks.for_each_run(|run| {
            for b in run {
                c[b.0 as usize] += 1;
            }
        });
        Self(c)
    }
    pub fn add(&mut self, other: &BlockCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a += b;
        }
    }
}

/// A chunk's blocks and how many of each type it holds. The two change
/// together only, through [`Chunk::set`], so the counts never drift from
/// the blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub pos: ChunkPos,
    blocks: ChunkBlocks,
    counts: BlockCounts,
}

impl Chunk {
    /// A chunk whose `counts` were tallied as its `blocks` were made (the
    /// fill counts as it writes). A device's counts are its own word:
    /// `region-hash` checks them against the blocks.
    pub fn new(pos: ChunkPos, blocks: ChunkBlocks, counts: BlockCounts) -> Chunk {
        Chunk { pos, blocks, counts }
    }

    /// A chunk of `blocks`, counted here.
    pub fn from_blocks(pos: ChunkPos, blocks: ChunkBlocks) -> Chunk {
        let counts = BlockCounts::tally(&blocks);
        Chunk { pos, blocks, counts }
    }

    /// A chunk of one block type.
    pub fn uniform(pos: ChunkPos, block: BlockId) -> Chunk {
        Chunk { pos, blocks: ChunkBlocks::Uniform(block), counts: BlockCounts::uniform(block) }
    }

    pub fn blocks(&self) -> &ChunkBlocks {
        &self.blocks
    }

    pub fn counts(&self) -> &BlockCounts {
        &self.counts
    }

    /// Whether every block is opaque, from the counts: rock of several
    /// kinds (ore in stone) hides and links as little as uniform stone.
    pub fn is_solid(&self) -> bool {
        match self.blocks.uniform() {
            Some(b) => b.info().opaque(),
            None => self.counts.present() & !OPAQUE_IDS == 0,
        }
    }

    /// For each quarter of the chunk's columns (16 × 16, row-major with x
    /// fastest), a bit per height: set where every block of the quarter at
    /// that height is opaque. Far terrain behind a quarter whose drawn
    /// blocks are opaque through a band of heights is hidden there
    /// (`crate::far::occlusion`).
    pub fn solid_rows(&self) -> [u32; 4] {
        if self.is_solid() {
            return [u32::MAX; 4];
        }
        if self.counts.present() & OPAQUE_IDS == 0 {
            return [0; 4];
        }
        let mut opaque = [false; MAX_BLOCK_TYPES];
        for b in BlockId::all() {
            opaque[b.0 as usize] = b.info().opaque();
        }
        let half = CHUNK_SIZE / 2;
        let mut rows = [u32::MAX; 4];
        // Every chunk meshed is asked: a packed one answers a column at a
        // time, its types looked at once each.
        if let ChunkBlocks::Packed(p) = &self.blocks {
            p.column_masks(
                |b| opaque[b.0 as usize],
                |g, solid| {
                    let (x, z) = (g % CHUNK_SIZE, g / CHUNK_SIZE);
                    rows[x / half + 2 * (z / half)] &= solid;
                },
            );
            return rows;
        }
        for z in 0..CHUNK_SIZE {
            for x in 0..CHUNK_SIZE {
                let q = x / half + 2 * (z / half);
                let column = self.blocks.column(x, z);
                // Only heights still solid in the quarter need a look.
                let mut left = rows[q];
                while left != 0 {
                    let y = left.trailing_zeros();
                    if !opaque[column.get(y as usize).0 as usize] {
                        rows[q] &= !(1 << y);
                    }
                    left &= left - 1;
                }
            }
        }
        rows
    }

    /// Sets one block and moves one count from the old type to the new. A
    /// uniform or packed chunk becomes dense; a chunk that ends up one type
    /// becomes uniform again. Returns the block that was there.
    pub fn set(&mut self, index: usize, block: BlockId) -> BlockId {
        let old = self.blocks.get_index(index);
        if old == block {
            return old;
        }
        if !matches!(self.blocks, ChunkBlocks::Dense(_)) {
            self.blocks = ChunkBlocks::Dense(self.blocks.to_dense());
        }
        if let ChunkBlocks::Dense(ids) = &mut self.blocks {
            ids[index] = block;
        }
        self.counts.0[old.0 as usize] -= 1;
        self.counts.0[block.0 as usize] += 1;
        if let Some(only) = self.counts.single_type() {
            self.blocks = ChunkBlocks::Uniform(only);
            self.counts = BlockCounts::uniform(only);
        }
        old
    }

    /// Packs dense storage of at most [`super::packed::MAX_PALETTE`] types.
    /// Runs on the generation side, off the game thread, so neither the
    /// generation benchmarks nor the game loop pay for it.
    pub fn compact(&mut self) {
        if let ChunkBlocks::Dense(ids) = &self.blocks {
            if let Some(p) = PackedBlocks::pack(ids, &self.counts) {
                self.blocks = ChunkBlocks::Packed(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_chunks_collapse_and_tally() {
        let ids = vec![BlockId::STONE; CHUNK_VOLUME].into_boxed_slice();
        let counts = BlockCounts::uniform(BlockId::STONE);
        let blocks = ChunkBlocks::from_dense(ids, &counts);
        assert!(matches!(blocks, ChunkBlocks::Uniform(BlockId::STONE)));
        assert_eq!(blocks.heap_bytes(), 0);
        assert_eq!(BlockCounts::tally(&blocks), counts);
        assert_eq!(counts.total(), CHUNK_VOLUME as u64);
    }

    #[test]
    fn compacting_keeps_every_block_and_column() {
        let ids: Box<[BlockId]> =
            (0..CHUNK_VOLUME).map(|i| if i % 7 == 0 { BlockId::AIR } else { BlockId::STONE }).collect();
        let dense = ChunkBlocks::Dense(ids);
        let counts = BlockCounts::tally(&dense);
        let mut c = Chunk::new(ChunkPos::new(0, -3, 0), dense.clone(), counts);
        c.compact();
        assert!(matches!(c.blocks, ChunkBlocks::Packed(_)));
        let ends = 2 * CHUNK_SIZE * CHUNK_SIZE / 8 + 2;
        assert_eq!(
            c.blocks.heap_bytes(),
            CHUNK_VOLUME / 8 + 2 + ends,
            "two types: one bit a block, and the end layers"
        );
        assert_eq!(BlockCounts::tally(&c.blocks), counts);
        assert_eq!(c.blocks.to_dense(), dense.to_dense());
        assert_eq!(c.blocks, dense, "equality is by content, not storage");
        let mut changed = dense.to_dense();
        changed[12345] = BlockId::SAND;
        assert_ne!(c.blocks, ChunkBlocks::Dense(changed), "one different block makes them differ");
        for (x, z) in [(0, 0), (31, 0), (5, 17), (31, 31)] {
            let (a, b) = (c.blocks.column(x, z), dense.column(x, z));
            assert!((0..CHUNK_SIZE).all(|y| a.get(y) == b.get(y)), "column {x},{z}");
        }
    }

    #[test]
    fn solid_rows_are_the_heights_opaque_across_a_quarter() {
        assert_eq!(Chunk::uniform(ChunkPos::new(0, 0, 0), BlockId::STONE).solid_rows(), [u32::MAX; 4]);
        assert_eq!(Chunk::uniform(ChunkPos::new(0, 0, 0), BlockId::AIR).solid_rows(), [0; 4]);
        // Stone up to height 9; in the north-east quarter (x ≥ 16, z < 16)
        // one column is air at height 4, and one leaf sits at height 7 in
        // the south-west quarter; water lies over the stone everywhere.
        let mut ids = vec![BlockId::WATER; CHUNK_VOLUME].into_boxed_slice();
        for z in 0..CHUNK_SIZE {
            for x in 0..CHUNK_SIZE {
                for y in 0..10 {
                    ids[block_index(x, y, z)] = BlockId::STONE;
                }
            }
        }
        ids[block_index(20, 4, 3)] = BlockId::AIR;
        ids[block_index(2, 7, 30)] = BlockId::LEAVES;
        let mut c = Chunk::from_blocks(ChunkPos::new(0, 0, 0), ChunkBlocks::Dense(ids));
        let full = (1u32 << 10) - 1;
        let expect = [full, full & !(1 << 4), full & !(1 << 7), full];
        assert_eq!(c.solid_rows(), expect);
        c.compact();
        assert_eq!(c.solid_rows(), expect, "packed storage reads the same");
    }
}
