//! Logging through the C ABI, as an importer sees it: the categories a host switches on and
//! off (FMI 2.0.4 Sect. 2.1.5, FMI 3.0 Sect. 2.3.5), and the solver's work reported per
//! step under logNonlinearSystems. Misuse of the rest of the interface is in fmi_abi.rs.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::*;
use mbfmu_model::catalog::CATALOG;
use mbfmu_model::variables::VarType;
use std::ffi::CString;
use std::ptr::null;

#[test]
fn debug_logging_honours_categories() {
    let names = |names: &[&str]| names.iter().map(|n| cstring(n)).collect::<Vec<_>>();
    let (calls, calls_and_errors, bogus) =
        (names(&["logCalls"]), names(&["logCalls", "logStatusError"]), names(&["logEverything"]));
    let ptrs = |v: &[CString]| v.iter().map(|c| c.as_ptr()).collect::<Vec<_>>();
    let (calls, calls_and_errors, bogus) = (ptrs(&calls), ptrs(&calls_and_errors), ptrs(&bogus));
    for entry in CATALOG {
        let model = model(entry);
        let (start, stop, _) = experiment(&model);
        let real_out = output_of(&model, VarType::Real);
        let unknown = model.interface.variables.len() as u32;

        let f = Fmu2::new(entry, "log2");
        f.init(start, stop);
        unsafe {
            assert_eq!(f.b.fmi2SetDebugLogging(f.c, 1, 1, calls.as_ptr()), OK2);
            assert_eq!(f.get_real(real_out).0, OK2);
            assert!(f.lines().last().unwrap().1.starts_with("fmi2GetReal"), "{:?}", f.lines());
            // Only logCalls is on: the Error is returned, its explanation is filtered out.
            assert_eq!(f.get_real(unknown).0, ERROR2);
            assert!(f.lines().last().unwrap().1.starts_with("fmi2GetReal"), "{:?}", f.lines());
            f.reset();
            assert_eq!(f.b.fmi2SetDebugLogging(f.c, 1, 2, calls_and_errors.as_ptr()), OK2);
            f.assert_error(f.b.fmi2SetDebugLogging(f.c, 1, 1, bogus.as_ptr()), &["logEverything", "logCalls"]);
            f.assert_error(f.b.fmi2SetDebugLogging(f.c, 1, 1, null()), &["categories", "NULL"]);
            assert_eq!(f.b.fmi2SetDebugLogging(f.c, 1, 0, null()), OK2, "no categories: all of them");
            f.reset();
            f.init(start, stop);
            f.assert_error(f.get_real(unknown).0, &["unknown value reference"]);
        }

        let f = Fmu3::new(entry, "log3");
        f.init(start, stop);
        unsafe {
            assert_eq!(f.b.fmi3SetDebugLogging(f.c, true, 1, calls.as_ptr()), OK3);
            f.log.clear();
            assert_eq!(f.get_f64(real_out).0, OK3);
            let lines = f.log.lines();
            assert_eq!(lines.len(), 1, "{lines:?}");
            assert_eq!((lines[0].0, lines[0].1.as_str()), (OK3, "logCalls"));
            assert!(lines[0].2.starts_with("fmi3GetFloat64"));
            assert_eq!(f.b.fmi3SetDebugLogging(f.c, true, 2, calls_and_errors.as_ptr()), OK3);
            f.assert_error(f.b.fmi3SetDebugLogging(f.c, true, 1, bogus.as_ptr()), &["logEverything"]);
            // Logging off: OK messages stop, but an Error still reaches the callback with its
            // reason, as for FMI 2 (error logging regardless of loggingOn, docs/fmi.md#logging).
            assert_eq!(f.b.fmi3SetDebugLogging(f.c, false, 0, null()), OK3);
            f.log.clear();
            assert_eq!(f.get_f64(real_out).0, OK3);
            assert!(f.log.lines().is_empty(), "{:?}", f.log.lines());
            assert_eq!(f.do_step(start, 0.1).0, ERROR3);
            let lines = f.log.lines();
            assert_eq!(lines.len(), 1, "{lines:?}");
            assert_eq!((lines[0].0, lines[0].1.as_str()), (ERROR3, "logStatusError"), "{lines:?}");
            assert!(lines[0].2.contains("fmi3DoStep"), "the reason names the call: {lines:?}");
        }
    }
}

/// logNonlinearSystems reports the solver work of each DoStep: the number of internal steps
/// follows from the communication step and solver.stepSize, and the iterations agree with
/// the model's own steps/newton_iterations bookkeeping.
#[test]
fn log_nonlinear_systems_reports_the_work_of_each_step() {
    let entry = mbfmu_model::catalog::find("DoublePendulum").unwrap();
    let model = model(entry);
    let (start, stop, h) = experiment(&model);
    let internal = (h / model.description.solver.step_size).round() as u64;
    let only = [cstring("logNonlinearSystems")];
    let only = only.iter().map(|c| c.as_ptr()).collect::<Vec<_>>();
    let expected = format!("{internal} internal steps");

    let f = Fmu3::new(entry, "work3");
    f.init(start, stop);
    unsafe {
        assert_eq!(f.b.fmi3SetDebugLogging(f.c, true, 1, only.as_ptr()), OK3);
        f.log.clear();
        assert_eq!(f.do_step(start, h).0, OK3);
        let lines = f.log.lines();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(lines[0].1, "logNonlinearSystems");
        assert!(lines[0].2.starts_with("fmi3DoStep") && lines[0].2.contains(&expected), "{lines:?}");
        let iterations: u64 = lines[0].2.split(", ").nth(1).and_then(|s| s.split(' ').next()).unwrap().parse().unwrap();
        assert!(iterations >= internal, "at least one Newton iteration per internal step: {lines:?}");
    }

    let f = Fmu2::new(entry, "work2");
    f.init(start, stop);
    unsafe {
        assert_eq!(f.b.fmi2SetDebugLogging(f.c, 1, 1, only.as_ptr()), OK2);
        assert_eq!(f.do_step(start, h), OK2);
        assert_eq!(f.do_step(start + h, h), OK2);
        let work: Vec<_> = f.lines().into_iter().filter(|(_, l)| l.starts_with("fmi2DoStep")).collect();
        assert_eq!(work.len(), 2, "{work:?}");
        assert!(work.iter().all(|(_, l)| l.contains(&expected)), "{work:?}");
        // Off again: DoStep is silent.
        assert_eq!(f.b.fmi2SetDebugLogging(f.c, 0, 0, std::ptr::null()), OK2);
        assert_eq!(f.do_step(start + 2.0 * h, h), OK2);
        assert_eq!(f.lines().iter().filter(|(_, l)| l.starts_with("fmi2DoStep")).count(), 2);
    }
}

/// The state-space formulation chooses its own steps: the reported work of a DoStep is the
/// steps its error control took (the model's `steps` output), several in the initial
/// transient of the stiff double pendulum.
#[test]
fn log_nonlinear_systems_reports_the_variable_steps_of_a_state_space_model() {
    let entry = mbfmu_model::catalog::find("StiffDoublePendulum").unwrap();
    let model = model(entry);
    let (start, stop, h) = experiment(&model);
    let only = [cstring("logNonlinearSystems")];
    let only = only.iter().map(|c| c.as_ptr()).collect::<Vec<_>>();
    let f = Fmu2::new(entry, "ss-work2");
    f.init(start, stop);
    let steps = var(&model, "steps").value_reference;
    unsafe { assert_eq!(f.b.fmi2SetDebugLogging(f.c, 1, 1, only.as_ptr()), OK2) };
    let mut before = 0;
    for k in 0..3 {
        assert_eq!(f.do_step(start + k as f64 * h, h), OK2);
        let mut after = 0;
        assert_eq!(unsafe { f.b.fmi2GetInteger(f.c, &steps, 1, &mut after) }, OK2);
        let taken = after - before;
        let lines: Vec<_> = f.lines().into_iter().filter(|(_, l)| l.starts_with("fmi2DoStep")).collect();
        assert_eq!(lines.len(), k + 1, "{lines:?}");
        assert!(lines[k].1.contains(&format!(" {taken} internal steps")), "{taken} steps: {lines:?}");
        if k == 0 {
            assert!(taken > 1, "the initial transient needs several steps: {lines:?}");
        }
        before = after;
    }
}

/// `solver.method` = `auto` on the stiff double pendulum switches from DOP853 to SDIRK4 within
/// the first communication step and says so once, at logStatusInfo, which a host can switch
/// on and off like any declared category.
#[test]
fn auto_reports_its_switch_at_log_status_info() {
    let entry = mbfmu_model::catalog::find("StiffDoublePendulum").unwrap();
    let model = model(entry);
    let (start, stop, h) = experiment(&model);
    let method = var(&model, "solver.method").value_reference;
    let auto = i64::from(mbfmu_model::format::Method::Auto.code());
    let only = [cstring("logStatusInfo")];
    let only = only.iter().map(|c| c.as_ptr()).collect::<Vec<_>>();

    let f = Fmu3::new(entry, "auto3");
    unsafe {
        assert_eq!(f.b.fmi3SetInt64(f.c, &method, 1, &auto, 1), OK3);
        assert_eq!(f.b.fmi3SetDebugLogging(f.c, true, 1, only.as_ptr()), OK3);
    }
    f.init(start, stop);
    f.log.clear();
    // The switch comes at about 5.5 ms.
    for k in 0..10 {
        assert_eq!(f.do_step(start + k as f64 * h, h).0, OK3);
    }
    let lines = f.log.lines();
    assert_eq!(lines.len(), 1, "one switch, one message: {lines:?}");
    assert_eq!(lines[0].1, "logStatusInfo");
    assert!(lines[0].2.contains("became stiff") && lines[0].2.contains("SDIRK4"), "{lines:?}");

    let f = Fmu2::new(entry, "auto2");
    assert_eq!(f.set_integer(method, auto as i32), OK2);
    unsafe { assert_eq!(f.b.fmi2SetDebugLogging(f.c, 1, 1, only.as_ptr()), OK2) };
    f.init(start, stop);
    for k in 0..10 {
        assert_eq!(f.do_step(start + k as f64 * h, h), OK2);
    }
    let info: Vec<_> = f.lines().into_iter().filter(|(_, l)| l.contains("became stiff")).collect();
    assert_eq!(info.len(), 1, "{info:?}");
}
