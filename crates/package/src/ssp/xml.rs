//! SystemStructure.ssd and the parameter sets (.ssv) as serde types written by quick-xml
//! (Modelica Association, "System Structure and Parameterization", version 1.0, 2019:
//! SSD Sect. 5, SSV Sect. 6, common content Sect. 4). Element and attribute order follows
//! the standard's XML schemas; the prefixes are the standard's (ssd, ssc, ssv), which
//! libcosim requires literally.

use super::spec::{Component, ParameterValue, System};
use mbfmu_model::variables::{unit_definition, VarType, Variable};
use serde::{Serialize, Serializer};

const NS_SSD: &str = "http://ssp-standard.org/SSP1/SystemStructureDescription";
const NS_SSC: &str = "http://ssp-standard.org/SSP1/SystemStructureCommon";
const NS_SSV: &str = "http://ssp-standard.org/SSP1/SystemStructureParameterValues";
/// The Open Simulation Platform's annotations (libcosim reads the fixed-step algorithm's
/// base step from them).
pub const NS_OSP: &str = "http://opensimulationplatform.com/SSP/OSPAnnotations";
pub const OSP_ANNOTATION: &str = "com.opensimulationplatform";
const SSP_VERSION: &str = "1.0";

/// A number in the shortest form that reads back to the same f64 (xs:double syntax).
fn double<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    let a = x.abs();
    let text = if *x == 0.0 || (1e-4..1e15).contains(&a) { format!("{x:?}") } else { format!("{x:e}") };
    s.serialize_str(&text)
}

#[derive(Serialize)]
#[serde(rename = "ssd:SystemStructureDescription")]
struct Ssd<'a> {
    #[serde(rename = "@xmlns:ssd")]
    ns_ssd: &'static str,
    #[serde(rename = "@xmlns:ssc")]
    ns_ssc: &'static str,
    #[serde(rename = "@xmlns:osp")]
    ns_osp: &'static str,
    #[serde(rename = "@version")]
    version: &'static str,
    #[serde(rename = "@name")]
    name: &'a str,
    #[serde(rename = "@description")]
    description: &'a str,
    #[serde(rename = "@generationTool")]
    generation_tool: String,
    #[serde(rename = "ssd:System")]
    system: SsdSystem<'a>,
    #[serde(rename = "ssd:Units")]
    units: Units,
    #[serde(rename = "ssd:DefaultExperiment")]
    experiment: DefaultExperiment,
}

#[derive(Serialize)]
struct SsdSystem<'a> {
    #[serde(rename = "@name")]
    name: &'a str,
    #[serde(rename = "ssd:Elements")]
    elements: Elements<'a>,
    #[serde(rename = "ssd:Connections")]
    connections: Connections<'a>,
}

#[derive(Serialize)]
struct Elements<'a> {
    #[serde(rename = "ssd:Component")]
    components: Vec<SsdComponent<'a>>,
}

#[derive(Serialize)]
struct SsdComponent<'a> {
    #[serde(rename = "@name")]
    name: &'a str,
    #[serde(rename = "@type")]
    mime: &'static str,
    #[serde(rename = "@source")]
    source: String,
    #[serde(rename = "@implementation")]
    implementation: &'static str,
    #[serde(rename = "ssd:Connectors")]
    connectors: Connectors<'a>,
    #[serde(rename = "ssd:ParameterBindings", skip_serializing_if = "Option::is_none")]
    bindings: Option<ParameterBindings>,
}

#[derive(Serialize)]
struct Connectors<'a> {
    #[serde(rename = "ssd:Connector")]
    connectors: Vec<Connector<'a>>,
}

#[derive(Serialize)]
struct Connector<'a> {
    #[serde(rename = "@name")]
    name: &'a str,
    #[serde(rename = "@kind")]
    kind: &'static str,
    #[serde(rename = "$value")]
    ty: TypeChoice<'a>,
}

/// SSP 1.0 Sect. 4.5.1 (GTypeChoice); FMI 3 Float64 variables are connectors of type Real.
#[derive(Serialize)]
enum TypeChoice<'a> {
    #[serde(rename = "ssc:Real")]
    Real {
        #[serde(rename = "@unit", skip_serializing_if = "Option::is_none")]
        unit: Option<&'a str>,
    },
    #[serde(rename = "ssc:Integer")]
    Integer {},
    #[serde(rename = "ssc:Boolean")]
    Boolean {},
    #[serde(rename = "ssc:String")]
    String {},
}

#[derive(Serialize)]
struct ParameterBindings {
    #[serde(rename = "ssd:ParameterBinding")]
    binding: ParameterBinding,
}

#[derive(Serialize)]
struct ParameterBinding {
    #[serde(rename = "@type")]
    mime: &'static str,
    #[serde(rename = "@source")]
    source: String,
}

#[derive(Serialize)]
struct Connections<'a> {
    #[serde(rename = "ssd:Connection")]
    connections: Vec<Connection<'a>>,
}

#[derive(Serialize)]
struct Connection<'a> {
    #[serde(rename = "@startElement")]
    start_element: &'a str,
    #[serde(rename = "@startConnector")]
    start_connector: &'a str,
    #[serde(rename = "@endElement")]
    end_element: &'a str,
    #[serde(rename = "@endConnector")]
    end_connector: &'a str,
}

#[derive(Serialize)]
struct Units {
    #[serde(rename = "ssc:Unit")]
    units: Vec<Unit>,
}

#[derive(Serialize)]
struct Unit {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "ssc:BaseUnit")]
    base: BaseUnit,
}

/// SI exponents; zero ones are left out (their schema default).
#[derive(Serialize)]
struct BaseUnit {
    #[serde(rename = "@kg", skip_serializing_if = "is_zero")]
    kg: i32,
    #[serde(rename = "@m", skip_serializing_if = "is_zero")]
    m: i32,
    #[serde(rename = "@s", skip_serializing_if = "is_zero")]
    s: i32,
    #[serde(rename = "@A", skip_serializing_if = "is_zero")]
    a: i32,
    #[serde(rename = "@rad", skip_serializing_if = "is_zero")]
    rad: i32,
}

fn is_zero(x: &i32) -> bool {
    *x == 0
}

#[derive(Serialize)]
struct DefaultExperiment {
    #[serde(rename = "@startTime", serialize_with = "double")]
    start: f64,
    #[serde(rename = "@stopTime", serialize_with = "double")]
    stop: f64,
    #[serde(rename = "ssd:Annotations")]
    annotations: ExperimentAnnotations,
}

#[derive(Serialize)]
struct ExperimentAnnotations {
    #[serde(rename = "ssc:Annotation")]
    annotation: OspAnnotation,
}

#[derive(Serialize)]
struct OspAnnotation {
    #[serde(rename = "@type")]
    kind: &'static str,
    #[serde(rename = "osp:Algorithm")]
    algorithm: OspAlgorithm,
}

#[derive(Serialize)]
struct OspAlgorithm {
    #[serde(rename = "osp:FixedStepAlgorithm")]
    fixed_step: OspFixedStep,
}

#[derive(Serialize)]
struct OspFixedStep {
    #[serde(rename = "@baseStepSize", serialize_with = "double")]
    base_step_size: f64,
}

#[derive(Serialize)]
#[serde(rename = "ssv:ParameterSet")]
struct ParameterSet<'a> {
    #[serde(rename = "@xmlns:ssv")]
    ns_ssv: &'static str,
    #[serde(rename = "@xmlns:ssc")]
    ns_ssc: &'static str,
    #[serde(rename = "@version")]
    version: &'static str,
    #[serde(rename = "@name")]
    name: &'a str,
    #[serde(rename = "ssv:Parameters")]
    parameters: Parameters<'a>,
    #[serde(rename = "ssv:Units", skip_serializing_if = "Option::is_none")]
    units: Option<Units>,
}

#[derive(Serialize)]
struct Parameters<'a> {
    #[serde(rename = "ssv:Parameter")]
    parameters: Vec<Parameter<'a>>,
}

#[derive(Serialize)]
struct Parameter<'a> {
    #[serde(rename = "@name")]
    name: &'a str,
    #[serde(rename = "$value")]
    value: ValueChoice<'a>,
}

#[derive(Serialize)]
enum ValueChoice<'a> {
    #[serde(rename = "ssv:Real")]
    Real {
        #[serde(rename = "@value", serialize_with = "double")]
        value: f64,
        #[serde(rename = "@unit", skip_serializing_if = "Option::is_none")]
        unit: Option<&'a str>,
    },
    #[serde(rename = "ssv:Integer")]
    Integer {
        #[serde(rename = "@value")]
        value: i64,
    },
    #[serde(rename = "ssv:Boolean")]
    Boolean {
        #[serde(rename = "@value")]
        value: bool,
    },
}

/// Where a component's FMU and parameter set are inside the archive.
pub fn fmu_entry(component: &Component) -> String {
    format!("resources/{}.fmu", component.entry.name)
}

pub fn ssv_entry(component: &Component) -> String {
    format!("resources/{}.ssv", component.name)
}

fn to_xml<T: Serialize>(value: &T) -> String {
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut serializer = quick_xml::se::Serializer::new(&mut text);
    serializer.indent(' ', 2);
    value.serialize(serializer).expect("the SSP types serialize");
    text.push('\n');
    text
}

/// The unit declarations of every unit in `units` (those the model format knows).
fn unit_definitions<'a>(units: impl Iterator<Item = &'a str>) -> Units {
    let mut names: Vec<&str> = units.collect();
    names.sort_unstable();
    names.dedup();
    let units = names
        .into_iter()
        .filter_map(|name| {
            let e = unit_definition(name)?;
            let exponent = |key: &str| e.iter().find(|(k, _)| *k == key).map_or(0, |(_, x)| *x);
            let base = BaseUnit {
                kg: exponent("kg"),
                m: exponent("m"),
                s: exponent("s"),
                a: exponent("A"),
                rad: exponent("rad"),
            };
            Some(Unit { name: name.to_string(), base })
        })
        .collect();
    Units { units }
}

fn kind(v: &Variable) -> &'static str {
    match v.causality {
        mbfmu_model::variables::Causality::Input => "input",
        mbfmu_model::variables::Causality::Output => "output",
        _ => "parameter",
    }
}

fn type_choice(v: &Variable) -> TypeChoice<'_> {
    match v.ty {
        VarType::Real => TypeChoice::Real { unit: v.unit.as_deref() },
        VarType::Boolean => TypeChoice::Boolean {},
        VarType::String => TypeChoice::String {},
        VarType::Integer | VarType::Enumeration => TypeChoice::Integer {},
    }
}

/// SystemStructure.ssd of `system`.
pub fn ssd(system: &System) -> String {
    let components = system
        .components
        .iter()
        .map(|c| SsdComponent {
            name: &c.name,
            mime: "application/x-fmu-sharedlibrary",
            source: fmu_entry(c),
            implementation: "CoSimulation",
            connectors: Connectors {
                connectors: c
                    .connectors
                    .iter()
                    .map(|v| Connector { name: &v.name, kind: kind(v), ty: type_choice(v) })
                    .collect(),
            },
            bindings: (!c.parameters.is_empty()).then(|| ParameterBindings {
                binding: ParameterBinding { mime: "application/x-ssp-parameter-set", source: ssv_entry(c) },
            }),
        })
        .collect();
    let connections = system
        .connections
        .iter()
        .map(|&(from, output, to, input)| Connection {
            start_element: &system.components[from].name,
            start_connector: &system.components[from].connectors[output].name,
            end_element: &system.components[to].name,
            end_connector: &system.components[to].connectors[input].name,
        })
        .collect();
    let units =
        unit_definitions(system.components.iter().flat_map(|c| c.connectors.iter()).filter_map(|v| v.unit.as_deref()));
    to_xml(&Ssd {
        ns_ssd: NS_SSD,
        ns_ssc: NS_SSC,
        ns_osp: NS_OSP,
        version: SSP_VERSION,
        name: &system.name,
        description: &system.description,
        generation_tool: format!("mbfmu {}", env!("CARGO_PKG_VERSION")),
        system: SsdSystem {
            name: &system.name,
            elements: Elements { components },
            connections: Connections { connections },
        },
        units,
        experiment: DefaultExperiment {
            start: system.start,
            stop: system.stop,
            annotations: ExperimentAnnotations {
                annotation: OspAnnotation {
                    kind: OSP_ANNOTATION,
                    algorithm: OspAlgorithm { fixed_step: OspFixedStep { base_step_size: system.step } },
                },
            },
        },
    })
}

/// The parameter set (.ssv) of one component: plain variable names, as a component-level
/// binding applies them (SSP 1.0 Sect. 5.3.3).
pub fn ssv(component: &Component) -> String {
    let parameters = component
        .parameters
        .iter()
        .map(|(v, value)| Parameter {
            name: &v.name,
            value: match value {
                ParameterValue::Real(x) => ValueChoice::Real { value: *x, unit: v.unit.as_deref() },
                ParameterValue::Integer(i) => ValueChoice::Integer { value: *i },
                ParameterValue::Boolean(b) => ValueChoice::Boolean { value: *b },
            },
        })
        .collect();
    let units = unit_definitions(component.parameters.iter().filter_map(|(v, _)| v.unit.as_deref()));
    to_xml(&ParameterSet {
        ns_ssv: NS_SSV,
        ns_ssc: NS_SSC,
        version: SSP_VERSION,
        name: &component.name,
        parameters: Parameters { parameters },
        units: (!units.units.is_empty()).then_some(units),
    })
}
