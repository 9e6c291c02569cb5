//! The Rust CPU path as a backend: serial, or parallel on rayon.

use super::{BackendError, ChunkBackend, Engine};
use crate::far::{tile, TileKey};
use crate::world::chunk::Chunk;
use crate::world::coords::{ChunkPos, ColumnPos};
use crate::worldgen::heightmap::Heightmap;
use crate::worldgen::WorldGen;
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};

/// The CPU threads this process may use for chunk work, once limited
/// ([`start_pool`]); the machine's otherwise.
static THREAD_LIMIT: OnceLock<usize> = OnceLock::new();

/// The process's CPU threads could not be limited as asked.
#[derive(Debug, thiserror::Error)]
pub enum ThreadLimitError {
    #[error("--cpu-threads must be at least 1")]
    Zero,
    #[error("the CPU threads were already limited to {0}")]
    AlreadySet(usize),
    #[error("the CPU thread pool was already started: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
}

/// How much lower than the game thread, the light thread and the
/// meshers the CPU lane's pool runs (a nice value): where the stages
/// compete for cores, the ones downstream finish what generation made
/// before it makes more, so a view completes with no stage left alone on
/// a machine whose other cores idle, and frames are drawn on time.
pub const POOL_NICE: i32 = 5;

/// How much lower than the game thread the meshers run: above the
/// generation pool, so what is generated is meshed first, and below the
/// game thread, so frames are drawn on time.
pub const MESHER_NICE: i32 = 2;

/// Starts the rayon pool the CPU lane generates on: `limit` threads (all
/// cores when None; [`threads`] and the meshers follow it), each at
/// [`POOL_NICE`]. Call once, before any generation; where it is not
/// called the pool starts on first use with rayon's defaults.
pub fn start_pool(limit: Option<usize>) -> Result<(), ThreadLimitError> {
    if let Some(n) = limit {
        if n == 0 {
            return Err(ThreadLimitError::Zero);
        }
        THREAD_LIMIT.set(n).map_err(ThreadLimitError::AlreadySet)?;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads())
        .thread_name(|i| format!("cpu-lane-{i}"))
        .start_handler(|_| set_nice(POOL_NICE))
        .build_global()?;
    Ok(())
}

/// Sets the calling thread's nice value to `nice` (lower priority for a
/// larger value); a failure leaves it where it was, as the order of the
/// stages is a preference, not a rule.
#[cfg(target_os = "linux")]
pub fn set_nice(nice: i32) {
    // SAFETY: gettid takes no arguments and cannot fail.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) };
    // SAFETY: setpriority reads only its integer arguments; on Linux a
    // thread id names that thread alone, and raising one's own nice
    // value needs no privilege.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) };
}

#[cfg(not(target_os = "linux"))]
pub fn set_nice(_nice: i32) {}

/// The CPU threads chunk work may use: the limit, or the machine's.
pub fn threads() -> usize {
    THREAD_LIMIT.get().copied().unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

pub struct CpuBackend {
    world: Arc<WorldGen>,
    parallel: bool,
}

impl CpuBackend {
    pub fn serial(world: Arc<WorldGen>) -> Self {
        Self { world, parallel: false }
    }
    pub fn parallel(world: Arc<WorldGen>) -> Self {
        Self { world, parallel: true }
    }
    pub fn world(&self) -> &Arc<WorldGen> {
        &self.world
    }
}

/// The distinct columns of `positions`, in order of first appearance.
pub fn distinct_columns(positions: &[ChunkPos]) -> Vec<ColumnPos> {
    let mut seen = std::collections::HashSet::new();
    positions.iter().map(|p| p.column()).filter(|c| seen.insert(*c)).collect()
}

impl ChunkBackend for CpuBackend {
    fn kind(&self) -> Engine {
        if self.parallel {
            Engine::Cpu
        } else {
            Engine::CpuSerial
        }
    }

    fn generate(&self, positions: &[ChunkPos]) -> Result<Vec<Chunk>, BackendError> {
        let w = &self.world;
        if !self.parallel {
            return Ok(positions.iter().map(|&p| w.generate(p)).collect());
        }
        // Heightmaps first, one task per column, so vertical neighbours never
        // compute the same column twice; then the fills.
        distinct_columns(positions).par_iter().for_each(|&c| {
            w.column(c);
        });
        Ok(positions.par_iter().map(|&p| w.generate(p)).collect())
    }

    fn describe(&self) -> String {
        let lanes = format!("{:?} lanes", self.world.lanes);
        if self.parallel {
            format!("CPU, rayon with {} threads, {lanes}", rayon::current_num_threads())
        } else {
            format!("CPU, one thread, {lanes}")
        }
    }

    fn far_cells(&self, tiles: &[TileKey]) -> Result<Vec<(i32, u8)>, BackendError> {
        let w = &self.world;
        Ok(if self.parallel {
            tiles.par_iter().flat_map_iter(|&t| tile::sample(w, t)).collect()
        } else {
            tiles.iter().flat_map(|&t| tile::sample(w, t)).collect()
        })
    }

    fn heightmaps(&self, columns: &[ColumnPos]) -> Result<Vec<Heightmap>, BackendError> {
        Ok(if self.parallel {
            columns.par_iter().map(|&c| self.world.compute_heightmap(c)).collect()
        } else {
            columns.iter().map(|&c| self.world.compute_heightmap(c)).collect()
        })
    }
}
