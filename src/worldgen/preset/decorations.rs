//! Trees, flowers and grass in the preset, and the checks on them.

use super::{Check, Preset, PresetError};
use serde::Deserialize;

/// Trees, flowers and grass (see `src/worldgen/decorate.rs`). Optional: a
/// preset without it (and every world saved before it existed) is bare.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Decorations {
    /// Every tree stands on one candidate grid with this spacing in blocks,
    /// so no two trunks are ever closer than about ¾ of it.
    pub tree_spacing: u32,
    /// Steepest footing a tree accepts: the largest difference between the
    /// four pre-smoothing heights around its column (a 2-block span).
    pub tree_max_slope: f32,
    /// What the surface block under a trunk becomes.
    pub trunk_soil: String,
    pub trees: Vec<TreeDef>,
    /// Rocks stand on their own candidate grid with this spacing in blocks;
    /// 0 (the default): no rocks.
    #[serde(default)]
    pub rock_spacing: u32,
    #[serde(default)]
    pub rocks: Vec<RockDef>,
    pub biomes: Vec<BiomeDecorations>,
}

/// A boulder: a rough ellipsoid of `block` centred on the ground, so its
/// lower half is sunk; `top` (mossy stone, say) covers its upper surface.
/// Each rock picks its radius from `radius` and whether it is stretched
/// along x, along z or neither from a hash of its candidate. With `form:
/// Log` it is a fallen log instead: a row of `block` (a log lying along x)
/// or of `along_z` (the same log along z) on the ground, `radius` blocks
/// either side of its middle, the way chosen by the hash.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RockDef {
    pub name: String,
    pub block: String,
    /// The blocks of its upper surface; the default is `block`.
    #[serde(default)]
    pub top: Option<String>,
    /// Radius range in blocks, inclusive.
    pub radius: (u32, u32),
    /// Surface blocks it lies on.
    pub on: Vec<String>,
    /// Steepest footing it accepts, measured as for trees.
    pub max_slope: f32,
    #[serde(default)]
    pub form: RockForm,
    /// A log's block lying along z (`block` lies along x).
    #[serde(default)]
    pub along_z: Option<String>,
}

/// The shape of a rock kind.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum RockForm {
    #[default]
    Boulder,
    Log,
}

/// A tree shape: a trunk and layers of leaves around its top.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TreeDef {
    pub name: String,
    pub trunk: String,
    /// Leaves; "air" (the default) for a bare trunk (a cactus).
    #[serde(default = "air")]
    pub leaves: String,
    /// Trunk height range in blocks, inclusive; each tree picks one from a
    /// hash of its candidate.
    pub trunk_height: (u32, u32),
    /// Surface blocks it grows on.
    pub on: Vec<String>,
    #[serde(default)]
    pub canopy: Vec<LeafLayer>,
}

/// One horizontal layer of leaves: a square of `radius` around the trunk,
/// `dy` blocks above the top log (negative: below it); `round` drops the
/// four corners.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LeafLayer {
    pub dy: i32,
    pub radius: u32,
    #[serde(default)]
    pub round: bool,
}

/// What grows in one biome: trees by name and plants, each with its chance
/// per surface column (the founding game's figures).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BiomeDecorations {
    pub biome: String,
    #[serde(default)]
    pub trees: Vec<(String, f32)>,
    /// Scales every tree chance of the biome by a noise field, so forests
    /// have groves and clearings instead of an even sprinkle.
    #[serde(default)]
    pub tree_density: Option<DensityMap>,
    #[serde(default)]
    pub plants: Vec<PlantLayer>,
    /// Rocks by name, each with its chance per surface column.
    #[serde(default)]
    pub rocks: Vec<(String, f32)>,
}

/// A density map, as the Chile thesis drives its layers with density
/// textures: at a candidate (x, z) the layer's chance is multiplied by
/// `clamp(noise(x, z)·scale + offset, min, max)`, `noise` a node of the
/// preset's noise graph. With a field of mean 0, `offset` 1 and bounds
/// symmetric around 1, the average chance stays the listed one.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DensityMap {
    pub noise: String,
    pub scale: f32,
    pub offset: f32,
    pub min: f32,
    pub max: f32,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlantLayer {
    pub block: String,
    pub chance: f32,
    pub on: Vec<String>,
    /// The surface heights it grows on, less the water level, inclusive:
    /// `(0, 1)` on the shore, `(-3, -1)` on shallow water (the plant then
    /// floats on the water). Without it, any dry surface.
    #[serde(default)]
    pub above_water: Option<(i32, i32)>,
    /// Scales the chance by a noise field: flowers in meadows rather than
    /// sprinkled evenly.
    #[serde(default)]
    pub density: Option<DensityMap>,
    /// Grows only within this many blocks (in x plus z, 1 to
    /// [`MAX_SHORE_REACH`]; 1 is the four sides) of the water's edge: of a
    /// column on the other side of the water line, dry land for a plant in
    /// the water, water for one on land.
    #[serde(default)]
    pub shore: Option<u32>,
    /// Grows in patches, as the founding game plants its flowers and tall
    /// grass: `chance` is then a column's chance of being a patch's centre,
    /// not of holding a plant.
    #[serde(default)]
    pub patch: Option<Patch>,
}

/// A patch: a rectangle around its centre column, of half-extents `s - 1`
/// to `s + 1` blocks along each axis (`jitter` 1) for an `s` drawn from
/// `size`, where a `share` of the columns at the centre's surface height
/// whose surface the layer takes hold the plant. A patch crosses chunk
/// borders; where patches overlap, a column holds one plant (the higher
/// claim).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    pub size: (u32, u32),
    #[serde(default = "one")]
    pub jitter: u32,
    pub share: f32,
}

fn one() -> u32 {
    1
}

fn air() -> String {
    "air".into()
}

pub const MAX_TREE_KINDS: usize = 8;
pub const MAX_CANOPY_LAYERS: usize = 8;
/// Tree or plant layers per biome.
pub const MAX_BIOME_LAYERS: usize = 4;
/// Widest canopy radius: a chunk looks this far beyond its border for trees.
pub const MAX_TREE_REACH: u32 = 3;
pub const MAX_TRUNK_HEIGHT: u32 = 24;
pub const MAX_CANOPY_DY: i32 = 8;
pub const TREE_SPACING_RANGE: std::ops::RangeInclusive<u32> = 3..=16;
pub const MAX_ROCK_KINDS: usize = 8;
/// The farthest a plant layer's `shore` reaches.
pub const MAX_SHORE_REACH: u32 = 2;
/// Largest rock radius; a stretched rock reaches one further.
pub const MAX_ROCK_RADIUS: u32 = 3;
pub const ROCK_SPACING_RANGE: std::ops::RangeInclusive<u32> = 8..=32;
/// The farthest a patch reaches from its centre: its largest `size` plus
/// its `jitter`.
pub const MAX_PATCH_REACH: u32 = 12;
/// Largest chance of a patch centre (times its map's max): above it, a
/// chunk column's patches could outgrow the list the kernels keep for them.
pub const MAX_PATCH_CHANCE: f32 = 0.05;
/// Largest factor a density map may give.
pub const MAX_DENSITY_FACTOR: f32 = 32.0;

pub(super) fn validate(p: &Preset, d: &Decorations, c: &Check) -> Result<(), PresetError> {
    if !TREE_SPACING_RANGE.contains(&d.tree_spacing) {
        return Err(c.bad(
            "decorations.tree_spacing",
            format!("{} is outside {}..={}", d.tree_spacing, TREE_SPACING_RANGE.start(), TREE_SPACING_RANGE.end()),
        ));
    }
    if !(d.tree_max_slope.is_finite() && d.tree_max_slope >= 0.0) {
        return Err(c.bad("decorations.tree_max_slope", format!("{} is not a finite number ≥ 0", d.tree_max_slope)));
    }
    c.block("decorations.trunk_soil", &d.trunk_soil)?;
    if d.trees.len() > MAX_TREE_KINDS {
        return Err(c.bad("decorations.trees", format!("at most {MAX_TREE_KINDS} trees, found {}", d.trees.len())));
    }
    for (i, t) in d.trees.iter().enumerate() {
        if d.trees[..i].iter().any(|o| o.name == t.name) {
            return Err(
                c.bad(format!("decorations.trees[{i}] ({}).name", t.name), format!("duplicate tree `{}`", t.name))
            );
        }
        validate_tree(i, t, c)?;
    }
    validate_rocks(d, c)?;
    for (i, b) in d.biomes.iter().enumerate() {
        if d.biomes[..i].iter().any(|o| o.biome == b.biome) {
            return Err(c.bad(
                format!("decorations.biomes[{i}] ({}).biome", b.biome),
                format!("`{}` is listed twice", b.biome),
            ));
        }
        validate_biome(p, d, i, b, c)?;
    }
    Ok(())
}

fn validate_tree(i: usize, t: &TreeDef, c: &Check) -> Result<(), PresetError> {
    let here = |f: &str| format!("decorations.trees[{i}] ({}).{f}", t.name);
    c.block(here("trunk"), &t.trunk)?;
    c.block(here("leaves"), &t.leaves)?;
    for b in &t.on {
        c.mask_block(here("on"), b)?;
    }
    let (lo, hi) = t.trunk_height;
    if lo == 0 || lo > hi || hi > MAX_TRUNK_HEIGHT {
        return Err(c.bad(here("trunk_height"), format!("({lo}, {hi}) is not a range within 1..={MAX_TRUNK_HEIGHT}")));
    }
    if t.canopy.len() > MAX_CANOPY_LAYERS {
        return Err(c.bad(here("canopy"), format!("at most {MAX_CANOPY_LAYERS} layers, found {}", t.canopy.len())));
    }
    if !t.canopy.is_empty() && t.leaves == "air" {
        return Err(c.bad(here("leaves"), "a canopy needs a leaves block"));
    }
    for (j, l) in t.canopy.iter().enumerate() {
        if l.radius > MAX_TREE_REACH {
            return Err(c.bad(here(&format!("canopy[{j}].radius")), format!("{} is above {MAX_TREE_REACH}", l.radius)));
        }
        // Leaves never hang below the lowest log, so nothing a tree
        // places is ever at or under the water its base stands above.
        let lowest = 1 - lo as i32;
        if l.dy < lowest || l.dy > MAX_CANOPY_DY {
            return Err(c.bad(
                here(&format!("canopy[{j}].dy")),
                format!("{} is outside {lowest}..={MAX_CANOPY_DY} (never below the shortest trunk's base)", l.dy),
            ));
        }
    }
    Ok(())
}

fn validate_rocks(d: &Decorations, c: &Check) -> Result<(), PresetError> {
    if d.rocks.len() > MAX_ROCK_KINDS {
        return Err(c.bad("decorations.rocks", format!("at most {MAX_ROCK_KINDS} rocks, found {}", d.rocks.len())));
    }
    let used = d.biomes.iter().any(|b| !b.rocks.is_empty());
    if used && !ROCK_SPACING_RANGE.contains(&d.rock_spacing) {
        return Err(c.bad(
            "decorations.rock_spacing",
            format!("{} is outside {}..={}", d.rock_spacing, ROCK_SPACING_RANGE.start(), ROCK_SPACING_RANGE.end()),
        ));
    }
    for (i, r) in d.rocks.iter().enumerate() {
        let here = |f: &str| format!("decorations.rocks[{i}] ({}).{f}", r.name);
        if d.rocks[..i].iter().any(|o| o.name == r.name) {
            return Err(c.bad(here("name"), format!("duplicate rock `{}`", r.name)));
        }
        c.block(here("block"), &r.block)?;
        if let Some(top) = &r.top {
            c.block(here("top"), top)?;
        }
        match (r.form, &r.along_z, &r.top) {
            (RockForm::Log, Some(z), None) => c.block(here("along_z"), z)?,
            (RockForm::Log, None, _) => return Err(c.bad(here("along_z"), "a log names its block along z")),
            (RockForm::Log, _, Some(_)) => return Err(c.bad(here("top"), "a log has no top block")),
            (RockForm::Boulder, Some(_), _) => {
                return Err(c.bad(here("along_z"), "only a log (form: Log) lies along z"))
            }
            (RockForm::Boulder, None, _) => {}
        }
        for b in &r.on {
            c.mask_block(here("on"), b)?;
        }
        let (lo, hi) = r.radius;
        if lo == 0 || lo > hi || hi > MAX_ROCK_RADIUS {
            return Err(c.bad(here("radius"), format!("({lo}, {hi}) is not a range within 1..={MAX_ROCK_RADIUS}")));
        }
        if !(r.max_slope.is_finite() && r.max_slope >= 0.0) {
            return Err(c.bad(here("max_slope"), format!("{} is not a finite number ≥ 0", r.max_slope)));
        }
    }
    Ok(())
}

fn validate_biome(p: &Preset, d: &Decorations, i: usize, b: &BiomeDecorations, c: &Check) -> Result<(), PresetError> {
    let here = |f: &str| format!("decorations.biomes[{i}] ({}).{f}", b.biome);
    if p.biome_index(&b.biome).is_none() {
        return Err(c.bad(here("biome"), format!("`{}` is not a biome", b.biome)));
    }
    if b.trees.len() > MAX_BIOME_LAYERS || b.plants.len() > MAX_BIOME_LAYERS {
        return Err(c.bad(here("trees"), format!("at most {MAX_BIOME_LAYERS} trees and {MAX_BIOME_LAYERS} plants")));
    }
    let chance = |field: String, v: f32| {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(c.bad(field, format!("{v} is not a chance in (0, 1]")))
        }
    };
    let tree_names: Vec<&str> = d.trees.iter().map(|t| t.name.as_str()).collect();
    let tree_sum = named_chances(&b.trees, &tree_names, ("trees", "tree"), d.tree_spacing, &here, &chance, c)?;
    let unit2 = (d.tree_spacing * d.tree_spacing) as f32;
    if let Some(m) = &b.tree_density {
        validate_map(p, m, &here("tree_density"), c)?;
        // Where the map is highest the chances must still share the candidates.
        if tree_sum * unit2 * m.max > 1.0 {
            return Err(c.bad(
                here("tree_density.max"),
                format!("{} × the chances ({tree_sum}) exceeds 1/tree_spacing² = {}", m.max, 1.0 / unit2),
            ));
        }
    }
    let mut plant_sum = 0.0;
    for (j, pl) in b.plants.iter().enumerate() {
        c.block(here(&format!("plants[{j}].block")), &pl.block)?;
        for o in &pl.on {
            c.mask_block(here(&format!("plants[{j}].on")), o)?;
        }
        let most = match &pl.density {
            Some(m) => {
                validate_map(p, m, &here(&format!("plants[{j}].density")), c)?;
                m.max
            }
            None => 1.0,
        };
        let field = here(&format!("plants[{j}].chance"));
        let chance = chance(field.clone(), pl.chance)? * most;
        match &pl.patch {
            Some(patch) => {
                validate_patch(patch, &here(&format!("plants[{j}].patch")), c)?;
                if pl.shore.is_some() {
                    return Err(c.bad(here(&format!("plants[{j}].shore")), "a patch layer takes no shore reach"));
                }
                if chance > MAX_PATCH_CHANCE {
                    return Err(c.bad(
                        field,
                        format!("a patch centre's chance (times its map's max) is {chance}, above {MAX_PATCH_CHANCE}"),
                    ));
                }
            }
            // Patch layers draw their centres apart from the single plants.
            None => plant_sum += chance,
        }
        if let Some(d) = pl.shore.filter(|d| !(1..=MAX_SHORE_REACH).contains(d)) {
            return Err(c.bad(here(&format!("plants[{j}].shore")), format!("{d} is not within 1..={MAX_SHORE_REACH}")));
        }
        if let Some((lo, hi)) = pl.above_water {
            if lo > hi {
                return Err(c.bad(here(&format!("plants[{j}].above_water")), format!("({lo}, {hi}) is an empty range")));
            }
        }
    }
    if plant_sum > 1.0 {
        // Where each map is at its maximum the chances must still fit.
        return Err(c.bad(here("plants"), format!("chances (each times its map's max) add up to {plant_sum}, above 1")));
    }
    if b.rocks.len() > MAX_BIOME_LAYERS {
        return Err(c.bad(here("rocks"), format!("at most {MAX_BIOME_LAYERS} rocks")));
    }
    let rock_names: Vec<&str> = d.rocks.iter().map(|r| r.name.as_str()).collect();
    named_chances(&b.rocks, &rock_names, ("rocks", "rock"), d.rock_spacing, &here, &chance, c)?;
    Ok(())
}

fn validate_patch(patch: &Patch, here: &str, c: &Check) -> Result<(), PresetError> {
    let (lo, hi) = patch.size;
    if lo > hi || patch.jitter > lo || hi + patch.jitter > MAX_PATCH_REACH || lo == 0 {
        return Err(c.bad(
            format!("{here}.size"),
            format!(
                "({lo}, {hi}) with jitter {}: needs 0 < size.0 <= size.1, jitter <= size.0 and size.1 + jitter <= {MAX_PATCH_REACH}",
                patch.jitter
            ),
        ));
    }
    if !(patch.share > 0.0 && patch.share <= 1.0) {
        return Err(c.bad(format!("{here}.share"), format!("{} is not a share in (0, 1]", patch.share)));
    }
    Ok(())
}

/// Checks a biome's `(name, chance)` list of trees or rocks (`what`: the
/// field and the noun) against the kinds defined, and returns the chances'
/// sum: one candidate per spacing² columns, which the chances share.
fn named_chances(
    list: &[(String, f32)],
    names: &[&str],
    (field, noun): (&str, &str),
    spacing: u32,
    here: &dyn Fn(&str) -> String,
    chance: &dyn Fn(String, f32) -> Result<f32, PresetError>,
    c: &Check,
) -> Result<f32, PresetError> {
    let mut sum = 0.0;
    for (j, (name, v)) in list.iter().enumerate() {
        if !names.contains(&name.as_str()) {
            return Err(c.bad(here(&format!("{field}[{j}]")), format!("`{name}` is not a {noun}")));
        }
        sum += chance(here(&format!("{field}[{j}]")), *v)?;
    }
    let unit2 = (spacing * spacing) as f32;
    if sum * unit2 > 1.0 {
        return Err(c.bad(here(field), format!("chances add up to {sum}, above 1/{noun}_spacing² = {}", 1.0 / unit2)));
    }
    Ok(sum)
}

fn validate_map(p: &Preset, m: &DensityMap, here: &str, c: &Check) -> Result<(), PresetError> {
    if !p.noise.iter().any(|n| n.name == m.noise) {
        return Err(c.bad(format!("{here}.noise"), format!("`{}` is not a node of the noise graph", m.noise)));
    }
    for (f, v) in [("scale", m.scale), ("offset", m.offset)] {
        if !v.is_finite() {
            return Err(c.bad(format!("{here}.{f}"), format!("{v} is not a finite number")));
        }
    }
    let min_ok = m.min.is_finite() && 0.0 <= m.min && m.min <= MAX_DENSITY_FACTOR;
    if !(min_ok && m.max.is_finite() && m.min <= m.max && m.max <= MAX_DENSITY_FACTOR) {
        return Err(c.bad(
            format!("{here}.{}", if min_ok { "max" } else { "min" }),
            format!("({}, {}) is not a range (min, max) within 0..={MAX_DENSITY_FACTOR}", m.min, m.max),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::worldgen::Preset;

    const MAP: &str = r#"tree_density: (noise: "groves", scale: 4.0, offset: 1.0, min: 0.0, max: 2.0)"#;

    fn forest_map(map: &str) -> String {
        let classic = include_str!("../../../assets/worldgen/classic.ron");
        let forest = r#"(biome: "forest", trees: [("oak", 0.009)],"#;
        let at = classic.find(forest).expect("classic has forests") + forest.len();
        let line = at + classic[at..].find(MAP).expect("forests have a map");
        format!("{}{map}{}", &classic[..line], &classic[line + MAP.len()..])
    }

    /// Classic with `from` replaced by `to` (which must occur once).
    fn classic_with(from: &str, to: &str) -> String {
        let classic = include_str!("../../../assets/worldgen/classic.ron");
        assert_eq!(classic.matches(from).count(), 1, "{from}");
        classic.replace(from, to)
    }

    #[test]
    fn bad_rocks_are_refused_with_their_field() {
        Preset::parse(&classic_with("rock_spacing: 12,", "rock_spacing: 12,"), "t.ron")
            .expect("classic's rocks are valid");
        let boulder = r#"(name: "boulder", block: "stone", radius: (1, 2)"#;
        let cases = [
            (classic_with("rock_spacing: 12,", "rock_spacing: 4,"), "decorations.rock_spacing"),
            (classic_with(boulder, r#"(name: "boulder", block: "stone", radius: (0, 2)"#), "(boulder).radius"),
            (classic_with(boulder, r#"(name: "boulder", block: "stone", radius: (2, 4)"#), "(boulder).radius"),
            (classic_with(boulder, r#"(name: "boulder", block: "granite", radius: (1, 2)"#), "(boulder).block"),
            (classic_with("max_slope: 6.0),", "max_slope: NaN),"), "(boulder).max_slope"),
            (classic_with(r#"rocks: [("boulder", 0.001)]"#, r#"rocks: [("bolder", 0.001)]"#), "(tundra).rocks[0]"),
            (classic_with(r#"rocks: [("boulder", 0.001)]"#, r#"rocks: [("boulder", 0.01)]"#), "1/rock_spacing²"),
        ];
        for (text, expected) in cases {
            let Err(err) = Preset::parse(&text, "t.ron") else {
                panic!("accepted a preset that should fail: {expected}")
            };
            let err = err.to_string();
            assert!(err.contains(expected), "expected `{expected}` in: {err}");
        }
    }

    #[test]
    fn bad_plant_maps_are_refused_with_their_field() {
        let grassland = r#"(block: "rose", chance: 0.0015, on: ["grass"],
                 density: (noise: "meadows", scale: 100.0, offset: -36.2, min: 0.0, max: 32.0),
                 patch: (size: (2, 6), share: 0.5)),
                (block: "buttercup", chance: 0.0015, on: ["grass"],
                 density: (noise: "meadows", scale: -100.0, offset: -36.2, min: 0.0, max: 32.0),
                 patch: (size: (2, 6), share: 0.5)),
                (block: "tall_grass", chance: 0.02, on: ["grass"], patch: (size: (2, 10), share: 0.5))]),
            (biome: "woodland""#;
        let per_column = grassland.replace(", patch: (size: (2, 10), share: 0.5)", "");
        let cases = [
            (grassland.replacen("\"meadows\"", "\"meadow\"", 1), "(grassland).plants[0].density.noise"),
            (
                grassland.replacen("max: 32.0", "max: 0.5", 1).replacen("min: 0.0", "min: 1.0", 1),
                "plants[0].density.max",
            ),
            (
                per_column.replacen("chance: 0.02", "chance: 0.99", 1).replacen("chance: 0.0015", "chance: 0.05", 1),
                "above 0.05",
            ),
            (
                per_column.replacen(",\n                 patch: (size: (2, 6), share: 0.5)", "", 1).replacen(
                    "chance: 0.0015",
                    "chance: 0.05",
                    1,
                ),
                "each times its map's max",
            ),
            (grassland.replacen("size: (2, 10)", "size: (0, 10)", 1), "plants[2].patch.size"),
            (grassland.replacen("size: (2, 10)", "size: (2, 12)", 1), "size.1 + jitter <= 12"),
            (
                grassland.replacen("size: (2, 10), share: 0.5", "size: (2, 10), jitter: 3", 1),
                "missing field named `share`",
            ),
            (
                grassland.replacen("size: (2, 10), share: 0.5", "size: (2, 10), jitter: 3, share: 0.5", 1),
                "jitter <= size.0",
            ),
            (grassland.replacen("share: 0.5))]", "share: 1.5))]", 1), "plants[2].patch.share"),
            (grassland.replacen("on: [\"grass\"], patch", "on: [\"grass\"], shore: 1, patch", 1), "no shore reach"),
        ];
        for (text, expected) in cases {
            let Err(err) = Preset::parse(&classic_with(grassland, &text), "t.ron") else {
                panic!("accepted a preset that should fail: {expected}")
            };
            let err = err.to_string();
            assert!(err.contains(expected), "expected `{expected}` in: {err}");
        }
    }

    #[test]
    fn bad_density_maps_are_refused_with_their_field() {
        Preset::parse(&forest_map(MAP), "t.ron").expect("classic's own map is valid");
        let cases = [
            (MAP.replace("\"groves\"", "\"glades\""), "forest).tree_density.noise"),
            (MAP.replace("scale: 4.0", "scale: inf"), "tree_density.scale"),
            (MAP.replace("offset: 1.0", "offset: NaN"), "tree_density.offset"),
            (MAP.replace("min: 0.0", "min: 3.0"), "tree_density.max"),
            (MAP.replace("min: 0.0", "min: -1.0"), "tree_density.min"),
            (MAP.replace("max: 2.0", "max: 33.0"), "within 0..=32"),
            (MAP.replace("max: 2.0", "max: 5.0"), "tree_density.max"),
        ];
        for (map, expected) in cases {
            let Err(err) = Preset::parse(&forest_map(&map), "t.ron") else { panic!("accepted: {map}") };
            let err = err.to_string();
            assert!(err.contains(expected), "{map}: {err}");
        }
    }
}
