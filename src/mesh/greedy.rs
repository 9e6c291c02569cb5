//! Greedy meshing with per-corner ambient occlusion and smooth light.
//!
//! Visibility is computed 32 faces at a time on column bitmasks (bit y of
//! column (x, z)); so is ambient occlusion, as two bit-planes per corner.
//! Visible faces are then sorted into slices and merged greedily: two faces
//! merge only with the same tile, the same four AO values and the same four
//! corner lights ([`super::light`]), so merging never changes shading. Quads whose AO would interpolate along the wrong
//! diagonal are rotated so the shared index pattern splits them the other way.
//! Opaque, cutout (alpha-tested: leaves, glass, sprites) and water faces go
//! to separate meshes, one per render pass. Faces between leaves stay (a
//! canopy looks full from inside); faces between glass blocks do not.
//! Cross-shaped blocks (flowers, grass, torches) are two crossed quads each,
//! and flat ones (lily pads) one level quad lifted a hair off the floor.

use super::light::LightVolume;
use super::quad::{Face, Quad, QuadSpec, CROSS_A, CROSS_B};
use super::volume::{Neighbourhood, Volume, PADDED};
use crate::light::Light;
use crate::world::block::{BlockId, Shape, BLOCKS};
use crate::world::chunk::{ChunkBlocks, Column};
use crate::world::coords::{block_index, CHUNK_SIZE, CHUNK_VOLUME};
use crate::world::visibility::FaceLinks;

/// One render pass's quads each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMesh {
    pub opaque: Vec<Quad>,
    pub cutout: Vec<Quad>,
    pub water: Vec<Quad>,
}

impl ChunkMesh {
    pub fn is_empty(&self) -> bool {
        self.opaque.is_empty() && self.cutout.is_empty() && self.water.is_empty()
    }
    pub fn quads(&self) -> usize {
        self.opaque.len() + self.cutout.len() + self.water.len()
    }

    pub fn bytes(&self) -> usize {
        self.quads() * std::mem::size_of::<Quad>()
    }
}

/// Which mesh a face goes to, in its merge key above the tile and AO bits.
const PASS_SHIFT: u32 = 16;
const PASS_WATER: u32 = 1;
const PASS_CUTOUT: u32 = 2;

const N: usize = CHUNK_SIZE;

/// Reusable scratch space: a key and corner lights per (slice, v, u), and
/// row masks.
pub struct Mesher {
    /// The centre chunk's ids when it is palette-packed, unpacked once:
    /// each face reads every column with a visible face, six times a chunk.
    ids: Vec<BlockId>,
    keys: Vec<u32>,
    lights: Vec<u64>,
    rows: Vec<u32>,
}

impl Default for Mesher {
    fn default() -> Self {
        Self { ids: Vec::new(), keys: vec![0; N * N * N], lights: vec![0; N * N * N], rows: vec![0; N * N] }
    }
}

/// Four corner lights in one word, the merge key's light half.
fn pack_lights(l: [Light; 4]) -> u64 {
    l.iter().enumerate().fold(0, |w, (k, l)| w | (l.0 as u64) << (16 * k))
}

fn unpack_lights(w: u64) -> [Light; 4] {
    [0, 1, 2, 3].map(|k| Light((w >> (16 * k)) as u16))
}

thread_local! {
    static MESHER: std::cell::RefCell<Mesher> = std::cell::RefCell::new(Mesher::default());
}

/// Meshes the centre chunk of `n` (with this thread's scratch space).
pub fn mesh_chunk(n: &Neighbourhood) -> ChunkMesh {
    MESHER.with(|m| m.borrow_mut().mesh(n))
}

/// Meshes the centre chunk of `n` and finds which of its faces see each
/// other, from the column masks the mesher builds anyway (a flood over
/// the chunk's own ids cost as much as the meshing).
pub fn mesh_chunk_and_links(n: &Neighbourhood) -> (ChunkMesh, FaceLinks) {
    MESHER.with(|m| m.borrow_mut().mesh_and_links(n))
}

impl Mesher {
    pub fn mesh(&mut self, n: &Neighbourhood) -> ChunkMesh {
        if n.centre.blocks().uniform() == Some(BlockId::AIR) || buried(n) {
            return ChunkMesh::default();
        }
        self.mesh_all(n, |_| {})
    }

    pub fn mesh_and_links(&mut self, n: &Neighbourhood) -> (ChunkMesh, FaceLinks) {
        if n.centre.blocks().uniform() == Some(BlockId::AIR) || buried(n) {
            return (ChunkMesh::default(), FaceLinks::of(n.centre));
        }
        let mut links = FaceLinks::ALL;
        let mesh = self.mesh_all(n, |vol| links = FaceLinks::from_open(&vol.centre_open()));
        (mesh, links)
    }

    /// The whole mesher, without the buried-chunk shortcut; `volume` sees
    /// the column masks.
    fn mesh_all(&mut self, n: &Neighbourhood, volume: impl FnOnce(&Volume)) -> ChunkMesh {
        let mut out = ChunkMesh::default();
        let mut ids = std::mem::take(&mut self.ids);
        let unpacked = match n.centre.blocks() {
            ChunkBlocks::Packed(ref p) => {
                ids.resize(CHUNK_VOLUME, BlockId::AIR);
                p.unpack_range(0, &mut ids);
                Some(&ids[..])
            }
            _ => None,
        };
        let vol = Volume::build_with_centre(n, unpacked);
        volume(&vol);
        let light = LightVolume::gather(n.light.as_ref());
        for face in Face::ALL {
            self.mesh_face(n, unpacked, &vol, &light, face, &mut out);
        }
        self.ids = ids;
        sprites(n, &light, &mut out.cutout);
        out
    }

    fn mesh_face(
        &mut self,
        n: &Neighbourhood,
        unpacked: Option<&[BlockId]>,
        vol: &Volume,
        light: &LightVolume,
        face: Face,
        out: &mut ChunkMesh,
    ) {
        let constant_light = light.is_constant().map(|l| pack_lights([l; 4]));
        let [nx, ny, nz] = face.normal();
        let (ua, va) = face.tangents();
        let axis = face.axis();
        let ao = AoSamples::of(face);
        let mut used_slices = 0u32;
        let mut tiles = [0u8; 256];
        for (t, b) in tiles.iter_mut().zip(BLOCKS) {
            *t = b.tile_facing(face.normal());
        }
        for z in 0..N {
            for x in 0..N {
                let (xp, zp) = (x + 1, z + 1);
                let here = zp * PADDED + xp;
                let there = (zp as i32 + nz) as usize * PADDED + (xp as i32 + nx) as usize;
                let shift = 1 + ny;
                let (here_o, there_o) = ((vol.opaque[here] >> 1) as u32, (vol.opaque[there] >> shift) as u32);
                let (here_w, there_w) = ((vol.water[here] >> 1) as u32, (vol.water[there] >> shift) as u32);
                let vis_o = here_o & !there_o;
                let vis_c = if vol.any_cutout {
                    let (here_c, here_g) = ((vol.cutout[here] >> 1) as u32, (vol.cull_self[here] >> 1) as u32);
                    let there_g = (vol.cull_self[there] >> shift) as u32;
                    here_c & !there_o & !(here_g & there_g)
                } else {
                    0
                };
                let vis_w = here_w & !(there_o | there_w);
                if vis_o | vis_c | vis_w == 0 {
                    continue;
                }
                let (ao_lo, ao_hi) = if vis_o | vis_c != 0 { ao.planes(vol, here) } else { ([0; 4], [0; 4]) };
                let column = match unpacked {
                    Some(ids) => Column::Dense(&ids[block_index(x, 0, z)..block_index(x, 0, z) + CHUNK_SIZE]),
                    None => n.centre.blocks().column(x, z),
                };
                // Faces with no occluder at any corner (most flat ground) skip the per-corner unpacking.
                let open = ao_lo.iter().chain(&ao_hi).fold(u32::MAX, |a, &m| a & m);
                let mut bits = vis_o | vis_c | vis_w;
                while bits != 0 {
                    let y = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let id = column.get(y);
                    let tile = tiles[id.0 as usize] as u32;
                    let pass = if (vis_c >> y) & 1 != 0 { PASS_CUTOUT << PASS_SHIFT } else { 0 };
                    let key = if (vis_w >> y) & 1 != 0 {
                        tile | 0xFF << 8 | PASS_WATER << PASS_SHIFT
                    } else if (open >> y) & 1 != 0 {
                        tile | 0xFF << 8 | pass
                    } else {
                        let mut k = tile | pass;
                        for c in 0..4 {
                            let ao = ((ao_lo[c] >> y) & 1) | ((ao_hi[c] >> y) & 1) << 1;
                            k |= ao << (8 + 2 * c);
                        }
                        k
                    };
                    let p = [x, y, z];
                    let (s, u, v) = (p[axis], p[ua], p[va]);
                    let row = &mut self.rows[s * N + v];
                    *row |= 1 << u;
                    self.keys[(s * N + v) * N + u] = key;
                    self.lights[(s * N + v) * N + u] =
                        constant_light.unwrap_or_else(|| pack_lights(light.corners(vol, face, x, y, z)));
                    used_slices |= 1 << s;
                }
            }
        }
        self.merge(face, used_slices, out);
    }

    /// Greedy merge, slice by slice, of the faces `mesh_face` marked.
    fn merge(&mut self, face: Face, mut used_slices: u32, out: &mut ChunkMesh) {
        while used_slices != 0 {
            let s = used_slices.trailing_zeros() as usize;
            used_slices &= used_slices - 1;
            for v in 0..N {
                while self.rows[s * N + v] != 0 {
                    let row = self.rows[s * N + v];
                    let u0 = row.trailing_zeros() as usize;
                    let key = self.keys[(s * N + v) * N + u0];
                    let lit = self.lights[(s * N + v) * N + u0];
                    let same = |i: usize| self.keys[i] == key && self.lights[i] == lit;
                    let mut w = 1;
                    while u0 + w < N && (row >> (u0 + w)) & 1 != 0 && same((s * N + v) * N + u0 + w) {
                        w += 1;
                    }
                    let span = (((1u64 << w) - 1) << u0) as u32;
                    let mut h = 1;
                    'grow: while v + h < N {
                        let r = self.rows[s * N + v + h];
                        if r & span != span {
                            break;
                        }
                        for u in u0..u0 + w {
                            if !same((s * N + v + h) * N + u) {
                                break 'grow;
                            }
                        }
                        h += 1;
                    }
                    for dv in 0..h {
                        self.rows[s * N + v + dv] &= !span;
                    }
                    emit(face, s, [u0, v], [w, h], key, unpack_lights(lit), out);
                }
            }
        }
    }
}

/// The eight ambient-occlusion samples of a face direction, in the layer
/// in front of the face, each as (column index delta, bit shift) in the
/// padded opacity volume: the four sides (−u, +u, −v, +v), then the four
/// diagonals in corner order.
struct AoSamples {
    sides: [(isize, u32); 4],
    diagonals: [(isize, u32); 4],
}

/// Corners of a face in (u, v), in the order quads take them.
const CORNERS: [(i32, i32); 4] = [(-1, -1), (1, -1), (1, 1), (-1, 1)];

impl AoSamples {
    fn of(face: Face) -> AoSamples {
        let (ua, va) = face.tangents();
        let normal = face.normal();
        let at = |du: i32, dv: i32| {
            let mut d = normal;
            d[ua] += du;
            d[va] += dv;
            (d[2] as isize * PADDED as isize + d[0] as isize, (1 + d[1]) as u32)
        };
        AoSamples { sides: [at(-1, 0), at(1, 0), at(0, -1), at(0, 1)], diagonals: CORNERS.map(|(du, dv)| at(du, dv)) }
    }

    /// AO bit-planes of a column's 32 faces at once, per corner: the
    /// count of occluders s1 + s2 + c gives ao = 3 − count, or 0 where
    /// both sides are solid; returned as its low and high bits.
    #[inline(always)]
    fn planes(&self, vol: &Volume, column: usize) -> ([u32; 4], [u32; 4]) {
        let base = column as isize;
        let o = |(delta, shift): (isize, u32)| (vol.opaque[(base + delta) as usize] >> shift) as u32;
        let [s_um, s_up, s_vm, s_vp] = self.sides.map(o);
        let (mut lo, mut hi) = ([0u32; 4], [0u32; 4]);
        for (k, &(du, dv)) in CORNERS.iter().enumerate() {
            let s1 = if du < 0 { s_um } else { s_up };
            let s2 = if dv < 0 { s_vm } else { s_vp };
            let c = o(self.diagonals[k]);
            let bit0 = s1 ^ s2 ^ c;
            let bit1 = (s1 & s2) | (s1 & c) | (s2 & c);
            let both = s1 & s2;
            lo[k] = !bit0 & !both;
            hi[k] = !bit1 & !both;
        }
        (lo, hi)
    }
}

/// Whether a chunk of opaque cubes alone has nothing to draw: its faces
/// can only show where the block across its border is not opaque, so when
/// the six facing layers of its neighbours are all opaque the mesh is empty
/// and the 34³ gather is skipped. Rock around caves and under the sea is
/// such a chunk (stone, ores, lava); it is sent to the meshers because a
/// neighbour is stored rather than uniform.
fn buried(n: &Neighbourhood) -> bool {
    let opaque = |b: BlockId| b.info().opaque();
    if !n.centre.is_solid() {
        return false;
    }
    Face::ALL.iter().all(|face| {
        let [dx, dy, dz] = face.normal();
        let blocks = n.neighbours[Neighbourhood::index(dx, dy, dz)];
        if let Some(b) = blocks.uniform() {
            return opaque(b);
        }
        // Every stored block is in the palette, so an opaque palette is an
        // opaque layer: ore in stone needs no look at its cells.
        if let ChunkBlocks::Packed(p) = blocks {
            if p.palette().iter().all(|&b| opaque(b)) {
                return true;
            }
        }
        // The neighbour's layer against the centre: its first or last
        // plane along the face's axis.
        let axis = face.axis();
        let plane = if [dx, dy, dz][axis] > 0 { 0 } else { N - 1 };
        (0..N).all(|u| {
            (0..N).all(|v| {
                let mut p = [0; 3];
                (p[axis], p[(axis + 1) % 3], p[(axis + 2) % 3]) = (plane, u, v);
                // A layer across y is one the chunk keeps in a row.
                let b = match axis {
                    1 => blocks.end(plane == N - 1, p[0], p[2]),
                    _ => blocks.get(p[0], p[1], p[2]),
                };
                opaque(b)
            })
        })
    })
}

#[inline(always)]
fn emit(
    face: Face,
    s: usize,
    [u0, v0]: [usize; 2],
    [w, h]: [usize; 2],
    key: u32,
    light: [Light; 4],
    out: &mut ChunkMesh,
) {
    let (ua, va) = face.tangents();
    let axis = face.axis();
    let plane = if face.normal()[axis] > 0 { s + 1 } else { s };
    let pass = key >> PASS_SHIFT;
    let water = pass == PASS_WATER;
    let ao = [0, 1, 2, 3].map(|c| if water { 3 } else { (key >> (8 + 2 * c)) & 3 });
    let mut origin = [0u32; 3];
    origin[axis] = plane as u32;
    origin[ua] = u0 as u32;
    origin[va] = v0 as u32;
    // Split along the diagonal whose ends are brighter, so AO and light
    // interpolate without a bright/dark seam.
    let bright =
        |k: usize| ao[k] * 16 + light[k].sky() as u32 + light[k].rgb().iter().map(|&c| c as u32).max().unwrap_or(0);
    let flip = bright(0) + bright(2) < bright(1) + bright(3);
    let quad = Quad::pack(&QuadSpec {
        origin,
        face: face as u32,
        size: [w as u32, h as u32],
        layer: key & 0xFF,
        ao,
        light,
        flip,
    });
    match pass {
        PASS_WATER => out.water.push(quad),
        PASS_CUTOUT => out.cutout.push(quad),
        _ => out.opaque.push(quad),
    }
}

/// The sprites of the centre chunk, drawn from both sides by the cutout
/// pass: two crossed quads per cross-shaped block, one lifted level quad
/// per flat one. Only chunks whose counts hold such a block are scanned.
fn sprites(n: &Neighbourhood, light: &LightVolume, out: &mut Vec<Quad>) {
    let mut shape_of = [Shape::None; 256];
    let mut any = false;
    for b in BlockId::all() {
        let shape = b.info().shape;
        if matches!(shape, Shape::Cross | Shape::Flat) && n.centre.counts().get(b) > 0 {
            shape_of[b.0 as usize] = shape;
            any = true;
        }
    }
    if !any {
        return;
    }
    for z in 0..N {
        for x in 0..N {
            // A column at a time: a packed chunk unpacks it in one go.
            let column = n.centre.blocks().column(x, z);
            for y in 0..N {
                let id = column.get(y);
                let (faces, lifted): (&[u32], bool) = match shape_of[id.0 as usize] {
                    Shape::Cross => (&[CROSS_A, CROSS_B], false),
                    Shape::Flat => (&[Face::PosY as u32], true),
                    _ => continue,
                };
                let own = light.at([x + 1, y + 1, z + 1]);
                for &face in faces {
                    let q = Quad::pack(&QuadSpec {
                        origin: [x as u32, y as u32, z as u32],
                        face,
                        size: [1, 1],
                        layer: id.info().tiles[0] as u32,
                        ao: [3; 4],
                        light: [own; 4],
                        flip: false,
                    });
                    out.push(if lifted { q.lifted() } else { q });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::chunk::Chunk;
    use crate::world::coords::{block_index, ChunkPos, CHUNK_VOLUME};

    fn chunk(blocks: ChunkBlocks) -> Chunk {
        Chunk::from_blocks(ChunkPos::new(0, 0, 0), blocks)
    }

    fn mesh_alone(c: &Chunk, around: &ChunkBlocks) -> ChunkMesh {
        let mut neighbours = [around; 27];
        neighbours[Neighbourhood::index(0, 0, 0)] = c.blocks();
        mesh_chunk(&Neighbourhood { centre: c, neighbours, light: None })
    }

    /// The shortcut for rock answers as the whole mesher does: a rock
    /// chunk shows faces only against a non-opaque block across a face,
    /// never against one beyond an edge or deeper in a neighbour.
    #[test]
    fn buried_rock_is_known_empty_exactly_when_the_mesher_finds_nothing() {
        let rock = chunk(ChunkBlocks::Dense(
            (0..CHUNK_VOLUME).map(|i| [BlockId::STONE, BlockId::COAL_ORE, BlockId::LAVA][i % 7 % 3]).collect(),
        ));
        let stone = ChunkBlocks::Uniform(BlockId::STONE);
        let holed = |at: [usize; 3]| {
            let mut ids = vec![BlockId::STONE; CHUNK_VOLUME].into_boxed_slice();
            ids[block_index(at[0], at[1], at[2])] = BlockId::AIR;
            ChunkBlocks::Dense(ids)
        };
        let water = ChunkBlocks::Uniform(BlockId::WATER);
        let packed = |blocks: &ChunkBlocks| {
            let mut c = Chunk::from_blocks(rock.pos, blocks.clone());
            c.compact();
            assert!(matches!(c.blocks(), ChunkBlocks::Packed(_)));
            c.blocks().clone()
        };
        // (neighbour offset, its blocks, whether the rock shows a face)
        let cases = [
            ((1, 0, 0), stone.clone(), false),
            ((1, 0, 0), holed([0, 9, 4]), true),
            ((1, 0, 0), holed([5, 9, 4]), false),
            ((-1, 0, 0), holed([31, 0, 31]), true),
            ((-1, 0, 0), holed([0, 0, 31]), false),
            ((0, -1, 0), holed([3, 31, 3]), true),
            ((0, -1, 0), holed([3, 0, 3]), false),
            ((0, 0, 1), holed([7, 7, 0]), true),
            ((1, 1, 0), holed([0, 0, 4]), false),
            ((0, 1, 0), water, true),
            ((0, 0, -1), packed(rock.blocks()), false),
            ((1, 0, 0), packed(&holed([0, 9, 4])), true),
            ((1, 0, 0), packed(&holed([5, 9, 4])), false),
        ];
        for ((dx, dy, dz), blocks, shows) in cases {
            let mut neighbours = [&stone; 27];
            neighbours[Neighbourhood::index(dx, dy, dz)] = &blocks;
            neighbours[Neighbourhood::index(0, 0, 0)] = rock.blocks();
            let n = Neighbourhood { centre: &rock, neighbours, light: None };
            let whole = Mesher::default().mesh_all(&n, |_| {});
            assert_eq!(!whole.is_empty(), shows, "({dx}, {dy}, {dz}): the mesher");
            assert_eq!(buried(&n), !shows, "({dx}, {dy}, {dz}): the shortcut");
            assert_eq!(mesh_chunk(&n), whole, "({dx}, {dy}, {dz})");
        }
        // A centre with a block that is not an opaque cube is never taken
        // for buried rock.
        let open = Chunk::from_blocks(rock.pos, holed([16, 16, 16]));
        let n = Neighbourhood { centre: &open, neighbours: [&stone; 27], light: None };
        assert!(!buried(&n) && !mesh_chunk(&n).is_empty());
    }

    #[test]
    fn links_from_the_meshers_masks_match_the_chunks_own() {
        let world = crate::worldgen::WorldGen::new(crate::worldgen::Preset::classic(), 42);
        for (x, y, z) in [(0, -1, 0), (0, 0, 0), (0, 1, 0), (3, -2, 1), (-2, 0, 5), (-6, -1, -10)] {
            let chunks: Vec<Chunk> = (-1..=1)
                .flat_map(|dz| (-1..=1).flat_map(move |dy| (-1..=1).map(move |dx| (dx, dy, dz))))
                .map(|(dx, dy, dz)| world.generate(ChunkPos::new(x + dx, y + dy, z + dz)))
                .collect();
            let centre = &chunks[13];
            let neighbours = std::array::from_fn(|i| chunks[i].blocks());
            let n = Neighbourhood { centre, neighbours, light: None };
            let (mesh, links) = Mesher::default().mesh_and_links(&n);
            assert_eq!(links, FaceLinks::of(centre), "chunk {x},{y},{z}");
            assert_eq!(mesh, mesh_chunk(&n), "chunk {x},{y},{z}");
        }
    }

    #[test]
    fn single_block_has_six_unoccluded_faces() {
        let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
        ids[block_index(5, 6, 7)] = BlockId::STONE;
        let c = chunk(ChunkBlocks::Dense(ids.into_boxed_slice()));
        let m = mesh_alone(&c, &ChunkBlocks::Uniform(BlockId::AIR));
        assert_eq!(m.opaque.len(), 6);
        assert!(m.water.is_empty());
        assert!(m.opaque.iter().all(|q| (0..4).all(|k| q.ao(k) == 3 && q.light(k) == Light::FULL_SKY)));
    }

    #[test]
    fn buried_chunk_has_no_faces_and_border_faces_are_culled() {
        let stone = chunk(ChunkBlocks::Uniform(BlockId::STONE));
        assert!(mesh_alone(&stone, &ChunkBlocks::Uniform(BlockId::STONE)).is_empty());
        // Alone in air: six merged faces, one quad per side.
        let m = mesh_alone(&stone, &ChunkBlocks::Uniform(BlockId::AIR));
        assert_eq!(m.quads(), 6);
    }

    /// Every opaque face's ambient occlusion against a count at each of
    /// its corners (the two side blocks and the diagonal one in front of
    /// the face; 0 where both sides are solid), over a random heap of stone.
    #[test]
    fn ambient_occlusion_counts_the_blocks_at_each_corner() {
        let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
        let mut h = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..512 {
            h = (h ^ (h >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9).wrapping_add(i);
            if h >> 62 == 0 {
                ids[block_index(4 + i as usize % 8, 4 + i as usize / 8 % 8, 4 + i as usize / 64)] = BlockId::STONE;
            }
        }
        let c = chunk(ChunkBlocks::Dense(ids.clone().into_boxed_slice()));
        let m = mesh_alone(&c, &ChunkBlocks::Uniform(BlockId::AIR));
        let solid = |p: [i32; 3]| {
            p.iter().all(|&v| (0..32).contains(&v))
                && ids[block_index(p[0] as usize, p[1] as usize, p[2] as usize)] == BlockId::STONE
        };
        let mut checked = 0;
        for q in &m.opaque {
            let face = Face::ALL.into_iter().find(|&f| f as u32 == q.face()).expect("a cube face");
            let ((ua, va), axis, normal) = (face.tangents(), face.axis(), face.normal());
            let (o, [w, h]) = (q.origin(), q.size());
            for (du, dv) in (0..w as i32).flat_map(|du| (0..h as i32).map(move |dv| (du, dv))) {
                let mut front = [o[0] as i32, o[1] as i32, o[2] as i32];
                front[ua] += du;
                front[va] += dv;
                front[axis] += normal[axis].min(0);
                for (k, &(cu, cv)) in CORNERS.iter().enumerate() {
                    let at = |eu: i32, ev: i32| {
                        let mut p = front;
                        p[ua] += eu;
                        p[va] += ev;
                        p
                    };
                    let (s1, s2, corner) = (solid(at(cu, 0)), solid(at(0, cv)), solid(at(cu, cv)));
                    let want = if s1 && s2 { 0 } else { 3 - (s1 as u32 + s2 as u32 + corner as u32) };
                    assert_eq!(q.ao(k), want, "{face:?} face, open block {front:?} in front, corner {k}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 2000, "{checked} corners");
    }

    #[test]
    fn flat_ground_merges_into_one_quad_and_a_step_darkens_corners() {
        let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
        for z in 0..32 {
            for x in 0..32 {
                ids[block_index(x, 0, z)] = BlockId::GRASS;
            }
        }
        let flat = chunk(ChunkBlocks::Dense(ids.clone().into_boxed_slice()));
        let below = ChunkBlocks::Uniform(BlockId::STONE);
        let mut neighbours = [&ChunkBlocks::Uniform(BlockId::AIR); 27];
        for dz in -1..=1 {
            for dx in -1..=1 {
                neighbours[Neighbourhood::index(dx, -1, dz)] = &below;
            }
        }
        let m = mesh_chunk(&Neighbourhood { centre: &flat, neighbours, light: None });
        // The grass layer: only its top is visible (sides touch... air in
        // the side neighbours, so they show too: 4 side strips).
        let tops: Vec<_> = m.opaque.iter().filter(|q| q.face() == Face::PosY as u32).collect();
        assert_eq!(tops.len(), 1, "one merged top quad");
        assert_eq!(tops[0].size(), [32, 32]);
        // Put one block on the ground: the ground around it gets darker AO.
        ids[block_index(10, 1, 10)] = BlockId::STONE;
        let bumpy = chunk(ChunkBlocks::Dense(ids.into_boxed_slice()));
        let mut n2 = neighbours;
        n2[Neighbourhood::index(0, 0, 0)] = bumpy.blocks();
        let m2 = mesh_chunk(&Neighbourhood { centre: &bumpy, neighbours: n2, light: None });
        assert!(m2.opaque.iter().any(|q| q.face() == Face::PosY as u32 && (0..4).any(|k| q.ao(k) < 3)));
    }

    #[test]
    fn light_reaches_the_corners_and_only_equal_light_merges() {
        use crate::light::ChunkLight;
        use std::sync::Arc;
        let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
        for z in 0..32 {
            for x in 0..32 {
                ids[block_index(x, 0, z)] = BlockId::STONE;
            }
        }
        let floor = chunk(ChunkBlocks::Dense(ids.into_boxed_slice()));
        let air = ChunkBlocks::Uniform(BlockId::AIR);
        let mut neighbours = [&air; 27];
        neighbours[Neighbourhood::index(0, 0, 0)] = floor.blocks();
        // Red light over the west half of the floor, none over the east.
        let red = Light::new(0, 15, 0, 0);
        let mut cells = vec![Light::DARK; CHUNK_VOLUME];
        for z in 0..32 {
            for y in 1..32 {
                for x in 0..16 {
                    cells[block_index(x, y, z)] = red;
                }
            }
        }
        let lit = ChunkLight::Dense(Arc::new(cells));
        let dark = ChunkLight::Uniform(Light::DARK);
        let mut light = [&dark; 27];
        light[Neighbourhood::index(0, 0, 0)] = &lit;
        let tops =
            |m: ChunkMesh| -> Vec<Quad> { m.opaque.into_iter().filter(|q| q.face() == Face::PosY as u32).collect() };
        let unlit = tops(mesh_chunk(&Neighbourhood { centre: &floor, neighbours, light: None }));
        assert_eq!(unlit.len(), 1, "no light data: full sky everywhere, one quad");
        let tops = tops(mesh_chunk(&Neighbourhood { centre: &floor, neighbours, light: Some(light) }));
        assert!(tops.len() >= 3, "light differs across the floor, so it cannot be one quad: {}", tops.len());
        let red_corners = |q: &Quad| (0..4).map(|k| q.light(k).rgb()[0]).collect::<Vec<_>>();
        // Faces whose corners see only red cells merge into one quad…
        assert!(tops.iter().any(|q| red_corners(q) == [15; 4] && q.size()[1] >= 14), "{tops:?}");
        // …the faces at the edge of the light get averages…
        assert!(tops.iter().any(|q| red_corners(q).iter().any(|&r| r > 0 && r < 15)));
        // …and the dark half is dark.
        assert!(tops.iter().any(|q| red_corners(q) == [0; 4]));
        for q in &tops {
            let x = q.corners().map(|c| c[0]);
            assert!(x.iter().all(|&x| x <= 16) || x.iter().all(|&x| x >= 15), "a quad spans the light's edge: {x:?}");
        }
    }

    #[test]
    fn water_goes_to_the_translucent_mesh_and_hides_under_opaque() {
        let water = chunk(ChunkBlocks::Uniform(BlockId::WATER));
        let m = mesh_alone(&water, &ChunkBlocks::Uniform(BlockId::AIR));
        assert!(m.opaque.is_empty() && m.water.len() == 6);
        let m = mesh_alone(&water, &ChunkBlocks::Uniform(BlockId::WATER));
        assert!(m.is_empty());
    }

    /// Two blocks of `kind` side by side in air.
    fn pair(kind: BlockId) -> ChunkMesh {
        let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
        ids[block_index(5, 6, 7)] = kind;
        ids[block_index(6, 6, 7)] = kind;
        let c = chunk(ChunkBlocks::Dense(ids.into_boxed_slice()));
        mesh_alone(&c, &ChunkBlocks::Uniform(BlockId::AIR))
    }

    #[test]
    fn leaves_keep_their_shared_faces_and_glass_does_not() {
        let leaves = pair(BlockId::LEAVES);
        assert!(leaves.opaque.is_empty() && leaves.water.is_empty());
        // 10 outer faces merge into 6 quads; the 2 faces between them stay.
        let inner =
            |m: &ChunkMesh| m.cutout.iter().filter(|q| q.face() <= Face::NegX as u32 && q.origin()[0] == 6).count();
        assert_eq!(inner(&leaves), 2, "both faces between the leaves are drawn");
        let glass = pair(BlockId::GLASS);
        assert_eq!(inner(&glass), 0, "faces between glass blocks are hidden");
        assert_eq!(glass.cutout.len(), 6, "glass pair: six merged outer quads");
    }

    #[test]
    fn a_flower_is_two_crossed_quads_and_hides_nothing() {
        let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
        ids[block_index(5, 6, 7)] = BlockId::ROSE;
        ids[block_index(5, 5, 7)] = BlockId::GRASS;
        let c = chunk(ChunkBlocks::Dense(ids.into_boxed_slice()));
        let m = mesh_alone(&c, &ChunkBlocks::Uniform(BlockId::AIR));
        assert_eq!(m.cutout.len(), 2, "two quads");
        assert!(m.cutout.iter().all(|q| q.face() >= CROSS_A));
        assert_eq!(m.opaque.len(), 6, "the grass under the flower keeps its top face");
    }

    #[test]
    fn a_lily_pad_is_one_lifted_level_quad_over_the_water_surface() {
        let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
        ids[block_index(5, 6, 7)] = BlockId::LILY_PAD;
        ids[block_index(5, 5, 7)] = BlockId::WATER;
        let c = chunk(ChunkBlocks::Dense(ids.into_boxed_slice()));
        let m = mesh_alone(&c, &ChunkBlocks::Uniform(BlockId::AIR));
        assert_eq!(m.cutout.len(), 1, "one quad");
        let q = m.cutout[0];
        assert_eq!((q.face(), q.origin(), q.size(), q.is_lifted()), (Face::PosY as u32, [5, 6, 7], [1, 1], true));
        assert!(m.water.iter().any(|w| w.face() == Face::PosY as u32), "the water under the pad keeps its surface");
        assert!(!m.water.iter().any(|w| w.is_lifted()), "only sprites are lifted");
    }

    #[test]
    fn packed_chunks_mesh_exactly_like_dense_ones() {
        let kinds = [BlockId::AIR, BlockId::STONE, BlockId::LAVA, BlockId::LEAVES, BlockId::ROSE, BlockId::WATER];
        let mut s = 7u64;
        let mut random = |bias: usize| -> ChunkBlocks {
            let ids: Box<[BlockId]> = (0..CHUNK_VOLUME)
                .map(|_| {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    kinds[((s >> 40) as usize % (kinds.len() + bias)).min(kinds.len() - 1)]
                })
                .collect();
            ChunkBlocks::Dense(ids)
        };
        let dense: Vec<Chunk> = (0..27).map(|i| chunk(random(i % 4))).collect();
        let packed = compacted(&dense);
        assert!(packed.iter().all(|p| matches!(p.blocks(), ChunkBlocks::Packed(_))));
        let want = mesh_of(&dense);
        assert!(want.quads() > 1000);
        assert_eq!(mesh_of(&packed), want);
    }

    /// The 27 chunks, each compacted (packed where its types allow).
    fn compacted(chunks: &[Chunk]) -> Vec<Chunk> {
        chunks
            .iter()
            .map(|c| {
                let mut p = c.clone();
                p.compact();
                p
            })
            .collect()
    }

    /// The mesh of the middle of 27 chunks, in full sky.
    fn mesh_of(cs: &[Chunk]) -> ChunkMesh {
        let neighbours: [&ChunkBlocks; 27] = std::array::from_fn(|i| cs[i].blocks());
        mesh_chunk(&Neighbourhood { centre: &cs[Neighbourhood::index(0, 0, 0)], neighbours, light: None })
    }

    /// Neighbours of several opaque types (ore in stone), read as one
    /// class without unpacking, mesh as their dense ids do; so do
    /// neighbours that mix classes, beside them.
    #[test]
    fn neighbours_of_one_class_mesh_exactly_like_dense_ones() {
        let rock = [BlockId::STONE, BlockId::COAL_ORE, BlockId::IRON_ORE, BlockId::GRAVEL];
        let mixed = [BlockId::AIR, BlockId::STONE, BlockId::WATER, BlockId::LEAVES];
        let mut s = 11u64;
        let mut random = |kinds: &[BlockId]| -> ChunkBlocks {
            let ids: Box<[BlockId]> = (0..CHUNK_VOLUME)
                .map(|_| {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    kinds[(s >> 40) as usize % kinds.len()]
                })
                .collect();
            ChunkBlocks::Dense(ids)
        };
        let dense: Vec<Chunk> = (0..27).map(|i| chunk(random(if i % 3 == 0 { &mixed } else { &rock }))).collect();
        let want = mesh_of(&dense);
        assert!(want.quads() > 100, "{} quads", want.quads());
        assert_eq!(mesh_of(&compacted(&dense)), want);
    }
}
