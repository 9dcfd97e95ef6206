//! The FMU interface of a model, derived from its description (docs/architecture.md#generated-model-descriptions):
//! one table of scalar variables produces both modelDescription.xml files and the value
//! references the getters and setters use, so they cannot drift.
//!
//! Compiled into the library and into `build.rs`; depends on serde, serde_json, quick-xml
//! and sha2 only.

mod dependencies;
mod derivative_orders;
mod expand;
mod expand_hydraulics;
mod expand_mechanism;
mod expand_solver;
mod states;
mod token;
mod units;
mod xml;

pub use crate::format::Quantity;
pub use dependencies::{dependencies, Dependency, Kind as DependencyKind, Known, Unknown};
pub use derivative_orders::output_derivative_order;
pub use expand::{interface_of, interface_of_serialized, InterfaceError};
pub use states::{event_indicator_names, StateLayout};
pub use token::instantiation_token;
pub use units::unit_definition;
pub use xml::{model_description_xml, FmiVersion};

use crate::format::{ConstraintForm, Formulation, Method, SolverDefaults};

/// Name of the enumeration type of `solver.method`.
pub const SOLVER_METHOD_TYPE: &str = "SolverMethod";
/// Name of the enumeration type of `solver.formulation` (semirecursive models only).
pub const SOLVER_FORMULATION_TYPE: &str = "SolverFormulation";
/// Name of the enumeration type of `solver.constraintForm` (index-3 models only).
pub const SOLVER_CONSTRAINT_FORM_TYPE: &str = "SolverConstraintForm";

/// Log categories declared in modelDescription.xml and honoured by SetDebugLogging.
pub const LOG_CATEGORIES: &[(&str, &str)] = &[
    ("logStatusWarning", "Warnings (e.g. corrected initial conditions)"),
    ("logStatusDiscard", "Steps that were discarded (Newton failure, non-finite values)"),
    ("logStatusError", "Errors (misuse of the API, invalid values)"),
    ("logStatusFatal", "Fatal errors"),
    ("logNonlinearSystems", "Newton iterations of the internal solver"),
    ("logCalls", "Every FMI function call"),
    ("logStatusInfo", "Choices the solver made (solver.method auto switching to an implicit method)"),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    Real,
    Integer,
    Boolean,
    String,
    /// `solver.method`, `solver.formulation`: FMI 2 Integer with declaredType, FMI 3 Enumeration.
    Enumeration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Causality {
    Independent,
    Parameter,
    Input,
    Output,
    /// Model Exchange continuous states and their derivatives.
    Local,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variability {
    Fixed,
    Discrete,
    Continuous,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Initial {
    Exact,
    Calculated,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Start {
    Real(f64),
    Integer(i64),
}

/// Solver settings exposed as `solver.*` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverSetting {
    Method,
    StepSize,
    Tolerance,
    MaxIterations,
    RhoInf,
    /// Variable-step methods: Atol, Rtol of the independent positions and the factor that
    /// gives the velocity tolerances ([Negrut1997, eq. 21]).
    AbsoluteTolerance,
    RelativeTolerance,
    VelocityToleranceFactor,
    /// Semirecursive models: double-step or penalty ([Jaiswal2021, Sect. 2.2-2.3]).
    Formulation,
    /// Index-3 models: the joints as position constraints or in the stabilized index-2 form
    /// ([GearGuptaLeimkuhler1985]).
    ConstraintForm,
    /// Penalty factor alpha ([Jaiswal2021, eq. 18]).
    Penalty,
    /// Newton tolerance on pressures \[Pa\] ([Jaiswal2021, Sect. 5]).
    PressureTolerance,
    /// Internal steps one doStep may take before it returns early (bounded work per call).
    /// A limit of the call, not of the solver: the slave reads it, the solver block keeps
    /// no copy.
    MaxStepsPerCall,
    /// Work units one doStep may spend before it returns early (the engine's `Meter`: model
    /// evaluations weighted by the system's size, deterministic). A limit of the call, as
    /// [`SolverSetting::MaxStepsPerCall`].
    MaxWorkPerCall,
}

/// The highest order of the output derivatives (`maxOutputDerivativeOrder` of both versions:
/// every formulation's state has accelerations).
pub const MAX_OUTPUT_DERIVATIVE_ORDER: u32 = 2;

/// Start value of `solver.maxStepsPerCall`: 100 s of simulated time at a 1 ms internal step,
/// far above what a communication step of a co-simulation needs, and a fraction of a second
/// to a few seconds of work per call for the catalog models.
pub const DEFAULT_MAX_STEPS_PER_CALL: i64 = 100_000;

/// Start value of `solver.maxWorkPerCall` \[work units\]: one work unit is of the order of a
/// nanosecond of one core (1.2-4 ns for the catalog's models on the reference machine of
/// docs/performance.md), so that no catalog model's doStep works longer than about 20 s,
/// while a communication step of a co-simulation needs a thousandth of it (the example
/// `worst_case_do_step` of the engine prints every catalog model's worst case).
pub const DEFAULT_MAX_WORK_PER_CALL: f64 = 5e9;

impl SolverSetting {
    /// Writes an FMU parameter value into the description's solver block: the one table
    /// from every `solver.*` variable to the setting it changes. The engine builds its typed
    /// settings from that block, after validation, so a value from the host and one from the
    /// JSON take the same route.
    pub fn apply(self, solver: &mut SolverDefaults, value: f64) -> Result<(), String> {
        let code = || {
            let code = value as i64;
            (code as f64 == value).then_some(code).ok_or_else(|| format!("{value} is not an enumeration code"))
        };
        match self {
            SolverSetting::Method => {
                solver.method =
                    Method::from_code(code()?).ok_or_else(|| format!("solver.method {value} is not a method code"))?
            }
            SolverSetting::StepSize => solver.step_size = value,
            SolverSetting::Tolerance => solver.tolerance = value,
            SolverSetting::MaxIterations => solver.max_iterations = value as u32,
            SolverSetting::RhoInf => solver.rho_inf = value,
            SolverSetting::AbsoluteTolerance => solver.absolute_tolerance = Some(value),
            SolverSetting::RelativeTolerance => solver.relative_tolerance = Some(value),
            SolverSetting::VelocityToleranceFactor => solver.velocity_tolerance_factor = Some(value),
            SolverSetting::Formulation => {
                solver.formulation = Formulation::from_code(code()?)
                    .ok_or_else(|| format!("solver.formulation {value} is not a formulation code"))?
            }
            SolverSetting::ConstraintForm => {
                solver.constraint_form = ConstraintForm::from_code(code()?)
                    .ok_or_else(|| format!("solver.constraintForm {value} is not a constraint form code"))?
            }
            SolverSetting::Penalty => solver.penalty = value,
            SolverSetting::PressureTolerance => solver.pressure_tolerance = value,
            // Read by the slave at every doStep: limits of the call, not solver settings.
            SolverSetting::MaxStepsPerCall | SolverSetting::MaxWorkPerCall => {}
        }
        Ok(())
    }

    /// The enumeration type of an enumeration-valued setting.
    pub fn enumeration_type(self) -> Option<&'static str> {
        match self {
            SolverSetting::Method => Some(SOLVER_METHOD_TYPE),
            SolverSetting::Formulation => Some(SOLVER_FORMULATION_TYPE),
            SolverSetting::ConstraintForm => Some(SOLVER_CONSTRAINT_FORM_TYPE),
            _ => None,
        }
    }
}

/// What a variable refers to inside the simulation.
#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    Time,
    Solver(SolverSetting),
    /// A number of the description, addressed by its path.
    ModelParameter {
        path: String,
    },
    /// A named parameter, which expressions of the description use.
    NamedParameter {
        name: String,
    },
    /// Index into `interface.inputs`.
    Input {
        index: usize,
    },
    Output(Quantity),
    /// Model Exchange continuous state `index` of [v; v'] (state-space formulation).
    State {
        index: usize,
    },
    /// Derivative of continuous state `index`.
    Derivative {
        index: usize,
    },
    /// Model Exchange event indicator `index` (semirecursive formulations with a circuit).
    EventIndicator {
        index: usize,
    },
}

/// One scalar FMU variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub value_reference: u32,
    pub ty: VarType,
    pub causality: Causality,
    pub variability: Variability,
    pub initial: Option<Initial>,
    pub start: Option<Start>,
    pub unit: Option<String>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub description: String,
    pub binding: Binding,
}

impl Variable {
    /// A continuous Real input or output: the variables with input derivatives (FMI 2) or
    /// output derivatives, and FMI 3's intermediate variables (`intermediateUpdate="true"`).
    pub fn is_continuous_signal(&self) -> bool {
        self.ty == VarType::Real
            && self.variability == Variability::Continuous
            && matches!(self.causality, Causality::Input | Causality::Output)
    }
}

/// The interface of one model: its variables (value reference = index) and its methods.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInterface {
    pub variables: Vec<Variable>,
    /// Integrators offered in `solver.method` (enumeration items).
    pub methods: Vec<Method>,
    /// Formulations offered in `solver.formulation` (empty: no such parameter).
    pub formulations: Vec<Formulation>,
}

impl ModelInterface {
    pub fn variable(&self, value_reference: u32) -> Option<&Variable> {
        self.variables.get(value_reference as usize)
    }
    pub fn by_name(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|v| v.name == name)
    }
    pub fn outputs(&self) -> impl Iterator<Item = &Variable> {
        self.variables.iter().filter(|v| v.causality == Causality::Output)
    }
    /// Model Exchange continuous states, in the order of the state vector.
    pub fn states(&self) -> impl Iterator<Item = &Variable> {
        self.variables.iter().filter(|v| matches!(v.binding, Binding::State { .. }))
    }
    /// Their derivatives, in the same order.
    pub fn derivatives(&self) -> impl Iterator<Item = &Variable> {
        self.variables.iter().filter(|v| matches!(v.binding, Binding::Derivative { .. }))
    }
    /// Model Exchange event indicators, in order.
    pub fn event_indicators(&self) -> impl Iterator<Item = &Variable> {
        self.variables.iter().filter(|v| matches!(v.binding, Binding::EventIndicator { .. }))
    }
    pub fn inputs(&self) -> impl Iterator<Item = &Variable> {
        self.variables.iter().filter(|v| v.causality == Causality::Input)
    }
    /// True if a variable sets `setting`.
    pub fn offers(&self, setting: SolverSetting) -> bool {
        self.variables.iter().any(|v| v.binding == Binding::Solver(setting))
    }

    /// (item name, code) of the enumeration `setting` offers.
    pub fn enumeration_items(&self, setting: SolverSetting) -> Vec<(&'static str, i32)> {
        match setting {
            SolverSetting::Method => self.methods.iter().map(|m| (m.item_name(), m.code())).collect(),
            SolverSetting::Formulation => self.formulations.iter().map(|f| (f.item_name(), f.code())).collect(),
            SolverSetting::ConstraintForm if self.offers(SolverSetting::ConstraintForm) => {
                ConstraintForm::ALL.iter().map(|f| (f.item_name(), f.code())).collect()
            }
            _ => Vec::new(),
        }
    }
}
