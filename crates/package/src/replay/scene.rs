//! What the replay draws, taken from a description: the moving frames (ground, bodies, beam
//! nodes) with the output channels that pose them, and the bodies, beams, joints and line
//! elements fixed to those frames, with every point in its frame's local coordinates.
//!
//! The format gives all geometry global at the initial configuration and the engine fixes it
//! to bodies through their initial poses, so a body point's local coordinates are
//! `A0^T (p - x0)`, with `A0` the body's initial rotation matrix and `x0` its initial centre of
//! mass. A beam node's frame at the first sample gives its points' local coordinates.

use super::run::Run;
use mbfmu_model::format::{Description, ForcePlace, JointKind, LineSymbol, Orientation, Shape, Valve, GROUND};
use serde::Serialize;

pub use crate::drawing::projection::{dot, sub, unit, V3};

/// A moving frame; `position` and `orientation` name the channels of its pose.
#[derive(Clone, Debug, Serialize)]
pub struct Frame {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<[String; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orientation: Option<[String; 4]>,
    /// A node frame's orientation at the first sample (e0 scalar).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_orientation: Option<[f64; 4]>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ShapeOut {
    Bar { a: V3, b: V3, radius: f64 },
    Sphere { center: V3, radius: f64 },
    Box { center: V3, size: V3 },
    Cylinder { a: V3, b: V3, radius: f64 },
}

#[derive(Clone, Debug, Serialize)]
pub struct BodyOut {
    pub name: String,
    pub frame: usize,
    pub shapes: Vec<ShapeOut>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BeamOut {
    pub name: String,
    pub nodes: Vec<usize>,
    pub radius: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct JointOut {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub frame: usize,
    pub point: V3,
    pub axis: Option<V3>,
    pub size: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct End {
    pub frame: usize,
    pub point: V3,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkOut {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub a: End,
    pub b: End,
    pub radius: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barrel: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pressures: Option<[Option<String>; 2]>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Gauge {
    pub channel: String,
    pub label: String,
    pub unit: String,
    pub min: f64,
    pub max: f64,
}

/// The drawn elements of one or more models (a system's components) sharing the ground frame.
#[derive(Clone, Debug, Default)]
pub struct Elements {
    pub frames: Vec<Frame>,
    pub bodies: Vec<BodyOut>,
    pub beams: Vec<BeamOut>,
    pub joints: Vec<JointOut>,
    pub links: Vec<LinkOut>,
    pub gauges: Vec<Gauge>,
    /// Outputs a frame needs that the run lacks: (what, the missing channel names).
    pub missing: Vec<(String, Vec<String>)>,
}

impl Elements {
    pub fn new() -> Elements {
        Elements {
            frames: vec![Frame {
                name: GROUND.to_string(),
                kind: None,
                position: None,
                orientation: None,
                initial_orientation: None,
            }],
            ..Elements::default()
        }
    }
}

/// `R(q) v` for the unit quaternion q = (e0, e1, e2, e3), e0 the scalar part.
pub fn rotate(q: [f64; 4], v: V3) -> V3 {
    let [w, x, y, z] = q;
    let r = [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ];
    r.map(|row| dot(row, v))
}

fn inverse(q: [f64; 4]) -> [f64; 4] {
    [q[0], -q[1], -q[2], -q[3]]
}

/// `A^T v` for the rotation matrix `A` given by rows.
fn transpose_times(a: [[f64; 3]; 3], v: V3) -> V3 {
    std::array::from_fn(|k| a[0][k] * v[0] + a[1][k] * v[1] + a[2][k] * v[2])
}

fn channel_names<const N: usize>(prefix: &str, name: &str, field: &str, parts: [&str; N]) -> [String; N] {
    parts.map(|p| format!("{prefix}{name}.{field}.{p}"))
}

/// How a frame of the description maps points: its index in [`Elements::frames`] and the map
/// from global initial coordinates to local ones.
#[derive(Clone, Copy)]
enum Fixed {
    Ground,
    Body { frame: usize, x0: V3, a0: [[f64; 3]; 3] },
    Node { frame: usize, x0: V3, q0: Option<[f64; 4]> },
}

impl Fixed {
    fn frame(&self) -> usize {
        match self {
            Fixed::Ground => 0,
            Fixed::Body { frame, .. } | Fixed::Node { frame, .. } => *frame,
        }
    }
    fn local(&self, p: V3) -> V3 {
        match *self {
            Fixed::Ground => p,
            Fixed::Body { x0, a0, .. } => transpose_times(a0, sub(p, x0)),
            Fixed::Node { x0, q0, .. } => {
                let d = sub(p, x0);
                q0.map_or(d, |q| rotate(inverse(q), d))
            }
        }
    }
    fn direction(&self, v: V3) -> V3 {
        match *self {
            Fixed::Ground => v,
            Fixed::Body { a0, .. } => transpose_times(a0, v),
            Fixed::Node { q0, .. } => q0.map_or(v, |q| rotate(inverse(q), v)),
        }
    }
}

/// Size of a model: the diagonal of the box around the points the drawings use and the
/// output points (at least 1 mm).
pub fn model_size(d: &Description) -> f64 {
    let mut pts = crate::drawing::mechanism::all_points(d);
    pts.extend(d.output_points().into_iter().map(|(_, p)| p).filter(|p| p.iter().all(|x| x.is_finite())));
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in &pts {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let diagonal = if pts.is_empty() { 0.0 } else { dot(sub(hi, lo), sub(hi, lo)).sqrt() };
    diagonal.max(1e-3)
}

/// Adds the elements of `d` (channel and element names prefixed by `prefix`, "" for a
/// single model) to `out`, posed by the channels of `run`.
pub fn add_model(out: &mut Elements, d: &Description, prefix: &str, run: &Run) {
    let size = model_size(d);
    let bar = size / 100.0;
    let named = |n: &str| format!("{prefix}{n}");

    // Frames: bodies, then beam nodes.
    let mut fixed: Vec<(String, Fixed)> = Vec::new();
    for b in &d.bodies {
        let position = channel_names(prefix, &b.name, "position", ["x", "y", "z"]);
        let orientation = channel_names(prefix, &b.name, "orientation", ["e0", "e1", "e2", "e3"]);
        let missing: Vec<String> = position.iter().chain(orientation.iter()).filter(|c| !run.has(c)).cloned().collect();
        if !missing.is_empty() {
            out.missing.push((format!("body '{}'", named(&b.name)), missing));
        }
        let frame = out.frames.len();
        out.frames.push(Frame {
            name: named(&b.name),
            kind: Some("body"),
            position: Some(position),
            orientation: Some(orientation),
            initial_orientation: None,
        });
        fixed.push((b.name.clone(), Fixed::Body { frame, x0: b.position, a0: initial_rotation(&b.orientation) }));
    }
    for beam in &d.beams {
        let positions = beam.node_positions();
        let mut nodes = Vec::new();
        for (i, x0) in positions.iter().enumerate() {
            let node = beam.node_name(i);
            let position = channel_names(prefix, &node, "position", ["x", "y", "z"]);
            let orientation = channel_names(prefix, &node, "orientation", ["e0", "e1", "e2", "e3"]);
            let missing: Vec<String> = position.iter().filter(|c| !run.has(c)).cloned().collect();
            if !missing.is_empty() {
                out.missing.push((format!("beam node '{}'", named(&node)), missing));
            }
            let q0 = orientation.iter().all(|c| run.has(c)).then(|| {
                let q = orientation.clone().map(|c| run.first(&c));
                let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                q.map(|x| x / n)
            });
            let q0 = q0.filter(|q| q.iter().all(|x| x.is_finite()));
            let frame = out.frames.len();
            out.frames.push(Frame {
                name: named(&node),
                kind: Some("node"),
                position: Some(position),
                orientation: q0.map(|_| orientation),
                initial_orientation: q0,
            });
            fixed.push((node.clone(), Fixed::Node { frame, x0: *x0, q0 }));
            // Attachments name a node also as <beam>.start and <beam>.end.
            if i == 0 {
                fixed.push((format!("{}.start", beam.name), Fixed::Node { frame, x0: *x0, q0 }));
            }
            if i + 1 == positions.len() {
                fixed.push((format!("{}.end", beam.name), Fixed::Node { frame, x0: *x0, q0 }));
            }
            nodes.push(frame);
        }
        out.beams.push(BeamOut { name: named(&beam.name), nodes, radius: bar * 0.8 });
    }
    let find = |name: &str| -> Fixed {
        if name == GROUND {
            return Fixed::Ground;
        }
        fixed.iter().find(|(n, _)| n == name).map_or(Fixed::Ground, |(_, f)| *f)
    };
    let end = |body: &str, p: V3| {
        let f = find(body);
        End { frame: f.frame(), point: f.local(p) }
    };

    // Points each body is attached at (global), for its default bars.
    let mut attached: Vec<Vec<V3>> = vec![Vec::new(); d.bodies.len()];
    let mut attach = |body: &str, p: Option<V3>| {
        if let (Some(i), Some(p)) = (d.body_index(body), p) {
            if p.iter().all(|x| x.is_finite()) && !attached[i].iter().any(|q| dot(sub(*q, p), sub(*q, p)) < 1e-18) {
                attached[i].push(p);
            }
        }
    };

    for j in &d.joints {
        if j.kind == JointKind::Distance {
            attach(&j.body1, j.point1);
            attach(&j.body2, j.point2);
            if let (Some(p1), Some(p2)) = (j.point1, j.point2) {
                out.links.push(LinkOut {
                    name: named(&j.name),
                    kind: "rod",
                    a: end(&j.body1, p1),
                    b: end(&j.body2, p2),
                    radius: bar * 0.5,
                    barrel: None,
                    pressures: None,
                });
            }
            continue;
        }
        attach(&j.body1, j.point);
        attach(&j.body2, j.point);
        let Some(point) = j.point else { continue };
        let on = find(&j.body1);
        let axis = j.axis.or(j.axis1).and_then(unit).map(|a| on.direction(a));
        out.joints.push(JointOut {
            name: named(&j.name),
            kind: joint_word(j.kind),
            frame: on.frame(),
            point: on.local(point),
            axis,
            size: bar * 2.5,
        });
    }
    for f in &d.forces {
        match f.place() {
            ForcePlace::Line { bodies, points } => {
                attach(bodies[0], Some(*points[0]));
                attach(bodies[1], Some(*points[1]));
                let kind = match f.line_symbol() {
                    LineSymbol::SpringDamper { spring: true, damper: true } => "spring_damper",
                    LineSymbol::SpringDamper { damper: true, .. } => "damper",
                    LineSymbol::SpringDamper { .. } => "spring",
                    LineSymbol::Actuator => "actuator",
                };
                out.links.push(LinkOut {
                    name: named(f.name()),
                    kind,
                    a: end(bodies[0], *points[0]),
                    b: end(bodies[1], *points[1]),
                    radius: bar * 0.6,
                    barrel: None,
                    pressures: None,
                });
            }
            ForcePlace::Point { body, point, .. } => attach(body, point.copied()),
            ForcePlace::JointRotation { .. } | ForcePlace::Torque { .. } => {}
        }
    }
    // Output points (a boom tip, a tool centre point) belong to the body's outline too.
    for (i, p) in d.output_points() {
        attach(&d.bodies[i].name, Some(p));
    }
    // A body attached to a beam node reaches to its node (its pose channels follow the node).
    for b in d.bodies.iter().filter(|b| b.attached_to.is_some()) {
        attach(&b.name, b.attached_to.as_deref().map(|n| d.node_position(n)));
    }
    if let Some(h) = &d.hydraulics {
        for c in &h.cylinders {
            let (Some(b1), Some(b2), Some(p1), Some(p2)) = (&c.body1, &c.body2, c.point1, c.point2) else {
                continue;
            };
            attach(b1, Some(p1));
            attach(b2, Some(p2));
            let length = dot(sub(p2, p1), sub(p2, p1)).sqrt();
            // The barrel is about as long as the closed cylinder (pin to pin at l_A = 0).
            let barrel = if length > 0.0 { (c.closed() / length).clamp(0.3, 0.85) } else { 0.5 };
            let pressure = |volume: &str| Some(named(&format!("{volume}.pressure"))).filter(|n| run.has(n));
            let pressures = [pressure(&c.piston_side), pressure(&c.rod_side)];
            out.links.push(LinkOut {
                name: named(&c.name),
                kind: "cylinder",
                a: end(b1, p1),
                b: end(b2, p2),
                radius: (c.piston_diameter / 2.0).clamp(bar * 1.2, bar * 4.0),
                barrel: Some(if barrel.is_finite() { barrel } else { 0.5 }),
                pressures: pressures.iter().any(Option::is_some).then_some(pressures),
            });
        }
        for v in &h.valves {
            if !matches!(v, Valve::Directional { .. }) {
                continue;
            }
            let channels: Vec<String> = ["spool", "reference"]
                .iter()
                .map(|q| named(&format!("{}.{q}", v.name())))
                .filter(|n| run.has(n))
                .collect();
            let reach = channels.iter().flat_map(|c| run.values(c)).fold(0.0f64, |m, x| m.max(x.abs()));
            let reach = if reach > 0.0 && reach.is_finite() { reach } else { 1.0 };
            for channel in channels {
                let label = channel.replace('.', " ");
                out.gauges.push(Gauge {
                    unit: run.unit(&channel).to_string(),
                    channel,
                    label,
                    min: -reach,
                    max: reach,
                });
            }
        }
    }

    for (i, b) in d.bodies.iter().enumerate() {
        let Fixed::Body { frame, .. } = fixed[i].1 else { unreachable!("bodies come first") };
        let on = fixed[i].1;
        let com = b.position;
        let mut shapes = Vec::new();
        let points = &attached[i];
        // Bars from the centre of mass to each attachment; a body hanging from one point
        // reaches as far beyond its centre of mass (a pendulum bar).
        for p in points {
            shapes.push(ShapeOut::Bar { a: on.local(com), b: on.local(*p), radius: bar });
        }
        if let [p] = points.as_slice() {
            let beyond = std::array::from_fn(|k| 2.0 * com[k] - p[k]);
            shapes.push(ShapeOut::Bar { a: on.local(com), b: on.local(beyond), radius: bar });
        }
        match &b.shape {
            Some(Shape::Box { size }) => shapes.push(ShapeOut::Box { center: [0.0; 3], size: *size }),
            Some(Shape::Sphere { radius }) => shapes.push(ShapeOut::Sphere { center: [0.0; 3], radius: *radius }),
            Some(Shape::Cylinder { radius, length, axis }) => {
                let u = unit(on.direction(*axis)).unwrap_or([0.0, 0.0, 1.0]).map(|x| x * length / 2.0);
                shapes.push(ShapeOut::Cylinder { a: u.map(|x| -x), b: u, radius: *radius });
            }
            None => {
                let radius = if points.is_empty() { bar * 4.0 } else { bar * 1.8 };
                shapes.push(ShapeOut::Sphere { center: [0.0; 3], radius });
            }
        }
        out.bodies.push(BodyOut { name: named(&b.name), frame, shapes });
    }
}

/// The rotation matrix (rows) of an initial orientation: body to global.
fn initial_rotation(o: &Orientation) -> [[f64; 3]; 3] {
    match *o {
        Orientation::Matrix(m) => m,
        Orientation::AxisAngle { axis, angle } => {
            let r = nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(axis.into()), angle);
            std::array::from_fn(|i| std::array::from_fn(|j| r[(i, j)]))
        }
    }
}

fn joint_word(kind: JointKind) -> &'static str {
    match kind {
        JointKind::Revolute => "revolute",
        JointKind::Spherical => "spherical",
        JointKind::Translational => "translational",
        JointKind::Cylindrical => "cylindrical",
        JointKind::Universal => "universal",
        JointKind::Fixed => "fixed",
        JointKind::Distance => "distance",
    }
}
