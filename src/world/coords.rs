//! Coordinate conventions.
//!
//! World block coordinates are i64 on all three axes (y is up). A chunk is
//! 32³ blocks; chunk coordinates are i32, so the world spans ±2³⁶ blocks on
//! every axis. Chunk (cx, cy, cz) covers blocks [32·cx, 32·cx + 32) on x, and
//! likewise on y and z. A chunk column (cx, cz) is every chunk with that x and
//! z; it shares one heightmap.
//!
//! Commands and saves accept positions within [`ACCEPTED_BLOCKS`] of the
//! origin on every axis, a much smaller range than the types allow: the
//! noise reads single-precision positions, which hold every whole block
//! only up to 2²⁴, and past that neighbouring columns merge into stripes.

use serde::Serialize;

pub const CHUNK_SIZE: usize = 32;
pub const CHUNK_SIZE_I64: i64 = CHUNK_SIZE as i64;
pub const CHUNK_AREA: usize = CHUNK_SIZE * CHUNK_SIZE;
pub const CHUNK_VOLUME: usize = CHUNK_AREA * CHUNK_SIZE;

/// Positions are accepted where every coordinate's magnitude is below
/// this many blocks (2²⁴: the last whole block an f32 holds exactly).
pub const ACCEPTED_BLOCKS: i64 = 1 << 24;
/// The same in chunks.
pub const ACCEPTED_CHUNKS: i64 = ACCEPTED_BLOCKS / CHUNK_SIZE_I64;

/// Why a block position is refused, if it is: each coordinate must be a
/// number whose magnitude is below [`ACCEPTED_BLOCKS`].
pub fn check_accepted(pos: [f64; 3]) -> Result<(), String> {
    // NaN is never within the range.
    match pos.iter().find(|v| v.is_nan() || v.abs() >= ACCEPTED_BLOCKS as f64) {
        None => Ok(()),
        Some(v) => Err(format!(
            "{v} is beyond the accepted range: every coordinate within ±{} blocks (±{} chunks); \
             farther out the terrain's single-precision noise loses whole blocks",
            ACCEPTED_BLOCKS - 1,
            ACCEPTED_CHUNKS - 1
        )),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ChunkPos {
    pub x: i32,
    pub y: i32,
    pub z: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ColumnPos {
    pub x: i32,
    pub z: i32,
}

impl ChunkPos {
    pub const fn new(x: i32, y: i32, z: i32) -> Self {
        Self { x, y, z }
    }
    pub fn column(self) -> ColumnPos {
        ColumnPos { x: self.x, z: self.z }
    }
    /// World coordinate of the chunk's lowest corner.
    pub fn origin(self) -> [i64; 3] {
        [self.x as i64 * CHUNK_SIZE_I64, self.y as i64 * CHUNK_SIZE_I64, self.z as i64 * CHUNK_SIZE_I64]
    }
    /// Why the chunk is refused, if it is (see [`check_accepted`]).
    pub fn check_accepted(self) -> Result<(), String> {
        match [self.x, self.y, self.z].into_iter().find(|v| (*v as i64).abs() >= ACCEPTED_CHUNKS) {
            None => Ok(()),
            Some(v) => Err(format!(
                "chunk coordinate {v} is beyond the accepted range: every coordinate within ±{} chunks \
                 (±{} blocks); farther out the terrain's single-precision noise loses whole blocks",
                ACCEPTED_CHUNKS - 1,
                ACCEPTED_BLOCKS - 1
            )),
        }
    }
    /// The chunk containing a world block coordinate.
    pub fn containing(block: [i64; 3]) -> Self {
        let c = |v: i64| v.div_euclid(CHUNK_SIZE_I64).clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        Self::new(c(block[0]), c(block[1]), c(block[2]))
    }
}

impl std::fmt::Display for ChunkPos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

/// Index of block (x, y, z) inside a chunk: y fastest, then x, then z.
/// A vertical column of 32 blocks is contiguous, which makes column fills
/// one 32-byte run and lets a GPU warp write one column coalesced.
#[inline(always)]
pub const fn block_index(x: usize, y: usize, z: usize) -> usize {
    (z * CHUNK_SIZE + x) * CHUNK_SIZE + y
}

/// The six face steps, as axis pairs (+ then −): step `d` runs along axis
/// `d / 2`, and `d ^ 1` is its opposite.
pub const FACE_STEPS: [[i32; 3]; 6] = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];

/// Index of column (x, z) in a chunk-sized heightmap: x fastest.
#[inline(always)]
pub const fn column_index(x: usize, z: usize) -> usize {
    z * CHUNK_SIZE + x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containing_floors_negative_coordinates() {
        assert_eq!(ChunkPos::containing([-1, 0, 31]), ChunkPos::new(-1, 0, 0));
        assert_eq!(ChunkPos::containing([-32, -33, 32]), ChunkPos::new(-1, -2, 1));
        let p = ChunkPos::new(-5, 7, 1_000_000);
        assert_eq!(ChunkPos::containing(p.origin()), p);
    }

    #[test]
    fn block_index_is_a_bijection() {
        let mut seen = vec![false; CHUNK_VOLUME];
        for z in 0..32 {
            for x in 0..32 {
                for y in 0..32 {
                    let i = block_index(x, y, z);
                    assert!(!seen[i]);
                    seen[i] = true;
                }
            }
        }
        assert_eq!(block_index(0, 1, 0), 1);
        assert_eq!(block_index(1, 0, 0), 32);
    }
}
