//! Which block the player is looking at: a voxel ray walk (Amanatides–Woo
//! DDA) from the eye, block by block, across chunk borders, in f64 world
//! coordinates so it stays exact a million blocks out.

use crate::world::block::{BlockId, Shape};
use crate::world::edits::BlockPos;
use glam::DVec3;

/// How far the player reaches, in blocks.
pub const REACH: f64 = 6.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub block: BlockPos,
    /// The face the ray entered through, as a unit offset (where a placed
    /// block goes). Zero when the eye is inside the block.
    pub normal: [i64; 3],
}

impl Hit {
    pub fn place_at(&self) -> BlockPos {
        BlockPos::new(self.block.x + self.normal[0], self.block.y + self.normal[1], self.block.z + self.normal[2])
    }
}

/// Blocks a ray stops at: anything drawn except liquids.
pub fn targetable(b: BlockId) -> bool {
    let info = b.info();
    info.shape != Shape::None && !info.liquid
}

/// The first targetable block within `reach` along `dir` from `eye`;
/// `block` answers None where nothing is loaded (the ray stops there).
pub fn raycast(eye: DVec3, dir: DVec3, reach: f64, block: impl Fn(BlockPos) -> Option<BlockId>) -> Option<Hit> {
    let dir = dir.try_normalize()?;
    let mut cell = [eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64];
    let (o, d) = (eye.to_array(), dir.to_array());
    let mut step = [0i64; 3];
    let mut t_max = [f64::INFINITY; 3];
    let mut t_delta = [f64::INFINITY; 3];
    for a in 0..3 {
        if d[a] > 0.0 {
            step[a] = 1;
            t_max[a] = ((cell[a] + 1) as f64 - o[a]) / d[a];
            t_delta[a] = 1.0 / d[a];
        } else if d[a] < 0.0 {
            step[a] = -1;
            t_max[a] = (cell[a] as f64 - o[a]) / d[a];
            t_delta[a] = -1.0 / d[a];
        }
    }
    let mut normal = [0i64; 3];
    let mut t = 0.0;
    while t <= reach {
        let pos = BlockPos::new(cell[0], cell[1], cell[2]);
        if targetable(block(pos)?) {
            return Some(Hit { block: pos, normal });
        }
        let a = (0..3).min_by(|&i, &j| t_max[i].total_cmp(&t_max[j])).unwrap_or(0);
        t = t_max[a];
        cell[a] += step[a];
        t_max[a] += t_delta[a];
        normal = [0; 3];
        normal[a] = -step[a];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stone at y < 0, air above, and one glass block.
    fn world(p: BlockPos) -> Option<BlockId> {
        Some(if p == BlockPos::new(3, 1, 0) {
            BlockId::GLASS
        } else if p.y < 0 {
            BlockId::STONE
        } else {
            BlockId::AIR
        })
    }

    #[test]
    fn looking_down_hits_the_ground_through_its_top_face() {
        let hit = raycast(DVec3::new(0.5, 1.62, 0.5), DVec3::new(0.0, -1.0, 0.0), REACH, world).unwrap();
        assert_eq!(hit, Hit { block: BlockPos::new(0, -1, 0), normal: [0, 1, 0] });
        assert_eq!(hit.place_at(), BlockPos::new(0, 0, 0));
    }

    #[test]
    fn the_ray_crosses_chunk_borders_far_out_and_stops_at_reach() {
        let far = 1_000_000.0 * 32.0 - 2.5;
        let lookup = |p: BlockPos| Some(if p.x == 32_000_000 { BlockId::STONE } else { BlockId::AIR });
        let hit = raycast(DVec3::new(far, 10.5, -far), DVec3::X, REACH, lookup).unwrap();
        assert_eq!((hit.block.x, hit.normal), (32_000_000, [-1, 0, 0]));
        assert_eq!(raycast(DVec3::new(far - 10.0, 10.5, 0.5), DVec3::X, REACH, lookup), None);
    }

    #[test]
    fn the_side_of_a_block_gives_its_side_normal_and_liquids_are_passed() {
        let hit = raycast(DVec3::new(0.5, 1.5, 0.5), DVec3::new(1.0, 0.0, 0.0), REACH, world).unwrap();
        assert_eq!(hit, Hit { block: BlockPos::new(3, 1, 0), normal: [-1, 0, 0] });
        let water = |p: BlockPos| Some(if p.y < 0 { BlockId::WATER } else { BlockId::AIR });
        assert_eq!(raycast(DVec3::new(0.5, 1.5, 0.5), DVec3::NEG_Y, REACH, water), None);
        assert_eq!(raycast(DVec3::new(0.5, 1.5, 0.5), DVec3::NEG_Y, REACH, |_| None), None, "nothing loaded");
    }
}
