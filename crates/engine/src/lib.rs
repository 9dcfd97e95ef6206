//! The simulation engine: formulations x integrators. Knows nothing of FMI.
//!
//! A [`Simulation`] is one formulation (the index-3 absolute-coordinate formulation of seed
//! 003, or a semirecursive formulation of seed 004 with its hydraulics) with one integrator,
//! advanced over communication intervals in equal sub-steps.

pub mod hydraulics;
pub mod index3;
pub mod integrators;
pub mod linalg;
pub mod motion;
pub mod rotation;
pub mod semirecursive;
pub mod statespace;

use mbfmu_model::format::{Description, Formulation, Method};
use index3::{AssemblyError, AssemblyReport, CompileError, HalfImplicit, Index3Dae, MechState, Mechanism};
use integrators::{DaeSystem, History, Integrator, NewtonSettings, StepError, StepStats};
use semirecursive::{SemiState, Semirecursive};
use serde::{Deserialize, Serialize};
use std::fmt;

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

/// Steps shorter than this fraction of `solver.stepSize` move the current point along its
/// tangent instead of being solved (see [`Integrator::shift_to`] and [`Mechanism::drift`]).
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

    /// The semirecursive formulations' settings: the constraint treatment and its parameters
    /// come from the description (`solver.formulation`, `penalty`, `pressure_tolerance`,
    /// `tangent`), the Newton settings from here.
    fn semirecursive(&self, d: &Description) -> semirecursive::Settings {
        semirecursive::Settings {
            formulation: d.solver.formulation,
            tolerance: self.newton.tolerance,
            pressure_tolerance: d.solver.pressure_tolerance,
            max_iterations: self.newton.max_iterations,
            penalty: d.solver.penalty,
            tangent: d.solver.tangent,
        }
    }
}

enum Stepper {
    HalfImplicit {
        hi: Box<HalfImplicit>,
        state: MechState,
    },
    /// Every method of the residual-form suite (BDF1 and seed 000's integrators).
    Implicit(Box<Integrator<Index3Dae>>),
    /// The state-space formulation with its own integrators (seed 001).
    StateSpace(Box<statespace::StateSpace>),
}

/// Everything that influences the rest of a run, in a self-contained form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulationSnapshot {
    /// The state as absolute body states (the semirecursive formulations' view of theirs).
    pub state: MechState,
    /// The integrator's history besides `state` (previous states, step sizes, SS auxiliary
    /// vectors); None for the half-implicit method and the semirecursive formulations.
    pub history: Option<History<MechState>>,
    /// The state of a semirecursive formulation (None for the index-3 formulation).
    pub semirecursive: Option<SemiState>,
    pub inputs: Vec<f64>,
    pub steps: u64,
    pub last_iterations: u32,
    pub total_iterations: u64,
    /// The state-space solver besides `state` (state-space formulation only).
    pub state_space: Option<statespace::StateSpaceSnapshot>,
}

enum Engine {
    Index3 { dae: Box<Index3Dae>, stepper: Stepper },
    Semirecursive(Box<Semirecursive>),
}

/// A running simulation of one model with one formulation and integrator.
pub struct Simulation {
    engine: Engine,
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
        let name = match &self.engine {
            Engine::Index3 { dae, .. } => &dae.mech.name,
            Engine::Semirecursive(s) => &s.tree.name,
        };
        f.debug_struct("Simulation")
            .field("model", name)
            .field("settings", &self.settings)
            .field("t", &self.time())
            .finish()
    }
}

impl Simulation {
    /// Compiles the description, assembles consistent initial conditions and starts the
    /// chosen integrator.
    pub fn new(d: &Description, settings: SolverSettings) -> Result<Simulation, BuildError> {
        if d.solver.formulation.is_semirecursive() {
            if settings.method != Method::Trapezoidal {
                return Err(BuildError::Solver(format!(
                    "the semirecursive formulations integrate with the trapezoidal rule (seed 004 Sect. 4), not {}",
                    settings.method.item_name()
                )));
            }
            let semi = Semirecursive::new(d, settings.semirecursive(d)).map_err(BuildError::Semirecursive)?;
            return Ok(Simulation {
                assembly: semi.assembly.clone(),
                engine: Engine::Semirecursive(Box::new(semi)),
                settings,
                steps: 0,
                last_iterations: 0,
                total_iterations: 0,
            });
        }
        let mech = Mechanism::from_description(d).map_err(BuildError::Compile)?;
        let mut state = mech.initial.clone();
        settings.method.check_rho_inf(settings.rho_inf).map_err(BuildError::Solver)?;
        let assembly = mech.assemble(&mut state).map_err(BuildError::Assembly)?;
        if d.solver.formulation == Formulation::StateSpace {
            let control = statespace::ErrorControl::of(&d.solver);
            return statespace::simulation_start(mech, state, settings, assembly, control);
        }
        Self::start(mech, state, settings, assembly)
    }

    fn start(
        mech: Mechanism,
        state: MechState,
        settings: SolverSettings,
        assembly: AssemblyReport,
    ) -> Result<Simulation, BuildError> {
        let dae = Box::new(Index3Dae::new(mech));
        let stepper = match settings.method {
            Method::HalfImplicit => Stepper::HalfImplicit { hi: Box::new(HalfImplicit::new(&dae.mech, &state)), state },
            method => Stepper::Implicit(Box::new(
                Integrator::new(&*dae, method, settings.rho_inf, state).map_err(BuildError::Solver)?,
            )),
        };
        Ok(Simulation {
            engine: Engine::Index3 { dae, stepper },
            settings,
            steps: 0,
            last_iterations: 0,
            total_iterations: 0,
            assembly,
        })
    }

    /// The compiled mechanism of the index-3 formulation.
    pub fn mechanism(&self) -> Option<&Mechanism> {
        match &self.engine {
            Engine::Index3 { dae, .. } => Some(&dae.mech),
            Engine::Semirecursive(_) => None,
        }
    }

    /// The semirecursive engine, if that is the formulation.
    pub fn semirecursive(&self) -> Option<&Semirecursive> {
        match &self.engine {
            Engine::Semirecursive(s) => Some(s),
            Engine::Index3 { .. } => None,
        }
    }

    /// The state as absolute body states (the semirecursive formulations form this view of
    /// their relative coordinates when it is first asked for after a step).
    pub fn state(&self) -> &MechState {
        match &self.engine {
            Engine::Index3 { stepper: Stepper::HalfImplicit { state, .. }, .. } => state,
            Engine::Index3 { stepper: Stepper::Implicit(i), .. } => i.state(),
            Engine::Index3 { stepper: Stepper::StateSpace(s), .. } => s.state(),
            Engine::Semirecursive(s) => s.mirror(),
        }
    }

    pub fn time(&self) -> f64 {
        match &self.engine {
            Engine::Semirecursive(s) => s.time(),
            Engine::Index3 { .. } => self.state().t,
        }
    }

    /// The input values held over the following steps.
    pub fn inputs(&self) -> &[f64] {
        match &self.engine {
            Engine::Index3 { dae, .. } => &dae.mech.inputs,
            Engine::Semirecursive(s) => &s.inputs,
        }
    }

    /// Sets the input values held over the following steps. Fails, leaving the inputs as
    /// they were, if the model cannot be evaluated with them (e.g. a cylinder length input
    /// outside the stroke).
    pub fn set_inputs(&mut self, inputs: &[f64]) -> Result<(), String> {
        match &mut self.engine {
            Engine::Index3 { dae, stepper } => {
                let changed = dae.mech.inputs.as_slice() != inputs;
                dae.mech.inputs.copy_from_slice(inputs);
                if let (true, Stepper::StateSpace(s)) = (changed, stepper) {
                    s.invalidate();
                }
                Ok(())
            }
            Engine::Semirecursive(s) => s.set_inputs(inputs),
        }
    }

    /// Sets input `index`, held over the following steps.
    /// Fails, keeping the previous value, if the model cannot be evaluated with it.
    pub fn set_input(&mut self, index: usize, value: f64) -> Result<(), String> {
        match &mut self.engine {
            Engine::Index3 { dae, .. } => {
                dae.mech.inputs[index] = value;
                Ok(())
            }
            Engine::Semirecursive(s) => s.set_input(index, value),
        }
    }

    /// One internal step of size `h`; the state time is set exactly to `target`.
    fn step(&mut self, target: f64) -> Result<StepStats, StepError> {
        let h = target - self.time();
        let negligible = h < NEGLIGIBLE_STEP * self.settings.step_size;
        let (dae, stepper) = match &mut self.engine {
            Engine::Index3 { dae, stepper } => (dae, stepper),
            Engine::Semirecursive(s) => {
                let stats = if negligible {
                    s.drift(target)?;
                    StepStats { iterations: 0, stages: 0 }
                } else {
                    s.step_to(target)?
                };
                self.steps += 1;
                self.last_iterations = stats.iterations;
                self.total_iterations += u64::from(stats.iterations);
                return Ok(stats);
            }
        };
        let stats = match stepper {
            Stepper::HalfImplicit { state, .. } if negligible => {
                dae.mech.drift(state, h);
                state.t = target;
                StepStats { iterations: 0, stages: 0 }
            }
            Stepper::HalfImplicit { hi, state } => {
                let s = hi.step(&dae.mech, state, h, &self.settings.newton)?;
                state.t = target;
                s
            }
            // A negligible step (e.g. the 2e-14 s a master's time arithmetic leaves at the end
            // of an interval) is not solved: the index-3 equations determine accelerations and
            // multipliers only to ~eps |q| / h^2, which would spoil every later step.
            Stepper::Implicit(i) if negligible => i.shift_to(&mut **dae, target)?,
            Stepper::Implicit(i) => i.step_to(&mut **dae, target, &self.settings.newton)?,
            Stepper::StateSpace(s) => {
                s.advance_to(&dae.mech, target, &self.settings)?;
                StepStats { iterations: s.counters.last_iterations, stages: 0 }
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
        if let Engine::Index3 { dae, stepper: Stepper::StateSpace(s) } = &mut self.engine {
            // The formulation's own stepping (variable-step methods choose their steps).
            let result = s.advance_to(&dae.mech, t_end, &self.settings);
            self.steps = s.counters.steps;
            self.last_iterations = s.counters.last_iterations;
            self.total_iterations = s.counters.total_iterations;
            return result;
        }
        // A communication step equal to the solver step must take one internal step, also
        // when the host computes t_end = k * H: that span differs from H by a few ulps of
        // t_end, which at t = 10 s and H = 1 ms is already 1e-12 relative.
        let round_off = 16.0 * f64::EPSILON * t0.abs().max(t_end.abs());
        let n = (((span - round_off) / self.settings.step_size) * (1.0 - 1e-12)).ceil().max(1.0);
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

    pub fn snapshot(&self) -> SimulationSnapshot {
        let (history, semirecursive) = match &self.engine {
            Engine::Index3 { stepper: Stepper::HalfImplicit { .. } | Stepper::StateSpace(_), .. } => (None, None),
            Engine::Index3 { stepper: Stepper::Implicit(i), .. } => (Some(i.history()), None),
            Engine::Semirecursive(s) => (None, Some(s.state.clone())),
        };
        SimulationSnapshot {
            state: self.state().clone(),
            history,
            semirecursive,
            inputs: self.inputs().to_vec(),
            state_space: match &self.engine {
                Engine::Index3 { stepper: Stepper::StateSpace(s), .. } => Some(s.snapshot()),
                _ => None,
            },
            steps: self.steps,
            last_iterations: self.last_iterations,
            total_iterations: self.total_iterations,
        }
    }

    /// Restores a snapshot taken from a simulation of the same model and settings.
    pub fn restore(&mut self, s: &SimulationSnapshot) -> Result<(), String> {
        let (dae, stepper, state, history) = match (&mut self.engine, &s.semirecursive) {
            (Engine::Semirecursive(semi), Some(state)) => {
                semi.restore(state, &s.inputs)?;
                self.steps = s.steps;
                self.last_iterations = s.last_iterations;
                self.total_iterations = s.total_iterations;
                return Ok(());
            }
            (Engine::Index3 { dae, stepper }, None) => (dae, stepper, &s.state, &s.history),
            _ => return Err("the snapshot was taken with another formulation".into()),
        };
        let m = &dae.mech;
        let fits = |st: &MechState| {
            st.bodies.len() == m.n_bodies()
                && st.lambda.len() == m.n_constraints()
                && st.angles.len() == m.joints.len()
                && st.drive_values.len() == m.drivers.len()
        };
        let previous = history.as_ref().map_or(&[][..], |h| &h.previous[..]);
        if !fits(state) || !previous.iter().all(fits) || s.inputs.len() != m.inputs.len() {
            return Err("the snapshot does not belong to this model".into());
        }
        match (stepper, history, &s.state_space) {
            (Stepper::HalfImplicit { state: current, .. }, None, None) => current.clone_from(state),
            (Stepper::Implicit(i), Some(h), None) => i.restore(state.clone(), h)?,
            (Stepper::StateSpace(ss), None, Some(snap)) => ss.restore(state, snap)?,
            _ => return Err("the snapshot was taken with another solver method".into()),
        }
        dae.mech.inputs.clone_from(&s.inputs);
        dae.invalidate_caches();
        self.steps = s.steps;
        self.last_iterations = s.last_iterations;
        self.total_iterations = s.total_iterations;
        Ok(())
    }

    /// Value of an output quantity at the current state.
    pub fn quantity(&self, q: mbfmu_model::variables::Quantity) -> f64 {
        use mbfmu_model::variables::Quantity;
        match (q, &self.engine) {
            (Quantity::NewtonIterations, _) => f64::from(self.last_iterations),
            (Quantity::Steps, _) => self.steps as f64,
            (q, Engine::Index3 { dae, .. }) => dae.mech.quantity(q, self.state()),
            (q, Engine::Semirecursive(s)) => s.quantity(q),
        }
    }

    /// Dimensions of the equations (for reports): bodies, constraints, unknowns.
    pub fn dims(&self) -> (usize, usize, usize) {
        match &self.engine {
            Engine::Index3 { dae, .. } => {
                let m = &dae.mech;
                (m.n_bodies(), m.n_constraints(), dae.n_diff() + dae.n_alg())
            }
            Engine::Semirecursive(s) => (s.n_coordinates(), s.n_constraints(), s.n_unknowns()),
        }
    }
}
