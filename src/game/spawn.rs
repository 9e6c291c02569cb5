//! Where the player starts: on dry land nearest the origin, standing on the
//! surface block, never inside terrain or under water.

use crate::world::coords::{column_index, ChunkPos, ColumnPos};
use crate::worldgen::WorldGen;
use glam::DVec3;

/// Whether a player fits at feet height `y` of column (x, z): ground to
/// stand on (a cave may open under the surface), feet and head in blocks
/// that do not collide (a tree may stand on the nearest column).
fn fits(world: &WorldGen, x: i64, y: i64, z: i64) -> bool {
    let solid = |y: i64| {
        let b = [x, y, z];
        let c = world.generate(ChunkPos::containing(b));
        let l = |v: i64| v.rem_euclid(32) as usize;
        c.blocks().get(l(b[0]), l(b[1]), l(b[2])).info().solid
    };
    solid(y - 1) && !solid(y) && !solid(y + 1)
}

/// Feet position of the spawn point.
pub fn spawn_point(world: &WorldGen) -> DVec3 {
    let water = world.params.surface.water_level;
    for r in 0..64i32 {
        let mut dry: Vec<(i64, i64, i64, i64)> = Vec::new();
        for cz in -r..=r {
            for cx in -r..=r {
                if cx.abs().max(cz.abs()) != r {
                    continue;
                }
                let data = world.column(ColumnPos { x: cx, z: cz });
                for z in 0..32 {
                    for x in 0..32 {
                        let h = data.heightmap.heights[column_index(x, z)];
                        if h > water {
                            let (wx, wz) = (cx as i64 * 32 + x as i64, cz as i64 * 32 + z as i64);
                            dry.push((wx * wx + wz * wz, wx, h as i64 + 1, wz));
                        }
                    }
                }
            }
        }
        dry.sort_unstable();
        if let Some(&(_, x, y, z)) = dry.iter().find(|&&(_, x, y, z)| fits(world, x, y, z)) {
            return DVec3::new(x as f64 + 0.5, y as f64, z as f64 + 0.5);
        }
    }
    // An all-ocean neighbourhood: float on the water surface.
    DVec3::new(0.5, water as f64 + 1.0, 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::Preset;

    #[test]
    fn spawn_stands_on_dry_ground() {
        for seed in [1u64, 42, 7_000_000_000] {
            let world = WorldGen::new(Preset::classic(), seed);
            let p = spawn_point(&world);
            let block = |y: f64| {
                let b = [p.x.floor() as i64, y.floor() as i64, p.z.floor() as i64];
                let c = world.generate(ChunkPos::containing(b));
                let l = |v: i64| v.rem_euclid(32) as usize;
                c.blocks().get(l(b[0]), l(b[1]), l(b[2]))
            };
            assert!(block(p.y - 0.5).info().solid, "seed {seed}: nothing underfoot");
            assert!(!block(p.y + 0.5).info().solid, "seed {seed}: feet in a solid block");
            assert!(!block(p.y + 1.5).info().solid, "seed {seed}: head in a solid block");
        }
    }
}
