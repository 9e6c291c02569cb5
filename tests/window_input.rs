//! The real windowed game under Xvfb, driven by real X key and mouse events
//! from xdotool; the state dump must show the player flew forward, turned,
//! toggled fly mode, and changed the render distance, and that G switched
//! generation to the GPU: the driver stand-in (.ci/cuda-stand-in) with a
//! slow module load, which the game must absorb off its own thread.
//! Needs Xvfb and xdotool (.ci/install provides them); set
//! BLOCKWORLD_SKIP_WINDOW_TESTS=1 to skip on a machine without them.

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Killed(Child);
impl Drop for Killed {
    /// SIGTERM first, so Xvfb removes its lock and socket; SIGKILL if it lingers.
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn xdotool(display: &str, args: &[&str]) -> String {
    let o = Command::new("xdotool").args(args).env("DISPLAY", display).output().expect("xdotool runs");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// How long the stand-in takes to load each module: a slow JIT or NVRTC
/// compile that used to freeze the frame in which G was pressed.
const SLOW_MODULE_LOAD_MS: &str = "1500";

fn last_state(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().last().and_then(|l| serde_json::from_str(l).ok())
}

#[test]
fn keys_and_mouse_drive_the_real_window() {
    if std::env::var("BLOCKWORLD_SKIP_WINDOW_TESTS").as_deref() == Ok("1") {
        eprintln!("skipped by BLOCKWORLD_SKIP_WINDOW_TESTS=1");
        return;
    }
    assert!(have("Xvfb") && have("xdotool"), "Xvfb and xdotool are required (run .ci/install)");
    let dir = std::env::temp_dir().join(format!("blockworld-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A display far from :0 (a developer's own X server), with no lock or
    // socket left over; Xvfb writes the number back once it accepts clients.
    let free = |n: u32| {
        !Path::new(&format!("/tmp/.X{n}-lock")).exists() && !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
    };
    let start = 100 + std::process::id() % 700;
    let n = (start..start + 200).find(|&n| free(n)).expect("a free X display number");
    let mut xvfb = Command::new("Xvfb")
        .args([format!(":{n}").as_str(), "-displayfd", "1", "-screen", "0", "1024x640x24", "-nolisten", "tcp", "-ac"])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("xvfb.log")).unwrap())
        .spawn()
        .expect("Xvfb starts");
    let mut number = String::new();
    // Keep the pipe open for Xvfb's lifetime: a closed pipe would kill it
    // with SIGPIPE if it ever wrote again.
    let mut xvfb_out = std::io::BufReader::new(xvfb.stdout.take().expect("Xvfb stdout"));
    std::io::BufRead::read_line(&mut xvfb_out, &mut number).expect("Xvfb reports its display");
    let mut xvfb = Killed(xvfb);
    let display = format!(":{}", number.trim());
    assert!(number.trim().parse::<u32>().is_ok(), "Xvfb did not report a display: {number:?}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !Command::new("xdotool")
        .arg("getdisplaygeometry")
        .env("DISPLAY", &display)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
    {
        assert!(Instant::now() < deadline, "Xvfb on {display} does not accept clients");
        std::thread::sleep(Duration::from_millis(100));
    }

    let dump = dir.join("state.jsonl");
    let driver = support::stand_in();
    let launch = || {
        let log = std::fs::File::create(dir.join("game.log")).unwrap();
        Killed(
            Command::new(env!("CARGO_BIN_EXE_blockworld"))
                .args([
                    "play",
                    "--seed",
                    "42",
                    "--render-distance",
                    "4",
                    "--size",
                    "800x500",
                    "--exit-after",
                    "90",
                    "--dump-state",
                ])
                .arg(&dump)
                .env("DISPLAY", &display)
                .env("XDG_RUNTIME_DIR", &dir)
                .env("LD_LIBRARY_PATH", &driver)
                .env("CUDA_STAND_IN_MODULE_LOAD_MS", SLOW_MODULE_LOAD_MS)
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .expect("the game starts"),
        )
    };
    let mut game = launch();
    let mut launches = 1;
    // Wait for the window and for the world around the player to load.
    let deadline = Instant::now() + Duration::from_secs(60);
    let window = loop {
        let id = xdotool(&display, &["search", "--name", "^blockworld$"]);
        if let Some(id) = id.lines().next() {
            if last_state(&dump)
                .map(|s| s["complete"] == s["wanted"] && s["loaded_chunks"].as_u64() > Some(0))
                .unwrap_or(false)
            {
                break id.to_string();
            }
        }
        let game_log = std::fs::read_to_string(dir.join("game.log")).unwrap_or_default();
        let xvfb_log = std::fs::read_to_string(dir.join("xvfb.log")).unwrap_or_default();
        // A game that could not reach the fresh server is started again (twice at most).
        if let Ok(Some(status)) = game.0.try_wait() {
            let xvfb_state = xvfb.0.try_wait();
            eprintln!("the game exited ({status}) on {display}; Xvfb: {xvfb_state:?}; log:\n{game_log}");
            assert!(launches < 3, "the game keeps failing on {display}; Xvfb log:\n{xvfb_log}");
            std::thread::sleep(Duration::from_secs(1));
            game = launch();
            launches += 1;
        }
        assert!(
            Instant::now() < deadline,
            "the game window did not come up and load on {display}; game log:\n{game_log}\nXvfb log:\n{xvfb_log}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    xdotool(&display, &["windowfocus", "--sync", &window]);
    std::thread::sleep(Duration::from_millis(1500));
    let before = last_state(&dump).unwrap();
    assert_eq!(before["mode"], "walk", "the player starts walking on the ground");
    assert!(before["gpu_off"].is_null());

    let key = |k: &str| xdotool(&display, &["key", "--delay", "50", k]);
    let hold = |k: &str, d: Duration| {
        xdotool(&display, &["keydown", k]);
        std::thread::sleep(d);
        xdotool(&display, &["keyup", k]);
    };
    key("f");
    hold("space", Duration::from_millis(1000));
    hold("w", Duration::from_millis(2500));
    for _ in 0..10 {
        xdotool(&display, &["mousemove_relative", "--", "30", "0"]);
        std::thread::sleep(Duration::from_millis(60));
    }
    key("g");
    key("equal");
    key("equal");
    // The stand-in's device comes up after its slow module loads.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = last_state(&dump).unwrap();
        if s["backend"].as_str().unwrap_or("").contains("RTX 4090") || !s["gpu_off"].is_null() {
            break;
        }
        assert!(Instant::now() < deadline, "G did not bring the stand-in GPU up: {s}");
        std::thread::sleep(Duration::from_millis(200));
    }
    // Generation carries on through the device for a while.
    std::thread::sleep(Duration::from_millis(1500));
    let after = last_state(&dump).unwrap();
    let game_log = std::fs::read_to_string(dir.join("game.log")).unwrap_or_default();

    let v = |s: &serde_json::Value, k: &str, i: usize| s[k][i].as_f64().unwrap();
    let yaw0 = before["yaw"].as_f64().unwrap().to_radians();
    let forward = (v(&after, "pos", 0) - v(&before, "pos", 0)) * yaw0.sin()
        + (v(&after, "pos", 2) - v(&before, "pos", 2)) * yaw0.cos();
    assert!(forward > 10.0, "W did not move the player forward ({forward:.1} blocks); log:\n{game_log}");
    assert!(v(&after, "pos", 1) > v(&before, "pos", 1) + 5.0, "Space did not lift the flying player");
    let turned = (after["yaw"].as_f64().unwrap() - before["yaw"].as_f64().unwrap()).abs();
    assert!(turned > 10.0, "the mouse did not turn the player ({turned:.1}°)");
    assert_eq!(after["mode"], "fly", "F did not toggle fly mode");
    assert!(after["gpu_off"].is_null(), "the stand-in GPU failed: {after}\n{game_log}");
    assert!(
        after["backend"].as_str().unwrap_or("").starts_with("GPU NVIDIA GeForce RTX 4090"),
        "G did not switch generation to the stand-in GPU: {after}"
    );
    // Opening took over a second of module loads; the game thread must not
    // have waited for it.
    let switch_ms = after["switch_ms"].as_f64().unwrap();
    assert!(switch_ms < 100.0, "the switch held the game thread for {switch_ms:.0} ms");
    eprintln!(
        "G: game thread spent at most {switch_ms:.2} ms in the switch; longest recent frame {:.1} ms",
        after["frame_ms_max"].as_f64().unwrap()
    );
    assert_eq!(
        after["render_distance"].as_i64(),
        Some(before["render_distance"].as_i64().unwrap() + 2),
        "= did not raise the render distance"
    );
    drop(xvfb_out);
    let _ = std::fs::remove_dir_all(&dir);
}
