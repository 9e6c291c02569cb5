//! `blockworld bench gen`: the Bologna thesis's tables on this project.
//!
//! * Table 5.1 — `ms_single_chunk`: one surface chunk, heightmap included,
//!   cold cache; median of `--repeat` runs.
//! * Tables 5.2/5.3 — `world`: all chunks of a world of N chunks, cold
//!   heightmap cache. The N chunks are the N/2 chunk columns nearest the
//!   origin (by squared distance, ties by x then z), each contributing the
//!   two chunks at y = -1 and y = 0 (blocks -32…31, where the surface is).
//!   An odd N drops the last column's y = 0 chunk.
//! * Stage figures — `ms_per_column_heightmap` (one 32×32 heightmap with its
//!   apron) and `ms_per_chunk_fill` (one non-uniform chunk), measured on 16
//!   columns and their surface chunks.
//! * Decorations (`decorate`; see [`super::decorate`]) — the decoration
//!   stage per surface chunk against its share of the heightmap (the Chile
//!   thesis's placement against dart throwing is `bench placement`'s).
//! * Perlin 3D — this project's noise and the `noise` crate's, on the same
//!   random points, in the same run.

use super::median;
use crate::backend::cpu::CpuBackend;
use crate::backend::fallback::FallbackBackend;
use crate::backend::{self, BackendError, ChunkBackend, Engine};
use crate::world::coords::{ChunkPos, ColumnPos, CHUNK_SIZE_I64};
use crate::worldgen::WorldGen;
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

pub const DEFAULT_WORLD_SIZES: &[usize] = &[16, 24, 32, 40, 48, 56, 1024, 4096];

#[derive(Clone, Debug, Serialize)]
pub struct WorldRow {
    pub chunks: usize,
    pub ms: f64,
    /// Kernel time alone, for device backends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_ms: Option<f64>,
    /// Host-side orchestration (end to end minus waiting for the device), for device backends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_ms: Option<f64>,
    /// The same as CPU time of the orchestrating thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_cpu_ms: Option<f64>,
    /// Decoding the fills' run streams into each chunk's own storage,
    /// summed over the decode pool's threads (not the orchestrating thread).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_ms: Option<f64>,
    /// Bytes the fills sent back (run streams and counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_back: Option<u64>,
    /// Chunks that went through a fill (the rest were known uniform).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filled: Option<u64>,
}

/// What ran: the parts below are written as one flat JSON object.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    /// Where and on what it ran.
    pub machine: super::machine::Machine,
    pub backend: String,
    pub device: String,
    pub threads: usize,
    pub seed: u64,
    pub preset: String,
    pub repeat: usize,
}

/// The host's side of a device run, per chunk of the largest world.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HostFigures {
    /// Host-side orchestration per chunk in the largest world: CPU time of
    /// the thread driving the device, so waits for kernels and copies (which
    /// block, not spin) and time the OS gives other threads are excluded
    /// (device backends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_us_per_chunk: Option<f64>,
    /// The same as wall time minus time blocked on the device. On a machine
    /// whose "device" is the emulation sharing the CPU cores, this also
    /// counts the time the host thread was preempted by the kernels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_wall_us_per_chunk: Option<f64>,
    /// Decoding the run streams per chunk of the largest world, summed over
    /// the decode pool's threads (device backends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_us_per_chunk: Option<f64>,
    /// Bytes copied back from the device per chunk of the largest world,
    /// chunks known uniform (which send none) included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_bytes_per_chunk: Option<f64>,
    /// The same per chunk that went through a fill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_bytes_per_filled_chunk: Option<f64>,
}

/// The cave figures the tables quote, also kept in `density`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DensityHeadline {
    /// The density (cave) stage per underground chunk on one CPU thread,
    /// whatever the backend; absent without caves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms_per_chunk_density: Option<f64>,
    /// The Brno project's comparison on one CPU thread: lattice cells shared per
    /// 8×8×8 group, and every block alone (see `density`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ns_per_voxel_cooperative: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ns_per_voxel_naive: Option<f64>,
}

impl DensityHeadline {
    fn of(d: Option<&super::density::DensityFigures>) -> DensityHeadline {
        DensityHeadline {
            ms_per_chunk_density: d.map(|d| d.ms_per_chunk_density),
            ns_per_voxel_cooperative: d.map(|d| d.ns_per_voxel_cooperative),
            ns_per_voxel_naive: d.map(|d| d.ns_per_voxel_naive),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct GenReport {
    #[serde(flatten)]
    pub run: RunInfo,
    pub ms_per_column_heightmap: f64,
    pub ms_per_chunk_fill: f64,
    /// The decoration stage per surface chunk on one CPU thread (see
    /// `decorate`), whatever the backend; absent for a bare preset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms_per_chunk_decorate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decorate: Option<super::decorate::DecorateFigures>,
    /// The decoration stage, furnished against unfurnished, on 64 columns
    /// spread over kilometres.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub furnishing: Option<super::decorate::FurnishingFigures>,
    /// The vein stage, against the decorations on the same columns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub veins: Option<super::decorate::VeinFigures>,
    #[serde(flatten)]
    pub density_headline: DensityHeadline,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub density: Option<super::density::DensityFigures>,
    /// Lighting one chunk among lit neighbours, one CPU thread, whatever the
    /// backend: a surface chunk and a cave chunk (see `light`).
    pub ms_per_chunk_light: super::light::LightFigures,
    pub ms_single_chunk: f64,
    pub world: Vec<WorldRow>,
    pub perlin3d_ns_per_point: f64,
    pub noise_crate_perlin3d_ns_per_point: f64,
    /// Perlin 3D against the `noise` crate and fastnoise-lite, two point
    /// sets (see `bench::perlin`).
    pub perlin: super::perlin::PerlinFigures,
    /// Far tiles generated and meshed on one CPU thread, whatever the backend.
    pub far_tiles: super::horizon::FarTileFigures,
    /// Far tiles' column stage on this backend.
    pub far_cells: super::horizon::FarCellFigures,
    /// Device errors seen during the run (0 on a clean run); after the first
    /// the device's work moved to the CPU, so its figures are not the device's.
    pub device_errors: u64,
    #[serde(flatten)]
    pub host: HostFigures,
}

/// The N chunks of the benchmark world (see the module docs).
pub fn world_positions(n: usize) -> Vec<ChunkPos> {
    let columns_needed = n.div_ceil(2);
    let mut r = 1i32;
    let mut columns: Vec<ColumnPos>;
    loop {
        columns = (-r..=r).flat_map(|x| (-r..=r).map(move |z| ColumnPos { x, z })).collect();
        if columns.len() >= columns_needed * 2 || columns.len() >= columns_needed && r > 64 {
            break;
        }
        r *= 2;
    }
    columns.sort_by_key(|c| ((c.x as i64).pow(2) + (c.z as i64).pow(2), c.x, c.z));
    columns
        .iter()
        .take(columns_needed)
        .flat_map(|c| [ChunkPos::new(c.x, -1, c.z), ChunkPos::new(c.x, 0, c.z)])
        .take(n)
        .collect()
}

fn time_ms(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

/// The chunk containing each column's surface at its centre (never uniform).
fn surface_chunks(world: &WorldGen, columns: &[ColumnPos]) -> Vec<ChunkPos> {
    columns
        .iter()
        .map(|&c| {
            let h = world.compute_heightmap(c).heights[16 * 32 + 16] as i64;
            ChunkPos::new(c.x, h.div_euclid(CHUNK_SIZE_I64) as i32, c.z)
        })
        .collect()
}

pub struct GenOptions {
    pub seed: u64,
    pub preset: String,
    pub sizes: Vec<usize>,
    pub repeat: usize,
    /// How a device backend runs its kernels.
    pub device: backend::DeviceOptions,
}

/// Runs the benchmark on one backend. `world` is fresh per backend so no
/// cache leaks between them.
pub fn run(
    kind: Engine,
    world: Arc<WorldGen>,
    opts: &GenOptions,
    perlin: super::perlin::PerlinFigures,
    far_tiles: super::horizon::FarTileFigures,
) -> Result<GenReport, BackendError> {
    let device = backend::create(kind, world.clone(), &opts.device)?;
    // A device error is counted and the run goes on on the CPU, not aborted.
    let fallback = matches!(kind, Engine::Gpu | Engine::CudaEmulated)
        .then(|| Arc::new(FallbackBackend::new(device.clone(), CpuBackend::parallel(world.clone()))));
    let backend: Arc<dyn ChunkBackend> = match &fallback {
        Some(f) => f.clone(),
        None => device,
    };
    let repeat = opts.repeat.max(1);

    // Stage figures on 16 columns.
    let columns: Vec<ColumnPos> = (0..16).map(|i| ColumnPos { x: i % 4 - 2, z: i / 4 - 2 }).collect();
    let surface = surface_chunks(&world, &columns);
    let (hm_ms, fill_ms) = stage_times(kind, &*backend, &world, &columns, &surface, repeat)?;
    // Decorations where they are dense: a forest of the classic seed 42.
    let decorating = world.params.decorates();
    let decorate = decorating.then(|| super::decorate::decorate_figures(&world, [4, -12], repeat));
    let furnishing =
        decorating.then(|| super::decorate::furnishing_figures(&world.preset, opts.seed, repeat)).flatten();
    let veins = decorate
        .as_ref()
        .filter(|_| world.params.has_veins())
        .map(|d| super::decorate::vein_figures(&world, d, repeat));
    let density = super::density::density_figures(&world, repeat);
    let light = super::light::light_figures(&world, repeat);
    let cpu_threads = match kind {
        Engine::Cpu => Some(rayon::current_num_threads()),
        Engine::CpuSerial => Some(1),
        _ => None,
    };
    let far_cells = super::horizon::far_cell_figures(&*backend, cpu_threads, repeat)?;

    // Table 5.1: one chunk, cold.
    let single = median(
        (0..repeat)
            .map(|i| {
                world.clear_cache();
                let pos = surface[i % surface.len()];
                let t = Instant::now();
                backend.generate(&[pos]).map(|_| t.elapsed().as_secs_f64() * 1e3)
            })
            .collect::<Result<Vec<_>, _>>()?,
    );
    // Tables 5.2/5.3: whole worlds, cold.
    let rows = opts.sizes.iter().map(|&n| world_row(&*backend, &world, n, repeat)).collect::<Result<Vec<_>, _>>()?;
    let largest = rows.iter().max_by_key(|r| r.chunks);
    let per_chunk = |ms: Option<f64>, n: usize| ms.map(|h| h * 1e3 / n.max(1) as f64);
    let host_us_per_chunk = largest.and_then(|r| per_chunk(r.host_cpu_ms.or(r.host_ms), r.chunks));
    let host_wall_us_per_chunk = largest.and_then(|r| per_chunk(r.host_ms, r.chunks));
    let decode_us_per_chunk = largest.and_then(|r| per_chunk(r.decode_ms, r.chunks));
    let transfer_bytes_per_chunk = largest.and_then(|r| Some(r.bytes_back? as f64 / r.chunks.max(1) as f64));
    let transfer_bytes_per_filled_chunk =
        largest.and_then(|r| Some(r.bytes_back? as f64 / r.filled.filter(|&f| f > 0)? as f64));
    let device_errors = fallback.as_ref().map(|f| f.failure().is_some() as u64).unwrap_or(0);

    Ok(GenReport {
        run: RunInfo {
            machine: super::machine::Machine::here(),
            backend: kind.label().to_string(),
            device: backend.describe(),
            threads: if kind == Engine::Cpu { rayon::current_num_threads() } else { 1 },
            seed: opts.seed,
            preset: opts.preset.clone(),
            repeat,
        },
        ms_per_column_heightmap: hm_ms,
        ms_per_chunk_fill: fill_ms,
        ms_per_chunk_decorate: decorate.as_ref().map(|d| d.ms_per_chunk_decorate),
        decorate,
        furnishing,
        veins,
        density_headline: DensityHeadline::of(density.as_ref()),
        density,
        ms_per_chunk_light: light,
        ms_single_chunk: single,
        world: rows,
        perlin3d_ns_per_point: perlin.ours_lanes,
        noise_crate_perlin3d_ns_per_point: perlin.noise_crate,
        perlin,
        far_tiles,
        far_cells,
        device_errors,
        host: HostFigures {
            host_us_per_chunk,
            host_wall_us_per_chunk,
            decode_us_per_chunk,
            transfer_bytes_per_chunk,
            transfer_bytes_per_filled_chunk,
        },
    })
}

/// One row of Tables 5.2/5.3: a world of `n` chunks, cold, `repeat` times.
fn world_row(backend: &dyn ChunkBackend, world: &WorldGen, n: usize, repeat: usize) -> Result<WorldRow, BackendError> {
    let positions = world_positions(n);
    let mut times = Vec::new();
    let mut kernel = Vec::new();
    let mut host = Vec::new();
    let mut host_cpu = Vec::new();
    let mut decode = Vec::new();
    let mut back = None;
    for _ in 0..repeat {
        world.clear_cache();
        let t = Instant::now();
        backend.generate(&positions)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if let Some(tm) = backend.last_timings() {
            kernel.push(tm.kernel_ms);
            host.push(tm.host_ms);
            host_cpu.extend(tm.host_cpu_ms);
            decode.push(tm.decode_ms);
            // The same world sends the same bytes every time.
            back = Some((tm.bytes_back, tm.filled));
        }
    }
    let some_median = |v: Vec<f64>| (!v.is_empty()).then(|| median(v));
    Ok(WorldRow {
        chunks: n,
        ms: median(times),
        kernel_ms: some_median(kernel),
        host_ms: some_median(host),
        host_cpu_ms: some_median(host_cpu),
        decode_ms: some_median(decode),
        bytes_back: back.map(|b| b.0),
        filled: back.map(|b| b.1),
    })
}

/// Per-column heightmap and per-chunk fill cost. CPU backends time the two
/// stages directly; device backends time a batch whose chunks are all
/// uniform (heightmap launch only) against one of surface chunks.
fn stage_times(
    kind: Engine,
    backend: &dyn ChunkBackend,
    world: &Arc<WorldGen>,
    columns: &[ColumnPos],
    surface: &[ChunkPos],
    repeat: usize,
) -> Result<(f64, f64), BackendError> {
    use rayon::prelude::*;
    let n_cols = columns.len() as f64;
    let n_chunks = surface.len() as f64;
    match kind {
        Engine::CpuSerial | Engine::Cpu => {
            let parallel = kind == Engine::Cpu;
            let hms: Vec<_> = columns.iter().map(|&c| world.compute_heightmap(c)).collect();
            let hm = median(
                (0..repeat)
                    .map(|_| {
                        time_ms(|| {
                            if parallel {
                                columns.par_iter().for_each(|&c| {
                                    std::hint::black_box(world.compute_heightmap(c));
                                });
                            } else {
                                for &c in columns {
                                    std::hint::black_box(world.compute_heightmap(c));
                                }
                            }
                        }) / n_cols
                    })
                    .collect(),
            );
            // Repeat the fills enough to be measurable.
            let rounds = 16;
            let fill = median(
                (0..repeat)
                    .map(|_| {
                        time_ms(|| {
                            for _ in 0..rounds {
                                if parallel {
                                    surface.par_iter().zip(hms.par_iter()).for_each(|(&p, hm)| {
                                        std::hint::black_box(world.fill_terrain(p, hm));
                                    });
                                } else {
                                    for (&p, hm) in surface.iter().zip(&hms) {
                                        std::hint::black_box(world.fill_terrain(p, hm));
                                    }
                                }
                            }
                        }) / (n_chunks * rounds as f64)
                    })
                    .collect(),
            );
            Ok((hm, fill))
        }
        // Hybrid never gets here: `backend::create` refuses it.
        Engine::Gpu | Engine::CudaEmulated | Engine::Hybrid => {
            // Chunks far above the terrain are uniform: only the heightmap runs.
            let sky: Vec<ChunkPos> = columns.iter().map(|c| ChunkPos::new(c.x, 1000, c.z)).collect();
            let mut hm = Vec::new();
            let mut both = Vec::new();
            for _ in 0..repeat {
                hm.push(time_ms(|| drop(backend.generate(&sky))) / n_cols);
                both.push(time_ms(|| drop(backend.generate(surface))));
            }
            let hm = median(hm);
            let fill = ((median(both) - hm * n_cols) / n_chunks).max(0.0);
            Ok((hm, fill))
        }
    }
}
