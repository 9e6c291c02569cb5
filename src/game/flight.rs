//! `blockworld bench flight`: a fixed, seeded camera path flown offscreen,
//! like the UFMG paper's 300-second path. The GPU's value is in removing stutter,
//! so the worst frames matter more than the mean.
//!
//! Phase 1: the camera waits at the start until everything in range is
//! ready (time to the first complete view). Phase 2: it flies for
//! `--seconds` of wall-clock time along the path (east at 25 blocks/s,
//! weaving and bobbing, 30 blocks above the spawn height) while chunks
//! stream in; every frame runs the streamer, renders and waits for the GPU.
//! Resident memory is sampled as it goes: chunks left behind must be freed,
//! so a long flight's memory stays flat.

use super::engine::Switch;
use super::frame_stats::CpuClock;
use super::headless::load_all;
use super::spawn::spawn_point;
use super::streaming::rings::within;
use super::streaming::{Budget, ChunkStreamer};
use super::view;
use crate::backend::service::Balance;
use crate::backend::Engine;
use crate::bench::{percentile, rss};
use crate::render::camera::{Camera, DEFAULT_FOV_DEGREES};
use crate::render::gpu::Gpu;
use crate::render::offscreen::{self, OffscreenTarget};
use crate::render::world_renderer::{ViewParams, WorldRenderer};
use crate::world::coords::ChunkPos;
use crate::worldgen::WorldGen;
use anyhow::Result;
use glam::DVec3;
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Serialize)]
pub struct FlightReport {
    /// The configuration, as the UFMG paper's table names its rows.
    pub row: String,
    pub backend: String,
    pub adapter: String,
    pub seconds: f64,
    pub render_distance: i32,
    pub size: (u32, u32),
    pub frames: usize,
    pub frame_ms_min: f64,
    pub frame_ms_median: f64,
    pub frame_ms_p99: f64,
    pub frame_ms_max: f64,
    /// The UFMG paper's figures: the lowest frame rate (the longest frame), the
    /// mean frame rate (frames over seconds), and the 1 % low (the frame
    /// rate of the slowest 1 % of frames, averaged over their time).
    pub fps_min: f64,
    pub fps_1pct_low: f64,
    pub fps_mean: f64,
    /// The longest frame over the median frame, whole and CPU part.
    pub frame_max_over_median: f64,
    pub cpu_frame_max_over_median: f64,
    /// The part of each frame this project controls: streaming update and
    /// uploads, culling, encoding and submission, without the wait for the
    /// GPU (software rasterisation dominates the whole frame under lavapipe),
    /// as CPU time of the game thread (wall time where the platform has no
    /// per-thread clock).
    pub cpu_frame_ms_median: f64,
    pub cpu_frame_ms_p99: f64,
    pub cpu_frame_ms_max: f64,
    /// The same part in wall time: with it, the time the game thread
    /// waited for a core (on two cores, the software rasteriser's and the
    /// workers' threads take it away for milliseconds at a time).
    pub cpu_frame_wall_ms_median: f64,
    pub cpu_frame_wall_ms_p99: f64,
    pub cpu_frame_wall_ms_max: f64,
    /// Of the CPU part: the streaming update (chunks and light taken in,
    /// requests, mesh hand-off, uploads), CPU time.
    pub update_ms_median: f64,
    pub update_ms_p99: f64,
    pub update_ms_max: f64,
    pub time_to_first_complete_view_ms: f64,
    /// The near view: chunks within this many chunks of the eye's (half
    /// the render distance), checked after every frame's update, outside
    /// the timing. Flying must keep it complete.
    pub near_view_distance: i32,
    /// Frames after whose update the near view had a hole (a chunk with
    /// neither a mesh nor a known empty one), and the most holes in one
    /// frame.
    pub frames_near_view_with_holes: usize,
    pub near_view_holes_max: usize,
    /// Holes in the whole range after a frame's update: median and most
    /// over the flight (the edge a moving eye streams into).
    pub range_holes_median: f64,
    pub range_holes_max: usize,
    /// The closest any hole came to the eye's chunk over the flight, in
    /// chunks (straight-line distance between chunk positions; None: there
    /// was none). The fog ends at the render distance.
    pub nearest_hole_chunks: Option<f64>,
    pub chunk_ready_latency_ms_median: f64,
    pub chunk_ready_latency_ms_p99: f64,
    pub chunks_generated: u64,
    pub distance_flown_blocks: f64,
    /// Resident memory (MiB) once the first view is complete.
    pub rss_mib_first_view: Option<f64>,
    /// Mesh jobs sent to the mesher threads until the first view is
    /// complete (more than the chunks with a mesh when light changes a
    /// chunk's mesh after it was made).
    pub mesh_jobs_first_view: u64,
    /// Dense light held at the first view (MiB).
    pub light_mib_first_view: f64,
    /// Resident memory two minutes into the flight (runs of 120 s or more).
    pub rss_mib_at_2_min: Option<f64>,
    /// Resident memory when the flight ends.
    pub rss_mib_final: Option<f64>,
    /// The most resident memory held at any point of the run.
    pub rss_mib_peak: Option<f64>,
    /// What is held at the end: loaded chunks and their data, meshes and
    /// their vertex bytes (in system memory on a software renderer).
    pub chunks_loaded_final: usize,
    pub chunk_data_mib_final: f64,
    pub meshes_final: usize,
    pub mesh_mib_final: f64,
    /// One sample every 10 s: memory must stay flat, and what is held
    /// says where it went.
    pub memory_samples: Vec<MemorySample>,
    /// How the CPU and the device shared generation at the end (α, and
    /// the chunks each lane made over the whole run).
    pub balance: Balance,
    /// The device's share when it was fixed by hand.
    pub fixed_alpha: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MemorySample {
    /// Seconds into the flight.
    pub t: f64,
    pub rss_mib: f64,
    pub chunks_loaded: usize,
    pub chunk_data_mib: f64,
    pub mesh_mib: f64,
    /// Vertex memory held in mesh pages, used or not (`mesh_mib` plus holes).
    pub mesh_pages_mib: f64,
    /// Chunks queued for meshing, on the meshers or waiting for upload.
    pub mesh_backlog: usize,
    /// Chunk requests waiting in the generation service.
    pub generation_queue: usize,
}

/// When memory is sampled during the flight, in seconds.
const RSS_EVERY_S: f64 = 10.0;
const TWO_MINUTES_S: f64 = 120.0;
const MIB: f64 = 1024.0 * 1024.0;

/// How far the near view reaches: half the render distance, at least one
/// chunk. The fog is thin there, so a hole in it is what a player notices.
pub fn near_view_distance(render_distance: i32) -> i32 {
    (render_distance / 2).max(1)
}

/// Camera position and heading at time `t` seconds along the path.
pub fn path(start: DVec3, t: f64) -> (DVec3, f64, f64) {
    let pos = start + DVec3::new(25.0 * t, 30.0 + 8.0 * (t / 5.0).sin(), 60.0 * (t / 7.0).sin());
    let vx: f64 = 25.0;
    let vz = 60.0 / 7.0 * (t / 7.0).cos();
    let yaw = vx.atan2(vz).to_degrees();
    (pos, yaw, -12.0)
}

/// One configuration of the UFMG paper's table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    pub name: &'static str,
    pub engine: Engine,
    pub serial_cpu: bool,
    pub alpha: Option<f64>,
}

/// The UFMG paper's four configurations, where α was set by hand to 0.5, and
/// this project's automatic balance.
pub const UFMG_ROWS: [Row; 5] = [
    Row { name: "1 CPU thread", engine: Engine::Cpu, serial_cpu: true, alpha: None },
    Row { name: "1 CPU thread + GPU (α = 0.5)", engine: Engine::Hybrid, serial_cpu: true, alpha: Some(0.5) },
    Row { name: "all CPU threads", engine: Engine::Cpu, serial_cpu: false, alpha: None },
    Row { name: "all CPU threads + GPU (α = 0.5)", engine: Engine::Hybrid, serial_cpu: false, alpha: Some(0.5) },
    Row { name: "hybrid, automatic α", engine: Engine::Hybrid, serial_cpu: false, alpha: None },
];

pub struct FlightOptions {
    /// The row's name in the report.
    pub row: String,
    pub seconds: f64,
    pub render_distance: i32,
    pub size: (u32, u32),
    pub engine: Engine,
    pub gpu_device: Engine,
    /// Generate on one CPU thread instead of the pool.
    pub serial_cpu: bool,
    /// A fixed device share (hybrid only); None: automatic.
    pub alpha: Option<f64>,
    /// 0..1, 0.5 is noon; time stands still during the flight.
    pub time_of_day: f64,
}

pub fn fly(world: Arc<WorldGen>, opts: &FlightOptions) -> Result<FlightReport> {
    let gpu = Gpu::headless()?;
    let mut renderer = WorldRenderer::new(&gpu, offscreen::FORMAT)?;
    let target = OffscreenTarget::new(&gpu, opts.size);
    let start = spawn_point(&world);
    let mut streamer = ChunkStreamer::new(world, opts.engine, opts.gpu_device, opts.render_distance);
    if opts.serial_cpu {
        streamer.use_serial_cpu();
    }
    streamer.fix_share(opts.alpha);
    if opts.engine.uses_device() {
        if let Switch::Unavailable(reason) = streamer.wait_for_engine(Duration::from_secs(600)) {
            anyhow::bail!("GPU unavailable: {reason}");
        }
    }
    let (p0, _, _) = path(start, 0.0);
    let centre = ChunkPos::containing([p0.x as i64, p0.y as i64, p0.z as i64]);
    let first_view = load_all(&mut streamer, centre, &gpu, &mut renderer, Duration::from_secs(600))?;
    streamer.ready_latencies().clear();
    let rss_first_view = rss::resident_mib();
    let mesh_jobs_first_view = streamer.mesh_jobs_sent();
    let light_mib_first_view = streamer.light_bytes() as f64 / (1 << 20) as f64;
    let mut samples = Vec::new();
    let mut rss_at_2_min = None;
    let generated_before = streamer.generated_total();

    let mut frames = Vec::new();
    let mut cpu_frames = Vec::new();
    let mut cpu_frames_wall = Vec::new();
    let mut updates = Vec::new();
    let near = near_view_distance(opts.render_distance);
    let mut near_holes = Vec::new();
    let mut range_holes = Vec::new();
    let mut nearest_hole = f64::INFINITY;
    let t0 = Instant::now();
    let mut last = p0;
    let mut flown = 0.0;
    while t0.elapsed().as_secs_f64() < opts.seconds {
        let frame_start = Instant::now();
        let cpu_start = CpuClock::now();
        let (eye, yaw, pitch) = path(start, t0.elapsed().as_secs_f64());
        flown += (eye - last).length();
        last = eye;
        let chunk = ChunkPos::containing([eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64]);
        let update_start = CpuClock::now();
        view::update(&mut streamer, chunk, Budget::default(), &gpu, &mut renderer);
        updates.push(update_start.ms());
        let camera = Camera::for_view(eye, yaw, pitch, DEFAULT_FOV_DEGREES, opts.size, opts.render_distance);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let view = ViewParams::new(opts.render_distance, opts.time_of_day as f32, t0.elapsed().as_secs_f32());
        renderer.render(&gpu, &mut encoder, &target.view, opts.size, &camera, &view);
        let index = gpu.queue.submit([encoder.finish()]);
        cpu_frames.push(cpu_start.ms());
        cpu_frames_wall.push(frame_start.elapsed().as_secs_f64() * 1e3);
        gpu.device
            .poll(wgpu::PollType::Wait { submission_index: Some(index), timeout: None })
            .map_err(|e| anyhow::anyhow!("waiting for the GPU: {e}"))?;
        frames.push(frame_start.elapsed().as_secs_f64() * 1e3);
        // One walk over the range gives all three figures.
        let (mut holes, mut in_near, mut nearest) = (0usize, 0usize, f64::INFINITY);
        for (dx, dy, dz) in streamer.holes() {
            holes += 1;
            in_near += within(ChunkPos::new(dx, dy, dz), ChunkPos::new(0, 0, 0), near) as usize;
            nearest = nearest.min(((dx * dx + dy * dy + dz * dz) as f64).sqrt());
        }
        near_holes.push(in_near);
        range_holes.push(holes as f64);
        nearest_hole = nearest_hole.min(nearest);
        let t = t0.elapsed().as_secs_f64();
        if t >= RSS_EVERY_S * (samples.len() + 1) as f64 {
            if let Some(rss_mib) = rss::resident_mib() {
                let counts = streamer.counts();
                samples.push(MemorySample {
                    t,
                    rss_mib,
                    chunks_loaded: counts.loaded,
                    chunk_data_mib: streamer.data_bytes() as f64 / MIB,
                    mesh_mib: renderer.gpu_bytes as f64 / MIB,
                    mesh_pages_mib: renderer.arena_bytes() as f64 / MIB,
                    mesh_backlog: counts.meshing,
                    generation_queue: counts.queued,
                });
            }
        }
        if rss_at_2_min.is_none() && t >= TWO_MINUTES_S {
            rss_at_2_min = rss::resident_mib();
        }
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let mut sorted = frames.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    cpu_frames.sort_by(|a, b| a.total_cmp(b));
    cpu_frames_wall.sort_by(|a, b| a.total_cmp(b));
    updates.sort_by(|a, b| a.total_cmp(b));
    let slowest = &sorted[sorted.len() - (sorted.len() / 100).max(1).min(sorted.len())..];
    let ratio = |s: &[f64]| s.last().copied().unwrap_or(f64::NAN) / percentile(s, 0.5);
    let mut lat: Vec<f64> = streamer.ready_latencies().iter().map(|d| d.as_secs_f64() * 1e3).collect();
    lat.sort_by(|a, b| a.total_cmp(b));
    Ok(FlightReport {
        row: opts.row.clone(),
        backend: streamer.backend_label(),
        adapter: gpu.adapter_name(),
        seconds: opts.seconds,
        render_distance: opts.render_distance,
        size: opts.size,
        frames: frames.len(),
        frame_ms_min: sorted.first().copied().unwrap_or(f64::NAN),
        frame_ms_median: percentile(&sorted, 0.5),
        frame_ms_p99: percentile(&sorted, 0.99),
        frame_ms_max: sorted.last().copied().unwrap_or(f64::NAN),
        fps_min: 1e3 / sorted.last().copied().unwrap_or(f64::NAN),
        fps_1pct_low: 1e3 * slowest.len() as f64 / slowest.iter().sum::<f64>(),
        fps_mean: frames.len() as f64 / elapsed,
        frame_max_over_median: ratio(&sorted),
        cpu_frame_max_over_median: ratio(&cpu_frames),
        cpu_frame_ms_median: percentile(&cpu_frames, 0.5),
        cpu_frame_ms_p99: percentile(&cpu_frames, 0.99),
        cpu_frame_ms_max: cpu_frames.last().copied().unwrap_or(f64::NAN),
        cpu_frame_wall_ms_median: percentile(&cpu_frames_wall, 0.5),
        cpu_frame_wall_ms_p99: percentile(&cpu_frames_wall, 0.99),
        cpu_frame_wall_ms_max: cpu_frames_wall.last().copied().unwrap_or(f64::NAN),
        update_ms_median: percentile(&updates, 0.5),
        update_ms_p99: percentile(&updates, 0.99),
        update_ms_max: updates.last().copied().unwrap_or(f64::NAN),
        time_to_first_complete_view_ms: first_view.as_secs_f64() * 1e3,
        near_view_distance: near,
        frames_near_view_with_holes: near_holes.iter().filter(|&&n| n > 0).count(),
        near_view_holes_max: near_holes.iter().copied().max().unwrap_or(0),
        nearest_hole_chunks: nearest_hole.is_finite().then_some(nearest_hole),
        range_holes_max: range_holes.iter().fold(0.0f64, |a, &b| a.max(b)) as usize,
        range_holes_median: {
            range_holes.sort_by(|a, b| a.total_cmp(b));
            percentile(&range_holes, 0.5)
        },
        mesh_jobs_first_view,
        light_mib_first_view,
        chunk_ready_latency_ms_median: percentile(&lat, 0.5),
        chunk_ready_latency_ms_p99: percentile(&lat, 0.99),
        chunks_generated: streamer.generated_total() - generated_before,
        distance_flown_blocks: flown,
        rss_mib_first_view: rss_first_view,
        rss_mib_at_2_min: rss_at_2_min,
        rss_mib_final: rss::resident_mib(),
        rss_mib_peak: rss::peak_resident_mib(),
        memory_samples: samples,
        chunks_loaded_final: streamer.counts().loaded,
        chunk_data_mib_final: streamer.data_bytes() as f64 / MIB,
        meshes_final: renderer.mesh_count(),
        mesh_mib_final: renderer.gpu_bytes as f64 / MIB,
        balance: streamer.balance(),
        fixed_alpha: opts.alpha,
    })
}
