//! The index-3 equations in the residual form of [Zhang2022, eq. 1], seen by the integrator
//! suite. Per body the chart coordinates are y = [r, theta, r', w_bar] (12), with theta the
//! rotation vector relative to the base state's A (A = A_base exp(theta~), [Zhang2022, Sect.
//! 3.1]), and y' = [r', theta', r'', w_bar']. Residual rows per body:
//!   r' - v = 0,   T(theta) theta' - w_bar = 0,
//!   M r'' + Phi_r^T lambda - f = 0,   J_bar w_bar' + Pi_bar^T lambda - n_bar + w_bar~ J_bar w_bar = 0,
//! and Phi(q, t) = 0 ([Fang2023, eq. 2]).
//!
//! A beam node carrying bodies attached off the node has a static moment s = m c: its
//! translational rows gain A (w_bar'~ s + w_bar~ w_bar~ s), its rotational rows s~ A^T r''
//! and J_bar is about the node ([NewtonEuler, "Any reference frame"];
//! `Mechanism::offset_inertia_loads`).
//!
//! Newton: the kinematic rows are linear in (y, y') and are eliminated, leaving the
//! iteration matrix of [Fang2023, Sect. 2.3] in the accelerations a = (r'', w_bar') and lambda,
//!   [M + b0 (D_gyro - C) - b0^2 K,  G^T] [da]   [-r_dyn - b0 K r_kin        ]
//!   [G,                             0  ] [dl] = [(-Phi + b0 G r_kin) / b0^2 ]
//! i.e. constraints scaled by 1/b0^2 ([Fang2023, eq. 13c]; b0 = h for BDF1). The Jacobians of
//! the reaction forces G^T lambda are dropped as in [Fang2023, Sect. 2.3]; K and C are the
//! numerical tangents of the force elements.

use super::body_schur::BodySchur;
use super::forces::{self, ElementJacobian, JacobianWork, Wrench};
use super::hydraulics::CircuitWork;
use super::planar_dae::PlanarNewton;
use super::stabilized::Stabilization;
use super::{BodyState, ConstraintEval, MechState, Mechanism};
use crate::integrators::{DaeSystem, StepError};
use crate::linalg::LinearSystem;
use crate::rotation::{exp, log, tangent, tangent_inverse};
use nalgebra::{Matrix3, Vector3};

/// The index-3 formulation as a [`DaeSystem`]; owns the mechanism and its work arrays.
pub struct Index3Dae {
    pub mech: Mechanism,
    pub(super) bodies: Vec<BodyState>,
    pub(super) ce: ConstraintEval,
    pub(super) loads: Vec<Wrench>,
    /// G^T lambda per body.
    pub(super) gtl: Vec<Wrench>,
    /// Friction forces held over the step, and the base time they belong to.
    friction: Vec<f64>,
    friction_time: f64,
    pub(super) jacobians: Vec<ElementJacobian>,
    pub(super) jacobian_work: JacobianWork,
    pub(super) kkt: LinearSystem,
    /// The dynamic iteration matrix through its Schur complement, where the mechanism
    /// allows it ([`BodySchur::for_mechanism`]); else `kkt` serves the dynamics too.
    pub(super) schur: Option<BodySchur>,
    pub(super) rhs: Vec<f64>,
    /// Saved at factor(): b0, the chart angles and their tangent inverses.
    b0: f64,
    tinv: Vec<Matrix3<f64>>,
    r_kin: Vec<[f64; 6]>,
    /// Work arrays of the coupled hydraulic circuit ([`super::hydraulics`]), if any.
    pub(super) circuit: Option<Box<CircuitWork>>,
    /// The point whose bodies and constraint rows [`DaeSystem::factor`] left in `bodies` and
    /// `ce`: the residual that follows at the same point (Newton's first iteration, and the
    /// one after a refactorization) takes them instead of evaluating them again.
    evaluated: EvaluatedPoint,
    /// The stabilized index-2 form's work, if the joints are enforced so
    /// ([`Index3Dae::stabilize`]); its multipliers mu follow lambda in the algebraic unknowns.
    stabilization: Option<Box<Stabilization>>,
    /// The Newton iteration in the in-plane unknowns of a planar mechanism
    /// ([`Index3Dae::use_planar_kernels`]).
    pub(super) planar: Option<Box<PlanarNewton>>,
}

/// A chart point (t, the base state's time, y, y') and whether it is current.
#[derive(Debug, Default)]
struct EvaluatedPoint {
    current: bool,
    t: f64,
    base_t: f64,
    y: Vec<f64>,
    yp: Vec<f64>,
}

impl EvaluatedPoint {
    fn set(&mut self, t: f64, base_t: f64, y: &[f64], yp: &[f64]) {
        self.current = true;
        (self.t, self.base_t) = (t, base_t);
        self.y.clear();
        self.y.extend_from_slice(y);
        self.yp.clear();
        self.yp.extend_from_slice(yp);
    }

    /// True once if the point is the one set (bit for bit); forgets it either way.
    fn take(&mut self, t: f64, base_t: f64, y: &[f64], yp: &[f64]) -> bool {
        let same = self.current
            && t.to_bits() == self.t.to_bits()
            && base_t.to_bits() == self.base_t.to_bits()
            && y.iter().zip(&self.y).all(|(a, b)| a.to_bits() == b.to_bits())
            && yp.iter().zip(&self.yp).all(|(a, b)| a.to_bits() == b.to_bits())
            && y.len() == self.y.len()
            && yp.len() == self.yp.len();
        self.current = false;
        same
    }
}

impl std::fmt::Debug for Index3Dae {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index3Dae").field("mechanism", &self.mech.name).field("kkt", &self.kkt).finish()
    }
}

fn v3(s: &[f64]) -> Vector3<f64> {
    Vector3::new(s[0], s[1], s[2])
}

impl Index3Dae {
    pub fn new(mech: Mechanism) -> Self {
        let (nb, nc) = (mech.n_bodies(), mech.n_constraints());
        let np = mech.n_pressures();
        let n = 6 * nb + nc + np;
        let mut pattern = Vec::new();
        // Per-body 6x6 blocks.
        for b in 0..nb {
            for i in 0..6 {
                for j in 0..6 {
                    pattern.push((6 * b + i, 6 * b + j));
                }
            }
        }
        // Coupling blocks of force and beam elements (12x12 over their two bodies).
        for pair in mech.element_pairs() {
            for rs in 0..2 {
                for cs in 0..2 {
                    if let (Some(rb), Some(cb)) = (pair[rs], pair[cs]) {
                        for i in 0..6 {
                            for j in 0..6 {
                                pattern.push((6 * rb + i, 6 * cb + j));
                            }
                        }
                    }
                }
            }
        }
        // Constraint rows G and columns G^T.
        for (k, c) in mech.constraints.iter().enumerate() {
            for b in c.pair.iter().flatten() {
                for i in 0..6 {
                    pattern.push((6 * nb + k, 6 * b + i));
                    pattern.push((6 * b + i, 6 * nb + k));
                }
            }
        }
        // Pressure rows and columns: dh/dp, and per cylinder end the chain rule through the
        // line (every pressure row) and the push on the body (its chambers' columns).
        if let Some(h) = &mech.hydraulics {
            let first = 6 * nb + nc;
            for i in 0..np {
                for j in 0..np {
                    pattern.push((first + i, first + j));
                }
            }
            for c in 0..h.n_actuators() {
                for b in h.actuator_pair(c).iter().flatten() {
                    for i in 0..np {
                        for k in 0..6 {
                            pattern.push((first + i, 6 * b + k));
                        }
                    }
                    for j in h.chamber_volumes(c) {
                        for k in 0..6 {
                            pattern.push((6 * b + k, first + j));
                        }
                    }
                }
            }
        }
        let bodies = mech.initial.bodies.clone();
        let circuit = mech.hydraulics.as_ref().map(|h| Box::new(CircuitWork::new(h, &bodies, mech.inputs.len())));
        Index3Dae {
            kkt: if mech.beams.elements.is_empty() {
                LinearSystem::new(n, &pattern, false)
            } else {
                LinearSystem::new_supernodal(n, &pattern)
            },
            schur: BodySchur::for_mechanism(&mech),
            bodies,
            ce: ConstraintEval::default(),
            loads: vec![[0.0; 6]; nb],
            gtl: vec![[0.0; 6]; nb],
            friction: Vec::new(),
            friction_time: f64::NAN,
            jacobians: Vec::new(),
            jacobian_work: JacobianWork::new(&mech.initial.bodies),
            rhs: vec![0.0; n],
            b0: 0.0,
            tinv: vec![Matrix3::identity(); nb],
            r_kin: vec![[0.0; 6]; nb],
            circuit,
            evaluated: EvaluatedPoint::default(),
            stabilization: None,
            planar: None,
            mech,
        }
    }

    /// Runs the Newton iteration in the in-plane unknowns ([`super::planar_dae`]) if the
    /// mechanism is planar at `start` and its only load is gravity; true if it does.
    pub fn use_planar_kernels(&mut self, start: &MechState) -> bool {
        self.planar = match self.stabilization {
            Some(_) => None,
            None => PlanarNewton::for_mechanism(&self.mech, start).map(Box::new),
        };
        self.planar.is_some()
    }

    /// True if the Newton iteration runs in the in-plane unknowns.
    pub fn is_planar(&self) -> bool {
        self.planar.is_some()
    }

    /// Enforces the joints in the stabilized index-2 form ([`super::stabilized`]) from now on:
    /// the velocity constraints join the position constraints, and the algebraic unknowns
    /// become (lambda, mu). Call before an integrator sizes its unknowns.
    pub fn stabilize(&mut self) {
        self.planar = None;
        self.stabilization = Some(Box::new(Stabilization::new(&self.mech)));
    }

    /// Bodies of the chart point (y, y') around `base`.
    fn load_bodies(&mut self, base: &MechState, y: &[f64], yp: &[f64]) {
        for (b, s) in self.bodies.iter_mut().enumerate() {
            let o = 12 * b;
            s.r = v3(&y[o..]);
            s.rot = base.bodies[b].rot * exp(&v3(&y[o + 3..]));
            s.v = v3(&y[o + 6..]);
            s.w = v3(&y[o + 9..]);
            s.acc = v3(&yp[o + 6..]);
            s.wdot = v3(&yp[o + 9..]);
        }
    }

    /// Forgets the point of the last factorization (`bodies` and `ce` are about to be
    /// overwritten by another evaluation).
    pub(super) fn forget_evaluated_point(&mut self) {
        self.evaluated.current = false;
    }

    /// Forgets cached values that depend on the base state (after a state is restored).
    pub fn invalidate_caches(&mut self) {
        self.friction_time = f64::NAN;
        self.evaluated.current = false;
    }

    fn update_friction(&mut self, base: &MechState) {
        if self.friction_time != base.t || self.friction.len() != self.mech.joints.len() {
            forces::friction_forces(&self.mech, base, &mut self.friction);
            self.friction_time = base.t;
        }
    }
}

impl Index3Dae {
    /// Adds the 12 x 12 element blocks of the iteration matrix from `slot` on (the pattern's
    /// order: elements, then row block, then column block), `value(jac, r, c)` per entry;
    /// returns the next slot.
    pub(super) fn add_element_blocks(
        &mut self,
        mut slot: usize,
        value: impl Fn(&ElementJacobian, usize, usize) -> f64,
    ) -> usize {
        for jac in &self.jacobians {
            for rs in 0..2 {
                for cs in 0..2 {
                    if jac.bodies[rs].is_some() && jac.bodies[cs].is_some() {
                        for i in 0..6 {
                            for j in 0..6 {
                                self.kkt.add(slot, value(jac, rs * 6 + i, cs * 6 + j));
                                slot += 1;
                            }
                        }
                    }
                }
            }
        }
        slot
    }

    /// Adds the constraint rows G and columns G^T from `slot` on; returns the next slot.
    pub(super) fn add_constraint_rows(&mut self, mut slot: usize) -> usize {
        for (k, c) in self.mech.constraints.iter().enumerate() {
            for (s, b) in c.pair.iter().enumerate() {
                if b.is_some() {
                    for i in 0..6 {
                        self.kkt.add(slot, self.ce.rows[k][s][i]);
                        self.kkt.add(slot + 1, self.ce.rows[k][s][i]);
                        slot += 2;
                    }
                }
            }
        }
        slot
    }

    /// Adds the pressure rows and columns from `slot` on (the pattern's order, see
    /// [`Index3Dae::new`]): `pressure(i, j)` of the pressure block, `line(i, c)` the factor of
    /// actuator c's row g on pressure row i (a cylinder's line, a motor's joint rate),
    /// `push(c, j)` the factor of -g^T on the dynamic rows in pressure column j.
    pub(super) fn add_circuit_blocks(
        &mut self,
        w: &CircuitWork,
        mut slot: usize,
        pressure: impl Fn(usize, usize) -> f64,
        line: impl Fn(usize, usize) -> f64,
        push: impl Fn(usize, usize) -> f64,
    ) {
        let Some(h) = &self.mech.hydraulics else { return };
        let np = h.n_pressures();
        for i in 0..np {
            for j in 0..np {
                self.kkt.add(slot, pressure(i, j));
                slot += 1;
            }
        }
        for c in 0..h.n_actuators() {
            let rows = &w.lines[c].rows;
            for (end, b) in h.actuator_pair(c).iter().enumerate() {
                if b.is_none() {
                    continue;
                }
                for i in 0..np {
                    let f = line(i, c);
                    for g in &rows[end] {
                        self.kkt.add(slot, f * g);
                        slot += 1;
                    }
                }
                for j in h.chamber_volumes(c) {
                    let f = push(c, j);
                    for g in &rows[end] {
                        self.kkt.add(slot, -f * g);
                        slot += 1;
                    }
                }
            }
        }
    }
}

impl DaeSystem for Index3Dae {
    type State = MechState;

    fn n_diff(&self) -> usize {
        12 * self.mech.n_bodies() + self.mech.n_pressures()
    }

    fn n_alg(&self) -> usize {
        self.mech.n_constraints() * if self.stabilization.is_some() { 2 } else { 1 }
    }

    /// The pressure rows, where a circuit has valves or pumps that open along ramps or
    /// accumulators (their empty stops).
    fn damped_rows(&self) -> Option<std::ops::Range<usize>> {
        let h = self.mech.hydraulics.as_ref()?;
        let nb = 12 * self.mech.n_bodies();
        h.circuit.components.has_openings().then(|| nb..nb + h.n_pressures())
    }

    fn chart(&self, base: &MechState, state: &MechState, y: &mut [f64], yp: &mut [f64], lambda: &mut [f64]) {
        for (b, s) in state.bodies.iter().enumerate() {
            let o = 12 * b;
            let theta = log(&(base.bodies[b].rot.transpose() * s.rot));
            let theta_dot = tangent_inverse(&theta) * s.w;
            for i in 0..3 {
                y[o + i] = s.r[i];
                y[o + 3 + i] = theta[i];
                y[o + 6 + i] = s.v[i];
                y[o + 9 + i] = s.w[i];
                yp[o + i] = s.v[i];
                yp[o + 3 + i] = theta_dot[i];
                yp[o + 6 + i] = s.acc[i];
                yp[o + 9 + i] = s.wdot[i];
            }
        }
        // mu = 0 at a state: it lives within a step (the exact solution has mu = 0).
        let nc = state.lambda.len();
        lambda[..nc].copy_from_slice(&state.lambda);
        lambda[nc..].iter_mut().for_each(|m| *m = 0.0);
        if let Some(c) = &state.circuit {
            let o = 12 * state.bodies.len();
            y[o..].copy_from_slice(&c.p);
            yp[o..].copy_from_slice(&c.pd);
        }
    }

    fn lift(&self, base: &MechState, t: f64, y: &[f64], yp: &[f64], lambda: &[f64], out: &mut MechState) {
        out.t = t;
        for (b, s) in out.bodies.iter_mut().enumerate() {
            let o = 12 * b;
            s.r = v3(&y[o..]);
            s.rot = base.bodies[b].rot * exp(&v3(&y[o + 3..]));
            s.v = v3(&y[o + 6..]);
            s.w = v3(&y[o + 9..]);
            s.acc = v3(&yp[o + 6..]);
            s.wdot = v3(&yp[o + 9..]);
        }
        let nc = out.lambda.len();
        out.lambda.copy_from_slice(&lambda[..nc]);
        self.mech.update_angles(&out.bodies, &base.angles, &mut out.angles);
        self.mech.advance_drives(t, base, &mut out.drive_values);
        let friction: &[f64] = if self.friction_time == base.t { &self.friction } else { &[] };
        out.work = base.work + self.mech.work_increment(base, out, friction);
        out.energy0 = base.energy0;
        if let (Some(h), Some(b)) = (&self.mech.hydraulics, &base.circuit) {
            let o = 12 * out.bodies.len();
            if let Some(c) = &mut out.circuit {
                c.p.copy_from_slice(&y[o..]);
                c.pd.copy_from_slice(&yp[o..]);
                h.spools_at(base, t, &self.mech.inputs, &mut c.spools, &mut c.references);
            }
            for k in 0..h.circuit.n_cylinders() {
                let dw = h.work_increment(k, base, out);
                out.work += dw;
                if let Some(c) = &mut out.circuit {
                    c.cylinder_work[k] = b.cylinder_work[k] + dw;
                }
            }
            for k in 0..h.circuit.motors.len() {
                out.work += h.motor_work_increment(k, base, out, &|t, i| self.mech.inputs.at(i, t));
            }
        }
    }

    fn residual(
        &mut self,
        base: &MechState,
        t: f64,
        y: &[f64],
        yp: &[f64],
        lambda: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError> {
        if let Some(p) = &mut self.planar {
            p.residual(&self.mech, base, t, y, yp, lambda, out);
            return Ok(());
        }
        let evaluated = self.evaluated.take(t, base.t, y, yp);
        if !evaluated {
            self.load_bodies(base, y, yp);
        }
        self.update_friction(base);
        let m = &self.mech;
        let nb = m.n_bodies();
        m.applied_forces(t, &self.bodies, &base.angles, &self.friction, &mut self.loads);
        m.coupling_inertia_loads(&self.bodies, &mut self.loads);
        m.offset_inertia_loads(&self.bodies, &mut self.loads);
        let nd = 12 * nb + m.n_pressures();
        if let (Some(h), Some(w)) = (&m.hydraulics, &mut self.circuit) {
            let p = &y[12 * nb..nd];
            w.evaluate(m, base, t, &self.bodies, p, false)
                .map_err(|e| StepError::Model { time: t, what: e.to_string() })?;
            for (c, &f) in w.forces.iter().enumerate() {
                h.add_load(c, &self.bodies, f, &mut self.loads);
            }
            for ((r, pd), h) in out[12 * nb..nd].iter_mut().zip(&yp[12 * nb..nd]).zip(&w.rates) {
                *r = pd - h;
            }
        }
        if !evaluated {
            m.constraint_rows(t, base, &self.bodies, &mut self.ce);
        }
        let nc = m.n_constraints();
        let (lambda, mu) = lambda.split_at(nc);
        let gtl = &mut self.gtl;
        match &self.schur {
            Some(schur) => schur.rows_transpose(&self.ce.rows, lambda, gtl),
            None => {
                gtl.iter_mut().for_each(|g| *g = [0.0; 6]);
                super::add_rows_transpose(&m.constraints, &self.ce.rows, lambda, gtl);
            }
        }
        out[nd..nd + nc].copy_from_slice(&self.ce.phi);
        for (b, s) in self.bodies.iter().enumerate() {
            let o = 12 * b;
            let p = &m.bodies[b];
            let theta = v3(&y[o + 3..]);
            let kin_rot = tangent(&theta) * v3(&yp[o + 3..]) - s.w;
            let dyn_rot =
                p.inertia * s.wdot + s.w.cross(&(p.inertia * s.w)) + v3(&gtl[b][3..]) - v3(&self.loads[b][3..]);
            for i in 0..3 {
                out[o + i] = yp[o + i] - s.v[i];
                out[o + 3 + i] = kin_rot[i];
                out[o + 6 + i] = p.mass * s.acc[i] + gtl[b][i] - self.loads[b][i];
                out[o + 9 + i] = dyn_rot[i];
            }
        }
        if let Some(st) = &mut self.stabilization {
            // The stabilized form's kinematic and velocity rows ([`super::stabilized`]).
            let (rows, velocity_rows) = out.split_at_mut(nd + nc);
            let push = st.residual_terms(m, t, base, &self.bodies, &self.ce, mu, velocity_rows);
            for (body, p) in rows.chunks_exact_mut(12).zip(push) {
                for (r, p) in body[..6].iter_mut().zip(p) {
                    *r += p;
                }
            }
        }
        Ok(())
    }

    fn factor(
        &mut self,
        base: &MechState,
        t: f64,
        b0: f64,
        y: &[f64],
        yp: &[f64],
        _lambda: &[f64],
    ) -> Result<(), StepError> {
        if let Some(p) = &mut self.planar {
            return p.factor(&self.mech, base, t, b0, y);
        }
        self.load_bodies(base, y, yp);
        self.update_friction(base);
        let m = &self.mech;
        let nb = m.n_bodies();
        let nc = m.n_constraints();
        m.constraint_rows(t, base, &self.bodies, &mut self.ce);
        self.evaluated.set(t, base.t, y, yp);
        if let Some(st) = &mut self.stabilization {
            st.factor(t, &self.ce, &self.bodies)?;
        }
        m.force_jacobians(t, &self.bodies, &base.angles, &mut self.jacobian_work, &mut self.jacobians);
        if let (Some(h), Some(w)) = (&m.hydraulics, &mut self.circuit) {
            let p = &y[12 * nb..12 * nb + h.n_pressures()];
            w.evaluate(m, base, t, &self.bodies, p, true)
                .map_err(|e| StepError::Model { time: t, what: e.to_string() })?;
            w.element_jacobians(h, &self.bodies, &mut self.jacobians);
        }
        self.b0 = b0;
        for b in 0..nb {
            self.tinv[b] = tangent_inverse(&v3(&y[12 * b + 3..]));
        }
        if let Some(schur) = &mut self.schur {
            // -b0 C - b0^2 K of elements on one body (see below), then A and S.
            schur.clear_loads();
            for jac in &self.jacobians {
                for rs in 0..2 {
                    for cs in 0..2 {
                        if let (Some(rb), Some(_)) = (jac.bodies[rs], jac.bodies[cs]) {
                            for i in 0..6 {
                                for j in 0..6 {
                                    let (r, c) = (rs * 6 + i, cs * 6 + j);
                                    schur.add_load(rb, i, j, -b0 * jac.damping[r][c] - b0 * b0 * jac.stiffness[r][c]);
                                }
                            }
                        }
                    }
                }
            }
            let bodies = &self.bodies;
            return schur
                .factor(m, &self.ce.rows, |b| m.bodies[b].inertia + m.gyroscopic_jacobian(b, &bodies[b].w) * b0)
                .map_err(|e| StepError::Singular {
                    time: t,
                    detail: format!("iteration matrix ({} bodies, {} constraints): {e:?}", nb, nc),
                });
        }
        self.kkt.clear();
        let mut slot = 0;
        for (b, s) in self.bodies.iter().enumerate() {
            let p = &m.bodies[b];
            let gyro = m.gyroscopic_jacobian(b, &s.w);
            // A reference point off the centre of mass couples translation and rotation
            // (Mechanism::offset_block); every other body keeps its diagonal block.
            let offset = m.offset_block(b, s, b0);
            for i in 0..6 {
                for j in 0..6 {
                    let v = match (i < 3, j < 3) {
                        (true, true) if i == j => p.mass,
                        (false, false) => p.inertia[(i - 3, j - 3)] + b0 * gyro[(i - 3, j - 3)],
                        _ => 0.0,
                    };
                    self.kkt.add(slot, offset.map_or(v, |o| v + o[i][j]));
                    slot += 1;
                }
            }
        }
        // -b0 C - b0^2 K of the force elements (Q is a force, so the residual gets -Q), and
        // the consistent beam masses' + c [-I I; I -I] on the accelerations.
        let slot = self.add_element_blocks(slot, |jac, r, c| {
            let mass = if r % 6 == c % 6 && r % 6 < 3 {
                jac.mass_coupling * if r / 6 == c / 6 { -1.0 } else { 1.0 }
            } else {
                0.0
            };
            mass - b0 * jac.damping[r][c] - b0 * b0 * jac.stiffness[r][c]
        });
        let slot = self.add_constraint_rows(slot);
        if let Some(w) = self.circuit.take() {
            // Pressure rows: d/dpd of pd - h = I - b0 dh/dp; through the lines' lengths and
            // rates (dq = b0^2 da, dv = b0 da): -(b0^2 dh/d|s| + b0 dh/ds') g. Dynamic rows:
            // -b0 dF/dp g^T (the push enters the residual with a minus sign).
            let (np, nc) = (self.mech.n_pressures(), w.forces.len());
            let j = &w.jacobian;
            self.add_circuit_blocks(
                &w,
                slot,
                |a, b| f64::from(u8::from(a == b)) - b0 * j.dp_dp[a * np + b],
                |i, c| -(b0 * b0 * j.dp_ds[i * nc + c] + b0 * j.dp_dv[i * nc + c]),
                |c, v| b0 * j.df_dp[c * np + v],
            );
            self.circuit = Some(w);
        }
        self.kkt.factor().map_err(|e| StepError::Singular {
            time: t,
            detail: format!("iteration matrix ({} bodies, {} constraints): {e:?}", nb, nc),
        })
    }

    fn solve(&mut self, r: &[f64], dyp: &mut [f64], dlambda: &mut [f64]) -> Result<(), StepError> {
        if let Some(p) = &mut self.planar {
            return p.solve(&self.mech, r, dyp, dlambda);
        }
        let m = &self.mech;
        let nb = m.n_bodies();
        let b0 = self.b0;
        for b in 0..nb {
            let o = 12 * b;
            for i in 0..3 {
                self.r_kin[b][i] = r[o + i];
                self.r_kin[b][3 + i] = r[o + 3 + i];
                self.rhs[6 * b + i] = -r[o + 6 + i];
                self.rhs[6 * b + 3 + i] = -r[o + 9 + i];
            }
        }
        // - b0 K r_kin on the dynamic rows.
        for jac in &self.jacobians {
            for rs in 0..2 {
                let Some(rb) = jac.bodies[rs] else { continue };
                for cs in 0..2 {
                    let Some(cb) = jac.bodies[cs] else { continue };
                    for i in 0..6 {
                        let s: f64 = (0..6).map(|j| jac.stiffness[rs * 6 + i][cs * 6 + j] * self.r_kin[cb][j]).sum();
                        // residual linearization: -K (b0^2 da - b0 r_kin) -> +b0 K r_kin moves to the rhs with a minus sign
                        self.rhs[6 * rb + i] -= b0 * s;
                    }
                }
            }
        }
        let (np, nc) = (m.n_pressures(), m.n_constraints());
        let nd = 12 * nb + np;
        if let Some(st) = &mut self.stabilization {
            // r_kin + W G^T dmu, and the velocity rows' right-hand side ([`super::stabilized`]).
            let (phi, velocity) = r[nd..].split_at(nc);
            let dmu = st.correct_kinematics(m, &self.ce, b0, phi, velocity, &mut self.r_kin)?;
            dlambda[nc..].copy_from_slice(dmu);
            for (rhs, v) in self.rhs[6 * nb..6 * nb + nc].iter_mut().zip(velocity) {
                *rhs = -v / b0;
            }
        } else {
            for (k, c) in m.constraints.iter().enumerate() {
                let g_rkin = super::row_times(c, &self.ce.rows[k], &self.r_kin);
                self.rhs[6 * nb + k] = (-r[nd + k] + b0 * g_rkin) / (b0 * b0);
            }
        }
        if let (Some(h), Some(w)) = (&m.hydraulics, &self.circuit) {
            // -r_p - b0 dh/d|s| g r_kin: the known part of the lines' length change.
            let first = 6 * nb + nc;
            for i in 0..np {
                self.rhs[first + i] = -r[12 * nb + i];
            }
            let ncyl = w.forces.len();
            for c in 0..h.n_actuators() {
                let g_rkin: f64 = h
                    .actuator_pair(c)
                    .iter()
                    .zip(&w.lines[c].rows)
                    .filter_map(|(b, row)| b.map(|b| row.iter().zip(&self.r_kin[b]).map(|(g, x)| g * x).sum::<f64>()))
                    .sum();
                for i in 0..np {
                    self.rhs[first + i] -= b0 * w.jacobian.dp_ds[i * ncyl + c] * g_rkin;
                }
            }
        }
        let solved = match &mut self.schur {
            Some(schur) => schur.solve(&m.constraints, &mut self.rhs),
            None => self.kkt.solve(&mut self.rhs),
        };
        if !solved {
            return Err(StepError::Singular {
                time: f64::NAN,
                detail: "Newton solve produced non-finite values".into(),
            });
        }
        for b in 0..nb {
            let o = 12 * b;
            let da = &self.rhs[6 * b..6 * b + 6];
            let dtheta = self.tinv[b] * (v3(&da[3..]) * b0 - v3(&self.r_kin[b][3..]));
            for i in 0..3 {
                dyp[o + 6 + i] = da[i];
                dyp[o + 9 + i] = da[3 + i];
                dyp[o + i] = b0 * da[i] - self.r_kin[b][i];
                dyp[o + 3 + i] = dtheta[i];
            }
        }
        dlambda[..nc].copy_from_slice(&self.rhs[6 * nb..6 * nb + nc]);
        dyp[12 * nb..].copy_from_slice(&self.rhs[6 * nb + nc..]);
        Ok(())
    }

    /// The position-level change of the iteration: b0 dr' and b0 dtheta' (what positions and
    /// rotations actually moved; equal to b0^2 da of \[Fang2023\]'s unknowns once the kinematic
    /// rows hold, and also counting the first iteration's kinematic alignment) and b0^2 dlambda.
    fn correction_norm(&self, b0: f64, dyp: &[f64], dlambda: &[f64]) -> f64 {
        let mut s = 0.0;
        let nd = 12 * self.mech.n_bodies();
        for body in dyp[..nd].chunks_exact(12) {
            s += body[..6].iter().map(|x| x * x).sum::<f64>();
        }
        let positions = b0 * b0 * s;
        // lambda only: mu moves the positions, which `dyp` already counts.
        let nc = self.mech.n_constraints();
        let multipliers = b0.powi(4) * dlambda[..nc].iter().map(|x| x * x).sum::<f64>();
        // Pressures b0 dp' in units of the pressure tolerance, as position tolerances.
        let pressures = match &self.mech.hydraulics {
            Some(h) => (b0 * h.pressure_weight).powi(2) * dyp[nd..].iter().map(|x| x * x).sum::<f64>(),
            None => 0.0,
        };
        (positions + multipliers + pressures).sqrt()
    }

    fn time(&self, state: &MechState) -> f64 {
        state.t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The double pendulum, optionally with a spring-damper from bar 2 to ground (an element
    /// on one body: the Schur path's loaded 6 x 6 block).
    fn pendulum(spring: bool) -> Mechanism {
        let mut json: serde_json::Value =
            serde_json::from_str(mbfmu_model::catalog::find("DoublePendulum").expect("catalog").json).expect("json");
        if spring {
            json["forces"] = serde_json::json!([{
                "type": "tsda", "name": "spring", "body1": "bar2", "body2": "ground",
                "point1": [0.5, 0.1, 0.0], "point2": [0.0, 3.0, -2.5],
                "stiffness": 3.0e4, "damping": 2.0e3, "rest_length": 0.5
            }]);
        }
        let d = mbfmu_model::format::parse(&json.to_string()).expect("valid description");
        Mechanism::from_description(&d).expect("builds")
    }

    /// The iteration matrix solved through the per-body Schur complement gives the whole
    /// matrix's LU solution to 1e-11 relative: rigid blocks and a loaded block, with the
    /// gyroscopic term of a spinning state (not symmetric).
    #[test]
    fn schur_path_solves_the_whole_iteration_matrix() {
        for spring in [false, true] {
            let mut with = Index3Dae::new(pendulum(spring));
            let mut without = Index3Dae::new(pendulum(spring));
            assert!(with.schur.is_some(), "the pendulum takes the Schur path");
            without.schur = None;
            let mut state = with.mech.initial.clone();
            with.mech.assemble(&mut state).expect("assembles");
            for (k, s) in state.bodies.iter_mut().enumerate() {
                s.w = Vector3::new(3.0 + k as f64, -1.5, 0.7);
                s.v = Vector3::new(0.2, -0.4 * k as f64, 1.1);
            }
            let (nd, na) = (with.n_diff(), with.n_alg());
            let (mut y, mut yp, mut lambda) = (vec![0.0; nd], vec![0.0; nd], vec![0.0; na]);
            with.chart(&state, &state, &mut y, &mut yp, &mut lambda);
            let r: Vec<f64> = (0..nd + na).map(|i| ((i as f64) * 0.37).sin()).collect();
            let b0 = 2e-3;
            let mut out = [(vec![0.0; nd], vec![0.0; na]), (vec![0.0; nd], vec![0.0; na])];
            for (dae, (dyp, dl)) in [&mut with, &mut without].into_iter().zip(out.iter_mut()) {
                dae.residual(&state, 0.0, &y, &yp, &lambda, &mut vec![0.0; nd + na]).expect("residual");
                dae.factor(&state, 0.0, b0, &y, &yp, &lambda).expect("factors");
                dae.solve(&r, dyp, dl).expect("solves");
            }
            let close = |a: &[f64], b: &[f64], what: &str| {
                let scale = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                for (k, (u, v)) in a.iter().zip(b).enumerate() {
                    assert!((u - v).abs() <= 1e-11 * scale, "{what} {k} (spring {spring}): {u} vs {v}");
                }
            };
            close(&out[0].0, &out[1].0, "dy'");
            close(&out[0].1, &out[1].1, "dlambda");
        }
    }
}
