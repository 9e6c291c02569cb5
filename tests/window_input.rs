//! The real windowed game under Xvfb, driven by real X key and mouse events
//! from xdotool; the state dump must show the player flew forward, turned,
//! toggled fly mode, and changed the render distance, and that G switched
//! generation to the GPU: the driver stand-in (.ci/cuda-stand-in) with a
//! slow module load, which the game must absorb off its own thread.
//! Needs Xvfb and xdotool (.ci/install provides them); set
//! BLOCKWORLD_SKIP_WINDOW_TESTS=1 to skip on a machine without them.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
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

fn skip() -> bool {
    if std::env::var("BLOCKWORLD_SKIP_WINDOW_TESTS").as_deref() == Ok("1") {
        eprintln!("skipped by BLOCKWORLD_SKIP_WINDOW_TESTS=1");
        return true;
    }
    assert!(have("Xvfb") && have("xdotool"), "Xvfb and xdotool are required (run .ci/install)");
    false
}

/// A private X server and a scratch directory (the game's runtime and data
/// directories point into it, so no test touches the user's worlds).
struct Session {
    dir: PathBuf,
    display: String,
    xvfb: Killed,
    // Kept open for Xvfb's lifetime: a closed pipe would kill it with
    // SIGPIPE if it ever wrote again.
    _xvfb_out: std::io::BufReader<std::process::ChildStdout>,
}

impl Session {
    fn start(name: &str) -> Session {
        let dir = std::env::temp_dir().join(format!("blockworld-window-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A display far from :0 (a developer's own X server), with no lock or
        // socket left over; Xvfb writes the number back once it accepts clients.
        let free = |n: u32| {
            !Path::new(&format!("/tmp/.X{n}-lock")).exists() && !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
        };
        let start = 100 + (std::process::id() + name.len() as u32 * 97) % 700;
        let n = (start..start + 200).find(|&n| free(n)).expect("a free X display number");
        let mut xvfb = Command::new("Xvfb")
            .args([
                format!(":{n}").as_str(),
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1024x640x24",
                "-nolisten",
                "tcp",
                "-ac",
            ])
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.join("xvfb.log")).unwrap())
            .spawn()
            .expect("Xvfb starts");
        let mut number = String::new();
        let mut out = std::io::BufReader::new(xvfb.stdout.take().expect("Xvfb stdout"));
        std::io::BufRead::read_line(&mut out, &mut number).expect("Xvfb reports its display");
        let xvfb = Killed(xvfb);
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
        Session { dir, display, xvfb, _xvfb_out: out }
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }

    /// Starts `blockworld play ARGS --dump-state DUMP` and waits until its
    /// window is up and the world around the player has loaded; returns the
    /// game and its window, focused.
    fn play(&mut self, args: &[&str], env: &[(&str, &str)], dump: &Path) -> (Killed, String) {
        let launch = || {
            let log = std::fs::File::create(self.dir.join("game.log")).unwrap();
            let mut c = Command::new(env!("CARGO_BIN_EXE_blockworld"));
            c.arg("play").args(args).arg("--dump-state").arg(dump);
            c.env("DISPLAY", &self.display)
                .env("XDG_RUNTIME_DIR", &self.dir)
                .env("XDG_DATA_HOME", self.dir.join("data"))
                .env("XDG_CONFIG_HOME", self.dir.join("config"));
            for (k, v) in env {
                c.env(k, v);
            }
            Killed(c.stdout(log.try_clone().unwrap()).stderr(log).spawn().expect("the game starts"))
        };
        let mut game = launch();
        let mut launches = 1;
        let deadline = Instant::now() + Duration::from_secs(60);
        let window = loop {
            let id = xdotool(&self.display, &["search", "--name", "^blockworld$"]);
            if let Some(id) = id.lines().next() {
                if last_state(dump)
                    .map(|s| s["complete"] == s["wanted"] && s["loaded_chunks"].as_u64() > Some(0))
                    .unwrap_or(false)
                {
                    break id.to_string();
                }
            }
            // A game that could not reach the fresh server is started again (twice at most).
            if let Ok(Some(status)) = game.0.try_wait() {
                let xvfb_state = self.xvfb.0.try_wait();
                eprintln!(
                    "the game exited ({status}) on {}; Xvfb: {xvfb_state:?}; log:\n{}",
                    self.display,
                    self.log("game.log")
                );
                assert!(
                    launches < 3,
                    "the game keeps failing on {}; Xvfb log:\n{}",
                    self.display,
                    self.log("xvfb.log")
                );
                std::thread::sleep(Duration::from_secs(1));
                game = launch();
                launches += 1;
            }
            assert!(
                Instant::now() < deadline,
                "the game window did not come up and load on {}; game log:\n{}\nXvfb log:\n{}",
                self.display,
                self.log("game.log"),
                self.log("xvfb.log")
            );
            std::thread::sleep(Duration::from_millis(200));
        };
        xdotool(&self.display, &["windowfocus", "--sync", &window]);
        std::thread::sleep(Duration::from_millis(1500));
        (game, window)
    }

    fn key(&self, k: &str) {
        xdotool(&self.display, &["key", "--delay", "50", k]);
    }

    fn hold(&self, k: &str, d: Duration) {
        xdotool(&self.display, &["keydown", k]);
        std::thread::sleep(d);
        xdotool(&self.display, &["keyup", k]);
    }

    /// Relative mouse motion in steps small and slow enough that the game
    /// (which keeps a confined cursor in the middle of the window each
    /// frame) sees all of it before the cursor reaches an edge.
    fn look(&self, dx: i32, dy: i32, steps: i32) {
        let steps = steps.max((dx.abs().max(dy.abs()) + 59) / 60);
        for _ in 0..steps {
            xdotool(&self.display, &["mousemove_relative", "--", &(dx / steps).to_string(), &(dy / steps).to_string()]);
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn click(&self, button: &str) {
        xdotool(&self.display, &["click", button]);
        std::thread::sleep(Duration::from_millis(300));
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn keys_and_mouse_drive_the_real_window() {
    if skip() {
        return;
    }
    let mut s = Session::start("keys");
    let dump = s.dir.join("state.jsonl");
    let driver = support::stand_in();
    let world = s.dir.join("world");
    let (_game, _window) = s.play(
        &[
            "--world",
            world.to_str().unwrap(),
            "--seed",
            "42",
            "--render-distance",
            "4",
            "--size",
            "800x500",
            "--exit-after",
            "90",
            "--backend",
            "cpu",
        ],
        &[("LD_LIBRARY_PATH", &driver), ("CUDA_STAND_IN_MODULE_LOAD_MS", SLOW_MODULE_LOAD_MS)],
        &dump,
    );
    let before = last_state(&dump).unwrap();
    assert_eq!(before["mode"], "walk", "the player starts walking on the ground");
    assert!(before["gpu_off"].is_null());

    s.key("f");
    s.hold("space", Duration::from_millis(1000));
    s.hold("w", Duration::from_millis(2500));
    s.look(300, 0, 10);
    s.key("g");
    s.key("equal");
    s.key("equal");
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
    let game_log = s.log("game.log");

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
    // G again: the CPU and the device together, at once (the device is open).
    s.key("g");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let st = last_state(&dump).unwrap();
        // Both lanes running (the range may be complete by now: whether
        // they get work here is for tests/streaming.rs and tests/stand_in.rs).
        if st["backend"].as_str().unwrap_or("").starts_with("hybrid: CPU + GPU NVIDIA GeForce RTX 4090")
            && st["balance"]["device"]["engine"] == "gpu"
            && st["balance"]["cpu"]["engine"] == "cpu"
        {
            break;
        }
        assert!(Instant::now() < deadline, "the second G did not switch to hybrid generation: {st}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn block_at(world: &Path, p: &serde_json::Value) -> String {
    let pos = format!("{},{},{}", p[0], p[1], p[2]);
    let o = Command::new(env!("CARGO_BIN_EXE_blockworld"))
        .args(["world", "get", world.to_str().unwrap(), &pos])
        .output()
        .expect("world get runs");
    assert!(o.status.success(), "world get {pos}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// Break a block and place another with real clicks, quit, and find both
/// in the saved world; start again and stand where the player left off.
#[test]
fn dig_build_quit_and_find_the_world_as_left() {
    if skip() {
        return;
    }
    let mut s = Session::start("dig");
    let world = s.dir.join("world");
    let dump = s.dir.join("state.jsonl");
    let args = ["--world", world.to_str().unwrap(), "--seed", "42", "--render-distance", "3", "--size", "640x400"];
    let (mut game, _window) = s.play(&[&args[..], &["--exit-after", "40"]].concat(), &[], &dump);
    // Hover, look straight down, break the block below; then look ahead and
    // down, pick slot 5 (glass), and place it on the ground there.
    s.key("f");
    s.look(0, 900, 10);
    std::thread::sleep(Duration::from_millis(500));
    s.click("1");
    // Raise the view in small steps until the crosshair rests on the ground
    // a little ahead (the server's pointer acceleration makes pixels a poor
    // measure of degrees, so watch the game's own pitch).
    for _ in 0..20 {
        s.look(0, -25, 1);
        std::thread::sleep(Duration::from_millis(1100));
        let now = last_state(&dump).unwrap();
        if now["pitch"].as_f64().unwrap_or(-90.0) > -55.0 && now["target"].is_array() {
            break;
        }
    }
    s.key("5");
    std::thread::sleep(Duration::from_millis(500));
    s.click("3");
    std::thread::sleep(Duration::from_millis(2500));
    let state = last_state(&dump).unwrap();
    let log = s.log("game.log");
    let broken = state["last_break"].clone();
    let placed = state["last_place"].clone();
    assert!(broken.is_array(), "the left click broke nothing: {state}\n{log}");
    assert!(placed.is_array(), "the right click placed nothing: {state}\n{log}");
    assert_eq!(placed[1], "glass", "slot 5 holds glass");
    assert_ne!(placed[0], broken, "placed where it broke");
    let saved_pos = state["pos"].clone();

    // Quit (the game saves on the way out), then read the world back.
    let deadline = Instant::now() + Duration::from_secs(60);
    while game.0.try_wait().ok().flatten().is_none() {
        assert!(Instant::now() < deadline, "the game did not quit after --exit-after");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(block_at(&world, &broken), "air", "the broken block came back");
    assert_eq!(block_at(&world, &placed[0]), "glass", "the placed block is gone");

    // Start again: the player is back where they left off, in fly mode
    // (the first state line, written before the first physics step moves
    // anything).
    let dump2 = s.dir.join("state2.jsonl");
    let (_game2, _window2) = s.play(&[&args[..], &["--exit-after", "30"]].concat(), &[], &dump2);
    let first = std::fs::read_to_string(&dump2).unwrap_or_default();
    let again: serde_json::Value = serde_json::from_str(first.lines().next().unwrap_or("{}")).unwrap();
    assert_eq!(again["mode"], "fly");
    for i in 0..3 {
        let (a, b) = (again["pos"][i].as_f64().unwrap(), saved_pos[i].as_f64().unwrap());
        assert!((a - b).abs() < 1e-3, "the player came back at {} instead of {saved_pos}", again["pos"]);
    }
    let _ = &mut game;
}

impl Session {
    /// Clicks a widget of the game menu by the name the state dump gives it,
    /// once two state lines agree on where it is (egui lays a new window
    /// out in an invisible sizing pass first, and a line written then holds
    /// places the window does not keep).
    fn click_widget(&self, window: &str, dump: &Path, name: &str) {
        let at = self.widget_at(dump, name);
        xdotool(&self.display, &["mousemove", "--window", window, &format!("{:.0}", at.0), &format!("{:.0}", at.1)]);
        std::thread::sleep(Duration::from_millis(300));
        self.click("1");
        // The widget takes focus in the frame that reads the click; keys
        // typed before that frame ends are lost (with three games sharing
        // two cores a frame can take most of a second). State lines come a
        // second apart: two more mean a whole frame after the click.
        let t0 = last_state(dump).and_then(|s| s["t"].as_f64()).unwrap_or(0.0);
        self.wait_for(dump, "no frame after the click", |v| v["t"].as_f64().is_some_and(|t| t > t0 + 1.5));
    }

    fn wait_for(&self, dump: &Path, what: &str, ok: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let s = last_state(dump).unwrap_or_default();
            if ok(&s) {
                return s;
            }
            assert!(Instant::now() < deadline, "{what}: {s}\n{}", self.log("game.log"));
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn settings_text(s: &Session) -> String {
    std::fs::read_to_string(s.dir.join("config/blockworld/settings.ron")).unwrap_or_default()
}

/// A broken settings file gives a warning and the defaults; settings
/// changed in game are kept; the game menu (Esc) creates a world from a
/// typed seed and reopens a recent one; a second run opens the last world
/// with the saved settings.
#[test]
fn settings_and_the_world_menu_carry_over() {
    if skip() {
        return;
    }
    let mut s = Session::start("menu");
    let config = s.dir.join("config/blockworld");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("settings.ron"), "(fov_degrees: 80.0, render_distance: ").unwrap();
    let first = s.dir.join("first");
    let dump = s.dir.join("state.jsonl");
    let base = ["--size", "800x560", "--exit-after", "120"];
    let (game, window) =
        s.play(&[&base[..], &["--world", first.to_str().unwrap(), "--seed", "5"]].concat(), &[], &dump);
    let log = s.log("game.log");
    assert!(
        log.contains("settings.ron") && log.contains("using the defaults"),
        "no warning for the broken file:\n{log}"
    );
    assert_eq!(last_state(&dump).unwrap()["render_distance"], 8, "the default render distance");

    s.key("minus");
    s.key("minus");
    s.key("3");
    s.wait_for(&dump, "- and 3 did not change the settings", |v| v["render_distance"] == 6 && v["slot"] == 2);
    // Esc opens the menu; a click on the world beside it resumes play.
    s.key("Escape");
    s.wait_for(&dump, "Esc did not open the menu", |v| v["grabbed"] == false && v["menu"]["resume"].is_array());
    xdotool(&s.display, &["mousemove", "--window", &window, "30", "300"]);
    std::thread::sleep(Duration::from_millis(300));
    s.click("1");
    s.wait_for(&dump, "a click on the world did not resume play", |v| v["grabbed"] == true);
    // Esc: the menu; type a name and a seed, and create the world.
    s.key("Escape");
    s.click_widget(&window, &dump, "name");
    s.key("ctrl+a");
    xdotool(&s.display, &["type", "--delay", "60", "second"]);
    s.click_widget(&window, &dump, "seed");
    xdotool(&s.display, &["type", "--delay", "60", "777"]);
    s.click_widget(&window, &dump, "create");
    let second = s.wait_for(&dump, "the menu did not open the new world", |v| {
        v["world"].as_str().is_some_and(|w| w.ends_with("/second")) && v["complete"] == v["wanted"]
    });
    assert_eq!(second["grabbed"], true, "playing resumes in the new world");
    let second_dir = PathBuf::from(second["world"].as_str().unwrap());
    let info = Command::new(env!("CARGO_BIN_EXE_blockworld"))
        .args(["world", "info", second_dir.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap_or_default();
    assert_eq!(info["seed"], 777, "the typed seed: {info}");
    let settings = settings_text(&s);
    assert!(settings.contains("render_distance: 6"), "the render distance was not saved:\n{settings}");
    assert!(settings.contains("hotbar_selected: 2"), "the hotbar slot was not saved:\n{settings}");
    drop(game);

    // A second run with no --world and no --render-distance: the last
    // world, the saved settings; then reopen the first world from the menu.
    let dump2 = s.dir.join("state2.jsonl");
    let (_game2, window2) = s.play(&base, &[], &dump2);
    let again = last_state(&dump2).unwrap();
    assert_eq!(again["world"].as_str(), second_dir.to_str(), "not the last world played");
    assert_eq!(again["render_distance"], 6);
    assert_eq!(again["slot"], 2);
    s.key("Escape");
    s.click_widget(&window2, &dump2, "recent_0");
    let back = s.wait_for(&dump2, "the menu did not reopen the first world", |v| {
        v["world"].as_str().is_some_and(|w| w.ends_with("/first"))
    });
    assert_eq!(back["grabbed"], true);
}

impl Session {
    /// Where a widget of the game menu is, once two state lines agree.
    fn widget_at(&self, dump: &Path, name: &str) -> (f64, f64) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen: Option<(f64, (f64, f64))> = None;
        loop {
            let s = last_state(dump).unwrap_or_default();
            if let (Some(at), Some(t)) = (s["menu"][name].as_array(), s["t"].as_f64()) {
                let at = (at[0].as_f64().unwrap_or(0.0), at[1].as_f64().unwrap_or(0.0));
                match seen {
                    Some((t0, before)) if t0 != t && before == at => return at,
                    Some((t0, _)) if t0 == t => {}
                    _ => seen = Some((t, at)),
                }
            }
            assert!(Instant::now() < deadline, "the game menu shows no steady `{name}`: {s}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Looks straight down and breaks the block under the player; returns it.
    fn break_below(&self, dump: &Path) -> serde_json::Value {
        self.look(0, 900, 10);
        self.wait_for(dump, "no block under the crosshair", |v| v["target"].is_array());
        self.click("1");
        self.wait_for(dump, "the left click broke nothing", |v| v["last_break"].is_array())["last_break"].clone()
    }
}

/// How long `game` takes to exit, at most `limit` (then the test fails).
fn exits_within(game: &mut Killed, limit: Duration, what: &str) -> Duration {
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = game.0.try_wait() {
            assert!(status.success(), "{what}: the game exited with {status}");
            return start.elapsed();
        }
        assert!(start.elapsed() < limit, "{what}: the game did not exit within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn png_rgba(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).expect("the screenshot exists")));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("its pixels");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Mean brightness of the top left corner, where F3's overlay sits.
fn corner_brightness((w, _, rgba): &(u32, u32, Vec<u8>)) -> f64 {
    let (mut sum, mut n) = (0.0, 0.0);
    for y in 12..90 {
        for x in 12..200 {
            let i = ((y * w + x) * 4) as usize;
            sum += (rgba[i] as f64 + rgba[i + 1] as f64 + rgba[i + 2] as f64) / 3.0;
            n += 1.0;
        }
    }
    sum / n
}

/// A player's first minute: nothing but the crosshair and hotbar until F3
/// shows the debug overlay; F2 writes the window to a PNG (the overlay in
/// it once shown); Save and quit in the menu, and SIGTERM, each end the
/// game within 2 seconds with the edit made just before in the world.
#[test]
fn overlay_screenshots_and_quitting() {
    if skip() {
        return;
    }
    let mut s = Session::start("first");
    let world = s.dir.join("world");
    let dump = s.dir.join("state.jsonl");
    let args = ["--world", world.to_str().unwrap(), "--seed", "42", "--render-distance", "3", "--size", "640x400"];
    let (mut game, window) = s.play(&[&args[..], &["--exit-after", "120"]].concat(), &[], &dump);
    assert_eq!(last_state(&dump).unwrap()["overlay"], false, "the debug overlay shows at start");

    s.key("F2");
    let first = s.wait_for(&dump, "F2 wrote no screenshot", |v| v["screenshot"].is_string());
    let plain = PathBuf::from(first["screenshot"].as_str().unwrap());
    assert!(plain.starts_with(s.dir.join("data")), "not in the data directory: {}", plain.display());
    s.key("F3");
    s.wait_for(&dump, "F3 did not show the overlay", |v| v["overlay"] == true);
    s.key("F2");
    let second = s.wait_for(&dump, "the second F2 wrote no screenshot", |v| {
        v["screenshot"].as_str().is_some_and(|p| Path::new(p) != plain)
    });
    let with_overlay = PathBuf::from(second["screenshot"].as_str().unwrap());
    let (a, b) = (png_rgba(&plain), png_rgba(&with_overlay));
    assert_eq!((a.0, a.1), (640, 400), "the screenshot is not the window's size");
    let (bright, dimmed) = (corner_brightness(&a), corner_brightness(&b));
    eprintln!("top left corner: {bright:.1} without the overlay, {dimmed:.1} with it");
    assert!(dimmed < bright * 0.8, "the overlay does not show in the screenshot ({bright:.1} → {dimmed:.1})");

    // Break a block, then Save and quit from the menu at once.
    s.key("f");
    let broken = s.break_below(&dump);
    s.key("Escape");
    let at = s.widget_at(&dump, "quit");
    xdotool(&s.display, &["mousemove", "--window", &window, &format!("{:.0}", at.0), &format!("{:.0}", at.1)]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&s.display, &["click", "1"]);
    let took = exits_within(&mut game, Duration::from_secs(2), "Save and quit");
    eprintln!("Save and quit: the game exited {took:?} after the click");
    assert_eq!(block_at(&world, &broken), "air", "the block broken before Save and quit came back");

    // Again, ended by SIGTERM from the terminal.
    let dump2 = s.dir.join("state2.jsonl");
    let (mut game2, _window2) = s.play(&[&args[..], &["--exit-after", "120"]].concat(), &[], &dump2);
    // The signal follows the click closely, so the periodic save (once a
    // second) has mostly not run yet: the save on the way out keeps the edit.
    s.look(0, 900, 10);
    let target = s.wait_for(&dump2, "no block under the crosshair", |v| v["target"].is_array())["target"].clone();
    s.click("1");
    let _ = Command::new("kill").args(["-TERM", &game2.0.id().to_string()]).status();
    let took = exits_within(&mut game2, Duration::from_secs(2), "SIGTERM");
    eprintln!("SIGTERM: the game exited {took:?} after the signal");
    assert_eq!(block_at(&world, &target), "air", "the block broken just before SIGTERM came back");
    assert_eq!(block_at(&world, &broken), "air");
}

/// Visibility culling follows an edit at once. Over the sky at spawn: a
/// stone slab over a whole chunk, the player hovering on it, and a
/// glowstone floor two chunks below, which the slab hides (the walk never
/// gets past the slab's chunk, so the floor's chunk is not drawn). Breaking
/// the slab's block under the player opens a sight line: the next frames
/// show the glowstone through the hole, not the sky.
#[test]
fn breaking_into_a_sealed_space_shows_it_at_once() {
    if skip() {
        return;
    }
    let mut s = Session::start("culling");
    let world = s.dir.join("world");
    let bin = env!("CARGO_BIN_EXE_blockworld");
    let run = |args: &[&str]| {
        let o = Command::new(bin).args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    run(&["world", "new", world.to_str().unwrap(), "--seed", "42"]);
    let mut script = String::new();
    for x in 0..32 {
        for z in 0..32 {
            script.push_str(&format!("set {x} 255 {z} stone\n"));
        }
    }
    for x in 10..23 {
        for z in 10..23 {
            script.push_str(&format!("set {x} 192 {z} glowstone\n"));
        }
    }
    let script_path = s.dir.join("sealed.txt");
    std::fs::write(&script_path, script).unwrap();
    run(&["world", "edit", world.to_str().unwrap(), "--script", script_path.to_str().unwrap()]);
    let player =
        blockworld::save::world_file::SavedPlayer { pos: [16.5, 256.0, 16.5], yaw: 0.0, pitch: -89.0, flying: true };
    blockworld::save::world_file::WorldFile::open(&world).unwrap().save_player(&player).unwrap();

    let dump = s.dir.join("state.jsonl");
    let args = ["--world", world.to_str().unwrap(), "--render-distance", "3", "--size", "640x400", "--time", "0.5"];
    let (_game, _window) = s.play(&[&args[..], &["--exit-after", "90"]].concat(), &[], &dump);
    let centre = |path: &Path| {
        let (w, h, rgba) = png_rgba(path);
        let (mut r, mut b, mut n) = (0.0, 0.0, 0.0);
        for y in h / 2 - 6..h / 2 + 6 {
            for x in w / 2 - 6..w / 2 + 6 {
                let i = ((y * w + x) * 4) as usize;
                r += rgba[i] as f64;
                b += rgba[i + 2] as f64;
                n += 1.0;
            }
        }
        (r / n, b / n)
    };
    s.key("F2");
    let before = s.wait_for(&dump, "F2 wrote no screenshot", |v| v["screenshot"].is_string());
    let before = PathBuf::from(before["screenshot"].as_str().unwrap());
    let target = s.wait_for(&dump, "the slab is not under the crosshair", |v| v["target"].is_array())["target"].clone();
    assert_eq!(target, serde_json::json!([16, 255, 16]), "looking at the wrong block");
    s.click("1");
    s.wait_for(&dump, "the left click broke nothing", |v| v["last_break"].is_array());
    s.key("F2");
    let after = s.wait_for(&dump, "the second F2 wrote no screenshot", |v| {
        v["screenshot"].as_str().is_some_and(|p| Path::new(p) != before)
    });
    let after = PathBuf::from(after["screenshot"].as_str().unwrap());
    let ((r0, b0), (r1, b1)) = (centre(&before), centre(&after));
    eprintln!("centre red/blue: {r0:.0}/{b0:.0} on the slab, {r1:.0}/{b1:.0} through the hole");
    assert!((r0 - b0).abs() < 30.0, "before the break the centre is grey stone: {r0:.0}/{b0:.0}");
    assert!(r1 > b1 + 40.0, "through the hole the glowstone shows, not the sky: {r1:.0}/{b1:.0}");
}

/// The left channel of a 16-bit WAV, as floats, and its sample rate.
fn read_wav(path: &Path) -> (Vec<f32>, u32) {
    let mut r = hound::WavReader::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let spec = r.spec();
    let ch = spec.channels as usize;
    let all: Vec<i16> = r.samples::<i16>().map(|s| s.expect("a sample")).collect();
    (all.iter().step_by(ch).map(|&v| v as f32 / i16::MAX as f32).collect(), spec.sample_rate)
}

/// Sound onsets (seconds): 5 ms frames whose mean level jumps above both
/// an absolute floor and 4× the level of the 50 ms before, at most one per
/// 150 ms.
fn onsets(x: &[f32], rate: u32) -> Vec<f64> {
    let frame = rate as usize / 200;
    let level: Vec<f32> = x.chunks(frame).map(|c| c.iter().map(|v| v.abs()).sum::<f32>() / c.len() as f32).collect();
    let mut out: Vec<f64> = Vec::new();
    for i in 10..level.len() {
        let before = level[i - 10..i].iter().sum::<f32>() / 10.0;
        let t = i as f64 * 0.005;
        if level[i] > 0.004 && level[i] > 4.0 * before && out.last().map(|&o| t - o > 0.15).unwrap_or(true) {
            out.push(t);
        }
    }
    out
}

/// Spectral centroid (Hz) of the 2048 samples from `t`, by a direct DFT.
fn centroid(x: &[f32], rate: u32, t: f64) -> f64 {
    let n = 2048;
    let start = (t * rate as f64) as usize;
    let w: Vec<f64> = (0..n)
        .map(|i| {
            let hann = 0.5 - 0.5 * (std::f64::consts::TAU * i as f64 / n as f64).cos();
            x.get(start + i).copied().unwrap_or(0.0) as f64 * hann
        })
        .collect();
    let (mut num, mut den) = (0.0, 0.0);
    for k in 1..n / 2 {
        let (mut re, mut im) = (0.0, 0.0);
        for (i, v) in w.iter().enumerate() {
            let a = std::f64::consts::TAU * (k * i) as f64 / n as f64;
            re += v * a.cos();
            im -= v * a.sin();
        }
        let mag = (re * re + im * im).sqrt();
        num += mag * k as f64 * rate as f64 / n as f64;
        den += mag;
    }
    num / den.max(1e-12)
}

/// The cells of a course five blocks wide ahead of `feet` along the
/// heading, from 3 m behind to `length` m ahead, each with `part(t)` of the
/// first half-metre step that covers it (t: metres along the heading).
fn course<T: Copy>(feet: [f64; 3], yaw_degrees: f64, length: f64, part: impl Fn(f64) -> T) -> BTreeMap<(i64, i64), T> {
    let y = yaw_degrees.to_radians();
    let (f, r) = ((y.sin(), y.cos()), (-y.cos(), y.sin()));
    let mut cells = BTreeMap::new();
    let mut t = -3.0;
    while t <= length {
        let mut s = -2.5;
        while s <= 2.5 {
            let x = (feet[0] + f.0 * t + r.0 * s).floor() as i64;
            let z = (feet[2] + f.1 * t + r.1 * s).floor() as i64;
            cells.entry((x, z)).or_insert(part(t));
            s += 0.5;
        }
        t += 0.5;
    }
    cells
}

/// A trench of stone, then sand, ahead of the spawn point along the
/// player's first heading, cleared to three blocks high; returns the
/// edit script and where the stone ends (metres along the heading).
fn stone_then_sand(feet: [f64; 3], yaw_degrees: f64) -> (String, f64) {
    let stone_until = 14.0;
    let ground = feet[1].floor() as i64;
    let cells = course(feet, yaw_degrees, 45.0, |t| if t < stone_until { "stone" } else { "sand" });
    let mut script = String::new();
    for ((x, z), floor) in cells {
        script += &format!("set {x} {} {z} stone\nset {x} {} {z} {floor}\n", ground - 2, ground - 1);
        for y in ground..ground + 3 {
            script += &format!("set {x} {y} {z} air\n");
        }
    }
    (script, stone_until)
}

struct Walk {
    /// (onset time, the step's group from the cue log) for each footstep cue.
    steps: Vec<(f64, String)>,
    onsets: Vec<f64>,
    walked: f64,
    walk: (f64, f64),
    still: (f64, f64),
    edit_s: Option<f64>,
    samples: Vec<f32>,
    rate: u32,
}

/// Plays the trench world with `--record-audio`: walks onto the sand,
/// stands 2.5 s, looks down and breaks the floor.
fn record_a_walk(s: &mut Session, env: &[(&str, &str)], tag: &str) -> Walk {
    let world = s.dir.join(format!("world-{tag}"));
    let wav = s.dir.join(format!("{tag}.wav"));
    let dump = s.dir.join(format!("{tag}.jsonl"));
    let cfg = s.dir.join("config").join("blockworld");
    std::fs::create_dir_all(&cfg).unwrap();
    // Ambience off: the test counts the feet's onsets.
    std::fs::write(cfg.join("settings.ron"), "(ambience_volume: 0.0)").unwrap();
    let bw = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_blockworld")).args(args).output().expect("blockworld runs");
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    bw(&["world", "new", world.to_str().unwrap(), "--seed", "42"]);
    let preset = blockworld::worldgen::preset::Preset::load("classic").expect("classic");
    let feet = blockworld::game::spawn::spawn_point(&blockworld::worldgen::WorldGen::new(preset, 42));
    let (script, stone_until) = stone_then_sand(feet.to_array(), 35.0);
    let script_path = s.dir.join(format!("{tag}.edits"));
    std::fs::write(&script_path, script).unwrap();
    bw(&["world", "edit", world.to_str().unwrap(), "--script", script_path.to_str().unwrap()]);
    let args = [
        "--world",
        world.to_str().unwrap(),
        "--render-distance",
        "3",
        "--size",
        "800x500",
        "--exit-after",
        "60",
        "--backend",
        "cpu",
        "--record-audio",
        wav.to_str().unwrap(),
    ];
    let (game, _window) = s.play(&args, env, &dump);
    let at = |k: &str| last_state(&dump).unwrap()[k].clone();
    // The dump writes a line a second: the line before a key goes down was
    // written before it, the first one after it goes up after it.
    let next = || {
        let lines = || std::fs::read_to_string(&dump).map(|t| t.lines().count()).unwrap_or(0);
        let n = lines();
        let deadline = Instant::now() + Duration::from_secs(10);
        while lines() == n && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        last_state(&dump).unwrap()
    };
    let t0 = at("recording_s").as_f64().expect("recording");
    let p0 = at("pos");
    // W is held until the player is well onto the sand (a slow software
    // renderer walks fewer ticks a second), 20 s at most.
    xdotool(&s.display, &["keydown", "w"]);
    let (x0, z0) = (p0[0].as_f64().unwrap(), p0[2].as_f64().unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let p = at("pos");
        let d = ((p[0].as_f64().unwrap() - x0).powi(2) + (p[2].as_f64().unwrap() - z0).powi(2)).sqrt();
        if d > stone_until + 8.0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    xdotool(&s.display, &["keyup", "w"]);
    let after_walk = next();
    let t1 = after_walk["recording_s"].as_f64().unwrap();
    let p1 = after_walk["pos"].clone();
    std::thread::sleep(Duration::from_millis(2500));
    let t2 = at("recording_s").as_f64().unwrap();
    s.look(0, 500, 10);
    s.click("1");
    std::thread::sleep(Duration::from_millis(2500));
    let edit_s = at("last_edit_s").as_f64();
    drop(game);
    let walked = ((p1[0].as_f64().unwrap() - p0[0].as_f64().unwrap()).powi(2)
        + (p1[2].as_f64().unwrap() - p0[2].as_f64().unwrap()).powi(2))
    .sqrt();
    assert!(walked > stone_until + 3.0, "W walked only {walked:.1} m, not onto the sand");
    let (samples, rate) = read_wav(&wav);
    let found = onsets(&samples, rate);
    let cues = std::fs::read_to_string(format!("{}.cues.tsv", wav.display())).expect("the cue log");
    let steps = cues
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let group = f.get(2)?.strip_prefix("step ")?;
            Some((f.get(1)?.parse().ok()?, group.to_string()))
        })
        .collect();
    Walk { steps, onsets: found, walked, walk: (t0, t1), still: (t1 + 0.4, t2), edit_s, samples, rate }
}

/// The footstep checks: onsets at the walking cadence while walking, none
/// while standing.
fn check_footsteps(w: &Walk) -> Result<(), String> {
    let within = |(a, b): (f64, f64)| w.onsets.iter().filter(|&&t| t >= a && t < b).count();
    let walking = within(w.walk);
    let strides = w.walked / blockworld::audio::steps::STRIDE;
    if (walking as f64) < strides * 0.7 || walking as f64 > strides + 2.0 {
        return Err(format!("{walking} onsets while walking {:.1} m ({strides:.1} strides)", w.walked));
    }
    let still = within(w.still);
    if still > 0 {
        return Err(format!("{still} onsets while standing still"));
    }
    Ok(())
}

#[test]
fn footsteps_and_a_break_are_heard_in_the_recorded_mix() {
    if skip() {
        return;
    }
    let mut s = Session::start("sound");
    let w = record_a_walk(&mut s, &[], "walk");
    if let Err(why) = check_footsteps(&w) {
        panic!("{why}; onsets {:?}; steps {:?}; game log:\n{}", w.onsets, w.steps, s.log("game.log"));
    }
    // The two surfaces differ in spectrum: sand's grains are brighter.
    let mean = |g: &str| {
        let c: Vec<f64> =
            w.steps.iter().filter(|(_, sg)| sg == g).map(|(t, _)| centroid(&w.samples, w.rate, *t)).collect();
        assert!(c.len() >= 2, "fewer than two {g} steps: {:?}", w.steps);
        c.iter().sum::<f64>() / c.len() as f64
    };
    let (stone, sand) = (mean("stone"), mean("sand"));
    eprintln!("spectral centroid: stone steps {stone:.0} Hz, sand steps {sand:.0} Hz");
    assert!(sand > 1.3 * stone, "stone {stone:.0} Hz and sand {sand:.0} Hz do not differ enough");
    // Breaking the floor: an onset within 50 ms of the break.
    let edit = w.edit_s.expect("the click broke a block");
    // The recorder starts a sound within a 5.3 ms block of its event, and
    // onsets are found in 5 ms frames.
    let heard = w.onsets.iter().find(|&&t| t >= edit - 0.012).copied();
    let lag = heard.map(|t| t - edit).unwrap_or(f64::INFINITY);
    eprintln!("break at {edit:.3} s in the recording, first onset {lag:.3} s after");
    assert!(lag < 0.05, "no onset within 50 ms of the break at {edit:.3} s: {:?}", w.onsets);

    // Negative control: without the footstep trigger the same walk fails
    // the footstep check.
    let quiet = record_a_walk(&mut s, &[("BLOCKWORLD_TEST_NO_FOOTSTEPS", "1")], "quiet");
    assert!(check_footsteps(&quiet).is_err(), "the check passed with footsteps off: {:?}", quiet.onsets);
}

/// Ahead of the spawn point along the player's first heading, cleared
/// high above: flat stone, then a one-block step up (from 6 m), then a
/// lake of still water six deep whose surface is level with the step
/// (from 12 m), then a bank a block above the water (from 20 m). Returns
/// the edit script.
fn ledge_and_lake(feet: [f64; 3], yaw_degrees: f64) -> String {
    let ground = feet[1].floor() as i64;
    let cells = course(feet, yaw_degrees, 40.0, |t| [6.0, 12.0, 20.0].iter().filter(|&&edge| t >= edge).count());
    let mut script = String::new();
    for ((x, z), part) in cells {
        // (the top of the floor, how deep the water over it is)
        let (top, water) = match part {
            0 => (ground, 0),
            1 => (ground + 1, 0),
            2 => (ground - 5, 6),
            _ => (ground + 2, 0),
        };
        for y in ground - 7..ground + 7 {
            let b = if y < top {
                "stone"
            } else if y < top + water {
                "water"
            } else {
                "air"
            };
            script += &format!("set {x} {y} {z} {b}\n");
        }
    }
    script
}

#[test]
fn steps_up_a_ledge_then_swims_up_out_of_a_lake() {
    if skip() {
        return;
    }
    let mut s = Session::start("swim");
    let world = s.dir.join("world-swim");
    let dump = s.dir.join("swim.jsonl");
    let bw = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_blockworld")).args(args).output().expect("blockworld runs");
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    bw(&["world", "new", world.to_str().unwrap(), "--seed", "42"]);
    let preset = blockworld::worldgen::preset::Preset::load("classic").expect("classic");
    let feet = blockworld::game::spawn::spawn_point(&blockworld::worldgen::WorldGen::new(preset, 42)).to_array();
    let yaw: f64 = 35.0;
    let script = s.dir.join("swim.edits");
    std::fs::write(&script, ledge_and_lake(feet, yaw)).unwrap();
    bw(&["world", "edit", world.to_str().unwrap(), "--script", script.to_str().unwrap()]);
    let args = ["--world", world.to_str().unwrap(), "--render-distance", "3", "--size", "800x500"];
    let args = [&args[..], &["--exit-after", "90", "--backend", "cpu", "--no-audio"]].concat();
    let (game, _window) = s.play(&args, &[], &dump);
    let state = || last_state(&dump).expect("a state line");
    let ground = feet[1].floor();
    let along = |st: &serde_json::Value| {
        let p = &st["pos"];
        let (y, f) = (yaw.to_radians(), |i: usize| p[i].as_f64().unwrap() - feet[i]);
        f(0) * y.sin() + f(2) * y.cos()
    };
    let height = |st: &serde_json::Value| st["pos"][1].as_f64().unwrap() - ground;
    let wait_for = |what: &str, seconds: u64, done: &dyn Fn(&serde_json::Value) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        loop {
            let st = state();
            if done(&st) {
                return st;
            }
            assert!(Instant::now() < deadline, "{what} within {seconds} s: last state {st}\n{}", s.log("game.log"));
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    assert_eq!(state()["mode"], "walk");
    // W alone walks onto the step: the feet rise a block with no jump.
    xdotool(&s.display, &["keydown", "w"]);
    let stepped = wait_for("stepping up the ledge", 20, &|st| along(st) > 8.0);
    assert!((height(&stepped) - 1.0).abs() < 0.05, "on the step the feet are {:.2} up", height(&stepped));
    // On into the lake, where the player swims.
    wait_for("wading into the lake", 20, &|st| st["fluid"] == "water");
    xdotool(&s.display, &["keyup", "w"]);
    std::thread::sleep(Duration::from_millis(1200));
    let (a, ta) = (height(&state()), Instant::now());
    std::thread::sleep(Duration::from_millis(1500));
    let (b, tb) = (height(&state()), Instant::now());
    let sink = (a - b) / (tb - ta).as_secs_f64();
    assert!(sink > 0.3, "without Space the swimmer should sink: {a:.2} m, then {b:.2} m");
    assert_eq!(state()["fluid"], "water");
    // Space and W: up to the surface, across, and out onto the bank.
    xdotool(&s.display, &["keydown", "space", "keydown", "w"]);
    let out = wait_for("climbing out onto the bank", 30, &|st| {
        along(st) > 21.0 && st["fluid"].is_null() && height(st) > 1.95
    });
    xdotool(&s.display, &["keyup", "w", "keyup", "space"]);
    std::thread::sleep(Duration::from_millis(1500));
    let landed = wait_for("standing on the bank", 5, &|st| (height(st) - 2.0).abs() < 0.05);
    assert!(landed["fluid"].is_null() && along(&landed) > 20.5, "{landed}");
    eprintln!("sank at {sink:.2} m/s; out on the bank at {:.1} m along", along(&out));
    // A screenshot of the bank and the lake behind, to look at.
    s.look(1800, 80, 30);
    std::thread::sleep(Duration::from_millis(800));
    s.key("F2");
    std::thread::sleep(Duration::from_millis(2000));
    drop(game);
    let shots = s.dir.join("data").join("blockworld").join("screenshots");
    let shot = std::fs::read_dir(&shots).ok().and_then(|d| d.flatten().map(|e| e.path()).max());
    let shot = shot.unwrap_or_else(|| panic!("no F2 screenshot in {}", shots.display()));
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("swim-bank.png");
    std::fs::copy(&shot, &keep).expect("the screenshot copies");
    eprintln!("screenshot: {}", keep.display());
}
