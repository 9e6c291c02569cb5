//! The three terrain passes, which share one shader, depth format and bind
//! groups and differ only in their fixed-function state:
//!
//! * opaque: depth-tested, depth-writing, back faces culled;
//! * cutout: alpha-tested blocks (leaves, glass) and cross sprites
//!   (flowers, grass, torches); depth-writing like the opaque pass, but
//!   both sides drawn, since a sprite is seen from either side and the inner
//!   faces of a canopy show through its holes;
//! * water: alpha-blended after the others, depth-tested but not
//!   depth-writing, both sides drawn (seen from below too).

pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// One of the terrain passes, in drawing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TerrainPass {
    Opaque,
    Cutout,
    Water,
}

impl TerrainPass {
    pub const ALL: [TerrainPass; 3] = [TerrainPass::Opaque, TerrainPass::Cutout, TerrainPass::Water];

    fn state(self) -> PassState {
        match self {
            TerrainPass::Opaque => PassState {
                label: "terrain-opaque",
                fragment_entry: "fs_opaque",
                cull_mode: Some(wgpu::Face::Back),
                depth_write: true,
                blend: None,
            },
            TerrainPass::Cutout => PassState {
                label: "terrain-cutout",
                fragment_entry: "fs_cutout",
                cull_mode: None,
                depth_write: true,
                blend: None,
            },
            TerrainPass::Water => PassState {
                label: "terrain-water",
                fragment_entry: "fs_water",
                cull_mode: None,
                depth_write: false,
                blend: Some(wgpu::BlendState::ALPHA_BLENDING),
            },
        }
    }
}

/// Builds `pass`'s pipeline.
pub fn create(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    format: wgpu::TextureFormat,
    pass: TerrainPass,
) -> wgpu::RenderPipeline {
    terrain_pass_pipeline(device, layout, shader, format, pass.state())
}

/// What distinguishes the terrain passes; everything else (shader, depth
/// format, bind groups) they share.
struct PassState {
    pub label: &'static str,
    pub fragment_entry: &'static str,
    pub cull_mode: Option<wgpu::Face>,
    pub depth_write: bool,
    pub blend: Option<wgpu::BlendState>,
}

fn terrain_pass_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    format: wgpu::TextureFormat,
    pass: PassState,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(pass.label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: shader,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState { cull_mode: pass.cull_mode, ..Default::default() },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(pass.depth_write),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: shader,
            entry_point: Some(pass.fragment_entry),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState { format, blend: pass.blend, write_mask: wgpu::ColorWrites::ALL })],
        }),
        multiview_mask: None,
        cache: None,
    })
}
