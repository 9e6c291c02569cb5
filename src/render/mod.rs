//! Rendering with wgpu: one pipeline per file, shaders in `assets/shaders/`.
pub mod atlas;
pub mod camera;
pub mod culling;
pub mod far_renderer;
pub mod gpu;
pub mod mesh_arena;
pub mod offscreen;
pub mod overlay;
pub mod sky;
pub mod sky_pipeline;
pub mod srgb;
pub mod terrain_passes;
pub mod world_renderer;
