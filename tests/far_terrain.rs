//! Far terrain: every far cell stands exactly as high as the full chunks'
//! ground at its sample point, on every level and bundled preset; and a
//! world with one octave dropped does not (the negative control).

use blockworld::far::clipmap::{FarRange, TileKey, MAX_LEVELS, TILE_CELLS};
use blockworld::far::tile::{self, sample_point};
use blockworld::world::coords::{column_index, ColumnPos, CHUNK_SIZE_I64};
use blockworld::worldgen::{Preset, WorldGen};

/// Cells checked per tile: a diagonal and an anti-diagonal, every other cell.
fn cells() -> impl Iterator<Item = (usize, usize)> {
    (0..TILE_CELLS).step_by(2).flat_map(|i| [(i, i), (i, TILE_CELLS - 1 - i)])
}

/// The ground height the full chunks have at a block column.
fn chunk_ground(world: &WorldGen, at: [i64; 2]) -> i32 {
    let col = ColumnPos { x: at[0].div_euclid(CHUNK_SIZE_I64) as i32, z: at[1].div_euclid(CHUNK_SIZE_I64) as i32 };
    let hm = world.compute_heightmap(col);
    hm.heights[column_index(at[0].rem_euclid(CHUNK_SIZE_I64) as usize, at[1].rem_euclid(CHUNK_SIZE_I64) as usize)]
}

/// Tiles of every level around a few eyes, a handful per level.
fn tiles() -> Vec<TileKey> {
    let mut out = Vec::new();
    for eye in [[0, 0], [70_001, -3_333], [-1_234_567, 2_000_000]] {
        let all = FarRange { eye, horizon: 32_000 }.tiles();
        for level in 0..MAX_LEVELS {
            out.extend(all.iter().filter(|t| t.level == level).step_by(17).take(2));
        }
    }
    out
}

/// Cells, among those checked, whose height differs from the chunks' ground.
fn mismatches(far: &WorldGen, chunks: &WorldGen, tiles: &[TileKey]) -> (usize, usize) {
    let (mut checked, mut wrong) = (0, 0);
    for &key in tiles {
        let t = tile::generate(far, key);
        for (i, j) in cells() {
            checked += 1;
            if t.cell(i, j).ground != chunk_ground(chunks, sample_point(key, i, j)) {
                wrong += 1;
            }
        }
    }
    (checked, wrong)
}

#[test]
fn far_cells_stand_as_high_as_the_chunks_on_every_level_and_preset() {
    let tiles = tiles();
    let levels: std::collections::HashSet<u8> = tiles.iter().map(|t| t.level).collect();
    assert_eq!(levels.len(), MAX_LEVELS as usize, "every level is checked");
    for (name, _) in blockworld::worldgen::preset::BUNDLED {
        let world = WorldGen::new(Preset::load(name).expect("bundled preset"), 42);
        let (checked, wrong) = mismatches(&world, &world, &tiles);
        assert!(checked >= 1000, "{checked}");
        assert_eq!(wrong, 0, "{name}: {wrong} of {checked} far cells differ from the chunks' ground");
    }
}

/// The negative control: far tiles from classic with its first octave
/// stack one octave short disagree with the true world's chunks.
#[test]
fn a_far_view_one_octave_short_is_caught() {
    let (preset, text) = Preset::load_with_text("classic").expect("bundled preset");
    let short = text.replacen("Octave(octaves: 5, offset: 0)", "Octave(octaves: 4, offset: 0)", 1);
    assert_ne!(short, text, "the control edits the preset");
    let wrong_world = WorldGen::new(Preset::parse(&short, "classic-short.ron").expect("still valid"), 42);
    let world = WorldGen::new(preset, 42);
    let (checked, wrong) = mismatches(&wrong_world, &world, &tiles());
    assert!(wrong * 10 > checked, "only {wrong} of {checked} cells differ with an octave dropped");
}

/// The far view's tree crowns stand where the chunks grow trees, and
/// nowhere else: in a forest tile, under most crown cells the chunks hold
/// the crown's leaves above the ground, and above almost no other land cell
/// do they hold leaves. Crowns placed anywhere else fail one side or the
/// other.
#[test]
fn far_tree_crowns_stand_over_the_chunks_trees() {
    use blockworld::world::coords::ChunkPos;
    let world = WorldGen::new(Preset::load("classic").expect("bundled preset"), 42);
    // The level-0 tile with the most crowns among a few near the origin.
    let key = (-4..4)
        .flat_map(|z| (-4..4).map(move |x| TileKey { level: 0, x, z }))
        .max_by_key(|&k| tile::generate(&world, k).cells.iter().filter(|c| c.canopy.is_some()).count())
        .expect("tiles");
    let t = tile::generate(&world, key);
    let leaves: Vec<u8> =
        world.params.deco.trees.kinds.iter().map(|k| k.leaves_block as u8).filter(|&b| b != 0).collect();
    let (mut crowns, mut leafy_crowns, mut bare, mut leafy_bare) = (0, 0, 0, 0);
    for j in 0..TILE_CELLS {
        for i in 0..TILE_CELLS {
            let cell = t.cell(i, j);
            if cell.ground < world.params.surface.water_level {
                continue;
            }
            let [x, z] = sample_point(key, i, j);
            let ground = chunk_ground(&world, [x, z]);
            let leafy = (ground + 1..ground + 16).any(|y| {
                let pos = ChunkPos::containing([x, y as i64, z]);
                let [ox, oy, oz] = pos.origin();
                let block =
                    world.generate(pos).blocks().get((x - ox) as usize, (y as i64 - oy) as usize, (z - oz) as usize);
                leaves.contains(&block.0)
            });
            if cell.canopy.is_some() {
                crowns += 1;
                leafy_crowns += usize::from(leafy);
            } else {
                bare += 1;
                leafy_bare += usize::from(leafy);
            }
        }
    }
    assert!(crowns >= 40 && bare >= 40, "a forest tile with clearings: {crowns} crown and {bare} bare land cells");
    assert!(leafy_crowns * 10 >= crowns * 8, "only {leafy_crowns} of {crowns} crown cells have leaves in the chunks");
    assert!(leafy_bare * 10 <= bare, "{leafy_bare} of {bare} cells without a crown have leaves in the chunks");
}
