//! The real GPU device: the kernels of `kernels/` through cudarc, with the
//! CUDA libraries loaded at run time, so the binary starts on machines with
//! no NVIDIA driver and reports why the GPU is unavailable.
//!
//! Module loading: the fatbin built by build.rs (SASS for sm_75…sm_120 plus
//! compute_75 PTX); if it is missing or the driver rejects it, the embedded
//! kernel source is compiled with NVRTC.

use super::kernel::{ChunkJob, ColumnJob, KernelDevice, KernelPath};
use super::BackendError;
use crate::world::block::MAX_BLOCK_TYPES;
use crate::world::coords::{CHUNK_AREA, CHUNK_VOLUME};
use crate::worldgen::params::WorldParams;
use crate::worldgen::preset::MAX_NODES;
use std::sync::Arc;

const HEIGHTMAP_THREADS: u32 = 256;
const FILL_THREADS: u32 = 512;

const HEIGHTMAP_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/heightmap.nvrtc.cu"));
const FILL_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/fill.nvrtc.cu"));

#[cfg(bw_fatbin)]
const HEIGHTMAP_FATBIN: Option<&[u8]> = Some(include_bytes!(concat!(env!("OUT_DIR"), "/heightmap.fatbin")));
#[cfg(bw_fatbin)]
const FILL_FATBIN: Option<&[u8]> = Some(include_bytes!(concat!(env!("OUT_DIR"), "/fill.fatbin")));
#[cfg(not(bw_fatbin))]
const HEIGHTMAP_FATBIN: Option<&[u8]> = None;
#[cfg(not(bw_fatbin))]
const FILL_FATBIN: Option<&[u8]> = None;

/// Whether this binary carries nvcc-built kernels (else NVRTC at run time).
pub fn has_prebuilt_kernels() -> bool {
    HEIGHTMAP_FATBIN.is_some()
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuInfo {
    pub name: String,
    pub compute_capability: (i32, i32),
    pub memory_bytes: usize,
}

impl std::fmt::Display for GpuInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (compute capability {}.{}, {:.1} GiB)",
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.memory_bytes as f64 / (1u64 << 30) as f64
        )
    }
}

#[cfg(target_os = "linux")]
fn no_driver_reason() -> String {
    "no NVIDIA driver: libcuda.so was not found (install the NVIDIA driver, version 580 or newer for the prebuilt kernels)".into()
}
#[cfg(not(target_os = "linux"))]
fn no_driver_reason() -> String {
    "no NVIDIA driver: the CUDA driver library was not found".into()
}

fn device_err(stage: &'static str) -> impl Fn(cudarc::driver::DriverError) -> BackendError {
    move |e| BackendError::Device { stage, message: format!("{e:?}") }
}

/// Runs `f`, turning a panic inside cudarc (it panics when a library symbol
/// is missing) into an error.
fn guarded<T>(stage: &'static str, f: impl FnOnce() -> Result<T, BackendError>) -> Result<T, BackendError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
        Err(BackendError::Unavailable(format!("{stage}: {}", msg.unwrap_or_else(|| "CUDA library failure".into()))))
    })
}

/// Checks for a usable GPU without keeping it open.
pub fn probe() -> Result<GpuInfo, BackendError> {
    guarded("probing the GPU", || {
        // SAFETY: only tries to dlopen the driver library.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(BackendError::Unavailable(no_driver_reason()));
        }
        let count = cudarc::driver::CudaContext::device_count()
            .map_err(|e| BackendError::Unavailable(format!("the NVIDIA driver did not initialise: {e:?}")))?;
        if count < 1 {
            return Err(BackendError::Unavailable("the NVIDIA driver reports no CUDA device".into()));
        }
        let ctx = cudarc::driver::CudaContext::new(0)
            .map_err(|e| BackendError::Unavailable(format!("cannot open GPU 0: {e:?}")))?;
        info(&ctx)
    })
}

fn info(ctx: &Arc<cudarc::driver::CudaContext>) -> Result<GpuInfo, BackendError> {
    let err = |e: cudarc::driver::DriverError| BackendError::Unavailable(format!("cannot query GPU 0: {e:?}"));
    Ok(GpuInfo {
        name: ctx.name().map_err(err)?,
        compute_capability: ctx.compute_capability().map_err(err)?,
        memory_bytes: ctx.total_mem().map_err(err)?,
    })
}

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg,
};

pub struct CudaDevice {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: GpuInfo,
    loaded_from: &'static str,
    _modules: [Arc<CudaModule>; 2],
    heightmap_fn: CudaFunction,
    heightmap_switch_fn: CudaFunction,
    path: KernelPath,
    fill_fn: CudaFunction,
    destroy_fn: CudaFunction,
    node_count: u32,
    params: CudaSlice<u8>,
    objects: CudaSlice<u64>,
    heights: Option<CudaSlice<i32>>,
    biomes: Option<CudaSlice<u8>>,
    columns_resident: usize,
    pinned_blocks: Option<PinnedHostSlice<u8>>,
    last_kernel_ms: Option<f64>,
}

// SAFETY: cudarc handles are thread-safe to move; the backend serialises use with a Mutex.
unsafe impl Send for CudaDevice {}

fn load_module(
    ctx: &Arc<CudaContext>,
    fatbin: Option<&[u8]>,
    source: &str,
    name: &str,
) -> Result<(Arc<CudaModule>, &'static str), BackendError> {
    let mut reasons = Vec::new();
    if let Some(bin) = fatbin {
        match ctx.load_module(cudarc::nvrtc::Ptx::from_binary(bin.to_vec())) {
            Ok(m) => return Ok((m, "prebuilt fatbin")),
            Err(e) => reasons.push(format!(
                "the prebuilt kernels were rejected ({e:?}); a driver of version 580 or newer runs them"
            )),
        }
    }
    // SAFETY: only tries to dlopen NVRTC.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        reasons.push("NVRTC (libnvrtc) is not installed, so the kernels cannot be compiled at run time".into());
        return Err(BackendError::Unavailable(reasons.join("; ")));
    }
    let (major, minor) = ctx.compute_capability().map_err(device_err("querying the compute capability"))?;
    let arch: &'static str = Box::leak(format!("compute_{major}{minor}").into_boxed_str());
    let opts = cudarc::nvrtc::CompileOptions {
        fmad: Some(false),
        options: vec!["-std=c++17".into()],
        arch: Some(arch),
        name: Some(format!("{name}.cu")),
        ..Default::default()
    };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(source, opts)
        .map_err(|e| BackendError::Unavailable(format!("{}; NVRTC failed on {name}.cu: {e:?}", reasons.join("; "))))?;
    let m = ctx.load_module(ptx).map_err(device_err("loading the NVRTC-compiled kernels"))?;
    Ok((m, "NVRTC"))
}

impl CudaDevice {
    /// Opens GPU 0, loads the kernels and builds the world's noise objects.
    pub fn open(params: &WorldParams, path: KernelPath) -> Result<CudaDevice, BackendError> {
        probe()?;
        guarded("opening the GPU", || Self::open_inner(params, path))
    }

    fn open_inner(params: &WorldParams, path: KernelPath) -> Result<CudaDevice, BackendError> {
        let ctx = CudaContext::new(0).map_err(|e| BackendError::Unavailable(format!("cannot open GPU 0: {e:?}")))?;
        let info = info(&ctx)?;
        let stream = ctx.new_stream().map_err(device_err("creating a stream"))?;
        let (hm_module, loaded_from) = load_module(&ctx, HEIGHTMAP_FATBIN, HEIGHTMAP_SOURCE, "heightmap")?;
        let (fill_module, _) = load_module(&ctx, FILL_FATBIN, FILL_SOURCE, "fill")?;
        let f =
            |m: &Arc<CudaModule>, name: &str| m.load_function(name).map_err(device_err("loading a kernel function"));
        let build_fn = f(&hm_module, "bw_build_noise_objects")?;
        let destroy_fn = f(&hm_module, "bw_destroy_noise_objects")?;
        let heightmap_fn = f(&hm_module, "bw_heightmap")?;
        let heightmap_switch_fn = f(&hm_module, "bw_heightmap_switch")?;
        let fill_fn = f(&fill_module, "bw_fill")?;

        let params_dev = stream.clone_htod(params.as_bytes()).map_err(device_err("uploading the world description"))?;
        let mut objects = stream.alloc_zeros::<u64>(MAX_NODES).map_err(device_err("allocating the noise objects"))?;
        let one = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };
        let mut launch = stream.launch_builder(&build_fn);
        launch.arg(&params_dev).arg(&mut objects);
        // SAFETY: argument types match bw_build_noise_objects(const WorldParams*, NoiseObject**).
        unsafe { launch.launch(one) }.map_err(device_err("building the noise objects"))?;
        stream.synchronize().map_err(device_err("building the noise objects"))?;

        let device = CudaDevice {
            ctx,
            stream,
            info,
            loaded_from,
            _modules: [hm_module, fill_module],
            heightmap_fn,
            heightmap_switch_fn,
            path,
            fill_fn,
            destroy_fn,
            node_count: params.node_count,
            params: params_dev,
            objects,
            heights: None,
            biomes: None,
            columns_resident: 0,
            pinned_blocks: None,
            last_kernel_ms: None,
        };
        eprintln!("blockworld: GPU {} — kernels from {}, {}", device.info, device.loaded_from, path.label());
        Ok(device)
    }

    pub fn info(&self) -> &GpuInfo {
        &self.info
    }

    fn timed<T>(
        &mut self,
        stage: &'static str,
        work: impl FnOnce(&mut Self) -> Result<T, BackendError>,
    ) -> Result<T, BackendError> {
        let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(flags).map_err(device_err(stage))?;
        let out = work(self)?;
        let end = self.stream.record_event(flags).map_err(device_err(stage))?;
        end.synchronize().map_err(device_err(stage))?;
        self.last_kernel_ms = Some(start.elapsed_ms(&end).map_err(device_err(stage))? as f64);
        Ok(out)
    }
}

impl KernelDevice for CudaDevice {
    fn kind(&self) -> super::BackendKind {
        super::BackendKind::Gpu
    }

    fn describe(&self) -> String {
        format!("GPU {} — kernels from {}, {}", self.info, self.loaded_from, self.path.label())
    }

    fn heightmaps(&mut self, columns: &[ColumnJob]) -> Result<Vec<[i32; 2]>, BackendError> {
        let stage = "heightmap launch";
        let n = columns.len();
        let flat: Vec<i32> = columns.iter().flat_map(|c| [c.x, c.z]).collect();
        let jobs = self.stream.clone_htod(&flat).map_err(device_err(stage))?;
        if self.columns_resident < n || self.heights.is_none() {
            self.heights = Some(self.stream.alloc_zeros::<i32>(n * CHUNK_AREA).map_err(device_err(stage))?);
            self.biomes = Some(self.stream.alloc_zeros::<u8>(n * CHUNK_AREA).map_err(device_err(stage))?);
            self.columns_resident = n;
        }
        let mut min_max = self.stream.alloc_zeros::<i32>(n * 2).map_err(device_err(stage))?;
        let cfg =
            LaunchConfig { grid_dim: (n as u32, 1, 1), block_dim: (HEIGHTMAP_THREADS, 1, 1), shared_mem_bytes: 0 };
        let count = n as u32;
        self.timed(stage, |d| {
            let (heights, biomes) =
                (d.heights.as_mut().ok_or_else(no_buffer)?, d.biomes.as_mut().ok_or_else(no_buffer)?);
            let mut launch = match d.path {
                KernelPath::Virtual => {
                    let mut l = d.stream.launch_builder(&d.heightmap_fn);
                    l.arg(&d.params).arg(&d.objects);
                    l
                }
                KernelPath::Switch => {
                    let mut l = d.stream.launch_builder(&d.heightmap_switch_fn);
                    l.arg(&d.params);
                    l
                }
            };
            launch.arg(&jobs).arg(&count).arg(heights).arg(biomes).arg(&mut min_max);
            // SAFETY: matches bw_heightmap / bw_heightmap_switch; buffers hold n columns.
            unsafe { launch.launch(cfg) }.map_err(device_err(stage))?;
            Ok(())
        })?;
        let host = self.stream.clone_dtoh(&min_max).map_err(device_err("copying heightmap extremes"))?;
        Ok(host.chunks_exact(2).map(|m| [m[0], m[1]]).collect())
    }

    fn fill(&mut self, chunks: &[ChunkJob]) -> Result<(Vec<u8>, Vec<u32>), BackendError> {
        let stage = "fill launch";
        let n = chunks.len();
        let flat: Vec<i32> = chunks.iter().flat_map(|c| [c.x, c.y, c.z, c.column as i32]).collect();
        let jobs = self.stream.clone_htod(&flat).map_err(device_err(stage))?;
        let mut blocks = self.stream.alloc_zeros::<u8>(n * CHUNK_VOLUME).map_err(device_err(stage))?;
        let mut counts = self.stream.alloc_zeros::<u32>(n * MAX_BLOCK_TYPES).map_err(device_err(stage))?;
        let cfg = LaunchConfig {
            grid_dim: ((CHUNK_VOLUME as u32) / FILL_THREADS, n as u32, 1),
            block_dim: (FILL_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let count = n as u32;
        self.timed(stage, |d| {
            let (heights, biomes) =
                (d.heights.as_ref().ok_or_else(no_buffer)?, d.biomes.as_ref().ok_or_else(no_buffer)?);
            let mut launch = d.stream.launch_builder(&d.fill_fn);
            launch.arg(&d.params).arg(&jobs).arg(&count).arg(heights).arg(biomes).arg(&mut blocks).arg(&mut counts);
            // SAFETY: matches bw_fill's parameters; buffers hold n chunks.
            unsafe { launch.launch(cfg) }.map_err(device_err(stage))?;
            Ok(())
        })?;
        // Page-locked staging buffer: the device→host copy runs as DMA.
        let needed = n * CHUNK_VOLUME;
        if self.pinned_blocks.as_ref().map(|p| p.len() < needed).unwrap_or(true) {
            // SAFETY: the buffer is written by the copy below before it is read.
            let pinned = unsafe { self.ctx.alloc_pinned_with_flags::<u8>(needed, 0) }
                .map_err(device_err("allocating pinned memory"))?;
            self.pinned_blocks = Some(pinned);
        }
        let pinned = self.pinned_blocks.as_mut().ok_or_else(no_buffer)?;
        self.stream.memcpy_dtoh(&blocks, &mut *pinned).map_err(device_err("copying blocks"))?;
        let counts_host = self.stream.clone_dtoh(&counts).map_err(device_err("copying counts"))?;
        self.stream.synchronize().map_err(device_err("copying blocks"))?;
        let staged = pinned.as_slice().map_err(device_err("reading pinned memory"))?;
        Ok((staged[..needed].to_vec(), counts_host))
    }

    fn last_kernel_ms(&self) -> Option<f64> {
        self.last_kernel_ms
    }
}

fn no_buffer() -> BackendError {
    BackendError::Device { stage: "fill launch", message: "no resident heightmaps: heightmaps() must run first".into() }
}

impl Drop for CudaDevice {
    fn drop(&mut self) {
        let one = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.destroy_fn);
        launch.arg(&self.params).arg(&mut self.objects);
        // SAFETY: matches bw_destroy_noise_objects; errors at teardown are ignored.
        let _ = unsafe { launch.launch(one) };
        let _ = self.stream.synchronize();
        let _ = self.node_count;
    }
}
