//! Output derivatives computed from the state (`Simulation::quantity_rates`) against central
//! differences of the same outputs in time, for every catalog model (every formulation, with
//! beams, springs, dampers, drivers, friction, hydraulics), with the inputs driven as
//! parabolas given by value and derivatives at every communication point. The orders each
//! quantity provides are an independent table here (the documented one, README "FMI
//! behaviour"): an order the table says is provided must match the differences, an order it
//! says is not must be exactly 0.

#[path = "../../../tests/common_fmu/orders.rs"]
mod orders;

use mbfmu_engine::Simulation;
use mbfmu_model::catalog::CATALOG;
use mbfmu_model::format::{self, Description};
use mbfmu_model::variables::{interface_of, output_derivative_order, Binding, Quantity};
use orders::documented_order;

/// u(t) = start + a tau + b tau^2 (tau = time since the window began) of the inputs by name.
fn input_law(name: &str) -> (f64, f64) {
    match name {
        "load_force" => (150.0, 80.0),
        "rotor_speed" => (0.5, -0.3),
        "U_ref" => (3.0, -1.0),
        "cylinder_force" => (2000.0, -500.0),
        "cylinder_length" => (0.02, 0.01),
        "cylinder_velocity" => (0.01, 0.004),
        "port_A_flow" => (1e-3, -0.1),
        "port_B_flow" => (-8e-4, 0.08),
        "port_A_pressure" => (2e6, -5e5),
        "port_B_pressure" => (1e6, 3e5),
        // A pump feeding a small volume: its pressure follows the flow within microseconds,
        // so a speed that moves between the points (held over each step) would make the
        // pressure's rate jump at every point; the speed is held at its start instead.
        "pump_speed" => (0.0, 0.0),
        other => panic!("no law for input {other}"),
    }
}

/// Start values that keep a model moving before the window (the flows a valve delivers while
/// the boom rises: a flow switched on at the window's start would make every rate begin at 0,
/// where central differences of the polynomial response have no relative accuracy).
fn moving_start(name: &str) -> Option<f64> {
    match name {
        "port_A_flow" => Some(2e-4),
        "port_B_flow" => Some(-1.6e-4),
        "pump_speed" => Some(2.0),
        _ => None,
    }
}

/// The description with orientation (and node rotation and acceleration) outputs added to
/// every body and node output group, which the catalog does not output.
fn with_orientations(json: &str) -> Description {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    for group in v["interface"]["outputs"].as_array_mut().unwrap() {
        let extra: &[&str] = if group.get("point").is_some() {
            &["acceleration"]
        } else if group.get("body").is_some() {
            &["orientation", "acceleration"]
        } else if group.get("node").is_some() {
            &["orientation", "rotation", "acceleration"]
        } else {
            continue;
        };
        let quantities = group["quantities"].as_array_mut().unwrap();
        for q in extra {
            if !quantities.iter().any(|x| x == q) {
                quantities.push(serde_json::json!(q));
            }
        }
    }
    format::parse(&v.to_string()).unwrap()
}

/// The vector an output is a component of (`a.b.x` -> `a.b`), so that a component is
/// measured against the size of its vector.
fn vector_of(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((head, "x" | "y" | "z" | "e0" | "e1" | "e2" | "e3")) => head,
        Some((head, "axial" | "shear2" | "shear3")) => head,
        Some((head, "torsion" | "bending2" | "bending3")) => head,
        _ => name,
    }
}

struct Sample {
    values: Vec<f64>,
    first: Vec<f64>,
    second: Vec<f64>,
}

/// Outputs and their rates at `n + 1` communication points h apart from `t0`, the inputs
/// driven by their laws from `t0` on (value and derivatives set at every point, held after).
fn run(d: &Description, quantities: &[Quantity], inputs: &[(f64, f64, f64)], t0: f64, h: f64, n: usize) -> Vec<Sample> {
    let mut sim = Simulation::new(d).unwrap_or_else(|e| panic!("{}: {e}", d.name));
    sim.advance_to(t0).unwrap_or_else(|e| panic!("{}: {e}", d.name));
    let mut samples = Vec::with_capacity(n + 1);
    for k in 0..=n {
        let t = t0 + k as f64 * h;
        for (i, &(start, a, b)) in inputs.iter().enumerate() {
            let tau = t - t0;
            sim.set_input(i, start + a * tau + b * tau * tau).unwrap();
            sim.set_input_derivative(i, 1, a + 2.0 * b * tau).unwrap();
            sim.set_input_derivative(i, 2, 2.0 * b).unwrap();
        }
        let mut s = Sample {
            values: vec![0.0; quantities.len()],
            first: vec![0.0; quantities.len()],
            second: vec![0.0; quantities.len()],
        };
        sim.quantities(quantities, &mut s.values);
        sim.quantity_rates(quantities, &mut s.first, &mut s.second);
        samples.push(s);
        if k < n {
            sim.advance_to(t + h).unwrap_or_else(|e| panic!("{} at {t}: {e}", d.name));
            sim.hold_inputs().unwrap();
        }
    }
    samples
}

#[test]
fn output_rates_match_central_differences_of_the_outputs() {
    let mut report = Vec::new();
    for entry in CATALOG {
        let mut d = with_orientations(entry.json);
        for input in &mut d.interface.inputs {
            input.start = moving_start(&input.name).unwrap_or(input.start);
        }
        let iface = interface_of(&d).unwrap();
        let outputs: Vec<(String, Quantity)> = iface
            .variables
            .iter()
            .filter_map(|v| match v.binding {
                Binding::Output(q) => Some((v.name.clone(), q)),
                _ => None,
            })
            .collect();
        let quantities: Vec<Quantity> = outputs.iter().map(|o| o.1).collect();
        let inputs: Vec<(f64, f64, f64)> = d
            .interface
            .inputs
            .iter()
            .map(|i| {
                let (a, b) = input_law(&i.name);
                (i.start, a, b)
            })
            .collect();
        // A tenth of the catalog step resolves the motion; the window lies where things move.
        // Beams: the smaller step resolves their vibration, full numerical damping of the
        // modes beyond it keeps the differences of a smooth trajectory.
        let default = if d.beams.is_empty() { 2.0 } else { 4.0 };
        if !d.beams.is_empty() {
            d.solver.rho_inf = 0.0;
        }
        let divisor: f64 = std::env::var("RATES_DIVISOR").ok().and_then(|x| x.parse().ok()).unwrap_or(default);
        // FlexibleFourBar keeps the 1 ms base it had at its earlier 4e-3 s step: at a quarter
        // of its 5e-4 s step the numerical damping leaves more of the bars' high-frequency
        // motion 1 s into the pre-roll, and bar2.node10's velocity then differs from its
        // central differences by 2.06e-2 of its scale, above the 2e-2 of the test
        // (docs/mesh-study.md, the time step).
        //
        // LateralBuckling runs its earlier LMS2 setting (5e-4 s base, Newton tolerance 1e-9, a
        // fresh matrix per step): with its ESDIRK4(3)6L[2]SA2 at a base of 1e-3 s and a
        // tolerance of 1e-8 the second differences of the crank's nearly resting node carry
        // the tolerance over h^2 (all of its 3.5e-7 m/s^2), and with a tolerance of 1e-9 the
        // link's axial force rate differs from its differences by 3.2e-2 of its scale.
        let base = match d.name.as_str() {
            "FlexibleFourBar" => 1e-3,
            "LateralBuckling" => {
                d.solver.method = mbfmu_model::format::Method::Lms2;
                d.solver.tolerance = 1e-9;
                d.solver.keep_iteration_matrix = false;
                5e-4
            }
            _ => d.solver.step_size.min(1e-3),
        };
        let h = base / divisor;
        d.solver.step_size = h;
        d.solver.absolute_tolerance = Some(1e-9);
        d.solver.relative_tolerance = Some(1e-9);
        let start = d.experiment.start;
        let t0 = match d.name.as_str() {
            name if name.starts_with("Hydraulic") => 1.3,
            // Its work cycle opens the valve at 2 s.
            "PatuLiftBoom" | "PatuLiftBoomFlexible" => 2.3,
            "FlexibleFourBar" => start + 1.0,
            "RotatingShaft" => 0.3,
            // While the strip buckles (at the default 0.04 s it has barely started to move:
            // its accelerations are small beside the fine mesh's stiff modes).
            "LateralBuckling" => 0.2,
            // Away from a reversal of the slider, where Coulomb friction switches (a kink).
            name if name.starts_with("SliderCrankFriction") => 0.3,
            _ => start + 0.05 * (d.experiment.stop - start).min(4.0),
        };
        let n = 12;
        let samples = run(&d, &quantities, &inputs, t0, h, n);
        let input_cylinder = d.hydraulics.as_ref().is_some_and(|h| h.cylinders.iter().any(|c| c.body1.is_none()));
        let mut worst = (0.0f64, String::new());
        // Per output: the largest derivative (of either kind) and the largest difference.
        let mut scales = vec![[0.0f64; 2]; outputs.len()];
        let mut errors = vec![[0.0f64; 2]; outputs.len()];
        for (j, (name, q)) in outputs.iter().enumerate() {
            let order = documented_order(*q, &d, input_cylinder);
            // The documentation page and README list the orders from the model crate's table.
            assert_eq!(output_derivative_order(*q, &d) as usize, order, "{}: {name}: documented order", d.name);
            let (scale, error) = (&mut scales[j], &mut errors[j]);
            // The inputs start moving at the first point: its neighbours see the kink of the
            // law (and backward-difference velocities and accelerations need two steps).
            for k in 3..n {
                let (m, z, p) = (&samples[k - 1], &samples[k], &samples[k + 1]);
                let fd = [
                    (p.values[j] - m.values[j]) / (2.0 * h),
                    (p.values[j] - 2.0 * z.values[j] + m.values[j]) / (h * h),
                ];
                let rates = [z.first[j], z.second[j]];
                for o in 0..2 {
                    if o < order {
                        scale[o] = scale[o].max(fd[o].abs()).max(rates[o].abs());
                        error[o] = error[o].max((fd[o] - rates[o]).abs());
                    } else {
                        assert_eq!(rates[o], 0.0, "{}: {name} has no derivative of order {} documented", d.name, o + 1);
                    }
                }
            }
        }
        for (j, (name, q)) in outputs.iter().enumerate() {
            let order = documented_order(*q, &d, input_cylinder);
            let group = outputs.iter().enumerate().filter(|(_, (other, _))| vector_of(other) == vector_of(name));
            let scale = group.fold([0.0f64; 2], |s, (k, _)| [s[0].max(scales[k][0]), s[1].max(scales[k][1])]);
            let error = errors[j];
            let values = samples.iter().fold(0.0f64, |m, s| m.max(s.values[j].abs()));
            for o in 0..order {
                // A derivative that is zero up to noise (a constant rate, a resting part), or
                // below the round-off of the differences of values this large (a node pinned to
                // the ground: its position's second differences are eps |x| 4 / h^2).
                let roundoff = [1.0, 4.0 / h][o] * f64::EPSILON * values / h;
                let floor = (1e-6 * if o == 0 { values } else { scale[0] } / h).max(roundoff);
                // Total energy and balance are constant up to the integration error: measure them against
                // the kinetic energy's rate.
                let scale = if matches!(q, Quantity::EnergyBalance | Quantity::TotalEnergy) {
                    let ke = quantities.iter().position(|q| *q == Quantity::KineticEnergy);
                    ke.map_or(scale[o], |ke| samples.iter().fold(scale[o], |s, x| s.max(x.first[ke].abs())))
                } else {
                    scale[o]
                };
                if scale < 1e-8 || scale < floor {
                    continue;
                }
                let relative = error[o] / scale;
                let limit = if o == 0 { 2e-2 } else { 6e-2 };
                if std::env::var("RATES_DEBUG").is_ok() && relative > limit / 10.0 {
                    eprintln!("{}: {name} order {}: {relative:.2e} of {scale:.3e}", d.name, o + 1);
                    continue;
                }
                assert!(
                    relative < limit,
                    "{}: {name}: derivative {} differs from central differences by {relative:.2e} of {scale:.3e}",
                    d.name,
                    o + 1
                );
                if relative > worst.0 {
                    worst = (relative, format!("{name} (order {})", o + 1));
                }
            }
        }
        report.push(format!("{:<28} h = {h:.0e}: worst relative difference {:.1e} ({})", d.name, worst.0, worst.1));
    }
    for line in report {
        println!("{line}");
    }
}
