//! The game's side of sound: what the player's feet, hands and eyes do,
//! turned into messages for the sound thread (`crate::audio`). Everything
//! here runs on the game thread and only queues.

use super::player::{Mode, Player};
use super::streaming::ChunkStreamer;
use crate::audio::ambience::{self, Surroundings};
use crate::audio::steps::{Feet, Footsteps};
use crate::audio::{Action, Audio, Output, Scene, Sound, Volumes};
use crate::world::block::{BlockId, FluidKind};
use crate::world::edits::BlockPos;
use std::time::{Duration, Instant};

/// The surroundings are probed this often (the ambience fades over
/// seconds, so more often would change nothing a player hears).
const PROBE_EVERY: Duration = Duration::from_millis(250);

/// A probe is spread over frames, this many slices a frame (of
/// [`ambience::PROBE_SLICES`]), so none pays for all of it.
const SLICES_PER_FRAME: usize = 4;

pub struct GameSound {
    pub audio: Audio,
    steps_off: bool,
    steps: Footsteps,
    probed: Option<Instant>,
    probing: Option<ambience::Probe>,
    around: Surroundings,
    /// The ambience the last frame asked for ([`ambience::LAYERS`]).
    pub mix: ambience::Mix,
    /// The game thread's CPU time in the sound work of the last 600
    /// frames, ms (wall time where there is no per-thread clock).
    costs: std::collections::VecDeque<f32>,
    /// Seconds into the recording when a block was last broken or placed.
    pub last_edit_s: Option<f64>,
}

/// The centre of block `p`, where its sounds come from.
fn centre(p: BlockPos) -> [f32; 3] {
    [p.x as f32 + 0.5, p.y as f32 + 0.5, p.z as f32 + 0.5]
}

impl GameSound {
    /// `footsteps: false` is the window test's negative control.
    pub fn new(output: Output, volumes: Volumes, footsteps: bool) -> GameSound {
        GameSound {
            audio: Audio::start(output, volumes),
            steps_off: !footsteps,
            steps: Footsteps::default(),
            probed: None,
            probing: None,
            mix: [0.0; 7],
            around: Surroundings::default(),
            costs: std::collections::VecDeque::with_capacity(600),
            last_edit_s: None,
        }
    }

    /// After a fixed tick: a footstep if one is due, by the block underfoot
    /// (or the water waded in).
    pub fn tick(&mut self, before: &Player, after: &Player, sprint: bool, block: &dyn Fn(BlockPos) -> Option<BlockId>) {
        let d = after.pos - before.pos;
        let moved = (d.x * d.x + d.z * d.z).sqrt();
        // A swimmer's strokes sound at the stride, as water steps.
        let feet = Feet {
            on_ground: after.on_ground || after.in_fluid == Some(super::player::Fluid::Water),
            flying: after.mode == Mode::Fly,
            moved,
            sprint,
            fall_speed: before.vel.y,
        };
        if !self.steps.tick(feet) || self.steps_off {
            return;
        }
        let p = after.pos;
        let at = |dy: f64| BlockPos::new(p.x.floor() as i64, (p.y + dy).floor() as i64, p.z.floor() as i64);
        let wading = block(at(0.1)).map(|b| b.info().liquid).unwrap_or(false);
        let under = if wading { block(at(0.1)) } else { block(at(-0.05)) };
        let Some(b) = under.filter(|b| *b != BlockId::AIR) else { return };
        let group = b.info().sound;
        if group != "none" {
            self.audio.play(Sound::Block { group, action: Action::Step, at: None });
        }
    }

    /// A block was broken (`was` is what it had been) or placed.
    pub fn edited(&mut self, pos: BlockPos, was: BlockId, now: BlockId) {
        self.last_edit_s = self.audio.state.recording_time(Instant::now());
        let (block, action) = if now == BlockId::AIR { (was, Action::Break) } else { (now, Action::Place) };
        let group = block.info().sound;
        if group != "none" {
            self.audio.play(Sound::Block { group, action, at: Some(centre(pos)) });
        }
    }

    pub fn play(&self, s: Sound) {
        self.audio.play(s);
    }

    /// Once a frame: the ears follow the eye; the ambience follows what is
    /// around it, probed every `PROBE_EVERY`.
    #[allow(clippy::too_many_arguments)]
    pub fn frame(
        &mut self,
        eye: glam::DVec3,
        forward: glam::DVec3,
        sea_level: f64,
        sky: u8,
        time_of_day: f64,
        block: &dyn Fn(BlockPos) -> Option<BlockId>,
    ) {
        let (t0, cpu) = (Instant::now(), super::frame_stats::CpuClock::now());
        if self.probing.is_none() && self.probed.map(|t| t.elapsed() >= PROBE_EVERY).unwrap_or(true) {
            self.probed = Some(t0);
            let day = ambience::daylight(time_of_day);
            self.probing = Some(ambience::Probe::new(eye.to_array(), sea_level, sky, day, block));
        }
        if let Some(p) = &mut self.probing {
            if p.step(SLICES_PER_FRAME, block) {
                self.around = p.surroundings();
                self.probing = None;
            }
        }
        let eye_block = BlockPos::new(eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64);
        let under_water = block(eye_block).and_then(BlockId::fluid_kind) == Some(FluidKind::Water);
        let around = Surroundings { under_water, ..self.around };
        let f = forward.as_vec3().to_array();
        self.mix = ambience::mix(&around);
        self.audio.scene(Scene {
            eye: eye.as_vec3().to_array(),
            forward: f,
            mix: self.mix,
            under_water,
            water_at: around.water.map(|w| w.0),
            lava_at: around.lava.map(|l| l.0),
        });
        if self.costs.len() == 600 {
            self.costs.pop_front();
        }
        self.costs.push_back(cpu.ms() as f32);
    }

    /// Once a frame, from the streamed world: the sky light at the eye,
    /// the sea level and the blocks around it.
    pub fn follow(&mut self, streamer: &ChunkStreamer, eye: glam::DVec3, forward: glam::DVec3, time_of_day: f64) {
        let sky = streamer.light_at(BlockPos::containing(eye)).map(|l| l.sky()).unwrap_or(15);
        let sea = streamer.world().params.surface.water_level as f64;
        let store = streamer.store();
        self.frame(eye, forward, sea, sky, time_of_day, &|p| store.block(p));
    }

    /// The 99th percentile of the game thread's sound work per frame over
    /// the last 600 frames, ms (the state dump's `sound_ms_p99`).
    pub fn cost_p99_ms(&self) -> f32 {
        let mut c: Vec<f32> = self.costs.iter().copied().collect();
        c.sort_by(f32::total_cmp);
        c.get((c.len() * 99 / 100).min(c.len().saturating_sub(1))).copied().unwrap_or(0.0)
    }
}
