use super::*;
use crate::world::block::FluidKind;
use std::collections::HashMap;

/// A box of world: stone below `ground(x)`, air above, edits on top;
/// outside the box nothing is loaded.
struct BoxWorld {
    edits: HashMap<BlockPos, BlockId>,
    ground: fn(i64) -> i64,
}

const R: i64 = 20;

impl BoxWorld {
    fn flat() -> BoxWorld {
        BoxWorld { edits: HashMap::new(), ground: |_| 1 }
    }

    /// The edited blocks, for comparing whole worlds.
    fn state(&self) -> BTreeMap<BlockPos, BlockId> {
        self.edits.iter().map(|(&p, &b)| (p, b)).collect()
    }

    fn get(&self, x: i64, y: i64, z: i64) -> BlockId {
        self.block(BlockPos::new(x, y, z)).expect("inside the box")
    }
}

impl SimWorld for BoxWorld {
    fn block(&self, p: BlockPos) -> Option<BlockId> {
        if p.x.abs() > R || p.z.abs() > R || !(-4..=24).contains(&p.y) {
            return None;
        }
        Some(match self.edits.get(&p) {
            Some(&b) => b,
            None if p.y < (self.ground)(p.x) => BlockId::STONE,
            None => BlockId::AIR,
        })
    }
    fn set_block(&mut self, pos: BlockPos, block: BlockId) {
        self.edits.insert(pos, block);
    }
}

/// An edit as the player makes it: written, then its neighbours disturbed.
fn place(w: &mut BoxWorld, sim: &mut Simulation, x: i64, y: i64, z: i64, b: BlockId) {
    let p = BlockPos::new(x, y, z);
    w.set_block(p, b);
    sim.disturbed(p);
}

fn run(w: &mut BoxWorld, sim: &mut Simulation, seconds: u64) {
    for _ in 0..seconds * TICKS_PER_SECOND {
        sim.step(w);
    }
}

fn water(d: u8) -> BlockId {
    FluidKind::Water.blocks().flowing[d as usize - 1]
}

#[test]
fn one_source_on_a_plane_spreads_a_diamond_of_levels() {
    let (mut w, mut sim) = (BoxWorld::flat(), Simulation::default());
    place(&mut w, &mut sim, 0, 1, 0, BlockId::WATER);
    run(&mut w, &mut sim, 5);
    for x in -9i64..=9 {
        for z in -9i64..=9 {
            let d = x.abs() + z.abs();
            let want = match d {
                0 => BlockId::WATER,
                1..=7 => water(d as u8),
                _ => BlockId::AIR,
            };
            assert_eq!(w.get(x, 1, z), want, "at {x},1,{z}");
            assert_eq!(w.get(x, 2, z), BlockId::AIR);
        }
    }
    assert_eq!(sim.pending_count(), 0, "a settled flow schedules nothing");
}

#[test]
fn lava_spreads_fewer_blocks_and_slower() {
    let (mut w, mut sim) = (BoxWorld::flat(), Simulation::default());
    place(&mut w, &mut sim, 0, 1, 0, BlockId::LAVA);
    run(&mut w, &mut sim, 2);
    assert_eq!(w.get(2, 1, 0), BlockId::AIR, "two lava steps take three seconds");
    run(&mut w, &mut sim, 8);
    let lava = FluidKind::Lava.blocks().flowing;
    assert_eq!([1, 2, 3, 4].map(|x| w.get(x, 1, 0)), [lava[0], lava[1], lava[2], BlockId::AIR]);
}

fn drained_after_the_source_is_removed(rules: Rules) -> usize {
    let (mut w, mut sim) = (BoxWorld::flat(), Simulation::new(0, rules));
    place(&mut w, &mut sim, 0, 1, 0, BlockId::WATER);
    run(&mut w, &mut sim, 5);
    place(&mut w, &mut sim, 0, 1, 0, BlockId::AIR);
    run(&mut w, &mut sim, 10);
    w.edits.values().filter(|b| b.fluid_kind().is_some()).count()
}

#[test]
fn removing_the_source_drains_all_flow() {
    assert_eq!(drained_after_the_source_is_removed(Rules::default()), 0);
}

/// Negative control: without the drain rule the flow stays, the whole
/// diamond of 113 blocks (flow fills the source's place).
#[test]
fn without_the_drain_rule_the_flow_stays() {
    assert_eq!(drained_after_the_source_is_removed(Rules { drain: false }), 113);
}

#[test]
fn two_water_sources_beside_a_gap_make_a_third_but_lava_does_not() {
    for (source, renews) in [(BlockId::WATER, true), (BlockId::LAVA, false)] {
        let (mut w, mut sim) = (BoxWorld::flat(), Simulation::default());
        place(&mut w, &mut sim, 0, 1, 0, source);
        place(&mut w, &mut sim, 2, 1, 0, source);
        run(&mut w, &mut sim, 4);
        assert_eq!(w.get(1, 1, 0) == source, renews, "{}", source.name());
        // The new source holds when the first two are taken away.
        place(&mut w, &mut sim, 0, 1, 0, BlockId::STONE);
        place(&mut w, &mut sim, 2, 1, 0, BlockId::STONE);
        run(&mut w, &mut sim, 8);
        assert_eq!(w.get(1, 1, 0) == source, renews, "{}", source.name());
    }
}

/// A one-wide trench along x: stone walls at z = ±1.
fn trench() -> BoxWorld {
    let mut w = BoxWorld::flat();
    for x in -R..=R {
        for z in [-1, 1] {
            for y in 1..4 {
                w.edits.insert(BlockPos::new(x, y, z), BlockId::STONE);
            }
        }
    }
    w
}

#[test]
fn water_meeting_lava_makes_obsidian_cobblestone_or_stone() {
    // Water reaching a lava source: obsidian.
    let (mut w, mut sim) = (trench(), Simulation::default());
    place(&mut w, &mut sim, 0, 1, 0, BlockId::LAVA);
    place(&mut w, &mut sim, 2, 1, 0, BlockId::WATER);
    run(&mut w, &mut sim, 3);
    assert_eq!(w.get(0, 1, 0), BlockId::OBSIDIAN);

    // Water reaching flowing lava: cobblestone, and the source stays.
    let (mut w, mut sim) = (trench(), Simulation::default());
    place(&mut w, &mut sim, 0, 1, 0, BlockId::LAVA);
    run(&mut w, &mut sim, 6);
    assert_eq!(w.get(3, 1, 0), FluidKind::Lava.blocks().flowing[2]);
    place(&mut w, &mut sim, 5, 1, 0, BlockId::WATER);
    run(&mut w, &mut sim, 3);
    assert_eq!([w.get(0, 1, 0), w.get(3, 1, 0)], [BlockId::LAVA, BlockId::COBBLESTONE]);

    // Lava pouring onto water: stone.
    let (mut w, mut sim) = (trench(), Simulation::default());
    w.edits.insert(BlockPos::new(0, 1, 0), BlockId::WATER);
    place(&mut w, &mut sim, 0, 3, 0, BlockId::LAVA);
    run(&mut w, &mut sim, 4);
    assert_eq!(w.get(0, 1, 0), BlockId::STONE);
    assert_eq!(w.get(0, 2, 0).fluid_kind(), Some(FluidKind::Lava), "the lava lands on the stone");
}

#[test]
fn flow_over_a_ledge_falls_and_spreads_below() {
    let mut w = BoxWorld { edits: HashMap::new(), ground: |x| if x <= 0 { 5 } else { 1 } };
    let mut sim = Simulation::default();
    place(&mut w, &mut sim, -2, 5, 0, BlockId::WATER);
    run(&mut w, &mut sim, 8);
    assert_eq!([-1, 0, 1].map(|x| w.get(x, 5, 0)), [water(1), water(2), water(3)]);
    assert_eq!(w.get(2, 5, 0), BlockId::AIR, "flow over a drop pours down, not on");
    let fall = FluidKind::Water.blocks().falling;
    assert_eq!([1, 2, 3, 4].map(|y| w.get(1, y, 0)), [fall; 4]);
    let below: Vec<BlockId> = (2..=9).map(|x| w.get(x, 1, 0)).collect();
    let want: Vec<BlockId> = (1..=7).map(water).chain([BlockId::AIR]).collect();
    assert_eq!(below, want, "spreads seven blocks from where it lands");
}

#[test]
fn a_sand_column_lands_intact_on_the_next_support() {
    let (mut w, mut sim) = (BoxWorld::flat(), Simulation::default());
    w.edits.insert(BlockPos::new(0, 4, 0), BlockId::DIRT);
    for y in 5..10 {
        w.edits.insert(BlockPos::new(0, y, 0), if y == 7 { BlockId::GRAVEL } else { BlockId::SAND });
    }
    w.edits.insert(BlockPos::new(0, 1, 0), BlockId::ROSE);
    place(&mut w, &mut sim, 0, 4, 0, BlockId::AIR);
    run(&mut w, &mut sim, 2);
    let column: Vec<BlockId> = (1..=10).map(|y| w.get(0, y, 0)).collect();
    let s = BlockId::SAND;
    let a = BlockId::AIR;
    assert_eq!(column, [s, s, BlockId::GRAVEL, s, s, a, a, a, a, a], "landed in order, the rose crushed");
}

#[test]
fn sand_sinks_through_a_lake_and_the_water_closes_over_it() {
    let (mut w, mut sim) = (BoxWorld::flat(), Simulation::default());
    for y in 1..4 {
        w.edits.insert(BlockPos::new(0, y, 0), BlockId::WATER);
    }
    place(&mut w, &mut sim, 0, 4, 0, BlockId::SAND);
    run(&mut w, &mut sim, 2);
    assert_eq!(
        (1..=4).map(|y| w.get(0, y, 0)).collect::<Vec<_>>(),
        [BlockId::SAND, BlockId::WATER, BlockId::WATER, BlockId::WATER]
    );
}

/// Edits at given seconds, played at `fps` frames a second for `seconds`.
fn play(fps: u64, seconds: u64, reopen_at: Option<u64>) -> BTreeMap<BlockPos, BlockId> {
    let script: [(u64, [i64; 3], BlockId); 6] = [
        (0, [0, 1, 0], BlockId::WATER),
        (0, [6, 1, 3], BlockId::LAVA),
        (1, [-4, 1, -4], BlockId::WATER),
        (2, [-3, 3, 5], BlockId::SAND),
        (3, [0, 1, 0], BlockId::AIR),
        (4, [9, 1, 9], BlockId::WATER),
    ];
    let frame_ns = 1_000_000_000 / fps;
    let (mut w, mut sim) = (BoxWorld::flat(), Simulation::default());
    let (mut now_ns, mut next) = (0u64, 0);
    let mut reopened = false;
    while now_ns < seconds * 1_000_000_000 {
        while next < script.len() && script[next].0 * 1_000_000_000 <= now_ns {
            let (_, [x, y, z], b) = script[next];
            place(&mut w, &mut sim, x, y, z, b);
            next += 1;
        }
        if reopen_at.is_some_and(|s| !reopened && now_ns >= s * 1_000_000_000) {
            // As a saved world reopens: the tick and the pending updates, nothing else.
            sim = Simulation::resume(sim.tick(), &sim.pending(), Rules::default()).expect("resumes");
            reopened = true;
        }
        sim.advance(Duration::from_nanos(frame_ns), &mut w);
        now_ns += frame_ns;
    }
    // Run out whatever the last frame left, so both end on the same tick.
    while sim.tick() < seconds * TICKS_PER_SECOND {
        sim.step(&mut w);
    }
    w.state()
}

#[test]
fn the_same_edits_give_the_same_world_at_any_frame_rate_and_across_a_reopen() {
    let at_20 = play(20, 12, None);
    assert!(
        at_20.values().any(|b| *b == BlockId::OBSIDIAN || *b == BlockId::COBBLESTONE),
        "the script makes a reaction"
    );
    assert_eq!(play(144, 12, None), at_20, "144 fps");
    assert_eq!(play(60, 12, Some(5)), at_20, "reopened at 5 s");
}

#[test]
fn updates_beyond_the_simulation_distance_wait() {
    let (mut w, mut sim) = (BoxWorld::flat(), Simulation::default());
    sim.set_centre(ChunkPos::new(5, 0, 5), 2);
    place(&mut w, &mut sim, 0, 1, 0, BlockId::WATER);
    run(&mut w, &mut sim, 3);
    assert_eq!(w.get(1, 1, 0), BlockId::AIR);
    assert!(sim.pending_count() >= 7, "parked, not dropped");
    sim.set_centre(ChunkPos::new(0, 0, 0), 2);
    run(&mut w, &mut sim, 3);
    assert_eq!(w.get(1, 1, 0), water(1));
}

#[test]
fn a_pending_update_due_absurdly_late_is_refused() {
    let p = BlockPos::new(1, 2, 3);
    assert!(Simulation::resume(10, &[(p, 11)], Rules::default()).is_ok());
    let e = Simulation::resume(10, &[(p, u64::MAX)], Rules::default()).err().expect("refused");
    assert!(e.to_string().contains("1,2,3"), "{e}");
}
