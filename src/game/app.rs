//! The windowed game: winit events, the fixed-step loop, rendering with the
//! overlay, cursor grab, and the runtime toggles.

use super::clock::{self, DayClock};
use super::engine::Switch;
use super::far_view::{self, FarView};
use super::frame_stats::FrameStats;
use super::game_loop::{FixedStep, TICK};
use super::hud::{self, DrawFigures, HudData, Icons, PanelValues, Pose};
use super::input::{Action, InputState};
use super::player::{LoadedChunks, Mode, Player};
use super::saving::{SettingsFile, WorldSaving};
use super::screen::Screen;
use super::screenshots::Screenshots;
use super::settings::Settings;
use super::sound::GameSound;
use super::spawn::spawn_point;
use super::state_dump::{AimLine, AudioLine, FrameLine, GenerationLine, StateDump, StateLine, UiLine};
use super::streaming::{memory, Budget, ChunkStreamer, MIN_RENDER_DISTANCE};
use super::target::{raycast, Hit, REACH};
use super::view;
use super::world_menu::{MenuChoice, WorldMenu};
use crate::audio::Sound;
use crate::backend::{Device, Engine};
use crate::render::camera::{Camera, DEFAULT_FOV_DEGREES};
use crate::render::world_renderer::ViewParams;
use crate::save::saver::SaveJob;
use crate::save::world_file::{SavedPlayer, WorldFile};
use crate::world::block::BlockId;
use crate::world::edits::BlockPos;
use crate::worldgen::WorldGen;
use anyhow::{Context, Result};
use glam::DVec3;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::event::{DeviceEvent, DeviceId, ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::KeyCode;
use winit::window::WindowId;

pub struct PlayOptions {
    pub world: Arc<WorldGen>,
    /// The saved world being played: its edits are loaded, and edits and the
    /// player are saved to it as the game goes.
    pub save: Option<WorldFile>,
    /// The player's settings, and where changes to them are written.
    pub settings: Settings,
    pub settings_path: Option<PathBuf>,
    /// Lines about a settings file that could not be used whole.
    pub settings_warnings: Vec<String>,
    pub engine: Engine,
    pub gpu_device: Device,
    pub dump_state: Option<PathBuf>,
    pub size: (u32, u32),
    /// Quit by itself after this long (tests, demos).
    pub exit_after: Option<Duration>,
    /// Time of day at start (default: the world's saved time, or morning).
    pub time_of_day: Option<f64>,
    /// Set from outside (Ctrl-C, SIGTERM): save the world and end the game.
    pub stop: Arc<AtomicBool>,
    /// Where the sound goes: the device, a recording, or nowhere.
    pub audio: crate::audio::Output,
    /// Footsteps sound (off only for the window test's negative control).
    pub footsteps: bool,
}

/// The camera's fixed settings; eye, facing, field of view and aspect come per frame.
const CAMERA: Camera =
    Camera { eye: DVec3::ZERO, yaw: 0.0, pitch: 0.0, fov_y_degrees: DEFAULT_FOV_DEGREES, aspect: 1.0, far: 1000.0 };

/// The twelve edges of a block on screen, in egui points; edges with an end
/// behind the eye are left out.
fn outline(camera: &Camera, block: BlockPos, size: (u32, u32), scale: f64) -> Vec<[egui::Pos2; 2]> {
    let vp = camera.view_proj();
    let origin = DVec3::new(block.x as f64, block.y as f64, block.z as f64) - camera.eye;
    // Slightly larger than the block, so the lines are not hidden in its faces.
    let corner = |i: usize| {
        let o = |bit: usize| if i & bit != 0 { 1.002 } else { -0.002 };
        let p = (origin + DVec3::new(o(1), o(2), o(4))).as_vec3();
        let clip = vp * p.extend(1.0);
        (clip.w > 0.05).then(|| {
            let (x, y) = (clip.x / clip.w, clip.y / clip.w);
            egui::pos2(
                ((x + 1.0) * 0.5 * size.0 as f32) / scale as f32,
                ((1.0 - y) * 0.5 * size.1 as f32) / scale as f32,
            )
        })
    };
    let mut out = Vec::new();
    for i in 0..8usize {
        for bit in [1, 2, 4] {
            if i & bit == 0 {
                if let (Some(a), Some(b)) = (corner(i), corner(i | bit)) {
                    out.push([a, b]);
                }
            }
        }
    }
    out
}

struct Running {
    screen: Screen,
    streamer: ChunkStreamer,
    far: FarView,
    player: Player,
    previous: Player,
    input: InputState,
    step: FixedStep,
    frames: FrameStats,
    clock: DayClock,
    settings: SettingsFile,
    saving: WorldSaving,
    /// The device a switch to the GPU opens (real, or the emulation).
    gpu_device: Device,
    aim: Aim,
    panels: Panels,
    dump: Option<StateDump>,
    sound: GameSound,
    /// The player chose Quit: the event loop ends after this frame.
    quit: bool,
}

/// The block under the crosshair, and the last edits (for the state dump).
#[derive(Default)]
struct Aim {
    hit: Option<Hit>,
    last_break: Option<BlockPos>,
    last_place: Option<(BlockPos, BlockId)>,
}

/// What is drawn over the world besides the HUD, and its state.
#[derive(Default)]
struct Panels {
    settings_open: bool,
    /// The game menu (shown while the cursor is free and settings are closed).
    menu: WorldMenu,
    message: Option<(String, Instant)>,
    /// F3's debug overlay (off until asked for, as players expect).
    debug: bool,
    /// F2 was pressed: the next frame is written to a file.
    screenshot_wanted: bool,
    screenshots: Screenshots,
    /// Where the last screenshot went (for the state dump).
    last_screenshot: Option<PathBuf>,
    icons: Option<Icons>,
    /// A left press while the cursor was free; whether it lands on the
    /// world (and resumes play) or on a widget is decided after egui has
    /// seen it, because what egui reports at event time lags a frame.
    world_click: bool,
}

struct App {
    opts: PlayOptions,
    running: Option<Running>,
    error: Option<anyhow::Error>,
}

pub fn play(opts: PlayOptions) -> Result<()> {
    let event_loop = EventLoop::new().context(
        "cannot connect to a display (is DISPLAY or WAYLAND_DISPLAY set?); `blockworld screenshot` renders without one",
    )?;
    let mut app = App { opts, running: None, error: None };
    event_loop.run_app(&mut app).context("the event loop failed")?;
    if let Some(r) = app.running.take() {
        r.finish_save()?;
    }
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl App {
    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<Running> {
        let screen = Screen::open(event_loop, self.opts.size, self.opts.settings.fullscreen)?;
        let (edits, saved_player, saved_time) = match &self.opts.save {
            Some(w) => (w.load_edits()?, w.player()?, w.time_of_day()?),
            None => Default::default(),
        };
        let clock = DayClock::new(self.opts.time_of_day.or(saved_time).unwrap_or(clock::START));
        let wanted = self.opts.settings.render_distance;
        let render_distance = match memory::check(MIN_RENDER_DISTANCE, wanted, memory::available()) {
            Ok(()) => wanted,
            Err(e) => {
                eprintln!("blockworld: {e}; starting at {}", e.fits);
                e.fits
            }
        };
        let streamer = ChunkStreamer::with_edits(
            self.opts.world.clone(),
            self.opts.engine,
            self.opts.gpu_device.clone(),
            render_distance,
            edits,
        );
        let mut player = match saved_player {
            Some(p) => Player::new(glam::DVec3::from_array(p.pos), p.yaw, p.pitch),
            None => Player::new(spawn_point(&self.opts.world), 35.0, -10.0),
        };
        player.mode = if saved_player.map(|p| p.flying).unwrap_or(false) { Mode::Fly } else { Mode::Walk };
        let saving = WorldSaving::new(self.opts.save.take());
        let dump = match &self.opts.dump_state {
            Some(p) => {
                Some(StateDump::create(p).with_context(|| format!("cannot write the state dump {}", p.display()))?)
            }
            None => None,
        };
        eprintln!("blockworld: {} — generation {}", screen.gpu.adapter_name(), streamer.backend_label());
        let far = FarView::new(self.opts.world.clone(), self.opts.settings.horizon, far_view::default_threads());
        let mut running = Running {
            screen,
            streamer,
            far,
            player,
            previous: player,
            input: InputState::default(),
            step: FixedStep::default(),
            frames: FrameStats::default(),
            clock,
            settings: SettingsFile::new(self.opts.settings.clone(), self.opts.settings_path.clone()),
            saving,
            gpu_device: self.opts.gpu_device.clone(),
            aim: Aim::default(),
            panels: Panels::default(),
            dump,
            sound: GameSound::new(self.opts.audio.clone(), self.opts.settings.sound, self.opts.footsteps),
            quit: false,
        };
        for w in std::mem::take(&mut self.opts.settings_warnings) {
            running.say(w);
        }
        if let Some(reason) = running.streamer.gpu_off_reason() {
            running.say(format!("GPU unavailable: {reason}"));
        }
        running.screen.grab(true);
        Ok(running)
    }
}

impl Running {
    fn say(&mut self, m: String) {
        eprintln!("blockworld: {m}");
        self.panels.message = Some((m, Instant::now()));
    }

    fn act(&mut self, action: Action) {
        match action {
            Action::ToggleFly => {
                self.player.mode = if self.player.mode == Mode::Fly { Mode::Walk } else { Mode::Fly };
                self.player.vel = glam::DVec3::ZERO;
                self.say(format!("{:?} mode", self.player.mode));
            }
            Action::ToggleBackend => self.toggle_backend(None),
            Action::RenderDistanceUp => self.change_distance(self.streamer.render_distance() + 1),
            Action::RenderDistanceDown => self.change_distance(self.streamer.render_distance() - 1),
            Action::ToggleSettings => {
                self.panels.settings_open = !self.panels.settings_open;
                self.screen.grab(!self.panels.settings_open);
            }
            // Esc opens the game menu, and closes it again.
            Action::ReleaseCursor if !self.screen.grabbed() && !self.panels.settings_open => self.screen.grab(true),
            Action::ReleaseCursor => {
                self.screen.grab(false);
                self.input.release_all();
                self.panels.settings_open = false;
                self.panels.menu.refresh();
            }
            Action::Slot(n) => self.settings.edit().hotbar.select(n),
            Action::ToggleFullscreen => {
                let on = !self.settings.fullscreen;
                self.settings.edit().fullscreen = on;
                self.screen.set_fullscreen(on);
            }
            Action::ToggleDebug => self.panels.debug = !self.panels.debug,
            Action::Screenshot => {
                self.panels.screenshot_wanted = true;
                self.sound.play(Sound::Shutter);
            }
        }
    }

    fn edit(&mut self, pos: BlockPos, block: BlockId) -> bool {
        let was = self.streamer.block(pos).unwrap_or(BlockId::AIR);
        match view::set_block(&mut self.streamer, pos, block, &self.screen.gpu, &mut self.screen.renderer) {
            Ok(()) => {
                self.sound.edited(pos, was, block);
                self.saving.edited();
                true
            }
            Err(e) => {
                self.say(e.to_string());
                false
            }
        }
    }

    /// Left click: the targeted block becomes air.
    fn break_block(&mut self) {
        if let Some(hit) = self.aim.hit {
            if self.edit(hit.block, BlockId::AIR) {
                self.aim.last_break = Some(hit.block);
                self.aim.hit = self.target();
            }
        }
    }

    /// Right click: the selected block goes against the targeted face, if
    /// that cell is free and not inside the player.
    fn place_block(&mut self) {
        let (Some(hit), block) = (self.aim.hit, self.settings.hotbar.block()) else { return };
        let at = hit.place_at();
        let free = self.streamer.block(at).map(|b| b == BlockId::AIR || b.info().liquid).unwrap_or(false);
        if !free || (block.info().solid && self.player.overlaps_block(at)) {
            return;
        }
        if self.edit(at, block) {
            self.aim.last_place = Some((at, block));
            self.aim.hit = self.target();
        }
    }

    /// The block under the crosshair, within reach.
    fn target(&self) -> Option<Hit> {
        let camera = Camera { eye: self.player.eye(), yaw: self.player.yaw, pitch: self.player.pitch, ..CAMERA };
        raycast(camera.eye, camera.forward(), REACH, |p| self.streamer.block(p))
    }

    /// Hands the edits and the player's place to the saver, and writes
    /// changed settings (at most once a second unless `now`).
    fn save(&mut self, now: bool) {
        if !self.saving.due(now) {
            return;
        }
        if let Err(m) = self.settings.write_if_changed() {
            self.say(m);
        }
        let p = &self.player;
        let player = SavedPlayer { pos: p.pos.to_array(), yaw: p.yaw, pitch: p.pitch, flying: p.mode == Mode::Fly };
        let (streamer, time_of_day) = (&mut self.streamer, Some(self.clock.time()));
        let job = |applied| SaveJob { deltas: streamer.take_unsaved(), applied, player: Some(player), time_of_day };
        if let Some(e) = self.saving.hand_over(job) {
            self.say(format!("saving failed: {e}"));
        }
    }

    /// The last save, committed before the game exits.
    fn finish_save(mut self) -> Result<()> {
        self.save(true);
        match self.saving.finish() {
            Some(e) => Err(e).context("the world could not be saved"),
            None => Ok(()),
        }
    }

    /// Leaves the world being played (its last edits and the player's place
    /// committed first) and plays `file` from where its player last stood.
    fn switch_world(&mut self, file: WorldFile) -> Result<()> {
        self.save(true);
        if let Some(e) = self.saving.finish() {
            return Err(e).context("the world being left could not be saved; staying in it");
        }
        let edits = file.load_edits()?;
        let saved_player = file.player()?;
        self.clock = DayClock::new(file.time_of_day()?.unwrap_or(clock::START));
        let world = Arc::new(WorldGen::new(file.preset().clone(), file.meta().seed));
        // The old streamer's threads stop when it is dropped here.
        self.streamer = ChunkStreamer::with_edits(
            world.clone(),
            self.streamer.engine(),
            self.gpu_device.clone(),
            self.settings.render_distance,
            edits,
        );
        self.screen.renderer.retain(|_| false);
        self.screen.renderer.far.clear();
        self.far = FarView::new(world.clone(), self.settings.horizon, far_view::default_threads());
        self.player = match saved_player {
            Some(p) => Player::new(DVec3::from_array(p.pos), p.yaw, p.pitch),
            None => Player::new(spawn_point(&world), 35.0, -10.0),
        };
        self.player.mode = if saved_player.is_some_and(|p| p.flying) { Mode::Fly } else { Mode::Walk };
        self.previous = self.player;
        self.aim.hit = None;
        let dir = file.dir().to_path_buf();
        crate::save::recent::remember(&dir);
        let m = format!("playing {} (seed {}, preset {})", dir.display(), file.meta().seed, file.meta().preset_name);
        self.saving.switch_to(file);
        self.say(m);
        Ok(())
    }

    fn menu_choice(&mut self, choice: MenuChoice) {
        let opened = match choice {
            MenuChoice::Resume => {
                self.screen.grab(true);
                return;
            }
            MenuChoice::Quit => {
                self.quit = true;
                return;
            }
            MenuChoice::Open(dir) => WorldFile::open(&dir).map_err(anyhow::Error::from),
            MenuChoice::Create { dir, seed, preset } => {
                WorldFile::create(&dir, seed, &preset).map_err(anyhow::Error::from)
            }
        };
        match opened.and_then(|file| self.switch_world(file)) {
            Ok(()) => self.screen.grab(true),
            Err(e) => {
                let m = format!("{e:#}");
                self.panels.menu.error = Some(m.clone());
                self.say(m);
            }
        }
    }

    /// Sets the engine, or with None takes the next one in G's cycle:
    /// CPU, GPU, hybrid.
    fn toggle_backend(&mut self, want: Option<Engine>) {
        let target = want.unwrap_or(match self.streamer.wanted_engine() {
            Engine::Cpu | Engine::CpuSerial => Engine::Gpu,
            Engine::Gpu | Engine::CudaEmulated => Engine::Hybrid,
            Engine::Hybrid => Engine::Cpu,
        });
        match self.streamer.set_engine(target) {
            Switch::Done => self.say(format!("generation: {}", self.streamer.backend_label())),
            Switch::Opening => self.say("opening the GPU; the CPU generates meanwhile".to_string()),
            Switch::Unavailable(reason) => self.say(format!("GPU unavailable, staying on the CPU: {reason}")),
        }
    }

    fn change_distance(&mut self, r: i32) {
        if let Err(e) = memory::check(self.streamer.render_distance(), r, memory::available()) {
            self.say(e.to_string());
            return;
        }
        self.streamer.set_render_distance(r);
        view::show_changes(&mut self.streamer, &self.screen.gpu, &mut self.screen.renderer);
        self.settings.edit().render_distance = self.streamer.render_distance();
        self.say(format!("render distance {}", self.streamer.render_distance()));
    }

    /// One frame: the player's tick(s), streaming, the world and the
    /// overlay drawn, then what the overlay asked for.
    fn frame(&mut self) {
        let dt = self.frames.tick();
        self.simulate(dt);

        let Some(frame) = self.screen.next_frame() else { return };
        let view = frame.texture.create_view(&Default::default());
        let size = self.screen.size();
        let alpha = self.step.alpha();
        let eye = self.previous.eye().lerp(self.player.eye(), alpha);
        let camera = Camera::for_view(
            eye,
            self.player.yaw,
            self.player.pitch,
            self.settings.fov_degrees,
            size,
            self.streamer.render_distance(),
        );
        self.aim.hit = self.target();
        self.hear(eye, camera.forward());
        self.save(false);
        let scale = self.screen.window.scale_factor();
        let outline = self.aim.hit.map(|h| outline(&camera, h.block, size, scale)).unwrap_or_default();
        let screen = &mut self.screen;
        let mut encoder = screen.gpu.device.create_command_encoder(&Default::default());
        let params = ViewParams::new(
            self.streamer.render_distance(),
            self.far.horizon(),
            self.clock.time() as f32,
            self.frames.started.elapsed().as_secs_f32(),
        )
        .seen_from(self.streamer.block(BlockPos::containing(eye)));
        let (renderer, gpu) = (&mut screen.renderer, &screen.gpu);
        let stats = view::with_visibility(&mut self.streamer, self.settings.culling, self.far.horizon() > 0, |v| {
            renderer.render(gpu, &mut encoder, &view, size, &camera, &params, Some(v))
        });
        // The split costs a pass over every mesh: only while F3 shows it.
        let in_frustum = self.panels.debug.then(|| renderer.in_frustum(&camera, params.fog_end));
        let draw = DrawFigures { stats, in_frustum, culling: self.settings.culling };

        let data = self.hud_data(outline, draw);
        let (grabbed, panels) = (self.screen.grabbed(), &mut self.panels);
        let settings_open = panels.settings_open;
        let mut change = hud::SettingsChange::default();
        let icons = &mut panels.icons;
        let mut menu = (!grabbed && !settings_open)
            .then_some(hud::MenuView { menu: &mut panels.menu, current: self.saving.dir() });
        let mut over_ui = false;
        let screen = &mut self.screen;
        screen.overlay.draw(&screen.gpu, &screen.window, &mut encoder, &view, size, |ctx| {
            change = hud::draw(ctx, &data, settings_open, icons, menu.as_mut());
            over_ui = ctx.is_pointer_over_egui();
            change.clicked = over_ui && ctx.input(|i| i.pointer.primary_released());
        });
        if std::mem::take(&mut self.panels.world_click) && !over_ui && !grabbed && change.menu_choice.is_none() {
            self.panels.settings_open = false;
            self.screen.grab(true);
        }
        self.apply_settings(&change);
        let capture =
            std::mem::take(&mut self.panels.screenshot_wanted).then(|| self.screen.capture(&frame, &mut encoder));
        self.screen.present(frame, encoder);
        match capture {
            Some(Ok(readback)) => match readback.read_rgba(&self.screen.gpu) {
                Ok(rgba) => self.panels.screenshots.save(size, rgba),
                Err(e) => self.say(format!("screenshot failed: {e}")),
            },
            Some(Err(why)) => self.say(format!("screenshot failed: {why}")),
            None => {}
        }
        match self.panels.screenshots.finished() {
            Some(Ok(path)) => {
                self.say(format!("screenshot saved to {}", path.display()));
                self.panels.last_screenshot = Some(path);
            }
            Some(Err(why)) => self.say(format!("screenshot failed: {why}")),
            None => {}
        }

        // After the present: these may rebuild streaming or switch worlds.
        if let Some(r) = change.render_distance {
            self.change_distance(r);
        }
        if let Some(h) = change.horizon {
            self.far.set_horizon(h);
            self.settings.edit().horizon = h;
        }
        if let Some(e) = change.engine {
            self.toggle_backend(Some(e));
        }
        if let Some(f) = change.fly {
            self.player.mode = if f { Mode::Fly } else { Mode::Walk };
        }
        self.dump_state(&data, &change);
        if let Some(choice) = change.menu_choice.take() {
            self.menu_choice(choice);
        }
    }

    /// Look is applied per frame (no latency); movement per fixed tick;
    /// then streaming around where the player is.
    fn simulate(&mut self, dt: Duration) {
        let (dx, dy) = std::mem::take(&mut self.input.look);
        self.screen.recentre_cursor();
        let k = self.settings.mouse_sensitivity;
        self.player.look(dx * k, -dy * k);
        let ticks = self.step.advance(dt);
        let grabbed = self.screen.grabbed();
        self.clock.advance(dt, grabbed && self.input.is_held(KeyCode::KeyT));
        let intent = if grabbed { self.input.intent() } else { Default::default() };
        for _ in 0..ticks {
            self.previous = self.player;
            let store = self.streamer.store();
            let get = |p| store.get(p).map(|c| &**c);
            self.player.step(TICK.as_secs_f64(), intent, &LoadedChunks { get: &get });
            self.sound.tick(&self.previous, &self.player, intent.sprint, &|p| store.block(p));
        }
        let screen = &mut self.screen;
        view::update(&mut self.streamer, self.player.chunk(), Budget::default(), &screen.gpu, &mut screen.renderer);
        self.far.use_device(self.streamer.far_device());
        view::update_far(&mut self.far, self.player.eye(), &screen.gpu, &mut screen.renderer);
        if let Some(notice) = self.streamer.take_notice() {
            self.say(notice);
        }
    }

    /// What the overlay shows this frame.
    fn hud_data(&mut self, outline: Vec<[egui::Pos2; 2]>, draw: DrawFigures) -> HudData {
        if self.panels.message.as_ref().map(|(_, t)| t.elapsed() > Duration::from_secs(6)).unwrap_or(false) {
            self.panels.message = None;
        }
        let frame_ms = self.frames.mean_ms();
        HudData {
            fps: 1000.0 / frame_ms.max(1e-3),
            frame_ms,
            pose: Pose {
                pos: self.player.pos.to_array(),
                yaw: self.player.yaw,
                pitch: self.player.pitch,
                mode: self.player.mode,
                fluid: self.player.in_fluid,
            },
            counts: self.streamer.counts(),
            draw,
            backend: self.streamer.backend_label(),
            engine: self.streamer.wanted_engine(),
            balance: self.streamer.balance(),
            gpu_off: self.streamer.gpu_off_reason(),
            chunks_per_second: self.frames.chunks_per_second(self.streamer.generated_total()),
            render_distance: self.streamer.render_distance(),
            far: (self.far.horizon(), self.far.counts()),
            message: self.panels.message.as_ref().map(|(m, _)| m.clone()),
            debug: self.panels.debug,
            crosshair: self.screen.grabbed(),
            outline,
            hotbar: self.settings.hotbar.clone(),
            panel: PanelValues {
                fov_degrees: self.settings.fov_degrees,
                mouse_sensitivity: self.settings.mouse_sensitivity,
                fullscreen: self.settings.fullscreen,
                culling: self.settings.culling,
                time_of_day: self.clock.time(),
                sound: self.settings.sound,
            },
        }
    }

    /// The ears follow the eye; the ambience what is around it.
    fn hear(&mut self, eye: glam::DVec3, forward: glam::DVec3) {
        if let Some(n) = self.sound.audio.take_notice() {
            self.say(n);
        }
        self.sound.follow(&self.streamer, eye, forward, self.clock.time());
    }

    /// The settings panel's changes that take effect within the frame.
    fn apply_settings(&mut self, change: &hud::SettingsChange) {
        if change.clicked {
            self.sound.play(Sound::Click);
        }
        if let Some(v) = change.sound {
            self.settings.edit().sound = v;
            self.sound.audio.set_volumes(v);
        }
        if let Some((slot, b)) = change.hotbar_slot {
            self.settings.edit().hotbar.slots[slot] = b;
        }
        if let Some(t) = change.time_of_day {
            self.clock.set(t);
        }
        if let Some(f) = change.fov_degrees {
            self.settings.edit().fov_degrees = f;
        }
        if let Some(k) = change.mouse_sensitivity {
            self.settings.edit().mouse_sensitivity = k;
        }
        if let Some(c) = change.culling {
            self.settings.edit().culling = c;
        }
        if let Some(f) = change.fullscreen {
            if f != self.settings.fullscreen {
                self.act(Action::ToggleFullscreen);
            }
        }
    }

    /// `--dump-state`: a line a second for tests that drive the window.
    fn dump_state(&mut self, data: &HudData, change: &hud::SettingsChange) {
        let Some(dump) = &mut self.dump else { return };
        let aim = &self.aim;
        let line = StateLine {
            t: self.frames.started.elapsed().as_secs_f64(),
            player: data.pose,
            generation: GenerationLine {
                backend: &data.backend,
                gpu_off: data.gpu_off.as_deref(),
                balance: data.balance,
                render_distance: data.render_distance,
                loaded_chunks: data.counts.loaded,
                meshes: data.draw.stats.in_range,
                complete: data.counts.complete,
                wanted: data.counts.wanted,
            },
            frames: FrameLine {
                fps: data.fps,
                frame_ms_max: self.frames.max_ms(),
                switch_ms: self.streamer.longest_switch_call().as_secs_f64() * 1e3,
            },
            aim: AimLine {
                grabbed: self.screen.grabbed(),
                target: aim.hit.map(|h| [h.block.x, h.block.y, h.block.z]),
                slot: self.settings.hotbar.selected,
                last_break: aim.last_break.map(|p| [p.x, p.y, p.z]),
                last_place: aim.last_place.map(|(p, b)| ([p.x, p.y, p.z], b.name())),
            },
            ui: UiLine {
                world: self.saving.dir().map(|d| d.display().to_string()),
                overlay: self.panels.debug,
                screenshot: self.panels.last_screenshot.as_ref().map(|p| p.display().to_string()),
                menu: (!change.menu_widgets.is_empty())
                    .then(|| change.menu_widgets.iter().map(|(n, c)| (n.as_str(), *c)).collect()),
            },
            audio: AudioLine {
                audio: match self.sound.audio.output {
                    crate::audio::Output::Device => "device",
                    crate::audio::Output::Record(_) => "record",
                    crate::audio::Output::Discard => "discard",
                    crate::audio::Output::Off | crate::audio::Output::Unavailable(_) => "off",
                },
                sounds: self.sound.audio.state.played.load(Ordering::Relaxed),
                recording_s: self.sound.audio.state.recording_time(Instant::now()),
                last_edit_s: self.sound.last_edit_s,
                sound_ms_p99: self.sound.cost_p99_ms(),
                ambience: crate::audio::ambience::LAYERS.iter().copied().zip(self.sound.mix).collect(),
                sound_cpu_s: self.sound.audio.state.cpu_time().map(|d| d.as_secs_f64()),
            },
        };
        if let Err(e) = dump.maybe_write(&line) {
            eprintln!("blockworld: state dump failed: {e}");
            self.dump = None;
        }
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        match self.start(event_loop) {
            Ok(r) => self.running = Some(r),
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(r) = self.running.as_mut() else { return };
        let grabbed = r.screen.grabbed();
        let ui_shown = r.panels.settings_open || !grabbed;
        let used_by_ui = ui_shown && r.screen.overlay.on_window_event(&r.screen.window, &event);
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(s) => r.screen.resize(s.width, s.height),
            WindowEvent::Focused(false) => {
                r.input.release_all();
                r.sound.audio.set_focused(false);
            }
            WindowEvent::Focused(true) => r.sound.audio.set_focused(true),
            WindowEvent::KeyboardInput { event, .. }
                if !used_by_ui || event.physical_key == winit::keyboard::KeyCode::Tab =>
            {
                if let Some(action) = r.input.key(event.physical_key, event.state == ElementState::Pressed) {
                    r.act(action);
                }
            }
            WindowEvent::MouseInput { state: ElementState::Pressed, button: MouseButton::Left, .. } if !grabbed => {
                r.panels.world_click = true;
            }
            WindowEvent::MouseInput { state: ElementState::Pressed, button, .. } if grabbed => match button {
                MouseButton::Left => r.break_block(),
                MouseButton::Right => r.place_block(),
                _ => {}
            },
            WindowEvent::MouseWheel { delta, .. } if grabbed => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y.signum() as i32,
                    MouseScrollDelta::PixelDelta(p) => p.y.signum() as i32,
                };
                r.settings.edit().hotbar.scroll(steps);
            }
            WindowEvent::RedrawRequested => {
                r.frame();
                let timed_out = self.opts.exit_after.is_some_and(|limit| r.frames.started.elapsed() >= limit);
                if r.quit || timed_out {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn device_event(&mut self, _event_loop: &ActiveEventLoop, _id: DeviceId, event: DeviceEvent) {
        if let (Some(r), DeviceEvent::MouseMotion { delta }) = (self.running.as_mut(), event) {
            if r.screen.grabbed() {
                r.input.look.0 += delta.0;
                r.input.look.1 += delta.1;
            }
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        // Ctrl-C or SIGTERM: `play` saves the world once the loop has ended.
        if self.opts.stop.load(Ordering::Relaxed) {
            event_loop.exit();
            return;
        }
        if let Some(r) = &self.running {
            r.screen.window.request_redraw();
        }
    }
}
