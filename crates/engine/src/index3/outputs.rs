//! Output quantities of a mechanism state (the `Quantity` bindings of the FMU interface).

use super::geometry::Measure;
use super::{MechState, Mechanism};
use crate::rotation::{log, quaternion};
use mbfmu_model::format::Quantity;

impl Mechanism {
    /// Reaction force (global) and torque (global, about the centre of mass) that joint `j`
    /// exerts on body2: -Phi_r^T lambda and -A Pi_bar^T lambda over the joint's rows. If body2
    /// is ground, minus the reaction on body1 (force) and zero torque.
    pub fn joint_reaction(&self, j: usize, state: &MechState) -> ([f64; 3], [f64; 3]) {
        let joint = &self.joints[j];
        let (mut f, mut n) = ([0.0; 3], [0.0; 3]);
        for k in joint.rows.clone() {
            let row = self.row_jacobian(k, &state.bodies);
            let l = state.lambda[k];
            for i in 0..3 {
                match joint.pair[1] {
                    Some(_) => {
                        f[i] -= row[1][i] * l;
                        n[i] -= row[1][3 + i] * l;
                    }
                    None => f[i] += row[0][i] * l,
                }
            }
        }
        if let Some(b) = joint.pair[1] {
            let g = state.bodies[b].rot * nalgebra::Vector3::from(n);
            n = [g.x, g.y, g.z];
        }
        (f, n)
    }

    /// Value of a quantity that depends on the state alone (not on solver statistics).
    pub fn quantity(&self, q: Quantity, state: &MechState) -> f64 {
        let bodies = &state.bodies;
        match q {
            Quantity::BodyPosition { body, axis } => bodies[body].r[axis],
            Quantity::BodyOrientation { body, component } => quaternion(&bodies[body].rot)[component],
            Quantity::BodyVelocity { body, axis } => bodies[body].v[axis],
            Quantity::BodyAngularVelocity { body, axis } => (bodies[body].rot * bodies[body].w)[axis],
            Quantity::BodyAcceleration { body, axis } => bodies[body].acc[axis],
            Quantity::NodePosition { node, axis } => bodies[self.beams.first_node + node].r[axis],
            Quantity::NodeDisplacement { node, axis } => {
                let b = self.beams.first_node + node;
                bodies[b].r[axis] - self.initial.bodies[b].r[axis]
            }
            Quantity::NodeRotation { node, axis } => {
                let b = self.beams.first_node + node;
                log(&(bodies[b].rot * self.initial.bodies[b].rot.transpose()))[axis]
            }
            Quantity::NodeOrientation { node, component } => {
                quaternion(&bodies[self.beams.first_node + node].rot)[component]
            }
            Quantity::NodeVelocity { node, axis } => bodies[self.beams.first_node + node].v[axis],
            Quantity::NodeAngularVelocity { node, axis } => {
                let s = &bodies[self.beams.first_node + node];
                (s.rot * s.w)[axis]
            }
            Quantity::NodeAcceleration { node, axis } => bodies[self.beams.first_node + node].acc[axis],
            Quantity::NodeAngularAcceleration { node, axis } => {
                let s = &bodies[self.beams.first_node + node];
                (s.rot * s.wdot)[axis]
            }
            Quantity::SectionForce { node, axis } => self.node_section(node, bodies)[axis],
            Quantity::SectionMoment { node, axis } => self.node_section(node, bodies)[3 + axis],
            Quantity::JointAngle { joint } => self.joints[joint].initial_coordinate + state.angles[joint],
            Quantity::JointAngleRate { joint } => self.measure_rate(self.joints[joint].angle.as_ref(), joint, state),
            Quantity::JointPosition { joint } => {
                let j = &self.joints[joint];
                j.initial_coordinate + j.slide.as_ref().map_or(0.0, |m| m.value(&self.pair(bodies, &j.pair)))
            }
            Quantity::JointVelocity { joint } => self.measure_rate(self.joints[joint].slide.as_ref(), joint, state),
            Quantity::JointReactionForce { joint, axis } => self.joint_reaction(joint, state).0[axis],
            Quantity::JointReactionTorque { joint, axis } => self.joint_reaction(joint, state).1[axis],
            Quantity::JointFrictionForce { joint } => {
                let mut f = Vec::new();
                super::forces::friction_forces(self, state, &mut f);
                f[joint]
            }
            Quantity::DriverEffort { driver } => -state.lambda[self.drivers[driver].row],
            Quantity::DriverPrescribed { driver } => self.driver_motion(driver, state.t, state).f,
            Quantity::ForceLength { force } => self.element_length(force, bodies, &state.angles).0,
            Quantity::ForceValue { force } => self.element_force(force, state.t, bodies, &state.angles),
            Quantity::ForceRate { force } => self.element_length(force, bodies, &state.angles).1,
            Quantity::VolumePressure { .. }
            | Quantity::SourceFlow { .. }
            | Quantity::ValveSpool { .. }
            | Quantity::ValveReference { .. }
            | Quantity::CylinderLength { .. }
            | Quantity::CylinderVelocity { .. }
            | Quantity::CylinderForce { .. }
            | Quantity::CylinderWork { .. } => f64::NAN,
            Quantity::KineticEnergy => self.kinetic_energy(bodies),
            Quantity::PotentialEnergy => self.potential_energy(bodies, &state.angles),
            Quantity::TotalEnergy => self.kinetic_energy(bodies) + self.potential_energy(bodies, &state.angles),
            Quantity::ExternalWork => state.work,
            // Seed 000 eq. (23): dE = E - E0 - W.
            Quantity::EnergyBalance => {
                self.kinetic_energy(bodies) + self.potential_energy(bodies, &state.angles) - state.energy0 - state.work
            }
            Quantity::ConstraintViolation => self.constraint_violation(state),
            Quantity::NewtonIterations | Quantity::Steps => f64::NAN,
        }
    }

    /// Section forces and moments at a beam node: the mean of the adjacent elements' values
    /// (their mid-sections lie half an element to either side).
    pub fn node_section(&self, node: usize, bodies: &[super::BodyState]) -> [f64; 6] {
        let adjacent = &self.beams.adjacent[node];
        let count = adjacent.iter().flatten().count() as f64;
        let mut out = [0.0; 6];
        for &e in adjacent.iter().flatten() {
            let s = self.beams.elements[e].section(bodies);
            for (o, v) in out.iter_mut().zip(s.stress) {
                *o += v / count;
            }
        }
        out
    }

    fn measure_rate(&self, m: Option<&Measure>, joint: usize, state: &MechState) -> f64 {
        let j = &self.joints[joint];
        m.map_or(0.0, |m| m.evaluate(&self.pair(&state.bodies, &j.pair)).rate)
    }
}
