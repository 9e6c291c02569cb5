//! Where and on what a benchmark ran: every report carries it, so a figure
//! read later names its machine, build and day.

use serde::Serialize;
use std::fmt;

#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// The CPU's model name, or `unknown`.
    pub cpu: String,
    pub threads: usize,
    /// The commit the binary was built from, `+changes` where its sources
    /// differed, `unknown` outside a git checkout.
    pub commit: String,
    /// UTC, YYYY-MM-DD.
    pub date: String,
}

impl Machine {
    pub fn here() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|m| m.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let days =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400);
        Machine { cpu, threads, commit: env!("BLOCKWORLD_COMMIT").to_string(), date: civil_date(days as i64) }
    }
}

impl fmt::Display for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {} threads, commit {}, {}", self.cpu, self.threads, self.commit, self.date)
    }
}

/// Days since 1970-01-01 as a proleptic Gregorian date (Hinnant's
/// days-to-civil).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_around_leap_days_and_eras() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(11_016), "2000-02-29");
        assert_eq!(civil_date(20_419), "2025-11-27");
        assert_eq!(civil_date(20_784), "2026-11-27");
        assert_eq!(civil_date(-1), "1969-12-31");
    }
}
