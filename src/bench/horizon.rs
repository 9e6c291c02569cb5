//! `blockworld bench view --horizon METRES`: what far terrain costs.
//!
//! - **Cold start:** from nothing (a new world, streamer, renderer and far
//!   workers, all started at once as the game starts them), the time until
//!   the chunk range is meshed and until every far tile is drawn, with the
//!   process's CPU time over it. Medians over the runs.
//! - **The clipmap:** tiles and cells per level, and the quads drawn.
//! - **Memory:** resident memory after the chunk range alone, then after
//!   the far terrain is added in the same process; and the far pages' own
//!   bytes.
//! - **Frames:** the loaded view drawn from four headings with the horizon
//!   and without it: the renderer's CPU time per frame (choosing and
//!   encoding), and the whole frame on this adapter.

use super::session::{HeadlessSession, SessionOptions, PATIENCE};
use super::view::process_cpu_ms;
use super::{median, rss};
use crate::backend::{Device, Engine};
use crate::far::clipmap::{cell_blocks, FarRange, TileKey, MAX_LEVELS, TILE_CELLS};
use crate::far::mesh::{self, Colours};
use crate::far::tile;
use crate::game::far_view::{self, FarView};
use crate::game::spawn::spawn_point;
use crate::render::camera::{Camera, DEFAULT_FOV_DEGREES};
use crate::render::gpu::Gpu;
use crate::render::offscreen::OffscreenTarget;
use crate::render::world_renderer::ViewParams;
use crate::world::coords::ChunkPos;
use crate::worldgen::WorldGen;
use anyhow::{bail, Result};
use glam::DVec3;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

pub struct HorizonOptions {
    pub world: Arc<WorldGen>,
    pub render_distance: i32,
    pub horizon: u32,
    pub runs: usize,
    pub engine: Engine,
    pub gpu_device: Device,
}

#[derive(Clone, Debug, Serialize)]
pub struct ColdRun {
    /// Until every chunk in range is meshed.
    pub chunks_ms: f64,
    /// Until every far tile is drawn as well: the complete horizon.
    pub complete_ms: f64,
    pub cpu_ms: f64,
    /// Far tiles whose columns the generation device made (0 on the CPU).
    pub tiles_from_device: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Level {
    pub level: u8,
    pub cell_blocks: i64,
    pub tiles: usize,
    pub cells: usize,
    pub quads: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Memory {
    /// Resident MiB with the chunk range loaded, then with the far terrain too.
    pub chunks_mib: Option<f64>,
    pub with_far_mib: Option<f64>,
    /// Vertex bytes of the far quads, and the far pages holding them.
    pub far_quad_mib: f64,
    pub far_pages_mib: f64,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Frames {
    /// The renderer's CPU time a frame (choosing and encoding), ms.
    pub cpu_ms_median: f64,
    pub cpu_ms_p99: f64,
    /// The whole frame, waited for, ms.
    pub frame_ms_median: f64,
    pub far_quads_drawn: u64,
    /// Far quads in view left out as hidden behind nearer far terrain.
    pub far_quads_occluded: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct HorizonReport {
    /// Where and on what it ran.
    pub machine: super::machine::Machine,
    pub preset: String,
    pub seed: u64,
    pub render_distance: i32,
    pub horizon: u32,
    pub far_threads: usize,
    pub backend: String,
    pub adapter: String,
    pub runs: Vec<ColdRun>,
    pub complete_ms_median: f64,
    pub chunks_ms_median: f64,
    pub levels: Vec<Level>,
    pub tiles: usize,
    pub cells: usize,
    pub quads: u64,
    /// Far cells made (generated and meshed) a second per worker thread
    /// over the cold runs, while the chunks load beside them.
    pub cells_per_second_per_thread: f64,
    /// The same on one thread with nothing else running.
    pub cells_per_second_alone: f64,
    pub memory: Memory,
    pub with_horizon: Frames,
    /// The same horizon drawn without leaving out hidden far tiles.
    pub with_horizon_unoccluded: Frames,
    pub without_horizon: Frames,
}

const FRAME_SIZE: (u32, u32) = (1280, 720);
const HEADINGS: [f64; 4] = [35.0, 125.0, 215.0, 305.0];
const FRAMES: usize = 8;

/// Far tiles made (generated and meshed) on one CPU thread: the tiles of
/// an 8 km horizon around the origin, median of `repeat` runs. The column
/// stage alone, per engine, is [`FarCellFigures`].
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FarTileFigures {
    pub tiles: usize,
    pub cells: usize,
    pub cells_per_second_one_thread: f64,
    pub ns_per_cell: f64,
}

/// The tiles both far figures of `bench gen` time: an 8 km horizon around
/// the origin.
pub fn bench_tiles() -> Vec<TileKey> {
    FarRange { eye: [0, 0], horizon: 8000 }.tiles()
}

/// The column stage of far tiles (each cell's ground height and biome,
/// `ChunkBackend::far_cells`) on one engine, whole requests for
/// [`bench_tiles`], median of `repeat`: the part a device can take.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FarCellFigures {
    pub tiles: usize,
    pub cells: usize,
    pub ms: f64,
    pub cells_per_second: f64,
    /// Divided by the engine's CPU threads (CPU engines only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells_per_second_per_thread: Option<f64>,
    /// Kernel time alone (device engines: CUDA events on a GPU and under
    /// the driver stand-in; wall time when emulated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_ms: Option<f64>,
}

pub fn far_cell_figures(
    backend: &dyn crate::backend::ChunkBackend,
    threads: Option<usize>,
    repeat: usize,
) -> Result<FarCellFigures, crate::backend::BackendError> {
    let tiles = bench_tiles();
    let cells = tiles.len() * TILE_CELLS * TILE_CELLS;
    let (mut wall, mut kernel) = (Vec::new(), Vec::new());
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        std::hint::black_box(backend.far_cells(&tiles)?);
        wall.push(start.elapsed().as_secs_f64() * 1e3);
        kernel.extend(backend.last_timings().map(|t| t.kernel_ms));
    }
    let ms = median(wall);
    let per_second = cells as f64 / (ms / 1e3);
    Ok(FarCellFigures {
        tiles: tiles.len(),
        cells,
        ms,
        cells_per_second: per_second,
        cells_per_second_per_thread: threads.map(|t| per_second / t.max(1) as f64),
        kernel_ms: (!kernel.is_empty()).then(|| median(kernel)),
    })
}

pub fn far_tile_figures(world: &WorldGen, repeat: usize) -> FarTileFigures {
    let tiles = bench_tiles();
    let colours = Colours::new();
    let cells = tiles.len() * TILE_CELLS * TILE_CELLS;
    let seconds = median(
        (0..repeat.max(1))
            .map(|_| {
                let start = Instant::now();
                for &t in &tiles {
                    std::hint::black_box(mesh::mesh(&tile::generate(world, t), &colours));
                }
                start.elapsed().as_secs_f64()
            })
            .collect(),
    );
    FarTileFigures {
        tiles: tiles.len(),
        cells,
        cells_per_second_one_thread: cells as f64 / seconds,
        ns_per_cell: seconds * 1e9 / cells as f64,
    }
}

fn eye_of(world: &WorldGen) -> DVec3 {
    spawn_point(world) + DVec3::new(0.0, 24.0, 0.0)
}

pub fn run(opts: &HorizonOptions) -> Result<HorizonReport> {
    if opts.runs == 0 {
        bail!("--runs must be at least 1");
    }
    if opts.horizon == 0 {
        bail!("--horizon must be above 0 for the horizon benchmark");
    }
    let gpu = Gpu::headless()?;
    let threads = far_view::default_threads();
    let mut runs = Vec::new();
    let mut backend = String::new();
    let mut busy_us = 0.0;
    for _ in 0..opts.runs {
        let (run, label, busy) = cold_run(&gpu, opts, threads)?;
        runs.push(run);
        backend = label;
        busy_us += busy;
    }
    let eye = eye_of(&opts.world);
    let tiles = FarRange { eye: [eye.x.floor() as i64, eye.z.floor() as i64], horizon: opts.horizon }.tiles();
    let alone = Instant::now();
    let colours = Colours::new();
    for &t in &tiles {
        std::hint::black_box(mesh::mesh(&tile::generate(&opts.world, t), &colours));
    }
    let alone_s = alone.elapsed().as_secs_f64();
    let (memory, quads_per_level, frames) = loaded_view(&gpu, opts, threads)?;
    let levels: Vec<Level> = (0..MAX_LEVELS)
        .filter_map(|level| {
            let n = tiles.iter().filter(|t| t.level == level).count();
            (n > 0).then(|| Level {
                level,
                cell_blocks: cell_blocks(level),
                tiles: n,
                cells: n * TILE_CELLS * TILE_CELLS,
                quads: quads_per_level[level as usize],
            })
        })
        .collect();
    let cells = tiles.len() * TILE_CELLS * TILE_CELLS;
    Ok(HorizonReport {
        machine: super::machine::Machine::here(),
        preset: opts.world.preset.name.clone(),
        seed: opts.world.seed,
        render_distance: opts.render_distance,
        horizon: opts.horizon,
        far_threads: threads,
        backend,
        adapter: gpu.adapter_name(),
        complete_ms_median: median(runs.iter().map(|r| r.complete_ms).collect()),
        chunks_ms_median: median(runs.iter().map(|r| r.chunks_ms).collect()),
        runs,
        tiles: tiles.len(),
        cells,
        quads: levels.iter().map(|l| l.quads).sum(),
        levels,
        cells_per_second_per_thread: (cells * opts.runs) as f64 / (busy_us / 1e6),
        cells_per_second_alone: cells as f64 / alone_s,
        memory,
        with_horizon: frames[0],
        with_horizon_unoccluded: frames[1],
        without_horizon: frames[2],
    })
}

fn session<'g>(gpu: &'g Gpu, opts: &HorizonOptions) -> Result<(HeadlessSession<'g>, DVec3, ChunkPos)> {
    let world = Arc::new(WorldGen::new(opts.world.preset.clone(), opts.world.seed));
    let eye = eye_of(&world);
    let centre = ChunkPos::containing([eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64]);
    let s = HeadlessSession::start(
        gpu,
        world,
        SessionOptions::new(opts.engine, opts.gpu_device.clone(), opts.render_distance),
    )?;
    Ok((s, eye, centre))
}

/// One cold start with chunks and far terrain together; what the far
/// workers were busy for, in µs.
fn cold_run(gpu: &Gpu, opts: &HorizonOptions, threads: usize) -> Result<(ColdRun, String, f64)> {
    let (mut s, eye, centre) = session(gpu, opts)?;
    let (start, cpu) = (Instant::now(), process_cpu_ms());
    let mut far = FarView::new(s.streamer.world().clone(), opts.horizon, threads);
    s.update_far(&mut far, eye);
    s.load(centre, PATIENCE)?;
    let chunks_ms = start.elapsed().as_secs_f64() * 1e3;
    s.load_far(&mut far, eye, start + PATIENCE)?;
    let run = ColdRun {
        chunks_ms,
        complete_ms: start.elapsed().as_secs_f64() * 1e3,
        cpu_ms: process_cpu_ms() - cpu,
        tiles_from_device: far.counts().tiles_from_source,
    };
    Ok((run, s.streamer.backend_label(), far.counts().busy_us))
}

/// The chunk range loaded, then far terrain added: memory, quads per
/// level, and frames with the horizon and without it.
fn loaded_view(gpu: &Gpu, opts: &HorizonOptions, threads: usize) -> Result<(Memory, Vec<u64>, [Frames; 3])> {
    let (mut s, eye, centre) = session(gpu, opts)?;
    s.load(centre, PATIENCE)?;
    gpu.flush_uploads();
    let chunks_mib = rss::resident_mib();
    let mut far = FarView::new(s.streamer.world().clone(), opts.horizon, threads);
    s.load_far(&mut far, eye, Instant::now() + PATIENCE)?;
    let renderer = &s.renderer;
    let memory = Memory {
        chunks_mib,
        with_far_mib: rss::resident_mib(),
        far_quad_mib: renderer.far.gpu_bytes as f64 / (1 << 20) as f64,
        far_pages_mib: renderer.far.arena_bytes() as f64 / (1 << 20) as f64,
    };
    let quads = renderer.far.quads_per_level();
    let target = OffscreenTarget::new(gpu, FRAME_SIZE);
    let mut frames = [Frames::default(); 3];
    for (k, (horizon, occlusion)) in [(opts.horizon, true), (opts.horizon, false), (0, true)].into_iter().enumerate() {
        s.renderer.far.occlusion = occlusion;
        let view = ViewParams::new(opts.render_distance, horizon, 0.5, 0.0);
        let (mut cpu, mut whole) = (Vec::new(), Vec::new());
        for yaw in HEADINGS {
            let camera = Camera::for_view(eye, yaw, -5.0, DEFAULT_FOV_DEGREES, FRAME_SIZE, opts.render_distance);
            for _ in 0..FRAMES {
                let (stats, ms) = s.draw(&target, &camera, &view, true)?;
                cpu.push((stats.cull_us + stats.encode_us) / 1e3);
                whole.push(ms);
                frames[k].far_quads_drawn = frames[k].far_quads_drawn.max(stats.far_quads_drawn);
                frames[k].far_quads_occluded = frames[k].far_quads_occluded.max(stats.far_quads_occluded);
            }
        }
        cpu.sort_by(f64::total_cmp);
        frames[k].cpu_ms_p99 = cpu[((cpu.len() - 1) as f64 * 0.99).round() as usize];
        frames[k].cpu_ms_median = median(cpu);
        frames[k].frame_ms_median = median(whole);
    }
    Ok((memory, quads, frames))
}

impl fmt::Display for HorizonReport {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mib = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.0} MiB"));
        writeln!(
            f,
            "horizon {} m at render distance {} ({} seed {}, {}, {} far thread(s), {})",
            self.horizon, self.render_distance, self.preset, self.seed, self.backend, self.far_threads, self.adapter
        )?;
        writeln!(
            f,
            "  cold start, median of {}: chunks meshed {:.0} ms, complete horizon {:.0} ms",
            self.runs.len(),
            self.chunks_ms_median,
            self.complete_ms_median
        )?;
        for r in &self.runs {
            writeln!(
                f,
                "    run: chunks {:.0} ms, complete {:.0} ms, CPU {:.0} ms, {} far tiles from the device",
                r.chunks_ms, r.complete_ms, r.cpu_ms, r.tiles_from_device
            )?;
        }
        writeln!(f, "  level  cell  tiles    cells    quads")?;
        for l in &self.levels {
            writeln!(f, "  {:>5} {:>4} m {:>6} {:>8} {:>8}", l.level, l.cell_blocks, l.tiles, l.cells, l.quads)?;
        }
        writeln!(
            f,
            "  total: {} tiles, {} cells, {:.2} M quads; {:.2} M cells/s per far thread beside the chunks, {:.2} M alone",
            self.tiles,
            self.cells,
            self.quads as f64 / 1e6,
            self.cells_per_second_per_thread / 1e6,
            self.cells_per_second_alone / 1e6
        )?;
        let m = &self.memory;
        let added = match (m.chunks_mib, m.with_far_mib) {
            (Some(a), Some(b)) => format!("{:.0} MiB", b - a),
            _ => "n/a".to_string(),
        };
        writeln!(
            f,
            "  memory: {} with the chunks, {} with far terrain too (+{added}); far quads {:.1} MiB in {:.1} MiB of pages",
            mib(m.chunks_mib),
            mib(m.with_far_mib),
            m.far_quad_mib,
            m.far_pages_mib
        )?;
        let frames = [
            ("with the horizon", &self.with_horizon),
            ("with it, hidden tiles drawn", &self.with_horizon_unoccluded),
            ("without", &self.without_horizon),
        ];
        for (name, fr) in frames {
            writeln!(
                f,
                "  frames {name}: renderer CPU {:.2} ms median, {:.2} ms p99; whole frame {:.1} ms; {} far quads drawn, {} hidden",
                fr.cpu_ms_median, fr.cpu_ms_p99, fr.frame_ms_median, fr.far_quads_drawn, fr.far_quads_occluded
            )?;
        }
        Ok(())
    }
}
