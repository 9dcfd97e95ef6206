//! The FMI 3.0 functions this FMU implements: instantiation, initialization, termination,
//! Float64 / Int32 / Int64 (enumerations) / Boolean / String access, FMU states and doStep.
//! The rest of the 75 functions are in [`super::fmi3_unsupported`]. Every signature is checked
//! against fmi-sys's header typedefs at the end of the file.

use super::instance::{guard, run, Instance, Outcome, MODEL_EXCHANGE};
use super::intermediate::{conclude_step, continue_step, IntermediateUpdate, StepOutputs};
use super::logging::{Logger, Status};
use super::state::{Call, Fmi3State};
use super::values::{input, out_scalar, output, to_i32, to_i64};
use super::{c_strings, model_for_token, opt_string, uri};
use fmi_sys::fmi3::*;
use mbfmu_model::variables::VarType;
use std::ptr::null_mut;

pub(crate) type I3 = Instance<Fmi3State>;

/// Runs `op` behind the firewall (see [`run`]).
pub(crate) unsafe fn with(
    c: fmi3Instance,
    function: &'static str,
    call: Call,
    op: impl FnOnce(&mut I3) -> Outcome,
) -> fmi3Status {
    unsafe { run::<Fmi3State>(c, function, call, op) }
}

/// All variables are scalars: one value per value reference (Sect. 2.2.6.2).
pub(crate) fn check_counts(n_vr: usize, n_values: usize) -> Result<(), String> {
    if n_vr == n_values {
        Ok(())
    } else {
        Err(format!("nValues = {n_values} but nValueReferences = {n_vr}; every variable of this FMU is a scalar"))
    }
}

#[no_mangle]
pub extern "C" fn fmi3GetVersion() -> *const std::ffi::c_char {
    c"3.0".as_ptr()
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetDebugLogging(
    instance: fmi3Instance,
    loggingOn: fmi3Boolean,
    nCategories: usize,
    categories: *const fmi3String,
) -> fmi3Status {
    unsafe {
        with(instance, "fmi3SetDebugLogging", Call::SetDebugLogging, |i| {
            let names = c_strings(categories, nCategories, "categories")?;
            i.log.set_debug_logging(loggingOn, &names)?;
            Ok(Status::Ok)
        })
    }
}

// ---- Instantiation -------------------------------------------------------------------------

/// Logs why an instantiation function returns NULL (Sect. 2.3.1 asks for the reason even
/// without logging switched on).
fn refuse(log: &Logger, function: &str, reason: &str) -> fmi3Instance {
    log.emit(Status::Error, "logStatusError", &format!("{function}: {reason}"));
    null_mut()
}

/// Sect. 3.2: for models in the state-space formulation (the ones with a `<ModelExchange>`
/// element).
#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateModelExchange(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    _visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
) -> fmi3Instance {
    const F: &str = "fmi3InstantiateModelExchange";
    guard(null_mut(), || unsafe {
        let name = opt_string(instanceName).unwrap_or_default();
        let log = Logger::fmi3(logMessage, instanceEnvironment, &name, loggingOn);
        if name.trim().is_empty() {
            return refuse(&log, F, "instanceName is NULL or empty (FMI 3.0 Sect. 2.3.1)");
        }
        let Some(token) = opt_string(instantiationToken) else {
            return refuse(&log, F, "instantiationToken is NULL");
        };
        let resources = opt_string(resourcePath).and_then(|s| uri::resource_dir(&s));
        let model = match model_for_token(&token, resources.as_deref()) {
            Ok(m) => m,
            Err(e) => return refuse(&log, F, &e),
        };
        if !model.description.solver.formulation.model_exchange() {
            return refuse(&log, F, MODEL_EXCHANGE);
        }
        match I3::new_model_exchange(model, log, resources) {
            Ok(i) => i.into_handle(),
            Err((log, e)) => refuse(&log, F, &e),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateScheduledExecution(
    instanceName: fmi3String,
    _instantiationToken: fmi3String,
    _resourcePath: fmi3String,
    _visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    _clockUpdate: fmi3ClockUpdateCallback,
    _lockPreemption: fmi3LockPreemptionCallback,
    _unlockPreemption: fmi3UnlockPreemptionCallback,
) -> fmi3Instance {
    guard(null_mut(), || unsafe {
        let log =
            Logger::fmi3(logMessage, instanceEnvironment, &opt_string(instanceName).unwrap_or_default(), loggingOn);
        refuse(
            &log,
            "fmi3InstantiateScheduledExecution",
            "this FMU provides co-simulation only (no <ScheduledExecution> element)",
        )
    })
}

/// Sect. 2.3.1 and 4.2: event mode is not offered (hasEventMode="false"), early return is
/// used only when a step needs more than `solver.maxStepsPerCall` internal steps (and then
/// only if `earlyReturnAllowed`), intermediate update is provided with a callback, for the
/// continuous inputs and outputs ([`super::intermediate`]).
#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    _visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    eventModeUsed: fmi3Boolean,
    earlyReturnAllowed: fmi3Boolean,
    requiredIntermediateVariables: *const fmi3ValueReference,
    nRequiredIntermediateVariables: usize,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    intermediateUpdate: fmi3IntermediateUpdateCallback,
) -> fmi3Instance {
    const F: &str = "fmi3InstantiateCoSimulation";
    guard(null_mut(), || unsafe {
        let name = opt_string(instanceName).unwrap_or_default();
        let log = Logger::fmi3(logMessage, instanceEnvironment, &name, loggingOn);
        if name.trim().is_empty() {
            return refuse(&log, F, "instanceName is NULL or empty (FMI 3.0 Sect. 2.3.1)");
        }
        if eventModeUsed {
            return refuse(&log, F, "eventModeUsed = true, but this FMU has no event mode (hasEventMode=\"false\")");
        }
        let Some(token) = opt_string(instantiationToken) else {
            return refuse(&log, F, "instantiationToken is NULL");
        };
        let resources = opt_string(resourcePath).and_then(|s| uri::resource_dir(&s));
        let model = match model_for_token(&token, resources.as_deref()) {
            Ok(m) => m,
            Err(e) => return refuse(&log, F, &e),
        };
        let required =
            match input(requiredIntermediateVariables, nRequiredIntermediateVariables, "requiredIntermediateVariables")
            {
                Ok(r) => r,
                Err(e) => return refuse(&log, F, &e),
            };
        let intermediate =
            match IntermediateUpdate::of_instantiation(&model, intermediateUpdate, instanceEnvironment, required) {
                Ok(u) => u,
                Err(e) => return refuse(&log, F, &e),
            };
        let mut instance = I3::new(model, log, resources);
        instance.early_return_allowed = earlyReturnAllowed;
        instance.intermediate = intermediate;
        instance.into_handle()
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi3FreeInstance(instance: fmi3Instance) {
    guard((), || unsafe { I3::free(instance) })
}

// ---- Initialization, termination, reset ----------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn fmi3EnterInitializationMode(
    instance: fmi3Instance,
    _toleranceDefined: fmi3Boolean,
    _tolerance: fmi3Float64,
    startTime: fmi3Float64,
    stopTimeDefined: fmi3Boolean,
    stopTime: fmi3Float64,
) -> fmi3Status {
    // The tolerance may be ignored by a co-simulation FMU (Sect. 2.3.2).
    unsafe {
        with(instance, "fmi3EnterInitializationMode", Call::EnterInitializationMode, |i| {
            i.slave.setup_experiment(startTime, stopTimeDefined.then_some(stopTime)).map_err(|e| e.to_string())?;
            i.slave.enter_initialization().map_err(|e| e.to_string())?;
            i.state = Fmi3State::InitializationMode;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3ExitInitializationMode(instance: fmi3Instance) -> fmi3Status {
    unsafe {
        with(instance, "fmi3ExitInitializationMode", Call::ExitInitializationMode, |i| {
            i.slave.exit_initialization().map_err(|e| e.to_string())?;
            i.state = if i.slave.is_model_exchange() { Fmi3State::EventMode } else { Fmi3State::StepMode };
            i.last_successful_time = i.slave.time();
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3Terminate(instance: fmi3Instance) -> fmi3Status {
    unsafe {
        with(instance, "fmi3Terminate", Call::Terminate, |i| {
            i.slave.terminate().map_err(|e| e.to_string())?;
            i.state = Fmi3State::Terminated;
            Ok(Status::Ok)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3Reset(instance: fmi3Instance) -> fmi3Status {
    unsafe {
        with(instance, "fmi3Reset", Call::Reset, |i| {
            i.slave.reset();
            i.state = Fmi3State::Instantiated;
            i.last_successful_time = i.slave.time();
            Ok(Status::Ok)
        })
    }
}

// ---- Getting and setting variable values ---------------------------------------------------

/// A getter of one C type for the given variable types.
macro_rules! getter {
    ($name:ident, $ty:ty, $types:expr, $convert:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            instance: fmi3Instance,
            valueReferences: *const fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $ty,
            nValues: usize,
        ) -> fmi3Status {
            const F: &str = stringify!($name);
            unsafe {
                with(instance, F, Call::Get, |i| {
                    check_counts(nValueReferences, nValues)?;
                    let vrs = input(valueReferences, nValueReferences, "valueReferences")?;
                    i.check_intermediate_access(F, vrs, false)?;
                    i.read(F, vrs, output(values, nValues, "values")?, $types, $convert)
                })
            }
        }
    };
}

/// A setter of one C type for the given variable types.
macro_rules! setter {
    ($name:ident, $ty:ty, $types:expr, $convert:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            instance: fmi3Instance,
            valueReferences: *const fmi3ValueReference,
            nValueReferences: usize,
            values: *const $ty,
            nValues: usize,
        ) -> fmi3Status {
            const F: &str = stringify!($name);
            unsafe {
                with(instance, F, Call::Set, |i| {
                    check_counts(nValueReferences, nValues)?;
                    let vrs = input(valueReferences, nValueReferences, "valueReferences")?;
                    i.check_intermediate_access(F, vrs, true)?;
                    i.write(F, vrs, input(values, nValues, "values")?, $types, $convert)
                })
            }
        }
    };
}

/// An accessor of a C type that no variable of this FMU has.
macro_rules! no_variables {
    ($name:ident, $ptr:ty, $call:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            instance: fmi3Instance,
            valueReferences: *const fmi3ValueReference,
            nValueReferences: usize,
            values: $ptr,
            nValues: usize,
        ) -> fmi3Status {
            const F: &str = stringify!($name);
            unsafe {
                with(instance, F, $call, |i| {
                    check_counts(nValueReferences, nValues)?;
                    if nValues > 0 && values.is_null() {
                        return Err("argument values is NULL".into());
                    }
                    i.no_variables_of_this_type(F, input(valueReferences, nValueReferences, "valueReferences")?)
                })
            }
        }
    };
}
pub(crate) use no_variables;

getter!(fmi3GetFloat64, fmi3Float64, &[VarType::Real], Some);
getter!(fmi3GetInt32, fmi3Int32, &[VarType::Integer], to_i32);
// Sect. 2.4.7.6: enumerations are accessed with the Int64 functions.
getter!(fmi3GetInt64, fmi3Int64, &[VarType::Enumeration], to_i64);
setter!(fmi3SetFloat64, fmi3Float64, &[VarType::Real], |x| x);
setter!(fmi3SetInt32, fmi3Int32, &[VarType::Integer], f64::from);
// Values beyond 2^53 cannot be enumeration items here; the slave rejects them.
setter!(fmi3SetInt64, fmi3Int64, &[VarType::Enumeration], |x: i64| x as f64);
no_variables!(fmi3GetBoolean, *mut fmi3Boolean, Call::Get);
no_variables!(fmi3GetString, *mut fmi3String, Call::Get);
// The values are never read (no variable of these types), so no byte is taken for a bool.
no_variables!(fmi3SetBoolean, *const fmi3Boolean, Call::Set);
no_variables!(fmi3SetString, *const fmi3String, Call::Set);

// ---- FMU state -----------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn fmi3GetFMUState(instance: fmi3Instance, FMUState: *mut fmi3FMUState) -> fmi3Status {
    unsafe { with(instance, "fmi3GetFMUState", Call::FmuState, |i| i.get_fmu_state(FMUState)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetFMUState(instance: fmi3Instance, FMUState: fmi3FMUState) -> fmi3Status {
    unsafe { with(instance, "fmi3SetFMUState", Call::FmuState, |i| i.set_fmu_state(FMUState)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3FreeFMUState(instance: fmi3Instance, FMUState: *mut fmi3FMUState) -> fmi3Status {
    unsafe { with(instance, "fmi3FreeFMUState", Call::FmuState, |i| i.free_fmu_state(FMUState)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    size: *mut usize,
) -> fmi3Status {
    unsafe { with(instance, "fmi3SerializedFMUStateSize", Call::FmuState, |i| i.serialized_size(FMUState, size)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SerializeFMUState(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    serializedState: *mut fmi3Byte,
    size: usize,
) -> fmi3Status {
    unsafe { with(instance, "fmi3SerializeFMUState", Call::FmuState, |i| i.serialize(FMUState, serializedState, size)) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3DeserializeFMUState(
    instance: fmi3Instance,
    serializedState: *const fmi3Byte,
    size: usize,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    unsafe {
        with(instance, "fmi3DeserializeFMUState", Call::FmuState, |i| i.deserialize(serializedState, size, FMUState))
    }
}

// ---- Stepping ------------------------------------------------------------------------------

/// Sect. 4.2.1: the step must be > 0 and start at the FMU's time. A Newton failure or a
/// non-finite value ends it with Discard, and Discard means "the FMU is in the same state as
/// before the call" (Sect. 2.2.3, and 4.2.1 on earlyReturn), so the state before the step is
/// restored and `lastSuccessfulTime` is the communication point. A step that needs more than
/// `solver.maxStepsPerCall` internal steps returns early at the last internal step if the
/// importer allowed early return, else it is discarded in the same way
/// ([`conclude_step`]). With an intermediate-update callback the step calls back after each
/// internal step ([`super::intermediate`]). The FMU never requests event handling or
/// termination.
#[no_mangle]
pub unsafe extern "C" fn fmi3DoStep(
    instance: fmi3Instance,
    currentCommunicationPoint: fmi3Float64,
    communicationStepSize: fmi3Float64,
    _noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    eventHandlingNeeded: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    earlyReturn: *mut fmi3Boolean,
    lastSuccessfulTime: *mut fmi3Float64,
) -> fmi3Status {
    let (t, h) = (currentCommunicationPoint, communicationStepSize);
    let outputs = StepOutputs { early_return: earlyReturn, last_successful_time: lastSuccessfulTime };
    let mut pending = None;
    let mut counters = (0, 0);
    let status = unsafe {
        with(instance, "fmi3DoStep", Call::DoStep, |i| {
            let event = out_scalar(eventHandlingNeeded, "eventHandlingNeeded")?;
            let terminate = out_scalar(terminateSimulation, "terminateSimulation")?;
            let early = out_scalar(earlyReturn, "earlyReturn")?;
            let last = out_scalar(lastSuccessfulTime, "lastSuccessfulTime")?;
            (*event, *terminate, *early, *last) = (false, false, false, i.slave.time());
            if !(h.is_finite() && h > 0.0) {
                return Err(format!("communicationStepSize {h} must be a finite number > 0 (FMI 3.0 Sect. 4.2.1)"));
            }
            // The state to return to on Discard, copied into preallocated storage.
            i.slave.checkpoint();
            counters = i.solver_counters();
            if i.intermediate.is_none() {
                let result = i.slave.do_step(t, h);
                return conclude_step(i, t, h, counters, result, outputs);
            }
            match i.slave.begin_step(t, h) {
                Ok(Some(step)) => {
                    pending = Some(step);
                    Ok(Status::Ok)
                }
                Ok(None) => conclude_step(i, t, h, counters, Ok(()), outputs),
                Err(e) => conclude_step(i, t, h, counters, Err(e), outputs),
            }
        })
    };
    match pending {
        Some(step) if status == Status::Ok.code() => unsafe { continue_step(instance, step, t, counters, outputs) },
        _ => status,
    }
}

// ---- Compile-time check of every signature against fmi3FunctionTypes.h ---------------------

const _: fmi3GetVersionTYPE = Some(fmi3GetVersion);
const _: fmi3SetDebugLoggingTYPE = Some(fmi3SetDebugLogging);
const _: fmi3InstantiateModelExchangeTYPE = Some(fmi3InstantiateModelExchange);
const _: fmi3InstantiateCoSimulationTYPE = Some(fmi3InstantiateCoSimulation);
const _: fmi3InstantiateScheduledExecutionTYPE = Some(fmi3InstantiateScheduledExecution);
const _: fmi3FreeInstanceTYPE = Some(fmi3FreeInstance);
const _: fmi3EnterInitializationModeTYPE = Some(fmi3EnterInitializationMode);
const _: fmi3ExitInitializationModeTYPE = Some(fmi3ExitInitializationMode);
const _: fmi3TerminateTYPE = Some(fmi3Terminate);
const _: fmi3ResetTYPE = Some(fmi3Reset);
const _: fmi3GetFloat64TYPE = Some(fmi3GetFloat64);
const _: fmi3GetInt32TYPE = Some(fmi3GetInt32);
const _: fmi3GetInt64TYPE = Some(fmi3GetInt64);
const _: fmi3GetBooleanTYPE = Some(fmi3GetBoolean);
const _: fmi3GetStringTYPE = Some(fmi3GetString);
const _: fmi3SetFloat64TYPE = Some(fmi3SetFloat64);
const _: fmi3SetInt32TYPE = Some(fmi3SetInt32);
const _: fmi3SetInt64TYPE = Some(fmi3SetInt64);
const _: fmi3SetBooleanTYPE = Some(fmi3SetBoolean);
const _: fmi3SetStringTYPE = Some(fmi3SetString);
const _: fmi3GetFMUStateTYPE = Some(fmi3GetFMUState);
const _: fmi3SetFMUStateTYPE = Some(fmi3SetFMUState);
const _: fmi3FreeFMUStateTYPE = Some(fmi3FreeFMUState);
const _: fmi3SerializedFMUStateSizeTYPE = Some(fmi3SerializedFMUStateSize);
const _: fmi3SerializeFMUStateTYPE = Some(fmi3SerializeFMUState);
const _: fmi3DeserializeFMUStateTYPE = Some(fmi3DeserializeFMUState);
const _: fmi3DoStepTYPE = Some(fmi3DoStep);
