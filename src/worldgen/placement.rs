//! Deterministic object placement after the Chile thesis (no stored data, no
//! random-number streams): the first step of the decoration stage.
//!
//! * **Candidates.** The world is tiled by square cells of 8 × 8 *units*; a
//!   unit is an object's spacing in blocks. Every cell holds the same 64
//!   candidate points, one per unit square, jittered but never closer than
//!   [`MIN_SPACING_SUB`] to any other point of the cell or of the cells
//!   around it (the pattern is checked on a torus, so it tiles).
//! * **Acceptance.** A candidate takes the threshold of an 8 × 8 ordered
//!   dithering (Bayer) matrix at its unit square, shifted per cell by an
//!   offset hashed from the world seed (which also places the threshold
//!   within its 1/64 step, so densities below 1/64 still come out right). It becomes an object of the first
//!   layer whose accumulated density exceeds that threshold, or of none.
//!   Because neighbouring thresholds are far apart, the accepted points of
//!   any density are spread evenly, and layers sharing one pattern never
//!   put two objects on one candidate.
//!
//! Everything is integer arithmetic on the candidate's cell and index, so
//! any area gives the same objects in any order, on any engine.

use super::params::splitmix64;

/// Candidate points per cell.
pub const PATTERN_POINTS: usize = 64;
/// A cell is `CELL_UNITS × CELL_UNITS` unit squares.
pub const CELL_UNITS: i32 = 8;
/// Points are stored in sixteenths of a unit.
pub const SUB: i32 = 16;
/// The least distance between two candidates, in sixteenths of a unit.
pub const MIN_SPACING_SUB: i32 = 12;
/// Densities are fractions of candidates in units of 1/`DENSITY_ONE`.
pub const DENSITY_ONE: u32 = 4096;

/// The 64 candidate points of a cell, in sixteenths of a unit from the
/// cell's corner; point `i` lies in unit square (`i % 8`, `i / 8`).
pub type Pattern = [[u8; 2]; PATTERN_POINTS];

fn torus_d2(a: [i32; 2], b: [i32; 2]) -> i32 {
    let span = CELL_UNITS * SUB;
    let d = |p: i32, q: i32| {
        let d = (p - q).rem_euclid(span);
        d.min(span - d)
    };
    let (dx, dz) = (d(a[0], b[0]), d(a[1], b[1]));
    dx * dx + dz * dz
}

/// The candidate pattern: modified dart throwing on a jittered grid. Each
/// unit square in turn draws positions from a fixed hash sequence until one
/// keeps [`MIN_SPACING_SUB`] to every point placed so far (on the torus);
/// the square's centre always does, so the walk ends.
pub fn pattern() -> Pattern {
    let mut placed: Vec<[i32; 2]> = Vec::with_capacity(PATTERN_POINTS);
    let mut out = [[0u8; 2]; PATTERN_POINTS];
    for (i, slot) in out.iter_mut().enumerate() {
        let (ux, uz) = ((i as i32 % CELL_UNITS) * SUB, (i as i32 / CELL_UNITS) * SUB);
        let ok = |p: [i32; 2], placed: &[[i32; 2]]| {
            placed.iter().all(|q| torus_d2(p, *q) >= MIN_SPACING_SUB * MIN_SPACING_SUB)
        };
        let mut chosen = [ux + SUB / 2, uz + SUB / 2];
        for attempt in 0..64u64 {
            let h = splitmix64(0x5EED_0000 ^ ((i as u64) << 8) ^ attempt);
            let p = [ux + (h & 15) as i32, uz + ((h >> 4) & 15) as i32];
            if ok(p, &placed) {
                chosen = p;
                break;
            }
        }
        placed.push(chosen);
        *slot = [chosen[0] as u8, chosen[1] as u8];
    }
    out
}

/// The 8 × 8 ordered-dithering matrix (values 0–63), row by row: each
/// value is as far as it can be from the values just below it.
pub fn bayer8() -> [u8; PATTERN_POINTS] {
    let mut m = [0u8; PATTERN_POINTS];
    for (i, v) in m.iter_mut().enumerate() {
        let (x, y) = (i % 8, i / 8);
        let mut r = 0usize;
        for bit in 0..3 {
            let (xb, yb) = ((x >> bit) & 1, (y >> bit) & 1);
            // The recursive Bayer construction: the 2 × 2 matrix [[0, 2], [3, 1]]
            // for each bit, the lowest bit weighing most.
            r |= (((xb ^ yb) << 1) | yb) << (2 * (2 - bit));
        }
        *v = r as u8;
    }
    m
}

/// A candidate's threshold in density units: its matrix value picks one of
/// 64 steps, and the cell's `sub` (0–63) a place within the step, so that
/// densities finer than 1/64 come out right over many cells while each
/// cell stays evenly dithered.
pub fn threshold(bayer_value: u8, sub: u32) -> u32 {
    bayer_value as u32 * (DENSITY_ONE / PATTERN_POINTS as u32) + sub
}

/// The layer a candidate becomes: the first whose accumulated density
/// exceeds its threshold.
#[inline]
pub fn layer_of(threshold: u32, densities: impl IntoIterator<Item = u32>) -> Option<usize> {
    let mut sum = 0u32;
    for (i, d) in densities.into_iter().enumerate() {
        sum += d;
        if sum > threshold {
            return Some(i);
        }
    }
    None
}

/// The hash of one cell under the world seed.
pub fn cell_hash(seed: u64, cx: i64, cz: i64) -> u64 {
    splitmix64(seed ^ splitmix64(((cx as u32 as u64) << 32) | cz as u32 as u64))
}

/// The per-cell shift of the dithering matrix (0–7 in x and z) and the
/// position within a threshold step (0–63), from the cell's hash.
pub fn cell_offset(hash: u64) -> (usize, usize, u32) {
    ((hash & 7) as usize, ((hash >> 3) & 7) as usize, ((hash >> 6) & 63) as u32)
}

/// A per-candidate variant (a tree's height): a hash of its cell's hash
/// and its index, never a draw from a random stream.
pub fn candidate_variant(cell_hash: u64, index: usize) -> u64 {
    splitmix64(cell_hash.wrapping_add(index as u64 + 1))
}

/// One candidate: its block column, its threshold and its variant hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Candidate {
    pub x: i64,
    pub z: i64,
    pub threshold: u32,
    pub variant: u64,
}

/// The candidate of the global unit square (`gx`, `gz`) at spacing `unit`
/// blocks. Every unit square holds exactly one.
pub fn candidate(pattern: &Pattern, bayer: &[u8; PATTERN_POINTS], seed: u64, unit: i64, gx: i64, gz: i64) -> Candidate {
    let cells = CELL_UNITS as i64;
    let (cx, cz) = (gx.div_euclid(cells), gz.div_euclid(cells));
    let i = (gx.rem_euclid(cells) + cells * gz.rem_euclid(cells)) as usize;
    let hash = cell_hash(seed, cx, cz);
    let (ox, oz, sub) = cell_offset(hash);
    let p = pattern[i];
    let cell = unit * cells;
    let (ux, uz) = ((i + ox) % 8, (i / 8 + oz) % 8);
    Candidate {
        x: cx * cell + p[0] as i64 * unit / SUB as i64,
        z: cz * cell + p[1] as i64 * unit / SUB as i64,
        threshold: threshold(bayer[ux + 8 * uz], sub),
        variant: candidate_variant(hash, i),
    }
}

/// The range of unit squares whose candidates can lie in blocks [b0, b1).
pub fn unit_squares(unit: i64, b0: i64, b1: i64) -> std::ops::Range<i64> {
    b0.div_euclid(unit)..(b1 - 1).div_euclid(unit) + 1
}

/// The candidates of one spacing (`unit` blocks) whose columns lie in the
/// block rectangle [x0, x1) × [z0, z1).
pub fn candidates(
    pattern: &Pattern,
    bayer: &[u8; PATTERN_POINTS],
    seed: u64,
    unit: i64,
    (x0, z0): (i64, i64),
    (x1, z1): (i64, i64),
) -> Vec<Candidate> {
    let mut out = Vec::new();
    for gz in unit_squares(unit, z0, z1) {
        for gx in unit_squares(unit, x0, x1) {
            let c = candidate(pattern, bayer, seed, unit, gx, gz);
            if c.x >= x0 && c.x < x1 && c.z >= z0 && c.z < z1 {
                out.push(c);
            }
        }
    }
    out
}

/// Least distance in blocks between two candidates at spacing `unit`:
/// [`MIN_SPACING_SUB`] sixteenths of a unit, less the rounding of both
/// points down to whole blocks (under one block per axis).
pub fn least_block_distance(unit: i64) -> f64 {
    MIN_SPACING_SUB as f64 / SUB as f64 * unit as f64 - std::f64::consts::SQRT_2
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_pattern_tiles_with_its_spacing_one_point_per_unit_square() {
        let p = pattern();
        for (i, a) in p.iter().enumerate() {
            assert_eq!((a[0] as i32 / SUB, a[1] as i32 / SUB), (i as i32 % 8, i as i32 / 8), "point {i}");
            for b in &p[i + 1..] {
                let d2 = torus_d2([a[0] as i32, a[1] as i32], [b[0] as i32, b[1] as i32]);
                assert!(d2 >= MIN_SPACING_SUB * MIN_SPACING_SUB, "{a:?} and {b:?} are too close");
            }
        }
        let jittered = p.iter().filter(|a| a[0] % 16 != 8 || a[1] % 16 != 8).count();
        assert!(jittered > 48, "most points leave their square's centre ({jittered} of 64)");
        assert_eq!(pattern(), p, "a fixed algorithm");
    }

    #[test]
    fn the_bayer_matrix_dithers_every_density_exactly() {
        let m = bayer8();
        let set: HashSet<u8> = m.iter().copied().collect();
        assert_eq!(set.len(), 64, "a permutation of 0..64");
        assert_eq!(&m[..8], &[0, 32, 8, 40, 2, 34, 10, 42], "the classic first row");
        for k in 0..=64u32 {
            let d = k * DENSITY_ONE / 64;
            let accepted = m.iter().filter(|&&b| layer_of(threshold(b, 32), [d]).is_some()).count();
            assert_eq!(accepted, k as usize, "density {k}/64");
        }
        // Every 2 × 2 block of the matrix holds one of each quarter: a
        // density of 1/4 leaves no 2 × 2 block empty.
        for by in (0..8).step_by(2) {
            for bx in (0..8).step_by(2) {
                let q: HashSet<u8> =
                    [(0, 0), (1, 0), (0, 1), (1, 1)].iter().map(|(dx, dy)| m[bx + dx + 8 * (by + dy)] / 16).collect();
                assert_eq!(q.len(), 4, "block at {bx},{by}");
            }
        }
    }

    #[test]
    fn layers_share_candidates_without_collisions() {
        let d = [DENSITY_ONE / 8, DENSITY_ONE / 4, DENSITY_ONE / 16];
        let m = bayer8();
        let mut per_layer = [0usize; 3];
        for b in m {
            if let Some(l) = layer_of(threshold(b, 17), d) {
                per_layer[l] += 1;
            }
        }
        assert_eq!(per_layer, [8, 16, 4], "each layer gets exactly its share of one cell");
    }

    #[test]
    fn any_area_gives_the_same_candidates_in_pieces_or_whole() {
        let (p, m) = (pattern(), bayer8());
        for &(seed, unit) in &[(42u64, 5i64), (7u64 << 40, 3), (1, 1)] {
            let whole: HashSet<Candidate> =
                candidates(&p, &m, seed, unit, (-100, -70), (90, 130)).into_iter().collect();
            let mut pieces = HashSet::new();
            for (x0, x1) in [(-100, -33), (-33, 0), (0, 41), (41, 90)] {
                for (z0, z1) in [(-70, 5), (5, 130)] {
                    pieces.extend(candidates(&p, &m, seed, unit, (x0, z0), (x1, z1)));
                }
            }
            assert_eq!(whole, pieces, "seed {seed}, unit {unit}");
            let far = candidates(&p, &m, seed, unit, (1_000_000, -1_000_000), (1_000_100, -999_900));
            assert!(!far.is_empty(), "candidates beyond a million blocks");
        }
    }

    #[test]
    fn candidates_keep_their_spacing_across_cell_borders() {
        let (p, m) = (pattern(), bayer8());
        let unit = 6i64;
        let c = candidates(&p, &m, 9, unit, (-200, -200), (200, 200));
        let cols: HashSet<(i64, i64)> = c.iter().map(|c| (c.x, c.z)).collect();
        assert_eq!(cols.len(), c.len(), "no two candidates share a column");
        // 0.75 unit apart before rounding down to blocks: at least that less one block per axis.
        let least = least_block_distance(unit);
        for a in &c {
            for b in &c {
                if a != b && (a.x - b.x).abs() < 2 * unit && (a.z - b.z).abs() < 2 * unit {
                    let d = (((a.x - b.x).pow(2) + (a.z - b.z).pow(2)) as f64).sqrt();
                    assert!(d >= least, "{a:?} {b:?}: {d:.2} < {least:.2}");
                }
            }
        }
    }

    #[test]
    fn fine_densities_come_out_right_over_many_cells() {
        let (p, m) = (pattern(), bayer8());
        // 0.001 per column at unit 1: four in 4096.
        let c = candidates(&p, &m, 5, 1, (0, 0), (1024, 1024));
        let d = 4u32;
        let hits = c.iter().filter(|c| layer_of(c.threshold, [d]).is_some()).count() as f64;
        let expected = c.len() as f64 * d as f64 / DENSITY_ONE as f64;
        assert!((hits - expected).abs() < 4.0 * expected.sqrt(), "{hits} accepted, expected {expected}");
    }

    #[test]
    fn cell_offsets_follow_the_seed() {
        let offsets = |seed| (0..64).map(|i| cell_offset(cell_hash(seed, i, -i))).collect::<Vec<_>>();
        assert_eq!(offsets(42), offsets(42));
        assert_ne!(offsets(42), offsets(43));
        let distinct: HashSet<_> = offsets(42).into_iter().collect();
        assert!(distinct.len() > 30, "offsets vary from cell to cell ({})", distinct.len());
    }
}
