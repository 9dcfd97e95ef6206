//! The explicit Runge-Kutta methods of [`super::explicit`] on any formulation's ODE
//! x' = f(t, x) ([`OdeSystem`], the view a Model Exchange host integrates), stepped by the
//! formulation itself in co-simulation: constant step (RK4) or under error control (DOPRI5,
//! DOP853) with the controller of \[HairerNorsettWanner1993, Sect. II.4\] in the RMS norm of
//! \[Negrut1997, eq. 21\].
//!
//! The system's point is left at the last accepted step: the last evaluation of an advance is
//! at its end point (the new point is evaluated after the error test; DOPRI5's last stage is
//! that point). Each accepted step is a completed step of the system ([`OdeSystem::completed_step`]),
//! and where it asks for an event (new coordinates) the event is taken and the state read again.
//! Time events of the system ([`OdeSystem::next_time_event`]) end an error-controlled step
//! exactly (the formulations whose ODEs have them offer no constant-step explicit method).
//!
//! Communication points: with dense output ([`super::dense`]) an error-controlled step is not
//! shortened to end on the advance's end t_end: the natural step is taken past it, and the
//! system is left at the interpolated state at t_end \[HairerNorsettWanner1993, Sect. II.6,
//! II.10\] while the step itself (its end point and interpolant, [`DenseStep`], with the
//! step-size proposal) is kept pending. The next advance continues the internal trajectory:
//! it interpolates again where its end lies inside the pending step, and otherwise completes
//! the step at its end point and steps on. Where the system is no longer at the interpolated
//! point it was left at (the caller drops the pending step when an input changes), the advance
//! restarts from the system's state as it would after a step shortened to the point. A step
//! that would end within 1% of t_end lands on it (no sliver of a step is left). Without dense
//! output (RK4, or switched off) the last step is shortened to land on t_end.
//!
//! Stiffness: each accepted step of an error-controlled method estimates h |lambda| of the
//! dominant eigenvalue from two stages at the same time, ||f(x_a) - f(x_b)|| / ||x_a - x_b||,
//! and compares it with the method's stability boundary \[HairerWanner1996, Sect. IV.2\];
//! [`Outcome::Stiff`] reports repeated hits ([`StiffnessTest`]) to a caller that can switch to an
//! implicit method.

use super::dense::{DenseStep, MAX_EXTENDED_STAGES};
use super::explicit::{Explicit, MAX_STAGES};
use super::step_control::{
    first_guess, plan, recoverable, starting_step, step_factor, GROWTH_MAX, GROWTH_MIN, NEWTON_FAILURE_FACTOR,
};
use super::StepError;
use crate::formulation::{Meter, OdeSystem, Progress, StepCounters, SubSteps};
use crate::settings::ErrorControl;
use serde::{Deserialize, Serialize};

/// Accepted steps whose stiffness estimate exceeded the stability boundary before the
/// problem counts as stiff (15 in the DOPRI5 code of \[HairerWanner1996, Sect. IV.2\]).
pub const STIFF_STEPS: u32 = 15;
/// Accepted steps below it that clear the count (6 there).
pub const CALM_STEPS: u32 = 6;
/// Fraction of the stability boundary that counts as a hit. The estimate is rough, and a
/// controller limited by stability keeps h |lambda| below the boundary, the more so where
/// communication points shorten steps (measured on the stiff double pendulum at 1 ms
/// communication steps without dense output: 0.8 to 0.95 of it; the codes of \[HairerWanner1996, Sect. IV.2\] test
/// 3.25 for DOPRI5 and 6.1 for DOP853, whose boundaries are 3.31 and 6.39).
pub const STIFF_FRACTION: f64 = 0.75;

/// The stiffness test's count over accepted steps (part of a formulation's state, so that a
/// restored snapshot decides as the run would).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StiffnessTest {
    /// Steps above the threshold since the count was last cleared.
    pub hits: u32,
    /// Steps below it in a row.
    pub calm: u32,
}

impl StiffnessTest {
    /// Records an accepted step's estimate h |lambda| against `boundary`; true when the
    /// problem proves stiff (the count then starts again).
    pub fn record(&mut self, h_lambda: f64, boundary: f64) -> bool {
        if h_lambda > STIFF_FRACTION * boundary {
            self.calm = 0;
            self.hits += 1;
            if self.hits >= STIFF_STEPS {
                *self = StiffnessTest::default();
                return true;
            }
        } else {
            self.calm += 1;
            if self.calm >= CALM_STEPS {
                *self = StiffnessTest::default();
            }
        }
        false
    }
}

/// What one advance asks for.
#[derive(Clone, Copy, Debug)]
pub struct Advance<'a> {
    /// The system's current time.
    pub t0: f64,
    pub t_end: f64,
    /// Largest step.
    pub step_size: f64,
    pub control: &'a ErrorControl,
}

/// How an advance ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    Progress(Progress),
    /// The error-controlled steps were limited by stability, not accuracy, for
    /// [`STIFF_STEPS`] steps in a row; the state is the last accepted one at this time.
    Stiff {
        time: f64,
        h_lambda: f64,
    },
}

/// The stage storage of one method for an ODE of a fixed size, allocated once.
#[derive(Clone, Debug)]
pub struct ExplicitOde {
    tableau: &'static Explicit,
    /// k_i = f(t + c_i h, stage_i); row 0 holds f at the current point, row MAX_STAGES the
    /// new point's derivative of methods that are not first-same-as-last, the rows after it
    /// the extra stages of DOP853's dense output.
    k: Vec<Vec<f64>>,
    x: Vec<f64>,
    x_new: Vec<f64>,
    stage: Vec<f64>,
    /// The state of the stage before the last one at the new time (stiffness estimate).
    stage_before: Vec<f64>,
    err: Vec<f64>,
    /// The error weight of each component (1 or the velocity factor).
    weight: Vec<f64>,
    /// The size of the step whose stages were formed last.
    h: f64,
    /// The time of `x`, the current point.
    t: f64,
    /// The system's last evaluation was at (t, x) (else at a stage or a rejected step).
    at_current: bool,
}

/// sum_j w_j k_j[c] over the weights given.
fn combine(w: &[f64], k: &[Vec<f64>], c: usize) -> f64 {
    w.iter().zip(k).map(|(w, k)| w * k[c]).sum()
}

fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt()
}

impl ExplicitOde {
    /// Storage for `tableau` on an ODE of `len` states.
    pub fn new(tableau: &'static Explicit, len: usize) -> ExplicitOde {
        ExplicitOde {
            tableau,
            k: vec![vec![0.0; len]; MAX_EXTENDED_STAGES.max(MAX_STAGES + 1)],
            x: vec![0.0; len],
            x_new: vec![0.0; len],
            stage: vec![0.0; len],
            stage_before: vec![0.0; len],
            err: vec![0.0; len],
            weight: vec![1.0; len],
            h: 0.0,
            t: 0.0,
            at_current: false,
        }
    }

    pub fn tableau(&self) -> &'static Explicit {
        self.tableau
    }

    /// True if the method controls its step size (it has an error estimator).
    pub fn variable_step(&self) -> bool {
        !self.tableau.e.is_empty()
    }

    /// Advances `ode` from `run.t0` (its current time and state) to `run.t_end`: RK4 in equal
    /// steps no larger than `run.step_size`, the embedded pairs under `run.control` with steps
    /// no larger than it, starting with `*h_next` (NaN: chosen here) and leaving the proposal
    /// for the next step there. Each step attempt is charged to `meter` (its stages are its
    /// evaluations) and none starts once its budget is spent. On error the system is
    /// at the last completed step. With a `stiffness` test the advance ends at the step that
    /// proves the problem stiff. With `dense` (the pairs with a continuous extension) steps
    /// pass t_end and the system is left at the interpolated state there, the step pending in
    /// `dense` (module documentation); a pending step it holds is continued when the system is
    /// still at the point it was left at.
    #[allow(clippy::too_many_arguments)]
    pub fn advance(
        &mut self,
        ode: &mut dyn OdeSystem,
        run: &Advance,
        h_next: &mut f64,
        counters: &mut StepCounters,
        meter: &mut Meter,
        stiffness: Option<&mut StiffnessTest>,
        dense: Option<&mut DenseStep>,
    ) -> Result<Outcome, StepError> {
        let Advance { t0, t_end, step_size, .. } = *run;
        let span = t_end - t0;
        if !span.is_finite() || span < 0.0 {
            return Err(StepError::BadStep { time: t0, h: span });
        }
        if span == 0.0 {
            return Ok(Outcome::Progress(Progress::Reached));
        }
        let velocities = ode.velocity_states();
        for (i, w) in self.weight.iter_mut().enumerate() {
            *w = if velocities.contains(&i) { run.control.velocity_factor } else { 1.0 };
        }
        let mut dense = dense.filter(|_| self.variable_step() && self.tableau.dense.is_some());
        let continuing = dense.as_deref().is_some_and(|d| d.pending && self.left_at(ode, d, t0));
        if let Some(d) = dense.as_deref_mut() {
            d.pending &= continuing;
        }
        let result = match dense.as_deref_mut().filter(|_| continuing) {
            Some(d) => self.continue_pending(ode, run, h_next, counters, meter, stiffness, d),
            None => {
                ode.set_time(t0);
                ode.state(&mut self.x);
                ode.derivatives(&mut self.k[0])?;
                self.t = t0;
                self.at_current = true;
                if self.variable_step() {
                    self.variable_steps(ode, run, h_next, counters, meter, stiffness, dense)
                } else {
                    self.constant_steps(ode, t0, t_end, step_size, meter, counters)
                }
            }
        };
        if !self.at_current {
            // Back to the last completed point, evaluated (the system's state is the last point
            // it evaluated: a stage, or a rejected step's).
            ode.set_time(self.t);
            ode.set_state(&self.x);
            let evaluated = ode.derivatives(&mut self.k[0]);
            self.at_current = true;
            if let (Err(e), Ok(_)) = (evaluated, &result) {
                return Err(e);
            }
        }
        result
    }

    /// True if the system is at time `t0` exactly at the interpolated point of `d` that an
    /// advance left it at (nothing has set its state since).
    fn left_at(&mut self, ode: &mut dyn OdeSystem, d: &DenseStep, t0: f64) -> bool {
        if d.at != t0 || d.len() != self.x.len() {
            return false;
        }
        ode.state(&mut self.stage);
        d.value(t0, &mut self.err);
        self.stage == self.err
    }

    /// Continues the pending step of `d`: the system is at its interpolated point at `run.t0`.
    /// An end inside the step is interpolated again; otherwise the step is completed at its
    /// end point (a completed step of the system, its time event taken) and the advance steps
    /// on from there.
    #[allow(clippy::too_many_arguments)]
    fn continue_pending(
        &mut self,
        ode: &mut dyn OdeSystem,
        run: &Advance,
        h_next: &mut f64,
        counters: &mut StepCounters,
        meter: &mut Meter,
        stiffness: Option<&mut StiffnessTest>,
        d: &mut DenseStep,
    ) -> Result<Outcome, StepError> {
        let t_end = run.t_end;
        if t_end < d.t_new {
            // The point the system is at is where it returns to on error.
            self.t = run.t0;
            ode.state(&mut self.x);
            self.at_current = true;
            self.leave_at(ode, d, t_end)?;
            return Ok(Outcome::Progress(Progress::Reached));
        }
        d.pending = false;
        self.x.copy_from_slice(&d.end);
        self.t = d.t_new;
        self.at_current = false;
        ode.set_time(self.t);
        ode.set_state(&self.x);
        ode.derivatives(&mut self.k[0])?;
        self.at_current = true;
        self.completed(ode, counters)?;
        if d.event && self.t < t_end {
            self.time_event(ode)?;
        }
        if self.t >= t_end {
            return Ok(Outcome::Progress(Progress::Reached));
        }
        self.variable_steps(ode, run, h_next, counters, meter, stiffness, Some(d))
    }

    /// Leaves the system at the interpolated state of `d` at `t` (evaluated there), the step
    /// pending.
    fn leave_at(&mut self, ode: &mut dyn OdeSystem, d: &mut DenseStep, t: f64) -> Result<(), StepError> {
        d.pending = false;
        d.value(t, &mut self.stage);
        self.at_current = false;
        ode.set_time(t);
        ode.set_state(&self.stage);
        ode.derivatives(&mut self.err)?;
        self.at_current = true;
        d.at = t;
        d.pending = true;
        Ok(())
    }

    fn constant_steps(
        &mut self,
        ode: &mut dyn OdeSystem,
        t0: f64,
        t_end: f64,
        step_size: f64,
        meter: &mut Meter,
        counters: &mut StepCounters,
    ) -> Result<Outcome, StepError> {
        let mut plan = SubSteps::new(t0, t_end, step_size, meter.budget())?;
        let mut t = t0;
        while let Some(target) = plan.next_target() {
            if meter.exhausted().is_some() {
                return Ok(Outcome::Progress(Progress::Budget));
            }
            meter.charge(self.tableau.stages() as u64);
            self.stages(ode, t, target - t, target)?;
            self.new_point(ode, target)?;
            self.commit(ode, target, counters)?;
            t = target;
            plan.advance();
        }
        Ok(Outcome::Progress(Progress::Reached))
    }

    #[allow(clippy::too_many_arguments)]
    fn variable_steps(
        &mut self,
        ode: &mut dyn OdeSystem,
        run: &Advance,
        h_next: &mut f64,
        counters: &mut StepCounters,
        meter: &mut Meter,
        mut stiffness: Option<&mut StiffnessTest>,
        mut dense: Option<&mut DenseStep>,
    ) -> Result<Outcome, StepError> {
        let Advance { t_end, step_size, control, .. } = *run;
        let exponent = self.tableau.exponent;
        let mut t = self.t;
        if h_next.is_nan() || *h_next <= 0.0 {
            *h_next = self.initial_step(ode, t, step_size.min(t_end - t), control)?;
        }
        let mut rejected_last = false;
        while t < t_end {
            if meter.exhausted().is_some() {
                return Ok(Outcome::Progress(Progress::Budget));
            }
            meter.charge(self.tableau.stages() as u64);
            let event = ode.next_time_event().filter(|&te| te > t);
            let proposed = h_next.min(step_size);
            let (h, t_new, clipped) = plan(t, proposed, t_end, event, dense.is_some());
            if h.is_nan() || h <= 1e-14 * t.abs().max(1.0) {
                return Err(StepError::BadStep { time: t, h });
            }
            match self.stages(ode, t, h, t_new).map(|()| self.error_norm(h, control)) {
                Ok(err) if err <= 1.0 => {
                    let h_lambda = self.new_point(ode, t_new)?;
                    let limit = if rejected_last { 1.0 } else { GROWTH_MAX };
                    *h_next = h * step_factor(err, exponent, limit);
                    if clipped {
                        *h_next = h_next.max(proposed);
                    }
                    rejected_last = false;
                    // A step shortened to land on a target says nothing of what limits the
                    // steps.
                    let stiff = match stiffness.as_deref_mut().filter(|_| !clipped) {
                        Some(test) => test.record(h_lambda, self.tableau.stability_boundary),
                        None => false,
                    };
                    if let (true, Some(d)) = (t_new > t_end, dense.as_deref_mut()) {
                        // Past the communication point: the step stays pending, the system
                        // is left at its interpolated state at t_end.
                        self.interpolant(ode, d, t, h, t_new)?;
                        d.event = event == Some(t_new);
                        self.leave_at(ode, d, t_end)?;
                        if stiff {
                            // The implicit method starts from the communication point.
                            d.pending = false;
                            return Ok(Outcome::Stiff { time: t_end, h_lambda });
                        }
                        return Ok(Outcome::Progress(Progress::Reached));
                    }
                    self.commit(ode, t_new, counters)?;
                    t = t_new;
                    if event == Some(t) && t < t_end {
                        self.time_event(ode)?;
                    }
                    if stiff {
                        return Ok(Outcome::Stiff { time: t, h_lambda });
                    }
                }
                Ok(err) => {
                    rejected_last = true;
                    *h_next = h * if err.is_finite() { step_factor(err, exponent, 1.0) } else { GROWTH_MIN };
                }
                Err(e) if recoverable(&e) => {
                    rejected_last = true;
                    *h_next = h * NEWTON_FAILURE_FACTOR;
                    if h_next.is_nan() || *h_next <= 1e-14 * t.abs().max(1.0) {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(Outcome::Progress(Progress::Reached))
    }

    /// The interpolant of the accepted step of size `h` from (t, x) to (t_new, x_new) into `d`,
    /// after the extra stages of the method's extension (DOP853's three, evaluated here).
    fn interpolant(
        &mut self,
        ode: &mut dyn OdeSystem,
        d: &mut DenseStep,
        t: f64,
        h: f64,
        t_new: f64,
    ) -> Result<(), StepError> {
        let Some(ext) = self.tableau.dense else {
            return Err(StepError::BadStep { time: t, h });
        };
        for (e, (c, a)) in ext.extra_c.iter().zip(ext.extra_a).enumerate() {
            let s = ext.new_point + 1 + e;
            for comp in 0..self.x.len() {
                self.stage[comp] = self.x[comp] + h * combine(a, &self.k, comp);
            }
            self.at_current = false;
            ode.set_time(t + c * h);
            ode.set_state(&self.stage);
            let (k, _) = self.k.split_at_mut(s + 1);
            ode.derivatives(&mut k[s])?;
        }
        let k = &self.k;
        d.form(ext, t, h, t_new, &self.x, &self.x_new, |i, c| k[i][c]);
        Ok(())
    }

    /// Starting step of \[HairerNorsettWanner1993, Sect. II.4\]: h0 = 0.01 |x0| / |f0| in the
    /// tolerance-weighted norm, refined by one explicit Euler step with the estimated second
    /// derivative; at most `h_max`. Leaves the system evaluated at (t, x).
    fn initial_step(
        &mut self,
        ode: &mut dyn OdeSystem,
        t: f64,
        h_max: f64,
        control: &ErrorControl,
    ) -> Result<f64, StepError> {
        let n = self.x.len();
        if n == 0 {
            return Ok(h_max);
        }
        let scale = |s: &Self, i: usize| s.weight[i] * (control.atol + s.x[i].abs() * control.rtol);
        let rms = |s: &Self, v: &[f64]| ((0..n).map(|i| (v[i] / scale(s, i)).powi(2)).sum::<f64>() / n as f64).sqrt();
        let (d0, d1) = (rms(self, &self.x), rms(self, &self.k[0]));
        let h0 = first_guess(d0, d1, h_max);
        for c in 0..n {
            self.stage[c] = self.x[c] + h0 * self.k[0][c];
        }
        self.at_current = false;
        ode.set_time(t + h0);
        ode.set_state(&self.stage);
        ode.derivatives(&mut self.k[1])?;
        for c in 0..n {
            self.err[c] = self.k[1][c] - self.k[0][c];
        }
        let d2 = rms(self, &self.err) / h0;
        Ok(starting_step(h0, d1, d2, self.tableau.exponent, h_max))
    }

    /// The stages of one step of size h from (t, x) with k[0] = f(t, x), and the solution
    /// x_new = x + h sum_j b_j k_j \[HairerNorsettWanner1993, Sect. II.1, eq. 1.8\]. For a
    /// first-same-as-last method the last stage is evaluated at x_new itself.
    fn stages(&mut self, ode: &mut dyn OdeSystem, t: f64, h: f64, t_new: f64) -> Result<(), StepError> {
        let m = self.tableau;
        let s = m.stages();
        self.h = h;
        self.at_current = false;
        for i in 1..s {
            if m.fsal && i == s - 1 {
                // The last stage is the solution (its own weight is 0, its row the weights).
                self.solution(&m.b[..s - 1], h);
                self.stage_before.copy_from_slice(&self.stage);
                self.stage.copy_from_slice(&self.x_new);
            } else {
                for c in 0..self.x.len() {
                    self.stage[c] = self.x[c] + h * combine(m.a[i], &self.k, c);
                }
            }
            let t_stage = if m.c[i] == 1.0 { t_new } else { t + m.c[i] * h };
            ode.set_time(t_stage);
            ode.set_state(&self.stage);
            let (k, _) = self.k.split_at_mut(i + 1);
            ode.derivatives(&mut k[i])?;
        }
        if !m.fsal {
            self.solution(m.b, h);
        }
        Ok(())
    }

    /// x_new = x + h sum_j b_j k_j over the weights given.
    fn solution(&mut self, b: &[f64], h: f64) {
        for c in 0..self.x.len() {
            self.x_new[c] = self.x[c] + h * combine(b, &self.k, c);
        }
    }

    /// The error norm of the step (0 at constant step): RMS of the embedded estimate,
    /// DOP853's two estimates combined as err5^2 / sqrt(err5^2 + 0.01 err3^2)
    /// \[HairerNorsettWanner1993, Sect. II.10\].
    fn error_norm(&mut self, h: f64, control: &ErrorControl) -> f64 {
        let m = self.tableau;
        if m.e.is_empty() {
            return 0.0;
        }
        let fifth = self.estimate(m.e, h, control);
        if m.e3.is_empty() {
            return fifth;
        }
        let third = self.estimate(m.e3, h, control);
        super::explicit::dop853_error(fifth, third)
    }

    /// RMS of h sum_j e_j k_j scaled per component \[Negrut1997, eq. 21\].
    fn estimate(&mut self, e: &[f64], h: f64, control: &ErrorControl) -> f64 {
        let n = self.x.len();
        if n == 0 {
            return 0.0;
        }
        let mut sum = 0.0;
        for c in 0..n {
            self.err[c] = h * combine(e, &self.k, c);
            let scale = self.weight[c] * (control.atol + control.rtol * self.x[c].abs().max(self.x_new[c].abs()));
            sum += (self.err[c] / scale).powi(2);
        }
        (sum / n as f64).sqrt()
    }

    /// The accepted step's new point x_new at `t_new`, evaluated (first-same-as-last methods
    /// were, as their last stage) into row MAX_STAGES of k (the last stage's for them). Returns
    /// the stiffness estimate h |lambda| of the step (0 at constant step).
    fn new_point(&mut self, ode: &mut dyn OdeSystem, t_new: f64) -> Result<f64, StepError> {
        let m = self.tableau;
        let s = m.stages();
        let last = if m.fsal {
            s - 1
        } else {
            // The stage before at the new time is the last stage (c = 1) where there is one.
            self.stage_before.copy_from_slice(&self.stage);
            ode.set_time(t_new);
            ode.set_state(&self.x_new);
            ode.derivatives(&mut self.k[MAX_STAGES])?;
            MAX_STAGES
        };
        let before = if m.fsal { s - 2 } else { s - 1 };
        Ok(if m.c[before] == 1.0 && !m.e.is_empty() {
            let dx = distance(&self.x_new, &self.stage_before);
            let df = distance(&self.k[last], &self.k[before]);
            if dx > 0.0 {
                self.h * df / dx
            } else {
                0.0
            }
        } else {
            0.0
        })
    }

    /// Makes x_new at `t_new` (evaluated by [`ExplicitOde::new_point`]) the current point: a
    /// completed step of the system, an event where it asks for one.
    fn commit(&mut self, ode: &mut dyn OdeSystem, t_new: f64, counters: &mut StepCounters) -> Result<(), StepError> {
        let last = if self.tableau.fsal { self.tableau.stages() - 1 } else { MAX_STAGES };
        self.x.copy_from_slice(&self.x_new);
        self.t = t_new;
        self.at_current = true;
        self.k.swap(0, last);
        self.completed(ode, counters)
    }

    /// The current point, evaluated, is a completed step of the system; its event is taken
    /// where it asks for one (the state read again).
    fn completed(&mut self, ode: &mut dyn OdeSystem, counters: &mut StepCounters) -> Result<(), StepError> {
        if ode.completed_step(counters)? && ode.event()? {
            ode.state(&mut self.x);
            ode.derivatives(&mut self.k[0])?;
        }
        Ok(())
    }

    /// A time event of the system at the current point: its event update, then the state
    /// (whose meaning may have changed) and its derivatives read again.
    fn time_event(&mut self, ode: &mut dyn OdeSystem) -> Result<(), StepError> {
        ode.event()?;
        ode.state(&mut self.x);
        ode.derivatives(&mut self.k[0])
    }
}

#[cfg(test)]
mod tests {
    use super::super::explicit::{DOP853, DOPRI5};
    use super::*;
    use crate::partials::{Column, Known};
    use mbfmu_model::format::Quantity;

    /// Where the forcing switches on: a time event between communication points (one on a
    /// communication point ends the advance there, and the system takes it when it is next
    /// advanced, as a formulation's view does when it reads the co-simulation state).
    const SWITCH: f64 = 0.373;

    /// y' = -y + a with a = 0 until the time event at `SWITCH` and 1 after (a discrete state
    /// its event update sets), y(0) = 1; it records the times of its completed steps and
    /// events.
    struct Switched {
        t: f64,
        y: f64,
        on: bool,
        completed: Vec<f64>,
        events: Vec<f64>,
    }

    fn exact(t: f64) -> f64 {
        if t <= SWITCH {
            (-t).exp()
        } else {
            1.0 + ((-SWITCH).exp() - 1.0) * (-(t - SWITCH)).exp()
        }
    }

    impl OdeSystem for Switched {
        fn len(&self) -> usize {
            1
        }
        fn state(&self, x: &mut [f64]) {
            x[0] = self.y;
        }
        fn state_value(&self, _: usize) -> f64 {
            self.y
        }
        fn set_time(&mut self, t: f64) {
            self.t = t;
        }
        fn set_state(&mut self, x: &[f64]) {
            self.y = x[0];
        }
        fn evaluate(&mut self) -> Result<(), StepError> {
            Ok(())
        }
        fn derivatives(&mut self, dx: &mut [f64]) -> Result<(), StepError> {
            dx[0] = -self.y + f64::from(u8::from(self.on));
            Ok(())
        }
        fn derivative_value(&mut self, _: usize) -> Result<f64, StepError> {
            Ok(-self.y + f64::from(u8::from(self.on)))
        }
        fn completed_step(&mut self, _: &mut StepCounters) -> Result<bool, StepError> {
            self.completed.push(self.t);
            Ok(false)
        }
        fn event(&mut self) -> Result<bool, StepError> {
            self.events.push(self.t);
            self.on = self.t >= SWITCH;
            Ok(false)
        }
        fn next_time_event(&self) -> Option<f64> {
            (!self.on).then_some(SWITCH)
        }
        fn partial_column(&mut self, _: Known, _: &[Quantity], _: bool, _: &mut Column) -> Result<(), StepError> {
            Ok(())
        }
    }

    /// With dense output over communication steps of 10 ms the pairs take steps of up to
    /// 0.1 s past the communication points, land exactly on the time event (its update taken
    /// there once), and the states left at the communication points follow the exact solution;
    /// without it every communication step ends with a step.
    #[test]
    fn dense_output_passes_communication_points_and_lands_on_time_events() {
        for tableau in [&DOPRI5, &DOP853] {
            for dense_output in [true, false] {
                let control = ErrorControl { atol: 1e-9, rtol: 1e-9, velocity_factor: 1.0, dense_output };
                let mut ode = Switched { t: 0.0, y: 1.0, on: false, completed: Vec::new(), events: Vec::new() };
                let mut stepper = ExplicitOde::new(tableau, 1);
                let (mut h_next, mut counters, mut dense) = (f64::NAN, StepCounters::default(), DenseStep::new(1));
                let mut worst: f64 = 0.0;
                for k in 1..=100 {
                    let (t0, t_end) = (ode.t, k as f64 * 0.01);
                    let run = Advance { t0, t_end, step_size: 0.1, control: &control };
                    let d = Some(&mut dense).filter(|_| dense_output);
                    let mut meter = Meter::unlimited();
                    let outcome = stepper.advance(&mut ode, &run, &mut h_next, &mut counters, &mut meter, None, d);
                    assert_eq!(outcome, Ok(Outcome::Progress(Progress::Reached)));
                    assert_eq!(ode.t, t_end);
                    worst = worst.max((ode.y - exact(t_end)).abs());
                }
                let steps = ode.completed.len();
                println!("{} stages, dense output {dense_output}: {steps} steps, error {worst:.2e}", tableau.stages());
                assert_eq!(ode.events, [SWITCH], "the event is taken once, at its time");
                assert!(ode.completed.contains(&SWITCH), "a step ends on the event");
                assert!(worst < 1e-7, "{worst:.2e}");
                if dense_output {
                    assert!(steps < 40 && dense.pending, "{steps} steps");
                } else {
                    assert!(steps >= 100, "{steps} steps");
                }
            }
        }
    }
}
