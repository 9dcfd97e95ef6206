//! Static equilibrium at the start time (a description's `static_start`): Newton on
//!   G^T lambda - Q(q) = 0,   Phi(q, t0) = 0,
//! with the iteration matrix [-K G^T; G 0] (K = dQ/dq of the force and beam elements, the
//! Jacobian of the reactions G^T lambda dropped as in the dynamic iteration, [Fang2023, Sect.
//! 2.3]). It replaces the slow gravity ramp with temporary damping that the benchmark inputs of
//! Bauchau2016 use to reach equilibrium before t = 0: the state it gives is at rest and exact
//! to the tolerance instead of approximately settled.

use super::forces::Wrench;
use super::{add_rows_transpose, Index3Dae, MechState};
use crate::rotation::exp;
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
        let mut correction = f64::INFINITY;
        for iteration in 1..=MAX_ITERATIONS {
            let m = &self.mech;
            m.applied_forces(state.t, &state.bodies, &state.angles, &[], &mut self.loads);
            m.constraint_rows(state.t, base, &state.bodies, &mut self.ce);
            m.force_jacobians(state.t, &state.bodies, &state.angles, &mut self.jacobian_work, &mut self.jacobians);
            self.gtl.iter_mut().for_each(|g| *g = [0.0; 6]);
            add_rows_transpose(&m.constraints, &self.ce.rows, &state.lambda, &mut self.gtl);
            // Slots in the order of the dynamic iteration matrix (Index3Dae::factor).
            self.kkt.clear();
            let slot = self.add_element_blocks(36 * nb, |jac, r, c| -jac.stiffness[r][c]);
            self.add_constraint_rows(slot);
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
            for (l, d) in state.lambda.iter_mut().zip(&self.rhs[6 * nb..]) {
                *l += d;
            }
            correction = correction.sqrt();
            if correction <= TOLERANCE {
                let reference = state.angles.clone();
                self.mech.update_angles(&state.bodies, &reference, &mut state.angles);
                return Ok(iteration);
            }
        }
        Err(format!(
            "static equilibrium: Newton did not converge in {MAX_ITERATIONS} iterations (last correction {correction:.3e})"
        ))
    }
}
