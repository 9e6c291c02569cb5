//! Where the player starts: on dry land nearest the origin, standing on the
//! surface block, never inside terrain or under water.

use crate::world::coords::{column_index, ColumnPos};
use crate::worldgen::WorldGen;
use glam::DVec3;

/// Feet position of the spawn point.
pub fn spawn_point(world: &WorldGen) -> DVec3 {
    let water = world.params.water_level;
    for r in 0..64i32 {
        let mut best: Option<(i64, DVec3)> = None;
        for cz in -r..=r {
            for cx in -r..=r {
                if cx.abs().max(cz.abs()) != r {
                    continue;
                }
                let hm = world.heightmap(ColumnPos { x: cx, z: cz });
                for z in 0..32 {
                    for x in 0..32 {
                        let h = hm.heights[column_index(x, z)];
                        if h <= water {
                            continue;
                        }
                        let (wx, wz) = (cx as i64 * 32 + x as i64, cz as i64 * 32 + z as i64);
                        let d = wx * wx + wz * wz;
                        if best.map(|(bd, _)| d < bd).unwrap_or(true) {
                            best = Some((d, DVec3::new(wx as f64 + 0.5, h as f64 + 1.0, wz as f64 + 0.5)));
                        }
                    }
                }
            }
        }
        if let Some((_, p)) = best {
            return p;
        }
    }
    // An all-ocean neighbourhood: float on the water surface.
    DVec3::new(0.5, water as f64 + 1.0, 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::block::BlockId;
    use crate::world::coords::ChunkPos;
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
                c.blocks.get(l(b[0]), l(b[1]), l(b[2]))
            };
            assert!(block(p.y - 0.5).info().solid, "seed {seed}: nothing underfoot");
            assert_eq!(block(p.y + 0.5), BlockId::AIR, "seed {seed}: feet not in air");
            assert_eq!(block(p.y + 1.5), BlockId::AIR, "seed {seed}: head not in air");
        }
    }
}
