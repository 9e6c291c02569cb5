//! `blockworld node-range`: the values one node of a preset's noise graph
//! takes over a square of columns, and what each `Normalize` reading it
//! clamps.
//!
//! The fractal-terrain thesis rescales each generated image by its own
//! measured minimum and maximum. A chunk here is generated alone, with no
//! pass over the whole world, so a preset writes the range into its
//! `Normalize` node instead; this command is how that range is measured and
//! checked (docs/worldgen.md, "Normalisation").

use crate::world::coords::check_accepted;
use crate::worldgen::graph::NoiseProgram;
use crate::worldgen::params::WorldParams;
use crate::worldgen::preset::NodeKind;
use crate::worldgen::Preset;
use rayon::prelude::*;
use serde::Serialize;

/// At most this many columns are sampled (4096², 64 MiB of values).
pub const MAX_SAMPLES: u64 = 1 << 24;

#[derive(Debug, thiserror::Error)]
pub enum NodeRangeError {
    #[error("preset `{preset}` has no noise node `{node}`; its nodes are: {known}")]
    UnknownNode { preset: String, node: String, known: String },
    #[error("{0}")]
    BadArea(String),
}

/// Where the columns are sampled: a square of `size` blocks centred on
/// `center`, one column every `step` blocks each way.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Area {
    pub center: [i64; 2],
    pub size: u32,
    pub step: u32,
}

impl Area {
    fn columns_per_side(&self) -> Result<u64, NodeRangeError> {
        if self.step == 0 || self.size == 0 {
            return Err(NodeRangeError::BadArea("--size and --step must be at least 1".into()));
        }
        let n = (self.size / self.step).max(1) as u64;
        if n * n > MAX_SAMPLES {
            return Err(NodeRangeError::BadArea(format!(
                "{n}² columns is more than {MAX_SAMPLES}; raise --step or lower --size"
            )));
        }
        let half = self.size as f64 / 2.0;
        for c in self.center {
            for edge in [c as f64 - half, c as f64 + half] {
                check_accepted([edge, 0.0, 0.0])
                    .map_err(|e| NodeRangeError::BadArea(format!("the square's edge: {e}")))?;
            }
        }
        Ok(n)
    }
}

/// A `Normalize` node that reads the measured node, and the share of the
/// samples its fixed range clamps at each end.
#[derive(Clone, Debug, Serialize)]
pub struct Clamped {
    pub node: String,
    pub from: (f32, f32),
    /// Share of samples below `from.0`, which become 0.
    pub below: f64,
    /// Share of samples above `from.1`, which become 1.
    pub above: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeRange {
    pub preset: String,
    pub node: String,
    pub seed: u64,
    pub area: Area,
    pub samples: u64,
    pub min: f32,
    pub max: f32,
    /// (percent, value): 0.1, 1, 50, 99 and 99.9.
    pub percentiles: Vec<(f64, f32)>,
    pub normalized_by: Vec<Clamped>,
}

/// Samples `node` of `preset` at seed `seed` over `area`, at whole-block
/// column coordinates, as the column stage samples them.
pub fn node_range(preset: &Preset, seed: u64, node: &str, area: Area) -> Result<NodeRange, NodeRangeError> {
    let index = preset.noise.iter().position(|n| n.name == node).ok_or_else(|| NodeRangeError::UnknownNode {
        preset: preset.name.clone(),
        node: node.to_string(),
        known: preset.noise.iter().map(|n| n.name.as_str()).collect::<Vec<_>>().join(", "),
    })?;
    let n = area.columns_per_side()?;
    let params = WorldParams::new(preset, seed);
    let program = NoiseProgram::compile_node(&params, index);
    let x0 = area.center[0] - area.size as i64 / 2;
    let z0 = area.center[1] - area.size as i64 / 2;
    let step = area.step as i64;
    let mut values: Vec<f32> = (0..n as i64)
        .into_par_iter()
        .flat_map_iter(|j| {
            let z = (z0 + j * step) as f32;
            let program = &program;
            (0..n as i64).map(move |i| program.eval::<f32>((x0 + i * step) as f32, z)[0])
        })
        .collect();
    values.par_sort_unstable_by(f32::total_cmp);
    let at = |p: f64| values[((p / 100.0 * (values.len() - 1) as f64).round() as usize).min(values.len() - 1)];
    let share = |pred: &dyn Fn(f32) -> bool| values.iter().filter(|v| pred(**v)).count() as f64 / values.len() as f64;
    let normalized_by = preset
        .noise
        .iter()
        .filter_map(|named| match &named.node {
            NodeKind::Normalize { source, from } if source == node => Some(Clamped {
                node: named.name.clone(),
                from: *from,
                below: share(&|v| v < from.0),
                above: share(&|v| v > from.1),
            }),
            _ => None,
        })
        .collect();
    Ok(NodeRange {
        preset: preset.name.clone(),
        node: node.to_string(),
        seed,
        area,
        samples: values.len() as u64,
        min: values[0],
        max: values[values.len() - 1],
        percentiles: [0.1, 1.0, 50.0, 99.0, 99.9].into_iter().map(|p| (p, at(p))).collect(),
        normalized_by,
    })
}

/// The report as a few lines of text.
pub fn text(r: &NodeRange) -> String {
    let mut s = format!(
        "node `{}` of preset `{}`, seed {}: {} columns, every {} blocks over {} blocks around {},{}\n",
        r.node, r.preset, r.seed, r.samples, r.area.step, r.area.size, r.area.center[0], r.area.center[1]
    );
    s += &format!("min {:.4}  max {:.4}\n", r.min, r.max);
    for (p, v) in &r.percentiles {
        s += &format!("p{p} {v:.4}\n");
    }
    for c in &r.normalized_by {
        s += &format!(
            "`{}` normalises from ({}, {}): {:.2} % of columns clamp to 0, {:.2} % to 1\n",
            c.node,
            c.from.0,
            c.from.1,
            100.0 * c.below,
            100.0 * c.above
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(size: u32, step: u32) -> Area {
        Area { center: [0, 0], size, step }
    }

    /// The figures come from the node asked for: a Linear node that halves
    /// its source halves every percentile, and a Normalize over the source
    /// counts the clamped shares that the sorted values give.
    #[test]
    fn the_figures_follow_the_node() {
        let preset = Preset::load("ridged").expect("bundled");
        let raw = node_range(&preset, 42, "ridged", area(2048, 8)).expect("a node of ridged");
        assert_eq!(raw.samples, 256 * 256);
        assert!(raw.min <= raw.percentiles[0].1 && raw.percentiles[4].1 <= raw.max);
        assert!(raw.percentiles.windows(2).all(|w| w[0].1 <= w[1].1));
        let norm = &raw.normalized_by;
        assert_eq!(norm.len(), 1, "ridged has one Normalize over `ridged`");
        assert!(norm[0].below + norm[0].above < 0.5);

        let mut halved = preset.clone();
        halved.noise.push(crate::worldgen::preset::NamedNode {
            name: "half".into(),
            node: NodeKind::Linear { source: "ridged".into(), mul: 0.5, add: 0.0 },
        });
        let half = node_range(&halved, 42, "half", area(2048, 8)).expect("the added node");
        assert_eq!(half.min, raw.min * 0.5);
        for ((_, a), (_, b)) in raw.percentiles.iter().zip(&half.percentiles) {
            assert_eq!(*b, a * 0.5);
        }
        assert!(half.normalized_by.is_empty());
    }

    #[test]
    fn bad_requests_are_refused_with_the_reason() {
        let preset = Preset::classic();
        let e = node_range(&preset, 1, "nope", area(64, 1)).unwrap_err().to_string();
        assert!(e.contains("no noise node `nope`") && e.contains("height"), "{e}");
        assert!(node_range(&preset, 1, "height", area(64, 0)).unwrap_err().to_string().contains("--step"));
        assert!(node_range(&preset, 1, "height", area(1 << 20, 1)).unwrap_err().to_string().contains("raise --step"));
        let far = Area { center: [(1 << 24) - 10, 0], size: 64, step: 1 };
        assert!(node_range(&preset, 1, "height", far).unwrap_err().to_string().contains("accepted range"));
    }
}
