//! The hydraulic components in running circuits against closed forms: a pump dead-headed
//! against a relief valve (the stiff pump line, a time constant near 13 us, at 1 ms steps),
//! a pressure-compensated pump, and a long line's laminar
//! pressure drop and its quarter-wave mode.

use crate::common;

use common::{circuit_description, quantity};
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use serde_json::{json, Value};

/// Samples output `name` at every multiple of the step up to `stop`, with the Newton
/// iterations of each step.
fn run(d: &Description, name: &str, stop: f64) -> (Vec<f64>, Vec<f64>) {
    let mut sim = Simulation::new(d).unwrap_or_else(|e| panic!("{e}"));
    let (q, iterations) = (quantity(d, name), quantity(d, "newton_iterations"));
    let h = d.solver.step_size;
    let n = (stop / h).round() as usize;
    let (mut values, mut its) = (vec![sim.quantity(q)], vec![0.0]);
    for k in 1..=n {
        sim.advance_to(k as f64 * h).unwrap_or_else(|e| panic!("t = {}: {e}", k as f64 * h));
        values.push(sim.quantity(q));
        its.push(sim.quantity(iterations));
    }
    (values, its)
}

/// Pump Q = 5e-4 m3/s (D = 1e-5 m3/rev at 50 rev/s) into a 0.1 l line, relief 10-10.5 MPa
/// with 2.5e-3 m3/s at 10.5 MPa: a gradient of 5e-9 m3/(s Pa), tau = V/(B dQ/dp) = 13 us.
fn pump_and_relief() -> Value {
    json!({
        "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
        "sources": [{"name": "tank", "pressure": 0.0}],
        "volumes": [{"name": "line", "hose_volume": 1e-4, "hose_bulk_modulus": 1e15, "initial_pressure": 0.0}],
        "valves": [{"type": "relief", "name": "rv", "from": "line", "to": "tank", "cracking_pressure": 1e7,
            "full_open_pressure": 1.05e7, "rated_flow": 2.5e-3, "rated_pressure_drop": 1.05e7}],
        "pumps": [{"name": "pump", "inlet": "tank", "outlet": "line", "displacement": 1e-5,
            "shaft_speed": 100.0 * std::f64::consts::PI}]
    })
}

fn outputs(volume: &str) -> Value {
    json!([{"volume": volume, "quantities": ["pressure"]}, {"system": ["newton_iterations"]}])
}

/// The pressure where the relief valve passes the pump's flow: C_max x(p) sqrt(p) = Q_p with
/// the linear opening x = l + (1 - l)(p - p_crack)/(p_full - p_crack), by bisection.
fn relief_steady_state() -> f64 {
    let c_max = 2.5e-3 / 1.05e7f64.sqrt();
    let q = |p: f64| c_max * (1e-6 + (1.0 - 1e-6) * (p - 1e7) / 5e5) * p.sqrt() - 5e-4;
    let (mut a, mut b) = (1.0e7 + 0.05 * 5e5, 1.05e7 - 0.05 * 5e5);
    for _ in 0..100 {
        let m = 0.5 * (a + b);
        if q(m) > 0.0 {
            b = m;
        } else {
            a = m;
        }
    }
    0.5 * (a + b)
}

#[test]
fn a_pump_dead_headed_against_a_relief_valve_settles_on_its_curve_at_millisecond_steps() {
    let expected = relief_steady_state();
    // Implicit stages per step of each method.
    for (method, stages) in [("bdf1", 1.0), ("esdirk324L2SA", 3.0), ("esdirk436L2SA2", 5.0)] {
        let d = circuit_description(pump_and_relief(), outputs("line"), "index3", method, 1e-3);
        let (p, its) = run(&d, "line.pressure", 0.05);
        // Before cracking: p' = B Q / V, 7.5 GPa/s, exact for every method on a linear rate.
        assert!((p[1] - 7.5e6).abs() < 1e-4 * 7.5e6, "{method}: {}", p[1]);
        // Settled on the valve's static curve, without chattering: no sign alternation of
        // the increments over the last 40 steps, and one or two Newton iterations a stage.
        let last = p[p.len() - 1];
        assert!((last - expected).abs() < 1.0, "{method}: {last} vs {expected}");
        for w in p[10..].windows(3) {
            let (a, b) = (w[1] - w[0], w[2] - w[1]);
            assert!(a * b >= 0.0 || a.abs().max(b.abs()) < 1e-3, "{method}: ringing {a} then {b}");
        }
        assert!(its[20..].iter().all(|&k| k <= 2.0 * stages), "{method}: iterations {:?}", &its[20..]);
    }
}

#[test]
fn the_trapezoidal_rule_of_the_semirecursive_formulations_converges_on_the_relief_curve() {
    // A-stable but not L-stable: the 13 us mode rings at (1 - 37.5)/(1 + 37.5) per 1 ms step
    // around the same steady state; damped Newton steps keep it converging.
    let d = circuit_description(pump_and_relief(), outputs("line"), "doubleStep", "trapezoidal", 1e-3);
    let (p, _) = run(&d, "line.pressure", 0.3);
    let expected = relief_steady_state();
    let mean = 0.5 * (p[p.len() - 1] + p[p.len() - 2]);
    assert!((mean - expected).abs() < 1e-4 * expected, "{mean} vs {expected}");
}

#[test]
fn a_compensated_pump_against_a_throttle_holds_its_static_map() {
    // D = 2e-5 m3/rev at 25 rev/s (5e-4 m3/s), compensator 14-15 MPa, leakage 1e-12 m3/(s Pa);
    // a throttle to the tank that needs more than the pump's flow at 14 MPa.
    let circuit = json!({
        "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
        "sources": [{"name": "tank", "pressure": 0.0}],
        "volumes": [{"name": "v", "hose_volume": 2e-4, "hose_bulk_modulus": 1e15, "initial_pressure": 1.2e7}],
        "valves": [{"type": "throttle", "name": "load", "from": "v", "to": "tank", "discharge_coefficient": 0.7,
                    "diameter": 0.0015}],
        "pumps": [{"name": "pump", "inlet": "tank", "outlet": "v", "displacement": 2e-5,
            "shaft_speed": 50.0 * std::f64::consts::PI, "leakage_coefficient": 1e-12,
            "compensator": {"setting": 1.4e7, "regulation_range": 1e6}}]
    });
    let d = circuit_description(circuit, outputs("v"), "index3", "bdf1", 1e-3);
    let (p, _) = run(&d, "v.pressure", 1.0);
    let last = p[p.len() - 1];
    // Static map: (1 - (p - 14 MPa)/1 MPa) Q_max - C_l p = C sqrt(p).
    let c = 0.7 * std::f64::consts::FRAC_PI_4 * 0.0015f64.powi(2) * (2.0f64 / 850.0).sqrt();
    let residual = |p: f64| (1.0 - (p - 1.4e7) / 1e6) * 5e-4 - 1e-12 * p - c * p.sqrt();
    assert!(last > 1.4e7 + 0.05e6 && last < 1.5e7 - 0.05e6, "{last}");
    assert!(residual(last).abs() < 1e-9, "{last}: {}", residual(last));
}

/// A 20 m line of 12 mm bore between a source at 10 MPa and a closed 1e-6 m3 volume
/// at 9.9 MPa, 16 cells.
fn line_circuit(viscosity: f64, outflow: bool) -> Value {
    let mut c = json!({
        "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
        "sources": [{"name": "supply", "pressure": 1e7}, {"name": "tank", "pressure": 0.0}],
        "volumes": [{"name": "end", "hose_volume": 1e-6, "hose_bulk_modulus": 1e15, "initial_pressure": 9.9e6}],
        "lines": [{"name": "hose", "from": "supply", "to": "end", "length": 20.0, "diameter": 0.012,
            "segments": 16, "kinematic_viscosity": viscosity, "wall_bulk_modulus": 1e15, "initial_pressure": 9.9e6}]
    });
    if outflow {
        c["valves"] = json!([{"type": "throttle", "name": "out", "from": "end", "to": "tank",
            "discharge_coefficient": 0.7, "diameter": 0.002, "laminar_limit": 1e3}]);
    }
    c
}

#[test]
fn a_long_line_rings_at_its_quarter_wave_frequency_and_drops_pressure_by_hagen_poiseuille() {
    // Closed end, open (constant-pressure) start: f = c / (4 l), c = sqrt(B / rho).
    let d = circuit_description(line_circuit(1e-7, false), outputs("end"), "index3", "esdirk436L2SA2", 2e-4);
    let (p, _) = run(&d, "end.pressure", 1.0);
    // The step response at a closed end is a square wave: its fundamental is the peak of the
    // spectrum (a fine grid of the discrete Fourier transform).
    let spectrum = |f: f64| {
        let w = std::f64::consts::TAU * f;
        let (mut re, mut im) = (0.0, 0.0);
        for (k, x) in p.iter().enumerate() {
            let t = k as f64 * 2e-4;
            re += (x - 1e7) * (w * t).cos();
            im += (x - 1e7) * (w * t).sin();
        }
        re.hypot(im)
    };
    let peak = (1000..2500).map(|k| k as f64 * 0.01).max_by(|a, b| spectrum(*a).total_cmp(&spectrum(*b))).unwrap();
    let expected = (1.5e9f64 / 850.0).sqrt() / (4.0 * 20.0);
    // 16 lumped cells resolve the fundamental to well under 1 %.
    assert!((peak - expected).abs() < 0.01 * expected, "peak {peak} Hz vs {expected} Hz");

    // Steady laminar flow: the drop 128 mu l Q / (pi d^4) between the supply and the end.
    let d = circuit_description(line_circuit(4e-5, true), outputs("end"), "index3", "bdf1", 1e-3);
    let (p, _) = run(&d, "end.pressure", 2.0);
    let end = p[p.len() - 1];
    let c = 0.7 * std::f64::consts::FRAC_PI_4 * 0.002f64.powi(2) * (2.0f64 / 850.0).sqrt();
    let q = c * end.sqrt();
    let drop = 128.0 * 4e-5 * 850.0 * 20.0 * q / (std::f64::consts::PI * 0.012f64.powi(4));
    assert!(((1e7 - end) - drop).abs() < 1e-3 * drop, "drop {} vs {drop} at Q = {q}", 1e7 - end);
}

/// The message of the error reading `circuit`.
fn refusal(circuit: Value) -> String {
    let d = json!({
        "name": "circuit", "bodies": [], "hydraulics": circuit,
        "experiment": {"stop": 1.0, "step": 1e-3},
        "solver": {"formulation": "index3", "method": "bdf1", "step_size": 1e-3}
    });
    format::parse(&d.to_string()).expect_err("refused").to_string()
}

#[test]
fn bad_components_are_refused_with_the_element_the_field_and_the_reason() {
    // A relief valve whose outlet has no path to a tank.
    let mut c = pump_and_relief();
    c["volumes"].as_array_mut().unwrap().push(json!({"name": "dead", "hose_volume": 1e-4,
        "hose_bulk_modulus": 1e9, "initial_pressure": 0.0}));
    c["valves"][0]["to"] = json!("dead");
    let e = refusal(c);
    assert!(e.contains("valve 'rv'") && e.contains("to 'dead'") && e.contains("no path to a tank"), "{e}");
    // A check valve with zero cracking pressure and zero leakage.
    let mut c = pump_and_relief();
    c["valves"].as_array_mut().unwrap().push(json!({"type": "check", "name": "cv", "from": "line", "to": "tank",
        "cracking_pressure": 0.0, "full_open_pressure": 1e5, "rated_flow": 1e-4, "rated_pressure_drop": 1e5,
        "leakage": 0.0}));
    let e = refusal(c);
    assert!(e.contains("valve 'cv'") && e.contains("cracking_pressure and leakage are both 0"), "{e}");
    // A full-open pressure not above the cracking pressure.
    let mut c = pump_and_relief();
    c["valves"][0]["full_open_pressure"] = json!(0.9e7);
    let e = refusal(c);
    assert!(e.contains("valve 'rv'") && e.contains("full_open_pressure"), "{e}");
    // A pump whose shaft never turns, and one delivering into a source.
    let mut c = pump_and_relief();
    c["pumps"][0]["shaft_speed"] = json!(0.0);
    let e = refusal(c);
    assert!(e.contains("pump 'pump'") && e.contains("never turns"), "{e}");
    let mut c = pump_and_relief();
    c["pumps"][0]["outlet"] = json!("tank");
    let e = refusal(c);
    assert!(e.contains("pump 'pump'") && e.contains("outlet 'tank'"), "{e}");
    // A line with no cells.
    let mut c = line_circuit(4e-5, false);
    c["lines"][0]["segments"] = json!(0);
    let e = refusal(c);
    assert!(e.contains("line 'hose'") && e.contains("segments"), "{e}");
}
