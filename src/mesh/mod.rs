//! Chunk meshing: a chunk and its 26 neighbours → quads for the renderer.
//!
//! [`volume`] gathers the 34³ neighbourhood, [`greedy`] culls hidden faces
//! (across chunk borders too), computes per-vertex ambient occlusion and
//! merges equal faces into large quads, and [`vertex`] packs each vertex
//! into one `u32`.
pub mod greedy;
pub mod vertex;
pub mod volume;

pub use greedy::{mesh_chunk, ChunkMesh};
pub use volume::Neighbourhood;
