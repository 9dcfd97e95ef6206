//! Models described as data.
//!
//! A [`Description`] is what a user writes (JSON): bodies, joints, drivers, force elements
//! and the FMU interface. It is plain data: no formulation ever special-cases a model.
//!
//! The same types give the JSON Schema (`schema.rs`, `mbfmu schema`): doc comments become
//! descriptions, and a unit in brackets (`[kg.m2]`, FMI unit syntax) becomes its `x-unit`.
//! Words with fixed values are declared with `keyword!` and kinds of objects with
//! `tagged!`, so that a wrong word is answered with its JSON path, the valid choices and
//! the nearest one (`errors.rs`).
//!
//! This module is compiled twice: into the library and into `build.rs` (which generates the
//! modelDescription.xml files from the same declarations), so it depends only on crates that
//! build.rs also has and refers to its siblings with `super::` / `crate::format::`.

mod beam;
mod capabilities;
mod dof;
mod drivers;
mod errors;
pub mod expression;
mod forces;
mod hydraulic_components;
mod hydraulics;
mod interface;
pub(crate) mod keyword;
mod locate;
pub mod parametric;
mod path;
pub mod plausibility;
mod quantity;
mod schema;
mod solver;
pub(crate) mod tagged;
mod validate;
mod validate_components;
mod validate_drivers;
mod validate_hydraulics;
mod validate_interface;
mod validate_mechanism;

pub use beam::{Beam, BeamInertia, NodeRef, Section};
pub use capabilities::{capability_table, Capability, CAPABILITIES};
pub use drivers::{Driver, JointCoordinate, Motion, Segment, SpeedRamp};
pub use forces::{Force, ForcePlace, LineSymbol};
pub use hydraulic_components::{Accumulator, Compensator, Line, Motor, Pump, MIN_GAS_FRACTION};
pub use hydraulics::{
    Cushion, CycleStep, Cylinder, CylinderEnd, Hydraulics, Oil, Opening, Reference, SealFriction, Source, Valve, Volume,
};
pub use interface::{
    AccumulatorQuantity, AnimationPart, BodyQuantity, CylinderQuantity, DriverQuantity, ForceQuantity, InputSpec,
    Interface, JointQuantity, MotorQuantity, NodeQuantity, OutputSpec, ParameterSpec, SourceQuantity, SystemQuantity,
    ValveQuantity, VolumeQuantity,
};
pub use keyword::Keyword;
pub use path::{get_number, set_number, PathError};
pub use plausibility::{Plausibility, PlausibilityCheck, PlausibilityWarning};
pub use quantity::Quantity;
pub use schema::{json_schema, json_schema_text};
pub use solver::{
    ConstraintForm, Formulation, Method, SolverDefaults, Tangent, DEFAULT_TOLERANCE, DEFAULT_VELOCITY_TOLERANCE_FACTOR,
};
pub use validate::{is_identifier, DescriptionError};
pub use validate_drivers::driven_coordinate;

use keyword::keyword;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// Name reserved for the fixed inertial frame in joint and force definitions.
pub const GROUND: &str = "ground";

/// A complete model: mechanism, FMU interface, default experiment and solver settings.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "mbfmu model description")]
pub struct Description {
    /// The JSON Schema this file follows (e.g. a path to docs/model.schema.json), for
    /// editors that validate and complete as you type; the parser ignores it.
    #[serde(rename = "$schema", default, skip_serializing)]
    pub schema: Option<String>,
    /// Model name; also the FMU's modelIdentifier, so it must be a C identifier.
    pub name: String,
    /// One-line description shown in modelDescription.xml.
    #[serde(default)]
    pub description: String,
    /// Where the model comes from (papers and equations, reference tables).
    #[serde(default)]
    pub source: String,
    /// Longer notes for documentation/index.html (assumptions, conventions).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Gravitational acceleration in the global frame [m/s2] (gravity is this field, not a force).
    #[serde(default)]
    pub gravity: [f64; 3],
    /// A planar mechanism: every body moves parallel to a plane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plane: Option<Plane>,
    /// The rigid bodies.
    pub bodies: Vec<Body>,
    /// Kinematic joints between bodies, beam nodes and `ground`.
    #[serde(default)]
    pub joints: Vec<Joint>,
    /// Prescribed motions of joint coordinates.
    #[serde(default)]
    pub drivers: Vec<Driver>,
    /// Applied force elements (springs, dampers, actuators, loads).
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
    /// Lumped-fluid hydraulic circuit (Jaiswal et al. 2021 Sect. 3), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hydraulics: Option<Hydraulics>,
    /// What the FMU exposes: parameters, inputs and outputs.
    #[serde(default)]
    pub interface: Interface,
    /// The DefaultExperiment of modelDescription.xml.
    pub experiment: Experiment,
    /// Defaults of the `solver.*` parameters.
    #[serde(default)]
    pub solver: SolverDefaults,
    /// Plausibility checks of sizes to skip: `mbfmu package` warns of values far outside
    /// machine scale, a likely unit mistake (`{"ignore": ["lengths"]}` for a description whose
    /// sizes are meant).
    #[serde(default, skip_serializing_if = "Plausibility::is_default")]
    pub plausibility: Plausibility,
}

/// Planar motion: each body keeps its offset along `normal` and rotates only about it, and
/// joints keep only their in-plane constraints (revolute: 2, translational: 2, fixed: 3,
/// distance: 1), so closed planar loops are not over-constrained.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plane {
    /// Normal of the plane of motion, global [-] (any length but zero).
    pub normal: [f64; 3],
}

/// A rigid body whose body frame is centred at the centre of mass (Fang et al. 2023 Sect. 2).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Unique name (a C identifier); joints, forces and outputs refer to it.
    pub name: String,
    /// Mass \[kg\].
    pub mass: f64,
    /// Inertia about the centre of mass in the body frame \[kg.m2\]: principal moments
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
    /// body-frame components (the papers' convention).
    #[serde(default)]
    pub angular_velocity: AngularVelocity,
    /// Visual shape, centred on the centre of mass, for the 3D replay. Visual
    /// only: it has no effect on the dynamics (mass and inertia are given separately).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// A structural node of a beam (`<beam>.node<i>`, `<beam>.start`, `<beam>.end`) this
    /// body is fixed to without a joint, as MBDyn's body element on a structural node: the
    /// body then has no coordinates of its own; its `position` and `orientation` are those
    /// of its centre of mass and axes in the reference configuration, and its mass, inertia,
    /// centre-of-mass offset from the node and rotation relative to the node's axes are added
    /// to the node's (index-3 formulation; no initial `velocity` or `angular_velocity`: the
    /// body moves with its node). Joints, forces, hydraulic attachments and outputs that name
    /// the body act on the node at the body's points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attached_to: Option<String>,
}

/// The visual shape of a body, centred on its centre of mass. Visual only: it has no effect
/// on the dynamics (the body's mass and inertia are given separately).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// A box whose edges lie along the body frame's axes.
    Box {
        /// Edge lengths along the body frame's x, y and z axes \[m\].
        size: [f64; 3],
    },
    /// A circular cylinder about `axis`.
    Cylinder {
        /// Radius \[m\].
        radius: f64,
        /// Length along the axis \[m\].
        length: f64,
        /// Direction of the axis, global at the initial configuration like every vector of
        /// the description [-] (any length but zero).
        axis: [f64; 3],
    },
    /// A sphere.
    Sphere {
        /// Radius \[m\].
        radius: f64,
    },
}

/// Inertia about the centre of mass in the body frame \[kg.m2\].
#[derive(Clone, Debug, Serialize, PartialEq, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum Inertia {
    /// Principal moments `[Jxx, Jyy, Jzz]` \[kg.m2\].
    Principal([f64; 3]),
    /// Full symmetric matrix, rows \[kg.m2\].
    Full([[f64; 3]; 3]),
}

impl<'de> Deserialize<'de> for Inertia {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        if let Ok(p) = <[f64; 3]>::deserialize(&v) {
            return Ok(Inertia::Principal(p));
        }
        if let Ok(m) = <[[f64; 3]; 3]>::deserialize(&v) {
            return Ok(Inertia::Full(m));
        }
        Err(serde::de::Error::custom(format!(
            "expected the principal moments [Jxx, Jyy, Jzz] or a 3x3 matrix [[..], [..], [..]] (numbers, kg.m2), got {v}"
        )))
    }
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

/// Initial orientation of a body.
#[derive(Clone, Debug, Serialize, PartialEq, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum Orientation {
    /// Rotation matrix, rows of A; A maps body-frame vectors to the global frame [-].
    Matrix([[f64; 3]; 3]),
    /// Rotation by `angle` about the global unit vector `axis`.
    AxisAngle {
        /// Rotation axis, global [-] (normalized when read).
        axis: [f64; 3],
        /// Rotation angle \[rad\].
        angle: f64,
    },
}

/// The object form of [`Orientation`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AxisAngle {
    axis: [f64; 3],
    angle: f64,
}

impl<'de> Deserialize<'de> for Orientation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::seq_or_map(
            d,
            "a 3x3 rotation matrix (rows) or {\"axis\": [x, y, z], \"angle\": radians}",
            Orientation::Matrix,
            |a: AxisAngle| Orientation::AxisAngle { axis: a.axis, angle: a.angle },
        )
    }
}

impl Default for Orientation {
    fn default() -> Self {
        Orientation::Matrix([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    }
}

/// Initial angular velocity of a body.
#[derive(Clone, Debug, Serialize, PartialEq, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum AngularVelocity {
    /// Global components [rad/s].
    Global([f64; 3]),
    /// Body-frame components.
    Body {
        /// Body-frame components [rad/s].
        body: [f64; 3],
    },
}

/// The object form of [`AngularVelocity`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BodyFrame {
    body: [f64; 3],
}

impl<'de> Deserialize<'de> for AngularVelocity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::seq_or_map(
            d,
            "global components [wx, wy, wz] or {\"body\": [wx, wy, wz]}",
            AngularVelocity::Global,
            |b: BodyFrame| AngularVelocity::Body { body: b.body },
        )
    }
}

impl Default for AngularVelocity {
    fn default() -> Self {
        AngularVelocity::Global([0.0; 3])
    }
}

keyword! {
    /// Kinematic joint kinds; each is a set of basic constraints (Fang et al. 2023 Sect. 2.1, Ref. \[11\]).
    pub enum JointKind("joint type", hint = |word| {
        (word == "plane").then_some("a planar mechanism is the top-level field `plane`, not a joint")
    }) {
        /// Rotation about `axis` through `point` (5 constraints).
        Revolute = "revolute",
        /// Common `point` (3 constraints).
        Spherical = "spherical",
        /// Sliding along `axis`, no relative rotation (5 constraints).
        Translational = "translational",
        /// Sliding along and rotating about `axis` (4 constraints).
        Cylindrical = "cylindrical",
        /// Common `point`; `axis1` fixed in body1 stays perpendicular to `axis2` fixed in body2
        /// (4 constraints).
        Universal = "universal",
        /// No relative motion (6 constraints).
        Fixed = "fixed",
        /// Constant distance `length` between `point1` on body1 and `point2` on body2 (1 constraint).
        Distance = "distance",
    }
}

/// A joint between `body1` and `body2` (either may be "ground"). Geometry is given in the
/// global frame at the initial configuration; body-fixed vectors follow from the initial poses.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    /// Unique name (a C identifier); drivers, forces and outputs refer to it.
    pub name: String,
    /// The kind of joint.
    #[serde(rename = "type")]
    pub kind: JointKind,
    /// First body, beam node or `ground`.
    pub body1: String,
    /// Second body, beam node or `ground`; coordinates, reactions and efforts are those of
    /// body2 relative to body1.
    pub body2: String,
    /// Joint location, global (all kinds but distance) \[m\].
    #[serde(default)]
    pub point: Option<[f64; 3]>,
    /// Joint axis, global (revolute, translational, cylindrical) [-].
    #[serde(default)]
    pub axis: Option<[f64; 3]>,
    /// Cross axis of a universal joint fixed in body1, global [-].
    #[serde(default)]
    pub axis1: Option<[f64; 3]>,
    /// Cross axis of a universal joint fixed in body2, global [-].
    #[serde(default)]
    pub axis2: Option<[f64; 3]>,
    /// Attachment point on body1 of a distance constraint, global \[m\].
    #[serde(default)]
    pub point1: Option<[f64; 3]>,
    /// Attachment point on body2 of a distance constraint, global \[m\].
    #[serde(default)]
    pub point2: Option<[f64; 3]>,
    /// Distance \[m\]; default: the distance at the initial configuration.
    #[serde(default)]
    pub length: Option<f64>,
    /// Joint coordinate (angle \[rad\] or displacement \[m\]) at the initial configuration;
    /// drivers and outputs refer to coordinates measured from this value.
    #[serde(default)]
    pub initial_coordinate: f64,
    /// Coulomb friction in a translational joint (Fang et al. 2023 Sect. 3.4).
    #[serde(default)]
    pub friction: Option<Friction>,
    /// Cut joint of a closed loop in the semirecursive formulations (Jaiswal et al. 2021 Sect. 2: the
    /// loop is opened here and closed by constraint equations); ignored by the index-3
    /// formulation. Loops without a marked cut joint are cut where the spanning tree closes them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// Coulomb friction in a translational joint, the normal force from the previous step's
/// multipliers (Fang et al. 2023 Sect. 3.4).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Friction {
    /// Friction coefficient mu [-].
    pub coefficient: f64,
    /// Below this sliding speed the friction force is zero [m/s] (Fang et al. 2023's published code: 1e-5).
    #[serde(default = "default_stiction_speed")]
    pub zero_speed: f64,
}

fn default_stiction_speed() -> f64 {
    1e-5
}

/// Default experiment written to modelDescription.xml.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// Start time \[s\].
    #[serde(default)]
    pub start: f64,
    /// Stop time \[s\].
    pub stop: f64,
    /// Communication step \[s\].
    pub step: f64,
}

/// Parses a JSON description and validates it. Errors name the JSON path of the bad value
/// (`interface.outputs[1].quantities[0]: unknown body quantity 'veloctiy'; did you mean ...`).
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
        read_value(doc)
    }
}

/// Reads a description from its text; errors name the JSON path, the line and the column.
fn read_text(json: &str) -> Result<Description, DescriptionError> {
    let mut de = serde_json::Deserializer::from_str(json);
    let d: Description =
        serde_path_to_error::deserialize(&mut de).map_err(|e| DescriptionError::Syntax(errors::describe(&e)))?;
    de.end().map_err(|e| DescriptionError::Syntax(errors::describe_plain(&e)))?;
    Ok(d)
}

/// Reads an evaluated document; errors name the JSON path (no line: the text is gone).
fn read_value(doc: serde_json::Value) -> Result<Description, DescriptionError> {
    serde_path_to_error::deserialize(doc).map_err(|e| DescriptionError::Syntax(errors::describe(&e)))
}

/// Parses and validates a description; the parametric form if it uses named parameters.
pub fn parse_parametric(json: &str) -> Result<(Description, Option<Parametric>), DescriptionError> {
    let (d, parametric) = read_parametric(json)?;
    d.validate()?;
    Ok((d, parametric))
}

/// [`parse_parametric`] without [`Description::validate`], for callers that validate with
/// the serialized description they keep ([`Description::validate_serialized`]).
pub fn read_parametric(json: &str) -> Result<(Description, Option<Parametric>), DescriptionError> {
    // Most descriptions (every catalog model) have neither expressions nor named parameters:
    // those are read straight from the text, without the JSON tree the parametric form needs
    // (which doubled the reading: 0.4 million instructions of a DoublePendulum instantiation).
    // Without `"=` and `\u` escapes in the text no string starts with '='; a description that
    // does not read this way takes the general path below, which explains its errors.
    if !json.contains("\"=") && !json.contains("\\u") {
        if let Ok(d) = read_text(json) {
            if d.interface.parameters.iter().all(|p| p.value.is_none()) {
                return Ok((d, None));
            }
        }
    }
    read_general(json)
}

/// [`read_parametric`] through the JSON tree, for any description. Errors found in the
/// tree (an expression, a value read from the evaluated document) get the line and column of
/// their JSON path in `json`, as errors read straight from the text have them.
fn read_general(json: &str) -> Result<(Description, Option<Parametric>), DescriptionError> {
    read_tree(json).map_err(|e| located(e, json))
}

/// `e` with ` (line L, column C)` of the JSON path it names, if it names one and has none.
fn located(e: DescriptionError, json: &str) -> DescriptionError {
    let at = |path: &str| {
        let is_path = !path.is_empty()
            && path.chars().all(|c| c.is_ascii_alphanumeric() || "_.[]$".contains(c))
            && !path.starts_with('.');
        is_path
            .then(|| locate::position(json, &locate::steps(path)))
            .flatten()
            .map(|(line, column)| format!(" (line {line}, column {column})"))
    };
    match e {
        DescriptionError::Syntax(m) if !m.contains("(line ") => {
            let suffix = m.split_once(": ").and_then(|(path, _)| at(path)).unwrap_or_default();
            DescriptionError::Syntax(m + &suffix)
        }
        DescriptionError::Invalid { location, reason } if !reason.contains("(line ") => {
            let suffix = at(&location).unwrap_or_default();
            DescriptionError::Invalid { location, reason: reason + &suffix }
        }
        e => e,
    }
}

fn read_tree(json: &str) -> Result<(Description, Option<Parametric>), DescriptionError> {
    let source: serde_json::Value =
        serde_json::from_str(json).map_err(|e| DescriptionError::Syntax(errors::describe_plain(&e)))?;
    let named = parametric::named_parameters(&source)?;
    let (d, expressions) = if named.is_empty() && !parametric::has_expressions(&source) {
        (read_text(json)?, Vec::new())
    } else {
        let mut doc = source.clone();
        let expressions = parametric::evaluate_document(&mut doc, &named)?;
        (read_value(doc)?, expressions)
    };
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
    let parametric =
        (!named.is_empty() || !expressions.is_empty()).then_some(Parametric { source, named, expressions });
    Ok((d, parametric))
}

impl Description {
    /// The body-fixed points of the output groups that name one, in the order of
    /// `interface.outputs`: the body's index and the point, global at the initial
    /// configuration. [`Quantity::PointPosition`] and its kin index this list.
    /// After them, the centre of mass of each body attached to a beam node, in the order of
    /// `bodies` (its position, velocity and acceleration outputs are those of a point of the
    /// node: [`Description::attached_point`]).
    pub fn output_points(&self) -> Vec<(usize, [f64; 3])> {
        let mut points: Vec<(usize, [f64; 3])> = self
            .interface
            .outputs
            .iter()
            .filter_map(|o| match o {
                OutputSpec::Body { body, point: Some(point), .. } => Some((self.body_index(body)?, *point)),
                _ => None,
            })
            .collect();
        points.extend(
            self.bodies.iter().enumerate().filter(|(_, b)| b.attached_to.is_some()).map(|(i, b)| (i, b.position)),
        );
        points
    }

    /// The index in [`Description::output_points`] of the centre of mass of body `i` if it is
    /// attached to a beam node.
    pub fn attached_point(&self, i: usize) -> Option<usize> {
        self.bodies[i].attached_to.as_ref()?;
        let explicit = self
            .interface
            .outputs
            .iter()
            .filter(|o| matches!(o, OutputSpec::Body { body, point: Some(_), .. } if self.body_index(body).is_some()))
            .count();
        Some(explicit + self.bodies[..i].iter().filter(|b| b.attached_to.is_some()).count())
    }

    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// True if some body is attached to a beam node (`Body::attached_to`).
    pub fn has_attached_bodies(&self) -> bool {
        self.bodies.iter().any(|b| b.attached_to.is_some())
    }

    /// The bodies with coordinates of their own (not attached to a beam node), in order.
    pub fn free_bodies(&self) -> impl Iterator<Item = &Body> {
        self.bodies.iter().filter(|b| b.attached_to.is_none())
    }

    /// Per body of the description: its index in the list bodies-then-nodes that the index-3
    /// formulation compiles (a free body's place among the free bodies, an attached body's
    /// node).
    pub fn body_parts(&self) -> Vec<usize> {
        let free = self.free_bodies().count();
        let mut next = 0;
        self.bodies
            .iter()
            .map(|b| match &b.attached_to {
                None => {
                    next += 1;
                    next - 1
                }
                // Validated; an unknown node maps past the parts.
                Some(node) => free + self.node_index(node).unwrap_or(usize::MAX - free),
            })
            .collect()
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
    pub fn source_index(&self, name: &str) -> Option<usize> {
        self.hydraulics.as_ref()?.sources.iter().position(|s| s.name == name)
    }
    pub fn valve_index(&self, name: &str) -> Option<usize> {
        self.hydraulics.as_ref()?.valves.iter().position(|v| v.name() == name)
    }
    pub fn cylinder_index(&self, name: &str) -> Option<usize> {
        self.hydraulics.as_ref()?.cylinders.iter().position(|c| c.name == name)
    }
    pub fn motor_index(&self, name: &str) -> Option<usize> {
        self.hydraulics.as_ref()?.motors.iter().position(|m| m.name == name)
    }
    pub fn accumulator_index(&self, name: &str) -> Option<usize> {
        self.hydraulics.as_ref()?.accumulators.iter().position(|a| a.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::CATALOG;

    /// Descriptions without expressions and named parameters are read from their text: the
    /// same description as through the JSON tree.
    #[test]
    fn plain_descriptions_read_directly_as_through_the_tree() {
        let examples = [
            include_str!("../../../../docs/examples/pendulum.json"),
            include_str!("../../../../docs/examples/slider_crank.json"),
        ];
        let mut plain = 0;
        for json in CATALOG.iter().map(|e| e.json).chain(examples) {
            let (direct, direct_parametric) = read_parametric(json).unwrap();
            let (general, general_parametric) = read_general(json).unwrap();
            assert_eq!(direct, general);
            assert_eq!(direct_parametric.is_some(), general_parametric.is_some());
            plain += usize::from(general_parametric.is_none());
        }
        assert!(plain >= CATALOG.len(), "{plain}");
    }

    /// An expression, even one whose '=' is written as an escape, and a named parameter take
    /// the general path (the direct reading would refuse or ignore them).
    #[test]
    fn expressions_and_named_parameters_are_not_read_directly() {
        let json = crate::catalog::find("DoublePendulum").unwrap().json;
        let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
        let gravity = doc["gravity"].clone();
        for expression in ["=2*0.5", "\\u003d2*0.5"] {
            doc["gravity"][0] = serde_json::Value::String("EXPR".into());
            let text = serde_json::to_string(&doc).unwrap().replace("EXPR", expression);
            let (d, parametric) = read_parametric(&text).unwrap();
            assert_eq!(d.gravity[0], 1.0, "{expression}");
            assert!(parametric.is_some(), "{expression}");
        }
        doc["gravity"] = gravity;
        doc["interface"]["parameters"].as_array_mut().unwrap().push(serde_json::json!({"name": "scale", "value": 2.0}));
        let (_, parametric) = read_parametric(&serde_json::to_string(&doc).unwrap()).unwrap();
        assert_eq!(parametric.unwrap().named, [("scale".to_string(), 2.0)]);
    }
}
