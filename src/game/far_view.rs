//! The far view around the player: which far tiles the eye wants (asked
//! again when it moves), and the workers' tiles handed on as changes. Like streaming, it knows no GPU; `view.rs`
//! applies its changes to the renderer.

use crate::backend::service::ServiceStats;
use crate::backend::ChunkBackend;
use crate::far::worker::ColumnSource;
use crate::far::{FarChange, FarCounts, FarRange, FarTerrain, TileKey};
use crate::worldgen::WorldGen;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// The eye moves this many blocks before the wanted tiles are worked out
/// again (the finest level's squares snap to 128 blocks).
const STEP: i64 = 16;

/// Far quads handed to the renderer a frame (1 MiB of uploads): a burst of
/// tiles (after a long frame, or a jump) reaches the GPU over a few frames
/// instead of in one long one.
const QUADS_A_FRAME: usize = 64 * 1024;

/// What the wanted tiles were last worked out for.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Asked {
    eye: [i64; 2],
    horizon: u32,
}

pub struct FarView {
    terrain: FarTerrain,
    horizon: u32,
    asked: Option<Asked>,
    /// The device the workers take columns from, if any.
    device: Option<Arc<dyn ChunkBackend>>,
    /// Changes made but not handed out yet, in order (a tile's
    /// replacement always comes before its `Gone`).
    backlog: VecDeque<FarChange>,
}

/// Far columns made on the generation device, but only while no chunk
/// request waits in the service's queue: far terrain takes the device's
/// idle moments and never goes ahead of a near chunk. A failed device
/// answers None and the workers sample on the CPU.
struct DeviceColumns {
    device: Arc<dyn ChunkBackend>,
    chunks: Arc<ServiceStats>,
}

impl ColumnSource for DeviceColumns {
    fn columns(&self, tiles: &[TileKey]) -> Option<Vec<(i32, u8)>> {
        if self.chunks.queued.load(Ordering::Relaxed) > 0 {
            return None;
        }
        self.device.far_cells(tiles).ok()
    }
}

/// Far-terrain workers: one per four cores, at least one, so the chunk
/// generators keep most of the machine.
pub fn default_threads() -> usize {
    (crate::backend::cpu::threads() / 4).max(1)
}

impl FarView {
    pub fn new(world: Arc<WorldGen>, horizon: u32, threads: usize) -> FarView {
        FarView {
            terrain: FarTerrain::new(world, threads),
            horizon,
            asked: None,
            device: None,
            backlog: VecDeque::new(),
        }
    }

    /// Takes far columns from the generation device while chunks are made
    /// there (`ChunkStreamer::far_device`), else samples them on the CPU.
    pub fn use_device(&mut self, device: Option<(Arc<dyn ChunkBackend>, Arc<ServiceStats>)>) {
        let same = match (&self.device, &device) {
            (Some(a), Some((b, _))) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if same {
            return;
        }
        self.device = device.as_ref().map(|(d, _)| d.clone());
        self.terrain.set_source(
            device.map(|(device, chunks)| Arc::new(DeviceColumns { device, chunks }) as Arc<dyn ColumnSource>),
        );
    }

    pub fn horizon(&self) -> u32 {
        self.horizon
    }

    pub fn set_horizon(&mut self, horizon: u32) {
        self.horizon = horizon;
    }

    /// Asks for the tiles the eye wants if it moved (out: the tiles no
    /// longer wanted), then hands on what changed, in order, up to a
    /// frame's upload budget; the rest waits for the next frames.
    pub fn update(&mut self, eye: [f64; 2], out: &mut Vec<FarChange>) {
        let eye = eye.map(|v| v.floor() as i64);
        let asked = Asked { eye: eye.map(|v| v.div_euclid(STEP) * STEP), horizon: self.horizon };
        let mut changes = Vec::new();
        if self.asked != Some(asked) {
            self.asked = Some(asked);
            self.terrain.want(&FarRange { eye, horizon: self.horizon }.tiles(), &mut changes);
        }
        self.terrain.poll(&mut changes);
        self.backlog.extend(changes);
        out.extend(take_within(&mut self.backlog, QUADS_A_FRAME));
    }

    /// Waits until every wanted tile is made or `deadline` passes; whether
    /// all were made. Everything made is handed to `apply`.
    pub fn finish(&mut self, deadline: Instant, apply: &mut dyn FnMut(FarChange)) -> bool {
        self.backlog.drain(..).for_each(&mut *apply);
        self.terrain.finish(deadline, apply)
    }

    pub fn counts(&self) -> FarCounts {
        self.terrain.counts()
    }

    /// Wanted tiles not on screen and not covered by a tile they replace
    /// (a tile waiting in the backlog is not on screen yet).
    pub fn holes(&self) -> Vec<TileKey> {
        let (mut unshown, mut still_drawn) = (Vec::new(), Vec::new());
        for c in &self.backlog {
            match c {
                FarChange::Mesh(k, _) => unshown.push(*k),
                FarChange::Gone(k) => still_drawn.push(*k),
            }
        }
        self.terrain.holes_beside(&unshown, &still_drawn).collect()
    }
}

/// Changes from the front of `backlog` until they hold `quads` quads (at
/// least one change; a `Gone` costs none, so it follows the tiles that
/// replace it at once).
fn take_within(backlog: &mut VecDeque<FarChange>, quads: usize) -> Vec<FarChange> {
    let mut taken = 0;
    let mut out = Vec::new();
    while let Some(c) = backlog.front() {
        let cost = match c {
            FarChange::Mesh(_, q) => q.len().max(1),
            FarChange::Gone(_) => 0,
        };
        if !out.is_empty() && taken + cost > quads {
            break;
        }
        taken += cost;
        out.extend(backlog.pop_front());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::CpuBackend;
    use crate::worldgen::Preset;

    /// The device's columns are taken only while no chunk request waits.
    #[test]
    fn device_columns_give_way_to_waiting_chunk_requests() {
        let world = Arc::new(WorldGen::new(Preset::classic(), 2));
        let chunks = Arc::new(ServiceStats::default());
        let source = DeviceColumns { device: Arc::new(CpuBackend::serial(world.clone())), chunks: chunks.clone() };
        let tiles = [TileKey { level: 2, x: 1, z: -1 }];
        assert_eq!(source.columns(&tiles), Some(crate::far::tile::sample(&world, tiles[0])));
        chunks.queued.store(3, Ordering::Relaxed);
        assert_eq!(source.columns(&tiles), None, "chunk requests wait: the CPU samples");
    }

    /// A frame's budget hands out whole tiles in order, at least one, and a
    /// `Gone` goes with the tiles before it.
    #[test]
    fn the_upload_budget_hands_out_changes_in_order() {
        use crate::far::mesh::FarQuad;
        let key = |x| TileKey { level: 0, x, z: 0 };
        let mesh = |x, n| FarChange::Mesh(key(x), vec![FarQuad([0; 4]); n]);
        let mut backlog: VecDeque<FarChange> =
            [mesh(0, 600), mesh(1, 300), FarChange::Gone(key(9)), mesh(2, 200), mesh(3, 5000)].into();
        let names = |v: &[FarChange]| {
            v.iter()
                .map(|c| match c {
                    FarChange::Mesh(k, _) => format!("m{}", k.x),
                    FarChange::Gone(k) => format!("g{}", k.x),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&take_within(&mut backlog, 1000)), ["m0", "m1", "g9"]);
        assert_eq!(names(&take_within(&mut backlog, 1000)), ["m2"]);
        assert_eq!(names(&take_within(&mut backlog, 1000)), ["m3"], "one tile over the budget still goes");
        assert!(take_within(&mut backlog, 1000).is_empty());
    }
}
