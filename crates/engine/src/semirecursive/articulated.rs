//! The accelerations of an open tree in O(N): the articulated-body algorithm
//! [Featherstone2008, Sect. 7.3, Table 7.1] on the tree's spatial quantities about the global
//! origin ([Jaiswal2021, eqs. 1-3, 9]), where every body's spatial vectors are already in one
//! frame, so the algorithm's coordinate transforms are identities.
//!
//! With the body accelerations Z'_j = Z'_j(0) + delta_j, Z'_j(0) those of z'' = 0 (the bias
//! accelerations b'_j z'_j summed along the path, [Jaiswal2021, eq. 3]) and delta_j =
//! delta_parent + b_j z''_j, body j's residual is r_j + M_bar_j delta_j, r_j its Newton-Euler
//! residual at z'' = 0 ([`Tree::body_residual`]), and the equations of motion are
//! b_i^T (sum over i's subtree of those residuals) = 0 ([Jaiswal2021, eqs. 11-12]; every
//! applied load is a wrench in r_j). From the leaves to the root, with the articulated inertia
//! I_j and bias force p_j (initially M_bar_j and r_j) [Featherstone2008, Table 7.1, second
//! loop]:
//!   U_j = I_j b_j,  D_j = b_j^T U_j,  u_j = -b_j^T p_j,
//!   I_parent += I_j - U_j U_j^T / D_j,  p_parent += p_j + U_j u_j / D_j;
//! then from the root to the leaves (third loop):
//!   z''_j = (u_j - U_j^T delta_parent) / D_j,  delta_j = delta_parent + b_j z''_j.
//! The bias acceleration c_j of the book is zero here because r_j already holds Z'_j(0).

use super::dynamics::Inertia;
use super::kinematics::BodyKin;
use super::tree::Tree;
use nalgebra::{Matrix6, Vector6};

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

impl Tree {
    /// The recursion covers open spatial trees without a circuit: no cut joints (their
    /// constraints couple the coordinates across the tree), no pressures (they enter by the
    /// dense path's eqs. 13-17 of [Jaiswal2021]), and not the planar kernels (whose `kin`
    /// holds the in-plane components only).
    pub fn articulated_applies(&self) -> bool {
        self.cuts.is_empty() && self.circuit.is_none() && !self.planar
    }

    /// z'' into `zdd` for the positions and velocities in `kin`, whose accelerations are those
    /// of z'' = 0, and the applied wrenches `loads`. Err(j): the articulated inertia of
    /// coordinate j is not positive along its axis (a singular configuration).
    pub fn articulated_accelerations(
        &self,
        kin: &[BodyKin],
        loads: &[Vector6<f64>],
        s: &mut Articulated,
        zdd: &mut [f64],
    ) -> Result<(), usize> {
        for (t, b) in self.bodies.iter().enumerate() {
            let k = &kin[t];
            s.inertia[t] = Inertia::of_body(b.mass, &k.r, &(k.rot * b.inertia * k.rot.transpose())).matrix();
            s.bias[t] = self.body_residual(t, kin, loads);
        }
        for t in (0..self.bodies.len()).rev() {
            let b = &kin[t].b;
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
                s.inertia[p] += ia;
                s.bias[p] += pa;
            }
        }
        for t in 0..self.bodies.len() {
            let dp = self.bodies[t].parent.map_or(Vector6::zeros(), |p| s.delta[p]);
            let q = (s.u[t] - s.u_vec[t].dot(&dp)) / s.d[t];
            zdd[t] = q;
            s.delta[t] = dp + kin[t].b * q;
        }
        Ok(())
    }
}
