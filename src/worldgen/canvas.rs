//! The chunk the CPU generation passes work on, and the passes in order.
//! A pass is a function of the canvas: adding one is one function and one
//! line in [`LAYERS`]. The kernels apply the same passes in the same order
//! inside `bw_fill` (kernels/fill.cu).

use super::decorate::{self, ColumnDecorations};
use super::heightmap::Heightmap;
use super::params::WorldParams;
use super::{density, fill, veins};
use crate::world::block::MAX_BLOCK_TYPES;
use crate::world::coords::ChunkPos;

/// One chunk being generated: where it is, what its column shares, and its
/// blocks with the count of each id, which every pass keeps right.
pub struct Canvas<'a> {
    pub params: &'a WorldParams,
    pub pos: ChunkPos,
    pub heightmap: &'a Heightmap,
    /// The trees and rocks that reach into the column; `None` leaves the
    /// terrain undecorated.
    pub plan: Option<&'a ColumnDecorations>,
    /// Block ids by [`crate::world::coords::block_index`] (y fastest).
    pub blocks: &'a mut [u8],
    pub counts: &'a mut [u32; MAX_BLOCK_TYPES],
}

pub type Layer = fn(&mut Canvas);

/// The passes, in order: the terrain fill, veins in its rock, caves cut
/// through both, decorations on what is left.
pub const LAYERS: [(&str, Layer); 4] =
    [("terrain", fill::terrain), ("veins", veins::apply), ("caves", density::carve), ("decorations", decorate::apply)];

impl Canvas<'_> {
    /// Runs every pass over the canvas.
    pub fn paint(&mut self) {
        for (_, layer) in LAYERS {
            layer(self);
        }
    }
}
