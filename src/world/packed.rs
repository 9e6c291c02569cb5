//! Palette storage for chunks of few block types.
//!
//! A chunk in the cave range is mostly stone with some air and lava: three
//! types stored one byte per block waste three quarters of their 32 KiB.
//! Here each block is an index of 1, 2 or 4 bits into a palette of at most
//! 16 ids, so such a chunk takes 8 KiB. Indices follow [`block_index`]
//! order, so one y column of 32 blocks is 32, 64 or 128 consecutive bits.
//!
//! The bottom and top layers are kept a second time, each 1 024 cells in a
//! row: the mesher reads one cell per column of the chunks above and below
//! a chunk, and in column order those cells lie a column apart, each on a
//! cache line of its own once a block takes 4 bits.
//!
//! [`block_index`]: super::coords::block_index

use super::block::{BlockId, MAX_BLOCK_TYPES};
use super::chunk::BlockCounts;
use super::coords::{block_index, CHUNK_AREA, CHUNK_SIZE, CHUNK_VOLUME};
use super::palette::Palette;

/// The most types a packed chunk holds; a chunk with more stays dense.
pub const MAX_PALETTE: usize = 16;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedBlocks {
    cells: Palette<BlockId>,
    /// Layer y = 0 then layer y = 31, cell z·32 + x of each, with the same
    /// palette: derived from `cells`, so equal cells mean equal ends.
    ends: Palette<BlockId>,
}

impl PackedBlocks {
    /// Packs `CHUNK_VOLUME` ids whose types `counts` lists. `None` when
    /// there are fewer than two or more than [`MAX_PALETTE`] types, or when
    /// an id occurs that `counts` does not list (the caller keeps the dense
    /// ids, so wrong counts can never lose a block).
    pub fn pack(ids: &[BlockId], counts: &BlockCounts) -> Option<Self> {
        if ids.len() != CHUNK_VOLUME {
            return None;
        }
        // Ids in ascending order; index k of the packed data means `palette[k]`.
        let palette: Box<[BlockId]> =
            (0..MAX_BLOCK_TYPES).filter(|&i| counts.0[i] > 0).map(|i| BlockId(i as u8)).collect();
        if !(2..=MAX_PALETTE).contains(&palette.len()) {
            return None;
        }
        let bits = Palette::<BlockId>::bits_for(palette.len())?;
        // Slot of each id; ids outside the palette map to a value with a bit
        // above `bits` set, which `stray` collects.
        let mut slot = [0x80u8; 256];
        for (k, b) in palette.iter().enumerate() {
            slot[b.0 as usize] = k as u8;
        }
        let (cells, stray) = Palette::from_cells(palette.clone(), bits, ids, |b| slot[b.0 as usize]);
        if stray >= 1 << bits {
            return None;
        }
        let ends: Vec<u8> = [0, CHUNK_SIZE - 1]
            .into_iter()
            .flat_map(|y| ids[y..].iter().step_by(CHUNK_SIZE).map(|b| slot[b.0 as usize]))
            .collect();
        let ends = Palette::from_slots(palette, bits, &ends);
        Some(Self { cells, ends })
    }

    #[inline(always)]
    pub fn get_index(&self, index: usize) -> BlockId {
        self.cells.get(index)
    }

    /// Block (x, 31, z) where `top`, else block (x, 0, z): read from the
    /// kept layers, not from the columns.
    #[inline(always)]
    pub fn end(&self, top: bool, x: usize, z: usize) -> BlockId {
        self.ends.get(top as usize * CHUNK_AREA + z * CHUNK_SIZE + x)
    }

    pub fn get(&self, x: usize, y: usize, z: usize) -> BlockId {
        self.get_index(block_index(x, y, z))
    }

    /// The 32 ids of column (x, z), bottom first.
    #[inline]
    pub fn column(&self, x: usize, z: usize) -> [BlockId; CHUNK_SIZE] {
        let mut out = [BlockId(0); CHUNK_SIZE];
        self.unpack_range(block_index(x, 0, z), &mut out);
        out
    }

    /// Writes ids `start..start + out.len()` (index order) into `out`.
    #[inline]
    pub fn unpack_range(&self, start: usize, out: &mut [BlockId]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            // SAFETY: the CPU has SSSE3, checked just above.
            return unsafe { unpack_ssse3(&self.cells, start, out) };
        }
        self.cells.unpack_range(start, out)
    }

    /// Calls `f(z · 32 + x, mask)` for every column (x, z) in that order,
    /// bit y of `mask` set where block (x, y, z) is of a type for which
    /// `member` holds: a test of every block at the cost of a look at each
    /// type, made a column at a time.
    pub fn column_masks(&self, member: impl Fn(BlockId) -> bool, f: impl FnMut(usize, u32)) {
        let mut of_slot = [false; MAX_PALETTE];
        for (m, &b) in of_slot.iter_mut().zip(self.palette()) {
            *m = member(b);
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            // SAFETY: the CPU has SSSE3, checked just above.
            return unsafe { column_masks_ssse3(&self.cells, of_slot, f) };
        }
        self.column_masks_plain(of_slot, f)
    }

    /// [`Self::column_masks`] a block at a time, given the members by slot.
    fn column_masks_plain(&self, of_slot: [bool; MAX_PALETTE], mut f: impl FnMut(usize, u32)) {
        for g in 0..CHUNK_AREA {
            let at = g * CHUNK_SIZE;
            f(g, (0..CHUNK_SIZE).fold(0, |m, y| m | (of_slot[self.cells.slot(at + y)] as u32) << y));
        }
    }

    /// The types it holds, ascending.
    pub fn palette(&self) -> &[BlockId] {
        self.cells.values()
    }

    pub fn heap_bytes(&self) -> usize {
        self.cells.heap_bytes() + self.ends.heap_bytes()
    }

    pub fn bits(&self) -> u32 {
        self.cells.bits()
    }
}

/// [`PackedBlocks::unpack_range`] a column (32 cells, 4·bits bytes) at a
/// time: the indices spread to a byte each, then one byte shuffle looks
/// all 16 up in the palette. Ragged ends go the plain way. Every chunk
/// meshed is unpacked whole, and its neighbours' columns at its sides.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn unpack_ssse3(cells: &Palette<BlockId>, start: usize, out: &mut [BlockId]) {
    use std::arch::x86_64::*;
    let bits = cells.bits() as usize;
    let end = start + out.len();
    let (first, last) = (start.next_multiple_of(CHUNK_SIZE), end / CHUNK_SIZE * CHUNK_SIZE);
    if first >= last || bits > 4 {
        return cells.unpack_range(start, out);
    }
    cells.unpack_range(start, &mut out[..first - start]);
    cells.unpack_range(last, &mut out[last - start..]);
    let mut table = [0u8; 16];
    for (t, b) in table.iter_mut().zip(cells.values()) {
        *t = b.0;
    }
    let middle: &mut [u8] = bytemuck::cast_slice_mut(&mut out[first - start..last - start]);
    // SAFETY: the CPU has SSSE3 (this function's contract); the table is
    // 16 bytes, and each column writes the 32 bytes of `dst`.
    unsafe {
        let spread = Spread::new(cells);
        let table = _mm_loadu_si128(table.as_ptr().cast());
        for (g, dst) in (first / CHUNK_SIZE..last / CHUNK_SIZE).zip(middle.chunks_exact_mut(CHUNK_SIZE)) {
            let (a, b) = spread.column(g);
            _mm_storeu_si128(dst.as_mut_ptr().cast(), _mm_shuffle_epi8(table, a));
            _mm_storeu_si128(dst.as_mut_ptr().add(16).cast(), _mm_shuffle_epi8(table, b));
        }
    }
}

/// [`PackedBlocks::column_masks`] by byte shuffles: each column's indices
/// spread to a byte each, looked up in a table of 0x80 (a member) or 0,
/// and the bytes' top bits gathered.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn column_masks_ssse3(cells: &Palette<BlockId>, member: [bool; MAX_PALETTE], mut f: impl FnMut(usize, u32)) {
    use std::arch::x86_64::*;
    let table = member.map(|m| if m { 0x80u8 } else { 0 });
    // SAFETY: the CPU has SSSE3 (this function's contract) and the table
    // is 16 bytes.
    unsafe {
        let spread = Spread::new(cells);
        let table = _mm_loadu_si128(table.as_ptr().cast());
        for g in 0..CHUNK_AREA {
            let (a, b) = spread.column(g);
            let low = _mm_movemask_epi8(_mm_shuffle_epi8(table, a)) as u32;
            let high = _mm_movemask_epi8(_mm_shuffle_epi8(table, b)) as u32;
            f(g, low | high << 16);
        }
    }
}

/// Spreads one column's 32 packed indices (of 1, 2 or 4 bits) to a byte
/// each, as two vectors of 16.
#[cfg(target_arch = "x86_64")]
struct Spread<'a> {
    bytes: &'a [u8],
    bits: usize,
    spread_a: std::arch::x86_64::__m128i,
    spread_b: std::arch::x86_64::__m128i,
    fields: [std::arch::x86_64::__m128i; 4],
    bit: std::arch::x86_64::__m128i,
}

#[cfg(target_arch = "x86_64")]
impl<'a> Spread<'a> {
    /// For cells of at most 4 bits; the caller has SSSE3.
    #[target_feature(enable = "ssse3")]
    fn new(cells: &'a Palette<BlockId>) -> Spread<'a> {
        use std::arch::x86_64::*;
        let bits = cells.bits() as usize;
        assert!(bits <= 4, "{bits} bits a cell");
        let (spread_a, spread_b) = match bits {
            1 => (
                _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
                _mm_setr_epi8(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3),
            ),
            _ => (
                _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3),
                _mm_setr_epi8(4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7),
            ),
        };
        let field = |p: u32| {
            _mm_set1_epi32(i32::from_le_bytes(std::array::from_fn(|k| if k as u32 == p { 3u8 << (2 * p) } else { 0 })))
        };
        Spread {
            bytes: bytemuck::cast_slice(cells.words()),
            bits,
            spread_a,
            spread_b,
            fields: [field(0), field(1), field(2), field(3)],
            bit: _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128),
        }
    }

    /// The indices of column `g` (cells 32g..32g + 32), low cells first.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn column(&self, g: usize) -> (std::arch::x86_64::__m128i, std::arch::x86_64::__m128i) {
        use std::arch::x86_64::*;
        let group = 4 * self.bits;
        let src = &self.bytes[g * group..(g + 1) * group];
        match self.bits {
            4 => {
                // SAFETY: `src` holds the 16 bytes loaded.
                let v = unsafe { _mm_loadu_si128(src.as_ptr().cast()) };
                let low4 = _mm_set1_epi8(0x0F);
                let lo = _mm_and_si128(v, low4);
                let hi = _mm_and_si128(_mm_srli_epi16(v, 4), low4);
                (_mm_unpacklo_epi8(lo, hi), _mm_unpackhi_epi8(lo, hi))
            }
            2 => {
                // SAFETY: `src` holds the 8 bytes loaded.
                let v = unsafe { _mm_loadl_epi64(src.as_ptr().cast()) };
                // Byte j's four fields to bytes 4j..4j+4, each shifted
                // down from its place (16-bit shifts carry only the
                // masked-off zeros across bytes).
                let [m0, m1, m2, m3] = self.fields;
                let spread = |x: __m128i| {
                    let f0 = _mm_and_si128(x, m0);
                    let f1 = _mm_srli_epi16(_mm_and_si128(x, m1), 2);
                    let f2 = _mm_srli_epi16(_mm_and_si128(x, m2), 4);
                    let f3 = _mm_srli_epi16(_mm_and_si128(x, m3), 6);
                    _mm_or_si128(_mm_or_si128(f0, f1), _mm_or_si128(f2, f3))
                };
                (spread(_mm_shuffle_epi8(v, self.spread_a)), spread(_mm_shuffle_epi8(v, self.spread_b)))
            }
            _ => {
                let v = _mm_cvtsi32_si128(i32::from_le_bytes([src[0], src[1], src[2], src[3]]));
                // Byte j to bytes 8j..8j+8, then bit k of each to 0 or 1.
                let one = _mm_set1_epi8(1);
                let spread = |x: __m128i| _mm_min_epu8(_mm_and_si128(x, self.bit), one);
                (spread(_mm_shuffle_epi8(v, self.spread_a)), spread(_mm_shuffle_epi8(v, self.spread_b)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::chunk::ChunkBlocks;

    fn ids_with(types: usize, seed: u64) -> Vec<BlockId> {
        let mut s = seed;
        (0..CHUNK_VOLUME)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                BlockId(((s >> 33) % types as u64) as u8 * (31 / (types as u8 - 1)))
            })
            .collect()
    }

    #[test]
    fn packs_two_to_sixteen_types_and_reads_back_every_block() {
        for types in [2, 3, 4, 5, 9, 16] {
            let ids = ids_with(types, types as u64);
            let counts = BlockCounts::tally(&ChunkBlocks::Dense(ids.clone().into()));
            let p = PackedBlocks::pack(&ids, &counts).expect("packs");
            let want_bits = match types {
                2 => 1,
                3 | 4 => 2,
                _ => 4,
            };
            assert_eq!(p.bits(), want_bits, "{types} types");
            assert_eq!(p.heap_bytes(), (CHUNK_VOLUME + 2 * CHUNK_AREA) * want_bits as usize / 8 + 2 * types);
            for (i, &b) in ids.iter().enumerate() {
                assert_eq!(p.get_index(i), b, "{types} types, block {i}");
            }
            let mut back = vec![BlockId::AIR; CHUNK_VOLUME];
            p.unpack_range(0, &mut back);
            assert_eq!(back, ids);
            let mut part = vec![BlockId::AIR; 1000];
            p.unpack_range(77, &mut part);
            assert_eq!(part, ids[77..1077]);
            for (x, z) in [(0, 0), (3, 7), (31, 31), (16, 9)] {
                assert_eq!(p.column(x, z)[..], ids[block_index(x, 0, z)..block_index(x, 0, z) + CHUNK_SIZE]);
            }
            for z in 0..CHUNK_SIZE {
                for x in 0..CHUNK_SIZE {
                    assert_eq!(p.end(false, x, z), ids[block_index(x, 0, z)], "{types} types, bottom {x},{z}");
                    assert_eq!(p.end(true, x, z), ids[block_index(x, CHUNK_SIZE - 1, z)], "{types} types, top {x},{z}");
                }
            }
        }
    }

    /// Ranges of every alignment and length, at every width, read back
    /// as block-by-block lookups say (the column-at-a-time path against
    /// the plain one).
    #[test]
    fn ranges_of_any_start_and_length_read_back_at_every_width() {
        for types in [2, 4, 16] {
            let ids = ids_with(types, 99 + types as u64);
            let counts = BlockCounts::tally(&ChunkBlocks::Dense(ids.clone().into()));
            let p = PackedBlocks::pack(&ids, &counts).expect("packs");
            for (start, len) in [
                (0, CHUNK_VOLUME),
                (0, 32),
                (32, 32),
                (5, 27),
                (5, 28),
                (31, 2),
                (31, 33),
                (1, 100),
                (64, 1000),
                (CHUNK_VOLUME - 70, 70),
                (40, 0),
            ] {
                let mut out = vec![BlockId(255); len];
                p.unpack_range(start, &mut out);
                let want: Vec<BlockId> = (start..start + len).map(|i| p.get_index(i)).collect();
                assert!(out == want, "{types} types, {len} cells from {start}");
                assert!(out == ids[start..start + len], "{types} types, {len} cells from {start}: the ids");
            }
        }
    }

    type MaskSink<'a> = dyn FnMut(usize, u32) + 'a;

    /// Every column's mask of a set of types, at every width, as block-by-
    /// block lookups say.
    #[test]
    fn column_masks_mark_the_member_types_at_every_width() {
        for types in [2, 3, 4, 5, 16] {
            let ids = ids_with(types, 7 + types as u64);
            let counts = BlockCounts::tally(&ChunkBlocks::Dense(ids.clone().into()));
            let p = PackedBlocks::pack(&ids, &counts).expect("packs");
            // Every other type of the palette, and the first.
            let member = |b: BlockId| p.palette().iter().position(|&t| t == b).is_some_and(|k| k % 2 == 0);
            let check = |path: &str, masks: &mut dyn FnMut(&mut MaskSink)| {
                let mut seen = 0;
                masks(&mut |g, mask| {
                    assert_eq!(g, seen, "{path}, {types} types: columns in order");
                    seen += 1;
                    let (x, z) = (g % CHUNK_SIZE, g / CHUNK_SIZE);
                    let want = (0..CHUNK_SIZE).fold(0u32, |m, y| m | (member(ids[block_index(x, y, z)]) as u32) << y);
                    assert_eq!(mask, want, "{path}, {types} types, column {x},{z}");
                });
                assert_eq!(seen, CHUNK_AREA);
            };
            check("fastest", &mut |f| p.column_masks(member, f));
            let of_slot = std::array::from_fn(|k| k < p.palette().len() && member(p.palette()[k]));
            check("plain", &mut |f| p.column_masks_plain(of_slot, f));
        }
    }

    #[test]
    fn many_types_or_wrong_counts_stay_dense() {
        let ids = ids_with(17, 1);
        let counts = BlockCounts::tally(&ChunkBlocks::Dense(ids.clone().into()));
        assert!(PackedBlocks::pack(&ids, &counts).is_none(), "17 types");
        // Counts that miss a type present in the ids: refusing is the only safe answer.
        let ids = ids_with(3, 2);
        let mut counts = BlockCounts::tally(&ChunkBlocks::Dense(ids.clone().into()));
        let missing = ids[0].0 as usize;
        counts.0[missing] = 0;
        counts.0[31] = 1;
        assert!(PackedBlocks::pack(&ids, &counts).is_none(), "a type the counts do not list");
    }
}
