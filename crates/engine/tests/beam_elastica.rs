//! Large deflection of a cantilever under a dead tip load against the inextensible elastica:
//! the reference tip displacements and rotation are computed here from the
//! closed form in elliptic integrals, independently of the engine.
//!
//! Closed form (Bisshopp & Drucker, "Large deflection of cantilever beams", Quart. Appl.
//! Math. 3 (1945) 272-275; Timoshenko & Gere, Theory of Elastic Stability, 2nd ed. 1961,
//! Sect. 2.7): a cantilever of length L and bending stiffness EI with a tip force P normal to
//! its undeformed axis, k = P L^2 / EI, tip rotation alpha, modulus p^2 = (1 + sin alpha) / 2,
//! phi0 = asin(1 / (p sqrt 2)):
//!   sqrt(k)       = K(p) - F(phi0, p),
//!   delta_v / L   = 1 - 2 (E(p) - E(phi0, p)) / sqrt(k),
//!   delta_h / L   = 1 - sqrt(2 sin(alpha) / k).
//! The elliptic integrals are evaluated with Carlson's symmetric forms (B. C. Carlson,
//! "Numerical computation of real or complex elliptic integrals", Numer. Algorithms 10 (1995)
//! 13-26), cross-checked against the arithmetic-geometric mean (Abramowitz & Stegun 1964,
//! 17.6) and composite Gauss-Legendre quadrature, and the whole reference against the values
//! K. Mattiasson tabulated ("Numerical results from large deflection beam and frame problems
//! analysed by means of elliptic integrals", Int. J. Numer. Meth. Eng. 17 (1981) 145-153).

use mbfmu_engine::Simulation;
use mbfmu_model::format::{parse, Quantity};
use std::f64::consts::{FRAC_PI_2, PI};

// ---------------------------------------------------------------------------------------------
// Elliptic integrals (Carlson 1995, Sect. 2, duplication algorithms with the stopping rules
// of Algorithms 1 and 4 at the relative tolerance r = 1e-16).

/// R_F(x, y, z), Carlson 1995 Algorithm 1.
fn carlson_rf(x: f64, y: f64, z: f64) -> f64 {
    let (mut x, mut y, mut z) = (x, y, z);
    let a0 = (x + y + z) / 3.0;
    let q = (3.0 * 1e-16f64).powf(-1.0 / 6.0) * (a0 - x).abs().max((a0 - y).abs()).max((a0 - z).abs());
    let mut a = a0;
    let mut scale = 1.0;
    while scale * q >= a.abs() {
        let lambda = (x * y).sqrt() + (x * z).sqrt() + (y * z).sqrt();
        x = 0.25 * (x + lambda);
        y = 0.25 * (y + lambda);
        z = 0.25 * (z + lambda);
        a = 0.25 * (a + lambda);
        scale *= 0.25;
    }
    // X = (A0 - x0) / (4^m A_m) = (A_m - x_m) / A_m (the differences shrink by 4 per step).
    let (dx, dy) = ((a - x) / a, (a - y) / a);
    let dz = -dx - dy;
    let e2 = dx * dy - dz * dz;
    let e3 = dx * dy * dz;
    (1.0 - e2 / 10.0 + e3 / 14.0 + e2 * e2 / 24.0 - 3.0 * e2 * e3 / 44.0) / a.sqrt()
}

/// R_D(x, y, z), Carlson 1995 Algorithm 4.
fn carlson_rd(x: f64, y: f64, z: f64) -> f64 {
    let (mut x, mut y, mut z) = (x, y, z);
    let a0 = (x + y + 3.0 * z) / 5.0;
    let q = (0.25 * 1e-16f64).powf(-1.0 / 6.0) * (a0 - x).abs().max((a0 - y).abs()).max((a0 - z).abs());
    let mut a = a0;
    let mut scale = 1.0;
    let mut sum = 0.0;
    while scale * q >= a.abs() {
        let lambda = (x * y).sqrt() + (x * z).sqrt() + (y * z).sqrt();
        sum += scale / (z.sqrt() * (z + lambda));
        x = 0.25 * (x + lambda);
        y = 0.25 * (y + lambda);
        z = 0.25 * (z + lambda);
        a = 0.25 * (a + lambda);
        scale *= 0.25;
    }
    let (dx, dy) = ((a - x) / a, (a - y) / a);
    let dz = -(dx + dy) / 3.0;
    let e2 = dx * dy - 6.0 * dz * dz;
    let e3 = (3.0 * dx * dy - 8.0 * dz * dz) * dz;
    let e4 = 3.0 * (dx * dy - dz * dz) * dz * dz;
    let e5 = dx * dy * dz * dz * dz;
    let series = 1.0 - 3.0 * e2 / 14.0 + e3 / 6.0 + 9.0 * e2 * e2 / 88.0 - 3.0 * e4 / 22.0 - 9.0 * e2 * e3 / 52.0
        + 3.0 * e5 / 26.0;
    3.0 * sum + scale * series / (a * a.sqrt())
}

/// Incomplete elliptic integrals of the first and second kind F(phi, p), E(phi, p) (modulus p)
/// for 0 <= phi <= pi/2 (Carlson 1995, Eqs. 4.5 and 4.6).
fn elliptic_fe(phi: f64, p: f64) -> (f64, f64) {
    let (s, c) = phi.sin_cos();
    let y = 1.0 - p * p * s * s;
    let f = s * carlson_rf(c * c, y, 1.0);
    (f, f - p * p * s * s * s * carlson_rd(c * c, y, 1.0) / 3.0)
}

/// Complete integrals K(p), E(p) by the arithmetic-geometric mean (Abramowitz & Stegun 17.6.1
/// and 17.6.3-4), an independent route to check the Carlson forms.
fn elliptic_ke_agm(p: f64) -> (f64, f64) {
    let (mut a, mut b, mut c) = (1.0f64, (1.0 - p * p).sqrt(), p);
    let mut sum = 0.5 * c * c;
    let mut weight = 0.5;
    // Quadratic convergence: a and b agree to round-off after at most six means for p < 1 - 1e-12.
    for _ in 0..8 {
        let an = 0.5 * (a + b);
        c = 0.5 * (a - b);
        b = (a * b).sqrt();
        a = an;
        weight *= 2.0;
        sum += weight * c * c;
    }
    let k = PI / (2.0 * a);
    (k, k * (1.0 - sum))
}

/// F and E by composite 8-point Gauss-Legendre quadrature of their integrands on [0, phi]
/// (smooth for p < 1), the third route. Nodes and weights as tabulated (Abramowitz & Stegun
/// Table 25.4).
#[allow(clippy::excessive_precision)]
fn elliptic_fe_quadrature(phi: f64, p: f64, panels: usize) -> (f64, f64) {
    const X: [f64; 4] = [0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363];
    const W: [f64; 4] = [0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763];
    let width = phi / panels as f64;
    let (mut f, mut e) = (0.0, 0.0);
    for i in 0..panels {
        let mid = (i as f64 + 0.5) * width;
        for (x, w) in X.iter().zip(W) {
            for t in [mid - 0.5 * width * x, mid + 0.5 * width * x] {
                let d = (1.0 - p * p * t.sin().powi(2)).sqrt();
                f += 0.5 * width * w / d;
                e += 0.5 * width * w * d;
            }
        }
    }
    (f, e)
}

/// The inextensible elastica of a cantilever with a dead tip load normal to its axis (closed
/// form above): (vertical tip deflection / L, horizontal tip displacement / L, tip rotation).
fn elastica(k: f64) -> (f64, f64, f64) {
    // sqrt(k) = K(p) - F(phi0, p) grows monotonically with the tip rotation alpha: bisection.
    let residual = |alpha: f64| {
        let p = ((1.0 + alpha.sin()) / 2.0).sqrt();
        let phi0 = (1.0 / (p * 2f64.sqrt())).asin();
        elliptic_fe(FRAC_PI_2, p).0 - elliptic_fe(phi0, p).0 - k.sqrt()
    };
    let (mut lo, mut hi) = (0.0, FRAC_PI_2);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if residual(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let alpha = 0.5 * (lo + hi);
    let p = ((1.0 + alpha.sin()) / 2.0).sqrt();
    let phi0 = (1.0 / (p * 2f64.sqrt())).asin();
    let vertical = 1.0 - 2.0 * (elliptic_fe(FRAC_PI_2, p).1 - elliptic_fe(phi0, p).1) / k.sqrt();
    let horizontal = 1.0 - (2.0 * alpha.sin() / k).sqrt();
    (vertical, horizontal, alpha)
}

/// The elastica ODE theta'' = -k cos(theta) on s in [0, 1] (moment equilibrium of the
/// inextensible beam, Timoshenko & Gere Sect. 2.7) integrated by RK4 from the clamped end with
/// the first integral theta'(0)^2 = 2 k sin(alpha): returns theta(1), theta'(1) and the tip
/// position (x, z)/L. A check of the closed form that shares no formula with it.
fn elastica_shooting(k: f64, alpha: f64, steps: usize) -> (f64, f64, f64, f64) {
    let f = |y: &[f64; 4]| [y[1], -k * y[0].cos(), y[0].cos(), y[0].sin()];
    let mut y = [0.0, (2.0 * k * alpha.sin()).sqrt(), 0.0, 0.0];
    let h = 1.0 / steps as f64;
    for _ in 0..steps {
        let k1 = f(&y);
        let k2 = f(&std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]));
        let k3 = f(&std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]));
        let k4 = f(&std::array::from_fn(|i| y[i] + h * k3[i]));
        for i in 0..4 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    (y[0], y[1], y[2], y[3])
}

#[test]
fn elliptic_integrals_agree_by_three_methods() {
    for p in [0.0, 0.3, 0.75, 0.9, 0.99, 0.999] {
        let (k_agm, e_agm) = elliptic_ke_agm(p);
        let (k_rf, e_rf) = elliptic_fe(FRAC_PI_2, p);
        assert!((k_agm - k_rf).abs() < 1e-14 * k_agm, "K({p}): AGM {k_agm} vs Carlson {k_rf}");
        assert!((e_agm - e_rf).abs() < 1e-14, "E({p}): AGM {e_agm} vs Carlson {e_rf}");
        for phi in [0.3, 0.8, 1.2, 1.5] {
            let (f, e) = elliptic_fe(phi, p);
            let (fq, eq) = elliptic_fe_quadrature(phi, p, 64);
            assert!((f - fq).abs() < 1e-13 && (e - eq).abs() < 1e-13, "F, E({phi}, {p}): {f} {e} vs {fq} {eq}");
        }
    }
    // Abramowitz & Stegun Table 17.1: K(m = 0.5) = 1.85407 46773 01372, E(m = 0.5) = 1.35064 38810 47676.
    let (k, e) = elliptic_ke_agm(0.5f64.sqrt());
    assert!((k - 1.8540746773013719).abs() < 1e-15 && (e - 1.3506438810476755).abs() < 1e-15, "{k} {e}");
}

#[test]
fn elastica_reference_matches_mattiasson_and_the_ode() {
    // Mattiasson 1981, Table 1 (dead tip load normal to the axis): k, w/L (vertical), u/L
    // (horizontal), tip rotation [rad], all quoted to five decimals.
    let table = [
        (1.0, 0.30172, 0.05643, 0.46135),
        (2.0, 0.49346, 0.16064, 0.78175),
        (5.0, 0.71379, 0.38763, 1.21537),
        (10.0, 0.81061, 0.55500, 1.43029),
    ];
    for (k, v, h, alpha) in table {
        let (vc, hc, ac) = elastica(k);
        eprintln!("elastica k = {k}: delta_v/L {vc:.8}, delta_h/L {hc:.8}, alpha {ac:.8}");
        assert!((vc - v).abs() <= 5.1e-6, "k = {k}: vertical {vc} vs tabulated {v}");
        assert!((hc - h).abs() <= 5.1e-6, "k = {k}: horizontal {hc} vs tabulated {h}");
        assert!((ac - alpha).abs() <= 5.1e-6, "k = {k}: rotation {ac} vs tabulated {alpha}");
        // The shooting ODE with the closed form's root moment reaches the free end moment-free
        // at the closed form's tip rotation and tip position.
        let (theta1, curvature1, x1, z1) = elastica_shooting(k, ac, 4000);
        assert!((theta1 - ac).abs() < 1e-9 && curvature1.abs() < 1e-8, "k = {k}: {theta1} {curvature1}");
        assert!((z1 - vc).abs() < 1e-10 && (1.0 - x1 - hc).abs() < 1e-10, "k = {k}: ({x1}, {z1})");
    }
}

/// Cantilever along x of length 1, EI = 1 (both planes), clamped at x = 0, a dead tip force
/// `k` along -z. Axial and shear stiffness 1e9 EI / L^2 make the beam inextensible and
/// shear-rigid to ~1e-9 relative.
fn cantilever(elements: usize, k: f64) -> String {
    format!(
        r#"{{
  "name": "Elastica",
  "bodies": [],
  "beams": [{{
    "name": "beam", "points": [[0, 0, 0], [1, 0, 0]], "elements": {elements}, "axis2": [0, 1, 0],
    "section": {{ "axial_stiffness": 1e9, "shear_stiffness": [1e9, 1e9], "torsional_stiffness": 1.0,
                 "bending_stiffness": [1.0, 1.0], "mass_per_length": 1.0, "inertia_per_length": [0.02, 0.01, 0.01] }}
  }}],
  "joints": [{{ "name": "clamp", "type": "fixed", "body1": "ground", "body2": "beam.start", "point": [0, 0, 0] }}],
  "forces": [{{ "type": "force", "name": "tip", "body": "beam.end", "direction": [0, 0, -1], "value": {k} }}],
  "static_start": true,
  "experiment": {{ "stop": 1.0, "step": 0.01 }},
  "solver": {{ "method": "bdf1", "step_size": 0.001 }}
}}"#
    )
}

/// Engine tip response: (vertical deflection, horizontal displacement towards the clamp, tip
/// rotation about +y), all / L or in rad.
fn engine_tip(elements: usize, k: f64) -> (f64, f64, f64) {
    let d = parse(&cantilever(elements, k)).expect("valid cantilever");
    let sim = Simulation::new(&d).unwrap_or_else(|e| panic!("k = {k}, {elements} elements: {e}"));
    let tip = |q| sim.quantity(q);
    (
        -tip(Quantity::NodeDisplacement { node: elements, axis: 2 }),
        -tip(Quantity::NodeDisplacement { node: elements, axis: 0 }),
        tip(Quantity::NodeRotation { node: elements, axis: 1 }),
    )
}

/// Static start, straight from the unloaded beam in one Newton solve, for k = 1, 2, 5, 10:
/// the tip displacements and rotation converge as h^2 (linear interpolation, one-point
/// quadrature) to the elastica, are within 1e-3 of it (relative) at 32 elements, and their
/// Richardson extrapolation from 32 and 64 elements within 2e-7. k = 5 and 10 need the load
/// stepping of the static start (full Newton from the straight beam fails for most meshes).
#[test]
fn large_tip_load_converges_to_the_elastica() {
    let meshes = [8, 16, 32, 64];
    for k in [1.0, 2.0, 5.0, 10.0] {
        let (v, h, alpha) = elastica(k);
        let exact = [v, h, alpha];
        let mut values = Vec::new();
        let mut errors = Vec::new();
        for n in meshes {
            let (ve, he, ae) = engine_tip(n, k);
            values.push([ve, he, ae]);
            errors.push([(ve - v).abs() / v, (he - h).abs() / h, (ae - alpha).abs() / alpha]);
        }
        for (n, e) in meshes.iter().zip(&errors) {
            eprintln!(
                "k = {k}, {n:2} elements: relative errors vertical {:.3e}, horizontal {:.3e}, rotation {:.3e}",
                e[0], e[1], e[2]
            );
        }
        for c in 0..3 {
            let rates: Vec<f64> = errors.windows(2).map(|w| (w[0][c] / w[1][c]).log2()).collect();
            eprintln!("k = {k}: component {c} rates {rates:.3?}");
            assert!(errors[2][c] < 1e-3, "k = {k}, component {c}: 32 elements off by {:.3e}", errors[2][c]);
            assert!(errors[3][c] < 2.5e-4, "k = {k}, component {c}: 64 elements off by {:.3e}", errors[3][c]);
            for r in &rates {
                assert!((r - 2.0).abs() < 0.15, "k = {k}, component {c}: convergence rates {rates:?}");
            }
            // Richardson extrapolation of the h^2 error from 32 and 64 elements: the limit is
            // the inextensible elastica itself (no bias from the finite axial and shear
            // stiffness or the static tolerance).
            let limit = (4.0 * values[3][c] - values[2][c]) / 3.0;
            let limit_error = (limit - exact[c]).abs() / exact[c];
            eprintln!("k = {k}: component {c} Richardson limit relative error {limit_error:.2e}");
            assert!(limit_error < 2e-7, "k = {k}, component {c}: extrapolated {limit} vs {}", exact[c]);
        }
    }
}
