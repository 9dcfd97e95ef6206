//! The cushion's fraction against its closed form, and the closed-form Jacobians of
//! cushioned circuits (both ends) against forward differences.

use super::*;

/// A cylinder driven by inputs (closed length 0.8 m, stroke 0.5 m) with chamber volumes A
/// (piston side) and B (rod side), each behind a cushioned throttle to its port volume.
fn cushioned(end_fraction: f64) -> (format::Description, Circuit) {
    let json = format!(
        r#"{{
        "name": "cushions", "bodies": [],
        "hydraulics": {{
            "oil": {{"bulk_modulus": 1.5e9, "density": 850.0}},
            "sources": [{{"name": "tank", "pressure": 1e5}}],
            "volumes": [
                {{"name": "A", "hose_volume": 1e-6, "hose_bulk_modulus": 7e8, "initial_pressure": 1e7}},
                {{"name": "PA", "hose_volume": 1e-4, "hose_bulk_modulus": 7e8, "initial_pressure": 2e6}},
                {{"name": "B", "hose_volume": 1e-6, "hose_bulk_modulus": 7e8, "initial_pressure": 9e6}},
                {{"name": "PB", "hose_volume": 1e-4, "hose_bulk_modulus": 7e8, "initial_pressure": 3e6}}
            ],
            "valves": [
                {{"type": "throttle", "name": "ca", "from": "A", "to": "PA", "discharge_coefficient": 0.7,
                  "diameter": 0.004, "cushion": {{"cylinder": "cyl", "end": "retracted", "length": 0.03,
                  "end_fraction": {end_fraction}}}}},
                {{"type": "throttle", "name": "cb", "from": "PB", "to": "B", "discharge_coefficient": 0.7,
                  "diameter": 0.004, "cushion": {{"cylinder": "cyl", "end": "extended", "length": 0.04,
                  "end_fraction": {end_fraction}}}}},
                {{"type": "throttle", "name": "out", "from": "PA", "to": "tank", "discharge_coefficient": 0.7,
                  "diameter": 0.004}}
            ],
            "cylinders": [{{"name": "cyl", "piston_side": "A", "rod_side": "B", "piston_diameter": 0.08,
                "rod_diameter": 0.035, "stroke": 0.5, "closed_length": 0.8, "wall_bulk_modulus": 3.15e10,
                "length_input": "s", "velocity_input": "v"}}]
        }},
        "interface": {{"inputs": [{{"name": "s", "start": 1.0}}, {{"name": "v"}}]}},
        "experiment": {{"stop": 1.0, "step": 0.01}},
        "solver": {{"formulation": "doubleStep", "method": "trapezoidal"}}
    }}"#
    );
    let d = format::parse(&json).unwrap_or_else(|e| panic!("{e}"));
    let c = Circuit::from_description(&d).unwrap();
    (d, c)
}

#[test]
fn the_fraction_rises_from_the_end_fraction_to_one_over_the_cushion_length_with_a_continuous_slope() {
    let (_, c) = cushioned(0.01);
    let (retracted, extended) = (c.throttles[0].cushion.as_ref().unwrap(), c.throttles[1].cushion.as_ref().unwrap());
    let cyl = &c.cylinders[0];
    // At and beyond the ends of the ramp the fraction is exact.
    assert_eq!(retracted.fraction(0.0), (0.01, 0.0));
    assert_eq!(retracted.fraction(-0.01), (0.01, 0.0));
    assert_eq!(retracted.fraction(0.03), (1.0, 0.0));
    assert_eq!(retracted.fraction(0.5), (1.0, 0.0));
    // Midway it is the straight line through (0, f_0) and (L, 1) (the stretched ramp is
    // symmetric about its middle).
    let (f, df) = retracted.fraction(0.015);
    assert!((f - 0.505).abs() < 1e-15, "{f}");
    assert!((df - 0.99 * 1.1 / 0.03).abs() < 1e-12, "{df}");
    // Continuous value and slope at the corners of the stretched ramp.
    let e = 0.05;
    for y in [-e, e, 1.0 - e, 1.0 + e] {
        let d = (y + e) / (1.0 + 2.0 * e) * 0.03;
        let (below, above) = (retracted.fraction(d - 1e-13), retracted.fraction(d + 1e-13));
        assert!((below.0 - above.0).abs() < 1e-10 && (below.1 - above.1).abs() < 1e-8, "d = {d}");
    }
    // Distances: |s| - 0.8 at the retracted end, 1.3 - |s| at the extended end.
    assert_eq!(retracted.distance(cyl, 0.81), (0.81 - 0.8, 1.0));
    assert_eq!(extended.distance(cyl, 1.29), (1.3 - 1.29, -1.0));
    assert_eq!(extended.factor(cyl, 1.0), (1.0, 0.0));
}

#[test]
fn cushioned_flows_scale_the_throttle_law_and_their_stroke_slopes_match_forward_differences() {
    for end_fraction in [0.01, 0.2, 1.0] {
        let (_, c) = cushioned(end_fraction);
        let p = [1.2e7, 2e6, 9e6, 3e6];
        // In the retracted cushion (its corners and its middle), free, in the extended cushion.
        for s in [0.8005, 0.8012, 0.815, 0.8295, 0.9, 1.0, 1.262, 1.2799, 1.2995] {
            let strokes = [Stroke { length: s, velocity: -0.05 }];
            let inputs = [s, -0.05];
            let (mut rates, mut forces) = (vec![0.0; 4], vec![0.0; 1]);
            c.evaluate(0.0, &p, &[], &strokes, &inputs, &mut rates, &mut forces).unwrap();
            // The flow out of A: C f(d) sqrt(dp) (turbulent at 10 MPa).
            let coefficient = 0.7 * std::f64::consts::FRAC_PI_4 * 0.004f64.powi(2) * (2.0f64 / 850.0).sqrt();
            let f = c.throttles[0].cushion.as_ref().unwrap().factor(&c.cylinders[0], s).0;
            let q = coefficient * f * 1e7f64.sqrt();
            let (area, chamber) = (c.cylinders[0].area_piston, s - 0.8);
            let expected = (-q - area * -0.05) * c.stiffness(0, &strokes);
            assert!((rates[0] - expected).abs() <= 1e-12 * expected.abs(), "s = {s}: {} vs {expected}", rates[0]);
            assert!(chamber > 0.0);
            let (mut exact, mut fd) = (CircuitJacobian::default(), CircuitJacobian::default());
            c.jacobian(0.0, &p, &[], &strokes, &inputs, &mut exact).unwrap();
            c.jacobian_fd(0.0, &p, &[], &strokes, &inputs, &mut fd).unwrap();
            // Forward differences in |s| lose up to 4e-5 at the ramp's corners and at the
            // smallest chambers (the curvature of f and of B_e/V); a missing term is O(1).
            for (k, (e, x)) in exact.dp_ds.iter().zip(&fd.dp_ds).enumerate() {
                assert!((e - x).abs() <= 1e-4 * x.abs().max(1e3), "f0 {end_fraction}, s = {s}: dp_ds[{k}]: {e} vs {x}");
            }
            for (k, (e, x)) in exact.dp_dp.iter().zip(&fd.dp_dp).enumerate() {
                assert!((e - x).abs() <= 1e-5 * x.abs().max(1.0), "f0 {end_fraction}, s = {s}: dp_dp[{k}]: {e} vs {x}");
            }
        }
    }
}

#[test]
fn a_cushion_that_closes_moves_the_stroke_jacobian_of_both_its_volumes() {
    // In the middle of the retracted cushion the throttle's flow changes with |s|: the
    // entries of A and PA by |s| differ from those of the same circuit without cushions.
    let (_, c) = cushioned(0.01);
    // The same circuit with the cushions' fractions at this stroke frozen into the
    // coefficients: the same flows, no dependence of the throttles on |s|.
    let mut bare = c.clone();
    for t in &mut bare.throttles {
        if let Some(cushion) = t.cushion.take() {
            t.coefficient *= cushion.factor(&c.cylinders[0], 0.815).0;
        }
    }
    let p = [1.2e7, 2e6, 9e6, 3e6];
    let strokes = [Stroke { length: 0.815, velocity: -0.05 }];
    let inputs = [0.815, -0.05];
    let (mut a, mut b) = (CircuitJacobian::default(), CircuitJacobian::default());
    c.jacobian(0.0, &p, &[], &strokes, &inputs, &mut a).unwrap();
    bare.jacobian(0.0, &p, &[], &strokes, &inputs, &mut b).unwrap();
    // dQ/d|s| = C f'(d) sqrt(dp) leaves A and enters PA.
    let coefficient = 0.7 * std::f64::consts::FRAC_PI_4 * 0.004f64.powi(2) * (2.0f64 / 850.0).sqrt();
    let dq = coefficient * 0.99 * 1.1 / 0.03 * 1e7f64.sqrt();
    let da = a.dp_ds[0] - b.dp_ds[0];
    let dpa = a.dp_ds[1] - b.dp_ds[1];
    assert!((da + dq * c.stiffness(0, &strokes)).abs() < 1e-9 * da.abs(), "{da}");
    assert!((dpa - dq * c.stiffness(1, &strokes)).abs() < 1e-9 * dpa.abs(), "{dpa}");
    // The rod-side cushion is open there: B and PB are untouched.
    assert_eq!(a.dp_ds[2], b.dp_ds[2]);
    assert_eq!(a.dp_ds[3], b.dp_ds[3]);
}
