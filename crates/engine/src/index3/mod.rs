//! Index-3 DAE of multibody dynamics in absolute coordinates with Lie-group rotations
//! ([Fang2023, Sect. 2.1], Eq. 2): per body the centre-of-mass position r, the rotation matrix
//! A (body to global), the velocity r' and the body-frame angular velocity w_bar:
//!
//!   M r'' + Phi_r^T lambda = f,   J_bar w_bar' + Pi_bar^T lambda = tau_bar,   Phi(r, A, t) = 0,
//!   tau_bar = n_bar - w_bar~ J_bar w_bar.
//!
//! A [`Mechanism`] is compiled from a description; it never special-cases a model.

mod assembly;
pub mod beam;
mod body_schur;
mod compile;
mod compile_beams;
mod dae;
mod forces;
mod formulation;
pub mod geometry;
mod half_implicit;
pub mod hydraulics;
mod output_eval;
mod output_rates;
mod outputs;
mod planar;
mod planar_dae;
mod planar_outputs;
mod planar_step;
mod schur;
mod schur_chain;
mod stabilized;
mod statics;

pub use crate::state::{BodyState, MechState};
pub use assembly::{AssemblyError, AssemblyReport};
pub use compile::CompileError;
pub use compile_beams::Beams;
pub use dae::Index3Dae;
pub use forces::{friction_forces, Wrench};
pub use formulation::Index3Formulation;
pub use half_implicit::HalfImplicit;
pub(crate) use output_eval::{mechanism_planned_quantities, mechanism_quantities, OutputScratch};
pub(crate) use output_rates::mechanism_quantity_rates;

use crate::inputs::InputSignals;
use crate::motion::{evaluate as evaluate_motion, InputRate, MotionValue};
use crate::rotation::wrap_angle;
use geometry::{AxisRow, Group, Measure, Pair, Row, Term, VectorValue};
use mbfmu_model::format::{Friction, JointKind, Motion};
use nalgebra::{Matrix3, Vector3};

/// Mass properties of a body.
#[derive(Clone, Debug)]
pub struct BodyProps {
    pub name: String,
    pub mass: f64,
    /// Inertia about the body's reference point r (its centre of mass unless
    /// `static_moment` is set), body frame.
    pub inertia: Matrix3<f64>,
    pub inertia_inv: Matrix3<f64>,
    /// The static moment s = m c of a structural node carrying bodies attached to it, c its
    /// centre of mass from the node (body frame); None for every other body, whose equations
    /// are those about the centre of mass (the offset terms are not evaluated at all).
    pub static_moment: Option<Vector3<f64>>,
}

/// What a constraint row's measure must equal.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Constant(f64),
    /// f(t) of driver `driver` minus the joint's initial coordinate.
    Driver {
        driver: usize,
        offset: f64,
    },
}

/// One scalar constraint Phi_k = g(q) - target(t), g a term of a group.
#[derive(Clone, Debug)]
pub struct Constraint {
    pub pair: [Option<usize>; 2],
    /// Index into [`Mechanism::groups`] and the term within the group.
    pub group: usize,
    pub term: Term,
    /// The term as an [`AxisRow`], if it is one (evaluated without the general kernel).
    pub axis: Option<AxisRow>,
    pub target: Target,
    /// Human-readable origin, e.g. "joint 'pivot' (revolute)".
    pub label: String,
}

/// The vectors of one joint or driver and the constraint rows built from them.
#[derive(Clone, Debug)]
pub struct ConstraintGroup {
    pub geometry: Group,
    pub rows: std::ops::Range<usize>,
    /// The vectors whose values the rows need (an axis row needs only its d), ascending.
    pub used: Vec<usize>,
    /// Set if the rows are a point coincidence (see [`PointRows`]).
    pub point: Option<PointRows>,
}

/// A group whose rows are all axis rows e_k . d of one vector d = P2 - P1 with constant
/// targets (the rows of a spherical joint): values and Jacobian rows follow from d and the
/// two points alone, without the per-row dispatch of the general path (same arithmetic).
#[derive(Clone, Copy, Debug)]
pub struct PointRows {
    /// Index of d among the group's vectors.
    between: usize,
    /// Per row: its axis k and its target.
    rows: [(usize, f64); 3],
    len: usize,
}

impl PointRows {
    /// The point rows `group` is, given the compiled constraints.
    pub fn of(group: &ConstraintGroup, constraints: &[Constraint]) -> Option<PointRows> {
        let mut p = PointRows { between: usize::MAX, rows: [(0, 0.0); 3], len: 0 };
        for c in &constraints[group.rows.clone()] {
            let (Some(a), Target::Constant(f)) = (c.axis, &c.target) else { return None };
            if p.len == 3 || (p.len > 0 && a.between != p.between) {
                return None;
            }
            p.between = a.between;
            p.rows[p.len] = (a.axis, *f);
            p.len += 1;
        }
        (p.len > 0).then_some(p)
    }

    fn rows(&self) -> &[(usize, f64)] {
        &self.rows[..self.len]
    }

    /// Index of d among the group's vectors.
    pub fn between(&self) -> usize {
        self.between
    }

    /// The rows' axes, if there are three.
    pub fn axes(&self) -> Option<[usize; 3]> {
        (self.len == 3).then(|| self.rows.map(|r| r.0))
    }
}

impl ConstraintGroup {
    pub fn new(geometry: Group, rows: std::ops::Range<usize>) -> Self {
        let mut used: Vec<usize> = geometry
            .terms
            .iter()
            .flat_map(|&t| match (AxisRow::of(&geometry.vectors, t), t) {
                (Some(a), _) => vec![a.between],
                (None, Term::Dot(a, b)) => vec![a, b],
                (None, Term::Angle { f1, g1, f2 }) => vec![f1, g1, f2],
            })
            .collect();
        used.sort_unstable();
        used.dedup();
        ConstraintGroup { geometry, rows, used, point: None }
    }

    /// The values of the vectors its rows use ([`ConstraintGroup::used`]) into `values`.
    #[inline(always)]
    pub fn vector_values(&self, m: &Mechanism, bodies: &[BodyState], values: &mut [Vector3<f64>; MAX_GROUP_VECTORS]) {
        let pair = m.pair(bodies, &self.geometry.pair);
        for &i in &self.used {
            values[i] = self.geometry.vectors[i].value(&pair);
        }
    }

    /// Phi(q, t) of its rows into `phi`, from its [`ConstraintGroup::vector_values`].
    #[inline(always)]
    pub fn constraint_values(&self, m: &Mechanism, t: f64, base: &MechState, values: &[Vector3<f64>], phi: &mut [f64]) {
        let rows = self.rows.clone();
        for (phi, c) in phi[rows.clone()].iter_mut().zip(&m.constraints[rows]) {
            let value = match c.axis {
                Some(a) => a.value(values),
                None => c.term.value(values),
            };
            let f = m.target_position(c, t, base);
            *phi = match c.term {
                Term::Angle { .. } => wrap_angle(value - f),
                Term::Dot(..) => value - f,
            };
        }
    }
}

/// Most vectors a group has (a fixed joint: d, three axes and four body-fixed directions).
pub const MAX_GROUP_VECTORS: usize = 8;

/// A joint after compilation: its constraint rows and its coordinate measures.
#[derive(Clone, Debug)]
pub struct JointInfo {
    pub name: String,
    pub kind: JointKind,
    pub pair: [Option<usize>; 2],
    pub rows: std::ops::Range<usize>,
    /// Relative rotation about the axis (revolute, cylindrical).
    pub angle: Option<Measure>,
    /// Relative displacement along the axis (translational, cylindrical).
    pub slide: Option<Measure>,
    /// Joint axis fixed in body1 (global if body1 is ground).
    pub axis1: Vector3<f64>,
    /// Joint point in body1 and body2 frames (global if ground).
    pub points: [Vector3<f64>; 2],
    pub initial_coordinate: f64,
    pub friction: Option<Friction>,
}

#[derive(Clone, Debug)]
pub struct DriverInfo {
    pub name: String,
    pub joint: usize,
    pub rotation: bool,
    pub motion: Motion,
    pub row: usize,
    /// Input index of an input-rate motion.
    pub input: Option<usize>,
}

/// A compiled mechanism: bodies, constraints, drivers and forces, plus the inputs over the
/// current communication step.
#[derive(Clone, Debug)]
pub struct Mechanism {
    pub name: String,
    pub bodies: Vec<BodyProps>,
    pub constraints: Vec<Constraint>,
    pub groups: Vec<ConstraintGroup>,
    pub joints: Vec<JointInfo>,
    pub drivers: Vec<DriverInfo>,
    pub forces: Vec<crate::elements::Element>,
    /// Beam elements and their structural nodes (bodies from `beams.first_node` on).
    pub beams: Beams,
    /// The hydraulic circuit whose pressures are integrated with the bodies, if any.
    pub hydraulics: Option<Box<hydraulics::MechanismCircuit>>,
    pub gravity: Vector3<f64>,
    /// The outputs' body-fixed points: the body and the point in its frame from its centre
    /// of mass ([`crate::layout::Layout::output_points`]).
    pub points: Vec<(usize, Vector3<f64>)>,
    /// The FMU inputs as signals over the communication step.
    pub inputs: InputSignals,
    /// The state the description specifies (before assembly).
    pub initial: MechState,
    /// Per compiled body: the axes, in its frame, of the body attached to it if it is a beam
    /// node carrying one (its `BodyOrientation` output is then that body's, A R).
    pub attached_axes: Vec<Option<Matrix3<f64>>>,
}

impl Mechanism {
    /// Compiles a validated description.
    pub fn from_description(d: &mbfmu_model::format::Description) -> Result<Self, CompileError> {
        compile::compile(d)
    }

    /// True if some body's reference point is not its centre of mass (bodies attached to
    /// beam nodes off the node).
    pub fn has_offset_masses(&self) -> bool {
        self.bodies.iter().any(|b| b.static_moment.is_some())
    }

    pub fn n_bodies(&self) -> usize {
        self.bodies.len()
    }

    pub fn n_constraints(&self) -> usize {
        self.constraints.len()
    }

    /// Pressures of the coupled hydraulic circuit (0 without one).
    pub fn n_pressures(&self) -> usize {
        self.hydraulics.as_ref().map_or(0, |h| h.n_pressures())
    }

    /// Degrees of freedom left after the constraints (6 n_b - n_c).
    pub fn dof(&self) -> isize {
        6 * self.bodies.len() as isize - self.constraints.len() as isize
    }

    pub fn pair<'a>(&self, bodies: &'a [BodyState], pair: &[Option<usize>; 2]) -> Pair<'a> {
        [pair[0].map(|i| &bodies[i]), pair[1].map(|i| &bodies[i])]
    }

    /// f, f', f'' of driver `d` at time `t`; input-rate drivers integrate their input exactly
    /// from `base`.
    pub fn driver_motion(&self, d: usize, t: f64, base: &MechState) -> MotionValue {
        let driver = &self.drivers[d];
        let input = driver.input.map(|i| InputRate {
            value: base.drive_values[d],
            increment: self.inputs.integral(i, base.t, t),
            rate: self.inputs.at(i, t),
            rate_derivative: self.inputs.rate(i, t),
        });
        evaluate_motion(&driver.motion, t, input)
    }

    /// f of driver `d` at time `t` alone: an input-rate driver's integral without the
    /// input's rate and its derivative, which [`Mechanism::driver_motion`] also evaluates.
    fn driver_position(&self, d: usize, t: f64, base: &MechState) -> f64 {
        let driver = &self.drivers[d];
        match driver.input {
            Some(i) => base.drive_values[d] + self.inputs.integral(i, base.t, t),
            None => evaluate_motion(&driver.motion, t, None).f,
        }
    }

    /// The f of [`Mechanism::target`] alone.
    #[inline]
    fn target_position(&self, c: &Constraint, t: f64, base: &MechState) -> f64 {
        match c.target {
            Target::Constant(v) => v,
            Target::Driver { driver, offset } => self.driver_position(driver, t, base) - offset,
        }
    }

    fn target(&self, c: &Constraint, t: f64, base: &MechState) -> MotionValue {
        match c.target {
            Target::Constant(v) => MotionValue { f: v, df: 0.0, ddf: 0.0 },
            Target::Driver { driver, offset } => {
                let m = self.driver_motion(driver, t, base);
                MotionValue { f: m.f - offset, ..m }
            }
        }
    }

    /// Phi(q, t) of every row into `phi`.
    pub fn constraint_values(&self, t: f64, base: &MechState, bodies: &[BodyState], phi: &mut [f64]) {
        let mut values = [Vector3::zeros(); MAX_GROUP_VECTORS];
        for g in &self.groups {
            if let Some(p) = &g.point {
                let pair = self.pair(bodies, &g.geometry.pair);
                let d = g.geometry.vectors[p.between].value(&pair);
                for (phi, &(axis, f)) in phi[g.rows.clone()].iter_mut().zip(p.rows()) {
                    *phi = d[axis] - f;
                }
                continue;
            }
            g.vector_values(self, bodies, &mut values);
            g.constraint_values(self, t, base, &values, phi);
        }
    }

    /// Jacobian rows and, per row, Phi, nu = f' (velocity equation Phi_q q' = nu) and
    /// gamma = f'' - quad (acceleration equation Phi_q q'' = gamma).
    pub fn constraint_jacobian(&self, t: f64, base: &MechState, bodies: &[BodyState], out: &mut ConstraintEval) {
        let n = self.constraints.len();
        out.rows.resize(n, [[0.0; 6]; 2]);
        out.phi.resize(n, 0.0);
        out.nu.resize(n, 0.0);
        out.gamma.resize(n, 0.0);
        let mut values = [VectorValue::default(); MAX_GROUP_VECTORS];
        for g in &self.groups {
            let pair = self.pair(bodies, &g.geometry.pair);
            g.geometry.evaluate(&pair, &mut values);
            for k in g.rows.clone() {
                let c = &self.constraints[k];
                let e = c.term.evaluate(&pair, &g.geometry.vectors, &values);
                let f = self.target(c, t, base);
                out.rows[k] = e.row;
                out.phi[k] = match c.term {
                    Term::Angle { .. } => wrap_angle(e.value - f.f),
                    Term::Dot(..) => e.value - f.f,
                };
                out.nu[k] = f.df;
                out.gamma[k] = f.ddf - e.quad;
            }
        }
    }

    /// Phi and the Jacobian rows (no velocity terms: what a step needs; `nu` and `gamma` of
    /// `out` are left as they are).
    pub fn constraint_rows(&self, t: f64, base: &MechState, bodies: &[BodyState], out: &mut ConstraintEval) {
        let n = self.constraints.len();
        out.rows.resize(n, [[0.0; 6]; 2]);
        out.phi.resize(n, 0.0);
        let mut values = [Vector3::zeros(); MAX_GROUP_VECTORS];
        for g in &self.groups {
            let pair = self.pair(bodies, &g.geometry.pair);
            if let Some(p) = &g.point {
                let d = g.geometry.vectors[p.between].value(&pair);
                let rows = g.rows.clone();
                for ((phi, row), &(axis, f)) in out.phi[rows.clone()].iter_mut().zip(&mut out.rows[rows]).zip(p.rows())
                {
                    *phi = d[axis] - f;
                    AxisRow { axis, between: p.between }.write_row(&pair, &g.geometry.vectors, row);
                }
                continue;
            }
            for &i in &g.used {
                values[i] = g.geometry.vectors[i].value(&pair);
            }
            for k in g.rows.clone() {
                let c = &self.constraints[k];
                let row = &mut out.rows[k];
                let value = match c.axis {
                    Some(a) => {
                        a.write_row(&pair, &g.geometry.vectors, row);
                        a.value(&values)
                    }
                    None => c.term.write_row(&pair, &g.geometry.vectors, &values, row),
                };
                let f = self.target_position(c, t, base);
                out.phi[k] = match c.term {
                    Term::Angle { .. } => wrap_angle(value - f),
                    Term::Dot(..) => value - f,
                };
            }
        }
    }

    /// nu = f' per constraint row: the rates of the drivers' targets (the right-hand side of
    /// the velocity equation Phi_q q' = nu), zero for the joints.
    pub fn constraint_rates(&self, t: f64, base: &MechState, nu: &mut [f64]) {
        for (n, c) in nu.iter_mut().zip(&self.constraints) {
            *n = match c.target {
                Target::Constant(_) => 0.0,
                Target::Driver { .. } => self.target(c, t, base).df,
            };
        }
    }

    /// Jacobian row of constraint `k` alone.
    pub fn row_jacobian(&self, k: usize, bodies: &[BodyState]) -> Row {
        let c = &self.constraints[k];
        let g = &self.groups[c.group].geometry;
        let pair = self.pair(bodies, &g.pair);
        let mut values = [VectorValue::default(); MAX_GROUP_VECTORS];
        g.evaluate(&pair, &mut values);
        c.term.evaluate(&pair, &g.vectors, &values).row
    }

    /// Unwrapped rotation of joint `j` measured from the initial configuration, continuing
    /// the reference `reference` (the value at a nearby state).
    pub fn joint_angle(&self, j: usize, bodies: &[BodyState], reference: f64) -> f64 {
        let joint = &self.joints[j];
        match &joint.angle {
            Some(m) => reference + wrap_angle(m.value(&self.pair(bodies, &joint.pair)) - reference),
            None => 0.0,
        }
    }

    /// Unwrapped angles of all joints, continuing `reference`.
    pub fn update_angles(&self, bodies: &[BodyState], reference: &[f64], out: &mut [f64]) {
        for j in 0..self.joints.len() {
            out[j] = self.joint_angle(j, bodies, reference[j]);
        }
    }

    /// True if `state` has this mechanism's shape (bodies, multipliers, joint angles, drive
    /// values): a snapshot of another model is refused before it is used.
    pub fn holds(&self, state: &MechState) -> bool {
        state.bodies.len() == self.n_bodies()
            && state.lambda.len() == self.n_constraints()
            && state.angles.len() == self.joints.len()
            && state.drive_values.len() == self.drivers.len()
            && match (&self.hydraulics, &state.circuit) {
                (None, None) => true,
                (Some(h), Some(c)) => {
                    let n = &h.circuit;
                    c.p.len() == n.n_pressures()
                        && c.pd.len() == n.n_pressures()
                        && c.spools.len() == n.n_spools()
                        && c.references.len() == n.n_spools()
                        && c.cylinder_work.len() == n.n_cylinders()
                }
                _ => false,
            }
    }

    /// Euclidean norm of Phi at a state.
    pub fn constraint_violation(&self, state: &MechState) -> f64 {
        let mut phi = vec![0.0; self.constraints.len()];
        self.constraint_values(state.t, state, &state.bodies, &mut phi);
        phi.iter().map(|x| x * x).sum::<f64>().sqrt()
    }

    /// Advances `state` by a step `dt` too short to solve for (e.g. the ~2e-14 s closing step
    /// of OMSimulator): a second-order Taylor move with the current accelerations. Solving
    /// instead would divide round-off by dt (velocities) and dt^2 (multipliers); the
    /// constraint violation this leaves is O(dt^2 |a|), far below round-off for such steps.
    pub fn drift(&self, state: &mut MechState, dt: f64) {
        let base_t = state.t;
        let mut drives = state.drive_values.clone();
        self.advance_drives(base_t + dt, state, &mut drives);
        for s in &mut state.bodies {
            s.r += s.v * dt + s.acc * (0.5 * dt * dt);
            s.v += s.acc * dt;
            s.rot *= crate::rotation::exp(&(s.w * dt + s.wdot * (0.5 * dt * dt)));
            s.w += s.wdot * dt;
        }
        let reference = state.angles.clone();
        self.update_angles(&state.bodies, &reference, &mut state.angles);
        state.drive_values = drives;
        state.t = base_t + dt;
    }

    /// Drive values of input-rate drivers at time `t`, continuing from `base`.
    pub fn advance_drives(&self, t: f64, base: &MechState, out: &mut [f64]) {
        for (d, driver) in self.drivers.iter().enumerate() {
            out[d] = match driver.input {
                Some(_) => self.driver_motion(d, t, base).f,
                None => 0.0,
            };
        }
    }
}

/// Constraint rows evaluated at one configuration.
#[derive(Clone, Debug, Default)]
pub struct ConstraintEval {
    pub rows: Vec<Row>,
    pub phi: Vec<f64>,
    pub nu: Vec<f64>,
    pub gamma: Vec<f64>,
}

/// Sum over rows of row^T x into per-body generalized forces (dr part, dpi part).
pub fn add_rows_transpose(constraints: &[Constraint], rows: &[Row], x: &[f64], out: &mut [[f64; 6]]) {
    for ((c, row), &xk) in constraints.iter().zip(rows).zip(x) {
        for (part, b) in row.iter().zip(c.pair) {
            if let Some(b) = b {
                let o = &mut out[b];
                for i in 0..6 {
                    o[i] += part[i] * xk;
                }
            }
        }
    }
}

/// Row k times per-body generalized velocities (summed left to right within each side).
#[inline]
pub fn row_times(c: &Constraint, row: &Row, q: &[[f64; 6]]) -> f64 {
    let mut s = 0.0;
    for (g, b) in row.iter().zip(c.pair) {
        if let Some(b) = b {
            let v = &q[b];
            s += g[0] * v[0] + g[1] * v[1] + g[2] * v[2] + g[3] * v[3] + g[4] * v[4] + g[5] * v[5];
        }
    }
    s
}
