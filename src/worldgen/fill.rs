//! The block fill: a chunk's blocks from its column heights and biomes, with
//! the count of each block type. CUDA twin: `kernels/fill.cu`.
//!
//! Per block at world height y over a column of height h (water level w):
//! water if h < y ≤ w; air if y > h; the biome's top block if y == h (snow
//! above the snow line); its under block if h − depth ≤ y < h; deep block
//! (stone) below.

use super::heightmap::Heightmap;
use super::params::WorldParams;
use crate::world::block::{BlockId, MAX_BLOCK_TYPES};
use crate::world::chunk::{BlockCounts, Chunk, ChunkBlocks};
use crate::world::coords::{ChunkPos, CHUNK_AREA, CHUNK_SIZE, CHUNK_SIZE_I64, CHUNK_VOLUME};

/// What a chunk is known to be from its heightmap alone.
/// `min_height` and `max_height` are the column's extreme surface heights.
pub fn known_uniform(p: &WorldParams, pos: ChunkPos, min_height: i32, max_height: i32) -> Option<BlockId> {
    let y0 = pos.y as i64 * CHUNK_SIZE_I64;
    let y1 = y0 + CHUNK_SIZE_I64 - 1;
    let water = p.water_level as i64;
    if y0 > max_height as i64 {
        if y0 > water {
            return Some(BlockId(p.air_block as u8));
        }
        if y1 <= water {
            return Some(BlockId(p.water_block as u8));
        }
    }
    if y1 < min_height as i64 - p.under_depth as i64 {
        return Some(BlockId(p.deep_block as u8));
    }
    None
}

/// Blocks in [lo, hi) ∩ [0, 32), for heights relative to the chunk bottom.
#[inline(always)]
fn overlap(lo: i64, hi: i64) -> u32 {
    (hi.min(CHUNK_SIZE_I64) - lo.max(0)).max(0) as u32
}

/// Fills one chunk. Uniform chunks are recognised without visiting blocks.
pub fn fill(p: &WorldParams, pos: ChunkPos, hm: &Heightmap) -> Chunk {
    if let Some(b) = known_uniform(p, pos, hm.min_height, hm.max_height) {
        return Chunk { pos, blocks: ChunkBlocks::Uniform(b), counts: BlockCounts::uniform(b) };
    }
    let y0 = pos.y as i64 * CHUNK_SIZE_I64;
    let water_rel = p.water_level as i64 - y0;
    let depth = p.under_depth as i64;
    let (air, water, deep, snow) = (p.air_block as u8, p.water_block as u8, p.deep_block as u8, p.snow_block as u8);
    let mut ids = vec![BlockId::AIR; CHUNK_VOLUME].into_boxed_slice();
    let mut counts = [0u32; MAX_BLOCK_TYPES];
    // SAFETY: BlockId is repr(transparent) over u8.
    let bytes: &mut [u8] = unsafe { std::slice::from_raw_parts_mut(ids.as_mut_ptr().cast::<u8>(), ids.len()) };
    for (c, column) in bytes.chunks_exact_mut(CHUNK_SIZE).enumerate().take(CHUNK_AREA) {
        let h = hm.heights[c] as i64;
        let b = hm.biomes[c] as usize;
        let top = if h > p.snow_above as i64 { snow } else { p.biome_top[b] as u8 };
        let under = p.biome_under[b] as u8;
        let hr = h - y0;
        // Relative heights clamped into i8 keep every comparison against
        // 0..32 unchanged and let the loop run as byte lanes.
        let clamp = |v: i64| v.clamp(-8, 40) as i8;
        let (hr8, wr8, ur8) = (clamp(hr), clamp(water_rel), clamp(hr - depth));
        for (ly, out) in column.iter_mut().enumerate() {
            let y = ly as i8;
            let above = if y <= wr8 { water } else { air };
            let below = if y == hr8 {
                top
            } else if y >= ur8 {
                under
            } else {
                deep
            };
            *out = if y > hr8 { above } else { below };
        }
        counts[water as usize] += overlap(hr + 1, water_rel + 1);
        counts[air as usize] += overlap(hr.max(water_rel) + 1, CHUNK_SIZE_I64);
        counts[top as usize] += overlap(hr, hr + 1);
        counts[under as usize] += overlap(hr - depth, hr);
        counts[deep as usize] += overlap(i64::MIN / 2, hr - depth);
    }
    let counts = BlockCounts(counts);
    Chunk { pos, blocks: ChunkBlocks::from_dense(ids, &counts), counts }
}
