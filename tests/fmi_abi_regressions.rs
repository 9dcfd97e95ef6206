//! Misuse the call-sequence oracle (tests/call_sequences.rs) found, kept as fixed cases.

use crate::common_fmu;

use common_fmu::abi::*;
use mbfmu_model::catalog::find;
use mbfmu_model::variables::Causality;

/// An infinite communication point matched any time (inf <= 1e-9 * inf) and moved the FMU's
/// clock to infinity.
#[test]
fn a_non_finite_communication_point_is_refused() {
    let entry = find("DoublePendulum").unwrap();
    let model = common_fmu::model(entry);
    let (start, stop, h) = experiment(&model);
    for t in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        let f = Fmu2::new(entry, "inf-point2");
        f.init(start, stop);
        f.assert_error(f.do_step(t, h), &["communication point"]);
        let g = Fmu3::new(entry, "inf-point3");
        g.init(start, stop);
        g.assert_error(g.do_step(t, h).0, &["communication point"]);
        assert_eq!(g.get_f64(0), (OK3, start), "time unchanged");
    }
}

/// States and derivatives of the reduced equations are `initial = "calculated"`: Set is not
/// allowed (FMI 2.0.4 Sect. 4.2.4, FMI 3.0 Sect. 2.3.2), but it returned OK.
#[test]
fn calculated_locals_cannot_be_set() {
    let entry = find("StiffDoublePendulum").unwrap();
    let model = common_fmu::model(entry);
    let local = model.interface.variables.iter().find(|v| v.causality == Causality::Local).expect("a local state");
    let f = Fmu2::new(entry, "local2");
    f.assert_error(f.set_real(local.value_reference, 0.0), &[&local.name, "calculated"]);
    let g = Fmu3::new(entry, "local3");
    g.assert_error(g.set_f64(local.value_reference, 0.0), &[&local.name, "calculated"]);
}

/// A start time after the DefaultExperiment's stop time, without a stop time, failed at
/// initialization ("stop time 0.1 must be after start time 1000000").
#[test]
fn a_late_start_without_stop_time_initializes_and_steps() {
    for name in ["DoublePendulum", "HydraulicFourBar", "StiffDoublePendulum"] {
        let entry = find(name).unwrap();
        let model = common_fmu::model(entry);
        let (_, stop, h) = experiment(&model);
        let start = 1e6 + stop;
        let f = Fmu2::new(entry, "late2");
        unsafe {
            assert_eq!(f.b.fmi2SetupExperiment(f.c, 0, 0.0, start, 0, 0.0), OK2);
            assert_eq!(f.b.fmi2EnterInitializationMode(f.c), OK2);
            assert_eq!(f.b.fmi2ExitInitializationMode(f.c), OK2, "{name}: {:?}", f.lines());
        }
        assert_eq!(f.do_step(start, h), OK2, "{name}: {:?}", f.lines());
        let g = Fmu3::new(entry, "late3");
        unsafe {
            assert_eq!(g.b.fmi3EnterInitializationMode(g.c, false, 0.0, start, false, 0.0), OK3);
            assert_eq!(g.b.fmi3ExitInitializationMode(g.c), OK3, "{name}: {:?}", g.log.lines());
        }
        assert_eq!(g.do_step(start, h).0, OK3, "{name}: {:?}", g.log.lines());
    }
}
