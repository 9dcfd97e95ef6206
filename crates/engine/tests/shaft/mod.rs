//! Shared by tests/beam_convergence.rs and benches/beam_convergence.rs: the convergence study
//! of Zhang2022 Sect. 5.4 (Figs. 25-27) on the catalog's RotatingShaft. Relative errors of
//! the mid-span displacement u3, velocity v3 and acceleration a3 (global z) against a
//! reference, as functions of dt/n (n = implicit stages per step, the same dt/n for every
//! method), by \[Zhang2022\]'s measure, eq. (26):
//!   RE(x) = sqrt( sum_j (x(t_j) - x_j)^2 / sum_j x(t_j)^2 ),
//! the sum over every step t_j of the method's coarsest run (its finer runs are compared at
//! the same instants, so that the error ratios of one method are those of one error function).
//!
//! Step sizes: dt/n = 1/N s with N a multiple of 240 (the largest 1/960 s, about \[Zhang2022\]'s
//! 1e-3 s): every step h = n dt/n (n = 1..5) then divides 0.25 s, so every run steps exactly
//! onto the instants where the drive law changes (0.5, 1, 1.25 s; its third derivative jumps
//! there) and onto every sampling instant.

#![allow(dead_code)]

use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description, Method, Quantity};
use std::time::Instant;

/// Elements of the shaft in this study: the 33 nodes of the reference solutions' 16
/// three-node elements, the mesh the published table was measured on. The catalog model has
/// a finer mesh (docs/mesh-study.md); the time error this study measures hardly depends on it,
/// and this mesh costs half as much.
pub const ELEMENTS: usize = 32;

/// The shaft's mid-span node (x = 3 m), where the disk is attached: node 16 of 0..=32.
pub const MID_NODE: usize = ELEMENTS / 2;

pub const QUANTITIES: [&str; 3] = ["u3", "v3", "a3"];

/// The model, the node sampled and the simulated interval [0, window].
pub struct Study {
    pub d: Description,
    pub node: usize,
    pub window: f64,
}

/// The catalog description `json` with `elements` shaft elements, whatever names the
/// catalog's mid-span node naming the new mid-span node instead.
pub fn with_elements(json: &str, elements: usize) -> String {
    fn rename(v: &mut serde_json::Value, from: &str, to: &str) {
        match v {
            serde_json::Value::String(s) if s == from => *s = to.to_string(),
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| rename(x, from, to)),
            serde_json::Value::Object(o) => o.iter_mut().for_each(|(_, x)| rename(x, from, to)),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(json).expect("json");
    let catalog = v["beams"][0]["elements"].as_u64().expect("shaft elements") as usize;
    v["beams"][0]["elements"] = elements.into();
    rename(&mut v, &format!("shaft.node{}", catalog / 2), &format!("shaft.node{}", elements / 2));
    v.to_string()
}

impl Study {
    /// The catalog model with a Newton tolerance far below every error measured (position
    /// corrections [m, rad]; accelerations then converge to about tol / (gamma h)^2).
    pub fn new(tolerance: f64, node: usize, window: f64) -> Study {
        let entry = mbfmu_model::catalog::find("RotatingShaft").expect("RotatingShaft is in the catalog");
        let mut d = format::parse(&with_elements(entry.json, ELEMENTS)).expect("catalog models are valid");
        d.solver.tolerance = tolerance;
        d.solver.max_iterations = 100;
        Study { d, node, window }
    }

    /// Runs `method` at step h = n dt/n and samples u3, v3, a3 every `every` seconds (a
    /// multiple of h). Checks that the run took exactly the equal steps asked for.
    pub fn run(&self, method: Method, rho: f64, dt_per_stage: f64, every: f64) -> Result<Run, String> {
        let n = f64::from(method.implicit_stages());
        let mut d = self.d.clone();
        d.solver.method = method;
        d.solver.rho_inf = rho;
        d.solver.step_size = n * dt_per_stage;
        let start = Instant::now();
        let mut sim = Simulation::new(&d).map_err(|e| e.to_string())?;
        let node = self.node;
        let quantities = [
            Quantity::NodeDisplacement { node, axis: 2 },
            Quantity::NodeVelocity { node, axis: 2 },
            Quantity::NodeAcceleration { node, axis: 2 },
        ];
        let mut trace = Trace::default();
        for k in 1..=(self.window / every).round() as usize {
            sim.advance_to(k as f64 * every).map_err(|e| e.to_string())?;
            for (x, q) in trace.x.iter_mut().zip(quantities) {
                x.push(sim.quantity(q));
            }
        }
        let steps = (self.window / (n * dt_per_stage)).round() as u64;
        assert_eq!(sim.steps(), steps, "{}: the run must take equal steps of n dt/n", method.paper_name());
        Ok(Run {
            trace,
            seconds: start.elapsed().as_secs_f64(),
            iterations_per_stage: sim.total_iterations() as f64 / (sim.steps() as f64 * n),
        })
    }

    /// The reference: each of u3, v3, a3 from its own source (equal sources run once),
    /// sampled at every multiple of `every`.
    pub fn reference(&self, every: f64, sources: [Source; 3]) -> Result<Reference, String> {
        let mut trace = Trace::default();
        let mut seconds = 0.0;
        let mut done: Vec<(Source, Run)> = Vec::new();
        for (q, s) in sources.iter().enumerate() {
            if !done.iter().any(|(t, _)| t == s) {
                let r = self.run(s.method, s.rho, s.dt_per_stage(every), every)?;
                seconds += r.seconds;
                done.push((*s, r));
            }
            let (_, r) = done.iter().find(|(t, _)| t == s).expect("run above");
            trace.x[q].clone_from(&r.trace.x[q]);
        }
        Ok(Reference { trace, sources, seconds })
    }
}

/// Samples of u3, v3, a3.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub x: [Vec<f64>; 3],
}

/// One run: its samples and cost.
pub struct Run {
    pub trace: Trace,
    pub seconds: f64,
    pub iterations_per_stage: f64,
}

/// Zhang2022 eq. (26) over the samples of `x`; `reference` is sampled `stride` times as
/// densely (its sample k stride - 1 is at the instant of x's sample k - 1).
pub fn relative_error(x: &[f64], reference: &[f64], stride: usize) -> f64 {
    let r = reference.iter().skip(stride - 1).step_by(stride);
    let (num, den) = x.iter().zip(r).fold((0.0, 0.0), |(n, d), (a, b)| (n + (a - b) * (a - b), d + b * b));
    (num / den).sqrt()
}

/// Least-squares slope of log(e) against log(dt/n).
pub fn slope(dt_per_stage: &[f64], e: &[f64]) -> f64 {
    let xs: Vec<f64> = dt_per_stage.iter().map(|h| h.ln()).collect();
    let ys: Vec<f64> = e.iter().map(|e| e.ln()).collect();
    let m = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / m, ys.iter().sum::<f64>() / m);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

/// One reference run: method, rho_inf and dt/n as a divisor of the sampling interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Source {
    pub method: Method,
    pub rho: f64,
    /// dt/n = every / divisor; the step n dt/n must divide `every`.
    pub divisor: u32,
}

impl Source {
    pub fn dt_per_stage(&self, every: f64) -> f64 {
        every / f64::from(self.divisor)
    }
}

/// A reference trace and where each quantity comes from.
pub struct Reference {
    pub trace: Trace,
    pub sources: [Source; 3],
    pub seconds: f64,
}

/// ESDIRK4(3)6L[2]SA2 (\[Zhang2022\]'s reference method; with the disk on the node, order 3.5
/// or better in u3 and v3 here and about 2.3 in a3 over the first 0.5 s) with its step
/// every / `divisor`.
pub fn esdirk4(divisor: u32) -> Source {
    Source { method: Method::Esdirk436L2Sa2, rho: 0.0, divisor: 5 * divisor }
}

/// LMS4 at rho_inf = 0.6: order 2 in u3, v3 and a3 alike (the a3 reference of the study while
/// the disk was held on its node by a fixed joint, when the ESDIRK-type methods reached only
/// order 1 in the mid-span a3; kept for comparisons).
pub fn lms4(divisor: u32) -> Source {
    Source { method: Method::Lms4, rho: 0.6, divisor }
}

/// The rows of the study: every index-3 method except the half-implicit one; the
/// second-order methods with tunable dissipation at rho_inf = 0 and 0.6, the higher-order
/// methods at 0 (\[Zhang2022\]'s choice, Figs. 25-27) and BDF1 (the trapezoidal rule is
/// refused for index-3 descriptions: `Method::refusal`).
pub fn rows() -> Vec<(Method, f64)> {
    let mut v = vec![(Method::Bdf1, 0.0)];
    for rho in [0.0, 0.6] {
        for &m in Method::ZHANG2022.iter().filter(|m| m.order() == 2) {
            v.push((m, rho));
        }
    }
    for &m in Method::ZHANG2022.iter().filter(|m| m.order() > 2) {
        v.push((m, 0.0));
    }
    v
}
