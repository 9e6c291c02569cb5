//! The translucent water pipeline: alpha-blended after the opaque pass,
//! depth-tested but not depth-writing, both sides drawn (seen from below too).

use super::world_renderer::{terrain_pass_pipeline, PassState};

pub fn create(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let pass = PassState {
        label: "terrain-water",
        fragment_entry: "fs_water",
        cull_mode: None,
        depth_write: false,
        blend: Some(wgpu::BlendState::ALPHA_BLENDING),
    };
    terrain_pass_pipeline(device, layout, shader, format, pass)
}
