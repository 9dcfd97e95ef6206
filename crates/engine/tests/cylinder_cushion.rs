//! End cushions of cylinders in a running machine: a mass (200 kg, 2 t) pushed by a
//! cylinder at a nearly constant speed into its cushioned extended end (the index-3
//! formulation with `bdf1` and the semirecursive `doubleStep` with the trapezoidal rule, 1 ms
//! steps). Checked: the free speed, the trapped chamber's continuity with the cushion
//! throttle's law C f(d) sqrt(p_B - p_PB) and the bypass valves' laws at every step, the
//! creep near the end (f(d) times the speed the open throttle passes at the same drop), the
//! trapped pressure rising in the cushion and bounded by the bypass relief, a slow arrival at
//! the end; and the refusals of bad input.

use crate::common;

use common::quantity;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use mbfmu_model::variables::Quantity;
use serde_json::{json, Value};

const SUPPLY: f64 = 1.0e7;
/// Cylinder: piston 50 mm, rod 28 mm, stroke 0.5 m, closed length 0.6 m.
const STROKE: f64 = 0.5;
const CLOSED: f64 = 0.6;
const START: f64 = 0.95;
/// Cushion: 30 mm, 1 % left at the end, on a 2 mm throttle (C_d 0.7).
const CUSHION: f64 = 0.03;
const END_FRACTION: f64 = 0.01;
const DIAMETER: f64 = 0.002;
/// Bypass relief from the trapped chamber to its port.
const CRACK: f64 = 1.7e7;
const FULL_OPEN: f64 = 1.8e7;

fn areas() -> (f64, f64) {
    let a = std::f64::consts::FRAC_PI_4 * 0.05f64.powi(2);
    (a, a - std::f64::consts::FRAC_PI_4 * 0.028f64.powi(2))
}

fn coefficient() -> f64 {
    0.7 * std::f64::consts::FRAC_PI_4 * DIAMETER * DIAMETER * (2.0f64 / 850.0).sqrt()
}

/// The fraction f(d) of the documented law (the rounded ramp of half-width e = 0.05
/// stretched over [0, L]).
fn fraction(d: f64) -> f64 {
    let e = 0.05;
    let y = (1.0 + 2.0 * e) * d / CUSHION - e;
    let x = if y <= -e {
        0.0
    } else if y < e {
        (y + e).powi(2) / (4.0 * e)
    } else if y <= 1.0 - e {
        y
    } else if y < 1.0 + e {
        1.0 - (1.0 + e - y).powi(2) / (4.0 * e)
    } else {
        1.0
    };
    END_FRACTION + (1.0 - END_FRACTION) * x
}

/// A 2 t mass on a horizontal slide pushed by the cylinder: the supply (10 MPa) feeds the
/// piston side A through a wide throttle; the rod side B (the trapped chamber at the
/// extended end) drains through the cushion throttle to its port volume PB and on to the tank
/// through a wide throttle; a check valve PB -> B (free flow into the chamber) and the bypass
/// relief B -> PB (17-18 MPa) are in parallel with the cushion throttle.
fn machine(formulation: &str, method: &str, mass: f64) -> Value {
    json!({
        "name": "cushioned", "gravity": [0.0, 0.0, 0.0],
        "bodies": [{"name": "mass", "mass": mass, "inertia": [1.0, 1.0, 1.0], "position": [START, 0.0, 0.0]}],
        "joints": [{"name": "slide", "type": "translational", "body1": "ground", "body2": "mass",
                    "point": [START, 0.0, 0.0], "axis": [1.0, 0.0, 0.0], "initial_coordinate": START}],
        "hydraulics": {
            "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
            "sources": [{"name": "supply", "pressure": SUPPLY}, {"name": "tank", "pressure": 0.0}],
            "volumes": [
                {"name": "A", "hose_volume": 1e-4, "hose_bulk_modulus": 1e12, "initial_pressure": SUPPLY},
                {"name": "B", "hose_volume": 1e-6, "hose_bulk_modulus": 1e12, "initial_pressure": 0.0},
                {"name": "PB", "hose_volume": 1e-4, "hose_bulk_modulus": 1e12, "initial_pressure": 0.0}
            ],
            "valves": [
                {"type": "throttle", "name": "feed", "from": "supply", "to": "A", "discharge_coefficient": 0.7, "diameter": 0.02},
                {"type": "throttle", "name": "cushion", "from": "B", "to": "PB", "discharge_coefficient": 0.7,
                 "diameter": DIAMETER,
                 "cushion": {"cylinder": "cyl", "end": "extended", "length": CUSHION, "end_fraction": END_FRACTION}},
                {"type": "check", "name": "refill", "from": "PB", "to": "B", "cracking_pressure": 2e5,
                 "full_open_pressure": 4e5, "rated_flow": 1e-3, "rated_pressure_drop": 1e6},
                {"type": "relief", "name": "bypass", "from": "B", "to": "PB", "cracking_pressure": CRACK,
                 "full_open_pressure": FULL_OPEN, "rated_flow": 1e-3, "rated_pressure_drop": FULL_OPEN},
                {"type": "throttle", "name": "drain", "from": "PB", "to": "tank", "discharge_coefficient": 0.7, "diameter": 0.02}
            ],
            "cylinders": [{"name": "cyl", "piston_side": "A", "rod_side": "B", "piston_diameter": 0.05,
                "rod_diameter": 0.028, "stroke": STROKE, "closed_length": CLOSED, "wall_bulk_modulus": 1e15,
                "body1": "ground", "point1": [0.0, 0.0, 0.0], "body2": "mass", "point2": [START, 0.0, 0.0]}]
        },
        "interface": {"outputs": [
            {"cylinder": "cyl", "quantities": ["length", "velocity"]},
            {"volume": "B", "quantities": ["pressure"]},
            {"volume": "PB", "quantities": ["pressure"]},
            {"system": ["newton_iterations"]}
        ]},
        "experiment": {"stop": 5.0, "step": 1e-3},
        "solver": {"formulation": formulation, "method": method, "step_size": 1e-3, "tolerance": 1e-8,
                   "max_iterations": 50}
    })
}

fn parse(d: &Value) -> Description {
    format::parse(&d.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// Rows (t, |s|, s', p_B, p_PB, Newton iterations) at every 1 ms step up to `stop`.
fn run(d: &Description, stop: f64) -> Vec<[f64; 6]> {
    let mut sim = Simulation::new(d).unwrap_or_else(|e| panic!("{e}"));
    let names = ["cyl.length", "cyl.velocity", "B.pressure", "PB.pressure", "newton_iterations"];
    let qs: Vec<Quantity> = names.iter().map(|n| quantity(d, n)).collect();
    let row = |sim: &Simulation, t: f64| {
        let v: Vec<f64> = qs.iter().map(|&q| sim.quantity(q)).collect();
        [t, v[0], v[1], v[2], v[3], v[4]]
    };
    let mut rows = vec![row(&sim, 0.0)];
    let n = (stop / 1e-3).round() as usize;
    for k in 1..=n {
        let t = k as f64 * 1e-3;
        sim.advance_to(t).unwrap_or_else(|e| panic!("{}: t = {t}: {e}", d.solver.formulation.name()));
        let r = row(&sim, t);
        rows.push(r);
        // The model has no end stop: stop 0.1 mm before the end.
        if CLOSED + STROKE - r[1] < 1e-4 {
            break;
        }
    }
    rows
}

/// The flow of a pressure valve (relief, check) of the documented law at drop `dp`: the
/// rated coefficient times (l + (1 - l) x) sqrt(dp), x the rounded ramp, l = 1e-6.
fn valve_flow(dp: f64, crack: f64, full: f64, rated_flow: f64, rated_drop: f64) -> f64 {
    let e = 0.05;
    let y = (dp - crack) / (full - crack);
    let x = if y <= -e {
        0.0
    } else if y < e {
        (y + e).powi(2) / (4.0 * e)
    } else if y <= 1.0 - e {
        y
    } else if y < 1.0 + e {
        1.0 - (1.0 + e - y).powi(2) / (4.0 * e)
    } else {
        1.0
    };
    rated_flow / rated_drop.sqrt() * (1e-6 + (1.0 - 1e-6) * x) * dp.signum() * dp.abs().sqrt()
}

#[test]
fn a_mass_pushed_into_the_cushioned_end_is_braked_by_the_closing_throttle_and_reaches_the_end_slowly() {
    let (area_piston, area_rod) = areas();
    let c = coefficient();
    let end = CLOSED + STROKE;
    // At rest on the piston (p_A = supply) the rod side holds p_B = p_s A_A / A_B; the open
    // throttle passes C sqrt(p_B) there: the free speed.
    let p_static = SUPPLY * area_piston / area_rod;
    let v_free = c * p_static.sqrt() / area_rod;
    // 200 kg: the cushion throttle alone brakes; 2 t: the bypass relief caps the pressure.
    for mass in [200.0, 2000.0] {
        for (formulation, method) in [("index3", "bdf1"), ("doubleStep", "trapezoidal")] {
            let d = parse(&machine(formulation, method, mass));
            let rows = run(&d, 5.0);
            let distance = |r: &[f64; 6]| end - r[1];
            // Free run: before the cushion, after the start-up transient.
            let free: Vec<&[f64; 6]> = rows.iter().filter(|r| r[0] > 0.1 && distance(r) > CUSHION + 0.005).collect();
            let v_run = free.last().unwrap()[2];
            // The quasi-steady orifice laws at every step after the start-up: the chamber's
            // outflow A_B s' is the cushion throttle's C f(d) sqrt(p_B - p_PB), the relief's
            // and the check valve's flows B -> PB, and the chamber's compression V_B/B p_B'.
            // Per step the chamber's continuity as each method discretizes it:
            // (p_B,k - p_B,k-1)/h = theta r_k + (1 - theta) r_k-1 with the rate
            // r = (B/V_B) (A_B s' - C f(d) sqrt(p_B - p_PB) - q_relief + q_check), theta = 1
            // for bdf1 and 1/2 for the trapezoidal rule (the relief's and the check valve's
            // flows by their documented law); residual relative to (B/V_B) A_B s'.
            let theta = if method == "bdf1" { 1.0 } else { 0.5 };
            let rate = |r: &[f64; 6]| {
                let dp = r[3] - r[4];
                let valves = valve_flow(dp, CRACK, FULL_OPEN, 1e-3, FULL_OPEN) - valve_flow(-dp, 2e5, 4e5, 1e-3, 1e6);
                let outflow = c * fraction(distance(r)) * dp.signum() * dp.abs().sqrt() + valves;
                let stiffness = 1.5e9 / (1e-6 + area_rod * distance(r));
                (stiffness * (area_rod * r[2] - outflow), stiffness * area_rod * r[2].abs())
            };
            let (mut worst, mut samples) = (0.0f64, 0);
            for w in rows.windows(2).filter(|w| w[0][0] >= 0.1) {
                let ((before, _), (now, scale)) = (rate(&w[0]), rate(&w[1]));
                let residual = (w[1][3] - w[0][3]) / 1e-3 - theta * now - (1.0 - theta) * before;
                worst = worst.max(residual.abs() / scale);
                samples += 1;
            }
            // In the cushion (the light mass overshoots at the start-up, through the relief).
            let peak = rows.iter().filter(|r| distance(r) < CUSHION).map(|r| r[3]).fold(0.0, f64::max);
            let iterations = rows.iter().filter(|r| r[0] > 0.1).map(|r| r[5]).fold(0.0, f64::max);
            // Creep near the end (within 3 mm, the relief shut): s' is f(d) times the speed
            // of the open throttle at the same drop.
            let mut creep: f64 = 0.0;
            let mut creep_samples = 0;
            for w in rows.windows(3) {
                let (a, r, b) = (&w[0], &w[1], &w[2]);
                let settled = (b[2] - a[2]).abs() < 0.01 * r[2].abs() && (b[3] - a[3]).abs() < 1e4;
                if !(distance(r) < 0.003 && r[3] < CRACK - 5e5 && settled) {
                    continue;
                }
                let open = c * (r[3] - r[4]).sqrt() / area_rod;
                creep = creep.max((r[2] / (fraction(distance(r)) * open) - 1.0).abs());
                creep_samples += 1;
            }
            let last = rows.last().unwrap();
            let arrival = rows.iter().position(|r| distance(r) < 1e-3).map(|k| last[0] - rows[k][0]);
            println!(
                "{mass} kg, {formulation} {method}: free speed {v_run:.5} m/s (open throttle at p_s A_A/A_B: {v_free:.5}), \
                 continuity with the orifice laws over {samples} steps to {worst:.2e}, peak p_B {:.3} MPa (static {:.3}, relief {}-{} MPa), \
                 creep over {creep_samples} steps to {creep:.2e}, at t = {:.3} s d = {:.3} mm with s' = {:.3e} m/s \
                 (f0 v_free = {:.3e}), the last mm in {arrival:?} s, Newton iterations after 0.1 s at most {iterations}",
                peak / 1e6,
                p_static / 1e6,
                CRACK / 1e6,
                FULL_OPEN / 1e6,
                last[0],
                distance(last) * 1e3,
                last[2],
                END_FRACTION * v_free
            );
            assert!((v_run / v_free - 1.0).abs() < 0.01, "{formulation}: free speed {v_run} vs {v_free}");
            assert!(samples > 500 && worst < 1e-3, "{formulation}: orifice laws to {worst} over {samples}");
            if mass < 1000.0 {
                // The trapped pressure rises in the cushion but stays below the relief.
                assert!(peak > p_static + 2e5 && peak < CRACK, "{formulation}: peak p_B {peak}");
            } else {
                // The bypass relief bounds the trapped pressure ([OpenHydraulics] `CylinderCushion`).
                assert!(peak > CRACK && peak < FULL_OPEN, "{formulation}: peak p_B {peak}");
            }
            assert!(creep_samples >= 5 && creep < 0.01, "{formulation}: creep {creep} over {creep_samples}");
            // Slowly into the end: at the last 0.1 mm the speed is about f0 times the free speed.
            assert!(distance(last) < 1e-4, "{formulation}: stopped at {}", distance(last));
            assert!(last[2] < 1.1 * fraction(distance(last)) * v_free, "{formulation}: arrival speed {}", last[2]);
            // Damped Newton steps as the relief opens and shuts (max_iterations 50).
            let most = if mass < 1000.0 { 4.0 } else { 20.0 };
            assert!(iterations <= most, "{formulation}: {iterations} Newton iterations");
        }
    }
}

/// The message of the error reading the machine with `edit` applied.
fn refusal(edit: impl Fn(&mut Value)) -> String {
    let mut d = machine("index3", "bdf1", 200.0);
    edit(&mut d);
    format::parse(&d.to_string()).expect_err("refused").to_string()
}

#[test]
fn bad_cushions_are_refused_with_the_element_the_field_and_the_reason() {
    let cases: Vec<(&str, Value, &[&str])> = vec![
        ("cylinder", json!("ram"), &["cushion.cylinder 'ram'", "is not a cylinder of the circuit", "cyl"]),
        ("length", json!(0.0), &["cushion.length 0 m", "positive and at most the stroke 0.5 m"]),
        ("length", json!(-0.01), &["cushion.length -0.01 m", "positive"]),
        ("length", json!(0.6), &["cushion.length 0.6 m", "at most the stroke 0.5 m of cylinder 'cyl'"]),
        ("end_fraction", json!(0.0), &["cushion.end_fraction 0", "(0, 1]"]),
        ("end_fraction", json!(1.5), &["cushion.end_fraction 1.5", "(0, 1]"]),
        ("end_fraction", json!(-0.1), &["cushion.end_fraction -0.1", "(0, 1]"]),
    ];
    for (field, value, expected) in cases {
        let e = refusal(|d| d["hydraulics"]["valves"][1]["cushion"][field] = value.clone());
        assert!(e.contains("valve 'cushion'"), "{field} = {value}: {e}");
        for x in expected {
            assert!(e.contains(x), "{field} = {value}: {e}");
        }
    }
    // An end that is none: a reading error at its path, with the valid words.
    let e = refusal(|d| d["hydraulics"]["valves"][1]["cushion"]["end"] = json!("middle"));
    for x in ["hydraulics.valves[1].cushion.end", "'middle'", "retracted, extended"] {
        assert!(e.contains(x), "{e}");
    }
    // The retracted end empties the piston side A: a throttle B -> PB cannot cushion it.
    let e = refusal(|d| d["hydraulics"]["valves"][1]["cushion"]["end"] = json!("retracted"));
    assert!(e.contains("valve 'cushion'") && e.contains("piston_side volume 'A'"), "{e}");
    // A cushioned throttle at a source.
    let e = refusal(|d| d["hydraulics"]["valves"][1]["to"] = json!("tank"));
    assert!(e.contains("valve 'cushion'") && e.contains("must connect two volumes"), "{e}");
    // A field that is not a cushion's, and a missing one.
    let e = refusal(|d| d["hydraulics"]["valves"][1]["cushion"]["stroke"] = json!(0.1));
    assert!(e.contains("stroke"), "{e}");
    let e = refusal(|d| {
        d["hydraulics"]["valves"][1]["cushion"].as_object_mut().unwrap().remove("end_fraction");
    });
    assert!(e.contains("end_fraction"), "{e}");
}
