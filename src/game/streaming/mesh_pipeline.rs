//! The mesh pipeline: chunks whose 26 neighbours are loaded wait in a
//! queue of positions and go to the mesher threads a bounded number at a
//! time; finished meshes are handed out (as [`super::ViewChange`]s the
//! game uploads) within a per-frame byte and time budget.
//!
//! The bound is what keeps memory flat: a job holds its 27 chunks alive,
//! so an unbounded job channel behind a fast flight kept evicted chunks
//! (and meshes nobody would draw) in memory, and made the meshers work
//! through positions long out of range. Queued positions hold nothing,
//! and the neighbourhood is gathered only when a job is sent. Every mesh carries the edit version of
//! its chunk, so a mesh made from blocks an edit has since changed is
//! dropped when it comes back.

use super::rings::Range;
use crate::far::occlusion::SolidColumns;
use crate::light::ChunkLight;
use crate::mesh::{mesh_chunk, mesh_chunk_and_links, ChunkMesh, Neighbourhood};
use crate::world::chunk::Chunk;
use crate::world::coords::ChunkPos;
use crate::world::visibility::FaceLinks;
use crossbeam_channel::{Receiver, Sender};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub upload_bytes: u64,
    /// Game-thread time for a frame's streaming update. The fixed work
    /// (moving the range, the light thread's results) comes first; the
    /// elastic work (taking in generated chunks, handing out mesh jobs,
    /// uploading meshes) gets the rest, at least a little of each, and
    /// what does not fit waits for the next frame.
    pub time: Duration,
    /// Generated chunks taken in per frame (the Bologna thesis's game takes 2); the
    /// rest wait in the service's channel. Not scaled with the frame time.
    pub max_arrivals: usize,
}

/// The share of a slow frame the streaming work may take when that is more
/// than [`Budget::time`].
const FRAME_SHARE: u32 = 100;

impl Budget {
    /// The budget for a frame that took `frame`, `factor` times 16 ms:
    /// bytes grow with the factor, so a slow frame still uploads what the
    /// meshers made meanwhile; time grows only to 1 % of the frame. Work
    /// arrives in bursts (a ring of requests comes back together), and a
    /// time bound spreads a burst over frames instead of making one frame
    /// long: on a software rasteriser at 5 frames a second the game thread
    /// spent up to 9 ms of a frame taking in 600 chunks at once.
    pub fn scaled(self, factor: usize, frame: Duration) -> Budget {
        Budget {
            upload_bytes: self.upload_bytes.saturating_mul(factor as u64),
            time: self.time.max(frame / FRAME_SHARE),
            max_arrivals: self.max_arrivals,
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget { upload_bytes: 4 << 20, time: Duration::from_millis(3), max_arrivals: usize::MAX }
    }
}

/// Jobs on the mesher threads plus finished meshes waiting for upload: a
/// few frames of work for the meshers even at the slowest frame rates,
/// while at most this many jobs' chunks are held beyond the store.
pub const MAX_IN_PIPELINE: usize = 256;

/// What a chunk is meshed from: it and its 26 neighbours (z, then y, then
/// x), and their light where the chunk is in the lit range.
pub struct MeshInput {
    pub chunks: Vec<Arc<Chunk>>,
    pub light: Option<Vec<ChunkLight>>,
}

struct MeshJob {
    pos: ChunkPos,
    /// The chunk's edit version when the job was made.
    version: u64,
    input: MeshInput,
}

struct MeshDone {
    pos: ChunkPos,
    version: u64,
    mesh: ChunkMesh,
    /// The chunk's [`Chunk::solid_rows`], for far terrain's occlusion.
    solid: [u32; 4],
    /// The chunk's face links, found beside its mesh off the game thread.
    links: FaceLinks,
}

/// Meshes the centre of a 3×3×3 block of chunks.
pub fn mesh_of(input: &MeshInput) -> ChunkMesh {
    with_neighbourhood(input, mesh_chunk)
}

/// Meshes the centre and finds its face links.
fn mesh_and_links_of(input: &MeshInput) -> (ChunkMesh, FaceLinks) {
    with_neighbourhood(input, mesh_chunk_and_links)
}

fn with_neighbourhood<T>(input: &MeshInput, f: impl FnOnce(&Neighbourhood) -> T) -> T {
    let chunks = &input.chunks;
    let centre = &chunks[13];
    let mut neighbours = [centre.blocks(); 27];
    for (i, c) in chunks.iter().enumerate() {
        neighbours[i] = c.blocks();
    }
    let light = input.light.as_ref().filter(|l| l.len() == 27).map(|l| std::array::from_fn(|i| &l[i]));
    f(&Neighbourhood { centre, neighbours, light })
}

fn spawn_mesher(rx: Receiver<MeshJob>, tx: Sender<MeshDone>) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("mesher".into())
        .spawn(move || {
            crate::backend::cpu::set_nice(crate::backend::cpu::MESHER_NICE);
            while let Ok(job) = rx.recv() {
                let (mesh, links) = mesh_and_links_of(&job.input);
                let solid = job.input.chunks[13].solid_rows();
                if tx.send(MeshDone { pos: job.pos, version: job.version, mesh, solid, links }).is_err() {
                    return;
                }
            }
        })
        .expect("spawning a mesher thread")
}

/// When a chunk passed each stage on its way to the screen; a stage not
/// stamped took no time.
#[derive(Clone, Copy, Debug)]
struct Stamps {
    wanted: Instant,
    /// It and its 26 neighbours in the store.
    loaded: Option<Instant>,
    /// Light settled around it: queued for a mesher.
    queued: Option<Instant>,
    sent: Option<Instant>,
    /// Its mesh back from the mesher.
    back: Option<Instant>,
}

/// How long a chunk waited in each stage between being wanted and its
/// mesh going up; the stages add up to `total`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReadyStages {
    pub total: Duration,
    /// Until it and its neighbours were generated and in the store.
    pub generate: Duration,
    /// Until the light around it (and above it) settled.
    pub light: Duration,
    /// In the queue for a mesher.
    pub queue: Duration,
    /// On a mesher.
    pub mesh: Duration,
    /// Waiting for the upload budget.
    pub upload: Duration,
}

impl ReadyStages {
    pub const NAMES: [&'static str; 5] = ["generate", "light", "queue", "mesh", "upload"];

    pub fn stages(&self) -> [Duration; 5] {
        [self.generate, self.light, self.queue, self.mesh, self.upload]
    }
}

impl Stamps {
    fn new(wanted: Instant) -> Stamps {
        Stamps { wanted, loaded: None, queued: None, sent: None, back: None }
    }

    /// The stages up to `up`; a missing stamp is taken to be the one
    /// before it, and a stamp older than the one before (a stage passed
    /// again after a re-mesh) counts from it.
    fn stages(&self, up: Instant) -> ReadyStages {
        let mut last = self.wanted;
        let mut step = |t: Option<Instant>| {
            let t = t.unwrap_or(last).max(last);
            let d = t - last;
            last = t;
            d
        };
        let (generate, light, queue, mesh) = (step(self.loaded), step(self.queued), step(self.sent), step(self.back));
        let upload = step(Some(up));
        ReadyStages { total: up.saturating_duration_since(self.wanted), generate, light, queue, mesh, upload }
    }
}

pub struct MeshPipeline {
    /// Bumped by every edit of a chunk.
    versions: HashMap<ChunkPos, u64>,
    meshing: HashSet<ChunkPos>,
    /// Ready to mesh, nearest-requested first; not yet sent.
    queue: VecDeque<ChunkPos>,
    queued: HashSet<ChunkPos>,
    /// Chunks in render range that are drawn, or known to need no mesh.
    meshed: HashSet<ChunkPos>,
    /// Chunks in render range drawn (or known empty) at least once since
    /// they came into range, with the [`Chunk::solid_rows`] of the blocks
    /// drawn. A chunk being meshed again leaves `meshed` but not this: its
    /// older mesh is still drawn meanwhile.
    drawn: HashMap<ChunkPos, [u32; 4]>,
    /// The drawn chunks' opaque bands by column, and the columns whose
    /// drawn chunks changed since they were last gathered.
    solid: SolidColumns,
    dirty: HashSet<[i32; 2]>,
    uploads: VecDeque<MeshDone>,
    /// When each chunk was first wanted and passed each stage, until its
    /// mesh is up (latency).
    stamps: HashMap<ChunkPos, Stamps>,
    /// Wanted (in range) → mesh on the GPU, per chunk with a mesh, by
    /// stage, with the chunk's offset from the range's centre when it came up.
    pub ready_latencies: Vec<(ReadyStages, super::rings::Offset)>,
    /// Jobs sent to the mesher threads so far.
    pub jobs_sent: u64,
    jobs: Option<Sender<MeshJob>>,
    done: Receiver<MeshDone>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl MeshPipeline {
    /// One mesher thread per core but one (the game thread keeps its own).
    pub fn spawn() -> MeshPipeline {
        let (jobs, job_rx) = crossbeam_channel::unbounded();
        let (done_tx, done) = crossbeam_channel::unbounded();
        // A mesher a core: once generation has drained, meshing is all the
        // work left, and one core short left a 2-core machine half idle
        // through the view's last meshes. While generation runs, the lanes
        // and the meshers share the cores.
        let threads = crate::backend::cpu::threads().max(1);
        let workers = (0..threads).map(|_| spawn_mesher(job_rx.clone(), done_tx.clone())).collect();
        MeshPipeline {
            versions: HashMap::default(),
            meshing: HashSet::default(),
            queue: VecDeque::new(),
            queued: HashSet::default(),
            meshed: HashSet::default(),
            drawn: HashMap::default(),
            solid: SolidColumns::default(),
            dirty: HashSet::default(),
            uploads: VecDeque::new(),
            stamps: HashMap::default(),
            ready_latencies: Vec::new(),
            jobs_sent: 0,
            jobs: Some(jobs),
            done,
            workers,
        }
    }

    /// Forgets `gone`, chunks that left `range`'s render band: cheaper
    /// than [`MeshPipeline::retain`] when few left, as on a step across a
    /// chunk border.
    pub fn forget(&mut self, gone: &[ChunkPos], range: &Range) {
        for p in gone {
            self.meshed.remove(p);
            if self.drawn.remove(p).is_some() {
                self.dirty.insert([p.x, p.z]);
            }
            self.queued.remove(p);
            self.stamps.remove(p);
        }
        // Both are short: work waiting for the next frames.
        self.queue.retain(|&p| range.renders(p));
        self.uploads.retain(|m| range.renders(m.pos));
    }

    /// Forgets everything outside `range`'s render band.
    pub fn retain(&mut self, range: &Range) {
        self.meshed.retain(|&p| range.renders(p));
        let dirty = &mut self.dirty;
        self.drawn.retain(|&p, _| {
            let keep = range.renders(p);
            if !keep {
                dirty.insert([p.x, p.z]);
            }
            keep
        });
        self.queue.retain(|&p| range.renders(p));
        self.queued.retain(|&p| range.renders(p));
        self.uploads.retain(|m| range.renders(m.pos));
        self.stamps.retain(|&p, _| range.renders(p));
    }

    /// Latency runs from the moment a chunk is wanted to its mesh on the GPU.
    pub fn wanted_since(&mut self, pos: ChunkPos, t: Instant) {
        self.stamps.entry(pos).or_insert_with(|| Stamps::new(t));
    }

    /// `pos` and its 26 neighbours are in the store (the first time counts).
    pub fn loaded(&mut self, pos: ChunkPos) {
        if let Some(s) = self.stamps.get_mut(&pos) {
            s.loaded.get_or_insert_with(Instant::now);
        }
    }

    fn stamp(&mut self, pos: ChunkPos, stage: fn(&mut Stamps) -> &mut Option<Instant>) {
        if let Some(s) = self.stamps.get_mut(&pos) {
            *stage(s) = Some(Instant::now());
        }
    }

    /// Meshed, waiting to be sent, on the mesher threads, or queued for upload.
    pub fn is_settled_or_busy(&self, pos: ChunkPos) -> bool {
        self.meshed.contains(&pos) || self.meshing.contains(&pos) || self.queued.contains(&pos)
    }

    pub fn is_meshed(&self, pos: ChunkPos) -> bool {
        self.meshed.contains(&pos)
    }

    /// Whether the view shows `pos` as it is or as it was: a chunk not
    /// drawn yet is a hole in the view.
    pub fn is_drawn(&self, pos: ChunkPos) -> bool {
        self.drawn.contains_key(&pos)
    }

    /// A chunk with nothing to draw (air, or rock buried in rock, whose
    /// `solid` rows are all set) is done without a mesh.
    pub fn settle_empty(&mut self, pos: ChunkPos, solid: [u32; 4]) {
        self.meshed.insert(pos);
        self.draw(pos, solid);
    }

    fn draw(&mut self, pos: ChunkPos, solid: [u32; 4]) {
        if self.drawn.insert(pos, solid) != Some(solid) {
            self.dirty.insert([pos.x, pos.z]);
        }
    }

    /// The drawn chunks' opaque bands, as of the last [`Self::refresh_solid`].
    pub fn solid(&self) -> &SolidColumns {
        &self.solid
    }

    /// Gathers the opaque bands anew for the columns whose drawn chunks
    /// changed (`range` bounds a column's chunks).
    pub fn refresh_solid(&mut self, range: &Range) {
        let v = super::rings::vertical(range.render_distance);
        let (lo, hi) = (range.centre.y.saturating_sub(v), range.centre.y.saturating_add(v));
        for [x, z] in self.dirty.drain() {
            let drawn = &self.drawn;
            self.solid.set([x, z], (lo..=hi).filter_map(|y| Some((y, *drawn.get(&ChunkPos::new(x, y, z))?))));
        }
    }

    /// Queues a chunk whose neighbours are all loaded for meshing.
    pub fn enqueue(&mut self, pos: ChunkPos) {
        if self.queued.insert(pos) {
            self.queue.push_back(pos);
            self.stamp(pos, |s| &mut s.queued);
        }
    }

    /// Sends queued chunks to the meshers while fewer than `limit` (a
    /// multiple of [`MAX_IN_PIPELINE`]) are meshing or waiting for upload.
    /// `neighbourhood` gives a chunk and its 26 neighbours (z, y, x order)
    /// if all are still loaded; a chunk whose neighbours have left is
    /// dropped (it is queued again if it comes back into range).
    pub fn dispatch(
        &mut self,
        limit: usize,
        deadline: Instant,
        mut neighbourhood: impl FnMut(ChunkPos) -> Option<MeshInput>,
    ) {
        // The meshers are fed at least a job a frame whatever the deadline.
        let mut sent = 0;
        while self.meshing.len() + self.uploads.len() < limit && (sent == 0 || Instant::now() < deadline) {
            let Some(pos) = self.queue.pop_front() else { break };
            self.queued.remove(&pos);
            let Some(input) = neighbourhood(pos) else { continue };
            let version = self.versions.get(&pos).copied().unwrap_or(0);
            if let Some(tx) = &self.jobs {
                if tx.send(MeshJob { pos, version, input }).is_ok() {
                    sent += 1;
                    self.jobs_sent += 1;
                    self.meshing.insert(pos);
                    self.stamp(pos, |s| &mut s.sent);
                }
            }
        }
    }

    /// An edit changed `pos`: meshes of it on the way are stale.
    pub fn invalidate(&mut self, pos: ChunkPos) {
        *self.versions.entry(pos).or_default() += 1;
        self.meshing.remove(&pos);
        self.uploads.retain(|m| m.pos != pos);
    }

    /// `pos` was meshed on the game thread (`Some`, with its blocks'
    /// [`Chunk::solid_rows`]), or waits for its neighbours to be meshed
    /// again once they arrive (`None`).
    pub fn remeshed(&mut self, pos: ChunkPos, done: Option<[u32; 4]>) {
        match done {
            Some(solid) => {
                self.meshed.insert(pos);
                self.draw(pos, solid);
            }
            None => {
                self.meshed.remove(&pos);
            }
        }
    }

    /// Takes in finished meshes and hands them to `show` (an empty one as
    /// `None`: the chunk has nothing to draw) within `max_bytes` of quads
    /// and by `deadline` (at least one either way).
    pub fn hand_out(
        &mut self,
        range: &Range,
        (max_bytes, deadline): (u64, Instant),
        mut show: impl FnMut(ChunkPos, Option<ChunkMesh>, FaceLinks),
    ) {
        while let Ok(finished) = self.done.try_recv() {
            if self.versions.get(&finished.pos).copied().unwrap_or(0) != finished.version {
                continue; // made from blocks an edit has since changed
            }
            self.meshing.remove(&finished.pos);
            self.stamp(finished.pos, |s| &mut s.back);
            if range.renders(finished.pos) {
                self.uploads.push_back(finished);
            }
        }
        let mut bytes = 0u64;
        while !self.uploads.is_empty() {
            if bytes > 0 && (bytes >= max_bytes || Instant::now() >= deadline) {
                break;
            }
            let Some(finished) = self.uploads.pop_front() else { break };
            let pos = finished.pos;
            if finished.mesh.is_empty() {
                show(pos, None, finished.links);
            } else {
                bytes += (finished.mesh.quads() * std::mem::size_of::<crate::mesh::quad::Quad>()) as u64;
                if let Some(s) = self.stamps.get(&pos) {
                    let c = range.centre;
                    let offset = (pos.x - c.x, pos.y - c.y, pos.z - c.z);
                    self.ready_latencies.push((s.stages(Instant::now()), offset));
                }
                show(pos, Some(finished.mesh), finished.links);
            }
            self.stamps.remove(&pos);
            self.meshed.insert(pos);
            self.draw(pos, finished.solid);
        }
    }

    /// Chunks in render range that are done. `meshed` only ever holds
    /// positions inside the render distance (it is pruned on every
    /// recentre), so no per-frame walk over the wanted list is needed.
    pub fn done_count(&self) -> usize {
        self.meshed.len()
    }

    /// Queued, meshing or waiting for upload.
    pub fn pending(&self) -> usize {
        self.queue.len() + self.meshing.len() + self.uploads.len()
    }

    #[cfg(debug_assertions)]
    pub fn all_within(&self, range: &Range) -> bool {
        self.meshed.iter().all(|&p| range.renders(p))
    }
}

impl Drop for MeshPipeline {
    fn drop(&mut self) {
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::block::BlockId;

    fn stone(pos: ChunkPos) -> Arc<Chunk> {
        Arc::new(Chunk::uniform(pos, BlockId::STONE))
    }

    #[test]
    fn only_a_bounded_number_of_jobs_hold_chunks() {
        let mut m = MeshPipeline::spawn();
        let queued = 3 * MAX_IN_PIPELINE;
        for x in 0..queued as i32 {
            m.enqueue(ChunkPos::new(x, 0, 0));
            m.enqueue(ChunkPos::new(x, 0, 0));
        }
        assert_eq!(m.pending(), queued, "a position is queued once");
        let mut gathered = 0;
        m.dispatch(MAX_IN_PIPELINE, Instant::now() + Duration::from_secs(60), |p| {
            gathered += 1;
            Some(MeshInput { chunks: vec![stone(p); 27], light: None })
        });
        assert_eq!(gathered, MAX_IN_PIPELINE, "neighbourhoods are gathered only for jobs sent");
        assert_eq!(m.pending(), queued);
        // Out of range, the queue forgets positions without meshing them.
        m.retain(&Range::new(ChunkPos::new(0, 0, 0), 2));
        assert!(m.pending() <= MAX_IN_PIPELINE + 3, "{}", m.pending());
    }

    #[test]
    fn the_stages_of_a_chunks_latency_add_up_to_the_whole() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let s =
            Stamps { wanted: t0, loaded: Some(ms(40)), queued: Some(ms(50)), sent: Some(ms(80)), back: Some(ms(95)) };
        let r = s.stages(ms(100));
        let d = Duration::from_millis;
        assert_eq!(r.stages(), [d(40), d(10), d(30), d(15), d(5)]);
        assert_eq!(r.total, d(100));
        // A stage never stamped took no time; one stamped before the stage
        // ahead of it (passed again after a re-mesh) counts from that one.
        let s = Stamps { wanted: t0, loaded: None, queued: Some(ms(30)), sent: Some(ms(20)), back: Some(ms(60)) };
        let r = s.stages(ms(70));
        assert_eq!(r.stages(), [d(0), d(30), d(0), d(30), d(10)]);
        assert_eq!(r.stages().iter().sum::<Duration>(), r.total);
    }
}
