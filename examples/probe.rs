use mbfmu::description::{self, Formulation, Tangent};
use mbfmu::engine::{Simulation, SolverSettings};
use mbfmu::interface::{interface_of, Binding};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("HydraulicFourBar", |s| s.as_str());
    let form = args.get(2).map_or("ds", |s| s.as_str());
    let tangent = args.get(3).map_or("a", |s| s.as_str());
    let mut d = description::parse(mbfmu::models::find(name).unwrap().json).unwrap();
    d.solver.formulation =
        if form == "pb" { Formulation::SemirecursivePenalty } else { Formulation::SemirecursiveDoubleStep };
    d.solver.tangent = if tangent == "n" { Tangent::Numerical } else { Tangent::Analytic };
    let s = SolverSettings::from_description(&d);
    let t0 = std::time::Instant::now();
    let mut sim = Simulation::new(&d, s).unwrap_or_else(|e| panic!("{e}"));
    println!("assembly: {}", sim.assembly);
    if let Some(s) = sim.semirecursive() {
        println!(
            "independent {:?} pivot {:e} F_s0 {:?}",
            s.state.independent, s.state.pivot_reference, s.static_forces
        );
    }
    let iface = interface_of(&d).unwrap();
    let outs: Vec<_> = iface
        .outputs()
        .map(|v| {
            (
                v.name.clone(),
                match v.binding {
                    Binding::Output(q) => q,
                    _ => unreachable!(),
                },
            )
        })
        .collect();
    let mut maxit = 0;
    let mut maxw: f64 = 0.0;
    let mut maxdrift: f64 = 0.0;
    for k in 0..=1000 {
        let t = k as f64 * 0.01;
        if k > 0 {
            sim.advance_to(t).unwrap_or_else(|e| panic!("{e}"));
        }
        maxit = maxit.max(sim.last_iterations);
        let get = |n: &str| outs.iter().find(|o| o.0 == n).map_or(0.0, |o| sim.quantity(o.1));
        maxw = maxw.max(get("cylinder.work").abs());
        maxdrift = maxdrift.max(get("energy_balance").abs());
        if k % 50 == 0 {
            let line: Vec<String> = outs.iter().map(|(n, q)| format!("{n}={:.6e}", sim.quantity(*q))).collect();
            println!("t={t:.2} {}", line.join(" "));
        }
    }
    println!(
        "wall {:?} steps {} avg it {:.3} max it {maxit}; max |work| {maxw:.3} max drift {maxdrift:.4}",
        t0.elapsed(),
        sim.steps,
        sim.total_iterations as f64 / sim.steps as f64
    );
}
