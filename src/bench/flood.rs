//! `blockworld bench flood`: what the simulation costs while a flood
//! settles, headless.
//!
//! A stone plate 128 blocks across is laid in the air over the world
//! (y 200), and `sources` water sources are released on it at once, at
//! spread even positions within 48 blocks of its centre (so no flow leaves it) (a fixed hash, so every run floods alike). Ticks run
//! until nothing is pending; each tick's CPU time on the calling thread
//! is one sample. Chunks whose blocks a tick changed are counted as the
//! re-meshes the game would ask for (each chunk once a tick).

use crate::backend::cpu::CpuBackend;
use crate::backend::ChunkBackend;
use crate::bench::percentile;
use crate::sim::{SimWorld, Simulation, TICKS_PER_SECOND};
use crate::world::block::BlockId;
use crate::world::coords::ChunkPos;
use crate::world::edits::BlockPos;
use crate::world::store::ChunkStore;
use crate::worldgen::WorldGen;
use anyhow::{bail, Result};
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

const PLATE: i64 = 64;
const Y: i64 = 200;
/// Ticks the flood may take before the run is called unsettled.
const MAX_TICKS: u64 = 120 * TICKS_PER_SECOND;

#[derive(Debug, serde::Serialize)]
pub struct FloodReport {
    pub machine: super::machine::Machine,
    pub sources: usize,
    /// Ticks until nothing was pending, and that in world seconds.
    pub ticks_to_settle: u64,
    pub settle_s: f64,
    /// CPU time of a tick (ms) over the ticks that had updates.
    pub tick_ms_median: f64,
    pub tick_ms_p99: f64,
    pub tick_ms_max: f64,
    /// The same summed over each second of world time: the simulation's
    /// share of a game thread (ms a second).
    pub ms_per_second_max: f64,
    pub updates: usize,
    pub blocks_changed: usize,
    /// Chunk re-meshes the changes cause (a chunk once per tick it changed in).
    pub remeshes: usize,
    pub remeshes_per_tick_max: usize,
}

/// The store with every chunk the flood can reach loaded.
struct Plate {
    store: ChunkStore,
    touched: HashSet<ChunkPos>,
}

impl SimWorld for Plate {
    fn block(&self, pos: BlockPos) -> Option<BlockId> {
        self.store.block(pos)
    }
    fn set_block(&mut self, pos: BlockPos, block: BlockId) {
        self.set_blocks(&[(pos, block)]);
    }
    fn set_blocks(&mut self, blocks: &[(BlockPos, BlockId)]) {
        if let Ok(chunks) = self.store.set_blocks(blocks) {
            self.touched.extend(chunks);
        }
    }
}

fn thread_cpu_s() -> Result<f64> {
    match crate::backend::thread_cpu_time() {
        Some(d) => Ok(d.as_secs_f64()),
        None => bail!("this system gives no per-thread CPU time"),
    }
}

pub fn run(world: Arc<WorldGen>, sources: usize) -> Result<FloodReport> {
    if sources == 0 || sources > 2048 {
        bail!("--sources must be within 1..=2048");
    }
    let cpu = CpuBackend::parallel(world);
    let r = (PLATE + 8) / 32 + 1;
    let mut positions = Vec::new();
    for cx in -r..=r {
        for cz in -r..=r {
            for cy in [Y / 32 - 1, Y / 32, Y / 32 + 1] {
                positions.push(ChunkPos::new(cx as i32, cy as i32, cz as i32));
            }
        }
    }
    let mut store = ChunkStore::new();
    for c in cpu.generate(&positions)? {
        store.insert_generated(c);
    }
    let mut sim = Simulation::default();
    for x in -PLATE..PLATE {
        for z in -PLATE..PLATE {
            let _ = store.set_block(BlockPos::new(x, Y, z), BlockId::STONE);
        }
    }
    // Spread positions from a fixed hash: the same flood every run.
    let mut placed = HashSet::new();
    let mut k: u64 = 0;
    while placed.len() < sources {
        k += 1;
        let h = k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k >> 7);
        let (x, z) = ((h % 96) as i64 - 48, ((h >> 20) % 96) as i64 - 48);
        if placed.insert((x / 2 * 2, z / 2 * 2)) {
            let p = BlockPos::new(x / 2 * 2, Y + 1, z / 2 * 2);
            let _ = store.set_block(p, BlockId::WATER);
            sim.disturbed(p);
        }
    }
    let mut world = Plate { store, touched: HashSet::new() };
    let (mut samples, mut seconds) = (Vec::new(), Vec::new());
    let (mut updates, mut changed, mut remeshes, mut remesh_max, mut second) = (0, 0, 0, 0, 0.0);
    while sim.pending_count() > 0 {
        if sim.tick() >= MAX_TICKS {
            bail!("the flood did not settle within {} s of world time", MAX_TICKS / TICKS_PER_SECOND);
        }
        let t0 = thread_cpu_s()?;
        let rep = sim.step(&mut world);
        let ms = (thread_cpu_s()? - t0) * 1e3;
        if rep.updates > 0 {
            samples.push(ms);
        }
        second += ms;
        if sim.tick().is_multiple_of(TICKS_PER_SECOND) {
            seconds.push(std::mem::take(&mut second));
        }
        updates += rep.updates;
        changed += rep.changes;
        remeshes += world.touched.len();
        remesh_max = remesh_max.max(world.touched.len());
        world.touched.clear();
    }
    seconds.push(second);
    samples.sort_by(f64::total_cmp);
    Ok(FloodReport {
        machine: super::machine::Machine::here(),
        sources,
        ticks_to_settle: sim.tick(),
        settle_s: sim.tick() as f64 / TICKS_PER_SECOND as f64,
        tick_ms_median: percentile(&samples, 0.5),
        tick_ms_p99: percentile(&samples, 0.99),
        tick_ms_max: samples.last().copied().unwrap_or(0.0),
        ms_per_second_max: seconds.iter().copied().fold(0.0, f64::max),
        updates,
        blocks_changed: changed,
        remeshes,
        remeshes_per_tick_max: remesh_max,
    })
}

impl fmt::Display for FloodReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "flood of {} water sources on a plate: settled in {} ticks ({:.2} s of world time)",
            self.sources, self.ticks_to_settle, self.settle_s
        )?;
        writeln!(
            f,
            "tick CPU ms: median {:.3}, p99 {:.3}, max {:.3}; busiest second {:.1} ms",
            self.tick_ms_median, self.tick_ms_p99, self.tick_ms_max, self.ms_per_second_max
        )?;
        writeln!(
            f,
            "{} updates, {} blocks changed, {} chunk re-meshes (at most {} in a tick)",
            self.updates, self.blocks_changed, self.remeshes, self.remeshes_per_tick_max
        )
    }
}
