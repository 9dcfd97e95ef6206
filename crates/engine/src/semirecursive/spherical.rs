//! Spherical tree joints of spatial mechanisms: three revolute coordinates in series about
//! orthonormal axes e1 (fixed in the parent), e2 and e3 (fixed in the child), through the
//! joint point, with two massless intermediate bodies, so that the recursion of
//! [Jaiswal2021, eqs. 1-3] and every kernel of the tree hold unchanged. The relative rotation
//! is R(e1, a) R(e2, b) R(e3, c), each factor about the axis as the previous rotations left
//! it (the definition of the joint, each factor by the Rodrigues form of `tree.rs`); the
//! angular velocity is a' e1 + b' e2' + c' e3'' and loses rank where cos b = 0 (gimbal lock:
//! e1 and e3'' align).
//!
//! The axes are chosen so that the motion that gravity starts keeps away from that set:
//! e3 points from the joint to the child's centre of mass (a bar spinning about its axis
//! spins in c alone), e1 is normal to e3 and to gravity (the swing that gravity starts is a
//! rotation about e1, in a), e2 = e3 x e1. Only a bend of the child by 90 degrees out of that
//! plane reaches the singular set, and before it does the joint's chart is re-based at a
//! step ([`super::chart`]). [`Tree::gimbal_check`] remains a last guard: it refuses a state
//! within [`GIMBAL_MARGIN`] of the singular set with the joint's name (no accepted step gets
//! there; a trial point of a host's integrator could).

use super::tree::{perpendicular, CompileError, Tree, TreeBody};
use crate::integrators::StepError;
use crate::layout::Layout;
use mbfmu_model::format::{Description, JointKind};
use nalgebra::{Matrix3, Vector3};

/// The states whose middle angle b has |cos b| below this (b within 5.7 degrees of +-90
/// degrees) are refused (a last guard: the charts are re-based at |sin b| > 0.8).
pub const GIMBAL_MARGIN: f64 = 0.1;

/// A spherical tree joint as the compiler sees it (initial configuration).
pub(super) struct Joint {
    pub joint: usize,
    /// Parent tree body (None: ground).
    pub parent: Option<usize>,
    /// Joint point (global).
    pub point: Vector3<f64>,
    /// Parent's and child's centre of mass and orientation, angular velocities (global).
    pub parent_pose: (Vector3<f64>, Matrix3<f64>),
    pub parent_omega: Vector3<f64>,
    pub child_pose: (Vector3<f64>, Matrix3<f64>),
    pub child_velocity: (Vector3<f64>, Vector3<f64>),
}

type Pose = (Vector3<f64>, Matrix3<f64>);
type Twist = (Vector3<f64>, Vector3<f64>);

impl Joint {
    /// The orthonormal axes e1, e2, e3 (global, initial configuration; see the module).
    pub fn axes(&self, gravity: &Vector3<f64>) -> [Vector3<f64>; 3] {
        let arm = self.child_pose.0 - self.point;
        let e3 = if arm.norm() > 1e-12 { arm.normalize() } else { self.child_pose.1 * Vector3::x() };
        let normal = e3.cross(gravity);
        let e1 = if normal.norm() > 1e-9 * gravity.norm() { normal.normalize() } else { perpendicular(&e3) };
        [e1, e3.cross(&e1), e3]
    }

    /// The three tree bodies (two massless intermediate ones, then the child `name`), with
    /// initial poses and velocities: the intermediate bodies sit at the joint point with the
    /// child's orientation, their angular velocities the parent's plus the relative angular
    /// velocity's components along e1 (and e2), so that each coordinate's rate is the
    /// relative angular velocity's component along its axis (the axes are orthonormal at the
    /// initial configuration, where all three angles are zero). `first` is the first one's
    /// tree index.
    pub fn bodies(
        &self,
        name: &str,
        mass: f64,
        inertia: Matrix3<f64>,
        gravity: &Vector3<f64>,
        tree: &[TreeBody],
        first: usize,
    ) -> Vec<(TreeBody, Pose, Twist)> {
        let e = self.axes(gravity);
        let (p, c0) = (self.point, self.child_pose.1);
        let relative_w = self.child_velocity.1 - self.parent_omega;
        let mut omega = self.parent_omega;
        let mut path = self.parent.map_or(Vec::new(), |q| tree[q].path.clone());
        let mut out = Vec::with_capacity(3);
        for (k, axis) in e.iter().enumerate() {
            let t = first + k;
            let (parent, rot_parent, at_parent) =
                if k == 0 { (self.parent, self.parent_pose.1, self.parent_pose.0) } else { (Some(t - 1), c0, p) };
            let axis_parent = rot_parent.transpose() * axis;
            let relative0 = rot_parent.transpose() * c0;
            let last = k == 2;
            omega += axis * axis.dot(&relative_w);
            path.push(t);
            let body = TreeBody {
                name: if last { name.to_string() } else { format!("{name} (spherical joint rotation {})", k + 1) },
                mass: if last { mass } else { 0.0 },
                inertia: if last { inertia } else { Matrix3::zeros() },
                parent,
                joint: self.joint,
                prismatic: false,
                sign: 1.0,
                axis_parent,
                point_parent: rot_parent.transpose() * (p - at_parent),
                point_child: if last { c0.transpose() * (p - self.child_pose.0) } else { Vector3::zeros() },
                relative0,
                relative_skew: crate::rotation::skew(&axis_parent) * relative0,
                relative_axial: axis_parent * axis_parent.transpose() * relative0,
                relative_planar: (Matrix3::identity() - axis_parent * axis_parent.transpose()) * relative0,
                z0: 0.0,
                planar: None,
                path: path.clone(),
                spherical: Some(k as u8),
            };
            let pose = if last { self.child_pose } else { (p, c0) };
            let twist = if last { self.child_velocity } else { (Vector3::zeros(), omega) };
            out.push((body, pose, twist));
        }
        out
    }
}

/// The first non-cut spherical joint (description order) between a reached body (or ground)
/// and a body not yet reached, with that body.
pub(super) fn next_tree_joint(
    d: &Description,
    layout: &Layout,
    placed: &[bool],
    tree_joint: &[bool],
) -> Option<(usize, usize)> {
    let reached = |b: Option<usize>| b.is_none_or(|b| placed[b]);
    d.joints.iter().enumerate().find_map(|(ji, j)| {
        if j.cut || tree_joint[ji] || j.kind != JointKind::Spherical {
            return None;
        }
        match layout.joints[ji].bodies {
            [a, Some(o)] if reached(a) && !placed[o] => Some((ji, o)),
            [Some(o), a] if reached(a) && !placed[o] => Some((ji, o)),
            _ => None,
        }
    })
}

/// The compile error for body `b`, which no chain of tree joints reaches from ground: names
/// a joint of the body that cannot be a tree joint, and the valid choices.
pub(super) fn unreached(d: &Description, layout: &Layout, b: usize, planar: bool) -> CompileError {
    let valid = if planar {
        "tree joints of a planar mechanism are revolute or translational"
    } else {
        "tree joints are revolute, translational or spherical"
    };
    let touching = d.joints.iter().enumerate().find(|(ji, _)| layout.joints[*ji].bodies.contains(&Some(b)));
    match touching {
        Some((_, j)) => CompileError(format!(
            "body '{}' is not connected to ground by a chain of tree joints: joint '{}' ({}{}) cannot connect it ({valid}; other joints close loops as cut joints; the index3 and stateSpace formulations take any joint)",
            d.bodies[b].name,
            j.name,
            format!("{:?}", j.kind).to_lowercase(),
            if j.cut { ", marked cut" } else { "" },
        )),
        None => CompileError(format!(
            "body '{}' is not connected to ground by any joint ({valid}, the open tree of Jaiswal et al. 2021, Sect. 2.1)",
            d.bodies[b].name
        )),
    }
}

impl Tree {
    /// Refuses coordinates at which a spherical tree joint's middle rotation b is within
    /// [`GIMBAL_MARGIN`] of gimbal lock (|cos b| < 0.1), naming the joint.
    pub fn gimbal_check(&self, t: f64, z: &[f64]) -> Result<(), StepError> {
        for (k, b) in self.bodies.iter().enumerate() {
            if b.spherical == Some(1) && z[k].cos().abs() < GIMBAL_MARGIN {
                return Err(StepError::Model {
                    time: t,
                    what: format!(
                        "spherical joint of body '{}': its middle rotation is {:.1} degrees, within {:.1} degrees of gimbal lock (90 degrees) of the three rotations it is integrated in (use the index3 or stateSpace formulation for this motion)",
                        self.bodies[k + 1].name,
                        z[k].to_degrees(),
                        90.0 - GIMBAL_MARGIN.acos().to_degrees()
                    ),
                });
            }
        }
        Ok(())
    }

    /// The largest |sin b| of the spherical tree joints' middle rotations at `z` (1 is gimbal
    /// lock; 0 without spherical tree joints).
    pub fn gimbal_proximity(&self, z: &[f64]) -> f64 {
        self.bodies
            .iter()
            .zip(z)
            .filter(|(b, _)| b.spherical == Some(1))
            .map(|(_, q)| q.sin().abs())
            .fold(0.0, f64::max)
    }
}
