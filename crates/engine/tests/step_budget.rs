//! Bounded work per advance: `Simulation::advance_within` stops after the
//! given number of internal steps, whatever the end time, with the state of the last
//! internal step; the run continues from there. One model per formulation and both kinds
//! of stepping (equal sub-steps, error-controlled steps).

use mbfmu_engine::statespace::StateSpaceFormulation;
use mbfmu_engine::{Budget, Progress, Simulation};
use mbfmu_model::format::{self, Description, Method};

fn description(name: &str) -> Description {
    format::parse(mbfmu_model::catalog::find(name).expect("catalog model").json).expect("catalog models parse")
}

#[test]
fn a_huge_advance_stops_at_the_budget_and_the_run_continues() {
    let variable = {
        let mut d = description("DoublePendulumStateSpace");
        d.solver.method = Method::TrapezoidalVariableStep;
        d
    };
    let constant = {
        let mut d = description("DoublePendulumStateSpace");
        d.solver.method = Method::TrapezoidalConstantStep;
        d
    };
    for (what, d) in [
        ("index-3", description("DoublePendulum")),
        ("state space, constant step", constant),
        ("state space, variable step", variable),
        ("semirecursive", description("HydraulicFourBar")),
    ] {
        let budget = 300;
        let mut sim = Simulation::new(&d).unwrap();
        let started = std::time::Instant::now();
        assert_eq!(sim.advance_within(1e6, Budget::steps(budget)), Ok(Progress::Budget), "{what}");
        let elapsed = started.elapsed();
        let reached = sim.time();
        // Each attempt is one step of at most the solver step size; accepted ones advance.
        assert!(sim.steps() <= budget && sim.steps() > 0, "{what}: {} steps", sim.steps());
        assert!(reached > 0.0 && reached <= budget as f64 * d.solver.step_size * (1.0 + 1e-9), "{what}: {reached}");
        assert!(elapsed.as_secs_f64() < 5.0, "{what}: {elapsed:?}");
        assert!(sim.quantity(format::Quantity::TotalEnergy).is_finite(), "{what}");
        // The state is the one of the last internal step: the run goes on from it.
        let steps = sim.steps();
        assert_eq!(sim.advance_within(reached + 0.05, Budget::steps(budget)), Ok(Progress::Reached), "{what}");
        assert!(sim.steps() > steps, "{what}");
        // A budget of the steps the interval needs is enough; one less is not.
        let mut a = Simulation::new(&d).unwrap();
        let mut b = Simulation::new(&d).unwrap();
        let mut c = Simulation::new(&d).unwrap();
        a.advance_to(0.1).unwrap();
        // Attempts: accepted steps plus the ones the error control rejected.
        let rejected = a.formulation::<StateSpaceFormulation>().map_or(0, |f| f.solver().counters.rejected);
        let needed = a.steps() + rejected;
        assert_eq!(b.advance_within(0.1, Budget::steps(needed)), Ok(Progress::Reached), "{what}");
        assert_eq!(c.advance_within(0.1, Budget::steps(needed - 1)), Ok(Progress::Budget), "{what}");
        assert_eq!(b.time().to_bits(), a.time().to_bits(), "{what}");
        let energy = |s: &Simulation| s.quantity(format::Quantity::TotalEnergy).to_bits();
        assert_eq!(energy(&b), energy(&a), "{what}: the budget does not change the steps taken");
    }
}

/// The work budget counts work, not steps: on the catalog's most expensive models (the
/// state-space Andrews' squeezer at several milliseconds a step, the flexible models with
/// hundreds of unknowns) a huge advance stops once the work units are spent, long before the
/// step budget, after the internal steps a run to that time takes (the same state), and the
/// count is deterministic: the same advance spends the same work units.
#[test]
fn the_work_budget_stops_the_worst_models_by_their_work() {
    use mbfmu_engine::Limit;
    use mbfmu_model::variables::DEFAULT_MAX_STEPS_PER_CALL;
    let steps = DEFAULT_MAX_STEPS_PER_CALL as u64;
    let work = 50_000_000;
    for name in ["AndrewsSqueezerStateSpace", "RotatingShaft", "PatuLiftBoomFlexible", "NLinkChain4StateSpace"] {
        let d = description(name);
        let budget = Budget { steps, work };
        let mut sim = Simulation::new(&d).unwrap();
        let t0 = sim.time();
        let mut meter = sim.meter(budget);
        assert_eq!(sim.advance_metered(t0 + 1e6, &mut meter), Ok(Progress::Budget), "{name}");
        assert_eq!(meter.exhausted(), Some(Limit::Work), "{name}");
        // The last step crossed the limit: at most its evaluations (Newton iterations, at
        // most solver.maxIterations per stage) more.
        assert!(meter.work() >= work, "{name}: {}", meter.work());
        assert!(meter.work() < work + 5 * 50 * meter.weight(), "{name}: {} work units", meter.work());
        assert!(meter.steps() < steps / 10, "{name}: {} internal steps", meter.steps());
        let reached = sim.time();
        assert!(reached > t0, "{name}");
        // Deterministic: the same advance again spends the same work and ends at the same state.
        let mut again = Simulation::new(&d).unwrap();
        let mut second = again.meter(budget);
        assert_eq!(again.advance_metered(t0 + 1e6, &mut second), Ok(Progress::Budget), "{name}");
        assert_eq!((second.steps(), second.work()), (meter.steps(), meter.work()), "{name}");
        assert_eq!(again.time().to_bits(), reached.to_bits(), "{name}");
        let energy = |s: &Simulation| s.quantity(format::Quantity::TotalEnergy).to_bits();
        assert_eq!(energy(&again), energy(&sim), "{name}");
        // The run goes on from the state of the last internal step.
        assert_eq!(sim.advance_within(reached + 10.0 * d.solver.step_size, budget), Ok(Progress::Reached), "{name}");
    }
}

/// The default work budget is what bounds the worst-case doStep of the expensive models and
/// leaves the cheap ones to the step budget: the state-space Andrews' squeezer (the slowest
/// step of the catalog) spends its work units in a few percent of the default step budget,
/// the double pendulum's 100000 steps cost a fraction of the default work units, and a
/// communication step of a default experiment costs less than half a percent of them.
#[test]
fn the_default_budget_bounds_expensive_models_by_work_and_cheap_ones_by_steps() {
    use mbfmu_engine::Limit;
    use mbfmu_model::variables::{DEFAULT_MAX_STEPS_PER_CALL, DEFAULT_MAX_WORK_PER_CALL};
    let budget = Budget { steps: DEFAULT_MAX_STEPS_PER_CALL as u64, work: DEFAULT_MAX_WORK_PER_CALL as u64 };
    // Andrews' squeezer in state space: 200 internal steps measure its work per step.
    let d = description("AndrewsSqueezerStateSpace");
    let mut sim = Simulation::new(&d).unwrap();
    let mut meter = sim.meter(Budget { steps: 200, work: budget.work });
    assert_eq!(sim.advance_metered(1e6, &mut meter), Ok(Progress::Budget));
    assert_eq!(meter.exhausted(), Some(Limit::Steps));
    let per_step = meter.work() as f64 / meter.steps() as f64;
    assert!(budget.work as f64 / per_step < 0.5 * budget.steps as f64, "{per_step} work units per step");
    // The double pendulum: the step budget binds first.
    let d = description("DoublePendulum");
    let mut sim = Simulation::new(&d).unwrap();
    let mut meter = sim.meter(budget);
    assert_eq!(sim.advance_metered(1e6, &mut meter), Ok(Progress::Budget));
    assert_eq!(meter.exhausted(), Some(Limit::Steps));
    assert!(meter.work() < budget.work / 2, "{}", meter.work());
    // Every catalog model's first communication step of its default experiment.
    for e in mbfmu_model::catalog::CATALOG {
        let d = format::parse(e.json).unwrap();
        let mut sim = Simulation::new(&d).unwrap();
        let mut meter = sim.meter(budget);
        let t = sim.time() + d.experiment.step;
        assert_eq!(sim.advance_metered(t, &mut meter), Ok(Progress::Reached), "{}", e.name);
        assert!(meter.work() < budget.work / 200, "{}: {} work units", e.name, meter.work());
    }
}
