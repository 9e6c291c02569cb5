//! The CUDA kernels compiled for the CPU (kernels/emulation), as a device.
//! Its output must equal the Rust CPU path bit for bit; that is how the
//! kernels are proven right on machines without a GPU.

use super::kernel::{
    ChunkJob, ColumnJob, DensityVariant, DeviceClock, FarJob, KernelDevice, KernelPath, TakeFill, MAX_FAR_TILES,
};
use super::twins::{OBJECTS_PER_COLUMN, RUNS_BYTES_PER_CHUNK};
use super::{BackendError, Engine};
use crate::far::tile::TILE_AREA;
use crate::world::block::MAX_BLOCK_TYPES;
use crate::world::coords::{CHUNK_AREA, CHUNK_VOLUME};
use crate::worldgen::decorate::PlacedObject;
use crate::worldgen::params::WorldParams;
use crate::worldgen::preset::MAX_NODES as MAX_NODES_FOR_DEVICE;
use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

extern "C" {
    fn bw_emu_build_noise_objects(params: *const WorldParams, objects: *mut *mut c_void);
    fn bw_emu_destroy_noise_objects(params: *const WorldParams, objects: *mut *mut c_void);
    fn bw_emu_heightmap(
        params: *const WorldParams,
        objects: *const *mut c_void,
        jobs: *const ColumnJob,
        job_count: u32,
        heights: *mut i32,
        biomes: *mut u8,
        min_max: *mut i32,
    );
    fn bw_emu_heightmap_switch(
        params: *const WorldParams,
        jobs: *const ColumnJob,
        job_count: u32,
        heights: *mut i32,
        biomes: *mut u8,
        min_max: *mut i32,
    );
    fn bw_emu_far_cells(
        params: *const WorldParams,
        objects: *const *mut c_void,
        jobs: *const FarJob,
        job_count: u32,
        heights: *mut i32,
        biomes: *mut u8,
    );
    fn bw_emu_far_cells_switch(
        params: *const WorldParams,
        jobs: *const FarJob,
        job_count: u32,
        heights: *mut i32,
        biomes: *mut u8,
    );
    fn bw_emu_decorate(
        params: *const WorldParams,
        jobs: *const ColumnJob,
        job_count: u32,
        heights: *const i32,
        biomes: *const u8,
        trees: *mut PlacedObject,
        tree_counts: *mut u32,
        extremes: *mut i32,
    );
    fn bw_emu_density(
        params: *const WorldParams,
        jobs: *const ChunkJob,
        chunk_count: u32,
        heights: *const i32,
        caves: *mut u8,
        cooperative: u32,
    );
    fn bw_emu_octave_at(seed: u32, shift_xz: u32, shift_y: u32, x: i32, y: i32, z: i32) -> f32;
    fn bw_emu_fill(
        params: *const WorldParams,
        jobs: *const ChunkJob,
        chunk_count: u32,
        heights: *const i32,
        biomes: *const u8,
        trees: *const PlacedObject,
        tree_counts: *const u32,
        caves: *const u8,
        runs: *mut u8,
        runs_used: *mut u32,
        runs_capacity: u32,
        counts: *mut u32,
    );
}

/// The threads build of the emulation (ThreadSanitizer, or no fibers on this
/// architecture) keeps `__shared__` arrays and `bw_world` in statics that
/// every OS thread shares: one launch at a time. The fiber build keeps them
/// per OS thread, so devices on different threads launch at once.
static LAUNCH_LOCK: Mutex<()> = Mutex::new(());

fn launch_guard() -> Option<MutexGuard<'static, ()>> {
    cfg!(bw_emu_threads).then(|| LAUNCH_LOCK.lock().unwrap_or_else(|e| e.into_inner()))
}

pub struct EmulatedDevice {
    params: Box<WorldParams>,
    objects: Vec<*mut c_void>,
    heights: Vec<i32>,
    biomes: Vec<u8>,
    trees: Vec<PlacedObject>,
    tree_counts: Vec<u32>,
    path: KernelPath,
    density: DensityVariant,
    /// Cave masks of the chunks being filled.
    caves: Vec<u8>,
    /// Test hook: fail every launch after this many have succeeded.
    fail_after_launches: Option<usize>,
    launches: usize,
    /// The last fill's output, handed out by `finish_fill`.
    runs: Vec<u8>,
    runs_used: u32,
    counts: Vec<u32>,
    filled: usize,
    clock: DeviceClock,
}

// SAFETY: the object pointers are heap objects of this device alone, used
// only by its own launches (which take `&mut self`, so one thread at a time)
// and freed in Drop.
unsafe impl Send for EmulatedDevice {}

/// One block's cave octave as the kernels' naive path computes it
/// (`bw_octave_at`), for value-level parity with the CPU.
pub fn kernel_octave_at(seed: u32, shift_xz: u32, shift_y: u32, p: [i32; 3]) -> f32 {
    // SAFETY: a pure function of its arguments; it touches no shared state.
    unsafe { bw_emu_octave_at(seed, shift_xz, shift_y, p[0], p[1], p[2]) }
}

impl EmulatedDevice {
    pub fn new(params: &WorldParams) -> Self {
        let params = Box::new(*params);
        let mut objects = vec![std::ptr::null_mut(); MAX_NODES_FOR_DEVICE];
        let _guard = launch_guard();
        // SAFETY: `objects` has room for every node; params is a valid WorldParams.
        unsafe { bw_emu_build_noise_objects(&*params, objects.as_mut_ptr()) };
        Self {
            params,
            objects,
            heights: Vec::new(),
            biomes: Vec::new(),
            trees: Vec::new(),
            tree_counts: Vec::new(),
            path: KernelPath::Virtual,
            density: DensityVariant::Cooperative,
            caves: Vec::new(),
            fail_after_launches: None,
            launches: 0,
            runs: Vec::new(),
            runs_used: 0,
            counts: Vec::new(),
            filled: 0,
            clock: DeviceClock::default(),
        }
    }

    pub fn with_path(mut self, path: KernelPath) -> Self {
        self.path = path;
        self
    }

    pub fn with_density(mut self, density: DensityVariant) -> Self {
        self.density = density;
        self
    }

    /// Makes every launch after the first `n` fail like a lost device.
    pub fn fail_after(mut self, n: usize) -> Self {
        self.fail_after_launches = Some(n);
        self
    }

    /// The emulated kernels run on the calling thread: their time is both
    /// kernel time and time the host waited.
    fn account(&mut self, since: std::time::Instant) {
        let ms = since.elapsed().as_secs_f64() * 1e3;
        self.clock.kernel_ms += ms;
        self.clock.wait_ms += ms;
        self.clock.device_ms += ms;
    }

    fn check_injected_failure(&mut self, stage: &'static str) -> Result<(), BackendError> {
        self.launches += 1;
        match self.fail_after_launches {
            Some(n) if self.launches > n => Err(BackendError::Device {
                stage,
                message: "CUDA_ERROR_LAUNCH_FAILED (injected by the emulated device)".into(),
            }),
            _ => Ok(()),
        }
    }
}

impl KernelDevice for EmulatedDevice {
    fn kind(&self) -> Engine {
        Engine::CudaEmulated
    }

    fn describe(&self) -> String {
        let mode = if cfg!(feature = "kernel-emulation-tsan") { "threads, ThreadSanitizer" } else { "fibers" };
        format!("CUDA kernels emulated on the CPU ({mode}; {})", self.path.label())
    }

    fn download_heightmaps(&mut self, _slot: usize, n: usize) -> Result<(Vec<i32>, Vec<u8>), BackendError> {
        self.check_injected_failure("heightmap download")?;
        let area = n * CHUNK_AREA;
        match (self.heights.get(..area), self.biomes.get(..area)) {
            (Some(h), Some(b)) => Ok((h.to_vec(), b.to_vec())),
            _ => Err(BackendError::Device {
                stage: "heightmap download",
                message: format!("{n} columns were not computed"),
            }),
        }
    }

    fn heightmaps(&mut self, _slot: usize, columns: &[ColumnJob]) -> Result<Vec<[i32; 3]>, BackendError> {
        self.check_injected_failure("heightmap launch")?;
        let t = std::time::Instant::now();
        self.heights = vec![0; columns.len() * CHUNK_AREA];
        self.biomes = vec![0; columns.len() * CHUNK_AREA];
        self.trees = vec![PlacedObject::default(); columns.len() * OBJECTS_PER_COLUMN];
        self.tree_counts = vec![0; columns.len()];
        let mut min_max = vec![0i32; columns.len() * 3];
        let _guard = launch_guard();
        let (n, heights, biomes, extremes) =
            (columns.len() as u32, self.heights.as_mut_ptr(), self.biomes.as_mut_ptr(), min_max.as_mut_ptr());
        // SAFETY: buffers are sized for `columns.len()` jobs as the kernels expect.
        unsafe {
            match self.path {
                KernelPath::Virtual => bw_emu_heightmap(
                    &*self.params,
                    self.objects.as_ptr(),
                    columns.as_ptr(),
                    n,
                    heights,
                    biomes,
                    extremes,
                ),
                KernelPath::Switch => {
                    bw_emu_heightmap_switch(&*self.params, columns.as_ptr(), n, heights, biomes, extremes)
                }
            };
            bw_emu_decorate(
                &*self.params,
                columns.as_ptr(),
                n,
                heights,
                biomes,
                self.trees.as_mut_ptr(),
                self.tree_counts.as_mut_ptr(),
                extremes,
            );
        };
        self.account(t);
        Ok(min_max.chunks_exact(3).map(|m| [m[0], m[1], m[2]]).collect())
    }

    fn start_fill(&mut self, _slot: usize, chunks: &[ChunkJob]) -> Result<(), BackendError> {
        self.check_injected_failure("fill launch")?;
        let t = std::time::Instant::now();
        let columns = self.heights.len() / CHUNK_AREA;
        if let Some(bad) = chunks.iter().find(|c| c.column as usize >= columns) {
            return Err(BackendError::Device {
                stage: "fill launch",
                message: format!("chunk job refers to column {} of {columns}", bad.column),
            });
        }
        self.runs.resize(chunks.len() * RUNS_BYTES_PER_CHUNK, 0);
        self.runs_used = 0;
        self.counts.resize(chunks.len() * MAX_BLOCK_TYPES, 0);
        self.caves.resize(chunks.len() * CHUNK_VOLUME / 8, 0);
        let (runs, counts, caves) = (&mut self.runs, &mut self.counts, &mut self.caves);
        let _guard = launch_guard();
        if self.params.has_caves() {
            // SAFETY: buffers sized per chunk job; column indices checked above.
            unsafe {
                bw_emu_density(
                    &*self.params,
                    chunks.as_ptr(),
                    chunks.len() as u32,
                    self.heights.as_ptr(),
                    caves.as_mut_ptr(),
                    self.density.flag(),
                )
            };
        }
        // SAFETY: as above.
        unsafe {
            bw_emu_fill(
                &*self.params,
                chunks.as_ptr(),
                chunks.len() as u32,
                self.heights.as_ptr(),
                self.biomes.as_ptr(),
                self.trees.as_ptr(),
                self.tree_counts.as_ptr(),
                caves.as_ptr(),
                runs.as_mut_ptr(),
                &mut self.runs_used,
                runs.len() as u32,
                counts.as_mut_ptr(),
            )
        };
        self.filled = chunks.len();
        self.account(t);
        Ok(())
    }

    fn finish_fill(&mut self, _slot: usize, take: &mut TakeFill) -> Result<(), BackendError> {
        let n = std::mem::take(&mut self.filled);
        if n == 0 {
            return Ok(());
        }
        let used = self.runs_used as usize;
        let runs = self.runs.get(..used).ok_or_else(|| BackendError::Device {
            stage: "copying blocks",
            message: format!("the fill's run stream claims {used} bytes, more than its {}", self.runs.len()),
        })?;
        take(runs, &self.counts[..n * MAX_BLOCK_TYPES])
    }

    fn far_cells(&mut self, jobs: &[FarJob]) -> Result<(Vec<i32>, Vec<u8>), BackendError> {
        self.check_injected_failure("far cells launch")?;
        if jobs.len() > MAX_FAR_TILES {
            return Err(BackendError::Device {
                stage: "far cells launch",
                message: format!("batch of {} exceeds the device buffers ({MAX_FAR_TILES})", jobs.len()),
            });
        }
        let t = std::time::Instant::now();
        let (mut heights, mut biomes) = (vec![0i32; jobs.len() * TILE_AREA], vec![0u8; jobs.len() * TILE_AREA]);
        let _guard = launch_guard();
        let (n, h, b) = (jobs.len() as u32, heights.as_mut_ptr(), biomes.as_mut_ptr());
        // SAFETY: the outputs hold TILE_AREA cells for each of the n jobs.
        unsafe {
            match self.path {
                KernelPath::Virtual => bw_emu_far_cells(&*self.params, self.objects.as_ptr(), jobs.as_ptr(), n, h, b),
                KernelPath::Switch => bw_emu_far_cells_switch(&*self.params, jobs.as_ptr(), n, h, b),
            }
        };
        self.account(t);
        Ok((heights, biomes))
    }

    fn take_clock(&mut self) -> DeviceClock {
        std::mem::take(&mut self.clock)
    }
}

impl Drop for EmulatedDevice {
    fn drop(&mut self) {
        let _guard = launch_guard();
        // SAFETY: objects were built by bw_emu_build_noise_objects for these params.
        unsafe { bw_emu_destroy_noise_objects(&*self.params, self.objects.as_mut_ptr()) };
    }
}
