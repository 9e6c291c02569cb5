//! `blockworld far-hash`: a digest of the far terrain around a column out to
//! a horizon, to compare engines as `region-hash` compares chunks.
//!
//! Order: the tiles nearest first (`FarRange::tiles`); per tile its level
//! (1 byte) and tile x, z (i32 LE), then per cell, row-major: the ground
//! height (i32 LE), the top and under blocks (1 byte each), and the crown's
//! surface (i32 LE, `i32::MIN` where none) and leaves (1 byte, 0 where
//! none). Digest: SHA-256 of those bytes, in hex.

use crate::backend::{BackendError, ChunkBackend};
use crate::far::clipmap::TileKey;
use crate::far::tile::{self, TILE_AREA};
use crate::far::FarRange;
use crate::worldgen::WorldGen;
use sha2::{Digest, Sha256};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FarHash {
    pub digest: String,
    pub tiles: usize,
}

/// Digests every far tile of `range`, its cells' columns made by `backend`
/// and assembled into tiles (top blocks, crowns) on the calling thread.
pub fn far_hash(world: &WorldGen, backend: &dyn ChunkBackend, range: FarRange) -> Result<FarHash, BackendError> {
    let tiles = range.tiles();
    let mut hasher = Sha256::new();
    // Bounded batches keep memory flat at the largest horizon.
    for batch in tiles.chunks(256) {
        let columns = backend.far_cells(batch)?;
        for (k, &key) in batch.iter().enumerate() {
            let cells = columns.get(k * TILE_AREA..(k + 1) * TILE_AREA).ok_or_else(|| BackendError::Device {
                stage: "far cells",
                message: format!("{} cells for {} tiles", columns.len(), batch.len()),
            })?;
            hash_tile(&mut hasher, key, &tile::assemble(world, key, cells));
        }
    }
    Ok(FarHash { digest: hasher.finalize().iter().map(|b| format!("{b:02x}")).collect(), tiles: tiles.len() })
}

fn hash_tile(h: &mut Sha256, key: TileKey, t: &tile::FarTile) {
    h.update([key.level]);
    h.update(key.x.to_le_bytes());
    h.update(key.z.to_le_bytes());
    for c in &t.cells {
        h.update(c.ground.to_le_bytes());
        h.update([c.top.0, c.under.0]);
        let (surface, leaves) = c.canopy.map_or((i32::MIN, 0), |t| (t.surface, t.leaves.0));
        h.update(surface.to_le_bytes());
        h.update([leaves]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::CpuBackend;
    use crate::worldgen::Preset;
    use std::sync::Arc;

    #[test]
    fn the_digest_is_the_same_on_one_thread_and_many_and_follows_the_seed() {
        let range = FarRange { eye: [40, -9], horizon: 3000 };
        let w = Arc::new(WorldGen::new(Preset::classic(), 3));
        let one = far_hash(&w, &CpuBackend::serial(w.clone()), range).unwrap();
        let many = far_hash(&w, &CpuBackend::parallel(w.clone()), range).unwrap();
        assert_eq!(one, many);
        assert_eq!(one.tiles, range.tiles().len());
        let other = Arc::new(WorldGen::new(Preset::classic(), 4));
        assert_ne!(far_hash(&other, &CpuBackend::serial(other.clone()), range).unwrap().digest, one.digest);
    }
}
