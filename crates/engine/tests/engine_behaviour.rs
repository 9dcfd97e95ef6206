//! Qualitative behaviour the cited papers report: energy ([Fang2023, Fig. 3]),
//! constraint satisfaction after every step, Coulomb friction (Sect. 3.4, Fig. 9).

use crate::common;

use common::{catalog, grid, sample};
use mbfmu_engine::Simulation;
use mbfmu_model::format::{Method, Motion};
use mbfmu_model::variables::{interface_of, Binding};

#[test]
fn double_pendulum_energy_half_implicit_oscillates_without_trend_and_bdf1_decays() {
    let d = catalog("DoublePendulum");
    let times = grid(0.0, 0.01, 1000);
    let e0 = common::DoublePendulum::fang2023().energy(&[std::f64::consts::FRAC_PI_2, 0.0, 0.0, 0.0]);

    let hi: Vec<f64> =
        sample(&d, Method::HalfImplicit, 1e-3, 1e-10, &times, &["total_energy"]).iter().map(|o| o[0]).collect();
    let amplitude = hi.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let (first, second) = (mean(&hi[..500]), mean(&hi[500..]));
    println!("half-implicit: max |E - E0| = {amplitude:.3} J, mean over 0-5 s {first:.3}, over 5-10 s {second:.3}");
    // Bounded: well under 1 % of |E0| at h = 1e-3 ...
    assert!(amplitude < 0.01 * e0.abs(), "energy deviation {amplitude} J");
    // ... and no drift: the two halves have the same mean within a fraction of the band.
    assert!((first - second).abs() < 0.25 * amplitude, "trend: {first} vs {second}");

    let be: Vec<f64> = sample(&d, Method::Bdf1, 1e-3, 1e-10, &times, &["total_energy"]).iter().map(|o| o[0]).collect();
    let mut previous = e0;
    for (t, e) in times.iter().zip(&be) {
        assert!(*e <= previous + 1e-9, "backward Euler energy rose at t = {t}: {previous} -> {e}");
        previous = *e;
    }
    println!("backward Euler: E0 = {e0:.3} J, E(10 s) = {previous:.3} J");
    assert!(previous < e0 - 100.0, "backward Euler should dissipate strongly (E = {previous})");
}

#[test]
fn chain_energy_is_conserved_by_the_half_implicit_method() {
    let d = catalog("NLinkChain32");
    let times = grid(0.0, 0.01, 300);
    let out = sample(&d, Method::HalfImplicit, 1e-3, 1e-7, &times, &["total_energy", "kinetic_energy"]);
    let e0 = {
        let sim = Simulation::new(&d).unwrap();
        sim.quantity(mbfmu_model::format::Quantity::TotalEnergy)
    };
    let kinetic_peak = out.iter().map(|o| o[1]).fold(0.0, f64::max);
    let drift = out.iter().map(|o| (o[0] - e0).abs()).fold(0.0, f64::max);
    println!("N = 32 chain: peak kinetic energy {kinetic_peak:.1} J, max |E - E0| {drift:.3} J");
    assert!(kinetic_peak > 1e3, "the chain moves");
    // No dissipation: the energy error of the symplectic scheme stays a small fraction of
    // the energy that is exchanged.
    assert!(drift < 0.01 * kinetic_peak, "energy drift {drift} J vs kinetic peak {kinetic_peak} J");
}

#[test]
fn position_constraints_hold_to_the_newton_tolerance_after_every_step() {
    for entry in mbfmu_model::catalog::CATALOG {
        let d = mbfmu_model::format::parse(entry.json).unwrap();
        // Index-3 methods on index-3 models (the state-space ones: tests/statespace_*.rs).
        if d.solver.formulation != mbfmu_model::format::Formulation::Index3 {
            continue;
        }
        let tol = d.solver.tolerance;
        let n = ((d.experiment.stop - d.experiment.start) / d.experiment.step).round() as usize;
        let times = grid(d.experiment.start, d.experiment.step, n);
        // The methods the model offers (semirecursive models: the trapezoidal rule); models
        // without a mechanism have no constraints.
        let iface = interface_of(&d).unwrap();
        if iface.by_name("constraint_violation").is_none() {
            continue;
        }
        let offered = iface.methods;
        for method in [Method::HalfImplicit, Method::Bdf1, Method::Trapezoidal] {
            if !offered.contains(&method) || (method == Method::Trapezoidal && offered.len() > 1) {
                continue;
            }
            // The half-implicit method treats the elastic forces explicitly: on a beam model
            // it is stable only at steps below the beams' shortest period, far below the
            // model's step.
            if method == Method::HalfImplicit && !d.beams.is_empty() {
                continue;
            }
            let out = sample(&d, method, d.solver.step_size, tol, &times, &["constraint_violation"]);
            let worst = out.iter().map(|o| o[0]).fold(0.0, f64::max);
            assert!(
                worst <= 10.0 * tol,
                "{} {method:?}: constraint violation {worst:.3e} > 10 x tolerance {tol:.1e}",
                entry.name
            );
        }
    }
}

/// Friction force, slider velocity and crank driving torque of the frictional slider-crank
/// with coefficient `mu`, sampled every millisecond over 2 s ([Fang2023, Fig. 9]).
fn friction_run(mu: f64) -> Vec<Vec<f64>> {
    let mut d = catalog("SliderCrankFriction");
    d.joints.iter_mut().find(|j| j.name == "slide").unwrap().friction.as_mut().unwrap().coefficient = mu;
    sample(
        &d,
        Method::HalfImplicit,
        1e-3,
        1e-10,
        &grid(0.0, 1e-3, 2000),
        &[
            "slide.friction_force",
            "slide.velocity",
            "crank_drive.effort",
            "slide.reaction_force.y",
            "slide.reaction_force.z",
        ],
    )
}

#[test]
fn coulomb_friction_opposes_sliding_and_widens_the_driving_torque_swing() {
    let swing = |out: &[Vec<f64>]| {
        let tail = &out[1000..];
        tail.iter().map(|o| o[2]).fold(f64::MIN, f64::max) - tail.iter().map(|o| o[2]).fold(f64::MAX, f64::min)
    };
    let free = friction_run(0.0);
    assert!(free.iter().all(|o| o[0] == 0.0), "no friction force with mu = 0");
    let mut swings = vec![swing(&free)];
    for mu in [0.2, 0.4] {
        let out = friction_run(mu);
        let mut sliding = 0;
        for (k, o) in out.iter().enumerate() {
            // The output is the force acting over the next step: from this sample's velocity
            // and multipliers ([Fang2023, Sect. 3.4]: explicit, previous-step normal force).
            let (force, v, normal) = (o[0], o[1], o[3].hypot(o[4]));
            if v.abs() > 1e-3 {
                sliding += 1;
                assert!(force * v < 0.0, "mu {mu} sample {k}: friction {force} N does not oppose v = {v}");
                assert!(
                    (force.abs() - mu * normal).abs() <= 1e-9 * (1.0 + normal),
                    "mu {mu} sample {k}: |F| {} vs mu N {}",
                    force.abs(),
                    mu * normal
                );
            }
        }
        assert!(sliding > 1800, "mu {mu}: the slider should slide most of the time ({sliding} samples)");
        swings.push(swing(&out));
    }
    println!("driving torque swing over 1-2 s for mu = 0, 0.2, 0.4: {swings:?}");

    assert!(swings[0] < swings[1] && swings[1] < swings[2], "swing should grow with mu: {swings:?}");
}

#[test]
fn an_input_rate_driver_follows_its_input() {
    // FourLink's rotor rate is the input rotor_speed: doubling it doubles the rotor angle rate.
    let d = catalog("FourLink");
    let iface = interface_of(&d).unwrap();
    assert!(matches!(d.drivers[0].motion, Motion::InputRate { .. }));
    let input = iface.by_name("rotor_speed").unwrap();
    let index = match input.binding {
        Binding::Input { index } => index,
        _ => unreachable!(),
    };
    let mut sim = Simulation::new(&d).unwrap();
    let mut inputs = sim.inputs().to_vec();
    inputs[index] = 2.0 * std::f64::consts::PI;
    sim.set_inputs(&inputs).unwrap();
    sim.advance_to(0.25).unwrap();
    let rate = sim.quantity(mbfmu_model::format::Quantity::JointAngleRate { joint: 0 });
    let angle = sim.quantity(mbfmu_model::format::Quantity::JointAngle { joint: 0 });
    assert!((rate - 2.0 * std::f64::consts::PI).abs() < 1e-6, "rate {rate}");
    assert!((angle - (std::f64::consts::FRAC_PI_2 + 0.5 * std::f64::consts::PI)).abs() < 1e-8, "angle {angle}");
}

/// A host that computes its communication points as k * H (FMPy, OMSimulator) with H equal to
/// the solver step gets exactly one internal step per communication step, also late in a run
/// where the span k H - (k-1) H differs from H by ulps of t. Half steps would double the cost
/// of those intervals and change the result.
#[test]
fn communication_steps_equal_to_the_solver_step_take_one_internal_step() {
    for (model, h) in [("DoublePendulum", 1e-3), ("HydraulicFourBar", 1e-3), ("SliderCrank", 1e-4)] {
        let mut d = catalog(model);
        d.solver.step_size = h;
        let mut sim = Simulation::new(&d).unwrap();
        let n = (10.0 / h).round() as u64;
        let mut uneven = 0;
        for k in 1..=n {
            let t = k as f64 * h;
            uneven += u64::from((t - (k - 1) as f64 * h) != h);
            sim.advance_to(t).unwrap();
        }
        println!("{model}: {n} communication steps ({uneven} not exactly H), {} internal steps", sim.steps());
        assert!(uneven > n / 10, "the grid must exercise the round-off");
        assert_eq!(sim.steps(), n, "{model}");
    }
}
