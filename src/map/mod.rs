//! `blockworld map`: a top-down map of a world from the heightmap stage
//! alone (no chunk is filled), the way players choose seeds with map
//! viewers. One pixel is `scale` blocks; each pixel shows the column at
//! its north-west corner.
//!
//! Layers: `biome` (the colour of each biome's top block, water over
//! sunken ground), `height` (grey from the lowest to the highest column)
//! and `shaded` (the biome colours lit from the north-west).

pub mod colour;

use crate::backend::{BackendError, ChunkBackend};
use crate::world::block::BlockId;
use crate::world::coords::{check_accepted, column_index, ColumnPos, CHUNK_SIZE_I64};
use crate::worldgen::heightmap::{sample_columns, Heightmap};
use crate::worldgen::WorldGen;
use colour::Palette;
use rayon::prelude::*;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    Biome,
    Height,
    Shaded,
}

impl std::str::FromStr for Layer {
    type Err = String;

    fn from_str(s: &str) -> Result<Layer, String> {
        match s {
            "biome" => Ok(Layer::Biome),
            "height" => Ok(Layer::Height),
            "shaded" => Ok(Layer::Shaded),
            _ => Err(format!("unknown layer '{s}': expected biome, height or shaded")),
        }
    }
}

#[derive(Clone, Debug)]
pub struct MapOptions {
    /// Block coordinates of the map's centre.
    pub center: [i64; 2],
    /// Edge of the square area, in blocks.
    pub size: u32,
    /// Blocks per pixel.
    pub scale: u32,
    pub layer: Layer,
}

/// The largest map edge in pixels: 16384² RGB is 768 MiB.
pub const MAX_PIXELS: u32 = 16384;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MapError {
    #[error("--size must be at least 1 block")]
    EmptySize,
    #[error("--scale must be at least 1 block per pixel")]
    ZeroScale,
    #[error("the map would be {0} pixels wide; the limit is {MAX_PIXELS} (raise --scale)")]
    TooLarge(u32),
    #[error("the map reaches past the accepted range: {0}")]
    OutOfRange(String),
    #[error("the backend could not make the heightmaps: {0}")]
    Backend(String),
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct BiomeShare {
    pub biome: String,
    pub share: f64,
}

/// What a map shows, in numbers.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MapStats {
    pub width: u32,
    pub height: u32,
    pub columns_sampled: u64,
    /// Every biome of the preset, in preset order, with its share of the
    /// sampled columns.
    pub biome_shares: Vec<BiomeShare>,
    pub height_min: i32,
    pub height_max: i32,
    pub height_mean: f64,
    pub height_p50: i32,
    pub height_p99: i32,
    /// Share of sampled columns whose ground lies below the water level.
    pub water_share: f64,
}

pub struct Map {
    pub width: u32,
    pub height: u32,
    /// RGB, rows from north (−z) to south, columns from west (−x) to east.
    pub rgb: Vec<u8>,
    pub stats: MapStats,
}

/// One sampled column: ground height and biome index.
#[derive(Clone, Copy)]
struct Sample {
    h: i32,
    biome: u8,
}

/// [`render_on`] on the CPU, sampling lone columns at coarse scales.
pub fn render(world: &WorldGen, opts: &MapOptions) -> Result<Map, MapError> {
    render_on(world, None, opts)
}

/// Renders the map with the heightmaps of `backend` (any engine; whole
/// chunk columns at every scale), or on the CPU when it is `None`.
pub fn render_on(world: &WorldGen, backend: Option<&dyn ChunkBackend>, opts: &MapOptions) -> Result<Map, MapError> {
    if opts.size == 0 {
        return Err(MapError::EmptySize);
    }
    if opts.scale == 0 {
        return Err(MapError::ZeroScale);
    }
    let [cx, cz] = opts.center;
    // Both far corners of the area, not only its centre.
    let reach = opts.size as f64 / 2.0 + 1.0;
    for corner in [[cx as f64 - reach, 0.0, cz as f64 - reach], [cx as f64 + reach, 0.0, cz as f64 + reach]] {
        check_accepted(corner).map_err(MapError::OutOfRange)?;
    }
    let px = opts.size.div_ceil(opts.scale);
    if px > MAX_PIXELS {
        return Err(MapError::TooLarge(px));
    }
    // One extra row and column to the south-east for the shading slopes.
    let (w, h) = (px as usize, px as usize);
    let origin = [cx - opts.size as i64 / 2, cz - opts.size as i64 / 2];
    let block = |i: usize, j: usize| {
        [origin[0] + (i * opts.scale as usize) as i64, origin[1] + (j * opts.scale as usize) as i64]
    };
    let samples = match backend {
        Some(b) => sample(w + 1, h + 1, block, &|c: &[ColumnPos]| b.heightmaps(c))?,
        None if opts.scale >= SPARSE_FROM_SCALE => sample_sparse(world, w + 1, h + 1, block),
        None => sample(w + 1, h + 1, block, &|c: &[ColumnPos]| Ok(cpu_heightmaps(world, c)))?,
    };
    let at = |i: usize, j: usize| samples[j * (w + 1) + i];

    let palette = Palette::from_atlas();
    let p = &world.params;
    let water_level = p.surface.water_level;
    let water = palette.top(BlockId::WATER);
    let inner = || (0..h).flat_map(move |j| (0..w).map(move |i| (i, j)));
    let (lo, hi) = inner().fold((i32::MAX, i32::MIN), |(lo, hi), (i, j)| (lo.min(at(i, j).h), hi.max(at(i, j).h)));
    let mut rgb = Vec::with_capacity(w * h * 3);
    for (i, j) in inner() {
        let s = at(i, j);
        let ground = palette.top(BlockId(p.surface.top[s.biome as usize] as u8));
        let c = match opts.layer {
            Layer::Height => colour::grey(s.h, lo, hi),
            Layer::Biome | Layer::Shaded => {
                let lit = if opts.layer == Layer::Shaded {
                    let per_block = opts.scale as f32;
                    let dx = (at(i + 1, j).h - s.h) as f32 / per_block;
                    let dz = (at(i, j + 1).h - s.h) as f32 / per_block;
                    colour::hillshade(dx, dz)
                } else {
                    1.0
                };
                if s.h < water_level {
                    colour::water(water, water_level - s.h)
                } else {
                    ground.map(|c| c * lit)
                }
            }
        };
        rgb.extend_from_slice(&colour::to_bytes(c));
    }

    let mut heights: Vec<i32> = inner().map(|(i, j)| at(i, j).h).collect();
    heights.sort_unstable();
    let n = heights.len() as f64;
    let mut per_biome = [0u64; 256];
    for (i, j) in inner() {
        per_biome[at(i, j).biome as usize] += 1;
    }
    let biome_shares = world
        .preset
        .biomes
        .iter()
        .enumerate()
        .map(|(b, def)| BiomeShare {
            biome: def.name.clone(),
            share: per_biome.get(b).copied().unwrap_or(0) as f64 / n,
        })
        .collect();
    let pct = |q: f64| heights[((heights.len() - 1) as f64 * q).round() as usize];
    let stats = MapStats {
        width: px,
        height: px,
        columns_sampled: heights.len() as u64,
        biome_shares,
        height_min: lo,
        height_max: hi,
        height_mean: heights.iter().map(|&h| h as f64).sum::<f64>() / n,
        height_p50: pct(0.5),
        height_p99: pct(0.99),
        water_share: heights.iter().filter(|&&h| h < water_level).count() as f64 / n,
    };
    Ok(Map { width: px, height: px, rgb, stats })
}

/// From this many blocks per pixel on, a map samples each pixel's column
/// alone (five noise samples) instead of computing the heightmaps of the
/// chunk columns it touches (34² samples for 32² columns): at scale 3 a
/// chunk column holds about 114 pixels, 570 samples against 1156.
const SPARSE_FROM_SCALE: u32 = 3;

/// [`sample`] for coarse grids: each point's column alone, a row at a time
/// on the rayon pool.
fn sample_sparse(world: &WorldGen, w: usize, h: usize, block: impl Fn(usize, usize) -> [i64; 2] + Sync) -> Vec<Sample> {
    (0..h)
        .into_par_iter()
        .flat_map_iter(|j| {
            let row: Vec<[i64; 2]> = (0..w).map(|i| block(i, j)).collect();
            sample_columns(&world.program, &world.params, world.lanes, &row)
                .into_iter()
                .map(|(h, biome)| Sample { h, biome })
        })
        .collect()
}

fn cpu_heightmaps(world: &WorldGen, columns: &[ColumnPos]) -> Vec<Heightmap> {
    columns.par_iter().map(|&c| world.compute_heightmap(c)).collect()
}

/// What makes the heightmaps of chunk columns: the CPU or a backend.
type HeightmapSource<'a> = dyn Fn(&[ColumnPos]) -> Result<Vec<Heightmap>, BackendError> + Sync + 'a;

/// Heights and biomes at `block(i, j)` for a `w` × `h` grid, computing
/// each chunk column's heightmap once and only for columns the grid touches.
fn sample(
    w: usize,
    h: usize,
    block: impl Fn(usize, usize) -> [i64; 2] + Sync,
    heightmaps: &HeightmapSource,
) -> Result<Vec<Sample>, MapError> {
    let col_of = |b: [i64; 2]| ColumnPos {
        x: b[0].div_euclid(CHUNK_SIZE_I64) as i32,
        z: b[1].div_euclid(CHUNK_SIZE_I64) as i32,
    };
    let mut columns: Vec<ColumnPos> =
        (0..h).flat_map(|j| (0..w).map(move |i| (i, j))).map(|(i, j)| col_of(block(i, j))).collect();
    columns.sort_unstable_by_key(|c| (c.z, c.x));
    columns.dedup();
    let made = heightmaps(&columns).map_err(|e| MapError::Backend(e.to_string()))?;
    if made.len() != columns.len() {
        return Err(MapError::Backend(format!("{} heightmaps for {} columns", made.len(), columns.len())));
    }
    let maps: HashMap<ColumnPos, Heightmap> = columns.into_iter().zip(made).collect();
    Ok((0..h)
        .into_par_iter()
        .flat_map_iter(|j| {
            let (maps, block) = (&maps, &block);
            (0..w).map(move |i| {
                let b = block(i, j);
                let hm = &maps[&col_of(b)];
                let k =
                    column_index(b[0].rem_euclid(CHUNK_SIZE_I64) as usize, b[1].rem_euclid(CHUNK_SIZE_I64) as usize);
                Sample { h: hm.heights[k], biome: hm.biomes[k] }
            })
        })
        .collect())
}

/// Encodes a map as an RGB PNG.
pub fn encode_png(map: &Map) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, map.width, map.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header()?;
        writer.write_image_data(&map.rgb)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::Preset;

    fn world() -> WorldGen {
        WorldGen::new(Preset::load("classic").expect("bundled"), 42)
    }

    #[test]
    fn a_map_pixel_is_the_column_the_game_generates() {
        let w = world();
        let opts = MapOptions { center: [100, -40], size: 64, scale: 1, layer: Layer::Height };
        let map = render(&w, &opts).expect("map");
        assert_eq!((map.width, map.height, map.rgb.len()), (64, 64, 64 * 64 * 3));
        let (lo, hi) = (map.stats.height_min, map.stats.height_max);
        let corner = w.compute_heightmap(ColumnPos { x: 2, z: -3 }).heights[column_index(4, 24)];
        // Block (68, -72) is pixel (0, 0): centre minus half the size.
        let grey = colour::to_bytes(colour::grey(corner, lo, hi));
        assert_eq!(&map.rgb[..3], &grey, "the north-west pixel shows column (68, -72)");
        let shares: f64 = map.stats.biome_shares.iter().map(|s| s.share).sum();
        assert!((shares - 1.0).abs() < 1e-9, "biome shares sum to one: {shares}");
    }

    /// A coarse map samples lone columns; each must still be the column
    /// the game generates, and the map the same as sampling whole chunks.
    #[test]
    fn a_coarse_map_shows_the_columns_the_game_generates() {
        let w = world();
        let opts = MapOptions { center: [-3000, 5000], size: 640, scale: 5, layer: Layer::Shaded };
        let map = render(&w, &opts).expect("map");
        let origin = [-3000 - 320, 5000 - 320];
        let block = |i: usize, j: usize| [origin[0] + 5 * i as i64, origin[1] + 5 * j as i64];
        let sparse = sample_sparse(&w, 129, 129, block);
        let dense = sample(129, 129, block, &|c: &[ColumnPos]| Ok(cpu_heightmaps(&w, c))).expect("cpu");
        for (k, (s, d)) in sparse.iter().zip(&dense).enumerate() {
            assert_eq!((s.h, s.biome), (d.h, d.biome), "point {k}");
        }
        assert_eq!(map.stats.columns_sampled, 128 * 128);
    }

    #[test]
    fn bad_sizes_are_refused_with_a_reason() {
        let w = world();
        let o = |size, scale| MapOptions { center: [0, 0], size, scale, layer: Layer::Biome };
        assert_eq!(render(&w, &o(0, 1)).err(), Some(MapError::EmptySize));
        assert_eq!(render(&w, &o(64, 0)).err(), Some(MapError::ZeroScale));
        assert_eq!(render(&w, &o(1 << 20, 1)).err(), Some(MapError::TooLarge(1 << 20)));
        let far = MapOptions { center: [i64::MAX, 0], size: 64, scale: 1, layer: Layer::Biome };
        assert!(matches!(render(&w, &far), Err(MapError::OutOfRange(..))));
        let edge = MapOptions { center: [16_777_000, 0], size: 4096, scale: 64, layer: Layer::Biome };
        assert!(matches!(render(&w, &edge), Err(MapError::OutOfRange(..))));
        let inside = MapOptions { center: [16_000_000, 0], size: 4096, scale: 64, layer: Layer::Biome };
        assert!(render(&w, &inside).is_ok());
    }
}
