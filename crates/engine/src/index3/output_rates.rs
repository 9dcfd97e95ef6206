//! First and second time derivatives of the output quantities of a mechanism state in
//! absolute coordinates (index-3 and state-space formulations), from the state's positions,
//! velocities and accelerations and the input signals, never by differences in time:
//! positions -> velocities -> accelerations, orientations from the angular velocity and
//! acceleration, joint coordinates from their measures' rates and quadratic terms (the
//! acceleration equation of [Fang2023, eq. 2]: g'' = Phi_q q'' + quad), force-element lengths
//! and forces, energies -> powers. A derivative the state does not determine (a jerk, the
//! rate of a Lagrange multiplier and hence of a reaction, an effort or a friction force, a
//! damped element's force acceleration) is 0, as FMI 3.0 Sect. 4.1.2 prescribes for an order
//! the FMU does not provide.

use super::forces::friction_forces;
use super::geometry::{Measure, Pair, Row};
use super::{BodyState, MechState, Mechanism, OutputScratch};
use crate::elements::Geometry;
use crate::rates::{distance_rates, quaternion_rates, rotation_vector_rates, Rates};
use crate::rotation::log;
use mbfmu_model::format::Quantity;
use nalgebra::Vector3;

/// Position, velocity and acceleration of the body point `local` (global if ground).
pub(super) fn point(bodies: &[BodyState], b: Option<usize>, local: &Vector3<f64>) -> [Vector3<f64>; 3] {
    match b {
        Some(i) => {
            let s = &bodies[i];
            let arm = s.rot * local;
            let w = s.rot * s.w;
            let v = s.v + w.cross(&arm);
            [s.r + arm, v, s.acc + (s.rot * s.wdot).cross(&arm) + w.cross(&w.cross(&arm))]
        }
        None => [*local, Vector3::zeros(), Vector3::zeros()],
    }
}

/// Row times per-body generalized vectors (v, w_bar) or (acc, wdot) of a pair.
fn row_dot(row: &Row, pair: &Pair, acceleration: bool) -> f64 {
    let mut s = 0.0;
    for (part, body) in row.iter().zip(pair) {
        if let Some(b) = body {
            let (lin, ang) = if acceleration { (&b.acc, &b.wdot) } else { (&b.v, &b.w) };
            for k in 0..3 {
                s += part[k] * lin[k] + part[3 + k] * ang[k];
            }
        }
    }
    s
}

/// Kinetic and potential energy and the power of the non-conservative loads, with their
/// derivatives where the state determines them.
#[derive(Clone, Copy, Debug, Default)]
struct EnergyRates {
    kinetic: f64,
    potential: Rates,
    power: f64,
}

impl Mechanism {
    /// Rate and acceleration of a joint or element measure ([Fang2023, eq. 2] with the measure's
    /// quadratic term).
    fn measure_rates(&self, m: Option<&Measure>, pair: &[Option<usize>; 2], bodies: &[BodyState]) -> Rates {
        let Some(m) = m else { return [0.0; 2] };
        let pair = self.pair(bodies, pair);
        let e = m.evaluate(&pair);
        [e.rate, row_dot(&e.row, &pair, true) + e.quad]
    }

    /// Measure of force element `f` with its first and second derivatives (a line's length,
    /// a joint's angle, a point's position along the force; a torque's rotation rate).
    fn element_length_rates(&self, f: usize, state: &MechState) -> (f64, Rates) {
        let bodies = &state.bodies;
        let e = &self.forces[f];
        match &e.geometry {
            Geometry::Line { ends } => {
                let [p1, v1, a1] = point(bodies, ends[0].0, &ends[0].1);
                let [p2, v2, a2] = point(bodies, ends[1].0, &ends[1].1);
                let (l, rate, accel) = distance_rates(&(p2 - p1), &(v2 - v1), &(a2 - a1));
                (l, [rate, accel])
            }
            Geometry::JointRotation { joint } => {
                let j = &self.joints[*joint];
                let theta = self.element_length(f, bodies, &state.angles).0;
                (theta, self.measure_rates(j.angle.as_ref(), &j.pair, bodies))
            }
            Geometry::Point { at, direction } => {
                let [p, v, a] = point(bodies, at.0, &at.1);
                (direction.dot(&p), [direction.dot(&v), direction.dot(&a)])
            }
            Geometry::Torque { body, axis } => {
                let s = &bodies[*body];
                let w = s.rot * s.w;
                (0.0, [axis.dot(&w), axis.dot(&(s.rot * s.wdot))])
            }
        }
    }

    /// First and second derivative of the input of an element at `t` (0 without input).
    fn input_rates(&self, input: Option<usize>, t: f64) -> Rates {
        input.map_or([0.0; 2], |i| [self.inputs.rate(i, t), self.inputs.curvature(i)])
    }

    /// Derivatives of [`Mechanism::element_force`] from the measure's rates and the input's.
    fn element_force_rates(&self, f: usize, state: &MechState) -> Rates {
        let e = &self.forces[f];
        let (x, [rate, accel]) = self.element_length_rates(f, state);
        e.law.force_rates(x, rate, accel, self.input_rates(e.input, state.t))
    }

    /// Derivatives of the section forces and moments at a beam node (the mean over the
    /// adjacent elements): C eps' for undamped elements; a damped section force needs the
    /// strain acceleration, which is not formed (0).
    fn node_section_rates(&self, node: usize, bodies: &[BodyState]) -> [f64; 6] {
        let adjacent = &self.beams.adjacent[node];
        let count = adjacent.iter().flatten().count() as f64;
        let mut out = [0.0; 6];
        for &e in adjacent.iter().flatten() {
            let element = &self.beams.elements[e];
            if element.damping != 0.0 {
                return [0.0; 6];
            }
            let s = element.section(bodies);
            for (i, o) in out.iter_mut().enumerate() {
                *o += element.stiffness[i] * s.rate[i] / count;
            }
        }
        out
    }

    /// dT/dt, the potential energy's first and second derivative (the second needs the
    /// strain accelerations with beams: 0 then) and the power of the non-conservative loads
    /// (the integrand of [`Mechanism::work_increment`] at the state).
    fn energy_rates(&self, state: &MechState, friction: &[f64]) -> EnergyRates {
        let (t, bodies) = (state.t, &state.bodies);
        let mut kinetic: f64 = self
            .bodies
            .iter()
            .zip(bodies)
            .map(|(p, s)| {
                let e = p.mass * s.v.dot(&s.acc) + s.w.dot(&(p.inertia * s.wdot));
                // d/dt of v . A (w~ s) (Mechanism::kinetic_energy).
                match &p.static_moment {
                    Some(sm) => {
                        let ws = s.w.cross(sm);
                        e + s.acc.dot(&(s.rot * ws)) + s.v.dot(&(s.rot * (s.wdot.cross(sm) + s.w.cross(&ws))))
                    }
                    None => e,
                }
            })
            .sum();
        for e in self.beams.elements.iter().filter(|e| e.mass_coupling > 0.0) {
            let (a, b) = (&bodies[e.nodes[0]], &bodies[e.nodes[1]]);
            kinetic -= e.mass_coupling * (a.v - b.v).dot(&(a.acc - b.acc));
        }
        let mut potential = [0.0; 2];
        for (p, s) in self.bodies.iter().zip(bodies) {
            potential[0] -= p.mass * self.gravity.dot(&s.v);
            potential[1] -= p.mass * self.gravity.dot(&s.acc);
            // -g . A s: its rates -g . A (w~ s) and -g . A (w'~ s + w~ w~ s).
            if let Some(sm) = &p.static_moment {
                let ws = s.w.cross(sm);
                potential[0] -= self.gravity.dot(&(s.rot * ws));
                potential[1] -= self.gravity.dot(&(s.rot * (s.wdot.cross(sm) + s.w.cross(&ws))));
            }
        }
        let mut power = 0.0;
        for (f, element) in self.forces.iter().enumerate() {
            let (x, [rate, accel]) = self.element_length_rates(f, state);
            if element.law.stores_energy() {
                let [first, second] = element.law.energy_rates(x, rate, accel);
                potential[0] += first;
                potential[1] += second;
            }
            let u = element.input.map_or(0.0, |i| self.inputs.at(i, t));
            power += element.law.power(x, rate, u);
        }
        for e in &self.beams.elements {
            let s = e.section(bodies);
            potential[0] += e.length * (0..6).map(|i| e.stiffness[i] * s.strain[i] * s.rate[i]).sum::<f64>();
            power -= e.dissipation(bodies);
        }
        for (j, &f) in self.joints.iter().zip(friction) {
            if f != 0.0 {
                power += f * self.measure_rates(j.slide.as_ref(), &j.pair, bodies)[0];
            }
        }
        for (d, driver) in self.drivers.iter().enumerate() {
            power -= state.lambda[driver.row] * self.driver_motion(d, t, state).df;
        }
        // The cylinders push with F_s(p, s') along their lines ([Jaiswal2021, eq. 29]), the
        // motors turn their joints.
        power += self.actuator_power(state);
        if !self.beams.elements.is_empty() {
            potential[1] = 0.0;
        }
        EnergyRates { kinetic, potential, power }
    }

    /// First and second derivative of quantity `q` at `state`, except the energies and
    /// powers (`mechanism_quantity_rates` forms those once for all outputs).
    pub fn quantity_rates(&self, q: Quantity, state: &MechState) -> Rates {
        let bodies = &state.bodies;
        let node = |n: usize| &bodies[self.beams.first_node + n];
        match q {
            Quantity::BodyPosition { body, axis } => [bodies[body].v[axis], bodies[body].acc[axis]],
            Quantity::PointPosition { point, axis } => {
                let [_, v, a] = self.output_point(point, bodies);
                [v[axis], a[axis]]
            }
            Quantity::PointVelocity { point, axis } => [self.output_point(point, bodies)[2][axis], 0.0],
            Quantity::NodePosition { node: n, axis } | Quantity::NodeDisplacement { node: n, axis } => {
                [node(n).v[axis], node(n).acc[axis]]
            }
            Quantity::BodyOrientation { body, component } => {
                let s = &bodies[body];
                let (d, dd) = match &self.attached_axes[body] {
                    None => quaternion_rates(&s.rot, &s.w, &s.wdot),
                    // The attached body's axes A R turn with w_bar in the node's frame: R^T w_bar
                    // in the body's.
                    Some(r) => quaternion_rates(&(s.rot * r), &(r.transpose() * s.w), &(r.transpose() * s.wdot)),
                };
                [d[component], dd[component]]
            }
            Quantity::NodeOrientation { node: n, component } => {
                let s = node(n);
                let (d, dd) = quaternion_rates(&s.rot, &s.w, &s.wdot);
                [d[component], dd[component]]
            }
            Quantity::NodeRotation { node: n, axis } => {
                let (s, s0) = (node(n), &self.initial.bodies[self.beams.first_node + n]);
                let psi = log(&(s.rot * s0.rot.transpose()));
                let (d, dd) = rotation_vector_rates(&psi, &(s.rot * s.w), &(s.rot * s.wdot));
                [d[axis], dd[axis]]
            }
            // A' w = A w~ w = 0: the global angular velocity's rate is A w'.
            Quantity::BodyVelocity { body, axis } => [bodies[body].acc[axis], 0.0],
            Quantity::BodyAngularVelocity { body, axis } => [(bodies[body].rot * bodies[body].wdot)[axis], 0.0],
            Quantity::NodeVelocity { node: n, axis } => [node(n).acc[axis], 0.0],
            Quantity::NodeAngularVelocity { node: n, axis } => [(node(n).rot * node(n).wdot)[axis], 0.0],
            Quantity::SectionForce { node: n, axis } => [self.node_section_rates(n, bodies)[axis], 0.0],
            Quantity::SectionMoment { node: n, axis } => [self.node_section_rates(n, bodies)[3 + axis], 0.0],
            Quantity::JointAngle { joint } | Quantity::JointPosition { joint } => {
                let j = &self.joints[joint];
                let m = if matches!(q, Quantity::JointAngle { .. }) { j.angle.as_ref() } else { j.slide.as_ref() };
                self.measure_rates(m, &j.pair, bodies)
            }
            Quantity::JointAngleRate { joint } | Quantity::JointVelocity { joint } => {
                let j = &self.joints[joint];
                let m = if matches!(q, Quantity::JointAngleRate { .. }) { j.angle.as_ref() } else { j.slide.as_ref() };
                [self.measure_rates(m, &j.pair, bodies)[1], 0.0]
            }
            Quantity::DriverPrescribed { driver } => {
                let m = self.driver_motion(driver, state.t, state);
                [m.df, m.ddf]
            }
            Quantity::ForceLength { force } => self.element_length_rates(force, state).1,
            Quantity::ForceRate { force } => [self.element_length_rates(force, state).1[1], 0.0],
            Quantity::ForceValue { force } => self.element_force_rates(force, state),
            // Accelerations (a jerk), multipliers and what they give (reactions, efforts,
            // friction), solver health; the circuit's quantities are formed apart
            // ([`Mechanism::circuit_quantity_rates`]).
            _ => [0.0; 2],
        }
    }
}

/// [`Mechanism::quantity_rates`] of each of `quantities` into `first` and `second`, with the
/// energies and powers formed once per call.
pub(crate) fn mechanism_quantity_rates(
    m: &Mechanism,
    state: &MechState,
    quantities: &[Quantity],
    first: &mut [f64],
    second: &mut [f64],
    scratch: &mut OutputScratch,
) {
    let mut energies: Option<EnergyRates> = None;
    scratch.circuit.formed = false;
    for ((q, a), b) in quantities.iter().zip(first.iter_mut()).zip(second.iter_mut()) {
        let mut energy = || {
            *energies.get_or_insert_with(|| {
                friction_forces(m, state, &mut scratch.friction);
                m.energy_rates(state, &scratch.friction)
            })
        };
        [*a, *b] = match q {
            Quantity::KineticEnergy => [energy().kinetic, 0.0],
            Quantity::PotentialEnergy => energy().potential,
            Quantity::TotalEnergy => {
                let e = energy();
                [e.kinetic + e.potential[0], 0.0]
            }
            Quantity::ExternalWork => [energy().power, 0.0],
            // [Zhang2022, eq. 23]: dE = E - E0 - W.
            Quantity::EnergyBalance => {
                let e = energy();
                [e.kinetic + e.potential[0] - e.power, 0.0]
            }
            q if q.of_circuit() => m.circuit_quantity_rates(*q, state, &mut scratch.circuit),
            q => m.quantity_rates(*q, state),
        };
    }
}
