//! Planar kernels of the index-3 formulation: positions, constraint values and rows in the
//! in-plane components, for mechanisms whose bodies all move in one plane.
//!
//! A mechanism is planar here when, at the state it starts from, with n the axis of its first
//! revolute joint: gravity, the velocities and the applied forces lie in the plane normal to
//! n, the angular velocities are along n, n is a principal axis of every body's inertia, and
//! every constraint row is either
//! - in-plane: a dot product (or joint angle) of vectors with no component along n, whose
//!   body-fixed parts have none either (points in the plane of the centres of mass), or
//! - out-of-plane: a dot product with a vector along n (n . d of a spatial revolute joint,
//!   the rows of a description's `plane`).
//!
//! Then the out-of-plane rows touch only the out-of-plane coordinates (n . r and the
//! rotations about in-plane axes) and the in-plane rows only the in-plane ones (the dr and
//! dpi_bar parts of a row u . w are w and s x A^T w, [Fang2023, Sect. 2.1] and `geometry.rs`;
//! with s and w in the plane they have no out-of-plane part), the mass matrix
//! blockdiag(m I, J_bar) does not couple the two (n is principal), and the out-of-plane loads
//! vanish. The saddle-point system of [Fang2023, eq. 12] then splits into an in-plane one and
//! an out-of-plane one with zero right-hand side: the out-of-plane corrections and
//! multipliers are zero, and the half-implicit step ([Fang2023, eqs. 4-8]) needs only the
//! in-plane unknowns (x, y, theta) per body and the in-plane rows. The spatial kernels give
//! the same values to round-off (tests/planar_kernels.rs).
//!
//! Rotations are angles about n: body b's in-plane frame A e_bar = (cos phi, sin phi) in the
//! plane's basis (e1, e2), and A exp(theta n_bar~) turns it by theta.

use super::geometry::{Term, Vector};
use super::{JointKind, MechState, Mechanism, MAX_GROUP_VECTORS};
use crate::elements::Geometry;
use crate::rotation::wrap_angle;
use nalgebra::{Matrix3, Vector3};

/// In-plane components (along e1, e2).
pub(super) type V2 = [f64; 2];

/// Jacobian row of an in-plane constraint: per slot, d/d(x, y, theta).
pub(super) type PlanarRow = [[f64; 3]; 2];

/// Below this (relative to the quantity's scale, at least 1) a component counts as zero.
const EPS: f64 = 1e-12;

fn zero(x: f64, scale: f64) -> bool {
    x.abs() <= EPS * scale.max(1.0)
}

/// n x u . w in the plane: (-u_y, u_x) . w.
#[inline(always)]
fn cross(u: &V2, w: &V2) -> f64 {
    u[0] * w[1] - u[1] * w[0]
}

#[inline(always)]
fn dot(u: &V2, w: &V2) -> f64 {
    u[0] * w[0] + u[1] * w[1]
}

/// (sin, cos) of a rotation over one step. Below 0.1 rad, the Taylor series (Abramowitz and
/// Stegun, Handbook of Mathematical Functions, 1964, 4.3.65-66) to the terms in x^13 and
/// x^12, whose remainders are below 1e-22, far below round-off; larger angles use the
/// library functions.
#[inline]
pub(super) fn sin_cos(x: f64) -> (f64, f64) {
    const S: [f64; 6] = [-1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362880.0, -1.0 / 39916800.0, 1.0 / 6227020800.0];
    const C: [f64; 6] = [-0.5, 1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0, -1.0 / 3628800.0, 1.0 / 479001600.0];
    if x.abs() > 0.1 {
        return x.sin_cos();
    }
    let x2 = x * x;
    let s = S.iter().rev().fold(0.0, |acc, c| acc * x2 + c);
    let c = C.iter().rev().fold(0.0, |acc, c| acc * x2 + c);
    (x + x * x2 * s, 1.0 + x2 * c)
}

/// The plane: unit normal n and the orthonormal in-plane basis e1, e2 = n x e1.
#[derive(Clone, Copy, Debug)]
pub struct Plane {
    pub n: Vector3<f64>,
    pub e1: Vector3<f64>,
    pub e2: Vector3<f64>,
}

impl Plane {
    fn of(n: Vector3<f64>) -> Plane {
        let e1 = super::compile::perpendicular(&n);
        Plane { n, e1, e2: n.cross(&e1) }
    }

    #[inline]
    pub(super) fn project(&self, v: &Vector3<f64>) -> V2 {
        [v.dot(&self.e1), v.dot(&self.e2)]
    }

    /// R(theta) a for the rotation by theta about n (Rodrigues, with cos and sin given).
    pub(super) fn turn(&self, cos: f64, sin: f64, a: &Matrix3<f64>) -> Matrix3<f64> {
        let mut out = *a;
        for (mut o, c) in out.column_iter_mut().zip(a.column_iter()) {
            let along = self.n * self.n.dot(&c);
            let across = c - along;
            o.copy_from(&(along + across * cos + self.n.cross(&c) * sin));
        }
        out
    }
}

/// Planar data of one body.
#[derive(Clone, Debug)]
pub(super) struct PlanarBody {
    /// n and the in-plane frame (e_bar, f_bar = n_bar x e_bar) in body coordinates.
    pub n_bar: Vector3<f64>,
    pub e_bar: Vector3<f64>,
    pub f_bar: Vector3<f64>,
    pub mass: f64,
    /// Moment of inertia about n, n_bar . J_bar n_bar.
    pub inertia: f64,
}

/// A body's in-plane position and the (cos, sin) of its angle about n.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Pose {
    pub p: V2,
    pub c: f64,
    pub s: f64,
}

impl Pose {
    /// A body-fixed in-plane vector (components along e_bar, f_bar) in plane components.
    #[inline(always)]
    pub fn turn(&self, a: &V2) -> V2 {
        [self.c * a[0] - self.s * a[1], self.s * a[0] + self.c * a[1]]
    }

    /// This pose turned further by the angle with (cos, sin) = (c, s).
    #[inline(always)]
    pub fn rotated(&self, c: f64, s: f64) -> (f64, f64) {
        (self.c * c - self.s * s, self.s * c + self.c * s)
    }
}

/// A vector of an in-plane row ([`Vector`] in plane components).
#[derive(Clone, Copy, Debug, PartialEq)]
enum PlanarVector {
    Constant(V2),
    /// A body-fixed direction (components along e_bar, f_bar) of the body in `slot`.
    Fixed {
        slot: usize,
        local: V2,
    },
    /// P2 - P1, P = r + A s; a ground side's entry is the global point.
    Between {
        local: [V2; 2],
    },
}

/// How a [`Vector`] behaves in the plane.
enum Class {
    InPlane(PlanarVector),
    /// Along n at every planar configuration.
    Normal,
    Other,
}

/// One in-plane row: its term over the group's planar vectors and its constraint index.
#[derive(Clone, Copy, Debug)]
struct PlanarTerm {
    term: Term,
    row: usize,
}

/// The in-plane rows of one joint or driver with the vectors they use.
#[derive(Clone, Debug)]
struct PlanarGroup {
    pair: [Option<usize>; 2],
    vectors: Vec<PlanarVector>,
    terms: Vec<PlanarTerm>,
}

/// A planar mechanism's in-plane description (see the module documentation).
#[derive(Clone, Debug)]
pub(super) struct PlanarModel {
    pub plane: Plane,
    pub bodies: Vec<PlanarBody>,
    groups: Vec<PlanarGroup>,
    /// Constraint index of each in-plane row, ascending.
    pub rows: Vec<usize>,
    /// Per joint, the in-plane vectors f1, g1 (body1) and f2 (body2) of its angle measure
    /// (`Measure::angle`), if it has one about n.
    angles: Vec<Option<[PlanarVector; 3]>>,
}

impl PlanarModel {
    /// The planar form of `m` at `state`, if the mechanism is planar there.
    pub fn detect(m: &Mechanism, state: &MechState) -> Option<PlanarModel> {
        // Bodies with a static moment (attached off beam nodes) have a coupled mass the planar
        // kernels do not model; they exist only on beams, which are declined as well.
        if !m.beams.elements.is_empty()
            || m.has_offset_masses()
            || m.joints.iter().any(|j| j.friction.is_some())
            || m.bodies.is_empty()
        {
            return None;
        }
        let bodies = &state.bodies;
        let joint = m.joints.iter().find(|j| j.kind == JointKind::Revolute)?;
        let n = match joint.pair[0] {
            Some(b) => bodies[b].rot * joint.axis1,
            None => joint.axis1,
        }
        .normalize();
        let plane = Plane::of(n);
        if !zero(m.gravity.dot(&n), m.gravity.norm()) {
            return None;
        }
        let mut planar_bodies = Vec::with_capacity(bodies.len());
        for (p, s) in m.bodies.iter().zip(bodies) {
            let n_bar = s.rot.tr_mul(&n);
            let jn = p.inertia * n_bar;
            let inertia = n_bar.dot(&jn);
            // Relative to the inertia itself (bodies of a few grams have J ~ 1e-7 kg m^2).
            let principal = (jn - n_bar * inertia).norm() <= EPS * p.inertia.abs().max();
            let spin_along_n = zero((s.w - n_bar * s.w.dot(&n_bar)).norm(), s.w.norm());
            if !(principal && spin_along_n && zero(s.v.dot(&n), s.v.norm())) {
                return None;
            }
            let e_bar = s.rot.tr_mul(&plane.e1);
            planar_bodies.push(PlanarBody { n_bar, f_bar: n_bar.cross(&e_bar), e_bar, mass: p.mass, inertia });
        }
        let mut model =
            PlanarModel { plane, bodies: planar_bodies, groups: Vec::new(), rows: Vec::new(), angles: Vec::new() };
        if !model.forces_in_plane(m, state) {
            return None;
        }
        model.angles = m
            .joints
            .iter()
            .map(|j| {
                let vectors = j.angle.as_ref()?.vectors();
                let planar = |i: usize| match model.classify(&vectors[i], &j.pair, state) {
                    Class::InPlane(v) => Some(v),
                    _ => None,
                };
                Some([planar(0)?, planar(1)?, planar(2)?])
            })
            .collect();
        model.with_groups(m, state)
    }

    /// True if joint `j` has an angle measure about n (its three vectors in the plane).
    pub fn has_planar_angle(&self, j: usize) -> bool {
        self.angles[j].is_some()
    }

    /// A body-fixed vector in the body's in-plane frame, if it has no component along n.
    fn local(&self, b: usize, s: &Vector3<f64>) -> Option<V2> {
        let pb = &self.bodies[b];
        zero(s.dot(&pb.n_bar), s.norm()).then(|| [s.dot(&pb.e_bar), s.dot(&pb.f_bar)])
    }

    /// A global vector's plane components, if it has no component along n.
    fn global(&self, v: &Vector3<f64>) -> Option<V2> {
        zero(v.dot(&self.plane.n), v.norm()).then(|| self.plane.project(v))
    }

    /// A constant global vector: in the plane, along n, or neither.
    fn constant(&self, c: &Vector3<f64>) -> Class {
        match self.global(c) {
            Some(g) => Class::InPlane(PlanarVector::Constant(g)),
            None if along(c, &self.plane.n) => Class::Normal,
            None => Class::Other,
        }
    }

    fn classify(&self, v: &Vector, pair: &[Option<usize>; 2], state: &MechState) -> Class {
        match v {
            Vector::Constant(c) => self.constant(c),
            Vector::Fixed { slot, local } => match pair[*slot] {
                None => self.constant(local),
                Some(b) => match self.local(b, local) {
                    Some(l) => Class::InPlane(PlanarVector::Fixed { slot: *slot, local: l }),
                    None if along(local, &self.bodies[b].n_bar) => Class::Normal,
                    None => Class::Other,
                },
            },
            Vector::Between { local1, local2 } => {
                let side = |slot: usize, l: &Vector3<f64>| match pair[slot] {
                    Some(b) => self.local(b, l),
                    None => Some(self.plane.project(l)),
                };
                let d = v.value(&[pair[0].map(|b| &state.bodies[b]), pair[1].map(|b| &state.bodies[b])]);
                match (side(0, local1), side(1, local2)) {
                    (Some(a), Some(b)) if zero(d.dot(&self.plane.n), d.norm()) => {
                        Class::InPlane(PlanarVector::Between { local: [a, b] })
                    }
                    _ => Class::Other,
                }
            }
        }
    }

    /// True if every applied force lies in the plane (and every torque is about n).
    fn forces_in_plane(&self, m: &Mechanism, state: &MechState) -> bool {
        m.forces.iter().all(|f| match &f.geometry {
            Geometry::Line { ends } => {
                let d = Vector::Between { local1: ends[0].1, local2: ends[1].1 };
                matches!(self.classify(&d, &[ends[0].0, ends[1].0], state), Class::InPlane(_))
            }
            Geometry::JointRotation { joint } => {
                let j = &m.joints[*joint];
                j.angle.as_ref().is_some_and(|a| {
                    a.vectors().iter().all(|v| matches!(self.classify(v, &j.pair, state), Class::InPlane(_)))
                })
            }
            Geometry::Point { at, direction } => {
                at.0.is_some_and(|body| self.local(body, &at.1).is_some()) && self.global(direction).is_some()
            }
            Geometry::Torque { axis, .. } => along(axis, &self.plane.n),
        })
    }

    /// Adds the in-plane rows; None if a row is neither in-plane nor out-of-plane.
    fn with_groups(mut self, m: &Mechanism, state: &MechState) -> Option<PlanarModel> {
        for g in &m.groups {
            let pair = g.geometry.pair;
            let classes: Vec<Class> = g.geometry.vectors.iter().map(|v| self.classify(v, &pair, state)).collect();
            let in_plane = |i: usize| matches!(classes[i], Class::InPlane(_));
            let mut group = PlanarGroup { pair, vectors: Vec::new(), terms: Vec::new() };
            // Index of vector i among the group's planar vectors (added on first use).
            let mut index = [usize::MAX; MAX_GROUP_VECTORS];
            let mut use_vector = |i: usize, group: &mut PlanarGroup| {
                if index[i] == usize::MAX {
                    let Class::InPlane(v) = classes[i] else { unreachable!("only in-plane vectors are used") };
                    index[i] = group.vectors.len();
                    group.vectors.push(v);
                }
                index[i]
            };
            for k in g.rows.clone() {
                let term = match m.constraints[k].term {
                    Term::Dot(a, b) if matches!(classes[a], Class::Normal) || matches!(classes[b], Class::Normal) => {
                        continue;
                    }
                    Term::Dot(a, b) if in_plane(a) && in_plane(b) => {
                        Term::Dot(use_vector(a, &mut group), use_vector(b, &mut group))
                    }
                    Term::Angle { f1, g1, f2 } if in_plane(f1) && in_plane(g1) && in_plane(f2) => Term::Angle {
                        f1: use_vector(f1, &mut group),
                        g1: use_vector(g1, &mut group),
                        f2: use_vector(f2, &mut group),
                    },
                    _ => return None,
                };
                group.terms.push(PlanarTerm { term, row: k });
                self.rows.push(k);
            }
            if !group.terms.is_empty() {
                self.groups.push(group);
            }
        }
        Some(self)
    }

    /// In-plane poses of `bodies` (3D states).
    pub fn poses(&self, bodies: &[super::BodyState], out: &mut [Pose]) {
        for ((o, s), pb) in out.iter_mut().zip(bodies).zip(&self.bodies) {
            let e = s.rot * pb.e_bar;
            *o = Pose { p: self.plane.project(&s.r), c: e.dot(&self.plane.e1), s: e.dot(&self.plane.e2) };
        }
    }

    fn values(&self, g: &PlanarGroup, poses: &[Pose], out: &mut [V2; MAX_GROUP_VECTORS]) {
        for (v, o) in g.vectors.iter().zip(out.iter_mut()) {
            *o = Self::value(v, &g.pair, poses);
        }
    }

    #[inline]
    fn value(v: &PlanarVector, pair: &[Option<usize>; 2], poses: &[Pose]) -> V2 {
        match v {
            PlanarVector::Constant(c) => *c,
            PlanarVector::Fixed { slot, local } => poses[pair[*slot].expect("ground is constant")].turn(local),
            PlanarVector::Between { local } => {
                let point = |slot: usize| match pair[slot] {
                    Some(b) => {
                        let (pose, a) = (&poses[b], poses[b].turn(&local[slot]));
                        [pose.p[0] + a[0], pose.p[1] + a[1]]
                    }
                    None => local[slot],
                };
                let (p1, p2) = (point(0), point(1));
                [p2[0] - p1[0], p2[1] - p1[1]]
            }
        }
    }

    /// [`Mechanism::update_angles`] at `poses` (the configuration of `bodies`): the angle
    /// atan2(g1 . f2, f1 . f2) of `Measure::angle` from in-plane vectors where the joint turns
    /// about n, the spatial measure elsewhere.
    pub fn update_angles(
        &self,
        m: &Mechanism,
        poses: &[Pose],
        bodies: &[super::BodyState],
        reference: &[f64],
        out: &mut [f64],
    ) {
        for (j, (planar, (o, r))) in self.angles.iter().zip(out.iter_mut().zip(reference)).enumerate() {
            *o = match planar {
                Some([f1, g1, f2]) => {
                    let pair = &m.joints[j].pair;
                    let (f1, g1, f2) =
                        (Self::value(f1, pair, poses), Self::value(g1, pair, poses), Self::value(f2, pair, poses));
                    r + wrap_angle(dot(&g1, &f2).atan2(dot(&f1, &f2)) - r)
                }
                None => m.joint_angle(j, bodies, *r),
            };
        }
    }

    /// Phi of the in-plane rows at `poses` and time `t` (targets as in
    /// [`Mechanism::constraint_values`]).
    pub fn constraint_values(&self, m: &Mechanism, t: f64, base: &MechState, poses: &[Pose], phi: &mut [f64]) {
        let mut values = [[0.0; 2]; MAX_GROUP_VECTORS];
        let mut out = phi.iter_mut();
        for g in &self.groups {
            self.values(g, poses, &mut values);
            for pt in &g.terms {
                let f = m.target(&m.constraints[pt.row], t, base).f;
                let o = out.next().expect("one value per in-plane row");
                *o = match pt.term {
                    Term::Dot(a, b) => dot(&values[a], &values[b]) - f,
                    Term::Angle { f1, g1, f2 } => {
                        wrap_angle(dot(&values[g1], &values[f2]).atan2(dot(&values[f1], &values[f2])) - f)
                    }
                };
            }
        }
    }

    /// Adds vector `v`'s part of d(v . other)/d(x, y, theta) to `row` (`value` is v's value).
    #[inline]
    fn add_row(g: &PlanarGroup, v: &PlanarVector, value: &V2, other: &V2, poses: &[Pose], row: &mut PlanarRow) {
        match v {
            PlanarVector::Constant(_) => {}
            // d(A s) = dtheta n x (A s).
            PlanarVector::Fixed { slot, .. } => row[*slot][2] += cross(value, other),
            PlanarVector::Between { local } => {
                for (slot, sign) in [(1usize, 1.0), (0, -1.0)] {
                    if let Some(b) = g.pair[slot] {
                        let a = poses[b].turn(&local[slot]);
                        let r = &mut row[slot];
                        r[0] += sign * other[0];
                        r[1] += sign * other[1];
                        r[2] += sign * cross(&a, other);
                    }
                }
            }
        }
    }

    /// Jacobian rows of the in-plane rows at `poses`.
    pub fn rows(&self, poses: &[Pose], rows: &mut [PlanarRow]) {
        let mut values = [[0.0; 2]; MAX_GROUP_VECTORS];
        let mut out = rows.iter_mut();
        for g in &self.groups {
            self.values(g, poses, &mut values);
            let dot_row = |a: usize, b: usize| {
                let mut row = [[0.0; 3]; 2];
                Self::add_row(g, &g.vectors[a], &values[a], &values[b], poses, &mut row);
                Self::add_row(g, &g.vectors[b], &values[b], &values[a], poses, &mut row);
                (dot(&values[a], &values[b]), row)
            };
            for pt in &g.terms {
                let o = out.next().expect("one row per in-plane row");
                *o = match pt.term {
                    Term::Dot(a, b) => dot_row(a, b).1,
                    // theta = atan2(s, c): dtheta = (c ds - s dc) / (s^2 + c^2).
                    Term::Angle { f1, g1, f2 } => {
                        let ((s, srow), (c, crow)) = (dot_row(g1, f2), dot_row(f1, f2));
                        let rho2 = s * s + c * c;
                        let mut row = [[0.0; 3]; 2];
                        for (r, (sr, cr)) in row.iter_mut().zip(srow.iter().zip(&crow)) {
                            for (x, (a, b)) in r.iter_mut().zip(sr.iter().zip(cr)) {
                                *x = (c * a - s * b) / rho2;
                            }
                        }
                        row
                    }
                };
            }
        }
    }

    /// The pair of bodies of in-plane row `i`.
    pub fn pair(&self, m: &Mechanism, i: usize) -> [Option<usize>; 2] {
        m.constraints[self.rows[i]].pair
    }
}

/// True if `a` is a nonzero multiple of the unit vector `n` (to round-off).
fn along(a: &Vector3<f64>, n: &Vector3<f64>) -> bool {
    a.norm() > 0.0 && zero((a - n * a.dot(n)).norm(), a.norm())
}

#[cfg(test)]
mod tests {
    /// The series agrees with the library functions to round-off up to 0.1 rad.
    #[test]
    fn series_sin_cos_matches_the_library() {
        for i in -1000..=1000 {
            let x = 0.1 * i as f64 / 1000.0 + 1e-7 * (i as f64).sin();
            let ((s, c), (ls, lc)) = (super::sin_cos(x), x.sin_cos());
            assert!((s - ls).abs() <= 2.0 * f64::EPSILON * ls.abs().max(1e-300), "sin {x}: {s} vs {ls}");
            assert!((c - lc).abs() <= f64::EPSILON, "cos {x}: {c} vs {lc}");
        }
    }
}
