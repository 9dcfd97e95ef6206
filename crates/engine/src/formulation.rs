//! The interface every formulation implements (docs/architecture.md#formulations-are-peers): index-3
//! absolute coordinates, state-space coordinates and the semirecursive formulations are
//! peers behind [`Formulation`]; a [`crate::Simulation`] holds one and never asks which.
//! A new formulation is a new implementation plus one arm where the description chooses it
//! ([`crate::Simulation::new`]); no other formulation's code changes.

use crate::index3::{AssemblyReport, Mechanism};
use crate::inputs::InputSignals;
use crate::integrators::{FloorReport, StepError, StepStats};
use crate::output_plan::OutputPlan;
use crate::partials::{Column, Known};
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
    /// The budget ([`Budget`]) ran out first; the state is that of the last internal step.
    Budget,
}

/// What one advance (one doStep) may spend: internal steps (step attempts, for methods that
/// reject steps) and work, counted deterministically in work units ([`Meter`]). The advance
/// stops at the first internal step after which either limit is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub steps: u64,
    pub work: u64,
}

impl Budget {
    /// No limit.
    pub const UNLIMITED: Budget = Budget { steps: u64::MAX, work: u64::MAX };

    /// At most `steps` internal steps, work unlimited.
    pub const fn steps(steps: u64) -> Budget {
        Budget { steps, work: u64::MAX }
    }
}

/// Which limit of a [`Budget`] stopped an advance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Steps,
    Work,
}

/// Work units of one model evaluation with an iteration matrix of `n` unknowns that is
/// factored densely or by a general sparse LU: n^2 + [`EVALUATION_OVERHEAD`] (assembly and
/// solve grow with n^2 at these sizes, the fixed cost of a call with the constant).
pub fn matrix_evaluation_work(n: usize) -> u64 {
    let n = n as u64;
    n * n + EVALUATION_OVERHEAD
}

/// Work units of one Newton iteration with `n` unknowns that solves with an iteration matrix
/// factored before it (residual and triangular solves, no assembly of the matrix, no
/// factorization): n^2 / 8 + [`EVALUATION_OVERHEAD`], about the share of such an iteration
/// in the instructions of a factoring one on the catalog's flexible models.
pub fn matrix_reuse_work(n: usize) -> u64 {
    let n = n as u64;
    n * n / 8 + EVALUATION_OVERHEAD
}

/// Work units of one model evaluation whose linear algebra grows linearly with the `n`
/// unknowns (the Schur complements of the half-implicit method: block-tridiagonal for
/// chains, a small dense one for closed loops): 40 n + [`EVALUATION_OVERHEAD`].
pub fn linear_evaluation_work(n: usize) -> u64 {
    40 * n as u64 + EVALUATION_OVERHEAD
}

/// The fixed part of one evaluation's work units (calls, bookkeeping, force elements).
pub const EVALUATION_OVERHEAD: u64 = 1000;

/// Counts what an advance spends against its [`Budget`]: every internal step (attempt) is
/// one step, and its work is the model evaluations it made (Newton iterations, or stages of
/// an explicit method, at least one) times the formulation's work units per evaluation
/// ([`Formulation::evaluation_work`]), where an iteration that solved with an iteration
/// matrix factored before it (modified Newton, a kept matrix: [`StepStats::reused`]) costs
/// the cheaper [`Formulation::reuse_work`]. Deterministic: the same advance spends the same
/// work on every machine and at every load, so that where a doStep stops does not depend on
/// the host. One work unit is of the order of a nanosecond of one core (the catalog's rates:
/// `cargo run --release -p mbfmu-engine --example worst_case_do_step`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meter {
    budget: Budget,
    /// Work units per model evaluation.
    weight: u64,
    /// Work units per Newton iteration with a matrix factored before it.
    reuse_weight: u64,
    steps: u64,
    work: u64,
}

impl Meter {
    /// A meter whose every evaluation costs `weight` work units.
    pub fn new(budget: Budget, weight: u64) -> Meter {
        let weight = weight.max(1);
        Meter { budget, weight, reuse_weight: weight, steps: 0, work: 0 }
    }

    /// The same meter with Newton iterations on a matrix factored before them at
    /// `reuse_weight` work units (at most the full weight).
    pub fn reusing(self, reuse_weight: u64) -> Meter {
        Meter { reuse_weight: reuse_weight.clamp(1, self.weight), ..self }
    }

    /// An unlimited meter (single steps, start-up).
    pub fn unlimited() -> Meter {
        Meter::new(Budget::UNLIMITED, 1)
    }

    /// The limit that is reached, if any: no further internal step may start.
    pub fn exhausted(&self) -> Option<Limit> {
        if self.steps >= self.budget.steps {
            Some(Limit::Steps)
        } else if self.work >= self.budget.work {
            Some(Limit::Work)
        } else {
            None
        }
    }

    /// One internal step (attempt) that made `evaluations` model evaluations.
    pub fn charge(&mut self, evaluations: u64) {
        self.charge_reusing(evaluations, 0);
    }

    /// One internal step of a formulation that reports its Newton iterations: its
    /// evaluations (iterations, or its implicit stages when it reports none), those that
    /// reused a factorization at the reuse weight.
    pub fn charge_step(&mut self, stats: StepStats) {
        self.charge_reusing(u64::from(stats.iterations.max(stats.stages)), u64::from(stats.reused));
    }

    /// One internal step of `evaluations` model evaluations (at least one), `reused` of them
    /// on a matrix factored before them.
    fn charge_reusing(&mut self, evaluations: u64, reused: u64) {
        let evaluations = evaluations.max(1);
        let reused = reused.min(evaluations);
        let work = (evaluations - reused).saturating_mul(self.weight).saturating_add(reused * self.reuse_weight);
        self.steps += 1;
        self.work = self.work.saturating_add(work);
    }

    /// A meter for one more internal step (attempt) of this one's advance: the work left,
    /// one step; [`Meter::absorb`] adds what it spent back.
    pub fn one_step(&self) -> Meter {
        let budget = Budget { steps: 1, work: self.budget.work.saturating_sub(self.work) };
        Meter { budget, steps: 0, work: 0, ..*self }
    }

    /// Adds what `other` (a [`Meter::one_step`] of this one) spent.
    pub fn absorb(&mut self, other: &Meter) {
        self.steps += other.steps;
        self.work = self.work.saturating_add(other.work);
    }

    /// Internal steps (attempts) charged.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Work units charged.
    pub fn work(&self) -> u64 {
        self.work
    }

    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Work units per model evaluation.
    pub fn weight(&self) -> u64 {
        self.weight
    }

    /// Work units per Newton iteration on a matrix factored before it.
    pub fn reuse_weight(&self) -> u64 {
        self.reuse_weight
    }
}

/// The equal sub-steps of an advance from `t0` to `t_end`, each no larger than the step size
/// (the default [`Formulation::advance_to`]; FMI 3 intermediate updates take them one at a
/// time with [`crate::Simulation::step_to`], landing on the same times).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubSteps {
    t0: f64,
    t_end: f64,
    n: u64,
    /// Sub-steps taken.
    i: u64,
}

impl SubSteps {
    /// The plan to `t_end`; an error for a negative or non-finite span and for more steps
    /// than can ever be taken unless `budget` bounds them.
    pub fn new(t0: f64, t_end: f64, step_size: f64, budget: Budget) -> Result<SubSteps, StepError> {
        let span = t_end - t0;
        if !span.is_finite() || span < 0.0 {
            return Err(StepError::BadStep { time: t0, h: span });
        }
        if span == 0.0 {
            return Ok(SubSteps { t0, t_end, n: 0, i: 0 });
        }
        let n = Self::count(t0, t_end, step_size);
        // More steps than can ever be taken; a budget below that bounds the work instead.
        if n > 1e12 && budget.steps as f64 > 1e12 && budget.work == u64::MAX {
            return Err(StepError::BadStep { time: t0, h: step_size });
        }
        Ok(SubSteps { t0, t_end, n: n as u64, i: 0 })
    }

    /// Sub-steps from `t0` to a later `t_end` (at least one).
    pub fn count(t0: f64, t_end: f64, step_size: f64) -> f64 {
        // A communication step equal to the solver step must take one internal step, also
        // when the host computes t_end = k * H: that span differs from H by a few ulps of
        // t_end, which at t = 10 s and H = 1 ms is already 1e-12 relative.
        let round_off = 16.0 * f64::EPSILON * t0.abs().max(t_end.abs());
        (((t_end - t0 - round_off) / step_size) * (1.0 - 1e-12)).ceil().max(1.0)
    }

    /// The end of the next sub-step, None when the plan is done.
    pub fn next_target(&self) -> Option<f64> {
        let i = self.i + 1;
        (i <= self.n).then(|| {
            if i == self.n {
                self.t_end
            } else {
                self.t0 + (self.t_end - self.t0) * (i as f64 / self.n as f64)
            }
        })
    }

    /// The next sub-step was taken.
    pub fn advance(&mut self) {
        self.i += 1;
    }

    pub fn taken(&self) -> u64 {
        self.i
    }

    /// True when the next sub-step is the last one.
    pub fn is_last(&self) -> bool {
        self.i + 1 == self.n
    }
}

/// True if the step from the formulation's time to `target` is too short to solve
/// ([`NEGLIGIBLE_STEP`]): it moves along the tangent instead ([`Formulation::shift_to`]).
pub(crate) fn is_negligible<F: Formulation + ?Sized>(f: &F, target: f64) -> bool {
    target - f.time() < NEGLIGIBLE_STEP * f.step_size()
}

/// One sub-step of an advance to `target`: solved, or for a negligible step a move along the
/// tangent ([`Formulation::shift_to`]); counted.
pub(crate) fn sub_step<F: Formulation + ?Sized>(
    f: &mut F,
    target: f64,
    counters: &mut StepCounters,
) -> Result<StepStats, StepError> {
    let stats = if is_negligible(f, target) { f.shift_to(target)? } else { f.step_to(target)? };
    counters.count(stats);
    Ok(stats)
}

/// The default [`Formulation::advance_to`]: equal sub-steps no larger than the step size.
pub(crate) fn equal_sub_steps<F: Formulation + ?Sized>(
    f: &mut F,
    t_end: f64,
    counters: &mut StepCounters,
    meter: &mut Meter,
) -> Result<Progress, StepError> {
    let mut plan = SubSteps::new(f.time(), t_end, f.step_size(), meter.budget())?;
    while let Some(target) = plan.next_target() {
        if meter.exhausted().is_some() {
            return Ok(Progress::Budget);
        }
        let stats = sub_step(f, target, counters)?;
        meter.charge_step(stats);
        plan.advance();
    }
    Ok(Progress::Reached)
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

    /// The inputs as signals over the following steps ([`crate::inputs`]).
    fn inputs(&self) -> &InputSignals;

    /// Changes the inputs at the current time with `change`. Fails, leaving them as they
    /// were, if the model cannot be evaluated with the changed inputs.
    fn change_inputs(&mut self, change: &mut dyn FnMut(&mut InputSignals)) -> Result<(), String>;

    /// After a communication step: every input is held at its value at the current time
    /// (derivatives dropped; a no-op for held inputs). The signals do not change at the
    /// current time, so what was evaluated there stays valid.
    fn hold_inputs(&mut self) -> Result<(), String> {
        let t = self.time();
        self.change_inputs(&mut |s| s.hold(t))
    }

    /// Largest internal step \[s\].
    fn step_size(&self) -> f64;

    /// One internal step to `target`; the state time becomes exactly `target`. On error the
    /// state is unchanged.
    fn step_to(&mut self, target: f64) -> Result<StepStats, StepError>;

    /// A communication step begins: forget what only the steps of the last one may reuse
    /// (a kept iteration matrix). A no-op where nothing is kept.
    fn begin_communication_step(&mut self) {}

    /// Moves the current point along its tangent to `target` without solving: a step much
    /// shorter than [`Formulation::step_size`] (e.g. the 2e-14 s a master's time arithmetic
    /// leaves at the end of an interval), where the index-3 equations would determine
    /// accelerations and multipliers only to ~eps |q| / h^2.
    fn shift_to(&mut self, target: f64) -> Result<StepStats, StepError>;

    /// Advances to `t_end`, charging every internal step (attempt, for methods that reject
    /// steps) to `meter` and starting none once its budget is spent. The default takes equal
    /// sub-steps no larger than the step size; formulations with their own step control
    /// override it. On error the state is the one reached by the last successful step; when
    /// the budget runs out first the state is that of the last internal step and
    /// [`Progress::Budget`] says so (those steps are the first ones the unbounded advance
    /// takes).
    fn advance_to(
        &mut self,
        t_end: f64,
        counters: &mut StepCounters,
        meter: &mut Meter,
    ) -> Result<Progress, StepError> {
        equal_sub_steps(self, t_end, counters, meter)
    }

    /// Work units of one model evaluation (one Newton iteration with its iteration matrix
    /// and solve, or one evaluation of an ODE's derivatives) for the work budget ([`Meter`]):
    /// [`matrix_evaluation_work`] of the Newton unknowns unless a formulation knows better.
    fn evaluation_work(&self) -> u64 {
        matrix_evaluation_work(self.dims().unknowns)
    }

    /// Work units of a Newton iteration that solves with an iteration matrix factored
    /// before it ([`StepStats::reused`]); the full [`Formulation::evaluation_work`] unless a
    /// formulation reports such iterations.
    fn reuse_work(&self) -> u64 {
        self.evaluation_work()
    }

    /// True if the formulation chooses its own internal steps (variable-step methods), so
    /// that [`SubSteps`] do not describe its advance.
    fn own_step_control(&self) -> bool {
        false
    }

    /// Switches the dense output of the explicit pairs on or off (they then shorten their last
    /// step to land on every communication point); a no-op for formulations without them.
    fn set_dense_output(&mut self, on: bool) {
        let _ = on;
    }

    /// A message for the importer's log about a choice the formulation made (e.g. `auto`
    /// switching methods), once; None when there is none.
    fn take_notice(&mut self) -> Option<String> {
        None
    }

    /// Newton solves accepted at the round-off floor so far (`integrators::convergence`;
    /// cumulative, for reports).
    fn floor_report(&self) -> FloorReport {
        FloorReport::default()
    }

    /// [`Formulation::floor_report`]'s count alone (read before and after every
    /// communication step; a number is returned in a register, the report through memory).
    fn floor_count(&self) -> u64 {
        self.floor_report().count
    }

    /// Value of an output quantity at the current state.
    fn quantity(&self, q: Quantity) -> f64;

    /// d q / d u_input for an output at the current communication point (co-simulation):
    /// the direct feed-through of an input to an output, where setting the input changes the
    /// output without a step. The default: a force element's value is its law plus its input.
    fn feedthrough(&self, q: Quantity, input: usize) -> f64 {
        match (q, self.mechanism()) {
            (Quantity::ForceValue { force }, Some(m)) => f64::from(u8::from(m.force_input(force) == Some(input))),
            _ => 0.0,
        }
    }

    /// Values of `quantities` at the current state into `out` (same length). Formulations
    /// override it where quantities share work (a joint's reaction force and torque, the
    /// energies), so that each shared part is computed once.
    fn quantities(&self, quantities: &[Quantity], out: &mut [f64]) {
        for (q, x) in quantities.iter().zip(out.iter_mut()) {
            *x = self.quantity(*q);
        }
    }

    /// The values of a plan's outputs at their positions in `out` (the solver statistics left
    /// as they are), walking its operations where the formulation shares work between them.
    fn planned_quantities(&self, plan: &OutputPlan, out: &mut [f64]) {
        for &(at, q) in plan.outputs() {
            out[at] = self.quantity(q);
        }
    }

    /// First and second time derivatives of `quantities` at the current state into `first`
    /// and `second` (same length), computed from the state (positions -> velocities ->
    /// accelerations, circuit equations, input signals), 0.0 where the state does not
    /// determine them (FMI 3.0 Sect. 4.1.2: "If the actual order is lower ..., the retrieved
    /// value is 0"). The default knows no derivative.
    fn quantity_rates(&self, quantities: &[Quantity], first: &mut [f64], second: &mut [f64]) {
        let _ = quantities;
        first.fill(0.0);
        second.fill(0.0);
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

    /// After a failed [`Formulation::step_to`] whose state is unchanged (no checkpoint was
    /// copied): drops what the attempt left in the caches of the state's derived quantities,
    /// as [`Formulation::rollback`] does after copying the state back.
    fn forget_failed_step(&mut self) -> Result<(), String>;

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

    /// A host drives the ODE from now on (a Model Exchange instance): time and states are
    /// the host's. Before, the view reads the co-simulation state.
    fn activate(&mut self) {}

    /// The states that are velocities (their error tolerances are scaled by the velocity
    /// factor of [`crate::settings::ErrorControl`] when the formulation integrates the ODE
    /// itself); none by default.
    fn velocity_states(&self) -> std::ops::Range<usize> {
        0..0
    }

    /// Number of event indicators (state events, FMI 2.0.4 Sect. 3.1, FMI 3.0 Sect. 3.1).
    fn event_indicator_count(&self) -> usize {
        0
    }

    /// The event indicators at the current point into `z`.
    fn event_indicators(&mut self, z: &mut [f64]) -> Result<(), StepError> {
        let _ = z;
        Ok(())
    }

    /// The next time event after the current time, if any.
    fn next_time_event(&self) -> Option<f64> {
        None
    }

    /// The partial derivatives of the state derivatives and (if `outputs`) of `quantities`
    /// with respect to `known` at the current point into `column` ([`crate::partials`]). The
    /// current point is evaluated again when next read.
    fn partial_column(
        &mut self,
        known: Known,
        quantities: &[Quantity],
        outputs: bool,
        column: &mut Column,
    ) -> Result<(), StepError>;

    /// Number of monitored laws of [`crate::partials::Probe`] (the scratch of a [`Column`]).
    fn monitored_laws(&self) -> usize {
        0
    }
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
