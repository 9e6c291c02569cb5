//! The compact vertex: one u32 per vertex.
//!
//! bits 0–5 x, 6–11 y, 12–17 z (0..=32 inside the chunk), 18–20 face
//! (0..6, see [`Face`]; 6 and 7 are the two diagonal quads of a cross
//! sprite), 21–22 ambient occlusion (0 darkest … 3 open), 23–30 atlas
//! layer. Unpacked in `assets/shaders/terrain.wgsl`.

use bytemuck::{Pod, Zeroable};

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Vertex(pub u32);

impl Vertex {
    #[inline(always)]
    pub fn pack(pos: [u32; 3], face: Face, ao: u32, layer: u32) -> Vertex {
        Self::pack_code(pos, face as u32, ao, layer)
    }
    /// `pack` with a raw face code (0–5 a [`Face`], or [`CROSS_A`] / [`CROSS_B`]).
    #[inline(always)]
    pub fn pack_code(pos: [u32; 3], face: u32, ao: u32, layer: u32) -> Vertex {
        debug_assert!(pos.iter().all(|&c| c <= 32) && face < 8 && ao <= 3 && layer < 256);
        Vertex(pos[0] | pos[1] << 6 | pos[2] << 12 | face << 18 | ao << 21 | layer << 23)
    }
    pub fn pos(self) -> [u32; 3] {
        [self.0 & 63, (self.0 >> 6) & 63, (self.0 >> 12) & 63]
    }
    pub fn face(self) -> u32 {
        (self.0 >> 18) & 7
    }
    pub fn ao(self) -> u32 {
        (self.0 >> 21) & 3
    }
    pub fn layer(self) -> u32 {
        (self.0 >> 23) & 255
    }
}

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

    /// Index into a block's `tiles` ([top, side, bottom]).
    pub fn tile_slot(self) -> usize {
        match self {
            Face::PosY => 0,
            Face::NegY => 2,
            _ => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let v = Vertex::pack([32, 17, 0], Face::NegZ, 2, 200);
        assert_eq!((v.pos(), v.face(), v.ao(), v.layer()), ([32, 17, 0], 5, 2, 200));
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
