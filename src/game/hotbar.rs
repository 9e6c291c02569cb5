//! The hotbar: nine block slots, one selected, chosen with 1–9 or the wheel.

use crate::world::block::BlockId;

pub const SLOTS: usize = 9;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hotbar {
    pub slots: [BlockId; SLOTS],
    pub selected: usize,
}

impl Default for Hotbar {
    fn default() -> Self {
        Hotbar {
            slots: [
                BlockId::STONE,
                BlockId::DIRT,
                BlockId::PLANKS,
                BlockId::COBBLESTONE,
                BlockId::GLASS,
                BlockId::LOG,
                BlockId::LEAVES,
                BlockId::GLOWSTONE,
                BlockId::TORCH,
            ],
            selected: 0,
        }
    }
}

impl Hotbar {
    pub fn block(&self) -> BlockId {
        self.slots[self.selected]
    }

    pub fn select(&mut self, slot: usize) {
        if slot < SLOTS {
            self.selected = slot;
        }
    }

    /// Moves the selection by whole wheel steps, wrapping around.
    pub fn scroll(&mut self, steps: i32) {
        self.selected = (self.selected as i32 - steps).rem_euclid(SLOTS as i32) as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_the_wheel_choose_slots() {
        let mut h = Hotbar::default();
        h.select(4);
        assert_eq!(h.block(), BlockId::GLASS);
        h.select(12);
        assert_eq!(h.selected, 4, "no slot 13");
        h.scroll(-1);
        assert_eq!(h.selected, 5);
        h.scroll(7);
        assert_eq!(h.selected, 7, "wraps around");
    }
}
