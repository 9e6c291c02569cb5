//! blockworld: a voxel block world whose chunk generation runs on CUDA
//! kernels, with a seeded CPU path that produces the same blocks.
//! See ARCHITECTURE.md for the map.
pub mod audio;
pub mod backend;
pub mod bench;
pub mod cli;
pub mod far;
pub mod game;
pub mod light;
pub mod map;
pub mod mesh;
pub mod render;
pub mod save;
pub mod sim;
pub mod world;
pub mod worldgen;
