//! Evaluations at a trial point of a step: dependent coordinates (double-step), hydraulics,
//! the Newton residual of [Jaiswal2021, eqs. 38/39] and its tangent (eqs. 37, 40-41).

use super::cuts::{add_jacobian_row, g_dot_acc, jacobian_row, line, RowEval};
use super::dynamics::row_rate;
use super::step::NEGLIGIBLE;
use super::{Semirecursive, Work};
use crate::elements::Geometry;
use crate::hydraulics::{increment, Attachment, Stroke};
use crate::inputs::InputSignals;
use crate::integrators::StepError;
use crate::linalg::{constant_size, copy_small, zero_small};
use mbfmu_model::format::{Formulation, Tangent};

/// Trapezoidal-rule quantities of a step ([Jaiswal2021, eqs. 32-34]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    pub t: f64,
    pub dt: f64,
    /// 2/dt, 4/dt^2 and 4/dt, the coefficients of eq. (33).
    two_over_dt: f64,
    four_over_dt2: f64,
    four_over_dt: f64,
}

impl Step {
    pub fn new(t: f64, dt: f64) -> Step {
        Step { t, dt, two_over_dt: 2.0 / dt, four_over_dt2: 4.0 / (dt * dt), four_over_dt: 4.0 / dt }
    }

    /// z' and z'' at t_{k+1} for z_{k+1} (eq. 33 with eq. 34, written with the increment).
    #[inline(always)]
    pub fn rates(&self, z1: f64, z0: f64, zd0: f64, zdd0: f64) -> (f64, f64) {
        let dz = z1 - z0;
        let zd = self.two_over_dt * dz - zd0;
        let zdd = self.four_over_dt2 * dz - self.four_over_dt * zd0 - zdd0;
        (zd, zdd)
    }

    /// The changes of z' and z'' at t_{k+1} when z_{k+1} moves by `dz` (eq. 33).
    #[inline(always)]
    pub fn rate_changes(&self, dz: f64) -> (f64, f64) {
        (self.two_over_dt * dz, self.four_over_dt2 * dz)
    }

    /// p' at t_{k+1} for p_{k+1} (the trapezoidal rule, eq. 33's first row for the pressures).
    #[inline(always)]
    pub fn pressure_rate(&self, p1: f64, p0: f64, pd0: f64) -> f64 {
        self.two_over_dt * (p1 - p0) - pd0
    }
}

/// max |x_i| (0 for an empty slice): the norm of every Newton correction and residual here.
pub(super) fn max_abs(x: &[f64]) -> f64 {
    x.iter().fold(0.0f64, |a, v| a.max(v.abs()))
}

/// The penalty formulation's N coordinates and their rates from the unknowns `x` (eq. 33),
/// with N a constant so that the loop unrolls (the same operations as the general loop;
/// callgrind over the penalty cycles: 74 (quick-return) and 64 (four-bar) fewer instructions
/// per step).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn load_coordinates<const N: usize>(
    s: Step,
    x: &[f64],
    z: &mut [f64],
    zd: &mut [f64],
    zdd: &mut [f64],
    z0: &[f64],
    zd0: &[f64],
    zdd0: &[f64],
) {
    let x: &[f64; N] = x[..N].try_into().expect("N unknowns");
    let (z, zd, zdd): (&mut [f64; N], &mut [f64; N], &mut [f64; N]) = (
        (&mut z[..N]).try_into().expect("N coordinates"),
        (&mut zd[..N]).try_into().expect("N rates"),
        (&mut zdd[..N]).try_into().expect("N accelerations"),
    );
    let (z0, zd0, zdd0): (&[f64; N], &[f64; N], &[f64; N]) = (
        z0[..N].try_into().expect("N coordinates"),
        zd0[..N].try_into().expect("N rates"),
        zdd0[..N].try_into().expect("N accelerations"),
    );
    for j in 0..N {
        z[j] = x[j];
        (zd[j], zdd[j]) = s.rates(x[j], z0[j], zd0[j], zdd0[j]);
    }
}

/// The pressures and their rates from the unknowns `x`, as [`load_coordinates`].
#[inline(always)]
fn load_pressures<const N: usize>(s: Step, x: &[f64], p: &mut [f64], pd: &mut [f64], p0: &[f64], pd0: &[f64]) {
    let fixed = |v: &[f64]| -> [f64; N] { v[..N].try_into().expect("N pressures") };
    let (x, p0, pd0) = (fixed(x), fixed(p0), fixed(pd0));
    let (p, pd): (&mut [f64; N], &mut [f64; N]) =
        (p.try_into().expect("N pressures"), pd.try_into().expect("N pressure rates"));
    for q in 0..N {
        p[q] = x[q];
        pd[q] = s.pressure_rate(x[q], p0[q], pd0[q]);
    }
}

/// acc += Phi_z^T g for the row-major `phiz` (acc.len() columns): per column, the rows'
/// products added in row order. Up to 8 coordinates the row length is a constant, so the
/// loops unroll (the same operations in the same order).
pub(super) fn add_phiz_transpose(phiz: &[f64], g: &[f64], acc: &mut [f64]) {
    constant_size!(acc.len(),
    N => add_phiz_transpose_fixed::<N>(phiz, g, acc.try_into().expect("N columns")),
    _ => {
        let n = acc.len();
        for (row, g) in phiz.chunks_exact(n.max(1)).zip(g) {
            for (a, p) in acc.iter_mut().zip(row) {
                *a += p * g;
            }
        }
    })
}

#[inline(always)]
fn add_phiz_transpose_fixed<const N: usize>(phiz: &[f64], g: &[f64], acc: &mut [f64; N]) {
    for (row, g) in phiz.chunks_exact(N).zip(g) {
        let row: &[f64; N] = row.try_into().expect("rows of N entries");
        for j in 0..N {
            acc[j] += row[j] * g;
        }
    }
}

fn singular(t: f64, what: &str) -> StepError {
    StepError::Singular {
        time: t,
        detail: format!(
            "{what} (the mechanism is at a singular configuration, or the independent coordinates no longer describe it)"
        ),
    }
}

impl Work {
    /// The positions of every body at `z` into `kin`; `z` is recorded as `kin_z`.
    pub(super) fn positions(&mut self, tree: &super::Tree) {
        tree.positions(&self.z, &mut self.kin);
        copy_small(&mut self.kin_z, &self.z);
    }

    /// The largest distance of the coordinates `z` from `kin_z`, where `kin` was evaluated.
    pub(super) fn lag(&self) -> f64 {
        self.z.iter().zip(&self.kin_z).fold(0.0f64, |a, (z, k)| a.max((z - k).abs()))
    }

    /// `phi_now` = Phi + Phi_z (z - kin_z): Phi at `z` from the positions at `kin_z`, with an
    /// error of O(|z - kin_z|^2) (exactly Phi when they are the same).
    pub(super) fn phi_at_z(&mut self, n: usize) {
        // Up to 8 coordinates the row length is a constant, so the loops unroll (the same
        // operations in the same order, z - kin_z formed once; with the fixed-size products of
        // the projections, callgrind over the penalty cycles: 357 (quick-return) and 216
        // (four-bar) fewer instructions per step).
        constant_size!(n,
        N => self.phi_at_z_fixed::<N>(),
        _ => {
            let rows = self.phiz.chunks_exact(n.max(1));
            for ((now, &phi), row) in self.phi_now.iter_mut().zip(&self.phi).zip(rows) {
                let dot = row.iter().zip(self.z.iter().zip(&self.kin_z)).map(|(a, (z, k))| a * (z - k));
                *now = phi + dot.sum::<f64>();
            }
        })
    }

    /// [`Work::phi_at_z`] for `N` coordinates.
    #[inline(always)]
    fn phi_at_z_fixed<const N: usize>(&mut self) {
        let dz: [f64; N] = std::array::from_fn(|j| self.z[j] - self.kin_z[j]);
        for ((now, &phi), row) in self.phi_now.iter_mut().zip(&self.phi).zip(self.phiz.chunks_exact(N)) {
            let row: &[f64; N] = row.try_into().expect("rows of N entries");
            *now = phi + row.iter().zip(&dz).map(|(a, d)| a * d).sum::<f64>();
        }
    }

    /// Penalty formulation: `phi_now` = Phi at `z`, with Phi_z. If `lagging`, from the
    /// positions at `kin_z` to first order ([`Work::phi_at_z`]); else evaluated at `z`.
    pub(super) fn penalty_constraints(&mut self, tree: &super::Tree, lagging: bool) {
        if lagging {
            self.phi_at_z(tree.n_coordinates());
        } else {
            self.positions(tree);
            self.constraint_rows(tree);
            copy_small(&mut self.phi_now, &self.phi);
        }
    }

    /// The augmented Lagrangian update of the multipliers, lambda += alpha Phi (eq. 19),
    /// with Phi in `phi_now`.
    pub(super) fn update_multipliers(&mut self, alpha: f64) {
        for (l, phi) in self.lambda.iter_mut().zip(&self.phi_now) {
            *l += alpha * phi;
        }
    }

    /// Phi and Phi_z at the positions in `kin`.
    pub(super) fn constraint_rows(&mut self, tree: &super::Tree) {
        let n = tree.n_coordinates();
        if n == 0 {
            return;
        }
        debug_assert_eq!(self.phiz.len(), tree.cuts.len() * n, "one row of Phi_z per cut row");
        let rows = self.rows.iter_mut().zip(self.phi.iter_mut().zip(self.phiz.chunks_exact_mut(n)));
        for (cut, (row, (phi, jacobian))) in tree.cuts.iter().zip(rows) {
            *row = cut.evaluate_position(&self.kin);
            *phi = row.value;
            // Row by row: a few stores each instead of a call to memset for the whole matrix.
            zero_small(jacobian);
            add_jacobian_row(tree, &self.kin, row, jacobian);
        }
    }

    /// LU of Phi_z^d, the columns of the dependent coordinates `dep`.
    pub(super) fn factor_dependent(&mut self, n: usize) -> bool {
        let m = self.dep.len();
        for (dst, row) in self.lu_dep.a.chunks_exact_mut(m.max(1)).zip(self.phiz.chunks_exact(n.max(1))) {
            for (d, &j) in dst.iter_mut().zip(&self.dep) {
                *d = row[j];
            }
        }
        self.lu_dep.factor()
    }
}

impl Semirecursive {
    pub(super) fn is_penalty(&self) -> bool {
        self.settings.formulation == Formulation::SemirecursivePenalty
    }

    /// Double-step: solves Phi(z^d; z^i) = 0 for the dependent entries of `w.z` by Newton
    /// from their current values ([Jaiswal2021, Sect. 4]); leaves positions, Phi_z and the LU of
    /// Phi_z^d at the solution.
    pub(super) fn solve_positions(&mut self, t: f64) -> Result<(), StepError> {
        self.solve_positions_to(t, true)
    }

    /// As [`Semirecursive::solve_positions`]; unless `exact`, a last correction below 1e-3
    /// of the tolerance is applied to the coordinates without evaluating the positions anew
    /// (the kinematics then lag by that correction, far below what Newton resolves); if
    /// `exact`, a last correction below 1e-13 (round-off) is dropped.
    pub(super) fn solve_positions_to(&mut self, t: f64, exact: bool) -> Result<(), StepError> {
        let n = self.tree.n_coordinates();
        let tol = self.settings.tolerance;
        for _ in 0..50 {
            let w = &mut self.w;
            w.positions(&self.tree);
            w.constraint_rows(&self.tree);
            if !w.factor_dependent(n) {
                return Err(singular(t, "the loop-closure Jacobian of the dependent coordinates is singular"));
            }
            let m = w.dep.len();
            copy_small(&mut w.tmp_m[..m], &w.phi);
            w.lu_dep.solve(&mut w.tmp_m, &mut w.tmp_m2);
            let largest = max_abs(&w.tmp_m[..m]);
            if !largest.is_finite() {
                return Err(StepError::NonFinite { time: t, what: "dependent coordinates".into() });
            }
            // A round-off correction is not applied: the positions stay exactly those of
            // the coordinates (a restored state reproduces them bit for bit).
            if exact && largest <= 1e-13 {
                return Ok(());
            }
            for (k, &j) in w.dep.iter().enumerate() {
                w.z[j] -= w.tmp_m[k];
            }
            // A correction this small is far below what Newton resolves: no new evaluation.
            if !exact && largest <= 1e-3 * tol {
                return Ok(());
            }
            if largest <= tol {
                // Positions and Jacobians at the corrected coordinates (the error left is
                // O(correction^2): machine precision).
                w.positions(&self.tree);
                w.constraint_rows(&self.tree);
                if !w.factor_dependent(n) {
                    return Err(singular(t, "the loop-closure Jacobian of the dependent coordinates is singular"));
                }
                return Ok(());
            }
        }
        Err(StepError::NotConverged { time: t, iterations: 50, norm: max_abs(&self.w.phi), tolerance: tol })
    }

    /// Double-step: dependent rates and accelerations from the independent ones in `w.zd`,
    /// `w.zdd` (eqs. 13-15), and the velocities and accelerations of every body.
    pub(super) fn dependent_rates(&mut self) {
        let n = self.tree.n_coordinates();
        let w = &mut self.w;
        let m = w.dep.len();
        // Local slices: stores through them cannot move the vectors (no reloads of their
        // pointers and lengths inside the loops).
        let (dep, ind) = (&w.dep[..], &w.ind[..]);
        let (zd, zdd, tmp, tmp2) = (&mut w.zd[..n], &mut w.zdd[..n], &mut w.tmp_m[..m], &mut w.tmp_m2[..]);
        for &j in dep {
            zd[j] = 0.0;
            zdd[j] = 0.0;
        }
        if m > 0 {
            // Phi_z^d z'^d = -Phi_z^i z'^i (eq. 13).
            for (t, row) in tmp.iter_mut().zip(w.phiz.chunks_exact(n)) {
                *t = -ind.iter().map(|&j| row[j] * zd[j]).sum::<f64>();
            }
            w.lu_dep.solve(tmp, tmp2);
            for (&j, &x) in dep.iter().zip(tmp.iter()) {
                zd[j] = x;
            }
        }
        let kin = &mut w.kin[..];
        self.tree.velocities(zd, kin);
        // With z''^d = 0 the rows' accelerations are Phi_z^i z''^i + Phi_z' z' (eq. 15).
        self.tree.accelerations(zd, zdd, kin);
        if m > 0 {
            // The rows' G are those of the position evaluation (`w.rows`, same positions).
            for ((t, cut), row) in tmp.iter_mut().zip(&self.tree.cuts).zip(&w.rows) {
                *t = -(g_dot_acc(kin, row) + cut.kappa(kin));
            }
            w.lu_dep.solve(tmp, tmp2);
            // Z'_k += b_d z''_d for the dependent coordinates d on the path of body k (eq. 3).
            for (&d, &x) in dep.iter().zip(tmp.iter()) {
                zdd[d] = x;
                let b = kin[d].b;
                for &body in &self.tree.subtree[d] {
                    let acc = &mut kin[body].acc;
                    if self.tree.planar {
                        // b has only the in-plane components (`planar.rs`).
                        acc[0] += b[0] * x;
                        acc[1] += b[1] * x;
                        acc[5] += b[5] * x;
                    } else {
                        *acc += b * x;
                    }
                }
            }
        }
    }

    /// Double-step, at coordinates whose last move (`w.tmp_m`, by
    /// [`Semirecursive::follow_constraints`]) keeps the residual's positions: the dependent
    /// rates of that residual moved with the dependent coordinates by the trapezoidal rule
    /// (eq. 33), and the bodies' velocities and accelerations. Phi_z z' = 0 holds with the
    /// residual's Phi_z as before; Phi_z z'' + Phi_z' z' = 0 keeps the residual's Phi_z' z',
    /// off by O(dz) (below 1e-6 rad/s^2, where Newton resolves 4 tol/dt^2).
    pub(super) fn move_dependent_rates(&mut self, s: Step) {
        let w = &mut self.w;
        for (&j, &dz) in w.dep.iter().zip(&w.tmp_m) {
            let (dzd, dzdd) = s.rate_changes(dz);
            w.zd[j] += dzd;
            w.zdd[j] += dzdd;
        }
        self.tree.velocities(&w.zd, &mut w.kin);
        self.tree.accelerations(&w.zd, &w.zdd, &mut w.kin);
    }

    /// Double-step: moves the dependent coordinates along the tangent of the constraint
    /// manifold after independent ones changed by `dzi` (first order, eq. 14), so that the
    /// next position problem starts next to its solution.
    /// The changes `dzi` of the independent coordinates are in `w.tmp_n[..nm]`.
    pub(super) fn follow_constraints(&mut self) {
        let n = self.tree.n_coordinates();
        let w = &mut self.w;
        let m = w.dep.len();
        if m == 0 {
            return;
        }
        let dzi = &w.tmp_n[..w.ind.len()];
        for (t, row) in w.tmp_m[..m].iter_mut().zip(w.phiz.chunks_exact(n)) {
            *t = -w.ind.iter().zip(dzi).map(|(&j, dz)| row[j] * dz).sum::<f64>();
        }
        w.lu_dep.solve(&mut w.tmp_m, &mut w.tmp_m2);
        for (k, &j) in w.dep.iter().enumerate() {
            w.z[j] += w.tmp_m[k];
        }
    }

    /// Cylinder lengths and rates, and the motors' joint angles and rates, at the trial
    /// kinematics and time `t`.
    pub(super) fn cylinder_strokes(&mut self, t: f64) {
        let Some(circuit) = &self.tree.circuit else { return };
        let w = &mut self.w;
        let cylinders = circuit.cylinders.iter().zip(&self.tree.cylinder_ends);
        for ((cyl, ends), (stroke, row)) in cylinders.zip(w.strokes.iter_mut().zip(w.cylinder_rows.iter_mut())) {
            *stroke = match (ends, &cyl.attachment) {
                (Some(ends), _) => {
                    let row = row.insert(line(&w.kin, ends).0);
                    Stroke { length: row.value, velocity: row_rate(&w.kin, row) }
                }
                (None, Attachment::Inputs { length, velocity }) => {
                    input_stroke(&self.inputs, *length, *velocity, self.state.input_time, t)
                }
                (None, Attachment::Mechanism { .. }) => unreachable!("compiled with ends"),
            };
        }
        if !circuit.motors.is_empty() {
            self.motor_strokes();
        }
    }

    /// The motors' joint angles and rates into the strokes after the cylinders'. Out of line:
    /// most circuits have no motor, and their cylinder loop keeps its code.
    #[inline(never)]
    fn motor_strokes(&mut self) {
        let Some(circuit) = &self.tree.circuit else { return };
        let w = &mut self.w;
        // A motor's rate is its joint's, omega = u . (w2 - w1): the row G = [0; -u] on body1
        // and [0; u] on body2, on which its torque acts as the wrench [0; T u] ([`super::motor`]).
        let nc = circuit.n_cylinders();
        let actuators = w.strokes[nc..].iter_mut().zip(w.cylinder_rows[nc..].iter_mut());
        for (motor, (stroke, row)) in circuit.motors.iter().zip(actuators) {
            let (pair, u) = self.tree.joint_bodies(motor.joint, &w.kin);
            let (angle, _) = self.tree.joint_rotation(motor.joint, &w.z, &w.zd, &w.kin);
            let g = nalgebra::Vector6::new(0.0, 0.0, 0.0, u.x, u.y, u.z);
            let row = row.insert(RowEval {
                value: angle,
                g: [pair[0].map(|k| (k, -g)), pair[1].map(|k| (k, g))],
                kappa: 0.0,
            });
            *stroke = Stroke { length: angle, velocity: row_rate(&w.kin, row) };
        }
    }

    /// Hydraulics (rates h and forces) and R^T (M_bar Z' - Q_bar) at the trial point.
    pub(super) fn dynamics(&mut self, t: f64) -> Result<f64, StepError> {
        let power = self.applied(t, true)?;
        let w = &mut self.w;
        self.tree.generalized_residual(&w.kin, &w.wrenches, &mut w.sums, &mut w.res);
        Ok(power)
    }

    /// Hydraulics and (if `wrenches`) applied wrenches at the trial point; the power of the
    /// non-conservative forces. Without `wrenches` (a converged point: only the power and the
    /// forces are asked for) the circuit's pressure rates in `w.h` are not formed.
    pub(super) fn applied(&mut self, t: f64, wrenches: bool) -> Result<f64, StepError> {
        self.cylinder_strokes(t);
        let w = &mut self.w;
        self.inputs.values_at(t, &mut w.u);
        if let Some(c) = &self.tree.circuit {
            if wrenches {
                c.evaluate(t, &w.p, &w.spools, &w.strokes, &w.u, &mut w.h, &mut w.forces)
            } else {
                c.forces_with(&w.p, &w.strokes, &w.u, &mut w.forces)
            }
            .map_err(|e| StepError::Model { time: t, what: e.to_string() })?;
        }
        Ok(self.tree.loads(
            &w.kin,
            &w.z,
            &w.zd,
            &w.u,
            &w.forces,
            &w.cylinder_rows,
            &w.strokes,
            wrenches,
            &mut w.wrenches,
        ))
    }

    /// Coordinates, pressures and their rates from the unknowns `w.x` (the penalty
    /// formulation: every coordinate; double-step: the independent ones) by the trapezoidal
    /// rule (eqs. 33-34 for the coordinates, the pressure rates likewise).
    pub(super) fn load_unknowns(&mut self, s: Step) {
        let n = self.tree.n_coordinates();
        let st = &self.state;
        let w = &mut self.w;
        let (z, zd, zdd) = (&mut w.z[..n], &mut w.zd[..n], &mut w.zdd[..n]);
        let (z0, zd0, zdd0) = (&st.z[..n], &st.zd[..n], &st.zdd[..n]);
        let nm = if self.settings.formulation == Formulation::SemirecursivePenalty {
            constant_size!(n,
            N => load_coordinates::<N>(s, &w.x, z, zd, zdd, z0, zd0, zdd0),
            _ => {
                let x = &w.x[..n];
                for j in 0..n {
                    z[j] = x[j];
                    (zd[j], zdd[j]) = s.rates(x[j], z0[j], zd0[j], zdd0[j]);
                }
            });
            n
        } else {
            for (&j, &x) in w.ind.iter().zip(&w.x) {
                z[j] = x;
                (zd[j], zdd[j]) = s.rates(x, z0[j], zd0[j], zdd0[j]);
            }
            w.ind.len()
        };
        let np = w.p.len();
        let (p, pd, x) = (&mut w.p[..np], &mut w.pd[..np], &w.x[nm..nm + np]);
        let (p0, pd0) = (&st.p[..np], &st.pd[..np]);
        constant_size!(np,
        N => load_pressures::<N>(s, x, p, pd, p0, pd0),
        _ => {
            for q in 0..np {
                p[q] = x[q];
                pd[q] = s.pressure_rate(x[q], p0[q], pd0[q]);
            }
        })
    }

    /// Sets the trial coordinates from the unknowns `w.x` (eq. 48) and evaluates the Newton
    /// residual (eq. 38 or 39) into `out`. In the penalty formulation the multipliers are
    /// first updated with the new positions when `update_lambda` (eq. 19).
    pub(super) fn residual(&mut self, s: Step, update_lambda: bool, out: Residual) -> Result<(), StepError> {
        let n = self.tree.n_coordinates();
        let m = self.tree.n_constraints();
        let penalty = self.is_penalty();
        self.load_unknowns(s);
        let w = &mut self.w;
        let nm = if penalty { n } else { w.ind.len() };
        // Coordinates that moved by less than NEGLIGIBLE of the tolerance since the last
        // residual keep its positions (not for forward differences, which need the exact
        // dependence on the unknowns).
        let lagging = self.settings.tangent == Tangent::Analytic
            && out == Residual::Base
            && w.at_residual
            && w.lag() <= NEGLIGIBLE * self.settings.tolerance;
        w.at_residual = true;
        if penalty {
            w.penalty_constraints(&self.tree, lagging);
            if update_lambda {
                w.update_multipliers(self.settings.penalty);
            }
            self.tree.velocities(&w.zd, &mut w.kin);
            self.tree.accelerations(&w.zd, &w.zdd, &mut w.kin);
        } else if m > 0 {
            if lagging {
                self.move_dependent_rates(s);
            } else {
                // Forward differences need the exact dependence of z^d on z^i.
                self.solve_positions_to(s.t, self.settings.tangent == Tangent::Numerical)?;
                self.dependent_rates();
            }
        } else {
            if !lagging {
                w.positions(&self.tree);
            }
            self.tree.velocities(&w.zd, &mut w.kin);
            self.tree.accelerations(&w.zd, &w.zdd, &mut w.kin);
        }
        self.dynamics(s.t)?;
        let w = &mut self.w;
        let f: &mut [f64] = match out {
            Residual::Base => &mut w.f,
            Residual::Perturbed => &mut w.f_plus,
        };
        let scale = 0.25 * s.dt * s.dt;
        if penalty {
            // M' z'' + Phi_z^T (alpha Phi + lambda) - Q' (eq. 39).
            let alpha = self.settings.penalty;
            let forces = &mut w.tmp_m[..m];
            for ((g, phi), lambda) in forces.iter_mut().zip(&w.phi_now).zip(&w.lambda) {
                *g = alpha * phi + lambda;
            }
            copy_small(&mut f[..n], &w.res[..n]);
            add_phiz_transpose(&w.phiz, forces, &mut f[..n]);
            for fj in &mut f[..n] {
                *fj *= scale;
            }
        } else if m > 0 {
            // R_z^T (M' z'' - Q') = r^i - (Phi_z^i)^T (Phi_z^d)^-T r^d (eqs. 14, 16-17, 38).
            for (k, &j) in w.dep.iter().enumerate() {
                w.tmp_m[k] = w.res[j];
            }
            w.lu_dep.solve_transpose(&mut w.tmp_m, &mut w.tmp_m2);
            for (k, &j) in w.ind.iter().enumerate() {
                let coupling: f64 = (0..m).map(|r| w.phiz[r * n + j] * w.tmp_m[r]).sum();
                f[k] = scale * (w.res[j] - coupling);
            }
        } else {
            for (fj, r) in f[..n].iter_mut().zip(&w.res) {
                *fj = scale * r;
            }
        }
        for ((fi, pd), h) in f[nm..].iter_mut().zip(&w.pd).zip(&w.h) {
            *fi = scale * (pd - h);
        }
        if !f.iter().all(|x| x.is_finite()) {
            return Err(StepError::NonFinite { time: s.t, what: "Newton residual".into() });
        }
        Ok(())
    }

    /// Factors the Newton tangent at the last base evaluation: by forward differences of the
    /// residual (eqs. 40-41) or in closed form.
    pub(super) fn tangent(&mut self, s: Step) -> Result<(), StepError> {
        match self.settings.tangent {
            Tangent::Numerical => self.numerical_tangent(s)?,
            Tangent::Analytic => self.analytic_tangent(s)?,
        }
        if !self.w.tangent.factor() {
            return Err(singular(s.t, "the Newton tangent is singular"));
        }
        Ok(())
    }

    fn numerical_tangent(&mut self, s: Step) -> Result<(), StepError> {
        let nx = self.w.x.len();
        self.w.x0.copy_from_slice(&self.w.x);
        // The multipliers stay fixed (no update in perturbed evaluations).
        for j in 0..nx {
            let eps = increment(self.w.x0[j]);
            self.w.x[j] = self.w.x0[j] + eps;
            self.residual(s, false, Residual::Perturbed)?;
            self.w.x[j] = self.w.x0[j];
            let w = &mut self.w;
            for i in 0..nx {
                *w.tangent.at(i, j) = (w.f_plus[i] - w.f[i]) / eps;
            }
        }
        // `w.kin` holds the last perturbed point.
        self.w.at_residual = false;
        Ok(())
    }
}

/// Where [`Semirecursive::residual`] writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Residual {
    Base,
    Perturbed,
}

/// Jacobians of the cylinder lengths and line elements in z at the trial kinematics (after
/// [`Semirecursive::cylinder_strokes`] there).
pub(super) fn line_jacobians(s: &mut Semirecursive) {
    let n = s.tree.n_coordinates();
    let w = &mut s.w;
    // The cylinders' rows are those of the last strokes, at these kinematics.
    for (c, row) in w.cylinder_rows.iter().enumerate() {
        let out = &mut w.js[c * n..(c + 1) * n];
        match row {
            Some(row) => jacobian_row(&s.tree, &w.kin, row, out),
            None => out.iter_mut().for_each(|x| *x = 0.0),
        }
    }
    for (e, el) in s.tree.elements.iter().enumerate() {
        let out = &mut w.jl[e * n..(e + 1) * n];
        match &el.geometry {
            Geometry::Line { ends } => jacobian_row(&s.tree, &w.kin, &line(&w.kin, ends).0, out),
            _ => out.iter_mut().for_each(|x| *x = 0.0),
        }
    }
}

/// Length and rate of a cylinder whose ends are inputs (a co-simulation split) at time `t`:
/// the length input's own polynomial if the importer gave it derivatives, else its value
/// extrapolated from `since` with the exact integral of the velocity input.
pub(super) fn input_stroke(inputs: &InputSignals, length: usize, velocity: usize, since: f64, t: f64) -> Stroke {
    let v = inputs.at(velocity, t);
    let l = if inputs.is_held(length) {
        inputs.at(length, t) + inputs.integral(velocity, since, t)
    } else {
        inputs.at(length, t)
    };
    Stroke { length: l, velocity: v }
}
