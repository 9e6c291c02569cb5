//! The block registry: every block type the world can contain, generated
//! from `assets/blocks.ron` by build.rs (see `block_codegen.rs`).

use serde::Serialize;

pub use super::block_codegen::{Axis, FluidForm, FluidKind, Inside, Layer, Shape, MAX_BLOCK_TYPES, TURNED};

/// A block type id. Ids index [`BLOCKS`]; 0 is air. Stored as one byte per
/// block while the registry holds at most [`MAX_BLOCK_TYPES`] types (the
/// registry and save formats carry ids as u16).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(transparent)]
pub struct BlockId(pub u8);

#[derive(Clone, Copy, Debug)]
pub struct BlockInfo {
    pub name: &'static str,
    pub shape: Shape,
    pub layer: Layer,
    /// Collides with the player.
    pub solid: bool,
    pub liquid: bool,
    /// Emitted block light (red, green, blue), each 0–15.
    pub light: [u8; 3],
    /// Extra light lost passing through (leaves, water).
    pub dims: u8,
    /// A cutout cube whose faces against its own kind are hidden (glass).
    pub cull_self: bool,
    /// The axis its top and bottom tiles face along (a log on its side).
    pub axis: Axis,
    /// Atlas tiles of the top, side and bottom faces (indices into
    /// [`TILES`]), and of a side whose texture u axis runs along `axis`
    /// (the side turned; the side itself for upright blocks).
    pub tiles: [u8; 4],
    /// What the eye sees from within it (water, lava), if not clear air.
    pub inside: Option<Inside>,
    /// Its sound group in `assets/sounds.ron`.
    pub sound: &'static str,
    /// The fluid it is, for liquids.
    pub fluid: Option<Fluid>,
    /// Falls when nothing holds it up (sand, gravel).
    pub falls: bool,
}

/// A fluid block: which fluid, in which form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fluid {
    pub kind: FluidKind,
    pub form: FluidForm,
}

/// One fluid's blocks.
#[derive(Clone, Copy, Debug)]
pub struct FluidBlocks {
    pub source: BlockId,
    pub falling: BlockId,
    /// `flowing[d - 1]` is flow d blocks out; its length is how far the
    /// fluid spreads on flat ground.
    pub flowing: &'static [BlockId],
}

impl FluidKind {
    pub fn blocks(self) -> &'static FluidBlocks {
        &FLUIDS[self as usize]
    }
}

impl BlockInfo {
    /// The atlas tile of the face whose outward normal is `normal` (a unit
    /// vector along one axis): its top tile facing +axis, its bottom tile
    /// facing −axis, its side tile otherwise, turned where the face's
    /// texture u axis (`face_uv` in terrain.wgsl: z on ±x faces, x on the
    /// others) runs along the block's axis.
    pub fn tile_facing(&self, normal: [i32; 3]) -> u8 {
        let along = match self.axis {
            Axis::X => normal[0],
            Axis::Y => normal[1],
            Axis::Z => normal[2],
        };
        let u = if normal[0] != 0 { Axis::Z } else { Axis::X };
        match along {
            1 => self.tiles[0],
            -1 => self.tiles[2],
            _ if u == self.axis => self.tiles[3],
            _ => self.tiles[1],
        }
    }

    /// Can be put in the hand and placed: not flow, which only the
    /// simulation makes.
    pub fn placeable(&self) -> bool {
        self.shape != Shape::None && self.fluid.is_none_or(|f| f.form == FluidForm::Source)
    }

    /// Hides the faces of its neighbours.
    pub const fn opaque(&self) -> bool {
        matches!(self.shape, Shape::Cube) && matches!(self.layer, Layer::Opaque)
    }
}

include!(concat!(env!("OUT_DIR"), "/blocks.rs"));

const _: () = assert!(BLOCKS.len() <= MAX_BLOCK_TYPES && MAX_BLOCK_TYPES <= u64::BITS as usize);

/// Bit b set where block id b is [`BlockInfo::opaque`]: a set of types
/// (see [`crate::world::chunk::BlockCounts::present`]) is tested against it
/// in one step.
pub const OPAQUE_IDS: u64 = {
    let mut mask = 0;
    let mut i = 0;
    while i < BLOCKS.len() {
        if BLOCKS[i].opaque() {
            mask |= 1 << i;
        }
        i += 1;
    }
    mask
};

impl BlockId {
    pub fn by_name(name: &str) -> Option<BlockId> {
        BLOCKS.iter().position(|b| b.name == name).map(|i| BlockId(i as u8))
    }

    /// Every id in the game is in the registry: the generated constants,
    /// presets (checked by name when they load), saved edits (checked when
    /// they are read) and device output (checked by its counts, see
    /// `backend::kernel`) are the only ways in.
    pub fn info(self) -> &'static BlockInfo {
        &BLOCKS[self.0 as usize]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The fluid it is, in any form.
    pub fn fluid_kind(self) -> Option<FluidKind> {
        self.info().fluid.map(|f| f.kind)
    }

    /// Every registered block, in id order.
    pub fn all() -> impl Iterator<Item = BlockId> {
        (0..BLOCKS.len()).map(|i| BlockId(i as u8))
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
        assert_eq!(BlockId::GLOWSTONE.name(), "glowstone");
        assert!(BlockId::WATER.info().liquid && !BlockId::WATER.info().solid);
        assert!(BlockId::WATER.info().inside.is_some() && BlockId::AIR.info().inside.is_none());
        assert!(BlockId::STONE.info().opaque() && BlockId::STONE.info().solid);
        assert!(!BlockId::AIR.info().opaque() && !BlockId::LEAVES.info().opaque());
        assert_eq!(BlockId::ROSE.info().shape, Shape::Cross);
        assert_eq!(BlockId::TORCH.info().light, [14, 12, 9]);
        assert_eq!(BlockId::STONE.info().light, [0; 3]);
    }

    #[test]
    fn the_founding_block_set_is_registered() {
        let names = [
            "grass",
            "dirt",
            "stone",
            "sand",
            "snow",
            "podzol",
            "water",
            "log",
            "leaves",
            "pine_log",
            "pine_leaves",
            "planks",
            "cobblestone",
            "glass",
            "gravel",
            "clay",
            "coal_ore",
            "tall_grass",
            "rose",
            "buttercup",
            "shrub",
            "torch",
            "lava",
            "glowstone",
        ];
        for n in names {
            assert!(BlockId::by_name(n).is_some(), "{n} is missing from assets/blocks.ron");
        }
    }

    #[test]
    fn a_bad_registry_is_refused_with_its_reason() {
        use crate::world::block_codegen::generate;
        let ok = include_str!("../../assets/blocks.ron");
        assert!(generate(ok).is_ok());
        let cases = [
            (ok.replacen("(id: 2, name: \"dirt\"", "(id: 3, name: \"dirt\"", 1), "ids are dense"),
            (ok.replacen("name: \"sand\"", "name: \"stone\"", 1), "twice"),
            (
                ok.replacen(
                    "light: (15, 8, 2), tiles: (all: \"lava\")",
                    "light: (16, 8, 2), tiles: (all: \"lava\")",
                    1,
                ),
                "exceeds 15",
            ),
            (ok.replacen("(id: 1, name: \"stone\",", "(id: 1, name: \"stone\", dims: 2,", 1), "dims applies"),
            (ok.replacen("tiles: (all: \"gravel\")", "tiles: (top: \"gravel\")", 1), "tiles must be"),
            (ok.replacen("name: \"air\", shape: None", "name: \"air\", shape: Cube", 1), "id 0 must be"),
            (
                ok.replacen(
                    "tiles: (all: \"glowstone\")",
                    "tiles: (all: \"glowstone\"), inside: (colour: (1, 2, 3), reach: 4)",
                    1,
                ),
                "not solid",
            ),
            (ok.replacen("reach: 40)", "reach: 0)", 1), "not within"),
            (ok.replacen("fluid: (Water, Source), ", "", 1), "names its fluid"),
            (ok.replacen("Flowing(6)", "Flowing(9)", 1), "no gap"),
            (ok.replacen("Flowing(2)", "Flowing(1)", 1), "two Flowing(1)"),
            (ok.replacen("(Lava, Falling)", "(Lava, Flowing(4))", 1), "exactly one Falling"),
            (ok.replacen("name: \"rose\",", "name: \"rose\", falls: true,", 1), "falls applies"),
        ];
        for (text, needle) in cases {
            let err = generate(&text).expect_err(needle);
            assert!(err.contains(needle), "{err} does not say {needle}");
        }
    }

    #[test]
    fn each_fluid_has_a_source_a_fall_and_its_levels() {
        let water = FluidKind::Water.blocks();
        assert_eq!((water.source, water.flowing.len()), (BlockId::WATER, 7));
        assert_eq!((FluidKind::Lava.blocks().source, FluidKind::Lava.blocks().flowing.len()), (BlockId::LAVA, 3));
        for kind in FluidKind::ALL {
            let b = kind.blocks();
            assert_eq!(b.falling.info().fluid, Some(Fluid { kind, form: FluidForm::Falling }));
            for (i, f) in b.flowing.iter().enumerate() {
                assert_eq!(f.info().fluid, Some(Fluid { kind, form: FluidForm::Flowing(i as u8 + 1) }));
                assert!(!f.info().placeable() && f.info().liquid);
            }
            assert!(b.source.info().placeable());
        }
        assert!(BlockId::SAND.info().falls && BlockId::GRAVEL.info().falls && !BlockId::DIRT.info().falls);
        assert!(!BlockId::AIR.info().placeable());
    }

    /// A log lying along x or z shows its rings on its ends and its bark
    /// running along it: the side tile turned on the faces whose texture
    /// u axis is the log's axis, as an upright log's bark runs along its v.
    #[test]
    fn a_fallen_log_shows_its_bark_along_itself() {
        let (upright, along_x, along_z) = (BlockId::LOG.info(), BlockId::LOG_X.info(), BlockId::LOG_Z.info());
        let [px, nx, py, ny, pz, nz] = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];
        let (top, side, turned) = (upright.tiles[0], upright.tiles[1], along_x.tiles[3]);
        assert_ne!(turned, side);
        assert_eq!(TILES[turned as usize], format!("{}{TURNED}", TILES[side as usize]));
        for n in [px, nx, pz, nz] {
            assert_eq!(upright.tile_facing(n), side, "{n:?}");
        }
        assert_eq!([along_x.tile_facing(px), along_x.tile_facing(nx)], [top, top]);
        for n in [py, ny, pz, nz] {
            assert_eq!(along_x.tile_facing(n), turned, "log_x {n:?}");
        }
        assert_eq!([along_z.tile_facing(pz), along_z.tile_facing(nz)], [top, top]);
        assert_eq!([along_z.tile_facing(px), along_z.tile_facing(nx)], [turned, turned]);
        // On ±y faces v runs along z already.
        assert_eq!([along_z.tile_facing(py), along_z.tile_facing(ny)], [side, side]);
    }
}
