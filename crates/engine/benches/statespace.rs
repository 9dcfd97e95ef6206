//! Precision-work diagrams of [Negrut1997, Figs. 5 and 7] as tables: the stiff double pendulum
//! (catalog models StiffDoublePendulum, Table 2, and StiffDoublePendulumSpin, Table 3) in the
//! state-space formulation with the variable-step trapezoidal rule (IMPL_VSS), the
//! constant-step one (IMPL_CSS), the explicit Adams-Bashforth-Moulton scheme of eq. 20 (EXPL)
//! and the embedded SDIRK4 that \[Negrut1997\] names for higher accuracy.
//!
//!     cargo bench --bench statespace              # both figures
//!     cargo bench --bench statespace -- fig5      # one of them
//!
//! The "exact" solution is independent of the engine: Lagrange's equations of the pendulum in
//! its two link angles integrated with classical RK4 at 1e-6 s (tests/statespace/mod.rs), as
//! \[Negrut1997\] builds its reference (Sect. 4: RK4 at a tiny step).
//! - Fig. 5 ([Negrut1997, Sect. 4], Table 2, 0.1 s): largest error over the interval (sampled every
//!   0.01 s, where variable-step runs land exactly) of the orientation theta_2 and the angular
//!   velocity omega_2 of the second link; \[Negrut1997\] plots the velocity error.
//! - Fig. 7 (Table 3, 3.6 s): largest error over the generalized positions (and, separately,
//!   velocities) at the end of the interval.
//!
//! Variable-step runs use Atol = Rtol = tol with the velocity tolerance one order looser (the
//! setting of [Negrut1997, Sect. 3], solver.velocityToleranceFactor = 10) and a largest step of 0.01 s. CPU is
//! the best wall time of repeated runs on one core (model build excluded) divided by the
//! simulated time: \[Negrut1997\]'s real-time ratio. "failed" marks a run that stopped (a step
//! failed, e.g. Newton did not converge; steps = those before), "unstable" one whose velocity
//! error exceeds 1 rad/s.

#[path = "../tests/statespace/mod.rs"]
mod statespace;

use mbfmu_engine::statespace::StateSpaceFormulation;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{Description, Method};
use statespace::{angles, description, table2, table3, PENDULUM};
use std::time::Instant;

/// One run: errors (position, velocity) by the figure's measure, steps, real-time ratio.
struct Outcome {
    /// Err: "failed" (a step failed, e.g. Newton did not converge) or "unstable" (diverged).
    errors: Result<(f64, f64), &'static str>,
    steps: u64,
    rejected: u64,
    ratio: f64,
}

/// A figure: catalog model (Table 2 or 3 initial state), interval, and whether the error is the largest over
/// the samples (Fig. 5) or the one at the end (Fig. 7).
struct Figure {
    title: &'static str,
    model: &'static str,
    stop: f64,
    over_interval: bool,
    constant_steps: &'static [f64],
    explicit_steps: &'static [f64],
}

const FIGURES: &[Figure] = &[
    Figure {
        title: "fig5",
        model: "StiffDoublePendulum",
        stop: 0.1,
        over_interval: true,
        constant_steps: &[1e-2, 5e-3, 2.5e-3, 1e-3, 8e-4, 6e-4, 5e-4, 4e-4, 3e-4, 2.5e-4, 2e-4, 1e-4, 5e-5, 2.5e-5],
        explicit_steps: &[1.3e-4, 1.1e-4, 1e-4, 5e-5, 2.5e-5, 1.25e-5],
    },
    Figure {
        title: "fig7",
        model: "StiffDoublePendulumSpin",
        stop: 3.6,
        over_interval: false,
        constant_steps: &[1e-2, 5e-3, 2.4e-3, 1.2e-3, 9e-4, 6e-4, 3e-4, 2e-4, 1e-4, 5e-5, 2.5e-5],
        explicit_steps: &[1.2e-4, 1e-4, 5e-5, 3e-5, 2e-5, 1e-5],
    },
];

const SAMPLE: f64 = 0.01;
const VSS_TOLERANCES: &[f64] = &[1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7];
const SDIRK_TOLERANCES: &[f64] = &[1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9];

fn measure(fig: &Figure, d: &Description, reference: &[[f64; 4]]) -> Outcome {
    let n = (fig.stop / SAMPLE).round() as usize;
    let (mut best, mut runs, mut total) = (f64::INFINITY, 0, 0.0);
    loop {
        let mut sim = Simulation::new(d).expect("the model builds");
        let mut samples = vec![angles(&sim)];
        let start = Instant::now();
        let mut failed = false;
        for k in 1..=n {
            if sim.advance_to(k as f64 * SAMPLE).is_err() {
                failed = true;
                break;
            }
            samples.push(angles(&sim));
        }
        let wall = start.elapsed().as_secs_f64();
        best = best.min(wall);
        total += wall;
        runs += 1;
        if total > 0.5 || runs == 5 || failed {
            let c = sim
                .formulation::<StateSpaceFormulation>()
                .map(StateSpaceFormulation::solver)
                .expect("state-space formulation")
                .counters;
            let errors = if failed {
                Err("failed")
            } else {
                Some(error(fig, &samples, reference)).filter(|e| e.1 <= 1.0).ok_or("unstable")
            };
            return Outcome { errors, steps: c.steps, rejected: c.rejected, ratio: best / fig.stop };
        }
    }
}

/// The figure's error measure: (position, velocity).
fn error(fig: &Figure, samples: &[[f64; 4]], reference: &[[f64; 4]]) -> (f64, f64) {
    let diff = |a: &[f64; 4], b: &[f64; 4], c: usize| (a[c] - b[c]).abs();
    if fig.over_interval {
        samples.iter().zip(reference).fold((0.0, 0.0), |(p, v), (a, b)| (p.max(diff(a, b, 1)), v.max(diff(a, b, 3))))
    } else {
        let (a, b) = (samples.last().unwrap(), reference.last().unwrap());
        (diff(a, b, 0).max(diff(a, b, 1)), diff(a, b, 2).max(diff(a, b, 3)))
    }
}

fn row(method: &str, setting: &str, o: &Outcome) {
    match o.errors {
        Ok((p, v)) => {
            println!("| {method} | {setting} | {p:.2e} | {v:.2e} | {} | {} | {:.3} |", o.steps, o.rejected, o.ratio)
        }
        Err(why) => {
            println!("| {method} | {setting} | {why} | {why} | {} | {} | {:.3} |", o.steps, o.rejected, o.ratio)
        }
    }
}

/// The error \[Negrut1997\] plots: velocity in Fig. 5, positions in Fig. 7.
fn plotted(fig: &Figure, o: &Outcome) -> Option<f64> {
    o.errors.ok().map(|(p, v)| if fig.over_interval { v } else { p })
}

/// Fig. 5's comparison at equal error: for each variable-step run, the cheapest constant-step
/// run that is at least as accurate in the plotted error.
fn speed_ups(fig: &Figure, vss: &[(String, Outcome)], css: &[(String, Outcome)]) {
    println!("\nEqual error, IMPL_CSS against IMPL_VSS (the cheapest constant step at least as accurate):\n");
    println!("| IMPL_VSS | error | IMPL_CSS | error | steps CSS / VSS | CPU CSS / VSS |");
    println!("|---|---|---|---|---|---|");
    for (setting, v) in vss {
        let Some(e) = plotted(fig, v) else { continue };
        let cheapest = css
            .iter()
            .filter(|(_, c)| plotted(fig, c).is_some_and(|x| x <= e))
            .min_by(|a, b| a.1.ratio.total_cmp(&b.1.ratio));
        match cheapest {
            Some((h, c)) => println!(
                "| {setting} | {e:.2e} | {h} | {:.2e} | {:.1} | {:.1} |",
                plotted(fig, c).unwrap(),
                c.steps as f64 / v.steps as f64,
                c.ratio / v.ratio
            ),
            None => println!("| {setting} | {e:.2e} | none as accurate | | | |"),
        }
    }
}

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    for fig in FIGURES {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == fig.title) {
            continue;
        }
        let y0 = if fig.over_interval { table2() } else { table3() };
        let h = 1e-6;
        let every = (SAMPLE / h).round() as usize;
        let reference = PENDULUM.rk4(y0, h, (fig.stop / h).round() as usize, every);
        let measure_of = if fig.over_interval {
            "largest error over the interval of theta_2 [rad] and omega_2 [rad/s]"
        } else {
            "largest error at the end over the generalized positions [rad] and velocities [rad/s]"
        };
        println!("\n## Negrut et al. {}: {} ({} s); {measure_of}\n", fig.title, fig.model, fig.stop);
        println!("| method | setting | position error | velocity error | steps | rejected | CPU / simulated time |");
        println!("|---|---|---|---|---|---|---|");
        let variable = |method: Method, tol: f64| {
            let mut d = description(fig.model, method, 0.01);
            d.solver.absolute_tolerance = Some(tol);
            d.solver.relative_tolerance = Some(tol);
            (format!("tol {tol:.0e}"), measure(fig, &d, &reference))
        };
        let constant = |method: Method, h: f64| {
            (format!("h {h:.2e}"), measure(fig, &description(fig.model, method, h), &reference))
        };
        let vss: Vec<_> = VSS_TOLERANCES.iter().map(|&t| variable(Method::TrapezoidalVariableStep, t)).collect();
        vss.iter().for_each(|(s, o)| row("IMPL_VSS", s, o));
        let css: Vec<_> = fig.constant_steps.iter().map(|&h| constant(Method::TrapezoidalConstantStep, h)).collect();
        css.iter().for_each(|(s, o)| row("IMPL_CSS", s, o));
        for &h in fig.explicit_steps {
            let (s, o) = constant(Method::Abm2, h);
            row("EXPL", &s, &o);
        }
        for &tol in SDIRK_TOLERANCES {
            let (s, o) = variable(Method::Sdirk4, tol);
            row("SDIRK4", &s, &o);
        }
        speed_ups(fig, &vss, &css);
    }
}
