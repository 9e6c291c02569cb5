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
//! so a long flight's memory stays flat. With sound, the game's sound work
//! runs each frame as in play (the mix rendered and discarded), so a flight
//! with and without it says what sound costs a frame.

use super::session::{HeadlessSession, SessionOptions};
use crate::audio::ambience::LAYERS;
use crate::audio::{Output, Volumes};
use crate::backend::service::Balance;
use crate::backend::{Device, Engine};
use crate::bench::{percentile, rss};
use crate::game::far_view::FarView;
use crate::game::frame_stats::CpuClock;
use crate::game::sound::GameSound;
use crate::game::spawn::spawn_point;
use crate::game::streaming::rings::{self, within};
use crate::game::streaming::{Budget, ChunkStreamer, ReadyStages, UpdateParts};
use crate::game::view::with_visibility;
use crate::render::camera::{Camera, DEFAULT_FOV_DEGREES};
use crate::render::gpu::Gpu;
use crate::render::offscreen::OffscreenTarget;
use crate::render::world_renderer::{DrawStats, ViewParams, WorldRenderer};
use crate::world::coords::ChunkPos;
use crate::worldgen::WorldGen;
use anyhow::Result;
use glam::DVec3;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

/// The lowest, median, 99th percentile and highest of some figures.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Spread {
    pub min: f64,
    pub median: f64,
    pub p99: f64,
    pub max: f64,
}

impl Spread {
    /// NaN throughout for none.
    pub fn of(mut v: Vec<f64>) -> Spread {
        v.sort_by(|a, b| a.total_cmp(b));
        let end = |x: Option<&f64>| x.copied().unwrap_or(f64::NAN);
        Spread { min: end(v.first()), median: percentile(&v, 0.5), p99: percentile(&v, 0.99), max: end(v.last()) }
    }

    /// The longest over the median.
    pub fn max_over_median(&self) -> f64 {
        self.max / self.median
    }
}

/// The UFMG paper's figures: the lowest frame rate (the longest frame),
/// the 1 % low (the frame rate of the slowest 1 % of frames, over their
/// time) and the mean (frames over seconds).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Fps {
    pub min: f64,
    pub low_1pct: f64,
    pub mean: f64,
}

/// The part of each frame this project controls: streaming update and
/// uploads, culling, encoding and submission, without the wait for the
/// GPU (software rasterisation dominates the whole frame under lavapipe).
#[derive(Clone, Debug, Serialize)]
pub struct CpuPart {
    /// The game thread's CPU time (wall time where the platform has no
    /// per-thread clock).
    pub cpu_ms: Spread,
    /// The same in wall time: with it, the time the game thread waited for
    /// a core (on two cores, the rasteriser's and the workers' threads).
    pub wall_ms: Spread,
    /// Of the CPU time: the streaming update and its uploads.
    pub update_ms: Spread,
    /// The update's parts ([`UpdateParts`], in the order they run; the
    /// uploads are in "hand_out").
    pub update_parts_ms: Vec<(&'static str, Spread)>,
}

/// What the frames drew: chunks with a mesh in range, drawn, and culled
/// by the frustum or by visibility (those two sampled every
/// [`SPLIT_EVERY`] frames outside the timing), quads and draw calls, and
/// the game thread's time choosing and encoding them.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Drawing {
    pub culling: bool,
    pub in_range: Spread,
    pub drawn: Spread,
    pub frustum_culled: Spread,
    pub visibility_culled: Spread,
    pub quads: Spread,
    pub draw_calls: Spread,
    pub cull_ms: Spread,
    pub encode_ms: Spread,
}

/// The near view the flight's goals are stated for, in chunks.
pub const NEAR_CHUNKS: i32 = 8;

/// How often the flight counts how the culled chunks split.
pub const SPLIT_EVERY: usize = 8;

/// The view once everything in range was first ready.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FirstView {
    pub ms: f64,
    /// Mesh jobs sent until then (more than the chunks with a mesh where
    /// light changes a chunk's mesh after it was made).
    pub mesh_jobs: u64,
    /// Dense light held (MiB).
    pub light_mib: f64,
    pub rss_mib: Option<f64>,
}

/// Chunks in range with neither a mesh nor a known empty one, after every
/// frame's update, outside the timing.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Holes {
    /// The near view reaches this many chunks (half the render distance);
    /// flying must keep it complete.
    pub near_view_distance: i32,
    pub frames_with_near_holes: usize,
    pub near_most: usize,
    /// Frames with a hole within [`NEAR_CHUNKS`] of the eye's chunk.
    pub frames_with_holes_within_near_chunks: usize,
    /// Holes in the whole range: median and most over the flight (the
    /// edge a moving eye streams into).
    pub range_median: f64,
    pub range_most: usize,
    /// The closest any hole came to the eye's chunk, in chunks; None: none did.
    pub nearest_chunks: Option<f64>,
}

/// Resident memory during the flight, and what is held at its end (in
/// system memory on a software renderer).
#[derive(Clone, Debug, Serialize)]
pub struct Memory {
    pub rss_mib_at_2_min: Option<f64>,
    pub rss_mib_final: Option<f64>,
    pub rss_mib_peak: Option<f64>,
    pub chunks_loaded_final: usize,
    pub chunk_data_mib_final: f64,
    pub meshes_final: usize,
    pub mesh_mib_final: f64,
    /// One sample every 10 s: memory must stay flat, and what is held
    /// says where it went.
    pub samples: Vec<MemorySample>,
}

/// From a chunk coming into range to its mesh on the GPU.
#[derive(Clone, Debug, Serialize)]
pub struct ReadyLatency {
    pub chunk_ready_ms: Spread,
    /// The same for chunks within [`NEAR_CHUNKS`] of the eye's chunk when
    /// their mesh came up: the part of the view a player notices first.
    pub near_chunk_ready_ms: Spread,
    /// Where that latency went, stage by stage ([`ReadyStages`]): the
    /// whole range's chunks, then the near view's.
    pub ready_stages_ms: Vec<(&'static str, Spread)>,
    pub near_ready_stages_ms: Vec<(&'static str, Spread)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlightReport {
    /// Where and on what it ran.
    pub machine: super::machine::Machine,
    /// The configuration, as the UFMG paper's table names its rows.
    pub row: String,
    pub backend: String,
    pub adapter: String,
    pub seconds: f64,
    pub render_distance: i32,
    pub size: (u32, u32),
    pub frames: usize,
    pub frame_ms: Spread,
    pub fps: Fps,
    pub cpu_part: CpuPart,
    pub drawing: Drawing,
    pub first_view: FirstView,
    pub holes: Holes,
    #[serde(flatten)]
    pub latency: ReadyLatency,
    pub chunks_generated: u64,
    pub distance_flown_blocks: f64,
    pub memory: Memory,
    /// How the CPU and the device shared generation at the end (α, and
    /// the chunks each lane made over the whole run).
    pub balance: Balance,
    /// The device's share when it was fixed by hand.
    pub fixed_alpha: Option<f64>,
    /// Far terrain, when the flight drew it.
    pub far: Option<FarFlight>,
    /// The sound's cost, when the flight ran it.
    pub sound: Option<SoundFlight>,
}

/// What sound cost during a flight.
#[derive(Clone, Debug, Serialize)]
pub struct SoundFlight {
    /// The game thread's sound work a frame (probing the surroundings,
    /// queueing the scene; part of `cpu_part.cpu_ms`).
    pub game_thread_ms: Spread,
    /// The sound thread's CPU time over the flight's wall time: the share
    /// of one core that mixing took (None without a per-thread clock).
    pub thread_core_share: Option<f64>,
    /// Of the frames, the share in which each ambience layer was heard
    /// (by name, in the order of `audio::ambience::LAYERS`): what the mix
    /// was playing while it cost that.
    pub layers_heard: Vec<(&'static str, f64)>,
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
    pub gpu_device: Device,
    /// Generate on one CPU thread instead of the pool.
    pub serial_cpu: bool,
    /// A fixed device share (hybrid only); None: automatic.
    pub alpha: Option<f64>,
    /// 0..1, 0.5 is noon; time stands still during the flight.
    pub time_of_day: f64,
    /// Visibility culling (off: every chunk in the frustum is drawn).
    pub culling: bool,
    /// Far terrain out to this many blocks (0: none).
    pub horizon: u32,
    /// The path's eastward speed, blocks a second ([`PATH_SPEED`] as
    /// the path is drawn; the north-south sway scales with it).
    pub speed: f64,
    /// Run the game's sound each frame, mixed and discarded.
    pub sound: bool,
}

/// The share of the horizon distance within which a far hole shows: there
/// the fog leaves 3 % of the terrain's colour (full fog at the horizon,
/// none at 55 % of it).
pub const VISIBLE_HORIZON: f64 = 0.95;

/// The path's own eastward speed, blocks a second.
pub const PATH_SPEED: f64 = 25.0;

/// Far terrain during a flight: wanted tiles in the view not drawn yet
/// (and not covered by a tile they replace), counted after every frame.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FarFlight {
    pub horizon: u32,
    /// The game thread's CPU time a frame in the far view's update: asking
    /// for tiles when the eye moved, and uploading the tiles made (part of
    /// `cpu_part.update_ms`).
    pub update_ms: Spread,
    pub frames_with_far_holes: usize,
    pub far_holes_most: usize,
    pub tiles_made: u64,
    /// Of them, tiles whose columns the generation device made.
    pub tiles_from_device: u64,
    pub quads_final: u64,
}

/// Far tiles the camera could see that are neither drawn nor covered. A
/// tile entering at the horizon is counted only once it reaches within
/// [`VISIBLE_HORIZON`] of it: farther out the fog hides it whole.
fn far_holes(far: &FarView, camera: &Camera, horizon: u32) -> usize {
    let frustum = Camera { far: horizon as f64 + 64.0, ..*camera }.frustum();
    let reach = horizon as f64 * VISIBLE_HORIZON;
    far.holes()
        .into_iter()
        .filter(|t| t.distance([camera.eye.x, camera.eye.z]) < reach)
        .filter(|t| {
            let [x0, z0] = t.origin();
            let b = t.blocks() as f64;
            let lo = (DVec3::new(x0 as f64, -64.0, z0 as f64) - camera.eye).as_vec3();
            let hi = (DVec3::new(x0 as f64 + b, 512.0, z0 as f64 + b) - camera.eye).as_vec3();
            frustum.intersects_box(lo, hi)
        })
        .count()
}

pub fn fly(world: Arc<WorldGen>, opts: &FlightOptions) -> Result<FlightReport> {
    let gpu = Gpu::headless()?;
    let target = OffscreenTarget::new(&gpu, opts.size);
    let start = spawn_point(&world);
    let mut session = HeadlessSession::start(
        &gpu,
        world,
        SessionOptions::new(opts.engine, opts.gpu_device.clone(), opts.render_distance),
    )?;
    if opts.serial_cpu {
        session.streamer.use_serial_cpu();
    }
    session.streamer.fix_share(opts.alpha);
    let (p0, _, _) = path(start, 0.0);
    // Started before the first view, so decoding and synthesising the
    // bank is done before the timing starts, as in play.
    let mut sound = opts.sound.then(|| GameSound::new(Output::Discard, Volumes::default(), false));
    let mut sound_ms: Vec<f64> = Vec::new();
    let mut heard = [0usize; 7];
    let mut far = (opts.horizon > 0).then(|| {
        FarView::new(session.streamer.world().clone(), opts.horizon, crate::game::far_view::default_threads())
    });
    if let Some(f) = &mut far {
        session.update_far(f, p0);
    }
    let first_ms =
        session.load(ChunkPos::containing([p0.x as i64, p0.y as i64, p0.z as i64]), super::session::PATIENCE)?;
    if let Some(f) = &mut far {
        session.load_far(f, p0, Instant::now() + super::session::PATIENCE)?;
    }
    let mut far_holes_seen: Vec<usize> = Vec::new();
    let mut far_updates: Vec<f64> = Vec::new();
    let streamer = &mut session.streamer;
    streamer.ready_latencies().clear();
    let first_view = FirstView {
        ms: first_ms.as_secs_f64() * 1e3,
        mesh_jobs: streamer.mesh_jobs_sent(),
        light_mib: streamer.light_bytes() as f64 / MIB,
        rss_mib: rss::resident_mib(),
    };
    let mut rec = Recorder::new(near_view_distance(opts.render_distance), streamer.generated_total());
    if let Some(s) = &sound {
        // The mix must be running before the timing starts.
        let ready_by = Instant::now() + super::session::PATIENCE;
        let state = &s.audio.state;
        while state.cpu_time().is_none() && !state.has_notice() && Instant::now() < ready_by {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    if let Some(why) = sound.as_ref().and_then(|s| s.audio.take_notice()) {
        anyhow::bail!("{why}");
    }
    let t0 = Instant::now();
    let sound_cpu0 = sound.as_ref().and_then(|s| s.audio.state.cpu_time());
    let mut last = p0;
    while t0.elapsed().as_secs_f64() < opts.seconds {
        let frame_start = Instant::now();
        let cpu_start = CpuClock::now();
        let (eye, yaw, pitch) = path(start, t0.elapsed().as_secs_f64() * opts.speed / PATH_SPEED);
        rec.flown += (eye - last).length();
        last = eye;
        let chunk = ChunkPos::containing([eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64]);
        let update_start = CpuClock::now();
        session.update(chunk, Budget::default());
        if let Some(f) = &mut far {
            let far_start = CpuClock::now();
            session.update_far(f, eye);
            far_updates.push(far_start.ms());
        }
        rec.updates.push(update_start.ms());
        rec.update_parts.push(session.streamer.update_parts());
        let camera = Camera::for_view(eye, yaw, pitch, DEFAULT_FOV_DEGREES, opts.size, opts.render_distance);
        if let Some(s) = &mut sound {
            let sound_start = CpuClock::now();
            s.follow(&session.streamer, eye, camera.forward(), opts.time_of_day);
            sound_ms.push(sound_start.ms());
            for (n, &m) in heard.iter_mut().zip(&s.mix) {
                *n += (m > 0.001) as usize;
            }
        }
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let view =
            ViewParams::new(opts.render_distance, opts.horizon, opts.time_of_day as f32, t0.elapsed().as_secs_f32());
        let HeadlessSession { renderer, streamer, .. } = &mut session;
        let stats = with_visibility(streamer, opts.culling, opts.horizon > 0, |v| {
            renderer.render(&gpu, &mut encoder, &target.view, opts.size, &camera, &view, Some(v))
        });
        let index = gpu.queue.submit([encoder.finish()]);
        rec.cpu_frames.push(cpu_start.ms());
        rec.cpu_frames_wall.push(frame_start.elapsed().as_secs_f64() * 1e3);
        let in_frustum =
            rec.draws.len().is_multiple_of(SPLIT_EVERY).then(|| session.renderer.in_frustum(&camera, view.fog_end));
        rec.draws.push((stats, in_frustum));
        gpu.device
            .poll(wgpu::PollType::Wait { submission_index: Some(index), timeout: None })
            .map_err(|e| anyhow::anyhow!("waiting for the GPU: {e}"))?;
        rec.frames.push(frame_start.elapsed().as_secs_f64() * 1e3);
        rec.count_holes(&session.streamer);
        if let Some(f) = &far {
            far_holes_seen.push(far_holes(f, &camera, opts.horizon));
        }
        rec.sample_memory(t0.elapsed().as_secs_f64(), &session.streamer, &session.renderer);
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let sound = sound.map(|s| {
        let cpu = s.audio.state.cpu_time().zip(sound_cpu0).map(|(b, a)| (b - a).as_secs_f64());
        let frames = sound_ms.len().max(1) as f64;
        let layers_heard = LAYERS.iter().zip(heard).map(|(&l, n)| (l, n as f64 / frames)).collect();
        SoundFlight { game_thread_ms: Spread::of(sound_ms), thread_core_share: cpu.map(|c| c / elapsed), layers_heard }
    });
    let mut report =
        rec.report(opts, elapsed, first_view, &mut session.streamer, &session.renderer, gpu.adapter_name());
    report.far = far.map(|f| FarFlight {
        horizon: opts.horizon,
        update_ms: Spread::of(far_updates),
        frames_with_far_holes: far_holes_seen.iter().filter(|&&n| n > 0).count(),
        far_holes_most: far_holes_seen.iter().copied().max().unwrap_or(0),
        tiles_made: f.counts().tiles_made,
        tiles_from_device: f.counts().tiles_from_source,
        quads_final: session.renderer.far.quad_count(),
    });
    report.sound = sound;
    Ok(report)
}

/// One spread per name, the `i`th over every row's `i`th value.
fn named_spreads<const N: usize>(names: [&'static str; N], rows: &[[f64; N]]) -> Vec<(&'static str, Spread)> {
    names.iter().enumerate().map(|(i, &name)| (name, Spread::of(rows.iter().map(|r| r[i]).collect()))).collect()
}

/// Each stage's spread of milliseconds over `ready`.
pub(crate) fn stage_spreads(ready: &[&ReadyStages]) -> Vec<(&'static str, Spread)> {
    let rows: Vec<[f64; 5]> = ready.iter().map(|s| s.stages().map(|d| d.as_secs_f64() * 1e3)).collect();
    named_spreads(ReadyStages::NAMES, &rows)
}

/// What the flight records frame by frame.
struct Recorder {
    frames: Vec<f64>,
    cpu_frames: Vec<f64>,
    cpu_frames_wall: Vec<f64>,
    updates: Vec<f64>,
    /// Each frame's update parts.
    update_parts: Vec<UpdateParts>,
    /// Each frame's draw figures, and every few frames the meshes in the frustum.
    draws: Vec<(DrawStats, Option<usize>)>,
    near: i32,
    near_holes: Vec<usize>,
    /// Holes within NEAR_CHUNKS, per frame.
    nearest_holes: Vec<usize>,
    range_holes: Vec<f64>,
    nearest_hole: f64,
    samples: Vec<MemorySample>,
    rss_at_2_min: Option<f64>,
    generated_before: u64,
    flown: f64,
}

impl Recorder {
    fn new(near: i32, generated_before: u64) -> Recorder {
        Recorder {
            frames: Vec::new(),
            cpu_frames: Vec::new(),
            cpu_frames_wall: Vec::new(),
            updates: Vec::new(),
            update_parts: Vec::new(),
            draws: Vec::new(),
            near,
            near_holes: Vec::new(),
            nearest_holes: Vec::new(),
            range_holes: Vec::new(),
            nearest_hole: f64::INFINITY,
            samples: Vec::new(),
            rss_at_2_min: None,
            generated_before,
            flown: 0.0,
        }
    }

    fn drawing(&self, culling: bool) -> Drawing {
        let all = |f: fn(&DrawStats) -> f64| Spread::of(self.draws.iter().map(|(s, _)| f(s)).collect());
        let split = |f: fn(&DrawStats, f64) -> f64| {
            Spread::of(self.draws.iter().filter_map(|(s, n)| n.map(|n| f(s, n as f64))).collect())
        };
        Drawing {
            culling,
            in_range: all(|s| s.in_range as f64),
            drawn: all(|s| s.drawn as f64),
            frustum_culled: split(|s, n| s.in_range as f64 - n),
            visibility_culled: split(|s, n| (n - s.drawn as f64).max(0.0)),
            quads: all(|s| s.quads_drawn as f64),
            draw_calls: all(|s| s.draw_calls as f64),
            cull_ms: all(|s| s.cull_us / 1e3),
            encode_ms: all(|s| s.encode_us / 1e3),
        }
    }

    fn update_parts_ms(&self) -> Vec<(&'static str, Spread)> {
        let rows: Vec<[f64; 9]> = self.update_parts.iter().map(UpdateParts::values).collect();
        named_spreads(UpdateParts::NAMES, &rows)
    }

    /// One walk over the range gives all three hole figures.
    fn count_holes(&mut self, streamer: &ChunkStreamer) {
        let (mut holes, mut in_near, mut in_goal, mut nearest) = (0usize, 0usize, 0usize, f64::INFINITY);
        for (dx, dy, dz) in streamer.holes() {
            holes += 1;
            in_near += within(ChunkPos::new(dx, dy, dz), ChunkPos::new(0, 0, 0), self.near) as usize;
            in_goal += within(ChunkPos::new(dx, dy, dz), ChunkPos::new(0, 0, 0), NEAR_CHUNKS) as usize;
            nearest = nearest.min(((dx * dx + dy * dy + dz * dz) as f64).sqrt());
        }
        self.near_holes.push(in_near);
        self.nearest_holes.push(in_goal);
        self.range_holes.push(holes as f64);
        self.nearest_hole = self.nearest_hole.min(nearest);
    }

    /// A memory sample every [`RSS_EVERY_S`], and the figure at two minutes.
    fn sample_memory(&mut self, t: f64, streamer: &ChunkStreamer, renderer: &WorldRenderer) {
        if t >= RSS_EVERY_S * (self.samples.len() + 1) as f64 {
            if let Some(rss_mib) = rss::resident_mib() {
                let counts = streamer.counts();
                self.samples.push(MemorySample {
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
        if self.rss_at_2_min.is_none() && t >= TWO_MINUTES_S {
            self.rss_at_2_min = rss::resident_mib();
        }
    }

    fn report(
        self,
        opts: &FlightOptions,
        elapsed: f64,
        first_view: FirstView,
        streamer: &mut ChunkStreamer,
        renderer: &WorldRenderer,
        adapter: String,
    ) -> FlightReport {
        let drawing = self.drawing(opts.culling);
        let update_parts_ms = self.update_parts_ms();
        let frames = self.frames.len();
        let frame_ms = Spread::of(self.frames.clone());
        let mut sorted = self.frames;
        sorted.sort_by(|a, b| a.total_cmp(b));
        let slowest = &sorted[sorted.len() - (sorted.len() / 100).max(1).min(sorted.len())..];
        let ready = streamer.ready_latencies();
        let near =
            |&(dx, dy, dz): &rings::Offset| within(ChunkPos::new(dx, dy, dz), ChunkPos::new(0, 0, 0), NEAR_CHUNKS);
        let all: Vec<&ReadyStages> = ready.iter().map(|(s, _)| s).collect();
        let near_ready: Vec<&ReadyStages> = ready.iter().filter(|(_, o)| near(o)).map(|(s, _)| s).collect();
        let total_ms = |v: &[&ReadyStages]| Spread::of(v.iter().map(|s| s.total.as_secs_f64() * 1e3).collect());
        let (chunk_ready_ms, near_chunk_ready_ms) = (total_ms(&all), total_ms(&near_ready));
        let (ready_stages_ms, near_ready_stages_ms) = (stage_spreads(&all), stage_spreads(&near_ready));
        let range_most = self.range_holes.iter().fold(0.0f64, |a, &b| a.max(b)) as usize;
        FlightReport {
            machine: super::machine::Machine::here(),
            row: opts.row.clone(),
            backend: streamer.backend_label(),
            adapter,
            seconds: opts.seconds,
            render_distance: opts.render_distance,
            size: opts.size,
            frames,
            fps: Fps {
                min: 1e3 / frame_ms.max,
                low_1pct: 1e3 * slowest.len() as f64 / slowest.iter().sum::<f64>(),
                mean: frames as f64 / elapsed,
            },
            frame_ms,
            cpu_part: CpuPart {
                cpu_ms: Spread::of(self.cpu_frames),
                wall_ms: Spread::of(self.cpu_frames_wall),
                update_ms: Spread::of(self.updates),
                update_parts_ms,
            },
            drawing,
            first_view,
            holes: Holes {
                near_view_distance: self.near,
                frames_with_near_holes: self.near_holes.iter().filter(|&&n| n > 0).count(),
                near_most: self.near_holes.iter().copied().max().unwrap_or(0),
                frames_with_holes_within_near_chunks: self.nearest_holes.iter().filter(|&&n| n > 0).count(),
                range_median: Spread::of(self.range_holes).median,
                range_most,
                nearest_chunks: self.nearest_hole.is_finite().then_some(self.nearest_hole),
            },
            latency: ReadyLatency { chunk_ready_ms, near_chunk_ready_ms, ready_stages_ms, near_ready_stages_ms },
            chunks_generated: streamer.generated_total() - self.generated_before,
            distance_flown_blocks: self.flown,
            memory: Memory {
                rss_mib_at_2_min: self.rss_at_2_min,
                rss_mib_final: rss::resident_mib(),
                rss_mib_peak: rss::peak_resident_mib(),
                chunks_loaded_final: streamer.counts().loaded,
                chunk_data_mib_final: streamer.data_bytes() as f64 / MIB,
                meshes_final: renderer.mesh_count(),
                mesh_mib_final: renderer.gpu_bytes as f64 / MIB,
                samples: self.samples,
            },
            balance: streamer.balance(),
            fixed_alpha: opts.alpha,
            far: None,
            sound: None,
        }
    }
}

impl fmt::Display for FlightReport {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (r, pad) = (self, "");
        let (fr, cpu) = (&r.frame_ms, &r.cpu_part.cpu_ms);
        writeln!(
            f,
            "{}: {:.1} FPS min, {:.1} FPS 1% low, {:.1} FPS mean; longest frame {:.1}× the median (CPU part {:.1}×)",
            r.row,
            r.fps.min,
            r.fps.low_1pct,
            r.fps.mean,
            fr.max_over_median(),
            cpu.max_over_median()
        )?;
        if let Some(a) = r.balance.alpha {
            writeln!(
                f,
                "{pad:<28} α {a:.2}: CPU lane made {} chunks, GPU lane {}",
                r.balance.cpu.generated, r.balance.device.generated
            )?;
        }
        writeln!(
            f,
            "{:<28} {} frames in {:.0} s on {}: frame ms min {:.1} / median {:.1} / p99 {:.1} / max {:.1}; first complete view {:.0} ms; chunk ready latency median {:.0} ms, p99 {:.0} ms; {} chunks generated, {:.0} blocks flown",
            r.backend, r.frames, r.seconds, r.adapter, fr.min, fr.median, fr.p99, fr.max, r.first_view.ms,
            r.latency.chunk_ready_ms.median, r.latency.chunk_ready_ms.p99, r.chunks_generated, r.distance_flown_blocks
        )?;
        let near = &r.latency.near_chunk_ready_ms;
        let latency = if near.median.is_nan() {
            "no mesh came up there (each was ready before the eye came that close)".to_string()
        } else {
            format!("chunk ready latency median {:.0} ms, p99 {:.0} ms", near.median, near.p99)
        };
        writeln!(
            f,
            "{pad:<28} within {NEAR_CHUNKS} chunks of the eye: {latency}; {} of {} frames with a hole",
            r.holes.frames_with_holes_within_near_chunks, r.frames
        )?;
        let stages = |v: &[(&str, Spread)]| {
            v.iter().map(|(n, s)| format!("{n} {:.0} / {:.0}", s.median, s.p99)).collect::<Vec<_>>().join(", ")
        };
        writeln!(f, "{pad:<28} ready latency by stage, median / p99 ms: {}", stages(&r.latency.ready_stages_ms))?;
        if !r.latency.near_chunk_ready_ms.median.is_nan() {
            writeln!(f, "{pad:<28} the same within {NEAR_CHUNKS} chunks: {}", stages(&r.latency.near_ready_stages_ms))?;
        }
        self.write_costs(f)?;
        self.write_far_and_memory(f)
    }
}

impl FlightReport {
    /// The CPU part of the frame, the drawing and the holes in the view.
    fn write_costs(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (r, pad, cpu) = (self, "", &self.cpu_part.cpu_ms);
        writeln!(
            f,
            "{pad:<28} CPU part of the frame (update, upload, culling, encoding; no GPU wait): median {:.2} / p99 {:.2} / max {:.2} ms",
            cpu.median, cpu.p99, cpu.max
        )?;
        let parts: Vec<String> = r
            .cpu_part
            .update_parts_ms
            .iter()
            .map(|(name, s)| format!("{name} {:.2} / {:.2}", s.median, s.p99))
            .collect();
        writeln!(
            f,
            "{pad:<28} of it, streaming update and upload median {:.2} / p99 {:.2} ms; by part, median / p99 ms: {}",
            r.cpu_part.update_ms.median,
            r.cpu_part.update_ms.p99,
            parts.join(", ")
        )?;
        let d = &r.drawing;
        writeln!(
            f,
            "{pad:<28} drawn (culling {}): median {:.0} of {:.0} chunks with a mesh ({:.0} outside the frustum, {:.0} hidden), {:.0} quads, {:.0} draw calls; culling ms median {:.2} / p99 {:.2}, encoding ms median {:.2} / p99 {:.2}",
            if d.culling { "on" } else { "off" },
            d.drawn.median, d.in_range.median, d.frustum_culled.median, d.visibility_culled.median, d.quads.median,
            d.draw_calls.median, d.cull_ms.median, d.cull_ms.p99, d.encode_ms.median, d.encode_ms.p99
        )?;
        let h = &r.holes;
        let nearest = h.nearest_chunks.map_or_else(|| "none".to_string(), |d| format!("{d:.1} chunks away"));
        writeln!(
            f,
            "{pad:<28} holes in the view (chunks not drawn yet): {:.0} at the median frame, {} at most; nearest {nearest}; within {} chunks after {} of {} frames (at most {})",
            h.range_median, h.range_most, h.near_view_distance, h.frames_with_near_holes, r.frames, h.near_most
        )?;
        Ok(())
    }

    /// Far terrain and memory.
    fn write_far_and_memory(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (r, pad) = (self, "");
        if let Some(far) = &r.far {
            writeln!(
                f,
                "{pad:<28} far terrain to {} m: update {:.2} / {:.2} ms (median / p99); {} of {} frames with a far hole in view (at most {} tiles); {} tiles made ({} from the device), {:.2} M quads at the end",
                far.horizon,
                far.update_ms.median,
                far.update_ms.p99,
                far.frames_with_far_holes,
                r.frames,
                far.far_holes_most,
                far.tiles_made,
                far.tiles_from_device,
                far.quads_final as f64 / 1e6
            )?;
        }
        if let Some(s) = &r.sound {
            let share = s.thread_core_share.map_or_else(|| "n/a".to_string(), |c| format!("{:.1} %", c * 100.0));
            let heard: Vec<String> = s
                .layers_heard
                .iter()
                .filter(|(_, h)| *h > 0.0)
                .map(|(l, h)| format!("{l} {:.0} %", h * 100.0))
                .collect();
            let heard = if heard.is_empty() { "none".to_string() } else { heard.join(", ") };
            writeln!(
                f,
                "{pad:<28} sound: game thread median {:.3} / p99 {:.3} / max {:.3} ms a frame; sound thread {share} of a core; ambience heard in frames: {heard}",
                s.game_thread_ms.median, s.game_thread_ms.p99, s.game_thread_ms.max
            )?;
        }
        let mib = |m: Option<f64>| m.map_or_else(|| "n/a".to_string(), |m| format!("{m:.0} MiB"));
        let m = &r.memory;
        writeln!(
            f,
            "{pad:<28} resident memory: first view {}, at 2 min {}, final {}, peak {}",
            mib(r.first_view.rss_mib),
            mib(m.rss_mib_at_2_min),
            mib(m.rss_mib_final),
            mib(m.rss_mib_peak)
        )?;
        writeln!(
            f,
            "{pad:<28} held at the end: {} chunks ({:.0} MiB of blocks), {} meshes ({:.0} MiB of vertices)",
            m.chunks_loaded_final, m.chunk_data_mib_final, m.meshes_final, m.mesh_mib_final
        )
    }
}

/// Flights without and with sound (`bench flight --sound ab`), per row in
/// the order flown: what sound adds to a frame beside what two flights
/// without it differ by.
pub fn sound_comparison(reports: &[FlightReport]) -> String {
    let mut out = String::new();
    let mut rows: Vec<&str> = reports.iter().map(|r| r.row.as_str()).collect();
    rows.dedup();
    for row in rows {
        let runs: Vec<&FlightReport> = reports.iter().filter(|r| r.row == row).collect();
        let (off, on): (Vec<&FlightReport>, Vec<&FlightReport>) = runs.iter().partition(|r| r.sound.is_none());
        if off.is_empty() || on.is_empty() {
            continue;
        }
        let figures =
            |r: &FlightReport| [r.frame_ms.median, r.frame_ms.p99, r.cpu_part.cpu_ms.median, r.cpu_part.cpu_ms.p99];
        out += &format!("sound against none, {row}: frame ms median / p99, CPU part ms median / p99\n");
        let (mut n_off, mut n_on) = (0, 0);
        for r in &runs {
            let [a, b, c, d] = figures(r);
            let name = if r.sound.is_some() {
                n_on += 1;
                format!("with sound #{n_on}")
            } else {
                n_off += 1;
                format!("without #{n_off}")
            };
            out += &format!("  {name:<16} {a:>7.2} / {b:>7.2}   {c:>6.3} / {d:>6.3}\n");
        }
        let mean = |v: &[&FlightReport], i: usize| v.iter().map(|r| figures(r)[i]).sum::<f64>() / v.len() as f64;
        let diff: Vec<String> = (0..4).map(|i| format!("{:+.3}", mean(&on, i) - mean(&off, i))).collect();
        out += &format!("  with − without (means of the runs): {}\n", diff.join(" / "));
        if off.len() >= 2 {
            let noise: Vec<String> =
                (0..4).map(|i| format!("{:+.3}", figures(off[1])[i] - figures(off[0])[i])).collect();
            out += &format!("  without #2 − without #1 (the noise): {}\n", noise.join(" / "));
        }
    }
    out
}
