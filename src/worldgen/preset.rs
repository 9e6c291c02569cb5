//! World presets: the terrain as data (`assets/worldgen/*.ron`).
//!
//! A preset names a tree of noise nodes, binds six of them to the column
//! fields, and gives the column constants, the biome table and the fill
//! rules. Loading validates everything, so the engines never see a dangling
//! reference or a nonsensical number; errors name the file, the field and
//! the reason.

use crate::world::block::BlockId;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

pub const MAX_NODES: usize = 64;
pub const MAX_BIOMES: usize = 16;
pub const MAX_OCTAVES: u32 = 16;
pub const THRESHOLDS: usize = 5;
pub const TABLE_SIZE: usize = THRESHOLDS + 1;
/// Deepest nesting of Combined/ExpScale the CPU program's stacks allow.
pub const MAX_DEPTH: usize = 12;

include!(concat!(env!("OUT_DIR"), "/bundled_presets.rs"));

/// `--preset`'s help: the bundled names, from the files themselves.
pub fn help_text() -> String {
    let names: Vec<&str> = BUNDLED.iter().map(|(n, _)| *n).collect();
    format!("A bundled preset ({}) or a path to a .ron file", names.join(", "))
}

#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    #[error("preset {file}: cannot read the file: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("preset {file}: {position}: {reason}")]
    Syntax { file: String, position: String, reason: String },
    #[error("preset {file}: field `{field}`: {reason}")]
    Invalid { file: String, field: String, reason: String },
    #[error("unknown preset `{name}`: not a bundled preset ({bundled}) and no such file")]
    Unknown { name: String, bundled: String },
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum NodeKind {
    /// `perlin3(x, z, 32·offset)`.
    Basic { offset: u32 },
    /// `Σ_{i<octaves} 2^-i · perlin3((x/1.01)·2^i, (z/1.01)·2^i, 32·offset)`.
    Octave { octaves: u32, offset: u32 },
    /// `source(x + offset_by(x, z), z)`: a domain offset in x.
    Combined { source: String, offset_by: String },
    /// `v = source(x·scale, z·scale); sign(v)·|v|^exponent`.
    ExpScale { source: String, exponent: f32, scale: f32 },

    // The Caracas thesis's terrain types: H(p) = T_post(Σ_j w^j·T_in(N(T_pre(λ^j p)))),
    // w = λ^(−h). N is `perlin3` scaled like Basic, each octave on its own
    // lattice (seeds derived from `offset` and the octave).
    /// fBm: `Σ_{j<octaves} w^j·T_in(N(frequency·λ^j·p))`.
    Fbm {
        octaves: u32,
        offset: u32,
        #[serde(default = "two")]
        lacunarity: f32,
        #[serde(default = "one")]
        h: f32,
        #[serde(default = "one")]
        frequency: f32,
        #[serde(default)]
        input: Input,
    },
    /// Heterogeneous multifractal: `v = T_in(N(p)) + shift`, then for each
    /// further octave `v += v·w^j·(T_in(N(λ^j p)) + shift)`: rough where
    /// high, smooth where low.
    Hetero {
        octaves: u32,
        offset: u32,
        #[serde(default = "two")]
        lacunarity: f32,
        #[serde(default = "one")]
        h: f32,
        #[serde(default = "one")]
        frequency: f32,
        #[serde(default)]
        input: Input,
        shift: f32,
    },
    /// Hybrid multifractal: `v = k = T_in(N(p)) + shift`, then for each
    /// further octave `k = min(k, 1); a = w^j·(T_in(N(λ^j p)) + shift);
    /// v += k·a; k *= a`.
    Hybrid {
        octaves: u32,
        offset: u32,
        #[serde(default = "two")]
        lacunarity: f32,
        #[serde(default = "quarter")]
        h: f32,
        #[serde(default = "one")]
        frequency: f32,
        #[serde(default)]
        input: Input,
        shift: f32,
    },
    /// Derivative-damped ("Quilez") fBm: with d the sum of the octaves'
    /// slopes so far, `Σ w^j·N_j / (1 + |d|²)`: steep ground stays smooth,
    /// detail gathers on flats and ridges, like eroded terrain. The slopes
    /// are Perlin's analytic derivatives, each octave's in its own
    /// coordinates (as Quilez sums them).
    Quilez {
        octaves: u32,
        offset: u32,
        #[serde(default = "two")]
        lacunarity: f32,
        #[serde(default = "one")]
        h: f32,
        #[serde(default = "one")]
        frequency: f32,
    },
    /// Domain distortion (T_pre): `source(x + strength·by.0(p), z + strength·by.1(p))`.
    Distort { source: String, by: (String, String), strength: f32 },
    /// `(source − from.0) / (from.1 − from.0)`, clamped to [0, 1]: the
    /// normalised height the post curves take.
    Normalize { source: String, from: (f32, f32) },
    /// `source·mul + add` (for example back from [0, 1] to [−1, 1]).
    Linear { source: String, mul: f32, add: f32 },
    /// Perlin's bias on a normalised input: `t^(log b / log ½)`.
    Bias { source: String, b: f32 },
    /// Perlin's gain on a normalised input: bias_{1−g}(2t)/2 below ½,
    /// 1 − bias_{1−g}(2−2t)/2 above.
    Gain { source: String, g: f32 },
    /// The Caracas thesis's glacier effect: bias with 0 < b ≤ ½; low ground lower and
    /// flatter, high ground steeper.
    Glacier { source: String, b: f32 },
    /// The Caracas thesis's canyon effect: gain with ½ ≤ g < 1; flats at both ends,
    /// cliffs between.
    Canyon { source: String, g: f32 },
    /// The Caracas thesis's plateau effect: bias_{1−g}(2t)/2 below ½, 1 − bias_g(2−2t)/2
    /// above, with ½ ≤ g < 1: mesas at middle heights.
    Plateau { source: String, g: f32 },
}

/// T_in: what each octave does to the noise before it is summed.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum Input {
    /// `n`
    #[default]
    Plain,
    /// `1 − |n|`: sharp crests where the noise crosses zero.
    Ridged,
    /// `|n|`: rounded hills, creased valleys.
    Billow,
}

impl NodeKind {
    /// The nodes this one reads, with the field that names each.
    pub fn children(&self) -> Vec<(&'static str, &str)> {
        match self {
            NodeKind::Basic { .. }
            | NodeKind::Octave { .. }
            | NodeKind::Fbm { .. }
            | NodeKind::Hetero { .. }
            | NodeKind::Hybrid { .. }
            | NodeKind::Quilez { .. } => vec![],
            NodeKind::Combined { source, offset_by } => vec![("source", source), ("offset_by", offset_by)],
            NodeKind::Distort { source, by, .. } => vec![("source", source), ("by.0", &by.0), ("by.1", &by.1)],
            NodeKind::ExpScale { source, .. }
            | NodeKind::Normalize { source, .. }
            | NodeKind::Linear { source, .. }
            | NodeKind::Bias { source, .. }
            | NodeKind::Gain { source, .. }
            | NodeKind::Glacier { source, .. }
            | NodeKind::Canyon { source, .. }
            | NodeKind::Plateau { source, .. } => vec![("source", source)],
        }
    }

    /// Post curves work on heights normalised to [0, 1].
    pub fn is_curve(&self) -> bool {
        matches!(
            self,
            NodeKind::Bias { .. }
                | NodeKind::Gain { .. }
                | NodeKind::Glacier { .. }
                | NodeKind::Canyon { .. }
                | NodeKind::Plateau { .. }
        )
    }

    /// Whether every value it gives lies in [0, 1].
    fn is_normalised(&self) -> bool {
        self.is_curve() || matches!(self, NodeKind::Normalize { .. })
    }
}

fn two() -> f32 {
    2.0
}

fn one() -> f32 {
    1.0
}

fn quarter() -> f32 {
    0.25
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NamedNode {
    pub name: String,
    pub node: NodeKind,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Fields {
    pub height: String,
    pub moisture: String,
    pub temperature: String,
    pub roughness: String,
    pub mountain: String,
    pub peaks: String,
}

impl Fields {
    pub fn in_order(&self) -> [(&'static str, &str); 6] {
        [
            ("height", &self.height),
            ("moisture", &self.moisture),
            ("temperature", &self.temperature),
            ("roughness", &self.roughness),
            ("mountain", &self.mountain),
            ("peaks", &self.peaks),
        ]
    }
}

/// Constants of the per-column formula (see `src/worldgen/column.rs`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ColumnConstants {
    pub height_amplitude: f32,
    pub mountain_amplitude: f32,
    pub roughness_amplitude: f32,
    pub temperature_mountain_cooling: f32,
    pub peak_exponent_scale: f32,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BiomeDef {
    pub name: String,
    pub top: String,
    pub under: String,
    pub roughness: f32,
    pub scale: f32,
    pub exponent: f32,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BiomeRules {
    pub ocean: String,
    pub ocean_max_height: f32,
    pub ocean_max_mountain: f32,
    pub beach: String,
    pub beach_max_height: f32,
    pub mountain: String,
    pub mountain_min: f32,
    pub mountain_min_with_height: f32,
    pub heat_thresholds: Vec<f32>,
    pub moisture_thresholds: Vec<f32>,
    pub threshold_search_limit: u32,
    pub table: Vec<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FillRules {
    pub water_level: i32,
    pub water: String,
    pub deep: String,
    pub snow: String,
    pub snow_above: i32,
    pub under_depth: i32,
}

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
    pub biomes: Vec<BiomeDecorations>,
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
    #[serde(default)]
    pub plants: Vec<PlantLayer>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlantLayer {
    pub block: String,
    pub chance: f32,
    pub on: Vec<String>,
}

fn air() -> String {
    "air".into()
}

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

fn crate_perlin_amplitude() -> f32 {
    super::noise::perlin::SCALE_3D
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

pub const MAX_TREE_KINDS: usize = 8;
pub const MAX_CANOPY_LAYERS: usize = 8;
/// Tree or plant layers per biome.
pub const MAX_BIOME_LAYERS: usize = 4;
/// Widest canopy radius: a chunk looks this far beyond its border for trees.
pub const MAX_TREE_REACH: u32 = 3;
pub const MAX_TRUNK_HEIGHT: u32 = 24;
pub const MAX_CANOPY_DY: i32 = 8;
pub const TREE_SPACING_RANGE: std::ops::RangeInclusive<u32> = 3..=16;

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    pub name: String,
    /// What the Perlin primitive multiplies its raw gradient sum by (before
    /// the clamp to ±1), for every Basic and Octave node. The `noise` crate,
    /// whose Perlin this project follows, uses 2/√3 ≈ 1.1547, the default;
    /// the founding game's noise1234 uses 0.936, so its noise is about 19 %
    /// weaker, and its mountains rarer and lower.
    #[serde(default = "crate_perlin_amplitude")]
    pub perlin_amplitude: f32,
    pub noise: Vec<NamedNode>,
    pub fields: Fields,
    pub column: ColumnConstants,
    pub biomes: Vec<BiomeDef>,
    pub biome_rules: BiomeRules,
    pub fill: FillRules,
    #[serde(default)]
    pub decorations: Option<Decorations>,
    #[serde(default)]
    pub caves: Option<Caves>,
}

impl Preset {
    /// `name_or_path` is a bundled preset's name, or a path to a `.ron` file.
    pub fn load(name_or_path: &str) -> Result<Preset, PresetError> {
        Preset::load_with_text(name_or_path).map(|(p, _)| p)
    }

    /// `load`, also returning the preset's text (saved worlds keep it, so
    /// they stay the same if the bundled file changes).
    pub fn load_with_text(name_or_path: &str) -> Result<(Preset, String), PresetError> {
        if let Some((_, text)) = BUNDLED.iter().find(|(n, _)| *n == name_or_path) {
            return Ok((Preset::parse(text, &format!("{name_or_path} (bundled)"))?, text.to_string()));
        }
        let path = Path::new(name_or_path);
        if path.exists() || name_or_path.ends_with(".ron") || name_or_path.contains('/') {
            let text = std::fs::read_to_string(path)
                .map_err(|source| PresetError::Io { file: path.display().to_string(), source })?;
            return Ok((Preset::parse(&text, &path.display().to_string())?, text));
        }
        Err(PresetError::Unknown {
            name: name_or_path.to_string(),
            bundled: BUNDLED.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
        })
    }

    pub fn classic() -> Preset {
        // The bundled classic preset is covered by tests; failing here is a
        // build defect, not user input.
        Preset::load("classic").expect("bundled classic preset is valid")
    }

    pub fn parse(text: &str, file: &str) -> Result<Preset, PresetError> {
        // An optional section is written plainly, without `Some(…)`.
        let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let preset: Preset = options.from_str(text).map_err(|e| PresetError::Syntax {
            file: file.to_string(),
            position: format!("line {}, column {}", e.position.line, e.position.col),
            reason: e.code.to_string(),
        })?;
        preset.validate(file)?;
        Ok(preset)
    }

    /// Index of each node name, in declaration order.
    pub fn node_indices(&self) -> HashMap<&str, usize> {
        self.noise.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect()
    }

    pub fn biome_index(&self, name: &str) -> Option<usize> {
        self.biomes.iter().position(|b| b.name == name)
    }

    fn validate(&self, file: &str) -> Result<(), PresetError> {
        let bad = |field: String, reason: String| PresetError::Invalid { file: file.to_string(), field, reason };
        let finite = |field: String, v: f32| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(bad(field, format!("{v} is not a finite number")))
            }
        };

        finite("perlin_amplitude".into(), self.perlin_amplitude)?;
        if self.perlin_amplitude <= 0.0 || self.perlin_amplitude > 2.0 {
            return Err(bad("perlin_amplitude".into(), format!("{} is outside (0, 2]", self.perlin_amplitude)));
        }
        if self.noise.is_empty() || self.noise.len() > MAX_NODES {
            return Err(bad("noise".into(), format!("needs 1 to {MAX_NODES} nodes, found {}", self.noise.len())));
        }
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (i, n) in self.noise.iter().enumerate() {
            let here = |f: &str| format!("noise[{i}] ({}).{f}", n.name);
            if index.insert(n.name.as_str(), i).is_some() {
                return Err(bad(format!("noise[{i}].name"), format!("duplicate node name `{}`", n.name)));
            }
            // Children must be declared earlier: the graph is a DAG by construction.
            let child = |field: &str, name: &str| -> Result<(), PresetError> {
                match index.get(name) {
                    Some(&j) if j < i => Ok(()),
                    Some(_) => Err(bad(here(field), format!("`{name}` refers to the node itself"))),
                    None => Err(bad(here(field), format!("`{name}` is not a node declared before this one"))),
                }
            };
            for (field, name) in n.node.children() {
                child(field, name)?;
            }
            if n.node.is_curve() {
                let source = n.node.children()[0].1;
                if !self.noise[index[source]].node.is_normalised() {
                    return Err(bad(
                        here("source"),
                        format!(
                            "`{source}` is not normalised: a post curve takes heights in [0, 1] (put a Normalize \
                             node between)"
                        ),
                    ));
                }
            }
            // Each rule checks one kind's numbers; `within` gives the shared wording.
            let within = |field: &str, v: f32, lo: f32, hi: f32, open_lo: bool, open_hi: bool| {
                finite(here(field), v)?;
                let below = if open_lo { v <= lo } else { v < lo };
                let above = if open_hi { v >= hi } else { v > hi };
                if below || above {
                    let (l, r) = (if open_lo { "(" } else { "[" }, if open_hi { ")" } else { "]" });
                    return Err(bad(here(field), format!("{v} is outside {l}{lo}, {hi}{r}")));
                }
                Ok(())
            };
            let octave_rule = |octaves: u32, offset: u32| {
                if octaves == 0 || octaves > MAX_OCTAVES {
                    return Err(bad(here("octaves"), format!("{octaves} is outside 1..={MAX_OCTAVES}")));
                }
                if offset > 1 << 16 {
                    return Err(bad(here("offset"), format!("{offset} is above 65536")));
                }
                Ok(())
            };
            let fractal_rule = |octaves: u32, offset: u32, lacunarity: f32, h: f32, frequency: f32| {
                octave_rule(octaves, offset)?;
                within("lacunarity", lacunarity, 1.0, 8.0, true, false)?;
                within("h", h, 0.0, 4.0, true, false)?;
                within("frequency", frequency, 0.0, 16.0, true, false)
            };
            match &n.node {
                NodeKind::Basic { offset } => {
                    if *offset > 1 << 16 {
                        return Err(bad(here("offset"), format!("{offset} is above 65536")));
                    }
                }
                NodeKind::Octave { octaves, offset } => octave_rule(*octaves, *offset)?,
                NodeKind::Fbm { octaves, offset, lacunarity, h, frequency, .. }
                | NodeKind::Quilez { octaves, offset, lacunarity, h, frequency } => {
                    fractal_rule(*octaves, *offset, *lacunarity, *h, *frequency)?
                }
                NodeKind::Hetero { octaves, offset, lacunarity, h, frequency, shift, .. }
                | NodeKind::Hybrid { octaves, offset, lacunarity, h, frequency, shift, .. } => {
                    fractal_rule(*octaves, *offset, *lacunarity, *h, *frequency)?;
                    within("shift", *shift, -2.0, 2.0, false, false)?;
                }
                NodeKind::Combined { .. } => {}
                NodeKind::Distort { strength, .. } => within("strength", *strength, -1.0e4, 1.0e4, false, false)?,
                NodeKind::Normalize { from, .. } => {
                    finite(here("from.0"), from.0)?;
                    finite(here("from.1"), from.1)?;
                    if from.0 >= from.1 {
                        return Err(bad(
                            here("from"),
                            format!("({}, {}) is empty: the low end must be below the high", from.0, from.1),
                        ));
                    }
                }
                NodeKind::Linear { mul, add, .. } => {
                    finite(here("mul"), *mul)?;
                    finite(here("add"), *add)?;
                }
                NodeKind::Bias { b, .. } => within("b", *b, 0.0, 1.0, true, true)?,
                NodeKind::Gain { g, .. } => within("g", *g, 0.0, 1.0, true, true)?,
                NodeKind::Glacier { b, .. } => within("b", *b, 0.0, 0.5, true, false)?,
                NodeKind::Canyon { g, .. } | NodeKind::Plateau { g, .. } => within("g", *g, 0.5, 1.0, false, true)?,
                NodeKind::ExpScale { exponent, scale, .. } => {
                    finite(here("exponent"), *exponent)?;
                    finite(here("scale"), *scale)?;
                    if *exponent <= 0.0 || *exponent > 16.0 {
                        return Err(bad(here("exponent"), format!("{exponent} is outside (0, 16]")));
                    }
                    if *scale == 0.0 {
                        return Err(bad(here("scale"), "must not be 0".into()));
                    }
                }
            }
        }
        for (field, name) in self.fields.in_order() {
            if !index.contains_key(name) {
                return Err(bad(format!("fields.{field}"), format!("`{name}` is not a node")));
            }
        }
        let depth = self.max_depth();
        if depth > MAX_DEPTH {
            return Err(bad("noise".into(), format!("nesting depth {depth} exceeds {MAX_DEPTH}")));
        }

        let c = &self.column;
        for (f, v) in [
            ("height_amplitude", c.height_amplitude),
            ("mountain_amplitude", c.mountain_amplitude),
            ("roughness_amplitude", c.roughness_amplitude),
            ("temperature_mountain_cooling", c.temperature_mountain_cooling),
            ("peak_exponent_scale", c.peak_exponent_scale),
        ] {
            finite(format!("column.{f}"), v)?;
        }

        if self.biomes.is_empty() || self.biomes.len() > MAX_BIOMES {
            return Err(bad("biomes".into(), format!("needs 1 to {MAX_BIOMES} biomes, found {}", self.biomes.len())));
        }
        for (i, b) in self.biomes.iter().enumerate() {
            let here = |f: &str| format!("biomes[{i}] ({}).{f}", b.name);
            if self.biomes[..i].iter().any(|o| o.name == b.name) {
                return Err(bad(here("name"), format!("duplicate biome `{}`", b.name)));
            }
            for (f, block) in [("top", &b.top), ("under", &b.under)] {
                if BlockId::by_name(block).is_none() {
                    return Err(bad(here(f), format!("unknown block `{block}`")));
                }
            }
            finite(here("roughness"), b.roughness)?;
            finite(here("scale"), b.scale)?;
            finite(here("exponent"), b.exponent)?;
            if b.exponent <= 0.0 || b.exponent > 16.0 {
                return Err(bad(here("exponent"), format!("{} is outside (0, 16]", b.exponent)));
            }
        }

        let r = &self.biome_rules;
        for (f, name) in [("ocean", &r.ocean), ("beach", &r.beach), ("mountain", &r.mountain)] {
            if self.biome_index(name).is_none() {
                return Err(bad(format!("biome_rules.{f}"), format!("`{name}` is not a biome")));
            }
        }
        for (f, v) in [
            ("ocean_max_height", r.ocean_max_height),
            ("ocean_max_mountain", r.ocean_max_mountain),
            ("beach_max_height", r.beach_max_height),
            ("mountain_min", r.mountain_min),
            ("mountain_min_with_height", r.mountain_min_with_height),
        ] {
            finite(format!("biome_rules.{f}"), v)?;
        }
        for (f, list) in [("heat_thresholds", &r.heat_thresholds), ("moisture_thresholds", &r.moisture_thresholds)] {
            if list.len() != THRESHOLDS {
                return Err(bad(
                    format!("biome_rules.{f}"),
                    format!("needs exactly {THRESHOLDS} values, found {}", list.len()),
                ));
            }
            for (i, v) in list.iter().enumerate() {
                finite(format!("biome_rules.{f}[{i}]"), *v)?;
            }
            if list.windows(2).any(|w| w[0] > w[1]) {
                return Err(bad(format!("biome_rules.{f}"), "values must be in ascending order".into()));
            }
        }
        if r.threshold_search_limit as usize > THRESHOLDS {
            return Err(bad(
                "biome_rules.threshold_search_limit".into(),
                format!("{} is above {THRESHOLDS}", r.threshold_search_limit),
            ));
        }
        if r.table.len() != TABLE_SIZE {
            return Err(bad("biome_rules.table".into(), format!("needs {TABLE_SIZE} rows, found {}", r.table.len())));
        }
        for (row, names) in r.table.iter().enumerate() {
            if names.len() != TABLE_SIZE {
                return Err(bad(
                    format!("biome_rules.table[{row}]"),
                    format!("needs {TABLE_SIZE} entries, found {}", names.len()),
                ));
            }
            for (col, name) in names.iter().enumerate() {
                if self.biome_index(name).is_none() {
                    return Err(bad(format!("biome_rules.table[{row}][{col}]"), format!("`{name}` is not a biome")));
                }
            }
        }

        let f = &self.fill;
        for (field, block) in [("water", &f.water), ("deep", &f.deep), ("snow", &f.snow)] {
            if BlockId::by_name(block).is_none() {
                return Err(bad(format!("fill.{field}"), format!("unknown block `{block}`")));
            }
        }
        if !(0..=32).contains(&f.under_depth) {
            return Err(bad("fill.under_depth".into(), format!("{} is outside 0..=32", f.under_depth)));
        }
        if let Some(d) = &self.decorations {
            self.validate_decorations(d, &bad)?;
        }
        if let Some(c) = &self.caves {
            validate_caves(c, &bad)?;
        }
        Ok(())
    }

    fn validate_decorations(
        &self,
        d: &Decorations,
        bad: &dyn Fn(String, String) -> PresetError,
    ) -> Result<(), PresetError> {
        let known = |field: String, name: &str| match BlockId::by_name(name) {
            Some(_) => Ok(()),
            None => Err(bad(field, format!("unknown block `{name}`"))),
        };
        if !TREE_SPACING_RANGE.contains(&d.tree_spacing) {
            return Err(bad(
                "decorations.tree_spacing".into(),
                format!("{} is outside {}..={}", d.tree_spacing, TREE_SPACING_RANGE.start(), TREE_SPACING_RANGE.end()),
            ));
        }
        if !(d.tree_max_slope.is_finite() && d.tree_max_slope >= 0.0) {
            return Err(bad(
                "decorations.tree_max_slope".into(),
                format!("{} is not a finite number ≥ 0", d.tree_max_slope),
            ));
        }
        known("decorations.trunk_soil".into(), &d.trunk_soil)?;
        if d.trees.len() > MAX_TREE_KINDS {
            return Err(bad(
                "decorations.trees".into(),
                format!("at most {MAX_TREE_KINDS} trees, found {}", d.trees.len()),
            ));
        }
        for (i, t) in d.trees.iter().enumerate() {
            let here = |f: &str| format!("decorations.trees[{i}] ({}).{f}", t.name);
            if d.trees[..i].iter().any(|o| o.name == t.name) {
                return Err(bad(here("name"), format!("duplicate tree `{}`", t.name)));
            }
            known(here("trunk"), &t.trunk)?;
            known(here("leaves"), &t.leaves)?;
            for b in &t.on {
                known(here("on"), b)?;
            }
            let (lo, hi) = t.trunk_height;
            if lo == 0 || lo > hi || hi > MAX_TRUNK_HEIGHT {
                return Err(bad(
                    here("trunk_height"),
                    format!("({lo}, {hi}) is not a range within 1..={MAX_TRUNK_HEIGHT}"),
                ));
            }
            if t.canopy.len() > MAX_CANOPY_LAYERS {
                return Err(bad(
                    here("canopy"),
                    format!("at most {MAX_CANOPY_LAYERS} layers, found {}", t.canopy.len()),
                ));
            }
            if !t.canopy.is_empty() && t.leaves == "air" {
                return Err(bad(here("leaves"), "a canopy needs a leaves block".into()));
            }
            for (j, l) in t.canopy.iter().enumerate() {
                if l.radius > MAX_TREE_REACH {
                    return Err(bad(
                        here(&format!("canopy[{j}].radius")),
                        format!("{} is above {MAX_TREE_REACH}", l.radius),
                    ));
                }
                // Leaves never hang below the lowest log, so nothing a tree
                // places is ever at or under the water its base stands above.
                let lowest = 1 - lo as i32;
                if l.dy < lowest || l.dy > MAX_CANOPY_DY {
                    return Err(bad(
                        here(&format!("canopy[{j}].dy")),
                        format!(
                            "{} is outside {lowest}..={MAX_CANOPY_DY} (never below the shortest trunk's base)",
                            l.dy
                        ),
                    ));
                }
            }
        }
        let unit2 = (d.tree_spacing * d.tree_spacing) as f32;
        for (i, b) in d.biomes.iter().enumerate() {
            let here = |f: &str| format!("decorations.biomes[{i}] ({}).{f}", b.biome);
            if self.biome_index(&b.biome).is_none() {
                return Err(bad(here("biome"), format!("`{}` is not a biome", b.biome)));
            }
            if d.biomes[..i].iter().any(|o| o.biome == b.biome) {
                return Err(bad(here("biome"), format!("`{}` is listed twice", b.biome)));
            }
            if b.trees.len() > MAX_BIOME_LAYERS || b.plants.len() > MAX_BIOME_LAYERS {
                return Err(bad(
                    here("trees"),
                    format!("at most {MAX_BIOME_LAYERS} trees and {MAX_BIOME_LAYERS} plants"),
                ));
            }
            let chance = |field: String, c: f32| {
                if c.is_finite() && c > 0.0 {
                    Ok(c)
                } else {
                    Err(bad(field, format!("{c} is not a chance in (0, 1]")))
                }
            };
            let mut tree_sum = 0.0;
            for (j, (name, c)) in b.trees.iter().enumerate() {
                if !d.trees.iter().any(|t| &t.name == name) {
                    return Err(bad(here(&format!("trees[{j}]")), format!("`{name}` is not a tree")));
                }
                tree_sum += chance(here(&format!("trees[{j}]")), *c)?;
            }
            // One candidate per spacing² columns: the chances share it.
            if tree_sum * unit2 > 1.0 {
                return Err(bad(
                    here("trees"),
                    format!("chances add up to {tree_sum}, above 1/tree_spacing² = {}", 1.0 / unit2),
                ));
            }
            let mut plant_sum = 0.0;
            for (j, p) in b.plants.iter().enumerate() {
                known(here(&format!("plants[{j}].block")), &p.block)?;
                for o in &p.on {
                    known(here(&format!("plants[{j}].on")), o)?;
                }
                plant_sum += chance(here(&format!("plants[{j}].chance")), p.chance)?;
            }
            if plant_sum > 1.0 {
                return Err(bad(here("plants"), format!("chances add up to {plant_sum}, above 1")));
            }
        }
        Ok(())
    }

    /// The cave noise of this name, by index.
    pub fn cave_noise_index(&self, name: &str) -> Option<usize> {
        self.caves.as_ref()?.noises.iter().position(|n| n.name == name)
    }

    /// Nesting depth of the deepest field root (a leaf has depth 1).
    fn max_depth(&self) -> usize {
        let index = self.node_indices();
        let mut depth = vec![1usize; self.noise.len()];
        for (i, n) in self.noise.iter().enumerate() {
            depth[i] = 1 + n.node.children().iter().map(|(_, c)| depth[index[c]]).max().unwrap_or(0);
        }
        depth.into_iter().max().unwrap_or(0)
    }
}

fn validate_caves(c: &Caves, bad: &dyn Fn(String, String) -> PresetError) -> Result<(), PresetError> {
    if c.bottom > c.top {
        return Err(bad("caves.bottom".into(), format!("{} is above top {}", c.bottom, c.top)));
    }
    match BlockId::by_name(&c.lava) {
        Some(_) => {}
        None => return Err(bad("caves.lava".into(), format!("unknown block `{}`", c.lava))),
    }
    if c.water_clearance > 64 {
        return Err(bad("caves.water_clearance".into(), format!("{} is above 64", c.water_clearance)));
    }
    if c.noises.len() > MAX_CAVE_NOISES || c.layers.len() > MAX_CAVE_LAYERS {
        return Err(bad(
            "caves".into(),
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
            return Err(bad(here("name"), "is declared twice".into()));
        }
        if n.octaves == 0 || n.octaves as usize > MAX_CAVE_OCTAVES {
            return Err(bad(here("octaves"), format!("{} is outside 1..={MAX_CAVE_OCTAVES}", n.octaves)));
        }
        for (field, cell) in [("cell", n.cell), ("cell_y", n.cell_y)] {
            if !cell.is_power_of_two() || !CAVE_CELLS.contains(&cell) {
                return Err(bad(
                    here(field),
                    format!("{cell} is not a power of two in {}..={}", CAVE_CELLS.start(), CAVE_CELLS.end()),
                ));
            }
            if cell >> (n.octaves - 1) < *CAVE_CELLS.start() {
                return Err(bad(
                    here(field),
                    format!("{cell} halved for each of {} octaves falls below {}", n.octaves, CAVE_CELLS.start()),
                ));
            }
        }
        if !(n.gain.is_finite() && n.gain > 0.0 && n.gain <= 1.0) {
            return Err(bad(here("gain"), format!("{} is outside (0, 1]", n.gain)));
        }
    }
    let known = |field: String, name: &str| match c.noises.iter().any(|n| n.name == name) {
        true => Ok(()),
        false => Err(bad(field, format!("`{name}` is not a cave noise"))),
    };
    for (i, l) in c.layers.iter().enumerate() {
        let here = |f: &str| format!("caves.layers[{i}].{f}");
        match l {
            CaveLayer::Chambers { noise, above, .. } => {
                known(here("noise"), noise)?;
                if !(above.is_finite() && above.abs() < 1.0) {
                    return Err(bad(here("above"), format!("{above} is outside (-1, 1)")));
                }
            }
            CaveLayer::Tunnels { noises, width, .. } => {
                known(here("noises"), &noises.0)?;
                known(here("noises"), &noises.1)?;
                if !(width.is_finite() && *width > 0.0 && *width < 1.0) {
                    return Err(bad(here("width"), format!("{width} is outside (0, 1)")));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classic_text() -> String {
        BUNDLED[0].1.to_string()
    }

    /// Each case edits `base` once (from → to) and must be refused, naming
    /// the field and the reason.
    fn assert_each_breaks(base: &str, cases: &[(&str, &str, &str, &str)]) {
        for (from, to, field, reason) in cases {
            assert!(base.contains(from), "test setup: `{from}` not in the preset");
            let e = error_of(&base.replacen(from, to, 1));
            assert!(e.contains(&format!("field `{field}`")), "expected field {field}: {e}");
            assert!(e.contains(reason), "expected reason {reason}: {e}");
            assert!(e.contains("test.ron"), "{e}");
        }
    }

    fn error_of(text: &str) -> String {
        match Preset::parse(text, "test.ron") {
            Ok(_) => panic!("preset unexpectedly valid"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn bundled_presets_are_valid() {
        for (name, _) in BUNDLED {
            let p = Preset::load(name).unwrap();
            assert_eq!(&p.name, name);
        }
        let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/worldgen")).unwrap();
        let ron_files = files.filter(|f| f.as_ref().unwrap().path().extension().is_some_and(|x| x == "ron")).count();
        assert_eq!(BUNDLED.len(), ron_files, "every preset file is bundled");
        assert_eq!(BUNDLED[0].0, "classic", "the default comes first");
        assert!(help_text().contains("glacial") && help_text().contains("archipelago"), "{}", help_text());
        let classic = Preset::classic();
        assert_eq!(classic.biomes.len(), 14);
        assert_eq!(classic.noise.len(), 21);
    }

    #[test]
    fn syntax_errors_name_file_and_position() {
        let e = error_of("Preset(name: \"x\", noise: [");
        assert!(e.starts_with("preset test.ron: line 1"), "{e}");
        let e = error_of(&classic_text().replace("water_level: 0", "water_level: 0, bogus: 3"));
        assert!(e.contains("bogus"), "{e}");
    }

    #[test]
    fn semantic_errors_name_the_field_and_reason() {
        let cases = [
            (
                r#"source: "b1", offset_by: "b2""#,
                r#"source: "nope", offset_by: "b2""#,
                "noise[10] (b1_b2).source",
                "`nope`",
            ),
            ("Octave(octaves: 5, offset: 0)", "Octave(octaves: 0, offset: 0)", "noise[4] (o0).octaves", "outside"),
            (
                "exponent: 1.3, scale: 0.0078125",
                "exponent: 1.3, scale: 0.0",
                "noise[15] (height).scale",
                "must not be 0",
            ),
            (r#"height: "height""#, r#"height: "heigth""#, "fields.height", "not a node"),
            (r#"top: "podzol""#, r#"top: "obsidian""#, "biomes[10] (taiga).top", "unknown block `obsidian`"),
            ("[0.05, 0.18, 0.4, 0.6, 0.8]", "[0.05, 0.18, 0.9, 0.6, 0.8]", "biome_rules.heat_thresholds", "ascending"),
            (
                r#"["ice", "tundra", "taiga", "forest", "jungle", "jungle"]"#,
                r#"["ice", "tundra", "taiga", "forest", "jungle"]"#,
                "biome_rules.table[4]",
                "needs 6",
            ),
            ("under_depth: 3", "under_depth: -1", "fill.under_depth", "outside"),
            ("perlin_amplitude: 0.936", "perlin_amplitude: 0.0", "perlin_amplitude", "outside (0, 2]"),
            ("perlin_amplitude: 0.936", "perlin_amplitude: NaN", "perlin_amplitude", "finite"),
            (
                "exponent: 3.0, scale: 0.001953125)),\n        (name: \"peaks\"",
                "exponent: inf, scale: 0.001953125)),\n        (name: \"peaks\"",
                "noise[19] (mountain).exponent",
                "finite",
            ),
        ];
        assert_each_breaks(&classic_text(), &cases);
    }

    /// The new kinds' rules, each broken once in a preset that uses them.
    #[test]
    fn bad_noise_parameters_name_the_field_and_reason() {
        let base = include_str!("../../tests/data/every_kind.ron");
        let cases = [
            ("lacunarity: 2.2, h: 0.9", "lacunarity: 2.2, h: 0.0", "noise[21] (ridges).h", "outside (0, 4]"),
            ("lacunarity: 2.2, h: 0.9", "lacunarity: 2.2, h: -1.0", "noise[21] (ridges).h", "outside (0, 4]"),
            ("Fbm(octaves: 6", "Fbm(octaves: 0", "noise[21] (ridges).octaves", "outside 1..=16"),
            ("Fbm(octaves: 6", "Fbm(octaves: 17", "noise[21] (ridges).octaves", "outside 1..=16"),
            ("frequency: 0.003, shift: 0.6", "frequency: NaN, shift: 0.6", "noise[22] (hills).frequency", "finite"),
            ("shift: 0.7, input: Billow", "shift: inf, input: Billow", "noise[23] (hybrid).shift", "finite"),
            ("lacunarity: 2.2,", "lacunarity: 1.0,", "noise[21] (ridges).lacunarity", "outside (1, 8]"),
            ("from: (-0.5, 2.5)", "from: (2.5, -0.5)", "noise[28] (t).from", "is empty"),
            (
                "Glacier(source: \"plateau\", b: 0.35)",
                "Glacier(source: \"plateau\", b: 0.7)",
                "noise[31] (glacier).b",
                "outside (0, 0.5]",
            ),
            (
                "Canyon(source: \"t\", g: 0.8)",
                "Canyon(source: \"t\", g: 1.0)",
                "noise[29] (canyon).g",
                "outside [0.5, 1)",
            ),
            ("Bias(source: \"glacier\", b: 0.6)", "Bias(source: \"glacier\", b: NaN)", "noise[32] (bias).b", "finite"),
            // A post curve on a raw noise: its values are not heights in [0, 1].
            ("Canyon(source: \"t\"", "Canyon(source: \"mixed\"", "noise[29] (canyon).source", "not normalised"),
            (
                "Bias(source: \"glacier\"",
                "Bias(source: \"lifted\"",
                "noise[32] (bias).source",
                "not a node declared before",
            ),
        ];
        assert_each_breaks(base, &cases);
        Preset::parse(base, "every_kind.ron").expect("the unbroken preset loads");
    }

    #[test]
    fn forward_references_are_rejected() {
        let text = classic_text().replace(
            r#"(name: "b1", node: Basic(offset: 1)),"#,
            r#"(name: "b1", node: Combined(source: "b2", offset_by: "b2")),"#,
        );
        assert!(error_of(&text).contains("not a node declared before"));
    }

    #[test]
    fn unknown_names_and_missing_files_are_clear() {
        let e = Preset::load("no-such-preset").unwrap_err().to_string();
        assert!(e.contains("classic"), "{e}");
        let e = Preset::load("/nonexistent/dir/p.ron").unwrap_err().to_string();
        assert!(e.contains("/nonexistent/dir/p.ron") && e.contains("cannot read"), "{e}");
    }
}
