//! One work cycle of [Jaiswal2021, Sect. 5] of a hydraulic catalog model at dt = 1 ms, for profiling
//! (`valgrind --tool=callgrind target/release/examples/hydraulic_cycle HydraulicFourBar 2`).
//! Arguments: model name, simulated seconds (default 10), formulation (`doubleStep` or
//! `penalty`, default the model's), a factor on both Newton tolerances (default 1; e.g. 1e-3
//! for a reference run). Prints the final coordinates and pressures bit for bit,
//! so that a change meant to leave the arithmetic alone can be checked.

use mbfmu_engine::semirecursive::Semirecursive;
use mbfmu_engine::Simulation;
use mbfmu_model::format;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("HydraulicFourBar", String::as_str);
    let stop: f64 = args.get(2).map_or(Ok(10.0), |s| s.parse())?;
    let model = mbfmu_model::catalog::find(name).ok_or_else(|| format!("no catalog model {name}"))?;
    let mut d = format::parse(model.json)?;
    match args.get(3).map(String::as_str) {
        None => {}
        Some("doubleStep") => d.solver.formulation = format::Formulation::SemirecursiveDoubleStep,
        Some("penalty") => d.solver.formulation = format::Formulation::SemirecursivePenalty,
        Some(other) => return Err(format!("unknown formulation {other}").into()),
    }
    d.solver.step_size = 1e-3;
    if let Some(factor) = args.get(4) {
        let factor: f64 = factor.parse()?;
        d.solver.tolerance *= factor;
        d.solver.pressure_tolerance *= factor;
    }
    let mut sim = Simulation::new(&d)?;
    let n = (stop / 1e-3).round() as usize;
    for k in 1..=n {
        sim.advance_to(k as f64 * 1e-3)?;
    }
    println!("{name}: {} steps, {} Newton iterations", sim.steps(), sim.total_iterations());
    if let Some(s) = sim.formulation::<Semirecursive>() {
        println!("Newton tangents formed: {}", s.tangents);
        let bits: Vec<String> = s.state.z.iter().chain(&s.state.p).map(|x| format!("{:016x}", x.to_bits())).collect();
        println!("final z, p: {}", bits.join(" "));
    }
    Ok(())
}
