//! Streaming and controls, with no GPU device: streaming hands out view
//! changes, which a plain model of the view applies here. Runtime backend
//! toggles and render-distance changes neither stall nor lose chunks, the
//! view holds exactly the meshes in range, and a walking player never
//! enters terrain.

use blockworld::backend::Engine;
use blockworld::game::engine::Switch;
use blockworld::game::player::{Intent, LoadedChunks, Mode, Player, SolidQuery, HEIGHT, WIDTH};
use blockworld::game::spawn::spawn_point;
use blockworld::game::streaming::rings::{within, within_data};
use blockworld::game::streaming::{ChunkStreamer, ViewChange};
use blockworld::world::coords::ChunkPos;
use blockworld::world::edits::BlockPos;
use blockworld::worldgen::{Preset, WorldGen};
use glam::DVec3;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

const LOAD: Duration = Duration::from_secs(120);

/// What a renderer would draw: a chunk's quads, as the view changes say.
#[derive(Default)]
struct View {
    meshes: HashMap<ChunkPos, usize>,
    /// The last range the view was told to keep.
    range: Option<(ChunkPos, i32)>,
}

impl View {
    fn apply(&mut self, changes: Vec<ViewChange>) {
        for c in changes {
            match c {
                ViewChange::Mesh(p, mesh) => {
                    assert!(!mesh.is_empty(), "an empty mesh handed out for {p}");
                    self.meshes.insert(p, mesh.quads());
                }
                ViewChange::Gone(p) => {
                    self.meshes.remove(&p);
                }
                ViewChange::Range(range) => {
                    self.meshes.retain(|&p, _| range.renders(p));
                    self.range = Some((range.centre, range.render_distance));
                }
            }
        }
    }

    fn mesh_count(&self) -> usize {
        self.meshes.len()
    }
}

fn load_all(s: &mut ChunkStreamer, centre: ChunkPos, view: &mut View, timeout: Duration) -> Result<Duration, String> {
    let took = s.load_around(centre, timeout, |c| view.apply(c)).map_err(|e| e.to_string())?;
    // The view holds meshes in range only, and every one the range needs.
    let (c, r) = view.range.expect("streaming set a range");
    assert_eq!((c, r), (centre, s.render_distance()));
    assert!(view.meshes.keys().all(|p| within(*p, c, r)), "a mesh outside the range is still drawn");
    assert_eq!(s.holes_within(r), 0, "the view is complete but has holes");
    Ok(took)
}

fn setup(seed: u64) -> (Arc<WorldGen>, View) {
    (Arc::new(WorldGen::new(Preset::classic(), seed)), View::default())
}

/// Every loaded chunk equals a fresh generation of the same position.
fn assert_chunks_intact(streamer: &ChunkStreamer, world: &WorldGen, around: ChunkPos, r: i32) {
    let mut checked = 0;
    for dz in -r..=r {
        for dx in -r..=r {
            for dy in -2..=1 {
                let p = ChunkPos::new(around.x + dx, around.y + dy, around.z + dz);
                let c = streamer.store().get(p).cloned().unwrap_or_else(|| panic!("chunk {p} missing"));
                assert_eq!(c.blocks(), world.generate(p).blocks(), "chunk {p} differs");
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn backend_toggles_and_distance_changes_neither_stall_nor_lose_chunks() {
    let (world, mut renderer) = setup(3);
    let centre = ChunkPos::new(0, 0, 0);
    // The emulated kernels stand in for a GPU where the feature is built in.
    let device = if cfg!(feature = "kernel-emulation") { Engine::CudaEmulated } else { Engine::Gpu };
    let mut s = ChunkStreamer::new(world.clone(), Engine::Cpu, device, 3);
    load_all(&mut s, centre, &mut renderer, LOAD).unwrap();
    let after_first = renderer.mesh_count();
    assert!(after_first > 0);

    // To the GPU: either it runs, or it says why and the CPU carries on.
    // The device opens on its own thread: the call returns at once and the
    // CPU keeps generating until it is ready.
    assert_eq!(s.set_engine(Engine::Gpu), Switch::Opening);
    assert_eq!(s.engine(), Engine::Cpu);
    let opened = s.wait_for_engine(LOAD);
    if cfg!(feature = "kernel-emulation") {
        assert_eq!(opened, Switch::Done);
        assert_eq!(s.engine(), device, "asking for the GPU runs this run's device");
    } else {
        assert!(matches!(opened, Switch::Unavailable(_)) && s.engine() == Engine::Cpu, "{opened:?}");
    }
    s.set_render_distance(5);
    load_all(&mut s, centre, &mut renderer, LOAD).expect("raising the distance while switching stalled");
    assert!(renderer.mesh_count() > after_first);
    assert_chunks_intact(&s, &world, centre, 5);

    // Both together: with the device open the switch is immediate, and the
    // chunks are the same whichever lane made them.
    if cfg!(feature = "kernel-emulation") {
        assert_eq!(s.set_engine(Engine::Hybrid), Switch::Done);
        assert_eq!(s.engine(), Engine::Hybrid);
        let moved = ChunkPos::new(-5, 0, 4);
        load_all(&mut s, moved, &mut renderer, LOAD).expect("hybrid generation stalled");
        assert_chunks_intact(&s, &world, moved, 5);
        let b = s.balance();
        assert_eq!((b.cpu.engine, b.device.engine), (Some(Engine::Cpu), Some(device)), "{b:?}");
        load_all(&mut s, centre, &mut renderer, LOAD).unwrap();
    }

    s.set_engine(Engine::Cpu);
    s.set_render_distance(2);
    load_all(&mut s, centre, &mut renderer, LOAD).unwrap();
    assert!(renderer.mesh_count() < after_first, "lowering the distance must free meshes");
    // Chunks the light thread still reads go once it lets go of them.
    let freeing = Instant::now();
    while s.counts().loaded > 7 * 7 * 7 && freeing.elapsed() < LOAD {
        s.update(centre, Default::default());
        renderer.apply(s.take_view_changes());
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(s.counts().loaded <= 7 * 7 * 7, "chunks beyond the data ring were not freed: {}", s.counts().loaded);

    // Move and raise again in the same frame: the new ring streams in.
    s.set_render_distance(4);
    let moved = ChunkPos::new(6, 0, -3);
    load_all(&mut s, moved, &mut renderer, LOAD).unwrap();
    assert_chunks_intact(&s, &world, moved, 4);
}

#[test]
fn walking_into_a_hill_never_enters_terrain() {
    let (world, mut renderer) = setup(42);
    let spawn = spawn_point(&world);
    let start_chunk = ChunkPos::containing([spawn.x as i64, spawn.y as i64, spawn.z as i64]);
    let mut s = ChunkStreamer::new(world.clone(), Engine::Cpu, Engine::Gpu, 3);
    load_all(&mut s, start_chunk, &mut renderer, LOAD).unwrap();
    let store = s.store();
    let get = |p| store.get(p).map(|c| &**c);
    let solid = LoadedChunks { get: &get };
    let feet = spawn;

    // A step of at least two blocks up along +x on dry land near spawn.
    let height = |x: i64, z: i64| {
        let data = world
            .column(blockworld::world::coords::ColumnPos { x: x.div_euclid(32) as i32, z: z.div_euclid(32) as i32 });
        data.heightmap.heights
            [blockworld::world::coords::column_index(x.rem_euclid(32) as usize, z.rem_euclid(32) as usize)]
            as i64
    };
    let (fx, fz) = (feet.x.floor() as i64, feet.z.floor() as i64);
    let (sx, sz) = (-60..60)
        .flat_map(|dz| (-60..60).map(move |dx| (fx + dx, fz + dz)))
        .filter(|&(x, z)| {
            let h = height(x, z);
            h > 0 && height(x + 1, z) >= h + 2
        })
        .min_by_key(|&(x, z)| (x - fx).abs() + (z - fz).abs())
        .expect("no hill step near spawn");
    let feet = DVec3::new(sx as f64 + 0.5, height(sx, sz) as f64 + 1.0, sz as f64 + 0.5);
    let yaw = 90.0;
    let mut p = Player::new(feet, yaw, 0.0);
    p.mode = Mode::Walk;
    let overlaps = |p: &Player| {
        let h = WIDTH / 2.0 - 1e-3;
        let (x0, x1) = ((p.pos.x - h).floor() as i64, (p.pos.x + h).floor() as i64);
        let (y0, y1) = ((p.pos.y + 1e-3).floor() as i64, (p.pos.y + HEIGHT - 1e-3).floor() as i64);
        let (z0, z1) = ((p.pos.z - h).floor() as i64, (p.pos.z + h).floor() as i64);
        (x0..=x1).any(|x| (y0..=y1).any(|y| (z0..=z1).any(|z| solid.solid(x, y, z))))
    };
    assert!(!overlaps(&p), "spawned inside terrain at {:?}", p.pos);
    let mut blocked_ticks = 0;
    for tick in 0..60 * 3 {
        let before = p.pos;
        p.step(1.0 / 60.0, Intent { forward: 1.0, ..Default::default() }, &solid);
        assert!(!overlaps(&p), "tick {tick}: inside terrain at {:?}", p.pos);
        // Walking speed is 5 blocks/s; much less means a block stopped us.
        let moved = glam::DVec2::new(p.pos.x - before.x, p.pos.z - before.z).length();
        if moved < 0.5 * 5.0 / 60.0 {
            blocked_ticks += 1;
        }
        assert!(p.pos.x < sx as f64 + 1.0, "walked through the step at x = {sx}: {:?}", p.pos);
    }
    assert!(blocked_ticks > 0, "the walk never met a wall; the hill search failed (yaw {yaw})");
}

/// A torch placed in a closed cave chamber (seed 42, under a mountain) lights
/// the blocks around it in the light meshes are made from, within the
/// same `set_block` call (so in the next frame), and breaking it takes the
/// light away again.
#[test]
fn a_torch_placed_in_a_cave_lights_it_at_once_and_breaking_it_darkens_it() {
    use blockworld::world::block::BlockId;
    use blockworld::world::edits::BlockPos;
    let (world, mut renderer) = setup(42);
    let centre = ChunkPos::containing([-1, -32, -305]);
    let mut streamer = ChunkStreamer::new(world, Engine::Cpu, Engine::Gpu, 3);
    load_all(&mut streamer, centre, &mut renderer, Duration::from_secs(300)).expect("the world loads");
    let torch = BlockPos::new(1, -39, -299);
    let beside = BlockPos::new(3, -39, -299);
    assert_eq!(streamer.block(torch), Some(BlockId::AIR), "the chamber's floor is where the test expects it");
    let before = streamer.light_at(beside).expect("the chamber is lit");
    assert_eq!((before.sky(), before.rgb()), (0, [0, 0, 0]), "a closed chamber is dark");
    streamer.set_block(torch, BlockId::TORCH).unwrap();
    let changes = streamer.take_view_changes();
    let remeshed = |p: ChunkPos| changes.iter().any(|c| matches!(c, ViewChange::Mesh(q, _) if *q == p));
    assert!(torch.chunk().is_some_and(remeshed), "the torch's chunk was not meshed again in the same call");
    renderer.apply(changes);
    let [r, g, b] = BlockId::TORCH.info().light;
    let lit = streamer.light_at(beside).unwrap();
    assert_eq!(lit.rgb(), [r - 2, g - 2, b - 2], "two steps from the torch, at once");
    streamer.set_block(torch, BlockId::AIR).unwrap();
    renderer.apply(streamer.take_view_changes());
    assert_eq!(streamer.light_at(beside).unwrap(), before, "breaking the torch takes its light away");
}

/// `bench flight`'s hole count: every chunk of a fresh range is a hole
/// until it is generated and meshed, and none is left once the view is
/// complete.
#[test]
fn holes_are_counted_until_the_view_is_complete() {
    let (world, mut renderer) = setup(42);
    let mut streamer = ChunkStreamer::new(world, Engine::Cpu, Engine::Gpu, 3);
    let centre = ChunkPos::new(0, 0, 0);
    streamer.update(centre, Default::default());
    renderer.apply(streamer.take_view_changes());
    let before = streamer.holes_within(2);
    assert!(before > 0, "a range that was just asked for has no holes");
    load_all(&mut streamer, centre, &mut renderer, LOAD).expect("the world loads");
    assert_eq!(streamer.holes_within(3), 0, "holes in a complete view");
}

/// Stepping across chunk borders frees exactly what left the range: the
/// streamer finds it among the old range's positions instead of looking at
/// everything held, and drops it over the next frames.
#[test]
fn stepping_across_borders_frees_what_left_the_range() {
    let (world, mut view) = setup(5);
    let r = 3;
    let mut s = ChunkStreamer::new(world, Engine::Cpu, Engine::Gpu, r);
    let path = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (2, 0, 1), (2, 1, 1), (1, 1, 1), (1, 0, 1), (0, 0, 1), (-3, 0, 1)];
    for (x, y, z) in path {
        let centre = ChunkPos::new(x, y, z);
        load_all(&mut s, centre, &mut view, LOAD).unwrap();
        for _ in 0..8 {
            s.update(centre, Default::default());
            view.apply(s.take_view_changes());
        }
        let store = s.store();
        let held = |p: &ChunkPos| store.contains(*p);
        let reach = r + 8;
        let mut inside = 0;
        for dz in -reach..=reach {
            for dy in -reach..=reach {
                for dx in -reach..=reach {
                    let p = ChunkPos::new(x + dx, y + dy, z + dz);
                    if held(&p) {
                        assert!(
                            within_data(p, centre, r),
                            "chunk {p} left the range around {centre} and is still held"
                        );
                        inside += 1;
                    }
                }
            }
        }
        assert_eq!(store.loaded_count(), inside, "chunks held far from {centre}");
    }
}

/// A step hands the light stage only the chunks entering the lit range;
/// those already stored there (generated while they lay beyond it) must be
/// among them, or their meshes would wait for light forever.
#[test]
fn a_step_lights_every_chunk_it_brings_into_the_lit_range() {
    let (world, mut view) = setup(11);
    // Wider than the lit range, so stored unlit chunks lie just outside it.
    let r = 8;
    let mut s = ChunkStreamer::new(world, Engine::Cpu, Engine::Gpu, r);
    for (x, y, z) in [(0, 0, 0), (1, 0, 0), (1, 0, 2), (1, -1, 2), (-1, -1, 1)] {
        let centre = ChunkPos::new(x, y, z);
        load_all(&mut s, centre, &mut view, LOAD).unwrap_or_else(|e| panic!("around {centre}: {e}"));
        let range = s.range();
        let mut lit = 0;
        for p in blockworld::game::streaming::rings::rings(centre, r) {
            if range.lights(p) {
                let [bx, by, bz] = p.origin();
                assert!(s.light_at(BlockPos::new(bx, by, bz)).is_some(), "chunk {p} around {centre} is not lit");
                lit += 1;
            }
        }
        assert!(lit > 1000, "{lit} chunks in the lit range");
    }
}
