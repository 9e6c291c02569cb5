//! Chunk streaming around the player.
//!
//! Wanted chunks are ordered in rings of chunk distance (Chebyshev, one FIFO
//! per ring as in seed 003), nearest first. At most `max_in_flight` requests
//! are outstanding at the generation service; when the player moves, requests
//! that fell out of range are cancelled before they run, and chunks and
//! meshes beyond the render distance are freed. A chunk is meshed on the
//! mesher threads once it and its 26 neighbours exist; the main thread
//! uploads finished meshes within a per-frame byte and time budget.

use super::engine::{Engine, EngineSwitch, GpuDevice, Switch};
use crate::backend::cpu::CpuBackend;
use crate::backend::service::{Command, Event, GenerationService, DEFAULT_BATCH};
use crate::backend::ChunkBackend;
use crate::mesh::{mesh_chunk, ChunkMesh, Neighbourhood};
use crate::render::gpu::Gpu;
use crate::render::world_renderer::WorldRenderer;
use crate::world::block::BlockId;
use crate::world::chunk::{Chunk, ChunkBlocks};
use crate::world::coords::ChunkPos;
use crate::world::edits::{BlockPos, ChunkEdits};
use crate::world::store::{ChunkStore, StoreError};
use crate::worldgen::WorldGen;
use crossbeam_channel::{Receiver, Sender};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const MIN_RENDER_DISTANCE: i32 = 2;
pub const MAX_RENDER_DISTANCE: i32 = 32;
/// Vertical reach in chunks above and below the player.
pub const MAX_VERTICAL: i32 = 10;

#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub upload_bytes: u64,
    pub upload_time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { upload_bytes: 4 << 20, upload_time: Duration::from_millis(4) }
    }
}

struct MeshJob {
    pos: ChunkPos,
    /// The chunk's edit version when the job was made.
    version: u64,
    chunks: Vec<Arc<Chunk>>,
}

struct MeshDone {
    pos: ChunkPos,
    version: u64,
    mesh: ChunkMesh,
}

/// Meshes the centre of a 3×3×3 block of chunks (z, then y, then x).
fn mesh_of(chunks: &[Arc<Chunk>]) -> ChunkMesh {
    let centre = &chunks[13];
    let mut neighbours = [&centre.blocks; 27];
    for (i, c) in chunks.iter().enumerate() {
        neighbours[i] = &c.blocks;
    }
    mesh_chunk(&Neighbourhood { centre, neighbours })
}

#[derive(Clone, Copy, Debug, Default)]
pub struct StreamCounts {
    pub loaded: usize,
    pub queued: usize,
    pub generating: usize,
    pub meshing: usize,
    pub meshes: usize,
    pub wanted: usize,
    pub complete: usize,
}

pub struct ChunkStreamer {
    world: Arc<WorldGen>,
    service: GenerationService,
    switch: EngineSwitch,
    /// A line for the player from the last finished device open.
    notice: Option<String>,
    /// Chunk data and the player's edits.
    store: ChunkStore,
    /// Bumped by every edit of a chunk: meshes made from older blocks are dropped.
    versions: HashMap<ChunkPos, u64>,
    /// Sent to the service and not yet back (generated or cancelled).
    in_flight: HashSet<ChunkPos>,
    /// When each chunk was first asked for, until it is meshed (latency).
    asked_at: HashMap<ChunkPos, Instant>,
    meshing: HashSet<ChunkPos>,
    meshed: HashSet<ChunkPos>,
    uploads: VecDeque<MeshDone>,
    mesh_tx: Option<Sender<MeshJob>>,
    mesh_rx: Receiver<MeshDone>,
    workers: Vec<std::thread::JoinHandle<()>>,
    centre: ChunkPos,
    render_distance: i32,
    wanted: Vec<ChunkPos>,
    cursor: usize,
    /// The ring just outside the render distance: data for meshing the edge.
    edge: Vec<ChunkPos>,
    edge_cursor: usize,
    /// Sorted (wanted, edge) offsets for a render distance.
    offsets: (i32, Vec<Offset>, Vec<Offset>),
    max_in_flight: usize,
    /// Wanted (in range) → mesh on the GPU, per chunk with a mesh.
    pub ready_latencies: Vec<Duration>,
    generated_total: u64,
    started: bool,
    /// The render distance the current `meshed` set was built for.
    meshed_distance: i32,
}

/// A chunk offset (dx, dy, dz) from the streaming centre.
type Offset = (i32, i32, i32);

/// Vertical reach for a render distance.
pub fn vertical(r: i32) -> i32 {
    r.min(MAX_VERTICAL)
}

/// Chunks within `r` horizontally and `v` vertically of `centre`, nearest ring first.
pub fn rings(centre: ChunkPos, r: i32) -> Vec<ChunkPos> {
    rings_hv(centre, r, vertical(r))
}

fn rings_hv(centre: ChunkPos, r: i32, v: i32) -> Vec<ChunkPos> {
    ring_offsets(r, v).iter().map(|&o| offset(centre, o)).collect()
}

/// Offsets within (r, v), nearest ring first. Sorting is done once per
/// render distance, not on every chunk crossing.
fn ring_offsets(r: i32, v: i32) -> Vec<Offset> {
    let mut out = Vec::with_capacity(((2 * r + 1) * (2 * r + 1) * (2 * v + 1)) as usize);
    for dz in -r..=r {
        for dy in -v..=v {
            for dx in -r..=r {
                out.push((dx, dy, dz));
            }
        }
    }
    out.sort_by_key(|&(dx, dy, dz)| (dx.abs().max(dy.abs()).max(dz.abs()), dx * dx + dy * dy + dz * dz, dx, dy, dz));
    out
}

fn offset(c: ChunkPos, (dx, dy, dz): Offset) -> ChunkPos {
    ChunkPos::new(c.x.saturating_add(dx), c.y.saturating_add(dy), c.z.saturating_add(dz))
}

/// Within render distance `r` (horizontal `r`, vertical `vertical(r)`).
fn within(a: ChunkPos, b: ChunkPos, r: i32) -> bool {
    within_hv(a, b, r, vertical(r))
}

/// Within the data range: one more ring on every side than the render
/// distance, so the chunks at the edge have all their neighbours for meshing.
fn within_data(a: ChunkPos, b: ChunkPos, r: i32) -> bool {
    within_hv(a, b, r + 1, vertical(r) + 1)
}

fn within_hv(a: ChunkPos, b: ChunkPos, r: i32, v: i32) -> bool {
    let d = |p: i32, q: i32| (p as i64 - q as i64).abs();
    d(a.x, b.x) <= r as i64 && d(a.z, b.z) <= r as i64 && d(a.y, b.y) <= v as i64
}

fn spawn_mesher(rx: Receiver<MeshJob>, tx: Sender<MeshDone>) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("mesher".into())
        .spawn(move || {
            while let Ok(job) = rx.recv() {
                let mesh = mesh_of(&job.chunks);
                if tx.send(MeshDone { pos: job.pos, version: job.version, mesh }).is_err() {
                    return;
                }
            }
        })
        .expect("spawning a mesher thread")
}

impl ChunkStreamer {
    pub fn new(world: Arc<WorldGen>, engine: Engine, gpu_device: GpuDevice, render_distance: i32) -> ChunkStreamer {
        Self::with_edits(world, engine, gpu_device, render_distance, HashMap::new())
    }

    /// A streamer over a saved world's edits.
    pub fn with_edits(
        world: Arc<WorldGen>,
        engine: Engine,
        gpu_device: GpuDevice,
        render_distance: i32,
        edits: HashMap<ChunkPos, ChunkEdits>,
    ) -> ChunkStreamer {
        let cpu: Arc<dyn ChunkBackend> = Arc::new(CpuBackend::parallel(world.clone()));
        let service = GenerationService::spawn(cpu, DEFAULT_BATCH);
        let (mesh_tx, job_rx) = crossbeam_channel::unbounded();
        let (done_tx, mesh_rx) = crossbeam_channel::unbounded();
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).saturating_sub(1).max(1);
        let workers = (0..threads).map(|_| spawn_mesher(job_rx.clone(), done_tx.clone())).collect();
        let mut s = ChunkStreamer {
            switch: EngineSwitch::new(world.clone(), gpu_device),
            notice: None,
            world,
            service,
            store: ChunkStore::with_edits(edits),
            versions: HashMap::new(),
            in_flight: HashSet::new(),
            asked_at: HashMap::new(),
            meshing: HashSet::new(),
            meshed: HashSet::new(),
            uploads: VecDeque::new(),
            mesh_tx: Some(mesh_tx),
            mesh_rx,
            workers,
            centre: ChunkPos::new(0, 0, 0),
            render_distance: render_distance.clamp(MIN_RENDER_DISTANCE, MAX_RENDER_DISTANCE),
            wanted: Vec::new(),
            cursor: 0,
            edge: Vec::new(),
            edge_cursor: 0,
            offsets: (-1, Vec::new(), Vec::new()),
            max_in_flight: 4 * DEFAULT_BATCH,
            ready_latencies: Vec::new(),
            generated_total: 0,
            started: false,
            meshed_distance: 0,
        };
        s.set_lists();
        s.set_engine(engine);
        s
    }

    /// The engine generating now (the GPU may still be opening).
    pub fn engine(&self) -> Engine {
        self.switch.active()
    }

    /// Why the GPU is not generating, if it is not.
    pub fn gpu_off_reason(&self) -> Option<String> {
        self.switch.off_reason()
    }

    pub fn backend_label(&self) -> String {
        self.switch.label()
    }

    /// Switches generation; requests in flight are kept. A device is opened
    /// off this thread: until it is ready (see [`Self::take_notice`]) the
    /// CPU carries on.
    pub fn set_engine(&mut self, engine: Engine) -> Switch {
        self.switch.request(engine, &self.service)
    }

    /// Waits for a device being opened; headless runs start measuring only
    /// once the engine they asked for is running.
    pub fn wait_for_engine(&mut self, timeout: Duration) -> Switch {
        self.switch.wait_opened(&self.service, timeout)
    }

    /// A line for the player when a device open finished (on, or why not).
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    /// The longest the game thread spent in one engine-switch call.
    pub fn longest_switch_call(&self) -> Duration {
        self.switch.longest_call()
    }

    pub fn render_distance(&self) -> i32 {
        self.render_distance
    }

    pub fn set_render_distance(&mut self, r: i32, renderer: &mut WorldRenderer) {
        let r = r.clamp(MIN_RENDER_DISTANCE, MAX_RENDER_DISTANCE);
        if r != self.render_distance {
            self.render_distance = r;
            self.recentre(self.centre, renderer, true);
        }
    }

    fn set_lists(&mut self) {
        let (c, r) = (self.centre, self.render_distance);
        if self.offsets.0 != r {
            let wanted = ring_offsets(r, vertical(r));
            let edge = ring_offsets(r + 1, vertical(r) + 1)
                .into_iter()
                .filter(|&(dx, dy, dz)| dx.abs() > r || dz.abs() > r || dy.abs() > vertical(r))
                .collect();
            self.offsets = (r, wanted, edge);
        }
        self.wanted = self.offsets.1.iter().map(|&o| offset(c, o)).collect();
        self.edge = self.offsets.2.iter().map(|&o| offset(c, o)).collect();
        self.cursor = 0;
        self.edge_cursor = 0;
    }

    fn recentre(&mut self, centre: ChunkPos, renderer: &mut WorldRenderer, force: bool) {
        if centre == self.centre && !force {
            return;
        }
        let (old_centre, old_r) = (self.centre, self.meshed_distance);
        self.centre = centre;
        let r = self.render_distance;
        self.meshed_distance = r;
        self.set_lists();
        self.service.send(Command::Retain { center: centre, radius: r + 1 });
        // Keep one extra ring of data so meshes at the edge keep their neighbours.
        self.store.evict(|p| within_data(p, centre, r));
        self.meshed.retain(|p| within(*p, centre, r));
        self.uploads.retain(|m| within(m.pos, centre, r));
        // Latency runs from the moment a chunk is wanted to its mesh on the GPU.
        self.asked_at.retain(|p, _| within(*p, centre, r));
        renderer.retain(|p| within(p, centre, r));
        // Chunks that just came into range may already have all their
        // neighbours: no arrival will trigger them, so try them now.
        let now = Instant::now();
        let entering: Vec<ChunkPos> =
            self.wanted.iter().copied().filter(|p| force || !within(*p, old_centre, old_r)).collect();
        for p in entering {
            if !self.meshed.contains(&p) {
                self.asked_at.entry(p).or_insert(now);
                if self.store.contains(p) {
                    self.try_mesh(p);
                }
            }
        }
    }

    fn try_mesh(&mut self, pos: ChunkPos) {
        if self.meshed.contains(&pos) || self.meshing.contains(&pos) || !within(pos, self.centre, self.render_distance)
        {
            return;
        }
        let Some(centre) = self.store.get(pos) else { return };
        // Air and buried chunks have nothing to draw.
        if centre.blocks.uniform() == Some(BlockId::AIR) {
            self.meshed.insert(pos);
            return;
        }
        let Some(chunks) = self.neighbourhood(pos) else { return };
        let opaque = |c: &Chunk| matches!(c.blocks, ChunkBlocks::Uniform(b) if b.info().opaque());
        if opaque(&chunks[13]) && [4, 10, 12, 14, 16, 22].iter().all(|&i| opaque(&chunks[i])) {
            self.meshed.insert(pos);
            return;
        }
        let version = self.versions.get(&pos).copied().unwrap_or(0);
        if let Some(tx) = &self.mesh_tx {
            if tx.send(MeshJob { pos, version, chunks }).is_ok() {
                self.meshing.insert(pos);
            }
        }
    }

    /// The chunk and its 26 neighbours, if all are loaded.
    fn neighbourhood(&self, pos: ChunkPos) -> Option<Vec<Arc<Chunk>>> {
        let mut chunks = Vec::with_capacity(27);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    chunks.push(self.store.get(ChunkPos::new(pos.x + dx, pos.y + dy, pos.z + dz))?.clone());
                }
            }
        }
        Some(chunks)
    }

    /// The block at `pos`, if its chunk is loaded.
    pub fn block(&self, pos: BlockPos) -> Option<BlockId> {
        self.store.block(pos)
    }

    /// Sets a block and re-meshes every loaded chunk the edit touches right
    /// here, ahead of all streaming work, so the change shows in the next
    /// frame (a chunk meshes in tens of microseconds). Meshes of those
    /// chunks still on the mesher threads are dropped when they come back.
    pub fn set_block(
        &mut self,
        pos: BlockPos,
        block: BlockId,
        gpu: &Gpu,
        renderer: &mut WorldRenderer,
    ) -> Result<(), StoreError> {
        for c in self.store.set_block(pos, block)? {
            *self.versions.entry(c).or_default() += 1;
            self.meshing.remove(&c);
            self.uploads.retain(|m| m.pos != c);
            if !within(c, self.centre, self.render_distance) {
                continue;
            }
            match self.neighbourhood(c) {
                Some(chunks) => {
                    let mesh = mesh_of(&chunks);
                    if mesh.is_empty() {
                        renderer.remove(c);
                    } else {
                        renderer.upload(gpu, c, &mesh);
                    }
                    self.meshed.insert(c);
                    self.store.mark_meshed(c);
                }
                // Meshed once its neighbours arrive.
                None => {
                    self.meshed.remove(&c);
                }
            }
        }
        Ok(())
    }

    /// Edited chunk deltas not yet handed out for saving.
    pub fn take_unsaved(&mut self) -> Vec<(ChunkPos, ChunkEdits)> {
        self.store.take_unsaved()
    }

    /// One frame of streaming: take in generated chunks and finished meshes,
    /// issue new requests, upload within `budget`.
    pub fn update(&mut self, player_chunk: ChunkPos, gpu: &Gpu, renderer: &mut WorldRenderer, budget: Budget) {
        self.recentre(player_chunk, renderer, !self.started);
        self.started = true;
        if let Some(n) = self.switch.poll(&self.service) {
            self.notice = Some(n);
        }

        while let Some(event) = self.service.try_next() {
            match event {
                Event::Generated { chunk, .. } => {
                    self.generated_total += 1;
                    let pos = chunk.pos;
                    self.in_flight.remove(&pos);
                    if !within_data(pos, self.centre, self.render_distance) {
                        continue;
                    }
                    self.store.insert_generated(chunk);
                    for dz in -1..=1 {
                        for dy in -1..=1 {
                            for dx in -1..=1 {
                                self.try_mesh(ChunkPos::new(pos.x + dx, pos.y + dy, pos.z + dz));
                            }
                        }
                    }
                }
                Event::Cancelled(pos) => {
                    self.in_flight.remove(&pos);
                }
            }
        }

        // New requests, nearest first (then the edge ring), up to the in-flight bound.
        let mut room = self.max_in_flight.saturating_sub(self.in_flight.len());
        let mut batch = Vec::new();
        for (list, cursor) in [(&self.wanted, &mut self.cursor), (&self.edge, &mut self.edge_cursor)] {
            while room > 0 && *cursor < list.len() {
                let p = list[*cursor];
                *cursor += 1;
                if !self.store.contains(p) && !self.in_flight.contains(&p) {
                    self.in_flight.insert(p);
                    batch.push(p);
                    room -= 1;
                }
            }
        }
        if !batch.is_empty() {
            self.service.send(Command::Generate(batch));
        }
        // Everything asked for and still incomplete (a request was cancelled
        // and the player came back): walk the lists again.
        if self.cursor >= self.wanted.len()
            && self.edge_cursor >= self.edge.len()
            && self.in_flight.is_empty()
            && !self.is_complete()
        {
            self.cursor = 0;
            self.edge_cursor = 0;
        }

        while let Ok(done) = self.mesh_rx.try_recv() {
            if self.versions.get(&done.pos).copied().unwrap_or(0) != done.version {
                continue; // made from blocks an edit has since changed
            }
            self.meshing.remove(&done.pos);
            if within(done.pos, self.centre, self.render_distance) {
                self.uploads.push_back(done);
            }
        }
        let start = Instant::now();
        let mut bytes = 0u64;
        while !self.uploads.is_empty() {
            if bytes > 0 && (bytes >= budget.upload_bytes || start.elapsed() >= budget.upload_time) {
                break;
            }
            let Some(done) = self.uploads.pop_front() else { break };
            if !done.mesh.is_empty() {
                bytes += renderer.upload(gpu, done.pos, &done.mesh);
                if let Some(t) = self.asked_at.get(&done.pos) {
                    self.ready_latencies.push(t.elapsed());
                }
            }
            self.asked_at.remove(&done.pos);
            self.meshed.insert(done.pos);
            self.store.mark_meshed(done.pos);
        }
    }

    /// `meshed` only ever holds positions inside the render distance (it is
    /// pruned on every recentre), so its size is the number of wanted chunks
    /// that are done; no per-frame walk over the wanted list.
    fn complete_count(&self) -> usize {
        debug_assert!(self.meshed.iter().all(|p| within(*p, self.centre, self.render_distance)));
        self.meshed.len()
    }

    pub fn counts(&self) -> StreamCounts {
        let st = self.service.stats();
        StreamCounts {
            loaded: self.store.loaded_count(),
            queued: st.queued.load(Ordering::Relaxed),
            generating: st.generating.load(Ordering::Relaxed),
            meshing: self.meshing.len() + self.uploads.len(),
            meshes: 0,
            wanted: self.wanted.len(),
            complete: self.complete_count(),
        }
    }

    /// Every wanted chunk is generated and meshed (or known to need no mesh).
    pub fn is_complete(&self) -> bool {
        self.complete_count() >= self.wanted.len()
    }

    pub fn generated_total(&self) -> u64 {
        self.generated_total
    }

    pub fn chunk(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.store.get(pos)
    }

    pub fn world(&self) -> &Arc<WorldGen> {
        &self.world
    }
}

impl Drop for ChunkStreamer {
    fn drop(&mut self) {
        self.mesh_tx = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_are_nearest_first_and_complete() {
        let r = rings(ChunkPos::new(5, 0, -5), 3);
        assert_eq!(r.len(), 7 * 7 * 7);
        assert_eq!(r[0], ChunkPos::new(5, 0, -5));
        let ring = |p: &ChunkPos| (p.x - 5).abs().max(p.y.abs()).max((p.z + 5).abs());
        assert!(r.windows(2).all(|w| ring(&w[0]) <= ring(&w[1])));
        let unique: HashSet<_> = r.iter().collect();
        assert_eq!(unique.len(), r.len());
    }
}
