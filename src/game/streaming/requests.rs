//! Generation scheduling: which chunks to ask the generation service for
//! next. The wanted list (render range, nearest ring first) is walked
//! before the edge ring; at most `max_in_flight` requests are outstanding.

use super::rings::{edge_offsets, ring_offsets, vertical, Offset, Range};
use crate::world::coords::ChunkPos;
use rustc_hash::FxHashSet as HashSet;

/// Positions looked at per call and per 16 ms of frame at most: after a
/// step across a chunk border the walk starts over, and most of the range
/// is already held; the rest of the walk waits for the next frame.
const MAX_SCAN: usize = 4096;

pub struct Requests {
    /// Sent to the service and not yet back (generated or cancelled).
    in_flight: HashSet<ChunkPos>,
    wanted: Vec<ChunkPos>,
    cursor: usize,
    /// The ring just outside the render distance: data for meshing the edge.
    edge: Vec<ChunkPos>,
    edge_cursor: usize,
    /// Sorted (wanted, edge) offsets for a render distance.
    offsets: (i32, Vec<Offset>, Vec<Offset>),
    max_in_flight: usize,
}

impl Requests {
    pub fn new(max_in_flight: usize) -> Requests {
        Requests {
            in_flight: HashSet::default(),
            wanted: Vec::new(),
            cursor: 0,
            edge: Vec::new(),
            edge_cursor: 0,
            offsets: (-1, Vec::new(), Vec::new()),
            max_in_flight,
        }
    }

    /// The lists for a new range; the walk starts over.
    pub fn recentre(&mut self, range: &Range) {
        let r = range.render_distance;
        if self.offsets.0 != r {
            self.offsets = (r, ring_offsets(r, vertical(r), 0), edge_offsets(r));
        }
        self.wanted = self.offsets.1.iter().map(|&o| range.at(o)).collect();
        self.edge = self.offsets.2.iter().map(|&o| range.at(o)).collect();
        self.cursor = 0;
        self.edge_cursor = 0;
    }

    /// Changes the bound on outstanding requests; requests already out stay.
    pub fn set_max_in_flight(&mut self, n: usize) {
        self.max_in_flight = n;
    }

    /// The chunks in render range, nearest first.
    pub fn wanted(&self) -> &[ChunkPos] {
        &self.wanted
    }

    /// The ring just outside the render range (the rest of the data range).
    pub fn edge(&self) -> &[ChunkPos] {
        &self.edge
    }

    /// The render distance the lists were made for (-1 before the first).
    pub fn render_distance(&self) -> i32 {
        self.offsets.0
    }

    /// A request came back (generated or cancelled).
    pub fn returned(&mut self, pos: ChunkPos) {
        self.in_flight.remove(&pos);
    }

    /// The next requests, nearest first and then the edge ring, up to the
    /// in-flight bound; `have` says which chunks need no request.
    pub fn next_batch(&mut self, frame_scale: usize, have: impl Fn(ChunkPos) -> bool) -> Vec<ChunkPos> {
        let mut room = self.max_in_flight.saturating_sub(self.in_flight.len());
        let mut scan = MAX_SCAN * frame_scale.max(1);
        let mut batch = Vec::new();
        for (list, cursor) in [(&self.wanted, &mut self.cursor), (&self.edge, &mut self.edge_cursor)] {
            while room > 0 && scan > 0 && *cursor < list.len() {
                scan -= 1;
                let p = list[*cursor];
                *cursor += 1;
                if !have(p) && self.in_flight.insert(p) {
                    batch.push(p);
                    room -= 1;
                }
            }
        }
        batch
    }

    /// When both lists have been walked, nothing is in flight and the view
    /// is still incomplete (a request was cancelled and the player came
    /// back), walk them again.
    pub fn rewind_if_stalled(&mut self, complete: bool) {
        if self.cursor >= self.wanted.len()
            && self.edge_cursor >= self.edge.len()
            && self.in_flight.is_empty()
            && !complete
        {
            self.cursor = 0;
            self.edge_cursor = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_respect_the_bound_and_skip_what_is_held() {
        let mut r = Requests::new(10);
        r.recentre(&Range::new(ChunkPos::new(0, 0, 0), 2));
        let first = r.next_batch(1, |p| p == ChunkPos::new(0, 0, 0));
        assert_eq!(first.len(), 10);
        assert!(!first.contains(&ChunkPos::new(0, 0, 0)), "a chunk already held is not asked for");
        assert!(r.next_batch(1, |_| false).is_empty(), "no room until requests come back");
        r.returned(first[0]);
        assert_eq!(r.next_batch(1, |_| false).len(), 1);
    }

    #[test]
    fn a_stalled_walk_starts_over() {
        let mut r = Requests::new(1000);
        r.recentre(&Range::new(ChunkPos::new(0, 0, 0), 2));
        let all = r.next_batch(1, |_| false);
        for p in &all {
            r.returned(*p);
        }
        assert!(r.next_batch(1, |_| false).is_empty(), "the lists are walked");
        r.rewind_if_stalled(false);
        assert_eq!(r.next_batch(1, |_| false).len(), all.len(), "cancelled requests are asked for again");
    }
}
