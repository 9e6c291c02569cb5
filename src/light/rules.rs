//! How light moves from one block into the next, from the registry.

use super::value::{Light, MAX, SKY};
use crate::world::block::BlockId;
use std::sync::LazyLock;

/// What the light engine needs to know of a block.
#[derive(Clone, Copy, Debug, Default)]
pub struct Props {
    /// Light enters it (everything but opaque cubes).
    pub clear: bool,
    /// Extra levels lost entering it.
    pub dims: u8,
    /// The light it gives off itself.
    pub emits: Light,
}

static PROPS: LazyLock<[Props; 256]> = LazyLock::new(|| {
    let mut t = [Props::default(); 256];
    for (id, p) in BlockId::all().zip(t.iter_mut()) {
        let b = id.info();
        *p = Props { clear: !b.opaque(), dims: b.dims, emits: Light::emitted(b.light) };
    }
    t
});

#[inline(always)]
pub fn props(id: BlockId) -> &'static Props {
    &PROPS[id.0 as usize]
}

/// The level channel `c` reaches a block with, coming from a neighbour
/// holding `from` (`down`: the neighbour is right above it).
#[inline(always)]
pub fn spread(from: u8, c: usize, down: bool, into: &Props) -> u8 {
    if !into.clear {
        0
    } else if c == SKY && down && from == MAX && into.dims == 0 {
        MAX
    } else {
        from.saturating_sub(1 + into.dims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_drives_the_rules() {
        let (air, leaves, water, stone) =
            (props(BlockId::AIR), props(BlockId::LEAVES), props(BlockId::WATER), props(BlockId::STONE));
        assert_eq!(spread(15, SKY, true, air), 15, "sky keeps full strength straight down");
        assert_eq!(spread(15, SKY, false, air), 14);
        assert_eq!(spread(15, 1, true, air), 14, "block light always falls off");
        assert_eq!(spread(15, SKY, true, leaves), 13);
        assert_eq!(spread(15, SKY, true, water), 12);
        assert_eq!(spread(15, SKY, true, stone), 0);
        assert_eq!(spread(0, 1, false, air), 0);
        assert_eq!(props(BlockId::TORCH).emits.rgb(), [14, 12, 9]);
        assert!(props(BlockId::TORCH).clear && props(BlockId::GLASS).clear && !props(BlockId::LAVA).clear);
    }
}
