//! The components' laws against their closed forms, and the closed-form Jacobians of a
//! circuit with every component against forward differences.

use super::components::ramp;
use super::*;

/// A circuit with a pump (compensated), a relief valve, a check valve, a counterbalance
/// valve and a line; a cylinder driven by inputs.
pub(super) fn component_circuit() -> (format::Description, Circuit) {
    let json = r#"{
        "name": "components", "bodies": [],
        "hydraulics": {
            "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
            "sources": [{"name": "tank", "pressure": 1e5}],
            "volumes": [
                {"name": "P", "hose_volume": 1e-4, "hose_bulk_modulus": 1e12, "initial_pressure": 1e7},
                {"name": "A", "hose_volume": 5e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 8e6},
                {"name": "B", "hose_volume": 5e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 2e6},
                {"name": "L", "hose_volume": 2e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 9e6}
            ],
            "valves": [
                {"type": "relief", "name": "rv", "from": "P", "to": "tank", "cracking_pressure": 1.5e7,
                 "full_open_pressure": 1.6e7, "rated_flow": 1e-3, "rated_pressure_drop": 1.6e7},
                {"type": "check", "name": "cv", "from": "P", "to": "A", "cracking_pressure": 2e5,
                 "full_open_pressure": 4e5, "rated_flow": 5e-4, "rated_pressure_drop": 1e6},
                {"type": "counterbalance", "name": "cbv", "load": "L", "back": "B", "pilot": "A",
                 "pilot_ratio": 4.0, "cracking_pressure": 2e7, "full_open_pressure": 2.2e7,
                 "rated_flow": 5e-4, "rated_pressure_drop": 1e6}
            ],
            "pumps": [{"name": "pump", "inlet": "tank", "outlet": "P", "displacement": 2e-5, "shaft_speed": 150.0,
                       "leakage_coefficient": 1e-12, "compensator": {"setting": 1.4e7, "regulation_range": 1e6}}],
            "lines": [{"name": "hose", "from": "A", "to": "L", "length": 5.0, "diameter": 0.012, "segments": 4,
                       "kinematic_viscosity": 4e-5, "wall_bulk_modulus": 7e8, "initial_pressure": 8e6}],
            "cylinders": [{"name": "cyl", "piston_side": "L", "rod_side": "B", "piston_diameter": 0.08,
                "rod_diameter": 0.035, "stroke": 1.0, "wall_bulk_modulus": 3.15e10,
                "length_input": "s", "velocity_input": "v"}]
        },
        "interface": {"inputs": [{"name": "s", "start": 1.4}, {"name": "v"}]},
        "experiment": {"stop": 1.0, "step": 0.01},
        "solver": {"formulation": "doubleStep", "method": "trapezoidal"}
    }"#;
    let d = format::parse(json).unwrap();
    let c = Circuit::from_description(&d).unwrap();
    (d, c)
}

#[test]
fn the_opening_ramp_is_the_clamp_outside_its_corners_and_has_a_continuous_slope() {
    assert_eq!(ramp(-0.2), (0.0, 0.0));
    assert_eq!(ramp(0.5), (0.5, 1.0));
    assert_eq!(ramp(1.3), (1.0, 0.0));
    for y in [-0.05, 0.05, 0.95, 1.05] {
        let (below, above) = (ramp(y - 1e-12), ramp(y + 1e-12));
        assert!((below.0 - above.0).abs() < 1e-11 && (below.1 - above.1).abs() < 1e-10, "y = {y}");
    }
}

#[test]
fn the_circuit_has_the_lines_cells_and_faces_as_states() {
    let (_, c) = component_circuit();
    // 4 volumes + 4 cells, 5 faces.
    assert_eq!(c.n_volumes(), 8);
    assert_eq!(c.n_pressures(), 13);
    let p = c.initial_pressures(&[None]);
    assert_eq!(&p[4..8], &[8e6; 4]);
    assert_eq!(&p[8..], &[0.0; 5]);
}

#[test]
fn closed_form_jacobians_match_forward_differences_in_every_regime() {
    let (_, c) = component_circuit();
    let strokes = [Stroke { length: 1.4, velocity: 0.03 }];
    let inputs = [1.4, 0.03];
    // (P, A, B, L, cells, faces): relief closed/in band/open, check closed/open, CBV shut/open.
    let mut cases = Vec::new();
    for (pp, pa, pl) in [(1.0e7, 8e6, 9e6), (1.55e7, 1.54e7, 2.1e7), (1.7e7, 5e6, 2.3e7), (1.45e7, 1.42e7, 1.2e7)] {
        let mut p = vec![pp, pa, 2e6, pl, 8.1e6, 8.3e6, 8.6e6, 8.9e6];
        p.extend([3e5, -2e5, 1e5, 4e5, -1e5]);
        cases.push(p);
    }
    for p in &cases {
        let (mut exact, mut fd) = (CircuitJacobian::default(), CircuitJacobian::default());
        c.jacobian(0.3, p, &[], &strokes, &inputs, &mut exact).unwrap();
        c.jacobian_fd(0.3, p, &[], &strokes, &inputs, &mut fd).unwrap();
        let np = c.n_pressures();
        for i in 0..np {
            let scale = (0..np).map(|j| fd.dp_dp[i * np + j].abs()).fold(1.0, f64::max);
            for j in 0..np {
                let (e, f) = (exact.dp_dp[i * np + j], fd.dp_dp[i * np + j]);
                assert!((e - f).abs() <= 1e-5 * scale, "p = {p:?}: d rate {i} / d state {j}: {e} vs {f}");
            }
        }
        for (k, (e, f)) in exact.dp_ds.iter().zip(&fd.dp_ds).enumerate() {
            assert!((e - f).abs() <= 1e-5 * f.abs().max(1.0), "dp_ds[{k}]: {e} vs {f}");
        }
    }
}

/// A relief valve's flow between ports at `dp` (tank at 0).
fn relief_flow(c: &Circuit, dp: f64) -> f64 {
    let v = &c.components.valves[0];
    let p = [1e5 + dp, 8e6, 2e6, 9e6, 8e6, 8e6, 8e6, 8e6, 0.0, 0.0, 0.0, 0.0, 0.0];
    v.flow(|n| match n {
        Node::Volume(i) => p[i],
        Node::Source(_) => 1e5,
    })
    .0
}

#[test]
fn relief_valve_follows_its_static_curve() {
    let (_, c) = component_circuit();
    let c_max = 1e-3 / 1.6e7f64.sqrt();
    // Closed: leakage only.
    let closed = relief_flow(&c, 1.2e7);
    assert!((closed - 1e-6 * c_max * 1.2e7f64.sqrt()).abs() < 1e-15, "{closed}");
    // In the band (away from the rounded corners): the linear opening.
    for dp in [1.52e7, 1.55e7, 1.58e7] {
        let x = (dp - 1.5e7) / 1e6;
        let expected = c_max * (1e-6 + (1.0 - 1e-6) * x) * dp.sqrt();
        assert!((relief_flow(&c, dp) - expected).abs() < 1e-12 * expected.max(1e-9), "dp = {dp}");
    }
    // Beyond full opening: the orifice of the rated flow.
    let open = relief_flow(&c, 2.0e7);
    assert!((open - c_max * 2.0e7f64.sqrt()).abs() < 1e-12);
    assert!((relief_flow(&c, 1.6e7 * 1.06) - c_max * (1.6e7 * 1.06f64).sqrt()).abs() < 1e-12);
}

#[test]
fn counterbalance_valve_opens_at_the_pilot_pressure_of_its_force_balance() {
    let (_, c) = component_circuit();
    // Relief stage L -> B opens when (p_L - p_B) + 4 (p_A - p_B) exceeds 20 MPa.
    let stage = &c.components.valves[2];
    let flow = |pl: f64, pa: f64, pb: f64| {
        stage
            .flow(|n| match n {
                Node::Volume(0) => 1e7,
                Node::Volume(1) => pa,
                Node::Volume(2) => pb,
                Node::Volume(3) => pl,
                _ => 0.0,
            })
            .0
    };
    let (pl, pb): (f64, f64) = (1.2e7, 1e5);
    // Opening pilot: p_A = p_B + (20 MPa - (p_L - p_B)) / 4 (+- the corner of the ramp).
    let opening = pb + (2e7 - (pl - pb)) / 4.0;
    let leak = 1e-6 * 5e-4 / 1e6f64.sqrt() * (pl - pb).sqrt();
    assert!((flow(pl, opening - 0.06 * 2e6 / 4.0, pb) - leak).abs() < 1e-15);
    assert!(flow(pl, opening + 0.5e6 / 4.0, pb) > 100.0 * leak);
    // The check stage passes free flow B -> L above its cracking pressure.
    let check = &c.components.valves[3];
    let back = |pb: f64| {
        check
            .flow(|n| match n {
                Node::Volume(2) => pb,
                Node::Volume(3) => 1e7,
                _ => 0.0,
            })
            .0
    };
    assert!(back(1e7 + 5e4) < 1e-9 && back(1e7 + 3e5) > 1e-4);
}

#[test]
fn compensated_pump_displacement_falls_linearly_over_its_regulation_range() {
    let (_, c) = component_circuit();
    let pump = &c.components.pumps[0];
    let ideal = 2e-5 * 150.0 / std::f64::consts::TAU;
    assert!((pump.flow(150.0, 1e7).0 - (ideal - 1e-12 * 1e7)).abs() < 1e-15);
    let (q, _) = pump.flow(150.0, 1.45e7);
    assert!((q - (0.5 * ideal - 1e-12 * 1.45e7)).abs() < 1e-15, "{q}");
    assert!((pump.flow(150.0, 1.6e7).0 + 1e-12 * 1.6e7).abs() < 1e-15);
    // Shaft torque D dp / (2 pi eta_hm).
    assert!((pump.torque(1e7) - 2e-5 * 1e7 / std::f64::consts::TAU).abs() < 1e-9);
}
