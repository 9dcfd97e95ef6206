//! modelDescription.xml of FMI 3.0 (FMI 3.0 Sect. 2.4).

use super::*;

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

/// FMI 3.0 Sect. 3.3 (state-space and semirecursive formulations).
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
        /// Sect. 2.4.7.4: accessible in Intermediate Update Mode (continuous inputs and
        /// outputs).
        #[serde(rename = "@intermediateUpdate", skip_serializing_if = "Option::is_none")]
        intermediate_update: Option<bool>,
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
        /// Value references of the knowns (Sect. 2.4.8).
        #[serde(rename = "@dependencies")]
        dependencies: String,
        #[serde(rename = "@dependenciesKind")]
        dependencies_kind: String,
    },
    ContinuousStateDerivative {
        #[serde(rename = "@valueReference")]
        value_reference: u32,
        #[serde(rename = "@dependencies")]
        dependencies: String,
        #[serde(rename = "@dependenciesKind")]
        dependencies_kind: String,
    },
    InitialUnknown {
        #[serde(rename = "@valueReference")]
        value_reference: u32,
    },
    EventIndicator {
        #[serde(rename = "@valueReference")]
        value_reference: u32,
    },
}

/// (dependencies, dependenciesKind) of an unknown.
fn lists(u: &Structured) -> (String, String) {
    let vrs: Vec<String> = u.dependencies.iter().map(|(v, _)| v.value_reference.to_string()).collect();
    let kinds: Vec<&str> = u.dependencies.iter().map(|(_, k)| k.name()).collect();
    (vrs.join(" "), kinds.join(" "))
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
            intermediate_update: v.is_continuous_signal().then_some(true),
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

pub(super) fn write(doc: &Document) -> Result<String, String> {
    let Document {
        d,
        interface,
        token,
        tool,
        description,
        outputs,
        derivatives,
        initial_unknowns,
        event_indicators,
        model_exchange,
    } = doc;
    let (tool, description) = (tool.clone(), description.clone());
    let mut unknowns: Vec<Fmi3Unknown> = outputs
        .iter()
        .map(|u| {
            let (dependencies, dependencies_kind) = lists(u);
            Fmi3Unknown::Output { value_reference: u.variable.value_reference, dependencies, dependencies_kind }
        })
        .collect();
    unknowns.extend(derivatives.iter().map(|u| {
        let (dependencies, dependencies_kind) = lists(u);
        Fmi3Unknown::ContinuousStateDerivative {
            value_reference: u.variable.value_reference,
            dependencies,
            dependencies_kind,
        }
    }));
    unknowns
        .extend(initial_unknowns.iter().map(|v| Fmi3Unknown::InitialUnknown { value_reference: v.value_reference }));
    unknowns
        .extend(event_indicators.iter().map(|v| Fmi3Unknown::EventIndicator { value_reference: v.value_reference }));
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
            directional: DIRECTIONAL_DERIVATIVES,
            adjoint: false,
            once_per_process: false,
        }),
        co_simulation: Fmi3CoSimulation {
            model_identifier: d.name.clone(),
            variable_step: true,
            get_set_state: true,
            serialize_state: true,
            directional: DIRECTIONAL_DERIVATIVES,
            adjoint: false,
            once_per_process: false,
            event_mode: false,
            // Sect. 4.2.2: callbacks after every internal step of fmi3DoStep, where the
            // intermediate inputs may be set; no early return from them.
            intermediate_update: true,
            early_return: false,
            max_output_derivative_order: MAX_OUTPUT_DERIVATIVE_ORDER,
        },
        units: unit_definitions(interface)?,
        types: Fmi3TypeDefinitions {
            types: std::iter::once(Fmi3EnumerationType { name: SOLVER_METHOD_TYPE, items: items(interface) })
                .chain((!interface.formulations.is_empty()).then(|| Fmi3EnumerationType {
                    name: SOLVER_FORMULATION_TYPE,
                    items: formulation_items(interface),
                }))
                .chain(
                    constraint_form_items(interface)
                        .map(|items| Fmi3EnumerationType { name: SOLVER_CONSTRAINT_FORM_TYPE, items }),
                )
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
