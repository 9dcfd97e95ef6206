//! Models described as data (ARCHITECTURE.md principle 1).
//!
//! A [`Description`] is what a user writes (JSON): bodies, joints, drivers, force elements
//! and the FMU interface. It is plain data: no formulation ever special-cases a model.
//!
//! This module is compiled twice: into the library and into `build.rs` (which generates the
//! modelDescription.xml files from the same declarations), so it depends on serde and
//! serde_json only and refers to its siblings with `super::` / `crate::format::`.

mod beam;
mod dof;
pub mod expression;
mod hydraulics;
pub mod parametric;
mod path;
mod quantity;
mod solver;
mod validate;
mod validate_hydraulics;

pub use beam::{Beam, BeamInertia, NodeRef, Section};
pub use hydraulics::{CycleStep, Cylinder, Hydraulics, Oil, Reference, SealFriction, Source, Valve, Volume};
pub use path::{get_number, set_number, PathError};
pub use quantity::Quantity;
pub use solver::{Formulation, Method, SolverDefaults, Tangent, DEFAULT_TOLERANCE, DEFAULT_VELOCITY_TOLERANCE_FACTOR};
pub use validate::{driven_coordinate, is_identifier, DescriptionError};

use serde::{Deserialize, Serialize};

/// Name reserved for the fixed inertial frame in joint and force definitions.
pub const GROUND: &str = "ground";

/// A complete model: mechanism, FMU interface, default experiment and solver settings.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Description {
    /// Model name; also the FMU's modelIdentifier, so it must be a C identifier.
    pub name: String,
    /// One-line description shown in modelDescription.xml.
    #[serde(default)]
    pub description: String,
    /// Where the model comes from (seed and equations, reference tables).
    #[serde(default)]
    pub source: String,
    /// Longer notes for documentation/index.html (assumptions, conventions).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Gravitational acceleration in the global frame [m/s^2].
    #[serde(default)]
    pub gravity: [f64; 3],
    /// A planar mechanism: every body moves parallel to this plane (see [`Plane`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plane: Option<Plane>,
    pub bodies: Vec<Body>,
    #[serde(default)]
    pub joints: Vec<Joint>,
    #[serde(default)]
    pub drivers: Vec<Driver>,
    #[serde(default)]
    pub forces: Vec<Force>,
    /// Geometrically exact beams (index-3 formulation); their nodes are named
    /// `<beam>.node<i>` and attach to joints, drivers and forces like bodies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beams: Vec<Beam>,
    /// Start from static equilibrium: before the first step the index-3 formulation solves
    /// for the configuration where gravity, springs and beams balance at rest with the drivers
    /// at the start time (instead of a gravity ramp with temporary damping).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub static_start: bool,
    /// Lumped-fluid hydraulic circuit (seed 004 Sect. 3), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hydraulics: Option<Hydraulics>,
    #[serde(default)]
    pub interface: Interface,
    pub experiment: Experiment,
    #[serde(default)]
    pub solver: SolverDefaults,
}

/// Planar motion: each body keeps its offset along `normal` and rotates only about it, and
/// joints keep only their in-plane constraints (revolute: 2, translational: 2, fixed: 3,
/// distance: 1), so closed planar loops are not over-constrained.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Plane {
    pub normal: [f64; 3],
}

/// A rigid body whose body frame is centred at the centre of mass (seed 003 Sect. 2).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Body {
    pub name: String,
    /// Mass \[kg\].
    pub mass: f64,
    /// Inertia about the centre of mass in the body frame [kg m^2]: principal moments
    /// `[Jxx, Jyy, Jzz]` or a full symmetric 3x3 matrix.
    pub inertia: Inertia,
    /// Initial position of the centre of mass in the global frame \[m\].
    pub position: [f64; 3],
    /// Initial orientation: rotation matrix A (body to global, rows) or axis-angle.
    #[serde(default)]
    pub orientation: Orientation,
    /// Initial velocity of the centre of mass, global frame [m/s].
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Initial angular velocity [rad/s]: global components, or `{"body": [..]}` for
    /// body-frame components (the seeds' convention).
    #[serde(default)]
    pub angular_velocity: AngularVelocity,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Inertia {
    Principal([f64; 3]),
    Full([[f64; 3]; 3]),
}

impl Inertia {
    /// The full body-frame inertia matrix.
    pub fn matrix(&self) -> [[f64; 3]; 3] {
        match *self {
            Inertia::Principal([a, b, c]) => [[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, c]],
            Inertia::Full(m) => m,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Orientation {
    /// Rotation matrix, rows of A; A maps body-frame vectors to the global frame.
    Matrix([[f64; 3]; 3]),
    /// Rotation by `angle` \[rad\] about the global unit vector `axis`.
    AxisAngle { axis: [f64; 3], angle: f64 },
}

impl Default for Orientation {
    fn default() -> Self {
        Orientation::Matrix([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum AngularVelocity {
    Global([f64; 3]),
    Body { body: [f64; 3] },
}

impl Default for AngularVelocity {
    fn default() -> Self {
        AngularVelocity::Global([0.0; 3])
    }
}

/// Kinematic joint kinds; each is a set of basic constraints (seed 003 Sect. 2.1, Ref. \[11\]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum JointKind {
    /// Rotation about `axis` through `point` (5 constraints).
    Revolute,
    /// Common `point` (3 constraints).
    Spherical,
    /// Sliding along `axis`, no relative rotation (5 constraints).
    Translational,
    /// Sliding along and rotating about `axis` (4 constraints).
    Cylindrical,
    /// Common `point`; `axis1` fixed in body1 stays perpendicular to `axis2` fixed in body2
    /// (4 constraints).
    Universal,
    /// No relative motion (6 constraints).
    Fixed,
    /// Constant distance `length` between `point1` on body1 and `point2` on body2 (1 constraint).
    Distance,
}

/// A joint between `body1` and `body2` (either may be "ground"). Geometry is given in the
/// global frame at the initial configuration; body-fixed vectors follow from the initial poses.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: JointKind,
    pub body1: String,
    pub body2: String,
    /// Joint location (all kinds but distance) \[m\].
    #[serde(default)]
    pub point: Option<[f64; 3]>,
    /// Joint axis (revolute, translational, cylindrical).
    #[serde(default)]
    pub axis: Option<[f64; 3]>,
    /// Cross axes of a universal joint, fixed in body1 and body2 respectively.
    #[serde(default)]
    pub axis1: Option<[f64; 3]>,
    #[serde(default)]
    pub axis2: Option<[f64; 3]>,
    /// Attachment points of a distance constraint \[m\].
    #[serde(default)]
    pub point1: Option<[f64; 3]>,
    #[serde(default)]
    pub point2: Option<[f64; 3]>,
    /// Distance \[m\]; default: the distance at the initial configuration.
    #[serde(default)]
    pub length: Option<f64>,
    /// Joint coordinate (angle \[rad\] or displacement \[m\]) at the initial configuration;
    /// drivers and outputs refer to coordinates measured from this value.
    #[serde(default)]
    pub initial_coordinate: f64,
    /// Coulomb friction in a translational joint (seed 003 Sect. 3.4).
    #[serde(default)]
    pub friction: Option<Friction>,
    /// Cut joint of a closed loop in the semirecursive formulations (seed 004 Sect. 2: the
    /// loop is opened here and closed by constraint equations); ignored by the index-3
    /// formulation. Loops without a marked cut joint are cut where the spanning tree closes them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Friction {
    /// Friction coefficient mu [-].
    pub coefficient: f64,
    /// Below this sliding speed the friction force is zero [m/s] (seed 003 code: 1e-5).
    #[serde(default = "default_stiction_speed")]
    pub zero_speed: f64,
}

fn default_stiction_speed() -> f64 {
    1e-5
}

/// Which coordinate of a joint a driver prescribes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum JointCoordinate {
    Rotation,
    Translation,
}

/// A prescribed-motion driver: joint coordinate = f(t).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Driver {
    pub name: String,
    pub joint: String,
    /// Needed only for cylindrical joints; revolute drives rotation, translational translation.
    #[serde(default)]
    pub coordinate: Option<JointCoordinate>,
    pub motion: Motion,
}

/// Motion laws f(t) with analytic f' and f''.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Motion {
    /// f = initial + rate t
    ConstantRate { initial: f64, rate: f64 },
    /// f = sum_k c_k t^k
    Polynomial { coefficients: Vec<f64> },
    /// f = offset + amplitude sin(frequency t + phase), frequency in rad/s
    Harmonic {
        #[serde(default)]
        offset: f64,
        amplitude: f64,
        frequency: f64,
        #[serde(default)]
        phase: f64,
    },
    /// Quintic step from `from` at `t0` to `to` at `t1` (continuous up to f'').
    SmoothStep { t0: f64, t1: f64, from: f64, to: f64 },
    /// `segments[i]` applies for t < `segments[i].until` (the last one for all later t).
    Piecewise { segments: Vec<Segment> },
    /// f goes from `from` to `to` over [t0, t0 + duration] along (1 - cos)/2 (zero rate at
    /// both ends; MBDyn's "cosine" drive), and holds its end values outside.
    CosineRamp { t0: f64, duration: f64, from: f64, to: f64 },
    /// f starts at `initial` at rest; its rate f' changes by cosine ramps (each from the
    /// previous rate to `rate` over [start, start + duration]) and holds between them: a
    /// spin-up profile given by its speeds.
    SpeedRamps { initial: f64, ramps: Vec<SpeedRamp> },
    /// f = the sum of the terms' values (e.g. a ramp plus a harmonic: the integral of a
    /// cosine-ramped speed).
    Sum { terms: Vec<Motion> },
    /// The rate f' is the FMU input `input` (held over each communication step);
    /// f integrates it from `initial`.
    InputRate { input: String, initial: f64 },
}

/// One speed change of [`Motion::SpeedRamps`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SpeedRamp {
    /// Start of the ramp \[s\].
    pub start: f64,
    /// Its duration \[s\].
    pub duration: f64,
    /// The rate reached at its end (per second).
    pub rate: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    pub until: f64,
    pub motion: Motion,
}

/// Applied force elements.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Force {
    /// Translational spring-damper-actuator between two points (global, initial configuration).
    /// Tension f = k (l - l0) + c l' + actuator (+ input) pulls the points together.
    Tsda {
        name: String,
        body1: String,
        body2: String,
        point1: [f64; 3],
        point2: [f64; 3],
        #[serde(default)]
        stiffness: f64,
        #[serde(default)]
        damping: f64,
        /// Free length \[m\]; default: initial length.
        #[serde(default)]
        rest_length: Option<f64>,
        #[serde(default)]
        actuator: f64,
        #[serde(default)]
        input: Option<String>,
    },
    /// Rotational spring-damper-actuator about a revolute or cylindrical joint axis, acting on
    /// the joint's relative rotation: torque on body2 = -(k (theta - theta0) + c theta') + actuator.
    Rsda {
        name: String,
        joint: String,
        #[serde(default)]
        stiffness: f64,
        #[serde(default)]
        damping: f64,
        /// Free angle in joint coordinates \[rad\] (default: the initial coordinate).
        #[serde(default)]
        rest_angle: Option<f64>,
        #[serde(default)]
        actuator: f64,
        #[serde(default)]
        input: Option<String>,
    },
    /// Force of magnitude value (+ input) along a global direction at a point of a body
    /// (`"type": "force"` in JSON).
    #[serde(rename = "force")]
    Load {
        name: String,
        body: String,
        direction: [f64; 3],
        /// Point of application, global at the initial configuration (default: centre of mass).
        #[serde(default)]
        point: Option<[f64; 3]>,
        #[serde(default)]
        value: f64,
        #[serde(default)]
        input: Option<String>,
    },
    /// Torque of magnitude value (+ input) about a global axis acting on a body.
    Torque {
        name: String,
        body: String,
        axis: [f64; 3],
        #[serde(default)]
        value: f64,
        #[serde(default)]
        input: Option<String>,
    },
    /// Linear actuator between two points (global, initial configuration): a force of
    /// magnitude value (+ input) along the line that pushes the points apart (e.g. a cylinder
    /// whose force comes from another FMU).
    Actuator {
        name: String,
        body1: String,
        body2: String,
        point1: [f64; 3],
        point2: [f64; 3],
        #[serde(default)]
        value: f64,
        #[serde(default)]
        input: Option<String>,
    },
}

impl Force {
    pub fn name(&self) -> &str {
        match self {
            Force::Tsda { name, .. }
            | Force::Rsda { name, .. }
            | Force::Load { name, .. }
            | Force::Torque { name, .. }
            | Force::Actuator { name, .. } => name,
        }
    }
    pub fn input(&self) -> Option<&str> {
        match self {
            Force::Tsda { input, .. }
            | Force::Rsda { input, .. }
            | Force::Load { input, .. }
            | Force::Torque { input, .. }
            | Force::Actuator { input, .. } => input.as_deref(),
        }
    }
}

/// The FMU interface of the model: exposed parameters, inputs and outputs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Interface {
    #[serde(default)]
    pub parameters: Vec<ParameterSpec>,
    #[serde(default)]
    pub inputs: Vec<InputSpec>,
    #[serde(default)]
    pub outputs: Vec<OutputSpec>,
}

/// A fixed FMU parameter: either a numeric field of the description (`path`) or a named
/// value (`value`) that expressions (`"=name * 2"`) use anywhere a number is expected.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ParameterSpec {
    /// FMU variable name.
    pub name: String,
    /// Path of the number in the description, e.g. `bodies.crank.mass` or `gravity.2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The value of a named parameter (instead of a path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
}

/// A continuous input referenced by drivers (`input_rate`) or force elements (`input`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    pub name: String,
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub start: f64,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
}

/// A group of outputs; expanded into scalar variables by the interface module.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum OutputSpec {
    Body {
        body: String,
        quantities: Vec<BodyQuantity>,
    },
    Joint {
        joint: String,
        quantities: Vec<JointQuantity>,
    },
    Driver {
        driver: String,
        quantities: Vec<DriverQuantity>,
    },
    Force {
        force: String,
        quantities: Vec<ForceQuantity>,
    },
    System {
        system: Vec<SystemQuantity>,
    },
    /// A beam node (`<beam>.node<i>`): its motion and the section forces there.
    Node {
        node: String,
        quantities: Vec<NodeQuantity>,
    },
    /// Hydraulic control volume.
    Volume {
        volume: String,
        quantities: Vec<VolumeQuantity>,
    },
    /// Directional control valve.
    Valve {
        valve: String,
        quantities: Vec<ValveQuantity>,
    },
    /// Hydraulic cylinder.
    Cylinder {
        cylinder: String,
        quantities: Vec<CylinderQuantity>,
    },
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BodyQuantity {
    /// Centre-of-mass position, global \[m\].
    Position,
    /// Orientation as a unit quaternion (e0 >= 0) of A.
    Orientation,
    /// Centre-of-mass velocity, global [m/s].
    Velocity,
    /// Angular velocity, global components [rad/s].
    AngularVelocity,
    /// Centre-of-mass acceleration, global [m/s^2].
    Acceleration,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NodeQuantity {
    /// Node position, global \[m\].
    Position,
    /// Position minus the initial position, global \[m\].
    Displacement,
    /// Rotation vector of the node's rotation relative to its initial orientation, global
    /// components \[rad\] (magnitude at most pi).
    Rotation,
    /// Orientation of the node's section frame as a unit quaternion (e0 >= 0).
    Orientation,
    /// Velocity, global [m/s].
    Velocity,
    /// Angular velocity, global components [rad/s].
    AngularVelocity,
    /// Acceleration, global [m/s^2].
    Acceleration,
    /// Angular acceleration, global components [rad/s^2].
    AngularAcceleration,
    /// Section force in the section frame at the node (`axial`, `shear2`, `shear3`): the
    /// mean of the adjacent elements' values \[N\].
    SectionForce,
    /// Section moment in the section frame at the node (`torsion`, `bending2`, `bending3`)
    /// [N m].
    SectionMoment,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum JointQuantity {
    /// Joint angle or displacement (revolute, translational; cylindrical: both).
    Coordinate,
    /// Its time derivative.
    Rate,
    /// Reaction force the joint exerts on body2, global \[N\].
    ReactionForce,
    /// Reaction torque the joint exerts on body2 about its centre of mass, global [N m].
    ReactionTorque,
    /// Coulomb friction force along the joint axis on body2 \[N\].
    FrictionForce,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DriverQuantity {
    /// Torque [N m] or force \[N\] the driver applies to body2 along the joint axis.
    Effort,
    /// Prescribed coordinate f(t).
    Prescribed,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ForceQuantity {
    /// TSDA/actuator length \[m\] or RSDA angle \[rad\].
    Length,
    /// TSDA tension \[N\], actuator force \[N\] or RSDA torque [N m].
    Force,
    /// Rate of the TSDA/actuator length [m/s] or RSDA angle [rad/s].
    Rate,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum VolumeQuantity {
    /// Pressure \[Pa\] (seed 004 eq. 22).
    Pressure,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ValveQuantity {
    /// Spool position U \[V\] (seed 004 eq. 27).
    Spool,
    /// Reference U_ref \[V\] held over the last internal step.
    Reference,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CylinderQuantity {
    /// Actuator (pin-to-pin) length |s| \[m\].
    Length,
    /// Its rate [m/s].
    Velocity,
    /// Force F_s = p_A A_A - p_B A_B - F_mu \[N\] (seed 004 eq. 29), pushing the ends apart.
    Force,
    /// Work of F_s on the mechanism since the start \[J\].
    Work,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SystemQuantity {
    KineticEnergy,
    PotentialEnergy,
    TotalEnergy,
    /// Work done on the system by applied torques/forces that are not potentials
    /// (actuators, inputs, dampers, friction), integrated over time \[J\].
    ExternalWork,
    /// Total energy minus its initial value minus the external work (seed 000 eq. 23) \[J\].
    EnergyBalance,
    /// Euclidean norm of the position constraints Phi [m or rad].
    ConstraintViolation,
    /// Newton iterations of the last internal step.
    NewtonIterations,
    /// Internal steps taken since the start.
    Steps,
}

/// Default experiment written to modelDescription.xml.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    #[serde(default)]
    pub start: f64,
    pub stop: f64,
    /// Communication step \[s\].
    pub step: f64,
}

/// Parses a JSON description and validates it.
pub fn parse(json: &str) -> Result<Description, DescriptionError> {
    parse_parametric(json).map(|(d, _)| d)
}

/// The parametric form of a description that has named parameters or expressions: the
/// document as written and what it was evaluated with.
#[derive(Clone, Debug, PartialEq)]
pub struct Parametric {
    /// The JSON as written, with its `"=..."` expressions.
    pub source: serde_json::Value,
    /// Named parameters and their values as written.
    pub named: Vec<(String, f64)>,
    /// Locations of the expressions (`bodies[1].position[0]`).
    pub expressions: Vec<String>,
}

impl Parametric {
    /// The description with other values of the named parameters (not validated).
    pub fn evaluate(&self, values: &[(String, f64)]) -> Result<Description, DescriptionError> {
        let mut doc = self.source.clone();
        parametric::set_named_parameters(&mut doc, values);
        parametric::evaluate_document(&mut doc, values)?;
        serde_json::from_value(doc).map_err(|e| DescriptionError::Syntax(e.to_string()))
    }
}

/// Parses and validates a description; the parametric form if it uses named parameters.
pub fn parse_parametric(json: &str) -> Result<(Description, Option<Parametric>), DescriptionError> {
    let source: serde_json::Value = serde_json::from_str(json).map_err(|e| DescriptionError::Syntax(e.to_string()))?;
    let named = parametric::named_parameters(&source)?;
    let mut doc = source.clone();
    let expressions = parametric::evaluate_document(&mut doc, &named)?;
    let d: Description = serde_json::from_value(doc).map_err(|e| DescriptionError::Syntax(e.to_string()))?;
    // A path parameter would overwrite an expression: the value would not follow its parameters.
    for p in &d.interface.parameters {
        if let Some(path) = &p.path {
            if path::is_expression(&source, path) {
                return Err(DescriptionError::Invalid {
                    location: format!("interface parameter '{}'", p.name),
                    reason: format!("'{path}' is an expression of named parameters; change those parameters instead"),
                });
            }
        }
    }
    d.validate()?;
    let parametric =
        (!named.is_empty() || !expressions.is_empty()).then_some(Parametric { source, named, expressions });
    Ok((d, parametric))
}

impl Description {
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }
    pub fn driver_index(&self, name: &str) -> Option<usize> {
        self.drivers.iter().position(|d| d.name == name)
    }
    pub fn force_index(&self, name: &str) -> Option<usize> {
        self.forces.iter().position(|f| f.name() == name)
    }
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.interface.inputs.iter().position(|i| i.name == name)
    }
    pub fn volume_index(&self, name: &str) -> Option<usize> {
        self.hydraulics.as_ref()?.volumes.iter().position(|v| v.name == name)
    }
    pub fn valve_index(&self, name: &str) -> Option<usize> {
        self.hydraulics.as_ref()?.valves.iter().position(|v| v.name() == name)
    }
    pub fn cylinder_index(&self, name: &str) -> Option<usize> {
        self.hydraulics.as_ref()?.cylinders.iter().position(|c| c.name == name)
    }
}
