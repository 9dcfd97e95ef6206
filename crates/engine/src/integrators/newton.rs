//! The corrector shared by every integrator: [Zhang2022, Sect. 3.2], eqs. (21a)-(21c), with the
//! convergence test of [Fang2023, Sect. 2.2] (norm of the position-level correction < tol),
//! scaled to the unknowns and aware of the round-off floor ([`super::convergence`]).

use super::convergence::{Convergence, FloorReport};
use super::{DaeSystem, StepError};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewtonSettings {
    pub tolerance: f64,
    pub max_iterations: u32,
}

/// Scratch vectors of the corrector, allocated once per instance.
#[derive(Clone, Debug, Default)]
pub struct NewtonStats {
    r: Vec<f64>,
    dyp: Vec<f64>,
    dlambda: Vec<f64>,
    /// y / b0, to measure the unknowns with the correction's own norm.
    scaled: Vec<f64>,
    /// The residual at a trial point of a damped correction.
    trial: Vec<f64>,
    /// Iterations of the last call.
    pub iterations: u32,
    /// Iterations of the last call that solved with a factorization made before that call
    /// or before an earlier iteration of it (modified Newton; the work budget charges them
    /// less than a factoring one, [`crate::Meter`]).
    pub reused: u32,
    /// Solves accepted at the round-off floor (cumulative).
    pub floor: FloorReport,
    /// A solve may start from the iteration matrix the system holds when that was factored
    /// with (nearly) the same b0 ([`Self::kept`]).
    keep: bool,
    /// The b0 of the matrix the system holds, while it may serve the next solve.
    pub kept: Option<f64>,
    /// The predicted y' and lambda, to start again with a fresh matrix when a kept one fails.
    start_yp: Vec<f64>,
    start_lambda: Vec<f64>,
}

impl NewtonStats {
    /// Lets the solves start from a kept iteration matrix ([`NewtonStats::keep`]) of a system
    /// with `nd` differential and `na` algebraic unknowns; the vectors a fresh restart needs
    /// are allocated here, not in a step.
    pub fn keep_matrix(&mut self, on: bool, nd: usize, na: usize) {
        self.keep = on;
        self.kept = None;
        self.start_yp = Vec::with_capacity(nd);
        self.start_lambda = Vec::with_capacity(na);
    }
}

/// Relative difference of b0 below which a kept iteration matrix serves (the equal sub-steps
/// of a communication step differ by round-off).
const SAME_B0: f64 = 1e-8;

/// Solves r(y_hat + b0 y', y', lambda, t) = 0 for y' and lambda ([Zhang2022, eq. 8]), starting
/// from the predicted y' and lambda; on success `y` = y_hat + b0 y'. The iteration matrix is
/// factored at the predictor, or kept from the last solve ([`NewtonStats::keep`]), and
/// factored again only when convergence is slow (modified Newton). A solve that fails with a
/// kept matrix starts over from the predictor with a fresh one.
#[allow(clippy::too_many_arguments)]
pub fn correct<S: DaeSystem>(
    sys: &mut S,
    base: &S::State,
    t: f64,
    b0: f64,
    y_hat: &[f64],
    y: &mut [f64],
    yp: &mut [f64],
    lambda: &mut [f64],
    settings: &NewtonSettings,
    ws: &mut NewtonStats,
) -> Result<u32, StepError> {
    let kept = ws.keep && ws.kept.is_some_and(|k| (k / b0 - 1.0).abs() <= SAME_B0);
    ws.kept = None;
    ws.reused = 0;
    if kept {
        ws.start_yp.clear();
        ws.start_yp.extend_from_slice(yp);
        ws.start_lambda.clear();
        ws.start_lambda.extend_from_slice(lambda);
    }
    let mut result = solve_from(sys, base, t, b0, y_hat, y, yp, lambda, settings, ws, !kept);
    if kept && result.is_err() {
        // The failed attempt's iterations were made and are charged.
        // (`ws.reused` goes on counting.)
        let failed = ws.iterations;
        yp.copy_from_slice(&ws.start_yp);
        lambda.copy_from_slice(&ws.start_lambda);
        result = solve_from(sys, base, t, b0, y_hat, y, yp, lambda, settings, ws, true)
            .map(|iterations| iterations + failed);
    }
    if ws.keep && result.is_ok() {
        ws.kept = Some(b0);
    }
    result
}

/// [`correct`] with a fresh factorization (`factor`) or the one the system holds.
#[allow(clippy::too_many_arguments)]
fn solve_from<S: DaeSystem>(
    sys: &mut S,
    base: &S::State,
    t: f64,
    b0: f64,
    y_hat: &[f64],
    y: &mut [f64],
    yp: &mut [f64],
    lambda: &mut [f64],
    settings: &NewtonSettings,
    ws: &mut NewtonStats,
    factor: bool,
) -> Result<u32, StepError> {
    let (nd, na) = (sys.n_diff(), sys.n_alg());
    ws.r.resize(nd + na, 0.0);
    ws.dyp.resize(nd, 0.0);
    ws.dlambda.resize(na, 0.0);
    ws.scaled.resize(nd, 0.0);
    for i in 0..nd {
        y[i] = y_hat[i] + b0 * yp[i];
    }
    if factor {
        sys.factor(base, t, b0, y, yp, lambda)?;
    }
    let mut fresh = factor;
    let mut previous = f64::INFINITY;
    let mut norm = f64::INFINITY;
    let mut test = Convergence::new(settings.tolerance);
    ws.iterations = 0;
    for iteration in 1..=settings.max_iterations {
        ws.iterations = iteration;
        if !fresh {
            ws.reused += 1;
        }
        sys.residual(base, t, y, yp, lambda, &mut ws.r)?;
        if ws.r.iter().any(|x| !x.is_finite()) {
            return Err(StepError::NonFinite { time: t, what: "residual".into() });
        }
        sys.solve(&ws.r, &mut ws.dyp, &mut ws.dlambda)?;
        for i in 0..nd {
            yp[i] += ws.dyp[i];
            y[i] += b0 * ws.dyp[i];
        }
        for (l, d) in lambda.iter_mut().zip(&ws.dlambda) {
            *l += d;
        }
        // The convergence test measures the full Newton correction, not a damped one.
        norm = sys.correction_norm(b0, &ws.dyp, &ws.dlambda);
        if let Some(rows) = sys.damped_rows() {
            damp(sys, base, t, b0, rows, y, yp, lambda, ws)?;
        }
        if !norm.is_finite() {
            return Err(StepError::NonFinite { time: t, what: "Newton correction".into() });
        }
        // The size of the unknowns (y, lambda) in the norm of the corrections (b0 dy', dlambda):
        // correction_norm of (y / b0, lambda).
        let size = || {
            for (s, yi) in ws.scaled.iter_mut().zip(y.iter()) {
                *s = yi / b0;
            }
            sys.correction_norm(b0, &ws.scaled, lambda)
        };
        if ws.floor.settle(test.check(norm, size), t) {
            return Ok(iteration);
        }
        // Slow or diverging convergence with an old matrix: refactor at the current iterate.
        if !fresh && norm > 0.5 * previous {
            sys.factor(base, t, b0, y, yp, lambda)?;
            fresh = true;
        } else {
            fresh = false;
        }
        previous = norm;
    }
    Err(StepError::NotConverged { time: t, iterations: settings.max_iterations, norm, tolerance: settings.tolerance })
}

/// Most halvings of a damped correction.
const MAX_HALVINGS: usize = 10;

/// Backtracking on the full correction just applied (dy', dlambda in `ws`, the residual
/// before it in `ws.r`): halves it while the largest residual of `rows` grows over the one
/// before (Armijo's rule with a slope factor of 1e-4, [DennisSchnabel1983, Sect. 6.3]). The
/// correction left in `ws` is the one taken.
#[allow(clippy::too_many_arguments)]
fn damp<S: DaeSystem>(
    sys: &mut S,
    base: &S::State,
    t: f64,
    b0: f64,
    rows: std::ops::Range<usize>,
    y: &mut [f64],
    yp: &mut [f64],
    lambda: &mut [f64],
    ws: &mut NewtonStats,
) -> Result<(), StepError> {
    let merit = |r: &[f64]| r[rows.clone()].iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let before = merit(&ws.r);
    ws.trial.resize(ws.r.len(), 0.0);
    let mut lambda_step = 1.0;
    for k in 0..=MAX_HALVINGS {
        sys.residual(base, t, y, yp, lambda, &mut ws.trial)?;
        if merit(&ws.trial) <= (1.0 - 1e-4 * lambda_step) * before {
            break;
        }
        if k == MAX_HALVINGS {
            // No decrease along the correction: take it whole (plain Newton).
            let back = 1.0 / lambda_step - 1.0;
            for (i, d) in ws.dyp.iter().enumerate() {
                yp[i] += back * d;
                y[i] += back * b0 * d;
            }
            for (l, d) in lambda.iter_mut().zip(&ws.dlambda) {
                *l += back * d;
            }
            break;
        }
        // Take back half of the correction in place.
        lambda_step *= 0.5;
        for (i, d) in ws.dyp.iter_mut().enumerate() {
            *d *= 0.5;
            yp[i] -= *d;
            y[i] -= b0 * *d;
        }
        for (l, d) in lambda.iter_mut().zip(ws.dlambda.iter_mut()) {
            *d *= 0.5;
            *l -= *d;
        }
    }
    Ok(())
}
