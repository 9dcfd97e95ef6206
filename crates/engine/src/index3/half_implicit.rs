//! The half-implicit method for index-3 DAEs ([Fang2023, Sect. 2.2]): symplectic Euler,
//! explicit at velocity level (Eqs. 4a-b), implicit at position level (Eqs. 4c-d).
//!
//! Unknowns r_{n+1}, theta_bar = h w_bar_{n+1} and lambda_hat = h^2 lambda_n (Eq. 6) solve
//!   e1 = M r + Phi_r(q_n)^T lambda_hat + b_n = 0,       b_n = -(M r_n + h M r'_n + h^2 f_n)   (5a, 7a)
//!   e2 = J_bar theta_bar + Pi_bar(q_n)^T lambda_hat + c_n = 0,
//!        c_n = h^2 (w~_n J_bar w_n - n_bar_n) - h J_bar w_n                                  (5b, 7b)
//!   e3 = Phi(r, A_n exp(theta_bar~), t_{n+1}) = 0                                             (5c, 5d)
//! with the quasi-Newton matrix of Eq. (12) built once per step at q_n and solved through its
//! Schur complement; iterations stop when ||dq|| < tol (Eq. 8; the tolerance scaled to the
//! unknowns and a stagnation at the round-off floor accepted, `integrators::convergence`). Afterwards
//! lambda_n = lambda_hat/h^2, r'_{n+1} = (r_{n+1} - r_n)/h, w_bar_{n+1} = theta_bar/h.
//!
//! A body whose reference point is not its centre of mass (a beam node carrying a body attached
//! off the node, static moment s = m c) has the generalized mass [m I, -A s~; s~ A^T, J_bar]
//! ([NewtonEuler, "Any reference frame"], `Mechanism::offset_mass`) instead of diag(m I,
//! J_bar). Taken at A_n over the step, as the rest of Eq. (12), its rows become
//!   e1 = m (r - r_n - h r'_n) - A_n s~ (theta_bar - h w_n) + h^2 (A_n w~_n w~_n s - f_n) + ...
//!   e2 = s~ A_n^T (r - r_n - h r'_n) + J_bar (theta_bar - h w_n) + h^2 (w~_n J_bar w_n - n_bar_n) + ...
//! (Eqs. 5a-b with h^2 r'' = r - r_n - h r'_n and h^2 w_bar' = theta_bar - h w_n in the
//! inertia terms of `Mechanism::offset_inertia_loads`): still linear in the unknowns, the
//! velocity products explicit as w~ J_bar w is, and W = M^-1 of the Schur complement is the
//! inverse of that 6 x 6 block (constant in the body frame, turned by A_n each step,
//! `Schur::with_offset_masses`).
//!
//! A planar mechanism (`planar.rs`) takes the same step in its in-plane unknowns
//! (`planar_step.rs`); [`HalfImplicit::spatial`] keeps the spatial kernels for any mechanism.

use super::forces::{self, offset_force, offset_moment};
use super::planar::PlanarModel;
use super::planar_step::PlanarHalfImplicit;
use super::schur::{Gen, Schur};
use super::{ConstraintEval, MechState, Mechanism};
use crate::integrators::{Convergence, FloorReport, NewtonSettings, StepError, StepStats};
use crate::rotation::exp_step;
use nalgebra::Vector3;

/// Work arrays of the half-implicit method, allocated once.
#[derive(Debug)]
pub struct HalfImplicit {
    schur: Schur,
    ce: ConstraintEval,
    friction: Vec<f64>,
    loads: Vec<Gen>,
    /// Current iterate: per body [r, theta_bar].
    x: Vec<Gen>,
    lambda_hat: Vec<f64>,
    e12: Vec<Gen>,
    /// W e12 of the first Newton step.
    dx0: Vec<Gen>,
    /// Zeros in place of `dx0` after the first Newton step.
    zero: Vec<Gen>,
    phi: Vec<f64>,
    rhs: Vec<f64>,
    dx: Vec<Gen>,
    next: MechState,
    /// The in-plane step of a planar mechanism (None: the spatial kernels above).
    planar: Option<Box<PlanarHalfImplicit>>,
    /// Steps accepted at the round-off floor (cumulative).
    pub floor: FloorReport,
}

impl HalfImplicit {
    /// The method for `m` starting at `start`, with the planar kernels if the mechanism is
    /// planar there.
    pub fn new(m: &Mechanism, start: &MechState) -> Self {
        let mut hi = Self::spatial(m, start);
        hi.planar = PlanarModel::detect(m, start).map(|p| Box::new(PlanarHalfImplicit::new(p, m, start)));
        hi
    }

    /// The method with the spatial kernels, whatever the mechanism.
    pub fn spatial(m: &Mechanism, start: &MechState) -> Self {
        let (nb, nc) = (m.n_bodies(), m.n_constraints());
        HalfImplicit {
            schur: Schur::with_offset_masses(m),
            ce: ConstraintEval::default(),
            friction: Vec::new(),
            loads: vec![[0.0; 6]; nb],
            x: vec![[0.0; 6]; nb],
            lambda_hat: vec![0.0; nc],
            e12: vec![[0.0; 6]; nb],
            dx0: vec![[0.0; 6]; nb],
            zero: vec![[0.0; 6]; nb],
            phi: vec![0.0; nc],
            rhs: vec![0.0; nc],
            dx: vec![[0.0; 6]; nb],
            next: start.clone(),
            planar: None,
            floor: FloorReport::default(),
        }
    }

    /// True if the step runs the planar kernels.
    pub fn is_planar(&self) -> bool {
        self.planar.is_some()
    }

    /// Advances `state` by `h`. On error `state` is unchanged.
    pub fn step(
        &mut self,
        m: &Mechanism,
        state: &mut MechState,
        h: f64,
        settings: &NewtonSettings,
    ) -> Result<StepStats, StepError> {
        if let Some(p) = &mut self.planar {
            return p.step(m, state, h, settings, &mut self.floor);
        }
        let t1 = state.t + h;
        if !(h.is_finite() && h > 0.0) {
            return Err(StepError::BadStep { time: state.t, h });
        }
        let nc = m.n_constraints();
        // Loads at t_n (explicit), with friction from the previous multipliers (Sect. 3.4).
        forces::friction_forces(m, state, &mut self.friction);
        m.applied_forces(state.t, &state.bodies, &state.angles, &self.friction, &mut self.loads);
        for (b, (s, load)) in state.bodies.iter().zip(self.loads.iter_mut()).enumerate() {
            let g = m.gyroscopic(b, &s.w);
            for (l, g) in load[3..].iter_mut().zip(g.iter()) {
                *l += g;
            }
        }
        // Quasi-Newton matrix (Eq. 12) at q_n: Jacobian rows and the Schur complement.
        if nc > 0 {
            if self.schur.needs_rows() {
                m.constraint_rows(state.t, state, &state.bodies, &mut self.ce);
            }
            self.schur.factor(&self.ce.rows, &state.bodies).map_err(|e| StepError::Singular {
                time: state.t,
                detail: format!("constraint Jacobian is rank deficient ({e:?})"),
            })?;
        } else {
            self.schur.turn(&state.bodies);
        }
        // Predictor: the previous accelerations carried over one step.
        for (x, s) in self.x.iter_mut().zip(&state.bodies) {
            for i in 0..3 {
                x[i] = s.r[i] + h * s.v[i] + h * h * s.acc[i];
                x[3 + i] = h * s.w[i] + h * h * s.wdot[i];
            }
        }
        for (l, lam) in self.lambda_hat.iter_mut().zip(&state.lambda) {
            *l = h * h * lam;
        }
        // Every field of `next` but `energy0` is written below (the bodies' positions and
        // rotations in each iteration, everything else once converged).
        self.next.t = t1;
        self.next.energy0 = state.energy0;
        // First Newton step from (x, lambda_hat): dx = -W (e12 + G^T (lambda_hat + dl)),
        // S (lambda_hat + dl) = e3 - G W e12 with
        // e12 = [M (r - r_n - h r'_n) - h^2 f_n ; J_bar (theta - h w_n) - h^2 tau_n]: it solves for
        // the new multipliers lambda_hat + dl directly (the predicted ones enter only through
        // the size of the correction dl). The matrix of Eq. (12) is exact for the linear rows
        // e1, e2 (M, J_bar, G fixed over the step; a static moment's coupling at A_n), so after
        // this step e1 = e2 = 0 and later steps reduce to S dl = e3, dx = -W G^T dl.
        let per_body = state.bodies.iter().zip(&m.bodies).zip(self.x.iter().zip(&self.loads));
        for (b, (((s, p), (x, load)), (e12, dx0))) in
            per_body.zip(self.e12.iter_mut().zip(self.dx0.iter_mut())).enumerate()
        {
            for i in 0..3 {
                e12[i] = p.mass * (x[i] - s.r[i] - h * s.v[i]) - h * h * load[i];
            }
            let theta = Vector3::new(x[3], x[4], x[5]);
            let e2 = p.inertia * (theta - s.w * h) - Vector3::new(load[3], load[4], load[5]) * (h * h);
            e12[3..].copy_from_slice(e2.as_slice());
            if let Some(sm) = &p.static_moment {
                // h^2 times the offset inertia terms, with h^2 r'' = r - r_n - h r'_n and
                // h^2 w_bar' = theta_bar - h w_n (the velocity product at w_n, explicit).
                let dr = Vector3::new(x[0], x[1], x[2]) - s.r - s.v * h;
                let f = offset_force(&s.rot, &(theta - s.w * h), &(s.w * h), sm);
                let n = offset_moment(&s.rot, &dr, sm);
                for i in 0..3 {
                    e12[i] += f[i];
                    e12[3 + i] += n[i];
                }
            }
            self.schur.apply_w(b, e12, dx0);
        }
        let mut iterations = 0;
        let mut norm = f64::INFINITY;
        let mut test = Convergence::new(settings.tolerance);
        let mut converged = false;
        while iterations < settings.max_iterations {
            iterations += 1;
            let first = iterations == 1;
            // Configuration of the iterate and e3 = Phi(q, t_{n+1}).
            for ((s, x), old) in self.next.bodies.iter_mut().zip(&self.x).zip(&state.bodies) {
                s.r = Vector3::new(x[0], x[1], x[2]);
                s.rot = old.rot * exp_step(&Vector3::new(x[3], x[4], x[5]));
            }
            let mut sum = 0.0;
            if nc > 0 {
                m.constraint_values(t1, state, &self.next.bodies, &mut self.rhs);
                if first {
                    self.schur.g_times(&self.ce.rows, &self.dx0, &mut self.phi);
                    for (r, g) in self.rhs.iter_mut().zip(&self.phi) {
                        *r -= g;
                    }
                }
                if !self.schur.solve(&mut self.rhs) {
                    return Err(StepError::Singular {
                        time: t1,
                        detail: "Schur complement solve produced non-finite values".into(),
                    });
                }
                self.schur.w_gt(&self.rhs, &mut self.dx);
                // The first step's solution is the new lambda_hat, later ones corrections
                // (one loop per case: no branch per row).
                if first {
                    for (l, &r) in self.lambda_hat.iter_mut().zip(&self.rhs) {
                        let d = r - *l;
                        *l = r;
                        sum += d * d;
                    }
                } else {
                    for (l, &r) in self.lambda_hat.iter_mut().zip(&self.rhs) {
                        *l += r;
                        sum += r * r;
                    }
                }
            } else {
                self.dx.iter_mut().for_each(|d| *d = [0.0; 6]);
            }
            // dx + dx0 in the first step, dx + 0 (a zero of either sign made +0) after it.
            let offsets = if first { &self.dx0 } else { &self.zero };
            for ((x, dx), dx0) in self.x.iter_mut().zip(&self.dx).zip(offsets) {
                for i in 0..6 {
                    let d = dx[i] + dx0[i];
                    x[i] -= d;
                    sum += d * d;
                }
            }
            norm = sum.sqrt();
            if !norm.is_finite() {
                return Err(StepError::NonFinite { time: t1, what: "half-implicit Newton correction".into() });
            }
            // The size of the unknowns [x; lambda_hat] for the relative part of the tolerance.
            let (x, lambda_hat) = (&self.x, &self.lambda_hat);
            let size = || {
                let sx: f64 = x.iter().flat_map(|g| g.iter()).map(|v| v * v).sum();
                (sx + lambda_hat.iter().map(|v| v * v).sum::<f64>()).sqrt()
            };
            // Eq. (8) is strict (||dq|| < tol); equality is a measure-zero case.
            converged = self.floor.settle(test.check(norm, size), t1);
            if converged {
                break;
            }
        }
        if !converged {
            return Err(StepError::NotConverged { time: t1, iterations, norm, tolerance: settings.tolerance });
        }
        // Velocities and accelerations (Eqs. 4a-4d), multipliers lambda_n.
        for ((s, old), x) in self.next.bodies.iter_mut().zip(&state.bodies).zip(&self.x) {
            s.r = Vector3::new(x[0], x[1], x[2]);
            let theta = Vector3::new(x[3], x[4], x[5]);
            s.rot = old.rot * exp_step(&theta);
            s.v = (s.r - old.r) / h;
            s.w = theta / h;
            s.acc = (s.v - old.v) / h;
            s.wdot = (s.w - old.w) / h;
        }
        for (l, lh) in self.next.lambda.iter_mut().zip(&self.lambda_hat) {
            *l = lh / (h * h);
        }
        m.update_angles(&self.next.bodies, &state.angles, &mut self.next.angles);
        m.advance_drives(t1, state, &mut self.next.drive_values);
        self.next.work = state.work + m.work_increment(state, &self.next, &self.friction);
        if self.next.bodies.iter().any(|s| !(s.r.iter().chain(s.v.iter()).chain(s.w.iter()).all(|x| x.is_finite()))) {
            return Err(StepError::NonFinite { time: t1, what: "state after a half-implicit step".into() });
        }
        std::mem::swap(state, &mut self.next);
        Ok(StepStats { iterations, stages: 1, reused: 0 })
    }
}
