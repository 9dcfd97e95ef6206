//! A hydraulic motor on a revolute joint in running circuits against closed forms, in the
//! index-3 formulation (trapezoidal, ESDIRK3(2)4L[2]SA, BDF1) and the semirecursive ones
//! (double-step, penalty; trapezoidal), all at 1 ms steps.
//!
//! The circuit: a pump of constant flow Q into a volume V at port A, the motor's port B at a
//! tank of zero pressure, the motor turning a rotor of inertia J on a revolute joint to ground
//! against a rotational damper B_L (and its own viscous friction B_m). With D_e = D/(2 pi),
//! k = B_e/V and B = B_L + B_m the equations are linear (docs/modelling.md, "Hydraulic
//! motors"):
//!   p' = k (Q - D_e omega / eta_v - C_l p),   J omega' = eta_hm D_e p - B omega,
//! so from rest x = (p, omega) follows x(t) = (I - e^{A t}) x_ss exactly, with the steady state
//!   omega_ss = Q / (D_e / eta_v + C_l B / (eta_hm D_e)),   p_ss = B omega_ss / (eta_hm D_e),
//! and the decay rate sigma and damped frequency omega_d of A's complex eigenvalues.

use crate::common;

use common::quantity;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use serde_json::json;
use std::f64::consts::TAU;

const Q: f64 = 2e-4;
const D_M: f64 = 1e-5;
const V: f64 = 1e-3;
const J: f64 = 0.01;
const B_LOAD: f64 = 0.05;
const B_MOTOR: f64 = 0.01;
const ETA_HM: f64 = 0.9;
const OIL: f64 = 1.5e9;
const HOSE: f64 = 1e15;

/// The motor's leakage form: C_l and eta_v.
#[derive(Clone, Copy, Debug)]
struct Losses {
    leakage: f64,
    eta_v: f64,
}

const LEAKAGE: Losses = Losses { leakage: 1e-12, eta_v: 1.0 };
const EFFICIENCY: Losses = Losses { leakage: 0.0, eta_v: 0.92 };

fn description(losses: Losses, formulation: &str, method: &str) -> Description {
    let d = json!({
        "name": "motor_rotor",
        "gravity": [0.0, -9.81, 0.0],
        "bodies": [{"name": "rotor", "mass": 2.0, "inertia": [0.006, 0.006, J], "position": [0.0, 0.0, 0.0]}],
        "joints": [{"name": "shaft", "type": "revolute", "body1": "ground", "body2": "rotor",
                    "point": [0.0, 0.0, 0.0], "axis": [0.0, 0.0, 1.0]}],
        "forces": [{"type": "rsda", "name": "load", "joint": "shaft", "damping": B_LOAD}],
        "hydraulics": {
            "oil": {"bulk_modulus": OIL, "density": 850.0},
            "sources": [{"name": "tank", "pressure": 0.0}],
            "volumes": [{"name": "A", "hose_volume": V, "hose_bulk_modulus": HOSE, "initial_pressure": 0.0}],
            "pumps": [{"name": "pump", "inlet": "tank", "outlet": "A", "displacement": 1e-5,
                       "shaft_speed": Q * TAU / 1e-5}],
            "motors": [{"name": "m", "port_a": "A", "port_b": "tank", "joint": "shaft", "displacement": D_M,
                        "leakage_coefficient": losses.leakage, "volumetric_efficiency": losses.eta_v,
                        "hydromechanical_efficiency": ETA_HM, "viscous_friction": B_MOTOR}]
        },
        "interface": {"outputs": [
            {"motor": "m", "quantities": ["speed", "torque", "flow"]},
            {"volume": "A", "quantities": ["pressure"]},
            {"joint": "shaft", "quantities": ["rate"]},
            {"system": ["energy_balance", "kinetic_energy"]}
        ]},
        "experiment": {"stop": 5.0, "step": 1e-3},
        "solver": {"formulation": formulation, "method": method, "step_size": 1e-3,
                   "tolerance": 1e-10, "pressure_tolerance": 1e-4, "max_iterations": 60}
    });
    format::parse(&d.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// The linear system's closed form for `losses`.
struct Closed {
    a: [[f64; 2]; 2],
    omega_ss: f64,
    p_ss: f64,
    sigma: f64,
    omega_d: f64,
}

impl Closed {
    fn of(l: Losses) -> Closed {
        let de = D_M / TAU;
        let k = 1.0 / (V / OIL + V / HOSE);
        let b = B_LOAD + B_MOTOR;
        let a = [[-k * l.leakage, -k * de / l.eta_v], [ETA_HM * de / J, -b / J]];
        let omega_ss = Q / (de / l.eta_v + l.leakage * b / (ETA_HM * de));
        let p_ss = b * omega_ss / (ETA_HM * de);
        let (trace, det) = (a[0][0] + a[1][1], a[0][0] * a[1][1] - a[0][1] * a[1][0]);
        let sigma = -0.5 * trace;
        let omega_d = (det - sigma * sigma).sqrt();
        assert!(omega_d > 0.0, "the chosen system must ring");
        Closed { a, omega_ss, p_ss, sigma, omega_d }
    }

    /// (p, omega) at `t` from rest: (I - e^{A t}) x_ss with
    /// e^{A t} = e^{-sigma t} (cos(omega_d t) I + sin(omega_d t)/omega_d (A + sigma I)).
    fn at(&self, t: f64) -> [f64; 2] {
        let (c, s) = ((self.omega_d * t).cos(), (self.omega_d * t).sin() / self.omega_d);
        let e = (-self.sigma * t).exp();
        let x = [self.p_ss, self.omega_ss];
        let mut out = [0.0; 2];
        for i in 0..2 {
            let mut ex = c * x[i];
            for (j, xj) in x.iter().enumerate() {
                let m = self.a[i][j] + if i == j { self.sigma } else { 0.0 };
                ex += s * m * xj;
            }
            out[i] = x[i] - e * ex;
        }
        out
    }
}

struct Run {
    omega: Vec<f64>,
    pressure: Vec<f64>,
    torque: f64,
    flow: f64,
    joint_rate: f64,
    energy_balance: f64,
    kinetic: f64,
}

fn run(d: &Description) -> Run {
    let mut sim = Simulation::new(d).unwrap_or_else(|e| panic!("{e}"));
    let q = |n: &str| quantity(d, n);
    let (speed, pressure) = (q("m.speed"), q("A.pressure"));
    let n = (d.experiment.stop / 1e-3).round() as usize;
    let (mut omega, mut p) = (vec![sim.quantity(speed)], vec![sim.quantity(pressure)]);
    for k in 1..=n {
        sim.advance_to(k as f64 * 1e-3).unwrap_or_else(|e| panic!("t = {}: {e}", k as f64 * 1e-3));
        omega.push(sim.quantity(speed));
        p.push(sim.quantity(pressure));
    }
    Run {
        omega,
        pressure: p,
        torque: sim.quantity(q("m.torque")),
        flow: sim.quantity(q("m.flow")),
        joint_rate: sim.quantity(q("shaft.angle_rate")),
        energy_balance: sim.quantity(q("energy_balance")),
        kinetic: sim.quantity(q("kinetic_energy")),
    }
}

/// The first two maxima of `x` (sampled every `h`), parabola-interpolated: (time, value).
fn first_two_peaks(x: &[f64], h: f64) -> [(f64, f64); 2] {
    let mut peaks = Vec::new();
    for k in 1..x.len() - 1 {
        if x[k] > x[k - 1] && x[k] >= x[k + 1] {
            let (a, b, c) = (x[k - 1], x[k], x[k + 1]);
            let d = 0.5 * (a - c) / (a - 2.0 * b + c);
            peaks.push(((k as f64 + d) * h, b - 0.25 * (a - c) * d));
            if peaks.len() == 2 {
                return [peaks[0], peaks[1]];
            }
        }
    }
    panic!("fewer than two peaks")
}

/// (formulation, method, bound on the trajectory's error over omega_ss).
const RUNS: [(&str, &str, f64); 5] = [
    ("index3", "ss2", 1e-3),
    ("index3", "esdirk324L2SA", 1e-5),
    ("index3", "bdf1", 8e-2),
    ("doubleStep", "trapezoidal", 1e-3),
    ("penalty", "trapezoidal", 1e-3),
];

#[test]
fn a_flow_step_turns_the_rotor_to_the_closed_form_speed_and_pressure() {
    for losses in [LEAKAGE, EFFICIENCY] {
        let c = Closed::of(losses);
        // The two forms of the steady speed: 2 pi eta_v Q / D_m without leakage,
        // (Q - C_l p) / D_e with it.
        if losses.leakage == 0.0 {
            assert!((c.omega_ss - TAU * losses.eta_v * Q / D_M).abs() < 1e-12 * c.omega_ss);
        } else {
            assert!((c.omega_ss - (Q - losses.leakage * c.p_ss) * TAU / D_M).abs() < 1e-9 * c.omega_ss);
        }
        for (formulation, method, bound) in RUNS {
            let d = description(losses, formulation, method);
            let r = run(&d);
            let what = format!("{formulation}/{method} {losses:?}");
            // The whole trajectory against the closed form.
            let mut worst = [0.0f64; 2];
            for (k, (w, p)) in r.omega.iter().zip(&r.pressure).enumerate() {
                let x = c.at(k as f64 * 1e-3);
                worst[0] = worst[0].max((w - x[1]).abs() / c.omega_ss);
                worst[1] = worst[1].max((p - x[0]).abs() / c.p_ss);
            }
            println!(
                "{what}: omega_ss {:.6} rad/s, p_ss {:.1} Pa; max error omega {:.2e}, p {:.2e} (of the steady values)",
                c.omega_ss, c.p_ss, worst[0], worst[1]
            );
            assert!(worst[0] < bound && worst[1] < bound, "{what}: trajectory errors {worst:?} above {bound}");
            // Steady state after 5 s (the transient has decayed to e^{-5 sigma} < 1e-6).
            let (w, p) = (r.omega[r.omega.len() - 1], r.pressure[r.pressure.len() - 1]);
            assert!((w - c.omega_ss).abs() < 1e-5 * c.omega_ss, "{what}: omega {w} vs {}", c.omega_ss);
            assert!((p - c.p_ss).abs() < 1e-5 * c.p_ss, "{what}: p {p} vs {}", c.p_ss);
            assert!((r.joint_rate - w).abs() < 1e-9 * w, "{what}: the motor's speed is the joint's rate");
            // The decay rate and damped frequency from the first two overshoots.
            let [(t1, w1), (t2, w2)] = first_two_peaks(&r.omega, 1e-3);
            let omega_d = TAU / (t2 - t1);
            let sigma = ((w1 - c.omega_ss) / (w2 - c.omega_ss)).ln() / (t2 - t1);
            println!("{what}: omega_d {omega_d:.4} vs {:.4} rad/s, sigma {sigma:.4} vs {:.4} 1/s", c.omega_d, c.sigma);
            let tol = if method == "bdf1" { 3e-2 } else { 1e-3 };
            assert!((omega_d - c.omega_d).abs() < tol * c.omega_d, "{what}: omega_d {omega_d} vs {}", c.omega_d);
            assert!((sigma - c.sigma).abs() < 5.0 * tol * c.sigma, "{what}: sigma {sigma} vs {}", c.sigma);
        }
    }
}

#[test]
fn at_steady_state_the_pressure_power_is_the_shaft_power_over_the_efficiencies_plus_the_leakage_loss() {
    for losses in [LEAKAGE, EFFICIENCY] {
        for (formulation, method, _) in [RUNS[1], RUNS[3]] {
            let d = description(losses, formulation, method);
            let r = run(&d);
            let what = format!("{formulation}/{method} {losses:?}");
            let (w, dp) = (r.omega[r.omega.len() - 1], r.pressure[r.pressure.len() - 1]);
            // The torque on the joint drives the load: T = B_L omega.
            assert!(
                (r.torque - B_LOAD * w).abs() < 1e-5 * r.torque,
                "{what}: T {} vs B_L omega {}",
                r.torque,
                B_LOAD * w
            );
            // The motor passes the pump's flow.
            assert!((r.flow - Q).abs() < 1e-5 * Q, "{what}: q {} vs Q {Q}", r.flow);
            // dp q = (T + B_m omega) omega / (eta_hm eta_v) + C_l dp^2, with the pump's power Q dp.
            let hydraulic = dp * Q;
            let shaft = (r.torque + B_MOTOR * w) * w / (ETA_HM * losses.eta_v) + losses.leakage * dp * dp;
            println!("{what}: pressure power {hydraulic:.6} W, shaft power / efficiency + leakage {shaft:.6} W");
            assert!((hydraulic - shaft).abs() < 1e-5 * hydraulic, "{what}: {hydraulic} vs {shaft}");
            // The motor's work is booked: E - E0 - W stays near zero.
            println!("{what}: energy balance {:.3e} J of kinetic energy {:.3} J", r.energy_balance, r.kinetic);
            assert!(r.energy_balance.abs() < 1e-5 * r.kinetic, "{what}: energy balance {}", r.energy_balance);
        }
    }
}

#[test]
fn bad_motors_are_refused_naming_the_motor_the_field_and_the_reason() {
    let base = serde_json::to_value(description(LEAKAGE, "index3", "esdirk324L2SA")).unwrap();
    let refused = |change: &dyn Fn(&mut serde_json::Value), expected: &[&str]| {
        let mut v = base.clone();
        change(&mut v);
        let e = format::parse(&v.to_string()).expect_err("refused").to_string();
        for x in expected {
            assert!(e.contains(x), "{e:?} lacks {x:?}");
        }
    };
    fn motor(v: &mut serde_json::Value) -> &mut serde_json::Value {
        &mut v["hydraulics"]["motors"][0]
    }
    refused(&|v| motor(v)["joint"] = json!("axle"), &["motor 'm'", "joint 'axle'", "is not a joint of this model"]);
    refused(
        &|v| {
            v["joints"][0]["type"] = json!("translational");
            v["forces"] = json!([]);
        },
        &["motor 'm'", "joint 'shaft' is a translational joint", "a motor turns a revolute joint"],
    );
    refused(&|v| motor(v)["port_a"] = json!("X"), &["motor 'm'", "port_a 'X'", "is not a hydraulic volume or source"]);
    refused(&|v| motor(v)["port_b"] = json!("A"), &["motor 'm'", "port_a and port_b are the same node"]);
    refused(&|v| motor(v)["displacement"] = json!(0.0), &["motor 'm'", "displacement 0", "must be positive"]);
    refused(&|v| motor(v)["displacement"] = json!(-1e-5), &["motor 'm'", "displacement -0.00001", "must be positive"]);
    for field in ["volumetric_efficiency", "hydromechanical_efficiency"] {
        refused(&|v| motor(v)[field] = json!(1.2), &["motor 'm'", field, "1.2", "must lie in (0, 1]"]);
        refused(&|v| motor(v)[field] = json!(0.0), &["motor 'm'", field, "must lie in (0, 1]"]);
    }
    refused(&|v| motor(v)["leakage_coefficient"] = json!(-1e-12), &["motor 'm'", "leakage_coefficient", ">= 0"]);
    refused(&|v| motor(v)["viscous_friction"] = json!(-0.1), &["motor 'm'", "viscous_friction", ">= 0"]);
    refused(
        &|v| v["interface"]["outputs"][0]["motor"] = json!("n"),
        &["motor 'n' is not a hydraulic motor of this model"],
    );
}
