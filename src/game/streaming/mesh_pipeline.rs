//! The mesh pipeline: chunks whose 26 neighbours are loaded go to the
//! mesher threads; finished meshes are uploaded on the game thread within
//! a per-frame byte and time budget. Every mesh carries the edit version of
//! its chunk, so a mesh made from blocks an edit has since changed is
//! dropped when it comes back.

use super::rings::within;
use crate::mesh::{mesh_chunk, ChunkMesh, Neighbourhood};
use crate::render::gpu::Gpu;
use crate::render::world_renderer::WorldRenderer;
use crate::world::chunk::Chunk;
use crate::world::coords::ChunkPos;
use crossbeam_channel::{Receiver, Sender};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
pub fn mesh_of(chunks: &[Arc<Chunk>]) -> ChunkMesh {
    let centre = &chunks[13];
    let mut neighbours = [&centre.blocks; 27];
    for (i, c) in chunks.iter().enumerate() {
        neighbours[i] = &c.blocks;
    }
    mesh_chunk(&Neighbourhood { centre, neighbours })
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

pub struct MeshPipeline {
    /// Bumped by every edit of a chunk.
    versions: HashMap<ChunkPos, u64>,
    meshing: HashSet<ChunkPos>,
    /// Chunks in render range that are drawn, or known to need no mesh.
    meshed: HashSet<ChunkPos>,
    uploads: VecDeque<MeshDone>,
    /// When each chunk was first wanted, until its mesh is up (latency).
    asked_at: HashMap<ChunkPos, Instant>,
    /// Wanted (in range) → mesh on the GPU, per chunk with a mesh.
    pub ready_latencies: Vec<Duration>,
    jobs: Option<Sender<MeshJob>>,
    done: Receiver<MeshDone>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl MeshPipeline {
    /// One mesher thread per core but one (the game thread keeps its own).
    pub fn spawn() -> MeshPipeline {
        let (jobs, job_rx) = crossbeam_channel::unbounded();
        let (done_tx, done) = crossbeam_channel::unbounded();
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).saturating_sub(1).max(1);
        let workers = (0..threads).map(|_| spawn_mesher(job_rx.clone(), done_tx.clone())).collect();
        MeshPipeline {
            versions: HashMap::new(),
            meshing: HashSet::new(),
            meshed: HashSet::new(),
            uploads: VecDeque::new(),
            asked_at: HashMap::new(),
            ready_latencies: Vec::new(),
            jobs: Some(jobs),
            done,
            workers,
        }
    }

    /// Forgets everything outside render range `r` of `centre`.
    pub fn retain(&mut self, centre: ChunkPos, r: i32) {
        self.meshed.retain(|p| within(*p, centre, r));
        self.uploads.retain(|m| within(m.pos, centre, r));
        self.asked_at.retain(|p, _| within(*p, centre, r));
    }

    /// Latency runs from the moment a chunk is wanted to its mesh on the GPU.
    pub fn wanted_since(&mut self, pos: ChunkPos, t: Instant) {
        self.asked_at.entry(pos).or_insert(t);
    }

    /// Meshed, on the mesher threads, or queued for upload.
    pub fn is_settled_or_busy(&self, pos: ChunkPos) -> bool {
        self.meshed.contains(&pos) || self.meshing.contains(&pos)
    }

    pub fn is_meshed(&self, pos: ChunkPos) -> bool {
        self.meshed.contains(&pos)
    }

    /// A chunk with nothing to draw is done without a mesh.
    pub fn settle_empty(&mut self, pos: ChunkPos) {
        self.meshed.insert(pos);
    }

    /// Sends a chunk and its neighbours (z, y, x order) to the meshers.
    pub fn submit(&mut self, pos: ChunkPos, chunks: Vec<Arc<Chunk>>) {
        let version = self.versions.get(&pos).copied().unwrap_or(0);
        if let Some(tx) = &self.jobs {
            if tx.send(MeshJob { pos, version, chunks }).is_ok() {
                self.meshing.insert(pos);
            }
        }
    }

    /// An edit changed `pos`: meshes of it on the way are stale.
    pub fn invalidate(&mut self, pos: ChunkPos) {
        *self.versions.entry(pos).or_default() += 1;
        self.meshing.remove(&pos);
        self.uploads.retain(|m| m.pos != pos);
    }

    /// `pos` was meshed on the game thread (`Some`), or waits for its
    /// neighbours to be meshed again once they arrive (`None`).
    pub fn remeshed(&mut self, pos: ChunkPos, done: bool) {
        if done {
            self.meshed.insert(pos);
        } else {
            self.meshed.remove(&pos);
        }
    }

    /// Takes in finished meshes and uploads them within `budget`; calls
    /// `uploaded` for every chunk that is done.
    pub fn upload(
        &mut self,
        centre: ChunkPos,
        r: i32,
        gpu: &Gpu,
        renderer: &mut WorldRenderer,
        budget: Budget,
        mut uploaded: impl FnMut(ChunkPos),
    ) {
        while let Ok(done) = self.done.try_recv() {
            if self.versions.get(&done.pos).copied().unwrap_or(0) != done.version {
                continue; // made from blocks an edit has since changed
            }
            self.meshing.remove(&done.pos);
            if within(done.pos, centre, r) {
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
            uploaded(done.pos);
        }
    }

    /// Chunks in render range that are done. `meshed` only ever holds
    /// positions inside the render distance (it is pruned on every
    /// recentre), so no per-frame walk over the wanted list is needed.
    pub fn done_count(&self) -> usize {
        self.meshed.len()
    }

    /// Meshing or waiting for upload.
    pub fn pending(&self) -> usize {
        self.meshing.len() + self.uploads.len()
    }

    #[cfg(debug_assertions)]
    pub fn all_within(&self, centre: ChunkPos, r: i32) -> bool {
        self.meshed.iter().all(|p| within(*p, centre, r))
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
