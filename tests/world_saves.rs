//! Saved worlds through the binary, as a player or a script uses them:
//! creation, scripted edits, queries, digests, bad files refused without
//! being touched, and `kill -9` in the middle of a script.

use blockworld::save::world_file::WorldFile;
use blockworld::world::block::BlockId;
use blockworld::world::coords::{block_index, ChunkPos};
use blockworld::world::edits::{BlockPos, ChunkEdits};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_blockworld"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("blockworld runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim().to_string()
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "{args:?} failed: {}", text(&o.stderr));
    text(&o.stdout)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("blockworld-saves-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn new_world(dir: &Path, seed: &str) {
    ok(&["world", "new", dir.to_str().unwrap(), "--seed", seed]);
}

#[test]
fn an_unedited_world_hashes_like_its_seed_and_edits_change_it() {
    let d = scratch("hash");
    let w = d.join("w");
    new_world(&w, "42");
    let region = ["--from", "-2,-2,-2", "--to", "2,1,2"];
    let seed = ok(&[&["region-hash", "--seed", "42"][..], &region].concat());
    let world = ok(&[&["region-hash", "--world", w.to_str().unwrap()][..], &region].concat());
    assert_eq!(world, seed);
    std::fs::write(d.join("s.txt"), "set 3 4 5 glass\n").unwrap();
    ok(&["world", "edit", w.to_str().unwrap(), "--script", d.join("s.txt").to_str().unwrap()]);
    let edited = ok(&[&["region-hash", "--world", w.to_str().unwrap()][..], &region].concat());
    assert_ne!(edited, seed, "an edit inside the region must change its digest");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn scripted_edits_are_kept_and_read_back() {
    let d = scratch("roundtrip");
    let w = d.join("w");
    new_world(&w, "7");
    let ws = w.to_str().unwrap();
    let before = ok(&["world", "get", ws, "1000000,200,-1000000"]);
    assert_eq!(before, "air");
    std::fs::write(
        d.join("s.txt"),
        "# far from the origin, across a chunk border, and overwritten\n\
         set 1000000 200 -1000000 glowstone\nset 31 5 0 torch\nset 32 5 0 rose\nset 31 5 0 planks\n",
    )
    .unwrap();
    let out = ok(&["world", "edit", ws, "--script", d.join("s.txt").to_str().unwrap()]);
    assert!(out.contains("4 edits applied"), "{out}");
    assert_eq!(ok(&["world", "get", ws, "1000000,200,-1000000"]), "glowstone");
    assert_eq!(ok(&["world", "get", ws, "31,5,0"]), "planks");
    assert_eq!(ok(&["world", "get", ws, "32,5,0"]), "rose");
    let info: serde_json::Value = serde_json::from_str(&ok(&["world", "info", ws, "--json"])).unwrap();
    assert_eq!(
        (info["seed"].as_u64(), info["edited_blocks"].as_u64(), info["edits_applied"].as_u64()),
        (Some(7), Some(3), Some(4))
    );
    assert_eq!(info["preset"], "classic");
    let _ = std::fs::remove_dir_all(&d);
}

/// Bytes of the world file and its WAL, to prove a refusal wrote nothing
/// (opening a WAL database may leave an empty WAL and a shared-memory index
/// beside it: SQLite's own bookkeeping, no data).
fn snapshot(w: &Path) -> Vec<Option<Vec<u8>>> {
    ["world.sqlite", "world.sqlite-wal"]
        .iter()
        .map(|f| std::fs::read(w.join(f)).ok().filter(|b| !b.is_empty()))
        .collect()
}

fn refused(args: &[&str], needle: &str, w: &Path) {
    let before = snapshot(w);
    let o = run(args);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(err.contains(needle), "{args:?}: `{err}` does not say `{needle}`");
    assert!(!err.contains("panicked"), "{err}");
    assert!(snapshot(w) == before, "{args:?} changed the world file");
}

fn tamper(w: &Path, sql: &str) {
    let c = rusqlite::Connection::open(w.join("world.sqlite")).unwrap();
    c.execute_batch(sql).unwrap();
}

#[test]
fn bad_worlds_and_scripts_are_refused_and_left_untouched() {
    let d = scratch("bad");
    let good = d.join("good");
    new_world(&good, "1");
    let gs = good.to_str().unwrap();

    std::fs::write(d.join("bad.txt"), "set 1 2 3 stone\nset 1 2 3 marble\n").unwrap();
    refused(
        &["world", "edit", gs, "--script", d.join("bad.txt").to_str().unwrap()],
        "line 2: unknown block `marble`",
        &good,
    );
    assert_eq!(ok(&["world", "get", gs, "1,2,3"]), "air", "nothing of a refused script is applied");
    refused(&["world", "new", gs, "--seed", "2"], "already exists", &good);
    refused(&["world", "info", d.join("nothing").to_str().unwrap()], "no world here", &good);

    let copy = |name: &str| {
        let w = d.join(name);
        std::fs::create_dir_all(&w).unwrap();
        std::fs::copy(good.join("world.sqlite"), w.join("world.sqlite")).unwrap();
        w
    };
    let newer = copy("newer");
    tamper(&newer, "UPDATE meta SET value = '99' WHERE key = 'format'");
    refused(&["world", "info", newer.to_str().unwrap()], "newer blockworld (format 99", &newer);

    let preset = copy("preset");
    tamper(&preset, "UPDATE meta SET value = replace(value, 'octaves: 5', 'octaves: 99') WHERE key = 'preset_text'");
    refused(&["world", "info", preset.to_str().unwrap()], "no longer validates", &preset);

    let truncated = copy("truncated");
    let bytes = std::fs::read(truncated.join("world.sqlite")).unwrap();
    std::fs::write(truncated.join("world.sqlite"), &bytes[..bytes.len() / 3]).unwrap();
    refused(&["world", "info", truncated.to_str().unwrap()], "damaged", &truncated);

    let garbage = copy("garbage");
    std::fs::write(garbage.join("world.sqlite"), b"this is not a database, it is a shopping list").unwrap();
    refused(&["world", "get", garbage.to_str().unwrap(), "0,0,0"], "damaged", &garbage);

    let blocks = copy("blocks");
    tamper(&blocks, "UPDATE blocks SET name = 'marble' WHERE id = 1");
    refused(
        &["region-hash", "--world", blocks.to_str().unwrap(), "--from", "0,0,0", "--to", "0,0,0"],
        "`marble`",
        &blocks,
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Makes `dir` read-only even for root (immutable attribute), or with
/// permissions for other users. False where neither is possible.
fn make_read_only(dir: &Path, on: bool) -> bool {
    let flag = if on { "+i" } else { "-i" };
    if Command::new("chattr").arg(flag).arg(dir).status().map(|s| s.success()).unwrap_or(false) {
        return true;
    }
    let mode = if on { "555" } else { "755" };
    let is_root = Command::new("id").arg("-u").output().map(|o| text(&o.stdout) == "0").unwrap_or(true);
    !is_root && Command::new("chmod").args([mode, dir.to_str().unwrap()]).status().map(|s| s.success()).unwrap_or(false)
}

#[test]
fn a_read_only_directory_gives_a_clear_error() {
    let d = scratch("readonly");
    let w = d.join("w");
    new_world(&w, "3");
    let ro = d.join("ro");
    std::fs::create_dir_all(&ro).unwrap();
    assert!(
        make_read_only(&w, true) && make_read_only(&ro, true),
        "cannot make a directory read-only here (chattr or a non-root user)"
    );
    let edit = run(&["world", "edit", w.to_str().unwrap(), "--script", "/dev/null"]);
    let create = run(&["world", "new", ro.join("x").to_str().unwrap(), "--seed", "1"]);
    make_read_only(&w, false);
    make_read_only(&ro, false);
    for o in [edit, create] {
        let err = text(&o.stderr);
        assert!(!o.status.success() && !err.contains("panicked"), "{err}");
        assert!(err.contains("cannot"), "unclear: {err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A script of `n` edits over a few chunks, and the edits it makes.
fn script(n: usize) -> (String, Vec<(BlockPos, BlockId)>) {
    let names = ["stone", "glass", "air", "planks", "torch", "leaves", "lava", "glowstone"];
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    };
    let mut out = String::new();
    let mut edits = Vec::new();
    for _ in 0..n {
        let p = BlockPos::new(next(128) as i64 - 64, next(128) as i64 - 32, next(128) as i64 - 64);
        let name = names[next(names.len() as u64) as usize];
        out += &format!("set {} {} {} {name}\n", p.x, p.y, p.z);
        edits.push((p, BlockId::by_name(name).unwrap()));
    }
    (out, edits)
}

/// The chunk deltas the first `k` edits make.
fn prefix(edits: &[(BlockPos, BlockId)], k: usize) -> HashMap<ChunkPos, ChunkEdits> {
    let mut out: HashMap<ChunkPos, ChunkEdits> = HashMap::new();
    for (p, b) in &edits[..k] {
        let [x, y, z] = p.local();
        out.entry(p.chunk().unwrap()).or_default().set(block_index(x, y, z), *b);
    }
    out
}

#[test]
fn kill_9_during_a_script_keeps_an_exact_prefix_of_it() {
    let d = scratch("crash");
    let (text_, edits) = script(100_000);
    let script_path = d.join("script.txt");
    std::fs::write(&script_path, text_).unwrap();
    let run_edit = |w: &Path| {
        bin()
            .args(["world", "edit", w.to_str().unwrap(), "--script", script_path.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("world edit starts")
    };
    // How long a whole run takes here, so the kills land inside one.
    let full = d.join("full");
    new_world(&full, "5");
    let t = Instant::now();
    assert!(run_edit(&full).wait().unwrap().success());
    let whole = t.elapsed().max(Duration::from_millis(50));

    let mut partial = 0;
    for rep in 0..20u64 {
        let w = d.join(format!("w{rep}"));
        new_world(&w, "5");
        let mut child = run_edit(&w);
        std::thread::sleep(whole.mul_f64((rep as f64 * 0.618_034).fract()));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let world = WorldFile::open(&w).unwrap_or_else(|e| panic!("rep {rep}: the world does not reopen: {e}"));
        assert_eq!(world.integrity_check().unwrap(), "ok", "rep {rep}");
        let k = world.meta().edits_applied as usize;
        assert!(k <= edits.len());
        assert!(
            world.load_edits().unwrap() == prefix(&edits, k),
            "rep {rep}: the saved edits are not the first {k} of the script"
        );
        partial += (0 < k && k < edits.len()) as usize;
    }
    assert!(partial >= 5, "only {partial} of 20 kills landed in the middle of the script");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn the_time_of_day_is_kept_with_the_world() {
    let d = scratch("time");
    let w = d.join("w");
    new_world(&w, "5");
    assert_eq!(WorldFile::open(&w).unwrap().time_of_day().unwrap(), None, "a new world has no saved time");
    WorldFile::open(&w).unwrap().save_time_of_day(0.8125).unwrap();
    assert_eq!(WorldFile::open(&w).unwrap().time_of_day().unwrap(), Some(0.8125));
    // A value that is not a time of day reads as none rather than failing.
    tamper(&w, "UPDATE meta SET value = 'dusk' WHERE key = 'time_of_day'");
    assert_eq!(WorldFile::open(&w).unwrap().time_of_day().unwrap(), None);
    let _ = std::fs::remove_dir_all(&d);
}

/// A saved player position past the accepted range (a damaged or hand-made
/// file) is refused when the world opens, with the reason, not played.
#[test]
fn a_saved_player_past_the_accepted_range_is_refused() {
    let dir = scratch("far-player");
    new_world(&dir, "7");
    let d = dir.to_str().unwrap();
    ok(&["world", "info", d]);
    let mut w = WorldFile::open(&dir).unwrap();
    let far = blockworld::save::world_file::SavedPlayer { pos: [3.0e9, 80.0, 0.0], yaw: 0.0, pitch: 0.0, flying: true };
    w.save_player(&far).unwrap();
    drop(w);
    let o = run(&["world", "info", d]);
    assert!(!o.status.success(), "a far player was accepted: {}", text(&o.stdout));
    let err = text(&o.stderr);
    assert!(err.contains("accepted range") && !err.contains("panicked"), "{err}");
}
