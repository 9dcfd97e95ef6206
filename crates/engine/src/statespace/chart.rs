//! Generalized coordinates of the state-space formulation: per body q_b = [r, theta] with
//! the centre-of-mass position r and a rotation vector theta of a chart centred at a
//! reference orientation, A = A_ref exp(theta~) ([Fang2023, eq. 4d]; the "vector chart" the
//! integrator suite uses, docs/architecture.md#one-residual-interface-for-the-integrators). The charts are re-centred whenever
//! the partition is re-chosen, so |theta| stays small and T(theta) well conditioned.
//!
//! Velocities: q' = [r', theta'] with w_bar = T(theta) theta'; accelerations
//! w_bar' = T(theta) theta'' + T'(theta, theta') theta', with T the right tangent operator of
//! [`crate::rotation::tangent`] and T' its time derivative ([`tangent_rate`]).

use crate::index3::BodyState;
use crate::rotation::{exp, log, skew, tangent_inverse};
use nalgebra::{Matrix3, Vector3};
use serde::{Deserialize, Serialize};

/// Reference orientations of the rotation charts, one per body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    pub reference: Vec<Matrix3<f64>>,
}

fn v3(s: &[f64]) -> Vector3<f64> {
    Vector3::new(s[0], s[1], s[2])
}

impl Chart {
    /// Charts centred at the bodies' current orientations (theta = 0).
    pub fn centred_at(bodies: &[BodyState]) -> Chart {
        Chart { reference: bodies.iter().map(|b| b.rot).collect() }
    }

    /// Coordinates q, velocities q' and accelerations q'' of `bodies` in this chart.
    pub fn coordinates(&self, bodies: &[BodyState], q: &mut [f64], qd: &mut [f64], qdd: &mut [f64]) {
        for (b, s) in bodies.iter().enumerate() {
            let o = 6 * b;
            let theta = log(&(self.reference[b].transpose() * s.rot));
            let tinv = tangent_inverse(&theta);
            let theta_d = tinv * s.w;
            // w' = T theta'' + T' theta'  =>  theta'' = T^-1 (w' - T' theta')
            let theta_dd = tinv * (s.wdot - tangent_rate(&theta, &theta_d) * theta_d);
            for i in 0..3 {
                q[o + i] = s.r[i];
                q[o + 3 + i] = theta[i];
                qd[o + i] = s.v[i];
                qd[o + 3 + i] = theta_d[i];
                qdd[o + i] = s.acc[i];
                qdd[o + 3 + i] = theta_dd[i];
            }
        }
    }

    /// Positions and orientations of the bodies at coordinates q; `tangents` receives T(theta_b).
    pub fn place(&self, q: &[f64], bodies: &mut [BodyState], tangents: &mut [Matrix3<f64>]) {
        for (b, s) in bodies.iter_mut().enumerate() {
            let theta = v3(&q[6 * b + 3..]);
            s.r = v3(&q[6 * b..]);
            s.rot = self.reference[b] * exp(&theta);
            tangents[b] = crate::rotation::tangent(&theta);
        }
    }

    /// Largest chart angle |theta_b| of the coordinates q.
    pub fn largest_angle(q: &[f64]) -> f64 {
        q.chunks_exact(6).map(|c| v3(&c[3..]).norm()).fold(0.0, f64::max)
    }
}

/// Time derivative T' of the right tangent operator T(theta) = I - a K + b K^2 along
/// theta' (K = theta~, a = (1 - cos phi)/phi^2, b = (phi - sin phi)/phi^3, phi = |theta|):
/// T' = -a' K - a K' + b' K^2 + b (K' K + K K'), K' = theta'~, with a' and b' from their
/// derivatives with respect to phi^2 (Taylor series below phi^2 = 1e-2).
pub fn tangent_rate(theta: &Vector3<f64>, theta_d: &Vector3<f64>) -> Matrix3<f64> {
    let phi2 = theta.norm_squared();
    let (a, b, da, db) = if phi2 < 1e-2 {
        (
            0.5 - phi2 / 24.0 + phi2 * phi2 / 720.0 - phi2 * phi2 * phi2 / 40320.0,
            1.0 / 6.0 - phi2 / 120.0 + phi2 * phi2 / 5040.0 - phi2 * phi2 * phi2 / 362880.0,
            -1.0 / 24.0 + 2.0 * phi2 / 720.0 - 3.0 * phi2 * phi2 / 40320.0,
            -1.0 / 120.0 + 2.0 * phi2 / 5040.0 - 3.0 * phi2 * phi2 / 362880.0,
        )
    } else {
        let phi = phi2.sqrt();
        let (s, c) = phi.sin_cos();
        (
            (1.0 - c) / phi2,
            (phi - s) / (phi2 * phi),
            (phi * s - 2.0 * (1.0 - c)) / (2.0 * phi2 * phi2),
            ((1.0 - c) * phi - 3.0 * (phi - s)) / (2.0 * phi2 * phi2 * phi),
        )
    };
    let rate2 = 2.0 * theta.dot(theta_d);
    let k = skew(theta);
    let kd = skew(theta_d);
    -k * (da * rate2) - kd * a + k * k * (db * rate2) + (kd * k + k * kd) * b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rotation::tangent;

    #[test]
    fn tangent_rate_matches_finite_differences() {
        let rate = Vector3::new(0.3, -0.8, 0.5);
        for theta in [Vector3::new(0.4, -0.7, 0.2), Vector3::new(0.02, 0.05, -0.03), Vector3::new(1e-5, 0.0, 2e-5)] {
            let h = 1e-6;
            let fd = (tangent(&(theta + rate * h)) - tangent(&(theta - rate * h))) / (2.0 * h);
            let err = (tangent_rate(&theta, &rate) - fd).abs().max();
            assert!(err < 1e-8, "theta {theta}: {err}");
        }
    }

    #[test]
    fn coordinates_round_trip_through_placement() {
        let body = |r: [f64; 3], th: [f64; 3]| BodyState {
            r: Vector3::from(r),
            rot: exp(&Vector3::from(th)),
            v: Vector3::new(0.1, -0.2, 0.3),
            w: Vector3::new(0.5, 0.4, -0.2),
            acc: Vector3::new(1.0, 2.0, 3.0),
            wdot: Vector3::new(-1.0, 0.5, 2.0),
        };
        let bodies = vec![body([1.0, 2.0, 3.0], [0.1, 0.2, 0.3]), body([0.0, -1.0, 0.5], [-0.4, 0.0, 0.2])];
        let chart = Chart::centred_at(&[body([0.0; 3], [0.0, 0.1, 0.0]), body([0.0; 3], [-0.3, 0.1, 0.1])]);
        let (mut q, mut qd, mut qdd) = (vec![0.0; 12], vec![0.0; 12], vec![0.0; 12]);
        chart.coordinates(&bodies, &mut q, &mut qd, &mut qdd);
        let mut placed = bodies.clone();
        let mut t = vec![Matrix3::zeros(); 2];
        chart.place(&q, &mut placed, &mut t);
        for (b, (p, o)) in placed.iter().zip(&bodies).enumerate() {
            assert!((p.rot - o.rot).abs().max() < 1e-14 && (p.r - o.r).norm() < 1e-15);
            // w = T theta', w' = T theta'' + T' theta'
            let th = v3(&q[6 * b + 3..]);
            let thd = v3(&qd[6 * b + 3..]);
            let thdd = v3(&qdd[6 * b + 3..]);
            assert!((t[b] * thd - o.w).norm() < 1e-14);
            assert!((t[b] * thdd + tangent_rate(&th, &thd) * thd - o.wdot).norm() < 1e-13);
        }
    }
}
