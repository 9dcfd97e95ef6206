//! Output quantities of a semirecursive model at its current state.

use super::cuts::{line, point_kin};
use super::dynamics::row_rate;
use super::Semirecursive;
use crate::elements::Geometry;
use crate::rotation::quaternion;
use mbfmu_model::format::Quantity;

impl Semirecursive {
    /// Value of a quantity that depends on the state alone (solver statistics: NaN).
    pub fn quantity(&self, q: Quantity) -> f64 {
        let kin = &self.kin;
        let st = &self.state;
        let tb = |b: usize| &kin[self.tree.tree_index[b]];
        match q {
            Quantity::BodyPosition { body, axis } => tb(body).r[axis],
            Quantity::BodyOrientation { body, component } => quaternion(&tb(body).rot)[component],
            Quantity::BodyVelocity { body, axis } => tb(body).com_velocity()[axis],
            Quantity::BodyAngularVelocity { body, axis } => tb(body).omega()[axis],
            Quantity::BodyAcceleration { body, axis } => tb(body).com_acceleration()[axis],
            Quantity::PointPosition { point, axis } => self.output_point(point)[0][axis],
            Quantity::PointVelocity { point, axis } => self.output_point(point)[1][axis],
            Quantity::PointAcceleration { point, axis } => self.output_point(point)[2][axis],
            // Validation keeps beams out of the semirecursive formulations.
            Quantity::NodePosition { .. }
            | Quantity::NodeDisplacement { .. }
            | Quantity::NodeRotation { .. }
            | Quantity::NodeOrientation { .. }
            | Quantity::NodeVelocity { .. }
            | Quantity::NodeAngularVelocity { .. }
            | Quantity::NodeAcceleration { .. }
            | Quantity::NodeAngularAcceleration { .. }
            | Quantity::SectionForce { .. }
            | Quantity::SectionMoment { .. } => f64::NAN,
            Quantity::JointAngle { joint } => self.tree.joint_rotation(joint, &st.z, &st.zd, kin).0,
            Quantity::JointAngleRate { joint } => self.tree.joint_rotation(joint, &st.z, &st.zd, kin).1,
            Quantity::JointPosition { joint } => self.tree.joint_slide(joint, &st.z, &st.zd, kin).0,
            Quantity::JointVelocity { joint } => self.tree.joint_slide(joint, &st.z, &st.zd, kin).1,
            Quantity::ForceLength { force } => self.element_measure(force).0,
            Quantity::ForceRate { force } => self.element_measure(force).1,
            Quantity::ForceValue { force } => self.element_value(force),
            Quantity::VolumePressure { volume } => st.p[volume],
            Quantity::SourceFlow { source } => self.tree.circuit.as_ref().map_or(f64::NAN, |c| {
                let (inputs, t) = (&self.inputs, st.t);
                c.source_flow(source, t, &st.p, &st.spools, &|i| inputs.at(i, t))
            }),
            Quantity::ValveSpool { valve } => self.spool(valve).map_or(f64::NAN, |k| st.spools[k]),
            Quantity::ValveReference { valve } => self.spool(valve).map_or(f64::NAN, |k| st.references[k]),
            Quantity::CylinderLength { cylinder } => self.strokes[cylinder].length,
            Quantity::CylinderVelocity { cylinder } => self.strokes[cylinder].velocity,
            Quantity::CylinderForce { cylinder } => self.forces[cylinder],
            Quantity::CylinderWork { cylinder } => st.cylinder_work[cylinder],
            Quantity::MotorSpeed { motor } | Quantity::MotorTorque { motor } | Quantity::MotorFlow { motor } => {
                self.motor_quantity(q, motor)
            }
            Quantity::AccumulatorPressure { accumulator } => {
                self.tree.circuit.as_ref().map_or(f64::NAN, |c| c.accumulator_quantity(accumulator, &st.p, true))
            }
            Quantity::AccumulatorVolume { accumulator } => {
                self.tree.circuit.as_ref().map_or(f64::NAN, |c| c.accumulator_quantity(accumulator, &st.p, false))
            }
            Quantity::KineticEnergy => self.tree.kinetic_energy(kin),
            Quantity::PotentialEnergy => self.tree.potential_energy(kin, &st.z, &st.zd),
            Quantity::TotalEnergy => self.total_energy(),
            Quantity::ExternalWork => st.work,
            // [Zhang2022, eq. 23], [Jaiswal2021, Sect. 6.2]: E - E0 - W.
            Quantity::EnergyBalance => self.total_energy() - st.energy0 - st.work,
            Quantity::ConstraintViolation => self.constraint_violation(),
            Quantity::JointReactionForce { .. }
            | Quantity::JointReactionTorque { .. }
            | Quantity::JointFrictionForce { .. }
            | Quantity::DriverEffort { .. }
            | Quantity::DriverPrescribed { .. }
            | Quantity::NewtonIterations
            | Quantity::Steps => f64::NAN,
        }
    }

    pub fn total_energy(&self) -> f64 {
        self.tree.kinetic_energy(&self.kin) + self.tree.potential_energy(&self.kin, &self.state.z, &self.state.zd)
    }

    /// Euclidean norm of the cut-joint constraints Phi at the current state.
    pub fn constraint_violation(&self) -> f64 {
        self.tree.cuts.iter().map(|c| c.evaluate(&self.kin).value.powi(2)).sum::<f64>().sqrt()
    }

    pub(super) fn spool(&self, valve: usize) -> Option<usize> {
        self.tree.circuit.as_ref().and_then(|c| c.spool_of_valve[valve])
    }

    /// Measure (length, angle, position along the force) and its rate of a force element.
    fn element_measure(&self, f: usize) -> (f64, f64) {
        let e = &self.tree.elements[f];
        match &e.geometry {
            Geometry::Line { ends } => {
                let (row, _) = line(&self.kin, ends);
                (row.value, row_rate(&self.kin, &row))
            }
            Geometry::JointRotation { joint } => {
                self.tree.joint_rotation(*joint, &self.state.z, &self.state.zd, &self.kin)
            }
            Geometry::Point { at, direction } => {
                let p = point_kin(&self.kin, at);
                (direction.dot(&p.p), direction.dot(&p.v))
            }
            Geometry::Torque { body, axis } => (0.0, axis.dot(&self.kin[*body].omega())),
        }
    }

    /// The force element `f` reports: tension (spring), push (actuator, end stop), torque or
    /// magnitude.
    fn element_value(&self, f: usize) -> f64 {
        let e = &self.tree.elements[f];
        let (x, rate) = self.element_measure(f);
        e.law.force(x, rate, e.input.map_or(0.0, |i| self.inputs.at(i, self.state.t)))
    }
}

impl Semirecursive {
    /// Speed, torque or flow of motor `m` at the current state (its stroke and force follow
    /// the cylinders').
    fn motor_quantity(&self, q: Quantity, m: usize) -> f64 {
        let Some(c) = &self.tree.circuit else { return f64::NAN };
        let k = c.n_cylinders() + m;
        let omega = self.strokes[k].velocity;
        match q {
            Quantity::MotorSpeed { .. } => omega,
            Quantity::MotorTorque { .. } => self.forces[k],
            _ => {
                let (inputs, t) = (&self.inputs, self.state.t);
                c.motors[m].flow(omega, c.motor_drop(m, &self.state.p, &|i| inputs.at(i, t)))
            }
        }
    }
}

impl Semirecursive {
    /// Position, velocity and acceleration of output point `point` (global), from its body's
    /// kinematics at the current state.
    pub(super) fn output_point(&self, point: usize) -> [nalgebra::Vector3<f64>; 3] {
        let (body, s) = &self.tree.points[point];
        let kin = &self.kin[self.tree.tree_index[*body]];
        let p = kin.point(s);
        let v = kin.velocity_at(&p);
        [p, v, kin.acceleration_at(&p, &v)]
    }
}
