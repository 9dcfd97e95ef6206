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
//! Stiffness: each accepted step of an error-controlled method estimates h |lambda| of the
//! dominant eigenvalue from two stages at the same time, ||f(x_a) - f(x_b)|| / ||x_a - x_b||,
//! and compares it with the method's stability boundary \[HairerWanner1996, Sect. IV.2\];
//! [`Outcome::Stiff`] reports repeated hits ([`StiffnessTest`]) to a caller that can switch to an
//! implicit method.

use super::explicit::{Explicit, MAX_STAGES};
use super::step_control::{
    first_guess, recoverable, starting_step, step_factor, GROWTH_MAX, GROWTH_MIN, NEWTON_FAILURE_FACTOR,
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
/// communication steps: 0.8 to 0.95 of it; the codes of \[HairerWanner1996, Sect. IV.2\] test
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
    /// new point's derivative of methods that are not first-same-as-last.
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
            k: vec![vec![0.0; len]; MAX_STAGES + 1],
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
    /// at the last accepted step. With a `stiffness` test the advance ends at the step that
    /// proves the problem stiff.
    pub fn advance(
        &mut self,
        ode: &mut dyn OdeSystem,
        run: &Advance,
        h_next: &mut f64,
        counters: &mut StepCounters,
        meter: &mut Meter,
        stiffness: Option<&mut StiffnessTest>,
    ) -> Result<Outcome, StepError> {
        let Advance { t0, t_end, step_size, control } = *run;
        let span = t_end - t0;
        if !span.is_finite() || span < 0.0 {
            return Err(StepError::BadStep { time: t0, h: span });
        }
        if span == 0.0 {
            return Ok(Outcome::Progress(Progress::Reached));
        }
        let velocities = ode.velocity_states();
        for (i, w) in self.weight.iter_mut().enumerate() {
            *w = if velocities.contains(&i) { control.velocity_factor } else { 1.0 };
        }
        ode.set_time(t0);
        ode.state(&mut self.x);
        ode.derivatives(&mut self.k[0])?;
        self.t = t0;
        self.at_current = true;
        let result = if self.variable_step() {
            self.variable_steps(ode, run, h_next, counters, meter, stiffness)
        } else {
            self.constant_steps(ode, t0, t_end, step_size, meter, counters)
        };
        if !self.at_current {
            // Back to the last accepted point, evaluated (the system's state is the last point
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
            self.accept(ode, target, counters)?;
            t = target;
            plan.advance();
        }
        Ok(Outcome::Progress(Progress::Reached))
    }

    fn variable_steps(
        &mut self,
        ode: &mut dyn OdeSystem,
        run: &Advance,
        h_next: &mut f64,
        counters: &mut StepCounters,
        meter: &mut Meter,
        mut stiffness: Option<&mut StiffnessTest>,
    ) -> Result<Outcome, StepError> {
        let Advance { t0, t_end, step_size, control } = *run;
        let exponent = self.tableau.exponent;
        let mut t = t0;
        if h_next.is_nan() || *h_next <= 0.0 {
            *h_next = self.initial_step(ode, t, step_size.min(t_end - t), control)?;
        }
        let mut rejected_last = false;
        while t < t_end {
            if meter.exhausted().is_some() {
                return Ok(Outcome::Progress(Progress::Budget));
            }
            meter.charge(self.tableau.stages() as u64);
            // A time event of the system ends a step exactly.
            let target = ode.next_time_event().filter(|&te| te > t && te < t_end).unwrap_or(t_end);
            let proposed = h_next.min(step_size);
            let clipped = t + 1.01 * proposed >= target;
            let (h, t_new) = if clipped { (target - t, target) } else { (proposed, t + proposed) };
            if h.is_nan() || h <= 1e-14 * t.abs().max(1.0) {
                return Err(StepError::BadStep { time: t, h });
            }
            match self.stages(ode, t, h, t_new).map(|()| self.error_norm(h, control)) {
                Ok(err) if err <= 1.0 => {
                    let h_lambda = self.accept(ode, t_new, counters)?;
                    t = t_new;
                    if t == target && target < t_end {
                        self.time_event(ode)?;
                    }
                    let limit = if rejected_last { 1.0 } else { GROWTH_MAX };
                    *h_next = h * step_factor(err, exponent, limit);
                    if clipped {
                        *h_next = h_next.max(proposed);
                    }
                    rejected_last = false;
                    // A step shortened to land on a target says nothing of what limits the
                    // steps.
                    if let Some(test) = stiffness.as_deref_mut().filter(|_| !clipped) {
                        if test.record(h_lambda, self.tableau.stability_boundary) {
                            return Ok(Outcome::Stiff { time: t, h_lambda });
                        }
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

    /// Makes x_new at `t_new` the current point: evaluated there (first-same-as-last methods
    /// were, as their last stage), a completed step of the system, an event where it asks for
    /// one. Returns the stiffness estimate h |lambda| of the step (0 at constant step).
    fn accept(&mut self, ode: &mut dyn OdeSystem, t_new: f64, counters: &mut StepCounters) -> Result<f64, StepError> {
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
        let h_lambda = if m.c[before] == 1.0 && !m.e.is_empty() {
            let dx = distance(&self.x_new, &self.stage_before);
            let df = distance(&self.k[last], &self.k[before]);
            if dx > 0.0 {
                self.h * df / dx
            } else {
                0.0
            }
        } else {
            0.0
        };
        self.x.copy_from_slice(&self.x_new);
        self.t = t_new;
        self.at_current = true;
        self.k.swap(0, last);
        if ode.completed_step(counters)? && ode.event()? {
            ode.state(&mut self.x);
            ode.derivatives(&mut self.k[0])?;
        }
        Ok(h_lambda)
    }

    /// A time event of the system at the current point: its event update, then the state
    /// (whose meaning may have changed) and its derivatives read again.
    fn time_event(&mut self, ode: &mut dyn OdeSystem) -> Result<(), StepError> {
        ode.event()?;
        ode.state(&mut self.x);
        ode.derivatives(&mut self.k[0])
    }
}
