//! `assets/blocks.ron` → Rust source (the registry table, the `BlockId`
//! constants and the atlas tile list). Run by build.rs; the generated file
//! is included by `src/world/block.rs`, so no block id is written by hand
//! anywhere else.

use serde::Deserialize;
use std::fmt::Write;

/// Upper bound on block types: chunk storage is one byte per block, and the
/// kernels' per-chunk counts (`BW_MAX_BLOCK_TYPES`) have one slot per type.
pub const MAX_BLOCK_TYPES: usize = 64;

/// The suffix of a tile drawn as another turned a quarter (its rows and
/// columns swapped): the side of a log lying along x or z.
pub const TURNED: &str = "_turned";

/// How a block is drawn.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Shape {
    #[default]
    Cube,
    /// Two crossed quads (flowers, grass, torches).
    Cross,
    /// One level quad a hair above the block's floor, seen from both sides
    /// (lily pads: the water's surface is the floor of the block above it).
    Flat,
    None,
}

/// The axis a block's top and bottom tiles face along: Y for most blocks,
/// X or Z for a log lying on its side.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Axis {
    X,
    #[default]
    Y,
    Z,
}

/// Which pass draws it.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Layer {
    /// Hides its neighbours' faces.
    #[default]
    Opaque,
    /// Alpha-tested: leaves, glass, sprites.
    Cutout,
    /// Blended after everything else: water.
    Translucent,
}

/// What the eye sees from within a block it can be in: everything fades
/// into `colour` (sRGB) with distance, fully at `reach` blocks.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Inside {
    pub colour: [u8; 3],
    pub reach: u16,
}

/// The fluids the simulation moves; `FLUIDS` holds each one's blocks, in
/// this order.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FluidKind {
    Water,
    Lava,
}

impl FluidKind {
    pub const ALL: [FluidKind; 2] = [FluidKind::Water, FluidKind::Lava];
}

/// The form a fluid block is in.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FluidForm {
    /// Stays, and feeds flow around it.
    Source,
    /// Flow this many blocks from the nearest source or fall (1 nearest).
    Flowing(u8),
    /// Flow pouring down: fed from above, spreading like a source where it lands.
    Falling,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Tiles {
    all: Option<String>,
    top: Option<String>,
    side: Option<String>,
    bottom: Option<String>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Block {
    id: u16,
    name: String,
    #[serde(default)]
    shape: Shape,
    #[serde(default)]
    layer: Layer,
    #[serde(default = "yes")]
    solid: bool,
    #[serde(default)]
    liquid: bool,
    /// Emitted block light per colour channel (red, green, blue), 0–15.
    #[serde(default)]
    light: [u8; 3],
    /// Light lost passing through, beyond the one level every step costs
    /// (leaves, water); only for blocks that let light through.
    #[serde(default)]
    dims: u8,
    #[serde(default)]
    cull_self: bool,
    #[serde(default)]
    axis: Axis,
    #[serde(default)]
    tiles: Tiles,
    #[serde(default)]
    inside: Option<Inside>,
    /// Its sound group in `assets/sounds.ron` (footsteps, digging,
    /// breaking, placing); without one, the group its kind implies.
    #[serde(default)]
    sound: Option<String>,
    /// For liquids: (kind, form).
    #[serde(default)]
    fluid: Option<(FluidKind, FluidForm)>,
    /// Falls when nothing holds it up.
    #[serde(default)]
    falls: bool,
}

impl Block {
    /// The block's sound group: the one it names, else its kind's: a
    /// liquid sounds like water, a sprite like a plant, a cube like stone.
    fn sound_group(&self) -> &str {
        match (&self.sound, self.liquid, self.shape) {
            (Some(s), _, _) => s,
            (None, true, _) => "water",
            (None, false, Shape::Cross | Shape::Flat) => "plant",
            (None, false, Shape::None) => "none",
            (None, false, Shape::Cube) => "stone",
        }
    }

    /// (top, side, bottom) tile names.
    fn tile_names(&self) -> Result<[Option<&str>; 3], String> {
        let t = &self.tiles;
        match (&t.all, &t.top, &t.side, &t.bottom) {
            (Some(a), None, None, None) => Ok([Some(a.as_str()); 3]),
            (None, Some(top), Some(side), Some(bottom)) => {
                Ok([Some(top.as_str()), Some(side.as_str()), Some(bottom.as_str())])
            }
            (None, None, None, None) if self.shape == Shape::None => Ok([None; 3]),
            _ => Err(format!("block `{}`: tiles must be (all: T) or (top: T, side: T, bottom: T)", self.name)),
        }
    }
}

/// Parses and checks the registry; returns the generated Rust source.
pub fn generate(ron_text: &str) -> Result<String, String> {
    let max_blocks = MAX_BLOCK_TYPES;
    let blocks: Vec<Block> = ron::from_str(ron_text).map_err(|e| format!("assets/blocks.ron: {e}"))?;
    if blocks.len() > max_blocks {
        return Err(format!("{} blocks exceed MAX_BLOCK_TYPES ({max_blocks})", blocks.len()));
    }
    let mut tiles: Vec<String> = Vec::new();
    let mut table = String::new();
    let mut consts = String::new();
    for (i, b) in blocks.iter().enumerate() {
        if b.id as usize != i {
            return Err(format!("block `{}` has id {}, expected {i}: ids are dense from 0", b.name, b.id));
        }
        if !b.name.chars().all(|c| c.is_ascii_lowercase() || c == '_') || b.name.is_empty() {
            return Err(format!("block name `{}`: use lowercase letters and underscores", b.name));
        }
        if blocks[..i].iter().any(|o| o.name == b.name) {
            return Err(format!("block name `{}` appears twice", b.name));
        }
        if b.light.iter().any(|&c| c > 15) {
            return Err(format!("block `{}`: light {:?} exceeds 15", b.name, b.light));
        }
        if b.dims > 15 {
            return Err(format!("block `{}`: dims {} exceeds 15", b.name, b.dims));
        }
        if b.dims > 0 && b.shape == Shape::Cube && b.layer == Layer::Opaque {
            return Err(format!("block `{}`: dims applies to blocks light passes through", b.name));
        }
        if i == 0 && (b.name != "air" || b.shape != Shape::None || b.solid) {
            return Err("id 0 must be `air`: shape None, not solid".into());
        }
        if b.cull_self && !(b.layer == Layer::Cutout && b.shape == Shape::Cube) {
            return Err(format!("block `{}`: cull_self applies to Cutout cubes only", b.name));
        }
        if b.axis != Axis::Y && b.shape != Shape::Cube {
            return Err(format!("block `{}`: axis applies to cubes only", b.name));
        }
        if let Some(inside) = b.inside {
            if b.solid {
                return Err(format!("block `{}`: inside applies to blocks the eye can be in (not solid)", b.name));
            }
            if !(1..=1024).contains(&inside.reach) {
                return Err(format!("block `{}`: inside reach {} is not within 1..=1024", b.name, inside.reach));
            }
        }
        if b.liquid != b.fluid.is_some() {
            return Err(format!("block `{}`: a liquid names its fluid, and only a liquid does", b.name));
        }
        if b.falls && !(b.solid && b.shape == Shape::Cube) {
            return Err(format!("block `{}`: falls applies to solid cubes only", b.name));
        }
        let [top, side, bottom] = b.tile_names()?;
        // A log on its side shows its side tile turned where the face's u
        // axis runs along the log, so the bark follows the log.
        let turned = match (b.axis, side) {
            (Axis::X | Axis::Z, Some(side)) => Some(format!("{side}{TURNED}")),
            _ => side.map(str::to_string),
        };
        let mut idx = [0usize; 4];
        for (k, name) in [top.map(str::to_string), side.map(str::to_string), bottom.map(str::to_string), turned]
            .into_iter()
            .enumerate()
        {
            if let Some(name) = name {
                idx[k] = match tiles.iter().position(|t| *t == name) {
                    Some(p) => p,
                    None => {
                        tiles.push(name);
                        tiles.len() - 1
                    }
                };
            }
        }
        let _ = writeln!(
            table,
            "    BlockInfo {{ name: {:?}, shape: Shape::{:?}, layer: Layer::{:?}, solid: {}, liquid: {}, light: {:?}, dims: {}, cull_self: {}, axis: Axis::{:?}, tiles: [{}, {}, {}, {}], inside: {:?}, sound: {:?}, fluid: {}, falls: {} }},",
            b.name, b.shape, b.layer, b.solid, b.liquid, b.light, b.dims, b.cull_self, b.axis, idx[0], idx[1], idx[2], idx[3], b.inside, b.sound_group(),
            match b.fluid {
                Some((kind, form)) => format!("Some(Fluid {{ kind: FluidKind::{kind:?}, form: FluidForm::{form:?} }})"),
                None => "None".into(),
            },
            b.falls
        );
        let _ = writeln!(consts, "    pub const {}: BlockId = BlockId({});", b.name.to_uppercase(), b.id);
    }
    let fluids = fluid_table(&blocks)?;
    if tiles.len() > 256 {
        return Err(format!("{} atlas tiles exceed the vertex format's 256", tiles.len()));
    }
    let mut out = String::from("// Generated by build.rs from assets/blocks.ron. Do not edit.\n\n");
    let _ = writeln!(out, "/// The registry, indexed by id.\npub const BLOCKS: &[BlockInfo] = &[\n{table}];\n");
    let _ = writeln!(out, "impl BlockId {{\n{consts}}}\n");
    let _ = writeln!(
        out,
        "/// Each fluid's blocks, in `FluidKind` order.\npub const FLUIDS: [FluidBlocks; {}] = [\n{fluids}];\n",
        FluidKind::ALL.len()
    );
    let _ = writeln!(
        out,
        "/// Atlas tiles in layer order; `BlockInfo::tiles` index it.\npub const TILES: &[&str] = &{tiles:?};"
    );
    Ok(out)
}

/// `FLUIDS`' entries: every kind has one source, one falling block, and
/// flowing levels 1..=n with no gap.
fn fluid_table(blocks: &[Block]) -> Result<String, String> {
    let mut out = String::new();
    for kind in FluidKind::ALL {
        let of = |want: &dyn Fn(FluidForm) -> bool| -> Vec<&Block> {
            blocks.iter().filter(|b| b.fluid.is_some_and(|(k, f)| k == kind && want(f))).collect()
        };
        let one = |what: &str, found: Vec<&Block>| match found[..] {
            [b] => Ok(b.id),
            _ => Err(format!("fluid {kind:?} needs exactly one {what} block, not {}", found.len())),
        };
        let source = one("Source", of(&|f| f == FluidForm::Source))?;
        let falling = one("Falling", of(&|f| f == FluidForm::Falling))?;
        let mut flowing = Vec::new();
        for level in 1..=u8::MAX {
            match of(&|f| f == FluidForm::Flowing(level))[..] {
                [] => break,
                [b] => flowing.push(b.id),
                _ => return Err(format!("fluid {kind:?} has two Flowing({level}) blocks")),
            }
        }
        let levels = of(&|f| matches!(f, FluidForm::Flowing(_))).len();
        if flowing.is_empty() || levels != flowing.len() {
            return Err(format!("fluid {kind:?}: Flowing levels must run 1..=n with no gap"));
        }
        let ids: Vec<String> = flowing.iter().map(|i| format!("BlockId({i})")).collect();
        let _ = writeln!(
            out,
            "    FluidBlocks {{ source: BlockId({source}), falling: BlockId({falling}), flowing: &[{}] }},",
            ids.join(", ")
        );
    }
    Ok(out)
}
