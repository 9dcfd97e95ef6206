//! The linear spring-damper-actuator, the law of the `tsda`, `rsda` and `actuator` elements:
//! force = -sense (k (x - x0) + c x') + value + input, so that a translational spring
//! (sense -1) reports its tension k (l - l0) + c l' + value + input and a rotational one
//! (sense +1) the torque -(k (theta - theta0) + c theta') + value + input on its body2.

use super::law::Law;

#[derive(Clone, Debug, PartialEq)]
pub struct SpringDamper {
    /// k, in N/m or N.m/rad.
    pub stiffness: f64,
    /// c, in N.s/m or N.m.s/rad.
    pub damping: f64,
    /// x0, the measure at which the spring is relaxed.
    pub rest: f64,
    /// The constant force (actuator) added to the input.
    pub value: f64,
    /// -1: the value and input add to the tension; +1: they push the measure up.
    pub sense: f64,
}

impl Law for SpringDamper {
    fn force(&self, x: f64, rate: f64, input: f64) -> f64 {
        let passive = self.stiffness * (x - self.rest) + self.damping * rate;
        -self.sense * passive + self.value + input
    }

    fn sense(&self) -> f64 {
        self.sense
    }

    fn generalized_force(&self, x: f64, rate: f64, input: f64) -> f64 {
        self.sense * self.force(x, rate, input)
    }

    fn generalized_force_and_power(&self, x: f64, rate: f64, input: f64) -> [f64; 2] {
        [self.sense * self.force(x, rate, input), self.power(x, rate, input)]
    }

    fn tangent(&self, _x: f64, _rate: f64) -> [f64; 2] {
        [self.stiffness, self.damping]
    }

    fn constant_tangent(&self) -> Option<[f64; 2]> {
        Some([self.stiffness, self.damping])
    }

    fn energy(&self, x: f64) -> f64 {
        0.5 * self.stiffness * (x - self.rest).powi(2)
    }

    fn stores_energy(&self) -> bool {
        self.stiffness != 0.0
    }

    fn energy_rates(&self, x: f64, rate: f64, accel: f64) -> [f64; 2] {
        let stretch = x - self.rest;
        [self.stiffness * stretch * rate, self.stiffness * (rate * rate + stretch * accel)]
    }

    fn power(&self, _x: f64, rate: f64, input: f64) -> f64 {
        self.sense * (self.value + input) * rate - self.damping * rate * rate
    }

    /// The value and a held input do exact work over dx; the damper's is the trapezoidal rule.
    fn work(&self, old: [f64; 2], new: [f64; 2], dx: f64, h: f64, mean_input: f64) -> f64 {
        self.sense * (self.value + mean_input) * dx - self.damping * 0.5 * h * (old[1] * old[1] + new[1] * new[1])
    }

    /// A damper's second derivative needs x''' (0 then).
    fn force_rates(&self, _x: f64, rate: f64, accel: f64, input: [f64; 2]) -> [f64; 2] {
        let second = if self.damping == 0.0 { -self.sense * self.stiffness * accel + input[1] } else { 0.0 };
        [-self.sense * (self.stiffness * rate + self.damping * accel) + input[0], second]
    }
}

/// A force of constant magnitude plus the input along the measure (the `force` and `torque`
/// elements: the measure is the position along the force's direction, or the rotation about
/// the torque's axis).
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    pub value: f64,
}

impl Law for Applied {
    fn force(&self, _x: f64, _rate: f64, input: f64) -> f64 {
        self.value + input
    }

    fn uses_measure(&self) -> bool {
        false
    }

    fn sense(&self) -> f64 {
        1.0
    }

    fn tangent(&self, _x: f64, _rate: f64) -> [f64; 2] {
        [0.0; 2]
    }

    fn constant_tangent(&self) -> Option<[f64; 2]> {
        Some([0.0; 2])
    }

    fn power(&self, _x: f64, rate: f64, input: f64) -> f64 {
        (self.value + input) * rate
    }

    fn work(&self, _old: [f64; 2], _new: [f64; 2], dx: f64, _h: f64, mean_input: f64) -> f64 {
        (self.value + mean_input) * dx
    }

    fn force_rates(&self, _x: f64, _rate: f64, _accel: f64, input: [f64; 2]) -> [f64; 2] {
        input
    }
}
