//! Which git files the build script watches for the commit stamp; shared
//! with `tests/build_stamp.rs`, which checks it against real repositories.

use std::path::{Path, PathBuf};

/// The git files whose change may move the stamp: HEAD, and where the
/// branch's commit is written. Cargo treats a watched path that does not
/// exist as changed on every build, so only paths that exist are named:
/// `packed-refs` is absent in a fresh `git init`, and the branch's loose
/// ref is absent after `git gc` or `git pack-refs`. In the second case
/// the folder the loose ref will be written into is watched instead (the
/// next commit creates the file there; packing itself never moves HEAD).
pub fn watched_git_paths(git_dir: &Path, common: &Path, branch: Option<&str>) -> Vec<PathBuf> {
    let mut paths = vec![git_dir.join("HEAD")];
    let packed = common.join("packed-refs");
    if packed.exists() {
        paths.push(packed);
    }
    if let Some(branch) = branch {
        let loose = common.join(branch);
        if loose.exists() {
            paths.push(loose);
        } else if let Some(folder) = loose.ancestors().skip(1).find(|p| p.is_dir()) {
            paths.push(folder.to_path_buf());
        }
    }
    paths
}
