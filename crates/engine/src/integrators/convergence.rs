//! The stopping test of the engine's Newton iterations (the residual-form integrators, the
//! half-implicit method, the state-space stages, the semirecursive step): converged when the
//! correction is below a tolerance scaled to the size of the unknowns, or when it has
//! stagnated at the round-off floor.
//!
//! - Scaled tolerance: ||dx|| <= tol + [`ROUND_OFF`] ||x||, the user's absolute tolerance plus a
//!   relative part, as in the scaled norms of Hairer & Wanner 1996, Sect. IV.8
//!   (sc_i = Atol_i + |y_i| Rtol_i), with the relative part at the lower limit that Hairer's
//!   Radau codes put on the Newton tolerance, 10 uround relative to the solution
//!   (RADAU5/RADAU: FNEWT = MAX(10*UROUND/RTOL, ...)): a smaller correction is round-off.
//! - Stagnation at the round-off floor: Hairer & Wanner 1996, Sect. IV.8, follow the
//!   iteration through its contraction theta_k = ||dx_k|| / ||dx_{k-1}||. Once the iterate is
//!   as good as the arithmetic allows, the corrections are round-off of the residual amplified
//!   by the condition of the iteration matrix (large for index-3 systems, whose iteration
//!   matrices have condition O(h^-3), Hairer & Wanner 1996, Chap. VII): theta hovers around 1
//!   without a trend and no further iteration improves the iterate. A correction is accepted
//!   as converged at the floor ([`Verdict::AtFloor`], counted in a [`FloorReport`]) when the
//!   last two iterations each failed to halve it (theta > 1/2, the rate at which the modified
//!   Newton loops here refresh their matrix, so that the second one ran with the freshest
//!   matrix the method uses), one of them did not decrease it at all (theta >= 1: the
//!   iteration has stopped making progress; a slow but steady linear convergence, theta < 1
//!   every time, goes on iterating), together they did not double it (theta_k theta_{k-1} < 2:
//!   an iteration that diverges at a rate theta >= 1.42 doubles its correction every two
//!   iterations), and it lies within [`FLOOR_BAND`] times the scaled tolerance. The band is
//!   wide because the floor rises with the magnitudes in the residual: a driven rotor's
//!   prescribed angle grows with time, and so does the round-off of its constraint,
//!   eps |omega t| (FourLink's floor, measured: 1.4 times its tolerance at t = 27 s, 14 at
//!   177 s, 25-33 at 400-600 s; started with 100 extra turns on the drive angle, 14-16 times
//!   at t = 10 s). Growing corrections, and stagnation farther above the tolerance, are not
//!   accepted: the iteration goes on and fails as before (the tolerance is out of reach of
//!   the arithmetic, or the iteration is stuck for another reason, e.g. the trapezoidal
//!   rule's growing multiplier oscillation on index-3 problems).
//!
//! An iteration that meets the tolerance stops exactly where the plain test `||dx|| <= tol`
//! stopped it; only iterations that this test would have kept going (and usually failed) end
//! differently.

/// Relative part of the tolerance: 10 units of round-off (Hairer's RADAU5/RADAU, see above).
pub const ROUND_OFF: f64 = 10.0 * f64::EPSILON;

/// A stagnating correction up to this multiple of the scaled tolerance is at the floor.
pub const FLOOR_BAND: f64 = 100.0;

/// Contraction above which an iteration counts as not converging (Hairer & Wanner 1996,
/// Sect. IV.8: theta close to 1).
const STAGNANT: f64 = 0.5;

/// Growth over two iterations that marks divergence rather than round-off noise.
const GROWTH: f64 = 2.0;

/// What one iteration's correction says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// Below the scaled tolerance.
    Converged,
    /// Stagnated at the round-off floor: accepted; `ratio` is the correction over the scaled
    /// tolerance (between 1 and [`FLOOR_BAND`]).
    AtFloor { ratio: f64 },
    /// Go on iterating.
    Continue,
}

/// The state of the stopping test over the iterations of one Newton solve.
#[derive(Clone, Copy, Debug)]
pub struct Convergence {
    tolerance: f64,
    /// Correction over scaled tolerance of the previous iteration and of the one before.
    previous: f64,
    before_previous: f64,
    /// Consecutive iterations that did not halve the correction.
    stagnant: u32,
}

impl Convergence {
    /// A new solve with the absolute tolerance `tolerance`.
    pub fn new(tolerance: f64) -> Convergence {
        let none = f64::INFINITY;
        Convergence { tolerance, previous: none, before_previous: none, stagnant: 0 }
    }

    /// The tolerance scaled to unknowns of size `size` (a norm of the same kind as the
    /// correction's).
    pub fn scaled(tolerance: f64, size: f64) -> f64 {
        tolerance + ROUND_OFF * size
    }

    /// One iteration: `norm` is the size of the correction, `size` gives the size of the
    /// unknowns it corrects (evaluated only when `norm` exceeds the absolute tolerance).
    pub fn check(&mut self, norm: f64, size: impl FnOnce() -> f64) -> Verdict {
        if norm <= self.tolerance {
            return Verdict::Converged;
        }
        self.check_ratio(norm / Convergence::scaled(self.tolerance, size()))
    }

    /// One iteration, for callers that scale several blocks themselves: `ratio` is the
    /// correction over its scaled tolerance (the largest over the blocks).
    pub fn check_ratio(&mut self, ratio: f64) -> Verdict {
        if ratio <= 1.0 {
            return Verdict::Converged;
        }
        self.stagnant = if ratio > STAGNANT * self.previous { self.stagnant + 1 } else { 0 };
        // No decrease in this iteration or the one before.
        let stalled = ratio >= self.previous || self.previous >= self.before_previous;
        let doubled = ratio >= GROWTH * self.before_previous;
        self.before_previous = self.previous;
        self.previous = ratio;
        if self.stagnant >= 2 && stalled && !doubled && ratio <= FLOOR_BAND {
            Verdict::AtFloor { ratio }
        } else {
            Verdict::Continue
        }
    }
}

/// Newton solves accepted at the round-off floor, for reports (cumulative over a run; not
/// part of any snapshot).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FloorReport {
    pub count: u64,
    /// The most recent one: its time and its correction over the scaled tolerance.
    pub time: f64,
    pub ratio: f64,
}

impl FloorReport {
    pub fn record(&mut self, time: f64, ratio: f64) {
        self.count += 1;
        self.time = time;
        self.ratio = ratio;
    }

    /// True if `verdict` ends the iteration as converged; a solve at the floor is recorded.
    pub fn settle(&mut self, verdict: Verdict, time: f64) -> bool {
        match verdict {
            Verdict::Converged => true,
            Verdict::AtFloor { ratio } => {
                self.record(time, ratio);
                true
            }
            Verdict::Continue => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the test over a sequence of corrections; the iteration and the verdict that ends it.
    fn run(tolerance: f64, norms: &[f64]) -> (usize, Verdict) {
        let mut c = Convergence::new(tolerance);
        for (k, &n) in norms.iter().enumerate() {
            let v = c.check(n, || 1.0);
            if v != Verdict::Continue {
                return (k + 1, v);
            }
        }
        (norms.len(), Verdict::Continue)
    }

    #[test]
    fn the_tolerance_stops_where_the_absolute_test_did_and_scales_with_the_unknowns() {
        assert_eq!(run(1e-10, &[1e-4, 1e-7, 9e-11]), (3, Verdict::Converged));
        // Unknowns of size 1e6: 10 eps 1e6 = 2.2e-9 is added to the tolerance.
        let mut c = Convergence::new(1e-12);
        assert_eq!(c.check(2e-9, || 1e6), Verdict::Converged);
        assert_eq!(Convergence::new(1e-12).check(3e-9, || 1e6), Verdict::Continue);
    }

    /// FourLink at t = 27.486 s (half-implicit, tol 1e-10): fast contraction, then round-off
    /// noise around 1.4e-10 that the plain test kept iterating on for 50 iterations.
    #[test]
    fn a_correction_stagnating_near_the_tolerance_is_accepted_at_the_floor() {
        let norms = [4.2e-4, 1.39e-6, 1.70e-9, 1.52e-10, 1.49e-10, 1.43e-10, 1.41e-10, 1.52e-10, 1.49e-10];
        let (k, v) = run(1e-10, &norms);
        assert_eq!(k, 8, "accepted once the correction stops decreasing");
        assert!(matches!(v, Verdict::AtFloor { ratio } if (ratio - 1.52).abs() < 1e-2), "{v:?}");
        // FourLink at t = 62.703 s: a lucky first correction at the floor (1.3e-10), then the
        // noise level 3.2e-10; accepted once two iterations stay at that level.
        let norms = [5.3e-4, 1.36e-5, 6.26e-8, 1.32e-10, 3.23e-10, 3.36e-10, 3.28e-10];
        assert!(matches!(run(1e-10, &norms), (7, Verdict::AtFloor { .. })));
        // FourLink at t = 177.5 s: the floor has risen to 14 times the tolerance.
        let norms = [5.2e-4, 1.3e-5, 6.1e-8, 1.5e-9, 1.42e-9, 1.45e-9];
        assert!(matches!(run(1e-10, &norms), (6, Verdict::AtFloor { ratio }) if ratio > 10.0));
        // One slow iteration (a modified Newton loop refreshes its matrix then) is not enough.
        assert_eq!(run(1e-10, &[1e-6, 1e-8, 9e-9, 1e-11]), (4, Verdict::Converged));
    }

    /// The double pendulum's first BDF1 step of 0.5 s: a quasi-Newton iteration converging
    /// linearly at theta = 0.6, slow but steady, is not stagnation.
    #[test]
    fn slow_linear_convergence_goes_on_to_the_tolerance() {
        let norms: Vec<f64> = (0..60).map(|k| 3.37 * 0.595f64.powi(k)).collect();
        let (k, v) = run(1e-10, &norms);
        assert_eq!(v, Verdict::Converged);
        assert_eq!(norms[k - 1] <= 1e-10, norms[k - 2] > 1e-10);
    }

    #[test]
    fn divergence_and_stagnation_far_above_the_tolerance_still_fail() {
        // Growing corrections: never accepted.
        let growing: Vec<f64> = (0..50).map(|k| 3e-10 * 1.5f64.powi(k)).collect();
        assert_eq!(run(1e-10, &growing), (50, Verdict::Continue));
        // Stagnation at 1000 times the tolerance: out of reach, not accepted.
        let stuck = [1e-5, 1e-6, 1e-7, 1.1e-7, 0.9e-7, 1.0e-7, 1.05e-7];
        assert_eq!(run(1e-10, &stuck), (7, Verdict::Continue));
        // Growth by 1.5 per iteration inside the band: doubles every two iterations.
        let growing: Vec<f64> = (0..10).map(|k| if k == 0 { 1e-6 } else { 2e-10 * 1.5f64.powi(k) }).collect();
        assert_eq!(run(1e-10, &growing), (10, Verdict::Continue));
    }
}
