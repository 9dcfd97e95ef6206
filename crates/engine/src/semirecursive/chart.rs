//! Charts of the spherical tree joints, re-based away from gimbal lock.
//!
//! A spherical tree joint is three revolute coordinates (a, b, c) in series about axes e1
//! (fixed in the parent), e2 and e3 (fixed in the child) ([`super::spherical`]): the relative
//! rotation is Q = R(e1, a) R0 R(e2, b) R(e3, c), with R0 the rotation at a = b = c = 0. Its
//! angular velocity a' u1 + b' u2 + c' u3 (u_k the axes as the rotations before them left
//! them) loses rank where cos b = 0. The chart of a joint is the constants of its three tree
//! bodies (axes and rotations at zero, [`Chart`]); it is part of the state. At an accepted
//! step where a joint's |sin b| exceeds [`REBASE`], the joint is re-based: R0 becomes the
//! present Q and all three coordinates zero, e3 stays the child's axis (a spin stays in c),
//! e1 becomes the old e1 made normal to the child's present e3 (the swing stays mostly in
//! a), e2 = e3 x e1; the rates and accelerations are those of the same relative angular
//! velocity and acceleration in the new axes, so that every body's pose, velocity and
//! acceleration is unchanged to round-off. The relations are the rotational parts of the
//! recursion's velocities and accelerations [Jaiswal2021, eqs. 2-3] over the joint's three
//! bodies: omega = sum z'_k u_k and omega' = sum z''_k u_k + sum_k z'_k (omega_{<k} x u_k),
//! with omega_{<k} = sum_{j<k} z'_j u_j (b'_k z'_k of eq. 3, its axis moving with the bodies
//! before it).
//!
//! Threshold: at |sin b| = 0.8 (b = 53 degrees) the rates are at most 1/|cos b| = 1.7 times the
//! relative angular velocity and the chart is 31 degrees from the refused band of
//! [`super::spherical::GIMBAL_MARGIN`] (84.3 degrees), which no accepted step crosses; after a
//! re-basing b is zero, so a joint is re-based at most once per 53 degrees of bending.

use super::tree::{perpendicular, Tree, TreeBody};
use crate::rotation::orthonormalize;
use nalgebra::{Matrix3, Vector3};
use serde::{Deserialize, Serialize};

/// A joint whose middle rotation has |sin b| above this at an accepted step is re-based.
pub const REBASE: f64 = 0.8;

/// The constants of the three tree bodies of a spherical joint: each one's axis in its
/// parent's frame and rotation relative to its parent at zero (row-major), in the order of
/// the bodies.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    pub axes: [[f64; 3]; 3],
    pub relative0: [[f64; 9]; 3],
}

fn v3(a: &[f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

fn m3(a: &[f64; 9]) -> Matrix3<f64> {
    Matrix3::from_row_slice(a)
}

fn rows(m: &Matrix3<f64>) -> [f64; 9] {
    std::array::from_fn(|k| m[(k / 3, k % 3)])
}

/// Sets a revolute tree body's axis and rotation at zero with the Rodrigues constants
/// (the same expressions as the compiler's).
pub(super) fn set_revolute(b: &mut TreeBody, axis_parent: Vector3<f64>, relative0: Matrix3<f64>) {
    b.axis_parent = axis_parent;
    b.relative0 = relative0;
    b.relative_skew = crate::rotation::skew(&axis_parent) * relative0;
    b.relative_axial = axis_parent * axis_parent.transpose() * relative0;
    b.relative_planar = (Matrix3::identity() - axis_parent * axis_parent.transpose()) * relative0;
}

/// exp(q a~) relative0 of a revolute tree body (as `kinematics.rs` forms it).
fn rotation(b: &TreeBody, q: f64) -> Matrix3<f64> {
    let (sin, cos) = q.sin_cos();
    b.relative_axial + b.relative_planar * cos + b.relative_skew * sin
}

/// omega = sum z'_k u_k and the velocity terms sum_k z'_k (omega_{<k} x u_k) of omega' (module).
fn chain_terms(u: &[Vector3<f64>; 3], zd: [f64; 3]) -> (Vector3<f64>, Vector3<f64>) {
    let mut omega = Vector3::zeros();
    let mut bias = Vector3::zeros();
    for k in 0..3 {
        bias += omega.cross(&u[k]) * zd[k];
        omega += u[k] * zd[k];
    }
    (omega, bias)
}

impl Tree {
    /// The first tree body of every spherical tree joint.
    pub fn spherical_joints(&self) -> impl Iterator<Item = usize> + '_ {
        self.bodies.iter().enumerate().filter(|(_, b)| b.spherical == Some(0)).map(|(k, _)| k)
    }

    /// The charts of the spherical tree joints as the tree has them.
    pub fn charts(&self) -> Vec<Chart> {
        self.spherical_joints()
            .map(|k| Chart {
                axes: std::array::from_fn(|i| self.bodies[k + i].axis_parent.into()),
                relative0: std::array::from_fn(|i| rows(&self.bodies[k + i].relative0)),
            })
            .collect()
    }

    /// Makes `charts` (of [`Tree::charts`]' joints, in its order) the tree's.
    pub fn apply_charts(&mut self, charts: &[Chart]) {
        let mut joint = 0;
        for k in 0..self.bodies.len() {
            if self.bodies[k].spherical != Some(0) {
                continue;
            }
            let Some(c) = charts.get(joint) else { return };
            joint += 1;
            for i in 0..3 {
                let b = &mut self.bodies[k + i];
                if b.axis_parent != v3(&c.axes[i]) || b.relative0 != m3(&c.relative0[i]) {
                    set_revolute(b, v3(&c.axes[i]), m3(&c.relative0[i]));
                }
            }
        }
    }

    /// True if a spherical tree joint's middle rotation at `z` has |sin b| above [`REBASE`].
    pub fn needs_rebase(&self, z: &[f64]) -> bool {
        self.bodies.iter().zip(z).any(|(b, q)| b.spherical == Some(1) && q.sin().abs() > REBASE)
    }

    /// Re-bases every spherical tree joint whose |sin b| exceeds [`REBASE`] (module): new
    /// constants in the tree and in `charts`, the joint's coordinates, rates and accelerations
    /// in `z`, `zd`, `zdd` those of the same relative motion. Returns the number re-based.
    pub fn rebase(&mut self, z: &mut [f64], zd: &mut [f64], zdd: &mut [f64], charts: &mut [Chart]) -> usize {
        let mut count = 0;
        let mut joint = 0;
        for k in 0..self.bodies.len() {
            if self.bodies[k].spherical != Some(0) {
                continue;
            }
            let j = joint;
            joint += 1;
            if z[k + 1].sin().abs() <= REBASE {
                continue;
            }
            let [b1, b2, b3] = [&self.bodies[k], &self.bodies[k + 1], &self.bodies[k + 2]];
            let (r1, r2, r3) = (rotation(b1, z[k]), rotation(b2, z[k + 1]), rotation(b3, z[k + 2]));
            // Axes in the parent's frame, the relative rotation, its angular velocity and
            // acceleration.
            let u = [b1.axis_parent, r1 * b2.axis_parent, r1 * r2 * b3.axis_parent];
            // The product drifts from a rotation by round-off; the new e2, formed through Q^T,
            // and the next re-basing's product would carry the drift on and grow it with every
            // re-basing (through the rates mapped below into the energy: the 32-bar chain's ran
            // away after 14 s), so Q is the nearest rotation to it.
            let q = orthonormalize(&(r1 * r2 * r3));
            let (rates, accelerations) = ([zd[k], zd[k + 1], zd[k + 2]], [zdd[k], zdd[k + 1], zdd[k + 2]]);
            let (omega, bias) = chain_terms(&u, rates);
            let omega_dot = u[0] * accelerations[0] + u[1] * accelerations[1] + u[2] * accelerations[2] + bias;
            // The new chart: e3 the child's axis, e1 the old one normal to it, e2 = e3 x e1.
            let axis3 = b3.axis_parent;
            let d = q * axis3;
            let normal = u[0] - d * u[0].dot(&d);
            let e1 = if normal.norm() > 1e-6 { normal.normalize() } else { perpendicular(&d) };
            let axis2 = axis3.cross(&(q.transpose() * e1)).normalize();
            let identity = Matrix3::identity();
            set_revolute(&mut self.bodies[k], e1, q);
            set_revolute(&mut self.bodies[k + 1], axis2, identity);
            set_revolute(&mut self.bodies[k + 2], axis3, identity);
            // At zero the new axes are orthonormal: e1, Q e2, Q e3.
            let u_new = [e1, q * axis2, d];
            let rates_new: [f64; 3] = std::array::from_fn(|i| u_new[i].dot(&omega));
            let (_, bias_new) = chain_terms(&u_new, rates_new);
            let rest = omega_dot - bias_new;
            for i in 0..3 {
                z[k + i] = 0.0;
                zd[k + i] = rates_new[i];
                zdd[k + i] = u_new[i].dot(&rest);
            }
            charts[j] = Chart {
                axes: [e1.into(), axis2.into(), axis3.into()],
                relative0: [rows(&q), rows(&identity), rows(&identity)],
            };
            count += 1;
        }
        count
    }
}

impl super::Semirecursive {
    /// Re-bases the spherical tree joints of the committed state that left the safe range
    /// (an accepted step's end: [`Tree::rebase`]); the kept Newton tangent, in the old
    /// coordinates, is forgotten, a mechanism with cut joints chooses its partition again in
    /// the new coordinates, and the cached kinematics are formed at the new coordinates.
    /// True if a joint was re-based.
    pub(super) fn rebase_charts(&mut self, t: f64) -> Result<bool, crate::integrators::StepError> {
        if !self.tree.needs_rebase(&self.state.z) {
            return Ok(false);
        }
        let st = &mut self.state;
        self.tree.rebase(&mut st.z, &mut st.zd, &mut st.zdd, &mut st.charts);
        st.tangent.forget();
        st.kin_z.copy_from_slice(&st.z);
        if self.tree.n_constraints() > 0 {
            let w = &mut self.w;
            self.tree.positions(&self.state.z, &mut w.kin);
            w.constraint_rows(&self.tree);
            self.choose_partition(t)?;
        }
        self.refresh().map_err(|what| crate::integrators::StepError::Model { time: t, what })?;
        Ok(true)
    }
}
