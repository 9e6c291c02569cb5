//! The build script's commit stamp watches git files that exist, in every
//! layout a repository takes (a fresh `git init`, packed refs after
//! `git gc` or `git pack-refs`, a clone), and a new commit changes what it
//! watches. Cargo takes a missing watched path as changed, so a missing
//! one made every `cargo build` rerun the script and recompile the crate.

#[path = "../build/git_stamp.rs"]
mod git_stamp;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=stamp", "-c", "user.email=stamp@localhost", "-c", "init.defaultBranch=main"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockworld-stamp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn commit(dir: &Path, message: &str) {
    git(dir, &["commit", "-q", "--allow-empty", "-m", message]);
}

/// What build.rs watches in `dir`, found as build.rs finds it.
fn watched(dir: &Path) -> Vec<PathBuf> {
    let git_dir = PathBuf::from(git(dir, &["rev-parse", "--absolute-git-dir"]));
    let common = PathBuf::from(git(dir, &["rev-parse", "--path-format=absolute", "--git-common-dir"]));
    let branch = git(dir, &["symbolic-ref", "-q", "HEAD"]);
    git_stamp::watched_git_paths(&git_dir, &common, Some(&branch))
}

/// The newest modification under `path`, as cargo reads a watched path (a
/// folder by everything in it); None where it does not exist.
fn newest(path: &Path) -> Option<SystemTime> {
    let own = std::fs::metadata(path).ok()?.modified().ok()?;
    let inner = std::fs::read_dir(path).into_iter().flatten().flatten().filter_map(|e| newest(&e.path()));
    Some(inner.fold(own, SystemTime::max))
}

/// Every watched path exists, and a commit changes one of them.
fn check(dir: &Path, layout: &str) {
    let paths = watched(dir);
    for p in &paths {
        assert!(p.exists(), "{layout}: the stamp watches {} which does not exist", p.display());
    }
    let before: Vec<_> = paths.iter().map(|p| newest(p)).collect();
    std::thread::sleep(Duration::from_millis(20));
    commit(dir, "next");
    let after: Vec<_> = paths.iter().map(|p| newest(p)).collect();
    assert!(before.iter().zip(&after).any(|(b, a)| a != b), "{layout}: a commit changed none of {paths:?}");
}

#[test]
fn the_stamp_watches_existing_files_that_a_commit_changes() {
    let dir = scratch("layouts");
    git(&dir, &["init", "-q"]);
    commit(&dir, "first");
    let git_dir = dir.join(".git");
    // The layout that recompiled every build: the previous script watched
    // these two paths whatever existed.
    assert!(!git_dir.join("packed-refs").exists(), "a fresh init has no packed-refs");
    check(&dir, "git init");

    git(&dir, &["pack-refs", "--all"]);
    assert!(!git_dir.join("refs/heads/main").exists(), "pack-refs leaves no loose branch ref");
    check(&dir, "after pack-refs");

    git(&dir, &["gc", "-q"]);
    check(&dir, "after gc");

    let clone = scratch("clone");
    git(&clone, &["clone", "-q", dir.to_str().unwrap(), "."]);
    check(&clone, "a clone");

    let tree = scratch("worktree");
    let _ = std::fs::remove_dir(&tree);
    git(&dir, &["worktree", "add", "-q", "-b", "side", tree.to_str().unwrap()]);
    check(&tree, "a worktree");

    for d in [dir, clone, tree] {
        let _ = std::fs::remove_dir_all(d);
    }
}
