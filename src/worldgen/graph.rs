//! The CPU engine of the noise graph: the flat nodes of [`WorldParams`]
//! compiled into a straight-line stack program, run on any [`Lanes`] type.
//!
//! The GPU twin (`kernels/noise_objects.cuh`) builds one object per node with
//! a virtual `compute`; recursion is natural there. On the CPU a linear
//! program keeps the eight-lane AVX2 path free of recursive calls, so every
//! step inlines into one `target_feature` function.

use super::noise::lanes::Lanes;
use super::noise_kinds;
use super::params::{
    FlatDensityMap, FlatNode, WorldParams, FIELD_COUNT, INPUT_PERMUTATION, NODE_BASIC, NODE_COMBINED, NODE_DISTORT,
    NODE_ERODED, NODE_EXPSCALE, NODE_FBM, NODE_HETERO, NODE_HYBRID, NODE_OCTAVE, NODE_QUILEZ, NODE_RIDGED, SLOT_SCALE,
    SLOT_STRENGTH,
};
use super::preset::MAX_DEPTH;

/// Divisor applied to x and z before the octaves, as in the original.
pub const OCTAVE_DIVISOR: f32 = 1.01;
/// Its reciprocal in double precision, by which positions are multiplied
/// (a division costs several multiplies on eight lanes). Twin:
/// `BW_OCTAVE_SCALE`, the same correctly rounded quotient.
pub const OCTAVE_SCALE: f64 = 1.0 / OCTAVE_DIVISOR as f64;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// Push `gain·perlin3(x, z, z_offset)` at the current coordinates, on
    /// the permutation lattice where `permuted`.
    Basic { seed: u32, z_offset: f32, gain: f32, permuted: bool },
    /// Push `gain·`(the octave sum) at the current coordinates.
    Octave { seed: u32, z_offset: f32, octaves: u32, gain: f32, permuted: bool },
    /// Enter coordinates (x·scale, z·scale).
    ScaleCoords { scale: f32 },
    /// Push a fractal sum (fBm, hetero, hybrid, Quilez, ridged) at the current coordinates.
    Fractal { node: FlatNode, gain: f32 },
    /// Pop a value v and enter coordinates (x + v, z).
    ShiftX,
    /// Pop b then a and enter coordinates (x + strength·a, z + strength·b).
    Distort { strength: f32 },
    /// Return to the enclosing coordinates.
    PopCoords,
    /// top = the one-input kind of `node` applied to top.
    Unary { node: FlatNode },
    /// Pop the value into field `i`.
    StoreField(usize),
}

#[derive(Clone, Debug)]
pub struct NoiseProgram {
    pub ops: Vec<Op>,
    /// Per node of the graph, its program (its value in field 0) where a
    /// tree or plant density map reads it.
    pub maps: Vec<Option<NoiseProgram>>,
    /// The rivers' course node's program, where the preset has rivers.
    pub river: Option<Box<NoiseProgram>>,
}

impl NoiseProgram {
    pub fn compile(params: &WorldParams) -> NoiseProgram {
        let mut ops = Vec::new();
        for (field, &root) in params.terrain.field_roots.iter().enumerate() {
            emit(params, root as usize, &mut ops);
            ops.push(Op::StoreField(field));
        }
        let d = &params.deco;
        let patches = d.plants.patches.iter().flatten().map(|l| &l.map);
        let read = d.trees.biome_map.iter().chain(d.plants.layer_maps.iter().flatten()).chain(patches).map(|m| m.node);
        let mut maps = vec![None; params.terrain.node_count as usize];
        for node in read {
            if let Some(slot @ None) = maps.get_mut(node as usize) {
                *slot = Some(NoiseProgram::compile_node(params, node as usize));
            }
        }
        let rivers = &params.terrain.rivers;
        let river = (rivers.on != 0).then(|| Box::new(NoiseProgram::compile_node(params, rivers.course as usize)));
        NoiseProgram { ops, maps, river }
    }

    /// The program of one node, its value stored in field 0.
    pub fn compile_node(params: &WorldParams, node: usize) -> NoiseProgram {
        let mut ops = Vec::new();
        emit(params, node, &mut ops);
        ops.push(Op::StoreField(0));
        NoiseProgram { ops, maps: Vec::new(), river: None }
    }

    /// The factor of density map `map` at (x, z): 1 without a map.
    pub fn density_factor(&self, map: &FlatDensityMap, x: f32, z: f32) -> f32 {
        self.density_factor_sharing(map, x, z, &mut None)
    }

    /// [`Self::density_factor`] for maps asked one after another at one
    /// point: `seen` holds the last node read and its value, which a map
    /// reading the same node reuses.
    pub fn density_factor_sharing(&self, map: &FlatDensityMap, x: f32, z: f32, seen: &mut Option<(u32, f32)>) -> f32 {
        match self.maps.get(map.node as usize) {
            Some(Some(program)) => {
                let v = match *seen {
                    Some((n, v)) if n == map.node => v,
                    _ => program.eval::<f32>(x, z)[0],
                };
                *seen = Some((map.node, v));
                map.factor(v)
            }
            _ => 1.0,
        }
    }

    /// Whether map node `node` has a program (a map without one has factor 1).
    pub fn has_map(&self, node: u32) -> bool {
        matches!(self.maps.get(node as usize), Some(Some(_)))
    }

    /// The values of map node `node` at the points (`xs[i]`, `zs[i]`) into
    /// `out`, eight points per call where `lanes` allows: the bits
    /// [`Self::density_factor`] reads at each point alone. Nothing is
    /// written without a program for the node.
    pub fn map_values(&self, node: u32, lanes: super::heightmap::Lanes, xs: &[f32], zs: &[f32], out: &mut [f32]) {
        let Some(Some(program)) = self.maps.get(node as usize) else { return };
        let n = xs.len().min(zs.len()).min(out.len());
        #[cfg(target_arch = "x86_64")]
        if matches!(lanes, super::heightmap::Lanes::Avx2) {
            if let Some(avx2) = super::noise::perlin_avx2::avx2() {
                // SAFETY: AVX2 is present (the proof).
                unsafe { map_values_avx2(avx2, program, &xs[..n], &zs[..n], &mut out[..n]) };
                return;
            }
        }
        let _ = lanes; // read on x86_64 only
        for i in 0..n {
            out[i] = program.eval::<f32>(xs[i], zs[i])[0];
        }
    }

    /// The tree density factor of biome `b` at (x, z): 1 without a map.
    pub fn tree_density_factor(&self, params: &WorldParams, b: usize, x: f32, z: f32) -> f32 {
        params.deco.trees.biome_map.get(b).map_or(1.0, |m| self.density_factor(m, x, z))
    }

    /// Evaluates the six column fields at (x, z), lane-wise. The
    /// coordinates are carried in double precision from here on (see
    /// `noise::position`); x and z are whole blocks, exact in f32 across
    /// the accepted range.
    #[inline(always)]
    pub fn eval<L: Lanes>(&self, x: L, z: L) -> [L; FIELD_COUNT] {
        let zero = x.splat(0.0);
        let mut fields = [zero; FIELD_COUNT];
        // A Distort holds its first offset while its second is evaluated: up to
        // one waiting value per level.
        let mut values = [zero; 2 * MAX_DEPTH + 2];
        let mut top = 0usize;
        let origin = (x.widen(), z.widen());
        let mut coords = [origin; MAX_DEPTH + 2];
        let mut level = 0usize;
        for op in &self.ops {
            match *op {
                Op::Basic { seed, z_offset, gain, permuted } => {
                    let (cx, cz) = coords[level];
                    values[top] = noise3::<L>(permuted, seed, cx, cz, z_offset).mul(x.splat(gain));
                    top += 1;
                }
                Op::Octave { seed, z_offset, octaves, gain, permuted } => {
                    values[top] = octave_sum(permuted, seed, z_offset, octaves, x, coords[level]).mul(x.splat(gain));
                    top += 1;
                }
                Op::ScaleCoords { scale } => {
                    let (cx, cz) = coords[level];
                    level += 1;
                    coords[level] = (L::scale(cx, scale as f64), L::scale(cz, scale as f64));
                }
                Op::Fractal { node, gain } => {
                    values[top] = noise_kinds::fractal(&node, gain, x, coords[level]);
                    top += 1;
                }
                Op::Distort { strength } => {
                    top -= 2;
                    let (cx, cz) = coords[level];
                    let s = x.splat(strength);
                    level += 1;
                    coords[level] = (L::shift(cx, s.mul(values[top])), L::shift(cz, s.mul(values[top + 1])));
                }
                Op::ShiftX => {
                    top -= 1;
                    let (cx, cz) = coords[level];
                    level += 1;
                    coords[level] = (L::shift(cx, values[top]), cz);
                }
                Op::PopCoords => level -= 1,
                Op::Unary { node } => values[top - 1] = noise_kinds::unary(&node, values[top - 1]),
                Op::StoreField(i) => {
                    top -= 1;
                    fields[i] = values[top];
                }
            }
        }
        fields
    }

    pub fn perlin_evaluations(&self) -> u32 {
        self.ops
            .iter()
            .map(|op| match op {
                Op::Basic { .. } => 1,
                Op::Octave { octaves, .. } | Op::Fractal { node: FlatNode { octaves, .. }, .. } => *octaves,
                _ => 0,
            })
            .sum()
    }
}

/// `v += (1/u)·perlin3((x/1.01)·u, (z/1.01)·u, z_offset); u *= 2`, n times,
/// the position in double precision (x/1.01 as x·[`OCTAVE_SCALE`]); `like`
/// is any value of the lanes.
#[inline(always)]
pub fn octave_sum<L: Lanes>(
    permuted: bool,
    seed: u32,
    z_offset: f32,
    octaves: u32,
    like: L,
    (x, z): (L::Pos, L::Pos),
) -> L {
    let (xd, zd) = (L::scale(x, OCTAVE_SCALE), L::scale(z, OCTAVE_SCALE));
    let mut u = 1.0f32;
    let mut v = like.splat(0.0);
    for _ in 0..octaves {
        let n = noise3::<L>(permuted, seed, L::scale(xd, u as f64), L::scale(zd, u as f64), z_offset);
        v = v.add(like.splat(1.0 / u).mul(n));
        u *= 2.0;
    }
    v
}

/// A Basic or Octave node's noise: the seeded lattice, or the permutation
/// lattice (whose third coordinate carries the seed).
#[inline(always)]
fn noise3<L: Lanes>(permuted: bool, seed: u32, x: L::Pos, z: L::Pos, z_offset: f32) -> L {
    if permuted {
        L::permuted3(x, z, z_offset)
    } else {
        L::perlin3(seed, x, z, z_offset)
    }
}

fn emit(params: &WorldParams, node: usize, ops: &mut Vec<Op>) {
    let n = params.terrain.nodes[node];
    let permuted = n.input & INPUT_PERMUTATION != 0;
    // The loader made every child an earlier node.
    let child = |i: usize| n.children[i] as usize;
    match n.kind {
        NODE_BASIC => {
            ops.push(Op::Basic { seed: n.seed, z_offset: n.z_offset, gain: params.terrain.perlin_gain, permuted })
        }
        NODE_OCTAVE => ops.push(Op::Octave {
            seed: n.seed,
            z_offset: n.z_offset,
            octaves: n.octaves,
            gain: params.terrain.perlin_gain,
            permuted,
        }),
        NODE_FBM | NODE_HETERO | NODE_HYBRID | NODE_QUILEZ | NODE_RIDGED | NODE_ERODED => {
            ops.push(Op::Fractal { node: n, gain: params.terrain.perlin_gain })
        }
        NODE_COMBINED => {
            emit(params, child(1), ops);
            ops.push(Op::ShiftX);
            emit(params, child(0), ops);
            ops.push(Op::PopCoords);
        }
        NODE_DISTORT => {
            emit(params, child(1), ops);
            emit(params, child(2), ops);
            ops.push(Op::Distort { strength: n.slots[SLOT_STRENGTH] });
            emit(params, child(0), ops);
            ops.push(Op::PopCoords);
        }
        NODE_EXPSCALE => {
            ops.push(Op::ScaleCoords { scale: n.slots[SLOT_SCALE] });
            emit(params, child(0), ops);
            ops.push(Op::PopCoords);
            ops.push(Op::Unary { node: n });
        }
        // The one-input kinds (Normalize, Linear, the curves).
        _ => {
            emit(params, child(0), ops);
            ops.push(Op::Unary { node: n });
        }
    }
}

/// [`NoiseProgram::map_values`] eight points at a time; the last call's
/// unused lanes repeat its last point.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn map_values_avx2(
    avx2: super::noise::perlin_avx2::Avx2,
    program: &NoiseProgram,
    xs: &[f32],
    zs: &[f32],
    out: &mut [f32],
) {
    use super::noise::perlin_avx2::F32x8;
    let last = xs.len().saturating_sub(1);
    for start in (0..xs.len()).step_by(8) {
        let (mut bx, mut bz) = ([0.0f32; 8], [0.0f32; 8]);
        for k in 0..8 {
            let i = (start + k).min(last);
            (bx[k], bz[k]) = (xs[i], zs[i]);
        }
        let v = program.eval::<F32x8>(F32x8::load(avx2, &bx), F32x8::load(avx2, &bz))[0];
        let mut lanes = [0.0f32; 8];
        v.store(&mut lanes);
        let end = (start + 8).min(xs.len());
        out[start..end].copy_from_slice(&lanes[..end - start]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::noise::perlin::perlin3_at;
    use crate::worldgen::params::node_seed;
    use crate::worldgen::preset::Preset;

    /// A map node batched eight points a call gives each point's bits as
    /// one call per point does, a last partial batch included.
    #[test]
    fn map_values_in_lanes_equal_one_point_at_a_time() {
        use crate::worldgen::heightmap::Lanes as Choice;
        let params = WorldParams::new(&Preset::classic(), 42);
        let program = NoiseProgram::compile(&params);
        let plants = &params.deco.plants;
        let map = plants
            .layer_maps
            .iter()
            .flatten()
            .chain(plants.patches.iter().flatten().map(|l| &l.map))
            .find(|m| program.has_map(m.node))
            .expect("classic has plant maps");
        let xs: Vec<f32> = (0..13).map(|i| (i * 37 - 200) as f32).collect();
        let zs: Vec<f32> = (0..13).map(|i| (i * -53 + 91) as f32).collect();
        for lanes in [Choice::Scalar, Choice::detect()] {
            let mut out = vec![f32::NAN; xs.len()];
            program.map_values(map.node, lanes, &xs, &zs, &mut out);
            for i in 0..xs.len() {
                let one = program.maps[map.node as usize].as_ref().expect("compiled").eval::<f32>(xs[i], zs[i])[0];
                assert_eq!(out[i].to_bits(), one.to_bits(), "point {i} with {lanes:?}");
            }
        }
    }

    #[test]
    fn classic_program_costs_39_evaluations() {
        let params = WorldParams::new(&Preset::classic(), 7);
        assert_eq!(NoiseProgram::compile(&params).perlin_evaluations(), 39);
    }

    /// The moisture field by hand: ExpScale(Combined(B1, B2), 1, 1/512).
    #[test]
    fn moisture_field_hand_checked() {
        let seed = 7u64;
        let params = WorldParams::new(&Preset::classic(), seed);
        let program = NoiseProgram::compile(&params);
        let (x, z) = (1234.0f32, -567.0f32);
        let fields = program.eval::<f32>(x, z);
        // Positions in double precision, as `noise::position` has them.
        let (sx, sz) = (x as f64 * (1.0 / 512.0), z as f64 * (1.0 / 512.0));
        // classic takes noise1234's amplitude, 0.936, over the crate's 2/√3.
        let gain = params.terrain.perlin_gain;
        assert!((gain as f64 - 0.936 / (2.0 / 3f64.sqrt())).abs() < 1e-6, "{gain}");
        let b2 = perlin3_at(node_seed(seed, 2), sx, sz, 64.0) * gain;
        let b1 = perlin3_at(node_seed(seed, 1), sx + b2 as f64, sz, 32.0) * gain;
        let expected = crate::worldgen::noise::fastmath::signpow(b1, 1.0);
        assert_eq!(fields[1], expected);
        assert!((expected - b1).abs() < 1e-6);
    }

    /// Domain distortion by hand: the height field is
    /// Distort(b1, by: (b2, b3), strength 40), so b1 is read at
    /// (x + 40·b2(x, z), z + 40·b3(x, z)).
    #[test]
    fn distort_field_hand_checked() {
        let text = include_str!("../../assets/worldgen/classic.ron").replace(
            "        (name: \"b1_b2\"",
            "        (name: \"warped\", node: Distort(source: \"b1\", by: (\"b2\", \"b3\"), strength: 40.0)),\n        (name: \"b1_b2\"",
        );
        let text = text.replace("height: \"height\"", "height: \"warped\"");
        let seed = 11u64;
        let params = WorldParams::new(&Preset::parse(&text, "distort.ron").expect("valid"), seed);
        let program = NoiseProgram::compile(&params);
        let gain = params.terrain.perlin_gain;
        let basic =
            |offset: u32, x: f64, z: f64| perlin3_at(node_seed(seed, offset), x, z, 32.0 * offset as f32) * gain;
        for (x, z) in [(3.25f32, -7.5f32), (120.0, 44.0), (-999.5, 12.25)] {
            let (xd, zd) = (x as f64, z as f64);
            let (a, b) = (basic(2, xd, zd), basic(3, xd, zd));
            // The offsets are f32 values, widened as they move the position.
            let expected = basic(1, xd + (40.0 * a) as f64, zd + (40.0 * b) as f64);
            assert_eq!(program.eval::<f32>(x, z)[0], expected, "at ({x}, {z})");
        }
    }
}
