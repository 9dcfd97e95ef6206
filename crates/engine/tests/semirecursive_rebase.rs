//! Spherical tree joints through the old singular band: the charts of the three joint
//! rotations are re-based at accepted steps (`semirecursive/chart.rs`). A motion whose middle
//! rotation would reach 90 degrees integrated by DOP853 and by the trapezoidal rule against
//! the index-3 formulation, energy conservation, the body states across a re-basing, and
//! snapshots taken before and after re-basings restored bit for bit.

use crate::common::quantity;
use crate::semirecursive_spherical::{chain, positions};
use mbfmu_engine::semirecursive::chart::REBASE;
use mbfmu_engine::semirecursive::kinematics::BodyKin;
use mbfmu_engine::semirecursive::{Semirecursive, Tree};
use mbfmu_engine::Simulation;
use mbfmu_model::format::{AngularVelocity, Description, Formulation, Method};
use nalgebra::Vector3;

/// NLinkChain4 with bar 4 released bending at 40 rad/s about its joint's second axis (normal
/// to its arm and to the first axis, which is normal to the arm and gravity): in the chart of
/// the start, bar 1's joint reaches a middle rotation of -84.8 degrees at 0.957 s (the bend
/// spreads up the chain), and a chart without re-basing is singular soon after.
fn bending(formulation: Formulation, method: Method, h: f64, tol: f64) -> Description {
    let mut d = chain("NLinkChain4", formulation, method, h, tol);
    d.solver.tolerance = 1e-11;
    let g = Vector3::from(d.gravity);
    let arm = Vector3::new(0.0, 0.0, -1.0);
    let e1 = arm.cross(&g).normalize();
    let e2 = arm.cross(&e1);
    let AngularVelocity::Body { body: spin } = d.bodies[3].angular_velocity else { panic!("body spin") };
    let w = e2 * 40.0 + arm * spin[0];
    d.bodies[3].angular_velocity = AngularVelocity::Global(w.into());
    d.bodies[3].velocity = w.cross(&arm).into();
    d
}

fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// Runs `d` to `t_end` in steps of 0.01 s: every bar's position, the energy drift relative to
/// the total, the re-basings (charts changed between communication points) and the largest
/// |sin b| of a middle rotation seen at a communication point.
fn run(d: &Description, t_end: f64) -> (Vec<f64>, f64, usize, f64) {
    let e = quantity(d, "total_energy");
    let mut sim = Simulation::new(d).expect("builds");
    let e0 = sim.quantity(e);
    let (mut rebased, mut proximity) = (0, 0.0f64);
    let mut charts = sim.formulation::<Semirecursive>().expect("semirecursive").state.charts.clone();
    let steps = (t_end / 0.01).round() as usize;
    for k in 1..=steps {
        sim.advance_to(k as f64 * 0.01).expect("runs through the old singular band");
        let f = sim.formulation::<Semirecursive>().expect("semirecursive");
        proximity = proximity.max(f.tree.gimbal_proximity(&f.state.z));
        rebased += charts.iter().zip(&f.state.charts).filter(|(a, b)| a != b).count();
        charts.clone_from(&f.state.charts);
    }
    let drift = (sim.quantity(e) - e0).abs() / e0.abs();
    (positions(d, &sim), drift, rebased, proximity)
}

/// Through the old singular band to 2 s (twice the time at which the start's chart reached
/// it). DOP853 at tolerance 1e-10 against the index-3 formulation with ESDIRK4(3)6L[2]SA_2 at
/// 5e-4 and 2.5e-4 s, whose error is second order in its step (it converges as
/// `semirecursive_spherical.rs` measures on NLinkChain32): Richardson's extrapolation of the
/// two, fine + (fine - coarse) / 3, is the reference, and the bound is a tenth of the index-3
/// runs' own difference. The trapezoidal rule at 2e-4 and 1e-4 s against DOP853: second order
/// through the re-basings (slope at least 1.8), its Richardson extrapolation within the same
/// bound. Energy: DOP853's drift within 1e-8 of the total, the trapezoidal rule's within 1e-4
/// (its error at these steps). Measured: DOP853 2.5e-5 m from the extrapolated index-3 runs
/// (which differ by 9.9e-4 m), the trapezoidal rule 2.4e-3 and 5.8e-4 m (order 2.03),
/// extrapolated 6.3e-5 m; drifts 5.4e-10 and 1.4e-5; 32 and 35 re-basings.
#[test]
fn motion_through_the_old_singular_band_matches_index3() {
    let t_end = 2.0;
    let d = bending(Formulation::SemirecursiveDoubleStep, Method::Dop853, 0.01, 1e-10);
    let (explicit, drift, rebased, proximity) = run(&d, t_end);
    let trapezoidal = |h: f64| run(&bending(Formulation::SemirecursiveDoubleStep, Method::Trapezoidal, h, 1.0), t_end);
    let (coarse_t, _, _, _) = trapezoidal(2e-4);
    let (fine_t, drift_implicit, rebased_implicit, proximity_implicit) = trapezoidal(1e-4);
    let reference = |h: f64| {
        let r = bending(Formulation::Index3, Method::Esdirk436L2Sa2, h, 1.0);
        let mut sim = Simulation::new(&r).expect("builds");
        sim.advance_to(t_end).expect("runs");
        positions(&r, &sim)
    };
    let richardson = |coarse: &[f64], fine: &[f64]| -> Vec<f64> {
        coarse.iter().zip(fine).map(|(c, f)| f + (f - c) / 3.0).collect()
    };
    let (coarse, fine) = (reference(5e-4), reference(2.5e-4));
    let own = max_difference(&coarse, &fine);
    let index3 = richardson(&coarse, &fine);
    let e_explicit = max_difference(&explicit, &index3);
    let (e_coarse_t, e_fine_t) = (max_difference(&coarse_t, &explicit), max_difference(&fine_t, &explicit));
    let order = (e_coarse_t / e_fine_t).log2();
    let e_extrapolated_t = max_difference(&richardson(&coarse_t, &fine_t), &explicit);
    println!(
        "through the band: DOP853 {e_explicit:.2e} m from the extrapolated index-3 runs (which differ by {own:.2e} m \
         between 5e-4 and 2.5e-4 s); trapezoidal {e_coarse_t:.2e} and {e_fine_t:.2e} m at 2e-4 and 1e-4 s from \
         DOP853 (order {order:.2}), extrapolated {e_extrapolated_t:.2e} m; energy drift {drift:.2e} (DOP853), \
         {drift_implicit:.2e} (trapezoidal 1e-4 s); re-basings {rebased} and {rebased_implicit}; largest |sin b| at \
         a communication point {proximity:.3} and {proximity_implicit:.3}"
    );
    assert!(rebased > 0 && rebased_implicit > 0, "no re-basing: the motion does not test it");
    // DOP853's communication points may lie inside a step pending past them (dense output),
    // whose chart is re-based at its end: past the threshold by what a step moves.
    assert!(proximity < 0.95 && proximity_implicit <= REBASE, "{proximity} {proximity_implicit}");
    assert!(e_explicit < 0.1 * own, "{e_explicit:.2e} m against {own:.2e} m");
    assert!(order > 1.8, "{order:.2}");
    assert!(e_extrapolated_t < 0.1 * own, "{e_extrapolated_t:.2e} m");
    assert!(drift < 1e-8, "{drift:.2e}");
    assert!(drift_implicit < 1e-4, "{drift_implicit:.2e}");
}

/// Every body's pose, velocity and acceleration before and after re-basing a state with the
/// middle rotations of all four joints past the threshold (at 1.2 rad, |sin b| = 0.93), with
/// rates and accelerations of order 1-10: the same to 1e-13 (round-off of a few products of
/// rotations; measured 6.3e-14).
#[test]
fn rebasing_keeps_the_physical_state() {
    let d = bending(Formulation::SemirecursiveDoubleStep, Method::Dop853, 0.01, 1e-10);
    let mut tree = Tree::from_description(&d).expect("compiles");
    let n = tree.n_coordinates();
    let mut z: Vec<f64> = (0..n).map(|k| if k % 3 == 1 { 1.2 } else { 0.3 * k as f64 - 1.0 }).collect();
    let mut zd: Vec<f64> = (0..n).map(|k| 2.0 - 0.7 * k as f64).collect();
    let mut zdd: Vec<f64> = (0..n).map(|k| 10.0 * (k as f64).sin()).collect();
    let kinematics = |tree: &Tree, z: &[f64], zd: &[f64], zdd: &[f64]| {
        let mut kin = vec![BodyKin::default(); n];
        tree.positions(z, &mut kin);
        tree.velocities(zd, &mut kin);
        tree.accelerations(zd, zdd, &mut kin);
        kin
    };
    let before = kinematics(&tree, &z, &zd, &zdd);
    let mut charts = tree.charts();
    let count = tree.rebase(&mut z, &mut zd, &mut zdd, &mut charts);
    assert_eq!(count, 4);
    assert!(!tree.needs_rebase(&z));
    assert_eq!(charts, tree.charts());
    let after = kinematics(&tree, &z, &zd, &zdd);
    // The bars (every third tree body): the intermediate bodies are massless and may turn.
    let mut worst: f64 = 0.0;
    for k in (2..n).step_by(3) {
        let (a, b) = (&before[k], &after[k]);
        worst = worst
            .max((a.r - b.r).amax())
            .max((a.rot - b.rot).amax())
            .max((a.vel - b.vel).amax() / 10.0)
            .max((a.acc - b.acc).amax() / 100.0);
    }
    println!("re-basing: largest change {worst:.2e} (positions, rotations; velocities / 10, accelerations / 100)");
    assert!(worst < 1e-13, "{worst:.2e}");
}

/// Re-basing after re-basing, as a long run does (hundreds per joint over minutes of the 32-bar
/// chain): every chart's rotation at zero stays a rotation, and each re-basing keeps the bars'
/// velocities. The product of a joint's three rotations drifts from a rotation by round-off;
/// before the chart took the nearest rotation, that drift was carried into the next chart's
/// axes and grew with every re-basing (here to overflow within the 300 rounds; on the 32-bar
/// chain to 3e-8 at 12.8 s, with jumps of bar 32's velocity of 9e-6 m/s at a re-basing, until
/// the energy ran away and the run failed at 18 s).
#[test]
fn repeated_rebasing_keeps_the_charts_rotations() {
    let d = bending(Formulation::SemirecursiveDoubleStep, Method::Dop853, 0.01, 1e-10);
    let mut tree = Tree::from_description(&d).expect("compiles");
    let n = tree.n_coordinates();
    let mut charts = tree.charts();
    let (mut orthogonality, mut velocity): (f64, f64) = (0.0, 0.0);
    for round in 0..300 {
        let phase = round as f64;
        let mut z: Vec<f64> = (0..n).map(|k| if k % 3 == 1 { 1.2 } else { (0.7 * k as f64 + phase).sin() }).collect();
        let mut zd: Vec<f64> = (0..n).map(|k| 5.0 * (1.3 * k as f64 + phase).cos()).collect();
        let mut zdd = vec![0.0; n];
        let bar_velocities = |tree: &Tree, z: &[f64], zd: &[f64]| {
            let mut kin = vec![BodyKin::default(); n];
            tree.positions(z, &mut kin);
            tree.velocities(zd, &mut kin);
            kin.iter().skip(2).step_by(3).map(|k| k.com_velocity()).collect::<Vec<_>>()
        };
        let before = bar_velocities(&tree, &z, &zd);
        assert_eq!(tree.rebase(&mut z, &mut zd, &mut zdd, &mut charts), 4);
        let after = bar_velocities(&tree, &z, &zd);
        velocity = before.iter().zip(&after).map(|(a, b)| (a - b).amax()).fold(velocity, f64::max);
        for c in &charts {
            for r in &c.relative0 {
                let m = nalgebra::Matrix3::from_row_slice(r);
                orthogonality = orthogonality.max((m.transpose() * m - nalgebra::Matrix3::identity()).amax());
            }
        }
    }
    println!("300 re-basings of four joints: charts orthogonal to {orthogonality:.2e}, bar velocities kept to {velocity:.2e} m/s");
    assert!(orthogonality < 1e-14, "{orthogonality:.2e}");
    assert!(velocity < 1e-12, "{velocity:.2e}");
}

/// Snapshots restored across re-basings continue bit for bit: one taken before the first
/// re-basing and restored after several, and one taken after re-basings and restored into a
/// fresh instance (whose tree has the start's charts), each run on to the same end as the
/// uninterrupted run; DOP853 (with a step pending past the communication point) and the
/// trapezoidal rule (with its kept tangent).
#[test]
fn snapshots_restore_across_rebasing_bit_for_bit() {
    for (method, h) in [(Method::Dop853, 0.01), (Method::Trapezoidal, 1e-3)] {
        let d = bending(Formulation::SemirecursiveDoubleStep, method, h, 1e-10);
        let mut sim = Simulation::new(&d).expect("builds");
        sim.advance_to(0.05).expect("runs");
        let early = sim.snapshot();
        let charts0 = sim.formulation::<Semirecursive>().expect("semirecursive").state.charts.clone();
        sim.advance_to(1.2).expect("runs");
        let late = sim.snapshot();
        let charts1 = sim.formulation::<Semirecursive>().expect("semirecursive").state.charts.clone();
        assert_ne!(charts0, charts1, "{method:?}: no re-basing by 1.2 s");
        sim.advance_to(1.5).expect("runs");
        let end = sim.snapshot();
        let out = positions(&d, &sim);
        // Back to before the first re-basing, in the same instance.
        sim.restore(&early).expect("restores");
        sim.advance_to(1.2).expect("runs");
        assert!(sim.snapshot() == late, "{method:?}: the run from the early snapshot differs at 1.2 s");
        sim.advance_to(1.5).expect("runs");
        assert!(sim.snapshot() == end, "{method:?}: the run from the early snapshot differs at 1.5 s");
        // After re-basings, into a fresh instance.
        let mut fresh = Simulation::new(&d).expect("builds");
        fresh.restore(&late).expect("restores");
        assert!(fresh.snapshot() == late, "{method:?}: the restored state differs");
        fresh.advance_to(1.5).expect("runs");
        assert!(fresh.snapshot() == end, "{method:?}: the restored run differs at 1.5 s");
        assert_eq!(positions(&d, &fresh), out, "{method:?}");
        println!("{method:?}: restored runs identical to the bit (charts changed by 1.2 s)");
    }
}

/// A Model Exchange host through the old singular band: RK4 at 2e-4 s on the ODE to 2 s,
/// asking after every step whether the model wants a step event and reading the states again
/// when its update changed them (the re-basings), against co-simulation with DOP853 at 1e-10.
/// Measured: 34 step events, each a re-basing that changed the states; bar positions 6.9e-8 m
/// from co-simulation (RK4's error at this step).
#[test]
fn a_model_exchange_host_follows_the_rebasing_step_events() {
    let d = bending(Formulation::SemirecursiveDoubleStep, Method::Dop853, 0.01, 1e-10);
    let (reference, _, _, _) = run(&d, 2.0);
    let mut sim = Simulation::new(&d).expect("builds");
    sim.ode_activate();
    sim.ode_event().expect("initial event");
    let n = sim.ode_len();
    let (mut x, mut y) = (vec![0.0; n], vec![0.0; n]);
    let mut k: [Vec<f64>; 4] = std::array::from_fn(|_| vec![0.0; n]);
    sim.ode_state(&mut x);
    let (h, steps) = (2e-4, 10_000);
    let (mut step_events, mut changed) = (0, 0);
    for s in 0..steps {
        let t = s as f64 * h;
        for (stage, c) in [0.0, 0.5, 0.5, 1.0].into_iter().enumerate() {
            for i in 0..n {
                y[i] = x[i] + if stage == 0 { 0.0 } else { c * h * k[stage - 1][i] };
            }
            sim.set_ode_time(t + c * h);
            sim.set_ode_state(&y);
            sim.ode_derivatives(&mut k[stage]).unwrap_or_else(|e| panic!("at {t}: {e}"));
        }
        for i in 0..n {
            x[i] += h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
        }
        sim.set_ode_time((s + 1) as f64 * h);
        sim.set_ode_state(&x);
        if sim.ode_completed_step().expect("completed step") {
            step_events += 1;
            if sim.ode_event().expect("event update") {
                changed += 1;
                sim.ode_state(&mut x);
            }
        }
    }
    let error = max_difference(&positions(&d, &sim), &reference);
    println!("Model Exchange host (RK4 at 2e-4 s): {step_events} step events, {changed} changed the states; bar positions at 2 s {error:.2e} m from co-simulation");
    assert!(changed > 0 && changed == step_events, "{step_events} {changed}");
    assert!(error < 1e-6, "{error:.2e} m");
}
