//! The world store as the streamer shares it: the game thread alone
//! changes it, and the light thread reads the chunks it lights through it,
//! so no chunk is held in a second map with a life of its own.
//!
//! `world/` knows no threads; the lock lives here, at the one place the
//! store crosses a thread. Readers take the lock for a lookup at a time,
//! never for a whole step, so neither thread waits on the other's work.

use crate::world::store::ChunkStore;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

#[derive(Clone, Default)]
pub struct SharedStore(Arc<RwLock<ChunkStore>>);

impl SharedStore {
    pub fn new(store: ChunkStore) -> SharedStore {
        SharedStore(Arc::new(RwLock::new(store)))
    }

    // A panic under the lock is a bug in a store call; carrying on with the
    // store as it stands keeps the player's edits on their way to the save
    // instead of turning one panic into a panic on every thread.
    pub fn read(&self) -> RwLockReadGuard<'_, ChunkStore> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn write(&self) -> RwLockWriteGuard<'_, ChunkStore> {
        self.0.write().unwrap_or_else(|e| e.into_inner())
    }
}
