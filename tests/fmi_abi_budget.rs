//! Bounded work per call through the C ABI: a doStep that needs more than
//! `solver.maxStepsPerCall` internal steps returns at the last internal step instead of
//! working for hours. FMI 2: fmi2Discard, fmi2LastSuccessfulTime, the state of that time
//! (FMI 2.0.4 Sect. 4.2.2: "fmi2Discard - if the slave computed successfully only a
//! subinterval of the communication step"). FMI 3: earlyReturn = true with
//! lastSuccessfulTime when the importer allowed early return, else fmi3Discard with the state
//! before the call (FMI 3.0 Sect. 4.2.1). Every case logs a line that names the parameter,
//! and the host can go on stepping.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::*;
use fmi_sys::fmi2 as f2;
use mbfmu_model::catalog::{self, CATALOG};
use mbfmu_model::variables::DEFAULT_MAX_STEPS_PER_CALL;
use std::time::Instant;

/// The time a budget of `limit` equal sub-steps reaches on the way from `start` to
/// `start + span` (Formulation::advance_to: n = ceil(span / step) sub-steps of span / n).
fn reached_after(start: f64, span: f64, step: f64, limit: u64) -> f64 {
    let n = (span / step).ceil();
    start + span * (limit as f64 / n)
}

fn init2_without_stop(f: &Fmu2, start: f64) {
    unsafe {
        assert_eq!(f.b.fmi2SetupExperiment(f.c, 0, 0.0, start, 0, 0.0), OK2, "{:?}", f.lines());
        assert_eq!(f.b.fmi2EnterInitializationMode(f.c), OK2, "{:?}", f.lines());
        assert!(f.b.fmi2ExitInitializationMode(f.c) <= f2::fmi2Status_fmi2Warning, "{:?}", f.lines());
    }
}

fn init3_without_stop(f: &Fmu3, start: f64) {
    unsafe {
        assert_eq!(f.b.fmi3EnterInitializationMode(f.c, false, 0.0, start, false, 0.0), OK3, "{:?}", f.log.lines());
        assert!(f.b.fmi3ExitInitializationMode(f.c) <= 1, "{:?}", f.log.lines());
    }
}

fn last_successful_time(f: &Fmu2) -> f64 {
    let mut last = f64::NAN;
    let s = unsafe { f.b.fmi2GetRealStatus(f.c, f2::fmi2StatusKind_fmi2LastSuccessfulTime, &mut last) };
    assert_eq!(s, OK2, "{:?}", f.lines());
    last
}

/// A host's typo: doStep(0, 1e6 s) with no stop time, on the double pendulum (1 ms internal
/// step, 1e9 steps of work). With the default budget each call returns after 1e5 steps.
#[test]
fn a_step_of_a_million_seconds_returns_within_seconds() {
    let entry = catalog::find("DoublePendulum").unwrap();
    let model = model(entry);
    let (start, _, h) = experiment(&model);
    let step = model.description.solver.step_size;
    let limit = DEFAULT_MAX_STEPS_PER_CALL as u64;
    let expected = reached_after(start, 1e6, step, limit);

    // FMI 2: Discard, lastSuccessfulTime, the state of that time.
    let f = Fmu2::new(entry, "budget2");
    init2_without_stop(&f, start);
    let began = Instant::now();
    assert_eq!(f.do_step(start, 1e6), DISCARD2, "{:?}", f.lines());
    let elapsed = began.elapsed();
    println!("FMI 2 doStep(0, 1e6 s): Discard after {elapsed:?}");
    assert!(elapsed.as_secs_f64() < 10.0, "{elapsed:?}");
    let last = last_successful_time(&f);
    assert_eq!(last, expected);
    let (_, line) = f.lines().last().cloned().unwrap();
    for needle in ["fmi2DoStep", "solver.maxStepsPerCall", &limit.to_string(), &last.to_string()] {
        assert!(line.contains(needle), "{needle:?} in {line}");
    }
    assert!(outputs2(&f, &model).iter().all(|x| x.is_finite()));
    // stepFailed: doStep is not allowed (FMI 2.0.4 Sect. 4.2.4), nor is fmi2CancelStep, which
    // only cancels an asynchronous step (state stepInProgress), never entered by this FMU.
    let state = f.get_state();
    f.assert_error(f.do_step(last, h), &["fmi2DoStep", "stepFailed"]);
    f.assert_error(unsafe { f.b.fmi2CancelStep(f.c) }, &["fmi2CancelStep", "fmi2Pending", "synchronous"]);
    // The state at lastSuccessfulTime is consistent: the host continues from it.
    assert_eq!(unsafe { f.b.fmi2SetFMUstate(f.c, state) }, OK2, "{:?}", f.lines());
    f.free_state(state);
    assert_eq!(f.do_step(last, h), OK2, "{:?}", f.lines());
    assert_eq!(last_successful_time(&f), last + h);

    // FMI 3, early return allowed: OK, earlyReturn, lastSuccessfulTime; Step Mode goes on.
    let f = Fmu3::with_early_return(entry, "budget3", true);
    init3_without_stop(&f, start);
    let began = Instant::now();
    assert_eq!(f.do_step_early(start, 1e6), (OK3, true, expected), "{:?}", f.log.lines());
    println!("FMI 3 doStep(0, 1e6 s), early return allowed: early return after {:?}", began.elapsed());
    let (status, category, line) = f.log.lines().last().cloned().unwrap();
    assert_eq!((status, category.as_str()), (OK3, "logNonlinearSystems"), "{line}");
    for needle in ["fmi3DoStep", "early return", "solver.maxStepsPerCall", &limit.to_string()] {
        assert!(line.contains(needle), "{needle:?} in {line}");
    }
    assert_eq!(f.do_step_early(expected, h), (OK3, false, expected + h), "{:?}", f.log.lines());

    // FMI 3, early return not allowed: Discard, back at the communication point.
    let f = Fmu3::with_early_return(entry, "budget3-no-early", false);
    init3_without_stop(&f, start);
    let before = outputs3(&f, &model);
    let began = Instant::now();
    assert_eq!(f.do_step_early(start, 1e6), (DISCARD3, false, start), "{:?}", f.log.lines());
    println!("FMI 3 doStep(0, 1e6 s), no early return: Discard after {:?}", began.elapsed());
    let (status, category, line) = f.log.lines().last().cloned().unwrap();
    assert_eq!((status, category.as_str()), (DISCARD3, "logStatusDiscard"), "{line}");
    for needle in ["fmi3DoStep", "solver.maxStepsPerCall", "earlyReturnAllowed", &expected.to_string()] {
        assert!(line.contains(needle), "{needle:?} in {line}");
    }
    assert_eq!(bits(&outputs3(&f, &model)), bits(&before), "Discard leaves the state before the call");
    assert_eq!(f.do_step_early(start, h), (OK3, false, start + h), "{:?}", f.log.lines());
}

/// Every catalog model (every formulation, constant and variable steps) has the parameter;
/// with a budget of 40 steps a huge step stops after 40 internal steps (attempts, for
/// variable-step methods) in the state a run to that time has, and stepping goes on.
#[test]
fn every_catalog_model_stops_at_its_budget_and_continues() {
    let limit = 40;
    for entry in CATALOG {
        let model = model(entry);
        let (start, _, h) = experiment(&model);
        let budget = var(&model, "solver.maxStepsPerCall").value_reference;
        let step = model.description.solver.step_size;
        let variable = model.description.solver.method.variable_step();
        let what = entry.name;

        let f = Fmu2::new(entry, "budget-all2");
        f.assert_error(f.set_integer(budget, 0), &["solver.maxStepsPerCall"]);
        f.reset();
        assert_eq!(f.set_integer(budget, limit), OK2);
        init2_without_stop(&f, start);
        assert_eq!(f.do_step(start, 1e6), DISCARD2, "{what}: {:?}", f.lines());
        let last = last_successful_time(&f);
        assert!(last > start && last <= start + f64::from(limit) * step * (1.0 + 1e-9), "{what}: {last}");
        if !variable {
            assert_eq!(last, reached_after(start, 1e6, step, limit as u64), "{what}");
        }
        assert!(f.lines().last().unwrap().1.contains("solver.maxStepsPerCall"), "{what}: {:?}", f.lines());
        let at_last = outputs2(&f, &model);

        // The same time reached in one ordinary step: the same state up to the round-off of
        // the sub-step grid (last = start + span * 40 / n against start + (last - start) * i / 40).
        let g = Fmu2::new(entry, "budget-ref2");
        init2_without_stop(&g, start);
        assert_eq!(g.do_step(start, last - start), OK2, "{what}: {:?}", g.lines());
        // Beam section forces are stiffness times strains that the Newton iteration resolves
        // to its tolerance over an element length: two step grids agree to ~1e-7 there.
        let agreement = if model.description.beams.is_empty() { 1e-9 } else { 1e-6 };
        if !variable {
            for (x, y) in at_last.iter().zip(outputs2(&g, &model)) {
                assert!((x - y).abs() <= agreement * (1.0 + x.abs()), "{what}: {x} vs {y}");
            }
        }

        // Continue from lastSuccessfulTime, with a step that fits the budget (the stiff
        // pendulum's transient takes microsecond steps).
        let h = h.min(0.1 * (last - start));
        let state = f.get_state();
        assert_eq!(unsafe { f.b.fmi2SetFMUstate(f.c, state) }, OK2, "{what}");
        f.free_state(state);
        assert_eq!(f.do_step(last, h), OK2, "{what}: {:?}", f.lines());

        // FMI 3 (early return allowed) stops at the same time, bit for bit.
        let f3 = Fmu3::new(entry, "budget-all3");
        assert_eq!(f3.set_i32(budget, limit), OK3);
        init3_without_stop(&f3, start);
        assert_eq!(f3.do_step_early(start, 1e6), (OK3, true, last), "{what}: {:?}", f3.log.lines());
        assert_eq!(bits(&outputs3(&f3, &model)), bits(&at_last), "{what}");
        assert_eq!(f3.do_step_early(last, h), (OK3, false, last + h), "{what}: {:?}", f3.log.lines());
    }
}

/// The work budget through the C ABI: on the catalog's slowest step (the state-space Andrews'
/// squeezer, milliseconds a step) a huge doStep returns once `solver.maxWorkPerCall` work
/// units are spent, long before `solver.maxStepsPerCall` steps, with the same statuses as the
/// step budget and a log line that names the parameter, its value and what was spent; a
/// value below 1 or not finite is refused.
#[test]
fn a_huge_step_of_the_slowest_model_returns_at_its_work_budget() {
    let entry = catalog::find("AndrewsSqueezerStateSpace").unwrap();
    let model = model(entry);
    let (start, _, _) = experiment(&model);
    let work = var(&model, "solver.maxWorkPerCall").value_reference;
    let steps = var(&model, "solver.maxStepsPerCall").value_reference;
    let limit = 2e7;

    let f = Fmu2::new(entry, "work2");
    f.assert_error(f.set_real(work, 0.0), &["solver.maxWorkPerCall"]);
    f.reset();
    f.assert_error(f.set_real(work, f64::NAN), &["solver.maxWorkPerCall"]);
    f.reset();
    assert_eq!(f.set_real(work, limit), OK2);
    init2_without_stop(&f, start);
    assert_eq!(f.do_step(start, 1e6), DISCARD2, "{:?}", f.lines());
    let last = last_successful_time(&f);
    assert!(last > start && last < start + 0.01, "{last}");
    let (_, line) = f.lines().last().cloned().unwrap();
    for needle in ["fmi2DoStep", "solver.maxWorkPerCall = 20000000 work units", "internal steps", &last.to_string()] {
        assert!(line.contains(needle), "{needle:?} in {line}");
    }
    assert!(outputs2(&f, &model).iter().all(|x| x.is_finite()));

    // FMI 3 with early return: the same time, bit for bit (the count is deterministic).
    let f3 = Fmu3::with_early_return(entry, "work3", true);
    assert_eq!(f3.set_f64(work, limit), OK3);
    init3_without_stop(&f3, start);
    assert_eq!(f3.do_step_early(start, 1e6), (OK3, true, last), "{:?}", f3.log.lines());
    let (_, _, line) = f3.log.lines().last().cloned().unwrap();
    assert!(line.contains("solver.maxWorkPerCall"), "{line}");

    // A step budget below the work budget's steps stops it first, and says so.
    let f = Fmu2::new(entry, "work2-steps");
    assert_eq!(f.set_real(work, limit), OK2);
    assert_eq!(f.set_integer(steps, 3), OK2);
    init2_without_stop(&f, start);
    assert_eq!(f.do_step(start, 1e6), DISCARD2, "{:?}", f.lines());
    let (_, line) = f.lines().last().cloned().unwrap();
    assert!(line.contains("solver.maxStepsPerCall = 3"), "{line}");
}
