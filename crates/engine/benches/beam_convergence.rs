//! Convergence study of [Zhang2022, Sect. 5.4, Figs. 25-27] on the catalog's RotatingShaft:
//! relative errors ([Zhang2022, eq. 26]) of the mid-span displacement u3, velocity v3 and
//! acceleration a3 against a reference, at equal dt/n for every method, and the fitted
//! slopes (least squares of log RE against log dt/n).
//!
//!     cargo bench -p mbfmu-engine --bench beam_convergence                # 3 step sizes, ~3 min
//!     cargo bench -p mbfmu-engine --bench beam_convergence -- --levels 4  # and 1/7680 s, ~5 min
//!     cargo bench -p mbfmu-engine --bench beam_convergence -- --window 0.5 lms2 mssth3
//!     cargo bench -p mbfmu-engine --bench beam_convergence -- --node 8    # at x = 1.5 m
//!     cargo bench -p mbfmu-engine --bench beam_convergence -- --csv shaft.csv  # for the plot
//!     cargo bench -p mbfmu-engine --bench beam_convergence -- --constraint-form ggl  # bearings in the stabilized form
//!     cargo bench -p mbfmu-engine --bench beam_convergence -- --soften 100  # EA, GA / 100: no stiff axial and shear modes
//!
//! The plot of docs/images/RotatingShaft-convergence.png is
//! `python python/examples/beam_convergence_plot.py shaft.csv docs/images/RotatingShaft-convergence.png`.
//!
//! Set-up (tests/shaft/mod.rs): the catalog model as it is (static start under gravity, the
//! spin-up of [Zhang2022, Sect. 5.4], 0 -> 48 -> 72 rad/s through the first critical speed), Newton tolerance
//! 1e-12 m (1e-10 changes the errors by RE 3e-12); the whole interval [0, 2.5] s; dt/n =
//! 1/960, 1/1920, 1/3840 (, 1/7680) s, so that every step lands on the drive law's
//! breakpoints and on every sampling instant; errors over every step of each method's
//! coarsest run. The disk is a body attached to the mid-span node (`attached_to`, as
//! \[Zhang2022\]'s MBDyn model has it), not held by a joint. References: u3, v3 and a3 from
//! ESDIRK4(3)6L[2]SA2 (\[Zhang2022\]'s reference method) at a dt/n ten times below the
//! smallest one measured. Each reference is printed against itself at twice its dt/n (an
//! upper estimate of its own error). Columns: the errors at
//! each dt/n, the fitted slopes, Newton iterations per stage at the largest dt/n, and the
//! wall time of the method's runs at all step sizes (one core).
//!
//! The half-implicit method is left out: explicit in the forces, it is unstable with the
//! beam's axial and shear modes (the run fails within 2 ms at dt = 6.5e-5 s; at 3.3e-5 s it
//! runs, checked over 0.1 s), far below the steps studied here.
//!
//! What it shows (docs/formulations.md, "Convergence orders"): every second-order method
//! (LMS2-4, SS2-4, Bathe, MSSTC(3)-(5)) converges at order 2 in u3, v3 and a3; MSSTH(3) and
//! ESDIRK3(2)4L[2]SA at order 3 in u3 and v3 and about 2.8 in a3; ESDIRK3(2)5L[2]SA,
//! ESDIRK4(3)6L[2]SA2 and MSSTH(4) at 3 to 4 in u3 and v3 with a3 lower (an O(dt^2) term
//! from the stiff axial and shear modes appears at the smallest steps; `--soften 100` removes
//! it); MSSTH(5) at 2. The assertions and the measured causes are
//! in tests/beam_convergence.rs.

#[path = "../tests/shaft/mod.rs"]
mod shaft;

use mbfmu_model::format::{ConstraintForm, Keyword};
use shaft::{esdirk4, relative_error, rows, slope, Study, MID_NODE, QUANTITIES};

const OPTIONS: [&str; 7] = ["--window", "--levels", "--tolerance", "--node", "--csv", "--constraint-form", "--soften"];

fn option(args: &[String], name: &str) -> Option<f64> {
    let i = args.iter().position(|a| a == name)?;
    Some(args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{name} needs a number")))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let window = option(&args, "--window").unwrap_or(2.5);
    let levels = option(&args, "--levels").unwrap_or(3.0) as u32;
    let tolerance = option(&args, "--tolerance").unwrap_or(1e-12);
    let node = option(&args, "--node").map_or(MID_NODE, |n| n as usize);
    // --csv FILE: the errors as rows method,rho_inf,dt_per_stage,u3,v3,a3 (for
    // python/examples/beam_convergence_plot.py).
    let csv_path = args.iter().position(|a| a == "--csv").map(|i| args.get(i + 1).expect("--csv needs a file").clone());
    let mut csv = String::from("method,rho_inf,dt_per_stage,u3,v3,a3\n");
    // Method filters: the arguments that are neither options nor their values (cargo bench
    // adds --bench).
    let mut filter = Vec::new();
    let mut value = false;
    for a in &args {
        if value {
            value = false;
        } else if a.starts_with("--") {
            value = OPTIONS.contains(&a.as_str());
        } else {
            filter.push(a.to_lowercase());
        }
    }
    assert!((1..=6).contains(&levels), "--levels: 1 to 6");
    let mut study = Study::new(tolerance, node, window);
    // --constraint-form ggl: the joints (the bearings) in the stabilized index-2 form, for
    // the methods and the references alike.
    if let Some(i) = args.iter().position(|a| a == "--constraint-form") {
        let word = args.get(i + 1).expect("--constraint-form needs index3 or ggl");
        study.d.solver.constraint_form =
            <ConstraintForm as Keyword>::parse(word).unwrap_or_else(|e| panic!("--constraint-form: {e}"));
    }
    // --soften F: the shaft's axial and shear stiffness divided by F. Their modes (the
    // stiffest of the shaft, far above 1/dt) then come within the resolved range, which
    // separates the order reduction they cause from the rest of the errors.
    if let Some(f) = option(&args, "--soften") {
        let section = &mut study.d.beams[0].section;
        section.axial_stiffness /= f;
        section.shear_stiffness.iter_mut().for_each(|s| *s /= f);
        println!("axial and shear stiffness divided by {f}");
    }
    let coarsest = 1.0 / 960.0;
    let dtn: Vec<f64> = (0..levels).map(|l| coarsest / f64::from(1u32 << l)).collect();
    // Sampled at every multiple of the largest dt/n (a multiple of every reference step);
    // u3 and v3 reference at dt/n = smallest / 10, a3 reference at smallest / 8, and each
    // at twice that.
    let fine = 1u32 << (levels - 1);
    let sources = |k: u32| [esdirk4(2 * fine / k), esdirk4(2 * fine / k), esdirk4(2 * fine / k)];
    let r = study.reference(coarsest, sources(1)).expect("reference runs");
    let r2 = study.reference(coarsest, sources(2)).expect("reference runs at twice the step");
    println!(
        "\nRotatingShaft, node {node} (x = {} m): RE (Zhang2022 eq. 26) over t in [0, {window}] s, Newton tolerance {tolerance:e} m",
        6.0 * node as f64 / 32.0
    );
    let names: Vec<String> = (0..3)
        .map(|q| {
            let s = r.sources[q];
            let rho = if s.method.uses_rho_inf() { format!(" (rho_inf {})", s.rho) } else { String::new() };
            format!(
                "{} by {}{rho} at dt/n = 1/{:.0} s",
                QUANTITIES[q],
                s.method.paper_name(),
                1.0 / s.dt_per_stage(coarsest)
            )
        })
        .collect();
    println!("references: {} ({:.0} s)", names.join(", "), r.seconds);
    let own: Vec<String> =
        (0..3).map(|q| format!("{} {:.1e}", QUANTITIES[q], relative_error(&r2.trace.x[q], &r.trace.x[q], 1))).collect();
    println!("the references at twice their dt/n differ from them by RE {}", own.join(", "));
    let steps: Vec<String> = dtn.iter().map(|h| format!("1/{:.0}", 1.0 / h)).collect();
    let width = 9 * levels as usize - 1;
    println!("\nRE at dt/n = {} s; slopes fitted over all of them", steps.join(", "));
    println!(
        "| {:<18} | {:>3} | n | {:<width$} | {:<width$} | {:<width$} | slope u3 | v3   | a3   | it/stage | CPU [s] |",
        "method", "rho", "RE u3", "RE v3", "RE a3"
    );
    println!(
        "|{:-<20}|{:-<5}|---|{:-<w$}|{:-<w$}|{:-<w$}|----------|------|------|----------|---------|",
        "",
        "",
        "",
        "",
        "",
        w = width + 2
    );
    for (m, rho) in rows() {
        let names = [m.item_name().to_lowercase(), m.paper_name().to_lowercase()];
        if !filter.is_empty() && !filter.iter().any(|f| names.contains(f)) {
            continue;
        }
        let n = m.implicit_stages();
        let every = f64::from(n) * coarsest;
        let rho_text = if m.uses_rho_inf() { format!("{rho:.1}") } else { "-".into() };
        let mut errors = vec![Vec::new(); 3];
        let (mut seconds, mut iterations) = (0.0, f64::NAN);
        let mut failure = None;
        for &h in &dtn {
            match study.run(m, rho, h, every) {
                Ok(run) => {
                    for (q, e) in errors.iter_mut().enumerate() {
                        e.push(relative_error(&run.trace.x[q], &r.trace.x[q], n as usize));
                    }
                    seconds += run.seconds;
                    if iterations.is_nan() {
                        iterations = run.iterations_per_stage;
                    }
                }
                Err(e) => {
                    failure = Some(format!("dt/n = 1/{:.0}: {e}", 1.0 / h));
                    break;
                }
            }
        }
        if let Some(e) = failure {
            println!("| {:<18} | {:>3} | {n} | failed at {e} |", m.paper_name(), rho_text);
            continue;
        }
        let cells: Vec<String> =
            errors.iter().map(|e| e.iter().map(|x| format!("{x:.2e}")).collect::<Vec<_>>().join(" ")).collect();
        let slopes: Vec<f64> = errors.iter().map(|e| slope(&dtn, e)).collect();
        for (l, h) in dtn.iter().enumerate() {
            csv.push_str(&format!(
                "{},{},{h:e},{:e},{:e},{:e}\n",
                m.paper_name(),
                if m.uses_rho_inf() { format!("{rho}") } else { String::new() },
                errors[0][l],
                errors[1][l],
                errors[2][l]
            ));
        }
        println!(
            "| {:<18} | {:>3} | {n} | {:<width$} | {:<width$} | {:<width$} | {:>8.2} | {:>4.2} | {:>4.2} | {:>8.2} | {:>7.1} |",
            m.paper_name(),
            rho_text,
            cells[0],
            cells[1],
            cells[2],
            slopes[0],
            slopes[1],
            slopes[2],
            iterations,
            seconds
        );
    }
    if let Some(path) = csv_path {
        std::fs::write(&path, csv).unwrap_or_else(|e| panic!("writing {path}: {e}"));
        println!("\nerrors written to {path}");
    }
}
