//! Outputs of the mechanism: bodies, joints, drivers, force elements and beam nodes, each
//! expanded into scalar variables.

use super::expand::{missing, Builder, InterfaceError};
use super::Quantity;
use crate::format::{
    BodyQuantity, Description, DriverQuantity, ForcePlace, ForceQuantity, JointCoordinate, JointKind, JointQuantity,
    NodeQuantity,
};

const XYZ: [&str; 3] = ["x", "y", "z"];

/// Centre-of-mass position, velocity, angular velocity, acceleration and orientation of a body.
pub(super) fn body_outputs(
    d: &Description,
    body: &str,
    quantities: &[BodyQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.body_index(body).ok_or_else(|| missing("body", body))?;
    // The compiled body (a body attached to a beam node is its node) and, for an attached
    // body, the output point at its centre of mass.
    let part = d.body_parts()[i];
    let com = d.attached_point(i);
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
                        Quantity::BodyOrientation { body: part, component: c },
                    )?;
                }
                continue;
            }
        };
        for (axis, xyz) in XYZ.iter().enumerate() {
            let q = match (q, com) {
                (BodyQuantity::Position, Some(point)) => Quantity::PointPosition { point, axis },
                (BodyQuantity::Velocity, Some(point)) => Quantity::PointVelocity { point, axis },
                (BodyQuantity::Acceleration, Some(point)) => Quantity::PointAcceleration { point, axis },
                (BodyQuantity::Position, None) => Quantity::BodyPosition { body: part, axis },
                (BodyQuantity::Velocity, None) => Quantity::BodyVelocity { body: part, axis },
                (BodyQuantity::AngularVelocity, _) => Quantity::BodyAngularVelocity { body: part, axis },
                (BodyQuantity::Acceleration, None) => Quantity::BodyAcceleration { body: part, axis },
                (BodyQuantity::Orientation, _) => unreachable!(),
            };
            b.output(
                format!("{body}.{field}.{xyz}"),
                unit,
                format!("{xyz} component of the {what} of body {body}, global frame"),
                q,
            )?;
        }
    }
    Ok(())
}

/// Position, velocity and acceleration of the point `at` fixed to `body`, named `name`.
pub(super) fn point_outputs(
    d: &Description,
    body: &str,
    at: &[f64; 3],
    name: Option<&str>,
    quantities: &[BodyQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.body_index(body).ok_or_else(|| missing("body", body))?;
    let Some(name) = name.filter(|n| crate::format::is_identifier(n)) else {
        return Err(InterfaceError(format!(
            "the output of body '{body}' at point {at:?} needs a \"name\" (letters, digits and '_'), \
             which names its variables: \"<body>.<name>.position.x\""
        )));
    };
    // Its index in `Description::output_points`, which lists the same points in the same order.
    let point = d
        .output_points()
        .iter()
        .position(|(k, p)| *k == i && p == at)
        .expect("the point is one of the description's output points");
    for q in quantities {
        let (field, unit, what) = match q {
            BodyQuantity::Position => ("position", "m", "position"),
            BodyQuantity::Velocity => ("velocity", "m/s", "velocity"),
            BodyQuantity::Acceleration => ("acceleration", "m/s2", "acceleration"),
            BodyQuantity::Orientation | BodyQuantity::AngularVelocity => {
                return Err(InterfaceError(format!(
                    "the output '{name}' of body '{body}' is a point: its quantities are position, velocity \
                     and acceleration (the body's orientation and angular velocity are outputs of the body \
                     itself, without \"point\")"
                )))
            }
        };
        for (axis, xyz) in XYZ.iter().enumerate() {
            let q = match q {
                BodyQuantity::Position => Quantity::PointPosition { point, axis },
                BodyQuantity::Velocity => Quantity::PointVelocity { point, axis },
                _ => Quantity::PointAcceleration { point, axis },
            };
            b.output(
                format!("{body}.{name}.{field}.{xyz}"),
                unit,
                format!("{xyz} component of the {what} of point {name} of body {body}, global frame"),
                q,
            )?;
        }
    }
    Ok(())
}

/// Joint coordinates and their rates, reaction force and torque, friction force.
pub(super) fn joint_outputs(
    d: &Description,
    joint: &str,
    quantities: &[JointQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
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
                        format!("Relative rotation {name} of joint {joint} (body2 w.r.t. body1 about the axis)"),
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
    Ok(())
}

/// Effort and prescribed coordinate of a driver, in the unit of the coordinate it drives.
pub(super) fn driver_outputs(
    d: &Description,
    driver: &str,
    quantities: &[DriverQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
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
    Ok(())
}

/// Length (or angle), force and rate of a force element.
pub(super) fn force_outputs(
    d: &Description,
    force: &str,
    quantities: &[ForceQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.force_index(force).ok_or_else(|| missing("force", force))?;
    let (len_unit, force_unit) = match d.forces[i].place() {
        ForcePlace::Line { .. } => ("m", "N"),
        ForcePlace::JointRotation { .. } => ("rad", "N.m"),
        ForcePlace::Point { .. } => ("", "N"),
        ForcePlace::Torque { .. } => ("", "N.m"),
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
                let text = d.forces[i].force_meaning();
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
    Ok(())
}

/// Motion, orientation and section forces at a beam node.
pub(super) fn node_outputs(
    d: &Description,
    node: &str,
    quantities: &[NodeQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.node_index(node).ok_or_else(|| missing("beam node", node))?;
    let r = d.node_ref(node).expect("a node index has a node reference");
    let canonical = d.beams[r.beam].node_name(r.node);
    for q in quantities {
        let (field, unit, what): (&str, &str, &str) = match q {
            NodeQuantity::Position => ("position", "m", "position, global frame"),
            NodeQuantity::Displacement => ("displacement", "m", "displacement from the initial position, global frame"),
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
                        format!(
                            "Orientation quaternion component e{c} of the section frame at node {canonical} (e0 >= 0)"
                        ),
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
    Ok(())
}
