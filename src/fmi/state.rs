//! The co-simulation and model-exchange state machines of both standards, as small explicit
//! tables.
//!
//! FMI 2.0.4 Sect. 4.2.4 and 3.2.3 (tables of allowed calls per state) and FMI 3.0 Sect.
//! 2.3, 3.2 and 4.2 (common, model-exchange and co-simulation states). Only the states this
//! FMU can reach are modelled: `doStep` is synchronous (no stepInProgress / stepCanceled),
//! co-simulation has no event mode, and there are no structural parameters (no
//! configuration modes). Event Mode and Continuous-Time Mode belong to Model Exchange
//! instances only; the model-exchange functions check the instance kind themselves. FMI 3
//! Intermediate Update Mode (Sect. 4.2.2) is entered only by the FMU, for the duration of its
//! callback inside fmi3DoStep; the accessors check which variables it admits.

use crate::slave::Phase;
use mbfmu_model::variables::VarType;
use std::fmt;

/// What an exported function does, as far as the state machine is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    SetDebugLogging,
    /// FMI 2 `fmi2SetupExperiment`.
    SetupExperiment,
    EnterInitializationMode,
    ExitInitializationMode,
    Terminate,
    Reset,
    Get,
    Set,
    /// Get/Set/Free/Serialize/Deserialize of FMU states.
    FmuState,
    DoStep,
    /// FMI 2 `fmi2Get*Status`.
    GetStatus,
    /// Functions this FMU does not implement; they report that themselves.
    Unsupported,
    /// FMI 2 fmi2SetRealInputDerivatives.
    SetInputDerivatives,
    /// fmi2GetRealOutputDerivatives, fmi3GetOutputDerivatives.
    GetOutputDerivatives,
    /// fmi2GetDirectionalDerivative, fmi3GetDirectionalDerivative.
    GetDirectionalDerivative,
    /// The continuation of an fmi3DoStep after its intermediate-update callback (not an
    /// importer's call; fmi3DoStep checks the state itself).
    StepContinuation,
    /// Model Exchange: SetTime.
    SetTime,
    /// Model Exchange: SetContinuousStates.
    SetContinuousStates,
    /// Model Exchange: GetDerivatives, GetContinuousStates, GetEventIndicators.
    GetContinuous,
    /// Model Exchange: GetNominalsOfContinuousStates and FMI 3 GetNumberOf*.
    GetNominals,
    EnterEventMode,
    /// FMI 2 NewDiscreteStates / FMI 3 UpdateDiscreteStates.
    UpdateDiscreteStates,
    EnterContinuousTimeMode,
    CompletedIntegratorStep,
}

/// A state machine of one standard.
pub trait Machine: Copy + Eq + fmt::Display + 'static {
    /// Tag stored in an instance so that handles of the other standard are refused.
    const MAGIC: u64;
    const INSTANTIATED: Self;
    /// Where an `Error` return leaves the instance.
    const AFTER_ERROR: Self;
    /// "fmi2" or "fmi3", for messages.
    const PREFIX: &'static str;
    fn allows(self, call: Call) -> bool;
    /// The state matching a slave phase (after SetFMUstate, whose state carries the phase);
    /// a running Model Exchange instance keeps its mode (Event Mode otherwise).
    fn after_restore(self, phase: Phase, model_exchange: bool) -> Self;
    /// The type name of a variable in this standard, for messages.
    fn type_name(ty: VarType) -> &'static str;
    /// False while the FMU itself is inside a function of the instance (FMI 3 Intermediate
    /// Update Mode): FreeInstance is refused then.
    fn may_free(self) -> bool {
        true
    }
}

/// FMI 2.0.4 co-simulation states (Sect. 4.2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmi2State {
    Instantiated,
    InitializationMode,
    StepComplete,
    /// After a doStep that returned Discard.
    StepFailed,
    /// Model Exchange (Sect. 3.2.3).
    EventMode,
    ContinuousTimeMode,
    Terminated,
    /// After any function returned Error (Sect. 2.1.3: only SetFMUstate, Reset, FreeInstance
    /// lead out).
    Error,
}

impl fmt::Display for Fmi2State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Fmi2State::Instantiated => "instantiated",
            Fmi2State::InitializationMode => "initializationMode",
            Fmi2State::StepComplete => "stepComplete",
            Fmi2State::StepFailed => "stepFailed",
            Fmi2State::EventMode => "eventMode",
            Fmi2State::ContinuousTimeMode => "continuousTimeMode",
            Fmi2State::Terminated => "terminated",
            Fmi2State::Error => "error",
        };
        f.write_str(name)
    }
}

impl Machine for Fmi2State {
    const MAGIC: u64 = 0x4d42_464d_5532_494e; // "MBFMU2IN"
    const INSTANTIATED: Self = Fmi2State::Instantiated;
    const AFTER_ERROR: Self = Fmi2State::Error;
    const PREFIX: &'static str = "fmi2";

    fn allows(self, call: Call) -> bool {
        use Fmi2State::*;
        match call {
            Call::SetDebugLogging | Call::Reset | Call::FmuState | Call::Unsupported => true,
            Call::SetupExperiment | Call::EnterInitializationMode => self == Instantiated,
            Call::ExitInitializationMode => self == InitializationMode,
            Call::Terminate => matches!(self, StepComplete | StepFailed | EventMode | ContinuousTimeMode),
            Call::Get => matches!(
                self,
                InitializationMode | StepComplete | StepFailed | EventMode | ContinuousTimeMode | Terminated | Error
            ),
            Call::Set => {
                matches!(self, Instantiated | InitializationMode | StepComplete | EventMode | ContinuousTimeMode)
            }
            Call::DoStep => self == StepComplete,
            // Sect. 4.2.4, table of allowed calls: "x" for instantiated, initializationMode and
            // stepComplete; the derivatives of outputs after a step (stepFailed, terminated,
            // error: for debugging).
            Call::SetInputDerivatives => matches!(self, Instantiated | InitializationMode | StepComplete),
            Call::GetOutputDerivatives => matches!(self, StepComplete | StepFailed | Terminated | Error),
            // Sect. 3.2.3 and 4.2.4, tables of allowed calls: like fmi2GetReal (error: values
            // for debugging only).
            Call::GetDirectionalDerivative => matches!(
                self,
                InitializationMode | StepComplete | StepFailed | EventMode | ContinuousTimeMode | Terminated | Error
            ),
            Call::StepContinuation => false,
            Call::GetStatus => matches!(self, StepComplete | StepFailed | Terminated),
            Call::SetTime => matches!(self, EventMode | ContinuousTimeMode),
            Call::SetContinuousStates => matches!(self, EventMode | ContinuousTimeMode),
            Call::GetContinuous => {
                matches!(self, InitializationMode | EventMode | ContinuousTimeMode | Terminated | Error)
            }
            Call::GetNominals => {
                matches!(self, Instantiated | InitializationMode | EventMode | ContinuousTimeMode | Terminated | Error)
            }
            Call::EnterEventMode | Call::CompletedIntegratorStep => self == ContinuousTimeMode,
            Call::UpdateDiscreteStates | Call::EnterContinuousTimeMode => self == EventMode,
        }
    }

    fn after_restore(self, phase: Phase, model_exchange: bool) -> Self {
        match phase {
            Phase::Instantiated => Fmi2State::Instantiated,
            Phase::Initialization => Fmi2State::InitializationMode,
            Phase::Running if model_exchange => {
                if matches!(self, Fmi2State::ContinuousTimeMode) {
                    self
                } else {
                    Fmi2State::EventMode
                }
            }
            Phase::Running => Fmi2State::StepComplete,
            Phase::Terminated => Fmi2State::Terminated,
        }
    }

    fn type_name(ty: VarType) -> &'static str {
        match ty {
            VarType::Real => "Real",
            VarType::Integer => "Integer",
            VarType::Enumeration => "Enumeration (accessed with fmi2Get/SetInteger)",
            VarType::Boolean => "Boolean",
            VarType::String => "String",
        }
    }
}

/// FMI 3.0 co-simulation states reachable without event mode and configuration modes, and
/// the model-exchange states (Sect. 3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmi3State {
    Instantiated,
    InitializationMode,
    StepMode,
    /// Model Exchange.
    EventMode,
    ContinuousTimeMode,
    /// After fmi3Terminate, and after any function returned Error (Sect. 2.3.1, super state
    /// FMU State Settable).
    Terminated,
    /// Sect. 4.2.2: inside the FMU's intermediate-update callback, between internal steps of
    /// fmi3DoStep; whether the importer may set the intermediate inputs and get the
    /// intermediate variables now.
    IntermediateUpdate {
        set: bool,
        get: bool,
    },
}

impl fmt::Display for Fmi3State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Fmi3State::Instantiated => "Instantiated",
            Fmi3State::InitializationMode => "Initialization Mode",
            Fmi3State::StepMode => "Step Mode",
            Fmi3State::EventMode => "Event Mode",
            Fmi3State::ContinuousTimeMode => "Continuous-Time Mode",
            Fmi3State::Terminated => "Terminated",
            Fmi3State::IntermediateUpdate { .. } => "Intermediate Update Mode",
        };
        f.write_str(name)
    }
}

impl Machine for Fmi3State {
    const MAGIC: u64 = 0x4d42_464d_5533_494e; // "MBFMU3IN"
    const INSTANTIATED: Self = Fmi3State::Instantiated;
    const AFTER_ERROR: Self = Fmi3State::Terminated;
    const PREFIX: &'static str = "fmi3";

    fn allows(self, call: Call) -> bool {
        use Fmi3State::*;
        // Sect. 4.2.2 "Allowed Function Calls" of Intermediate Update Mode: the getters (of
        // intermediate variables), fmi3GetOutputDerivatives and the setters (of intermediate
        // inputs), nothing else; which variables, the accessors check.
        if let IntermediateUpdate { .. } = self {
            return matches!(call, Call::Get | Call::Set | Call::GetOutputDerivatives | Call::StepContinuation);
        }
        match call {
            Call::SetDebugLogging | Call::Reset | Call::FmuState | Call::Unsupported => true,
            // fmi3DoStep checks the state its callback left.
            Call::StepContinuation => true,
            Call::EnterInitializationMode => self == Instantiated,
            Call::ExitInitializationMode => self == InitializationMode,
            Call::DoStep => self == StepMode,
            Call::Terminate => matches!(self, StepMode | EventMode | ContinuousTimeMode),
            // Sect. 2.3.2: in Instantiated the getters return start values.
            Call::Get => true,
            Call::Set => matches!(self, Instantiated | InitializationMode | StepMode | EventMode | ContinuousTimeMode),
            // Sect. 4.2.1 and 2.3.5 (Terminated): after a step and at the end.
            Call::GetOutputDerivatives => matches!(self, StepMode | Terminated),
            // The allowed calls of Initialization Mode, Event Mode and Terminated (Sect. 2.3),
            // Continuous-Time Mode (Sect. 3.2) and Step Mode (Sect. 4.2) name it.
            Call::GetDirectionalDerivative => {
                matches!(self, InitializationMode | StepMode | EventMode | ContinuousTimeMode | Terminated)
            }
            // FMI 2 only.
            Call::SetupExperiment | Call::GetStatus | Call::SetInputDerivatives => false,
            Call::SetTime | Call::SetContinuousStates => matches!(self, EventMode | ContinuousTimeMode),
            Call::GetContinuous => matches!(self, InitializationMode | EventMode | ContinuousTimeMode | Terminated),
            Call::GetNominals => true,
            Call::EnterEventMode | Call::CompletedIntegratorStep => self == ContinuousTimeMode,
            Call::UpdateDiscreteStates | Call::EnterContinuousTimeMode => self == EventMode,
        }
    }

    fn after_restore(self, phase: Phase, model_exchange: bool) -> Self {
        match phase {
            Phase::Instantiated => Fmi3State::Instantiated,
            Phase::Initialization => Fmi3State::InitializationMode,
            Phase::Running if model_exchange => {
                if matches!(self, Fmi3State::ContinuousTimeMode) {
                    self
                } else {
                    Fmi3State::EventMode
                }
            }
            Phase::Running => Fmi3State::StepMode,
            Phase::Terminated => Fmi3State::Terminated,
        }
    }

    fn may_free(self) -> bool {
        !matches!(self, Fmi3State::IntermediateUpdate { .. })
    }

    fn type_name(ty: VarType) -> &'static str {
        match ty {
            VarType::Real => "Float64",
            VarType::Integer => "Int32",
            VarType::Enumeration => "Enumeration (accessed with fmi3Get/SetInt64)",
            VarType::Boolean => "Boolean",
            VarType::String => "String",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmi2_table_follows_the_standard() {
        use Fmi2State::*;
        assert!(Instantiated.allows(Call::SetupExperiment));
        assert!(!InitializationMode.allows(Call::SetupExperiment));
        assert!(!Instantiated.allows(Call::Get));
        assert!(!Instantiated.allows(Call::DoStep));
        assert!(StepComplete.allows(Call::DoStep));
        assert!(!StepFailed.allows(Call::DoStep));
        assert!(StepFailed.allows(Call::Terminate));
        assert!(!Terminated.allows(Call::Terminate));
        assert!(!Error.allows(Call::Terminate));
        assert!(Error.allows(Call::Get) && Error.allows(Call::FmuState) && Error.allows(Call::Reset));
        assert!(!Error.allows(Call::Set) && !Error.allows(Call::DoStep));
        assert!(Instantiated.allows(Call::SetInputDerivatives) && StepComplete.allows(Call::SetInputDerivatives));
        assert!(!StepFailed.allows(Call::SetInputDerivatives) && !Terminated.allows(Call::SetInputDerivatives));
        assert!(
            StepFailed.allows(Call::GetOutputDerivatives) && !InitializationMode.allows(Call::GetOutputDerivatives)
        );
    }

    #[test]
    fn fmi3_table_follows_the_standard() {
        use Fmi3State::*;
        assert!(Instantiated.allows(Call::Get));
        assert!(!Instantiated.allows(Call::DoStep));
        assert!(StepMode.allows(Call::DoStep) && StepMode.allows(Call::Terminate));
        assert!(!Terminated.allows(Call::Set) && !Terminated.allows(Call::Terminate));
        assert!(Terminated.allows(Call::FmuState) && Terminated.allows(Call::Reset));
        assert!(!StepMode.allows(Call::SetupExperiment));
        assert!(StepMode.allows(Call::GetOutputDerivatives) && Terminated.allows(Call::GetOutputDerivatives));
        assert!(!InitializationMode.allows(Call::GetOutputDerivatives) && !StepMode.allows(Call::SetInputDerivatives));
        let update = IntermediateUpdate { set: true, get: true };
        for call in [Call::Get, Call::Set, Call::GetOutputDerivatives] {
            assert!(update.allows(call));
        }
        for call in [Call::DoStep, Call::Reset, Call::FmuState, Call::Terminate, Call::SetDebugLogging] {
            assert!(!update.allows(call), "{call:?}");
        }
        assert!(!update.may_free() && StepMode.may_free());
    }
}
