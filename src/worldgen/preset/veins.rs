//! Ore veins and patches in the rock, and the checks on them.

use super::{Check, PresetError};
use crate::world::block::BlockId;
use serde::Deserialize;

/// Ores and patches of other rock (see `src/worldgen/veins.rs`). Optional:
/// a preset without it (and every world saved before it existed) has none.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Veins {
    /// One candidate point per cube of this edge in blocks.
    pub spacing: u32,
    /// Listed first wins where veins of two kinds overlap.
    pub kinds: Vec<VeinKind>,
}

/// One kind of vein: which block, in what, at which heights, how often and
/// how big. `chance` and `radius` go linearly from their `top` value at the
/// kind's highest centre to their `bottom` value at its lowest.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VeinKind {
    pub name: String,
    pub block: String,
    /// The terrain blocks it may replace (never the surface block itself).
    pub replaces: Vec<String>,
    /// World heights its centres lie within, (lowest, highest).
    pub heights: (i32, i32),
    /// The share of candidate points that become this kind.
    pub chance: Ramp<f32>,
    /// Each blob's radius in blocks.
    pub radius: Ramp<u32>,
    /// Blobs strung along the vein, (fewest, most).
    pub blobs: (u32, u32),
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ramp<T> {
    pub top: T,
    pub bottom: T,
}

pub const MAX_VEIN_KINDS: usize = 8;
pub const VEIN_SPACING_RANGE: std::ops::RangeInclusive<u32> = 8..=32;
pub const MAX_VEIN_RADIUS: u32 = 4;
pub const MAX_VEIN_BLOBS: u32 = 4;
/// How far a vein may reach from its centre, per axis: a chunk and a
/// kernel's thread block look this far beyond themselves for centres.
pub const MAX_VEIN_REACH: u32 = 8;
/// Heights a vein centre may have: well inside the 32-bit world.
pub const VEIN_HEIGHT_LIMIT: i32 = 1 << 20;

/// The furthest a vein of this kind reaches from its centre along an axis:
/// blobs follow each other a radius apart (at least one block), and each
/// covers at most its radius around its centre.
pub fn reach(k: &VeinKind) -> u32 {
    k.radius.top.max(k.radius.bottom).max(1) * k.blobs.1
}

pub(super) fn validate(v: &Veins, c: &Check) -> Result<(), PresetError> {
    if !VEIN_SPACING_RANGE.contains(&v.spacing) {
        return Err(c.bad(
            "veins.spacing",
            format!("{} is outside {}..={}", v.spacing, VEIN_SPACING_RANGE.start(), VEIN_SPACING_RANGE.end()),
        ));
    }
    if v.kinds.len() > MAX_VEIN_KINDS {
        return Err(c.bad("veins.kinds", format!("at most {MAX_VEIN_KINDS} kinds, found {}", v.kinds.len())));
    }
    for (i, k) in v.kinds.iter().enumerate() {
        if v.kinds[..i].iter().any(|o| o.name == k.name) {
            return Err(c.bad(format!("veins.kinds[{i}] ({}).name", k.name), format!("duplicate kind `{}`", k.name)));
        }
        validate_kind(v, i, k, c)?;
    }
    // Chances share the candidates, and change linearly with height, so
    // their sum is largest at one end of some kind's range.
    let mut ends: Vec<i32> = v.kinds.iter().flat_map(|k| [k.heights.0, k.heights.1]).collect();
    ends.sort_unstable();
    for y in ends {
        let sum: f64 = v.kinds.iter().map(|k| chance_at(k, y)).sum();
        if sum > 1.0 {
            return Err(c.bad("veins.kinds", format!("chances add up to {sum:.4} at height {y}, above 1")));
        }
    }
    Ok(())
}

/// A kind's chance at height `y` as the preset states it (0 outside its range).
pub fn chance_at(k: &VeinKind, y: i32) -> f64 {
    let (lo, hi) = k.heights;
    if y < lo || y > hi {
        return 0.0;
    }
    let t = if hi == lo { 0.0 } else { (hi - y) as f64 / (hi - lo) as f64 };
    k.chance.top as f64 + (k.chance.bottom as f64 - k.chance.top as f64) * t
}

fn validate_kind(v: &Veins, i: usize, k: &VeinKind, c: &Check) -> Result<(), PresetError> {
    let here = |f: &str| format!("veins.kinds[{i}] ({}).{f}", k.name);
    c.block(here("block"), &k.block)?;
    let vein_blocks: Vec<&str> = v.kinds.iter().map(|o| o.block.as_str()).collect();
    for r in &k.replaces {
        c.mask_block(here("replaces"), r)?;
        let info = BlockId::by_name(r).map(|b| b.info());
        if info.is_some_and(|b| !b.solid || b.liquid) {
            return Err(c.bad(here("replaces"), format!("`{r}` is not solid rock: veins replace solid blocks only")));
        }
        if vein_blocks.contains(&r.as_str()) {
            return Err(c.bad(here("replaces"), format!("`{r}` is a vein's block: veins replace terrain only")));
        }
    }
    let (lo, hi) = k.heights;
    if lo > hi || lo < -VEIN_HEIGHT_LIMIT || hi > VEIN_HEIGHT_LIMIT {
        return Err(c.bad(
            here("heights"),
            format!("({lo}, {hi}) is not a range (lowest, highest) within ±{VEIN_HEIGHT_LIMIT}"),
        ));
    }
    for (end, v) in [("top", k.chance.top), ("bottom", k.chance.bottom)] {
        c.within(here(&format!("chance.{end}")), v, (0.0, 1.0), (false, false))?;
    }
    for (end, r) in [("top", k.radius.top), ("bottom", k.radius.bottom)] {
        if r > MAX_VEIN_RADIUS {
            return Err(c.bad(here(&format!("radius.{end}")), format!("{r} is above {MAX_VEIN_RADIUS}")));
        }
    }
    let (few, most) = k.blobs;
    if few == 0 || few > most || most > MAX_VEIN_BLOBS {
        return Err(c.bad(here("blobs"), format!("({few}, {most}) is not a range within 1..={MAX_VEIN_BLOBS}")));
    }
    if reach(k) > MAX_VEIN_REACH {
        return Err(c.bad(
            here("radius"),
            format!("the largest radius times the most blobs is {}, above {MAX_VEIN_REACH}", reach(k)),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::worldgen::Preset;

    fn with_veins(veins: &str) -> String {
        let classic = include_str!("../../../assets/worldgen/classic.ron");
        let at = classic.find("    veins: (").expect("classic has veins");
        let end = at + classic[at..].find("\n    ),\n").expect("the section ends") + "\n    ),\n".len();
        format!("{}{veins}{}", &classic[..at], &classic[end..])
    }

    const ONE: &str = "    veins: (spacing: 8, kinds: [(name: \"coal\", block: \"coal_ore\", replaces: [\"stone\"], \
                       heights: (-64, 96), chance: (top: 0.02, bottom: 0.04), radius: (top: 1, bottom: 2), \
                       blobs: (1, 3))]),\n";

    #[test]
    fn a_plain_vein_section_loads() {
        Preset::parse(&with_veins(ONE), "t.ron").expect("valid");
    }

    #[test]
    fn bad_veins_are_refused_with_their_field() {
        let cases = [
            (ONE.replace("spacing: 8", "spacing: 4"), "veins.spacing"),
            (ONE.replace("\"coal_ore\"", "\"unobtainium\""), "block"),
            (ONE.replace("[\"stone\"]", "[\"water\"]"), "not solid rock"),
            (ONE.replace("[\"stone\"]", "[\"coal_ore\"]"), "a vein's block"),
            (ONE.replace("(-64, 96)", "(96, -64)"), "heights"),
            (ONE.replace("top: 0.02", "top: 1.5"), "chance.top"),
            (ONE.replace("bottom: 0.04", "bottom: NaN"), "chance.bottom"),
            (ONE.replace("bottom: 2)", "bottom: 5)"), "radius.bottom"),
            (ONE.replace("(1, 3)", "(0, 3)"), "blobs"),
            (ONE.replace("bottom: 2)", "bottom: 3)").replace("(1, 3)", "(1, 4)"), "is 12, above 8"),
            (ONE.replace("top: 0.02, bottom: 0.04", "top: 0.6, bottom: 0.04").replace("kinds: [", "kinds: [(name: \"a\", block: \"gravel\", replaces: [\"stone\"], heights: (0, 96), chance: (top: 0.5, bottom: 0.5), radius: (top: 1, bottom: 1), blobs: (1, 1)), "), "add up to"),
        ];
        for (section, expected) in cases {
            let Err(err) = Preset::parse(&with_veins(&section), "t.ron") else { panic!("accepted: {section}") };
            let err = err.to_string();
            assert!(err.contains(expected), "{section}: {err}");
        }
    }
}
