//! A version-independent reading of modelDescription.xml (FMI 2.0 and 3.0): just what the CLI
//! needs to set, read, label and plot variables. The `fmi` crate's own schema types drop
//! units and enumeration items, so the CLI reads the XML itself with quick-xml.

use crate::error::{Error, Result};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::borrow::Cow;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmiVersion {
    V2,
    V3,
}

impl FmiVersion {
    pub fn label(self) -> &'static str {
        match self {
            FmiVersion::V2 => "FMI 2.0",
            FmiVersion::V3 => "FMI 3.0",
        }
    }
}

/// Type of a variable. FMI 2 Real/Integer map to Float64/Int32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    Float64,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Boolean,
    Enumeration,
    String,
    Binary,
    Clock,
}

impl VarType {
    fn from_element(name: &str, version: FmiVersion) -> Option<VarType> {
        use VarType::*;
        Some(match (version, name) {
            (FmiVersion::V2, "Real") => Float64,
            (FmiVersion::V2, "Integer") => Int32,
            (FmiVersion::V3, "Float64") => Float64,
            (FmiVersion::V3, "Float32") => Float32,
            (FmiVersion::V3, "Int8") => Int8,
            (FmiVersion::V3, "Int16") => Int16,
            (FmiVersion::V3, "Int32") => Int32,
            (FmiVersion::V3, "Int64") => Int64,
            (FmiVersion::V3, "UInt8") => UInt8,
            (FmiVersion::V3, "UInt16") => UInt16,
            (FmiVersion::V3, "UInt32") => UInt32,
            (FmiVersion::V3, "UInt64") => UInt64,
            (FmiVersion::V3, "Binary") => Binary,
            (FmiVersion::V3, "Clock") => Clock,
            (_, "Boolean") => Boolean,
            (_, "Enumeration") => Enumeration,
            (_, "String") => String,
            _ => return None,
        })
    }

    /// Whether values of this type fit a numeric CSV column.
    pub fn is_numeric(self) -> bool {
        !matches!(self, VarType::String | VarType::Binary | VarType::Clock)
    }

    pub fn name(self) -> &'static str {
        use VarType::*;
        match self {
            Float64 => "Float64 (Real)",
            Float32 => "Float32",
            Int8 => "Int8",
            Int16 => "Int16",
            Int32 => "Int32 (Integer)",
            Int64 => "Int64",
            UInt8 => "UInt8",
            UInt16 => "UInt16",
            UInt32 => "UInt32",
            UInt64 => "UInt64",
            Boolean => "Boolean",
            Enumeration => "Enumeration",
            String => "String",
            Binary => "Binary",
            Clock => "Clock",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Causality {
    Parameter,
    CalculatedParameter,
    StructuralParameter,
    Input,
    Output,
    Local,
    Independent,
}

impl Causality {
    fn parse(s: &str) -> Option<Causality> {
        Some(match s {
            "parameter" => Causality::Parameter,
            "calculatedParameter" => Causality::CalculatedParameter,
            "structuralParameter" => Causality::StructuralParameter,
            "input" => Causality::Input,
            "output" => Causality::Output,
            "local" => Causality::Local,
            "independent" => Causality::Independent,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub vr: u32,
    pub ty: VarType,
    pub causality: Causality,
    /// `constant`, `fixed`, `tunable`, `discrete` or `continuous` (as written or defaulted).
    pub variability: String,
    /// `exact`, `approx`, `calculated`, or None when not written.
    pub initial: Option<String>,
    pub description: Option<String>,
    /// The variable's unit, or its declared type's.
    pub unit: Option<String>,
    pub declared_type: Option<String>,
    pub start: Option<String>,
    /// Bounds of the value (the variable's, else its declared type's), for numeric variables.
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// FMI 3 arrays (a `<Dimension>` child): the CLI handles scalars only.
    pub is_array: bool,
    /// FMI 3 `intermediateUpdate="true"`: may be set or read during intermediate update mode.
    pub intermediate_update: bool,
}

impl Variable {
    /// May the CLI set it before initialization (FMI 2.0.4 Sect. 4.2.4, FMI 3.0 Sect. 2.3.3)?
    pub fn settable(&self) -> std::result::Result<(), &'static str> {
        if self.variability == "constant" {
            return Err("it is a constant");
        }
        match self.causality {
            Causality::Parameter | Causality::StructuralParameter | Causality::Input => Ok(()),
            Causality::Independent => Err("it is the independent variable (time)"),
            Causality::CalculatedParameter => Err("it is a calculated parameter"),
            Causality::Output | Causality::Local => match self.initial.as_deref() {
                Some("exact") | Some("approx") => Ok(()),
                _ => Err("it is computed by the FMU (an output or local variable without a start value)"),
            },
        }
    }
}

/// A type definition: its unit (numeric types) and items (enumerations).
#[derive(Clone, Debug, Default)]
pub struct TypeDef {
    pub unit: Option<String>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub items: Vec<EnumItem>,
}

#[derive(Clone, Debug)]
pub struct EnumItem {
    pub name: String,
    pub value: i64,
    pub description: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct DefaultExperiment {
    pub start: Option<f64>,
    pub stop: Option<f64>,
    pub step: Option<f64>,
    pub tolerance: Option<f64>,
}

/// Co-simulation capability flags the system master uses (FMI 2.0.4 Sect. 4.3.1, FMI 3.0
/// Sect. 4.3.1); absent attributes take the standards' defaults.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoSimulationCapabilities {
    /// FMI 2 `canInterpolateInputs`: takes input derivatives (fmi2SetRealInputDerivatives).
    pub can_interpolate_inputs: bool,
    /// `maxOutputDerivativeOrder`: highest order fmi2GetRealOutputDerivatives /
    /// fmi3GetOutputDerivatives deliver (0: none).
    pub max_output_derivative_order: u32,
    /// FMI 3 `providesIntermediateUpdate`: calls the importer back during a step.
    pub provides_intermediate_update: bool,
}

/// One output's entry of `<ModelStructure>`: on which variables (indices into
/// [`ModelInfo::variables`]) it depends. `None`: no `dependencies` attribute, which the
/// standards read as "depends on every known" (FMI 2.0.4 Sect. 2.2.8, FMI 3.0 Sect. 2.4.8).
#[derive(Clone, Debug, PartialEq)]
pub struct OutputDependency {
    pub output: usize,
    pub dependencies: Option<Vec<usize>>,
}

#[derive(Clone, Debug)]
pub struct ModelInfo {
    pub version: FmiVersion,
    pub fmi_version: String,
    pub model_name: String,
    pub description: Option<String>,
    /// guid (FMI 2) or instantiationToken (FMI 3).
    pub token: String,
    /// modelIdentifier of `<CoSimulation>`, None for an FMU without co-simulation.
    pub cs_identifier: Option<String>,
    pub has_model_exchange: bool,
    pub has_scheduled_execution: bool,
    pub experiment: DefaultExperiment,
    /// Names of the declared log categories.
    pub log_categories: Vec<String>,
    pub variables: Vec<Variable>,
    pub types: HashMap<String, TypeDef>,
    pub capabilities: CoSimulationCapabilities,
    /// `<ModelStructure>` outputs and their dependencies.
    pub output_dependencies: Vec<OutputDependency>,
}

impl ModelInfo {
    pub fn variable(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|v| v.name == name)
    }

    pub fn outputs(&self) -> impl Iterator<Item = &Variable> {
        self.variables.iter().filter(|v| v.causality == Causality::Output)
    }

    /// Name of the independent variable (the CSV's first column).
    pub fn time_name(&self) -> &str {
        self.variables.iter().find(|v| v.causality == Causality::Independent).map_or("time", |v| v.name.as_str())
    }

    pub fn enum_items(&self, var: &Variable) -> &[EnumItem] {
        var.declared_type.as_ref().and_then(|t| self.types.get(t)).map_or(&[], |t| t.items.as_slice())
    }

    /// Names for a "did you mean" hint: those within a few typos of `name`, else those in the
    /// same structured-name group (`pivot.coordinate` -> `pivot.angle`, `pivot.angle_rate`).
    pub fn similar_names(&self, name: &str, filter: impl Fn(&Variable) -> bool) -> Vec<&str> {
        let candidates: Vec<&Variable> = self.variables.iter().filter(|v| filter(v)).collect();
        let mut scored: Vec<(usize, &str)> = candidates
            .iter()
            .map(|v| (edit_distance(&v.name.to_lowercase(), &name.to_lowercase()), v.name.as_str()))
            .filter(|(d, n)| *d <= n.len().max(name.len()) / 3)
            .collect();
        scored.sort();
        if !scored.is_empty() {
            return scored.into_iter().take(3).map(|(_, n)| n).collect();
        }
        match name.split_once('.') {
            Some((group, _)) => candidates
                .iter()
                .filter(|v| v.name.strip_prefix(group).is_some_and(|rest| rest.starts_with('.')))
                .take(5)
                .map(|v| v.name.as_str())
                .collect(),
            None => Vec::new(),
        }
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The attributes of one element, borrowed from the document where no entity or whitespace
/// had to be replaced (an element has a handful: a list searched in order is cheaper than a
/// map of owned strings per element).
struct Attributes<'a>(Vec<(&'a str, Cow<'a, str>)>);

impl<'a> Attributes<'a> {
    fn of(e: &'a BytesStart<'_>) -> Result<Attributes<'a>> {
        // Room for the attributes of a variable (name, valueReference, causality, ...).
        let mut list = Vec::with_capacity(8);
        for attr in e.attributes() {
            let attr = attr.map_err(|err| Error::msg(format!("malformed attribute: {err}")))?;
            let key = attr.key.into_inner();
            let value = attr.normalized_value(XmlVersion::Implicit1_0).map_err(|err| Error::msg(err.to_string()))?;
            list.push((key, value));
        }
        Ok(Attributes(list))
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_ref())
    }

    /// The value as an owned string (for the fields of [`ModelInfo`]).
    fn owned(&self, key: &str) -> Option<String> {
        self.get(key).map(str::to_string)
    }
}

fn number(attrs: &Attributes, key: &str) -> Result<Option<f64>> {
    attrs
        .get(key)
        .map(|s| s.trim().parse::<f64>().map_err(|_| Error::msg(format!("attribute {key}=\"{s}\" is not a number"))))
        .transpose()
}

/// A min or max attribute; one that is not a number is ignored (it bounds nothing the CLI
/// can check) rather than making the whole FMU unreadable.
fn bound(attrs: &Attributes, key: &str) -> Option<f64> {
    attrs.get(key).and_then(|s| s.trim().parse::<f64>().ok())
}

/// Parses modelDescription.xml (FMI 2.0 or 3.0).
pub fn parse(xml: &str) -> Result<ModelInfo> {
    parse_inner(xml).map_err(|e| e.context("cannot read modelDescription.xml"))
}

fn parse_inner(xml: &str) -> Result<ModelInfo> {
    let mut reader = Reader::from_str(xml);
    let mut info: Option<ModelInfo> = None;
    // Element names from the root down to the current element.
    let mut path: Vec<String> = Vec::new();
    let mut current_type: Option<String> = None;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| Error::msg(format!("XML error at byte {}: {e}", reader.buffer_position())))?;
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                path.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let local = e.local_name();
        let name: &str = local.as_ref();
        let attrs = Attributes::of(e)?;
        let parent = path.last().map(String::as_str);
        let grandparent = path.len().checked_sub(2).map(|i| path[i].as_str());
        match (grandparent, parent, name) {
            (None, None, "fmiModelDescription") => {
                let fmi_version = attrs.owned("fmiVersion").unwrap_or_default();
                let version = if fmi_version == "2.0" {
                    FmiVersion::V2
                } else if fmi_version.starts_with("3.") {
                    FmiVersion::V3
                } else {
                    return Err(Error::msg(format!(
                        "fmiVersion=\"{fmi_version}\" is not supported (only FMI 2.0 and 3.0 FMUs can be simulated)"
                    )));
                };
                info = Some(ModelInfo {
                    version,
                    fmi_version,
                    model_name: attrs.owned("modelName").unwrap_or_default(),
                    description: attrs.owned("description"),
                    token: attrs.get("guid").or(attrs.get("instantiationToken")).unwrap_or_default().to_string(),
                    cs_identifier: None,
                    has_model_exchange: false,
                    has_scheduled_execution: false,
                    experiment: DefaultExperiment::default(),
                    log_categories: Vec::new(),
                    variables: Vec::new(),
                    types: HashMap::new(),
                    capabilities: CoSimulationCapabilities::default(),
                    output_dependencies: Vec::new(),
                });
            }
            (None, None, other) => {
                return Err(Error::msg(format!("the root element is <{other}>, not <fmiModelDescription>")))
            }
            _ => {
                let info = info.as_mut().expect("root element seen first");
                read_element(info, &attrs, grandparent, parent, name, &mut current_type)?;
            }
        }
        if !empty {
            path.push(name.to_string());
        }
    }
    info.ok_or_else(|| Error::msg("no <fmiModelDescription> element"))
}

fn read_element(
    info: &mut ModelInfo,
    attrs: &Attributes,
    grandparent: Option<&str>,
    parent: Option<&str>,
    name: &str,
    current_type: &mut Option<String>,
) -> Result<()> {
    let version = info.version;
    match (grandparent, parent, name) {
        (_, Some("fmiModelDescription"), "CoSimulation") => {
            info.cs_identifier = Some(attrs.owned("modelIdentifier").unwrap_or_default());
            let flag = |key: &str| attrs.get(key).is_some_and(|v| v.trim() == "true");
            info.capabilities = CoSimulationCapabilities {
                can_interpolate_inputs: flag("canInterpolateInputs"),
                max_output_derivative_order: attrs
                    .get("maxOutputDerivativeOrder")
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0),
                provides_intermediate_update: flag("providesIntermediateUpdate"),
            };
        }
        // FMI 2: <Outputs><Unknown index=".." dependencies=".."/> (1-based variable indices).
        (Some("ModelStructure"), Some("Outputs"), "Unknown") if version == FmiVersion::V2 => {
            let to_index = |i: usize| i.checked_sub(1).filter(|&i| i < info.variables.len());
            let output = number_list(attrs, "index")?.and_then(|l| l.first().copied()).and_then(to_index);
            let output = output.ok_or_else(|| Error::msg("<ModelStructure><Outputs><Unknown> has no valid index"))?;
            let dependencies = number_list(attrs, "dependencies")?
                .map(|l| l.into_iter().map(|i| to_index(i).ok_or_else(|| bad_dependency(i))).collect())
                .transpose()?;
            info.output_dependencies.push(OutputDependency { output, dependencies });
        }
        // FMI 3: <ModelStructure><Output valueReference=".." dependencies=".."/> (value references).
        (_, Some("ModelStructure"), "Output") if version == FmiVersion::V3 => {
            let to_index = |vr: usize| info.variables.iter().position(|v| v.vr as usize == vr);
            let output = number_list(attrs, "valueReference")?.and_then(|l| l.first().copied()).and_then(to_index);
            let output = output.ok_or_else(|| Error::msg("<ModelStructure><Output> has no valid valueReference"))?;
            let dependencies = number_list(attrs, "dependencies")?
                .map(|l| l.into_iter().map(|vr| to_index(vr).ok_or_else(|| bad_dependency(vr))).collect())
                .transpose()?;
            info.output_dependencies.push(OutputDependency { output, dependencies });
        }
        (_, Some("fmiModelDescription"), "ModelExchange") => info.has_model_exchange = true,
        (_, Some("fmiModelDescription"), "ScheduledExecution") => info.has_scheduled_execution = true,
        (_, Some("fmiModelDescription"), "DefaultExperiment") => {
            info.experiment = DefaultExperiment {
                start: number(attrs, "startTime")?,
                stop: number(attrs, "stopTime")?,
                step: number(attrs, "stepSize")?,
                tolerance: number(attrs, "tolerance")?,
            };
        }
        (Some("fmiModelDescription"), Some("LogCategories"), "Category") => {
            info.log_categories.extend(attrs.owned("name"));
        }
        // FMI 2: <SimpleType name=..><Real unit=../> or <Enumeration><Item/></Enumeration>.
        (_, Some("TypeDefinitions"), "SimpleType") => {
            let type_name = attrs.owned("name").unwrap_or_default();
            info.types.insert(type_name.clone(), TypeDef::default());
            *current_type = Some(type_name);
        }
        (Some("TypeDefinitions"), Some("SimpleType"), _) => {
            if let Some(t) = current_type.as_ref().and_then(|t| info.types.get_mut(t)) {
                t.unit = attrs.owned("unit");
                (t.min, t.max) = (bound(attrs, "min"), bound(attrs, "max"));
            }
        }
        // FMI 3: <Float64Type name=.. unit=..>, <EnumerationType name=..><Item/></EnumerationType>.
        (_, Some("TypeDefinitions"), _) => {
            let type_name = attrs.owned("name").unwrap_or_default();
            let def = TypeDef {
                unit: attrs.owned("unit"),
                min: bound(attrs, "min"),
                max: bound(attrs, "max"),
                items: Vec::new(),
            };
            info.types.insert(type_name.clone(), def);
            *current_type = Some(type_name);
        }
        (_, Some("Enumeration") | Some("EnumerationType"), "Item") => {
            let value = attrs
                .get("value")
                .and_then(|v| v.trim().parse::<i64>().ok())
                .ok_or_else(|| Error::msg(format!("enumeration item {:?} has no integer value", attrs.get("name"))))?;
            if let Some(t) = current_type.as_ref().and_then(|t| info.types.get_mut(t)) {
                t.items.push(EnumItem {
                    name: attrs.owned("name").unwrap_or_default(),
                    value,
                    description: attrs.owned("description"),
                });
            }
        }
        (_, Some("ModelVariables"), element) => {
            // FMI 2: attributes on <ScalarVariable>, type from its child. FMI 3: the element is the type.
            let ty = match version {
                FmiVersion::V2 => VarType::Float64,
                FmiVersion::V3 => VarType::from_element(element, version)
                    .ok_or_else(|| Error::msg(format!("unknown variable element <{element}>")))?,
            };
            info.variables.push(new_variable(attrs, ty, version)?);
        }
        (Some("ModelVariables"), Some("ScalarVariable"), element) if version == FmiVersion::V2 => {
            let var = info.variables.last_mut().expect("parent ScalarVariable pushed");
            var.ty = VarType::from_element(element, version)
                .ok_or_else(|| Error::msg(format!("unknown type element <{element}> in {}", var.name)))?;
            var.declared_type = attrs.owned("declaredType");
            var.unit = attrs.owned("unit");
            var.start = attrs.owned("start");
            (var.min, var.max) = (bound(attrs, "min"), bound(attrs, "max"));
            if var.variability.is_empty() {
                var.variability = default_variability(var.ty).into();
            }
        }
        (Some("ModelVariables"), Some(_), "Dimension") => {
            if let Some(var) = info.variables.last_mut() {
                var.is_array = true;
            }
        }
        _ => {}
    }
    // A variable's unit and bounds default to its declared type's; types precede the variables.
    if let Some(var) = info.variables.last_mut() {
        if let Some(t) = var.declared_type.as_ref().and_then(|t| info.types.get(t)) {
            var.unit = var.unit.take().or_else(|| t.unit.clone());
            var.min = var.min.or(t.min);
            var.max = var.max.or(t.max);
        }
    }
    Ok(())
}

/// A whitespace-separated list of unsigned integers (`dependencies="3 4"`), None if absent.
fn number_list(attrs: &Attributes, key: &str) -> Result<Option<Vec<usize>>> {
    attrs
        .get(key)
        .map(|s| {
            s.split_whitespace()
                .map(|n| {
                    n.parse::<usize>()
                        .map_err(|_| Error::msg(format!("attribute {key}=\"{s}\" is not a list of integers")))
                })
                .collect()
        })
        .transpose()
}

fn bad_dependency(reference: usize) -> Error {
    Error::msg(format!("<ModelStructure>: dependency {reference} names no variable"))
}

fn default_variability(ty: VarType) -> &'static str {
    match ty {
        VarType::Float64 | VarType::Float32 => "continuous",
        _ => "discrete",
    }
}

fn new_variable(attrs: &Attributes, ty: VarType, version: FmiVersion) -> Result<Variable> {
    let name = attrs.owned("name").ok_or_else(|| Error::msg("a variable has no name"))?;
    let vr = attrs
        .get("valueReference")
        .and_then(|v| v.trim().parse::<u32>().ok())
        .ok_or_else(|| Error::msg(format!("variable {name} has no valid valueReference")))?;
    let causality = match attrs.get("causality") {
        Some(c) => {
            Causality::parse(c).ok_or_else(|| Error::msg(format!("variable {name}: unknown causality \"{c}\"")))?
        }
        None => Causality::Local,
    };
    // FMI 2 variables get their type (and so the default variability) from the child element.
    let variability = attrs.owned("variability").unwrap_or_else(|| match version {
        FmiVersion::V2 => String::new(),
        FmiVersion::V3 => default_variability(ty).into(),
    });
    Ok(Variable {
        name,
        vr,
        ty,
        causality,
        variability,
        initial: attrs.owned("initial"),
        description: attrs.owned("description"),
        unit: attrs.owned("unit"),
        declared_type: attrs.owned("declaredType"),
        start: attrs.owned("start"),
        min: bound(attrs, "min"),
        max: bound(attrs, "max"),
        is_array: false,
        intermediate_update: attrs.get("intermediateUpdate").is_some_and(|v| v.trim() == "true"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FMI2: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="M" guid="{x}">
  <CoSimulation modelIdentifier="M_id"/>
  <TypeDefinitions>
    <SimpleType name="Length"><Real unit="m" min="0"/></SimpleType>
    <SimpleType name="Method"><Enumeration><Item name="a" value="1"/><Item name="b" value="2"/></Enumeration></SimpleType>
  </TypeDefinitions>
  <LogCategories><Category name="logStatusError"/><Category name="logAll"/></LogCategories>
  <DefaultExperiment startTime="0" stopTime="2.5" stepSize="0.01"/>
  <ModelVariables>
    <ScalarVariable name="time" valueReference="0" causality="independent"><Real/></ScalarVariable>
    <ScalarVariable name="m" valueReference="1" causality="parameter" variability="fixed"><Enumeration declaredType="Method" start="1"/></ScalarVariable>
    <ScalarVariable name="x" valueReference="2" causality="output"><Real declaredType="Length"/></ScalarVariable>
    <ScalarVariable name="n" valueReference="3" causality="output"><Integer/></ScalarVariable>
    <ScalarVariable name="k" valueReference="4" causality="parameter"><Real declaredType="Length" start="1" min="0.5" max="2"/></ScalarVariable>
  </ModelVariables>
  <ModelStructure/>
</fmiModelDescription>"#;

    #[test]
    fn reads_fmi2_types_units_and_items() {
        let m = parse(FMI2).unwrap();
        assert_eq!(m.version, FmiVersion::V2);
        assert_eq!(m.cs_identifier.as_deref(), Some("M_id"));
        assert_eq!(m.experiment.stop, Some(2.5));
        assert_eq!(m.log_categories, ["logStatusError", "logAll"]);
        let x = m.variable("x").unwrap();
        assert_eq!((x.ty, x.unit.as_deref(), x.variability.as_str()), (VarType::Float64, Some("m"), "continuous"));
        let n = m.variable("n").unwrap();
        assert_eq!((n.ty, n.variability.as_str()), (VarType::Int32, "discrete"));
        let e = m.variable("m").unwrap();
        assert_eq!(e.ty, VarType::Enumeration);
        let items: Vec<_> = m.enum_items(e).iter().map(|i| (i.name.as_str(), i.value)).collect();
        assert_eq!(items, [("a", 1), ("b", 2)]);
        assert_eq!((x.min, x.max), (Some(0.0), None), "bounds of the declared type");
        let k = m.variable("k").unwrap();
        assert_eq!((k.min, k.max), (Some(0.5), Some(2.0)), "the variable's own bounds win");
        assert_eq!(m.outputs().count(), 2);
        assert!(m.variable("time").unwrap().settable().is_err());
        assert!(e.settable().is_ok());
    }

    #[test]
    fn reads_fmi3_variables() {
        let xml = r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
  <ModelExchange modelIdentifier="M"/>
  <TypeDefinitions><Float64Type name="V" unit="m/s"/><EnumerationType name="E"><Item name="on" value="3"/></EnumerationType></TypeDefinitions>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="v" valueReference="1" causality="output" declaredType="V"/>
    <Enumeration name="e" valueReference="2" causality="parameter" variability="fixed" declaredType="E" start="3"/>
    <Int32 name="i" valueReference="4" causality="parameter" variability="fixed" start="3" min="1" max="x"/>
    <Float64 name="arr" valueReference="3" causality="output"><Dimension start="2"/></Float64>
  </ModelVariables>
</fmiModelDescription>"#;
        let m = parse(xml).unwrap();
        assert_eq!(m.version, FmiVersion::V3);
        assert!(m.cs_identifier.is_none() && m.has_model_exchange);
        assert_eq!(m.variable("v").unwrap().unit.as_deref(), Some("m/s"));
        assert_eq!(m.enum_items(m.variable("e").unwrap())[0].value, 3);
        assert!(m.variable("arr").unwrap().is_array);
        let i = m.variable("i").unwrap();
        assert_eq!((i.min, i.max), (Some(1.0), None), "a bound that is not a number bounds nothing");
        assert!(!m.variable("v").unwrap().is_array);
    }

    #[test]
    fn rejects_fmi1_and_suggests_names() {
        let err = parse(r#"<fmiModelDescription fmiVersion="1.0"/>"#).unwrap_err();
        assert!(err.to_string().contains("only FMI 2.0 and 3.0"), "{err}");
        let m = parse(FMI2).unwrap();
        assert_eq!(m.similar_names("X", |_| true), ["x"]);
        assert!(m.similar_names("completely_different", |_| true).is_empty());
        assert_eq!(m.similar_names("m.unknown_member", |_| true), Vec::<&str>::new());
        let grouped = parse(&FMI2.replace("name=\"n\"", "name=\"x.n\"")).unwrap();
        assert_eq!(grouped.similar_names("x.coordinate", |_| true), ["x.n"]);
    }

    #[test]
    fn reads_capabilities_and_output_dependencies() {
        let fmi2 = FMI2
            .replace("<CoSimulation modelIdentifier=\"M_id\"/>", "<CoSimulation modelIdentifier=\"M_id\" canInterpolateInputs=\"true\" maxOutputDerivativeOrder=\"2\"/>")
            .replace("<ModelStructure/>", "<ModelStructure><Outputs><Unknown index=\"3\" dependencies=\"5 2\"/><Unknown index=\"4\"/></Outputs></ModelStructure>");
        let m = parse(&fmi2).unwrap();
        assert_eq!(
            m.capabilities,
            CoSimulationCapabilities {
                can_interpolate_inputs: true,
                max_output_derivative_order: 2,
                provides_intermediate_update: false
            }
        );
        // 1-based indices to positions: x (3) depends on k (5) and m (2); n (4) says nothing.
        assert_eq!(m.output_dependencies[0], OutputDependency { output: 2, dependencies: Some(vec![4, 1]) });
        assert_eq!(m.output_dependencies[1], OutputDependency { output: 3, dependencies: None });
        assert!(parse(&fmi2.replace("dependencies=\"5 2\"", "dependencies=\"9\"")).is_err());
        let fmi3 = r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
  <CoSimulation modelIdentifier="M" providesIntermediateUpdate="true"/>
  <ModelVariables>
    <Float64 name="u" valueReference="7" causality="input" start="0" intermediateUpdate="true"/>
    <Float64 name="y" valueReference="3" causality="output"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="3" dependencies="7"/></ModelStructure>
</fmiModelDescription>"#;
        let m = parse(fmi3).unwrap();
        assert!(m.capabilities.provides_intermediate_update && m.variables[0].intermediate_update);
        assert_eq!(m.output_dependencies, [OutputDependency { output: 1, dependencies: Some(vec![0]) }]);
    }
}
