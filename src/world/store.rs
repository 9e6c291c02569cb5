//! The world store: the chunk data the game holds, and the player's edits.
//!
//! Generated chunks come in from the generation service; the store applies
//! the edits it knows for them and owns the result. Edits are kept as
//! per-chunk deltas for every chunk ever edited (loaded or not), so a chunk
//! can be evicted at any time and comes back the same when it is generated
//! again. Each chunk moves through stages (generated → edited → meshed; the
//! decoration and light passes will slot in before meshing); an edit sends
//! the chunks whose meshes it touches back to be meshed again.

use super::block::BlockId;
use super::chunk::Chunk;
use super::coords::{block_index, ChunkPos, CHUNK_SIZE};
use super::edits::{set_in_chunk, BlockPos, ChunkEdits};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Where a loaded chunk is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// As generation made it (no edits exist for it).
    Generated,
    /// Edits applied; its blocks are final until the next edit.
    Edited,
    /// Its current blocks are meshed.
    Meshed,
}

struct Stored {
    chunk: Arc<Chunk>,
    stage: Stage,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StoreError {
    #[error("block {0} is beyond the world's chunk range")]
    OutOfRange(BlockPos),
}

#[derive(Default)]
pub struct ChunkStore {
    loaded: HashMap<ChunkPos, Stored>,
    edits: HashMap<ChunkPos, ChunkEdits>,
    /// Chunks whose edits changed since the last `take_unsaved`.
    unsaved: HashSet<ChunkPos>,
}

impl ChunkStore {
    pub fn new() -> ChunkStore {
        ChunkStore::default()
    }

    /// Starts from saved edits (all chunks unsaved flags clear).
    pub fn with_edits(edits: HashMap<ChunkPos, ChunkEdits>) -> ChunkStore {
        ChunkStore { edits, ..ChunkStore::default() }
    }

    /// Takes in a generated chunk, applies its edits, and returns it.
    pub fn insert_generated(&mut self, mut chunk: Chunk) -> Arc<Chunk> {
        let stage = match self.edits.get(&chunk.pos) {
            Some(e) => {
                e.apply(&mut chunk);
                Stage::Edited
            }
            None => Stage::Generated,
        };
        let chunk = Arc::new(chunk);
        self.loaded.insert(chunk.pos, Stored { chunk: chunk.clone(), stage });
        chunk
    }

    pub fn get(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.loaded.get(&pos).map(|s| &s.chunk)
    }

    pub fn contains(&self, pos: ChunkPos) -> bool {
        self.loaded.contains_key(&pos)
    }

    pub fn stage(&self, pos: ChunkPos) -> Option<Stage> {
        self.loaded.get(&pos).map(|s| s.stage)
    }

    /// Records that `pos` is meshed as it is now.
    pub fn mark_meshed(&mut self, pos: ChunkPos) {
        if let Some(s) = self.loaded.get_mut(&pos) {
            s.stage = Stage::Meshed;
        }
    }

    pub fn loaded_count(&self) -> usize {
        self.loaded.len()
    }

    /// Bytes of chunk data held: each loaded chunk's record and its blocks
    /// (uniform chunks have none), not counting the map itself.
    pub fn data_bytes(&self) -> usize {
        self.loaded
            .values()
            .map(|s| std::mem::size_of::<Stored>() + std::mem::size_of::<Chunk>() + s.chunk.blocks().heap_bytes())
            .sum()
    }

    /// The block at `pos`, if its chunk is loaded.
    pub fn block(&self, pos: BlockPos) -> Option<BlockId> {
        let [x, y, z] = pos.local();
        self.get(pos.chunk()?).map(|c| c.blocks().get(x, y, z))
    }

    /// Sets a block. The edit is kept whether or not its chunk is loaded;
    /// returns the loaded chunks whose meshes it touches (its own, and the
    /// neighbours that see it across a border, diagonals included, since
    /// ambient occlusion reads them), which go back to their data stage.
    pub fn set_block(&mut self, pos: BlockPos, block: BlockId) -> Result<Vec<ChunkPos>, StoreError> {
        let cpos = pos.chunk().ok_or(StoreError::OutOfRange(pos))?;
        let [x, y, z] = pos.local();
        let index = block_index(x, y, z);
        self.edits.entry(cpos).or_default().set(index, block);
        self.unsaved.insert(cpos);
        let Some(stored) = self.loaded.get_mut(&cpos) else { return Ok(Vec::new()) };
        // Copy on write: meshers may still hold the old version.
        set_in_chunk(Arc::make_mut(&mut stored.chunk), index, block);
        let offsets = |l: usize| -> &'static [i32] {
            match l {
                0 => &[0, -1],
                l if l == CHUNK_SIZE - 1 => &[0, 1],
                _ => &[0],
            }
        };
        let mut touched = Vec::new();
        for &dz in offsets(z) {
            for &dy in offsets(y) {
                for &dx in offsets(x) {
                    let n = ChunkPos::new(cpos.x.wrapping_add(dx), cpos.y.wrapping_add(dy), cpos.z.wrapping_add(dz));
                    let edited = self.edits.contains_key(&n);
                    if let Some(s) = self.loaded.get_mut(&n) {
                        // Back to its data stage: to be meshed again.
                        s.stage = if edited { Stage::Edited } else { Stage::Generated };
                        touched.push(n);
                    }
                }
            }
        }
        Ok(touched)
    }

    /// Drops loaded chunks `keep` rejects. Their edits stay.
    pub fn evict(&mut self, mut keep: impl FnMut(ChunkPos) -> bool) {
        self.loaded.retain(|p, _| keep(*p));
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
                    assert!(touched.iter().all(|t| store.stage(*t) < Some(Stage::Meshed)));
                    assert_eq!(store.stage(own).map(|s| s == Stage::Edited), store.contains(own).then_some(true));
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
                    store.mark_meshed(pos);
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
        assert_eq!(store.stage(ChunkPos::new(1, 0, 0)), Some(Stage::Meshed), "untouched neighbours keep their mesh");
        assert_eq!(store.stage(ChunkPos::new(-1, 1, 0)), Some(Stage::Generated), "touched: to be meshed again");
        assert_eq!(store.stage(ChunkPos::new(0, 0, 0)), Some(Stage::Edited));
    }
}
