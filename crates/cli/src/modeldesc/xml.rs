//! Reading modelDescription.xml with quick-xml: the walk over the document's elements and the
//! attributes of each, into a [`ModelInfo`], with an error naming the element or attribute
//! that cannot be read.

use super::{
    Causality, CoSimulationCapabilities, DefaultExperiment, EnumItem, FmiVersion, ModelInfo, OutputDependency, TypeDef,
    VarType, Variable,
};
use crate::error::{Error, Result};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::borrow::Cow;
use std::collections::HashMap;

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
