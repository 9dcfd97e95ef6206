//! Time derivatives of kinematic output quantities, shared by the formulations' output
//! rates (`Formulation::quantity_rates`): from a body's velocities and accelerations, the
//! first and second derivatives of its orientation quaternion and of a rotation vector, and
//! of a distance between two points. Each is the analytic derivative of the function the
//! outputs evaluate (unit tests against central differences below).

use crate::rotation::quaternion;
use nalgebra::{Matrix3, Vector3};

/// First and second time derivative of a scalar output.
pub type Rates = [f64; 2];

/// First and second derivatives of the unit quaternion `rotation::quaternion(rot)` of a body
/// with body-frame angular velocity `w` and acceleration `wdot`: A' = A w~ gives
/// q' = q (x) (0, w) / 2 and q'' = (q' (x) (0, w) + q (x) (0, w')) / 2 (Hamilton product;
/// the sign of q is the one `quaternion` chooses).
pub fn quaternion_rates(rot: &Matrix3<f64>, w: &Vector3<f64>, wdot: &Vector3<f64>) -> ([f64; 4], [f64; 4]) {
    let q = quaternion(rot);
    let (e0, e) = (q[0], Vector3::new(q[1], q[2], q[3]));
    // (0, v) times q on the right half: q (x) (0, v) = (-e . v, e0 v + e x v).
    let times = |s: f64, e: &Vector3<f64>, v: &Vector3<f64>| (-e.dot(v), *v * s + e.cross(v));
    let (d0, d) = times(e0, &e, w);
    let (d0, d) = (0.5 * d0, d * 0.5);
    let (a0, a) = times(d0, &d, w);
    let (b0, b) = times(e0, &e, wdot);
    let (dd0, dd) = (0.5 * (a0 + b0), (a + b) * 0.5);
    ([d0, d.x, d.y, d.z], [dd0, dd.x, dd.y, dd.z])
}

/// c(theta) = (1 - (theta/2) cot(theta/2)) / theta^2 and c'(theta) / theta, by their
/// series below 0.3 rad (cancellation) and in closed form above.
fn inverse_jacobian_coefficients(theta: f64) -> (f64, f64) {
    if theta < 0.3 {
        let t2 = theta * theta;
        // From x cot x = 1 - x^2/3 - x^4/45 - 2x^6/945 - x^8/4725 - 2x^10/93555
        // - 1382x^12/638512875 - ... at x = theta/2.
        let c = 1.0 / 12.0 + t2 * (1.0 / 720.0 + t2 * (1.0 / 30240.0 + t2 * (1.0 / 1209600.0 + t2 / 47900160.0)));
        let d8 = 10.0 * 1382.0 / (638512875.0 * 4096.0);
        let d = 1.0 / 360.0 + t2 * (1.0 / 7560.0 + t2 * (1.0 / 201600.0 + t2 * (1.0 / 5987520.0 + t2 * d8)));
        (c, d)
    } else {
        let half = 0.5 * theta;
        let (s, cot) = (half.sin(), half.cos() / half.sin());
        let t2 = theta * theta;
        let c = 1.0 / t2 - cot / (2.0 * theta);
        // c' = -2/theta^3 + cot/(2 theta^2) + 1/(4 theta sin^2(theta/2)).
        let d = (-2.0 / (t2 * theta) + cot / (2.0 * t2) + 1.0 / (4.0 * theta * s * s)) / theta;
        (c, d)
    }
}

/// First and second derivatives of the rotation vector psi = log(R) of a rotation with
/// global angular velocity `omega` and acceleration `alpha` (R' = omega~ R): with the inverse
/// left Jacobian, psi' = omega - psi x omega / 2 + c(|psi|) psi x (psi x omega), and psi''
/// its derivative along psi', omega' = alpha.
pub fn rotation_vector_rates(
    psi: &Vector3<f64>,
    omega: &Vector3<f64>,
    alpha: &Vector3<f64>,
) -> (Vector3<f64>, Vector3<f64>) {
    let theta = psi.norm();
    let (c, d) = inverse_jacobian_coefficients(theta);
    let inverse = |v: &Vector3<f64>| *v - psi.cross(v) * 0.5 + psi.cross(&psi.cross(v)) * c;
    let rate = inverse(omega);
    // d/dt of the Jacobian's terms at fixed omega: c' theta' = d (psi . psi').
    let c_rate = d * psi.dot(&rate);
    let moving = -rate.cross(omega) * 0.5
        + psi.cross(&psi.cross(omega)) * c_rate
        + (rate.cross(&psi.cross(omega)) + psi.cross(&rate.cross(omega))) * c;
    (rate, inverse(alpha) + moving)
}

/// Length l = |d| of a vector between two points and its first and second derivatives, from
/// d, d' and d'': l' = u . d', l'' = (|d'|^2 - l'^2 + d . d'') / l (0 at l = 0).
pub fn distance_rates(d: &Vector3<f64>, dd: &Vector3<f64>, ddd: &Vector3<f64>) -> (f64, f64, f64) {
    let l = d.norm();
    if l == 0.0 {
        return (0.0, 0.0, 0.0);
    }
    let rate = d.dot(dd) / l;
    (l, rate, (dd.norm_squared() - rate * rate + d.dot(ddd)) / l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rotation::{exp, log};

    /// A rotation A(t) = A0 exp(t w0 + t^2/2 w1) (body-frame angular velocity w(0) = w0,
    /// acceleration w'(0) = w1: the commutator term of the exponential's derivative vanishes
    /// at t = 0 to the order needed).
    fn rotation(a0: &Matrix3<f64>, w0: &Vector3<f64>, w1: &Vector3<f64>, t: f64) -> Matrix3<f64> {
        a0 * exp(&(w0 * t + w1 * (0.5 * t * t)))
    }

    #[test]
    fn quaternion_rates_match_central_differences() {
        let a0 = exp(&Vector3::new(0.4, -1.1, 0.7));
        let (w0, w1) = (Vector3::new(1.3, 0.2, -0.8), Vector3::new(-0.5, 2.0, 0.9));
        let (d, dd) = quaternion_rates(&a0, &w0, &w1);
        let h = 1e-4;
        let q = |t: f64| quaternion(&rotation(&a0, &w0, &w1, t));
        let (m, z, p) = (q(-h), q(0.0), q(h));
        for k in 0..4 {
            let first = (p[k] - m[k]) / (2.0 * h);
            let second = (p[k] - 2.0 * z[k] + m[k]) / (h * h);
            assert!((first - d[k]).abs() < 1e-7, "q'{k}: {first} vs {}", d[k]);
            assert!((second - dd[k]).abs() < 1e-5, "q''{k}: {second} vs {}", dd[k]);
        }
    }

    #[test]
    fn rotation_vector_rates_match_central_differences() {
        // Small, moderate and large angles (series and closed form of the coefficients).
        for psi0 in [Vector3::new(1e-3, -2e-3, 5e-4), Vector3::new(0.1, 0.15, -0.1), Vector3::new(1.2, -0.9, 1.4)] {
            let r0 = exp(&psi0);
            let (omega, alpha) = (Vector3::new(0.7, -1.2, 0.4), Vector3::new(1.5, 0.3, -2.2));
            // Global angular velocity: R(t) = exp(t omega + t^2/2 alpha) R0.
            let psi = |t: f64| log(&(exp(&(omega * t + alpha * (0.5 * t * t))) * r0));
            let (rate, accel) = rotation_vector_rates(&psi0, &omega, &alpha);
            let h = 1e-4;
            let (m, z, p) = (psi(-h), psi(0.0), psi(h));
            let first = (p - m) / (2.0 * h);
            let second = (p - z * 2.0 + m) / (h * h);
            assert!((first - rate).norm() < 1e-7, "{psi0}: psi' {first} vs {rate}");
            assert!((second - accel).norm() < 2e-5, "{psi0}: psi'' {second} vs {accel}");
        }
        // The coefficients are continuous where the series hands over to the closed form.
        let (below, above) = (inverse_jacobian_coefficients(0.3 - 1e-12), inverse_jacobian_coefficients(0.3));
        assert!((below.0 - above.0).abs() < 1e-14 && (below.1 - above.1).abs() < 1e-13, "{below:?} {above:?}");
    }

    #[test]
    fn distance_rates_match_central_differences() {
        let (d0, v, a) = (Vector3::new(0.3, -1.2, 0.5), Vector3::new(0.7, 0.1, -0.4), Vector3::new(-1.0, 2.0, 0.3));
        let l = |t: f64| (d0 + v * t + a * (0.5 * t * t)).norm();
        let (_, rate, accel) = distance_rates(&d0, &v, &a);
        let h = 1e-4;
        assert!(((l(h) - l(-h)) / (2.0 * h) - rate).abs() < 1e-8);
        assert!(((l(h) - 2.0 * l(0.0) + l(-h)) / (h * h) - accel).abs() < 1e-6);
    }
}
