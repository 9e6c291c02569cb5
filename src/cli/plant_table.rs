//! `blockworld plant-table`: the plants each biome grows per thousand dry
//! columns over a square of chunk columns, as the decoration plans list
//! them (before trees and rocks take their blocks). tests/patches.rs
//! holds these counts to what the patch rule promises.

use crate::world::block::BlockId;
use crate::world::coords::{column_index, ColumnPos, CHUNK_SIZE, CHUNK_SIZE_I64};
use crate::worldgen::preset::MAX_BIOMES;
use crate::worldgen::WorldGen;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// The largest square, in chunk columns across.
pub const MAX_SIZE: u32 = 256;

#[derive(Debug, thiserror::Error)]
pub enum PlantTableError {
    #[error("--size {0} is not within 1..={MAX_SIZE} chunk columns")]
    Size(u32),
}

/// One plant in one biome.
#[derive(Clone, Debug, PartialEq)]
pub struct PlantRow {
    pub biome: String,
    pub plant: String,
    /// The biome's dry columns (surface at or above the water level).
    pub columns: u64,
    /// Plants of the kind standing on those columns.
    pub plants: u64,
}

/// Counts per (biome, plant block) of the `size` × `size` chunk columns
/// centred on block column `center`, and per biome its dry columns.
pub fn plant_table(w: &WorldGen, center: [i64; 2], size: u32) -> Result<Vec<PlantRow>, PlantTableError> {
    if !(1..=MAX_SIZE).contains(&size) {
        return Err(PlantTableError::Size(size));
    }
    let half = size as i64 / 2;
    let (cx, cz) = (center[0].div_euclid(CHUNK_SIZE_I64) - half, center[1].div_euclid(CHUNK_SIZE_I64) - half);
    let cols: Vec<ColumnPos> = (0..size as i64)
        .flat_map(|dz| (0..size as i64).map(move |dx| ColumnPos { x: (cx + dx) as i32, z: (cz + dz) as i32 }))
        .collect();
    type Counts = (BTreeMap<usize, u64>, BTreeMap<(usize, u8), u64>);
    let (dry, plants): Counts = cols
        .par_iter()
        .map(|&col| {
            let hm = w.compute_heightmap(col);
            let plan = w.plan_decorations(col, &hm, None);
            let (mut dry, mut plants): Counts = Default::default();
            for z in 0..CHUNK_SIZE {
                for x in 0..CHUNK_SIZE {
                    let i = column_index(x, z);
                    if hm.heights[i] >= w.params.surface.water_level {
                        *dry.entry(hm.biomes[i] as usize % MAX_BIOMES).or_default() += 1;
                    }
                }
            }
            for pl in &plan.plants {
                let i = column_index(pl.x as usize, pl.z as usize);
                if hm.heights[i] >= w.params.surface.water_level {
                    *plants.entry((hm.biomes[i] as usize % MAX_BIOMES, pl.block)).or_default() += 1;
                }
            }
            (dry, plants)
        })
        .reduce(Counts::default, |mut a, b| {
            b.0.into_iter().for_each(|(k, v)| *a.0.entry(k).or_default() += v);
            b.1.into_iter().for_each(|(k, v)| *a.1.entry(k).or_default() += v);
            a
        });
    let name = |b: usize| w.preset.biomes.get(b).map_or_else(|| format!("biome {b}"), |d| d.name.clone());
    Ok(plants
        .into_iter()
        .map(|((b, block), n)| PlantRow {
            biome: name(b),
            plant: BlockId(block).name().to_string(),
            columns: dry.get(&b).copied().unwrap_or(0),
            plants: n,
        })
        .collect())
}

/// The rows as a Markdown table.
pub fn markdown(rows: &[PlantRow]) -> String {
    let mut s =
        String::from("| biome | plant | dry columns | plants | per 1 000 columns |\n|---|---|---:|---:|---:|\n");
    for r in rows {
        let per = 1000.0 * r.plants as f64 / r.columns.max(1) as f64;
        s += &format!("| {} | {} | {} | {} | {per:.1} |\n", r.biome, r.plant, r.columns, r.plants);
    }
    s
}
