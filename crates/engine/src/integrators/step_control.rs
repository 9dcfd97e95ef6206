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
