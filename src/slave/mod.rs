//! A co-simulation slave: one model instance with its parameters, inputs and outputs, the
//! doStep contract (communication points, sub-stepping) and snapshots. Knows nothing of the
//! C ABI; the FMI layer maps its errors to statuses.

mod derivatives;
mod directional;
mod input_signals;
mod model_exchange;
mod outputs;
mod snapshot;
mod stepping;

pub use derivatives::MAX_OUTPUT_ORDER;
pub use model_exchange::EventUpdate;
pub use snapshot::SlaveSnapshot;
pub use stepping::StepInProgress;

use derivatives::RateCache;
use mbfmu_engine::integrators::StepError;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use mbfmu_model::variables::{self, Binding, Causality, ModelInterface, SolverSetting, Start, VarType, Variable};
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

/// Everything that can go wrong, with enough context for a log line.
#[derive(Clone, Debug, PartialEq)]
pub enum SlaveError {
    UnknownReference(u32),
    WrongType {
        name: String,
        declared: VarType,
    },
    NotSettable {
        name: String,
        reason: String,
    },
    InvalidValue {
        name: String,
        value: String,
        reason: String,
    },
    /// The model could not be built with the current parameters.
    Model(String),
    /// An internal step failed; the time reached is `reached`.
    Step {
        error: StepError,
        reached: f64,
    },
    /// The step needs more internal steps than `solver.maxStepsPerCall` allows; it stopped
    /// at `reached`, the time of the last internal step, in a consistent state.
    StepBudget {
        target: f64,
        reached: f64,
        limit: u64,
    },
    CommunicationPoint {
        expected: f64,
        got: f64,
    },
    BadStepSize {
        h: f64,
        reason: String,
    },
    WrongPhase {
        operation: &'static str,
        phase: Phase,
    },
    Snapshot(String),
    /// A variable that has no time derivative to set or get.
    Derivative {
        name: String,
        value_reference: u32,
        reason: String,
    },
    /// A variable that cannot be an unknown or a known (`role`, with its article) of a
    /// directional derivative.
    Partial {
        role: &'static str,
        name: String,
        value_reference: u32,
        reason: String,
    },
}

impl SlaveError {
    /// True for failures of the numerics that leave the instance usable (FMI Discard).
    pub fn is_discard(&self) -> bool {
        matches!(self, SlaveError::Step { .. } | SlaveError::StepBudget { .. })
    }
}

impl fmt::Display for SlaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlaveError::UnknownReference(vr) => write!(f, "unknown value reference {vr}"),
            SlaveError::WrongType { name, declared } => {
                write!(f, "variable '{name}' is declared {declared:?}; use the matching accessor")
            }
            SlaveError::NotSettable { name, reason } => write!(f, "variable '{name}' cannot be set: {reason}"),
            SlaveError::InvalidValue { name, value, reason } => {
                write!(f, "value {value} for '{name}' rejected: {reason}")
            }
            SlaveError::Model(e) => write!(f, "the model cannot be built: {e}"),
            SlaveError::Step { error, reached } => write!(f, "{error}; the last successful time is {reached}"),
            SlaveError::StepBudget { target, reached, limit } => write!(
                f,
                "reaching {target} needs more than solver.maxStepsPerCall = {limit} internal steps: stopped at {reached} \
                 (bounded work per call; raise the parameter solver.maxStepsPerCall before the end of \
                 initialization, or use shorter communication steps)"
            ),
            SlaveError::CommunicationPoint { expected, got } => {
                write!(f, "communication point {got} does not match the FMU's time {expected}")
            }
            SlaveError::BadStepSize { h, reason } => write!(f, "communication step size {h} rejected: {reason}"),
            SlaveError::WrongPhase { operation, phase } => write!(f, "{operation} is not possible in phase {phase:?}"),
            SlaveError::Snapshot(e) => write!(f, "FMU state rejected: {e}"),
            SlaveError::Derivative { name, value_reference, reason } => {
                write!(f, "variable '{name}' (value reference {value_reference}) has no time derivative here: {reason}")
            }
            SlaveError::Partial { role, name, value_reference, reason } => write!(
                f,
                "variable '{name}' (value reference {value_reference}) cannot be {role} of a directional derivative here: {reason}"
            ),
        }
    }
}

impl std::error::Error for SlaveError {}

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

impl Slave {
    pub fn new(model: Arc<Model>) -> Slave {
        let values = Self::start_values(&model.interface);
        let start_time = model.description.experiment.start;
        let max_steps_vr = model
            .interface
            .variables
            .iter()
            .find(|v| v.binding == Binding::Solver(SolverSetting::MaxStepsPerCall))
            .map(|v| v.value_reference);
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
            outputs,
            rates,
            input_derivatives,
            saved_time: start_time,
            partials,
            indicators,
        }
    }

    fn start_values(interface: &ModelInterface) -> Vec<f64> {
        interface
            .variables
            .iter()
            .map(|v| match v.start {
                Some(Start::Real(x)) => x,
                Some(Start::Integer(i)) => i as f64,
                None => 0.0,
            })
            .collect()
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

    /// The description with the current parameter values applied.
    pub fn effective_description(&self) -> Result<Description, SlaveError> {
        let mut json = match &self.model.parametric {
            // Named parameters first: the expressions of the document follow them.
            Some(parametric) => {
                let named: Vec<(String, f64)> = self
                    .variables()
                    .iter()
                    .filter_map(|v| match &v.binding {
                        Binding::NamedParameter { name } => {
                            Some((name.clone(), self.values[v.value_reference as usize]))
                        }
                        _ => None,
                    })
                    .collect();
                let d = parametric.evaluate(&named).map_err(|e| SlaveError::Model(e.to_string()))?;
                serde_json::to_value(&d).map_err(|e| SlaveError::Model(e.to_string()))?
            }
            None => self.model.json.clone(),
        };
        for v in self.variables() {
            if let Binding::ModelParameter { path } = &v.binding {
                format::set_number(&mut json, path, self.values[v.value_reference as usize])
                    .map_err(|e| SlaveError::Model(e.to_string()))?;
            }
        }
        let mut d = Description::deserialize(&json).map_err(|e| SlaveError::Model(e.to_string()))?;
        // Every solver.* parameter, through the one table that maps them to the solver block.
        for v in self.variables() {
            if let Binding::Solver(setting) = v.binding {
                setting.apply(&mut d.solver, self.values[v.value_reference as usize]).map_err(SlaveError::Model)?;
            }
        }
        // The document is `d` serialized once the solver block is too, so validation reads
        // the parameter paths in it instead of serializing `d` again.
        json["solver"] = serde_json::to_value(&d.solver).map_err(|e| SlaveError::Model(e.to_string()))?;
        d.validate_serialized(&json).map_err(|e| SlaveError::Model(e.to_string()))?;
        // The host's start time, after validation: the DefaultExperiment's stop time does not
        // bind a host (a start after it, with or without a stop time, is legal).
        d.experiment.start = self.start_time;
        d.experiment.stop = self.stop_time.unwrap_or(d.experiment.stop).max(self.start_time);
        Ok(d)
    }

    /// Whether some parameter's value differs from the one the simulation was built with
    /// (every parameter when nothing was built yet). Recomputed only where `values` or
    /// `built_with` change (the field `parameters_dirty`).
    fn parameters_differ(&self) -> bool {
        self.variables().iter().any(|v| {
            v.causality == Causality::Parameter
                && self.built_with.get(v.value_reference as usize) != Some(&self.values[v.value_reference as usize])
        })
    }

    #[inline]
    fn ensure_built(&mut self) -> Result<(), SlaveError> {
        if self.sim.is_some() && !self.parameters_dirty {
            return Ok(());
        }
        self.build()
    }

    /// Builds the simulation from the current parameters.
    #[cold]
    fn build(&mut self) -> Result<(), SlaveError> {
        let d = self.effective_description()?;
        let mut sim = Simulation::new(&d).map_err(|e| SlaveError::Model(e.to_string()))?;
        let report = sim.assembly.to_string();
        if sim.assembly.corrected() {
            self.note("logStatusWarning", format!("initial conditions corrected: {report}"));
        } else {
            self.note("logNonlinearSystems", format!("initial conditions assembled: {report}"));
        }
        self.apply_inputs(&mut sim)?;
        self.apply_input_derivatives(&mut sim)?;
        if self.model_exchange {
            sim.ode_activate();
            self.partials.allocate(&mut sim);
        }
        self.sim = Some(sim);
        self.state_changed();
        self.built_with = self.values.clone();
        self.parameters_dirty = false;
        self.time = self.start_time;
        Ok(())
    }

    fn apply_inputs(&self, sim: &mut Simulation) -> Result<(), SlaveError> {
        let inputs: Vec<f64> = self
            .variables()
            .iter()
            .filter_map(|v| match v.binding {
                Binding::Input { .. } => Some(self.values[v.value_reference as usize]),
                _ => None,
            })
            .collect();
        sim.set_inputs(&inputs).map_err(SlaveError::Model)
    }

    /// Value of any variable as f64 (integers and enumerations exactly).
    #[inline]
    pub fn get(&mut self, vr: u32) -> Result<f64, SlaveError> {
        // A valid cache holds outputs of a built simulation in a phase that may read them
        // (every change of state, parameters or phase before that invalidates it).
        match self.outputs.cached(vr) {
            Some(x) => Ok(x),
            None => self.get_uncached(vr),
        }
    }

    /// The value of output `vr` if the outputs of the current state are evaluated already
    /// and its type is one of `accepts` (None: ask [`Slave::get`], which explains).
    #[inline]
    pub fn cached_output(&self, vr: u32, accepts: &[VarType]) -> Option<f64> {
        self.outputs.cached_of_type(vr, accepts)
    }

    /// Writes `convert` of every one of `vrs` to `out` from the output cache (evaluated first
    /// if the state changed); false if one of them is not an output of a type in `accepts` or
    /// cannot be converted: then read them with [`Slave::get`], which explains.
    #[inline]
    pub fn read_outputs<T>(
        &mut self,
        vrs: &[u32],
        accepts: &[VarType],
        out: &mut [T],
        convert: impl Fn(f64) -> Option<T>,
    ) -> bool {
        if !self.outputs.is_valid() {
            // The first output read of a state evaluates them all (or fails, explained later).
            if self.model_exchange || vrs.is_empty() || self.prepare_reading().is_err() {
                return false;
            }
            let sim = self.sim.as_ref().expect("built by prepare_reading");
            self.outputs.evaluate(sim);
        }
        self.outputs.read_cached(vrs, accepts, out, convert)
    }

    /// Brings the simulation to the state outputs are read at: built, in a phase that may
    /// read outputs, Model Exchange's state brought to the host's time and continuous states
    /// (the output cache is invalidated whenever the host moves the point).
    fn prepare_reading(&mut self) -> Result<(), SlaveError> {
        if self.phase == Phase::Instantiated {
            return Err(SlaveError::WrongPhase { operation: "reading outputs", phase: self.phase });
        }
        self.ensure_built()?;
        let time = self.time;
        let sim = self.sim.as_mut().expect("built by ensure_built");
        sim.ode_evaluate().map_err(|error| SlaveError::Step { error, reached: time })
    }

    fn get_uncached(&mut self, vr: u32) -> Result<f64, SlaveError> {
        /// What a computed variable reads.
        enum Read {
            Quantity(mbfmu_model::variables::Quantity),
            State(usize),
            Derivative(usize),
            EventIndicator(usize),
        }
        let read = match &self.variable(vr)?.binding {
            Binding::Time => return Ok(self.time),
            Binding::Solver(_)
            | Binding::ModelParameter { .. }
            | Binding::NamedParameter { .. }
            | Binding::Input { .. } => return Ok(self.values[vr as usize]),
            Binding::Output(q) => Read::Quantity(*q),
            Binding::State { index } => Read::State(*index),
            Binding::Derivative { index } => Read::Derivative(*index),
            Binding::EventIndicator { index } => Read::EventIndicator(*index),
        };
        self.prepare_reading()?;
        let time = self.time;
        let sim = self.sim.as_mut().expect("built by prepare_reading");
        let step_error = |error| SlaveError::Step { error, reached: time };
        if let Some(x) = self.outputs.get(vr, sim) {
            return Ok(x);
        }
        match read {
            Read::Quantity(q) => Ok(sim.quantity(q)),
            Read::State(index) => Ok(sim.ode_state_value(index)),
            Read::Derivative(index) => sim.ode_derivative_value(index).map_err(step_error),
            Read::EventIndicator(index) => {
                sim.event_indicators(&mut self.indicators).map_err(step_error)?;
                Ok(self.indicators[index])
            }
        }
    }

    /// Sets a parameter or input. Checks causality, phase, finiteness, bounds and enumeration items.
    pub fn set(&mut self, vr: u32, value: f64) -> Result<(), SlaveError> {
        // The variable borrows from a handle of the model, not from self (no copy per call).
        let model = Arc::clone(&self.model);
        let v = model.interface.variable(vr).ok_or(SlaveError::UnknownReference(vr))?;
        let reject = |reason: &str| SlaveError::InvalidValue {
            name: v.name.clone(),
            value: value.to_string(),
            reason: reason.into(),
        };
        match v.causality {
            Causality::Independent => {
                return Err(SlaveError::NotSettable {
                    name: v.name.clone(),
                    reason: "it is the independent variable".into(),
                })
            }
            Causality::Output => {
                return Err(SlaveError::NotSettable { name: v.name.clone(), reason: "it is an output".into() })
            }
            // initial = "calculated": FMI 2.0.4 Sect. 4.2.4 and FMI 3.0 Sect. 2.3.2 allow Set
            // only for initial = exact or approx; Model Exchange sets states with
            // SetContinuousStates.
            Causality::Local => {
                return Err(SlaveError::NotSettable {
                    name: v.name.clone(),
                    reason:
                        "it is a continuous state or derivative that the FMU calculates (initial = \"calculated\"); \
                             Model Exchange sets states with SetContinuousStates"
                            .into(),
                })
            }
            Causality::Parameter if matches!(self.phase, Phase::Running | Phase::Terminated) => {
                return Err(SlaveError::NotSettable {
                    name: v.name.clone(),
                    reason: "it is a fixed parameter and initialization has ended".into(),
                })
            }
            Causality::Input if self.phase == Phase::Terminated => {
                return Err(SlaveError::NotSettable {
                    name: v.name.clone(),
                    reason: "the instance is terminated".into(),
                })
            }
            _ => {}
        }
        if !value.is_finite() {
            return Err(reject("not a finite number"));
        }
        if v.min.is_some_and(|lo| value < lo) || v.max.is_some_and(|hi| value > hi) {
            return Err(reject(&format!(
                "outside [{}, {}]",
                v.min.unwrap_or(f64::NEG_INFINITY),
                v.max.unwrap_or(f64::INFINITY)
            )));
        }
        match v.ty {
            VarType::Enumeration => {
                let code = value as i64;
                let setting = match v.binding {
                    Binding::Solver(setting) => setting,
                    _ => SolverSetting::Method,
                };
                let items = self.model.interface.enumeration_items(setting);
                if code as f64 != value || !items.iter().any(|&(_, c)| i64::from(c) == code) {
                    let items: Vec<String> = items.iter().map(|(name, c)| format!("{name}={c}")).collect();
                    return Err(reject(&format!(
                        "not an item of {} ({})",
                        setting.enumeration_type().unwrap_or(variables::SOLVER_METHOD_TYPE),
                        items.join(", ")
                    )));
                }
            }
            VarType::Integer if value.fract() != 0.0 => return Err(reject("not an integer")),
            _ => {}
        }
        if matches!(
            v.binding,
            Binding::Solver(
                SolverSetting::StepSize
                    | SolverSetting::Tolerance
                    | SolverSetting::Penalty
                    | SolverSetting::PressureTolerance
            )
        ) && value <= 0.0
        {
            return Err(reject("must be positive"));
        }
        if v.causality == Causality::Input {
            if let Some(sim) = self.sim.as_mut() {
                let index = match v.binding {
                    Binding::Input { index } => index,
                    _ => unreachable!("inputs bind to input slots"),
                };
                sim.set_input(index, value).map_err(|e| reject(&e))?;
            }
        }
        self.values[vr as usize] = value;
        if v.causality == Causality::Parameter {
            self.parameters_dirty = self.parameters_differ();
        }
        self.state_changed();
        Ok(())
    }

    /// The simulation, once built.
    pub fn simulation(&self) -> Option<&Simulation> {
        self.sim.as_ref()
    }

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
