//! Generation scheduling: which chunks to ask the generation service for
//! next. The wanted list (render range, nearest ring first) is walked
//! before the edge ring; at most `max_in_flight` requests are outstanding,
//! a bound that follows the lanes' measured throughput ([`window`]).

use super::rings::{edge_offsets, ring_offsets, vertical, Offset, Range};
use crate::world::coords::ChunkPos;
use rustc_hash::FxHashSet as HashSet;
use std::time::Duration;

/// How long a request may wait in the service's queue beyond the next
/// update's refill: enough for a lane to finish the batch it holds and
/// take its next while the game thread draws a frame.
pub const LATENCY_TARGET: Duration = Duration::from_millis(50);

/// The shortest refill interval the window is sized for: a 60 Hz frame.
const MIN_REFILL: Duration = Duration::from_millis(16);

/// The most requests out at once, whatever the lanes make: positions
/// held by the service and chunks waiting in its channel, about 5 s of
/// this project's 2-core machines and a third of a second of an H200.
pub const MAX_WINDOW: usize = 65_536;

/// The requests to keep in flight, by Little's law: the lanes' throughput
/// (`capacity`, chunks a second, None before a lane is measured) times
/// the time a request spends out, which is up to a refill interval (the
/// last frame, at least 16 ms) plus [`LATENCY_TARGET`]. So the
/// service's queue never runs dry between two updates and the engines,
/// not the window, set the pace. Never below `floor`, never above
/// [`MAX_WINDOW`].
pub fn window(capacity: Option<f64>, frame: Duration, floor: usize) -> usize {
    let floor = floor.clamp(1, MAX_WINDOW);
    let Some(rate) = capacity.filter(|r| r.is_finite() && *r > 0.0) else { return floor };
    let out = frame.max(MIN_REFILL) + LATENCY_TARGET;
    ((rate * out.as_secs_f64()).ceil().min(MAX_WINDOW as f64) as usize).max(floor)
}

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
        // A wide window fills in one walk: the walk may look at twice the
        // room, so held chunks between the missing ones do not stop it.
        let mut scan = (MAX_SCAN * frame_scale.max(1)).max(2 * room);
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

    /// The window is throughput × time out: ten times the rate, ten times
    /// the requests, between the floor and the memory bound.
    #[test]
    fn the_window_follows_the_lanes_capacity() {
        let frame = Duration::from_millis(16);
        let out = (MIN_REFILL + LATENCY_TARGET).as_secs_f64();
        assert_eq!(window(None, frame, 256), 256, "unmeasured lanes get the floor");
        assert_eq!(window(Some(1_000.0), frame, 256), 256, "a slow lane gets the floor");
        let slow = window(Some(20_000.0), frame, 256);
        assert_eq!(slow, (20_000.0 * out).ceil() as usize);
        let fast = window(Some(200_000.0), frame, 256);
        assert!((fast as f64 / slow as f64 - 10.0).abs() < 0.01, "{fast} against {slow}");
        assert_eq!(window(Some(1e9), frame, 256), MAX_WINDOW);
        assert_eq!(window(Some(f64::NAN), frame, 256), 256);
        let long_frame = window(Some(20_000.0), Duration::from_millis(200), 256);
        assert_eq!(long_frame, (20_000.0 * 0.25_f64).ceil() as usize, "a long frame needs a longer refill");
    }

    /// With the window from a lane's capacity, the requests in flight
    /// follow it, in one walk, as the capacity moves.
    #[test]
    fn requests_in_flight_follow_the_window() {
        let mut r = Requests::new(256);
        r.recentre(&Range::new(ChunkPos::new(0, 0, 0), 32));
        let mut out = 0;
        for rate in [30_000.0, 120_000.0, 400_000.0] {
            let w = window(Some(rate), Duration::from_millis(16), 256);
            r.set_max_in_flight(w);
            out += r.next_batch(1, |_| false).len();
            assert_eq!(out, w, "at {rate} chunks/s");
        }
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
