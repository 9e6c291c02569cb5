//! Ore veins: acceptance against the preset's chances, seams, and engines.

use blockworld::backend::cpu::CpuBackend;
use blockworld::backend::ChunkBackend;
use blockworld::cli::region_hash::region_positions;
use blockworld::cli::vein_table::{count_veins, expected_veins};
use blockworld::world::block::BlockId;
use blockworld::world::coords::ChunkPos;
use blockworld::worldgen::params::WorldParams;
use blockworld::worldgen::{Preset, WorldGen};
use std::sync::Arc;

/// (layer, kind, expected, counted) for every band and kind with veins expected.
fn bands(p: &WorldParams, from: ChunkPos, to: ChunkPos) -> Vec<(i32, usize, f64, u64)> {
    let counted = count_veins(p, (from, to));
    let mut out = Vec::new();
    for layer in from.y..=to.y {
        for (k, kind) in p.veins.kinds().iter().enumerate() {
            let expected = expected_veins(p, (from, to), layer, kind);
            let n = counted.get(&(layer, k as u32)).copied().unwrap_or(0);
            assert!(expected > 0.0 || n == 0, "layer {layer}, kind {k}: {n} veins where none may start");
            if expected > 0.0 {
                out.push((layer, k, expected, n));
            }
        }
    }
    out
}

/// Each kind's veins per depth band are within 5σ of what its chance at
/// those heights promises (σ of a binomial count; the dithering makes the
/// spread smaller still), near the origin and 3.2 million blocks out, for
/// two seeds. A chance 10 % off would be caught in the large bands.
#[test]
fn each_kind_is_accepted_as_often_as_its_chance_says_within_5_sigma() {
    for (seed, x, z) in [(42u64, -24, -24), (7, 100_000, -100_048)] {
        let p = WorldParams::new(&Preset::classic(), seed);
        let (from, to) = (ChunkPos::new(x, -3, z), ChunkPos::new(x + 47, 4, z + 47));
        let rows = bands(&p, from, to);
        assert!(rows.len() >= 20, "{} bands", rows.len());
        let mut powerful = 0;
        for &(layer, k, expected, n) in &rows {
            let sigma = expected.sqrt().max(1.0);
            let off = (n as f64 - expected).abs() / sigma;
            assert!(off <= 5.0, "seed {seed}, layer {layer}, kind {k}: {n} veins, expected {expected:.1} ({off:.1}σ)");
            // Negative control: the same count against a chance 10 % higher.
            if (n as f64 - 1.1 * expected).abs() / (1.1 * expected).sqrt() > 5.0 {
                powerful += 1;
            }
        }
        assert!(powerful >= 5, "only {powerful} bands would notice a 10 % error in a chance");
    }
}

/// A chunk made alone, on a fresh generator, equals the same chunk made in
/// a batch with its neighbours: veins that cross chunk borders are cut the
/// same way from both sides.
#[test]
fn a_vein_chunk_alone_equals_the_chunk_in_a_batch() {
    let positions = region_positions(ChunkPos::new(-3, -2, 5), ChunkPos::new(0, 0, 8)).unwrap();
    let batch = CpuBackend::parallel(Arc::new(WorldGen::new(Preset::classic(), 42))).generate(&positions).unwrap();
    let ore: u32 = batch
        .iter()
        .map(|c| {
            [BlockId::COAL_ORE, BlockId::IRON_ORE, BlockId::GOLD_ORE].map(|b| c.counts().get(b)).iter().sum::<u32>()
        })
        .sum();
    assert!(ore > 1000, "the box must hold veins ({ore} ore blocks)");
    for (pos, chunk) in positions.iter().zip(&batch) {
        let alone = CpuBackend::serial(Arc::new(WorldGen::new(Preset::classic(), 42))).generate(&[*pos]).unwrap();
        assert!(alone[0] == *chunk, "chunk {pos} differs alone");
    }
    #[cfg(feature = "kernel-emulation")]
    {
        use blockworld::backend::{self, Engine};
        let w = Arc::new(WorldGen::new(Preset::classic(), 42));
        let device = backend::create(Engine::CudaEmulated, w, &Default::default()).unwrap();
        assert!(device.generate(&positions).unwrap() == batch, "the emulated kernels' batch differs");
        for pos in positions.iter().step_by(7) {
            let i = positions.iter().position(|p| p == pos).unwrap();
            assert!(device.generate(&[*pos]).unwrap()[0] == batch[i], "chunk {pos} differs alone on the kernels");
        }
    }
}

/// The chunk layers under the cave floor are what they were without veins
/// (deep rock stays uniform, and costs nothing more than before), and the
/// layer above holds ore in nearly every chunk.
#[test]
fn rock_below_the_veins_is_untouched() {
    let with = Arc::new(WorldGen::new(Preset::classic(), 42));
    let without = Arc::new(WorldGen::new(Preset { veins: None, ..Preset::classic() }, 42));
    let positions = region_positions(ChunkPos::new(-4, -4, -4), ChunkPos::new(3, -3, 3)).unwrap();
    let a = CpuBackend::parallel(with.clone()).generate(&positions).unwrap();
    let b = CpuBackend::parallel(without).generate(&positions).unwrap();
    let uniform = a.iter().filter(|c| c.blocks().uniform().is_some()).count();
    assert!(a == b, "veins reached below the cave floor");
    assert!(uniform > positions.len() / 2, "{uniform} of {} deep chunks uniform", positions.len());
    let positions = region_positions(ChunkPos::new(-4, -2, -4), ChunkPos::new(3, -2, 3)).unwrap();
    let chunks = CpuBackend::parallel(with).generate(&positions).unwrap();
    let with_ore =
        chunks.iter().filter(|c| c.counts().get(BlockId::COAL_ORE) + c.counts().get(BlockId::IRON_ORE) > 0).count();
    assert!(with_ore * 10 >= chunks.len() * 9, "only {with_ore} of {} chunks above hold ore", chunks.len());
}

/// Crowded veins of two footprints (big blobs of gravel, thin strings of
/// gold) meet in thousands of blocks; the kernels, whose thread blocks
/// list the veins in whatever order their scan packs them, agree with
/// the CPU on every one, on both heightmap paths.
#[cfg(feature = "kernel-emulation")]
#[test]
fn crowded_veins_of_two_footprints_are_the_same_on_the_kernels() {
    use blockworld::backend::emulated::EmulatedDevice;
    use blockworld::backend::kernel::{KernelBackend, KernelPath};
    use blockworld::worldgen::preset::Veins;
    let veins: Veins = ron::from_str(include_str!("data/crowded_veins.ron")).expect("the test's veins parse");
    let w = Arc::new(WorldGen::new(Preset { veins: Some(veins), ..Preset::classic() }, 11));
    let positions = region_positions(ChunkPos::new(0, -2, 0), ChunkPos::new(3, -1, 1)).unwrap();
    let cpu = CpuBackend::parallel(w.clone()).generate(&positions).unwrap();
    let gold: u32 = cpu.iter().map(|c| c.counts().get(BlockId::GOLD_ORE)).sum();
    let gravel: u32 = cpu.iter().map(|c| c.counts().get(BlockId::GRAVEL)).sum();
    assert!(gold > 5_000 && gravel > 50_000, "{gold} gold, {gravel} gravel");
    for path in [KernelPath::Virtual, KernelPath::Switch] {
        let kernels = KernelBackend::new(EmulatedDevice::new(&w.params).with_path(path), &w);
        assert!(kernels.generate(&positions).unwrap() == cpu, "{path:?}");
    }
}
