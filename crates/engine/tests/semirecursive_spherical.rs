//! Spherical tree joints in the semirecursive formulation (three joint rotations in series,
//! `semirecursive/spherical.rs`) and the articulated-body recursion of its ODE
//! ([Featherstone2008, Sect. 7.3]; `semirecursive/articulated.rs`), on the \[Fang2023\] chains:
//! against the index-3 formulation at a small step of a fourth-order method, energy
//! conservation, the largest middle rotation over the run, the recursion against the dense
//! mass-matrix solve, and the compile errors of unsupported tree joints (motions through the
//! singular band of the three rotations: `semirecursive_rebase.rs`).

use crate::common;
use common::{catalog, quantity};
use mbfmu_engine::semirecursive::Semirecursive;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{BodyQuantity, Description, Formulation, JointKind, Method, OutputSpec};

/// The catalog chain `name` in the semirecursive formulation, with every bar's position as
/// outputs, integrated by `method` at tolerances `tol` with steps up to `h`.
pub(crate) fn chain(name: &str, formulation: Formulation, method: Method, h: f64, tol: f64) -> Description {
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
pub(crate) fn positions(d: &Description, sim: &Simulation) -> Vec<f64> {
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
/// spherical joint in the chart it is integrated in below the re-basing threshold (|sin b| 0.8:
/// `semirecursive/chart.rs`).
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
    assert!(proximity <= mbfmu_engine::semirecursive::chart::REBASE, "{proximity}");
}

/// The explicit methods' orders on NLinkChain4's 12 joint rotations at constant steps, bar 4's
/// position at 1 s against DOP853 at tolerance 1e-13: least-squares slopes at least 3.8 for
/// RK4 and 4.8 for DOPRI5. Measured: 4.02 (1.3e-6 to 4.9e-9 m) and 5.59 (1.5e-6 to 6.5e-10 m).
#[test]
fn explicit_orders_on_chain4() {
    let run = |method: Method, h: f64, tol: f64| {
        let d = chain("NLinkChain4", Formulation::SemirecursiveDoubleStep, method, h, tol);
        let mut sim = Simulation::new(&d).expect("builds");
        sim.advance_to(1.0).expect("runs");
        positions(&d, &sim)[9..12].to_vec()
    };
    let reference = run(Method::Dop853, 0.01, 1e-13);
    for (method, design, steps) in [(Method::Rk4, 4.0, [4e-3, 2e-3, 1e-3]), (Method::Dopri5, 5.0, [1e-2, 5e-3, 2.5e-3])]
    {
        // Constant steps: tolerances no step exceeds.
        let errors: Vec<f64> = steps
            .iter()
            .map(|&h| run(method, h, 1e3).iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max))
            .collect();
        let order = common::order(&steps, &errors);
        println!("{method:?}: errors {errors:?}, order {order:.2}");
        assert!(order > design - 0.2, "{method:?}: order {order:.2}, errors {errors:?}");
    }
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

/// Deterministic numbers in [-1, 1) (a linear congruential generator; any fixed sequence).
fn uniform(seed: &mut u64) -> f64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// The recursion's z'' against the dense solve of M' z'' = Q' ([Jaiswal2021, eqs. 11-12]) on
/// a branched spatial tree (bars 2 and 3 on bar 1 in spherical joints, bar 4 on bar 3 in a
/// revolute joint: 10 coordinates) at a pseudo-random state. Measured: 2.7e-10 of 61 rad/s^2
/// (4.4e-12 relative) where M' has condition 8.5e5: within 10 eps times the condition.
#[test]
fn articulated_matches_dense() {
    use mbfmu_engine::semirecursive::articulated::Articulated;
    use mbfmu_engine::semirecursive::dynamics::Inertia;
    use mbfmu_engine::semirecursive::kinematics::BodyKin;
    use mbfmu_engine::semirecursive::Tree;
    use nalgebra::{DMatrix, DVector, Vector6};
    let mut d = catalog("NLinkChain4");
    d.joints[2].body1 = "bar1".into();
    d.joints[2].point = Some([0.0, 0.0, -2.0]);
    d.bodies[2].position = [0.0, 0.0, -3.0];
    d.joints[3].kind = mbfmu_model::format::JointKind::Revolute;
    d.joints[3].axis = Some([1.0, 0.0, 0.0]);
    d.bodies[3].angular_velocity = mbfmu_model::format::AngularVelocity::Body { body: [0.0, 0.0, 0.0] };
    let tree = Tree::from_description(&d).expect("compiles");
    let n = tree.n_coordinates();
    assert_eq!(n, 10);
    let mut seed = 7;
    let z: Vec<f64> = (0..n).map(|_| uniform(&mut seed)).collect();
    let zd: Vec<f64> = (0..n).map(|_| 3.0 * uniform(&mut seed)).collect();
    let mut kin = vec![BodyKin::default(); n];
    tree.positions(&z, &mut kin);
    tree.velocities(&zd, &mut kin);
    tree.accelerations(&zd, &vec![0.0; n], &mut kin);
    let mut loads = vec![Vector6::zeros(); n];
    tree.loads(&kin, &z, &zd, &[], &[], &[], &[], true, &mut loads);
    let (mut sums, mut res) = (vec![Vector6::zeros(); n], vec![0.0; n]);
    tree.generalized_residual(&kin, &loads, &mut sums, &mut res);
    let (mut inertias, mut mass) = (vec![Inertia::default(); n], vec![0.0; n * n]);
    tree.mass_matrix(&kin, &mut inertias, &mut mass);
    let m = DMatrix::from_row_slice(n, n, &mass);
    let singular = m.clone().singular_values();
    let condition = singular.max() / singular.min();
    let dense = m.lu().solve(&-DVector::from_vec(res)).expect("regular");
    let mut aba = vec![0.0; n];
    tree.articulated_accelerations(&kin, &loads, &mut Articulated::new(n), &mut aba).expect("regular");
    let scale = dense.amax();
    let diff = (0..n).map(|i| (aba[i] - dense[i]).abs()).fold(0.0, f64::max);
    println!("ABA vs dense: {diff:.2e} of {scale:.2e}, condition of M' {condition:.2e}");
    assert!(diff < 10.0 * f64::EPSILON * condition * scale, "{diff:.2e} of {scale:.2e}, condition {condition:.2e}");
}

/// The recursion works about each body's joint point (`semirecursive/articulated.rs`), so its
/// accelerations do not depend on where the global origin is: `NLinkChain32` at a
/// pseudo-random state, and the same chain moved 1.3 km from the origin. Measured: 1.6e-11 of
/// the largest acceleration (the round-off of the tree's kinematics, which stay about the
/// origin); the recursion about the origin differed by 3.4e-6.
#[test]
fn the_recursion_does_not_depend_on_where_the_origin_is() {
    use mbfmu_engine::semirecursive::articulated::Articulated;
    use mbfmu_engine::semirecursive::kinematics::BodyKin;
    use mbfmu_engine::semirecursive::Tree;
    use nalgebra::Vector6;
    let accelerations = |d: &Description, z: &[f64], zd: &[f64]| {
        let tree = Tree::from_description(d).expect("compiles");
        let n = tree.n_coordinates();
        let mut kin = vec![BodyKin::default(); n];
        tree.positions(z, &mut kin);
        tree.velocities(zd, &mut kin);
        tree.accelerations(zd, &vec![0.0; n], &mut kin);
        let mut loads = vec![Vector6::zeros(); n];
        tree.loads(&kin, z, zd, &[], &[], &[], &[], true, &mut loads);
        let mut zdd = vec![0.0; n];
        tree.articulated_accelerations(&kin, &loads, &mut Articulated::new(n), &mut zdd).expect("regular");
        zdd
    };
    let d = catalog("NLinkChain32");
    let mut far = d.clone();
    let offset = [1000.0, -700.0, 400.0];
    for b in &mut far.bodies {
        b.position = std::array::from_fn(|i| b.position[i] + offset[i]);
    }
    for j in &mut far.joints {
        j.point = j.point.map(|p| std::array::from_fn(|i| p[i] + offset[i]));
    }
    let n = Tree::from_description(&d).expect("compiles").n_coordinates();
    let mut seed = 11;
    let z: Vec<f64> = (0..n).map(|_| 0.5 * uniform(&mut seed)).collect();
    let zd: Vec<f64> = (0..n).map(|_| 5.0 * uniform(&mut seed)).collect();
    let (near, moved) = (accelerations(&d, &z, &zd), accelerations(&far, &z, &zd));
    let scale = near.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let diff = near.iter().zip(&moved).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("moved 1.3 km: {:.2e} of {scale:.2e} ({:.2e} relative)", diff, diff / scale);
    assert!(diff < 1e-9 * scale, "{diff:.2e} of {scale:.2e}");
}
