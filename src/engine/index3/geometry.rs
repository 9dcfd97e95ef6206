//! Constraint building blocks in absolute coordinates (seed 003 Sect. 2.1 and its Ref. [11]):
//! every basic constraint (DP1, DP2, D, CD of Haug) is a dot product of two global vectors
//! built from body quantities, minus a target f(t); a joint angle is atan2 of two such dot
//! products. Each evaluation returns the value, the Jacobian w.r.t. the virtual displacement
//! dr (global) and the virtual rotation dpi_bar (body frame) of the two bodies of the pair
//! (Phi_r and Pi_bar of seed 003 Eq. 2), the rate, and the quadratic velocity term of the
//! second derivative (the part of gamma in Phi_q q'' = gamma that has no accelerations).
//!
//! Variations used (A = body-to-global rotation, s_bar a body-fixed vector):
//!   d(A s_bar) = -A s_bar~ dpi_bar,   (A s_bar)' = A (w_bar x s_bar),
//!   (A s_bar)'' = A (w_bar' x s_bar) + A (w_bar x (w_bar x s_bar)).

use super::BodyState;
use nalgebra::{Matrix3, Vector3};

use crate::engine::rotation::skew;

/// Position/velocity data of the two bodies of a constraint pair (None = ground).
pub type Pair<'a> = [Option<&'a BodyState>; 2];

/// A global vector built from the bodies of a pair (slot 0 = body1, slot 1 = body2).
#[derive(Clone, Debug, PartialEq)]
pub enum Vector {
    /// A constant global vector.
    Constant(Vector3<f64>),
    /// A = A_slot a_bar, a body-fixed direction (the global vector itself if ground).
    Fixed { slot: usize, local: Vector3<f64> },
    /// d = P2 - P1 with P = r + A s_bar (the global point itself if ground).
    Between { local1: Vector3<f64>, local2: Vector3<f64> },
}

/// A vector with its rate, quadratic term and Jacobian blocks per slot.
pub struct VectorEval {
    pub value: Vector3<f64>,
    pub rate: Vector3<f64>,
    pub quad: Vector3<f64>,
    /// d value / d r_slot
    pub jr: [Matrix3<f64>; 2],
    /// d value / d pi_bar_slot
    pub jp: [Matrix3<f64>; 2],
}

fn point(b: Option<&BodyState>, local: &Vector3<f64>) -> Vector3<f64> {
    match b {
        Some(b) => b.r + b.rot * local,
        None => *local,
    }
}

impl Vector {
    pub fn value(&self, p: &Pair) -> Vector3<f64> {
        match self {
            Vector::Constant(c) => *c,
            Vector::Fixed { slot, local } => match p[*slot] {
                Some(b) => b.rot * local,
                None => *local,
            },
            Vector::Between { local1, local2 } => point(p[1], local2) - point(p[0], local1),
        }
    }

    pub fn evaluate(&self, p: &Pair) -> VectorEval {
        let z = Matrix3::zeros();
        let mut e =
            VectorEval { value: self.value(p), rate: Vector3::zeros(), quad: Vector3::zeros(), jr: [z, z], jp: [z, z] };
        match self {
            Vector::Constant(_) => {}
            Vector::Fixed { slot, local } => {
                if let Some(b) = p[*slot] {
                    let ws = b.w.cross(local);
                    e.rate = b.rot * ws;
                    e.quad = b.rot * b.w.cross(&ws);
                    e.jp[*slot] = -(b.rot * skew(local));
                }
            }
            Vector::Between { local1, local2 } => {
                for (slot, local, sign) in [(0usize, local1, -1.0), (1, local2, 1.0)] {
                    if let Some(b) = p[slot] {
                        let ws = b.w.cross(local);
                        e.rate += sign * (b.v + b.rot * ws);
                        e.quad += sign * (b.rot * b.w.cross(&ws));
                        e.jr[slot] = Matrix3::identity() * sign;
                        e.jp[slot] = -(b.rot * skew(local)) * sign;
                    }
                }
            }
        }
        e
    }
}

/// Jacobian row of a scalar constraint: per slot, [d/dr (3), d/dpi_bar (3)].
pub type Row = [[f64; 6]; 2];

/// A scalar measured quantity g(q).
#[derive(Clone, Debug, PartialEq)]
pub enum Measure {
    /// g = u . w
    Dot(Vector, Vector),
    /// Rotation of body2 relative to body1 about a common axis: atan2(g1 . f2, f1 . f2) with
    /// f1, g1 = axis x f1 fixed in body1 and f2 fixed in body2 (f2 = f1 initially).
    Angle { f1: Vector3<f64>, g1: Vector3<f64>, f2: Vector3<f64> },
}

/// g, its Jacobian row, its rate g' and the quadratic term of g''.
pub struct MeasureEval {
    pub value: f64,
    pub row: Row,
    pub rate: f64,
    pub quad: f64,
}

fn dot_eval(u: &VectorEval, w: &VectorEval) -> MeasureEval {
    let mut row = [[0.0; 6]; 2];
    for (slot, r) in row.iter_mut().enumerate() {
        let jr = u.jr[slot].transpose() * w.value + w.jr[slot].transpose() * u.value;
        let jp = u.jp[slot].transpose() * w.value + w.jp[slot].transpose() * u.value;
        r[..3].copy_from_slice(jr.as_slice());
        r[3..].copy_from_slice(jp.as_slice());
    }
    MeasureEval {
        value: u.value.dot(&w.value),
        row,
        rate: u.rate.dot(&w.value) + u.value.dot(&w.rate),
        quad: u.quad.dot(&w.value) + u.value.dot(&w.quad) + 2.0 * u.rate.dot(&w.rate),
    }
}

impl Measure {
    pub fn value(&self, p: &Pair) -> f64 {
        match self {
            Measure::Dot(u, w) => u.value(p).dot(&w.value(p)),
            Measure::Angle { f1, g1, f2 } => {
                let (f1, g1, f2) = self::angle_vectors(f1, g1, f2);
                let f2v = f2.value(p);
                g1.value(p).dot(&f2v).atan2(f1.value(p).dot(&f2v))
            }
        }
    }

    pub fn evaluate(&self, p: &Pair) -> MeasureEval {
        match self {
            Measure::Dot(u, w) => dot_eval(&u.evaluate(p), &w.evaluate(p)),
            Measure::Angle { f1, g1, f2 } => {
                // theta = atan2(s, c): theta' = (c s' - s c')/rho^2,
                // theta'' = (c s'' - s c'')/rho^2 - 2 theta' (s s' + c c')/rho^2.
                let (f1, g1, f2) = self::angle_vectors(f1, g1, f2);
                let f2e = f2.evaluate(p);
                let s = dot_eval(&g1.evaluate(p), &f2e);
                let c = dot_eval(&f1.evaluate(p), &f2e);
                let rho2 = s.value * s.value + c.value * c.value;
                let mut row = [[0.0; 6]; 2];
                for slot in 0..2 {
                    for k in 0..6 {
                        row[slot][k] = (c.value * s.row[slot][k] - s.value * c.row[slot][k]) / rho2;
                    }
                }
                let rate = (c.value * s.rate - s.value * c.rate) / rho2;
                let quad = (c.value * s.quad - s.value * c.quad) / rho2
                    - 2.0 * rate * (s.value * s.rate + c.value * c.rate) / rho2;
                MeasureEval { value: s.value.atan2(c.value), row, rate, quad }
            }
        }
    }
}

fn angle_vectors(f1: &Vector3<f64>, g1: &Vector3<f64>, f2: &Vector3<f64>) -> (Vector, Vector, Vector) {
    (
        Vector::Fixed { slot: 0, local: *f1 },
        Vector::Fixed { slot: 0, local: *g1 },
        Vector::Fixed { slot: 1, local: *f2 },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rotation::exp;

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

    /// Moves a body along its velocity and acceleration for time h (second order).
    fn advance(b: &BodyState, h: f64) -> BodyState {
        let mut n = b.clone();
        n.r = b.r + b.v * h + b.acc * (0.5 * h * h);
        n.v = b.v + b.acc * h;
        n.w = b.w + b.wdot * h;
        // A(t+h) = A exp(h w + h^2/2 w') to second order
        n.rot = b.rot * exp(&(b.w * h + b.wdot * (0.5 * h * h)));
        n
    }

    fn measures() -> Vec<Measure> {
        let a = Vector3::new(0.2, -0.5, 0.8).normalize();
        let f = a.cross(&Vector3::new(1.0, 0.0, 0.0)).normalize();
        let g = a.cross(&f);
        vec![
            Measure::Dot(
                Vector::Fixed { slot: 0, local: Vector3::new(0.3, 1.0, -0.2) },
                Vector::Fixed { slot: 1, local: Vector3::new(-0.5, 0.1, 0.9) },
            ),
            Measure::Dot(
                Vector::Fixed { slot: 0, local: Vector3::new(0.0, 0.0, 1.0) },
                Vector::Between { local1: Vector3::new(0.1, 0.2, 0.3), local2: Vector3::new(-0.4, 0.0, 0.5) },
            ),
            Measure::Dot(
                Vector::Constant(Vector3::new(0.0, 1.0, 0.0)),
                Vector::Between { local1: Vector3::new(1.0, 0.0, 0.0), local2: Vector3::new(0.0, -1.0, 0.2) },
            ),
            Measure::Dot(
                Vector::Between { local1: Vector3::new(1.0, 0.0, 0.0), local2: Vector3::new(0.0, -1.0, 0.2) },
                Vector::Between { local1: Vector3::new(1.0, 0.0, 0.0), local2: Vector3::new(0.0, -1.0, 0.2) },
            ),
            Measure::Angle { f1: f, g1: g, f2: f },
        ]
    }

    #[test]
    fn rates_and_quadratic_terms_match_finite_differences() {
        let b1 = body([0.1, 0.2, 0.3], [0.2, -0.1, 0.4], [0.5, -0.3, 0.2], [0.7, 0.2, -0.4]);
        let b2 = body([1.0, -0.5, 0.2], [-0.3, 0.5, 0.1], [-0.2, 0.4, 0.1], [-0.3, 0.6, 0.5]);
        let h = 1e-5;
        for m in measures() {
            for (p1, p2) in [(Some(&b1), Some(&b2)), (None, Some(&b2)), (Some(&b1), None)] {
                let pair: Pair = [p1, p2];
                let e = m.evaluate(&pair);
                let fwd = [p1.map(|b| advance(b, h)), p2.map(|b| advance(b, h))];
                let bwd = [p1.map(|b| advance(b, -h)), p2.map(|b| advance(b, -h))];
                let gf = m.value(&[fwd[0].as_ref(), fwd[1].as_ref()]);
                let gb = m.value(&[bwd[0].as_ref(), bwd[1].as_ref()]);
                let rate = (gf - gb) / (2.0 * h);
                let second = (gf - 2.0 * e.value + gb) / (h * h);
                // g'' = row . (acc, wdot) + quad
                let mut accel = e.quad;
                for (slot, b) in [p1, p2].iter().enumerate() {
                    if let Some(b) = b {
                        for k in 0..3 {
                            accel += e.row[slot][k] * b.acc[k] + e.row[slot][3 + k] * b.wdot[k];
                        }
                    }
                }
                assert!((rate - e.rate).abs() < 1e-7, "{m:?}: rate {rate} vs {}", e.rate);
                assert!((second - accel).abs() < 1e-4, "{m:?}: g'' {second} vs {accel}");
                // Jacobian row . velocities = rate
                let mut jv = 0.0;
                for (slot, b) in [p1, p2].iter().enumerate() {
                    if let Some(b) = b {
                        for k in 0..3 {
                            jv += e.row[slot][k] * b.v[k] + e.row[slot][3 + k] * b.w[k];
                        }
                    }
                }
                assert!((jv - e.rate).abs() < 1e-12, "{m:?}: Jv {jv} vs {}", e.rate);
            }
        }
    }
}
