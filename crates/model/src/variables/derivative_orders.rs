//! Which time derivatives of each output quantity the FMUs compute from the state
//! (`fmi2GetRealOutputDerivatives`, `fmi3GetOutputDerivatives`; `maxOutputDerivativeOrder`
//! = [`super::MAX_OUTPUT_DERIVATIVE_ORDER`]): the order up to which a derivative is provided,
//! as the documentation page and README list it. Beyond it the value is 0 (FMI 3.0 Sect.
//! 4.1.2: "If the actual order is lower ..., the retrieved value is 0").

use crate::format::{Description, Quantity};

/// The highest derivative order of output quantity `q` of model `d` that the state
/// determines and the FMU computes (0: none).
pub fn output_derivative_order(q: Quantity, d: &Description) -> u32 {
    let damped = |f: usize| d.forces.get(f).is_some_and(|f| f.damping() != 0.0);
    match q {
        // Positions and coordinates: velocities and accelerations are state.
        Quantity::BodyPosition { .. }
        | Quantity::BodyOrientation { .. }
        | Quantity::PointPosition { .. }
        | Quantity::NodePosition { .. }
        | Quantity::NodeDisplacement { .. }
        | Quantity::NodeRotation { .. }
        | Quantity::NodeOrientation { .. }
        | Quantity::JointAngle { .. }
        | Quantity::JointPosition { .. }
        | Quantity::ForceLength { .. }
        | Quantity::CylinderLength { .. }
        // Laws of time and inputs, the spool law, the power of a cylinder and its rate.
        | Quantity::DriverPrescribed { .. }
        | Quantity::ValveSpool { .. }
        | Quantity::ValveReference { .. }
        | Quantity::CylinderWork { .. } => 2,
        // A force with a damper needs the length's third derivative for its second.
        Quantity::ForceValue { force } => {
            if damped(force) {
                1
            } else {
                2
            }
        }
        // Strain energy's second derivative needs strain accelerations, which are not formed.
        Quantity::PotentialEnergy => {
            if d.beams.is_empty() {
                2
            } else {
                1
            }
        }
        // A cylinder fed by inputs: the velocity input's own derivatives.
        Quantity::CylinderVelocity { cylinder } => {
            let fed = d.hydraulics.as_ref().and_then(|h| h.cylinders.get(cylinder)).is_some_and(|c| c.body1.is_none());
            if fed {
                2
            } else {
                1
            }
        }
        // Section forces of damped beams need the strain accelerations.
        Quantity::SectionForce { .. } | Quantity::SectionMoment { .. } => u32::from(d.beams.iter().all(|b| b.damping == 0.0)),
        // Velocities and rates: accelerations are state, jerks are not; pressures from the
        // circuit equations; energies as powers.
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
        // Accelerations (a jerk), Lagrange multipliers and what follows from them, the motors'
        // outputs (no derivatives offered), solver
        // health.
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
        // Accumulators: their rates are not formed for outputs.
        | Quantity::AccumulatorPressure { .. }
        | Quantity::AccumulatorVolume { .. } => 0,
    }
}
