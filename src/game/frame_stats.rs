//! Frame timing for the overlay and the state dump: the last 60 frames,
//! and generation throughput over the last second.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Frames the overlay's frame time averages over.
const WINDOW: usize = 60;

pub struct FrameStats {
    pub started: Instant,
    last_frame: Instant,
    frame_ms: VecDeque<f64>,
    /// When the rate was last taken, the chunk count then, and the rate.
    rate: (Instant, u64, f64),
}

impl Default for FrameStats {
    fn default() -> FrameStats {
        let now = Instant::now();
        FrameStats { started: now, last_frame: now, frame_ms: VecDeque::new(), rate: (now, 0, 0.0) }
    }
}

impl FrameStats {
    /// A frame begins: the time since the last one.
    pub fn tick(&mut self) -> Duration {
        let now = Instant::now();
        let dt = now - self.last_frame;
        self.last_frame = now;
        self.frame_ms.push_back(dt.as_secs_f64() * 1e3);
        if self.frame_ms.len() > WINDOW {
            self.frame_ms.pop_front();
        }
        dt
    }

    pub fn mean_ms(&self) -> f64 {
        self.frame_ms.iter().sum::<f64>() / self.frame_ms.len().max(1) as f64
    }

    /// The longest of the last frames.
    pub fn max_ms(&self) -> f64 {
        self.frame_ms.iter().copied().fold(0.0, f64::max)
    }

    /// Chunks generated per second, from the running total, taken once a second.
    pub fn chunks_per_second(&mut self, generated: u64) -> f64 {
        let (since, count, _) = self.rate;
        if since.elapsed() >= Duration::from_secs(1) {
            let secs = since.elapsed().as_secs_f64();
            self.rate = (Instant::now(), generated, generated.saturating_sub(count) as f64 / secs);
        }
        self.rate.2
    }
}

/// The game thread's CPU clock, or the wall clock where there is none.
pub struct CpuClock(Option<Duration>, Instant);

impl CpuClock {
    pub fn now() -> CpuClock {
        CpuClock(crate::backend::thread_cpu_time(), Instant::now())
    }

    /// Milliseconds since `now`.
    pub fn ms(&self) -> f64 {
        match self.0.zip(crate::backend::thread_cpu_time()) {
            Some((a, b)) => (b - a).as_secs_f64() * 1e3,
            None => self.1.elapsed().as_secs_f64() * 1e3,
        }
    }
}
