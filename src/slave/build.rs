//! Building the simulation from the description: the description with the current parameter
//! values applied, the check whether a rebuild is due, and the build itself with the inputs
//! carried over.

use super::{Slave, SlaveError};
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use mbfmu_model::variables::{Binding, Causality};
use serde::Deserialize;

impl Slave {
    /// The description with the current parameter values applied.
    pub fn effective_description(&self) -> Result<Description, SlaveError> {
        let mut d = if self.model.parametric.is_none() && self.parameters_at_start() {
            // The usual first build: the description as read and validated with the model,
            // with the solver settings written as the other way writes them (an unset optional
            // tolerance becomes its default). Writing the start values into the document and
            // reading it back gives the same, at 40 % of the instructions of a built-in
            // model's initialization.
            let mut d = self.model.description.clone();
            self.apply_solver_settings(&mut d)?;
            d
        } else {
            self.applied_description()?
        };
        // The host's start time, after validation: the DefaultExperiment's stop time does not
        // bind a host (a start after it, with or without a stop time, is legal).
        d.experiment.start = self.start_time;
        d.experiment.stop = self.stop_time.unwrap_or(d.experiment.stop).max(self.start_time);
        Ok(d)
    }

    /// Whether every parameter that the description holds (a model parameter, a named
    /// parameter or a solver setting) has the value it had at instantiation, bit for bit.
    fn parameters_at_start(&self) -> bool {
        self.variables().iter().all(|v| match v.binding {
            Binding::ModelParameter { .. } | Binding::NamedParameter { .. } | Binding::Solver(_) => {
                self.values[v.value_reference as usize].to_bits() == super::start_value(v).to_bits()
            }
            _ => true,
        })
    }

    /// The description's document with the current parameter values written into it (named
    /// parameters evaluated first), read back and validated; without the host's experiment.
    pub fn applied_description(&self) -> Result<Description, SlaveError> {
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
        self.apply_solver_settings(&mut d)?;
        // The document is `d` serialized once the solver block is too, so validation reads
        // the parameter paths in it instead of serializing `d` again.
        json["solver"] = serde_json::to_value(&d.solver).map_err(|e| SlaveError::Model(e.to_string()))?;
        d.validate_serialized(&json).map_err(|e| SlaveError::Model(e.to_string()))?;
        Ok(d)
    }

    /// Every solver.* parameter into `d`, through the one table that maps them to the solver
    /// block.
    fn apply_solver_settings(&self, d: &mut Description) -> Result<(), SlaveError> {
        for v in self.variables() {
            if let Binding::Solver(setting) = v.binding {
                setting.apply(&mut d.solver, self.values[v.value_reference as usize]).map_err(SlaveError::Model)?;
            }
        }
        Ok(())
    }

    /// Whether some parameter's value differs from the one the simulation was built with
    /// (every parameter when nothing was built yet). Recomputed only where `values` or
    /// `built_with` change (the field `parameters_dirty`).
    pub(super) fn parameters_differ(&self) -> bool {
        self.variables().iter().any(|v| {
            v.causality == Causality::Parameter
                && self.built_with.get(v.value_reference as usize) != Some(&self.values[v.value_reference as usize])
        })
    }

    #[inline]
    pub(super) fn ensure_built(&mut self) -> Result<(), SlaveError> {
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
}
