//! Rotations on SO(3): the exponential map of [Fang2023, eq. 4d] and the chart used by the
//! integrator suite (a step-local rotation vector, docs/architecture.md#one-residual-interface-for-the-integrators).
//!
//! Convention: A maps body-frame vectors to the global frame; increments are body-frame
//! (right) increments, A_new = A exp(theta~), as in [Fang2023, eq. 4d], so the body-frame
//! angular velocity is omega_bar = T(theta) theta' with T the right tangent operator below.

use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};

/// Skew-symmetric matrix a~ with a~ b = a x b.
#[inline]
pub fn skew(a: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// Below this phi^2 (|theta| < 0.1 rad, every rotation over a step of the integrators at
/// their usual steps) [`exp_step`] takes the coefficients from their Taylor series.
const SERIES_LIMIT: f64 = 0.01;

/// a = sin(phi)/phi and b = (1 - cos(phi))/phi^2 of Rodrigues' formula, phi^2 = `phi2`, by the
/// library's sine and cosine (a short Taylor series below phi^2 = 1e-8).
#[inline]
fn library_coefficients(phi2: f64) -> (f64, f64) {
    if phi2 < 1e-8 {
        // Taylor series to O(phi^4): sin(phi)/phi, (1 - cos(phi))/phi^2.
        (1.0 - phi2 / 6.0 + phi2 * phi2 / 120.0, 0.5 - phi2 / 24.0 + phi2 * phi2 / 720.0)
    } else {
        let phi = phi2.sqrt();
        (phi.sin() / phi, (1.0 - phi.cos()) / phi2)
    }
}

/// a and b as [`library_coefficients`], but below [`SERIES_LIMIT`] by their Taylor series in
/// phi^2 (from Abramowitz and Stegun, Handbook of Mathematical Functions, 1964, 4.3.65-66) to
/// the terms in phi^10, whose remainders are below 3e-18: to round-off, without the library's
/// sine and cosine and without the cancellation of 1 - cos(phi) (b by the library functions is
/// off by up to 1e-16 / phi^2 relative).
#[inline]
fn series_coefficients(phi2: f64) -> (f64, f64) {
    const A: [f64; 6] = [1.0, -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362880.0, -1.0 / 39916800.0];
    const B: [f64; 6] = [0.5, -1.0 / 24.0, 1.0 / 720.0, -1.0 / 40320.0, 1.0 / 3628800.0, -1.0 / 479001600.0];
    if phi2 < SERIES_LIMIT {
        let series = |c: &[f64; 6]| c.iter().rev().fold(0.0, |acc, c| acc * phi2 + c);
        (series(&A), series(&B))
    } else {
        library_coefficients(phi2)
    }
}

/// exp(theta~) by Rodrigues' formula, accurate for small angles ([Fang2023, eq. 4d]).
pub fn exp(theta: &Vector3<f64>) -> Matrix3<f64> {
    rodrigues(theta, library_coefficients(theta.norm_squared()))
}

/// [`exp`] with the coefficients of `series_coefficients`: the same rotation to round-off,
/// for the rotation over a step of the half-implicit method, where the library's sine and
/// cosine took a third of a step of the N = 32 chain (callgrind: exp with them ~150, with the
/// series 81 instructions per call). The other integrators keep [`exp`], so their results
/// stay those of the library functions bit for bit.
pub fn exp_step(theta: &Vector3<f64>) -> Matrix3<f64> {
    rodrigues(theta, series_coefficients(theta.norm_squared()))
}

/// I + a k + b k^2 for k = theta~.
#[inline(always)]
fn rodrigues(theta: &Vector3<f64>, (a, b): (f64, f64)) -> Matrix3<f64> {
    // Entry by entry: the diagonal of k is zero, so each entry of k^2 is a
    // sum of at most two nonzero products and I + a k + b k^2 has the values of the matrix
    // expression without its products by zero (up to the sign of zero results).
    let (x, y, z) = (theta.x, theta.y, theta.z);
    let (xx, yy, zz) = (-y * y + -z * z, -x * x + -z * z, -x * x + -y * y);
    let (xy, xz, yz) = (x * y * b, x * z * b, y * z * b);
    Matrix3::new(
        1.0 + xx * b,
        -z * a + xy,
        y * a + xz,
        z * a + xy,
        1.0 + yy * b,
        -x * a + yz,
        -y * a + xz,
        x * a + yz,
        1.0 + zz * b,
    )
}

/// Rotation vector theta with exp(theta~) = r, |theta| <= pi (r must be a rotation).
pub fn log(r: &Matrix3<f64>) -> Vector3<f64> {
    UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(*r)).scaled_axis()
}

/// A relative rotation R = exp(psi~) split in halves for the beam element's objective
/// interpolation (`index3::beam`): psi = log(R), the half rotation exp(psi~/2), T(psi)^-1 and
/// T(psi/2).
#[derive(Clone, Copy, Debug)]
pub struct HalfSplit {
    pub psi: Vector3<f64>,
    pub half: Matrix3<f64>,
    pub tangent_inverse: Matrix3<f64>,
    pub half_tangent: Matrix3<f64>,
}

/// [`HalfSplit`] of `r` from its unit quaternion (w, v), w = cos(x) >= 0 and |v| = sin(x) with
/// x = |psi| / 2, so that no sine or cosine is evaluated: with rho = x / sin(x),
/// psi = 2 rho v; the Rodrigues coefficients of exp(psi~/2) ([Fang2023, eq. 4d], angle x) are
/// sin(x)/x = 1/rho and (1 - cos x)/x^2 = 1/((1 + w) rho^2) (1 - w = |v|^2 / (1 + w), free of
/// cancellation); T(psi/2) = I - (1 - cos x)/x^2 k + (x - sin x)/x^3 k^2 with k = (psi/2)~;
/// T(psi)^-1 = I + psi~/2 + (1 - x cot x)/(4 x^2) psi~^2. Below x^2 = [`SERIES_LIMIT`] the
/// cancelling coefficients come from their Taylor series (x/sin x = asin(s)/s, and
/// 1 - x cot x = sum 2^2n |B_2n| x^2n / (2n)!, Abramowitz and Stegun 1964, 4.4.40 and 4.3.70),
/// to the terms whose remainders are below 1e-17.
pub fn split_in_halves(r: &Matrix3<f64>) -> HalfSplit {
    let q = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(*r));
    let sign = if q.w < 0.0 { -1.0 } else { 1.0 };
    let (w, v) = (sign * q.w, Vector3::new(sign * q.i, sign * q.j, sign * q.k));
    let s2 = v.norm_squared();
    let s = s2.sqrt();
    let x = s.atan2(w);
    let x2 = x * x;
    // rho = x / sin(x) = asin(s) / s.
    let rho = if s2 < 1e-8 { 1.0 + s2 / 6.0 + 3.0 * s2 * s2 / 40.0 } else { x / s };
    let psi = v * (2.0 * rho);
    let a = 1.0 / rho;
    let b = 1.0 / ((1.0 + w) * rho * rho);
    let half = rodrigues(&(v * rho), (a, b));
    // (x - sin x)/x^3 and (1 - x cot x)/(4 x^2).
    let (d, c) = if x2 < SERIES_LIMIT {
        const D: [f64; 5] = [1.0 / 6.0, -1.0 / 120.0, 1.0 / 5040.0, -1.0 / 362880.0, 1.0 / 39916800.0];
        const C: [f64; 5] = [1.0 / 3.0, 1.0 / 45.0, 2.0 / 945.0, 1.0 / 4725.0, 2.0 / 93555.0];
        let series = |c: &[f64; 5]| c.iter().rev().fold(0.0, |acc, c| acc * x2 + c);
        (series(&D), 0.25 * series(&C))
    } else {
        ((x - s) / (x2 * x), (1.0 - x * w / s) / (4.0 * x2))
    };
    let k = skew(&(v * rho));
    let kk = k * k;
    let half_tangent = Matrix3::identity() - k * b + kk * d;
    // psi~ = 2 k, psi~^2 = 4 k^2.
    let tangent_inverse = Matrix3::identity() + k + kk * (4.0 * c);
    HalfSplit { psi, half, tangent_inverse, half_tangent }
}

/// Right tangent operator T(theta): omega_bar = T(theta) theta' for A = A0 exp(theta~).
pub fn tangent(theta: &Vector3<f64>) -> Matrix3<f64> {
    let phi2 = theta.norm_squared();
    let k = skew(theta);
    let (a, b) = if phi2 < 1e-8 {
        // (1 - cos)/phi^2 and (phi - sin)/phi^3.
        (0.5 - phi2 / 24.0, 1.0 / 6.0 - phi2 / 120.0)
    } else {
        let phi = phi2.sqrt();
        ((1.0 - phi.cos()) / phi2, (phi - phi.sin()) / (phi2 * phi))
    };
    Matrix3::identity() - k * a + k * k * b
}

/// Inverse of [`tangent`]: theta' = T(theta)^-1 omega_bar.
pub fn tangent_inverse(theta: &Vector3<f64>) -> Matrix3<f64> {
    let phi2 = theta.norm_squared();
    let k = skew(theta);
    let c = if phi2 < 1e-8 {
        // (1 - (phi/2) cot(phi/2)) / phi^2
        1.0 / 12.0 + phi2 / 720.0
    } else {
        let phi = phi2.sqrt();
        let half = 0.5 * phi;
        (1.0 - half * half.cos() / half.sin()) / phi2
    };
    Matrix3::identity() + k * 0.5 + k * k * c
}

/// Nearest rotation to a nearly orthonormal matrix: the orthogonal polar factor U V^T of
/// its singular value decomposition (sign-corrected to a proper rotation).
pub fn orthonormalize(m: &Matrix3<f64>) -> Matrix3<f64> {
    let svd = m.svd(true, true);
    let (u, vt) = (svd.u.expect("requested"), svd.v_t.expect("requested"));
    let mut r = u * vt;
    if r.determinant() < 0.0 {
        let mut d = Matrix3::identity();
        d[(2, 2)] = -1.0;
        r = u * d * vt;
    }
    r
}

/// Unit quaternion (e0, e1, e2, e3) of A with e0 >= 0.
pub fn quaternion(a: &Matrix3<f64>) -> [f64; 4] {
    let q = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(*a));
    let (w, i, j, k) = (q.w, q.i, q.j, q.k);
    if w < 0.0 {
        [-w, -i, -j, -k]
    } else {
        [w, i, j, k]
    }
}

/// Angle wrapped into (-pi, pi].
pub fn wrap_angle(x: f64) -> f64 {
    let two_pi = std::f64::consts::TAU;
    let y = x - two_pi * (x / two_pi).round();
    if y <= -std::f64::consts::PI {
        y + two_pi
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &Matrix3<f64>, b: &Matrix3<f64>, tol: f64) -> bool {
        (a - b).abs().max() < tol
    }

    #[test]
    fn exp_and_log_are_inverse() {
        for theta in [Vector3::new(0.3, -0.2, 0.9), Vector3::new(1e-9, 2e-9, 0.0), Vector3::new(0.0, 3.0, 0.1)] {
            let r = exp(&theta);
            assert!(close(&(r.transpose() * r), &Matrix3::identity(), 1e-14));
            assert!((log(&r) - theta).norm() < 1e-12, "{theta}");
        }
    }

    /// The split of a relative rotation agrees with log, exp, T^-1 and T evaluated one by one
    /// (by the library's trigonometric functions), from round-off angles through the series
    /// limit to near half a turn; the exact half rotation composes to the whole.
    #[test]
    fn the_half_split_matches_the_separate_maps() {
        let axis = Vector3::new(0.3, -0.5, 0.8).normalize();
        for angle in [1e-12, 1e-7, 1e-4, 1e-2, 0.19, 0.21, 0.5, 1.0, 2.0, 3.0, 3.1] {
            let psi = axis * angle;
            let split = split_in_halves(&exp(&psi));
            let separate = [log(&exp(&psi)), psi];
            assert!(separate.iter().any(|p| (split.psi - p).norm() < 1e-14 * angle.max(1e-2)), "psi at {angle}");
            assert!(close(&split.half, &exp(&(psi * 0.5)), 4e-16), "half at {angle}");
            assert!(close(&(split.half * split.half), &exp(&psi), 1e-15), "halves at {angle}");
            assert!(close(&split.tangent_inverse, &tangent_inverse(&psi), 1e-14), "T^-1 at {angle}");
            assert!(close(&split.half_tangent, &tangent(&(psi * 0.5)), 1e-15), "T at {angle}");
            // T by the library functions loses up to 1e-16 / |psi|^2 of its coefficients to
            // cancellation (5e-13 at 1e-4 rad).
            assert!(close(&(split.tangent_inverse * tangent(&psi)), &Matrix3::identity(), 1e-12), "T^-1 T at {angle}");
        }
    }

    /// The entry-by-entry exponential has the bits of I + a k + b k^2 evaluated as matrices.
    #[test]
    fn exp_equals_the_matrix_form_bitwise() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            2.0 * ((seed >> 11) as f64 / (1u64 << 53) as f64) - 1.0
        };
        for i in 0..100_000 {
            let scale = [1e-6, 1e-3, 0.05, 1.0, 3.0][i % 5];
            let theta = Vector3::new(next(), next(), next()) * scale;
            let k = skew(&theta);
            let bits = |m: &Matrix3<f64>| m.iter().map(|x| (x + 0.0).to_bits()).collect::<Vec<u64>>();
            for (coefficients, exponential) in [
                (library_coefficients as fn(f64) -> (f64, f64), exp as fn(&Vector3<f64>) -> Matrix3<f64>),
                (series_coefficients, exp_step),
            ] {
                let (a, b) = coefficients(theta.norm_squared());
                let reference = Matrix3::identity() + k * a + k * k * b;
                assert_eq!(bits(&exponential(&theta)), bits(&reference), "{theta}");
            }
        }
    }

    /// The series coefficients give the exponential of the library's sine and cosine to
    /// round-off (entries within 2 eps) up to 0.1 rad, and a within 2 eps relative.
    #[test]
    fn series_exponential_matches_the_library_functions() {
        for i in 1..=20_000 {
            let phi = 0.1 * i as f64 / 20_000.0 * (1.0 - 1e-9);
            let theta = Vector3::new(0.48, -0.6, 0.64) * phi;
            let phi2 = theta.norm_squared();
            let ((a, _), (la, _)) = (series_coefficients(phi2), library_coefficients(phi2));
            assert!((a - la).abs() <= 2.0 * f64::EPSILON, "a at {phi}: {a} vs {la}");
            assert!(close(&exp_step(&theta), &exp(&theta), 2.0 * f64::EPSILON), "{phi}");
        }
    }

    #[test]
    fn tangent_matches_finite_differences_of_the_exponential() {
        // omega_bar~ = A^T A' for A(t) = exp(theta(t)~); check omega_bar = T theta'.
        let theta = Vector3::new(0.4, -0.7, 0.2);
        let rate = Vector3::new(0.3, 0.1, -0.5);
        let h = 1e-6;
        let a0 = exp(&(theta - rate * h));
        let a1 = exp(&(theta + rate * h));
        let a = exp(&theta);
        let w = a.transpose() * (a1 - a0) / (2.0 * h);
        let w = Vector3::new(w[(2, 1)], w[(0, 2)], w[(1, 0)]);
        assert!((tangent(&theta) * rate - w).norm() < 1e-8);
        assert!(close(&(tangent(&theta) * tangent_inverse(&theta)), &Matrix3::identity(), 1e-14));
        let small = Vector3::new(1e-6, -2e-6, 3e-7);
        assert!(close(&(tangent(&small) * tangent_inverse(&small)), &Matrix3::identity(), 1e-15));
    }

    #[test]
    fn orthonormalize_returns_the_nearest_rotation() {
        let r = exp(&Vector3::new(0.5, -1.2, 2.0));
        let noisy = r + Matrix3::new(1e-7, -2e-7, 0.0, 3e-7, 0.0, 1e-7, 0.0, -1e-7, 2e-7);
        let o = orthonormalize(&noisy);
        assert!(close(&(o.transpose() * o), &Matrix3::identity(), 1e-14));
        assert!(close(&o, &r, 1e-6));
    }

    #[test]
    fn quaternion_has_positive_scalar_part_and_wrap_is_periodic() {
        let q = quaternion(&exp(&Vector3::new(0.0, 0.0, 3.0)));
        assert!(q[0] >= 0.0 && (q[3] - 1.5f64.sin()).abs() < 1e-12);
        assert!((wrap_angle(3.0 * std::f64::consts::PI) - std::f64::consts::PI).abs() < 1e-12);
        assert!((wrap_angle(-0.5 - 4.0 * std::f64::consts::PI) + 0.5).abs() < 1e-12);
    }
}
