//! The far view around the player: which far tiles the eye wants (asked
//! again when it moves), and the workers' tiles handed on as changes. Like streaming, it knows no GPU; `view.rs`
//! applies its changes to the renderer.

use crate::backend::service::ServiceStats;
use crate::backend::ChunkBackend;
use crate::far::worker::ColumnSource;
use crate::far::{FarChange, FarCounts, FarRange, FarTerrain, TileKey};
use crate::worldgen::WorldGen;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// The eye moves this many blocks before the wanted tiles are worked out
/// again (the finest level's squares snap to 128 blocks).
const STEP: i64 = 16;

/// Far quads taken from the workers a frame (1 MiB of uploads): a burst of
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
    std::thread::available_parallelism().map(|n| n.get() / 4).unwrap_or(1).max(1)
}

impl FarView {
    pub fn new(world: Arc<WorldGen>, horizon: u32, threads: usize) -> FarView {
        FarView { terrain: FarTerrain::new(world, threads), horizon, asked: None, device: None }
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
    /// longer wanted), then hands on tiles made since the last call, up to
    /// a frame's upload budget.
    pub fn update(&mut self, eye: [f64; 2], out: &mut Vec<FarChange>) {
        let eye = eye.map(|v| v.floor() as i64);
        let asked = Asked { eye: eye.map(|v| v.div_euclid(STEP) * STEP), horizon: self.horizon };
        if self.asked != Some(asked) {
            self.asked = Some(asked);
            self.terrain.want(&FarRange { eye, horizon: self.horizon }.tiles(), out);
        }
        self.terrain.poll(QUADS_A_FRAME, out);
    }

    /// Waits until every wanted tile is made or `deadline` passes; whether
    /// all were made.
    pub fn finish(&mut self, deadline: Instant, apply: &mut dyn FnMut(FarChange)) -> bool {
        self.terrain.finish(deadline, apply)
    }

    pub fn counts(&self) -> FarCounts {
        self.terrain.counts()
    }

    /// Wanted tiles neither drawn nor covered by a tile they replace.
    pub fn holes(&self) -> impl Iterator<Item = crate::far::TileKey> + '_ {
        self.terrain.holes()
    }
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
}
