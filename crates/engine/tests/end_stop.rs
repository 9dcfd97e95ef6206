//! The end stop, an element written once for every formulation, against closed forms. A
//! block of mass m on a vertical slider rests on a stop with zero penetration and is released
//! under gravity: in contact it is a mass on the stop's spring, so the penetration is
//! delta(t) = (m g / k) (1 - cos(omega t)), omega = sqrt(k / m), and with damping it settles at
//! delta = m g / k. The same holds at an upper stop, which the block hangs from. Every
//! formulation (index-3, state-space, both semirecursive ones) runs the same description.

use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use mbfmu_model::variables::{interface_of, Binding, Quantity};
use serde_json::{json, Value};

const G: f64 = 9.81;
const MASS: f64 = 10.0;
const K: f64 = 1e5;

/// The block at y = 1 on a slider along y; the stop's ground point is at y = 0 (lower stop,
/// `upper` false) or y = 2 (upper stop), at distance 1 from the block's point.
fn block(formulation: &str, upper: bool, damping: f64) -> Description {
    let (ground_point, limit) = if upper {
        (json!([0.0, 2.0, 0.0]), json!({ "max_length": 1.0 }))
    } else {
        (json!([0.0, 0.0, 0.0]), json!({ "min_length": 1.0 }))
    };
    let mut stop = json!({
        "type": "end_stop", "name": "stop", "body1": "ground", "point1": ground_point,
        "body2": "block", "point2": [0.0, 1.0, 0.0], "stiffness": K, "damping": damping
    });
    for (key, value) in limit.as_object().unwrap() {
        stop[key] = value.clone();
    }
    let d: Value = json!({
        "name": "BlockOnStop",
        "gravity": [0.0, -G, 0.0],
        "plane": { "normal": [0.0, 0.0, 1.0] },
        "bodies": [{ "name": "block", "mass": MASS, "inertia": [1.0, 1.0, 1.0], "position": [0.0, 1.0, 0.0] }],
        "joints": [{
            "name": "slider", "type": "translational", "body1": "ground", "body2": "block",
            "point": [0.0, 1.0, 0.0], "axis": [0.0, 1.0, 0.0]
        }],
        "forces": [stop],
        "interface": {
            "outputs": [
                { "joint": "slider", "quantities": ["coordinate"] },
                { "force": "stop", "quantities": ["length", "force"] },
                { "system": ["potential_energy", "kinetic_energy", "external_work"] }
            ]
        },
        "experiment": { "start": 0.0, "stop": 2.0, "step": 0.001 },
        "solver": { "formulation": formulation, "step_size": 1e-4, "tolerance": 1e-10 }
    });
    let mut d = d;
    d["solver"]["method"] = json!(method_of(formulation));
    format::parse(&d.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

fn quantity(d: &Description, name: &str) -> Quantity {
    let iface = interface_of(d).unwrap();
    let names: Vec<_> = iface.outputs().map(|v| v.name.clone()).collect();
    match iface.by_name(name).unwrap_or_else(|| panic!("no output {name}; outputs: {names:?}")).binding {
        Binding::Output(q) => q,
        ref b => panic!("{name} is bound to {b:?}"),
    }
}

const FORMULATIONS: [&str; 4] = ["index3", "stateSpace", "doubleStep", "penalty"];

/// A second-order implicit method of each formulation (index-3: SS2, the trapezoidal rule
/// being refused there).
fn method_of(formulation: &str) -> &'static str {
    match formulation {
        "stateSpace" => "trapezoidalConstantStep",
        "index3" => "ss2",
        _ => "trapezoidal",
    }
}

#[test]
fn an_undamped_stop_carries_the_block_as_a_spring() {
    let omega = (K / MASS).sqrt();
    let statik = MASS * G / K;
    for formulation in FORMULATIONS {
        for upper in [false, true] {
            let d = block(formulation, upper, 0.0);
            let mut sim = Simulation::new(&d).unwrap_or_else(|e| panic!("{formulation}: {e}"));
            let (y, force, energy) = (
                quantity(&d, "slider.position"),
                quantity(&d, "stop.force"),
                [quantity(&d, "potential_energy"), quantity(&d, "kinetic_energy")],
            );
            let total = |sim: &Simulation| energy.iter().map(|q| sim.quantity(*q)).sum::<f64>();
            let e0 = total(&sim);
            let mut worst: f64 = 0.0;
            for k in 1..=150 {
                let t = k as f64 * 1e-3;
                sim.advance_to(t).unwrap_or_else(|e| panic!("{formulation} at {t}: {e}"));
                let delta = -sim.quantity(y);
                let expected = statik * (1.0 - (omega * t).cos());
                worst = worst.max((delta - expected).abs());
                // The force pushes the ends apart at the lower stop, pulls them at the upper one.
                let push = sim.quantity(force) * if upper { -1.0 } else { 1.0 };
                assert!((push - K * delta.max(0.0)).abs() < 1e-6 * K * statik, "{formulation}: force {push}");
            }
            let drift = (total(&sim) - e0).abs() / (MASS * G * statik);
            println!(
                "{formulation} {}: worst penetration error {:.3e} of {statik:.3e} m, energy drift {drift:.1e}",
                if upper { "upper" } else { "lower" },
                worst
            );
            assert!(worst < 5e-4 * statik, "{formulation}: penetration error {worst}");
            assert!(drift < 1e-2, "{formulation}: energy drift {drift}");
        }
    }
}

#[test]
fn a_damped_stop_settles_at_the_static_penetration() {
    let statik = MASS * G / K;
    let damping = 2.0 * 0.3 * (K * MASS).sqrt();
    for formulation in FORMULATIONS {
        let d = block(formulation, false, damping);
        let mut sim = Simulation::new(&d).unwrap_or_else(|e| panic!("{formulation}: {e}"));
        let (y, work) = (quantity(&d, "slider.position"), quantity(&d, "external_work"));
        sim.advance_to(1.0).unwrap_or_else(|e| panic!("{formulation}: {e}"));
        let delta = -sim.quantity(y);
        // The damper took the energy the block lost beyond the spring's: m g delta - k delta^2 / 2.
        let dissipated = -sim.quantity(work);
        let expected = MASS * G * statik - 0.5 * K * statik * statik;
        println!("{formulation}: rests at {delta:.6e} m (m g / k = {statik:.6e}), damper work {dissipated:.4e} J ({expected:.4e})");
        assert!((delta - statik).abs() < 1e-6 * statik, "{formulation}: rests at {delta}");
        assert!((dissipated - expected).abs() < 2e-3 * expected, "{formulation}: work {dissipated}");
    }
}

#[test]
fn a_stop_without_a_limit_or_with_crossed_limits_is_refused_by_name() {
    let mut d = serde_json::to_value(block("index3", false, 0.0)).unwrap();
    d["forces"][0]["min_length"] = Value::Null;
    let e = format::parse(&d.to_string()).unwrap_err().to_string();
    assert!(e.contains("force 'stop'") && e.contains("min_length, max_length"), "{e}");
    d["forces"][0]["min_length"] = json!(1.5);
    d["forces"][0]["max_length"] = json!(1.0);
    let e = format::parse(&d.to_string()).unwrap_err().to_string();
    assert!(e.contains("force 'stop'") && e.contains("min_length 1.5 must be smaller than max_length 1"), "{e}");
    d["forces"][0]["max_length"] = Value::Null;
    d["forces"][0]["stiffness"] = json!(0.0);
    let e = format::parse(&d.to_string()).unwrap_err().to_string();
    assert!(e.contains("force 'stop'") && e.contains("stiffness 0 must be positive"), "{e}");
}
