//! The FMI 3.0 model-exchange and event-mode functions (FMI 3.0 Sect. 3.2). Models in the
//! state-space and semirecursive formulations provide Model Exchange (states: independent
//! coordinates and velocities, and pressures, spools and work integrals; event indicators at
//! the circuit's kinks; time events of work cycles; step events when the coordinate
//! partition must be re-chosen); co-simulation instances have no event mode and get Error
//! with the reason. All physics is the slave's.

use super::fmi3::{with, I3};
use super::fmi3_unsupported::{unsupported, NO_EVENT_MODE};
use super::instance::Outcome;
use super::logging::Status;
use super::state::{Call, Fmi3State};
use super::values::{input, out_scalar, output};
use crate::slave::SlaveError;
use fmi_sys::fmi3::*;

/// A numerical failure of the model equations at the host's states is a Discard (Sect.
/// 2.2.3); anything else is an Error.
fn discard_or_error(i: &mut I3, function: &str, e: SlaveError) -> Outcome {
    if e.is_discard() {
        i.report(Status::Discard, &format!("{function}: {e}"));
        Ok(Status::Discard)
    } else {
        Err(e.to_string())
    }
}

/// Runs a model-exchange function; co-simulation instances of models without event mode
/// get the co-simulation explanation `cs_reason` if given.
unsafe fn me(
    instance: fmi3Instance,
    function: &'static str,
    call: Call,
    cs_reason: Option<&str>,
    op: impl FnOnce(&mut I3) -> Outcome,
) -> fmi3Status {
    unsafe {
        with(instance, function, Call::Unsupported, |i| {
            if let (false, Some(reason)) = (i.slave.is_model_exchange(), cs_reason) {
                return Err(format!("not supported: {reason}"));
            }
            i.require_model_exchange(call)?;
            op(i)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3EnterEventMode(instance: fmi3Instance) -> fmi3Status {
    unsafe {
        me(instance, "fmi3EnterEventMode", Call::EnterEventMode, Some(NO_EVENT_MODE), |i| {
            i.state = Fmi3State::EventMode;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3UpdateDiscreteStates(
    instance: fmi3Instance,
    discreteStatesNeedUpdate: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    nominalsOfContinuousStatesChanged: *mut fmi3Boolean,
    valuesOfContinuousStatesChanged: *mut fmi3Boolean,
    nextEventTimeDefined: *mut fmi3Boolean,
    nextEventTime: *mut fmi3Float64,
) -> fmi3Status {
    const F: &str = "fmi3UpdateDiscreteStates";
    unsafe {
        me(instance, F, Call::UpdateDiscreteStates, Some(NO_EVENT_MODE), |i| {
            let need = out_scalar(discreteStatesNeedUpdate, "discreteStatesNeedUpdate")?;
            let terminate = out_scalar(terminateSimulation, "terminateSimulation")?;
            let nominals = out_scalar(nominalsOfContinuousStatesChanged, "nominalsOfContinuousStatesChanged")?;
            let values = out_scalar(valuesOfContinuousStatesChanged, "valuesOfContinuousStatesChanged")?;
            let defined = out_scalar(nextEventTimeDefined, "nextEventTimeDefined")?;
            let next = out_scalar(nextEventTime, "nextEventTime")?;
            (*need, *terminate, *nominals, *values, *defined, *next) = (false, false, false, false, false, 0.0);
            match i.slave.event_update() {
                Ok(u) => {
                    *values = u.states_changed;
                    (*defined, *next) = (u.next_time.is_some(), u.next_time.unwrap_or(0.0));
                    Ok(Status::Ok)
                }
                Err(e) => discard_or_error(i, F, e),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3EnterContinuousTimeMode(instance: fmi3Instance) -> fmi3Status {
    unsafe {
        me(instance, "fmi3EnterContinuousTimeMode", Call::EnterContinuousTimeMode, None, |i| {
            i.state = Fmi3State::ContinuousTimeMode;
            Ok(Status::Ok)
        })
    }
}

/// Requests Event Mode when the coordinate partition has become ill-conditioned (a step event).
#[no_mangle]
pub unsafe extern "C" fn fmi3CompletedIntegratorStep(
    instance: fmi3Instance,
    _noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    enterEventMode: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
) -> fmi3Status {
    const F: &str = "fmi3CompletedIntegratorStep";
    unsafe {
        me(instance, F, Call::CompletedIntegratorStep, None, |i| {
            let event = out_scalar(enterEventMode, "enterEventMode")?;
            let terminate = out_scalar(terminateSimulation, "terminateSimulation")?;
            (*event, *terminate) = (false, false);
            match i.slave.completed_integrator_step() {
                Ok(e) => {
                    *event = e;
                    Ok(Status::Ok)
                }
                Err(e) => discard_or_error(i, F, e),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetTime(instance: fmi3Instance, time: fmi3Float64) -> fmi3Status {
    unsafe {
        me(instance, "fmi3SetTime", Call::SetTime, None, |i| {
            i.slave.set_time(time).map_err(|e| e.to_string())?;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *const fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    unsafe {
        me(instance, "fmi3SetContinuousStates", Call::SetContinuousStates, None, |i| {
            let x = input(continuousStates, nContinuousStates, "continuousStates")?;
            i.slave.set_continuous_states(x).map_err(|e| e.to_string())?;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetContinuousStateDerivatives(
    instance: fmi3Instance,
    derivatives: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    const F: &str = "fmi3GetContinuousStateDerivatives";
    unsafe {
        me(instance, F, Call::GetContinuous, None, |i| {
            match i.slave.get_derivatives(output(derivatives, nContinuousStates, "derivatives")?) {
                Ok(()) => Ok(Status::Ok),
                Err(e) => discard_or_error(i, F, e),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetEventIndicators(
    instance: fmi3Instance,
    eventIndicators: *mut fmi3Float64,
    nEventIndicators: usize,
) -> fmi3Status {
    const F: &str = "fmi3GetEventIndicators";
    unsafe {
        me(instance, F, Call::GetContinuous, None, |i| {
            let z = output(eventIndicators, nEventIndicators, "eventIndicators")?;
            let expected = i.slave.event_indicator_count();
            if nEventIndicators != expected {
                return Err(format!("nEventIndicators = {nEventIndicators}, but the model has {expected}"));
            }
            match i.slave.get_event_indicators(z) {
                Ok(()) => Ok(Status::Ok),
                Err(e) => discard_or_error(i, F, e),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    unsafe {
        me(instance, "fmi3GetContinuousStates", Call::GetContinuous, None, |i| {
            let x = output(continuousStates, nContinuousStates, "continuousStates")?;
            i.slave.get_continuous_states(x).map_err(|e| e.to_string())?;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetNominalsOfContinuousStates(
    instance: fmi3Instance,
    nominals: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    unsafe {
        me(instance, "fmi3GetNominalsOfContinuousStates", Call::GetNominals, None, |i| {
            i.slave.nominals(output(nominals, nContinuousStates, "nominals")?).map_err(|e| e.to_string())?;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetNumberOfEventIndicators(
    instance: fmi3Instance,
    nEventIndicators: *mut usize,
) -> fmi3Status {
    unsafe {
        me(instance, "fmi3GetNumberOfEventIndicators", Call::GetNominals, None, |i| {
            *out_scalar(nEventIndicators, "nEventIndicators")? = i.slave.event_indicator_count();
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetNumberOfContinuousStates(
    instance: fmi3Instance,
    nContinuousStates: *mut usize,
) -> fmi3Status {
    unsafe {
        me(instance, "fmi3GetNumberOfContinuousStates", Call::GetNominals, None, |i| {
            *out_scalar(nContinuousStates, "nContinuousStates")? = i.slave.continuous_state_count();
            Ok(Status::Ok)
        })
    }
}

/// Step Mode is entered by fmi3ExitInitializationMode; fmi3EnterStepMode leaves the Event
/// Mode of co-simulation, which this FMU does not have.
#[no_mangle]
pub unsafe extern "C" fn fmi3EnterStepMode(instance: fmi3Instance) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3EnterStepMode", NO_EVENT_MODE) }
}

// ---- Compile-time check of every signature against fmi3FunctionTypes.h ---------------------

const _: fmi3EnterEventModeTYPE = Some(fmi3EnterEventMode);
const _: fmi3UpdateDiscreteStatesTYPE = Some(fmi3UpdateDiscreteStates);
const _: fmi3EnterContinuousTimeModeTYPE = Some(fmi3EnterContinuousTimeMode);
const _: fmi3CompletedIntegratorStepTYPE = Some(fmi3CompletedIntegratorStep);
const _: fmi3SetTimeTYPE = Some(fmi3SetTime);
const _: fmi3SetContinuousStatesTYPE = Some(fmi3SetContinuousStates);
const _: fmi3GetContinuousStateDerivativesTYPE = Some(fmi3GetContinuousStateDerivatives);
const _: fmi3GetEventIndicatorsTYPE = Some(fmi3GetEventIndicators);
const _: fmi3GetContinuousStatesTYPE = Some(fmi3GetContinuousStates);
const _: fmi3GetNominalsOfContinuousStatesTYPE = Some(fmi3GetNominalsOfContinuousStates);
const _: fmi3GetNumberOfEventIndicatorsTYPE = Some(fmi3GetNumberOfEventIndicators);
const _: fmi3GetNumberOfContinuousStatesTYPE = Some(fmi3GetNumberOfContinuousStates);
const _: fmi3EnterStepModeTYPE = Some(fmi3EnterStepMode);
