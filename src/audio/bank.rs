//! `assets/sounds.ron` made playable: every group's cues (footstep, dig,
//! break, place) and every ambience loop as kira sound data, decoded or
//! synthesised once at start.

use super::synth::{Recipe, RATE};
use kira::sound::static_sound::StaticSoundData;
use kira::Frame;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The sounds description shipped with the game.
pub const SOUNDS_RON: &str = include_str!("../../assets/sounds.ron");

/// The recorded files, embedded so that the binary needs nothing beside it.
const FILES: &[(&str, &[u8])] = &[
    ("default_snow_footstep.1.ogg", include_bytes!("../../assets/sounds/default_snow_footstep.1.ogg")),
    ("default_snow_footstep.2.ogg", include_bytes!("../../assets/sounds/default_snow_footstep.2.ogg")),
    ("default_snow_footstep.3.ogg", include_bytes!("../../assets/sounds/default_snow_footstep.3.ogg")),
    ("default_snow_footstep.4.ogg", include_bytes!("../../assets/sounds/default_snow_footstep.4.ogg")),
    ("default_snow_footstep.5.ogg", include_bytes!("../../assets/sounds/default_snow_footstep.5.ogg")),
    ("default_water_footstep.1.ogg", include_bytes!("../../assets/sounds/default_water_footstep.1.ogg")),
    ("default_water_footstep.2.ogg", include_bytes!("../../assets/sounds/default_water_footstep.2.ogg")),
    ("default_water_footstep.3.ogg", include_bytes!("../../assets/sounds/default_water_footstep.3.ogg")),
    ("default_break_glass.1.ogg", include_bytes!("../../assets/sounds/default_break_glass.1.ogg")),
    ("default_break_glass.2.ogg", include_bytes!("../../assets/sounds/default_break_glass.2.ogg")),
    ("default_break_glass.3.ogg", include_bytes!("../../assets/sounds/default_break_glass.3.ogg")),
    ("default_dig_snappy.ogg", include_bytes!("../../assets/sounds/default_dig_snappy.ogg")),
    ("env_sounds_water.1.ogg", include_bytes!("../../assets/sounds/env_sounds_water.1.ogg")),
    ("env_sounds_water.2.ogg", include_bytes!("../../assets/sounds/env_sounds_water.2.ogg")),
    ("env_sounds_water.3.ogg", include_bytes!("../../assets/sounds/env_sounds_water.3.ogg")),
    ("env_sounds_water.4.ogg", include_bytes!("../../assets/sounds/env_sounds_water.4.ogg")),
    ("env_sounds_lava.1.ogg", include_bytes!("../../assets/sounds/env_sounds_lava.1.ogg")),
    ("env_sounds_lava.2.ogg", include_bytes!("../../assets/sounds/env_sounds_lava.2.ogg")),
];

#[derive(Debug, thiserror::Error)]
pub enum BankError {
    #[error("assets/sounds.ron: {0}")]
    Parse(String),
    #[error("assets/sounds.ron: {at}: {why}")]
    Invalid { at: String, why: String },
    #[error("sound file {0}: {1}")]
    Decode(String, String),
}

/// One source of a cue: a recorded file, or a recipe and how many variants of it.
#[derive(Clone, Debug, Deserialize)]
pub enum Source {
    File(String),
    Synth(Recipe, u32),
}

/// A cue as described: its sources, and the random spread of each play.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CueSpec {
    pub sources: Vec<Source>,
    /// Each play is shifted by up to ± this many semitones.
    #[serde(default)]
    pub pitch: f32,
    /// Each play's gain varies by up to ± this many dB.
    #[serde(default)]
    pub volume: f32,
    /// The cue's gain, dB.
    #[serde(default)]
    pub gain: f32,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    pub step: CueSpec,
    pub dig: CueSpec,
    /// Defaults to the dig cue, louder.
    #[serde(default, rename = "break")]
    pub brk: Option<CueSpec>,
    /// Defaults to the step cue.
    #[serde(default)]
    pub place: Option<CueSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopSpec {
    pub source: Source,
    /// Gain at the layer's full strength, dB.
    #[serde(default)]
    pub gain: f32,
}

/// The ambience layers, one loop each (see `ambience.rs` for when each sounds).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmbienceSpec {
    pub wind: LoopSpec,
    pub birds: LoopSpec,
    pub insects: LoopSpec,
    pub water: LoopSpec,
    pub murk: LoopSpec,
    pub cave: LoopSpec,
    pub lava: LoopSpec,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoundsSpec {
    pub groups: BTreeMap<String, GroupSpec>,
    pub ambience: AmbienceSpec,
    pub click: CueSpec,
    pub shutter: CueSpec,
}

impl SoundsSpec {
    pub fn parse(text: &str) -> Result<SoundsSpec, BankError> {
        let spec: SoundsSpec = ron::from_str(text).map_err(|e| BankError::Parse(e.to_string()))?;
        spec.check()?;
        Ok(spec)
    }

    fn check(&self) -> Result<(), BankError> {
        let bad = |at: String, why: String| Err(BankError::Invalid { at, why });
        for b in crate::world::block::BLOCKS.iter() {
            if b.sound != "none" && !self.groups.contains_key(b.sound) {
                return bad(format!("block `{}`", b.name), format!("its sound group `{}` is not in `groups`", b.sound));
            }
        }
        let mut cues: Vec<(String, &CueSpec)> = vec![("click".into(), &self.click), ("shutter".into(), &self.shutter)];
        for (name, g) in &self.groups {
            cues.push((format!("{name}.step"), &g.step));
            cues.push((format!("{name}.dig"), &g.dig));
            cues.extend(g.brk.iter().map(|c| (format!("{name}.break"), c)));
            cues.extend(g.place.iter().map(|c| (format!("{name}.place"), c)));
        }
        for (at, c) in cues {
            if c.sources.is_empty() {
                return bad(at, "no sources".into());
            }
            if !(0.0..=12.0).contains(&c.pitch)
                || !(0.0..=24.0).contains(&c.volume)
                || !(-60.0..=12.0).contains(&c.gain)
            {
                return bad(
                    at,
                    "pitch within 0..=12 semitones, volume within 0..=24 dB, gain within -60..=12 dB".into(),
                );
            }
            for s in &c.sources {
                check_source(s, false).or_else(|why| bad(at.clone(), why))?;
            }
        }
        let a = &self.ambience;
        for (name, l) in [
            ("wind", &a.wind),
            ("birds", &a.birds),
            ("insects", &a.insects),
            ("water", &a.water),
            ("murk", &a.murk),
            ("cave", &a.cave),
            ("lava", &a.lava),
        ] {
            check_source(&l.source, true).or_else(|why| bad(format!("ambience.{name}"), why))?;
        }
        Ok(())
    }
}

fn check_source(s: &Source, looping: bool) -> Result<(), String> {
    match s {
        Source::File(f) if !FILES.iter().any(|(n, _)| n == f) => {
            Err(format!("no sound file `{f}` ships in assets/sounds (see the licence manifest there)"))
        }
        Source::File(_) => Ok(()),
        Source::Synth(r, v) => {
            r.check()?;
            if !(1..=8).contains(v) {
                return Err(format!("{v} variants is outside 1..=8"));
            }
            if r.loops() != looping {
                return Err(
                    if looping { "an ambience needs a loop recipe" } else { "a cue needs a one-shot recipe" }.into()
                );
            }
            Ok(())
        }
    }
}

/// A group's break, where it names none, is its dig this much louder:
/// enough to tell the last blow, with the loudest dig still below full
/// scale at its cue's gain (`blockworld sound-table`).
pub const BREAK_OVER_DIG_DB: f32 = 2.0;

/// A cue ready to play: its variants and spread.
#[derive(Clone)]
pub struct Cue {
    pub variants: Vec<StaticSoundData>,
    pub pitch: f32,
    pub volume: f32,
    pub gain: f32,
}

/// The four cues of a group.
#[derive(Clone)]
pub struct Group {
    pub step: Cue,
    pub dig: Cue,
    pub brk: Cue,
    pub place: Cue,
}

/// Everything playable, by name.
pub struct Bank {
    pub groups: BTreeMap<String, Group>,
    /// wind, birds, insects, water, murk, cave, lava: the order of [`super::ambience::LAYERS`].
    pub ambience: Vec<(StaticSoundData, f32)>,
    pub click: Cue,
    pub shutter: Cue,
}

fn from_frames(frames: Vec<Frame>) -> StaticSoundData {
    StaticSoundData { sample_rate: RATE, frames: Arc::from(frames), settings: Default::default(), slice: None }
}

fn decode(name: &str) -> Result<StaticSoundData, BankError> {
    let bytes = FILES.iter().find(|(n, _)| *n == name).map(|(_, b)| *b).unwrap_or_default();
    StaticSoundData::from_cursor(std::io::Cursor::new(bytes)).map_err(|e| BankError::Decode(name.into(), e.to_string()))
}

fn sounds_of(s: &Source) -> Result<Vec<StaticSoundData>, BankError> {
    match s {
        Source::File(f) => Ok(vec![decode(f)?]),
        Source::Synth(r, n) => Ok((0..*n).map(|v| from_frames(r.render(v))).collect()),
    }
}

fn cue(c: &CueSpec) -> Result<Cue, BankError> {
    let mut variants = Vec::new();
    for s in &c.sources {
        variants.extend(sounds_of(s)?);
    }
    Ok(Cue { variants, pitch: c.pitch, volume: c.volume, gain: c.gain })
}

/// A decoded file made into a loop: its tail cross-faded into its head.
fn looped(mut d: StaticSoundData) -> StaticSoundData {
    d.frames = Arc::from(super::synth::seamless_at(d.frames.to_vec(), d.sample_rate));
    d
}

impl Bank {
    pub fn load(spec: &SoundsSpec) -> Result<Bank, BankError> {
        let mut groups = BTreeMap::new();
        for (name, g) in &spec.groups {
            let step = cue(&g.step)?;
            let dig = cue(&g.dig)?;
            let brk = match &g.brk {
                Some(b) => cue(b)?,
                None => Cue { gain: dig.gain + BREAK_OVER_DIG_DB, ..dig.clone() },
            };
            let place = match &g.place {
                Some(p) => cue(p)?,
                None => step.clone(),
            };
            groups.insert(name.clone(), Group { step, dig, brk, place });
        }
        let a = &spec.ambience;
        let mut ambience = Vec::new();
        for l in [&a.wind, &a.birds, &a.insects, &a.water, &a.murk, &a.cave, &a.lava] {
            let first = sounds_of(&l.source)?.swap_remove(0);
            let data = if matches!(l.source, Source::File(_)) { looped(first) } else { first };
            ambience.push((data, l.gain));
        }
        Ok(Bank { groups, ambience, click: cue(&spec.click)?, shutter: cue(&spec.shutter)? })
    }

    /// The shipped description, loaded.
    pub fn shipped() -> Result<Bank, BankError> {
        Bank::load(&SoundsSpec::parse(SOUNDS_RON)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_sounds_load_and_every_block_has_its_group() {
        let bank = Bank::shipped().expect("assets/sounds.ron loads");
        for b in crate::world::block::BLOCKS.iter().filter(|b| b.sound != "none") {
            let g = &bank.groups[b.sound];
            assert!(!g.step.variants.is_empty() && !g.brk.variants.is_empty(), "{}", b.name);
        }
        assert_eq!(bank.ambience.len(), super::super::ambience::LAYERS.len());
    }

    #[test]
    fn a_bad_description_is_refused_with_where_and_why() {
        let cases = [
            (SOUNDS_RON.replacen("\"stone\": (", "\"rock\": (", 1), "sound group `stone`"),
            (SOUNDS_RON.replacen("File(\"default_snow_footstep.1.ogg\")", "File(\"missing.ogg\")", 1), "missing.ogg"),
            (SOUNDS_RON.replacen("groups:", "grups:", 1), "sounds.ron"),
        ];
        for (text, want) in cases {
            assert_ne!(text, SOUNDS_RON, "the case {want} must change the text");
            let e = SoundsSpec::parse(&text).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(want), "{want}: {e}");
        }
    }
}
