//! The column constants, the biomes and their rules, and the fill: the
//! preset's terrain, and the checks on it.

use super::{Check, Preset, PresetError, MAX_BIOMES, TABLE_SIZE, THRESHOLDS};
use serde::Deserialize;

/// Constants of the per-column formula (see `src/worldgen/column.rs`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ColumnConstants {
    pub height_amplitude: f32,
    pub mountain_amplitude: f32,
    pub roughness_amplitude: f32,
    pub temperature_mountain_cooling: f32,
    pub peak_exponent_scale: f32,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BiomeDef {
    pub name: String,
    pub top: String,
    pub under: String,
    pub roughness: f32,
    pub scale: f32,
    pub exponent: f32,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BiomeRules {
    pub ocean: String,
    pub ocean_max_height: f32,
    pub ocean_max_mountain: f32,
    pub beach: String,
    pub beach_max_height: f32,
    pub mountain: String,
    pub mountain_min: f32,
    pub mountain_min_with_height: f32,
    pub heat_thresholds: Vec<f32>,
    pub moisture_thresholds: Vec<f32>,
    pub threshold_search_limit: u32,
    pub table: Vec<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FillRules {
    pub water_level: i32,
    pub water: String,
    pub deep: String,
    pub snow: String,
    pub snow_above: i32,
    pub under_depth: i32,
}

pub(super) fn validate_column(col: &ColumnConstants, c: &Check) -> Result<(), PresetError> {
    for (f, v) in [
        ("height_amplitude", col.height_amplitude),
        ("mountain_amplitude", col.mountain_amplitude),
        ("roughness_amplitude", col.roughness_amplitude),
        ("temperature_mountain_cooling", col.temperature_mountain_cooling),
        ("peak_exponent_scale", col.peak_exponent_scale),
    ] {
        c.finite(format!("column.{f}"), v)?;
    }
    Ok(())
}

pub(super) fn validate_biomes(p: &Preset, c: &Check) -> Result<(), PresetError> {
    if p.biomes.is_empty() || p.biomes.len() > MAX_BIOMES {
        return Err(c.bad("biomes", format!("needs 1 to {MAX_BIOMES} biomes, found {}", p.biomes.len())));
    }
    for (i, b) in p.biomes.iter().enumerate() {
        let here = |f: &str| format!("biomes[{i}] ({}).{f}", b.name);
        if p.biomes[..i].iter().any(|o| o.name == b.name) {
            return Err(c.bad(here("name"), format!("duplicate biome `{}`", b.name)));
        }
        for (f, block) in [("top", &b.top), ("under", &b.under)] {
            c.block(here(f), block)?;
        }
        c.finite(here("roughness"), b.roughness)?;
        c.finite(here("scale"), b.scale)?;
        c.finite(here("exponent"), b.exponent)?;
        if b.exponent <= 0.0 || b.exponent > 16.0 {
            return Err(c.bad(here("exponent"), format!("{} is outside (0, 16]", b.exponent)));
        }
    }
    Ok(())
}

pub(super) fn validate_biome_rules(p: &Preset, c: &Check) -> Result<(), PresetError> {
    let r = &p.biome_rules;
    for (f, name) in [("ocean", &r.ocean), ("beach", &r.beach), ("mountain", &r.mountain)] {
        if p.biome_index(name).is_none() {
            return Err(c.bad(format!("biome_rules.{f}"), format!("`{name}` is not a biome")));
        }
    }
    for (f, v) in [
        ("ocean_max_height", r.ocean_max_height),
        ("ocean_max_mountain", r.ocean_max_mountain),
        ("beach_max_height", r.beach_max_height),
        ("mountain_min", r.mountain_min),
        ("mountain_min_with_height", r.mountain_min_with_height),
    ] {
        c.finite(format!("biome_rules.{f}"), v)?;
    }
    for (f, list) in [("heat_thresholds", &r.heat_thresholds), ("moisture_thresholds", &r.moisture_thresholds)] {
        if list.len() != THRESHOLDS {
            return Err(
                c.bad(format!("biome_rules.{f}"), format!("needs exactly {THRESHOLDS} values, found {}", list.len()))
            );
        }
        for (i, v) in list.iter().enumerate() {
            c.finite(format!("biome_rules.{f}[{i}]"), *v)?;
        }
        if list.windows(2).any(|w| w[0] > w[1]) {
            return Err(c.bad(format!("biome_rules.{f}"), "values must be in ascending order"));
        }
    }
    if r.threshold_search_limit as usize > THRESHOLDS {
        return Err(
            c.bad("biome_rules.threshold_search_limit", format!("{} is above {THRESHOLDS}", r.threshold_search_limit))
        );
    }
    if r.table.len() != TABLE_SIZE {
        return Err(c.bad("biome_rules.table", format!("needs {TABLE_SIZE} rows, found {}", r.table.len())));
    }
    for (row, names) in r.table.iter().enumerate() {
        if names.len() != TABLE_SIZE {
            return Err(c.bad(
                format!("biome_rules.table[{row}]"),
                format!("needs {TABLE_SIZE} entries, found {}", names.len()),
            ));
        }
        for (col, name) in names.iter().enumerate() {
            if p.biome_index(name).is_none() {
                return Err(c.bad(format!("biome_rules.table[{row}][{col}]"), format!("`{name}` is not a biome")));
            }
        }
    }
    Ok(())
}

pub(super) fn validate_fill(f: &FillRules, c: &Check) -> Result<(), PresetError> {
    for (field, block) in [("water", &f.water), ("deep", &f.deep), ("snow", &f.snow)] {
        c.block(format!("fill.{field}"), block)?;
    }
    if !(0..=32).contains(&f.under_depth) {
        return Err(c.bad("fill.under_depth", format!("{} is outside 0..=32", f.under_depth)));
    }
    Ok(())
}
