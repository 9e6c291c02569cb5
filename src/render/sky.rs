//! The sky for a time of day: where the sun and moon are, the sky's colours
//! at the zenith and the horizon, the sunset glow, how bright daylight is
//! and how many stars show. The sky pass (`sky_pipeline.rs`) and the
//! terrain's fog read the same values through `sky_common.wgsl`, so fully
//! fogged terrain has exactly the colour of the sky behind it.
//!
//! Time of day `t` runs over 0..1: 0 is midnight, 0.25 sunrise, 0.5 noon and
//! 0.75 sunset.

use glam::Vec3;

pub const DAWN: f32 = 0.25;
pub const NOON: f32 = 0.5;
pub const DUSK: f32 = 0.75;
pub const MIDNIGHT: f32 = 0.0;

// Colours as they appear on screen (sRGB); the shaders work in linear light.
const DAY_ZENITH: Vec3 = Vec3::new(0.36, 0.58, 0.92);
const DAY_HORIZON: Vec3 = Vec3::new(0.66, 0.79, 0.94);
const NIGHT_ZENITH: Vec3 = Vec3::new(0.02, 0.03, 0.08);
const NIGHT_HORIZON: Vec3 = Vec3::new(0.07, 0.09, 0.16);
const GLOW: Vec3 = Vec3::new(1.0, 0.56, 0.28);
/// Skylight never falls below this at night: moonlight and starlight keep
/// shapes readable, as in the games of this family.
pub const NIGHT_SKYLIGHT: f32 = 0.1;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkyState {
    pub sun_dir: Vec3,
    pub moon_dir: Vec3,
    pub zenith: Vec3,
    pub horizon: Vec3,
    /// Sunset and sunrise colour, strongest toward the sun at the horizon.
    pub glow: Vec3,
    /// How strongly the sky lights the world: 1 at noon, [`NIGHT_SKYLIGHT`] at night.
    pub daylight: f32,
    /// Star visibility, 0 by day and 1 at night.
    pub stars: f32,
}

fn linear(srgb: Vec3) -> Vec3 {
    srgb.powf(2.2)
}

/// An sRGB colour in linear light by the sRGB curve itself, so a colour
/// written in data (a block's murk) shows on screen as written.
pub fn srgb_to_linear(srgb: Vec3) -> Vec3 {
    let f = super::srgb::to_linear_f;
    Vec3::new(f(srgb.x), f(srgb.y), f(srgb.z))
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The sun's direction: rising in the east (+x), highest at noon, tilted
/// toward +z so that noon light still models the terrain.
pub fn sun_direction(t: f32) -> Vec3 {
    let a = (t.rem_euclid(1.0) - DAWN) * std::f32::consts::TAU;
    Vec3::new(a.cos(), a.sin() * 0.9, a.sin() * 0.42 + 0.12).normalize()
}

pub fn sky_at(t: f32) -> SkyState {
    let sun_dir = sun_direction(t);
    let elevation = sun_dir.y;
    let day = smoothstep(-0.18, 0.22, elevation);
    // Twilight peaks with the sun on the horizon and is gone a little above
    // and below it.
    let twilight = (-(elevation / 0.16).powi(2)).exp();
    SkyState {
        sun_dir,
        moon_dir: -sun_dir,
        zenith: linear(NIGHT_ZENITH.lerp(DAY_ZENITH, day)),
        horizon: linear(NIGHT_HORIZON.lerp(DAY_HORIZON, day)),
        glow: linear(GLOW) * twilight * 0.85,
        daylight: NIGHT_SKYLIGHT + (1.0 - NIGHT_SKYLIGHT) * day,
        stars: 1.0 - smoothstep(-0.2, 0.02, elevation),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sun_rises_in_the_east_and_is_highest_at_noon() {
        assert!(sun_direction(DAWN).y.abs() < 0.15 && sun_direction(DAWN).x > 0.9);
        assert!(sun_direction(DUSK).y.abs() < 0.15 && sun_direction(DUSK).x < -0.9);
        assert!(sun_direction(NOON).y > 0.85);
        assert!(sun_direction(MIDNIGHT).y < -0.85);
        let highest =
            (0..1000).map(|i| i as f32 / 1000.0).max_by(|a, b| sun_direction(*a).y.total_cmp(&sun_direction(*b).y));
        assert_eq!(highest, Some(NOON));
    }

    #[test]
    fn nights_are_dark_with_stars_and_days_are_bright_without() {
        let (noon, night) = (sky_at(NOON), sky_at(MIDNIGHT));
        assert_eq!(noon.daylight, 1.0);
        assert_eq!(night.daylight, NIGHT_SKYLIGHT);
        assert_eq!(noon.stars, 0.0);
        assert_eq!(night.stars, 1.0);
        assert!(night.horizon.length() < 0.2 * noon.horizon.length());
    }

    #[test]
    fn dawn_and_dusk_glow_and_noon_does_not() {
        assert!(sky_at(DAWN).glow.x > 0.5);
        assert!(sky_at(DUSK).glow.x > 0.5);
        assert!(sky_at(NOON).glow.x < 0.01);
        assert!(sky_at(MIDNIGHT).glow.x < 0.01);
    }

    #[test]
    fn the_day_changes_smoothly() {
        for i in 0..2000 {
            let (a, b) = (sky_at(i as f32 / 2000.0), sky_at((i + 1) as f32 / 2000.0));
            assert!((a.horizon - b.horizon).abs().max_element() < 0.02, "step at {i}");
            assert!((a.daylight - b.daylight).abs() < 0.02, "step at {i}");
        }
    }
}
