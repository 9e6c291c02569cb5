//! The player: an axis-aligned box that flies or walks, collides with solid
//! blocks axis by axis, and never enters terrain.

use crate::world::coords::{ChunkPos, CHUNK_SIZE_I64};
use glam::DVec3;

pub const WIDTH: f64 = 0.6;
pub const HEIGHT: f64 = 1.8;
pub const EYE: f64 = 1.62;
pub const WALK_SPEED: f64 = 5.0;
pub const FLY_SPEED: f64 = 24.0;
pub const GRAVITY: f64 = 28.0;
pub const JUMP_SPEED: f64 = 8.5;

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
}

impl Player {
    pub fn new(feet: DVec3, yaw: f64, pitch: f64) -> Player {
        Player { pos: feet, vel: DVec3::ZERO, yaw, pitch, mode: Mode::Fly, on_ground: false }
    }

    /// Whether the player's box overlaps block `b`.
    pub fn overlaps_block(&self, b: crate::world::edits::BlockPos) -> bool {
        let h = WIDTH / 2.0;
        let (lo, hi) = (self.pos - DVec3::new(h, 0.0, h), self.pos + DVec3::new(h, HEIGHT, h));
        let (bx, by, bz) = (b.x as f64, b.y as f64, b.z as f64);
        lo.x < bx + 1.0 && hi.x > bx && lo.y < by + 1.0 && hi.y > by && lo.z < bz + 1.0 && hi.z > bz
    }

    pub fn eye(&self) -> DVec3 {
        self.pos + DVec3::new(0.0, EYE, 0.0)
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
            Mode::Walk => {
                let speed = WALK_SPEED * if intent.sprint { 1.6 } else { 1.0 };
                self.vel.x = wish.x * speed;
                self.vel.z = wish.z * speed;
                self.vel.y -= GRAVITY * dt;
                self.vel.y = self.vel.y.max(-60.0);
                if intent.jump && self.on_ground {
                    self.vel.y = JUMP_SPEED;
                }
            }
        }
        // Inside something solid — most often terrain not loaded yet, which
        // counts as solid — the player waits: snapping out of it would push
        // them a block per tick.
        if self.overlaps(self.pos, world) {
            self.vel = DVec3::ZERO;
            return;
        }
        self.on_ground = false;
        let delta = self.vel * dt;
        for axis in [1, 0, 2] {
            self.move_axis(axis, delta[axis], world);
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

    /// Moves along one axis in steps of at most half a block, stopping flush
    /// against the first solid block.
    fn move_axis(&mut self, axis: usize, amount: f64, world: &dyn SolidQuery) {
        let steps = (amount.abs() / 0.45).ceil().max(1.0) as usize;
        let step = amount / steps as f64;
        for _ in 0..steps {
            let mut next = self.pos;
            next[axis] += step;
            if !self.overlaps(next, world) {
                self.pos = next;
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
}
