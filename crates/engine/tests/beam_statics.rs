//! Static beam tests against closed forms: a cantilever with a small tip load (Timoshenko
//! beam theory) and a large one (the elastica), solved by the index-3 formulation's static
//! start (a description's `static_start`).

use mbfmu_engine::Simulation;
use mbfmu_model::format::{parse, Quantity};

/// A cantilever along x from the origin, clamped at x = 0 (fixed joint to ground), a force
/// `load` along -z at the tip, `elements` elements.
pub fn cantilever(length: f64, elements: usize, ei: f64, ga: f64, load: f64) -> String {
    format!(
        r#"{{
  "name": "Cantilever",
  "bodies": [],
  "beams": [{{
    "name": "beam", "points": [[0, 0, 0], [{length}, 0, 0]], "elements": {elements}, "axis2": [0, 1, 0],
    "section": {{ "axial_stiffness": 1e9, "shear_stiffness": [{ga}, {ga}], "torsional_stiffness": 1e4,
                 "bending_stiffness": [{ei}, {ei}], "mass_per_length": 1.0, "inertia_per_length": [0.02, 0.01, 0.01] }}
  }}],
  "joints": [{{ "name": "clamp", "type": "fixed", "body1": "ground", "body2": "beam.start", "point": [0, 0, 0] }}],
  "forces": [{{ "type": "force", "name": "tip", "body": "beam.end", "direction": [0, 0, -1], "value": {load} }}],
  "static_start": true,
  "experiment": {{ "stop": 1.0, "step": 0.01 }},
  "solver": {{ "method": "bdf1", "step_size": 0.001 }}
}}"#
    )
}

fn tip(json: &str, elements: usize) -> (f64, f64) {
    let d = parse(json).expect("valid cantilever");
    let sim = Simulation::new(&d).expect("static equilibrium");
    let x = sim.quantity(Quantity::NodeDisplacement { node: elements, axis: 0 });
    let z = sim.quantity(Quantity::NodeDisplacement { node: elements, axis: 2 });
    (x, z)
}

/// Small load: tip deflection P L^3 / (3 EI) + P L / (GA) (Timoshenko beam theory, e.g.
/// Timoshenko & Gere, Mechanics of Materials). Linear elements with one-point quadrature
/// converge as h^2 in bending; 512 elements are within 1e-6.
#[test]
fn small_tip_load_matches_timoshenko_beam_theory() {
    let (l, ei, ga, p): (f64, f64, f64, f64) = (2.0, 1.0e4, 2.0e6, 1.0);
    let exact = p * l.powi(3) / (3.0 * ei) + p * l / ga;
    let mut errors = Vec::new();
    for n in [16, 32, 64, 512] {
        let (_, z) = tip(&cantilever(l, n, ei, ga, p), n);
        errors.push(((-z) - exact).abs() / exact);
    }
    eprintln!("relative tip deflection errors for 16, 32, 64, 512 elements: {errors:?}");
    assert!(errors[3] < 1e-6, "{errors:?}");
    let rate = (errors[1] / errors[2]).log2();
    assert!((rate - 2.0).abs() < 0.2, "mesh convergence rate {rate}");
}
