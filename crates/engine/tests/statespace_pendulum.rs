//! [Negrut1997, Sect. 4] on the stiff double pendulum (catalog models StiffDoublePendulum and
//! StiffDoublePendulumSpin): order of the constant-step trapezoidal rule (Figs. 2-3), error
//! control of the variable-step one (Figs. 4, 6), the stability limit of the explicit method,
//! and the cost at equal error (Fig. 5). The reference is independent of the engine: the
//! pendulum's Lagrange equations in its two link angles, integrated with classical RK4 at
//! 1e-6 s (tests/statespace/mod.rs), as \[Negrut1997\] builds its "exact" solution.

use crate::statespace;

use mbfmu_engine::statespace::StateSpaceFormulation;
use mbfmu_model::format::Method;
use nalgebra::Matrix4;
use statespace::*;

const STOP: f64 = 0.1;

/// The reference sampled every `dt` up to `stop`.
fn reference(y0: [f64; 4], dt: f64, stop: f64) -> Vec<[f64; 4]> {
    let h = 1e-6;
    let every = (dt / h).round() as usize;
    PENDULUM.rk4(y0, h, (stop / h).round() as usize, every)
}

/// Max errors of theta_2 and omega_2 (\[Negrut1997\]'s measure) of a run of `d` sampled every `dt`.
fn errors(d: &mbfmu_model::format::Description, dt: f64, reference: &[[f64; 4]]) -> Option<(f64, f64, u64, u64)> {
    let (sim, out) = run(d, dt, STOP).ok()?;
    let s =
        sim.formulation::<StateSpaceFormulation>().map(StateSpaceFormulation::solver).expect("state-space formulation");
    Some((max_error(&out, reference, 1), max_error(&out, reference, 3), s.counters.steps, s.evaluations()))
}

#[test]
fn the_reference_is_converged_and_the_catalog_model_starts_on_it() {
    // RK4 at 1e-6 s against 2e-6 s: the reference error is far below every error measured here.
    let fine = reference(table2(), 1e-3, STOP);
    let h = 2e-6;
    let coarse = PENDULUM.rk4(table2(), h, (STOP / h).round() as usize, 500);
    assert!(max_error(&fine, &coarse, 1) < 1e-12 && max_error(&fine, &coarse, 3) < 1e-11);
    // The catalog descriptions encode Tables 2 and 3 (angles and rates of both links).
    for (name, y0) in [("StiffDoublePendulum", table2()), ("StiffDoublePendulumSpin", table3())] {
        let d = description(name, Method::TrapezoidalVariableStep, 0.01);
        let (_, out) = run(&d, 0.01, 0.0).unwrap();
        for (c, (a, b)) in out[0].iter().zip(y0).enumerate() {
            assert!((a - b).abs() < 1e-12, "{name} component {c}: {a} vs {b}");
        }
    }
}

/// Figs. 2-3: at small steps the constant-step trapezoidal error in the orientation of link 2
/// and in its angular velocity falls with h^2.
#[test]
fn constant_step_trapezoidal_converges_with_order_two() {
    let reference = reference(table2(), 1e-3, STOP);
    let steps = [1e-4, 5e-5, 2.5e-5];
    let errs: Vec<(f64, f64)> = steps
        .iter()
        .map(|&h| {
            let d = description("StiffDoublePendulum", Method::TrapezoidalConstantStep, h);
            let (p, v, n, _) = errors(&d, 1e-3, &reference).expect("runs");
            assert_eq!(n, (STOP / h).round() as u64, "constant step {h}");
            (p, v)
        })
        .collect();
    for w in errs.windows(2) {
        let (position, velocity) = ((w[0].0 / w[1].0).log2(), (w[0].1 / w[1].1).log2());
        assert!((1.8..2.2).contains(&position), "position slope {position:.3} ({errs:?})");
        assert!((1.8..2.2).contains(&velocity), "velocity slope {velocity:.3} ({errs:?})");
    }
}

/// Fig. 4: over the engineering range of tolerances (Atol = Rtol, velocity tolerance ten
/// times looser) the variable-step errors stay within the tolerances and fall with them.
#[test]
fn variable_step_error_follows_the_tolerance() {
    let reference = reference(table2(), 0.01, STOP);
    let mut last = (f64::INFINITY, f64::INFINITY);
    let mut results = Vec::new();
    for tol in [1e-2, 1e-3, 1e-4, 1e-5] {
        let mut d = description("StiffDoublePendulum", Method::TrapezoidalVariableStep, 0.1);
        d.solver.absolute_tolerance = Some(tol);
        d.solver.relative_tolerance = Some(tol);
        let (p, v, n, _) = errors(&d, 0.01, &reference).expect("runs");
        results.push((tol, p, v, n));
        assert!(p <= tol && v <= 10.0 * tol, "tol {tol}: errors {p:.2e}, {v:.2e}");
        assert!(p <= last.0 && v <= last.1, "errors grow as the tolerance tightens: {results:?}");
        last = (p, v);
    }
    // Two decades of tolerance buy at least one decade of accuracy.
    let (e3, e5) = (results[1], results[3]);
    assert!(e5.1 * 10.0 <= e3.1 && e5.2 * 10.0 <= e3.2, "{results:?}");
    assert!(e5.3 > e3.3, "tighter tolerances take more steps: {results:?}");
}

/// The stiffest eigenvalue of the pendulum at its initial state (linearized reference ODE).
fn stiffest_eigenvalue(y0: [f64; 4]) -> f64 {
    let f0 = PENDULUM.rhs(&y0);
    let jac = Matrix4::from_fn(|i, j| {
        let mut y = y0;
        let d = 1e-6 * y0[j].abs().max(1.0);
        y[j] += d;
        (PENDULUM.rhs(&y)[i] - f0[i]) / d
    });
    jac.complex_eigenvalues().iter().map(|l| l.re).fold(0.0, f64::min)
}

/// Sect. 4: the explicit Adams-Bashforth-Moulton scheme (eq. 20) is stable only below
/// h = 2/|lambda| of the stiff mode (the real stability interval of the Euler predictor with
/// one trapezoidal corrector is [-2, 0]); \[Negrut1997\] reports 1.2e-4 s. The implicit
/// trapezoidal rule runs at 1e-2 s.
#[test]
fn explicit_method_goes_unstable_where_the_stiff_mode_says_and_the_implicit_one_does_not() {
    let lambda = stiffest_eigenvalue(table2());
    let critical = 2.0 / lambda.abs();
    assert!((0.8e-4..1.5e-4).contains(&critical), "critical step {critical:.3e} ([Negrut1997]: 1.2e-4)");
    let reference = reference(table2(), 0.01, STOP);
    let stable = description("StiffDoublePendulum", Method::Abm2, 0.85 * critical);
    let (p, v, _, _) = errors(&stable, 0.01, &reference).expect("stable below the limit");
    assert!(p < 1e-4 && v < 1e-2, "ABM2 at 0.85 h_crit: errors {p:.2e}, {v:.2e}");
    let unstable = description("StiffDoublePendulum", Method::Abm2, 1.2 * critical);
    // Blown up: the solve of the dependent coordinates fails, or the velocities are off by
    // orders of magnitude.
    if let Some((_, v, _, _)) = errors(&unstable, 0.01, &reference) {
        assert!(v > 1.0, "ABM2 at 1.2 h_crit should be unstable, velocity error {v:.2e}");
    }
    let implicit = description("StiffDoublePendulum", Method::TrapezoidalConstantStep, 1e-2);
    let (p, _, n, _) = errors(&implicit, 0.01, &reference).expect("the implicit rule runs at 1e-2 s");
    assert_eq!(n, 10);
    assert!(p < 1e-4, "implicit trapezoidal at 1e-2 s: orientation error {p:.2e}");
}

/// Fig. 5 (errors in velocity): at equal accuracy the variable-step trapezoidal rule needs far
/// fewer steps and evaluations than the constant-step one, whose steps must resolve the
/// initial transient of the stiff mode everywhere.
#[test]
fn variable_step_needs_far_fewer_steps_than_constant_step_at_equal_error() {
    let reference = reference(table2(), 0.01, STOP);
    let mut d = description("StiffDoublePendulum", Method::TrapezoidalVariableStep, 0.1);
    d.solver.absolute_tolerance = Some(1e-3);
    d.solver.relative_tolerance = Some(1e-3);
    let (_, v_var, n_var, e_var) = errors(&d, 0.01, &reference).unwrap();
    // The largest constant step (halving from 1e-2 s) that is at least as accurate.
    let mut h = 1e-2;
    let (n_const, e_const) = loop {
        let d = description("StiffDoublePendulum", Method::TrapezoidalConstantStep, h);
        let (_, v, n, e) = errors(&d, 0.01, &reference).unwrap();
        if v <= v_var {
            break (n, e);
        }
        h /= 2.0;
        assert!(h > 1e-6, "no constant step reaches {v_var:.2e}");
    };
    assert!(n_const >= 4 * n_var, "steps: constant {n_const}, variable {n_var}");
    assert!(e_const >= 3 * e_var, "evaluations: constant {e_const}, variable {e_var}");
}

/// SDIRK4 meets the same tolerances with fewer steps than the trapezoidal rule at tight ones.
#[test]
fn sdirk4_meets_tight_tolerances_with_fewer_steps() {
    let reference = reference(table2(), 0.01, STOP);
    let run_at = |m: Method, tol: f64| {
        let mut d = description("StiffDoublePendulum", m, 0.1);
        d.solver.absolute_tolerance = Some(tol);
        d.solver.relative_tolerance = Some(tol);
        errors(&d, 0.01, &reference).unwrap()
    };
    for tol in [1e-4, 1e-6] {
        let (p, v, _, _) = run_at(Method::Sdirk4, tol);
        assert!(p <= tol && v <= 10.0 * tol, "sdirk4 tol {tol}: {p:.2e} {v:.2e}");
    }
    let (p4, _, n4, _) = run_at(Method::Sdirk4, 1e-7);
    let (p2, _, n2, _) = run_at(Method::TrapezoidalVariableStep, 1e-7);
    assert!(p4 <= 1e-7 && p2 <= 1e-7, "{p4:.2e} {p2:.2e}");
    assert!(4 * n4 < n2, "steps at 1e-7: sdirk4 {n4}, trapezoidal {n2}");
}

/// Table 3 (Fig. 6): link 2 starts spinning against the stiff damper; the initial
/// accelerations are extreme (\[Negrut1997\]: of the order of 1e6) and decay within milliseconds.
/// The variable-step run meets its tolerance at the end of the 3.6 s interval in every
/// generalized coordinate.
#[test]
fn extreme_initial_accelerations_are_resolved_by_the_step_control() {
    let a0 = PENDULUM.rhs(&table3());
    assert!(a0[3].abs() > 1e5, "initial angular acceleration of link 2: {:.2e}", a0[3]);
    let stop = 3.6;
    let reference = reference(table3(), stop, stop);
    let mut previous = f64::INFINITY;
    for tol in [1e-3, 1e-5] {
        let mut d = description("StiffDoublePendulumSpin", Method::TrapezoidalVariableStep, 0.1);
        d.solver.absolute_tolerance = Some(tol);
        d.solver.relative_tolerance = Some(tol);
        let (sim, out) = run(&d, stop, stop).expect("runs");
        // Largest error over the generalized coordinates at the end ([Negrut1997]'s Fig. 6
        // measure); a global error, within a small multiple of the local tolerance.
        let e = (0..2).map(|c| (out[1][c] - reference[1][c]).abs()).fold(0.0, f64::max);
        let ev = (2..4).map(|c| (out[1][c] - reference[1][c]).abs()).fold(0.0, f64::max);
        assert!(e <= 5.0 * tol && ev <= 50.0 * tol, "tol {tol}: errors {e:.2e}, {ev:.2e} at 3.6 s");
        assert!(e < previous, "the error falls with the tolerance");
        previous = e;
        let s = sim.formulation::<StateSpaceFormulation>().map(StateSpaceFormulation::solver).unwrap();
        assert!(s.counters.steps > 100, "the transient needs small steps: {:?}", s.counters);
    }
}

/// Variable-step runs land exactly on each communication point, also on an irregular grid
/// (the last step of an interval is shortened), and the values there are the solution's
/// (against the reference sampled at the same points), not an interpolation between steps.
#[test]
fn variable_step_runs_land_exactly_on_communication_points() {
    let dt = 3.7e-3; // 3700 reference steps of 1e-6 s: not a divisor of any step the control picks
    let n = 27;
    let reference = PENDULUM.rk4(table2(), 1e-6, 3700 * n, 3700);
    for m in [Method::TrapezoidalVariableStep, Method::Sdirk4] {
        let d = description("StiffDoublePendulum", m, 0.01);
        let mut sim = mbfmu_engine::Simulation::new(&d).unwrap();
        for (k, expected) in reference.iter().enumerate().skip(1) {
            let t = k as f64 * dt;
            sim.advance_to(t).unwrap();
            assert_eq!(sim.time(), t, "{}", m.item_name());
            let got = angles(&sim);
            // Atol = Rtol = 1e-5 in the catalog model, velocity tolerance ten times looser.
            assert!((got[1] - expected[1]).abs() < 1e-5, "{} t = {t}: {got:?} vs {expected:?}", m.item_name());
            assert!((got[3] - expected[3]).abs() < 1e-4, "{} t = {t}: {got:?} vs {expected:?}", m.item_name());
        }
        let s = sim.formulation::<StateSpaceFormulation>().map(StateSpaceFormulation::solver).unwrap();
        assert!(s.counters.steps >= n as u64, "{}: {:?}", m.item_name(), s.counters);
    }
}
