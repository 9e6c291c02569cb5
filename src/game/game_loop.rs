//! Fixed-timestep updates with interpolated rendering.
//!
//! Frames feed real elapsed time into an accumulator; the simulation runs
//! whole 1/60 s ticks out of it. A slow frame runs several ticks, at most
//! `MAX_TICKS_PER_FRAME`; time beyond that is dropped, so a long stall never
//! becomes a spiral of ever longer frames. The renderer draws between the
//! last two states with the leftover fraction.

use std::time::Duration;

pub const TICK: Duration = Duration::from_nanos(16_666_667);
pub const MAX_TICKS_PER_FRAME: u32 = 5;

#[derive(Default)]
pub struct FixedStep {
    accumulator: Duration,
}

impl FixedStep {
    /// Adds a frame's time; returns how many ticks to run now.
    pub fn advance(&mut self, frame: Duration) -> u32 {
        self.accumulator += frame;
        let mut ticks = 0;
        while self.accumulator >= TICK && ticks < MAX_TICKS_PER_FRAME {
            self.accumulator -= TICK;
            ticks += 1;
        }
        if ticks == MAX_TICKS_PER_FRAME && self.accumulator >= TICK {
            self.accumulator = Duration::ZERO;
        }
        ticks
    }

    /// Fraction of a tick left over, for interpolation (0..1).
    pub fn alpha(&self) -> f64 {
        self.accumulator.as_secs_f64() / TICK.as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_frames_tick_at_60_hz_and_stalls_are_capped() {
        let mut f = FixedStep::default();
        let ticks: u32 = (0..120).map(|_| f.advance(Duration::from_micros(8_333))).sum();
        assert!((59..=61).contains(&ticks), "{ticks}");
        assert_eq!(f.advance(Duration::from_secs(3)), MAX_TICKS_PER_FRAME);
        assert!(f.alpha() < 1.0);
        assert_eq!(f.advance(Duration::ZERO), 0);
    }
}
