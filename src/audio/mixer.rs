//! The game's sound graph on a kira manager, for any backend: the sound
//! thread drives it with the device's backend or the recorder, and the
//! tests with [`super::capture`] directly.
//!
//! ```text
//! main (master volume; silent while unfocused, if set)
//! ├── world ── low-pass filter (closes under water)
//! │   ├── blocks (volume) ── one spatial track per block sound; footsteps
//! │   └── ambience (volume) ── wind, birds, insects, murk, cave;
//! │                            water and lava on spatial tracks
//! └── ui ── clicks, the shutter
//! ```

use super::ambience::{Mix, LAYERS};
use super::bank::{Bank, Cue};
use kira::backend::Backend;
use kira::effect::filter::{FilterBuilder, FilterHandle};
use kira::listener::ListenerHandle;
use kira::sound::static_sound::{StaticSoundData, StaticSoundHandle};
use kira::track::{SpatialTrackBuilder, SpatialTrackDistances, SpatialTrackHandle, TrackBuilder, TrackHandle};
use kira::{AudioManager, AudioManagerSettings, Decibels, Easing, PlaybackRate, Tween};
use std::time::Duration;

/// A player's volumes, each 0..1 (settings.ron).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Volumes {
    pub master: f32,
    pub blocks: f32,
    pub ambience: f32,
    /// Silence while the window is not focused.
    pub mute_unfocused: bool,
}

impl Default for Volumes {
    fn default() -> Self {
        Volumes { master: 0.8, blocks: 1.0, ambience: 0.7, mute_unfocused: true }
    }
}

/// Which cue of a block's group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Step,
    Dig,
    Break,
    Place,
}

/// A sound the game asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Sound {
    /// A block group's cue, at a block's centre (None: at the listener,
    /// as the player's own footsteps are).
    Block { group: &'static str, action: Action, at: Option<[f32; 3]> },
    Click,
    Shutter,
}

/// Where the ears are, and what the ambience should be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scene {
    pub eye: [f32; 3],
    /// Unit vector the eye looks along.
    pub forward: [f32; 3],
    pub mix: Mix,
    pub under_water: bool,
    pub water_at: Option<[f32; 3]>,
    pub lava_at: Option<[f32; 3]>,
}

#[derive(Debug, thiserror::Error)]
pub enum MixerError {
    #[error("the audio backend failed to start: {0}")]
    Backend(String),
    #[error("the mixer ran out of room: {0}")]
    Resources(String),
    #[error("cannot play a sound: {0}")]
    Play(String),
}

fn db(gain: f32) -> Decibels {
    if gain <= 0.001 {
        Decibels::SILENCE
    } else {
        Decibels(20.0 * gain.log10())
    }
}

fn tween(ms: u64) -> Tween {
    Tween { duration: Duration::from_millis(ms), easing: Easing::Linear, ..Default::default() }
}

fn mint3(v: [f32; 3]) -> mint::Vector3<f32> {
    mint::Vector3 { x: v[0], y: v[1], z: v[2] }
}

/// A rotation taking the listener's −Z to `forward` and +X to its right,
/// as kira places the ears on ±X.
fn orientation(forward: [f32; 3]) -> mint::Quaternion<f32> {
    let f = glam::Vec3::from_array(forward).normalize_or(glam::Vec3::NEG_Z);
    let right = f.cross(glam::Vec3::Y).normalize_or(glam::Vec3::X);
    let up = right.cross(f);
    let q = glam::Quat::from_mat3(&glam::Mat3::from_cols(right, up, -f));
    mint::Quaternion { v: mint::Vector3 { x: q.x, y: q.y, z: q.z }, s: q.w }
}

/// A loop of the ambience.
enum Place {
    Flat,
    Spatial(SpatialTrackHandle),
}

struct Layer {
    sound: StaticSoundHandle,
    gain: f32,
    place: Place,
    target: f32,
}

pub struct Mixer<B: Backend> {
    manager: AudioManager<B>,
    listener: ListenerHandle,
    _world: TrackHandle,
    filter: FilterHandle,
    blocks: TrackHandle,
    ambience: TrackHandle,
    ui: TrackHandle,
    layers: Vec<Layer>,
    bank: Bank,
    rng: u64,
    volumes: Volumes,
    focused: bool,
    under_water: bool,
    /// Sounds started, for the state dump and the tests.
    pub played: u64,
}

const OPEN: f64 = 20_000.0;
const MUFFLED: f64 = 700.0;

impl<B: Backend> Mixer<B>
where
    B::Error: std::fmt::Display,
{
    pub fn new(settings: B::Settings, bank: Bank, volumes: Volumes) -> Result<Mixer<B>, MixerError> {
        let mut manager = AudioManager::<B>::new(AudioManagerSettings {
            capacities: Default::default(),
            main_track_builder: Default::default(),
            internal_buffer_size: 128,
            backend_settings: settings,
        })
        .map_err(|e| MixerError::Backend(e.to_string()))?;
        let res = |e: kira::ResourceLimitReached| MixerError::Resources(e.to_string());
        let listener = manager.add_listener(mint3([0.0; 3]), orientation([0.0, 0.0, -1.0])).map_err(res)?;
        let mut world_builder = TrackBuilder::new().sub_track_capacity(8);
        let filter = world_builder.add_effect(FilterBuilder::new().cutoff(OPEN));
        let mut world = manager.add_sub_track(world_builder).map_err(res)?;
        let blocks = world.add_sub_track(TrackBuilder::new().sub_track_capacity(256).sound_capacity(256)).map_err(res)?;
        let mut ambience = world.add_sub_track(TrackBuilder::new().sub_track_capacity(8)).map_err(res)?;
        let ui = manager.add_sub_track(TrackBuilder::new()).map_err(res)?;
        let mut layers = Vec::new();
        for (i, (data, gain)) in bank.ambience.iter().enumerate() {
            let looped = data.loop_region(..).volume(Decibels::SILENCE);
            let spatial = matches!(LAYERS[i], "water" | "lava");
            let (sound, place) = if spatial {
                // The rule sets the loudness by distance; the track only pans.
                let builder = SpatialTrackBuilder::new().attenuation_function(None).spatialization_strength(0.6);
                let mut track = ambience.add_spatial_sub_track(listener.id(), mint3([0.0; 3]), builder).map_err(res)?;
                let sound = track.play(looped).map_err(|e| MixerError::Play(e.to_string()))?;
                (sound, Place::Spatial(track))
            } else {
                (ambience.play(looped).map_err(|e| MixerError::Play(e.to_string()))?, Place::Flat)
            };
            layers.push(Layer { sound, gain: *gain, place, target: 0.0 });
        }
        let mut m = Mixer {
            manager,
            listener,
            _world: world,
            filter,
            blocks,
            ambience,
            ui,
            layers,
            bank,
            rng: 0x5eed_50d5,
            volumes,
            focused: true,
            under_water: false,
            played: 0,
        };
        m.apply_volumes(0);
        Ok(m)
    }

    pub fn backend_mut(&mut self) -> &mut B {
        self.manager.backend_mut()
    }

    fn random(&mut self) -> f32 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A variant of `cue` with its random pitch and volume.
    fn pick(&mut self, cue: &Cue) -> StaticSoundData {
        let n = cue.variants.len();
        let i = ((self.random() * n as f32) as usize).min(n.saturating_sub(1));
        let semis = (self.random() * 2.0 - 1.0) * cue.pitch;
        let vol = cue.gain + (self.random() * 2.0 - 1.0) * cue.volume;
        cue.variants[i].volume(Decibels(vol)).playback_rate(PlaybackRate(2f64.powf(semis as f64 / 12.0)))
    }

    pub fn play(&mut self, sound: &Sound) -> Result<(), MixerError> {
        let play_err = |e: kira::PlaySoundError<()>| MixerError::Play(e.to_string());
        match sound {
            Sound::Block { group, action, at } => {
                let Some(g) = self.bank.groups.get(*group) else { return Ok(()) };
                let cue = match action {
                    Action::Step => g.step.clone(),
                    Action::Dig => g.dig.clone(),
                    Action::Break => g.brk.clone(),
                    Action::Place => g.place.clone(),
                };
                let data = self.pick(&cue);
                match at {
                    None => {
                        self.blocks.play(data).map_err(play_err)?;
                    }
                    Some(p) => {
                        let builder = SpatialTrackBuilder::new()
                            .persist_until_sounds_finish(true)
                            .distances(SpatialTrackDistances { min_distance: 2.0, max_distance: 40.0 });
                        let mut track = self
                            .blocks
                            .add_spatial_sub_track(self.listener.id(), mint3(*p), builder)
                            .map_err(|e| MixerError::Resources(e.to_string()))?;
                        track.play(data).map_err(play_err)?;
                    }
                }
            }
            Sound::Click => {
                let data = self.pick(&self.bank.click.clone());
                self.ui.play(data).map_err(play_err)?;
            }
            Sound::Shutter => {
                let data = self.pick(&self.bank.shutter.clone());
                self.ui.play(data).map_err(play_err)?;
            }
        }
        self.played += 1;
        Ok(())
    }

    /// Moves the ears and tweens each ambience layer to its new strength.
    pub fn set_scene(&mut self, s: &Scene) {
        let t = tween(60);
        self.listener.set_position(mint3(s.eye), t);
        self.listener.set_orientation(orientation(s.forward), t);
        if s.under_water != self.under_water {
            self.under_water = s.under_water;
            self.filter.set_cutoff(if s.under_water { MUFFLED } else { OPEN }, tween(250));
        }
        for (i, layer) in self.layers.iter_mut().enumerate() {
            let target = s.mix[i];
            if (target - layer.target).abs() > 0.01 || (target == 0.0) != (layer.target == 0.0) {
                layer.target = target;
                let level = if target <= 0.001 { Decibels::SILENCE } else { Decibels(db(target).0 + layer.gain) };
                // Slow enough that walking from a meadow into a cave
                // crossfades; never a step in level.
                layer.sound.set_volume(level, tween(1500));
            }
            if let Place::Spatial(track) = &mut layer.place {
                let at = if LAYERS[i] == "water" { s.water_at } else { s.lava_at };
                if let Some(at) = at {
                    track.set_position(mint3(at), tween(400));
                }
            }
        }
    }

    pub fn set_volumes(&mut self, v: Volumes) {
        self.volumes = v;
        self.apply_volumes(150);
    }

    pub fn set_focused(&mut self, focused: bool) {
        self.focused = focused;
        self.apply_volumes(300);
    }

    fn apply_volumes(&mut self, ms: u64) {
        let v = self.volumes;
        let master = if !self.focused && v.mute_unfocused { 0.0 } else { v.master };
        self.manager.main_track().set_volume(db(master), tween(ms));
        self.blocks.set_volume(db(v.blocks), tween(ms));
        self.ambience.set_volume(db(v.ambience), tween(ms));
    }

    /// The current strength each ambience layer is heading for.
    pub fn targets(&self) -> Mix {
        let mut m = [0.0; 7];
        for (i, l) in self.layers.iter().enumerate() {
            m[i] = l.target;
        }
        m
    }
}
