//! A lumped-fluid hydraulic circuit coupled monolithically into the index-3 equations: the
//! pressures of the volumes are differential unknowns of the same residual as the bodies,
//!   p' - h(p, U(t), |s|(q), s'(q, q'), u(t)) = 0            [Jaiswal2021, eqs. 22-28],
//! and each cylinder pushes its two attachment points apart with F_s(p, s') along the line
//! between them [Jaiswal2021, eq. 29], so every method of the residual-form suite advances
//! bodies, beam nodes and pressures together [Zhang2022, eqs. 8b, 21a-c]. Spools follow their
//! first-order law [Jaiswal2021, eq. 27] solved exactly over each step with the reference held.
//!
//! The iteration matrix gains the blocks of the chain rule through |s| = l(q) and s' = g(q) q'
//! (g the row of the line's length): dh/dp, dh/d|s| g and dh/ds' g on the pressure rows,
//! -g dF/dp on the dynamic rows, and on the cylinder's bodies the geometric stiffness of the
//! line force (central differences, as the other force elements) and its seal friction's
//! damping dF/ds' g g^T; the term of s' in the positions is dropped (quasi-Newton).
//!
//! A hydraulic motor (`crate::hydraulics::motor`) is an actuator of the same kind after the
//! cylinders: its measure is its revolute joint's angle, whose row g (the joint's rotation
//! measure, [`super::geometry::Measure::angle`]) gives the rate omega = g (v, w_bar) and the
//! generalized force T g^T of its torque, so the same blocks couple it.

use super::forces::{point, point_load, ElementJacobian, Wrench};
use super::geometry::Measure;
use super::output_eval::CircuitRates;
use super::output_rates::point as output_point;
use super::{BodyState, JointInfo, MechState, Mechanism};
use crate::hydraulics::{laws, Attachment, Circuit, CircuitError, CircuitJacobian, Node, Stroke};
use crate::inputs::InputSignals;
use crate::rates::distance_rates;
use crate::rotation::exp;
use crate::state::CircuitState;
use mbfmu_model::format::Quantity;
use mbfmu_model::format::{Description, Formulation};
use nalgebra::Vector3;

/// Where a cylinder attaches: two bodies or structural nodes (None = ground) and the
/// attachment points in their frames (global for ground).
#[derive(Clone, Debug, PartialEq)]
pub struct CylinderEnds {
    pub pair: [Option<usize>; 2],
    pub points: [Vector3<f64>; 2],
}

/// The length l of a cylinder, its rate and d l / d(dr, dpi_bar) of each end's body (the row
/// g: the generalized force of a push F along the line is F g^T, and l' = g (v, w_bar)).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Line {
    pub length: f64,
    pub rate: f64,
    pub rows: [[f64; 6]; 2],
}

/// The joint a motor turns: its two bodies (None = ground) and its rotation measure.
#[derive(Clone, Debug, PartialEq)]
pub struct MotorJoint {
    pub pair: [Option<usize>; 2],
    pub angle: Measure,
}

/// The circuit of a mechanism in the index-3 formulation.
#[derive(Clone, Debug)]
pub struct MechanismCircuit {
    pub circuit: Circuit,
    /// Per cylinder, in the circuit's order.
    pub ends: Vec<CylinderEnds>,
    /// Per motor, in the circuit's order (the actuators after the cylinders).
    pub motors: Vec<MotorJoint>,
    /// Weight of a pressure change against the position tolerance in the Newton correction's
    /// norm: solver tolerance / pressure tolerance \[m/Pa\].
    pub pressure_weight: f64,
}

impl MechanismCircuit {
    /// Compiles the circuit of a validated description in the index-3 formulation; `index` maps
    /// a body or node name to the index-3 body index, `local` a global point at the initial
    /// configuration to a body frame. None for a description of another formulation (its
    /// mechanism, compiled in absolute coordinates for a comparison or a drawing, carries no
    /// circuit) and for cylinders driven by inputs (refused in index-3 when it is read).
    pub(super) fn compile(
        d: &Description,
        joints: &[JointInfo],
        index: impl Fn(&str) -> Option<usize>,
        local: impl Fn(Option<usize>, &Vector3<f64>) -> Vector3<f64>,
    ) -> Option<Box<MechanismCircuit>> {
        if d.solver.formulation != Formulation::Index3 {
            return None;
        }
        let circuit = Circuit::from_description_with(d, &index)?;
        let ends = circuit
            .cylinders
            .iter()
            .map(|c| match &c.attachment {
                Attachment::Mechanism { bodies, points } => Some(CylinderEnds {
                    pair: *bodies,
                    points: [local(bodies[0], &points[0]), local(bodies[1], &points[1])],
                }),
                Attachment::Inputs { .. } => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let motors = circuit
            .motors
            .iter()
            .map(|m| {
                let j = &joints[m.joint];
                Some(MotorJoint { pair: j.pair, angle: j.angle.clone()? })
            })
            .collect::<Option<Vec<_>>>()?;
        let s = &d.solver;
        Some(Box::new(MechanismCircuit { circuit, ends, motors, pressure_weight: s.tolerance / s.pressure_tolerance }))
    }

    /// The actuators: the cylinders, then the motors.
    pub fn n_actuators(&self) -> usize {
        self.ends.len() + self.motors.len()
    }

    /// The two bodies actuator `c` loads (None = ground).
    pub fn actuator_pair(&self, c: usize) -> [Option<usize>; 2] {
        match self.ends.get(c) {
            Some(e) => e.pair,
            None => self.motors[c - self.ends.len()].pair,
        }
    }

    pub fn n_pressures(&self) -> usize {
        self.circuit.n_pressures()
    }

    /// The volumes actuator `c`'s force depends on: a cylinder's chambers (piston side, then
    /// the rod side if another), a motor's ports that are volumes (A, then B).
    pub fn chamber_volumes(&self, c: usize) -> impl Iterator<Item = usize> {
        let (first, second) = match self.circuit.cylinders.get(c) {
            Some(cyl) => (Some(cyl.piston_side), (cyl.rod_side != cyl.piston_side).then_some(cyl.rod_side)),
            None => {
                let m = &self.circuit.motors[c - self.ends.len()];
                let volume = |n: Node| if let Node::Volume(i) = n { Some(i) } else { None };
                (volume(m.port_a), volume(m.port_b))
            }
        };
        first.into_iter().chain(second)
    }

    /// The line of actuator `c` at `bodies`: a cylinder's line, or a motor's joint angle with
    /// its rate omega and its row.
    pub fn line(&self, c: usize, bodies: &[BodyState]) -> Line {
        let Some(e) = self.ends.get(c) else {
            let m = &self.motors[c - self.ends.len()];
            let a = m.angle.evaluate(&[m.pair[0].map(|i| &bodies[i]), m.pair[1].map(|i| &bodies[i])]);
            return Line { length: a.value, rate: a.rate, rows: a.row };
        };
        let (p1, v1) = point(bodies, e.pair[0], &e.points[0]);
        let (p2, v2) = point(bodies, e.pair[1], &e.points[1]);
        let d = p2 - p1;
        let length = d.norm();
        let u = if length > 0.0 { d / length } else { Vector3::zeros() };
        let mut rows = [[0.0; 6]; 2];
        for (slot, sign) in [(0, -1.0), (1, 1.0)] {
            if let Some(b) = e.pair[slot] {
                let n = e.points[slot].cross(&(bodies[b].rot.transpose() * u));
                for k in 0..3 {
                    rows[slot][k] = sign * u[k];
                    rows[slot][3 + k] = sign * n[k];
                }
            }
        }
        Line { length, rate: u.dot(&(v2 - v1)), rows }
    }

    /// Adds the push `force` of cylinder `c` (or the torque of a motor: T g^T on the joint's
    /// bodies) to the generalized forces `out`.
    pub fn add_load(&self, c: usize, bodies: &[BodyState], force: f64, out: &mut [Wrench]) {
        let Some(e) = self.ends.get(c) else {
            let m = &self.motors[c - self.ends.len()];
            let rows = self.line(c, bodies).rows;
            for (row, b) in rows.iter().zip(m.pair) {
                if let Some(b) = b {
                    for (o, r) in out[b].iter_mut().zip(row) {
                        *o += r * force;
                    }
                }
            }
            return;
        };
        let (p1, _) = point(bodies, e.pair[0], &e.points[0]);
        let (p2, _) = point(bodies, e.pair[1], &e.points[1]);
        let d = p2 - p1;
        let l = d.norm();
        if l < 1e-12 {
            return;
        }
        let f = d * (force / l);
        if let Some(b) = e.pair[1] {
            point_load(bodies, b, &e.points[1], &f, out);
        }
        if let Some(b) = e.pair[0] {
            point_load(bodies, b, &e.points[0], &(-f), out);
        }
    }

    /// Spool positions at time `t` of a step from `base` (the spool law solved exactly with the
    /// step's reference held, so that the spools do not limit a method's order), and those
    /// references.
    pub fn spools_at(&self, base: &MechState, t: f64, inputs: &InputSignals, spools: &mut [f64], refs: &mut [f64]) {
        let c = &self.circuit;
        let Some(s) = &base.circuit else { return };
        for k in 0..c.n_spools() {
            refs[k] = c.reference(k, base.t, t, inputs);
            spools[k] = laws::spool_exact(s.spools[k], refs[k], c.valves[k].time_constant, t - base.t);
        }
    }

    /// Pushes of every cylinder at `bodies` with pressures `p`: the lines into `lines`, the
    /// strokes into `strokes`, the forces into `forces`.
    pub fn forces(
        &self,
        bodies: &[BodyState],
        p: &[f64],
        lines: &mut [Line],
        strokes: &mut [Stroke],
        forces: &mut [f64],
    ) -> Result<(), CircuitError> {
        for (c, (line, stroke)) in lines.iter_mut().zip(strokes.iter_mut()).enumerate() {
            *line = self.line(c, bodies);
            *stroke = Stroke { length: line.length, velocity: line.rate };
        }
        self.circuit.forces(p, strokes, forces)
    }

    /// Work of cylinder `c` over a step from `old` to `new` (trapezoidal rule on its power
    /// F_s s'); 0 where a state has no circuit.
    pub fn work_increment(&self, c: usize, old: &MechState, new: &MechState) -> f64 {
        let (Some(c0), Some(c1)) = (&old.circuit, &new.circuit) else { return 0.0 };
        let power = |bodies: &[BodyState], p: &[f64]| {
            let l = self.line(c, bodies);
            let cyl = &self.circuit.cylinders[c];
            cyl.force(p[cyl.piston_side], p[cyl.rod_side], l.rate) * l.rate
        };
        0.5 * (new.t - old.t) * (power(&old.bodies, &c0.p) + power(&new.bodies, &c1.p))
    }

    /// Work of motor `m` over a step from `old` to `new` (trapezoidal rule on its power
    /// T omega), the input values of each end from `input(t, i)`; 0 where a state has no
    /// circuit.
    pub fn motor_work_increment(
        &self,
        m: usize,
        old: &MechState,
        new: &MechState,
        input: &dyn Fn(f64, usize) -> f64,
    ) -> f64 {
        let (Some(c0), Some(c1)) = (&old.circuit, &new.circuit) else { return 0.0 };
        let power = |s: &MechState, p: &[f64]| {
            let omega = self.line(self.ends.len() + m, &s.bodies).rate;
            let drop = self.circuit.motor_drop(m, p, &|i| input(s.t, i));
            self.circuit.motors[m].torque(omega, drop) * omega
        };
        0.5 * (new.t - old.t) * (power(old, &c0.p) + power(new, &c1.p))
    }

    /// The circuit's state at the start: the volumes' pressures (static-start cylinders'
    /// piston sides from `forces`), spools at their initial positions, rates zero.
    pub fn initial_state(&self, forces: &[Option<f64>]) -> CircuitState {
        let c = &self.circuit;
        let p = c.initial_pressures(forces);
        CircuitState {
            pd: vec![0.0; p.len()],
            p,
            spools: c.valves.iter().map(|v| v.initial_spool).collect(),
            references: c.valves.iter().map(|v| v.initial_spool).collect(),
            cylinder_work: vec![0.0; c.n_cylinders()],
        }
    }
}

/// Work arrays of the coupled evaluation, sized once.
#[derive(Clone, Debug, Default)]
pub struct CircuitWork {
    pub lines: Vec<Line>,
    pub strokes: Vec<Stroke>,
    pub forces: Vec<f64>,
    pub rates: Vec<f64>,
    pub spools: Vec<f64>,
    pub references: Vec<f64>,
    pub inputs: Vec<f64>,
    pub jacobian: CircuitJacobian,
    scratch: Vec<BodyState>,
    plus: Vec<Wrench>,
    minus: Vec<Wrench>,
}

impl CircuitWork {
    pub fn new(c: &MechanismCircuit, bodies: &[BodyState], n_inputs: usize) -> CircuitWork {
        let (np, nc, ns) = (c.circuit.n_pressures(), c.circuit.n_actuators(), c.circuit.n_spools());
        CircuitWork {
            lines: vec![Line::default(); nc],
            strokes: vec![Stroke::default(); nc],
            forces: vec![0.0; nc],
            rates: vec![0.0; np],
            spools: vec![0.0; ns],
            references: vec![0.0; ns],
            inputs: vec![0.0; n_inputs],
            jacobian: CircuitJacobian::default(),
            scratch: bodies.to_vec(),
            plus: vec![[0.0; 6]; bodies.len()],
            minus: vec![[0.0; 6]; bodies.len()],
        }
    }

    /// Pressure rates and cylinder forces of `m`'s circuit at time `t` of a step from `base`,
    /// at `bodies` and pressures `p`; with `jacobian`, also their Jacobians.
    pub fn evaluate(
        &mut self,
        m: &Mechanism,
        base: &MechState,
        t: f64,
        bodies: &[BodyState],
        p: &[f64],
        jacobian: bool,
    ) -> Result<(), CircuitError> {
        let (Some(c), inputs) = (m.hydraulics.as_deref(), &m.inputs) else { return Ok(()) };
        c.spools_at(base, t, inputs, &mut self.spools, &mut self.references);
        inputs.values_at(t, &mut self.inputs);
        for (k, (line, stroke)) in self.lines.iter_mut().zip(self.strokes.iter_mut()).enumerate() {
            *line = c.line(k, bodies);
            *stroke = Stroke { length: line.length, velocity: line.rate };
        }
        c.circuit.evaluate(t, p, &self.spools, &self.strokes, &self.inputs, &mut self.rates, &mut self.forces)?;
        if jacobian {
            c.circuit.jacobian_at_rates(
                t,
                p,
                &self.spools,
                &self.strokes,
                &self.inputs,
                &self.rates,
                &mut self.jacobian,
            )?;
        }
        Ok(())
    }

    /// Element Jacobians of the actuators' loads at their current forces: the geometric
    /// stiffness by central differences (perturbation 1e-7, as the force elements') and the
    /// damping dF/ds' g^T g (a cylinder's seal friction, a motor's viscous friction), appended
    /// to `out`.
    pub fn element_jacobians(&mut self, c: &MechanismCircuit, bodies: &[BodyState], out: &mut Vec<ElementJacobian>) {
        let eps = 1e-7;
        self.scratch.clone_from_slice(bodies);
        for k in 0..c.n_actuators() {
            let pair = c.actuator_pair(k);
            let mut jac = ElementJacobian {
                bodies: pair,
                stiffness: [[0.0; 12]; 12],
                damping: [[0.0; 12]; 12],
                mass_coupling: 0.0,
            };
            let force = self.forces[k];
            for (slot, b) in pair.iter().enumerate() {
                let Some(b) = *b else { continue };
                for coord in 0..6 {
                    for (sign, load) in [(1.0, &mut self.plus), (-1.0, &mut self.minus)] {
                        let s = &mut self.scratch[b];
                        s.clone_from(&bodies[b]);
                        let i = coord % 3;
                        if coord < 3 {
                            s.r[i] += sign * eps;
                        } else {
                            s.rot = bodies[b].rot * exp(&Vector3::ith(i, sign * eps));
                        }
                        load.iter_mut().for_each(|w| *w = [0.0; 6]);
                        c.add_load(k, &self.scratch, force, load);
                    }
                    self.scratch[b].clone_from(&bodies[b]);
                    for (rs, rb) in pair.iter().enumerate() {
                        let Some(rb) = *rb else { continue };
                        for i in 0..6 {
                            jac.stiffness[rs * 6 + i][slot * 6 + coord] =
                                (self.plus[rb][i] - self.minus[rb][i]) / (2.0 * eps);
                        }
                    }
                }
            }
            let slope = self.jacobian.df_dv[k];
            let rows = &self.lines[k].rows;
            for r in 0..12 {
                for col in 0..12 {
                    jac.damping[r][col] = slope * rows[r / 6][r % 6] * rows[col / 6][col % 6];
                }
            }
            out.push(jac);
        }
    }
}

impl Mechanism {
    /// Adds the pushes of the cylinders at `bodies` with the pressures of `state`'s circuit to
    /// `out`, and sets the circuit's pressure rates at time `state.t` (the start of a run: no
    /// step, the spools where they are).
    pub(super) fn start_circuit(&self, state: &mut MechState, out: &mut [Wrench]) -> Result<(), CircuitError> {
        let (Some(h), Some(c)) = (&self.hydraulics, &mut state.circuit) else { return Ok(()) };
        let n = h.circuit.n_actuators();
        let (mut strokes, mut forces, mut inputs) =
            (vec![Stroke::default(); n], vec![0.0; n], vec![0.0; self.inputs.len()]);
        for (k, s) in strokes.iter_mut().enumerate() {
            let l = h.line(k, &state.bodies);
            *s = Stroke { length: l.length, velocity: l.rate };
        }
        self.inputs.values_at(state.t, &mut inputs);
        h.circuit.evaluate(state.t, &c.p, &c.spools, &strokes, &inputs, &mut c.pd, &mut forces)?;
        for (k, &f) in forces.iter().enumerate() {
            h.add_load(k, &state.bodies, f, out);
        }
        Ok(())
    }
}

impl Mechanism {
    /// A quantity of the coupled circuit at `state` (NaN for a model without one).
    pub(super) fn circuit_quantity(&self, q: mbfmu_model::format::Quantity, state: &MechState) -> f64 {
        use mbfmu_model::format::Quantity;
        let (Some(h), Some(c)) = (&self.hydraulics, &state.circuit) else { return f64::NAN };
        let circuit = &h.circuit;
        let spool = |valve: usize| circuit.spool_of_valve.get(valve).copied().flatten();
        match q {
            Quantity::VolumePressure { volume } => c.p[volume],
            Quantity::SourceFlow { source } => {
                circuit.source_flow(source, state.t, &c.p, &c.spools, &|i| self.inputs.at(i, state.t))
            }
            Quantity::ValveSpool { valve } => spool(valve).map_or(f64::NAN, |k| c.spools[k]),
            Quantity::ValveReference { valve } => spool(valve).map_or(f64::NAN, |k| c.references[k]),
            Quantity::CylinderLength { cylinder } => h.line(cylinder, &state.bodies).length,
            Quantity::CylinderVelocity { cylinder } => h.line(cylinder, &state.bodies).rate,
            Quantity::CylinderForce { cylinder } => {
                let cyl = &circuit.cylinders[cylinder];
                cyl.force(c.p[cyl.piston_side], c.p[cyl.rod_side], h.line(cylinder, &state.bodies).rate)
            }
            Quantity::CylinderWork { cylinder } => c.cylinder_work[cylinder],
            Quantity::MotorSpeed { motor } | Quantity::MotorTorque { motor } | Quantity::MotorFlow { motor } => {
                let omega = h.line(h.ends.len() + motor, &state.bodies).rate;
                let drop = circuit.motor_drop(motor, &c.p, &|i| self.inputs.at(i, state.t));
                match q {
                    Quantity::MotorSpeed { .. } => omega,
                    Quantity::MotorTorque { .. } => circuit.motors[motor].torque(omega, drop),
                    _ => circuit.motors[motor].flow(omega, drop),
                }
            }
            Quantity::AccumulatorPressure { accumulator } => circuit.accumulator_quantity(accumulator, &c.p, true),
            Quantity::AccumulatorVolume { accumulator } => circuit.accumulator_quantity(accumulator, &c.p, false),
            _ => f64::NAN,
        }
    }
}

impl Mechanism {
    /// Length, rate and acceleration of cylinder `c`'s line from the bodies' accelerations.
    fn line_rates(&self, h: &MechanismCircuit, c: usize, bodies: &[BodyState]) -> (f64, [f64; 2]) {
        let e = &h.ends[c];
        let [p1, v1, a1] = output_point(bodies, e.pair[0], &e.points[0]);
        let [p2, v2, a2] = output_point(bodies, e.pair[1], &e.points[1]);
        let (l, rate, accel) = distance_rates(&(p2 - p1), &(v2 - v1), &(a2 - a1));
        (l, [rate, accel])
    }

    /// The circuit's pressure, spool and cylinder-force rates at `state`, from the circuit
    /// equations [Jaiswal2021, eqs. 22-29] (formed once per output call into `r`).
    fn form_circuit_rates(&self, h: &MechanismCircuit, c: &CircuitState, state: &MechState, r: &mut CircuitRates) {
        let circuit = &h.circuit;
        let n = circuit.n_actuators();
        r.pressures.resize(circuit.n_pressures(), 0.0);
        r.forces.resize(n, 0.0);
        r.inputs.resize(self.inputs.len(), 0.0);
        r.strokes.clear();
        for k in 0..n {
            let l = h.line(k, &state.bodies);
            r.strokes.push(Stroke { length: l.length, velocity: l.rate });
        }
        self.inputs.values_at(state.t, &mut r.inputs);
        if circuit.evaluate(state.t, &c.p, &c.spools, &r.strokes, &r.inputs, &mut r.pressures, &mut r.forces).is_err() {
            r.pressures.fill(0.0);
        }
        r.spools.clear();
        r.spools.extend((0..circuit.n_spools()).map(|k| circuit.spool_rates(k, c.spools[k], state.t, &self.inputs)[0]));
        for (k, (cylinder, f)) in circuit.cylinders.iter().zip(r.forces.iter_mut()).enumerate() {
            let accel = self.line_rates(h, k, &state.bodies).1[1];
            let pd = &r.pressures;
            *f = cylinder.force_rate(pd[cylinder.piston_side], pd[cylinder.rod_side], r.strokes[k].velocity, accel);
        }
        r.formed = true;
    }

    /// The power of the actuators on the mechanism at `state` (0 without a circuit), the
    /// integrand of their work: F_s s' of the cylinders, T omega of the motors.
    pub(super) fn actuator_power(&self, state: &MechState) -> f64 {
        let (Some(h), Some(c)) = (&self.hydraulics, &state.circuit) else { return 0.0 };
        let cylinders: f64 = (0..h.circuit.n_cylinders())
            .map(|k| {
                let (cyl, l) = (&h.circuit.cylinders[k], h.line(k, &state.bodies));
                cyl.force(c.p[cyl.piston_side], c.p[cyl.rod_side], l.rate) * l.rate
            })
            .sum();
        let motors: f64 = (0..h.circuit.motors.len())
            .map(|m| {
                let omega = h.line(h.ends.len() + m, &state.bodies).rate;
                let drop = h.circuit.motor_drop(m, &c.p, &|i| self.inputs.at(i, state.t));
                h.circuit.motors[m].torque(omega, drop) * omega
            })
            .sum();
        cylinders + motors
    }

    /// First and second derivatives of a quantity of the coupled circuit at `state` (0 for a
    /// model without one, and for an order the state does not determine).
    pub(super) fn circuit_quantity_rates(&self, q: Quantity, state: &MechState, r: &mut CircuitRates) -> [f64; 2] {
        let (Some(h), Some(c)) = (&self.hydraulics, &state.circuit) else { return [0.0; 2] };
        let circuit = &h.circuit;
        let spool = |valve: usize| circuit.spool_of_valve.get(valve).copied().flatten();
        let needs_rates = matches!(
            q,
            Quantity::VolumePressure { .. }
                | Quantity::SourceFlow { .. }
                | Quantity::CylinderForce { .. }
                | Quantity::CylinderWork { .. }
        );
        if needs_rates && !r.formed {
            self.form_circuit_rates(h, c, state, r);
        }
        let t = state.t;
        match q {
            Quantity::VolumePressure { volume } => [r.pressures[volume], 0.0],
            // The flow into a boundary node from the spools' and pressures' rates.
            Quantity::SourceFlow { source } => {
                let u = &self.inputs;
                let rate = circuit.source_flow_rate(
                    source,
                    t,
                    &c.p,
                    &r.pressures,
                    &c.spools,
                    &r.spools,
                    &|i| u.at(i, t),
                    &|i| u.rate(i, t),
                );
                [rate, 0.0]
            }
            Quantity::ValveSpool { valve } => {
                spool(valve).map_or([0.0; 2], |k| circuit.spool_rates(k, c.spools[k], t, &self.inputs))
            }
            Quantity::ValveReference { valve } => {
                spool(valve).map_or([0.0; 2], |k| circuit.reference_rates(k, t, &self.inputs))
            }
            Quantity::CylinderLength { cylinder } => self.line_rates(h, cylinder, &state.bodies).1,
            Quantity::CylinderVelocity { cylinder } => [self.line_rates(h, cylinder, &state.bodies).1[1], 0.0],
            Quantity::CylinderForce { cylinder } => [r.forces[cylinder], 0.0],
            // W = int F v dt: the cylinder's power and its rate.
            Quantity::CylinderWork { cylinder } => {
                let cyl = &circuit.cylinders[cylinder];
                let [v, a] = self.line_rates(h, cylinder, &state.bodies).1;
                let force = cyl.force(c.p[cyl.piston_side], c.p[cyl.rod_side], v);
                [force * v, r.forces[cylinder] * v + force * a]
            }
            _ => [0.0; 2],
        }
    }
}

#[cfg(test)]
mod motor_tests {
    //! The index-3 coupling of a motor: its joint-rate row g (d omega / d(v, w_bar), the
    //! gradient of the joint angle in (dr, dpi_bar)) and the chain-rule entries through it,
    //! in closed form against differences.
    use super::*;
    use mbfmu_model::format;

    /// A rotor on a tilted revolute joint to an arm on a spherical joint to ground, a motor
    /// on the revolute joint from volume A to the tank.
    fn mechanism() -> Mechanism {
        let json = r#"{
            "name": "motor_rows",
            "bodies": [{"name": "arm", "mass": 3.0, "inertia": [0.2, 0.3, 0.4], "position": [0.5, 0.0, 0.0]},
                       {"name": "rotor", "mass": 1.0, "inertia": [0.02, 0.03, 0.05], "position": [1.0, 0.2, 0.1]}],
            "joints": [{"name": "pivot", "type": "spherical", "body1": "ground", "body2": "arm", "point": [0, 0, 0]},
                       {"name": "shaft", "type": "revolute", "body1": "arm", "body2": "rotor",
                        "point": [1.0, 0.0, 0.0], "axis": [0.36, 0.48, 0.8]}],
            "hydraulics": {
                "oil": {"bulk_modulus": 1.5e9, "density": 850.0},
                "sources": [{"name": "tank", "pressure": 1e5}],
                "volumes": [{"name": "A", "hose_volume": 1e-4, "hose_bulk_modulus": 7e8, "initial_pressure": 6e6}],
                "pumps": [{"name": "pump", "inlet": "tank", "outlet": "A", "displacement": 1e-5, "shaft_speed": 100.0}],
                "motors": [{"name": "m", "port_a": "A", "port_b": "tank", "joint": "shaft", "displacement": 2e-5,
                            "leakage_coefficient": 1e-12, "volumetric_efficiency": 0.95,
                            "hydromechanical_efficiency": 0.9, "viscous_friction": 0.2}]
            },
            "experiment": {"stop": 1.0, "step": 0.001},
            "solver": {"formulation": "index3", "method": "bdf1"}
        }"#;
        Mechanism::from_description(&format::parse(json).unwrap()).unwrap()
    }

    /// Bodies moved off the start and turning (the rotor also about its own axis).
    fn moving(m: &Mechanism) -> Vec<BodyState> {
        let mut bodies = m.initial.bodies.clone();
        bodies[0].rot = exp(&Vector3::new(0.2, -0.1, 0.3));
        bodies[1].rot = bodies[0].rot * exp(&Vector3::new(0.36, 0.48, 0.8).scale(0.7));
        bodies[0].w = Vector3::new(0.4, -1.1, 0.6);
        bodies[1].w = Vector3::new(2.0, 3.5, -1.2);
        bodies[0].v = Vector3::new(0.1, 0.2, -0.3);
        bodies
    }

    #[test]
    fn the_motor_row_is_the_joint_angles_gradient_and_gives_its_rate() {
        let m = mechanism();
        let h = m.hydraulics.as_deref().unwrap();
        assert_eq!((h.n_actuators(), h.actuator_pair(0)), (1, [Some(0), Some(1)]));
        let bodies = moving(&m);
        let line = h.line(0, &bodies);
        let eps = 1e-6;
        let mut scratch = bodies.clone();
        for (slot, b) in [(0, 0), (1, 1)] {
            for coord in 0..6 {
                let angle = |sign: f64, s: &mut Vec<BodyState>| {
                    s[b] = bodies[b].clone();
                    if coord < 3 {
                        s[b].r[coord] += sign * eps;
                    } else {
                        s[b].rot = bodies[b].rot * exp(&Vector3::ith(coord - 3, sign * eps));
                    }
                    h.line(0, s).length
                };
                let fd = (angle(1.0, &mut scratch) - angle(-1.0, &mut scratch)) / (2.0 * eps);
                scratch[b] = bodies[b].clone();
                let g = line.rows[slot][coord];
                assert!((g - fd).abs() < 1e-8, "body {b} coordinate {coord}: row {g} vs differences {fd}");
            }
        }
        // omega = g (v, w_bar) summed over the two bodies.
        let rate: f64 = (0..2)
            .map(|k| {
                (0..3).map(|i| line.rows[k][i] * bodies[k].v[i] + line.rows[k][3 + i] * bodies[k].w[i]).sum::<f64>()
            })
            .sum();
        assert!((rate - line.rate).abs() < 1e-12 * rate.abs().max(1.0), "{rate} vs {}", line.rate);
        // The torque's generalized force is T g^T.
        let mut out = vec![[0.0; 6]; 2];
        h.add_load(0, &bodies, 7.0, &mut out);
        for (load, row) in out.iter().zip(&line.rows) {
            for (x, g) in load.iter().zip(row) {
                assert_eq!(*x, 7.0 * g);
            }
        }
    }

    #[test]
    fn chain_rule_entries_through_the_joint_rate_match_differences_in_the_body_rates() {
        let m = mechanism();
        let h = m.hydraulics.as_deref().unwrap();
        let bodies = moving(&m);
        let base = m.initial.clone();
        let p = [6e6];
        let mut w = CircuitWork::new(h, &bodies, 0);
        w.evaluate(&m, &base, 0.0, &bodies, &p, true).unwrap();
        let (rate0, torque0, rows) = (w.rates[0], w.forces[0], w.lines[0].rows);
        let (dp_dv, df_dv) = (w.jacobian.dp_dv[0], w.jacobian.df_dv[0]);
        assert_eq!(df_dv, -0.2);
        let mut moved = bodies.clone();
        for (slot, b) in [(0, 0), (1, 1)] {
            for (coord, &g) in rows[slot].iter().enumerate() {
                let eps = 1e-4;
                if coord < 3 {
                    moved[b].v[coord] += eps;
                } else {
                    moved[b].w[coord - 3] += eps;
                }
                w.evaluate(&m, &base, 0.0, &moved, &p, false).unwrap();
                moved[b] = bodies[b].clone();
                let (fd_rate, fd_torque) = ((w.rates[0] - rate0) / eps, (w.forces[0] - torque0) / eps);
                // d p'_A / d(v, w_bar) = dh/domega g, d T / d(v, w_bar) = dT/domega g.
                assert!(
                    (fd_rate - dp_dv * g).abs() <= 1e-6 * (dp_dv * g).abs().max(1.0),
                    "p'_A by {b}.{coord}: {fd_rate} vs {}",
                    dp_dv * g
                );
                assert!(
                    (fd_torque - df_dv * g).abs() <= 1e-6 * (df_dv * g).abs().max(1e-6),
                    "T by {b}.{coord}: {fd_torque} vs {}",
                    df_dv * g
                );
            }
        }
        // By the pressure: dT/dp_A = eta_hm D_e.
        assert!((w.jacobian.df_dp[0] - 0.9 * 2e-5 / std::f64::consts::TAU).abs() < 1e-18);
    }
}
