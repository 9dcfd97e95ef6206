//! modelDescription.xml for FMI 2.0 and FMI 3.0 co-simulation, written with quick-xml's
//! serde serializer from the variable table (FMI 2.0.4 Sect. 2.2, FMI 3.0 Sect. 2.4).

use super::{
    dependencies, unit_definition, Binding, Causality, DependencyKind, Initial, Known, ModelInterface, SolverSetting,
    Start, StateLayout, Unknown, VarType, Variability, Variable, LOG_CATEGORIES, MAX_OUTPUT_DERIVATIVE_ORDER,
    SOLVER_CONSTRAINT_FORM_TYPE, SOLVER_FORMULATION_TYPE, SOLVER_METHOD_TYPE,
};
use crate::format::{ConstraintForm, Description};
use serde::Serialize;
use std::collections::BTreeSet;

mod fmi2;
mod fmi3;

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

fn unit_definitions(interface: &ModelInterface) -> Result<Option<UnitDefinitions>, String> {
    let used: BTreeSet<&str> = interface.variables.iter().filter_map(|v| v.unit.as_deref()).collect();
    let mut units = Vec::new();
    for name in used {
        let exps = unit_definition(name)
            .ok_or_else(|| format!("unit '{name}' is not known; units: {}", super::units::KNOWN_UNITS.join(", ")))?;
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

/// The items of `solver.constraintForm` where a variable offers it, else none.
fn constraint_form_items(interface: &ModelInterface) -> Option<Vec<Item>> {
    interface.offers(SolverSetting::ConstraintForm).then(|| {
        ConstraintForm::ALL
            .iter()
            .map(|f| Item { name: f.item_name(), value: f.code(), description: f.summary() })
            .collect()
    })
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

fn serialize<T: Serialize>(md: &T) -> Result<String, String> {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut ser = quick_xml::se::Serializer::new(&mut xml);
    ser.indent(' ', 2);
    md.serialize(ser).map_err(|e| e.to_string())?;
    xml.push('\n');
    Ok(xml)
}

/// The variable a known of `<ModelStructure>` dependencies refers to.
fn known_variable(interface: &ModelInterface, known: Known) -> Option<&Variable> {
    interface.variables.iter().find(|v| match (known, &v.binding) {
        (Known::State(i), Binding::State { index }) => i == *index,
        (Known::Input(i), Binding::Input { index }) => i == *index,
        (Known::Time, Binding::Time) => true,
        _ => false,
    })
}

/// An unknown with its dependencies as variables (sorted by value reference) and kinds.
struct Structured<'a> {
    variable: &'a Variable,
    dependencies: Vec<(&'a Variable, DependencyKind)>,
}

fn structured<'a>(
    d: &Description,
    interface: &'a ModelInterface,
    layout: Option<&StateLayout>,
    variable: &'a Variable,
    unknown: Unknown,
) -> Structured<'a> {
    let mut deps: Vec<(&Variable, DependencyKind)> = dependencies(d, layout, unknown)
        .into_iter()
        .map(|dep| (known_variable(interface, dep.known).expect("every known is a variable"), dep.kind))
        .collect();
    deps.sort_by_key(|(v, _)| v.value_reference);
    Structured { variable, dependencies: deps }
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
    let layout = StateLayout::of(d).map_err(|e| e.to_string())?;
    let outputs: Vec<Structured> = interface
        .outputs()
        .map(|v| match v.binding {
            Binding::Output(q) => structured(d, interface, layout.as_ref(), v, Unknown::Output(q)),
            _ => unreachable!("outputs bind to quantities"),
        })
        .collect();
    let derivatives: Vec<Structured> = interface
        .derivatives()
        .map(|v| match v.binding {
            Binding::Derivative { index } => structured(d, interface, layout.as_ref(), v, Unknown::Derivative(index)),
            _ => unreachable!("derivatives bind to state indices"),
        })
        .collect();
    let event_indicators: Vec<&Variable> = interface.event_indicators().collect();
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
    let doc = Document {
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
    };
    match version {
        FmiVersion::V2 => fmi2::write(&doc),
        FmiVersion::V3 => fmi3::write(&doc),
    }
}

/// Everything both versions' documents are made of.
struct Document<'a> {
    d: &'a Description,
    interface: &'a ModelInterface,
    token: &'a str,
    tool: String,
    description: String,
    outputs: Vec<Structured<'a>>,
    derivatives: Vec<Structured<'a>>,
    initial_unknowns: Vec<&'a Variable>,
    event_indicators: Vec<&'a Variable>,
    model_exchange: bool,
}

/// Every FMU provides directional derivatives: Model Exchange of the state derivatives and
/// outputs by states, inputs and (rheonomic models) time; co-simulation of the outputs by the
/// inputs they feed through.
const DIRECTIONAL_DERIVATIVES: bool = true;
