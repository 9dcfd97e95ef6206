//! Beams with consistent translational mass (`"inertia": "consistent"`): the axial vibration
//! of a fixed-free bar of n linear elements has the closed-form discrete frequency
//!   omega_h^2 = 6 EA / (m h^2) (1 - cos theta) / (2 + cos theta),   theta = pi / (2 n)
//! (mode sin(j theta) of the recurrence EA/h (-u_{j-1} + 2 u_j - u_{j+1}) = omega^2 m h/6
//! (u_{j-1} + 4 u_j + u_{j+1}); T. J. R. Hughes, The Finite Element Method, 1987, Sect. 9.2),
//! an upper bound of the continuum's pi/2 sqrt(EA/m) as the lumped mass gives a lower one;
//! and the trapezoidal rule conserves the energy with the coupled mass matrix.
//!
//! The descriptions integrate with SS2 at rho_inf = 1 ([Zhang2022, Sect. 2.2]): no
//! algorithmic dissipation and, on a linear oscillator, the trapezoidal rule's amplification
//! factor (LMS2 at rho_inf = 1 is two trapezoidal steps, its characteristic polynomial that of
//! the trapezoidal rule times (zeta + 1)); the trapezoidal rule itself is refused for index-3
//! descriptions (`Method::refusal`). "The trapezoidal rule" below is this method.

use mbfmu_engine::Simulation;
use mbfmu_model::format::{parse, Quantity};
use serde_json::json;
use std::f64::consts::PI;

const EA: f64 = 2.0e5;
const M: f64 = 2.0;

/// Fixed-free bar along x (length 1, n elements) preloaded by inputs with M phi, phi the
/// first discrete mode of the chosen mass model, so that the release excites that mode only.
fn bar(n: usize, consistent: bool, h: f64) -> String {
    let step = 1.0 / n as f64;
    let theta = PI / (2.0 * n as f64);
    let phi = |j: usize| if j == 0 { 0.0 } else { (j as f64 * theta).sin() };
    let mut forces = Vec::new();
    let mut inputs = Vec::new();
    for j in 1..=n {
        let end = j == n;
        let load = if consistent {
            let c = M * step / 6.0;
            if end {
                c * (phi(j - 1) + 2.0 * phi(j))
            } else {
                c * (phi(j - 1) + 4.0 * phi(j) + phi(j + 1))
            }
        } else {
            M * step * if end { 0.5 } else { 1.0 } * phi(j)
        };
        let name = format!("load{j}");
        forces.push(json!({"type": "force", "name": name, "body": format!("bar.node{j}"), "direction": [1, 0, 0], "input": name}));
        inputs.push(json!({"name": name, "start": 1e-3 * EA * load / M}));
    }
    json!({
        "name": "Bar",
        "bodies": [],
        "beams": [{
            "name": "bar", "points": [[0, 0, 0], [1, 0, 0]], "elements": n,
            "section": { "axial_stiffness": EA, "shear_stiffness": [1e6, 1e6], "torsional_stiffness": 10.0,
                         "bending_stiffness": [10.0, 10.0], "mass_per_length": M, "inertia_per_length": [2e-4, 1e-4, 1e-4] },
            "inertia": if consistent { "consistent" } else { "lumped" }
        }],
        "joints": [{ "name": "clamp", "type": "fixed", "body1": "ground", "body2": "bar.start", "point": [0, 0, 0] }],
        "forces": forces,
        "interface": { "inputs": inputs },
        "static_start": true,
        "experiment": { "stop": 10.0, "step": h },
        "solver": { "method": "ss2", "rho_inf": 1.0, "step_size": h, "tolerance": 1e-13 }
    })
    .to_string()
}

/// Releases the preload and records (tip displacement, total energy) for `steps` steps.
fn release(json: &str, n: usize, h: f64, steps: usize) -> Vec<(f64, f64)> {
    let d = parse(json).expect("valid bar");
    let mut sim = Simulation::new(&d).expect("static start");
    let zeros = vec![0.0; sim.inputs().len()];
    sim.set_inputs(&zeros).unwrap();
    let start = sim.time();
    (1..=steps)
        .map(|k| {
            sim.advance_to(start + k as f64 * h).expect("step");
            (sim.quantity(Quantity::NodeDisplacement { node: n, axis: 0 }), sim.quantity(Quantity::TotalEnergy))
        })
        .collect()
}

/// Frequency from the first and last upward zero crossings (linear interpolation), with the
/// trapezoidal rule's period elongation undone: omega = (2/h) tan(Omega h / 2).
fn frequency(x: &[f64], h: f64) -> f64 {
    let crossings: Vec<f64> = x
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
        .map(|(k, w)| (k as f64 + w[0] / (w[0] - w[1])) * h)
        .collect();
    assert!(crossings.len() >= 3, "{crossings:?}");
    let measured = 2.0 * PI * (crossings.len() - 1) as f64 / (crossings[crossings.len() - 1] - crossings[0]);
    2.0 / h * (0.5 * measured * h).tan()
}

#[test]
fn consistent_mass_gives_the_discrete_frequency_and_bounds_the_continuum_from_above() {
    let continuum = 0.5 * PI * (EA / M).sqrt();
    for n in [4, 8, 16] {
        let step = 1.0 / n as f64;
        let theta = PI / (2.0 * n as f64);
        let exact = (6.0 * EA / (M * step * step) * (1.0 - theta.cos()) / (2.0 + theta.cos())).sqrt();
        let h = 2.0 * PI / exact / 200.0;
        let run = release(&bar(n, true, h), n, h, 1000);
        let x: Vec<f64> = run.iter().map(|r| r.0).collect();
        let measured = frequency(&x, h);
        let lumped_run = release(&bar(n, false, h), n, h, 1000);
        let lumped = frequency(&lumped_run.iter().map(|r| r.0).collect::<Vec<_>>(), h);
        eprintln!(
            "{n:2} elements: consistent {measured:.9} (closed form {exact:.9}), lumped {lumped:.9}, continuum {continuum:.9}"
        );
        // Measured within 7e-9 (zero-crossing interpolation; the release step starts from the
        // preloaded accelerations, which adds a trace of other modes).
        assert!((measured / exact - 1.0).abs() < 5e-8, "{measured} vs {exact}");
        assert!(measured > continuum && lumped < continuum, "bounds: {lumped} < {continuum} < {measured}");
        // Energy after the release step (which starts from the preloaded accelerations) is
        // conserved to the Newton tolerance by the trapezoidal rule with the coupled masses.
        let e1 = run[0].1;
        let drift = run.iter().map(|r| (r.1 - e1).abs()).fold(0.0f64, f64::max) / e1;
        assert!(drift < 1e-9, "energy drift {drift:.3e}");
    }
}

#[test]
fn consistent_mass_is_refused_by_the_half_implicit_method() {
    let mut v: serde_json::Value = serde_json::from_str(&bar(4, true, 1e-3)).unwrap();
    v["solver"]["method"] = json!("half_implicit");
    let e = parse(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains("half-implicit method needs lumped beam inertia"), "{e}");
}

/// Initial accelerations with coupled masses: a beam pinned at x = 0, unstressed, released
/// under gravity g along -z. No elastic force acts yet, so the free nodes obey the mass
/// equations alone: (a_{j-1} + 4 a_j + a_{j+1}) / 6 = g inside, (a_{n-1} + 2 a_n) / 6 = g / 2
/// at the free end, a_0 = 0 at the pin; the solution is g + A r^j + B r^-j with r = sqrt(3) - 2
/// (the root of 1 + 4 r + r^2 = 0) and A, B from the two ends.
#[test]
fn assembled_initial_accelerations_solve_the_coupled_mass_equations() {
    let n = 10;
    let g = 9.81;
    let d = parse(
        &json!({
            "name": "PinnedBeam",
            "gravity": [0.0, 0.0, -g],
            "bodies": [],
            "beams": [{
                "name": "bar", "points": [[0, 0, 0], [1, 0, 0]], "elements": n,
                "section": { "axial_stiffness": EA, "shear_stiffness": [1e6, 1e6], "torsional_stiffness": 10.0,
                             "bending_stiffness": [10.0, 10.0], "mass_per_length": M, "inertia_per_length": [2e-4, 1e-4, 1e-4] },
                "inertia": "consistent"
            }],
            "joints": [{ "name": "pin", "type": "revolute", "body1": "ground", "body2": "bar.start", "point": [0, 0, 0], "axis": [0, 1, 0] }],
            "experiment": { "stop": 1.0, "step": 1e-3 },
            "solver": { "method": "bdf1", "step_size": 1e-4 }
        })
        .to_string(),
    )
    .unwrap();
    let sim = Simulation::new(&d).unwrap();
    let r: f64 = 3.0f64.sqrt() - 2.0;
    let nf = n as f64;
    // A + B = -g;  A (r^(n-1) + 2 r^n) + B (r^-(n-1) + 2 r^-n) = 0.
    let (p, q) = (r.powf(nf - 1.0) + 2.0 * r.powf(nf), r.powf(1.0 - nf) + 2.0 * r.powf(-nf));
    let b = g * p / (q - p);
    let a = -g - b;
    for j in 0..=n {
        let exact = -(g + a * r.powi(j as i32) + b * r.powi(-(j as i32)));
        let engine = sim.quantity(Quantity::NodeAcceleration { node: j, axis: 2 });
        assert!((engine - exact).abs() < 1e-9 * g, "node {j}: {engine} vs {exact}");
    }
}
