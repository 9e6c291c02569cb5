//! Where `blockworld play` keeps worlds when no `--world` is given: the
//! user's data directory (`directories`), with the last world played
//! remembered in `last_world`.

use std::path::{Path, PathBuf};

fn data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "blockworld").map(|d| d.data_dir().to_path_buf())
}

/// The world to play without `--world`: the last one played, or a new
/// `worlds/world` under the data directory. None where the platform has no
/// data directory.
pub fn default_world() -> Option<PathBuf> {
    let data = data_dir()?;
    let last = std::fs::read_to_string(data.join("last_world")).ok().map(|s| PathBuf::from(s.trim()));
    Some(match last {
        Some(p) if p.join(super::world_file::FILE_NAME).is_file() => p,
        _ => data.join("worlds").join("world"),
    })
}

/// Remembers `dir` as the last world played (best effort: a failure only
/// means the next run asks for `--world` or starts the default world).
pub fn remember(dir: &Path) {
    if let Some(data) = data_dir() {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let _ = std::fs::create_dir_all(&data)
            .and_then(|()| std::fs::write(data.join("last_world"), dir.display().to_string()));
    }
}
