//! The state-space formulation behind [`Formulation`]: construction, snapshots, and the
//! Model Exchange view of its ODE (continuous states [v; v'], derivatives [v'; v''], step
//! events that re-choose the partition; [Negrut1997, Sect. 1]).

use super::{AutoSwitch, Chart, Counters, Partition, StateSpace};
use crate::formulation::{from_bytes, to_bytes_into, Dims, Formulation, Meter, OdeSystem, Progress, StepCounters};
use crate::index3::{AssemblyReport, MechState, Mechanism};
use crate::inputs::InputSignals;
use crate::integrators::dense::DenseStep;
use crate::integrators::{FloorReport, NewtonSettings, StepError, StepStats};
use crate::settings::StateSpaceSettings;
use crate::BuildError;
use faer::Mat;
use mbfmu_model::format::Description;
use mbfmu_model::format::Quantity;
use serde::{Deserialize, Serialize};
use std::any::Any;

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
    pub auto: AutoSwitch,
    pub kappa0: f64,
    pub stale: bool,
    pub counters: Counters,
    /// The explicit pairs' step past the communication point, pending.
    pub dense: DenseStep,
}

/// [`StateSpaceSnapshot`] borrowed from the solver (the same bytes).
#[derive(Serialize)]
struct StateSpaceSnapshotView<'a> {
    chart: &'a Chart,
    partition: &'a Partition,
    base: &'a MechState,
    y: &'a [f64],
    a: &'a [f64],
    anchor: &'a [f64],
    d_v: Columns<'a>,
    d_vd: Columns<'a>,
    jacobian_stale: bool,
    h_next: f64,
    auto: AutoSwitch,
    kappa0: f64,
    stale: bool,
    counters: Counters,
    dense: &'a DenseStep,
}

/// A matrix serialized as the sequence of its entries column by column (as [`to_vec`]).
struct Columns<'a>(&'a Mat<f64>);

impl Serialize for Columns<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let m = self.0;
        let mut seq = serializer.serialize_seq(Some(m.nrows() * m.ncols()))?;
        for j in 0..m.ncols() {
            for i in 0..m.nrows() {
                seq.serialize_element(&m[(i, j)])?;
            }
        }
        seq.end()
    }
}

/// The entries of `m` column by column into `v` (storage reused).
fn copy_columns(m: &Mat<f64>, v: &mut Vec<f64>) {
    v.clear();
    for j in 0..m.ncols() {
        v.extend((0..m.nrows()).map(|i| m[(i, j)]));
    }
}

fn to_vec(m: &Mat<f64>) -> Vec<f64> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    copy_columns(m, &mut v);
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
            auto: self.auto,
            kappa0: self.kappa0,
            stale: self.stale,
            counters: self.counters,
            dense: self.dense.clone(),
        }
    }

    /// The snapshot, borrowed (for serialization without copies).
    fn snapshot_view(&self) -> StateSpaceSnapshotView<'_> {
        StateSpaceSnapshotView {
            chart: &self.chart,
            partition: &self.red.partition,
            base: &self.base,
            y: &self.y,
            a: &self.a,
            anchor: self.red.anchor(),
            d_v: Columns(&self.jac.d_v),
            d_vd: Columns(&self.jac.d_vd),
            jacobian_stale: self.jac.stale,
            h_next: self.h_next,
            auto: self.auto,
            kappa0: self.kappa0,
            stale: self.stale,
            counters: self.counters,
            dense: &self.dense,
        }
    }

    /// [`StateSpace::snapshot`] into `s`, reusing its storage (a checkpoint per step).
    pub fn save_into(&self, s: &mut StateSpaceSnapshot) {
        s.chart.reference.clone_from(&self.chart.reference);
        s.partition.dependent.clone_from(&self.red.partition.dependent);
        s.partition.independent.clone_from(&self.red.partition.independent);
        s.base.clone_from(&self.base);
        s.y.clone_from(&self.y);
        s.a.clone_from(&self.a);
        s.anchor.clear();
        s.anchor.extend_from_slice(self.red.anchor());
        copy_columns(&self.jac.d_v, &mut s.d_v);
        copy_columns(&self.jac.d_vd, &mut s.d_vd);
        s.jacobian_stale = self.jac.stale;
        s.h_next = self.h_next;
        s.auto = self.auto;
        s.kappa0 = self.kappa0;
        s.stale = self.stale;
        s.counters = self.counters;
        s.dense.clone_from(&self.dense);
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
            || !s.dense.fits(self.dense.len())
        {
            return Err("the snapshot does not belong to this model's state-space solver".into());
        }
        self.load(current, s);
        Ok(())
    }

    /// Returns to a snapshot of this solver that fits (checked by [`StateSpace::restore`], or
    /// saved by [`StateSpace::save_into`]), reusing the storage.
    pub fn load(&mut self, current: &MechState, s: &StateSpaceSnapshot) {
        self.chart.reference.clone_from(&s.chart.reference);
        self.red.set_partition_from(&s.partition);
        self.red.set_anchor_to(&s.anchor);
        self.base.clone_from(&s.base);
        self.current.clone_from(current);
        self.y.copy_from_slice(&s.y);
        self.a.copy_from_slice(&s.a);
        from_vec(&mut self.jac.d_v, &s.d_v);
        from_vec(&mut self.jac.d_vd, &s.d_vd);
        self.jac.stale = s.jacobian_stale;
        self.h_next = s.h_next;
        self.auto = s.auto;
        self.kappa0 = s.kappa0;
        self.counters = s.counters;
        self.dense.clone_from(&s.dense);
        // `current` is exact; the reduced equations are evaluated again when needed.
        self.stale = s.stale;
        self.evaluated = false;
    }

    /// Inputs or parameters of the current point changed: the next step starts from the
    /// current state evaluated with them (a step pending past it is dropped).
    pub fn invalidate(&mut self) {
        // The pending step's base is behind the current point; the restart starts at it (the
        // work up to it was done under the inputs before the change).
        self.drop_pending();
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

/// A mechanism in the state-space formulation with its integrator.
pub struct StateSpaceFormulation {
    pub(super) mech: Mechanism,
    pub(super) solver: StateSpace,
    pub(super) settings: StateSpaceSettings,
    /// What assembly of the initial conditions changed.
    pub assembly: AssemblyReport,
    /// The last checkpoint ([`Formulation::checkpoint`]).
    saved: Option<Box<Snapshot>>,
    output_scratch: std::cell::RefCell<crate::index3::OutputScratch>,
}

/// The snapshot of [`StateSpaceFormulation`].
#[derive(Serialize, Deserialize)]
struct Snapshot {
    state: MechState,
    solver: StateSpaceSnapshot,
    inputs: InputSignals,
}

/// [`Snapshot`] borrowed from the formulation (the same bytes).
#[derive(Serialize)]
struct SnapshotView<'a> {
    state: &'a MechState,
    solver: StateSpaceSnapshotView<'a>,
    inputs: &'a InputSignals,
}

impl StateSpaceFormulation {
    /// Compiles the description, assembles consistent initial conditions and chooses the
    /// first coordinate partition.
    pub fn new(d: &Description, settings: StateSpaceSettings) -> Result<Self, BuildError> {
        let mech = Mechanism::from_description(d).map_err(BuildError::Compile)?;
        let mut state = mech.initial.clone();
        let assembly = mech.assemble(&mut state).map_err(BuildError::Assembly)?;
        let solver = StateSpace::new(&mech, state, settings.method.get(), settings.control, &settings.newton)
            .map_err(|e| BuildError::Solver(format!("state-space formulation: {e}")))?;
        let output_scratch = crate::index3::OutputScratch::new(&mech, None);
        Ok(StateSpaceFormulation { mech, solver, settings, assembly, saved: None, output_scratch })
    }

    /// The state-space solver (partition, charts, counters).
    pub fn solver(&self) -> &StateSpace {
        &self.solver
    }

    pub fn settings(&self) -> &StateSpaceSettings {
        &self.settings
    }
}

impl Formulation for StateSpaceFormulation {
    fn model_name(&self) -> &str {
        &self.mech.name
    }

    fn time(&self) -> f64 {
        self.solver.state().t
    }

    fn state(&self) -> &MechState {
        self.solver.state()
    }

    fn inputs(&self) -> &InputSignals {
        &self.mech.inputs
    }

    /// A changed input changes the ODE's right-hand side at the current point: the state is
    /// evaluated again before derivatives are read (Model Exchange) or a step starts.
    fn change_inputs(&mut self, change: &mut dyn FnMut(&mut InputSignals)) -> Result<(), String> {
        change(&mut self.mech.inputs);
        if self.mech.inputs.take_changed() {
            self.solver.invalidate();
        }
        Ok(())
    }

    fn step_size(&self) -> f64 {
        self.settings.step_size
    }

    fn step_to(&mut self, target: f64) -> Result<StepStats, StepError> {
        self.solver.advance_to(&self.mech, target, &self.settings, &mut Meter::unlimited())?;
        Ok(StepStats { iterations: self.solver.counters.last_iterations, ..StepStats::default() })
    }

    /// The formulation's own steps decide: a negligible step is one constant step.
    fn shift_to(&mut self, target: f64) -> Result<StepStats, StepError> {
        self.step_to(target)
    }

    /// The formulation's own stepping (variable-step methods choose their steps).
    fn advance_to(
        &mut self,
        t_end: f64,
        counters: &mut StepCounters,
        meter: &mut Meter,
    ) -> Result<Progress, StepError> {
        let result = self.solver.advance_to(&self.mech, t_end, &self.settings, meter);
        let c = &self.solver.counters;
        *counters =
            StepCounters { steps: c.steps, last_iterations: c.last_iterations, total_iterations: c.total_iterations };
        result
    }

    fn own_step_control(&self) -> bool {
        true
    }

    /// An evaluation of the state-space ODE solves for the dependent positions by Newton and
    /// forms and factors the reduced mass matrix (Negrut et al., eqs. 9-12): four times the
    /// work units of one iteration-matrix evaluation of its size, the factor that puts the
    /// catalog's state-space models at the rates of the other formulations (the example
    /// `worst_case_do_step` prints them).
    fn evaluation_work(&self) -> u64 {
        4 * crate::formulation::matrix_evaluation_work(self.dims().unknowns)
    }

    fn take_notice(&mut self) -> Option<String> {
        self.solver.take_notice()
    }

    /// A step pending at the current point is dropped (the run restarts from it).
    fn set_dense_output(&mut self, on: bool) {
        self.settings.control.dense_output = on;
        self.solver.control.dense_output = on;
        self.solver.drop_pending();
    }

    fn floor_report(&self) -> FloorReport {
        self.solver.floor
    }

    fn quantity(&self, q: Quantity) -> f64 {
        self.mech.quantity(q, self.solver.state())
    }

    fn quantities(&self, quantities: &[Quantity], out: &mut [f64]) {
        let scratch = &mut self.output_scratch.borrow_mut();
        crate::index3::mechanism_quantities(&self.mech, self.solver.state(), quantities, out, scratch);
    }

    fn planned_quantities(&self, plan: &crate::output_plan::OutputPlan, out: &mut [f64]) {
        let scratch = &mut self.output_scratch.borrow_mut();
        crate::index3::mechanism_planned_quantities(&self.mech, self.solver.state(), plan, out, scratch);
    }

    fn quantity_rates(&self, quantities: &[Quantity], first: &mut [f64], second: &mut [f64]) {
        let scratch = &mut self.output_scratch.borrow_mut();
        crate::index3::mechanism_quantity_rates(&self.mech, self.solver.state(), quantities, first, second, scratch);
    }

    fn dims(&self) -> Dims {
        let m = &self.mech;
        let (nb, nc) = (m.n_bodies(), m.n_constraints());
        Dims { coordinates: nb, constraints: nc, unknowns: 6 * nb + nc }
    }

    fn snapshot_into(&self, bytes: &mut Vec<u8>) {
        let view =
            SnapshotView { state: self.solver.state(), solver: self.solver.snapshot_view(), inputs: &self.mech.inputs };
        to_bytes_into(&view, bytes);
    }

    fn checkpoint(&mut self) {
        match &mut self.saved {
            Some(saved) => {
                saved.state.clone_from(self.solver.state());
                self.solver.save_into(&mut saved.solver);
                saved.inputs.clone_from(&self.mech.inputs);
            }
            None => {
                self.saved = Some(Box::new(Snapshot {
                    state: self.solver.state().clone(),
                    solver: self.solver.snapshot(),
                    inputs: self.mech.inputs.clone(),
                }))
            }
        }
    }

    fn rollback(&mut self) -> Result<(), String> {
        let saved = self.saved.as_ref().ok_or("no checkpoint to return to")?;
        self.solver.load(&saved.state, &saved.solver);
        self.mech.inputs.clone_from(&saved.inputs);
        Ok(())
    }

    /// Nothing cached: the solver's state is all there is (and it steps under its own control,
    /// so every checkpoint is copied).
    fn forget_failed_step(&mut self) -> Result<(), String> {
        Ok(())
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        let s: Snapshot = from_bytes(bytes)?;
        let m = &self.mech;
        if !m.holds(&s.state) || !s.inputs.fits(m.inputs.len()) {
            return Err("the snapshot does not belong to this model".into());
        }
        self.solver.restore(&s.state, &s.solver)?;
        self.mech.inputs.clone_from(&s.inputs);
        Ok(())
    }

    fn assembly(&self) -> &AssemblyReport {
        &self.assembly
    }

    fn mechanism(&self) -> Option<&Mechanism> {
        Some(&self.mech)
    }

    fn ode(&mut self) -> Option<&mut dyn OdeSystem> {
        Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl OdeSystem for StateSpaceFormulation {
    fn len(&self) -> usize {
        self.solver.ode_len()
    }

    fn state(&self, x: &mut [f64]) {
        self.solver.ode_state(x);
    }

    fn state_value(&self, index: usize) -> f64 {
        self.solver.y.get(index).copied().unwrap_or(f64::NAN)
    }

    fn set_time(&mut self, t: f64) {
        self.solver.set_ode_time(t);
    }

    fn set_state(&mut self, x: &[f64]) {
        self.solver.set_ode_state(x);
    }

    fn evaluate(&mut self) -> Result<(), StepError> {
        self.solver.ode_evaluate(&self.mech, &self.settings.newton)
    }

    fn derivatives(&mut self, dx: &mut [f64]) -> Result<(), StepError> {
        self.solver.ode_derivatives(&self.mech, &self.settings.newton, dx)
    }

    fn derivative_value(&mut self, index: usize) -> Result<f64, StepError> {
        let s = &mut self.solver;
        s.ode_evaluate(&self.mech, &self.settings.newton)?;
        let nd = s.dof();
        Ok(if index < nd { s.y[nd + index] } else { s.a.get(index - nd).copied().unwrap_or(f64::NAN) })
    }

    fn completed_step(&mut self, counters: &mut StepCounters) -> Result<bool, StepError> {
        let event = self.solver.ode_completed_step(&self.mech, &self.settings.newton)?;
        counters.steps = self.solver.counters.steps;
        Ok(event)
    }

    fn event(&mut self) -> Result<bool, StepError> {
        self.solver.ode_event(&self.mech, &self.settings.newton)
    }

    fn partial_column(
        &mut self,
        known: crate::partials::Known,
        quantities: &[Quantity],
        outputs: bool,
        column: &mut crate::partials::Column,
    ) -> Result<(), StepError> {
        self.ode_partial_column(known, quantities, outputs, column)
    }
}
