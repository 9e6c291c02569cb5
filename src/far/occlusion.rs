//! Far tiles hidden behind nearer far terrain.
//!
//! A horizon over azimuth: bins around the eye, each holding the steepest
//! slope (height over distance) below which every line of sight in the bin
//! is proven blocked. Tiles are taken nearest first. A tile drawn whole
//! blocks, in every bin the footprint of one of its [`PARTS`]² parts spans
//! entirely, each line of sight that passes over that part below the
//! part's lowest top: every cell is a column up to its top, with sides
//! where a neighbour is lower and skirts at the tile's edges, so such a
//! line meets a face. (A whole tile's lowest top is most often a valley's,
//! which hides little; its parts each keep their own.) A tile is hidden
//! when, in every bin its footprint touches, its highest point lies below
//! what nearer terrain proved.
//!
//! Neighbouring tiles meet inside a bin, which neither spans entirely: a
//! bin also keeps the best occluder reaching in from each of its edges, and
//! where the two meet they cover it at the lower of their slopes.
//!
//! Only proofs count: an occluder raises the horizon only for tiles wholly
//! farther than it (it enters the horizon once the walk reaches them), and
//! a tile the chunks may show through (one meeting the chunk range, whose
//! fragments there are discarded for the chunks' own, caves included)
//! hides nothing. A tile the eye stands over is neither hidden nor hiding.
//!
//! The chunks hide far terrain too, by their drawn blocks ([`Wall`]): a
//! quarter of a chunk column whose every column is opaque through a band
//! of heights blocks each line of sight that passes over it inside the
//! band, for it meets an opaque block there; the first opaque block such a
//! line meets from the eye has a face toward the open cell before it,
//! which the chunk pass draws over far terrain. A line to a far point runs
//! down from the eye no lower than toward the floor (the tiles' common
//! bottom) at the tile's nearest distance, so a wall whose band starts
//! above the floor enters the horizon only for tiles far enough that
//! every such line passes over it inside its band. Caves and tunnels
//! break the bands, and only drawn chunks count.

use super::clipmap::TileKey;
use rustc_hash::FxHashMap;

/// Azimuth bins around the eye.
pub const BINS: usize = 1024;
/// Parts along a tile's edge, each an occluder of its own.
pub const PARTS: usize = 2;

/// Where the drawn chunks are opaque through a band of heights: every
/// column of the square of edge `size` from `origin` (x, z) holds opaque
/// blocks at every height from `bottom` up to `top` (exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wall {
    pub origin: [i64; 2],
    pub size: i64,
    pub bottom: i32,
    pub top: i32,
}

/// The drawn chunk columns' bands of opaque heights, quarter by quarter
/// (16 × 16 columns, row-major with x fastest), kept as chunks are drawn
/// and leave: the walls of [`visible`].
#[derive(Default)]
pub struct SolidColumns {
    columns: Vec<SolidColumn>,
    /// Where each chunk column (x, z) lies in `columns`.
    at: FxHashMap<[i32; 2], usize>,
}

/// Each quarter's runs [bottom, top), lowest first, and the runs chosen
/// for the last eye height asked, with the eye heights (above the first,
/// up to the second) for which they stay chosen.
struct SolidColumn {
    key: [i32; 2],
    runs: [Vec<[i32; 2]>; 4],
    chosen: std::cell::Cell<Chosen>,
}

/// The eye heights a choice holds for, and each quarter's run chosen.
type Chosen = ([f64; 2], [Option<[i32; 2]>; 4]);

/// Chosen for no eye yet.
const UNCHOSEN: Chosen = ([f64::INFINITY, f64::NEG_INFINITY], [None; 4]);

impl SolidColumn {
    /// Of each quarter's runs starting below the eye (the only ones a line
    /// of sight down to far terrain can pass through), the highest.
    fn choose(&self, eye_y: f64) -> [Option<[i32; 2]>; 4] {
        let ([lo, hi], chosen) = self.chosen.get();
        if lo < eye_y && eye_y <= hi {
            return chosen;
        }
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        let chosen = self.runs.each_ref().map(|runs| {
            let below = runs.partition_point(|r| (r[0] as f64) < eye_y);
            if let Some(next) = runs.get(below) {
                hi = hi.min(next[0] as f64);
            }
            let run = below.checked_sub(1).map(|i| runs[i]);
            if let Some([bottom, _]) = run {
                lo = lo.max(bottom as f64);
            }
            run
        });
        self.chosen.set(([lo, hi], chosen));
        chosen
    }
}

impl SolidColumns {
    /// Sets chunk column `column`'s runs from its drawn chunks, lowest
    /// first: each chunk's height (in chunks) and
    /// [`crate::world::chunk::Chunk::solid_rows`]. A chunk not drawn ends
    /// every run.
    pub fn set(&mut self, column: [i32; 2], chunks: impl IntoIterator<Item = (i32, [u32; 4])>) {
        const SIZE: i32 = crate::world::coords::CHUNK_SIZE as i32;
        let mut runs: [Vec<[i32; 2]>; 4] = Default::default();
        let mut open: [Option<i32>; 4] = [None; 4];
        let mut next = None;
        let close = |open: &mut [Option<i32>; 4], runs: &mut [Vec<[i32; 2]>; 4], q: usize, at: i32| {
            if let Some(bottom) = open[q].take() {
                runs[q].push([bottom, at]);
            }
        };
        for (cy, rows) in chunks {
            let base = cy.saturating_mul(SIZE);
            if next != Some(base) {
                for q in 0..4 {
                    close(&mut open, &mut runs, q, next.unwrap_or(base));
                }
            }
            for (q, &r) in rows.iter().enumerate() {
                // Run by run: the ones or zeros from bit b on.
                let mut b = 0u32;
                while b < SIZE as u32 {
                    let rest = r >> b;
                    let len = if open[q].is_some() { rest.trailing_ones() } else { rest.trailing_zeros() };
                    let end = (b + len).min(SIZE as u32);
                    if end == SIZE as u32 {
                        break;
                    }
                    match open[q] {
                        Some(_) => close(&mut open, &mut runs, q, base + end as i32),
                        None => open[q] = Some(base + end as i32),
                    }
                    b = end;
                }
            }
            next = Some(base.saturating_add(SIZE));
        }
        for q in 0..4 {
            close(&mut open, &mut runs, q, next.unwrap_or(0));
        }
        match (self.at.get(&column).copied(), runs.iter().all(Vec::is_empty)) {
            (Some(i), true) => {
                self.at.remove(&column);
                self.columns.swap_remove(i);
                if let Some(moved) = self.columns.get(i) {
                    self.at.insert(moved.key, i);
                }
            }
            (Some(i), false) => {
                self.columns[i].runs = runs;
                self.columns[i].chosen.set(UNCHOSEN);
            }
            (None, true) => {}
            (None, false) => {
                self.at.insert(column, self.columns.len());
                self.columns.push(SolidColumn { key: column, runs, chosen: std::cell::Cell::new(UNCHOSEN) });
            }
        }
    }

    /// The walls for an eye at height `eye_y`: each quarter's highest run
    /// starting below the eye. A column chooses again only when it
    /// changed or the eye passed one of its runs' bottoms.
    pub fn walls(&self, eye_y: f64) -> Vec<Wall> {
        const SIZE: i64 = crate::world::coords::CHUNK_SIZE_I64;
        let mut out = Vec::with_capacity(self.columns.len() * 4);
        for c in &self.columns {
            let [x, z] = c.key.map(|v| v as i64 * SIZE);
            for (q, run) in c.choose(eye_y).into_iter().enumerate() {
                let Some([bottom, top]) = run else { continue };
                let origin = [x + (q % 2) as i64 * SIZE / 2, z + (q / 2) as i64 * SIZE / 2];
                out.push(Wall { origin, size: SIZE / 2, bottom, top });
            }
        }
        out
    }
}

/// A far tile that passed every other test this frame.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    pub key: TileKey,
    /// The lowest top of the cells of each part (row-major, x fastest),
    /// and the lowest and highest points of the tile's quads.
    pub part_min: [i32; PARTS * PARTS],
    pub bottom: i32,
    pub top_max: i32,
    /// Whether it is drawn whole, so that it may hide what lies behind it.
    pub whole: bool,
}

/// The footprint of a tile seen from the eye: its azimuth span and its
/// nearest and farthest horizontal distance.
struct Seen {
    azimuth: [f64; 2],
    near: f64,
    far: f64,
}

fn seen(key: TileKey, eye: [f64; 2]) -> Option<Seen> {
    let [x0, z0] = key.origin().map(|v| v as f64);
    seen_square([x0, z0], key.blocks() as f64, eye)
}

/// [`Seen`] of the square from `[x0, z0]` of edge `b`, its span in bin
/// coordinates; None when the eye stands over it.
fn seen_square([x0, z0]: [f64; 2], b: f64, eye: [f64; 2]) -> Option<Seen> {
    let dx = (x0 - eye[0]).max(eye[0] - (x0 + b)).max(0.0);
    let dz = (z0 - eye[1]).max(eye[1] - (z0 + b)).max(0.0);
    // Square roots, not hypot (ten times slower), nudged outward: `near`
    // must not exceed the true distance nor `far` fall short of it.
    let near = (dx * dx + dz * dz).sqrt() * (1.0 - 1e-9);
    if near <= 0.0 {
        return None;
    }
    let corners = [[x0, z0], [x0 + b, z0], [x0, z0 + b], [x0 + b, z0 + b]].map(|[x, z]| [x - eye[0], z - eye[1]]);
    let centre = turn(z0 + b / 2.0 - eye[1], x0 + b / 2.0 - eye[0]);
    let (mut lo, mut hi, mut far) = (0.0f64, 0.0f64, 0.0f64);
    for [dx, dz] in corners {
        // Relative to the centre's bearing: the eye lies outside the
        // square, so its span is under half a turn and no corner wraps.
        let mut d = turn(dz, dx) - centre;
        if d > 2.0 {
            d -= 4.0;
        } else if d <= -2.0 {
            d += 4.0;
        }
        lo = lo.min(d);
        hi = hi.max(d);
        far = far.max(dx * dx + dz * dz);
    }
    let far = far.sqrt() * (1.0 + 1e-9);
    let bin = BINS as f64 / 4.0;
    Some(Seen { azimuth: [(centre + lo) * bin, (centre + hi) * bin], near, far })
}

impl Seen {
    /// The flattest slope a line of sight can have and still pass under a
    /// height `rise` above the eye somewhere over the footprint.
    fn flattest_under(&self, rise: f64) -> f64 {
        rise / if rise >= 0.0 { self.far } else { self.near }
    }
}

/// The bearing of (dx, dz) as a quarter-turn count in [0, 4), measured
/// along the diamond |dx| + |dz| = 1 rather than the circle: monotone in
/// the true angle, so a bin is still a wedge of bearings, and free of
/// trigonometry (tens of thousands of corners a frame).
fn turn(dz: f64, dx: f64) -> f64 {
    let s = dx.abs() + dz.abs();
    if s == 0.0 {
        return 0.0;
    }
    match (dx >= 0.0, dz >= 0.0) {
        (true, true) => dz / s,
        (false, true) => 1.0 - dx / s,
        (false, false) => 2.0 - dz / s,
        (true, false) => 3.0 + dx / s,
    }
}

/// Which of `tiles` are visible from `eye` (x, height, z): false only for
/// a tile the horizon proves hidden, by tiles drawn whole or by `walls`.
pub fn visible(eye: [f64; 3], tiles: &[Candidate], walls: &[Wall]) -> Vec<bool> {
    let [ex, ey, ez] = eye;
    // Below a tile's lowest face (its skirts reach the water level and no
    // lower) nothing is drawn, so a line of sight passing there is not
    // blocked. With the eye and every point looked at no lower than every
    // tile's bottom, no line of sight passes there; otherwise prove nothing.
    let floor = tiles.iter().map(|t| t.bottom).max().unwrap_or(i32::MIN);
    if ey < floor as f64 || tiles.iter().any(|t| t.bottom < floor) {
        return vec![true; tiles.len()];
    }
    // Each tile with the steepest line of sight to any point of it.
    let mut order: Vec<(usize, Seen, f64)> = tiles
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let s = seen(t.key, [ex, ez])?;
            let rise = t.top_max as f64 - ey;
            let steepest = rise / if rise >= 0.0 { s.near } else { s.far };
            Some((i, s, steepest))
        })
        .collect();
    order.sort_unstable_by(|a, b| a.1.near.total_cmp(&b.1.near));
    // An occluder blocking no line flatter than this hides nothing: most
    // of the ground around the eye, whose spans are the widest.
    let lowest = order.iter().map(|o| o.2).fold(f64::INFINITY, f64::min);
    // Nor does one whose bearings no tile asked about shares (the tiles
    // are those in the frustum): the bins the tiles touch, counted.
    let mut asked = vec![0u32; BINS + 1];
    for (_, s, _) in &order {
        let [a0, a1] = s.azimuth;
        for k in a0.floor() as i64..=a1.floor() as i64 {
            asked[Horizon::index(k) + 1] = 1;
        }
    }
    for k in 0..BINS {
        asked[k + 1] += asked[k];
    }
    let touches = |[a0, a1]: [f64; 2]| {
        let (k0, k1) = (a0.floor() as i64, a1.floor() as i64);
        if k1 - k0 + 1 >= BINS as i64 {
            return true;
        }
        let (i0, i1) = (Horizon::index(k0), Horizon::index(k1));
        let count = |from: usize, to: usize| asked[to + 1] - asked[from];
        if i0 <= i1 {
            count(i0, i1) > 0
        } else {
            count(i0, BINS - 1) + count(0, i1) > 0
        }
    };
    // Every part of every tile drawn whole, farthest point first out. A
    // part of a tile found hidden enters too: it lies where nearer terrain
    // already blocks more than it could, so it changes no answer.
    let mut occluders: Vec<Occluder> = Vec::new();
    for t in tiles.iter().filter(|t| t.whole) {
        let [x0, z0] = t.key.origin().map(|v| v as f64);
        let b = t.key.blocks() as f64 / PARTS as f64;
        for (k, &top) in t.part_min.iter().enumerate() {
            let corner = [x0 + (k % PARTS) as f64 * b, z0 + (k / PARTS) as f64 * b];
            let Some(p) = seen_square(corner, b, [ex, ez]) else { continue };
            // The flattest slope a line of sight can have and still pass
            // under the part's lowest top somewhere over it.
            let slope = p.flattest_under(top as f64 - ey);
            if slope > lowest && touches(p.azimuth) {
                occluders.push(Occluder { far: p.far, slope, span: p.azimuth });
            }
        }
    }
    for w in walls.iter().filter(|w| (w.bottom as f64) < ey) {
        // Below the eye a wall's slope is at most its rise over the
        // distance to its centre (its nearest point is nearer): most are
        // ground around the eye and leave here, before their footprint.
        let rise = w.top as f64 - ey;
        let half = w.size as f64 / 2.0;
        let [cx, cz] = [w.origin[0] as f64 + half - ex, w.origin[1] as f64 + half - ez];
        if rise < 0.0 && rise / (cx * cx + cz * cz).sqrt() <= lowest {
            continue;
        }
        let Some(p) = seen_square(w.origin.map(|v| v as f64), w.size as f64, [ex, ez]) else { continue };
        let slope = p.flattest_under(rise);
        if slope <= lowest || !touches(p.azimuth) {
            continue;
        }
        // A line to a tile whose nearest point is `d` away passes over the
        // wall no lower than ey − (ey − floor)·far/d: inside the band from
        // d = far·(ey − floor)/(ey − bottom) on.
        let depth = (ey - floor as f64) / (ey - w.bottom as f64);
        let enters = if w.bottom <= floor { p.far } else { p.far * depth * (1.0 + 1e-9) };
        occluders.push(Occluder { far: enters, slope, span: p.azimuth });
    }
    occluders.sort_unstable_by(|a, b| a.far.total_cmp(&b.far));
    let mut next = occluders.iter().peekable();
    let mut horizon = Horizon::new();
    let mut out = vec![true; tiles.len()];
    for (i, s, steepest) in order {
        // Occluders enter once the walk is wholly past them.
        while let Some(o) = next.next_if(|o| o.far <= s.near) {
            horizon.raise(o.span, o.slope);
        }
        let [a0, a1] = s.azimuth;
        if (a0.floor() as i64..=a1.floor() as i64).all(|k| horizon.blocked(k) > steepest) {
            out[i] = false;
        }
    }
    out
}

/// A part of a tile drawn whole, or a wall.
struct Occluder {
    /// It enters the horizon for tiles whose nearest point is this far.
    far: f64,
    slope: f64,
    /// The footprint's span, in unwrapped bin coordinates.
    span: [f64; 2],
}

/// Per bin: the slope below which it is blocked where one occluder spans
/// it entirely; and the best occluders reaching in from its left edge (to
/// a fraction of the bin) and from its right edge (from a fraction).
struct Horizon {
    whole: Vec<f64>,
    left: Vec<(f64, f64)>,
    right: Vec<(f64, f64)>,
}

impl Horizon {
    fn new() -> Horizon {
        let none = (0.0, f64::NEG_INFINITY);
        Horizon {
            whole: vec![f64::NEG_INFINITY; BINS],
            left: vec![none; BINS],
            right: vec![(1.0, f64::NEG_INFINITY); BINS],
        }
    }

    fn index(k: i64) -> usize {
        k.rem_euclid(BINS as i64) as usize
    }

    /// Lines of sight in `span` flatter than `slope` are blocked.
    fn raise(&mut self, [a0, a1]: [f64; 2], slope: f64) {
        let (k0, k1) = (a0.floor() as i64, a1.floor() as i64);
        if k0 == k1 {
            return;
        }
        let from = a0 - k0 as f64;
        if from == 0.0 {
            let w = &mut self.whole[Self::index(k0)];
            *w = w.max(slope);
        } else {
            let r = &mut self.right[Self::index(k0)];
            if slope > r.1 {
                *r = (from, slope);
            }
        }
        for k in k0 + 1..k1 {
            let w = &mut self.whole[Self::index(k)];
            *w = w.max(slope);
        }
        let reach = a1 - k1 as f64;
        let l = &mut self.left[Self::index(k1)];
        if reach > 0.0 && slope > l.1 {
            *l = (reach, slope);
        }
    }

    /// The slope below which every line of sight in bin `k` is blocked.
    fn blocked(&self, k: i64) -> f64 {
        let i = Self::index(k);
        let (l, r) = (self.left[i], self.right[i]);
        let met = if l.0 >= r.0 { l.1.min(r.1) } else { f64::NEG_INFINITY };
        self.whole[i].max(met)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(level: u8, x: i32, z: i32, top: [i32; 2]) -> Candidate {
        Candidate {
            key: TileKey { level, x, z },
            part_min: [top[0]; PARTS * PARTS],
            bottom: 64,
            top_max: top[1],
            whole: true,
        }
    }

    /// A ridge of level-2 tiles (256 blocks) east of the eye, and tiles
    /// behind it on level 4 (1 024 blocks).
    fn scene(ridge: i32, behind: i32) -> Vec<Candidate> {
        let mut tiles: Vec<Candidate> = (-3..3).map(|z| tile(2, 2, z, [ridge, ridge + 4])).collect();
        tiles.push(tile(4, 2, -1, [behind - 8, behind]));
        tiles
    }

    #[test]
    fn a_ridge_hides_lower_land_behind_it_and_not_higher() {
        let eye = [10.0, 80.0, 10.0];
        // The ridge at 200 from 512 to 768 blocks out; land at 150 from 2 048 out.
        let v = visible(eye, &scene(200, 150), &[]);
        assert!(v[..6].iter().all(|&v| v), "the ridge itself is seen");
        assert!(!v[6], "land lower than the ridge's line of sight is hidden");
        // A mountain behind it rising above the line over the ridge shows.
        let v = visible(eye, &scene(200, 900), &[]);
        assert!(v[6], "land above the ridge's line of sight is seen");
        // Looking down from above the ridge, everything shows.
        let v = visible([10.0, 400.0, 10.0], &scene(200, 150), &[]);
        assert!(v.iter().all(|&v| v));
    }

    #[test]
    fn from_below_the_tiles_bottom_nothing_is_proven() {
        // Under water, a line of sight can pass beneath the ridge's skirts,
        // where nothing is drawn.
        assert!(visible([10.0, 60.0, 10.0], &scene(200, 150), &[]).iter().all(|&v| v));
        // Nor when some tile reaches lower than the others.
        let mut tiles = scene(200, 150);
        tiles[6].bottom = 40;
        assert!(visible([10.0, 80.0, 10.0], &tiles, &[]).iter().all(|&v| v));
    }

    #[test]
    fn a_ridge_the_chunks_may_show_through_hides_nothing() {
        let mut tiles = scene(200, 150);
        for t in &mut tiles[..6] {
            t.whole = false;
        }
        assert!(visible([10.0, 80.0, 10.0], &tiles, &[]).iter().all(|&v| v));
    }

    #[test]
    fn a_gap_in_the_ridge_shows_what_lies_behind_it() {
        let eye = [10.0, 80.0, 10.0];
        let mut tiles = scene(200, 150);
        // The ridge tile straight east of the eye (tile z 0: blocks 0..256) is low.
        tiles[3] = tile(2, 2, 0, [64, 66]);
        assert!(visible(eye, &tiles, &[])[6]);
    }

    #[test]
    fn occluders_hide_only_what_lies_wholly_behind_them() {
        // One tall part (the tile's north-east one, from block 512 + 256
        // / PARTS east, 0 south) in an otherwise sunken tile; a low tile on
        // its bearing whose nearest point is nearer than the part's
        // farthest may stand in front of it.
        let eye = [10.0, 80.0, 10.0];
        let mut wall = tile(2, 2, 0, [-1000, 304]);
        wall.part_min[PARTS - 1] = 300;
        let v = visible(eye, &[wall, tile(0, 11, 0, [60, 70])], &[]);
        assert!(v[1], "a tile overlapping the occluder's depth is not proven hidden");
        // Wholly behind it, the same tile is.
        let v = visible(eye, &[wall, tile(0, 20, 0, [60, 70])], &[]);
        assert!(!v[1], "a tile wholly behind the part is hidden");
    }

    #[test]
    fn tiles_meeting_on_a_line_of_sight_cover_it_together() {
        // The eye by the line z = 0 where two ridge tiles meet: neither
        // spans the bin that line falls in, both together do.
        let tiles = scene(200, 150);
        assert!(!visible([10.0, 80.0, 0.3], &tiles, &[])[6]);
    }

    #[test]
    fn the_horizon_wraps_around_west() {
        // A ridge due west straddles azimuth ±π.
        let eye = [0.0, 80.0, 0.5];
        let mut tiles: Vec<Candidate> = (-3..3).map(|z| tile(2, -3, z, [200, 204])).collect();
        tiles.push(tile(4, -3, -1, [100, 150]));
        let v = visible(eye, &tiles, &[]);
        assert!(!v[6], "land behind a ridge across the seam of the bins is hidden");
    }

    /// A row of chunk walls from x 100 to 116, z −208 to 208, opaque from
    /// `bottom` to 200.
    fn wall_row(bottom: i32) -> Vec<Wall> {
        (-13..13).map(|k| Wall { origin: [100, k * 16], size: 16, bottom, top: 200 }).collect()
    }

    #[test]
    fn the_chunks_walls_hide_lower_land_behind_them() {
        let eye = [10.0, 80.0, 10.0];
        let behind = [tile(4, 2, -1, [142, 150])];
        assert!(visible(eye, &behind, &[])[0], "nothing hides it without the walls");
        assert!(!visible(eye, &behind, &wall_row(64))[0], "walls from the floor hide it");
        // A wall opaque only from above the eye proves nothing.
        assert!(visible(eye, &behind, &wall_row(81))[0], "a wall above the eye proves nothing");
        // A tile rising over the walls' line of sight (slope 1.0 up to 200 blocks
        // high 116 out, 1.9 up to 4 000 high 2 038 out) shows.
        assert!(visible(eye, &[tile(4, 2, -1, [142, 4000])], &wall_row(64))[0]);
    }

    #[test]
    fn runs_cross_chunks_and_stop_where_a_chunk_is_not_drawn() {
        // Column (0, 0): the chunk at y 2 (blocks 64..96) opaque from 70 up
        // in every quarter; the one above opaque for five blocks in quarter
        // 0, blocks 0, 1 and 3 in quarter 2, wholly in quarter 3; the one
        // at y 4 not drawn; the one at y 5 opaque at its bottom in quarter 3.
        let mut s = SolidColumns::default();
        s.set([0, 0], [(2, [!0u32 << 6; 4]), (3, [0b11111, 0, 0b1011, !0]), (5, [0, 0, 0, 1])]);
        let mut w = s.walls(1000.0);
        w.sort_by_key(|w| (w.origin[1], w.origin[0]));
        let bands: Vec<_> = w.iter().map(|w| (w.origin, [w.bottom, w.top])).collect();
        assert_eq!(
            bands,
            vec![([0, 0], [70, 101]), ([16, 0], [70, 96]), ([0, 16], [99, 100]), ([16, 16], [160, 161])],
            "the highest run below the eye in each quarter"
        );
        assert!(w.iter().all(|w| w.size == 16));
        // With the eye at 98: quarter 2's highest run starting below it is
        // 70..98, and quarter 3's is 70..128.
        let w = s.walls(98.0);
        let q = |o: [i64; 2]| w.iter().find(|w| w.origin == o).map(|w| [w.bottom, w.top]);
        assert_eq!(q([0, 16]), Some([70, 98]));
        assert_eq!(q([16, 16]), Some([70, 128]));
        // Set again with nothing drawn, the column has no walls; the
        // others keep theirs, and change when set again.
        s.set([1, 0], [(2, [!0; 4])]);
        s.set([2, 0], [(2, [1; 4])]);
        s.set([0, 0], []);
        let bands = |s: &SolidColumns| {
            let mut w: Vec<_> = s.walls(1000.0).iter().map(|w| (w.origin, w.top)).collect();
            w.sort();
            w
        };
        let expect = |tops: [(i64, i32); 2]| {
            let mut w: Vec<_> = tops
                .iter()
                .flat_map(|&(x, top)| [[x, 0], [x + 16, 0], [x, 16], [x + 16, 16]].map(|o| (o, top)))
                .collect();
            w.sort();
            w
        };
        assert_eq!(bands(&s), expect([(32, 96), (64, 65)]));
        s.set([2, 0], [(2, [3; 4])]);
        assert_eq!(bands(&s), expect([(32, 96), (64, 66)]));
        s.set([1, 0], []);
        s.set([2, 0], []);
        assert!(s.walls(1000.0).is_empty());
    }

    #[test]
    fn a_wall_above_the_floor_hides_only_what_is_far_enough_behind_it() {
        // Eye at 80, floor 64; walls 90 to 106 blocks east, opaque from 72
        // to 200. A line toward the floor at distance d passes the walls'
        // far edge (about 110 blocks out on the tile's bearing) at
        // 80 − 16 × 110 / d: inside the band from about 220 blocks on.
        let eye = [10.0, 80.0, 10.0];
        let walls = wall_row(72);
        assert!(visible(eye, &[tile(0, 2, 0, [64, 70])], &walls)[0], "118 blocks out: a line may pass under the band");
        assert!(!visible(eye, &[tile(0, 6, 0, [64, 70])], &walls)[0], "374 blocks out: hidden");
        // A wall whose band starts at the eye's height proves nothing.
        assert!(visible(eye, &[tile(0, 6, 0, [64, 70])], &wall_row(80))[0]);
    }

    /// The runs equal a bit-by-bit walk's over pseudo-random rows, with
    /// gaps between the chunks drawn.
    #[test]
    fn runs_equal_a_walk_bit_by_bit() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200 {
            let mut chunks: Vec<(i32, [u32; 4])> = Vec::new();
            for y in -3..4 {
                if next() % 5 == 0 {
                    continue;
                }
                // Long runs of ones, some rows all ones or all zeros.
                let rows = [0; 4].map(|_| match next() % 4 {
                    0 => u32::MAX,
                    1 => 0,
                    _ => (next() | next() >> 3 | next() >> 7) as u32,
                });
                chunks.push((y, rows));
            }
            let mut s = SolidColumns::default();
            s.set([0, 0], chunks.clone());
            // The walk: every height of every drawn chunk, in order.
            let mut expect: [Vec<[i32; 2]>; 4] = Default::default();
            for (q, runs) in expect.iter_mut().enumerate() {
                let mut open: Option<i32> = None;
                let mut last = None;
                for &(cy, rows) in &chunks {
                    if last != Some(cy - 1) {
                        if let Some(b) = open.take() {
                            runs.push([b, last.unwrap_or(0) * 32 + 32]);
                        }
                    }
                    for b in 0..32 {
                        let y = cy * 32 + b;
                        match (rows[q] >> b & 1 == 1, open) {
                            (true, None) => open = Some(y),
                            (false, Some(o)) => {
                                runs.push([o, y]);
                                open = None;
                            }
                            _ => {}
                        }
                    }
                    last = Some(cy);
                }
                if let Some(b) = open {
                    runs.push([b, last.unwrap_or(0) * 32 + 32]);
                }
            }
            let got = s.at.get(&[0, 0]).map(|&i| s.columns[i].runs.clone()).unwrap_or_default();
            assert_eq!(got, expect, "{chunks:?}");
        }
    }
}
