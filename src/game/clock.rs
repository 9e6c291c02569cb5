//! The time of day: a cycle of 20 minutes by default, sped up while T is
//! held, set directly from the settings panel or `--time`, and saved with
//! the world. 0 is midnight, 0.25 sunrise, 0.5 noon, 0.75 sunset
//! (see `render/sky.rs`).

use std::time::Duration;

/// Seconds in one day-night cycle.
pub const DAY_SECONDS: f64 = 1200.0;
/// How much faster time runs while T is held: a whole day in 20 seconds.
pub const FAST_FACTOR: f64 = 60.0;
/// A new world starts in the morning.
pub const START: f64 = 0.3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DayClock {
    time: f64,
}

impl DayClock {
    pub fn new(time: f64) -> DayClock {
        DayClock { time: time.rem_euclid(1.0) }
    }

    pub fn time(&self) -> f64 {
        self.time
    }

    pub fn set(&mut self, time: f64) {
        self.time = time.rem_euclid(1.0);
    }

    pub fn advance(&mut self, dt: Duration, fast: bool) {
        let speed = if fast { FAST_FACTOR } else { 1.0 };
        self.set(self.time + dt.as_secs_f64() * speed / DAY_SECONDS);
    }
}

/// Parses `--time`: a fraction of the day in 0..=1.
pub fn parse_time_of_day(s: &str) -> Result<f64, String> {
    let t: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number: give a time of day from 0 to 1"))?;
    if !(0.0..=1.0).contains(&t) {
        return Err(format!("{t} is not a time of day: use 0 (midnight) to 1, 0.5 is noon"));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_lasts_twenty_minutes_and_t_makes_it_twenty_seconds() {
        let mut c = DayClock::new(0.5);
        c.advance(Duration::from_secs(600), false);
        assert!(c.time().abs() < 1e-9 || (c.time() - 1.0).abs() < 1e-9, "half a day after noon is midnight");
        c.advance(Duration::from_secs(5), true);
        assert!((c.time() - 0.25).abs() < 1e-9, "five fast seconds are a quarter day");
    }

    #[test]
    fn bad_times_are_refused() {
        assert_eq!(parse_time_of_day("0.75"), Ok(0.75));
        assert!(parse_time_of_day("1.5").is_err());
        assert!(parse_time_of_day("-0.1").is_err());
        assert!(parse_time_of_day("noon").is_err());
        assert!(parse_time_of_day("NaN").is_err());
    }
}
