//! `blockworld vein-table`: the veins of each kind per depth band (a chunk
//! layer, 32 blocks) over a box of chunks, beside the count the preset's
//! chances promise, and the blocks they add.
//!
//! * **Expected veins** of a kind in a band: a box W × D blocks across holds
//!   W·D/s² candidate columns of cubes (spacing s); a candidate's height is
//!   uniform within its cube, and at height y it becomes the kind with
//!   probability chance(y), so the band expects W·D/s³ · Σ_y chance(y).
//! * **Veins** counts the accepted candidates whose centre lies in the box.
//! * **Blocks** is what the veins add: the kind's block in the generated
//!   chunks less the same box generated without veins (so dirt under the
//!   grass and gravel on the sea floor are not counted), after caves.

use super::region_hash::{region_positions, RegionError};
use crate::backend::ChunkBackend;
use crate::world::block::BlockId;
use crate::world::chunk::BlockCounts;
use crate::world::coords::{ChunkPos, CHUNK_SIZE_I64};
use crate::worldgen::params::{FlatVein, WorldParams};
use crate::worldgen::placement::DENSITY_ONE;
use crate::worldgen::veins::{self, density_at};
use crate::worldgen::{Preset, WorldGen};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum VeinTableError {
    #[error("preset `{0}` has no veins")]
    NoVeins(String),
    #[error(transparent)]
    Region(#[from] RegionError),
}

/// One kind in one band.
#[derive(Clone, Debug, PartialEq)]
pub struct BandRow {
    /// The band's chunk layer: heights 32·layer ..= 32·layer + 31.
    pub layer: i32,
    pub kind: String,
    pub expected: f64,
    pub veins: u64,
    pub blocks: i64,
}

/// The veins of every kind per chunk layer of the box `from..=to`, the
/// blocks made by `engine(world)` for the preset with and without veins.
pub fn vein_table(
    preset: &Preset,
    seed: u64,
    (from, to): (ChunkPos, ChunkPos),
    engine: &dyn Fn(Arc<WorldGen>) -> Result<Arc<dyn ChunkBackend>, RegionError>,
) -> Result<Vec<BandRow>, VeinTableError> {
    let Some(def) = &preset.veins else { return Err(VeinTableError::NoVeins(preset.name.clone())) };
    let positions = region_positions(from, to)?;
    let with = Arc::new(WorldGen::new(preset.clone(), seed));
    let bare = Arc::new(WorldGen::new(Preset { veins: None, ..preset.clone() }, seed));
    let per_layer = |world: Arc<WorldGen>| -> Result<BTreeMap<i32, BlockCounts>, RegionError> {
        let backend = engine(world)?;
        let mut out: BTreeMap<i32, BlockCounts> = BTreeMap::new();
        for batch in positions.chunks(1024) {
            for c in backend.generate(batch).map_err(RegionError::Backend)? {
                out.entry(c.pos.y).or_default().add(c.counts());
            }
        }
        Ok(out)
    };
    let (counts, bare_counts) = (per_layer(with.clone())?, per_layer(bare)?);

    let p = &with.params;
    let counted = count_veins(p, (from, to));
    let mut rows = Vec::new();
    for layer in (from.y..=to.y).rev() {
        for (k, (flat, named)) in p.veins.kinds().iter().zip(&def.kinds).enumerate() {
            let block = BlockId(flat.block as u8);
            let of = |m: &BTreeMap<i32, BlockCounts>| m.get(&layer).map_or(0, |c| c.0[block.0 as usize] as i64);
            rows.push(BandRow {
                layer,
                kind: named.name.clone(),
                expected: expected_veins(p, (from, to), layer, flat),
                veins: counted.get(&(layer, k as u32)).copied().unwrap_or(0),
                blocks: of(&counts) - of(&bare_counts),
            });
        }
    }
    Ok(rows)
}

/// The box's corner blocks, inclusive.
fn block_box(from: ChunkPos, to: ChunkPos) -> ([i64; 3], [i64; 3]) {
    let lo = [from.x, from.y, from.z].map(|c| c as i64 * CHUNK_SIZE_I64);
    let hi = [to.x, to.y, to.z].map(|c| (c as i64 + 1) * CHUNK_SIZE_I64 - 1);
    (lo, hi)
}

/// The veins whose centre lies in the box, by (chunk layer, kind index).
pub fn count_veins(p: &WorldParams, (from, to): (ChunkPos, ChunkPos)) -> BTreeMap<(i32, u32), u64> {
    let (lo, hi) = block_box(from, to);
    let mut counted = BTreeMap::new();
    // Every vein centred in the box reaches into it, so it is among those
    // `touching` lists (which prepares the kinds once for the whole box).
    for v in veins::touching(p, lo, hi) {
        if (0..3).all(|a| (lo[a]..=hi[a]).contains(&v.origin[a])) {
            *counted.entry((v.origin[1].div_euclid(CHUNK_SIZE_I64) as i32, v.kind)).or_default() += 1;
        }
    }
    counted
}

/// The veins of `kind` the chances promise in chunk layer `layer` of the box.
pub fn expected_veins(p: &WorldParams, (from, to): (ChunkPos, ChunkPos), layer: i32, kind: &FlatVein) -> f64 {
    let (lo, hi) = block_box(from, to);
    let area = ((hi[0] - lo[0] + 1) * (hi[2] - lo[2] + 1)) as f64;
    let unit = p.veins.spacing as f64;
    let y0 = layer as i64 * CHUNK_SIZE_I64;
    let chance: f64 = (y0..y0 + CHUNK_SIZE_I64).map(|y| density_at(kind, y) as f64 / DENSITY_ONE as f64).sum();
    area / (unit * unit * unit) * chance
}

/// The rows as a Markdown table, bands top first; kinds with no vein
/// expected or found in a band are left out.
pub fn markdown(rows: &[BandRow]) -> String {
    let mut s = String::from(
        "| heights | kind | expected veins | veins | blocks added | blocks per vein |\n|---|---|---:|---:|---:|---:|\n",
    );
    for r in rows.iter().filter(|r| r.expected > 0.0 || r.veins > 0) {
        let y0 = r.layer as i64 * CHUNK_SIZE_I64;
        let per = if r.veins > 0 { format!("{:.1}", r.blocks as f64 / r.veins as f64) } else { "–".into() };
        s += &format!(
            "| {y0} to {} | {} | {:.1} | {} | {} | {per} |\n",
            y0 + CHUNK_SIZE_I64 - 1,
            r.kind,
            r.expected,
            r.veins,
            r.blocks
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::CpuBackend;

    fn cpu(w: Arc<WorldGen>) -> Result<Arc<dyn ChunkBackend>, RegionError> {
        Ok(Arc::new(CpuBackend::parallel(w)))
    }

    #[test]
    fn a_preset_without_veins_is_refused() {
        let bare = Preset { veins: None, ..Preset::classic() };
        let r = vein_table(&bare, 1, (ChunkPos::new(0, 0, 0), ChunkPos::new(0, 0, 0)), &cpu);
        assert!(matches!(r, Err(VeinTableError::NoVeins(_))));
    }

    #[test]
    fn the_table_names_every_kind_in_its_bands() {
        let rows = vein_table(&Preset::classic(), 3, (ChunkPos::new(0, -2, 0), ChunkPos::new(1, -1, 1)), &cpu).unwrap();
        let text = markdown(&rows);
        for kind in ["gold", "iron", "coal", "gravel", "clay"] {
            assert!(text.contains(&format!("| {kind} |")), "{text}");
        }
        assert!(rows.iter().any(|r| r.blocks > 0), "{text}");
    }
}
