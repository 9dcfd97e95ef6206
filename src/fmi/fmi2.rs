//! The FMI 2.0 functions (common, co-simulation and model exchange: all 44, because
//! importers resolve every symbol; docs/fmi.md#what-importers-demand). Every signature is
//! checked against fmi-sys's header typedefs at the end of this file.

use super::instance::{guard, run, Instance, Outcome, MODEL_EXCHANGE};
use super::logging::{Logger, Status};
use super::state::{Call, Fmi2State};
use super::values::{input, out_scalar, output, to_i32};
use super::{c_strings, model_for_token, opt_string, uri};
use crate::slave::SlaveError;
use fmi_sys::fmi2::*;
use mbfmu_model::variables::VarType;
use std::ptr::null_mut;

pub(crate) type I2 = Instance<Fmi2State>;

/// Runs `op` behind the firewall (see [`run`]).
pub(crate) unsafe fn with(
    c: fmi2Component,
    function: &'static str,
    call: Call,
    op: impl FnOnce(&mut I2) -> Outcome,
) -> fmi2Status {
    unsafe { run::<Fmi2State>(c, function, call, op) }
}

// ---- Inquire platform and version ----------------------------------------------------------

#[no_mangle]
pub extern "C" fn fmi2GetTypesPlatform() -> *const std::ffi::c_char {
    c"default".as_ptr()
}

#[no_mangle]
pub extern "C" fn fmi2GetVersion() -> *const std::ffi::c_char {
    c"2.0".as_ptr()
}

// ---- Creation, destruction, logging --------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn fmi2Instantiate(
    instanceName: fmi2String,
    fmuType: fmi2Type,
    fmuGUID: fmi2String,
    fmuResourceLocation: fmi2String,
    functions: *const fmi2CallbackFunctions,
    _visible: fmi2Boolean,
    loggingOn: fmi2Boolean,
) -> fmi2Component {
    guard(null_mut(), || unsafe {
        // The callbacks are optional here: without them the FMU simply cannot log.
        let callbacks = if !functions.is_null() && functions.is_aligned() { Some(*functions) } else { None };
        let (logger, env) = callbacks.map_or((None, null_mut()), |f| (f.logger, f.componentEnvironment));
        let name = opt_string(instanceName).unwrap_or_default();
        let log = Logger::fmi2(logger, env, &name, loggingOn != 0);
        let refuse = |reason: String| {
            log.emit(Status::Error, "logStatusError", &format!("fmi2Instantiate: {reason}"));
            null_mut()
        };
        if name.trim().is_empty() {
            return refuse("instanceName is NULL or empty (FMI 2.0.4 Sect. 2.1.5)".into());
        }
        if fmuType != fmi2Type_fmi2CoSimulation && fmuType != fmi2Type_fmi2ModelExchange {
            return refuse(format!("fmuType {fmuType} is neither fmi2ModelExchange nor fmi2CoSimulation"));
        }
        let Some(guid) = opt_string(fmuGUID) else {
            return refuse("fmuGUID is NULL".into());
        };
        let resources = opt_string(fmuResourceLocation).and_then(|s| uri::resource_dir(&s));
        let model = match model_for_token(&guid, resources.as_deref()) {
            Ok(m) => m,
            Err(e) => return refuse(e),
        };
        if fmuType == fmi2Type_fmi2ModelExchange {
            if !model.description.solver.formulation.model_exchange() {
                return refuse(format!("fmuType fmi2ModelExchange is not supported: {MODEL_EXCHANGE}"));
            }
            return match I2::new_model_exchange(model, log, resources) {
                Ok(i) => i.into_handle(),
                Err((log, e)) => {
                    log.emit(Status::Error, "logStatusError", &format!("fmi2Instantiate: {e}"));
                    null_mut()
                }
            };
        }
        I2::new(model, log, resources).into_handle()
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2FreeInstance(c: fmi2Component) {
    guard((), || unsafe { I2::free(c) })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetDebugLogging(
    c: fmi2Component,
    loggingOn: fmi2Boolean,
    nCategories: usize,
    categories: *const fmi2String,
) -> fmi2Status {
    unsafe {
        with(c, "fmi2SetDebugLogging", Call::SetDebugLogging, |i| {
            let names = c_strings(categories, nCategories, "categories")?;
            i.log.set_debug_logging(loggingOn != 0, &names)?;
            Ok(Status::Ok)
        })
    }
}

// ---- Initialization, termination, reset ----------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn fmi2SetupExperiment(
    c: fmi2Component,
    _toleranceDefined: fmi2Boolean,
    _tolerance: fmi2Real,
    startTime: fmi2Real,
    stopTimeDefined: fmi2Boolean,
    stopTime: fmi2Real,
) -> fmi2Status {
    // The tolerance is accepted and ignored: the internal solver has its own parameters.
    unsafe {
        with(c, "fmi2SetupExperiment", Call::SetupExperiment, |i| {
            let stop = (stopTimeDefined != 0).then_some(stopTime);
            i.slave.setup_experiment(startTime, stop).map_err(|e| e.to_string())?;
            i.last_successful_time = i.slave.time();
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2EnterInitializationMode(c: fmi2Component) -> fmi2Status {
    unsafe {
        with(c, "fmi2EnterInitializationMode", Call::EnterInitializationMode, |i| {
            i.slave.enter_initialization().map_err(|e| e.to_string())?;
            i.state = Fmi2State::InitializationMode;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2ExitInitializationMode(c: fmi2Component) -> fmi2Status {
    unsafe {
        with(c, "fmi2ExitInitializationMode", Call::ExitInitializationMode, |i| {
            i.slave.exit_initialization().map_err(|e| e.to_string())?;
            i.state = if i.slave.is_model_exchange() { Fmi2State::EventMode } else { Fmi2State::StepComplete };
            i.last_successful_time = i.slave.time();
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2Terminate(c: fmi2Component) -> fmi2Status {
    unsafe {
        with(c, "fmi2Terminate", Call::Terminate, |i| {
            i.slave.terminate().map_err(|e| e.to_string())?;
            i.state = Fmi2State::Terminated;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2Reset(c: fmi2Component) -> fmi2Status {
    unsafe {
        with(c, "fmi2Reset", Call::Reset, |i| {
            i.slave.reset();
            i.state = Fmi2State::Instantiated;
            i.last_successful_time = i.slave.time();
            Ok(Status::Ok)
        })
    }
}

// ---- Getting and setting variable values ---------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn fmi2GetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Real,
) -> fmi2Status {
    const F: &str = "fmi2GetReal";
    unsafe {
        with(c, F, Call::Get, |i| {
            i.read(F, input(vr, nvr, "vr")?, output(value, nvr, "value")?, &[VarType::Real], Some)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Integer,
) -> fmi2Status {
    const F: &str = "fmi2GetInteger";
    const TYPES: &[VarType] = &[VarType::Integer, VarType::Enumeration];
    unsafe { with(c, F, Call::Get, |i| i.read(F, input(vr, nvr, "vr")?, output(value, nvr, "value")?, TYPES, to_i32)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    const F: &str = "fmi2GetBoolean";
    unsafe {
        with(c, F, Call::Get, |i| {
            output(value, nvr, "value")?;
            i.no_variables_of_this_type(F, input(vr, nvr, "vr")?)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2String,
) -> fmi2Status {
    const F: &str = "fmi2GetString";
    unsafe {
        with(c, F, Call::Get, |i| {
            output(value, nvr, "value")?;
            i.no_variables_of_this_type(F, input(vr, nvr, "vr")?)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Real,
) -> fmi2Status {
    const F: &str = "fmi2SetReal";
    unsafe {
        with(c, F, Call::Set, |i| {
            i.write(F, input(vr, nvr, "vr")?, input(value, nvr, "value")?, &[VarType::Real], |x| x)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Integer,
) -> fmi2Status {
    const F: &str = "fmi2SetInteger";
    const TYPES: &[VarType] = &[VarType::Integer, VarType::Enumeration];
    unsafe {
        with(c, F, Call::Set, |i| i.write(F, input(vr, nvr, "vr")?, input(value, nvr, "value")?, TYPES, f64::from))
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Boolean,
) -> fmi2Status {
    const F: &str = "fmi2SetBoolean";
    unsafe {
        with(c, F, Call::Set, |i| {
            input(value, nvr, "value")?;
            i.no_variables_of_this_type(F, input(vr, nvr, "vr")?)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2String,
) -> fmi2Status {
    const F: &str = "fmi2SetString";
    unsafe {
        with(c, F, Call::Set, |i| {
            input(value, nvr, "value")?;
            i.no_variables_of_this_type(F, input(vr, nvr, "vr")?)
        })
    }
}

// ---- FMU state -----------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn fmi2GetFMUstate(c: fmi2Component, FMUstate: *mut fmi2FMUstate) -> fmi2Status {
    unsafe { with(c, "fmi2GetFMUstate", Call::FmuState, |i| i.get_fmu_state(FMUstate)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetFMUstate(c: fmi2Component, FMUstate: fmi2FMUstate) -> fmi2Status {
    unsafe { with(c, "fmi2SetFMUstate", Call::FmuState, |i| i.set_fmu_state(FMUstate)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2FreeFMUstate(c: fmi2Component, FMUstate: *mut fmi2FMUstate) -> fmi2Status {
    unsafe { with(c, "fmi2FreeFMUstate", Call::FmuState, |i| i.free_fmu_state(FMUstate)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SerializedFMUstateSize(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    size: *mut usize,
) -> fmi2Status {
    unsafe { with(c, "fmi2SerializedFMUstateSize", Call::FmuState, |i| i.serialized_size(FMUstate, size)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SerializeFMUstate(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    serializedState: *mut fmi2Byte,
    size: usize,
) -> fmi2Status {
    unsafe { with(c, "fmi2SerializeFMUstate", Call::FmuState, |i| i.serialize(FMUstate, serializedState.cast(), size)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2DeSerializeFMUstate(
    c: fmi2Component,
    serializedState: *const fmi2Byte,
    size: usize,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    unsafe {
        with(c, "fmi2DeSerializeFMUstate", Call::FmuState, |i| i.deserialize(serializedState.cast(), size, FMUstate))
    }
}

// ---- Co-simulation -------------------------------------------------------------------------

/// Sect. 4.2.2: the step must be > 0 and start at the FMU's time; a Newton failure, a
/// non-finite value or a step that needs more than `solver.maxStepsPerCall` internal steps
/// ends it with Discard at the last successful internal step (stepFailed).
#[no_mangle]
pub unsafe extern "C" fn fmi2DoStep(
    c: fmi2Component,
    currentCommunicationPoint: fmi2Real,
    communicationStepSize: fmi2Real,
    _noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
) -> fmi2Status {
    let (t, h) = (currentCommunicationPoint, communicationStepSize);
    unsafe {
        with(c, "fmi2DoStep", Call::DoStep, |i| {
            if !(h.is_finite() && h > 0.0) {
                return Err(format!("communicationStepSize {h} must be a finite number > 0 (FMI 2.0.4 Sect. 4.2.2)"));
            }
            let counters = i.solver_counters();
            match i.slave.do_step(t, h) {
                Ok(()) => {
                    i.log_solver_work("fmi2DoStep", t, counters);
                    i.last_successful_time = i.slave.time();
                    Ok(Status::Ok)
                }
                Err(SlaveError::Step { error, reached }) => {
                    i.last_successful_time = reached;
                    i.state = Fmi2State::StepFailed;
                    i.report(
                        Status::Discard,
                        &format!(
                            "fmi2DoStep: the step from {t} to {} was discarded at {reached}: {error}; \
                             fmi2GetRealStatus(fmi2LastSuccessfulTime) gives {reached}, \
                             fmi2SetFMUstate or fmi2Reset continue",
                            t + h
                        ),
                    );
                    Ok(Status::Discard)
                }
                // Sect. 4.2.2: "fmi2Discard - if the slave computed successfully only a
                // subinterval of the communication step"; the state is that of `reached`.
                Err(e @ SlaveError::StepBudget { reached, .. }) => {
                    i.log_solver_work("fmi2DoStep", t, counters);
                    i.last_successful_time = reached;
                    i.state = Fmi2State::StepFailed;
                    i.report(
                        Status::Discard,
                        &format!(
                            "fmi2DoStep: the step from {t} to {} was discarded at {reached}: {e}; \
                             fmi2GetRealStatus(fmi2LastSuccessfulTime) gives {reached} and the FMU state is \
                             the one at {reached} (fmi2GetFMUstate and fmi2SetFMUstate continue from there; \
                             fmi2SetFMUstate of an earlier state or fmi2Reset also continue)",
                            t + h
                        ),
                    );
                    Ok(Status::Discard)
                }
                Err(e) => Err(e.to_string()),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2CancelStep(c: fmi2Component) -> fmi2Status {
    unsafe {
        with(c, "fmi2CancelStep", Call::Unsupported, |i| {
            // FMI 2.0.4 Sect. 4.2.2 and the table of Sect. 4.2.4: only in state stepInProgress,
            // after fmi2DoStep returned fmi2Pending, which this synchronous FMU
            // (canRunAsynchronuously="false") never does; a call elsewhere is an Error.
            Err(format!(
                "not allowed in state {}: it cancels a step after fmi2DoStep returned fmi2Pending \
                 (FMI 2.0.4 Sect. 4.2.2, 4.2.4), but fmi2DoStep is synchronous (canRunAsynchronuously=\"false\"): \
                 no step is ever in progress",
                i.state
            ))
        })
    }
}

/// Status kinds this FMU cannot answer give Discard (Sect. 4.2.3: "fmi2Discard is
/// returned also if the slave is not able to return the required status information").
fn no_status(i: &I2, function: &str, kind: fmi2StatusKind) -> Outcome {
    let what = match kind {
        fmi2StatusKind_fmi2DoStepStatus | fmi2StatusKind_fmi2PendingStatus => {
            "only available after fmi2DoStep returned fmi2Pending, which this FMU never does"
        }
        fmi2StatusKind_fmi2LastSuccessfulTime => "fmi2LastSuccessfulTime is a Real status (fmi2GetRealStatus)",
        fmi2StatusKind_fmi2Terminated => "fmi2Terminated is a Boolean status (fmi2GetBooleanStatus)",
        other => return Err(format!("{other} is not an fmi2StatusKind")),
    };
    i.report(Status::Discard, &format!("{function}: status kind {kind}: {what}"));
    Ok(Status::Discard)
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetStatus(c: fmi2Component, s: fmi2StatusKind, value: *mut fmi2Status) -> fmi2Status {
    const F: &str = "fmi2GetStatus";
    unsafe {
        with(c, F, Call::GetStatus, |i| {
            out_scalar(value, "value")?;
            no_status(i, F, s)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealStatus(c: fmi2Component, s: fmi2StatusKind, value: *mut fmi2Real) -> fmi2Status {
    const F: &str = "fmi2GetRealStatus";
    unsafe {
        with(c, F, Call::GetStatus, |i| {
            let value = out_scalar(value, "value")?;
            if s == fmi2StatusKind_fmi2LastSuccessfulTime {
                *value = i.last_successful_time;
                return Ok(Status::Ok);
            }
            no_status(i, F, s)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetIntegerStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Integer,
) -> fmi2Status {
    const F: &str = "fmi2GetIntegerStatus";
    unsafe {
        with(c, F, Call::GetStatus, |i| {
            out_scalar(value, "value")?;
            no_status(i, F, s)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetBooleanStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    const F: &str = "fmi2GetBooleanStatus";
    unsafe {
        with(c, F, Call::GetStatus, |i| {
            let value = out_scalar(value, "value")?;
            if s == fmi2StatusKind_fmi2Terminated {
                // The FMU never asks to end the simulation early.
                *value = 0;
                return Ok(Status::Ok);
            }
            no_status(i, F, s)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetStringStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2String,
) -> fmi2Status {
    const F: &str = "fmi2GetStringStatus";
    unsafe {
        with(c, F, Call::GetStatus, |i| {
            out_scalar(value, "value")?;
            no_status(i, F, s)
        })
    }
}

// ---- Compile-time check of every signature against fmi2FunctionTypes.h ---------------------

const _: fmi2GetTypesPlatformTYPE = Some(fmi2GetTypesPlatform);
const _: fmi2GetVersionTYPE = Some(fmi2GetVersion);
const _: fmi2SetDebugLoggingTYPE = Some(fmi2SetDebugLogging);
const _: fmi2InstantiateTYPE = Some(fmi2Instantiate);
const _: fmi2FreeInstanceTYPE = Some(fmi2FreeInstance);
const _: fmi2SetupExperimentTYPE = Some(fmi2SetupExperiment);
const _: fmi2EnterInitializationModeTYPE = Some(fmi2EnterInitializationMode);
const _: fmi2ExitInitializationModeTYPE = Some(fmi2ExitInitializationMode);
const _: fmi2TerminateTYPE = Some(fmi2Terminate);
const _: fmi2ResetTYPE = Some(fmi2Reset);
const _: fmi2GetRealTYPE = Some(fmi2GetReal);
const _: fmi2GetIntegerTYPE = Some(fmi2GetInteger);
const _: fmi2GetBooleanTYPE = Some(fmi2GetBoolean);
const _: fmi2GetStringTYPE = Some(fmi2GetString);
const _: fmi2SetRealTYPE = Some(fmi2SetReal);
const _: fmi2SetIntegerTYPE = Some(fmi2SetInteger);
const _: fmi2SetBooleanTYPE = Some(fmi2SetBoolean);
const _: fmi2SetStringTYPE = Some(fmi2SetString);
const _: fmi2GetFMUstateTYPE = Some(fmi2GetFMUstate);
const _: fmi2SetFMUstateTYPE = Some(fmi2SetFMUstate);
const _: fmi2FreeFMUstateTYPE = Some(fmi2FreeFMUstate);
const _: fmi2SerializedFMUstateSizeTYPE = Some(fmi2SerializedFMUstateSize);
const _: fmi2SerializeFMUstateTYPE = Some(fmi2SerializeFMUstate);
const _: fmi2DeSerializeFMUstateTYPE = Some(fmi2DeSerializeFMUstate);
const _: fmi2DoStepTYPE = Some(fmi2DoStep);
const _: fmi2CancelStepTYPE = Some(fmi2CancelStep);
const _: fmi2GetStatusTYPE = Some(fmi2GetStatus);
const _: fmi2GetRealStatusTYPE = Some(fmi2GetRealStatus);
const _: fmi2GetIntegerStatusTYPE = Some(fmi2GetIntegerStatus);
const _: fmi2GetBooleanStatusTYPE = Some(fmi2GetBooleanStatus);
const _: fmi2GetStringStatusTYPE = Some(fmi2GetStringStatus);
