//! The world store: the chunk data the game holds, and the player's edits.
//!
//! Generated chunks come in from the generation service; the store applies
//! the edits it knows for them and owns the result, one record per loaded
//! chunk. Edits are kept as per-chunk deltas for every chunk ever edited
//! (loaded or not), so a chunk can be evicted at any time and comes back
//! the same when it is generated again.
//!
//! Every change to what is loaded is reported once, as a change set
//! ([`TerrainChanges`]: chunks new, modified and removed since the last
//! [`ChunkStore::take_changes`]), for the stages downstream to consume.

use super::block::BlockId;
use super::chunk::Chunk;
use super::coords::{block_index, ChunkPos, CHUNK_SIZE};
use super::edits::{BlockPos, ChunkEdits};
use super::visibility::{FaceLinks, LinkIndex};
use rustc_hash::FxHashMap;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// One loaded chunk.
pub struct ChunkRecord {
    pub chunk: Arc<Chunk>,
    /// Bumped by every change to the chunk's blocks (an edit, or a new
    /// copy generated after an eviction); unique across the store's life.
    pub version: u64,
    /// Which of its faces see each other (for visibility culling): known
    /// at once for uniform chunks and after an edit, and from the mesher
    /// for the rest; None (open) until then.
    pub links: Option<FaceLinks>,
}

/// What changed in the store since the last [`ChunkStore::take_changes`],
/// each list in the order the chunks were first changed (generation hands
/// chunks in nearest first, and meshing keeps that order). A chunk evicted
/// and generated again in between is modified; one loaded and evicted in
/// between is absent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TerrainChanges {
    pub new: Vec<ChunkPos>,
    pub modified: Vec<ChunkPos>,
    pub removed: Vec<ChunkPos>,
}

impl TerrainChanges {
    pub fn is_empty(&self) -> bool {
        self.new.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StoreError {
    #[error("block {0} is beyond the world's chunk range")]
    OutOfRange(BlockPos),
}

#[derive(Default)]
pub struct ChunkStore {
    /// Fx-hashed: the renderer's visibility walk reads a record per chunk
    /// it reaches, every frame.
    loaded: FxHashMap<ChunkPos, ChunkRecord>,
    /// The records' links again, by position, for the renderer's walk.
    link_index: LinkIndex,
    edits: HashMap<ChunkPos, ChunkEdits>,
    /// Chunks whose edits changed since the last `take_unsaved`.
    unsaved: HashSet<ChunkPos>,
    /// Chunks touched since the last `take_changes`, with the version they
    /// had when that was taken (None: not loaded then), in the order of
    /// their first change.
    touched: HashMap<ChunkPos, Option<u64>>,
    touch_order: Vec<ChunkPos>,
    next_version: u64,
}

impl ChunkStore {
    pub fn new() -> ChunkStore {
        ChunkStore::default()
    }

    /// Starts from saved edits (all chunks unsaved flags clear).
    pub fn with_edits(edits: HashMap<ChunkPos, ChunkEdits>) -> ChunkStore {
        ChunkStore { edits, ..ChunkStore::default() }
    }

    /// Notes the state of `pos` before its first change since the last take.
    fn touch(&mut self, pos: ChunkPos) {
        let before = self.loaded.get(&pos).map(|r| r.version);
        if let std::collections::hash_map::Entry::Vacant(e) = self.touched.entry(pos) {
            e.insert(before);
            self.touch_order.push(pos);
        }
    }

    fn version(&mut self) -> u64 {
        self.next_version += 1;
        self.next_version
    }

    /// Takes in a generated chunk, applies its edits, and returns it.
    pub fn insert_generated(&mut self, mut chunk: Chunk) -> Arc<Chunk> {
        if let Some(e) = self.edits.get(&chunk.pos) {
            e.apply(&mut chunk);
        }
        let chunk = Arc::new(chunk);
        self.touch(chunk.pos);
        let version = self.version();
        // Known at once where no flood is needed; the mesher finds the rest.
        let links = (chunk.blocks().uniform().is_some() || chunk.is_solid()).then(|| FaceLinks::of(&chunk));
        self.link_index.set(chunk.pos, links);
        self.loaded.insert(chunk.pos, ChunkRecord { chunk: chunk.clone(), version, links });
        chunk
    }

    pub fn get(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.loaded.get(&pos).map(|r| &r.chunk)
    }

    pub fn record(&self, pos: ChunkPos) -> Option<&ChunkRecord> {
        self.loaded.get(&pos)
    }

    /// The face links of `pos` (open when not loaded or not known yet).
    pub fn links(&self, pos: ChunkPos) -> FaceLinks {
        self.link_index.get(pos)
    }

    /// Records the links the mesher found for the chunk's current blocks.
    pub fn set_links(&mut self, pos: ChunkPos, links: FaceLinks) {
        if let Some(r) = self.loaded.get_mut(&pos) {
            r.links = Some(links);
            self.link_index.set(pos, r.links);
        }
    }

    pub fn contains(&self, pos: ChunkPos) -> bool {
        self.loaded.contains_key(&pos)
    }

    /// [`ChunkStore::contains`] from the link index's dense grid where it
    /// can say: streaming asks this of every position in range after each
    /// step across a chunk border, and most are held. The grid answers
    /// only for the chunk last set in a slot, so a miss asks the map; a hit
    /// is exact for positions less than 2 048 chunks from every chunk held.
    pub fn contains_near(&self, pos: ChunkPos) -> bool {
        self.link_index.holds(pos) || self.loaded.contains_key(&pos)
    }

    pub fn loaded_count(&self) -> usize {
        self.loaded.len()
    }

    /// Bytes of chunk data held: each loaded chunk's record and its blocks
    /// (uniform chunks have none), and the link index, not counting the map itself.
    pub fn data_bytes(&self) -> usize {
        self.loaded
            .values()
            .map(|r| std::mem::size_of::<ChunkRecord>() + std::mem::size_of::<Chunk>() + r.chunk.blocks().heap_bytes())
            .sum::<usize>()
            + self.link_index.heap_bytes()
    }

    /// The block at `pos`, if its chunk is loaded.
    pub fn block(&self, pos: BlockPos) -> Option<BlockId> {
        let [x, y, z] = pos.local();
        self.get(pos.chunk()?).map(|c| c.blocks().get(x, y, z))
    }

    /// Sets a block. The edit is kept whether or not its chunk is loaded;
    /// returns the loaded chunks whose meshes it touches (its own, and the
    /// neighbours that see it across a border, diagonals included, since
    /// ambient occlusion reads them).
    pub fn set_block(&mut self, pos: BlockPos, block: BlockId) -> Result<Vec<ChunkPos>, StoreError> {
        self.set_blocks(&[(pos, block)])
    }

    /// [`ChunkStore::set_block`] for many blocks at once: each changed
    /// chunk is copied and its face links found once, not once a block.
    /// Returns the touched chunks, each once. A position beyond the range
    /// refuses the whole batch before anything is written.
    pub fn set_blocks(&mut self, blocks: &[(BlockPos, BlockId)]) -> Result<Vec<ChunkPos>, StoreError> {
        if let Some(&(bad, _)) = blocks.iter().find(|(p, _)| p.chunk().is_none()) {
            return Err(StoreError::OutOfRange(bad));
        }
        let mut changed: Vec<ChunkPos> = Vec::new();
        let mut touched: Vec<ChunkPos> = Vec::new();
        for &(pos, block) in blocks {
            let Some(cpos) = pos.chunk() else { continue };
            let [x, y, z] = pos.local();
            let index = block_index(x, y, z);
            self.edits.entry(cpos).or_default().set(index, block);
            self.unsaved.insert(cpos);
            let Some(before) = self.loaded.get(&cpos).map(|r| r.chunk.blocks().get_index(index)) else {
                continue;
            };
            if before != block {
                self.touch(cpos);
                if !changed.contains(&cpos) {
                    changed.push(cpos);
                }
                if let Some(record) = self.loaded.get_mut(&cpos) {
                    // Copy on write: meshers may still hold the old version.
                    Arc::make_mut(&mut record.chunk).set(index, block);
                }
            }
            let offsets = |l: usize| -> &'static [i32] {
                match l {
                    0 => &[0, -1],
                    l if l == CHUNK_SIZE - 1 => &[0, 1],
                    _ => &[0],
                }
            };
            for &dz in offsets(z) {
                for &dy in offsets(y) {
                    for &dx in offsets(x) {
                        let n =
                            ChunkPos::new(cpos.x.wrapping_add(dx), cpos.y.wrapping_add(dy), cpos.z.wrapping_add(dz));
                        if self.loaded.contains_key(&n) && !touched.contains(&n) {
                            touched.push(n);
                        }
                    }
                }
            }
        }
        for cpos in changed {
            let version = self.version();
            if let Some(record) = self.loaded.get_mut(&cpos) {
                record.version = version;
                record.links = Some(FaceLinks::of(&record.chunk));
                self.link_index.set(cpos, record.links);
            }
        }
        Ok(touched)
    }

    /// Drops loaded chunks `keep` rejects. Their edits stay.
    pub fn evict(&mut self, mut keep: impl FnMut(ChunkPos) -> bool) {
        let gone: Vec<ChunkPos> = self.loaded.keys().copied().filter(|&p| !keep(p)).collect();
        self.evict_these(&gone);
    }

    /// Drops the chunks at `gone` that are loaded (their edits stay).
    pub fn evict_these(&mut self, gone: &[ChunkPos]) {
        for &p in gone {
            if self.loaded.contains_key(&p) {
                self.touch(p);
                self.loaded.remove(&p);
                self.link_index.remove(p);
            }
        }
    }

    /// What changed since the last call.
    pub fn take_changes(&mut self) -> TerrainChanges {
        let mut changes = TerrainChanges::default();
        for pos in std::mem::take(&mut self.touch_order) {
            let before = self.touched.remove(&pos).flatten();
            match (before, self.loaded.get(&pos).map(|r| r.version)) {
                (None, Some(_)) => changes.new.push(pos),
                (Some(_), None) => changes.removed.push(pos),
                (Some(a), Some(b)) if a != b => changes.modified.push(pos),
                _ => {}
            }
        }
        changes
    }

    pub fn edits(&self, pos: ChunkPos) -> Option<&ChunkEdits> {
        self.edits.get(&pos)
    }

    /// Edited chunks and edited blocks, in total.
    pub fn edit_counts(&self) -> (usize, usize) {
        (self.edits.len(), self.edits.values().map(|e| e.len()).sum())
    }

    /// The deltas changed since the last call, to be saved.
    pub fn take_unsaved(&mut self) -> Vec<(ChunkPos, ChunkEdits)> {
        let mut out: Vec<_> = self.unsaved.drain().filter_map(|p| self.edits.get(&p).map(|e| (p, e.clone()))).collect();
        out.sort_by_key(|(p, _)| (p.x, p.y, p.z));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::CpuBackend;
    use crate::backend::ChunkBackend;
    use crate::world::chunk::BlockCounts;
    use crate::worldgen::{Preset, WorldGen};

    /// splitmix64: a small deterministic source of test cases.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Random edits, evictions and regenerations against a plain map of
    /// every edit: loaded chunks always equal generation plus the model's
    /// edits, with their counts right.
    #[test]
    fn random_edits_evictions_and_reloads_agree_with_a_naive_model() {
        let world = Arc::new(WorldGen::new(Preset::classic(), 3));
        let backend = CpuBackend::serial(world);
        let chunks: Vec<ChunkPos> =
            (-1..=0).flat_map(|x| (-1..=0).flat_map(move |y| (0..=1).map(move |z| ChunkPos::new(x, y, z)))).collect();
        let generated: HashMap<ChunkPos, Chunk> =
            backend.generate(&chunks).unwrap().into_iter().map(|c| (c.pos, c)).collect();
        let mut model: HashMap<BlockPos, BlockId> = HashMap::new();
        let mut store = ChunkStore::new();
        let mut rng = Rng(7);
        let blocks: Vec<BlockId> = BlockId::all().collect();
        for step in 0..4000 {
            match rng.below(10) {
                0 => {
                    let c = chunks[rng.below(chunks.len() as u64) as usize];
                    store.insert_generated(generated[&c].clone());
                }
                1 => {
                    let drop = chunks[rng.below(chunks.len() as u64) as usize];
                    store.evict(|p| p != drop);
                }
                _ => {
                    // Positions cluster at chunk borders to cross them often.
                    let coord = |r: &mut Rng| {
                        [-33, -32, -31, -1, 0, 1, 30, 31, 32, 33][r.below(10) as usize] + r.below(2) as i64
                    };
                    let p = BlockPos::new(coord(&mut rng), coord(&mut rng) - 16, coord(&mut rng) + 32);
                    let b = blocks[rng.below(blocks.len() as u64) as usize];
                    let touched = store.set_block(p, b).unwrap();
                    model.insert(p, b);
                    let own = p.chunk().unwrap();
                    assert_eq!(touched.contains(&own), store.contains(own), "step {step}");
                }
            }
            if step % 97 == 0 {
                for c in chunks.iter().filter(|c| store.contains(**c)) {
                    let got = store.get(*c).unwrap();
                    assert_eq!(*got.counts(), BlockCounts::tally(got.blocks()), "step {step}: counts of {c}");
                    for (i, (x, y, z)) in
                        [(0, 0, 0), (31, 31, 31), (0, 31, 1), (31, 0, 30), (1, 1, 1)].into_iter().enumerate()
                    {
                        let p = BlockPos::new(c.x as i64 * 32 + x, c.y as i64 * 32 + y, c.z as i64 * 32 + z);
                        let want = model
                            .get(&p)
                            .copied()
                            .unwrap_or_else(|| generated[c].blocks().get(x as usize, y as usize, z as usize));
                        assert_eq!(store.block(p), Some(want), "step {step}, probe {i} at {p}");
                    }
                }
                for (p, b) in &model {
                    if let Some(got) = store.block(*p) {
                        assert_eq!(got, *b, "step {step}: edit at {p}");
                    }
                }
            }
        }
        let (edited_chunks, edited_blocks) = store.edit_counts();
        assert_eq!(edited_blocks, model.len());
        assert!(edited_chunks > 8, "the edits should cross chunk borders");
    }

    #[test]
    fn an_edit_invalidates_exactly_the_meshes_it_touches() {
        let mut store = ChunkStore::new();
        for z in -1..=1 {
            for y in -1..=1 {
                for x in -1..=1 {
                    let pos = ChunkPos::new(x, y, z);
                    store.insert_generated(Chunk::uniform(pos, BlockId::AIR));
                }
            }
        }
        assert_eq!(store.set_block(BlockPos::new(5, 6, 7), BlockId::STONE).unwrap(), vec![ChunkPos::new(0, 0, 0)]);
        let mut corner = store.set_block(BlockPos::new(0, 31, 15), BlockId::STONE).unwrap();
        corner.sort_by_key(|p| (p.x, p.y, p.z));
        assert_eq!(
            corner,
            vec![ChunkPos::new(-1, 0, 0), ChunkPos::new(-1, 1, 0), ChunkPos::new(0, 0, 0), ChunkPos::new(0, 1, 0)]
        );
        let changes = store.take_changes();
        assert_eq!(changes.new.len(), 27, "all loaded since the store began");
        assert_eq!(changes.new[0], ChunkPos::new(-1, -1, -1), "in the order they came");
        assert_eq!(changes.new[26], ChunkPos::new(1, 1, 1));
        assert!(changes.modified.is_empty() && changes.removed.is_empty());
    }

    /// The change sets against a simple model: a snapshot of what was
    /// loaded (and each chunk's blocks) when the last set was taken. Under
    /// random edits, evictions and reloads, a set names exactly the chunks
    /// that appeared, that went, and that are loaded at both ends with
    /// other blocks or through another generation.
    #[test]
    fn change_sets_match_a_snapshot_model_under_random_work() {
        let world = Arc::new(WorldGen::new(Preset::classic(), 5));
        let backend = CpuBackend::serial(world);
        let chunks: Vec<ChunkPos> =
            (-1..=1).flat_map(|x| (-1..=0).flat_map(move |y| (0..=1).map(move |z| ChunkPos::new(x, y, z)))).collect();
        let generated: HashMap<ChunkPos, Chunk> =
            backend.generate(&chunks).unwrap().into_iter().map(|c| (c.pos, c)).collect();
        let mut store = ChunkStore::new();
        let mut rng = Rng(11);
        // The model: each loaded chunk's generation of its blocks (bumped by
        // every insert and every edit that changes a block), and a copy of
        // it taken with each change set.
        let mut model: HashMap<ChunkPos, u64> = HashMap::new();
        let mut snapshot: HashMap<ChunkPos, u64> = HashMap::new();
        let mut counter = 0u64;
        let mut takes_with_modified = 0;
        for step in 0..3000 {
            counter += 1;
            match rng.below(8) {
                0 | 1 => {
                    let c = chunks[rng.below(chunks.len() as u64) as usize];
                    store.insert_generated(generated[&c].clone());
                    model.insert(c, counter);
                }
                2 => {
                    let drop = chunks[rng.below(chunks.len() as u64) as usize];
                    store.evict(|p| p != drop);
                    model.remove(&drop);
                }
                3..=5 => {
                    let c = chunks[rng.below(chunks.len() as u64) as usize];
                    let p = BlockPos::new(
                        c.x as i64 * 32 + rng.below(32) as i64,
                        c.y as i64 * 32 + rng.below(32) as i64,
                        c.z as i64 * 32 + rng.below(32) as i64,
                    );
                    let b = if rng.below(2) == 0 { BlockId::AIR } else { BlockId::GLASS };
                    let before = store.block(p);
                    store.set_block(p, b).unwrap();
                    if before.is_some_and(|old| old != b) {
                        model.insert(c, counter);
                    }
                }
                _ => {
                    let got = store.take_changes();
                    let sorted = |mut v: Vec<ChunkPos>| {
                        v.sort_by_key(|p| (p.z, p.y, p.x));
                        v
                    };
                    let want = TerrainChanges {
                        new: sorted(model.keys().filter(|p| !snapshot.contains_key(p)).copied().collect()),
                        removed: sorted(snapshot.keys().filter(|p| !model.contains_key(p)).copied().collect()),
                        modified: sorted(
                            model
                                .iter()
                                .filter(|(p, v)| snapshot.get(p).is_some_and(|s| s != *v))
                                .map(|(p, _)| *p)
                                .collect(),
                        ),
                    };
                    let order = |c: &TerrainChanges| TerrainChanges {
                        new: sorted(c.new.clone()),
                        modified: sorted(c.modified.clone()),
                        removed: sorted(c.removed.clone()),
                    };
                    assert_eq!(order(&got), want, "step {step}");
                    takes_with_modified += !got.modified.is_empty() as usize;
                    assert!(store.take_changes().is_empty(), "step {step}: a second take is empty");
                    snapshot = model.clone();
                }
            }
        }
        assert!(takes_with_modified > 20, "the work should modify loaded chunks often");
    }
}
