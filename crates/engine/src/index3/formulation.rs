//! The index-3 formulation behind [`Formulation`]: the mechanism's DAE with the half-implicit
//! method of \[Fang2023\] (tied to this formulation) or any method of the residual-form suite.

use super::output_rates::mechanism_quantity_rates;
use super::planar::PlanarModel;
use super::planar_outputs::PlanarOutputs;
use super::{
    mechanism_planned_quantities, mechanism_quantities, AssemblyError, AssemblyReport, HalfImplicit, Index3Dae,
    MechState, Mechanism, OutputScratch,
};
use crate::formulation::{from_bytes, to_bytes_into, Dims, Formulation};
use crate::inputs::InputSignals;
use crate::integrators::{Checkpoint, DaeSystem, FloorReport, History, HistoryView, Integrator, StepError, StepStats};
use crate::settings::Index3Settings;
use crate::BuildError;
use mbfmu_model::format::Quantity;
use mbfmu_model::format::{ConstraintForm, Description, Method};
use serde::{Deserialize, Serialize};
use std::any::Any;

enum Stepper {
    HalfImplicit {
        hi: Box<HalfImplicit>,
        state: MechState,
    },
    /// Every method of the residual-form suite (BDF1 and \[Zhang2022\]'s integrators).
    Implicit(Box<Integrator<Index3Dae>>),
}

/// A mechanism in absolute coordinates with its integrator.
pub struct Index3Formulation {
    dae: Box<Index3Dae>,
    stepper: Stepper,
    settings: Index3Settings,
    /// What assembly of the initial conditions changed.
    pub assembly: AssemblyReport,
    saved: Saved,
    output_scratch: std::cell::RefCell<OutputScratch>,
}

/// The content of a snapshot, in storage sized at construction ([`Formulation::checkpoint`]).
enum Saved {
    HalfImplicit { state: MechState, inputs: InputSignals },
    Implicit { integrator: Box<Checkpoint<MechState>>, inputs: InputSignals },
}

/// [`Index3Snapshot`] borrowed from the formulation (the same bytes).
#[derive(Serialize)]
struct Index3SnapshotView<'a> {
    state: &'a MechState,
    history: Option<HistoryView<'a, MechState>>,
    inputs: &'a InputSignals,
}

/// The snapshot of [`Index3Formulation`].
#[derive(Serialize, Deserialize)]
struct Index3Snapshot {
    state: MechState,
    /// The integrator's history besides `state` (None for the half-implicit method).
    history: Option<History<MechState>>,
    inputs: InputSignals,
}

impl Index3Formulation {
    /// Compiles the description, assembles consistent initial conditions and starts the
    /// chosen integrator.
    pub fn new(d: &Description, settings: Index3Settings) -> Result<Self, BuildError> {
        let mech = Mechanism::from_description(d).map_err(BuildError::Compile)?;
        if settings.method.get() == Method::HalfImplicit && mech.has_mass_coupling() {
            return Err(BuildError::Solver(
                "the half-implicit method needs lumped beam inertia (its update inverts a block-diagonal mass matrix); choose another solver.method".into(),
            ));
        }
        let mut state = mech.initial.clone();
        let mut assembly = mech.assemble(&mut state).map_err(BuildError::Assembly)?;
        let held = mech
            .hydraulics
            .as_ref()
            .is_some_and(|h| h.circuit.cylinders.iter().any(|c| c.static_start && c.initial_force.is_none()));
        let mut dae = Box::new(Index3Dae::new(mech));
        if d.static_start || held {
            dae.static_equilibrium(&mut state).map_err(|e| BuildError::Assembly(AssemblyError::Static(e)))?;
            if let (Some(h), Some(c)) = (&dae.mech.hydraulics, &state.circuit) {
                h.circuit.check_supply(&c.p).map_err(|e| BuildError::Assembly(AssemblyError::Static(e)))?;
            }
            let positions = std::mem::take(&mut assembly);
            assembly = dae.mech.assemble(&mut state).map_err(BuildError::Assembly)?;
            assembly.initial_violation = positions.initial_violation;
            assembly.worst_constraint = positions.worst_constraint;
        }
        let inputs = dae.mech.inputs.clone();
        // The half-implicit method steps a planar mechanism in its in-plane unknowns; its
        // outputs then have planar kernels too (the same detection).
        let planar = (settings.method.get() == Method::HalfImplicit)
            .then(|| PlanarModel::detect(&dae.mech, &state).map(|p| PlanarOutputs::new(&dae.mech, p, &state)))
            .flatten();
        let (stepper, saved) = match settings.method.get() {
            Method::HalfImplicit => (
                Stepper::HalfImplicit { hi: Box::new(HalfImplicit::new(&dae.mech, &state)), state: state.clone() },
                Saved::HalfImplicit { state, inputs },
            ),
            method => {
                if settings.constraint_form == ConstraintForm::Ggl {
                    dae.stabilize();
                } else {
                    dae.use_planar_kernels(&state);
                }
                let mut integrator =
                    Box::new(Integrator::new(&*dae, method, settings.rho_inf, state).map_err(BuildError::Solver)?);
                integrator.keep_matrix(settings.keep_iteration_matrix);
                let saved = Saved::Implicit { integrator: Box::new(integrator.new_checkpoint()), inputs };
                (Stepper::Implicit(integrator), saved)
            }
        };
        let output_scratch = OutputScratch::new(&dae.mech, planar);
        Ok(Index3Formulation { dae, stepper, settings, assembly, saved, output_scratch })
    }

    pub fn settings(&self) -> &Index3Settings {
        &self.settings
    }

    /// The integrator's history besides the current state (None for the half-implicit
    /// method, which has none).
    pub fn history(&self) -> Option<History<MechState>> {
        match &self.stepper {
            Stepper::HalfImplicit { .. } => None,
            Stepper::Implicit(i) => Some(i.history()),
        }
    }
}

impl Formulation for Index3Formulation {
    fn model_name(&self) -> &str {
        &self.dae.mech.name
    }

    fn time(&self) -> f64 {
        self.state().t
    }

    fn state(&self) -> &MechState {
        match &self.stepper {
            Stepper::HalfImplicit { state, .. } => state,
            Stepper::Implicit(i) => i.state(),
        }
    }

    fn inputs(&self) -> &InputSignals {
        &self.dae.mech.inputs
    }

    /// Every evaluation reads the inputs afresh: nothing to refresh.
    fn change_inputs(&mut self, change: &mut dyn FnMut(&mut InputSignals)) -> Result<(), String> {
        change(&mut self.dae.mech.inputs);
        self.dae.mech.inputs.take_changed();
        Ok(())
    }

    fn step_size(&self) -> f64 {
        self.settings.step_size
    }

    fn step_to(&mut self, target: f64) -> Result<StepStats, StepError> {
        match &mut self.stepper {
            Stepper::HalfImplicit { hi, state } => {
                let stats = hi.step(&self.dae.mech, state, target - state.t, &self.settings.newton)?;
                state.t = target;
                Ok(stats)
            }
            Stepper::Implicit(i) => i.step_to(&mut *self.dae, target, &self.settings.newton),
        }
    }

    /// What the system holds may come from another trajectory (a restored state, a
    /// rolled-back step), and a run continued from a snapshot must factor where the original
    /// run did: each communication step starts with a fresh iteration matrix.
    fn begin_communication_step(&mut self) {
        if let Stepper::Implicit(i) = &mut self.stepper {
            i.forget_matrix();
        }
    }

    fn shift_to(&mut self, target: f64) -> Result<StepStats, StepError> {
        match &mut self.stepper {
            Stepper::HalfImplicit { state, .. } => {
                self.dae.mech.drift(state, target - state.t);
                state.t = target;
                Ok(StepStats::default())
            }
            Stepper::Implicit(i) => i.shift_to(&mut *self.dae, target),
        }
    }

    fn floor_report(&self) -> FloorReport {
        match &self.stepper {
            Stepper::HalfImplicit { hi, .. } => hi.floor,
            Stepper::Implicit(i) => i.floor_report(),
        }
    }

    fn quantity(&self, q: Quantity) -> f64 {
        self.dae.mech.quantity(q, self.state())
    }

    fn quantities(&self, quantities: &[Quantity], out: &mut [f64]) {
        let scratch = &mut self.output_scratch.borrow_mut();
        mechanism_quantities(&self.dae.mech, self.state(), quantities, out, scratch);
    }

    fn planned_quantities(&self, plan: &crate::output_plan::OutputPlan, out: &mut [f64]) {
        let scratch = &mut self.output_scratch.borrow_mut();
        mechanism_planned_quantities(&self.dae.mech, self.state(), plan, out, scratch);
    }

    fn quantity_rates(&self, quantities: &[Quantity], first: &mut [f64], second: &mut [f64]) {
        let scratch = &mut self.output_scratch.borrow_mut();
        mechanism_quantity_rates(&self.dae.mech, self.state(), quantities, first, second, scratch);
    }

    /// The half-implicit method's linear algebra (its Schur complements) grows linearly with
    /// the unknowns, the iteration matrix of the implicit suite with their square.
    fn evaluation_work(&self) -> u64 {
        let n = self.dims().unknowns;
        match &self.stepper {
            Stepper::HalfImplicit { .. } => crate::formulation::linear_evaluation_work(n),
            Stepper::Implicit(_) => crate::formulation::matrix_evaluation_work(n),
        }
    }

    /// The implicit suite's modified Newton iterations on a factored matrix: residual and
    /// solve.
    fn reuse_work(&self) -> u64 {
        match &self.stepper {
            Stepper::HalfImplicit { .. } => self.evaluation_work(),
            Stepper::Implicit(_) => crate::formulation::matrix_reuse_work(self.dims().unknowns),
        }
    }

    fn dims(&self) -> Dims {
        let m = &self.dae.mech;
        Dims {
            coordinates: m.n_bodies(),
            constraints: m.n_constraints(),
            unknowns: self.dae.n_diff() + self.dae.n_alg(),
        }
    }

    fn snapshot_into(&self, bytes: &mut Vec<u8>) {
        let history = match &self.stepper {
            Stepper::HalfImplicit { .. } => None,
            Stepper::Implicit(i) => Some(i.history_view()),
        };
        to_bytes_into(&Index3SnapshotView { state: self.state(), history, inputs: &self.dae.mech.inputs }, bytes);
    }

    fn checkpoint(&mut self) {
        match (&self.stepper, &mut self.saved) {
            (Stepper::HalfImplicit { state, .. }, Saved::HalfImplicit { state: saved, inputs }) => {
                saved.clone_from(state);
                inputs.clone_from(&self.dae.mech.inputs);
            }
            (Stepper::Implicit(i), Saved::Implicit { integrator, inputs }) => {
                i.save(integrator);
                inputs.clone_from(&self.dae.mech.inputs);
            }
            // The checkpoint is made for the stepper at construction: never taken.
            _ => {}
        }
    }

    fn rollback(&mut self) -> Result<(), String> {
        match (&mut self.stepper, &self.saved) {
            (Stepper::HalfImplicit { state, .. }, Saved::HalfImplicit { state: saved, inputs }) => {
                state.clone_from(saved);
                self.dae.mech.inputs.clone_from(inputs);
            }
            (Stepper::Implicit(i), Saved::Implicit { integrator, inputs }) => {
                i.load(integrator);
                self.dae.mech.inputs.clone_from(inputs);
            }
            _ => return Err("the checkpoint belongs to another solver method".into()),
        }
        self.dae.invalidate_caches();
        Ok(())
    }

    fn forget_failed_step(&mut self) -> Result<(), String> {
        self.dae.invalidate_caches();
        Ok(())
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        let s: Index3Snapshot = from_bytes(bytes)?;
        let m = &self.dae.mech;
        let previous = s.history.as_ref().map_or(&[][..], |h| &h.previous[..]);
        if !m.holds(&s.state) || !previous.iter().all(|p| m.holds(p)) || !s.inputs.fits(m.inputs.len()) {
            return Err("the snapshot does not belong to this model".into());
        }
        match (&mut self.stepper, &s.history) {
            (Stepper::HalfImplicit { state: current, .. }, None) => current.clone_from(&s.state),
            (Stepper::Implicit(i), Some(h)) => i.restore(s.state, h)?,
            _ => return Err("the snapshot was taken with another solver method".into()),
        }
        self.dae.mech.inputs.clone_from(&s.inputs);
        self.dae.invalidate_caches();
        Ok(())
    }

    fn assembly(&self) -> &AssemblyReport {
        &self.assembly
    }

    fn mechanism(&self) -> Option<&Mechanism> {
        Some(&self.dae.mech)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formulation::{Formulation, Meter, StepCounters};

    /// How the Newton matrix of a run is solved.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Path {
        /// In the in-plane unknowns (`planar_dae.rs`).
        Planar,
        /// Through the per-body Schur complement.
        Schur,
        /// The whole matrix's LU.
        Whole,
    }

    /// A run of the double pendulum to 2 s at h = 1 ms, its Newton matrix solved by `path`.
    fn pendulum(method: Method, rho_inf: f64, path: Path) -> MechState {
        let json = mbfmu_model::catalog::find("DoublePendulum").expect("catalog").json;
        let mut d = mbfmu_model::format::parse(json).expect("valid");
        d.solver.method = method;
        d.solver.rho_inf = rho_inf;
        d.solver.step_size = 1e-3;
        let mut f = Index3Formulation::new(&d, Index3Settings::of(&d.solver).expect("settings")).expect("builds");
        assert!(f.dae.schur.is_some() && f.dae.is_planar(), "the pendulum takes the planar and the Schur paths");
        if path != Path::Planar {
            f.dae.planar = None;
        }
        if path == Path::Whole {
            f.dae.schur = None;
        }
        f.advance_to(2.0, &mut StepCounters::default(), &mut Meter::unlimited()).expect("runs");
        f.state().clone()
    }

    /// The planar and the Schur paths change the implicit methods' results by round-off
    /// only: positions within 1e-10 m and velocities within 1e-9 m/s of the whole-matrix LU
    /// after 2000 steps, accelerations and multipliers within 1e-6 relative (they carry the
    /// round-off of the multi-step and multi-stage methods: up to 3.2e-8 on either path). With
    /// rho_inf = 0 as well: the predictors of LMS2 and LMS3 carried round-off out of the plane
    /// into a growing rotation when the planar path left the out-of-plane accelerations
    /// uncorrected (LMS2 diverged at 0.17 s); the angular velocities stay in the plane.
    #[test]
    fn planar_and_schur_paths_run_as_the_whole_matrix() {
        let cases = [
            (Method::Bdf1, 0.0),
            (Method::Lms2, 0.6),
            (Method::Lms2, 0.0),
            (Method::Lms3, 0.6),
            (Method::Lms3, 0.0),
            (Method::Esdirk324L2Sa, 0.0),
            (Method::Mssth3, 0.0),
            (Method::Bathe, 0.6),
            (Method::Bathe, 0.0),
        ];
        for (method, rho) in cases {
            let whole = pendulum(method, rho, Path::Whole);
            for path in [Path::Planar, Path::Schur] {
                let a = pendulum(method, rho, path);
                for (x, y) in a.bodies.iter().zip(&whole.bodies) {
                    let (dr, dv) = ((x.r - y.r).norm(), (x.v - y.v).norm());
                    let (da, dw) = ((x.acc - y.acc).norm() / y.acc.norm(), (x.wdot - y.wdot).norm() / y.wdot.norm());
                    // The angular velocity's part off the joints' axis (global x).
                    let off_axis = (x.rot * x.w).yz().norm();
                    println!(
                        "{method:?} rho {rho} {path:?}: |dr| = {dr:.1e} m, |dv| = {dv:.1e} m/s, acc {da:.1e}, wdot {dw:.1e}, w off the axis {off_axis:.1e}"
                    );
                    assert!(dr < 1e-10 && dv < 1e-9 && da < 1e-6 && dw < 1e-6, "{method:?} {path:?}: {dr} m, {dv} m/s");
                    assert!(off_axis < 1e-12, "{method:?} {path:?}: angular velocity {off_axis} rad/s off the axis");
                }
                let scale = whole.lambda.iter().fold(0.0f64, |m, l| m.max(l.abs()));
                for (l, w) in a.lambda.iter().zip(&whole.lambda) {
                    assert!((l - w).abs() < 1e-6 * scale, "{method:?} {path:?}: lambda {l} vs {w}");
                }
            }
        }
    }

    /// Every catalog model of the index-3 formulation that takes the planar Newton iteration
    /// under an implicit method runs as on the spatial path, to round-off: bodies within 1e-9
    /// m and 1e-8 m/s after 0.5 s of lms2 at its own step.
    #[test]
    fn catalog_models_on_the_planar_path_run_as_on_the_spatial_one() {
        let mut planar = Vec::new();
        for e in mbfmu_model::catalog::CATALOG.iter() {
            let mut d = mbfmu_model::format::parse(e.json).expect("catalog models are valid");
            if d.solver.formulation != mbfmu_model::format::Formulation::Index3 {
                continue;
            }
            d.solver.method = Method::Lms2;
            let build =
                || Index3Formulation::new(&d, Index3Settings::of(&d.solver).expect("settings")).expect("builds");
            let (mut a, mut b) = (build(), build());
            if !a.dae.is_planar() {
                continue;
            }
            planar.push(e.name);
            b.dae.planar = None;
            for f in [&mut a, &mut b] {
                f.advance_to(0.5, &mut StepCounters::default(), &mut Meter::unlimited()).expect("runs");
            }
            for (x, y) in a.state().bodies.iter().zip(&b.state().bodies) {
                let (dr, dv) = ((x.r - y.r).norm(), (x.v - y.v).norm());
                assert!(dr < 1e-9 && dv < 1e-8, "{}: {dr} m, {dv} m/s", e.name);
            }
        }
        println!("on the planar path: {planar:?}");
        assert!(planar.contains(&"DoublePendulum"), "the double pendulum is planar: {planar:?}");
    }
}
