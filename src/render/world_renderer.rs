//! The world renderer: the sky, then chunk meshes culled against the
//! frustum and drawn in three passes (opaque, cutout, then water back to
//! front), with fog that fades the streaming edge into the sky behind it.

use super::atlas::{self, TILE};
use super::camera::{Camera, Frustum};
use super::culling::{CullBox, Culler, Steps};
use super::far_renderer::{FarDraw, FarHole, FarRenderer};
use super::gpu::{Gpu, RenderError};
use super::mesh_arena::{MeshArena, Slot};
use super::sky::SkyState;
use super::sky_pipeline;
use super::terrain_passes::DEPTH_FORMAT;
use super::terrain_passes::{self, TerrainPass};
use crate::far::{mesh::FarQuad, FarChange, TileKey};
use crate::mesh::greedy::ChunkMesh;
use crate::mesh::quad::Quad;
use crate::world::block::BlockId;
use crate::world::coords::{ChunkPos, CHUNK_SIZE};
use crate::world::visibility::FaceLinks;
use bytemuck::{Pod, Zeroable};
use glam::{DVec3, Vec3};
use rustc_hash::FxHashMap;
use std::time::Instant;
use wgpu::util::DeviceExt;

/// Quads are read by the vertex shader from the mesh page bound here
/// (group 1) by vertex index: vertex 4q + k is corner k of quad q, drawn
/// through a shared index buffer (0 1 2, 2 3 0 per quad), so a quad's four
/// corners are shaded once each, not six times.
const QUAD_BYTES: u64 = std::mem::size_of::<Quad>() as u64;

/// The index pattern shared by every quad.
fn quad_indices(quads: usize) -> Vec<u32> {
    (0..quads as u32).flat_map(|q| [0, 1, 2, 2, 3, 0].map(|i| q * 4 + i)).collect()
}
/// The globals and sky colour both shaders share, prepended to each.
const SKY_COMMON: &str = include_str!("../../assets/shaders/sky_common.wgsl");

/// A read-only storage buffer the vertex shader reads (chunk origins, a
/// mesh page).
fn vertex_storage(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    inv_view_proj: [[f32; 4]; 4],
    sun_dir: [f32; 4],
    moon_dir: [f32; 4],
    zenith: [f32; 4],
    horizon: [f32; 4],
    glow: [f32; 4],
    fog: [f32; 4],
    inside: [f32; 4],
    emissive: [u32; 8],
}

/// Atlas layers of blocks that emit light, as a 256-bit mask: the shader
/// draws them unshaded, so lava and glowstone glow in the dark.
fn emissive_layers() -> [u32; 8] {
    let mut mask = [0u32; 8];
    for b in BlockId::all() {
        let info = b.info();
        if info.light.iter().any(|&l| l > 0) {
            for &layer in &info.tiles {
                mask[layer as usize / 32] |= 1 << (layer % 32);
            }
        }
    }
    mask
}

struct GpuMesh {
    opaque: Option<(Slot, u32)>,
    cutout: Option<(Slot, u32)>,
    water: Option<(Slot, u32)>,
    bytes: u64,
}

const HALF_CHUNK: Vec3 = Vec3::splat(CHUNK_SIZE as f32 * 0.5);

/// Where chunks lie from the eye, and whether the frustum and the fog
/// (half a chunk's diagonal past it) leave them in view.
struct ChunkView {
    frustum: Frustum,
    eye: DVec3,
    reach: f32,
}

impl ChunkView {
    fn new(camera: &Camera, fog_end: f32) -> ChunkView {
        ChunkView { frustum: camera.frustum(), eye: camera.eye, reach: fog_end + CHUNK_SIZE as f32 * 1.8 }
    }

    /// The chunk's origin, camera-relative.
    fn relative(&self, pos: ChunkPos) -> Vec3 {
        let o = pos.origin();
        (DVec3::new(o[0] as f64, o[1] as f64, o[2] as f64) - self.eye).as_vec3()
    }

    fn in_fog(&self, pos: ChunkPos) -> bool {
        let centre = self.relative(pos) + HALF_CHUNK;
        centre.x.hypot(centre.z) <= self.reach
    }

    fn shows(&self, pos: ChunkPos) -> bool {
        let rel = self.relative(pos);
        self.in_fog(pos) && self.frustum.intersects_box(rel, rel + 2.0 * HALF_CHUNK)
    }
}

/// What a frame's view needs besides the camera.
pub struct ViewParams {
    /// Distance fog is full at this many blocks (horizontally).
    pub fog_end: f32,
    /// Where the chunks end: half a chunk inside the render distance.
    pub range_end: f32,
    /// Far terrain is drawn out to this many blocks (0: none).
    pub horizon: f32,
    pub sky: SkyState,
    /// Seconds of animation time (water).
    pub seconds: f32,
    /// The block the eye is in: within water or lava the view fades into
    /// its colour within its reach ([`crate::world::block::Inside`]).
    pub eye_in: BlockId,
}

impl ViewParams {
    /// Fog full at the horizon, or half a chunk inside the render distance
    /// without one; the sky at `time_of_day`.
    pub fn new(render_distance: i32, horizon: u32, time_of_day: f32, seconds: f32) -> ViewParams {
        let range_end = (render_distance as f32 - 0.5) * CHUNK_SIZE as f32;
        let horizon = horizon as f32;
        ViewParams {
            fog_end: if horizon > 0.0 { horizon.max(range_end) } else { range_end },
            range_end,
            horizon,
            sky: super::sky::sky_at(time_of_day),
            seconds,
            eye_in: BlockId::AIR,
        }
    }

    /// The same view with the eye in `block` (None: not loaded, as air).
    pub fn seen_from(self, block: Option<BlockId>) -> ViewParams {
        ViewParams { eye_in: block.unwrap_or(BlockId::AIR), ..self }
    }

    /// The murk of the block the eye is in: its colour in linear light,
    /// dimmed with daylight unless the block glows, and its reach.
    pub fn murk(&self) -> Option<(Vec3, f32)> {
        let info = self.eye_in.info();
        let inside = info.inside?;
        let [r, g, b] = inside.colour.map(|c| c as f32 / 255.0);
        let lit = if info.light.iter().any(|&l| l > 0) { 1.0 } else { self.sky.daylight };
        Some((super::sky::srgb_to_linear(Vec3::new(r, g, b)) * lit, inside.reach as f32))
    }

    /// How far anything can show: the fog's end, or the murk's reach where
    /// that is nearer.
    pub fn visible_end(&self) -> f32 {
        self.murk().map_or(self.fog_end, |(_, reach)| reach.min(self.fog_end))
    }
}

/// What a frame drew, and what it cost the game thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct DrawStats {
    /// Chunks with a mesh (all in the streaming range).
    pub in_range: usize,
    pub drawn: usize,
    pub quads_drawn: u64,
    /// The sky's, plus one per multi-draw (or per chunk and pass where a
    /// backend cannot draw indirectly).
    pub draw_calls: usize,
    /// Far tiles and their quads drawn.
    pub far_tiles_drawn: usize,
    pub far_quads_drawn: u64,
    /// Far quads in view that nearer far terrain hides, left out.
    pub far_quads_occluded: u64,
    /// Microseconds choosing the chunks (the walk, or the frustum pass).
    pub cull_us: f64,
    /// Microseconds writing the draws and recording the pass.
    pub encode_us: f64,
}

/// What the renderer needs to know to skip chunks the eye cannot see.
pub struct Visibility<'a> {
    /// Off: every chunk in the frustum is drawn (for comparisons).
    pub culling: bool,
    /// The streaming range's box, which the walk stays inside.
    pub bounds: CullBox,
    /// Whether a chunk is inside the streaming range.
    pub in_range: &'a dyn Fn(ChunkPos) -> bool,
    /// The chunk's face links (open when not known).
    pub links: &'a dyn Fn(ChunkPos) -> FaceLinks,
    /// Chunk columns of the range whose chunks are all drawn, while some
    /// are not (None: all are): far terrain shows through the others.
    pub drawn: Option<&'a DrawnColumns>,
    /// Where the drawn chunks are opaque, which hides far terrain behind them.
    pub solid: &'a crate::far::occlusion::SolidColumns,
}

/// Which chunk columns of the streaming range have every chunk of the
/// vertical reach drawn (or known empty): a bit per column of the square
/// of side 2r + 1 around the centre column, rows along x.
pub struct DrawnColumns {
    pub centre: [i32; 2],
    pub radius: i32,
    pub words: Vec<u32>,
}

impl DrawnColumns {
    pub fn new(centre: [i32; 2], radius: i32, drawn: impl Fn(i32, i32) -> bool) -> DrawnColumns {
        let side = 2 * radius + 1;
        let mut words = vec![0u32; (side * side) as usize / 32 + 1];
        for dz in -radius..=radius {
            for dx in -radius..=radius {
                if drawn(centre[0] + dx, centre[1] + dz) {
                    let i = ((dz + radius) * side + dx + radius) as usize;
                    words[i / 32] |= 1 << (i % 32);
                }
            }
        }
        DrawnColumns { centre, radius, words }
    }

    /// Whether the chunk column (x, z) is wholly drawn; false outside the square.
    pub fn is_drawn(&self, x: i32, z: i32) -> bool {
        let (dx, dz) = (x as i64 - self.centre[0] as i64, z as i64 - self.centre[1] as i64);
        let r = self.radius as i64;
        if dx.abs() > r || dz.abs() > r {
            return false;
        }
        let i = ((dz + r) * (2 * r + 1) + dx + r) as usize;
        self.words.get(i / 32).is_some_and(|w| w >> (i % 32) & 1 == 1)
    }
}

/// Far tiles' draws as runs that share a pipeline (with the hole test or
/// not) and a page; they arrive sorted so. Each run says which pipeline.
fn far_runs(draws: Vec<FarDraw>) -> (Vec<DrawRun>, Vec<bool>) {
    let (mut runs, mut holes): (Vec<DrawRun>, Vec<bool>) = (Vec::new(), Vec::new());
    for d in draws {
        match runs.last_mut() {
            Some(run) if run.page == d.page && holes.last() == Some(&d.hole) => run.draws.push(d.args),
            _ => {
                runs.push(DrawRun { pass: TerrainPass::Opaque, page: d.page, draws: vec![d.args] });
                holes.push(d.hole);
            }
        }
    }
    (runs, holes)
}

/// Consecutive draws of one pass from one mesh page: one multi-draw.
struct DrawRun {
    pass: TerrainPass,
    page: usize,
    draws: Vec<wgpu::util::DrawIndexedIndirectArgs>,
}

const INDIRECT_BYTES: usize = std::mem::size_of::<wgpu::util::DrawIndexedIndirectArgs>();

/// The sky's pipeline and one per terrain pass.
struct Pipelines {
    sky: wgpu::RenderPipeline,
    opaque: wgpu::RenderPipeline,
    cutout: wgpu::RenderPipeline,
    water: wgpu::RenderPipeline,
}

/// The block tiles as a texture array, and how they are sampled.
struct BlockTiles {
    view: wgpu::TextureView,
    sampler: wgpu::Sampler,
}

pub struct WorldRenderer {
    pipelines: Pipelines,
    layout: wgpu::BindGroupLayout,
    globals: wgpu::Buffer,
    origins: wgpu::Buffer,
    origins_capacity: usize,
    tiles: BlockTiles,
    bind_group: wgpu::BindGroup,
    /// Group 1: one mesh page as a storage buffer.
    page_layout: wgpu::BindGroupLayout,
    indices: wgpu::Buffer,
    index_quads: usize,
    meshes: FxHashMap<ChunkPos, GpuMesh>,
    arena: MeshArena,
    /// `emissive_layers()`, built once from the registry.
    emissive: [u32; 8],
    depth: Option<(wgpu::TextureView, (u32, u32))>,
    culler: Culler,
    /// Draw arguments for the multi-draws, and the buffer's bytes.
    indirect: Option<(wgpu::Buffer, u64)>,
    /// Whether the device draws indirectly with a first instance (else a
    /// draw call per chunk and pass).
    multi_draw: bool,
    /// Far terrain, drawn before the chunks.
    pub far: FarRenderer,
    pub format: wgpu::TextureFormat,
    pub gpu_bytes: u64,
}

impl WorldRenderer {
    pub fn new(gpu: &Gpu, format: wgpu::TextureFormat) -> Result<WorldRenderer, RenderError> {
        let device = &gpu.device;
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("terrain.wgsl"),
            source: wgpu::ShaderSource::Wgsl(
                [SKY_COMMON, include_str!("../../assets/shaders/terrain.wgsl")].concat().into(),
            ),
        });
        let sky_shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("sky.wgsl"),
            source: wgpu::ShaderSource::Wgsl(
                [SKY_COMMON, include_str!("../../assets/shaders/sky.wgsl")].concat().into(),
            ),
        });
        let layout = Self::terrain_layout(device);
        let page_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mesh-page"),
            entries: &[vertex_storage(0)],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("terrain"),
            bind_group_layouts: &[Some(&layout), Some(&page_layout)],
            immediate_size: 0,
        });
        // The sky reads no mesh page.
        let sky_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("sky"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let sky = sky_pipeline::create(device, &sky_layout, &sky_shader, format);
        let [opaque, cutout, water] =
            TerrainPass::ALL.map(|pass| terrain_passes::create(device, &pipeline_layout, &shader, format, pass));

        let tiles = Self::block_tiles(gpu)?;
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let origins_capacity = 1024;
        let origins = Self::origins_buffer(device, origins_capacity);
        let bind_group = Self::bind_group(device, &layout, &globals, &origins, &tiles);
        let far = FarRenderer::new(device, format, &globals, &page_layout, SKY_COMMON);
        Ok(WorldRenderer {
            pipelines: Pipelines { sky, opaque, cutout, water },
            layout,
            globals,
            origins,
            origins_capacity,
            tiles,
            bind_group,
            page_layout,
            indices: Self::index_buffer(device, 4096),
            index_quads: 4096,
            meshes: FxHashMap::default(),
            arena: MeshArena::default(),
            emissive: emissive_layers(),
            depth: None,
            culler: Culler::default(),
            indirect: None,
            multi_draw: gpu.multi_draw(),
            far,
            format,
            gpu_bytes: 0,
        })
    }

    /// Group 0: the globals, the chunk origins, the tiles and their sampler.
    fn terrain_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("terrain"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                vertex_storage(1),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        })
    }

    /// The atlas's tiles uploaded as one texture layer each.
    fn block_tiles(gpu: &Gpu) -> Result<BlockTiles, RenderError> {
        let device = &gpu.device;
        let tiles = atlas::decode_png(atlas::ATLAS_PNG)?;
        let levels = TILE.ilog2() + 1;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("block-tiles"),
            size: wgpu::Extent3d { width: TILE as u32, height: TILE as u32, depth_or_array_layers: tiles.len() as u32 },
            mip_level_count: levels,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        for (layer, px) in tiles.iter().enumerate() {
            let chain = std::iter::once(px.to_vec()).chain(atlas::mip_chain(px));
            for (level, image) in chain.enumerate() {
                let side = (TILE >> level) as u32;
                gpu.queue.write_texture(
                    wgpu::TexelCopyTextureInfo {
                        texture: &texture,
                        mip_level: level as u32,
                        origin: wgpu::Origin3d { x: 0, y: 0, z: layer as u32 },
                        aspect: wgpu::TextureAspect::All,
                    },
                    &image,
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(side * 4),
                        rows_per_image: Some(side),
                    },
                    wgpu::Extent3d { width: side, height: side, depth_or_array_layers: 1 },
                );
            }
        }
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        // Nearest filtering up close keeps the pixel-art look; far away,
        // where a texel is smaller than a pixel, the mip levels blend, so
        // distant water and grass do not break into moiré. Repeat tiles
        // merged quads.
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("block-tiles"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Nearest,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        Ok(BlockTiles { view, sampler })
    }

    fn origins_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("chunk-origins"),
            size: (capacity * 16) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn index_buffer(device: &wgpu::Device, quads: usize) -> wgpu::Buffer {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("quad-indices"),
            contents: bytemuck::cast_slice(&quad_indices(quads)),
            usage: wgpu::BufferUsages::INDEX,
        })
    }

    fn bind_group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        globals: &wgpu::Buffer,
        origins: &wgpu::Buffer,
        tiles: &BlockTiles,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("terrain"),
            layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: globals.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: origins.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::TextureView(&tiles.view) },
                wgpu::BindGroupEntry { binding: 3, resource: wgpu::BindingResource::Sampler(&tiles.sampler) },
            ],
        })
    }

    /// Uploads (or replaces) a chunk's mesh. Returns the bytes uploaded.
    pub fn upload(&mut self, gpu: &Gpu, pos: ChunkPos, mesh: &ChunkMesh) -> u64 {
        self.remove(pos);
        self.ensure_indices(gpu, mesh.opaque.len().max(mesh.cutout.len()).max(mesh.water.len()));
        let (arena, page_layout) = (&mut self.arena, &self.page_layout);
        let mut store = |quads: &[Quad]| {
            (!quads.is_empty()).then(|| {
                (arena.store(&gpu.device, &gpu.queue, page_layout, bytemuck::cast_slice(quads)), quads.len() as u32)
            })
        };
        let bytes = mesh.bytes() as u64;
        self.gpu_bytes += bytes;
        self.meshes.insert(
            pos,
            GpuMesh { opaque: store(&mesh.opaque), cutout: store(&mesh.cutout), water: store(&mesh.water), bytes },
        );
        bytes
    }

    /// Grows the shared quad index buffer to draw `quads` quads at once.
    fn ensure_indices(&mut self, gpu: &Gpu, quads: usize) {
        if quads > self.index_quads {
            self.index_quads = quads.next_power_of_two();
            self.indices = Self::index_buffer(&gpu.device, self.index_quads);
        }
    }

    /// Applies a change of the far view.
    pub fn show_far(&mut self, gpu: &Gpu, change: FarChange) {
        match change {
            FarChange::Mesh(key, quads) => self.upload_far(gpu, key, &quads),
            FarChange::Gone(key) => self.far.remove(key),
        }
    }

    pub fn upload_far(&mut self, gpu: &Gpu, key: TileKey, quads: &[FarQuad]) {
        self.ensure_indices(gpu, quads.len());
        self.far.upload(&gpu.device, &gpu.queue, &self.page_layout, key, quads);
    }

    pub fn remove(&mut self, pos: ChunkPos) {
        if let Some(m) = self.meshes.remove(&pos) {
            self.gpu_bytes -= m.bytes;
            for (slot, _) in [m.opaque, m.cutout, m.water].into_iter().flatten() {
                self.arena.release(slot);
            }
        }
    }

    pub fn retain(&mut self, mut keep: impl FnMut(ChunkPos) -> bool) {
        let gone: Vec<ChunkPos> = self.meshes.keys().copied().filter(|&p| !keep(p)).collect();
        for p in gone {
            self.remove(p);
        }
    }

    /// Bytes of vertex memory held in mesh pages, used or not.
    pub fn arena_bytes(&self) -> u64 {
        self.arena.capacity()
    }

    /// Vertex bytes of the mesh of `pos`, if it has one.
    pub fn mesh_bytes(&self, pos: ChunkPos) -> Option<u64> {
        self.meshes.get(&pos).map(|m| m.bytes)
    }

    pub fn mesh_count(&self) -> usize {
        self.meshes.len()
    }

    fn ensure_depth(&mut self, gpu: &Gpu, size: (u32, u32)) {
        if self.depth.as_ref().map(|(_, s)| *s != size).unwrap_or(true) {
            let tex = gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("depth"),
                size: wgpu::Extent3d { width: size.0, height: size.1, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: DEPTH_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            });
            self.depth = Some((tex.create_view(&Default::default()), size));
        }
    }

    /// The chunks to draw this frame: the visibility walk's, or every
    /// mesh in the frustum when culling is off (or the eye is outside the
    /// range), each with its camera-relative origin and squared distance.
    fn select(
        &mut self,
        camera: &Camera,
        range_end: f32,
        visibility: Option<&Visibility>,
    ) -> Vec<(ChunkPos, Vec3, f32)> {
        let view = ChunkView::new(camera, range_end);
        if let Some(v) = visibility.filter(|v| v.culling) {
            let meshes = &self.meshes;
            let walked = self.culler.walk(
                camera.eye,
                Some(&view.frustum),
                v.bounds,
                Steps::Straight,
                |p| view.in_fog(p) && (v.in_range)(p),
                |p| (v.links)(p),
            );
            if let Some(chunks) = walked {
                return chunks
                    .into_iter()
                    .filter(|p| meshes.contains_key(p))
                    .map(|p| {
                        let rel = view.relative(p);
                        (p, rel, (rel + HALF_CHUNK).length_squared())
                    })
                    .collect();
            }
        }
        let mut chosen: Vec<(ChunkPos, Vec3, f32)> = self
            .meshes
            .keys()
            .filter(|&&p| view.shows(p))
            .map(|&p| {
                let rel = view.relative(p);
                (p, rel, (rel + HALF_CHUNK).length_squared())
            })
            .collect();
        // Front to back for the opaque pass (early depth rejection).
        chosen.sort_by(|a, b| a.2.total_cmp(&b.2));
        chosen
    }

    /// Meshes in the frustum and the fog, whatever culling hides: with
    /// [`DrawStats::drawn`], how the culled chunks split between the
    /// frustum and visibility. A pass over every mesh, so it is asked for
    /// (the F3 overlay, the benchmarks' samples), not run every frame.
    pub fn in_frustum(&self, camera: &Camera, fog_end: f32) -> usize {
        let view = ChunkView::new(camera, fog_end);
        self.meshes.keys().filter(|&&p| view.shows(p)).count()
    }

    fn ensure_origins(&mut self, gpu: &Gpu, count: usize) {
        if count > self.origins_capacity {
            self.origins_capacity = count.next_power_of_two();
            self.origins = Self::origins_buffer(&gpu.device, self.origins_capacity);
            self.bind_group = Self::bind_group(&gpu.device, &self.layout, &self.globals, &self.origins, &self.tiles);
        }
    }

    fn write_globals(&self, gpu: &Gpu, camera: &Camera, view: &ViewParams) {
        let sky = &view.sky;
        let v4 = |v: Vec3, w: f32| [v.x, v.y, v.z, w];
        let view_proj = camera.view_proj();
        let globals = Globals {
            view_proj: view_proj.to_cols_array_2d(),
            inv_view_proj: view_proj.inverse().to_cols_array_2d(),
            sun_dir: v4(sky.sun_dir, sky.daylight),
            moon_dir: v4(sky.moon_dir, sky.stars),
            zenith: v4(sky.zenith, 1.0),
            horizon: v4(sky.horizon, 1.0),
            glow: v4(sky.glow, 1.0),
            fog: [view.fog_end * 0.55, view.fog_end, view.seconds, view.range_end],
            inside: view.murk().map_or([0.0; 4], |(c, reach)| v4(c, reach)),
            emissive: self.emissive,
        };
        gpu.queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
    }

    /// Each pass's draws, as runs that share a mesh page: opaque and
    /// cutout grouped by page (their order only helps early depth
    /// rejection), water kept back to front (it blends), so a run ends
    /// wherever the page changes.
    fn draw_runs(&self, chosen: &[(ChunkPos, Vec3, f32)]) -> Vec<DrawRun> {
        type Draw = (usize, f32, wgpu::util::DrawIndexedIndirectArgs);
        let mut passes: [(TerrainPass, Vec<Draw>); 3] =
            [(TerrainPass::Opaque, Vec::new()), (TerrainPass::Cutout, Vec::new()), (TerrainPass::Water, Vec::new())];
        for (i, (pos, _, distance)) in chosen.iter().enumerate() {
            let Some(mesh) = self.meshes.get(pos) else { continue };
            for (part, (_, draws)) in [&mesh.opaque, &mesh.cutout, &mesh.water].into_iter().zip(passes.iter_mut()) {
                let Some((slot, quads)) = part else { continue };
                draws.push((
                    slot.page,
                    *distance,
                    wgpu::util::DrawIndexedIndirectArgs {
                        index_count: quads * 6,
                        instance_count: 1,
                        first_index: 0,
                        // Vertex index / 4 is the quad's index in its page.
                        base_vertex: (slot.range.start / QUAD_BYTES) as i32 * 4,
                        first_instance: i as u32,
                    },
                ));
            }
        }
        let mut runs: Vec<DrawRun> = Vec::new();
        for (pass, mut draws) in passes {
            if pass == TerrainPass::Water {
                draws.sort_by(|a, b| b.1.total_cmp(&a.1));
            } else {
                // Stable: front to back within a page.
                draws.sort_by_key(|d| d.0);
            }
            for (page, _, args) in draws {
                match runs.last_mut() {
                    Some(DrawRun { pass: p, page: g, draws }) if *p == pass && *g == page => draws.push(args),
                    _ => runs.push(DrawRun { pass, page, draws: vec![args] }),
                }
            }
        }
        runs
    }

    /// Records the sky and the world into `target`. `visibility` (None:
    /// frustum culling only) lets the renderer skip what the eye cannot see.
    ///
    /// Two passes: the sky and far terrain (reversed depth, no far plane),
    /// then the chunks over them with the depth cleared. Far terrain
    /// outside the chunk range always lies farther than any chunk on the
    /// same pixel, so the chunks need not test against it.
    #[allow(clippy::too_many_arguments)]
    pub fn render(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: (u32, u32),
        camera: &Camera,
        view: &ViewParams,
        visibility: Option<&Visibility>,
    ) -> DrawStats {
        let cull_start = Instant::now();
        self.ensure_depth(gpu, size);
        // Nothing beyond the murk's reach shows: the chunks past it and
        // far terrain (which lies past the chunks) are left out.
        let visible_end = view.visible_end();
        let chosen = self.select(camera, visible_end, visibility);
        let far_draws = match view.horizon > 0.0 && visible_end > view.range_end {
            true => {
                let chunks = visibility.map(|v| FarHole {
                    bounds: v.bounds,
                    in_range: v.in_range,
                    drawn: v.drawn,
                    solid: v.solid,
                });
                // Culling off draws every far tile in the frustum too.
                let occlude = visibility.is_none_or(|v| v.culling);
                self.far.prepare(gpu, &self.globals, camera, view.fog_end, chunks, occlude)
            }
            false => Vec::new(),
        };
        let cull_us = cull_start.elapsed().as_secs_f64() * 1e6;
        let encode_start = Instant::now();
        self.ensure_origins(gpu, chosen.len());
        let origins: Vec<[f32; 4]> = chosen.iter().map(|(_, r, _)| [r.x, r.y, r.z, 0.0]).collect();
        if !origins.is_empty() {
            gpu.queue.write_buffer(&self.origins, 0, bytemuck::cast_slice(&origins));
        }
        self.write_globals(gpu, camera, view);
        let (far_runs, far_holes) = far_runs(far_draws);
        let runs = self.draw_runs(&chosen);
        let mut stats = DrawStats {
            in_range: self.meshes.len(),
            drawn: chosen.len(),
            quads_drawn: runs.iter().flat_map(|r| &r.draws).map(|d| d.index_count as u64 / 6).sum(),
            far_tiles_drawn: far_runs.iter().map(|r| r.draws.len()).sum(),
            far_quads_drawn: far_runs.iter().flat_map(|r| &r.draws).map(|d| d.index_count as u64 / 6).sum(),
            far_quads_occluded: if view.horizon > 0.0 { self.far.occluded[1] } else { 0 },
            cull_us,
            ..DrawStats::default()
        };
        if self.multi_draw {
            self.write_indirect(gpu, far_runs.iter().chain(&runs));
        }
        stats.draw_calls += self.record_passes(encoder, target, (&far_runs, &far_holes), &runs);
        stats.encode_us = encode_start.elapsed().as_secs_f64() * 1e6;
        stats
    }

    /// Records the frame's two passes, the sky and far terrain, then the
    /// chunks over them; returns the draw calls.
    fn record_passes(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        (far_runs, far_holes): (&[DrawRun], &[bool]),
        runs: &[DrawRun],
    ) -> usize {
        let Some((depth_view, _)) = &self.depth else { return 0 };
        let mut draw_calls = 0;
        let colour = |load| wgpu::RenderPassColorAttachment {
            view: target,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations { load, store: wgpu::StoreOp::Store },
        };
        let depth = |clear| wgpu::RenderPassDepthStencilAttachment {
            view: depth_view,
            depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(clear), store: wgpu::StoreOp::Store }),
            stencil_ops: None,
        };
        // The sky pass covers every pixel; the clear only keeps the first
        // frame's undefined contents out of any blending. Far depth is
        // reversed: cleared to 0, nearer is greater.
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("sky-and-far"),
            color_attachments: &[Some(colour(wgpu::LoadOp::Clear(wgpu::Color::BLACK)))],
            depth_stencil_attachment: Some(depth(0.0)),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_pipeline(&self.pipelines.sky);
        pass.draw(0..3, 0..1);
        draw_calls += 1;
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
        let mut offset = 0u64;
        if !far_runs.is_empty() {
            pass.set_bind_group(0, self.far.group(), &[]);
            for (run, &hole) in far_runs.iter().zip(far_holes) {
                pass.set_pipeline(self.far.pipeline(hole));
                draw_calls += self.record_run(&mut pass, self.far.page_group(run.page), &run.draws, &mut offset);
            }
        }
        drop(pass);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("chunks"),
            color_attachments: &[Some(colour(wgpu::LoadOp::Load))],
            depth_stencil_attachment: Some(depth(1.0)),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
        let mut current = None;
        for run in runs {
            if current != Some(run.pass) {
                pass.set_pipeline(match run.pass {
                    TerrainPass::Opaque => &self.pipelines.opaque,
                    TerrainPass::Cutout => &self.pipelines.cutout,
                    TerrainPass::Water => &self.pipelines.water,
                });
                current = Some(run.pass);
            }
            draw_calls += self.record_run(&mut pass, self.arena.page_group(run.page), &run.draws, &mut offset);
        }
        drop(pass);
        draw_calls
    }

    /// Records one run's draws from the page bound by `page` (skipped when
    /// the page is gone), indirectly from `offset` in the indirect buffer
    /// where the device can; returns the draw calls it made.
    fn record_run(
        &self,
        pass: &mut wgpu::RenderPass,
        page: Option<&wgpu::BindGroup>,
        draws: &[wgpu::util::DrawIndexedIndirectArgs],
        offset: &mut u64,
    ) -> usize {
        let bytes = (draws.len() * INDIRECT_BYTES) as u64;
        let Some(page) = page else {
            *offset += bytes;
            return 0;
        };
        pass.set_bind_group(1, page, &[]);
        match &self.indirect {
            Some((buffer, _)) if self.multi_draw => {
                pass.multi_draw_indexed_indirect(buffer, *offset, draws.len() as u32);
                *offset += bytes;
                1
            }
            _ => {
                for d in draws {
                    let i = d.first_instance;
                    pass.draw_indexed(0..d.index_count, d.base_vertex, i..i + 1);
                }
                draws.len()
            }
        }
    }

    /// Writes every run's draws, in order, to the indirect buffer.
    fn write_indirect<'r>(&mut self, gpu: &Gpu, runs: impl Iterator<Item = &'r DrawRun>) {
        let args: Vec<wgpu::util::DrawIndexedIndirectArgs> = runs.flat_map(|r| r.draws.iter().copied()).collect();
        if args.is_empty() {
            return;
        }
        let bytes = (args.len() * INDIRECT_BYTES) as u64;
        if self.indirect.as_ref().is_none_or(|(_, cap)| *cap < bytes) {
            let cap = bytes.next_power_of_two().max(4096);
            let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("chunk-draws"),
                size: cap,
                usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.indirect = Some((buffer, cap));
        }
        if let Some((buffer, _)) = &self.indirect {
            gpu.queue.write_buffer(buffer, 0, bytemuck::cast_slice(&args));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{DrawnColumns, ViewParams};
    use crate::world::block::BlockId;

    /// The murk is the eye's block's: none in air, water's dimmed at
    /// night, lava's (which glows) not; it shortens what can show.
    #[test]
    fn the_murk_is_the_eye_blocks_and_shortens_the_view() {
        let (noon, midnight) = (0.5, 0.0);
        let view = |t: f32, block: BlockId| ViewParams::new(12, 4000, t, 0.0).seen_from(Some(block));
        let air = view(noon, BlockId::AIR);
        assert!(air.murk().is_none());
        assert_eq!(air.visible_end(), air.fog_end);
        assert_eq!(ViewParams::new(12, 4000, noon, 0.0).seen_from(None).eye_in, BlockId::AIR);
        let (day, reach) = view(noon, BlockId::WATER).murk().expect("water has a murk");
        assert_eq!(view(noon, BlockId::WATER).visible_end(), reach);
        assert!(reach < air.range_end, "far terrain would be left out only past the chunks");
        let (night, _) = view(midnight, BlockId::WATER).murk().expect("water has a murk");
        assert!(night.length() < 0.5 * day.length(), "{night} at midnight against {day} at noon");
        let lava = |t: f32| view(t, BlockId::LAVA).murk().expect("lava has a murk").0;
        assert_eq!(lava(noon), lava(midnight));
    }

    /// Each column's bit lands where the far shader reads it:
    /// index (dz + r)·(2r + 1) + (dx + r) from the centre column.
    #[test]
    fn drawn_columns_keep_each_columns_bit() {
        let (centre, r) = ([-7, 12], 5);
        let drawn = |x: i32, z: i32| (x * 3 + z * 5).rem_euclid(7) < 3;
        let d = DrawnColumns::new(centre, r, drawn);
        for z in centre[1] - r..=centre[1] + r {
            for x in centre[0] - r..=centre[0] + r {
                assert_eq!(d.is_drawn(x, z), drawn(x, z), "({x}, {z})");
                let i = ((z - centre[1] + r) * (2 * r + 1) + x - centre[0] + r) as usize;
                assert_eq!(d.words[i / 32] >> (i % 32) & 1 == 1, drawn(x, z), "bit {i}");
            }
        }
        assert!(!d.is_drawn(centre[0] + r + 1, centre[1]), "outside the square nothing is drawn");
    }
}
