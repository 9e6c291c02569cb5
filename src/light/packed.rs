//! Palette storage for a chunk's light once its fills are done.
//!
//! Dense light is 2 bytes a block, 64 KiB a chunk. A chunk rarely holds
//! more than a few dozen distinct values (sky falls off one level a step,
//! block light likewise), so each block is stored as an index of 1, 2, 4
//! or 8 bits into a palette: 16 KiB for up to 16 values.

use super::value::Light;
use crate::world::coords::CHUNK_VOLUME;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedLight {
    bits: u32,
    palette: Box<[Light]>,
    words: Box<[u64]>,
}

impl PackedLight {
    /// `None` with more than 256 distinct values (the chunk stays dense).
    pub fn pack(cells: &[Light]) -> Option<PackedLight> {
        debug_assert_eq!(cells.len(), CHUNK_VOLUME);
        // Palette slots by linear search, with the last value remembered:
        // light comes in long runs and few values.
        let mut palette: Vec<Light> = Vec::new();
        let mut slots = vec![0u8; cells.len()];
        let mut last: Option<(Light, u8)> = None;
        for (l, s) in cells.iter().zip(slots.iter_mut()) {
            *s = match last {
                Some((v, k)) if v == *l => k,
                _ => {
                    let k = match palette.iter().position(|p| p == l) {
                        Some(k) => k,
                        None if palette.len() == 256 => return None,
                        None => {
                            palette.push(*l);
                            palette.len() - 1
                        }
                    } as u8;
                    last = Some((*l, k));
                    k
                }
            };
        }
        let bits = match palette.len() {
            0..=2 => 1,
            3..=4 => 2,
            5..=16 => 4,
            _ => 8,
        };
        let per_word = (64 / bits) as usize;
        let words = slots
            .chunks(per_word)
            .map(|group| group.iter().enumerate().fold(0u64, |w, (k, &s)| w | (s as u64) << (k as u32 * bits)))
            .collect();
        Some(PackedLight { bits, palette: palette.into_boxed_slice(), words })
    }

    #[inline(always)]
    pub fn get(&self, index: usize) -> Light {
        // 64 / bits entries a word, a power of two: shifts, not divisions.
        let per_word_log = 6 - self.bits.trailing_zeros();
        let shift = (index & ((1 << per_word_log) - 1)) as u32 * self.bits;
        let k = (self.words[index >> per_word_log] >> shift) & ((1u64 << self.bits) - 1);
        self.palette[k as usize]
    }

    pub fn unpack(&self) -> Vec<Light> {
        (0..CHUNK_VOLUME).map(|i| self.get(i)).collect()
    }

    pub fn heap_bytes(&self) -> usize {
        self.words.len() * 8 + self.palette.len() * 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_for_every_palette_size() {
        for n in [1usize, 2, 3, 5, 16, 17, 256] {
            let cells: Vec<Light> = (0..CHUNK_VOLUME).map(|i| Light(((i * 7919) % n) as u16 * 3)).collect();
            let p = PackedLight::pack(&cells).expect("at most 256 values pack");
            assert_eq!(p.unpack(), cells, "{n} values");
        }
        let many: Vec<Light> = (0..CHUNK_VOLUME).map(|i| Light((i % 300) as u16)).collect();
        assert!(PackedLight::pack(&many).is_none(), "more than 256 values stay dense");
        let sky: Vec<Light> = (0..CHUNK_VOLUME).map(|i| Light::new((i % 16) as u8, 0, 0, 0)).collect();
        assert_eq!(PackedLight::pack(&sky).map(|p| p.heap_bytes()), Some(CHUNK_VOLUME / 2 + 32), "16 values: 4 bits");
    }
}
