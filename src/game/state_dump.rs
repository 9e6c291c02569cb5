//! `--dump-state FILE`: one JSON line per second describing the game, for
//! tests that drive the real window from outside.

use super::player::Mode;
use serde::Serialize;
use std::io::Write;
use std::time::{Duration, Instant};

#[derive(Serialize)]
pub struct StateLine<'a> {
    pub t: f64,
    pub pos: [f64; 3],
    pub yaw: f64,
    pub pitch: f64,
    pub mode: Mode,
    pub backend: &'a str,
    pub gpu_off: Option<&'a str>,
    /// How the CPU and the device share generation (α, chunks per lane).
    pub balance: crate::backend::service::Balance,
    pub render_distance: i32,
    pub loaded_chunks: usize,
    pub meshes: usize,
    pub complete: usize,
    pub wanted: usize,
    pub fps: f64,
    /// The longest of the last 60 frames.
    pub frame_ms_max: f64,
    /// The longest the game thread spent in one engine-switch call (the
    /// device itself opens on another thread).
    pub switch_ms: f64,
    pub grabbed: bool,
    /// The block under the crosshair.
    pub target: Option<[i64; 3]>,
    /// The selected hotbar slot (0–8).
    pub slot: usize,
    pub last_break: Option<[i64; 3]>,
    pub last_place: Option<([i64; 3], &'a str)>,
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
