//! The game: streaming, the player, the loop, the window.
pub mod headless;
pub mod player;
pub mod spawn;
pub mod streaming;
