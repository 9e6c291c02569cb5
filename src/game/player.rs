//! The player: an axis-aligned box that flies or walks, collides with solid
//! blocks axis by axis, and never enters terrain. Walking, it steps up onto
//! a one-block rise without a jump, and in water or lava it swims: slowed,
//! sinking gently, rising while Space is held.

use crate::world::block::FluidKind;
use crate::world::coords::{ChunkPos, CHUNK_SIZE_I64};
use glam::DVec3;

pub const WIDTH: f64 = 0.6;
pub const HEIGHT: f64 = 1.8;
pub const EYE: f64 = 1.62;
pub const WALK_SPEED: f64 = 5.0;
pub const FLY_SPEED: f64 = 24.0;
pub const GRAVITY: f64 = 28.0;
pub const JUMP_SPEED: f64 = 8.5;
/// The highest rise walked onto without a jump: one block.
pub const STEP_HEIGHT: f64 = 1.0;
/// How fast the eye catches up after a step up, m/s (a block in an eighth
/// of a second, so the view glides instead of jumping).
pub const STEP_EASE_SPEED: f64 = 8.0;
/// The highest a swimmer climbs out onto with Space held, from the feet:
/// a bank a block above the surface, with the body half out of the water.
pub const SWIM_OUT_HEIGHT: f64 = 1.6;

/// What the player can swim in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fluid {
    Water,
    Lava,
}

/// How a fluid moves a swimmer, m/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Swim {
    /// Horizontal speed, walking and sprinting.
    pub speed: f64,
    pub sprint_speed: f64,
    /// Speed sinking without Space, and rising with it.
    pub sink: f64,
    pub rise: f64,
    /// Time constant of the drag towards those speeds, s.
    pub drag_s: f64,
}

impl Fluid {
    pub fn swim(self) -> Swim {
        match self {
            Fluid::Water => Swim { speed: 2.2, sprint_speed: 3.6, sink: 1.2, rise: 3.0, drag_s: 0.25 },
            // Thicker: slower every way, and slower to change.
            Fluid::Lava => Swim { speed: 1.1, sprint_speed: 1.5, sink: 0.6, rise: 1.4, drag_s: 0.5 },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Fly,
    Walk,
}

/// What the player asks for this tick.
#[derive(Clone, Copy, Debug, Default)]
pub struct Intent {
    pub forward: f64,
    pub right: f64,
    pub up: f64,
    pub jump: bool,
    pub sprint: bool,
}

/// Answers "is this block solid?"; unknown (not yet loaded) space is solid,
/// so nobody falls through the world while it streams in.
pub trait SolidQuery {
    fn solid(&self, x: i64, y: i64, z: i64) -> bool;
    /// The fluid at a block, if any (none where the world is not loaded).
    fn fluid(&self, _x: i64, _y: i64, _z: i64) -> Option<Fluid> {
        None
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Player {
    /// Feet, centre of the box's base.
    pub pos: DVec3,
    pub vel: DVec3,
    pub yaw: f64,
    pub pitch: f64,
    pub mode: Mode,
    pub on_ground: bool,
    /// The fluid around the body (walking only; flying ignores fluids).
    pub in_fluid: Option<Fluid>,
    /// How far the eye still lags below its place after a step up, m.
    pub step_ease: f64,
}

impl Player {
    pub fn new(feet: DVec3, yaw: f64, pitch: f64) -> Player {
        Player {
            pos: feet,
            vel: DVec3::ZERO,
            yaw,
            pitch,
            mode: Mode::Fly,
            on_ground: false,
            in_fluid: None,
            step_ease: 0.0,
        }
    }

    /// Whether the player's box overlaps block `b`.
    pub fn overlaps_block(&self, b: crate::world::edits::BlockPos) -> bool {
        let h = WIDTH / 2.0;
        let (lo, hi) = (self.pos - DVec3::new(h, 0.0, h), self.pos + DVec3::new(h, HEIGHT, h));
        let (bx, by, bz) = (b.x as f64, b.y as f64, b.z as f64);
        lo.x < bx + 1.0 && hi.x > bx && lo.y < by + 1.0 && hi.y > by && lo.z < bz + 1.0 && hi.z > bz
    }

    /// The eye, eased below its place for a moment after a step up.
    pub fn eye(&self) -> DVec3 {
        self.pos + DVec3::new(0.0, EYE - self.step_ease, 0.0)
    }

    /// The fluid the body is in: the block at the height of its hips.
    fn fluid_at(&self, world: &dyn SolidQuery) -> Option<Fluid> {
        let p = self.pos + DVec3::new(0.0, 0.4, 0.0);
        world.fluid(p.x.floor() as i64, p.y.floor() as i64, p.z.floor() as i64)
    }

    pub fn chunk(&self) -> ChunkPos {
        ChunkPos::containing([self.pos.x.floor() as i64, self.pos.y.floor() as i64, self.pos.z.floor() as i64])
    }

    pub fn look(&mut self, d_yaw: f64, d_pitch: f64) {
        self.yaw = (self.yaw + d_yaw).rem_euclid(360.0);
        self.pitch = (self.pitch + d_pitch).clamp(-89.0, 89.0);
    }

    /// One fixed step of `dt` seconds.
    pub fn step(&mut self, dt: f64, intent: Intent, world: &dyn SolidQuery) {
        let yaw = self.yaw.to_radians();
        let forward = DVec3::new(yaw.sin(), 0.0, yaw.cos());
        let right = DVec3::new(-yaw.cos(), 0.0, yaw.sin());
        let mut wish = forward * intent.forward + right * intent.right;
        if wish.length_squared() > 1.0 {
            wish = wish.normalize();
        }
        match self.mode {
            Mode::Fly => {
                let speed = FLY_SPEED * if intent.sprint { 3.0 } else { 1.0 };
                self.vel = (wish + DVec3::Y * intent.up) * speed;
            }
            Mode::Walk => match self.fluid_at(world) {
                None => {
                    let speed = WALK_SPEED * if intent.sprint { 1.6 } else { 1.0 };
                    self.vel.x = wish.x * speed;
                    self.vel.z = wish.z * speed;
                    self.vel.y -= GRAVITY * dt;
                    self.vel.y = self.vel.y.max(-60.0);
                    if intent.jump && self.on_ground {
                        self.vel.y = JUMP_SPEED;
                    }
                }
                Some(f) => {
                    let swim = f.swim();
                    let speed = if intent.sprint { swim.sprint_speed } else { swim.speed };
                    self.vel.x = wish.x * speed;
                    self.vel.z = wish.z * speed;
                    // Drag pulls the vertical speed towards sinking, or
                    // rising with Space; a fall into the water is braked.
                    let target = if intent.jump { swim.rise } else { -swim.sink };
                    self.vel.y += (target - self.vel.y) * (1.0 - (-dt / swim.drag_s).exp());
                }
            },
        }
        self.in_fluid = if self.mode == Mode::Walk { self.fluid_at(world) } else { None };
        self.step_ease = (self.step_ease - STEP_EASE_SPEED * dt).max(0.0);
        // Inside something solid — most often terrain not loaded yet, which
        // counts as solid — the player waits: snapping out of it would push
        // them a block per tick.
        if self.overlaps(self.pos, world) {
            self.vel = DVec3::ZERO;
            return;
        }
        // A walker on the ground steps up what stops it; a swimmer too,
        // and with Space held climbs out onto a bank.
        let max_lift = match (self.mode, self.in_fluid) {
            (Mode::Walk, Some(_)) if intent.jump => SWIM_OUT_HEIGHT,
            (Mode::Walk, Some(_)) => STEP_HEIGHT,
            (Mode::Walk, None) if self.on_ground => STEP_HEIGHT,
            _ => 0.0,
        };
        self.on_ground = false;
        let delta = self.vel * dt;
        for axis in [1, 0, 2] {
            self.move_axis(axis, delta[axis], world, max_lift);
        }
    }

    fn overlaps(&self, p: DVec3, world: &dyn SolidQuery) -> bool {
        let h = WIDTH / 2.0;
        let eps = 1e-6;
        let (x0, x1) = ((p.x - h + eps).floor() as i64, (p.x + h - eps).floor() as i64);
        let (y0, y1) = ((p.y + eps).floor() as i64, (p.y + HEIGHT - eps).floor() as i64);
        let (z0, z1) = ((p.z - h + eps).floor() as i64, (p.z + h - eps).floor() as i64);
        // The edge of the accepted range is a wall: no command or save
        // takes a position past it, so nobody walks there either.
        let edge = crate::world::coords::ACCEPTED_BLOCKS - 1;
        [x0, x1, y0, y1, z0, z1].iter().any(|v| v.abs() >= edge)
            || (x0..=x1).any(|x| (y0..=y1).any(|y| (z0..=z1).any(|z| world.solid(x, y, z))))
    }

    /// Steps up onto what blocks a horizontal move to `next`: lifts the box
    /// onto the top of the lowest block in the way that is at most
    /// `max_lift` up, if the box fits there, moved. True if it did.
    fn step_up(&mut self, next: DVec3, world: &dyn SolidQuery, max_lift: f64) -> bool {
        let feet_block = (self.pos.y + 1e-3).floor();
        for top in [feet_block + 1.0, feet_block + 2.0] {
            let lift = top - self.pos.y + 1e-4;
            if lift > max_lift + 1e-3 {
                break;
            }
            let raised = DVec3::new(next.x, next.y + lift, next.z);
            let here = DVec3::new(self.pos.x, self.pos.y + lift, self.pos.z);
            if self.overlaps(here, world) || self.overlaps(raised, world) {
                continue;
            }
            self.pos = raised;
            self.step_ease = (self.step_ease + lift).min(max_lift);
            self.vel.y = self.vel.y.max(0.0);
            self.on_ground = true;
            return true;
        }
        false
    }

    /// Moves along one axis in steps of at most half a block, stopping flush
    /// against the first solid block, or stepping up onto it by at most
    /// `max_lift` when the axis is horizontal.
    fn move_axis(&mut self, axis: usize, amount: f64, world: &dyn SolidQuery, max_lift: f64) {
        let steps = (amount.abs() / 0.45).ceil().max(1.0) as usize;
        let step = amount / steps as f64;
        for _ in 0..steps {
            let mut next = self.pos;
            next[axis] += step;
            if !self.overlaps(next, world) {
                self.pos = next;
                continue;
            }
            if max_lift > 0.0 && axis != 1 && self.step_up(next, world, max_lift) {
                continue;
            }
            // Snap to the block face we hit.
            let h = if axis == 1 { 0.0 } else { WIDTH / 2.0 };
            if step > 0.0 {
                let top = if axis == 1 { HEIGHT } else { h };
                let edge = (self.pos[axis] + top + step).floor();
                self.pos[axis] = edge - top - 1e-4;
            } else {
                let edge = (self.pos[axis] - h + step).floor() + 1.0;
                self.pos[axis] = edge + h + 1e-4;
                if axis == 1 {
                    self.on_ground = true;
                }
            }
            if self.overlaps(self.pos, world) {
                // Never end a step inside terrain: undo the snap.
                self.pos[axis] -= if step > 0.0 { -1e-4 } else { 1e-4 };
            }
            self.vel[axis] = 0.0;
            return;
        }
    }
}

/// Solid blocks from loaded chunks.
pub struct LoadedChunks<'a> {
    pub get: &'a dyn Fn(ChunkPos) -> Option<&'a crate::world::chunk::Chunk>,
}

impl SolidQuery for LoadedChunks<'_> {
    fn solid(&self, x: i64, y: i64, z: i64) -> bool {
        let pos = ChunkPos::containing([x, y, z]);
        match (self.get)(pos) {
            Some(c) => {
                let l = |v: i64| v.rem_euclid(CHUNK_SIZE_I64) as usize;
                c.blocks().get(l(x), l(y), l(z)).info().solid
            }
            None => true,
        }
    }

    fn fluid(&self, x: i64, y: i64, z: i64) -> Option<Fluid> {
        let c = (self.get)(ChunkPos::containing([x, y, z]))?;
        let l = |v: i64| v.rem_euclid(CHUNK_SIZE_I64) as usize;
        Some(match c.blocks().get(l(x), l(y), l(z)).fluid_kind()? {
            FluidKind::Water => Fluid::Water,
            FluidKind::Lava => Fluid::Lava,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ground at y < 0 everywhere, and a wall at x ≥ 5.
    struct Terrain;
    impl SolidQuery for Terrain {
        fn solid(&self, x: i64, y: i64, _z: i64) -> bool {
            y < 0 || x >= 5
        }
    }

    #[test]
    fn walking_player_lands_and_stops_at_a_wall() {
        let mut p = Player::new(DVec3::new(0.5, 3.0, 0.5), 90.0, 0.0);
        p.mode = Mode::Walk;
        for _ in 0..600 {
            p.step(1.0 / 60.0, Intent { forward: 1.0, ..Default::default() }, &Terrain);
            assert!(!p.overlaps(p.pos, &Terrain), "inside terrain at {:?}", p.pos);
        }
        assert!(p.on_ground);
        assert!(p.pos.y.abs() < 0.01, "feet at {}", p.pos.y);
        assert!(p.pos.x < 5.0 - WIDTH / 2.0 + 1e-3 && p.pos.x > 4.0, "x = {}", p.pos.x);
    }

    /// Open air everywhere.
    struct Air;
    impl SolidQuery for Air {
        fn solid(&self, _x: i64, _y: i64, _z: i64) -> bool {
            false
        }
    }

    #[test]
    fn flight_stops_at_the_edge_of_the_accepted_range() {
        let edge = crate::world::coords::ACCEPTED_BLOCKS as f64;
        for (yaw, start) in [(90.0, DVec3::new(edge - 40.0, 70.0, 0.5)), (180.0, DVec3::new(0.5, 70.0, 40.0 - edge))] {
            let mut p = Player::new(start, yaw, 0.0);
            for _ in 0..240 {
                p.step(1.0 / 60.0, Intent { forward: 1.0, sprint: true, ..Default::default() }, &Air);
            }
            let far = p.pos.x.abs().max(p.pos.z.abs());
            assert!(far < edge - 1.0 && far > edge - 3.0, "stopped {} blocks from the edge", edge - far);
        }
    }

    #[test]
    fn fast_flight_does_not_tunnel() {
        let mut p = Player::new(DVec3::new(0.5, 10.0, 0.5), 0.0, 0.0);
        for _ in 0..120 {
            p.step(1.0 / 60.0, Intent { up: -1.0, sprint: true, ..Default::default() }, &Terrain);
            assert!(!p.overlaps(p.pos, &Terrain));
        }
        assert!(p.pos.y >= 0.0 && p.pos.y < 0.01);
    }

    /// Everything solid: how the world looks before its chunks load.
    struct Unloaded;
    impl SolidQuery for Unloaded {
        fn solid(&self, _: i64, _: i64, _: i64) -> bool {
            true
        }
    }

    #[test]
    fn a_player_in_unloaded_terrain_waits_instead_of_drifting() {
        for mode in [Mode::Fly, Mode::Walk] {
            let mut p = Player::new(DVec3::new(9.3, 2.0001, 2.3), 35.0, -10.0);
            p.mode = mode;
            for _ in 0..40 {
                p.step(1.0 / 60.0, Intent::default(), &Unloaded);
            }
            assert_eq!(p.pos, DVec3::new(9.3, 2.0001, 2.3), "{mode:?}");
        }
    }

    /// Ground at y < 0, a rise of `rise` blocks from x ≥ 5.
    struct Rise(i64);
    impl SolidQuery for Rise {
        fn solid(&self, x: i64, y: i64, _z: i64) -> bool {
            y < 0 || (x >= 5 && y < self.0)
        }
    }

    /// Walks east for `ticks`; the largest change of the eye's height in one tick.
    fn walk_east(p: &mut Player, world: &dyn SolidQuery, ticks: usize, jump: bool) -> f64 {
        let mut most = 0.0f64;
        for _ in 0..ticks {
            let eye = p.eye().y;
            p.step(1.0 / 60.0, Intent { forward: 1.0, jump, ..Default::default() }, world);
            most = most.max((p.eye().y - eye).abs());
            assert!(!p.overlaps(p.pos, world), "inside terrain at {:?}", p.pos);
        }
        most
    }

    #[test]
    fn walking_into_a_one_block_rise_steps_onto_it_with_the_eye_eased() {
        let mut p = Player::new(DVec3::new(0.5, 0.0001, 0.5), 90.0, 0.0);
        p.mode = Mode::Walk;
        let most = walk_east(&mut p, &Rise(1), 120, false);
        assert!(p.pos.x > 6.0 && (p.pos.y - 1.0).abs() < 0.01, "ended at {:?}", p.pos);
        // The eye glides up instead of jumping a block in one tick.
        assert!(most <= STEP_EASE_SPEED / 60.0 + 0.02, "the eye moved {most} m in a tick");
        assert!(p.step_ease.abs() < 1e-9, "the eye caught up");
    }

    #[test]
    fn a_two_block_rise_stops_a_walker_and_a_jump_does_not_clear_it() {
        for jump in [false, true] {
            let mut p = Player::new(DVec3::new(0.5, 0.0001, 0.5), 90.0, 0.0);
            p.mode = Mode::Walk;
            walk_east(&mut p, &Rise(2), 120, jump);
            assert!(p.pos.x < 5.0 && p.pos.y < 1.4, "jump {jump}: got to {:?}", p.pos);
        }
        // Flying does not step: it stops at the rise.
        let mut p = Player::new(DVec3::new(0.5, 0.0001, 0.5), 90.0, 0.0);
        walk_east(&mut p, &Rise(1), 60, false);
        assert!(p.pos.x < 5.0, "a flyer stepped to {:?}", p.pos);
    }

    /// A lake of `fluid` over y in -20..0 (its surface at 0), its floor
    /// below, and a bank one block above the surface from x ≥ 5.
    struct Lake(Fluid);
    impl SolidQuery for Lake {
        fn solid(&self, x: i64, y: i64, _z: i64) -> bool {
            y < -20 || (x >= 5 && y < 1)
        }
        fn fluid(&self, x: i64, y: i64, z: i64) -> Option<Fluid> {
            ((-20..0).contains(&y) && !self.solid(x, y, z)).then_some(self.0)
        }
    }

    fn swim(p: &mut Player, world: &dyn SolidQuery, seconds: f64, intent: Intent) -> Vec<DVec3> {
        (0..(seconds * 60.0) as usize)
            .map(|_| {
                p.step(1.0 / 60.0, intent, world);
                p.pos
            })
            .collect()
    }

    #[test]
    fn under_water_a_player_sinks_slowly_and_rises_with_space() {
        let start = DVec3::new(0.5, -11.8, 0.5);
        let mut p = Player::new(start, 90.0, 0.0);
        p.mode = Mode::Walk;
        // Released with Space held 10 blocks under (the eye at -10.2): the
        // eye is above the surface within 4.5 s.
        let path = swim(&mut p, &Lake(Fluid::Water), 4.5, Intent { jump: true, ..Default::default() });
        let out = path.iter().position(|q| q.y + EYE > 0.0).map(|i| i as f64 / 60.0);
        assert!(out.is_some_and(|t| t < 4.5), "the eye surfaced after {out:?} s");
        // Without Space, it sinks at the water's rate once the drag settles.
        let mut p = Player::new(start + DVec3::Y * 6.0, 90.0, 0.0);
        p.mode = Mode::Walk;
        let path = swim(&mut p, &Lake(Fluid::Water), 3.0, Intent::default());
        let rate = (path[60].y - path[179].y) / (119.0 / 60.0);
        assert!((rate - Fluid::Water.swim().sink).abs() < 0.05, "sank at {rate} m/s");
        assert_eq!(p.in_fluid, Some(Fluid::Water));
        // Lava is thicker: slower down, slower up.
        let mut p = Player::new(start + DVec3::Y * 6.0, 90.0, 0.0);
        p.mode = Mode::Walk;
        let path = swim(&mut p, &Lake(Fluid::Lava), 3.0, Intent::default());
        let lava_rate = (path[60].y - path[179].y) / (119.0 / 60.0);
        assert!(lava_rate < 0.6 * rate, "lava {lava_rate} m/s against water {rate}");
        // Flying ignores the water.
        let mut p = Player::new(start, 0.0, 0.0);
        swim(&mut p, &Lake(Fluid::Water), 0.5, Intent { forward: 1.0, ..Default::default() });
        assert!(p.in_fluid.is_none() && p.pos.z > 0.5 + 0.4 * FLY_SPEED, "flew to {:?}", p.pos);
    }

    #[test]
    fn a_swimmer_climbs_out_onto_a_bank_with_space_and_not_without() {
        let mut p = Player::new(DVec3::new(0.5, -3.0, 0.5), 90.0, 0.0);
        p.mode = Mode::Walk;
        let across = Intent { forward: 1.0, jump: true, ..Default::default() };
        let world = Lake(Fluid::Water);
        for _ in 0..6 * 60 {
            if p.pos.x > 5.6 {
                break;
            }
            p.step(1.0 / 60.0, across, &world);
        }
        swim(&mut p, &world, 1.0, Intent::default());
        assert!(p.pos.x > 5.5 && (p.pos.y - 1.0).abs() < 0.01, "ended at {:?}", p.pos);
        assert!(p.in_fluid.is_none() && p.on_ground);
        // Without Space the swimmer stays in the lake, at the bank's foot.
        let mut p = Player::new(DVec3::new(0.5, -3.0, 0.5), 90.0, 0.0);
        p.mode = Mode::Walk;
        swim(&mut p, &Lake(Fluid::Water), 6.0, Intent { forward: 1.0, ..Default::default() });
        assert!(p.pos.x < 5.0 && p.in_fluid.is_some(), "ended at {:?}", p.pos);
    }
}
