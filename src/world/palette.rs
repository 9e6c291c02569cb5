//! Bit-packed palette storage, shared by chunk blocks (`packed.rs`) and
//! chunk light (`light::packed`): each of a chunk's cells is an index of
//! 1, 2, 4 or 8 bits into a short palette of values, 64 / bits indices to
//! a `u64` word, in cell order.

/// Cells stored as indices into a palette.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Palette<T> {
    /// Bits per cell: 1, 2, 4 or 8.
    bits: u32,
    palette: Box<[T]>,
    words: Box<[u64]>,
}

/// Words of `64 / BITS` cells each, the first cell in the lowest bits,
/// and the OR of every cell's index.
#[inline(always)]
fn pack_words<const BITS: u32, C: Copy>(cells: &[C], slot: impl Fn(C) -> u8) -> (Box<[u64]>, u8) {
    let per_word = (64 / BITS) as usize;
    let mut words = Vec::with_capacity(cells.len().div_ceil(per_word));
    // Eight cells' indices at a time as the bytes of a word, squeezed
    // together with shifts and masks: no loop over single cells.
    let mut any = 0u64;
    let mut groups = cells.chunks_exact(per_word);
    for group in &mut groups {
        let mut bytes = [0u8; 64];
        for (b, &c) in bytes.iter_mut().zip(group) {
            *b = slot(c);
        }
        let mut w = 0u64;
        for (j, eight) in bytes[..per_word].chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(eight.try_into().unwrap_or_default());
            any |= x;
            w |= squeeze::<BITS>(x) << (j as u32 * 8 * BITS);
        }
        words.push(w);
    }
    let rest = groups.remainder();
    if !rest.is_empty() {
        let mut w = 0u64;
        for (k, &c) in rest.iter().enumerate() {
            let s = slot(c);
            any |= s as u64;
            w |= (s as u64) << (k as u32 * BITS);
        }
        words.push(w);
    }
    (words.into_boxed_slice(), any.to_le_bytes().into_iter().fold(0, |a, b| a | b))
}

/// Eight indices below 2^`BITS`, one a byte, into the low 8·`BITS` bits
/// of a word, index k at bit k·`BITS`: neighbouring fields are joined
/// pairwise three times, halving the gaps each time.
#[inline(always)]
fn squeeze<const BITS: u32>(x: u64) -> u64 {
    if BITS >= 8 {
        return x;
    }
    // The low `bits` bits of each `width`-bit lane.
    const fn lanes(width: u32, bits: u32) -> u64 {
        let lane = (1u64 << bits) - 1;
        let mut m = 0;
        let mut at = 0;
        while at < 64 {
            m |= lane << at;
            at += width;
        }
        m
    }
    let x = (x | (x >> (8 - BITS))) & lanes(16, 2 * BITS);
    let x = (x | (x >> (16 - 2 * BITS))) & lanes(32, 4 * BITS);
    (x | (x >> (32 - 4 * BITS))) & ((1u64 << (8 * BITS)) - 1)
}

impl<T: Copy> Palette<T> {
    /// The fewest bits (1, 2, 4 or 8) that index `n` values; None above 256.
    pub fn bits_for(n: usize) -> Option<u32> {
        match n {
            0..=2 => Some(1),
            3..=4 => Some(2),
            5..=16 => Some(4),
            17..=256 => Some(8),
            _ => None,
        }
    }

    /// Packs `slots` (each an index into `palette` below 2^`bits`), in cell order.
    pub fn from_slots(palette: Box<[T]>, bits: u32, slots: &[u8]) -> Palette<T> {
        Self::from_cells(palette, bits, slots, |s| s).0
    }

    /// Packs `cells` in cell order, each stored as the palette index
    /// `slot` gives it, and returns the OR of those indices beside: one of
    /// 2^`bits` or more (a cell the palette lacks) shows there, and the
    /// caller must then drop the result.
    pub fn from_cells<C: Copy>(palette: Box<[T]>, bits: u32, cells: &[C], slot: impl Fn(C) -> u8) -> (Palette<T>, u8) {
        debug_assert!(matches!(bits, 1 | 2 | 4 | 8) && palette.len() <= 1 << bits);
        // One loop per width, so each word's shifts are constants and the
        // loop unrolls: packing a chunk is on the path of every chunk stored.
        let (words, any) = match bits {
            1 => pack_words::<1, C>(cells, slot),
            2 => pack_words::<2, C>(cells, slot),
            4 => pack_words::<4, C>(cells, slot),
            _ => pack_words::<8, C>(cells, slot),
        };
        (Palette { bits, palette, words }, any)
    }

    /// The palette index of cell `index`.
    #[inline(always)]
    pub fn slot(&self, index: usize) -> usize {
        // 64 / bits entries a word, a power of two: shifts, not divisions.
        let per_word_log = 6 - self.bits.trailing_zeros();
        let shift = (index & ((1 << per_word_log) - 1)) as u32 * self.bits;
        ((self.words[index >> per_word_log] >> shift) & ((1u64 << self.bits) - 1)) as usize
    }

    #[inline(always)]
    pub fn get(&self, index: usize) -> T {
        self.palette[self.slot(index)]
    }

    /// Writes cells `start..start + out.len()` into `out`, a word at a time.
    #[inline]
    pub fn unpack_range(&self, start: usize, out: &mut [T])
    where
        T: Default,
    {
        match self.bits {
            1 => self.unpack_bits::<1>(start, out),
            2 => self.unpack_bits::<2>(start, out),
            4 => self.unpack_bits::<4>(start, out),
            _ => self.unpack_bits::<8>(start, out),
        }
    }

    /// [`Self::unpack_range`] at a width known when compiled, so a word's
    /// cells unpack with constant shifts.
    #[inline(always)]
    fn unpack_bits<const BITS: usize>(&self, start: usize, out: &mut [T])
    where
        T: Default,
    {
        if BITS <= 4 {
            // Light, ragged ends of block ranges and CPUs without SSSE3
            // read cells this way: a palette of at most 16 in a fixed
            // array, indexed by a 4-bit mask, costs no bounds checks.
            let mut local = [T::default(); 16];
            local[..self.palette.len()].copy_from_slice(&self.palette);
            self.unpack_with::<BITS>(start, out, |k| local[k & 15]);
        } else {
            self.unpack_with::<BITS>(start, out, |k| self.palette[k]);
        }
    }

    #[inline(always)]
    fn unpack_with<const BITS: usize>(&self, start: usize, out: &mut [T], value: impl Fn(usize) -> T) {
        let per_word = 64 / BITS;
        let mask = (1u64 << BITS) - 1;
        let (mut at, mut done) = (start, 0);
        // A ragged first word, then whole words, then a ragged last one.
        while done < out.len() {
            let skip = at % per_word;
            let word = self.words[at / per_word];
            let n = (per_word - skip).min(out.len() - done);
            let cells = &mut out[done..done + n];
            if n == per_word {
                for (k, o) in cells.iter_mut().enumerate() {
                    *o = value((word >> (k * BITS)) as usize & mask as usize);
                }
            } else {
                let mut w = word >> (skip * BITS);
                for o in cells {
                    *o = value((w & mask) as usize);
                    w >>= BITS;
                }
            }
            (at, done) = (at + n, done + n);
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.words.len() * 8 + std::mem::size_of_val(&*self.palette)
    }

    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The packed cells: cell k at bit k·bits of the sequence, words low
    /// bits first.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub fn values(&self) -> &[T] {
        &self.palette
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_width_round_trips_through_get_and_ranges() {
        for n in [1usize, 2, 3, 4, 5, 16, 17, 256] {
            let bits = Palette::<u16>::bits_for(n).unwrap();
            let values: Box<[u16]> = (0..n as u16).map(|v| v * 3 + 1).collect();
            let slots: Vec<u8> = (0..4096).map(|i| ((i * 7919) % n) as u8).collect();
            let p = Palette::from_slots(values.clone(), bits, &slots);
            for (i, &s) in slots.iter().enumerate() {
                assert_eq!(p.get(i), values[s as usize], "{n} values, cell {i}");
            }
            let mut out = vec![0u16; 100];
            p.unpack_range(37, &mut out);
            assert!(out.iter().enumerate().all(|(k, &v)| v == values[slots[37 + k] as usize]), "{n} values");
        }
        assert_eq!(Palette::<u16>::bits_for(257), None);
    }

    /// Packing works eight cells at a time and a word's worth at a time;
    /// every width and every length (ragged last words included) must read
    /// back as the cells went in, and a cell outside the palette must show
    /// in the returned OR.
    #[test]
    fn packing_reads_back_at_every_width_and_length() {
        let mut s = 7u64;
        let mut next = |below: u64| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) % below) as u8
        };
        for bits in [1u32, 2, 4, 8] {
            let n = 1usize << bits;
            let values: Box<[u16]> = (0..n as u16).map(|v| v * 5 + 2).collect();
            for len in [0usize, 1, 7, 8, 9, 63, 64, 65, 130, 4099] {
                let slots: Vec<u8> = (0..len).map(|_| next(n as u64)).collect();
                let (p, any) = Palette::from_cells(values.clone(), bits, &slots, |c| c);
                assert_eq!(any, slots.iter().fold(0, |a, &c| a | c), "{bits} bits, {len} cells");
                for (i, &c) in slots.iter().enumerate() {
                    assert_eq!(p.get(i), values[c as usize], "{bits} bits, {len} cells, cell {i}");
                }
                for start in [0, 1, 5, len / 2] {
                    let mut out = vec![0u16; len.saturating_sub(start)];
                    p.unpack_range(start, &mut out);
                    let want: Vec<u16> = slots[start.min(len)..].iter().map(|&c| values[c as usize]).collect();
                    assert_eq!(out, want, "{bits} bits, {len} cells from {start}");
                }
            }
            if bits < 8 {
                let mut slots = vec![0u8; 100];
                slots[37] = n as u8;
                let (_, any) = Palette::from_cells(values.clone(), bits, &slots, |c| c);
                assert!(any >= n as u8, "{bits} bits: a stray index shows");
            }
        }
    }
}
