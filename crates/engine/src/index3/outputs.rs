//! Output quantities of a mechanism state (the `Quantity` bindings of the FMU interface).

use super::geometry::{Measure, Pair, Row, Term, Vector};
use super::{MechState, Mechanism, MAX_GROUP_VECTORS};
use crate::rotation::{log, quaternion};
use mbfmu_model::format::Quantity;
use nalgebra::{Matrix3, Vector3};

impl Mechanism {
    /// Reaction force (global) and torque (global, about the centre of mass) that joint `j`
    /// exerts on body2: -Phi_r^T lambda and -A Pi_bar^T lambda over the joint's rows. If body2
    /// is ground, minus the reaction on body1 (force) and zero torque.
    pub fn joint_reaction(&self, j: usize, state: &MechState) -> ([f64; 3], [f64; 3]) {
        let mut values = [Vector3::zeros(); MAX_GROUP_VECTORS];
        if let Some(g) = self.joint_group(j) {
            self.groups[g].vector_values(self, &state.bodies, &mut values);
        }
        self.joint_reaction_from(j, state, &values, true)
    }

    /// The constraint group of joint `j`'s rows (one group per joint; None without rows).
    pub(super) fn joint_group(&self, j: usize) -> Option<usize> {
        let rows = &self.joints[j].rows;
        (!rows.is_empty()).then(|| self.constraints[rows.start].group)
    }

    /// [`Mechanism::joint_reaction`] from the vector values of the joint's group
    /// ([`ConstraintGroup::vector_values`]): each row once, from values shared by all rows
    /// (the rows of `constraint_rows`, which equal those of `row_jacobian` up to the sign
    /// of zero entries; the sums below do not see that sign). Without `torque` the torque is
    /// left zero and an axis row's d/dpi_bar part is not formed (the force does not use it).
    ///
    /// [`ConstraintGroup::vector_values`]: super::ConstraintGroup::vector_values
    pub(super) fn joint_reaction_from(
        &self,
        j: usize,
        state: &MechState,
        values: &[Vector3<f64>],
        torque: bool,
    ) -> ([f64; 3], [f64; 3]) {
        let joint = &self.joints[j];
        let (mut f, mut n) = ([0.0; 3], [0.0; 3]);
        let Some(group) = self.joint_group(j) else { return (f, n) };
        let g = &self.groups[group].geometry;
        let pair = self.pair(&state.bodies, &g.pair);
        for k in joint.rows.clone() {
            let l = state.lambda[k];
            // A row with a zero multiplier adds products +-0 to sums that are never -0 (they
            // start at +0, and x - x is +0): it changes no bit, so it is not evaluated (the
            // out-of-plane rows of a planar mechanism's step).
            if l == 0.0 {
                continue;
            }
            let c = &self.constraints[k];
            // The row's d/dr parts per slot and its d/dpi_bar parts (not formed for an axis row
            // without `torque`).
            let (lin, ang) = match c.axis {
                Some(a) if !torque => (a.translation(&pair), [[0.0; 3]; 2]),
                Some(a) => split_row(&a.row(&pair, &g.vectors)),
                None => split_row(&c.term.row(&pair, &g.vectors, values).1),
            };
            match joint.pair[1] {
                Some(_) => {
                    for i in 0..3 {
                        f[i] -= lin[1][i] * l;
                    }
                    if torque {
                        for i in 0..3 {
                            n[i] -= ang[1][i] * l;
                        }
                    }
                }
                None => {
                    for i in 0..3 {
                        f[i] += lin[0][i] * l;
                    }
                }
            }
        }
        if let (Some(b), true) = (joint.pair[1], torque) {
            let g = rotate(&state.bodies[b].rot, &Vector3::from(n));
            n = [g.x, g.y, g.z];
        }
        (f, n)
    }

    /// Value of a quantity that depends on the state alone (not on solver statistics).
    #[inline(always)]
    pub fn quantity(&self, q: Quantity, state: &MechState) -> f64 {
        match self.state_component(q, state) {
            Some(x) => x,
            None => self.computed_quantity(q, state),
        }
    }

    /// The quantities that are components of the state (a load each): inlined into the
    /// callers, so that reading them costs no call into [`Mechanism::computed_quantity`].
    #[inline(always)]
    fn state_component(&self, q: Quantity, state: &MechState) -> Option<f64> {
        let bodies = &state.bodies;
        Some(match q {
            Quantity::BodyPosition { body, axis } => bodies[body].r[axis],
            Quantity::BodyVelocity { body, axis } => bodies[body].v[axis],
            Quantity::BodyAcceleration { body, axis } => bodies[body].acc[axis],
            Quantity::NodePosition { node, axis } => bodies[self.beams.first_node + node].r[axis],
            Quantity::NodeVelocity { node, axis } => bodies[self.beams.first_node + node].v[axis],
            Quantity::NodeAcceleration { node, axis } => bodies[self.beams.first_node + node].acc[axis],
            Quantity::JointAngle { joint } => self.joints[joint].initial_coordinate + state.angles[joint],
            Quantity::DriverEffort { driver } => -state.lambda[self.drivers[driver].row],
            Quantity::ExternalWork => state.work,
            _ => return None,
        })
    }

    /// [`Mechanism::quantity`] of the quantities that are computed from the state.
    fn computed_quantity(&self, q: Quantity, state: &MechState) -> f64 {
        let bodies = &state.bodies;
        match q {
            Quantity::BodyOrientation { body, component } => match &self.attached_axes[body] {
                None => quaternion(&bodies[body].rot)[component],
                Some(axes) => quaternion(&(bodies[body].rot * axes))[component],
            },
            Quantity::PointPosition { point, axis } => self.output_point(point, bodies)[0][axis],
            Quantity::PointVelocity { point, axis } => self.output_point(point, bodies)[1][axis],
            Quantity::PointAcceleration { point, axis } => self.output_point(point, bodies)[2][axis],
            Quantity::BodyAngularVelocity { body, axis } => (bodies[body].rot * bodies[body].w)[axis],
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
            Quantity::NodeAngularVelocity { node, axis } => {
                let s = &bodies[self.beams.first_node + node];
                (s.rot * s.w)[axis]
            }
            Quantity::NodeAngularAcceleration { node, axis } => {
                let s = &bodies[self.beams.first_node + node];
                (s.rot * s.wdot)[axis]
            }
            Quantity::SectionForce { node, axis } => self.node_section(node, bodies)[axis],
            Quantity::SectionMoment { node, axis } => self.node_section(node, bodies)[3 + axis],
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
            | Quantity::CylinderWork { .. }
            | Quantity::MotorSpeed { .. }
            | Quantity::MotorTorque { .. }
            | Quantity::MotorFlow { .. }
            | Quantity::AccumulatorPressure { .. }
            | Quantity::AccumulatorVolume { .. } => self.circuit_quantity(q, state),
            Quantity::BodyPosition { .. }
            | Quantity::BodyVelocity { .. }
            | Quantity::BodyAcceleration { .. }
            | Quantity::NodePosition { .. }
            | Quantity::NodeVelocity { .. }
            | Quantity::NodeAcceleration { .. }
            | Quantity::JointAngle { .. }
            | Quantity::DriverEffort { .. }
            | Quantity::ExternalWork => self.state_component(q, state).expect("a state component"),
            Quantity::KineticEnergy => self.kinetic_energy(bodies),
            Quantity::PotentialEnergy => self.potential_energy(bodies, &state.angles),
            Quantity::TotalEnergy => self.kinetic_energy(bodies) + self.potential_energy(bodies, &state.angles),
            // [Zhang2022, eq. 23]: dE = E - E0 - W.
            Quantity::EnergyBalance => {
                self.kinetic_energy(bodies) + self.potential_energy(bodies, &state.angles) - state.energy0 - state.work
            }
            Quantity::ConstraintViolation => self.constraint_violation(state),
            Quantity::NewtonIterations | Quantity::Steps => f64::NAN,
        }
    }

    /// Position, velocity and acceleration of output point `point` (global): with s the point
    /// in the body frame, r + A s, v + A (w x s) and a + A (w' x s + w x (w x s)), w the
    /// body-frame angular velocity.
    pub fn output_point(&self, point: usize, bodies: &[super::BodyState]) -> [Vector3<f64>; 3] {
        let (body, s) = &self.points[point];
        let b = &bodies[*body];
        let ws = b.w.cross(s);
        [b.r + b.rot * s, b.v + b.rot * ws, b.acc + b.rot * (b.wdot.cross(s) + b.w.cross(&ws))]
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

    /// Rate of a joint coordinate's measure (zero without one).
    fn measure_rate(&self, m: Option<&Measure>, joint: usize, state: &MechState) -> f64 {
        let j = &self.joints[joint];
        m.map_or(0.0, |m| m.rate(&self.pair(&state.bodies, &j.pair)))
    }
}

/// A Jacobian row's d/dr and d/dpi_bar parts, per slot.
#[inline(always)]
fn split_row(row: &Row) -> ([[f64; 3]; 2], [[f64; 3]; 2]) {
    let part = |slot: usize, at: usize| [row[slot][at], row[slot][at + 1], row[slot][at + 2]];
    ([part(0, 0), part(1, 0)], [part(0, 3), part(1, 3)])
}

/// A v for a 3x3 matrix: nalgebra's product (column by column, `gemv`: (a0 v0 + a1 v1) +
/// a2 v2 per row) written out, so that the output kernels inline it; the same bits (the unit
/// test below compares them).
#[inline(always)]
pub(super) fn rotate(a: &Matrix3<f64>, v: &Vector3<f64>) -> Vector3<f64> {
    let row = |i: usize| a[(i, 0)] * v.x + a[(i, 1)] * v.y + a[(i, 2)] * v.z;
    Vector3::new(row(0), row(1), row(2))
}

/// [`Vector::value`] with the same operations, inlined into the output kernels.
#[inline(always)]
pub(super) fn vector_value(v: &Vector, p: &Pair) -> Vector3<f64> {
    match v {
        Vector::Constant(c) => *c,
        Vector::Fixed { slot, local } => p[*slot].map_or(*local, |b| rotate(&b.rot, local)),
        Vector::Between { local1, local2 } => {
            let p2 = p[1].map_or(*local2, |b| b.r + rotate(&b.rot, local2));
            let p1 = p[0].map_or(*local1, |b| b.r + rotate(&b.rot, local1));
            p2 - p1
        }
    }
}

/// Value and rate of a vector: [`Vector::value`] and the rate of [`Vector::evaluate`] with
/// the same operations (so the same bits), without the quadratic term.
#[inline(always)]
fn value_rate(v: &Vector, p: &Pair) -> (Vector3<f64>, Vector3<f64>) {
    let mut rate = Vector3::zeros();
    match v {
        Vector::Constant(_) => {}
        Vector::Fixed { slot, local } => {
            if let Some(b) = p[*slot] {
                rate = rotate(&b.rot, &b.w.cross(local));
            }
        }
        Vector::Between { local1, local2 } => {
            for (slot, local, sign) in [(0usize, local1, -1.0), (1, local2, 1.0)] {
                if let Some(b) = p[slot] {
                    rate += (b.v + rotate(&b.rot, &b.w.cross(local))) * sign;
                }
            }
        }
    }
    (vector_value(v, p), rate)
}

impl Measure {
    /// The rate g' of [`Measure::evaluate`] with the same operations, without the Jacobian
    /// row and the quadratic term (what a joint's rate output needs).
    pub fn rate(&self, p: &Pair) -> f64 {
        let mut v = [(Vector3::zeros(), Vector3::zeros()); 3];
        for (vec, out) in self.vectors().iter().zip(v.iter_mut()) {
            *out = value_rate(vec, p);
        }
        let dot = |a: usize, b: usize| {
            let ((u, u_rate), (w, w_rate)) = (&v[a], &v[b]);
            (u.dot(w), u_rate.dot(w) + u.dot(w_rate))
        };
        match self.term() {
            Term::Dot(a, b) => dot(a, b).1,
            // theta = atan2(s, c): theta' = (c s' - s c')/rho^2.
            Term::Angle { f1, g1, f2 } => {
                let ((s, s_rate), (c, c_rate)) = (dot(g1, f2), dot(f1, f2));
                let rho2 = s * s + c * c;
                (c * s_rate - s * c_rate) / rho2
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written-out product has nalgebra's bits, also for signed zeros, infinities and NaN.
    #[test]
    fn rotate_is_nalgebras_product() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            match state % 16 {
                0 => 0.0,
                1 => -0.0,
                2 => f64::INFINITY,
                3 => 1e-310,
                _ => (state >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0,
            }
        };
        for _ in 0..200_000 {
            let a = Matrix3::from_fn(|_, _| next());
            let v = Vector3::new(next(), next(), next());
            let (ours, theirs) = (rotate(&a, &v), a * v);
            for i in 0..3 {
                assert!(ours[i].to_bits() == theirs[i].to_bits() || (ours[i].is_nan() && theirs[i].is_nan()));
            }
        }
    }
}
