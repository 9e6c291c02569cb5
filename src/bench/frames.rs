//! `blockworld bench frames`: the Bologna thesis's Tables 5.2/5.3 measured the way
//! the thesis measured them.
//!
//! The thesis's N is the edge of a cube of N³ loaded chunks; its game loads
//! at most 2 chunks per frame, and the timed step walks all N³ slots every
//! frame, so its tables are a cost per frame, judged against the 16.7 ms
//! budget of 60 Hz. Here the timed step is this project's streaming update
//! (take in generated chunks, light and mesh hand-off, new requests,
//! uploads) while the range for N loads from cold, in a loop paced at
//! 60 Hz with nothing drawn. Each N runs twice: with the thesis's throttle
//! (2 chunks taken in per frame) and with this project's own budget.
//!
//! This project streams a disc of columns around the player, at most 21
//! chunks tall, not a cube: the range for N is render distance N/2, and the
//! report gives the chunks it holds beside N³.

use super::session::{HeadlessSession, SessionOptions};
use crate::backend::service::Balance;
use crate::backend::{Device, Engine};
use crate::bench::percentile;
use crate::game::frame_stats::CpuClock;
use crate::game::spawn::spawn_point;
use crate::game::streaming::Budget;
use crate::render::gpu::Gpu;
use crate::world::coords::ChunkPos;
use crate::worldgen::WorldGen;
use anyhow::{bail, Result};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The thesis's game: at most this many chunks loaded per frame.
pub const THESIS_CHUNKS_PER_FRAME: usize = 2;

const FRAME: Duration = Duration::from_nanos(16_666_667);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Throttle {
    /// 2 chunks taken in per frame, as in the Bologna thesis's game.
    Thesis,
    /// This project's budget: every generated chunk is taken in; uploads
    /// are bounded by bytes and time.
    Own,
}

#[derive(Clone, Debug, Serialize)]
pub struct FramesRow {
    /// Where and on what it ran.
    pub machine: super::machine::Machine,
    pub n: u32,
    /// N³: the thesis's world for this N.
    pub thesis_chunks: u64,
    pub render_distance: i32,
    /// Chunks in this project's range for N (a disc, at most 21 tall).
    pub chunks_in_range: usize,
    pub throttle: Throttle,
    pub backend: String,
    pub frames: usize,
    /// The range was complete (generated and meshed) before the frames ran out.
    pub complete: bool,
    pub chunks_taken_in: u64,
    /// The update's CPU time on the game thread.
    pub update_ms_mean: f64,
    pub update_ms_p99: f64,
    pub update_ms_max: f64,
    /// Its wall time: with the time the game thread waited for a core the
    /// workers held.
    pub update_wall_ms_mean: f64,
    pub update_wall_ms_p99: f64,
    pub update_wall_ms_max: f64,
    pub balance: Balance,
}

pub struct FramesOptions {
    pub sizes: Vec<u32>,
    /// Frames per run, at most; a run ends early when its range is complete.
    pub frames: usize,
    pub engine: Engine,
    pub gpu_device: Device,
}

/// One run per size and throttle; `world` makes a fresh world each time
/// (a cold heightmap cache, as the thesis measured).
pub fn run(world: impl Fn() -> Result<Arc<WorldGen>>, opts: &FramesOptions) -> Result<Vec<FramesRow>> {
    if opts.frames == 0 {
        bail!("--frames must be at least 1");
    }
    let gpu = Gpu::headless()?;
    let mut rows = Vec::new();
    for &n in &opts.sizes {
        if !(4..=64).contains(&n) {
            bail!("N = {n}: sizes must be between 4 and 64 (render distance N/2 up to 32)");
        }
        for throttle in [Throttle::Thesis, Throttle::Own] {
            rows.push(run_one(world()?, &gpu, n, throttle, opts)?);
        }
    }
    Ok(rows)
}

fn run_one(world: Arc<WorldGen>, gpu: &Gpu, n: u32, throttle: Throttle, opts: &FramesOptions) -> Result<FramesRow> {
    let spawn = spawn_point(&world);
    let centre = ChunkPos::containing([spawn.x as i64, spawn.y as i64, spawn.z as i64]);
    let r = (n / 2) as i32;
    let mut session = HeadlessSession::start(gpu, world, SessionOptions::new(opts.engine, opts.gpu_device.clone(), r))?;
    let budget = match throttle {
        Throttle::Thesis => Budget { max_arrivals: THESIS_CHUNKS_PER_FRAME, ..Budget::default() },
        Throttle::Own => Budget::default(),
    };
    let (mut times, mut walls) = (Vec::with_capacity(opts.frames), Vec::with_capacity(opts.frames));
    let mut complete = false;
    while times.len() < opts.frames {
        let start = Instant::now();
        let cpu = CpuClock::now();
        session.update(centre, budget);
        times.push(cpu.ms());
        walls.push(start.elapsed().as_secs_f64() * 1e3);
        // The first frame only sets the range up.
        if times.len() > 1 && session.streamer.is_complete() {
            complete = true;
            break;
        }
        gpu.flush_uploads();
        if let Some(rest) = FRAME.checked_sub(start.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    let streamer = &session.streamer;
    let (mean, p99, max) = summary(&times);
    let (wall_mean, wall_p99, wall_max) = summary(&walls);
    Ok(FramesRow {
        machine: super::machine::Machine::here(),
        n,
        thesis_chunks: (n as u64).pow(3),
        render_distance: r,
        chunks_in_range: streamer.counts().wanted,
        throttle,
        backend: streamer.backend_label(),
        frames: times.len(),
        complete,
        chunks_taken_in: streamer.generated_total(),
        update_ms_mean: mean,
        update_ms_p99: p99,
        update_ms_max: max,
        update_wall_ms_mean: wall_mean,
        update_wall_ms_p99: wall_p99,
        update_wall_ms_max: wall_max,
        balance: streamer.balance(),
    })
}

/// Mean, p99 and max of a non-empty sample.
fn summary(times: &[f64]) -> (f64, f64, f64) {
    let mut sorted = times.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    (
        times.iter().sum::<f64>() / times.len() as f64,
        percentile(&sorted, 0.99),
        sorted.last().copied().unwrap_or(f64::NAN),
    )
}

impl fmt::Display for FramesRow {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let r = self;
        writeln!(
            f,
            "N {:>2} ({:>6} chunks; here {:>6} in range, r {:>2}) {:<6} {:<40.40} {:>4} frames{}: update ms of CPU mean {:.3} / p99 {:.3} / max {:.3}; wall p99 {:.3}",
            r.n,
            r.thesis_chunks,
            r.chunks_in_range,
            r.render_distance,
            if r.throttle == Throttle::Thesis { "2/frame" } else { "own" },
            r.backend,
            r.frames,
            if r.complete { " (complete)" } else { "" },
            r.update_ms_mean,
            r.update_ms_p99,
            r.update_ms_max,
            r.update_wall_ms_p99
        )
    }
}
