//! Which ambience layers sound where: a pure function of what is around the
//! eye, so each rule is tested without a window or a sound card. The sound
//! thread tweens every layer towards its target, so moving crossfades.

use crate::world::block::{BlockId, FluidKind};
use crate::world::edits::BlockPos;

/// The layers, in the order of `assets/sounds.ron`'s `ambience`.
pub const LAYERS: [&str; 7] = ["wind", "birds", "insects", "water", "murk", "cave", "lava"];

/// Water and lava are heard from this many blocks away.
pub const WATER_REACH: f32 = 16.0;
pub const LAVA_REACH: f32 = 12.0;

/// What is around the eye.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Surroundings {
    /// Eye height above the world's sea level, blocks.
    pub height: f32,
    /// Sky light at the eye, 0–15 (15: under the open sky).
    pub sky: u8,
    /// Share of the probed cells above the eye that are open air, 0..1.
    pub open: f32,
    /// Share of the probed surface that is leaves or plants, 0..1.
    pub green: f32,
    /// 0 at night, 1 by day.
    pub day: f32,
    pub under_water: bool,
    /// The nearest water and lava not at the eye, with their distance.
    pub water: Option<([f32; 3], f32)>,
    pub lava: Option<([f32; 3], f32)>,
}

impl Default for Surroundings {
    fn default() -> Self {
        Surroundings {
            height: 10.0,
            sky: 15,
            open: 1.0,
            green: 0.0,
            day: 1.0,
            under_water: false,
            water: None,
            lava: None,
        }
    }
}

/// Each layer's strength, 0..1, in [`LAYERS`] order.
pub type Mix = [f32; 7];

fn clamp01(v: f32) -> f32 {
    v.clamp(0.0, 1.0)
}

/// The rules (docs/play.md lists them for players).
pub fn mix(s: &Surroundings) -> Mix {
    let sky = s.sky as f32 / 15.0;
    if s.under_water {
        // Under water the murk replaces everything else that is ambient;
        // the world's other sounds are muffled by the mixer's filter.
        return [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    }
    // Wind: a breath near the ground, strong on peaks, only where open.
    let wind = clamp01(0.12 + s.height / 70.0) * clamp01(s.open) * sky;
    // Life needs green around and the open sky.
    let life = clamp01(s.green * 2.5) * sky * clamp01(s.open * 1.5);
    let birds = life * clamp01(s.day);
    let insects = life * clamp01(1.0 - s.day) * 0.9;
    let near = |d: Option<([f32; 3], f32)>, reach: f32| d.map(|(_, d)| clamp01(1.0 - d / reach)).unwrap_or(0.0);
    let water = near(s.water, WATER_REACH);
    let lava = near(s.lava, LAVA_REACH);
    // Underground: the room tone and drips grow as the sky light fades.
    let cave = clamp01((10.0 - s.sky as f32) / 8.0) * clamp01(1.0 - s.open * 2.0 + 0.5);
    [wind, birds, insects, water, 0.0, cave, lava]
}

/// The sun's share of the sky at `time` (0 midnight, 0.5 noon), 0..1, with
/// dawn and dusk as ramps.
pub fn daylight(time: f64) -> f32 {
    let sun = -(time * std::f64::consts::TAU).cos() as f32;
    clamp01((sun + 0.15) / 0.35)
}

/// Half the probe's square, blocks.
const R: i64 = 12;

/// A probe of the blocks around the eye for [`Surroundings`], done a slice
/// at a time so no frame pays for all of it: a sparse grid (every other
/// block over ±`R` horizontally and from 4 below to 8 above), about a
/// thousand lookups in all, in 13 slices of constant x.
pub struct Probe {
    at: BlockPos,
    height: f32,
    sky: u8,
    day: f32,
    under_water: bool,
    next_dx: i64,
    open: u32,
    above: u32,
    green: u32,
    surface: u32,
    water: Option<([f32; 3], f32)>,
    lava: Option<([f32; 3], f32)>,
}

/// The slices of a whole probe.
pub const PROBE_SLICES: usize = (R as usize * 2) / 2 + 1;

impl Probe {
    pub fn new(eye: [f64; 3], sea_level: f64, sky: u8, day: f32, block: &dyn Fn(BlockPos) -> Option<BlockId>) -> Probe {
        let at = BlockPos::new(eye[0].floor() as i64, eye[1].floor() as i64, eye[2].floor() as i64);
        Probe {
            at,
            height: (eye[1] - sea_level) as f32,
            sky,
            day,
            under_water: block(at).and_then(BlockId::fluid_kind) == Some(FluidKind::Water),
            next_dx: -R,
            open: 0,
            above: 0,
            green: 0,
            surface: 0,
            water: None,
            lava: None,
        }
    }

    /// Probes up to `slices` more slices; true once all are done.
    pub fn step(&mut self, slices: usize, block: &dyn Fn(BlockPos) -> Option<BlockId>) -> bool {
        let at = self.at;
        for _ in 0..slices {
            if self.next_dx > R {
                break;
            }
            let dx = self.next_dx;
            self.next_dx += 2;
            for dz in (-R..=R).step_by(2) {
                for dy in (-4..=8).step_by(2) {
                    let p = BlockPos::new(at.x + dx, at.y + dy, at.z + dz);
                    let Some(b) = block(p) else { continue };
                    if dy > 0 {
                        self.above += 1;
                        self.open += (b == BlockId::AIR) as u32;
                    }
                    if b != BlockId::AIR {
                        self.surface += 1;
                        self.green += matches!(b.info().sound, "leaves" | "plant" | "grass") as u32;
                    }
                    let d = ((dx * dx + dy * dy + dz * dz) as f32).sqrt();
                    let centre = [p.x as f32 + 0.5, p.y as f32 + 0.5, p.z as f32 + 0.5];
                    let nearer = |o: &Option<([f32; 3], f32)>| o.map(|(_, od)| d < od).unwrap_or(true);
                    if b.fluid_kind() == Some(FluidKind::Water) && !(self.under_water && d < 1.0) && nearer(&self.water)
                    {
                        self.water = Some((centre, d));
                    }
                    if b.fluid_kind() == Some(FluidKind::Lava) && nearer(&self.lava) {
                        self.lava = Some((centre, d));
                    }
                }
            }
        }
        self.next_dx > R
    }

    /// What the slices probed so far found.
    pub fn surroundings(&self) -> Surroundings {
        Surroundings {
            height: self.height,
            sky: self.sky,
            open: if self.above == 0 { 1.0 } else { self.open as f32 / self.above as f32 },
            green: if self.surface == 0 { 0.0 } else { self.green as f32 / self.surface as f32 },
            day: self.day,
            under_water: self.under_water,
            water: self.water,
            lava: self.lava,
        }
    }
}

/// A whole probe at once.
pub fn probe(
    eye: [f64; 3],
    sea_level: f64,
    sky: u8,
    day: f32,
    block: &dyn Fn(BlockPos) -> Option<BlockId>,
) -> Surroundings {
    let mut p = Probe::new(eye, sea_level, sky, day, block);
    p.step(PROBE_SLICES, block);
    p.surroundings()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(m: &Mix, name: &str) -> f32 {
        m[LAYERS.iter().position(|l| *l == name).expect("a layer")]
    }

    #[test]
    fn wind_grows_with_height_and_openness() {
        let low = mix(&Surroundings { height: 2.0, ..Default::default() });
        let high = mix(&Surroundings { height: 80.0, ..Default::default() });
        let walled = mix(&Surroundings { height: 80.0, open: 0.2, ..Default::default() });
        assert!(layer(&high, "wind") > 2.0 * layer(&low, "wind"), "{high:?} vs {low:?}");
        assert!(layer(&walled, "wind") < 0.3 * layer(&high, "wind"));
    }

    #[test]
    fn birds_by_day_and_insects_by_night_only_where_it_is_green() {
        let green = Surroundings { green: 0.5, ..Default::default() };
        let day = mix(&Surroundings { day: 1.0, ..green });
        let night = mix(&Surroundings { day: 0.0, ..green });
        let bare = mix(&Surroundings { green: 0.0, ..green });
        assert!(layer(&day, "birds") > 0.8 && layer(&day, "insects") == 0.0);
        assert!(layer(&night, "insects") > 0.7 && layer(&night, "birds") == 0.0);
        assert_eq!((layer(&bare, "birds"), layer(&bare, "insects")), (0.0, 0.0));
        assert!(daylight(0.5) == 1.0 && daylight(0.0) == 0.0 && daylight(0.25) > 0.0 && daylight(0.25) < 1.0);
    }

    #[test]
    fn under_water_only_the_murk() {
        let m =
            mix(&Surroundings { under_water: true, green: 0.5, water: Some(([0.0; 3], 0.0)), ..Default::default() });
        assert_eq!(m, [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn underground_drips_by_sky_light() {
        let cave = mix(&Surroundings { sky: 0, open: 0.0, height: -30.0, ..Default::default() });
        let outside = mix(&Surroundings { sky: 15, ..Default::default() });
        assert!(layer(&cave, "cave") > 0.9 && layer(&cave, "wind") == 0.0 && layer(&cave, "birds") == 0.0);
        assert_eq!(layer(&outside, "cave"), 0.0);
    }

    #[test]
    fn water_and_lava_by_distance() {
        let near =
            mix(&Surroundings { water: Some(([0.0; 3], 2.0)), lava: Some(([0.0; 3], 3.0)), ..Default::default() });
        let far = mix(&Surroundings { water: Some(([0.0; 3], 15.0)), ..Default::default() });
        assert!(layer(&near, "water") > 0.8 && layer(&near, "lava") > 0.7);
        assert!(layer(&far, "water") < 0.1 && layer(&far, "lava") == 0.0);
    }

    #[test]
    fn the_probe_finds_water_green_and_a_roof() {
        // A meadow at y < 0 with a pond 6 blocks east, a roof at y = 7 over
        // x < 0 (the probe samples every other block from the eye's).
        let world = |p: BlockPos| {
            Some(if p.y < 0 {
                if p.x == 6 && p.z == 0 && p.y == -1 {
                    BlockId::WATER
                } else {
                    BlockId::GRASS
                }
            } else if p.y == 0 && p.x % 2 == 0 {
                BlockId::TALL_GRASS
            } else if p.y == 7 && p.x < 0 {
                BlockId::STONE
            } else {
                BlockId::AIR
            })
        };
        let s = probe([0.5, 1.6, 0.5], 0.0, 15, 1.0, &world);
        assert!(s.green > 0.3, "{s:?}");
        assert!(s.open > 0.7 && s.open < 1.0, "{s:?}");
        let (at, d) = s.water.expect("the pond");
        assert_eq!(at, [6.5, -0.5, 0.5]);
        assert!((d - (36.0f32 + 4.0).sqrt()).abs() < 0.01, "{d}");
        assert!(!s.under_water && s.lava.is_none());
        // In slices over several frames, the same answer; the first
        // slices alone see only part of it.
        let mut p = Probe::new([0.5, 1.6, 0.5], 0.0, 15, 1.0, &world);
        let mut frames = 0;
        while !p.step(4, &world) {
            frames += 1;
            if frames == 1 {
                assert!(p.surroundings().water.is_none(), "the pond is east, in the last slices");
            }
        }
        assert_eq!((frames + 1, p.surroundings()), (PROBE_SLICES.div_ceil(4), s));
    }
}
