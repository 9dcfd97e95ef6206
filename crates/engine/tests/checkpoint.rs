//! The rollback of a failed communication step (`Simulation::checkpoint` / `rollback`) in
//! each formulation, on the paths where the checkpoint is copied and where it is not: a
//! failed single internal step (no copy: the failed step left the state as it was), an
//! advance of several internal steps stopped by its budget (copied before the first), an
//! input set after the checkpoint (copied before the change), and a successful step, after
//! which there is nothing to roll back to (the state-space formulation steps under its own
//! control and always copies). "As before" is the snapshot, byte for byte.

use mbfmu_engine::{Budget, Progress, Simulation};
use mbfmu_model::catalog;
use mbfmu_model::format::{Description, Method};

/// One model of each formulation: index-3 (two), semirecursive, state-space.
const MODELS: [&str; 4] = ["DoublePendulum", "SliderCrank", "HydraulicFourBar", "DoublePendulumStateSpace"];

fn description(name: &str) -> Description {
    mbfmu_model::format::parse(catalog::find(name).unwrap().json).unwrap()
}

fn simulations() -> impl Iterator<Item = (&'static str, Simulation)> {
    MODELS.into_iter().map(|name| (name, Simulation::new(&description(name)).unwrap()))
}

/// The state-space formulation chooses its own steps, so every checkpoint is copied.
fn copies_always(name: &str) -> bool {
    name.ends_with("StateSpace")
}

#[test]
fn a_failed_single_step_rolls_back_to_the_same_bytes() {
    for name in MODELS {
        // A solver step far too large for one Newton iteration (the hydraulic machine is at
        // rest until its valve opens: the steps until then succeed).
        let mut d = description(name);
        d.solver.step_size = 0.5;
        d.solver.max_iterations = 1;
        if copies_always(name) {
            d.solver.method = Method::TrapezoidalConstantStep;
        }
        let mut sim = Simulation::new(&d).unwrap();
        let failed = (0..20).any(|_| {
            let t = sim.time();
            let before = sim.snapshot();
            sim.checkpoint();
            if sim.advance_within(t + 0.5, Budget::UNLIMITED).is_ok() {
                return false;
            }
            assert_eq!(sim.time(), t, "{name}");
            sim.rollback().unwrap();
            assert_eq!(sim.snapshot(), before, "{name}: the state before the failed step");
            true
        });
        assert!(failed, "{name}: no step of 0.5 s failed");
    }
}

#[test]
fn an_advance_stopped_by_its_budget_rolls_back_to_the_checkpoint() {
    // A budget of one internal step on an advance of many: the one step succeeds and the
    // budget stops the advance, which a host may still discard.
    for budget in [1, 3] {
        for (name, mut sim) in simulations() {
            let t = sim.time();
            let before = sim.snapshot();
            sim.checkpoint();
            let progress = sim.advance_within(t + 1.0, Budget::steps(budget)).unwrap();
            assert_eq!(progress, Progress::Budget, "{name}");
            assert!(sim.time() > t, "{name}");
            sim.rollback().unwrap();
            assert_eq!(sim.snapshot(), before, "{name}: {budget} internal step(s) undone");
            // The same advance again gives the same state: nothing of the first one is left.
            sim.advance_within(t + 1.0, Budget::steps(budget)).unwrap();
            let once = sim.snapshot();
            sim.restore(&before).unwrap();
            sim.advance_within(t + 1.0, Budget::steps(budget)).unwrap();
            assert_eq!(sim.snapshot(), once, "{name}");
        }
    }
}

#[test]
fn inputs_set_after_the_checkpoint_are_rolled_back() {
    let name = "HydraulicFourBarCylinderMechanism";
    let mut sim = Simulation::new(&description(name)).unwrap();
    assert!(!sim.inputs().is_empty(), "{name} has inputs");
    let before = sim.snapshot();
    sim.checkpoint();
    let mut inputs = sim.inputs().to_vec();
    inputs[0] *= 1.01;
    inputs[0] += 1.0;
    sim.set_inputs(&inputs).unwrap();
    assert_ne!(sim.snapshot(), before);
    sim.rollback().unwrap();
    assert_eq!(sim.snapshot(), before, "{name}: the inputs of the checkpoint");
}

#[test]
fn after_a_successful_step_there_is_nothing_to_roll_back() {
    for (name, mut sim) in simulations() {
        let t = sim.time();
        let before = sim.snapshot();
        sim.checkpoint();
        sim.advance_within(t + 1e-3, Budget::UNLIMITED).unwrap();
        let after = sim.snapshot();
        if copies_always(name) {
            sim.rollback().unwrap();
            assert_eq!(sim.snapshot(), before, "{name}");
            continue;
        }
        let error = sim.rollback().unwrap_err();
        assert!(error.contains("no checkpoint"), "{name}: {error}");
        assert_eq!(sim.snapshot(), after, "{name}: a refused rollback changes nothing");
    }
}
