//! Equations of motion of the open tree ([Jaiswal2021, eqs. 8-12]): per body the mass matrix
//! M_bar_j (eq. 9) and the force Q_bar_j (eq. 10) referred to the global origin, projected onto
//! the joint coordinates with R = T R_d (eq. 4): M' z'' = Q' with M' = R^T M_bar R and
//! Q' = R^T (Q_bar - M_bar T R_d' z') (eqs. 11-12). The sums over descendants that the path
//! matrix T produces are accumulated from the leaves to the base (the "semirecursive" part).

use super::cuts::{line, point_kin, RowEval};
use super::kinematics::{six, BodyKin};
use super::tree::{JointRole, Tree};
use crate::elements::Geometry;
use crate::hydraulics::Stroke;
use nalgebra::{Matrix3, Vector3, Vector6};

/// A force f at the global point p as a wrench about the origin: [f; p x f].
fn wrench(f: &Vector3<f64>, p: &Vector3<f64>) -> Vector6<f64> {
    six(*f, p.cross(f))
}

impl Tree {
    fn input(inputs: &[f64], i: Option<usize>) -> f64 {
        i.map_or(0.0, |i| inputs[i])
    }

    /// Rotation (value, rate) of joint `ji` for the rotary elements and outputs.
    pub fn joint_rotation(&self, ji: usize, z: &[f64], zd: &[f64], kin: &[BodyKin]) -> (f64, f64) {
        match self.roles[ji] {
            JointRole::Tree { body } => (z[body], zd[body]),
            JointRole::Cut { cut } => {
                let c = &self.cut_joints[cut];
                let rot = |i: usize| c.pair[i].map_or(Matrix3::identity(), |k| kin[k].rot);
                let omega = |i: usize| c.pair[i].map_or(Vector3::zeros(), |k| kin[k].omega());
                let u = rot(0) * c.axis1;
                let (f, g) = (rot(0) * c.reference[0], rot(1) * c.reference[1]);
                (c.z0 + u.dot(&f.cross(&g)).atan2(f.dot(&g)), u.dot(&(omega(1) - omega(0))))
            }
        }
    }

    /// Sliding (value, rate) of joint `ji` (translational joints).
    pub fn joint_slide(&self, ji: usize, z: &[f64], zd: &[f64], kin: &[BodyKin]) -> (f64, f64) {
        match self.roles[ji] {
            JointRole::Tree { body } => (z[body], zd[body]),
            JointRole::Cut { cut } => {
                let c = &self.cut_joints[cut];
                let p1 = point_kin(kin, &(c.pair[0], c.points[0]));
                let p2 = point_kin(kin, &(c.pair[1], c.points[1]));
                let (a, w) = match c.pair[0] {
                    Some(k) => (kin[k].rot * c.axis1, kin[k].omega()),
                    None => (c.axis1, Vector3::zeros()),
                };
                let d = p2.p - p1.p;
                (c.z0 + a.dot(&d), w.cross(&a).dot(&d) + a.dot(&(p2.v - p1.v)))
            }
        }
    }

    /// The two bodies (body1, body2) of joint `ji` and its global axis.
    pub(super) fn joint_bodies(&self, ji: usize, kin: &[BodyKin]) -> ([Option<usize>; 2], Vector3<f64>) {
        match self.roles[ji] {
            JointRole::Tree { body } => {
                let b = &self.bodies[body];
                let pair = if b.sign > 0.0 { [b.parent, Some(body)] } else { [Some(body), b.parent] };
                (pair, kin[body].axis)
            }
            JointRole::Cut { cut } => {
                let c = &self.cut_joints[cut];
                (c.pair, c.pair[0].map_or(c.axis1, |k| kin[k].rot * c.axis1))
            }
        }
    }

    /// Applied wrenches about the origin on every body: gravity, force elements and the
    /// actuators' forces `cylinders` (cylinders pushing the ends apart, then motors' torques)
    /// along their rows `cylinder_rows` (a line's or a joint rate's; None: not attached to the
    /// mechanism), whose rates are those of `strokes`. Returns the power of the non-conservative forces (for the work and energy
    /// balance). A planar tree's wrenches are formed in the components x, y and n_z only (the
    /// others are never read, `planar.rs`). Unless `wrenches`, only the power is formed and
    /// `out` is left as it is.
    #[allow(clippy::too_many_arguments)]
    pub fn loads(
        &self,
        kin: &[BodyKin],
        z: &[f64],
        zd: &[f64],
        inputs: &[f64],
        cylinders: &[f64],
        cylinder_rows: &[Option<RowEval>],
        strokes: &[Stroke],
        wrenches: bool,
        out: &mut [Vector6<f64>],
    ) -> f64 {
        let out = if wrenches { out } else { &mut [] };
        for ((o, b), k) in out.iter_mut().zip(&self.bodies).zip(kin) {
            let f = self.gravity * b.mass;
            *o = if self.planar {
                Vector6::new(f.x, f.y, f.z, 0.0, 0.0, k.r.x * f.y - k.r.y * f.x)
            } else {
                wrench(&f, &k.r)
            };
        }
        let mut power = 0.0;
        let at = |end: Option<usize>, f: Vector3<f64>, p: &Vector3<f64>, out: &mut [Vector6<f64>]| {
            if let (Some(k), true) = (end, wrenches) {
                out[k] += wrench(&f, p);
            }
        };
        for e in &self.elements {
            let input = Self::input(inputs, e.input);
            match &e.geometry {
                Geometry::Line { ends } => {
                    let (row, u) = line(kin, ends);
                    let rate = row_rate(kin, &row);
                    let [q, p] = e.law.generalized_force_and_power(row.value, rate, input);
                    let (a, b) = (point_kin(kin, &ends[0]), point_kin(kin, &ends[1]));
                    at(ends[1].0, u * q, &b.p, out);
                    at(ends[0].0, -u * q, &a.p, out);
                    power += p;
                }
                Geometry::JointRotation { joint } => {
                    let (theta, rate) = self.joint_rotation(*joint, z, zd, kin);
                    let [torque, p] = e.law.generalized_force_and_power(theta, rate, input);
                    let (pair, u) = self.joint_bodies(*joint, kin);
                    if let (Some(k), true) = (pair[1], wrenches) {
                        out[k] += six(Vector3::zeros(), u * torque);
                    }
                    if let (Some(k), true) = (pair[0], wrenches) {
                        out[k] -= six(Vector3::zeros(), u * torque);
                    }
                    power += p;
                }
                Geometry::Point { at: end, direction } => {
                    let p = point_kin(kin, end);
                    let (x, rate) = (direction.dot(&p.p), direction.dot(&p.v));
                    at(end.0, direction * e.generalized_force(x, rate, input), &p.p, out);
                    power += e.law.power(x, rate, input);
                }
                Geometry::Torque { body, axis } => {
                    let rate = axis.dot(&kin[*body].omega());
                    if wrenches {
                        out[*body] += six(Vector3::zeros(), axis * e.generalized_force(0.0, rate, input));
                    }
                    power += e.law.power(0.0, rate, input);
                }
            }
        }
        // The row's G of each end is the wrench of a unit tension along the line (pushing
        // the ends apart for f > 0).
        for ((row, &f), stroke) in cylinder_rows.iter().zip(cylinders).zip(strokes) {
            let Some(row) = row else { continue };
            if wrenches {
                for (k, g) in row.g.iter().flatten() {
                    out[*k] += g * f;
                }
            }
            // The stroke's rate is the row's rate at these kinematics.
            power += f * stroke.velocity;
        }
        power
    }

    /// R^T (M_bar Z' - Q_bar) (the residual of eq. 12, M' z'' - Q') for the velocities and
    /// accelerations in `kin` and the applied wrenches `loads`. Per body, M_bar Z' - Q_bar is
    /// the Newton-Euler residual [m g'' - f; g x m g'' + J w' + w x J w - n_O] about the
    /// origin; `acc` is scratch for the subtree sums.
    pub fn generalized_residual(
        &self,
        kin: &[BodyKin],
        loads: &[Vector6<f64>],
        acc: &mut [Vector6<f64>],
        out: &mut [f64],
    ) {
        if self.planar {
            return self.generalized_residual_planar(kin, loads, acc, out);
        }
        for (t, a) in acc.iter_mut().enumerate().take(self.bodies.len()) {
            *a = self.body_residual(t, kin, loads);
        }
        for t in (0..self.bodies.len()).rev() {
            if let Some(p) = self.bodies[t].parent {
                let child = acc[t];
                acc[p] += child;
            }
            out[t] = kin[t].b.dot(&acc[t]);
        }
    }

    /// Body `t`'s Newton-Euler residual M_bar Z' - Q_bar about the origin,
    /// [m g'' - f; g x m g'' + J w' + w x J w - n_O] ([Jaiswal2021, eqs. 8-10]), for the
    /// velocities and accelerations in `kin` and the applied wrenches `loads`.
    #[inline]
    pub fn body_residual(&self, t: usize, kin: &[BodyKin], loads: &[Vector6<f64>]) -> Vector6<f64> {
        let (mg, jwd, gyroscopic) = self.inertial_terms(t, kin);
        six(mg, kin[t].r.cross(&mg) + jwd + gyroscopic) - loads[t]
    }

    /// Body `t`'s m g'', J w' and w x J w ([Jaiswal2021, eqs. 8-10]), J = A J_bar A^T applied as
    /// products with vectors.
    #[inline]
    pub(super) fn inertial_terms(&self, t: usize, kin: &[BodyKin]) -> (Vector3<f64>, Vector3<f64>, Vector3<f64>) {
        let (b, k) = (&self.bodies[t], &kin[t]);
        let w = k.omega();
        let wd: Vector3<f64> = k.acc.fixed_rows::<3>(3).into();
        let rt = k.rot.transpose();
        let (jw, jwd) = (k.rot * (b.inertia * (rt * w)), k.rot * (b.inertia * (rt * wd)));
        (k.com_acceleration() * b.mass, jwd, w.cross(&jw))
    }

    /// M' = R^T M_bar R (eqs. 9, 11, 12), row-major N x N; `acc` is scratch for the
    /// composite inertias of the subtrees.
    pub fn mass_matrix(&self, kin: &[BodyKin], acc: &mut [Inertia], out: &mut [f64]) {
        if self.planar {
            return self.mass_matrix_planar(kin, acc, out);
        }
        let n = self.bodies.len();
        for (t, b) in self.bodies.iter().enumerate() {
            let k = &kin[t];
            acc[t] = Inertia::of_body(b.mass, &k.r, &(k.rot * b.inertia * k.rot.transpose()));
        }
        for t in (0..n).rev() {
            if let Some(p) = self.bodies[t].parent {
                let child = acc[t];
                acc[p].add(&child);
            }
        }
        // Coordinates on no common path are not coupled.
        out[..n * n].fill(0.0);
        for j in 0..n {
            let v = acc[j].apply(&kin[j].b);
            for &i in &self.bodies[j].path {
                let m = kin[i].b.dot(&v);
                out[i * n + j] = m;
                out[j * n + i] = m;
            }
        }
    }

    pub fn kinetic_energy(&self, kin: &[BodyKin]) -> f64 {
        self.bodies
            .iter()
            .zip(kin)
            .map(|(b, k)| {
                let w = k.omega();
                0.5 * b.mass * k.com_velocity().norm_squared()
                    + 0.5 * w.dot(&(k.rot * b.inertia * k.rot.transpose() * w))
            })
            .sum()
    }

    /// Gravity and spring potential.
    pub fn potential_energy(&self, kin: &[BodyKin], z: &[f64], zd: &[f64]) -> f64 {
        let mut e: f64 = self.bodies.iter().zip(kin).map(|(b, k)| -b.mass * self.gravity.dot(&k.r)).sum();
        for el in self.elements.iter().filter(|e| e.law.stores_energy()) {
            e += el.law.energy(match &el.geometry {
                Geometry::Line { ends } => line(kin, ends).0.value,
                Geometry::JointRotation { joint } => self.joint_rotation(*joint, z, zd, kin).0,
                Geometry::Point { at, direction } => direction.dot(&point_kin(kin, at).p),
                Geometry::Torque { .. } => 0.0,
            });
        }
        e
    }
}

/// The spatial inertia M_bar of eq. (9) about the global origin,
///   [m I, -m g~; m g~, J - m g~ g~],
/// kept as its ten distinct numbers (mass, first moment m g, symmetric rotational part):
/// composite inertias of subtrees are sums of these.
#[derive(Clone, Copy, Debug, Default)]
pub struct Inertia {
    pub(super) mass: f64,
    pub(super) moment: Vector3<f64>,
    pub(super) rotational: Matrix3<f64>,
}

impl Inertia {
    /// A body of mass `m`, centre of mass `g` and global inertia `j` about it; the
    /// rotational part about the origin is j - m g~ g~ = j + m (|g|^2 I - g g^T).
    pub(super) fn of_body(m: f64, g: &Vector3<f64>, j: &Matrix3<f64>) -> Inertia {
        let rotational = j + (Matrix3::identity() * g.norm_squared() - g * g.transpose()) * m;
        Inertia { mass: m, moment: g * m, rotational }
    }

    fn add(&mut self, other: &Inertia) {
        self.mass += other.mass;
        self.moment += other.moment;
        self.rotational += other.rotational;
    }

    /// The 6 x 6 matrix [m I, -m g~; m g~, J_O] (eq. 9).
    pub(super) fn matrix(&self) -> nalgebra::Matrix6<f64> {
        let mut out = nalgebra::Matrix6::zeros();
        let mg = crate::rotation::skew(&self.moment);
        out.fixed_view_mut::<3, 3>(0, 0).copy_from(&(Matrix3::identity() * self.mass));
        out.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-mg));
        out.fixed_view_mut::<3, 3>(3, 0).copy_from(&mg);
        out.fixed_view_mut::<3, 3>(3, 3).copy_from(&self.rotational);
        out
    }

    /// M_bar [s; w] = [m s - m g x w; m g x s + J_O w].
    fn apply(&self, b: &Vector6<f64>) -> Vector6<f64> {
        let s = Vector3::new(b[0], b[1], b[2]);
        let w = Vector3::new(b[3], b[4], b[5]);
        six(s * self.mass - self.moment.cross(&w), self.moment.cross(&s) + self.rotational * w)
    }
}

/// Rate of a line or row: sum G . Z.
#[inline]
pub fn row_rate(kin: &[BodyKin], row: &super::cuts::RowEval) -> f64 {
    row.g.iter().flatten().map(|(k, g)| kin[*k].g_dot_vel(g)).sum()
}
