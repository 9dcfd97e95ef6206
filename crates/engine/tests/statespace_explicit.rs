//! The explicit Runge-Kutta methods of the state-space formulation (RK4, DOPRI5, DOP853;
//! \[HairerNorsettWanner1993, Sect. II.1, II.5, II.10\]) on the \[Fang2023\] double pendulum
//! (catalog model DoublePendulumStateSpace) against its minimal-coordinate ODE integrated
//! here with classical RK4 at a tiny step (tests/common/mod.rs): the design orders 4, 5 and 8
//! at constant steps, and the error control of the two embedded pairs.

use crate::common;

use common::{catalog, quantity, DoublePendulum};
use mbfmu_engine::statespace::StateSpaceFormulation;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{Description, Method};

const TIMES: [f64; 8] = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0];

/// Classical RK4 on the minimal-coordinate ODE in `n` equal steps per quarter second, sampled
/// at `TIMES`: the elapsed time is n fl(0.25/n) per quarter, exact to round-off, where a
/// summed time would drift by about n ulp and shift the samples.
fn minimal_rk4(n: usize) -> Vec<[f64; 4]> {
    let p = DoublePendulum::fang2023();
    let h = 0.25 / n as f64;
    let mut y = [std::f64::consts::FRAC_PI_2, 0.0, 0.0, 0.0];
    let mut out = Vec::new();
    for _ in TIMES {
        for _ in 0..n {
            let k1 = p.rhs(&y);
            let k2 = p.rhs(&std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]));
            let k3 = p.rhs(&std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]));
            let k4 = p.rhs(&std::array::from_fn(|i| y[i] + h * k3[i]));
            y = std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]));
        }
        out.push(y);
    }
    out
}

/// The reference at `TIMES`: RK4 at 2e-6 s (its own error far below 1e-11 m, checked below).
fn reference() -> Vec<[f64; 4]> {
    minimal_rk4(125_000)
}

/// A run of `method` with largest step `h` and tolerances `tol` (absolute and relative);
/// returns the largest position error of bar 2's centre at `TIMES` and the steps taken.
fn run(method: Method, h: f64, tol: f64, reference: &[[f64; 4]]) -> (f64, u64) {
    let mut d: Description = catalog("DoublePendulumStateSpace");
    d.solver.method = method;
    d.solver.step_size = h;
    d.solver.absolute_tolerance = Some(tol);
    d.solver.relative_tolerance = Some(tol);
    // Dependent positions to round-off: their Newton error would otherwise floor the
    // high-order errors.
    d.solver.tolerance = 1e-14;
    let (y, z) = (quantity(&d, "bar2.position.y"), quantity(&d, "bar2.position.z"));
    let mut sim = Simulation::new(&d).expect("the model builds");
    let p = DoublePendulum::fang2023();
    let mut worst: f64 = 0.0;
    for (&t, r) in TIMES.iter().zip(reference) {
        sim.advance_to(t).unwrap_or_else(|e| panic!("{method:?} h = {h}: {e}"));
        worst = worst.max((sim.quantity(y) - p.y2(r)).abs()).max((sim.quantity(z) - p.z2(r)).abs());
    }
    let steps = sim.formulation::<StateSpaceFormulation>().map(StateSpaceFormulation::solver).unwrap().counters.steps;
    (worst, steps)
}

#[test]
fn the_reference_is_converged() {
    let p = DoublePendulum::fang2023();
    for (a, b) in reference().iter().zip(&minimal_rk4(62_500)) {
        let e = (p.y2(a) - p.y2(b)).abs().max((p.z2(a) - p.z2(b)).abs());
        assert!(e < 1e-11, "RK4 at 2e-6 s against 4e-6 s: {e:.2e} m");
    }
}

/// The largest position error over eight sample times against the step, least-squares slope
/// on a log-log scale, where the errors are above round-off (about 3e-12 m here): at least
/// the design orders 4, 5 and 8. Measured: RK4 4.13 (2.5e-3 to 6.25e-4 s), DOPRI5 5.69 (same
/// steps), DOP853 10.7 (1.25e-2 to 8.3e-3 s; 6.4e-12 m at 6.25e-3 s): the two pairs' leading
/// error terms are small on this problem, and DOP853 meets round-off before its asymptotic
/// slope shows. The embedded pairs run at a constant step with tolerances that never reject one.
#[test]
fn explicit_methods_converge_with_their_design_orders() {
    let reference = reference();
    for (method, steps, order) in [
        (Method::Rk4, &[2.5e-3, 1.25e-3, 6.25e-4][..], 4.0),
        (Method::Dopri5, &[2.5e-3, 1.25e-3, 6.25e-4][..], 5.0),
        (Method::Dop853, &[1.25e-2, 1e-2, 0.25 / 30.0][..], 8.0),
    ] {
        let runs: Vec<(f64, u64)> = steps.iter().map(|&h| run(method, h, 1e3, &reference)).collect();
        for (h, (_, n)) in steps.iter().zip(&runs) {
            assert_eq!(*n, (TIMES[TIMES.len() - 1] / h).round() as u64, "{method:?}: constant step {h}");
        }
        let errors: Vec<f64> = runs.iter().map(|r| r.0).collect();
        let p = common::order(steps, &errors);
        println!("{method:?}: errors {errors:?} at {steps:?} s: order {p:.2}");
        assert!((order - 0.3..order + 3.5).contains(&p), "{method:?}: order {p:.2} ({errors:?})");
    }
}

/// Under error control the errors follow the tolerance (a global error over two seconds of a
/// swinging double pendulum, within a few hundred times the local tolerance on positions of
/// metres), and at tight tolerances the eighth-order method needs far fewer steps than the
/// fifth-order one (measured at 1e-9: 45 and 139).
#[test]
fn embedded_pairs_meet_their_tolerances() {
    let reference = reference();
    let mut steps = Vec::new();
    for method in [Method::Dopri5, Method::Dop853] {
        let mut last = f64::INFINITY;
        for tol in [1e-5, 1e-7, 1e-9] {
            let (e, n) = run(method, 0.1, tol, &reference);
            println!("{method:?} tol {tol:e}: error {e:.2e} m in {n} steps");
            assert!(e < 500.0 * tol, "{method:?} tol {tol:e}: error {e:.2e}");
            assert!(e < 0.1 * last, "{method:?}: the error falls with the tolerance ({e:.2e} after {last:.2e})");
            last = e;
        }
        steps.push(run(method, 0.1, 1e-9, &reference).1);
    }
    assert!(2 * steps[1] < steps[0], "steps at 1e-9: dopri5 {}, dop853 {}", steps[0], steps[1]);
}
