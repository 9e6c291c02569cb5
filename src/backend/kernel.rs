//! Host-side orchestration of the generation kernels, shared by the real GPU
//! ([`super::cuda::CudaDevice`]) and the CPU emulation of the same kernels
//! (`emulated::EmulatedDevice`, feature `kernel-emulation`), so the
//! emulation tests this code too.
//!
//! A request is cut into sub-batches that alternate between the device's
//! slots (two on a GPU: two streams with their own buffers). Per
//! sub-batch: one heightmap launch and one decoration-plan launch for its
//! distinct chunk columns; the column extremes (and the top of their trees)
//! come back and the chunks known to be uniform (air above the terrain and
//! its trees, stone deep below) are settled on the host exactly as the CPU
//! path settles them; one fill launch covers the rest, and its copy back
//! runs while the next sub-batch's heightmaps compute. The fill comes back
//! as a stream of vertical runs (`super::runs`), which the decode pool turns
//! into each chunk's storage while this thread drives the next launch's
//! copies; this thread only walks the stream's headers.

use super::cpu::distinct_columns;
use super::runs;
pub use super::twins::{ChunkJob, ColumnJob, FarJob};
use super::twins::{MAX_PATCHES_PER_COLUMN, PATCH_OVERFLOW};
use super::{BackendError, ChunkBackend, DeviceTimings, Engine};
use crate::far::tile::TILE_AREA;
use crate::far::TileKey;
use crate::world::block::{BlockId, MAX_BLOCK_TYPES};
use crate::world::chunk::{BlockCounts, Chunk, ChunkBlocks};
use crate::world::coords::{ChunkPos, ColumnPos, CHUNK_AREA};
use crate::worldgen::decorate::decoration_top;
use crate::worldgen::fill::known_uniform;
use crate::worldgen::heightmap::Heightmap;
use crate::worldgen::params::WorldParams;
use crate::worldgen::WorldGen;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How the heightmap kernel evaluates the noise graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KernelPath {
    /// Polymorphic noise objects with a virtual `compute` (the Bologna thesis's design; default).
    #[default]
    Virtual,
    /// A switch over node kinds on the flat node array (no indirect calls).
    Switch,
}

impl KernelPath {
    pub fn label(self) -> &'static str {
        match self {
            KernelPath::Virtual => "virtual noise objects",
            KernelPath::Switch => "switch over node kinds",
        }
    }
}

impl std::str::FromStr for KernelPath {
    type Err = BackendError;

    /// `virtual` (the default) or `switch`.
    fn from_str(s: &str) -> Result<KernelPath, BackendError> {
        choice(s, &[("virtual", KernelPath::Virtual), ("switch", KernelPath::Switch)])
    }
}

/// The value `value` names among `choices`.
fn choice<T: Copy>(value: &str, choices: &[(&str, T)]) -> Result<T, BackendError> {
    choices.iter().find(|(name, _)| *name == value).map(|c| c.1).ok_or_else(|| {
        let names: Vec<String> = choices.iter().map(|(n, _)| format!("`{n}`")).collect();
        BackendError::InvalidSetting(format!("`{value}`: expected {}", names.join(" or ")))
    })
}

/// How `bw_density` evaluates its noise: with the Brno project's shared lattice
/// cell per 8×8×8 group (the default), or every block alone (the
/// comparison). Same bits either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DensityVariant {
    #[default]
    Cooperative,
    Naive,
}

impl std::str::FromStr for DensityVariant {
    type Err = BackendError;

    /// `cooperative` (the default) or `naive`.
    fn from_str(s: &str) -> Result<DensityVariant, BackendError> {
        choice(s, &[("cooperative", DensityVariant::Cooperative), ("naive", DensityVariant::Naive)])
    }
}

impl DensityVariant {
    /// The kernel's `cooperative` argument.
    pub fn flag(self) -> u32 {
        (self == DensityVariant::Cooperative) as u32
    }
}

/// Most chunk columns in one heightmap launch (enough blocks to fill a large GPU).
pub const MAX_BATCH_COLUMNS: usize = 1024;
/// Most chunks in one fill launch (room for `RUNS_BYTES_PER_CHUNK` each on
/// the device and in page-locked memory, per slot).
pub const MAX_BATCH_CHUNKS: usize = 512;
/// Most far tiles in one `bw_far_cells` launch (a million cells).
pub const MAX_FAR_TILES: usize = 1024;
// The run stream's header holds a chunk's index in 10 bits.
const _: () = assert!(MAX_BATCH_CHUNKS <= 1024);

/// Device-side time and host waiting time, accumulated since the last
/// [`KernelDevice::take_clock`].
#[derive(Clone, Copy, Debug, Default)]
pub struct DeviceClock {
    /// Kernel execution time (CUDA events on a GPU).
    pub kernel_ms: f64,
    /// Time the calling thread was blocked waiting for the device.
    pub wait_ms: f64,
    /// Kernels and the copies back, by events (see `DeviceTimings::device_ms`).
    pub device_ms: f64,
}

/// Receives a finished fill: its run stream and the counts
/// (`MAX_BLOCK_TYPES` per chunk, in the sub-batch's order).
pub type TakeFill<'a> = dyn FnMut(&[u8], &[u32]) -> Result<(), BackendError> + 'a;

/// A place that runs the kernels.
pub trait KernelDevice: Send {
    /// `Gpu` for a real device, `CudaEmulated` for the CPU emulation.
    fn kind(&self) -> Engine;
    fn describe(&self) -> String;
    /// Independent buffer sets; sub-batches alternate between them so one's
    /// copy back overlaps the next one's kernels.
    fn slots(&self) -> usize {
        1
    }
    /// Runs the heightmap and decoration-plan kernels for `columns` on
    /// `slot`, keeping heightmaps and tree plans resident there for the
    /// fill. Returns [min height, max height, highest tree block] per column.
    fn heightmaps(&mut self, slot: usize, columns: &[ColumnJob]) -> Result<Vec<[i32; 3]>, BackendError>;
    /// Copies back the heights and biomes (`CHUNK_AREA` each per column)
    /// of the first `n` columns of `slot`'s last [`Self::heightmaps`].
    fn download_heightmaps(&mut self, slot: usize, n: usize) -> Result<(Vec<i32>, Vec<u8>), BackendError>;
    /// Starts the fill of `chunks` on `slot`'s heightmaps and the copy back.
    fn start_fill(&mut self, slot: usize, chunks: &[ChunkJob]) -> Result<(), BackendError>;
    /// Waits for `slot`'s fill, copies back the bytes its run stream took,
    /// and hands the stream and the counts to `take`.
    fn finish_fill(&mut self, slot: usize, take: &mut TakeFill) -> Result<(), BackendError>;
    /// Runs `bw_far_cells` for at most [`MAX_FAR_TILES`] tiles and copies
    /// back each cell's ground height and biome (`TILE_AREA` a tile, in
    /// the jobs' order).
    fn far_cells(&mut self, jobs: &[FarJob]) -> Result<(Vec<i32>, Vec<u8>), BackendError>;
    /// Device time and waiting time since the last call.
    fn take_clock(&mut self) -> DeviceClock;
}

pub struct KernelBackend<D: KernelDevice> {
    device: Mutex<D>,
    params: Box<WorldParams>,
    kind: Engine,
    timings: Mutex<Option<DeviceTimings>>,
}

/// A sub-batch whose fill is in flight: the output slot of each filled chunk.
struct InFlight {
    slots: Vec<usize>,
}

impl<D: KernelDevice> KernelBackend<D> {
    pub fn new(device: D, world: &WorldGen) -> Self {
        let kind = device.kind();
        Self { device: Mutex::new(device), params: world.params.clone(), kind, timings: Mutex::new(None) }
    }

    /// Heightmaps for a sub-batch, uniform chunks settled into `out`, and
    /// the fill started for the rest.
    fn start(
        &self,
        device: &mut D,
        slot: usize,
        positions: &[ChunkPos],
        first: usize,
        out: &mut [Option<Chunk>],
    ) -> Result<InFlight, BackendError> {
        let columns = distinct_columns(positions);
        let index: HashMap<ColumnPos, u32> = columns.iter().enumerate().map(|(i, c)| (*c, i as u32)).collect();
        let jobs: Vec<ColumnJob> = columns.iter().map(|c| ColumnJob { x: c.x, z: c.z }).collect();
        let extremes = device.heightmaps(slot, &jobs)?;
        if let Some(i) = extremes.iter().position(|e| e[2] == PATCH_OVERFLOW) {
            return Err(BackendError::Device {
                stage: "decoration plan",
                message: format!(
                    "chunk column ({}, {}) holds more than {MAX_PATCHES_PER_COLUMN} patch centres",
                    columns[i].x, columns[i].z
                ),
            });
        }
        let mut fill_jobs = Vec::new();
        let mut fill_slots = Vec::new();
        for (i, &pos) in positions.iter().enumerate() {
            let column = index[&pos.column()];
            let [lo, hi, tree_top] = extremes[column as usize];
            match known_uniform(&self.params, pos, lo, hi, decoration_top(&self.params, hi, tree_top)) {
                Some(b) => out[first + i] = Some(Chunk::uniform(pos, b)),
                None => {
                    fill_jobs.push(ChunkJob { x: pos.x, y: pos.y, z: pos.z, column });
                    fill_slots.push(first + i);
                }
            }
        }
        if !fill_jobs.is_empty() {
            device.start_fill(slot, &fill_jobs)?;
        }
        Ok(InFlight { slots: fill_slots })
    }

    fn finish(
        device: &mut D,
        slot: usize,
        flight: InFlight,
        positions: &[ChunkPos],
        out: &mut [Option<Chunk>],
        tally: &mut HostTally,
    ) -> Result<(), BackendError> {
        if flight.slots.is_empty() {
            return Ok(());
        }
        let n = flight.slots.len();
        device.finish_fill(slot, &mut |stream, counts| {
            let wrong = |message: String| BackendError::Device { stage: "reading the fill back", message };
            if counts.len() != n * MAX_BLOCK_TYPES {
                return Err(wrong(format!("{} counts for {n} chunks", counts.len())));
            }
            tally.bytes_back += (stream.len() + std::mem::size_of_val(counts)) as u64;
            tally.filled += n as u64;
            let segments = runs::index(stream, n).map_err(wrong)?;
            let build = |i: usize| -> Result<(Chunk, Duration), BackendError> {
                // CPU time, so a decode thread preempted by others (the
                // emulated kernels, where there is no GPU) is not charged.
                let t = super::thread_cpu_time();
                let pos = positions[flight.slots[i]];
                let mut c = [0u32; MAX_BLOCK_TYPES];
                c.copy_from_slice(&counts[i * MAX_BLOCK_TYPES..(i + 1) * MAX_BLOCK_TYPES]);
                let counts = BlockCounts(c);
                // Every block of the chunk counted, and only registered
                // ones: the decoder then holds the runs to that tally.
                if !counts_are_registered(&counts) {
                    return Err(wrong(format!("chunk {pos} holds block ids outside the registry")));
                }
                let blocks = match counts.single_type() {
                    Some(b) => ChunkBlocks::Uniform(b),
                    None => ChunkBlocks::Dense(
                        runs::decode(stream, &segments[i], &counts).map_err(|m| wrong(format!("chunk {pos}: {m}")))?,
                    ),
                };
                let took = t.zip(super::thread_cpu_time()).map_or(Duration::ZERO, |(a, b)| b.saturating_sub(a));
                Ok((Chunk::new(pos, blocks, counts), took))
            };
            let built: Vec<_> = match runs::pool() {
                Some(pool) => pool.install(|| (0..n).into_par_iter().map(build).collect()),
                None => (0..n).map(build).collect(),
            };
            for (i, b) in built.into_iter().enumerate() {
                let (chunk, took) = b?;
                tally.decoding += took;
                out[flight.slots[i]] = Some(chunk);
            }
            Ok(())
        })
    }
}

/// What the host did with the fills of one request.
#[derive(Default)]
struct HostTally {
    /// Decode CPU time summed over the pool's threads.
    decoding: Duration,
    /// Bytes copied back from the fills (run streams and counts).
    bytes_back: u64,
    /// Chunks that went through a fill.
    filled: u64,
}

/// The counts cover a whole chunk with registered block types alone.
fn counts_are_registered(counts: &BlockCounts) -> bool {
    let registered = BlockId::all().count();
    counts.0[registered..].iter().all(|&n| n == 0)
        && counts.0[..registered].iter().map(|&n| n as u64).sum::<u64>() == crate::world::coords::CHUNK_VOLUME as u64
}

/// Cuts `positions` into sub-batches bounded by chunks and columns; a
/// column's chunks stay together where they are adjacent in the request.
fn sub_batches(positions: &[ChunkPos]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < positions.len() {
        let mut end = start;
        let mut cols = std::collections::HashSet::new();
        while end < positions.len() && end - start < MAX_BATCH_CHUNKS {
            cols.insert(positions[end].column());
            if cols.len() > MAX_BATCH_COLUMNS {
                break;
            }
            end += 1;
        }
        out.push(start..end);
        start = end;
    }
    out
}

impl<D: KernelDevice> ChunkBackend for KernelBackend<D> {
    fn kind(&self) -> Engine {
        self.kind
    }

    fn generate(&self, positions: &[ChunkPos]) -> Result<Vec<Chunk>, BackendError> {
        let start = Instant::now();
        let cpu_start = super::thread_cpu_time();
        let mut device = self.device.lock().unwrap_or_else(|e| e.into_inner());
        let _ = device.take_clock();
        let slots = device.slots().max(1);
        let mut out: Vec<Option<Chunk>> = vec![None; positions.len()];
        let mut in_flight: Vec<Option<InFlight>> = (0..slots).map(|_| None).collect();
        let mut tally = HostTally::default();
        let batches = sub_batches(positions);
        let count = batches.len();
        for (k, range) in batches.into_iter().enumerate() {
            let slot = k % slots;
            if let Some(f) = in_flight[slot].take() {
                Self::finish(&mut device, slot, f, positions, &mut out, &mut tally)?;
            }
            let first = range.start;
            in_flight[slot] = Some(self.start(&mut device, slot, &positions[range], first, &mut out)?);
        }
        // Oldest first: slot order is submission order modulo the slot count.
        for i in 0..slots {
            let slot = (count + i) % slots;
            if let Some(f) = in_flight[slot].take() {
                Self::finish(&mut device, slot, f, positions, &mut out, &mut tally)?;
            }
        }
        let clock = device.take_clock();
        drop(device);
        let end_to_end_ms = start.elapsed().as_secs_f64() * 1e3;
        let host_cpu_ms = cpu_start.zip(super::thread_cpu_time()).map(|(a, b)| (b - a).as_secs_f64() * 1e3);
        *self.timings.lock().unwrap_or_else(|e| e.into_inner()) = Some(DeviceTimings {
            kernel_ms: clock.kernel_ms,
            end_to_end_ms,
            host_ms: (end_to_end_ms - clock.wait_ms).max(0.0),
            host_cpu_ms,
            decode_ms: tally.decoding.as_secs_f64() * 1e3,
            bytes_back: tally.bytes_back,
            filled: tally.filled,
            wait_ms: clock.wait_ms,
            device_ms: clock.device_ms,
        });
        let mut chunks = Vec::with_capacity(positions.len());
        for (i, c) in out.into_iter().enumerate() {
            chunks.push(c.ok_or_else(|| BackendError::Device {
                stage: "collecting chunks",
                message: format!("the device returned no chunk for {}", positions[i]),
            })?);
        }
        Ok(chunks)
    }

    fn heightmaps(&self, columns: &[ColumnPos]) -> Result<Vec<Heightmap>, BackendError> {
        let mut device = self.device.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::with_capacity(columns.len());
        for batch in columns.chunks(MAX_BATCH_COLUMNS) {
            let jobs: Vec<ColumnJob> = batch.iter().map(|c| ColumnJob { x: c.x, z: c.z }).collect();
            let extremes = device.heightmaps(0, &jobs)?;
            let (heights, biomes) = device.download_heightmaps(0, jobs.len())?;
            for (k, [lo, hi, _]) in extremes.into_iter().enumerate() {
                let (h, b) = (&heights[k * CHUNK_AREA..][..CHUNK_AREA], &biomes[k * CHUNK_AREA..][..CHUNK_AREA]);
                out.push(Heightmap {
                    heights: Box::new(h.try_into().map_err(|_| short("heights"))?),
                    biomes: Box::new(b.try_into().map_err(|_| short("biomes"))?),
                    min_height: lo,
                    max_height: hi,
                });
            }
        }
        Ok(out)
    }

    fn far_cells(&self, tiles: &[TileKey]) -> Result<Vec<(i32, u8)>, BackendError> {
        let start = Instant::now();
        let mut device = self.device.lock().unwrap_or_else(|e| e.into_inner());
        let _ = device.take_clock();
        let mut out = Vec::with_capacity(tiles.len() * TILE_AREA);
        for batch in tiles.chunks(MAX_FAR_TILES) {
            let jobs = batch.iter().map(|&t| far_job(t)).collect::<Result<Vec<_>, _>>()?;
            let (heights, biomes) = device.far_cells(&jobs)?;
            let n = jobs.len() * TILE_AREA;
            if heights.len() != n || biomes.len() != n {
                return Err(BackendError::Device {
                    stage: "far cells",
                    message: format!("{} heights and {} biomes for {n} cells", heights.len(), biomes.len()),
                });
            }
            out.extend(heights.into_iter().zip(biomes));
        }
        let clock = device.take_clock();
        drop(device);
        let end_to_end_ms = start.elapsed().as_secs_f64() * 1e3;
        *self.timings.lock().unwrap_or_else(|e| e.into_inner()) = Some(DeviceTimings {
            kernel_ms: clock.kernel_ms,
            end_to_end_ms,
            host_ms: (end_to_end_ms - clock.wait_ms).max(0.0),
            wait_ms: clock.wait_ms,
            device_ms: clock.device_ms,
            bytes_back: (out.len() * 5) as u64,
            ..DeviceTimings::default()
        });
        Ok(out)
    }

    fn last_timings(&self) -> Option<DeviceTimings> {
        *self.timings.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn describe(&self) -> String {
        self.device.lock().unwrap_or_else(|e| e.into_inner()).describe()
    }
}

/// A far tile as the kernel takes it; refused where its corner does not
/// fit the job's 32-bit coordinates (far beyond the accepted range).
fn far_job(t: TileKey) -> Result<FarJob, BackendError> {
    let [x, z] = t.origin();
    let fit = |v: i64| i32::try_from(v).ok();
    match (fit(x), fit(z), fit(x + t.blocks()), fit(z + t.blocks())) {
        (Some(x), Some(z), Some(_), Some(_)) => Ok(FarJob { x, z, cell: t.cell() as i32 }),
        _ => Err(BackendError::InvalidSetting(format!("far tile {t:?} lies outside the 32-bit block range"))),
    }
}

fn short(what: &str) -> BackendError {
    BackendError::Device { stage: "heightmap download", message: format!("the device returned too few {what}") }
}

/// Nesting depth of the deepest field root of the flat graph (a leaf is 1).
pub fn graph_depth(params: &WorldParams) -> usize {
    let n = (params.terrain.node_count as usize).min(params.terrain.nodes.len());
    let mut depth = vec![1usize; n];
    // Children come before their parents (the loader guarantees it).
    for i in 0..n {
        let node = params.terrain.nodes[i];
        let child = |c: i32| if c >= 0 && (c as usize) < i { depth[c as usize] } else { 0 };
        depth[i] = 1 + node.children.iter().map(|&c| child(c)).max().unwrap_or(0);
    }
    params.terrain.field_roots.iter().map(|&r| depth.get(r as usize).copied().unwrap_or(1)).max().unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_counts_outside_the_registry_are_refused() {
        assert!(counts_are_registered(&BlockCounts::uniform(BlockId::STONE)));
        let mut c = BlockCounts::uniform(BlockId::STONE);
        c.0[BlockId::STONE.0 as usize] -= 1;
        assert!(!counts_are_registered(&c), "one block not counted");
        c.0[MAX_BLOCK_TYPES - 1] += 1;
        assert!(!counts_are_registered(&c), "one block of an unregistered type");
    }
    use crate::worldgen::Preset;

    #[test]
    fn sub_batches_cover_every_position_once_within_bounds() {
        let positions: Vec<ChunkPos> = (0..1300).map(|i| ChunkPos::new(i / 3, i % 3, 0)).collect();
        let batches = sub_batches(&positions);
        assert_eq!(batches.first().map(|r| r.start), Some(0));
        assert_eq!(batches.last().map(|r| r.end), Some(positions.len()));
        for w in batches.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
        assert!(batches.iter().all(|r| r.len() <= MAX_BATCH_CHUNKS));
        assert_eq!(batches.len(), 1300usize.div_ceil(MAX_BATCH_CHUNKS));
    }

    #[test]
    fn classic_graph_depth_is_what_the_preset_says() {
        let p = WorldParams::new(&Preset::classic(), 1);
        let d = graph_depth(&p);
        assert!((2..=crate::worldgen::preset::MAX_DEPTH).contains(&d), "depth {d}");
    }

    /// The emulated device with its fill's run stream damaged on the way
    /// back, as a bad copy or a device bug would damage it.
    #[cfg(feature = "kernel-emulation")]
    struct Damaging(super::super::emulated::EmulatedDevice);

    #[cfg(feature = "kernel-emulation")]
    impl KernelDevice for Damaging {
        fn kind(&self) -> Engine {
            self.0.kind()
        }
        fn describe(&self) -> String {
            self.0.describe()
        }
        fn heightmaps(&mut self, slot: usize, columns: &[ColumnJob]) -> Result<Vec<[i32; 3]>, BackendError> {
            self.0.heightmaps(slot, columns)
        }
        fn download_heightmaps(&mut self, slot: usize, n: usize) -> Result<(Vec<i32>, Vec<u8>), BackendError> {
            self.0.download_heightmaps(slot, n)
        }
        fn start_fill(&mut self, slot: usize, chunks: &[ChunkJob]) -> Result<(), BackendError> {
            self.0.start_fill(slot, chunks)
        }
        fn finish_fill(&mut self, slot: usize, take: &mut TakeFill) -> Result<(), BackendError> {
            self.0.finish_fill(slot, &mut |runs, counts| {
                // Every segment's first run changes type, so the runs no
                // longer agree with the counts (a chunk the counts call
                // uniform is never decoded, and needs no stream).
                let mut bad = runs.to_vec();
                let mut at = 0;
                while at + 4 < bad.len() {
                    bad[at + 4] ^= 1;
                    at += 4 + 2 * (u32::from_le_bytes([bad[at], bad[at + 1], bad[at + 2], bad[at + 3]]) >> 16) as usize;
                }
                take(&bad, counts)
            })
        }
        /// One cell short, as a truncated copy would leave it.
        fn far_cells(&mut self, jobs: &[FarJob]) -> Result<(Vec<i32>, Vec<u8>), BackendError> {
            let (mut heights, biomes) = self.0.far_cells(jobs)?;
            heights.pop();
            Ok((heights, biomes))
        }
        fn take_clock(&mut self) -> DeviceClock {
            self.0.take_clock()
        }
    }

    /// A short far answer is an error, and behind the fallback the CPU's
    /// cells come back in its place; the undamaged emulation gives the
    /// CPU's cells (value parity over many tiles is tests/kernel_parity.rs).
    #[test]
    #[cfg(feature = "kernel-emulation")]
    fn a_short_far_answer_is_refused_and_the_cpu_makes_the_cells() {
        use crate::backend::cpu::CpuBackend;
        use crate::backend::emulated::EmulatedDevice;
        use crate::backend::fallback::FallbackBackend;
        let world = std::sync::Arc::new(WorldGen::new(Preset::classic(), 42));
        let tiles = [TileKey { level: 0, x: 3, z: -2 }, TileKey { level: 5, x: -1, z: 0 }];
        let cpu = CpuBackend::serial(world.clone()).far_cells(&tiles).expect("the CPU samples");
        assert_eq!(cpu.len(), 2 * TILE_AREA);
        let damaged = KernelBackend::new(Damaging(EmulatedDevice::new(&world.params)), &world);
        assert!(matches!(damaged.far_cells(&tiles), Err(BackendError::Device { stage: "far cells", .. })));
        let fallback = FallbackBackend::new(
            std::sync::Arc::new(KernelBackend::new(Damaging(EmulatedDevice::new(&world.params)), &world)),
            CpuBackend::serial(world.clone()),
        );
        assert_eq!(fallback.far_cells(&tiles).expect("the CPU takes over"), cpu);
        let clean = KernelBackend::new(EmulatedDevice::new(&world.params), &world).far_cells(&tiles).unwrap();
        assert_eq!(clean, cpu);
    }

    #[test]
    fn a_far_tile_beyond_32_bit_blocks_is_refused() {
        assert!(far_job(TileKey { level: 7, x: 100, z: -3 }).is_ok());
        assert!(matches!(far_job(TileKey { level: 7, x: i32::MAX / 4, z: 0 }), Err(BackendError::InvalidSetting(_))));
    }

    /// A damaged stream is an error, never a wrong chunk; behind the
    /// fallback the request still comes back whole, with the CPU's blocks.
    #[test]
    #[cfg(feature = "kernel-emulation")]
    fn a_damaged_run_stream_is_refused_and_the_cpu_makes_the_chunks() {
        use crate::backend::cpu::CpuBackend;
        use crate::backend::emulated::EmulatedDevice;
        use crate::backend::fallback::FallbackBackend;
        let world = std::sync::Arc::new(WorldGen::new(Preset::classic(), 42));
        let positions: Vec<ChunkPos> = (-2..2).flat_map(|x| (0..4).map(move |y| ChunkPos::new(x, y, 0))).collect();
        let damaged = KernelBackend::new(Damaging(EmulatedDevice::new(&world.params)), &world);
        match damaged.generate(&positions) {
            Err(BackendError::Device { stage, message }) => {
                assert_eq!(stage, "reading the fill back");
                assert!(message.contains("disagree") || message.contains("out of"), "{message}");
            }
            other => panic!("a damaged stream was taken: {:?}", other.map(|c| c.len())),
        }
        let fallback = FallbackBackend::new(
            std::sync::Arc::new(KernelBackend::new(Damaging(EmulatedDevice::new(&world.params)), &world)),
            CpuBackend::serial(world.clone()),
        );
        let got = fallback.generate(&positions).expect("the CPU takes over");
        let cpu = CpuBackend::serial(world.clone()).generate(&positions).expect("the CPU generates");
        let same = |a: &Chunk, b: &Chunk| {
            a.pos == b.pos
                && (0..crate::world::coords::CHUNK_VOLUME).all(|i| a.blocks().get_index(i) == b.blocks().get_index(i))
        };
        assert_eq!(got.len(), positions.len());
        assert!(got.iter().zip(&cpu).all(|(a, b)| same(a, b)), "the fallback's chunks are the CPU's");
        // The undamaged emulation decodes the same blocks as the CPU.
        let clean = KernelBackend::new(EmulatedDevice::new(&world.params), &world).generate(&positions).unwrap();
        assert!(clean.iter().zip(&cpu).all(|(a, b)| same(a, b)), "the clean stream decodes to the CPU's blocks");
    }
}
