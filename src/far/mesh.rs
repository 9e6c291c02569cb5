//! A far tile as blocky quads, the look players of block games expect of
//! far terrain (Distant Horizons, Voxy): each cell a column of its top
//! block's colour, tops merged greedily, sides where a neighbour is lower.
//!
//! Along the tile's edge every column has a side down to the water level
//! (a skirt): no surface lies lower than the water's, so the skirt meets
//! whatever the neighbouring tile, of this level or another, stands at,
//! and no crack opens at tile or level borders.
//!
//! The 16-byte far quad (`assets/shaders/far.wgsl` reads it):
//! - word 0: bits 0–5 x, 6–11 z (cells, 0..=32), 12–14 face (as chunk
//!   quads: +x −x +y −y +z −z), 15–19 width − 1 (cells along x for a top,
//!   along the edge for a side), 20–24 depth − 1 (cells along z, tops only);
//!   for a side face x or z is the cell edge the face lies on; bit 25 set
//!   where the block is drawn as the chunks draw water (translucent), so
//!   the far pass lights it as their water pass does;
//! - word 1: the top (bits 0–15) and bottom (16–31) heights, as i16;
//! - word 2: colour, sRGB RGBA8;
//! - word 3: the block.

use super::clipmap::TILE_CELLS;
use super::tile::FarTile;
use crate::world::block::{BlockId, Layer};
use bytemuck::{Pod, Zeroable};

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct FarQuad(pub [u32; 4]);

pub const FACE_POS_X: u32 = 0;
pub const FACE_NEG_X: u32 = 1;
pub const FACE_TOP: u32 = 2;
pub const FACE_POS_Z: u32 = 4;
pub const FACE_NEG_Z: u32 = 5;

/// What a far quad is, before packing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FarQuadSpec {
    pub x: u32,
    pub z: u32,
    pub face: u32,
    pub w: u32,
    pub d: u32,
    pub top: i32,
    pub bottom: i32,
    pub block: BlockId,
}

fn height16(y: i32) -> u32 {
    (y.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16) as u32
}

impl FarQuad {
    pub fn pack(q: &FarQuadSpec, colours: &Colours) -> FarQuad {
        debug_assert!(q.x <= 32 && q.z <= 32 && q.face < 6 && (1..=32).contains(&q.w) && (1..=32).contains(&q.d));
        let water = (q.block.info().layer == Layer::Translucent) as u32;
        FarQuad([
            q.x | q.z << 6 | q.face << 12 | (q.w - 1) << 15 | (q.d - 1) << 20 | water << 25,
            height16(q.top) | height16(q.bottom) << 16,
            colours.rgba(q.block),
            q.block.0 as u32,
        ])
    }

    pub fn face(self) -> u32 {
        (self.0[0] >> 12) & 7
    }

    /// Whether it is lit as the chunks' water is.
    pub fn water(self) -> bool {
        (self.0[0] >> 25) & 1 == 1
    }

    /// The cell (x, z) it starts at.
    pub fn cell(self) -> [u32; 2] {
        [self.0[0] & 63, (self.0[0] >> 6) & 63]
    }

    /// Cells along x and z (a side's run is its width).
    pub fn size(self) -> [u32; 2] {
        [((self.0[0] >> 15) & 31) + 1, ((self.0[0] >> 20) & 31) + 1]
    }

    pub fn heights(self) -> [i32; 2] {
        [self.0[1] as u16 as i16 as i32, (self.0[1] >> 16) as u16 as i16 as i32]
    }
}

/// Each block's colour seen from afar: the average of its top tile.
pub struct Colours {
    rgba: Vec<u32>,
}

impl Colours {
    /// Each block's top tile averaged in linear light (see
    /// `map::colour::linear_top_averages`).
    pub fn new() -> Colours {
        Colours { rgba: crate::map::colour::linear_top_averages().into_iter().map(u32::from_le_bytes).collect() }
    }

    pub fn rgba(&self, b: BlockId) -> u32 {
        self.rgba.get(b.0 as usize).copied().unwrap_or(0xFFFF_00FF)
    }
}

impl Default for Colours {
    fn default() -> Self {
        Colours::new()
    }
}

/// The tile's quads: merged tops, then the sides.
pub fn mesh(tile: &FarTile, colours: &Colours) -> Vec<FarQuad> {
    let n = TILE_CELLS;
    let surface: Vec<i32> = (0..n * n).map(|k| tile.surface(k % n, k / n)).collect();
    let top = |i: usize, j: usize| (surface[j * n + i], tile.visible(i, j));
    let mut out = Vec::new();
    // Tops: grow a run along x, then the run down z while every cell matches.
    let mut done = vec![false; n * n];
    for j in 0..n {
        let mut i = 0;
        while i < n {
            if done[j * n + i] {
                i += 1;
                continue;
            }
            let key = top(i, j);
            let mut w = 1;
            while i + w < n && !done[j * n + i + w] && top(i + w, j) == key {
                w += 1;
            }
            let mut d = 1;
            while j + d < n && (i..i + w).all(|x| !done[(j + d) * n + x] && top(x, j + d) == key) {
                d += 1;
            }
            for z in j..j + d {
                done[z * n + i..z * n + i + w].fill(true);
            }
            let spec = FarQuadSpec {
                x: i as u32,
                z: j as u32,
                face: FACE_TOP,
                w: w as u32,
                d: d as u32,
                top: key.0,
                bottom: key.0,
                block: key.1,
            };
            out.push(FarQuad::pack(&spec, colours));
            i += w;
        }
    }
    // Sides: the neighbour's surface, or the skirt's bottom past the edge.
    let skirt = tile.water_level;
    let below = |i: usize, j: usize, di: i32, dj: i32| -> i32 {
        let (x, z) = (i as i32 + di, j as i32 + dj);
        if (0..n as i32).contains(&x) && (0..n as i32).contains(&z) {
            surface[z as usize * n + x as usize]
        } else {
            skirt
        }
    };
    // (face, step to the neighbour, whether the edge runs along x).
    let sides = [
        (FACE_POS_X, (1, 0), false),
        (FACE_NEG_X, (-1, 0), false),
        (FACE_POS_Z, (0, 1), true),
        (FACE_NEG_Z, (0, -1), true),
    ];
    for (face, (di, dj), along_x) in sides {
        for line in 0..n {
            let mut run: Option<(usize, i32, i32, BlockId)> = None;
            for step in 0..=n {
                let side = (step < n).then(|| {
                    let (i, j) = if along_x { (step, line) } else { (line, step) };
                    let s = surface[j * n + i];
                    let low = below(i, j, di, dj);
                    (low < s).then(|| (s, low, tile.side(i, j, s - low)))
                });
                let side = side.flatten();
                if let Some((start, s, low, b)) = run {
                    if side != Some((s, low, b)) {
                        out.push(side_quad(face, line, start, step - start, (s, low, b), along_x, colours));
                        run = None;
                    }
                }
                if run.is_none() {
                    run = side.map(|(s, low, b)| (step, s, low, b));
                }
            }
        }
    }
    out
}

fn side_quad(
    face: u32,
    line: usize,
    start: usize,
    len: usize,
    (top, bottom, block): (i32, i32, BlockId),
    along_x: bool,
    colours: &Colours,
) -> FarQuad {
    // The face lies on the far edge of its cells for + faces.
    let plane = (line + usize::from(face == FACE_POS_X || face == FACE_POS_Z)) as u32;
    let (x, z) = if along_x { (start as u32, plane) } else { (plane, start as u32) };
    FarQuad::pack(&FarQuadSpec { x, z, face, w: len as u32, d: 1, top, bottom, block }, colours)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::far::clipmap::TileKey;
    use crate::far::tile::Cell;

    fn tile(ground: impl Fn(usize, usize) -> i32) -> FarTile {
        let n = TILE_CELLS;
        FarTile {
            key: TileKey { level: 0, x: 0, z: 0 },
            cells: (0..n * n)
                .map(|k| Cell { ground: ground(k % n, k / n), top: BlockId::GRASS, under: BlockId::DIRT, canopy: None })
                .collect(),
            water_level: 10,
            deep: BlockId::STONE,
            under_depth: 3,
        }
    }

    /// The area of every face, summed, is what the columns expose.
    fn areas(quads: &[FarQuad]) -> (u64, u64) {
        let (mut tops, mut sides) = (0, 0);
        for q in quads {
            let [w, d] = q.size();
            let [t, b] = q.heights();
            if q.face() == FACE_TOP {
                tops += (w * d) as u64;
            } else {
                sides += w as u64 * (t - b) as u64;
            }
        }
        (tops, sides)
    }

    #[test]
    fn a_flat_tile_is_one_top_and_its_skirts() {
        let quads = mesh(&tile(|_, _| 20), &Colours::new());
        assert_eq!(quads.len(), 5, "one top, one skirt a side");
        // Surface 21 (the top of ground block 20), skirts down to 10.
        assert_eq!(areas(&quads), (32 * 32, 4 * 32 * 11));
    }

    #[test]
    fn every_step_between_columns_gets_a_wall() {
        // Heights rise one block a cell along x: a wall of one block per
        // cell boundary and row, facing -x.
        let t = tile(|i, _| 20 + i as i32);
        let quads = mesh(&t, &Colours::new());
        let walls: u64 = quads
            .iter()
            .filter(|q| q.face() == FACE_NEG_X)
            .map(|q| {
                let [t, b] = q.heights();
                q.size()[0] as u64 * (t - b) as u64
            })
            .sum();
        // Inside: 31 steps × 32 rows × 1 block; the west skirt: 32 × (21 − 10).
        assert_eq!(walls, 31 * 32 + 32 * 11);
        let (tops, _) = areas(&quads);
        assert_eq!(tops, 32 * 32);
    }

    #[test]
    fn sunken_ground_is_water_at_the_water_level() {
        let t = tile(|i, _| if i < 16 { 3 } else { 30 });
        assert_eq!(t.surface(0, 0), 11);
        assert_eq!(t.surface(20, 0), 31);
    }

    /// Water quads carry the flag that has the far pass light them as the
    /// chunks' water pass does, and only they.
    #[test]
    fn water_tops_are_lit_as_water() {
        let mut t = tile(|i, _| if i < 16 { 3 } else { 30 });
        for c in t.cells.iter_mut().filter(|c| c.ground < 10) {
            c.top = BlockId::WATER;
        }
        let quads = mesh(&t, &Colours::new());
        let tops: Vec<_> = quads.iter().filter(|q| q.face() == FACE_TOP).collect();
        assert_eq!(tops.len(), 2);
        for q in tops {
            assert_eq!(q.water(), q.cell()[0] < 16, "top at {:?}", q.cell());
        }
        // Sides too: the flag follows the block.
        assert!(quads.iter().all(|q| q.water() == (q.0[3] == BlockId::WATER.0 as u32)));
    }
}
