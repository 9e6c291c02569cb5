//! This process's resident memory, read from `/proc/self/status` (Linux).
//! Elsewhere the figures are `None` and reports say so instead of guessing.

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_kib(&status, field)
}

fn parse_kib(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?;
    line[field.len() + 1..].trim().strip_suffix("kB")?.trim().parse().ok()
}

/// Resident memory now, in MiB.
pub fn resident_mib() -> Option<f64> {
    status_kib("VmRSS").map(|k| k as f64 / 1024.0)
}

/// The most resident memory this process has held so far, in MiB.
pub fn peak_resident_mib() -> Option<f64> {
    status_kib("VmHWM").map(|k| k as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_status_fields() {
        let s = "Name:\tblockworld\nVmHWM:\t  532100 kB\nVmRSS:\t  401000 kB\nVmRSSx:\t1 kB\n";
        assert_eq!(parse_kib(s, "VmHWM"), Some(532100));
        assert_eq!(parse_kib(s, "VmRSS"), Some(401000));
        assert_eq!(parse_kib(s, "VmSwap"), None);
    }

    #[test]
    fn this_process_has_resident_memory() {
        if cfg!(target_os = "linux") {
            let (now, peak) = (resident_mib().unwrap_or(0.0), peak_resident_mib().unwrap_or(0.0));
            assert!(now > 0.0 && peak >= now, "now {now} MiB, peak {peak} MiB");
        }
    }
}
