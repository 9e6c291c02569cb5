//! Light: skylight and coloured block light, spread block by block.
//!
//! Every block holds four 4-bit channels: sky, red, green and blue. Sky
//! enters each column from above and keeps full strength straight down
//! through clear blocks; otherwise a step costs one level, plus the
//! `dims` of the block it enters (leaves, water). Blocks with `light`
//! in the registry are sources of red, green and blue. Opaque cubes take
//! no light (an opaque emitter such as lava holds its own).
//!
//! The light of a block is the largest value any source reaches it with,
//! a unique fixpoint, so it does not depend on the order chunks arrive in
//! or edits are made; [`map::LightMap`] keeps it up to date incrementally
//! and the tests hold it equal to a relight from scratch.

pub mod map;
pub mod packed;
pub mod rules;
pub mod value;

pub use map::{BlockSource, ChunkLight, LightMap};
pub use value::Light;
