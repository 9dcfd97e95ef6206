//! Recursive kinematics of the open tree from the base to the leaves ([Jaiswal2021, Sect. 2.1]).
//!
//! Body j has the Cartesian velocity Z_j = [s'_j; w_j] (eq. 1): the velocity of its point
//! that coincides with the global origin and its angular velocity. Then
//!   Z_j = Z_{j-1} + b_j z'_j,                      (eq. 2)
//!   Z'_j = Z'_{j-1} + b_j z''_j + d_j,  d_j = b'_j z'_j,   (eq. 3)
//! with, for a revolute joint of global axis u through the point P (both moving with the
//! parent), b = [P x u; u], and for a translational joint b = [u; 0]. Here Z' is the time
//! derivative of Z (the convention of ref. \[11\]); the centre-of-mass acceleration is then
//! g'' = s'' + w' x g + w x g' (the term e_j of eq. 7 becomes [w x g'; 0]).

use super::tree::Tree;
use nalgebra::{Matrix3, Vector3, Vector6};

/// Kinematic quantities of one tree body at one configuration.
#[derive(Clone, Debug, Default)]
pub struct BodyKin {
    /// Centre of mass g and orientation A (body to global).
    pub r: Vector3<f64>,
    pub rot: Matrix3<f64>,
    /// Joint axis u and point P (global).
    pub axis: Vector3<f64>,
    pub point: Vector3<f64>,
    /// b_j of eq. (2) and b'_j.
    pub b: Vector6<f64>,
    pub bdot: Vector6<f64>,
    /// Z_j = [s'; w] and Z'_j.
    pub vel: Vector6<f64>,
    pub acc: Vector6<f64>,
    /// Set by the planar kernels (`planar.rs`): `rot` is a rotation about e_z and b, b', Z, Z'
    /// have only the components x, y and w_z, so the products below skip the zeros (with the
    /// nonzero terms in the same order: the same values).
    pub planar: bool,
}

impl BodyKin {
    pub fn omega(&self) -> Vector3<f64> {
        self.vel.fixed_rows::<3>(3).into()
    }
    pub fn s_dot(&self) -> Vector3<f64> {
        self.vel.fixed_rows::<3>(0).into()
    }
    /// Velocity of the body's material point at the global position `p`.
    #[inline(always)]
    pub fn velocity_at(&self, p: &Vector3<f64>) -> Vector3<f64> {
        if self.planar {
            let w = self.vel[5];
            return Vector3::new(self.vel[0] - w * p.y, self.vel[1] + w * p.x, 0.0);
        }
        self.s_dot() + self.omega().cross(p)
    }
    /// w x v.
    #[inline(always)]
    pub fn omega_cross(&self, v: &Vector3<f64>) -> Vector3<f64> {
        if self.planar {
            let w = self.vel[5];
            return Vector3::new(-(w * v.y), w * v.x, 0.0);
        }
        self.omega().cross(v)
    }
    /// A v: a body-fixed direction `v` in global coordinates.
    #[inline(always)]
    pub fn rotate(&self, v: &Vector3<f64>) -> Vector3<f64> {
        if self.planar {
            let (c, s) = (self.rot[(0, 0)], self.rot[(1, 0)]);
            return Vector3::new(c * v.x - s * v.y, s * v.x + c * v.y, v.z);
        }
        self.rot * v
    }
    /// G . Z for a row's G (6 entries) at this body: its share of the row's rate.
    #[inline(always)]
    pub fn g_dot_vel(&self, g: &Vector6<f64>) -> f64 {
        dot6(self.planar, g, &self.vel)
    }
    /// G . Z' likewise.
    #[inline(always)]
    pub fn g_dot_acc(&self, g: &Vector6<f64>) -> f64 {
        dot6(self.planar, g, &self.acc)
    }
    /// Acceleration of the body's material point at `p` (moving with velocity `v`).
    pub fn acceleration_at(&self, p: &Vector3<f64>, v: &Vector3<f64>) -> Vector3<f64> {
        let sdd: Vector3<f64> = self.acc.fixed_rows::<3>(0).into();
        let wd: Vector3<f64> = self.acc.fixed_rows::<3>(3).into();
        sdd + wd.cross(p) + self.omega().cross(v)
    }
    /// Centre-of-mass velocity g' = s' + w x g (eq. 6).
    pub fn com_velocity(&self) -> Vector3<f64> {
        self.velocity_at(&self.r)
    }
    pub fn com_acceleration(&self) -> Vector3<f64> {
        self.acceleration_at(&self.r, &self.com_velocity())
    }
    /// Global position of the body-fixed point `local`.
    #[inline(always)]
    pub fn point(&self, local: &Vector3<f64>) -> Vector3<f64> {
        if self.planar {
            let q = self.rotate(local);
            return Vector3::new(self.r.x + q.x, self.r.y + q.y, self.r.z + q.z);
        }
        self.r + self.rot * local
    }
}

/// a . b for 6-vectors, with only the components x, y and w_z if `planar` (the others of b are
/// zero; the nonzero products are added in the same order as in the full product).
#[inline(always)]
pub fn dot6(planar: bool, a: &Vector6<f64>, b: &Vector6<f64>) -> f64 {
    if planar {
        a[0] * b[0] + a[1] * b[1] + a[5] * b[5]
    } else {
        a.dot(b)
    }
}

/// [a; b] as one 6-vector (a spatial vector's linear part first).
pub(super) fn six(a: Vector3<f64>, b: Vector3<f64>) -> Vector6<f64> {
    Vector6::new(a.x, a.y, a.z, b.x, b.y, b.z)
}

impl Tree {
    /// Poses of every body, the joints' global axes and points, and b_j, for coordinates `z`.
    pub fn positions(&self, z: &[f64], kin: &mut [BodyKin]) {
        if self.planar {
            return self.positions_planar(z, kin);
        }
        for (t, b) in self.bodies.iter().enumerate() {
            let q = b.sign * (z[t] - b.z0);
            // The orientation relative to the parent and the joint point in the parent's
            // frame; exp(q a~) relative0 by Rodrigues' formula from the constants of
            // `TreeBody`.
            let (relative, point_parent) = if b.prismatic {
                (b.relative0, b.point_parent + b.axis_parent * q)
            } else {
                let (sin, cos) = q.sin_cos();
                (b.relative_axial + b.relative_planar * cos + b.relative_skew * sin, b.point_parent)
            };
            // Children of ground need no composition with the parent's pose.
            let (rot, point, axis) = match b.parent {
                Some(p) => {
                    let parent = &kin[p];
                    (parent.rot * relative, parent.r + parent.rot * point_parent, parent.rot * b.axis_parent)
                }
                None => (relative, point_parent, b.axis_parent),
            };
            let k = &mut kin[t];
            k.r = point - rot * b.point_child;
            k.rot = rot;
            k.point = point;
            k.axis = axis;
            k.b = if b.prismatic { six(axis, Vector3::zeros()) } else { six(point.cross(&axis), axis) } * b.sign;
            k.planar = false;
        }
    }

    /// Z_j (eq. 2) for rates `zd`, after [`Tree::positions`].
    pub fn velocities(&self, zd: &[f64], kin: &mut [BodyKin]) {
        if self.planar {
            return self.velocities_planar(zd, kin);
        }
        for (t, b) in self.bodies.iter().enumerate() {
            let parent = b.parent.map_or(Vector6::zeros(), |p| kin[p].vel);
            let k = &mut kin[t];
            k.vel = parent + k.b * zd[t];
        }
    }

    /// Z'_j (eq. 3) is linear in z'' at given velocities: adds the sum over the path to each
    /// body of b_i dz''_i to the accelerations in `kin` (those of some z''), which become those
    /// of z'' + `dzdd` without forming b'_j again. `deltas` is scratch of one 6-vector per body.
    pub fn add_accelerations(&self, dzdd: &[f64], kin: &mut [BodyKin], deltas: &mut [Vector6<f64>]) {
        if self.planar {
            return self.add_accelerations_planar(dzdd, kin, deltas);
        }
        for (t, b) in self.bodies.iter().enumerate() {
            let parent = b.parent.map_or(Vector6::zeros(), |p| deltas[p]);
            let k = &mut kin[t];
            let delta = parent + k.b * dzdd[t];
            deltas[t] = delta;
            k.acc += delta;
        }
    }

    /// b'_j and Z'_j (eq. 3) for accelerations `zdd`, after [`Tree::velocities`].
    pub fn accelerations(&self, zd: &[f64], zdd: &[f64], kin: &mut [BodyKin]) {
        if self.planar {
            return self.accelerations_planar(zd, zdd, kin);
        }
        for (t, b) in self.bodies.iter().enumerate() {
            let (parent_acc, pv) = match b.parent {
                Some(p) => (kin[p].acc, kin[p].vel),
                None => (Vector6::zeros(), Vector6::zeros()),
            };
            let ps: Vector3<f64> = pv.fixed_rows::<3>(0).into();
            let pw: Vector3<f64> = pv.fixed_rows::<3>(3).into();
            let k = &mut kin[t];
            // The axis and point move with the parent: u' = w_p x u, P' = s'_p + w_p x P.
            let udot = pw.cross(&k.axis);
            k.bdot = if b.prismatic {
                six(udot, Vector3::zeros())
            } else {
                let pdot = ps + pw.cross(&k.point);
                six(pdot.cross(&k.axis) + k.point.cross(&udot), udot)
            } * b.sign;
            k.acc = parent_acc + k.b * zdd[t] + k.bdot * zd[t];
        }
    }
}
