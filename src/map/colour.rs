//! Map colours, taken from the block tiles the game draws: a biome is the
//! average colour of its top block's top tile, water the water tile's.
//! Nothing here is a second hand-kept palette.

use crate::render::atlas::{self, TILE};
use crate::world::block::BlockId;

pub type Rgb = [f32; 3];

/// Average colours of the top tile of every block.
pub struct Palette {
    tops: Vec<Rgb>,
}

impl Palette {
    pub fn from_atlas() -> Palette {
        let tiles = atlas::generate();
        let average = |t: usize| -> Rgb {
            let px = &tiles[t];
            let mut sum = [0.0f32; 3];
            for p in px.chunks_exact(4) {
                for c in 0..3 {
                    sum[c] += p[c] as f32;
                }
            }
            sum.map(|s| s / (TILE * TILE) as f32 / 255.0)
        };
        Palette { tops: BlockId::all().map(|b| average(b.info().tiles[0] as usize)).collect() }
    }

    pub fn top(&self, b: BlockId) -> Rgb {
        self.tops.get(b.0 as usize).copied().unwrap_or([1.0, 0.0, 1.0])
    }
}

/// Each block's top tile averaged in linear light over its opaque texels,
/// as sRGB RGBA bytes: how the tile looks from afar, filtered as the GPU
/// filters the chunks' sRGB tiles. Averaging the sRGB bytes themselves
/// would look darker and more saturated; transparent texels (the holes in
/// leaves) show what is behind them, not their own colour. Far terrain
/// draws with these.
pub fn linear_top_averages() -> Vec<[u8; 4]> {
    let tiles = atlas::generate();
    use crate::render::srgb::{to_linear, to_srgb};
    BlockId::all()
        .map(|b| {
            let px = tiles.get(b.info().tiles[0] as usize).map_or(&[][..], |t| &t[..]);
            let opaque: Vec<&[u8]> = px.chunks_exact(4).filter(|p| p[3] >= 128).collect();
            let n = opaque.len().max(1) as f32;
            let [r, g, bl] = [0, 1, 2].map(|c| to_srgb(opaque.iter().map(|p| to_linear(p[c])).sum::<f32>() / n));
            [r, g, bl, 255]
        })
        .collect()
}

/// Lambert shading of a height field seen from the north-west, 45° up:
/// `dx`, `dz` are the height differences per block east and south.
pub fn hillshade(dx: f32, dz: f32) -> f32 {
    let n = [-dx, 1.0, -dz];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    let light = [-0.5f32, std::f32::consts::FRAC_1_SQRT_2, -0.5];
    let lambert = (n[0] * light[0] + n[1] * light[1] + n[2] * light[2]) / len;
    // Flat ground keeps its colour; slopes facing the light brighten.
    (lambert / light[1]).clamp(0.35, 1.35)
}

/// Water darkens with depth, down to half its colour 24 blocks down.
pub fn water(colour: Rgb, depth: i32) -> Rgb {
    let k = 1.0 - 0.5 * (depth.max(0) as f32 / 24.0).min(1.0);
    colour.map(|c| c * k)
}

/// Height as grey from `lo` (black) to `hi` (white).
pub fn grey(h: i32, lo: i32, hi: i32) -> Rgb {
    let t = if hi > lo { (h - lo) as f32 / (hi - lo) as f32 } else { 0.5 };
    [t.clamp(0.0, 1.0); 3]
}

pub fn to_bytes(c: Rgb) -> [u8; 3] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_give_the_colours() {
        let p = Palette::from_atlas();
        let [r, g, b] = p.top(BlockId::GRASS);
        assert!(g > r && g > b, "grass is green: {r} {g} {b}");
        let [r, g, b] = p.top(BlockId::WATER);
        assert!(b > r, "water is blue: {r} {g} {b}");
        let [r, g, _] = p.top(BlockId::SAND);
        assert!(r > 0.5 && g > 0.5, "sand is light");
    }

    #[test]
    fn slopes_towards_the_light_are_brighter() {
        assert!((hillshade(0.0, 0.0) - 1.0).abs() < 1e-6);
        // The light comes from the north-west: ground rising to the east
        // faces west, towards it; ground falling to the east faces away.
        assert!(hillshade(1.0, 0.0) > 1.0 && hillshade(-1.0, 0.0) < 1.0);
        assert!(water([1.0; 3], 48)[0] < water([1.0; 3], 0)[0]);
    }
}
