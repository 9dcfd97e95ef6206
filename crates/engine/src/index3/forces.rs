//! Applied forces as per-body generalized forces [f (global), n_bar (body frame)], the
//! right-hand sides f and tau_bar of [Fang2023, eq. 2], plus energies and work.
//!
//! Coulomb friction in translational joints follows [Fang2023, Sect. 3.4]: magnitude mu |N|
//! with N the joint's reaction normal to the axis from the previous step's multipliers,
//! opposing the sliding velocity, evaluated explicitly and held over the step.

use super::{BodyState, ForceElement, MechState, Mechanism};
use crate::rotation::{exp, skew};
use mbfmu_model::format::JointKind;
use nalgebra::{Matrix3, Vector3};

/// Generalized force of one body: [f_x, f_y, f_z (global), n_x, n_y, n_z (body frame)].
pub type Wrench = [f64; 6];

fn add(w: &mut Wrench, f: &Vector3<f64>, n: &Vector3<f64>) {
    for k in 0..3 {
        w[k] += f[k];
        w[3 + k] += n[k];
    }
}

/// A force `f` (global) at body point `local` of body `b` as a generalized force.
pub(super) fn point_load(bodies: &[BodyState], b: usize, local: &Vector3<f64>, f: &Vector3<f64>, out: &mut [Wrench]) {
    let n = local.cross(&(bodies[b].rot.transpose() * f));
    add(&mut out[b], f, &n);
}

pub(super) fn point(bodies: &[BodyState], b: Option<usize>, local: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    match b {
        Some(i) => {
            let s = &bodies[i];
            (s.r + s.rot * local, s.v + s.rot * s.w.cross(local))
        }
        None => (*local, Vector3::zeros()),
    }
}

/// Per-element Jacobians of the generalized forces: d Q / d(dr, dpi_bar) and d Q / d(v, w_bar)
/// for the (up to) two bodies of the element, 12 x 12, row-major [slot*6 + i][slot*6 + j].
#[derive(Clone, Debug)]
pub struct ElementJacobian {
    pub bodies: [Option<usize>; 2],
    pub stiffness: [[f64; 12]; 12],
    pub damping: [[f64; 12]; 12],
    /// Translational mass coupling c of a beam element with consistent mass: the element
    /// adds c [-I I; I -I] to the lumped node masses (0 for force elements).
    pub mass_coupling: f64,
}

/// Scratch arrays of [`Mechanism::force_jacobians`], kept by the caller across steps.
#[derive(Clone, Debug, Default)]
pub struct JacobianWork {
    scratch: Vec<BodyState>,
    plus: Vec<Wrench>,
    minus: Vec<Wrench>,
}

impl JacobianWork {
    pub fn new(bodies: &[BodyState]) -> Self {
        JacobianWork {
            scratch: bodies.to_vec(),
            plus: vec![[0.0; 6]; bodies.len()],
            minus: vec![[0.0; 6]; bodies.len()],
        }
    }
}

/// Friction force of each joint (0 for joints without friction), along the joint axis on
/// body2, from the multipliers and velocities of `base`.
pub fn friction_forces(m: &Mechanism, base: &MechState, out: &mut Vec<f64>) {
    out.clear();
    for j in &m.joints {
        let Some(fr) = &j.friction else {
            out.push(0.0);
            continue;
        };
        debug_assert_eq!(j.kind, JointKind::Translational);
        let bodies = &base.bodies;
        let axis = match j.pair[0] {
            Some(b) => bodies[b].rot * j.axis1,
            None => j.axis1,
        };
        // Reaction on body2: -Phi_r^T lambda over the joint's rows (previous step).
        let mut reaction = Vector3::zeros();
        // The force on either body gives the same normal magnitude (action = reaction).
        let slot = if j.pair[1].is_some() { 1 } else { 0 };
        for k in j.rows.clone() {
            let row = m.row_jacobian(k, bodies);
            for i in 0..3 {
                reaction[i] -= row[slot][i] * base.lambda[k];
            }
        }
        let normal = (reaction - axis * axis.dot(&reaction)).norm();
        let (_, v2) = point(bodies, j.pair[1], &j.points[1]);
        let (_, v1) = point(bodies, j.pair[0], &j.points[0]);
        let slip = axis.dot(&(v2 - v1));
        out.push(if slip.abs() < fr.zero_speed { 0.0 } else { -fr.coefficient * normal * slip.signum() });
    }
}

impl Mechanism {
    /// Magnitude added by an element's input at time `t`.
    fn input_value(&self, input: Option<usize>, t: f64) -> f64 {
        input.map_or(0.0, |i| self.inputs.at(i, t))
    }

    /// Generalized force of one element at time `t` on `bodies`; `angles` are the joints'
    /// unwrapped reference angles (for RSDA springs).
    fn element_load(&self, e: &ForceElement, t: f64, bodies: &[BodyState], angles: &[f64], out: &mut [Wrench]) {
        match e {
            ForceElement::Tsda { pair, points, stiffness, damping, rest_length, actuator, input, sign, .. } => {
                let (p1, v1) = point(bodies, pair[0], &points[0]);
                let (p2, v2) = point(bodies, pair[1], &points[1]);
                let d = p2 - p1;
                let l = d.norm();
                if l < 1e-12 {
                    return;
                }
                let u = d / l;
                let tension = stiffness * (l - rest_length)
                    + damping * u.dot(&(v2 - v1))
                    + sign * (actuator + self.input_value(*input, t));
                if let Some(b) = pair[1] {
                    point_load(bodies, b, &points[1], &(-u * tension), out);
                }
                if let Some(b) = pair[0] {
                    point_load(bodies, b, &points[0], &(u * tension), out);
                }
            }
            ForceElement::Rsda { joint, stiffness, damping, rest_angle, actuator, input, .. } => {
                let j = &self.joints[*joint];
                let Some(measure) = &j.angle else { return };
                let e = measure.evaluate(&self.pair(bodies, &j.pair));
                let theta = j.initial_coordinate + self.joint_angle(*joint, bodies, angles[*joint]);
                let torque =
                    -(stiffness * (theta - rest_angle) + damping * e.rate) + actuator + self.input_value(*input, t);
                // Virtual work torque * dtheta: the generalized force is row^T torque.
                for (row, b) in e.row.iter().zip(j.pair) {
                    if let Some(b) = b {
                        for (o, r) in out[b].iter_mut().zip(row) {
                            *o += r * torque;
                        }
                    }
                }
            }
            ForceElement::PointForce { body, point: local, direction, value, input, .. } => {
                let f = direction * (value + self.input_value(*input, t));
                point_load(bodies, *body, local, &f, out);
            }
            ForceElement::Torque { body, axis, value, input, .. } => {
                let n = axis * (value + self.input_value(*input, t));
                add(&mut out[*body], &Vector3::zeros(), &(bodies[*body].rot.transpose() * n));
            }
        }
    }

    /// Applied generalized forces at time `t` and `bodies`: gravity, force elements (inputs
    /// evaluated at `t`) and the explicit friction forces `friction` (from [`friction_forces`]
    /// at the step's start).
    pub fn applied_forces(&self, t: f64, bodies: &[BodyState], angles: &[f64], friction: &[f64], out: &mut [Wrench]) {
        for (w, b) in out.iter_mut().zip(&self.bodies) {
            *w = [0.0; 6];
            for (wk, g) in w.iter_mut().zip(self.gravity.iter()) {
                *wk = b.mass * g;
            }
        }
        for e in &self.forces {
            self.element_load(e, t, bodies, angles, out);
        }
        for e in &self.beams.elements {
            e.add_loads(bodies, out);
        }
        for (j, &f) in self.joints.iter().zip(friction) {
            if f == 0.0 {
                continue;
            }
            let axis = match j.pair[0] {
                Some(b) => bodies[b].rot * j.axis1,
                None => j.axis1,
            };
            let (p2, _) = point(bodies, j.pair[1], &j.points[1]);
            if let Some(b) = j.pair[1] {
                point_load(bodies, b, &j.points[1], &(axis * f), out);
            }
            if let Some(b) = j.pair[0] {
                let local = bodies[b].rot.transpose() * (p2 - bodies[b].r);
                point_load(bodies, b, &local, &(-axis * f), out);
            }
        }
    }

    /// Finite-difference Jacobians of every force element (numerical tangent, as in \[Jaiswal2021\]
    /// eqs. 40-41): central differences in the body coordinates, perturbation 1e-7; then one
    /// per beam element ([`super::beam::BeamElement::jacobian`]), in [`Self::element_pairs`] order.
    pub fn force_jacobians(
        &self,
        t: f64,
        bodies: &[BodyState],
        angles: &[f64],
        work: &mut JacobianWork,
        out: &mut Vec<ElementJacobian>,
    ) {
        out.clear();
        let eps = 1e-7;
        let JacobianWork { scratch, plus, minus } = work;
        scratch.clone_from_slice(bodies);
        plus.resize(bodies.len(), [0.0; 6]);
        minus.resize(bodies.len(), [0.0; 6]);
        for e in &self.forces {
            let pair = match e {
                ForceElement::Tsda { pair, .. } => *pair,
                ForceElement::Rsda { joint, .. } => self.joints[*joint].pair,
                ForceElement::PointForce { body, .. } | ForceElement::Torque { body, .. } => [Some(*body), None],
            };
            let mut jac = ElementJacobian {
                bodies: pair,
                stiffness: [[0.0; 12]; 12],
                damping: [[0.0; 12]; 12],
                mass_coupling: 0.0,
            };
            for (slot, b) in pair.iter().enumerate() {
                let Some(b) = *b else { continue };
                for coord in 0..12 {
                    for (sign, load) in [(1.0, &mut *plus), (-1.0, &mut *minus)] {
                        scratch[b] = bodies[b].clone();
                        let s = &mut scratch[b];
                        let k = coord % 3;
                        match coord / 3 {
                            0 => s.r[k] += sign * eps,
                            1 => s.rot = bodies[b].rot * exp(&Vector3::ith(k, sign * eps)),
                            2 => s.v[k] += sign * eps,
                            _ => s.w[k] += sign * eps,
                        }
                        for w in load.iter_mut() {
                            *w = [0.0; 6];
                        }
                        self.element_load(e, t, scratch, angles, load);
                    }
                    scratch[b] = bodies[b].clone();
                    let column = slot * 6 + coord % 6;
                    let target = if coord < 6 { &mut jac.stiffness } else { &mut jac.damping };
                    for (rs, rb) in pair.iter().enumerate() {
                        let Some(rb) = *rb else { continue };
                        for i in 0..6 {
                            target[rs * 6 + i][column] = (plus[rb][i] - minus[rb][i]) / (2.0 * eps);
                        }
                    }
                }
            }
            out.push(jac);
        }
        out.extend(self.beams.elements.iter().map(|e| e.jacobian(bodies)));
    }

    /// The bodies each element Jacobian couples: force elements, then beam elements.
    pub fn element_pairs(&self) -> impl Iterator<Item = [Option<usize>; 2]> + '_ {
        self.forces
            .iter()
            .map(|e| match e {
                ForceElement::Tsda { pair, .. } => *pair,
                ForceElement::Rsda { joint, .. } => self.joints[*joint].pair,
                ForceElement::PointForce { body, .. } | ForceElement::Torque { body, .. } => [Some(*body), None],
            })
            .chain(self.beams.elements.iter().map(|e| [Some(e.nodes[0]), Some(e.nodes[1])]))
            .chain(self.hydraulics.iter().flat_map(|h| h.ends.iter().map(|e| e.pair)))
    }

    /// Gyroscopic torque -w_bar~ J_bar w_bar ([Fang2023, eq. 2b]).
    pub fn gyroscopic(&self, b: usize, w: &Vector3<f64>) -> Vector3<f64> {
        -w.cross(&(self.bodies[b].inertia * w))
    }

    /// d(w_bar~ J_bar w_bar)/d w_bar = w_bar~ J_bar - (J_bar w_bar)~.
    pub fn gyroscopic_jacobian(&self, b: usize, w: &Vector3<f64>) -> Matrix3<f64> {
        let j = &self.bodies[b].inertia;
        skew(w) * j - skew(&(j * w))
    }

    pub fn kinetic_energy(&self, bodies: &[BodyState]) -> f64 {
        let lumped: f64 = self
            .bodies
            .iter()
            .zip(bodies)
            .map(|(p, s)| 0.5 * p.mass * s.v.norm_squared() + 0.5 * s.w.dot(&(p.inertia * s.w)))
            .sum();
        // Consistent beam mass: 1/2 v^T c [-I I; I -I] v = -c/2 |v_a - v_b|^2 per element.
        let coupling: f64 = self
            .beams
            .elements
            .iter()
            .filter(|e| e.mass_coupling > 0.0)
            .map(|e| -0.5 * e.mass_coupling * (bodies[e.nodes[0]].v - bodies[e.nodes[1]].v).norm_squared())
            .sum();
        lumped + coupling
    }

    /// Adds the inertia forces of consistent beam masses beyond the lumped node masses,
    /// -c [-I I; I -I] (a_a, a_b), to the loads (they depend on the accelerations).
    pub fn coupling_inertia_loads(&self, bodies: &[BodyState], out: &mut [Wrench]) {
        for e in self.beams.elements.iter().filter(|e| e.mass_coupling > 0.0) {
            let [a, b] = e.nodes;
            let f = (bodies[b].acc - bodies[a].acc) * e.mass_coupling;
            for i in 0..3 {
                out[a][i] -= f[i];
                out[b][i] += f[i];
            }
        }
    }

    /// True if some beam has consistent mass (its mass matrix is not block diagonal).
    pub fn has_mass_coupling(&self) -> bool {
        self.beams.elements.iter().any(|e| e.mass_coupling > 0.0)
    }

    /// Gravity and spring potential energy.
    pub fn potential_energy(&self, bodies: &[BodyState], angles: &[f64]) -> f64 {
        let mut e: f64 = self.bodies.iter().zip(bodies).map(|(p, s)| -p.mass * self.gravity.dot(&s.r)).sum();
        for f in &self.forces {
            match f {
                ForceElement::Tsda { pair, points, stiffness, rest_length, .. } => {
                    let l = (point(bodies, pair[1], &points[1]).0 - point(bodies, pair[0], &points[0]).0).norm();
                    e += 0.5 * stiffness * (l - rest_length).powi(2);
                }
                ForceElement::Rsda { joint, stiffness, rest_angle, .. } => {
                    let theta =
                        self.joints[*joint].initial_coordinate + self.joint_angle(*joint, bodies, angles[*joint]);
                    e += 0.5 * stiffness * (theta - rest_angle).powi(2);
                }
                _ => {}
            }
        }
        e + self.beams.elements.iter().map(|b| b.strain_energy(bodies)).sum::<f64>()
    }

    /// Length (TSDA) or joint angle (RSDA) and its rate, of force element `f`.
    pub fn element_length(&self, f: usize, bodies: &[BodyState], angles: &[f64]) -> (f64, f64) {
        match &self.forces[f] {
            ForceElement::Tsda { pair, points, .. } => {
                let (p1, v1) = point(bodies, pair[0], &points[0]);
                let (p2, v2) = point(bodies, pair[1], &points[1]);
                let d = p2 - p1;
                let l = d.norm();
                (l, if l > 0.0 { d.dot(&(v2 - v1)) / l } else { 0.0 })
            }
            ForceElement::Rsda { joint, .. } => {
                let j = &self.joints[*joint];
                let rate = j.angle.as_ref().map_or(0.0, |m| m.evaluate(&self.pair(bodies, &j.pair)).rate);
                (j.initial_coordinate + self.joint_angle(*joint, bodies, angles[*joint]), rate)
            }
            _ => (0.0, 0.0),
        }
    }

    /// The input added to element `f`'s value, if any.
    pub fn force_input(&self, f: usize) -> Option<usize> {
        match self.forces.get(f)? {
            ForceElement::Tsda { input, .. }
            | ForceElement::Rsda { input, .. }
            | ForceElement::PointForce { input, .. }
            | ForceElement::Torque { input, .. } => *input,
        }
    }

    /// Tension (TSDA), torque (RSDA) or magnitude (force, torque) of element `f` at time `t`.
    pub fn element_force(&self, f: usize, t: f64, bodies: &[BodyState], angles: &[f64]) -> f64 {
        match &self.forces[f] {
            ForceElement::Tsda { stiffness, damping, rest_length, actuator, input, sign, .. } => {
                let (l, rate) = self.element_length(f, bodies, angles);
                // An actuator (sign -1) reports the force that pushes its ends apart.
                sign * (stiffness * (l - rest_length) + damping * rate) + actuator + self.input_value(*input, t)
            }
            ForceElement::Rsda { stiffness, damping, rest_angle, actuator, input, .. } => {
                let (theta, rate) = self.element_length(f, bodies, angles);
                -(stiffness * (theta - rest_angle) + damping * rate) + actuator + self.input_value(*input, t)
            }
            ForceElement::PointForce { value, input, .. } | ForceElement::Torque { value, input, .. } => {
                value + self.input_value(*input, t)
            }
        }
    }

    /// Work of non-conservative loads between `old` and `new` (held inputs and friction
    /// make most terms exact; dampers, torques, drivers and inputs that change over the step
    /// use the trapezoidal rule).
    pub fn work_increment(&self, old: &MechState, new: &MechState, friction: &[f64]) -> f64 {
        let h = new.t - old.t;
        let mean = |i: &Option<usize>| i.map_or(0.0, |i| self.inputs.trapezoid(i, old.t, new.t));
        let mut w = 0.0;
        for (i, f) in self.forces.iter().enumerate() {
            match f {
                ForceElement::Tsda { damping, actuator, input, sign, .. } => {
                    let (l0, r0) = self.element_length(i, &old.bodies, &old.angles);
                    let (l1, r1) = self.element_length(i, &new.bodies, &new.angles);
                    w += -sign * (actuator + mean(input)) * (l1 - l0) - damping * 0.5 * h * (r0 * r0 + r1 * r1);
                }
                ForceElement::Rsda { damping, actuator, input, .. } => {
                    let (a0, r0) = self.element_length(i, &old.bodies, &old.angles);
                    let (a1, r1) = self.element_length(i, &new.bodies, &new.angles);
                    w += (actuator + mean(input)) * (a1 - a0) - damping * 0.5 * h * (r0 * r0 + r1 * r1);
                }
                ForceElement::PointForce { body, point: local, direction, value, input, .. } => {
                    let p0 = point(&old.bodies, Some(*body), local).0;
                    let p1 = point(&new.bodies, Some(*body), local).0;
                    w += (value + mean(input)) * direction.dot(&(p1 - p0));
                }
                ForceElement::Torque { body, axis, value, input, .. } => {
                    let (s0, s1) = (&old.bodies[*body], &new.bodies[*body]);
                    let omega = 0.5 * (s0.rot * s0.w + s1.rot * s1.w);
                    w += (value + mean(input)) * axis.dot(&omega) * h;
                }
            }
        }
        for b in &self.beams.elements {
            w -= 0.5 * h * (b.dissipation(&old.bodies) + b.dissipation(&new.bodies));
        }
        for (j, &f) in self.joints.iter().zip(friction) {
            if f != 0.0 {
                if let Some(m) = &j.slide {
                    let s0 = m.value(&self.pair(&old.bodies, &j.pair));
                    let s1 = m.value(&self.pair(&new.bodies, &j.pair));
                    w += f * (s1 - s0);
                }
            }
        }
        for (d, driver) in self.drivers.iter().enumerate() {
            let (f0, f1) = (self.driver_motion(d, old.t, old).f, self.driver_motion(d, new.t, old).f);
            let effort = -0.5 * (old.lambda[driver.row] + new.lambda[driver.row]);
            w += effort * (f1 - f0);
        }
        w
    }
}
