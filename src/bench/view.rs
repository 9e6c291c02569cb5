//! `blockworld bench view`: the time to the first complete view, the
//! figure the caves' streaming goal is stated in ("within 1.5× of the
//! world without caves at render distance 16").
//!
//! A run is what `blockworld screenshot` does before it draws: from cold
//! (a new world with an empty heightmap cache, a new streamer and a new
//! renderer), stream the range around the screenshot's default eye until
//! every chunk in it is generated and meshed. Runs of the preset, of the
//! same preset without its `caves` section, without its `veins`, and
//! unfurnished (`unfurnished`) alternate, in an order reversed every other
//! round (`round_order`), so all see the same machine state; medians are
//! compared. Beside the wall time, the process's CPU time over the load
//! says how much work the view was: on a machine with few cores the two
//! move together.
//!
//! After each variant's first run (outside the timing), the open space the
//! eye reaches ([`crate::world::reach`]) says how much of that work went
//! to chunks the eye cannot see from there: meshes of chunks no reached
//! block touches, and stored chunks no such mesh needs. That bounds what
//! streaming the reached space first could save.

use super::session::{HeadlessSession, SessionOptions, PATIENCE};
use crate::backend::{Device, Engine};
use crate::bench::{median, median_interval, MedianInterval};
use crate::game::spawn::spawn_point;
use crate::game::streaming::rings::{edge_offsets, neighbourhood, offset, within};
use crate::game::streaming::{rings, ChunkStreamer, StreamCounts};
use crate::render::camera::{Camera, DEFAULT_FOV_DEGREES};
use crate::render::gpu::Gpu;
use crate::render::offscreen::OffscreenTarget;
use crate::render::world_renderer::{ViewParams, WorldRenderer};
use crate::world::block::BlockId;
use crate::world::coords::ChunkPos;
use crate::world::edits::BlockPos;
use crate::world::reach::Reach;
use crate::worldgen::{Preset, WorldGen};
use anyhow::{bail, Result};
use glam::DVec3;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

pub struct ViewOptions {
    pub preset: Preset,
    pub seed: u64,
    pub render_distance: i32,
    /// Runs of each variant.
    pub runs: usize,
    pub engine: Engine,
    pub gpu_device: Device,
}

#[derive(Clone, Debug, Serialize)]
pub struct ViewRun {
    pub wall_ms: f64,
    /// CPU time of every thread of the process over the load.
    pub cpu_ms: f64,
    pub chunks: usize,
    pub meshes: usize,
    /// Vertex data uploaded for the view.
    pub mesh_bytes: u64,
    /// What the eye can reach (the first run of each variant only).
    pub reach: Option<ViewReach>,
    /// Frames drawn from the loaded view (the first run of each variant only).
    pub frames: Option<ViewFrames>,
}

/// What frames of the loaded view draw, with visibility culling and
/// without: from the eye turned to four headings on the surface, and from
/// a cave underground.
#[derive(Clone, Debug, Serialize)]
pub struct ViewFrames {
    pub surface_culling_on: Drawn,
    pub surface_culling_off: Drawn,
    /// None where no cave lies under the eye's columns.
    pub underground: Option<Underground>,
}

/// Summed over the headings; frame times are the median frame.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Drawn {
    pub chunks: usize,
    pub quads: u64,
    pub draw_calls: usize,
    pub frame_ms: f64,
    pub cull_ms: f64,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Underground {
    pub eye: [i64; 3],
    /// Chunks with a mesh in range.
    pub meshed: usize,
    /// Drawn with culling on (at the heading that drew most).
    pub drawn: usize,
    /// Drawn with culling off, frustum only, at that heading.
    pub drawn_without_culling: usize,
}

/// Frames per heading and setting; the median is reported.
const FRAMES: usize = 3;
const HEADINGS: [f64; 4] = [35.0, 125.0, 215.0, 305.0];
const FRAME_SIZE: (u32, u32) = (1280, 720);

/// The loaded view against the open space the eye reaches.
#[derive(Clone, Debug, Serialize)]
pub struct ViewReach {
    /// Chunks in render range that hold a reached block.
    pub reached_chunks: usize,
    /// Meshes of chunks that can show the eye nothing from here.
    pub meshes_unseen: usize,
    pub mesh_bytes_unseen: u64,
    /// Open (non-opaque) blocks in the stored chunks of the data range,
    /// and how many of them the eye reaches.
    pub open_blocks: u64,
    pub reached_blocks: u64,
    /// Stored (non-uniform) chunks in the data range.
    pub stored_chunks: usize,
    /// Stored chunks that no mesh the eye can see needs (neither such a
    /// chunk nor one of its 26 neighbours).
    pub stored_chunks_unneeded: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct ViewVariant {
    /// "with caves" (the preset as it is), "without caves" (its `caves`
    /// removed), "without veins" (its `veins` removed) or "unfurnished"
    /// (no veins, rocks, density maps or shore reaches).
    pub variant: &'static str,
    pub runs: Vec<ViewRun>,
    pub wall_ms_median: f64,
    pub cpu_ms_median: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ViewReport {
    /// Where and on what it ran.
    pub machine: super::machine::Machine,
    pub seed: u64,
    pub render_distance: i32,
    pub backend: String,
    pub adapter: String,
    pub variants: Vec<ViewVariant>,
    /// Median wall time with caves over the median without (goal ≤ 1.5). None when the preset has no caves.
    pub ratio_wall: Option<f64>,
    pub ratio_cpu: Option<f64>,
    /// Surface views, with caves over without: quads drawn with culling on
    /// (goal ≤ 1.1), and the frame with culling on and off (goal ≤ 1.1 on).
    pub ratio_quads: Option<f64>,
    pub ratio_frame_culling_on: Option<f64>,
    pub ratio_frame_culling_off: Option<f64>,
    /// Median wall and CPU time of the preset over the same preset without
    /// its `veins` (goal ≤ 1.05). None when the preset has no veins.
    pub ratio_veins_wall: Option<f64>,
    pub ratio_veins_cpu: Option<f64>,
    /// The same over the preset's land as the furnishing work found it
    /// (`unfurnished`: no veins, rocks, density maps or shore reaches;
    /// goal ≤ 1.05). None when the preset has none of them.
    pub ratio_furnished_wall: Option<f64>,
    pub ratio_furnished_cpu: Option<f64>,
    /// Run by run, how far each of those ratios strays: the least and
    /// greatest ratio of a run of the preset to the run of the other
    /// variant in the same round. A goal a few per cent from the median
    /// is only judged where this spread is narrower than that.
    pub spread_caves: Option<RunSpread>,
    pub spread_veins: Option<RunSpread>,
    pub spread_furnished: Option<RunSpread>,
}

/// The round-by-round ratios of one variant to another, wall time and CPU
/// time: the least and greatest, `[least, greatest]`, and their median with
/// a 95 % interval for it ([`MedianInterval`]), which says whether a goal
/// is met, missed or not told apart by this many rounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunSpread {
    pub wall: [f64; 2],
    pub cpu: [f64; 2],
    pub wall_median: MedianInterval,
    pub cpu_median: MedianInterval,
}

/// The coverage asked of [`RunSpread`]'s intervals.
const LEVEL: f64 = 0.95;

impl RunSpread {
    /// Over the rounds both `a` and `b` ran (runs alternate, so run `k` of
    /// each is one round).
    pub fn of(a: &[ViewRun], b: &[ViewRun]) -> Option<RunSpread> {
        let ratios = |f: fn(&ViewRun) -> f64| a.iter().zip(b).map(move |(x, y)| f(x) / f(y));
        Some(RunSpread {
            wall: super::spread(ratios(|r| r.wall_ms))?,
            cpu: super::spread(ratios(|r| r.cpu_ms))?,
            wall_median: median_interval(ratios(|r| r.wall_ms), LEVEL)?,
            cpu_median: median_interval(ratios(|r| r.cpu_ms), LEVEL)?,
        })
    }
}

impl fmt::Display for RunSpread {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let [w0, w1] = self.wall;
        let [c0, c1] = self.cpu;
        let middle = |m: &MedianInterval| {
            let [lo, hi] = m.interval;
            format!("{:.3}x ({lo:.3}–{hi:.3}x at {:.0} %)", m.median, m.coverage * 100.0)
        };
        write!(
            f,
            "round by round {w0:.2}–{w1:.2}x wall, {c0:.2}–{c1:.2}x CPU; median round {} wall, {} CPU",
            middle(&self.wall_median),
            middle(&self.cpu_median)
        )
    }
}

/// CPU time of every thread of this process so far.
#[cfg(unix)]
pub(crate) fn process_cpu_ms() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write into.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0;
    if ok {
        ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
    } else {
        f64::NAN
    }
}

#[cfg(not(unix))]
pub(crate) fn process_cpu_ms() -> f64 {
    f64::NAN
}

const WITHOUT_VEINS: &str = "without veins";
const UNFURNISHED: &str = "unfurnished";

/// `preset`'s land as the work on furnishing it found it: no ore veins,
/// no rocks or fallen logs, every tree and plant chance constant (no
/// density maps) and no plant limited to the water's edge. None when the
/// preset has none of these.
pub(crate) fn unfurnished(preset: &Preset) -> Option<Preset> {
    let mut d = preset.decorations.clone()?;
    let mut changed = preset.veins.is_some() || !d.rocks.is_empty();
    d.rocks.clear();
    d.rock_spacing = 0;
    for b in &mut d.biomes {
        b.rocks.clear();
        changed |= b.tree_density.take().is_some();
        for plant in &mut b.plants {
            changed |= plant.density.take().is_some() | plant.shore.take().is_some();
        }
    }
    changed.then(|| Preset { decorations: Some(d), veins: None, ..preset.clone() })
}

pub fn run(opts: &ViewOptions) -> Result<ViewReport> {
    if opts.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let gpu = Gpu::headless()?;
    let mut presets = vec![("with caves", opts.preset.clone())];
    if opts.preset.caves.is_some() {
        presets.push(("without caves", Preset { caves: None, ..opts.preset.clone() }));
    } else {
        presets[0].0 = "without caves";
    }
    if opts.preset.veins.is_some() {
        presets.push((WITHOUT_VEINS, Preset { veins: None, ..opts.preset.clone() }));
    }
    if let Some(p) = unfurnished(&opts.preset) {
        presets.push((UNFURNISHED, p));
    }
    let mut runs: Vec<Vec<ViewRun>> = vec![Vec::new(); presets.len()];
    let mut backend = String::new();
    for k in 0..opts.runs {
        for i in round_order(k, presets.len()) {
            let preset = &presets[i].1;
            let world = Arc::new(WorldGen::new(preset.clone(), opts.seed));
            let (run, label) = run_one(world, &gpu, opts, k == 0)?;
            runs[i].push(run);
            backend = label;
        }
    }
    let variants: Vec<ViewVariant> = presets
        .iter()
        .zip(runs)
        .map(|((variant, _), runs)| ViewVariant {
            variant,
            wall_ms_median: median(runs.iter().map(|r| r.wall_ms).collect()),
            cpu_ms_median: median(runs.iter().map(|r| r.cpu_ms).collect()),
            runs,
        })
        .collect();
    let other = |name: &str| variants.iter().skip(1).find(|v| v.variant == name);
    let over = |name: &str, f: fn(&ViewVariant) -> f64| Some(f(&variants[0]) / f(other(name)?));
    let ratio = |f: fn(&ViewVariant) -> f64| over("without caves", f);
    let spread = |name: &str| RunSpread::of(&variants[0].runs, &other(name)?.runs);
    Ok(ViewReport {
        machine: super::machine::Machine::here(),
        seed: opts.seed,
        render_distance: opts.render_distance,
        backend,
        adapter: gpu.adapter_name(),
        ratio_wall: ratio(|v| v.wall_ms_median),
        ratio_cpu: ratio(|v| v.cpu_ms_median),
        ratio_quads: frames_ratio(&variants, |f| f.surface_culling_on.quads as f64),
        ratio_frame_culling_on: frames_ratio(&variants, |f| f.surface_culling_on.frame_ms),
        ratio_frame_culling_off: frames_ratio(&variants, |f| f.surface_culling_off.frame_ms),
        ratio_veins_wall: over(WITHOUT_VEINS, |v| v.wall_ms_median),
        ratio_veins_cpu: over(WITHOUT_VEINS, |v| v.cpu_ms_median),
        ratio_furnished_wall: over(UNFURNISHED, |v| v.wall_ms_median),
        ratio_furnished_cpu: over(UNFURNISHED, |v| v.cpu_ms_median),
        spread_caves: spread("without caves"),
        spread_veins: spread(WITHOUT_VEINS),
        spread_furnished: spread(UNFURNISHED),
        variants,
    })
}

/// A figure of the first run's frames, with caves over without.
fn frames_ratio(variants: &[ViewVariant], f: fn(&ViewFrames) -> f64) -> Option<f64> {
    let of = |v: &ViewVariant| v.runs.first().and_then(|r| r.frames.as_ref()).map(f);
    let plain = variants.iter().skip(1).find(|v| v.variant == "without caves")?;
    Some(of(variants.first()?)? / of(plain)?)
}

/// The order of the variants in round `k`: as listed in even rounds,
/// reversed in odd ones. A machine that speeds up or slows down over a
/// round (frequency, a neighbour's load, memory the last run freed) then
/// favours no variant: over each pair of rounds every variant stands at
/// the same mean position.
fn round_order(k: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |i| if k.is_multiple_of(2) { i } else { n - 1 - i })
}

/// One cold load of the range around the screenshot's default eye, and
/// what the eye reaches in it if `reach`.
fn run_one(world: Arc<WorldGen>, gpu: &Gpu, opts: &ViewOptions, reach: bool) -> Result<(ViewRun, String)> {
    let eye = spawn_point(&world) + DVec3::new(0.0, 24.0, 0.0);
    let eye = [eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64];
    let centre = ChunkPos::containing(eye);
    let mut session = HeadlessSession::start(
        gpu,
        world,
        SessionOptions::new(opts.engine, opts.gpu_device.clone(), opts.render_distance),
    )?;
    let cpu = process_cpu_ms();
    let wall = session.load(centre, PATIENCE)?;
    let cpu_ms = process_cpu_ms() - cpu;
    let HeadlessSession { streamer, renderer, .. } = &session;
    let StreamCounts { loaded, .. } = streamer.counts();
    let run = ViewRun {
        wall_ms: wall.as_secs_f64() * 1e3,
        cpu_ms,
        chunks: loaded,
        meshes: renderer.mesh_count(),
        mesh_bytes: renderer.gpu_bytes,
        reach: reach.then(|| view_reach(streamer, renderer, eye, centre, opts.render_distance)),
        frames: None,
    };
    let frames = if reach { Some(view_frames(&mut session, eye, opts.render_distance)?) } else { None };
    Ok((ViewRun { frames, ..run }, session.streamer.backend_label()))
}

/// Frames from `eye` at each heading, culling on and off, then from a
/// cave below the eye's chunk if there is one.
fn view_frames(session: &mut HeadlessSession, eye: [i64; 3], r: i32) -> Result<ViewFrames> {
    let target = OffscreenTarget::new(session.gpu, FRAME_SIZE);
    let view = ViewParams::new(r, 0, 0.5, 0.0);
    let at = |p: [i64; 3]| DVec3::new(p[0] as f64 + 0.5, p[1] as f64 + 0.5, p[2] as f64 + 0.5);
    let mut surface = [Drawn::default(); 2];
    for (k, culling) in [true, false].into_iter().enumerate() {
        let mut times = Vec::new();
        for yaw in HEADINGS {
            let camera = Camera::for_view(at(eye), yaw, -18.0, DEFAULT_FOV_DEGREES, FRAME_SIZE, r);
            for f in 0..FRAMES {
                let (stats, ms) = session.draw(&target, &camera, &view, culling)?;
                times.push(ms);
                if f == 0 {
                    let d = &mut surface[k];
                    d.chunks += stats.drawn;
                    d.quads += stats.quads_drawn;
                    d.draw_calls += stats.draw_calls;
                    d.cull_ms += stats.cull_us / 1e3;
                }
            }
        }
        surface[k].frame_ms = median(times);
    }
    let underground = match find_cave(&session.streamer, eye) {
        Some(cave) => {
            let mut best = (0, 0);
            for yaw in HEADINGS {
                let camera = Camera::for_view(at(cave), yaw, -10.0, DEFAULT_FOV_DEGREES, FRAME_SIZE, r);
                let (on, _) = session.draw(&target, &camera, &view, true)?;
                let (off, _) = session.draw(&target, &camera, &view, false)?;
                best = best.max((on.drawn, off.drawn));
            }
            Some(Underground {
                eye: cave,
                meshed: session.renderer.mesh_count(),
                drawn: best.0,
                drawn_without_culling: best.1,
            })
        }
        None => None,
    };
    Ok(ViewFrames { surface_culling_on: surface[0], surface_culling_off: surface[1], underground })
}

/// An air block in a cave near the eye's column: rock for at least 8
/// blocks above it, at least two chunks below the eye.
fn find_cave(streamer: &ChunkStreamer, eye: [i64; 3]) -> Option<[i64; 3]> {
    let opaque = |p: [i64; 3]| streamer.block(BlockPos::new(p[0], p[1], p[2])).is_some_and(|b| b.info().opaque());
    let air = |p: [i64; 3]| streamer.block(BlockPos::new(p[0], p[1], p[2])) == Some(BlockId::AIR);
    for d in (0..96i64).step_by(4) {
        for (dx, dz) in [(d, 0), (0, d), (-d, 0), (0, -d), (d, d), (-d, -d)] {
            for y in (eye[1] - 160..eye[1] - 64).rev() {
                let p = [eye[0] + dx, y, eye[2] + dz];
                if air(p) && (1..=8).all(|k| opaque([p[0], p[1] + k, p[2]])) {
                    return Some(p);
                }
            }
        }
    }
    None
}

fn view_reach(
    streamer: &ChunkStreamer,
    renderer: &WorldRenderer,
    eye: [i64; 3],
    centre: ChunkPos,
    r: i32,
) -> ViewReach {
    let store = streamer.store();
    let reach = Reach::flood(eye, |p| store.get(p).map(|c| &**c));
    let in_range = rings(centre, r);
    let shows = |p: ChunkPos| within(p, centre, r) && reach.may_show(p);
    let mut out = ViewReach {
        reached_chunks: in_range.iter().filter(|&&p| reach.reached(p)).count(),
        meshes_unseen: 0,
        mesh_bytes_unseen: 0,
        open_blocks: 0,
        reached_blocks: reach.cells,
        stored_chunks: 0,
        stored_chunks_unneeded: 0,
    };
    for &p in &in_range {
        if let Some(bytes) = renderer.mesh_bytes(p).filter(|_| !reach.may_show(p)) {
            out.meshes_unseen += 1;
            out.mesh_bytes_unseen += bytes;
        }
    }
    let data = in_range.iter().copied().chain(edge_offsets(r).into_iter().map(|o| offset(centre, o)));
    for p in data {
        let Some(c) = store.get(p).filter(|c| c.blocks().uniform().is_none()) else { continue };
        out.stored_chunks += 1;
        out.open_blocks += BlockId::all().filter(|b| !b.info().opaque()).map(|b| c.counts().get(b) as u64).sum::<u64>();
        if !neighbourhood(p).any(shows) {
            out.stored_chunks_unneeded += 1;
        }
    }
    out
}

impl fmt::Display for ViewReport {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let r = self;
        writeln!(
            f,
            "first complete view, render distance {} ({}, {}), seed {}:",
            r.render_distance, r.backend, r.adapter, r.seed
        )?;
        for v in &r.variants {
            let walls: Vec<String> = v.runs.iter().map(|x| format!("{:.0}", x.wall_ms)).collect();
            let first = &v.runs[0];
            writeln!(
                f,
                "  {:<14} wall ms {} (median {:.0}); CPU ms median {:.0}; {} chunks, {} meshes, {:.0} MiB of vertices",
                v.variant,
                walls.join(" / "),
                v.wall_ms_median,
                v.cpu_ms_median,
                first.chunks,
                first.meshes,
                first.mesh_bytes as f64 / (1 << 20) as f64
            )?;
            if let Some(x) = &first.reach {
                writeln!(
                    f,
                    "  {:<14} the eye reaches {:.1} % of the open blocks in stored chunks, in {} chunks; {} meshes ({:.0} MiB) show it nothing; {} of {} stored chunks no visible mesh needs",
                    "",
                    100.0 * x.reached_blocks as f64 / x.open_blocks.max(1) as f64,
                    x.reached_chunks,
                    x.meshes_unseen,
                    x.mesh_bytes_unseen as f64 / (1 << 20) as f64,
                    x.stored_chunks_unneeded,
                    x.stored_chunks
                )?;
            }
        }
        for v in &r.variants {
            let Some(fr) = v.runs.first().and_then(|x| x.frames.as_ref()) else { continue };
            for (label, d) in [("culling on", &fr.surface_culling_on), ("culling off", &fr.surface_culling_off)] {
                writeln!(
                    f,
                    "  {:<14} surface, 4 headings, {label}: {} chunks, {} quads, {} draw calls drawn; frame median {:.1} ms; culling {:.2} ms",
                    v.variant, d.chunks, d.quads, d.draw_calls, d.frame_ms, d.cull_ms
                )?;
            }
            if let Some(u) = &fr.underground {
                writeln!(
                    f,
                    "  {:<14} in a cave at {},{},{}: {} of {} meshed chunks drawn ({:.0} %), {} without culling",
                    v.variant,
                    u.eye[0],
                    u.eye[1],
                    u.eye[2],
                    u.drawn,
                    u.meshed,
                    100.0 * u.drawn as f64 / u.meshed.max(1) as f64,
                    u.drawn_without_culling
                )?;
            }
        }
        if let (Some(q), Some(on), Some(off)) = (r.ratio_quads, r.ratio_frame_culling_on, r.ratio_frame_culling_off) {
            writeln!(
                f,
                "  caves / no caves at the surface: {q:.2}x quads (goal 1.1x); frame {on:.2}x with culling (goal 1.1x), {off:.2}x without"
            )?;
        }
        let rows = [
            ("caves / no caves", r.ratio_wall, r.ratio_cpu, r.spread_caves, "1.5x"),
            ("veins / no veins", r.ratio_veins_wall, r.ratio_veins_cpu, r.spread_veins, "1.05x"),
            (
                "furnished / unfurnished land",
                r.ratio_furnished_wall,
                r.ratio_furnished_cpu,
                r.spread_furnished,
                "1.05x",
            ),
        ];
        for (label, wall, cpu, spread, goal) in rows {
            let (Some(w), Some(c)) = (wall, cpu) else { continue };
            write!(f, "  {label}: {w:.2}x wall, {c:.2}x CPU (goal: {goal} wall)")?;
            match spread {
                Some(s) if r.variants[0].runs.len() > 1 => writeln!(f, "; {s}")?,
                _ => writeln!(f)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_stands_at_the_same_mean_position_over_two_rounds() {
        for n in 1..=5 {
            let mut sum = vec![0; n];
            for k in 0..2 {
                let order: Vec<usize> = round_order(k, n).collect();
                let mut seen = order.clone();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "round {k} runs each of {n} variants once");
                for (position, &variant) in order.iter().enumerate() {
                    sum[variant] += position;
                }
            }
            assert!(sum.iter().all(|&s| s == n - 1), "{n} variants: position sums {sum:?}");
        }
    }

    fn run(wall_ms: f64, cpu_ms: f64) -> ViewRun {
        ViewRun { wall_ms, cpu_ms, chunks: 0, meshes: 0, mesh_bytes: 0, reach: None, frames: None }
    }

    #[test]
    fn the_spread_pairs_runs_of_one_round() {
        let a = [run(110.0, 200.0), run(120.0, 210.0), run(100.0, 220.0)];
        let b = [run(100.0, 200.0), run(100.0, 200.0), run(100.0, 200.0)];
        let s = RunSpread::of(&a, &b).expect("three rounds");
        assert_eq!(s.wall, [1.0, 1.2]);
        assert_eq!(s.cpu, [1.0, 1.1]);
        // Paired round by round, not sorted: the slowest run of one against
        // the fastest of the other is not a ratio any round measured.
        let b = [run(90.0, 200.0), run(120.0, 200.0), run(100.0, 200.0)];
        assert_eq!(RunSpread::of(&a, &b).map(|s| s.wall), Some([1.0, 110.0 / 90.0]));
        assert_eq!(RunSpread::of(&a, &[]), None);
    }

    /// The median round and its interval come from the same pairs.
    #[test]
    fn the_median_round_is_of_the_paired_ratios() {
        let a: Vec<ViewRun> = (0..9).map(|k| run(100.0 + k as f64, 200.0)).collect();
        let b: Vec<ViewRun> = (0..9).map(|k| run(if k % 2 == 0 { 100.0 } else { 50.0 + k as f64 }, 100.0)).collect();
        let s = RunSpread::of(&a, &b).expect("nine rounds");
        let mut want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x.wall_ms / y.wall_ms).collect();
        want.sort_by(|x, y| x.total_cmp(y));
        assert_eq!(s.wall_median.median, want[4]);
        assert_eq!(s.wall_median.interval, [want[1], want[7]]);
        assert_eq!(s.cpu_median.interval, [2.0, 2.0]);
    }
}
