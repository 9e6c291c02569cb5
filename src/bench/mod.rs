//! `blockworld bench …`: benchmarks that print tables and JSON. Each
//! driver sets up through [`session::HeadlessSession`], and each report
//! prints itself as a table (`Display`) and serialises as JSON.
pub mod decorate;
pub mod density;
pub mod edit;
pub mod flight;
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
    #[test]
    fn the_spread_is_the_least_and_greatest_in_any_order() {
        assert_eq!(super::spread([1.2, 0.9, 1.5, 1.0]), Some([0.9, 1.5]));
        assert_eq!(super::spread([1.1]), Some([1.1, 1.1]));
        assert_eq!(super::spread(std::iter::empty()), None);
    }
}
