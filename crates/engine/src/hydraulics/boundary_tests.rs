//! The circuit of [Jaiswal2021, Sect. 5] split at the directional valve's ports into the valve (its
//! ports are sources whose pressures are inputs) and the rest (V1 and V3 fed by inflow
//! inputs): the two halves together give the whole circuit's eq. (44).

use super::tests::seed_circuit;
use super::*;

/// The valve alone: ports A and B at input pressures (inputs 0 and 1).
fn valve() -> Circuit {
    let json = r#"{
        "name": "valve", "bodies": [],
        "hydraulics": {
            "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
            "sources": [{"name": "pump", "pressure": 7.6e6}, {"name": "tank", "pressure": 1e5},
                        {"name": "A", "pressure_input": "pa"}, {"name": "B", "pressure_input": "pb"}],
            "volumes": [],
            "valves": [{"type": "directional", "name": "dcv", "pump": "pump", "tank": "tank", "port_a": "A",
                        "port_b": "B", "flow_constant": 2.138e-8, "time_constant": 4.547e-3, "reference": {"cycle": []}}]
        },
        "interface": {"inputs": [{"name": "pa", "start": 5e6}, {"name": "pb", "start": 3.5e6}],
                      "outputs": [{"source": "A", "quantities": ["flow"]}, {"source": "B", "quantities": ["flow"]}]},
        "experiment": {"stop": 1.0, "step": 0.01},
        "solver": {"formulation": "doubleStep", "method": "trapezoidal"}
    }"#;
    Circuit::from_description(&format::parse(json).unwrap()).unwrap()
}

/// The rest: the circuit of [Jaiswal2021, Sect. 5] without the valve, V1 and V3 fed by inputs 2 and 3.
fn rest() -> Circuit {
    let (d, _) = seed_circuit();
    let mut v = serde_json::to_value(&d).unwrap();
    let h = &mut v["hydraulics"];
    h["sources"] = serde_json::json!([]);
    h["valves"].as_array_mut().unwrap().retain(|v| v["type"] == "throttle");
    h["volumes"][0]["inflow_input"] = "qa".into();
    h["volumes"][2]["inflow_input"] = "qb".into();
    let inputs = v["interface"]["inputs"].as_array_mut().unwrap();
    inputs.push(serde_json::json!({"name": "qa"}));
    inputs.push(serde_json::json!({"name": "qb"}));
    Circuit::from_description(&format::parse(&v.to_string()).unwrap()).unwrap()
}

/// States across every flow regime: pressures, spool, stroke.
const CASES: [([f64; 3], f64, Stroke); 4] = [
    ([5.25e6, 5.0e6, 3.5e6], 10.0, Stroke { length: 1.35, velocity: 0.05 }),
    ([4.0e6, 4.05e6, 2.0e6], -10.0, Stroke { length: 1.3, velocity: -0.08 }),
    ([5.0e6, 4.9e6, 1.5e5], 3.0, Stroke { length: 1.7, velocity: 0.02 }), // laminar B -> T
    ([5.0e6, 5.0e6 + 1e4, 7.5e6], -2.0, Stroke { length: 1.2, velocity: 0.0 }), // laminar pump -> B
];

#[test]
fn the_valve_and_the_rest_exchanging_port_flows_and_pressures_give_eq_44() {
    let (_, whole) = seed_circuit();
    let (valve, rest) = (valve(), rest());
    for (p, u, stroke) in CASES {
        let (mut expected, mut f) = ([0.0; 3], [0.0]);
        whole.evaluate(0.0, &p, &[u], &[stroke], &[], &mut expected, &mut f).unwrap();
        // The valve at the port pressures p1 and p3 delivers Q_d1 into A and -Q_3d into B.
        let port = [p[0], p[2]];
        let input = |i: usize| port[i];
        let flows = [valve.source_flow(2, 0.0, &[], &[u], &input), valve.source_flow(3, 0.0, &[], &[u], &input)];
        let inputs = [stroke.length, stroke.velocity, flows[0], flows[1]];
        let (mut rates, mut g) = ([0.0; 3], [0.0]);
        rest.evaluate(0.0, &p, &[], &[stroke], &inputs, &mut rates, &mut g).unwrap();
        for k in 0..3 {
            assert!(
                (rates[k] - expected[k]).abs() <= 1e-9 * expected[k].abs().max(1.0),
                "{p:?} U {u}: p{}' split {:e} vs whole {:e}",
                k + 1,
                rates[k],
                expected[k]
            );
        }
        assert_eq!(f, g);
        // No flow into the pump or tank is lost: what the pump gives, the ports and tank take.
        let total: f64 = (0..4).map(|k| valve.source_flow(k, 0.0, &[], &[u], &input)).sum();
        assert!(total.abs() < 1e-15, "{total:e}");
    }
}

#[test]
fn the_port_flow_rates_match_central_differences_along_a_trajectory() {
    let valve = valve();
    for (p, u, _) in CASES {
        // Port pressures and spool moving linearly: p_A = p1 + 3e6 t, p_B = p3 - 2e6 t, U = u + 50 t.
        let (rates, spool_rate) = ([3e6, -2e6], 50.0);
        let flow = |k: usize, t: f64| {
            let port = [p[0] + rates[0] * t, p[2] + rates[1] * t];
            valve.source_flow(k, 0.0, &[], &[u + spool_rate * t], &|i| port[i])
        };
        let port = [p[0], p[2]];
        for k in [2, 3] {
            let exact = valve.source_flow_rate(k, 0.0, &[], &[], &[u], &[spool_rate], &|i| port[i], &|i| rates[i]);
            let h = 1e-7;
            let central = (flow(k, h) - flow(k, -h)) / (2.0 * h);
            assert!(
                (exact - central).abs() <= 1e-5 * central.abs().max(1e-9),
                "{p:?} U {u}: port {k}: {exact:e} vs {central:e}"
            );
        }
    }
}

#[test]
fn closed_form_jacobians_with_inflows_match_forward_differences() {
    let rest = rest();
    for (p, _, stroke) in CASES {
        let inputs = [stroke.length, stroke.velocity, 2.5e-4, -2e-4];
        let (mut a, mut f) = (CircuitJacobian::default(), CircuitJacobian::default());
        rest.jacobian(0.0, &p, &[], &[stroke], &inputs, &mut a).unwrap();
        rest.jacobian_fd(0.0, &p, &[], &[stroke], &inputs, &mut f).unwrap();
        for (k, (x, y)) in a
            .dp_dp
            .iter()
            .chain(&a.dp_ds)
            .chain(&a.dp_dv)
            .zip(f.dp_dp.iter().chain(&f.dp_ds).chain(&f.dp_dv))
            .enumerate()
        {
            assert!(
                (x - y).abs() <= 1e-5 * x.abs().max(y.abs()) + 1e-9,
                "[{k}] closed form {x:e} vs differences {y:e} at {p:?}"
            );
        }
    }
}
