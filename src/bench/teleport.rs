//! `blockworld bench teleport`: what a player who jumps to a new place
//! waits for. For each backend and render distance, a new world (empty
//! column cache) and a new streamer open at the first place; then the eye
//! jumps to each place in turn, each far enough from the last that nothing
//! of it is held, and streams at 60 Hz with the game's own budget until the
//! view there is complete. Each jump reports its time, its frames, and how
//! long its chunks waited in each stage (generate, light, queue for a
//! mesher, mesh, upload).
//!
//! Same world, same places, every backend in one run: the rows compare
//! like with like.

use super::flight::{stage_spreads, Spread};
use super::session::{HeadlessSession, SessionOptions};
use crate::backend::{Device, Engine};
use crate::game::streaming::Budget;
use crate::render::gpu::Gpu;
use crate::world::coords::{column_index, ChunkPos, ColumnPos};
use crate::worldgen::WorldGen;
use anyhow::{bail, Result};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

const FRAME: Duration = Duration::from_nanos(16_666_667);

/// Places a few kilometres apart in every direction: no two share a
/// chunk at render distance 32.
pub const DEFAULT_PLACES: [[i64; 2]; 4] = [[0, 0], [12_000, 3_000], [-9_000, 14_000], [4_000, -20_000]];

pub struct TeleportOptions {
    pub render_distances: Vec<i32>,
    /// Block columns X, Z; the eye stands two blocks above the ground there.
    pub places: Vec<[i64; 2]>,
    pub engine: Engine,
    pub gpu_device: Device,
    /// Give up on a jump after this long.
    pub timeout: Duration,
}

#[derive(Clone, Debug, Serialize)]
pub struct TeleportRow {
    pub machine: super::machine::Machine,
    pub backend: String,
    pub render_distance: i32,
    /// The place's column X, Z.
    pub place: [i64; 2],
    /// Chunks in range there.
    pub chunks: usize,
    /// Whether the view was complete before the timeout.
    pub complete: bool,
    /// From the jump to the last mesh of the range on the GPU.
    pub ms: f64,
    pub frames: usize,
    /// Each stage's wait per chunk with a mesh, in [`ReadyStages::NAMES`]
    /// order.
    ///
    /// [`ReadyStages::NAMES`]: crate::game::streaming::ReadyStages::NAMES
    pub stages_ms: Vec<(&'static str, Spread)>,
    /// The lanes as the jump ended: throughput and α where two run.
    pub balance: crate::backend::service::Balance,
}

/// The eye's chunk at column (x, z): two blocks above the ground.
fn eye_chunk(world: &WorldGen, [x, z]: [i64; 2]) -> ChunkPos {
    let column = ColumnPos { x: x.div_euclid(32) as i32, z: z.div_euclid(32) as i32 };
    let data = world.column(column);
    let h = data.heightmap.heights[column_index(x.rem_euclid(32) as usize, z.rem_euclid(32) as usize)];
    let y = (h as i64).max(world.params.surface.water_level as i64) + 2;
    ChunkPos::containing([x, y, z])
}

pub fn run(world: impl Fn() -> Result<Arc<WorldGen>>, opts: &TeleportOptions) -> Result<Vec<TeleportRow>> {
    if opts.places.is_empty() {
        bail!("bench teleport needs at least one place");
    }
    let gpu = Gpu::headless()?;
    let mut rows = Vec::new();
    for &r in &opts.render_distances {
        let world = world()?;
        let eyes: Vec<ChunkPos> = opts.places.iter().map(|&p| eye_chunk(&world, p)).collect();
        let session_opts = SessionOptions::new(opts.engine, opts.gpu_device.clone(), r);
        let mut session = HeadlessSession::start(&gpu, world, session_opts)?;
        for (&place, &centre) in opts.places.iter().zip(&eyes) {
            rows.push(jump(&gpu, &mut session, place, centre, opts.timeout)?);
        }
    }
    Ok(rows)
}

/// Streams around `centre` at 60 Hz until its view is complete.
fn jump(
    gpu: &Gpu,
    session: &mut HeadlessSession,
    place: [i64; 2],
    centre: ChunkPos,
    timeout: Duration,
) -> Result<TeleportRow> {
    session.streamer.ready_latencies().clear();
    let start = Instant::now();
    let mut frames = 0;
    let complete = loop {
        let frame = Instant::now();
        session.update(centre, Budget::default());
        gpu.flush_uploads();
        frames += 1;
        // The first frame only sets the range up.
        if frames > 1 && session.streamer.is_complete() {
            break true;
        }
        if start.elapsed() > timeout {
            break false;
        }
        if let Some(rest) = FRAME.checked_sub(frame.elapsed()) {
            std::thread::sleep(rest);
        }
    };
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let streamer = &mut session.streamer;
    let chunks = streamer.counts().wanted;
    let ready: Vec<_> = streamer.ready_latencies().iter().map(|(s, _)| *s).collect();
    let stages_ms = stage_spreads(&ready.iter().collect::<Vec<_>>());
    Ok(TeleportRow {
        machine: super::machine::Machine::here(),
        backend: streamer.backend_label(),
        render_distance: streamer.render_distance(),
        place,
        chunks,
        complete,
        ms,
        frames,
        stages_ms,
        balance: streamer.balance(),
    })
}

impl fmt::Display for TeleportRow {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let r = self;
        let done = if r.complete { "complete" } else { "NOT complete" };
        write!(
            f,
            "r {:>2} at {:>7},{:<7} {:<28} {:>6} chunks: {done} in {:>7.0} ms, {:>4} frames; median wait ms",
            r.render_distance, r.place[0], r.place[1], r.backend, r.chunks, r.ms, r.frames
        )?;
        for (name, s) in &r.stages_ms {
            write!(f, " {name} {:.0}", s.median)?;
        }
        if let Some(a) = r.balance.alpha {
            write!(f, "; α {a:.2}")?;
        }
        writeln!(f)
    }
}
