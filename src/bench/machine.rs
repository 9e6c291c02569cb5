//! Where and on what a benchmark ran: every report carries it, so a figure
//! read later names its machine, build and day.

use crate::game::screenshots::civil_date;
use serde::Serialize;
use std::fmt;

#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// The CPU's model name, or `unknown`.
    pub cpu: String,
    pub threads: usize,
    /// The threads chunk work may use (`--cpu-threads`, else `threads`).
    pub cpu_threads: usize,
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
        let cpu_threads = crate::backend::cpu::threads();
        Machine {
            cpu,
            threads,
            cpu_threads,
            commit: env!("BLOCKWORLD_COMMIT").to_string(),
            date: civil_date(days as i64),
        }
    }
}

impl fmt::Display for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {} threads", self.cpu, self.threads)?;
        if self.cpu_threads != self.threads {
            write!(f, " (chunk work on {}: --cpu-threads)", self.cpu_threads)?;
        }
        write!(f, ", commit {}, {}", self.commit, self.date)
    }
}
