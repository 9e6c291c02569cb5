//! The world model: blocks, chunks and coordinates. No generation here.
pub mod block;
pub mod block_codegen;
pub mod chunk;
pub mod coords;
pub mod edits;
pub mod packed;
pub mod palette;
pub mod reach;
pub mod store;
pub mod visibility;
