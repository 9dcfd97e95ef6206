//! The partitioned equations of motion of generalized coordinate partitioning (\[Negrut1997\]
//! Sect. 1, eqs. 5-13), evaluated on the index-3 mechanism's constraints and forces.
//!
//! With q = (u, v) (dependent, independent) and the chart of [`super::chart`]:
//! - positions: Phi(u, v, t) = 0 solved for u by Newton from the last accepted u (eqs. 9-10);
//! - velocities: Phi_u u' = nu - Phi_v v' (eq. 8);
//! - accelerations: Phi_u u'' = tau_q - Phi_v v'' (eq. 7), tau_q the acceleration right side
//!   of eq. 3 in chart coordinates (gamma of the index-3 rows minus Pi_bar T' theta');
//! - the reduced residual Psi = r_v + H^T r_u (eq. 14 with lambda eliminated through eq. 6),
//!   r_q = B^-T (M nu' - Q) the generalized residual in chart coordinates (B^-T = diag(I, T^T)
//!   per body, nu = (r', w_bar)) and H = du/dv = -Phi_u^-1 Phi_v;
//! - the reduced mass matrix M_hat = (E P)^T M (E P) (eq. 12), P = dq/dv = [H; I],
//!   E = diag(I, T), so that Psi = M_hat v'' - Q_hat (eqs. 11, 13);
//! - the multipliers lambda = -Phi_u^-T r_u (eq. 6).
//!
//! Work arrays are allocated once; evaluations allocate nothing.

use super::chart::{tangent_rate, Chart};
use super::partition::Partition;
use crate::index3::{friction_forces, BodyState, ConstraintEval, MechState, Mechanism, Wrench};
use crate::integrators::{NewtonSettings, StepError};
use crate::linalg::DenseLu;
use faer::Mat;
use nalgebra::{Matrix3, Vector3};

/// Where a generalized coordinate sits in the partition.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Dependent(usize),
    Independent(usize),
}

pub struct Reduced {
    pub n: usize,
    pub m: usize,
    pub nd: usize,
    pub partition: Partition,
    role: Vec<Role>,
    /// Coordinates, velocities and accelerations of the last evaluation.
    pub q: Vec<f64>,
    pub qd: Vec<f64>,
    pub qdd: Vec<f64>,
    /// Where the dependent positions start their Newton iteration (the last accepted q).
    anchor: Vec<f64>,
    /// Body states of the last evaluation.
    pub bodies: Vec<BodyState>,
    tangents: Vec<Matrix3<f64>>,
    /// T'(theta, theta') theta' per body.
    rates: Vec<Vector3<f64>>,
    ce: ConstraintEval,
    phi_u: DenseLu,
    phi_v: Mat<f64>,
    h: Mat<f64>,
    tau_q: Vec<f64>,
    rhs: Vec<f64>,
    loads: Vec<Wrench>,
    /// Coulomb friction forces held over a step ([Fang2023, Sect. 3.4]).
    pub friction: Vec<f64>,
    rq: Vec<f64>,
    g: Mat<f64>,
    pub mhat: Mat<f64>,
    mhat_lu: DenseLu,
    /// Psi of the last residual evaluation.
    pub psi: Vec<f64>,
    /// Position-level evaluations (each with a Newton solve for u) since construction.
    pub evaluations: u64,
    /// Evaluations of the independent accelerations (each factoring M_hat) since construction.
    pub acceleration_evaluations: u64,
}

impl std::fmt::Debug for Reduced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reduced").field("n", &self.n).field("m", &self.m).field("partition", &self.partition).finish()
    }
}

fn v3(s: &[f64]) -> Vector3<f64> {
    Vector3::new(s[0], s[1], s[2])
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

impl Reduced {
    pub fn new(mech: &Mechanism, partition: Partition, bodies: &[BodyState]) -> Reduced {
        let nb = mech.n_bodies();
        let (n, m) = (6 * nb, mech.n_constraints());
        let nd = n - m;
        let mut r = Reduced {
            n,
            m,
            nd,
            partition: Partition { dependent: Vec::new(), independent: Vec::new() },
            role: vec![Role::Dependent(0); n],
            q: vec![0.0; n],
            qd: vec![0.0; n],
            qdd: vec![0.0; n],
            anchor: vec![0.0; n],
            bodies: bodies.to_vec(),
            tangents: vec![Matrix3::identity(); nb],
            rates: vec![Vector3::zeros(); nb],
            ce: ConstraintEval::default(),
            phi_u: DenseLu::new(m, nd),
            phi_v: Mat::zeros(m, nd),
            h: Mat::zeros(m, nd),
            tau_q: vec![0.0; m],
            rhs: vec![0.0; m],
            loads: vec![[0.0; 6]; nb],
            friction: vec![0.0; mech.joints.len()],
            rq: vec![0.0; n],
            g: Mat::zeros(n, nd),
            mhat: Mat::zeros(nd, nd),
            mhat_lu: DenseLu::new(nd, 1),
            psi: vec![0.0; nd],
            evaluations: 0,
            acceleration_evaluations: 0,
        };
        r.set_partition(partition);
        r
    }

    pub fn set_partition(&mut self, p: Partition) {
        assert_eq!(p.dependent.len(), self.m);
        assert_eq!(p.independent.len(), self.nd);
        self.partition = p;
        self.assign_roles();
    }

    fn assign_roles(&mut self) {
        for (k, &j) in self.partition.dependent.iter().enumerate() {
            self.role[j] = Role::Dependent(k);
        }
        for (c, &j) in self.partition.independent.iter().enumerate() {
            self.role[j] = Role::Independent(c);
        }
    }

    /// The next position solves start from the current coordinates.
    pub fn set_anchor(&mut self) {
        self.anchor.copy_from_slice(&self.q);
    }

    pub fn anchor(&self) -> &[f64] {
        &self.anchor
    }

    /// [`Reduced::set_partition`] from a borrowed partition, reusing the storage.
    pub fn set_partition_from(&mut self, p: &Partition) {
        assert_eq!(p.dependent.len(), self.m);
        assert_eq!(p.independent.len(), self.nd);
        self.partition.dependent.clone_from(&p.dependent);
        self.partition.independent.clone_from(&p.independent);
        self.assign_roles();
    }

    pub fn set_anchor_to(&mut self, q: &[f64]) {
        self.anchor.copy_from_slice(q);
    }

    /// Largest over smallest pivot of the LU of Phi_u at the last evaluation.
    pub fn pivot_ratio(&self) -> f64 {
        self.phi_u.pivot_ratio
    }

    /// Friction forces of the step that starts at `base` (held over the step).
    pub fn hold_friction(&mut self, mech: &Mechanism, base: &MechState) {
        friction_forces(mech, base, &mut self.friction);
    }

    /// The full constraint Jacobian Phi_q (m x n) in chart coordinates at the bodies' current
    /// configuration (for choosing a partition).
    pub fn full_jacobian(&mut self, mech: &Mechanism, chart: &Chart, t: f64, base: &MechState, q: &[f64]) -> Mat<f64> {
        self.q.copy_from_slice(q);
        chart.place(&self.q, &mut self.bodies, &mut self.tangents);
        mech.constraint_jacobian(t, base, &self.bodies, &mut self.ce);
        let mut out = Mat::zeros(self.m, self.n);
        for (k, c) in mech.constraints.iter().enumerate() {
            for (slot, b) in c.pair.iter().enumerate() {
                let Some(b) = *b else { continue };
                let row = &self.ce.rows[k][slot];
                let pt = self.tangents[b].transpose() * v3(&row[3..]);
                for i in 0..6 {
                    out[(k, 6 * b + i)] = if i < 3 { row[i] } else { pt[i - 3] };
                }
            }
        }
        out
    }

    /// Phi_u and Phi_v from the constraint rows: per body d/dr and d/dpi_bar T(theta).
    fn fill_jacobian(&mut self, mech: &Mechanism) {
        let m = self.m;
        let Reduced { phi_u, phi_v, ce, role, tangents, .. } = self;
        let mut a = phi_u.matrix();
        for j in 0..m {
            for i in 0..m {
                a[(i, j)] = 0.0;
            }
        }
        phi_v.fill(0.0);
        for (k, c) in mech.constraints.iter().enumerate() {
            for (slot, b) in c.pair.iter().enumerate() {
                let Some(b) = *b else { continue };
                let row = &ce.rows[k][slot];
                let pt = tangents[b].transpose() * v3(&row[3..]);
                for i in 0..6 {
                    let value = if i < 3 { row[i] } else { pt[i - 3] };
                    match role[6 * b + i] {
                        Role::Dependent(col) => a[(k, col)] = value,
                        Role::Independent(col) => phi_v[(k, col)] = value,
                    }
                }
            }
        }
    }

    /// Dependent positions for independent positions `v` at time `t` (eqs. 9-10): Newton on
    /// Phi(u, v, t) = 0 from the anchor until the correction is below the Newton tolerance,
    /// then Phi_u, Phi_v and H = -Phi_u^-1 Phi_v at the converged point.
    pub fn positions(
        &mut self,
        mech: &Mechanism,
        chart: &Chart,
        t: f64,
        base: &MechState,
        v: &[f64],
        newton: &NewtonSettings,
    ) -> Result<u32, StepError> {
        self.evaluations += 1;
        for &j in &self.partition.dependent {
            self.q[j] = self.anchor[j];
        }
        for (c, &j) in self.partition.independent.iter().enumerate() {
            self.q[j] = v[c];
        }
        let mut size = f64::NAN;
        let mut previous = f64::INFINITY;
        for it in 1..=newton.max_iterations.max(1) {
            self.factor_at_q(mech, chart, t, base)?;
            for (r, p) in self.rhs.iter_mut().zip(&self.ce.phi) {
                *r = -p;
            }
            self.phi_u.solve(&mut self.rhs);
            size = norm(&self.rhs);
            if !size.is_finite() {
                return Err(StepError::NonFinite { time: t, what: "dependent position correction".into() });
            }
            let mut scale = 1.0f64;
            for (k, &j) in self.partition.dependent.iter().enumerate() {
                self.q[j] += self.rhs[k];
                scale = scale.max(self.q[j].abs());
            }
            // Converged: the correction is below the tolerance (relative to the coordinates'
            // size beyond 1), or it stagnates at the round-off floor of an ill-conditioned Phi_u.
            let tol = newton.tolerance * scale;
            if size <= tol || (it >= 3 && size > 0.5 * previous && size <= 1e3 * tol) {
                self.factor_at_q(mech, chart, t, base)?;
                self.update_h();
                return Ok(it);
            }
            previous = size;
        }
        Err(StepError::NotConverged {
            time: t,
            iterations: newton.max_iterations,
            norm: size,
            tolerance: newton.tolerance,
        })
    }

    fn factor_at_q(&mut self, mech: &Mechanism, chart: &Chart, t: f64, base: &MechState) -> Result<(), StepError> {
        chart.place(&self.q, &mut self.bodies, &mut self.tangents);
        mech.constraint_jacobian(t, base, &self.bodies, &mut self.ce);
        self.fill_jacobian(mech);
        self.phi_u.factor().map_err(|_| StepError::Singular {
            time: t,
            detail: format!(
                "the dependent block Phi_u of the coordinate partition ({} dependent of {} coordinates) is singular",
                self.m, self.n
            ),
        })
    }

    fn update_h(&mut self) {
        let (m, nd) = (self.m, self.nd);
        for c in 0..nd {
            for k in 0..m {
                self.h[(k, c)] = self.phi_v[(k, c)];
            }
        }
        self.phi_u.solve_columns(self.h.as_mut());
        for c in 0..nd {
            for k in 0..m {
                self.h[(k, c)] = -self.h[(k, c)];
            }
        }
    }

    /// Dependent velocities for independent velocities `vd` (eq. 8), the acceleration right
    /// side tau_q at these velocities, and the applied forces.
    pub fn velocities(&mut self, mech: &Mechanism, t: f64, base: &MechState, vd: &[f64]) -> Result<(), StepError> {
        complete(&self.partition, &self.phi_v, &mut self.phi_u, &self.ce.nu, vd, &mut self.rhs, &mut self.qd);
        if !self.qd.iter().all(|x| x.is_finite()) {
            return Err(StepError::NonFinite { time: t, what: "dependent velocities".into() });
        }
        for (b, s) in self.bodies.iter_mut().enumerate() {
            let theta = v3(&self.q[6 * b + 3..]);
            let theta_d = v3(&self.qd[6 * b + 3..]);
            s.v = v3(&self.qd[6 * b..]);
            s.w = self.tangents[b] * theta_d;
            self.rates[b] = tangent_rate(&theta, &theta_d) * theta_d;
        }
        // The rows do not change; this evaluation brings gamma to the new velocities.
        mech.constraint_jacobian(t, base, &self.bodies, &mut self.ce);
        for (k, c) in mech.constraints.iter().enumerate() {
            let mut s = self.ce.gamma[k];
            for (slot, b) in c.pair.iter().enumerate() {
                if let Some(b) = *b {
                    s -= v3(&self.ce.rows[k][slot][3..]).dot(&self.rates[b]);
                }
            }
            self.tau_q[k] = s;
        }
        mech.applied_forces(t, &self.bodies, &base.angles, &self.friction, &mut self.loads);
        Ok(())
    }

    /// Psi(v'') into `self.psi` at the positions and velocities of the last evaluation
    /// (eqs. 7, 14); sets the bodies' accelerations.
    pub fn residual(&mut self, mech: &Mechanism, vdd: &[f64]) {
        complete(&self.partition, &self.phi_v, &mut self.phi_u, &self.tau_q, vdd, &mut self.rhs, &mut self.qdd);
        for (b, s) in self.bodies.iter_mut().enumerate() {
            let o = 6 * b;
            let p = &mech.bodies[b];
            s.acc = v3(&self.qdd[o..]);
            s.wdot = self.tangents[b] * v3(&self.qdd[o + 3..]) + self.rates[b];
            let load = &self.loads[b];
            let rot =
                self.tangents[b].transpose() * (p.inertia * s.wdot + s.w.cross(&(p.inertia * s.w)) - v3(&load[3..]));
            for i in 0..3 {
                self.rq[o + i] = p.mass * s.acc[i] - load[i];
                self.rq[o + 3 + i] = rot[i];
            }
        }
        for (c, &j) in self.partition.independent.iter().enumerate() {
            let mut s = self.rq[j];
            for (k, &u) in self.partition.dependent.iter().enumerate() {
                s += self.h[(k, c)] * self.rq[u];
            }
            self.psi[c] = s;
        }
    }

    /// Component `j` of the column `c` of P = dq/dv = [H; I].
    fn p(&self, j: usize, c: usize) -> f64 {
        match self.role[j] {
            Role::Dependent(k) => self.h[(k, c)],
            Role::Independent(i) => f64::from(u8::from(i == c)),
        }
    }

    /// The reduced mass matrix M_hat = (E P)^T M (E P) of eq. 12 into `self.mhat`.
    pub fn mass_matrix(&mut self, mech: &Mechanism) {
        let (nd, nb) = (self.nd, mech.n_bodies());
        for c in 0..nd {
            for b in 0..nb {
                let o = 6 * b;
                let th = Vector3::new(self.p(o + 3, c), self.p(o + 4, c), self.p(o + 5, c));
                let w = self.tangents[b] * th;
                for i in 0..3 {
                    self.g[(o + i, c)] = self.p(o + i, c);
                    self.g[(o + 3 + i, c)] = w[i];
                }
            }
        }
        for i in 0..nd {
            for j in i..nd {
                let mut s = 0.0;
                for (b, p) in mech.bodies.iter().enumerate() {
                    let o = 6 * b;
                    let gi = Vector3::new(self.g[(o + 3, i)], self.g[(o + 4, i)], self.g[(o + 5, i)]);
                    let gj = Vector3::new(self.g[(o + 3, j)], self.g[(o + 4, j)], self.g[(o + 5, j)]);
                    for l in 0..3 {
                        s += p.mass * self.g[(o + l, i)] * self.g[(o + l, j)];
                    }
                    s += gi.dot(&(p.inertia * gj));
                }
                self.mhat[(i, j)] = s;
                self.mhat[(j, i)] = s;
            }
        }
    }

    /// The independent accelerations of the state-space ODE at the positions and velocities
    /// of the last evaluation: M_hat v'' = Q_hat (eq. 11), Q_hat = -Psi(0); leaves the
    /// evaluation at the solution.
    pub fn accelerations(&mut self, mech: &Mechanism, t: f64, vdd: &mut [f64]) -> Result<(), StepError> {
        self.acceleration_evaluations += 1;
        vdd.iter_mut().for_each(|x| *x = 0.0);
        self.residual(mech, vdd);
        self.mass_matrix(mech);
        let nd = self.nd;
        {
            let mut a = self.mhat_lu.matrix();
            for j in 0..nd {
                for i in 0..nd {
                    a[(i, j)] = self.mhat[(i, j)];
                }
            }
        }
        self.mhat_lu.factor().map_err(|_| StepError::Singular {
            time: t,
            detail: "the reduced mass matrix (Negrut et al., eq. 12) is singular".into(),
        })?;
        for (x, p) in vdd.iter_mut().zip(&self.psi) {
            *x = -p;
        }
        self.mhat_lu.solve(vdd);
        if !vdd.iter().all(|x| x.is_finite()) {
            return Err(StepError::NonFinite { time: t, what: "independent accelerations".into() });
        }
        self.residual(mech, vdd);
        Ok(())
    }

    /// Lagrange multipliers of the last residual evaluation (eq. 6): Phi_u^T lambda = -r_u.
    pub fn multipliers(&mut self, lambda: &mut [f64]) {
        for (l, &j) in lambda.iter_mut().zip(&self.partition.dependent) {
            *l = -self.rq[j];
        }
        self.phi_u.solve_transpose(lambda);
    }

    /// The full mechanism state of the last evaluation at time `t`, continuing `base`
    /// (joint angle unwrapping, input-rate drives, work of non-conservative loads).
    pub fn write_state(&mut self, mech: &Mechanism, t: f64, base: &MechState, out: &mut MechState) {
        out.t = t;
        out.bodies.clone_from_slice(&self.bodies);
        self.multipliers(&mut out.lambda);
        mech.update_angles(&out.bodies, &base.angles, &mut out.angles);
        mech.advance_drives(t, base, &mut out.drive_values);
        out.work = base.work + mech.work_increment(base, out, &self.friction);
        out.energy0 = base.energy0;
    }

    /// A full evaluation at (t, v, v', v'').
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &mut self,
        mech: &Mechanism,
        chart: &Chart,
        t: f64,
        base: &MechState,
        v: &[f64],
        vd: &[f64],
        vdd: &[f64],
        newton: &NewtonSettings,
    ) -> Result<(), StepError> {
        self.positions(mech, chart, t, base, v, newton)?;
        self.velocities(mech, t, base, vd)?;
        self.residual(mech, vdd);
        Ok(())
    }

    /// dPsi/dv and dPsi/dv' at (t, v, v', v'') by forward differences: the chain-rule terms
    /// of the Newton matrix of [Negrut1997, eq. 19] (with eqs. 17-18), computed numerically
    /// instead of from the element derivative library \[Negrut1997\] uses. `scratch` has nd
    /// entries. Leaves the evaluation at (t, v, v', v'').
    #[allow(clippy::too_many_arguments)]
    pub fn psi_derivatives(
        &mut self,
        mech: &Mechanism,
        chart: &Chart,
        t: f64,
        base: &MechState,
        v: &mut [f64],
        vd: &mut [f64],
        vdd: &[f64],
        newton: &NewtonSettings,
        scratch: &mut [f64],
        d_v: &mut Mat<f64>,
        d_vd: &mut Mat<f64>,
    ) -> Result<(), StepError> {
        self.evaluate(mech, chart, t, base, v, vd, vdd, newton)?;
        scratch.copy_from_slice(&self.psi);
        for c in 0..self.nd {
            let x = vd[c];
            let step = (x + 1e-7 * x.abs().max(1.0)) - x;
            vd[c] = x + step;
            self.velocities(mech, t, base, vd)?;
            self.residual(mech, vdd);
            for (i, (p, p0)) in self.psi.iter().zip(scratch.iter()).enumerate() {
                d_vd[(i, c)] = (p - p0) / step;
            }
            vd[c] = x;
        }
        for c in 0..self.nd {
            let x = v[c];
            let step = (x + 1e-7 * x.abs().max(1.0)) - x;
            v[c] = x + step;
            self.evaluate(mech, chart, t, base, v, vd, vdd, newton)?;
            for (i, (p, p0)) in self.psi.iter().zip(scratch.iter()).enumerate() {
                d_v[(i, c)] = (p - p0) / step;
            }
            v[c] = x;
        }
        self.evaluate(mech, chart, t, base, v, vd, vdd, newton)
    }
}

/// The full vector `out` of a velocity-level (rhs = nu) or acceleration-level (rhs = tau_q)
/// constraint from its independent part: out^i = x, Phi_u out^u = rhs - Phi_v x
/// ([Negrut1997, eqs. 7-8]). `work` holds m values.
fn complete(
    partition: &Partition,
    phi_v: &Mat<f64>,
    phi_u: &mut DenseLu,
    rhs: &[f64],
    x: &[f64],
    work: &mut [f64],
    out: &mut [f64],
) {
    for (c, &j) in partition.independent.iter().enumerate() {
        out[j] = x[c];
    }
    for (k, w) in work.iter_mut().enumerate() {
        *w = x.iter().enumerate().fold(rhs[k], |s, (c, xc)| s - phi_v[(k, c)] * xc);
    }
    phi_u.solve(work);
    for (k, &j) in partition.dependent.iter().enumerate() {
        out[j] = work[k];
    }
}
