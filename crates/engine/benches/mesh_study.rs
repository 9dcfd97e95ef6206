//! Mesh and step refinement study of the catalog's flexible models (those with `beams`):
//! for each model, the quantities that characterise it (those its tests and the
//! documentation compare, peak and plateau amplitudes, static deflections) on the mesh of
//! the reference solutions' nodes (x1) and with every beam's element count times 2, 4 and 8,
//! with lumped and with consistent translational mass (`"inertia"`), on the catalog's own
//! mesh, and at the finest lumped mesh also at half the model's internal step, so that the
//! time error stands apart from the mesh error. docs/mesh-study.md publishes the tables.
//!
//!     cargo bench -p mbfmu-engine --bench mesh_study                       # about 1 h (estimated)
//!     cargo bench -p mbfmu-engine --bench mesh_study -- RotatingShaft      # one model
//!     cargo bench -p mbfmu-engine --bench mesh_study -- --elements beam=36,link=4,crank=1 \
//!         --inertia consistent LateralBuckling                             # one mesh
//!
//! The converged value of each quantity is the Richardson extrapolation of the two finest
//! lumped meshes, Q = Q8 + (Q8 - Q4) / (2^p - 1), with the order p observed from the three
//! finest, p = log2((Q2 - Q4) / (Q4 - Q8)) (Richardson's deferred approach to the limit; the
//! element converges as h^2, tests/beam_benchmarks.rs and tests/beam_vibration.rs). Where
//! the differences change sign or p falls outside [0.5, 4] (the sequence is not asymptotic,
//! or the quantity is converged to its sampling resolution) p = 2 is assumed and the row
//! says so. Errors are relative to that estimate. The time error is Q(h/2) - Q(h) at the
//! finest mesh times 4/3 (the methods are of order 2, docs/formulations.md), relative to
//! the converged value.
//!
//! A model whose catalog step leaves a time error that changes with the mesh (LateralBuckling:
//! the finer strips' higher bending modes) is studied at a quarter of that step
//! (`study_step`), so that the meshes compare solutions converged in time.
//!
//! Every run records its quantities at each internal step of the model's solver (at every
//! second step in the half-step run, so at the same instants), and reports its wall time.

use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use mbfmu_model::variables::{interface_of, Binding, Quantity};
use serde_json::Value;
use std::time::Instant;

/// Samples of named outputs at equal times.
struct Record {
    t: Vec<f64>,
    v: Vec<Vec<f64>>,
}

impl Record {
    fn signal(&self, i: usize) -> Vec<f64> {
        self.v.iter().map(|r| r[i]).collect()
    }
    fn at(&self, t: f64) -> &[f64] {
        let k = self.t.iter().position(|s| (s - t).abs() < 1e-9).unwrap_or_else(|| panic!("no sample at {t}"));
        &self.v[k]
    }
    fn peak(&self, i: usize, from: f64, to: f64, f: impl Fn(f64) -> f64) -> f64 {
        self.t
            .iter()
            .zip(&self.v)
            .filter(|(t, _)| (from..=to).contains(*t))
            .map(|(_, r)| f(r[i]))
            .fold(f64::MIN, f64::max)
    }
}

/// A model of the study: its name, the outputs recorded (named for the catalog mesh), how
/// long, and the quantities computed from the record.
struct Model {
    name: &'static str,
    /// Elements per beam of the x1 mesh (the nodes of the reference solutions' three-node
    /// elements where there is one; the signals name nodes of this mesh).
    base: &'static [(&'static str, usize)],
    signals: &'static [&'static str],
    stop: f64,
    quantities: fn(&Record, &Description) -> Vec<(&'static str, f64)>,
    /// The study's internal step relative to the catalog's: below 1 where the catalog's step
    /// leaves a time error that changes with the mesh (the finer meshes' higher modes), so
    /// that the meshes are compared on solutions converged in time.
    study_step: f64,
}

/// Frequency [Hz] of `x` from its crossings of its mean (linearly interpolated).
fn crossing_frequency(t: &[f64], x: &[f64]) -> f64 {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let c: Vec<f64> = (1..x.len())
        .filter(|&k| (x[k - 1] - mean) * (x[k] - mean) < 0.0)
        .map(|k| t[k - 1] + (t[k] - t[k - 1]) * (mean - x[k - 1]) / (x[k] - x[k - 1]))
        .collect();
    assert!(c.len() >= 4, "{} crossings", c.len());
    (c.len() - 1) as f64 / (2.0 * (c[c.len() - 1] - c[0]))
}

fn shaft(r: &Record, _d: &Description) -> Vec<(&'static str, f64)> {
    let (y, z) = (r.signal(0), r.signal(1));
    let sag = z[0];
    let radius: Vec<f64> = y.iter().zip(&z).map(|(y, z)| y.hypot(z - sag)).collect();
    let peak = |from: f64, to: f64| {
        r.t.iter().zip(&radius).filter(|(t, _)| (from..to).contains(*t)).map(|(_, r)| *r).fold(0.0f64, f64::max)
    };
    // The beat at 72 rad/s (as tests/beam_benchmarks.rs): minima of the whirl radius, each
    // the smallest within +-0.1 s, give the beat period 2 pi / (72 - omega_c).
    let after: Vec<(f64, f64)> = r.t.iter().zip(&radius).filter(|(t, _)| **t > 1.3).map(|(t, r)| (*t, *r)).collect();
    let minima: Vec<f64> = after
        .iter()
        .filter(|(t, q)| *t > 1.4 && *t < 2.4 && after.iter().all(|(s, p)| (s - t).abs() > 0.1 || p >= q))
        .map(|(t, _)| *t)
        .collect();
    let omega_c = if minima.len() >= 2 {
        72.0 - 2.0 * std::f64::consts::PI * (minima.len() - 1) as f64 / (minima[minima.len() - 1] - minima[0])
    } else {
        f64::NAN
    };
    vec![
        ("static sag at mid-span [mm]", -1e3 * sag),
        ("whirl radius, 48 rad/s plateau (0.6-1 s) [mm]", 1e3 * peak(0.6, 1.0)),
        ("whirl radius, peak at the crossing (1-1.5 s) [mm]", 1e3 * peak(1.0, 1.5)),
        ("whirl radius, 72 rad/s plateau (1.5-2.5 s) [mm]", 1e3 * peak(1.5, 2.5 + 1e-9)),
        ("critical speed from the beat [rad/s]", omega_c),
    ]
}

fn buckling(r: &Record, _d: &Description) -> Vec<(&'static str, f64)> {
    vec![
        ("lateral displacement at mid-span, 0.2 s [mm]", 1e3 * r.at(0.2)[0]),
        ("lateral displacement at mid-span, 0.4 s [mm]", 1e3 * r.at(0.4)[0]),
        ("peak lateral displacement at mid-span [mm]", 1e3 * r.peak(0, 0.0, 0.8, f64::abs)),
        ("peak vertical displacement at mid-span [mm]", 1e3 * r.peak(1, 0.0, 0.8, f64::abs)),
        ("peak crank torque [N m]", r.peak(2, 0.0, 0.8, f64::abs)),
    ]
}

fn hydraulic_beam(r: &Record, _d: &Description) -> Vec<(&'static str, f64)> {
    let (t, tip) = (&r.t, r.signal(2));
    let ring: Vec<(f64, f64)> = t.iter().zip(&tip).filter(|(t, _)| **t >= 2.2).map(|(t, x)| (*t, *x)).collect();
    let (rt, rx): (Vec<f64>, Vec<f64>) = ring.into_iter().unzip();
    let amplitude = 0.5 * (rx.iter().cloned().fold(f64::MIN, f64::max) - rx.iter().cloned().fold(f64::MAX, f64::min));
    let at1 = r.at(1.0);
    vec![
        ("final beam angle, 5 s [deg]", r.at(5.0)[0].to_degrees()),
        ("piston speed, 1 s [m/s]", at1[1]),
        ("orifice drop, 1 s [MPa]", 1e-6 * (at1[3] - at1[4])),
        ("peak chamber pressure [MPa]", 1e-6 * r.peak(4, 0.0, 5.0, |p| p)),
        ("tip ringing frequency after 2.2 s [Hz]", crossing_frequency(&rt, &rx)),
        ("tip ringing amplitude after 2.2 s [mm]", 1e3 * amplitude),
    ]
}

fn four_bar(r: &Record, _d: &Description) -> Vec<(&'static str, f64)> {
    let to = 12.0 + 1e-9;
    vec![
        ("peak out-of-plane displacement at C, 0-12 s [mm]", 1e3 * r.peak(0, 0.0, to, f64::abs)),
        ("peak crank torque, 0-12 s [N m]", r.peak(1, 0.0, to, f64::abs)),
        ("peak reaction at C along z, 0-12 s [N]", r.peak(2, 0.0, to, f64::abs)),
        ("peak bending moment 2 at bar1 mid-span, 0-12 s [N m]", r.peak(3, 0.0, to, f64::abs)),
        ("peak bending moment 3 at bar1 mid-span, 0-12 s [N m]", r.peak(4, 0.0, to, f64::abs)),
    ]
}

/// The tip's deflection: its position against the undeformed boom turned about the pin by
/// the pin's rotation (the angle of the node the revolute joint holds).
fn patu(r: &Record, d: &Description) -> Vec<(&'static str, f64)> {
    let pin = [-0.09, 1.4261];
    let last = d.beams.last().expect("beams");
    let tip0 = last.points[last.points.len() - 1];
    let theta0 = d.joints.iter().find(|j| j.name == "lift_pin").map_or(0.0, |j| j.initial_coordinate);
    let deflection: Vec<f64> =
        r.v.iter()
            .map(|row| {
                let (s, c) = (row[0] - theta0).sin_cos();
                let (dx, dy) = (tip0[0] - pin[0], tip0[1] - pin[1]);
                let rigid = [pin[0] + c * dx - s * dy, pin[1] + s * dx + c * dy];
                (row[3] - rigid[0]).hypot(row[4] - rigid[1])
            })
            .collect();
    // p1's ringing after the valve opens at 2 s (as tests/patu_lift_boom_flexible.rs):
    // crossings of p1 less its centred moving average over 71 samples.
    let h = r.t[1] - r.t[0];
    let p: Vec<f64> = r.signal(1);
    let (from, to, half) = ((2.0 / h).round() as usize, (2.6 / h).round() as usize, 35);
    let detrended: Vec<f64> = (from..=to).map(|k| p[k] - p[k - half..=k + half].iter().sum::<f64>() / 71.0).collect();
    let times: Vec<f64> = (from..=to).map(|k| r.t[k]).collect();
    vec![
        ("tip deflection at rest [mm]", 1e3 * deflection[0]),
        ("peak tip deflection [mm]", 1e3 * deflection.iter().cloned().fold(0.0, f64::max)),
        ("p1 while lifting, 5 s [MPa]", 1e-6 * r.at(5.0)[1]),
        ("p2 while lowering, 17 s [MPa]", 1e-6 * r.at(17.0)[2]),
        ("p1 ringing after the valve opens [Hz]", crossing_frequency(&times, &detrended)),
    ]
}

const MODELS: [Model; 5] = [
    Model {
        name: "RotatingShaft",
        base: &[("shaft", 32)],
        signals: &["shaft.node16.displacement.y", "shaft.node16.displacement.z"],
        stop: 2.5,
        quantities: shaft,
        study_step: 1.0,
    },
    Model {
        name: "LateralBuckling",
        base: &[("beam", 10), ("link", 2), ("crank", 2)],
        signals: &["beam.node5.displacement.y", "beam.node5.displacement.z", "crank_drive.effort"],
        stop: 0.8,
        quantities: buckling,
        study_step: 0.25,
    },
    Model {
        name: "HydraulicFlexibleBeam",
        base: &[("beam", 8)],
        signals: &[
            "hinge.angle",
            "cylinder.velocity",
            "beam.node8.displacement.z",
            "pipe_end.pressure",
            "chamber.pressure",
        ],
        stop: 5.0,
        quantities: hydraulic_beam,
        study_step: 1.0,
    },
    Model {
        name: "FlexibleFourBar",
        base: &[("bar1", 10), ("bar2", 10), ("bar3", 10)],
        signals: &[
            "bar2.node10.displacement.z",
            "crank.effort",
            "C.reaction_force.z",
            "bar1.node5.section_moment.bending2",
            "bar1.node5.section_moment.bending3",
        ],
        stop: 12.0,
        quantities: four_bar,
        study_step: 1.0,
    },
    Model {
        name: "PatuLiftBoomFlexible",
        base: &[
            ("boom0", 1),
            ("boom1", 1),
            ("boom2", 1),
            ("boom3", 1),
            ("boom4", 1),
            ("boom5", 1),
            ("boom6", 1),
            ("boom7", 1),
            ("boom8", 1),
            ("boom9", 1),
            ("boom10", 1),
        ],
        signals: &[
            "lift_pin.angle",
            "V1.pressure",
            "V2.pressure",
            "boom10.node1.position.x",
            "boom10.node1.position.y",
        ],
        stop: 24.0,
        quantities: patu,
        study_step: 1.0,
    },
];

/// Element count of a beam of the catalog JSON.
fn elements(beam: &Value) -> usize {
    let points = beam["points"].as_array().expect("points").len();
    if points > 2 {
        points - 1
    } else {
        beam["elements"].as_u64().unwrap_or(1) as usize
    }
}

/// `name` with a node index of a beam in `scale` (`<beam>.node<i>...`) scaled.
fn rename(name: &str, scale: &[(String, f64)]) -> String {
    for (beam, k) in scale {
        if let Some(rest) = name.strip_prefix(&format!("{beam}.node")) {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if !digits.is_empty() {
                let i: usize = digits.parse().expect("index");
                // A node that falls between nodes of the new mesh: the nearest one.
                let scaled = (i as f64 * k).round() as usize;
                return format!("{beam}.node{scaled}{}", &rest[digits.len()..]);
            }
        }
    }
    name.to_string()
}

fn rename_all(v: &mut Value, scale: &[(String, f64)]) {
    match v {
        Value::String(s) => *s = rename(s, scale),
        Value::Array(a) => a.iter_mut().for_each(|x| rename_all(x, scale)),
        Value::Object(o) => o.iter_mut().for_each(|(_, x)| rename_all(x, scale)),
        _ => {}
    }
}

/// The catalog model with each beam's element count `count(beam, catalog count)` (the
/// catalog's own count and inertia where `count` gives `None`), the given beam inertia and
/// internal step times `step`; node names of the catalog scaled to the new mesh. Returns
/// the description and the signals renamed from the x1 mesh of `model` to the new one.
fn variant(
    model: &Model,
    count: impl Fn(&str) -> Option<usize>,
    inertia: &str,
    step: f64,
) -> (Description, Vec<String>) {
    let json = mbfmu_model::catalog::find(model.name).expect("catalog model").json;
    let mut v: Value = serde_json::from_str(json).expect("json");
    let (mut scale, mut from_base) = (Vec::new(), Vec::new());
    for b in v["beams"].as_array_mut().expect("beams") {
        let n = elements(b);
        let name = b["name"].as_str().expect("beam name").to_string();
        assert!(b["points"].as_array().unwrap().len() == 2, "{}: beams given node by node", model.name);
        let base = model.base.iter().find(|(b, _)| *b == name).expect("x1 mesh of every beam").1;
        let m = match count(&name) {
            Some(m) => {
                b["elements"] = Value::from(m);
                b["inertia"] = Value::from(inertia);
                m
            }
            None => n,
        };
        scale.push((name.clone(), m as f64 / n as f64));
        from_base.push((name, m as f64 / base as f64));
    }
    rename_all(&mut v, &scale);
    let h = v["solver"]["step_size"].as_f64().expect("step_size");
    v["solver"]["step_size"] = Value::from(h * step);
    let signals = model.signals.iter().map(|s| rename(s, &from_base)).collect();
    (format::parse(&v.to_string()).expect("valid"), signals)
}

/// The mesh of `model` with every beam's x1 element count times `factor`.
fn refined(model: &Model, factor: usize, inertia: &str, step: f64) -> (Description, Vec<String>) {
    variant(model, |beam| model.base.iter().find(|(b, _)| *b == beam).map(|(_, n)| n * factor), inertia, step)
}

/// Runs `d` from its start to `stop`, recording `signals` every `dt`; returns the record and
/// the wall time.
fn run(d: &Description, signals: &[String], stop: f64, dt: f64) -> (Record, f64) {
    let interface = interface_of(d).expect("interface");
    let qs: Vec<Quantity> = signals
        .iter()
        .map(|n| match interface.by_name(n).unwrap_or_else(|| panic!("no output {n}")).binding {
            Binding::Output(q) => q,
            ref b => panic!("{n} is bound to {b:?}"),
        })
        .collect();
    let t0 = Instant::now();
    let mut sim = Simulation::new(d).expect("model builds");
    let start = d.experiment.start;
    let n = ((stop - start) / dt).round() as usize;
    let mut rec = Record { t: Vec::with_capacity(n + 1), v: Vec::with_capacity(n + 1) };
    for k in 0..=n {
        let t = start + k as f64 * dt;
        if k > 0 {
            sim.advance_to(t).unwrap_or_else(|e| panic!("{}: t = {t}: {e}", d.name));
        }
        // Sample times rounded to the step so that every run samples the same instants.
        rec.t.push((t / dt).round() * dt);
        rec.v.push(qs.iter().map(|q| sim.quantity(*q)).collect());
    }
    (rec, t0.elapsed().as_secs_f64())
}

struct Row {
    label: String,
    wall: f64,
    values: Vec<f64>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let takes_value = ["--elements", "--inertia", "--step", "--tolerance", "--method"];
    let names: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !takes_value.contains(&args[i - 1].as_str())))
        .map(|(_, a)| a)
        .collect();
    let value = |name: &str| args.iter().position(|a| a == name).map(|i| args[i + 1].clone());
    let counts = |d: &Description| d.beams.iter().map(|b| b.element_count().to_string()).collect::<Vec<_>>().join("+");
    // `--elements beam=48,link=2 --inertia consistent --step 0.5 [--tolerance 1e-7] [--method lms2] Model`:
    // one run of one mesh (beams not named keep the catalog's count and inertia; the Newton
    // tolerance and method the catalog's unless given), its quantities and wall time.
    if let Some(spec) = value("--elements") {
        let given: Vec<(String, usize)> = spec
            .split(',')
            .map(|kv| {
                let (k, v) = kv.split_once('=').expect("beam=count");
                (k.to_string(), v.parse().expect("count"))
            })
            .collect();
        let inertia = value("--inertia").unwrap_or_else(|| "lumped".into());
        let step: f64 = value("--step").map_or(1.0, |s| s.parse().expect("--step factor"));
        for model in MODELS.iter().filter(|m| names.iter().any(|n| *n == m.name)) {
            let (mut d, signals) =
                variant(model, |beam| given.iter().find(|(b, _)| b == beam).map(|(_, c)| *c), &inertia, step);
            if let Some(m) = value("--method") {
                let methods = format::Method::ALL;
                d.solver.method = *methods.iter().find(|x| x.item_name() == m).expect("--method: a solver.method item");
            }
            if let Some(tol) = value("--tolerance") {
                d.solver.tolerance = tol.parse().expect("--tolerance in the model's units");
            }
            let (rec, wall) = run(&d, &signals, model.stop, d.solver.step_size / step);
            println!("{} {} elements, {inertia}, step x{step}: wall {wall:.2} s", model.name, counts(&d));
            for (label, v) in (model.quantities)(&rec, &d) {
                println!("  {label}: {v:.5}");
            }
        }
        return;
    }
    for model in MODELS.iter().filter(|m| names.is_empty() || names.iter().any(|n| *n == m.name)) {
        let (catalog, _) = variant(model, |_| None, "lumped", 1.0);
        let dt = catalog.solver.step_size;
        let h = model.study_step;
        println!(
            "\n## {} (catalog: {} elements, {:?} inertia; internal step {dt} s, {} s in the study; {:.2} s simulated)",
            model.name,
            counts(&catalog),
            catalog.beams[0].inertia,
            dt * h,
            model.stop - catalog.experiment.start
        );
        let mut rows: Vec<Row> = Vec::new();
        let mut labels: Vec<&'static str> = Vec::new();
        let mut study = |label: String, (d, signals): (Description, Vec<String>)| {
            let (rec, wall) = run(&d, &signals, model.stop, dt);
            let q = (model.quantities)(&rec, &d);
            labels = q.iter().map(|(l, _)| *l).collect();
            eprintln!(
                "{label:<24} {:>12} elements {wall:7.1} s {:?}",
                counts(&d),
                q.iter().map(|(_, v)| *v).collect::<Vec<_>>()
            );
            rows.push(Row { label, wall, values: q.into_iter().map(|(_, v)| v).collect() });
        };
        for factor in [1, 2, 4, 8] {
            study(format!("x{factor}"), refined(model, factor, "lumped", h));
        }
        for factor in [1, 2, 4] {
            study(format!("x{factor} consistent"), refined(model, factor, "consistent", h));
        }
        study("catalog".into(), variant(model, |_| None, "lumped", h));
        study("x8, h/2".into(), refined(model, 8, "lumped", 0.5 * h));

        // Converged estimates from the lumped sequence x2, x4, x8.
        let (q2, q4, q8, q8h) = (&rows[1].values, &rows[2].values, &rows[3].values, &rows[8].values);
        let shown = &rows[..8];
        println!(
            "\n| quantity | {} | converged | order p | time error at h |",
            shown.iter().map(|r| r.label.as_str()).collect::<Vec<_>>().join(" | ")
        );
        println!("|---|{}---|---|---|", "---|".repeat(shown.len()));
        for (i, label) in labels.iter().enumerate() {
            let (d1, d2) = (q2[i] - q4[i], q4[i] - q8[i]);
            let observed = (d1 / d2).log2();
            let asymptotic = d1 * d2 > 0.0 && (0.5..=4.0).contains(&observed);
            let p = if asymptotic { observed } else { 2.0 };
            let converged = q8[i] + (q8[i] - q4[i]) / (2f64.powf(p) - 1.0);
            let time_error = (q8h[i] - q8[i]) * 4.0 / 3.0;
            let cells: Vec<String> = shown
                .iter()
                .map(|r| format!("{} ({:+.2} %)", significant(r.values[i]), 100.0 * (r.values[i] / converged - 1.0)))
                .collect();
            println!(
                "| {label} | {} | {} | {} | {:+.2} % |",
                cells.join(" | "),
                significant(converged),
                if asymptotic { format!("{observed:.2}") } else { "2 (assumed)".into() },
                100.0 * time_error / converged
            );
        }
        println!(
            "| wall time of the run [s] | {} | | | x8, h/2: {:.1} s |",
            shown.iter().map(|r| format!("{:.1}", r.wall)).collect::<Vec<_>>().join(" | "),
            rows[8].wall
        );
    }
}

/// `x` with six significant digits.
fn significant(x: f64) -> String {
    let digits = (5 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}
