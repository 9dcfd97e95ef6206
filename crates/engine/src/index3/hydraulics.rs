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

use super::forces::{point, point_load, ElementJacobian, Wrench};
use super::{BodyState, MechState, Mechanism};
use crate::hydraulics::{laws, Attachment, Circuit, CircuitError, CircuitJacobian, Stroke};
use crate::inputs::InputSignals;
use crate::rotation::exp;
use crate::state::CircuitState;
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

/// The circuit of a mechanism in the index-3 formulation.
#[derive(Clone, Debug)]
pub struct MechanismCircuit {
    pub circuit: Circuit,
    /// Per cylinder, in the circuit's order.
    pub ends: Vec<CylinderEnds>,
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
        let s = &d.solver;
        Some(Box::new(MechanismCircuit { circuit, ends, pressure_weight: s.tolerance / s.pressure_tolerance }))
    }

    pub fn n_pressures(&self) -> usize {
        self.circuit.n_pressures()
    }

    /// The volumes cylinder `c`'s chambers are in (piston side, then the rod side if another).
    pub fn chamber_volumes(&self, c: usize) -> impl Iterator<Item = usize> {
        let cyl = &self.circuit.cylinders[c];
        let rod = (cyl.rod_side != cyl.piston_side).then_some(cyl.rod_side);
        std::iter::once(cyl.piston_side).chain(rod)
    }

    /// The line of cylinder `c` at `bodies`.
    pub fn line(&self, c: usize, bodies: &[BodyState]) -> Line {
        let e = &self.ends[c];
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

    /// Adds the push `force` of cylinder `c` to the generalized forces `out`.
    pub fn add_load(&self, c: usize, bodies: &[BodyState], force: f64, out: &mut [Wrench]) {
        let e = &self.ends[c];
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
        let (np, nc, ns) = (c.circuit.n_pressures(), c.circuit.n_cylinders(), c.circuit.n_spools());
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

    /// Element Jacobians of the cylinders' pushes at their current forces: the geometric
    /// stiffness by central differences (perturbation 1e-7, as the force elements') and the
    /// seal friction's damping dF/ds' g^T g, appended to `out`.
    pub fn element_jacobians(&mut self, c: &MechanismCircuit, bodies: &[BodyState], out: &mut Vec<ElementJacobian>) {
        let eps = 1e-7;
        self.scratch.clone_from_slice(bodies);
        for (k, ends) in c.ends.iter().enumerate() {
            let mut jac = ElementJacobian {
                bodies: ends.pair,
                stiffness: [[0.0; 12]; 12],
                damping: [[0.0; 12]; 12],
                mass_coupling: 0.0,
            };
            let force = self.forces[k];
            for (slot, b) in ends.pair.iter().enumerate() {
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
                    for (rs, rb) in ends.pair.iter().enumerate() {
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
        let n = h.circuit.n_cylinders();
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
            Quantity::AccumulatorPressure { accumulator } => circuit.accumulator_quantity(accumulator, &c.p, true),
            Quantity::AccumulatorVolume { accumulator } => circuit.accumulator_quantity(accumulator, &c.p, false),
            _ => f64::NAN,
        }
    }
}
