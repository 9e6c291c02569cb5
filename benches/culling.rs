//! The visibility walk and the face-link flood, alone.
//!
//! The walk runs over the box of render distance 32 (65 × 65 columns, 21
//! levels) from an eye above ground: open chunks above, rock below, the
//! frustum of a 1280 × 720 view. Face links are found for generated
//! terrain chunks (caves included), as the mesher threads do beside each
//! mesh.

use blockworld::render::camera::{Camera, DEFAULT_FOV_DEGREES};
use blockworld::render::culling::{CullBox, Culler, Steps};
use blockworld::world::coords::ChunkPos;
use blockworld::world::visibility::FaceLinks;
use blockworld::worldgen::{Preset, WorldGen};
use criterion::{criterion_group, criterion_main, Criterion};
use glam::DVec3;
use std::hint::black_box;

fn walk(c: &mut Criterion) {
    let camera = Camera::for_view(DVec3::new(16.0, 80.0, 16.0), 30.0, -12.0, DEFAULT_FOV_DEGREES, (1280, 720), 32);
    let frustum = camera.frustum();
    let bounds = CullBox { centre: ChunkPos::new(0, 2, 0), radius: 32, vertical: 10 };
    let ground = |p: ChunkPos| if p.y < 2 { FaceLinks::NONE } else { FaceLinks::ALL };
    let mut culler = Culler::default();
    c.bench_function("walk, render distance 32, open above rock", |b| {
        b.iter(|| {
            black_box(
                culler.walk(camera.eye, Some(&frustum), bounds, Steps::Straight, |_| true, ground).map(|v| v.len()),
            )
        })
    });
}

fn links(c: &mut Criterion) {
    let world = WorldGen::new(Preset::classic(), 42);
    let chunks: Vec<_> =
        (-1..=1).flat_map(|y| (0..4).map(move |x| ChunkPos::new(x, y, 0))).map(|p| world.generate(p)).collect();
    c.bench_function("face links of 12 terrain chunks", |b| {
        b.iter(|| chunks.iter().map(|c| FaceLinks::of(black_box(c)).bits() as u32).sum::<u32>())
    });
}

criterion_group!(benches, walk, links);
criterion_main!(benches);
