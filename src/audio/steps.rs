//! When a footstep sounds: every stride walked on the ground, by distance,
//! so the cadence follows the speed (walking about two steps a second,
//! sprinting faster) and standing, flying or falling make none.

/// Metres per step while walking (5 m/s: two and a half steps a second).
pub const STRIDE: f64 = 2.0;
/// Sprinting lengthens the stride a little; the cadence still rises.
pub const SPRINT_STRIDE: f64 = 2.4;

#[derive(Clone, Debug, Default)]
pub struct Footsteps {
    walked: f64,
    was_on_ground: bool,
}

/// What the feet did this tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feet {
    pub on_ground: bool,
    pub flying: bool,
    /// Horizontal distance moved this tick, metres.
    pub moved: f64,
    pub sprint: bool,
    /// Vertical speed just before the tick (negative falling), m/s.
    pub fall_speed: f64,
}

impl Footsteps {
    /// Whether a footstep sounds this tick.
    pub fn tick(&mut self, f: Feet) -> bool {
        if f.flying {
            *self = Footsteps::default();
            return false;
        }
        let landed = f.on_ground && !self.was_on_ground && f.fall_speed < -4.0;
        self.was_on_ground = f.on_ground;
        if landed {
            self.walked = 0.0;
            return true;
        }
        if !f.on_ground {
            return false;
        }
        if f.moved < 1e-4 {
            // Standing still: the next step comes half a stride after
            // setting off, as a first step does.
            self.walked = STRIDE / 2.0;
            return false;
        }
        self.walked += f.moved;
        let stride = if f.sprint { SPRINT_STRIDE } else { STRIDE };
        if self.walked >= stride {
            self.walked -= stride;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(ticks: usize, speed: f64, sprint: bool) -> usize {
        let mut f = Footsteps::default();
        let dt = 1.0 / 60.0;
        let feet = Feet { on_ground: true, flying: false, moved: speed * dt, sprint, fall_speed: 0.0 };
        (0..ticks).filter(|_| f.tick(feet)).count()
    }

    #[test]
    fn walking_steps_at_the_cadence_and_sprinting_faster() {
        // Ten seconds: 50 m walking at 5 m/s is 25 strides.
        let n = walk(600, 5.0, false);
        assert!((24..=25).contains(&n), "{n}");
        let sprint = walk(600, 8.0, true);
        assert!(sprint > 25 && sprint < 40, "{sprint}");
    }

    #[test]
    fn standing_flying_and_falling_make_no_steps() {
        assert_eq!(walk(600, 0.0, false), 0);
        let mut f = Footsteps::default();
        let fly = Feet { on_ground: false, flying: true, moved: 0.4, sprint: false, fall_speed: 0.0 };
        assert!((0..600).all(|_| !f.tick(fly)));
        let fall = Feet { flying: false, ..fly };
        assert!((0..600).all(|_| !f.tick(fall)));
    }

    #[test]
    fn landing_from_a_jump_sounds_once() {
        let mut f = Footsteps::default();
        let ground = Feet { on_ground: true, flying: false, moved: 0.0, sprint: false, fall_speed: 0.0 };
        assert!(!f.tick(ground));
        assert!(!f.tick(Feet { on_ground: false, ..ground }));
        assert!(f.tick(Feet { fall_speed: -8.0, ..ground }));
        assert!(!f.tick(ground));
    }
}
