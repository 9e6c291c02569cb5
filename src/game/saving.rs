//! What the game keeps on disk as it goes: the world being played (its
//! edits, the player's place and the time of day, handed to the saver
//! thread) and the player's settings file.

use super::settings::Settings;
use crate::save::saver::{SaveJob, Saver};
use crate::save::world_file::{SaveError, WorldFile};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The settings in force, and the file changes to them go to.
pub struct SettingsFile {
    current: Settings,
    path: Option<PathBuf>,
    /// Changed since last written.
    dirty: bool,
}

impl Deref for SettingsFile {
    type Target = Settings;
    fn deref(&self) -> &Settings {
        &self.current
    }
}

impl SettingsFile {
    pub fn new(current: Settings, path: Option<PathBuf>) -> SettingsFile {
        SettingsFile { current, path, dirty: false }
    }

    /// The settings, to change; the change is written with the next save.
    pub fn edit(&mut self) -> &mut Settings {
        self.dirty = true;
        &mut self.current
    }

    /// Writes the settings if they changed; the error names the file.
    pub fn write_if_changed(&mut self) -> Result<(), String> {
        if !std::mem::take(&mut self.dirty) {
            return Ok(());
        }
        match &self.path {
            Some(path) => {
                self.current.save(path).map_err(|e| format!("cannot save the settings to {}: {e}", path.display()))
            }
            None => Ok(()),
        }
    }
}

/// The saved world being played, if any, and when it was last saved.
pub struct WorldSaving {
    saver: Option<Saver>,
    dir: Option<PathBuf>,
    last: Instant,
    /// Edits made since the last hand-over to the saver.
    unsaved_edits: u64,
}

impl WorldSaving {
    pub fn new(file: Option<WorldFile>) -> WorldSaving {
        let dir = file.as_ref().map(|w| w.dir().to_path_buf());
        WorldSaving { saver: file.map(Saver::spawn), dir, last: Instant::now(), unsaved_edits: 0 }
    }

    /// The world directory being played, if it is saved.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    pub fn edited(&mut self) {
        self.unsaved_edits += 1;
    }

    /// Whether a save is due: always when `now`, else at most once a second.
    pub fn due(&mut self, now: bool) -> bool {
        if !now && self.last.elapsed() < Duration::from_secs(1) {
            return false;
        }
        self.last = Instant::now();
        true
    }

    /// Hands `job` (its count of edits filled in) to the saver; returns
    /// the saver's last error, if it reported one.
    pub fn hand_over(&mut self, job: impl FnOnce(u64) -> SaveJob) -> Option<SaveError> {
        let saver = self.saver.as_ref()?;
        saver.save(job(std::mem::take(&mut self.unsaved_edits)));
        saver.take_error()
    }

    /// Commits what was handed over and stops the saver.
    pub fn finish(&mut self) -> Option<SaveError> {
        self.saver.take().and_then(Saver::finish)
    }

    /// Saves to `file` from now on (the last world [`Self::finish`]ed first).
    pub fn switch_to(&mut self, file: WorldFile) {
        *self = WorldSaving::new(Some(file));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_written_once_per_change_and_errors_name_the_file() {
        let dir = std::env::temp_dir().join(format!("blockworld-settings-{}", std::process::id()));
        let path = dir.join("settings.ron");
        let _ = std::fs::remove_dir_all(&dir);
        let mut file = SettingsFile::new(Settings::default(), Some(path.clone()));
        assert_eq!(file.write_if_changed(), Ok(()));
        assert!(!path.exists(), "nothing changed, nothing written");
        file.edit().fov_degrees = 91.0;
        assert_eq!(file.write_if_changed(), Ok(()));
        assert_eq!(Settings::load(&path).0.fov_degrees, 91.0);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(file.write_if_changed(), Ok(()));
        assert!(!path.exists(), "written once per change");

        // A path under a file cannot be written: the error says where.
        let blocked = dir.join("settings.ron-is-a-file");
        std::fs::write(&blocked, "x").unwrap();
        let mut file = SettingsFile::new(Settings::default(), Some(blocked.join("settings.ron")));
        file.edit().fov_degrees = 80.0;
        let e = file.write_if_changed().unwrap_err();
        assert!(e.contains("settings.ron-is-a-file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_save_is_due_once_a_second_or_when_asked() {
        let mut s = WorldSaving::new(None);
        assert!(!s.due(false), "a second has not passed since the start");
        assert!(s.due(true));
        s.last = Instant::now() - Duration::from_secs(2);
        assert!(s.due(false));
        assert!(!s.due(false), "the clock restarts at each save");
        s.edited();
        assert!(s.hand_over(|_| unreachable!("no saver, no job")).is_none());
    }
}
