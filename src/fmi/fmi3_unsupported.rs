//! The FMI 3.0 functions this FMU does not need but must export (importers resolve all 75
//! symbols; docs/fmi.md#what-importers-demand): accessors of types no variable has, and the
//! clock, configuration, directional-derivative and scheduled-execution functions. Each logs why and
//! returns Error (never a crash). The model-exchange and event-mode functions are in
//! [`super::fmi3_me`].

use super::fmi3::{check_counts, no_variables, with};
use super::state::Call;
use super::values::input;
use fmi_sys::fmi3::*;

/// A function this FMU does not implement: Error with the reason.
pub(crate) unsafe fn unsupported(instance: fmi3Instance, function: &'static str, reason: &str) -> fmi3Status {
    unsafe { with(instance, function, Call::Unsupported, |_| Err(format!("not supported: {reason}"))) }
}

const NO_CLOCKS: &str = "this FMU has no clocks";
pub(crate) const NO_EVENT_MODE: &str = "this FMU has no event mode (hasEventMode=\"false\")";

// ---- Accessors of types without variables --------------------------------------------------

no_variables!(fmi3GetFloat32, *mut fmi3Float32, Call::Get);
no_variables!(fmi3GetInt8, *mut fmi3Int8, Call::Get);
no_variables!(fmi3GetUInt8, *mut fmi3UInt8, Call::Get);
no_variables!(fmi3GetInt16, *mut fmi3Int16, Call::Get);
no_variables!(fmi3GetUInt16, *mut fmi3UInt16, Call::Get);
no_variables!(fmi3GetUInt32, *mut fmi3UInt32, Call::Get);
no_variables!(fmi3GetUInt64, *mut fmi3UInt64, Call::Get);
no_variables!(fmi3SetFloat32, *const fmi3Float32, Call::Set);
no_variables!(fmi3SetInt8, *const fmi3Int8, Call::Set);
no_variables!(fmi3SetUInt8, *const fmi3UInt8, Call::Set);
no_variables!(fmi3SetInt16, *const fmi3Int16, Call::Set);
no_variables!(fmi3SetUInt16, *const fmi3UInt16, Call::Set);
no_variables!(fmi3SetUInt32, *const fmi3UInt32, Call::Set);
no_variables!(fmi3SetUInt64, *const fmi3UInt64, Call::Set);

#[no_mangle]
pub unsafe extern "C" fn fmi3GetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    valueSizes: *mut usize,
    values: *mut fmi3Binary,
    nValues: usize,
) -> fmi3Status {
    const F: &str = "fmi3GetBinary";
    unsafe {
        with(instance, F, Call::Get, |i| {
            check_counts(nValueReferences, nValues)?;
            if nValues > 0 && (valueSizes.is_null() || values.is_null()) {
                return Err("argument valueSizes or values is NULL".into());
            }
            i.no_variables_of_this_type(F, input(valueReferences, nValueReferences, "valueReferences")?)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    valueSizes: *const usize,
    values: *const fmi3Binary,
    nValues: usize,
) -> fmi3Status {
    const F: &str = "fmi3SetBinary";
    unsafe {
        with(instance, F, Call::Set, |i| {
            check_counts(nValueReferences, nValues)?;
            if nValues > 0 && (valueSizes.is_null() || values.is_null()) {
                return Err("argument valueSizes or values is NULL".into());
            }
            i.no_variables_of_this_type(F, input(valueReferences, nValueReferences, "valueReferences")?)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetClock(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _values: *mut fmi3Clock,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3GetClock", NO_CLOCKS) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetClock(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _values: *const fmi3Clock,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3SetClock", NO_CLOCKS) }
}

// ---- Dependencies, derivatives, configuration ----------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn fmi3GetNumberOfVariableDependencies(
    instance: fmi3Instance,
    _valueReference: fmi3ValueReference,
    _nDependencies: *mut usize,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3GetNumberOfVariableDependencies", "no dependency information is provided") }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetVariableDependencies(
    instance: fmi3Instance,
    _dependent: fmi3ValueReference,
    _elementIndicesOfDependent: *mut usize,
    _independents: *mut fmi3ValueReference,
    _elementIndicesOfIndependents: *mut usize,
    _dependencyKinds: *mut fmi3DependencyKind,
    _nDependencies: usize,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3GetVariableDependencies", "no dependency information is provided") }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetAdjointDerivative(
    instance: fmi3Instance,
    _unknowns: *const fmi3ValueReference,
    _nUnknowns: usize,
    _knowns: *const fmi3ValueReference,
    _nKnowns: usize,
    _seed: *const fmi3Float64,
    _nSeed: usize,
    _sensitivity: *mut fmi3Float64,
    _nSensitivity: usize,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3GetAdjointDerivative", "providesAdjointDerivatives=\"false\"") }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3EnterConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3EnterConfigurationMode", "this FMU has no structural parameters") }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3ExitConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3ExitConfigurationMode", "this FMU has no structural parameters") }
}

// ---- Clocks and event mode -----------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn fmi3GetIntervalDecimal(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _intervals: *mut fmi3Float64,
    _qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3GetIntervalDecimal", NO_CLOCKS) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetIntervalFraction(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *mut fmi3UInt64,
    _resolutions: *mut fmi3UInt64,
    _qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3GetIntervalFraction", NO_CLOCKS) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetShiftDecimal(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _shifts: *mut fmi3Float64,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3GetShiftDecimal", NO_CLOCKS) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetShiftFraction(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *mut fmi3UInt64,
    _resolutions: *mut fmi3UInt64,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3GetShiftFraction", NO_CLOCKS) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetIntervalDecimal(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _intervals: *const fmi3Float64,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3SetIntervalDecimal", NO_CLOCKS) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetIntervalFraction(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *const fmi3UInt64,
    _resolutions: *const fmi3UInt64,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3SetIntervalFraction", NO_CLOCKS) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetShiftDecimal(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _shifts: *const fmi3Float64,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3SetShiftDecimal", NO_CLOCKS) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetShiftFraction(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *const fmi3UInt64,
    _resolutions: *const fmi3UInt64,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3SetShiftFraction", NO_CLOCKS) }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3EvaluateDiscreteStates(instance: fmi3Instance) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3EvaluateDiscreteStates", NO_EVENT_MODE) }
}

// ---- Model exchange and scheduled execution ------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn fmi3ActivateModelPartition(
    instance: fmi3Instance,
    _clockReference: fmi3ValueReference,
    _activationTime: fmi3Float64,
) -> fmi3Status {
    unsafe { unsupported(instance, "fmi3ActivateModelPartition", "scheduled execution is not provided") }
}

// ---- Compile-time check of every signature against fmi3FunctionTypes.h ---------------------

const _: fmi3GetFloat32TYPE = Some(fmi3GetFloat32);
const _: fmi3GetInt8TYPE = Some(fmi3GetInt8);
const _: fmi3GetUInt8TYPE = Some(fmi3GetUInt8);
const _: fmi3GetInt16TYPE = Some(fmi3GetInt16);
const _: fmi3GetUInt16TYPE = Some(fmi3GetUInt16);
const _: fmi3GetUInt32TYPE = Some(fmi3GetUInt32);
const _: fmi3GetUInt64TYPE = Some(fmi3GetUInt64);
const _: fmi3GetBinaryTYPE = Some(fmi3GetBinary);
const _: fmi3GetClockTYPE = Some(fmi3GetClock);
const _: fmi3SetFloat32TYPE = Some(fmi3SetFloat32);
const _: fmi3SetInt8TYPE = Some(fmi3SetInt8);
const _: fmi3SetUInt8TYPE = Some(fmi3SetUInt8);
const _: fmi3SetInt16TYPE = Some(fmi3SetInt16);
const _: fmi3SetUInt16TYPE = Some(fmi3SetUInt16);
const _: fmi3SetUInt32TYPE = Some(fmi3SetUInt32);
const _: fmi3SetUInt64TYPE = Some(fmi3SetUInt64);
const _: fmi3SetBinaryTYPE = Some(fmi3SetBinary);
const _: fmi3SetClockTYPE = Some(fmi3SetClock);
const _: fmi3GetNumberOfVariableDependenciesTYPE = Some(fmi3GetNumberOfVariableDependencies);
const _: fmi3GetVariableDependenciesTYPE = Some(fmi3GetVariableDependencies);
const _: fmi3GetAdjointDerivativeTYPE = Some(fmi3GetAdjointDerivative);
const _: fmi3EnterConfigurationModeTYPE = Some(fmi3EnterConfigurationMode);
const _: fmi3ExitConfigurationModeTYPE = Some(fmi3ExitConfigurationMode);
const _: fmi3GetIntervalDecimalTYPE = Some(fmi3GetIntervalDecimal);
const _: fmi3GetIntervalFractionTYPE = Some(fmi3GetIntervalFraction);
const _: fmi3GetShiftDecimalTYPE = Some(fmi3GetShiftDecimal);
const _: fmi3GetShiftFractionTYPE = Some(fmi3GetShiftFraction);
const _: fmi3SetIntervalDecimalTYPE = Some(fmi3SetIntervalDecimal);
const _: fmi3SetIntervalFractionTYPE = Some(fmi3SetIntervalFraction);
const _: fmi3SetShiftDecimalTYPE = Some(fmi3SetShiftDecimal);
const _: fmi3SetShiftFractionTYPE = Some(fmi3SetShiftFraction);
const _: fmi3EvaluateDiscreteStatesTYPE = Some(fmi3EvaluateDiscreteStates);
const _: fmi3ActivateModelPartitionTYPE = Some(fmi3ActivateModelPartition);
