//! Seed 004 benchmark (issue 5 item 6): the 10 s work cycles of the hydraulically actuated
//! four-bar and quick-return mechanisms at dt = 1 ms in both semirecursive formulations, with
//! Newton iterations per step and wall time. Run with `cargo bench --bench hydraulics`
//! (`-- --quick` for one run per row instead of the best of five).

use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Formulation, Tangent};
use std::time::Instant;

struct Row {
    wall: f64,
    average: f64,
    max: u32,
    steps: u64,
}

/// Best of `repeat` runs over the default experiment (only stepping is timed).
fn run(model: &str, formulation: Formulation, tangent: Tangent, repeat: usize) -> Row {
    let mut d = format::parse(mbfmu_model::catalog::find(model).expect("catalog model").json).expect("valid");
    d.solver.formulation = formulation;
    d.solver.tangent = tangent;
    d.solver.step_size = 1e-3;
    let mut best = Row { wall: f64::INFINITY, average: 0.0, max: 0, steps: 0 };
    for _ in 0..repeat {
        let mut sim = Simulation::new(&d).expect("catalog models build");
        let (t0, t1, h) = (d.experiment.start, d.experiment.stop, d.experiment.step);
        let n = ((t1 - t0) / h).round() as usize;
        let mut max = 0;
        let start = Instant::now();
        for k in 1..=n {
            sim.advance_to(t0 + k as f64 * h).expect("the work cycle runs");
            max = max.max(sim.last_iterations());
        }
        let wall = start.elapsed().as_secs_f64();
        if wall < best.wall {
            best = Row { wall, average: sim.total_iterations() as f64 / sim.steps() as f64, max, steps: sim.steps() };
        }
    }
    best
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let repeat = if quick { 1 } else { 5 };
    println!("## Jaiswal et al. 2021: 10 s work cycle, dt = 1 ms, trapezoidal rule (tolerances 1e-7 rad, 1e-2 Pa)\n");
    println!("| mechanism | formulation | Newton tangent | steps | avg iterations | max iterations | wall [ms] | paper (Matlab): avg / max / wall |");
    println!("|---|---|---|---|---|---|---|---|");
    let seed = |model: &str, f: Formulation| match (model, f) {
        ("HydraulicFourBar", Formulation::SemirecursiveDoubleStep) => "1.39 / 3 / 27.45 s",
        ("HydraulicFourBar", _) => "1.56 / 4 / 21.54 s",
        (_, Formulation::SemirecursiveDoubleStep) => "1.49 / 3 / 29.03 s",
        _ => "1.57 / 6 / 28.47 s",
    };
    for model in ["HydraulicFourBar", "HydraulicQuickReturn"] {
        if mbfmu_model::catalog::find(model).is_none() {
            continue;
        }
        for formulation in [Formulation::SemirecursiveDoubleStep, Formulation::SemirecursivePenalty] {
            for tangent in [Tangent::Analytic, Tangent::Numerical] {
                let r = run(model, formulation, tangent, repeat);
                println!(
                    "| {model} | {} | {} | {} | {:.2} | {} | {:.1} | {} |",
                    formulation.item_name(),
                    match tangent {
                        Tangent::Analytic => "closed form",
                        Tangent::Numerical => "forward differences (eqs. 40-41)",
                    },
                    r.steps,
                    r.average,
                    r.max,
                    1e3 * r.wall,
                    seed(model, formulation)
                );
            }
        }
    }
}
