use mbfmu::description::{self, Method};
use mbfmu::engine::{Simulation, SolverSettings};
fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "dp".into());
    let d = if which == "dp" {
        description::parse(mbfmu::models::find("DoublePendulum").unwrap().json).unwrap()
    } else {
        mbfmu::models::chain::n_link_chain(32, 1)
    };
    let mut s = SolverSettings::from_description(&d);
    s.method = Method::HalfImplicit;
    let mut sim = Simulation::new(&d, s).unwrap();
    sim.advance_to(if which == "dp" { 2.0 } else { 0.5 }).unwrap();
    println!("{}", sim.steps);
}
