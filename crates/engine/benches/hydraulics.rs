//! \[Jaiswal2021\] benchmark: the 10 s work cycles of the hydraulically actuated
//! four-bar and quick-return mechanisms at dt = 1 ms in both semirecursive formulations, with
//! Newton iterations per step and wall time. Run with `cargo bench --bench hydraulics`
//! (`-- --quick` for one run per row instead of the best of five).
//!
//! Per-step cost of the four rows at the catalog models' default solver settings (closed-form
//! tangent), one engine step per 1 ms advance as an FMU host at 1 ms communication steps drives
//! it:
//! - `-- --instructions` runs itself under callgrind once per row and prints the instructions
//!   per step inside the engine's advance (start-up excluded) against the target;
//! - `-- --profile <model> <doubleStep|penalty> [seconds] [numerical]` is one such run (for
//!   `valgrind --tool=callgrind`), printing the final coordinates and pressures bit for bit
//!   (`numerical`: with the forward-difference tangent instead);
//! - `-- --trace <model> <doubleStep|penalty>` prints t, z, z', p every 10 ms bit for bit, to
//!   compare two builds' trajectories.

use mbfmu_engine::semirecursive::Semirecursive;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description, Formulation, Tangent};
use std::time::Instant;

/// Engine-level aim per 1 ms step (the project's aim: <= 15k instructions and <= 15 ms per 10 s cycle
/// through the FMI layer, which adds its own overhead).
const TARGET_INSTRUCTIONS: f64 = 13_000.0;
const TARGET_WALL_MS: f64 = 13.0;
const MODELS: [&str; 2] = ["HydraulicFourBar", "HydraulicQuickReturn"];
const FORMULATIONS: [Formulation; 2] = [Formulation::SemirecursiveDoubleStep, Formulation::SemirecursivePenalty];

struct Row {
    wall: f64,
    average: f64,
    max: u32,
    steps: u64,
}

fn catalog(model: &str, formulation: Formulation) -> Description {
    let mut d = format::parse(mbfmu_model::catalog::find(model).expect("catalog model").json).expect("valid");
    d.solver.formulation = formulation;
    d
}

/// Best of `repeat` runs over the default experiment, advancing by `h` (only stepping is timed).
fn run(d: &Description, h: f64, repeat: usize) -> Row {
    let mut best = Row { wall: f64::INFINITY, average: 0.0, max: 0, steps: 0 };
    for _ in 0..repeat {
        let mut sim = Simulation::new(d).expect("catalog models build");
        let (t0, t1) = (d.experiment.start, d.experiment.stop);
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

fn formulation_arg(s: Option<&String>) -> Formulation {
    match s.map(String::as_str) {
        Some("penalty") => Formulation::SemirecursivePenalty,
        _ => Formulation::SemirecursiveDoubleStep,
    }
}

fn bits(x: &[f64]) -> String {
    x.iter().map(|v| format!("{:016x}", v.to_bits())).collect::<Vec<_>>().join(" ")
}

/// `--profile`: one run at 1 ms advances from the start to `stop`.
fn profile(model: &str, formulation: Formulation, stop: f64, tangent: Tangent) {
    let mut d = catalog(model, formulation);
    d.solver.tangent = tangent;
    let mut sim = Simulation::new(&d).expect("catalog models build");
    let n = ((stop - d.experiment.start) / 1e-3).round() as usize;
    for k in 1..=n {
        sim.advance_to(d.experiment.start + k as f64 * 1e-3).expect("the work cycle runs");
    }
    println!(
        "{model} {}: {} steps, {} Newton iterations",
        formulation.item_name(),
        sim.steps(),
        sim.total_iterations()
    );
    let s = sim.formulation::<Semirecursive>().expect("semirecursive");
    println!("final z, p: {} {}", bits(&s.state.z), bits(&s.state.p));
}

/// `--trace`: t, z, z', p every 10 ms of the default cycle at 1 ms advances.
fn trace(model: &str, formulation: Formulation) {
    let d = catalog(model, formulation);
    let mut sim = Simulation::new(&d).expect("catalog models build");
    let n = ((d.experiment.stop - d.experiment.start) / 1e-3).round() as usize;
    for k in 1..=n {
        sim.advance_to(d.experiment.start + k as f64 * 1e-3).expect("the work cycle runs");
        if k % 10 == 0 {
            let s = sim.formulation::<Semirecursive>().expect("semirecursive");
            println!("{} {} {} {}", bits(&[s.state.t]), bits(&s.state.z), bits(&s.state.zd), bits(&s.state.p));
        }
    }
}

/// `--instructions`: callgrind over each row's 10 s cycle, counting only inside the engine's
/// advance (`Formulation::advance_to`), so the start-up is left out.
fn instructions() {
    let exe = std::env::current_exe().expect("own path");
    println!("## Instructions per 1 ms step (callgrind, engine advance only, 10 s cycle)\n");
    println!("| mechanism | formulation | steps | instructions per step | / target {TARGET_INSTRUCTIONS:.0} |");
    println!("|---|---|---|---|---|");
    for model in MODELS {
        for formulation in FORMULATIONS {
            let out = std::env::temp_dir().join(format!("mbfmu-hydraulics-{}.callgrind", std::process::id()));
            let result = std::process::Command::new("valgrind")
                .args(["--tool=callgrind", "--dump-instr=no", "--toggle-collect=*Formulation::advance_to*"])
                .arg(format!("--callgrind-out-file={}", out.display()))
                .arg(&exe)
                .args(["--profile", model, formulation.item_name(), "10"])
                .output();
            let collected = match &result {
                Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .find_map(|l| l.split("Collected :").nth(1).and_then(|v| v.trim().parse::<f64>().ok())),
                _ => None,
            };
            let _ = std::fs::remove_file(&out);
            let Some(collected) = collected else {
                println!("| {model} | {} | - | valgrind not available or failed | - |", formulation.item_name());
                continue;
            };
            let steps = 10_000.0;
            let per_step = collected / steps;
            println!(
                "| {model} | {} | {steps:.0} | {per_step:.0} | {:.2} |",
                formulation.item_name(),
                per_step / TARGET_INSTRUCTIONS
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |k: usize| args.get(k);
    if let Some(i) = args.iter().position(|a| a == "--profile") {
        let stop = arg(i + 3).and_then(|s| s.parse().ok()).unwrap_or(10.0);
        let tangent = if arg(i + 4).is_some_and(|s| s == "numerical") { Tangent::Numerical } else { Tangent::Analytic };
        return profile(arg(i + 1).map_or(MODELS[0], |s| s.as_str()), formulation_arg(arg(i + 2)), stop, tangent);
    }
    if let Some(i) = args.iter().position(|a| a == "--trace") {
        return trace(arg(i + 1).map_or(MODELS[0], |s| s.as_str()), formulation_arg(arg(i + 2)));
    }
    if args.iter().any(|a| a == "--instructions") {
        return instructions();
    }
    let quick = args.iter().any(|a| a == "--quick");
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
    for model in MODELS {
        for formulation in FORMULATIONS {
            for tangent in [Tangent::Analytic, Tangent::Numerical] {
                let mut d = catalog(model, formulation);
                d.solver.tangent = tangent;
                d.solver.step_size = 1e-3;
                let r = run(&d, d.experiment.step, repeat);
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
    println!("\n## Catalog defaults at 1 ms advances (an FMU host's 1 ms communication steps)\n");
    println!("| mechanism | formulation | steps | avg iterations | wall [ms] | / target {TARGET_WALL_MS:.0} ms |");
    println!("|---|---|---|---|---|---|");
    for model in MODELS {
        for formulation in FORMULATIONS {
            let r = run(&catalog(model, formulation), 1e-3, repeat);
            println!(
                "| {model} | {} | {} | {:.2} | {:.1} | {:.2} |",
                formulation.item_name(),
                r.steps,
                r.average,
                1e3 * r.wall,
                1e3 * r.wall / TARGET_WALL_MS
            );
        }
    }
}
