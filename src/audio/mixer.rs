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
    Block {
        group: &'static str,
        action: Action,
        at: Option<[f32; 3]>,
    },
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

/// A loop of the ambience, on a spatial track where it has a place.
struct Layer {
    sound: StaticSoundHandle,
    gain: f32,
    spatial: Option<SpatialTrackHandle>,
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
        let blocks =
            world.add_sub_track(TrackBuilder::new().sub_track_capacity(256).sound_capacity(256)).map_err(res)?;
        let mut ambience = world.add_sub_track(TrackBuilder::new().sub_track_capacity(8)).map_err(res)?;
        let ui = manager.add_sub_track(TrackBuilder::new()).map_err(res)?;
        let mut layers = Vec::new();
        for (i, (data, gain)) in bank.ambience.iter().enumerate() {
            let looped = data.loop_region(..).volume(Decibels::SILENCE);
            let spatial = matches!(LAYERS[i], "water" | "lava");
            let (sound, spatial) = if spatial {
                // The rule sets the loudness by distance; the track only pans.
                let builder = SpatialTrackBuilder::new().attenuation_function(None).spatialization_strength(0.6);
                let mut track = ambience.add_spatial_sub_track(listener.id(), mint3([0.0; 3]), builder).map_err(res)?;
                let sound = track.play(looped).map_err(|e| MixerError::Play(e.to_string()))?;
                (sound, Some(track))
            } else {
                (ambience.play(looped).map_err(|e| MixerError::Play(e.to_string()))?, None)
            };
            let mut sound = sound;
            // Silent until a scene wants it (see set_scene).
            sound.pause(Tween::default());
            layers.push(Layer { sound, gain: *gain, spatial, target: 0.0 });
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
                // A silent loop is paused, so the mix spends nothing on it;
                // the pause and the resume fade as the volume does, so
                // neither clicks, and a loop resumes where it stopped.
                if target <= 0.001 {
                    layer.sound.pause(tween(1500));
                } else {
                    layer.sound.resume(tween(20));
                }
            }
            if let Some(track) = &mut layer.spatial {
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

#[cfg(test)]
mod tests {
    use super::super::ambience::{self, Surroundings};
    use super::super::capture::{CaptureBackend, Tap, RATE};
    use super::*;

    fn mixer() -> (Mixer<CaptureBackend>, Tap) {
        let tap = Tap::default();
        let bank = Bank::shipped().expect("the shipped sounds");
        let volumes = Volumes { master: 1.0, blocks: 1.0, ambience: 1.0, mute_unfocused: true };
        (Mixer::new(tap.clone(), bank, volumes).expect("a mixer on the capture backend"), tap)
    }

    fn seconds(tap: &Tap, s: f32) -> Vec<f32> {
        let frames = (s * RATE as f32) as usize;
        (0..frames.div_ceil(256)).flat_map(|_| tap.render(256)).collect()
    }

    fn rms(x: &[f32]) -> f32 {
        (x.iter().map(|v| v * v).sum::<f32>() / x.len().max(1) as f32).sqrt()
    }

    /// Mean step between samples: a crude measure of the high frequencies.
    fn roughness(x: &[f32]) -> f32 {
        x.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f32>() / x.len().max(1) as f32
    }

    fn scene(s: &Surroundings) -> Scene {
        Scene {
            eye: [0.0; 3],
            forward: [0.0, 0.0, -1.0],
            mix: ambience::mix(s),
            under_water: s.under_water,
            water_at: s.water.map(|w| w.0),
            lava_at: s.lava.map(|l| l.0),
        }
    }

    /// The mix's level over its last second, 2.5 s after the scene is set
    /// (the layers fade in over 1.5 s).
    fn ambience_level(s: Surroundings) -> f32 {
        let (mut m, tap) = mixer();
        m.set_scene(&scene(&s));
        let out = seconds(&tap, 2.5);
        rms(&out[out.len() - 2 * RATE as usize..])
    }

    #[test]
    fn silence_until_a_footstep_then_the_footstep() {
        let (mut m, tap) = mixer();
        m.set_scene(&scene(&Surroundings { height: 0.0, open: 0.0, sky: 15, ..Default::default() }));
        assert!(rms(&seconds(&tap, 0.2)) < 1e-4, "no sound before one is played");
        m.play(&Sound::Block { group: "stone", action: Action::Step, at: None }).expect("plays");
        let out = seconds(&tap, 0.3);
        let peak = out.iter().fold(0.0f32, |p, v| p.max(v.abs()));
        assert!(peak > 0.05, "the footstep is in the mix: peak {peak}");
        // It starts in the first block rendered after it was played.
        let first = out.iter().position(|v| v.abs() > 1e-3).expect("an onset") / 2;
        assert!(first < 512, "first sample {first} frames after the event");
        assert_eq!(m.played, 1);
    }

    #[test]
    fn under_water_the_world_is_muffled() {
        let hear = |under: bool| {
            let (mut m, tap) = mixer();
            let mut s = scene(&Surroundings { open: 0.0, ..Default::default() });
            s.mix = [0.0; 7];
            s.under_water = under;
            m.set_scene(&s);
            seconds(&tap, 0.4);
            m.play(&Sound::Block { group: "gravel", action: Action::Break, at: Some([1.0, 0.0, -2.0]) })
                .expect("plays");
            let out = seconds(&tap, 0.5);
            (roughness(&out), rms(&out))
        };
        let (dry, wet) = (hear(false), hear(true));
        assert!(wet.0 < 0.35 * dry.0, "the filter took the highs: {dry:?} → {wet:?}");
        assert!(wet.1 > 0.0, "still audible");
    }

    #[test]
    fn a_block_sound_is_panned_towards_it() {
        let side = |x: f32| {
            let (mut m, tap) = mixer();
            let mut s = scene(&Surroundings { open: 0.0, ..Default::default() });
            s.mix = [0.0; 7];
            m.set_scene(&s);
            seconds(&tap, 0.2);
            m.play(&Sound::Block { group: "wood", action: Action::Place, at: Some([x, 0.0, 0.0]) }).expect("plays");
            let out = seconds(&tap, 0.4);
            let (l, r): (Vec<f32>, Vec<f32>) = out.chunks(2).map(|f| (f[0], f[1])).unzip();
            rms(&l) / rms(&r).max(1e-9)
        };
        // The listener faces −z: +x is to its right.
        assert!(side(4.0) < 0.8, "a block to the right is louder on the right: l/r {}", side(4.0));
        assert!(side(-4.0) > 1.25, "and to the left on the left: l/r {}", side(-4.0));
    }

    #[test]
    fn the_ambience_rules_are_heard() {
        let quiet = Surroundings { height: 0.0, open: 0.0, sky: 15, green: 0.0, ..Default::default() };
        let base = ambience_level(quiet);
        assert!(base < 1e-3, "nothing around: silence ({base})");
        let cases = [
            ("height: wind on a peak", Surroundings { height: 80.0, open: 1.0, ..quiet }),
            ("biome and time: birds by day in green", Surroundings { green: 0.6, open: 1.0, day: 1.0, ..quiet }),
            ("biome and time: crickets by night in green", Surroundings { green: 0.6, open: 1.0, day: 0.0, ..quiet }),
            ("under water: the murk", Surroundings { under_water: true, ..quiet }),
            ("underground: drops and room tone", Surroundings { sky: 0, ..quiet }),
            ("a shore: water", Surroundings { water: Some(([3.0, 0.0, 0.0], 3.0)), ..quiet }),
            ("lava near", Surroundings { lava: Some(([0.0, -2.0, 0.0], 2.0)), ..quiet }),
        ];
        for (what, s) in cases {
            let level = ambience_level(s);
            assert!(level > 0.005, "{what}: level {level}");
        }
    }

    #[test]
    fn unfocused_is_silent_when_asked() {
        let (mut m, tap) = mixer();
        m.set_scene(&scene(&Surroundings { sky: 0, open: 0.0, height: 0.0, ..Default::default() }));
        seconds(&tap, 2.0);
        m.set_focused(false);
        let out = seconds(&tap, 1.0);
        assert!(rms(&out[RATE as usize..]) < 1e-4, "muted after the fade");
        m.set_focused(true);
        let out = seconds(&tap, 1.0);
        assert!(rms(&out[RATE as usize..]) > 1e-3, "back when focused");
    }

    #[test]
    fn a_silent_loop_is_paused_and_comes_back() {
        use kira::sound::PlaybackState;
        let cave = Surroundings { sky: 0, open: 0.0, height: 0.0, ..Default::default() };
        let quiet = Surroundings { sky: 15, ..cave };
        let index = LAYERS.iter().position(|&l| l == "cave").expect("a cave layer");
        let (mut m, tap) = mixer();
        let states = |m: &Mixer<CaptureBackend>| m.layers.iter().map(|l| l.sound.state()).collect::<Vec<_>>();
        seconds(&tap, 0.1);
        assert!(states(&m).iter().all(|s| *s == PlaybackState::Paused), "{:?}", states(&m));
        m.set_scene(&scene(&cave));
        seconds(&tap, 2.0);
        assert_eq!(states(&m)[index], PlaybackState::Playing);
        m.set_scene(&scene(&quiet));
        let out = seconds(&tap, 2.0);
        assert!(states(&m).iter().all(|s| *s == PlaybackState::Paused), "{:?}", states(&m));
        assert!(rms(&out[out.len() - RATE as usize / 2..]) < 1e-5, "silent once paused");
        m.set_scene(&scene(&cave));
        let out = seconds(&tap, 2.5);
        assert_eq!(states(&m)[index], PlaybackState::Playing);
        assert!(rms(&out[out.len() - 2 * RATE as usize..]) > 0.005, "the cave is heard again");
    }
}
