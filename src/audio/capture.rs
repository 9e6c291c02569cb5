//! A kira backend with no device: the mix is pulled by whoever holds the
//! [`Tap`], a block of frames at a time. The sound thread pulls it at the
//! wall clock's pace for `--record-audio`; tests pull it as fast as they like.

use kira::backend::{Backend, Renderer};
use std::sync::{Arc, Mutex};

/// Sample rate of the recorded mix.
pub const RATE: u32 = 48_000;

/// Where the renderer goes once the manager starts it.
#[derive(Clone, Default)]
pub struct Tap(Arc<Mutex<Option<Renderer>>>);

impl Tap {
    /// The next `frames` stereo frames of the mix, interleaved (left,
    /// right); silence before the manager has started.
    pub fn render(&self, frames: usize) -> Vec<f32> {
        let mut out = vec![0.0f32; frames * 2];
        // A poisoned lock means a render panicked; the mix is then silence.
        if let Ok(mut guard) = self.0.lock() {
            if let Some(r) = guard.as_mut() {
                r.on_start_processing();
                r.process(&mut out, 2);
            }
        }
        out
    }
}

pub struct CaptureBackend {
    tap: Tap,
}

impl Backend for CaptureBackend {
    type Settings = Tap;
    type Error = std::convert::Infallible;

    fn setup(tap: Tap, _internal_buffer_size: usize) -> Result<(Self, u32), Self::Error> {
        Ok((CaptureBackend { tap }, RATE))
    }

    fn start(&mut self, renderer: Renderer) -> Result<(), Self::Error> {
        if let Ok(mut guard) = self.tap.0.lock() {
            *guard = Some(renderer);
        }
        Ok(())
    }
}
