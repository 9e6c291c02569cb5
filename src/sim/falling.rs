//! Blocks that fall (sand, gravel): one block a tick while nothing holds
//! them up, through air, plants and fluids.

use super::fluid::{open, DOWN};
use super::Unloaded;
use crate::world::block::{BlockId, FluidForm};
use crate::world::edits::BlockPos;

/// A falling block's move: it goes to `to`, and `left` takes its place (a
/// source it sank through rises into the gap; anything else is lost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fall {
    pub to: BlockPos,
    pub left: BlockId,
}

pub fn next(
    pos: BlockPos,
    here: BlockId,
    look: &dyn Fn(BlockPos) -> Option<BlockId>,
) -> Result<Option<Fall>, Unloaded> {
    if !here.info().falls {
        return Ok(None);
    }
    let to = pos.offset(DOWN);
    let below = look(to).ok_or(Unloaded)?;
    let fluid = below.info().fluid;
    if !(open(below) || fluid.is_some()) {
        return Ok(None);
    }
    let left = if fluid.is_some_and(|f| f.form == FluidForm::Source) { below } else { BlockId::AIR };
    Ok(Some(Fall { to, left }))
}
