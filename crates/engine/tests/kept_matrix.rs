//! The index-3 implicit methods keeping their iteration matrix within a communication step
//! (`solver.keep_iteration_matrix`): the same solution within the Newton tolerance, reached
//! with more iterations on fewer factorizations, and a restored state that continues exactly
//! as the run it was taken from (every communication step starts with a fresh matrix).

use mbfmu_engine::Simulation;
use mbfmu_model::catalog;
use mbfmu_model::format::Description;

/// A beam model with a hydraulic circuit whose catalog setting keeps the matrix, and a beam
/// model that keeps it over the stages of an ESDIRK method: name, communication step and the
/// span compared (the boom is at rest until its valve opens at 2 s).
const MODELS: [(&str, f64, f64); 2] = [("PatuLiftBoomFlexible", 0.02, 3.0), ("LateralBuckling", 0.002, 0.3)];

fn description(name: &str, keep: bool) -> Description {
    let mut d = mbfmu_model::format::parse(catalog::find(name).unwrap().json).unwrap();
    assert!(d.solver.keep_iteration_matrix, "{name}: the catalog keeps the matrix");
    d.solver.keep_iteration_matrix = keep;
    d
}

/// Every body's position after `steps` communication steps of `h`, and the Newton iterations.
fn run(d: &Description, h: f64, steps: usize) -> (Vec<[f64; 3]>, u64) {
    let mut sim = Simulation::new(d).unwrap();
    for k in 1..=steps {
        sim.advance_to(k as f64 * h).unwrap();
    }
    let positions = sim.state().bodies.iter().map(|b| [b.r.x, b.r.y, b.r.z]).collect();
    (positions, sim.total_iterations())
}

#[test]
fn a_kept_matrix_reaches_the_fresh_matrices_solution() {
    for (name, h, span) in MODELS {
        let steps = (span / h).round() as usize;
        let d = description(name, true);
        let (kept, kept_iterations) = run(&d, h, steps);
        let (fresh, fresh_iterations) = run(&description(name, false), h, steps);
        let size = fresh.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
        let difference =
            kept.iter().flatten().zip(fresh.iter().flatten()).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        println!("{name}: positions differ by {difference:.2e} m; iterations {kept_iterations} kept, {fresh_iterations} fresh");
        // Both stop within the Newton tolerance of the same solution; the steps add their
        // differences up (measured: 3.8e-11 m at PatuLiftBoomFlexible's 1e-8, 6.9e-6 m at
        // LateralBuckling's 1e-5).
        assert!(difference < 10.0 * d.solver.tolerance * size.max(1.0), "{name}: {difference:.3e}");
        assert!(difference > 0.0, "{name}: no step kept its matrix");
        // A kept matrix converges linearly where a fresh one nearly quadratically.
        assert!(kept_iterations > fresh_iterations, "{name}: {kept_iterations} <= {fresh_iterations}");
    }
}

#[test]
fn a_restored_state_continues_as_the_run_it_was_taken_from() {
    for (name, h, _) in MODELS {
        let d = description(name, true);
        let mut sim = Simulation::new(&d).unwrap();
        for k in 1..=10 {
            sim.advance_to(k as f64 * h).unwrap();
        }
        let snapshot = sim.snapshot();
        for k in 11..=20 {
            sim.advance_to(k as f64 * h).unwrap();
        }
        let straight = sim.snapshot();
        // Another trajectory in between: the matrix the system holds belongs to it.
        sim.restore(&snapshot).unwrap();
        sim.advance_to(10.5 * h).unwrap();
        sim.restore(&snapshot).unwrap();
        for k in 11..=20 {
            sim.advance_to(k as f64 * h).unwrap();
        }
        assert_eq!(sim.snapshot(), straight, "{name}: the restored run differs");
    }
}

/// The work budget of a doStep charges what a kept matrix saves: an iteration on a matrix
/// factored before it costs a fraction of a factoring one ([`mbfmu_engine::Meter`]), so the
/// more, cheaper iterations of a kept matrix spend fewer work units than the fresh matrices
/// (with every iteration charged a factorization they spent more), and a doStep of a
/// quarter of the four-bar's DefaultExperiment stays within the default budget.
#[test]
fn the_work_budget_charges_a_kept_matrix_by_its_factorizations() {
    use mbfmu_engine::{Budget, Progress};
    use mbfmu_model::variables::{DEFAULT_MAX_STEPS_PER_CALL, DEFAULT_MAX_WORK_PER_CALL};
    let work = |d: &Description, h: f64, steps: usize| {
        let mut sim = Simulation::new(d).unwrap();
        let t0 = sim.time();
        let mut meter = sim.meter(Budget::UNLIMITED);
        for k in 1..=steps {
            sim.advance_metered(t0 + k as f64 * h, &mut meter).unwrap();
        }
        assert!(meter.reuse_weight() * 4 < meter.weight(), "{:?}", meter);
        (meter.work(), sim.total_iterations())
    };
    for (name, h, steps) in
        [("FlexibleFourBar", 0.02, 5), ("PatuLiftBoomFlexible", 0.02, 150), ("LateralBuckling", 0.002, 100)]
    {
        let (kept, kept_iterations) = work(&description(name, true), h, steps);
        let (fresh, fresh_iterations) = work(&description(name, false), h, steps);
        assert!(kept_iterations > fresh_iterations, "{name}: {kept_iterations} against {fresh_iterations}");
        assert!(kept < fresh, "{name}: {kept} work units kept, {fresh} fresh");
    }
    let d = description("FlexibleFourBar", true);
    let mut sim = Simulation::new(&d).unwrap();
    let t0 = sim.time();
    let quarter = (d.experiment.stop - t0) / 4.0;
    let budget = Budget { steps: DEFAULT_MAX_STEPS_PER_CALL as u64, work: DEFAULT_MAX_WORK_PER_CALL as u64 };
    assert_eq!(sim.advance_within(t0 + quarter, budget), Ok(Progress::Reached));
}
