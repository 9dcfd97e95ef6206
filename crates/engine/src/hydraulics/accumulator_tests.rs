//! The accumulator's gas law against its closed form, the continuity of its stops, and the
//! closed-form Jacobians of a circuit with accumulators against forward differences.

use super::accumulator::gas_ratio;
use super::*;

/// A pump into volume P with an accumulator on it (p0 = 5 MPa, V0 = 1 l, n = 1.4), a relief
/// valve to the tank, and a second accumulator on a source (n = 1).
fn accumulator_circuit() -> Circuit {
    let json = r#"{
        "name": "accumulators", "bodies": [],
        "hydraulics": {
            "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
            "sources": [{"name": "tank", "pressure": 1e5}, {"name": "supply", "pressure": 8e6}],
            "volumes": [{"name": "P", "hose_volume": 1e-4, "hose_bulk_modulus": 1e12, "initial_pressure": 1e7}],
            "valves": [{"type": "relief", "name": "rv", "from": "P", "to": "tank", "cracking_pressure": 1.5e7,
                        "full_open_pressure": 1.6e7, "rated_flow": 1e-3, "rated_pressure_drop": 1.6e7}],
            "pumps": [{"name": "pump", "inlet": "tank", "outlet": "P", "displacement": 2e-5, "shaft_speed": 150.0}],
            "accumulators": [
                {"name": "acc", "node": "P", "precharge_pressure": 5e6, "volume": 1e-3, "max_pressure": 2.5e7,
                 "inlet_conductance": 1e-9, "initial_pressure": 1e7},
                {"name": "acc2", "node": "supply", "precharge_pressure": 4e6, "volume": 2e-3,
                 "polytropic_exponent": 1.0, "max_pressure": 1.6e7, "rated_flow": 1e-3, "rated_pressure_drop": 1e6}
            ]
        },
        "experiment": {"stop": 1.0, "step": 0.01},
        "solver": {"formulation": "index3", "method": "bdf1"}
    }"#;
    let d = format::parse(json).unwrap();
    Circuit::from_description(&d).unwrap()
}

#[test]
fn the_gas_law_holds_between_the_stops_and_each_junction_is_continuous_with_its_slope() {
    for n in [1.0, 1.4] {
        for v in [0.0, 0.2, 0.5, 0.85, 0.9] {
            let (r, dr) = gas_ratio(v, n);
            let exact = (1.0 - v).powf(-n);
            assert!((r - exact).abs() <= 1e-14 * exact, "n = {n}, v = {v}: {r} vs {exact}");
            assert!((dr - n * exact / (1.0 - v)).abs() <= 1e-13 * dr, "n = {n}, v = {v}");
        }
        // C1 at the empty stop's blend (-1e-3, 0) and at the full stop (1 - 0.1).
        for v in [-1e-3, 0.0, 0.9] {
            let (below, above) = (gas_ratio(v - 1e-12, n), gas_ratio(v + 1e-12, n));
            assert!((below.0 - above.0).abs() < 1e-8 * above.0.abs().max(1.0), "n = {n}, v = {v}: value");
            assert!((below.1 - above.1).abs() < 1e-6 * above.1, "n = {n}, v = {v}: slope {below:?} {above:?}");
        }
        // Monotonic everywhere (the stops only steepen it); zero pressure within 0.16 % of V0
        // below empty.
        let mut last = f64::NEG_INFINITY;
        for k in -200..=1000 {
            let v = k as f64 * 1e-3;
            let (r, dr) = gas_ratio(v, n);
            assert!(r > last && dr > 0.0, "n = {n}, v = {v}");
            last = r;
        }
        assert!(gas_ratio(-1.6e-3, n).0 < 0.0 && gas_ratio(-1.4e-3, n).0 > 0.0, "n = {n}");
    }
}

#[test]
fn the_state_starts_at_the_liquid_volume_of_the_initial_pressure() {
    let c = accumulator_circuit();
    // Volume, then the two accumulators (no line faces).
    assert_eq!(c.n_pressures(), 3);
    let p = c.initial_pressures(&[]);
    let acc = &c.components.accumulators[0];
    let expected = 1e-3 * (1.0 - 0.5f64.powf(1.0 / 1.4));
    assert!((acc.liquid_volume(p[1]) - expected).abs() < 1e-18, "{}", acc.liquid_volume(p[1]));
    assert!((acc.gas_pressure(p[1]).0 - 1e7).abs() < 1e-6);
    // The second starts empty at its pre-charge.
    assert_eq!(p[2], 0.0);
    assert_eq!(c.components.accumulators[1].gas_pressure(0.0).0, 4e6);
    assert_eq!(c.components.accumulators[1].conductance, 1e-9);
}

#[test]
fn closed_form_jacobians_match_forward_differences_across_the_stops() {
    let c = accumulator_circuit();
    // Liquid fractions of the two accumulators: empty stop, its blend, the gas law, the full stop.
    for (v1, v2) in [(-3e-3, -2e-3), (-4e-4, -7e-4), (0.3, 0.6), (0.95, 0.93), (2e-3, 0.05)] {
        let p = [1.2e7, 5e6 * v1, 4e6 * v2];
        let (mut exact, mut fd) = (CircuitJacobian::default(), CircuitJacobian::default());
        c.jacobian(0.3, &p, &[], &[], &[], &mut exact).unwrap();
        c.jacobian_fd(0.3, &p, &[], &[], &[], &mut fd).unwrap();
        for i in 0..3 {
            let scale = (0..3).map(|j| fd.dp_dp[i * 3 + j].abs()).fold(1.0, f64::max);
            for j in 0..3 {
                let (e, f) = (exact.dp_dp[i * 3 + j], fd.dp_dp[i * 3 + j]);
                assert!((e - f).abs() <= 1e-5 * scale, "v = {v1}, {v2}: d rate {i} / d state {j}: {e} vs {f}");
            }
        }
        // The accumulator's rate: (p0/V0) G (p - p_g).
        let (mut rates, mut forces) = ([0.0; 3], []);
        c.evaluate(0.3, &p, &[], &[], &[], &mut rates, &mut forces).unwrap();
        let acc = &c.components.accumulators[0];
        let q = 1e-9 * (1.2e7 - acc.gas_pressure(p[1]).0);
        assert!((rates[1] - 5e6 / 1e-3 * q).abs() < 1e-9 * rates[1].abs().max(1.0));
        // The source's accumulator takes its flow from the source: the source's net inflow.
        let flow = c.source_flow(1, 0.3, &p, &[], &|_| 0.0);
        let q2 = 1e-9 * (8e6 - c.components.accumulators[1].gas_pressure(p[2]).0);
        assert!((flow + q2).abs() < 1e-18, "{flow} vs {}", -q2);
        // Its time derivative along the states' rates, against a difference quotient.
        let rate = c.source_flow_rate(1, 0.3, &p, &rates, &[], &[], &|_| 0.0, &|_| 0.0);
        let h = 1e-7;
        let at = |s: f64| {
            let moved: Vec<f64> = p.iter().zip(&rates).map(|(x, r)| x + s * h * r).collect();
            c.source_flow(1, 0.3, &moved, &[], &|_| 0.0)
        };
        let fd = (at(1.0) - at(-1.0)) / (2.0 * h);
        assert!((rate - fd).abs() <= 1e-5 * fd.abs().max(1e-12), "{rate} vs {fd}");
    }
}
