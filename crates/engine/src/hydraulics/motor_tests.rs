//! The motor's laws against their closed forms, and the closed-form Jacobians of a circuit
//! with a cylinder and two motors (one into a tank) against forward differences.

use super::*;

/// A rotor on a revolute joint to ground, two motors on it (A -> B between volumes, P -> tank)
/// and a cylinder driven by inputs between C and B: actuators cylinder, m1, m2.
fn motor_circuit() -> Circuit {
    let json = r#"{
        "name": "motors",
        "bodies": [{"name": "rotor", "mass": 1.0, "inertia": [0.1, 0.1, 0.2], "position": [0, 0, 0]}],
        "joints": [{"name": "shaft", "type": "revolute", "body1": "ground", "body2": "rotor",
                    "point": [0, 0, 0], "axis": [0, 0, 1]}],
        "hydraulics": {
            "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
            "sources": [{"name": "tank", "pressure": 1e5}],
            "volumes": [
                {"name": "A", "hose_volume": 1e-4, "hose_bulk_modulus": 7e8, "initial_pressure": 8e6},
                {"name": "B", "hose_volume": 5e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 2e6},
                {"name": "C", "hose_volume": 5e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 3e6},
                {"name": "P", "hose_volume": 2e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 9e6}
            ],
            "motors": [
                {"name": "m1", "port_a": "A", "port_b": "B", "joint": "shaft", "displacement": 2e-5,
                 "leakage_coefficient": 3e-12, "volumetric_efficiency": 0.95,
                 "hydromechanical_efficiency": 0.9, "viscous_friction": 0.05},
                {"name": "m2", "port_a": "P", "port_b": "tank", "joint": "shaft", "displacement": 1e-5,
                 "leakage_coefficient": 1e-12}
            ],
            "cylinders": [{"name": "cyl", "piston_side": "C", "rod_side": "B", "piston_diameter": 0.08,
                "rod_diameter": 0.035, "stroke": 1.0, "wall_bulk_modulus": 3.15e10,
                "length_input": "s", "velocity_input": "v"}]
        },
        "interface": {"inputs": [{"name": "s", "start": 1.4}, {"name": "v"}]},
        "experiment": {"stop": 1.0, "step": 0.01},
        "solver": {"formulation": "doubleStep", "method": "trapezoidal"}
    }"#;
    let d = format::parse(json).unwrap();
    Circuit::from_description(&d).unwrap()
}

#[test]
fn motors_are_actuators_after_the_cylinders() {
    let c = motor_circuit();
    assert_eq!((c.n_cylinders(), c.n_actuators()), (1, 3));
    assert_eq!(c.motors[0].port_a, Node::Volume(0));
    assert_eq!(c.motors[1].port_b, Node::Source(0));
    assert!((c.motors[0].displacement - 2e-5 / std::f64::consts::TAU).abs() < 1e-20);
}

#[test]
fn flows_and_torques_follow_the_motor_laws() {
    let c = motor_circuit();
    let p = [8e6, 2e6, 3e6, 9e6];
    let omega = 12.0;
    let strokes = [
        Stroke { length: 1.4, velocity: 0.0 },
        Stroke { length: 0.3, velocity: omega },
        Stroke { length: 0.3, velocity: omega },
    ];
    let (mut rates, mut forces) = ([0.0; 4], [0.0; 3]);
    c.evaluate(0.0, &p, &[], &strokes, &[1.4, 0.0], &mut rates, &mut forces).unwrap();
    let de1 = 2e-5 / std::f64::consts::TAU;
    let de2 = 1e-5 / std::f64::consts::TAU;
    // q = D_e omega / eta_v + C_l (p_A - p_B), T = eta_hm D_e (p_A - p_B) - B omega.
    let q1 = de1 * omega / 0.95 + 3e-12 * 6e6;
    let q2 = de2 * omega + 1e-12 * (9e6 - 1e5);
    assert!((forces[1] - (0.9 * de1 * 6e6 - 0.05 * omega)).abs() < 1e-9, "{}", forces[1]);
    assert!((forces[2] - de2 * (9e6 - 1e5)).abs() < 1e-9, "{}", forces[2]);
    // Volume A (hose only): p' = B_e/V (-q1) with 1/B_e = 1/B_oil + 1/B_hose.
    let k = |v: f64| 1.0 / (v / 1.5e9 + v / 7e8);
    assert!((rates[0] - k(1e-4) * (-q1)).abs() < 1e-9 * rates[0].abs(), "{} vs {}", rates[0], -k(1e-4) * q1);
    assert!((rates[3] - k(2e-5) * (-q2)).abs() < 1e-9 * rates[3].abs(), "{} vs {}", rates[3], -k(2e-5) * q2);
    // The torques alone agree with the evaluation's.
    let mut alone = [0.0; 3];
    c.forces_with(&p, &strokes, &[1.4, 0.0], &mut alone).unwrap();
    assert_eq!(&alone[1..], &forces[1..]);
    assert_eq!(c.motor_drop(1, &p, &|_| 0.0), 9e6 - 1e5);
}

#[test]
fn closed_form_jacobians_with_motors_match_forward_differences() {
    let c = motor_circuit();
    let (np, na) = (c.n_pressures(), c.n_actuators());
    for (p, omega, v) in [([8e6, 2e6, 3e6, 9e6], 12.0, 0.03), ([1e6, 5e6, 2e6, 4e5], -30.0, -0.01)] {
        let strokes = [
            Stroke { length: 1.4, velocity: v },
            Stroke { length: 0.3, velocity: omega },
            Stroke { length: 0.3, velocity: omega },
        ];
        let inputs = [1.4, v];
        let (mut a, mut f, mut r) =
            (CircuitJacobian::default(), CircuitJacobian::default(), CircuitJacobian::default());
        c.jacobian(0.0, &p, &[], &strokes, &inputs, &mut a).unwrap();
        c.jacobian_fd(0.0, &p, &[], &strokes, &inputs, &mut f).unwrap();
        let (mut rates, mut forces) = ([0.0; 4], [0.0; 3]);
        c.evaluate(0.0, &p, &[], &strokes, &inputs, &mut rates, &mut forces).unwrap();
        c.jacobian_at_rates(0.0, &p, &[], &strokes, &inputs, &rates, &mut r).unwrap();
        assert_eq!((a.dp_dv.len(), a.df_dp.len(), a.df_dv.len()), (np * na, na * np, na));
        let close = |x: f64, y: f64, what: &str| {
            assert!(
                (x - y).abs() <= 1e-5 * x.abs().max(y.abs()) + 1e-9,
                "{what}: closed form {x:e} vs differences {y:e} at {p:?}, omega {omega}"
            );
        };
        for (k, (x, y)) in a.dp_dp.iter().zip(&f.dp_dp).enumerate() {
            close(*x, *y, &format!("dp'/dp [{k}]"));
        }
        for k in 0..np * na {
            close(a.dp_ds[k], f.dp_ds[k], &format!("dp'/ds [{k}]"));
            close(a.dp_dv[k], f.dp_dv[k], &format!("dp'/ds' [{k}]"));
            close(a.df_dp[k], f.df_dp[k], &format!("dF/dp [{k}]"));
        }
        for k in 0..na {
            close(a.df_ds[k], f.df_ds[k], &format!("dF/ds [{k}]"));
            close(a.df_dv[k], f.df_dv[k], &format!("dF/ds' [{k}]"));
        }
        for (x, y) in a.dp_dv.iter().chain(&a.dp_dp).zip(r.dp_dv.iter().chain(&r.dp_dp)) {
            assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "from rates {y:e} vs {x:e}");
        }
        // The motor columns are the laws' slopes: dq/domega = D_e/eta_v out of A, dT/dp_A = eta_hm D_e.
        let de1 = 2e-5 / std::f64::consts::TAU;
        let k_a = 1.0 / (1e-4 / 1.5e9 + 1e-4 / 7e8);
        assert!((a.dp_dv[1] + k_a * de1 / 0.95).abs() < 1e-9 * k_a * de1, "{}", a.dp_dv[1]);
        assert!((a.df_dp[np] - 0.9 * de1).abs() < 1e-20 && (a.df_dp[np + 1] + 0.9 * de1).abs() < 1e-20);
        assert_eq!((a.df_dv[1], a.df_dv[2]), (-0.05, 0.0));
    }
}
