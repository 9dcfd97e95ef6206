//! The FMI 2.0 model-exchange functions. This FMU provides co-simulation only, but importers
//! resolve every symbol (shared/reference/importers.md), so they exist, log why and return
//! Error.

use super::fmi2::{unsupported, MODEL_EXCHANGE};
use fmi_sys::fmi2::*;

#[no_mangle]
pub unsafe extern "C" fn fmi2EnterEventMode(c: fmi2Component) -> fmi2Status {
    unsafe { unsupported(c, "fmi2EnterEventMode", MODEL_EXCHANGE) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2NewDiscreteStates(c: fmi2Component, _fmi2eventInfo: *mut fmi2EventInfo) -> fmi2Status {
    unsafe { unsupported(c, "fmi2NewDiscreteStates", MODEL_EXCHANGE) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2EnterContinuousTimeMode(c: fmi2Component) -> fmi2Status {
    unsafe { unsupported(c, "fmi2EnterContinuousTimeMode", MODEL_EXCHANGE) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2CompletedIntegratorStep(
    c: fmi2Component,
    _noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
    _enterEventMode: *mut fmi2Boolean,
    _terminateSimulation: *mut fmi2Boolean,
) -> fmi2Status {
    unsafe { unsupported(c, "fmi2CompletedIntegratorStep", MODEL_EXCHANGE) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetTime(c: fmi2Component, _time: fmi2Real) -> fmi2Status {
    unsafe { unsupported(c, "fmi2SetTime", MODEL_EXCHANGE) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetContinuousStates(c: fmi2Component, _x: *const fmi2Real, _nx: usize) -> fmi2Status {
    unsafe { unsupported(c, "fmi2SetContinuousStates", MODEL_EXCHANGE) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetDerivatives(c: fmi2Component, _derivatives: *mut fmi2Real, _nx: usize) -> fmi2Status {
    unsafe { unsupported(c, "fmi2GetDerivatives", MODEL_EXCHANGE) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetEventIndicators(
    c: fmi2Component,
    _eventIndicators: *mut fmi2Real,
    _ni: usize,
) -> fmi2Status {
    unsafe { unsupported(c, "fmi2GetEventIndicators", MODEL_EXCHANGE) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetContinuousStates(c: fmi2Component, _x: *mut fmi2Real, _nx: usize) -> fmi2Status {
    unsafe { unsupported(c, "fmi2GetContinuousStates", MODEL_EXCHANGE) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetNominalsOfContinuousStates(
    c: fmi2Component,
    _x_nominal: *mut fmi2Real,
    _nx: usize,
) -> fmi2Status {
    unsafe { unsupported(c, "fmi2GetNominalsOfContinuousStates", MODEL_EXCHANGE) }
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
