//! Expansion of a description's interface section into scalar variables: the table builder,
//! the order of the table, the model parameters, inputs and system outputs. The solver
//! parameters are in `expand_solver.rs`, the outputs of components in `expand_mechanism.rs`
//! and `expand_hydraulics.rs`.

use super::expand_hydraulics::{
    accumulator_outputs, cylinder_outputs, motor_outputs, source_outputs, valve_outputs, volume_outputs,
};
use super::expand_mechanism::{
    body_outputs, driver_outputs, force_outputs, joint_outputs, node_outputs, point_outputs,
};
use super::expand_solver::solver_parameters;
use super::{Binding, Causality, Initial, ModelInterface, Quantity, Start, VarType, Variability, Variable};
use crate::format::{
    get_number, AnimationPart, BodyQuantity, Description, Formulation, Method, NodeQuantity, OutputSpec,
    SystemQuantity, Valve, ValveQuantity, VolumeQuantity,
};
use std::collections::HashSet;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct InterfaceError(pub String);

impl fmt::Display for InterfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "model interface: {}", self.0)
    }
}

impl std::error::Error for InterfaceError {}

pub(super) struct Builder {
    vars: Vec<Variable>,
    names: HashSet<String>,
    /// Outputs whose name is declared already are skipped instead of refused (while the
    /// animation groups expand), if the declared one is the same quantity.
    skip_declared: bool,
}

impl Builder {
    pub(super) fn push(&mut self, mut v: Variable) -> Result<(), InterfaceError> {
        if !self.names.insert(v.name.clone()) {
            return Err(InterfaceError(format!("variable name '{}' occurs twice", v.name)));
        }
        v.value_reference = self.vars.len() as u32;
        self.vars.push(v);
        Ok(())
    }

    pub(super) fn output(
        &mut self,
        name: String,
        unit: &str,
        description: String,
        q: Quantity,
    ) -> Result<(), InterfaceError> {
        if self.skip_declared && self.names.contains(&name) {
            return match self.vars.iter().find(|v| v.name == name) {
                Some(v) if v.binding == Binding::Output(q) => Ok(()),
                _ => Err(InterfaceError(format!("variable name '{name}' occurs twice"))),
            };
        }
        let integer = matches!(q, Quantity::NewtonIterations | Quantity::Steps);
        self.push(Variable {
            name,
            value_reference: 0,
            ty: if integer { VarType::Integer } else { VarType::Real },
            causality: Causality::Output,
            variability: if integer { Variability::Discrete } else { Variability::Continuous },
            initial: Some(Initial::Calculated),
            start: None,
            unit: (!unit.is_empty()).then(|| unit.to_string()),
            min: None,
            max: None,
            description,
            binding: Binding::Output(q),
        })
    }
}

/// A fixed parameter without unit or bounds (set those with struct update syntax).
pub(super) fn parameter(name: &str, ty: VarType, start: Start, description: &str, binding: Binding) -> Variable {
    Variable {
        name: name.to_string(),
        value_reference: 0,
        ty,
        causality: Causality::Parameter,
        variability: Variability::Fixed,
        initial: Some(Initial::Exact),
        start: Some(start),
        unit: None,
        min: None,
        max: None,
        description: description.to_string(),
        binding,
    }
}

pub(super) fn unit(u: &str) -> Option<String> {
    (!u.is_empty()).then(|| u.to_string())
}

/// Builds the variable table of a (validated) description. Value references are the
/// positions in the table: 0 is `time`, then the solver parameters, the model parameters,
/// the inputs and the outputs, in the order of the description (the animation groups last),
/// then the Model Exchange variables.
pub fn interface_of(d: &Description) -> Result<ModelInterface, InterfaceError> {
    let json = serde_json::to_value(d).map_err(|e| InterfaceError(e.to_string()))?;
    interface_of_serialized(d, &json)
}

/// [`interface_of`] given `json`, the description serialized (`serde_json::to_value`): the
/// document parameter paths address, for callers that keep it anyway.
pub fn interface_of_serialized(d: &Description, json: &serde_json::Value) -> Result<ModelInterface, InterfaceError> {
    // The half-implicit and the explicit methods cannot hold a hydraulic circuit (the
    // formulation table, `format::CAPABILITIES`): a model with one does not offer them.
    let methods: Vec<Method> = d
        .solver
        .formulation
        .methods()
        .iter()
        .copied()
        .filter(|&m| d.hydraulics.is_none() || m.holds_circuits())
        .collect();
    let semirecursive = d.solver.formulation.is_semirecursive();
    // A choice of constraint treatment only where there is a mechanism.
    let formulations: Vec<Formulation> =
        if semirecursive && !d.bodies.is_empty() { Formulation::SEMIRECURSIVE.to_vec() } else { Vec::new() };
    let mut b = Builder { vars: Vec::new(), names: HashSet::new(), skip_declared: false };
    b.push(Variable {
        name: "time".into(),
        value_reference: 0,
        ty: VarType::Real,
        causality: Causality::Independent,
        variability: Variability::Continuous,
        initial: None,
        start: None,
        unit: Some("s".into()),
        min: None,
        max: None,
        description: "Simulation time".into(),
        binding: Binding::Time,
    })?;

    solver_parameters(d, &methods, &formulations, &mut b)?;

    for p in &d.interface.parameters {
        let (value, binding) = match (&p.path, p.value) {
            (Some(path), _) => (
                get_number(json, path).map_err(|e| InterfaceError(e.to_string()))?,
                Binding::ModelParameter { path: path.clone() },
            ),
            (None, Some(value)) => (value, Binding::NamedParameter { name: p.name.clone() }),
            (None, None) => return Err(InterfaceError(format!("parameter '{}' has neither path nor value", p.name))),
        };
        b.push(Variable {
            unit: unit(&p.unit),
            min: p.min,
            max: p.max,
            ..parameter(&p.name, VarType::Real, Start::Real(value), &p.description, binding)
        })?;
    }
    for (index, i) in d.interface.inputs.iter().enumerate() {
        b.push(Variable {
            name: i.name.clone(),
            value_reference: 0,
            ty: VarType::Real,
            causality: Causality::Input,
            variability: Variability::Continuous,
            initial: None,
            start: Some(Start::Real(i.start)),
            unit: (!i.unit.is_empty()).then(|| i.unit.clone()),
            min: i.min,
            max: i.max,
            description: i.description.clone(),
            binding: Binding::Input { index },
        })?;
    }
    for (k, o) in d.interface.outputs.iter().enumerate() {
        if let OutputSpec::Animation { animation } = o {
            d.validate_animation(&format!("interface.outputs[{k}].animation"), animation)
                .map_err(|e| InterfaceError(e.to_string()))?;
        }
    }
    let (animations, others): (Vec<&OutputSpec>, Vec<&OutputSpec>) =
        d.interface.outputs.iter().partition(|o| matches!(o, OutputSpec::Animation { .. }));
    for o in others {
        expand_output(d, o, &mut b)?;
    }
    // The animation groups after every other group, wherever they stand in the list, each of
    // their names once: what another group declares already is not declared again.
    b.skip_declared = true;
    for o in animations {
        expand_output(d, o, &mut b)?;
    }
    b.skip_declared = false;
    super::states::model_exchange_variables(d, &mut b)?;
    Ok(ModelInterface { variables: b.vars, methods, formulations })
}

/// Names an output's unknown component.
pub(super) fn missing(what: &str, name: &str) -> InterfaceError {
    InterfaceError(format!("output refers to unknown {what} '{name}'"))
}

fn expand_output(d: &Description, o: &OutputSpec, b: &mut Builder) -> Result<(), InterfaceError> {
    match o {
        OutputSpec::Body { body, point: None, name: Some(name), .. } => Err(InterfaceError(format!(
            "the output of body '{body}' has a \"name\" ('{name}') but no \"point\": a name belongs to a \
             body-fixed point (give \"point\": [x, y, z]) and the centre of mass's outputs have none"
        ))),
        OutputSpec::Body { body, point: None, quantities, .. } => body_outputs(d, body, quantities, b),
        OutputSpec::Body { body, point: Some(at), name, quantities } => {
            point_outputs(d, body, at, name.as_deref(), quantities, b)
        }
        OutputSpec::Joint { joint, quantities } => joint_outputs(d, joint, quantities, b),
        OutputSpec::Driver { driver, quantities } => driver_outputs(d, driver, quantities, b),
        OutputSpec::Force { force, quantities } => force_outputs(d, force, quantities, b),
        OutputSpec::Node { node, quantities } => node_outputs(d, node, quantities, b),
        OutputSpec::Volume { volume, quantities } => volume_outputs(d, volume, quantities, b),
        OutputSpec::Source { source, quantities } => source_outputs(d, source, quantities, b),
        OutputSpec::Valve { valve, quantities } => valve_outputs(d, valve, quantities, b),
        OutputSpec::Cylinder { cylinder, quantities } => cylinder_outputs(d, cylinder, quantities, b),
        OutputSpec::Motor { motor, quantities } => motor_outputs(d, motor, quantities, b),
        OutputSpec::Accumulator { accumulator, quantities } => accumulator_outputs(d, accumulator, quantities, b),
        OutputSpec::System { system } => system_outputs(system, b),
        OutputSpec::Animation { animation } => animation_outputs(d, animation, b),
    }
}

/// The outputs a 3D replay draws a run from, named as the groups of each element name them:
/// body and beam-node positions and orientations, the pressures of the cylinders' chambers,
/// the spools and references of the directional valves.
fn animation_outputs(d: &Description, parts: &[AnimationPart], b: &mut Builder) -> Result<(), InterfaceError> {
    for part in parts {
        match part {
            AnimationPart::Bodies => {
                for body in &d.bodies {
                    body_outputs(d, &body.name, &[BodyQuantity::Position, BodyQuantity::Orientation], b)?;
                }
            }
            AnimationPart::Beams => {
                for beam in &d.beams {
                    for i in 0..=beam.element_count() {
                        let node = beam.node_name(i);
                        node_outputs(d, &node, &[NodeQuantity::Position, NodeQuantity::Orientation], b)?;
                    }
                }
            }
            AnimationPart::Hydraulics => {
                let Some(h) = &d.hydraulics else { continue };
                for c in &h.cylinders {
                    for volume in [&c.piston_side, &c.rod_side] {
                        volume_outputs(d, volume, &[VolumeQuantity::Pressure], b)?;
                    }
                }
                for v in &h.valves {
                    if let Valve::Directional { name, .. } = v {
                        valve_outputs(d, name, &[ValveQuantity::Spool, ValveQuantity::Reference], b)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Energies, constraint violation and solver statistics of the whole model.
fn system_outputs(system: &[SystemQuantity], b: &mut Builder) -> Result<(), InterfaceError> {
    for q in system {
        let (name, unit, text, q) = match q {
            SystemQuantity::KineticEnergy => {
                ("kinetic_energy", "J", "Kinetic energy of all bodies", Quantity::KineticEnergy)
            }
            SystemQuantity::PotentialEnergy => {
                ("potential_energy", "J", "Potential energy of gravity and springs", Quantity::PotentialEnergy)
            }
            SystemQuantity::TotalEnergy => {
                ("total_energy", "J", "Kinetic plus potential energy", Quantity::TotalEnergy)
            }
            SystemQuantity::ExternalWork => (
                "external_work",
                "J",
                "Work done by actuators, inputs, dampers and friction since the start",
                Quantity::ExternalWork,
            ),
            SystemQuantity::EnergyBalance => (
                "energy_balance",
                "J",
                "Energy balance E - E0 - W (Zhang et al. 2022, eq. 23): zero for the exact solution",
                Quantity::EnergyBalance,
            ),
            SystemQuantity::ConstraintViolation => (
                "constraint_violation",
                "",
                "Euclidean norm of the position constraints Phi after the last step",
                Quantity::ConstraintViolation,
            ),
            SystemQuantity::NewtonIterations => {
                ("newton_iterations", "", "Newton iterations of the last internal step", Quantity::NewtonIterations)
            }
            SystemQuantity::Steps => ("steps", "", "Internal steps since the start", Quantity::Steps),
        };
        b.output(name.to_string(), unit, text.to_string(), q)?;
    }
    Ok(())
}
