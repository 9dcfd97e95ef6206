//! A hydraulic catalog model's work cycle of [Jaiswal2021, Sect. 5] (10 s at dt = 1 ms) run side by side with
//! the same run at tolerances 1000 times tighter, printing the largest deviation of the
//! coordinates, their rates and the pressures at any step: how far the Newton shortcuts move
//! the trajectory, not only its end (`hydraulic_cycle` prints the end).
//! Arguments: model name, formulation (`doubleStep` or `penalty`); e.g.
//! `cargo run --release -p mbfmu-engine --example cycle_deviation -- HydraulicQuickReturn penalty`.

use mbfmu_engine::semirecursive::Semirecursive;
use mbfmu_engine::Simulation;
use mbfmu_model::format;

fn simulation(name: &str, formulation: &str, factor: f64) -> Result<Simulation, Box<dyn std::error::Error>> {
    let model = mbfmu_model::catalog::find(name).ok_or_else(|| format!("no catalog model {name}"))?;
    let mut d = format::parse(model.json)?;
    d.solver.formulation = match formulation {
        "doubleStep" => format::Formulation::SemirecursiveDoubleStep,
        "penalty" => format::Formulation::SemirecursivePenalty,
        other => return Err(format!("unknown formulation {other}").into()),
    };
    d.solver.step_size = 1e-3;
    d.solver.tolerance *= factor;
    d.solver.pressure_tolerance *= factor;
    Ok(Simulation::new(&d)?)
}

/// max |a_i - b_i| folded into `worst`.
fn widen(worst: &mut f64, a: &[f64], b: &[f64]) {
    *worst = a.iter().zip(b).fold(*worst, |w, (x, y)| w.max((x - y).abs()));
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("HydraulicQuickReturn", String::as_str);
    let formulation = args.get(2).map_or("penalty", String::as_str);
    let mut run = simulation(name, formulation, 1.0)?;
    let mut tight = simulation(name, formulation, 1e-3)?;
    let (mut z, mut zd, mut p) = (0.0, 0.0, 0.0);
    for k in 1..=10_000 {
        run.advance_to(k as f64 * 1e-3)?;
        tight.advance_to(k as f64 * 1e-3)?;
        let (a, b) = (run.formulation::<Semirecursive>(), tight.formulation::<Semirecursive>());
        let (a, b) = (&a.ok_or("not a semirecursive model")?.state, &b.ok_or("not a semirecursive model")?.state);
        widen(&mut z, &a.z, &b.z);
        widen(&mut zd, &a.zd, &b.zd);
        widen(&mut p, &a.p, &b.p);
    }
    println!("{name} {formulation}: largest deviation over the cycle {z:.2e} rad, {zd:.2e} rad/s, {p:.2e} Pa");
    Ok(())
}
