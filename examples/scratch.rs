use blockworld::worldgen::{Preset, WorldGen, column};
use std::collections::BTreeSet;
fn main() {
    for seed in [42u64, (1u64<<40) + 5] {
        let w = WorldGen::new(Preset::classic(), seed);
        let reach: BTreeSet<u8> = w.params.reachable_biomes().iter().map(|&b| b as u8).collect();
        let biome_at = |cx: i32, cz: i32| { let (mut hb, mut b) = ([0f32], [0u8]);
            column::sample::<f32>(&w.program, &w.params, cx as f32 * 32.0 + 16.0, cz as f32 * 32.0 + 16.0, &mut hb, &mut b); (b[0], hb[0]) };
        let (mut lo, mut hi) = (f32::MAX, f32::MIN);
        let mut ices = vec![];
        for i in -600..600 { for j in -600..600 { let (b, h) = biome_at(i, j); lo = lo.min(h); hi = hi.max(h);
            if w.preset.biomes[b as usize].name == "ice" { ices.push((i,j)); } } }
        println!("seed {seed}: h_b {lo}..{hi}, {} ice samples, first {:?}", ices.len(), &ices[..ices.len().min(5)]);
        for &(ix, iz) in ices.iter().take(40) {
            for len in [300, 500, 800, 1100] {
                for (dx, dz) in [(1, 0), (0, 1)] {
                    let start = -(len as i32) / 2;
                    let seen: BTreeSet<u8> = (0..len).map(|k| biome_at(ix + dx * (start + k), iz + dz * (start + k)).0).collect();
                    if seen.is_superset(&reach) { println!("  strip through ({ix},{iz}) dir ({dx},{dz}) len {len}: all biomes"); }
                }
            }
        }
    }
}
