//! The preset's noise graph: node kinds and the six column fields, and
//! the checks on them.

use super::{Check, Preset, PresetError, MAX_DEPTH, MAX_NODES, MAX_OCTAVES};
use serde::Deserialize;
use std::collections::HashMap;

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
        #[serde(default)]
        basis: Basis,
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
        #[serde(default)]
        basis: Basis,
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
        #[serde(default)]
        basis: Basis,
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
        #[serde(default)]
        basis: Basis,
    },
    /// Musgrave's ridged multifractal ("Texturing and Modeling", ch. 16):
    /// each octave is `s_j = (crest − |N(λ^j p)|)²`, and from the second on
    /// it is damped by the one before, `s_j ·= clamp(gain·s_{j−1}, 0, 1)`;
    /// `v = Σ w^j·s_j`. Crests stay sharp and detailed, valleys smooth: the
    /// UFMG paper's terrain (8 octaves, λ = 2.5, crest 0.9, gain 0.5).
    Ridged {
        octaves: u32,
        offset: u32,
        #[serde(default = "two")]
        lacunarity: f32,
        #[serde(default = "one")]
        h: f32,
        #[serde(default = "one")]
        frequency: f32,
        /// Musgrave's offset: what a crest reaches before squaring.
        crest: f32,
        /// Musgrave's gain: how strongly an octave's crests let the next through.
        gain: f32,
        #[serde(default)]
        basis: Basis,
    },
    /// fBm carved by the erosion filter: the fBm's value and analytic slope
    /// (each octave's Perlin or value derivatives, chained to the first
    /// octave's coordinates), then `gullies.octaves` octaves of gullies on
    /// grids `gullies.frequency`·2^i times finer, each at half the depth of
    /// the one before. A gully octave's stripes run down the slope so far
    /// (the fBm's plus the gullies' before it) and carve up to
    /// `gullies.strength`·2^−i below the surface where it is steep; flats
    /// keep their height. Local: a column needs only its own position.
    Eroded {
        octaves: u32,
        offset: u32,
        #[serde(default = "two")]
        lacunarity: f32,
        #[serde(default = "one")]
        h: f32,
        #[serde(default = "one")]
        frequency: f32,
        #[serde(default)]
        basis: Basis,
        gullies: Gullies,
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

/// N: the noise each octave of a fractal sum draws (the thesis's two basis
/// functions).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum Basis {
    /// Seeded gradient noise, times the preset's Perlin amplitude.
    #[default]
    Perlin,
    /// Seeded value noise (`noise::value`): a number in [−1, 1) per lattice
    /// corner, blended with the quintic fade; not scaled by the amplitude.
    Value,
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
            | NodeKind::Quilez { .. }
            | NodeKind::Eroded { .. }
            | NodeKind::Ridged { .. } => vec![],
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

/// The gully octaves of an [`NodeKind::Eroded`] node.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Gullies {
    /// Gully octaves, 1 to [`MAX_GULLY_OCTAVES`].
    #[serde(default = "four")]
    pub octaves: u32,
    /// Gully cells per unit of the fBm's first-octave coordinates.
    #[serde(default = "four_f")]
    pub frequency: f32,
    /// How deep the first octave's gullies cut, in the fBm's units.
    pub strength: f32,
}

/// More gully octaves than this are finer than a block at any useful frequency.
pub const MAX_GULLY_OCTAVES: u32 = 8;

fn four() -> u32 {
    4
}

fn four_f() -> f32 {
    4.0
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

/// The graph: names unique, children declared before their parents, curves
/// on normalised sources, every kind's numbers in range, the fields bound,
/// and the nesting within what the engines' stacks hold.
pub(super) fn validate(p: &Preset, c: &Check) -> Result<(), PresetError> {
    if p.noise.is_empty() || p.noise.len() > MAX_NODES {
        return Err(c.bad("noise", format!("needs 1 to {MAX_NODES} nodes, found {}", p.noise.len())));
    }
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, n) in p.noise.iter().enumerate() {
        let here = |f: &str| format!("noise[{i}] ({}).{f}", n.name);
        if index.insert(n.name.as_str(), i).is_some() {
            return Err(c.bad(format!("noise[{i}].name"), format!("duplicate node name `{}`", n.name)));
        }
        // Children must be declared earlier: the graph is a DAG by construction.
        for (field, name) in n.node.children() {
            match index.get(name) {
                Some(&j) if j < i => {}
                Some(_) => return Err(c.bad(here(field), format!("`{name}` refers to the node itself"))),
                None => return Err(c.bad(here(field), format!("`{name}` is not a node declared before this one"))),
            }
        }
        if n.node.is_curve() {
            let source = n.node.children()[0].1;
            if !p.noise[index[source]].node.is_normalised() {
                return Err(c.bad(
                    here("source"),
                    format!(
                        "`{source}` is not normalised: a post curve takes heights in [0, 1] (put a Normalize \
                         node between)"
                    ),
                ));
            }
        }
        node_rule(&n.node, &here, c)?;
    }
    for (field, name) in p.fields.in_order() {
        if !index.contains_key(name) {
            return Err(c.bad(format!("fields.{field}"), format!("`{name}` is not a node")));
        }
    }
    let depth = max_depth(p);
    if depth > MAX_DEPTH {
        return Err(c.bad("noise", format!("nesting depth {depth} exceeds {MAX_DEPTH}")));
    }
    Ok(())
}

/// One kind's numbers; `here` names a field of the node.
fn node_rule(node: &NodeKind, here: &dyn Fn(&str) -> String, c: &Check) -> Result<(), PresetError> {
    let within = |field: &str, v: f32, lo: f32, hi: f32, open: (bool, bool)| c.within(here(field), v, (lo, hi), open);
    let octave_rule = |octaves: u32, offset: u32| {
        if octaves == 0 || octaves > MAX_OCTAVES {
            return Err(c.bad(here("octaves"), format!("{octaves} is outside 1..={MAX_OCTAVES}")));
        }
        if offset > 1 << 16 {
            return Err(c.bad(here("offset"), format!("{offset} is above 65536")));
        }
        Ok(())
    };
    let fractal_rule = |octaves: u32, offset: u32, lacunarity: f32, h: f32, frequency: f32| {
        octave_rule(octaves, offset)?;
        within("lacunarity", lacunarity, 1.0, 8.0, (true, false))?;
        within("h", h, 0.0, 4.0, (true, false))?;
        within("frequency", frequency, 0.0, 16.0, (true, false))
    };
    match node {
        NodeKind::Basic { offset } => {
            if *offset > 1 << 16 {
                return Err(c.bad(here("offset"), format!("{offset} is above 65536")));
            }
        }
        NodeKind::Octave { octaves, offset } => octave_rule(*octaves, *offset)?,
        NodeKind::Fbm { octaves, offset, lacunarity, h, frequency, .. }
        | NodeKind::Quilez { octaves, offset, lacunarity, h, frequency, .. } => {
            fractal_rule(*octaves, *offset, *lacunarity, *h, *frequency)?
        }
        NodeKind::Hetero { octaves, offset, lacunarity, h, frequency, shift, .. }
        | NodeKind::Hybrid { octaves, offset, lacunarity, h, frequency, shift, .. } => {
            fractal_rule(*octaves, *offset, *lacunarity, *h, *frequency)?;
            within("shift", *shift, -2.0, 2.0, (false, false))?;
        }
        NodeKind::Eroded { octaves, offset, lacunarity, h, frequency, gullies, .. } => {
            fractal_rule(*octaves, *offset, *lacunarity, *h, *frequency)?;
            if gullies.octaves == 0 || gullies.octaves > MAX_GULLY_OCTAVES {
                return Err(
                    c.bad(here("gullies.octaves"), format!("{} is outside 1..={MAX_GULLY_OCTAVES}", gullies.octaves))
                );
            }
            within("gullies.frequency", gullies.frequency, 0.0, 64.0, (true, false))?;
            within("gullies.strength", gullies.strength, 0.0, 4.0, (false, false))?;
        }
        NodeKind::Ridged { octaves, offset, lacunarity, h, frequency, crest, gain, .. } => {
            fractal_rule(*octaves, *offset, *lacunarity, *h, *frequency)?;
            within("crest", *crest, 0.0, 2.0, (false, false))?;
            within("gain", *gain, 0.0, 8.0, (false, false))?;
        }
        NodeKind::Combined { .. } => {}
        NodeKind::Distort { strength, .. } => within("strength", *strength, -1.0e4, 1.0e4, (false, false))?,
        NodeKind::Normalize { from, .. } => {
            c.finite(here("from.0"), from.0)?;
            c.finite(here("from.1"), from.1)?;
            if from.0 >= from.1 {
                return Err(c.bad(
                    here("from"),
                    format!("({}, {}) is empty: the low end must be below the high", from.0, from.1),
                ));
            }
        }
        NodeKind::Linear { mul, add, .. } => {
            c.finite(here("mul"), *mul)?;
            c.finite(here("add"), *add)?;
        }
        NodeKind::Bias { b, .. } => within("b", *b, 0.0, 1.0, (true, true))?,
        NodeKind::Gain { g, .. } => within("g", *g, 0.0, 1.0, (true, true))?,
        NodeKind::Glacier { b, .. } => within("b", *b, 0.0, 0.5, (true, false))?,
        NodeKind::Canyon { g, .. } | NodeKind::Plateau { g, .. } => within("g", *g, 0.5, 1.0, (false, true))?,
        NodeKind::ExpScale { exponent, scale, .. } => {
            c.finite(here("exponent"), *exponent)?;
            c.finite(here("scale"), *scale)?;
            if *exponent <= 0.0 || *exponent > 16.0 {
                return Err(c.bad(here("exponent"), format!("{exponent} is outside (0, 16]")));
            }
            if *scale == 0.0 {
                return Err(c.bad(here("scale"), "must not be 0"));
            }
        }
    }
    Ok(())
}

/// Nesting depth of the deepest field root (a leaf has depth 1).
fn max_depth(p: &Preset) -> usize {
    let index = p.node_indices();
    let mut depth = vec![1usize; p.noise.len()];
    for (i, n) in p.noise.iter().enumerate() {
        depth[i] = 1 + n.node.children().iter().map(|(_, c)| depth[index[c]]).max().unwrap_or(0);
    }
    depth.into_iter().max().unwrap_or(0)
}

/// The permutation lattice serves the founding game's kinds: a fractal
/// that draws Perlin octaves would need a seed per octave, which that
/// lattice does not have.
pub(super) fn validate_permutation(p: &Preset, c: &Check) -> Result<(), PresetError> {
    for (i, n) in p.noise.iter().enumerate() {
        let perlin_fractal = match &n.node {
            NodeKind::Fbm { basis, .. }
            | NodeKind::Hetero { basis, .. }
            | NodeKind::Hybrid { basis, .. }
            | NodeKind::Quilez { basis, .. }
            | NodeKind::Eroded { basis, .. }
            | NodeKind::Ridged { basis, .. } => *basis == Basis::Perlin,
            _ => false,
        };
        if perlin_fractal {
            return Err(c.bad(
                format!("noise[{i}] ({})", n.name),
                "lattice Permutation serves Basic and Octave nodes; a fractal kind on it needs `basis: Value`",
            ));
        }
    }
    Ok(())
}
