//! The state-space formulation inside a [`Simulation`]: construction, snapshots, and the
//! Model Exchange view of its ODE (continuous states [v; v'], derivatives [v'; v''], step
//! events that re-choose the partition; seed 001 Sect. 1).

use super::{Chart, Counters, ErrorControl, Partition, StateSpace};
use crate::index3::{AssemblyReport, Index3Dae, MechState, Mechanism};
use crate::integrators::{NewtonSettings, StepError};
use crate::{BuildError, Engine, Simulation, SolverSettings, Stepper};
use faer::Mat;
use serde::{Deserialize, Serialize};

/// Everything of the state-space solver besides the current state (which the simulation
/// snapshot holds): charts, partition, ODE state, warm start, Newton matrix parts, step
/// controller and counters, so that a restored run continues bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateSpaceSnapshot {
    pub chart: Chart,
    pub partition: Partition,
    pub base: MechState,
    pub y: Vec<f64>,
    pub a: Vec<f64>,
    pub anchor: Vec<f64>,
    pub d_v: Vec<f64>,
    pub d_vd: Vec<f64>,
    pub jacobian_stale: bool,
    pub h_next: f64,
    pub kappa0: f64,
    pub stale: bool,
    pub counters: Counters,
}

fn to_vec(m: &Mat<f64>) -> Vec<f64> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            v.push(m[(i, j)]);
        }
    }
    v
}

fn from_vec(m: &mut Mat<f64>, v: &[f64]) {
    let n = m.nrows();
    for j in 0..m.ncols() {
        for i in 0..n {
            m[(i, j)] = v[i + j * n];
        }
    }
}

impl StateSpace {
    pub fn snapshot(&self) -> StateSpaceSnapshot {
        StateSpaceSnapshot {
            chart: self.chart.clone(),
            partition: self.red.partition.clone(),
            base: self.base.clone(),
            y: self.y.clone(),
            a: self.a.clone(),
            anchor: self.red.anchor().to_vec(),
            d_v: to_vec(&self.jac.d_v),
            d_vd: to_vec(&self.jac.d_vd),
            jacobian_stale: self.jac.stale,
            h_next: self.h_next,
            kappa0: self.kappa0,
            stale: self.stale,
            counters: self.counters,
        }
    }

    /// Restores a snapshot of a solver of the same mechanism; `current` is the state the
    /// simulation snapshot holds.
    pub fn restore(&mut self, current: &MechState, s: &StateSpaceSnapshot) -> Result<(), String> {
        let (n, nd) = (self.red.n, self.red.nd);
        let m = n - nd;
        let mut seen = vec![false; n];
        let partition_ok = s.partition.dependent.len() == m
            && s.partition.independent.len() == nd
            && s.partition
                .dependent
                .iter()
                .chain(&s.partition.independent)
                .all(|&j| j < n && !std::mem::replace(&mut seen[j], true));
        if !partition_ok
            || s.chart.reference.len() != n / 6
            || s.y.len() != 2 * nd
            || s.a.len() != nd
            || s.anchor.len() != n
            || s.d_v.len() != nd * nd
            || s.d_vd.len() != nd * nd
            || s.base.bodies.len() != n / 6
            || s.base.lambda.len() != m
        {
            return Err("the snapshot does not belong to this model's state-space solver".into());
        }
        self.chart = s.chart.clone();
        self.red.set_partition(s.partition.clone());
        self.red.set_anchor_to(&s.anchor);
        self.base.clone_from(&s.base);
        self.current.clone_from(current);
        self.y.copy_from_slice(&s.y);
        self.a.copy_from_slice(&s.a);
        from_vec(&mut self.jac.d_v, &s.d_v);
        from_vec(&mut self.jac.d_vd, &s.d_vd);
        self.jac.stale = s.jacobian_stale;
        self.h_next = s.h_next;
        self.kappa0 = s.kappa0;
        self.counters = s.counters;
        // `current` is exact; the reduced equations are evaluated again when needed.
        self.stale = s.stale;
        self.evaluated = false;
        Ok(())
    }

    /// Inputs or parameters of the current point changed.
    pub fn invalidate(&mut self) {
        self.stale = true;
    }

    /// Length of the ODE state [v; v'].
    pub fn ode_len(&self) -> usize {
        2 * self.red.nd
    }

    pub fn ode_state(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.y);
    }

    pub fn set_ode_time(&mut self, t: f64) {
        if t != self.current.t {
            self.current.t = t;
            self.stale = true;
        }
    }

    pub fn set_ode_state(&mut self, x: &[f64]) {
        if x != self.y.as_slice() {
            self.y.copy_from_slice(x);
            self.stale = true;
        }
    }

    /// Recovers the full state at the current time and ODE state if the host moved it:
    /// dependent positions and velocities, independent accelerations, multipliers.
    pub fn ode_evaluate(&mut self, mech: &Mechanism, newton: &NewtonSettings) -> Result<(), StepError> {
        if !self.stale {
            return Ok(());
        }
        self.evaluate_current(mech, newton)
    }

    /// Makes the reduced equations hold the evaluation of the current point.
    fn ensure_evaluated(&mut self, mech: &Mechanism, newton: &NewtonSettings) -> Result<(), StepError> {
        if self.stale || !self.evaluated {
            self.evaluate_current(mech, newton)?;
        }
        Ok(())
    }

    fn evaluate_current(&mut self, mech: &Mechanism, newton: &NewtonSettings) -> Result<(), StepError> {
        self.evaluated = false;
        let nd = self.red.nd;
        let t = self.current.t;
        self.v.copy_from_slice(&self.y[..nd]);
        self.vd.copy_from_slice(&self.y[nd..]);
        self.red.positions(mech, &self.chart, t, &self.base, &self.v, newton)?;
        self.red.velocities(mech, t, &self.base, &self.vd)?;
        self.red.accelerations(mech, t, &mut self.a)?;
        self.red.write_state(mech, t, &self.base, &mut self.current);
        self.stale = false;
        self.evaluated = true;
        Ok(())
    }

    /// The derivatives [v'; v''] of the ODE state at the current point.
    pub fn ode_derivatives(
        &mut self,
        mech: &Mechanism,
        newton: &NewtonSettings,
        dx: &mut [f64],
    ) -> Result<(), StepError> {
        self.ode_evaluate(mech, newton)?;
        let nd = self.red.nd;
        dx[..nd].copy_from_slice(&self.y[nd..]);
        dx[nd..].copy_from_slice(&self.a);
        Ok(())
    }

    /// The host accepted its step at the current point: it becomes the base of the
    /// following ones (friction, joint-angle unwrapping, work, warm start). Returns true
    /// when the partition should be re-chosen (a step event).
    pub fn ode_completed_step(&mut self, mech: &Mechanism, newton: &NewtonSettings) -> Result<bool, StepError> {
        self.ensure_evaluated(mech, newton)?;
        self.base.clone_from(&self.current);
        self.red.set_anchor();
        self.red.hold_friction(mech, &self.base);
        self.counters.steps += 1;
        Ok(self.needs_new_partition())
    }

    /// Event update: re-chooses the partition if it has become ill-conditioned. Returns
    /// true if the continuous states changed meaning and value.
    pub fn ode_event(&mut self, mech: &Mechanism, newton: &NewtonSettings) -> Result<bool, StepError> {
        self.ensure_evaluated(mech, newton)?;
        self.base.clone_from(&self.current);
        self.red.set_anchor();
        self.red.hold_friction(mech, &self.base);
        if !self.needs_new_partition() {
            return Ok(false);
        }
        self.choose_partition(mech, newton)?;
        Ok(true)
    }
}

/// A simulation of `mech` in the state-space formulation from an assembled state.
pub fn start(
    mech: Mechanism,
    state: MechState,
    settings: SolverSettings,
    assembly: AssemblyReport,
    control: ErrorControl,
) -> Result<Simulation, BuildError> {
    let ss = StateSpace::new(&mech, state, settings.method, control, &settings.newton)
        .map_err(|e| BuildError::Solver(format!("state-space formulation: {e}")))?;
    Ok(Simulation {
        engine: Engine::Index3 { dae: Box::new(Index3Dae::new(mech)), stepper: Stepper::StateSpace(Box::new(ss)) },
        settings,
        steps: 0,
        last_iterations: 0,
        total_iterations: 0,
        assembly,
    })
}

impl Simulation {
    /// The state-space solver, if this simulation uses that formulation.
    pub fn state_space(&self) -> Option<&StateSpace> {
        match &self.engine {
            Engine::Index3 { stepper: Stepper::StateSpace(s), .. } => Some(s),
            _ => None,
        }
    }

    fn ode(&mut self) -> Result<(&Mechanism, &mut StateSpace), StepError> {
        match &mut self.engine {
            Engine::Index3 { dae, stepper: Stepper::StateSpace(s) } => Ok((&dae.mech, s)),
            _ => Err(StepError::BadStep { time: f64::NAN, h: f64::NAN }),
        }
    }

    /// Model Exchange: number of continuous states (0 without the state-space formulation).
    pub fn ode_len(&self) -> usize {
        self.state_space().map_or(0, |s| s.ode_len())
    }

    pub fn ode_state(&self, x: &mut [f64]) {
        if let Some(s) = self.state_space() {
            s.ode_state(x);
        }
    }

    pub fn set_ode_time(&mut self, t: f64) {
        if let Ok((_, s)) = self.ode() {
            s.set_ode_time(t);
        }
    }

    pub fn set_ode_state(&mut self, x: &[f64]) {
        if let Ok((_, s)) = self.ode() {
            s.set_ode_state(x);
        }
    }

    /// Brings the state to the current time, continuous states and inputs (Model Exchange;
    /// nothing to do in co-simulation).
    pub fn ode_evaluate(&mut self) -> Result<(), StepError> {
        let newton = self.settings.newton;
        match self.ode() {
            Ok((mech, s)) => s.ode_evaluate(mech, &newton),
            Err(_) => Ok(()),
        }
    }

    /// Continuous state `index` of [v; v'] (NaN without the state-space formulation).
    pub fn ode_state_value(&self, index: usize) -> f64 {
        self.state_space().and_then(|s| s.y.get(index).copied()).unwrap_or(f64::NAN)
    }

    /// Derivative of continuous state `index`.
    pub fn ode_derivative_value(&mut self, index: usize) -> Result<f64, StepError> {
        let newton = self.settings.newton;
        let (mech, s) = self.ode()?;
        s.ode_evaluate(mech, &newton)?;
        let nd = s.dof();
        Ok(if index < nd { s.y[nd + index] } else { s.a.get(index - nd).copied().unwrap_or(f64::NAN) })
    }

    pub fn ode_derivatives(&mut self, dx: &mut [f64]) -> Result<(), StepError> {
        let newton = self.settings.newton;
        let (mech, s) = self.ode()?;
        s.ode_derivatives(mech, &newton, dx)
    }

    /// A completed integrator step of the host; true requests an event (new partition).
    pub fn ode_completed_step(&mut self) -> Result<bool, StepError> {
        let newton = self.settings.newton;
        let (mech, s) = self.ode()?;
        let event = s.ode_completed_step(mech, &newton)?;
        let steps = s.counters.steps;
        self.steps = steps;
        Ok(event)
    }

    /// Event update; true if the continuous states changed.
    pub fn ode_event(&mut self) -> Result<bool, StepError> {
        let newton = self.settings.newton;
        let (mech, s) = self.ode()?;
        s.ode_event(mech, &newton)
    }
}
