//! Far terrain on the GPU: each tile's quads in mesh pages of their own
//! (as chunk meshes are kept), a per-frame table of the tiles in view,
//! and one pipeline (`assets/shaders/far.wgsl`) drawn by multi-draw-indirect
//! before the chunks.

use super::camera::{Camera, Frustum};
use super::culling::CullBox;
use super::mesh_arena::{MeshArena, Slot};
use super::terrain_passes::DEPTH_FORMAT;
use super::world_renderer::DrawnColumns;
use crate::far::clipmap::TILE_CELLS;
use crate::far::mesh::{FarQuad, FACE_TOP};
use crate::far::occlusion::{self, Candidate, SolidColumns, PARTS};
use crate::far::TileKey;
use crate::world::coords::{ChunkPos, CHUNK_SIZE_I64};
use bytemuck::{Pod, Zeroable};
use glam::{DMat4, DVec3, Mat4};
use rustc_hash::FxHashMap;

/// The far pass's near plane, in blocks: far terrain never lies closer
/// than the chunk range's edge except below or above its vertical reach.
const NEAR: f64 = 1.0;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct FarUniform {
    view_proj: [[f32; 4]; 4],
    hole: [f32; 4],
    range: [f32; 4],
}

struct FarMesh {
    slot: Slot,
    quads: u32,
    /// Lowest and highest heights of the tile's quads.
    heights: [i32; 2],
    /// The lowest top in each of the tile's parts ([`occlusion::PARTS`]²,
    /// row-major): every cell of a part stands at least this high.
    part_min: [i32; PARTS * PARTS],
}

/// [`FarMesh::part_min`] from a tile's quads: its tops cover every cell
/// once.
fn part_min(quads: &[FarQuad]) -> [i32; PARTS * PARTS] {
    let part = (TILE_CELLS / PARTS) as u32;
    let mut out = [i32::MAX; PARTS * PARTS];
    for q in quads.iter().filter(|q| q.face() == FACE_TOP) {
        let ([x, z], [w, d], top) = (q.cell(), q.size(), q.heights()[0]);
        for pz in z / part..=(z + d - 1) / part {
            for px in x / part..=(x + w - 1) / part {
                let m = &mut out[(pz * PARTS as u32 + px) as usize];
                *m = (*m).min(top);
            }
        }
    }
    out
}

/// One tile in view this frame: its page, draw and table row, and whether
/// it can meet the chunk range (drawn with the hole test).
pub struct FarDraw {
    pub hole: bool,
    pub page: usize,
    pub args: wgpu::util::DrawIndexedIndirectArgs,
}

/// Where the chunks are drawn, which far terrain leaves to them.
#[derive(Clone, Copy)]
pub struct FarHole<'a> {
    pub bounds: CullBox,
    pub in_range: &'a dyn Fn(ChunkPos) -> bool,
    /// Columns wholly drawn, while some in range are not (None: all are).
    pub drawn: Option<&'a DrawnColumns>,
    /// Where the drawn chunks are opaque, which hides far terrain behind them.
    pub solid: &'a SolidColumns,
}

/// Whether the tile's ground can meet the chunk range's square (the disc
/// lies inside it).
fn meets(key: TileKey, bounds: &CullBox) -> bool {
    let [x0, z0] = key.origin().map(|v| v.div_euclid(CHUNK_SIZE_I64));
    let n = key.blocks() / CHUNK_SIZE_I64;
    let (cx, cz, r) = (bounds.centre.x as i64, bounds.centre.z as i64, bounds.radius as i64);
    x0 <= cx + r && x0 + n > cx - r && z0 <= cz + r && z0 + n > cz - r
}

/// Whether the chunks draw every chunk the tile's quads reach into: every
/// column of the tile in range at its lowest and highest height (the range
/// is a box vertically), and drawn. The first column outside ends the walk.
fn covered(key: TileKey, heights: [i32; 2], hole: &FarHole) -> bool {
    let [x0, z0] = key.origin().map(|v| v.div_euclid(CHUNK_SIZE_I64));
    let n = key.blocks() / CHUNK_SIZE_I64;
    let [y0, y1] = heights.map(|h| (h as i64).div_euclid(CHUNK_SIZE_I64) as i32);
    (0..n).all(|dz| {
        (0..n).all(|dx| {
            let (x, z) = ((x0 + dx) as i32, (z0 + dz) as i32);
            (hole.in_range)(ChunkPos::new(x, y0, z))
                && (hole.in_range)(ChunkPos::new(x, y1, z))
                && hole.drawn.is_none_or(|d| d.is_drawn(x, z))
        })
    })
}

fn far_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    format: wgpu::TextureFormat,
    fragment: &str,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(fragment),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: shader,
            entry_point: Some("vs_far"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState { cull_mode: Some(wgpu::Face::Back), ..Default::default() },
        // Reversed depth: 1 at the near plane, 0 at infinity.
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Greater),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: shader,
            entry_point: Some(fragment),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState { format, blend: None, write_mask: wgpu::ColorWrites::ALL })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

pub struct FarRenderer {
    /// With the chunk range's hole test (a discard), for tiles that can
    /// meet the range; without it (early depth testing), for the rest.
    pipeline: wgpu::RenderPipeline,
    plain: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    table: wgpu::Buffer,
    table_rows: usize,
    /// The drawn-columns mask (see [`DrawnColumns`]), in words.
    drawn: wgpu::Buffer,
    drawn_words: usize,
    bind_group: wgpu::BindGroup,
    arena: MeshArena,
    meshes: FxHashMap<TileKey, FarMesh>,
    pub gpu_bytes: u64,
    /// Whether tiles that nearer far terrain hides are left out (on unless
    /// a benchmark compares).
    pub occlusion: bool,
    /// Tiles and quads the last frame left out as hidden.
    pub occluded: [u64; 2],
}

fn entry(binding: u32, visibility: wgpu::ShaderStages, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
        count: None,
    }
}

impl FarRenderer {
    /// `globals` is the world renderer's uniform (sky, fog); `page_layout`
    /// the layout its mesh pages are bound with; `common` the WGSL shared
    /// with the sky.
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        globals: &wgpu::Buffer,
        page_layout: &wgpu::BindGroupLayout,
        common: &str,
    ) -> FarRenderer {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("far.wgsl"),
            source: wgpu::ShaderSource::Wgsl([common, include_str!("../../assets/shaders/far.wgsl")].concat().into()),
        });
        let both = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("far"),
            entries: &[
                entry(0, both, wgpu::BufferBindingType::Uniform),
                entry(1, wgpu::ShaderStages::VERTEX, wgpu::BufferBindingType::Storage { read_only: true }),
                entry(2, both, wgpu::BufferBindingType::Uniform),
                entry(3, wgpu::ShaderStages::FRAGMENT, wgpu::BufferBindingType::Storage { read_only: true }),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("far"),
            bind_group_layouts: &[Some(&layout), Some(page_layout)],
            immediate_size: 0,
        });
        let pipeline = far_pipeline(device, &pipeline_layout, &shader, format, "fs_far");
        let plain = far_pipeline(device, &pipeline_layout, &shader, format, "fs_far_plain");
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("far-uniform"),
            size: std::mem::size_of::<FarUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let table_rows = 256;
        let table = Self::table_buffer(device, table_rows);
        let drawn_words = 64;
        let drawn = Self::words_buffer(device, drawn_words);
        let bind_group = Self::make_bind_group(device, &layout, globals, &table, &uniform, &drawn);
        FarRenderer {
            pipeline,
            plain,
            layout,
            uniform,
            table,
            table_rows,
            drawn,
            drawn_words,
            bind_group,
            arena: MeshArena::default(),
            meshes: FxHashMap::default(),
            occlusion: true,
            occluded: [0, 0],
            gpu_bytes: 0,
        }
    }

    fn table_buffer(device: &wgpu::Device, rows: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("far-tiles"),
            size: (rows * 16) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn make_bind_group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        globals: &wgpu::Buffer,
        table: &wgpu::Buffer,
        uniform: &wgpu::Buffer,
        drawn: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("far"),
            layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: globals.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: table.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: uniform.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: drawn.as_entire_binding() },
            ],
        })
    }

    /// Stores a tile's quads (an empty tile is held as nothing).
    pub fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        page_layout: &wgpu::BindGroupLayout,
        key: TileKey,
        quads: &[FarQuad],
    ) {
        self.remove(key);
        if quads.is_empty() {
            return;
        }
        let heights = quads.iter().fold([i32::MAX, i32::MIN], |[lo, hi], q| {
            let [t, b] = q.heights();
            [lo.min(b), hi.max(t)]
        });
        let part_min = part_min(quads);
        let slot = self.arena.store(device, queue, page_layout, bytemuck::cast_slice(quads));
        self.gpu_bytes += std::mem::size_of_val(quads) as u64;
        self.meshes.insert(key, FarMesh { slot, quads: quads.len() as u32, heights, part_min });
    }

    pub fn remove(&mut self, key: TileKey) {
        if let Some(m) = self.meshes.remove(&key) {
            self.gpu_bytes -= m.quads as u64 * std::mem::size_of::<FarQuad>() as u64;
            self.arena.release(m.slot);
        }
    }

    pub fn clear(&mut self) {
        let keys: Vec<TileKey> = self.meshes.keys().copied().collect();
        keys.into_iter().for_each(|k| self.remove(k));
    }

    pub fn tile_count(&self) -> usize {
        self.meshes.len()
    }

    pub fn quad_count(&self) -> u64 {
        self.meshes.values().map(|m| m.quads as u64).sum()
    }

    /// Quads held on each level.
    pub fn quads_per_level(&self) -> Vec<u64> {
        let mut out = vec![0; crate::far::clipmap::MAX_LEVELS as usize];
        for (k, m) in &self.meshes {
            out[k.level as usize] += m.quads as u64;
        }
        out
    }

    /// Bytes of vertex memory held in far pages, used or not.
    pub fn arena_bytes(&self) -> u64 {
        self.arena.capacity()
    }

    /// The projection far terrain is drawn with: the camera's, with its
    /// near plane moved out and depth reversed, without a far plane.
    fn view_proj(camera: &Camera) -> Mat4 {
        let view = DMat4::look_to_rh(DVec3::ZERO, camera.forward(), DVec3::Y);
        let proj = DMat4::perspective_infinite_reverse_rh(camera.fov_y_degrees.to_radians(), camera.aspect, NEAR);
        (proj * view).as_mat4()
    }

    /// Writes this frame's table and uniform; the draws of the tiles in
    /// the frustum out to `horizon` blocks that nearer far terrain does not
    /// hide ([`crate::far::occlusion`]), grouped by page. `chunks` is
    /// the chunk range (its box, and whether it holds a chunk), which hides
    /// far terrain where the chunks are drawn: a tile it covers whole is
    /// not drawn at all.
    pub fn prepare(
        &mut self,
        gpu: &super::gpu::Gpu,
        globals: &wgpu::Buffer,
        camera: &Camera,
        horizon: f32,
        chunks: Option<FarHole>,
        occlude: bool,
    ) -> Vec<FarDraw> {
        let culling = Camera { far: horizon as f64 + 64.0, ..*camera };
        let frustum = Frustum::from_matrix(culling.view_proj());
        let eye = camera.eye;
        let rel = |x: i64, y: f64, z: i64| (DVec3::new(x as f64, y, z as f64) - eye).as_vec3();
        let mut rows: Vec<[f32; 4]> = Vec::new();
        let mut draws: Vec<FarDraw> = Vec::new();
        let mut seen: Vec<(&TileKey, &FarMesh, bool)> = Vec::new();
        for (key, mesh) in &self.meshes {
            let [x0, z0] = key.origin();
            let b = key.blocks();
            let lo = rel(x0, mesh.heights[0] as f64, z0);
            let hi = rel(x0 + b, mesh.heights[1] as f64, z0 + b);
            let hidden = chunks.as_ref().is_some_and(|h| covered(*key, mesh.heights, h));
            if hidden || !frustum.intersects_box(lo, hi) || key.distance([eye.x, eye.z]) > horizon as f64 {
                continue;
            }
            seen.push((key, mesh, chunks.as_ref().is_some_and(|h| meets(*key, &h.bounds))));
        }
        let candidates: Vec<Candidate> = seen
            .iter()
            .map(|&(&key, mesh, hole)| Candidate {
                key,
                part_min: mesh.part_min,
                bottom: mesh.heights[0],
                top_max: mesh.heights[1],
                whole: !hole,
            })
            .collect();
        let visible = if self.occlusion && occlude {
            let walls = chunks.as_ref().map_or_else(Vec::new, |h| h.solid.walls(eye.y));
            occlusion::visible([eye.x, eye.y, eye.z], &candidates, &walls)
        } else {
            vec![true; seen.len()]
        };
        self.occluded = [0, 0];
        for (&(key, mesh, hole), visible) in seen.iter().zip(visible) {
            if !visible {
                self.occluded[0] += 1;
                self.occluded[1] += mesh.quads as u64;
                continue;
            }
            let [x0, z0] = key.origin();
            draws.push(FarDraw {
                hole,
                page: mesh.slot.page,
                args: wgpu::util::DrawIndexedIndirectArgs {
                    index_count: mesh.quads * 6,
                    instance_count: 1,
                    first_index: 0,
                    base_vertex: (mesh.slot.range.start / std::mem::size_of::<FarQuad>() as u64) as i32 * 4,
                    first_instance: rows.len() as u32,
                },
            });
            let origin = rel(x0, 0.0, z0);
            rows.push([origin.x, origin.y, origin.z, key.cell() as f32]);
        }
        draws.sort_by_key(|d| (d.hole, d.page));
        if rows.len() > self.table_rows {
            self.table_rows = rows.len().next_power_of_two();
            self.table = Self::table_buffer(&gpu.device, self.table_rows);
            self.bind_group =
                Self::make_bind_group(&gpu.device, &self.layout, globals, &self.table, &self.uniform, &self.drawn);
        }
        if !rows.is_empty() {
            gpu.queue.write_buffer(&self.table, 0, bytemuck::cast_slice(&rows));
        }
        let (hole_v, range) = match &chunks {
            Some(h) => {
                let o = h.bounds.centre.origin();
                let c = (DVec3::new(o[0] as f64, o[1] as f64, o[2] as f64) - eye).as_vec3();
                let masked = match h.drawn {
                    Some(d) => {
                        self.write_drawn(gpu, globals, &d.words);
                        1.0
                    }
                    None => 0.0,
                };
                ([c.x, c.y, c.z, h.bounds.radius as f32], [h.bounds.vertical as f32, 1.0, masked, 0.0])
            }
            None => ([0.0; 4], [0.0; 4]),
        };
        let uniform = FarUniform { view_proj: Self::view_proj(camera).to_cols_array_2d(), hole: hole_v, range };
        gpu.queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&uniform));
        draws
    }

    /// Uploads the drawn-columns mask, growing its buffer when needed.
    fn write_drawn(&mut self, gpu: &super::gpu::Gpu, globals: &wgpu::Buffer, words: &[u32]) {
        if words.len() > self.drawn_words {
            self.drawn_words = words.len().next_power_of_two();
            self.drawn = Self::words_buffer(&gpu.device, self.drawn_words);
            self.bind_group =
                Self::make_bind_group(&gpu.device, &self.layout, globals, &self.table, &self.uniform, &self.drawn);
        }
        gpu.queue.write_buffer(&self.drawn, 0, bytemuck::cast_slice(words));
    }

    fn words_buffer(device: &wgpu::Device, words: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("far-drawn-columns"),
            size: (words.max(1) * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// The pipeline for tiles that can meet the chunk range (`hole`), or
    /// for the rest.
    pub fn pipeline(&self, hole: bool) -> &wgpu::RenderPipeline {
        if hole {
            &self.pipeline
        } else {
            &self.plain
        }
    }

    pub fn group(&self) -> &wgpu::BindGroup {
        &self.bind_group
    }

    pub fn page_group(&self, page: usize) -> Option<&wgpu::BindGroup> {
        self.arena.page_group(page)
    }
}
