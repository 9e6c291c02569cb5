//! The light of every loaded chunk, kept up to date as chunks arrive and
//! leave and blocks change.
//!
//! Changes are flood fills, never whole relights: light is added from
//! sources breadth first, and removed by the classic two-phase fill (clear
//! everything that may have come through the changed block, then let the
//! untouched light around the cleared region flow back in). Only loaded
//! chunks take part; light stops at unloaded ones. Sky enters a column at
//! the top of its highest loaded chunk when [`BlockSource::sky_above`]
//! says the chunk above would let it through.

use super::rules::{props, spread, Props};
use super::value::{Light, CHANNELS, MAX, SKY};
use crate::world::block::BlockId;
use crate::world::chunk::Chunk;
use crate::world::coords::{block_index, ChunkPos, CHUNK_SIZE, CHUNK_VOLUME};
use crate::world::edits::BlockPos;
use std::collections::{HashMap, HashSet, VecDeque};

/// Where the light engine reads blocks.
pub trait BlockSource {
    fn chunk(&self, pos: ChunkPos) -> Option<&Chunk>;

    /// Whether sky falls into the top of `pos` while the chunk above it is
    /// not loaded (it lies above all terrain). Must not change over time.
    fn sky_above(&self, pos: ChunkPos) -> bool;
}

/// One block of one chunk: the unit the fills walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Cell {
    chunk: ChunkPos,
    index: u16,
}

const LAST: usize = CHUNK_SIZE - 1;

/// The six steps; `DOWN` is the one sky keeps its strength along.
const STEPS: [[i32; 3]; 6] = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];
const DOWN: usize = 3;

impl Cell {
    fn new(chunk: ChunkPos, x: usize, y: usize, z: usize) -> Cell {
        Cell { chunk, index: block_index(x, y, z) as u16 }
    }

    fn local(self) -> [usize; 3] {
        let i = self.index as usize;
        [(i >> 5) & LAST, i & LAST, i >> 10]
    }

    fn step(self, d: usize) -> Cell {
        let [x, y, z] = self.local();
        let mut chunk = self.chunk;
        let axis = |v: usize, dv: i32, c: &mut i32| -> usize {
            let n = v as i32 + dv;
            if n < 0 {
                *c -= 1;
                LAST
            } else if n > LAST as i32 {
                *c += 1;
                0
            } else {
                n as usize
            }
        };
        let [dx, dy, dz] = STEPS[d];
        let x = axis(x, dx, &mut chunk.x);
        let y = axis(y, dy, &mut chunk.y);
        let z = axis(z, dz, &mut chunk.z);
        Cell::new(chunk, x, y, z)
    }
}

enum ChunkLight {
    Uniform(Light),
    Dense(Box<[Light]>),
}

impl ChunkLight {
    fn get(&self, index: usize) -> Light {
        match self {
            ChunkLight::Uniform(l) => *l,
            ChunkLight::Dense(v) => v[index],
        }
    }
}

#[derive(Default)]
pub struct LightMap {
    chunks: HashMap<ChunkPos, ChunkLight>,
    /// Chunks whose meshes read light that changed since `take_changed`
    /// (a border block's light is read by the neighbour's mesh too).
    changed: HashSet<ChunkPos>,
}

/// A channel of a cell cleared by a removal fill, with the level it had.
type Removed = (Cell, usize, u8);

impl LightMap {
    pub fn new() -> LightMap {
        LightMap::default()
    }

    pub fn contains(&self, pos: ChunkPos) -> bool {
        self.chunks.contains_key(&pos)
    }

    /// The light at a block, or None where no chunk is lit.
    pub fn get(&self, p: BlockPos) -> Option<Light> {
        let [x, y, z] = p.local();
        Some(self.chunks.get(&p.chunk()?)?.get(block_index(x, y, z)))
    }

    /// The light at a block of a lit chunk.
    pub fn at(&self, chunk: ChunkPos, index: usize) -> Option<Light> {
        Some(self.chunks.get(&chunk)?.get(index))
    }

    /// Every lit chunk's light as one value where it is the same
    /// throughout (open sky, solid rock).
    pub fn uniform(&self, chunk: ChunkPos) -> Option<Light> {
        match self.chunks.get(&chunk)? {
            ChunkLight::Uniform(l) => Some(*l),
            ChunkLight::Dense(_) => None,
        }
    }

    pub fn take_changed(&mut self) -> HashSet<ChunkPos> {
        std::mem::take(&mut self.changed)
    }

    pub fn heap_bytes(&self) -> usize {
        self.chunks.values().map(|c| if let ChunkLight::Dense(v) = c { v.len() * 2 } else { 0 }).sum()
    }

    fn light(&self, c: Cell) -> Light {
        self.chunks.get(&c.chunk).map_or(Light::DARK, |l| l.get(c.index as usize))
    }

    fn set(&mut self, c: Cell, l: Light) {
        let Some(stored) = self.chunks.get_mut(&c.chunk) else { return };
        if let ChunkLight::Uniform(u) = stored {
            if *u == l {
                return;
            }
            *stored = ChunkLight::Dense(vec![*u; CHUNK_VOLUME].into_boxed_slice());
        }
        if let ChunkLight::Dense(v) = stored {
            v[c.index as usize] = l;
        }
        self.mark_changed(c);
    }

    fn mark_changed(&mut self, c: Cell) {
        let near = |v: usize| -> &'static [i32] {
            match v {
                0 => &[0, -1],
                LAST => &[0, 1],
                _ => &[0],
            }
        };
        let [x, y, z] = c.local();
        for &dz in near(z) {
            for &dy in near(y) {
                for &dx in near(x) {
                    self.changed.insert(ChunkPos::new(c.chunk.x + dx, c.chunk.y + dy, c.chunk.z + dz));
                }
            }
        }
    }

    fn block(world: &impl BlockSource, c: Cell) -> BlockId {
        world.chunk(c.chunk).map_or(BlockId::AIR, |ch| ch.blocks.get_index(c.index as usize))
    }

    /// The light a cell has of itself, with no neighbour's help: its
    /// emission, and sky if it tops the highest lit chunk of an open column.
    fn own_light(&self, world: &impl BlockSource, c: Cell, p: &Props) -> Light {
        let mut own = p.emits;
        if c.local()[1] == LAST {
            let above = ChunkPos::new(c.chunk.x, c.chunk.y + 1, c.chunk.z);
            if !self.chunks.contains_key(&above) && world.sky_above(c.chunk) {
                own = own.with_channel(SKY, spread(MAX, SKY, true, p));
            }
        }
        own
    }

    /// Raises a cell to at least its own light; true if that changed it.
    fn restore_own(&mut self, world: &impl BlockSource, c: Cell) -> bool {
        let own = self.own_light(world, c, props(Self::block(world, c)));
        let l = self.light(c);
        let raised = own.max(l);
        if raised != l {
            self.set(c, raised);
        }
        raised != l
    }

    /// Lights a newly loaded chunk (its blocks already in `world`) and lets
    /// its light flow into the lit chunks around it.
    pub fn add_chunk(&mut self, world: &impl BlockSource, pos: ChunkPos) {
        let Some(chunk) = world.chunk(pos) else { return };
        let mut removed = Vec::new();
        // The chunk below had open sky while this one was missing; that
        // sky now comes through this chunk, if at all.
        let below = ChunkPos::new(pos.x, pos.y - 1, pos.z);
        if self.chunks.contains_key(&below) && !self.chunks.contains_key(&pos) && world.sky_above(below) {
            for z in 0..CHUNK_SIZE {
                for x in 0..CHUNK_SIZE {
                    let c = Cell::new(below, x, LAST, z);
                    let sky = self.light(c).sky();
                    if sky > 0 {
                        self.set(c, self.light(c).with_channel(SKY, 0));
                        removed.push((c, SKY, sky));
                    }
                }
            }
        }
        self.chunks.insert(pos, ChunkLight::Uniform(Light::DARK));
        let mut queue = VecDeque::new();
        // Solid rock with no emitters and no clear face stays dark: skip
        // the walk over its blocks.
        let clear_or_emits = match chunk.blocks.uniform() {
            Some(b) => props(b).clear || props(b).emits != Light::DARK,
            None => true,
        };
        if clear_or_emits {
            for z in 0..CHUNK_SIZE {
                for x in 0..CHUNK_SIZE {
                    for y in 0..CHUNK_SIZE {
                        let c = Cell::new(pos, x, y, z);
                        let own = self.own_light(world, c, props(chunk.blocks.get_index(c.index as usize)));
                        if own != Light::DARK {
                            self.set(c, own);
                            queue.push_back(c);
                        }
                    }
                }
            }
        }
        // Light of the neighbours flows in across the six faces.
        for (d, [dx, dy, dz]) in STEPS.iter().enumerate() {
            let n = ChunkPos::new(pos.x + dx, pos.y + dy, pos.z + dz);
            if self.chunks.contains_key(&n) {
                for_face(n, opposite(d), |c| queue.push_back(c));
            }
        }
        self.remove(world, removed, &mut queue);
        self.spread(world, queue);
    }

    /// Forgets a chunk that leaves the world, taking back the light that
    /// came through it.
    pub fn remove_chunk(&mut self, world: &impl BlockSource, pos: ChunkPos) {
        if !self.chunks.contains_key(&pos) {
            return;
        }
        let mut removed = Vec::new();
        for d in 0..6 {
            for_face(pos, d, |c| {
                let l = self.light(c);
                for ch in 0..CHANNELS {
                    if l.channel(ch) > 0 {
                        removed.push((c, ch, l.channel(ch)));
                    }
                }
            });
        }
        self.chunks.remove(&pos);
        for ch in [pos, ChunkPos::new(pos.x, pos.y - 1, pos.z)] {
            self.changed.insert(ch);
        }
        let mut queue = VecDeque::new();
        // The chunk below may now top its column.
        let below = ChunkPos::new(pos.x, pos.y - 1, pos.z);
        if self.chunks.contains_key(&below) {
            for_face(below, 2, |c| queue.push_back(c));
        }
        self.remove(world, removed, &mut queue);
        // Sky now falls on the chunk below from above.
        if self.chunks.contains_key(&below) {
            let mut top = Vec::new();
            for_face(below, 2, |c| top.push(c));
            for c in top {
                if self.restore_own(world, c) {
                    queue.push_back(c);
                }
            }
        }
        self.spread(world, queue);
    }

    /// Updates light after the block at `p` changed (the new block is
    /// already in `world`).
    pub fn block_changed(&mut self, world: &impl BlockSource, p: BlockPos) {
        let Some(chunk) = p.chunk() else { return };
        if !self.chunks.contains_key(&chunk) {
            return;
        }
        let [x, y, z] = p.local();
        let c = Cell::new(chunk, x, y, z);
        let old = self.light(c);
        let mut removed = Vec::new();
        for ch in 0..CHANNELS {
            if old.channel(ch) > 0 {
                removed.push((c, ch, old.channel(ch)));
            }
        }
        self.set(c, Light::DARK);
        let mut queue = VecDeque::new();
        self.remove(world, removed, &mut queue);
        // The changed block may now let light through or give its own.
        self.restore_own(world, c);
        queue.push_back(c);
        for d in 0..6 {
            queue.push_back(c.step(d));
        }
        self.spread(world, queue);
    }

    /// The removal fill: `removed` channels are already cleared. Clears
    /// every neighbour whose level may have come through them; neighbours
    /// lit from elsewhere, and sources inside the cleared region, go to
    /// `queue` to flow back in.
    fn remove(&mut self, world: &impl BlockSource, removed: Vec<Removed>, queue: &mut VecDeque<Cell>) {
        let mut fill: VecDeque<Removed> = removed.into();
        // Sources met on the way get their own light back once the fill is
        // over, so a cleared region is never refilled while being cleared.
        let mut sources = Vec::new();
        while let Some((c, ch, level)) = fill.pop_front() {
            for d in 0..6 {
                let n = c.step(d);
                if !self.chunks.contains_key(&n.chunk) {
                    continue;
                }
                let l = self.light(n);
                let have = l.channel(ch);
                if have == 0 {
                    continue;
                }
                let through = have < level || (ch == SKY && d == DOWN && level == MAX && have == MAX);
                if through {
                    self.set(n, l.with_channel(ch, 0));
                    fill.push_back((n, ch, have));
                    sources.push(n);
                } else {
                    queue.push_back(n);
                }
            }
        }
        for n in sources {
            if self.restore_own(world, n) {
                queue.push_back(n);
            }
        }
    }

    /// The adding fill: each queued cell offers its light to its
    /// neighbours; a neighbour that gains in any channel is queued in turn.
    fn spread(&mut self, world: &impl BlockSource, mut queue: VecDeque<Cell>) {
        while let Some(c) = queue.pop_front() {
            if !self.chunks.contains_key(&c.chunk) {
                continue;
            }
            let l = self.light(c);
            if l == Light::DARK {
                continue;
            }
            for d in 0..6 {
                let n = c.step(d);
                if !self.chunks.contains_key(&n.chunk) {
                    continue;
                }
                let p = props(Self::block(world, n));
                if !p.clear {
                    continue;
                }
                let have = self.light(n);
                let mut gain = have;
                for ch in 0..CHANNELS {
                    let offer = spread(l.channel(ch), ch, d == DOWN, p);
                    if offer > gain.channel(ch) {
                        gain = gain.with_channel(ch, offer);
                    }
                }
                if gain != have {
                    self.set(n, gain);
                    queue.push_back(n);
                }
            }
        }
    }
}

fn opposite(d: usize) -> usize {
    d ^ 1
}

/// Calls `f` for every cell of chunk `pos` on its face in direction `d`.
fn for_face(pos: ChunkPos, d: usize, mut f: impl FnMut(Cell)) {
    let fixed = |s: i32| if s > 0 { LAST } else { 0 };
    let [sx, sy, sz] = STEPS[d];
    for a in 0..CHUNK_SIZE {
        for b in 0..CHUNK_SIZE {
            let c = match (sx, sy, sz) {
                (s, 0, 0) if s != 0 => Cell::new(pos, fixed(s), a, b),
                (0, s, 0) if s != 0 => Cell::new(pos, a, fixed(s), b),
                (_, _, s) => Cell::new(pos, a, b, fixed(s)),
            };
            f(c);
        }
    }
}
