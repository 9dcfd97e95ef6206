//! Partial derivatives of the semirecursive Model Exchange ODE (`ode.rs`) and of the
//! outputs, for FMI directional derivatives.
//!
//! What is exact and what is differenced, and why:
//! - the circuit's columns (pressures, spools) of the state derivatives are exact: dp'/dp
//!   is the circuit's closed-form Jacobian ([`crate::hydraulics::CircuitJacobian`], exact:
//!   the orifice laws' slopes, d(B_e/V)/d|s| and the seal friction's slope, [Jaiswal2021, eqs.
//!   22-29]), dp'/dU the valves' flows by the spool ([`crate::hydraulics::Circuit::rates_by_spool`]),
//!   dU'/dU = -1/tau (eq. 27); the pressures reach the accelerations and the powers only
//!   through the cylinder forces (eq. 29), linearly: dz''^i/dp = M''^-1 sum_c g_c dF_c/dp
//!   with g_c = R_z^T J_s,c (eqs. 14, 17), dW/dp = sum_c s'_c dF_c/dp. These columns cross
//!   the circuit's kinks (`hydraulics::switching`), where differences would straddle them;
//! - the mechanical columns (z^i, z'^i), the inputs and the outputs' rows are differenced
//!   ([`crate::partials`]): the closed-form Newton tangent of co-simulation (`tangent.rs`)
//!   leaves out the derivatives of M', R_z and the velocity-dependent inertia forces, which
//!   change Newton's convergence but not the solution, so it is not a Jacobian of the ODE.
//!   The seal friction, steep on the scale of its Stribeck velocity, is the monitored law;
//! - time: the equations depend on time only through the work cycle, which is piecewise
//!   constant (its switches are time events), so the column is zero.

use super::Semirecursive;
use crate::formulation::Formulation;
use crate::integrators::StepError;
use crate::partials::{differences, Column, Known, MovesKnowns, Point, Probe, RELATIVE_STEP};
use mbfmu_model::format::Quantity;

impl Semirecursive {
    /// The column of `known` (see the module documentation).
    pub(super) fn ode_partial_column(
        &mut self,
        known: Known,
        quantities: &[Quantity],
        outputs: bool,
        column: &mut Column,
    ) -> Result<(), StepError> {
        let l = self.ode.layout;
        match known {
            Known::Time => {
                column.derivatives.fill(0.0);
                column.outputs.fill(0.0);
                Ok(())
            }
            Known::State(i) if i >= l.pressure() => {
                if outputs {
                    differences(self, known, quantities, true, column)?;
                }
                self.ode_evaluate()?;
                self.exact_circuit_column(i, &mut column.derivatives)
            }
            Known::State(i) if i >= l.velocities() && self.attached_friction() => {
                self.ode_evaluate()?;
                self.ode.velocity_step = self.friction_step(i - l.velocities());
                differences(self, known, quantities, outputs, column)
            }
            _ => differences(self, known, quantities, outputs, column),
        }
    }

    /// True if a cylinder attached to the mechanism has seal friction: its force is then
    /// not quadratic in the rates.
    fn attached_friction(&self) -> bool {
        self.tree.circuit.as_ref().is_some_and(|c| {
            c.cylinders.iter().zip(&self.tree.cylinder_ends).any(|(cyl, ends)| cyl.friction.is_some() && ends.is_some())
        })
    }

    /// The step in the independent rate `k` that moves every attached cylinder's stroke
    /// velocity s' = g_c z'^i (g_c = J_s,c R_z, eqs. 14, 45) by half the monitor's limit of its
    /// Stribeck velocity, or the plain step if that is smaller (at the current point).
    fn friction_step(&mut self, k: usize) -> f64 {
        let l = self.ode.layout;
        let n = self.tree.n_coordinates();
        let f = l.dof;
        let plain = RELATIVE_STEP * self.ode.x[l.velocities() + k].abs().max(1.0);
        let Some(circuit) = &self.tree.circuit else { return plain };
        let w = &mut self.w;
        let mut step = plain;
        for (c, cyl) in circuit.cylinders.iter().enumerate() {
            let (Some(friction), Some(row)) = (&cyl.friction, &w.cylinder_rows[c]) else { continue };
            super::cuts::jacobian_row(&self.tree, &self.kin, row, &mut w.tmp_n[..n]);
            let g: f64 = (0..n).map(|j| self.ode.rz[j * f + k] * w.tmp_n[j]).sum();
            if g != 0.0 {
                step = step.min(0.5 * crate::partials::MONITOR_LIMIT * friction.stribeck_velocity / g.abs());
            }
        }
        step
    }

    /// The state derivatives' column of a pressure, spool or work state in closed form.
    fn exact_circuit_column(&mut self, i: usize, out: &mut [f64]) -> Result<(), StepError> {
        let l = self.ode.layout;
        let t = self.state.t;
        out.fill(0.0);
        let Some(circuit) = &self.tree.circuit else { return Ok(()) };
        let model = |e: crate::hydraulics::CircuitError| StepError::Model { time: t, what: e.to_string() };
        let (np, ns, nc) = (l.pressures, l.spools, l.cylinders);
        // Sources whose pressure is an input and inflows: the inputs as the host set them now.
        self.inputs.values_at(t, &mut self.w.u);
        let st = &self.state;
        if i < l.spool() {
            let q = i - l.pressure();
            let w = &mut self.w;
            circuit.jacobian(t, &st.p, &st.spools, &self.strokes, &w.u, &mut w.jac).map_err(model)?;
            for r in 0..np {
                out[l.pressure() + r] = w.jac.dp_dp[r * np + q];
            }
            // The forces' change, through the accelerations and the powers.
            let f = l.dof;
            let n = self.tree.n_coordinates();
            let ode = &mut self.ode;
            ode.rhs.fill(0.0);
            // Every actuator: the cylinders (with their work states), then the motors.
            for c in 0..self.strokes.len() {
                let df = w.jac.df_dp[c * np + q];
                if df == 0.0 {
                    continue;
                }
                if c < nc {
                    out[l.cylinder_work() + c] = self.strokes[c].velocity * df;
                }
                let Some(row) = &w.cylinder_rows[c] else { continue };
                if l.work == 1 {
                    out[l.work_state()] += self.strokes[c].velocity * df;
                }
                super::cuts::jacobian_row(&self.tree, &self.kin, row, &mut w.tmp_n[..n]);
                for a in 0..f {
                    ode.rhs[a] += df * (0..n).map(|j| ode.rz[j * f + a] * w.tmp_n[j]).sum::<f64>();
                }
            }
            if f > 0 {
                ode.reduced.solve(&mut ode.rhs, &mut ode.tmp);
                out[l.velocities()..l.pressure()].copy_from_slice(&ode.rhs);
            }
        } else if i < l.work_state() {
            let k = i - l.spool();
            circuit
                .rates_by_spool(&st.p, &st.spools, &self.strokes, &self.w.u, &mut self.ode.by_spool)
                .map_err(model)?;
            for r in 0..np {
                out[l.pressure() + r] = self.ode.by_spool[r * ns + k];
            }
            out[i] = -1.0 / circuit.valves[k].time_constant;
        }
        Ok(())
    }

    /// Number of laws the differences monitor: the cylinders (their seal friction).
    pub(super) fn ode_monitored_laws(&self) -> usize {
        self.ode.layout.cylinders
    }
}

impl MovesKnowns for Semirecursive {
    fn point(&mut self) -> Point<'_> {
        Point { states: &mut self.ode.x, inputs: &mut self.inputs, time: &mut self.state.t }
    }
}

impl Probe for Semirecursive {
    fn probe(
        &mut self,
        known: Known,
        delta: f64,
        quantities: &[Quantity],
        dx: &mut [f64],
        y: &mut [f64],
        monitor: &mut [f64],
    ) -> Result<(), StepError> {
        // Moves the known, evaluates and reads, and puts the known back in any case.
        let mut evaluate = |s: &mut Semirecursive| -> Result<(), StepError> {
            s.ode.stale = true;
            s.ode_evaluate()?;
            dx.copy_from_slice(&s.ode.dx);
            if !y.is_empty() {
                s.quantities(quantities, y);
            }
            // The seal friction's argument over its scale (eq. 29 with the circuit's law).
            if let Some(c) = &s.tree.circuit {
                for (m, (cyl, stroke)) in monitor.iter_mut().zip(c.cylinders.iter().zip(&s.strokes)) {
                    *m = cyl.friction.as_ref().map_or(0.0, |f| stroke.velocity / f.stribeck_velocity);
                }
            }
            Ok(())
        };
        let result = self.moved(known, delta, &mut evaluate);
        // The point is evaluated again when next needed.
        self.ode.stale = true;
        result
    }

    /// The rates enter quadratically (eqs. 2-3, 10: velocity products) unless an attached
    /// cylinder's seal friction makes its force a function of its stroke velocity (eq. 29).
    fn quadratic(&self, known: Known) -> bool {
        let l = self.ode.layout;
        matches!(known, Known::State(i) if (l.velocities()..l.pressure()).contains(&i)) && !self.attached_friction()
    }

    fn step(&self, known: Known) -> f64 {
        let l = self.ode.layout;
        if let Known::State(i) = known {
            if (l.velocities()..l.pressure()).contains(&i) && self.attached_friction() {
                return self.ode.velocity_step;
            }
        }
        let scale = match known {
            // Pressures: the outputs are linear in them (the state derivatives' columns are exact).
            Known::State(i) if (l.pressure()..l.spool()).contains(&i) => self.ode.x[i].abs().max(1e5),
            Known::State(i) => self.ode.x[i].abs().max(1.0),
            Known::Input(i) => self.inputs.at(i, self.state.t).abs().max(1.0),
            Known::Time => 1.0,
        };
        RELATIVE_STEP * scale
    }
}
