//! The explicit Runge-Kutta methods (RK4, DOPRI5, DOP853; \[HairerNorsettWanner1993, Sect. II.1,
//! II.5, II.10\]) on the minimal-coordinate formulations, state-space (catalog model
//! DoublePendulumStateSpace) and semirecursive (the catalog's DoublePendulum described with
//! `formulation: doubleStep`), on the \[Fang2023\] double pendulum against its
//! minimal-coordinate ODE integrated here with classical RK4 at a tiny step
//! (tests/common/mod.rs): the design orders 4, 5 and 8 at constant steps, and the error
//! control of the two embedded pairs.

use crate::common;

use common::{catalog, quantity, DoublePendulum};
use mbfmu_engine::semirecursive::Semirecursive;
use mbfmu_engine::statespace::StateSpaceFormulation;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{Description, Formulation, Method};

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

/// The double pendulum in `formulation`.
fn pendulum(formulation: Formulation) -> Description {
    match formulation {
        Formulation::StateSpace => catalog("DoublePendulumStateSpace"),
        f => {
            let mut d = common::without_joint_reactions(catalog("DoublePendulum"));
            d.solver.formulation = f;
            d
        }
    }
}

/// A run of `method` in `formulation` with largest step `h` and tolerances `tol` (absolute and
/// relative); returns the largest position error of bar 2's centre at `TIMES` and the steps
/// taken.
/// `d` for the dense-output tests: `method` at Atol = Rtol = `tol`, steps up to 0.1 s, and
/// dependent positions to round-off.
fn dense_setting(mut d: Description, method: Method, tol: f64) -> Description {
    d.solver.method = method;
    d.solver.step_size = 0.1;
    d.solver.absolute_tolerance = Some(tol);
    d.solver.relative_tolerance = Some(tol);
    d.solver.tolerance = 1e-14;
    d
}

fn run(formulation: Formulation, method: Method, h: f64, tol: f64, reference: &[[f64; 4]]) -> (f64, u64) {
    let mut d = pendulum(formulation);
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
        sim.advance_to(t).unwrap_or_else(|e| panic!("{formulation:?} {method:?} h = {h}: {e}"));
        worst = worst.max((sim.quantity(y) - p.y2(r)).abs()).max((sim.quantity(z) - p.z2(r)).abs());
    }
    let steps = match sim.formulation::<StateSpaceFormulation>() {
        Some(f) => f.solver().counters.steps,
        None => sim.steps(),
    };
    (worst, steps)
}

const MINIMAL: [Formulation; 3] =
    [Formulation::StateSpace, Formulation::SemirecursiveDoubleStep, Formulation::SemirecursivePenalty];

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
/// The semirecursive formulations integrate the same ODE in joint angles (no dependent
/// coordinates on this open chain; both items give the double-step ODE).
#[test]
fn explicit_methods_converge_with_their_design_orders() {
    let reference = reference();
    for formulation in MINIMAL {
        // Joint angles are far smoother coordinates than the state-space formulation's
        // partition of absolute ones: the same errors at steps four to five times longer.
        let ladders = if formulation == Formulation::StateSpace {
            [[2.5e-3, 1.25e-3, 6.25e-4], [2.5e-3, 1.25e-3, 6.25e-4], [1.25e-2, 1e-2, 0.25 / 30.0]]
        } else {
            [[1e-2, 5e-3, 2.5e-3], [1.25e-2, 6.25e-3, 0.25 / 60.0], [0.025, 0.25 / 12.0, 0.25 / 15.0]]
        };
        for ((method, order), steps) in
            [(Method::Rk4, 4.0), (Method::Dopri5, 5.0), (Method::Dop853, 8.0)].into_iter().zip(&ladders)
        {
            let runs: Vec<(f64, u64)> = steps.iter().map(|&h| run(formulation, method, h, 1e3, &reference)).collect();
            for (h, (_, n)) in steps.iter().zip(&runs) {
                // The embedded pairs' first steps grow to the largest one from the starting
                // step of [HairerNorsettWanner1993, Sect. II.4] (up to four short ones where
                // the start is at the origin of the coordinates).
                let expected = (TIMES[TIMES.len() - 1] / h).round() as u64;
                let start_up = if method == Method::Rk4 { 0 } else { 4 };
                assert!((expected..=expected + start_up).contains(n), "{formulation:?} {method:?}: {n} steps of {h}");
            }
            let errors: Vec<f64> = runs.iter().map(|r| r.0).collect();
            let p = common::order(steps, &errors);
            println!("{formulation:?} {method:?}: errors {errors:?} at {steps:?} s: order {p:.2}");
            assert!((order - 0.3..order + 3.5).contains(&p), "{formulation:?} {method:?}: order {p:.2} ({errors:?})");
        }
    }
}

/// Under error control the errors follow the tolerance (a global error over two seconds of a
/// swinging double pendulum, within a few hundred times the local tolerance on positions of
/// metres), and at tight tolerances the eighth-order method needs far fewer steps than the
/// fifth-order one (measured at 1e-9: 45 and 139).
#[test]
fn embedded_pairs_meet_their_tolerances() {
    let reference = reference();
    for formulation in [Formulation::StateSpace, Formulation::SemirecursiveDoubleStep] {
        let mut steps = Vec::new();
        for method in [Method::Dopri5, Method::Dop853] {
            let mut last = f64::INFINITY;
            for tol in [1e-5, 1e-7, 1e-9] {
                let (e, n) = run(formulation, method, 0.1, tol, &reference);
                println!("{formulation:?} {method:?} tol {tol:e}: error {e:.2e} m in {n} steps");
                assert!(e < 500.0 * tol, "{formulation:?} {method:?} tol {tol:e}: error {e:.2e}");
                assert!(
                    e < 0.1 * last,
                    "{formulation:?} {method:?}: the error falls with the tolerance ({e:.2e} after {last:.2e})"
                );
                last = e;
            }
            steps.push(run(formulation, method, 0.1, 1e-9, &reference).1);
        }
        assert!(2 * steps[1] < steps[0], "{formulation:?} steps at 1e-9: dopri5 {}, dop853 {}", steps[0], steps[1]);
    }
}

/// The internal steps a run has taken (the state-space solver counts its own).
fn steps_of(sim: &Simulation) -> u64 {
    match sim.formulation::<StateSpaceFormulation>() {
        Some(f) => f.solver().counters.steps,
        None => sim.steps(),
    }
}

/// A run of `method` in `formulation` (largest step 0.1 s, tolerances `tol`) over 2 s in
/// communication steps of `comm` (each end computed as k comm, as hosts do), with dense output
/// or without; returns the largest position error of bar 2's centre at those of `TIMES` that
/// are communication points, and the steps.
fn communicating(
    formulation: Formulation,
    method: Method,
    tol: f64,
    comm: f64,
    dense: bool,
    reference: &[[f64; 4]],
) -> (f64, u64) {
    let d = dense_setting(pendulum(formulation), method, tol);
    let (y, z) = (quantity(&d, "bar2.position.y"), quantity(&d, "bar2.position.z"));
    let mut sim = Simulation::new(&d).expect("the model builds");
    sim.set_dense_output(dense);
    let p = DoublePendulum::fang2023();
    let mut worst: f64 = 0.0;
    for k in 1..=(TIMES[TIMES.len() - 1] / comm).round() as usize {
        let t = k as f64 * comm;
        sim.advance_to(t).unwrap_or_else(|e| panic!("{formulation:?} {method:?}: {e}"));
        // The samples at `TIMES` that are communication points.
        if let Some(r) = TIMES.iter().position(|&s| (s - t).abs() < 1e-9).map(|i| &reference[i]) {
            worst = worst.max((sim.quantity(y) - p.y2(r)).abs()).max((sim.quantity(z) - p.z2(r)).abs());
        }
    }
    (worst, steps_of(&sim))
}

/// Dense output: at 1 ms communication steps the pairs take their natural steps past the
/// communication points and interpolate there \[HairerNorsettWanner1993, Sect. II.6, II.10\],
/// so that the communication grid no longer forces steps: over 2 s at most a few more than
/// the controller takes at 0.1 s communication steps (where a few land on the points), far
/// fewer than when each communication step ends with a step shortened to land on it; the
/// errors stay within the bound of `embedded_pairs_meet_their_tolerances`.
#[test]
fn dense_output_frees_the_steps_from_the_communication_grid() {
    let reference = reference();
    for formulation in [Formulation::SemirecursiveDoubleStep, Formulation::StateSpace] {
        for method in [Method::Dopri5, Method::Dop853] {
            for tol in [1e-7, 1e-9] {
                let (e_coarse, coarse) = communicating(formulation, method, tol, 0.1, true, &reference);
                let (e_dense, dense) = communicating(formulation, method, tol, 1e-3, true, &reference);
                let (e_short, short) = communicating(formulation, method, tol, 1e-3, false, &reference);
                println!(
                    "{formulation:?} {method:?} tol {tol:e}: 0.1 s communication {coarse} steps (error {e_coarse:.2e} m); \
                     1 ms with dense output {dense} steps ({e_dense:.2e} m), without {short} steps ({e_short:.2e} m)"
                );
                assert!(
                    dense <= coarse + coarse / 10 + 2,
                    "{formulation:?} {method:?} tol {tol:e}: {dense} steps, {coarse} at 0.1 s"
                );
                assert!(
                    5 * dense < short,
                    "{formulation:?} {method:?} tol {tol:e}: {dense} steps, {short} without dense output"
                );
                for e in [e_coarse, e_dense, e_short] {
                    assert!(e < 500.0 * tol, "{formulation:?} {method:?} tol {tol:e}: error {e:.2e}");
                }
            }
        }
    }
}

/// The catalog model `name` in `formulation` with `method` and tolerances `tol`, keeping the
/// outputs relative coordinates give.
fn minimal(name: &str, formulation: Formulation, method: Method, tol: f64) -> Description {
    let mut d = common::without_joint_reactions(catalog(name));
    d.solver.formulation = formulation;
    d.solver.method = method;
    d.solver.absolute_tolerance = Some(tol);
    d.solver.relative_tolerance = Some(tol);
    d.validate().expect("valid in the minimal-coordinate formulation");
    d
}

/// Andrews' squeezer (seven bodies, three loops closed by cut joints, one degree of freedom)
/// with DOP853 on the semirecursive double-step ODE: the seven angles at t = 0.03 s against the
/// published PSIDE solution of \[IVPTestSet\] (rtol = atol = 1e-14), and the rate of bar O-F.
/// Measured: 1.4e-9 rad at tolerance 1e-12 in 126 steps, about 10 ms of one core (8.4e-7 rad
/// at 1e-8 in 46 steps).
#[test]
fn andrews_squeezer_reaches_the_published_solution_to_1e_8() {
    const ANGLES: [&str; 7] = ["O.angle", "F.angle", "B.angle", "G.angle", "A_AG.angle", "H.angle", "A_AH.angle"];
    for (tol, bound) in [(1e-8, 1e-5), (1e-12, 1e-8)] {
        let mut d = minimal("AndrewsSqueezer", Formulation::SemirecursiveDoubleStep, Method::Dop853, tol);
        d.solver.step_size = 1e-3;
        d.solver.tolerance = 1e-14;
        let mut outputs: Vec<&str> = ANGLES.to_vec();
        outputs.push("O.angle_rate");
        let quantities: Vec<_> = outputs.iter().map(|n| quantity(&d, n)).collect();
        let start = std::time::Instant::now();
        let mut sim = Simulation::new(&d).expect("builds");
        sim.advance_to(0.03).expect("runs");
        let wall = start.elapsed().as_secs_f64();
        let values: Vec<f64> = quantities.iter().map(|q| sim.quantity(*q)).collect();
        let angles = (0..7).map(|k| (values[k] - common::andrews::PSIDE_003[k]).abs()).fold(0.0, f64::max);
        let rate = (values[7] - common::andrews::PSIDE_003[7]).abs() / common::andrews::PSIDE_003[7].abs();
        println!(
            "tol {tol:e}: angle error {angles:.2e} rad, rate {rate:.2e} relative, {} steps, {wall:.3} s",
            sim.steps()
        );
        assert!(angles < bound && rate < bound, "tol {tol:e}: angles {angles:.2e} rad, rate {rate:.2e}");
    }
}

/// Advances `sim` from `from` to `to` in communication steps of `comm` (ends k comm).
fn communicate(sim: &mut Simulation, from: f64, to: f64, comm: f64) {
    let first = (from / comm).round() as usize + 1;
    for k in first..=(to / comm).round() as usize {
        sim.advance_to(k as f64 * comm).expect("runs");
    }
}

/// A snapshot taken mid-run and restored continues bit for bit with every explicit method of
/// the semirecursive formulations, on a closed-loop mechanism (the step-size proposal is part
/// of the state; each advance starts by evaluating the ODE at the state it starts from), in one
/// advance per 10 ms and in communication steps of 0.25 ms inside the 1 ms steps: there the
/// pairs' snapshot holds a step pending past the communication point (dense output), which the
/// restored run continues.
#[test]
fn semirecursive_explicit_snapshots_continue_bit_for_bit() {
    for method in [Method::Rk4, Method::Dopri5, Method::Dop853, Method::Auto] {
        for comm in [0.01, 2.5e-4] {
            let mut d = minimal("AndrewsSqueezer", Formulation::SemirecursiveDoubleStep, method, 1e-8);
            d.solver.step_size = if method == Method::Rk4 { 2e-5 } else { 1e-3 };
            let mut sim = Simulation::new(&d).expect("builds");
            communicate(&mut sim, 0.0, 0.01, comm);
            let snapshot = sim.snapshot();
            let pending = sim.formulation::<Semirecursive>().expect("semirecursive").state.dense.pending;
            if comm < 1e-3 && matches!(method, Method::Dopri5 | Method::Dop853) {
                assert!(pending, "{method:?}: the snapshot holds a pending step");
            }
            communicate(&mut sim, 0.01, 0.02, comm);
            let mut other = Simulation::new(&d).expect("builds");
            other.restore(&snapshot).expect("restores");
            communicate(&mut other, 0.01, 0.02, comm);
            assert_eq!(other.state(), sim.state(), "{method:?} at {comm} s communication steps");
            assert_eq!(other.steps(), sim.steps(), "{method:?} at {comm} s communication steps");
        }
    }
}

/// The double pendulum in `formulation` with a torque input `drive` on bar 2 about the joint
/// axes (x): a model whose input may change at a communication point.
fn driven_pendulum(formulation: Formulation) -> Description {
    let name = if formulation == Formulation::StateSpace { "DoublePendulumStateSpace" } else { "DoublePendulum" };
    let mut json: serde_json::Value =
        serde_json::from_str(mbfmu_model::catalog::find(name).expect("catalog model").json).expect("JSON");
    json["forces"] = serde_json::json!([
        {"type": "torque", "name": "drive", "body": "bar2", "axis": [1.0, 0.0, 0.0], "input": "drive"}
    ]);
    json["interface"]["inputs"] = serde_json::json!([{"name": "drive", "unit": "N.m", "start": 0.0}]);
    let mut d = mbfmu_model::format::parse(&json.to_string()).expect("valid");
    if formulation != Formulation::StateSpace {
        d = common::without_joint_reactions(d);
        d.solver.formulation = formulation;
    }
    d
}

/// An input changed at a communication point restarts the pairs from the interpolated state
/// there, as after a step shortened to land on it: the state at the point is the one the
/// advance left (bit for bit, the time exactly the point), the run goes on as one whose pending
/// step was dropped at the point before the input was set (bit for bit), and it agrees with a
/// run that shortens its steps at every communication point (dense output off) at a tight
/// tolerance, to within the bound of `embedded_pairs_meet_their_tolerances`; the torque moves
/// the pendulum by far more than that.
#[test]
fn an_input_change_restarts_from_the_interpolated_state() {
    let (comm, t_change, t_end, torque) = (1e-3, 0.5, 1.0, 200.0);
    for formulation in [Formulation::StateSpace, Formulation::SemirecursiveDoubleStep] {
        for method in [Method::Dopri5, Method::Dop853] {
            let tol = 1e-9;
            let d = dense_setting(driven_pendulum(formulation), method, tol);
            let (y, z) = (quantity(&d, "bar2.position.y"), quantity(&d, "bar2.position.z"));
            let pending = |sim: &Simulation| match sim.formulation::<StateSpaceFormulation>() {
                Some(f) => f.solver().dense_pending(),
                None => sim.formulation::<Semirecursive>().expect("semirecursive").state.dense.pending,
            };
            // `change`: 0 none, 1 set the input, 2 drop the pending step first, then set it.
            let run = |change: u8, dense: bool| {
                let mut sim = Simulation::new(&d).expect("builds");
                sim.set_dense_output(dense);
                communicate(&mut sim, 0.0, t_change, comm);
                let before = sim.state().clone();
                assert_eq!(pending(&sim), dense, "{formulation:?} {method:?}");
                if change == 2 {
                    let snapshot = sim.snapshot();
                    sim = Simulation::new(&d).expect("builds");
                    sim.restore(&snapshot).expect("restores");
                    sim.set_dense_output(false);
                    sim.set_dense_output(true);
                    assert!(!pending(&sim), "{formulation:?} {method:?}: switching dense output drops the step");
                }
                if change > 0 {
                    sim.set_inputs(&[torque]).expect("sets");
                    assert_eq!(sim.time(), t_change);
                    assert_eq!(sim.state().bodies, before.bodies, "{formulation:?} {method:?}: the state at the point");
                    assert!(!pending(&sim), "{formulation:?} {method:?}: the input drops the step");
                }
                communicate(&mut sim, t_change, t_end, comm);
                (sim.quantity(y), sim.quantity(z), sim.state().clone())
            };
            let (ay, az, a) = run(1, true);
            let (_, _, b) = run(2, true);
            assert_eq!(a, b, "{formulation:?} {method:?}: the input change restarts as a dropped step does");
            let (sy, sz, _) = run(1, false);
            let (ny, nz, _) = run(0, true);
            let e = (ay - sy).abs().max((az - sz).abs());
            let moved = (ay - ny).abs().max((az - nz).abs());
            println!("{formulation:?} {method:?}: against shortened steps {e:.2e} m; the torque moves bar 2 by {moved:.2e} m");
            assert!(e < 500.0 * tol, "{formulation:?} {method:?}: {e:.2e} m from the shortened-step run");
            assert!(moved > 1e4 * e, "{formulation:?} {method:?}: the torque moves bar 2 by {moved:.2e} m");
        }
    }
}

/// `auto` on the stiff double pendulum of \[Negrut1997, Sect. 4\] (a rotational damper of
/// 1e4 N m s/rad): it starts with DOP853, finds the steps limited by stability, says so once
/// and goes on implicitly (SDIRK4 in state space, the trapezoidal rule in the semirecursive
/// formulation); the result agrees with a tight SDIRK4 run, at a fraction of DOP853's steps.
/// On the non-stiff double pendulum it stays DOP853, bit for bit.
#[test]
fn auto_switches_to_an_implicit_method_where_the_problem_is_stiff() {
    let t_end = 1.0;
    let angle = |d: &Description, sim: &Simulation| sim.quantity(quantity(d, "pivot.angle"));
    let reference = {
        let mut d = catalog("StiffDoublePendulum");
        d.solver.method = Method::Sdirk4;
        d.solver.absolute_tolerance = Some(1e-10);
        d.solver.relative_tolerance = Some(1e-10);
        let mut sim = Simulation::new(&d).expect("builds");
        sim.advance_to(t_end).expect("runs");
        angle(&d, &sim)
    };
    for formulation in [Formulation::StateSpace, Formulation::SemirecursiveDoubleStep] {
        let run = |method: Method| {
            let mut d = minimal("StiffDoublePendulum", formulation, method, 1e-6);
            d.solver.step_size = 1e-3;
            let mut sim = Simulation::new(&d).expect("builds");
            sim.advance_to(t_end).expect("runs");
            let notice = sim.take_notice();
            (angle(&d, &sim), sim.steps(), notice)
        };
        let (explicit, explicit_steps, none) = run(Method::Dop853);
        let (auto, auto_steps, notice) = run(Method::Auto);
        println!(
            "{formulation:?}: dop853 {explicit_steps} steps, error {:.2e}; auto {auto_steps} steps, error {:.2e}; {notice:?}",
            (explicit - reference).abs(),
            (auto - reference).abs()
        );
        assert!(none.is_none());
        let notice = notice.unwrap_or_else(|| panic!("{formulation:?}: auto did not switch"));
        assert!(notice.contains("became stiff") && notice.contains("from here on"), "{notice}");
        assert!(3 * auto_steps < explicit_steps, "{formulation:?}: auto {auto_steps} steps, dop853 {explicit_steps}");
        assert!((auto - reference).abs() < 1e-4, "{formulation:?}: auto {auto} rad, reference {reference} rad");
    }
    for formulation in MINIMAL {
        let result = |method: Method| {
            let mut d = pendulum(formulation);
            d.solver.method = method;
            let mut sim = Simulation::new(&d).expect("builds");
            sim.advance_to(2.0).expect("runs");
            assert!(sim.take_notice().is_none(), "{formulation:?} {method:?}: switched");
            sim.state().clone()
        };
        assert_eq!(result(Method::Auto), result(Method::Dop853), "{formulation:?}");
    }
}

/// A hydraulic circuit's pressures are stiff from the start: the explicit methods (and `auto`)
/// are refused for it with the method to choose.
#[test]
fn explicit_methods_refuse_a_hydraulic_circuit() {
    for method in [Method::Rk4, Method::Dopri5, Method::Dop853, Method::Auto] {
        let mut d = catalog("HydraulicFourBar");
        d.solver.method = method;
        let error = d.validate().expect_err("refused").to_string();
        assert!(error.contains("cannot integrate a hydraulic circuit") && error.contains("\"trapezoidal\""), "{error}");
    }
}
