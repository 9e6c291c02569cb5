//! Criterion benches of chunk generation: Perlin 2D/3D against the `noise`
//! crate on the same points, the heightmap of one chunk column, the fill of
//! one non-uniform chunk, and whole worlds of 16…56 chunks (cold cache).

use blockworld::backend::{cpu::CpuBackend, ChunkBackend};
use blockworld::bench::gen::world_positions;
use blockworld::world::coords::{ChunkPos, ColumnPos};
use blockworld::worldgen::noise::{perlin2_batch, perlin3_batch};
use blockworld::worldgen::{Preset, WorldGen};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use noise::NoiseFn;
use std::hint::black_box;
use std::sync::Arc;

const POINTS: usize = 4096;

fn points() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut s = 0x2545_F491u32;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        (s as f32 / u32::MAX as f32) * 2000.0 - 1000.0
    };
    let xs = (0..POINTS).map(|_| next()).collect();
    let ys = (0..POINTS).map(|_| next()).collect();
    let zs = (0..POINTS).map(|_| next()).collect();
    (xs, ys, zs)
}

fn perlin(c: &mut Criterion) {
    let (xs, ys, zs) = points();
    let mut out = vec![0.0f32; POINTS];
    let crate_perlin = noise::Perlin::new(7);
    let mut g = c.benchmark_group("perlin3d");
    g.throughput(Throughput::Elements(POINTS as u64));
    g.bench_function("blockworld", |b| b.iter(|| perlin3_batch(7, black_box(&xs), &ys, &zs, &mut out)));
    g.bench_function("noise-crate", |b| {
        b.iter(|| {
            for i in 0..POINTS {
                out[i] = crate_perlin.get([xs[i] as f64, ys[i] as f64, zs[i] as f64]) as f32;
            }
            black_box(&out);
        })
    });
    g.finish();
    let mut g = c.benchmark_group("perlin2d");
    g.throughput(Throughput::Elements(POINTS as u64));
    g.bench_function("blockworld", |b| b.iter(|| perlin2_batch(7, black_box(&xs), &ys, &mut out)));
    g.bench_function("noise-crate", |b| {
        b.iter(|| {
            for i in 0..POINTS {
                out[i] = crate_perlin.get([xs[i] as f64, ys[i] as f64]) as f32;
            }
            black_box(&out);
        })
    });
    g.finish();
}

fn stages(c: &mut Criterion) {
    let world = WorldGen::new(Preset::classic(), 42);
    let col = ColumnPos { x: 3, z: -2 };
    c.bench_function("heightmap/column", |b| b.iter(|| black_box(world.compute_heightmap(black_box(col)))));
    let hm = world.compute_heightmap(col);
    let surface = ChunkPos::new(col.x, (hm.heights[528] as i64).div_euclid(32) as i32, col.z);
    assert!(world.fill_terrain(surface, &hm).blocks().uniform().is_none());
    c.bench_function("fill/surface-chunk", |b| b.iter(|| black_box(world.fill_terrain(black_box(surface), &hm))));
}

fn worlds(c: &mut Criterion) {
    let mut g = c.benchmark_group("world-cold");
    g.sample_size(20);
    for parallel in [false, true] {
        let world = Arc::new(WorldGen::new(Preset::classic(), 42));
        let backend = if parallel { CpuBackend::parallel(world.clone()) } else { CpuBackend::serial(world.clone()) };
        for n in [16usize, 24, 32, 40, 48, 56] {
            let positions = world_positions(n);
            let name = if parallel { "cpu" } else { "cpu-serial" };
            g.bench_with_input(BenchmarkId::new(name, n), &positions, |b, p| {
                b.iter(|| {
                    world.clear_cache();
                    black_box(backend.generate(p).expect("cpu generation cannot fail"))
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, perlin, stages, worlds);
criterion_main!(benches);
