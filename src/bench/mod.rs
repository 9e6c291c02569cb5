//! `blockworld bench …`: benchmarks that print tables and JSON.
pub mod decorate;
pub mod density;
pub mod gen;
pub mod report;
pub mod rss;
