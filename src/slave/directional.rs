//! Directional derivatives (FMI 2.0.4 Sect. 2.1.9 `fmi2GetDirectionalDerivative`, FMI 3.0
//! Sect. 2.2.11 `fmi3GetDirectionalDerivative`): sensitivity = J seed for the Jacobian J of
//! the unknowns by the knowns at the current point.
//!
//! Which variables may be unknowns and knowns (the standards' v_unknown and v_known; the
//! declared `<ModelStructure>` dependencies, `mbfmu_model::variables::dependencies`, list the
//! nonzero entries):
//! - Model Exchange, Event and Continuous-Time Mode (and Terminated): unknowns are the
//!   continuous Real outputs and the state derivatives; knowns the continuous states, the
//!   inputs and time where the equations depend on it (drivers of the state-space formulation).
//! - Model Exchange, Initialization Mode: unknowns are the initial unknowns (outputs,
//!   states, derivatives); knowns the inputs (the states are assembled from the parameters,
//!   so their derivatives by the inputs are 0).
//! - Co-simulation (Initialization Mode, after steps): unknowns are the continuous Real
//!   outputs, knowns the inputs: the direct feed-through at the communication point
//!   (`Formulation::feedthrough`).
//!
//! Parameters are never knowns (their derivatives would need a new assembly of the model).
//! The Model Exchange Jacobian is formed column by column when a seed needs it and kept
//! until time, states or inputs change (an importer that builds a matrix column by column
//! pays for each column once); storage is allocated when the model is built.

use super::{Phase, Slave, SlaveError};
use mbfmu_engine::partials::{Column, Known};
use mbfmu_engine::{integrators::StepError, Simulation};
use mbfmu_model::format::Quantity;
use mbfmu_model::variables::{
    dependencies, Binding, Causality, Known as DeclaredKnown, ModelInterface, StateLayout, Unknown,
};

/// What a value reference can be in a directional derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// A continuous Real output: its quantity and its row among the outputs.
    Output(Quantity, usize),
    State(usize),
    Derivative(usize),
    Input(usize),
    Time,
    /// Anything else (parameters, integer outputs, event indicators).
    Other,
}

/// The roles of a model's variables and the Jacobian columns of the current point.
pub(super) struct Partials {
    roles: Vec<Role>,
    /// The continuous Real outputs, in the order of their rows.
    quantities: Vec<Quantity>,
    /// Time is a known (the dependencies of a state derivative or an output list it).
    time_known: bool,
    /// n states, m inputs, q outputs; columns: states, inputs, time.
    n: usize,
    m: usize,
    q: usize,
    derivative_columns: Vec<f64>,
    output_columns: Vec<f64>,
    have_derivatives: Vec<bool>,
    have_outputs: Vec<bool>,
    column: Option<Column>,
}

impl Partials {
    pub fn new(interface: &ModelInterface, d: &mbfmu_model::Description) -> Partials {
        let mut quantities = Vec::new();
        let roles = interface
            .variables
            .iter()
            .map(|v| match v.binding {
                Binding::Output(q) if v.is_continuous_signal() => {
                    quantities.push(q);
                    Role::Output(q, quantities.len() - 1)
                }
                Binding::State { index } => Role::State(index),
                Binding::Derivative { index } => Role::Derivative(index),
                Binding::Input { index } if v.is_continuous_signal() => Role::Input(index),
                Binding::Time => Role::Time,
                _ => Role::Other,
            })
            .collect();
        let layout = StateLayout::of(d).ok().flatten();
        let time_known = layout.is_some_and(|l| {
            let lists_time =
                |u: Unknown| dependencies(d, Some(&l), u).iter().any(|dep| dep.known == DeclaredKnown::Time);
            (0..l.len()).any(|k| lists_time(Unknown::Derivative(k)))
                || quantities.iter().any(|&q| lists_time(Unknown::Output(q)))
        });
        let m = interface.variables.iter().filter(|v| v.causality == Causality::Input).count();
        Partials {
            roles,
            q: quantities.len(),
            quantities,
            time_known,
            n: 0,
            m,
            derivative_columns: Vec::new(),
            output_columns: Vec::new(),
            have_derivatives: Vec::new(),
            have_outputs: Vec::new(),
            column: None,
        }
    }

    /// Storage for the columns of a Model Exchange simulation (when it is built).
    pub fn allocate(&mut self, sim: &mut Simulation) {
        self.n = sim.ode_len();
        let columns = self.n + self.m + 1;
        self.derivative_columns = vec![0.0; self.n * columns];
        self.output_columns = vec![0.0; self.q * columns];
        self.have_derivatives = vec![false; columns];
        self.have_outputs = vec![false; columns];
        self.column = Some(Column::new(self.n, self.q, sim.monitored_laws()));
    }

    /// [`Partials::allocate`] unless done.
    pub fn allocate_once(&mut self, sim: &mut Simulation) {
        if self.column.is_none() {
            self.allocate(sim);
        }
    }

    /// The point moved: columns are formed again when needed.
    pub fn invalidate(&mut self) {
        self.have_derivatives.iter_mut().for_each(|h| *h = false);
        self.have_outputs.iter_mut().for_each(|h| *h = false);
    }

    pub fn role(&self, vr: u32) -> Role {
        self.roles.get(vr as usize).copied().unwrap_or(Role::Other)
    }

    fn slot(&self, known: Known) -> usize {
        match known {
            Known::State(i) => i,
            Known::Input(i) => self.n + i,
            Known::Time => self.n + self.m,
        }
    }

    /// Column `known` of the state derivatives (and of the outputs, if `outputs`), formed if
    /// not yet at this point.
    fn ensure(&mut self, sim: &mut Simulation, known: Known, outputs: bool) -> Result<(), StepError> {
        let s = self.slot(known);
        if self.have_derivatives[s] && (!outputs || self.have_outputs[s]) {
            return Ok(());
        }
        let column = self.column.as_mut().expect("allocated when the model was built");
        sim.partial_column(known, &self.quantities, outputs, column)?;
        let n = self.n;
        self.derivative_columns[s * n..(s + 1) * n].copy_from_slice(&column.derivatives);
        self.have_derivatives[s] = true;
        if outputs {
            let q = self.q;
            self.output_columns[s * q..(s + 1) * q].copy_from_slice(&column.outputs);
            self.have_outputs[s] = true;
        }
        Ok(())
    }
}

impl Slave {
    fn partial_error(&self, role: &'static str, vr: u32, reason: String) -> SlaveError {
        match self.variable(vr) {
            Ok(v) => SlaveError::Partial { role, name: v.name.clone(), value_reference: vr, reason },
            Err(e) => e,
        }
    }

    /// sensitivity = J seed for the unknowns `unknowns` and the knowns `knowns` (see the
    /// module documentation for which are allowed in which phase).
    pub fn directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<(), SlaveError> {
        if self.phase == Phase::Instantiated {
            return Err(SlaveError::WrongPhase { operation: "computing directional derivatives", phase: self.phase });
        }
        let initialization = self.phase == Phase::Initialization;
        let me = self.model_exchange;
        for &vr in unknowns {
            let allowed = match self.partials.role(vr) {
                Role::Output(..) => true,
                Role::Derivative(_) => me,
                Role::State(_) => me && initialization,
                _ => false,
            };
            if !allowed {
                let reason = match (me, initialization) {
                    (true, false) => "the unknowns are the continuous outputs of type Real and the state derivatives",
                    (true, true) => "the unknowns in Initialization Mode are the continuous outputs of type Real, the continuous states and their derivatives",
                    (false, _) => "the unknowns of a co-simulation are the continuous outputs of type Real",
                };
                return Err(self.partial_error("an unknown", vr, reason.into()));
            }
        }
        for (&vr, &s) in knowns.iter().zip(seed) {
            let allowed = match self.partials.role(vr) {
                Role::Input(_) => true,
                Role::State(_) => me && !initialization,
                Role::Time => me && !initialization && self.partials.time_known,
                _ => false,
            };
            if !allowed {
                let reason = match (me, initialization) {
                    (true, false) if self.partials.time_known => "the knowns are the continuous states, the inputs and time",
                    (true, false) => "the knowns are the continuous states and the inputs (the equations do not depend on time explicitly)",
                    (true, true) => "the knowns in Initialization Mode are the inputs",
                    (false, _) => "the knowns of a co-simulation are the inputs (direct feed-through)",
                };
                return Err(self.partial_error("a known", vr, reason.into()));
            }
            if !s.is_finite() {
                return Err(self.partial_error("a known", vr, format!("its seed {s} is not finite")));
            }
        }
        self.ensure_built()?;
        let time = self.time;
        let sim = self.sim.as_mut().expect("built by ensure_built");
        sensitivity.iter_mut().for_each(|x| *x = 0.0);
        if !me {
            for (out, &u) in sensitivity.iter_mut().zip(unknowns) {
                let Role::Output(q, _) = self.partials.role(u) else { continue };
                for (&k, &s) in knowns.iter().zip(seed) {
                    if let (Role::Input(i), true) = (self.partials.role(k), s != 0.0) {
                        *out += sim.feedthrough(q, i) * s;
                    }
                }
            }
            return Ok(());
        }
        let outputs = unknowns.iter().any(|&u| matches!(self.partials.role(u), Role::Output(..)));
        let p = &mut self.partials;
        for (&k, &s) in knowns.iter().zip(seed) {
            if s == 0.0 {
                continue;
            }
            let known = match p.role(k) {
                Role::State(i) => Known::State(i),
                Role::Input(i) => Known::Input(i),
                _ => Known::Time,
            };
            p.ensure(sim, known, outputs).map_err(|error| SlaveError::Step { error, reached: time })?;
            let column = p.slot(known);
            for (out, &u) in sensitivity.iter_mut().zip(unknowns) {
                *out += s * match p.role(u) {
                    Role::Output(_, row) => p.output_columns[column * p.q + row],
                    Role::Derivative(row) => p.derivative_columns[column * p.n + row],
                    // The states assembled from the parameters (Initialization Mode).
                    _ => 0.0,
                };
            }
        }
        Ok(())
    }
}
