//! The penalty formulation's multipliers of the last steps, for the predictor of the next
//! step's multipliers.
//!
//! Jaiswal2021 eq. (19) starts a step's augmented Lagrangian iteration from the last step's
//! final multipliers, lambda_{k+1}^(0) = lambda_k. Each update lambda += alpha Phi then
//! contracts the multipliers' error only by the ratio of the constrained directions' inertia
//! and stiffness W to the penalty term (about 0.12 per iteration on the hydraulic four-bar),
//! so a multiplier that moves from step to step costs iterations. Here the start is the
//! parabola through the last three steps' multipliers, lambda^(0) = 3 lambda_k -
//! 3 lambda_{k-1} + lambda_{k-2} (the line 2 lambda_k - lambda_{k-1} while only two are known),
//! for steps of one size. The iteration and its convergence test are those of eq. (19): only
//! its starting point changes.
//!
//! A row whose multiplier changed over the last step by less than `ROUND_OFF` (64) times alpha
//! times the round-off of Phi keeps lambda_k: the update resolves a multiplier only to alpha
//! times the round-off of Phi, and extrapolating round-off would integrate it (the quick-return's
//! prismatic cut has a rotation row whose multiplier is zero to round-off; extrapolated, it
//! drifts until Newton stalls at 1000 times tighter tolerances).
//!
//! The history is part of the state, so that a restored snapshot continues bit for bit.

use super::kept_tangent::SAME_STEP;
use crate::linalg::copy_small;
use serde::{Deserialize, Serialize};

/// Multiples of alpha eps |z| (at least alpha eps) below which a multiplier's change over a
/// step is taken for round-off.
pub(super) const ROUND_OFF: f64 = 64.0;

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MultiplierHistory {
    /// Sizes of the last step and of the one before (t_k - t_{k-1}, t_{k-1} - t_{k-2}); 0 where
    /// unknown.
    pub steps: [f64; 2],
    /// lambda_{k-1} and lambda_{k-2}.
    pub past: [Vec<f64>; 2],
}

impl Clone for MultiplierHistory {
    fn clone(&self) -> Self {
        let mut copy = MultiplierHistory::default();
        copy.clone_from(self);
        copy
    }

    /// Field-wise, reusing the storage: the per-step checkpoint copies without allocation.
    fn clone_from(&mut self, source: &Self) {
        self.steps = source.steps;
        self.past[0].clone_from(&source.past[0]);
        self.past[1].clone_from(&source.past[1]);
    }
}

impl MultiplierHistory {
    /// No history, with storage for `m` multipliers.
    pub(super) fn none(m: usize) -> MultiplierHistory {
        MultiplierHistory { steps: [0.0; 2], past: [vec![0.0; m], vec![0.0; m]] }
    }

    pub fn forget(&mut self) {
        self.steps = [0.0; 2];
    }

    /// The start of the next step's iteration, of size `dt`, from the last step's multipliers
    /// `now` into `out`; `round_off` is the change below which a row keeps `now`.
    pub(super) fn predict(&self, now: &[f64], dt: f64, round_off: f64, out: &mut [f64]) {
        let same = |h: f64| h > 0.0 && (dt - h).abs() <= SAME_STEP * h;
        let order = match (same(self.steps[0]), same(self.steps[1])) {
            (true, true) => 2,
            (true, false) => 1,
            _ => 0,
        };
        for (i, (o, &l)) in out.iter_mut().zip(now).enumerate() {
            let (l1, l2) = (self.past[0][i], self.past[1][i]);
            *o = match order {
                _ if (l - l1).abs() <= round_off => l,
                2 => 3.0 * l - 3.0 * l1 + l2,
                1 => 2.0 * l - l1,
                _ => l,
            };
        }
    }

    /// After a step of size `dt` that started from the multipliers `before`.
    pub(super) fn record(&mut self, before: &[f64], dt: f64) {
        let [newer, older] = &mut self.past;
        std::mem::swap(newer, older);
        copy_small(newer, before);
        self.steps = [dt, self.steps[0]];
    }

    /// Whether it has the sizes of this model (a snapshot read back may hold anything).
    pub(super) fn fits(&self, m: usize) -> bool {
        self.past.iter().all(|p| p.len() == m) && self.steps.iter().all(|h| h.is_finite() && *h >= 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(values: &[[f64; 2]], h: f64) -> (MultiplierHistory, Vec<f64>) {
        let mut history = MultiplierHistory::none(2);
        for pair in values.windows(2) {
            history.record(&pair[0], h);
        }
        (history, values.last().unwrap().to_vec())
    }

    #[test]
    fn the_prediction_follows_the_parabola_through_the_last_three_steps() {
        // lambda(t) = 2 + 3 t - 5 t^2 at t = 0, h, 2h; its value at 3h.
        let f = |t: f64| [2.0 + 3.0 * t - 5.0 * t * t, -1.0 + t * t];
        let h = 0.25;
        let (history, now) = after(&[f(0.0), f(h), f(2.0 * h)], h);
        let mut out = [0.0; 2];
        history.predict(&now, h, 0.0, &mut out);
        for (o, e) in out.iter().zip(f(3.0 * h)) {
            assert!((o - e).abs() < 1e-14, "{o} vs {e}");
        }
        // A step of another size: the last values.
        history.predict(&now, 0.5 * h, 0.0, &mut out);
        assert_eq!(out.to_vec(), now);
    }

    #[test]
    fn with_one_past_step_the_prediction_is_the_line_and_without_any_the_last_value() {
        let (history, now) = after(&[[1.0, 2.0], [1.5, 1.0]], 1e-3);
        let mut out = [0.0; 2];
        history.predict(&now, 1e-3 * (1.0 + 1e-12), 0.0, &mut out);
        assert_eq!(out, [2.0, 0.0]);
        let mut history = history;
        history.forget();
        history.predict(&now, 1e-3, 0.0, &mut out);
        assert_eq!(out.to_vec(), now);
    }

    #[test]
    fn a_multiplier_that_moves_by_round_off_keeps_its_value() {
        let (history, now) = after(&[[0.0, 0.0], [1e-6, 1.0], [-1e-6, 2.0]], 1e-3);
        let mut out = [0.0; 2];
        history.predict(&now, 1e-3, 1e-5, &mut out);
        assert_eq!(out, [-1e-6, 3.0]);
    }

    /// The hydraulic four-bar's work cycle in the penalty formulation (Jaiswal2021 Sect. 5),
    /// with the predictor and with eq. (19)'s start from the last step's multipliers (the
    /// history forgotten before every step), at the model's tolerances and at 1000 times
    /// tighter ones: the predictor spares Newton iterations (measured 23 147 -> 19 208 and
    /// 40 145 -> 28 360 per cycle) and ends within a tenth of the tolerances of the other run.
    #[test]
    fn on_the_four_bar_the_predictor_spares_iterations_and_ends_where_eq_19_does() {
        use crate::semirecursive::Semirecursive;
        use crate::settings::SemirecursiveSettings;
        use mbfmu_model::format::{self, Formulation};
        let mut d = format::parse(mbfmu_model::catalog::find("HydraulicFourBar").unwrap().json).unwrap();
        d.solver.formulation = Formulation::SemirecursivePenalty;
        for (factor, saving) in [(1.0, 0.9), (1e-3, 0.8)] {
            let mut d = d.clone();
            d.solver.tolerance *= factor;
            d.solver.pressure_tolerance *= factor;
            let h = d.solver.step_size;
            let run = |predict: bool| {
                let mut s = Semirecursive::new(&d, SemirecursiveSettings::of(&d.solver).unwrap()).unwrap();
                let mut iterations = 0;
                for k in 1..=(10.0 / h).round() as usize {
                    if !predict {
                        s.state.multipliers.forget();
                    }
                    iterations += s.step_to(k as f64 * h).unwrap().iterations;
                }
                (iterations, s.state.z.clone(), s.state.p.clone())
            };
            let (with, z1, p1) = run(true);
            let (without, z0, p0) = run(false);
            assert!(
                (with as f64) < saving * without as f64,
                "tolerances x {factor}: {with} Newton iterations with the predictor, {without} without"
            );
            let dz = z1.iter().zip(&z0).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            let dp = p1.iter().zip(&p0).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            assert!(
                dz <= 0.1 * d.solver.tolerance.max(1e-8) && dp <= 0.1,
                "tolerances x {factor}: the runs end {dz:.1e} rad and {dp:.1e} Pa apart"
            );
        }
    }

    #[test]
    fn a_history_read_back_must_have_the_models_sizes() {
        let history = MultiplierHistory::none(3);
        assert!(history.fits(3) && !history.fits(2));
        for h in [f64::NAN, -1e-3, f64::INFINITY] {
            let bad = MultiplierHistory { steps: [h, 0.0], ..history.clone() };
            assert!(!bad.fits(3), "step {h}");
        }
    }
}
