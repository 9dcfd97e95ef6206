//! Expansion of a description's interface section into scalar variables.

use super::{
    Binding, Causality, Initial, ModelInterface, Quantity, SolverSetting, Start, VarType, Variability, Variable,
};
use crate::format::{
    get_number, BodyQuantity, CylinderQuantity, Description, DriverQuantity, Force, ForceQuantity, Formulation,
    JointCoordinate, JointKind, JointQuantity, Method, NodeQuantity, OutputSpec, SourceQuantity, SystemQuantity, Valve,
    ValveQuantity, VolumeQuantity,
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

const XYZ: [&str; 3] = ["x", "y", "z"];

pub(super) struct Builder {
    vars: Vec<Variable>,
    names: HashSet<String>,
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

    fn output(&mut self, name: String, unit: &str, description: String, q: Quantity) -> Result<(), InterfaceError> {
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
fn parameter(name: &str, ty: VarType, start: Start, description: &str, binding: Binding) -> Variable {
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

fn unit(u: &str) -> Option<String> {
    (!u.is_empty()).then(|| u.to_string())
}

/// Builds the variable table of a (validated) description. Value references are the
/// positions in the table: 0 is `time`, then the solver parameters, the model parameters,
/// the inputs and the outputs, in the order of the description.
pub fn interface_of(d: &Description) -> Result<ModelInterface, InterfaceError> {
    let json = serde_json::to_value(d).map_err(|e| InterfaceError(e.to_string()))?;
    interface_of_serialized(d, &json)
}

/// [`interface_of`] given `json`, the description serialized (`serde_json::to_value`): the
/// document parameter paths address, for callers that keep it anyway.
pub fn interface_of_serialized(d: &Description, json: &serde_json::Value) -> Result<ModelInterface, InterfaceError> {
    let methods: Vec<Method> = d.solver.formulation.methods().to_vec();
    let state_space = d.solver.formulation == Formulation::StateSpace;
    let semirecursive = d.solver.formulation.is_semirecursive();
    // A choice of constraint treatment only where there is a mechanism.
    let formulations: Vec<Formulation> =
        if semirecursive && !d.bodies.is_empty() { Formulation::SEMIRECURSIVE.to_vec() } else { Vec::new() };
    let mut b = Builder { vars: Vec::new(), names: HashSet::new() };
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

    let s = &d.solver;
    let items: Vec<String> = methods.iter().map(|m| m.item_name().to_string()).collect();
    b.push(Variable {
        unit: unit(""),
        min: None,
        max: None,
        ..parameter(
            "solver.method",
            VarType::Enumeration,
            Start::Integer(i64::from(s.method.code())),
            &format!("Time integration method ({})", items.join(", ")),
            Binding::Solver(SolverSetting::Method),
        )
    })?;
    b.push(Variable {
        unit: unit("s"),
        min: Some(1e-12),
        max: None,
        ..parameter(
            "solver.stepSize",
            VarType::Real,
            Start::Real(s.step_size),
            if state_space {
                "Largest internal step: constant-step methods split each communication step into equal sub-steps no larger than this; variable-step methods choose smaller steps under error control"
            } else {
                "Largest internal step; each communication step is split into equal sub-steps no larger than this"
            },
            Binding::Solver(SolverSetting::StepSize),
        )
    })?;
    b.push(Variable {
        unit: unit(""),
        min: Some(1e-300),
        max: None,
        ..parameter(
            "solver.tolerance",
            VarType::Real,
            Start::Real(s.tolerance),
            if state_space {
                "Newton tolerance: dependent positions (norm of the correction, Negrut et al., eq. 9) and independent accelerations (velocity-level change gamma h |dv''|, Negrut et al., eq. 14)"
            } else {
                "Newton tolerance on the norm of the position-level correction (Fang et al. 2023, Sect. 2.2)"
            },
            Binding::Solver(SolverSetting::Tolerance),
        )
    })?;
    b.push(Variable {
        unit: unit(""),
        min: Some(1.0),
        max: Some(10000.0),
        ..parameter(
            "solver.maxIterations",
            VarType::Integer,
            Start::Integer(i64::from(s.max_iterations)),
            "Newton iterations allowed per internal step before the step is discarded",
            Binding::Solver(SolverSetting::MaxIterations),
        )
    })?;
    b.push(Variable {
        unit: unit(""),
        min: Some(1.0),
        max: Some(f64::from(i32::MAX)),
        ..parameter(
            "solver.maxStepsPerCall",
            VarType::Integer,
            Start::Integer(super::DEFAULT_MAX_STEPS_PER_CALL),
            "Internal steps one doStep may take (step attempts of variable-step methods); a doStep that needs more returns early at the last internal step (FMI 3 earlyReturn if the importer allows it, else Discard)",
            Binding::Solver(SolverSetting::MaxStepsPerCall),
        )
    })?;
    if methods.iter().any(|m| m.uses_rho_inf()) {
        b.push(Variable {
            unit: unit(""),
            min: Some(0.0),
            max: Some(1.0),
            ..parameter(
                "solver.rhoInf",
                VarType::Real,
                Start::Real(s.rho_inf),
                "Spectral radius at infinity of methods with tunable algorithmic dissipation (Zhang et al. 2022, Sect. 2)",
                Binding::Solver(SolverSetting::RhoInf),
            )
        })?;
    }

    if methods.iter().any(|m| m.variable_step()) {
        let tolerances = [
            (
                "solver.absoluteTolerance",
                s.absolute_tolerance(),
                "Variable-step methods: absolute tolerance Atol of the independent positions (Negrut et al., eq. 21)",
                SolverSetting::AbsoluteTolerance,
            ),
            (
                "solver.relativeTolerance",
                s.relative_tolerance(),
                "Variable-step methods: relative tolerance Rtol of the independent positions (Negrut et al., eq. 21)",
                SolverSetting::RelativeTolerance,
            ),
            (
                "solver.velocityToleranceFactor",
                s.velocity_tolerance_factor(),
                "Variable-step methods: Atol and Rtol of the independent velocities are this multiple of the position tolerances (Negrut et al. use 10, Sect. 4)",
                SolverSetting::VelocityToleranceFactor,
            ),
        ];
        for (name, value, text, setting) in tolerances {
            b.push(Variable {
                unit: unit(""),
                min: Some(1e-300),
                max: None,
                ..parameter(name, VarType::Real, Start::Real(value), text, Binding::Solver(setting))
            })?;
        }
    }
    if !formulations.is_empty() {
        let items: Vec<String> = formulations.iter().map(|f| f.item_name().to_string()).collect();
        b.push(parameter(
            "solver.formulation",
            VarType::Enumeration,
            Start::Integer(i64::from(d.solver.formulation.code())),
            &format!("Multibody formulation and constraint treatment ({})", items.join(", ")),
            Binding::Solver(SolverSetting::Formulation),
        ))?;
        b.push(Variable {
            unit: unit(""),
            min: Some(1e-300),
            max: None,
            ..parameter(
                "solver.penaltyFactor",
                VarType::Real,
                Start::Real(s.penalty),
                "Penalty factor alpha of the penalty-based formulation (Jaiswal et al. 2021, eq. 18)",
                Binding::Solver(SolverSetting::Penalty),
            )
        })?;
    }
    if semirecursive && d.hydraulics.is_some() {
        b.push(Variable {
            unit: unit("Pa"),
            min: Some(1e-300),
            max: None,
            ..parameter(
                "solver.pressureTolerance",
                VarType::Real,
                Start::Real(s.pressure_tolerance),
                "Newton tolerance on pressure corrections (Jaiswal et al. 2021, Sect. 5)",
                Binding::Solver(SolverSetting::PressureTolerance),
            )
        })?;
    }

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
    for o in &d.interface.outputs {
        expand_output(d, o, &mut b)?;
    }
    super::states::model_exchange_variables(d, &mut b)?;
    Ok(ModelInterface { variables: b.vars, methods, formulations })
}

fn expand_output(d: &Description, o: &OutputSpec, b: &mut Builder) -> Result<(), InterfaceError> {
    let missing = |what: &str, name: &str| InterfaceError(format!("output refers to unknown {what} '{name}'"));
    match o {
        OutputSpec::Body { body, quantities } => {
            let i = d.body_index(body).ok_or_else(|| missing("body", body))?;
            for q in quantities {
                let (field, unit, what): (&str, &str, &str) = match q {
                    BodyQuantity::Position => ("position", "m", "centre-of-mass position"),
                    BodyQuantity::Velocity => ("velocity", "m/s", "centre-of-mass velocity"),
                    BodyQuantity::AngularVelocity => ("angular_velocity", "rad/s", "angular velocity"),
                    BodyQuantity::Acceleration => ("acceleration", "m/s2", "centre-of-mass acceleration"),
                    BodyQuantity::Orientation => {
                        for c in 0..4 {
                            b.output(
                                format!("{body}.orientation.e{c}"),
                                "",
                                format!("Orientation quaternion component e{c} of body {body} (e0 >= 0)"),
                                Quantity::BodyOrientation { body: i, component: c },
                            )?;
                        }
                        continue;
                    }
                };
                for (axis, xyz) in XYZ.iter().enumerate() {
                    let q = match q {
                        BodyQuantity::Position => Quantity::BodyPosition { body: i, axis },
                        BodyQuantity::Velocity => Quantity::BodyVelocity { body: i, axis },
                        BodyQuantity::AngularVelocity => Quantity::BodyAngularVelocity { body: i, axis },
                        BodyQuantity::Acceleration => Quantity::BodyAcceleration { body: i, axis },
                        BodyQuantity::Orientation => unreachable!(),
                    };
                    b.output(
                        format!("{body}.{field}.{xyz}"),
                        unit,
                        format!("{xyz} component of the {what} of body {body}, global frame"),
                        q,
                    )?;
                }
            }
        }
        OutputSpec::Joint { joint, quantities } => {
            let i = d.joint_index(joint).ok_or_else(|| missing("joint", joint))?;
            let kind = d.joints[i].kind;
            let rotates = matches!(kind, JointKind::Revolute | JointKind::Cylindrical);
            let slides = matches!(kind, JointKind::Translational | JointKind::Cylindrical);
            for q in quantities {
                match q {
                    JointQuantity::Coordinate | JointQuantity::Rate => {
                        if !rotates && !slides {
                            return Err(InterfaceError(format!(
                                "joint '{joint}' ({kind:?}) has no joint coordinate to output"
                            )));
                        }
                        let rate = *q == JointQuantity::Rate;
                        if rotates {
                            let (name, unit, q) = if rate {
                                ("angle_rate", "rad/s", Quantity::JointAngleRate { joint: i })
                            } else {
                                ("angle", "rad", Quantity::JointAngle { joint: i })
                            };
                            b.output(
                                format!("{joint}.{name}"),
                                unit,
                                format!(
                                    "Relative rotation {name} of joint {joint} (body2 w.r.t. body1 about the axis)"
                                ),
                                q,
                            )?;
                        }
                        if slides {
                            let (name, unit, q) = if rate {
                                ("velocity", "m/s", Quantity::JointVelocity { joint: i })
                            } else {
                                ("position", "m", Quantity::JointPosition { joint: i })
                            };
                            b.output(
                                format!("{joint}.{name}"),
                                unit,
                                format!("Relative sliding {name} of joint {joint} along the axis"),
                                q,
                            )?;
                        }
                    }
                    JointQuantity::ReactionForce | JointQuantity::ReactionTorque | JointQuantity::FrictionForce
                        if d.solver.formulation.is_semirecursive() =>
                    {
                        return Err(InterfaceError(format!(
                            "joint '{joint}': reaction and friction forces are not outputs of the semirecursive formulations"
                        )));
                    }
                    JointQuantity::ReactionForce | JointQuantity::ReactionTorque => {
                        let torque = *q == JointQuantity::ReactionTorque;
                        for (axis, xyz) in XYZ.iter().enumerate() {
                            let (name, unit, q) = if torque {
                                ("reaction_torque", "N.m", Quantity::JointReactionTorque { joint: i, axis })
                            } else {
                                ("reaction_force", "N", Quantity::JointReactionForce { joint: i, axis })
                            };
                            b.output(
                                format!("{joint}.{name}.{xyz}"),
                                unit,
                                format!("{xyz} component of the {name} of joint {joint} on body2, global frame"),
                                q,
                            )?;
                        }
                    }
                    JointQuantity::FrictionForce => {
                        if d.joints[i].friction.is_none() {
                            return Err(InterfaceError(format!("joint '{joint}' has no friction to output")));
                        }
                        b.output(
                            format!("{joint}.friction_force"),
                            "N",
                            format!("Coulomb friction force of joint {joint} on body2 along the axis"),
                            Quantity::JointFrictionForce { joint: i },
                        )?;
                    }
                }
            }
        }
        OutputSpec::Driver { driver, quantities } => {
            let i = d.driver_index(driver).ok_or_else(|| missing("driver", driver))?;
            let dr = &d.drivers[i];
            let joint = d.joints.iter().find(|j| j.name == dr.joint).ok_or_else(|| missing("joint", &dr.joint))?;
            let rotation = crate::format::driven_coordinate(joint.kind, dr.coordinate).map_err(InterfaceError)?
                == JointCoordinate::Rotation;
            for q in quantities {
                match q {
                    DriverQuantity::Effort => b.output(
                        format!("{driver}.effort"),
                        if rotation { "N.m" } else { "N" },
                        format!(
                            "{} the driver {driver} applies to body2 about/along the joint axis",
                            if rotation { "Torque" } else { "Force" }
                        ),
                        Quantity::DriverEffort { driver: i },
                    )?,
                    DriverQuantity::Prescribed => b.output(
                        format!("{driver}.prescribed"),
                        if rotation { "rad" } else { "m" },
                        format!("Joint coordinate prescribed by driver {driver}"),
                        Quantity::DriverPrescribed { driver: i },
                    )?,
                }
            }
        }
        OutputSpec::Force { force, quantities } => {
            let i = d.force_index(force).ok_or_else(|| missing("force", force))?;
            let (len_unit, force_unit) = match &d.forces[i] {
                Force::Tsda { .. } | Force::Actuator { .. } => ("m", "N"),
                Force::Rsda { .. } => ("rad", "N.m"),
                Force::Load { .. } => ("", "N"),
                Force::Torque { .. } => ("", "N.m"),
            };
            for q in quantities {
                match q {
                    ForceQuantity::Length => {
                        if len_unit.is_empty() {
                            return Err(InterfaceError(format!("force '{force}' has no length/angle to output")));
                        }
                        b.output(
                            format!("{force}.length"),
                            len_unit,
                            format!("Length (TSDA) or angle (RSDA) of {force}"),
                            Quantity::ForceLength { force: i },
                        )?;
                    }
                    ForceQuantity::Force => {
                        let text = if matches!(d.forces[i], Force::Actuator { .. }) {
                            format!("Force of actuator {force}, pushing its ends apart")
                        } else {
                            format!("Tension (TSDA), torque (RSDA) or magnitude of {force}")
                        };
                        b.output(format!("{force}.force"), force_unit, text, Quantity::ForceValue { force: i })?;
                    }
                    ForceQuantity::Rate => {
                        if len_unit.is_empty() {
                            return Err(InterfaceError(format!("force '{force}' has no length/angle rate to output")));
                        }
                        b.output(
                            format!("{force}.rate"),
                            if len_unit == "m" { "m/s" } else { "rad/s" },
                            format!("Rate of the length (TSDA, actuator) or angle (RSDA) of {force}"),
                            Quantity::ForceRate { force: i },
                        )?;
                    }
                }
            }
        }
        OutputSpec::Node { node, quantities } => {
            let i = d.node_index(node).ok_or_else(|| missing("beam node", node))?;
            let r = d.node_ref(node).expect("a node index has a node reference");
            let canonical = d.beams[r.beam].node_name(r.node);
            for q in quantities {
                let (field, unit, what): (&str, &str, &str) = match q {
                    NodeQuantity::Position => ("position", "m", "position, global frame"),
                    NodeQuantity::Displacement => {
                        ("displacement", "m", "displacement from the initial position, global frame")
                    }
                    NodeQuantity::Rotation => {
                        ("rotation", "rad", "rotation vector relative to the initial orientation, global frame")
                    }
                    NodeQuantity::Velocity => ("velocity", "m/s", "velocity, global frame"),
                    NodeQuantity::AngularVelocity => ("angular_velocity", "rad/s", "angular velocity, global frame"),
                    NodeQuantity::Acceleration => ("acceleration", "m/s2", "acceleration, global frame"),
                    NodeQuantity::AngularAcceleration => {
                        ("angular_acceleration", "rad/s2", "angular acceleration, global frame")
                    }
                    NodeQuantity::SectionForce => {
                        ("section_force", "N", "section force (axial, shear 2, shear 3), section frame")
                    }
                    NodeQuantity::SectionMoment => {
                        ("section_moment", "N.m", "section moment (torsion, bending 2, bending 3), section frame")
                    }
                    NodeQuantity::Orientation => {
                        for c in 0..4 {
                            b.output(
                                format!("{canonical}.orientation.e{c}"),
                                "",
                                format!("Orientation quaternion component e{c} of the section frame at node {canonical} (e0 >= 0)"),
                                Quantity::NodeOrientation { node: i, component: c },
                            )?;
                        }
                        continue;
                    }
                };
                let labels: [&str; 3] = match q {
                    NodeQuantity::SectionForce => ["axial", "shear2", "shear3"],
                    NodeQuantity::SectionMoment => ["torsion", "bending2", "bending3"],
                    _ => XYZ,
                };
                for (axis, label) in labels.iter().enumerate() {
                    let q = match q {
                        NodeQuantity::Position => Quantity::NodePosition { node: i, axis },
                        NodeQuantity::Displacement => Quantity::NodeDisplacement { node: i, axis },
                        NodeQuantity::Rotation => Quantity::NodeRotation { node: i, axis },
                        NodeQuantity::Velocity => Quantity::NodeVelocity { node: i, axis },
                        NodeQuantity::AngularVelocity => Quantity::NodeAngularVelocity { node: i, axis },
                        NodeQuantity::Acceleration => Quantity::NodeAcceleration { node: i, axis },
                        NodeQuantity::AngularAcceleration => Quantity::NodeAngularAcceleration { node: i, axis },
                        NodeQuantity::SectionForce => Quantity::SectionForce { node: i, axis },
                        NodeQuantity::SectionMoment => Quantity::SectionMoment { node: i, axis },
                        NodeQuantity::Orientation => unreachable!("handled above"),
                    };
                    b.output(
                        format!("{canonical}.{field}.{label}"),
                        unit,
                        format!("{label} of the {what} at beam node {canonical}"),
                        q,
                    )?;
                }
            }
        }
        OutputSpec::Volume { volume, quantities } => {
            let i = d.volume_index(volume).ok_or_else(|| missing("volume", volume))?;
            for q in quantities {
                match q {
                    VolumeQuantity::Pressure => b.output(
                        format!("{volume}.pressure"),
                        "Pa",
                        format!("Pressure in hydraulic volume {volume} (Jaiswal et al. 2021, eq. 22)"),
                        Quantity::VolumePressure { volume: i },
                    )?,
                }
            }
        }
        OutputSpec::Source { source, quantities } => {
            let i = d.source_index(source).ok_or_else(|| missing("hydraulic source", source))?;
            for q in quantities {
                match q {
                    SourceQuantity::Flow => b.output(
                        format!("{source}.flow"),
                        "m3/s",
                        format!("Net flow the valves deliver into node {source} (Jaiswal et al. 2021, eqs. 24 and 26)"),
                        Quantity::SourceFlow { source: i },
                    )?,
                }
            }
        }
        OutputSpec::Valve { valve, quantities } => {
            let i = d.valve_index(valve).ok_or_else(|| missing("valve", valve))?;
            let h = d.hydraulics.as_ref().expect("a valve implies a circuit");
            if !matches!(h.valves[i], Valve::Directional { .. }) {
                return Err(InterfaceError(format!("valve '{valve}' has no spool to output (a throttle)")));
            }
            for q in quantities {
                let (name, text, q) = match q {
                    ValveQuantity::Spool => {
                        ("spool", "Spool position U (Jaiswal et al. 2021, eq. 27)", Quantity::ValveSpool { valve: i })
                    }
                    ValveQuantity::Reference => (
                        "reference",
                        "Spool reference U_ref held over the last internal step (input plus work cycle)",
                        Quantity::ValveReference { valve: i },
                    ),
                };
                b.output(format!("{valve}.{name}"), "V", format!("{text} of valve {valve}"), q)?;
            }
        }
        OutputSpec::Cylinder { cylinder, quantities } => {
            let i = d.cylinder_index(cylinder).ok_or_else(|| missing("cylinder", cylinder))?;
            for q in quantities {
                let (name, unit, text, q) = match q {
                    CylinderQuantity::Length => {
                        ("length", "m", "Actuator length |s|", Quantity::CylinderLength { cylinder: i })
                    }
                    CylinderQuantity::Velocity => (
                        "velocity",
                        "m/s",
                        "Actuator velocity (Jaiswal et al. 2021, eq. 45)",
                        Quantity::CylinderVelocity { cylinder: i },
                    ),
                    CylinderQuantity::Force => (
                        "force",
                        "N",
                        "Cylinder force F_s = p_A A_A - p_B A_B - F_mu, pushing the ends apart (Jaiswal et al. 2021, eq. 29)",
                        Quantity::CylinderForce { cylinder: i },
                    ),
                    CylinderQuantity::Work => (
                        "work",
                        "J",
                        "Work of the cylinder force on the mechanism since the start",
                        Quantity::CylinderWork { cylinder: i },
                    ),
                };
                b.output(format!("{cylinder}.{name}"), unit, format!("{text} of cylinder {cylinder}"), q)?;
            }
        }
        OutputSpec::System { system } => {
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
                    SystemQuantity::NewtonIterations => (
                        "newton_iterations",
                        "",
                        "Newton iterations of the last internal step",
                        Quantity::NewtonIterations,
                    ),
                    SystemQuantity::Steps => ("steps", "", "Internal steps since the start", Quantity::Steps),
                };
                b.output(name.to_string(), unit, text.to_string(), q)?;
            }
        }
    }
    Ok(())
}
