//! The scalar law of a force element: a force as a function of one measure x of the
//! mechanism (a length between two points, a joint angle, a position along a direction), its
//! rate x' and the element's input u. The geometry that measures x and turns the force into
//! loads belongs to each formulation; the law is written once for all of them.
//!
//! Sign conventions: `force` is what the element reports as its `force` output; the
//! generalized force conjugate to x (virtual work Q dx) is Q = `sense()` * `force`. A spring
//! reports its tension (sense -1: it pulls the measure down), an actuator or a torque the
//! push along the measure (sense +1).

use std::fmt;

/// A force law along one measure.
pub trait Law: fmt::Debug + Send + Sync {
    /// The reported force at measure `x`, rate `rate` and input value `input`.
    fn force(&self, x: f64, rate: f64, input: f64) -> f64;

    /// False if the force depends on the input alone (the measure need not be evaluated for
    /// the loads).
    fn uses_measure(&self) -> bool {
        true
    }

    /// +1 if a positive `force` drives the measure up, -1 if it pulls it down.
    fn sense(&self) -> f64;

    /// The generalized force Q = sense * force conjugate to the measure (one call where the
    /// loads need it; a law may compute it directly, to the same bits).
    fn generalized_force(&self, x: f64, rate: f64, input: f64) -> f64 {
        self.sense() * self.force(x, rate, input)
    }

    /// [`Law::generalized_force`] and [`Law::power`] together, for a formulation that needs
    /// both at every evaluation.
    fn generalized_force_and_power(&self, x: f64, rate: f64, input: f64) -> [f64; 2] {
        [self.generalized_force(x, rate, input), self.power(x, rate, input)]
    }

    /// Stiffness and damping [-dQ/dx, -dQ/dx'] of Q = sense * force, for Newton's tangent.
    fn tangent(&self, x: f64, rate: f64) -> [f64; 2];

    /// The tangent when it is the same at every state (a linear law): the geometry need not
    /// be evaluated for it.
    fn constant_tangent(&self) -> Option<[f64; 2]> {
        None
    }

    /// Stored energy V(x); the conservative part of Q is -dV/dx.
    fn energy(&self, _x: f64) -> f64 {
        0.0
    }

    /// True if [`Law::energy`] can be nonzero (the geometry is skipped otherwise).
    fn stores_energy(&self) -> bool {
        false
    }

    /// dV/dt and d2V/dt2 from x, x' and x''.
    fn energy_rates(&self, _x: f64, _rate: f64, _accel: f64) -> [f64; 2] {
        [0.0; 2]
    }

    /// Power (Q + dV/dx) x' of the non-conservative part of the generalized force.
    fn power(&self, x: f64, rate: f64, input: f64) -> f64;

    /// Work of the non-conservative part over a step of length `h` from the measure and rate
    /// `old` to `new`, with the geometry's own measure change `dx` and the input's mean
    /// `mean_input` over the step.
    fn work(&self, old: [f64; 2], new: [f64; 2], dx: f64, h: f64, mean_input: f64) -> f64;

    /// First and second time derivatives of `force` from x, x', x'' and the input's first two
    /// derivatives; a derivative the state does not determine (one that needs x''') is 0.
    fn force_rates(&self, x: f64, rate: f64, accel: f64, input: [f64; 2]) -> [f64; 2];
}
