//! `blockworld bench placement`: the Chile thesis's Tables 4.2 and 4.3 in
//! their shape. Over squares of 100, 500 and 1 000 blocks a side (the
//! thesis's areas, one block a metre), the world's trees are placed by the
//! whole pipeline the game runs (each unit square's candidate, its
//! threshold, the density map, the footing's heights and biome, the
//! layer's rules, and the survivors compacted into one list in order), on
//! one thread and on every thread; and as many points are placed by dart
//! throwing at the pattern's least distance, its collisions checked in
//! constant time against a background grid as the thesis's are. The
//! thesis's own figures stand beside ours, quoted, on its own hardware:
//! compare ratios, not times. Its GPU rows have no counterpart here: the
//! game places trees on the device inside the decoration kernel, not as a
//! pass of its own.

use super::machine::Machine;
use super::median;
use crate::worldgen::decorate::accepted_tree;
use crate::worldgen::placement::{candidate, least_block_distance, unit_squares, MIN_SPACING_SUB, SUB};
use crate::worldgen::WorldGen;
use serde::Serialize;
use std::fmt;
use std::time::Instant;

/// The thesis's areas, as sides in blocks.
pub const AREAS: [i64; 3] = [100, 500, 1000];

/// The thesis's Table 4.3, µs (mean of several runs, its own machine).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SourceRow {
    pub dart_throwing_us: f64,
    pub cpu_sequential_us: f64,
    pub cpu_parallel_us: f64,
    pub gpu_optimised_us: f64,
}

const SOURCE: [SourceRow; 3] = [
    SourceRow { dart_throwing_us: 1339.1, cpu_sequential_us: 77.2, cpu_parallel_us: 59.2, gpu_optimised_us: 204.8 },
    SourceRow {
        dart_throwing_us: 25800.4,
        cpu_sequential_us: 2193.8,
        cpu_parallel_us: 1164.7,
        gpu_optimised_us: 402.8,
    },
    SourceRow {
        dart_throwing_us: 92305.5,
        cpu_sequential_us: 9239.4,
        cpu_parallel_us: 4166.6,
        gpu_optimised_us: 989.3,
    },
];

/// One tree the pipeline placed, as the list holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub x: i64,
    pub base: i32,
    pub z: i64,
    pub kind: u32,
    pub shape: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlacementRow {
    /// Side of the square, in blocks (metres).
    pub area_side: i64,
    /// Positions kept by their thresholds alone; dart throwing is asked
    /// for as many.
    pub positions: usize,
    /// Trees the whole pipeline placed.
    pub trees: usize,
    /// Darts thrown, and how many of them dart throwing kept.
    pub darts: u64,
    pub dart_points: usize,
    pub ms_dart_throwing: f64,
    pub ms_positions_one_thread: f64,
    pub ms_positions_all_threads: f64,
    pub ms_pipeline_one_thread: f64,
    pub ms_pipeline_all_threads: f64,
    /// Dart throwing over the positions stage: like with like.
    pub dart_over_positions_one_thread: f64,
    pub dart_over_positions_all_threads: f64,
    pub source: SourceRow,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlacementReport {
    pub machine: Machine,
    pub seed: u64,
    pub preset: String,
    /// The squares' shared corner (x, z), blocks: a forest of classic's seed 42.
    pub corner: [i64; 2],
    /// The tree pattern's unit square, blocks.
    pub spacing: i64,
    /// The least distance between two candidates, blocks: dart throwing's.
    pub least_distance: f64,
    pub threads: usize,
    pub repeat: usize,
    pub rows: Vec<PlacementRow>,
}

/// The square the table places over: `side` blocks from `corner` (x, z).
#[derive(Clone, Copy, Debug)]
pub struct Square {
    pub corner: [i64; 2],
    pub side: i64,
}

impl Square {
    fn contains(&self, x: i64, z: i64) -> bool {
        (self.corner[0]..self.corner[0] + self.side).contains(&x)
            && (self.corner[1]..self.corner[1] + self.side).contains(&z)
    }

    /// Its rows of unit squares.
    fn rows(&self, unit: i64) -> std::ops::Range<i64> {
        unit_squares(unit, self.corner[1], self.corner[1] + self.side)
    }

    /// Each unit square's candidate inside the square, rows `rows`, in
    /// row-major order.
    fn candidates<'a>(
        &self,
        world: &'a WorldGen,
        rows: std::ops::Range<i64>,
    ) -> impl Iterator<Item = crate::worldgen::placement::Candidate> + 'a {
        let square = *self;
        let p = &*world.params;
        let unit = p.deco.trees.unit as i64;
        let seed = p.deco.seed();
        let cols = unit_squares(unit, self.corner[0], self.corner[0] + self.side);
        rows.flat_map(move |gz| cols.clone().map(move |gx| (gx, gz)))
            .map(move |(gx, gz)| candidate(&p.deco.pattern, &p.deco.bayer, seed, unit, gx, gz))
            .filter(move |c| square.contains(c.x, c.z))
    }
}

/// The positions alone: each candidate under the densest tree layer's
/// threshold, compacted, without looking at the terrain; what dart
/// throwing makes too (spaced points), so the like-for-like baseline.
pub fn positions(world: &WorldGen, square: Square, rows: std::ops::Range<i64>) -> Vec<[i64; 2]> {
    let max = world.params.deco.trees.max_density;
    square.candidates(world, rows).filter(|c| c.threshold < max).map(|c| [c.x, c.z]).collect()
}

/// The trees of the square's rows `rows`, in row-major order: the game's
/// whole placement pipeline for one area.
pub fn place(world: &WorldGen, square: Square, rows: std::ops::Range<i64>) -> Vec<Placed> {
    let p = &*world.params;
    square
        .candidates(world, rows)
        .filter_map(|c| {
            let (f, kind, shape) = accepted_tree(&world.program, p, world.lanes, c)?;
            Some(Placed { x: c.x, base: f.height + 1, z: c.z, kind, shape })
        })
        .collect()
}

/// `stage` on every thread: a band of rows of unit squares a task (four
/// bands a thread, for balance), the lists joined in row order, so the
/// result is the one thread's.
pub fn on_all_threads<T: Send>(
    world: &WorldGen,
    square: Square,
    stage: impl Fn(&WorldGen, Square, std::ops::Range<i64>) -> Vec<T> + Sync,
) -> Vec<T> {
    use rayon::prelude::*;
    let rows = square.rows(world.params.deco.trees.unit as i64);
    let bands = (rayon::current_num_threads() * 4) as i64;
    let band = ((rows.end - rows.start) + bands - 1) / bands;
    let lists: Vec<Vec<T>> = (0..bands)
        .into_par_iter()
        .map(|i| {
            let start = (rows.start + i * band).min(rows.end);
            stage(world, square, start..(start + band).min(rows.end))
        })
        .collect();
    lists.into_iter().flatten().collect()
}

/// Dart coordinates in [0, `side`): a fixed xorshift sequence, so every run
/// throws the same darts.
fn dart_coordinates(side: f64) -> impl FnMut() -> f64 {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64 * side
    }
}

/// Dart throwing with rejection: random points in the square, each kept
/// where no kept point is closer than `least`, until `want` are kept (or
/// 200 × `want` darts). A background grid of cells `least / √2` wide holds
/// at most one kept point a cell, so a dart looks at the 5 × 5 cells
/// around its own: constant time. Returns the points kept and the darts.
pub fn dart_throwing(side: f64, least: f64, want: usize) -> (usize, u64) {
    let mut next = dart_coordinates(side);
    let cell = least / std::f64::consts::SQRT_2;
    let n = ((side / cell).ceil() as usize).max(1);
    let mut grid: Vec<Option<[f64; 2]>> = vec![None; n * n];
    let (mut kept, mut darts) = (0usize, 0u64);
    while kept < want && darts < 200 * want as u64 {
        darts += 1;
        let d = [next(), next()];
        let (cx, cz) = (((d[0] / cell) as usize).min(n - 1), ((d[1] / cell) as usize).min(n - 1));
        let near = (cz.saturating_sub(2)..=(cz + 2).min(n - 1)).all(|z| {
            (cx.saturating_sub(2)..=(cx + 2).min(n - 1))
                .all(|x| grid[z * n + x].is_none_or(|k| (k[0] - d[0]).powi(2) + (k[1] - d[1]).powi(2) >= least * least))
        });
        if near {
            grid[cz * n + cx] = Some(d);
            kept += 1;
        }
    }
    (kept, darts)
}

/// The squares' corner: a forest of classic's seed 42 (`bench gen`'s
/// decoration columns), so the largest square holds thousands of trees.
pub const CORNER: [i64; 2] = [128, -384];

/// The median time of `repeat` runs of `f`, and its last result.
fn timed<T>(repeat: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut runs = Vec::with_capacity(repeat);
    let mut last = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        let out = f();
        runs.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(out);
    }
    (median(runs), last.expect("at least one run"))
}

/// The table over [`AREAS`], `repeat` runs of each method (medians).
pub fn run(world: &WorldGen, preset: &str, seed: u64, repeat: usize) -> PlacementReport {
    let repeat = repeat.max(1);
    let unit = (world.params.deco.trees.unit as i64).max(1);
    // The pattern's least distance: 12/16 of the spacing, never under a block's.
    let least = (MIN_SPACING_SUB as f64 / SUB as f64 * unit as f64).max(least_block_distance(unit));
    let rows = AREAS
        .iter()
        .zip(SOURCE)
        .map(|(&side, source)| {
            let square = Square { corner: CORNER, side };
            let (ms_positions_one_thread, kept) = timed(repeat, || positions(world, square, square.rows(unit)));
            let (ms_positions_all_threads, kept_all) = timed(repeat, || on_all_threads(world, square, positions));
            let (ms_pipeline_one_thread, trees) = timed(repeat, || place(world, square, square.rows(unit)));
            let (ms_pipeline_all_threads, trees_all) = timed(repeat, || on_all_threads(world, square, place));
            debug_assert!(kept == kept_all && trees == trees_all);
            let (ms_dart_throwing, (dart_points, darts)) =
                timed(repeat, || dart_throwing(side as f64, least, kept.len()));
            PlacementRow {
                area_side: side,
                positions: kept.len(),
                trees: trees.len(),
                darts,
                dart_points,
                ms_dart_throwing,
                ms_positions_one_thread,
                ms_positions_all_threads,
                ms_pipeline_one_thread,
                ms_pipeline_all_threads,
                dart_over_positions_one_thread: ms_dart_throwing / ms_positions_one_thread,
                dart_over_positions_all_threads: ms_dart_throwing / ms_positions_all_threads,
                source,
            }
        })
        .collect();
    PlacementReport {
        machine: Machine::here(),
        seed,
        preset: preset.to_string(),
        corner: CORNER,
        spacing: unit,
        least_distance: least,
        threads: rayon::current_num_threads(),
        repeat,
        rows,
    }
}

impl fmt::Display for PlacementReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.threads;
        writeln!(
            f,
            "The Chile thesis's Tables 4.2/4.3: squares from {},{}, preset {}, seed {}, spacing {} blocks, \
             least distance {:.2}, median of {}, µs",
            self.corner[0], self.corner[1], self.preset, self.seed, self.spacing, self.least_distance, self.repeat
        )?;
        writeln!(f, "{}", self.machine)?;
        writeln!(
            f,
            "{:>5} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} | thesis: {:>8} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6}",
            "side",
            "points",
            "trees",
            "darts",
            "points 1",
            format!("points {t}"),
            "trees 1",
            format!("trees {t}"),
            "darts/p1",
            format!("darts/p{t}"),
            "darts",
            "seq",
            "par",
            "GPU opt",
            "d/seq",
            "d/par",
            "d/GPU"
        )?;
        for r in &self.rows {
            let s = r.source;
            writeln!(
                f,
                "{:>5} {:>6} {:>6} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>7.2}× {:>7.2}× | thesis: {:>8.1} {:>7.1} \
                 {:>7.1} {:>7.1} {:>5.1}× {:>5.1}× {:>5.1}×",
                r.area_side,
                r.positions,
                r.trees,
                r.ms_dart_throwing * 1e3,
                r.ms_positions_one_thread * 1e3,
                r.ms_positions_all_threads * 1e3,
                r.ms_pipeline_one_thread * 1e3,
                r.ms_pipeline_all_threads * 1e3,
                r.dart_over_positions_one_thread,
                r.dart_over_positions_all_threads,
                s.dart_throwing_us,
                s.cpu_sequential_us,
                s.cpu_parallel_us,
                s.gpu_optimised_us,
                s.dart_throwing_us / s.cpu_sequential_us,
                s.dart_throwing_us / s.cpu_parallel_us,
                s.dart_throwing_us / s.gpu_optimised_us
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::Preset;

    fn classic() -> WorldGen {
        WorldGen::new(Preset::load("classic").expect("classic"), 42)
    }

    #[test]
    fn every_thread_places_what_one_thread_places() {
        let w = classic();
        let square = Square { corner: CORNER, side: 96 };
        let rows = square.rows(w.params.deco.trees.unit as i64);
        let one = place(&w, square, rows.clone());
        assert!(!one.is_empty(), "no trees in the square: the comparison would prove nothing");
        assert!(one.iter().all(|t| square.contains(t.x, t.z)));
        assert_eq!(one, on_all_threads(&w, square, place));
        let kept = positions(&w, square, rows);
        assert!(kept.len() >= one.len(), "every tree stands at a kept position");
        assert_eq!(kept, on_all_threads(&w, square, positions));
    }

    #[test]
    fn darts_keep_their_distance_and_the_grid_misses_no_neighbour() {
        // The grid's answer against checking every kept point: the same
        // darts, kept or not, in the same order.
        let (side, least, want) = (120.0, 3.75, 400);
        let (kept, darts) = dart_throwing(side, least, want);
        assert_eq!(kept, want, "dart throwing fell short at a density far below saturation");
        let mut next = dart_coordinates(side);
        let mut all: Vec<[f64; 2]> = Vec::new();
        for _ in 0..darts {
            let d = [next(), next()];
            if all.iter().all(|k| (k[0] - d[0]).powi(2) + (k[1] - d[1]).powi(2) >= least * least) {
                all.push(d);
            }
        }
        assert_eq!(all.len(), kept);
    }
}
