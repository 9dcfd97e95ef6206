//! A co-simulation slave: one model instance with its parameters, inputs and outputs, the
//! doStep contract (communication points, sub-stepping) and snapshots. Knows nothing of the
//! C ABI; the FMI layer maps its errors to statuses.

mod access;
mod build;
mod checkpoint;
mod derivatives;
mod directional;
mod error;
mod input_signals;
mod model_exchange;
mod outputs;
mod snapshot;
mod stepping;

pub use derivatives::MAX_OUTPUT_ORDER;
pub use error::SlaveError;
pub use model_exchange::EventUpdate;
pub use snapshot::SlaveSnapshot;
pub use stepping::StepInProgress;

use derivatives::RateCache;
use mbfmu_engine::Simulation;
use mbfmu_model::variables::{Binding, Causality, ModelInterface, SolverSetting, Start, VarType, Variable};
use mbfmu_model::Model;
use outputs::OutputCache;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// Where the slave is in its life (a coarse view; the FMI layer keeps the standard's state machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Instantiated,
    Initialization,
    Running,
    Terminated,
}

/// A message for the importer's logger.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub category: &'static str,
    pub text: String,
}

/// One model instance.
pub struct Slave {
    model: Arc<Model>,
    phase: Phase,
    start_time: f64,
    stop_time: Option<f64>,
    /// Current value of every parameter and input, by value reference (others unused).
    values: Vec<f64>,
    sim: Option<Simulation>,
    /// Values `sim` was built with (to know when a rebuild is needed).
    built_with: Vec<f64>,
    /// Some parameter's value differs from `built_with`: kept up to date wherever `values`
    /// or `built_with` change, so that reading a value does not compare them all.
    parameters_dirty: bool,
    time: f64,
    messages: Vec<Message>,
    /// A Model Exchange instance (the host integrates the state-space ODE).
    model_exchange: bool,
    /// Value reference of `solver.maxStepsPerCall`.
    max_steps_vr: Option<u32>,
    /// Value reference of `solver.maxWorkPerCall`.
    max_work_vr: Option<u32>,
    /// Outputs of the current state, evaluated when first read (co-simulation).
    outputs: OutputCache,
    /// Their time derivatives, likewise.
    rates: RateCache,
    /// Derivatives (orders 1, 2) of each input set for the next communication step.
    input_derivatives: Vec<[f64; 2]>,
    /// The time at the last [`Slave::checkpoint`].
    saved_time: f64,
    /// Roles of the variables in directional derivatives and the Model Exchange Jacobian.
    partials: directional::Partials,
    /// The event indicators of the current point (Model Exchange).
    indicators: Vec<f64>,
}

impl fmt::Debug for Slave {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slave")
            .field("model", &self.model.description.name)
            .field("phase", &self.phase)
            .field("time", &self.time)
            .finish()
    }
}

/// Relative tolerance on communication points and the stop time.
const TIME_TOLERANCE: f64 = 1e-9;

/// Never true for a non-finite time (inf - inf is NaN, but inf <= 1e-9 * inf holds).
fn close_in_time(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && (a - b).abs() <= TIME_TOLERANCE * a.abs().max(b.abs()).max(1.0)
}

/// The value a variable has before a host sets it (0 for one without a start value).
fn start_value(v: &Variable) -> f64 {
    match v.start {
        Some(Start::Real(x)) => x,
        Some(Start::Integer(i)) => i as f64,
        None => 0.0,
    }
}

impl Slave {
    pub fn new(model: Arc<Model>) -> Slave {
        let values = Self::start_values(&model.interface);
        let start_time = model.description.experiment.start;
        let solver_vr = |setting: SolverSetting| {
            model.interface.variables.iter().find(|v| v.binding == Binding::Solver(setting)).map(|v| v.value_reference)
        };
        let max_steps_vr = solver_vr(SolverSetting::MaxStepsPerCall);
        let max_work_vr = solver_vr(SolverSetting::MaxWorkPerCall);
        let outputs = OutputCache::new(&model.interface);
        let rates = RateCache::new(&model.interface);
        let input_derivatives = vec![[0.0; 2]; model.description.interface.inputs.len()];
        let partials = directional::Partials::new(&model.interface, &model.description);
        let indicators = vec![0.0; model.interface.event_indicators().count()];
        Slave {
            model,
            phase: Phase::Instantiated,
            start_time,
            stop_time: None,
            values,
            sim: None,
            built_with: Vec::new(),
            parameters_dirty: true,
            time: start_time,
            messages: Vec::new(),
            model_exchange: false,
            max_steps_vr,
            max_work_vr,
            outputs,
            rates,
            input_derivatives,
            saved_time: start_time,
            partials,
            indicators,
        }
    }

    fn start_values(interface: &ModelInterface) -> Vec<f64> {
        interface.variables.iter().map(start_value).collect()
    }

    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn time(&self) -> f64 {
        self.time
    }

    pub fn variables(&self) -> &[Variable] {
        &self.model.interface.variables
    }

    pub fn variable(&self, vr: u32) -> Result<&Variable, SlaveError> {
        // No error value is built (and dropped) on the success path.
        match self.model.interface.variable(vr) {
            Some(v) => Ok(v),
            None => Err(SlaveError::UnknownReference(vr)),
        }
    }

    /// True if there are messages to take (most calls produce none).
    #[inline]
    pub fn has_messages(&self) -> bool {
        !self.messages.is_empty()
    }

    /// Messages produced since the last call (warnings, solver diagnostics).
    pub fn take_messages(&mut self) -> Vec<Message> {
        std::mem::take(&mut self.messages)
    }

    fn note(&mut self, category: &'static str, text: String) {
        self.messages.push(Message { category, text });
    }

    /// The state or the inputs changed: outputs and their derivatives are evaluated again
    /// when next read.
    fn state_changed(&mut self) {
        self.outputs.invalidate();
        self.rates.invalidate();
        self.partials.invalidate();
    }

    /// FMI 2 SetupExperiment / the start time of FMI 3 EnterInitializationMode.
    pub fn setup_experiment(&mut self, start: f64, stop: Option<f64>) -> Result<(), SlaveError> {
        if self.phase != Phase::Instantiated {
            return Err(SlaveError::WrongPhase { operation: "setting up the experiment", phase: self.phase });
        }
        if !start.is_finite() {
            return Err(SlaveError::InvalidValue {
                name: "startTime".into(),
                value: start.to_string(),
                reason: "not finite".into(),
            });
        }
        if let Some(stop) = stop {
            if !(stop.is_finite() && stop >= start) {
                return Err(SlaveError::InvalidValue {
                    name: "stopTime".into(),
                    value: stop.to_string(),
                    reason: format!("must be finite and >= the start time {start}"),
                });
            }
        }
        self.start_time = start;
        self.stop_time = stop;
        self.time = start;
        Ok(())
    }

    pub fn enter_initialization(&mut self) -> Result<(), SlaveError> {
        if self.phase != Phase::Instantiated {
            return Err(SlaveError::WrongPhase { operation: "entering initialization mode", phase: self.phase });
        }
        self.phase = Phase::Initialization;
        Ok(())
    }

    /// Builds the simulation (if the parameters changed) and starts stepping.
    pub fn exit_initialization(&mut self) -> Result<(), SlaveError> {
        if self.phase != Phase::Initialization {
            return Err(SlaveError::WrongPhase { operation: "exiting initialization mode", phase: self.phase });
        }
        self.ensure_built()?;
        self.phase = Phase::Running;
        Ok(())
    }

    pub fn terminate(&mut self) -> Result<(), SlaveError> {
        self.phase = Phase::Terminated;
        Ok(())
    }

    /// Back to the state right after instantiation, start values restored.
    pub fn reset(&mut self) {
        // A Model Exchange instance stays one (FMI 2.0.4 Sect. 2.1.6, FMI 3.0 Sect. 2.3.1:
        // Reset returns to the state after instantiation).
        let model_exchange = self.model_exchange;
        *self = Slave::new(self.model.clone());
        self.model_exchange = model_exchange;
    }

    /// The simulation, once built.
    pub fn simulation(&self) -> Option<&Simulation> {
        self.sim.as_ref()
    }
}
