//! A compiled output plan (`mbfmu_engine::output_plan`, what an FMU evaluates once per step)
//! gives the same bits as evaluating its quantities one list entry at a time
//! (`Simulation::quantities`), on every catalog model with every output of its interface at
//! its value reference, over the first steps of the default experiment; and again with the
//! outputs reversed and every reaction component asked for, so that the plan's operations
//! (x, y, z copies, one reaction evaluation per joint with and without its torque, the
//! energies together) meet other orders and other mixes.

use mbfmu_engine::output_plan::OutputPlan;
use mbfmu_engine::Simulation;
use mbfmu_model::catalog::CATALOG;
use mbfmu_model::variables::{interface_of, Binding, Quantity};

/// Equal bits, or both NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Compares the plan of `outputs` (value reference, quantity) with the list evaluation at the
/// simulation's current state; returns the number of values compared.
fn compare(name: &str, sim: &Simulation, outputs: &[(usize, Quantity)], len: usize) -> usize {
    let plan = OutputPlan::new(outputs);
    let mut planned = vec![f64::NAN; len];
    sim.planned_quantities(&plan, &mut planned);
    let quantities: Vec<Quantity> = outputs.iter().map(|o| o.1).collect();
    let mut listed = vec![0.0; quantities.len()];
    sim.quantities(&quantities, &mut listed);
    for (&(at, q), &x) in outputs.iter().zip(&listed) {
        assert!(same(planned[at], x), "{name} at t = {}: {q:?} planned {:e}, listed {x:e}", sim.time(), planned[at]);
    }
    outputs.len()
}

#[test]
fn planned_outputs_equal_the_listed_ones_bit_for_bit() {
    let mut compared = 0;
    for entry in CATALOG {
        let d = mbfmu_model::format::parse(entry.json).unwrap();
        let iface = interface_of(&d).unwrap();
        let outputs: Vec<(usize, Quantity)> = (iface.variables.iter().enumerate())
            .filter_map(|(vr, v)| match v.binding {
                Binding::Output(q) => Some((vr, q)),
                _ => None,
            })
            .collect();
        // Reversed (no x, y, z in a row), with both reactions of every joint, at positions
        // after the interface's.
        let n = iface.variables.len();
        let joints = d.joints.len();
        let mut mixed: Vec<(usize, Quantity)> = outputs.iter().rev().copied().collect();
        for joint in 0..joints {
            for axis in [2, 0, 1] {
                mixed.push((n + mixed.len(), Quantity::JointReactionTorque { joint, axis }));
                mixed.push((n + mixed.len(), Quantity::JointReactionForce { joint, axis }));
            }
        }
        let len = n + mixed.len();
        let Ok(mut sim) = Simulation::new(&d) else { continue };
        let h = d.experiment.step;
        for step in 0..=20 {
            if step > 0 {
                sim.advance_to(d.experiment.start + step as f64 * h).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
            }
            compared += compare(entry.name, &sim, &outputs, n);
            if sim.mechanism().is_some() {
                compared += compare(entry.name, &sim, &mixed, len);
            }
        }
    }
    assert!(compared > 10_000, "{compared} values compared");
}
