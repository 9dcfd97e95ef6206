//! The accelerations of an open tree in O(N): the articulated-body algorithm
//! [Featherstone2008, Sect. 7.3, Table 7.1] on the tree's spatial quantities, each body's
//! taken about its own joint point P_j in global axes.
//!
//! The tree's kinematics hold spatial vectors about the global origin ([Jaiswal2021, eqs. 1-3,
//! 9]). The recursion does not use them there: a body 64 m from the origin has a rotational
//! inertia about it of m |g|^2 (about 1e5 kg m^2 on the 32-bar chain, whose bars have an
//! axial inertia of 0.016 kg m^2), and the accelerations of a bar's spin (a pivot D_j of the
//! size of its axial inertia) lost about seven digits to the cancellation. About P_j the
//! motion subspace of a revolute joint is [0; u_j]
//! exactly, a prismatic one's [u_j; 0], and every inertia is of the size of the subtree about
//! its joint. Quantities move between the points of a child c and its parent p,
//! d = P_c - P_p, by the translation of [Featherstone2008, Sect. 2.8] (in this tree's order,
//! linear part first): a motion vector
//! [v; w] about P_p is [v + w x d; w] about P_c (X, below), a force [f; n] about P_c is
//! [f; n + d x f] about P_p (X^T), an inertia I about P_c is X^T I X about P_p.
//!
//! With the body accelerations Z'_j = Z'_j(0) + delta_j, Z'_j(0) those of z'' = 0 and
//! delta_j = X_j delta_parent + b_j z''_j, body j's residual is r_j + M_bar_j delta_j, r_j its
//! Newton-Euler residual at z'' = 0, and the equations of motion are b_i^T (sum over i's
//! subtree of those residuals, moved to P_i) = 0 ([Jaiswal2021, eqs. 11-12]; every applied
//! load is a wrench in r_j). From the leaves to the root, with the articulated inertia I_j and
//! bias force p_j (initially M_bar_j and r_j) [Featherstone2008, Table 7.1, second loop]:
//!   U_j = I_j b_j,  D_j = b_j^T U_j,  u_j = -b_j^T p_j,
//!   I_parent += X^T (I_j - U_j U_j^T / D_j) X,  p_parent += X^T (p_j + U_j u_j / D_j);
//! then from the root to the leaves (third loop):
//!   z''_j = (u_j - U_j^T X delta_parent) / D_j,  delta_j = X delta_parent + b_j z''_j.
//! The bias acceleration c_j of the book is zero here because r_j already holds Z'_j(0).

use super::dynamics::Inertia;
use super::kinematics::{six, BodyKin};
use super::tree::Tree;
use crate::rotation::skew;
use nalgebra::{Matrix3, Matrix6, Vector3, Vector6};

/// Scratch of the recursion, one entry per tree body (allocated once per instance).
#[derive(Clone, Debug, Default)]
pub struct Articulated {
    inertia: Vec<Matrix6<f64>>,
    bias: Vec<Vector6<f64>>,
    u_vec: Vec<Vector6<f64>>,
    d: Vec<f64>,
    u: Vec<f64>,
    delta: Vec<Vector6<f64>>,
}

impl Articulated {
    pub fn new(n: usize) -> Articulated {
        Articulated {
            inertia: vec![Matrix6::zeros(); n],
            bias: vec![Vector6::zeros(); n],
            u_vec: vec![Vector6::zeros(); n],
            d: vec![0.0; n],
            u: vec![0.0; n],
            delta: vec![Vector6::zeros(); n],
        }
    }
}

fn top(v: &Vector6<f64>) -> Vector3<f64> {
    Vector3::new(v[0], v[1], v[2])
}

fn bottom(v: &Vector6<f64>) -> Vector3<f64> {
    Vector3::new(v[3], v[4], v[5])
}

/// X^T I X for the translation X by d (module): with I = [A, B; B^T, C] and D = d~,
/// [A, B - A D; (B - A D)^T, C - B^T D + D (B - A D)].
fn inertia_to_parent(i: &Matrix6<f64>, d: &Vector3<f64>) -> Matrix6<f64> {
    let dm = skew(d);
    let a: Matrix3<f64> = i.fixed_view::<3, 3>(0, 0).into();
    let b: Matrix3<f64> = i.fixed_view::<3, 3>(0, 3).into();
    let c: Matrix3<f64> = i.fixed_view::<3, 3>(3, 3).into();
    let b_new = b - a * dm;
    let c_new = c - b.transpose() * dm + dm * b_new;
    let mut out = Matrix6::zeros();
    out.fixed_view_mut::<3, 3>(0, 0).copy_from(&a);
    out.fixed_view_mut::<3, 3>(0, 3).copy_from(&b_new);
    out.fixed_view_mut::<3, 3>(3, 0).copy_from(&b_new.transpose());
    out.fixed_view_mut::<3, 3>(3, 3).copy_from(&c_new);
    out
}

impl Tree {
    /// The recursion covers open spatial trees without a circuit: no cut joints (their
    /// constraints couple the coordinates across the tree), no pressures (they enter by the
    /// dense path's eqs. 13-17 of [Jaiswal2021]), and not the planar kernels (whose `kin`
    /// holds the in-plane components only).
    pub fn articulated_applies(&self) -> bool {
        self.cuts.is_empty() && self.circuit.is_none() && !self.planar
    }

    /// Body `t`'s Newton-Euler residual about the point `o` ([Jaiswal2021, eqs. 8-10] with the
    /// lever g - o): [m g'' - f; (g - o) x m g'' + J w' + w x J w - n_o], n_o the applied
    /// moment about o (`loads` hold it about the origin).
    fn body_residual_about(&self, t: usize, kin: &[BodyKin], loads: &[Vector6<f64>], o: &Vector3<f64>) -> Vector6<f64> {
        let (mg, jwd, gyroscopic) = self.inertial_terms(t, kin);
        let (f, n) = (top(&loads[t]), bottom(&loads[t]));
        six(mg - f, (kin[t].r - o).cross(&mg) + jwd + gyroscopic - (n - o.cross(&f)))
    }

    /// z'' into `zdd` for the positions and velocities in `kin`, whose accelerations are those
    /// of z'' = 0, and the applied wrenches `loads` (about the origin). Err(j): the articulated
    /// inertia of coordinate j is not positive along its axis (a singular configuration).
    pub fn articulated_accelerations(
        &self,
        kin: &[BodyKin],
        loads: &[Vector6<f64>],
        s: &mut Articulated,
        zdd: &mut [f64],
    ) -> Result<(), usize> {
        for (t, b) in self.bodies.iter().enumerate() {
            let k = &kin[t];
            let o = k.point;
            s.inertia[t] = Inertia::of_body(b.mass, &(k.r - o), &(k.rot * b.inertia * k.rot.transpose())).matrix();
            s.bias[t] = self.body_residual_about(t, kin, loads, &o);
        }
        for t in (0..self.bodies.len()).rev() {
            let b = self.local_subspace(t, &kin[t]);
            let uv = s.inertia[t] * b;
            let d = b.dot(&uv);
            if !(d > 0.0 && d.is_finite()) {
                return Err(t);
            }
            let u = -b.dot(&s.bias[t]);
            (s.u_vec[t], s.d[t], s.u[t]) = (uv, d, u);
            if let Some(p) = self.bodies[t].parent {
                let ia = s.inertia[t] - uv * (uv.transpose() / d);
                let pa = s.bias[t] + uv * (u / d);
                let shift = kin[t].point - kin[p].point;
                if shift == Vector3::zeros() {
                    // The bodies of one spherical joint share its point.
                    s.inertia[p] += ia;
                    s.bias[p] += pa;
                } else {
                    s.inertia[p] += inertia_to_parent(&ia, &shift);
                    let f = top(&pa);
                    s.bias[p] += six(f, bottom(&pa) + shift.cross(&f));
                }
            }
        }
        for t in 0..self.bodies.len() {
            let dp = self.bodies[t].parent.map_or(Vector6::zeros(), |p| {
                let (dv, dw) = (top(&s.delta[p]), bottom(&s.delta[p]));
                six(dv + dw.cross(&(kin[t].point - kin[p].point)), dw)
            });
            let q = (s.u[t] - s.u_vec[t].dot(&dp)) / s.d[t];
            zdd[t] = q;
            s.delta[t] = dp + self.local_subspace(t, &kin[t]) * q;
        }
        Ok(())
    }

    /// b_j about the joint point P_j: [0; u] for a revolute joint, [u; 0] for a prismatic one
    /// (with the coordinate's sign), where the global b_j of [Jaiswal2021, eq. 2] is
    /// [P x u; u] and [u; 0].
    fn local_subspace(&self, t: usize, k: &BodyKin) -> Vector6<f64> {
        let b = &self.bodies[t];
        let u = k.axis * b.sign;
        if b.prismatic {
            six(u, Vector3::zeros())
        } else {
            six(Vector3::zeros(), u)
        }
    }
}
