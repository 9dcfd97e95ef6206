//! modelDescription.xml for FMI 2.0 and FMI 3.0 co-simulation, written with quick-xml's
//! serde serializer from the variable table (FMI 2.0.4 Sect. 2.2, FMI 3.0 Sect. 2.4).

use super::{
    unit_definition, Binding, Causality, Initial, ModelInterface, Start, VarType, Variability, Variable,
    LOG_CATEGORIES, SOLVER_FORMULATION_TYPE, SOLVER_METHOD_TYPE,
};
use crate::format::Description;
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmiVersion {
    V2,
    V3,
}

/// Shortest decimal text that reads back as the same f64.
fn real(v: f64) -> String {
    format!("{v:?}")
}

fn causality(c: Causality) -> &'static str {
    match c {
        Causality::Independent => "independent",
        Causality::Parameter => "parameter",
        Causality::Input => "input",
        Causality::Output => "output",
        Causality::Local => "local",
    }
}

fn variability(v: Variability) -> &'static str {
    match v {
        Variability::Fixed => "fixed",
        Variability::Discrete => "discrete",
        Variability::Continuous => "continuous",
    }
}

fn initial(i: Option<Initial>) -> Option<&'static str> {
    i.map(|i| match i {
        Initial::Exact => "exact",
        Initial::Calculated => "calculated",
    })
}

#[derive(Serialize)]
struct BaseUnit {
    #[serde(rename = "@kg", skip_serializing_if = "Option::is_none")]
    kg: Option<i32>,
    #[serde(rename = "@m", skip_serializing_if = "Option::is_none")]
    m: Option<i32>,
    #[serde(rename = "@s", skip_serializing_if = "Option::is_none")]
    s: Option<i32>,
    #[serde(rename = "@A", skip_serializing_if = "Option::is_none")]
    a: Option<i32>,
    #[serde(rename = "@rad", skip_serializing_if = "Option::is_none")]
    rad: Option<i32>,
}

#[derive(Serialize)]
struct Unit {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "BaseUnit")]
    base: BaseUnit,
}

#[derive(Serialize)]
struct UnitDefinitions {
    #[serde(rename = "Unit")]
    units: Vec<Unit>,
}

#[derive(Serialize)]
struct Item {
    #[serde(rename = "@name")]
    name: &'static str,
    #[serde(rename = "@value")]
    value: i32,
    #[serde(rename = "@description")]
    description: &'static str,
}

#[derive(Serialize)]
struct Category {
    #[serde(rename = "@name")]
    name: &'static str,
    #[serde(rename = "@description")]
    description: &'static str,
}

#[derive(Serialize)]
struct LogCategories {
    #[serde(rename = "Category")]
    categories: Vec<Category>,
}

#[derive(Serialize)]
struct DefaultExperiment {
    #[serde(rename = "@startTime")]
    start: String,
    #[serde(rename = "@stopTime")]
    stop: String,
    #[serde(rename = "@stepSize")]
    step: String,
}

// ---------------------------------------------------------------- FMI 2.0

#[derive(Serialize)]
struct Fmi2CoSimulation {
    #[serde(rename = "@modelIdentifier")]
    model_identifier: String,
    #[serde(rename = "@needsExecutionTool")]
    needs_execution_tool: bool,
    #[serde(rename = "@canHandleVariableCommunicationStepSize")]
    variable_step: bool,
    #[serde(rename = "@canInterpolateInputs")]
    interpolate_inputs: bool,
    #[serde(rename = "@maxOutputDerivativeOrder")]
    max_output_derivative_order: u32,
    #[serde(rename = "@canRunAsynchronuously")]
    asynchronous: bool,
    #[serde(rename = "@canBeInstantiatedOnlyOncePerProcess")]
    once_per_process: bool,
    #[serde(rename = "@canNotUseMemoryManagementFunctions")]
    no_memory_functions: bool,
    #[serde(rename = "@canGetAndSetFMUstate")]
    get_set_state: bool,
    #[serde(rename = "@canSerializeFMUstate")]
    serialize_state: bool,
    #[serde(rename = "@providesDirectionalDerivative")]
    directional_derivative: bool,
}

/// FMI 2.0.4 Sect. 3.3.1 (state-space formulation only).
#[derive(Serialize)]
struct Fmi2ModelExchange {
    #[serde(rename = "@modelIdentifier")]
    model_identifier: String,
    #[serde(rename = "@needsExecutionTool")]
    needs_execution_tool: bool,
    /// Step events re-choose the coordinate partition.
    #[serde(rename = "@completedIntegratorStepNotNeeded")]
    completed_step_not_needed: bool,
    #[serde(rename = "@canBeInstantiatedOnlyOncePerProcess")]
    once_per_process: bool,
    #[serde(rename = "@canNotUseMemoryManagementFunctions")]
    no_memory_functions: bool,
    #[serde(rename = "@canGetAndSetFMUstate")]
    get_set_state: bool,
    #[serde(rename = "@canSerializeFMUstate")]
    serialize_state: bool,
    #[serde(rename = "@providesDirectionalDerivative")]
    directional_derivative: bool,
}

#[derive(Serialize)]
struct Fmi2Enumeration {
    #[serde(rename = "Item")]
    items: Vec<Item>,
}

#[derive(Serialize)]
struct Fmi2SimpleType {
    #[serde(rename = "@name")]
    name: &'static str,
    #[serde(rename = "Enumeration")]
    enumeration: Fmi2Enumeration,
}

#[derive(Serialize)]
struct Fmi2TypeDefinitions {
    #[serde(rename = "SimpleType")]
    types: Vec<Fmi2SimpleType>,
}

#[derive(Serialize)]
enum Fmi2Type {
    Real {
        #[serde(rename = "@start", skip_serializing_if = "Option::is_none")]
        start: Option<String>,
        #[serde(rename = "@unit", skip_serializing_if = "Option::is_none")]
        unit: Option<String>,
        #[serde(rename = "@min", skip_serializing_if = "Option::is_none")]
        min: Option<String>,
        #[serde(rename = "@max", skip_serializing_if = "Option::is_none")]
        max: Option<String>,
        /// Index (1-based) of the state this variable is the derivative of.
        #[serde(rename = "@derivative", skip_serializing_if = "Option::is_none")]
        derivative: Option<usize>,
    },
    Integer {
        #[serde(rename = "@start", skip_serializing_if = "Option::is_none")]
        start: Option<i64>,
        #[serde(rename = "@min", skip_serializing_if = "Option::is_none")]
        min: Option<i64>,
        #[serde(rename = "@max", skip_serializing_if = "Option::is_none")]
        max: Option<i64>,
    },
    Enumeration {
        #[serde(rename = "@declaredType")]
        declared_type: &'static str,
        #[serde(rename = "@start", skip_serializing_if = "Option::is_none")]
        start: Option<i64>,
    },
}

#[derive(Serialize)]
struct Fmi2ScalarVariable {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@valueReference")]
    value_reference: u32,
    #[serde(rename = "@description")]
    description: String,
    #[serde(rename = "@causality")]
    causality: &'static str,
    #[serde(rename = "@variability")]
    variability: &'static str,
    #[serde(rename = "@initial", skip_serializing_if = "Option::is_none")]
    initial: Option<&'static str>,
    #[serde(rename = "$value")]
    ty: Fmi2Type,
}

#[derive(Serialize)]
struct Fmi2ModelVariables {
    #[serde(rename = "ScalarVariable")]
    variables: Vec<Fmi2ScalarVariable>,
}

#[derive(Serialize)]
struct Fmi2Unknown {
    #[serde(rename = "@index")]
    index: usize,
}

#[derive(Serialize)]
struct Fmi2Unknowns {
    #[serde(rename = "Unknown")]
    unknowns: Vec<Fmi2Unknown>,
}

#[derive(Serialize)]
struct Fmi2ModelStructure {
    #[serde(rename = "Outputs", skip_serializing_if = "Option::is_none")]
    outputs: Option<Fmi2Unknowns>,
    #[serde(rename = "Derivatives", skip_serializing_if = "Option::is_none")]
    derivatives: Option<Fmi2Unknowns>,
    #[serde(rename = "InitialUnknowns", skip_serializing_if = "Option::is_none")]
    initial_unknowns: Option<Fmi2Unknowns>,
}

#[derive(Serialize)]
#[serde(rename = "fmiModelDescription")]
struct Fmi2ModelDescription {
    #[serde(rename = "@fmiVersion")]
    fmi_version: &'static str,
    #[serde(rename = "@modelName")]
    model_name: String,
    #[serde(rename = "@guid")]
    guid: String,
    #[serde(rename = "@description")]
    description: String,
    #[serde(rename = "@version")]
    version: &'static str,
    #[serde(rename = "@generationTool")]
    generation_tool: String,
    #[serde(rename = "@variableNamingConvention")]
    naming: &'static str,
    #[serde(rename = "@numberOfEventIndicators")]
    event_indicators: u32,
    #[serde(rename = "ModelExchange", skip_serializing_if = "Option::is_none")]
    model_exchange: Option<Fmi2ModelExchange>,
    #[serde(rename = "CoSimulation")]
    co_simulation: Fmi2CoSimulation,
    #[serde(rename = "UnitDefinitions", skip_serializing_if = "Option::is_none")]
    units: Option<UnitDefinitions>,
    #[serde(rename = "TypeDefinitions")]
    types: Fmi2TypeDefinitions,
    #[serde(rename = "LogCategories")]
    log_categories: LogCategories,
    #[serde(rename = "DefaultExperiment")]
    experiment: DefaultExperiment,
    #[serde(rename = "ModelVariables")]
    variables: Fmi2ModelVariables,
    #[serde(rename = "ModelStructure")]
    structure: Fmi2ModelStructure,
}

// ---------------------------------------------------------------- FMI 3.0

#[derive(Serialize)]
struct Fmi3CoSimulation {
    #[serde(rename = "@modelIdentifier")]
    model_identifier: String,
    #[serde(rename = "@canHandleVariableCommunicationStepSize")]
    variable_step: bool,
    #[serde(rename = "@canGetAndSetFMUState")]
    get_set_state: bool,
    #[serde(rename = "@canSerializeFMUState")]
    serialize_state: bool,
    #[serde(rename = "@providesDirectionalDerivatives")]
    directional: bool,
    #[serde(rename = "@providesAdjointDerivatives")]
    adjoint: bool,
    #[serde(rename = "@canBeInstantiatedOnlyOncePerProcess")]
    once_per_process: bool,
    #[serde(rename = "@hasEventMode")]
    event_mode: bool,
    #[serde(rename = "@providesIntermediateUpdate")]
    intermediate_update: bool,
    #[serde(rename = "@canReturnEarlyAfterIntermediateUpdate")]
    early_return: bool,
    #[serde(rename = "@maxOutputDerivativeOrder")]
    max_output_derivative_order: u32,
}

/// FMI 3.0 Sect. 3.3 (state-space formulation only).
#[derive(Serialize)]
struct Fmi3ModelExchange {
    #[serde(rename = "@modelIdentifier")]
    model_identifier: String,
    #[serde(rename = "@needsCompletedIntegratorStep")]
    needs_completed_step: bool,
    #[serde(rename = "@providesEvaluateDiscreteStates")]
    evaluate_discrete_states: bool,
    #[serde(rename = "@canGetAndSetFMUState")]
    get_set_state: bool,
    #[serde(rename = "@canSerializeFMUState")]
    serialize_state: bool,
    #[serde(rename = "@providesDirectionalDerivatives")]
    directional: bool,
    #[serde(rename = "@providesAdjointDerivatives")]
    adjoint: bool,
    #[serde(rename = "@canBeInstantiatedOnlyOncePerProcess")]
    once_per_process: bool,
}

#[derive(Serialize)]
struct Fmi3EnumerationType {
    #[serde(rename = "@name")]
    name: &'static str,
    #[serde(rename = "Item")]
    items: Vec<Item>,
}

#[derive(Serialize)]
struct Fmi3TypeDefinitions {
    #[serde(rename = "EnumerationType")]
    types: Vec<Fmi3EnumerationType>,
}

#[derive(Serialize)]
enum Fmi3Variable {
    Float64 {
        #[serde(rename = "@name")]
        name: String,
        #[serde(rename = "@valueReference")]
        value_reference: u32,
        #[serde(rename = "@description")]
        description: String,
        #[serde(rename = "@causality")]
        causality: &'static str,
        #[serde(rename = "@variability")]
        variability: &'static str,
        #[serde(rename = "@initial", skip_serializing_if = "Option::is_none")]
        initial: Option<&'static str>,
        #[serde(rename = "@start", skip_serializing_if = "Option::is_none")]
        start: Option<String>,
        #[serde(rename = "@unit", skip_serializing_if = "Option::is_none")]
        unit: Option<String>,
        #[serde(rename = "@min", skip_serializing_if = "Option::is_none")]
        min: Option<String>,
        #[serde(rename = "@max", skip_serializing_if = "Option::is_none")]
        max: Option<String>,
        /// Value reference of the state this variable is the derivative of.
        #[serde(rename = "@derivative", skip_serializing_if = "Option::is_none")]
        derivative: Option<u32>,
    },
    Int32 {
        #[serde(rename = "@name")]
        name: String,
        #[serde(rename = "@valueReference")]
        value_reference: u32,
        #[serde(rename = "@description")]
        description: String,
        #[serde(rename = "@causality")]
        causality: &'static str,
        #[serde(rename = "@variability")]
        variability: &'static str,
        #[serde(rename = "@initial", skip_serializing_if = "Option::is_none")]
        initial: Option<&'static str>,
        #[serde(rename = "@start", skip_serializing_if = "Option::is_none")]
        start: Option<i64>,
        #[serde(rename = "@min", skip_serializing_if = "Option::is_none")]
        min: Option<i64>,
        #[serde(rename = "@max", skip_serializing_if = "Option::is_none")]
        max: Option<i64>,
    },
    Enumeration {
        #[serde(rename = "@name")]
        name: String,
        #[serde(rename = "@valueReference")]
        value_reference: u32,
        #[serde(rename = "@description")]
        description: String,
        #[serde(rename = "@causality")]
        causality: &'static str,
        #[serde(rename = "@variability")]
        variability: &'static str,
        #[serde(rename = "@initial", skip_serializing_if = "Option::is_none")]
        initial: Option<&'static str>,
        #[serde(rename = "@declaredType")]
        declared_type: &'static str,
        #[serde(rename = "@start", skip_serializing_if = "Option::is_none")]
        start: Option<i64>,
    },
}

#[derive(Serialize)]
struct Fmi3ModelVariables {
    #[serde(rename = "$value")]
    variables: Vec<Fmi3Variable>,
}

#[derive(Serialize)]
enum Fmi3Unknown {
    Output {
        #[serde(rename = "@valueReference")]
        value_reference: u32,
    },
    ContinuousStateDerivative {
        #[serde(rename = "@valueReference")]
        value_reference: u32,
    },
    InitialUnknown {
        #[serde(rename = "@valueReference")]
        value_reference: u32,
    },
}

#[derive(Serialize)]
struct Fmi3ModelStructure {
    #[serde(rename = "$value")]
    unknowns: Vec<Fmi3Unknown>,
}

#[derive(Serialize)]
#[serde(rename = "fmiModelDescription")]
struct Fmi3ModelDescription {
    #[serde(rename = "@fmiVersion")]
    fmi_version: &'static str,
    #[serde(rename = "@modelName")]
    model_name: String,
    #[serde(rename = "@instantiationToken")]
    token: String,
    #[serde(rename = "@description")]
    description: String,
    #[serde(rename = "@version")]
    version: &'static str,
    #[serde(rename = "@generationTool")]
    generation_tool: String,
    #[serde(rename = "@variableNamingConvention")]
    naming: &'static str,
    #[serde(rename = "ModelExchange", skip_serializing_if = "Option::is_none")]
    model_exchange: Option<Fmi3ModelExchange>,
    #[serde(rename = "CoSimulation")]
    co_simulation: Fmi3CoSimulation,
    #[serde(rename = "UnitDefinitions", skip_serializing_if = "Option::is_none")]
    units: Option<UnitDefinitions>,
    #[serde(rename = "TypeDefinitions")]
    types: Fmi3TypeDefinitions,
    #[serde(rename = "LogCategories")]
    log_categories: LogCategories,
    #[serde(rename = "DefaultExperiment")]
    experiment: DefaultExperiment,
    #[serde(rename = "ModelVariables")]
    variables: Fmi3ModelVariables,
    #[serde(rename = "ModelStructure")]
    structure: Fmi3ModelStructure,
}

fn unit_definitions(interface: &ModelInterface) -> Result<Option<UnitDefinitions>, String> {
    let used: BTreeSet<&str> = interface.variables.iter().filter_map(|v| v.unit.as_deref()).collect();
    let mut units = Vec::new();
    for name in used {
        let exps =
            unit_definition(name).ok_or_else(|| format!("unit '{name}' has no definition in interface/units.rs"))?;
        let get = |k: &str| exps.iter().find(|(n, _)| *n == k).map(|(_, e)| *e).filter(|e| *e != 0);
        units.push(Unit {
            name: name.to_string(),
            base: BaseUnit { kg: get("kg"), m: get("m"), s: get("s"), a: get("A"), rad: get("rad") },
        });
    }
    Ok((!units.is_empty()).then_some(UnitDefinitions { units }))
}

fn items(interface: &ModelInterface) -> Vec<Item> {
    interface.methods.iter().map(|m| Item { name: m.item_name(), value: m.code(), description: m.summary() }).collect()
}

fn formulation_items(interface: &ModelInterface) -> Vec<Item> {
    interface
        .formulations
        .iter()
        .map(|f| Item { name: f.item_name(), value: f.code(), description: f.summary() })
        .collect()
}

/// The declared type of an enumeration variable.
fn declared_type(v: &Variable) -> &'static str {
    match &v.binding {
        Binding::Solver(s) => s.enumeration_type().unwrap_or(SOLVER_METHOD_TYPE),
        _ => SOLVER_METHOD_TYPE,
    }
}

fn log_categories() -> LogCategories {
    LogCategories {
        categories: LOG_CATEGORIES.iter().map(|(name, description)| Category { name, description }).collect(),
    }
}

fn experiment(d: &Description) -> DefaultExperiment {
    DefaultExperiment { start: real(d.experiment.start), stop: real(d.experiment.stop), step: real(d.experiment.step) }
}

fn int_bound(v: Option<f64>) -> Option<i64> {
    v.map(|x| x as i64)
}

fn start_real(v: &Variable) -> Option<String> {
    match v.start {
        Some(Start::Real(x)) => Some(real(x)),
        _ => None,
    }
}

fn start_int(v: &Variable) -> Option<i64> {
    match v.start {
        Some(Start::Integer(i)) => Some(i),
        _ => None,
    }
}

/// The state a derivative variable belongs to.
fn state_of<'a>(interface: &'a ModelInterface, v: &Variable) -> Option<&'a Variable> {
    match v.binding {
        Binding::Derivative { index } => {
            interface.variables.iter().find(|w| matches!(w.binding, Binding::State { index: i } if i == index))
        }
        _ => None,
    }
}

fn fmi2_variable(interface: &ModelInterface, v: &Variable) -> Fmi2ScalarVariable {
    let ty = match v.ty {
        VarType::Real => Fmi2Type::Real {
            start: start_real(v),
            unit: v.unit.clone(),
            min: v.min.map(real),
            max: v.max.map(real),
            derivative: state_of(interface, v).map(|s| s.value_reference as usize + 1),
        },
        VarType::Integer => Fmi2Type::Integer { start: start_int(v), min: int_bound(v.min), max: int_bound(v.max) },
        VarType::Enumeration => Fmi2Type::Enumeration { declared_type: declared_type(v), start: start_int(v) },
        VarType::Boolean | VarType::String => {
            unreachable!("the catalog declares no Boolean or String variables")
        }
    };
    Fmi2ScalarVariable {
        name: v.name.clone(),
        value_reference: v.value_reference,
        description: v.description.clone(),
        causality: causality(v.causality),
        variability: variability(v.variability),
        initial: initial(v.initial),
        ty,
    }
}

fn fmi3_variable(interface: &ModelInterface, v: &Variable) -> Fmi3Variable {
    let (name, value_reference, description) = (v.name.clone(), v.value_reference, v.description.clone());
    let (causality, variability, initial) = (causality(v.causality), variability(v.variability), initial(v.initial));
    match v.ty {
        VarType::Real => Fmi3Variable::Float64 {
            name,
            value_reference,
            description,
            causality,
            variability,
            initial,
            start: start_real(v),
            unit: v.unit.clone(),
            min: v.min.map(real),
            max: v.max.map(real),
            derivative: state_of(interface, v).map(|s| s.value_reference),
        },
        VarType::Integer => Fmi3Variable::Int32 {
            name,
            value_reference,
            description,
            causality,
            variability,
            initial,
            start: start_int(v),
            min: int_bound(v.min),
            max: int_bound(v.max),
        },
        VarType::Enumeration => Fmi3Variable::Enumeration {
            name,
            value_reference,
            description,
            causality,
            variability,
            initial,
            declared_type: declared_type(v),
            start: start_int(v),
        },
        VarType::Boolean | VarType::String => {
            unreachable!("the catalog declares no Boolean or String variables")
        }
    }
}

fn serialize<T: Serialize>(md: &T) -> Result<String, String> {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut ser = quick_xml::se::Serializer::new(&mut xml);
    ser.indent(' ', 2);
    md.serialize(ser).map_err(|e| e.to_string())?;
    xml.push('\n');
    Ok(xml)
}

/// Writes modelDescription.xml of `version` for a model.
pub fn model_description_xml(
    d: &Description,
    interface: &ModelInterface,
    token: &str,
    version: FmiVersion,
    crate_version: &str,
) -> Result<String, String> {
    let tool = format!("mbfmu {crate_version}");
    let description = if d.description.is_empty() { d.name.clone() } else { d.description.clone() };
    // Outputs with initial = calculated are exactly the initial unknowns (no states, no
    // calculated parameters): FMI 2.0.4 Sect. 2.2.8, FMI 3.0 Sect. 2.4.8.
    // Model Exchange adds the continuous states and their derivatives, both calculated.
    let outputs: Vec<&Variable> = interface.outputs().collect();
    let derivatives: Vec<&Variable> = interface.derivatives().collect();
    let initial_unknowns: Vec<&Variable> = interface
        .variables
        .iter()
        .filter(|v| {
            v.initial == Some(Initial::Calculated)
                && (v.causality == Causality::Output
                    || matches!(v.binding, Binding::State { .. } | Binding::Derivative { .. }))
        })
        .collect();
    let model_exchange = d.solver.formulation.model_exchange();
    match version {
        FmiVersion::V2 => {
            let index = |v: &Variable| {
                interface
                    .variables
                    .iter()
                    .position(|w| w.value_reference == v.value_reference)
                    .expect("variable is in the table")
                    + 1
            };
            let md = Fmi2ModelDescription {
                fmi_version: "2.0",
                model_name: d.name.clone(),
                guid: token.to_string(),
                description,
                version: "1.0",
                generation_tool: tool,
                naming: "structured",
                event_indicators: 0,
                model_exchange: model_exchange.then(|| Fmi2ModelExchange {
                    model_identifier: d.name.clone(),
                    needs_execution_tool: false,
                    completed_step_not_needed: false,
                    once_per_process: false,
                    no_memory_functions: true,
                    get_set_state: true,
                    serialize_state: true,
                    directional_derivative: false,
                }),
                co_simulation: Fmi2CoSimulation {
                    model_identifier: d.name.clone(),
                    needs_execution_tool: false,
                    variable_step: true,
                    interpolate_inputs: false,
                    max_output_derivative_order: 0,
                    asynchronous: false,
                    once_per_process: false,
                    no_memory_functions: true,
                    get_set_state: true,
                    serialize_state: true,
                    directional_derivative: false,
                },
                units: unit_definitions(interface)?,
                types: Fmi2TypeDefinitions {
                    types: std::iter::once(Fmi2SimpleType {
                        name: SOLVER_METHOD_TYPE,
                        enumeration: Fmi2Enumeration { items: items(interface) },
                    })
                    .chain((!interface.formulations.is_empty()).then(|| Fmi2SimpleType {
                        name: SOLVER_FORMULATION_TYPE,
                        enumeration: Fmi2Enumeration { items: formulation_items(interface) },
                    }))
                    .collect(),
                },
                log_categories: log_categories(),
                experiment: experiment(d),
                variables: Fmi2ModelVariables {
                    variables: interface.variables.iter().map(|v| fmi2_variable(interface, v)).collect(),
                },
                structure: Fmi2ModelStructure {
                    outputs: (!outputs.is_empty()).then(|| Fmi2Unknowns {
                        unknowns: outputs.iter().map(|v| Fmi2Unknown { index: index(v) }).collect(),
                    }),
                    derivatives: (!derivatives.is_empty()).then(|| Fmi2Unknowns {
                        unknowns: derivatives.iter().map(|v| Fmi2Unknown { index: index(v) }).collect(),
                    }),
                    initial_unknowns: (!initial_unknowns.is_empty()).then(|| Fmi2Unknowns {
                        unknowns: initial_unknowns.iter().map(|v| Fmi2Unknown { index: index(v) }).collect(),
                    }),
                },
            };
            serialize(&md)
        }
        FmiVersion::V3 => {
            let mut unknowns: Vec<Fmi3Unknown> =
                outputs.iter().map(|v| Fmi3Unknown::Output { value_reference: v.value_reference }).collect();
            unknowns.extend(
                derivatives
                    .iter()
                    .map(|v| Fmi3Unknown::ContinuousStateDerivative { value_reference: v.value_reference }),
            );
            unknowns.extend(
                initial_unknowns.iter().map(|v| Fmi3Unknown::InitialUnknown { value_reference: v.value_reference }),
            );
            let md = Fmi3ModelDescription {
                fmi_version: "3.0",
                model_name: d.name.clone(),
                token: token.to_string(),
                description,
                version: "1.0",
                generation_tool: tool,
                naming: "structured",
                model_exchange: model_exchange.then(|| Fmi3ModelExchange {
                    model_identifier: d.name.clone(),
                    needs_completed_step: true,
                    evaluate_discrete_states: false,
                    get_set_state: true,
                    serialize_state: true,
                    directional: false,
                    adjoint: false,
                    once_per_process: false,
                }),
                co_simulation: Fmi3CoSimulation {
                    model_identifier: d.name.clone(),
                    variable_step: true,
                    get_set_state: true,
                    serialize_state: true,
                    directional: false,
                    adjoint: false,
                    once_per_process: false,
                    event_mode: false,
                    intermediate_update: false,
                    early_return: false,
                    max_output_derivative_order: 0,
                },
                units: unit_definitions(interface)?,
                types: Fmi3TypeDefinitions {
                    types: std::iter::once(Fmi3EnumerationType { name: SOLVER_METHOD_TYPE, items: items(interface) })
                        .chain((!interface.formulations.is_empty()).then(|| Fmi3EnumerationType {
                            name: SOLVER_FORMULATION_TYPE,
                            items: formulation_items(interface),
                        }))
                        .collect(),
                },
                log_categories: log_categories(),
                experiment: experiment(d),
                variables: Fmi3ModelVariables {
                    variables: interface.variables.iter().map(|v| fmi3_variable(interface, v)).collect(),
                },
                structure: Fmi3ModelStructure { unknowns },
            };
            serialize(&md)
        }
    }
}
