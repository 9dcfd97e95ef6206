//! Loop-closure constraints of the cut joints, Phi(z) = 0 ([Jaiswal2021, Sect. 2.2]), and line
//! measures (spring and cylinder lengths). Each scalar row is evaluated with, per body end, a
//! 6-vector G such that Phi' = sum G . Z (so the Jacobian column of coordinate j is
//! sum G . b_j over the ends that z_j moves) and the velocity-product term kappa such that
//! Phi'' = sum G . Z' + kappa (so Phi_z' z' = sum G . Z'_0 + kappa with Z'_0 at z'' = 0).

use super::kinematics::{dot6, six, BodyKin};
use super::tree::BodyPoint;
use nalgebra::{Vector3, Vector6};

#[derive(Clone, Debug)]
pub enum CutKind {
    /// e . (P2 - P1) = 0 for a global direction e (planar revolute: 2 rows; spherical: 3).
    Coincide { direction: Vector3<f64> },
    /// No relative rotation about the plane normal: the angle from A1 f1 to A2 f2 is zero.
    Rotation { normal: Vector3<f64>, reference: [Vector3<f64>; 2] },
    /// P2 stays on the line through P1 fixed in body 1: m . (P2 - P1) = 0 with m = A1 m_bar.
    Slide { across: Vector3<f64> },
    /// |P2 - P1| = length.
    Distance { length: f64 },
}

/// One constraint row of a cut joint between two body points.
#[derive(Clone, Debug)]
pub struct Cut {
    pub kind: CutKind,
    pub ends: [BodyPoint; 2],
    pub label: String,
}

/// A row evaluated at one state.
#[derive(Clone, Copy, Debug, Default)]
pub struct RowEval {
    pub value: f64,
    /// (tree body, G) of each end; None for ground.
    pub g: [Option<(usize, Vector6<f64>)>; 2],
    pub kappa: f64,
}

/// Position, velocity and acceleration-free part of a body point.
pub struct PointKin {
    pub p: Vector3<f64>,
    pub v: Vector3<f64>,
    /// w x v: the part of the point's acceleration not in G . Z'.
    pub wv: Vector3<f64>,
}

#[inline(always)]
pub fn point_kin(kin: &[BodyKin], end: &BodyPoint) -> PointKin {
    match end.0 {
        Some(b) => {
            let k = &kin[b];
            let p = k.point(&end.1);
            let v = k.velocity_at(&p);
            PointKin { p, v, wv: k.omega_cross(&v) }
        }
        None => PointKin { p: end.1, v: Vector3::zeros(), wv: Vector3::zeros() },
    }
}

/// Position of a body point only.
#[inline(always)]
fn point_position(kin: &[BodyKin], end: &BodyPoint) -> PointKin {
    let p = match end.0 {
        Some(b) => kin[b].point(&end.1),
        None => end.1,
    };
    PointKin { p, v: Vector3::zeros(), wv: Vector3::zeros() }
}

/// G of a force-like direction `e` acting at the global point `p`: [e; p x e].
#[inline(always)]
pub fn wrench_row(e: &Vector3<f64>, p: &Vector3<f64>) -> Vector6<f64> {
    six(*e, p.cross(e))
}

/// Length |P2 - P1| of a line between two body points and its row (the G of its rate;
/// kappa is left 0: positions suffice), with the unit vector from P1 to P2.
#[inline(always)]
pub fn line(kin: &[BodyKin], ends: &[BodyPoint; 2]) -> (RowEval, Vector3<f64>) {
    let (a, b) = (point_position(kin, &ends[0]), point_position(kin, &ends[1]));
    let d = b.p - a.p;
    let l = d.norm();
    let u = if l > 0.0 { d / l } else { Vector3::zeros() };
    let row = RowEval {
        value: l,
        g: [ends[0].0.map(|k| (k, -wrench_row(&u, &a.p))), ends[1].0.map(|k| (k, wrench_row(&u, &b.p)))],
        kappa: 0.0,
    };
    (row, u)
}

/// kappa of a line's length (needs the velocities): u . (w2 x v2 - w1 x v1) plus the
/// curvature term (|d'|^2 - (u . d')^2) / l of the unit vector's rotation.
#[inline]
fn line_kappa(kin: &[BodyKin], ends: &[BodyPoint; 2]) -> f64 {
    let (a, b) = (point_kin(kin, &ends[0]), point_kin(kin, &ends[1]));
    let d = b.p - a.p;
    let l = d.norm();
    if l == 0.0 {
        return 0.0;
    }
    let u = d / l;
    let dd = b.v - a.v;
    u.dot(&(b.wv - a.wv)) + (dd.norm_squared() - u.dot(&dd).powi(2)) / l
}

impl Cut {
    /// Value, G and kappa (needs the velocities in `kin`).
    pub fn evaluate(&self, kin: &[BodyKin]) -> RowEval {
        self.evaluate_with::<true>(kin)
    }

    /// Value and G only (positions suffice); kappa is left 0. Inlined, so that the row is
    /// built where the caller keeps it rather than copied there.
    #[inline(always)]
    pub fn evaluate_position(&self, kin: &[BodyKin]) -> RowEval {
        self.evaluate_with::<false>(kin)
    }

    /// kappa alone (needs the velocities in `kin`), for a row whose value and G are known
    /// from [`Cut::evaluate_position`] at the same positions.
    #[inline]
    pub fn kappa(&self, kin: &[BodyKin]) -> f64 {
        match &self.kind {
            CutKind::Coincide { direction: e } => {
                let (a, b) = (point_kin(kin, &self.ends[0]), point_kin(kin, &self.ends[1]));
                e.dot(&(b.wv - a.wv))
            }
            CutKind::Rotation { .. } => 0.0,
            CutKind::Slide { across } => {
                let m = self.ends[0].0.map_or(*across, |k| kin[k].rotate(across));
                self.slide_kappa(kin, &m, &point_kin(kin, &self.ends[1]))
            }
            CutKind::Distance { .. } => line_kappa(kin, &self.ends),
        }
    }

    /// kappa of a slide row: m = A1 m_bar, `b` the point on body 2.
    #[inline]
    fn slide_kappa(&self, kin: &[BodyKin], m: &Vector3<f64>, b: &PointKin) -> f64 {
        if self.ends.iter().all(|end| end.0.is_none_or(|k| kin[k].planar)) {
            return self.slide_kappa_planar(kin, m, b);
        }
        let omega = |i: usize| self.ends[i].0.map_or(Vector3::zeros(), |k| kin[k].omega());
        let w1 = omega(0);
        let v1 = self.ends[0].0.map_or(Vector3::zeros(), |k| kin[k].velocity_at(&b.p));
        let w = b.v - v1;
        w1.cross(m).dot(&w) + m.dot(&(omega(1) - w1).cross(&b.v))
    }

    /// [`Cut::slide_kappa`] between bodies of a planar tree (or ground): w = (0, 0, w_z) and
    /// the velocities lie in the plane, so the products above keep only their in-plane terms
    /// (the same nonzero products, added in the same order: the same value).
    #[inline]
    fn slide_kappa_planar(&self, kin: &[BodyKin], m: &Vector3<f64>, b: &PointKin) -> f64 {
        let omega = |i: usize| self.ends[i].0.map_or(0.0, |k| kin[k].vel[5]);
        let w1 = omega(0);
        let v1 = self.ends[0].0.map_or(Vector3::zeros(), |k| kin[k].velocity_at(&b.p));
        let (wx, wy) = (b.v.x - v1.x, b.v.y - v1.y);
        // (w1 x m) . w and m . ((w2 - w1) x v2) with w1 x m = (-w1 m_y, w1 m_x, 0).
        let dw = omega(1) - w1;
        (-(w1 * m.y) * wx + w1 * m.x * wy) + (m.x * -(dw * b.v.y) + m.y * (dw * b.v.x))
    }

    /// With `RATES` a constant, the position-only evaluation compiles without the rates.
    #[inline(always)]
    fn evaluate_with<const RATES: bool>(&self, kin: &[BodyKin]) -> RowEval {
        let at = |end: &BodyPoint| if RATES { point_kin(kin, end) } else { point_position(kin, end) };
        let points = || (at(&self.ends[0]), at(&self.ends[1]));
        let body = |i: usize| self.ends[i].0;
        // A_i v (ground: v).
        let rotate = |i: usize, v: &Vector3<f64>| self.ends[i].0.map_or(*v, |k| kin[k].rotate(v));
        match &self.kind {
            CutKind::Coincide { direction: e } => {
                let (a, b) = points();
                RowEval {
                    value: e.dot(&(b.p - a.p)),
                    g: [body(0).map(|k| (k, -wrench_row(e, &a.p))), body(1).map(|k| (k, wrench_row(e, &b.p)))],
                    kappa: e.dot(&(b.wv - a.wv)),
                }
            }
            CutKind::Rotation { normal: n, reference } => {
                let f = rotate(0, &reference[0]);
                let g = rotate(1, &reference[1]);
                RowEval {
                    value: small_angle(n.dot(&f.cross(&g)), f.dot(&g)),
                    g: [
                        body(0).map(|k| (k, six(Vector3::zeros(), -n))),
                        body(1).map(|k| (k, six(Vector3::zeros(), *n))),
                    ],
                    kappa: 0.0,
                }
            }
            CutKind::Slide { across } => {
                let (a, b) = points();
                let m = rotate(0, across);
                let kappa = if RATES { self.slide_kappa(kin, &m, &b) } else { 0.0 };
                RowEval {
                    value: m.dot(&(b.p - a.p)),
                    g: [body(0).map(|k| (k, -wrench_row(&m, &b.p))), body(1).map(|k| (k, wrench_row(&m, &b.p)))],
                    kappa,
                }
            }
            CutKind::Distance { length } => {
                let (mut row, _) = line(kin, &self.ends);
                row.value -= length;
                if RATES {
                    row.kappa = line_kappa(kin, &self.ends);
                }
                row
            }
        }
    }
}

/// atan2(y, x): a rotation row's angle, next to zero wherever the cut joint holds. Below
/// |y/x| = 1e-3 (x > 0) the series of atan(y/x) (Abramowitz and Stegun, Handbook of
/// Mathematical Functions, 1964, 4.4.42) to the term in t^5, whose remainder is below
/// 1.5e-19 relative: the library's value to round-off, without its ~150 instructions.
#[inline]
fn small_angle(y: f64, x: f64) -> f64 {
    if x > 0.0 && y.abs() < 1e-3 * x {
        let t = y / x;
        let t2 = t * t;
        t * (1.0 + t2 * (-1.0 / 3.0 + t2 * (1.0 / 5.0)))
    } else {
        y.atan2(x)
    }
}

/// Jacobian row of `row` in z into `out` (N entries): entry j is the sum of G . b_j over
/// the ends whose body z_j moves (the coordinates on the path from the root to that body).
pub fn jacobian_row(tree: &super::tree::Tree, kin: &[BodyKin], row: &RowEval, out: &mut [f64]) {
    out.iter_mut().for_each(|x| *x = 0.0);
    add_jacobian_row(tree, kin, row, out);
}

/// [`jacobian_row`] added to `out` (for callers that clear several rows at once).
#[inline]
pub fn add_jacobian_row(tree: &super::tree::Tree, kin: &[BodyKin], row: &RowEval, out: &mut [f64]) {
    for (k, g) in row.g.iter().flatten() {
        for &j in &tree.bodies[*k].path {
            let b = &kin[j].b;
            // A planar tree's b has only the components x, y and w_z (`planar.rs`).
            out[j] += dot6(tree.planar, g, b);
        }
    }
}

/// sum G . Z' over the ends (with the accelerations currently in `kin`).
#[inline]
pub fn g_dot_acc(kin: &[BodyKin], row: &RowEval) -> f64 {
    row.g.iter().flatten().map(|(k, g)| kin[*k].g_dot_acc(g)).sum()
}

#[cfg(test)]
mod tests {
    /// The series angle agrees with the library's atan2 to 2 ulp where it is used, and is the
    /// library's elsewhere.
    #[test]
    fn small_angles_match_the_library() {
        for i in -2000..=2000 {
            let y = 1.2e-3 * i as f64 / 2000.0 + 1e-12 * (i as f64).sin();
            for x in [0.3, 1.0, 1.0 - 1e-9, 2.5, -1.0] {
                let (a, b) = (super::small_angle(y, x), y.atan2(x));
                assert!((a - b).abs() <= 2.0 * f64::EPSILON * b.abs(), "atan2({y}, {x}): {a} vs {b}");
            }
        }
    }
}
