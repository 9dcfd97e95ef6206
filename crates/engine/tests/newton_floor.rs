//! Newton convergence at the round-off floor, on the engine: FourLink, whose
//! correction stagnates just above its tolerance after ~27 s (the plain test discarded the
//! run there), now goes on and reports the solves it accepted at the floor; a diverging
//! iteration still fails.

use mbfmu_engine::integrators::convergence::FLOOR_BAND;
use mbfmu_engine::integrators::StepError;
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description, Method};

fn description(name: &str, method: Method) -> Description {
    let mut d = format::parse(mbfmu_model::catalog::find(name).unwrap().json).unwrap();
    d.solver.method = method;
    d
}

#[test]
fn four_link_goes_past_the_round_off_floor_with_the_half_implicit_method_and_bdf1() {
    for method in [Method::HalfImplicit, Method::Bdf1] {
        let d = description("FourLink", method);
        let mut sim = Simulation::new(&d).unwrap();
        let h = d.experiment.step;
        for k in 1..=3000 {
            sim.advance_to(k as f64 * h).unwrap_or_else(|e| panic!("{method:?}: {e}"));
        }
        let floor = sim.floor_report();
        println!(
            "{method:?}: {} solves accepted at the floor, the last at t = {}, {:.2}x",
            floor.count, floor.time, floor.ratio
        );
        assert!(floor.count > 0, "{method:?}");
        assert!(floor.ratio > 1.0 && floor.ratio <= FLOOR_BAND, "{method:?}: {floor:?}");
    }
}

/// Steps of 0.5 s on the double pendulum: the half-implicit iteration stalls far above its
/// tolerance, BDF1's converges linearly at a rate of 0.6 (too slowly for 50 iterations) or
/// meets a singular matrix, LMS3's diverges. All fail as before; nothing is accepted at the
/// floor.
#[test]
fn iterations_that_do_not_converge_still_fail() {
    for method in [Method::HalfImplicit, Method::Bdf1, Method::Lms3] {
        let mut d = description("DoublePendulum", method);
        d.solver.step_size = 0.5;
        let mut sim = Simulation::new(&d).unwrap();
        match sim.advance_to(3.0) {
            Err(e @ (StepError::NotConverged { .. } | StepError::Singular { .. } | StepError::NonFinite { .. })) => {
                println!("{method:?}: {e}");
            }
            other => panic!("{method:?}: {other:?}"),
        }
        assert!(sim.time() < 3.0, "{method:?}");
        assert_eq!(sim.floor_report().count, 0, "{method:?}: {:?}", sim.floor_report());
    }
}
