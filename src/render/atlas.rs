//! The block texture atlas: 16×16 pixel tiles, drawn procedurally here and
//! saved as `assets/textures/atlas.png` by `cargo run --example make_atlas`.
//! The game loads the PNG; a test keeps the PNG and this generator equal.

pub const TILE: usize = 16;

/// Tile order; block tile indices (`BlockInfo::tiles`) refer to it.
pub const TILES: &[&str] =
    &["stone", "dirt", "grass_top", "grass_side", "sand", "water", "snow", "podzol_top", "podzol_side"];

pub const ATLAS_PNG: &[u8] = include_bytes!("../../assets/textures/atlas.png");

/// A deterministic per-pixel hash in [0, 1).
fn hash(tile: usize, x: usize, y: usize, salt: u32) -> f32 {
    let mut h = (tile as u32).wrapping_mul(0x9E37_79B1)
        ^ (x as u32).wrapping_mul(0x85EB_CA77)
        ^ (y as u32).wrapping_mul(0xC2B2_AE3D)
        ^ salt;
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297A_2D39);
    h ^= h >> 15;
    (h >> 8) as f32 / (1u32 << 24) as f32
}

fn shade(rgb: [u8; 3], f: f32) -> [u8; 4] {
    let c = |v: u8| ((v as f32 * f).round().clamp(0.0, 255.0)) as u8;
    [c(rgb[0]), c(rgb[1]), c(rgb[2]), 255]
}

/// A side tile: the top block's colour in a ragged fringe over dirt.
fn top_fringe(in_fringe: bool, rgb: [u8; 3], n: f32, dirt: [u8; 4]) -> [u8; 4] {
    if in_fringe {
        shade(rgb, 0.8 + 0.3 * n)
    } else {
        dirt
    }
}

fn pixel(tile: usize, x: usize, y: usize) -> [u8; 4] {
    let n = hash(tile, x, y, 1);
    let n2 = hash(tile, x / 2, y / 2, 7);
    let jag = (hash(tile, x, 0, 3) * 3.0) as usize; // ragged edge depth for side tiles
    let dirt = shade([134, 96, 67], 0.82 + 0.3 * n);
    match TILES[tile] {
        "stone" => {
            let crack = hash(tile, x / 3, y, 11) > 0.86;
            shade([125, 125, 125], if crack { 0.72 } else { 0.86 + 0.22 * n2 + 0.06 * n })
        }
        "dirt" => dirt,
        "grass_top" => shade([96, 156, 60], 0.8 + 0.3 * n + 0.1 * n2),
        "grass_side" => top_fringe(y < 3 + jag, [96, 156, 60], n, dirt),
        "sand" => shade([219, 206, 160], 0.9 + 0.14 * n),
        "water" => {
            let wave = ((x as f32 * 0.8 + y as f32 * 1.7).sin() * 0.5 + 0.5) * 0.12;
            shade([52, 102, 204], 0.85 + wave + 0.06 * n)
        }
        "snow" => shade([240, 246, 250], 0.93 + 0.07 * n),
        "podzol_top" => shade([122, 86, 44], 0.78 + 0.35 * n2 + 0.1 * n),
        "podzol_side" => top_fringe(y < 2 + jag, [122, 86, 44], n, dirt),
        _ => [255, 0, 255, 255],
    }
}

/// RGBA pixels of every tile, tile after tile (each 16×16, rows top first).
pub fn generate() -> Vec<[u8; TILE * TILE * 4]> {
    (0..TILES.len())
        .map(|t| {
            let mut px = [0u8; TILE * TILE * 4];
            for y in 0..TILE {
                for x in 0..TILE {
                    px[(y * TILE + x) * 4..][..4].copy_from_slice(&pixel(t, x, y));
                }
            }
            px
        })
        .collect()
}

/// Encodes tiles as one horizontal strip PNG.
pub fn encode_png(tiles: &[[u8; TILE * TILE * 4]]) -> Result<Vec<u8>, png::EncodingError> {
    let w = TILE * tiles.len();
    let mut rgba = vec![0u8; w * TILE * 4];
    for (t, px) in tiles.iter().enumerate() {
        for y in 0..TILE {
            let dst = (y * w + t * TILE) * 4;
            rgba[dst..dst + TILE * 4].copy_from_slice(&px[y * TILE * 4..(y + 1) * TILE * 4]);
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w as u32, TILE as u32);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header()?;
        writer.write_image_data(&rgba)?;
    }
    Ok(out)
}

#[derive(Debug, thiserror::Error)]
pub enum AtlasError {
    #[error("atlas PNG is unreadable: {0}")]
    Decode(String),
    #[error("atlas PNG is {width}×{height}; expected {expected}×16 RGBA")]
    Size { width: u32, height: u32, expected: usize },
}

/// Decodes the strip PNG back into tiles.
pub fn decode_png(bytes: &[u8]) -> Result<Vec<[u8; TILE * TILE * 4]>, AtlasError> {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().map_err(|e| AtlasError::Decode(e.to_string()))?;
    let size = reader.output_buffer_size().ok_or_else(|| AtlasError::Decode("image too large".into()))?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(|e| AtlasError::Decode(e.to_string()))?;
    let expected = TILE * TILES.len();
    if info.width as usize != expected || info.height as usize != TILE || info.color_type != png::ColorType::Rgba {
        return Err(AtlasError::Size { width: info.width, height: info.height, expected });
    }
    Ok((0..TILES.len())
        .map(|t| {
            let mut px = [0u8; TILE * TILE * 4];
            for y in 0..TILE {
                let src = (y * expected + t * TILE) * 4;
                px[y * TILE * 4..(y + 1) * TILE * 4].copy_from_slice(&buf[src..src + TILE * 4]);
            }
            px
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_atlas_matches_the_generator() {
        let committed = decode_png(ATLAS_PNG).expect("assets/textures/atlas.png decodes");
        assert!(committed == generate(), "assets/textures/atlas.png is stale: run `cargo run --example make_atlas`");
    }

    #[test]
    fn every_block_tile_exists() {
        for b in crate::world::block::BLOCKS {
            assert!(b.tiles.iter().all(|&t| (t as usize) < TILES.len()), "{}", b.name);
        }
    }
}
