//! A device backend with the CPU behind it: when the device fails (out of
//! memory, launch failure, lost device) the error is reported once, the
//! device is marked failed, and the batch that failed — and every later
//! one — runs on the CPU. No chunk request is lost.

use super::cpu::CpuBackend;
use super::{BackendError, ChunkBackend, DeviceTimings, Engine};
use crate::far::TileKey;
use crate::world::chunk::Chunk;
use crate::world::coords::{ChunkPos, ColumnPos};
use crate::worldgen::heightmap::Heightmap;
use std::sync::{Arc, Mutex};

pub struct FallbackBackend {
    primary: Arc<dyn ChunkBackend>,
    cpu: CpuBackend,
    failure: Mutex<Option<BackendError>>,
}

impl FallbackBackend {
    pub fn new(primary: Arc<dyn ChunkBackend>, cpu: CpuBackend) -> Self {
        Self { primary, cpu, failure: Mutex::new(None) }
    }

    /// Runs `work` on the device until it first fails, then (that request
    /// included) on the CPU for good.
    fn on_device_or_cpu<T>(
        &self,
        work: impl Fn(&dyn ChunkBackend) -> Result<T, BackendError>,
    ) -> Result<T, BackendError> {
        if self.failure().is_none() {
            match work(&*self.primary) {
                Ok(v) => return Ok(v),
                Err(e) => {
                    eprintln!(
                        "blockworld: {} backend failed: {e}. Its requests move to the CPU.",
                        self.primary.kind().label()
                    );
                    *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                }
            }
        }
        work(&self.cpu)
    }

    /// Why the device was abandoned, if it was.
    pub fn failure(&self) -> Option<BackendError> {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl ChunkBackend for FallbackBackend {
    fn kind(&self) -> Engine {
        if self.failure().is_some() {
            self.cpu.kind()
        } else {
            self.primary.kind()
        }
    }

    fn generate(&self, positions: &[ChunkPos]) -> Result<Vec<Chunk>, BackendError> {
        self.on_device_or_cpu(|b| b.generate(positions))
    }

    fn last_timings(&self) -> Option<DeviceTimings> {
        if self.failure().is_some() {
            None
        } else {
            self.primary.last_timings()
        }
    }

    fn describe(&self) -> String {
        match self.failure() {
            Some(e) => format!("{} (device failed: {e})", self.cpu.describe()),
            None => self.primary.describe(),
        }
    }

    /// The device's heightmaps, or the CPU's once the device has failed.
    fn heightmaps(&self, columns: &[ColumnPos]) -> Result<Vec<Heightmap>, BackendError> {
        self.on_device_or_cpu(|b| b.heightmaps(columns))
    }

    /// The device's far cells, or the CPU's once the device has failed.
    fn far_cells(&self, tiles: &[TileKey]) -> Result<Vec<(i32, u8)>, BackendError> {
        self.on_device_or_cpu(|b| b.far_cells(tiles))
    }
}
