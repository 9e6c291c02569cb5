//! Key bindings and the held-key state. Every binding is listed in
//! [`HELP`], shown in the game and in the README.

use super::player::Intent;
use std::collections::HashSet;
use winit::keyboard::{KeyCode, PhysicalKey};

pub const HELP: &str = "WASD move · mouse look · left click break · right click place · 1–9/wheel block · Space up/jump · Shift down · Ctrl sprint · F fly/walk · T fast time (hold) · G CPU/GPU/hybrid · +/- render distance · F2 screenshot · F3 debug overlay · F11 fullscreen · Tab settings · Esc menu";

/// A one-shot action from a key press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    ToggleFly,
    ToggleBackend,
    RenderDistanceUp,
    RenderDistanceDown,
    ToggleSettings,
    ReleaseCursor,
    ToggleFullscreen,
    /// The debug overlay (frame time, position, chunk counts) on or off.
    ToggleDebug,
    /// Write the window's next frame to a PNG.
    Screenshot,
    /// Select hotbar slot 0–8.
    Slot(usize),
}

pub fn action_for(key: KeyCode) -> Option<Action> {
    Some(match key {
        KeyCode::KeyF => Action::ToggleFly,
        KeyCode::KeyG => Action::ToggleBackend,
        KeyCode::Equal | KeyCode::NumpadAdd | KeyCode::PageUp => Action::RenderDistanceUp,
        KeyCode::Minus | KeyCode::NumpadSubtract | KeyCode::PageDown => Action::RenderDistanceDown,
        KeyCode::Tab => Action::ToggleSettings,
        KeyCode::Escape => Action::ReleaseCursor,
        KeyCode::F11 => Action::ToggleFullscreen,
        KeyCode::F3 => Action::ToggleDebug,
        KeyCode::F2 => Action::Screenshot,
        KeyCode::Digit1 => Action::Slot(0),
        KeyCode::Digit2 => Action::Slot(1),
        KeyCode::Digit3 => Action::Slot(2),
        KeyCode::Digit4 => Action::Slot(3),
        KeyCode::Digit5 => Action::Slot(4),
        KeyCode::Digit6 => Action::Slot(5),
        KeyCode::Digit7 => Action::Slot(6),
        KeyCode::Digit8 => Action::Slot(7),
        KeyCode::Digit9 => Action::Slot(8),
        _ => return None,
    })
}

#[derive(Default)]
pub struct InputState {
    held: HashSet<KeyCode>,
    /// Mouse movement since the last tick, in pixels.
    pub look: (f64, f64),
}

impl InputState {
    /// Records a key; returns the action of a fresh press.
    pub fn key(&mut self, key: PhysicalKey, pressed: bool) -> Option<Action> {
        let PhysicalKey::Code(code) = key else { return None };
        if pressed {
            let fresh = self.held.insert(code);
            if fresh {
                return action_for(code);
            }
        } else {
            self.held.remove(&code);
        }
        None
    }

    pub fn is_held(&self, key: KeyCode) -> bool {
        self.held.contains(&key)
    }

    pub fn release_all(&mut self) {
        self.held.clear();
        self.look = (0.0, 0.0);
    }

    pub fn intent(&self) -> Intent {
        let axis = |pos: KeyCode, neg: KeyCode| {
            self.held.contains(&pos) as i32 as f64 - self.held.contains(&neg) as i32 as f64
        };
        let up = self.held.contains(&KeyCode::Space) as i32
            - (self.held.contains(&KeyCode::ShiftLeft) || self.held.contains(&KeyCode::ShiftRight)) as i32;
        Intent {
            forward: axis(KeyCode::KeyW, KeyCode::KeyS),
            right: axis(KeyCode::KeyD, KeyCode::KeyA),
            up: up as f64,
            jump: self.held.contains(&KeyCode::Space),
            sprint: self.held.contains(&KeyCode::ControlLeft) || self.held.contains(&KeyCode::ControlRight),
        }
    }
}
