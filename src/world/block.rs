//! The block registry: every block type the world can contain.

use serde::Serialize;

/// A block type id. Ids index [`BLOCKS`]; 0 is air.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(transparent)]
pub struct BlockId(pub u8);

#[derive(Clone, Copy, Debug)]
pub struct BlockInfo {
    pub name: &'static str,
    /// Hides the faces of its neighbours.
    pub opaque: bool,
    /// Drawn in the translucent pass.
    pub transparent: bool,
    pub liquid: bool,
    /// Collides with the player.
    pub solid: bool,
    /// Atlas tiles of the top, side and bottom faces (see `render::atlas::TILES`).
    pub tiles: [u8; 3],
}

const fn block(
    name: &'static str,
    opaque: bool,
    transparent: bool,
    liquid: bool,
    solid: bool,
    tiles: [u8; 3],
) -> BlockInfo {
    BlockInfo { name, opaque, transparent, liquid, solid, tiles }
}

/// The registry, indexed by id. Append only: ids are part of region digests.
pub const BLOCKS: &[BlockInfo] = &[
    block("air", false, true, false, false, [0, 0, 0]),
    block("stone", true, false, false, true, [0, 0, 0]),
    block("dirt", true, false, false, true, [1, 1, 1]),
    block("grass", true, false, false, true, [2, 3, 1]),
    block("sand", true, false, false, true, [4, 4, 4]),
    block("water", false, true, true, false, [5, 5, 5]),
    block("snow", true, false, false, true, [6, 6, 6]),
    block("podzol", true, false, false, true, [7, 8, 1]),
];

/// Upper bound on block types, shared with the kernels' count arrays
/// (`BW_MAX_BLOCK_TYPES` in `kernels/worldgen_params.cuh`; a test keeps them equal).
pub const MAX_BLOCK_TYPES: usize = 16;
const _: () = assert!(BLOCKS.len() <= MAX_BLOCK_TYPES);

impl BlockId {
    pub const AIR: BlockId = BlockId(0);
    pub const STONE: BlockId = BlockId(1);
    pub const DIRT: BlockId = BlockId(2);
    pub const GRASS: BlockId = BlockId(3);
    pub const SAND: BlockId = BlockId(4);
    pub const WATER: BlockId = BlockId(5);
    pub const SNOW: BlockId = BlockId(6);
    pub const PODZOL: BlockId = BlockId(7);

    pub fn by_name(name: &str) -> Option<BlockId> {
        BLOCKS.iter().position(|b| b.name == name).map(|i| BlockId(i as u8))
    }

    pub fn info(self) -> &'static BlockInfo {
        &BLOCKS[self.0 as usize % BLOCKS.len()]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_constants_match_the_table() {
        for (i, b) in BLOCKS.iter().enumerate() {
            assert_eq!(BlockId::by_name(b.name), Some(BlockId(i as u8)));
        }
        assert_eq!(BlockId::WATER.name(), "water");
        assert_eq!(BlockId::PODZOL.name(), "podzol");
        assert!(BlockId::WATER.info().liquid && !BlockId::WATER.info().solid);
        assert!(BlockId::STONE.info().opaque && BlockId::STONE.info().solid);
        assert!(!BlockId::AIR.info().opaque);
    }
}
