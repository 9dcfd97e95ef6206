//! Checkpoint and rollback: the state before a communication step that may be discarded, kept
//! in preallocated storage and returned to without allocation.

use super::{Slave, SlaveError};

impl Slave {
    /// Remembers the current state in preallocated storage, for [`Slave::rollback`]: the
    /// state before a communication step that may be discarded.
    pub fn checkpoint(&mut self) {
        self.saved_time = self.time;
        if let Some(sim) = self.sim.as_mut() {
            sim.checkpoint();
        }
    }

    /// Returns to the last [`Slave::checkpoint`] (parameters and inputs are as they were: a
    /// communication step does not change them), without allocation.
    pub fn rollback(&mut self) -> Result<(), SlaveError> {
        if let Some(sim) = self.sim.as_mut() {
            sim.rollback().map_err(SlaveError::Snapshot)?;
        }
        self.time = self.saved_time;
        self.state_changed();
        Ok(())
    }
}
