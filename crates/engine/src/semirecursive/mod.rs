//! Semirecursive formulations in relative joint coordinates, monolithically coupled with a
//! lumped-fluid hydraulic circuit ([Jaiswal2021, Sects. 2 and 4]):
//!
//! - the open tree's kinematics and dynamics (Sect. 2.1, eqs. 1-12): [`kinematics`], [`dynamics`];
//! - cut joints closing loops, Phi(z) = 0 ([`cuts`]), treated either by double-step coordinate
//!   partitioning (Sect. 2.2, eqs. 13-17) with independent coordinates chosen by Gaussian
//!   elimination with full pivoting and re-chosen when the partition degrades, or by the
//!   penalty-based augmented Lagrangian with mass-damping-stiffness-orthogonal projections
//!   (Sect. 2.3, eqs. 18-21);
//! - the trapezoidal rule with positions and pressures as primary variables (eqs. 32-36) and
//!   Newton-Raphson on eqs. (38)/(39) with the numerical tangent of eqs. (40)-(41) or a
//!   closed-form approximation of it (`step`), the closed-form one kept from step to step
//!   while steps converge at their first iteration ([`kept_tangent`]).
//!
//! Any open tree of revolute and translational joints is supported, with planar revolute,
//! planar translational, spherical and distance cut joints, the description's force elements
//! and any hydraulic circuit; models without bodies are pure hydraulic systems.

pub mod articulated;
mod assembly;
pub mod chart;
pub mod cuts;
pub mod dynamics;
mod eval;
mod explicit;
mod formulation;
pub mod kept_tangent;
pub mod kinematics;
pub mod multiplier_history;
mod ode;
mod ode_partials;
mod output_rates;
mod outputs;
mod planar;
pub mod spherical;
mod step;
mod tangent;
pub mod tree;

pub use kept_tangent::KeptTangent;
pub use multiplier_history::MultiplierHistory;
pub use ode::Layout;
pub use tree::{CompileError, Tree};

use crate::hydraulics::{CircuitJacobian, Stroke};
use crate::index3::AssemblyReport;
use crate::inputs::InputSignals;
use crate::integrators::dense::DenseStep;
use crate::integrators::{ExplicitOde, FloorReport};
use crate::linalg::{copy_small, SmallLu as Lu};
use crate::settings::SemirecursiveSettings;
use crate::state::{BodyState, MechState};
use cuts::RowEval;
use kinematics::BodyKin;
use mbfmu_model::format::Formulation;
use nalgebra::{Vector3, Vector6};
use serde::{Deserialize, Serialize};

/// Everything that determines the rest of a run (Clone: field-wise, in formulation.rs).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct SemiState {
    pub t: f64,
    /// Relative joint coordinates z and their first and second derivatives.
    pub z: Vec<f64>,
    /// The coordinates the cached kinematics (body positions, outputs) were evaluated at:
    /// `z`, or within 1e-3 of the Newton tolerance of it after a step that ended at its
    /// last Newton evaluation. A restored state evaluates them there again, so its outputs
    /// are those it had bit for bit.
    pub kin_z: Vec<f64>,
    pub zd: Vec<f64>,
    pub zdd: Vec<f64>,
    /// Augmented Lagrangian multipliers of the cut-joint rows (penalty formulation).
    pub lambda: Vec<f64>,
    /// Pressures and their rates (trapezoidal rule, eq. 33).
    pub p: Vec<f64>,
    pub pd: Vec<f64>,
    /// Difference quotient of the pressure rates over the last step (predictor).
    pub pdd: Vec<f64>,
    /// Spool positions and the references held over the last step.
    pub spools: Vec<f64>,
    pub references: Vec<f64>,
    /// Independent coordinates of the double-step partition.
    pub independent: Vec<usize>,
    /// Work of the non-conservative forces since the start, and per cylinder.
    pub work: f64,
    pub cylinder_work: Vec<f64>,
    /// Total mechanical energy at the start.
    pub energy0: f64,
    /// Time at which the inputs were last set (cylinder lengths whose input has no
    /// derivatives are extrapolated from it with the velocity input).
    pub input_time: f64,
    /// Partitions chosen since the start (1 = never re-chosen).
    pub partitions: u32,
    /// Smallest pivot of full pivoting when the partition was chosen.
    pub pivot_reference: f64,
    /// The Newton tangent the next step may start from ([`kept_tangent`]).
    pub tangent: KeptTangent,
    /// Penalty formulation: the multipliers of the last steps, for the next step's predictor
    /// ([`multiplier_history`]).
    pub multipliers: MultiplierHistory,
    /// The error-controlled explicit methods' proposal for the next step (NaN: none yet).
    pub h_next: f64,
    /// `auto` found the problem stiff and integrates with the trapezoidal rule from then on.
    pub stiff: bool,
    /// `auto`'s stiffness test so far.
    pub stiffness: crate::integrators::StiffnessTest,
    /// The explicit pairs' step past the communication point, pending ([`DenseStep`]).
    pub dense: DenseStep,
    /// The chart of every spherical tree joint ([`chart`]): the coordinates' meaning, re-based
    /// away from gimbal lock at accepted steps.
    pub charts: Vec<chart::Chart>,
}

/// Scratch arrays, allocated once per instance.
#[derive(Clone, Debug)]
struct Work {
    kin: Vec<BodyKin>,
    wrenches: Vec<Vector6<f64>>,
    sums: Vec<Vector6<f64>>,
    /// Per body, the change of Z' of a change of z'' ([`Tree::add_accelerations`]).
    deltas: Vec<Vector6<f64>>,
    inertias: Vec<dynamics::Inertia>,
    /// Scratch of the articulated-body recursion ([`articulated`]).
    articulated: articulated::Articulated,
    rows: Vec<RowEval>,
    phi: Vec<f64>,
    /// Phi_z, m x N row-major.
    phiz: Vec<f64>,
    dep: Vec<usize>,
    ind: Vec<usize>,
    lu_dep: Lu,
    z: Vec<f64>,
    zd: Vec<f64>,
    zdd: Vec<f64>,
    lambda: Vec<f64>,
    /// Generalized residual R^T (M_bar Z' - Q_bar) and mass matrix M'.
    res: Vec<f64>,
    mass: Vec<f64>,
    /// M' + dt/2 C + dt^2/4 K (N x N) and R_z (eq. 14, N x nm).
    amat: Vec<f64>,
    /// `amat` is the current step's: formed during it, or kept with its tangent.
    amat_fresh: bool,
    /// The coordinates `kin`'s positions were evaluated at ([`Work::positions`]).
    kin_z: Vec<f64>,
    /// `kin`, `phi`, `phiz` (double-step: the LU of Phi_z^d and the dependent rates) are
    /// those of the last Newton residual, with positions at `kin_z`.
    at_residual: bool,
    /// Phi at `z` to first order from the positions at `kin_z`: Phi + Phi_z (z - kin_z).
    phi_now: Vec<f64>,
    rz: Vec<f64>,
    /// Double-step tangent: per column of R_z and body, the twist and (g', w, J w); R_z^T J_s
    /// of every cylinder (nc x N).
    twists: Vec<Vector6<f64>>,
    column_kin: Vec<[Vector3<f64>; 3]>,
    gs: Vec<f64>,
    /// Newton unknowns, corrections, residuals.
    x: Vec<f64>,
    x0: Vec<f64>,
    f: Vec<f64>,
    f_plus: Vec<f64>,
    tangent: Lu,
    projection: Lu,
    /// Hydraulics at the trial point: pressures, rates h, actuator forces and strokes (the
    /// cylinders, then the motors).
    p: Vec<f64>,
    pd: Vec<f64>,
    h: Vec<f64>,
    forces: Vec<f64>,
    strokes: Vec<Stroke>,
    /// The input values at the time of the current evaluation.
    u: Vec<f64>,
    /// Rows of the actuators attached to the mechanism (G: the wrenches of unit force): the
    /// cylinders' lines, then the motors' joint rates.
    cylinder_rows: Vec<Option<RowEval>>,
    spools: Vec<f64>,
    references: Vec<f64>,
    jac: CircuitJacobian,
    /// Jacobians of the cylinder lengths and of the line elements in z (n x N).
    js: Vec<f64>,
    jl: Vec<f64>,
    /// Length-N and length-m temporaries.
    tmp_n: Vec<f64>,
    tmp_n2: Vec<f64>,
    /// The unknowns before a damped Newton correction (`step.rs`).
    x_before: Vec<f64>,
    tmp_m: Vec<f64>,
    tmp_m2: Vec<f64>,
    /// Best and current partition (independent columns) while re-choosing.
    dep_best: Vec<usize>,
    ind_best: Vec<usize>,
    scratch_phiz: Vec<f64>,
}

/// A mechanism (possibly empty) with its circuit in a semirecursive formulation, stepping
/// with the trapezoidal rule.
#[derive(Clone, Debug)]
pub struct Semirecursive {
    pub tree: Tree,
    pub settings: SemirecursiveSettings,
    pub inputs: InputSignals,
    pub state: SemiState,
    /// Kinematics, cylinder strokes and forces of `state` (outputs read these).
    kin: Vec<BodyKin>,
    strokes: Vec<Stroke>,
    forces: Vec<f64>,
    /// Power of the non-conservative forces and of each cylinder at `state` (the work over a
    /// step integrates it by the trapezoidal rule).
    power: f64,
    cylinder_power: Vec<f64>,
    /// The state as absolute body states (see [`Semirecursive::mirror`]).
    mirror: std::cell::OnceCell<MechState>,
    w: Work,
    pub assembly: AssemblyReport,
    /// Static cylinder forces F_s0 found at the start (None where not a static start).
    pub static_forces: Vec<Option<f64>>,
    /// Steps whose Newton iteration was accepted at the round-off floor (cumulative, not in
    /// snapshots).
    pub floor: FloorReport,
    /// Newton tangents formed and factored (cumulative, not in snapshots); a step that goes
    /// on with a kept one ([`kept_tangent`]) forms none.
    pub tangents: u64,
    /// The state and inputs of the last checkpoint ([`crate::Formulation::checkpoint`]).
    saved: Option<Box<(SemiState, InputSignals)>>,
    /// The inputs before a change, to return to if the model refuses it.
    inputs_before: InputSignals,
    /// Scratch of the output rates.
    rate_scratch: std::cell::RefCell<output_rates::RateScratch>,
    /// The Model Exchange view of the equations (`ode.rs`), idle in co-simulation except
    /// while an explicit method steps it.
    ode: ode::Ode,
    /// The explicit method's stages, where the method is one (`explicit.rs`).
    explicit: Option<ExplicitOde>,
    /// What the importer's log should hear (`auto` switching to the implicit method).
    notice: Option<String>,
}

/// Storage for the inputs before a change (sized once).
fn inputs_before_of(inputs: &[mbfmu_model::format::InputSpec]) -> InputSignals {
    InputSignals::held(vec![0.0; inputs.len()], 0.0)
}

impl Semirecursive {
    /// Compiles the description, assembles a consistent start and prepares the solver.
    pub fn new(d: &mbfmu_model::format::Description, settings: SemirecursiveSettings) -> Result<Semirecursive, String> {
        let tree = Tree::from_description(d).map_err(|e| e.to_string())?;
        let n = tree.n_coordinates();
        let m = tree.n_constraints();
        let (np, ns, nc) =
            tree.circuit.as_ref().map_or((0, 0, 0), |c| (c.n_pressures(), c.n_spools(), c.n_cylinders()));
        // The actuators: the cylinders, then the motors (strokes, forces and rows of both).
        let na = tree.circuit.as_ref().map_or(0, |c| c.n_actuators());
        let nx = match settings.formulation {
            Formulation::SemirecursivePenalty => n,
            _ => n.saturating_sub(m),
        } + np;
        let w = Work {
            kin: vec![BodyKin::default(); n],
            wrenches: vec![Vector6::zeros(); n],
            sums: vec![Vector6::zeros(); n],
            deltas: vec![Vector6::zeros(); n],
            inertias: vec![dynamics::Inertia::default(); n],
            articulated: articulated::Articulated::new(n),
            rows: vec![RowEval::default(); m],
            phi: vec![0.0; m],
            phiz: vec![0.0; m * n],
            dep: Vec::with_capacity(m),
            ind: Vec::with_capacity(n),
            lu_dep: Lu::new(m),
            z: vec![0.0; n],
            zd: vec![0.0; n],
            zdd: vec![0.0; n],
            lambda: vec![0.0; m],
            res: vec![0.0; n],
            mass: vec![0.0; n * n],
            amat: vec![0.0; n * n],
            amat_fresh: false,
            kin_z: vec![0.0; n],
            at_residual: false,
            phi_now: vec![0.0; m],
            rz: vec![0.0; n * n],
            twists: vec![Vector6::zeros(); n * n],
            column_kin: vec![[Vector3::zeros(); 3]; n * n],
            gs: vec![0.0; na * n],
            x: vec![0.0; nx],
            x0: vec![0.0; nx],
            f: vec![0.0; nx],
            f_plus: vec![0.0; nx],
            tangent: Lu::new(nx),
            projection: Lu::new(n),
            p: vec![0.0; np],
            pd: vec![0.0; np],
            h: vec![0.0; np],
            forces: vec![0.0; na],
            strokes: vec![Stroke::default(); na],
            u: vec![0.0; d.interface.inputs.len()],
            cylinder_rows: vec![None; na],
            spools: vec![0.0; ns],
            references: vec![0.0; ns],
            jac: CircuitJacobian::default(),
            js: vec![0.0; na * n],
            jl: vec![0.0; tree.elements.len() * n],
            tmp_n: vec![0.0; n.max(nx)],
            tmp_n2: vec![0.0; n.max(nx)],
            x_before: vec![0.0; nx],
            tmp_m: vec![0.0; m],
            tmp_m2: vec![0.0; m],
            dep_best: Vec::with_capacity(m),
            ind_best: Vec::with_capacity(n),
            scratch_phiz: vec![0.0; m * n],
        };
        let inputs = InputSignals::held(d.interface.inputs.iter().map(|i| i.start).collect(), d.experiment.start);
        let state = SemiState {
            t: d.experiment.start,
            z: vec![0.0; n],
            kin_z: vec![0.0; n],
            zd: vec![0.0; n],
            zdd: vec![0.0; n],
            lambda: vec![0.0; m],
            p: vec![0.0; np],
            pd: vec![0.0; np],
            pdd: vec![0.0; np],
            spools: vec![0.0; ns],
            references: vec![0.0; ns],
            independent: Vec::new(),
            work: 0.0,
            cylinder_work: vec![0.0; nc],
            energy0: 0.0,
            input_time: d.experiment.start,
            partitions: 0,
            pivot_reference: 0.0,
            tangent: KeptTangent::none(
                nx,
                if settings.formulation == Formulation::SemirecursivePenalty { n * n } else { 0 },
            ),
            multipliers: MultiplierHistory::none(m),
            h_next: f64::NAN,
            stiff: false,
            stiffness: Default::default(),
            dense: DenseStep::default(),
            charts: tree.charts(),
        };
        let layout =
            Layout { dof: n.saturating_sub(m), pressures: np, spools: ns, work: usize::from(n > 0), cylinders: nc };
        let explicit = explicit::tableau(settings.method).map(|t| ExplicitOde::new(t, layout.len()));
        let mut state = state;
        if explicit.as_ref().is_some_and(|e| e.tableau().dense.is_some()) {
            state.dense = DenseStep::new(layout.len());
        }
        let mut s = Semirecursive {
            tree,
            settings,
            inputs,
            state,
            kin: vec![BodyKin::default(); n],
            strokes: vec![Stroke::default(); na],
            forces: vec![0.0; na],
            power: 0.0,
            cylinder_power: vec![0.0; nc],
            mirror: std::cell::OnceCell::new(),
            w,
            assembly: AssemblyReport::default(),
            static_forces: vec![None; nc],
            floor: FloorReport::default(),
            tangents: 0,
            saved: None,
            inputs_before: inputs_before_of(&d.interface.inputs),
            rate_scratch: Default::default(),
            ode: ode::Ode::new(layout, n),
            explicit,
            notice: None,
        };
        s.assemble()?;
        Ok(s)
    }

    pub fn n_coordinates(&self) -> usize {
        self.tree.n_coordinates()
    }

    pub fn n_constraints(&self) -> usize {
        self.tree.n_constraints()
    }

    /// Number of Newton unknowns per step (z^i or z, plus the pressures; eq. 48).
    pub fn n_unknowns(&self) -> usize {
        self.w.x.len()
    }

    /// Changes the inputs at the current time (which becomes the input time of the cylinder
    /// extrapolation); on failure the previous inputs are kept.
    pub fn change_inputs(&mut self, change: &mut dyn FnMut(&mut InputSignals)) -> Result<(), String> {
        self.inputs_before.clone_from(&self.inputs);
        let old_time = self.state.input_time;
        change(&mut self.inputs);
        self.state.input_time = self.state.t;
        if let Err(e) = self.refresh() {
            self.inputs.clone_from(&self.inputs_before);
            self.state.input_time = old_time;
            self.refresh()?;
            return Err(e);
        }
        Ok(())
    }

    /// After a communication step with input derivatives: every input held at its value now;
    /// a cylinder length extrapolated with its velocity input becomes the length reached,
    /// extrapolated from now. The signals at the current time are unchanged (no refresh).
    pub fn hold_inputs(&mut self) {
        if !self.inputs.has_derivatives() {
            return;
        }
        let t = self.state.t;
        self.inputs.hold(t);
        // The signals change after now: a step pending past now was taken with the old ones.
        self.state.dense.pending = false;
        if let Some(circuit) = &self.tree.circuit {
            for (cylinder, stroke) in circuit.cylinders.iter().zip(&self.strokes) {
                if let crate::hydraulics::Attachment::Inputs { length, .. } = cylinder.attachment {
                    self.inputs.set_value(length, stroke.length, t);
                }
            }
        }
        self.state.input_time = t;
    }

    /// Replaces the state (a snapshot of the same model) and the inputs.
    pub fn restore(&mut self, state: &SemiState, inputs: &InputSignals) -> Result<(), String> {
        let s = &self.state;
        let fits = state.z.len() == s.z.len()
            && state.kin_z.len() == s.kin_z.len()
            && state.zd.len() == s.zd.len()
            && state.zdd.len() == s.zdd.len()
            && state.lambda.len() == s.lambda.len()
            && state.p.len() == s.p.len()
            && state.pd.len() == s.pd.len()
            && state.pdd.len() == s.pdd.len()
            && state.spools.len() == s.spools.len()
            && state.references.len() == s.references.len()
            && state.cylinder_work.len() == s.cylinder_work.len()
            && inputs.fits(self.inputs.len())
            && state.independent.iter().all(|&j| j < s.z.len())
            && state.independent.len() == s.independent.len()
            && state.tangent.fits(s.tangent.lu.dim(), s.tangent.amat.len())
            && state.multipliers.fits(s.lambda.len())
            && state.dense.fits(s.dense.len())
            && state.charts.len() == s.charts.len()
            && state
                .charts
                .iter()
                .all(|c| c.axes.iter().flatten().chain(c.relative0.iter().flatten()).all(|v| v.is_finite()));
        if !fits {
            return Err("the snapshot does not belong to this model".into());
        }
        let before = (self.state.clone(), self.inputs.clone());
        self.state.clone_from(state);
        self.inputs.clone_from(inputs);
        self.tree.apply_charts(&self.state.charts);
        if let Err(e) = self.refresh() {
            (self.state, self.inputs) = before;
            self.tree.apply_charts(&self.state.charts);
            self.refresh()?;
            return Err(e);
        }
        Ok(())
    }

    /// Recomputes the kinematics, cylinder strokes, forces and power of `state`.
    fn refresh(&mut self) -> Result<(), String> {
        let t = self.state.t;
        let w = &mut self.w;
        w.z.copy_from_slice(&self.state.z);
        w.zd.copy_from_slice(&self.state.zd);
        w.zdd.copy_from_slice(&self.state.zdd);
        w.p.copy_from_slice(&self.state.p);
        w.spools.copy_from_slice(&self.state.spools);
        // At the coordinates the cached kinematics were evaluated at (bit for bit the same
        // cache as before).
        w.kin_z.copy_from_slice(&self.state.kin_z);
        self.tree.positions(&w.kin_z, &mut w.kin);
        self.tree.velocities(&w.zd, &mut w.kin);
        self.tree.accelerations(&w.zd, &w.zdd, &mut w.kin);
        // Only the power: the wrenches are formed afresh by every residual.
        let power = self.applied(t, false).map_err(|e| e.to_string())?;
        self.store_cache(power);
        Ok(())
    }

    /// Makes the trial point of `w` the cached state view (kinematics, strokes, forces, power).
    /// The kinematics are swapped in: every evaluation writes `w.kin` afresh before reading it.
    fn store_cache(&mut self, power: f64) {
        std::mem::swap(&mut self.kin, &mut self.w.kin);
        copy_small(&mut self.state.kin_z, &self.w.kin_z);
        let w = &self.w;
        self.strokes.copy_from_slice(&w.strokes);
        copy_small(&mut self.forces, &w.forces);
        self.power = power;
        for (c, (f, s)) in self.cylinder_power.iter_mut().zip(w.forces.iter().zip(&w.strokes)) {
            *c = f * s.velocity;
        }
        self.mirror.take();
    }

    /// The state as absolute body states in the description's body order (the index-3
    /// view), formed when first asked for after a change.
    pub fn mirror(&self) -> &MechState {
        self.mirror.get_or_init(|| MechState {
            t: self.state.t,
            bodies: self
                .tree
                .tree_index
                .iter()
                .map(|&t| {
                    let k = &self.kin[t];
                    BodyState {
                        r: k.r,
                        rot: k.rot,
                        v: k.com_velocity(),
                        w: k.rot.transpose() * k.omega(),
                        acc: k.com_acceleration(),
                        wdot: k.rot.transpose() * Vector3::from(k.acc.fixed_rows::<3>(3)),
                    }
                })
                .collect(),
            lambda: self.state.lambda.clone(),
            drive_values: Vec::new(),
            angles: vec![0.0; self.tree.roles.len()],
            work: self.state.work,
            energy0: self.state.energy0,
            circuit: None,
        })
    }

    pub fn time(&self) -> f64 {
        self.state.t
    }
}
