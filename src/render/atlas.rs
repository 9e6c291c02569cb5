//! The block texture atlas: 16×16 pixel tiles, drawn procedurally here and
//! saved as `assets/textures/atlas.png` by
//! `UPDATE_SOURCEGEN=1 cargo test --lib committed_atlas`.
//! The game loads the PNG; a test keeps the PNG and this generator equal.

pub const TILE: usize = 16;

/// Tile order, from the block registry; `BlockInfo::tiles` refer to it.
pub use crate::world::block::TILES;
use crate::world::block::TURNED;

const CLEAR: [u8; 4] = [0, 0, 0, 0];

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

/// Growth rings seen from the end of a log: `wood` rings inside `bark`.
fn rings(x: usize, y: usize, n: f32, wood: [u8; 3], bark: [u8; 3]) -> [u8; 4] {
    let d = ((x as f32 - 7.5).powi(2) + (y as f32 - 7.5).powi(2)).sqrt();
    if d > 6.6 {
        shade(bark, 0.8 + 0.25 * n)
    } else {
        shade(wood, if (d as usize).is_multiple_of(2) { 0.95 + 0.08 * n } else { 0.8 + 0.08 * n })
    }
}

/// Bark: vertical grooves of varying darkness.
fn bark(tile: usize, x: usize, y: usize, n: f32, rgb: [u8; 3]) -> [u8; 4] {
    let groove = hash(tile, x, y / 5, 21) > 0.7;
    shade(rgb, if groove { 0.65 } else { 0.85 + 0.25 * n })
}

/// Foliage with see-through holes (`holes` of the pixels are clear).
fn foliage(n: f32, n2: f32, holes: f32, rgb: [u8; 3]) -> [u8; 4] {
    if n < holes {
        CLEAR
    } else {
        shade(rgb, 0.7 + 0.45 * n2)
    }
}

/// A flower: a stem with a leaf, and a round head of `petal` colour.
fn flower(x: usize, y: usize, n: f32, petal: [u8; 3], radius: f32) -> [u8; 4] {
    let (fx, fy) = (x as f32 - 7.5, y as f32 - 5.0);
    if fx * fx + fy * fy <= radius * radius {
        let centre = fx * fx + fy * fy < 1.2;
        return if centre { shade([230, 200, 60], 0.9 + 0.1 * n) } else { shade(petal, 0.8 + 0.3 * n) };
    }
    let stem = (x == 7 || x == 8) && y > 6;
    let leaf = y == 11 && (4..7).contains(&x) || y == 12 && (9..12).contains(&x);
    if stem || leaf {
        shade([62, 130, 44], 0.85 + 0.2 * n)
    } else {
        CLEAR
    }
}

/// Stone with lumps of `lump` colour on a 3-pixel lattice.
fn ore(tile: usize, x: usize, y: usize, n: f32, n2: f32, lump: [u8; 3]) -> [u8; 4] {
    if hash(tile, x / 3, y / 3, 23) > 0.72 && n > 0.25 {
        shade(lump, 0.8 + 0.4 * n)
    } else {
        shade([125, 125, 125], 0.86 + 0.22 * n2 + 0.06 * n)
    }
}

fn pixel(tile: usize, x: usize, y: usize) -> [u8; 4] {
    let turned = TILES[tile].strip_suffix(TURNED).and_then(|base| TILES.iter().position(|t| *t == base));
    if let Some(base) = turned {
        return pixel(base, y, x);
    }
    let n = hash(tile, x, y, 1);
    let n2 = hash(tile, x / 2, y / 2, 7);
    let jag = (hash(tile, x, 0, 3) * 3.0) as usize; // ragged edge depth for side tiles
    let dirt = shade([134, 96, 67], 0.82 + 0.3 * n);
    match TILES[tile] {
        "stone" => stone(tile, x, y, n, n2),
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
        "log_top" => rings(x, y, n, [176, 140, 88], [102, 76, 46]),
        "log_side" => bark(tile, x, y, n, [102, 76, 46]),
        "pine_log_top" => rings(x, y, n, [150, 112, 70], [64, 46, 30]),
        "pine_log_side" => bark(tile, x, y, n, [64, 46, 30]),
        "birch_log_top" => rings(x, y, n, [204, 184, 136], [222, 218, 206]),
        "birch_log_side" => {
            // White bark with short dark dashes across it.
            let dash = hash(tile, x / 4, y, 31) > 0.82 && hash(tile, x / 2, y, 37) > 0.3;
            if dash {
                shade([44, 42, 38], 0.8 + 0.3 * n)
            } else {
                shade([222, 218, 206], 0.86 + 0.14 * n)
            }
        }
        "birch_leaves" => foliage(n, n2, 0.2, [112, 162, 60]),
        "leaves" => foliage(n, n2, 0.18, [66, 138, 44]),
        "pine_leaves" => foliage(n, n2, 0.14, [42, 92, 60]),
        "gravel" => {
            let pebble = hash(tile, x / 2, y / 2, 17);
            let rgb = if pebble > 0.66 {
                [150, 140, 132]
            } else if pebble > 0.33 {
                [120, 114, 110]
            } else {
                [98, 92, 90]
            };
            shade(rgb, 0.85 + 0.25 * n)
        }
        "clay" => shade([160, 166, 180], 0.92 + 0.08 * n2 + 0.04 * n),
        "coal_ore" => ore(tile, x, y, n, n2, [34, 34, 36]),
        "iron_ore" => ore(tile, x, y, n, n2, [196, 150, 112]),
        "gold_ore" => ore(tile, x, y, n, n2, [236, 200, 60]),
        "lava" => {
            let vein = ((x as f32 * 0.9 + y as f32 * 0.4).sin() + (y as f32 * 0.7 - x as f32 * 0.3).cos()) * 0.5;
            shade([220, 90, 20], 0.85 + 0.25 * vein + 0.1 * n)
        }
        "glowstone" => {
            let bright = hash(tile, x / 2, y / 2, 31);
            shade([250, 206, 110], 0.72 + 0.35 * bright + 0.08 * n)
        }
        "cactus_side" => {
            // Ribs of darker green with pale spines along them.
            let rib = x % 4 == 1;
            let spine = rib && hash(tile, x, y, 37) > 0.8;
            if spine {
                [226, 222, 170, 255]
            } else {
                shade([70, 140, 52], if rib { 0.7 } else { 0.9 + 0.15 * n })
            }
        }
        "cactus_top" => {
            let (fx, fy) = (x as f32 - 7.5, y as f32 - 7.5);
            let ring = (fx * fx + fy * fy).sqrt();
            shade([86, 158, 62], if ring > 6.5 { 0.72 } else { 0.9 + 0.12 * n })
        }
        name => masonry(tile, name, x, y, [n, n2], jag),
    }
}

/// Grey stone with short dark cracks.
fn stone(tile: usize, x: usize, y: usize, n: f32, n2: f32) -> [u8; 4] {
    let crack = hash(tile, x / 3, y, 11) > 0.86;
    shade([125, 125, 125], if crack { 0.72 } else { 0.86 + 0.22 * n2 + 0.06 * n })
}

/// The tiles of built and laid blocks (planks, cobblestone, mossy stone,
/// glass); sprites otherwise.
fn masonry(tile: usize, name: &str, x: usize, y: usize, [n, n2]: [f32; 2], jag: usize) -> [u8; 4] {
    match name {
        "planks" => {
            // Boards four pixels high, end joints staggered per board.
            let board = y / 4;
            let joint = (x + board * 5).is_multiple_of(16);
            let seam = y % 4 == 3 || joint;
            shade([176, 138, 84], if seam { 0.62 } else { 0.86 + 0.12 * hash(tile, board, x / 4, 5) + 0.06 * n })
        }
        "cobblestone" => {
            // Stones on a jittered 5-pixel lattice, dark mortar between them.
            let cell = |x: usize, y: usize| (x + (hash(tile, y / 5, 0, 9) * 3.0) as usize) / 5;
            let edge = cell(x, y) != cell(x + 1, y) || y % 5 == 4;
            shade([120, 120, 120], if edge { 0.55 } else { 0.78 + 0.3 * hash(tile, cell(x, y), y / 5, 13) + 0.08 * n })
        }
        "mossy_stone_top" | "mossy_stone_side" => {
            // Stone under moss: patches of it on top, a ragged fringe
            // hanging down the sides.
            let moss = if name.ends_with("side") {
                y < 2 + jag || (y < 6 + jag && hash(tile, x, 0, 43) > 0.55)
            } else {
                n2 > 0.22 || n > 0.75
            };
            if moss {
                shade([82, 124, 54], 0.74 + 0.28 * n + 0.1 * n2)
            } else {
                stone(tile, x, y, n, n2)
            }
        }
        "obsidian" => {
            // Near-black glass of stone, purple in its depths, with pale glints.
            let glint = hash(tile, x, y, 47) > 0.94;
            if glint {
                shade([150, 130, 190], 0.9 + 0.1 * n)
            } else {
                shade([30, 20, 44], 0.7 + 0.45 * n2 + 0.15 * n)
            }
        }
        "glass" => {
            let frame = x == 0 || y == 0 || x == 15 || y == 15;
            let glint = x + y == 11 && (3..7).contains(&x) || x + y == 14 && (5..8).contains(&x);
            if frame {
                shade([214, 232, 236], 0.9 + 0.1 * n)
            } else if glint {
                [236, 246, 250, 255]
            } else {
                CLEAR
            }
        }
        _ => sprite(tile, name, x, y, n),
    }
}

/// The tiles of sprites (cross and flat blocks): clear around the shape.
fn sprite(tile: usize, name: &str, x: usize, y: usize, n: f32) -> [u8; 4] {
    match name {
        "tall_grass" => {
            // Blades of random height in every other column.
            let height = 5 + (hash(tile, x, 0, 29) * 10.0) as usize;
            if x % 2 == (x / 5) % 2 && y >= TILE - height {
                shade([88, 150, 56], 0.75 + 0.35 * n)
            } else {
                CLEAR
            }
        }
        "rose" => flower(x, y, n, [200, 30, 40], 3.0),
        "buttercup" => flower(x, y, n, [242, 208, 40], 2.4),
        "shrub" => {
            // Bare twigs forking up from the middle.
            let dx = x as f32 - 7.5;
            let up = TILE - y;
            let twig = dx.abs() < 1.0 && up < 9
                || up >= 4 && (dx - (up as f32 - 4.0) * 0.7).abs() < 0.8
                || up >= 6 && (dx + (up as f32 - 6.0) * 0.8).abs() < 0.8;
            if twig && y > 1 {
                shade([120, 84, 48], 0.8 + 0.3 * n)
            } else {
                CLEAR
            }
        }
        "torch" => {
            if (7..9).contains(&x) && y >= 6 {
                shade([110, 80, 44], 0.85 + 0.2 * n)
            } else if (6..10).contains(&x) && (2..6).contains(&y) {
                let core = (7..9).contains(&x) && (3..5).contains(&y);
                if core {
                    [255, 244, 170, 255]
                } else {
                    [250, 160, 40, 255]
                }
            } else {
                CLEAR
            }
        }
        "reeds" => {
            // Stalks two pixels wide at four places, of their own heights,
            // with darker joints; the tallest carry a brown head.
            let stalk = [1usize, 5, 9, 13].iter().position(|&s| x == s || x == s + 1);
            let Some(i) = stalk else { return CLEAR };
            let top = 1 + (hash(tile, i, 0, 41) * 6.0) as usize;
            if y < top {
                CLEAR
            } else if top <= 3 && y < top + 4 {
                shade([110, 72, 40], 0.8 + 0.25 * n)
            } else {
                let joint = (y + i * 3).is_multiple_of(5);
                shade([112, 150, 70], if joint { 0.7 } else { 0.85 + 0.25 * n })
            }
        }
        "lily_pad" => {
            // A round pad with a wedge cut out towards one edge, and veins
            // running out from its middle.
            let (fx, fy) = (x as f32 - 7.5, y as f32 - 7.5);
            let r = (fx * fx + fy * fy).sqrt();
            let notch = fx > 0.0 && fy.abs() < fx * 0.35;
            if r > 7.2 || notch {
                return CLEAR;
            }
            let spoke = fy.atan2(fx) * 7.0 / std::f32::consts::PI;
            let vein = (spoke.round() - spoke).abs() < 0.12 && r > 1.5;
            shade([58, 124, 40], if vein { 0.72 } else { 0.9 + 0.2 * n })
        }
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

/// The smaller images of a tile (8×8, 4×4, 2×2, 1×1), each the 2×2 mean
/// of the one before, so a far face samples a tile the size it covers
/// instead of aliasing into moiré. Colours are averaged in linear light
/// and weighted by alpha, so the clear texels of a cutout tile (leaves)
/// do not darken its edges; alpha is the plain mean, scaled per level so
/// that the alpha test keeps the tile's share of texels.
pub fn mip_chain(tile: &[u8; TILE * TILE * 4]) -> Vec<Vec<u8>> {
    let full = coverage(tile);
    mean_levels(tile).iter().map(|level| keep_coverage(level, full)).collect()
}

/// The plain 2×2 means of [`mip_chain`], level by level.
fn mean_levels(tile: &[u8; TILE * TILE * 4]) -> Vec<Vec<u8>> {
    use super::srgb::{to_linear, to_srgb};
    let mut levels: Vec<Vec<u8>> = Vec::new();
    let (mut prev, mut side) = (tile.to_vec(), TILE);
    while side > 1 {
        let half = side / 2;
        let mut next = vec![0u8; half * half * 4];
        for y in 0..half {
            for x in 0..half {
                let (mut rgb, mut alpha) = ([0.0f32; 3], 0.0f32);
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let px = &prev[((2 * y + dy) * side + 2 * x + dx) * 4..][..4];
                    let a = px[3] as f32 / 255.0;
                    for (c, &v) in rgb.iter_mut().zip(px) {
                        *c += to_linear(v) * a;
                    }
                    alpha += a;
                }
                let out = &mut next[(y * half + x) * 4..][..4];
                for (o, c) in out.iter_mut().zip(rgb) {
                    *o = if alpha > 0.0 { to_srgb(c / alpha) } else { 0 };
                }
                out[3] = (alpha / 4.0 * 255.0).round() as u8;
            }
        }
        levels.push(next.clone());
        (prev, side) = (next, half);
    }
    levels
}

/// The share of a tile's texels the alpha test keeps (alpha at least half).
fn coverage(rgba: &[u8]) -> f32 {
    let texels = rgba.len() / 4;
    rgba.chunks(4).filter(|p| p[3] >= 128).count() as f32 / texels.max(1) as f32
}

/// `level` with its alpha scaled so that the alpha test keeps about the
/// share `target` of its texels, as it keeps of the full tile: plain means
/// of a sprite's thin stems fall under one half, and distant flowers,
/// grass and glass would vanish. Scales are tried in 1/64 steps.
fn keep_coverage(level: &[u8], target: f32) -> Vec<u8> {
    let mut out = level.to_vec();
    if target >= 1.0 {
        return out;
    }
    let scaled = |a: u8, k: u32| ((a as u32 * k) / 64).min(255) as u8;
    let kept = |k: u32| level.chunks(4).filter(|p| scaled(p[3], k) >= 128).count() as f32 / (level.len() / 4) as f32;
    // Of equally near shares, the scale nearest 1 (64/64).
    let error = |k: u32| ((kept(k) - target).abs(), k.abs_diff(64));
    let best = (1..=64 * 16).min_by(|&a, &b| {
        let ((ea, da), (eb, db)) = (error(a), error(b));
        ea.total_cmp(&eb).then(da.cmp(&db))
    });
    let k = best.unwrap_or(64);
    for p in out.chunks_mut(4) {
        p[3] = scaled(p[3], k);
    }
    out
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

    /// Each level halves the one before: a flat tile stays its colour, a
    /// checkerboard of black and white turns the grey of their mean in
    /// linear light, and clear texels neither darken nor show.
    #[test]
    fn mip_levels_are_the_means_of_the_level_before() {
        let tile = |f: &dyn Fn(usize, usize) -> [u8; 4]| {
            let mut px = [0u8; TILE * TILE * 4];
            for y in 0..TILE {
                for x in 0..TILE {
                    px[(y * TILE + x) * 4..][..4].copy_from_slice(&f(x, y));
                }
            }
            px
        };
        let flat = mip_chain(&tile(&|_, _| [90, 140, 60, 255]));
        assert_eq!(flat.iter().map(Vec::len).collect::<Vec<_>>(), [8 * 8 * 4, 4 * 4 * 4, 2 * 2 * 4, 4]);
        assert!(flat.iter().all(|l| l.chunks(4).all(|p| p == [90, 140, 60, 255])));
        let checker = mip_chain(&tile(&|x, y| if (x + y) % 2 == 0 { [0, 0, 0, 255] } else { [255; 4] }));
        // Linear 0.5 in sRGB, 0.7354 of 255: the mean of black and white in light.
        assert!(checker.iter().all(|l| l.chunks(4).all(|p| p == [188, 188, 188, 255])), "{:?}", &checker[0][..4]);
        let holes = mip_chain(&tile(&|x, _| if x % 2 == 0 { [0, 0, 0, 0] } else { [40, 160, 40, 255] }));
        assert_eq!(&holes[0][..4], [40, 160, 40, 128]);
    }

    /// No cutout tile of the atlas (sprites, leaves, glass) vanishes in
    /// the 8×8 and 4×4 levels, and each keeps a share of drawn texels at
    /// least as near its full tile's as plain means would; plain means of
    /// thin lines fall under one half, and glass's frame would lose every
    /// texel to the alpha test at 4×4. (A level quantises the share: reeds'
    /// stems in every other column are all drawn or none at 8×8.)
    #[test]
    fn cutout_tiles_keep_their_coverage_in_the_smaller_levels() {
        let (mut cutout, mut saved) = (0, 0);
        for (t, tile) in generate().iter().enumerate() {
            let full = coverage(tile);
            if full >= 1.0 {
                continue;
            }
            cutout += 1;
            for (k, (level, plain)) in mip_chain(tile).iter().zip(mean_levels(tile)).enumerate().take(2) {
                let (kept, plain) = (coverage(level), coverage(&plain));
                let name = TILES[t];
                assert!(kept > 0.0, "{name} vanishes at level {}", k + 1);
                assert!((kept - full).abs() <= (plain - full).abs(), "{name} level {}: {kept} kept of {full}", k + 1);
                saved += (plain == 0.0) as usize;
            }
        }
        assert!(cutout >= 8, "only {cutout} cutout tiles");
        assert!(saved > 0, "no tile would vanish with plain means: the test shows nothing");
    }

    #[test]
    fn committed_atlas_matches_the_generator() {
        if std::env::var("UPDATE_SOURCEGEN").as_deref() == Ok("1") {
            let png = encode_png(&generate()).expect("the atlas encodes");
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/textures/atlas.png");
            std::fs::write(path, png).expect("assets/textures/atlas.png is writable");
            return;
        }
        let committed = decode_png(ATLAS_PNG).expect("assets/textures/atlas.png decodes");
        assert!(
            committed == generate(),
            "assets/textures/atlas.png is stale: run `UPDATE_SOURCEGEN=1 cargo test --lib committed_atlas`"
        );
    }

    #[test]
    fn every_block_tile_exists_and_is_drawn() {
        for b in crate::world::block::BLOCKS {
            assert!(b.tiles.iter().all(|&t| (t as usize) < TILES.len()), "{}", b.name);
        }
        // The fallback colour (magenta) marks a tile name with no drawing.
        for (t, px) in generate().iter().enumerate() {
            assert!(!px.chunks(4).any(|p| p == [255, 0, 255, 255]), "tile {} is not drawn", TILES[t]);
        }
    }

    #[test]
    fn a_turned_tile_is_its_base_with_rows_and_columns_swapped() {
        let tiles = generate();
        let mut turned = 0;
        for (t, name) in TILES.iter().enumerate() {
            let Some(base) = name.strip_suffix(TURNED) else { continue };
            let b = TILES.iter().position(|n| *n == base).expect("a turned tile's base is a tile");
            let px = |tile: usize, x: usize, y: usize| &tiles[tile][(y * TILE + x) * 4..][..4];
            for y in 0..TILE {
                for x in 0..TILE {
                    assert_eq!(px(t, x, y), px(b, y, x), "{name} at ({x}, {y})");
                }
            }
            assert_ne!(tiles[t], tiles[b], "{name}: the bark looks the same turned");
            turned += 1;
        }
        assert!(turned >= 3, "only {turned} turned tiles");
    }
}
