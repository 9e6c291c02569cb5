//! The column sampler: noise fields → biome and pre-smoothing height `h_b`
//! for a batch of columns. CUDA twin: `kernels/column.cuh`.

use super::graph::NoiseProgram;
use super::noise::lanes::Lanes;
use super::params::{
    WorldParams, FIELD_HEIGHT, FIELD_MOISTURE, FIELD_MOUNTAIN, FIELD_PEAKS, FIELD_ROUGHNESS, FIELD_TEMPERATURE,
};

/// Largest peak exponent: a finite stand-in for "no upper bound".
pub const MAX_EXPONENT: f32 = 3.0e38;

/// Largest |h_b|: far beyond any terrain, well inside i32.
pub const MAX_SURFACE: f32 = 1_048_576.0;

/// The original's `get_biome(h, m, t, n, n + h)`, driven by the preset's rules.
#[inline(always)]
pub fn select_biome(p: &WorldParams, h: f32, m: f32, t: f32, n: f32, nh: f32) -> u32 {
    if h <= p.biomes.ocean_max_height || n <= p.biomes.ocean_max_mountain {
        return p.biomes.ocean_biome;
    }
    if h <= p.biomes.beach_max_height {
        return p.biomes.beach_biome;
    }
    if n >= p.biomes.mountain_min && nh >= p.biomes.mountain_min_with_height {
        return p.biomes.mountain_biome;
    }
    // Thresholds are ascending (checked when the preset loads), so "the
    // first threshold ≥ v" is the number of thresholds below v.
    let limit = (p.biomes.threshold_search_limit as usize).min(p.biomes.heat_thresholds.len());
    let index = |v: f32, thresholds: &[f32; 5]| thresholds[..limit].iter().map(|&th| (th < v) as usize).sum::<usize>();
    p.biomes.table[index(m, &p.biomes.moisture_thresholds)][index(t, &p.biomes.heat_thresholds)]
}

/// Samples `L::WIDTH` columns at world coordinates (x, z): writes `h_b` and
/// the biome index of each lane.
#[inline(always)]
pub fn sample<L: Lanes>(program: &NoiseProgram, p: &WorldParams, x: L, z: L, h_b: &mut [f32], biome: &mut [u8]) {
    let f = program.eval(x, z);
    let half = x.splat(0.5);
    let h = f[FIELD_HEIGHT];
    let m = f[FIELD_MOISTURE].mul(half).add(half);
    let t = f[FIELD_TEMPERATURE].mul(half).add(half);
    let r = f[FIELD_ROUGHNESS];
    // |p| is clamped to 1 and the exponent below at 0: the formula assumes
    // |p| ≤ 1, and where the octave sums exceed it the original's
    // |p|^((1−n)·3) explodes into spikes and pits thousands of blocks deep.
    let peaks = f[FIELD_PEAKS].clamp(-1.0, 1.0);
    let n = f[FIELD_MOUNTAIN];
    let n =
        n.add(peaks.signpow(x.splat(1.0).sub(n).mul(x.splat(p.terrain.peak_exponent_scale)).clamp(0.0, MAX_EXPONENT)));
    let t = t.sub(x.splat(p.terrain.temperature_mountain_cooling).mul(n)).clamp(0.0, 1.0);
    let nh = n.add(h);

    // Biome choice is branchy table logic: do it per lane, then gather the
    // biome's numbers back into lanes for the rest of the arithmetic.
    const MAX_W: usize = 8;
    let mut lanes = [[0.0f32; MAX_W]; 5];
    for (arr, v) in lanes.iter_mut().zip([h, m, t, n, nh]) {
        v.store(arr);
    }
    let (mut exponent, mut scale, mut rough) = ([0.0f32; MAX_W], [0.0f32; MAX_W], [0.0f32; MAX_W]);
    for i in 0..L::WIDTH {
        let b = select_biome(p, lanes[0][i], lanes[1][i], lanes[2][i], lanes[3][i], lanes[4][i]) as usize;
        biome[i] = b as u8;
        exponent[i] = p.biomes.exponent[b];
        scale[i] = p.biomes.scale[b];
        rough[i] = p.biomes.roughness[b];
    }
    let h = h.signpow(x.load(&exponent));
    let base = h.mul(x.splat(p.terrain.height_amplitude)).add(n.mul(x.splat(p.terrain.mountain_amplitude)));
    let out = base.mul(x.load(&scale)).add(x.load(&rough).mul(r).mul(x.splat(p.terrain.roughness_amplitude)));
    // A guard, not a shape: keeps any extreme preset finite and in i32.
    let out = out.clamp(-MAX_SURFACE, MAX_SURFACE);
    out.store(h_b);
    if let Some(river) = &program.river {
        let mut course = [0.0f32; MAX_W];
        river.eval(x, z)[0].store(&mut course);
        let rivers = &p.terrain.rivers;
        for i in 0..L::WIDTH {
            let (h, channel) = rivers.carve(h_b[i], course[i]);
            h_b[i] = h;
            if channel {
                biome[i] = rivers.biome as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::preset::Preset;

    fn classic() -> Box<WorldParams> {
        WorldParams::new(&Preset::classic(), 1)
    }

    #[test]
    fn biome_rules_hand_checked() {
        let p = classic();
        let name = |b: u32| Preset::classic().biomes[b as usize].name.clone();
        assert_eq!(name(select_biome(&p, -0.1, 0.5, 0.5, 0.2, 0.1)), "ocean");
        assert_eq!(name(select_biome(&p, 0.3, 0.5, 0.5, -0.01, 0.29)), "ocean");
        assert_eq!(name(select_biome(&p, 0.004, 0.5, 0.5, 0.05, 0.054)), "beach");
        assert_eq!(name(select_biome(&p, 0.2, 0.5, 0.5, 0.1, 0.3)), "mountain");
        // m = 0.1 → row 0; t = 0.7 → first threshold ≥ 0.7 among the first
        // four is none → column 4: desert.
        assert_eq!(name(select_biome(&p, 0.2, 0.1, 0.7, 0.05, 0.25)), "desert");
        // m = 0.65 → row 4 (0.7 is beyond the search limit); t = 0.5 → col 3: forest.
        assert_eq!(name(select_biome(&p, 0.2, 0.65, 0.5, 0.05, 0.25)), "forest");
        assert_eq!(name(select_biome(&p, 0.2, 0.99, 0.99, 0.05, 0.25)), "jungle");
        assert_eq!(name(select_biome(&p, 0.2, 0.45, 0.01, 0.05, 0.25)), "ice");
        assert_eq!(name(select_biome(&p, 0.2, 0.55, 0.3, 0.05, 0.25)), "taiga");
    }

    /// The original's biome choice read straight from the preset's rules,
    /// its linear "first threshold ≥ v" search included; independent of
    /// [`select_biome`], which counts thresholds instead.
    fn plain_biome(preset: &Preset, h: f32, m: f32, t: f32, n: f32, nh: f32) -> usize {
        let r = &preset.biome_rules;
        let name = if h <= r.ocean_max_height || n <= r.ocean_max_mountain {
            &r.ocean
        } else if h <= r.beach_max_height {
            &r.beach
        } else if n >= r.mountain_min && nh >= r.mountain_min_with_height {
            &r.mountain
        } else {
            let search = |v: f32, thresholds: &[f32]| {
                let mut i = 0;
                while i < r.threshold_search_limit as usize && thresholds[i] < v {
                    i += 1;
                }
                i
            };
            &r.table[search(m, &r.moisture_thresholds)][search(t, &r.heat_thresholds)]
        };
        preset.biomes.iter().position(|b| &b.name == name).expect("the rules name a biome")
    }

    /// One column recomputed in f64 from the formulas this module implements.
    #[test]
    fn column_formula_hand_checked() {
        let p = classic();
        let program = NoiseProgram::compile(&p);
        let preset = Preset::classic();
        // A grid wide enough to cross every biome, and three far points.
        let grid = (0..400).map(|i| ((i % 20) as f32 * 4001.0 - 40_000.0, (i / 20) as f32 * 3989.0 - 40_000.0));
        let mut seen = std::collections::HashSet::new();
        for (x, z) in grid.chain([(10.0f32, 20.0f32), (-3000.0, 777.0), (123_456.0, -98_765.0)]) {
            let f = program.eval::<f32>(x, z);
            let (h, m, t, r, n, pk) = (f[0] as f64, f[1] as f64, f[2] as f64, f[3] as f64, f[4] as f64, f[5] as f64);
            let m = m * 0.5 + 0.5;
            let t = t * 0.5 + 0.5;
            // Peaks clamped to ±1 and the exponent at 0, as `sample` documents.
            let pk = pk.clamp(-1.0, 1.0);
            let n = n + pk.signum() * pk.abs().powf(((1.0 - n) * 3.0).max(0.0));
            let t = (t - 0.4 * n).clamp(0.0, 1.0);
            let b = plain_biome(&preset, h as f32, m as f32, t as f32, n as f32, (n + h) as f32);
            let bd = &preset.biomes[b];
            let hh = h.signum() * h.abs().powf(bd.exponent as f64);
            let land = (hh * 32.0 + n * 256.0) * bd.scale as f64 + bd.roughness as f64 * r * 2.0;
            // The river carving, from the preset's numbers.
            let rivers = preset.rivers.as_ref().expect("classic has rivers");
            let (width, valley) = (rivers.width as f64, rivers.valley as f64);
            let a = (program.river.as_ref().expect("a river program").eval::<f32>(x, z)[0] as f64).abs();
            let water = preset.fill.water_level as f64;
            let (bed, bank) = (water - rivers.depth as f64, water + 1.0);
            let smooth = |t: f64| {
                let t = t.clamp(0.0, 1.0);
                t * t * (3.0 - 2.0 * t)
            };
            let floor = if a < width {
                bed + (bank - bed) * smooth(a / width)
            } else {
                bank + (land - bank) * smooth((a - width) / (valley - width))
            };
            let lift = ((land - water) / rivers.max_height as f64).clamp(0.0, 1.0);
            let expected = land.min(land + (floor - land) * (1.0 - lift));
            let b = if a < width && expected < water && land >= water {
                preset.biome_index(&rivers.biome).expect("the river biome")
            } else {
                b
            };
            let (mut hb, mut biome) = ([0.0f32], [0u8]);
            sample::<f32>(&program, &p, x, z, &mut hb, &mut biome);
            assert_eq!(biome[0] as usize, b, "({x},{z})");
            seen.insert(b);
            assert!((hb[0] as f64 - expected).abs() < 1e-3, "({x},{z}): {} vs {expected}", hb[0]);
        }
        assert!(seen.len() >= 10, "the points cross most biomes: {} of them", seen.len());
    }
}
