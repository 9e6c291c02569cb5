//! The block fill: a chunk's blocks from its column heights and biomes, with
//! the count of each block type. CUDA twin: `kernels/fill.cu`.
//!
//! Per block at world height y over a column of height h (water level w):
//! water if h < y ≤ w; air if y > h; the biome's top block if y == h (snow
//! above the snow line); its under block if h − depth ≤ y < h; deep block
//! (stone) below. Then veins of ore in the rock, caves carved out, and
//! decorations on top.

use super::canvas::Canvas;
use super::decorate::{decoration_top, ColumnDecorations};
use super::heightmap::Heightmap;
use super::params::WorldParams;
use super::preset::MAX_BIOMES;
use crate::world::block::{BlockId, MAX_BLOCK_TYPES};
use crate::world::chunk::{BlockCounts, Chunk, ChunkBlocks};
use crate::world::coords::{ChunkPos, CHUNK_AREA, CHUNK_SIZE, CHUNK_SIZE_I64, CHUNK_VOLUME};

/// What a chunk is known to be from its column's extreme surface heights
/// and the highest block its decorations can occupy (`top`, see
/// [`super::decorate::decoration_top`]; `max_height` where nothing grows).
/// Rock within the cave range counts as uniform only where the density
/// stage proves no cave opens ([`super::density::proves_solid`]), and rock near
/// veins only where none may replace it ([`super::veins::may_alter`]).
/// Decorations never reach down to the water level, so water is settled by
/// the terrain alone.
pub fn known_uniform(p: &WorldParams, pos: ChunkPos, min_height: i32, max_height: i32, top: i32) -> Option<BlockId> {
    let y0 = pos.y as i64 * CHUNK_SIZE_I64;
    let y1 = y0 + CHUNK_SIZE_I64 - 1;
    let water = p.surface.water_level as i64;
    if y0 > max_height as i64 {
        if y0 > water {
            return (y0 > top as i64).then_some(BlockId(p.surface.air_block as u8));
        }
        if y1 <= water {
            return Some(BlockId(p.surface.water_block as u8));
        }
    }
    if y1 < min_height as i64 - p.surface.under_depth as i64 {
        let clear_of_caves = !p.has_caves()
            || y1 < p.caves.bottom as i64
            || y0 > p.caves.top as i64
            || super::density::proves_solid(p, pos);
        let clear_of_veins = !p.has_veins() || !super::veins::may_alter(p, pos, p.surface.deep_block);
        return (clear_of_caves && clear_of_veins).then_some(BlockId(p.surface.deep_block as u8));
    }
    None
}

/// Writes one 32-block column. Branch-free byte selects, so the loop
/// compiles to a handful of vector compares and blends.
#[inline(always)]
fn fill_column(column: &mut [u8], rel: ColumnRel, ids: [u8; 5]) {
    let [top, under, deep, water, air] = ids;
    for (ly, out) in column.iter_mut().enumerate().take(CHUNK_SIZE) {
        let y = ly as i8;
        let above = if y <= rel.water { water } else { air };
        let below = if y >= rel.under { under } else { deep };
        let below = if y == rel.height { top } else { below };
        *out = if y > rel.height { above } else { below };
    }
}

/// Surface, under-layer start and water level relative to the chunk bottom,
/// clamped into i8: every comparison against 0..32 keeps its result.
#[derive(Clone, Copy)]
struct ColumnRel {
    height: i8,
    under: i8,
    water: i8,
}

fn rel8(v: i64) -> i8 {
    v.clamp(-8, 40) as i8
}

/// Fills one chunk and, given its column's plan, decorates it. Uniform
/// chunks are recognised without visiting blocks.
pub fn fill(p: &WorldParams, pos: ChunkPos, hm: &Heightmap, deco: Option<&ColumnDecorations>) -> Chunk {
    let top = match deco {
        Some(d) => decoration_top(p, hm.max_height, d.tree_top),
        None => hm.max_height,
    };
    if let Some(b) = known_uniform(p, pos, hm.min_height, hm.max_height, top) {
        return Chunk::uniform(pos, b);
    }
    let mut ids: Box<[BlockId]> = vec![BlockId::AIR; CHUNK_VOLUME].into_boxed_slice();
    let mut counts = [0u32; MAX_BLOCK_TYPES];
    Canvas {
        params: p,
        pos,
        heightmap: hm,
        plan: deco,
        blocks: bytemuck::cast_slice_mut(&mut ids),
        counts: &mut counts,
    }
    .paint();
    let counts = BlockCounts(counts);
    Chunk::new(pos, ChunkBlocks::from_dense(ids, &counts), counts)
}

/// The first pass: every block from its column's surface, biome and the
/// water level.
pub fn terrain(c: &mut Canvas) {
    *c.counts = fill_dense(c.params, c.pos, c.heightmap, c.blocks).0;
}

fn fill_dense(p: &WorldParams, pos: ChunkPos, hm: &Heightmap, bytes: &mut [u8]) -> BlockCounts {
    #[cfg(target_arch = "x86_64")]
    if crate::worldgen::noise::perlin_avx2::available() {
        // SAFETY: AVX2 presence was just checked.
        return unsafe { fill_dense_avx2(p, pos, hm, bytes) };
    }
    fill_dense_generic(p, pos, hm, bytes)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fill_dense_avx2(p: &WorldParams, pos: ChunkPos, hm: &Heightmap, bytes: &mut [u8]) -> BlockCounts {
    fill_dense_generic(p, pos, hm, bytes)
}

#[inline(always)]
fn fill_dense_generic(p: &WorldParams, pos: ChunkPos, hm: &Heightmap, bytes: &mut [u8]) -> BlockCounts {
    let y0 = pos.y as i64 * CHUNK_SIZE_I64;
    let water_rel = p.surface.water_level as i64 - y0;
    let depth = p.surface.under_depth as i64;
    let (air, water, deep, snow) = (
        p.surface.air_block as u8,
        p.surface.water_block as u8,
        p.surface.deep_block as u8,
        p.surface.snow_block as u8,
    );
    let mut tops = [0u8; MAX_BIOMES];
    let mut unders = [0u8; MAX_BIOMES];
    for b in 0..MAX_BIOMES {
        tops[b] = p.surface.top[b] as u8;
        unders[b] = p.surface.under[b] as u8;
    }
    let mut counts = [0u32; MAX_BLOCK_TYPES];
    let water_top = (water_rel + 1).clamp(0, CHUNK_SIZE_I64);
    for (c, column) in bytes.chunks_exact_mut(CHUNK_SIZE).enumerate().take(CHUNK_AREA) {
        let h = hm.heights[c] as i64;
        // The column stage picks a biome of the preset's table, at most MAX_BIOMES long.
        let b = hm.biomes[c] as usize;
        let top = if h > p.surface.snow_above as i64 { snow } else { tops[b] };
        let under = unders[b];
        let hr = h - y0;
        let rel = ColumnRel { height: rel8(hr), under: rel8(hr - depth), water: rel8(water_rel) };
        fill_column(column, rel, [top, under, deep, water, air]);
        // Run lengths within the chunk: [0, u) deep, [u, s) under, [s, s+1)
        // top, [s+1, water_top) water, the rest air.
        let u = (hr - depth).clamp(0, CHUNK_SIZE_I64);
        let s = hr.clamp(0, CHUNK_SIZE_I64);
        let t = (hr + 1).clamp(0, CHUNK_SIZE_I64);
        let w = water_top.max(t);
        counts[deep as usize] += u as u32;
        counts[under as usize] += (s - u) as u32;
        counts[top as usize] += (t - s) as u32;
        counts[water as usize] += (w - t) as u32;
        counts[air as usize] += (CHUNK_SIZE_I64 - w) as u32;
    }
    BlockCounts(counts)
}
