//! The simulation engine: formulations x integrators. Knows nothing of FMI.
//!
//! A [`Simulation`] is one formulation (so far the index-3 absolute-coordinate formulation of
//! seed 003) with one integrator, advanced over communication intervals in equal sub-steps.

pub mod index3;
pub mod integrators;
pub mod linalg;
pub mod motion;
pub mod rotation;

use crate::description::{Description, Method};
use index3::{AssemblyError, AssemblyReport, CompileError, HalfImplicit, Index3Dae, MechState, Mechanism};
use integrators::{Bdf1, DaeSystem, NewtonSettings, StepError, StepStats};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a simulation could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    Compile(CompileError),
    Assembly(AssemblyError),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Compile(e) => e.fmt(f),
            BuildError::Assembly(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BuildError {}

/// Communication intervals shorter than this fraction of the solver step size are advanced
/// by a Taylor drift instead of an implicit step.
pub const NEGLIGIBLE_STEP: f64 = 1e-3;

/// Solver settings of a run (the `solver.*` parameters).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolverSettings {
    pub method: Method,
    /// Largest internal step [s].
    pub step_size: f64,
    pub newton: NewtonSettings,
    pub rho_inf: f64,
}

impl SolverSettings {
    pub fn from_description(d: &Description) -> Self {
        SolverSettings {
            method: d.solver.method,
            step_size: d.solver.step_size,
            newton: NewtonSettings { tolerance: d.solver.tolerance, max_iterations: d.solver.max_iterations },
            rho_inf: d.solver.rho_inf,
        }
    }
}

enum Stepper {
    HalfImplicit { hi: Box<HalfImplicit>, state: MechState },
    Bdf1(Box<Bdf1<Index3Dae>>),
}

/// Everything that influences the rest of a run, in a self-contained form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulationSnapshot {
    pub state: MechState,
    pub inputs: Vec<f64>,
    pub steps: u64,
    pub last_iterations: u32,
    pub total_iterations: u64,
}

/// A running simulation of one mechanism with one integrator.
pub struct Simulation {
    dae: Index3Dae,
    stepper: Stepper,
    pub settings: SolverSettings,
    /// Internal steps taken and Newton iterations (last step, all steps).
    pub steps: u64,
    pub last_iterations: u32,
    pub total_iterations: u64,
    /// What assembly of the initial conditions changed.
    pub assembly: AssemblyReport,
}

impl fmt::Debug for Simulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Simulation")
            .field("mechanism", &self.dae.mech.name)
            .field("settings", &self.settings)
            .field("t", &self.time())
            .finish()
    }
}

impl Simulation {
    /// Compiles the description, assembles consistent initial conditions and starts the
    /// chosen integrator.
    pub fn new(d: &Description, settings: SolverSettings) -> Result<Simulation, BuildError> {
        let mech = Mechanism::from_description(d).map_err(BuildError::Compile)?;
        let mut state = mech.initial.clone();
        let assembly = mech.assemble(&mut state).map_err(BuildError::Assembly)?;
        Ok(Self::start(mech, state, settings, assembly))
    }

    fn start(mech: Mechanism, state: MechState, settings: SolverSettings, assembly: AssemblyReport) -> Simulation {
        let dae = Index3Dae::new(mech);
        let stepper = match settings.method {
            Method::HalfImplicit => Stepper::HalfImplicit { hi: Box::new(HalfImplicit::new(&dae.mech, &state)), state },
            Method::Bdf1 => Stepper::Bdf1(Box::new(Bdf1::new(&dae, state))),
        };
        Simulation { dae, stepper, settings, steps: 0, last_iterations: 0, total_iterations: 0, assembly }
    }

    pub fn mechanism(&self) -> &Mechanism {
        &self.dae.mech
    }

    pub fn state(&self) -> &MechState {
        match &self.stepper {
            Stepper::HalfImplicit { state, .. } => state,
            Stepper::Bdf1(b) => b.state(),
        }
    }

    pub fn time(&self) -> f64 {
        self.state().t
    }

    /// Sets the input values held over the following steps.
    pub fn set_inputs(&mut self, inputs: &[f64]) {
        self.dae.mech.inputs.copy_from_slice(inputs);
    }

    /// One internal step of size `h`; the state time is set exactly to `target`.
    fn step(&mut self, target: f64) -> Result<StepStats, StepError> {
        let h = target - self.time();
        let stats = match &mut self.stepper {
            Stepper::HalfImplicit { hi, state } => {
                let s = hi.step(&self.dae.mech, state, h, &self.settings.newton)?;
                state.t = target;
                s
            }
            Stepper::Bdf1(b) => {
                let s = b.step(&mut self.dae, h, &self.settings.newton)?;
                let mut st = b.state().clone();
                st.t = target;
                b.set_state(st);
                s
            }
        };
        self.steps += 1;
        self.last_iterations = stats.iterations;
        self.total_iterations += u64::from(stats.iterations);
        Ok(stats)
    }

    /// Advances to `t_end` in equal sub-steps no larger than the solver step size. On error
    /// the state is the one reached by the last successful sub-step.
    pub fn advance_to(&mut self, t_end: f64) -> Result<(), StepError> {
        let t0 = self.time();
        let span = t_end - t0;
        if !span.is_finite() || span < 0.0 {
            return Err(StepError::BadStep { time: t0, h: span });
        }
        if span == 0.0 {
            return Ok(());
        }
        // Negligible intervals (below 1/1000 of the step size, e.g. a closing ~1e-14 s step)
        // are a Taylor drift of the state: solving the index-3 equations over them would turn
        // round-off and the O(h) velocity-constraint residual of the first-order schemes into
        // impulses (multipliers ~ 1/h).
        if span < NEGLIGIBLE_STEP * self.settings.step_size {
            self.drift(span);
            return Ok(());
        }
        let n = ((span / self.settings.step_size) * (1.0 - 1e-12)).ceil().max(1.0);
        if n > 1e12 {
            return Err(StepError::BadStep { time: t0, h: self.settings.step_size });
        }
        let n = n as u64;
        for i in 1..=n {
            let target = if i == n { t_end } else { t0 + span * (i as f64 / n as f64) };
            self.step(target)?;
        }
        Ok(())
    }

    fn drift(&mut self, dt: f64) {
        let mech = &self.dae.mech;
        match &mut self.stepper {
            Stepper::HalfImplicit { state, .. } => mech.drift(state, dt),
            Stepper::Bdf1(b) => {
                let mut s = b.state().clone();
                mech.drift(&mut s, dt);
                b.set_state(s);
            }
        }
    }

    pub fn snapshot(&self) -> SimulationSnapshot {
        SimulationSnapshot {
            state: self.state().clone(),
            inputs: self.dae.mech.inputs.clone(),
            steps: self.steps,
            last_iterations: self.last_iterations,
            total_iterations: self.total_iterations,
        }
    }

    /// Restores a snapshot taken from a simulation of the same model and settings.
    pub fn restore(&mut self, s: &SimulationSnapshot) -> Result<(), String> {
        let m = &self.dae.mech;
        if s.state.bodies.len() != m.n_bodies()
            || s.state.lambda.len() != m.n_constraints()
            || s.inputs.len() != m.inputs.len()
            || s.state.angles.len() != m.joints.len()
            || s.state.drive_values.len() != m.drivers.len()
        {
            return Err("the snapshot does not belong to this model".into());
        }
        self.dae.mech.inputs.clone_from(&s.inputs);
        self.dae.invalidate_caches();
        match &mut self.stepper {
            Stepper::HalfImplicit { state, .. } => state.clone_from(&s.state),
            Stepper::Bdf1(b) => b.set_state(s.state.clone()),
        }
        self.steps = s.steps;
        self.last_iterations = s.last_iterations;
        self.total_iterations = s.total_iterations;
        Ok(())
    }

    /// Value of an output quantity at the current state.
    pub fn quantity(&self, q: crate::interface::Quantity) -> f64 {
        use crate::interface::Quantity;
        match q {
            Quantity::NewtonIterations => f64::from(self.last_iterations),
            Quantity::Steps => self.steps as f64,
            q => self.dae.mech.quantity(q, self.state()),
        }
    }

    /// Dimensions of the equations (for reports): bodies, constraints, unknowns.
    pub fn dims(&self) -> (usize, usize, usize) {
        let m = &self.dae.mech;
        (m.n_bodies(), m.n_constraints(), self.dae.n_diff() + self.dae.n_alg())
    }
}
