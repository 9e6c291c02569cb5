//! How the generation service shares one nearest-first queue between the
//! CPU pool and a device, with no hand-set fraction.
//!
//! * Each lane's throughput is measured per batch, without blocking anyone:
//!   wall time on the CPU; on a device, the lane's wall time with its
//!   waits for the device replaced by the device's own busy time from CUDA
//!   events (see [`lane_cost`]).
//! * Throughputs are smoothed over past batches (decayed sums), and batch
//!   sizes move only when the smoothed figure moved by a quarter, so the
//!   split does not oscillate.
//! * A lane's batch is what it makes in [`TARGET_BATCH_TIME`].
//! * A device lane takes only chunks the CPU would not reach before the
//!   device is done with them: it skips the first `r_cpu × t_device` of
//!   the queue, and so takes at most its share α of a short queue, from the
//!   back. A fast device takes from near the front; a slow one gets the far
//!   end or nothing, and never delays a near chunk. Until it is measured a
//!   device takes a few chunks from the back of the queue (a probe), and so
//!   it does again whenever its figure is [`STALE_AFTER`] old: a device judged
//!   slow by one unlucky batch (a cold first launch) would otherwise get
//!   nothing and never be measured again.
//! * α, the device's share, follows: `r_device / (r_device + r_cpu)`.

use super::DeviceTimings;
use std::time::{Duration, Instant};

/// The time one batch should take on any lane: short enough that a
/// cancellation or a switch applies soon, long enough to fill a launch.
pub const TARGET_BATCH_TIME: Duration = Duration::from_millis(40);

/// A device lane that has not finished a batch for this long takes a probe
/// (the chunks the CPU would reach last) when its share gives it nothing.
pub const STALE_AFTER: Duration = Duration::from_millis(320);

/// The most chunks a probe takes.
pub const PROBE_MAX: usize = 8;

/// The weight the past keeps at each new batch.
const DECAY: f64 = 0.75;

/// A batch size changes only when the throughput moved this much.
const HYSTERESIS: f64 = 0.25;

/// A lane's throughput: decayed sums of chunks and of the time they cost.
#[derive(Clone, Copy, Debug, Default)]
pub struct Meter {
    chunks: f64,
    seconds: f64,
    /// The throughput the batch size was last set from.
    sized_at: Option<f64>,
    /// When the last batch was recorded.
    last: Option<Instant>,
}

impl Meter {
    /// Records a batch of `chunks` that cost `cost`, finished at `now`.
    pub fn record(&mut self, chunks: usize, cost: Duration, now: Instant) {
        // A batch that cost nothing measurable says nothing about the rate.
        let cost = cost.as_secs_f64().max(1e-6);
        self.chunks = self.chunks * DECAY + chunks as f64;
        self.seconds = self.seconds * DECAY + cost;
        self.last = Some(now);
    }

    /// Whether the last batch was recorded `STALE_AFTER` or more before `now`.
    fn stale(&self, now: Instant) -> bool {
        self.last.is_none_or(|t| now.saturating_duration_since(t) >= STALE_AFTER)
    }

    /// Chunks per second, once measured.
    pub fn rate(&self) -> Option<f64> {
        (self.seconds > 0.0).then(|| self.chunks / self.seconds)
    }

    /// The next batch size, between 1 and `max`: the smoothed throughput
    /// times [`TARGET_BATCH_TIME`], kept where it was while the throughput
    /// stays within the hysteresis band. `unmeasured` before any batch.
    pub fn batch(&mut self, max: usize, unmeasured: usize) -> usize {
        let Some(rate) = self.rate() else { return unmeasured.clamp(1, max.max(1)) };
        let sized = match self.sized_at {
            Some(s) if (rate - s).abs() <= HYSTERESIS * s => s,
            _ => {
                self.sized_at = Some(rate);
                rate
            }
        };
        ((sized * TARGET_BATCH_TIME.as_secs_f64()).round() as usize).clamp(1, max.max(1))
    }
}

/// What a device batch cost its lane: the lane's wall time, with the time
/// it waited for the device replaced by the device's busy time (kernels and
/// copies, from CUDA events). On a GPU the two are close; under the driver
/// stand-in the waits hold the emulation, which runs on this machine's
/// cores and is no part of what the modelled device costs.
pub fn lane_cost(wall: Duration, timings: Option<&DeviceTimings>) -> Duration {
    match timings {
        Some(t) => {
            let ms = (wall.as_secs_f64() * 1e3 - t.wait_ms).max(0.0) + t.device_ms;
            Duration::from_secs_f64(ms.max(0.0) / 1e3)
        }
        None => wall,
    }
}

/// Which part of the queue a lane takes: `n` chunks after the first `skip`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Take {
    pub skip: usize,
    pub n: usize,
}

/// The CPU lane takes from the front.
pub fn cpu_take(queued: usize, cpu: &mut Meter, max: usize, unmeasured: usize) -> Option<Take> {
    (queued > 0).then(|| Take { skip: 0, n: cpu.batch(max, unmeasured).min(queued) })
}

/// The device lane's take; `cpu` is the CPU lane's meter when that lane is
/// running. None: nothing the device would finish before the CPU, and its
/// figure is recent.
pub fn device_take(
    queued: usize,
    device: &mut Meter,
    cpu: Option<&Meter>,
    (max, unmeasured): (usize, usize),
    now: Instant,
) -> Option<Take> {
    if queued == 0 {
        return None;
    }
    let Some(cpu) = cpu else {
        return Some(Take { skip: 0, n: device.batch(max, unmeasured).min(queued) });
    };
    let (Some(r_dev), Some(r_cpu)) = (device.rate(), cpu.rate()) else {
        return Some(probe(queued));
    };
    // m chunks from position k on are done by the device after m / r_dev;
    // the CPU reaches position k after k / r_cpu. So k ≥ m·r_cpu / r_dev,
    // and k + m ≤ queued caps m at the device's share of the queue.
    let share = r_dev / (r_dev + r_cpu);
    let mut m = device.batch(max, 1).min((queued as f64 * share).floor() as usize);
    while m > 0 {
        let skip = (r_cpu * m as f64 / r_dev).ceil() as usize;
        if skip + m <= queued {
            return Some(Take { skip, n: m });
        }
        m -= 1;
    }
    device.stale(now).then(|| probe(queued))
}

/// A measuring batch: the chunks the CPU would reach last, one in eight of
/// the queue up to [`PROBE_MAX`], at least one. One chunk alone would mostly
/// measure a launch's fixed cost, and a device judged by that would get
/// nothing from a short queue; a few from the back of a long queue (the
/// first view's) measure its throughput and delay no near chunk.
fn probe(queued: usize) -> Take {
    let n = (queued / 8).clamp(1, PROBE_MAX);
    Take { skip: queued - n, n }
}

/// The device's share of the throughput, α, once both lanes are measured.
pub fn alpha(device: &Meter, cpu: &Meter) -> Option<f64> {
    let (d, c) = (device.rate()?, cpu.rate()?);
    (d + c > 0.0).then(|| d / (d + c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    /// The instant every test's batches finish at: no test reads the clock.
    fn t0() -> Instant {
        static T0: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        *T0.get_or_init(Instant::now)
    }

    fn measured(chunks: usize, cost: Duration) -> Meter {
        let mut m = Meter::default();
        m.record(chunks, cost, t0());
        m
    }

    #[test]
    fn the_smoothed_rate_follows_a_change_without_jumping() {
        let mut m = measured(100, ms(100)); // 1000/s
        m.record(100, ms(50), t0()); // 2000/s now
        let r = m.rate().unwrap_or(0.0);
        assert!(r > 1000.0 && r < 2000.0, "between the old and the new rate: {r}");
        for _ in 0..40 {
            m.record(100, ms(50), t0());
        }
        assert!((m.rate().unwrap_or(0.0) - 2000.0).abs() < 1.0, "converges");
    }

    #[test]
    fn batch_sizes_hold_within_the_band_and_follow_beyond_it() {
        let mut m = measured(1000, ms(1000)); // 1000/s: 40 per 40 ms
        assert_eq!(m.batch(256, 8), 40);
        m.record(1100, ms(1000), t0()); // ~1057/s, inside the band
        assert_eq!(m.batch(256, 8), 40, "no change for a small move");
        for _ in 0..20 {
            m.record(3000, ms(1000), t0());
        }
        assert_eq!(m.batch(256, 8), 120, "a large move is followed");
        assert_eq!(m.batch(64, 8), 64, "capped");
        assert_eq!(Meter::default().batch(64, 8), 8, "unmeasured");
    }

    #[test]
    fn a_fast_device_takes_the_front_and_a_slow_one_the_back_or_nothing() {
        let cpu = measured(1000, ms(1000)); // 1000 chunks/s
        let mut fast = measured(10_000, ms(1000));
        let t = device_take(500, &mut fast, Some(&cpu), (256, 64), t0());
        assert_eq!(t, Some(Take { skip: 26, n: 256 }), "{t:?}");
        // 2 chunks/s: one chunk takes 0.5 s, in which the CPU makes 500.
        let mut slow = measured(2, ms(1000));
        assert_eq!(device_take(400, &mut slow, Some(&cpu), (256, 64), t0()), None, "nothing it would finish first");
        assert_eq!(device_take(800, &mut slow, Some(&cpu), (256, 64), t0()), Some(Take { skip: 500, n: 1 }));
        // Alone, a device takes the front whatever its speed.
        assert_eq!(device_take(400, &mut slow, None, (256, 64), t0()), Some(Take { skip: 0, n: 1 }));
        // As fast as the CPU: its 40 ms batch, after what the CPU makes meanwhile.
        let mut even = measured(1000, ms(1000));
        assert_eq!(device_take(100, &mut even, Some(&cpu), (256, 64), t0()), Some(Take { skip: 40, n: 40 }));
        // On a short queue, at most its share, from the back.
        assert_eq!(device_take(60, &mut even, Some(&cpu), (256, 64), t0()), Some(Take { skip: 30, n: 30 }));
        // Unmeasured next to the CPU: a few chunks from the back.
        assert_eq!(device_take(30, &mut Meter::default(), Some(&cpu), (256, 64), t0()), Some(Take { skip: 27, n: 3 }));
        assert_eq!(device_take(5, &mut Meter::default(), Some(&cpu), (256, 64), t0()), Some(Take { skip: 4, n: 1 }));
        assert_eq!(
            device_take(900, &mut Meter::default(), Some(&cpu), (256, 64), t0()),
            Some(Take { skip: 892, n: 8 })
        );
    }

    /// A device judged slow by one batch (a cold first launch, say) gets
    /// nothing from a short queue; once its figure is old it takes a probe
    /// from the back again, so a wrong figure is corrected.
    #[test]
    fn a_device_with_an_old_figure_is_measured_again() {
        let cpu = measured(10_000, ms(1000));
        let mut dev = measured(1000, ms(1000));
        let now = t0();
        assert_eq!(device_take(8, &mut dev, Some(&cpu), (256, 64), now), None, "a recent figure: nothing");
        let later = now + STALE_AFTER;
        assert_eq!(device_take(8, &mut dev, Some(&cpu), (256, 64), later), Some(Take { skip: 7, n: 1 }), "a probe");
        dev.record(1, Duration::from_micros(50), later);
        assert_eq!(device_take(8, &mut dev, Some(&cpu), (256, 64), later), None, "measured again");
    }

    #[test]
    fn a_device_never_takes_what_the_cpu_reaches_first() {
        let cpu = measured(1000, ms(1000));
        for dev_rate in [1usize, 10, 100, 500, 1000, 3000, 20_000] {
            for queued in [1usize, 5, 50, 300, 2000] {
                let mut dev = measured(dev_rate, ms(1000));
                if let Some(Take { skip, n }) = device_take(queued, &mut dev, Some(&cpu), (256, 64), t0()) {
                    assert!(skip + n <= queued);
                    let device_done = n as f64 / dev_rate as f64;
                    let cpu_reaches = skip as f64 / 1000.0;
                    assert!(device_done <= cpu_reaches + 1e-9, "rate {dev_rate}, queue {queued}: {skip}+{n}");
                }
            }
        }
    }

    #[test]
    fn device_cost_counts_the_device_not_the_wait() {
        let t = DeviceTimings { wait_ms: 90.0, device_ms: 2.0, ..DeviceTimings::default() };
        assert_eq!(lane_cost(ms(100), Some(&t)), ms(12));
        assert_eq!(lane_cost(ms(100), None), ms(100));
    }

    #[test]
    fn alpha_is_the_device_share_of_the_throughput() {
        let (cpu, dev) = (measured(1000, ms(1000)), measured(3000, ms(1000)));
        assert_eq!(alpha(&dev, &cpu), Some(0.75));
        assert_eq!(alpha(&Meter::default(), &cpu), None);
    }
}
