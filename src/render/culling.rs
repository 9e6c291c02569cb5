//! Which chunks the eye can see: a walk outward from the eye's chunk
//! through the faces each chunk links ([`FaceLinks`]), inside the frustum,
//! never stepping back toward the eye.
//!
//! Why it never hides a visible face: a line of sight is straight, so the
//! chunks it crosses step along each axis one way only, and every step
//! after the first leaves a chunk through a face that the face it came in
//! by sees (the line runs through open blocks between them). The walk
//! follows every such step sequence: a chunk reached along several paths
//! keeps the union of the faces it was entered by and only the directions
//! all those paths travelled, which allows at least every step any one of
//! them allows. A face on a chunk's border is drawn by the chunk behind
//! it, which the walk enters from the open side. A chunk whose links are
//! not known (not yet meshed) counts as open, so culling never hides what
//! is still loading.
//!
//! This is the established "cave culling" of block games; the frustum
//! test is skipped next to the eye, where the near plane could cut a line
//! of sight's first few centimetres.

use super::camera::Frustum;
use crate::world::coords::{ChunkPos, CHUNK_SIZE, FACE_STEPS};
use crate::world::visibility::FaceLinks;
use glam::{DVec3, Vec3};
use std::collections::VecDeque;

/// The box of chunks a walk may visit: `radius` columns and `vertical`
/// levels each side of `centre` (the streaming range's box).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CullBox {
    pub centre: ChunkPos,
    pub radius: i32,
    pub vertical: i32,
}

impl CullBox {
    fn side(&self) -> (usize, usize) {
        ((2 * self.radius + 1) as usize, (2 * self.vertical + 1) as usize)
    }

    fn index(&self, p: ChunkPos) -> Option<usize> {
        let (dx, dy, dz) =
            (p.x as i64 - self.centre.x as i64, p.y as i64 - self.centre.y as i64, p.z as i64 - self.centre.z as i64);
        let (r, v) = (self.radius as i64, self.vertical as i64);
        if dx.abs() > r || dz.abs() > r || dy.abs() > v {
            return None;
        }
        let (side, levels) = self.side();
        Some((((dz + r) as usize * side) + (dx + r) as usize) * levels + (dy + v) as usize)
    }

    /// The index of `next`, one step `d` from the cell at `from`, if
    /// it is inside the box (cells run y fastest, then x, then z).
    #[inline]
    fn step(&self, from: usize, next: ChunkPos, d: usize) -> Option<usize> {
        let (side, levels) = self.side();
        let (c, r, v) = (self.centre, self.radius as i64, self.vertical as i64);
        let (value, centre, limit, stride) = match d / 2 {
            0 => (next.x, c.x, r, levels),
            1 => (next.y, c.y, v, 1),
            _ => (next.z, c.z, r, levels * side),
        };
        if (value as i64 - centre as i64).abs() > limit {
            return None;
        }
        Some(if d.is_multiple_of(2) { from + stride } else { from - stride })
    }

    fn cells(&self) -> usize {
        let (side, levels) = self.side();
        side * side * levels
    }
}

/// How the walk may step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steps {
    /// Outward only, as lines of sight go (the game's culling).
    Straight,
    /// Any way through linked faces: a chunk-level flood, as wide as
    /// [`crate::world::reach::Reach`] (used to check the links).
    Any,
}

/// Per-cell walk state: entered faces (bits 0–5), directions travelled
/// by every path so far (bits 6–11), visited (bit 15).
const VISITED: u16 = 1 << 15;
/// Out of range or out of the frustum: never entered.
const SHUT: u16 = 1 << 14;
/// Waiting in the queue.
const QUEUED: u16 = 1 << 13;

/// One chunk of the box during a walk. A cell belongs to the walk whose
/// `epoch` it carries, so nothing is cleared between walks.
#[derive(Clone, Copy, Default)]
struct Cell {
    epoch: u32,
    state: u16,
    /// The chunk's links, fetched once per walk.
    links: u16,
    /// Directions already stepped out of the cell, and the travelled set
    /// they were stepped with: a merge that only adds entry faces needs
    /// only the new directions.
    done: u8,
    done_travelled: u8,
}

/// Reusable walk memory: a cell per chunk of the box.
#[derive(Default)]
pub struct Culler {
    cells: Vec<Cell>,
    epoch: u32,
    queue: VecDeque<(ChunkPos, usize)>,
}

/// The opposite of each direction in a 6-bit mask (+x ↔ −x, …).
fn opposite(mask: u8) -> u8 {
    ((mask & 0b01_0101) << 1) | ((mask >> 1) & 0b01_0101)
}

impl Culler {
    /// The chunks reached from `eye` (world blocks) that meet the frustum,
    /// in the order first reached (outward, so roughly front to back). `in_range` bounds the
    /// walk inside `bounds`; `frustum` (camera-relative) is skipped when
    /// None. Returns None when the eye's chunk is outside `bounds`.
    pub fn walk(
        &mut self,
        eye: DVec3,
        frustum: Option<&Frustum>,
        bounds: CullBox,
        steps: Steps,
        in_range: impl Fn(ChunkPos) -> bool,
        links: impl Fn(ChunkPos) -> FaceLinks,
    ) -> Option<Vec<ChunkPos>> {
        let start = ChunkPos::containing([eye.x.floor() as i64, eye.y.floor() as i64, eye.z.floor() as i64]);
        let first = bounds.index(start)?;
        if self.cells.len() != bounds.cells() || self.epoch == u32::MAX {
            self.cells = vec![Cell::default(); bounds.cells()];
            self.epoch = 0;
        }
        self.epoch += 1;
        let epoch = self.epoch;
        self.queue.clear();
        let mut reached = Vec::new();
        let view = EyeFrame::new(eye, start, frustum);
        if view.sees(start) {
            reached.push(start);
        }
        self.cells[first] = Cell { epoch, state: VISITED, links: FaceLinks::ALL.bits(), done: 0, done_travelled: 0 };
        self.queue.push_back((start, first));
        while let Some((pos, at)) = self.queue.pop_front() {
            let (out, travelled) = self.directions_out(at, pos == start, steps);
            let mut rest = out;
            while rest != 0 {
                let d = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let s = FACE_STEPS[d];
                let next = ChunkPos::new(pos.x + s[0], pos.y + s[1], pos.z + s[2]);
                let Some(i) = bounds.step(at, next, d) else { continue };
                let old = self.cells[i];
                let (e, t) = (1u16 << (d ^ 1), (travelled as u16 | 1 << d) << 6);
                if old.epoch == epoch && old.state & SHUT != 0 {
                    continue;
                }
                let new = if old.epoch != epoch {
                    // Next to the eye the walk goes on outside the frustum,
                    // but what it reports is inside (a seen point is).
                    let ranged = in_range(next);
                    let inside = ranged && view.sees(next);
                    if !(inside || ranged && view.near(next)) {
                        // Tested once per walk, however many paths lead here.
                        self.cells[i] = Cell { epoch, state: SHUT, ..Cell::default() };
                        continue;
                    }
                    if inside {
                        reached.push(next);
                    }
                    let links = links(next).bits();
                    self.cells[i] = Cell { epoch, state: 0, links, done: 0, done_travelled: 0 };
                    VISITED | e | t
                } else {
                    // Merged: more faces in, fewer directions travelled.
                    (old.state & 0x3f) | e | ((old.state & t) & (0x3f << 6)) | VISITED
                };
                if self.merge_into(i, new, steps) {
                    self.queue.push_back((next, i));
                }
            }
        }
        Some(reached)
    }

    /// The directions the walk steps out of cell `at` now (and the
    /// directions travelled to it), remembered so that a later merge
    /// steps out only where it opens something new.
    #[inline(always)]
    fn directions_out(&mut self, at: usize, from_start: bool, steps: Steps) -> (u8, u8) {
        self.cells[at].state &= !QUEUED;
        let cell = &mut self.cells[at];
        let (entered, travelled) = ((cell.state & 0x3f) as u8, (cell.state >> 6 & 0x3f) as u8);
        let mut out = if from_start { 0x3f } else { FaceLinks::from_bits(cell.links).seen_from(entered) };
        if steps == Steps::Straight {
            out &= !opposite(travelled);
        }
        if cell.done_travelled == travelled {
            out &= !cell.done;
            cell.done |= out;
        } else {
            cell.done = out;
        }
        cell.done_travelled = travelled;
        (out, travelled)
    }

    /// Gives cell `i` its merged state `new`; whether it must go in the
    /// queue. A cell waiting in the queue reads its state when it is
    /// taken; one already taken goes back only if the merge lets it step
    /// somewhere new.
    #[inline(always)]
    fn merge_into(&mut self, i: usize, new: u16, steps: Steps) -> bool {
        let c = &mut self.cells[i];
        if new & !QUEUED == c.state & !QUEUED {
            return false;
        }
        let queued = c.state & QUEUED != 0;
        c.state = new | (c.state & QUEUED);
        if queued {
            return false;
        }
        let travelled = (new >> 6 & 0x3f) as u8;
        if c.done != 0 && c.done_travelled == travelled && steps == Steps::Straight {
            let allowed = FaceLinks::from_bits(c.links).seen_from((new & 0x3f) as u8) & !opposite(travelled);
            if allowed & !c.done == 0 {
                return false;
            }
        }
        c.state |= QUEUED;
        true
    }
}

/// Chunk boxes relative to the eye, for the frustum test: the start
/// chunk's origin in f64, and small integer steps from it in f32 (exact).
struct EyeFrame<'f> {
    start: ChunkPos,
    base: Vec3,
    frustum: Option<&'f Frustum>,
}

impl<'f> EyeFrame<'f> {
    fn new(eye: DVec3, start: ChunkPos, frustum: Option<&'f Frustum>) -> Self {
        let o = start.origin();
        let base = (DVec3::new(o[0] as f64, o[1] as f64, o[2] as f64) - eye).as_vec3();
        EyeFrame { start, base, frustum }
    }

    /// Whether chunk `p` meets the frustum (always, without one).
    #[inline(always)]
    fn sees(&self, p: ChunkPos) -> bool {
        let s = self.start;
        self.frustum.is_none_or(|f| {
            let steps = Vec3::new((p.x - s.x) as f32, (p.y - s.y) as f32, (p.z - s.z) as f32);
            let rel = self.base + steps * CHUNK_SIZE as f32;
            f.intersects_box(rel, rel + Vec3::splat(CHUNK_SIZE as f32))
        })
    }

    /// Whether `p` touches the eye's chunk.
    #[inline(always)]
    fn near(&self, p: ChunkPos) -> bool {
        let s = self.start;
        (p.x - s.x).abs() <= 1 && (p.y - s.y).abs() <= 1 && (p.z - s.z).abs() <= 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposite_swaps_pairs() {
        assert_eq!(opposite(0b000001), 0b000010);
        assert_eq!(opposite(0b100100), 0b011000);
        assert_eq!(opposite(0x3f), 0x3f);
    }

    fn bounds(r: i32) -> CullBox {
        CullBox { centre: ChunkPos::new(0, 0, 0), radius: r, vertical: r }
    }

    #[test]
    fn open_space_is_reached_everywhere_and_rock_stops_the_walk() {
        let mut culler = Culler::default();
        let eye = DVec3::new(16.0, 16.0, 16.0);
        let all = culler.walk(eye, None, bounds(2), Steps::Straight, |_| true, |_| FaceLinks::ALL).unwrap();
        assert_eq!(all.len(), 125, "every chunk of the box, each once");
        assert_eq!(all[0], ChunkPos::new(0, 0, 0));
        // Rock all round: the eye's chunk and its six neighbours (their
        // faces toward the eye can show).
        let rock = culler.walk(eye, None, bounds(2), Steps::Straight, |_| true, |_| FaceLinks::NONE).unwrap();
        assert_eq!(rock.len(), 7);
        assert!(culler
            .walk(DVec3::new(500.0, 0.0, 0.0), None, bounds(2), Steps::Straight, |_| true, |_| FaceLinks::ALL)
            .is_none());
    }

    #[test]
    fn a_bent_tunnel_is_seen_round_one_corner_but_never_back() {
        // Tunnel chunks along +x from the eye, then one turning +z, then
        // one turning back −x: a sight line can bend +x then +z (it may
        // cross the corner chunk diagonally), but not come back along −x.
        let tunnel = |p: ChunkPos| match (p.x, p.y, p.z) {
            (1 | 2, 0, 0) => FaceLinks::NONE.with(0, 1, true),
            (3, 0, 0) => FaceLinks::NONE.with(1, 4, true),
            (3, 0, 1) => FaceLinks::NONE.with(5, 1, true),
            (2, 0, 1) => FaceLinks::NONE.with(0, 1, true),
            _ => FaceLinks::NONE,
        };
        let mut culler = Culler::default();
        let eye = DVec3::new(16.0, 16.0, 16.0);
        let straight = culler.walk(eye, None, bounds(4), Steps::Straight, |_| true, tunnel).unwrap();
        assert!(straight.contains(&ChunkPos::new(3, 0, 1)));
        assert!(!straight.contains(&ChunkPos::new(2, 0, 1)), "reached only by stepping back along −x");
        let any = culler.walk(eye, None, bounds(4), Steps::Any, |_| true, tunnel).unwrap();
        assert!(any.contains(&ChunkPos::new(2, 0, 1)) && any.contains(&ChunkPos::new(1, 0, 1)));
    }
}
