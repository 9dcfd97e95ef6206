//! The quantities a model computes and an FMU can output: what the engine evaluates for an
//! output variable (the variable table binds each output to one of these).

/// Computed quantities; indices refer to the description's arrays; `axis` 0..3 = x, y, z.
/// A body index is that of [`super::Description::body_parts`]: the description's body if no
/// body is attached to a beam node; a body attached to a node is its node there (its
/// orientation then carries its axes relative to the node's, and its centre of mass is an
/// output point).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    BodyPosition {
        body: usize,
        axis: usize,
    },
    BodyOrientation {
        body: usize,
        component: usize,
    },
    BodyVelocity {
        body: usize,
        axis: usize,
    },
    BodyAngularVelocity {
        body: usize,
        axis: usize,
    },
    BodyAcceleration {
        body: usize,
        axis: usize,
    },
    /// A body-fixed point's position, velocity and acceleration (global); `point` indexes
    /// [`super::Description::output_points`].
    PointPosition {
        point: usize,
        axis: usize,
    },
    PointVelocity {
        point: usize,
        axis: usize,
    },
    PointAcceleration {
        point: usize,
        axis: usize,
    },
    /// Beam node quantities; `node` indexes all nodes (beams in order).
    NodePosition {
        node: usize,
        axis: usize,
    },
    NodeDisplacement {
        node: usize,
        axis: usize,
    },
    NodeRotation {
        node: usize,
        axis: usize,
    },
    NodeOrientation {
        node: usize,
        component: usize,
    },
    NodeVelocity {
        node: usize,
        axis: usize,
    },
    NodeAngularVelocity {
        node: usize,
        axis: usize,
    },
    NodeAcceleration {
        node: usize,
        axis: usize,
    },
    NodeAngularAcceleration {
        node: usize,
        axis: usize,
    },
    SectionForce {
        node: usize,
        axis: usize,
    },
    SectionMoment {
        node: usize,
        axis: usize,
    },
    JointAngle {
        joint: usize,
    },
    JointAngleRate {
        joint: usize,
    },
    JointPosition {
        joint: usize,
    },
    JointVelocity {
        joint: usize,
    },
    JointReactionForce {
        joint: usize,
        axis: usize,
    },
    JointReactionTorque {
        joint: usize,
        axis: usize,
    },
    JointFrictionForce {
        joint: usize,
    },
    DriverEffort {
        driver: usize,
    },
    DriverPrescribed {
        driver: usize,
    },
    ForceLength {
        force: usize,
    },
    ForceValue {
        force: usize,
    },
    ForceRate {
        force: usize,
    },
    VolumePressure {
        volume: usize,
    },
    SourceFlow {
        source: usize,
    },
    ValveSpool {
        valve: usize,
    },
    ValveReference {
        valve: usize,
    },
    CylinderLength {
        cylinder: usize,
    },
    CylinderVelocity {
        cylinder: usize,
    },
    CylinderForce {
        cylinder: usize,
    },
    CylinderWork {
        cylinder: usize,
    },
    MotorSpeed {
        motor: usize,
    },
    MotorTorque {
        motor: usize,
    },
    MotorFlow {
        motor: usize,
    },
    AccumulatorPressure {
        accumulator: usize,
    },
    AccumulatorVolume {
        accumulator: usize,
    },
    KineticEnergy,
    PotentialEnergy,
    TotalEnergy,
    ExternalWork,
    EnergyBalance,
    ConstraintViolation,
    NewtonIterations,
    Steps,
}

impl Quantity {
    /// True for a quantity of the hydraulic circuit (volumes, sources, valves, cylinders,
    /// motors, accumulators), which a formulation evaluates from its coupled circuit.
    pub fn of_circuit(self) -> bool {
        matches!(
            self,
            Quantity::VolumePressure { .. }
                | Quantity::SourceFlow { .. }
                | Quantity::ValveSpool { .. }
                | Quantity::ValveReference { .. }
                | Quantity::CylinderLength { .. }
                | Quantity::CylinderVelocity { .. }
                | Quantity::CylinderForce { .. }
                | Quantity::CylinderWork { .. }
                | Quantity::MotorSpeed { .. }
                | Quantity::MotorTorque { .. }
                | Quantity::MotorFlow { .. }
                | Quantity::AccumulatorPressure { .. }
                | Quantity::AccumulatorVolume { .. }
        )
    }
}
