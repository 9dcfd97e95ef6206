//! Reading and writing variables: values of any variable (outputs through the output cache,
//! states, derivatives, event indicators, parameters and inputs), and setting parameters and
//! inputs with the checks of causality, phase, bounds and enumeration items.

use super::{Phase, Slave, SlaveError};
use mbfmu_model::variables::{self, Binding, Causality, SolverSetting, VarType};
use std::sync::Arc;

impl Slave {
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
}
