//! Rivers: channels carved in the column stage along the zero line of a
//! noise node, with valleys whose floors lean down to them.

use super::{Check, Preset, PresetError};
use serde::Deserialize;

/// Where |course| is small a river runs: a channel below the water where
/// |course| < `width`, and a valley out to |course| < `valley` whose floor
/// rises smoothly from the river to the land. Land `max_height` blocks or
/// more above the water is left alone and the carving fades in below it,
/// so a river starts as a dry gully in the hills and fills where the land
/// is low. A column's carving reads only its own position, so chunks stay
/// independent and seamless.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rivers {
    /// The node whose zero line the rivers follow.
    pub course: String,
    /// |course| below this: the channel.
    pub width: f32,
    /// |course| below this: the valley (more than `width`).
    pub valley: f32,
    /// The bed's depth below the water level, in blocks.
    pub depth: f32,
    /// Land this many blocks above the water or more is not carved.
    pub max_height: f32,
    /// The biome of the channel's columns: its blocks and decorations.
    #[serde(default = "river")]
    pub biome: String,
}

fn river() -> String {
    "river".to_string()
}

pub(super) fn validate(p: &Preset, r: &Rivers, c: &Check) -> Result<(), PresetError> {
    if !p.noise.iter().any(|n| n.name == r.course) {
        return Err(c.bad("rivers.course", format!("`{}` is not a node", r.course)));
    }
    if p.biome_index(&r.biome).is_none() {
        return Err(c.bad("rivers.biome", format!("`{}` is not a biome", r.biome)));
    }
    c.within("rivers.width".into(), r.width, (0.0, 1.0), (true, false))?;
    c.within("rivers.valley".into(), r.valley, (0.0, 4.0), (true, false))?;
    if r.valley <= r.width {
        return Err(c.bad("rivers.valley", format!("{} is not wider than the channel's {}", r.valley, r.width)));
    }
    c.within("rivers.depth".into(), r.depth, (0.0, 64.0), (false, false))?;
    c.within("rivers.max_height".into(), r.max_height, (0.0, 4096.0), (true, false))
}
