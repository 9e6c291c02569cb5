//! The CUDA kernel source, compiled for the CPU (feature kernel-emulation),
//! against the Rust CPU path: bit for bit, with matching block counts.

/// Without the feature there is nothing to compare: say so in the test
/// list as an ignored test instead of passing with zero tests.
#[cfg(not(feature = "kernel-emulation"))]
#[test]
#[ignore = "needs --features kernel-emulation (the README's test command turns it on)"]
fn kernel_parity_needs_the_emulation() {}

#[cfg(feature = "kernel-emulation")]
mod parity {

    use blockworld::backend::cpu::CpuBackend;
    use blockworld::backend::emulated::EmulatedDevice;
    use blockworld::backend::fallback::FallbackBackend;
    use blockworld::backend::kernel::{DensityVariant, KernelBackend, KernelPath};
    use blockworld::backend::{self, ChunkBackend, Engine};
    use blockworld::cli::region_hash::region_positions;
    use blockworld::world::block::BlockId;
    use blockworld::world::coords::ChunkPos;
    use blockworld::worldgen::heightmap::sample_columns;
    use blockworld::worldgen::{Preset, WorldGen};
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::Arc;

    fn world(seed: u64) -> Arc<WorldGen> {
        Arc::new(WorldGen::new(Preset::classic(), seed))
    }

    /// Generates the chunks on the CPU and on the emulated kernels (both
    /// heightmap paths) and compares them one by one, counts and blocks;
    /// returns how many are not uniform.
    fn assert_parity_at(seed: u64, positions: &[ChunkPos]) -> usize {
        assert_parity_of(|| world(seed), positions)
    }

    /// [`assert_parity_at`] for any world.
    fn assert_parity_of(world: impl Fn() -> Arc<WorldGen>, positions: &[ChunkPos]) -> usize {
        assert_parity_on(world, positions, &[KernelPath::Virtual, KernelPath::Switch])
    }

    /// [`assert_parity_of`] on the kernel paths given.
    fn assert_parity_on(world: impl Fn() -> Arc<WorldGen>, positions: &[ChunkPos], paths: &[KernelPath]) -> usize {
        let seed = world().seed;
        let cpu = CpuBackend::parallel(world()).generate(positions).unwrap();
        let mut dense = 0;
        for &path in paths {
            let w = world();
            let emulated = KernelBackend::new(EmulatedDevice::new(&w.params).with_path(path), &w);
            assert_eq!(emulated.kind(), Engine::CudaEmulated);
            let gpu = emulated.generate(positions).unwrap();
            assert_eq!(cpu.len(), gpu.len());
            dense = 0;
            for (a, b) in cpu.iter().zip(&gpu) {
                assert_eq!(a.pos, b.pos);
                assert_eq!(a.counts(), b.counts(), "{path:?}: block counts of chunk {} differ (seed {seed})", a.pos);
                assert!(a.blocks() == b.blocks(), "{path:?}: blocks of chunk {} differ (seed {seed})", a.pos);
                dense += a.blocks().uniform().is_none() as usize;
            }
        }
        dense
    }

    /// [`assert_parity_at`] over a box. Its digest on the emulated engine
    /// needs no second generation here: the blocks are compared chunk by
    /// chunk, and tests/stand_in.rs checks the digest through the real host
    /// code against the golden one.
    fn assert_parity(seed: u64, from: ChunkPos, to: ChunkPos) -> usize {
        assert_parity_at(seed, &region_positions(from, to).unwrap())
    }

    /// Chunks of every biome classic reaches. A 64 km square of seed 42 is
    /// sampled every 64 blocks (as `blockworld map --scale 64` does); for
    /// each biome, the first 25 chunk columns where it shows, four levels
    /// from under the sea floor to above the hills.
    #[test]
    fn parity_on_chunks_of_every_biome() {
        let w = world(42);
        let points: Vec<[i64; 2]> =
            (0..1024i64).flat_map(|j| (0..1024i64).map(move |i| [i * 64 - 32768, j * 64 - 32768])).collect();
        let sampled = sample_columns(&w.program, &w.params, w.lanes, &points);
        let mut columns: BTreeMap<u8, Vec<(i32, i32)>> = BTreeMap::new();
        for (p, &(_, biome)) in points.iter().zip(&sampled) {
            let list = columns.entry(biome).or_default();
            let col = (p[0].div_euclid(32) as i32, p[1].div_euclid(32) as i32);
            if list.len() < 25 && !list.contains(&col) {
                list.push(col);
            }
        }
        let reachable: BTreeSet<u32> = w.params.reachable_biomes().into_iter().collect();
        let found: BTreeSet<u32> = columns.keys().map(|&b| b as u32).collect();
        assert!(found.is_subset(&reachable));
        assert!(found.len() >= 11, "only {} biomes found", found.len());
        let positions: Vec<ChunkPos> =
            columns.values().flatten().flat_map(|&(x, z)| (-2..=1).map(move |y| ChunkPos::new(x, y, z))).collect();
        assert!(positions.len() >= 1000, "{} chunks", positions.len());
        let dense = assert_parity_at(42, &positions);
        assert!(dense > 100, "too few non-uniform chunks ({dense}) to exercise the fill kernel");
    }

    #[test]
    fn parity_on_1000_decorated_chunks() {
        let mut chunks = 0;
        // Kinds that are rare per box, counted over both.
        let mut rare = [0u64; 3];
        for (from, to) in [
            (ChunkPos::new(0, -1, -14), ChunkPos::new(11, 2, -3)),
            (ChunkPos::new(28, -1, 28), ChunkPos::new(39, 1, 39)),
        ] {
            let w = world(42);
            let positions = region_positions(from, to).unwrap();
            let generated = CpuBackend::parallel(w).generate(&positions).unwrap();
            let count = |b: BlockId| generated.iter().map(|c| c.counts().0[b.0 as usize] as u64).sum::<u64>();
            assert!(count(BlockId::LOG) + count(BlockId::PINE_LOG) > 200, "{from}..{to} must hold trees");
            assert!(count(BlockId::TALL_GRASS) > 50, "{from}..{to} must hold grass");
            assert!(count(BlockId::MOSSY_STONE) + count(BlockId::COBBLESTONE) > 20, "{from}..{to} must hold rocks");
            assert!(count(BlockId::REEDS) > 100 && count(BlockId::LILY_PAD) > 100, "{from}..{to} must hold shores");
            rare[0] += count(BlockId::ROSE) + count(BlockId::BUTTERCUP);
            rare[1] += count(BlockId::PINE_LOG_X) + count(BlockId::PINE_LOG_Z);
            rare[2] += count(BlockId::BIRCH_LOG_X) + count(BlockId::BIRCH_LOG_Z);
            assert_parity(42, from, to);
            chunks += positions.len();
        }
        assert!(chunks >= 1000, "{chunks} chunks");
        let [flowers, pines, birches] = rare;
        assert!(
            flowers > 20 && pines > 0 && birches > 0,
            "meadow flowers {flowers}, fallen pines {pines}, birches {birches}"
        );
    }

    /// The cave lattice's values, not just the masks they make: a value one
    /// rounding step off flips a block only when it sits on a threshold, so
    /// the mask tests alone cannot see it. Every cell size the presets may
    /// use, near the origin and 2³¹ − 2¹⁶ out, on both sides of zero.
    #[test]
    fn the_cave_lattice_gives_the_cpus_bits() {
        use blockworld::backend::emulated::kernel_octave_at;
        use blockworld::worldgen::noise::lattice::{mix, octave_at};
        let mut next = 12345u32;
        let mut rand = |range: i32| {
            next = mix(next.wrapping_add(0x9e37_79b9));
            (next % (2 * range as u32)) as i32 - range
        };
        let mut checked = 0;
        for sxz in 3..=10 {
            for sy in 3..=sxz {
                for far in [0, i32::MAX - 65_536] {
                    for _ in 0..200 {
                        let p = [far.saturating_add(rand(4096)), rand(512), rand(4096).saturating_sub(far)];
                        let seed = rand(1 << 30) as u32;
                        let (cpu, kernel) = (octave_at(seed, sxz, sy, p), kernel_octave_at(seed, sxz, sy, p));
                        assert_eq!(cpu.to_bits(), kernel.to_bits(), "cells 2^{sxz}×2^{sy} at {p:?}: {cpu} vs {kernel}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000);
    }

    /// Caves and lava on both engines, cooperative and naive: 1000 chunks from
    /// the cave floor to the surface, near the origin and 3.2 million blocks out.
    #[test]
    fn parity_on_1000_cave_chunks() {
        let mut chunks = 0;
        for (from, to) in [
            (ChunkPos::new(-7, -2, -7), ChunkPos::new(6, 1, 6)),
            (ChunkPos::new(100_000, -2, -100_007), ChunkPos::new(100_007, 1, -100_000)),
        ] {
            let w = world(42);
            let positions = region_positions(from, to).unwrap();
            let cpu = CpuBackend::parallel(w.clone()).generate(&positions).unwrap();
            let count = |b: BlockId| cpu.iter().map(|c| c.counts().0[b.0 as usize] as u64).sum::<u64>();
            assert!(count(BlockId::LAVA) > 10_000, "{from}..{to} must hold lava caves");
            let emulated = backend::create(Engine::CudaEmulated, w.clone(), &Default::default())
                .unwrap()
                .generate(&positions)
                .unwrap();
            assert!(cpu == emulated, "{from}..{to}: the cooperative density kernel differs from the CPU");
            chunks += positions.len();
        }
        // The naive variant over the deepest layer of the first box.
        let w = world(42);
        let positions = region_positions(ChunkPos::new(-4, -2, -4), ChunkPos::new(3, -1, 3)).unwrap();
        let cpu = CpuBackend::parallel(w.clone()).generate(&positions).unwrap();
        let naive = KernelBackend::new(EmulatedDevice::new(&w.params).with_density(DensityVariant::Naive), &w);
        assert!(cpu == naive.generate(&positions).unwrap(), "the naive density kernel differs from the CPU");
        assert!(chunks >= 1000, "{chunks} chunks");
    }

    /// Ore veins and patches on both engines and both heightmap paths: 1 008
    /// chunks from the cave floor to sea level, near the origin and 3.2
    /// million blocks out, each with hundreds to thousands of blocks of
    /// every kind.
    #[test]
    fn parity_on_1000_vein_chunks() {
        let mut chunks = 0;
        for (from, to) in [
            (ChunkPos::new(-20, -2, -8), ChunkPos::new(-9, 0, 5)),
            (ChunkPos::new(100_020, -2, -100_020), ChunkPos::new(100_031, 0, -100_007)),
        ] {
            let positions = region_positions(from, to).unwrap();
            let cpu = CpuBackend::parallel(world(42)).generate(&positions).unwrap();
            let count = |b: BlockId| cpu.iter().map(|c| c.counts().get(b) as u64).sum::<u64>();
            // Gold is rare and deep: about 8 blocks a column over its two layers.
            for (b, least) in [
                (BlockId::GOLD_ORE, 300),
                (BlockId::IRON_ORE, 2000),
                (BlockId::COAL_ORE, 2000),
                (BlockId::GRAVEL, 2000),
                (BlockId::CLAY, 2000),
            ] {
                assert!(count(b) > least, "{from}..{to} must hold veins of {}: {}", b.name(), count(b));
            }
            assert_parity(42, from, to);
            chunks += positions.len();
        }
        assert!(chunks >= 1000, "{chunks} chunks");
    }

    #[test]
    fn parity_beyond_a_million_blocks_with_a_seed_above_2_pow_32() {
        let seed = (1u64 << 40) + 5;
        assert_parity(seed, ChunkPos::new(40_000, -2, -40_003), ChunkPos::new(40_003, 1, -40_000));
        assert_parity(seed, ChunkPos::new(-1_000_000, -2, 999_998), ChunkPos::new(-999_998, 1, 1_000_000));
    }

    #[test]
    fn parity_around_the_origin_for_two_seeds() {
        for seed in [42u64, u64::MAX] {
            assert_parity(seed, ChunkPos::new(-3, -3, -3), ChunkPos::new(2, 2, 2));
        }
    }

    /// Every kind of the Caracas thesis's vocabulary, chained into one height field
    /// (tests/data/every_kind.ron), near the origin, far out, and at the
    /// edge of the accepted range, where the double-precision positions'
    /// fine octaves have lattice cells past 2³¹ that wrap.
    #[test]
    fn parity_with_every_noise_kind() {
        let text = include_str!("data/every_kind.ron");
        let preset = Preset::parse(text, "every_kind.ron").unwrap();
        let mut positions = region_positions(ChunkPos::new(-3, -1, -3), ChunkPos::new(2, 2, 2)).unwrap();
        positions.extend(region_positions(ChunkPos::new(9_000, -1, -9_003), ChunkPos::new(9_003, 2, -9_000)).unwrap());
        let edge = (blockworld::world::coords::ACCEPTED_CHUNKS - 1) as i32;
        positions
            .extend(region_positions(ChunkPos::new(edge - 2, -1, -edge), ChunkPos::new(edge, 2, 2 - edge)).unwrap());
        let dense = assert_parity_of(|| Arc::new(WorldGen::new(preset.clone(), 7)), &positions);
        assert!(dense > 50, "{dense} non-uniform chunks");
    }

    /// Small deterministic generator for the random presets below.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = blockworld::worldgen::params::splitmix64(self.0);
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * (self.next() >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// A random valid graph of the new kinds over classic's Perlin leaves,
    /// bound to the height field; the rest of classic is kept.
    fn random_preset(rng: &mut Rng) -> String {
        let mut raw: Vec<String> =
            ["b1", "b2", "b3", "b4", "o0", "o1", "o2", "o3", "o4", "o5"].map(String::from).to_vec();
        let mut normalised: Vec<String> = Vec::new();
        let mut lines = String::new();
        let inputs = ["Plain", "Ridged", "Billow"];
        let mut last = String::new();
        let mut made: Vec<String> = Vec::new();
        for i in 0..(3 + rng.below(8)) {
            let name = format!("r{i}");
            // Half the time one of the newest nodes, so chains grow deep.
            let pick = |rng: &mut Rng, pool: &[String]| {
                let from = if rng.below(2) == 0 { pool.len().saturating_sub(3) } else { 0 };
                pool[from + rng.below(pool.len() - from)].clone()
            };
            let fractal = |rng: &mut Rng| {
                format!(
                    "octaves: {}, offset: {}, lacunarity: {:?}, h: {:?}, frequency: {:?}, basis: {}, input: {}",
                    1 + rng.below(8),
                    20 + rng.below(100),
                    rng.range(1.5, 3.0),
                    rng.range(0.2, 1.5),
                    rng.range(0.001, 0.05),
                    ["Perlin", "Value"][rng.below(2)],
                    inputs[rng.below(3)]
                )
            };
            // Quilez takes no input transform: drop the last field.
            let quilez = |rng: &mut Rng| {
                let f = fractal(rng);
                format!("Quilez({})", &f[..f.find(", input").unwrap_or(f.len())])
            };
            let (node, is_normalised) = match rng.below(if normalised.is_empty() { 10 } else { 15 }) {
                0 => (format!("Fbm({})", fractal(rng)), false),
                1 => (format!("Hetero({}, shift: {:?})", fractal(rng), rng.range(-0.3, 1.0)), false),
                2 => (format!("Hybrid({}, shift: {:?})", fractal(rng), rng.range(-0.3, 1.0)), false),
                3 => {
                    let (s, a, b) = (pick(rng, &raw), pick(rng, &raw), pick(rng, &raw));
                    (
                        format!(
                            "Distort(source: \"{s}\", by: (\"{a}\", \"{b}\"), strength: {:?})",
                            rng.range(-60.0, 60.0)
                        ),
                        false,
                    )
                }
                4 => (format!("Combined(source: \"{}\", offset_by: \"{}\")", pick(rng, &raw), pick(rng, &raw)), false),
                5 => {
                    let lo = rng.range(-2.0, 0.0);
                    (
                        format!(
                            "Normalize(source: \"{}\", from: ({lo:?}, {:?}))",
                            pick(rng, &raw),
                            lo + rng.range(0.5, 3.0)
                        ),
                        true,
                    )
                }
                6 => {
                    let all: Vec<String> = raw.iter().chain(&normalised).cloned().collect();
                    (
                        format!(
                            "Linear(source: \"{}\", mul: {:?}, add: {:?})",
                            pick(rng, &all),
                            rng.range(-2.0, 2.0),
                            rng.range(-1.0, 1.0)
                        ),
                        false,
                    )
                }
                7 => (quilez(rng), false),
                8 => {
                    let f = fractal(rng);
                    let crest_gain = format!("crest: {:?}, gain: {:?}", rng.range(0.5, 1.2), rng.range(0.0, 3.0));
                    (format!("Ridged({}, {crest_gain})", &f[..f.find(", input").unwrap_or(f.len())]), false)
                }
                9 => {
                    let f = fractal(rng);
                    let gullies = format!(
                        "gullies: (octaves: {}, frequency: {:?}, strength: {:?})",
                        1 + rng.below(5),
                        rng.range(1.0, 12.0),
                        rng.range(0.0, 1.5)
                    );
                    (format!("Eroded({}, {gullies})", &f[..f.find(", input").unwrap_or(f.len())]), false)
                }
                10 => (format!("Bias(source: \"{}\", b: {:?})", pick(rng, &normalised), rng.range(0.05, 0.95)), true),
                11 => (format!("Gain(source: \"{}\", g: {:?})", pick(rng, &normalised), rng.range(0.05, 0.95)), true),
                12 => (format!("Glacier(source: \"{}\", b: {:?})", pick(rng, &normalised), rng.range(0.05, 0.5)), true),
                13 => (format!("Canyon(source: \"{}\", g: {:?})", pick(rng, &normalised), rng.range(0.5, 0.95)), true),
                _ => (format!("Plateau(source: \"{}\", g: {:?})", pick(rng, &normalised), rng.range(0.5, 0.95)), true),
            };
            lines.push_str(&format!("        (name: \"{name}\", node: {node}),\n"));
            if is_normalised {
                normalised.push(name.clone())
            } else {
                raw.push(name.clone())
            }
            made.push(name.clone());
            last = name;
        }
        // The newest nodes also drive roughness and peaks, so fewer of them
        // are left unread.
        let earlier = |k: usize| made[made.len().saturating_sub(k)].clone();
        let (rough, peaks) = (earlier(2), earlier(3));
        let classic = include_str!("../assets/worldgen/classic.ron");
        let marker = "    ],\n    fields: (";
        assert!(classic.contains(marker));
        // The last node is the height; it also drives the mountain field
        // (scaled down), where a difference moves heights 256 times over.
        lines
            .push_str(&format!("        (name: \"ranges\", node: Linear(source: \"{last}\", mul: 0.2, add: -0.1)),\n"));
        classic
            .replacen(marker, &format!("{lines}{marker}"), 1)
            .replacen("height: \"height\"", &format!("height: \"{last}\""), 1)
            .replacen("roughness: \"roughness\"", &format!("roughness: \"{rough}\""), 1)
            .replacen("peaks: \"peaks\"", &format!("peaks: \"{peaks}\""), 1)
            .replacen(
                "        mountain: \"mountain\",\n        peaks",
                "        mountain: \"ranges\",\n        peaks",
                1,
            )
    }

    /// Property: any valid graph of the new kinds gives the same chunks on the
    /// emulated kernels (both paths) as on the CPU. 32 random presets, four
    /// chunks each, around a random column.
    #[test]
    fn random_valid_presets_agree_on_both_engines() {
        let mut rng = Rng(2026);
        for case in 0..32 {
            let text = random_preset(&mut rng);
            let preset = Preset::parse(&text, "random.ron").unwrap_or_else(|e| panic!("case {case}: {e}\n{text}"));
            let (x, z) = (rng.below(20_000) as i32 - 10_000, rng.below(20_000) as i32 - 10_000);
            let positions = region_positions(ChunkPos::new(x, -1, z), ChunkPos::new(x + 1, 0, z)).unwrap();
            let seed = rng.next();
            assert_parity_of(|| Arc::new(WorldGen::new(preset.clone(), seed)), &positions);
        }
    }

    /// `blockworld map` on the emulated kernels, both paths: the heights and
    /// biomes the kernels download draw the CPU's map, pixel for pixel.
    #[test]
    fn the_map_from_kernel_heightmaps_is_the_cpus() {
        use blockworld::map::{render, render_on, Layer, MapOptions};
        let w = world(3);
        for (size, scale) in [(320u32, 1u32), (2048, 16)] {
            let opts = MapOptions { center: [150, -4000], size, scale, layer: Layer::Shaded };
            let cpu = render(&w, &opts).unwrap();
            for path in [KernelPath::Virtual, KernelPath::Switch] {
                let engine = KernelBackend::new(EmulatedDevice::new(&w.params).with_path(path), &w);
                let gpu = render_on(&w, Some(&engine), &opts).unwrap();
                assert!(gpu.rgb == cpu.rgb, "{path:?}, scale {scale}: the map differs");
                assert_eq!(gpu.stats.height_max, cpu.stats.height_max);
            }
        }
    }

    /// The founding preset's permutation lattice and its patches on both
    /// kernel paths, over 1 024 chunks from under the sea floor to above
    /// the hills.
    #[test]
    fn parity_on_1000_founding_chunks() {
        let preset = Preset::load("founding").unwrap();
        let positions = region_positions(ChunkPos::new(-8, -1, -8), ChunkPos::new(7, 2, 7)).unwrap();
        assert!(positions.len() >= 1000, "{} chunks", positions.len());
        let counted = patch_plants(&Arc::new(WorldGen::new(preset.clone(), 42)), &positions);
        assert!(counted > 1_000, "only {counted} flowers and tall grass to compare");
        let dense = assert_parity_of(|| Arc::new(WorldGen::new(preset.clone(), 42)), &positions);
        assert!(dense > 200, "too few non-uniform chunks ({dense}) to exercise the fill kernel");
    }

    /// Flowers and tall grass of `w` in `positions`.
    fn patch_plants(w: &Arc<WorldGen>, positions: &[ChunkPos]) -> u64 {
        let plants = ["rose", "buttercup", "tall_grass"].map(|n| BlockId::by_name(n).unwrap().0 as usize);
        let chunks = CpuBackend::parallel(w.clone()).generate(positions).unwrap();
        chunks.iter().map(|c| plants.iter().map(|&b| c.counts().0[b] as u64).sum::<u64>()).sum()
    }

    /// Classic's flowers and tall grass in patches, whose centres read the
    /// meadows map, on both kernel paths over the surface layer of 256
    /// chunks near the origin (the founding preset's 1 024 chunks below
    /// have patches without maps).
    #[test]
    fn parity_of_patches_on_a_meadow_map() {
        let positions = region_positions(ChunkPos::new(-8, 0, -8), ChunkPos::new(7, 0, 7)).unwrap();
        let w = Arc::new(WorldGen::new(Preset::classic(), 42));
        let counted = patch_plants(&w, &positions);
        assert!(counted > 1_000, "only {counted} flowers and tall grass to compare");
        assert_parity_of(|| w.clone(), &positions);
    }

    /// Every bundled preset but classic (the tests above), the kernel paths
    /// taking turns: every noise kind meets both paths in every_kind.ron and
    /// the random presets, so here each preset's whole recipe runs once.
    #[test]
    fn parity_with_every_other_bundled_preset() {
        let positions = region_positions(ChunkPos::new(-2, -2, -2), ChunkPos::new(2, 2, 2)).unwrap();
        let others = blockworld::worldgen::preset::BUNDLED.iter().filter(|(n, _)| *n != "classic");
        for (k, (name, _)) in others.enumerate() {
            let preset = Preset::load(name).unwrap();
            let path = [KernelPath::Virtual, KernelPath::Switch][k % 2];
            let dense = assert_parity_on(|| Arc::new(WorldGen::new(preset.clone(), 9)), &positions, &[path]);
            assert!(dense > 10, "{name}: {dense} non-uniform chunks");
        }
    }

    /// Eroded's lava stops 12 blocks under the surface (`lava_cover`): the
    /// two chunk layers around the water, where that rule decides, over 80
    /// chunk columns scattered over 8 km, where tunnels open on the shores.
    #[test]
    fn parity_where_lava_meets_its_cover() {
        let preset = Preset::load("eroded").unwrap();
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut positions = Vec::new();
        for _ in 0..80 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let (x, z) = (((state >> 33) % 256) as i32 - 128, ((state >> 45) % 256) as i32 - 128);
            positions.extend([ChunkPos::new(x, -1, z), ChunkPos::new(x, 0, z)]);
        }
        let dense = assert_parity_of(|| Arc::new(WorldGen::new(preset.clone(), 42)), &positions);
        assert!(dense > 100, "{dense} non-uniform chunks");
    }

    /// A device that fails mid-run (the second launch) loses no chunk: the
    /// failed batch and every later one run on the CPU, with identical results.
    #[test]
    fn a_failing_device_hands_its_requests_to_the_cpu() {
        let w = world(5);
        let device = EmulatedDevice::new(&w.params).fail_after(1);
        let fallback = FallbackBackend::new(Arc::new(KernelBackend::new(device, &w)), CpuBackend::parallel(w.clone()));
        let positions = region_positions(ChunkPos::new(-2, -2, -2), ChunkPos::new(2, 1, 2)).unwrap();
        let reference = CpuBackend::serial(world(5)).generate(&positions).unwrap();
        let mut got = Vec::new();
        for batch in positions.chunks(30) {
            got.extend(fallback.generate(batch).expect("the fallback never fails"));
        }
        assert_eq!(got, reference);
        let failure = fallback.failure().expect("the injected failure is recorded");
        assert!(failure.to_string().contains("CUDA_ERROR_LAUNCH_FAILED"), "{failure}");
        assert_eq!(fallback.kind(), Engine::Cpu);
    }

    /// Far tiles (issue 34's parity): every bundled preset, every clipmap
    /// level, near the origin and 10⁶ blocks out, on both kernel paths,
    /// against the CPU cell for cell, at least 1000 tiles in all. Every
    /// third tile of a 32 km horizon keeps each level while the emulation
    /// stays a few seconds.
    #[test]
    fn far_tiles_are_the_same_on_both_engines() {
        use blockworld::far::{FarRange, TileKey};
        let mut compared = 0;
        let mut levels = BTreeSet::new();
        for (k, (name, _)) in blockworld::worldgen::preset::BUNDLED.iter().enumerate() {
            let w = Arc::new(WorldGen::new(Preset::load(name).unwrap(), 77 + k as u64));
            let eye = if k % 2 == 0 { [13, -250] } else { [1_000_003, -999_999] };
            let tiles: Vec<TileKey> =
                FarRange { eye, horizon: 32_000 }.tiles().into_iter().skip(k % 3).step_by(3).collect();
            let cpu = CpuBackend::parallel(w.clone()).far_cells(&tiles).unwrap();
            for path in [KernelPath::Virtual, KernelPath::Switch] {
                let emulated = KernelBackend::new(EmulatedDevice::new(&w.params).with_path(path), &w);
                let got = emulated.far_cells(&tiles).unwrap();
                assert_eq!(got.len(), cpu.len());
                if let Some(i) = (0..cpu.len()).find(|&i| got[i] != cpu[i]) {
                    let t = tiles[i / 1024];
                    panic!("{name} {path:?}: tile {t:?} cell {}: device {:?}, CPU {:?}", i % 1024, got[i], cpu[i]);
                }
            }
            // Negative control: another seed's cells differ.
            let other = CpuBackend::parallel(Arc::new(WorldGen::new(Preset::load(name).unwrap(), 78 + k as u64)));
            assert_ne!(other.far_cells(&tiles[..4]).unwrap(), cpu[..4 * 1024], "{name}: the seed matters");
            levels.extend(tiles.iter().map(|t| t.level));
            compared += tiles.len();
        }
        assert!(compared >= 1000, "{compared} tiles compared");
        assert_eq!(levels.len(), 8, "every level: {levels:?}");
    }
}
