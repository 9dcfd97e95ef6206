//! First and second time derivatives of the output quantities of a semirecursive model
//! (`Formulation::quantity_rates`), from the state: the relative coordinates' rates and
//! accelerations through the tree kinematics ([Jaiswal2021, eqs. 2-3]), the pressure rates from
//! the circuit equations at the current pressures, spools and strokes ([Jaiswal2021, eqs. 22-29]),
//! the spool law (eq. 27), the cylinder force's rate from the pressure rates and the
//! piston's acceleration (eqs. 28-29 with the seal friction's slope), a boundary node's flow
//! from the spool and pressure rates (eqs. 24, 26-27), energies -> powers.
//! The pressures' second derivatives would need the circuit's Jacobians along the state's
//! rates and are not formed; derivatives the state does not determine (a jerk, a damped
//! element's force acceleration) are 0 (FMI 3.0 Sect. 4.1.2).

use super::cuts::point_kin;
use super::kinematics::BodyKin;
use super::tree::{BodyPoint, JointRole};
use super::Semirecursive;
use crate::elements::Geometry;
use crate::hydraulics::Attachment;
use crate::rates::{distance_rates, quaternion_rates, Rates};
use mbfmu_model::format::Quantity;
use nalgebra::Vector3;

/// Position, velocity and acceleration of a body point.
fn point(kin: &[BodyKin], end: &BodyPoint) -> [Vector3<f64>; 3] {
    let p = point_kin(kin, end);
    let a = end.0.map_or(Vector3::zeros(), |k| kin[k].acceleration_at(&p.p, &p.v));
    [p.p, p.v, a]
}

/// Angular velocity and acceleration of a tree body (zero for ground).
fn spin(kin: &[BodyKin], body: Option<usize>) -> [Vector3<f64>; 2] {
    body.map_or([Vector3::zeros(); 2], |k| [kin[k].omega(), kin[k].acc.fixed_rows::<3>(3).into()])
}

/// Centre-of-mass velocity and acceleration of a tree body.
fn com(k: &BodyKin) -> [Vector3<f64>; 2] {
    [k.com_velocity(), k.com_acceleration()]
}

/// Body-frame angular velocity and acceleration of a tree body (as the absolute view has them).
fn body_spin(k: &BodyKin) -> (Vector3<f64>, Vector3<f64>) {
    let rt = k.rot.transpose();
    (rt * k.omega(), rt * Vector3::from(k.acc.fixed_rows::<3>(3)))
}

/// Scratch of the pressure rates, kept by the formulation.
#[derive(Clone, Debug, Default)]
pub(super) struct RateScratch {
    pressure_rates: Vec<f64>,
    forces: Vec<f64>,
    inputs: Vec<f64>,
    spool_rates: Vec<f64>,
}

impl Semirecursive {
    /// Rate and acceleration of joint `ji`'s rotation (revolute) or slide (translational).
    fn joint_rates(&self, ji: usize, rotation: bool) -> Rates {
        let (st, kin) = (&self.state, &self.kin);
        match self.tree.roles[ji] {
            JointRole::Tree { body } => [st.zd[body], st.zdd[body]],
            JointRole::Cut { cut } => {
                let c = &self.tree.cut_joints[cut];
                let rot0 = c.pair[0].map_or(nalgebra::Matrix3::identity(), |k| kin[k].rot);
                let [w0, a0] = spin(kin, c.pair[0]);
                let [w1, a1] = spin(kin, c.pair[1]);
                let u = rot0 * c.axis1;
                let u_rate = w0.cross(&u);
                if rotation {
                    // theta' = u . (w1 - w0).
                    [u.dot(&(w1 - w0)), u_rate.dot(&(w1 - w0)) + u.dot(&(a1 - a0))]
                } else {
                    // s = u . d, d = P2 - P1.
                    let [p1, v1, acc1] = point(kin, &(c.pair[0], c.points[0]));
                    let [p2, v2, acc2] = point(kin, &(c.pair[1], c.points[1]));
                    let (d, dd, ddd) = (p2 - p1, v2 - v1, acc2 - acc1);
                    let u_accel = a0.cross(&u) + w0.cross(&u_rate);
                    [u_rate.dot(&d) + u.dot(&dd), u_accel.dot(&d) + 2.0 * u_rate.dot(&dd) + u.dot(&ddd)]
                }
            }
        }
    }

    /// Measure of force element `f` (length, angle, position along the force; a torque's
    /// rotation rate) with its rate and acceleration.
    fn element_rates(&self, f: usize) -> (f64, Rates) {
        match &self.tree.elements[f].geometry {
            Geometry::Line { ends } => {
                let [p1, v1, a1] = point(&self.kin, &ends[0]);
                let [p2, v2, a2] = point(&self.kin, &ends[1]);
                let (l, rate, accel) = distance_rates(&(p2 - p1), &(v2 - v1), &(a2 - a1));
                (l, [rate, accel])
            }
            Geometry::JointRotation { joint } => {
                let theta = self.tree.joint_rotation(*joint, &self.state.z, &self.state.zd, &self.kin).0;
                (theta, self.joint_rates(*joint, true))
            }
            Geometry::Point { at, direction } => {
                let [p, v, a] = point(&self.kin, at);
                (direction.dot(&p), [direction.dot(&v), direction.dot(&a)])
            }
            Geometry::Torque { body, axis } => {
                let [w, a] = spin(&self.kin, Some(*body));
                (0.0, [axis.dot(&w), axis.dot(&a)])
            }
        }
    }

    fn input_rates(&self, input: Option<usize>) -> Rates {
        input.map_or([0.0; 2], |i| [self.inputs.rate(i, self.state.t), self.inputs.curvature(i)])
    }

    /// Derivatives of the force of element `f` from its measure's rates and its input's.
    fn element_force_rates(&self, f: usize) -> Rates {
        let e = &self.tree.elements[f];
        let (x, [rate, accel]) = self.element_rates(f);
        e.law.force_rates(x, rate, accel, self.input_rates(e.input))
    }

    /// Length and velocity of cylinder `c` with their derivatives: the line between its ends,
    /// or the input signals of a cylinder fed by inputs.
    fn cylinder_rates(&self, c: usize) -> (Rates, Rates) {
        if let Some(ends) = &self.tree.cylinder_ends[c] {
            let [p1, v1, a1] = point(&self.kin, &ends[0]);
            let [p2, v2, a2] = point(&self.kin, &ends[1]);
            let (_, rate, accel) = distance_rates(&(p2 - p1), &(v2 - v1), &(a2 - a1));
            return ([rate, accel], [accel, 0.0]);
        }
        let circuit = self.tree.circuit.as_ref().expect("cylinders belong to a circuit");
        let Attachment::Inputs { length, velocity } = circuit.cylinders[c].attachment else {
            return ([0.0; 2], [0.0; 2]);
        };
        let (t, u) = (self.state.t, &self.inputs);
        let v = [u.rate(velocity, t), u.curvature(velocity)];
        // The length is its own signal, or extrapolated with the velocity input.
        let l = if u.is_held(length) { [u.at(velocity, t), v[0]] } else { [u.rate(length, t), u.curvature(length)] };
        (l, v)
    }

    /// Pressure rates of the circuit equations and the rates of the cylinder forces.
    fn circuit_rates(&self, scratch: &mut RateScratch) {
        let Some(circuit) = &self.tree.circuit else { return };
        let st = &self.state;
        scratch.pressure_rates.resize(circuit.n_pressures(), 0.0);
        scratch.forces.resize(circuit.n_actuators(), 0.0);
        scratch.inputs.resize(self.inputs.len(), 0.0);
        self.inputs.values_at(st.t, &mut scratch.inputs);
        let (rates, forces) = (&mut scratch.pressure_rates, &mut scratch.forces);
        if circuit.evaluate(st.t, &st.p, &st.spools, &self.strokes, &scratch.inputs, rates, forces).is_err() {
            scratch.pressure_rates.fill(0.0);
        }
        scratch.spool_rates.resize(circuit.n_spools(), 0.0);
        for (k, r) in scratch.spool_rates.iter_mut().enumerate() {
            *r = circuit.spool_rates(k, st.spools[k], st.t, &self.inputs)[0];
        }
        for (c, (cylinder, f)) in circuit.cylinders.iter().zip(scratch.forces.iter_mut()).enumerate() {
            let (_, velocity) = self.cylinder_rates(c);
            let pd = &scratch.pressure_rates;
            *f = cylinder.force_rate(
                pd[cylinder.piston_side],
                pd[cylinder.rod_side],
                self.strokes[c].velocity,
                velocity[0],
            );
        }
    }

    /// dT/dt and the potential energy's first and second derivatives.
    fn energy_rates(&self) -> (f64, Rates) {
        let mut kinetic = 0.0;
        let mut potential = [0.0; 2];
        for (b, k) in self.tree.bodies.iter().zip(&self.kin) {
            let [v, a] = com(k);
            let (w, wdot) = body_spin(k);
            kinetic += b.mass * v.dot(&a) + w.dot(&(b.inertia * wdot));
            potential[0] -= b.mass * self.tree.gravity.dot(&v);
            potential[1] -= b.mass * self.tree.gravity.dot(&a);
        }
        for (f, e) in self.tree.elements.iter().enumerate() {
            if e.law.stores_energy() {
                let (x, [rate, accel]) = self.element_rates(f);
                let [first, second] = e.law.energy_rates(x, rate, accel);
                potential[0] += first;
                potential[1] += second;
            }
        }
        (kinetic, potential)
    }

    /// First and second derivatives of `quantities` into `first` and `second`.
    pub(super) fn quantity_rates_into(
        &self,
        quantities: &[Quantity],
        first: &mut [f64],
        second: &mut [f64],
        scratch: &mut RateScratch,
    ) {
        let st = &self.state;
        let mut circuit = false;
        let mut energies: Option<(f64, Rates)> = None;
        for ((q, a), b) in quantities.iter().zip(first.iter_mut()).zip(second.iter_mut()) {
            let body = |d: usize| &self.kin[self.tree.tree_index[d]];
            [*a, *b] = match *q {
                Quantity::BodyPosition { body: d, axis } => {
                    let [v, acc] = com(body(d));
                    [v[axis], acc[axis]]
                }
                Quantity::BodyOrientation { body: d, component } => {
                    let (w, wdot) = body_spin(body(d));
                    let (d1, d2) = quaternion_rates(&body(d).rot, &w, &wdot);
                    [d1[component], d2[component]]
                }
                Quantity::BodyVelocity { body: d, axis } => [com(body(d))[1][axis], 0.0],
                Quantity::PointPosition { point, axis } => {
                    let [_, v, a] = self.output_point(point);
                    [v[axis], a[axis]]
                }
                Quantity::PointVelocity { point, axis } => [self.output_point(point)[2][axis], 0.0],
                Quantity::BodyAngularVelocity { body: d, axis } => [body(d).acc[3 + axis], 0.0],
                Quantity::JointAngle { joint } => self.joint_rates(joint, true),
                Quantity::JointPosition { joint } => self.joint_rates(joint, false),
                Quantity::JointAngleRate { joint } => [self.joint_rates(joint, true)[1], 0.0],
                Quantity::JointVelocity { joint } => [self.joint_rates(joint, false)[1], 0.0],
                Quantity::ForceLength { force } => self.element_rates(force).1,
                Quantity::ForceRate { force } => [self.element_rates(force).1[1], 0.0],
                Quantity::ForceValue { force } => self.element_force_rates(force),
                Quantity::VolumePressure { volume } => {
                    if !circuit {
                        self.circuit_rates(scratch);
                        circuit = true;
                    }
                    [scratch.pressure_rates[volume], 0.0]
                }
                // The flow into a boundary node from the spools' and pressures' rates.
                Quantity::SourceFlow { source } => {
                    if !circuit {
                        self.circuit_rates(scratch);
                        circuit = true;
                    }
                    let c = self.tree.circuit.as_ref().expect("sources belong to a circuit");
                    let (t, u) = (st.t, &self.inputs);
                    let rate = c.source_flow_rate(
                        source,
                        t,
                        &st.p,
                        &scratch.pressure_rates,
                        &st.spools,
                        &scratch.spool_rates,
                        &|i| u.at(i, t),
                        &|i| u.rate(i, t),
                    );
                    [rate, 0.0]
                }
                Quantity::CylinderForce { cylinder } => {
                    if !circuit {
                        self.circuit_rates(scratch);
                        circuit = true;
                    }
                    [scratch.forces[cylinder], 0.0]
                }
                Quantity::ValveSpool { valve } => self.spool(valve).map_or([0.0; 2], |k| {
                    let c = self.tree.circuit.as_ref().expect("valves belong to a circuit");
                    c.spool_rates(k, st.spools[k], st.t, &self.inputs)
                }),
                Quantity::ValveReference { valve } => self.spool(valve).map_or([0.0; 2], |k| {
                    let c = self.tree.circuit.as_ref().expect("valves belong to a circuit");
                    c.reference_rates(k, st.t, &self.inputs)
                }),
                Quantity::CylinderLength { cylinder } => self.cylinder_rates(cylinder).0,
                Quantity::CylinderVelocity { cylinder } => self.cylinder_rates(cylinder).1,
                // W = int F v dt: the cylinder's power and its rate.
                Quantity::CylinderWork { cylinder } => {
                    if !circuit {
                        self.circuit_rates(scratch);
                        circuit = true;
                    }
                    let (force, stroke) = (self.forces[cylinder], self.strokes[cylinder]);
                    let accel = self.cylinder_rates(cylinder).1[0];
                    [force * stroke.velocity, scratch.forces[cylinder] * stroke.velocity + force * accel]
                }
                Quantity::KineticEnergy => [energies.get_or_insert_with(|| self.energy_rates()).0, 0.0],
                Quantity::PotentialEnergy => energies.get_or_insert_with(|| self.energy_rates()).1,
                Quantity::TotalEnergy => {
                    let (k, p) = *energies.get_or_insert_with(|| self.energy_rates());
                    [k + p[0], 0.0]
                }
                // The power of the non-conservative forces and cylinders, which the step
                // integrates into the work by the trapezoidal rule.
                Quantity::ExternalWork => [self.power, 0.0],
                Quantity::EnergyBalance => {
                    let (k, p) = *energies.get_or_insert_with(|| self.energy_rates());
                    [k + p[0] - self.power, 0.0]
                }
                _ => [0.0; 2],
            };
        }
    }
}
