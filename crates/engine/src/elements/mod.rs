//! Force elements as units, compiled once from the description for every formulation.
//!
//! An element is a geometry (where it acts: a line between two body points, a joint's
//! rotation, a body point along a direction, a body about an axis) and a scalar [`Law`]
//! along the geometry's measure (the force as a function of the measure, its rate and the
//! element's input, with its tangent, stored energy, dissipated work and rates). Each
//! formulation evaluates the geometry in its own coordinates and turns the law's generalized
//! force into its loads; a law is written once, in its own file, and registered in
//! [`compile`].

mod end_stop;
mod law;
mod spring_damper;

pub use end_stop::EndStop;
pub use law::Law;
pub use spring_damper::{Applied, SpringDamper};

use mbfmu_model::format::{Description, Force, GROUND};
use nalgebra::Vector3;
use std::sync::Arc;

/// A point fixed on a body (None: ground), in the body's frame (global for ground).
pub type BodyPoint = (Option<usize>, Vector3<f64>);

/// Where an element acts, with bodies numbered by the formulation that holds it.
#[derive(Clone, Debug)]
pub enum Geometry {
    /// The distance between two points.
    Line { ends: [BodyPoint; 2] },
    /// The rotation coordinate of a joint (description numbering of joints).
    JointRotation { joint: usize },
    /// The position of a body point along a fixed global unit direction.
    Point { at: BodyPoint, direction: Vector3<f64> },
    /// The rotation of a body about a fixed global unit axis.
    Torque { body: usize, axis: Vector3<f64> },
}

/// A compiled force element.
#[derive(Clone, Debug)]
pub struct Element {
    pub name: String,
    pub geometry: Geometry,
    pub law: Arc<dyn Law>,
    /// The FMU input added to the law's value, if any.
    pub input: Option<usize>,
}

impl Element {
    /// The same element with its bodies renumbered by `map` (a formulation's own numbering).
    pub fn map_bodies(&self, map: impl Fn(Option<usize>) -> Option<usize>) -> Element {
        let point = |(b, p): &BodyPoint| (map(*b), *p);
        let geometry = match &self.geometry {
            Geometry::Line { ends } => Geometry::Line { ends: [point(&ends[0]), point(&ends[1])] },
            Geometry::JointRotation { joint } => Geometry::JointRotation { joint: *joint },
            Geometry::Point { at, direction } => Geometry::Point { at: point(at), direction: *direction },
            Geometry::Torque { body, axis } => {
                Geometry::Torque { body: map(Some(*body)).expect("a body maps to a body"), axis: *axis }
            }
        };
        Element { name: self.name.clone(), geometry, law: self.law.clone(), input: self.input }
    }

    /// The generalized force conjugate to the measure at `x`, `rate` and input `u`.
    pub fn generalized_force(&self, x: f64, rate: f64, u: f64) -> f64 {
        self.law.generalized_force(x, rate, u)
    }
}

/// The frames of the description's bodies and beam nodes (numbered as the description does:
/// bodies, then nodes): the frame coordinates of a global point at the initial configuration
/// and the initial centre of mass of a body.
pub trait Frames {
    fn local_point(&self, body: Option<usize>, global: &Vector3<f64>) -> Vector3<f64>;
    fn centre(&self, body: usize) -> Vector3<f64>;
}

fn v3(a: &[f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// The elements of a validated description.
pub fn compile(d: &Description, frames: &impl Frames) -> Vec<Element> {
    let part = |name: &str| d.body_or_node_index(name).expect("validated body or node reference");
    let body = |name: &str| (name != GROUND).then(|| part(name));
    let line = |names: [&String; 2], points: [&[f64; 3]; 2]| {
        let ends = [0, 1].map(|k| {
            let b = body(names[k]);
            (b, frames.local_point(b, &v3(points[k])))
        });
        Geometry::Line { ends }
    };
    let length = |p1: &[f64; 3], p2: &[f64; 3]| (v3(p2) - v3(p1)).norm();
    let joint = |name: &str| d.joint_index(name).expect("validated joint reference");
    d.forces
        .iter()
        .map(|f| {
            let (geometry, law): (Geometry, Arc<dyn Law>) = match f {
                Force::Tsda { body1, body2, point1, point2, stiffness, damping, rest_length, actuator, .. } => (
                    line([body1, body2], [point1, point2]),
                    Arc::new(SpringDamper {
                        stiffness: *stiffness,
                        damping: *damping,
                        rest: rest_length.unwrap_or_else(|| length(point1, point2)),
                        value: *actuator,
                        sense: -1.0,
                    }),
                ),
                Force::Actuator { body1, body2, point1, point2, value, .. } => (
                    line([body1, body2], [point1, point2]),
                    Arc::new(SpringDamper {
                        stiffness: 0.0,
                        damping: 0.0,
                        rest: length(point1, point2),
                        value: *value,
                        sense: 1.0,
                    }),
                ),
                Force::Rsda { joint: name, stiffness, damping, rest_angle, actuator, .. } => {
                    let j = joint(name);
                    (
                        Geometry::JointRotation { joint: j },
                        Arc::new(SpringDamper {
                            stiffness: *stiffness,
                            damping: *damping,
                            rest: rest_angle.unwrap_or(d.joints[j].initial_coordinate),
                            value: *actuator,
                            sense: 1.0,
                        }),
                    )
                }
                Force::Load { body: name, direction, point, value, .. } => {
                    let b = part(name);
                    // A body attached to a beam node is loaded at its own centre of mass.
                    let centre = || match d.body_index(name).filter(|&i| d.bodies[i].attached_to.is_some()) {
                        Some(i) => v3(&d.bodies[i].position),
                        None => frames.centre(b),
                    };
                    let p = point.map(|p| v3(&p)).unwrap_or_else(centre);
                    (
                        Geometry::Point {
                            at: (Some(b), frames.local_point(Some(b), &p)),
                            direction: v3(direction).normalize(),
                        },
                        Arc::new(Applied { value: *value }),
                    )
                }
                Force::Torque { body: name, axis, value, .. } => (
                    Geometry::Torque { body: part(name), axis: v3(axis).normalize() },
                    Arc::new(Applied { value: *value }),
                ),
                Force::EndStop { body1, body2, point1, point2, min_length, max_length, stiffness, damping, .. } => (
                    line([body1, body2], [point1, point2]),
                    Arc::new(EndStop {
                        min_length: min_length.unwrap_or(f64::NEG_INFINITY),
                        max_length: max_length.unwrap_or(f64::INFINITY),
                        stiffness: *stiffness,
                        damping: *damping,
                    }),
                ),
            };
            let input = f.input().map(|name| d.input_index(name).expect("validated input reference"));
            Element { name: f.name().to_string(), geometry, law, input }
        })
        .collect()
}
