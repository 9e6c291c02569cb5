//! The generation service: one nearest-first queue between the game and
//! the engines, with one worker per lane (the CPU pool, a device).
//!
//! The game sends requests and polls results with `try_recv`; it never
//! waits on the CPU pool or the device. Each worker takes its next batch
//! from the shared queue when it finishes the last, sized and placed by
//! [`super::balance`]: in hybrid mode the two lanes share the queue in
//! proportion to their measured throughput (α is automatic), and a device
//! only takes chunks the CPU would not reach sooner. A cancellation or a
//! change of lanes applies from each lane's next batch. Which lane made a
//! chunk never changes its blocks: every engine gives the same bits.

use super::balance::{self, Meter};
use super::{ChunkBackend, Engine};
use crate::world::chunk::Chunk;
use crate::world::coords::ChunkPos;
use crossbeam_channel::{Receiver, Sender};
use rayon::prelude::*;
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub enum Command {
    /// Generate these chunks (duplicates of pending requests are ignored).
    Generate(Vec<ChunkPos>),
    /// Drop pending requests farther than `radius` chunks (Chebyshev) from
    /// `center`, and order the rest nearest to it first.
    Retain { center: ChunkPos, radius: i32 },
    /// The engines of the two lanes from their next batch on; None idles a
    /// lane. Both set is hybrid generation.
    SetLanes { cpu: Option<Arc<dyn ChunkBackend>>, device: Option<Arc<dyn ChunkBackend>> },
    /// Fixes the device's share of the chunks at α, as the UFMG paper set it by
    /// hand (None: automatic, by measured throughput). With a fixed share
    /// both lanes take from the front, and a lane ahead of its share waits
    /// for the other.
    FixShare(Option<f64>),
}

// A chunk (with its 256 B of counts) crosses the channel by value: boxing
// it would cost an allocation for every chunk to shrink the rare `Cancelled`.
#[allow(clippy::large_enum_variant)]
pub enum Event {
    Generated {
        chunk: Chunk,
        backend: Engine,
        latency: Duration,
    },
    /// A request dropped by `Retain` before it ran.
    Cancelled(ChunkPos),
}

#[derive(Default)]
pub struct ServiceStats {
    pub queued: AtomicUsize,
    pub generating: AtomicUsize,
    pub generated: AtomicUsize,
    pub cancelled: AtomicUsize,
}

/// One lane as the overlay and the benchmarks see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LaneReport {
    /// The engine of the lane's last batch (or its engine, if none ran yet);
    /// None while the lane is idle.
    pub engine: Option<Engine>,
    /// Measured throughput in chunks per second of the lane's own time (see
    /// [`balance::lane_cost`]), smoothed.
    pub capacity: Option<f64>,
    /// Chunks the lane delivered per second of wall time, over the last
    /// two seconds.
    pub delivered_per_second: f64,
    /// Chunks the lane made since the service started.
    pub generated: u64,
}

/// How the lanes share the work.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Balance {
    pub cpu: LaneReport,
    pub device: LaneReport,
    /// The device's share of the combined throughput, when both lanes run
    /// and both are measured.
    pub alpha: Option<f64>,
}

impl Balance {
    /// The chunks a second the running lanes make together, once one of
    /// them is measured: what the streamer sizes its requests by.
    pub fn capacity(&self) -> Option<f64> {
        let lanes = [self.cpu, self.device];
        let measured = lanes.iter().filter(|l| l.engine.is_some()).filter_map(|l| l.capacity);
        measured.fold(None, |sum, c| Some(sum.unwrap_or(0.0) + c))
    }
}

pub struct GenerationService {
    shared: Arc<Shared>,
    events: Receiver<Event>,
    /// For cancellations, which are sent from the caller's thread.
    event_tx: Sender<Event>,
    workers: Vec<JoinHandle<()>>,
}

/// Chunks per batch before a lane is measured, and the largest batch by
/// default: enough to fill a GPU launch, small enough that a cancellation
/// or a backend switch takes effect quickly.
pub const DEFAULT_BATCH: usize = 64;

/// The largest batch the game lets the CPU lane take: a batch that goes
/// to the pool whole, so a cancellation waits for at most this many.
pub const MAX_BATCH: usize = 256;

/// The largest batch the game lets a device lane take: a fast device's
/// 40 ms (an H200 makes about 190 k chunks a second). A device pays a
/// fixed cost a batch (launches, round trips), so a CPU-sized batch
/// held it to a fraction of its throughput.
pub const MAX_DEVICE_BATCH: usize = 8192;

/// The largest batch of each lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchLimits {
    pub cpu: usize,
    pub device: usize,
}

impl BatchLimits {
    /// The game's: [`MAX_BATCH`] and [`MAX_DEVICE_BATCH`].
    pub const GAME: BatchLimits = BatchLimits { cpu: MAX_BATCH, device: MAX_DEVICE_BATCH };

    /// The same bound on both lanes.
    pub fn both(n: usize) -> BatchLimits {
        BatchLimits { cpu: n, device: n }
    }
}

impl From<usize> for BatchLimits {
    fn from(n: usize) -> BatchLimits {
        BatchLimits::both(n)
    }
}

const CPU: usize = 0;
const DEVICE: usize = 1;

/// How often an idle lane looks at the queue (see `GenerationService::send`).
const IDLE_POLL: Duration = Duration::from_millis(2);

/// The window of [`LaneReport::delivered_per_second`].
const DELIVERY_WINDOW: Duration = Duration::from_secs(2);

impl GenerationService {
    /// A service with `cpu` in the CPU lane and the device lane idle;
    /// each lane's batches are at most its `limits` chunks.
    pub fn spawn(cpu: Arc<dyn ChunkBackend>, limits: impl Into<BatchLimits>) -> Self {
        let (event_tx, events) = crossbeam_channel::unbounded();
        let shared = Arc::new(Shared {
            state: Mutex::new(State::new(cpu, limits.into())),
            wake: Condvar::new(),
            stats: Arc::new(ServiceStats::default()),
        });
        let workers = [(CPU, "chunk-generation-cpu"), (DEVICE, "chunk-generation-device")]
            .into_iter()
            .filter_map(|(lane, name)| {
                let (shared, events) = (shared.clone(), event_tx.clone());
                std::thread::Builder::new().name(name.into()).spawn(move || run_lane(&shared, lane, &events)).ok()
            })
            .collect();
        Self { shared, events, event_tx, workers }
    }

    /// Applies a command; false if the service has stopped.
    pub fn send(&self, c: Command) -> bool {
        let mut st = self.shared.lock();
        if st.closed {
            return false;
        }
        let cancelled = st.apply(c);
        self.shared.publish(&st);
        drop(st);
        // No wake-up from here: an idle lane finds the work within
        // IDLE_POLL. Waking it from the game thread handed the game
        // thread's core to the lane until the next scheduler tick (1–2.5 ms
        // a send, measured, with every core busy), in the middle of a frame.
        self.shared.stats.cancelled.fetch_add(cancelled.len(), Ordering::Relaxed);
        for p in cancelled {
            // The receiver lives in `self`: this cannot fail.
            let _ = self.event_tx.send(Event::Cancelled(p));
        }
        true
    }

    /// The next event, if one is ready. Never blocks.
    pub fn try_next(&self) -> Option<Event> {
        self.events.try_recv().ok()
    }

    /// Waits up to `timeout` for the next event (for tests and benchmarks).
    pub fn next_timeout(&self, timeout: Duration) -> Option<Event> {
        self.events.recv_timeout(timeout).ok()
    }

    pub fn stats(&self) -> &ServiceStats {
        &self.shared.stats
    }

    /// The same counters, to read from another thread (the far-terrain
    /// workers ask whether chunk requests are waiting).
    pub fn stats_handle(&self) -> Arc<ServiceStats> {
        self.shared.stats.clone()
    }

    /// How the lanes share the work now.
    pub fn balance(&self) -> Balance {
        self.shared.lock().balance(Instant::now())
    }
}

impl Drop for GenerationService {
    fn drop(&mut self) {
        // Workers end after their current batch.
        self.shared.lock().closed = true;
        self.shared.wake.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    stats: Arc<ServiceStats>,
}

/// A requested chunk and when it was asked for.
type Request = (ChunkPos, Instant);

struct State {
    queue: VecDeque<Request>,
    queued: HashSet<ChunkPos>,
    lanes: [Lane; 2],
    /// A fixed device share, and each lane's count of chunks when it was set.
    fixed: Option<(f64, [u64; 2])>,
    /// Each lane's largest batch.
    max_batch: [usize; 2],
    closed: bool,
}

struct Lane {
    backend: Option<Arc<dyn ChunkBackend>>,
    /// The engine that made the lane's last batch (a device that failed
    /// over hands its work to the CPU behind it).
    engine: Option<Engine>,
    meter: Meter,
    /// Batches delivered within the last [`DELIVERY_WINDOW`].
    recent: VecDeque<(Instant, usize)>,
    generated: u64,
    generating: usize,
}

impl Lane {
    fn new(backend: Option<Arc<dyn ChunkBackend>>) -> Lane {
        let engine = backend.as_ref().map(|b| b.kind());
        Lane { backend, engine, meter: Meter::default(), recent: VecDeque::new(), generated: 0, generating: 0 }
    }

    /// Chunks made or being made.
    fn taken(&self) -> u64 {
        self.generated + self.generating as u64
    }

    /// A new engine starts unmeasured; the same one keeps its figures.
    fn set(&mut self, backend: Option<Arc<dyn ChunkBackend>>) {
        let same = match (&self.backend, &backend) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        if !same {
            self.meter = Meter::default();
            self.engine = backend.as_ref().map(|b| b.kind());
        }
        self.backend = backend;
    }
}

/// Nearest first: rings outwards, and within a ring by distance.
fn nearness(p: ChunkPos, c: ChunkPos) -> (i64, i64) {
    let d = [p.x as i64 - c.x as i64, p.y as i64 - c.y as i64, p.z as i64 - c.z as i64];
    (d.iter().map(|v| v.abs()).max().unwrap_or(0), d.iter().map(|v| v * v).sum())
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn publish(&self, st: &State) {
        self.stats.queued.store(st.queue.len(), Ordering::Relaxed);
        self.stats.generating.store(st.lanes.iter().map(|l| l.generating).sum(), Ordering::Relaxed);
    }
}

impl State {
    fn new(cpu: Arc<dyn ChunkBackend>, limits: BatchLimits) -> State {
        State {
            queue: VecDeque::new(),
            queued: HashSet::new(),
            lanes: [Lane::new(Some(cpu)), Lane::new(None)],
            fixed: None,
            max_batch: [limits.cpu.max(1), limits.device.max(1)],
            closed: false,
        }
    }

    /// How the lanes share the work at `now`.
    fn balance(&mut self, now: Instant) -> Balance {
        let report = |lane: &mut Lane| {
            while lane.recent.front().is_some_and(|(t, _)| now.duration_since(*t) > DELIVERY_WINDOW) {
                lane.recent.pop_front();
            }
            let recent: usize = lane.recent.iter().map(|(_, n)| n).sum();
            LaneReport {
                engine: lane.backend.as_ref().and(lane.engine),
                capacity: lane.meter.rate(),
                delivered_per_second: recent as f64 / DELIVERY_WINDOW.as_secs_f64(),
                generated: lane.generated,
            }
        };
        let [cpu, device] = &mut self.lanes;
        let both = cpu.backend.is_some() && device.backend.is_some();
        let alpha = if both { balance::alpha(&device.meter, &cpu.meter) } else { None };
        Balance { cpu: report(cpu), device: report(device), alpha }
    }

    /// Applies a command; returns the requests it cancelled.
    fn apply(&mut self, c: Command) -> Vec<ChunkPos> {
        match c {
            Command::Generate(positions) => {
                let now = Instant::now();
                for p in positions {
                    if self.queued.insert(p) {
                        self.queue.push_back((p, now));
                    }
                }
                Vec::new()
            }
            Command::Retain { center, radius } => {
                let (keep, drop): (Vec<_>, Vec<_>) =
                    self.queue.drain(..).partition(|(p, _)| nearness(*p, center).0 <= radius as i64);
                let mut keep = keep;
                keep.sort_by_key(|(p, _)| nearness(*p, center));
                self.queue = keep.into();
                drop.into_iter()
                    .map(|(p, _)| {
                        self.queued.remove(&p);
                        p
                    })
                    .collect()
            }
            Command::SetLanes { cpu, device } => {
                self.lanes[CPU].set(cpu);
                self.lanes[DEVICE].set(device);
                Vec::new()
            }
            Command::FixShare(alpha) => {
                self.fixed = alpha.map(|a| (a.clamp(0.0, 1.0), self.lanes.each_ref().map(|l| l.taken())));
                Vec::new()
            }
        }
    }

    /// With a fixed share and both lanes running: whether `lane` has taken
    /// no more than its share of the chunks taken since the share was set.
    fn within_share(&self, lane: usize) -> bool {
        let Some((alpha, base)) = self.fixed else { return true };
        if self.lanes.iter().any(|l| l.backend.is_none()) {
            return true;
        }
        let taken = [0, 1].map(|i| self.lanes[i].taken().saturating_sub(base[i]) as f64);
        let share = if lane == DEVICE { alpha } else { 1.0 - alpha };
        taken[lane] <= share * (taken[0] + taken[1])
    }

    /// The lane's next batch at `now`, or None to wait.
    fn take(&mut self, lane: usize, now: Instant) -> Option<(Arc<dyn ChunkBackend>, Vec<Request>)> {
        let backend = self.lanes[lane].backend.clone()?;
        if !self.within_share(lane) {
            return None;
        }
        // A fixed share is kept batch by batch: a device's batch the size
        // of its own limit would overshoot its share by thousands.
        let max =
            if self.fixed.is_some() { self.max_batch.into_iter().min().unwrap_or(1) } else { self.max_batch[lane] };
        let queued = self.queue.len();
        let take = if lane == CPU || self.fixed.is_some() {
            balance::cpu_take(queued, &mut self.lanes[lane].meter, max, DEFAULT_BATCH)
        } else {
            let [cpu, device] = &mut self.lanes;
            let cpu = cpu.backend.is_some().then_some(&cpu.meter);
            balance::device_take(queued, &mut device.meter, cpu, (max, DEFAULT_BATCH), now)
        }?;
        let batch: Vec<_> = self.queue.drain(take.skip..take.skip + take.n).collect();
        self.lanes[lane].generating = batch.len();
        Some((backend, batch))
    }

    /// A batch that cost its lane `cost` came back at `now`.
    fn finished(&mut self, lane: usize, batch: &[Request], cost: Duration, engine: Engine, now: Instant) {
        for (p, _) in batch {
            self.queued.remove(p);
        }
        let l = &mut self.lanes[lane];
        l.meter.record(batch.len(), cost, now);
        l.recent.push_back((now, batch.len()));
        l.generated += batch.len() as u64;
        l.generating = 0;
        l.engine = Some(engine);
    }

    /// A failed batch goes back to the front, in its order.
    fn failed(&mut self, lane: usize, batch: Vec<Request>) {
        for item in batch.into_iter().rev() {
            self.queue.push_front(item);
        }
        self.lanes[lane].generating = 0;
    }
}

fn run_lane(shared: &Shared, lane: usize, events: &Sender<Event>) {
    loop {
        let (backend, batch) = {
            let mut st = shared.lock();
            loop {
                if st.closed {
                    return;
                }
                if let Some(job) = st.take(lane, Instant::now()) {
                    shared.publish(&st);
                    break job;
                }
                st = shared.wake.wait_timeout(st, IDLE_POLL).map_or_else(|e| e.into_inner().0, |(st, _)| st);
            }
        };
        let start = Instant::now();
        let positions: Vec<ChunkPos> = batch.iter().map(|(p, _)| *p).collect();
        match backend.generate(&positions) {
            Ok(mut chunks) => {
                let timings = backend.last_timings();
                // The lane's cost is taken before packing: packing belongs
                // to storage, not to generation, and runs on the pool, where
                // a device lane's chunks wait behind the CPU lane's batch
                // (up to a whole batch time), which would make a one-chunk
                // probe look tens of times slower than the device is.
                let cost = balance::lane_cost(start.elapsed(), timings.as_ref());
                chunks.par_iter_mut().for_each(Chunk::compact);
                let engine = backend.kind();
                {
                    let mut st = shared.lock();
                    st.finished(lane, &batch, cost, engine, Instant::now());
                    shared.publish(&st);
                }
                shared.wake.notify_all();
                shared.stats.generated.fetch_add(chunks.len(), Ordering::Relaxed);
                for (chunk, (_, asked)) in chunks.into_iter().zip(&batch) {
                    if events.send(Event::Generated { chunk, backend: engine, latency: asked.elapsed() }).is_err() {
                        return;
                    }
                }
            }
            Err(e) => {
                // Only a bare device backend can fail here (the game wraps
                // devices in FallbackBackend); keep the requests and retry.
                eprintln!("blockworld: generation failed, retrying: {e}");
                {
                    let mut st = shared.lock();
                    st.failed(lane, batch);
                    shared.publish(&st);
                }
                shared.wake.notify_all();
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::CpuBackend;
    use crate::worldgen::{Preset, WorldGen};

    fn backend() -> Arc<dyn ChunkBackend> {
        Arc::new(CpuBackend::parallel(Arc::new(WorldGen::new(Preset::classic(), 11))))
    }

    #[test]
    fn every_request_comes_back_once_and_identical() {
        let b = backend();
        let service = GenerationService::spawn(b.clone(), 8);
        let positions: Vec<ChunkPos> = (-3..3).flat_map(|x| (-2..1).map(move |y| ChunkPos::new(x, y, 1))).collect();
        service.send(Command::Generate(positions.clone()));
        service.send(Command::Generate(positions[..4].to_vec()));
        let mut got = std::collections::HashMap::new();
        while got.len() < positions.len() {
            match service.next_timeout(Duration::from_secs(20)) {
                Some(Event::Generated { chunk, .. }) => assert!(got.insert(chunk.pos, chunk).is_none(), "duplicate"),
                Some(Event::Cancelled(p)) => panic!("{p} cancelled"),
                None => panic!("timed out"),
            }
        }
        let direct = b.generate(&positions).unwrap();
        for c in direct {
            assert_eq!(got[&c.pos], c);
        }
    }

    /// A backend whose first batch waits until the test opens the gate,
    /// so the test knows the worker is inside that batch.
    struct Gated {
        inner: Arc<dyn ChunkBackend>,
        entered: crossbeam_channel::Sender<()>,
        gate: crossbeam_channel::Receiver<()>,
        first: std::sync::atomic::AtomicBool,
    }

    impl ChunkBackend for Gated {
        fn kind(&self) -> Engine {
            self.inner.kind()
        }
        fn generate(&self, positions: &[ChunkPos]) -> Result<Vec<Chunk>, crate::backend::BackendError> {
            if self.first.swap(false, Ordering::SeqCst) {
                let _ = self.entered.send(());
                let _ = self.gate.recv();
            }
            self.inner.generate(positions)
        }
        fn describe(&self) -> String {
            "gated".into()
        }
    }

    /// A cancellation applies to the very next batch: with batches of one,
    /// the chunk being generated when `Retain` arrives comes back and all
    /// 199 others are cancelled, whatever the timing.
    #[test]
    fn retain_cancels_far_requests_before_they_run() {
        let (entered, in_batch) = crossbeam_channel::bounded(1);
        let (open, gate) = crossbeam_channel::bounded(1);
        let gated = Gated { inner: backend(), entered, gate, first: true.into() };
        let service = GenerationService::spawn(Arc::new(gated), 1);
        let far: Vec<ChunkPos> = (0..200).map(|i| ChunkPos::new(1000 + i, 0, 0)).collect();
        service.send(Command::Generate(far));
        in_batch.recv_timeout(Duration::from_secs(20)).expect("the first batch starts");
        service.send(Command::Retain { center: ChunkPos::new(0, 0, 0), radius: 4 });
        open.send(()).expect("the worker waits at the gate");
        let (mut generated, mut cancelled) = (0, 0);
        while generated + cancelled < 200 {
            match service.next_timeout(Duration::from_secs(20)) {
                Some(Event::Generated { .. }) => generated += 1,
                Some(Event::Cancelled(_)) => cancelled += 1,
                None => panic!("timed out"),
            }
        }
        assert_eq!((generated, cancelled), (1, 199));
    }

    /// A lane's engine in the simulation below: what a batch of n chunks
    /// costs it. A CPU lane is busy `busy` a chunk. A device lane's own
    /// time (its CUDA events) is `busy` a chunk while the lane waits `wait`
    /// a chunk, as under the driver stand-in when the emulation outlasts
    /// the modelled kernel.
    /// `per_batch` is a fixed cost of every batch (a device's launches and
    /// round trips), busy and waited alike.
    #[derive(Clone, Copy)]
    struct Pace {
        kind: Engine,
        busy: Duration,
        wait: Duration,
        per_batch: Duration,
    }

    fn pace(kind: Engine, busy_ms: f64, wait_ms: f64) -> Pace {
        let ms = |v: f64| Duration::from_secs_f64(v / 1e3);
        Pace { kind, busy: ms(busy_ms), wait: ms(wait_ms), per_batch: Duration::ZERO }
    }

    impl Pace {
        /// How long the lane is away, and the cost it records.
        fn batch(&self, n: u32) -> (Duration, Duration) {
            if self.kind.is_device() {
                let (wait, busy) = (self.wait * n + self.per_batch, self.busy * n + self.per_batch);
                let timings = crate::backend::DeviceTimings {
                    wait_ms: wait.as_secs_f64() * 1e3,
                    device_ms: busy.as_secs_f64() * 1e3,
                    ..Default::default()
                };
                (wait, balance::lane_cost(wait, Some(&timings)))
            } else {
                (self.busy * n, balance::lane_cost(self.busy * n, None))
            }
        }
    }

    /// A lane's engine as the state sees it: only its kind is read.
    struct Kind(Engine);

    impl ChunkBackend for Kind {
        fn kind(&self) -> Engine {
            self.0
        }
        fn generate(&self, _: &[ChunkPos]) -> Result<Vec<Chunk>, crate::backend::BackendError> {
            unreachable!("the simulation never generates")
        }
        fn describe(&self) -> String {
            "simulated".into()
        }
    }

    /// The service's scheduling state driven on a simulated clock: each
    /// idle lane takes a batch as `run_lane` does, and hands it back when
    /// its pace says. Nothing sleeps and nothing reads the wall clock, so a
    /// loaded machine cannot change a result.
    struct Sim {
        st: State,
        epoch: Instant,
        now: Duration,
        paces: [Pace; 2],
        /// Per lane: when its batch comes back, the batch, and its cost.
        away: [Option<(Duration, Vec<Request>, Duration)>; 2],
        delivered: Vec<(ChunkPos, Engine)>,
    }

    impl Sim {
        fn new(cpu: Pace, device: Pace, limits: impl Into<BatchLimits>) -> Sim {
            let mut st = State::new(Arc::new(Kind(cpu.kind)), limits.into());
            st.apply(Command::SetLanes {
                cpu: Some(Arc::new(Kind(cpu.kind))),
                device: Some(Arc::new(Kind(device.kind))),
            });
            Sim {
                st,
                epoch: Instant::now(),
                now: Duration::ZERO,
                paces: [cpu, device],
                away: [None, None],
                delivered: Vec::new(),
            }
        }

        fn at(&self) -> Instant {
            self.epoch + self.now
        }

        /// Lanes take work, then the clock moves to the next return (or
        /// one idle poll); false once nothing is queued or away.
        fn step(&mut self) -> bool {
            for lane in [CPU, DEVICE] {
                if self.away[lane].is_none() {
                    if let Some((_, batch)) = self.st.take(lane, self.at()) {
                        let (away, cost) = self.paces[lane].batch(batch.len() as u32);
                        self.away[lane] = Some((self.now + away, batch, cost));
                    }
                }
            }
            let Some(next) = self.away.iter().flatten().map(|a| a.0).min() else {
                self.now += IDLE_POLL;
                return !self.st.queue.is_empty();
            };
            self.now = next;
            for lane in [CPU, DEVICE] {
                if self.away[lane].as_ref().is_some_and(|a| a.0 == next) {
                    if let Some((_, batch, cost)) = self.away[lane].take() {
                        let engine = self.paces[lane].kind;
                        self.st.finished(lane, &batch, cost, engine, self.at());
                        self.delivered.extend(batch.iter().map(|(p, _)| (*p, engine)));
                    }
                }
            }
            true
        }

        fn run_for(&mut self, span: Duration) {
            let end = self.now + span;
            while self.now < end && self.step() {}
        }

        fn run_until_delivered(&mut self, n: usize) {
            while self.delivered.len() < n {
                assert!(self.step(), "the queue ran dry after {} of {n}", self.delivered.len());
            }
        }
    }

    fn sky(n: i32) -> Vec<ChunkPos> {
        (0..n).map(|i| ChunkPos::new(0, 1000 + i, 0)).collect()
    }

    /// CPU 4 ms a chunk, device 1 ms by its events while it waits 6 ms:
    /// α settles at 1000 / (1000 + 250) = 0.8, the events' ratio, and stays.
    #[test]
    fn alpha_converges_to_the_event_timed_ratio_and_holds() {
        let mut sim = Sim::new(pace(Engine::Cpu, 4.0, 0.0), pace(Engine::Gpu, 1.0, 6.0), MAX_BATCH);
        sim.st.apply(Command::Generate(sky(100_000)));
        sim.run_for(Duration::from_millis(1500));
        let mut alphas = Vec::new();
        for _ in 0..10 {
            sim.run_for(Duration::from_millis(100));
            let at = sim.at();
            alphas.push(sim.st.balance(at).alpha.unwrap_or(f64::NAN));
        }
        let (lo, hi) = alphas.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &a| (lo.min(a), hi.max(a)));
        assert!((lo - 0.8).abs() < 0.02 && (hi - 0.8).abs() < 0.02, "α {alphas:?}");
        assert!(hi - lo < 0.01, "α oscillates: {alphas:?}");
    }

    /// A device 200× slower than the CPU: it gets a probe, then only chunks
    /// deep enough in the queue that the CPU would not reach them before it
    /// finished, and so never one of the near ones. Requests come in waves
    /// (as the player moves), so the device, idle between them, is ready
    /// when the nearest chunks of the next wave arrive.
    #[test]
    fn a_slow_device_gets_little_work_and_never_a_near_chunk() {
        let mut sim = Sim::new(pace(Engine::Cpu, 1.0, 0.0), pace(Engine::Gpu, 200.0, 200.0), MAX_BATCH);
        let mut by_device = Vec::new();
        let (waves, size) = (6, 300);
        for wave in 0..waves {
            let asked: Vec<ChunkPos> = (0..size).map(|i| ChunkPos::new(wave, 1000 + i, 0)).collect();
            sim.st.apply(Command::Generate(asked.clone()));
            let before = sim.delivered.len();
            sim.run_until_delivered(before + asked.len());
            for &(p, e) in &sim.delivered[before..] {
                if e == Engine::Gpu {
                    by_device.push(asked.iter().position(|q| *q == p).unwrap_or(0));
                }
            }
        }
        assert!(!by_device.is_empty(), "the device made nothing: the test shows nothing");
        assert!(by_device.len() * 50 <= waves as usize * size as usize, "too much: {}", by_device.len());
        assert!(by_device.iter().all(|&i| i >= 150), "the device made near chunks: {by_device:?}");
        let at = sim.at();
        assert_eq!(sim.st.balance(at).device.generated as usize, by_device.len());
    }

    /// A fixed share holds with the game's limits too: a fast device takes
    /// batches no larger than the CPU's, so it overshoots its half of 4 000
    /// chunks by at most one of them.
    #[test]
    fn a_fixed_share_holds_with_a_device_batch_limit() {
        let mut sim = Sim::new(pace(Engine::Cpu, 0.5, 0.0), pace(Engine::Gpu, 0.01, 0.01), BatchLimits::GAME);
        sim.st.apply(Command::FixShare(Some(0.5)));
        sim.st.apply(Command::Generate(sky(4000)));
        sim.run_until_delivered(4000);
        let device = sim.delivered.iter().filter(|(_, e)| *e == Engine::Gpu).count();
        assert!((device as i64 - 2000).abs() <= MAX_BATCH as i64, "device made {device} of 4000");
    }

    /// The UFMG paper's hand-set α = 0.5: half the chunks each, whatever the speeds.
    #[test]
    fn a_fixed_share_splits_by_count() {
        let mut sim = Sim::new(pace(Engine::Cpu, 0.5, 0.0), pace(Engine::Gpu, 2.0, 2.0), 16);
        sim.st.apply(Command::FixShare(Some(0.5)));
        sim.st.apply(Command::Generate(sky(800)));
        sim.run_until_delivered(800);
        let device = sim.delivered.iter().filter(|(_, e)| *e == Engine::Gpu).count();
        assert!((device as i64 - 400).abs() <= 16, "device made {device} of 800");
    }

    /// A device that pays 1 ms a batch and 1 µs a chunk beside a CPU lane
    /// of 20 µs a chunk: with its own batch limit the device's batches grow
    /// to its 40 ms and it makes most of the chunks; held to the CPU's
    /// limit, the fixed cost keeps it near a fifth of that.
    #[test]
    fn a_device_with_its_own_batch_limit_reaches_its_throughput() {
        let run = |limits: BatchLimits| {
            let device = Pace { per_batch: Duration::from_millis(1), ..pace(Engine::Gpu, 0.001, 0.001) };
            let mut sim = Sim::new(pace(Engine::Cpu, 0.02, 0.0), device, limits);
            sim.st.apply(Command::Generate(sky(400_000)));
            sim.run_for(Duration::from_millis(300));
            let at = sim.at();
            sim.st.balance(at)
        };
        let own = run(BatchLimits::GAME);
        let shared = run(BatchLimits::both(MAX_BATCH));
        let rate = |b: &Balance| b.device.capacity.unwrap_or(0.0);
        assert!(rate(&own) > 600_000.0, "device {:.0} chunks/s with its own limit", rate(&own));
        assert!(rate(&shared) < 250_000.0, "device {:.0} chunks/s at the CPU's limit", rate(&shared));
        assert!(own.alpha.is_some_and(|a| a >= 0.9), "α {:?}", own.alpha);
        let capacity = own.capacity().unwrap_or(0.0);
        assert!((capacity - rate(&own) - 50_000.0).abs() < 5_000.0, "capacity {capacity:.0} is the lanes' sum");
    }
}
