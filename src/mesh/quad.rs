//! The compact quad: 16 bytes per quad, drawn as two triangles whose four
//! corners the vertex shader builds from it (`assets/shaders/terrain.wgsl`
//! reads the quads from a storage buffer by vertex index).
//!
//! One record per quad instead of four vertices keeps per-corner light in
//! the same 16 bytes four packed vertices took before light existed:
//!
//! - word 0: bits 0–5 x, 6–11 y, 12–17 z of corner 0 (0..=32 inside the
//!   chunk), 18–20 face (0..6, see [`Face`]; 6 and 7 are the two diagonal
//!   quads of a cross sprite), 21–25 width − 1, 26–30 height − 1 (along the
//!   face's tangents u and v), 31 split along the 1–3 diagonal;
//! - word 1: bits 0–7 atlas layer, 8–15 ambient occlusion of corners 0–3
//!   (two bits each, 0 darkest … 3 open), 16 lifted: a flat sprite, drawn
//!   [`LIFT`] of a block along its normal so that it floats clear of the
//!   water surface it lies on;
//! - words 2 and 3: the light of corners 0, 1 (word 2) and 2, 3 (word 3),
//!   16 bits each as in [`crate::light::Light`]: sky, red, green, blue.
//!
//! Corners run (0, 0), (w, 0), (w, h), (0, h) in (u, v).

use crate::light::Light;
use bytemuck::{Pod, Zeroable};

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Quad(pub [u32; 4]);

/// What a quad is made of, before packing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuadSpec {
    pub origin: [u32; 3],
    /// A [`Face`] as u32, or [`CROSS_A`] / [`CROSS_B`].
    pub face: u32,
    pub size: [u32; 2],
    pub layer: u32,
    pub ao: [u32; 4],
    pub light: [Light; 4],
    /// Split into triangles along the 1–3 diagonal instead of 0–2.
    pub flip: bool,
}

impl Quad {
    #[inline(always)]
    pub fn pack(q: &QuadSpec) -> Quad {
        let [x, y, z] = q.origin;
        let [w, h] = q.size;
        debug_assert!(x <= 32 && y <= 32 && z <= 32 && q.face < 8 && (1..=32).contains(&w) && (1..=32).contains(&h));
        debug_assert!(q.layer < 256 && q.ao.iter().all(|&a| a <= 3));
        let ao = q.ao[0] | q.ao[1] << 2 | q.ao[2] << 4 | q.ao[3] << 6;
        let l = |k: usize| q.light[k].0 as u32;
        Quad([
            x | y << 6 | z << 12 | q.face << 18 | (w - 1) << 21 | (h - 1) << 26 | (q.flip as u32) << 31,
            q.layer | ao << 8,
            l(0) | l(1) << 16,
            l(2) | l(3) << 16,
        ])
    }

    pub fn origin(self) -> [u32; 3] {
        let w = self.0[0];
        [w & 63, (w >> 6) & 63, (w >> 12) & 63]
    }
    pub fn face(self) -> u32 {
        (self.0[0] >> 18) & 7
    }
    pub fn size(self) -> [u32; 2] {
        [((self.0[0] >> 21) & 31) + 1, ((self.0[0] >> 26) & 31) + 1]
    }
    /// The quad as a flat sprite: drawn [`LIFT`] along its normal.
    pub fn lifted(self) -> Quad {
        Quad([self.0[0], self.0[1] | 1 << 16, self.0[2], self.0[3]])
    }
    pub fn is_lifted(self) -> bool {
        self.0[1] >> 16 & 1 != 0
    }
    pub fn flip(self) -> bool {
        self.0[0] >> 31 != 0
    }
    pub fn layer(self) -> u32 {
        self.0[1] & 255
    }
    pub fn ao(self, corner: usize) -> u32 {
        (self.0[1] >> (8 + 2 * corner)) & 3
    }
    pub fn light(self, corner: usize) -> Light {
        Light((self.0[2 + corner / 2] >> (16 * (corner % 2))) as u16)
    }

    /// The block-space positions of the four corners (as the shader
    /// builds them).
    pub fn corners(self) -> [[u32; 3]; 4] {
        let [x, y, z] = self.origin();
        match self.face() {
            CROSS_A => [[x, y, z], [x + 1, y, z + 1], [x + 1, y + 1, z + 1], [x, y + 1, z]],
            CROSS_B => [[x + 1, y, z], [x, y, z + 1], [x, y + 1, z + 1], [x + 1, y + 1, z]],
            f => {
                let (ua, va) = Face::ALL[f as usize].tangents();
                let [w, h] = self.size();
                [(0, 0), (w, 0), (w, h), (0, h)].map(|(du, dv)| {
                    let mut p = [x, y, z];
                    p[ua] += du;
                    p[va] += dv;
                    p
                })
            }
        }
    }
}

/// How far a lifted quad is drawn off its plane, in blocks: enough that
/// the depth test never mixes it with the water surface under a lily pad.
/// The shader writes the same figure.
pub const LIFT: f32 = 1.0 / 16.0;

/// The diagonal quad of a cross sprite from (0,0,0) to (1,1,1) in x/z.
pub const CROSS_A: u32 = 6;
/// The diagonal quad from (1,0,0) to (0,1,1) in x/z.
pub const CROSS_B: u32 = 7;

/// Face directions; the order is shared with the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Face {
    PosX = 0,
    NegX = 1,
    PosY = 2,
    NegY = 3,
    PosZ = 4,
    NegZ = 5,
}

impl Face {
    pub const ALL: [Face; 6] = [Face::PosX, Face::NegX, Face::PosY, Face::NegY, Face::PosZ, Face::NegZ];

    pub fn normal(self) -> [i32; 3] {
        match self {
            Face::PosX => [1, 0, 0],
            Face::NegX => [-1, 0, 0],
            Face::PosY => [0, 1, 0],
            Face::NegY => [0, -1, 0],
            Face::PosZ => [0, 0, 1],
            Face::NegZ => [0, 0, -1],
        }
    }

    /// Tangent axes (u, v) with u × v = normal, so (0,0) (1,0) (1,1) (0,1)
    /// in (u, v) is counter-clockwise seen from outside.
    pub fn tangents(self) -> (usize, usize) {
        match self {
            Face::PosX => (1, 2),
            Face::NegX => (2, 1),
            Face::PosY => (2, 0),
            Face::NegY => (0, 2),
            Face::PosZ => (0, 1),
            Face::NegZ => (1, 0),
        }
    }

    pub fn axis(self) -> usize {
        (self as usize) / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let spec = QuadSpec {
            origin: [32, 17, 0],
            face: Face::NegZ as u32,
            size: [32, 5],
            layer: 200,
            ao: [0, 1, 2, 3],
            light: [Light::new(15, 0, 0, 0), Light::new(0, 14, 11, 6), Light::new(3, 2, 1, 0), Light::new(9, 9, 9, 9)],
            flip: true,
        };
        let q = Quad::pack(&spec);
        assert_eq!((q.origin(), q.face(), q.size(), q.layer(), q.flip()), ([32, 17, 0], 5, [32, 5], 200, true));
        assert_eq!((0..4).map(|k| q.ao(k)).collect::<Vec<_>>(), spec.ao);
        assert_eq!((0..4).map(|k| q.light(k)).collect::<Vec<_>>(), spec.light);
        assert_eq!(std::mem::size_of::<Quad>(), 16, "four packed vertices took 16 bytes before light");
    }

    #[test]
    fn tangents_are_right_handed() {
        for f in Face::ALL {
            let (u, v) = f.tangents();
            let mut a = [0i32; 3];
            let mut b = [0i32; 3];
            a[u] = 1;
            b[v] = 1;
            let cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
            assert_eq!(cross, f.normal(), "{f:?}");
            assert_eq!(f.normal()[f.axis()].abs(), 1);
        }
    }
}
