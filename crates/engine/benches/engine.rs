//! Engine benchmark: wall time, steps, Newton iterations and time per step
//! for every catalog model and integrator, and the N-link chain scaling study of \[Fang2023\]
//! Sect. 3.3. Run with `cargo bench --bench engine` (add `-- --quick` for a short run,
//! `-- --scaling` for the scaling study alone).

use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description, Method};
use std::time::Instant;

struct Row {
    wall: f64,
    steps: u64,
    iterations: f64,
    /// Why the run stopped early, if it did (e.g. the trapezoidal rule on a stiff index-3 DAE).
    failure: Option<String>,
}

/// Best of `repeat` runs from the start to `stop` (the simulation is rebuilt each time; only
/// stepping is timed).
fn run(d: &Description, method: Method, h: f64, tol: f64, stop: f64, repeat: usize) -> Row {
    let mut best = f64::INFINITY;
    let mut row = Row { wall: 0.0, steps: 0, iterations: 0.0, failure: None };
    for _ in 0..repeat {
        let mut run = d.clone();
        run.solver.method = method;
        run.solver.step_size = h;
        run.solver.tolerance = tol;
        // A method some model's solver settings do not admit (e.g. MSSTH4 with its rho_inf)
        // is a row of the table, not the end of the benchmark.
        let mut sim = match Simulation::new(&run) {
            Ok(sim) => sim,
            Err(e) => {
                return Row { wall: 0.0, steps: 0, iterations: 0.0, failure: Some(format!("does not build: {e}")) }
            }
        };
        let start = Instant::now();
        let failure = sim.advance_to(stop).err().map(|e| format!("stopped at t = {:.4} s: {e}", sim.time()));
        let wall = start.elapsed().as_secs_f64();
        if wall < best || failure.is_some() {
            best = wall;
            row = Row {
                wall,
                steps: sim.steps(),
                iterations: sim.total_iterations() as f64 / sim.steps().max(1) as f64,
                failure,
            };
        }
        if row.failure.is_some() {
            break;
        }
    }
    row
}

/// The speed-target rows: the catalog model with its default solver settings and the
/// half-implicit method, h = 1e-3, over `span` seconds, and the engine instructions per step
/// to aim for (the FMI layer adds its own on top).
const PROFILE_CASES: [(&str, &str, f64, f64); 2] =
    [("dp", "DoublePendulum", 8.0, 9e3), ("chain", "NLinkChain32", 3.0, 115e3)];

/// Wall-time targets of the speed-target rows [ms] (the whole doStep loop, FMI layer included).
const WALL_TARGETS: [f64; 2] = [8.0, 30.0];

/// The relative-cost rows: (model, method, span [s], bodies, aim). Implicit methods on the
/// double pendulum aim at 3x the half-implicit step; spatial mechanisms at 2x the planar
/// double pendulum's half-implicit instructions per body.
const RELATIVE_CASES: [(&str, &str, f64, f64, &str); 7] = [
    ("DoublePendulum", "bdf1", 8.0, 2.0, "3x half-implicit per step"),
    ("DoublePendulum", "lms2", 8.0, 2.0, "3x half-implicit per step"),
    ("DoublePendulum", "lms3", 8.0, 2.0, "3x half-implicit per step"),
    ("SliderCrank", "halfImplicit", 2.0, 0.0, "2x DoublePendulum per body"),
    ("FourLink", "halfImplicit", 2.0, 0.0, "2x DoublePendulum per body"),
    (SPATIAL_PENDULUM, "halfImplicit", 8.0, 2.0, "comparison"),
    ("DoublePendulum", "halfImplicit", 8.0, 2.0, "reference"),
];

/// The double pendulum stepped by the spatial kernels: its gravity tilted by 1e-4 rad towards
/// the joints' axis, so that the planar detection (gravity in the plane of motion) declines
/// it. The tilt shrinks the in-plane gravity by 5e-9 of itself and adds reactions along the
/// axes, so the motion and the Newton iterations per step are the planar run's to that size.
/// It measures what a body costs in the kernels that the spatial mechanisms run.
const SPATIAL_PENDULUM: &str = "DoublePendulumSpatialKernels";

/// Steps `sim` to `stop` in 1 ms calls, as a host calling doStep does; kept out of line so
/// callgrind can count it alone (`--toggle-collect=*profile_stepping*`).
#[inline(never)]
fn profile_stepping(sim: &mut Simulation, stop: f64) {
    let calls = (stop / 1e-3).round() as u64;
    for k in 1..=calls {
        sim.advance_to(k as f64 * 1e-3).expect("the profiled run does not fail");
    }
}

/// The simulation of a profiled row, built and assembled: `method` at h = 1e-3, with the
/// model's Newton tolerance unless `tolerance` is given.
fn profile_simulation(model: &str, method: Method, tolerance: Option<f64>) -> Simulation {
    let tilted = model == SPATIAL_PENDULUM;
    let mut d = catalog_description(model);
    d.solver.method = method;
    d.solver.step_size = 1e-3;
    if let Some(tolerance) = tolerance {
        d.solver.tolerance = tolerance;
        // The format's own check (a positive, finite tolerance), as a model file would get it.
        if let Err(e) = d.validate() {
            panic!("--tolerance {tolerance}: {e}");
        }
    }
    if tilted {
        // The joints turn about x; gravity -9.81 z tilted by 1e-4 rad towards -x.
        let (g, tilt) = (d.gravity[2], 1e-4f64);
        d.gravity[0] = g * tilt.sin();
        d.gravity[2] = g * tilt.cos();
    }
    Simulation::new(&d).expect("catalog models build")
}

/// `--profile dp|chain|MODEL [--method M] [--tolerance TOL]`: one run of a profiled row, for
/// callgrind (`valgrind --tool=callgrind --dump-instr=no target/release/deps/engine-* --profile
/// chain`). `--tolerance` replaces the model's Newton tolerance: a loose one (1e-2) stops every
/// step after its first iteration, which measures the cost of a step without its further
/// iterations (the one-iteration bound of the performance notes).
fn profile(which: &str, method: Method, tolerance: Option<f64>) {
    let (model, span) = match PROFILE_CASES.iter().find(|c| c.0 == which) {
        Some((_, model, span, _)) => (*model, *span),
        None => match RELATIVE_CASES.iter().find(|c| c.0 == which) {
            Some((model, _, span, _, _)) => (*model, *span),
            None => panic!("--profile: no case {which}"),
        },
    };
    let mut sim = profile_simulation(model, method, tolerance);
    profile_stepping(&mut sim, span);
    println!(
        "{which}: {} steps, {:.2} iterations/step, {} bodies",
        sim.steps(),
        sim.total_iterations() as f64 / sim.steps() as f64,
        bodies(model)
    );
}

/// Rigid bodies of a catalog model (the per-body normalisation of the relative rows).
fn bodies(model: &str) -> usize {
    catalog_description(model).bodies.len()
}

/// The catalog description of a profiled model (the spatial-kernels pendulum is the catalog's
/// double pendulum before its tilt).
fn catalog_description(model: &str) -> Description {
    let model = if model == SPATIAL_PENDULUM { "DoublePendulum" } else { model };
    format::parse(mbfmu_model::catalog::find(model).expect("catalog model").json).expect("valid")
}

/// Instructions per step of one profiled run under callgrind, counting only the stepping.
fn callgrind(which: &str, method: &str) -> Result<(f64, f64), String> {
    let exe = std::env::current_exe().expect("own path");
    let out = std::process::Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null", "--toggle-collect=*profile_stepping*"])
        .arg(&exe)
        .args(["--profile", which, "--method", method])
        .output()
        .map_err(|e| format!("valgrind does not run: {e}"))?;
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let collected = stderr.lines().find_map(|l| l.split("Collected :").nth(1)?.trim().parse::<f64>().ok());
    let steps = stdout.split(" steps").next().and_then(|s| s.rsplit(' ').next()?.parse::<f64>().ok());
    match (collected, steps) {
        (Some(c), Some(n)) => Ok((c / n, n)),
        _ => Err(format!("valgrind failed: {}", stderr.lines().last().unwrap_or(""))),
    }
}

/// `--instructions`: runs every profile case under callgrind (valgrind must be installed),
/// counting only the stepping, and prints instructions per step against the aim; then the
/// stepping's wall time (best of 7) against their targets; then the relative-cost rows.
fn instructions() {
    println!("| case | steps | instructions/step | aim | ratio to aim |");
    println!("|---|---|---|---|---|");
    for (which, model, span, aim) in PROFILE_CASES {
        match callgrind(which, "halfImplicit") {
            Ok((per_step, n)) => {
                println!("| {model} {span} s | {n} | {per_step:.0} | {aim:.0} | {:.2} |", per_step / aim)
            }
            Err(e) => println!("| {model} {span} s | - | {e} | {aim:.0} | - |"),
        }
    }
    println!("\n| case | wall, best of 7 [ms] | target [ms] | ratio to target |");
    println!("|---|---|---|---|");
    for ((_, model, span, _), target) in PROFILE_CASES.iter().zip(WALL_TARGETS) {
        let best = (0..7)
            .map(|_| {
                let mut sim = profile_simulation(model, Method::HalfImplicit, None);
                let start = Instant::now();
                profile_stepping(&mut sim, *span);
                start.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::INFINITY, f64::min);
        println!("| {model} {span} s | {best:.2} | {target} | {:.2} |", best / target);
    }
    relative();
}

/// The relative-cost rows: implicit steps against the half-implicit one, spatial mechanisms
/// per body against the planar double pendulum (instructions per 1 ms step, callgrind).
fn relative() {
    let reference = match callgrind("DoublePendulum", "halfImplicit") {
        Ok((per_step, _)) => per_step,
        Err(e) => return println!("\nrelative rows: {e}"),
    };
    let per_body = reference / 2.0;
    // Per body in the spatial kernels, for the spatial mechanisms' second ratio.
    let spatial = callgrind(SPATIAL_PENDULUM, "halfImplicit");
    let spatial_per_body = spatial.as_ref().ok().map(|(s, _)| s / 2.0);
    println!(
        "\n| model | method | instructions/step | bodies | per body | ratio | per body / spatial kernels' | aim |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (model, method, _, _, aim) in RELATIVE_CASES.iter().take(6) {
        let measured = if *model == SPATIAL_PENDULUM { spatial.clone() } else { callgrind(model, method) };
        match measured {
            Ok((per_step, _)) => {
                let n = bodies(model);
                let half = method.starts_with("half");
                let ratio = if half { per_step / n as f64 / per_body } else { per_step / reference };
                let spatial = match spatial_per_body {
                    Some(s) if half => format!("{:.2}", per_step / n as f64 / s),
                    _ => "-".into(),
                };
                println!(
                    "| {model} | {method} | {per_step:.0} | {n} | {:.0} | {ratio:.2} | {spatial} | {aim} |",
                    per_step / n as f64
                )
            }
            Err(e) => println!("| {model} | {method} | {e} | - | - | - | - | {aim} |"),
        }
    }
    println!("| DoublePendulum | halfImplicit | {reference:.0} | 2 | {per_body:.0} | 1.00 | - | reference |");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--profile") {
        let method = match args.iter().position(|a| a == "--method") {
            Some(m) => <Method as format::Keyword>::parse(&args[m + 1]).expect("--method names a method"),
            None => Method::HalfImplicit,
        };
        let tolerance = args.iter().position(|a| a == "--tolerance").map(|t| {
            args.get(t + 1).and_then(|v| v.parse::<f64>().ok()).expect("--tolerance takes a number, for example 1e-2")
        });
        return profile(args.get(i + 1).map_or("chain", |s| s.as_str()), method, tolerance);
    }
    if args.iter().any(|a| a == "--relative") {
        return relative();
    }
    if args.iter().any(|a| a == "--instructions") {
        return instructions();
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let repeat = if quick { 1 } else { 5 };
    if args.iter().any(|a| a == "--scaling") {
        return scaling(quick, repeat);
    }
    println!("## Catalog models (default experiment, h = solver.stepSize, tol = solver.tolerance)\n");
    println!("| model | method | h [s] | simulated [s] | wall [ms] | steps | avg iterations | time/step [us] | faster than real time |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for e in mbfmu_model::catalog::CATALOG {
        let d = format::parse(e.json).expect("catalog models are valid");
        let span = d.experiment.stop - d.experiment.start;
        // Methods the formulation refuses (the trapezoidal rule on index-3 descriptions,
        // `Method::refusal`) have no row.
        for method in d.solver.formulation.methods().iter().filter(|m| m.refusal(d.solver.formulation).is_none()) {
            let r = run(&d, *method, d.solver.step_size, d.solver.tolerance, d.experiment.stop, repeat);
            if let Some(why) = &r.failure {
                println!(
                    "| {} | {} | {:.0e} | {} | - | {} | - | - | {} |",
                    e.name,
                    method.item_name(),
                    d.solver.step_size,
                    span,
                    r.steps,
                    why.split(';').next().unwrap_or(why)
                );
                continue;
            }
            println!(
                "| {} | {} | {:.0e} | {} | {:.2} | {} | {:.2} | {:.2} | {:.0}x |",
                e.name,
                method.item_name(),
                d.solver.step_size,
                span,
                r.wall * 1e3,
                r.steps,
                r.iterations,
                r.wall / r.steps as f64 * 1e6,
                span / r.wall
            );
        }
    }
    println!("\n## Targets\n");
    let dp = format::parse(mbfmu_model::catalog::find("DoublePendulum").unwrap().json).unwrap();
    // Tolerances of the timing study of [Fang2023, Figs. 4-6] ([FangCode2022], run_num_itr.py): 1e-7 for
    // the double pendulum and the chain.
    let r = run(&dp, Method::HalfImplicit, 1e-3, 1e-7, 8.0, repeat);
    println!(
        "double pendulum, half-implicit, h = 1e-3, tol 1e-7, 8 s: {:.2} ms, {:.2} iterations/step (target 8 ms; the authors' Python 16.8 s)",
        r.wall * 1e3,
        r.iterations
    );
    let chain = mbfmu_model::catalog::chain::n_link_chain(32, mbfmu_model::catalog::chain::CATALOG_SEED);
    let r = run(&chain, Method::HalfImplicit, 1e-3, 1e-7, 3.0, repeat);
    println!(
        "N = 32 chain, half-implicit, h = 1e-3, tol 1e-7, 3 s: {:.2} ms, {:.2} iterations/step (target 30 ms; the authors' Python 39.7 s)",
        r.wall * 1e3,
        r.iterations
    );

    scaling(quick, repeat);
}

/// The N-link chain scaling study (`--scaling`: this table alone).
fn scaling(quick: bool, repeat: usize) {
    println!("\n## N-link chain scaling (Fang et al. 2023, Sect. 3.3; h = 1e-3; tol 1e-7 half-implicit, 1e-7 BDF1)\n");
    println!("| N | unknowns | half-implicit time/step [us] | per body [us] | BDF1 time/step [us] | per body [us] |");
    println!("|---|---|---|---|---|---|");
    let max_n = if quick { 256 } else { 1024 };
    let mut n = 2;
    while n <= max_n {
        let d = mbfmu_model::catalog::chain::n_link_chain(n, mbfmu_model::catalog::chain::CATALOG_SEED);
        // Simulate long enough for a stable timing but keep large N affordable.
        let stop = (0.3 * 64.0 / n as f64).clamp(0.02, 0.3);
        let hi = run(&d, Method::HalfImplicit, 1e-3, 1e-7, stop, if n <= 64 { repeat } else { 1 });
        let fi = run(&d, Method::Bdf1, 1e-3, 1e-7, stop, if n <= 64 { repeat } else { 1 });
        let per = |r: &Row| r.wall / r.steps as f64 * 1e6;
        println!(
            "| {n} | {} | {:.1} | {:.3} | {:.1} | {:.3} |",
            9 * n,
            per(&hi),
            per(&hi) / n as f64,
            per(&fi),
            per(&fi) / n as f64
        );
        n *= 2;
    }
}
