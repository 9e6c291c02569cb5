//! Rendering into a texture and reading it back (screenshots, benchmarks).

use super::gpu::{Gpu, RenderError};

pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A buffer a texture is copied into and read back from, rows padded as
/// wgpu requires.
pub struct Readback {
    buffer: wgpu::Buffer,
    size: (u32, u32),
    padded_row: u32,
    /// The texture's bytes are blue, green, red, alpha (a BGRA surface).
    bgra: bool,
    /// Alpha is set to opaque: a window surface may keep anything there.
    opaque: bool,
}

impl Readback {
    /// For an offscreen texture of `size` pixels in [`FORMAT`]; its bytes are read as they are.
    pub fn new(gpu: &Gpu, size: (u32, u32)) -> Readback {
        Readback::with_format(gpu, size, FORMAT, false)
    }

    /// For a window's surface texture (4 bytes a pixel, RGBA or BGRA order),
    /// read back as opaque RGBA.
    pub fn for_surface(gpu: &Gpu, size: (u32, u32), format: wgpu::TextureFormat) -> Readback {
        Readback::with_format(gpu, size, format, true)
    }

    fn with_format(gpu: &Gpu, size: (u32, u32), format: wgpu::TextureFormat, opaque: bool) -> Readback {
        let padded_row = (size.0 * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: (padded_row * size.1) as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let bgra = matches!(format, wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb);
        Readback { buffer, size, padded_row, bgra, opaque }
    }

    /// Copies `texture` into the buffer (record before submitting).
    pub fn copy_from(&self, encoder: &mut wgpu::CommandEncoder, texture: &wgpu::Texture) {
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.size.1),
                },
            },
            wgpu::Extent3d { width: self.size.0, height: self.size.1, depth_or_array_layers: 1 },
        );
    }

    /// Waits for the GPU and returns tightly packed RGBA rows.
    pub fn read_rgba(&self, gpu: &Gpu) -> Result<Vec<u8>, RenderError> {
        let slice = self.buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        gpu.device
            .poll(wgpu::PollType::Wait { submission_index: None, timeout: None })
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        rx.recv()
            .map_err(|e| RenderError::Readback(e.to_string()))?
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        let data = slice.get_mapped_range().map_err(|e| RenderError::Readback(format!("{e:?}")))?;
        let mut out = Vec::with_capacity((self.size.0 * self.size.1 * 4) as usize);
        for row in 0..self.size.1 {
            let start = (row * self.padded_row) as usize;
            out.extend_from_slice(&data[start..start + (self.size.0 * 4) as usize]);
        }
        drop(data);
        self.buffer.unmap();
        if self.bgra || self.opaque {
            for px in out.chunks_exact_mut(4) {
                if self.bgra {
                    px.swap(0, 2);
                }
                if self.opaque {
                    px[3] = 255;
                }
            }
        }
        Ok(out)
    }
}

pub struct OffscreenTarget {
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    pub size: (u32, u32),
    readback: Readback,
}

impl OffscreenTarget {
    pub fn new(gpu: &Gpu, size: (u32, u32)) -> OffscreenTarget {
        let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen"),
            size: wgpu::Extent3d { width: size.0, height: size.1, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        OffscreenTarget { readback: Readback::new(gpu, size), texture, view, size }
    }

    /// Copies the texture into the readback buffer (record before submitting).
    pub fn copy_out(&self, encoder: &mut wgpu::CommandEncoder) {
        self.readback.copy_from(encoder, &self.texture);
    }

    /// Waits for the GPU and returns tightly packed RGBA rows.
    pub fn read_rgba(&self, gpu: &Gpu) -> Result<Vec<u8>, RenderError> {
        self.readback.read_rgba(gpu)
    }
}

/// Encodes RGBA pixels as PNG.
pub fn write_png(path: &std::path::Path, size: (u32, u32), rgba: &[u8]) -> std::io::Result<()> {
    let file = std::fs::File::create(path)?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), size.0, size.1);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(std::io::Error::other)?;
    w.write_image_data(rgba).map_err(std::io::Error::other)?;
    Ok(())
}
