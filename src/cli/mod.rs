//! Command-line surface: argument types and the non-game commands.
pub mod args;
pub mod far_hash;
pub mod node_range;
pub mod plant_table;
pub mod region_hash;
pub mod screenshot;
pub mod sound_table;
pub mod vein_table;
pub mod world_cmd;
