//! The interface every formulation implements (ARCHITECTURE.md principle 8): index-3
//! absolute coordinates, state-space coordinates and the semirecursive formulations are
//! peers behind [`Formulation`]; a [`crate::Simulation`] holds one and never asks which.
//! A new formulation is a new implementation plus one arm where the description chooses it
//! ([`crate::Simulation::new`]); no other formulation's code changes.

use crate::index3::{AssemblyReport, Mechanism};
use crate::integrators::{FloorReport, StepError, StepStats};
use crate::state::MechState;
use mbfmu_model::format::Quantity;
use std::any::Any;

/// Steps shorter than this fraction of the solver's step size move the current point along
/// its tangent instead of being solved ([`Formulation::shift_to`]).
pub const NEGLIGIBLE_STEP: f64 = 1e-3;

/// Internal steps taken and Newton iterations (last step, all steps).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounters {
    pub steps: u64,
    pub last_iterations: u32,
    pub total_iterations: u64,
}

impl StepCounters {
    fn count(&mut self, stats: StepStats) {
        self.steps += 1;
        self.last_iterations = stats.iterations;
        self.total_iterations += u64::from(stats.iterations);
    }
}

/// How far an advance got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The end time was reached.
    Reached,
    /// The step budget ran out first; the state is that of the last internal step.
    Budget,
}

/// Sizes of the equations, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// Bodies (absolute formulations) or relative coordinates (semirecursive).
    pub coordinates: usize,
    pub constraints: usize,
    /// Unknowns of the Newton iteration of one step.
    pub unknowns: usize,
}

/// One model in one formulation with its integrator.
pub trait Formulation: Send {
    /// The model's name (for reports).
    fn model_name(&self) -> &str;

    fn time(&self) -> f64;

    /// The state as absolute body states (formulations in other coordinates form this view
    /// when it is asked for).
    fn state(&self) -> &MechState;

    /// The input values held over the following steps.
    fn inputs(&self) -> &[f64];

    /// Sets the inputs held over the following steps. Fails, leaving the inputs as they
    /// were, if the model cannot be evaluated with them.
    fn set_inputs(&mut self, inputs: &[f64]) -> Result<(), String>;

    /// Sets input `index`; fails, keeping the previous value, if the model cannot be
    /// evaluated with it.
    fn set_input(&mut self, index: usize, value: f64) -> Result<(), String>;

    /// Largest internal step \[s\].
    fn step_size(&self) -> f64;

    /// One internal step to `target`; the state time becomes exactly `target`. On error the
    /// state is unchanged.
    fn step_to(&mut self, target: f64) -> Result<StepStats, StepError>;

    /// Moves the current point along its tangent to `target` without solving: a step much
    /// shorter than [`Formulation::step_size`] (e.g. the 2e-14 s a master's time arithmetic
    /// leaves at the end of an interval), where the index-3 equations would determine
    /// accelerations and multipliers only to ~eps |q| / h^2.
    fn shift_to(&mut self, target: f64) -> Result<StepStats, StepError>;

    /// Advances to `t_end`, taking at most `max_steps` internal steps (attempts, for methods
    /// that reject steps). The default takes equal sub-steps no larger than the step size;
    /// formulations with their own step control override it. On error the state is the one
    /// reached by the last successful step; when the budget runs out first the state is that
    /// of the last internal step and [`Progress::Budget`] says so (those steps are the first
    /// ones the unbounded advance takes).
    fn advance_to(&mut self, t_end: f64, counters: &mut StepCounters, max_steps: u64) -> Result<Progress, StepError> {
        let t0 = self.time();
        let span = t_end - t0;
        if !span.is_finite() || span < 0.0 {
            return Err(StepError::BadStep { time: t0, h: span });
        }
        if span == 0.0 {
            return Ok(Progress::Reached);
        }
        let step_size = self.step_size();
        // A communication step equal to the solver step must take one internal step, also
        // when the host computes t_end = k * H: that span differs from H by a few ulps of
        // t_end, which at t = 10 s and H = 1 ms is already 1e-12 relative.
        let round_off = 16.0 * f64::EPSILON * t0.abs().max(t_end.abs());
        let n = (((span - round_off) / step_size) * (1.0 - 1e-12)).ceil().max(1.0);
        // More steps than can ever be taken; a budget below that bounds the work instead.
        if n > 1e12 && max_steps as f64 > 1e12 {
            return Err(StepError::BadStep { time: t0, h: step_size });
        }
        let n = n as u64;
        for i in 1..=n {
            if i > max_steps {
                return Ok(Progress::Budget);
            }
            let target = if i == n { t_end } else { t0 + span * (i as f64 / n as f64) };
            let h = target - self.time();
            let stats = if h < NEGLIGIBLE_STEP * step_size { self.shift_to(target)? } else { self.step_to(target)? };
            counters.count(stats);
        }
        Ok(Progress::Reached)
    }

    /// Newton solves accepted at the round-off floor so far (`integrators::convergence`;
    /// cumulative, for reports).
    fn floor_report(&self) -> FloorReport {
        FloorReport::default()
    }

    /// Value of an output quantity at the current state.
    fn quantity(&self, q: Quantity) -> f64;

    /// Values of `quantities` at the current state into `out` (same length). Formulations
    /// override it where quantities share work (a joint's reaction force and torque, the
    /// energies), so that each shared part is computed once.
    fn quantities(&self, quantities: &[Quantity], out: &mut [f64]) {
        for (q, x) in quantities.iter().zip(out.iter_mut()) {
            *x = self.quantity(*q);
        }
    }

    fn dims(&self) -> Dims;

    /// What assembly of the initial conditions changed.
    fn assembly(&self) -> &AssemblyReport;

    /// Everything that influences the rest of the run besides the step counters, in the
    /// formulation's own serialized snapshot type, written into `bytes` (cleared first; its
    /// storage is reused, so a buffer of an earlier snapshot takes this one without allocation).
    fn snapshot_into(&self, bytes: &mut Vec<u8>);

    /// [`Formulation::snapshot_into`] a new buffer.
    fn snapshot(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        self.snapshot_into(&mut bytes);
        bytes
    }

    /// Saves what a snapshot holds into storage the formulation keeps, for
    /// [`Formulation::rollback`]: the constructor takes a first checkpoint, so later ones copy
    /// into storage of the right size and allocate nothing.
    fn checkpoint(&mut self);

    /// Returns to the last [`Formulation::checkpoint`] as [`Formulation::restore`] of a snapshot
    /// taken then would (the rollback of a failed communication step), without allocation.
    fn rollback(&mut self) -> Result<(), String>;

    /// Restores a [`Formulation::snapshot`] of the same model and settings. All or nothing:
    /// on error the formulation is as before.
    fn restore(&mut self, snapshot: &[u8]) -> Result<(), String>;

    /// The compiled absolute-coordinate mechanism, where the formulation has one.
    fn mechanism(&self) -> Option<&Mechanism> {
        None
    }

    /// The ODE a Model Exchange host integrates, where the formulation is one.
    fn ode(&mut self) -> Option<&mut dyn OdeSystem> {
        None
    }

    /// For typed access to a formulation's own view ([`crate::Simulation::formulation`]).
    fn as_any(&self) -> &dyn Any;
}

/// An ODE x' = f(t, x) in a formulation's coordinates, integrated by a host (FMI Model
/// Exchange); step events re-choose the coordinates.
pub trait OdeSystem {
    /// Number of continuous states.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn state(&self, x: &mut [f64]);

    fn state_value(&self, index: usize) -> f64;

    fn set_time(&mut self, t: f64);

    fn set_state(&mut self, x: &[f64]);

    /// Brings the formulation's state to the host's time, continuous states and inputs.
    fn evaluate(&mut self) -> Result<(), StepError>;

    fn derivatives(&mut self, dx: &mut [f64]) -> Result<(), StepError>;

    fn derivative_value(&mut self, index: usize) -> Result<f64, StepError>;

    /// The host accepted its step; true requests an event (new coordinates).
    fn completed_step(&mut self, counters: &mut StepCounters) -> Result<bool, StepError>;

    /// Event update; true if the continuous states changed meaning and value.
    fn event(&mut self) -> Result<bool, StepError>;
}

/// Serializes a formulation's snapshot into `bytes` (postcard: compact, self-delimiting, no
/// schema), reusing its storage. Formulations serialize a view of borrowed fields that writes
/// the same bytes as their owned snapshot type, which [`from_bytes`] reads.
pub(crate) fn to_bytes_into<T: serde::Serialize>(snapshot: &T, bytes: &mut Vec<u8>) {
    bytes.clear();
    let buffer = std::mem::take(bytes);
    *bytes = postcard::to_extend(snapshot, buffer).expect("snapshots serialize");
}

/// Reads a snapshot written by [`to_bytes_into`].
pub(crate) fn from_bytes<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| format!("the snapshot does not belong to this formulation: {e}"))
}
