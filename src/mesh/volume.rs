//! The 34³ neighbourhood of a chunk: its blocks plus a one-block border
//! from the 26 neighbours, so culling and ambient occlusion see across
//! chunk borders. Stored as per-column bitmasks (bit y of column (x, z)),
//! which is all the mesher needs.

use crate::light::ChunkLight;
use crate::world::block::{BlockId, Layer, Shape, MAX_BLOCK_TYPES};
use crate::world::chunk::{Chunk, ChunkBlocks};
use crate::world::coords::{block_index, CHUNK_AREA, CHUNK_SIZE, CHUNK_VOLUME};

pub const PADDED: usize = CHUNK_SIZE + 2;

/// A chunk and its neighbours; `neighbours[(dz+1)*9 + (dy+1)*3 + (dx+1)]`
/// (the centre entry is ignored: `centre` is used).
pub struct Neighbourhood<'a> {
    pub centre: &'a Chunk,
    pub neighbours: [&'a ChunkBlocks; 27],
    /// The light of the same 27 chunks; `None` meshes in full sky.
    pub light: Option<[&'a ChunkLight; 27]>,
}

impl<'a> Neighbourhood<'a> {
    pub fn index(dx: i32, dy: i32, dz: i32) -> usize {
        ((dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)) as usize
    }
}

/// Column bitmasks of the padded volume, one per block class.
pub struct Volume {
    /// Opaque cubes, which hide their neighbours' faces:
    /// `opaque[zp * 34 + xp]` bit yp (padded coordinates).
    pub opaque: Vec<u64>,
    /// Cutout cubes (leaves, glass), same layout.
    pub cutout: Vec<u64>,
    /// Cutout cubes that hide faces against their own kind (glass).
    pub cull_self: Vec<u64>,
    /// Translucent cubes (water), same layout.
    pub water: Vec<u64>,
    /// Whether any cutout cube is in the volume: most terrain has none, and
    /// the mesher then skips their masks.
    pub any_cutout: bool,
}

/// Class bits of a block id; the AVX2 scan reads them with one movemask
/// each (bit 7, then the others shifted up to bit 7).
const OPAQUE: u8 = 0x80;
const CUTOUT: u8 = 0x40;
const CULL_SELF: u8 = 0x20;
const WATER: u8 = 0x10;

/// The class byte of every id (cross sprites and air have none: they hide
/// nothing and are meshed apart).
fn class_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    for (id, c) in BlockId::all().zip(t.iter_mut()) {
        let b = id.info();
        if b.shape != Shape::Cube {
            continue;
        }
        *c = match b.layer {
            Layer::Opaque => OPAQUE,
            Layer::Cutout if b.cull_self => CUTOUT | CULL_SELF,
            Layer::Cutout => CUTOUT,
            Layer::Translucent => WATER,
        };
    }
    t
}

/// The class table once per gather, and whether AVX2 is there.
struct ClassTables {
    class: [u8; 256],
    avx2: bool,
}

impl ClassTables {
    fn new() -> Self {
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        ClassTables { class: class_table(), avx2 }
    }
}

/// The four class masks of a 32-block column: bit y set where block y is
/// in the class.
#[derive(Clone, Copy, Default)]
struct ColumnBits {
    opaque: u32,
    cutout: u32,
    cull_self: u32,
    water: u32,
}

impl ColumnBits {
    fn of_class(c: u8, span: u64) -> [u64; 4] {
        let on = |bit: u8| if c & bit != 0 { span } else { 0 };
        [on(OPAQUE), on(CUTOUT), on(CULL_SELF), on(WATER)]
    }
}

#[inline(always)]
fn column_bits<const AVX2: bool>(col: &[BlockId], t: &ClassTables) -> ColumnBits {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: only instantiated with AVX2 from `build_avx2`, which runs
        // where the CPU has it; `col` holds 32 ids.
        return unsafe { column_bits_avx2(col, t) };
    }
    let mut bits = ColumnBits::default();
    for (k, b) in col.iter().take(32).enumerate() {
        let c = t.class[b.0 as usize];
        bits.opaque |= ((c >> 7) as u32 & 1) << k;
        bits.cutout |= ((c >> 6) as u32 & 1) << k;
        bits.cull_self |= ((c >> 5) as u32 & 1) << k;
        bits.water |= ((c >> 4) as u32 & 1) << k;
    }
    bits
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn column_bits_avx2(col: &[BlockId], t: &ClassTables) -> ColumnBits {
    use std::arch::x86_64::*;
    const _: () = assert!(MAX_BLOCK_TYPES <= 64, "the shuffle lookup covers ids 0..64");
    assert!(col.len() >= 32);
    // SAFETY: `col` holds at least 32 one-byte ids (asserted above).
    let ids = unsafe { _mm256_loadu_si256(col.as_ptr().cast()) };
    // SAFETY: the class table has 256 entries, so 16 bytes from 0, 16, 32 or 48 are in it.
    let table = |from: usize| _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(t.class[from..].as_ptr().cast()) });
    // A shuffle index with bit 7 set reads zero. Each quarter of the table
    // answers the ids 16q..16q+16: less 16q they are 0–15, and adding 0x70
    // with saturation keeps those below 0x80 and pushes every other id
    // (above, or wrapped below zero) to 0x80 or more.
    let quarter = |q: i8| {
        let index = _mm256_adds_epu8(_mm256_sub_epi8(ids, _mm256_set1_epi8(16 * q)), _mm256_set1_epi8(0x70));
        _mm256_shuffle_epi8(table(16 * q as usize), index)
    };
    let class = _mm256_or_si256(_mm256_or_si256(quarter(0), quarter(1)), _mm256_or_si256(quarter(2), quarter(3)));
    // Shifting 16-bit lanes moves each byte's bit 7-k to its bit 7.
    ColumnBits {
        opaque: _mm256_movemask_epi8(class) as u32,
        cutout: _mm256_movemask_epi8(_mm256_slli_epi16(class, 1)) as u32,
        cull_self: _mm256_movemask_epi8(_mm256_slli_epi16(class, 2)) as u32,
        water: _mm256_movemask_epi8(_mm256_slli_epi16(class, 3)) as u32,
    }
}

impl Volume {
    pub fn build(n: &Neighbourhood) -> Volume {
        Self::build_with_centre(n, None)
    }

    /// [`Self::build`] with the centre's ids already unpacked (index
    /// order), so a packed centre is not unpacked a second time.
    pub fn build_with_centre(n: &Neighbourhood, centre: Option<&[BlockId]>) -> Volume {
        let centre = centre.filter(|ids| ids.len() == CHUNK_VOLUME);
        let tables = ClassTables::new();
        #[cfg(target_arch = "x86_64")]
        if tables.avx2 {
            // SAFETY: the CPU has AVX2 (checked by ClassTables::new).
            return unsafe { Self::build_avx2(n, centre, &tables) };
        }
        Self::build_with::<false>(n, centre, &tables)
    }

    /// The gather compiled with AVX2 enabled, so the column lookups inline.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn build_avx2(n: &Neighbourhood, centre: Option<&[BlockId]>, tables: &ClassTables) -> Volume {
        Self::build_with::<true>(n, centre, tables)
    }

    #[inline(always)]
    fn build_with<const AVX2: bool>(n: &Neighbourhood, centre: Option<&[BlockId]>, tables: &ClassTables) -> Volume {
        let mut masks = [
            vec![0u64; PADDED * PADDED],
            vec![0u64; PADDED * PADDED],
            vec![0u64; PADDED * PADDED],
            vec![0u64; PADDED * PADDED],
        ];
        // A packed chunk whose types all share one class (ore in stone is
        // the common case) reads as uniform: its columns need no unpacking.
        let one_class = |blocks: &ChunkBlocks| -> Option<u8> {
            let ChunkBlocks::Packed(p) = blocks else { return None };
            let class = |b: &BlockId| tables.class[b.0 as usize];
            let first = class(p.palette().first()?);
            p.palette().iter().all(|b| class(b) == first).then_some(first)
        };
        let classes: [Option<u8>; 27] = std::array::from_fn(|i| {
            if i == Neighbourhood::index(0, 0, 0) {
                one_class(n.centre.blocks()).filter(|_| centre.is_none())
            } else {
                one_class(n.neighbours[i])
            }
        });
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
                let mut column = [0u64; 4];
                for dy in -1..=1 {
                    let blocks = if (dx, dy, dz) == (0, 0, 0) {
                        n.centre.blocks()
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
                    // The centre's own column, from the ids the mesher unpacked.
                    let unpacked = centre.filter(|_| (dx, dy, dz) == (0, 0, 0));
                    let flat = classes[Neighbourhood::index(dx, dy, dz)];
                    let part = match (unpacked, blocks) {
                        (None, _) if let Some(c) = flat => ColumnBits::of_class(c, ((1u64 << (hi - lo)) - 1) << base_p),
                        (Some(ids), _) => {
                            let col = &ids[block_index(lx, 0, lz)..block_index(lx, 0, lz) + CHUNK_SIZE];
                            let b = column_bits::<AVX2>(col, tables);
                            [b.opaque, b.cutout, b.cull_self, b.water].map(|m| (m as u64) << base_p)
                        }
                        (None, ChunkBlocks::Uniform(b)) => {
                            ColumnBits::of_class(tables.class[b.0 as usize], ((1u64 << (hi - lo)) - 1) << base_p)
                        }
                        // Above and below only one block of the column is
                        // needed: the neighbour's end layer facing this chunk.
                        (None, _) if dy != 0 => {
                            ColumnBits::of_class(tables.class[blocks.end(dy < 0, lx, lz).0 as usize], 1 << base_p)
                        }
                        (None, ChunkBlocks::Dense(ids)) => {
                            let col = &ids[block_index(lx, 0, lz)..block_index(lx, 0, lz) + CHUNK_SIZE];
                            let b = column_bits::<AVX2>(col, tables);
                            [b.opaque, b.cutout, b.cull_self, b.water].map(|m| (m as u64) << base_p)
                        }
                        (None, ChunkBlocks::Packed(p)) => {
                            let b = column_bits::<AVX2>(&p.column(lx, lz), tables);
                            [b.opaque, b.cutout, b.cull_self, b.water].map(|m| (m as u64) << base_p)
                        }
                    };
                    for (c, p) in column.iter_mut().zip(part) {
                        *c |= p;
                    }
                }
                for (m, c) in masks.iter_mut().zip(column) {
                    m[zp * PADDED + xp] = c;
                }
            }
        }
        let any_cutout = masks[1].iter().any(|&m| m != 0);
        let [opaque, cutout, cull_self, water] = masks;
        Volume { opaque, cutout, cull_self, water, any_cutout }
    }

    #[inline(always)]
    /// The centre chunk's non-opaque blocks: bit y of column z·32 + x.
    pub fn centre_open(&self) -> [u32; CHUNK_AREA] {
        std::array::from_fn(|c| {
            let (x, z) = (c % CHUNK_SIZE, c / CHUNK_SIZE);
            !(self.opaque[(z + 1) * PADDED + x + 1] >> 1) as u32
        })
    }

    pub fn opaque_at(&self, xp: usize, yp: usize, zp: usize) -> bool {
        (self.opaque[zp * PADDED + xp] >> yp) & 1 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The AVX2 lookup against the scalar one, over every id a chunk may
    /// hold, each with its own made-up classes (the registry fills only
    /// part of the table).
    #[test]
    fn the_shuffle_lookup_agrees_with_the_table_for_every_id() {
        let mut tables = ClassTables::new();
        if !tables.avx2 {
            return;
        }
        for (id, c) in tables.class.iter_mut().enumerate().take(MAX_BLOCK_TYPES) {
            *c = ((id as u8).wrapping_mul(37) ^ 0x5a) & 0xf0 | 0x10;
        }
        let ids: Vec<BlockId> = (0..MAX_BLOCK_TYPES * 2).map(|i| BlockId((i * 7 % MAX_BLOCK_TYPES) as u8)).collect();
        for col in ids.windows(32) {
            let (want, have) = (column_bits::<false>(col, &tables), column_bits::<true>(col, &tables));
            assert_eq!(
                (have.opaque, have.cutout, have.cull_self, have.water),
                (want.opaque, want.cutout, want.cull_self, want.water),
                "ids {:?}",
                col.iter().map(|b| b.0).collect::<Vec<_>>()
            );
        }
    }
}
