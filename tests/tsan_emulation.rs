//! The emulated kernels with one OS thread per CUDA thread under
//! ThreadSanitizer (feature kernel-emulation-tsan): a missing barrier shows
//! up as a data race and fails the run.
//!
//! A plain `main` (harness = false) on one Rust thread: libtest's own
//! threads talk through channels ThreadSanitizer cannot see into (Rust's
//! std is not instrumented), which it would report as races of its own.

#[cfg(feature = "kernel-emulation-tsan")]
mod checks {
    use blockworld::backend::cpu::CpuBackend;
    use blockworld::backend::emulated::EmulatedDevice;
    use blockworld::backend::kernel::{KernelBackend, KernelPath};
    use blockworld::backend::{self, ChunkBackend, Engine};
    use blockworld::cli::region_hash::region_positions;
    use blockworld::world::block::BlockId;
    use blockworld::world::coords::ChunkPos;
    use blockworld::worldgen::{Preset, WorldGen};
    use std::process::Command;
    use std::sync::Arc;

    extern "C" {
        fn bw_emu_selftest_exchange(out: *mut i32, with_barrier: i32);
    }

    pub fn kernels_run_race_free_and_match_the_cpu() {
        let w = Arc::new(WorldGen::new(Preset::classic(), 42));
        // Two columns, two levels: every kernel, several non-uniform chunks;
        // and two forest columns, so the decoration kernel's prefix-sum
        // compaction packs survivors (and the fill reads them) under TSan;
        // and two deep chunks with caves, lava and ore veins, for the density
        // kernel's shared lattice cells and the fill's vein gather.
        let mut positions = region_positions(ChunkPos::new(0, -1, 0), ChunkPos::new(1, 0, 0)).unwrap();
        positions.extend(region_positions(ChunkPos::new(6, 0, -9), ChunkPos::new(7, 0, -9)).unwrap());
        positions.extend(region_positions(ChunkPos::new(-3, -2, -4), ChunkPos::new(-3, -2, -3)).unwrap());
        let cpu = CpuBackend::serial(w.clone()).generate(&positions).unwrap();
        assert!(cpu.iter().any(|c| c.blocks().uniform().is_none()), "no fill would be exercised");
        let logs: u32 = cpu.iter().map(|c| c.counts().0[BlockId::LOG.0 as usize]).sum();
        assert!(logs > 20, "the forest columns must hold trees ({logs} logs)");
        let lava: u32 = cpu.iter().map(|c| c.counts().0[BlockId::LAVA.0 as usize]).sum();
        assert!(lava > 1000, "the deep chunks must hold lava caves ({lava} lava)");
        // The deep chunks are also an ore box: the fill's vein gather (a
        // block scan into shared memory, then every thread reading it) runs
        // in every thread block.
        let ore: u32 = cpu.iter().map(|c| c.counts().get(BlockId::IRON_ORE) + c.counts().get(BlockId::GOLD_ORE)).sum();
        assert!(ore > 100, "the deep chunks must hold iron and gold veins ({ore} blocks)");
        let emulated = backend::create(Engine::CudaEmulated, w.clone(), &Default::default()).unwrap();
        assert!(emulated.describe().contains("ThreadSanitizer"));
        assert_eq!(cpu, emulated.generate(&positions).unwrap());
        // The switch-over-kinds heightmap path too.
        let switch = KernelBackend::new(EmulatedDevice::new(&w.params).with_path(KernelPath::Switch), &w);
        assert_eq!(cpu, switch.generate(&positions).unwrap());
    }

    /// Every noise kind (tests/data/every_kind.ron: the fractal kinds, both
    /// bases, the erosion filter's gullies, the warps and curves) through the
    /// heightmap kernel's smoothing stencil, on both heightmap paths.
    pub fn every_noise_kind_runs_race_free() {
        let preset = Preset::parse(include_str!("data/every_kind.ron"), "every_kind.ron").unwrap();
        let w = Arc::new(WorldGen::new(preset, 7));
        let positions = region_positions(ChunkPos::new(2, -1, 2), ChunkPos::new(2, 0, 2)).unwrap();
        let cpu = CpuBackend::serial(w.clone()).generate(&positions).unwrap();
        assert!(cpu.iter().any(|c| c.blocks().uniform().is_none()), "no fill would be exercised");
        let emulated = backend::create(Engine::CudaEmulated, w.clone(), &Default::default()).unwrap();
        assert_eq!(cpu, emulated.generate(&positions).unwrap());
        let switch = KernelBackend::new(EmulatedDevice::new(&w.params).with_path(KernelPath::Switch), &w);
        assert_eq!(cpu, switch.generate(&positions).unwrap());
    }

    fn child(mode: &str) -> std::process::Output {
        Command::new(std::env::current_exe().unwrap())
            .env("BW_TSAN_SELFTEST", mode)
            .env("TSAN_OPTIONS", "halt_on_error=1 exitcode=66")
            .output()
            .unwrap()
    }

    /// The detector is live: the exchange without its barrier is reported,
    /// the same exchange with it is not.
    pub fn a_missing_barrier_is_reported_as_a_race() {
        let racy = child("race");
        let err = String::from_utf8_lossy(&racy.stderr);
        assert!(
            racy.status.code() == Some(66) && err.contains("ThreadSanitizer: data race"),
            "race not detected: {err}"
        );
        let clean = child("barrier");
        assert!(clean.status.success(), "false positive: {}", String::from_utf8_lossy(&clean.stderr));
    }

    /// In the child: run the self-test exchange and exit.
    pub fn selftest(mode: &str) {
        let mut out = vec![0i32; 64];
        // SAFETY: the self-test writes one int per thread of its 64-thread block into `out`, which holds 64.
        unsafe { bw_emu_selftest_exchange(out.as_mut_ptr(), (mode == "barrier") as i32) };
        if mode == "barrier" {
            assert!(out.iter().enumerate().all(|(i, &v)| v == ((i + 1) % 64) as i32));
        }
    }
}

#[cfg(feature = "kernel-emulation-tsan")]
fn main() {
    if let Ok(mode) = std::env::var("BW_TSAN_SELFTEST") {
        checks::selftest(&mode);
        return;
    }
    let tests: [(&str, fn()); 3] = [
        ("kernels_run_race_free_and_match_the_cpu", checks::kernels_run_race_free_and_match_the_cpu),
        ("every_noise_kind_runs_race_free", checks::every_noise_kind_runs_race_free),
        ("a_missing_barrier_is_reported_as_a_race", checks::a_missing_barrier_is_reported_as_a_race),
    ];
    for (name, test) in tests {
        test();
        println!("test {name} ... ok");
    }
    println!("{} passed, 0 failed", tests.len());
}

#[cfg(not(feature = "kernel-emulation-tsan"))]
fn main() {
    println!("tsan_emulation: needs --features kernel-emulation-tsan; nothing to run");
}
