//! Description -> [`Mechanism`]: joints become sets of basic constraints ([Fang2023, Sect. 2.1];
//! \[Haug1989\] as in \[FangCode2022\]: revolute = 3 CD + 2 DP1, spherical = 3 CD, universal = 3 CD + 1 DP1,
//! translational = 2 DP1 + 2 DP2 + 1 DP1), geometry given globally at the initial
//! configuration becomes body-fixed vectors.

use super::geometry::{AxisRow, Group, Measure, Term, Vector};
use super::{
    BodyProps, BodyState, Constraint, ConstraintGroup, DriverInfo, JointInfo, MechState, Mechanism, PointRows, Target,
    MAX_GROUP_VECTORS,
};
use crate::layout::Layout;
use mbfmu_model::format::{driven_coordinate, Description, JointCoordinate, JointKind, Motion};
use nalgebra::Vector3;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct CompileError(pub String);

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CompileError {}

fn v3(a: &[f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// A unit vector perpendicular to the unit vector `a`.
pub(super) fn perpendicular(a: &Vector3<f64>) -> Vector3<f64> {
    let k = (0..3).min_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs())).expect("three components");
    a.cross(&Vector3::ith(k, 1.0)).normalize()
}

/// Compiles a validated description into a mechanism.
pub fn compile(d: &Description) -> Result<Mechanism, CompileError> {
    let mut layout = Layout::of(d);
    let mut bodies = Vec::new();
    let mut initial = Vec::new();
    for p in &layout.parts[..layout.first_node] {
        let inertia_inv =
            p.inertia.try_inverse().ok_or_else(|| CompileError(format!("body '{}': singular inertia", p.name)))?;
        bodies.push(BodyProps {
            name: p.name.clone(),
            mass: p.mass,
            inertia: p.inertia,
            inertia_inv,
            static_moment: None,
        });
        initial.push(BodyState {
            r: p.position,
            rot: p.rot,
            v: p.velocity,
            w: p.omega_body,
            acc: Vector3::zeros(),
            wdot: Vector3::zeros(),
        });
    }
    let beams = super::compile_beams::compile_beams(d, &layout.parts[layout.first_node..], &mut bodies, &mut initial)?;
    // Body-frame components of a global direction, normalized.
    let unit_in = |b: Option<usize>, a: &Vector3<f64>| layout.local_dir(b, &a.normalize());
    let mut constraints: Vec<Constraint> = Vec::new();
    let mut groups: Vec<ConstraintGroup> = Vec::new();
    let mut joints = Vec::new();
    // Adds a group whose terms all have constant targets.
    let mut add_group = |constraints: &mut Vec<Constraint>, geometry: Group, targets: &[f64], label: &str| {
        let first = constraints.len();
        for (term, &target) in geometry.terms.iter().zip(targets) {
            constraints.push(Constraint {
                pair: geometry.pair,
                group: groups.len(),
                term: *term,
                axis: AxisRow::of(&geometry.vectors, *term),
                target: Target::Constant(target),
                label: label.to_string(),
            });
        }
        groups.push(ConstraintGroup::new(geometry, first..constraints.len()));
        first..constraints.len()
    };
    // Planar mechanisms (description Plane): each body keeps its offset along n and rotates
    // only about n: n . r = n . r0, n . (A f_bar) = 0, n . (A g_bar) = 0 with f, g spanning
    // the plane.
    let plane = d.plane.as_ref().map(|p| {
        let n = v3(&p.normal).normalize();
        let e1 = perpendicular(&n);
        (n, e1, n.cross(&e1))
    });
    if let Some((n, e1, e2)) = plane {
        for (b, body) in d.bodies.iter().enumerate() {
            let geometry = Group {
                pair: [None, Some(b)],
                vectors: vec![
                    Vector::Constant(n),
                    Vector::Between { local1: Vector3::zeros(), local2: Vector3::zeros() },
                    Vector::Fixed { slot: 1, local: unit_in(Some(b), &e1) },
                    Vector::Fixed { slot: 1, local: unit_in(Some(b), &e2) },
                ],
                terms: vec![Term::Dot(0, 1), Term::Dot(0, 2), Term::Dot(0, 3)],
            };
            let offset = n.dot(&initial[b].r);
            add_group(&mut constraints, geometry, &[offset, 0.0, 0.0], &format!("plane of body '{}'", body.name));
        }
    }
    for (j, placed) in d.joints.iter().zip(&layout.joints) {
        let pair = placed.bodies;
        let label = format!("joint '{}' ({})", j.name, format!("{:?}", j.kind).to_lowercase());
        let p = placed.point;
        let points = [layout.local_point(pair[0], &p), layout.local_point(pair[1], &p)];
        let axis = placed.axis;
        // In a plane, the joint's in-plane directions (for point coincidence).
        let in_plane = plane;
        let f = perpendicular(&axis);
        let g = axis.cross(&f);
        let (a1, f1, g1) = (unit_in(pair[0], &axis), unit_in(pair[0], &f), unit_in(pair[0], &g));
        let (a2, f2, g2) = (unit_in(pair[1], &axis), unit_in(pair[1], &f), unit_in(pair[1], &g));
        let fixed = |slot: usize, local: Vector3<f64>| Vector::Fixed { slot, local };
        let between = Vector::Between { local1: points[0], local2: points[1] };
        let unit = |k: usize| Vector::Constant(Vector3::ith(k, 1.0));
        // Point coincidence: 3 CD rows c_k . d = 0 (vectors 0..4: d, e_x, e_y, e_z).
        let coincidence = || {
            (vec![between.clone(), unit(0), unit(1), unit(2)], vec![Term::Dot(1, 0), Term::Dot(2, 0), Term::Dot(3, 0)])
        };
        let mut points_out = points;
        let (vectors, terms, targets): (Vec<Vector>, Vec<Term>, Vec<f64>) = match (j.kind, in_plane) {
            (JointKind::Revolute | JointKind::Fixed, Some((_, e1, e2))) => {
                // In-plane coincidence (2 rows) [+ no relative rotation for fixed].
                let mut v =
                    vec![between.clone(), Vector::Constant(e1), Vector::Constant(e2), fixed(0, f1), fixed(1, g2)];
                let mut t = vec![Term::Dot(1, 0), Term::Dot(2, 0)];
                if j.kind == JointKind::Fixed {
                    t.push(Term::Dot(3, 4));
                } else {
                    v.truncate(3);
                }
                let n = t.len();
                (v, t, vec![0.0; n])
            }
            (JointKind::Translational, Some((n, _, _))) => {
                // No offset across the axis within the plane, no relative rotation.
                let across = n.cross(&axis);
                let (across1, across2) = (unit_in(pair[0], &across), unit_in(pair[1], &across));
                (
                    vec![fixed(0, across1), between.clone(), fixed(0, a1), fixed(1, across2)],
                    vec![Term::Dot(0, 1), Term::Dot(2, 3)],
                    vec![0.0; 2],
                )
            }
            (JointKind::Revolute | JointKind::Fixed, None) => {
                // 3 CD + 2 DP1 (a2 perpendicular to f1 and g1) [+ DP1 f1 . g2 = 0 against spin].
                let (mut v, mut t) = coincidence();
                v.extend([fixed(0, f1), fixed(0, g1), fixed(1, a2), fixed(1, g2)]);
                t.extend([Term::Dot(4, 6), Term::Dot(5, 6)]);
                if j.kind == JointKind::Fixed {
                    t.push(Term::Dot(4, 7));
                } else {
                    v.pop();
                }
                let n = t.len();
                (v, t, vec![0.0; n])
            }
            (JointKind::Spherical, _) => {
                let (v, t) = coincidence();
                (v, t, vec![0.0; 3])
            }
            (JointKind::Universal, _) => {
                let (mut v, mut t) = coincidence();
                let u1 = unit_in(pair[0], &v3(&j.axis1.expect("validated")));
                let u2 = unit_in(pair[1], &v3(&j.axis2.expect("validated")));
                v.extend([fixed(0, u1), fixed(1, u2)]);
                t.push(Term::Dot(4, 5));
                (v, t, vec![0.0; 4])
            }
            (JointKind::Translational | JointKind::Cylindrical, _) => {
                // 2 DP1 (parallel axes) + 2 DP2 (d along the axis) [+ DP1 against spin].
                let v = vec![fixed(0, f1), fixed(0, g1), fixed(1, a2), between.clone(), fixed(1, g2)];
                let mut t = vec![Term::Dot(0, 2), Term::Dot(1, 2), Term::Dot(0, 3), Term::Dot(1, 3)];
                if j.kind == JointKind::Translational {
                    t.push(Term::Dot(0, 4));
                }
                let n = t.len();
                (v, t, vec![0.0; n])
            }
            (JointKind::Distance, _) => {
                let (p1, p2) = (v3(&j.point1.expect("validated")), v3(&j.point2.expect("validated")));
                let length = j.length.unwrap_or_else(|| (p2 - p1).norm());
                if length <= 0.0 {
                    return Err(CompileError(format!(
                        "{label}: point1 and point2 coincide, the distance must be positive"
                    )));
                }
                points_out = [layout.local_point(pair[0], &p1), layout.local_point(pair[1], &p2)];
                (
                    vec![Vector::Between { local1: points_out[0], local2: points_out[1] }],
                    vec![Term::Dot(0, 0)],
                    vec![length * length],
                )
            }
        };
        assert!(vectors.len() <= MAX_GROUP_VECTORS);
        let rows = add_group(&mut constraints, Group { pair, vectors, terms }, &targets, &label);
        let rotates = matches!(j.kind, JointKind::Revolute | JointKind::Cylindrical);
        let slides = matches!(j.kind, JointKind::Translational | JointKind::Cylindrical);
        joints.push(JointInfo {
            name: j.name.clone(),
            kind: j.kind,
            pair,
            rows,
            angle: rotates.then(|| Measure::angle(f1, g1, f2)),
            slide: slides.then(|| Measure::dot(fixed(0, a1), between.clone())),
            axis1: a1,
            points: points_out,
            initial_coordinate: j.initial_coordinate,
            friction: j.friction.clone(),
        });
    }

    let input_index = |name: &str| d.input_index(name).expect("validated input reference");
    let mut drivers = Vec::new();
    for (index, dr) in d.drivers.iter().enumerate() {
        let ji = d.joint_index(&dr.joint).expect("validated joint reference");
        let joint = &joints[ji];
        let rotation = driven_coordinate(joint.kind, dr.coordinate).map_err(CompileError)? == JointCoordinate::Rotation;
        let measure = if rotation { joint.angle.clone() } else { joint.slide.clone() }.ok_or_else(|| {
            CompileError(format!("driver '{}': joint '{}' has no such coordinate", dr.name, joint.name))
        })?;
        let geometry = Group { pair: joint.pair, vectors: measure.vectors().to_vec(), terms: vec![measure.term()] };
        let label = format!("driver '{}' on joint '{}'", dr.name, joint.name);
        let rows = add_group(&mut constraints, geometry, &[0.0], &label);
        let row = rows.start;
        constraints[row].target = Target::Driver { driver: index, offset: joint.initial_coordinate };
        let input = match &dr.motion {
            Motion::InputRate { input, .. } => Some(input_index(input)),
            _ => None,
        };
        drivers.push(DriverInfo { name: dr.name.clone(), joint: ji, rotation, motion: dr.motion.clone(), row, input });
    }

    let forces = std::mem::take(&mut layout.elements);

    let drive_values = d
        .drivers
        .iter()
        .map(|dr| match &dr.motion {
            Motion::InputRate { initial, .. } => *initial,
            _ => 0.0,
        })
        .collect();
    let hydraulics = super::hydraulics::MechanismCircuit::compile(
        d,
        &joints,
        |name| d.body_or_node_index(name),
        |b, p| layout.local_point(b, p),
    );
    let n_c = constraints.len();
    let n_bodies = bodies.len();
    let initial = MechState {
        t: d.experiment.start,
        bodies: initial,
        lambda: vec![0.0; n_c],
        drive_values,
        angles: vec![0.0; joints.len()],
        work: 0.0,
        energy0: 0.0,
        circuit: hydraulics.as_ref().map(|h| {
            Box::new(h.initial_state(&h.circuit.cylinders.iter().map(|c| c.initial_force).collect::<Vec<_>>()))
        }),
    };
    for g in &mut groups {
        g.point = PointRows::of(g, &constraints);
    }
    Ok(Mechanism {
        name: d.name.clone(),
        bodies,
        constraints,
        groups,
        joints,
        drivers,
        forces,
        beams,
        hydraulics,
        gravity: layout.gravity,
        points: layout.output_points(d),
        inputs: crate::inputs::InputSignals::held(
            d.interface.inputs.iter().map(|i| i.start).collect(),
            d.experiment.start,
        ),
        initial,
        attached_axes: {
            let mut axes = vec![None; n_bodies];
            for r in layout.body_refs(d) {
                if r.rotation.is_some() {
                    axes[r.part] = r.rotation;
                }
            }
            axes
        },
    })
}
