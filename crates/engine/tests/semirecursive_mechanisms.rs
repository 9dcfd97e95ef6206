//! The semirecursive formulations ([Jaiswal2021, Sect. 2]) beyond the hydraulic models: an open
//! tree with several independent coordinates (the double pendulum of [Fang2023, Fig. 1a]) and a mechanism
//! with several loops (Andrews' squeezer, [Zhang2022, Sect. 5.1]), both formulations with the
//! trapezoidal rule, against independent references and at second order.

use crate::common;

use common::{andrews, catalog, DoublePendulum};
use mbfmu_engine::Simulation;
use mbfmu_model::format::{Description, Formulation, Method};

const FORMULATIONS: [Formulation; 2] = [Formulation::SemirecursiveDoubleStep, Formulation::SemirecursivePenalty];

/// The catalog model in `formulation` with the trapezoidal rule, keeping the outputs the
/// formulation offers (joint reactions are index-3 multipliers).
fn with_formulation(name: &str, formulation: Formulation) -> Description {
    let mut d = common::without_joint_reactions(catalog(name));
    d.solver.formulation = formulation;
    d.solver.method = Method::Trapezoidal;
    d
}

/// Largest error at each step size, and the ratios between consecutive halvings.
fn report(what: &str, hs: &[f64], errors: &[f64]) -> Vec<f64> {
    let ratios: Vec<f64> = errors.windows(2).map(|e| e[0] / e[1]).collect();
    let shown: Vec<String> = errors.iter().map(|e| format!("{e:.3e}")).collect();
    println!("{what}: h {hs:?} errors [{}] ratios {ratios:.2?}", shown.join(", "));
    ratios
}

/// Average Newton iterations per step over [0, t_end].
fn iterations_per_step(d: &Description, h: f64, tol: f64, t_end: f64) -> f64 {
    let mut d = d.clone();
    d.solver.step_size = h;
    d.solver.tolerance = tol;
    let mut sim = Simulation::new(&d).expect("builds");
    sim.advance_to(t_end).expect("runs");
    sim.total_iterations() as f64 / sim.steps() as f64
}

#[test]
fn an_open_tree_with_two_independent_coordinates_follows_the_minimal_coordinate_ode() {
    let reference = DoublePendulum::fang2023();
    let times = [0.5, 1.0, 2.0];
    let fine = common::rk4(|y| reference.rhs(y), [std::f64::consts::FRAC_PI_2, 0.0, 0.0, 0.0], 5e-5, &times);
    let hs = [2e-3, 1e-3, 5e-4];
    for formulation in FORMULATIONS {
        let d = with_formulation("DoublePendulum", formulation);
        let errors: Vec<f64> = hs
            .iter()
            .map(|&h| {
                let out =
                    common::sample(&d, Method::Trapezoidal, h, 1e-10, &times, &["bar2.position.y", "bar2.position.z"]);
                out.iter()
                    .zip(&fine)
                    .map(|(o, r)| (o[0] - reference.y2(r)).abs().max((o[1] - reference.z2(r)).abs()))
                    .fold(0.0, f64::max)
            })
            .collect();
        let ratios = report(&format!("double pendulum, {}", formulation.item_name()), &hs, &errors);
        // Newton converges as with an exact tangent (both coordinates coupled through it).
        let iterations = iterations_per_step(&d, 1e-3, 1e-10, 2.0);
        println!("  Newton iterations per step at h = 1e-3: {iterations:.2}");
        assert!(iterations < 2.5, "{formulation:?}: {iterations:.2} Newton iterations per step");
        assert!(errors[2] < 1e-5, "{formulation:?}: error {:.3e} m at h = 5e-4", errors[2]);
        for r in ratios {
            assert!((3.3..4.8).contains(&r), "{formulation:?}: second order expected, ratio {r:.2}");
        }
    }
}

#[test]
fn a_mechanism_with_several_loops_converges_to_the_andrews_reference() {
    // Seven bodies, three loops closed by cut joints (six rows), one degree of freedom.
    const ANGLES: [&str; 7] = ["O.angle", "F.angle", "B.angle", "G.angle", "A_AG.angle", "H.angle", "A_AH.angle"];
    let times = [0.01, 0.02, 0.03];
    let refs = andrews::reference(&times, 2e-7);
    let hs = [2e-5, 1e-5, 5e-6];
    for formulation in FORMULATIONS {
        let d = with_formulation("AndrewsSqueezer", formulation);
        let errors: Vec<f64> = hs
            .iter()
            .map(|&h| {
                let out = common::sample(&d, Method::Trapezoidal, h, 1e-10, &times, &ANGLES);
                out.iter().zip(&refs).flat_map(|(o, r)| (0..7).map(move |k| (o[k] - r[k]).abs())).fold(0.0, f64::max)
            })
            .collect();
        let ratios = report(&format!("Andrews' squeezer, {}", formulation.item_name()), &hs, &errors);
        // The angles turn by up to 16 rad in 0.03 s.
        assert!(errors[2] < 5e-5, "{formulation:?}: error {:.3e} rad at h = 5e-6", errors[2]);
        for r in ratios {
            assert!((3.5..4.5).contains(&r), "{formulation:?}: second order expected, ratio {r:.2}");
        }
    }
}

#[test]
fn mechanisms_the_formulation_cannot_describe_are_refused_with_the_reason() {
    // The four-link without its drive: the coupler hangs on its spherical joint, and its
    // universal joint, closing the loop, cannot be cut.
    let mut four_link = with_formulation("FourLink", Formulation::SemirecursiveDoubleStep);
    four_link.drivers.clear();
    let Err(error) = Simulation::new(&four_link) else { panic!("FourLink: accepted") };
    let error = error.to_string();
    assert!(error.contains("a universal cut joint is not supported in a spatial mechanism"), "{error}");
    let d = with_formulation("SliderCrank", Formulation::SemirecursiveDoubleStep);
    let Err(error) = Simulation::new(&d) else { panic!("SliderCrank: accepted") };
    let error = error.to_string();
    assert!(error.contains("prescribed motions are not supported"), "SliderCrank: {error}");
}

#[test]
fn the_absolute_view_lists_the_bodies_in_the_description_order() {
    // Listed leaf first, the bodies enter the tree in the other order.
    let mut d = with_formulation("DoublePendulum", Formulation::SemirecursiveDoubleStep);
    d.bodies.reverse();
    let iface = mbfmu_model::variables::interface_of(&d).expect("interface");
    let mut sim = Simulation::new(&d).expect("builds");
    sim.advance_to(0.25).expect("runs");
    let state = sim.state();
    for (b, body) in d.bodies.iter().enumerate() {
        for (axis, name) in ["x", "y", "z"].iter().enumerate() {
            let output = iface.by_name(&format!("{}.position.{name}", body.name)).expect("position output");
            let mbfmu_model::variables::Binding::Output(q) = output.binding else { panic!("not an output") };
            assert_eq!(state.bodies[b].r[axis], sim.quantity(q), "{} {name}", body.name);
        }
    }
    assert!(state.bodies[0].r != state.bodies[1].r);
}
