//! Model Exchange of the semirecursive formulations (\[Jaiswal2021\]): the double-step equations of
//! motion and the circuit as an ODE x' = f(t, x, u) that a host integrates.
//!
//! Continuous states x = [z^i; z'^i; p; U; W; W_c] ([`Layout`]):
//! - z^i, z'^i: the independent coordinates of the double-step partition and their rates
//!   (Sect. 2.2): the dependent coordinates follow from Phi(z) = 0 by Newton from the last
//!   completed step, the dependent rates from eq. (13);
//! - p: the volumes' pressures (eq. 22); U: the spool positions (eq. 27);
//! - W: the work of the non-conservative forces (models with bodies) and W_c: the work of each
//!   cylinder. These outputs are integrals of the state; co-simulation integrates them with
//!   the trapezoidal rule over its steps, Model Exchange hands them to the host's integrator.
//!
//! Derivatives f = [z'^i; z''^i; h(p, z, z'); (U_ref - U)/tau; power; F_c s'_c], where z''^i
//! solves M'' z''^i = Q'' (eqs. 16-17: M'' = R_z^T M' R_z, Q'' = -R_z^T (M' z''_0 - Q') with
//! z''_0 the accelerations at z''^i = 0, eq. 15) with the cylinder forces of the pressures
//! (eq. 29), h is the circuit (eqs. 22-29), the spool law is eq. (27) with U_ref(t) the input
//! plus the work-cycle schedule (eqs. 46-47).
//!
//! Both `solver.formulation` items give this ODE: the penalty factor, the multiplier update
//! (eq. 19) and the projections (eqs. 20-21) belong to the trapezoidal step of co-simulation
//! (eq. 36), not to the equations of motion a host integrates.
//!
//! Events: the partition is re-chosen at a step event (`CompletedIntegratorStep` asks for
//! event mode when the smallest pivot of Phi_z^d fell below half of what full pivoting
//! achieved, as co-simulation does after a step); the event changes the states' meaning, not
//! the mechanism. The circuit's kinks (laminar-turbulent transitions, the spool's zero:
//! `hydraulics::switching`) are state events with event indicators; the work-cycle schedule
//! switches are time events.

use super::step::REPARTITION;
use super::Semirecursive;
use crate::formulation::{OdeSystem, StepCounters};
use crate::integrators::StepError;
use crate::linalg::SmallLu;
use crate::partials::{Column, Known};
use mbfmu_model::format::Quantity;
use serde::{Deserialize, Serialize};

/// Where each block of the continuous states starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Independent coordinates (degrees of freedom).
    pub dof: usize,
    pub pressures: usize,
    pub spools: usize,
    /// 1 when the work of the non-conservative forces is a state (models with bodies).
    pub work: usize,
    pub cylinders: usize,
}

impl Layout {
    pub fn len(&self) -> usize {
        2 * self.dof + self.pressures + self.spools + self.work + self.cylinders
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn velocities(&self) -> usize {
        self.dof
    }

    pub fn pressure(&self) -> usize {
        2 * self.dof
    }

    pub fn spool(&self) -> usize {
        self.pressure() + self.pressures
    }

    pub fn work_state(&self) -> usize {
        self.spool() + self.spools
    }

    pub fn cylinder_work(&self) -> usize {
        self.work_state() + self.work
    }
}

/// The Model Exchange view: the host's point and its evaluation, allocated once.
#[derive(Clone, Debug)]
pub(super) struct Ode {
    pub layout: Layout,
    /// The host drives the state (a Model Exchange instance); before, the view reads the
    /// co-simulation state and evaluates nothing.
    pub active: bool,
    /// Time, states or inputs changed since the last evaluation.
    pub stale: bool,
    pub x: Vec<f64>,
    pub dx: Vec<f64>,
    /// Newton start of the dependent coordinates: z at the last completed step or event.
    pub anchor: Vec<f64>,
    /// Smallest pivot of Phi_z^d at the current point.
    pub pivot: f64,
    /// R_z (eq. 14), N x dof row-major, and the LU of M'' = R_z^T M' R_z at the current point.
    pub rz: Vec<f64>,
    pub reduced: SmallLu,
    /// R_z^T Q' at z''^i = 0 (then z''^i), and dof scratch.
    pub rhs: Vec<f64>,
    pub tmp: Vec<f64>,
    /// d p'/d U, pressures x spools row-major (`ode_partials.rs`).
    pub by_spool: Vec<f64>,
    /// The step of the differences in the rate column being formed (`ode_partials.rs`).
    pub velocity_step: f64,
    /// The work-cycle value of each spool's schedule since the last event (eqs. 46-47 are
    /// piecewise constant; their switches are time events, so between events the schedule is
    /// a discrete state and the ODE is smooth in time).
    pub schedule: Vec<f64>,
}

/// What a Model Exchange FMU state holds beyond the formulation's own snapshot: the host's
/// point (possibly not evaluated yet) and the Newton start.
#[derive(Serialize, Deserialize)]
pub(super) struct OdeSnapshot {
    pub x: Vec<f64>,
    pub anchor: Vec<f64>,
    pub schedule: Vec<f64>,
}

/// [`OdeSnapshot`] borrowed (the same bytes).
#[derive(Serialize)]
pub(super) struct OdeSnapshotView<'a> {
    pub x: &'a [f64],
    pub anchor: &'a [f64],
    pub schedule: &'a [f64],
}

impl Ode {
    pub fn new(layout: Layout, n: usize) -> Ode {
        let nx = layout.len();
        Ode {
            layout,
            active: false,
            stale: false,
            x: vec![0.0; nx],
            dx: vec![0.0; nx],
            anchor: vec![0.0; n],
            pivot: f64::INFINITY,
            rz: vec![0.0; n * layout.dof],
            reduced: SmallLu::new(layout.dof),
            rhs: vec![0.0; layout.dof],
            tmp: vec![0.0; layout.dof],
            by_spool: vec![0.0; layout.pressures * layout.spools],
            velocity_step: 0.0,
            schedule: vec![0.0; layout.spools],
        }
    }
}

impl Semirecursive {
    /// The state vector's layout of this model.
    pub fn ode_layout(&self) -> Layout {
        self.ode.layout
    }

    /// The continuous states of the current co-simulation state (or of the host's point).
    fn read_states(&self, x: &mut [f64]) {
        let l = self.ode.layout;
        let st = &self.state;
        for (k, &j) in st.independent.iter().enumerate() {
            x[k] = st.z[j];
            x[l.velocities() + k] = st.zd[j];
        }
        x[l.pressure()..l.spool()].copy_from_slice(&st.p);
        x[l.spool()..l.work_state()].copy_from_slice(&st.spools);
        if l.work == 1 {
            x[l.work_state()] = st.work;
        }
        x[l.cylinder_work()..].copy_from_slice(&st.cylinder_work);
    }

    /// Makes the host's point the current one (Model Exchange), starting from the current
    /// state.
    pub(super) fn activate(&mut self) {
        if self.ode.active {
            return;
        }
        let mut x = std::mem::take(&mut self.ode.x);
        self.read_states(&mut x);
        self.ode.x = x;
        self.ode.anchor.copy_from_slice(&self.state.z);
        self.ode.active = true;
        self.ode.stale = true;
        self.update_schedule();
    }

    /// The work cycles' values from the current time on (an event).
    fn update_schedule(&mut self) {
        let t = self.state.t;
        if let Some(c) = &self.tree.circuit {
            for (s, v) in self.ode.schedule.iter_mut().zip(&c.valves) {
                *s = v.reference.cycle_value(t);
            }
        }
    }

    /// U_ref of spool `k` at time `t`: the input plus the work cycle's value since the last
    /// event ([Jaiswal2021, eqs. 46-47]).
    fn reference_now(&self, k: usize, t: f64) -> f64 {
        self.tree.circuit.as_ref().map_or(0.0, |c| {
            let v = &c.valves[k];
            v.input.map_or(0.0, |i| self.inputs.at(i, t)) + v.reference.work_cycle * self.ode.schedule[k]
        })
    }

    /// Evaluates the ODE at the host's point if it moved: dependent coordinates and rates,
    /// the reduced equations of motion, the circuit, the spools and the powers; the point
    /// becomes the current state (outputs read it).
    pub(super) fn ode_evaluate(&mut self) -> Result<(), StepError> {
        if !(self.ode.active && self.ode.stale) {
            return Ok(());
        }
        let t = self.state.t;
        let l = self.ode.layout;
        let n = self.tree.n_coordinates();
        let m = self.tree.n_constraints();
        self.load_partition();
        {
            let (w, ode) = (&mut self.w, &self.ode);
            w.z.copy_from_slice(&ode.anchor);
            for (k, &j) in w.ind.iter().enumerate() {
                w.z[j] = ode.x[k];
                w.zd[j] = ode.x[l.velocities() + k];
            }
            w.zdd.fill(0.0);
            w.p.copy_from_slice(&ode.x[l.pressure()..l.spool()]);
            w.spools.copy_from_slice(&ode.x[l.spool()..l.work_state()]);
        }
        if m > 0 {
            self.solve_positions_to(t, true)?;
        } else {
            self.w.positions(&self.tree);
        }
        self.tree.gimbal_check(t, &self.w.z)?;
        // Eq. (13), and eq. (15) with z''^i = 0: the accelerations z''_0.
        self.dependent_rates();
        // The inputs as the host set them now (a cylinder fed by inputs takes them as given).
        self.state.input_time = t;
        let power = self.dynamics(t)?;
        self.reduced_accelerations(t)?;
        {
            let (w, ode) = (&mut self.w, &self.ode);
            for (k, &j) in w.ind.iter().enumerate() {
                w.zdd[j] = ode.rhs[k];
            }
        }
        self.dependent_rates();
        let pivot = if m > 0 { self.w.lu_dep.min_pivot } else { f64::INFINITY };
        // Commit: the point becomes the current state.
        for k in 0..l.spools {
            self.w.references[k] = self.reference_now(k, t);
        }
        let st = &mut self.state;
        let w = &self.w;
        st.z.copy_from_slice(&w.z[..n]);
        st.zd.copy_from_slice(&w.zd[..n]);
        st.zdd.copy_from_slice(&w.zdd[..n]);
        st.p.copy_from_slice(&w.p);
        st.pd.copy_from_slice(&w.h);
        st.spools.copy_from_slice(&w.spools);
        st.references.copy_from_slice(&w.references);
        if l.work == 1 {
            st.work = self.ode.x[l.work_state()];
        }
        st.cylinder_work.copy_from_slice(&self.ode.x[l.cylinder_work()..]);
        self.store_cache(power);
        let ode = &mut self.ode;
        let st = &self.state;
        for (k, &j) in st.independent.iter().enumerate() {
            ode.dx[k] = st.zd[j];
            ode.dx[l.velocities() + k] = st.zdd[j];
        }
        ode.dx[l.pressure()..l.spool()].copy_from_slice(&st.pd);
        if let Some(c) = &self.tree.circuit {
            // Eq. (27).
            for (k, v) in c.valves.iter().enumerate() {
                ode.dx[l.spool() + k] = (st.references[k] - st.spools[k]) / v.time_constant;
            }
        }
        if l.work == 1 {
            ode.dx[l.work_state()] = self.power;
        }
        ode.dx[l.cylinder_work()..].copy_from_slice(&self.cylinder_power);
        if !ode.dx.iter().all(|v| v.is_finite()) {
            return Err(StepError::NonFinite { time: t, what: "state derivatives".into() });
        }
        ode.pivot = pivot;
        ode.stale = false;
        Ok(())
    }

    /// Eqs. (14), (16)-(17): R_z into `ode.rz`, M'' = R_z^T M' R_z factored into
    /// `ode.reduced` and z''^i = -M''^-1 R_z^T (M' z''_0 - Q') into `ode.rhs`, at the
    /// positions and rates of `w` after [`Semirecursive::dynamics`] with z''^i = 0.
    fn reduced_accelerations(&mut self, t: f64) -> Result<(), StepError> {
        let n = self.tree.n_coordinates();
        let f = self.ode.layout.dof;
        let w = &mut self.w;
        let ode = &mut self.ode;
        let m = w.dep.len();
        if self.tree.articulated_applies() {
            // An open tree without a circuit: z'' by the O(N) recursion (`articulated.rs`);
            // R_z is the identity and no partial reads M'' (they belong to circuits).
            self.tree
                .articulated_accelerations(&w.kin, &w.wrenches, &mut w.articulated, &mut w.tmp_n)
                .map_err(|j| StepError::Singular {
                    time: t,
                    detail: format!(
                        "the articulated inertia of body '{}' along its joint axis is not positive (a singular configuration)",
                        self.tree.bodies[j].name
                    ),
                })?;
            for (k, &j) in w.ind.iter().enumerate() {
                ode.rhs[k] = w.tmp_n[j];
            }
            return Ok(());
        }
        for (k, &j) in w.ind.iter().enumerate() {
            for &i in &w.ind {
                ode.rz[i * f + k] = f64::from(u8::from(i == j));
            }
            if m > 0 {
                for r in 0..m {
                    w.tmp_m[r] = w.phiz[r * n + j];
                }
                w.lu_dep.solve(&mut w.tmp_m, &mut w.tmp_m2);
                for (r, &d) in w.dep.iter().enumerate() {
                    ode.rz[d * f + k] = -w.tmp_m[r];
                }
            }
        }
        self.tree.mass_matrix(&w.kin, &mut w.inertias, &mut w.mass);
        for a in 0..f {
            // (M' R_z)_{:,a} in tmp_n, then column a of R_z^T M' R_z.
            for i in 0..n {
                w.tmp_n[i] = (0..n).map(|j| w.mass[i * n + j] * ode.rz[j * f + a]).sum();
            }
            for b in 0..f {
                *ode.reduced.at(b, a) = (0..n).map(|i| ode.rz[i * f + b] * w.tmp_n[i]).sum();
            }
            ode.rhs[a] = -(0..n).map(|i| ode.rz[i * f + a] * w.res[i]).sum::<f64>();
        }
        if f > 0 && !ode.reduced.factor() {
            return Err(StepError::Singular {
                time: t,
                detail: "the reduced mass matrix M'' of Jaiswal et al. 2021 eq. (17) is singular".into(),
            });
        }
        if f > 0 {
            ode.reduced.solve(&mut ode.rhs, &mut ode.tmp);
        }
        Ok(())
    }

    /// A completed host step: its point becomes the Newton start of the next ones; true
    /// when the partition should be re-chosen (a step event).
    fn ode_completed_step(&mut self) -> Result<bool, StepError> {
        self.ode_evaluate()?;
        self.ode.anchor.copy_from_slice(&self.state.z);
        Ok(self.partition_degraded() || self.tree.needs_rebase(&self.state.z))
    }

    fn partition_degraded(&self) -> bool {
        self.tree.n_constraints() > 0 && self.ode.pivot < REPARTITION * self.state.pivot_reference
    }

    /// Event update: re-chooses the partition by full pivoting on Phi_z at the current
    /// point if it degraded ([Jaiswal2021, Sects. 2.2, 6.1]); true if the states changed meaning.
    fn ode_event(&mut self) -> Result<bool, StepError> {
        self.update_schedule();
        self.ode.stale = true;
        self.ode_evaluate()?;
        self.ode.anchor.copy_from_slice(&self.state.z);
        // A spherical tree joint near gimbal lock goes on in a new chart (`chart.rs`; the
        // partition is chosen again with it); else the partition is re-chosen if it degraded.
        if self.rebase_charts(self.state.t)? {
            self.ode.anchor.copy_from_slice(&self.state.z);
        } else {
            if !self.partition_degraded() {
                return Ok(false);
            }
            let w = &mut self.w;
            self.tree.positions(&self.state.z, &mut w.kin);
            w.constraint_rows(&self.tree);
            if !self.choose_partition(self.state.t)? {
                return Ok(false);
            }
        }
        // The same point in the new coordinates.
        let mut x = std::mem::take(&mut self.ode.x);
        self.read_states(&mut x);
        self.ode.x = x;
        self.ode.stale = true;
        self.ode_evaluate()?;
        Ok(true)
    }

    /// Continuous state `index` of the co-simulation state ([`Semirecursive::read_states`]).
    fn state_of(&self, index: usize) -> f64 {
        let l = self.ode.layout;
        let st = &self.state;
        match index {
            i if i < l.velocities() => st.z[st.independent[i]],
            i if i < l.pressure() => st.zd[st.independent[i - l.velocities()]],
            i if i < l.spool() => st.p[i - l.pressure()],
            i if i < l.work_state() => st.spools[i - l.spool()],
            i if i < l.cylinder_work() => st.work,
            i => st.cylinder_work.get(i - l.cylinder_work()).copied().unwrap_or(f64::NAN),
        }
    }

    /// The derivative of state `index` at the co-simulation state (a view that is not
    /// driven by a host: nothing is evaluated).
    fn derivative_of_state(&self, index: usize) -> f64 {
        let l = self.ode.layout;
        let st = &self.state;
        match index {
            i if i < l.velocities() => st.zd[st.independent[i]],
            i if i < l.pressure() => st.zdd[st.independent[i - l.velocities()]],
            i if i < l.spool() => st.pd[i - l.pressure()],
            i if i < l.work_state() => self.tree.circuit.as_ref().map_or(f64::NAN, |c| {
                let k = i - l.spool();
                c.spool_rates(k, st.spools[k], st.t, &self.inputs)[0]
            }),
            i if i < l.cylinder_work() => self.power,
            i => self.cylinder_power.get(i - l.cylinder_work()).copied().unwrap_or(f64::NAN),
        }
    }

    /// The inputs changed at the current time: a driven view evaluates again.
    pub(super) fn ode_inputs_changed(&mut self) {
        self.ode.stale = true;
    }

    /// The Model Exchange part of a snapshot (the host's point and the Newton start) appended
    /// to `bytes` when a host drives the view.
    pub(super) fn ode_snapshot_into(&self, bytes: &mut Vec<u8>) {
        if self.ode.active {
            let view = OdeSnapshotView { x: &self.ode.x, anchor: &self.ode.anchor, schedule: &self.ode.schedule };
            let buffer = std::mem::take(bytes);
            *bytes = postcard::to_extend(&view, buffer).expect("snapshots serialize");
        }
    }

    /// Checks the Model Exchange part of a snapshot (`rest`: the bytes after the
    /// formulation's own) without restoring it.
    pub(super) fn ode_check(&self, rest: &[u8]) -> Result<(), String> {
        if rest.is_empty() {
            return Ok(());
        }
        let s: OdeSnapshot = crate::formulation::from_bytes(rest)?;
        if s.x.len() != self.ode.x.len()
            || s.anchor.len() != self.ode.anchor.len()
            || s.schedule.len() != self.ode.schedule.len()
            || s.x.iter().chain(&s.schedule).any(|v| !v.is_finite())
        {
            return Err("the snapshot's continuous states do not belong to this model".into());
        }
        Ok(())
    }

    /// Restores the Model Exchange part of a snapshot checked by [`Semirecursive::ode_check`];
    /// an empty `rest` is a snapshot of an undriven view.
    pub(super) fn ode_restore(&mut self, rest: &[u8]) -> Result<(), String> {
        if rest.is_empty() {
            self.ode.active = false;
            return Ok(());
        }
        let s: OdeSnapshot = crate::formulation::from_bytes(rest)?;
        self.ode.x.copy_from_slice(&s.x);
        self.ode.anchor.copy_from_slice(&s.anchor);
        self.ode.schedule.copy_from_slice(&s.schedule);
        self.ode.active = true;
        self.ode.stale = true;
        Ok(())
    }
}

impl OdeSystem for Semirecursive {
    fn len(&self) -> usize {
        self.ode.layout.len()
    }

    fn activate(&mut self) {
        Semirecursive::activate(self);
    }

    fn state(&self, x: &mut [f64]) {
        if self.ode.active {
            x.copy_from_slice(&self.ode.x);
        } else {
            self.read_states(x);
        }
    }

    fn state_value(&self, index: usize) -> f64 {
        if self.ode.active {
            return self.ode.x.get(index).copied().unwrap_or(f64::NAN);
        }
        self.state_of(index)
    }

    fn set_time(&mut self, t: f64) {
        self.activate();
        if t != self.state.t {
            self.state.t = t;
            self.ode.stale = true;
        }
    }

    fn set_state(&mut self, x: &[f64]) {
        self.activate();
        if x != self.ode.x.as_slice() {
            self.ode.x.copy_from_slice(x);
            self.ode.stale = true;
        }
    }

    fn evaluate(&mut self) -> Result<(), StepError> {
        self.ode_evaluate()
    }

    fn derivatives(&mut self, dx: &mut [f64]) -> Result<(), StepError> {
        if !self.ode.active {
            for (i, d) in dx.iter_mut().enumerate() {
                *d = self.derivative_of_state(i);
            }
            return Ok(());
        }
        self.ode_evaluate()?;
        dx.copy_from_slice(&self.ode.dx);
        Ok(())
    }

    fn derivative_value(&mut self, index: usize) -> Result<f64, StepError> {
        if !self.ode.active {
            return Ok(self.derivative_of_state(index));
        }
        self.ode_evaluate()?;
        Ok(self.ode.dx.get(index).copied().unwrap_or(f64::NAN))
    }

    fn completed_step(&mut self, counters: &mut StepCounters) -> Result<bool, StepError> {
        let event = self.ode_completed_step()?;
        counters.steps += 1;
        Ok(event)
    }

    fn event(&mut self) -> Result<bool, StepError> {
        self.ode_event()
    }

    fn velocity_states(&self) -> std::ops::Range<usize> {
        let l = self.ode.layout;
        l.velocities()..l.pressure()
    }

    fn event_indicator_count(&self) -> usize {
        self.tree.circuit.as_ref().map_or(0, |c| c.event_indicator_count())
    }

    fn event_indicators(&mut self, z: &mut [f64]) -> Result<(), StepError> {
        self.ode_evaluate()?;
        // Sources whose pressure is an input: the inputs as the host set them now.
        self.inputs.values_at(self.state.t, &mut self.w.u);
        if let Some(c) = &self.tree.circuit {
            c.event_indicators(&self.state.p, &self.state.spools, &self.w.u, z);
        }
        Ok(())
    }

    fn next_time_event(&self) -> Option<f64> {
        self.tree.circuit.as_ref().and_then(|c| c.next_schedule_switch(self.state.t))
    }

    fn partial_column(
        &mut self,
        known: Known,
        quantities: &[Quantity],
        outputs: bool,
        column: &mut Column,
    ) -> Result<(), StepError> {
        self.ode_partial_column(known, quantities, outputs, column)
    }

    fn monitored_laws(&self) -> usize {
        self.ode_monitored_laws()
    }
}
