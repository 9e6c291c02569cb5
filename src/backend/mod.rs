//! Generation backends: where chunk requests are turned into chunks.
//!
//! * [`cpu::CpuBackend`]: the Rust path, serial or on the rayon pool.
//! * [`kernel::KernelBackend`]: drives the kernels of `kernels/` on a
//!   [`kernel::KernelDevice`]: a real GPU through cudarc ([`cuda`]), or the
//!   same kernel source compiled for the CPU (`emulated`, feature
//!   `kernel-emulation`).
//! * [`fallback::FallbackBackend`]: a GPU backend that hands its work to the
//!   CPU when the device fails, so no request is lost.
//! * [`service::GenerationService`]: a thread that batches requests and
//!   returns chunks over a crossbeam channel, so callers never block.
pub mod balance;
pub mod cpu;
pub mod cuda;
#[cfg(feature = "kernel-emulation")]
pub mod emulated;
pub mod engine;
pub mod fallback;
pub mod kernel;
pub mod nvrtc;
pub mod runs;
pub mod service;
pub mod twins;

use crate::far::TileKey;
use crate::world::chunk::Chunk;
use crate::world::coords::{ChunkPos, ColumnPos};
use crate::worldgen::heightmap::Heightmap;
use crate::worldgen::WorldGen;
pub use engine::Engine;
use std::sync::Arc;

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum BackendError {
    #[error("GPU unavailable: {0}")]
    Unavailable(String),
    #[error("CUDA error during {stage}: {message}")]
    Device { stage: &'static str, message: String },
    #[error("the cuda-emulated backend is not built into this binary: rebuild with `--features kernel-emulation`")]
    EmulationNotBuilt,
    #[error("{0}")]
    InvalidSetting(String),
}

/// Times of the last request to a device backend.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct DeviceTimings {
    /// Kernel execution alone (CUDA events on a GPU).
    pub kernel_ms: f64,
    pub end_to_end_ms: f64,
    /// Host-side orchestration: end to end minus the time the host spent
    /// blocked waiting for the device (kernels and copies).
    pub host_ms: f64,
    /// Host-side orchestration as CPU time of the calling thread: blocking
    /// waits cost none, and time the OS gave to other threads (on a machine
    /// without a GPU, the emulated kernels) is not counted. None where the
    /// platform has no per-thread clock.
    pub host_cpu_ms: Option<f64>,
    /// Decoding the fills' run streams into each chunk's own storage,
    /// summed over the decode pool's threads (not the calling thread's).
    pub decode_ms: f64,
    /// Bytes the fills sent back: run streams and block counts.
    pub bytes_back: u64,
    /// Chunks that went through a fill (the rest were known uniform).
    pub filled: u64,
    /// Time the host was blocked waiting for the device.
    pub wait_ms: f64,
    /// The device's busy time: kernels and the copies back (CUDA events on
    /// a GPU and under the driver stand-in; wall time when emulated).
    pub device_ms: f64,
}

/// CPU time consumed by the calling thread so far.
#[cfg(unix)]
pub fn thread_cpu_time() -> Option<std::time::Duration> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write into.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    ok.then(|| std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

#[cfg(not(unix))]
pub fn thread_cpu_time() -> Option<std::time::Duration> {
    None
}

pub trait ChunkBackend: Send + Sync {
    fn kind(&self) -> Engine;
    /// Generates `positions`, returning chunks in the same order.
    fn generate(&self, positions: &[ChunkPos]) -> Result<Vec<Chunk>, BackendError>;
    /// Timings of the last batch, for device backends.
    fn last_timings(&self) -> Option<DeviceTimings> {
        None
    }
    /// A one-line description (device name, thread count…).
    fn describe(&self) -> String;
    /// The heightmaps of whole chunk columns, in order, on this backend
    /// (`blockworld map`). Backends that only make chunks refuse.
    fn heightmaps(&self, columns: &[ColumnPos]) -> Result<Vec<Heightmap>, BackendError> {
        let _ = columns;
        Err(BackendError::Device {
            stage: "heightmaps",
            message: format!("the {} backend does not make heightmaps alone", self.kind().label()),
        })
    }
    /// The ground height and biome of every cell of far `tiles`
    /// (`far::tile::sample`'s values, [`crate::far::tile::TILE_AREA`] a tile, in
    /// order). Backends that only make chunks refuse.
    fn far_cells(&self, tiles: &[TileKey]) -> Result<Vec<(i32, u8)>, BackendError> {
        let _ = tiles;
        Err(BackendError::Device {
            stage: "far cells",
            message: format!("the {} backend does not make far terrain", self.kind().label()),
        })
    }
}

/// How a device runs the kernels. Parsed once at the binary's edge (from
/// the command line and its environment) and passed down: nothing below
/// `main.rs` reads the environment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceOptions {
    /// How the heightmap kernel evaluates the noise graph.
    pub path: kernel::KernelPath,
    /// How the density kernel evaluates its noise.
    pub density: kernel::DensityVariant,
    /// One kernel image source to use instead of the driver's order.
    pub image: Option<cuda::ImageSource>,
    /// The NVRTC library to load for run-time compiles, instead of the usual names.
    pub nvrtc: Option<std::path::PathBuf>,
}

/// A device engine and how it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Device {
    /// [`Engine::Gpu`], or [`Engine::CudaEmulated`] where the emulation is built in.
    pub engine: Engine,
    pub options: DeviceOptions,
}

impl From<Engine> for Device {
    fn from(engine: Engine) -> Device {
        Device { engine, options: DeviceOptions::default() }
    }
}

/// Creates a backend of `kind` for a world. GPU and emulated backends fail
/// here with a reason when they cannot run.
pub fn create(
    kind: Engine,
    world: Arc<WorldGen>,
    options: &DeviceOptions,
) -> Result<Arc<dyn ChunkBackend>, BackendError> {
    Ok(match kind {
        Engine::CpuSerial => Arc::new(cpu::CpuBackend::serial(world)),
        Engine::Cpu => Arc::new(cpu::CpuBackend::parallel(world)),
        Engine::Gpu => Arc::new(kernel::KernelBackend::new(cuda::CudaDevice::open(&world.params, options)?, &world)),
        Engine::CudaEmulated => create_emulated(world, options)?,
        Engine::Hybrid => {
            return Err(BackendError::InvalidSetting(
                "hybrid shares work between the CPU and a GPU in the generation service; it is not one backend".into(),
            ))
        }
    })
}

#[cfg(feature = "kernel-emulation")]
fn create_emulated(world: Arc<WorldGen>, options: &DeviceOptions) -> Result<Arc<dyn ChunkBackend>, BackendError> {
    let device = emulated::EmulatedDevice::new(&world.params).with_path(options.path).with_density(options.density);
    Ok(Arc::new(kernel::KernelBackend::new(device, &world)))
}

#[cfg(not(feature = "kernel-emulation"))]
fn create_emulated(_world: Arc<WorldGen>, _options: &DeviceOptions) -> Result<Arc<dyn ChunkBackend>, BackendError> {
    Err(BackendError::EmulationNotBuilt)
}
