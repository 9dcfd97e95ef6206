//! The Newton tangent of [Jaiswal2021, eq. 37] in closed form: d f / d x for the residuals of
//! eqs. (38)/(39) with z' = 2/dt z + .., z'' = 4/dt^2 z + .. (eq. 33):
//!   mechanical block  R_z^T [M' + dt/2 C + dt^2/4 (K + alpha Phi_z^T Phi_z)] R_z,
//!   pressure coupling -dt^2/4 R_z^T J_s^T dF/dp,
//!   circuit rows      -dt^2/4 (dh/ds + 2/dt dh/ds') J_s R_z  and  dt/2 I - dt^2/4 dh/dp,
//! with J_s the Jacobians of the cylinder lengths, C and K the damping and stiffness of the
//! cylinders (seal friction), springs and dampers, and the circuit's derivatives in closed
//! form ([`crate::hydraulics::Circuit::jacobian`]). Terms of the derivatives of M',
//! R_z and the velocity-dependent inertia forces are left out: they change the convergence
//! rate, not the solution. The penalty formulation forms M' (its projections need W anyway);
//! double-step forms the reduced block R_z^T W R_z directly from velocity passes.

use super::cuts::{line, RowEval};
use super::dynamics::row_rate;
use super::eval::{line_jacobians, Step};
use super::kinematics::dot6;
use super::tree::{Element, JointRole, Tree};
use super::{Semirecursive, Work};
use crate::elements::Geometry;
use crate::integrators::StepError;
use crate::linalg::constant_size;
use nalgebra::{Vector3, Vector6};

impl Semirecursive {
    /// W = M' + dt/2 C + dt^2/4 K into `w.amat` at the trial point (after
    /// [`Semirecursive::dynamics`] or at least the cylinder strokes); `at_residual` if the
    /// circuit's pressure rates in `w.h` are those of this point.
    pub(super) fn mechanical_matrix(&mut self, s: Step, at_residual: bool) -> Result<(), StepError> {
        let n = self.tree.n_coordinates();
        line_jacobians(self);
        let w = &mut self.w;
        if let Some(c) = &self.tree.circuit {
            if at_residual {
                c.jacobian_at_rates(s.t, &w.p, &w.spools, &w.strokes, &w.u, &w.h, &mut w.jac)
            } else {
                c.jacobian(s.t, &w.p, &w.spools, &w.strokes, &w.u, &mut w.jac)
            }
            .map_err(|e| StepError::Model { time: s.t, what: e.to_string() })?;
        }
        let (h2, h4) = (0.5 * s.dt, 0.25 * s.dt * s.dt);
        // A = M' + dt/2 C + dt^2/4 K (+ dt^2/4 alpha Phi_z^T Phi_z).
        self.tree.mass_matrix(&w.kin, &mut w.inertias, &mut w.amat);
        let nc = w.strokes.len();
        for c in 0..nc {
            let coefficient = -(h2 * w.jac.df_dv[c] + h4 * w.jac.df_ds[c]);
            add_outer(&mut w.amat, n, coefficient, &w.js[c * n..(c + 1) * n]);
        }
        for (e, el) in self.tree.elements.iter().enumerate() {
            match &el.geometry {
                Geometry::Line { .. } => {
                    let [stiffness, damping] = element_tangent(&self.tree, el, w);
                    let coefficient = h2 * damping + h4 * stiffness;
                    add_outer(&mut w.amat, n, coefficient, &w.jl[e * n..(e + 1) * n]);
                }
                Geometry::JointRotation { joint } => {
                    if let JointRole::Tree { body } = self.tree.roles[*joint] {
                        let [stiffness, damping] = element_tangent(&self.tree, el, w);
                        w.amat[body * n + body] += h2 * damping + h4 * stiffness;
                    }
                }
                _ => {}
            }
        }
        self.w.amat_fresh = true;
        Ok(())
    }

    /// Double-step: R_z^T (M' + dt/2 C + dt^2/4 K) R_z into the tangent's leading nm x nm
    /// block without forming M'. Column a of R_z is a velocity field of the tree (eq. 2 with
    /// z' = R_z e_a); M'_ab = sum over bodies of m g'_a . g'_b + w_a . J w_b (the kinetic
    /// energy's bilinear form, eqs. 9-11), and a force element's J R_z column is its length
    /// rate under that field. Also leaves R_z^T J_s of every cylinder in `w.gs`.
    fn reduced_mechanical_block(&mut self, s: Step) {
        let n = self.tree.n_coordinates();
        let (h2, h4) = (0.5 * s.dt, 0.25 * s.dt * s.dt);
        let tree = &self.tree;
        let w = &mut self.w;
        let nm = w.ind.len();
        // Per column a and body t: centre-of-mass velocity, angular velocity, J w. A planar
        // tree's fields have only the components x, y and w_z: w = (0, 0, w_z), g' = s' + w x g
        // in the plane and J w = (.., .., J_zz w_z), whose x and y meet zeros of w below.
        for a in 0..nm {
            for (t, b) in tree.bodies.iter().enumerate() {
                let k = &w.kin[t];
                let x = w.rz[t * nm + a];
                let parent = b.parent.map_or(Vector6::zeros(), |p| w.twists[a * n + p]);
                if tree.planar {
                    let (vx, vy, wz) = (parent[0] + k.b[0] * x, parent[1] + k.b[1] * x, parent[5] + k.b[5] * x);
                    w.twists[a * n + t] = Vector6::new(vx, vy, 0.0, 0.0, 0.0, wz);
                    w.column_kin[a * n + t] = [
                        Vector3::new(vx - wz * k.r.y, vy + wz * k.r.x, 0.0),
                        Vector3::new(0.0, 0.0, wz),
                        Vector3::new(0.0, 0.0, b.inertia[(2, 2)] * wz),
                    ];
                    continue;
                }
                let twist = parent + k.b * x;
                w.twists[a * n + t] = twist;
                let omega = Vector3::new(twist[3], twist[4], twist[5]);
                let velocity = Vector3::new(twist[0], twist[1], twist[2]) + omega.cross(&k.r);
                let j_omega = k.rot * (b.inertia * (k.rot.transpose() * omega));
                w.column_kin[a * n + t] = [velocity, omega, j_omega];
            }
        }
        for a in 0..nm {
            for c in a..nm {
                let mut m = 0.0;
                for (t, b) in tree.bodies.iter().enumerate() {
                    let [va, oa, _] = &w.column_kin[a * n + t];
                    let [vc, _, joc] = &w.column_kin[c * n + t];
                    m += if tree.planar {
                        b.mass * (va.x * vc.x + va.y * vc.y) + oa.z * joc.z
                    } else {
                        b.mass * va.dot(vc) + oa.dot(joc)
                    };
                }
                *w.tangent.at(a, c) = m;
                *w.tangent.at(c, a) = m;
            }
        }
        // Rate of a line's length under column a: sum of G . Z_a over its ends.
        let rate = |w: &Work, row: &RowEval, a: usize| -> f64 {
            row.g.iter().flatten().map(|(k, g)| dot6(tree.planar, g, &w.twists[a * n + k])).sum()
        };
        for c in 0..w.strokes.len() {
            // The row of the strokes at this point.
            let row = w.cylinder_rows[c];
            for a in 0..nm {
                w.gs[c * n + a] = row.as_ref().map_or(0.0, |row| rate(w, row, a));
            }
            let coefficient = -(h2 * w.jac.df_dv[c] + h4 * w.jac.df_ds[c]);
            add_rank_one(&mut w.tangent, coefficient, &w.gs[c * n..c * n + nm]);
        }
        for el in &tree.elements {
            match &el.geometry {
                Geometry::Line { ends } => {
                    let row = line(&w.kin, ends).0;
                    for a in 0..nm {
                        w.tmp_n2[a] = rate(w, &row, a);
                    }
                    let [stiffness, damping] = element_tangent(tree, el, w);
                    add_rank_one(&mut w.tangent, h2 * damping + h4 * stiffness, &w.tmp_n2[..nm]);
                }
                Geometry::JointRotation { joint } => {
                    if let JointRole::Tree { body } = tree.roles[*joint] {
                        let [stiffness, damping] = element_tangent(tree, el, w);
                        for a in 0..nm {
                            w.tmp_n2[a] = w.rz[body * nm + a];
                        }
                        add_rank_one(&mut w.tangent, h2 * damping + h4 * stiffness, &w.tmp_n2[..nm]);
                    }
                }
                _ => {}
            }
        }
    }

    pub(super) fn analytic_tangent(&mut self, s: Step) -> Result<(), StepError> {
        let n = self.tree.n_coordinates();
        let m = self.tree.n_constraints();
        let penalty = self.is_penalty();
        if penalty {
            self.mechanical_matrix(s, true)?;
        } else if let Some(c) = &self.tree.circuit {
            // At the point of the last residual, whose pressure rates are in `w.h`.
            let w = &mut self.w;
            c.jacobian_at_rates(s.t, &w.p, &w.spools, &w.strokes, &w.u, &w.h, &mut w.jac)
                .map_err(|e| StepError::Model { time: s.t, what: e.to_string() })?;
        }
        let (h2, h4, two_over_dt) = (0.5 * s.dt, 0.25 * s.dt * s.dt, 2.0 / s.dt);
        let w = &mut self.w;
        let nm = if penalty { n } else { w.ind.len() };
        let (np, nc) = (w.p.len(), w.strokes.len());
        let nx = nm + np;
        debug_assert_eq!(nx, w.tangent.dim());
        w.tangent.clear();
        // R_z (eq. 14), N x nm: the identity for the penalty formulation; for double-step
        // unit rows for the independent coordinates and -(Phi_z^d)^-1 Phi_z^i for the others.
        if penalty {
            // A + dt^2/4 alpha Phi_z^T Phi_z (eqs. 18, 36).
            let nx = w.tangent.dim();
            for (dst, src) in w.tangent.a.chunks_exact_mut(nx.max(1)).zip(w.amat.chunks_exact(n.max(1))) {
                dst[..n].copy_from_slice(src);
            }
            add_gram(&w.phiz, &self.tree.row_columns, n, self.settings.penalty * h4, &mut w.tangent.a, nx);
        } else {
            for (k, &j) in w.ind.iter().enumerate() {
                for (i, &jj) in w.ind.iter().enumerate() {
                    w.rz[jj * nm + k] = if i == k { 1.0 } else { 0.0 };
                }
                for r in 0..m {
                    w.tmp_m[r] = w.phiz[r * n + j];
                }
                if m > 0 {
                    w.lu_dep.solve(&mut w.tmp_m, &mut w.tmp_m2);
                }
                for (i, &d) in w.dep.iter().enumerate() {
                    w.rz[d * nm + k] = -w.tmp_m[i];
                }
            }
        }
        if !penalty {
            self.reduced_mechanical_block(s);
        }
        let w = &mut self.w;
        let t = &mut w.tangent.a[..nx * nx];
        for c in 0..nc {
            // g = R_z^T J_s of cylinder c (penalty: R_z = I; double-step: from the velocity
            // passes).
            let g = if penalty { &w.js[c * n..c * n + nm] } else { &w.gs[c * n..c * n + nm] };
            for q in 0..np {
                let column = h4 * w.jac.df_dp[c * np + q];
                let row = h4 * (w.jac.dp_ds[q * nc + c] + two_over_dt * w.jac.dp_dv[q * nc + c]);
                for (i, ga) in g.iter().enumerate() {
                    t[i * nx + nm + q] -= column * ga;
                    t[(nm + q) * nx + i] -= row * ga;
                }
            }
        }
        for q in 0..np {
            for r in 0..np {
                t[(nm + q) * nx + nm + r] = -h4 * w.jac.dp_dp[q * np + r] + if q == r { h2 } else { 0.0 };
            }
        }
        Ok(())
    }
}

/// out += coefficient Phi_z^T Phi_z in the leading N x N block of the row-major `out` (row
/// stride `stride`), for the row-major `phiz` (N columns) whose row r is nonzero only in
/// `columns[r]`: the rows' outer products over those columns.
pub(super) fn add_gram(
    phiz: &[f64],
    columns: &[Vec<usize>],
    n: usize,
    coefficient: f64,
    out: &mut [f64],
    stride: usize,
) {
    // Over every column of the rows i in `columns[r]`: the others of row r are zeros, so
    // they add nothing, and a whole row runs without indirection. Up to 8 coordinates the
    // row length is a constant, so the row loop unrolls (same operations in the same order;
    // callgrind per step of the penalty formulation: four-bar 18916 -> 18680, quick-return
    // 21224 -> 20679 instructions).
    constant_size!(n,
    N => gram_rows::<N>(phiz, columns, coefficient, out, stride),
    _ => {
        for (row, cols) in phiz.chunks_exact(n.max(1)).zip(columns) {
            for &i in cols {
                let ci = coefficient * row[i];
                for (o, x) in out[i * stride..i * stride + n].iter_mut().zip(row) {
                    *o += ci * x;
                }
            }
        }
    })
}

/// [`add_gram`] for rows of the constant length `N`.
#[inline(always)]
fn gram_rows<const N: usize>(phiz: &[f64], columns: &[Vec<usize>], coefficient: f64, out: &mut [f64], stride: usize) {
    if stride == N {
        // The whole matrix (the projections' A): its rows viewed as arrays, one bounds check
        // per row instead of a range per row.
        let out = out.as_chunks_mut::<N>().0;
        for (row, cols) in phiz.chunks_exact(N).zip(columns) {
            let row: &[f64; N] = row.try_into().expect("rows of N entries");
            for &i in cols {
                let ci = coefficient * row[i];
                for (o, x) in out[i].iter_mut().zip(row) {
                    *o += ci * x;
                }
            }
        }
        return;
    }
    for (row, cols) in phiz.chunks_exact(N).zip(columns) {
        let row: &[f64; N] = row.try_into().expect("rows of N entries");
        for &i in cols {
            let ci = coefficient * row[i];
            let o: &mut [f64; N] = (&mut out[i * stride..i * stride + N]).try_into().expect("N entries");
            for (o, x) in o.iter_mut().zip(row) {
                *o += ci * x;
            }
        }
    }
}

/// out[a][b] += coefficient g_a g_b over the leading g.len() x g.len() block of the
/// row-major `out` (row stride `stride`).
fn add_outer(out: &mut [f64], stride: usize, coefficient: f64, g: &[f64]) {
    if g.is_empty() {
        return;
    }
    for (out_row, ga) in out.chunks_exact_mut(stride).zip(g) {
        let ca = coefficient * ga;
        for (o, gb) in out_row[..g.len()].iter_mut().zip(g) {
            *o += ca * gb;
        }
    }
}

/// tangent[a][b] += coefficient g_a g_b over the leading block of size g.len().
/// Stiffness and damping of a force element along its measure at the trial point in `w`.
fn element_tangent(tree: &Tree, e: &Element, w: &Work) -> [f64; 2] {
    if let Some(constant) = e.law.constant_tangent() {
        return constant;
    }
    let (x, rate) = match &e.geometry {
        Geometry::Line { ends } => {
            let row = line(&w.kin, ends).0;
            (row.value, row_rate(&w.kin, &row))
        }
        Geometry::JointRotation { joint } => tree.joint_rotation(*joint, &w.z, &w.zd, &w.kin),
        Geometry::Point { .. } | Geometry::Torque { .. } => return [0.0; 2],
    };
    e.law.tangent(x, rate)
}

fn add_rank_one(tangent: &mut super::Lu, coefficient: f64, g: &[f64]) {
    let stride = tangent.dim();
    add_outer(&mut tangent.a, stride, coefficient, g);
}
