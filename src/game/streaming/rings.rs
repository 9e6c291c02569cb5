//! The geometry of streaming: which chunk positions are in range of a
//! centre, and in what order they are wanted (rings of Chebyshev distance,
//! nearest first, as in the UFMG paper).
//!
//! Horizontally the range is a disc, not a square: fog is radial and ends
//! half a chunk inside the render distance, so the corners of a square
//! (a fifth of its area) would be generated, meshed and held but never seen.
//! A column is in range when its nearest point to the centre column lies
//! less than `r` chunks away.

use crate::world::coords::ChunkPos;

pub const MIN_RENDER_DISTANCE: i32 = 2;
pub const MAX_RENDER_DISTANCE: i32 = 64;
/// Vertical reach in chunks above and below the player.
pub const MAX_VERTICAL: i32 = 10;

/// A chunk offset (dx, dy, dz) from the streaming centre.
pub type Offset = (i32, i32, i32);

/// Vertical reach for a render distance.
pub fn vertical(r: i32) -> i32 {
    r.min(MAX_VERTICAL)
}

/// Chunks within `r` horizontally and `vertical(r)` vertically of `centre`, nearest ring first.
pub fn rings(centre: ChunkPos, r: i32) -> Vec<ChunkPos> {
    ring_offsets(r, vertical(r), 0).iter().map(|&o| offset(centre, o)).collect()
}

/// Offsets within (r, v) of the centre, with the disc grown by `grow`
/// chunks in every direction, nearest ring first. Sorting is done once per
/// render distance, not on every chunk crossing.
pub fn ring_offsets(r: i32, v: i32, grow: i32) -> Vec<Offset> {
    let h = r + grow;
    let mut out = Vec::with_capacity(((2 * h + 1) * (2 * h + 1) * (2 * v + 1)) as usize);
    for dz in -h..=h {
        for dy in -v..=v {
            for dx in -h..=h {
                if in_disc(dx as i64, dz as i64, r, grow) {
                    out.push((dx, dy, dz));
                }
            }
        }
    }
    out.sort_by_key(|&(dx, dy, dz)| (dx.abs().max(dy.abs()).max(dz.abs()), dx * dx + dy * dy + dz * dz, dx, dy, dz));
    out
}

/// The ring just outside render distance `r`: chunks whose data the edge's
/// meshes need, nearest first.
pub fn edge_offsets(r: i32) -> Vec<Offset> {
    ring_offsets(r, vertical(r) + 1, 1)
        .into_iter()
        .filter(|&(dx, dy, dz)| dy.abs() > vertical(r) || !in_disc(dx as i64, dz as i64, r, 0))
        .collect()
}

pub fn offset(c: ChunkPos, (dx, dy, dz): Offset) -> ChunkPos {
    ChunkPos::new(c.x.saturating_add(dx), c.y.saturating_add(dy), c.z.saturating_add(dz))
}

/// One streaming range, a centre and a render distance: every owner of
/// per-chunk state (requests, store, light, meshes) asks it which band a
/// chunk is in, so a recentre makes one decision that they all follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub centre: ChunkPos,
    pub render_distance: i32,
}

impl Range {
    pub fn new(centre: ChunkPos, render_distance: i32) -> Range {
        Range { centre, render_distance }
    }

    /// Drawn: within the render distance.
    pub fn renders(&self, p: ChunkPos) -> bool {
        within(p, self.centre, self.render_distance)
    }

    /// Held: the render range and one ring more, for the edge's meshes.
    pub fn holds(&self, p: ChunkPos) -> bool {
        within_data(p, self.centre, self.render_distance)
    }

    /// Meshed with light.
    pub fn lights(&self, p: ChunkPos) -> bool {
        within_light(p, self.centre, self.render_distance)
    }

    /// Lit: the chunks meshed with light and their neighbours.
    pub fn holds_light(&self, p: ChunkPos) -> bool {
        within_light_data(p, self.centre, self.render_distance)
    }

    /// The chunk at offset `o` from the centre.
    pub fn at(&self, o: Offset) -> ChunkPos {
        offset(self.centre, o)
    }
}

/// Within render distance `r` (horizontal `r`, vertical `vertical(r)`).
pub fn within(a: ChunkPos, b: ChunkPos, r: i32) -> bool {
    within_hv(a, b, r, vertical(r), 0)
}

/// Within the data range: one more ring on every side than the render
/// distance, so the chunks at the edge have all their neighbours for meshing.
pub fn within_data(a: ChunkPos, b: ChunkPos, r: i32) -> bool {
    within_hv(a, b, r, vertical(r) + 1, 1)
}

/// Light is kept for a smaller range than the render distance (192 blocks
/// out, 96 up or down): dense light takes 64 KiB a chunk, one light thread
/// lights every chunk in range, and farther out fog hides most of what
/// light changes. Farther chunks are meshed in full sky, so a cave mouth
/// beyond this range shows its walls lit as if by day.
pub const LIGHT_RADIUS: i32 = 6;
pub const LIGHT_VERTICAL: i32 = 3;

/// Meshed with light (within the render range too).
fn within_light(a: ChunkPos, b: ChunkPos, r: i32) -> bool {
    within(a, b, r) && within_hv(a, b, LIGHT_RADIUS, LIGHT_VERTICAL, 0)
}

/// Lit: the chunks meshed with light and their neighbours.
fn within_light_data(a: ChunkPos, b: ChunkPos, r: i32) -> bool {
    within_data(a, b, r) && within_hv(a, b, LIGHT_RADIUS, LIGHT_VERTICAL + 1, 1)
}

/// Offsets of the lit range, for walking it on a recentre (sorted once).
pub fn light_data_offsets() -> &'static [Offset] {
    static OFFSETS: std::sync::LazyLock<Vec<Offset>> =
        std::sync::LazyLock::new(|| ring_offsets(LIGHT_RADIUS, LIGHT_VERTICAL + 1, 1));
    &OFFSETS
}

fn within_hv(a: ChunkPos, b: ChunkPos, r: i32, v: i32, grow: i32) -> bool {
    let d = |p: i32, q: i32| (p as i64 - q as i64).abs();
    d(a.y, b.y) <= v as i64 && in_disc(d(a.x, b.x), d(a.z, b.z), r, grow)
}

/// Whether a column `dx, dz` chunks from the centre column can hold a point
/// nearer than `r` chunks to an eye anywhere in the centre column (inside
/// the square of half-width `r`, and the whole square for `r` ≤ 3). With
/// `grow` = 1: whether the column or one of its eight neighbours can.
/// Columns of the data range for render distance `r` (the disc grown by
/// one), counted without listing them.
pub fn data_columns(r: i32) -> u64 {
    let h = r as i64 + 1;
    (-h..=h).map(|dz| (-h..=h).filter(|&dx| in_disc(dx, dz, r, 1)).count() as u64).sum()
}

fn in_disc(dx: i64, dz: i64, r: i32, grow: i32) -> bool {
    let a = (dx.abs() - 1 - grow as i64).max(0);
    let b = (dz.abs() - 1 - grow as i64).max(0);
    a * a + b * b < r as i64 * r as i64
}

/// The 27 positions of a chunk and its neighbours, z, then y, then x.
pub fn neighbourhood(pos: ChunkPos) -> impl Iterator<Item = ChunkPos> {
    (-1..=1).flat_map(move |dz| {
        (-1..=1).flat_map(move |dy| (-1..=1).map(move |dx| ChunkPos::new(pos.x + dx, pos.y + dy, pos.z + dz)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn rings_are_nearest_first_and_complete() {
        let r = rings(ChunkPos::new(5, 0, -5), 3);
        assert_eq!(r.len(), 7 * 7 * 7);
        assert_eq!(r[0], ChunkPos::new(5, 0, -5));
        let ring = |p: &ChunkPos| (p.x - 5).abs().max(p.y.abs()).max((p.z + 5).abs());
        assert!(r.windows(2).all(|w| ring(&w[0]) <= ring(&w[1])));
        let unique: HashSet<_> = r.iter().collect();
        assert_eq!(unique.len(), r.len());
    }

    #[test]
    fn the_edge_ring_is_exactly_the_data_range_outside_the_render_range() {
        let c = ChunkPos::new(0, 0, 0);
        let edge: HashSet<ChunkPos> = edge_offsets(3).into_iter().map(|o| offset(c, o)).collect();
        for p in rings(c, 4).into_iter().chain(rings(c, 12)) {
            let expect = within_data(p, c, 3) && !within(p, c, 3);
            assert_eq!(edge.contains(&p), expect, "{p:?}");
        }
    }

    #[test]
    fn the_data_range_is_exactly_the_neighbours_of_the_render_range() {
        let c = ChunkPos::new(0, 0, 0);
        for r in [2, 3, 7, 16, 32] {
            let data: HashSet<ChunkPos> =
                ring_offsets(r, vertical(r) + 1, 1).into_iter().map(|o| offset(c, o)).collect();
            let needed: HashSet<ChunkPos> = rings(c, r).into_iter().flat_map(neighbourhood).collect();
            assert_eq!(data, needed, "r = {r}: every chunk in range can be meshed, and no more is held");
            assert!(data.iter().all(|&p| within_data(p, c, r)));
        }
    }

    #[test]
    fn the_range_is_a_disc_that_covers_everything_the_fog_lets_through() {
        let c = ChunkPos::new(0, 0, 0);
        let r = 32;
        let n = rings(c, r).len() as f64 / (2 * vertical(r) + 1) as f64;
        let square = ((2 * r + 1) * (2 * r + 1)) as f64;
        assert!(n < 0.85 * square, "{n} columns of {square}: the corners are left out");
        // Every column with a block nearer than the fog's end to some eye
        // position in the centre column is in range.
        let fog_end = (r as f64 - 0.5) * 32.0;
        for dz in -r - 2..=r + 2 {
            for dx in -r - 2..=r + 2 {
                let gap = |d: i32| ((d.abs() - 1).max(0) * 32) as f64;
                let seen = gap(dx).hypot(gap(dz)) < fog_end;
                let p = ChunkPos::new(dx, 0, dz);
                assert!(!seen || within(p, c, r), "({dx}, {dz}) can be seen but is out of range");
            }
        }
    }

    #[test]
    fn the_neighbourhood_is_in_mesher_order() {
        let n: Vec<ChunkPos> = neighbourhood(ChunkPos::new(10, 0, 0)).collect();
        assert_eq!(n.len(), 27);
        assert_eq!(n[13], ChunkPos::new(10, 0, 0), "the centre in the middle");
        assert_eq!(n[0], ChunkPos::new(9, -1, -1));
        assert_eq!(n[1], ChunkPos::new(10, -1, -1), "x varies fastest");
    }
}
