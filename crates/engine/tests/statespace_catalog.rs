//! Every planar and spatial mechanism of the catalog in the state-space formulation (\[Negrut1997\]
//! Sect. 1): its degrees of freedom, agreement with the index-3 formulation, re-chosen
//! partitions, the 32-link chain, and bit-identical snapshots.

use mbfmu_engine::index3::Mechanism;
use mbfmu_engine::statespace::StateSpaceFormulation;
use mbfmu_engine::Simulation;
use mbfmu_model::catalog::CATALOG;
use mbfmu_model::format::{self, Description, Formulation, Method};
use mbfmu_model::variables::{interface_of, Binding, Quantity};

fn index3_catalog() -> Vec<Description> {
    CATALOG
        .iter()
        .map(|e| format::parse(e.json).unwrap())
        // Beams are elements of the index-3 formulation only.
        .filter(|d| d.solver.formulation == Formulation::Index3 && d.beams.is_empty())
        .collect()
}

fn state_space(d: &Description, method: Method, tol: f64) -> Description {
    let mut ss = d.clone();
    ss.solver.formulation = Formulation::StateSpace;
    ss.solver.method = method;
    ss.solver.step_size = d.experiment.step;
    ss.solver.absolute_tolerance = Some(tol);
    ss.solver.relative_tolerance = Some(tol);
    ss.validate().expect("a catalog model in the state-space formulation is valid");
    ss
}

#[test]
fn the_description_predicts_the_degrees_of_freedom_of_the_compiled_mechanism() {
    let mut all: Vec<Description> = CATALOG.iter().map(|e| format::parse(e.json).unwrap()).collect();
    all.push(mbfmu_model::catalog::chain::n_link_chain(32, mbfmu_model::catalog::chain::CATALOG_SEED));
    for d in all {
        let m = Mechanism::from_description(&d).unwrap();
        assert_eq!(d.constraint_count(), m.n_constraints(), "{}", d.name);
        assert_eq!(d.degrees_of_freedom(), m.dof(), "{}", d.name);
        let iface = interface_of(&d).unwrap();
        let states = iface.states().count();
        if d.solver.formulation == Formulation::StateSpace {
            assert_eq!(states as isize, 2 * m.dof(), "{}: continuous states", d.name);
            assert_eq!(iface.derivatives().count(), states);
        } else if d.solver.formulation.is_semirecursive() {
            // Their states: tests/semirecursive_model_exchange.rs.
            assert!(states > 0, "{}", d.name);
        } else {
            assert_eq!(states, 0, "{}: index-3 models have no Model Exchange states", d.name);
        }
    }
}

/// Kinematic outputs (positions, velocities, joint coordinates).
fn kinematic(q: &Quantity) -> bool {
    matches!(
        q,
        Quantity::BodyPosition { .. }
            | Quantity::BodyVelocity { .. }
            | Quantity::BodyAngularVelocity { .. }
            | Quantity::BodyOrientation { .. }
            | Quantity::JointAngle { .. }
            | Quantity::JointAngleRate { .. }
            | Quantity::JointPosition { .. }
            | Quantity::JointVelocity { .. }
    )
}

/// The same mechanism, same outputs: the state-space run (SDIRK4, tight tolerance) against
/// the index-3 run (ESDIRK4(3)6L[2]SA2 at a tenth of the model's step for spatial models) over
/// the first second of the default experiment. Differences are relative to each output's
/// range over the run.
///
/// Coulomb friction is held over each step from the previous step's multipliers (\[Fang2023\]
/// Sect. 3.4), an explicit first-order lag whose size is the step: for a model with friction
/// both formulations take the communication step as their step, and the forces, which jump
/// when the slider reverses, agree only to that lag (10 %) while the kinematics, prescribed
/// by the crank drive, agree tightly.
#[test]
fn every_catalog_mechanism_agrees_with_its_index3_result() {
    let mut repartitioned = 0;
    for d in index3_catalog() {
        if d.bodies.len() > 8 {
            continue; // the 32-link chain: see the_state_space_formulation_runs_the_32_link_chain
        }
        let friction = d.joints.iter().any(|j| j.friction.is_some());
        let ss = state_space(&d, Method::Sdirk4, 1e-9);
        let mut idx = d.clone();
        idx.solver.method = Method::Esdirk436L2Sa2;
        idx.solver.step_size = if friction {
            d.experiment.step
        } else if d.plane.is_some() {
            d.solver.step_size
        } else {
            d.solver.step_size / 10.0
        };
        let outputs: Vec<(String, Quantity)> = interface_of(&d)
            .unwrap()
            .outputs()
            .filter_map(|v| match v.binding {
                // Solver statistics and the methods' own error measures are not compared.
                Binding::Output(q)
                    if !matches!(
                        q,
                        Quantity::NewtonIterations
                            | Quantity::Steps
                            | Quantity::EnergyBalance
                            | Quantity::ConstraintViolation
                    ) =>
                {
                    Some((v.name.clone(), q))
                }
                _ => None,
            })
            .collect();
        let mut a = Simulation::new(&ss).unwrap();
        let mut b = Simulation::new(&idx).unwrap();
        let n = ((d.experiment.stop - d.experiment.start).min(1.0) / d.experiment.step).round() as usize;
        let (mut diff, mut range) = (vec![0.0f64; outputs.len()], vec![0.0f64; outputs.len()]);
        for k in 1..=n {
            let t = d.experiment.start + k as f64 * d.experiment.step;
            a.advance_to(t).unwrap_or_else(|e| panic!("{} state space: {e}", d.name));
            b.advance_to(t).unwrap_or_else(|e| panic!("{} index 3: {e}", d.name));
            for (i, (_, q)) in outputs.iter().enumerate() {
                let (mut x, y) = (a.quantity(*q), b.quantity(*q));
                // A quaternion is output with e0 >= 0: near half a turn (e0 = 0) the two
                // formulations may give its two signs, which are the same rotation.
                if let Quantity::BodyOrientation { body, .. } = *q {
                    let e = |s: &Simulation, c| s.quantity(Quantity::BodyOrientation { body, component: c });
                    if (0..4).map(|c| e(&a, c) * e(&b, c)).sum::<f64>() < 0.0 {
                        x = -x;
                    }
                }
                diff[i] = diff[i].max((x - y).abs());
                range[i] = range[i].max(y.abs());
            }
        }
        for (i, (name, q)) in outputs.iter().enumerate() {
            let relative = diff[i] / range[i].max(1e-6);
            let limit = match (kinematic(q), friction) {
                (true, _) => 1e-5,
                (false, false) => 1e-3,
                (false, true) => 0.1,
            };
            assert!(relative <= limit, "{} {name}: relative difference {relative:.2e}", d.name);
        }
        repartitioned +=
            a.formulation::<StateSpaceFormulation>().map(StateSpaceFormulation::solver).unwrap().counters.repartitions;
    }
    assert!(repartitioned > 0, "some catalog mechanism must need a new partition within a second");
}

/// The 96 degrees of freedom of the 32-link chain: 0.2 s with the explicit method (the
/// chain is not stiff) conserves energy to the method's accuracy.
#[test]
fn the_state_space_formulation_runs_the_32_link_chain() {
    let d = mbfmu_model::catalog::chain::n_link_chain(32, mbfmu_model::catalog::chain::CATALOG_SEED);
    let ss = state_space(&d, Method::Abm2, 1e-6);
    let mut sim = Simulation::new(&ss).unwrap();
    assert_eq!(sim.formulation::<StateSpaceFormulation>().map(StateSpaceFormulation::solver).unwrap().dof(), 96);
    let energy = |s: &Simulation| s.quantity(Quantity::KineticEnergy) + s.quantity(Quantity::PotentialEnergy);
    let e0 = energy(&sim);
    sim.advance_to(0.2).unwrap();
    let drift = (energy(&sim) - e0).abs() / e0.abs().max(1.0);
    assert!(drift < 1e-3, "energy drift {drift:.2e}");
}

/// A snapshot taken mid-run and restored continues bit for bit, for every method (the
/// controller, the Newton matrix parts and the warm start are part of the snapshot), in one
/// advance each way and, for the variable-step methods, in communication steps of 5 ms inside
/// steps of up to 10 ms: there DOPRI5's and DOP853's snapshot holds a step pending past the
/// communication point (dense output), which the restored run continues.
#[test]
fn state_space_snapshots_continue_bit_for_bit() {
    let base = format::parse(mbfmu_model::catalog::find("DoublePendulumStateSpace").unwrap().json).unwrap();
    fn solver(sim: &Simulation) -> &mbfmu_engine::statespace::StateSpace {
        sim.formulation::<StateSpaceFormulation>().map(StateSpaceFormulation::solver).unwrap()
    }
    for &m in Method::STATE_SPACE {
        let grids: &[f64] = if m.variable_step() { &[0.5, 5e-3] } else { &[0.5] };
        for &comm in grids {
            let mut d = base.clone();
            d.solver.method = m;
            d.solver.step_size = if m == Method::Abm2 { 1e-3 } else { 1e-2 };
            let advance = |sim: &mut Simulation, from: f64, to: f64| {
                for k in (from / comm).round() as usize + 1..=(to / comm).round() as usize {
                    sim.advance_to(k as f64 * comm).unwrap();
                }
            };
            let mut sim = Simulation::new(&d).unwrap();
            advance(&mut sim, 0.0, 0.5);
            let snap = sim.snapshot();
            if comm < 0.5 && matches!(m, Method::Dopri5 | Method::Dop853) {
                assert!(solver(&sim).dense_pending(), "{}: the snapshot holds a pending step", m.item_name());
            }
            advance(&mut sim, 0.5, 1.5);
            let first = sim.state().clone();
            let counters = solver(&sim).counters;
            let mut other = Simulation::new(&d).unwrap();
            other.restore(&snap).unwrap();
            advance(&mut other, 0.5, 1.5);
            assert_eq!(other.state(), &first, "{} at {comm} s communication steps", m.item_name());
            assert_eq!(solver(&other).counters, counters);
            assert!(counters.repartitions > 0, "{}: the run crosses a new partition", m.item_name());
        }
    }
}

/// Model Exchange reads derivatives after each input change: an input set alone
/// (`set_input`, what the slave does for one FMU variable) must bring the ODE to the new
/// input exactly as setting all inputs at once does, and change the derivatives.
#[test]
fn an_input_change_reaches_the_ode_derivatives() {
    // The double pendulum in the state-space formulation with a horizontal force on bar 2 as input.
    let mut json: serde_json::Value =
        serde_json::from_str(mbfmu_model::catalog::find("DoublePendulum").unwrap().json).unwrap();
    json["solver"]["formulation"] = "state_space".into();
    json["solver"]["method"] = "trapezoidal_variable_step".into();
    json["forces"] = serde_json::json!([{ "type": "force", "name": "push", "body": "bar2", "direction": [0.0, 1.0, 0.0], "input": "push" }]);
    json["interface"]["inputs"] = serde_json::json!([{ "name": "push", "unit": "N", "start": 0.0, "description": "" }]);
    let d = format::parse(&json.to_string()).unwrap();
    let n = Simulation::new(&d).unwrap().ode_len();
    assert_eq!(n, 4, "two degrees of freedom");
    let derivatives = |sim: &mut Simulation| {
        let mut dx = vec![0.0; n];
        sim.ode_derivatives(&mut dx).unwrap();
        dx
    };
    let mut one = Simulation::new(&d).unwrap();
    let before = derivatives(&mut one);
    let force = one.inputs()[0] + 50.0;
    one.set_input(0, force).unwrap();
    let after = derivatives(&mut one);
    assert_ne!(before, after, "the load force did not reach the derivatives");
    let mut all = Simulation::new(&d).unwrap();
    all.set_inputs(&[force]).unwrap();
    assert_eq!(after, derivatives(&mut all));
}
