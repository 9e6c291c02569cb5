//! The generation service: a worker thread between the game and a backend.
//!
//! The game sends requests (nearest first) and polls results with
//! `try_recv`; it never waits on the CPU pool or the device. The worker
//! drains all waiting commands before each batch, so a cancellation or a
//! backend switch applies to the very next batch; requests beyond the
//! batch bound wait in order. Chunks come back over a crossbeam channel.

use super::{ChunkBackend, Engine};
use crate::world::chunk::Chunk;
use crate::world::coords::ChunkPos;
use crossbeam_channel::{Receiver, Sender, TryRecvError};
use rayon::prelude::*;
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub enum Command {
    /// Generate these chunks (duplicates of pending requests are ignored).
    Generate(Vec<ChunkPos>),
    /// Drop pending requests farther than `radius` chunks (Chebyshev) from `center`.
    Retain { center: ChunkPos, radius: i32 },
    /// Use this backend from the next batch on.
    SetBackend(Arc<dyn ChunkBackend>),
}

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

pub struct GenerationService {
    commands: Sender<Command>,
    events: Receiver<Event>,
    stats: Arc<ServiceStats>,
    worker: Option<JoinHandle<()>>,
}

/// Chunks per batch: enough to fill a GPU launch, small enough that a
/// cancellation or a backend switch takes effect quickly.
pub const DEFAULT_BATCH: usize = 64;

impl GenerationService {
    pub fn spawn(backend: Arc<dyn ChunkBackend>, batch: usize) -> Self {
        let (commands, command_rx) = crossbeam_channel::unbounded();
        let (event_tx, events) = crossbeam_channel::unbounded();
        let stats = Arc::new(ServiceStats::default());
        let worker_stats = stats.clone();
        let worker = std::thread::Builder::new()
            .name("chunk-generation".into())
            .spawn(move || {
                Worker {
                    backend,
                    batch: batch.max(1),
                    pending: VecDeque::new(),
                    pending_set: HashSet::new(),
                    stats: worker_stats,
                }
                .run(command_rx, event_tx)
            })
            .ok();
        Self { commands, events, stats, worker }
    }

    /// Sends a command; false if the worker is gone.
    pub fn send(&self, c: Command) -> bool {
        self.commands.send(c).is_ok()
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
        &self.stats
    }
}

impl Drop for GenerationService {
    fn drop(&mut self) {
        // Closing the command channel ends the worker after its current batch.
        let (dead, _) = crossbeam_channel::unbounded();
        self.commands = dead;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

struct Worker {
    backend: Arc<dyn ChunkBackend>,
    batch: usize,
    pending: VecDeque<(ChunkPos, Instant)>,
    pending_set: HashSet<ChunkPos>,
    stats: Arc<ServiceStats>,
}

impl Worker {
    fn apply(&mut self, c: Command, events: &Sender<Event>) {
        match c {
            Command::Generate(positions) => {
                let now = Instant::now();
                for p in positions {
                    if self.pending_set.insert(p) {
                        self.pending.push_back((p, now));
                    }
                }
            }
            Command::Retain { center, radius } => {
                let far = |p: &ChunkPos| {
                    (p.x as i64 - center.x as i64)
                        .abs()
                        .max((p.y as i64 - center.y as i64).abs())
                        .max((p.z as i64 - center.z as i64).abs())
                        > radius as i64
                };
                let (keep, drop): (Vec<_>, Vec<_>) = self.pending.drain(..).partition(|(p, _)| !far(p));
                self.pending = keep.into();
                for (p, _) in drop {
                    self.pending_set.remove(&p);
                    self.stats.cancelled.fetch_add(1, Ordering::Relaxed);
                    let _ = events.send(Event::Cancelled(p));
                }
            }
            Command::SetBackend(b) => self.backend = b,
        }
        self.stats.queued.store(self.pending.len(), Ordering::Relaxed);
    }

    fn run(mut self, commands: Receiver<Command>, events: Sender<Event>) {
        loop {
            // Block only when idle.
            if self.pending.is_empty() {
                match commands.recv() {
                    Ok(c) => self.apply(c, &events),
                    Err(_) => return,
                }
            }
            loop {
                match commands.try_recv() {
                    Ok(c) => self.apply(c, &events),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
            let n = self.pending.len().min(self.batch);
            if n == 0 {
                continue;
            }
            let batch: Vec<(ChunkPos, Instant)> = self.pending.drain(..n).collect();
            self.stats.queued.store(self.pending.len(), Ordering::Relaxed);
            self.stats.generating.store(batch.len(), Ordering::Relaxed);
            let positions: Vec<ChunkPos> = batch.iter().map(|(p, _)| *p).collect();
            match self.backend.generate(&positions) {
                Ok(mut chunks) => {
                    let kind = self.backend.kind();
                    // Packing belongs to storage, not to generation: it runs
                    // here, on the pool, before the game keeps the chunks.
                    chunks.par_iter_mut().for_each(Chunk::compact);
                    for (chunk, (p, asked)) in chunks.into_iter().zip(&batch) {
                        self.pending_set.remove(p);
                        self.stats.generated.fetch_add(1, Ordering::Relaxed);
                        if events.send(Event::Generated { chunk, backend: kind, latency: asked.elapsed() }).is_err() {
                            return;
                        }
                    }
                }
                Err(e) => {
                    // Only a bare device backend can fail here (the game wraps
                    // devices in FallbackBackend); keep the requests and retry.
                    eprintln!("blockworld: generation failed, retrying: {e}");
                    for item in batch.into_iter().rev() {
                        self.pending.push_front(item);
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            self.stats.generating.store(0, Ordering::Relaxed);
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
}
