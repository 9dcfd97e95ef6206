//! Systems of catalog models as data (`crates/package/systems/*.json`), checked against the
//! models' interfaces before any XML is written: which FMUs, which connections, which
//! parameters a user tunes, and the default experiment.

use mbfmu_model::catalog::{find, CatalogEntry};
use mbfmu_model::variables::{Causality, Start, VarType, Variable};
use mbfmu_model::Model;
use serde::Deserialize;

/// A system description as written in the JSON file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemSpec {
    pub name: String,
    pub description: String,
    /// In this order in the SSD; the order of a loop's components is the Gauss-Seidel order
    /// of `mbfmu simulate`.
    pub components: Vec<ComponentSpec>,
    pub connections: Vec<ConnectionSpec>,
    pub experiment: ExperimentSpec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentSpec {
    /// The component's name in the system.
    pub name: String,
    /// The catalog model whose FMU it is.
    pub model: String,
    /// Parameters (or inputs' start values) written to the component's parameter set, with
    /// the FMU's start values.
    #[serde(default)]
    pub parameters: Vec<String>,
    /// Outputs exposed as connectors besides those connected.
    #[serde(default)]
    pub outputs: Vec<String>,
}

/// `from`: [component, output]; `to`: [component, input].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionSpec {
    pub from: (String, String),
    pub to: (String, String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    pub start: f64,
    pub stop: f64,
    /// Communication step \[s\]: SSP 1.0's DefaultExperiment has none, so it is written as the
    /// Open Simulation Platform's fixed-step annotation, which libcosim reads.
    pub step: f64,
}

/// A system checked against the catalog: everything the SSD and parameter sets need.
#[derive(Debug)]
pub struct System {
    pub name: String,
    pub description: String,
    pub components: Vec<Component>,
    /// (source component, output, target component, input) by index into `components` and
    /// their `connectors`.
    pub connections: Vec<(usize, usize, usize, usize)>,
    pub start: f64,
    pub stop: f64,
    pub step: f64,
}

#[derive(Debug)]
pub struct Component {
    pub name: String,
    pub entry: &'static CatalogEntry,
    /// The connected variables and the listed outputs, in the FMU's variable order. Inputs
    /// left unconnected are no connectors (they keep their parameter-set or start values):
    /// FMPy's `simulate_ssp` fails on an input connector without a connection.
    pub connectors: Vec<Variable>,
    /// Parameter values: the FMU's start values of the listed variables.
    pub parameters: Vec<(Variable, ParameterValue)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParameterValue {
    Real(f64),
    Integer(i64),
    Boolean(bool),
}

impl SystemSpec {
    pub fn from_json(json: &str) -> Result<SystemSpec, String> {
        serde_json::from_str(json).map_err(|e| format!("system description: {e}"))
    }

    /// Checks every name against the catalog models' interfaces.
    pub fn resolve(&self) -> Result<System, String> {
        let here = |what: String| format!("system {}: {what}", self.name);
        if !(self.experiment.start < self.experiment.stop && self.experiment.step > 0.0) {
            return Err(here("the experiment needs start < stop and a positive step".into()));
        }
        let mut components: Vec<Component> = Vec::new();
        let mut interfaces = Vec::new();
        for spec in &self.components {
            if components.iter().any(|c| c.name == spec.name) || spec.name.is_empty() {
                return Err(here(format!("component name '{}' is empty or used twice", spec.name)));
            }
            let entry = find(&spec.model).ok_or_else(|| here(format!("no catalog model '{}'", spec.model)))?;
            let model = Model::from_catalog(entry).map_err(here)?;
            let parameters = spec
                .parameters
                .iter()
                .map(|name| parameter(&model, name).map_err(|e| here(format!("component {}: {e}", spec.name))))
                .collect::<Result<Vec<_>, _>>()?;
            components.push(Component { name: spec.name.clone(), entry, connectors: Vec::new(), parameters });
            interfaces.push(model);
        }
        let index = |name: &str| {
            components.iter().position(|c| c.name == name).ok_or_else(|| here(format!("no component '{name}'")))
        };
        // Connected variables and listed outputs become connectors.
        let mut wanted: Vec<Vec<String>> = self.components.iter().map(|c| c.outputs.clone()).collect();
        let mut ends = Vec::new();
        for c in &self.connections {
            let (from, to) = (index(&c.from.0)?, index(&c.to.0)?);
            for (component, name, causality) in [(from, &c.from.1, Causality::Output), (to, &c.to.1, Causality::Input)]
            {
                match interfaces[component].interface.by_name(name) {
                    Some(v) if v.causality == causality => {}
                    _ => {
                        return Err(here(format!(
                            "{}.{name} is not an {} of {}",
                            components[component].name,
                            if causality == Causality::Input { "input" } else { "output" },
                            components[component].entry.name
                        )))
                    }
                }
                wanted[component].push(name.clone());
            }
            ends.push((from, c.from.1.clone(), to, c.to.1.clone()));
        }
        for (k, component) in components.iter_mut().enumerate() {
            let interface = &interfaces[k].interface;
            if let Some(bad) = wanted[k].iter().find(|n| interface.by_name(n).is_none()) {
                return Err(here(format!("{} has no variable '{bad}'", component.entry.name)));
            }
            component.connectors =
                interface.variables.iter().filter(|v| wanted[k].contains(&v.name)).cloned().collect();
        }
        let position =
            |component: usize, name: &str| components[component].connectors.iter().position(|v| v.name == name);
        let mut connections = Vec::new();
        for (from, output, to, input) in ends {
            if connections.iter().any(|&(_, _, t, i)| (t, i) == (to, position(to, &input).unwrap_or(usize::MAX))) {
                return Err(here(format!("input {}.{input} is connected twice", components[to].name)));
            }
            connections.push((
                from,
                position(from, &output).expect("listed"),
                to,
                position(to, &input).expect("listed"),
            ));
        }
        Ok(System {
            name: self.name.clone(),
            description: self.description.clone(),
            components,
            connections,
            start: self.experiment.start,
            stop: self.experiment.stop,
            step: self.experiment.step,
        })
    }
}

/// A parameter (or input) of `model` with its start value. Enumerations are refused: libcosim
/// cannot apply them (it reads no enumeration variables of an FMI 2.0 FMU).
fn parameter(model: &Model, name: &str) -> Result<(Variable, ParameterValue), String> {
    let v = model.interface.by_name(name).ok_or_else(|| format!("no variable '{name}'"))?;
    if !matches!(v.causality, Causality::Parameter | Causality::Input) {
        return Err(format!("'{name}' is neither a parameter nor an input"));
    }
    let value = match (v.ty, &v.start) {
        (VarType::Real, Some(Start::Real(x))) => ParameterValue::Real(*x),
        (VarType::Integer, Some(Start::Integer(i))) => ParameterValue::Integer(*i),
        (VarType::Boolean, Some(Start::Integer(i))) => ParameterValue::Boolean(*i != 0),
        (VarType::Enumeration, _) => {
            return Err(format!("'{name}' is an enumeration, which libcosim cannot set from a parameter set"))
        }
        _ => return Err(format!("'{name}' has no start value of its type")),
    };
    Ok((v.clone(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPLIT: &str = include_str!("../../systems/HydraulicFourBarSplit.json");

    #[test]
    fn the_split_four_bar_resolves() {
        let system = SystemSpec::from_json(SPLIT).unwrap().resolve().unwrap();
        assert_eq!(system.components.len(), 2);
        assert_eq!(system.connections.len(), 3);
        let drive = &system.components[1];
        let names: Vec<&str> = drive.connectors.iter().map(|v| v.name.as_str()).collect();
        assert!(names.contains(&"cylinder_length") && names.contains(&"cylinder.force"), "{names:?}");
        assert!(!names.contains(&"U_ref"), "unconnected inputs are bound, not connectors: {names:?}");
        let (u, value) = &drive.parameters[0];
        assert_eq!((u.name.as_str(), value), ("U_ref", &ParameterValue::Real(0.0)));
    }

    #[test]
    fn wrong_names_are_refused_with_the_name() {
        let bad = SPLIT.replace("\"cylinder_velocity\"", "\"cylinder_speed\"");
        let err = SystemSpec::from_json(&bad).unwrap().resolve().unwrap_err();
        assert!(err.contains("drive.cylinder_speed is not an input"), "{err}");
        let twice = SPLIT.replace("[\"drive\", \"cylinder_velocity\"]", "[\"drive\", \"cylinder_length\"]");
        let err = SystemSpec::from_json(&twice).unwrap().resolve().unwrap_err();
        assert!(err.contains("connected twice"), "{err}");
        let enumeration = SPLIT.replace("\"solver.tolerance\"", "\"solver.formulation\"");
        let err = SystemSpec::from_json(&enumeration).unwrap().resolve().unwrap_err();
        assert!(err.contains("enumeration"), "{err}");
    }
}
