//! Applied forces as per-body generalized forces [f (global), n_bar (body frame)], the
//! right-hand sides f and tau_bar of [Fang2023, eq. 2], plus energies and work.
//!
//! Coulomb friction in translational joints follows [Fang2023, Sect. 3.4]: magnitude mu |N|
//! with N the joint's reaction normal to the axis from the previous step's multipliers,
//! opposing the sliding velocity, evaluated explicitly and held over the step.

use super::{BodyState, MechState, Mechanism};
use crate::elements::{Element, Geometry};
use crate::rotation::{exp, skew};
use mbfmu_model::format::JointKind;
use nalgebra::{Matrix3, Matrix6, Vector3};

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

/// The inertia force of a static moment `sm` beyond m r'' (global): A (w_bar'~ s + w_bar~
/// w_bar~ s) for a body of rotation `rot`, angular acceleration `wdot` and velocity `w` (body
/// frame; [NewtonEuler, "Any reference frame"], the acceleration of the centre of mass r'' +
/// A (w_bar'~ c + w_bar~ w_bar~ c) times m). Homogeneous: h^2 times it is the same with h^2
/// w_bar' and h w_bar.
#[inline]
pub(super) fn offset_force(
    rot: &Matrix3<f64>,
    wdot: &Vector3<f64>,
    w: &Vector3<f64>,
    sm: &Vector3<f64>,
) -> Vector3<f64> {
    rot * (wdot.cross(sm) + w.cross(&w.cross(sm)))
}

/// The inertia moment of a static moment `sm` beyond J_bar w_bar' (body frame): s~ A^T r''
/// ([NewtonEuler, "Any reference frame"], the moment about the reference point of the
/// centre of mass's inertia force).
#[inline]
pub(super) fn offset_moment(rot: &Matrix3<f64>, acc: &Vector3<f64>, sm: &Vector3<f64>) -> Vector3<f64> {
    sm.cross(&(rot.transpose() * acc))
}

impl Mechanism {
    /// Magnitude added by an element's input at time `t`.
    fn input_value(&self, input: Option<usize>, t: f64) -> f64 {
        input.map_or(0.0, |i| self.inputs.at(i, t))
    }

    /// Value and rate of element `e`'s measure at `bodies`: a line's length, a joint's angle
    /// (from the unwrapped reference `angles`), a point's position along the force's direction,
    /// the rotation rate about a torque's axis (value 0). A line also gives its unit direction.
    #[inline]
    pub(super) fn element_measure(
        &self,
        e: &Element,
        bodies: &[BodyState],
        angles: &[f64],
    ) -> (f64, f64, Option<Vector3<f64>>) {
        match &e.geometry {
            Geometry::Line { ends } => {
                let (p1, v1) = point(bodies, ends[0].0, &ends[0].1);
                let (p2, v2) = point(bodies, ends[1].0, &ends[1].1);
                let d = p2 - p1;
                let l = d.norm();
                if l < 1e-12 {
                    return (l, 0.0, None);
                }
                let u = d / l;
                (l, u.dot(&(v2 - v1)), Some(u))
            }
            Geometry::JointRotation { joint } => {
                let j = &self.joints[*joint];
                let rate = j.angle.as_ref().map_or(0.0, |m| m.evaluate(&self.pair(bodies, &j.pair)).rate);
                (j.initial_coordinate + self.joint_angle(*joint, bodies, angles[*joint]), rate, None)
            }
            Geometry::Point { at, direction } => {
                let (p, v) = point(bodies, at.0, &at.1);
                (direction.dot(&p), direction.dot(&v), None)
            }
            Geometry::Torque { body, axis } => {
                let s = &bodies[*body];
                (0.0, axis.dot(&(s.rot * s.w)), None)
            }
        }
    }

    /// Generalized force of one element at time `t` on `bodies`: the law's generalized force
    /// along the measure times the measure's gradient; `angles` are the joints' unwrapped
    /// reference angles.
    fn element_load(&self, e: &Element, t: f64, bodies: &[BodyState], angles: &[f64], out: &mut [Wrench]) {
        let input = self.input_value(e.input, t);
        match &e.geometry {
            Geometry::Line { ends } => {
                let (l, rate, Some(u)) = self.element_measure(e, bodies, angles) else { return };
                let q = e.generalized_force(l, rate, input);
                for ((body, local), sign) in ends.iter().zip([-1.0, 1.0]) {
                    if let Some(b) = body {
                        point_load(bodies, *b, local, &(u * (sign * q)), out);
                    }
                }
            }
            Geometry::JointRotation { joint } => {
                let j = &self.joints[*joint];
                let Some(measure) = &j.angle else { return };
                let m = measure.evaluate(&self.pair(bodies, &j.pair));
                let theta = j.initial_coordinate + self.joint_angle(*joint, bodies, angles[*joint]);
                let torque = e.generalized_force(theta, m.rate, input);
                // Virtual work torque * dtheta: the generalized force is row^T torque.
                for (row, b) in m.row.iter().zip(j.pair) {
                    if let Some(b) = b {
                        for (o, r) in out[b].iter_mut().zip(row) {
                            *o += r * torque;
                        }
                    }
                }
            }
            Geometry::Point { at, direction } => {
                let (x, rate, _) =
                    if e.law.uses_measure() { self.element_measure(e, bodies, angles) } else { (0.0, 0.0, None) };
                let f = direction * e.generalized_force(x, rate, input);
                if let Some(b) = at.0 {
                    point_load(bodies, b, &at.1, &f, out);
                }
            }
            Geometry::Torque { body, axis } => {
                let (x, rate, _) =
                    if e.law.uses_measure() { self.element_measure(e, bodies, angles) } else { (0.0, 0.0, None) };
                let n = axis * e.generalized_force(x, rate, input);
                add(&mut out[*body], &Vector3::zeros(), &(bodies[*body].rot.transpose() * n));
            }
        }
    }

    /// Applied generalized forces at time `t` and `bodies`: gravity, force elements (inputs
    /// evaluated at `t`) and the explicit friction forces `friction` (from [`friction_forces`]
    /// at the step's start).
    pub fn applied_forces(&self, t: f64, bodies: &[BodyState], angles: &[f64], friction: &[f64], out: &mut [Wrench]) {
        for ((w, b), s) in out.iter_mut().zip(&self.bodies).zip(bodies) {
            *w = [0.0; 6];
            for (wk, g) in w.iter_mut().zip(self.gravity.iter()) {
                *wk = b.mass * g;
            }
            // Off the centre of mass, gravity's moment about the reference point, body frame:
            // c~ A^T m g = s~ A^T g ([NewtonEuler, "Any reference frame"]: the moment about P).
            if let Some(sm) = &b.static_moment {
                let n = sm.cross(&(s.rot.transpose() * self.gravity));
                for i in 0..3 {
                    w[3 + i] += n[i];
                }
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
            let pair = self.element_bodies(e);
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

    /// The bodies a force element loads.
    fn element_bodies(&self, e: &Element) -> [Option<usize>; 2] {
        match &e.geometry {
            Geometry::Line { ends } => [ends[0].0, ends[1].0],
            Geometry::JointRotation { joint } => self.joints[*joint].pair,
            Geometry::Point { at, .. } => [at.0, None],
            Geometry::Torque { body, .. } => [Some(*body), None],
        }
    }

    /// The bodies each element Jacobian couples: force elements, then beam elements.
    pub fn element_pairs(&self) -> impl Iterator<Item = [Option<usize>; 2]> + '_ {
        self.forces
            .iter()
            .map(|e| self.element_bodies(e))
            .chain(self.beams.elements.iter().map(|e| [Some(e.nodes[0]), Some(e.nodes[1])]))
            .chain(self.hydraulics.iter().flat_map(|h| (0..h.n_actuators()).map(|c| h.actuator_pair(c))))
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
            .map(|(p, s)| {
                let e = 0.5 * p.mass * s.v.norm_squared() + 0.5 * s.w.dot(&(p.inertia * s.w));
                // About a reference point off the centre of mass: + m v . A (w~ c)
                // ([NewtonEuler, "Any reference frame"], the kinetic energy of the spatial
                // inertia with the reference point's velocity).
                match &p.static_moment {
                    Some(sm) => e + s.v.dot(&(s.rot * s.w.cross(sm))),
                    None => e,
                }
            })
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

    /// Adds the inertia forces of the bodies whose reference point is not their centre of
    /// mass, beyond the diagonal M r'' and J w_bar' (with J about the reference point), to the
    /// loads: with s = m c ([NewtonEuler, "Any reference frame"], rotated to the global
    /// translation and body-frame rotation of [Fang2023, eq. 2]),
    ///   force  -(-A s~ w_bar' + A w_bar~ w_bar~ s) = -A (w_bar'~ s + w_bar~ w_bar~ s),
    ///   moment -s~ A^T r''.
    pub fn offset_inertia_loads(&self, bodies: &[BodyState], out: &mut [Wrench]) {
        for ((p, s), o) in self.bodies.iter().zip(bodies).zip(out.iter_mut()) {
            let Some(sm) = &p.static_moment else { continue };
            let f = offset_force(&s.rot, &s.wdot, &s.w, sm);
            let n = offset_moment(&s.rot, &s.acc, sm);
            for i in 0..3 {
                o[i] -= f[i];
                o[3 + i] -= n[i];
            }
        }
    }

    /// The 6 x 6 iteration-matrix block of body `b`'s offset inertia and gravity moment
    /// (zero without a static moment): d/d(r'', w_bar') of the residual's terms
    /// A (w_bar'~ s + w_bar~ w_bar~ s), s~ A^T r'' and -s~ A^T g of
    /// [`Mechanism::offset_inertia_loads`] and [`Mechanism::applied_forces`], with
    /// dv = b0 da and a body-frame rotation dpi = b0^2 dw_bar' (d(A x)/dpi = -A x~,
    /// d(A^T x)/dpi = (A^T x)~):
    ///   [0,                        -A s~ + b0 A d(w~ w~ s)/dw - b0^2 A (w'~ s + w~ w~ s)~]
    ///   [s~ A^T,                   b0^2 s~ (A^T (r'' - g))~                             ]
    /// with d(w~ w~ s)/dw = (w . s) I + w s^T - 2 s w^T.
    pub fn offset_block(&self, b: usize, s: &BodyState, b0: f64) -> Option<[[f64; 6]; 6]> {
        let sm = self.bodies[b].static_moment.as_ref()?;
        let a = &s.rot;
        let w = &s.w;
        let centripetal = Matrix3::identity() * w.dot(sm) + w * sm.transpose() - sm * w.transpose() * 2.0;
        let inertial = s.wdot.cross(sm) + w.cross(&w.cross(sm));
        let tr = -a * skew(sm) + a * centripetal * b0 - a * skew(&inertial) * (b0 * b0);
        let rt = skew(sm) * a.transpose();
        let rr = skew(sm) * skew(&(a.transpose() * (s.acc - self.gravity))) * (b0 * b0);
        let mut out = [[0.0; 6]; 6];
        for i in 0..3 {
            for j in 0..3 {
                out[i][3 + j] = tr[(i, j)];
                out[3 + i][j] = rt[(i, j)];
                out[3 + i][3 + j] = rr[(i, j)];
            }
        }
        Some(out)
    }

    /// The generalized mass of body `b` about its reference point when that is not its centre
    /// of mass (None otherwise), in the unknowns [A^T dr, dpi_bar], translation in the body
    /// frame: there it is constant,
    ///   M_bar = [m I, -s~; s~, J_bar]
    /// (the spatial inertia about the point, [NewtonEuler, "Any reference frame"]: the
    /// coefficients of r'' and w_bar' in [`Mechanism::offset_inertia_loads`] with the diagonal
    /// m r'' and J_bar w_bar' of [Fang2023, eq. 2]). In the global translation of [Fang2023,
    /// eq. 2] it is T M_bar T^T with T = diag(A, I), [m I, -A s~; s~ A^T, J_bar], which turns
    /// with the body.
    pub fn offset_mass(&self, b: usize) -> Option<Matrix6<f64>> {
        let p = &self.bodies[b];
        let coupling = skew(p.static_moment.as_ref()?);
        let mut m = Matrix6::zeros();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&(Matrix3::identity() * p.mass));
        m.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-coupling));
        m.fixed_view_mut::<3, 3>(3, 0).copy_from(&coupling);
        m.fixed_view_mut::<3, 3>(3, 3).copy_from(&p.inertia);
        Some(m)
    }

    /// True if some beam has consistent mass (its mass matrix is not block diagonal).
    pub fn has_mass_coupling(&self) -> bool {
        self.beams.elements.iter().any(|e| e.mass_coupling > 0.0)
    }

    /// Gravity and spring potential energy.
    pub fn potential_energy(&self, bodies: &[BodyState], angles: &[f64]) -> f64 {
        let mut e: f64 = self
            .bodies
            .iter()
            .zip(bodies)
            .map(|(p, s)| match &p.static_moment {
                // The centre of mass at r + A c: -g . (m r + A s).
                Some(sm) => -p.mass * self.gravity.dot(&s.r) - self.gravity.dot(&(s.rot * sm)),
                None => -p.mass * self.gravity.dot(&s.r),
            })
            .sum();
        for f in self.forces.iter().filter(|f| f.law.stores_energy()) {
            let x = match &f.geometry {
                Geometry::Line { ends } => {
                    (point(bodies, ends[1].0, &ends[1].1).0 - point(bodies, ends[0].0, &ends[0].1).0).norm()
                }
                Geometry::JointRotation { joint } => {
                    self.joints[*joint].initial_coordinate + self.joint_angle(*joint, bodies, angles[*joint])
                }
                _ => self.element_measure(f, bodies, angles).0,
            };
            e += f.law.energy(x);
        }
        e + self.beams.elements.iter().map(|b| b.strain_energy(bodies)).sum::<f64>()
    }

    /// Length (line) or joint angle and its rate, of force element `f`.
    pub fn element_length(&self, f: usize, bodies: &[BodyState], angles: &[f64]) -> (f64, f64) {
        let (x, rate, _) = self.element_measure(&self.forces[f], bodies, angles);
        (x, rate)
    }

    /// The input added to element `f`'s value, if any.
    pub fn force_input(&self, f: usize) -> Option<usize> {
        self.forces.get(f)?.input
    }

    /// The force element `f` reports at time `t`: tension (spring), push (actuator, end stop),
    /// torque or magnitude.
    pub fn element_force(&self, f: usize, t: f64, bodies: &[BodyState], angles: &[f64]) -> f64 {
        let e = &self.forces[f];
        let (x, rate) = self.element_length(f, bodies, angles);
        e.law.force(x, rate, self.input_value(e.input, t))
    }

    /// Work of non-conservative loads between `old` and `new` (held inputs and friction
    /// make most terms exact; dampers, torques, drivers and inputs that change over the step
    /// use the trapezoidal rule).
    pub fn work_increment(&self, old: &MechState, new: &MechState, friction: &[f64]) -> f64 {
        let h = new.t - old.t;
        let mean = |i: &Option<usize>| i.map_or(0.0, |i| self.inputs.trapezoid(i, old.t, new.t));
        let mut w = 0.0;
        for (i, f) in self.forces.iter().enumerate() {
            let (x0, r0) = self.element_length(i, &old.bodies, &old.angles);
            let (x1, r1) = self.element_length(i, &new.bodies, &new.angles);
            let dx = match &f.geometry {
                Geometry::Point { at, direction } => {
                    direction.dot(&(point(&new.bodies, at.0, &at.1).0 - point(&old.bodies, at.0, &at.1).0))
                }
                // The rotation about a fixed axis: the mean angular velocity over the step.
                Geometry::Torque { .. } => 0.5 * (r0 + r1) * h,
                _ => x1 - x0,
            };
            w += f.law.work([x0, r0], [x1, r1], dx, h, mean(&f.input));
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
