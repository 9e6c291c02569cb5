//! The cutout pipeline: alpha-tested blocks (leaves, glass) and cross
//! sprites (flowers, grass, torches). Depth-writing like the opaque pass,
//! but both sides drawn: a sprite quad is seen from either side, and the
//! inner faces of a canopy show through its holes.

use super::world_renderer::{terrain_pass_pipeline, PassState};

pub fn create(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let pass = PassState {
        label: "terrain-cutout",
        fragment_entry: "fs_cutout",
        cull_mode: None,
        depth_write: true,
        blend: None,
    };
    terrain_pass_pipeline(device, layout, shader, format, pass)
}
