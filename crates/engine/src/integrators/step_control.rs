//! The step-size controller of the variable-step methods: h_new = h min(limit, max(GROWTH_MIN,
//! SAFETY err^(-1/(q+1)))) with err the tolerance-weighted error norm and q the order of the
//! error estimate \[HairerNorsettWanner1993, Sect. II.4\], \[Negrut1997, eq. 22\].

use super::StepError;

/// Safety factor of the step-size controller (\[Negrut1997, Sect. 3.2\]).
pub const SAFETY: f64 = 0.85;
/// Largest and smallest ratio of consecutive steps \[HairerNorsettWanner1993, Sect. II.4\].
pub const GROWTH_MAX: f64 = 5.0;
pub const GROWTH_MIN: f64 = 0.2;
/// Step reduction after a Newton failure or a non-finite evaluation.
pub const NEWTON_FAILURE_FACTOR: f64 = 0.25;

/// The ratio of the next step to this one for error norm `err` (clamped to
/// [GROWTH_MIN, limit]; `limit` is 1 after a rejection).
pub fn step_factor(err: f64, exponent: f64, limit: f64) -> f64 {
    (SAFETY * err.powf(-exponent)).clamp(GROWTH_MIN, limit)
}

/// Failures a smaller step may cure.
pub fn recoverable(e: &StepError) -> bool {
    matches!(e, StepError::NotConverged { .. } | StepError::Singular { .. } | StepError::NonFinite { .. })
}

/// The starting step of \[HairerNorsettWanner1993, Sect. II.4\], first part: h0 = 0.01 d0 / d1
/// (d0 = |x0|, d1 = |f0| in the tolerance-weighted norm; 1e-6 if either is tiny), at most `h_max`.
pub fn first_guess(d0: f64, d1: f64, h_max: f64) -> f64 {
    if d0 < 1e-5 || d1 < 1e-5 { 1e-6 } else { 0.01 * d0 / d1 }.min(h_max)
}

/// Its second part, after an explicit Euler step of h0 estimated the second derivative
/// d2 = |f1 - f0| / h0: h1 = (0.01 / max(d1, d2))^(1/(q+1)), the step min(100 h0, h1, h_max).
pub fn starting_step(h0: f64, d1: f64, d2: f64, exponent: f64, h_max: f64) -> f64 {
    let h1 = if d1.max(d2) <= 1e-15 { (h0 * 1e-3).max(1e-6) } else { (0.01 / d1.max(d2)).powf(exponent) };
    (100.0 * h0).min(h1).min(h_max)
}

/// The next step from `t` with the controller's `proposed` size towards the advance's end
/// `t_end`: (h, t_new, clipped). A time event `event` ends a step exactly, and so does t_end
/// without dense output (a step that gets within 1% of a target is stretched to it). With
/// dense output a step that would end within 1% of t_end either side lands on it, and any
/// other is the natural step, past t_end or not. `clipped` says the step was changed to land.
pub fn plan(t: f64, proposed: f64, t_end: f64, event: Option<f64>, dense: bool) -> (f64, f64, bool) {
    let exact = match event {
        Some(te) if dense || te < t_end => te,
        _ if dense => f64::INFINITY,
        _ => t_end,
    };
    if t + 1.01 * proposed >= exact {
        (exact - t, exact, true)
    } else if dense && t + 1.01 * proposed >= t_end && t + 0.99 * proposed <= t_end {
        (t_end - t, t_end, true)
    } else {
        (proposed, t + proposed, false)
    }
}
