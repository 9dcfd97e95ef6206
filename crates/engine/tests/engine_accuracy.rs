//! Accuracy of the index-3 engine against independent references:
//! closed-form slider-crank kinematics, a minimal-coordinate ODE of the double pendulum
//! integrated here with RK4, and an independent kinematic solution of the four-link; and the
//! first-order convergence of both integrators of [Fang2023, Fig. 2].

use crate::common;

use common::{catalog, grid, order, rms, sample, slider_closed_form, DoublePendulum, FourLinkKinematics};
use mbfmu_model::format::Method;

const METHODS: [Method; 2] = [Method::HalfImplicit, Method::Bdf1];

#[test]
fn closed_form_reproduces_the_published_slider_values() {
    // Closed-form values of the slider-crank of [FangCode2022] (position, velocity).
    for (t, x, v) in [
        (0.125, 0.1852291589, 0.0383773956),
        (0.25, 0.2078460969, 0.2902078983),
        (0.5, 0.2800000000, 0.1795195802),
        (0.75, 0.2742261840, -0.2199592251),
        (1.0, 0.2000000000, -0.2513274123),
    ] {
        let (xc, vc) = slider_closed_form(t);
        assert!((xc - x).abs() < 1e-9 && (vc - v).abs() < 1e-9, "t = {t}: ({xc}, {vc})");
    }
}

#[test]
fn slider_crank_follows_the_closed_form() {
    let d = catalog("SliderCrank");
    let times = [0.125, 0.25, 0.5, 0.75, 1.0, 3.3, 8.0];
    for method in METHODS {
        let mut velocity_errors = Vec::new();
        for h in [2e-4, 1e-4] {
            let out = sample(&d, method, h, 1e-11, &times, &["slide.position", "slide.velocity"]);
            let mut worst_v = 0.0f64;
            for (t, o) in times.iter().zip(&out) {
                let (x, v) = slider_closed_form(*t);
                // A fully driven mechanism: positions are fixed by the constraints alone.
                assert!((o[0] - x).abs() < 1e-9, "{method:?} h {h} t {t}: x {} vs {x}", o[0]);
                worst_v = worst_v.max((o[1] - v).abs());
            }
            // First order: the velocity error is O(h) (backward difference of positions).
            assert!(worst_v < 5.0 * h, "{method:?} h {h}: velocity error {worst_v:.3e}");
            velocity_errors.push(worst_v);
        }
        let ratio = velocity_errors[0] / velocity_errors[1];
        assert!((1.7..2.3).contains(&ratio), "{method:?}: halving h divides the velocity error by {ratio}");
    }
}

#[test]
fn double_pendulum_matches_the_minimal_coordinate_ode() {
    let reference = DoublePendulum::fang2023();
    let times = [1.0, 2.0, 4.0, 8.0];
    let y0 = [std::f64::consts::FRAC_PI_2, 0.0, 0.0, 0.0];
    let fine = common::rk4(|y| reference.rhs(y), y0, 5e-5, &times);
    let coarse = common::rk4(|y| reference.rhs(y), y0, 1e-4, &times);
    for (a, b) in fine.iter().zip(&coarse) {
        assert!((reference.z2(a) - reference.z2(b)).abs() < 1e-9, "the RK4 reference itself is converged");
    }
    let d = catalog("DoublePendulum");
    for method in METHODS {
        let mut errors = Vec::new();
        for h in [1e-4, 5e-5] {
            let out = sample(&d, method, h, 1e-12, &times, &["bar2.position.y", "bar2.position.z"]);
            let e: Vec<f64> = out
                .iter()
                .zip(&fine)
                .map(|(o, r)| (o[0] - reference.y2(r)).abs().max((o[1] - reference.z2(r)).abs()))
                .collect();
            errors.push(e);
        }
        for (k, t) in times.iter().enumerate() {
            // Half-implicit (symplectic) tracks the ODE closely; backward Euler is damped.
            let bound = match (method, *t > 4.0) {
                (Method::HalfImplicit, _) => 1e-3,
                (_, false) => 1e-2,
                (_, true) => 0.2,
            };
            assert!(errors[0][k] < bound, "{method:?} t {t}: error {:.3e} at h = 1e-4", errors[0][k]);
            if *t <= 4.0 {
                let ratio = errors[0][k] / errors[1][k];
                assert!((1.6..2.5).contains(&ratio), "{method:?} t {t}: first order expected, ratio {ratio}");
            }
        }
    }
}

/// [Fang2023, Fig. 2]: RMS error over all samples against step size, slope 1.0 +- 0.15.
fn assert_first_order(what: &str, hs: &[f64], errors: &[f64]) {
    let p = order(hs, errors);
    let shown: Vec<String> = errors.iter().map(|e| format!("{e:.3e}")).collect();
    println!("{what}: errors {} -> order {p:.3}", shown.join(", "));
    assert!((p - 1.0).abs() <= 0.15, "{what}: measured order {p:.3} (errors {})", shown.join(", "));
}

#[test]
fn measured_convergence_order_is_one_on_the_double_pendulum() {
    let reference = DoublePendulum::fang2023();
    let times = grid(0.0, 0.01, 800);
    let refs = common::rk4(|y| reference.rhs(y), [std::f64::consts::FRAC_PI_2, 0.0, 0.0, 0.0], 5e-5, &times);
    let d = catalog("DoublePendulum");
    let hs = [4e-4, 2e-4, 1e-4];
    for method in METHODS {
        let errors: Vec<f64> = hs
            .iter()
            .map(|&h| {
                let out = sample(&d, method, h, 1e-12, &times, &["bar2.position.z"]);
                rms(out.iter().zip(&refs).map(|(o, r)| o[0] - reference.z2(r)))
            })
            .collect();
        assert_first_order(&format!("double pendulum {method:?}, z of bar 2"), &hs, &errors);
    }
}

#[test]
fn measured_convergence_order_is_one_on_the_slider_crank() {
    let times = grid(0.0, 0.01, 800);
    let d = catalog("SliderCrank");
    let hs = [1e-3, 5e-4, 2.5e-4];
    for method in METHODS {
        let errors: Vec<f64> = hs
            .iter()
            .map(|&h| {
                let out = sample(&d, method, h, 1e-11, &times, &["slide.velocity"]);
                rms(out.iter().zip(&times).map(|(o, t)| o[0] - slider_closed_form(*t).1))
            })
            .collect();
        assert_first_order(&format!("slider-crank {method:?}, slider velocity"), &hs, &errors);
    }
}

#[test]
fn four_link_follows_its_kinematic_solution_at_first_order() {
    let times = grid(0.0, 0.01, 800);
    let mut kin = FourLinkKinematics::new();
    let refs: Vec<(f64, f64, [f64; 3])> = times.iter().map(|&t| kin.at(t)).collect();
    let d = catalog("FourLink");
    let hs = [1e-3, 5e-4, 2.5e-4];
    for method in METHODS {
        let mut errors = Vec::new();
        for &h in &hs {
            let out = sample(
                &d,
                method,
                h,
                1e-9,
                &times,
                &["rocker_pivot.angle", "coupler.velocity.x", "coupler.velocity.y", "coupler.velocity.z"],
            );
            // Positions are fixed by the constraints: the rocker angle is exact.
            let angle = out.iter().zip(&refs).map(|(o, r)| (o[0] - r.0).abs()).fold(0.0, f64::max);
            assert!(angle < 1e-8, "{method:?} h {h}: rocker angle error {angle:.3e}");
            errors
                .push(rms(out.iter().zip(&refs).map(|(o, r)| {
                    ((o[1] - r.2[0]).powi(2) + (o[2] - r.2[1]).powi(2) + (o[3] - r.2[2]).powi(2)).sqrt()
                })));
        }
        assert_first_order(&format!("four-link {method:?}, coupler velocity"), &hs, &errors);
    }
}
