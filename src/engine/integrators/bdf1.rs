//! Backward Euler (BDF1), the fully implicit scheme of seed 003 Sect. 2.3, eqs. (13)-(14):
//! y_n = y_{n-1} + h y'_n in the chart centred at y_{n-1}, i.e. b0 = h.
//! Predictor: constant, y'_n = y'_{n-1} (seed 000 eq. 15).

use super::{correct, DaeSystem, NewtonSettings, NewtonStats, StepError, StepStats};

/// Backward Euler with its state (the last accepted point) and scratch vectors.
#[derive(Clone, Debug)]
pub struct Bdf1<S: DaeSystem> {
    state: S::State,
    y_hat: Vec<f64>,
    y: Vec<f64>,
    yp: Vec<f64>,
    lambda: Vec<f64>,
    scratch: S::State,
    newton: NewtonStats,
}

impl<S: DaeSystem> Bdf1<S> {
    /// Starts from a consistent state (derivatives and multipliers included).
    pub fn new(sys: &S, start: S::State) -> Self {
        let (nd, na) = (sys.n_diff(), sys.n_alg());
        Bdf1 {
            scratch: start.clone(),
            state: start,
            y_hat: vec![0.0; nd],
            y: vec![0.0; nd],
            yp: vec![0.0; nd],
            lambda: vec![0.0; na],
            newton: NewtonStats::default(),
        }
    }

    pub fn state(&self) -> &S::State {
        &self.state
    }

    /// Replaces the current state (restoring a snapshot).
    pub fn set_state(&mut self, state: S::State) {
        self.state = state;
    }

    /// Advances the current state by `h`.
    pub fn step(&mut self, sys: &mut S, h: f64, settings: &NewtonSettings) -> Result<StepStats, StepError> {
        let t = sys.time(&self.state) + h;
        if !(h.is_finite() && h > 0.0) {
            return Err(StepError::BadStep { time: sys.time(&self.state), h });
        }
        // Chart at the last point: y_hat = y_{n-1}; predictor y'_n = y'_{n-1}, lambda_n = lambda_{n-1}.
        sys.chart(&self.state, &self.state, &mut self.y_hat, &mut self.yp, &mut self.lambda);
        let iterations = correct(
            sys,
            &self.state,
            t,
            h,
            &self.y_hat,
            &mut self.y,
            &mut self.yp,
            &mut self.lambda,
            settings,
            &mut self.newton,
        )?;
        sys.lift(&self.state, t, &self.y, &self.yp, &self.lambda, &mut self.scratch);
        std::mem::swap(&mut self.state, &mut self.scratch);
        Ok(StepStats { iterations, stages: 1 })
    }
}
