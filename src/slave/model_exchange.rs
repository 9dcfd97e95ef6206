//! Model Exchange instances of models in the state-space formulation (\[Negrut1997\]) and the
//! semirecursive formulations (\[Jaiswal2021\]): the host integrates the ODE in the independent
//! coordinates (with the circuit's states); the slave sets time and continuous states,
//! returns derivatives and event indicators, re-chooses the coordinate partition at step
//! events and reports the time events of work cycles. Knows nothing of the C ABI.

use super::{Model, Phase, Slave, SlaveError};
use std::sync::Arc;

/// Result of an event update (FMI 2 NewDiscreteStates / FMI 3 UpdateDiscreteStates).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EventUpdate {
    /// The continuous states were re-chosen (a new partition): read them again.
    pub states_changed: bool,
    /// The next time event, if any.
    pub next_time: Option<f64>,
}

impl Slave {
    /// A Model Exchange instance; models in the state-space and semirecursive formulations
    /// have one.
    pub fn new_model_exchange(model: Arc<Model>) -> Result<Slave, SlaveError> {
        if !model.description.solver.formulation.model_exchange() {
            return Err(SlaveError::Model(format!(
                "model {} is in the {} formulation, which provides co-simulation only (Model Exchange needs the stateSpace, doubleStep or penalty formulation)",
                model.description.name,
                model.description.solver.formulation.name()
            )));
        }
        let mut s = Slave::new(model);
        s.model_exchange = true;
        Ok(s)
    }

    pub fn is_model_exchange(&self) -> bool {
        self.model_exchange
    }

    /// Number of continuous states (twice the degrees of freedom).
    pub fn continuous_state_count(&self) -> usize {
        self.model.interface.states().count()
    }

    fn running(&mut self, operation: &'static str) -> Result<&mut mbfmu_engine::Simulation, SlaveError> {
        if !matches!(self.phase, Phase::Initialization | Phase::Running | Phase::Terminated) {
            return Err(SlaveError::WrongPhase { operation, phase: self.phase });
        }
        self.ensure_built()?;
        Ok(self.sim.as_mut().expect("built by ensure_built"))
    }

    fn check_len(&self, what: &str, n: usize) -> Result<(), SlaveError> {
        let expected = self.continuous_state_count();
        if n != expected {
            return Err(SlaveError::InvalidValue {
                name: what.into(),
                value: format!("{n} elements"),
                reason: format!("the model has {expected} continuous states"),
            });
        }
        Ok(())
    }

    /// SetTime.
    pub fn set_time(&mut self, t: f64) -> Result<(), SlaveError> {
        if !t.is_finite() {
            return Err(SlaveError::InvalidValue {
                name: "time".into(),
                value: t.to_string(),
                reason: "not finite".into(),
            });
        }
        self.running("setting the time")?.set_ode_time(t);
        if t != self.time {
            self.state_changed();
        }
        self.time = t;
        Ok(())
    }

    /// SetContinuousStates.
    pub fn set_continuous_states(&mut self, x: &[f64]) -> Result<(), SlaveError> {
        self.check_len("continuous states", x.len())?;
        if let Some(k) = x.iter().position(|v| !v.is_finite()) {
            return Err(SlaveError::InvalidValue {
                name: format!("continuous state {k}"),
                value: x[k].to_string(),
                reason: "not finite".into(),
            });
        }
        self.running("setting continuous states")?.set_ode_state(x);
        self.state_changed();
        Ok(())
    }

    /// GetContinuousStates.
    pub fn get_continuous_states(&mut self, x: &mut [f64]) -> Result<(), SlaveError> {
        self.check_len("continuous states", x.len())?;
        self.running("reading continuous states")?.ode_state(x);
        Ok(())
    }

    /// GetDerivatives; a failure of the dependent-coordinate solve (a state outside the
    /// domain of the partition) is a Step error the FMI layer reports as Discard.
    pub fn get_derivatives(&mut self, dx: &mut [f64]) -> Result<(), SlaveError> {
        self.check_len("derivatives", dx.len())?;
        let time = self.time;
        self.running("computing derivatives")?
            .ode_derivatives(dx)
            .map_err(|error| SlaveError::Step { error, reached: time })
    }

    /// GetNominalsOfContinuousStates: 1 for coordinates (m, rad), velocities (m/s, rad/s),
    /// spools (V) and work (J); 1e5 for pressures (Pa: a bar).
    pub fn nominals(&self, out: &mut [f64]) -> Result<(), SlaveError> {
        self.check_len("nominals", out.len())?;
        out.iter_mut().for_each(|x| *x = 1.0);
        if let Ok(Some(l)) = mbfmu_model::variables::StateLayout::of(&self.model.description) {
            out[l.pressure(0)..l.pressure(l.pressures)].iter_mut().for_each(|x| *x = 1e5);
        }
        Ok(())
    }

    /// Number of event indicators.
    pub fn event_indicator_count(&self) -> usize {
        self.indicators.len()
    }

    /// GetEventIndicators at the current time, states and inputs.
    pub fn get_event_indicators(&mut self, z: &mut [f64]) -> Result<(), SlaveError> {
        let expected = self.event_indicator_count();
        if z.len() != expected {
            return Err(SlaveError::InvalidValue {
                name: "event indicators".into(),
                value: format!("{} elements", z.len()),
                reason: format!("the model has {expected} event indicators"),
            });
        }
        let time = self.time;
        self.running("computing event indicators")?
            .event_indicators(z)
            .map_err(|error| SlaveError::Step { error, reached: time })
    }

    /// CompletedIntegratorStep: true requests event mode (the partition must be re-chosen).
    pub fn completed_integrator_step(&mut self) -> Result<bool, SlaveError> {
        let time = self.time;
        self.state_changed();
        self.running("completing an integrator step")?
            .ode_completed_step()
            .map_err(|error| SlaveError::Step { error, reached: time })
    }

    /// Event update: re-chooses the partition if needed.
    pub fn event_update(&mut self) -> Result<EventUpdate, SlaveError> {
        let time = self.time;
        self.state_changed();
        let sim = self.running("updating discrete states")?;
        let changed = sim.ode_event().map_err(|error| SlaveError::Step { error, reached: time })?;
        let next_time = sim.next_time_event();
        if changed {
            self.note(
                "logNonlinearSystems",
                format!("t = {time}: new coordinate partition (continuous states re-chosen)"),
            );
        }
        Ok(EventUpdate { states_changed: changed, next_time })
    }
}
