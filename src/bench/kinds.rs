//! `blockworld bench kinds`: the fractal-terrain thesis's cost tables
//! (its Tables 7.4 and 7.5) for this project's noise kinds: one 1024×1024
//! heightmap of a single node, on one thread, per kind and number of
//! bands, with the CPU's widest lanes and one column at a time.
//!
//! Each row is a node pushed into classic's graph and compiled alone
//! ([`NoiseProgram::compile_node`]), so the figure is what the column stage
//! pays for that node, the program's dispatch included. The last row is
//! the thesis's costliest transforms around fBm (a domain warp by two
//! 2-band fBm fields, then the canyon curve), timed beside plain fBm with
//! the same bands; the thesis reports +21 % and +22 % for them.

use super::machine::Machine;
use super::median;
use crate::worldgen::graph::NoiseProgram;
use crate::worldgen::params::WorldParams;
use crate::worldgen::preset::{Basis, Gullies, Input, NamedNode, NodeKind};
use crate::worldgen::Preset;
use serde::Serialize;
use std::time::Instant;

/// Edge of the heightmap, in columns (the thesis's Tables 7.4 and 7.5).
pub const SIDE: usize = 1024;
/// The band counts timed: the thesis's 1 to 5, and its default of 8.
pub const BANDS: [u32; 6] = [1, 2, 3, 4, 5, 8];
/// Four first-octave cells across the map.
const FREQUENCY: f32 = 1.0 / 256.0;

#[derive(Clone, Debug, Serialize)]
pub struct KindRow {
    pub name: &'static str,
    /// ms per heightmap at each of [`BANDS`], medians: 8 lanes (AVX2).
    pub lanes_ms: Vec<f64>,
    /// The same one column at a time.
    pub scalar_ms: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct KindsReport {
    pub machine: Machine,
    pub side: usize,
    pub bands: Vec<u32>,
    pub repeat: usize,
    /// False where the CPU has no AVX2: the lane rows then ran one column at a time.
    pub avx2: bool,
    pub rows: Vec<KindRow>,
}

impl KindsReport {
    /// ns per sample of a figure in ms per heightmap.
    pub fn ns_per_sample(ms: f64) -> f64 {
        ms * 1e6 / (SIDE * SIDE) as f64
    }
}

fn fractal(kind: &str, bands: u32) -> NodeKind {
    let (octaves, offset, lacunarity, frequency) = (bands, 60, 2.0, FREQUENCY);
    let basis = if kind.ends_with("_value") { Basis::Value } else { Basis::Perlin };
    match kind {
        "fbm" | "fbm_ridged" | "fbm_billow" | "fbm_value" => NodeKind::Fbm {
            octaves,
            offset,
            lacunarity,
            h: 1.0,
            frequency,
            input: match kind {
                "fbm_ridged" => Input::Ridged,
                "fbm_billow" => Input::Billow,
                _ => Input::Plain,
            },
            basis,
        },
        "hetero" => {
            NodeKind::Hetero { octaves, offset, lacunarity, h: 1.0, frequency, input: Input::Plain, shift: 0.4, basis }
        }
        "hybrid" => {
            NodeKind::Hybrid { octaves, offset, lacunarity, h: 0.25, frequency, input: Input::Plain, shift: 0.7, basis }
        }
        "quilez" | "quilez_value" => NodeKind::Quilez { octaves, offset, lacunarity, h: 1.0, frequency, basis },
        "eroded" => NodeKind::Eroded {
            octaves,
            offset,
            lacunarity,
            h: 1.0,
            frequency,
            basis,
            gullies: Gullies { octaves: 4, frequency: 4.0, strength: 0.5 },
        },
        _ => NodeKind::Ridged { octaves, offset, lacunarity, h: 1.0, frequency, crest: 0.9, gain: 0.5, basis },
    }
}

/// The program of `nodes` pushed into classic's graph, the last one alone.
fn program(nodes: Vec<(&str, NodeKind)>) -> NoiseProgram {
    let mut preset = Preset::classic();
    preset.noise.extend(nodes.into_iter().map(|(name, node)| NamedNode { name: name.into(), node }));
    let params = WorldParams::new(&preset, 42);
    NoiseProgram::compile_node(&params, preset.noise.len() - 1)
}

/// fBm read through a domain warp by two 2-band fBm fields, then the
/// canyon curve: the thesis's costliest transforms.
fn warped_canyon(bands: u32) -> NoiseProgram {
    let warp = |offset| NodeKind::Fbm {
        octaves: 2,
        offset,
        lacunarity: 2.0,
        h: 0.5,
        frequency: FREQUENCY * 2.0,
        input: Input::Plain,
        basis: Basis::Perlin,
    };
    program(vec![
        ("k_fbm", fractal("fbm", bands)),
        ("k_wx", warp(61)),
        ("k_wz", warp(62)),
        ("k_warped", NodeKind::Distort { source: "k_fbm".into(), by: ("k_wx".into(), "k_wz".into()), strength: 40.0 }),
        ("k_t", NodeKind::Normalize { source: "k_warped".into(), from: (-0.8, 0.8) }),
        ("k_canyon", NodeKind::Canyon { source: "k_t".into(), g: 0.75 }),
    ])
}

/// The heightmap's values summed (so nothing is optimised away), one
/// column at a time.
fn map_scalar(program: &NoiseProgram) -> f32 {
    let mut acc = 0.0f32;
    for j in 0..SIDE {
        for i in 0..SIDE {
            acc += program.eval::<f32>(i as f32, j as f32)[0];
        }
    }
    acc
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn map_avx2(avx2: crate::worldgen::noise::perlin_avx2::Avx2, program: &NoiseProgram) -> f32 {
    use crate::worldgen::noise::lanes::Lanes;
    use crate::worldgen::noise::perlin_avx2::F32x8;
    let mut acc = [0.0f32; 8];
    let mut xs = [0.0f32; 8];
    for j in 0..SIDE {
        for i in (0..SIDE).step_by(8) {
            for (k, x) in xs.iter_mut().enumerate() {
                *x = (i + k) as f32;
            }
            let x = F32x8::load(avx2, &xs);
            let v = program.eval(x, x.splat(j as f32))[0];
            let mut out = [0.0f32; 8];
            v.store(&mut out);
            for (a, o) in acc.iter_mut().zip(out) {
                *a += o;
            }
        }
    }
    acc.iter().sum()
}

/// The whole heightmap with the widest lanes this CPU has.
fn map_lanes(program: &NoiseProgram) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = crate::worldgen::noise::perlin_avx2::avx2() {
        // SAFETY: AVX2 is present (the proof).
        return unsafe { map_avx2(avx2, program) };
    }
    map_scalar(program)
}

fn median_ms(repeat: usize, f: impl Fn() -> f32) -> f64 {
    median(
        (0..repeat.max(1))
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    )
}

fn row(name: &'static str, repeat: usize, make: impl Fn(u32) -> NoiseProgram) -> KindRow {
    let programs: Vec<NoiseProgram> = BANDS.iter().map(|&b| make(b)).collect();
    KindRow {
        name,
        lanes_ms: programs.iter().map(|p| median_ms(repeat, || map_lanes(p))).collect(),
        scalar_ms: programs.iter().map(|p| median_ms(repeat, || map_scalar(p))).collect(),
    }
}

fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return crate::worldgen::noise::perlin_avx2::available();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

pub fn run(repeat: usize) -> KindsReport {
    let kinds: [(&'static str, &str); 11] = [
        ("fBm", "fbm"),
        ("fBm, value noise", "fbm_value"),
        ("fBm, ridged input 1 - |n|", "fbm_ridged"),
        ("fBm, billowy input |n|", "fbm_billow"),
        ("heterogeneous multifractal", "hetero"),
        ("hybrid multifractal", "hybrid"),
        ("Quilez (derivative-damped fBm)", "quilez"),
        ("Quilez, value noise", "quilez_value"),
        ("Musgrave's ridged multifractal", "ridged"),
        ("eroded fBm (+ 4 gully octaves)", "eroded"),
        ("fBm + domain warp + canyon curve", "warped"),
    ];
    let rows = kinds
        .iter()
        .map(|&(name, kind)| match kind {
            "warped" => row(name, repeat, warped_canyon),
            _ => row(name, repeat, |b| program(vec![("k", fractal(kind, b))])),
        })
        .collect();
    KindsReport { machine: Machine::here(), side: SIDE, bands: BANDS.to_vec(), repeat, avx2: has_avx2(), rows }
}

impl std::fmt::Display for KindsReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "The fractal-terrain thesis's Tables 7.4/7.5: one {0}×{0} heightmap of one node, one thread, \
             ms (median of {1}); ns per sample in brackets",
            self.side, self.repeat
        )?;
        writeln!(f, "{}", self.machine)?;
        let lanes = if self.avx2 { "8 lanes (AVX2)" } else { "8 lanes (no AVX2: one column at a time)" };
        for (title, pick) in [(lanes, true), ("one column at a time", false)] {
            writeln!(f, "\n{title}")?;
            write!(f, "{:<34}", "bands")?;
            for b in &self.bands {
                write!(f, " {b:>15}")?;
            }
            writeln!(f)?;
            for r in &self.rows {
                write!(f, "{:<34}", r.name)?;
                for &ms in if pick { &r.lanes_ms } else { &r.scalar_ms } {
                    write!(f, " {:>15}", format!("{ms:.1} [{:.1}]", Self::ns_per_sample(ms)))?;
                }
                writeln!(f)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row times the node it names: the programs differ by kind, carry
    /// the bands asked for, and the warped row is the fBm row's sum read
    /// elsewhere and curved.
    #[test]
    fn each_row_times_its_own_kind() {
        let names =
            ["fbm", "fbm_value", "fbm_ridged", "fbm_billow", "hetero", "hybrid", "quilez", "quilez_value", "ridged"];
        let values: Vec<f32> =
            names.iter().map(|k| program(vec![("k", fractal(k, 3))]).eval::<f32>(37.0, -91.0)[0]).collect();
        for i in 0..values.len() {
            for j in i + 1..values.len() {
                assert_ne!(values[i], values[j], "{} and {} give the same value", names[i], names[j]);
            }
        }
        let one = program(vec![("k", fractal("quilez", 1))]);
        let five = program(vec![("k", fractal("quilez", 5))]);
        assert_eq!(one.perlin_evaluations() * 5, five.perlin_evaluations());
        let warped = warped_canyon(4);
        assert_eq!(warped.perlin_evaluations(), 4 + 2 + 2);
        let v = warped.eval::<f32>(37.0, -91.0)[0];
        assert!((0.0..=1.0).contains(&v), "the canyon curve gives [0, 1], not {v}");
    }
}
