//! Saving off the game thread: the game hands over changed edit deltas and
//! the player's place; a thread commits each hand-over as one transaction.

use super::world_file::{SaveError, SavedPlayer, WorldFile};
use crate::world::coords::ChunkPos;
use crate::world::edits::ChunkEdits;
use crossbeam_channel::{Receiver, Sender};
use std::thread::JoinHandle;

pub struct SaveJob {
    pub deltas: Vec<(ChunkPos, ChunkEdits)>,
    /// Edits made since the last job.
    pub applied: u64,
    pub player: Option<SavedPlayer>,
    pub time_of_day: Option<f64>,
}

pub struct Saver {
    jobs: Option<Sender<SaveJob>>,
    errors: Receiver<SaveError>,
    thread: Option<JoinHandle<()>>,
}

impl Saver {
    pub fn spawn(mut world: WorldFile) -> Saver {
        let (jobs, rx) = crossbeam_channel::unbounded::<SaveJob>();
        let (err_tx, errors) = crossbeam_channel::unbounded();
        let thread = std::thread::Builder::new()
            .name("world-saver".into())
            .spawn(move || {
                for job in rx {
                    let saved = world
                        .save_edits(&job.deltas, job.applied)
                        .and_then(|()| job.player.as_ref().map_or(Ok(()), |p| world.save_player(p)))
                        .and_then(|()| job.time_of_day.map_or(Ok(()), |t| world.save_time_of_day(t)));
                    if let Err(e) = saved {
                        let _ = err_tx.send(e);
                    }
                }
            })
            .ok();
        Saver { jobs: Some(jobs), errors, thread }
    }

    /// Queues a save; never waits for the disk.
    pub fn save(&self, job: SaveJob) {
        if let Some(j) = &self.jobs {
            let _ = j.send(job);
        }
    }

    /// A save that failed since the last call, if any.
    pub fn take_error(&self) -> Option<SaveError> {
        self.errors.try_recv().ok()
    }

    /// Commits everything queued and stops the thread.
    pub fn finish(mut self) -> Option<SaveError> {
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.take_error()
    }
}

impl Drop for Saver {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
