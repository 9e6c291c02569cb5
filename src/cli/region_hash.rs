//! `blockworld region-hash`: a digest of every block in a box of chunks, to
//! compare backends, thread counts and versions.
//!
//! Order: chunks by z, then y, then x (x fastest), each chunk's 32768 block
//! ids in chunk index order (y fastest, then x, then z), uniform chunks
//! expanded. Digest: SHA-256 of those bytes, in hex.

use crate::backend::{BackendError, ChunkBackend};
use crate::world::chunk::BlockCounts;
use crate::world::coords::ChunkPos;
use sha2::{Digest, Sha256};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionHash {
    pub digest: String,
    pub chunks: u64,
    /// Block counts over the region, as reported by generation.
    pub counts: BlockCounts,
    /// True when every chunk's reported counts matched its blocks.
    pub counts_consistent: bool,
    /// Each chunk's own digest, in digest order, when asked for.
    pub per_chunk: Vec<(ChunkPos, String)>,
}

impl RegionHash {
    /// Block name → count over the region, every registered block, as JSON.
    pub fn counts_json(&self) -> String {
        let map: serde_json::Map<String, serde_json::Value> = crate::world::block::BlockId::all()
            .map(|b| (b.name().to_string(), serde_json::Value::from(self.counts.0[b.0 as usize])))
            .collect();
        serde_json::Value::Object(map).to_string()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, thiserror::Error)]
pub enum RegionError {
    #[error("--from {from} must not exceed --to {to} on any axis")]
    Inverted { from: ChunkPos, to: ChunkPos },
    #[error("the region has {0} chunks; at most 1048576 are allowed")]
    TooLarge(u64),
    #[error(transparent)]
    Backend(#[from] BackendError),
}

/// Chunks of the inclusive box, in digest order.
pub fn region_positions(from: ChunkPos, to: ChunkPos) -> Result<Vec<ChunkPos>, RegionError> {
    if from.x > to.x || from.y > to.y || from.z > to.z {
        return Err(RegionError::Inverted { from, to });
    }
    let span = |a: i32, b: i32| (b as i64 - a as i64 + 1) as u64;
    let n = span(from.x, to.x).saturating_mul(span(from.y, to.y)).saturating_mul(span(from.z, to.z));
    if n > 1 << 20 {
        return Err(RegionError::TooLarge(n));
    }
    let mut v = Vec::with_capacity(n as usize);
    for z in from.z..=to.z {
        for y in from.y..=to.y {
            for x in from.x..=to.x {
                v.push(ChunkPos::new(x, y, z));
            }
        }
    }
    Ok(v)
}

/// Digests the box; with `per_chunk`, also each chunk alone (SHA-256 of its
/// bytes in the same order).
pub fn region_hash(
    backend: &dyn ChunkBackend,
    from: ChunkPos,
    to: ChunkPos,
    per_chunk: bool,
) -> Result<RegionHash, RegionError> {
    let positions = region_positions(from, to)?;
    let mut hasher = Sha256::new();
    let mut total = BlockCounts::default();
    let mut consistent = true;
    let mut each = Vec::new();
    // Bounded batches keep memory flat for large regions.
    for batch in positions.chunks(4096) {
        let chunks = backend.generate(batch)?;
        for chunk in &chunks {
            let mut own = per_chunk.then(Sha256::new);
            chunk.blocks().for_each_run(|run| {
                let bytes = bytemuck::cast_slice::<_, u8>(run);
                hasher.update(bytes);
                if let Some(h) = own.as_mut() {
                    h.update(bytes);
                }
            });
            if let Some(h) = own {
                each.push((chunk.pos, hex(&h.finalize())));
            }
            consistent &= BlockCounts::tally(chunk.blocks()) == *chunk.counts();
            total.add(chunk.counts());
        }
    }
    Ok(RegionHash {
        digest: hex(&hasher.finalize()),
        chunks: positions.len() as u64,
        counts: total,
        counts_consistent: consistent,
        per_chunk: each,
    })
}
