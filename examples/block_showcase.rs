//! Renders every registered block on a grass platform, offscreen, to a PNG:
//! a quick look at the registry's tiles, shapes and render layers.
//!
//!   cargo run --release --example block_showcase -- /tmp/blocks.png
use blockworld::mesh::{mesh_chunk, Neighbourhood};
use blockworld::render::camera::Camera;
use blockworld::render::gpu::Gpu;
use blockworld::render::offscreen::{self, OffscreenTarget};
use blockworld::render::sky::{sky_at, NOON};
use blockworld::render::world_renderer::{ViewParams, WorldRenderer};
use blockworld::world::block::{BlockId, Shape};
use blockworld::world::chunk::{Chunk, ChunkBlocks};
use blockworld::world::coords::{block_index, ChunkPos, CHUNK_VOLUME};
use glam::DVec3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "block_showcase.png".into());
    let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
    // A grass platform, and the blocks in a row on it, every other column.
    for z in 4..12 {
        for x in 0..32 {
            ids[block_index(x, 4, z)] = BlockId::GRASS;
        }
    }
    // Sprites in front, cubes two high behind them (faces between equals show).
    let (cubes, sprites): (Vec<BlockId>, Vec<BlockId>) =
        BlockId::all().filter(|b| b.info().shape != Shape::None).partition(|b| b.info().shape == Shape::Cube);
    for (i, b) in sprites.iter().enumerate() {
        ids[block_index(31 - (8 + i * 3), 5, 6)] = *b;
    }
    for (i, b) in cubes.iter().enumerate() {
        let x = 31 - (1 + i * 31 / cubes.len().max(1));
        ids[block_index(x, 5, 9)] = *b;
        ids[block_index(x, 6, 9)] = *b;
    }
    let blocks = ChunkBlocks::Dense(ids.into_boxed_slice());
    let chunk = Chunk::from_blocks(ChunkPos::new(0, 0, 0), blocks);
    let air = ChunkBlocks::Uniform(BlockId::AIR);
    let mut neighbours = [&air; 27];
    neighbours[Neighbourhood::index(0, 0, 0)] = chunk.blocks();
    let mesh = mesh_chunk(&Neighbourhood { centre: &chunk, neighbours, light: None });

    let gpu = Gpu::headless()?;
    let mut renderer = WorldRenderer::new(&gpu, offscreen::FORMAT)?;
    renderer.upload(&gpu, chunk.pos, &mesh);
    let size = (1280, 480);
    let target = OffscreenTarget::new(&gpu, size);
    let camera = Camera {
        eye: DVec3::new(16.0, 13.0, -4.0),
        yaw: 0.0,
        pitch: -38.0,
        fov_y_degrees: 60.0,
        aspect: size.0 as f64 / size.1 as f64,
        far: 200.0,
    };
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let view = ViewParams { fog_end: 150.0, sky: sky_at(NOON), seconds: 0.0 };
    renderer.render(&gpu, &mut encoder, &target.view, size, &camera, &view, None);
    target.copy_out(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    offscreen::write_png(std::path::Path::new(&out), size, &target.read_rgba(&gpu)?)?;
    println!("wrote {out}: {} blocks, {} quads", chunk.counts().total(), mesh.quads());
    Ok(())
}
