//! Far terrain: the world beyond the chunk range, out to the horizon, as
//! levels of coarser cells around the eye (`clipmap`), each cell standing
//! as high as the chunks' ground at its sample point (`tile`), drawn as
//! blocky columns (`mesh`), made by worker threads (`worker`); tiles that
//! nearer far terrain hides are proven so (`occlusion`).
//!
//! This module knows no GPU and no window; `render/far_renderer.rs` draws
//! what it makes.
pub mod clipmap;
pub mod mesh;
pub mod occlusion;
pub mod tile;
pub mod worker;

pub use clipmap::{FarRange, TileKey};
pub use worker::{FarChange, FarCounts, FarTerrain};
