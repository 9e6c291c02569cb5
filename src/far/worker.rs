//! Far tiles made off the game thread: the view says which tiles it
//! wants (nearest first), worker threads generate and mesh them in that
//! order, and the owner hands out what changed (a tile's quads ready, a
//! tile gone) for the renderer to apply.
//!
//! The workers are few and separate from the chunk generators, and each
//! tile is small (32² cells), so a worker never holds a core for long: far
//! terrain fills in behind the near chunks instead of ahead of them.

use super::clipmap::TileKey;
use super::mesh::{self, Colours, FarQuad};
use super::tile;
use crate::worldgen::WorldGen;
use crossbeam_channel::{unbounded, Receiver, Sender};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// What changed in the far view since the last poll.
#[derive(Debug)]
pub enum FarChange {
    /// A tile's quads, to draw (replacing nothing: a key is shown once).
    Mesh(TileKey, Vec<FarQuad>),
    /// A tile no longer wanted: stop drawing it.
    Gone(TileKey),
}

/// A tile made by a worker, and what making it cost.
struct Made {
    key: TileKey,
    quads: Vec<FarQuad>,
    micros: f64,
}

#[derive(Default)]
struct Queue {
    todo: VecDeque<TileKey>,
    stop: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
}

/// Totals since the start, for the benchmarks and the overlay.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FarCounts {
    pub tiles_made: u64,
    /// Worker microseconds generating and meshing, summed.
    pub busy_us: f64,
    pub quads_shown: u64,
    pub tiles_shown: usize,
    pub tiles_pending: usize,
}

pub struct FarTerrain {
    shared: Arc<Shared>,
    made: Receiver<Made>,
    workers: Vec<JoinHandle<()>>,
    /// Every wanted tile: shown (with its quad count) or not yet.
    wanted: HashMap<TileKey, Option<u32>>,
    counts: FarCounts,
}

impl FarTerrain {
    /// `threads` workers (at least one) over `world`.
    pub fn new(world: Arc<WorldGen>, threads: usize) -> FarTerrain {
        let shared = Arc::new(Shared { queue: Mutex::new(Queue::default()), wake: Condvar::new() });
        let (send, made) = unbounded();
        let colours = Arc::new(Colours::new());
        let workers = (0..threads.max(1))
            .map(|i| {
                let (shared, send, world, colours) = (shared.clone(), send.clone(), world.clone(), colours.clone());
                std::thread::Builder::new()
                    .name(format!("far-{i}"))
                    .spawn(move || work(&shared, &send, &world, &colours))
                    .expect("spawning a far-terrain worker")
            })
            .collect();
        FarTerrain { shared, made, workers, wanted: HashMap::new(), counts: FarCounts::default() }
    }

    /// The tiles the view wants now, nearest first. Tiles no longer wanted
    /// are reported gone by the next [`FarTerrain::poll`] (through `gone`),
    /// and the workers make the missing ones in this order.
    pub fn want(&mut self, tiles: &[TileKey], gone: &mut Vec<FarChange>) {
        let keep: HashSet<TileKey> = tiles.iter().copied().collect();
        self.wanted.retain(|k, shown| {
            let keep = keep.contains(k);
            if !keep && shown.is_some() {
                gone.push(FarChange::Gone(*k));
            }
            keep
        });
        let mut todo = VecDeque::new();
        for &t in tiles {
            // A pending tile a worker holds now may be made twice; the
            // second is dropped on arrival.
            if self.wanted.entry(t).or_insert(None).is_none() {
                todo.push_back(t);
            }
        }
        if let Ok(mut q) = self.shared.queue.lock() {
            q.todo = todo;
        }
        self.shared.wake.notify_all();
    }

    /// What the workers finished since the last call and is still wanted.
    pub fn poll(&mut self, out: &mut Vec<FarChange>) {
        while let Ok(made) = self.made.try_recv() {
            out.extend(self.receive(made));
        }
    }

    fn receive(&mut self, made: Made) -> Option<FarChange> {
        self.counts.tiles_made += 1;
        self.counts.busy_us += made.micros;
        let shown = self.wanted.get_mut(&made.key)?;
        if shown.is_some() {
            return None;
        }
        *shown = Some(made.quads.len() as u32);
        Some(FarChange::Mesh(made.key, made.quads))
    }

    /// Blocks until every wanted tile is made or `deadline` passes,
    /// handing each change to `apply`; whether all were made.
    pub fn finish(&mut self, deadline: Instant, apply: &mut dyn FnMut(FarChange)) -> bool {
        loop {
            let mut out = Vec::new();
            self.poll(&mut out);
            out.into_iter().for_each(&mut *apply);
            if self.pending() == 0 {
                return true;
            }
            let Some(left) = deadline.checked_duration_since(Instant::now()) else { return false };
            if let Ok(made) = self.made.recv_timeout(left.min(std::time::Duration::from_millis(50))) {
                self.receive(made).into_iter().for_each(&mut *apply);
            }
        }
    }

    /// Wanted tiles not yet shown.
    pub fn pending(&self) -> usize {
        self.wanted.values().filter(|s| s.is_none()).count()
    }

    pub fn counts(&self) -> FarCounts {
        let shown = self.wanted.values().flatten();
        FarCounts {
            tiles_shown: shown.clone().count(),
            quads_shown: shown.map(|&q| q as u64).sum(),
            tiles_pending: self.pending(),
            ..self.counts
        }
    }
}

impl Drop for FarTerrain {
    fn drop(&mut self) {
        if let Ok(mut q) = self.shared.queue.lock() {
            q.stop = true;
            q.todo.clear();
        }
        self.shared.wake.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

fn work(shared: &Shared, send: &Sender<Made>, world: &WorldGen, colours: &Colours) {
    loop {
        let key = {
            let Ok(mut q) = shared.queue.lock() else { return };
            loop {
                if q.stop {
                    return;
                }
                if let Some(k) = q.todo.pop_front() {
                    break k;
                }
                q = match shared.wake.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
        };
        let start = Instant::now();
        let quads = mesh::mesh(&tile::generate(world, key), colours);
        let micros = start.elapsed().as_secs_f64() * 1e6;
        if send.send(Made { key, quads, micros }).is_err() {
            return;
        }
    }
}
