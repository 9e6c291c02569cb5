//! A backend that returns chunks with a world's saved edits applied: what
//! `region-hash --world` and `world get` read.

use crate::backend::{BackendError, ChunkBackend, DeviceTimings, Engine};
use crate::world::chunk::Chunk;
use crate::world::coords::ChunkPos;
use crate::world::edits::ChunkEdits;
use std::collections::HashMap;
use std::sync::Arc;

pub struct EditedBackend {
    inner: Arc<dyn ChunkBackend>,
    edits: HashMap<ChunkPos, ChunkEdits>,
}

impl EditedBackend {
    pub fn new(inner: Arc<dyn ChunkBackend>, edits: HashMap<ChunkPos, ChunkEdits>) -> Self {
        EditedBackend { inner, edits }
    }
}

impl ChunkBackend for EditedBackend {
    fn kind(&self) -> Engine {
        self.inner.kind()
    }

    fn generate(&self, positions: &[ChunkPos]) -> Result<Vec<Chunk>, BackendError> {
        let mut chunks = self.inner.generate(positions)?;
        for c in &mut chunks {
            if let Some(e) = self.edits.get(&c.pos) {
                e.apply(c);
            }
        }
        Ok(chunks)
    }

    fn last_timings(&self) -> Option<DeviceTimings> {
        self.inner.last_timings()
    }

    fn describe(&self) -> String {
        format!("{} with {} edited chunks", self.inner.describe(), self.edits.len())
    }
}
