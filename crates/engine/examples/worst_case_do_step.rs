//! The worst-case doStep of every catalog model: one advance of 1e6 s from the start of its
//! default experiment with the default budget (`solver.maxStepsPerCall`,
//! `solver.maxWorkPerCall`), as a doStep of a host's typo takes it. Prints the wall time
//! against the 60 s bound, the limit that stopped it, the internal steps and work units spent
//! and the model's rate in nanoseconds per work unit (the calibration of
//! `mbfmu_engine::formulation::matrix_evaluation_work` and its peers).
//!
//! `cargo run --release -p mbfmu-engine --example worst_case_do_step [-- NAME_PART]`

use mbfmu_engine::{Budget, Simulation};
use mbfmu_model::format;
use mbfmu_model::variables::{DEFAULT_MAX_STEPS_PER_CALL, DEFAULT_MAX_WORK_PER_CALL};
use std::time::Instant;

/// The bound every catalog model's worst-case doStep stays under [s].
const BOUND: f64 = 60.0;

fn main() {
    let only = std::env::args().nth(1);
    let budget = Budget { steps: DEFAULT_MAX_STEPS_PER_CALL as u64, work: DEFAULT_MAX_WORK_PER_CALL as u64 };
    println!(
        "One doStep of 1e6 s with the default budget: {} internal steps, {:e} work units\n",
        budget.steps, budget.work as f64
    );
    println!("| model | method | stopped by | internal steps | work units | per evaluation | reached [s] | wall [s] | wall / 60 s | ns per work unit |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut worst: (f64, &str) = (0.0, "");
    for e in mbfmu_model::catalog::CATALOG {
        if only.as_ref().is_some_and(|o| !e.name.contains(o.as_str())) {
            continue;
        }
        let d = format::parse(e.json).expect("catalog models parse");
        let mut sim = Simulation::new(&d).expect("catalog models build");
        let t0 = sim.time();
        let mut meter = sim.meter(budget);
        let began = Instant::now();
        let result = sim.advance_metered(t0 + 1e6, &mut meter);
        let wall = began.elapsed().as_secs_f64();
        let stopped = match (result, meter.exhausted()) {
            (Ok(_), Some(limit)) => format!("{limit:?}"),
            (Ok(p), None) => format!("{p:?}"),
            (Err(e), _) => format!("error: {e}"),
        };
        println!(
            "| {} | {} | {} | {} | {:.3e} | {} | {:.4} | {:.2} | {:.3} | {:.2} |",
            e.name,
            d.solver.method.item_name(),
            stopped,
            meter.steps(),
            meter.work() as f64,
            meter.weight(),
            sim.time() - t0,
            wall,
            wall / BOUND,
            wall / meter.work().max(1) as f64 * 1e9
        );
        if wall > worst.0 {
            worst = (wall, e.name);
        }
    }
    println!("\nworst: {} at {:.2} s ({:.0} % of {BOUND} s)", worst.1, worst.0, worst.0 / BOUND * 100.0);
}
