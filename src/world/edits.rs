//! Player edits as per-chunk deltas over the generated chunk.
//!
//! Generation is deterministic, so a world is (preset, seed) plus these
//! deltas: only what the player changed is ever kept or saved.

use super::block::{BlockId, BLOCKS};
use super::chunk::Chunk;
use super::coords::{ChunkPos, CHUNK_SIZE, CHUNK_VOLUME};
use std::collections::BTreeMap;

/// A block position in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockPos {
    pub x: i64,
    pub y: i64,
    pub z: i64,
}

impl BlockPos {
    pub fn new(x: i64, y: i64, z: i64) -> Self {
        BlockPos { x, y, z }
    }

    /// The position `d` away (wrapping: callers stay within the accepted range).
    pub fn offset(self, d: [i64; 3]) -> Self {
        BlockPos::new(self.x.wrapping_add(d[0]), self.y.wrapping_add(d[1]), self.z.wrapping_add(d[2]))
    }

    /// The block holding point `p` (an eye, a player's feet).
    pub fn containing(p: glam::DVec3) -> Self {
        BlockPos::new(p.x.floor() as i64, p.y.floor() as i64, p.z.floor() as i64)
    }

    /// The chunk holding this block, or None beyond the i32 chunk range.
    pub fn chunk(self) -> Option<ChunkPos> {
        let c = |v: i64| i32::try_from(v.div_euclid(CHUNK_SIZE as i64)).ok();
        Some(ChunkPos::new(c(self.x)?, c(self.y)?, c(self.z)?))
    }

    /// Coordinates inside its chunk, each in 0..32.
    pub fn local(self) -> [usize; 3] {
        let l = |v: i64| v.rem_euclid(CHUNK_SIZE as i64) as usize;
        [l(self.x), l(self.y), l(self.z)]
    }
}

impl std::fmt::Display for BlockPos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{},{}", self.x, self.y, self.z)
    }
}

/// One chunk's edits: block index (chunk index order) → the block there now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkEdits(pub BTreeMap<u16, BlockId>);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DeltaError {
    #[error("an edit delta of {0} bytes is not a whole number of 4-byte entries")]
    Length(usize),
    #[error("an edit delta names block index {0}, beyond a chunk")]
    Index(u16),
    #[error("an edit delta names block id {0}, which this registry does not have")]
    Block(u16),
}

impl ChunkEdits {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn set(&mut self, index: usize, block: BlockId) {
        self.0.insert(index as u16, block);
    }

    /// Applies the edits to a generated chunk, keeping its counts right.
    pub fn apply(&self, chunk: &mut Chunk) {
        for (&i, &b) in &self.0 {
            chunk.set(i as usize, b);
        }
    }

    /// The saved form: (index u16, block id u16) little-endian, by index.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.0.len() * 4);
        for (&i, &b) in &self.0 {
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&(b.0 as u16).to_le_bytes());
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<ChunkEdits, DeltaError> {
        if !bytes.len().is_multiple_of(4) {
            return Err(DeltaError::Length(bytes.len()));
        }
        let mut map = BTreeMap::new();
        for e in bytes.chunks_exact(4) {
            let i = u16::from_le_bytes([e[0], e[1]]);
            let b = u16::from_le_bytes([e[2], e[3]]);
            if i as usize >= CHUNK_VOLUME {
                return Err(DeltaError::Index(i));
            }
            if b as usize >= BLOCKS.len() {
                return Err(DeltaError::Block(b));
            }
            map.insert(i, BlockId(b as u8));
        }
        Ok(ChunkEdits(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::chunk::{BlockCounts, ChunkBlocks};
    use crate::world::coords::block_index;

    #[test]
    fn deltas_round_trip_and_bad_blobs_are_refused() {
        let mut e = ChunkEdits::default();
        e.set(block_index(1, 2, 3), BlockId::GLASS);
        e.set(0, BlockId::AIR);
        assert_eq!(ChunkEdits::decode(&e.encode()), Ok(e.clone()));
        assert_eq!(ChunkEdits::decode(&[1, 2, 3]), Err(DeltaError::Length(3)));
        assert_eq!(ChunkEdits::decode(&[0xFF, 0xFF, 0, 0]), Err(DeltaError::Index(0xFFFF)));
        assert_eq!(ChunkEdits::decode(&[0, 0, 0xFF, 0]), Err(DeltaError::Block(255)));
    }

    #[test]
    fn block_positions_split_into_chunk_and_local_far_from_the_origin() {
        let p = BlockPos::new(-1, 32, 1_000_000_007);
        assert_eq!(p.chunk(), Some(ChunkPos::new(-1, 1, 31_250_000)));
        assert_eq!(p.local(), [31, 0, 7]);
        assert_eq!(BlockPos::new(i64::MAX, 0, 0).chunk(), None);
    }

    #[test]
    fn setting_blocks_keeps_counts_and_storage_right() {
        let mut c = Chunk::uniform(ChunkPos::new(0, 0, 0), BlockId::STONE);
        assert_eq!(c.set(5, BlockId::AIR), BlockId::STONE);
        assert!(c.blocks().uniform().is_none());
        assert_eq!(*c.counts(), BlockCounts::tally(c.blocks()));
        c.set(5, BlockId::STONE);
        assert_eq!(*c.blocks(), ChunkBlocks::Uniform(BlockId::STONE), "back to one type, back to one value");

        c.set(5, BlockId::AIR);
        c.compact();
        assert!(matches!(c.blocks(), ChunkBlocks::Packed(_)));
        assert_eq!(c.set(100, BlockId::LAVA), BlockId::STONE);
        assert!(matches!(c.blocks(), ChunkBlocks::Dense(_)), "an edited chunk is dense");
        assert_eq!([5, 100, 6].map(|i| c.blocks().get_index(i)), [BlockId::AIR, BlockId::LAVA, BlockId::STONE]);
        assert_eq!(*c.counts(), BlockCounts::tally(c.blocks()));
    }
}
