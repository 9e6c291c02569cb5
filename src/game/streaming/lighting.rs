//! The "lit" stage: a light thread keeps the light of the chunks near the
//! player ([`crate::light::LightMap`]) as they arrive and leave, and hands
//! each changed chunk's light back to the streamer, shared rather than
//! copied (dense light is an `Arc`). A chunk near the player is meshed only
//! once it, its 26 neighbours and the chunks above them are lit, and again
//! whenever light its mesh reads changes.
//!
//! Edits are applied on the game thread under the light lock, between two
//! of the light thread's steps, so an edit's light is in the meshes of the
//! very next frame. Every batch of light carries a sequence number, so a
//! batch the light thread sent before an edit can never overwrite the
//! edit's newer light.

use crate::light::{BlockSource, ChunkLight, LightMap};
use crate::world::chunk::Chunk;
use crate::world::coords::{column_index, ChunkPos, ColumnPos, CHUNK_SIZE};
use crate::world::edits::BlockPos;
use crate::worldgen::decorate::decoration_top;
use crate::worldgen::generator::ColumnData;
use crate::worldgen::WorldGen;
use crossbeam_channel::{Receiver, Sender};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

enum LightMsg {
    Add(Arc<Chunk>),
    Remove(ChunkPos),
}

/// Light of changed chunks after light step `seq`.
struct LightBatch {
    seq: u64,
    lights: Vec<(ChunkPos, Option<ChunkLight>)>,
}

struct LightState {
    map: LightMap,
    chunks: FxHashMap<ChunkPos, Arc<Chunk>>,
    /// Edited blocks of chunks whose `Add` is still on its way.
    newer: HashMap<ChunkPos, Arc<Chunk>>,
    world: Arc<WorldGen>,
    seq: u64,
}

/// The light engine's view of the blocks.
struct Blocks<'a> {
    chunks: &'a FxHashMap<ChunkPos, Arc<Chunk>>,
    world: &'a WorldGen,
    /// The column `sky_above` last read: it is asked for every block
    /// column of a chunk in turn, and each fetch takes the generator's
    /// cache lock, which the generation workers use too.
    column: RefCell<Option<(ColumnPos, Arc<ColumnData>)>>,
}

impl<'a> Blocks<'a> {
    fn new(chunks: &'a FxHashMap<ChunkPos, Arc<Chunk>>, world: &'a WorldGen) -> Self {
        Blocks { chunks, world, column: RefCell::new(None) }
    }
}

impl BlockSource for Blocks<'_> {
    fn chunk(&self, pos: ChunkPos) -> Option<&Chunk> {
        self.chunks.get(&pos).map(|c| &**c)
    }

    /// Above the lit range the world is as generated: sky falls into a
    /// block column above its terrain, plants and the column's trees.
    /// (A player's build above the lit range does not shade what is below.)
    fn sky_above(&self, pos: ChunkPos, x: usize, z: usize) -> bool {
        let col = pos.column();
        let column = match &mut *self.column.borrow_mut() {
            Some((c, data)) if *c == col => data.clone(),
            slot => {
                let data = self.world.column(col);
                *slot = Some((col, data.clone()));
                data
            }
        };
        let height = column.heightmap.heights[column_index(x, z)];
        let top = decoration_top(&self.world.params, height, column.decorations.tree_top);
        (pos.y as i64 + 1) * CHUNK_SIZE as i64 > top as i64
    }
}

impl LightState {
    fn step(&mut self, msg: LightMsg) {
        let LightState { map, chunks, newer, world, .. } = self;
        match msg {
            LightMsg::Add(chunk) => {
                let pos = chunk.pos;
                let chunk = newer.remove(&pos).unwrap_or(chunk);
                chunks.insert(pos, chunk);
                map.add_chunk(&Blocks::new(chunks, world), pos);
            }
            LightMsg::Remove(pos) => {
                newer.remove(&pos);
                map.remove_chunk(&Blocks::new(chunks, world), pos);
                chunks.remove(&pos);
            }
        }
    }

    /// The light of every chunk changed since the last batch.
    fn batch(&mut self) -> LightBatch {
        self.seq += 1;
        let lights = self.map.take_changed().into_iter().map(|p| (p, self.map.chunk_light(p).cloned())).collect();
        LightBatch { seq: self.seq, lights }
    }
}

fn lock(state: &Mutex<LightState>) -> MutexGuard<'_, LightState> {
    // A panic on the light thread leaves the map as its last step left it;
    // light is never saved, so carrying on is safe.
    state.lock().unwrap_or_else(|e| e.into_inner())
}

pub struct LightStage {
    inbox: Option<Sender<LightMsg>>,
    outbox: Receiver<LightBatch>,
    state: Arc<Mutex<LightState>>,
    /// Chunks handed to the light thread and not taken back.
    sent: HashSet<ChunkPos>,
    /// The newest light of each lit chunk, with the step it came from.
    lights: HashMap<ChunkPos, (u64, ChunkLight)>,
    worker: Option<std::thread::JoinHandle<()>>,
}

impl LightStage {
    pub fn spawn(world: Arc<WorldGen>) -> LightStage {
        let state = Arc::new(Mutex::new(LightState {
            map: LightMap::new(),
            chunks: FxHashMap::default(),
            newer: HashMap::new(),
            world,
            seq: 0,
        }));
        let (inbox, rx) = crossbeam_channel::unbounded::<LightMsg>();
        let (tx, outbox) = crossbeam_channel::unbounded();
        let shared = state.clone();
        let worker = std::thread::Builder::new()
            .name("light".into())
            .spawn(move || {
                while let Ok(msg) = rx.recv() {
                    let batch = {
                        let mut st = lock(&shared);
                        st.step(msg);
                        st.batch()
                    };
                    if !batch.lights.is_empty() && tx.send(batch).is_err() {
                        return;
                    }
                }
            })
            .expect("spawning the light thread");
        LightStage {
            inbox: Some(inbox),
            outbox,
            state,
            sent: HashSet::new(),
            lights: HashMap::new(),
            worker: Some(worker),
        }
    }

    pub fn is_sent(&self, pos: ChunkPos) -> bool {
        self.sent.contains(&pos)
    }

    pub fn sent(&self) -> impl Iterator<Item = &ChunkPos> {
        self.sent.iter()
    }

    /// Hands a newly loaded chunk to the light thread.
    pub fn add(&mut self, chunk: Arc<Chunk>) {
        if self.sent.insert(chunk.pos) {
            if let Some(tx) = &self.inbox {
                let _ = tx.send(LightMsg::Add(chunk));
            }
        }
    }

    /// Takes a chunk back (it left the lit range).
    pub fn remove(&mut self, pos: ChunkPos) {
        if self.sent.remove(&pos) {
            self.lights.remove(&pos);
            if let Some(tx) = &self.inbox {
                let _ = tx.send(LightMsg::Remove(pos));
            }
        }
    }

    pub fn light(&self, pos: ChunkPos) -> Option<&ChunkLight> {
        self.lights.get(&pos).map(|(_, l)| l)
    }

    /// Takes in the light the light thread finished; returns the chunks
    /// whose light (or light their meshes read) changed.
    pub fn poll(&mut self) -> Vec<ChunkPos> {
        let mut changed = Vec::new();
        while let Ok(batch) = self.outbox.try_recv() {
            self.apply(batch, &mut changed);
        }
        changed
    }

    fn apply(&mut self, batch: LightBatch, changed: &mut Vec<ChunkPos>) {
        for (pos, light) in batch.lights {
            if !self.sent.contains(&pos) {
                continue;
            }
            if let Some(light) = light {
                match self.lights.get(&pos) {
                    Some((seq, _)) if *seq > batch.seq => continue,
                    _ => {
                        self.lights.insert(pos, (batch.seq, light));
                    }
                }
            }
            changed.push(pos);
        }
    }

    /// A block of `chunk` changed (the chunk as it is now): updates light
    /// right here and returns the chunks whose meshes read changed light.
    pub fn edit(&mut self, chunk: Arc<Chunk>, block: BlockPos) -> Vec<ChunkPos> {
        if !self.sent.contains(&chunk.pos) {
            return Vec::new();
        }
        let batch = {
            let mut st = lock(&self.state);
            let LightState { map, chunks, newer, world, .. } = &mut *st;
            match chunks.get_mut(&chunk.pos) {
                Some(held) => {
                    *held = chunk;
                    map.block_changed(&Blocks::new(chunks, world), block);
                }
                None => {
                    newer.insert(chunk.pos, chunk);
                }
            }
            st.batch()
        };
        let mut changed = Vec::new();
        self.apply(batch, &mut changed);
        changed
    }

    /// Bytes of dense light held (shared with the light thread).
    pub fn heap_bytes(&self) -> usize {
        lock(&self.state).map.heap_bytes()
    }
}

impl Drop for LightStage {
    fn drop(&mut self) {
        self.inbox = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
