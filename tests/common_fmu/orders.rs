//! The orders of the output derivatives each quantity provides, as README "FMI behaviour"
//! documents them: an independent table that the engine's output rates
//! (crates/engine/tests/output_rates.rs) and the FMUs (tests/derivatives_import.rs) are
//! checked against.

use mbfmu_model::format::{Description, Quantity};

/// The order of the derivatives the FMU documents for `q` in model `d` (0, 1 or 2); a cylinder
/// fed by inputs (`input_cylinder`) has the velocity input's second derivative.
pub fn documented_order(q: Quantity, d: &Description, input_cylinder: bool) -> usize {
    let damped_force = |f: usize| {
        serde_json::to_value(&d.forces[f]).unwrap().get("damping").and_then(|x| x.as_f64()).unwrap_or(0.0) != 0.0
    };
    let damped_beams = d.beams.iter().any(|b| b.damping != 0.0);
    match q {
        Quantity::BodyPosition { .. }
        | Quantity::BodyOrientation { .. }
        | Quantity::PointPosition { .. }
        | Quantity::NodePosition { .. }
        | Quantity::NodeDisplacement { .. }
        | Quantity::NodeRotation { .. }
        | Quantity::NodeOrientation { .. }
        | Quantity::JointAngle { .. }
        | Quantity::JointPosition { .. }
        | Quantity::DriverPrescribed { .. }
        | Quantity::ForceLength { .. }
        | Quantity::ValveSpool { .. }
        | Quantity::ValveReference { .. }
        | Quantity::CylinderLength { .. }
        | Quantity::CylinderWork { .. } => 2,
        Quantity::CylinderVelocity { .. } => {
            if input_cylinder {
                2
            } else {
                1
            }
        }
        Quantity::ForceValue { force } => {
            if damped_force(force) {
                1
            } else {
                2
            }
        }
        Quantity::PotentialEnergy => {
            if d.beams.is_empty() {
                2
            } else {
                1
            }
        }
        Quantity::SectionForce { .. } | Quantity::SectionMoment { .. } => usize::from(!damped_beams),
        Quantity::BodyVelocity { .. }
        | Quantity::BodyAngularVelocity { .. }
        | Quantity::PointVelocity { .. }
        | Quantity::NodeVelocity { .. }
        | Quantity::NodeAngularVelocity { .. }
        | Quantity::JointAngleRate { .. }
        | Quantity::JointVelocity { .. }
        | Quantity::ForceRate { .. }
        | Quantity::VolumePressure { .. }
        | Quantity::SourceFlow { .. }
        | Quantity::CylinderForce { .. }
        | Quantity::KineticEnergy
        | Quantity::TotalEnergy
        | Quantity::ExternalWork
        | Quantity::EnergyBalance => 1,
        Quantity::BodyAcceleration { .. }
        | Quantity::PointAcceleration { .. }
        | Quantity::NodeAcceleration { .. }
        | Quantity::NodeAngularAcceleration { .. }
        | Quantity::JointReactionForce { .. }
        | Quantity::JointReactionTorque { .. }
        | Quantity::JointFrictionForce { .. }
        | Quantity::DriverEffort { .. }
        | Quantity::MotorSpeed { .. }
        | Quantity::MotorTorque { .. }
        | Quantity::MotorFlow { .. }
        | Quantity::ConstraintViolation
        | Quantity::NewtonIterations
        | Quantity::Steps
        | Quantity::AccumulatorPressure { .. }
        | Quantity::AccumulatorVolume { .. } => 0,
    }
}
