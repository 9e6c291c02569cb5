//! Where `blockworld play` keeps worlds when no `--world` is given, and the
//! worlds played recently: the user's data directory (`directories`) holds
//! `worlds/` and a `recent_worlds` file, one directory per line, the last
//! world played first.

use super::world_file::FILE_NAME;
use std::path::{Path, PathBuf};

/// How many worlds the menu offers to reopen.
pub const KEPT: usize = 8;

/// The user's data directory for blockworld (`~/.local/share/blockworld` on Linux).
pub fn data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "blockworld").map(|d| d.data_dir().to_path_buf())
}

fn is_world(dir: &Path) -> bool {
    dir.join(FILE_NAME).is_file()
}

/// The recent list's text with `dir` moved to the front; worlds that are
/// gone, duplicates and entries beyond [`KEPT`] are dropped.
fn with_front(text: &str, dir: &Path) -> String {
    let mut out = vec![dir.to_path_buf()];
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let p = PathBuf::from(line);
        if !out.contains(&p) && is_world(&p) && out.len() < KEPT {
            out.push(p);
        }
    }
    out.iter().map(|p| format!("{}\n", p.display())).collect()
}

fn listed(text: &str) -> Vec<PathBuf> {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).map(PathBuf::from).filter(|p| is_world(p)).collect()
}

/// Worlds played recently that still exist, the last one first.
pub fn recent() -> Vec<PathBuf> {
    let Some(data) = data_dir() else { return Vec::new() };
    listed(&std::fs::read_to_string(data.join("recent_worlds")).unwrap_or_default())
}

/// The world to play without `--world`: the last one played, or a new
/// `worlds/world` under the data directory. None where the platform has no
/// data directory.
pub fn default_world() -> Option<PathBuf> {
    let data = data_dir()?;
    Some(recent().into_iter().next().unwrap_or_else(|| data.join("worlds").join("world")))
}

/// A directory for a new world called `name` under the data directory's
/// `worlds/`: the name made safe for a file system, numbered if taken.
pub fn new_world_dir(name: &str) -> Option<PathBuf> {
    let worlds = data_dir()?.join("worlds");
    let safe: String = name
        .trim()
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .take(64)
        .collect();
    let safe = if safe.is_empty() { "world".to_string() } else { safe };
    (1..).map(|n| if n == 1 { worlds.join(&safe) } else { worlds.join(format!("{safe}-{n}")) }).find(|p| !p.exists())
}

/// Remembers `dir` as the last world played (best effort: a failure only
/// means the menu and the next run do not offer it).
pub fn remember(dir: &Path) {
    if let Some(data) = data_dir() {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let file = data.join("recent_worlds");
        let text = with_front(&std::fs::read_to_string(&file).unwrap_or_default(), &dir);
        let _ = std::fs::create_dir_all(&data).and_then(|()| std::fs::write(file, text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_keeps_existing_worlds_once_newest_first() {
        let root = std::env::temp_dir().join(format!("bw-recent-{}", std::process::id()));
        let worlds: Vec<PathBuf> = (0..KEPT + 2).map(|i| root.join(format!("w{i}"))).collect();
        for w in &worlds {
            std::fs::create_dir_all(w).unwrap();
            std::fs::write(w.join(FILE_NAME), b"").unwrap();
        }
        let gone = root.join("gone");
        let mut text = String::new();
        for w in &worlds {
            text = with_front(&text, w);
        }
        text = with_front(&text, &worlds[3]);
        text.push_str(&format!("{}\n\n", gone.display()));
        let l = listed(&text);
        assert_eq!(l.len(), KEPT, "{l:?}");
        assert_eq!(l[0], worlds[3], "the last played comes first");
        assert_eq!(l[1], worlds[KEPT + 1]);
        assert_eq!(l.iter().filter(|p| **p == worlds[3]).count(), 1, "no duplicates");
        assert!(!l.contains(&gone), "worlds that are gone are not offered");
        let _ = std::fs::remove_dir_all(root);
    }
}
