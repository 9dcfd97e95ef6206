//! The Newton tangent kept from one step for the next: modified Newton across steps, the
//! Jacobian and its factors reused while the iteration converges at once (HairerWanner1996,
//! Sect. IV.8). A step that converges at its first iteration leaves the tangent it used to the
//! next step, which then skips forming and factoring one (the closed-form tangent of
//! `tangent.rs`, the circuit's Jacobian and, for the penalty formulation, the projections'
//! W = M' + dt/2 C + dt^2/4 K); a step that needs more iterations leaves none, and so does a
//! change of the partition or of the step size. A kept tangent serves at most `MAX_AGE`
//! steps. It is part of the state, so that a restored snapshot continues as the original did.
//!
//! The error of a stale tangent scales the step's last correction, which the convergence test
//! already bounds by the tolerance: measured over the work cycle of [Jaiswal2021, Sect. 5] against runs at 1000
//! times tighter tolerances, the coordinates' error grows from at most 4e-11 rad to at most
//! 2.5e-9 rad (the quick-return's penalty formulation), against a tolerance of 1e-7 rad.

use crate::linalg::SmallLu;
use serde::{Deserialize, Serialize};

/// Steps a kept tangent may serve after the one it was formed in. The error grows with it,
/// the saving levels off (quick-return, whole cycle: double-step 15 052, 14 634, 14 297 and
/// 14 078 instructions per step at 1, 2, 4 and 8; 2.5e-9 rad off the tight run at 4, 4.9e-9
/// at 8).
pub(super) const MAX_AGE: u32 = 4;

/// Relative difference of step sizes within which a kept tangent is reused (the steps of a
/// run differ by round-off in t1 - t0; a master that changes its step size gets a new one).
pub(super) const SAME_STEP: f64 = 1e-9;

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KeptTangent {
    /// The step size the tangent was formed for (its entries scale with it); 0 if none is kept.
    pub dt: f64,
    /// Steps it has served since the one it was formed in.
    pub age: u32,
    /// The factored tangent.
    pub lu: SmallLu,
    /// Penalty formulation: W of the same point, the matrix of the projections (eqs. 20-21);
    /// empty for double-step.
    pub amat: Vec<f64>,
}

impl Clone for KeptTangent {
    fn clone(&self) -> Self {
        let mut copy = KeptTangent::default();
        copy.clone_from(self);
        copy
    }

    /// Field-wise, reusing the storage: the per-step checkpoint copies without allocation.
    fn clone_from(&mut self, source: &Self) {
        self.dt = source.dt;
        self.age = source.age;
        self.lu.clone_from(&source.lu);
        self.amat.clone_from(&source.amat);
    }
}

impl KeptTangent {
    /// No tangent, with storage for `nx` unknowns and a W of `amat` entries.
    pub(super) fn none(nx: usize, amat: usize) -> KeptTangent {
        KeptTangent { dt: 0.0, age: 0, lu: SmallLu::new(nx), amat: vec![0.0; amat] }
    }

    /// Whether a step of size `dt` may use it.
    pub(super) fn usable(&self, dt: f64) -> bool {
        self.dt > 0.0 && (dt - self.dt).abs() <= SAME_STEP * self.dt && self.age < MAX_AGE
    }

    pub(super) fn forget(&mut self) {
        self.dt = 0.0;
        self.age = 0;
    }

    /// Whether it has the sizes of this model (a snapshot read back may hold anything).
    pub(super) fn fits(&self, nx: usize, amat: usize) -> bool {
        self.lu.is_well_formed(nx)
            && self.amat.len() == amat
            && (self.dt == 0.0 || self.dt.is_finite() && self.dt > 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_tangent_serves_steps_of_its_size_until_it_is_too_old() {
        let mut kept = KeptTangent::none(3, 0);
        assert!(!kept.usable(1e-3), "none is kept");
        kept.dt = 1e-3;
        assert!(kept.usable(1e-3) && kept.usable(1e-3 * (1.0 + 1e-12)));
        assert!(!kept.usable(0.5e-3) && !kept.usable(1.001e-3));
        kept.age = MAX_AGE;
        assert!(!kept.usable(1e-3));
        kept.forget();
        assert!(!kept.usable(1e-3) && kept.age == 0);
    }

    #[test]
    fn a_kept_tangent_read_back_must_have_the_models_sizes() {
        let kept = KeptTangent::none(3, 9);
        assert!(kept.fits(3, 9));
        assert!(!kept.fits(2, 9) && !kept.fits(3, 0));
        for dt in [f64::NAN, -1e-3, f64::INFINITY] {
            let bad = KeptTangent { dt, ..kept.clone() };
            assert!(!bad.fits(3, 9), "dt {dt}");
        }
    }
}
