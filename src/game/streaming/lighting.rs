//! The "lit" stage: a light thread keeps the light of the chunks near the
//! player ([`crate::light::LightMap`]) as they arrive and leave, and hands
//! each changed chunk's light back to the streamer, shared rather than
//! copied (dense light is an `Arc`). A chunk near the player is meshed only
//! once it, its 26 neighbours and the chunks above them are lit, and again
//! whenever light its mesh reads changes.
//!
//! The light thread reads blocks through the store ([`SharedStore`]), a
//! lookup at a time. A chunk it lights stays in the store until the thread
//! has let go of it ([`LightStage::holds`]), and a block changes only
//! under the light lock, between two of its steps: within a step, every
//! chunk it reads stays as it was when the step began.
//!
//! Edits are applied on the game thread under the light lock, so an edit's
//! light is in the meshes of the very next frame. Every batch of light
//! carries a sequence number, so a batch the light thread sent before an
//! edit can never overwrite the edit's newer light.

use super::shared_store::SharedStore;
use crate::light::{BlockSource, ChunkLight, LightMap};
use crate::world::chunk::Chunk;
use crate::world::coords::{column_index, ChunkPos, ColumnPos, CHUNK_SIZE};
use crate::world::edits::BlockPos;
use crate::worldgen::decorate::decoration_top;
use crate::worldgen::generator::ColumnData;
use crate::worldgen::WorldGen;
use crossbeam_channel::{Receiver, Sender};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard};
use typed_arena::Arena;

enum LightMsg {
    Add(ChunkPos),
    Remove(ChunkPos),
    /// Answered once every message before it is done and its light sent.
    #[cfg(test)]
    Flush(Sender<()>),
}

/// Light of changed chunks after light step `seq`, and the chunks the
/// light thread let go of.
struct LightBatch {
    seq: u64,
    lights: Vec<(ChunkPos, Option<ChunkLight>)>,
    released: Vec<ChunkPos>,
}

struct LightState {
    map: LightMap,
    store: SharedStore,
    world: Arc<WorldGen>,
    seq: u64,
    /// Chunks taken out of the map since the last batch.
    released: Vec<ChunkPos>,
}

/// The light engine's view of the blocks during one step: each chunk is
/// looked up in the store once, and held until the step ends.
struct Blocks<'a> {
    store: &'a SharedStore,
    held: &'a Arena<Arc<Chunk>>,
    seen: RefCell<FxHashMap<ChunkPos, Option<&'a Chunk>>>,
    world: &'a WorldGen,
    /// The column `sky_above` last read: it is asked for every block
    /// column of a chunk in turn, and each fetch takes the generator's
    /// cache lock, which the generation workers use too.
    column: RefCell<Option<(ColumnPos, Arc<ColumnData>)>>,
}

impl<'a> Blocks<'a> {
    fn new(store: &'a SharedStore, held: &'a Arena<Arc<Chunk>>, world: &'a WorldGen) -> Self {
        Blocks { store, held, seen: RefCell::default(), world, column: RefCell::new(None) }
    }
}

impl BlockSource for Blocks<'_> {
    fn chunk(&self, pos: ChunkPos) -> Option<&Chunk> {
        if let Some(&seen) = self.seen.borrow().get(&pos) {
            return seen;
        }
        let found = self.store.read().get(pos).cloned().map(|c| &**self.held.alloc(c));
        self.seen.borrow_mut().insert(pos, found);
        found
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
        let LightState { map, store, world, released, .. } = self;
        let held = Arena::new();
        let blocks = Blocks::new(store, &held, world);
        match msg {
            LightMsg::Add(pos) => map.add_chunk(&blocks, pos),
            LightMsg::Remove(pos) => {
                map.remove_chunk(&blocks, pos);
                released.push(pos);
            }
            #[cfg(test)]
            LightMsg::Flush(_) => {}
        }
    }

    /// Light after block `p` changed in the store.
    fn block_changed(&mut self, p: BlockPos) {
        let LightState { map, store, world, .. } = self;
        let held = Arena::new();
        map.block_changed(&Blocks::new(store, &held, world), p);
    }

    /// The light of every chunk changed since the last batch.
    fn batch(&mut self) -> LightBatch {
        self.seq += 1;
        let lights = self.map.take_changed().into_iter().map(|p| (p, self.map.chunk_light(p).cloned())).collect();
        LightBatch { seq: self.seq, lights, released: std::mem::take(&mut self.released) }
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
    sent: FxHashSet<ChunkPos>,
    /// Chunks taken back that the light thread has not let go of yet (a
    /// count: one may be taken back, sent and taken back again meanwhile).
    releasing: FxHashMap<ChunkPos, u32>,
    /// Chunks the light thread let go of since the last `take_released`.
    released: Vec<ChunkPos>,
    /// The newest light of each lit chunk, with the step it came from.
    lights: FxHashMap<ChunkPos, (u64, ChunkLight)>,
    worker: Option<std::thread::JoinHandle<()>>,
}

impl LightStage {
    pub fn spawn(world: Arc<WorldGen>, store: SharedStore) -> LightStage {
        let state =
            Arc::new(Mutex::new(LightState { map: LightMap::new(), store, world, seq: 0, released: Vec::new() }));
        let (inbox, rx) = crossbeam_channel::unbounded::<LightMsg>();
        let (tx, outbox) = crossbeam_channel::unbounded();
        let shared = state.clone();
        let worker = std::thread::Builder::new()
            .name("light".into())
            .spawn(move || {
                while let Ok(msg) = rx.recv() {
                    #[cfg(test)]
                    if let LightMsg::Flush(done) = &msg {
                        let _ = done.send(());
                        continue;
                    }
                    let batch = {
                        let mut st = lock(&shared);
                        st.step(msg);
                        st.batch()
                    };
                    if !(batch.lights.is_empty() && batch.released.is_empty()) && tx.send(batch).is_err() {
                        return;
                    }
                }
            })
            .expect("spawning the light thread");
        LightStage {
            inbox: Some(inbox),
            outbox,
            state,
            sent: FxHashSet::default(),
            releasing: FxHashMap::default(),
            released: Vec::new(),
            lights: FxHashMap::default(),
            worker: Some(worker),
        }
    }

    pub fn sent(&self) -> impl Iterator<Item = &ChunkPos> {
        self.sent.iter()
    }

    /// Whether the light thread may still read the chunk: the store must
    /// keep it until then.
    pub fn holds(&self, pos: ChunkPos) -> bool {
        self.sent.contains(&pos) || self.releasing.contains_key(&pos)
    }

    /// Hands a chunk the store holds to the light thread.
    pub fn add(&mut self, pos: ChunkPos) {
        if self.sent.insert(pos) {
            if let Some(tx) = &self.inbox {
                let _ = tx.send(LightMsg::Add(pos));
            }
        }
    }

    /// Takes a chunk back (it left the lit range).
    pub fn remove(&mut self, pos: ChunkPos) {
        if self.sent.remove(&pos) {
            self.lights.remove(&pos);
            if let Some(tx) = &self.inbox {
                *self.releasing.entry(pos).or_default() += 1;
                let _ = tx.send(LightMsg::Remove(pos));
            }
        }
    }

    /// Chunks the light thread let go of since the last call (the store
    /// may drop those out of range and not held again).
    pub fn take_released(&mut self) -> Vec<ChunkPos> {
        std::mem::take(&mut self.released)
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
        for pos in batch.released {
            if let std::collections::hash_map::Entry::Occupied(mut e) = self.releasing.entry(pos) {
                *e.get_mut() -= 1;
                if *e.get() == 0 {
                    e.remove();
                }
            }
            self.released.push(pos);
        }
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

    /// Changes `block` in the store (`change` does, under the light lock,
    /// so no light step sees the store between the change and its light),
    /// updates light right here, and returns what `change` returned with
    /// the chunks whose meshes read changed light. A chunk whose `add` is
    /// still on its way is lit from the store as it is then, edit included.
    pub fn edit<T, E>(
        &mut self,
        block: BlockPos,
        change: impl FnOnce() -> Result<T, E>,
    ) -> Result<(T, Vec<ChunkPos>), E> {
        let (out, batch) = {
            let mut st = lock(&self.state);
            let out = change()?;
            if block.chunk().is_some_and(|c| self.sent.contains(&c)) {
                st.block_changed(block);
            }
            (out, st.batch())
        };
        let mut changed = Vec::new();
        self.apply(batch, &mut changed);
        Ok((out, changed))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::block::BlockId;
    use crate::world::coords::{block_index, CHUNK_VOLUME};
    use crate::world::store::ChunkStore;
    use crate::worldgen::Preset;

    /// Waits until the light thread has done everything sent so far, and
    /// takes its light in.
    fn settle(stage: &mut LightStage) {
        let (tx, rx) = crossbeam_channel::bounded(1);
        if let Some(inbox) = &stage.inbox {
            inbox.send(LightMsg::Flush(tx)).expect("the light thread runs");
        }
        rx.recv().expect("the light thread answers");
        stage.poll();
    }

    /// A room carved in the rock under the origin with a torch in it.
    fn room() -> Vec<(BlockPos, BlockId)> {
        let mut edits = Vec::new();
        for (x, y, z) in (0..27).map(|i| (i % 3, i / 3 % 3, i / 9)) {
            let block = if (x, y, z) == (1, 1, 1) { BlockId::TORCH } else { BlockId::AIR };
            edits.push((BlockPos::new(10 + x, -50 + y, 12 + z), block));
        }
        edits
    }

    fn light_of(stage: &LightStage, pos: ChunkPos) -> Vec<u32> {
        let light = stage.light(pos).expect("the chunk is lit");
        (0..CHUNK_VOLUME).map(|i| light.get(i).0 as u32).collect()
    }

    /// Deep rock under the origin, lit three ways: edits made before the
    /// chunk reaches the light thread, edits racing its `add`, and no edits.
    #[test]
    fn edits_racing_a_chunks_first_light_end_in_the_light_of_the_edited_chunk() {
        let world = Arc::new(WorldGen::new(Preset::classic(), 3));
        let pos = ChunkPos::new(0, -2, 0);
        let lit = |edit_first: bool, edits: &[(BlockPos, BlockId)]| {
            let store = SharedStore::new(ChunkStore::new());
            store.write().insert_generated(world.generate(pos));
            let mut stage = LightStage::spawn(world.clone(), store.clone());
            if edit_first {
                for &(p, b) in edits {
                    store.write().set_block(p, b).expect("in range");
                }
                stage.add(pos);
            } else {
                stage.add(pos);
                for &(p, b) in edits {
                    stage.edit(p, || store.write().set_block(p, b)).expect("in range");
                }
            }
            settle(&mut stage);
            light_of(&stage, pos)
        };
        let room = room();
        let before = lit(true, &room);
        let torch = block_index(11, 15, 13); // y = -49 in the chunk from -64
        assert!(before[torch] > 0, "the torch gives light");
        for _ in 0..4 {
            assert!(lit(false, &room) == before, "edits racing the add gave other light");
        }
        assert!(lit(true, &[]) != before, "the torch's light is in neither");
    }

    /// The store keeps a chunk the light thread may read: from `remove`
    /// until the thread says it let go.
    #[test]
    fn a_chunk_taken_back_is_held_until_the_light_thread_lets_go() {
        let world = Arc::new(WorldGen::new(Preset::classic(), 3));
        let pos = ChunkPos::new(0, -1, 0);
        let store = SharedStore::new(ChunkStore::new());
        store.write().insert_generated(world.generate(pos));
        let mut stage = LightStage::spawn(world, store);
        assert!(!stage.holds(pos));
        stage.add(pos);
        stage.remove(pos);
        assert!(stage.holds(pos), "taken back, not yet let go");
        assert!(stage.take_released().is_empty());
        settle(&mut stage);
        assert_eq!(stage.take_released(), [pos]);
        assert!(!stage.holds(pos));
    }
}
