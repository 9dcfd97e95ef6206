//! Constraint building blocks in absolute coordinates ([Fang2023, Sect. 2.1] and its Ref. \[11\]):
//! every basic constraint (DP1, DP2, D, CD of Haug) is a dot product of two global vectors
//! built from body quantities, minus a target f(t); a joint angle is atan2 of two such dot
//! products. Evaluations give the value, the Jacobian row w.r.t. the virtual displacement
//! dr (global) and virtual rotation dpi_bar (body frame) of the pair's two bodies (Phi_r and
//! Pi_bar of [Fang2023, eq. 2]), the rate, and the quadratic velocity term of the second
//! derivative (the part of gamma in Phi_q q'' = gamma without accelerations).
//!
//! Variations (A = body-to-global rotation, s_bar a body-fixed vector):
//!   d(A s_bar) = -A s_bar~ dpi_bar,   (A s_bar)' = A (w_bar x s_bar),
//!   (A s_bar)'' = A (w_bar' x s_bar) + A (w_bar x (w_bar x s_bar)),
//! so the dpi_bar part of d(u . w) from u = A s_bar is s_bar x (A^T w).
//!
//! A joint's rows share their vectors ([`Group`]): each vector is evaluated once per joint.

use super::BodyState;
use nalgebra::{Matrix3, Vector3};

/// Position/velocity data of the two bodies of a constraint pair (None = ground).
pub type Pair<'a> = [Option<&'a BodyState>; 2];

/// A global vector built from the bodies of a pair (slot 0 = body1, slot 1 = body2).
#[derive(Clone, Debug, PartialEq)]
pub enum Vector {
    /// A constant global vector.
    Constant(Vector3<f64>),
    /// A_slot a_bar, a body-fixed direction (the global vector itself if ground).
    Fixed { slot: usize, local: Vector3<f64> },
    /// d = P2 - P1 with P = r + A s_bar (the global point itself if ground).
    Between { local1: Vector3<f64>, local2: Vector3<f64> },
}

/// A vector's value, rate and quadratic acceleration term.
#[derive(Clone, Copy, Debug, Default)]
pub struct VectorValue {
    pub value: Vector3<f64>,
    pub rate: Vector3<f64>,
    pub quad: Vector3<f64>,
}

/// Jacobian row of a scalar constraint: per slot, [d/dr (3), d/dpi_bar (3)].
pub type Row = [[f64; 6]; 2];

fn add_to(row: &mut [f64; 6], r: Option<&Vector3<f64>>, p: &Vector3<f64>, sign: f64) {
    if let Some(r) = r {
        for i in 0..3 {
            row[i] += sign * r[i];
        }
    }
    for i in 0..3 {
        row[3 + i] += sign * p[i];
    }
}

impl Vector {
    /// Value only (positions).
    #[inline(always)]
    pub fn value(&self, p: &Pair) -> Vector3<f64> {
        match self {
            Vector::Constant(c) => *c,
            Vector::Fixed { slot, local } => p[*slot].map_or(*local, |b| b.rot * local),
            Vector::Between { local1, local2 } => {
                let p2 = p[1].map_or(*local2, |b| b.r + b.rot * local2);
                let p1 = p[0].map_or(*local1, |b| b.r + b.rot * local1);
                p2 - p1
            }
        }
    }

    /// Value, rate and quadratic term.
    pub fn evaluate(&self, p: &Pair) -> VectorValue {
        let mut e = VectorValue { value: self.value(p), ..Default::default() };
        match self {
            Vector::Constant(_) => {}
            Vector::Fixed { slot, local } => {
                if let Some(b) = p[*slot] {
                    let ws = b.w.cross(local);
                    e.rate = b.rot * ws;
                    e.quad = b.rot * b.w.cross(&ws);
                }
            }
            Vector::Between { local1, local2 } => {
                for (slot, local, sign) in [(0usize, local1, -1.0), (1, local2, 1.0)] {
                    if let Some(b) = p[slot] {
                        let ws = b.w.cross(local);
                        e.rate += (b.v + b.rot * ws) * sign;
                        e.quad += b.rot * b.w.cross(&ws) * sign;
                    }
                }
            }
        }
        e
    }

    /// Adds this vector's part of d(self . other)/d(r, pi_bar) to `row`.
    #[inline]
    fn add_row(&self, p: &Pair, other: &Vector3<f64>, row: &mut Row) {
        match self {
            Vector::Constant(_) => {}
            Vector::Fixed { slot, local } => {
                if let Some(b) = p[*slot] {
                    add_to(&mut row[*slot], None, &local.cross(&b.rot.tr_mul(other)), 1.0);
                }
            }
            Vector::Between { local1, local2 } => {
                if let Some(b) = p[1] {
                    add_to(&mut row[1], Some(other), &local2.cross(&b.rot.tr_mul(other)), 1.0);
                }
                if let Some(b) = p[0] {
                    add_to(&mut row[0], Some(other), &local1.cross(&b.rot.tr_mul(other)), -1.0);
                }
            }
        }
    }
}

/// A scalar built from the vectors of a group (indices into [`Group::vectors`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Term {
    /// g = u . w
    Dot(usize, usize),
    /// Rotation of body2 relative to body1 about a common axis: atan2(g1 . f2, f1 . f2) with
    /// f1, g1 = axis x f1 fixed in body1 and f2 fixed in body2 (f2 = f1 initially).
    Angle { f1: usize, g1: usize, f2: usize },
}

/// g, its Jacobian row, its rate g' and the quadratic term of g''.
#[derive(Clone, Copy, Debug)]
pub struct TermEval {
    pub value: f64,
    pub row: Row,
    pub rate: f64,
    pub quad: f64,
}

fn dot(p: &Pair, vectors: &[Vector], values: &[VectorValue], a: usize, b: usize) -> TermEval {
    let (u, w) = (&values[a], &values[b]);
    let mut row = [[0.0; 6]; 2];
    vectors[a].add_row(p, &w.value, &mut row);
    vectors[b].add_row(p, &u.value, &mut row);
    TermEval {
        value: u.value.dot(&w.value),
        row,
        rate: u.rate.dot(&w.value) + u.value.dot(&w.rate),
        quad: u.quad.dot(&w.value) + u.value.dot(&w.quad) + 2.0 * u.rate.dot(&w.rate),
    }
}

impl Term {
    /// Value from vector values.
    #[inline(always)]
    pub fn value(&self, values: &[Vector3<f64>]) -> f64 {
        match *self {
            Term::Dot(a, b) => values[a].dot(&values[b]),
            Term::Angle { f1, g1, f2 } => values[g1].dot(&values[f2]).atan2(values[f1].dot(&values[f2])),
        }
    }

    /// Value and Jacobian row from vector values (no rates: what stepping needs).
    pub fn row(&self, p: &Pair, vectors: &[Vector], values: &[Vector3<f64>]) -> (f64, Row) {
        let mut row = [[0.0; 6]; 2];
        let value = self.write_row(p, vectors, values, &mut row);
        (value, row)
    }

    /// [`Term::row`] with the row written into `row`; returns the value.
    #[inline]
    pub fn write_row(&self, p: &Pair, vectors: &[Vector], values: &[Vector3<f64>], row: &mut Row) -> f64 {
        let dot_row = |a: usize, b: usize, row: &mut Row| {
            *row = [[0.0; 6]; 2];
            vectors[a].add_row(p, &values[b], row);
            vectors[b].add_row(p, &values[a], row);
            values[a].dot(&values[b])
        };
        match *self {
            Term::Dot(a, b) => dot_row(a, b, row),
            Term::Angle { f1, g1, f2 } => {
                let (mut srow, mut crow) = ([[0.0; 6]; 2], [[0.0; 6]; 2]);
                let (s, c) = (dot_row(g1, f2, &mut srow), dot_row(f1, f2, &mut crow));
                let rho2 = s * s + c * c;
                for (r, (sr, cr)) in row.iter_mut().zip(srow.iter().zip(&crow)) {
                    for (x, (a, b)) in r.iter_mut().zip(sr.iter().zip(cr)) {
                        *x = (c * a - s * b) / rho2;
                    }
                }
                s.atan2(c)
            }
        }
    }

    pub fn evaluate(&self, p: &Pair, vectors: &[Vector], values: &[VectorValue]) -> TermEval {
        match *self {
            Term::Dot(a, b) => dot(p, vectors, values, a, b),
            Term::Angle { f1, g1, f2 } => {
                // theta = atan2(s, c): theta' = (c s' - s c')/rho^2,
                // theta'' = (c s'' - s c'')/rho^2 - 2 theta' (s s' + c c')/rho^2.
                let s = dot(p, vectors, values, g1, f2);
                let c = dot(p, vectors, values, f1, f2);
                let rho2 = s.value * s.value + c.value * c.value;
                let mut row = [[0.0; 6]; 2];
                for (r, (sr, cr)) in row.iter_mut().zip(s.row.iter().zip(&c.row)) {
                    for (x, (a, b)) in r.iter_mut().zip(sr.iter().zip(cr)) {
                        *x = (c.value * a - s.value * b) / rho2;
                    }
                }
                let rate = (c.value * s.rate - s.value * c.rate) / rho2;
                let quad = (c.value * s.quad - s.value * c.quad) / rho2
                    - 2.0 * rate * (s.value * s.rate + c.value * c.rate) / rho2;
                TermEval { value: s.value.atan2(c.value), row, rate, quad }
            }
        }
    }
}

/// A row e_k . d of a global coordinate axis e_k and a vector d = P2 - P1 (Haug's CD with a
/// coordinate axis: the point-coincidence rows of spherical, revolute and universal joints).
/// Its value is d_k and its Jacobian [e_k, s2 x (A2^T e_k)] on body2 and minus that with s1 on
/// body1, A^T e_k being row k of A: the operations of [`Term::row`] without its products by
/// the exact zeros of e_k, so the same values (up to the sign of zero results).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisRow {
    pub axis: usize,
    /// Index of d among the group's vectors.
    pub between: usize,
}

impl AxisRow {
    /// The axis row that `term` over `vectors` is, if it is one.
    pub fn of(vectors: &[Vector], term: Term) -> Option<AxisRow> {
        let Term::Dot(a, b) = term else { return None };
        let unit = |v: &Vector| match v {
            Vector::Constant(c) => (0..3).find(|&k| *c == Vector3::ith(k, 1.0)),
            _ => None,
        };
        match (&vectors[a], &vectors[b]) {
            (c, Vector::Between { .. }) => unit(c).map(|axis| AxisRow { axis, between: b }),
            (Vector::Between { .. }, c) => unit(c).map(|axis| AxisRow { axis, between: a }),
            _ => None,
        }
    }

    #[inline]
    pub fn value(&self, values: &[Vector3<f64>]) -> f64 {
        values[self.between][self.axis]
    }

    #[inline]
    pub fn row(&self, p: &Pair, vectors: &[Vector]) -> Row {
        let mut row = [[0.0; 6]; 2];
        self.write_row(p, vectors, &mut row);
        row
    }

    /// [`AxisRow::row`] written into `row`.
    #[inline]
    pub fn write_row(&self, p: &Pair, vectors: &[Vector], row: &mut Row) {
        let Vector::Between { local1, local2 } = &vectors[self.between] else {
            unreachable!("an axis row's d is a Between vector")
        };
        *row = [[0.0; 6]; 2];
        for (slot, local, sign) in [(1, local2, 1.0), (0, local1, -1.0)] {
            if let Some(b) = p[slot] {
                let r = &mut row[slot];
                r[self.axis] = sign;
                r[3..].copy_from_slice(&axis_row_rotation(local, &b.rot, self.axis, sign));
            }
        }
    }

    /// The d/dr parts of [`AxisRow::write_row`] per slot, e_k on body2 and -e_k on body1
    /// (zero without the body): what a reaction force needs of the row. (`write_row` sets the
    /// same entries in place: the stepping kernels' row stays one store per slot.)
    #[inline]
    pub fn translation(&self, p: &Pair) -> [[f64; 3]; 2] {
        let mut t = [[0.0; 3]; 2];
        for (slot, sign) in [(1, 1.0), (0, -1.0)] {
            if p[slot].is_some() {
                t[slot][self.axis] = sign;
            }
        }
        t
    }
}

/// The d/dpi_bar part of an axis row e_k . d on the body of the point `local` (`sign` +1 for
/// body2, -1 for body1): sign (s_bar x A^T e_k), A^T e_k being row k of A, each entry formed
/// as 0 + sign s_i as the general kernel's accumulation gives.
#[inline(always)]
pub fn axis_row_rotation(local: &Vector3<f64>, rot: &Matrix3<f64>, k: usize, sign: f64) -> [f64; 3] {
    let s = local.cross(&Vector3::new(rot[(k, 0)], rot[(k, 1)], rot[(k, 2)]));
    [0.0 + sign * s.x, 0.0 + sign * s.y, 0.0 + sign * s.z]
}

/// Vectors of one joint (or driver) and the scalar terms built from them.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub pair: [Option<usize>; 2],
    pub vectors: Vec<Vector>,
    pub terms: Vec<Term>,
}

impl Group {
    /// Full vector evaluations at `p` into `values`.
    pub fn evaluate(&self, p: &Pair, values: &mut [VectorValue]) {
        for (v, out) in self.vectors.iter().zip(values.iter_mut()) {
            *out = v.evaluate(p);
        }
    }
}

/// A single scalar measure (a group with one term), for joint coordinates and force elements.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    vectors: Vec<Vector>,
    term: Term,
}

impl Measure {
    pub fn dot(u: Vector, w: Vector) -> Self {
        Measure { vectors: vec![u, w], term: Term::Dot(0, 1) }
    }

    pub fn angle(f1: Vector3<f64>, g1: Vector3<f64>, f2: Vector3<f64>) -> Self {
        Measure {
            vectors: vec![
                Vector::Fixed { slot: 0, local: f1 },
                Vector::Fixed { slot: 0, local: g1 },
                Vector::Fixed { slot: 1, local: f2 },
            ],
            term: Term::Angle { f1: 0, g1: 1, f2: 2 },
        }
    }

    pub fn is_angle(&self) -> bool {
        matches!(self.term, Term::Angle { .. })
    }

    pub fn vectors(&self) -> &[Vector] {
        &self.vectors
    }

    pub fn term(&self) -> Term {
        self.term
    }

    pub fn value(&self, p: &Pair) -> f64 {
        let mut v = [Vector3::zeros(); 3];
        for (vec, out) in self.vectors.iter().zip(v.iter_mut()) {
            *out = vec.value(p);
        }
        self.term.value(&v)
    }

    pub fn evaluate(&self, p: &Pair) -> TermEval {
        let mut v = [VectorValue::default(); 3];
        for (vec, out) in self.vectors.iter().zip(v.iter_mut()) {
            *out = vec.evaluate(p);
        }
        self.term.evaluate(p, &self.vectors, &v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rotation::exp;

    fn body(r: [f64; 3], theta: [f64; 3], v: [f64; 3], w: [f64; 3]) -> BodyState {
        BodyState {
            r: Vector3::from(r),
            rot: exp(&Vector3::from(theta)),
            v: Vector3::from(v),
            w: Vector3::from(w),
            acc: Vector3::new(0.3, -0.1, 0.2),
            wdot: Vector3::new(-0.4, 0.5, 0.1),
        }
    }

    /// Moves a body along its velocity and acceleration for time h (a smooth curve whose
    /// first two derivatives at h = 0 are the body's).
    fn advance(b: &BodyState, h: f64) -> BodyState {
        let mut n = b.clone();
        n.r = b.r + b.v * h + b.acc * (0.5 * h * h);
        n.v = b.v + b.acc * h;
        n.w = b.w + b.wdot * h;
        n.rot = b.rot * exp(&(b.w * h + b.wdot * (0.5 * h * h)));
        n
    }

    /// Perturbs a body by a virtual displacement dr and a body-frame virtual rotation dpi.
    fn perturb(b: &BodyState, k: usize, eps: f64) -> BodyState {
        let mut n = b.clone();
        if k < 3 {
            n.r[k] += eps;
        } else {
            n.rot = b.rot * exp(&Vector3::ith(k - 3, eps));
        }
        n
    }

    fn measures() -> Vec<Measure> {
        let a = Vector3::new(0.2, -0.5, 0.8).normalize();
        let f = a.cross(&Vector3::new(1.0, 0.0, 0.0)).normalize();
        let g = a.cross(&f);
        let d = Vector::Between { local1: Vector3::new(1.0, 0.0, 0.0), local2: Vector3::new(0.0, -1.0, 0.2) };
        vec![
            Measure::dot(
                Vector::Fixed { slot: 0, local: Vector3::new(0.3, 1.0, -0.2) },
                Vector::Fixed { slot: 1, local: Vector3::new(-0.5, 0.1, 0.9) },
            ),
            Measure::dot(
                Vector::Fixed { slot: 0, local: Vector3::new(0.0, 0.0, 1.0) },
                Vector::Between { local1: Vector3::new(0.1, 0.2, 0.3), local2: Vector3::new(-0.4, 0.0, 0.5) },
            ),
            Measure::dot(Vector::Constant(Vector3::new(0.0, 1.0, 0.0)), d.clone()),
            Measure::dot(d.clone(), d),
            Measure::angle(f, g, f),
        ]
    }

    #[test]
    fn jacobians_rates_and_quadratic_terms_match_finite_differences() {
        let b1 = body([0.1, 0.2, 0.3], [0.2, -0.1, 0.4], [0.5, -0.3, 0.2], [0.7, 0.2, -0.4]);
        let b2 = body([1.0, -0.5, 0.2], [-0.3, 0.5, 0.1], [-0.2, 0.4, 0.1], [-0.3, 0.6, 0.5]);
        let h = 1e-5;
        for m in measures() {
            for (p1, p2) in [(Some(&b1), Some(&b2)), (None, Some(&b2)), (Some(&b1), None)] {
                let pair: Pair = [p1, p2];
                let e = m.evaluate(&pair);
                // Jacobian row: central differences over virtual displacements/rotations.
                for (slot, b) in [p1, p2].iter().enumerate() {
                    let Some(b) = b else { continue };
                    for k in 0..6 {
                        let (plus, minus) = (perturb(b, k, h), perturb(b, k, -h));
                        let mut pp = pair;
                        pp[slot] = Some(&plus);
                        let gp = m.value(&pp);
                        pp[slot] = Some(&minus);
                        let gm = m.value(&pp);
                        let fd = (gp - gm) / (2.0 * h);
                        assert!(
                            (fd - e.row[slot][k]).abs() < 1e-8,
                            "{m:?} slot {slot} coord {k}: fd {fd} vs {}",
                            e.row[slot][k]
                        );
                    }
                }
                let fwd = [p1.map(|b| advance(b, h)), p2.map(|b| advance(b, h))];
                let bwd = [p1.map(|b| advance(b, -h)), p2.map(|b| advance(b, -h))];
                let gf = m.value(&[fwd[0].as_ref(), fwd[1].as_ref()]);
                let gb = m.value(&[bwd[0].as_ref(), bwd[1].as_ref()]);
                let rate = (gf - gb) / (2.0 * h);
                let second = (gf - 2.0 * e.value + gb) / (h * h);
                // g'' = row . (acc, wdot) + quad; row . (v, w) = g'
                let (mut accel, mut jv) = (e.quad, 0.0);
                for (slot, b) in [p1, p2].iter().enumerate() {
                    if let Some(b) = b {
                        for k in 0..3 {
                            accel += e.row[slot][k] * b.acc[k] + e.row[slot][3 + k] * b.wdot[k];
                            jv += e.row[slot][k] * b.v[k] + e.row[slot][3 + k] * b.w[k];
                        }
                    }
                }
                assert!((rate - e.rate).abs() < 1e-7, "{m:?}: rate {rate} vs {}", e.rate);
                assert!((second - accel).abs() < 1e-4, "{m:?}: g'' {second} vs {accel}");
                assert!((jv - e.rate).abs() < 1e-12, "{m:?}: Jv {jv} vs {}", e.rate);
            }
        }
    }
}
