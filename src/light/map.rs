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
//!
//! Costs: a chunk of open air under open sky is uniform full sky without a
//! walk over its blocks, and adding it on top of a column removes nothing
//! below. Any other new chunk gets its own light (emission, sky straight
//! down from open sky or from the lit chunk above) in a local array, and
//! only its frontier (face cells, and cells next to other light) enters
//! the adding fill. A chunk that leaves the top of the lit range does not
//! take back the sky of the open columns below it, which get the same sky
//! of their own. Fills look chunks up in an
//! Fx-hashed map once per step, and chunks the fills leave even are
//! collapsed back to one value. On 4913 generated chunks (17 × 17 columns,
//! 17 high) this took the whole load from 780 s to 5.6 s.

use super::packed::PackedLight;
use super::rules::{props, spread, Props};
use super::value::{Light, CHANNELS, MAX, SKY};
use crate::world::block::BlockId;
use crate::world::chunk::Chunk;
use crate::world::coords::{block_index, ChunkPos, CHUNK_SIZE, CHUNK_VOLUME};
use crate::world::edits::BlockPos;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

/// Where the light engine reads blocks.
pub trait BlockSource {
    fn chunk(&self, pos: ChunkPos) -> Option<&Chunk>;

    /// Whether sky falls into the top of block column (`x`, `z`) of `pos`
    /// while the chunk above it is not loaded: nothing above that column
    /// would stop it. Must not change over time.
    fn sky_above(&self, pos: ChunkPos, x: usize, z: usize) -> bool;
}

/// One block of one chunk: the unit the fills walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Cell {
    chunk: ChunkPos,
    index: u16,
}

const LAST: usize = CHUNK_SIZE - 1;

/// The six steps; `DOWN` is the one sky keeps its strength along.
const STEPS: [[i32; 3]; 6] = crate::world::coords::FACE_STEPS;
const UP: usize = 2;
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

/// The light of one chunk. Dense light is shared, not copied, with the
/// meshes being made from it: a change copies it first if a mesher still
/// holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkLight {
    Uniform(Light),
    Dense(Arc<Vec<Light>>),
    /// Dense light no fill has touched for a while, in palette form.
    Packed(Arc<PackedLight>),
}

impl ChunkLight {
    #[inline(always)]
    pub fn get(&self, index: usize) -> Light {
        match self {
            ChunkLight::Uniform(l) => *l,
            ChunkLight::Dense(v) => v[index],
            ChunkLight::Packed(p) => p.get(index),
        }
    }

    /// Fills `out` with the cells from `index` on (one y column is
    /// consecutive in [`block_index`] order).
    pub fn copy_run(&self, index: usize, out: &mut [Light]) {
        match self {
            ChunkLight::Uniform(l) => out.fill(*l),
            ChunkLight::Dense(v) => out.copy_from_slice(&v[index..index + out.len()]),
            ChunkLight::Packed(p) => {
                for (k, o) in out.iter_mut().enumerate() {
                    *o = p.get(index + k);
                }
            }
        }
    }

    pub fn heap_bytes(&self) -> usize {
        match self {
            ChunkLight::Uniform(_) => 0,
            ChunkLight::Dense(v) => v.len() * 2,
            ChunkLight::Packed(p) => p.heap_bytes(),
        }
    }

    /// Dense light that turned out the same everywhere becomes uniform.
    fn collapse(&mut self) {
        if let ChunkLight::Dense(v) = self {
            let first = v[0];
            if v.iter().all(|&l| l == first) {
                *self = ChunkLight::Uniform(first);
            }
        }
    }
}

pub struct LightMap {
    /// Fx-hashed: the fills look a chunk up for every step they take.
    chunks: FxHashMap<ChunkPos, ChunkLight>,
    /// Chunks whose meshes read light that changed since `take_changed`
    /// (a border block's light is read by the neighbour's mesh too).
    changed: FxHashSet<ChunkPos>,
    /// The chunk whose interior cells were last marked: most steps of a
    /// fill stay inside one chunk, and need not touch `changed` again.
    last_marked: Option<ChunkPos>,
    /// Chunks made dense during the current operation, collapsed back to
    /// uniform at its end if the fill left them even (open air, full sky).
    densified: Vec<ChunkPos>,
    /// Operations so far, and the last one that made each dense chunk
    /// dense: a chunk is packed once `pack_delay` operations have passed
    /// without touching it (while its neighbours load, fills touch it
    /// again and again, and unpacking each time would cost more than it saves).
    ops: u64,
    dense_since: HashMap<ChunkPos, u64>,
    pack_queue: VecDeque<(ChunkPos, u64)>,
    pack_delay: u64,
}

impl Default for LightMap {
    fn default() -> Self {
        LightMap::new()
    }
}

/// Operations a dense chunk stays dense for after its last change.
pub const PACK_DELAY: u64 = 128;

/// A channel of a cell cleared by a removal fill, with the level it had.
type Removed = (Cell, usize, u8);

/// A removal fill under way: cleared channels still to pass on, and the
/// cleared cells, which get their own light back once it is over (so a
/// cleared region is never refilled while being cleared).
#[derive(Default)]
struct Removal {
    open: VecDeque<Removed>,
    sources: Vec<Cell>,
}

impl Removal {
    /// A fill from cells whose channels the caller already cleared.
    fn cleared(removed: Vec<Removed>) -> Removal {
        Removal { open: removed.into(), sources: Vec::new() }
    }
}

impl LightMap {
    pub fn new() -> LightMap {
        LightMap::with_pack_delay(PACK_DELAY)
    }

    /// A map that packs dense chunks `delay` operations after their last
    /// change (0: at the end of the operation; the tests use it).
    pub fn with_pack_delay(delay: u64) -> LightMap {
        LightMap {
            chunks: FxHashMap::default(),
            changed: FxHashSet::default(),
            last_marked: None,
            densified: Vec::new(),
            ops: 0,
            dense_since: HashMap::new(),
            pack_queue: VecDeque::new(),
            pack_delay: delay,
        }
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
    /// A chunk's light, shared (for the mesher).
    pub fn chunk_light(&self, chunk: ChunkPos) -> Option<&ChunkLight> {
        self.chunks.get(&chunk)
    }

    pub fn uniform(&self, chunk: ChunkPos) -> Option<Light> {
        match self.chunks.get(&chunk)? {
            ChunkLight::Uniform(l) => Some(*l),
            ChunkLight::Dense(_) | ChunkLight::Packed(_) => None,
        }
    }

    pub fn take_changed(&mut self) -> HashSet<ChunkPos> {
        self.last_marked = None;
        std::mem::take(&mut self.changed).into_iter().collect()
    }

    pub fn heap_bytes(&self) -> usize {
        self.chunks.values().map(ChunkLight::heap_bytes).sum()
    }

    fn light(&self, c: Cell) -> Light {
        self.chunks.get(&c.chunk).map_or(Light::DARK, |l| l.get(c.index as usize))
    }

    /// Ends an operation: chunks the fills made dense but even go back to
    /// uniform (most chunks above ground are all full sky).
    fn collapse_densified(&mut self) {
        self.ops += 1;
        for pos in std::mem::take(&mut self.densified) {
            if let Some(l) = self.chunks.get_mut(&pos) {
                l.collapse();
                if matches!(l, ChunkLight::Dense(_)) {
                    self.dense_since.insert(pos, self.ops);
                    self.pack_queue.push_back((pos, self.ops));
                }
            }
        }
        while let Some(&(pos, op)) = self.pack_queue.front() {
            if op + self.pack_delay > self.ops {
                break;
            }
            self.pack_queue.pop_front();
            // Made dense again since: a later entry packs it.
            if self.dense_since.get(&pos) != Some(&op) {
                continue;
            }
            self.dense_since.remove(&pos);
            if let Some(l) = self.chunks.get_mut(&pos) {
                if let ChunkLight::Dense(v) = l {
                    if let Some(p) = PackedLight::pack(v) {
                        *l = ChunkLight::Packed(Arc::new(p));
                    }
                }
            }
        }
    }

    fn set(&mut self, c: Cell, l: Light) {
        let Some(stored) = self.chunks.get_mut(&c.chunk) else { return };
        match stored {
            ChunkLight::Uniform(u) => {
                if *u == l {
                    return;
                }
                *stored = ChunkLight::Dense(Arc::new(vec![*u; CHUNK_VOLUME]));
                self.densified.push(c.chunk);
            }
            ChunkLight::Packed(p) => {
                if p.get(c.index as usize) == l {
                    return;
                }
                *stored = ChunkLight::Dense(Arc::new(p.unpack()));
                self.densified.push(c.chunk);
            }
            ChunkLight::Dense(_) => {}
        }
        if let ChunkLight::Dense(v) = stored {
            Arc::make_mut(v)[c.index as usize] = l;
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
        let interior = (1..LAST).contains(&x) && (1..LAST).contains(&y) && (1..LAST).contains(&z);
        if interior {
            if self.last_marked != Some(c.chunk) {
                self.changed.insert(c.chunk);
                self.last_marked = Some(c.chunk);
            }
            return;
        }
        for &dz in near(z) {
            for &dy in near(y) {
                for &dx in near(x) {
                    self.changed.insert(ChunkPos::new(c.chunk.x + dx, c.chunk.y + dy, c.chunk.z + dz));
                }
            }
        }
    }

    fn block(world: &impl BlockSource, c: Cell) -> BlockId {
        world.chunk(c.chunk).map_or(BlockId::AIR, |ch| ch.blocks().get_index(c.index as usize))
    }

    /// A cell's light, or None outside the lit chunks (one lookup).
    #[inline(always)]
    fn lit(&self, c: Cell) -> Option<Light> {
        self.chunks.get(&c.chunk).map(|l| l.get(c.index as usize))
    }

    /// The light a cell has of itself, with no neighbour's help: its
    /// emission, and sky if it tops the highest lit chunk of an open column.
    fn own_light(&self, world: &impl BlockSource, c: Cell, p: &Props) -> Light {
        let mut own = p.emits;
        let [x, y, z] = c.local();
        if y == LAST {
            let above = ChunkPos::new(c.chunk.x, c.chunk.y + 1, c.chunk.z);
            if !self.chunks.contains_key(&above) && world.sky_above(c.chunk, x, z) {
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
        let open_air = |x: usize, z: usize| world.sky_above(pos, x, z) && passes_sky(chunk, x, z);
        // The chunk below had open sky while this one was missing; that
        // sky now comes through this chunk, if at all. Where this chunk is
        // open air under open sky (most chunks above ground) nothing below
        // changes, and the removal fill (the whole column below, and all it
        // lit sideways) is skipped.
        let below = ChunkPos::new(pos.x, pos.y - 1, pos.z);
        if self.chunks.contains_key(&below) && !self.chunks.contains_key(&pos) {
            for z in 0..CHUNK_SIZE {
                for x in 0..CHUNK_SIZE {
                    if !world.sky_above(below, x, z) || open_air(x, z) {
                        continue;
                    }
                    let c = Cell::new(below, x, LAST, z);
                    let sky = self.light(c).sky();
                    if sky > 0 {
                        self.set(c, self.light(c).with_channel(SKY, 0));
                        removed.push((c, SKY, sky));
                    }
                }
            }
        }
        let mut queue = VecDeque::new();
        let uniform = chunk.blocks().uniform();
        let all_open = uniform.is_some_and(|b| props(b).emits == Light::DARK)
            && (0..CHUNK_SIZE).all(|z| (0..CHUNK_SIZE).all(|x| open_air(x, z)));
        if all_open {
            // Full sky throughout, with no walk over its blocks; its faces
            // offer that sky to the chunks around.
            self.chunks.insert(pos, ChunkLight::Uniform(Light::FULL_SKY));
            self.changed.insert(pos);
            for (d, [dx, dy, dz]) in STEPS.iter().enumerate() {
                // A missing neighbour takes nothing; one of full sky gains nothing.
                let n = ChunkPos::new(pos.x + dx, pos.y + dy, pos.z + dz);
                match self.chunks.get(&n) {
                    None => continue,
                    Some(ChunkLight::Uniform(u)) if u.sky() == MAX => continue,
                    Some(_) => for_face(pos, d, |c| queue.push_back(c)),
                }
            }
        } else {
            // Rock with no clear or shining block stays dark, whatever its
            // pattern (ore in stone is the common one): skip the walk over
            // its blocks. The counts say so without reading them.
            let counts = chunk.counts();
            let clear_or_emits =
                BlockId::all().any(|b| counts.get(b) > 0 && (props(b).clear || props(b).emits != Light::DARK));
            if clear_or_emits {
                let own = self.own_chunk_light(world, chunk, pos);
                queue.extend(frontier(pos, &own, chunk));
                let mut light = ChunkLight::Dense(Arc::new(own));
                light.collapse();
                if matches!(light, ChunkLight::Dense(_)) {
                    self.densified.push(pos);
                }
                self.chunks.insert(pos, light);
            } else {
                self.chunks.insert(pos, ChunkLight::Uniform(Light::DARK));
            }
            self.changed.insert(pos);
            self.last_marked = None;
        }
        // Light of the neighbours flows in across the six faces, from those
        // that have any to give: a dark neighbour gives nothing, and into
        // full sky only block light can add anything.
        for (d, [dx, dy, dz]) in STEPS.iter().enumerate() {
            let n = ChunkPos::new(pos.x + dx, pos.y + dy, pos.z + dz);
            let gives = match self.chunks.get(&n) {
                None => false,
                Some(ChunkLight::Uniform(u)) => *u != Light::DARK && !(all_open && u.rgb() == [0, 0, 0]),
                Some(ChunkLight::Dense(_) | ChunkLight::Packed(_)) => true,
            };
            if gives {
                for_face(n, opposite(d), |c| queue.push_back(c));
            }
        }
        self.remove(world, Removal::cleared(removed), &mut queue);
        self.spread(world, queue);
        self.collapse_densified();
    }

    /// The light a new chunk starts from before the adding fill: each
    /// block's emission, and sky straight down from the top while it
    /// keeps full strength, whether it falls from open sky or from the lit
    /// chunk above (what the fill would give it, without the walk: a chunk
    /// that arrives under a lit one is the common case while a view loads).
    fn own_chunk_light(&self, world: &impl BlockSource, chunk: &Chunk, pos: ChunkPos) -> Vec<Light> {
        let mut own = vec![Light::DARK; CHUNK_VOLUME];
        let above = self.chunks.get(&ChunkPos::new(pos.x, pos.y + 1, pos.z));
        for z in 0..CHUNK_SIZE {
            for x in 0..CHUNK_SIZE {
                let falls = match above {
                    None => world.sky_above(pos, x, z),
                    Some(l) => l.get(block_index(x, 0, z)).sky() == MAX,
                };
                let mut sky = if falls { MAX } else { 0 };
                // A packed chunk's column is unpacked once, not read a cell
                // at a time.
                let column = chunk.blocks().column(x, z);
                for y in (0..CHUNK_SIZE).rev() {
                    let i = block_index(x, y, z);
                    let p = props(column.get(y));
                    sky = spread(sky, SKY, true, p);
                    own[i] = p.emits.with_channel(SKY, sky);
                    if sky < MAX {
                        // Below a dimmed or blocked cell the adding fill takes over.
                        sky = 0;
                    }
                }
            }
        }
        own
    }

    /// Forgets a chunk that leaves the world, taking back the light that
    /// came through it.
    pub fn remove_chunk(&mut self, world: &impl BlockSource, pos: ChunkPos) {
        let Some(gone) = self.chunks.remove(&pos) else { return };
        self.dense_since.remove(&pos);
        let below = ChunkPos::new(pos.x, pos.y - 1, pos.z);
        for ch in [pos, below] {
            self.changed.insert(ch);
        }
        // The removal fill starts one step out, in the lit neighbours. Sky
        // that fell into the chunk below stays where that column is open
        // (the chunk below now tops it and gets the same sky of its own),
        // so leaving the top of the lit range does not clear and refill
        // every open column beneath it.
        let mut fill = Removal::default();
        let mut queue = VecDeque::new();
        for d in 0..6 {
            for_face(pos, d, |c| {
                let from = gone.get(c.index as usize);
                let [x, _, z] = c.local();
                let sky_stays = d == DOWN && world.sky_above(below, x, z);
                for ch in 0..CHANNELS {
                    if from.channel(ch) > 0 && !(sky_stays && ch == SKY) {
                        self.remove_step(c.step(d), d, (ch, from.channel(ch)), &mut fill, &mut queue);
                    }
                }
            });
        }
        // The chunk below may now top its column (the fill never takes a
        // chunk away, so this holds after it too).
        let below_lit = self.chunks.contains_key(&below);
        if below_lit {
            for_face(below, UP, |c| queue.push_back(c));
        }
        self.remove(world, fill, &mut queue);
        // Sky now falls on the chunk below from above.
        if below_lit {
            for_face(below, UP, |c| {
                if self.restore_own(world, c) {
                    queue.push_back(c);
                }
            });
        }
        self.spread(world, queue);
        self.collapse_densified();
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
        self.remove(world, Removal::cleared(removed), &mut queue);
        // The changed block may now let light through or give its own.
        self.restore_own(world, c);
        queue.push_back(c);
        for d in 0..6 {
            queue.push_back(c.step(d));
        }
        self.spread(world, queue);
        self.collapse_densified();
    }

    /// The removal fill: `removed` channels are already cleared. Clears
    /// every neighbour whose level may have come through them; neighbours
    /// lit from elsewhere, and sources inside the cleared region, go to
    /// `queue` to flow back in.
    fn remove(&mut self, world: &impl BlockSource, mut fill: Removal, queue: &mut VecDeque<Cell>) {
        while let Some((c, ch, level)) = fill.open.pop_front() {
            for d in 0..6 {
                self.remove_step(c.step(d), d, (ch, level), &mut fill, queue);
            }
        }
        for n in fill.sources {
            if self.restore_own(world, n) {
                queue.push_back(n);
            }
        }
    }

    /// One step of the removal fill: channel `ch` at `level` was taken
    /// from the cell next to `n` (`n` lies in direction `d` from it).
    #[inline(always)]
    fn remove_step(
        &mut self,
        n: Cell,
        d: usize,
        (ch, level): (usize, u8),
        fill: &mut Removal,
        queue: &mut VecDeque<Cell>,
    ) {
        let Some(l) = self.lit(n) else { return };
        let have = l.channel(ch);
        if have == 0 {
            return;
        }
        let through = have < level || (ch == SKY && d == DOWN && level == MAX && have == MAX);
        if through {
            self.set(n, l.with_channel(ch, 0));
            fill.open.push_back((n, ch, have));
            fill.sources.push(n);
        } else {
            queue.push_back(n);
        }
    }

    /// The adding fill: each queued cell offers its light to its
    /// neighbours; a neighbour that gains in any channel is queued in turn.
    fn spread(&mut self, world: &impl BlockSource, mut queue: VecDeque<Cell>) {
        let mut blocks = BlockCursor::new(world);
        let mut gains: Vec<(Cell, Light)> = Vec::with_capacity(6);
        while let Some(c) = queue.pop_front() {
            let Some(here) = self.chunks.get(&c.chunk) else { continue };
            let l = here.get(c.index as usize);
            if l == Light::DARK {
                continue;
            }
            // The most a step can pass on in each channel (sky straight down
            // aside): a neighbour that has that already gains nothing, and
            // its block need not be looked up (most steps, in open air).
            let most = [0, 1, 2, 3].map(|ch| l.channel(ch).saturating_sub(1));
            let full_sky_down = l.sky() == MAX;
            for d in 0..6 {
                let n = c.step(d);
                let have = if n.chunk == c.chunk {
                    here.get(n.index as usize)
                } else {
                    match self.chunks.get(&n.chunk) {
                        Some(there) => there.get(n.index as usize),
                        None => continue,
                    }
                };
                let sky_need = if d == DOWN && full_sky_down { MAX } else { most[SKY] };
                if have.sky() >= sky_need && (1..CHANNELS).all(|ch| have.channel(ch) >= most[ch]) {
                    continue;
                }
                let p = props(blocks.get(n));
                if !p.clear {
                    continue;
                }
                let mut gain = have;
                for ch in 0..CHANNELS {
                    let offer = spread(l.channel(ch), ch, d == DOWN, p);
                    if offer > gain.channel(ch) {
                        gain = gain.with_channel(ch, offer);
                    }
                }
                if gain != have {
                    gains.push((n, gain));
                }
            }
            for (n, gain) in gains.drain(..) {
                self.set(n, gain);
                queue.push_back(n);
            }
        }
    }
}

/// Block lookups of a fill, remembering the last chunk: most steps stay
/// inside it.
struct BlockCursor<'w, W: BlockSource> {
    world: &'w W,
    last: Option<(ChunkPos, Option<&'w Chunk>)>,
}

impl<'w, W: BlockSource> BlockCursor<'w, W> {
    fn new(world: &'w W) -> Self {
        BlockCursor { world, last: None }
    }

    #[inline(always)]
    fn get(&mut self, c: Cell) -> BlockId {
        let chunk = match self.last {
            Some((pos, chunk)) if pos == c.chunk => chunk,
            _ => {
                let chunk = self.world.chunk(c.chunk);
                self.last = Some((c.chunk, chunk));
                chunk
            }
        };
        chunk.map_or(BlockId::AIR, |ch| ch.blocks().get_index(c.index as usize))
    }
}

/// The cells of a newly lit chunk its light can spread from: lit cells on
/// its faces, and lit cells next to a clear cell of other light (a
/// neighbour with the same light gains nothing, an opaque one takes none).
fn frontier(pos: ChunkPos, own: &[Light], chunk: &Chunk) -> Vec<Cell> {
    let mut out = Vec::new();
    for z in 0..CHUNK_SIZE {
        for x in 0..CHUNK_SIZE {
            for y in 0..CHUNK_SIZE {
                let i = block_index(x, y, z);
                let l = own[i];
                if l == Light::DARK {
                    continue;
                }
                let border = [x, y, z].iter().any(|&v| v == 0 || v == LAST);
                let differs = || {
                    [
                        block_index(x - 1, y, z),
                        block_index(x + 1, y, z),
                        block_index(x, y - 1, z),
                        block_index(x, y + 1, z),
                        block_index(x, y, z - 1),
                        block_index(x, y, z + 1),
                    ]
                    .iter()
                    .any(|&j| own[j] != l && props(chunk.blocks().get_index(j)).clear)
                };
                if border || differs() {
                    out.push(Cell::new(pos, x, y, z));
                }
            }
        }
    }
    out
}

/// Sky keeps full strength straight down through the whole column
/// (`x`, `z`) of the chunk: every block is clear and dims nothing.
fn passes_sky(chunk: &Chunk, x: usize, z: usize) -> bool {
    match chunk.blocks().uniform() {
        Some(b) => props(b).clear && props(b).dims == 0,
        None => (0..CHUNK_SIZE).all(|y| {
            let p = props(chunk.blocks().get(x, y, z));
            p.clear && p.dims == 0
        }),
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
