//! Implicit integrators written once against the residual form of [Zhang2022, Sects. 2-3]:
//! r(y, y', lambda, t) = 0 with, at every time point, y = (explicit part) + b0 y'
//! ([Zhang2022, eq. 8b]). Newton corrects y' and
//! lambda ([Zhang2022, eqs. 21a-c]). Any formulation that implements [`DaeSystem`] gets every
//! integrator here.
//!
//! States may live on a manifold (rotations). The integrator never touches a state: it asks
//! the system for chart coordinates of stored states relative to a base state (\[Zhang2022\]
//! Sect. 3.1: "CGR parameters assumed zero at the last point t_{N-1}", here a rotation
//! vector) and for the state that chart coordinates describe.

pub mod coefficients;
pub mod convergence;
pub mod dense;
pub mod explicit;
mod explicit_ode;
mod integrator;
mod newton;
pub mod step_control;

pub use convergence::{Convergence, FloorReport, Verdict};
pub use explicit_ode::{Advance, ExplicitOde, Outcome, StiffnessTest, CALM_STEPS, STIFF_FRACTION, STIFF_STEPS};
pub use integrator::{Checkpoint, History, HistoryView, Integrator};
pub use newton::{correct, NewtonSettings, NewtonStats};

use std::fmt;

/// Why a time step failed. The integrator's state is unchanged after an error.
#[derive(Clone, Debug, PartialEq)]
pub enum StepError {
    /// Newton did not reach the tolerance.
    NotConverged { time: f64, iterations: u32, norm: f64, tolerance: f64 },
    /// A residual, correction or state became NaN or infinite.
    NonFinite { time: f64, what: String },
    /// The iteration matrix could not be factored.
    Singular { time: f64, detail: String },
    /// The step size is not a positive finite number, or too small to make progress.
    BadStep { time: f64, h: f64 },
    /// The model left the range where it is defined (e.g. a piston at the end of its stroke).
    Model { time: f64, what: String },
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::NotConverged { time, iterations, norm, tolerance } => write!(
                f,
                "Newton iteration did not converge at t = {time}: correction norm {norm:.3e} > tolerance {tolerance:.3e} after {iterations} iterations (reduce solver.stepSize or raise solver.maxIterations)"
            ),
            StepError::NonFinite { time, what } => write!(f, "non-finite value at t = {time}: {what}"),
            StepError::Singular { time, detail } => write!(f, "singular iteration matrix at t = {time}: {detail}"),
            StepError::BadStep { time, h } => write!(f, "invalid step size {h} at t = {time}"),
            StepError::Model { time, what } => write!(f, "at t = {time}: {what}"),
        }
    }
}

impl std::error::Error for StepError {}

/// A DAE r(y, y', lambda, t) = 0 with `n_diff` differential unknowns y and `n_alg`
/// algebraic unknowns lambda, seen through charts centred at a base state.
pub trait DaeSystem {
    /// A point of the state space (positions incl. rotations, velocities, their time
    /// derivatives and multipliers) plus whatever the system carries along a trajectory.
    type State: Clone;

    fn n_diff(&self) -> usize;
    fn n_alg(&self) -> usize;

    /// Coordinates (y, y') and multipliers of `state` in the chart centred at `base`.
    fn chart(&self, base: &Self::State, state: &Self::State, y: &mut [f64], yp: &mut [f64], lambda: &mut [f64]);

    /// The state at time `t` whose chart coordinates around `base` are (y, y', lambda).
    fn lift(&self, base: &Self::State, t: f64, y: &[f64], yp: &[f64], lambda: &[f64], out: &mut Self::State);

    /// Residual r(y, y', lambda, t) in the chart centred at `base`; `out` has n_diff + n_alg rows.
    fn residual(
        &mut self,
        base: &Self::State,
        t: f64,
        y: &[f64],
        yp: &[f64],
        lambda: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError>;

    /// Builds and factors the iteration matrix dr/dy' + b0 dr/dy (with dr/dlambda) at the
    /// given point ([Zhang2022, eq. 21a]); the system may drop terms (quasi-Newton).
    fn factor(
        &mut self,
        base: &Self::State,
        t: f64,
        b0: f64,
        y: &[f64],
        yp: &[f64],
        lambda: &[f64],
    ) -> Result<(), StepError>;

    /// Newton correction with the last factorization: (dy', dlambda) with J (dy', dlambda) = -r.
    fn solve(&mut self, r: &[f64], dyp: &mut [f64], dlambda: &mut [f64]) -> Result<(), StepError>;

    /// Size of a correction in the system's position units, compared with the tolerance
    /// (\[Fang2023\]: ||dq|| < tol, dq the position-level correction).
    fn correction_norm(&self, b0: f64, dyp: &[f64], dlambda: &[f64]) -> f64;

    /// Time of a state.
    fn time(&self, state: &Self::State) -> f64;

    /// The residual rows whose growth rejects a full Newton correction (laws with kinks
    /// that make full steps cycle); None: full corrections always.
    fn damped_rows(&self) -> Option<std::ops::Range<usize>> {
        None
    }
}

/// What one step cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Newton iterations summed over all implicit stages of the step.
    pub iterations: u32,
    /// Implicit stages (time points) solved.
    pub stages: u32,
    /// Of the iterations, those that solved with an iteration matrix factored before them
    /// (modified Newton, a kept matrix); 0 where the formulation does not tell.
    pub reused: u32,
}
