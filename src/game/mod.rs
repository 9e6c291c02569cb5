//! The game: streaming, the player, the loop, the window.
pub mod app;
pub mod clock;
pub mod edit_bench;
pub mod engine;
pub mod flight;
pub mod game_loop;
pub mod headless;
pub mod hotbar;
pub mod hud;
pub mod input;
pub mod player;
pub mod settings;
pub mod spawn;
pub mod state_dump;
pub mod streaming;
pub mod target;
pub mod world_menu;
