//! Far tiles made off the game thread: the view says which tiles it
//! wants (nearest first), worker threads generate and mesh them in that
//! order, and the owner hands out what changed (a tile's quads ready, a
//! tile gone) for the renderer to apply.
//!
//! The workers are few, separate from the chunk generators and run at a
//! lower priority, and each tile is small (32² cells), so a worker never
//! holds a core for long: far terrain fills in behind the near chunks
//! instead of ahead of them.

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
    /// Its columns came from a [`ColumnSource`].
    from_source: bool,
}

/// Where workers may take a batch of tiles' columns (each cell's ground
/// height and biome, `tile::sample`'s values) instead of sampling them on
/// their own core: a generation device, through the game. It answers
/// None when it should not be used now (chunk requests are waiting) or
/// failed; the workers then sample on the CPU, so no tile waits for it.
pub trait ColumnSource: Send + Sync {
    fn columns(&self, tiles: &[TileKey]) -> Option<Vec<(i32, u8)>>;
}

/// Tiles a worker takes at once when a column source is set: one launch's
/// worth, small enough that a chunk request arriving meanwhile waits for
/// little (32 tiles are 0.5 ms of a GPU's time at most).
const SOURCE_BATCH: usize = 32;

#[derive(Default)]
struct Queue {
    todo: VecDeque<TileKey>,
    /// Tiles a worker has taken and not yet sent: asked for again, they
    /// are not queued twice (the one being made arrives).
    making: HashSet<TileKey>,
    stop: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
    source: Mutex<Option<Arc<dyn ColumnSource>>>,
}

/// Totals since the start, for the benchmarks and the overlay.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FarCounts {
    pub tiles_made: u64,
    /// Of them, tiles whose columns came from the column source (a device).
    pub tiles_from_source: u64,
    /// Worker microseconds generating and meshing, summed.
    pub busy_us: f64,
    pub quads_shown: u64,
    pub tiles_shown: usize,
    pub tiles_pending: usize,
}

/// Which tiles are wanted, shown and retiring, apart from the threads.
///
/// A tile the view no longer wants stays drawn (retiring) until no wanted
/// tile over its ground is still being made, so moving never opens a hole
/// where the old view had terrain: for a moment a coarse and a fine tile
/// may both be drawn over the same ground instead.
#[derive(Default)]
struct Ledger {
    /// Every wanted tile: shown (with its quad count) or not yet.
    wanted: HashMap<TileKey, Option<u32>>,
    retiring: HashMap<TileKey, u32>,
}

fn overlap(a: TileKey, b: TileKey) -> bool {
    let ([ax, az], [bx, bz]) = (a.origin(), b.origin());
    let (la, lb) = (a.blocks(), b.blocks());
    ax < bx + lb && bx < ax + la && az < bz + lb && bz < az + la
}

impl Ledger {
    /// Takes the new view's tiles (nearest first); returns those to make.
    fn want(&mut self, tiles: &[TileKey], out: &mut Vec<FarChange>) -> VecDeque<TileKey> {
        let keep: HashSet<TileKey> = tiles.iter().copied().collect();
        let retiring = &mut self.retiring;
        self.wanted.retain(|k, shown| {
            let keep = keep.contains(k);
            if let (false, Some(q)) = (keep, *shown) {
                retiring.insert(*k, q);
            }
            keep
        });
        let mut todo = VecDeque::new();
        for &t in tiles {
            if let Some(q) = self.retiring.remove(&t) {
                self.wanted.insert(t, Some(q));
            } else if self.wanted.entry(t).or_insert(None).is_none() {
                // Unless a worker holds it now (FarTerrain::want).
                todo.push_back(t);
            }
        }
        self.release(out);
        todo
    }

    /// A tile made: shown if it is wanted and not shown yet.
    fn made(&mut self, key: TileKey, quads: Vec<FarQuad>, out: &mut Vec<FarChange>) {
        if let Some(shown @ None) = self.wanted.get_mut(&key) {
            *shown = Some(quads.len() as u32);
            out.push(FarChange::Mesh(key, quads));
            self.release(out);
        }
    }

    /// Retiring tiles no pending tile overlaps are gone.
    fn release(&mut self, out: &mut Vec<FarChange>) {
        let pending: Vec<TileKey> = self.wanted.iter().filter(|(_, s)| s.is_none()).map(|(k, _)| *k).collect();
        self.retiring.retain(|&r, _| {
            let keep = pending.iter().any(|&p| overlap(p, r));
            if !keep {
                out.push(FarChange::Gone(r));
            }
            keep
        });
    }

    fn pending(&self) -> usize {
        self.wanted.values().filter(|s| s.is_none()).count()
    }
}

pub struct FarTerrain {
    shared: Arc<Shared>,
    made: Receiver<Made>,
    workers: Vec<JoinHandle<()>>,
    ledger: Ledger,
    counts: FarCounts,
}

impl FarTerrain {
    /// `threads` workers (at least one) over `world`.
    pub fn new(world: Arc<WorldGen>, threads: usize) -> FarTerrain {
        let shared =
            Arc::new(Shared { queue: Mutex::new(Queue::default()), wake: Condvar::new(), source: Mutex::new(None) });
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
        FarTerrain { shared, made, workers, ledger: Ledger::default(), counts: FarCounts::default() }
    }

    /// From the workers' next batch on, take columns from `source` where
    /// it answers (None: always sample on the CPU).
    pub fn set_source(&mut self, source: Option<Arc<dyn ColumnSource>>) {
        if let Ok(mut s) = self.shared.source.lock() {
            *s = source;
        }
    }

    /// The tiles the view wants now, nearest first; the workers make the
    /// missing ones in this order. Tiles no longer wanted are reported
    /// gone (into `out`, now or by a later poll) once the tiles replacing
    /// them are shown.
    pub fn want(&mut self, tiles: &[TileKey], out: &mut Vec<FarChange>) {
        let todo = self.ledger.want(tiles, out);
        if let Ok(mut q) = self.shared.queue.lock() {
            let q = &mut *q;
            q.todo = todo.into_iter().filter(|k| !q.making.contains(k)).collect();
        }
        self.shared.wake.notify_all();
    }

    /// What the workers finished since the last call and is still wanted.
    pub fn poll(&mut self, out: &mut Vec<FarChange>) {
        while let Ok(made) = self.made.try_recv() {
            self.receive(made, out);
        }
    }

    fn receive(&mut self, made: Made, out: &mut Vec<FarChange>) {
        self.counts.tiles_made += 1;
        self.counts.tiles_from_source += made.from_source as u64;
        self.counts.busy_us += made.micros;
        self.ledger.made(made.key, made.quads, out);
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
                let mut out = Vec::new();
                self.receive(made, &mut out);
                out.into_iter().for_each(&mut *apply);
            }
        }
    }

    /// Wanted tiles not yet shown.
    pub fn pending(&self) -> usize {
        self.ledger.pending()
    }

    /// Wanted tiles not yet shown, and not hidden under a retiring tile:
    /// where the view shows a hole now.
    pub fn holes(&self) -> impl Iterator<Item = TileKey> + '_ {
        self.holes_beside(&[], &[])
    }

    /// [`Self::holes`] when the changes handed out are not all applied
    /// yet: `unshown` tiles are shown here but not on screen, and
    /// `still_drawn` tiles are gone here but still on screen.
    pub fn holes_beside<'a>(
        &'a self,
        unshown: &'a [TileKey],
        still_drawn: &'a [TileKey],
    ) -> impl Iterator<Item = TileKey> + 'a {
        let l = &self.ledger;
        l.wanted
            .iter()
            .filter(move |(k, s)| s.is_none() || unshown.contains(k))
            .map(|(k, _)| *k)
            .filter(move |&k| !l.retiring.keys().chain(still_drawn).any(|&r| overlap(r, k)))
    }

    pub fn counts(&self) -> FarCounts {
        let shown = self.ledger.wanted.values().flatten();
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

/// Lowers the calling thread's scheduling priority (Linux: nice 10), so
/// the chunk generators and the game thread take the cores first and far
/// terrain gets what is left. Where it cannot, the worker runs as it is.
fn yield_to_the_near_view() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority reads and writes no memory of this process; with
    // PRIO_PROCESS and a thread id it changes that thread's nice value only.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

fn work(shared: &Shared, send: &Sender<Made>, world: &WorldGen, colours: &Colours) {
    yield_to_the_near_view();
    loop {
        let (source, keys): (_, Vec<TileKey>) = {
            let Ok(mut q) = shared.queue.lock() else { return };
            loop {
                if q.stop {
                    return;
                }
                if !q.todo.is_empty() {
                    // Read now, not before the wait: a source set while
                    // this worker slept applies to what it takes next.
                    let source = shared.source.lock().ok().and_then(|s| s.clone());
                    let n = if source.is_some() { SOURCE_BATCH } else { 1 }.min(q.todo.len());
                    let keys: Vec<TileKey> = q.todo.drain(..n).collect();
                    q.making.extend(keys.iter().copied());
                    break (source, keys);
                }
                q = match shared.wake.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
        };
        let start = Instant::now();
        let columns = source.and_then(|s| s.columns(&keys)).filter(|c| c.len() == keys.len() * tile::TILE_AREA);
        let shared_micros = start.elapsed().as_secs_f64() * 1e6 / keys.len() as f64;
        for (i, &key) in keys.iter().enumerate() {
            let start = Instant::now();
            let made = match &columns {
                Some(c) => tile::assemble(world, key, &c[i * tile::TILE_AREA..(i + 1) * tile::TILE_AREA]),
                None => tile::generate(world, key),
            };
            let quads = mesh::mesh(&made, colours);
            let micros = shared_micros + start.elapsed().as_secs_f64() * 1e6;
            if send.send(Made { key, quads, micros, from_source: columns.is_some() }).is_err() {
                return;
            }
            // Only once sent: a view asking again meanwhile must not queue it.
            if let Ok(mut q) = shared.queue.lock() {
                q.making.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::far::clipmap::{tile_blocks, FarRange, MAX_LEVELS};

    /// The tiles drawn now: shown wanted tiles and retiring ones.
    fn drawn(l: &Ledger, with_retiring: bool) -> HashSet<TileKey> {
        let shown = l.wanted.iter().filter(|(_, s)| s.is_some()).map(|(k, _)| *k);
        let retiring = l.retiring.keys().copied().filter(|_| with_retiring);
        shown.chain(retiring).collect()
    }

    /// Columns on a grid within `reach` of `eye` that no drawn tile holds.
    fn uncovered(drawn: &HashSet<TileKey>, eye: [i64; 2], reach: i64) -> usize {
        let mut n = 0;
        for dz in (-reach..reach).step_by(61) {
            for dx in (-reach..reach).step_by(67) {
                if dx * dx + dz * dz > reach * reach {
                    continue;
                }
                let p = [eye[0] + dx, eye[1] + dz];
                let held = (0..MAX_LEVELS).any(|level| {
                    let b = tile_blocks(level);
                    drawn.contains(&TileKey { level, x: p[0].div_euclid(b) as i32, z: p[1].div_euclid(b) as i32 })
                });
                n += usize::from(!held);
            }
        }
        n
    }

    fn make_all(l: &mut Ledger, todo: VecDeque<TileKey>, mut check: impl FnMut(&Ledger)) {
        let mut out = Vec::new();
        for t in todo {
            l.made(t, Vec::new(), &mut out);
            check(l);
        }
    }

    /// Moving the eye 360 blocks changes tiles on every level; while the
    /// new ones are made, what is drawn still covers all the ground both
    /// views show. Drawing only the shown wanted tiles (no retiring) opens
    /// holes: the control.
    #[test]
    fn moving_never_opens_a_hole_while_new_tiles_are_made() {
        let (a, b) = ([0, 0], [300, -200]);
        let horizon = 6000;
        let mut l = Ledger::default();
        let mut out = Vec::new();
        let todo = l.want(&FarRange { eye: a, horizon }.tiles(), &mut out);
        make_all(&mut l, todo, |_| {});
        assert_eq!(uncovered(&drawn(&l, true), a, 5000), 0);
        out.clear();
        let todo = l.want(&FarRange { eye: b, horizon }.tiles(), &mut out);
        assert!(!todo.is_empty() && !l.retiring.is_empty());
        assert!(uncovered(&drawn(&l, false), b, 5000) > 0, "the control: without retiring tiles there are holes");
        let mut worst = uncovered(&drawn(&l, true), b, 5000);
        make_all(&mut l, todo, |l| worst = worst.max(uncovered(&drawn(l, true), b, 5000)));
        assert_eq!(worst, 0, "a hole opened while the new view's tiles were made");
        assert!(l.retiring.is_empty(), "every retiring tile is gone at the end");
        assert_eq!(l.pending(), 0);
    }

    /// Columns handed out by a source, counting the tiles it was asked for;
    /// `answer` false makes it decline, as a busy device does.
    struct Counting {
        world: Arc<WorldGen>,
        answer: bool,
        asked: Mutex<usize>,
    }

    impl ColumnSource for Counting {
        fn columns(&self, tiles: &[TileKey]) -> Option<Vec<(i32, u8)>> {
            *self.asked.lock().unwrap() += tiles.len();
            self.answer.then(|| tiles.iter().flat_map(|&t| tile::sample(&self.world, t)).collect())
        }
    }

    /// Tiles made from a source's columns, or on the CPU where it declines,
    /// mesh exactly as tiles made without one; the counts say which.
    #[test]
    fn a_column_source_makes_the_same_tiles_and_a_declining_one_costs_none() {
        let world = Arc::new(WorldGen::new(crate::worldgen::Preset::classic(), 8));
        let tiles: Vec<TileKey> = FarRange { eye: [70, -5], horizon: 2500 }.tiles();
        let colours = Colours::new();
        let want: HashMap<TileKey, Vec<FarQuad>> =
            tiles.iter().map(|&t| (t, mesh::mesh(&tile::generate(&world, t), &colours))).collect();
        for answer in [true, false] {
            let source = Arc::new(Counting { world: world.clone(), answer, asked: Mutex::new(0) });
            let mut far = FarTerrain::new(world.clone(), 2);
            far.set_source(Some(source.clone()));
            let mut got = HashMap::new();
            far.want(&tiles, &mut Vec::new());
            let done = far.finish(Instant::now() + std::time::Duration::from_secs(120), &mut |c| {
                if let FarChange::Mesh(k, q) = c {
                    got.insert(k, q);
                }
            });
            assert!(done, "every tile made");
            assert!(got == want, "answer {answer}: the tiles differ from the CPU's");
            let counts = far.counts();
            assert!(*source.asked.lock().unwrap() >= tiles.len(), "the source was asked for every tile");
            let expected = if answer { counts.tiles_made } else { 0 };
            assert_eq!(counts.tiles_from_source, expected, "answer {answer}");
        }
    }

    /// Blocks in `columns` until the test opens the gate, so the test can
    /// ask for tiles again while a worker holds a batch.
    struct Gate {
        world: Arc<WorldGen>,
        open: Mutex<bool>,
        opened: Condvar,
    }

    impl ColumnSource for Gate {
        fn columns(&self, tiles: &[TileKey]) -> Option<Vec<(i32, u8)>> {
            let mut open = self.open.lock().unwrap();
            while !*open {
                open = self.opened.wait(open).unwrap();
            }
            Some(tiles.iter().flat_map(|&t| tile::sample(&self.world, t)).collect())
        }
    }

    /// Tiles asked for again while a worker makes them are not queued a
    /// second time: each is made once.
    #[test]
    fn a_tile_being_made_is_not_queued_again() {
        let world = Arc::new(WorldGen::new(crate::worldgen::Preset::classic(), 4));
        let gate = Arc::new(Gate { world: world.clone(), open: Mutex::new(false), opened: Condvar::new() });
        let mut far = FarTerrain::new(world, 1);
        far.set_source(Some(gate.clone()));
        let tiles: Vec<TileKey> = (0..8).map(|x| TileKey { level: 4, x, z: 1 }).collect();
        far.want(&tiles, &mut Vec::new());
        let deadline = Instant::now() + std::time::Duration::from_secs(30);
        while far.shared.queue.lock().unwrap().making.len() < tiles.len() && Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        // The view moves and wants the same tiles again.
        far.want(&tiles, &mut Vec::new());
        let queued_again = far.shared.queue.lock().unwrap().todo.len();
        // Open before asserting: a failed test must not leave a worker held.
        *gate.open.lock().unwrap() = true;
        gate.opened.notify_all();
        assert_eq!(queued_again, 0, "the held tiles are not queued again");
        assert!(far.finish(Instant::now() + std::time::Duration::from_secs(60), &mut |_| {}));
        std::thread::sleep(std::time::Duration::from_millis(50));
        far.poll(&mut Vec::new());
        assert_eq!(far.counts().tiles_made, tiles.len() as u64, "each tile made once");
    }
}
