//! The dynamic symbol table of the FMU library: exactly the functions of the FMI 2.0 and
//! FMI 3.0 standards, nothing missing (importers refuse an FMU that lacks one, even one the
//! model does not support) and nothing extra (a dependency's `#[no_mangle]` function, such
//! as fmi-sys' `callback_log`, would clash with the importer's own symbols; build.rs hides it).
//!
//! The lists are the function names the standards' headers declare: FMI 2.0.x
//! fmi2Functions.h (common, Model Exchange and co-simulation functions) and FMI 3.0
//! fmi3Functions.h (all interface types).

use object::{Object, ObjectSymbol, SymbolKind};
use std::collections::BTreeSet;

/// FMI 2.0, fmi2Functions.h: 44 functions.
const FMI2: [&str; 44] = [
    // Common functions (FMI 2.0 Sect. 2.1).
    "fmi2GetTypesPlatform",
    "fmi2GetVersion",
    "fmi2SetDebugLogging",
    "fmi2Instantiate",
    "fmi2FreeInstance",
    "fmi2SetupExperiment",
    "fmi2EnterInitializationMode",
    "fmi2ExitInitializationMode",
    "fmi2Terminate",
    "fmi2Reset",
    "fmi2GetReal",
    "fmi2GetInteger",
    "fmi2GetBoolean",
    "fmi2GetString",
    "fmi2SetReal",
    "fmi2SetInteger",
    "fmi2SetBoolean",
    "fmi2SetString",
    "fmi2GetFMUstate",
    "fmi2SetFMUstate",
    "fmi2FreeFMUstate",
    "fmi2SerializedFMUstateSize",
    "fmi2SerializeFMUstate",
    "fmi2DeSerializeFMUstate",
    "fmi2GetDirectionalDerivative",
    // Model Exchange (Sect. 3.2).
    "fmi2EnterEventMode",
    "fmi2NewDiscreteStates",
    "fmi2EnterContinuousTimeMode",
    "fmi2CompletedIntegratorStep",
    "fmi2SetTime",
    "fmi2SetContinuousStates",
    "fmi2GetDerivatives",
    "fmi2GetEventIndicators",
    "fmi2GetContinuousStates",
    "fmi2GetNominalsOfContinuousStates",
    // Co-simulation (Sect. 4.2).
    "fmi2SetRealInputDerivatives",
    "fmi2GetRealOutputDerivatives",
    "fmi2DoStep",
    "fmi2CancelStep",
    "fmi2GetStatus",
    "fmi2GetRealStatus",
    "fmi2GetIntegerStatus",
    "fmi2GetBooleanStatus",
    "fmi2GetStringStatus",
];

/// FMI 3.0, fmi3Functions.h: 75 functions.
const FMI3: [&str; 75] = [
    // Inquire version numbers, logging, instantiation (FMI 3.0 Sect. 2.3.1-2.3.2).
    "fmi3GetVersion",
    "fmi3SetDebugLogging",
    "fmi3InstantiateModelExchange",
    "fmi3InstantiateCoSimulation",
    "fmi3InstantiateScheduledExecution",
    "fmi3FreeInstance",
    // Initialization, termination, reset.
    "fmi3EnterInitializationMode",
    "fmi3ExitInitializationMode",
    "fmi3EnterEventMode",
    "fmi3Terminate",
    "fmi3Reset",
    // Getting and setting variable values.
    "fmi3GetFloat32",
    "fmi3GetFloat64",
    "fmi3GetInt8",
    "fmi3GetUInt8",
    "fmi3GetInt16",
    "fmi3GetUInt16",
    "fmi3GetInt32",
    "fmi3GetUInt32",
    "fmi3GetInt64",
    "fmi3GetUInt64",
    "fmi3GetBoolean",
    "fmi3GetString",
    "fmi3GetBinary",
    "fmi3GetClock",
    "fmi3SetFloat32",
    "fmi3SetFloat64",
    "fmi3SetInt8",
    "fmi3SetUInt8",
    "fmi3SetInt16",
    "fmi3SetUInt16",
    "fmi3SetInt32",
    "fmi3SetUInt32",
    "fmi3SetInt64",
    "fmi3SetUInt64",
    "fmi3SetBoolean",
    "fmi3SetString",
    "fmi3SetBinary",
    "fmi3SetClock",
    // Variable dependencies.
    "fmi3GetNumberOfVariableDependencies",
    "fmi3GetVariableDependencies",
    // FMU state.
    "fmi3GetFMUState",
    "fmi3SetFMUState",
    "fmi3FreeFMUState",
    "fmi3SerializedFMUStateSize",
    "fmi3SerializeFMUState",
    "fmi3DeserializeFMUState",
    // Partial derivatives.
    "fmi3GetDirectionalDerivative",
    "fmi3GetAdjointDerivative",
    // Configuration mode.
    "fmi3EnterConfigurationMode",
    "fmi3ExitConfigurationMode",
    // Clocks.
    "fmi3GetIntervalDecimal",
    "fmi3GetIntervalFraction",
    "fmi3GetShiftDecimal",
    "fmi3GetShiftFraction",
    "fmi3SetIntervalDecimal",
    "fmi3SetIntervalFraction",
    "fmi3SetShiftDecimal",
    "fmi3SetShiftFraction",
    "fmi3EvaluateDiscreteStates",
    "fmi3UpdateDiscreteStates",
    // Model Exchange (Sect. 3.2).
    "fmi3EnterContinuousTimeMode",
    "fmi3CompletedIntegratorStep",
    "fmi3SetTime",
    "fmi3SetContinuousStates",
    "fmi3GetContinuousStateDerivatives",
    "fmi3GetEventIndicators",
    "fmi3GetContinuousStates",
    "fmi3GetNominalsOfContinuousStates",
    "fmi3GetNumberOfEventIndicators",
    "fmi3GetNumberOfContinuousStates",
    // Co-simulation (Sect. 4.2).
    "fmi3EnterStepMode",
    "fmi3GetOutputDerivatives",
    "fmi3DoStep",
    // Scheduled execution (Sect. 5.2).
    "fmi3ActivateModelPartition",
];

/// Names of the functions the library defines and exports (its dynamic symbol table less
/// the undefined imports from libc and the loader).
fn exported_functions(bytes: &[u8]) -> BTreeSet<String> {
    let file = object::File::parse(bytes).expect("the library is an object file this platform can read");
    assert_eq!(file.format(), object::BinaryFormat::Elf, "the FMU binaries are ELF shared objects");
    file.dynamic_symbols()
        .filter(|s| !s.is_undefined() && s.is_global() && s.kind() == SymbolKind::Text)
        .map(|s| s.name().expect("symbol names are UTF-8").to_string())
        .collect()
}

#[test]
fn the_expected_lists_are_the_standards() {
    for (list, prefix) in [(&FMI2[..], "fmi2"), (&FMI3[..], "fmi3")] {
        let unique: BTreeSet<_> = list.iter().collect();
        assert_eq!(unique.len(), list.len(), "{prefix}: a name is listed twice");
        assert!(list.iter().all(|n| n.starts_with(prefix)), "{prefix}: {list:?}");
    }
}

#[test]
fn the_library_exports_exactly_the_fmi_functions() {
    let library = mbfmu_package::locate_library().expect("the cdylib is built next to the test executable");
    let bytes = std::fs::read(&library).unwrap_or_else(|e| panic!("{}: {e}", library.display()));
    let exported = exported_functions(&bytes);
    let expected: BTreeSet<String> = FMI2.iter().chain(FMI3.iter()).map(|s| s.to_string()).collect();
    let missing: Vec<_> = expected.difference(&exported).collect();
    let extra: Vec<_> = exported.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{}: missing FMI functions {missing:?}; exported functions that are not FMI functions {extra:?}",
        library.display()
    );
    assert_eq!(exported.len(), 44 + 75);
}
