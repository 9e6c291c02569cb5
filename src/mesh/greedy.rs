//! Greedy meshing with per-vertex ambient occlusion.
//!
//! Visibility is computed 32 faces at a time on column bitmasks (bit y of
//! column (x, z)); so is ambient occlusion, as two bit-planes per corner.
//! Visible faces are then sorted into slices and merged greedily: two faces
//! merge only with the same tile and the same four AO values, so merging
//! never changes shading. Quads whose AO would interpolate along the wrong
//! diagonal are rotated so the shared index pattern splits them the other way.
//! Opaque, cutout (alpha-tested: leaves, glass, sprites) and water faces go
//! to separate meshes, one per render pass. Faces between leaves stay (a
//! canopy looks full from inside); faces between glass blocks do not.
//! Cross-shaped blocks (flowers, grass, torches) are two crossed quads each.

use super::vertex::{Face, Vertex, CROSS_A, CROSS_B};
use super::volume::{Neighbourhood, Volume, PADDED};
use crate::world::block::{BlockId, Shape, BLOCKS};
use crate::world::chunk::ChunkBlocks;
use crate::world::coords::CHUNK_SIZE;

/// Quads as 4 vertices each; draw with [`quad_indices`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMesh {
    pub opaque: Vec<Vertex>,
    pub cutout: Vec<Vertex>,
    pub water: Vec<Vertex>,
}

impl ChunkMesh {
    pub fn is_empty(&self) -> bool {
        self.opaque.is_empty() && self.cutout.is_empty() && self.water.is_empty()
    }
    pub fn quads(&self) -> usize {
        (self.opaque.len() + self.cutout.len() + self.water.len()) / 4
    }
}

/// Which mesh a face goes to, in its merge key above the tile and AO bits.
const PASS_SHIFT: u32 = 16;
const PASS_WATER: u32 = 1;
const PASS_CUTOUT: u32 = 2;

/// The index pattern shared by every quad: two triangles, 0-1-2 and 2-3-0.
pub fn quad_indices(quads: usize) -> Vec<u32> {
    (0..quads as u32).flat_map(|q| [0, 1, 2, 2, 3, 0].map(|i| q * 4 + i)).collect()
}

const N: usize = CHUNK_SIZE;

/// Reusable scratch space: a key per (slice, v, u) and row masks.
pub struct Mesher {
    keys: Vec<u32>,
    rows: Vec<u32>,
}

impl Default for Mesher {
    fn default() -> Self {
        Self { keys: vec![0; N * N * N], rows: vec![0; N * N] }
    }
}

thread_local! {
    static MESHER: std::cell::RefCell<Mesher> = std::cell::RefCell::new(Mesher::default());
}

/// Meshes the centre chunk of `n` (with this thread's scratch space).
pub fn mesh_chunk(n: &Neighbourhood) -> ChunkMesh {
    MESHER.with(|m| m.borrow_mut().mesh(n))
}

impl Mesher {
    pub fn mesh(&mut self, n: &Neighbourhood) -> ChunkMesh {
        let mut out = ChunkMesh::default();
        if let ChunkBlocks::Uniform(b) = n.centre.blocks {
            if b == BlockId::AIR {
                return out;
            }
        }
        let vol = Volume::build(n);
        for face in Face::ALL {
            self.mesh_face(n, &vol, face, &mut out);
        }
        cross_sprites(n, &mut out.cutout);
        out
    }

    fn mesh_face(&mut self, n: &Neighbourhood, vol: &Volume, face: Face, out: &mut ChunkMesh) {
        let [nx, ny, nz] = face.normal();
        let (ua, va) = face.tangents();
        let axis = face.axis();
        let unit = |a: usize, d: i32| -> [i32; 3] {
            let mut o = [0; 3];
            o[a] = d;
            o
        };
        let add = |a: [i32; 3], b: [i32; 3]| [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
        let nrm = [nx, ny, nz];
        // The eight AO sample offsets around the face, in the layer in front of it.
        let (um, up, vm, vp) =
            (add(nrm, unit(ua, -1)), add(nrm, unit(ua, 1)), add(nrm, unit(va, -1)), add(nrm, unit(va, 1)));
        let diag = |du: i32, dv: i32| add(add(nrm, unit(ua, du)), unit(va, dv));
        let corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)];
        // Each AO sample as (column index delta, bit shift), resolved once per face:
        // the four sides, then the four diagonals in corner order.
        let sample = |d: [i32; 3]| (d[2] as isize * PADDED as isize + d[0] as isize, (1 + d[1]) as u32);
        let sides = [sample(um), sample(up), sample(vm), sample(vp)];
        let diagonals = corners.map(|(du, dv)| sample(diag(du, dv)));

        let mut used_slices = 0u32;
        let slot = face.tile_slot();
        let mut tiles = [0u8; 256];
        for (t, b) in tiles.iter_mut().zip(BLOCKS) {
            *t = b.tiles[slot];
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
                // AO bit-planes, 32 faces at once: count = s1 + s2 + c,
                // ao = 3 - count, or 0 where both sides are solid.
                let mut ao_lo = [0u32; 4];
                let mut ao_hi = [0u32; 4];
                if vis_o | vis_c != 0 {
                    let base = (zp * PADDED + xp) as isize;
                    let o = |(delta, shift): (isize, u32)| (vol.opaque[(base + delta) as usize] >> shift) as u32;
                    let [s_um, s_up, s_vm, s_vp] = sides.map(o);
                    for (k, &(du, dv)) in corners.iter().enumerate() {
                        let s1 = if du < 0 { s_um } else { s_up };
                        let s2 = if dv < 0 { s_vm } else { s_vp };
                        let c = o(diagonals[k]);
                        let bit0 = s1 ^ s2 ^ c;
                        let bit1 = (s1 & s2) | (s1 & c) | (s2 & c);
                        let both = s1 & s2;
                        ao_lo[k] = !bit0 & !both;
                        ao_hi[k] = !bit1 & !both;
                    }
                }
                let column = n.centre.blocks.column(x, z);
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
                    used_slices |= 1 << s;
                }
            }
        }

        // Greedy merge, slice by slice.
        while used_slices != 0 {
            let s = used_slices.trailing_zeros() as usize;
            used_slices &= used_slices - 1;
            for v in 0..N {
                while self.rows[s * N + v] != 0 {
                    let row = self.rows[s * N + v];
                    let u0 = row.trailing_zeros() as usize;
                    let key = self.keys[(s * N + v) * N + u0];
                    let mut w = 1;
                    while u0 + w < N && (row >> (u0 + w)) & 1 != 0 && self.keys[(s * N + v) * N + u0 + w] == key {
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
                            if self.keys[(s * N + v + h) * N + u] != key {
                                break 'grow;
                            }
                        }
                        h += 1;
                    }
                    for dv in 0..h {
                        self.rows[s * N + v + dv] &= !span;
                    }
                    emit(face, s, u0, v, w, h, key, out);
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn emit(face: Face, s: usize, u0: usize, v0: usize, w: usize, h: usize, key: u32, out: &mut ChunkMesh) {
    let (ua, va) = face.tangents();
    let axis = face.axis();
    let plane = if face.normal()[axis] > 0 { s + 1 } else { s };
    let tile = key & 0xFF;
    let pass = key >> PASS_SHIFT;
    let water = pass == PASS_WATER;
    let ao = |c: usize| if water { 3 } else { (key >> (8 + 2 * c)) & 3 };
    let corner = |du: usize, dv: usize| {
        let mut p = [0u32; 3];
        p[axis] = plane as u32;
        p[ua] = (u0 + du) as u32;
        p[va] = (v0 + dv) as u32;
        p
    };
    let verts = [
        Vertex::pack(corner(0, 0), face, ao(0), tile),
        Vertex::pack(corner(w, 0), face, ao(1), tile),
        Vertex::pack(corner(w, h), face, ao(2), tile),
        Vertex::pack(corner(0, h), face, ao(3), tile),
    ];
    // Split along the diagonal whose ends are brighter, so AO interpolates
    // without the bright/dark seam; the rotation keeps the winding.
    let rotate = ao(0) + ao(2) < ao(1) + ao(3);
    let target = match pass {
        PASS_WATER => &mut out.water,
        PASS_CUTOUT => &mut out.cutout,
        _ => &mut out.opaque,
    };
    if rotate {
        target.extend_from_slice(&[verts[1], verts[2], verts[3], verts[0]]);
    } else {
        target.extend_from_slice(&verts);
    }
}

/// Two crossed quads per cross-shaped block of the centre chunk, drawn
/// from both sides by the cutout pass. Only chunks whose counts hold such a
/// block are scanned.
fn cross_sprites(n: &Neighbourhood, out: &mut Vec<Vertex>) {
    let crosses: Vec<BlockId> =
        BlockId::all().filter(|b| b.info().shape == Shape::Cross && n.centre.counts.get(*b) > 0).collect();
    if crosses.is_empty() {
        return;
    }
    let mut is_cross = [false; 256];
    for b in &crosses {
        is_cross[b.0 as usize] = true;
    }
    for z in 0..N {
        for x in 0..N {
            for y in 0..N {
                let id = n.centre.blocks.get(x, y, z);
                if !is_cross[id.0 as usize] {
                    continue;
                }
                let tile = id.info().tiles[0] as u32;
                let (x, y, z) = (x as u32, y as u32, z as u32);
                let quads = [
                    (CROSS_A, [[x, y, z], [x + 1, y, z + 1], [x + 1, y + 1, z + 1], [x, y + 1, z]]),
                    (CROSS_B, [[x + 1, y, z], [x, y, z + 1], [x, y + 1, z + 1], [x + 1, y + 1, z]]),
                ];
                for (face, corners) in quads {
                    out.extend(corners.map(|p| Vertex::pack_code(p, face, 3, tile)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::chunk::{BlockCounts, Chunk};
    use crate::world::coords::{block_index, ChunkPos, CHUNK_VOLUME};

    fn chunk(blocks: ChunkBlocks) -> Chunk {
        let counts = BlockCounts::tally(&blocks);
        Chunk { pos: ChunkPos::new(0, 0, 0), blocks, counts }
    }

    fn mesh_alone(c: &Chunk, around: &ChunkBlocks) -> ChunkMesh {
        let mut neighbours = [around; 27];
        neighbours[Neighbourhood::index(0, 0, 0)] = &c.blocks;
        mesh_chunk(&Neighbourhood { centre: c, neighbours })
    }

    #[test]
    fn single_block_has_six_unoccluded_faces() {
        let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
        ids[block_index(5, 6, 7)] = BlockId::STONE;
        let c = chunk(ChunkBlocks::Dense(ids.into_boxed_slice()));
        let m = mesh_alone(&c, &ChunkBlocks::Uniform(BlockId::AIR));
        assert_eq!(m.opaque.len(), 24);
        assert!(m.water.is_empty());
        assert!(m.opaque.iter().all(|v| v.ao() == 3));
    }

    #[test]
    fn buried_chunk_has_no_faces_and_border_faces_are_culled() {
        let stone = chunk(ChunkBlocks::Uniform(BlockId::STONE));
        assert!(mesh_alone(&stone, &ChunkBlocks::Uniform(BlockId::STONE)).is_empty());
        // Alone in air: six merged faces, one quad per side.
        let m = mesh_alone(&stone, &ChunkBlocks::Uniform(BlockId::AIR));
        assert_eq!(m.quads(), 6);
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
        let m = mesh_chunk(&Neighbourhood { centre: &flat, neighbours });
        // The grass layer: only its top is visible (sides touch... air in
        // the side neighbours, so they show too: 4 side strips).
        let tops: Vec<_> = m.opaque.iter().filter(|v| v.face() == Face::PosY as u32).collect();
        assert_eq!(tops.len(), 4, "one merged top quad");
        // Put one block on the ground: the ground around it gets darker AO.
        ids[block_index(10, 1, 10)] = BlockId::STONE;
        let bumpy = chunk(ChunkBlocks::Dense(ids.into_boxed_slice()));
        let mut n2 = neighbours;
        n2[Neighbourhood::index(0, 0, 0)] = &bumpy.blocks;
        let m2 = mesh_chunk(&Neighbourhood { centre: &bumpy, neighbours: n2 });
        assert!(m2.opaque.iter().any(|v| v.face() == Face::PosY as u32 && v.ao() < 3));
    }

    #[test]
    fn water_goes_to_the_translucent_mesh_and_hides_under_opaque() {
        let water = chunk(ChunkBlocks::Uniform(BlockId::WATER));
        let m = mesh_alone(&water, &ChunkBlocks::Uniform(BlockId::AIR));
        assert!(m.opaque.is_empty() && m.water.len() == 24);
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
        let inner = leaves.cutout.iter().filter(|v| v.face() <= Face::NegX as u32 && v.pos()[0] == 6).count();
        assert_eq!(inner, 8, "both faces between the leaves are drawn");
        let glass = pair(BlockId::GLASS);
        let inner = glass.cutout.iter().filter(|v| v.face() <= Face::NegX as u32 && v.pos()[0] == 6).count();
        assert_eq!(inner, 0, "faces between glass blocks are hidden");
        assert_eq!(glass.cutout.len(), 6 * 4, "glass pair: six merged outer quads");
    }

    #[test]
    fn a_flower_is_two_crossed_quads_and_hides_nothing() {
        let mut ids = vec![BlockId::AIR; CHUNK_VOLUME];
        ids[block_index(5, 6, 7)] = BlockId::ROSE;
        ids[block_index(5, 5, 7)] = BlockId::GRASS;
        let c = chunk(ChunkBlocks::Dense(ids.into_boxed_slice()));
        let m = mesh_alone(&c, &ChunkBlocks::Uniform(BlockId::AIR));
        assert_eq!(m.cutout.len(), 8, "two quads");
        assert!(m.cutout.iter().all(|v| v.face() >= crate::mesh::vertex::CROSS_A));
        assert_eq!(m.opaque.len(), 6 * 4, "the grass under the flower keeps its top face");
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
        let packed: Vec<Chunk> = dense
            .iter()
            .map(|c| {
                let mut p = c.clone();
                p.compact();
                assert!(matches!(p.blocks, ChunkBlocks::Packed(_)));
                p
            })
            .collect();
        let mesh = |cs: &[Chunk]| {
            let neighbours: [&ChunkBlocks; 27] = std::array::from_fn(|i| &cs[i].blocks);
            mesh_chunk(&Neighbourhood { centre: &cs[Neighbourhood::index(0, 0, 0)], neighbours })
        };
        let want = mesh(&dense);
        assert!(want.quads() > 1000);
        assert_eq!(mesh(&packed), want);
    }
}
