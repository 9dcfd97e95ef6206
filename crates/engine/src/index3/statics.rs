//! Static equilibrium at the start time (a description's `static_start`): Newton on
//!   G^T lambda - Q(q) = 0,   Phi(q, t0) = 0,
//! with the iteration matrix [-K G^T; G 0] (K = dQ/dq of the force and beam elements, the
//! Jacobian of the reactions G^T lambda dropped as in the dynamic iteration, [Fang2023, Sect.
//! 2.3]). It replaces the slow gravity ramp with temporary damping that the benchmark inputs of
//! Bauchau2016 use to reach equilibrium before t = 0: the state it gives is at rest and exact
//! to the tolerance instead of approximately settled.

use super::forces::Wrench;
use super::{add_rows_transpose, Index3Dae, MechState};
use crate::rotation::{exp, skew};
use nalgebra::Vector3;

/// Position-level tolerance of the static iteration \[m, rad\].
const TOLERANCE: f64 = 1e-12;
const MAX_ITERATIONS: u32 = 50;

impl Index3Dae {
    /// Moves `state` (velocities set to zero) to the static equilibrium of its start time.
    /// Returns the iterations used, or a message saying why no equilibrium was found.
    ///
    /// Newton from the start configuration first; if it fails (a large load: the first,
    /// linear, update of a stiff beam stretches it by orders of magnitude more than the load
    /// does, and the iteration wanders or meets a numerically singular matrix), the
    /// equilibrium is followed from the start configuration by the fixed-point homotopy
    ///   G^T lambda - Q(q) + (1 - s) r0 = 0,   r0 = Q(q0) - G^T lambda0,
    /// in steps of s from 0 (solved by the start) to 1 (the equilibrium), each a Newton solve
    /// from the previous one, halving a step that fails (Allgower & Georg, Introduction to
    /// Numerical Continuation Methods, 1990/2003, Sect. 1-2). Where the internal forces of the
    /// start vanish (stress-free beams), s scales the applied loads: load stepping.
    pub fn static_equilibrium(&mut self, state: &mut MechState) -> Result<u32, String> {
        for s in &mut state.bodies {
            s.v = Vector3::zeros();
            s.w = Vector3::zeros();
            s.acc = Vector3::zeros();
            s.wdot = Vector3::zeros();
        }
        let base = state.clone();
        let full = match self.static_newton(state, &base, None) {
            Ok(iterations) => return Ok(iterations),
            Err(e) => e,
        };
        *state = base.clone();
        let nb = self.mech.n_bodies();
        self.forget_evaluated_point();
        let m = &self.mech;
        m.applied_forces(state.t, &state.bodies, &state.angles, &[], &mut self.loads);
        m.constraint_rows(state.t, &base, &state.bodies, &mut self.ce);
        self.gtl.iter_mut().for_each(|g| *g = [0.0; 6]);
        add_rows_transpose(&m.constraints, &self.ce.rows, &state.lambda, &mut self.gtl);
        let r0: Vec<Wrench> = (0..nb).map(|b| std::array::from_fn(|i| self.loads[b][i] - self.gtl[b][i])).collect();
        let (mut s, mut ds, mut total) = (0.0f64, 0.25f64, 0u32);
        while s < 1.0 {
            let next = (s + ds).min(1.0);
            let start = state.clone();
            match self.static_newton(state, &base, Some((&r0, 1.0 - next))) {
                Ok(iterations) => {
                    total += iterations;
                    s = next;
                    ds = (2.0 * ds).min(0.5);
                }
                Err(e) => {
                    *state = start;
                    ds *= 0.5;
                    if ds < 1.0 / 1024.0 {
                        return Err(format!("{full}; load stepping stalled at load factor {s:.4}: {e}"));
                    }
                }
            }
        }
        Ok(total)
    }

    /// Newton on G^T lambda - Q(q) + f r0 = 0, Phi(q, t0) = 0 from `state`, where `homotopy`
    /// is Some((r0, f)) (None: f = 0).
    fn static_newton(
        &mut self,
        state: &mut MechState,
        base: &MechState,
        homotopy: Option<(&[Wrench], f64)>,
    ) -> Result<u32, String> {
        let nb = self.mech.n_bodies();
        let nc = self.mech.n_constraints();
        let np = self.mech.n_pressures();
        // Static-start cylinders hold their lengths at the start; the pressures of their
        // piston sides are unknowns of the iteration (the pushes that hold the mechanism).
        let held = self.held_cylinders();
        let lengths: Vec<f64> = held.iter().map(|&(c, _)| self.cylinder_length(c, &base.bodies)).collect();
        let mut correction = f64::INFINITY;
        for iteration in 1..=MAX_ITERATIONS {
            self.forget_evaluated_point();
            let m = &self.mech;
            m.applied_forces(state.t, &state.bodies, &state.angles, &[], &mut self.loads);
            m.constraint_rows(state.t, base, &state.bodies, &mut self.ce);
            m.force_jacobians(state.t, &state.bodies, &state.angles, &mut self.jacobian_work, &mut self.jacobians);
            if let (Some(h), Some(w), Some(c)) = (&m.hydraulics, &mut self.circuit, &state.circuit) {
                w.evaluate(m, state, state.t, &state.bodies, &c.p, true)
                    .map_err(|e| format!("static equilibrium: {e}"))?;
                for (k, &f) in w.forces.iter().enumerate() {
                    h.add_load(k, &state.bodies, f, &mut self.loads);
                }
                w.element_jacobians(h, &state.bodies, &mut self.jacobians);
            }
            self.gtl.iter_mut().for_each(|g| *g = [0.0; 6]);
            add_rows_transpose(&m.constraints, &self.ce.rows, &state.lambda, &mut self.gtl);
            // Slots in the order of the dynamic iteration matrix (Index3Dae::factor).
            self.kkt.clear();
            // -K of gravity's moment about a node that carries bodies off the node: the moment
            // s~ A^T g turns with the node, d/dpi = s~ (A^T g)~ (Mechanism::offset_block).
            for (b, (p, s)) in m.bodies.iter().zip(&state.bodies).enumerate() {
                let Some(sm) = &p.static_moment else { continue };
                let k = skew(sm) * skew(&(s.rot.transpose() * m.gravity));
                for i in 0..3 {
                    for j in 0..3 {
                        self.kkt.add(36 * b + 6 * (3 + i) + 3 + j, -k[(i, j)]);
                    }
                }
            }
            let slot = self.add_element_blocks(36 * nb, |jac, r, c| -jac.stiffness[r][c]);
            let slot = self.add_constraint_rows(slot);
            if let Some(w) = self.circuit.take() {
                // Pressure rows: fixed pressures (identity), or a held cylinder's length for
                // its piston side's pressure; dynamic rows: -dF/dp g^T of the unknown ones.
                let (np, unknown) = (np, |v: usize| held.iter().any(|&(_, p)| p == v));
                self.add_circuit_blocks(
                    &w,
                    slot,
                    |a, b| f64::from(u8::from(a == b && !unknown(a))),
                    |i, c| f64::from(u8::from(held.contains(&(c, i)))),
                    |c, v| if unknown(v) { w.jacobian.df_dp[c * np + v] } else { 0.0 },
                );
                self.circuit = Some(w);
            }
            self.kkt.factor().map_err(|e| {
                format!("static equilibrium: the stiffness matrix is singular ({e:?}); every body needs a stiffness or a constraint against each motion")
            })?;
            for b in 0..nb {
                for i in 0..6 {
                    self.rhs[6 * b + i] =
                        self.loads[b][i] - self.gtl[b][i] - homotopy.map_or(0.0, |(r0, f)| f * r0[b][i]);
                }
            }
            for k in 0..nc {
                self.rhs[6 * nb + k] = -self.ce.phi[k];
            }
            for i in 0..np {
                self.rhs[6 * nb + nc + i] = 0.0;
            }
            for (&(c, v), l0) in held.iter().zip(&lengths) {
                self.rhs[6 * nb + nc + v] = l0 - self.cylinder_length(c, &state.bodies);
            }
            if !self.kkt.solve(&mut self.rhs) {
                return Err("static equilibrium: the Newton update is not finite".into());
            }
            correction = 0.0;
            for (b, s) in state.bodies.iter_mut().enumerate() {
                let d = &self.rhs[6 * b..6 * b + 6];
                s.r += Vector3::new(d[0], d[1], d[2]);
                s.rot *= exp(&Vector3::new(d[3], d[4], d[5]));
                correction += d.iter().map(|x| x * x).sum::<f64>();
            }
            for (l, d) in state.lambda.iter_mut().zip(&self.rhs[6 * nb..6 * nb + nc]) {
                *l += d;
            }
            if let Some(c) = &mut state.circuit {
                for &(_, v) in &held {
                    c.p[v] += self.rhs[6 * nb + nc + v];
                }
            }
            correction = correction.sqrt();
            if correction <= TOLERANCE {
                let reference = state.angles.clone();
                self.mech.update_angles(&state.bodies, &reference, &mut state.angles);
                self.spread_held_pressures(state, &held);
                return Ok(iteration);
            }
        }
        Err(format!(
            "static equilibrium: Newton did not converge in {MAX_ITERATIONS} iterations (last correction {correction:.3e})"
        ))
    }
}

impl Index3Dae {
    /// Cylinders with a static start whose push is not given, with their piston sides' volumes.
    fn held_cylinders(&self) -> Vec<(usize, usize)> {
        let Some(h) = &self.mech.hydraulics else { return Vec::new() };
        let c = &h.circuit.cylinders;
        (0..c.len())
            .filter(|&k| c[k].static_start && c[k].initial_force.is_none())
            .map(|k| (k, c[k].piston_side))
            .collect()
    }

    fn cylinder_length(&self, c: usize, bodies: &[super::BodyState]) -> f64 {
        self.mech.hydraulics.as_ref().map_or(0.0, |h| h.line(c, bodies).length)
    }

    /// The held cylinders' pushes F_s0 = p_A A_A - p_B A_B set the start pressures of their
    /// piston sides and the volumes throttles connect to them (no flow at rest) [Jaiswal2021,
    /// Sect. 5].
    fn spread_held_pressures(&self, state: &mut MechState, held: &[(usize, usize)]) {
        let (Some(h), Some(c)) = (&self.mech.hydraulics, &mut state.circuit) else { return };
        if held.is_empty() {
            return;
        }
        let cyl = &h.circuit.cylinders;
        let forces: Vec<Option<f64>> = (0..cyl.len())
            .map(|k| match held.iter().find(|&&(x, _)| x == k) {
                Some(_) => Some(cyl[k].force(c.p[cyl[k].piston_side], c.p[cyl[k].rod_side], 0.0)),
                None => cyl[k].initial_force,
            })
            .collect();
        c.p = h.circuit.initial_pressures(&forces);
    }
}
