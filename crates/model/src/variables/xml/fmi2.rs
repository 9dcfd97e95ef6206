//! modelDescription.xml of FMI 2.0 (FMI 2.0.4 Sect. 2.2).

use super::*;

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

/// FMI 2.0.4 Sect. 3.3.1 (state-space and semirecursive formulations).
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
    /// ScalarVariable indices of the knowns, ascending (Sect. 2.2.8).
    #[serde(rename = "@dependencies", skip_serializing_if = "Option::is_none")]
    dependencies: Option<String>,
    #[serde(rename = "@dependenciesKind", skip_serializing_if = "Option::is_none")]
    dependencies_kind: Option<String>,
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
    let index = |v: &Variable| {
        interface
            .variables
            .iter()
            .position(|w| w.value_reference == v.value_reference)
            .expect("variable is in the table")
            + 1
    };
    let with_dependencies = |u: &Structured| {
        let join = |f: &dyn Fn(&(&Variable, DependencyKind)) -> String| {
            u.dependencies.iter().map(f).collect::<Vec<_>>().join(" ")
        };
        Fmi2Unknown {
            index: index(u.variable),
            dependencies: Some(join(&|(v, _)| index(v).to_string())),
            dependencies_kind: Some(join(&|(_, k)| k.name().to_string())),
        }
    };
    let md = Fmi2ModelDescription {
        fmi_version: "2.0",
        model_name: d.name.clone(),
        guid: token.to_string(),
        description,
        version: "1.0",
        generation_tool: tool,
        naming: "structured",
        event_indicators: event_indicators.len() as u32,
        model_exchange: model_exchange.then(|| Fmi2ModelExchange {
            model_identifier: d.name.clone(),
            needs_execution_tool: false,
            completed_step_not_needed: false,
            once_per_process: false,
            no_memory_functions: true,
            get_set_state: true,
            serialize_state: true,
            directional_derivative: DIRECTIONAL_DERIVATIVES,
        }),
        co_simulation: Fmi2CoSimulation {
            model_identifier: d.name.clone(),
            needs_execution_tool: false,
            variable_step: true,
            // FMI 2.0.4 Sect. 4.2.1: input derivatives are interpolated inside the integrator;
            // output derivatives come from the state.
            interpolate_inputs: true,
            max_output_derivative_order: MAX_OUTPUT_DERIVATIVE_ORDER,
            asynchronous: false,
            once_per_process: false,
            no_memory_functions: true,
            get_set_state: true,
            serialize_state: true,
            directional_derivative: DIRECTIONAL_DERIVATIVES,
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
            .chain(constraint_form_items(interface).map(|items| Fmi2SimpleType {
                name: SOLVER_CONSTRAINT_FORM_TYPE,
                enumeration: Fmi2Enumeration { items },
            }))
            .collect(),
        },
        log_categories: log_categories(),
        experiment: experiment(d),
        variables: Fmi2ModelVariables {
            variables: interface.variables.iter().map(|v| fmi2_variable(interface, v)).collect(),
        },
        structure: Fmi2ModelStructure {
            outputs: (!outputs.is_empty())
                .then(|| Fmi2Unknowns { unknowns: outputs.iter().map(with_dependencies).collect() }),
            derivatives: (!derivatives.is_empty())
                .then(|| Fmi2Unknowns { unknowns: derivatives.iter().map(with_dependencies).collect() }),
            initial_unknowns: (!initial_unknowns.is_empty()).then(|| Fmi2Unknowns {
                unknowns: initial_unknowns
                    .iter()
                    .map(|v| Fmi2Unknown { index: index(v), dependencies: None, dependencies_kind: None })
                    .collect(),
            }),
        },
    };
    serialize(&md)
}
