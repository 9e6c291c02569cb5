//! The 34³ neighbourhood of a chunk: its blocks plus a one-block border
//! from the 26 neighbours, so culling and ambient occlusion see across
//! chunk borders. Stored as per-column bitmasks (bit y of column (x, z)),
//! which is all the mesher needs.

use crate::world::block::{BlockId, BLOCKS};
use crate::world::chunk::{Chunk, ChunkBlocks};
use crate::world::coords::{block_index, CHUNK_SIZE};

pub const PADDED: usize = CHUNK_SIZE + 2;

/// A chunk and its neighbours; `neighbours[(dz+1)*9 + (dy+1)*3 + (dx+1)]`
/// (the centre entry is ignored: `centre` is used).
pub struct Neighbourhood<'a> {
    pub centre: &'a Chunk,
    pub neighbours: [&'a ChunkBlocks; 27],
}

impl<'a> Neighbourhood<'a> {
    pub fn index(dx: i32, dy: i32, dz: i32) -> usize {
        ((dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)) as usize
    }
}

/// Column bitmasks of the padded volume plus the centre's block ids.
pub struct Volume {
    /// Opaque blocks: `opaque[zp * 34 + xp]` bit yp (padded coordinates).
    pub opaque: Vec<u64>,
    /// Water (transparent, non-air) blocks, same layout.
    pub water: Vec<u64>,
}

fn class_masks() -> ([bool; 256], [bool; 256]) {
    let mut opaque = [false; 256];
    let mut transparent = [false; 256];
    for (i, b) in BLOCKS.iter().enumerate() {
        opaque[i] = b.opaque;
        transparent[i] = !b.opaque && i != BlockId::AIR.0 as usize;
    }
    (opaque, transparent)
}

/// Per-id class bytes for the column scan (ids are below 16).
struct ClassTables {
    opaque: [u8; 16],
    water: [u8; 16],
    /// Detected once per gather, not once per column.
    avx2: bool,
}

impl ClassTables {
    fn new(is_opaque: &[bool; 256], is_transparent: &[bool; 256]) -> Self {
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        let mut t = ClassTables { opaque: [0; 16], water: [0; 16], avx2 };
        for i in 0..16 {
            t.opaque[i] = if is_opaque[i] { 0x80 } else { 0 };
            t.water[i] = if is_transparent[i] { 0x80 } else { 0 };
        }
        t
    }
}

/// Bit y set where block y of the 32-block column is opaque / water.
#[inline(always)]
fn column_bits(col: &[BlockId], t: &ClassTables) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    if t.avx2 {
        // SAFETY: AVX2 checked when the tables were made; `col` holds 32 ids.
        return unsafe { column_bits_avx2(col, t) };
    }
    let (mut o, mut w) = (0u32, 0u32);
    for (k, b) in col.iter().take(32).enumerate() {
        let i = b.0 as usize & 15;
        o |= ((t.opaque[i] >> 7) as u32) << k;
        w |= ((t.water[i] >> 7) as u32) << k;
    }
    (o, w)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn column_bits_avx2(col: &[BlockId], t: &ClassTables) -> (u32, u32) {
    use std::arch::x86_64::*;
    assert!(col.len() >= 32);
    let ids = _mm256_and_si256(_mm256_loadu_si256(col.as_ptr().cast()), _mm256_set1_epi8(15));
    let table = |bytes: &[u8; 16]| {
        let half = _mm_loadu_si128(bytes.as_ptr().cast());
        _mm256_broadcastsi128_si256(half)
    };
    let o = _mm256_movemask_epi8(_mm256_shuffle_epi8(table(&t.opaque), ids)) as u32;
    let w = _mm256_movemask_epi8(_mm256_shuffle_epi8(table(&t.water), ids)) as u32;
    (o, w)
}

impl Volume {
    pub fn build(n: &Neighbourhood) -> Volume {
        let (is_opaque, is_transparent) = class_masks();
        let tables = ClassTables::new(&is_opaque, &is_transparent);
        let mut opaque = vec![0u64; PADDED * PADDED];
        let mut water = vec![0u64; PADDED * PADDED];
        // Padded coordinate p in 0..34 maps to neighbour offset and local coordinate.
        let split = |p: usize| -> (i32, usize) {
            match p {
                0 => (-1, CHUNK_SIZE - 1),
                p if p == PADDED - 1 => (1, 0),
                p => (0, p - 1),
            }
        };
        for zp in 0..PADDED {
            let (dz, lz) = split(zp);
            for xp in 0..PADDED {
                let (dx, lx) = split(xp);
                let mut o = 0u64;
                let mut w = 0u64;
                for dy in -1..=1 {
                    let blocks = if (dx, dy, dz) == (0, 0, 0) {
                        &n.centre.blocks
                    } else {
                        n.neighbours[Neighbourhood::index(dx, dy, dz)]
                    };
                    let (lo, hi) = match dy {
                        -1 => (CHUNK_SIZE - 1, CHUNK_SIZE),
                        0 => (0, CHUNK_SIZE),
                        _ => (0, 1),
                    };
                    let base_p = match dy {
                        -1 => 0usize,
                        0 => 1,
                        _ => PADDED - 1,
                    };
                    let (mut om, mut wm) = (0u64, 0u64);
                    match blocks {
                        ChunkBlocks::Uniform(b) => {
                            let span = ((1u64 << (hi - lo)) - 1) << base_p;
                            if is_opaque[b.0 as usize] {
                                om = span;
                            } else if is_transparent[b.0 as usize] {
                                wm = span;
                            }
                        }
                        ChunkBlocks::Dense(ids) if dy != 0 => {
                            // Above and below only one block of the column is needed.
                            let b = ids[block_index(lx, lo, lz)].0 as usize;
                            om = (is_opaque[b] as u64) << base_p;
                            wm = (is_transparent[b] as u64) << base_p;
                        }
                        ChunkBlocks::Dense(ids) => {
                            let col = &ids[block_index(lx, 0, lz)..block_index(lx, 0, lz) + CHUNK_SIZE];
                            let (o32, w32) = column_bits(col, &tables);
                            om = (o32 as u64) << base_p;
                            wm = (w32 as u64) << base_p;
                        }
                    }
                    o |= om;
                    w |= wm;
                }
                opaque[zp * PADDED + xp] = o;
                water[zp * PADDED + xp] = w;
            }
        }
        Volume { opaque, water }
    }

    #[inline(always)]
    pub fn opaque_at(&self, xp: usize, yp: usize, zp: usize) -> bool {
        (self.opaque[zp * PADDED + xp] >> yp) & 1 != 0
    }
}
