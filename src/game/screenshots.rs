//! F2: the window's frame as a PNG in `screenshots/` under the user's data
//! directory, named by the date and time (UTC) as players expect. The
//! frame is read back on the game thread; encoding and writing happen on
//! a thread of their own, which reports where the file went.

use crate::render::offscreen;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// Screenshots being written, and what became of them.
pub struct Screenshots {
    dir: Option<PathBuf>,
    done_tx: Sender<Result<PathBuf, String>>,
    done: Receiver<Result<PathBuf, String>>,
    /// Held while a writer picks a free name and fills it, so two quick
    /// presses of F2 never pick the same one.
    naming: Arc<Mutex<()>>,
}

impl Default for Screenshots {
    fn default() -> Self {
        Screenshots::new(crate::save::recent::data_dir().map(|d| d.join("screenshots")))
    }
}

impl Screenshots {
    /// Screenshots go to `dir` (None: this system has no data directory).
    pub fn new(dir: Option<PathBuf>) -> Screenshots {
        let (done_tx, done) = channel();
        Screenshots { dir, done_tx, done, naming: Arc::default() }
    }

    /// Writes `rgba` (`size` pixels) in the background; the outcome comes from [`Self::finished`].
    pub fn save(&self, size: (u32, u32), rgba: Vec<u8>) {
        let Some(dir) = self.dir.clone() else {
            let _ = self.done_tx.send(Err("this system has no data directory for screenshots".into()));
            return;
        };
        let (tx, naming) = (self.done_tx.clone(), self.naming.clone());
        let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        std::thread::spawn(move || {
            // A writer that panicked left nothing half-named behind that matters here.
            let _one_at_a_time = naming.lock().unwrap_or_else(|e| e.into_inner());
            let _ = tx.send(write(&dir, secs, size, &rgba));
        });
    }

    /// A screenshot written since the last call (its path), or why it was not.
    pub fn finished(&self) -> Option<Result<PathBuf, String>> {
        self.done.try_recv().ok()
    }
}

fn write(dir: &Path, secs: u64, size: (u32, u32), rgba: &[u8]) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = free_path(dir, secs);
    offscreen::write_png(&path, size, rgba).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// `dir/DATE_TIME.png`, or `DATE_TIME_2.png` and so on when taken.
fn free_path(dir: &Path, secs: u64) -> PathBuf {
    let stem = stamp(secs);
    (1..)
        .map(|n| if n == 1 { dir.join(format!("{stem}.png")) } else { dir.join(format!("{stem}_{n}.png")) })
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}.png")))
}

/// `YYYY-MM-DD_HH.MM.SS` for seconds since 1970 (UTC).
fn stamp(secs: u64) -> String {
    let rem = secs % 86_400;
    format!("{}_{:02}.{:02}.{:02}", civil_date((secs / 86_400) as i64), rem / 3600, rem / 60 % 60, rem % 60)
}

/// `YYYY-MM-DD` for days since 1970-01-01, proleptic Gregorian (Howard
/// Hinnant's days-to-civil, in 400-year eras). The benchmarks' machine
/// stamp dates its figures with it too.
pub(crate) fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_around_leap_days_and_eras() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(11_016), "2000-02-29");
        assert_eq!(civil_date(20_419), "2025-11-27");
        assert_eq!(civil_date(-1), "1969-12-31");
    }

    #[test]
    fn stamps_are_calendar_dates() {
        assert_eq!(stamp(0), "1970-01-01_00.00.00");
        assert_eq!(stamp(1_795_000_000), "2026-11-18_11.06.40");
        // A leap day, a second before midnight.
        assert_eq!(stamp(951_782_400 + 86_399), "2000-02-29_23.59.59");
    }

    #[test]
    fn a_screenshot_never_overwrites_another() {
        let dir = std::env::temp_dir().join(format!("bw-shots-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let shots = Screenshots::new(Some(dir.clone()));
        let mut paths = Vec::new();
        // Two at once, as two quick presses of F2 within one second.
        shots.save((2, 1), vec![255, 0, 0, 255, 0, 0, 255, 255]);
        shots.save((2, 1), vec![255, 0, 0, 255, 0, 0, 255, 255]);
        for _ in 0..2 {
            let got = (0..500).find_map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(10));
                shots.finished()
            });
            paths.push(got.expect("the writer reports").expect("the PNG is written"));
        }
        assert_ne!(paths[0], paths[1]);
        for p in &paths {
            assert!(std::fs::read(p).unwrap().starts_with(b"\x89PNG"), "{}", p.display());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
