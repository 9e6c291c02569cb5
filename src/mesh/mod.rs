//! Chunk meshing: a chunk and its 26 neighbours → quads for the renderer.
//!
//! [`volume`] gathers the 34³ neighbourhood, [`greedy`] culls hidden faces
//! (across chunk borders too), computes per-corner ambient occlusion and
//! smooth light and merges equal faces into large quads, and [`quad`] packs
//! each quad into 16 bytes.
pub mod greedy;
pub mod light;
pub mod quad;
pub mod volume;

pub use greedy::{mesh_chunk, mesh_chunk_and_links, ChunkMesh};
pub use volume::Neighbourhood;
