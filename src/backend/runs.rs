//! The fill's transfer format: vertical runs of block ids instead of 32 KiB
//! per chunk (the layout is described in kernels/fill.cu, where it is
//! written). This module finds each chunk's segments in a launch's stream
//! and decodes a chunk into its own storage; decoding runs on a small pool
//! of its own, so the thread that drives the device only walks headers.
//!
//! A stream is trusted no further than it checks out: every segment of
//! every chunk exactly once, runs that cover each column bottom to top,
//! and per-type totals equal to the device's histogram.

use super::twins::{FILL_BLOCKS_PER_CHUNK, FILL_THREADS, RUN_BYTES, RUN_HEADER_BYTES};
use crate::world::block::{BlockId, MAX_BLOCK_TYPES};
use crate::world::chunk::BlockCounts;
use crate::world::coords::{CHUNK_SIZE, CHUNK_VOLUME};
use std::sync::OnceLock;

const GROUPS: usize = FILL_BLOCKS_PER_CHUNK as usize;
const HEADER: usize = RUN_HEADER_BYTES as usize;
const RUN: usize = RUN_BYTES as usize;
/// Columns one thread block (one segment) covers.
const COLUMNS_PER_GROUP: usize = FILL_THREADS as usize / CHUNK_SIZE;
const NO_SEGMENT: u32 = u32::MAX;

/// Where each of a chunk's segments starts in the stream, by group.
pub type Segments = [u32; GROUPS];

fn header_at(stream: &[u8], at: usize) -> Option<(usize, usize, usize)> {
    let b = stream.get(at..at + HEADER)?;
    let h = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    Some(((h & 63) as usize, ((h >> 6) & 1023) as usize, (h >> 16) as usize))
}

/// The segments of each of `chunks` chunks in `stream`, or why the stream
/// is not a whole launch's output.
pub fn index(stream: &[u8], chunks: usize) -> Result<Vec<Segments>, String> {
    let mut out = vec![[NO_SEGMENT; GROUPS]; chunks];
    let mut at = 0;
    while at < stream.len() {
        let (group, chunk, runs) =
            header_at(stream, at).ok_or_else(|| format!("the run stream ends inside a header at byte {at}"))?;
        if chunk >= chunks || group >= GROUPS || runs > FILL_THREADS as usize {
            return Err(format!("a run segment at byte {at} names chunk {chunk}, group {group}, {runs} runs"));
        }
        if out[chunk][group] != NO_SEGMENT {
            return Err(format!("chunk {chunk} group {group} has two run segments"));
        }
        out[chunk][group] = at as u32;
        at += HEADER + RUN * runs;
    }
    if at != stream.len() {
        return Err("the run stream ends inside a segment".into());
    }
    if let Some(chunk) = out.iter().position(|s| s.contains(&NO_SEGMENT)) {
        return Err(format!("chunk {chunk} is missing run segments"));
    }
    Ok(out)
}

/// Decodes one chunk (`CHUNK_VOLUME` ids in `block_index` order) from its
/// segments, checking the runs against the device's `counts`.
pub fn decode(stream: &[u8], segments: &Segments, counts: &BlockCounts) -> Result<Box<[BlockId]>, String> {
    // Every run is written as a whole column's worth of its id, which is
    // one vector store instead of a short fill: the runs above it, and the
    // columns after it, overwrite the excess (groups and runs are walked
    // bottom up, columns in order), and the last column's spills into a
    // column of slack that is cut off (in place: a shrink) at the end.
    let mut ids = vec![BlockId(0); CHUNK_VOLUME + CHUNK_SIZE];
    decode_into(stream, segments, counts, &mut ids)?;
    ids.truncate(CHUNK_VOLUME);
    Ok(ids.into_boxed_slice())
}

fn decode_into(stream: &[u8], segments: &Segments, counts: &BlockCounts, ids: &mut [BlockId]) -> Result<(), String> {
    let mut tally = [0u32; MAX_BLOCK_TYPES];
    for (group, &at) in segments.iter().enumerate() {
        let at = at as usize;
        let (_, _, n) = header_at(stream, at).ok_or("a run segment lies outside the stream")?;
        let runs = stream.get(at + HEADER..at + HEADER + RUN * n).ok_or("a run segment lies outside the stream")?;
        let first = group * COLUMNS_PER_GROUP;
        // Columns begun so far in this segment. The checks are gathered
        // into one flag so the loop has no branch on the data.
        let mut begun = 0;
        let mut bad = false;
        for i in 0..n {
            let (id, y) = (runs[RUN * i] as usize, runs[RUN * i + 1] as usize);
            let next = if i + 1 < n { runs[RUN * (i + 1) + 1] as usize } else { 0 };
            let end = if next == 0 { CHUNK_SIZE } else { next };
            begun += (y == 0) as usize;
            bad |= begun == 0 || begun > COLUMNS_PER_GROUP || id >= MAX_BLOCK_TYPES || y >= end || end > CHUNK_SIZE;
            if bad {
                return Err(format!("group {group} holds a run out of place (id {id}, height {y} to {end})"));
            }
            let at = (first + begun - 1) * CHUNK_SIZE + y;
            ids[at..at + CHUNK_SIZE].fill(BlockId(id as u8));
            tally[id] += (end - y) as u32;
        }
        if begun != COLUMNS_PER_GROUP {
            return Err(format!("group {group} covers {begun} of its {COLUMNS_PER_GROUP} columns"));
        }
    }
    if tally != counts.0 {
        return Err("the runs disagree with the device's block counts".into());
    }
    Ok(())
}

/// The pool decoding runs in: a quarter of the cores (at least two, at
/// most eight), apart from the CPU generation pool so a busy CPU lane
/// never holds a finished GPU batch. None if no thread could be started
/// (the caller then decodes on its own thread), and in the ThreadSanitizer
/// build: only the C++ emulation is instrumented there, so the pool's
/// hand-offs, synchronised in uninstrumented Rust, would read as races
/// that hide the kernels' own.
pub fn pool() -> Option<&'static rayon::ThreadPool> {
    if cfg!(feature = "kernel-emulation-tsan") {
        return None;
    }
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads((cores / 4).clamp(2, 8))
            .thread_name(|i| format!("bw-decode-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// The stream `bw_fill` writes for `chunks` (each `CHUNK_VOLUME` ids in
/// `block_index` order), segments in the order given: the reference the
/// decoder is tested against.
#[cfg(test)]
pub fn encode(chunks: &[&[BlockId]], order: &[(usize, usize)]) -> Vec<u8> {
    let mut out = Vec::new();
    for &(chunk, group) in order {
        let ids = chunks[chunk];
        let mut runs = Vec::new();
        for column in group * COLUMNS_PER_GROUP..(group + 1) * COLUMNS_PER_GROUP {
            for y in 0..CHUNK_SIZE {
                let id = ids[column * CHUNK_SIZE + y];
                if y == 0 || ids[column * CHUNK_SIZE + y - 1] != id {
                    runs.extend_from_slice(&[id.0, y as u8]);
                }
            }
        }
        let header = group as u32 | (chunk as u32) << 6 | ((runs.len() / RUN) as u32) << 16;
        out.extend_from_slice(&header.to_le_bytes());
        out.extend_from_slice(&runs);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::chunk::ChunkBlocks;

    /// Two chunks: terrain-like columns (stone, dirt, grass, air at a
    /// height that varies by column) and a checkerboard (every block a run).
    fn chunks() -> Vec<Box<[BlockId]>> {
        let mut a = vec![BlockId::AIR; CHUNK_VOLUME];
        let mut b = vec![BlockId::AIR; CHUNK_VOLUME];
        for column in 0..CHUNK_SIZE * CHUNK_SIZE {
            let h = (column * 7) % CHUNK_SIZE;
            for y in 0..CHUNK_SIZE {
                a[column * CHUNK_SIZE + y] = match y {
                    _ if y + 3 < h => BlockId::STONE,
                    _ if y < h => BlockId::DIRT,
                    _ if y == h => BlockId::GRASS,
                    _ => BlockId::AIR,
                };
                b[column * CHUNK_SIZE + y] = if (column + y) % 2 == 0 { BlockId::STONE } else { BlockId::WATER };
            }
        }
        vec![a.into_boxed_slice(), b.into_boxed_slice()]
    }

    fn counts(ids: &[BlockId]) -> BlockCounts {
        BlockCounts::tally(&ChunkBlocks::Dense(ids.into()))
    }

    /// Every (chunk, group) once, interleaved as atomics might order them.
    fn shuffled(chunks: usize) -> Vec<(usize, usize)> {
        let mut order: Vec<(usize, usize)> = (0..chunks).flat_map(|c| (0..GROUPS).map(move |g| (c, g))).collect();
        order.sort_by_key(|&(c, g)| (g * 37 + c * 11) % 101);
        order
    }

    #[test]
    fn decoding_gives_back_every_block_whatever_the_segment_order() {
        let chunks = chunks();
        let views: Vec<&[BlockId]> = chunks.iter().map(|c| &c[..]).collect();
        let stream = encode(&views, &shuffled(chunks.len()));
        let index = index(&stream, chunks.len()).expect("a whole stream");
        for (k, ids) in chunks.iter().enumerate() {
            let decoded = decode(&stream, &index[k], &counts(ids)).expect("decodes");
            assert!(decoded[..] == ids[..], "chunk {k} decoded differently");
        }
        // Terrain columns take a few runs; the checkerboard is the worst case.
        let terrain = encode(&views[..1], &shuffled(1)).len();
        assert!(terrain < 8 * 1024, "{terrain} bytes for a terrain chunk");
        assert_eq!(encode(&views[1..], &shuffled(1)).len(), super::super::twins::RUNS_BYTES_PER_CHUNK);
    }

    #[test]
    fn a_damaged_stream_is_refused() {
        let chunks = chunks();
        let views: Vec<&[BlockId]> = chunks.iter().map(|c| &c[..]).collect();
        let stream = encode(&views[..1], &shuffled(1));
        let good = index(&stream, 1).expect("a whole stream");
        let c = counts(&chunks[0]);
        // Cut short, a segment missing, a segment twice, a chunk too many.
        assert!(index(&stream[..stream.len() - 1], 1).is_err());
        let first = HEADER + RUN * header_at(&stream, 0).unwrap().2;
        assert!(index(&stream[first..], 1).is_err());
        let mut twice = stream.clone();
        twice.extend_from_slice(&stream[..first]);
        assert!(index(&twice, 1).is_err());
        assert!(index(&stream, 0).is_err());
        // A run's height out of order, an id out of range, a count off.
        let mut bad = stream.clone();
        bad[HEADER + RUN + 1] = 40;
        assert!(decode(&bad, &good[0], &c).is_err());
        let mut bad = stream.clone();
        bad[HEADER] = MAX_BLOCK_TYPES as u8;
        assert!(decode(&bad, &good[0], &c).is_err());
        let mut off = c;
        off.0[BlockId::STONE.0 as usize] -= 1;
        off.0[BlockId::AIR.0 as usize] += 1;
        assert!(decode(&stream, &good[0], &off).is_err());
        assert!(decode(&stream, &good[0], &c).is_ok());
    }
}
