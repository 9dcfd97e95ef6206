//! The stabilized index-2 form of the joints (`solver.constraint_form = "ggl"`,
//! [GearGuptaLeimkuhler1985]) against the index-3 form, on the pendulum of one bar in a
//! revolute joint (absolute coordinates: the "Cartesian" pendulum of [HairerWanner1996,
//! Sect. VII.1] as a rigid body). Reference: the minimal-coordinate ODE
//! I_o theta'' = -m g c sin(theta) by classical RK4 at 1e-5 s (common::rk4), from which the
//! centre of mass's position, velocity and acceleration and the joint's reaction follow in
//! closed form. Errors by [Zhang2022, eq. 26] over the samples of the coarsest run.

use crate::common::rk4;
use crate::shaft::slope;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, ConstraintForm, Description, Method, Quantity};

const M: f64 = 78.0;
const C: f64 = 2.0;
const JC: f64 = 104.01625;
const G: f64 = 9.81;
const WINDOW: f64 = 1.0;
const EVERY: f64 = 0.05;

fn pendulum() -> Description {
    let json = r#"{
      "name": "BarPendulum",
      "gravity": [0.0, 0.0, -9.81],
      "bodies": [{ "name": "bar", "mass": 78.0, "inertia": [0.0325, 104.01625, 104.01625],
                   "position": [0.0, 2.0, 0.0],
                   "orientation": [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] }],
      "joints": [{ "name": "pivot", "type": "revolute", "body1": "ground", "body2": "bar",
                   "point": [0.0, 0.0, 0.0], "axis": [1.0, 0.0, 0.0] }],
      "experiment": { "start": 0.0, "stop": 1.0, "step": 0.05 },
      "solver": { "method": "bdf1", "step_size": 0.001, "tolerance": 1e-13, "max_iterations": 100 }
    }"#;
    format::parse(json).expect("a valid description")
}

/// [y, z, y', z', y'', z'', |reaction|] of the bar's centre of mass at every sample.
fn reference() -> Vec<[f64; 7]> {
    let io = JC + M * C * C;
    let f = |s: &[f64; 2]| [s[1], -M * G * C * s[0].sin() / io];
    let times: Vec<f64> = (1..=(WINDOW / EVERY).round() as usize).map(|k| k as f64 * EVERY).collect();
    rk4(f, [std::f64::consts::FRAC_PI_2, 0.0], 1e-5, &times)
        .into_iter()
        .map(|s| {
            let (th, w) = (s[0], s[1]);
            let a = f(&s)[1];
            let (yy, zz) = (C * (th.cos() * a - th.sin() * w * w), C * (th.sin() * a + th.cos() * w * w));
            let reaction = (M * yy).hypot(M * (zz + G));
            [C * th.sin(), -C * th.cos(), C * th.cos() * w, C * th.sin() * w, yy, zz, reaction]
        })
        .collect()
}

fn run(method: Method, form: ConstraintForm, dt_per_stage: f64) -> Vec<[f64; 7]> {
    let mut d = pendulum();
    d.solver.method = method;
    d.solver.constraint_form = form;
    d.solver.step_size = f64::from(method.implicit_stages()) * dt_per_stage;
    let mut sim = Simulation::new(&d).expect("builds");
    let q = |axis| [Quantity::BodyPosition { body: 0, axis }, Quantity::BodyVelocity { body: 0, axis }];
    (1..=(WINDOW / EVERY).round() as usize)
        .map(|k| {
            sim.advance_to(k as f64 * EVERY).expect("steps");
            let r: Vec<f64> =
                (0..3).map(|axis| sim.quantity(Quantity::JointReactionForce { joint: 0, axis })).collect();
            [
                sim.quantity(q(1)[0]),
                sim.quantity(q(2)[0]),
                sim.quantity(q(1)[1]),
                sim.quantity(q(2)[1]),
                sim.quantity(Quantity::BodyAcceleration { body: 0, axis: 1 }),
                sim.quantity(Quantity::BodyAcceleration { body: 0, axis: 2 }),
                r.iter().map(|x| x * x).sum::<f64>().sqrt(),
            ]
        })
        .collect()
}

/// [Zhang2022, eq. 26] of position, velocity, acceleration (both axes) and reaction.
fn errors(x: &[[f64; 7]], r: &[[f64; 7]]) -> [f64; 4] {
    let re = |cols: &[usize]| {
        let (num, den) = x.iter().zip(r).fold((0.0, 0.0), |(n, d), (a, b)| {
            cols.iter().fold((n, d), |(n, d), &c| (n + (a[c] - b[c]).powi(2), d + b[c] * b[c]))
        });
        (num / den).sqrt()
    };
    [re(&[0, 1]), re(&[2, 3]), re(&[4, 5]), re(&[6])]
}

/// Orders (least-squares slopes over `dtn`) and the errors at the finest dt/n.
fn orders(method: Method, form: ConstraintForm, dtn: &[f64], reference: &[[f64; 7]]) -> ([f64; 4], [f64; 4]) {
    let e: Vec<[f64; 4]> = dtn.iter().map(|&h| errors(&run(method, form, h), reference)).collect();
    let p = std::array::from_fn(|q| slope(dtn, &e.iter().map(|e| e[q]).collect::<Vec<_>>()));
    (p, e[e.len() - 1])
}

/// The Runge-Kutta-type methods of stage order 2 lose order on the index-3 DAE in the
/// accelerations and reactions, to 1 ([HairerWanner1996, Sect. VII.4]); in the stabilized
/// form they converge at 2 there, and the third- and fourth-order ones at 3 in positions and
/// velocities (index-2 orders: min(p, q + 1) and q for stage order q = 2). The second-order
/// multistep and single-step methods keep order 2 in every quantity with either form.
/// Measured (dt/n = 1/400, 1/800, 1/1600 s, orders of q, v, a, R):
///   bathe index3 2.00 2.00 1.00 1.01, ggl 2.00 2.00 2.01 2.01;
///   mssth3 index3 1.95 1.96 0.98 0.99, ggl 2.91 2.92 1.93 1.93;
///   esdirk324L2SA ggl 2.92 2.92 1.94 1.94; esdirk325L2SA ggl 3.05 3.02 2.00 2.00;
///   mssth4 ggl 3.00 3.00 1.99 1.99; esdirk436L2SA2 ggl 3.01 3.01 1.99 1.99;
///   lms2, ss2, lms3, ss3: 2.00 in all four with either form.
/// At dt/n = 1/1600 s the stabilized form's acceleration errors are 200-3600 times smaller
/// for the methods of stage order 2 (mssth3: 4.2e-3 -> 1.7e-6).
#[test]
fn stabilized_form_restores_the_stage_order_in_accelerations_and_reactions() {
    let reference = reference();
    let dtn = [1.0 / 400.0, 1.0 / 800.0, 1.0 / 1600.0];
    let mut failures = Vec::new();
    let mut check = |ok: bool, what: String| {
        println!("{what}");
        if !ok {
            failures.push(what);
        }
    };
    let within = |x: f64, lo: f64, hi: f64| (lo..=hi).contains(&x);
    let show = |m: Method, form: ConstraintForm, p: &[f64; 4], e: &[f64; 4]| {
        format!(
            "{:>16} {:>6}: orders q {:.2} v {:.2} a {:.2} R {:.2}; errors at 1/1600 s {:.1e} {:.1e} {:.1e} {:.1e}",
            m.item_name(),
            format!("{form:?}"),
            p[0],
            p[1],
            p[2],
            p[3],
            e[0],
            e[1],
            e[2],
            e[3]
        )
    };
    for (m, third) in [
        (Method::Bathe, false),
        (Method::Mssth3, true),
        (Method::Esdirk324L2Sa, true),
        (Method::Esdirk325L2Sa, true),
        (Method::Mssth4, true),
        (Method::Esdirk436L2Sa2, true),
    ] {
        let (pi, ei) = orders(m, ConstraintForm::Index3, &dtn, &reference);
        check(within(pi[2], 0.7, 1.3) && within(pi[3], 0.7, 1.3), show(m, ConstraintForm::Index3, &pi, &ei));
        let (pg, eg) = orders(m, ConstraintForm::Ggl, &dtn, &reference);
        let positions = if third { pg[0] >= 2.8 && pg[1] >= 2.8 } else { pg[0] >= 1.85 && pg[1] >= 1.85 };
        check(
            positions && pg[2] >= 1.85 && pg[3] >= 1.85 && eg[2] * 100.0 < ei[2] && eg[3] * 100.0 < ei[3],
            show(m, ConstraintForm::Ggl, &pg, &eg),
        );
    }
    for m in [Method::Lms2, Method::Ss2, Method::Lms3, Method::Ss3] {
        for form in [ConstraintForm::Index3, ConstraintForm::Ggl] {
            let (p, e) = orders(m, form, &dtn, &reference);
            check(p.iter().all(|&x| within(x, 1.85, 2.15)), show(m, form, &p, &e));
        }
    }
    assert!(failures.is_empty(), "outside the expected orders:\n{}", failures.join("\n"));
}

/// The rotating shaft with its disk on a fixed joint at mid-span (the index-3 position
/// constraint on the measured node): mid-span u3, v3, a3 orders of both forms over the first
/// 0.5 s at dt/n = 1/960, 1/1920, 1/3840 s (the window and steps of tests/beam_convergence.rs).
/// Prints the table of docs/formulations.md; about 2 minutes in release:
/// `cargo test --release -p mbfmu-engine --test suite shaft_study -- --ignored --nocapture`.
#[test]
#[ignore = "study"]
fn shaft_study() {
    use crate::shaft::{relative_error, Source, Study, MID_NODE};
    let window = 0.5;
    let coarsest = 1.0 / 960.0;
    let dtn: Vec<f64> = (0..3).map(|l| coarsest / f64::from(1u32 << l)).collect();
    // The catalog shaft on the study's mesh, its disk moved from the node onto a fixed joint.
    let entry = mbfmu_model::catalog::find("RotatingShaft").expect("catalog");
    let mut v: serde_json::Value =
        serde_json::from_str(&crate::shaft::with_elements(entry.json, crate::shaft::ELEMENTS)).expect("json");
    let disk = v["bodies"].as_array_mut().expect("bodies").iter_mut().find(|b| b["name"] == "disk").expect("the disk");
    let node = disk["attached_to"].as_str().expect("the disk is attached to a node").to_string();
    disk.as_object_mut().expect("a body").remove("attached_to");
    v["joints"].as_array_mut().expect("joints").push(serde_json::json!({
        "name": "hub", "type": "fixed", "body1": node, "body2": "disk", "point": [3.0, 0.0, 0.0]
    }));
    let mut d = format::parse(&v.to_string()).expect("a valid description");
    d.solver.tolerance = 1e-12;
    d.solver.max_iterations = 100;
    d.solver.constraint_form = ConstraintForm::Ggl;
    let mut study = Study { d, node: MID_NODE, window };
    // u3 by ESDIRK4(3)6L[2]SA2 at dt/n = 1/38400 s, v3 and a3 by LMS4 (order 2 in all three)
    // at 1/30720 s, both in the stabilized form.
    let esdirk = Source { method: Method::Esdirk436L2Sa2, rho: 0.0, divisor: 40 };
    let lms4 = Source { method: Method::Lms4, rho: 0.6, divisor: 32 };
    let r = study.reference(coarsest, [esdirk, lms4, lms4]).expect("reference");
    for (m, rho) in [
        (Method::Lms2, 0.6),
        (Method::Bathe, 0.6),
        (Method::Mssth3, 0.0),
        (Method::Esdirk324L2Sa, 0.0),
        (Method::Esdirk325L2Sa, 0.0),
        (Method::Esdirk436L2Sa2, 0.0),
        (Method::Mssth4, 0.0),
    ] {
        for form in [ConstraintForm::Index3, ConstraintForm::Ggl] {
            study.d.solver.constraint_form = form;
            let n = m.implicit_stages();
            let every = f64::from(n) * coarsest;
            let mut e = vec![Vec::new(); 3];
            for &h in &dtn {
                let run = study.run(m, rho, h, every).expect("runs");
                for (q, e) in e.iter_mut().enumerate() {
                    e.push(relative_error(&run.trace.x[q], &r.trace.x[q], n as usize));
                }
            }
            let p: Vec<f64> = e.iter().map(|e| slope(&dtn, e)).collect();
            println!(
                "{:>16} {:>6}: u3 {:.2} v3 {:.2} a3 {:.2}   finest {:.1e} {:.1e} {:.1e}",
                m.item_name(),
                format!("{form:?}"),
                p[0],
                p[1],
                p[2],
                e[0][2],
                e[1][2],
                e[2][2]
            );
        }
    }
}

/// Every index-3 catalog model runs in the stabilized form (drivers, beams, hydraulic
/// circuits, the per-body Schur path and the chain's block-tridiagonal Schur complement),
/// and over the first tenth of its experiment (at most 0.5 s) its bodies move as in the
/// index-3 form, to within the methods' error.
#[test]
fn every_index3_catalog_model_runs_in_the_stabilized_form() {
    let mut failures = Vec::new();
    for entry in mbfmu_model::catalog::CATALOG {
        let mut d = format::parse(entry.json).expect("catalog models are valid");
        if d.solver.formulation != format::Formulation::Index3 {
            continue;
        }
        if d.solver.method == Method::HalfImplicit {
            d.solver.method = Method::Lms2;
        }
        let end = d.experiment.start + (0.1 * (d.experiment.stop - d.experiment.start)).min(0.5);
        let run = |form| {
            let mut d = d.clone();
            d.solver.constraint_form = form;
            let mut sim = Simulation::new(&d).map_err(|e| e.to_string())?;
            let started = std::time::Instant::now();
            sim.advance_to(end).map_err(|e| e.to_string())?;
            Ok::<_, String>((sim.state().clone(), started.elapsed().as_secs_f64()))
        };
        let (a, b) = match (run(ConstraintForm::Index3), run(ConstraintForm::Ggl)) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                failures.push(format!("{}: index3 {:?}, ggl {:?}", entry.name, a.err(), b.err()));
                continue;
            }
        };
        let scale = a.0.bodies.iter().map(|s| s.r.norm()).fold(1e-3, f64::max);
        let dr = a.0.bodies.iter().zip(&b.0.bodies).map(|(x, y)| (x.r - y.r).norm()).fold(0.0, f64::max);
        println!(
            "{:<36} {:>14} to {end:.3} s: max position difference {:.1e} of {scale:.1e} m; {:.2} s and {:.2} s",
            entry.name,
            d.solver.method.item_name(),
            dr,
            a.1,
            b.1
        );
        if dr.is_nan() || dr > 1e-3 * scale {
            failures.push(format!("{}: positions differ by {dr:.2e} m", entry.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A snapshot of the stabilized form restores exactly: the run continued from it repeats
/// the run that went on without it, bit for bit (mu lives within a step, so the state and
/// the integrator's history are those of the index-3 form).
#[test]
fn stabilized_form_restores_snapshots_exactly() {
    let mut d = format::parse(mbfmu_model::catalog::find("DoublePendulum").expect("catalog").json).expect("valid");
    for method in [Method::Lms3, Method::Esdirk324L2Sa] {
        d.solver.method = method;
        d.solver.constraint_form = ConstraintForm::Ggl;
        let mut sim = Simulation::new(&d).expect("builds");
        sim.advance_to(0.2).expect("steps");
        let snapshot = sim.snapshot();
        sim.advance_to(0.5).expect("steps");
        let straight = sim.snapshot();
        sim.restore(&snapshot).expect("restores");
        sim.advance_to(0.5).expect("steps");
        assert_eq!(sim.snapshot(), straight, "{}", method.item_name());
    }
}

/// The stabilized form is refused where it does not apply, naming the field and the choices.
#[test]
fn stabilized_form_is_refused_where_it_does_not_apply() {
    let json = mbfmu_model::catalog::find("DoublePendulum").expect("catalog").json;
    let with = |solver: &str| {
        let mut v: serde_json::Value = serde_json::from_str(json).expect("json");
        v["solver"] = serde_json::from_str(solver).expect("solver json");
        format::parse(&v.to_string()).map(drop).map_err(|e| e.to_string())
    };
    let e = with(r#"{ "method": "halfImplicit", "constraint_form": "ggl" }"#).unwrap_err();
    assert!(e.contains("constraint_form") && e.contains("halfImplicit") && e.contains("bdf1"), "{e}");
    let e = with(r#"{ "formulation": "stateSpace", "method": "sdirk4", "constraint_form": "ggl" }"#).unwrap_err();
    assert!(e.contains("constraint_form") && e.contains("stateSpace") && e.contains("index3"), "{e}");
    let e = with(r#"{ "method": "bdf1", "constraint_form": "index2" }"#).unwrap_err();
    assert!(e.contains("index2") && e.contains("ggl") && e.contains("index3"), "{e}");
    assert!(with(r#"{ "method": "bdf1", "constraint_form": "ggl" }"#).is_ok());
}
