//! Chunk storage and per-chunk block statistics.

use super::block::{BlockId, MAX_BLOCK_TYPES};
use super::coords::{block_index, ChunkPos, CHUNK_VOLUME};

/// The blocks of one chunk. A chunk made of one block type (all air above
/// the terrain, all stone deep below) is a single value, not 32 KiB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkBlocks {
    Uniform(BlockId),
    /// `CHUNK_VOLUME` ids in [`block_index`] order.
    Dense(Box<[BlockId]>),
}

impl ChunkBlocks {
    pub fn get(&self, x: usize, y: usize, z: usize) -> BlockId {
        match self {
            ChunkBlocks::Uniform(b) => *b,
            ChunkBlocks::Dense(v) => v[block_index(x, y, z)],
        }
    }

    pub fn uniform(&self) -> Option<BlockId> {
        match self {
            ChunkBlocks::Uniform(b) => Some(*b),
            ChunkBlocks::Dense(_) => None,
        }
    }

    /// Feeds all ids in index order to `sink` (uniform chunks expanded).
    pub fn for_each_run(&self, mut sink: impl FnMut(&[BlockId])) {
        match self {
            ChunkBlocks::Uniform(b) => {
                let run = [*b; 1024];
                for _ in 0..CHUNK_VOLUME / run.len() {
                    sink(&run);
                }
            }
            ChunkBlocks::Dense(v) => sink(v),
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
        }
    }
}

/// How many blocks of each type a chunk holds, produced by generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct BlockCounts(pub [u32; MAX_BLOCK_TYPES]);

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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub pos: ChunkPos,
    pub blocks: ChunkBlocks,
    pub counts: BlockCounts,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_chunks_collapse_and_tally() {
        let ids = vec![BlockId::STONE; CHUNK_VOLUME].into_boxed_slice();
        let counts = BlockCounts::uniform(BlockId::STONE);
        let blocks = ChunkBlocks::from_dense(ids, &counts);
        assert_eq!(blocks, ChunkBlocks::Uniform(BlockId::STONE));
        assert_eq!(blocks.heap_bytes(), 0);
        assert_eq!(BlockCounts::tally(&blocks), counts);
        assert_eq!(counts.total(), CHUNK_VOLUME as u64);
    }
}
