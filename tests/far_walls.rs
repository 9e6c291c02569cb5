//! The chunks' walls hide far terrain only where a straight line from the
//! eye to the far terrain meets an opaque block. In a valley of classic's
//! (seed 42), the chunks around the eye are generated and their walls made
//! as the game makes them (`Chunk::solid_rows` into `SolidColumns`). On
//! every bearing and at several distances, the highest small far tile the
//! occlusion calls hidden has the lines to its top traced block by block
//! through the chunks: each must stop at an opaque block. Then a tunnel is
//! dug at the eye's height and the same holds, while a tile seen down the
//! tunnel is no longer hidden. Walls claiming eight blocks more than the
//! chunks hold fail it (the tile down the tunnel stays hidden), and
//! fifteen more fail the traced lines.

use blockworld::far::clipmap::TileKey;
use blockworld::far::occlusion::{visible, Candidate, SolidColumns, Wall, PARTS};
use blockworld::world::block::BlockId;
use blockworld::world::chunk::Chunk;
use blockworld::world::coords::{block_index, ChunkPos, CHUNK_SIZE};
use blockworld::worldgen::{Preset, WorldGen};
use glam::DVec3;
use std::collections::HashMap;

/// Chunk columns either side of the eye's.
const R: i32 = 5;
/// Low in a valley west of the spawn, 20 blocks over the water.
const EYE: DVec3 = DVec3::new(-79.5, 20.5, -39.5);

struct World {
    chunks: HashMap<ChunkPos, Chunk>,
    /// The chunk heights generated: from the water level's chunk up.
    ys: std::ops::RangeInclusive<i32>,
    floor: i32,
}

impl World {
    fn generate(w: &WorldGen) -> World {
        let floor = w.params.surface.water_level;
        let ys = floor.div_euclid(CHUNK_SIZE as i32)..=9;
        let mut chunks = HashMap::new();
        for z in -R..=R {
            for x in -R..=R {
                for y in ys.clone() {
                    let pos = ChunkPos::new(x, y, z);
                    chunks.insert(pos, w.generate(pos));
                }
            }
        }
        World { chunks, ys, floor }
    }

    fn opaque(&self, p: [i64; 3]) -> bool {
        let l = |v: i64| v.rem_euclid(CHUNK_SIZE as i64) as usize;
        self.chunks
            .get(&ChunkPos::containing(p))
            .is_some_and(|c| c.blocks().get(l(p[0]), l(p[1]), l(p[2])).info().opaque())
    }

    fn dig(&mut self, p: [i64; 3]) {
        let l = |v: i64| v.rem_euclid(CHUNK_SIZE as i64) as usize;
        if let Some(c) = self.chunks.get_mut(&ChunkPos::containing(p)) {
            c.set(block_index(l(p[0]), l(p[1]), l(p[2])), BlockId::AIR);
        }
    }

    /// The walls for the eye, every chunk counting as drawn.
    fn walls(&self) -> Vec<Wall> {
        let mut solid = SolidColumns::default();
        for z in -R..=R {
            for x in -R..=R {
                let rows = self.ys.clone().map(|y| (y, self.chunks[&ChunkPos::new(x, y, z)].solid_rows()));
                solid.set([x, z], rows);
            }
        }
        solid.walls(EYE.y)
    }

    /// Whether the straight line from `from` to `to` meets an opaque block,
    /// block by block (Amanatides–Woo).
    fn blocked(&self, from: DVec3, to: DVec3) -> bool {
        let d = to - from;
        let len = d.length();
        let dir = d / len;
        let mut cell = from.floor().as_i64vec3().to_array();
        let step = [dir.x, dir.y, dir.z].map(|v| if v > 0.0 { 1 } else { -1 });
        let f = from.to_array();
        let dirs = dir.to_array();
        let mut next = [0usize, 1, 2].map(|a| {
            if dirs[a] == 0.0 {
                f64::INFINITY
            } else {
                let edge = cell[a] as f64 + if step[a] > 0 { 1.0 } else { 0.0 };
                (edge - f[a]) / dirs[a]
            }
        });
        let delta = dirs.map(|v| if v == 0.0 { f64::INFINITY } else { 1.0 / v.abs() });
        loop {
            if self.opaque(cell) {
                return true;
            }
            let a = if next[0] <= next[1] && next[0] <= next[2] {
                0
            } else if next[1] <= next[2] {
                1
            } else {
                2
            };
            if next[a] > len {
                return false;
            }
            cell[a] += step[a];
            next[a] += delta[a];
        }
    }
}

/// A level-0 far tile (64 blocks) around the point `d` blocks out on
/// bearing `deg`, from the floor up to `top`, hiding nothing itself.
fn probe(deg: f64, d: f64, floor: i32, top: i32) -> Candidate {
    let (s, c) = deg.to_radians().sin_cos();
    let at = [EYE.x + d * s, EYE.z + d * c].map(|v| v.div_euclid(64.0) as i32);
    Candidate {
        key: TileKey { level: 0, x: at[0], z: at[1] },
        part_min: [floor; PARTS * PARTS],
        bottom: floor,
        top_max: top,
        whole: false,
    }
}

/// Points of a probe's box: its top corners and middle, and the point of
/// its top nearest the eye, where the steepest line of sight to it ends.
fn points(t: &Candidate) -> Vec<DVec3> {
    let [x0, z0] = t.key.origin().map(|v| v as f64);
    let b = t.key.blocks() as f64;
    let y = t.top_max as f64;
    let mut out: Vec<DVec3> = [(0.0, 0.0), (b, 0.0), (0.0, b), (b, b), (b / 2.0, b / 2.0)]
        .map(|(dx, dz)| DVec3::new(x0 + dx, y, z0 + dz))
        .into();
    out.push(DVec3::new(EYE.x.clamp(x0, x0 + b), y, EYE.z.clamp(z0, z0 + b)));
    out
}

/// On every bearing and at several distances, the highest probe the walls
/// hide (found by halving: hiding only gets harder as a tile rises) has
/// every line to it blocked: the lines that graze the walls' claim.
/// Returns the probes hidden, as (bearing, distance, top).
fn check(world: &World) -> Vec<(f64, f64, i32)> {
    let walls = world.walls();
    assert!(!walls.is_empty(), "no walls in the valley");
    let hidden = |deg: f64, d: f64, top: i32| !visible(EYE.to_array(), &[probe(deg, d, world.floor, top)], &walls)[0];
    let mut out = Vec::new();
    for k in 0..180 {
        let deg = k as f64 * 2.0;
        for d in [240.0, 400.0, 900.0] {
            if !hidden(deg, d, world.floor) {
                continue;
            }
            let (mut lo, mut hi) = (world.floor, 1024);
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if hidden(deg, d, mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            out.push((deg, d, lo));
            let t = probe(deg, d, world.floor, lo);
            for p in points(&t) {
                assert!(
                    world.blocked(EYE, p),
                    "tile {:?} (bearing {deg}°, {d} out, up to {lo}) called hidden, but the line to {p} meets no opaque block",
                    t.key
                );
            }
        }
    }
    out
}

#[test]
fn walls_hide_only_what_opaque_blocks_hide() {
    let w = WorldGen::new(Preset::classic(), 42);
    let mut world = World::generate(&w);
    assert!(!world.opaque(EYE.floor().as_i64vec3().to_array()), "the eye stands in the open");
    let hidden = check(&world);
    assert!(hidden.len() >= 50, "only {} probes hidden: the test proves little", hidden.len());
    // A tile rising above the eye, far out, hidden behind the mountains.
    let high = EYE.y as i32 + 5;
    let &(deg, _, _) = hidden
        .iter()
        .find(|&&(_, d, top)| d == 900.0 && top >= high)
        .expect("no high tile far out is hidden: no tunnel to dig");
    let walls = world.walls();
    let down_the_tunnel = probe(deg, 900.0, world.floor, high);
    assert!(!visible(EYE.to_array(), &[down_the_tunnel], &walls)[0]);
    // A tunnel two blocks high at the eye's height, from the eye out past
    // the chunks on that bearing.
    let (s, c) = deg.to_radians().sin_cos();
    for i in 0..(R as i64 + 1) * CHUNK_SIZE as i64 * 4 {
        let t = i as f64 * 0.5;
        let at = (EYE + DVec3::new(s * t, 0.0, c * t)).floor().as_i64vec3().to_array();
        for (dx, dy, dz) in [(0, 0, 0), (0, -1, 0), (1, 0, 0), (1, -1, 0), (0, 0, 1), (0, -1, 1)] {
            world.dig([at[0] + dx, at[1] + dy, at[2] + dz]);
        }
    }
    let after = check(&world);
    let walls = world.walls();
    assert!(
        visible(EYE.to_array(), &[down_the_tunnel], &walls)[0],
        "the tile down the tunnel (bearing {deg}°) is still hidden; {} probes hidden after the dig against {} before",
        after.len(),
        hidden.len()
    );
}
