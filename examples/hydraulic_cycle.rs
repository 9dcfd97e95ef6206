//! One seed-004 work cycle of a hydraulic catalog model at dt = 1 ms, for profiling
//! (`valgrind --tool=callgrind target/release/examples/hydraulic_cycle HydraulicFourBar 2`).
//! Arguments: model name, simulated seconds (default 10).

use mbfmu::description;
use mbfmu::engine::{Simulation, SolverSettings};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("HydraulicFourBar", String::as_str);
    let stop: f64 = args.get(2).map_or(Ok(10.0), |s| s.parse())?;
    let model = mbfmu::models::find(name).ok_or_else(|| format!("no catalog model {name}"))?;
    let d = description::parse(model.json)?;
    let mut settings = SolverSettings::from_description(&d);
    settings.step_size = 1e-3;
    let mut sim = Simulation::new(&d, settings)?;
    let n = (stop / 1e-3).round() as usize;
    for k in 1..=n {
        sim.advance_to(k as f64 * 1e-3)?;
    }
    println!("{name}: {} steps, {} Newton iterations", sim.steps, sim.total_iterations);
    Ok(())
}
