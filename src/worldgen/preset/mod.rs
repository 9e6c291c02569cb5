//! World presets: the terrain as data (`assets/worldgen/*.ron`).
//!
//! A preset names a tree of noise nodes, binds six of them to the column
//! fields, and gives the column constants, the biome table and the fill
//! rules, then optional rivers, decorations, caves and veins. Loading validates
//! everything, so the engines never see a dangling reference or a
//! nonsensical number; errors name the file, the field and the reason.
//! Each section lives in its own module with its own checks: `noise`,
//! `terrain` (column, biomes, rules, fill), `rivers`, `decorations`,
//! `caves` and `veins`.

mod caves;
mod decorations;
mod noise;
mod rivers;
mod terrain;
mod veins;

pub use caves::*;
pub use decorations::*;
pub use noise::*;
pub use rivers::*;
pub use terrain::*;
pub use veins::*;

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

fn crate_perlin_amplitude() -> f32 {
    super::noise::perlin::SCALE_3D
}

/// The gradient lattice of a preset's Basic and Octave nodes.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum Lattice {
    /// Each corner's gradient from an integer hash of the corner and a seed
    /// drawn from the world seed and the node's offset (`noise::perlin`).
    #[default]
    Hash,
    /// Ken Perlin's fixed permutation table, the world seed entering as the
    /// third coordinate, `seed + 32·offset`, in single precision
    /// (`noise::permutation`): the founding game's 256 worlds.
    Permutation,
}

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
    /// The lattice every Basic and Octave node samples: the seeded hash (the
    /// default), or Perlin's permutation table as the founding game samples
    /// it, with the seed as its third coordinate.
    #[serde(default)]
    pub lattice: Lattice,
    pub noise: Vec<NamedNode>,
    pub fields: Fields,
    pub column: ColumnConstants,
    pub biomes: Vec<BiomeDef>,
    pub biome_rules: BiomeRules,
    pub fill: FillRules,
    #[serde(default)]
    pub decorations: Option<Decorations>,
    #[serde(default)]
    pub rivers: Option<Rivers>,
    #[serde(default)]
    pub caves: Option<Caves>,
    #[serde(default)]
    pub veins: Option<Veins>,
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
        let c = Check { file };
        c.finite("perlin_amplitude", self.perlin_amplitude)?;
        if self.perlin_amplitude <= 0.0 || self.perlin_amplitude > 2.0 {
            return Err(c.bad("perlin_amplitude", format!("{} is outside (0, 2]", self.perlin_amplitude)));
        }
        noise::validate(self, &c)?;
        if self.lattice == Lattice::Permutation {
            noise::validate_permutation(self, &c)?;
        }
        terrain::validate_column(&self.column, &c)?;
        terrain::validate_biomes(self, &c)?;
        terrain::validate_biome_rules(self, &c)?;
        terrain::validate_fill(&self.fill, &c)?;
        if let Some(r) = &self.rivers {
            rivers::validate(self, r, &c)?;
        }
        if let Some(d) = &self.decorations {
            decorations::validate(self, d, &c)?;
        }
        if let Some(caves) = &self.caves {
            caves::validate(caves, &c)?;
        }
        if let Some(v) = &self.veins {
            veins::validate(v, &c)?;
        }
        Ok(())
    }

    /// The cave noise of this name, by index.
    pub fn cave_noise_index(&self, name: &str) -> Option<usize> {
        self.caves.as_ref()?.noises.iter().position(|n| n.name == name)
    }
}

/// The wording every section's checks share: each error names the file,
/// the field and the reason.
struct Check<'a> {
    file: &'a str,
}

impl Check<'_> {
    fn bad(&self, field: impl Into<String>, reason: impl Into<String>) -> PresetError {
        PresetError::Invalid { file: self.file.to_string(), field: field.into(), reason: reason.into() }
    }

    fn finite(&self, field: impl Into<String>, v: f32) -> Result<(), PresetError> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(self.bad(field, format!("{v} is not a finite number")))
        }
    }

    /// `v` in the range (lo, hi), each end open or closed as `open` says.
    fn within(&self, field: String, v: f32, (lo, hi): (f32, f32), open: (bool, bool)) -> Result<(), PresetError> {
        self.finite(field.clone(), v)?;
        let below = if open.0 { v <= lo } else { v < lo };
        let above = if open.1 { v >= hi } else { v > hi };
        if below || above {
            let (l, r) = (if open.0 { "(" } else { "[" }, if open.1 { ")" } else { "]" });
            return Err(self.bad(field, format!("{v} is outside {l}{lo}, {hi}{r}")));
        }
        Ok(())
    }

    /// A block the registry knows.
    fn block(&self, field: impl Into<String>, name: &str) -> Result<(), PresetError> {
        match BlockId::by_name(name) {
            Some(_) => Ok(()),
            None => Err(self.bad(field, format!("unknown block `{name}`"))),
        }
    }

    /// A block of a list both engines hold as a bit mask (what a
    /// decoration stands on, what a vein replaces).
    fn mask_block(&self, field: impl Into<String>, name: &str) -> Result<(), PresetError> {
        match BlockId::by_name(name) {
            Some(b) if b.0 as usize >= MASK_BLOCK_IDS => {
                Err(self
                    .bad(field, format!("`{name}` has id {}, and a block list holds ids below {MASK_BLOCK_IDS}", b.0)))
            }
            Some(_) => Ok(()),
            None => Err(self.bad(field, format!("unknown block `{name}`"))),
        }
    }
}

/// Block ids a list held as a bit mask can name: the masks are `u32` on
/// both engines (`on_mask`, `replace_mask`).
pub const MASK_BLOCK_IDS: usize = 32;

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
        // The founding game's 24 nodes and the rivers' course.
        assert_eq!(classic.noise.len(), 26);
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
            (r#"top: "podzol""#, r#"top: "marble""#, "biomes[10] (taiga).top", "unknown block `marble`"),
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
        let base = include_str!("../../../tests/data/every_kind.ron");
        let cases = [
            ("lacunarity: 2.2, h: 0.9", "lacunarity: 2.2, h: 0.0", "noise[21] (ridges).h", "outside (0, 4]"),
            ("lacunarity: 2.2, h: 0.9", "lacunarity: 2.2, h: -1.0", "noise[21] (ridges).h", "outside (0, 4]"),
            ("Fbm(octaves: 6", "Fbm(octaves: 0", "noise[21] (ridges).octaves", "outside 1..=16"),
            ("Fbm(octaves: 6", "Fbm(octaves: 17", "noise[21] (ridges).octaves", "outside 1..=16"),
            ("frequency: 0.003, shift: 0.6", "frequency: NaN, shift: 0.6", "noise[22] (hills).frequency", "finite"),
            ("shift: 0.7, input: Billow", "shift: inf, input: Billow", "noise[23] (hybrid).shift", "finite"),
            ("lacunarity: 2.2,", "lacunarity: 1.0,", "noise[21] (ridges).lacunarity", "outside (1, 8]"),
            ("from: (-0.5, 2.5)", "from: (2.5, -0.5)", "noise[28] (t).from", "is empty"),
            ("crest: 0.9, gain: 0.5", "crest: -0.1, gain: 0.5", "noise[42] (crests).crest", "outside [0, 2]"),
            ("crest: 0.9, gain: 0.5", "crest: 0.9, gain: 9.0", "noise[42] (crests).gain", "outside [0, 8]"),
            ("crest: 0.9, gain: 0.5", "crest: 0.9, gain: NaN", "noise[42] (crests).gain", "finite"),
            ("Ridged(octaves: 8", "Ridged(octaves: 0", "noise[42] (crests).octaves", "outside 1..=16"),
            ("gullies: (octaves: 4,", "gullies: (octaves: 0,", "noise[43] (gullied).gullies.octaves", "outside 1..=8"),
            ("gullies: (octaves: 4,", "gullies: (octaves: 9,", "noise[43] (gullied).gullies.octaves", "outside 1..=8"),
            (
                "frequency: 6.0, strength",
                "frequency: 0.0, strength",
                "noise[43] (gullied).gullies.frequency",
                "outside (0, 64]",
            ),
            ("strength: 0.5)", "strength: -1.0)", "noise[43] (gullied).gullies.strength", "outside [0, 4]"),
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
