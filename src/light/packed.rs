//! Palette storage for a chunk's light once its fills are done.
//!
//! Dense light is 2 bytes a block, 64 KiB a chunk. A chunk rarely holds
//! more than a few dozen distinct values (sky falls off one level a step,
//! block light likewise), so each block is stored as an index of 1, 2, 4
//! or 8 bits into a palette: 16 KiB for up to 16 values.

use super::value::Light;
use crate::world::coords::CHUNK_VOLUME;
use crate::world::palette::Palette;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedLight(Palette<Light>);

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
        let bits = Palette::<Light>::bits_for(palette.len())?;
        Some(PackedLight(Palette::from_slots(palette.into_boxed_slice(), bits, &slots)))
    }

    #[inline(always)]
    pub fn get(&self, index: usize) -> Light {
        self.0.get(index)
    }

    pub fn unpack(&self) -> Vec<Light> {
        (0..CHUNK_VOLUME).map(|i| self.get(i)).collect()
    }

    pub fn heap_bytes(&self) -> usize {
        self.0.heap_bytes()
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
