//! The integrators of \[Negrut1997\] on the state-space ODE y = [v; v'], y' = [v'; v''(t, v, v')]:
//!
//! - implicit trapezoidal rule (Sect. 2-3.2): v_{n+1} = v~ + beta h^2 v''_{n+1},
//!   v'_{n+1} = v~' + gamma h v''_{n+1} (eqs. 15-16) with beta = 1/4, gamma = 1/2,
//!   v~ = v_n + h v'_n + h^2/4 v''_n, v~' = v'_n + h/2 v''_n; Newton on v''_{n+1} (eq. 14)
//!   from the predictor v''_{n+1} = v''_n (Sect. 3.2);
//! - its variable-step form: embedded backward Euler, y_1 - y^_1 = h/2 (f(y_0) - f(y_1))
//!   (no extra solve), the error norm of eq. 21, h_opt of eq. 22 with q = 1, safety factor
//!   0.85, local extrapolation (the trapezoidal solution is kept);
//! - the explicit Adams-Bashforth-Moulton pair of eq. 20 (Euler predictor, one trapezoidal
//!   corrector) at constant step;
//! - SDIRK4 of Hairer and Wanner with its embedded order-3 solution (q = 3), each stage a
//!   Newton solve of the same form (eqs. 15-16 with beta = gamma_RK^2, gamma = gamma_RK);
//! - the explicit Runge-Kutta methods of `explicit`: RK4 at constant step, DOPRI5 and DOP853
//!   under the same error control (their own estimators), each stage one evaluation of the
//!   ODE (dependent positions by Newton, then velocities and accelerations).
//!
//! Communication points: DOPRI5 and DOP853 (also `auto` while it runs DOP853) step past them
//! with their natural steps and leave the state at the interpolated point of their dense
//! output \[HairerNorsettWanner1993, Sect. II.6, II.10\] (`integrators::dense`): the ODE state
//! [v; v'] from the interpolant, the dependent coordinates, velocities and accelerations
//! evaluated there from the last completed step (the base). The step itself stays pending: the
//! next advance interpolates again where its end lies inside it, and otherwise completes it
//! (its end point evaluated again from the same base, anchor and chart, as the step did) and
//! steps on. New inputs at the point (the state is stale) or a switched-off dense output
//! restart from the interpolated state, as after a step shortened to land there. The other
//! variable-step methods shorten their last step to land exactly on the communication point.

use super::{sdirk, StateSpace};
use crate::formulation::{Meter, Progress};
use crate::index3::Mechanism;
use crate::integrators::explicit::{self, Explicit};
use crate::integrators::{Convergence, NewtonSettings, StepError};
use crate::settings::StateSpaceSettings;
use mbfmu_model::format::Method;

use crate::integrators::step_control::{
    first_guess, plan, recoverable, starting_step, step_factor, GROWTH_MAX, GROWTH_MIN, NEWTON_FAILURE_FACTOR,
};

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

impl StateSpace {
    /// Advances the current state to `t_end`: constant-step methods in equal steps no larger
    /// than `settings.step_size`, variable-step methods under error control with steps no
    /// larger than it; each step attempt (accepted or rejected) charged to `meter` with its
    /// evaluations (Newton solves for the dependent positions and reduced accelerations,
    /// those of numerical Jacobians included), none started once its budget is spent. On
    /// error the
    /// state is the last accepted one; so it is when the budget runs out first
    /// ([`Progress::Budget`]).
    pub fn advance_to(
        &mut self,
        mech: &Mechanism,
        t_end: f64,
        settings: &StateSpaceSettings,
        meter: &mut Meter,
    ) -> Result<Progress, StepError> {
        let t0 = self.current.t;
        let span = t_end - t0;
        if !span.is_finite() || span < 0.0 {
            return Err(StepError::BadStep { time: t0, h: span });
        }
        if span == 0.0 {
            return Ok(Progress::Reached);
        }
        let continuing = self.dense.pending && self.dense_output() && !self.stale && self.dense.at == t0;
        if !continuing {
            self.drop_pending();
        }
        // New inputs at the communication point: the step starts from the state they give.
        if self.stale {
            self.ode_evaluate(mech, &settings.newton)?;
            self.base.clone_from(&self.current);
        }
        if continuing {
            return self.continue_pending(mech, t_end, settings, meter);
        }
        if self.running().variable_step() {
            return self.variable_steps(mech, t_end, settings, meter);
        }
        let n = ((span / settings.step_size) * (1.0 - 1e-12)).ceil().max(1.0);
        // More steps than can ever be taken; a budget below that bounds the work instead.
        let budget = meter.budget();
        if n > 1e12 && budget.steps as f64 > 1e12 && budget.work == u64::MAX {
            return Err(StepError::BadStep { time: t0, h: settings.step_size });
        }
        let n = n as u64;
        for i in 1..=n {
            if meter.exhausted().is_some() {
                return Ok(Progress::Budget);
            }
            let target = if i == n { t_end } else { t0 + span * (i as f64 / n as f64) };
            let t = self.current.t;
            let before = self.work_evaluations();
            let attempt = self.attempt(mech, t, target - t, target, &settings.newton);
            meter.charge(self.work_evaluations().saturating_sub(before));
            let (_, iterations) = attempt?;
            self.accept(mech, target, iterations, &settings.newton)?;
        }
        Ok(Progress::Reached)
    }

    fn variable_steps(
        &mut self,
        mech: &Mechanism,
        t_end: f64,
        settings: &StateSpaceSettings,
        meter: &mut Meter,
    ) -> Result<Progress, StepError> {
        let newton = &settings.newton;
        let mut exponent = self.exponent();
        if self.h_next.is_nan() || self.h_next <= 0.0 {
            self.h_next = self.initial_step(mech, t_end, settings, exponent)?;
        }
        let mut rejected_last = false;
        while self.current.t < t_end {
            if meter.exhausted().is_some() {
                return Ok(Progress::Budget);
            }
            let t = self.current.t;
            let proposed = self.h_next.min(settings.step_size);
            let dense = self.dense_output();
            let (h, t_new, clipped) = plan(t, proposed, t_end, None, dense);
            if h.is_nan() || h <= 1e-14 * t.abs().max(1.0) {
                return Err(StepError::BadStep { time: t, h });
            }
            let before = self.work_evaluations();
            let attempt = self.attempt(mech, t, h, t_new, newton);
            meter.charge(self.work_evaluations().saturating_sub(before));
            match attempt {
                Ok((err, _)) if err <= 1.0 && dense && t_new > t_end => {
                    let limit = if rejected_last { 1.0 } else { GROWTH_MAX };
                    self.h_next = h * step_factor(err, exponent, limit);
                    // Past the communication point: the step stays pending, the state is the
                    // interpolated one at t_end.
                    self.interpolant(mech, t, h, t_new, newton)?;
                    self.leave_at(mech, t_end, newton)?;
                    if self.method == Method::Auto && !self.auto.stiff && self.stiffness_detected(t_end) {
                        // SDIRK4 starts from the communication point.
                        self.dense.pending = false;
                        self.base.clone_from(&self.current);
                    }
                    return Ok(Progress::Reached);
                }
                Ok((err, iterations)) if err <= 1.0 => {
                    self.accept(mech, t_new, iterations, newton)?;
                    let limit = if rejected_last { 1.0 } else { GROWTH_MAX };
                    self.h_next = h * step_factor(err, exponent, limit);
                    if clipped {
                        self.h_next = self.h_next.max(proposed);
                    }
                    rejected_last = false;
                    // A step shortened to land on the communication point says nothing of
                    // what limits the steps.
                    if self.method == Method::Auto && !self.auto.stiff && !clipped && self.stiffness_detected(t_new) {
                        exponent = self.exponent();
                    }
                }
                Ok((err, _)) => {
                    self.counters.rejected += 1;
                    rejected_last = true;
                    self.h_next = h * if err.is_finite() { step_factor(err, exponent, 1.0) } else { GROWTH_MIN };
                }
                Err(e) if recoverable(&e) => {
                    self.counters.rejected += 1;
                    rejected_last = true;
                    self.h_next = h * NEWTON_FAILURE_FACTOR;
                    if self.h_next.is_nan() || self.h_next <= 1e-14 * t.abs().max(1.0) {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(Progress::Reached)
    }

    /// True if the running method steps past communication points (a pair with dense output,
    /// switched on, with independent coordinates to interpolate).
    fn dense_output(&self) -> bool {
        self.control.dense_output
            && self.red.nd > 0
            && !self.dense.is_empty()
            && explicit::of(self.running()).is_some_and(|m| m.dense.is_some())
    }

    /// Drops a pending step: the run restarts from the interpolated point it left (the current
    /// state), as after a step shortened to land there.
    pub(super) fn drop_pending(&mut self) {
        if self.dense.pending {
            self.dense.pending = false;
            self.base.clone_from(&self.current);
        }
    }

    /// Continues the pending step: the state is its interpolated point at the current time.
    /// An end inside the step is interpolated again; otherwise the step's end point is
    /// evaluated again (from the same base, anchor and chart as the step evaluated it) and
    /// accepted, and the advance steps on from there.
    fn continue_pending(
        &mut self,
        mech: &Mechanism,
        t_end: f64,
        settings: &StateSpaceSettings,
        meter: &mut Meter,
    ) -> Result<Progress, StepError> {
        let newton = &settings.newton;
        if t_end < self.dense.t_new {
            self.leave_at(mech, t_end, newton)?;
            return Ok(Progress::Reached);
        }
        self.dense.pending = false;
        let before = self.work_evaluations();
        let completed = self.complete_pending(mech, newton);
        meter.charge(self.work_evaluations().saturating_sub(before));
        if let Err(e) = completed {
            // The run restarts from the state it is at.
            self.base.clone_from(&self.current);
            return Err(e);
        }
        if self.current.t >= t_end {
            return Ok(Progress::Reached);
        }
        self.variable_steps(mech, t_end, settings, meter)
    }

    /// The pending step's end point evaluated again and accepted.
    fn complete_pending(&mut self, mech: &Mechanism, newton: &NewtonSettings) -> Result<(), StepError> {
        let nd = self.red.nd;
        let t_new = self.dense.t_new;
        self.evaluated = false;
        self.y_new.copy_from_slice(&self.dense.end);
        self.v.copy_from_slice(&self.y_new[..nd]);
        self.vd.copy_from_slice(&self.y_new[nd..]);
        self.red.hold_friction(mech, &self.base);
        self.red.positions(mech, &self.chart, t_new, &self.base, &self.v, newton)?;
        self.red.velocities(mech, t_new, &self.base, &self.vd)?;
        self.red.accelerations(mech, t_new, &mut self.a_new)?;
        self.accept(mech, t_new, 0, newton)
    }

    /// The interpolant of the accepted explicit step of size `h` from (t, y) to (t_new, y_new)
    /// into `dense`, after the extra stages of the method's extension (DOP853's three: stage
    /// i at V_i = v_n + h sum_j a_ij V'_j, V'_i = v'_n + h sum_j a_ij A_j as in
    /// [`StateSpace::explicit`]) \[HairerNorsettWanner1993, Sect. II.6, II.10\].
    fn interpolant(
        &mut self,
        mech: &Mechanism,
        t: f64,
        h: f64,
        t_new: f64,
        newton: &NewtonSettings,
    ) -> Result<(), StepError> {
        let Some(ext) = explicit::of(self.running()).and_then(|m| m.dense) else {
            return Err(StepError::BadStep { time: t, h });
        };
        let nd = self.red.nd;
        // The new point's stage: its velocities are y_new's (a first-same-as-last method's
        // last stage holds them already).
        self.stage_vd[ext.new_point].copy_from_slice(&self.y_new[nd..]);
        self.stage_a[ext.new_point].copy_from_slice(&self.a_new);
        for (e, (c, a)) in ext.extra_c.iter().zip(ext.extra_a).enumerate() {
            let s = ext.new_point + 1 + e;
            for i in 0..nd {
                self.v[i] = self.y[i] + h * combine(a, &self.stage_vd, i);
                self.vd[i] = self.y[nd + i] + h * combine(a, &self.stage_a, i);
            }
            self.stage_vd[s].copy_from_slice(&self.vd);
            self.ode_rhs(mech, t + c * h, newton, s)?;
        }
        let (vd, acc) = (&self.stage_vd, &self.stage_a);
        let k = |i: usize, c: usize| if c < nd { vd[i][c] } else { acc[i][c - nd] };
        self.dense.form(ext, t, h, t_new, &self.y, &self.y_new, k);
        Ok(())
    }

    /// Leaves the state at the interpolated point of the pending step at `t`: [v; v'] from the
    /// interpolant, the dependent coordinates, velocities and accelerations evaluated from the
    /// base. On error the state is as it was.
    fn leave_at(&mut self, mech: &Mechanism, t: f64, newton: &NewtonSettings) -> Result<(), StepError> {
        let left = self.interpolated_state(mech, t, newton);
        if left.is_err() && self.current.t != self.base.t {
            // The state is an earlier interpolated point: the run restarts from it.
            self.base.clone_from(&self.current);
        }
        left
    }

    fn interpolated_state(&mut self, mech: &Mechanism, t: f64, newton: &NewtonSettings) -> Result<(), StepError> {
        let nd = self.red.nd;
        self.evaluated = false;
        self.dense.pending = false;
        self.dense.value(t, &mut self.err);
        self.v.copy_from_slice(&self.err[..nd]);
        self.vd.copy_from_slice(&self.err[nd..]);
        self.red.hold_friction(mech, &self.base);
        self.red.positions(mech, &self.chart, t, &self.base, &self.v, newton)?;
        self.red.velocities(mech, t, &self.base, &self.vd)?;
        self.red.accelerations(mech, t, &mut self.a_new)?;
        self.y.copy_from_slice(&self.err);
        self.a.copy_from_slice(&self.a_new);
        self.red.write_state(mech, t, &self.base, &mut self.current);
        self.evaluated = true;
        self.dense.at = t;
        self.dense.pending = true;
        Ok(())
    }

    /// 1 / (q + 1), q the order of the running method's error estimate.
    fn exponent(&self) -> f64 {
        match (self.running(), explicit::of(self.running())) {
            (_, Some(tableau)) => tableau.exponent,
            (Method::Sdirk4, None) => 1.0 / 4.0,
            _ => 1.0 / 2.0,
        }
    }

    /// `auto` after an accepted DOP853 step at `t`: records the step's stiffness estimate and
    /// switches to SDIRK4 when the test proves the problem stiff \[HairerWanner1996, Sect. IV.2\];
    /// true when it switched.
    fn stiffness_detected(&mut self, t: f64) -> bool {
        let boundary = explicit::DOP853.stability_boundary;
        if !self.auto.test.record(self.h_lambda, boundary) {
            return false;
        }
        self.auto.stiff = true;
        self.jac.stale = true;
        self.notice = Some(format!(
            "solver.method auto: the problem became stiff at t = {t} (step times the dominant eigenvalue estimated at \
             {:.2}, DOP853's stability boundary {boundary}), so SDIRK4 integrates from here on",
            self.h_lambda
        ));
        true
    }

    /// Starting step of \[HairerNorsettWanner1993, Sect. II.4\]: h0 = 0.01 |y0| / |f0| in the
    /// tolerance-weighted norm, refined by one explicit Euler step with the estimated second
    /// derivative.
    fn initial_step(
        &mut self,
        mech: &Mechanism,
        t_end: f64,
        settings: &StateSpaceSettings,
        exponent: f64,
    ) -> Result<f64, StepError> {
        let nd = self.red.nd;
        let t = self.current.t;
        let hmax = settings.step_size.min(t_end - t);
        if nd == 0 {
            return Ok(hmax);
        }
        let scale = |s: &Self, i: usize| {
            let e = s.control.atol + s.y[i].abs() * s.control.rtol;
            if i < nd {
                e
            } else {
                e * s.control.velocity_factor
            }
        };
        let (mut d0, mut d1) = (0.0, 0.0);
        for i in 0..2 * nd {
            let f = if i < nd { self.y[nd + i] } else { self.a[i - nd] };
            d0 += (self.y[i] / scale(self, i)).powi(2);
            d1 += (f / scale(self, i)).powi(2);
        }
        let (d0, d1) = ((d0 / (2 * nd) as f64).sqrt(), (d1 / (2 * nd) as f64).sqrt());
        let h0 = first_guess(d0, d1, hmax);
        self.evaluated = false;
        for c in 0..nd {
            self.v[c] = self.y[c] + h0 * self.y[nd + c];
            self.vd[c] = self.y[nd + c] + h0 * self.a[c];
        }
        self.red.hold_friction(mech, &self.base);
        self.red.positions(mech, &self.chart, t + h0, &self.base, &self.v, &settings.newton)?;
        self.red.velocities(mech, t + h0, &self.base, &self.vd)?;
        self.red.accelerations(mech, t + h0, &mut self.a_new)?;
        let mut d2 = 0.0;
        for i in 0..2 * nd {
            let df = if i < nd { self.vd[i] - self.y[nd + i] } else { self.a_new[i - nd] - self.a[i - nd] };
            d2 += (df / scale(self, i)).powi(2);
        }
        let d2 = (d2 / (2 * nd) as f64).sqrt() / h0;
        Ok(starting_step(h0, d1, d2, exponent, hmax))
    }

    /// One step from `t` (the current state) of size `h` to `t_new`; returns the error norm
    /// of eq. 21 (0 for constant-step methods) and the Newton iterations. The new point is
    /// in `y_new`, `a_new` and the last evaluation.
    fn attempt(
        &mut self,
        mech: &Mechanism,
        t: f64,
        h: f64,
        t_new: f64,
        newton: &NewtonSettings,
    ) -> Result<(f64, u32), StepError> {
        self.evaluated = false;
        self.red.hold_friction(mech, &self.base);
        let nd = self.red.nd;
        match self.running() {
            Method::TrapezoidalConstantStep | Method::TrapezoidalVariableStep => {
                for c in 0..nd {
                    self.tv[c] = self.y[c] + h * self.y[nd + c] + 0.25 * h * h * self.a[c];
                    self.tvd[c] = self.y[nd + c] + 0.5 * h * self.a[c];
                    self.a_new[c] = self.a[c];
                }
                let (bh, gh) = (0.25 * h * h, 0.5 * h);
                let iterations = self.solve_stage(mech, t_new, bh, gh, newton)?;
                for c in 0..nd {
                    self.y_new[c] = self.tv[c] + bh * self.a_new[c];
                    self.y_new[nd + c] = self.tvd[c] + gh * self.a_new[c];
                }
                if self.method == Method::TrapezoidalConstantStep {
                    return Ok((0.0, iterations));
                }
                // Trapezoidal minus embedded backward Euler.
                for c in 0..nd {
                    self.err[c] = 0.5 * h * (self.y[nd + c] - self.y_new[nd + c]);
                    self.err[nd + c] = 0.5 * h * (self.a[c] - self.a_new[c]);
                }
                Ok((self.error_norm(), iterations))
            }
            Method::Abm2 => {
                // Eq. 20': Euler predictor; eq. 20'': one trapezoidal corrector.
                for c in 0..nd {
                    self.v[c] = self.y[c] + h * self.y[nd + c];
                    self.vd[c] = self.y[nd + c] + h * self.a[c];
                }
                self.ode_rhs(mech, t_new, newton, 0)?;
                for c in 0..nd {
                    self.y_new[c] = self.y[c] + 0.5 * h * (self.y[nd + c] + self.vd[c]);
                    self.y_new[nd + c] = self.y[nd + c] + 0.5 * h * (self.a[c] + self.stage_a[0][c]);
                    self.v[c] = self.y_new[c];
                    self.vd[c] = self.y_new[nd + c];
                }
                self.ode_rhs(mech, t_new, newton, 1)?;
                self.a_new.copy_from_slice(&self.stage_a[1]);
                Ok((0.0, 0))
            }
            Method::Sdirk4 => self.sdirk4(mech, t, h, newton),
            Method::Rk4 | Method::Dopri5 | Method::Dop853 => {
                let tableau = explicit::of(self.running()).expect("every explicit method has a tableau");
                self.explicit(mech, t, h, t_new, tableau, newton)
            }
            other => Err(StepError::NonFinite {
                time: t,
                what: format!("method {} is not a method of the state-space formulation", other.item_name()),
            }),
        }
    }

    /// The ODE right side at (t, self.v, self.vd) into `stage_a[slot]`.
    fn ode_rhs(&mut self, mech: &Mechanism, t: f64, newton: &NewtonSettings, slot: usize) -> Result<(), StepError> {
        self.red.positions(mech, &self.chart, t, &self.base, &self.v, newton)?;
        self.red.velocities(mech, t, &self.base, &self.vd)?;
        self.red.accelerations(mech, t, &mut self.stage_a[slot])
    }

    fn sdirk4(&mut self, mech: &Mechanism, t: f64, h: f64, newton: &NewtonSettings) -> Result<(f64, u32), StepError> {
        use sdirk::{A, B_HAT, C, GAMMA, STAGES};
        let nd = self.red.nd;
        let a2 = sdirk::a_squared();
        let (bh, gh) = ((GAMMA * h).powi(2), GAMMA * h);
        let mut iterations = 0;
        for i in 0..STAGES {
            for c in 0..nd {
                let (mut sv, mut svd) = (0.0, 0.0);
                for j in 0..i {
                    svd += A[i][j] * self.stage_a[j][c];
                    sv += a2[i][j] * self.stage_a[j][c];
                }
                self.tvd[c] = self.y[nd + c] + h * svd;
                self.tv[c] = self.y[c] + h * C[i] * self.y[nd + c] + h * h * sv;
                self.a_new[c] = if i == 0 { self.a[c] } else { self.stage_a[i - 1][c] };
            }
            iterations += self.solve_stage(mech, t + C[i] * h, bh, gh, newton)?;
            for c in 0..nd {
                self.stage_a[i][c] = self.a_new[c];
                self.stage_vd[i][c] = self.tvd[c] + gh * self.a_new[c];
            }
        }
        // Stiffly accurate: the last stage is the solution.
        for c in 0..nd {
            self.y_new[c] = self.tv[c] + bh * self.a_new[c];
            self.y_new[nd + c] = self.stage_vd[STAGES - 1][c];
            let (mut ev, mut evd) = (0.0, 0.0);
            for (j, (b, b_hat)) in sdirk::B.iter().zip(B_HAT).enumerate() {
                let d = b - b_hat;
                ev += d * self.stage_vd[j][c];
                evd += d * self.stage_a[j][c];
            }
            self.err[c] = h * ev;
            self.err[nd + c] = h * evd;
        }
        Ok((self.error_norm(), iterations))
    }

    /// One explicit Runge-Kutta step of the second-order system y = [v; v'], y' = [v'; v'']:
    /// stage i at V_i = v_n + h sum_j a_ij V'_j, V'_i = v'_n + h sum_j a_ij A_j with
    /// A_i = v''(t + c_i h, V_i, V'_i) \[HairerNorsettWanner1993, Sect. II.1\], and
    /// v_{n+1} = v_n + h sum_j b_j V'_j, v'_{n+1} = v'_n + h sum_j b_j A_j. Stage 0 is the
    /// current point, whose accelerations the last step left. The new point is evaluated last
    /// (for first-same-as-last methods it is the last stage), so the next step starts from it.
    /// Returns the error norm (0 at constant step) and no Newton iterations.
    fn explicit(
        &mut self,
        mech: &Mechanism,
        t: f64,
        h: f64,
        t_new: f64,
        m: &Explicit,
        newton: &NewtonSettings,
    ) -> Result<(f64, u32), StepError> {
        let nd = self.red.nd;
        let stages = m.stages();
        if nd == 0 {
            // No independent coordinate (a mechanism driven through all its freedoms): the
            // motion is the drivers', and one evaluation at the new point gives it.
            self.ode_rhs(mech, t_new, newton, stages)?;
            self.h_lambda = 0.0;
            return Ok((0.0, 0));
        }
        self.stage_vd[0].copy_from_slice(&self.y[nd..]);
        self.stage_a[0].copy_from_slice(&self.a);
        for i in 1..stages {
            for c in 0..nd {
                self.v[c] = self.y[c] + h * combine(m.a[i], &self.stage_vd, c);
                self.vd[c] = self.y[nd + c] + h * combine(m.a[i], &self.stage_a, c);
            }
            self.stage_vd[i].copy_from_slice(&self.vd);
            let t_stage = if m.c[i] == 1.0 { t_new } else { t + m.c[i] * h };
            self.ode_rhs(mech, t_stage, newton, i)?;
        }
        for c in 0..nd {
            self.y_new[c] = self.y[c] + h * combine(m.b, &self.stage_vd, c);
            self.y_new[nd + c] = self.y[nd + c] + h * combine(m.b, &self.stage_a, c);
        }
        if m.fsal {
            // The last stage's sums are the solution's (a_sj = b_j, b_s = 0): it is the new point.
            self.a_new.copy_from_slice(&self.stage_a[stages - 1]);
            self.h_lambda = 0.0;
        } else {
            // The stiffness estimate from the last stage (c = 1) and the new point: h times
            // |f(y_new) - f(Y_s)| / |y_new - Y_s| \[HairerWanner1996, Sect. IV.2\].
            let (mut dy, mut df) = (0.0, 0.0);
            for c in 0..nd {
                dy += (self.y_new[c] - self.v[c]).powi(2) + (self.y_new[nd + c] - self.vd[c]).powi(2);
            }
            self.v.copy_from_slice(&self.y_new[..nd]);
            self.vd.copy_from_slice(&self.y_new[nd..]);
            self.ode_rhs(mech, t_new, newton, stages)?;
            self.a_new.copy_from_slice(&self.stage_a[stages]);
            for c in 0..nd {
                df += (self.y_new[nd + c] - self.stage_vd[stages - 1][c]).powi(2)
                    + (self.a_new[c] - self.stage_a[stages - 1][c]).powi(2);
            }
            self.h_lambda = if dy > 0.0 && m.c[stages - 1] == 1.0 { h * (df / dy).sqrt() } else { 0.0 };
        }
        if m.e.is_empty() {
            return Ok((0.0, 0));
        }
        let mut third = 0.0;
        if !m.e3.is_empty() {
            self.explicit_error(m.e3, h);
            third = self.error_norm();
        }
        self.explicit_error(m.e, h);
        let fifth = self.error_norm();
        if m.e3.is_empty() {
            return Ok((fifth, 0));
        }
        // In the RMS norms of eq. 21.
        Ok((explicit::dop853_error(fifth, third), 0))
    }

    /// h sum_j e_j [V'_j; A_j] into `err`.
    fn explicit_error(&mut self, e: &[f64], h: f64) {
        let nd = self.red.nd;
        for c in 0..nd {
            self.err[c] = h * combine(e, &self.stage_vd, c);
            self.err[nd + c] = h * combine(e, &self.stage_a, c);
        }
    }

    /// RMS norm of eq. 21 over the independent positions and velocities.
    fn error_norm(&self) -> f64 {
        let nd = self.red.nd;
        if nd == 0 {
            return 0.0;
        }
        let ctl = &self.control;
        let mut s = 0.0;
        for i in 0..2 * nd {
            let e = ctl.atol + self.y[i].abs().max(self.y_new[i].abs()) * ctl.rtol;
            let e = if i < nd { e } else { e * ctl.velocity_factor };
            s += (self.err[i] / e).powi(2);
        }
        (s / (2 * nd) as f64).sqrt()
    }

    /// Newton on Psi(v'') = 0 (eq. 14) for one implicit stage v = v~ + bh v'', v' = v~' + gh v''
    /// (eqs. 15-16; `tv`, `tvd`), starting from and returning in `a_new`. The iteration matrix
    /// M_hat + gh dPsi/dv' + bh dPsi/dv (eq. 19 through eqs. 17-18) is formed at the first
    /// iterate; its numerical derivative parts are reused from earlier steps and refreshed
    /// when the correction shrinks by less than half. Converged when the velocity-level
    /// change max(bh, gh) |dv''| is below the Newton tolerance (scaled to the velocities, or
    /// stagnating at the round-off floor: `integrators::convergence`); the last evaluation is
    /// at the returned accelerations.
    fn solve_stage(
        &mut self,
        mech: &Mechanism,
        t: f64,
        bh: f64,
        gh: f64,
        newton: &NewtonSettings,
    ) -> Result<u32, StepError> {
        let nd = self.red.nd;
        // Variable-step methods: the Newton error must stay well below the local error the
        // controller estimates (a hundredth of the absolute velocity tolerance).
        let tolerance = if self.running().variable_step() {
            newton.tolerance.min(1e-2 * self.control.velocity_factor * self.control.atol)
        } else {
            newton.tolerance
        };
        let mut formed = false;
        let mut refreshed = false;
        let mut previous = f64::INFINITY;
        let mut size = f64::NAN;
        let mut test = Convergence::new(tolerance);
        for iteration in 1..=newton.max_iterations.max(1) {
            for c in 0..nd {
                self.v[c] = self.tv[c] + bh * self.a_new[c];
                self.vd[c] = self.tvd[c] + gh * self.a_new[c];
            }
            if self.jac.stale {
                self.red.psi_derivatives(
                    mech,
                    &self.chart,
                    t,
                    &self.base,
                    &mut self.v,
                    &mut self.vd,
                    &self.a_new,
                    newton,
                    &mut self.scratch,
                    &mut self.jac.d_v,
                    &mut self.jac.d_vd,
                )?;
                self.jac.stale = false;
                refreshed = true;
                formed = false;
            } else {
                self.red.evaluate(mech, &self.chart, t, &self.base, &self.v, &self.vd, &self.a_new, newton)?;
            }
            if !formed {
                self.red.mass_matrix(mech);
                let mut j = self.jac.lu.matrix();
                for col in 0..nd {
                    for row in 0..nd {
                        j[(row, col)] =
                            self.red.mhat[(row, col)] + gh * self.jac.d_vd[(row, col)] + bh * self.jac.d_v[(row, col)];
                    }
                }
                self.jac.lu.factor().map_err(|_| StepError::Singular {
                    time: t,
                    detail: "the Newton matrix of the independent accelerations (Negrut et al., eq. 19) is singular"
                        .into(),
                })?;
                formed = true;
            }
            for (d, p) in self.da.iter_mut().zip(&self.red.psi) {
                *d = -p;
            }
            self.jac.lu.solve(&mut self.da);
            size = bh.max(gh) * norm(&self.da);
            if !size.is_finite() {
                return Err(StepError::NonFinite {
                    time: t,
                    what: "Newton correction of the independent accelerations".into(),
                });
            }
            // The velocity-level unknowns v' = v~' + gh v'' for the relative part of the
            // tolerance (`integrators::convergence`).
            if self.floor.settle(test.check(size, || norm(&self.vd)), t) {
                return Ok(iteration);
            }
            if iteration > 1 && size > 0.5 * previous && !refreshed {
                self.jac.stale = true;
            }
            for (a, d) in self.a_new.iter_mut().zip(&self.da) {
                *a += d;
            }
            previous = size;
        }
        self.jac.stale = true;
        Err(StepError::NotConverged {
            time: t,
            iterations: newton.max_iterations,
            norm: size,
            tolerance: newton.tolerance,
        })
    }

    /// Makes the attempted step the current state; re-chooses the partition if needed.
    fn accept(
        &mut self,
        mech: &Mechanism,
        t_new: f64,
        iterations: u32,
        newton: &NewtonSettings,
    ) -> Result<(), StepError> {
        self.y.copy_from_slice(&self.y_new);
        self.a.copy_from_slice(&self.a_new);
        self.red.write_state(mech, t_new, &self.base, &mut self.current);
        self.base.clone_from(&self.current);
        self.red.set_anchor();
        self.evaluated = true;
        self.counters.steps += 1;
        self.counters.last_iterations = iterations;
        self.counters.total_iterations += u64::from(iterations);
        if self.needs_new_partition() {
            self.choose_partition(mech, newton)?;
        }
        Ok(())
    }
}

/// sum_j w_j stage_j[c], the zero weights skipped.
fn combine(weights: &[f64], stage: &[Vec<f64>], c: usize) -> f64 {
    let mut sum = 0.0;
    for (w, k) in weights.iter().zip(stage) {
        if *w != 0.0 {
            sum += w * k[c];
        }
    }
    sum
}
