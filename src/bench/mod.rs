//! `blockworld bench …`: benchmarks that print tables and JSON. Each
//! driver sets up through [`session::HeadlessSession`], and each report
//! prints itself as a table (`Display`) and serialises as JSON.
pub mod decorate;
pub mod density;
pub mod edit;
pub mod flight;
pub mod flood;
pub mod frames;
pub mod gen;
pub mod horizon;
pub mod kinds;
pub mod lattice;
pub mod light;
pub mod machine;
pub mod perlin;
pub mod placement;
pub mod report;
pub mod rss;
pub mod session;
pub mod teleport;
pub mod view;

/// The value at fraction `p` (0..1) of sorted timings, nearest rank;
/// NaN for none.
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// The least and greatest of some ratios, `[least, greatest]`; none for
/// none. Beside a median of ratios it says how far single rounds stray.
pub(crate) fn spread(v: impl IntoIterator<Item = f64>) -> Option<[f64; 2]> {
    v.into_iter().fold(None, |acc, r| Some(acc.map_or([r, r], |[lo, hi]: [f64; 2]| [lo.min(r), hi.max(r)])))
}

/// The median of some values with an interval that holds the median of
/// their distribution at `coverage`, whatever that distribution is: the
/// k-th least and k-th greatest of n independent values bracket it with
/// probability 1 − 2·P(Binomial(n, ½) < k).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MedianInterval {
    pub median: f64,
    pub interval: [f64; 2],
    pub coverage: f64,
}

/// [`MedianInterval`] of `v`, k the largest whose coverage is at least
/// `level`; with too few values for any, the least and greatest, with the
/// coverage they have. None for none.
pub(crate) fn median_interval(v: impl IntoIterator<Item = f64>, level: f64) -> Option<MedianInterval> {
    let mut v: Vec<f64> = v.into_iter().collect();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return None;
    }
    // P(Binomial(n, ½) < k) for k = 1, 2, …, as running sums of C(n, i)/2ⁿ.
    let (mut term, mut below) = (0.5f64.powi(n as i32), 0.0);
    let mut chosen = (1, 1.0 - 2.0 * term);
    for k in 1..=n.div_ceil(2) {
        below += term;
        term *= (n - (k - 1)) as f64 / k as f64;
        let coverage = 1.0 - 2.0 * below;
        if coverage < level {
            break;
        }
        chosen = (k, coverage);
    }
    let (k, coverage) = chosen;
    let interval = [v[k - 1], v[n - k]];
    Some(MedianInterval { median: median(v), interval, coverage })
}

/// The median of some timings (the mean of the middle two of an even count);
/// NaN for none.
pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    /// Nine values: the 2nd and 8th bracket the median at 1 − 2·10/512
    /// (the 3rd and 7th only at 82 %); five values have no 95 % interval,
    /// so the least and greatest come with their 1 − 2/32.
    #[test]
    fn the_median_interval_takes_the_order_statistics_the_binomial_allows() {
        let nine = [5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0, 4.0, 6.0];
        let m = super::median_interval(nine, 0.95).expect("nine values");
        assert_eq!((m.median, m.interval), (5.0, [2.0, 8.0]));
        assert!((m.coverage - (1.0 - 20.0 / 512.0)).abs() < 1e-12, "{}", m.coverage);
        let m = super::median_interval(nine, 0.8).expect("nine values");
        assert_eq!(m.interval, [3.0, 7.0]);
        let m = super::median_interval([1.0, 2.0, 3.0, 4.0, 5.0], 0.95).expect("five values");
        assert_eq!(m.interval, [1.0, 5.0]);
        assert!((m.coverage - (1.0 - 2.0 / 32.0)).abs() < 1e-12, "{}", m.coverage);
        assert_eq!(super::median_interval(std::iter::empty(), 0.95), None);
    }

    #[test]
    fn the_spread_is_the_least_and_greatest_in_any_order() {
        assert_eq!(super::spread([1.2, 0.9, 1.5, 1.0]), Some([0.9, 1.5]));
        assert_eq!(super::spread([1.1]), Some([1.1, 1.1]));
        assert_eq!(super::spread(std::iter::empty()), None);
    }
}
