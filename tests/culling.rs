//! Visibility culling never hides what the eye can see.
//!
//! Ground truth, per view: straight rays from the eye through every part
//! of the picture, each stepped block by block until it meets an opaque
//! block. Every chunk a ray crosses or ends in holds something the eye
//! sees (a face, water, leaves) and must be in the walk's set. Beside it,
//! the open space the eye reaches ([`Reach`]) bounds the rays (each ray's
//! chunks can show the eye something) and the face links (a walk allowed
//! to turn anywhere covers every chunk the flood reaches).

use blockworld::render::camera::{Camera, DEFAULT_FOV_DEGREES};
use blockworld::render::culling::{CullBox, Culler, Steps};
use blockworld::world::block::BlockId;
use blockworld::world::chunk::Chunk;
use blockworld::world::coords::{block_index, column_index, ChunkPos, ColumnPos, CHUNK_SIZE};
use blockworld::world::reach::Reach;
use blockworld::world::visibility::FaceLinks;
use blockworld::worldgen::{Preset, WorldGen};
use glam::DVec3;
use std::collections::{HashMap, HashSet};

const FROM: ChunkPos = ChunkPos { x: -4, y: -3, z: -4 };
const TO: ChunkPos = ChunkPos { x: 4, y: 4, z: 4 };
/// Chunks each side of the eye the walk may go (inside the generated box
/// for an eye in chunks −1..=1).
const RADIUS: i32 = 3;

struct World {
    chunks: HashMap<ChunkPos, Chunk>,
    links: HashMap<ChunkPos, FaceLinks>,
}

impl World {
    fn generate(w: &WorldGen) -> World {
        let mut chunks = HashMap::new();
        for z in FROM.z..=TO.z {
            for x in FROM.x..=TO.x {
                for y in FROM.y..=TO.y {
                    let pos = ChunkPos::new(x, y, z);
                    chunks.insert(pos, w.generate(pos));
                }
            }
        }
        let links = chunks.iter().map(|(&p, c)| (p, FaceLinks::of(c))).collect();
        World { chunks, links }
    }

    fn block(&self, p: [i64; 3]) -> Option<BlockId> {
        let c = self.chunks.get(&ChunkPos::containing(p))?;
        let l = |v: i64| v.rem_euclid(CHUNK_SIZE as i64) as usize;
        Some(c.blocks().get(l(p[0]), l(p[1]), l(p[2])))
    }

    /// An edit, with the chunk's links found again (as the store does).
    fn set(&mut self, p: [i64; 3], b: BlockId) {
        let pos = ChunkPos::containing(p);
        let l = |v: i64| v.rem_euclid(CHUNK_SIZE as i64) as usize;
        if let Some(c) = self.chunks.get_mut(&pos) {
            c.set(block_index(l(p[0]), l(p[1]), l(p[2])), b);
            self.links.insert(pos, FaceLinks::of(c));
        }
    }

    fn open(&self, p: [i64; 3]) -> bool {
        self.block(p).is_some_and(|b| !b.info().opaque())
    }
}

#[derive(Clone, Copy, Debug)]
struct View {
    name: &'static str,
    eye: DVec3,
    yaw: f64,
    pitch: f64,
    /// The walk's box centre, when not the eye's chunk (the range's edge).
    centre: Option<ChunkPos>,
}

const SIZE: (u32, u32) = (192, 108);

fn camera(v: &View) -> Camera {
    Camera::for_view(v.eye, v.yaw, v.pitch, DEFAULT_FOV_DEGREES, SIZE, RADIUS)
}

fn bounds(v: &View) -> CullBox {
    let centre = v.centre.unwrap_or_else(|| eye_chunk(v.eye));
    CullBox { centre, radius: RADIUS, vertical: RADIUS }
}

fn eye_chunk(eye: DVec3) -> ChunkPos {
    ChunkPos::containing([eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64])
}

fn inside(b: &CullBox, p: ChunkPos) -> bool {
    (p.x - b.centre.x).abs() <= b.radius
        && (p.z - b.centre.z).abs() <= b.radius
        && (p.y - b.centre.y).abs() <= b.vertical
}

/// The chunks each ray through the picture crosses or stops in: a grid
/// of directions over the frustum, jittered off the block lattice, each
/// stepped through blocks (Amanatides–Woo) until an opaque block, the
/// box's edge or the far plane.
fn rays(world: &World, v: &View) -> HashSet<ChunkPos> {
    let cam = camera(v);
    let b = bounds(v);
    let f = cam.forward();
    let right = f.cross(DVec3::Y).normalize();
    let up = right.cross(f);
    let tan = (cam.fov_y_degrees.to_radians() / 2.0).tan();
    let mut seen = HashSet::new();
    for j in 0..SIZE.1 {
        for i in 0..SIZE.0 {
            let nx = (2.0 * (i as f64 + 0.5 + 0.013 * (j % 7) as f64) / SIZE.0 as f64 - 1.0) * tan * cam.aspect;
            let ny = (1.0 - 2.0 * (j as f64 + 0.5 + 0.011 * (i % 5) as f64) / SIZE.1 as f64) * tan;
            let dir = (f + right * nx + up * ny).normalize();
            march(world, &b, v.eye, dir, cam.far, &mut seen);
        }
    }
    seen
}

fn march(world: &World, b: &CullBox, eye: DVec3, dir: DVec3, far: f64, seen: &mut HashSet<ChunkPos>) {
    let mut cell = [eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64];
    let step = [dir.x.signum() as i64, dir.y.signum() as i64, dir.z.signum() as i64];
    let e = eye.to_array();
    let d = dir.to_array();
    let mut next = [0.0f64; 3];
    let mut delta = [0.0f64; 3];
    for a in 0..3 {
        delta[a] = if d[a] == 0.0 { f64::INFINITY } else { 1.0 / d[a].abs() };
        let edge = if d[a] > 0.0 { cell[a] as f64 + 1.0 } else { cell[a] as f64 };
        next[a] = if d[a] == 0.0 { f64::INFINITY } else { (edge - e[a]) / d[a] };
    }
    loop {
        let chunk = ChunkPos::containing(cell);
        if !inside(b, chunk) || !world.chunks.contains_key(&chunk) {
            return;
        }
        seen.insert(chunk);
        if !world.open(cell) {
            return;
        }
        let a = (0..3).min_by(|&x, &y| next[x].total_cmp(&next[y])).unwrap_or(0);
        if next[a] > far {
            return;
        }
        cell[a] += step[a];
        next[a] += delta[a];
    }
}

fn walk(
    world: &World,
    v: &View,
    links: &dyn Fn(ChunkPos) -> FaceLinks,
    steps: Steps,
    frustum: bool,
) -> HashSet<ChunkPos> {
    let cam = camera(v);
    let b = bounds(v);
    let f = cam.frustum();
    let mut culler = Culler::default();
    culler
        .walk(v.eye, frustum.then_some(&f), b, steps, |p| world.chunks.contains_key(&p), links)
        .map(|c| c.into_iter().collect())
        .unwrap_or_default()
}

/// The chunks rays see that the walk left out.
fn missed(world: &World, v: &View, links: &dyn Fn(ChunkPos) -> FaceLinks, seen: &HashSet<ChunkPos>) -> Vec<ChunkPos> {
    let drawn = walk(world, v, links, Steps::Straight, true);
    let mut out: Vec<ChunkPos> = seen.iter().copied().filter(|p| !drawn.contains(p)).collect();
    out.sort();
    out
}

fn height(w: &WorldGen, x: i64, z: i64) -> i64 {
    let col = w.column(ColumnPos { x: x.div_euclid(32) as i32, z: z.div_euclid(32) as i32 });
    col.heightmap.heights[column_index(x.rem_euclid(32) as usize, z.rem_euclid(32) as usize)] as i64
}

/// Open blocks of `kind` (or any open block under rock, for caves) in
/// the middle chunks, spread out: at most one per chunk.
fn find(world: &World, want: impl Fn(&World, [i64; 3]) -> bool, count: usize) -> Vec<[i64; 3]> {
    let mut out: Vec<[i64; 3]> = Vec::new();
    let mut used = HashSet::new();
    for cy in [-1, 0, 1, 2] {
        for cz in -1..=1 {
            for cx in -1..=1 {
                let pos = ChunkPos::new(cx, cy, cz);
                if used.contains(&pos) || out.len() >= count {
                    continue;
                }
                let o = pos.origin();
                'search: for y in (2..30).step_by(3) {
                    for z in (3..29).step_by(4) {
                        for x in (3..29).step_by(4) {
                            let p = [o[0] + x, o[1] + y, o[2] + z];
                            if want(world, p) {
                                out.push(p);
                                used.insert(pos);
                                break 'search;
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn centre_of(p: [i64; 3]) -> DVec3 {
    DVec3::new(p[0] as f64 + 0.5, p[1] as f64 + 0.5, p[2] as f64 + 0.5)
}

/// Thirty-odd views: the surface, tunnels and chambers, under water,
/// inside leaves, on a chunk corner, through glass, at the range's edge,
/// and after an edit that opens a sealed cave to the sky.
fn views(world: &mut World, w: &WorldGen) -> Vec<View> {
    let mut views = Vec::new();
    let view = |name, eye, yaw, pitch| View { name, eye, yaw, pitch, centre: None };
    for (k, (x, z)) in
        [(5, 7), (-20, 12), (30, -25), (-9, -31), (14, 40), (-40, -5), (22, 18), (-3, 27)].into_iter().enumerate()
    {
        let y = height(w, x, z).max(64) as f64 + 2.6;
        views.push(view(
            "surface",
            DVec3::new(x as f64 + 0.3, y, z as f64 + 0.7),
            37.0 + 71.0 * k as f64,
            -25.0 + 9.0 * k as f64,
        ));
    }
    let under_rock = |world: &World, p: [i64; 3]| {
        world.block(p) == Some(BlockId::AIR)
            && (3..12).all(|d| world.block([p[0], p[1] + d, p[2]]).is_some_and(|b| b.info().opaque()))
    };
    for (k, p) in find(world, under_rock, 8).into_iter().enumerate() {
        views.push(view("cave", centre_of(p), 23.0 + 83.0 * k as f64, -40.0 + 13.0 * k as f64));
    }
    // Chambers: open three blocks out each way along x and z.
    let chamber = |world: &World, p: [i64; 3]| {
        under_rock(world, p)
            && [[3, 0], [-3, 0], [0, 3], [0, -3]].iter().all(|d| world.open([p[0] + d[0], p[1], p[2] + d[1]]))
    };
    for (k, p) in find(world, chamber, 3).into_iter().enumerate() {
        views.push(view("chamber", centre_of(p), 150.0 + 41.0 * k as f64, 5.0 - 20.0 * k as f64));
    }
    let water = |world: &World, p: [i64; 3]| {
        world.block(p) == Some(BlockId::WATER) && world.block([p[0], p[1] + 3, p[2]]) == Some(BlockId::WATER)
    };
    for (k, p) in find(world, water, 4).into_iter().enumerate() {
        views.push(view("under water", centre_of(p), 11.0 + 97.0 * k as f64, -30.0 + 15.0 * k as f64));
    }
    let leaves = |world: &World, p: [i64; 3]| world.block(p) == Some(BlockId::LEAVES);
    for (k, p) in find(world, leaves, 3).into_iter().enumerate() {
        views.push(view("inside leaves", centre_of(p), 47.0 + 120.0 * k as f64, -10.0));
    }
    // On the corner where four columns of chunks meet, above ground.
    for (k, (x, z)) in [(0i64, 0i64), (32, -32)].into_iter().enumerate() {
        let y = (height(w, x, z).max(height(w, x - 1, z - 1)).max(64) + 3) as f64;
        views.push(view(
            "chunk corner",
            DVec3::new(x as f64 + 0.01, y + 0.02, z as f64 - 0.01),
            45.0 + 180.0 * k as f64,
            -35.0,
        ));
    }
    // A glass box round the eye, above ground.
    for (k, (x, z)) in [(9i64, -14i64), (-26, 22)].into_iter().enumerate() {
        let y = height(w, x, z).max(64) + 3;
        for dx in -2..=2i64 {
            for dy in -2..=2i64 {
                for dz in -2..=2i64 {
                    if dx.abs() == 2 || dy.abs() == 2 || dz.abs() == 2 {
                        world.set([x + dx, y + dy, z + dz], BlockId::GLASS);
                    }
                }
            }
        }
        views.push(view("through glass", centre_of([x, y, z]), 200.0 + 50.0 * k as f64, -20.0));
    }
    // The eye at the edge of the walk's box, looking out and in.
    for (k, yaw) in [90.0, 270.0].into_iter().enumerate() {
        let y = height(w, 40, 3).max(64) as f64 + 3.0;
        let mut v = view("edge of the range", DVec3::new(40.5, y, 3.5), yaw, -20.0);
        v.centre = Some(ChunkPos::new(1 - 3 * k as i32, eye_chunk(v.eye).y, 0));
        views.push(v);
    }
    // A sealed cave opened by a shaft dug from the surface, seen from above.
    let sealed = find(world, under_rock, 3);
    for (k, p) in sealed.into_iter().enumerate() {
        let top = height(w, p[0], p[2]).max(p[1] + 4);
        for y in p[1]..=top + 1 {
            world.set([p[0], y, p[2]], BlockId::AIR);
        }
        let eye = DVec3::new(p[0] as f64 + 0.5, (top + 3) as f64, p[2] as f64 + 0.5);
        views.push(view("after an edit opens a wall", eye, 10.0 + 60.0 * k as f64, -89.0));
    }
    views
}

#[test]
fn culling_never_hides_what_a_ray_sees() {
    let w = WorldGen::new(Preset::classic(), 2024);
    let mut world = World::generate(&w);
    let views = views(&mut world, &w);
    let names: Vec<&str> = views.iter().map(|v| v.name).collect();
    assert!(views.len() >= 30, "{} views: {names:?}", views.len());
    for kind in [
        "surface",
        "cave",
        "under water",
        "inside leaves",
        "chunk corner",
        "through glass",
        "edge of the range",
        "after an edit",
    ] {
        assert!(views.iter().any(|v| v.name.starts_with(kind)), "no {kind} view found");
    }
    let links = |p: ChunkPos| world.links.get(&p).copied().unwrap_or(FaceLinks::ALL);
    let (mut drawn_total, mut in_box_total) = (0, 0);
    for v in &views {
        let seen = rays(&world, v);
        let b = bounds(v);
        let eye = [v.eye.x.floor() as i64, v.eye.y.floor() as i64, v.eye.z.floor() as i64];
        let reach = Reach::flood(eye, |p| world.chunks.get(&p).filter(|_| inside(&b, p)));
        for p in &seen {
            assert!(reach.may_show(*p), "{}: a ray sees {p:?}, which the flood says shows nothing", v.name);
        }
        let missed = missed(&world, v, &links, &seen);
        assert!(missed.is_empty(), "{} at {:?}: seen but culled: {missed:?}", v.name, v.eye);
        // The links agree with the flood: turning anywhere, the walk
        // reaches every chunk that can show the eye something.
        let any = walk(&world, v, &links, Steps::Any, false);
        for p in world.chunks.keys().filter(|&&p| inside(&b, p) && reach.reached(p)) {
            assert!(any.contains(p), "{}: the flood reaches {p:?}, the links do not", v.name);
        }
        drawn_total += walk(&world, v, &links, Steps::Straight, true).len();
        in_box_total += world.chunks.keys().filter(|&&p| inside(&b, p)).count();
    }
    eprintln!("{} views: {drawn_total} chunks drawn of {in_box_total} in their boxes", views.len());
    // Culling must also cull: far from every chunk in the box is drawn.
    assert!(drawn_total * 2 < in_box_total, "drawn {drawn_total} of {in_box_total}");
}

#[test]
fn one_wrongly_closed_face_pair_is_caught() {
    let w = WorldGen::new(Preset::classic(), 2024);
    let mut world = World::generate(&w);
    let views = views(&mut world, &w);
    let links = |p: ChunkPos| world.links.get(&p).copied().unwrap_or(FaceLinks::ALL);
    // In the first surface view, close one pair of one chunk a ray crosses,
    // trying chunks and pairs until the check fails.
    let v = views.iter().find(|v| v.name == "surface").copied().expect("a surface view");
    let seen = rays(&world, &v);
    assert!(missed(&world, &v, &links, &seen).is_empty());
    let start = eye_chunk(v.eye);
    let mut crossed: Vec<ChunkPos> = seen.iter().copied().filter(|&p| p != start).collect();
    crossed.sort();
    for p in crossed {
        let real = links(p);
        for a in 0..6 {
            for b in a + 1..6 {
                if !real.sees(a, b) {
                    continue;
                }
                let broken = |q: ChunkPos| if q == p { real.with(a, b, false) } else { links(q) };
                if !missed(&world, &v, &broken, &seen).is_empty() {
                    return;
                }
            }
        }
    }
    panic!("no single closed face pair made the check fail: the test cannot fail");
}
