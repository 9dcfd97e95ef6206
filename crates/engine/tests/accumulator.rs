//! Gas-loaded accumulators in running circuits against closed forms: a slow charge by a
//! pump (the gas law V_L(p) and the stored energy, n = 1 and n = 1.4), the isothermal
//! discharge through a laminar restriction (V_g^2 = V_g0^2 + 2 K p0 V0 t) with the index-3
//! and the semirecursive formulations and several methods at 1 ms, a charge from below the
//! pre-charge and back (the empty stop), and the refusals of bad input.

use crate::common;

use common::{circuit_description, quantity};
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use mbfmu_model::variables::{dependencies, interface_of, Binding, Known, Quantity, StateLayout, Unknown};
use serde_json::{json, Value};

/// Samples of outputs `names` at every multiple of the step up to `stop` (one row per
/// sample, the first at t = 0), and the largest Newton iteration count of a step.
fn run(d: &Description, names: &[&str], stop: f64) -> (Vec<Vec<f64>>, f64) {
    let mut sim = Simulation::new(d).unwrap_or_else(|e| panic!("{e}"));
    let qs: Vec<Quantity> = names.iter().map(|n| quantity(d, n)).collect();
    let iterations = quantity(d, "newton_iterations");
    let h = d.solver.step_size;
    let n = (stop / h).round() as usize;
    let mut rows = vec![qs.iter().map(|&q| sim.quantity(q)).collect::<Vec<f64>>()];
    let mut most: f64 = 0.0;
    for k in 1..=n {
        sim.advance_to(k as f64 * h)
            .unwrap_or_else(|e| panic!("{}: t = {}: {e}", d.solver.formulation.name(), k as f64 * h));
        rows.push(qs.iter().map(|&q| sim.quantity(q)).collect());
        most = most.max(sim.quantity(iterations));
    }
    (rows, most)
}

fn outputs() -> Value {
    json!([{"volume": "P", "quantities": ["pressure"]},
           {"accumulator": "acc", "quantities": ["pressure", "liquid_volume"]},
           {"system": ["newton_iterations"]}])
}

const P0: f64 = 5e6;
const V0: f64 = 1e-3;

/// Pump Q = 1e-4 m3/s (1e-5 m3/rev at 10 rev/s) into a 10 ml stiff hose P at the pre-charge,
/// with an empty accumulator (p0 = 5 MPa, V0 = 1 l) behind an inlet of G = 1e-6 m3/(s Pa).
fn slow_charge(n: f64) -> Value {
    json!({
        "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
        "sources": [{"name": "tank", "pressure": 0.0}],
        "volumes": [{"name": "P", "hose_volume": 1e-5, "hose_bulk_modulus": 1e15, "initial_pressure": P0}],
        "pumps": [{"name": "pump", "inlet": "tank", "outlet": "P", "displacement": 1e-5,
                   "shaft_speed": 20.0 * std::f64::consts::PI}],
        "accumulators": [{"name": "acc", "node": "P", "precharge_pressure": P0, "volume": V0,
            "polytropic_exponent": n, "max_pressure": 2.5e7, "inlet_conductance": 1e-6}]
    })
}

/// The liquid volume of the gas law at gas pressure `p` ([SimscapeFluids] "Gas-Charged
/// Accumulator (IL)": p V_g^n = p0 V0^n).
fn gas_law_volume(p: f64, n: f64) -> f64 {
    V0 * (1.0 - (P0 / p).powf(1.0 / n))
}

/// The work p_g dV_L stored in the gas from p0 to p: the gas law's integral.
fn stored_energy(p: f64, n: f64) -> f64 {
    if n == 1.0 {
        P0 * V0 * (p / P0).ln()
    } else {
        P0 * V0 / (n - 1.0) * ((p / P0).powf((n - 1.0) / n) - 1.0)
    }
}

#[test]
fn a_slow_charge_follows_the_gas_law_and_stores_its_energy() {
    let q = 1e-5 * 10.0;
    // The hose's compliance V_h (1/B_oil + 1/B_hose).
    let compliance = 1e-5 * (1.0 / 1.5e9 + 1.0 / 1e15);
    for n in [1.0, 1.4] {
        let d = circuit_description(slow_charge(n), outputs(), "index3", "bdf1", 1e-3);
        let (rows, iterations) = run(&d, &["P.pressure", "acc.pressure", "acc.liquid_volume"], 6.0);
        let (mut conservation, mut law, mut energy): (f64, f64, f64) = (0.0, 0.0, 0.0);
        let mut work = 0.0;
        for (k, w) in rows.iter().enumerate() {
            let t = k as f64 * 1e-3;
            let (p, pg, vl) = (w[0], w[1], w[2]);
            // The oil the pump delivered is in the accumulator or compresses the hose.
            conservation = conservation.max((vl - (q * t - compliance * (p - P0))).abs());
            // Quasi-static: the gas pressure is the node's less the inlet's drop Q/G.
            if t > 0.05 {
                law = law.max((vl - gas_law_volume(p - q / 1e-6, n)).abs() / vl);
            }
            if k > 0 {
                let before = &rows[k - 1];
                work += 0.5 * (pg + before[1]) * (vl - before[2]);
                energy = energy.max((work - stored_energy(pg, n)).abs() / stored_energy(pg, n).max(1.0));
            }
        }
        let last = rows.last().unwrap();
        println!(
            "n = {n}: p = {:.4e} Pa, V_L = {:.4e} m3; conservation {conservation:.2e} m3, gas law {law:.2e}, energy {energy:.2e}, iterations {iterations}",
            last[0], last[2]
        );
        assert!(last[0] > 1.2e7, "n = {n}: charged only to {}", last[0]);
        assert!(conservation < 1e-12, "n = {n}: volume balance {conservation}");
        assert!(law < 1e-4, "n = {n}: V_L(p) off by {law}");
        assert!(energy < 1e-5, "n = {n}: stored energy off by {energy}");
        assert!(iterations <= 3.0, "n = {n}: {iterations} Newton iterations");
    }
}

/// An accumulator charged to 20 MPa (isothermal, p0 = 5 MPa, V0 = 1 l, inlet G = 1e-8)
/// on a 0.01 ml stiff hose P (its compliance takes 1e-7 of the flow), discharging into a tank at 0 Pa through a throttle that is
/// laminar up to 100 MPa (conductance C_vt / sqrt(1e8)); P starts at the quasi-static
/// pressure between the two restrictions.
fn discharge() -> (Value, f64) {
    let g = 1e-8;
    let gt = 0.7 * std::f64::consts::FRAC_PI_4 * 0.004f64.powi(2) * (2.0f64 / 850.0).sqrt() / 1e4;
    let k = 1.0 / (1.0 / g + 1.0 / gt);
    let start = 2e7 * g / (g + gt);
    let c = json!({
        "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
        "sources": [{"name": "tank", "pressure": 0.0}],
        "volumes": [{"name": "P", "hose_volume": 1e-8, "hose_bulk_modulus": 1e15, "initial_pressure": start}],
        "valves": [{"type": "throttle", "name": "out", "from": "P", "to": "tank", "discharge_coefficient": 0.7,
                    "diameter": 0.004, "laminar_limit": 1e8}],
        "accumulators": [{"name": "acc", "node": "P", "precharge_pressure": P0, "volume": V0,
            "polytropic_exponent": 1.0, "max_pressure": 2.5e7, "inlet_conductance": g, "initial_pressure": 2e7}]
    });
    (c, k)
}

#[test]
fn an_isothermal_discharge_through_a_laminar_restriction_follows_its_closed_form() {
    let (circuit, k) = discharge();
    // V_g V_g' = K p0 V0 (p_g = p0 V0 / V_g, flow K p_g): V_g^2 = V_g0^2 + 2 K p0 V0 t.
    let exact = |t: f64| P0 * V0 / ((V0 / 4.0).powi(2) + 2.0 * k * P0 * V0 * t).sqrt();
    let empty = (V0 * V0 - (V0 / 4.0).powi(2)) / (2.0 * k * P0 * V0);
    let stop = 0.9 * empty;
    // (formulation, method, implicit stages per step, tolerance).
    for (formulation, method, stages, tolerance) in [
        ("index3", "bdf1", 1.0, 2e-3),
        ("index3", "esdirk324L2SA", 3.0, 1e-6),
        ("doubleStep", "trapezoidal", 1.0, 1e-5),
        ("penalty", "trapezoidal", 1.0, 1e-5),
    ] {
        let d = circuit_description(circuit.clone(), outputs(), formulation, method, 1e-3);
        let (rows, iterations) = run(&d, &["acc.pressure", "acc.liquid_volume"], stop);
        let mut error: f64 = 0.0;
        for (i, w) in rows.iter().enumerate() {
            let t = i as f64 * 1e-3;
            error = error.max((w[0] - exact(t)).abs() / exact(t));
        }
        let (last, end) = (rows.last().unwrap(), (rows.len() - 1) as f64 * 1e-3);
        println!(
            "{formulation} {method}: p_g({end:.3} s) = {:.6e} Pa vs {:.6e}, largest relative error {error:.2e}, iterations {iterations}",
            last[0],
            exact(end)
        );
        assert!(error < tolerance, "{formulation} {method}: relative error {error}");
        assert!(iterations <= 2.0 * stages, "{formulation} {method}: {iterations} Newton iterations");
    }
}

/// P at 1 MPa (below the pre-charge) with an empty accumulator; a pump of 1e-3 m3/s runs
/// until 0.4-0.5 s (a quintic ramp down) against a laminar leak to the tank, then the leak
/// drains P and the accumulator back below the pre-charge.
fn across_the_precharge() -> Value {
    let mut c = slow_charge(1.4);
    c["volumes"][0]["initial_pressure"] = json!(1e6);
    c["volumes"][0]["hose_volume"] = json!(1e-4);
    c["pumps"][0]["shaft_speed"] = json!(0.0);
    c["pumps"][0]["displacement"] = json!(1e-4);
    c["pumps"][0]["speed_profile"] =
        json!({"type": "smooth_step", "t0": 0.4, "t1": 0.5, "from": 20.0 * std::f64::consts::PI, "to": 0.0});
    c["valves"] = json!([{"type": "throttle", "name": "leak", "from": "P", "to": "tank", "discharge_coefficient": 0.7,
                          "diameter": 0.003, "laminar_limit": 1e8}]);
    c["accumulators"][0]["inlet_conductance"] = json!(1e-8);
    c
}

#[test]
fn charging_across_the_precharge_and_back_keeps_the_liquid_volume_at_or_above_empty() {
    for (formulation, method, stages) in [
        ("index3", "bdf1", 1.0),
        ("index3", "esdirk324L2SA", 3.0),
        ("doubleStep", "trapezoidal", 1.0),
        ("penalty", "trapezoidal", 1.0),
    ] {
        let d = circuit_description(across_the_precharge(), outputs(), formulation, method, 1e-3);
        let (rows, iterations) = run(&d, &["P.pressure", "acc.pressure", "acc.liquid_volume"], 6.0);
        let lowest = rows.iter().map(|w| w[2]).fold(f64::INFINITY, f64::min);
        let (peak, at) =
            rows.iter().enumerate().map(|(k, w)| (w[2], k)).fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
        let last = rows.last().unwrap();
        println!(
            "{formulation} {method}: V_L from {lowest:.3e} to {peak:.3e} m3 (at {:.3} s), end p = {:.3e} Pa, V_L = {:.3e} m3, iterations {iterations}",
            at as f64 * 1e-3,
            last[0],
            last[2]
        );
        // Charged well past the pre-charge, then emptied again below it.
        assert!(peak > 0.2 * V0, "{formulation} {method}: peak {peak}");
        assert!(last[0] < 0.5 * P0, "{formulation} {method}: end pressure {}", last[0]);
        // Never more than 0.2 % of V0 below empty, and empty at the end.
        assert!(lowest > -2e-3 * V0, "{formulation} {method}: lowest {lowest}");
        assert!(last[2].abs() < 2e-3 * V0, "{formulation} {method}: end volume {}", last[2]);
        assert!(iterations <= 8.0 * stages, "{formulation} {method}: {iterations} Newton iterations");
    }
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
fn bad_accumulators_are_refused_with_the_element_the_field_and_the_reason() {
    let cases: Vec<(&str, Value, &[&str])> = vec![
        ("node", json!("nowhere"), &["node 'nowhere'", "not a hydraulic volume or source"]),
        ("precharge_pressure", json!(0.0), &["precharge_pressure 0", "positive"]),
        ("precharge_pressure", json!(3e7), &["precharge_pressure 30000000 Pa must lie below max_pressure"]),
        ("volume", json!(-1e-3), &["volume -0.001", "positive"]),
        ("polytropic_exponent", json!(0.8), &["polytropic_exponent 0.8", "[1, 2]"]),
        ("polytropic_exponent", json!(14.0), &["polytropic_exponent 14", "[1, 2]"]),
        ("max_pressure", json!(1e9), &["max_pressure 1000000000 Pa", "the stop", "raise precharge_pressure"]),
        ("inlet_conductance", json!(0.0), &["inlet_conductance 0", "positive"]),
        ("initial_pressure", json!(3e7), &["initial_pressure 30000000", "between precharge_pressure"]),
    ];
    for (field, value, expected) in cases {
        let mut c = slow_charge(1.4);
        c["accumulators"][0][field] = value.clone();
        let e = refusal(c);
        assert!(e.contains("accumulator 'acc'"), "{field} = {value}: {e}");
        for x in expected {
            assert!(e.contains(x), "{field} = {value}: {e}");
        }
    }
    // Both forms of the inlet, or neither.
    let mut c = slow_charge(1.4);
    c["accumulators"][0]["rated_flow"] = json!(1e-3);
    c["accumulators"][0]["rated_pressure_drop"] = json!(1e5);
    let e = refusal(c.clone());
    assert!(e.contains("accumulator 'acc'") && e.contains("give either inlet_conductance"), "{e}");
    c["accumulators"][0].as_object_mut().unwrap().remove("inlet_conductance");
    c["accumulators"][0]["rated_pressure_drop"] = json!(-1.0);
    let e = refusal(c);
    assert!(e.contains("accumulator 'acc'") && e.contains("rated_pressure_drop -1"), "{e}");
    // A name taken by another element.
    let mut c = slow_charge(1.4);
    c["accumulators"][0]["name"] = json!("pump");
    let e = refusal(c);
    assert!(e.contains("pump"), "{e}");
}

#[test]
fn the_liquid_volume_is_a_named_model_exchange_state_with_its_rate_and_dependencies() {
    // Model Exchange: the semirecursive formulations.
    let d = circuit_description(slow_charge(1.4), outputs(), "doubleStep", "trapezoidal", 1e-3);
    let interface = interface_of(&d).unwrap();
    let state = |name: &str| match interface.by_name(name).unwrap_or_else(|| panic!("no variable {name}")).binding {
        Binding::State { index } => index,
        ref b => panic!("{name} is bound to {b:?}"),
    };
    let (acc, node) = (state("state.acc.liquid_volume"), state("state.P.pressure"));
    for name in ["der(state.acc.liquid_volume)", "acc.pressure", "acc.liquid_volume"] {
        assert!(interface.by_name(name).is_some(), "no variable {name}");
    }
    let mut sim = Simulation::new(&d).unwrap();
    assert_eq!(sim.quantity(quantity(&d, "acc.liquid_volume")), 0.0);
    assert_eq!(sim.quantity(quantity(&d, "acc.pressure")), P0);
    sim.ode_activate();
    sim.ode_event().unwrap();
    let n = sim.ode_len();
    let layout = StateLayout::of(&d).unwrap().unwrap();
    assert_eq!(n, layout.len());
    // A state with V_L = 0.3 V0 (the state is V_L p0/V0) and P at 12 MPa.
    let mut x = vec![0.0; n];
    sim.ode_state(&mut x);
    x[acc] = 0.3 * P0;
    x[node] = 1.2e7;
    sim.set_ode_state(&x);
    let mut rates = vec![0.0; n];
    sim.ode_derivatives(&mut rates).unwrap();
    let q = 1e-6 * (1.2e7 - P0 * 0.7f64.powf(-1.4));
    assert!((rates[acc] - P0 / V0 * q).abs() < 1e-9 * (P0 / V0 * q).abs(), "{} vs {}", rates[acc], P0 / V0 * q);
    assert!((sim.quantity(quantity(&d, "acc.liquid_volume")) - 0.3 * V0).abs() < 1e-18);
    // Every derivative that moves with a state lists it among its dependencies.
    let (mut plus, mut minus) = (vec![0.0; n], vec![0.0; n]);
    for j in 0..n {
        let h = 1e-6 * x[j].abs().max(1.0);
        let mut y = x.clone();
        y[j] += h;
        sim.set_ode_state(&y);
        sim.ode_derivatives(&mut plus).unwrap();
        y[j] = x[j] - h;
        sim.set_ode_state(&y);
        sim.ode_derivatives(&mut minus).unwrap();
        for i in 0..n {
            if plus[i] != minus[i] {
                let deps = dependencies(&d, Some(&layout), Unknown::Derivative(i));
                assert!(deps.iter().any(|dep| dep.known == Known::State(j)), "der {i} moves with state {j}: {deps:?}");
            }
        }
    }
}
