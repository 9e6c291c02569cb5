//! `blockworld bench view`: the time to the first complete view, the
//! figure the caves' streaming goal is stated in ("within 1.5× of the
//! world without caves at render distance 16").
//!
//! A run is what `blockworld screenshot` does before it draws: from cold
//! (a new world with an empty heightmap cache, a new streamer and a new
//! renderer), stream the range around the screenshot's default eye until
//! every chunk in it is generated and meshed. Runs of the preset and of
//! the same preset without its `caves` section alternate, so both see the
//! same machine state; medians are compared. Beside the wall time, the
//! process's CPU time over the load says how much work the view was: on a
//! machine with few cores the two move together.
//!
//! After each variant's first run (outside the timing), the open space the
//! eye reaches ([`crate::world::reach`]) says how much of that work went
//! to chunks the eye cannot see from there: meshes of chunks no reached
//! block touches, and stored chunks no such mesh needs. That bounds what
//! streaming the reached space first could save.

use super::session::{HeadlessSession, SessionOptions, PATIENCE};
use crate::backend::{Device, Engine};
use crate::bench::median;
use crate::game::spawn::spawn_point;
use crate::game::streaming::rings::{edge_offsets, neighbourhood, offset, within};
use crate::game::streaming::{rings, ChunkStreamer, StreamCounts};
use crate::render::gpu::Gpu;
use crate::render::world_renderer::WorldRenderer;
use crate::world::block::BlockId;
use crate::world::coords::ChunkPos;
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
}

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
    /// "with caves" or "without caves" (the preset's `caves` removed).
    pub variant: &'static str,
    pub runs: Vec<ViewRun>,
    pub wall_ms_median: f64,
    pub cpu_ms_median: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ViewReport {
    pub seed: u64,
    pub render_distance: i32,
    pub backend: String,
    pub adapter: String,
    pub variants: Vec<ViewVariant>,
    /// Median wall time with caves over the median without (goal ≤ 1.5). None when the preset has no caves.
    pub ratio_wall: Option<f64>,
    pub ratio_cpu: Option<f64>,
}

/// CPU time of every thread of this process so far.
#[cfg(unix)]
fn process_cpu_ms() -> f64 {
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
fn process_cpu_ms() -> f64 {
    f64::NAN
}

pub fn run(opts: &ViewOptions) -> Result<ViewReport> {
    if opts.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let gpu = Gpu::headless()?;
    let mut presets = vec![("with caves", opts.preset.clone())];
    if opts.preset.caves.is_some() {
        let mut plain = opts.preset.clone();
        plain.caves = None;
        presets.push(("without caves", plain));
    } else {
        presets[0].0 = "without caves";
    }
    let mut runs: Vec<Vec<ViewRun>> = vec![Vec::new(); presets.len()];
    let mut backend = String::new();
    for k in 0..opts.runs {
        for (i, (_, preset)) in presets.iter().enumerate() {
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
    let ratio = |f: fn(&ViewVariant) -> f64| (variants.len() == 2).then(|| f(&variants[0]) / f(&variants[1]));
    Ok(ViewReport {
        seed: opts.seed,
        render_distance: opts.render_distance,
        backend,
        adapter: gpu.adapter_name(),
        ratio_wall: ratio(|v| v.wall_ms_median),
        ratio_cpu: ratio(|v| v.cpu_ms_median),
        variants,
    })
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
    };
    Ok((run, streamer.backend_label()))
}

fn view_reach(
    streamer: &ChunkStreamer,
    renderer: &WorldRenderer,
    eye: [i64; 3],
    centre: ChunkPos,
    r: i32,
) -> ViewReach {
    let reach = Reach::flood(eye, |p| streamer.chunk(p).map(|c| &**c));
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
        let Some(c) = streamer.chunk(p).filter(|c| c.blocks().uniform().is_none()) else { continue };
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
        if let (Some(w), Some(c)) = (r.ratio_wall, r.ratio_cpu) {
            writeln!(f, "  caves / no caves: {w:.2}x wall, {c:.2}x CPU (goal: 1.5x wall)")?;
        }
        Ok(())
    }
}
