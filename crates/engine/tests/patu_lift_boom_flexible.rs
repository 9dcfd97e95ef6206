//! The PATU 655 lift boom with its boom as geometrically exact beams (catalog
//! `PatuLiftBoomFlexible`, [Khadim2023]; data of [PatuCraneExudyn]) against the rigid boom of
//! the catalog (`PatuLiftBoom`, itself tested against the authors' MATLAB reference run), the
//! oil springs' ringing, and an Euler-Bernoulli-Timoshenko integration of its own section table
//! for the boom's static deflection as a cantilever.

use crate::common;

use common::{catalog, quantity};
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use mbfmu_model::variables::Quantity;
use nalgebra::Vector3;

/// The outputs `names` every `h` up to `stop`.
fn run(d: &Description, names: &[&str], h: f64, stop: f64) -> Vec<Vec<f64>> {
    let mut sim = Simulation::new(d).unwrap_or_else(|e| panic!("{}: {e}", d.name));
    let qs: Vec<Quantity> = names.iter().map(|n| quantity(d, n)).collect();
    let n = (stop / h).round() as usize;
    let mut rows = vec![qs.iter().map(|q| sim.quantity(*q)).collect::<Vec<_>>()];
    for k in 1..=n {
        sim.advance_to(k as f64 * h).unwrap_or_else(|e| panic!("{} at {}: {e}", d.name, k as f64 * h));
        rows.push(qs.iter().map(|q| sim.quantity(*q)).collect());
    }
    rows
}

#[test]
fn the_flexible_boom_follows_the_rigid_one_and_rings_at_the_oil_springs_frequency() {
    let names = ["lift_pin.angle", "V1.pressure", "V2.pressure", "cylinder.length"];
    let tips = [["boom10.node1.position.x", "boom10.node1.position.y"], ["boom.tip.position.x", "boom.tip.position.y"]];
    let h = 1e-3;
    let flexible = run(&catalog("PatuLiftBoomFlexible"), &[&names[..], &tips[0]].concat(), h, 24.0);
    let rigid = run(&catalog("PatuLiftBoom"), &[&names[..], &tips[1]].concat(), h, 24.0);
    // The times of the authors' reference table: at rest, lifting, held, lowering, held. The
    // boom's mass differs by 0.5 % (the steel of the FE model plus the fittings as one mass)
    // and its inertia about the pin by 1.3 %; the beams bend by under a millimetre.
    println!("{:>6} | {:>21} | {:>21} | {:>21} | {:>21}", "t [s]", "theta [deg]", "p1 [MPa]", "p2 [MPa]", "s [m]");
    let (mut worst_p, mut worst_theta, mut worst_s, mut worst_tip) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut sag = f64::NAN;
    for t in [0.0, 1.99, 2.5, 5.0, 8.99, 11.0, 14.0, 17.0, 20.9, 23.9] {
        let k = (t / h).round() as usize;
        let (f, r) = (&flexible[k], &rigid[k]);
        println!(
            "{t:>6} | {:>9.4} vs {:>9.4} | {:>9.5} vs {:>9.5} | {:>9.5} vs {:>9.5} | {:>9.5} vs {:>9.5}",
            f[0].to_degrees(),
            r[0].to_degrees(),
            f[1] * 1e-6,
            r[1] * 1e-6,
            f[2] * 1e-6,
            r[2] * 1e-6,
            f[3],
            r[3]
        );
        worst_theta = worst_theta.max((f[0] - r[0]).abs());
        worst_p = worst_p.max((f[1] / r[1] - 1.0).abs()).max((f[2] / r[2] - 1.0).abs());
        worst_s = worst_s.max((f[3] - r[3]).abs());
        // The flexible tip against the rigid boom's tip output turned to the flexible boom's
        // pin angle: the beams' deflection at the tip.
        let pin = Vector3::new(-0.09, 1.4261, 0.0);
        let turned = nalgebra::Rotation3::from_axis_angle(&Vector3::z_axis(), f[0] - r[0]);
        let rigid_tip = pin + turned * (Vector3::new(r[4], r[5], 0.0) - pin);
        let deflection = (Vector3::new(f[4], f[5], 0.0) - rigid_tip).norm();
        worst_tip = worst_tip.max(deflection);
        if t == 0.0 {
            sag = deflection;
        }
    }
    println!(
        "tip deflection against the rigid boom's tip: {:.3} mm at rest, at most {:.3} mm",
        1e3 * sag,
        1e3 * worst_tip
    );
    assert!((3e-4..1e-3).contains(&sag), "tip sag at rest {sag}");
    assert!(worst_tip < 3e-3, "tip deflection {worst_tip}");
    println!(
        "largest differences: angle {:.3} deg, pressures {:.2} %, pin-to-pin length {:.2} mm",
        worst_theta.to_degrees(),
        100.0 * worst_p,
        1e3 * worst_s
    );
    assert!(worst_p < 0.02, "pressures differ by {worst_p}");
    assert!(worst_theta < 0.2f64.to_radians(), "angles differ by {worst_theta}");
    assert!(worst_s < 2e-3, "pin-to-pin lengths differ by {worst_s}");

    // After the valve opens at 2 s the piston-side pressure rings on the oil springs. The
    // rigid boom rings at 13-15 Hz, as its closed form and the MATLAB reference say
    // (`patu_lift_boom.rs`); the flexible boom's beams add their compliance in series with
    // the oil springs (the first beam alone, between pin and rod eye, as a rotational spring
    // EI/L, would lower the frequency by 5 %), so it rings lower, while its own bending modes
    // lie above 100 Hz. Zero crossings of p1 less its centred moving average over 71 ms.
    let (f_flexible, f_rigid) = (ringing(&flexible, h), ringing(&rigid, h));
    println!("ringing after the valve opens: flexible {f_flexible:.2} Hz, rigid {f_rigid:.2} Hz");
    assert!((13.0..15.0).contains(&f_rigid), "rigid ringing at {f_rigid} Hz");
    assert!((0.85..0.98).contains(&(f_flexible / f_rigid)), "flexible ringing at {f_flexible} Hz");
}

/// The frequency [Hz] of p1's ringing over 2.0-2.6 s from its zero crossings about its
/// centred moving average over 71 samples (about one period).
fn ringing(rows: &[Vec<f64>], h: f64) -> f64 {
    let p: Vec<f64> = rows.iter().map(|r| r[1]).collect();
    let (from, to, half) = ((2.0 / h) as usize, (2.6 / h) as usize, 35);
    let detrended: Vec<f64> = (from..=to).map(|k| p[k] - p[k - half..=k + half].iter().sum::<f64>() / 71.0).collect();
    let crossings: Vec<f64> = (1..detrended.len())
        .filter(|&k| detrended[k - 1] * detrended[k] < 0.0)
        .map(|k| k as f64 - detrended[k] / (detrended[k] - detrended[k - 1]))
        .collect();
    assert!(crossings.len() >= 11, "{} zero crossings", crossings.len());
    let span = (crossings[crossings.len() - 1] - crossings[0]) * h;
    (crossings.len() - 1) as f64 / (2.0 * span)
}

/// The catalog boom turned horizontal and clamped at the pin, without its circuit and its
/// fittings' mass: the authors' static check of the bare steel boom under gravity.
fn cantilever(youngs_modulus: f64) -> Description {
    let entry = mbfmu_model::catalog::find("PatuLiftBoomFlexible").expect("in the catalog");
    let mut v: serde_json::Value = serde_json::from_str(entry.json).unwrap();
    let pin = Vector3::new(-0.09, 1.4261, 0.0);
    let theta0 = v["joints"][0]["initial_coordinate"].as_f64().unwrap();
    let (c, s) = (theta0.cos(), theta0.sin());
    let level = |p: &serde_json::Value| {
        let x = Vector3::new(p[0].as_f64().unwrap(), p[1].as_f64().unwrap(), p[2].as_f64().unwrap()) - pin;
        serde_json::json!([pin.x + c * x.x + s * x.y, pin.y - s * x.x + c * x.y, x.z])
    };
    for beam in v["beams"].as_array_mut().unwrap() {
        for p in beam["points"].as_array_mut().unwrap() {
            *p = level(p);
        }
    }
    let joints: Vec<serde_json::Value> = v["joints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["body2"] != "fittings")
        .map(|j| {
            let mut j = j.clone();
            j["point"] = level(&j["point"]);
            if j["name"] == "lift_pin" {
                j = serde_json::json!({"name": "clamp", "type": "fixed", "body1": "ground", "body2": j["body2"], "point": j["point"]});
            }
            j
        })
        .collect();
    v["joints"] = serde_json::Value::Array(joints);
    // The named parameters (the steel's values) stay: the sections are written in them.
    let mut named: Vec<serde_json::Value> =
        v["interface"]["parameters"].as_array().unwrap().iter().filter(|p| p.get("value").is_some()).cloned().collect();
    named.iter_mut().filter(|p| p["name"] == "youngs_modulus").for_each(|p| p["value"] = youngs_modulus.into());
    let obj = v.as_object_mut().unwrap();
    obj.remove("hydraulics");
    obj.insert("bodies".into(), serde_json::json!([]));
    obj.insert("static_start".into(), serde_json::json!(true));
    obj.insert(
        "interface".into(),
        serde_json::json!({"parameters": named, "outputs": [{"node": "boom10.end", "quantities": ["position", "displacement"]}]}),
    );
    format::parse(&v.to_string()).unwrap()
}

#[test]
fn the_bare_boom_sags_as_its_sections_say() {
    let d = cantilever(2.1e11);
    let sim = Simulation::new(&d).unwrap_or_else(|e| panic!("{e}"));
    let sag = -sim.quantity(quantity(&d, "boom10.node1.displacement.y"));
    let g = -d.gravity[1];

    // Euler-Bernoulli bending plus Timoshenko shear of the same piecewise-constant sections,
    // clamped at the pin (x = 0), loaded by their weight: the tip deflection
    //   w(L) = int_0^L M(x) (L - x)/EI(x) dx + int_0^L V(x)/GA(x) dx,
    // V and M the shear force and bending moment of the load beyond x, on a fine grid.
    let pin = Vector3::new(-0.09, 1.4261, 0.0);
    let spans: Vec<(f64, f64, f64, f64, f64)> = d
        .beams
        .iter()
        .map(|b| {
            let (a, z) = (Vector3::from(b.points[0]) - pin, Vector3::from(b.points[b.points.len() - 1]) - pin);
            let s = &b.section;
            (a.x, z.x, s.mass_per_length, s.bending_stiffness[0], s.shear_stiffness[1])
        })
        .collect();
    let length = spans[spans.len() - 1].1;
    let section = |x: f64| *spans.iter().find(|s| x >= s.0 && x <= s.1).unwrap();
    let n = 20_000;
    let dx = length / n as f64;
    let xs: Vec<f64> = (0..n).map(|k| (k as f64 + 0.5) * dx).collect();
    let (mut shear, mut moment) = (vec![0.0; n], vec![0.0; n]);
    // From the tip inward, with the sums s0 = sum q dx and s1 = sum q x dx of the cells
    // beyond x_k: V = s0 + q dx/2, M = s1 - x_k s0 + q dx^2/8.
    let (mut s0, mut s1) = (0.0, 0.0);
    for k in (0..n).rev() {
        let q = section(xs[k]).2 * g;
        shear[k] = s0 + 0.5 * q * dx;
        moment[k] = s1 - xs[k] * s0 + q * dx * dx / 8.0;
        s0 += q * dx;
        s1 += q * xs[k] * dx;
    }
    let bending: f64 = (0..n).map(|k| moment[k] * (length - xs[k]) / section(xs[k]).3 * dx).sum();
    let shearing: f64 = (0..n).map(|k| shear[k] / section(xs[k]).4 * dx).sum();
    let closed = bending + shearing;
    println!(
        "tip sag {:.4} mm; sections integrated {:.4} mm (bending {:.4}, shear {:.4}); \
         the authors' FE models [PatuCraneExudyn] 0.699 mm (Abaqus) and 0.664 mm (Exudyn)",
        1e3 * sag,
        1e3 * closed,
        1e3 * bending,
        1e3 * shearing
    );
    assert!((sag / closed - 1.0).abs() < 0.03, "sag {sag} vs {closed}");

    // The sections follow the FMU parameter youngs_modulus: at half of it the boom sags twice
    // as far (bending and shear both scale with 1/E; the deflection is small).
    let soft = cantilever(1.05e11);
    let sag_soft = -Simulation::new(&soft).unwrap().quantity(quantity(&soft, "boom10.node1.displacement.y"));
    println!("at E/2: {:.4} mm ({:.4} times)", 1e3 * sag_soft, sag_soft / sag);
    assert!((sag_soft / sag - 2.0).abs() < 2e-3, "sag at E/2: {sag_soft}");
}

/// A catalog PATU boom whose valve is fed by a pump (1.2 l/s) with a relief valve cracking at
/// `relief` [Pa] instead of the constant-pressure supply.
fn pump_fed(name: &str, relief: f64) -> Description {
    let entry = mbfmu_model::catalog::find(name).expect("in the catalog");
    let mut v: serde_json::Value = serde_json::from_str(entry.json).unwrap();
    let h = &mut v["hydraulics"];
    h["volumes"].as_array_mut().unwrap().push(serde_json::json!(
        {"name": "supply", "hose_volume": 5e-4, "hose_bulk_modulus": 7e8, "initial_pressure": 1e5}
    ));
    h["valves"].as_array_mut().unwrap().push(serde_json::json!(
        {"type": "relief", "name": "main_relief", "from": "supply", "to": "tank", "cracking_pressure": relief,
         "full_open_pressure": 1.1 * relief, "rated_flow": 2e-3, "rated_pressure_drop": 1.1 * relief}
    ));
    h["pumps"] = serde_json::json!([{"name": "main_pump", "inlet": "tank", "outlet": "supply",
        "displacement": 2.5e-5, "shaft_speed": 300.0}]);
    h["valves"][0]["pump"] = serde_json::json!("supply");
    format::parse(&v.to_string()).unwrap()
}

#[test]
fn a_relief_valve_set_below_the_load_is_refused_at_the_start() {
    // The boom needs 2.39 MPa on the piston side to hold still (the rigid model's static
    // start); a relief cracking at 2 MPa on the pump's line cannot lift it, one at 16 MPa can.
    for model in ["PatuLiftBoom", "PatuLiftBoomFlexible"] {
        let error = Simulation::new(&pump_fed(model, 2e6)).map(|_| ()).expect_err("a relief below the load");
        let message = error.to_string();
        for part in ["valve 'main_relief' (relief)", "cracking_pressure", "cylinder 'cylinder'", "pump 'main_pump'"] {
            assert!(message.contains(part), "{model}: {message}");
        }
        Simulation::new(&pump_fed(model, 1.6e7)).unwrap_or_else(|e| panic!("{model}: {e}"));
    }
}
