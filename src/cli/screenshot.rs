//! `blockworld screenshot`: the streamed world rendered offscreen once
//! everything in range is loaded.

use crate::backend::{Device, Engine};
use crate::bench::session::{HeadlessSession, SessionOptions};
use crate::game::far_view::FarView;
use crate::game::spawn::spawn_point;
use crate::game::view::with_visibility;
use crate::render::camera::{Camera, DEFAULT_FOV_DEGREES};
use crate::render::gpu::Gpu;
use crate::render::offscreen::{self, OffscreenTarget};
use crate::render::world_renderer::ViewParams;
use crate::world::coords::ChunkPos;
use crate::world::edits::{BlockPos, ChunkEdits};
use crate::worldgen::WorldGen;
use anyhow::{Context, Result};
use glam::DVec3;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct ScreenshotOptions {
    pub out: PathBuf,
    pub pos: Option<[f64; 3]>,
    pub yaw: f64,
    pub pitch: f64,
    pub render_distance: i32,
    pub size: (u32, u32),
    pub engine: Engine,
    pub gpu_device: Device,
    pub timeout: Duration,
    /// A saved world's edits, applied over generation.
    pub edits: HashMap<ChunkPos, ChunkEdits>,
    /// 0..1, 0.5 is noon.
    pub time_of_day: f64,
    /// Visibility culling (off: every chunk in the frustum is drawn).
    pub culling: bool,
    /// Far terrain out to this many blocks (0: none).
    pub horizon: u32,
}

pub struct ScreenshotReport {
    pub load_time: Duration,
    pub chunks: usize,
    pub meshes: usize,
    /// Chunks and quads the frame drew.
    pub drawn: usize,
    pub quads: u64,
    /// Far quads drawn, and those in view that nearer terrain hides.
    pub far_quads: u64,
    pub far_hidden: u64,
    pub adapter: String,
    pub eye: DVec3,
}

pub fn screenshot(world: Arc<WorldGen>, opts: &ScreenshotOptions) -> Result<ScreenshotReport> {
    let gpu = Gpu::headless()?;
    let eye = match opts.pos {
        Some(p) => DVec3::from_array(p),
        None => spawn_point(&world) + DVec3::new(0.0, 24.0, 0.0),
    };
    let centre = ChunkPos::containing([eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64]);
    let session_opts = SessionOptions {
        edits: opts.edits.clone(),
        cpu_if_no_device: true,
        ..SessionOptions::new(opts.engine, opts.gpu_device.clone(), opts.render_distance)
    };
    let mut session = HeadlessSession::start(&gpu, world, session_opts)?;
    let start = Instant::now();
    session.load(centre, opts.timeout)?;
    let threads = crate::backend::cpu::threads();
    let mut far = FarView::new(session.streamer.world().clone(), opts.horizon, threads);
    session.load_far(&mut far, eye, start + opts.timeout)?;
    let load_time = start.elapsed();
    let HeadlessSession { renderer, streamer, .. } = &mut session;
    let target = OffscreenTarget::new(&gpu, opts.size);
    let camera =
        Camera::for_view(eye, opts.yaw, opts.pitch, DEFAULT_FOV_DEGREES, opts.size, streamer.render_distance());
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let view = ViewParams::new(streamer.render_distance(), opts.horizon, opts.time_of_day as f32, 0.0)
        .seen_from(streamer.block(BlockPos::containing(eye)));
    let stats = with_visibility(streamer, opts.culling, opts.horizon > 0, |v| {
        renderer.render(&gpu, &mut encoder, &target.view, opts.size, &camera, &view, Some(v))
    });
    target.copy_out(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    let rgba = target.read_rgba(&gpu)?;
    offscreen::write_png(&opts.out, opts.size, &rgba)
        .with_context(|| format!("cannot write {}", opts.out.display()))?;
    Ok(ScreenshotReport {
        load_time,
        chunks: streamer.counts().loaded,
        meshes: renderer.mesh_count(),
        drawn: stats.drawn,
        quads: stats.quads_drawn,
        far_quads: stats.far_quads_drawn,
        far_hidden: stats.far_quads_occluded,
        adapter: gpu.adapter_name(),
        eye,
    })
}
