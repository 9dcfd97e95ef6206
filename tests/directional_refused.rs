//! Bad directional-derivative and event-indicator calls through the raw C ABI: each is an
//! Error with a log line naming the function and the variable or argument, never a panic.
//! Which unknowns and knowns are allowed where (FMI 2.0.4 Sect. 2.1.9 and 2.2.8, FMI 3.0
//! Sect. 2.2.11 and 2.4.8): Model Exchange unknowns are continuous Real outputs and state
//! derivatives (in Initialization Mode also states), knowns continuous states, inputs and,
//! for rheonomic models, time; co-simulation unknowns are continuous Real outputs and knowns
//! inputs.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::*;
use fmi_sys::fmi2 as f2;
use mbfmu_model::catalog::find;
use mbfmu_model::Model;
use std::ptr::{null, null_mut};

/// (unknowns, knowns, seed, the log line's needles).
type Case<'a> = (Vec<u32>, Vec<u32>, Vec<f64>, Vec<String>);

fn vr(model: &Model, name: &str) -> u32 {
    var(model, name).value_reference
}

/// The calls every version refuses on a Model Exchange instance in Event Mode.
fn model_exchange_cases(model: &Model, prefix: &str) -> Vec<Case<'static>> {
    let f = format!("{prefix}GetDirectionalDerivative");
    let der = vr(model, "der(independent.velocity[1])");
    let state = vr(model, "independent.position[1]");
    let needles = |extra: &[&str]| -> Vec<String> {
        std::iter::once(f.clone()).chain(extra.iter().map(|s| s.to_string())).collect()
    };
    vec![
        (vec![u32::MAX], vec![state], vec![1.0], needles(&["unknown value reference 4294967295"])),
        (vec![der], vec![u32::MAX], vec![1.0], needles(&["unknown value reference 4294967295"])),
        (
            vec![der],
            vec![vr(model, "pump_pressure")],
            vec![1.0],
            needles(&["'pump_pressure'", "cannot be a known", "the knowns are the continuous states and the inputs"]),
        ),
        (vec![state], vec![state], vec![1.0], needles(&["'independent.position[1]'", "cannot be an unknown"])),
        (vec![vr(model, "event.dcv.spool")], vec![state], vec![1.0], needles(&["'event.dcv.spool'", "unknown"])),
        (vec![vr(model, "steps")], vec![state], vec![1.0], needles(&["'steps'", "continuous outputs of type Real"])),
        (vec![der], vec![0], vec![1.0], needles(&["'time'", "do not depend on time explicitly"])),
        (vec![der], vec![state], vec![f64::NAN], needles(&["'independent.position[1]'", "seed NaN is not finite"])),
    ]
}

#[test]
fn bad_directional_derivative_calls_are_errors_with_a_log_line() {
    let entry = find("HydraulicFourBar").unwrap();
    let model = model(entry);
    let (start, stop, _) = experiment(&model);
    let mut out = [0.0; 2];

    // FMI 2, Model Exchange.
    let f = Fmu2::of_type(entry, "dd-refused2", f2::fmi2Type_fmi2ModelExchange);
    let der = vr(&model, "der(independent.velocity[1])");
    let state = vr(&model, "independent.position[1]");
    unsafe {
        f.assert_error(
            f.b.fmi2GetDirectionalDerivative(f.c, &der, 1, &state, 1, &1.0, out.as_mut_ptr()),
            &["fmi2GetDirectionalDerivative", "not allowed in state instantiated"],
        );
        for (unknowns, knowns, seed, needles) in model_exchange_cases(&model, "fmi2") {
            f.reset();
            f.init(start, stop);
            let s = f.b.fmi2GetDirectionalDerivative(
                f.c,
                unknowns.as_ptr(),
                unknowns.len(),
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                out.as_mut_ptr(),
            );
            f.assert_error(s, &needles.iter().map(String::as_str).collect::<Vec<_>>());
        }
        for (call, needles) in [
            (0, ["fmi2GetDirectionalDerivative", "argument vUnknown_ref is NULL"]),
            (1, ["fmi2GetDirectionalDerivative", "argument dvKnown is NULL"]),
            (2, ["fmi2GetDirectionalDerivative", "argument dvUnknown is NULL"]),
        ] {
            f.reset();
            f.init(start, stop);
            let s = match call {
                0 => f.b.fmi2GetDirectionalDerivative(f.c, null(), 1, &state, 1, &1.0, out.as_mut_ptr()),
                1 => f.b.fmi2GetDirectionalDerivative(f.c, &der, 1, &state, 1, null(), out.as_mut_ptr()),
                _ => f.b.fmi2GetDirectionalDerivative(f.c, &der, 1, &state, 1, &1.0, null_mut()),
            };
            f.assert_error(s, &needles);
        }
        // In Initialization Mode the states are unknowns and the inputs the knowns.
        f.reset();
        assert_eq!(f.b.fmi2SetupExperiment(f.c, 0, 0.0, start, 1, stop), OK2);
        assert_eq!(f.b.fmi2EnterInitializationMode(f.c), OK2);
        let u_ref = vr(&model, "U_ref");
        assert_eq!(f.b.fmi2GetDirectionalDerivative(f.c, &state, 1, &u_ref, 1, &1.0, out.as_mut_ptr()), OK2);
        assert_eq!(out[0], 0.0, "the states are assembled from the parameters");
        f.assert_error(
            f.b.fmi2GetDirectionalDerivative(f.c, &der, 1, &state, 1, &1.0, out.as_mut_ptr()),
            &["'independent.position[1]'", "the knowns in Initialization Mode are the inputs"],
        );
        // Event indicators: their number, checked.
        f.reset();
        f.init(start, stop);
        f.assert_error(
            f.b.fmi2GetEventIndicators(f.c, out.as_mut_ptr(), 2),
            &["fmi2GetEventIndicators", "ni = 2", "numberOfEventIndicators=\"6\""],
        );
    }

    // FMI 3, Model Exchange: the counts of the seed and sensitivity arrays as well.
    let f = Fmu3::model_exchange(entry, "dd-refused3");
    let mut n = 0usize;
    unsafe {
        f.assert_error(
            f.b.fmi3GetDirectionalDerivative(f.c, &der, 1, &state, 1, &1.0, 1, out.as_mut_ptr(), 1),
            &["fmi3GetDirectionalDerivative", "not allowed in state Instantiated"],
        );
        for (unknowns, knowns, seed, needles) in model_exchange_cases(&model, "fmi3") {
            f.reset();
            f.init(start, stop);
            let s = f.b.fmi3GetDirectionalDerivative(
                f.c,
                unknowns.as_ptr(),
                unknowns.len(),
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                seed.len(),
                out.as_mut_ptr(),
                unknowns.len(),
            );
            f.assert_error(s, &needles.iter().map(String::as_str).collect::<Vec<_>>());
        }
        for (call, needles) in [
            (0, ["fmi3GetDirectionalDerivative", "nSeed = 2 but nKnowns = 1"]),
            (1, ["fmi3GetDirectionalDerivative", "nSensitivity = 2 but nUnknowns = 1"]),
            (2, ["fmi3GetDirectionalDerivative", "argument sensitivity is NULL"]),
            (3, ["fmi3GetDirectionalDerivative", "argument knowns is NULL"]),
        ] {
            f.reset();
            f.init(start, stop);
            let seed = [1.0, 1.0];
            let s = match call {
                0 => f.b.fmi3GetDirectionalDerivative(f.c, &der, 1, &state, 1, seed.as_ptr(), 2, out.as_mut_ptr(), 1),
                1 => f.b.fmi3GetDirectionalDerivative(f.c, &der, 1, &state, 1, seed.as_ptr(), 1, out.as_mut_ptr(), 2),
                2 => f.b.fmi3GetDirectionalDerivative(f.c, &der, 1, &state, 1, seed.as_ptr(), 1, null_mut(), 1),
                _ => f.b.fmi3GetDirectionalDerivative(f.c, &der, 1, null(), 1, seed.as_ptr(), 1, out.as_mut_ptr(), 1),
            };
            f.assert_error(s, &needles);
        }
        f.reset();
        f.init(start, stop);
        assert_eq!(f.b.fmi3GetNumberOfEventIndicators(f.c, &mut n), OK3);
        assert_eq!(n, 6, "one throttle and a directional valve: 1 + 5 indicators");
        f.assert_error(
            f.b.fmi3GetEventIndicators(f.c, out.as_mut_ptr(), 2),
            &["fmi3GetEventIndicators", "nEventIndicators = 2", "the model has 6"],
        );
    }
}

#[test]
fn co_simulation_knows_only_the_inputs_and_the_outputs() {
    let entry = find("HydraulicFourBarDrive").unwrap();
    let model = model(entry);
    let (start, stop, step) = experiment(&model);
    let force = vr(&model, "cylinder.force");
    let velocity = vr(&model, "cylinder_velocity");
    let pressure = vr(&model, "state.V2.pressure");
    let derivative = vr(&model, "der(state.V2.pressure)");
    let mut out = [0.0; 1];
    let f = Fmu2::new(entry, "dd-cs-refused2");
    let f3 = Fmu3::new(entry, "dd-cs-refused3");
    unsafe {
        for (unknown, known, needles) in [
            (force, pressure, ["'state.V2.pressure'", "the knowns of a co-simulation are the inputs"]),
            (
                derivative,
                velocity,
                ["'der(state.V2.pressure)'", "the unknowns of a co-simulation are the continuous outputs"],
            ),
        ] {
            f.reset();
            f.init(start, stop);
            assert_eq!(f.do_step(start, step), OK2);
            f.assert_error(
                f.b.fmi2GetDirectionalDerivative(f.c, &unknown, 1, &known, 1, &1.0, out.as_mut_ptr()),
                &needles,
            );
            f3.reset();
            f3.init(start, stop);
            let s = f3.b.fmi3GetDirectionalDerivative(f3.c, &unknown, 1, &known, 1, &1.0, 1, out.as_mut_ptr(), 1);
            f3.assert_error(s, &needles);
        }
        // In a co-simulation's Initialization Mode the feed-through is there already.
        f.reset();
        assert_eq!(f.b.fmi2SetupExperiment(f.c, 0, 0.0, start, 1, stop), OK2);
        assert_eq!(f.b.fmi2EnterInitializationMode(f.c), OK2);
        assert_eq!(f.b.fmi2GetDirectionalDerivative(f.c, &force, 1, &velocity, 1, &1.0, out.as_mut_ptr()), OK2);
        assert!(out[0] < 0.0, "the seal friction opposes the velocity: {}", out[0]);
    }
}
