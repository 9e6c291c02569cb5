//! The world simulation through the binary: `world edit` places fluids and
//! schedules their neighbours, `world tick` moves them and saves as it
//! goes; a run killed with -9 mid-flood and reopened ends where an
//! uninterrupted run does; bad simulation rows are refused, naming the
//! file, the row and the reason, and leave the file as it was.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_blockworld"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim().to_string()
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("blockworld runs")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "{args:?} failed: {}", text(&o.stderr));
    text(&o.stdout)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("blockworld-tick-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// A stone platform high in the air (y 200, x and z −12..12) with water
/// and lava sources on it, and a gap in it that the water pours through.
fn flood_world(dir: &Path, name: &str) -> PathBuf {
    let w = dir.join(name);
    ok(&["world", "new", w.to_str().unwrap(), "--seed", "7"]);
    let mut script = String::new();
    for x in -12..=12 {
        for z in -12..=12 {
            if !(x == 0 && z == 5) {
                script += &format!("set {x} 200 {z} stone\n");
            }
        }
    }
    script += "set 0 201 0 water\nset 4 201 0 lava\nset -6 201 -6 lava\nset -6 201 6 water\nset -8 201 6 water\n";
    let s = dir.join(format!("{name}.txt"));
    std::fs::write(&s, script).expect("script");
    ok(&["world", "edit", w.to_str().unwrap(), "--script", s.to_str().unwrap()]);
    w
}

fn get(w: &Path, pos: &str) -> String {
    ok(&["world", "get", w.to_str().unwrap(), pos])
}

fn info(w: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(&["world", "info", w.to_str().unwrap(), "--json"])).expect("info is JSON")
}

fn digest(w: &Path) -> String {
    ok(&["region-hash", "--world", w.to_str().unwrap(), "--from", "-1,6,-1", "--to", "0,6,0"])
}

#[test]
fn edits_flow_under_world_tick_and_stay_put_once_settled() {
    let d = scratch("flow");
    let w = flood_world(&d, "w");
    assert!(info(&w)["pending_updates"].as_u64().unwrap_or(0) > 0, "the edit schedules its neighbours");
    assert_eq!(get(&w, "1,201,0"), "air", "nothing moves before a tick");
    ok(&["world", "tick", w.to_str().unwrap(), "--seconds", "10"]);
    assert_eq!(get(&w, "0,201,-1"), "water_flowing_one");
    assert_eq!(get(&w, "0,201,-7"), "water_flowing_seven");
    assert_eq!(get(&w, "0,201,-8"), "air");
    assert_eq!(get(&w, "4,201,0"), "obsidian", "the water reached the lava source");
    assert_eq!(get(&w, "-7,201,6"), "water", "two sources made a third");
    assert_eq!([get(&w, "0,200,5"), get(&w, "0,199,5")], ["water_falling"; 2], "poured through the gap");
    let i = info(&w);
    assert_eq!(i["sim_tick"], 200);
    let settled = digest(&w);
    ok(&["world", "tick", w.to_str().unwrap(), "--seconds", "2"]);
    assert_eq!(digest(&w), settled, "a settled platform stays as it is");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_flood_killed_mid_flow_and_reopened_ends_as_an_uninterrupted_one() {
    let d = scratch("kill");
    let (whole, killed) = (flood_world(&d, "whole"), flood_world(&d, "killed"));
    ok(&["world", "tick", whole.to_str().unwrap(), "--ticks", "300"]);
    let mut child = bin()
        .args(["world", "tick", killed.to_str().unwrap(), "--ticks", "300", "--realtime"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(2600));
    child.kill().expect("kill -9");
    let _ = child.wait();
    let reached = info(&killed)["sim_tick"].as_u64().expect("a tick was saved");
    assert!((20..300).contains(&reached), "killed mid-flood, at tick {reached}");
    assert_ne!(digest(&killed), digest(&whole), "the flood was still moving when killed");
    let started = Instant::now();
    ok(&["world", "tick", killed.to_str().unwrap(), "--ticks", &(300 - reached).to_string()]);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(digest(&killed), digest(&whole));
    assert_eq!(info(&killed)["edited_blocks"], info(&whole)["edited_blocks"]);
    let _ = std::fs::remove_dir_all(&d);
}

fn file_bytes(w: &Path) -> Vec<Vec<u8>> {
    ["world.sqlite", "world.sqlite-wal"].map(|f| std::fs::read(w.join(f)).unwrap_or_default()).to_vec()
}

#[test]
fn bad_simulation_rows_are_refused_with_the_row_and_the_reason_and_the_file_kept() {
    let d = scratch("bad");
    let w = flood_world(&d, "w");
    let sql = |q: &str| {
        let c = rusqlite::Connection::open(w.join("world.sqlite")).expect("open");
        c.execute_batch(q).expect("sql");
    };
    let edited = info(&w)["edited_blocks"].clone();
    for (q, needle) in [
        ("INSERT INTO pending (x, y, z, due) VALUES (99999999999, 5, 5, 3)", "beyond the accepted range"),
        ("INSERT INTO pending (x, y, z, due) VALUES (1, 2, 3, -4)", "never negative"),
        ("UPDATE meta SET value = 'soon' WHERE key = 'sim_tick'", "not a tick count"),
    ] {
        sql(&format!("BEGIN; {q}; COMMIT;"));
        let before = file_bytes(&w);
        for cmd in
            [&["world", "tick", w.to_str().unwrap(), "--seconds", "1"][..], &["world", "info", w.to_str().unwrap()]]
        {
            let o = run(cmd);
            let e = text(&o.stderr);
            assert!(!o.status.success(), "{cmd:?} accepted {q}");
            assert!(e.contains("world.sqlite") && e.contains(needle), "{e}");
            assert!(q.contains("meta") || e.contains("pending row"), "{e}");
        }
        assert_eq!(file_bytes(&w), before, "a refused file is left as it was");
        sql(
            "DELETE FROM pending WHERE x = 99999999999 OR due < 0; UPDATE meta SET value = '0' WHERE key = 'sim_tick';",
        );
        assert_eq!(info(&w)["edited_blocks"], edited, "nothing else was lost");
    }
    // A fluid level this build lacks is a block id its registry does not have.
    sql("UPDATE edits SET delta = X'00003400' WHERE cx = 0 AND cy = 6 AND cz = 0");
    let e = text(&run(&["world", "tick", w.to_str().unwrap(), "--seconds", "1"]).stderr);
    assert!(e.contains("world.sqlite") && e.contains("chunk (0, 6, 0)") && e.contains("block id 52"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}
