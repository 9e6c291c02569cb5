//! `blockworld world …`: create, inspect, script and query saved worlds.

use crate::backend::cpu::CpuBackend;
use crate::backend::ChunkBackend;
use crate::save::edited::EditedBackend;
use crate::save::world_file::{SaveError, WorldFile};
use crate::sim::{Rules, SimWorld, Simulation, TICKS_PER_SECOND};
use crate::world::block::BlockId;
use crate::world::edits::BlockPos;
use crate::world::store::ChunkStore;
use crate::worldgen::WorldGen;
use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum WorldCmdError {
    #[error(transparent)]
    Save(#[from] SaveError),
    #[error("{file}: {reason}")]
    Script { file: String, reason: String },
    #[error("{0}")]
    Generation(String),
}

/// `world info --json`.
#[derive(Debug, serde::Serialize)]
pub struct WorldInfo {
    pub path: String,
    pub format: i64,
    pub seed: u64,
    pub preset: String,
    pub edited_chunks: usize,
    pub edited_blocks: usize,
    pub edits_applied: u64,
    /// Simulation ticks run, and updates waiting.
    pub sim_tick: u64,
    pub pending_updates: usize,
    pub player: Option<crate::save::world_file::SavedPlayer>,
}

pub fn info(dir: &Path) -> Result<WorldInfo, WorldCmdError> {
    let w = WorldFile::open(dir)?;
    let edits = w.load_edits()?;
    let (sim_tick, pending) = w.load_sim()?;
    Ok(WorldInfo {
        path: dir.display().to_string(),
        format: w.meta().format,
        seed: w.meta().seed,
        preset: w.meta().preset_name.clone(),
        edited_chunks: edits.len(),
        edited_blocks: edits.values().map(|e| e.len()).sum(),
        edits_applied: w.meta().edits_applied,
        sim_tick,
        pending_updates: pending.len(),
        player: w.player()?,
    })
}

/// One line of an edit script: `set X Y Z BLOCK`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetBlock {
    pub pos: BlockPos,
    pub block: BlockId,
}

/// Parses a whole script before anything is applied, so a bad line leaves
/// the world untouched. Blank lines and `#` comments are skipped.
pub fn parse_script(text: &str, file: &str) -> Result<Vec<SetBlock>, WorldCmdError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |reason: String| WorldCmdError::Script {
            file: file.to_string(),
            reason: format!("line {}: {reason}", n + 1),
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let ["set", x, y, z, name] = words[..] else {
            return Err(bad(format!("`{line}` is not `set X Y Z BLOCK`")));
        };
        let coord = |s: &str| s.parse::<i64>().map_err(|e| bad(format!("`{s}` is not a block coordinate: {e}")));
        let pos = BlockPos::new(coord(x)?, coord(y)?, coord(z)?);
        crate::world::coords::check_accepted([pos.x, pos.y, pos.z].map(|v| v as f64)).map_err(bad)?;
        let block = BlockId::by_name(name).ok_or_else(|| bad(format!("unknown block `{name}`")))?;
        out.push(SetBlock { pos, block });
    }
    Ok(out)
}

/// How often `edit` commits: every this many edits, or this often.
const COMMIT_EVERY: usize = 1000;
const COMMIT_INTERVAL: Duration = Duration::from_secs(1);

/// Applies a script in order, committing in small transactions (each also
/// advances the world's `edits_applied`), with a progress line every 1000
/// edits on `progress`. Returns how many edits were applied.
pub fn edit(dir: &Path, script: &Path, mut progress: impl FnMut(&str)) -> Result<u64, WorldCmdError> {
    let file = script.display().to_string();
    let text = std::fs::read_to_string(script)
        .map_err(|e| WorldCmdError::Script { file: file.clone(), reason: format!("cannot read: {e}") })?;
    let edits = parse_script(&text, &file)?;
    let mut world = WorldFile::open(dir)?;
    let mut store = ChunkStore::with_edits(world.load_edits()?);
    let mut sim = load_sim(&world)?;
    let (mut pending, mut last_commit) = (0u64, Instant::now());
    for (i, e) in edits.iter().enumerate() {
        // Positions were checked while parsing.
        let _ = store.set_block(e.pos, e.block);
        // As in play: what is next to an edit may move (flow, fall).
        sim.disturbed(e.pos);
        pending += 1;
        let done = i + 1;
        if done % COMMIT_EVERY == 0 || last_commit.elapsed() >= COMMIT_INTERVAL || done == edits.len() {
            world.save_with_sim(&store.take_unsaved(), pending, sim.tick(), &sim.pending())?;
            pending = 0;
            last_commit = Instant::now();
        }
        if done % 1000 == 0 {
            progress(&format!("{done} of {} edits applied", edits.len()));
        }
    }
    Ok(edits.len() as u64)
}

fn load_sim(w: &WorldFile) -> Result<Simulation, WorldCmdError> {
    let (tick, pending) = w.load_sim()?;
    Simulation::resume(tick, &pending, Rules::default())
        .map_err(|e| WorldCmdError::Save(SaveError::Corrupt { path: w.path().to_path_buf(), reason: e.to_string() }))
}

/// A loaded world that generates (with its edits) each chunk the
/// simulation first reads.
struct GeneratingWorld {
    store: RefCell<ChunkStore>,
    backend: CpuBackend,
}

impl SimWorld for GeneratingWorld {
    fn block(&self, pos: BlockPos) -> Option<BlockId> {
        let cpos = pos.chunk()?;
        cpos.check_accepted().ok()?;
        let mut store = self.store.borrow_mut();
        if !store.contains(cpos) {
            let chunk = self.backend.generate(&[cpos]).ok()?.pop()?;
            store.insert_generated(chunk);
        }
        store.block(pos)
    }
    fn set_block(&mut self, pos: BlockPos, block: BlockId) {
        let _ = self.store.get_mut().set_block(pos, block);
    }
    fn set_blocks(&mut self, blocks: &[(BlockPos, BlockId)]) {
        let _ = self.store.get_mut().set_blocks(blocks);
    }
}

/// How long `world tick` runs.
#[derive(Clone, Copy, Debug)]
pub struct TickRun {
    pub ticks: u64,
    /// Paced at the game's rate (as a server runs) rather than flat out.
    pub realtime: bool,
}

/// `world tick`: runs the simulation on a saved world, committing its
/// changes, tick and pending updates together every second of world time.
/// Returns the tick reached and the blocks changed.
pub fn tick(dir: &Path, run: TickRun, mut progress: impl FnMut(&str)) -> Result<(u64, usize), WorldCmdError> {
    let mut file = WorldFile::open(dir)?;
    let mut sim = load_sim(&file)?;
    let gen = Arc::new(WorldGen::new(file.preset().clone(), file.meta().seed));
    let mut world = GeneratingWorld {
        store: RefCell::new(ChunkStore::with_edits(file.load_edits()?)),
        backend: CpuBackend::serial(gen),
    };
    let wall = Instant::now();
    let mut changed = 0;
    for n in 1..=run.ticks {
        if run.realtime {
            let due = Duration::from_nanos(n * 1_000_000_000 / TICKS_PER_SECOND);
            std::thread::sleep(due.saturating_sub(wall.elapsed()));
        }
        changed += sim.step(&mut world).changes;
        if sim.tick().is_multiple_of(TICKS_PER_SECOND) || n == run.ticks {
            let deltas = world.store.get_mut().take_unsaved();
            file.save_with_sim(&deltas, 0, sim.tick(), &sim.pending())?;
            progress(&format!("tick {} ({} pending, {changed} blocks changed)", sim.tick(), sim.pending_count()));
        }
    }
    Ok((sim.tick(), changed))
}

/// The world's generator and a backend that applies its saved edits.
pub fn edited_backend(w: &WorldFile, parallel: bool) -> Result<(Arc<WorldGen>, EditedBackend), WorldCmdError> {
    let gen = Arc::new(WorldGen::new(w.preset().clone(), w.meta().seed));
    let cpu: Arc<dyn ChunkBackend> =
        if parallel { Arc::new(CpuBackend::parallel(gen.clone())) } else { Arc::new(CpuBackend::serial(gen.clone())) };
    Ok((gen, EditedBackend::new(cpu, w.load_edits()?)))
}

/// `world get`: the block at `pos`, edits applied.
pub fn get(dir: &Path, pos: BlockPos) -> Result<BlockId, WorldCmdError> {
    let w = WorldFile::open(dir)?;
    let (_, backend) = edited_backend(&w, false)?;
    let cpos = pos.chunk().ok_or_else(|| WorldCmdError::Generation(format!("{pos} is beyond the world's range")))?;
    let chunk = backend
        .generate(&[cpos])
        .map_err(|e| WorldCmdError::Generation(e.to_string()))?
        .pop()
        .ok_or_else(|| WorldCmdError::Generation(format!("no chunk came back for {cpos}")))?;
    let [x, y, z] = pos.local();
    Ok(chunk.blocks().get(x, y, z))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_parse_or_name_the_bad_line() {
        let ok = parse_script("# a wall\nset 1 2 3 glass\n\nset -5 70 1000000 torch\n", "s.txt").unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[1], SetBlock { pos: BlockPos::new(-5, 70, 1_000_000), block: BlockId::TORCH });
        for (text, needle) in [
            ("set 1 2 3 marble", "line 1: unknown block `marble`"),
            ("set 1 2 16777216 glass", "line 1: 16777216 is beyond the accepted range"),
            ("set 1 2 stone", "is not `set X Y Z BLOCK`"),
            ("set 1 2 x stone", "`x` is not a block coordinate"),
            ("\nput 1 2 3 stone", "line 2"),
        ] {
            let e = parse_script(text, "s.txt").unwrap_err().to_string();
            assert!(e.contains(needle) && e.contains("s.txt"), "{e}");
        }
    }
}
