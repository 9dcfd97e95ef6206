//! The state to return to when a communication step fails ([`Simulation::checkpoint`],
//! [`Simulation::rollback`]), copied only when it must be.
//!
//! A failed internal step leaves the state as it was ([`Formulation::step_to`]), so a
//! communication step of one internal step needs no copy: if it fails, the state is still the
//! checkpoint's. The copy into the formulation's preallocated storage is made before anything
//! else would change the state: a second internal step, an advance of several, an input set
//! or a restored snapshot.

use crate::formulation::{is_negligible, SubSteps};
use crate::Simulation;

/// Where the state of the last checkpoint is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Checkpoint {
    /// It is the current state: nothing has changed it since the checkpoint but failed steps.
    Current,
    /// Copied into the formulation's storage ([`crate::formulation::Formulation::checkpoint`]).
    Saved,
    /// Gone: an advance has moved the state on without a copy (nothing to roll back to until
    /// the next checkpoint).
    Passed,
}

impl Simulation {
    /// Remembers the current state (what a snapshot holds), for [`Simulation::rollback`]: the
    /// state before a communication step. Copies nothing yet (see the module documentation).
    pub fn checkpoint(&mut self) {
        self.saved_counters = self.counters;
        self.checkpoint = Checkpoint::Current;
    }

    /// Returns to the last [`Simulation::checkpoint`], as restoring a snapshot taken then
    /// would, without allocation. An error if an advance has passed it without a copy (an
    /// advance that succeeded: there is nothing to discard).
    pub fn rollback(&mut self) -> Result<(), String> {
        match self.checkpoint {
            Checkpoint::Saved => self.formulation.rollback()?,
            Checkpoint::Current => self.formulation.forget_failed_step()?,
            Checkpoint::Passed => {
                return Err("no checkpoint to return to: the step after it succeeded".into());
            }
        }
        self.counters = self.saved_counters;
        Ok(())
    }

    /// Copies a checkpoint that is still the current state into the formulation's storage,
    /// before something changes the state.
    pub(crate) fn keep_checkpoint(&mut self) {
        if self.checkpoint == Checkpoint::Current {
            self.formulation.checkpoint();
            self.checkpoint = Checkpoint::Saved;
        }
    }

    /// Before an advance to `t_end`: the checkpoint is copied unless the advance is one solved
    /// internal step (which, if it fails, leaves the state as it was; a budget can only stop
    /// it before it starts).
    pub(crate) fn before_advance(&mut self, t_end: f64) {
        if self.checkpoint != Checkpoint::Current {
            return;
        }
        let f = &*self.formulation;
        let one_solved_step =
            !f.own_step_control() && !is_negligible(f, t_end) && SubSteps::count(f.time(), t_end, f.step_size()) == 1.0;
        if !one_solved_step {
            self.keep_checkpoint();
        }
    }

    /// After an advance that started at `start`: a checkpoint left uncopied is passed once the
    /// state has moved.
    pub(crate) fn after_advance(&mut self, start: f64) {
        if self.checkpoint == Checkpoint::Current && self.time() != start {
            self.checkpoint = Checkpoint::Passed;
        }
    }
}
