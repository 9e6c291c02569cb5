//! Caves in the preset: cave noises and the layers made of them, and the
//! checks on them.

use super::{Check, PresetError};
use serde::Deserialize;

/// Caves: a 3D density stage after the heightmap (see
/// `src/worldgen/density.rs`). Optional: without it the ground is solid
/// rock under the surface, as in the founding game.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Caves {
    /// Lowest and highest world height a cave may open, inclusive.
    pub bottom: i32,
    pub top: i32,
    /// Cave blocks below this height are `lava` instead of air.
    pub lava_below: i32,
    #[serde(default = "lava")]
    pub lava: String,
    /// Lava only this many blocks or more under the column's surface;
    /// above that a cave is air, so a tunnel that opens on low land shows
    /// no lava in the open. 0 (the default): lava up to the surface.
    #[serde(default)]
    pub lava_cover: u32,
    /// Rock kept under the floor of seas and lakes and, at and below the
    /// water level, between caves and the water's edge.
    pub water_clearance: u32,
    pub noises: Vec<CaveNoise>,
    pub layers: Vec<CaveLayer>,
}

/// A 3D noise on the Brno project's lattice: octave `o` has cells of `cell >> o`
/// blocks across and `cell_y >> o` high (powers of two, never below 8, so
/// an 8×8×8 group of blocks always shares one cell), weighted `gain^o`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaveNoise {
    pub name: String,
    pub cell: u32,
    pub cell_y: u32,
    pub octaves: u32,
    #[serde(default = "half")]
    pub gain: f32,
    /// Picks the noise's seed (derived from the world seed, never added to it).
    pub offset: u32,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum CaveLayer {
    /// Chambers ("cheese"): where the noise rises above `above`.
    Chambers {
        noise: String,
        above: f32,
        /// Never closer than this to the surface of the column.
        #[serde(default)]
        min_depth: u32,
    },
    /// Tunnels ("spaghetti"): where both noises lie within `width` of zero,
    /// the line where two zero surfaces cross.
    Tunnels {
        noises: (String, String),
        width: f32,
        #[serde(default)]
        min_depth: u32,
    },
}

fn lava() -> String {
    "lava".into()
}

fn half() -> f32 {
    0.5
}

pub const MAX_CAVE_NOISES: usize = 4;
pub const MAX_CAVE_LAYERS: usize = 4;
pub const MAX_CAVE_OCTAVES: usize = 8;
/// Cell sizes in blocks: powers of two in this range.
pub const CAVE_CELLS: std::ops::RangeInclusive<u32> = 8..=1024;

pub(super) fn validate(c: &Caves, ck: &Check) -> Result<(), PresetError> {
    if c.bottom > c.top {
        return Err(ck.bad("caves.bottom", format!("{} is above top {}", c.bottom, c.top)));
    }
    ck.block("caves.lava", &c.lava)?;
    if c.lava_cover > 64 {
        return Err(ck.bad("caves.lava_cover", format!("{} is above 64", c.lava_cover)));
    }
    if c.water_clearance > 64 {
        return Err(ck.bad("caves.water_clearance", format!("{} is above 64", c.water_clearance)));
    }
    if c.noises.len() > MAX_CAVE_NOISES || c.layers.len() > MAX_CAVE_LAYERS {
        return Err(ck.bad(
            "caves",
            format!(
                "at most {MAX_CAVE_NOISES} noises and {MAX_CAVE_LAYERS} layers, found {} and {}",
                c.noises.len(),
                c.layers.len()
            ),
        ));
    }
    for (i, n) in c.noises.iter().enumerate() {
        let here = |f: &str| format!("caves.noises[{i}] ({}).{f}", n.name);
        if c.noises[..i].iter().any(|o| o.name == n.name) {
            return Err(ck.bad(here("name"), "is declared twice"));
        }
        if n.octaves == 0 || n.octaves as usize > MAX_CAVE_OCTAVES {
            return Err(ck.bad(here("octaves"), format!("{} is outside 1..={MAX_CAVE_OCTAVES}", n.octaves)));
        }
        for (field, cell) in [("cell", n.cell), ("cell_y", n.cell_y)] {
            if !cell.is_power_of_two() || !CAVE_CELLS.contains(&cell) {
                return Err(ck.bad(
                    here(field),
                    format!("{cell} is not a power of two in {}..={}", CAVE_CELLS.start(), CAVE_CELLS.end()),
                ));
            }
            if cell >> (n.octaves - 1) < *CAVE_CELLS.start() {
                return Err(ck.bad(
                    here(field),
                    format!("{cell} halved for each of {} octaves falls below {}", n.octaves, CAVE_CELLS.start()),
                ));
            }
        }
        if !(n.gain.is_finite() && n.gain > 0.0 && n.gain <= 1.0) {
            return Err(ck.bad(here("gain"), format!("{} is outside (0, 1]", n.gain)));
        }
    }
    let known = |field: String, name: &str| match c.noises.iter().any(|n| n.name == name) {
        true => Ok(()),
        false => Err(ck.bad(field, format!("`{name}` is not a cave noise"))),
    };
    for (i, l) in c.layers.iter().enumerate() {
        let here = |f: &str| format!("caves.layers[{i}].{f}");
        match l {
            CaveLayer::Chambers { noise, above, .. } => {
                known(here("noise"), noise)?;
                if !(above.is_finite() && above.abs() < 1.0) {
                    return Err(ck.bad(here("above"), format!("{above} is outside (-1, 1)")));
                }
            }
            CaveLayer::Tunnels { noises, width, .. } => {
                known(here("noises"), &noises.0)?;
                known(here("noises"), &noises.1)?;
                if !(width.is_finite() && *width > 0.0 && *width < 1.0) {
                    return Err(ck.bad(here("width"), format!("{width} is outside (0, 1)")));
                }
            }
        }
    }
    Ok(())
}
