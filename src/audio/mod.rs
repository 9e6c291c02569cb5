//! Sound: footsteps, block sounds, ambience and the interface, mixed by
//! kira on a thread of its own. The game thread only queues messages
//! ([`Audio::play`], [`Audio::scene`]); it never waits on the sound thread.
//!
//! * `bank`: `assets/sounds.ron` decoded and synthesised.
//! * `synth`: the sounds made in code.
//! * `ambience`: which ambience layers sound where (pure rules).
//! * `steps`: when a footstep sounds.
//! * `mixer`: the kira graph (tracks, filter, spatial sources).
//! * `capture`: a backend without a device, for `--record-audio` and tests.

pub mod ambience;
pub mod bank;
pub mod capture;
pub mod mixer;
pub mod steps;
pub mod synth;

pub use mixer::{Action, Scene, Sound, Volumes};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where the mix goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// The default sound device (none: the game says so once and plays on).
    Device,
    /// A WAV file at the wall clock's pace, with a cue log beside it
    /// (`FILE.cues.tsv`); no device is opened.
    Record(PathBuf),
    /// The mix rendered at the wall clock's pace and thrown away: the
    /// whole sound thread's work without a device or a file (benchmarks).
    Discard,
    /// No sound at all (`--no-audio`).
    Off,
    /// No device can play, for this reason (said once, as for a device
    /// that fails to open).
    Unavailable(String),
}

enum Msg {
    Play(Sound, Instant),
    Scene(Scene),
    Volumes(Volumes),
    Focus(bool),
    Stop,
}

/// What the sound thread reports back, read by the state dump.
#[derive(Default)]
pub struct AudioState {
    pub played: AtomicU64,
    /// When the recording's first sample was made.
    started: Mutex<Option<Instant>>,
    notice: Mutex<Option<String>>,
    /// The sound thread's CPU time so far, ns, where it renders the mix
    /// itself (recording and discarding; a device renders on its own
    /// callback thread). `u64::MAX`: no per-thread clock.
    cpu_ns: AtomicU64,
}

impl AudioState {
    /// Seconds into the recording at `t` (None when not recording, or
    /// before the recording started).
    pub fn recording_time(&self, t: Instant) -> Option<f64> {
        let start = (*self.started.lock().ok()?)?;
        Some(t.checked_duration_since(start).map(|d| d.as_secs_f64()).unwrap_or(0.0))
    }

    /// The CPU time the sound thread has spent rendering the mix so far
    /// (None: it renders nothing itself, or the platform has no clock).
    pub fn cpu_time(&self) -> Option<Duration> {
        match self.cpu_ns.load(Ordering::Relaxed) {
            0 | u64::MAX => None,
            ns => Some(Duration::from_nanos(ns)),
        }
    }

    /// Whether there is a line for the player waiting (the sound failed,
    /// or there is no device).
    pub fn has_notice(&self) -> bool {
        self.notice.lock().map(|n| n.is_some()).unwrap_or(true)
    }

    fn note_cpu_time(&self) {
        let ns = crate::backend::thread_cpu_time().map_or(u64::MAX, |d| d.as_nanos() as u64);
        self.cpu_ns.store(ns, Ordering::Relaxed);
    }
}

/// The game's side of the sound thread.
pub struct Audio {
    tx: Option<Sender<Msg>>,
    thread: Option<JoinHandle<()>>,
    pub state: Arc<AudioState>,
    pub output: Output,
}

/// Messages waiting beyond this are dropped (a stalled sound thread never
/// holds up the game).
const QUEUE: usize = 1024;

impl Audio {
    /// Starts the sound thread; returns at once (decoding and synthesis
    /// happen on that thread).
    pub fn start(output: Output, volumes: Volumes) -> Audio {
        let state = Arc::new(AudioState::default());
        if let Output::Unavailable(why) = &output {
            if let Ok(mut n) = state.notice.lock() {
                *n = Some(format!("no sound device ({why}); playing on without sound"));
            }
        }
        if matches!(output, Output::Off | Output::Unavailable(_)) {
            return Audio { tx: None, thread: None, state, output };
        }
        let (tx, rx) = crossbeam_channel::bounded(QUEUE);
        let (out, st) = (output.clone(), state.clone());
        let thread = std::thread::Builder::new().name("sound".into()).spawn(move || {
            if let Err(why) = run(out, volumes, rx, &st) {
                if let Ok(mut n) = st.notice.lock() {
                    *n = Some(why);
                }
            }
        });
        match thread {
            Ok(t) => Audio { tx: Some(tx), thread: Some(t), state, output },
            Err(e) => {
                if let Ok(mut n) = state.notice.lock() {
                    *n = Some(format!("no sound: cannot start the sound thread ({e})"));
                }
                Audio { tx: None, thread: None, state, output }
            }
        }
    }

    fn send(&self, m: Msg) {
        if let Some(tx) = &self.tx {
            match tx.try_send(m) {
                Ok(()) | Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {}
            }
        }
    }

    pub fn play(&self, s: Sound) {
        self.send(Msg::Play(s, Instant::now()));
    }

    pub fn scene(&self, s: Scene) {
        self.send(Msg::Scene(s));
    }

    pub fn set_volumes(&self, v: Volumes) {
        self.send(Msg::Volumes(v));
    }

    pub fn set_focused(&self, f: bool) {
        self.send(Msg::Focus(f));
    }

    /// A line for the player, once (no device, a bad sounds file).
    pub fn take_notice(&self) -> Option<String> {
        self.state.notice.lock().ok()?.take()
    }
}

impl Drop for Audio {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            // Blocking here is fine: the game is ending, and the recorder
            // must finish its file.
            let _ = tx.send(Msg::Stop);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Applies one message; false on Stop.
fn apply<B: kira::backend::Backend>(
    m: Msg,
    mixer: &mut mixer::Mixer<B>,
    on_play: &mut dyn FnMut(&Sound, Instant),
) -> bool
where
    B::Error: std::fmt::Display,
{
    match m {
        Msg::Play(s, at) => {
            // A sound that cannot play (the mixer is full) is skipped.
            if mixer.play(&s).is_ok() {
                on_play(&s, at);
            }
        }
        Msg::Scene(s) => mixer.set_scene(&s),
        Msg::Volumes(v) => mixer.set_volumes(v),
        Msg::Focus(f) => mixer.set_focused(f),
        Msg::Stop => return false,
    }
    true
}

fn run(output: Output, volumes: Volumes, rx: Receiver<Msg>, state: &AudioState) -> Result<(), String> {
    let bank = bank::Bank::shipped().map_err(|e| format!("no sound: {e}"))?;
    match output {
        Output::Off | Output::Unavailable(_) => Ok(()),
        Output::Device => {
            let mut mixer = mixer::Mixer::<kira::DefaultBackend>::new(Default::default(), bank, volumes)
                .map_err(|e| format!("no sound device ({e}); playing on without sound"))?;
            let mut count = |_: &Sound, _: Instant| {
                state.played.fetch_add(1, Ordering::Relaxed);
            };
            while let Ok(m) = rx.recv() {
                if !apply(m, &mut mixer, &mut count) {
                    break;
                }
            }
            Ok(())
        }
        Output::Record(path) => record(Some(&path), volumes, bank, &rx, state),
        Output::Discard => record(None, volumes, bank, &rx, state),
    }
}

/// Where the recorder writes: the WAV and its cue log, or nowhere.
struct Files {
    wav: hound::WavWriter<std::io::BufWriter<std::fs::File>>,
    cues: std::io::BufWriter<std::fs::File>,
}

impl Files {
    fn create(path: &std::path::Path) -> Result<Files, String> {
        let fail = |e: &dyn std::fmt::Display| format!("cannot record the sound to {}: {e}", path.display());
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: capture::RATE,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let wav = hound::WavWriter::create(path, spec).map_err(|e| fail(&e))?;
        let cue_path = {
            let mut p = path.as_os_str().to_owned();
            p.push(".cues.tsv");
            PathBuf::from(p)
        };
        let mut cues = std::io::BufWriter::new(std::fs::File::create(&cue_path).map_err(|e| fail(&e))?);
        writeln!(cues, "event_s\tstart_s\tsound").map_err(|e| fail(&e))?;
        Ok(Files { wav, cues })
    }
}

/// Renders the mix at the wall clock's pace into `path` (16-bit stereo
/// WAV), and logs each sound's event and start time to `path.cues.tsv`;
/// without a path the mix is rendered all the same and dropped.
fn record(
    path: Option<&std::path::Path>,
    volumes: Volumes,
    bank: bank::Bank,
    rx: &Receiver<Msg>,
    state: &AudioState,
) -> Result<(), String> {
    let shown = path.map_or_else(|| "nowhere".to_string(), |p| p.display().to_string());
    let fail = |e: &dyn std::fmt::Display| format!("cannot record the sound to {shown}: {e}");
    let tap = capture::Tap::default();
    let mut mixer = mixer::Mixer::<capture::CaptureBackend>::new(tap.clone(), bank, volumes).map_err(|e| fail(&e))?;
    let mut files = path.map(Files::create).transpose()?;
    let start = Instant::now();
    if let Ok(mut s) = state.started.lock() {
        *s = Some(start);
    }
    let mut rendered: u64 = 0;
    let mut last_flush = start;
    loop {
        let mut go_on = true;
        let mut log_err = None;
        // Sleep until the next block is due: a message wakes the thread at
        // once, and a sound is placed by its own time, not by the wake.
        let next = start + Duration::from_secs_f64((rendered + BLOCK as u64) as f64 / capture::RATE as f64);
        let wait = next.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        let first = match rx.recv_timeout(wait) {
            Ok(m) => Some(m),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Msg::Stop),
        };
        for m in first.into_iter().chain(rx.try_iter()) {
            // The mix is first rendered up to the message's own time, so a
            // sound starts in the recording within a block of its event.
            if let Msg::Play(_, at) = &m {
                let due = (at.saturating_duration_since(start).as_secs_f64() * capture::RATE as f64) as u64;
                render_until(&tap, files.as_mut(), &mut rendered, due).map_err(|e| fail(&e))?;
            }
            let now_s = rendered as f64 / capture::RATE as f64;
            let mut log = |s: &Sound, at: Instant| {
                state.played.fetch_add(1, Ordering::Relaxed);
                let event_s = at.checked_duration_since(start).map(|d| d.as_secs_f64()).unwrap_or(0.0);
                if let Some(f) = files.as_mut() {
                    if let Err(e) = writeln!(f.cues, "{event_s:.4}\t{now_s:.4}\t{}", describe(s)) {
                        log_err = Some(e);
                    }
                }
            };
            if !apply(m, &mut mixer, &mut log) {
                go_on = false;
                break;
            }
        }
        if let Some(e) = log_err {
            return Err(fail(&e));
        }
        let due = (start.elapsed().as_secs_f64() * capture::RATE as f64) as u64;
        render_until(&tap, files.as_mut(), &mut rendered, due).map_err(|e| fail(&e))?;
        state.note_cpu_time();
        if let Some(f) = files.as_mut().filter(|_| last_flush.elapsed() > Duration::from_secs(1)) {
            // Keeps the header current, so a killed game leaves a readable file.
            f.wav.flush().map_err(|e| fail(&e))?;
            f.cues.flush().map_err(|e| fail(&e))?;
            last_flush = Instant::now();
        }
        if !go_on {
            break;
        }
    }
    match files {
        Some(mut f) => {
            f.cues.flush().map_err(|e| fail(&e))?;
            f.wav.finalize().map_err(|e| fail(&e))
        }
        None => Ok(()),
    }
}

/// Frames per block the recorder renders (5.3 ms at 48 kHz).
const BLOCK: usize = 256;

/// Renders whole blocks of the mix up to frame `due`, into the file if
/// there is one.
fn render_until(
    tap: &capture::Tap,
    files: Option<&mut Files>,
    rendered: &mut u64,
    due: u64,
) -> Result<(), hound::Error> {
    let mut wav = files.map(|f| &mut f.wav);
    while *rendered + BLOCK as u64 <= due {
        let block = tap.render(BLOCK);
        if let Some(w) = wav.as_mut() {
            let mut out = w.get_i16_writer(block.len() as u32);
            for v in block {
                out.write_sample((v.clamp(-1.0, 1.0) * i16::MAX as f32) as i16);
            }
            out.flush()?;
        }
        *rendered += BLOCK as u64;
    }
    Ok(())
}

/// A sound in the cue log: `step stone`, `break glass`, `click`.
pub fn describe(s: &Sound) -> String {
    match s {
        Sound::Block { group, action, .. } => {
            let a = match action {
                Action::Step => "step",
                Action::Dig => "dig",
                Action::Break => "break",
                Action::Place => "place",
            };
            format!("{a} {group}")
        }
        Sound::Click => "click".into(),
        Sound::Shutter => "shutter".into(),
    }
}
