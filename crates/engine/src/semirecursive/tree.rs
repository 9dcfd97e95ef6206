//! Compiles a description into an open tree in relative joint coordinates plus cut joints
//! ([Jaiswal2021, Sect. 2]: "the cut-joint method is used to open the loop"). The spanning tree
//! starts at ground and follows revolute and translational joints not marked `cut`; every
//! other joint closes a loop and becomes constraint equations Phi(z) = 0.

use super::cuts::{Cut, CutKind};
use super::spherical;
use crate::hydraulics::{Attachment, Circuit};
use crate::layout::{JointLayout, Layout};
use mbfmu_model::format::{Description, JointKind};
use nalgebra::{Matrix3, Vector3};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct CompileError(pub String);

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "semirecursive formulation: {}", self.0)
    }
}

impl std::error::Error for CompileError {}

/// A body of the tree with the joint that connects it to its parent (its coordinate z_j).
#[derive(Clone, Debug)]
pub struct TreeBody {
    pub name: String,
    pub mass: f64,
    /// Inertia about the centre of mass, body frame (J_bar of [Jaiswal2021, Sect. 2.1]).
    pub inertia: Matrix3<f64>,
    /// Parent body (tree index), None for ground.
    pub parent: Option<usize>,
    pub joint: usize,
    pub prismatic: bool,
    /// +1 if the parent is the joint's body1, -1 if it is body2 (the coordinate is always
    /// measured for body2 relative to body1, as in the index-3 formulation).
    pub sign: f64,
    /// Joint axis and point in the parent frame (global for ground), point in the child frame.
    pub axis_parent: Vector3<f64>,
    pub point_parent: Vector3<f64>,
    pub point_child: Vector3<f64>,
    /// A_parent0^T A_child0: the child's orientation relative to the parent at z = z0.
    pub relative0: Matrix3<f64>,
    /// a~ relative0, a a^T relative0 and (I - a a^T) relative0 for the parent-frame axis a:
    /// the relative rotation of a revolute joint is exp(q a~) relative0 = a a^T relative0 +
    /// cos q (I - a a^T) relative0 + sin q a~ relative0 (Rodrigues), a combination of
    /// constants.
    pub relative_skew: Matrix3<f64>,
    pub relative_axial: Matrix3<f64>,
    pub relative_planar: Matrix3<f64>,
    /// Coordinate value at the initial configuration (the joint's `initial_coordinate`).
    pub z0: f64,
    /// The joint in the x-y plane, if it moves the body there (see [`Tree::planar`]).
    pub planar: Option<PlanarJoint>,
    /// Tree bodies on the path from the root to this body, this one included.
    pub path: Vec<usize>,
    /// Which of the three rotations of a spherical tree joint this coordinate is (0, 1, 2:
    /// [`super::spherical`]); None for a revolute or translational joint.
    pub spherical: Option<u8>,
}

/// A joint whose relative motion stays in the global x-y plane: the relative rotation is
/// about e_z by `angle0 + turn q` (revolute, `turn` = +-1 the axis' z component; prismatic,
/// `turn` = 0), and a prismatic axis lies in the plane.
#[derive(Clone, Copy, Debug)]
pub struct PlanarJoint {
    pub angle0: f64,
    pub turn: f64,
    /// (sin, cos) of `angle0`.
    pub sin_cos0: (f64, f64),
}

impl PlanarJoint {
    /// The joint's planar form, if `relative0` is a rotation about e_z and the axis is
    /// along e_z (revolute) or in the x-y plane (prismatic), to round-off.
    fn of(relative0: &Matrix3<f64>, axis_parent: &Vector3<f64>, prismatic: bool) -> Option<PlanarJoint> {
        const EPS: f64 = 1e-12;
        let r = relative0;
        let about_z =
            (r[(2, 2)] - 1.0).abs() < EPS && [r[(0, 2)], r[(1, 2)], r[(2, 0)], r[(2, 1)]].iter().all(|x| x.abs() < EPS);
        let axis_ok =
            if prismatic { axis_parent.z.abs() < EPS } else { axis_parent.x.abs() < EPS && axis_parent.y.abs() < EPS };
        (about_z && axis_ok).then(|| {
            let angle0 = r[(1, 0)].atan2(r[(0, 0)]);
            let turn = if prismatic { 0.0 } else { axis_parent.z.signum() };
            PlanarJoint { angle0, turn, sin_cos0: angle0.sin_cos() }
        })
    }
}

/// A point on a tree body (None: ground), in body coordinates (global for ground).
pub type BodyPoint = (Option<usize>, Vector3<f64>);

/// Force elements, on tree bodies.
pub type Element = crate::elements::Element;

/// How a description joint appears in the tree.
#[derive(Clone, Debug, PartialEq)]
pub enum JointRole {
    /// The coordinate of tree body `body`.
    Tree { body: usize },
    /// Cut joint `cut` (index into [`Tree::cut_joints`]).
    Cut { cut: usize },
}

/// A cut joint: its constraint rows and the measures of its coordinate.
#[derive(Clone, Debug)]
pub struct CutJoint {
    pub name: String,
    pub label: String,
    pub rows: std::ops::Range<usize>,
    pub pair: [Option<usize>; 2],
    /// Joint points in the two body frames, axis in body1's frame.
    pub points: [Vector3<f64>; 2],
    pub axis1: Vector3<f64>,
    /// For the rotation measure: a direction fixed in body1 and the matching one of body2.
    pub reference: [Vector3<f64>; 2],
    pub rotates: bool,
    pub slides: bool,
    pub z0: f64,
}

/// A mechanism in relative joint coordinates, with its hydraulic circuit.
#[derive(Clone, Debug)]
pub struct Tree {
    pub name: String,
    pub bodies: Vec<TreeBody>,
    /// Tree index of every description body.
    pub tree_index: Vec<usize>,
    pub cuts: Vec<Cut>,
    pub cut_joints: Vec<CutJoint>,
    pub roles: Vec<JointRole>,
    pub elements: Vec<Element>,
    pub gravity: Vector3<f64>,
    pub circuit: Option<Circuit>,
    /// Attachment points of the cylinders attached to the mechanism (None: driven by inputs).
    pub cylinder_ends: Vec<Option<[BodyPoint; 2]>>,
    /// Initial poses (centre of mass, orientation), velocities and angular velocities
    /// (global) of the tree bodies as the description gives them.
    pub initial_pose: Vec<(Vector3<f64>, Matrix3<f64>)>,
    pub initial_velocity: Vec<(Vector3<f64>, Vector3<f64>)>,
    pub plane: Option<Vector3<f64>>,
    /// Every body moves in the global x-y plane (every joint has a [`PlanarJoint`] form):
    /// the kinematics and dynamics kernels then work with the in-plane components only
    /// (`planar.rs`).
    pub planar: bool,
    /// The coordinates a cut row depends on (on the paths of its two end bodies), ascending:
    /// the structural nonzeros of its row of Phi_z.
    pub row_columns: Vec<Vec<usize>>,
    /// The bodies coordinate j moves (j's subtree, j included), for every j.
    pub subtree: Vec<Vec<usize>>,
    /// The outputs' body-fixed points: the description's body and the point in its frame
    /// from its centre of mass ([`Layout::output_points`]).
    pub points: Vec<(usize, Vector3<f64>)>,
}

fn v3(a: &[f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// A unit vector perpendicular to the unit vector `a`.
pub fn perpendicular(a: &Vector3<f64>) -> Vector3<f64> {
    let k = (0..3).min_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs())).expect("three components");
    a.cross(&Vector3::ith(k, 1.0)).normalize()
}

impl Tree {
    pub fn n_coordinates(&self) -> usize {
        self.bodies.len()
    }

    pub fn n_constraints(&self) -> usize {
        self.cuts.len()
    }

    /// Compiles a validated description.
    pub fn from_description(d: &Description) -> Result<Tree, CompileError> {
        if !d.drivers.is_empty() {
            return Err(CompileError(format!(
                "driver '{}': prescribed motions are not supported (drive the mechanism with forces or a hydraulic circuit)",
                d.drivers[0].name
            )));
        }
        if let Some(beam) = d.beams.first() {
            return Err(CompileError(format!(
                "beam '{}': beams need nodal coordinates, which the relative coordinates of this formulation do not have (use the index3 formulation)",
                beam.name
            )));
        }
        let nb = d.bodies.len();
        let layout = Layout::of(d);
        let pose: Vec<(Vector3<f64>, Matrix3<f64>)> = layout.parts.iter().map(|p| (p.position, p.rot)).collect();
        let velocity: Vec<(Vector3<f64>, Vector3<f64>)> =
            layout.parts.iter().map(|p| (p.velocity, p.omega_global)).collect();
        let plane = layout.plane;

        // Spanning tree from ground (breadth first); description body -> tree position.
        let mut order: Vec<usize> = Vec::new();
        let mut via: Vec<Option<usize>> = vec![None; nb];
        let mut placed = vec![false; nb];
        let mut tree_joint = vec![false; d.joints.len()];
        let mut frontier: Vec<Option<usize>> = vec![None];
        let mut spherical_via = vec![false; nb];
        loop {
            while let Some(current) = frontier.pop() {
                for (ji, j) in d.joints.iter().enumerate() {
                    if j.cut || tree_joint[ji] || !matches!(j.kind, JointKind::Revolute | JointKind::Translational) {
                        continue;
                    }
                    let [b1, b2] = layout.joints[ji].bodies;
                    let other = if b1 == current {
                        b2
                    } else if b2 == current {
                        b1
                    } else {
                        continue;
                    };
                    let Some(o) = other else { continue };
                    if placed[o] {
                        continue;
                    }
                    placed[o] = true;
                    via[o] = Some(ji);
                    tree_joint[ji] = true;
                    order.push(o);
                    frontier.insert(0, Some(o));
                }
            }
            // Revolute and translational joints first (the tree of the models without spherical
            // tree joints is unchanged); then a spherical joint that reaches a new body, in a
            // spatial mechanism, and again the revolute and translational joints from there.
            match spherical::next_tree_joint(d, &layout, &placed, &tree_joint) {
                Some((ji, o)) if plane.is_none() => {
                    placed[o] = true;
                    via[o] = Some(ji);
                    tree_joint[ji] = true;
                    spherical_via[o] = true;
                    order.push(o);
                    frontier.push(Some(o));
                }
                _ => break,
            }
        }
        if let Some(b) = (0..nb).find(|&b| !placed[b]) {
            return Err(spherical::unreached(d, &layout, b, plane.is_some()));
        }
        let mut tree_index = vec![0; nb];
        let mut count = 0;
        for &b in &order {
            count += if spherical_via[b] { 3 } else { 1 };
            tree_index[b] = count - 1;
        }
        let tbody = |b: Option<usize>| b.map(|b| tree_index[b]);
        let local_point = |b: Option<usize>, p: &Vector3<f64>| layout.local_point(b, p);
        let local_dir = |b: Option<usize>, a: &Vector3<f64>| layout.local_dir(b, a);

        let mut bodies: Vec<TreeBody> = Vec::with_capacity(count);
        let mut roles = vec![JointRole::Tree { body: 0 }; d.joints.len()];
        let mut initial_pose = Vec::with_capacity(count);
        let mut initial_velocity = Vec::with_capacity(count);
        for &b in &order {
            let ji = via[b].expect("placed bodies have a joint");
            let j = &d.joints[ji];
            if j.friction.is_some() {
                return Err(CompileError(format!("joint '{}': joint friction is not supported", j.name)));
            }
            let t = tree_index[b];
            if spherical_via[b] {
                let parent = if layout.joints[ji].bodies[1] == Some(b) {
                    layout.joints[ji].bodies[0]
                } else {
                    layout.joints[ji].bodies[1]
                };
                let joint = spherical::Joint {
                    joint: ji,
                    parent: tbody(parent),
                    point: layout.joints[ji].point,
                    parent_pose: parent.map_or((Vector3::zeros(), Matrix3::identity()), |q| pose[q]),
                    parent_omega: parent.map_or(Vector3::zeros(), |q| velocity[q].1),
                    child_pose: pose[b],
                    child_velocity: velocity[b],
                };
                let src = &d.bodies[b];
                let inertia = Matrix3::from_fn(|r, c| src.inertia.matrix()[r][c]);
                for (body, p, v) in joint.bodies(&src.name, src.mass, inertia, &layout.gravity, &bodies, t - 2) {
                    bodies.push(body);
                    initial_pose.push(p);
                    initial_velocity.push(v);
                }
                roles[ji] = JointRole::Tree { body: t };
                continue;
            }
            initial_pose.push(pose[b]);
            initial_velocity.push(velocity[b]);
            let JointLayout { bodies: [b1, b2], point: p, axis, .. } = layout.joints[ji];
            let (parent, sign) = if b2 == Some(b) { (b1, 1.0) } else { (b2, -1.0) };
            let parent_rot = parent.map_or(Matrix3::identity(), |q| pose[q].1);
            let parent_t = tbody(parent);
            let mut path = parent_t.map_or(Vec::new(), |q| bodies[q].path.clone());
            path.push(t);
            let src = &d.bodies[b];
            let (axis_parent, relative0) = (local_dir(parent, &axis), parent_rot.transpose() * pose[b].1);
            bodies.push(TreeBody {
                name: src.name.clone(),
                mass: src.mass,
                inertia: Matrix3::from_fn(|r, c| src.inertia.matrix()[r][c]),
                parent: parent_t,
                joint: ji,
                prismatic: j.kind == JointKind::Translational,
                sign,
                axis_parent,
                point_parent: local_point(parent, &p),
                point_child: local_point(Some(b), &p),
                relative0,
                relative_skew: crate::rotation::skew(&axis_parent) * relative0,
                relative_axial: axis_parent * axis_parent.transpose() * relative0,
                relative_planar: (Matrix3::identity() - axis_parent * axis_parent.transpose()) * relative0,
                z0: j.initial_coordinate,
                planar: PlanarJoint::of(&relative0, &axis_parent, j.kind == JointKind::Translational),
                path,
                spherical: None,
            });
            roles[ji] = JointRole::Tree { body: t };
        }

        // Cut joints.
        let mut cuts = Vec::new();
        let mut cut_joints = Vec::new();
        for (ji, j) in d.joints.iter().enumerate() {
            if tree_joint[ji] {
                continue;
            }
            let label = format!("cut joint '{}' ({})", j.name, format!("{:?}", j.kind).to_lowercase());
            if j.friction.is_some() {
                return Err(CompileError(format!("joint '{}': joint friction is not supported", j.name)));
            }
            let JointLayout { bodies: [b1, b2], point: p, axis, .. } = layout.joints[ji];
            let pair = [tbody(b1), tbody(b2)];
            let first = cuts.len();
            let mut points = [local_point(b1, &p), local_point(b2, &p)];
            let reference_dir = perpendicular(&axis);
            let reference = [local_dir(b1, &reference_dir), local_dir(b2, &reference_dir)];
            let ends = |pts: [Vector3<f64>; 2]| [(pair[0], pts[0]), (pair[1], pts[1])];
            match (j.kind, plane) {
                (JointKind::Revolute, Some(n)) => {
                    // In-plane point coincidence (2 rows).
                    let e1 = perpendicular(&n);
                    for e in [e1, n.cross(&e1)] {
                        cuts.push(Cut { kind: CutKind::Coincide { direction: e }, ends: ends(points), label: label.clone() });
                    }
                }
                (JointKind::Translational, Some(n)) => {
                    // No relative rotation about n, no offset across the axis in the plane.
                    cuts.push(Cut {
                        kind: CutKind::Rotation { normal: n, reference },
                        ends: ends(points),
                        label: label.clone(),
                    });
                    let across = local_dir(b1, &n.cross(&axis));
                    cuts.push(Cut { kind: CutKind::Slide { across }, ends: ends(points), label: label.clone() });
                }
                (JointKind::Spherical, None) => {
                    for k in 0..3 {
                        cuts.push(Cut {
                            kind: CutKind::Coincide { direction: Vector3::ith(k, 1.0) },
                            ends: ends(points),
                            label: label.clone(),
                        });
                    }
                }
                (JointKind::Distance, _) => {
                    let (p1, p2) = (v3(&j.point1.expect("validated")), v3(&j.point2.expect("validated")));
                    let length = j.length.unwrap_or_else(|| (p2 - p1).norm());
                    points = [local_point(b1, &p1), local_point(b2, &p2)];
                    cuts.push(Cut { kind: CutKind::Distance { length }, ends: ends(points), label: label.clone() });
                }
                (kind, plane) => {
                    return Err(CompileError(format!(
                        "{label}: a {} cut joint is not supported{} (planar: revolute, translational, distance; spatial: spherical, distance)",
                        format!("{kind:?}").to_lowercase(),
                        if plane.is_some() { " in a planar mechanism" } else { " in a spatial mechanism" }
                    )))
                }
            }
            roles[ji] = JointRole::Cut { cut: cut_joints.len() };
            cut_joints.push(CutJoint {
                name: j.name.clone(),
                label,
                rows: first..cuts.len(),
                pair,
                points,
                axis1: local_dir(b1, &axis),
                reference,
                rotates: matches!(j.kind, JointKind::Revolute | JointKind::Cylindrical),
                slides: matches!(j.kind, JointKind::Translational | JointKind::Cylindrical),
                z0: j.initial_coordinate,
            });
        }

        let elements = layout.elements.iter().map(|e| e.map_bodies(tbody)).collect();

        let circuit = Circuit::from_description(d);
        let cylinder_ends = circuit
            .as_ref()
            .map(|c| {
                c.cylinders
                    .iter()
                    .map(|cyl| match &cyl.attachment {
                        Attachment::Mechanism { bodies: bs, points } => Some([
                            (tbody(bs[0]), local_point(bs[0], &points[0])),
                            (tbody(bs[1]), local_point(bs[1], &points[1])),
                        ]),
                        Attachment::Inputs { .. } => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let row_columns = cuts
            .iter()
            .map(|c| {
                let mut columns: Vec<usize> =
                    c.ends.iter().filter_map(|e| e.0).flat_map(|k| bodies[k].path.iter().copied()).collect();
                columns.sort_unstable();
                columns.dedup();
                columns
            })
            .collect();
        let mut subtree = vec![Vec::new(); count];
        for (k, b) in bodies.iter().enumerate() {
            for &j in &b.path {
                subtree[j].push(k);
            }
        }
        let planar = bodies.iter().all(|b| b.planar.is_some());
        Ok(Tree {
            name: d.name.clone(),
            bodies,
            tree_index,
            cuts,
            cut_joints,
            roles,
            elements,
            gravity: layout.gravity,
            circuit,
            cylinder_ends,
            initial_pose,
            initial_velocity,
            plane,
            planar,
            row_columns,
            subtree,
            points: layout.output_points(d),
        })
    }

    /// Initial coordinates z0 and rates (from the bodies' relative velocities at the joints).
    pub fn initial_coordinates(&self, z: &mut [f64], zd: &mut [f64]) {
        for (t, b) in self.bodies.iter().enumerate() {
            z[t] = b.z0;
            let (v, w) = self.initial_velocity[t];
            let (pv, pw, prot) = match b.parent {
                Some(p) => (self.initial_velocity[p].0, self.initial_velocity[p].1, self.initial_pose[p]),
                None => (Vector3::zeros(), Vector3::zeros(), (Vector3::zeros(), Matrix3::identity())),
            };
            let u = prot.1 * b.axis_parent;
            zd[t] = b.sign
                * if b.prismatic {
                    // Relative velocity of the coincident points at the joint.
                    let p = prot.0 + prot.1 * b.point_parent;
                    let (r, rot) = self.initial_pose[t];
                    let child = v + w.cross(&(rot * b.point_child));
                    let _ = r;
                    u.dot(&(child - (pv + pw.cross(&(p - prot.0)))))
                } else {
                    u.dot(&(w - pw))
                };
        }
    }
}
