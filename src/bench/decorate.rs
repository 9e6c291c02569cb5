//! Decoration figures of `blockworld bench gen`, on one CPU thread:
//!
//! * the decoration stage per surface chunk (the tree plan of its column
//!   plus placing trees and plants into it) against the chunk's share of
//!   its column's heightmap, measured on the same 16 columns;
//! * decorations furnished against unfurnished, and the vein stage.

use super::median;
use crate::world::block::MAX_BLOCK_TYPES;
use crate::world::coords::CHUNK_VOLUME;
use crate::world::coords::{ChunkPos, ColumnPos};
use crate::worldgen::canvas::{Canvas, LAYERS};
use crate::worldgen::decorate;
use crate::worldgen::fill::known_uniform;
use crate::worldgen::heightmap::{Apron, Heightmap};
use crate::worldgen::params::WorldParams;
use crate::worldgen::veins;
use crate::worldgen::{Preset, WorldGen};
use serde::Serialize;
use std::time::Instant;

#[derive(Clone, Debug, Serialize)]
pub struct DecorateFigures {
    /// Where the figures were taken: 16 chunk columns from this corner, or
    /// the first of a spread grid.
    pub columns_from: [i32; 2],
    /// The decoration stage per surface chunk (non-uniform chunk), one thread.
    pub ms_per_chunk_decorate: f64,
    /// The heightmap of one of those columns, one thread.
    pub ms_per_column_heightmap_one_thread: f64,
    /// Non-uniform chunks per column there: how many chunks share a heightmap.
    pub surface_chunks_per_column: f64,
    /// Decoration per surface chunk ÷ that chunk's share of its heightmap
    /// (the goal is below 0.5).
    pub decorate_to_heightmap_share: f64,
    /// Trees planned per column there.
    pub trees_per_column: f64,
}

fn time_ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let out = f();
    (t.elapsed().as_secs_f64() * 1e3, out)
}

/// The median over `repeat` runs of the time of one of `rounds` calls of `f`.
fn mean_ms(repeat: usize, rounds: usize, f: impl Fn()) -> f64 {
    median(
        (0..repeat.max(1))
            .map(|_| {
                time_ms(|| {
                    for _ in 0..rounds {
                        f();
                    }
                })
                .0 / rounds as f64
            })
            .collect(),
    )
}

/// The decoration stage against the heightmap on 16 columns from `corner`.
pub fn decorate_figures(world: &WorldGen, corner: [i32; 2], repeat: usize) -> DecorateFigures {
    let columns: Vec<ColumnPos> = (0..16).map(|i| ColumnPos { x: corner[0] + i % 4, z: corner[1] + i / 4 }).collect();
    decorate_figures_on(world, &columns, corner, repeat)
}

/// The decoration stage of the preset against the same preset unfurnished,
/// on the same columns, spread over kilometres so that density maps
/// average out.
#[derive(Clone, Debug, Serialize)]
pub struct FurnishingFigures {
    /// 64 chunk columns on a grid, `spacing` chunk columns apart, from the
    /// first one.
    pub columns_from: [i32; 2],
    pub spacing: i32,
    pub furnished: DecorateFigures,
    pub unfurnished: DecorateFigures,
    /// Decoration per chunk, furnished ÷ unfurnished (the goal is at most 1.5).
    pub furnished_over_unfurnished_per_chunk: f64,
    /// The least and greatest of the rounds' ratios, whose median that is.
    pub round_ratios: [f64; 2],
}

/// [`FurnishingFigures`] of `preset` at `seed`, if it has anything to
/// unfurnish (`view::unfurnished`). The two worlds are timed in
/// alternating rounds, so drift in the machine's speed falls on both, and
/// the ratio is the median of the rounds' ratios.
pub fn furnishing_figures(preset: &Preset, seed: u64, repeat: usize) -> Option<FurnishingFigures> {
    let bare = super::view::unfurnished(preset)?;
    let (from, spacing) = ([-52, -52], 13);
    let columns: Vec<ColumnPos> =
        (0..64).map(|i| ColumnPos { x: from[0] + spacing * (i % 8), z: from[1] + spacing * (i / 8) }).collect();
    let (furnished, unfurnished) = (WorldGen::new(preset.clone(), seed), WorldGen::new(bare, seed));
    let (furnished, unfurnished) = (Surfaces::new(&furnished, &columns), Surfaces::new(&unfurnished, &columns));
    let (mut f, mut u, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..repeat.max(1) {
        let (a, b) = (furnished.ms_per_chunk(), unfurnished.ms_per_chunk());
        f.push(a);
        u.push(b);
        ratio.push(a / b);
    }
    Some(FurnishingFigures {
        columns_from: from,
        spacing,
        round_ratios: super::spread(ratio.iter().copied()).unwrap_or([f64::NAN; 2]),
        furnished_over_unfurnished_per_chunk: median(ratio),
        furnished: furnished.figures(median(f), from, repeat),
        unfurnished: unfurnished.figures(median(u), from, repeat),
    })
}

fn decorate_figures_on(world: &WorldGen, columns: &[ColumnPos], corner: [i32; 2], repeat: usize) -> DecorateFigures {
    let surfaces = Surfaces::new(world, columns);
    let per_chunk = median((0..repeat.max(1)).map(|_| surfaces.ms_per_chunk()).collect());
    surfaces.figures(per_chunk, corner, repeat)
}

/// Chunk columns ready for timing their decoration: heightmaps, plans, and
/// the non-uniform chunks of each, painted by every pass before the
/// decorations.
struct Surfaces<'a> {
    world: &'a WorldGen,
    columns: &'a [ColumnPos],
    hms: Vec<Heightmap>,
    /// What each heightmap was smoothed from, which the plan reads as the game's does.
    aprons: Vec<Apron>,
    plans: Vec<decorate::ColumnDecorations>,
    chunks: Vec<Painted>,
}

/// A surface chunk as the passes before the decorations leave it.
struct Painted {
    column: usize,
    pos: ChunkPos,
    blocks: Vec<u8>,
    counts: Box<[u32; MAX_BLOCK_TYPES]>,
}

impl Painted {
    /// Chunk `pos` of column `column` (heightmap `hm`) as the passes before
    /// the one named `pass` leave it.
    fn before(p: &WorldParams, column: usize, pos: ChunkPos, hm: &Heightmap, pass: &str) -> Painted {
        let (mut blocks, mut counts) = (vec![0u8; CHUNK_VOLUME], Box::new([0u32; MAX_BLOCK_TYPES]));
        let mut canvas = Canvas { params: p, pos, heightmap: hm, plan: None, blocks: &mut blocks, counts: &mut counts };
        for (_, layer) in LAYERS.iter().take_while(|(name, _)| *name != pass) {
            layer(&mut canvas);
        }
        Painted { column, pos, blocks, counts }
    }
}

/// Milliseconds a round for `pass` over every chunk, timed as copying each
/// chunk as the earlier passes left it and running the pass, less the copy
/// alone: the earlier passes (caves above all) add no noise to a figure a
/// hundredth their size.
fn pass_ms(
    chunks: &[Painted],
    rounds: usize,
    mut pass: impl FnMut(&Painted, &mut [u8], &mut [u32; MAX_BLOCK_TYPES]),
) -> f64 {
    let (mut blocks, mut counts) = (vec![0u8; CHUNK_VOLUME], Box::new([0u32; MAX_BLOCK_TYPES]));
    let mut run = |with: bool| {
        let start = Instant::now();
        for _ in 0..rounds {
            for c in chunks {
                blocks.copy_from_slice(&c.blocks);
                *counts = *c.counts;
                if with {
                    pass(c, &mut blocks, &mut counts);
                }
                std::hint::black_box((&blocks, &counts));
            }
        }
        start.elapsed().as_secs_f64() * 1e3 / rounds as f64
    };
    (run(true) - run(false)).max(0.0)
}

impl<'a> Surfaces<'a> {
    fn new(world: &'a WorldGen, columns: &'a [ColumnPos]) -> Surfaces<'a> {
        let p = &*world.params;
        let (hms, aprons): (Vec<_>, Vec<_>) = columns.iter().map(|&c| world.compute_heightmap_with_apron(c)).unzip();
        let plans: Vec<_> = columns
            .iter()
            .zip(hms.iter().zip(&aprons))
            .map(|(&c, (hm, a))| world.plan_decorations(c, hm, Some(a)))
            .collect();
        let mut chunks = Vec::new();
        for (i, (c, (hm, d))) in columns.iter().zip(hms.iter().zip(&plans)).enumerate() {
            let top = decorate::decoration_top(p, hm.max_height, d.tree_top);
            let lo = (hm.min_height - p.surface.under_depth - 1).div_euclid(32);
            for y in lo..=top.div_euclid(32) {
                let pos = ChunkPos::new(c.x, y, c.z);
                if known_uniform(p, pos, hm.min_height, hm.max_height, top).is_none() {
                    chunks.push(Painted::before(p, i, pos, hm, "decorations"));
                }
            }
        }
        Surfaces { world, columns, hms, aprons, plans, chunks }
    }

    /// One round of the decoration stage per surface chunk: every column
    /// planned, then the decorations placed into each of its chunks as the
    /// passes before them left it. Placing is timed as copying that chunk
    /// and placing, less copying alone, so the earlier passes (caves above
    /// all) add no noise to a figure a hundredth their size.
    fn ms_per_chunk(&self) -> f64 {
        let p = &*self.world.params;
        let plan_ms = mean_ms(1, 4, || {
            for (&c, (hm, apron)) in self.columns.iter().zip(self.hms.iter().zip(&self.aprons)) {
                std::hint::black_box(self.world.plan_decorations(c, hm, Some(apron)));
            }
        });
        let place_ms = pass_ms(&self.chunks, 8, |c, blocks, counts| {
            let plan = Some(&self.plans[c.column]);
            let heightmap = &self.hms[c.column];
            decorate::apply(&mut Canvas { params: p, pos: c.pos, heightmap, plan, blocks, counts });
        });
        (plan_ms + place_ms) / self.chunks.len().max(1) as f64
    }

    fn figures(&self, per_chunk: f64, corner: [i32; 2], repeat: usize) -> DecorateFigures {
        let hm_ms = median(
            (0..repeat.max(1))
                .map(|_| {
                    time_ms(|| {
                        for &c in self.columns {
                            std::hint::black_box(self.world.compute_heightmap(c));
                        }
                    })
                    .0 / self.columns.len() as f64
                })
                .collect(),
        );
        let per_column = self.chunks.len().max(1) as f64 / self.columns.len() as f64;
        DecorateFigures {
            columns_from: corner,
            ms_per_chunk_decorate: per_chunk,
            ms_per_column_heightmap_one_thread: hm_ms,
            surface_chunks_per_column: per_column,
            decorate_to_heightmap_share: per_chunk / (hm_ms / per_column),
            trees_per_column: self.plans.iter().flat_map(|d| &d.trees).filter(|t| t.rock().is_none()).count() as f64
                / self.columns.len() as f64,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct VeinFigures {
    /// The vein stage per chunk it reaches (from the lowest vein up to the
    /// surface of the same 16 columns as the decorations), one thread:
    /// the vein pass over each chunk as the terrain pass leaves it.
    pub ms_per_chunk_veins: f64,
    /// Chunks per column the veins reach there.
    pub vein_chunks_per_column: f64,
    /// The vein stage per chunk it reaches over the decorations per chunk
    /// they reach (the goal is at most 1.5).
    pub veins_over_decoration_per_chunk: f64,
    /// Veins and decorations per column over decorations alone per column:
    /// the veins reach more chunks of a column than the decorations do.
    pub placement_over_decoration_per_column: f64,
}

/// The vein stage on the 16 columns of `decorate`, against its figures.
pub fn vein_figures(world: &WorldGen, decorate: &DecorateFigures, repeat: usize) -> VeinFigures {
    let p = &*world.params;
    let corner = decorate.columns_from;
    let columns: Vec<ColumnPos> = (0..16).map(|i| ColumnPos { x: corner[0] + i % 4, z: corner[1] + i / 4 }).collect();
    let hms: Vec<_> = columns.iter().map(|&c| world.compute_heightmap(c)).collect();
    let mut chunks: Vec<(usize, ChunkPos)> = Vec::new();
    for (i, (c, hm)) in columns.iter().zip(&hms).enumerate() {
        let lo = (p.veins.lowest - p.veins.reach).div_euclid(32);
        for y in lo..=(hm.max_height - 1).div_euclid(32) {
            let pos = ChunkPos::new(c.x, y, c.z);
            let base = [c.x as i64 * 32, y as i64 * 32, c.z as i64 * 32];
            if !veins::touching(p, base, base.map(|v| v + 31)).is_empty() {
                chunks.push((i, pos));
            }
        }
    }
    // Each chunk as the terrain pass leaves it, the vein pass timed alone.
    let painted: Vec<Painted> = chunks.iter().map(|&(i, pos)| Painted::before(p, i, pos, &hms[i], "veins")).collect();
    let veins_ms = median(
        (0..repeat.max(1))
            .map(|_| {
                pass_ms(&painted, 4, |c, blocks, counts| {
                    let heightmap = &hms[c.column];
                    veins::apply(&mut Canvas { params: p, pos: c.pos, heightmap, plan: None, blocks, counts });
                })
            })
            .collect(),
    );
    let n = chunks.len().max(1) as f64;
    let per_chunk = veins_ms / n;
    let per_column = n / columns.len() as f64;
    let decoration = decorate.ms_per_chunk_decorate * decorate.surface_chunks_per_column;
    VeinFigures {
        ms_per_chunk_veins: per_chunk,
        vein_chunks_per_column: per_column,
        veins_over_decoration_per_chunk: per_chunk / decorate.ms_per_chunk_decorate,
        placement_over_decoration_per_column: (decoration + per_chunk * per_column) / decoration,
    }
}
