//! `blockworld bench …`: benchmarks that print tables and JSON.
pub mod decorate;
pub mod density;
pub mod gen;
pub mod light;
pub mod report;
pub mod rss;

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
