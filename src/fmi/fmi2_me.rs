//! The FMI 2.0 model-exchange functions (FMI 2.0.4 Sect. 3.2). Models in the state-space and
//! semirecursive formulations provide Model Exchange (states: independent coordinates and
//! velocities, and pressures, spools and work integrals; event indicators at the circuit's
//! kinks; time events of work cycles; step events when the coordinate partition must be
//! re-chosen); for co-simulation instances and co-simulation-only models the functions log
//! why and return Error. All physics is the slave's.

use super::fmi2::{with, I2};
use super::instance::Outcome;
use super::logging::Status;
use super::state::{Call, Fmi2State};
use super::values::{input, out_scalar, output};
use crate::slave::SlaveError;
use fmi_sys::fmi2::*;

/// A numerical failure of the model equations at the host's states is a Discard (Sect.
/// 2.1.3: the host may retry with a smaller step); anything else is an Error.
fn discard_or_error(i: &mut I2, function: &str, e: SlaveError) -> Outcome {
    if e.is_discard() {
        i.report(Status::Discard, &format!("{function}: {e}"));
        Ok(Status::Discard)
    } else {
        Err(e.to_string())
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2EnterEventMode(c: fmi2Component) -> fmi2Status {
    unsafe {
        with(c, "fmi2EnterEventMode", Call::Unsupported, |i| {
            i.require_model_exchange(Call::EnterEventMode)?;
            i.state = Fmi2State::EventMode;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2NewDiscreteStates(c: fmi2Component, fmi2eventInfo: *mut fmi2EventInfo) -> fmi2Status {
    const F: &str = "fmi2NewDiscreteStates";
    unsafe {
        with(c, F, Call::Unsupported, |i| {
            i.require_model_exchange(Call::UpdateDiscreteStates)?;
            let info = out_scalar(fmi2eventInfo, "fmi2eventInfo")?;
            let update = match i.slave.event_update() {
                Ok(u) => u,
                Err(e) => return discard_or_error(i, F, e),
            };
            info.newDiscreteStatesNeeded = 0;
            info.terminateSimulation = 0;
            info.nominalsOfContinuousStatesChanged = 0;
            info.valuesOfContinuousStatesChanged = i32::from(update.states_changed);
            info.nextEventTimeDefined = i32::from(update.next_time.is_some());
            info.nextEventTime = update.next_time.unwrap_or(0.0);
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2EnterContinuousTimeMode(c: fmi2Component) -> fmi2Status {
    unsafe {
        with(c, "fmi2EnterContinuousTimeMode", Call::Unsupported, |i| {
            i.require_model_exchange(Call::EnterContinuousTimeMode)?;
            i.state = Fmi2State::ContinuousTimeMode;
            Ok(Status::Ok)
        })
    }
}

/// Requests Event Mode when the coordinate partition has become ill-conditioned (a step event).
#[no_mangle]
pub unsafe extern "C" fn fmi2CompletedIntegratorStep(
    c: fmi2Component,
    _noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
    enterEventMode: *mut fmi2Boolean,
    terminateSimulation: *mut fmi2Boolean,
) -> fmi2Status {
    const F: &str = "fmi2CompletedIntegratorStep";
    unsafe {
        with(c, F, Call::Unsupported, |i| {
            i.require_model_exchange(Call::CompletedIntegratorStep)?;
            let event = out_scalar(enterEventMode, "enterEventMode")?;
            let terminate = out_scalar(terminateSimulation, "terminateSimulation")?;
            (*event, *terminate) = (0, 0);
            match i.slave.completed_integrator_step() {
                Ok(e) => {
                    *event = i32::from(e);
                    Ok(Status::Ok)
                }
                Err(e) => discard_or_error(i, F, e),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetTime(c: fmi2Component, time: fmi2Real) -> fmi2Status {
    unsafe {
        with(c, "fmi2SetTime", Call::Unsupported, |i| {
            i.require_model_exchange(Call::SetTime)?;
            i.slave.set_time(time).map_err(|e| e.to_string())?;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetContinuousStates(c: fmi2Component, x: *const fmi2Real, nx: usize) -> fmi2Status {
    unsafe {
        with(c, "fmi2SetContinuousStates", Call::Unsupported, |i| {
            i.require_model_exchange(Call::SetContinuousStates)?;
            i.slave.set_continuous_states(input(x, nx, "x")?).map_err(|e| e.to_string())?;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetDerivatives(c: fmi2Component, derivatives: *mut fmi2Real, nx: usize) -> fmi2Status {
    const F: &str = "fmi2GetDerivatives";
    unsafe {
        with(c, F, Call::Unsupported, |i| {
            i.require_model_exchange(Call::GetContinuous)?;
            match i.slave.get_derivatives(output(derivatives, nx, "derivatives")?) {
                Ok(()) => Ok(Status::Ok),
                Err(e) => discard_or_error(i, F, e),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetEventIndicators(
    c: fmi2Component,
    eventIndicators: *mut fmi2Real,
    ni: usize,
) -> fmi2Status {
    const F: &str = "fmi2GetEventIndicators";
    unsafe {
        with(c, F, Call::Unsupported, |i| {
            i.require_model_exchange(Call::GetContinuous)?;
            let z = output(eventIndicators, ni, "eventIndicators")?;
            let expected = i.slave.event_indicator_count();
            if ni != expected {
                return Err(format!("ni = {ni}, but the model has numberOfEventIndicators=\"{expected}\""));
            }
            match i.slave.get_event_indicators(z) {
                Ok(()) => Ok(Status::Ok),
                Err(e) => discard_or_error(i, F, e),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetContinuousStates(c: fmi2Component, x: *mut fmi2Real, nx: usize) -> fmi2Status {
    unsafe {
        with(c, "fmi2GetContinuousStates", Call::Unsupported, |i| {
            i.require_model_exchange(Call::GetContinuous)?;
            i.slave.get_continuous_states(output(x, nx, "x")?).map_err(|e| e.to_string())?;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetNominalsOfContinuousStates(
    c: fmi2Component,
    x_nominal: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    unsafe {
        with(c, "fmi2GetNominalsOfContinuousStates", Call::Unsupported, |i| {
            i.require_model_exchange(Call::GetNominals)?;
            i.slave.nominals(output(x_nominal, nx, "x_nominal")?).map_err(|e| e.to_string())?;
            Ok(Status::Ok)
        })
    }
}

// ---- Compile-time check of every signature against fmi2FunctionTypes.h ---------------------

const _: fmi2EnterEventModeTYPE = Some(fmi2EnterEventMode);
const _: fmi2NewDiscreteStatesTYPE = Some(fmi2NewDiscreteStates);
const _: fmi2EnterContinuousTimeModeTYPE = Some(fmi2EnterContinuousTimeMode);
const _: fmi2CompletedIntegratorStepTYPE = Some(fmi2CompletedIntegratorStep);
const _: fmi2SetTimeTYPE = Some(fmi2SetTime);
const _: fmi2SetContinuousStatesTYPE = Some(fmi2SetContinuousStates);
const _: fmi2GetDerivativesTYPE = Some(fmi2GetDerivatives);
const _: fmi2GetEventIndicatorsTYPE = Some(fmi2GetEventIndicators);
const _: fmi2GetContinuousStatesTYPE = Some(fmi2GetContinuousStates);
const _: fmi2GetNominalsOfContinuousStatesTYPE = Some(fmi2GetNominalsOfContinuousStates);
