//! Generation service (see issue for the game).
