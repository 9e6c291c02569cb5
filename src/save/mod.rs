//! Saved worlds: SQLite files holding a world's seed, preset, player and
//! edit deltas ([`world_file`]), and the backend that applies saved edits
//! on top of generation ([`edited`]).
pub mod edited;
pub mod recent;
pub mod saver;
pub mod world_file;
