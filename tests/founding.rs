//! The `founding` preset reproduces the founding game's own worlds:
//! surface heights, biomes and top blocks of columns its own generator
//! produced (tests/data/founding_columns.txt, made as docs/worldgen.md,
//! "The founding preset", says), at seeds 42 and 7.

use blockworld::world::block::BlockId;
use blockworld::world::coords::{column_index, ChunkPos, ColumnPos};
use blockworld::worldgen::{Preset, WorldGen};
use std::collections::HashMap;

/// One column of the founding game's world.
struct Golden {
    seed: u64,
    x: i64,
    z: i64,
    height: i32,
    biome: u8,
    top: String,
}

/// The founding game's block ids in the harness's numbering.
const TOP_NAMES: [&str; 8] = ["air", "grass", "dirt", "stone", "sand", "water", "snow", "podzol"];

fn golden(text: &str) -> Vec<Golden> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<i64> = l.split_whitespace().map(|v| v.parse().expect("a number")).collect();
            assert!(f.len() >= 6, "a golden line has seed x z height biome top: {l}");
            Golden {
                seed: f[0] as u64,
                x: f[1],
                z: f[2],
                height: f[3] as i32,
                biome: f[4] as u8,
                top: TOP_NAMES[f[5] as usize].to_string(),
            }
        })
        .collect()
}

#[derive(Debug, Default)]
struct Agreement {
    columns: usize,
    heights: usize,
    biomes: usize,
    tops: usize,
    /// The largest height difference.
    worst: i32,
}

fn compare(preset: &Preset, columns: &[Golden]) -> Agreement {
    let mut worlds: HashMap<u64, WorldGen> = HashMap::new();
    let mut a = Agreement::default();
    for g in columns {
        let world = worlds.entry(g.seed).or_insert_with(|| WorldGen::new(preset.clone(), g.seed));
        let (cx, cz) = (g.x.div_euclid(32), g.z.div_euclid(32));
        let (lx, lz) = (g.x.rem_euclid(32) as usize, g.z.rem_euclid(32) as usize);
        let hm = world.compute_heightmap(ColumnPos { x: cx as i32, z: cz as i32 });
        let (h, b) = (hm.heights[column_index(lx, lz)], hm.biomes[column_index(lx, lz)]);
        let chunk = world.generate(ChunkPos { x: cx as i32, y: h.div_euclid(32), z: cz as i32 });
        let top: BlockId = chunk.blocks().get(lx, h.rem_euclid(32) as usize, lz);
        a.columns += 1;
        a.heights += (h == g.height) as usize;
        a.biomes += (b == g.biome) as usize;
        a.tops += (top.name() == g.top) as usize;
        a.worst = a.worst.max((h - g.height).abs());
    }
    a
}

/// Share of `n` in `a.columns`, in percent.
fn pct(n: usize, a: &Agreement) -> f64 {
    100.0 * n as f64 / a.columns as f64
}

#[test]
fn founding_reproduces_the_founding_games_columns() {
    let columns = golden(include_str!("data/founding_columns.txt"));
    assert!(columns.len() >= 400, "{} golden columns", columns.len());
    let a = compare(&Preset::load("founding").expect("bundled"), &columns);
    eprintln!("founding against the founding game: {a:?}");
    // Rounding apart (double-precision positions, blockworld's own pow),
    // every column agrees: a column may differ by one block, rarely.
    assert!(pct(a.heights, &a) >= 99.0, "{:.2} % of heights agree", pct(a.heights, &a));
    assert!(pct(a.biomes, &a) >= 99.0, "{:.2} % of biomes agree", pct(a.biomes, &a));
    assert!(pct(a.tops, &a) >= 99.0, "{:.2} % of top blocks agree", pct(a.tops, &a));
    assert!(a.worst <= 1, "a height differs by {}", a.worst);
}

/// Negative control: the same recipe on the seeded hash lattice (the
/// `founding` preset less its `lattice` line) shares no more with the
/// founding game than two unrelated worlds do.
#[test]
fn the_hash_lattice_does_not_reproduce_them() {
    let columns = golden(include_str!("data/founding_columns.txt"));
    let text = include_str!("../assets/worldgen/founding.ron").replace("    lattice: Permutation,\n", "");
    let hashed = Preset::parse(&text, "founding-hashed.ron").expect("valid");
    assert_eq!(hashed.lattice, blockworld::worldgen::preset::Lattice::Hash);
    let a = compare(&hashed, &columns);
    eprintln!("the hash lattice against the founding game: {a:?}");
    assert!(pct(a.heights, &a) < 20.0, "{:.2} % of heights agree", pct(a.heights, &a));
}

/// A large sample, where one exists: `FOUNDING_COLUMNS=FILE cargo test
/// --release --test founding -- --ignored --nocapture` prints the agreement.
#[test]
#[ignore = "needs a sample from the founding game's generator"]
fn agreement_over_a_large_sample() {
    let Ok(path) = std::env::var("FOUNDING_COLUMNS") else { return };
    let text = std::fs::read_to_string(&path).expect("read FOUNDING_COLUMNS");
    let columns = golden(&text);
    let a = compare(&Preset::load("founding").expect("bundled"), &columns);
    println!(
        "{} columns: heights {:.3} %, biomes {:.3} %, top blocks {:.3} %, worst height difference {}",
        a.columns,
        pct(a.heights, &a),
        pct(a.biomes, &a),
        pct(a.tops, &a),
        a.worst
    );
}

/// The permutation lattice has no seed per octave: a preset that puts a
/// Perlin fractal on it is refused, naming the node.
#[test]
fn a_perlin_fractal_on_the_permutation_lattice_is_refused() {
    let text = include_str!("../assets/worldgen/classic.ron")
        .replace("    perlin_amplitude: 0.936,\n", "    perlin_amplitude: 0.936,\n    lattice: Permutation,\n");
    let err = Preset::parse(&text, "mixed.ron").expect_err("river_course is an Fbm").to_string();
    assert!(err.contains("river_course") && err.contains("lattice Permutation"), "{err}");
}
