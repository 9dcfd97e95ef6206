//! Reading SystemStructure.ssd and parameter sets (.ssv) of SSP 1.0 and 2.0 (Modelica
//! Association, "System Structure and Parameterization", version 1.0, 2019, and 2.0, 2024:
//! SSD Sect. 5, SSV Sect. 6), namespace-aware (roxmltree), every item with its line for
//! messages. What the master cannot run is refused here, naming the feature.

use crate::error::{Error, Result};
use roxmltree::{Document, Node};
use std::path::Path;

const NS_SSD: &str = "http://ssp-standard.org/SSP1/SystemStructureDescription";
const NS_SSC: &str = "http://ssp-standard.org/SSP1/SystemStructureCommon";
const NS_SSV: &str = "http://ssp-standard.org/SSP1/SystemStructureParameterValues";
const NS_OSP: &str = "http://opensimulationplatform.com/SSP/OSPAnnotations";

#[derive(Debug)]
pub struct Ssd {
    pub name: String,
    pub components: Vec<ComponentDef>,
    pub connections: Vec<ConnectionDef>,
    /// Bindings of the system itself: hierarchical names `<component>.<variable>`.
    pub bindings: Vec<BindingDef>,
    pub units: Vec<UnitDef>,
    pub start: Option<f64>,
    pub stop: Option<f64>,
    /// The Open Simulation Platform's fixed-step annotation, if present (SSP 1.0 has no step).
    pub step: Option<f64>,
}

#[derive(Debug)]
pub struct ComponentDef {
    pub name: String,
    pub source: String,
    pub line: u32,
    pub connectors: Vec<ConnectorDef>,
    pub bindings: Vec<BindingDef>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Input,
    Output,
    Parameter,
    CalculatedParameter,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Input => "input",
            Kind::Output => "output",
            Kind::Parameter => "parameter",
            Kind::CalculatedParameter => "calculatedParameter",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ConnectorType {
    Real { unit: Option<String> },
    Integer,
    Boolean,
    String,
    Enumeration,
    Binary,
}

impl ConnectorType {
    pub fn name(&self) -> &'static str {
        match self {
            ConnectorType::Real { .. } => "Real",
            ConnectorType::Integer => "Integer",
            ConnectorType::Boolean => "Boolean",
            ConnectorType::String => "String",
            ConnectorType::Enumeration => "Enumeration",
            ConnectorType::Binary => "Binary",
        }
    }
}

#[derive(Debug)]
pub struct ConnectorDef {
    pub name: String,
    pub kind: Kind,
    /// None: no type element (allowed; the FMU's variable decides).
    pub ty: Option<ConnectorType>,
    pub line: u32,
}

#[derive(Debug)]
pub struct ConnectionDef {
    /// (element, connector); element None: a connector of the system itself.
    pub start: (Option<String>, String),
    pub end: (Option<String>, String),
    /// (factor, offset) of an ssc:LinearTransformation.
    pub linear: Option<(f64, f64)>,
    pub suppress_unit_conversion: bool,
    pub line: u32,
}

impl ConnectionDef {
    /// "mechanism.cylinder.length -> drive.cylinder_length (line 40)"
    pub fn label(&self) -> String {
        let end = |(e, c): &(Option<String>, String)| match e {
            Some(e) => format!("{e}.{c}"),
            None => c.clone(),
        };
        format!("connection {} -> {} (line {})", end(&self.start), end(&self.end), self.line)
    }
}

#[derive(Debug)]
pub struct BindingDef {
    /// Where the values come from: the .ssv file or "inline values (line N)".
    pub origin: String,
    pub prefix: String,
    pub parameters: Vec<ParameterDef>,
}

#[derive(Debug)]
pub struct ParameterDef {
    pub name: String,
    pub value: ParameterValue,
    /// The unit a Real value is given in, if written.
    pub unit: Option<String>,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParameterValue {
    Real(f64),
    Integer(i64),
    Boolean(bool),
    String(String),
    /// An item name.
    Enumeration(String),
}

/// A unit: exponents of kg, m, s, A, K, mol, cd, rad, then factor and offset (SSP 1.0
/// Sect. 4.4: value in SI = factor * value + offset).
#[derive(Clone, Debug, PartialEq)]
pub struct UnitDef {
    pub name: String,
    pub exponents: [i32; 8],
    pub factor: f64,
    pub offset: f64,
}

/// One file being read: its name for messages and its document.
struct Reader<'a, 'input> {
    file: &'a str,
    doc: &'a Document<'input>,
}

impl Reader<'_, '_> {
    fn line(&self, node: Node) -> u32 {
        self.doc.text_pos_at(node.range().start).row
    }

    fn err(&self, node: Node, what: impl std::fmt::Display) -> Error {
        Error::msg(format!("{} line {}: {what}", self.file, self.line(node)))
    }

    fn unsupported(&self, node: Node, what: &str) -> Error {
        self.err(node, format!("{what} is not supported by mbfmu's master (SSP feature not implemented)"))
    }

    fn required(&self, node: Node, attribute: &str) -> Result<String> {
        node.attribute(attribute)
            .map(str::to_string)
            .ok_or_else(|| self.err(node, format!("<{}> has no {attribute} attribute", node.tag_name().name())))
    }

    fn number(&self, node: Node, attribute: &str) -> Result<Option<f64>> {
        node.attribute(attribute)
            .map(|s| {
                s.trim().parse::<f64>().map_err(|_| self.err(node, format!("{attribute}=\"{s}\" is not a number")))
            })
            .transpose()
    }
}

fn is(node: Node, namespace: &str, name: &str) -> bool {
    node.is_element() && node.tag_name().name() == name && node.tag_name().namespace() == Some(namespace)
}

fn children<'a, 'i>(node: Node<'a, 'i>, namespace: &'a str, name: &'a str) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    node.children().filter(move |c| is(*c, namespace, name))
}

fn child<'a, 'i>(node: Node<'a, 'i>, namespace: &'a str, name: &'a str) -> Option<Node<'a, 'i>> {
    children(node, namespace, name).next()
}

/// Reads `SystemStructure.ssd` (`file`: its name in messages) whose parameter files are
/// relative to `base`.
pub fn read(text: &str, file: &str, base: &Path) -> Result<Ssd> {
    let doc = Document::parse(text).map_err(|e| Error::msg(format!("{file} is not well-formed XML: {e}")))?;
    let r = Reader { file, doc: &doc };
    let root = doc.root_element();
    if !is(root, NS_SSD, "SystemStructureDescription") {
        return Err(r.err(
            root,
            format!(
                "the root element is <{}> in namespace {:?}, not <ssd:SystemStructureDescription> ({NS_SSD})",
                root.tag_name().name(),
                root.tag_name().namespace().unwrap_or("none")
            ),
        ));
    }
    let version = r.required(root, "version")?;
    if !(version.starts_with("1.") || version.starts_with("2.")) {
        return Err(r.err(root, format!("SSD version {version} is not supported (1.x and 2.x are)")));
    }
    let system = child(root, NS_SSD, "System").ok_or_else(|| r.err(root, "no <ssd:System> element"))?;
    let mut units = Vec::new();
    for unit in child(root, NS_SSD, "Units").into_iter().flat_map(|u| children(u, NS_SSC, "Unit")) {
        units.push(read_unit(&r, unit)?);
    }
    let (mut start, mut stop, mut step) = (None, None, None);
    if let Some(experiment) = child(root, NS_SSD, "DefaultExperiment") {
        start = r.number(experiment, "startTime")?;
        stop = r.number(experiment, "stopTime")?;
        let fixed = experiment.descendants().find(|n| is(*n, NS_OSP, "FixedStepAlgorithm"));
        if let Some(fixed) = fixed {
            step = r.number(fixed, "baseStepSize")?;
        }
    }
    read_system(&r, system, base, units, start, stop, step)
}

fn read_system(
    r: &Reader,
    system: Node,
    base: &Path,
    units: Vec<UnitDef>,
    start: Option<f64>,
    stop: Option<f64>,
    step: Option<f64>,
) -> Result<Ssd> {
    let name = r.required(system, "name")?;
    for feature in ["SignalDictionaries"] {
        if let Some(node) = child(system, NS_SSD, feature) {
            return Err(r.unsupported(node, "a signal dictionary (<ssd:SignalDictionaries>)"));
        }
    }
    if let Some(node) = child(system, NS_SSD, "Connectors").and_then(|c| children(c, NS_SSD, "Connector").next()) {
        return Err(r.unsupported(
            node,
            "a connector of the system itself (system inputs and outputs; bind a parameter value to the component instead)",
        ));
    }
    let mut components = Vec::new();
    for element in child(system, NS_SSD, "Elements").into_iter().flat_map(|e| e.children().filter(|c| c.is_element())) {
        match element.tag_name().name() {
            "Component" if is(element, NS_SSD, "Component") => components.push(read_component(r, element, base)?),
            "System" => return Err(r.unsupported(element, "a nested system (<ssd:System> inside <ssd:Elements>)")),
            "SignalDictionaryReference" => return Err(r.unsupported(element, "a signal dictionary reference")),
            other => return Err(r.err(element, format!("unknown element <{other}> in <ssd:Elements>"))),
        }
    }
    let mut connections = Vec::new();
    for c in child(system, NS_SSD, "Connections").into_iter().flat_map(|c| children(c, NS_SSD, "Connection")) {
        connections.push(read_connection(r, c)?);
    }
    let bindings = read_bindings(r, system, base)?;
    Ok(Ssd { name, components, connections, bindings, units, start, stop, step })
}

fn read_component(r: &Reader, node: Node, base: &Path) -> Result<ComponentDef> {
    let name = r.required(node, "name")?;
    let source = r.required(node, "source")?;
    let line = r.line(node);
    let kind = node.attribute("type").unwrap_or("application/x-fmu-sharedlibrary");
    if kind != "application/x-fmu-sharedlibrary" {
        return Err(r.unsupported(node, &format!("component '{name}' of type {kind} (only FMUs can be components)")));
    }
    if node.attribute("implementation") == Some("ModelExchange") {
        return Err(r.unsupported(node, &format!("component '{name}' with implementation=\"ModelExchange\"")));
    }
    let mut connectors = Vec::new();
    for c in child(node, NS_SSD, "Connectors").into_iter().flat_map(|c| children(c, NS_SSD, "Connector")) {
        connectors.push(read_connector(r, c)?);
    }
    let bindings = read_bindings(r, node, base)?;
    Ok(ComponentDef { name, source, line, connectors, bindings })
}

fn read_connector(r: &Reader, node: Node) -> Result<ConnectorDef> {
    let name = r.required(node, "name")?;
    let kind = match r.required(node, "kind")?.as_str() {
        "input" => Kind::Input,
        "output" => Kind::Output,
        "parameter" => Kind::Parameter,
        "calculatedParameter" => Kind::CalculatedParameter,
        other => return Err(r.err(node, format!("connector '{name}': kind \"{other}\" is not valid for an FMU component (input, output, parameter, calculatedParameter)"))),
    };
    let ty = node.children().filter(|c| c.is_element()).find_map(|c| {
        let ns = c.tag_name().namespace();
        // SSP 1.0 types are ssc:Real etc.; SSP 2.0's Float64 / Int32 map onto them.
        (ns == Some(NS_SSC)).then(|| match c.tag_name().name() {
            "Real" | "Float64" | "Float32" => {
                Some(ConnectorType::Real { unit: c.attribute("unit").map(str::to_string) })
            }
            "Integer" | "Int8" | "Int16" | "Int32" | "Int64" | "UInt8" | "UInt16" | "UInt32" | "UInt64" => {
                Some(ConnectorType::Integer)
            }
            "Boolean" => Some(ConnectorType::Boolean),
            "String" => Some(ConnectorType::String),
            "Enumeration" => Some(ConnectorType::Enumeration),
            "Binary" => Some(ConnectorType::Binary),
            _ => None,
        })?
    });
    Ok(ConnectorDef { name, kind, ty, line: r.line(node) })
}

fn read_connection(r: &Reader, node: Node) -> Result<ConnectionDef> {
    let end = |element: &str, connector: &str| -> Result<(Option<String>, String)> {
        Ok((node.attribute(element).map(str::to_string), r.required(node, connector)?))
    };
    let mut linear = None;
    for t in node.children().filter(|c| c.is_element()) {
        match t.tag_name().name() {
            "LinearTransformation" => {
                linear = Some((r.number(t, "factor")?.unwrap_or(1.0), r.number(t, "offset")?.unwrap_or(0.0)));
            }
            name @ ("BooleanMappingTransformation"
            | "IntegerMappingTransformation"
            | "EnumerationMappingTransformation") => {
                return Err(r.unsupported(t, &format!("a connection with an {name}")))
            }
            _ => {}
        }
    }
    Ok(ConnectionDef {
        start: end("startElement", "startConnector")?,
        end: end("endElement", "endConnector")?,
        linear,
        suppress_unit_conversion: node.attribute("suppressUnitConversion") == Some("true"),
        line: r.line(node),
    })
}

fn read_unit(r: &Reader, node: Node) -> Result<UnitDef> {
    let name = r.required(node, "name")?;
    let base =
        child(node, NS_SSC, "BaseUnit").ok_or_else(|| r.err(node, format!("unit '{name}' has no <ssc:BaseUnit>")))?;
    let mut exponents = [0; 8];
    for (e, key) in exponents.iter_mut().zip(["kg", "m", "s", "A", "K", "mol", "cd", "rad"]) {
        if let Some(v) = base.attribute(key) {
            *e =
                v.trim().parse().map_err(|_| r.err(base, format!("unit '{name}': {key}=\"{v}\" is not an integer")))?;
        }
    }
    Ok(UnitDef {
        name,
        exponents,
        factor: r.number(base, "factor")?.unwrap_or(1.0),
        offset: r.number(base, "offset")?.unwrap_or(0.0),
    })
}

/// The `<ssd:ParameterBindings>` of a component or system: inline values or .ssv files.
fn read_bindings(r: &Reader, node: Node, base: &Path) -> Result<Vec<BindingDef>> {
    let mut bindings = Vec::new();
    for b in child(node, NS_SSD, "ParameterBindings").into_iter().flat_map(|b| children(b, NS_SSD, "ParameterBinding"))
    {
        let kind = b.attribute("type").unwrap_or("application/x-ssp-parameter-set");
        if kind != "application/x-ssp-parameter-set" {
            return Err(r.unsupported(b, &format!("a parameter binding of type {kind}")));
        }
        if let Some(m) = child(b, NS_SSD, "ParameterMapping") {
            return Err(r.unsupported(m, "a parameter mapping (.ssm)"));
        }
        if b.attribute("sourceBase") == Some("component") {
            return Err(r.unsupported(b, "a parameter source inside the component (sourceBase=\"component\")"));
        }
        let prefix = b.attribute("prefix").unwrap_or("").to_string();
        let binding = match b.attribute("source") {
            Some(source) => {
                let path = base.join(source);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| r.err(b, format!("parameter binding source {source}: cannot read it ({e})")))?;
                let doc =
                    Document::parse(&text).map_err(|e| Error::msg(format!("{source} is not well-formed XML: {e}")))?;
                let ssv = Reader { file: source, doc: &doc };
                let set = doc.root_element();
                BindingDef { origin: source.to_string(), prefix, parameters: read_parameter_set(&ssv, set)? }
            }
            None => {
                let values = child(b, NS_SSD, "ParameterValues")
                    .and_then(|v| child(v, NS_SSV, "ParameterSet"))
                    .ok_or_else(|| r.err(b, "a parameter binding without source has no inline <ssv:ParameterSet>"))?;
                BindingDef {
                    origin: format!("inline parameter values ({} line {})", r.file, r.line(b)),
                    prefix,
                    parameters: read_parameter_set(r, values)?,
                }
            }
        };
        bindings.push(binding);
    }
    Ok(bindings)
}

fn read_parameter_set(r: &Reader, set: Node) -> Result<Vec<ParameterDef>> {
    if !is(set, NS_SSV, "ParameterSet") {
        return Err(r.err(set, format!("<{}> is not an <ssv:ParameterSet> ({NS_SSV})", set.tag_name().name())));
    }
    let mut parameters = Vec::new();
    for p in child(set, NS_SSV, "Parameters").into_iter().flat_map(|p| children(p, NS_SSV, "Parameter")) {
        let name = r.required(p, "name")?;
        let v = p
            .children()
            .find(|c| c.is_element() && c.tag_name().namespace() == Some(NS_SSV))
            .ok_or_else(|| r.err(p, format!("parameter '{name}' has no value element")))?;
        let text = r.required(v, "value")?;
        let bad = |what: &str| r.err(v, format!("parameter '{name}': value \"{text}\" is not {what}"));
        let value = match v.tag_name().name() {
            "Real" | "Float64" | "Float32" => ParameterValue::Real(text.trim().parse().map_err(|_| bad("a number"))?),
            "Integer" | "Int8" | "Int16" | "Int32" | "Int64" | "UInt8" | "UInt16" | "UInt32" | "UInt64" => {
                ParameterValue::Integer(text.trim().parse().map_err(|_| bad("an integer"))?)
            }
            "Boolean" => ParameterValue::Boolean(match text.trim() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => return Err(bad("a Boolean (true, false, 1, 0)")),
            }),
            "String" => ParameterValue::String(text),
            "Enumeration" => ParameterValue::Enumeration(text),
            other => return Err(r.unsupported(v, &format!("a parameter of type {other}"))),
        };
        let unit = v.attribute("unit").filter(|u| !u.is_empty()).map(str::to_string);
        parameters.push(ParameterDef { name, value, unit, line: r.line(v) });
    }
    Ok(parameters)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SSD: &str = r#"<?xml version="1.0"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues" version="1.0" name="s">
  <ssd:System name="s">
    <ssd:Elements>
      <ssd:Component name="a" source="resources/A.fmu">
        <ssd:Connectors>
          <ssd:Connector name="y" kind="output"><ssc:Real unit="mm"/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding>
            <ssd:ParameterValues>
              <ssv:ParameterSet version="1.0" name="p">
                <ssv:Parameters>
                  <ssv:Parameter name="k"><ssv:Real value="2.5"/></ssv:Parameter>
                  <ssv:Parameter name="on"><ssv:Boolean value="true"/></ssv:Parameter>
                </ssv:Parameters>
              </ssv:ParameterSet>
            </ssd:ParameterValues>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="a" startConnector="y" endElement="b" endConnector="u">
        <ssc:LinearTransformation factor="0.001"/>
      </ssd:Connection>
    </ssd:Connections>
  </ssd:System>
  <ssd:Units><ssc:Unit name="mm"><ssc:BaseUnit m="1" factor="0.001"/></ssc:Unit></ssd:Units>
  <ssd:DefaultExperiment startTime="0" stopTime="2"/>
</ssd:SystemStructureDescription>"#;

    #[test]
    fn reads_components_connections_inline_values_and_units() {
        let ssd = read(SSD, "SystemStructure.ssd", Path::new(".")).unwrap();
        assert_eq!(ssd.components[0].connectors[0].ty, Some(ConnectorType::Real { unit: Some("mm".into()) }));
        let values: Vec<_> = ssd.components[0].bindings[0].parameters.iter().map(|p| p.value.clone()).collect();
        assert_eq!(values, [ParameterValue::Real(2.5), ParameterValue::Boolean(true)]);
        let c = &ssd.connections[0];
        assert_eq!((c.linear, c.line), (Some((0.001, 0.0)), 26));
        assert_eq!(c.label(), "connection a.y -> b.u (line 26)");
        assert_eq!((ssd.units[0].factor, ssd.units[0].exponents[1]), (0.001, 1));
        assert_eq!((ssd.start, ssd.stop, ssd.step), (Some(0.0), Some(2.0), None));
    }

    #[test]
    fn refuses_what_the_master_cannot_run() {
        let nested = SSD.replace("<ssd:Component name=\"a\"", "<ssd:System name=\"inner\"/><ssd:Component name=\"a\"");
        let err = read(&nested, "SystemStructure.ssd", Path::new(".")).unwrap_err().to_string();
        assert!(err.contains("line 7") && err.contains("nested system"), "{err}");
        let mapping = SSD.replace("factor=\"0.001\"/>", "factor=\"0.001\"/><ssc:BooleanMappingTransformation/>");
        let err = read(&mapping, "SystemStructure.ssd", Path::new(".")).unwrap_err().to_string();
        assert!(err.contains("BooleanMappingTransformation"), "{err}");
        let err = read("<x/>", "S.ssd", Path::new(".")).unwrap_err().to_string();
        assert!(err.contains("not <ssd:SystemStructureDescription>"), "{err}");
        let err = read("<ssd:S", "S.ssd", Path::new(".")).unwrap_err().to_string();
        assert!(err.contains("not well-formed"), "{err}");
    }
}
