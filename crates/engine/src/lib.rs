//! The simulation engine: formulations x integrators. Knows nothing of FMI.
//!
//! A [`Simulation`] holds one [`Formulation`] (a trait, [`formulation`]): the index-3
//! absolute-coordinate formulation of \[Fang2023\] ([`index3::Index3Formulation`]), the
//! state-space formulation of \[Negrut1997\] ([`statespace::StateSpaceFormulation`]) or a
//! semirecursive formulation of \[Jaiswal2021\] with its hydraulics
//! ([`semirecursive::Semirecursive`]), each with its integrator, advanced over communication
//! intervals. The residual-form integrator suite of \[Zhang2022\] ([`integrators`]) is written
//! once against [`integrators::DaeSystem`]; [`settings`] builds each formulation's typed
//! settings from the description's solver block; [`linalg`] is the one home of the linear
//! algebra.

mod checkpoint;
pub mod elements;
pub mod formulation;
pub mod hydraulics;
pub mod index3;
pub mod inputs;
pub mod integrators;
pub mod layout;
pub mod linalg;
pub mod motion;
pub mod output_plan;
pub mod partials;
pub mod rates;
pub mod rotation;
pub mod semirecursive;
pub mod settings;
pub mod state;
pub mod statespace;

use formulation::{Dims, StepCounters};
use index3::{AssemblyError, AssemblyReport, CompileError, Mechanism};
use inputs::InputSignals;
use integrators::StepError;
use mbfmu_model::format::Quantity;
use mbfmu_model::format::{Description, Formulation as Kind};
use serde::{Deserialize, Serialize};
use state::MechState;
use std::fmt;

pub use formulation::{
    linear_evaluation_work, matrix_evaluation_work, matrix_reuse_work, Budget, Formulation, Limit, Meter, OdeSystem,
    Progress, SubSteps, EVALUATION_OVERHEAD, NEGLIGIBLE_STEP,
};
pub use settings::{
    ErrorControl, Index3Method, Index3Settings, SemirecursiveSettings, StateSpaceMethod, StateSpaceSettings,
};

/// Why a simulation could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    Compile(CompileError),
    Assembly(AssemblyError),
    /// The solver settings are not admissible (e.g. rho_inf for MSSTH4/5).
    Solver(String),
    /// A semirecursive model could not be compiled or started.
    Semirecursive(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Compile(e) => e.fmt(f),
            BuildError::Assembly(e) => e.fmt(f),
            BuildError::Solver(e) => f.write_str(e),
            BuildError::Semirecursive(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for BuildError {}

/// Everything that influences the rest of a run, in a self-contained form: the
/// formulation's own snapshot (serialized) and the step counters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulationSnapshot {
    /// The formulation that took it (a snapshot restores only into the same one).
    pub formulation: Kind,
    pub state: Vec<u8>,
    pub steps: u64,
    pub last_iterations: u32,
    pub total_iterations: u64,
}

/// A running simulation of one model in one formulation with its integrator.
pub struct Simulation {
    formulation: Box<dyn Formulation>,
    kind: Kind,
    counters: StepCounters,
    /// The counters at the last [`Simulation::checkpoint`].
    saved_counters: StepCounters,
    /// Where the state of the last [`Simulation::checkpoint`] is ([`checkpoint`]).
    checkpoint: checkpoint::Checkpoint,
    /// What assembly of the initial conditions changed.
    pub assembly: AssemblyReport,
}

impl fmt::Debug for Simulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Simulation")
            .field("model", &self.formulation.model_name())
            .field("formulation", &self.kind)
            .field("t", &self.time())
            .finish()
    }
}

impl Simulation {
    /// Compiles the description in the formulation its solver block names, assembles
    /// consistent initial conditions and starts the integrator; the settings are built from
    /// the same block (see [`settings`]). The one place that chooses a formulation.
    pub fn new(d: &Description) -> Result<Simulation, BuildError> {
        let s = &d.solver;
        let formulation: Box<dyn Formulation> = match s.formulation {
            Kind::Index3 => Box::new(index3::Index3Formulation::new(d, Index3Settings::of(s)?)?),
            Kind::StateSpace => Box::new(statespace::StateSpaceFormulation::new(d, StateSpaceSettings::of(s)?)?),
            Kind::SemirecursiveDoubleStep | Kind::SemirecursivePenalty => Box::new(
                semirecursive::Semirecursive::new(d, SemirecursiveSettings::of(s)?)
                    .map_err(BuildError::Semirecursive)?,
            ),
        };
        let mut formulation = formulation;
        // The first checkpoint sizes its storage; later ones reuse it.
        formulation.checkpoint();
        let assembly = formulation.assembly().clone();
        Ok(Simulation {
            formulation,
            kind: s.formulation,
            counters: StepCounters::default(),
            saved_counters: StepCounters::default(),
            checkpoint: checkpoint::Checkpoint::Saved,
            assembly,
        })
    }

    /// The formulation as its own type, e.g. `sim.formulation::<semirecursive::Semirecursive>()`.
    pub fn formulation<T: 'static>(&self) -> Option<&T> {
        self.formulation.as_any().downcast_ref()
    }

    /// Which formulation runs.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The compiled mechanism of the absolute-coordinate formulations.
    pub fn mechanism(&self) -> Option<&Mechanism> {
        self.formulation.mechanism()
    }

    /// The state as absolute body states.
    pub fn state(&self) -> &MechState {
        self.formulation.state()
    }

    pub fn time(&self) -> f64 {
        self.formulation.time()
    }

    /// Internal steps taken.
    pub fn steps(&self) -> u64 {
        self.counters.steps
    }

    /// Newton iterations of the last step.
    pub fn last_iterations(&self) -> u32 {
        self.counters.last_iterations
    }

    /// Newton iterations of all steps.
    pub fn total_iterations(&self) -> u64 {
        self.counters.total_iterations
    }

    /// The input values at the current time (the signals' values at their reference time).
    pub fn inputs(&self) -> &[f64] {
        self.formulation.inputs().values()
    }

    /// The inputs as signals over the following steps (values and derivatives).
    pub fn input_signals(&self) -> &InputSignals {
        self.formulation.inputs()
    }

    /// Sets every input value now, held over the following steps (derivatives dropped).
    /// Fails, leaving the inputs as they were, if the model cannot be evaluated with them
    /// (e.g. a cylinder length input outside the stroke).
    pub fn set_inputs(&mut self, inputs: &[f64]) -> Result<(), String> {
        self.keep_checkpoint();
        let t = self.time();
        self.formulation.change_inputs(&mut |s| s.set_values(inputs, t))
    }

    /// Sets the value of input `index` now (its derivatives set now stay).
    /// Fails, keeping the previous value, if the model cannot be evaluated with it.
    pub fn set_input(&mut self, index: usize, value: f64) -> Result<(), String> {
        self.keep_checkpoint();
        let t = self.time();
        self.formulation.change_inputs(&mut |s| s.set_value(index, value, t))
    }

    /// Sets the time derivative of `order` (1..=[`inputs::MAX_INPUT_ORDER`]) of input
    /// `index` now: over the following steps the input is the polynomial of its value and
    /// derivatives about the current time, until [`Simulation::hold_inputs`].
    pub fn set_input_derivative(&mut self, index: usize, order: usize, value: f64) -> Result<(), String> {
        if !(1..=inputs::MAX_INPUT_ORDER).contains(&order) || !value.is_finite() || index >= self.inputs().len() {
            return Err(format!("input derivative {index} of order {order} = {value} is not admissible"));
        }
        self.keep_checkpoint();
        let t = self.time();
        self.formulation.change_inputs(&mut |s| s.set_derivative(index, order, value, t))
    }

    /// Holds every input at its current value (derivatives dropped): the end of the
    /// communication step the derivatives were set for.
    pub fn hold_inputs(&mut self) -> Result<(), String> {
        self.keep_checkpoint();
        self.formulation.hold_inputs()
    }

    /// Advances to `t_end` in equal sub-steps no larger than the solver step size (variable-
    /// step methods choose their own). On error the state is the one reached by the last
    /// successful sub-step.
    pub fn advance_to(&mut self, t_end: f64) -> Result<(), StepError> {
        self.advance_within(t_end, Budget::UNLIMITED).map(|_| ())
    }

    /// As [`Simulation::advance_to`], but within `budget`: its internal steps (attempted
    /// steps for the variable-step methods) and its work ([`Meter`]), a bounded amount of
    /// work whatever `t_end` is. [`Progress::Budget`] means the budget ran out first; the
    /// state is then the one of the last internal step, at [`Simulation::time`].
    pub fn advance_within(&mut self, t_end: f64, budget: Budget) -> Result<Progress, StepError> {
        let mut meter = self.meter(budget);
        self.advance_metered(t_end, &mut meter)
    }

    /// A meter of `budget` for this model's work units per evaluation
    /// ([`Formulation::evaluation_work`], [`Formulation::reuse_work`]).
    pub fn meter(&self, budget: Budget) -> Meter {
        Meter::new(budget, self.formulation.evaluation_work()).reusing(self.formulation.reuse_work())
    }

    /// As [`Simulation::advance_within`], charging `meter` (which may have been charged by
    /// earlier internal steps of the same communication step): what was spent stays on it.
    pub fn advance_metered(&mut self, t_end: f64, meter: &mut Meter) -> Result<Progress, StepError> {
        self.begin_communication_step();
        self.before_advance(t_end);
        let start = self.time();
        let result = self.formulation.advance_to(t_end, &mut self.counters, meter);
        self.after_advance(start);
        result
    }

    pub fn snapshot(&self) -> SimulationSnapshot {
        SimulationSnapshot {
            formulation: self.kind,
            state: self.formulation.snapshot(),
            steps: self.counters.steps,
            last_iterations: self.counters.last_iterations,
            total_iterations: self.counters.total_iterations,
        }
    }

    /// [`Simulation::snapshot`] into `s`, reusing its storage: no allocation when `s` holds a
    /// snapshot of this simulation already.
    pub fn snapshot_into(&self, s: &mut SimulationSnapshot) {
        s.formulation = self.kind;
        self.formulation.snapshot_into(&mut s.state);
        s.steps = self.counters.steps;
        s.last_iterations = self.counters.last_iterations;
        s.total_iterations = self.counters.total_iterations;
    }

    /// Restores a snapshot taken from a simulation of the same model and settings.
    pub fn restore(&mut self, s: &SimulationSnapshot) -> Result<(), String> {
        if s.formulation != self.kind {
            return Err("the snapshot was taken with another formulation".into());
        }
        self.keep_checkpoint();
        self.formulation.restore(&s.state)?;
        self.counters =
            StepCounters { steps: s.steps, last_iterations: s.last_iterations, total_iterations: s.total_iterations };
        Ok(())
    }

    /// Newton solves accepted at the round-off floor so far (cumulative over the run, also
    /// across restores: a report, not state).
    pub fn floor_report(&self) -> integrators::FloorReport {
        self.formulation.floor_report()
    }

    /// Switches the explicit pairs' dense output on (the default) or off: off, their last step
    /// of every advance is shortened to land on its end, as without a continuous extension.
    /// A step pending at the current point is dropped (the run restarts from it).
    pub fn set_dense_output(&mut self, on: bool) {
        self.keep_checkpoint();
        self.formulation.set_dense_output(on);
    }

    /// A message for the importer's log about a choice the formulation made since the last
    /// call (`auto` switching to its implicit method), once.
    pub fn take_notice(&mut self) -> Option<String> {
        self.formulation.take_notice()
    }

    /// The count of [`Simulation::floor_report`].
    pub fn floor_count(&self) -> u64 {
        self.formulation.floor_count()
    }

    /// Value of an output quantity at the current state.
    #[inline]
    pub fn quantity(&self, q: Quantity) -> f64 {
        match q {
            Quantity::NewtonIterations => f64::from(self.counters.last_iterations),
            Quantity::Steps => self.counters.steps as f64,
            q => self.formulation.quantity(q),
        }
    }

    /// Values of `quantities` into `out` (same length), each shared part (a joint's
    /// reaction, the energies) computed once.
    pub fn quantities(&self, quantities: &[Quantity], out: &mut [f64]) {
        self.formulation.quantities(quantities, out);
        for (q, x) in quantities.iter().zip(out.iter_mut()) {
            match q {
                Quantity::NewtonIterations | Quantity::Steps => *x = self.quantity(*q),
                _ => {}
            }
        }
    }

    /// First and second time derivatives of `quantities` at the current state into `first`
    /// and `second` ([`Formulation::quantity_rates`]); 0 for the solver counters.
    pub fn quantity_rates(&self, quantities: &[Quantity], first: &mut [f64], second: &mut [f64]) {
        self.formulation.quantity_rates(quantities, first, second);
        for ((q, a), b) in quantities.iter().zip(first.iter_mut()).zip(second.iter_mut()) {
            if matches!(q, Quantity::NewtonIterations | Quantity::Steps) {
                (*a, *b) = (0.0, 0.0);
            }
        }
    }

    /// The equal sub-steps [`Simulation::advance_within`] takes to `t_end`, or None where the
    /// formulation chooses its own steps (then advance with a budget of one step at a time).
    pub fn sub_steps(&self, t_end: f64, budget: Budget) -> Result<Option<SubSteps>, StepError> {
        if self.formulation.own_step_control() {
            return Ok(None);
        }
        SubSteps::new(self.time(), t_end, self.formulation.step_size(), budget).map(Some)
    }

    /// A communication step taken one internal step at a time ([`Simulation::step_to`])
    /// begins: the formulation starts it as [`Simulation::advance_metered`] does.
    pub fn begin_communication_step(&mut self) {
        self.formulation.begin_communication_step();
    }

    /// One internal step to `target`, a target of [`Simulation::sub_steps`]: exactly the step
    /// the uninterrupted advance takes there, charged to `meter` as that advance charges it.
    /// On error the state is unchanged.
    pub fn step_to(&mut self, target: f64, meter: &mut Meter) -> Result<(), StepError> {
        // More steps of the same communication step may follow.
        self.keep_checkpoint();
        let stats = formulation::sub_step(&mut *self.formulation, target, &mut self.counters)?;
        meter.charge_step(stats);
        Ok(())
    }

    /// The values of a plan's outputs at their positions in `out`, each shared part computed
    /// once ([`output_plan`]).
    pub fn planned_quantities(&self, plan: &output_plan::OutputPlan, out: &mut [f64]) {
        self.formulation.planned_quantities(plan, out);
        for &(at, q) in plan.statistics() {
            out[at] = self.quantity(q);
        }
        for &(at, first) in plan.copies() {
            out[at] = out[first];
        }
    }

    /// Dimensions of the equations (for reports).
    pub fn dims(&self) -> Dims {
        self.formulation.dims()
    }

    // Model Exchange: the formulation's ODE, where it has one (0 states otherwise).

    /// Number of continuous states.
    pub fn ode_len(&mut self) -> usize {
        self.formulation.ode().map_or(0, |o| o.len())
    }

    pub fn ode_state(&mut self, x: &mut [f64]) {
        if let Some(o) = self.formulation.ode() {
            o.state(x);
        }
    }

    pub fn set_ode_time(&mut self, t: f64) {
        if let Some(o) = self.formulation.ode() {
            o.set_time(t);
        }
    }

    pub fn set_ode_state(&mut self, x: &[f64]) {
        if let Some(o) = self.formulation.ode() {
            o.set_state(x);
        }
    }

    /// Brings the state to the current time, continuous states and inputs (nothing to do in
    /// co-simulation).
    pub fn ode_evaluate(&mut self) -> Result<(), StepError> {
        self.formulation.ode().map_or(Ok(()), |o| o.evaluate())
    }

    /// Continuous state `index` (NaN without an ODE).
    pub fn ode_state_value(&mut self, index: usize) -> f64 {
        self.formulation.ode().map_or(f64::NAN, |o| o.state_value(index))
    }

    /// Derivative of continuous state `index`.
    pub fn ode_derivative_value(&mut self, index: usize) -> Result<f64, StepError> {
        self.ode()?.derivative_value(index)
    }

    pub fn ode_derivatives(&mut self, dx: &mut [f64]) -> Result<(), StepError> {
        self.ode()?.derivatives(dx)
    }

    /// A completed integrator step of the host; true requests an event (new coordinates).
    pub fn ode_completed_step(&mut self) -> Result<bool, StepError> {
        let mut counters = self.counters;
        let event = self.ode()?.completed_step(&mut counters)?;
        self.counters = counters;
        Ok(event)
    }

    /// Event update; true if the continuous states changed.
    pub fn ode_event(&mut self) -> Result<bool, StepError> {
        self.ode()?.event()
    }

    /// A Model Exchange host drives the ODE from now on (no-op without an ODE).
    pub fn ode_activate(&mut self) {
        if let Some(o) = self.formulation.ode() {
            o.activate();
        }
    }

    /// Number of event indicators (0 without an ODE).
    pub fn event_indicator_count(&mut self) -> usize {
        self.formulation.ode().map_or(0, |o| o.event_indicator_count())
    }

    pub fn event_indicators(&mut self, z: &mut [f64]) -> Result<(), StepError> {
        self.ode()?.event_indicators(z)
    }

    /// The next time event after the current time, if any.
    pub fn next_time_event(&mut self) -> Option<f64> {
        self.formulation.ode().and_then(|o| o.next_time_event())
    }

    /// Number of laws the partial derivatives monitor (the size of a [`partials::Column`]'s
    /// monitor scratch).
    pub fn monitored_laws(&mut self) -> usize {
        self.formulation.ode().map_or(0, |o| o.monitored_laws())
    }

    /// The partial derivatives of the state derivatives and (if `outputs`) of `quantities`
    /// with respect to `known` at the current point ([`OdeSystem::partial_column`]); the
    /// solver counters' rows are 0.
    pub fn partial_column(
        &mut self,
        known: partials::Known,
        quantities: &[Quantity],
        outputs: bool,
        column: &mut partials::Column,
    ) -> Result<(), StepError> {
        self.ode()?.partial_column(known, quantities, outputs, column)?;
        if outputs {
            for (q, d) in quantities.iter().zip(column.outputs.iter_mut()) {
                if matches!(q, Quantity::NewtonIterations | Quantity::Steps) {
                    *d = 0.0;
                }
            }
        }
        Ok(())
    }

    /// d q / d u_input at the current communication point (co-simulation feed-through,
    /// [`Formulation::feedthrough`]).
    pub fn feedthrough(&self, q: Quantity, input: usize) -> f64 {
        self.formulation.feedthrough(q, input)
    }

    fn ode(&mut self) -> Result<&mut dyn OdeSystem, StepError> {
        let time = self.time();
        // Lazily: the message is formed only on failure (no allocation per call).
        self.formulation.ode().ok_or_else(|| StepError::Model {
            time,
            what: "the formulation is not an ODE (Model Exchange needs the state-space or a semirecursive formulation)"
                .into(),
        })
    }
}
