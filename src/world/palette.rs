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
        debug_assert!(matches!(bits, 1 | 2 | 4 | 8) && palette.len() <= 1 << bits);
        let per_word = (64 / bits) as usize;
        let words = slots
            .chunks(per_word)
            .map(|group| group.iter().enumerate().fold(0u64, |w, (k, &s)| w | (s as u64) << (k as u32 * bits)))
            .collect();
        Palette { bits, palette, words }
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
        if self.bits <= 4 {
            // The mesher's gather reads columns this way: a palette of at
            // most 16 in a fixed array, indexed by a 4-bit mask, costs no
            // bounds checks.
            let mut local = [T::default(); 16];
            local[..self.palette.len()].copy_from_slice(&self.palette);
            self.unpack_with(start, out, |k| local[k & 15]);
        } else {
            self.unpack_with(start, out, |k| self.palette[k]);
        }
    }

    #[inline(always)]
    fn unpack_with(&self, start: usize, out: &mut [T], value: impl Fn(usize) -> T) {
        let bits = self.bits as usize;
        let per_word = 64 / bits;
        let mask = (1u64 << bits) - 1;
        let (mut at, mut done) = (start, 0);
        while done < out.len() {
            let skip = at % per_word;
            let mut w = self.words[at / per_word] >> (skip * bits);
            let n = (per_word - skip).min(out.len() - done);
            for o in &mut out[done..done + n] {
                *o = value((w & mask) as usize);
                w >>= bits;
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
}
