//! The mesher against the `block-mesh` crate's `greedy_quads` on the same
//! generated terrain chunks, in the same run.
//!
//! Ours includes gathering the 34³ neighbourhood from the 27 chunks, face
//! culling, ambient occlusion, greedy merging and vertex packing.
//! block-mesh gets its padded voxel array prepared outside the timed loop and
//! computes no ambient occlusion, so the comparison favours it.

use block_mesh::ndshape::{ConstShape, ConstShape3u32};
use block_mesh::{greedy_quads, GreedyQuadsBuffer, MergeVoxel, Voxel, VoxelVisibility, RIGHT_HANDED_Y_UP_CONFIG};
use blockworld::mesh::{mesh_chunk, Neighbourhood};
use blockworld::world::block::BlockId;
use blockworld::world::chunk::Chunk;
use blockworld::world::coords::{ChunkPos, ColumnPos};
use blockworld::worldgen::{Preset, WorldGen};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

type Padded = ConstShape3u32<34, 34, 34>;

#[derive(Clone, Copy, PartialEq, Eq)]
struct Block(u8);

impl Voxel for Block {
    fn get_visibility(&self) -> VoxelVisibility {
        match BlockId(self.0) {
            BlockId::AIR => VoxelVisibility::Empty,
            b if b.info().opaque() => VoxelVisibility::Opaque,
            _ => VoxelVisibility::Translucent,
        }
    }
}

impl MergeVoxel for Block {
    type MergeValue = u8;
    fn merge_value(&self) -> u8 {
        self.0
    }
}

/// 27 chunks around each of a few surface chunks of the classic world.
fn terrain() -> Vec<Vec<Chunk>> {
    let world = WorldGen::new(Preset::classic(), 42);
    [(0, 0), (3, -2), (-5, 7), (10, 10), (-20, 4), (6, -13)]
        .iter()
        .map(|&(x, z)| {
            let hm = world.compute_heightmap(ColumnPos { x, z });
            let y = (hm.heights[528] as i64).div_euclid(32) as i32;
            let mut chunks = Vec::new();
            for dz in -1..=1 {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        chunks.push(world.generate(ChunkPos::new(x + dx, y + dy, z + dz)));
                    }
                }
            }
            chunks
        })
        .collect()
}

fn neighbourhood(chunks: &[Chunk]) -> Neighbourhood<'_> {
    let mut neighbours = [chunks[13].blocks(); 27];
    for (i, c) in chunks.iter().enumerate() {
        neighbours[i] = c.blocks();
    }
    Neighbourhood { centre: &chunks[13], neighbours, light: None }
}

fn padded(chunks: &[Chunk]) -> Vec<Block> {
    let mut v = vec![Block(0); Padded::USIZE];
    for z in 0..34i32 {
        for y in 0..34i32 {
            for x in 0..34i32 {
                let (cx, lx) = ((x - 1).div_euclid(32), (x - 1).rem_euclid(32));
                let (cy, ly) = ((y - 1).div_euclid(32), (y - 1).rem_euclid(32));
                let (cz, lz) = ((z - 1).div_euclid(32), (z - 1).rem_euclid(32));
                let c = &chunks[((cz + 1) * 9 + (cy + 1) * 3 + (cx + 1)) as usize];
                v[Padded::linearize([x as u32, y as u32, z as u32]) as usize] =
                    Block(c.blocks().get(lx as usize, ly as usize, lz as usize).0);
            }
        }
    }
    v
}

fn meshing(c: &mut Criterion) {
    let sets = terrain();
    let quads: usize = sets.iter().map(|s| mesh_chunk(&neighbourhood(s)).quads()).sum();
    let voxels: Vec<Vec<Block>> = sets.iter().map(|s| padded(s)).collect();
    let mut buffer = GreedyQuadsBuffer::new(voxels[0].len());
    let mut theirs = 0;
    for v in &voxels {
        greedy_quads(v, &Padded {}, [0; 3], [33; 3], &RIGHT_HANDED_Y_UP_CONFIG.faces, &mut buffer);
        theirs += buffer.quads.num_quads();
    }
    eprintln!("terrain chunks: {} — quads: blockworld {quads}, block-mesh {theirs}", sets.len());

    let mut g = c.benchmark_group("mesh-terrain-chunk");
    g.bench_function("blockworld", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % sets.len();
            black_box(mesh_chunk(&neighbourhood(&sets[i])))
        })
    });
    // Breakdown: gathering the neighbourhood bitmasks alone.
    g.bench_function("blockworld-gather-only", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % sets.len();
            black_box(blockworld::mesh::volume::Volume::build(&neighbourhood(&sets[i])))
        })
    });
    g.bench_function("block-mesh", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % voxels.len();
            greedy_quads(&voxels[i], &Padded {}, [0; 3], [33; 3], &RIGHT_HANDED_Y_UP_CONFIG.faces, &mut buffer);
            black_box(buffer.quads.num_quads())
        })
    });
    g.finish();
}

criterion_group!(benches, meshing);
criterion_main!(benches);
