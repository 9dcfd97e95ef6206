//! Reproduction of \[Zhang2022\]'s comparison (Sect. 5, Fig. 28) on the catalog's mechanisms: per
//! model and per (method, rho_inf) the measured order of convergence, the average Newton
//! iterations per implicit stage, the energy drift and the CPU time.
//!
//!     cargo bench --bench integrator_study                 # every model below
//!     cargo bench --bench integrator_study -- DoublePendulum ElasticTop
//!
//! All methods run at the same dt/n (n = implicit stages per step, [Zhang2022, Sect. 5]: "the
//! integrators use the same dt/n"), with the model's default Newton tolerance. Columns:
//! - e(h), order: e the largest position error of any body at the communication points
//!   against a much finer run of ESDIRK4(3)6L[2]SA2 (of ESDIRK3(2)5L[2]SA for
//!   ESDIRK4(3)6L[2]SA2 itself), order = log2(e(h)/e(h/2)) ("floor" where e(h/2) < 1e-10 m
//!   or e does not decrease: Newton tolerance and round-off). On index-3 mechanisms every method shows
//!   order 2 in positions (stage order 2, see tests/integrators_order_reduction.rs); the
//!   unconstrained ElasticTop shows the design orders;
//! - it/stage: Newton iterations per implicit stage ([Zhang2022, Fig. 28], S/N);
//! - max|dE|: largest energy balance error dE = E - E0 - (W - W0) over the run, W the work of
//!   applied non-conservative loads ([Zhang2022, eq. 23] for Andrews' squeezer), and dE at the end;
//! - CPU: wall time of the run at h on one core.

use mbfmu_engine::index3::BodyState;
use mbfmu_engine::Simulation;
use mbfmu_model::format::Quantity;
use mbfmu_model::format::{self, Description, Method};
use std::time::Instant;

/// One benchmark model: a catalog model or an inline JSON description, horizon [s], dt/n
/// [s], number of communication points.
struct Case {
    model: Source,
    t_end: f64,
    dt_per_stage: f64,
    outputs: usize,
}

enum Source {
    Catalog(&'static str),
    Inline(&'static str),
}

use Source::{Catalog, Inline};

/// Adding a model is one line.
const CASES: &[Case] = &[
    Case { model: Catalog("DoublePendulum"), t_end: 1.0, dt_per_stage: 1e-3, outputs: 20 },
    Case { model: Inline(ELASTIC_TOP), t_end: 1.0, dt_per_stage: 1e-3, outputs: 20 },
    Case { model: Catalog("AndrewsSqueezer"), t_end: 0.03, dt_per_stage: 1e-4, outputs: 30 },
];

/// An unconstrained mechanism (a free asymmetric body spinning on a spring, as in
/// tests/integrators_mechanisms.rs): no index-3 order reduction, the design orders show.
const ELASTIC_TOP: &str = r#"{
  "name": "ElasticTop",
  "gravity": [0.0, 0.0, -9.81],
  "bodies": [ { "name": "body", "mass": 2.0, "inertia": [0.05, 0.08, 0.11], "position": [0.0, 0.0, -0.5],
                "velocity": [0.3, 0.0, 0.0], "angular_velocity": { "body": [1.0, 3.0, 2.0] } } ],
  "forces": [ { "type": "tsda", "name": "spring", "body1": "ground", "body2": "body",
                "point1": [0.0, 0.0, 0.0], "point2": [0.05, 0.03, -0.4], "stiffness": 200.0, "rest_length": 0.3 } ],
  "experiment": { "start": 0.0, "stop": 1.0, "step": 0.01 },
  "solver": { "tolerance": 1e-13 }
}"#;

/// \[Zhang2022\]'s choices: second-order methods at rho_inf = 0 and 0.6, MSSTH at 0, the
/// Kennedy-Carpenter ESDIRKs (L-stable) once.
fn runs() -> Vec<(Method, f64)> {
    let mut v = Vec::new();
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

struct Run {
    bodies: Vec<Vec<BodyState>>,
    iterations_per_stage: f64,
    max_de: f64,
    final_de: f64,
    seconds: f64,
}

fn run(d: &Description, method: Method, rho: f64, h: f64, times: &[f64]) -> Result<Run, String> {
    let mut run = d.clone();
    run.solver.method = method;
    run.solver.rho_inf = rho;
    run.solver.step_size = h;
    let start = Instant::now();
    let mut sim = Simulation::new(&run).map_err(|e| e.to_string())?;
    let balance = |sim: &Simulation| sim.quantity(Quantity::TotalEnergy) - sim.quantity(Quantity::ExternalWork);
    let e0 = balance(&sim);
    let (mut bodies, mut max_de, mut final_de) = (Vec::new(), 0.0f64, 0.0);
    for &t in times {
        sim.advance_to(t).map_err(|e| e.to_string())?;
        final_de = balance(&sim) - e0;
        max_de = max_de.max(final_de.abs());
        bodies.push(sim.state().bodies.clone());
    }
    let seconds = start.elapsed().as_secs_f64();
    let stages = sim.steps() as f64 * f64::from(method.implicit_stages());
    Ok(Run { bodies, iterations_per_stage: sim.total_iterations() as f64 / stages, max_de, final_de, seconds })
}

fn distance(a: &[Vec<BodyState>], b: &[Vec<BodyState>]) -> f64 {
    a.iter().zip(b).flat_map(|(x, y)| x.iter().zip(y)).map(|(p, q)| (p.r - q.r).norm()).fold(0.0, f64::max)
}

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    for case in CASES {
        let d = match case.model {
            Catalog(name) => {
                let entry = mbfmu_model::catalog::find(name).unwrap_or_else(|| panic!("{name} is not in the catalog"));
                format::parse(entry.json).expect("catalog models are valid")
            }
            Inline(json) => format::parse(json).expect("valid inline description"),
        };
        if !filter.is_empty() && !filter.contains(&d.name) {
            continue;
        }
        let times: Vec<f64> = (1..=case.outputs).map(|k| case.t_end * k as f64 / case.outputs as f64).collect();
        // References: ESDIRK4(3)6L[2]SA2 and ESDIRK3(2)5L[2]SA at dt/n / 64 (their errors,
        // about the difference printed, stay far below the errors e(h) measured).
        let fine = case.dt_per_stage / 64.0;
        let reference = |m: Method| {
            let h = fine * f64::from(m.implicit_stages());
            run(&d, m, 0.0, h, &times).unwrap_or_else(|e| panic!("reference {} failed: {e}", m.paper_name()))
        };
        let ref_a = reference(Method::Esdirk436L2Sa2);
        let ref_b = reference(Method::Esdirk325L2Sa);
        println!(
            "\n{}: t in [0, {}] s, dt/n = {:e} s, Newton tolerance {:e}; references at dt/n = {:e} s differ by {:.1e} m",
            d.name,
            case.t_end,
            case.dt_per_stage,
            d.solver.tolerance,
            fine,
            distance(&ref_a.bodies, &ref_b.bodies)
        );
        println!(
            "| {:<20} | {:>4} | {:>2} | {:>8} | {:>8} | {:>5} | {:>8} | {:>11} | {:>10} | {:>8} |",
            "method", "rho", "n", "h [s]", "e(h) [m]", "order", "it/stage", "max|dE| [J]", "dE end [J]", "CPU [ms]"
        );
        println!(
            "|{:-<22}|{:-<6}|{:-<4}|{:-<10}|{:-<10}|{:-<7}|{:-<10}|{:-<13}|{:-<12}|{:-<10}|",
            "", "", "", "", "", "", "", "", "", ""
        );
        for (m, rho) in runs() {
            let n = m.implicit_stages();
            let h = case.dt_per_stage * f64::from(n);
            let reference = if m == Method::Esdirk436L2Sa2 { &ref_b } else { &ref_a };
            let rho_text = if m.uses_rho_inf() { format!("{rho:.1}") } else { "-".into() };
            match (run(&d, m, rho, h, &times), run(&d, m, rho, h / 2.0, &times)) {
                (Ok(a), Ok(b)) => {
                    let (e1, e2) = (distance(&a.bodies, &reference.bodies), distance(&b.bodies, &reference.bodies));
                    // Near 1e-10 m the Newton tolerance and round-off dominate the difference.
                    let order = if e2 > 1e-10 && e1 > e2 { format!("{:.2}", (e1 / e2).log2()) } else { "floor".into() };
                    println!(
                        "| {:<20} | {:>4} | {:>2} | {:>8.1e} | {:>8.2e} | {:>5} | {:>8.2} | {:>11.2e} | {:>10.2e} | {:>8.1} |",
                        m.paper_name(),
                        rho_text,
                        n,
                        h,
                        e1,
                        order,
                        a.iterations_per_stage,
                        a.max_de,
                        a.final_de,
                        a.seconds * 1e3
                    );
                }
                (a, b) => {
                    let e = a.err().or(b.err()).unwrap_or_default();
                    println!("| {:<20} | {:>4} | {:>2} | {:>8.1e} | failed: {e}", m.paper_name(), rho_text, n, h);
                }
            }
        }
    }
}
