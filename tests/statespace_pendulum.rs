//! Seed 001 Sect. 4 on the stiff double pendulum: convergence, error control, stability.

mod statespace;

use mbfmu::description::Method;
use statespace::*;

#[test]
fn explore() {
    let p = PENDULUM;
    let dt = 1e-2;
    let reference = p.rk4(table2(), 1e-6, 100_000, 10000);
    for h in [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 1e-4, 5e-5, 2.5e-5, 1e-5, 5e-6] {
        let d = description("StiffDoublePendulum", Method::TrapezoidalConstantStep, h);
        match run(&d, dt, 0.1) {
            Ok((sim, out)) => println!(
                "css h {h:e}: pos {:.3e} vel {:.3e} steps {}",
                max_error(&out, &reference, 1),
                max_error(&out, &reference, 3),
                sim.steps
            ),
            Err(e) => println!("css h {h:e}: {e}"),
        }
    }
    for h in [2e-4, 1.5e-4, 1.2e-4, 1e-4, 5e-5] {
        let d = description("StiffDoublePendulum", Method::Abm2, h);
        match run(&d, dt, 0.1) {
            Ok((sim, out)) => println!(
                "abm h {h:e}: pos {:.3e} vel {:.3e} steps {}",
                max_error(&out, &reference, 1),
                max_error(&out, &reference, 3),
                sim.steps
            ),
            Err(e) => println!("abm h {h:e}: {e}"),
        }
    }
    for tol in [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7] {
        for m in [Method::TrapezoidalVariableStep, Method::Sdirk4] {
            let mut d = description("StiffDoublePendulum", m, 0.1);
            d.solver.absolute_tolerance = Some(tol);
            d.solver.relative_tolerance = Some(tol);
            match run(&d, dt, 0.1) {
                Ok((sim, out)) => println!(
                    "{m:?} tol {tol:e}: pos {:.3e} vel {:.3e} steps {} rej {}",
                    max_error(&out, &reference, 1),
                    max_error(&out, &reference, 3),
                    sim.steps,
                    sim.state_space().unwrap().counters.rejected
                ),
                Err(e) => println!("{m:?} tol {tol:e}: {e}"),
            }
        }
    }
}

#[test]
fn explore_sdirk() {
    let p = PENDULUM;
    let reference = p.rk4(table2(), 1e-6, 100_000, 1000);
    for m in [Method::Sdirk4, Method::TrapezoidalVariableStep] {
        let mut d = description("StiffDoublePendulum", m, 0.1);
        d.solver.absolute_tolerance = Some(1e-5);
        d.solver.relative_tolerance = Some(1e-5);
        let (_, out) = run(&d, 1e-3, 0.1).unwrap();
        for k in [1, 2, 3, 5, 10, 20, 50, 100] {
            println!(
                "{m:?} t {:.3}: dpos {:.3e} dvel {:.3e}",
                k as f64 * 1e-3,
                out[k][1] - reference[k][1],
                out[k][3] - reference[k][3]
            );
        }
    }
}
