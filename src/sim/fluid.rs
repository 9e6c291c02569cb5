//! The fluid rules: what one block becomes, read from its neighbours as
//! they were when the tick began.
//!
//! A block is pulled, never pushed: each scheduled position works out its
//! own next state, so the positions of one tick can be taken in any order.

use super::{Rules, Unloaded};
use crate::world::block::{BlockId, Fluid, FluidForm, FluidKind, Shape};
use crate::world::edits::BlockPos;

/// The four horizontal neighbours.
pub const SIDES: [[i64; 3]; 4] = [[1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1]];
pub const UP: [i64; 3] = [0, 1, 0];
pub const DOWN: [i64; 3] = [0, -1, 0];

/// Ticks between a fluid's steps: at 20 ticks a second water moves four
/// times a second and lava every second and a half.
pub fn cadence(kind: FluidKind) -> u64 {
    match kind {
        FluidKind::Water => 5,
        FluidKind::Lava => 30,
    }
}

/// Whether two sources beside a gap make a third there.
fn renews(kind: FluidKind) -> bool {
    kind == FluidKind::Water
}

/// Flow can enter it: air, or a plant, torch or pad it washes away.
pub fn open(b: BlockId) -> bool {
    let i = b.info();
    b == BlockId::AIR || (!i.solid && i.fluid.is_none() && matches!(i.shape, Shape::Cross | Shape::Flat))
}

/// How strong a fluid block is: lower is stronger.
fn rank(f: Fluid) -> u8 {
    match f.form {
        FluidForm::Source => 0,
        FluidForm::Falling => 1,
        FluidForm::Flowing(d) => 1 + d,
    }
}

/// What the block at `pos` becomes by the fluid rules, if that differs
/// from `here`. `look` reads the tick's starting state (None: not loaded).
pub fn next(
    pos: BlockPos,
    here: BlockId,
    look: &dyn Fn(BlockPos) -> Option<BlockId>,
    rules: &Rules,
) -> Result<Option<BlockId>, Unloaded> {
    let at = |d: [i64; 3]| look(pos.offset(d)).ok_or(Unloaded);
    let info = here.info();
    let above = at(UP)?;
    // Water meeting lava: flowing lava that water touches hardens to
    // cobblestone, a lava source to obsidian; water that lava pours onto
    // turns to stone.
    match info.fluid {
        Some(Fluid { kind: FluidKind::Lava, form }) => {
            let mut touched = above.fluid_kind() == Some(FluidKind::Water);
            for s in SIDES {
                touched |= at(s)?.fluid_kind() == Some(FluidKind::Water);
            }
            if touched {
                return Ok(Some(if form == FluidForm::Source { BlockId::OBSIDIAN } else { BlockId::COBBLESTONE }));
            }
        }
        Some(Fluid { kind: FluidKind::Water, .. }) if above.fluid_kind() == Some(FluidKind::Lava) => {
            return Ok(Some(BlockId::STONE));
        }
        _ => {}
    }
    let inflow = match info.fluid {
        Some(f) if f.form == FluidForm::Source => return Ok(None),
        Some(f) => inflow(above, f.kind, &at)?,
        None if open(here) => match inflow(above, FluidKind::Water, &at)? {
            Some(w) => Some(w),
            None => inflow(above, FluidKind::Lava, &at)?,
        },
        None => return Ok(None),
    };
    let new = match (info.fluid, inflow) {
        (None, new) => new,
        (Some(old), Some(new)) if !rules.drain => (rank(new.info().fluid.unwrap_or(old)) < rank(old)).then_some(new),
        (Some(_), Some(new)) => Some(new),
        (Some(_), None) => rules.drain.then_some(BlockId::AIR),
    };
    Ok(new.filter(|&b| b != here))
}

/// The block of `kind` that flows into `pos`, if any: falling where the
/// fluid is above; a new source between two (water); else flow one block
/// weaker than the strongest side that spreads sideways, within the
/// fluid's levels. A side spreads sideways only where it cannot go down:
/// over a solid block, or over a source of its own kind.
fn inflow(
    above: BlockId,
    kind: FluidKind,
    at: &dyn Fn([i64; 3]) -> Result<BlockId, Unloaded>,
) -> Result<Option<BlockId>, Unloaded> {
    let blocks = kind.blocks();
    if above.fluid_kind() == Some(kind) {
        return Ok(Some(blocks.falling));
    }
    let mut sources = 0;
    let mut nearest: Option<u8> = None;
    for s in SIDES {
        let side = at(s)?;
        let Some(f) = side.info().fluid.filter(|f| f.kind == kind) else { continue };
        sources += (f.form == FluidForm::Source) as u32;
        let under = at([s[0], -1, s[2]])?;
        let pours = open(under) || (under.fluid_kind() == Some(kind) && under != blocks.source);
        if pours {
            continue;
        }
        let d = match f.form {
            FluidForm::Source | FluidForm::Falling => 1,
            FluidForm::Flowing(d) => d.saturating_add(1),
        };
        nearest = Some(nearest.map_or(d, |n| n.min(d)));
    }
    if renews(kind) && sources >= 2 {
        let below = at(DOWN)?;
        if below.info().solid || below == blocks.source {
            return Ok(Some(blocks.source));
        }
    }
    Ok(nearest.and_then(|d| blocks.flowing.get(d as usize - 1).copied()))
}

/// The cadence a change from `old` to `new` waits for: the moving fluid's;
/// a reaction (a fluid hardening) happens at once.
pub fn change_cadence(old: BlockId, new: BlockId) -> u64 {
    match (new.fluid_kind(), old.fluid_kind()) {
        (Some(k), _) => cadence(k),
        (None, Some(k)) if new == BlockId::AIR => cadence(k),
        _ => 1,
    }
}
