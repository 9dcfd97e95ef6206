//! The circuit of [Jaiswal2021, Sect. 5] against eq. (44) written out by hand.

use super::*;

/// \[Jaiswal2021\]'s three-volume circuit, driven by inputs (lengths in m, pressures in Pa).
pub(super) fn seed_circuit() -> (format::Description, Circuit) {
    let json = r#"{
        "name": "circuit", "bodies": [],
        "hydraulics": {
            "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
            "sources": [{"name": "pump", "pressure": 7.6e6}, {"name": "tank", "pressure": 1e5}],
            "volumes": [
                {"name": "V1", "hose_volume": 4.71e-5, "hose_bulk_modulus": 1.5e8, "initial_pressure": 5e6},
                {"name": "V2", "hose_volume": 3.14e-5, "hose_bulk_modulus": 1.5e8, "initial_pressure": 5e6},
                {"name": "V3", "hose_volume": 7.85e-5, "hose_bulk_modulus": 1.5e8, "initial_pressure": 3.5e6}
            ],
            "valves": [
                {"type": "directional", "name": "dcv", "pump": "pump", "tank": "tank", "port_a": "V1", "port_b": "V3",
                 "flow_constant": 2.138e-8, "time_constant": 4.547e-3, "reference": {"cycle": []}},
                {"type": "throttle", "name": "throttle", "from": "V1", "to": "V2", "discharge_coefficient": 0.8, "diameter": 0.006}
            ],
            "cylinders": [{"name": "cyl", "piston_side": "V2", "rod_side": "V3", "piston_diameter": 0.08,
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

fn sgn_sqrt(dp: f64) -> f64 {
    if dp.abs() >= 2e5 {
        dp.signum() * dp.abs().sqrt()
    } else {
        dp / 2e5f64.sqrt()
    }
}

/// Eq. (44) with eqs. (23)-(26), (28), (29), (42) and the corrected eq. (43), by hand.
fn by_hand(p: [f64; 3], u: f64, s: f64, sd: f64) -> ([f64; 3], f64) {
    let (pp, pt) = (7.6e6, 1e5);
    let a2 = std::f64::consts::PI / 4.0 * 0.08f64.powi(2);
    let a3 = std::f64::consts::PI / 4.0 * (0.08f64.powi(2) - 0.035f64.powi(2));
    let cvt = 0.8 * std::f64::consts::PI / 4.0 * 0.006f64.powi(2) * (2.0f64 / 850.0).sqrt();
    let (l2, l3) = (s - 1.0, 1.0 - (s - 1.0));
    let (v1, v2, v3) = (4.71e-5, 3.14e-5 + a2 * l2, 7.85e-5 + a3 * l3);
    let be1 = 1.0 / (1.0 / 1.5e9 + 1.0 / 1.5e8);
    let be2 = 1.0 / (1.0 / 1.5e9 + 3.14e-5 / (v2 * 1.5e8) + a2 * l2 / (v2 * 3.15e10));
    let be3 = 1.0 / (1.0 / 1.5e9 + 7.85e-5 / (v3 * 1.5e8) + a3 * l3 / (v3 * 3.15e10));
    let cvd = 2.138e-8;
    let (qd1, q3d) = if u >= 0.0 {
        (cvd * u * sgn_sqrt(pp - p[0]), cvd * u * sgn_sqrt(p[2] - pt))
    } else {
        (cvd * u * sgn_sqrt(p[0] - pt), cvd * u * sgn_sqrt(pp - p[2]))
    };
    let qt = cvt * sgn_sqrt(p[0] - p[1]);
    ([be1 / v1 * (qd1 - qt), be2 / v2 * (qt - a2 * sd), be3 / v3 * (a3 * sd - q3d)], p[1] * a2 - p[2] * a3)
}

#[test]
fn pressure_rates_follow_eq_44_in_every_flow_regime() {
    let (_, c) = seed_circuit();
    let cases = [
        ([5.0e6, 5.0e6, 3.5e6], 0.0, 1.35, 0.0),
        ([5.2e6, 5.0e6, 3.5e6], 10.0, 1.35, 0.05),
        ([4.0e6, 4.05e6, 2.0e6], -10.0, 1.3, -0.08),
        ([5.0e6, 4.9e6, 1.5e5], 3.0, 1.7, 0.02), // laminar B -> T, turbulent throttle
        ([5.0e6, 5.0e6 + 1e4, 7.5e6], -2.0, 1.2, 0.0), // laminar pump -> B and throttle
    ];
    for (p, u, s, sd) in cases {
        let (mut rates, mut f) = ([0.0; 3], [0.0]);
        c.evaluate(0.0, &p, &[u], &[Stroke { length: s, velocity: sd }], &[], &mut rates, &mut f).unwrap();
        let (expected, force) = by_hand(p, u, s, sd);
        for k in 0..3 {
            assert!(
                (rates[k] - expected[k]).abs() <= 1e-9 * expected[k].abs().max(1.0),
                "{p:?} U {u}: p{}' = {} vs {}",
                k + 1,
                rates[k],
                expected[k]
            );
        }
        assert!((f[0] - force).abs() < 1e-6 * force.abs());
    }
}

#[test]
fn a_piston_at_the_end_of_its_stroke_is_an_error_not_a_crash() {
    let (_, c) = seed_circuit();
    let (mut rates, mut f) = ([0.0; 3], [0.0]);
    let e = c
        .evaluate(0.0, &[5e6; 3], &[0.0], &[Stroke { length: 2.0, velocity: 0.1 }], &[], &mut rates, &mut f)
        .unwrap_err();
    assert!(e.to_string().contains("cylinder 'cyl' reached the end of its stroke"), "{e}");
}

#[test]
fn forward_difference_jacobians_match_central_differences() {
    let (_, c) = seed_circuit();
    let p = [5.35e6, 5.1e6, 3.0e6];
    let strokes = [Stroke { length: 1.45, velocity: 0.04 }];
    let mut j = CircuitJacobian::default();
    c.jacobian_fd(0.0, &p, &[7.0], &strokes, &[], &mut j).unwrap();
    let eval = |p: &[f64], s: Stroke| {
        let (mut r, mut f) = ([0.0; 3], [0.0]);
        c.evaluate(0.0, p, &[7.0], &[s], &[], &mut r, &mut f).unwrap();
        (r, f[0])
    };
    for k in 0..3 {
        let h = 1.0;
        let (mut a, mut b) = (p, p);
        a[k] += h;
        b[k] -= h;
        let ((ra, fa), (rb, fb)) = (eval(&a, strokes[0]), eval(&b, strokes[0]));
        for i in 0..3 {
            let central = (ra[i] - rb[i]) / (2.0 * h);
            assert!((j.dp_dp[i * 3 + k] - central).abs() <= 1e-4 * central.abs().max(1.0), "dp{i}/dp{k}");
        }
        assert!((j.df_dp[k] - (fa - fb) / (2.0 * h)).abs() < 1e-6);
    }
    let h = 1e-6;
    let plus = eval(&p, Stroke { velocity: 0.04 + h, ..strokes[0] });
    let minus = eval(&p, Stroke { velocity: 0.04 - h, ..strokes[0] });
    for i in 0..3 {
        let central = (plus.0[i] - minus.0[i]) / (2.0 * h);
        assert!((j.dp_dv[i] - central).abs() <= 1e-4 * central.abs().max(1.0), "dp{i}/dv");
    }
}

#[test]
fn static_start_pressures_balance_the_force_and_equalize_through_the_throttle() {
    let (_, mut c) = seed_circuit();
    c.volumes[0].initial = None;
    c.volumes[1].initial = None;
    let f0 = 11029.38;
    let p = c.initial_pressures(&[Some(f0)]);
    let cyl = &c.cylinders[0];
    assert_eq!(p[0], p[1]);
    assert!((p[1] * cyl.area_piston - p[2] * cyl.area_rod - f0).abs() < 1e-8);
    // Static balance of [Jaiswal2021, Sect. 5] with [Chrono]'s cylinder: 5.024 MPa for the 80/35 mm cylinder at p3 = 3.5 MPa.
    assert!((p[1] - 5.024e6).abs() < 1e3, "{}", p[1]);
}

#[test]
fn closed_form_jacobians_match_forward_differences_in_every_regime() {
    let (_, c) = seed_circuit();
    let cases = [
        ([5.35e6, 5.1e6, 3.0e6], 7.0, Stroke { length: 1.45, velocity: 0.04 }),
        ([5.0e6, 5.0e6 + 1e4, 3.5e6], -3.0, Stroke { length: 1.3, velocity: -0.002 }), // laminar throttle
        ([4.0e6, 4.05e6, 7.5e6], -10.0, Stroke { length: 1.7, velocity: 0.0 }),        // laminar pump -> B
    ];
    for (p, u, stroke) in cases {
        let (mut a, mut f) = (CircuitJacobian::default(), CircuitJacobian::default());
        c.jacobian(0.0, &p, &[u], &[stroke], &[], &mut a).unwrap();
        c.jacobian_fd(0.0, &p, &[u], &[stroke], &[], &mut f).unwrap();
        // The same from the pressure rates of the point (the engine's path).
        let (mut rates, mut forces, mut r) = ([0.0; 3], [0.0; 1], CircuitJacobian::default());
        c.evaluate(0.0, &p, &[u], &[stroke], &[], &mut rates, &mut forces).unwrap();
        c.jacobian_at_rates(0.0, &p, &[u], &[stroke], &[], &rates, &mut r).unwrap();
        for (x, y) in a.dp_ds.iter().chain(&a.dp_dp).zip(r.dp_ds.iter().chain(&r.dp_dp)) {
            assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "from rates {y:e} vs {x:e}");
        }
        let close = |x: f64, y: f64, what: &str| {
            assert!(
                (x - y).abs() <= 1e-5 * x.abs().max(y.abs()) + 1e-9,
                "{what}: closed form {x:e} vs differences {y:e} at {p:?} U {u}"
            );
        };
        for k in 0..9 {
            close(a.dp_dp[k], f.dp_dp[k], &format!("dp'/dp [{k}]"));
        }
        for k in 0..3 {
            close(a.dp_ds[k], f.dp_ds[k], &format!("dp'/ds [{k}]"));
            close(a.dp_dv[k], f.dp_dv[k], &format!("dp'/ds' [{k}]"));
            close(a.df_dp[k], f.df_dp[k], &format!("dF/dp [{k}]"));
        }
        close(a.df_dv[0], f.df_dv[0], "dF/ds'");
    }
}
