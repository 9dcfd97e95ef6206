//! A flexible boom held by a hydraulic cylinder, in the index-3 formulation: a rigid root
//! body on a pivot, a cantilever beam clamped to it, and a cylinder between ground and the
//! root whose closed chambers are the only support. Checked against closed forms:
//! - at rest under gravity the piston-side pressure carries the load moment,
//!   p_A = (M / a + p_B A_B) / A_A, and the tip deflects by the cantilever formula
//!   q L^4 / (8 EI) + q L^2 / (2 GA) relative to the root;
//! - after a step load at the tip, a stiff boom swings on the oil spring at
//!   omega = sqrt(k a^2 / J), k = B A_A^2 / V_A + B A_B^2 / V_B [Jaiswal2021, eqs. 22-23], and a
//!   boom on stiff oil vibrates at the cantilever's first bending frequency
//!   omega = 1.8751^2 sqrt(EI / (m L^4)).

use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use mbfmu_model::variables::{interface_of, Binding, Quantity};
use serde_json::json;
use std::f64::consts::PI;

const G: f64 = 9.81;
const L: f64 = 4.0;
const MASS_PER_LENGTH: f64 = 20.0;
const GA: f64 = 1e10;
const LEVER: f64 = 0.5;
const ROOT_MASS: f64 = 50.0;
const P_ROD: f64 = 1e5;
const HOSE: f64 = 1e-4;

fn area(d: f64) -> f64 {
    PI / 4.0 * d * d
}

/// The boom with bending stiffness `ei`, oil bulk modulus `oil`, step `h` and method `method`.
fn boom(ei: f64, oil: f64, h: f64, method: &str) -> Description {
    let d = json!({
        "name": "CylinderBoom",
        "gravity": [0.0, -G, 0.0],
        "bodies": [{ "name": "root", "mass": ROOT_MASS, "inertia": [1.0, 1.0, 1.0], "position": [0.5, 0.0, 0.0] }],
        "beams": [{
            "name": "boom", "points": [[1.0, 0.0, 0.0], [1.0 + L, 0.0, 0.0]], "elements": 16,
            "section": {
                "axial_stiffness": 1e10, "shear_stiffness": [GA, GA], "torsional_stiffness": 1e8,
                "bending_stiffness": [ei, ei], "mass_per_length": MASS_PER_LENGTH,
                "inertia_per_length": [0.02, 0.01, 0.01]
            }
        }],
        "joints": [
            { "name": "pivot", "type": "revolute", "body1": "ground", "body2": "root", "point": [0.0, 0.0, 0.0], "axis": [0.0, 0.0, 1.0] },
            { "name": "clamp", "type": "fixed", "body1": "root", "body2": "boom.start", "point": [1.0, 0.0, 0.0] }
        ],
        "forces": [{ "type": "force", "name": "tip_load", "body": "boom.end", "direction": [0.0, -1.0, 0.0], "value": 0.0, "input": "tip_force" }],
        "hydraulics": {
            "oil": { "bulk_modulus": oil, "density": 850.0 },
            "volumes": [
                { "name": "piston", "hose_volume": HOSE, "hose_bulk_modulus": 1e20 },
                { "name": "rod", "hose_volume": HOSE, "hose_bulk_modulus": 1e20, "initial_pressure": P_ROD }
            ],
            "cylinders": [{
                "name": "lift", "piston_side": "piston", "rod_side": "rod",
                "piston_diameter": 0.08, "rod_diameter": 0.04, "stroke": 0.8, "closed_length": 0.6,
                "wall_bulk_modulus": 1e20,
                "body1": "ground", "point1": [LEVER, -1.0, 0.0], "body2": "root", "point2": [LEVER, 0.0, 0.0],
                "static_start": true
            }]
        },
        "interface": {
            "inputs": [{ "name": "tip_force", "start": 0.0, "unit": "N" }],
            "outputs": [
                { "node": "boom.end", "quantities": ["displacement"] },
                { "node": "boom.start", "quantities": ["displacement"] },
                { "joint": "pivot", "quantities": ["coordinate"] },
                { "volume": "piston", "quantities": ["pressure"] }
            ]
        },
        "experiment": { "start": 0.0, "stop": 2.0, "step": 0.001 },
        "solver": { "method": method, "step_size": h, "tolerance": 1e-10, "max_iterations": 50 }
    });
    format::parse(&d.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

fn quantity(d: &Description, name: &str) -> Quantity {
    let iface = interface_of(d).unwrap();
    match iface
        .by_name(name)
        .unwrap_or_else(|| {
            let names: Vec<_> = iface.outputs().map(|v| v.name.clone()).collect();
            panic!("no output {name}; outputs: {names:?}")
        })
        .binding
    {
        Binding::Output(q) => q,
        ref b => panic!("{name} is bound to {b:?}"),
    }
}

fn start(d: &Description) -> Simulation {
    Simulation::new(d).unwrap_or_else(|e| panic!("{e}"))
}

/// The load moment about the pivot and the piston-side pressure that carries it.
fn holding_pressure() -> f64 {
    let moment = ROOT_MASS * G * 0.5 + MASS_PER_LENGTH * L * G * (1.0 + 0.5 * L);
    (moment / LEVER + P_ROD * (area(0.08) - area(0.04))) / area(0.08)
}

#[test]
fn at_rest_the_cylinder_carries_the_load_moment_and_the_boom_sags_as_a_cantilever() {
    let ei = 2e6;
    let d = boom(ei, 1.5e9, 1e-3, "esdirk324L2SA");
    let mut sim = start(&d);
    let (pressure, tip, root, pivot) = (
        quantity(&d, "piston.pressure"),
        quantity(&d, "boom.node16.displacement.y"),
        quantity(&d, "boom.node0.displacement.y"),
        quantity(&d, "pivot.angle"),
    );
    let q = MASS_PER_LENGTH * G;
    let sag = q * L.powi(4) / (8.0 * ei) + q * L * L / (2.0 * GA);
    let p = holding_pressure();
    let check = |sim: &Simulation, when: &str| {
        let (pa, w) = (sim.quantity(pressure), sim.quantity(root) - sim.quantity(tip));
        println!("{when}: p_A {pa:.3} Pa (closed form {p:.3}), tip sag {w:.6e} m (closed form {sag:.6e})");
        assert!((pa - p).abs() < 1e-6 * p, "{when}: piston pressure {pa} against {p}");
        assert!((w - sag).abs() < 1e-4 * sag, "{when}: tip sag {w} against {sag}");
        assert!(sim.quantity(pivot).abs() < 1e-9, "{when}: the boom turned by {}", sim.quantity(pivot));
    };
    check(&sim, "start");
    sim.advance_to(0.5).unwrap();
    check(&sim, "after 0.5 s at rest");
}

/// Mean period of `x(t)` from its upward crossings of its mean.
fn period(times: &[f64], x: &[f64]) -> f64 {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let crossings: Vec<f64> = (1..x.len())
        .filter(|&i| x[i - 1] < mean && x[i] >= mean)
        .map(|i| times[i - 1] + (mean - x[i - 1]) / (x[i] - x[i - 1]) * (times[i] - times[i - 1]))
        .collect();
    assert!(crossings.len() >= 5, "too few oscillations: {crossings:?}");
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
}

/// Samples `name` every `dt` over `span` after a tip load step of 1 kN.
fn after_step(d: &Description, name: &str, dt: f64, span: f64) -> (Vec<f64>, Vec<f64>) {
    let mut sim = start(d);
    let q = quantity(d, name);
    sim.set_input(0, 1000.0).unwrap();
    let n = (span / dt).round() as usize;
    let times: Vec<f64> = (1..=n).map(|k| k as f64 * dt).collect();
    let x = times
        .iter()
        .map(|&t| {
            sim.advance_to(t).unwrap_or_else(|e| panic!("{e}"));
            sim.quantity(q)
        })
        .collect();
    (times, x)
}

#[test]
fn a_stiff_boom_swings_on_the_oil_spring() {
    let (oil, ei) = (1.5e9, 2e8);
    let d = boom(ei, oil, 5e-4, "esdirk324L2SA");
    let (a_p, a_r) = (area(0.08), area(0.08) - area(0.04));
    let (v_p, v_r) = (HOSE + a_p * 0.4, HOSE + a_r * 0.4);
    let k = oil * (a_p * a_p / v_p + a_r * a_r / v_r);
    // The root about the pivot, the beam's distributed mass and section inertia about z.
    let j = 1.0 + ROOT_MASS * 0.25 + MASS_PER_LENGTH * ((1.0 + L).powi(3) - 1.0) / 3.0 + 0.01 * L;
    let expected = 2.0 * PI / (k * LEVER * LEVER / j).sqrt();
    let (times, angle) = after_step(&d, "pivot.angle", 5e-4, 1.0);
    let measured = period(&times, &angle);
    println!("oil spring: period {measured:.5} s, closed form {expected:.5} s");
    assert!((measured / expected - 1.0).abs() < 0.02, "period {measured} s against {expected} s");
}

#[test]
fn a_boom_on_stiff_oil_vibrates_as_a_cantilever() {
    let ei = 2e6;
    let d = boom(ei, 1.5e13, 1e-3, "esdirk324L2SA");
    let omega = 1.875104_f64.powi(2) * (ei / (MASS_PER_LENGTH * L.powi(4))).sqrt();
    let expected = 2.0 * PI / omega;
    let (times, tip) = after_step(&d, "boom.node16.displacement.y", 1e-3, 2.0);
    let measured = period(&times, &tip);
    println!("cantilever: period {measured:.5} s, closed form {expected:.5} s");
    assert!((measured / expected - 1.0).abs() < 0.015, "period {measured} s against {expected} s");
}

/// The circuit's state (pressures, their rates, spools, cylinder work) is part of a snapshot:
/// a run restored in the middle of the lift repeats its second half bit for bit.
#[test]
fn a_snapshot_restores_the_circuit_with_the_boom() {
    let d: Description = format::parse(include_str!("../../../docs/examples/flexible_boom_cylinder.json")).unwrap();
    let names = ["piston.pressure", "rod.pressure", "dcv.spool", "lift.work", "boom.node16.displacement.y"];
    let quantities: Vec<Quantity> = names.iter().map(|n| quantity(&d, n)).collect();
    let mut sim = start(&d);
    sim.advance_to(0.7).unwrap();
    let snapshot = sim.snapshot();
    sim.advance_to(1.2).unwrap();
    let first: Vec<f64> = quantities.iter().map(|q| sim.quantity(*q)).collect();
    sim.restore(&snapshot).unwrap();
    sim.advance_to(1.2).unwrap();
    let second: Vec<f64> = quantities.iter().map(|q| sim.quantity(*q)).collect();
    assert_eq!(
        first.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        second.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        "{names:?}: {first:?} then {second:?}"
    );
    assert!(first[3] > 100.0, "the cylinder did work lifting the boom: {} J", first[3]);
}
