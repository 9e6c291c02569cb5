//! The player's settings: field of view, mouse sensitivity, render
//! distance, horizon, fullscreen, visibility culling, the hotbar and the
//! sound volumes, kept in `settings.ron` under the
//! user's config directory (`directories`). A broken or half-valid file
//! never stops the game: what cannot be read is replaced by its default and
//! the player is told why.

use super::hotbar::{Hotbar, SLOTS};
use super::streaming::{MAX_RENDER_DISTANCE, MIN_RENDER_DISTANCE};
use crate::audio::Volumes;
use crate::far::clipmap::MAX_HORIZON;
use crate::world::block::BlockId;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "settings.ron";
pub const FOV_RANGE: std::ops::RangeInclusive<f64> = 40.0..=110.0;
/// Degrees of turn per pixel of mouse motion.
pub const SENSITIVITY_RANGE: std::ops::RangeInclusive<f64> = 0.02..=0.6;
/// Far terrain out to this many metres unless the player chooses
/// otherwise (docs/rendering.md gives the measurements behind it).
pub const DEFAULT_HORIZON: u32 = 8000;

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub fov_degrees: f64,
    pub mouse_sensitivity: f64,
    pub render_distance: i32,
    /// Far terrain out to this many metres (blocks); 0 draws none.
    pub horizon: u32,
    pub fullscreen: bool,
    /// Skip chunks the eye cannot see (sealed caves, rock): on by default;
    /// off draws every chunk in the view, for comparison.
    pub culling: bool,
    pub hotbar: Hotbar,
    /// Master, blocks and ambience volumes, and muting while unfocused.
    pub sound: Volumes,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            fov_degrees: crate::render::camera::DEFAULT_FOV_DEGREES,
            mouse_sensitivity: 0.12,
            render_distance: 8,
            horizon: DEFAULT_HORIZON,
            fullscreen: false,
            culling: true,
            hotbar: Hotbar::default(),
            sound: Volumes::default(),
        }
    }
}

/// The file's form: blocks by name, and any field left out takes its
/// default, so a file from an older or newer version still gives what it can.
#[derive(Serialize, Deserialize)]
#[serde(default)]
struct SettingsFile {
    fov_degrees: f64,
    mouse_sensitivity: f64,
    render_distance: i32,
    horizon: u32,
    fullscreen: bool,
    culling: bool,
    hotbar: Vec<String>,
    hotbar_selected: usize,
    master_volume: f32,
    blocks_volume: f32,
    ambience_volume: f32,
    mute_when_unfocused: bool,
}

impl Default for SettingsFile {
    fn default() -> Self {
        Settings::default().to_file()
    }
}

/// Where the settings live; None where the platform has no config directory.
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "blockworld").map(|d| d.config_dir().join(FILE_NAME))
}

fn in_range<T: PartialOrd + Copy + std::fmt::Display>(
    name: &str,
    v: T,
    range: std::ops::RangeInclusive<T>,
    default: T,
    warnings: &mut Vec<String>,
) -> T {
    if range.contains(&v) {
        return v;
    }
    warnings.push(format!("{name} {v} is outside {}..={}; using {default}", range.start(), range.end()));
    default
}

impl Settings {
    /// Settings from the text of a settings file, and a line for each
    /// value that could not be used.
    pub fn parse(text: &str) -> (Settings, Vec<String>) {
        let mut warnings = Vec::new();
        let file: SettingsFile = match ron::from_str(text) {
            Ok(f) => f,
            Err(e) => {
                warnings.push(format!("cannot read the settings ({e}); using the defaults"));
                return (Settings::default(), warnings);
            }
        };
        let d = Settings::default();
        let mut hotbar = d.hotbar.clone();
        if file.hotbar.len() != SLOTS {
            warnings.push(format!("the hotbar lists {} blocks, not {SLOTS}; the rest are defaults", file.hotbar.len()));
        }
        for (slot, name) in file.hotbar.iter().take(SLOTS).enumerate() {
            match BlockId::by_name(name) {
                Some(b) if b.info().placeable() => hotbar.slots[slot] = b,
                _ => warnings.push(format!("hotbar slot {}: `{name}` is not a placeable block", slot + 1)),
            }
        }
        if file.hotbar_selected < SLOTS {
            hotbar.selected = file.hotbar_selected;
        }
        let settings = Settings {
            fov_degrees: in_range("fov_degrees", file.fov_degrees, FOV_RANGE, d.fov_degrees, &mut warnings),
            mouse_sensitivity: in_range(
                "mouse_sensitivity",
                file.mouse_sensitivity,
                SENSITIVITY_RANGE,
                d.mouse_sensitivity,
                &mut warnings,
            ),
            render_distance: in_range(
                "render_distance",
                file.render_distance,
                MIN_RENDER_DISTANCE..=MAX_RENDER_DISTANCE,
                d.render_distance,
                &mut warnings,
            ),
            horizon: in_range("horizon", file.horizon, 0..=MAX_HORIZON, d.horizon, &mut warnings),
            fullscreen: file.fullscreen,
            culling: file.culling,
            hotbar,
            sound: Volumes {
                master: in_range("master_volume", file.master_volume, 0.0..=1.0, d.sound.master, &mut warnings),
                blocks: in_range("blocks_volume", file.blocks_volume, 0.0..=1.0, d.sound.blocks, &mut warnings),
                ambience: in_range("ambience_volume", file.ambience_volume, 0.0..=1.0, d.sound.ambience, &mut warnings),
                mute_unfocused: file.mute_when_unfocused,
            },
        };
        (settings, warnings)
    }

    /// Reads the settings at `path`: a missing file gives the defaults
    /// quietly, a broken one the defaults and a warning.
    pub fn load(path: &Path) -> (Settings, Vec<String>) {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let (s, w) = Settings::parse(&text);
                (s, w.into_iter().map(|w| format!("{}: {w}", path.display())).collect())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Settings::default(), Vec::new()),
            Err(e) => (Settings::default(), vec![format!("cannot read {}: {e}; using the defaults", path.display())]),
        }
    }

    fn to_file(&self) -> SettingsFile {
        SettingsFile {
            fov_degrees: self.fov_degrees,
            mouse_sensitivity: self.mouse_sensitivity,
            render_distance: self.render_distance,
            horizon: self.horizon,
            fullscreen: self.fullscreen,
            culling: self.culling,
            hotbar: self.hotbar.slots.iter().map(|b| b.name().to_string()).collect(),
            hotbar_selected: self.hotbar.selected,
            master_volume: self.sound.master,
            blocks_volume: self.sound.blocks,
            ambience_volume: self.sound.ambience,
            mute_when_unfocused: self.sound.mute_unfocused,
        }
    }

    pub fn to_text(&self) -> String {
        let pretty = ron::ser::PrettyConfig::new().depth_limit(1);
        // Plain numbers, flags and strings: serialising cannot fail.
        ron::ser::to_string_pretty(&self.to_file(), pretty).unwrap_or_default()
    }

    /// Writes the settings through a temporary file and a rename, so a crash
    /// mid-write leaves the old file whole.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("ron.tmp");
        std::fs::write(&tmp, self.to_text())?;
        std::fs::rename(&tmp, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_survive_a_round_trip() {
        let mut s = Settings {
            fov_degrees: 90.0,
            mouse_sensitivity: 0.3,
            render_distance: 12,
            horizon: 16_000,
            ..Default::default()
        };
        s.fullscreen = true;
        s.culling = false;
        s.hotbar.slots[3] = BlockId::ROSE;
        s.hotbar.selected = 3;
        s.sound = Volumes { master: 0.25, blocks: 0.5, ambience: 0.0, mute_unfocused: false };
        let (back, warnings) = Settings::parse(&s.to_text());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(back, s);
    }

    #[test]
    fn a_broken_file_gives_defaults_and_a_warning() {
        for text in ["(fov_degrees: 80.0", "not ron at all {", "(fov_degrees: \"wide\")"] {
            let (s, w) = Settings::parse(text);
            assert_eq!(s, Settings::default(), "{text}");
            assert_eq!(w.len(), 1, "{text}: {w:?}");
        }
    }

    #[test]
    fn bad_values_fall_back_one_by_one() {
        let (s, w) = Settings::parse(
            "(fov_degrees: 500.0, mouse_sensitivity: 0.2, render_distance: 99, horizon: 90000, hotbar: [\"stone\", \"unobtainium\", \"air\"], master_volume: 1.5)",
        );
        assert_eq!(s.fov_degrees, 70.0);
        assert_eq!(s.mouse_sensitivity, 0.2, "good values are kept");
        assert_eq!(s.render_distance, 8);
        assert_eq!(s.horizon, DEFAULT_HORIZON);
        assert_eq!(s.hotbar.slots[0], BlockId::STONE);
        assert_eq!(s.hotbar.slots[1], Hotbar::default().slots[1]);
        assert_eq!(s.sound.master, Volumes::default().master);
        assert_eq!(w.len(), 7, "{w:?}");
    }

    #[test]
    fn an_empty_or_missing_file_is_quietly_the_defaults() {
        assert_eq!(Settings::parse("()"), (Settings::default(), vec![]));
        let (s, w) = Settings::load(Path::new("/nonexistent/blockworld/settings.ron"));
        assert_eq!((s, w.len()), (Settings::default(), 0));
    }

    #[test]
    fn saving_replaces_the_file_whole() {
        let dir = std::env::temp_dir().join(format!("bw-settings-{}", std::process::id()));
        let path = dir.join("cfg").join(FILE_NAME);
        let s = Settings { render_distance: 5, ..Default::default() };
        s.save(&path).expect("saving settings");
        assert_eq!(Settings::load(&path), (s, vec![]));
        assert!(!path.with_extension("ron.tmp").exists());
        let _ = std::fs::remove_dir_all(dir);
    }
}
