//! Spherical tree joints in the semirecursive formulation (three joint rotations in series,
//! `semirecursive/spherical.rs`), on the \[Fang2023\] chains: against the index-3 formulation
//! at a small step of a fourth-order method, energy conservation, the distance to gimbal lock
//! over the run, and the compile errors of unsupported tree joints.

use crate::common;
use common::{catalog, quantity};
use mbfmu_engine::semirecursive::Semirecursive;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{BodyQuantity, Description, Formulation, JointKind, Method, OutputSpec};

/// The catalog chain `name` in the semirecursive formulation, with every bar's position as
/// outputs, integrated by `method` at tolerances `tol` with steps up to `h`.
fn chain(name: &str, formulation: Formulation, method: Method, h: f64, tol: f64) -> Description {
    let mut d = common::without_joint_reactions(catalog(name));
    d.solver.formulation = formulation;
    d.solver.method = method;
    d.solver.step_size = h;
    d.solver.absolute_tolerance = Some(tol);
    d.solver.relative_tolerance = Some(tol);
    let bars: Vec<String> = d.bodies.iter().map(|b| b.name.clone()).collect();
    d.interface.outputs.retain(|o| !matches!(o, OutputSpec::Body { .. }));
    for b in bars {
        d.interface.outputs.push(OutputSpec::Body {
            body: b,
            point: None,
            name: None,
            quantities: vec![BodyQuantity::Position],
        });
    }
    d
}

/// Every bar's centre of mass at `t` (3 per bar).
fn positions(d: &Description, sim: &Simulation) -> Vec<f64> {
    d.bodies
        .iter()
        .flat_map(|b| ["x", "y", "z"].map(|c| sim.quantity(quantity(d, &format!("{}.position.{c}", b.name)))))
        .collect()
}

/// NLinkChain32 over its default experiment, 3 s: DOP853 at tolerance 1e-10 on the 96 joint
/// rotations against the index-3 formulation with ESDIRK4(3)6L[2]SA_2 at 5e-4 s. Measured:
/// 3.4e-6 m, all in the index-3 run's own error (its z positions move by 1.0e-5 m from 1e-3 to
/// 5e-4 s, a second-order convergence towards this run: Richardson's extrapolation of the two
/// meets it to 2e-8 m); energy drift 5.6e-10 of the total; the largest middle rotation of a
/// spherical joint 68 degrees (|sin| 0.929), 16 degrees short of the refused margin.
#[test]
fn chain32_matches_index3_and_conserves_energy() {
    let d = chain("NLinkChain32", Formulation::SemirecursiveDoubleStep, Method::Dop853, 0.01, 1e-10);
    let e = quantity(&d, "total_energy");
    let mut sim = Simulation::new(&d).expect("builds");
    let e0 = sim.quantity(e);
    let mut proximity: f64 = 0.0;
    for k in 1..=300 {
        sim.advance_to(k as f64 * 0.01).expect("runs");
        let f = sim.formulation::<Semirecursive>().expect("semirecursive");
        proximity = proximity.max(f.tree.gimbal_proximity(&f.state.z));
    }
    let drift = (sim.quantity(e) - e0).abs() / e0.abs();
    let semi = positions(&d, &sim);
    let mut r = chain("NLinkChain32", Formulation::Index3, Method::Esdirk436L2Sa2, 5e-4, 1.0);
    r.solver.tolerance = 1e-10;
    let mut index3 = Simulation::new(&r).expect("builds");
    index3.advance_to(3.0).expect("runs");
    let reference = positions(&r, &index3);
    let error = semi.iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("NLinkChain32: against index-3 {error:.2e} m, energy drift {drift:.2e}, gimbal |sin b| {proximity:.3}");
    assert!(error < 1e-5, "{error:.2e} m");
    assert!(drift < 1e-8, "{drift:.2e}");
    assert!(proximity < 0.95, "{proximity}");
}

/// A tree joint the formulation cannot take is a compile error naming it and the choices.
#[test]
fn unsupported_tree_joints_are_named() {
    let mut d = catalog("NLinkChain4");
    d.solver.formulation = Formulation::SemirecursiveDoubleStep;
    d.solver.method = Method::Dop853;
    d.joints[1].kind = JointKind::Cylindrical;
    d.joints[1].axis = Some([0.0, 0.0, 1.0]);
    let e = mbfmu_engine::semirecursive::Tree::from_description(&d).expect_err("refused").to_string();
    assert!(e.contains("'ball2' (cylindrical)") && e.contains("revolute, translational or spherical"), "{e}");
    let Err(e) = Simulation::new(&d) else { panic!("accepted") };
    let e = e.to_string();
    assert!(e.contains("ball2"), "{e}");
}
