//! The opaque terrain pipeline: depth-tested, depth-writing, back faces culled.

use super::world_renderer::{terrain_pass_pipeline, PassState};

pub fn create(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let pass = PassState {
        label: "terrain-opaque",
        fragment_entry: "fs_opaque",
        cull_mode: Some(wgpu::Face::Back),
        depth_write: true,
        blend: None,
    };
    terrain_pass_pipeline(device, layout, shader, format, pass)
}
