//! `blockworld bench edit`: how long an edit takes to become visible.
//!
//! The world around the spawn point is loaded offscreen; then blocks on the
//! surface are broken and placed, alternately, at spread positions. Each
//! edit is timed from the call to its chunks' new meshes being on the GPU
//! (re-meshing happens on the game thread, ahead of streaming); the frame
//! that draws it follows at once.
//!
//! Then torches are placed in cave air under the surface and taken away
//! again: each placement is timed the same way, light included (the light
//! update under the light lock, and every chunk whose light changed meshed
//! again).

use super::session::{HeadlessSession, SessionOptions, PATIENCE};
use crate::backend::Engine;
use crate::bench::percentile;
use crate::game::spawn::spawn_point;
use crate::game::streaming::ChunkStreamer;
use crate::render::gpu::Gpu;
use crate::world::block::BlockId;
use crate::world::coords::ChunkPos;
use crate::world::edits::BlockPos;
use crate::worldgen::WorldGen;
use anyhow::{bail, Result};
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, serde::Serialize)]
pub struct EditReport {
    /// Where and on what it ran.
    pub machine: super::machine::Machine,
    pub edits: usize,
    pub edit_to_visible_ms_median: f64,
    pub edit_to_visible_ms_p99: f64,
    pub edit_to_visible_ms_max: f64,
    /// Torches placed in caves (at most `edits`; fewer if the caves near
    /// the spawn point hold fewer spots).
    pub torches: usize,
    pub torch_to_visible_ms_median: Option<f64>,
    pub torch_to_visible_ms_p99: Option<f64>,
    pub torch_to_visible_ms_max: Option<f64>,
    pub adapter: String,
}

pub fn run(world: Arc<WorldGen>, render_distance: i32, count: usize) -> Result<EditReport> {
    if count == 0 {
        bail!("--count must be at least 1");
    }
    let gpu = Gpu::headless()?;
    let spawn = spawn_point(&world);
    let centre = ChunkPos::containing([spawn.x as i64, spawn.y as i64, spawn.z as i64]);
    let mut session =
        HeadlessSession::start(&gpu, world, SessionOptions::new(Engine::Cpu, Engine::Gpu, render_distance))?;
    session.load(centre, PATIENCE)?;
    let mut times = Vec::with_capacity(count);
    let mut k = 0u64;
    while times.len() < count {
        // Spread positions over a 48-block square around the spawn point,
        // crossing chunk borders.
        k += 1;
        let (x, z) =
            (spawn.x as i64 - 24 + ((k * 7919) % 48) as i64, spawn.z as i64 - 24 + ((k * 104_729) % 48) as i64);
        let Some(top) = (-64..96i64)
            .rev()
            .find(|&y| session.streamer.block(BlockPos::new(x, y, z)).map(|b| b.info().solid).unwrap_or(false))
        else {
            continue;
        };
        let (pos, block) = if times.len() % 2 == 0 {
            (BlockPos::new(x, top, z), BlockId::AIR)
        } else {
            (BlockPos::new(x, top + 1, z), BlockId::COBBLESTONE)
        };
        let t = Instant::now();
        session.set_block(pos, block)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let mut torches = torch_times(&mut session, spawn, count)?;
    torches.sort_by(|a, b| a.total_cmp(b));
    let torch = |p: f64| (!torches.is_empty()).then(|| percentile(&torches, p));
    Ok(EditReport {
        machine: super::machine::Machine::here(),
        edits: times.len(),
        edit_to_visible_ms_median: percentile(&times, 0.5),
        edit_to_visible_ms_p99: percentile(&times, 0.99),
        edit_to_visible_ms_max: percentile(&times, 1.0),
        torches: torches.len(),
        torch_to_visible_ms_median: torch(0.5),
        torch_to_visible_ms_p99: torch(0.99),
        torch_to_visible_ms_max: torch(1.0),
        adapter: gpu.adapter_name(),
    })
}

/// Places up to `count` torches on cave floors under the surface near the
/// spawn point, timing each placement to its meshes on the GPU, and takes
/// each away again (untimed) so every torch lights an unlit cave.
fn torch_times(session: &mut HeadlessSession, spawn: glam::DVec3, count: usize) -> Result<Vec<f64>> {
    let mut times = Vec::new();
    let solid = |s: &ChunkStreamer, p: BlockPos| s.block(p).map(|b| b.info().solid).unwrap_or(false);
    for k in 1..=(count as u64 * 20) {
        if times.len() >= count {
            break;
        }
        let (x, z) =
            (spawn.x as i64 - 40 + ((k * 7919) % 80) as i64, spawn.z as i64 - 40 + ((k * 104_729) % 80) as i64);
        let streamer = &session.streamer;
        let Some(top) = (-64..96i64).rev().find(|&y| solid(streamer, BlockPos::new(x, y, z))) else { continue };
        // The highest cave floor at least 8 blocks under the surface.
        let Some(y) = (top - 100..top - 8).rev().find(|&y| {
            streamer.block(BlockPos::new(x, y, z)) == Some(BlockId::AIR) && solid(streamer, BlockPos::new(x, y - 1, z))
        }) else {
            continue;
        };
        let pos = BlockPos::new(x, y, z);
        let t = Instant::now();
        session.set_block(pos, BlockId::TORCH)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        session.set_block(pos, BlockId::AIR)?;
    }
    Ok(times)
}

impl fmt::Display for EditReport {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let r = self;
        writeln!(
            f,
            "{} edits on {}: edit to visible median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            r.edits, r.adapter, r.edit_to_visible_ms_median, r.edit_to_visible_ms_p99, r.edit_to_visible_ms_max
        )?;
        match (r.torch_to_visible_ms_median, r.torch_to_visible_ms_p99, r.torch_to_visible_ms_max) {
            (Some(m), Some(p), Some(x)) => writeln!(
                f,
                "{} torches placed in caves: torch to visible median {m:.3} ms, p99 {p:.3} ms, max {x:.3} ms",
                r.torches
            ),
            _ => writeln!(f, "no cave floor found near the spawn point: no torch timed"),
        }
    }
}
