//! Bounded work per advance: `Simulation::advance_within` stops after the
//! given number of internal steps, whatever the end time, with the state of the last
//! internal step; the run continues from there. One model per formulation and both kinds
//! of stepping (equal sub-steps, error-controlled steps).

use mbfmu_engine::statespace::StateSpaceFormulation;
use mbfmu_engine::{Progress, Simulation};
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
        assert_eq!(sim.advance_within(1e6, budget), Ok(Progress::Budget), "{what}");
        let elapsed = started.elapsed();
        let reached = sim.time();
        // Each attempt is one step of at most the solver step size; accepted ones advance.
        assert!(sim.steps() <= budget && sim.steps() > 0, "{what}: {} steps", sim.steps());
        assert!(reached > 0.0 && reached <= budget as f64 * d.solver.step_size * (1.0 + 1e-9), "{what}: {reached}");
        assert!(elapsed.as_secs_f64() < 5.0, "{what}: {elapsed:?}");
        assert!(sim.quantity(format::Quantity::TotalEnergy).is_finite(), "{what}");
        // The state is the one of the last internal step: the run goes on from it.
        let steps = sim.steps();
        assert_eq!(sim.advance_within(reached + 0.05, budget), Ok(Progress::Reached), "{what}");
        assert!(sim.steps() > steps, "{what}");
        // A budget of the steps the interval needs is enough; one less is not.
        let mut a = Simulation::new(&d).unwrap();
        let mut b = Simulation::new(&d).unwrap();
        let mut c = Simulation::new(&d).unwrap();
        a.advance_to(0.1).unwrap();
        // Attempts: accepted steps plus the ones the error control rejected.
        let rejected = a.formulation::<StateSpaceFormulation>().map_or(0, |f| f.solver().counters.rejected);
        let needed = a.steps() + rejected;
        assert_eq!(b.advance_within(0.1, needed), Ok(Progress::Reached), "{what}");
        assert_eq!(c.advance_within(0.1, needed - 1), Ok(Progress::Budget), "{what}");
        assert_eq!(b.time().to_bits(), a.time().to_bits(), "{what}");
        let energy = |s: &Simulation| s.quantity(format::Quantity::TotalEnergy).to_bits();
        assert_eq!(energy(&b), energy(&a), "{what}: the budget does not change the steps taken");
    }
}
