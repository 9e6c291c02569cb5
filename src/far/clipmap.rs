//! Which far tiles a view wants: a clipmap aligned to the world grid.
//!
//! Level `k` is made of cells of `2 << k` blocks, grouped in tiles of
//! [`TILE_CELLS`]² cells. Each level covers a square around the eye of
//! half-width [`LEVEL_CELLS`] cells, snapped outward to the next level's
//! tiles; a level draws the tiles of its square that the finer level's
//! square does not cover. Because every square is snapped to the coarser
//! level's tile grid, the finer square is a union of whole coarser tiles:
//! no tile is ever cut, and the rings fit without overlap. Cells sit on
//! the world grid, not on the eye, so nothing shimmers as the eye moves;
//! only tiles at a ring's changing edge are wanted anew.
//!
//! Tiles under the chunk range are made too: the chunk range reaches only
//! so far up and down, and above or below it far terrain shows. The
//! renderer skips a tile the chunks cover whole and hides the part of one
//! they cover in part.

/// Cells along a tile's edge.
pub const TILE_CELLS: usize = 32;
/// Half the width of a level's square, in that level's cells. The ratio of
/// a cell to its distance from the eye is then roughly the same on every
/// level: a cell spans about 1/128 of its distance.
pub const LEVEL_CELLS: i64 = 128;
/// Levels 0..MAX_LEVELS: cells of 2 to 256 blocks, squares out to 49 km.
pub const MAX_LEVELS: u8 = 8;
/// The farthest horizon the game accepts, in blocks (metres).
pub const MAX_HORIZON: u32 = 32_000;

/// One far tile: level and tile coordinates in that level's tile grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileKey {
    pub level: u8,
    pub x: i32,
    pub z: i32,
}

impl TileKey {
    /// Edge of a cell of this tile, in blocks.
    pub fn cell(self) -> i64 {
        cell_blocks(self.level)
    }

    /// Edge of the tile, in blocks.
    pub fn blocks(self) -> i64 {
        tile_blocks(self.level)
    }

    /// The tile's north-west corner, in blocks.
    pub fn origin(self) -> [i64; 2] {
        [self.x as i64 * self.blocks(), self.z as i64 * self.blocks()]
    }

    /// Horizontal distance from a point to the nearest point of the tile.
    pub fn distance(self, eye: [f64; 2]) -> f64 {
        let [x0, z0] = self.origin().map(|v| v as f64);
        let b = self.blocks() as f64;
        let dx = (x0 - eye[0]).max(eye[0] - (x0 + b)).max(0.0);
        let dz = (z0 - eye[1]).max(eye[1] - (z0 + b)).max(0.0);
        dx.hypot(dz)
    }
}

pub fn cell_blocks(level: u8) -> i64 {
    2i64 << level
}

pub fn tile_blocks(level: u8) -> i64 {
    cell_blocks(level) * TILE_CELLS as i64
}

/// A square of blocks, `[min, max)` on each axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Square {
    pub min: [i64; 2],
    pub max: [i64; 2],
}

impl Square {
    fn contains_tile(&self, t: TileKey) -> bool {
        let [x0, z0] = t.origin();
        let b = t.blocks();
        x0 >= self.min[0] && z0 >= self.min[1] && x0 + b <= self.max[0] && z0 + b <= self.max[1]
    }
}

/// Level `level`'s square around the block column `eye`: half-width
/// [`LEVEL_CELLS`] cells, snapped outward to the next level's tiles.
pub fn level_square(level: u8, eye: [i64; 2]) -> Square {
    let half = LEVEL_CELLS * cell_blocks(level);
    let snap = tile_blocks(level + 1);
    Square {
        min: eye.map(|e| (e - half).div_euclid(snap) * snap),
        max: eye.map(|e| (e + half + snap - 1).div_euclid(snap) * snap),
    }
}

/// What the far view must cover: the eye's column and the horizon.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FarRange {
    /// Block column of the eye.
    pub eye: [i64; 2],
    /// Blocks out to which far terrain is drawn; 0 draws none.
    pub horizon: u32,
}

impl FarRange {
    /// Every tile the view wants, nearest first.
    pub fn tiles(&self) -> Vec<TileKey> {
        if self.horizon == 0 {
            return Vec::new();
        }
        let eye = self.eye.map(|v| v as f64 + 0.5);
        let horizon = self.horizon.min(MAX_HORIZON) as f64;
        let mut out = Vec::new();
        let mut inner: Option<Square> = None;
        for level in 0..MAX_LEVELS {
            let square = level_square(level, self.eye);
            let b = tile_blocks(level);
            for tz in square.min[1].div_euclid(b)..square.max[1].div_euclid(b) {
                for tx in square.min[0].div_euclid(b)..square.max[0].div_euclid(b) {
                    let t = TileKey { level, x: tx as i32, z: tz as i32 };
                    if inner.is_some_and(|s| s.contains_tile(t)) || t.distance(eye) >= horizon {
                        continue;
                    }
                    out.push(t);
                }
            }
            inner = Some(square);
            let reach = (eye[0] - square.min[0] as f64)
                .min(square.max[0] as f64 - eye[0])
                .min(eye[1] - square.min[1] as f64)
                .min(square.max[1] as f64 - eye[1]);
            if reach >= horizon {
                break;
            }
        }
        // Each distance once: the comparator would work it out ~20 times a tile.
        let mut keyed: Vec<(f64, TileKey)> = out.into_iter().map(|t| (t.distance(eye), t)).collect();
        keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        keyed.into_iter().map(|(_, t)| t).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn tiles(eye: [i64; 2], horizon: u32) -> Vec<TileKey> {
        FarRange { eye, horizon }.tiles()
    }

    /// Every block column out to the horizon lies in exactly one wanted tile.
    #[test]
    fn the_rings_cover_every_column_once() {
        for eye in [[0, 0], [1000, -37], [-123_456, 98_765]] {
            let tiles = tiles(eye, 6000);
            let set: HashSet<TileKey> = tiles.iter().copied().collect();
            assert_eq!(set.len(), tiles.len(), "no tile twice");
            let mut covered = 0;
            for dz in (-5990..5990).step_by(97) {
                for dx in (-5990..5990).step_by(89) {
                    let p = [eye[0] + dx, eye[1] + dz];
                    if ((dx * dx + dz * dz) as f64).sqrt() > 5900.0 {
                        continue;
                    }
                    let holders: Vec<&TileKey> = tiles
                        .iter()
                        .filter(|t| {
                            let [x0, z0] = t.origin();
                            (x0..x0 + t.blocks()).contains(&p[0]) && (z0..z0 + t.blocks()).contains(&p[1])
                        })
                        .collect();
                    assert_eq!(holders.len(), 1, "{p:?} in {holders:?}");
                    covered += holders.len();
                }
            }
            assert!(covered > 10_000);
            // Nearest first.
            let e = eye.map(|v| v as f64 + 0.5);
            assert!(tiles.windows(2).all(|w| w[0].distance(e) <= w[1].distance(e)));
        }
    }

    #[test]
    fn moving_a_little_keeps_almost_every_tile() {
        let a: HashSet<TileKey> = tiles([0, 0], 32_000).into_iter().collect();
        let b: HashSet<TileKey> = tiles([40, 0], 32_000).into_iter().collect();
        let kept = a.intersection(&b).count();
        assert!(kept * 10 >= a.len() * 9, "{kept} of {} kept", a.len());
        assert!(tiles([0, 0], 0).is_empty());
    }

    #[test]
    fn coarser_levels_lie_farther_out() {
        let tiles = tiles([5, 5], 32_000);
        let levels: HashSet<u8> = tiles.iter().map(|t| t.level).collect();
        assert!(levels.len() >= 7, "{levels:?}");
        for t in &tiles {
            // A tile of level k starts at least half the finer square out.
            if t.level > 0 {
                let d = t.distance([5.5, 5.5]);
                assert!(d >= (LEVEL_CELLS * cell_blocks(t.level - 1)) as f64 * 0.9, "{t:?} at {d}");
            }
        }
        assert!(tiles.iter().all(|t| t.distance([5.5, 5.5]) < 32_000.0));
    }
}
