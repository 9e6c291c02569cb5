//! Terrain generation on the CPU, and the description both engines share.
//!
//! preset (RON) → [`params::WorldParams`] (one `Pod` block per stage, shared
//! with the kernels) → [`graph::NoiseProgram`] → [`mod@column`] sampler →
//! [`heightmap`] (apron + smoothing) → [`decorate::plan`] (trees and rocks,
//! placed by [`placement`]) → [`fill`], which paints a [`canvas::Canvas`]
//! with its layers: terrain, [`veins`] of ore, caves ([`density`]) and
//! decorations. [`generator::WorldGen`] ties them together with a
//! per-column cache.
pub mod canvas;
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
pub mod patches;
pub mod placement;
pub mod preset;
pub mod veins;

pub use generator::WorldGen;
pub use graph::NoiseProgram;
pub use preset::Preset;
