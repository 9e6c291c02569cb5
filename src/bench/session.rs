//! The set-up every headless driver shares: a GPU without a window, a
//! world renderer, and a streamer whose engine is open before the clock
//! starts.

use crate::backend::{Device, Engine};
use crate::game::engine::Switch;
use crate::game::far_view::FarView;
use crate::game::streaming::{memory, Budget, ChunkStreamer};
use crate::game::view;
use crate::render::camera::Camera;
use crate::render::gpu::Gpu;
use crate::render::offscreen::{self, OffscreenTarget};
use crate::render::world_renderer::{DrawStats, ViewParams, WorldRenderer};
use crate::world::block::BlockId;
use crate::world::coords::ChunkPos;
use crate::world::edits::{BlockPos, ChunkEdits};
use crate::worldgen::WorldGen;
use anyhow::{bail, Result};
use glam::DVec3;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a device may take to open, and a range to load, before a driver gives up.
pub const PATIENCE: Duration = Duration::from_secs(600);

/// What a session streams with.
pub struct SessionOptions {
    pub engine: Engine,
    /// The device a switch to the GPU opens (real, or the emulation).
    pub gpu_device: Device,
    pub render_distance: i32,
    /// A saved world's edits, applied over generation.
    pub edits: HashMap<ChunkPos, ChunkEdits>,
    /// Where the engine asked for is a device that cannot open: generate
    /// on the CPU and say so (`true`), or fail (`false`, for benchmarks,
    /// whose rows would otherwise be mislabelled).
    pub cpu_if_no_device: bool,
}

impl SessionOptions {
    pub fn new(engine: Engine, gpu_device: impl Into<Device>, render_distance: i32) -> SessionOptions {
        SessionOptions {
            engine,
            gpu_device: gpu_device.into(),
            render_distance,
            edits: HashMap::new(),
            cpu_if_no_device: false,
        }
    }
}

pub struct HeadlessSession<'g> {
    pub gpu: &'g Gpu,
    pub renderer: WorldRenderer,
    pub streamer: ChunkStreamer,
}

impl<'g> HeadlessSession<'g> {
    /// A renderer and a streamer over `world`, its engine open.
    pub fn start(gpu: &'g Gpu, world: Arc<WorldGen>, opts: SessionOptions) -> Result<HeadlessSession<'g>> {
        let min = crate::game::streaming::MIN_RENDER_DISTANCE;
        memory::check(min, opts.render_distance, memory::available())?;
        let renderer = WorldRenderer::new(gpu, offscreen::FORMAT)?;
        let mut streamer =
            ChunkStreamer::with_edits(world, opts.engine, opts.gpu_device, opts.render_distance, opts.edits);
        if opts.engine.uses_device() {
            if let Switch::Unavailable(reason) = streamer.wait_for_engine(PATIENCE) {
                if !opts.cpu_if_no_device {
                    bail!("GPU unavailable: {reason}");
                }
                eprintln!("GPU unavailable, generating on the CPU: {reason}");
            }
        }
        Ok(HeadlessSession { gpu, renderer, streamer })
    }

    /// Streams until everything in range around `centre` is generated,
    /// meshed and uploaded, for at most `timeout`; returns how long that took.
    pub fn load(&mut self, centre: ChunkPos, timeout: Duration) -> Result<Duration> {
        let (gpu, renderer) = (self.gpu, &mut self.renderer);
        Ok(self.streamer.load_around(centre, timeout, |changes| {
            view::show(changes, gpu, renderer);
            gpu.flush_uploads();
        })?)
    }

    /// One frame of streaming around `centre`, its meshes uploaded.
    pub fn update(&mut self, centre: ChunkPos, budget: Budget) {
        view::update(&mut self.streamer, centre, budget, self.gpu, &mut self.renderer);
    }

    /// Draws one frame of `camera` into `target` and waits for the GPU:
    /// what it drew, and the whole frame's milliseconds.
    pub fn draw(
        &mut self,
        target: &OffscreenTarget,
        camera: &Camera,
        view: &ViewParams,
        culling: bool,
    ) -> Result<(DrawStats, f64)> {
        let start = Instant::now();
        let gpu = self.gpu;
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let renderer = &mut self.renderer;
        let stats = view::with_visibility(&mut self.streamer, culling, view.horizon > 0.0, |v| {
            renderer.render(gpu, &mut encoder, &target.view, target.size, camera, view, Some(v))
        });
        let index = gpu.queue.submit([encoder.finish()]);
        gpu.device
            .poll(wgpu::PollType::Wait { submission_index: Some(index), timeout: None })
            .map_err(|e| anyhow::anyhow!("waiting for the GPU: {e}"))?;
        Ok((stats, start.elapsed().as_secs_f64() * 1e3))
    }

    /// One frame of the far view around `eye`, its tiles uploaded.
    pub fn update_far(&mut self, far: &mut FarView, eye: DVec3) {
        far.use_device(self.streamer.far_device());
        view::update_far(far, eye, self.gpu, &mut self.renderer);
    }

    /// The far view around `eye` made and uploaded whole, waiting at most
    /// until `deadline`.
    pub fn load_far(&mut self, far: &mut FarView, eye: DVec3, deadline: Instant) -> Result<()> {
        self.update_far(far, eye);
        let (gpu, renderer) = (self.gpu, &mut self.renderer);
        if !far.finish(deadline, &mut |c| renderer.show_far(gpu, c)) {
            bail!("the far terrain was not made in time");
        }
        gpu.flush_uploads();
        Ok(())
    }

    /// An edit, its meshes uploaded.
    pub fn set_block(&mut self, pos: BlockPos, block: BlockId) -> Result<()> {
        Ok(view::set_block(&mut self.streamer, pos, block, self.gpu, &mut self.renderer)?)
    }
}
