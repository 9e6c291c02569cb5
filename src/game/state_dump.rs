//! `--dump-state FILE`: one JSON line per second describing the game, for
//! tests that drive the real window from outside.

use super::hud::Pose;
use serde::Serialize;
use std::io::Write;
use std::time::{Duration, Instant};

/// One line: the parts are written as one flat JSON object.
#[derive(Serialize)]
pub struct StateLine<'a> {
    pub t: f64,
    #[serde(flatten)]
    pub player: Pose,
    #[serde(flatten)]
    pub generation: GenerationLine<'a>,
    #[serde(flatten)]
    pub frames: FrameLine,
    #[serde(flatten)]
    pub aim: AimLine<'a>,
    #[serde(flatten)]
    pub ui: UiLine<'a>,
    #[serde(flatten)]
    pub audio: AudioLine<'a>,
}

#[derive(Serialize)]
pub struct AudioLine<'a> {
    /// device, record or off.
    pub audio: &'a str,
    /// Sounds the mixer has started.
    pub sounds: u64,
    /// Seconds into `--record-audio`'s recording now, and at the last
    /// block broken or placed.
    pub recording_s: Option<f64>,
    pub last_edit_s: Option<f64>,
    /// The game thread's sound work per frame, 99th percentile of the last
    /// 600 frames, ms.
    pub sound_ms_p99: f32,
    /// The ambience layers the last frame asked for, 0..1 by name.
    pub ambience: std::collections::BTreeMap<&'static str, f32>,
    /// The sound thread's CPU time so far, s, where it renders the mix
    /// itself (recording).
    pub sound_cpu_s: Option<f64>,
}

#[derive(Serialize)]
pub struct GenerationLine<'a> {
    pub backend: &'a str,
    pub gpu_off: Option<&'a str>,
    /// How the CPU and the device share generation (α, chunks per lane).
    pub balance: crate::backend::service::Balance,
    pub render_distance: i32,
    pub loaded_chunks: usize,
    pub meshes: usize,
    pub complete: usize,
    pub wanted: usize,
}

#[derive(Serialize)]
pub struct FrameLine {
    pub fps: f64,
    /// The longest of the last 60 frames.
    pub frame_ms_max: f64,
    /// The longest the game thread spent in one engine-switch call (the
    /// device itself opens on another thread).
    pub switch_ms: f64,
}

#[derive(Serialize)]
pub struct AimLine<'a> {
    pub grabbed: bool,
    /// The block under the crosshair.
    pub target: Option<[i64; 3]>,
    /// The selected hotbar slot (0–8).
    pub slot: usize,
    pub last_break: Option<[i64; 3]>,
    pub last_place: Option<([i64; 3], &'a str)>,
}

#[derive(Serialize)]
pub struct UiLine<'a> {
    /// The world directory being played.
    pub world: Option<String>,
    /// F3's debug overlay is shown.
    pub overlay: bool,
    /// Where F2 last wrote a screenshot.
    pub screenshot: Option<String>,
    /// The game menu's widgets (name → centre in window pixels) while it is shown.
    pub menu: Option<std::collections::BTreeMap<&'a str, [f32; 2]>>,
}

pub struct StateDump {
    out: std::io::BufWriter<std::fs::File>,
    last: Option<Instant>,
}

impl StateDump {
    pub fn create(path: &std::path::Path) -> std::io::Result<StateDump> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(StateDump { out: std::io::BufWriter::new(file), last: None })
    }

    /// Writes a line if a second has passed since the last one.
    pub fn maybe_write(&mut self, line: &StateLine) -> std::io::Result<()> {
        if self.last.map(|t| t.elapsed() < Duration::from_secs(1)).unwrap_or(false) {
            return Ok(());
        }
        self.last = Some(Instant::now());
        serde_json::to_writer(&mut self.out, line)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window tests read the line's keys at the top level.
    #[test]
    fn a_line_is_one_flat_object() {
        let line = StateLine {
            t: 1.0,
            player: Pose { pos: [0.0; 3], yaw: 0.0, pitch: 0.0, mode: crate::game::player::Mode::Fly, fluid: None },
            generation: GenerationLine {
                backend: "cpu",
                gpu_off: None,
                balance: Default::default(),
                render_distance: 6,
                loaded_chunks: 1,
                meshes: 1,
                complete: 1,
                wanted: 1,
            },
            frames: FrameLine { fps: 60.0, frame_ms_max: 20.0, switch_ms: 0.0 },
            aim: AimLine { grabbed: false, target: None, slot: 2, last_break: None, last_place: None },
            ui: UiLine { world: None, overlay: false, screenshot: None, menu: None },
            audio: AudioLine {
                audio: "off",
                sounds: 0,
                recording_s: None,
                last_edit_s: None,
                sound_ms_p99: 0.0,
                ambience: Default::default(),
                sound_cpu_s: None,
            },
        };
        let v = serde_json::to_value(&line).expect("serialises");
        for key in ["t", "pos", "mode", "backend", "render_distance", "fps", "slot", "overlay", "menu", "sounds"] {
            assert!(v.get(key).is_some(), "{key} is not at the top: {v}");
        }
        assert_eq!(v["slot"], 2);
        assert_eq!(v["balance"]["alpha"], serde_json::Value::Null);
    }
}
