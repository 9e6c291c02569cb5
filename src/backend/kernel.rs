//! Host-side orchestration of the generation kernels, shared by the real GPU
//! ([`super::cuda::CudaDevice`]) and the CPU emulation of the same kernels
//! ([`super::emulated::EmulatedDevice`]), so the emulation tests this code too.
//!
//! Per batch: one heightmap launch for the batch's distinct chunk columns;
//! the column extremes come back and the chunks known to be uniform (air
//! above the terrain, stone deep below) are settled on the host exactly as
//! the CPU path settles them; one fill launch covers the rest.

use super::cpu::distinct_columns;
use super::{BackendError, BackendKind, ChunkBackend, DeviceTimings};
use crate::world::block::{BlockId, MAX_BLOCK_TYPES};
use crate::world::chunk::{BlockCounts, Chunk, ChunkBlocks};
use crate::world::coords::{ChunkPos, CHUNK_VOLUME};
use crate::worldgen::fill::known_uniform;
use crate::worldgen::params::WorldParams;
use crate::worldgen::WorldGen;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// Twin of `ColumnJob` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnJob {
    pub x: i32,
    pub z: i32,
}

/// Twin of `ChunkJob` in kernels/worldgen_params.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkJob {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    /// Index into the batch's column jobs.
    pub column: u32,
}

/// How the heightmap kernel evaluates the noise graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelPath {
    /// Polymorphic noise objects with a virtual `compute` (the seed-004 design; default).
    Virtual,
    /// A switch over node kinds on the flat node array (no indirect calls).
    Switch,
}

impl KernelPath {
    /// From `BLOCKWORLD_KERNEL_PATH` (`virtual`, the default, or `switch`).
    pub fn from_env() -> Result<KernelPath, BackendError> {
        match std::env::var("BLOCKWORLD_KERNEL_PATH").as_deref() {
            Err(_) | Ok("") | Ok("virtual") => Ok(KernelPath::Virtual),
            Ok("switch") => Ok(KernelPath::Switch),
            Ok(other) => Err(BackendError::InvalidSetting(format!(
                "BLOCKWORLD_KERNEL_PATH={other}: expected `virtual` or `switch`"
            ))),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            KernelPath::Virtual => "virtual noise objects",
            KernelPath::Switch => "switch over node kinds",
        }
    }
}

/// Most chunk columns in one heightmap launch.
pub const MAX_BATCH_COLUMNS: usize = 2048;
/// Most chunks in one fill launch (32 KiB each on the device).
pub const MAX_BATCH_CHUNKS: usize = 1024;

/// A place that runs the kernels.
pub trait KernelDevice: Send {
    /// `Gpu` for a real device, `CudaEmulated` for the CPU emulation.
    fn kind(&self) -> BackendKind;
    fn describe(&self) -> String;
    /// Runs the heightmap kernel for `columns`, keeping the heightmaps
    /// resident for [`KernelDevice::fill`]. Returns [min, max] per column.
    fn heightmaps(&mut self, columns: &[ColumnJob]) -> Result<Vec<[i32; 2]>, BackendError>;
    /// Runs the fill kernel on the resident heightmaps. Returns the block ids
    /// (`CHUNK_VOLUME` per chunk) and counts (`MAX_BLOCK_TYPES` per chunk).
    fn fill(&mut self, chunks: &[ChunkJob]) -> Result<(Vec<u8>, Vec<u32>), BackendError>;
    /// Kernel time of the last heightmap plus fill, where the device measures it.
    fn last_kernel_ms(&self) -> Option<f64>;
}

pub struct KernelBackend<D: KernelDevice> {
    device: Mutex<D>,
    params: Box<WorldParams>,
    kind: BackendKind,
    timings: Mutex<Option<DeviceTimings>>,
}

impl<D: KernelDevice> KernelBackend<D> {
    pub fn new(device: D, world: &WorldGen) -> Self {
        let kind = device.kind();
        Self { device: Mutex::new(device), params: world.params.clone(), kind, timings: Mutex::new(None) }
    }

    fn run_batch(&self, device: &mut D, positions: &[ChunkPos]) -> Result<(Vec<Chunk>, f64), BackendError> {
        let columns = distinct_columns(positions);
        let index: HashMap<_, _> = columns.iter().enumerate().map(|(i, c)| (*c, i as u32)).collect();
        let jobs: Vec<ColumnJob> = columns.iter().map(|c| ColumnJob { x: c.x, z: c.z }).collect();
        let extremes = device.heightmaps(&jobs)?;
        let mut kernel_ms = device.last_kernel_ms().unwrap_or(0.0);

        let mut chunks: Vec<Option<Chunk>> = vec![None; positions.len()];
        let mut fill_jobs = Vec::new();
        let mut fill_slots = Vec::new();
        for (slot, &pos) in positions.iter().enumerate() {
            let column = index[&pos.column()];
            let [lo, hi] = extremes[column as usize];
            match known_uniform(&self.params, pos, lo, hi) {
                Some(b) => {
                    chunks[slot] = Some(Chunk { pos, blocks: ChunkBlocks::Uniform(b), counts: BlockCounts::uniform(b) })
                }
                None => {
                    fill_jobs.push(ChunkJob { x: pos.x, y: pos.y, z: pos.z, column });
                    fill_slots.push(slot);
                }
            }
        }
        if !fill_jobs.is_empty() {
            let (blocks, counts) = device.fill(&fill_jobs)?;
            kernel_ms += device.last_kernel_ms().unwrap_or(0.0);
            for (i, &slot) in fill_slots.iter().enumerate() {
                let ids: Box<[BlockId]> =
                    bytemuck::cast_slice(&blocks[i * CHUNK_VOLUME..(i + 1) * CHUNK_VOLUME]).into();
                let mut c = [0u32; MAX_BLOCK_TYPES];
                c.copy_from_slice(&counts[i * MAX_BLOCK_TYPES..(i + 1) * MAX_BLOCK_TYPES]);
                let counts = BlockCounts(c);
                chunks[slot] =
                    Some(Chunk { pos: positions[slot], blocks: ChunkBlocks::from_dense(ids, &counts), counts });
            }
        }
        // Every slot was settled above, either as uniform or by the fill.
        Ok((chunks.into_iter().flatten().collect(), kernel_ms))
    }
}

impl<D: KernelDevice> ChunkBackend for KernelBackend<D> {
    fn kind(&self) -> BackendKind {
        self.kind
    }

    fn generate(&self, positions: &[ChunkPos]) -> Result<Vec<Chunk>, BackendError> {
        let start = Instant::now();
        let mut device = self.device.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::with_capacity(positions.len());
        let mut kernel_ms = 0.0;
        // Batches are bounded by columns and chunks; a batch of columns keeps
        // its chunks together so each heightmap is computed once.
        let mut start_i = 0;
        while start_i < positions.len() {
            let mut end = start_i;
            let mut cols = std::collections::HashSet::new();
            while end < positions.len() && end - start_i < MAX_BATCH_CHUNKS {
                cols.insert(positions[end].column());
                if cols.len() > MAX_BATCH_COLUMNS {
                    break;
                }
                end += 1;
            }
            let (chunks, ms) = self.run_batch(&mut device, &positions[start_i..end])?;
            out.extend(chunks);
            kernel_ms += ms;
            start_i = end;
        }
        *self.timings.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(DeviceTimings { kernel_ms, end_to_end_ms: start.elapsed().as_secs_f64() * 1e3 });
        Ok(out)
    }

    fn last_timings(&self) -> Option<DeviceTimings> {
        *self.timings.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn describe(&self) -> String {
        self.device.lock().unwrap_or_else(|e| e.into_inner()).describe()
    }
}
