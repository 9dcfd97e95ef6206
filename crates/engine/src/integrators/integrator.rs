//! The integrator suite of \[Zhang2022\] over any [`DaeSystem`]: one struct, three families that
//! share the corrector of [Zhang2022, Sect. 3.2] and differ in the integration scheme (eq. 8b)
//! and the predictor (Sect. 3.1):
//!
//! - multistep (BDF1, trapezoidal rule, LMS2-4; [Zhang2022, Sect. 2.1]): the stored states
//!   y_{n-2}, ... are re-charted at the newest state y_{n-1} every step ([Zhang2022, Sect. 3.1]:
//!   previous rotations relative to the last one). Second-order predictor eqs. (12)-(14) in
//!   exact for cubics. LMS2 uses its variable-step formula
//!   (\[Masarati2001\]); LMS3/LMS4 need k equal steps and otherwise fall back to the
//!   highest order whose history fits: LMS3, else LMS2 (variable step), else the trapezoidal
//!   rule (a restart). Start-up as in MBDyn: TR, LMS2, LMS3, LMS4 (\[MBDyn\] solver.cc).
//! - single step (SS2-4; [Zhang2022, Sect. 2.2]): auxiliary vectors W_i stored as real and
//!   imaginary parts, treated as vectors ([Zhang2022, Sect. 3.1]: g^p_{N-1} ~ 0, so W ~ omega^p);
//!   constant predictor (eq. 15); self-starting with W_i = y'_0; current step size.
//! - ESDIRK (Bathe, MSSTC, MSSTH, Kennedy-Carpenter; [Zhang2022, Sect. 2.3]): all stages in the
//!   chart at the step's start; constant prediction in the first stage, eq. (12) from the
//!   previous two stage points after, eq. (16) in the last stage of the fourth- and
//!   fifth-order methods; current step size (MBDyn builds them with the previous one).
//!
//! Multipliers are unknowns of every time point ([Zhang2022, Sect. 3]); they are predicted
//! by linear extrapolation in the multistep family and by the previous point's value elsewhere.
//! Every vector is allocated at construction; a step allocates nothing.

use super::coefficients::{hermite3, hermite5, Multistep, SingleStep, Tableau};
use super::{correct, DaeSystem, NewtonSettings, NewtonStats, StepError, StepStats};
use mbfmu_model::format::Method;
use nalgebra::Complex;
use serde::{Deserialize, Serialize};

/// Relative tolerance below which two step sizes count as equal for LMS3/LMS4 (equal
/// sub-steps of a communication interval differ by round-off).
const EQUAL_STEPS: f64 = 1e-8;
/// Step ratios alpha = h_n/h_{n-1} for which LMS2 uses its variable-step formula; outside,
/// the step restarts with the trapezoidal rule. The upper bound stays below the
/// zero-stability limit 1 + sqrt 2 of variable-step BDF2; far outside (e.g. after a 2e-14 s
/// communication step) the formula would amplify round-off by alpha.
const ALPHA_RANGE: (f64, f64) = (1e-3, 2.0);

/// What a method carries from step to step besides its current state: everything a snapshot
/// must hold to continue bit-identically.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct History<St> {
    /// Accepted states before the current one, newest first (t_{n-2}, t_{n-3}, ...).
    pub previous: Vec<St>,
    /// Sizes of the steps that produced the current state and each previous state, newest
    /// first (h_{n-1}, h_{n-2}, ...); as many as `previous`.
    pub steps: Vec<f64>,
    /// SS auxiliary vectors W_1 .. W_{k-1} ([Zhang2022, eqs. 4]), each as n_diff real parts then
    /// n_diff imaginary parts; empty for the other families.
    pub aux: Vec<f64>,
}

/// [`History`] borrowed from an integrator: the same serialized form without copies.
#[derive(Serialize)]
pub struct HistoryView<'a, St> {
    pub previous: &'a [St],
    pub steps: &'a [f64],
    pub aux: &'a [f64],
}

/// An integrator's state and history in storage sized once ([`Integrator::new_checkpoint`]),
/// so that saving and loading it per communication step allocates nothing.
#[derive(Clone, Debug)]
pub struct Checkpoint<St> {
    current: St,
    pool: Vec<St>,
    n_prev: usize,
    steps: Vec<f64>,
    aux: Vec<f64>,
}

impl<St> Default for History<St> {
    fn default() -> Self {
        History { previous: Vec::new(), steps: Vec::new(), aux: Vec::new() }
    }
}

#[derive(Clone, Debug)]
enum Family {
    Multistep { kind: MultistepKind },
    SingleStep(SingleStep),
    Esdirk(Tableau),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum MultistepKind {
    Bdf1,
    Trapezoidal,
    Lms { k: usize, rho: f64 },
}

/// Chart coordinates of one time point.
#[derive(Clone, Debug)]
struct Point {
    y: Vec<f64>,
    yp: Vec<f64>,
    lambda: Vec<f64>,
}

impl Point {
    fn new(nd: usize, na: usize) -> Point {
        Point { y: vec![0.0; nd], yp: vec![0.0; nd], lambda: vec![0.0; na] }
    }
}

/// An implicit integrator of \[Zhang2022\] with its history and work arrays.
#[derive(Debug)]
pub struct Integrator<S: DaeSystem> {
    method: Method,
    family: Family,
    current: S::State,
    /// Ring of previous states; the first `n_prev` are valid, newest first.
    pool: Vec<S::State>,
    n_prev: usize,
    /// Step sizes, newest first; the first `n_prev` are valid (multistep family).
    steps: Vec<f64>,
    /// SS auxiliary vectors (see [`History::aux`]) and their update for the step in progress.
    aux: Vec<f64>,
    aux_new: Vec<f64>,
    /// Chart coordinates: multistep history points (0 = y_{n-1}) or ESDIRK stages (0 = start).
    points: Vec<Point>,
    /// The unknowns of the time point being solved (multistep and single-step families).
    unknown: Point,
    y_hat: Vec<f64>,
    scratch: S::State,
    newton: NewtonStats,
}

// Not derived: the system itself need not be Clone.
impl<S: DaeSystem> Clone for Integrator<S> {
    fn clone(&self) -> Self {
        Integrator {
            method: self.method,
            family: self.family.clone(),
            current: self.current.clone(),
            pool: self.pool.clone(),
            n_prev: self.n_prev,
            steps: self.steps.clone(),
            aux: self.aux.clone(),
            aux_new: self.aux_new.clone(),
            points: self.points.clone(),
            unknown: self.unknown.clone(),
            y_hat: self.y_hat.clone(),
            scratch: self.scratch.clone(),
            newton: self.newton.clone(),
        }
    }
}

impl<S: DaeSystem> Integrator<S> {
    /// Starts `method` from a consistent state (derivatives and multipliers included).
    /// Errors if the method is not one of this suite or rho_inf is not admissible for it.
    pub fn new(sys: &S, method: Method, rho_inf: f64, start: S::State) -> Result<Self, String> {
        method.check_rho_inf(rho_inf)?;
        let family = match method {
            Method::Bdf1 => Family::Multistep { kind: MultistepKind::Bdf1 },
            Method::Trapezoidal => Family::Multistep { kind: MultistepKind::Trapezoidal },
            Method::Lms2 => Family::Multistep { kind: MultistepKind::Lms { k: 2, rho: rho_inf } },
            Method::Lms3 => Family::Multistep { kind: MultistepKind::Lms { k: 3, rho: rho_inf } },
            Method::Lms4 => Family::Multistep { kind: MultistepKind::Lms { k: 4, rho: rho_inf } },
            Method::Ss2 => Family::SingleStep(SingleStep::new(2, rho_inf)),
            Method::Ss3 => Family::SingleStep(SingleStep::new(3, rho_inf)),
            Method::Ss4 => Family::SingleStep(SingleStep::new(4, rho_inf)),
            Method::Bathe => Family::Esdirk(Tableau::bathe(rho_inf)),
            Method::Msstc3 => Family::Esdirk(Tableau::msstc(3, rho_inf)),
            Method::Msstc4 => Family::Esdirk(Tableau::msstc(4, rho_inf)),
            Method::Msstc5 => Family::Esdirk(Tableau::msstc(5, rho_inf)),
            Method::Mssth3 => Family::Esdirk(Tableau::mssth(3, rho_inf)?),
            Method::Mssth4 => Family::Esdirk(Tableau::mssth(4, rho_inf)?),
            Method::Mssth5 => Family::Esdirk(Tableau::mssth(5, rho_inf)?),
            Method::Esdirk324L2Sa => Family::Esdirk(Tableau::esdirk324l2sa()),
            Method::Esdirk325L2Sa => Family::Esdirk(Tableau::esdirk325l2sa()),
            Method::Esdirk436L2Sa2 => Family::Esdirk(Tableau::esdirk436l2sa2()),
            Method::HalfImplicit
            | Method::TrapezoidalConstantStep
            | Method::TrapezoidalVariableStep
            | Method::Abm2
            | Method::Sdirk4
            | Method::Rk4
            | Method::Dopri5
            | Method::Dop853
            | Method::Auto => return Err(format!("{} is not a method of the residual-form suite", method.item_name())),
        };
        let (nd, na) = (sys.n_diff(), sys.n_alg());
        let (n_pool, n_points, n_aux) = match &family {
            Family::Multistep { kind: MultistepKind::Lms { k, .. } } => (k - 1, *k, 0),
            Family::Multistep { .. } => (0, 1, 0),
            Family::SingleStep(ss) => (0, 1, 2 * ss.filters() * nd),
            Family::Esdirk(t) => (0, t.stages() + 1, 0),
        };
        let mut it = Integrator {
            method,
            family,
            pool: vec![start.clone(); n_pool],
            n_prev: 0,
            steps: vec![0.0; n_pool],
            aux: vec![0.0; n_aux],
            aux_new: vec![0.0; n_aux],
            points: vec![Point::new(nd, na); n_points],
            unknown: Point::new(nd, na),
            y_hat: vec![0.0; nd],
            scratch: start.clone(),
            newton: NewtonStats::default(),
            current: start,
        };
        if let Family::SingleStep(ss) = &it.family {
            // [Zhang2022, Sect. 2.2]: W_i^0 = y'_0 for every auxiliary vector (imaginary parts 0).
            let p = &mut it.points[0];
            sys.chart(&it.current, &it.current, &mut p.y, &mut p.yp, &mut p.lambda);
            for f in 0..ss.filters() {
                it.aux[2 * f * nd..(2 * f + 1) * nd].copy_from_slice(&p.yp);
            }
        }
        Ok(it)
    }

    /// Lets every solve start from the system's last iteration matrix where its b0 is the
    /// same ([`NewtonStats::keep`]); off, every solve factors its own.
    pub fn keep_matrix(&mut self, on: bool) {
        let (nd, na) = (self.unknown.yp.len(), self.unknown.lambda.len());
        self.newton.keep_matrix(on, nd, na);
    }

    /// The next solve factors its iteration matrix afresh (a new communication step, a
    /// restored state: what the system holds belongs to another trajectory).
    pub fn forget_matrix(&mut self) {
        self.newton.kept = None;
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// Newton solves accepted at the round-off floor so far.
    pub fn floor_report(&self) -> super::FloorReport {
        self.newton.floor
    }

    pub fn state(&self) -> &S::State {
        &self.current
    }

    /// The history a snapshot needs besides the current state.
    pub fn history(&self) -> History<S::State> {
        History {
            previous: self.pool[..self.n_prev].to_vec(),
            steps: self.steps[..self.n_prev].to_vec(),
            aux: self.aux.clone(),
        }
    }

    /// The history a snapshot needs, borrowed: serializes to the bytes of [`History`].
    pub fn history_view(&self) -> HistoryView<'_, S::State> {
        HistoryView { previous: &self.pool[..self.n_prev], steps: &self.steps[..self.n_prev], aux: &self.aux }
    }

    /// A checkpoint of the current state and history, sized for this integrator.
    pub fn new_checkpoint(&self) -> Checkpoint<S::State> {
        Checkpoint {
            current: self.current.clone(),
            pool: self.pool.clone(),
            n_prev: self.n_prev,
            steps: self.steps.clone(),
            aux: self.aux.clone(),
        }
    }

    /// Copies the current state and history into `c` (made by [`Integrator::new_checkpoint`]
    /// of this integrator: no allocation).
    pub fn save(&self, c: &mut Checkpoint<S::State>) {
        c.current.clone_from(&self.current);
        for (slot, s) in c.pool.iter_mut().zip(&self.pool[..self.n_prev]) {
            slot.clone_from(s);
        }
        c.n_prev = self.n_prev;
        c.steps.copy_from_slice(&self.steps);
        c.aux.copy_from_slice(&self.aux);
    }

    /// Returns to a checkpoint [`Integrator::save`]d from this integrator, as
    /// [`Integrator::restore`] of the same state and history would.
    pub fn load(&mut self, c: &Checkpoint<S::State>) {
        self.forget_matrix();
        self.current.clone_from(&c.current);
        for (slot, s) in self.pool.iter_mut().zip(&c.pool[..c.n_prev]) {
            slot.clone_from(s);
        }
        self.n_prev = c.n_prev;
        self.steps.copy_from_slice(&c.steps);
        self.aux.copy_from_slice(&c.aux);
    }

    /// Replaces the current state and the history (restoring a snapshot).
    pub fn restore(&mut self, state: S::State, history: &History<S::State>) -> Result<(), String> {
        let h = history;
        if h.previous.len() > self.pool.len() || h.steps.len() != h.previous.len() || h.aux.len() != self.aux.len() {
            return Err(format!(
                "the integrator history ({} previous states, {} step sizes, {} auxiliary values) does not fit {} (up to {} states, {} auxiliary values)",
                h.previous.len(),
                h.steps.len(),
                h.aux.len(),
                self.method.item_name(),
                self.pool.len(),
                self.aux.len()
            ));
        }
        if h.aux.iter().any(|x| !x.is_finite()) || h.steps.iter().any(|&x| !(x.is_finite() && x > 0.0)) {
            return Err("the integrator history holds invalid numbers".into());
        }
        for (slot, s) in self.pool.iter_mut().zip(&h.previous) {
            slot.clone_from(s);
        }
        self.n_prev = h.previous.len();
        self.steps[..self.n_prev].copy_from_slice(&h.steps);
        self.aux.copy_from_slice(&h.aux);
        self.current = state;
        self.forget_matrix();
        Ok(())
    }

    /// Advances the current state to time `t_new` (one step of size t_new - t). On error the
    /// integrator is unchanged.
    pub fn step_to(&mut self, sys: &mut S, t_new: f64, settings: &NewtonSettings) -> Result<StepStats, StepError> {
        let t0 = sys.time(&self.current);
        let h = t_new - t0;
        if !(h.is_finite() && h > 0.0) {
            return Err(StepError::BadStep { time: t0, h });
        }
        match &self.family {
            Family::Multistep { kind } => {
                let kind = *kind;
                self.step_multistep(sys, kind, t_new, h, settings)
            }
            Family::SingleStep(_) => self.step_single(sys, t_new, h, settings),
            Family::Esdirk(_) => self.step_esdirk(sys, t0, t_new, h, settings),
        }
    }

    /// Moves the current point to `t_new` along its tangent, y += (t_new - t) y' in its own
    /// chart (derivatives and multipliers kept), for steps far below the solver's step size:
    /// their local error O(h^2 y'') is negligible, while solving the index-3 equations over
    /// such a step would determine accelerations and multipliers only to ~eps |q| / h^2. The
    /// history is kept, as if the last step had been h longer: LMS3/4 continue without a
    /// restart, the SS auxiliary vectors (derivative-like) are unchanged.
    pub fn shift_to(&mut self, sys: &mut S, t_new: f64) -> Result<StepStats, StepError> {
        let t0 = sys.time(&self.current);
        let h = t_new - t0;
        if !(h.is_finite() && h > 0.0) {
            return Err(StepError::BadStep { time: t0, h });
        }
        let Integrator { current, unknown: p, scratch, steps, n_prev, .. } = self;
        sys.chart(current, current, &mut p.y, &mut p.yp, &mut p.lambda);
        for (y, yp) in p.y.iter_mut().zip(&p.yp) {
            *y += h * yp;
        }
        if p.y.iter().any(|x| !x.is_finite()) {
            return Err(StepError::NonFinite { time: t_new, what: "tangent extrapolation".into() });
        }
        sys.lift(current, t_new, &p.y, &p.yp, &p.lambda, scratch);
        std::mem::swap(current, scratch);
        if *n_prev > 0 {
            steps[0] += h;
        }
        Ok(StepStats::default())
    }

    /// Multistep step ([Zhang2022, eq. 2], or eq. 3 to start); chart at y_{n-1}.
    fn step_multistep(
        &mut self,
        sys: &mut S,
        kind: MultistepKind,
        t_new: f64,
        h: f64,
        settings: &NewtonSettings,
    ) -> Result<StepStats, StepError> {
        let equal = |x: f64| (x / h - 1.0).abs() <= EQUAL_STEPS;
        let n = self.n_prev;
        // The formula this step can use with its history (module documentation).
        let (formula, hermite) = match kind {
            MultistepKind::Bdf1 => (Multistep::bdf1(h), false),
            MultistepKind::Trapezoidal => (Multistep::trapezoidal(h), false),
            MultistepKind::Lms { k, rho } => {
                let uniform = self.steps[..n].iter().take_while(|&&x| equal(x)).count();
                let alpha = if n > 0 { h / self.steps[0] } else { f64::NAN };
                if k >= 4 && uniform >= 3 {
                    (Multistep::lms4(rho, h), true)
                } else if k >= 3 && uniform >= 2 {
                    (Multistep::lms3(rho, h), true)
                } else if n >= 1 && (ALPHA_RANGE.0..=ALPHA_RANGE.1).contains(&alpha) {
                    (Multistep::lms2(rho, h, alpha), true)
                } else {
                    (Multistep::trapezoidal(h), false)
                }
            }
        };
        let q = formula.steps;
        // Chart coordinates of y_{n-1} (the base) and of the older points the formula uses.
        let Integrator { current, pool, points, unknown, y_hat, scratch, newton, steps, .. } = self;
        {
            let p = &mut points[0];
            sys.chart(current, current, &mut p.y, &mut p.yp, &mut p.lambda);
        }
        for j in 1..q.max(if hermite { 2 } else { 1 }) {
            let p = &mut points[j];
            sys.chart(current, &pool[j - 1], &mut p.y, &mut p.yp, &mut p.lambda);
        }
        // Explicit part of eq. (2): y_hat = sum_{j>=1} (a_j y_{n-j} + b_j y'_{n-j}).
        for (i, yh) in y_hat.iter_mut().enumerate() {
            *yh = (1..=q).map(|j| formula.a[j - 1] * points[j - 1].y[i] + formula.b[j] * points[j - 1].yp[i]).sum();
        }
        // Predictor: eqs. (12)-(14) with alpha = h_n/h_{n-1} and linear extrapolation of the
        // multipliers, or constant (eq. 15) when (re)starting with the trapezoidal rule.
        let p1 = &points[0];
        if hermite {
            let p2 = &points[1];
            let alpha = h / steps[0];
            let [m0, m1, n0, n1] = hermite3(alpha);
            for i in 0..unknown.yp.len() {
                unknown.yp[i] = (m0 * p1.y[i] + m1 * p2.y[i]) / h + n0 * p1.yp[i] + n1 * p2.yp[i];
            }
            for (l, (a, b)) in unknown.lambda.iter_mut().zip(p1.lambda.iter().zip(&p2.lambda)) {
                *l = (1.0 + alpha) * a - alpha * b;
            }
        } else {
            unknown.yp.copy_from_slice(&p1.yp);
            unknown.lambda.copy_from_slice(&p1.lambda);
        }
        let iterations = correct(
            sys,
            current,
            t_new,
            formula.b[0],
            y_hat,
            &mut unknown.y,
            &mut unknown.yp,
            &mut unknown.lambda,
            settings,
            newton,
        )?;
        sys.lift(current, t_new, &unknown.y, &unknown.yp, &unknown.lambda, scratch);
        // Commit: the new state becomes current, the old current the newest previous state
        // (a rotation of the ring, no allocation).
        let cap = pool.len();
        if cap > 0 {
            pool.rotate_right(1);
            steps.rotate_right(1);
            std::mem::swap(&mut pool[0], current);
            steps[0] = h;
            self.n_prev = (n + 1).min(cap);
        }
        std::mem::swap(current, scratch);
        Ok(StepStats { iterations, stages: 1, reused: newton.reused })
    }

    /// SSk step ([Zhang2022, eqs. 4a-4e] written as eqs. 9-11); chart at y_{n-1}.
    fn step_single(
        &mut self,
        sys: &mut S,
        t_new: f64,
        h: f64,
        settings: &NewtonSettings,
    ) -> Result<StepStats, StepError> {
        let Integrator { family, current, points, unknown, y_hat, scratch, newton, aux, aux_new, .. } = self;
        let Family::SingleStep(ss) = &*family else { unreachable!("single-step family") };
        let nd = y_hat.len();
        let nf = ss.filters();
        let p1 = &mut points[0];
        sys.chart(current, current, &mut p1.y, &mut p1.yp, &mut p1.lambda);
        // Unroll the cascade: W_i^n = K_i + D_i y'_n with K_i from the previous step
        // (K_i = c_i W_i^{n-1} + e_i W_{i+1}^{n-1} + d_i K_{i+1}, K_k = 0, W_k = y'), so that
        // y_n = y_{n-1} + h [(1 - g0) W_1^{n-1} + g0 K_1] + h g0 D_1 y'_n (eq. 8b). K_i is kept
        // in aux_new until the step is accepted.
        let re = |f: usize| 2 * f * nd;
        let im = |f: usize| (2 * f + 1) * nd;
        for i in 0..nd {
            let mut inner_old = Complex::new(p1.yp[i], 0.0);
            let mut known = Complex::ZERO;
            for f in (0..nf).rev() {
                let w_old = Complex::new(aux[re(f) + i], aux[im(f) + i]);
                known = ss.c[f] * w_old + ss.e[f] * inner_old + ss.d[f] * known;
                aux_new[re(f) + i] = known.re;
                aux_new[im(f) + i] = known.im;
                inner_old = w_old;
            }
            let w1 = Complex::new(aux[re(0) + i], aux[im(0) + i]);
            y_hat[i] = p1.y[i] + h * (w1.scale(1.0 - ss.gamma0) + known.scale(ss.gamma0)).re;
        }
        // Constant predictor (eq. 15).
        unknown.yp.copy_from_slice(&p1.yp);
        unknown.lambda.copy_from_slice(&p1.lambda);
        let iterations = correct(
            sys,
            current,
            t_new,
            h * ss.b0_per_h(),
            y_hat,
            &mut unknown.y,
            &mut unknown.yp,
            &mut unknown.lambda,
            settings,
            newton,
        )?;
        sys.lift(current, t_new, &unknown.y, &unknown.yp, &unknown.lambda, scratch);
        // Auxiliary vectors of the new point (eqs. 18-20) with its derivative in its own chart
        // (rotations: omega_N, [Zhang2022, Sect. 3.1]).
        sys.chart(scratch, scratch, &mut p1.y, &mut p1.yp, &mut p1.lambda);
        for f in 0..nf {
            let dw = ss.dw[f];
            for i in 0..nd {
                aux_new[re(f) + i] += dw.re * p1.yp[i];
                aux_new[im(f) + i] += dw.im * p1.yp[i];
            }
        }
        std::mem::swap(aux, aux_new);
        std::mem::swap(current, scratch);
        Ok(StepStats { iterations, stages: 1, reused: newton.reused })
    }

    /// ESDIRK step ([Zhang2022, eqs. 5-6]); every stage in the chart at the step's start.
    fn step_esdirk(
        &mut self,
        sys: &mut S,
        t0: f64,
        t_new: f64,
        h: f64,
        settings: &NewtonSettings,
    ) -> Result<StepStats, StepError> {
        let Integrator { family, current, points, y_hat, scratch, newton, .. } = self;
        let Family::Esdirk(tab) = &*family else { unreachable!("ESDIRK family") };
        let s = tab.stages();
        let c = &tab.c;
        {
            let p = &mut points[0];
            sys.chart(current, current, &mut p.y, &mut p.yp, &mut p.lambda);
        }
        let (mut iterations, mut reused) = (0, 0);
        for i in 1..=s {
            let row = &tab.a[i - 1];
            let (done, rest) = points.split_at_mut(i);
            let stage = &mut rest[0];
            // Explicit part of eq. (5)/(6): Y_i = y_{n-1} + h sum_{j<i} a_ij Y'_j + h gamma Y'_i.
            for (k, yh) in y_hat.iter_mut().enumerate() {
                *yh = done[0].y[k] + h * (0..i).map(|j| row[j] * done[j].yp[k]).sum::<f64>();
            }
            // Predictor ([Zhang2022, Sect. 3.1]): constant in the first stage, eq. (12) through the
            // two previous stage points, eq. (16) through three in the last stage of the
            // fourth- and fifth-order methods; constant if stage times coincide.
            let dc = |a: usize, b: usize| c[a] - c[b];
            let distinct = |pairs: &[(usize, usize)]| pairs.iter().all(|&(a, b)| dc(a, b).abs() > 1e-6);
            if i == s
                && tab.quintic_last
                && i >= 3
                && distinct(&[(i, i - 1), (i - 1, i - 2), (i - 2, i - 3), (i - 1, i - 3)])
            {
                let hh = dc(i, i - 1) * h;
                let (m, n) = hermite5(dc(i, i - 1) / dc(i - 1, i - 2), dc(i, i - 1) / dc(i - 2, i - 3));
                let (q1, q2, q3) = (&done[i - 1], &done[i - 2], &done[i - 3]);
                for k in 0..stage.yp.len() {
                    stage.yp[k] = (m[0] * q1.y[k] + m[1] * q2.y[k] + m[2] * q3.y[k]) / hh
                        + n[0] * q1.yp[k]
                        + n[1] * q2.yp[k]
                        + n[2] * q3.yp[k];
                }
            } else if i >= 2 && distinct(&[(i, i - 1), (i - 1, i - 2)]) {
                let hh = dc(i, i - 1) * h;
                let [m0, m1, n0, n1] = hermite3(dc(i, i - 1) / dc(i - 1, i - 2));
                let (q1, q2) = (&done[i - 1], &done[i - 2]);
                for k in 0..stage.yp.len() {
                    stage.yp[k] = (m0 * q1.y[k] + m1 * q2.y[k]) / hh + n0 * q1.yp[k] + n1 * q2.yp[k];
                }
            } else {
                stage.yp.copy_from_slice(&done[i - 1].yp);
            }
            stage.lambda.copy_from_slice(&done[i - 1].lambda);
            let t_stage = if i == s { t_new } else { t0 + c[i] * h };
            iterations += correct(
                sys,
                current,
                t_stage,
                h * tab.gamma,
                y_hat,
                &mut stage.y,
                &mut stage.yp,
                &mut stage.lambda,
                settings,
                newton,
            )?;
            reused += newton.reused;
        }
        let last = &points[s];
        sys.lift(current, t_new, &last.y, &last.yp, &last.lambda, scratch);
        std::mem::swap(current, scratch);
        Ok(StepStats { iterations, stages: s as u32, reused })
    }
}
