//! The world simulation: scheduled block updates that move fluids and
//! drop sand and gravel.
//!
//! - **Time** is ticks, [`TICKS_PER_SECOND`] of them, counted from the
//!   world's creation and saved with it. The frame rate only decides how
//!   many ticks a frame runs ([`Simulation::advance`]).
//! - **Updates** are positions due at a tick. An edit (the player's or the
//!   simulation's own) schedules its position and its six neighbours for
//!   the next tick. Nothing else does: generated water is still until
//!   something beside it changes, so generation stays a pure function of
//!   the seed.
//! - **Order:** every update of a tick reads the world as it was when the
//!   tick began (`fluid` and `falling` pull, never push), and the changes
//!   are written after all are worked out: fluid changes first, falling
//!   blocks last (a block falling into flow displaces it). So the result
//!   depends on the set of updates, not on the order they were scheduled,
//!   which chunk loaded first, or the frame rate.
//! - **Pace:** a change of water waits for a tick that is a multiple of
//!   [`fluid::cadence`] (5), of lava for a multiple of 30; falling and
//!   hardening happen on the next tick.
//! - **Reach:** updates whose neighbourhood is not loaded, or that lie
//!   beyond the simulation distance, wait (parked) and are tried again
//!   each second and whenever the centre moves. Parked updates are saved
//!   as pending.

pub mod falling;
pub mod fluid;

use crate::world::block::BlockId;
use crate::world::coords::ChunkPos;
use crate::world::edits::BlockPos;
use crate::world::store::ChunkStore;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

pub const TICKS_PER_SECOND: u64 = 20;
const TICK_NS: u64 = 1_000_000_000 / TICKS_PER_SECOND;
/// Ticks one `advance` runs at most: after a long stall the simulation
/// runs slow rather than freezing the frame to catch up.
pub const MAX_TICKS_PER_ADVANCE: u64 = 4;

/// The six face neighbours.
pub const NEIGHBOURS: [[i64; 3]; 6] = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];

/// An update that could not run: part of its neighbourhood is not loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unloaded;

/// What the simulation reads and writes.
pub trait SimWorld {
    /// The block at `pos`; None where its chunk is not loaded.
    fn block(&self, pos: BlockPos) -> Option<BlockId>;
    /// Writes a block the simulation changed (an edit like the player's).
    fn set_block(&mut self, pos: BlockPos, block: BlockId);
    /// Writes a tick's changes, in position order.
    fn set_blocks(&mut self, blocks: &[(BlockPos, BlockId)]) {
        for &(p, b) in blocks {
            self.set_block(p, b);
        }
    }
}

impl SimWorld for ChunkStore {
    fn block(&self, pos: BlockPos) -> Option<BlockId> {
        ChunkStore::block(self, pos)
    }
    fn set_block(&mut self, pos: BlockPos, block: BlockId) {
        // Positions come from loaded chunks, so they are within range.
        let _ = ChunkStore::set_block(self, pos, block);
    }
    fn set_blocks(&mut self, blocks: &[(BlockPos, BlockId)]) {
        let _ = ChunkStore::set_blocks(self, blocks);
    }
}

/// Rules that can be switched off, for tests' negative controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Flow cut off from its source weakens and drains away.
    pub drain: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules { drain: true }
    }
}

/// What ticks did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TickReport {
    pub ticks: u64,
    /// Updates worked out.
    pub updates: usize,
    /// Blocks written.
    pub changes: usize,
}

impl TickReport {
    fn add(&mut self, o: TickReport) {
        self.ticks += o.ticks;
        self.updates += o.updates;
        self.changes += o.changes;
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SimError {
    #[error("pending update at {pos}: due at tick {due}, more than a day after the world's tick {tick}")]
    FarDue { pos: BlockPos, due: u64, tick: u64 },
}

pub struct Simulation {
    tick: u64,
    due: BTreeSet<(u64, BlockPos)>,
    parked: BTreeSet<BlockPos>,
    centre: Option<(ChunkPos, i32)>,
    carry_ns: u64,
    rules: Rules,
}

impl Default for Simulation {
    fn default() -> Self {
        Simulation::new(0, Rules::default())
    }
}

impl Simulation {
    pub fn new(tick: u64, rules: Rules) -> Simulation {
        Simulation { tick, due: BTreeSet::new(), parked: BTreeSet::new(), centre: None, carry_ns: 0, rules }
    }

    /// Carries on from a saved tick and its pending updates.
    pub fn resume(tick: u64, pending: &[(BlockPos, u64)], rules: Rules) -> Result<Simulation, SimError> {
        let mut sim = Simulation::new(tick, rules);
        for &(pos, due) in pending {
            if due > tick.saturating_add(24 * 3600 * TICKS_PER_SECOND) {
                return Err(SimError::FarDue { pos, due, tick });
            }
            sim.due.insert((due.max(tick + 1), pos));
        }
        Ok(sim)
    }

    /// Ticks run since the world began.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Every pending update, (position, due tick), in due order; parked
    /// ones are due next tick.
    pub fn pending(&self) -> Vec<(BlockPos, u64)> {
        let mut out: Vec<_> = self.due.iter().map(|&(t, p)| (p, t)).collect();
        out.extend(self.parked.iter().map(|&p| (p, self.tick + 1)));
        out
    }

    pub fn pending_count(&self) -> usize {
        self.due.len() + self.parked.len()
    }

    /// Something changed at `pos`: it and its neighbours are looked at
    /// next tick.
    pub fn disturbed(&mut self, pos: BlockPos) {
        let next = self.tick + 1;
        self.due.insert((next, pos));
        for d in NEIGHBOURS {
            self.due.insert((next, pos.offset(d)));
        }
    }

    /// Simulates only within `distance` chunks (horizontally) of `centre`.
    pub fn set_centre(&mut self, centre: ChunkPos, distance: i32) {
        if self.centre != Some((centre, distance)) {
            self.centre = Some((centre, distance));
            self.unpark();
        }
    }

    fn unpark(&mut self) {
        let next = self.tick + 1;
        for p in std::mem::take(&mut self.parked) {
            self.due.insert((next, p));
        }
    }

    fn in_reach(&self, pos: BlockPos) -> bool {
        let Some((c, r)) = self.centre else { return true };
        pos.chunk().is_some_and(|p| (p.x - c.x).abs() <= r && (p.z - c.z).abs() <= r)
    }

    /// Runs the ticks that `dt` of play brings due (at most
    /// [`MAX_TICKS_PER_ADVANCE`]).
    pub fn advance(&mut self, dt: Duration, world: &mut dyn SimWorld) -> TickReport {
        self.carry_ns = self.carry_ns.saturating_add(dt.as_nanos().min(u64::MAX as u128) as u64);
        let mut report = TickReport::default();
        let mut run = 0;
        while self.carry_ns >= TICK_NS && run < MAX_TICKS_PER_ADVANCE {
            self.carry_ns -= TICK_NS;
            report.add(self.step(world));
            run += 1;
        }
        if run == MAX_TICKS_PER_ADVANCE {
            self.carry_ns = self.carry_ns.min(TICK_NS);
        }
        report
    }

    /// Runs one tick.
    pub fn step(&mut self, world: &mut dyn SimWorld) -> TickReport {
        self.tick += 1;
        let t = self.tick;
        if t.is_multiple_of(TICKS_PER_SECOND) {
            self.unpark();
        }
        let mut now = Vec::new();
        while let Some(&(due, pos)) = self.due.first() {
            if due > t {
                break;
            }
            self.due.pop_first();
            now.push(pos);
        }
        now.sort_unstable();
        now.dedup();
        let look = |p: BlockPos| world.block(p);
        let mut sets: BTreeMap<BlockPos, BlockId> = BTreeMap::new();
        let mut falls = Vec::new();
        let mut later = Vec::new();
        for &pos in &now {
            if !self.in_reach(pos) {
                self.parked.insert(pos);
                continue;
            }
            let Some(here) = look(pos) else {
                self.parked.insert(pos);
                continue;
            };
            match falling::next(pos, here, &look) {
                Ok(Some(f)) => {
                    falls.push((pos, f));
                    continue;
                }
                Ok(None) => {}
                Err(Unloaded) => {
                    self.parked.insert(pos);
                    continue;
                }
            }
            match fluid::next(pos, here, &look, &self.rules) {
                Ok(Some(new)) => {
                    let cadence = fluid::change_cadence(here, new);
                    if t.is_multiple_of(cadence) {
                        sets.insert(pos, new);
                    } else {
                        later.push((t.next_multiple_of(cadence), pos));
                    }
                }
                Ok(None) => {}
                Err(Unloaded) => {
                    self.parked.insert(pos);
                }
            }
        }
        self.due.extend(later);
        for (pos, f) in falls {
            sets.insert(f.to, look(pos).unwrap_or(BlockId::AIR));
            sets.insert(pos, f.left);
        }
        let writes: Vec<(BlockPos, BlockId)> =
            sets.into_iter().filter(|&(pos, b)| world.block(pos) != Some(b)).collect();
        world.set_blocks(&writes);
        for &(pos, _) in &writes {
            self.disturbed(pos);
        }
        TickReport { ticks: 1, updates: now.len(), changes: writes.len() }
    }
}

#[cfg(test)]
mod tests;
