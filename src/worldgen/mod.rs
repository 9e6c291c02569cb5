//! Terrain generation on the CPU, and the description both engines share.
//!
//! preset (RON) → [`params::WorldParams`] (flat, shared with the kernels) →
//! [`graph::NoiseProgram`] → [`column`] sampler → [`heightmap`] (apron +
//! smoothing) → [`fill`] (blocks and counts, with [`veins`] of ore, carved
//! by [`density`]: caves)
//! → [`decorate`] (trees and plants, placed by [`placement`]). [`generator::WorldGen`] ties them
//! together with a per-column cache.
pub mod column;
pub mod decorate;
pub mod density;
pub mod fill;
pub mod generator;
pub mod graph;
pub mod heightmap;
pub mod noise;
pub mod noise_kinds;
pub mod params;
pub mod placement;
pub mod preset;
pub mod veins;

pub use generator::WorldGen;
pub use graph::NoiseProgram;
pub use preset::Preset;
