//! What a render distance costs in memory, and whether this machine has
//! it: the settings panel shows the cost beside the slider, and a distance
//! whose chunks would not fit is refused with the figures.

use super::rings::{data_columns, vertical};

/// The process's memory per chunk of the data range: the largest resident
/// set of `blockworld screenshot --horizon 0` (classic, seed 42, lavapipe)
/// grew by 5.35 KiB a chunk from render distance 8 (6 251 chunks, 260 MiB)
/// to 32 (85 675 chunks, 675 MiB): chunk data, meshes (in system memory
/// under a software rasteriser), the store's and the renderer's indexes,
/// the heightmap cache. Rounded up for presets with more surface to mesh.
pub const BYTES_PER_CHUNK: u64 = 6 * 1024;

/// The share of the memory the system has available that a larger range
/// may take; the rest stays for the system and the process's own growth.
pub const AVAILABLE_SHARE: f64 = 0.75;

/// Chunks held for render distance `r`: the render range and the ring
/// around it that the edge's meshes read.
pub fn data_chunks(r: i32) -> u64 {
    data_columns(r) * (2 * (vertical(r) as u64 + 1) + 1)
}

/// The memory render distance `r`'s chunks take, in bytes.
pub fn estimate(r: i32) -> u64 {
    data_chunks(r) * BYTES_PER_CHUNK
}

/// Bytes as a player reads them: MiB below a GiB, GiB above.
pub fn size_text(bytes: u64) -> String {
    let mib = bytes as f64 / (1u64 << 20) as f64;
    if mib < 1024.0 {
        format!("{mib:.0} MiB")
    } else {
        format!("{:.1} GiB", mib / 1024.0)
    }
}

/// A render distance whose chunks would not fit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "render distance {wanted} needs about {} more memory for its chunks, and {} is available; the most that fits is {fits}",
    size_text(*.more),
    size_text(*.available)
)]
pub struct TooLarge {
    pub wanted: i32,
    /// Bytes beyond what `current` holds.
    pub more: u64,
    /// Bytes the system has available.
    pub available: u64,
    /// The largest render distance that fits, at least `current`.
    pub fits: i32,
}

/// Whether going from render distance `current` to `wanted` fits in
/// `available` bytes (the system's available memory; None where it cannot
/// be read, which refuses nothing). Shrinking always fits.
pub fn check(current: i32, wanted: i32, available: Option<u64>) -> Result<(), TooLarge> {
    let Some(available) = available else { return Ok(()) };
    let budget = (available as f64 * AVAILABLE_SHARE) as u64;
    let more = |r: i32| estimate(r).saturating_sub(estimate(current));
    if more(wanted) <= budget {
        return Ok(());
    }
    let fits = (current..wanted).rev().find(|&r| more(r) <= budget).unwrap_or(current);
    Err(TooLarge { wanted, more: more(wanted), available, fits })
}

/// The memory the system has available now (`MemAvailable`), where Linux
/// says.
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::streaming::rings::{edge_offsets, ring_offsets};

    #[test]
    fn the_count_is_the_streamers_own() {
        for r in [2, 3, 8, 13, 32] {
            let listed = ring_offsets(r, vertical(r), 0).len() + edge_offsets(r).len();
            assert_eq!(data_chunks(r), listed as u64, "render distance {r}");
        }
    }

    #[test]
    fn the_estimate_matches_the_measured_figures() {
        // Measured chunk counts at 8 and 32 (the screenshot's "loaded N chunks").
        assert_eq!(data_chunks(8), 6_251);
        assert_eq!(data_chunks(32), 85_675);
        let gib = estimate(64) as f64 / (1u64 << 30) as f64;
        assert!((1.5..2.5).contains(&gib), "render distance 64: {gib:.2} GiB");
    }

    #[test]
    fn a_distance_that_does_not_fit_is_refused_with_what_does() {
        let gib = 1u64 << 30;
        assert_eq!(check(8, 64, None), Ok(()), "unknown memory refuses nothing");
        assert_eq!(check(64, 8, Some(0)), Ok(()), "shrinking always fits");
        assert_eq!(check(8, 64, Some(8 * gib)), Ok(()));
        let e = check(8, 64, Some(gib)).unwrap_err();
        assert!(e.fits > 8 && e.fits < 64, "{e}");
        assert!(check(8, e.fits, Some(gib)).is_ok() && check(8, e.fits + 1, Some(gib)).is_err(), "{e}");
        let text = e.to_string();
        assert!(text.contains("render distance 64") && text.contains("1.0 GiB is available"), "{text}");
        assert_eq!(check(8, 9, Some(1)).unwrap_err().fits, 8, "nothing larger fits");
    }
}
