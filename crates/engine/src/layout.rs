//! The mechanism as the description lays it out, compiled once for every formulation: its
//! parts (bodies, then the structural nodes of the beams) with their initial poses,
//! velocities and inertias, its joints with their bodies, point and axis, and its force
//! elements ([`crate::elements`]). Each formulation maps the layout onto its own coordinates:
//! the index-3 formulation onto absolute coordinates and constraints ([`crate::index3`]), the
//! semirecursive ones onto a tree of joint coordinates and cut joints
//! ([`crate::semirecursive`]).

use crate::elements::{self, Element, Frames};
use crate::rotation::{exp, orthonormalize};
use mbfmu_model::format::{AngularVelocity, Beam, Description, Orientation, GROUND};
use nalgebra::{Matrix3, Vector3};

/// A rigid body or a structural node of a beam.
#[derive(Clone, Debug)]
pub struct Part {
    pub name: String,
    pub mass: f64,
    /// Inertia about the frame's origin, in the part's frame: about the centre of mass unless
    /// bodies are attached to a structural node (then `static_moment` is not zero).
    pub inertia: Matrix3<f64>,
    /// The static moment m c of the bodies attached to a structural node: the centre of
    /// mass lies at c from the frame's origin (part frame; zero for every other part).
    pub static_moment: Vector3<f64>,
    /// Initial position of the frame's origin (the centre of mass, or the structural node)
    /// and orientation (frame -> global).
    pub position: Vector3<f64>,
    pub rot: Matrix3<f64>,
    pub velocity: Vector3<f64>,
    /// The initial angular velocity, global and in the part's frame (the one the description
    /// gives is kept exactly, the other converted).
    pub omega_global: Vector3<f64>,
    pub omega_body: Vector3<f64>,
}

/// Where a description body is in the compiled parts: its own part, or the structural node it
/// is attached to, with its centre of mass and axes in the node's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyRef {
    pub part: usize,
    /// The centre of mass in the part's frame (zero for a body that is its own part).
    pub com: Vector3<f64>,
    /// The body's axes in the part's frame (None: the part's own).
    pub rotation: Option<Matrix3<f64>>,
}

/// The geometry of a joint: its bodies resolved, its point and axis defaulted (its kind,
/// coordinate and friction are the description's).
#[derive(Clone, Debug)]
pub struct JointLayout {
    /// body1 and body2 (part indices; None: ground).
    pub bodies: [Option<usize>; 2],
    /// The joint point, global at the initial configuration (the origin if none is given).
    pub point: Vector3<f64>,
    /// The joint axis, a global unit vector (default: the plane's normal, else z).
    pub axis: Vector3<f64>,
}

/// Parts, joints and force elements of a description.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The description's bodies, then each beam's nodes, beam by beam.
    pub parts: Vec<Part>,
    /// The index of the first structural node.
    pub first_node: usize,
    pub joints: Vec<JointLayout>,
    pub elements: Vec<Element>,
    /// The unit normal of a planar mechanism.
    pub plane: Option<Vector3<f64>>,
    pub gravity: Vector3<f64>,
}

pub(crate) fn v3(a: &[f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// The frame of a beam node: e1 along the tangent, e2 the section's axis 2 made orthogonal.
pub fn node_frame(tangent: &Vector3<f64>, axis2: &Vector3<f64>) -> Matrix3<f64> {
    let e1 = tangent.normalize();
    let e2 = (axis2 - e1 * e1.dot(axis2)).normalize();
    Matrix3::from_columns(&[e1, e2, e1.cross(&e2)])
}

/// Default section axis 2 for a beam along `direction`: global y, or z for a beam along y.
pub fn default_axis2(direction: &Vector3<f64>) -> Vector3<f64> {
    let d = direction.normalize();
    if d.y.abs() < 0.9 {
        Vector3::y()
    } else {
        Vector3::z()
    }
}

/// Initial node poses (at rest) and lumped inertias of one beam: each element gives half its
/// mass m L and section inertia J L to each end node, plus the rotary inertia of that half
/// about the node, m (L/2)^3 / 3 about the section axes (the lumping of the benchmark inputs
/// of \[Bauchau2016\] as built by \[MBDyn\], with the half-element's inertia taken about the
/// node). With consistent mass the index-3 beam elements add m L / 6 [-I I; I -I] to these
/// translational masses.
fn nodes(beam: &Beam) -> Vec<Part> {
    let points: Vec<Vector3<f64>> = beam.node_positions().iter().map(v3).collect();
    let n = points.len() - 1;
    let axis2 = beam.axis2.as_ref().map(v3);
    let s = &beam.section;
    let mut mass = vec![0.0; n + 1];
    let mut inertia = vec![Matrix3::zeros(); n + 1];
    for e in 0..n {
        let half = 0.5 * (points[e + 1] - points[e]).norm();
        let m = s.mass_per_length * half;
        let rotary = m * half * half / 3.0;
        let j = Matrix3::from_diagonal(&Vector3::new(
            s.inertia_per_length[0] * half,
            s.inertia_per_length[1] * half + rotary,
            s.inertia_per_length[2] * half + rotary,
        ));
        for k in [e, e + 1] {
            mass[k] += m;
            inertia[k] += j;
        }
    }
    (0..=n)
        .map(|i| {
            let tangent = points[(i + 1).min(n)] - points[i.saturating_sub(1)];
            let a2 = axis2.unwrap_or_else(|| default_axis2(&tangent));
            Part {
                name: beam.node_name(i),
                mass: mass[i],
                inertia: inertia[i],
                static_moment: Vector3::zeros(),
                position: points[i],
                rot: node_frame(&tangent, &a2),
                velocity: Vector3::zeros(),
                omega_global: Vector3::zeros(),
                omega_body: Vector3::zeros(),
            }
        })
        .collect()
}

/// Adds a rigid body's inertia to a structural node's, as MBDyn's body element on a
/// structural node ([MBDynInput, "Body"]): with c the body's centre of mass from the node and
/// R the body's axes in the node's frame, mass m, static moment m c and inertia about the node
/// R J_c R^T - m c~ c~ = R J_c R^T + m (c^T c I - c c^T) ([NewtonEuler, "Any reference
/// frame"]: I_cm - m c~ c~).
fn attach(node: &mut Part, body: &Part) {
    let c = node.rot.transpose() * (body.position - node.position);
    let rel = node.rot.transpose() * body.rot;
    node.mass += body.mass;
    node.static_moment += c * body.mass;
    node.inertia +=
        rel * body.inertia * rel.transpose() + (Matrix3::identity() * c.dot(&c) - c * c.transpose()) * body.mass;
}

impl Layout {
    /// The layout of a validated description.
    pub fn of(d: &Description) -> Layout {
        let mut parts: Vec<Part> = d
            .bodies
            .iter()
            .map(|b| {
                let rot = match &b.orientation {
                    Orientation::Matrix(m) => orthonormalize(&Matrix3::from_fn(|r, c| m[r][c])),
                    Orientation::AxisAngle { axis, angle } => exp(&(v3(axis).normalize() * *angle)),
                };
                let (omega_global, omega_body) = match &b.angular_velocity {
                    AngularVelocity::Global(w) => (v3(w), rot.transpose() * v3(w)),
                    AngularVelocity::Body { body } => (rot * v3(body), v3(body)),
                };
                Part {
                    name: b.name.clone(),
                    mass: b.mass,
                    inertia: Matrix3::from_fn(|r, c| b.inertia.matrix()[r][c]),
                    static_moment: Vector3::zeros(),
                    position: v3(&b.position),
                    rot,
                    velocity: v3(&b.velocity),
                    omega_global,
                    omega_body,
                }
            })
            .collect();
        // Bodies attached to beam nodes have no part of their own: their inertia joins the node's.
        let attached: Vec<(Part, usize)> = d
            .bodies
            .iter()
            .zip(d.body_parts())
            .zip(std::mem::take(&mut parts))
            .filter_map(|((b, at), p)| match b.attached_to {
                Some(_) => Some((p, at)),
                None => {
                    parts.push(p);
                    None
                }
            })
            .collect();
        let first_node = parts.len();
        for beam in &d.beams {
            parts.extend(nodes(beam));
        }
        for (body, node) in attached {
            attach(&mut parts[node], &body);
        }
        let plane = d.plane.as_ref().map(|p| v3(&p.normal).normalize());
        let default_axis = plane.unwrap_or(Vector3::z());
        let part = |name: &str| (name != GROUND).then(|| d.body_or_node_index(name).expect("validated body or node"));
        let joints = d
            .joints
            .iter()
            .map(|j| JointLayout {
                bodies: [part(&j.body1), part(&j.body2)],
                point: j.point.map(|p| v3(&p)).unwrap_or_else(Vector3::zeros),
                axis: j.axis.map(|a| v3(&a).normalize()).unwrap_or(default_axis),
            })
            .collect();
        let mut layout = Layout { parts, first_node, joints, elements: Vec::new(), plane, gravity: v3(&d.gravity) };
        layout.elements = elements::compile(d, &layout);
        layout
    }

    /// Frame coordinates of a global point at the initial configuration (the point itself
    /// for ground).
    pub fn local_point(&self, part: Option<usize>, p: &Vector3<f64>) -> Vector3<f64> {
        match part {
            Some(i) => self.parts[i].rot.transpose() * (p - self.parts[i].position),
            None => *p,
        }
    }

    /// The description's output points ([`Description::output_points`]): the body and the
    /// point in its frame, from its centre of mass.
    pub fn output_points(&self, d: &Description) -> Vec<(usize, Vector3<f64>)> {
        let parts = d.body_parts();
        d.output_points().iter().map(|&(b, p)| (parts[b], self.local_point(Some(parts[b]), &v3(&p)))).collect()
    }

    /// Per description body: its part, its centre of mass in the part's frame and its axes
    /// relative to the part's (zero and None for a body that is its own part).
    pub fn body_refs(&self, d: &Description) -> Vec<BodyRef> {
        d.bodies
            .iter()
            .zip(d.body_parts())
            .map(|(b, part)| match b.attached_to {
                None => BodyRef { part, com: Vector3::zeros(), rotation: None },
                Some(_) => {
                    let p = &self.parts[part];
                    let rot = match &b.orientation {
                        Orientation::Matrix(m) => orthonormalize(&Matrix3::from_fn(|r, c| m[r][c])),
                        Orientation::AxisAngle { axis, angle } => exp(&(v3(axis).normalize() * *angle)),
                    };
                    BodyRef {
                        part,
                        com: p.rot.transpose() * (v3(&b.position) - p.position),
                        rotation: Some(p.rot.transpose() * rot),
                    }
                }
            })
            .collect()
    }

    /// Frame components of a global direction (as given: not normalized).
    pub fn local_dir(&self, part: Option<usize>, a: &Vector3<f64>) -> Vector3<f64> {
        match part {
            Some(i) => self.parts[i].rot.transpose() * a,
            None => *a,
        }
    }
}

impl Frames for Layout {
    fn local_point(&self, body: Option<usize>, global: &Vector3<f64>) -> Vector3<f64> {
        Layout::local_point(self, body, global)
    }

    fn centre(&self, body: usize) -> Vector3<f64> {
        self.parts[body].position
    }
}
