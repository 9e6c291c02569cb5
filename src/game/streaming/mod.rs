//! Chunk streaming around the player: the streamer ties together the
//! world store (chunk data and edits), generation scheduling
//! ([`requests`]), the generation service and the mesh pipeline
//! ([`mesh_pipeline`]), over the ring geometry in [`mod@rings`].
//!
//! When the player moves, requests that fell out of range are cancelled
//! before they run, and chunks and meshes beyond the render distance are
//! freed. A chunk is meshed once it and its 26 neighbours exist.
//!
//! Streaming knows no GPU: what the view must change comes out as
//! [`ViewChange`]s, which the game hands to the renderer
//! (`game::view::show`), so streaming runs and is tested without a device.

pub mod lighting;
pub mod memory;
pub mod mesh_pipeline;
pub mod requests;
pub mod rings;
pub mod shared_store;

use super::engine::{EngineSwitch, Switch};
use super::frame_stats::CpuClock;
use crate::backend::service::{Balance, BatchLimits, Command, Event, GenerationService, ServiceStats, DEFAULT_BATCH};
use crate::backend::{ChunkBackend, Device, Engine};
use crate::light::Light;
use crate::mesh::ChunkMesh;
use crate::world::block::BlockId;
use crate::world::chunk::Chunk;
use crate::world::coords::{block_index, ChunkPos, FACE_STEPS};
use crate::world::edits::{BlockPos, ChunkEdits};
use crate::world::store::{ChunkStore, StoreError};
use crate::worldgen::WorldGen;
use lighting::LightStage;
pub use mesh_pipeline::ReadyStages;
use mesh_pipeline::{mesh_of, MeshInput, MeshPipeline, MAX_IN_PIPELINE};
use requests::Requests;
use rings::{light_data_offsets, neighbourhood, offset, within, LIGHT_VERTICAL};
use rustc_hash::FxHashSet;
use shared_store::SharedStore;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::sync::RwLockReadGuard;
use std::time::{Duration, Instant};

pub use mesh_pipeline::Budget;
pub use rings::{rings, vertical, Range, MAX_RENDER_DISTANCE, MAX_VERTICAL, MIN_RENDER_DISTANCE};

/// Streaming could not finish what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    #[error("the world did not finish loading within {timeout:?}: {complete} of {wanted} chunks ready")]
    LoadTimeout { timeout: Duration, complete: usize, wanted: usize },
}

/// What the view must change, in the order streaming decided it.
pub enum ViewChange {
    /// The chunk's mesh, new or made again.
    Mesh(ChunkPos, ChunkMesh),
    /// The chunk has nothing to draw any more.
    Gone(ChunkPos),
    /// Only chunks in the range's render band stay drawn.
    Range(Range),
}

/// The game thread's CPU milliseconds in each part of the last
/// [`ChunkStreamer::update`], in the order they run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UpdateParts {
    /// Following the player across a chunk border: the range's owners
    /// trimmed, light moved, chunks that entered listed.
    pub recentre: f64,
    /// The light thread's results taken in and their neighbours tried.
    pub light: f64,
    /// Generated chunks taken into the store.
    pub arrivals: f64,
    /// The store's change set: light sent, neighbourhoods listed to try.
    pub changes: f64,
    /// Chunks that came into range, arrived or changed, tried for meshing.
    pub tries: f64,
    /// New generation requests chosen and sent.
    pub requests: f64,
    /// Mesh jobs sent to the mesher threads.
    pub dispatch: f64,
    /// Finished meshes taken back within the upload budget, and uploaded
    /// where the caller shows them as they come
    /// ([`ChunkStreamer::update_showing`]).
    pub hand_out: f64,
    /// Chunks that left the range dropped from the store.
    pub evict: f64,
}

impl UpdateParts {
    pub const NAMES: [&'static str; 9] =
        ["recentre", "light", "arrivals", "changes", "tries", "requests", "dispatch", "hand_out", "evict"];

    pub fn values(&self) -> [f64; 9] {
        [
            self.recentre,
            self.light,
            self.arrivals,
            self.changes,
            self.tries,
            self.requests,
            self.dispatch,
            self.hand_out,
            self.evict,
        ]
    }
}

/// Successive laps of the thread's CPU clock.
struct Laps(CpuClock);

impl Laps {
    fn lap(&mut self) -> f64 {
        let ms = self.0.ms();
        self.0 = CpuClock::now();
        ms
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct StreamCounts {
    pub loaded: usize,
    pub queued: usize,
    pub generating: usize,
    pub meshing: usize,
    pub wanted: usize,
    pub complete: usize,
}

pub struct ChunkStreamer {
    world: Arc<WorldGen>,
    service: GenerationService,
    switch: EngineSwitch,
    /// A line for the player from the last finished device open.
    notice: Option<String>,
    /// Chunk data and the player's edits, shared with the light thread.
    store: SharedStore,
    requests: Requests,
    /// The "lit" stage between the store and the meshes.
    light: LightStage,
    meshes: MeshPipeline,
    /// The centre and the render distance every owner follows.
    range: Range,
    generated_total: u64,
    started: bool,
    /// The render distance the current meshed set was built for.
    meshed_distance: i32,
    /// Chunks to try for meshing.
    to_try: TryQueue,
    /// Chunks that left the data range, to be dropped from the store.
    leaving: Vec<ChunkPos>,
    last_update: Option<Instant>,
    /// What the view must change since the last [`ChunkStreamer::take_view_changes`].
    view_changes: Vec<ViewChange>,
    parts: UpdateParts,
}

/// Streaming work is handed out once a frame, so each frame must hand out
/// enough to keep the workers busy until the next: the bounds on requests
/// out, mesh jobs out and bytes uploaded are sized for a 16 ms frame, and
/// grow with the frame time up to this factor. Without it a frame of half
/// a second (render distance 32 on a software rasteriser) left generation
/// idle most of the time and the world thinned out behind a flight.
const MAX_FRAME_SCALE: usize = 16;

/// Taking in a chunk costs a few microseconds: the clock is read once per
/// this many.
const ARRIVALS_PER_CLOCK_READ: usize = 16;

/// Sending mesh jobs and handing out meshes each get at least this share
/// of a frame's time budget, whatever the work before them took: with the
/// budget spent on arrivals, one mesh a frame went up and one job a frame
/// went to the meshers, and chunks waited seconds at those two stages.
const SHARE: u32 = 4;

/// Chunks tried for meshing per frame whatever the time (a try that
/// fails, the common case, takes well under a microsecond): on a slow
/// frame the range's face still fills in a few frames.
const MIN_TRIED_PER_FRAME: usize = 2048;

/// Chunks waiting to be tried for meshing, each once, oldest first.
#[derive(Default)]
struct TryQueue {
    order: VecDeque<ChunkPos>,
    queued: FxHashSet<ChunkPos>,
}

impl TryQueue {
    fn push(&mut self, p: ChunkPos) {
        if self.queued.insert(p) {
            self.order.push_back(p);
        }
    }

    fn pop(&mut self) -> Option<ChunkPos> {
        let p = self.order.pop_front()?;
        self.queued.remove(&p);
        Some(p)
    }
}

fn frame_scale(frame: Duration) -> usize {
    ((frame.as_millis() / 16) as usize).clamp(1, MAX_FRAME_SCALE)
}

impl ChunkStreamer {
    /// A streamer generating on `engine`; a switch to the GPU opens `gpu_device`.
    pub fn new(
        world: Arc<WorldGen>,
        engine: Engine,
        gpu_device: impl Into<Device>,
        render_distance: i32,
    ) -> ChunkStreamer {
        Self::with_edits(world, engine, gpu_device, render_distance, HashMap::new())
    }

    /// A streamer over a saved world's edits.
    pub fn with_edits(
        world: Arc<WorldGen>,
        engine: Engine,
        gpu_device: impl Into<Device>,
        render_distance: i32,
        edits: HashMap<ChunkPos, ChunkEdits>,
    ) -> ChunkStreamer {
        let switch = EngineSwitch::new(world.clone(), gpu_device.into());
        let service = GenerationService::spawn(switch.cpu_backend(), BatchLimits::GAME);
        let render_distance = render_distance.clamp(MIN_RENDER_DISTANCE, MAX_RENDER_DISTANCE);
        let mut requests = Requests::new(4 * DEFAULT_BATCH);
        let range = Range::new(ChunkPos::new(0, 0, 0), render_distance);
        requests.recentre(&range);
        let store = SharedStore::new(ChunkStore::with_edits(edits));
        let light = LightStage::spawn(world.clone(), store.clone());
        let mut s = ChunkStreamer {
            switch,
            notice: None,
            world,
            service,
            store,
            requests,
            light,
            meshes: MeshPipeline::spawn(),
            range,
            generated_total: 0,
            started: false,
            meshed_distance: 0,
            to_try: TryQueue::default(),
            leaving: Vec::new(),
            last_update: None,
            view_changes: Vec::new(),
            parts: UpdateParts::default(),
        };
        s.set_engine(engine);
        s
    }

    /// The engine generating now (the GPU may still be opening).
    pub fn engine(&self) -> Engine {
        self.switch.active()
    }

    /// The engine the player asked for (a device may still be opening).
    pub fn wanted_engine(&self) -> Engine {
        self.switch.wanted()
    }

    /// Why the GPU is not generating, if it is not.
    pub fn gpu_off_reason(&self) -> Option<String> {
        self.switch.off_reason()
    }

    pub fn backend_label(&self) -> String {
        self.switch.label()
    }

    /// How the CPU and the device share generation now.
    pub fn balance(&self) -> Balance {
        self.service.balance()
    }

    /// Switches generation; requests in flight are kept. A device is opened
    /// off this thread: until it is ready (see [`Self::take_notice`]) the
    /// CPU carries on.
    pub fn set_engine(&mut self, engine: Engine) -> Switch {
        self.switch.request(engine, &self.service)
    }

    /// Generates on one CPU thread instead of the pool, alone or beside
    /// the device (the flight benchmark's single-thread rows).
    pub fn use_serial_cpu(&mut self) {
        self.switch.use_serial_cpu(&self.service);
    }

    /// Fixes the device's share of the chunks in hybrid generation (None:
    /// automatic).
    pub fn fix_share(&mut self, alpha: Option<f64>) {
        self.service.send(Command::FixShare(alpha));
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

    /// The range every owner follows now.
    pub fn range(&self) -> Range {
        self.range
    }

    /// The chunk the streaming range is centred on.
    pub fn centre(&self) -> ChunkPos {
        self.range.centre
    }

    pub fn render_distance(&self) -> i32 {
        self.range.render_distance
    }

    pub fn set_render_distance(&mut self, r: i32) {
        let r = r.clamp(MIN_RENDER_DISTANCE, MAX_RENDER_DISTANCE);
        if r != self.range.render_distance {
            self.range.render_distance = r;
            self.recentre(self.range.centre, true);
        }
    }

    /// Streams until everything in range around `centre` is generated and
    /// meshed, handing each frame's view changes to `show`; returns how long
    /// it took.
    pub fn load_around(
        &mut self,
        centre: ChunkPos,
        timeout: Duration,
        mut show: impl FnMut(Vec<ViewChange>),
    ) -> Result<Duration, StreamError> {
        let start = Instant::now();
        let budget = Budget { upload_bytes: u64::MAX, time: Duration::from_millis(50), max_arrivals: usize::MAX };
        loop {
            self.update(centre, budget);
            show(self.take_view_changes());
            if self.is_complete() {
                return Ok(start.elapsed());
            }
            if start.elapsed() > timeout {
                let c = self.counts();
                return Err(StreamError::LoadTimeout { timeout, complete: c.complete, wanted: c.wanted });
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// What the view must change since the last call, oldest first.
    pub fn take_view_changes(&mut self) -> Vec<ViewChange> {
        std::mem::take(&mut self.view_changes)
    }

    fn recentre(&mut self, centre: ChunkPos, force: bool) {
        if centre == self.range.centre && !force {
            return;
        }
        let old = Range::new(self.range.centre, self.meshed_distance);
        self.range.centre = centre;
        let (range, r) = (self.range, self.range.render_distance);
        self.meshed_distance = r;
        // The range's lists still hold the old centre: what left is found
        // among them, far cheaper than a look at everything held. Every
        // owner only ever holds what is in range, so that is all that left.
        let same_range = self.started && !force && self.requests.render_distance() == r && old.render_distance == r;
        let left = same_range.then(|| {
            let (wanted, edge) = (self.requests.wanted(), self.requests.edge());
            let render: Vec<ChunkPos> = wanted.iter().copied().filter(|&p| !range.renders(p)).collect();
            let data: Vec<ChunkPos> = wanted.iter().chain(edge).copied().filter(|&p| !range.holds(p)).collect();
            (render, data)
        });
        self.requests.recentre(&range);
        self.service.send(Command::Retain { center: centre, radius: r + 1 });
        // Keep one extra ring of data so meshes at the edge keep their neighbours.
        match left.as_ref() {
            // Freeing a face of the range (thousands of chunks at render
            // distance 32) is spread over the next frames.
            Some((_, data)) => self.leaving.extend_from_slice(data),
            None => {
                self.leaving.clear();
                let light = &self.light;
                self.store.write().evict(|p| range.holds(p) || light.holds(p));
            }
        }
        match &left {
            Some((render, _)) => self.meshes.forget(render, &range),
            None => self.meshes.retain(&range),
        }
        self.view_changes.push(ViewChange::Range(range));
        self.relight_range(old, same_range);
        // Chunks that just came into range may already have all their
        // neighbours: no arrival will trigger them, so try them now.
        let now = Instant::now();
        let entering: Vec<ChunkPos> =
            self.requests.wanted().iter().copied().filter(|&p| force || !old.renders(p)).collect();
        for p in entering {
            if !self.meshes.is_meshed(p) {
                self.meshes.wanted_since(p, now);
                if self.store.read().contains(p) {
                    self.to_try.push(p);
                }
            }
        }
    }

    /// Drops chunks that left the range from the store, within the frame's
    /// time but at least an eighth of those waiting (so the list stays
    /// short however slow the frames); one that came back stays, and one
    /// the light thread still holds goes when it lets go ([`Self::take_light`]).
    fn evict_leaving(&mut self, deadline: Instant) {
        let least = (self.leaving.len() / 8).max(MIN_TRIED_PER_FRAME / 8);
        let range = self.range;
        let mut done = 0;
        let mut store = self.store.write();
        while let Some(p) = self.leaving.pop() {
            if !range.holds(p) && !self.light.holds(p) {
                store.evict_these(&[p]);
            }
            done += 1;
            if done >= least && done % ARRIVALS_PER_CLOCK_READ == 0 && Instant::now() >= deadline {
                break;
            }
        }
    }

    /// Tries the waiting chunks for meshing within the frame's time: a
    /// step across a chunk border brings a whole face of the range in at
    /// once (2 000 chunks at render distance 32), and a slow frame's
    /// arrivals bring thousands of neighbourhoods.
    fn try_waiting(&mut self, deadline: Instant) {
        let shared = self.store.clone();
        let store = shared.read();
        let mut tried = 0;
        while let Some(p) = self.to_try.pop() {
            self.try_mesh(&store, p);
            tried += 1;
            if tried >= MIN_TRIED_PER_FRAME && tried % ARRIVALS_PER_CLOCK_READ == 0 && Instant::now() >= deadline {
                break;
            }
        }
    }

    /// Moves the lit range with the player: chunks that left it go back to
    /// the light thread's past, loaded chunks that entered it are lit, and
    /// meshes made in full sky that are now in it are made again with light.
    /// With `moved` (the same render distance, already started), every
    /// stored chunk in the old lit range was handed over already, so only
    /// those entering it are looked up: a step costs a face, not the range.
    fn relight_range(&mut self, old: Range, moved: bool) {
        let range = self.range;
        let mut gone: Vec<ChunkPos> = self.light.sent().copied().filter(|&p| !range.holds_light(p)).collect();
        // Bottom first: a column's top taken away first would pull its sky
        // out of every chunk below it, which are leaving too.
        gone.sort_by_key(|p| (p.y, p.x, p.z));
        for p in gone {
            self.light.remove(p);
        }
        let shared = self.store.clone();
        let store = shared.read();
        for &o in light_data_offsets() {
            let p = range.at(o);
            if !range.holds_light(p) {
                continue;
            }
            if !(moved && old.holds_light(p)) && store.contains(p) {
                self.light.add(p);
            }
            if range.lights(p) && !old.lights(p) && self.meshes.is_meshed(p) {
                self.meshes.invalidate(p);
                self.meshes.remeshed(p, None);
                self.try_mesh(&store, p);
            }
        }
    }

    /// The chunk and its neighbours, with their light where it is lit; None
    /// while any of them is missing, or in the lit range not yet lit.
    fn mesh_input(store: &ChunkStore, light: &LightStage, pos: ChunkPos, lit: bool) -> Option<MeshInput> {
        let chunks = gather(store, pos)?;
        let light = if lit {
            Some(neighbourhood(pos).map(|p| light.light(p).cloned()).collect::<Option<Vec<_>>>()?)
        } else {
            None
        };
        Some(MeshInput { chunks, light })
    }

    fn try_mesh(&mut self, store: &ChunkStore, pos: ChunkPos) {
        if self.meshes.is_settled_or_busy(pos) || !self.range.renders(pos) {
            return;
        }
        let Some(centre) = store.get(pos) else { return };
        // Air and buried chunks have nothing to draw.
        if centre.blocks().uniform() == Some(BlockId::AIR) {
            self.meshes.settle_empty(pos, [0; 4]);
            return;
        }
        // Cheap checks first: this runs for every neighbour of every chunk
        // that arrives or whose light changes.
        if !neighbourhood(pos).all(|p| store.contains(p)) {
            return;
        }
        self.meshes.loaded(pos);
        let opaque = |p: ChunkPos| store.get(p).is_some_and(|c| c.is_solid());
        if std::iter::once([0, 0, 0])
            .chain(FACE_STEPS)
            .all(|[dx, dy, dz]| opaque(ChunkPos::new(pos.x + dx, pos.y + dy, pos.z + dz)))
        {
            self.meshes.settle_empty(pos, [u32::MAX; 4]);
            return;
        }
        if self.range.lights(pos) && !self.light_settled(pos) {
            return;
        }
        self.meshes.enqueue(pos);
    }

    /// In the lit range a chunk waits until it, its neighbours and every
    /// chunk above them up to the top of the lit range are lit. Sky comes
    /// from above: meshed before the chunks above it were lit, a chunk
    /// would be made again once their sky arrived (under trees and
    /// overhangs, where the generated heights cannot tell whether sky gets
    /// through), and show wrong light in between.
    fn light_settled(&self, pos: ChunkPos) -> bool {
        // The top of the lit range, which at small render distances is the
        // top of the data range (a chunk above it is never loaded).
        let top = self.range.centre.y.saturating_add(LIGHT_VERTICAL.min(vertical(self.range.render_distance)) + 1);
        (-1..=1).all(|dz| {
            (-1..=1).all(|dx| {
                (pos.y - 1..=top.max(pos.y + 1))
                    .all(|y| self.light.light(ChunkPos::new(pos.x + dx, y, pos.z + dz)).is_some())
            })
        })
    }

    /// The light meshes are made from at `pos`, if its chunk is lit.
    pub fn light_at(&self, pos: BlockPos) -> Option<Light> {
        let [x, y, z] = pos.local();
        Some(self.light.light(pos.chunk()?)?.get(block_index(x, y, z)))
    }

    /// The block at `pos`, if its chunk is loaded.
    pub fn block(&self, pos: BlockPos) -> Option<BlockId> {
        self.store.read().block(pos)
    }

    /// Sets a block and re-meshes every loaded chunk the edit touches right
    /// here, ahead of all streaming work, so the change shows in the next
    /// frame (a chunk meshes in tens of microseconds). Meshes of those
    /// chunks still on the mesher threads are dropped when they come back.
    pub fn set_block(&mut self, pos: BlockPos, block: BlockId) -> Result<(), StoreError> {
        self.take_terrain_changes();
        let store = &self.store;
        let (mut touched, relit) = self.light.edit(pos, || {
            let mut store = store.write();
            let touched = store.set_block(pos, block)?;
            // The edit's own change set is consumed here: the light stage
            // takes it as an edit, and its meshes are made at once (below).
            let _ = store.take_changes();
            Ok(touched)
        })?;
        for c in relit {
            if !touched.contains(&c) {
                touched.push(c);
            }
        }
        let range = self.range;
        let store = self.store.read();
        for c in touched {
            self.meshes.invalidate(c);
            if !range.renders(c) {
                continue;
            }
            match Self::mesh_input(&store, &self.light, c, range.lights(c)) {
                Some(input) => {
                    let mesh = mesh_of(&input);
                    let solid = input.chunks[13].solid_rows();
                    self.view_changes.push(if mesh.is_empty() {
                        ViewChange::Gone(c)
                    } else {
                        ViewChange::Mesh(c, mesh)
                    });
                    self.meshes.remeshed(c, Some(solid));
                }
                // Meshed once its neighbours (and their light) arrive.
                None => self.meshes.remeshed(c, None),
            }
        }
        Ok(())
    }

    /// Edited chunk deltas not yet handed out for saving.
    pub fn take_unsaved(&mut self) -> Vec<(ChunkPos, ChunkEdits)> {
        self.store.write().take_unsaved()
    }

    /// One frame of streaming: take in generated chunks and finished meshes,
    /// issue new requests, hand meshes out within `budget`.
    pub fn update(&mut self, player_chunk: ChunkPos, budget: Budget) {
        let mut changes = Vec::new();
        self.update_showing(player_chunk, budget, &mut |c| changes.push(c));
        self.view_changes = changes;
    }

    /// [`ChunkStreamer::update`], handing each view change to `show` as it
    /// is decided: the meshes handed out stop at the frame's deadline with
    /// the time `show` took to upload them counted.
    pub fn update_showing(&mut self, player_chunk: ChunkPos, budget: Budget, show: &mut dyn FnMut(ViewChange)) {
        let now = Instant::now();
        let frame = self.last_update.replace(now).map_or(Duration::ZERO, |last| now - last);
        let scale = frame_scale(frame);
        let budget = budget.scaled(scale, frame);
        // The whole update's time: what the fixed work (a step across a
        // chunk border, the light thread's results) takes first is not
        // left to the elastic work.
        let deadline = now + budget.time;
        let mut laps = Laps(CpuClock::now());
        let mut parts = UpdateParts::default();
        self.recentre(player_chunk, !self.started);
        self.started = true;
        // Sized by the lanes' measured throughput, so the engines and not
        // the window set the pace; today's fixed window is the floor.
        let capacity = self.service.balance().capacity();
        self.requests.set_max_in_flight(requests::window(capacity, frame, 4 * DEFAULT_BATCH * scale));
        if let Some(n) = self.switch.poll(&self.service) {
            self.notice = Some(n);
        }

        parts.recentre = laps.lap();
        self.take_light();
        parts.light = laps.lap();
        let mut arrivals = 0;
        let shared = self.store.clone();
        let mut store = shared.write();
        while arrivals < budget.max_arrivals {
            // A burst beyond the time budget waits in the channel (its
            // requests stay in flight, so none is asked for twice).
            if arrivals % ARRIVALS_PER_CLOCK_READ == ARRIVALS_PER_CLOCK_READ - 1 && Instant::now() >= deadline {
                break;
            }
            let Some(event) = self.service.try_next() else { break };
            match event {
                Event::Generated { chunk, .. } => {
                    arrivals += 1;
                    self.generated_total += 1;
                    let pos = chunk.pos;
                    self.requests.returned(pos);
                    if !self.range.holds(pos) {
                        continue;
                    }
                    store.insert_generated(chunk);
                }
                Event::Cancelled(pos) => self.requests.returned(pos),
            }
        }
        drop(store);
        parts.arrivals = laps.lap();
        self.take_terrain_changes();
        parts.changes = laps.lap();
        self.try_waiting(deadline);
        parts.tries = laps.lap();

        let store = self.store.read();
        let batch = self.requests.next_batch(scale, |p| store.contains_near(p));
        drop(store);
        if !batch.is_empty() {
            self.service.send(Command::Generate(batch));
        }
        let complete = self.is_complete();
        self.requests.rewind_if_stalled(complete);
        parts.requests = laps.lap();

        let (store, light) = (self.store.read(), &self.light);
        let range = self.range;
        let dispatch_deadline = deadline.max(Instant::now() + budget.time / SHARE);
        self.meshes.dispatch(MAX_IN_PIPELINE * scale, dispatch_deadline, |p| {
            Self::mesh_input(&store, light, p, range.lights(p))
        });
        drop(store);
        parts.dispatch = laps.lap();
        for change in std::mem::take(&mut self.view_changes) {
            show(change);
        }
        // Uploads get a share of the budget even when the work before them
        // took it all, so meshes keep going up on a slow frame.
        let upload_deadline = deadline.max(Instant::now() + budget.time / SHARE);
        let store = &self.store;
        self.meshes.hand_out(&range, (budget.upload_bytes, upload_deadline), |p, mesh, links| {
            store.write().set_links(p, links);
            show(mesh.map_or(ViewChange::Gone(p), |m| ViewChange::Mesh(p, m)))
        });
        parts.hand_out = laps.lap();
        self.evict_leaving(deadline);
        parts.evict = laps.lap();
        self.parts = parts;
    }

    /// Where the last update's time went.
    pub fn update_parts(&self) -> UpdateParts {
        self.parts
    }

    /// Consumes the store's change set: new and modified chunks in the lit range go to
    /// the light stage, and every new or modified chunk's neighbourhood is
    /// tried for meshing. Removed chunks need nothing: eviction follows the
    /// range, which the mesh pipeline and the light stage follow too.
    fn take_terrain_changes(&mut self) {
        let changes = self.store.write().take_changes();
        // A chunk evicted and generated again in between is modified, and
        // may not be lit yet.
        for &pos in changes.new.iter().chain(&changes.modified) {
            if self.range.holds_light(pos) {
                self.light.add(pos);
            }
        }
        // Neighbourhoods of neighbours overlap: a block of arrivals asks
        // for each position many times, and it is tried once.
        for &pos in changes.new.iter().chain(&changes.modified) {
            for p in neighbourhood(pos) {
                self.to_try.push(p);
            }
        }
    }

    /// Light the light thread finished: chunks whose meshes read changed
    /// light are meshed again, and chunks that waited for a neighbour's
    /// light are tried.
    fn take_light(&mut self) {
        let range = self.range;
        let bottom = range.centre.y.saturating_sub(LIGHT_VERTICAL);
        let changed: FxHashSet<ChunkPos> = self.light.poll().into_iter().collect();
        // Chunks the light thread let go of that left the data range go now.
        let released = self.light.take_released();
        let gone: Vec<ChunkPos> = released.into_iter().filter(|&p| !range.holds(p) && !self.light.holds(p)).collect();
        if !gone.is_empty() {
            self.store.write().evict_these(&gone);
        }
        for &pos in &changed {
            if range.lights(pos) && self.meshes.is_settled_or_busy(pos) {
                // A queued chunk reads its light when it is sent.
                self.meshes.invalidate(pos);
                self.meshes.remeshed(pos, None);
            }
        }
        // Chunks that waited on these: their neighbours, and the chunks
        // below them (which wait for the sky from above).
        let mut waiting = FxHashSet::default();
        for &pos in &changed {
            for dz in -1..=1 {
                for dx in -1..=1 {
                    for y in bottom..=pos.y + 1 {
                        waiting.insert(ChunkPos::new(pos.x + dx, y, pos.z + dz));
                    }
                }
            }
        }
        let shared = self.store.clone();
        let store = shared.read();
        for p in waiting {
            if range.lights(p) {
                self.try_mesh(&store, p);
            }
        }
    }

    /// Mesh jobs sent to the mesher threads so far.
    pub fn mesh_jobs_sent(&self) -> u64 {
        self.meshes.jobs_sent
    }

    /// Bytes of dense light held.
    pub fn light_bytes(&self) -> usize {
        self.light.heap_bytes()
    }

    fn complete_count(&self) -> usize {
        #[cfg(debug_assertions)]
        debug_assert!(self.meshes.all_within(&self.range));
        self.meshes.done_count()
    }

    pub fn counts(&self) -> StreamCounts {
        let st = self.service.stats();
        StreamCounts {
            loaded: self.store.read().loaded_count(),
            queued: st.queued.load(Ordering::Relaxed),
            generating: st.generating.load(Ordering::Relaxed),
            meshing: self.meshes.pending(),
            wanted: self.requests.wanted().len(),
            complete: self.complete_count(),
        }
    }

    /// Chunks within `r` of the streaming centre (horizontally and, up to
    /// the vertical reach, vertically) that the view has not drawn yet,
    /// nor found empty: the holes a player sees in that part of the view.
    /// A chunk waiting to be meshed again (an edit, or its light changed)
    /// still shows its older mesh, so it is no hole.
    pub fn holes_within(&self, r: i32) -> usize {
        let c = self.range.centre;
        self.holes().filter(|&o| within(offset(c, o), c, r)).count()
    }

    /// The generation device while chunks are made on it, with the
    /// service's counters (whether chunk requests wait), for far terrain.
    pub fn far_device(&self) -> Option<(Arc<dyn ChunkBackend>, Arc<ServiceStats>)> {
        self.switch.far_device().map(|d| (d, self.service.stats_handle()))
    }

    /// Whether the chunk at `pos` is drawn (or known to need no mesh).
    pub fn is_drawn(&self, pos: ChunkPos) -> bool {
        self.meshes.is_drawn(pos)
    }

    /// Where the drawn chunks are opaque, column by column (far terrain
    /// behind them is hidden), as of the last [`Self::refresh_solid`].
    pub fn solid(&self) -> &crate::far::occlusion::SolidColumns {
        self.meshes.solid()
    }

    /// Brings [`Self::solid`] up to the chunks drawn now.
    pub fn refresh_solid(&mut self) {
        self.meshes.refresh_solid(&self.range);
    }

    /// Every hole in the render range, as an offset from the centre.
    pub fn holes(&self) -> impl Iterator<Item = rings::Offset> + '_ {
        let r = self.range.render_distance;
        rings::ring_offsets(r, rings::vertical(r), 0).into_iter().filter(|&o| !self.meshes.is_drawn(self.range.at(o)))
    }

    /// Every wanted chunk is generated and meshed (or known to need no mesh).
    pub fn is_complete(&self) -> bool {
        self.complete_count() >= self.requests.wanted().len()
    }

    pub fn generated_total(&self) -> u64 {
        self.generated_total
    }

    /// The store, to read: its chunks, and which faces of each see each
    /// other for visibility culling. Hold it for a walk, not across frames
    /// (the game thread's own updates wait for it).
    pub fn store(&self) -> RwLockReadGuard<'_, ChunkStore> {
        self.store.read()
    }

    pub fn world(&self) -> &Arc<WorldGen> {
        &self.world
    }

    /// Bytes of chunk data the store holds.
    pub fn data_bytes(&self) -> usize {
        self.store.read().data_bytes()
    }

    /// Wanted (in range) → mesh on the GPU, per chunk with a mesh.
    pub fn ready_latencies(&mut self) -> &mut Vec<(ReadyStages, rings::Offset)> {
        &mut self.meshes.ready_latencies
    }
}

/// A chunk and its 26 neighbours, if all are loaded.
fn gather(store: &ChunkStore, pos: ChunkPos) -> Option<Vec<Arc<Chunk>>> {
    neighbourhood(pos).map(|p| store.get(p).cloned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_waits_to_be_tried_once() {
        let mut q = TryQueue::default();
        let (a, b) = (ChunkPos::new(0, 0, 0), ChunkPos::new(1, 0, 0));
        for p in [a, b, a, a, b] {
            q.push(p);
        }
        assert_eq!((q.pop(), q.pop(), q.pop()), (Some(a), Some(b), None));
        q.push(a);
        assert_eq!(q.pop(), Some(a), "a position tried can wait again");
    }

    #[test]
    fn slow_frames_hand_out_more_work() {
        assert_eq!(frame_scale(Duration::from_millis(5)), 1);
        assert_eq!(frame_scale(Duration::from_millis(16)), 1);
        assert_eq!(frame_scale(Duration::from_millis(160)), 10);
        assert_eq!(frame_scale(Duration::from_secs(3)), MAX_FRAME_SCALE);
    }
}
