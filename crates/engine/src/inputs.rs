//! The FMU inputs as signals over a communication step instead of values held constant:
//! per input a value u and its first and second time derivatives u', u'' at a reference
//! time t_r (the communication point at which they were set, FMI 2.0.4 Sect. 4.2.1,
//! `fmi2SetRealInputDerivatives`: "inputs and their derivatives are set with respect to the
//! beginning of a communication time step"):
//!
//!   u(t) = u + u' (t - t_r) + u'' (t - t_r)^2 / 2,
//!
//! evaluated wherever a formulation evaluates its inputs inside a step (the force elements at
//! the stage times, input-rate drivers through the exact integral of the polynomial, the
//! valve references over a step).
//!
//! Invariant (zero-order hold): an input whose two derivatives are zero is *held*: every
//! evaluation, at any time, returns its value bit for bit, its derivatives are 0.0 and its
//! integral over [a, b] is `value * (b - a)`. This is the arithmetic of the held inputs that
//! existed before derivatives did, so a run that never sets a derivative is bit-identical to
//! one made before this type existed.
//!
//! A second invariant keeps the reference time honest: derivatives are only ever nonzero
//! relative to [`InputSignals::reference`]; setting a value or a derivative at another time
//! first moves every polynomial to that time (the same functions of time, re-expanded).

use serde::{Deserialize, Serialize};

/// The inputs of one model instance as polynomials of degree <= 2 in time.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct InputSignals {
    values: Vec<f64>,
    rates: Vec<f64>,
    /// Second derivatives u''.
    curvatures: Vec<f64>,
    /// t_r: the time the derivatives refer to.
    reference: f64,
    /// True when some value or derivative changed since [`InputSignals::take_changed`].
    #[serde(skip)]
    changed: bool,
}

impl Clone for InputSignals {
    fn clone(&self) -> Self {
        InputSignals {
            values: self.values.clone(),
            rates: self.rates.clone(),
            curvatures: self.curvatures.clone(),
            reference: self.reference,
            changed: self.changed,
        }
    }

    /// Field-wise, reusing the vectors' storage (checkpoints copy without allocation).
    fn clone_from(&mut self, s: &Self) {
        self.values.clone_from(&s.values);
        self.rates.clone_from(&s.rates);
        self.curvatures.clone_from(&s.curvatures);
        self.reference = s.reference;
        self.changed = s.changed;
    }
}

/// The highest derivative order an input accepts.
pub const MAX_INPUT_ORDER: usize = 2;

impl InputSignals {
    /// Held inputs with the given values (the description's start values).
    pub fn held(values: Vec<f64>, t: f64) -> InputSignals {
        let n = values.len();
        InputSignals { values, rates: vec![0.0; n], curvatures: vec![0.0; n], reference: t, changed: false }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// True if this holds `n` inputs with finite coefficients (a restored snapshot is checked
    /// with it before use).
    pub fn fits(&self, n: usize) -> bool {
        self.values.len() == n
            && self.rates.len() == n
            && self.curvatures.len() == n
            && self.reference.is_finite()
            && self.values.iter().chain(&self.rates).chain(&self.curvatures).all(|x| x.is_finite())
    }

    /// The values at the reference time.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The time the derivatives refer to.
    pub fn reference(&self) -> f64 {
        self.reference
    }

    /// True if input `i` is held (no derivative set).
    pub fn is_held(&self, i: usize) -> bool {
        self.rates[i] == 0.0 && self.curvatures[i] == 0.0
    }

    /// True if some input has a derivative.
    pub fn has_derivatives(&self) -> bool {
        (0..self.len()).any(|i| !self.is_held(i))
    }

    /// u_i(t).
    #[inline]
    pub fn at(&self, i: usize, t: f64) -> f64 {
        if self.is_held(i) {
            return self.values[i];
        }
        let dt = t - self.reference;
        self.values[i] + dt * (self.rates[i] + 0.5 * dt * self.curvatures[i])
    }

    /// u_i'(t).
    #[inline]
    pub fn rate(&self, i: usize, t: f64) -> f64 {
        if self.is_held(i) {
            return 0.0;
        }
        self.rates[i] + (t - self.reference) * self.curvatures[i]
    }

    /// u_i''(t) (constant: the polynomial is of degree 2).
    #[inline]
    pub fn curvature(&self, i: usize) -> f64 {
        self.curvatures[i]
    }

    /// The integral of u_i over [a, b], exact for the polynomial (input-rate drivers integrate
    /// their rate input with it).
    #[inline]
    pub fn integral(&self, i: usize, a: f64, b: f64) -> f64 {
        if self.is_held(i) {
            return self.values[i] * (b - a);
        }
        let (sa, sb) = (a - self.reference, b - self.reference);
        self.values[i] * (b - a)
            + self.rates[i] * 0.5 * (sb * sb - sa * sa)
            + self.curvatures[i] * (sb * sb * sb - sa * sa * sa) / 6.0
    }

    /// (u_i(a) + u_i(b)) / 2: the trapezoidal mean over a step (exact for the work of a
    /// force whose input is linear in time; the value itself for a held input).
    #[inline]
    pub fn trapezoid(&self, i: usize, a: f64, b: f64) -> f64 {
        if self.is_held(i) {
            return self.values[i];
        }
        0.5 * (self.at(i, a) + self.at(i, b))
    }

    /// Every u_i(t) into `out`.
    pub fn values_at(&self, t: f64, out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.at(i, t);
        }
    }

    /// Moves the reference time to `t` without changing any signal (a no-op for held inputs).
    fn rebase(&mut self, t: f64) {
        if t == self.reference {
            return;
        }
        for i in 0..self.len() {
            if !self.is_held(i) {
                (self.values[i], self.rates[i]) = (self.at(i, t), self.rate(i, t));
            }
        }
        self.reference = t;
    }

    /// Sets every value at time `t`, every derivative to zero.
    pub fn set_values(&mut self, values: &[f64], t: f64) {
        self.changed |= self.values != values || self.has_derivatives();
        self.values.copy_from_slice(values);
        self.rates.fill(0.0);
        self.curvatures.fill(0.0);
        self.reference = t;
    }

    /// Sets the value of input `i` at time `t` (its derivatives stay as set at `t`).
    pub fn set_value(&mut self, i: usize, value: f64, t: f64) {
        self.rebase(t);
        self.changed |= self.values[i] != value;
        self.values[i] = value;
    }

    /// Sets the derivative of `order` (1 or 2) of input `i` at time `t`; other orders panic
    /// (the caller checks them against [`MAX_INPUT_ORDER`]).
    pub fn set_derivative(&mut self, i: usize, order: usize, value: f64, t: f64) {
        self.rebase(t);
        let slot = match order {
            1 => &mut self.rates[i],
            2 => &mut self.curvatures[i],
            _ => panic!("input derivative order {order} (1..={MAX_INPUT_ORDER})"),
        };
        self.changed |= *slot != value;
        *slot = value;
    }

    /// Holds every input at its value at `t` (derivatives dropped): what a signal becomes
    /// after the communication step its derivatives were set for. A no-op for held inputs.
    pub fn hold(&mut self, t: f64) {
        if !self.has_derivatives() {
            return;
        }
        for i in 0..self.len() {
            self.values[i] = self.at(i, t);
        }
        self.rates.fill(0.0);
        self.curvatures.fill(0.0);
        self.reference = t;
        self.changed = true;
    }

    /// Whether anything changed since the last call (formulations that cache an evaluation
    /// of the current point re-evaluate only then).
    pub fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }

    /// Copies input `i` (value and derivatives) from `other` (a rollback of one input).
    pub fn copy_input(&mut self, i: usize, other: &InputSignals) {
        self.values[i] = other.values[i];
        self.rates[i] = other.rates[i];
        self.curvatures[i] = other.curvatures[i];
        self.reference = other.reference;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_input_is_its_value_bit_for_bit() {
        let mut s = InputSignals::held(vec![0.1, -3.7e5], 0.25);
        for t in [-1.0, 0.25, 0.2500001, 17.0, 1e9] {
            assert_eq!(s.at(0, t).to_bits(), 0.1f64.to_bits());
            assert_eq!(s.rate(1, t), 0.0);
            assert_eq!(s.trapezoid(1, 0.0, t).to_bits(), (-3.7e5f64).to_bits());
        }
        assert_eq!(s.integral(0, 0.3, 0.7).to_bits(), (0.1 * (0.7 - 0.3f64)).to_bits());
        s.hold(3.0);
        assert_eq!(s.values(), &[0.1, -3.7e5]);
        assert_eq!(s.reference(), 0.25, "holding held inputs changes nothing");
    }

    #[test]
    fn polynomials_evaluate_integrate_and_rebase_exactly() {
        // u(t) = 2 + 3 (t - 1) - 4 (t - 1)^2 / 2, set at t = 1.
        let mut s = InputSignals::held(vec![0.0, 5.0], 1.0);
        s.set_value(0, 2.0, 1.0);
        s.set_derivative(0, 1, 3.0, 1.0);
        s.set_derivative(0, 2, -4.0, 1.0);
        let u = |t: f64| 2.0 + 3.0 * (t - 1.0) - 2.0 * (t - 1.0) * (t - 1.0);
        let big_u = |t: f64| 2.0 * t + 1.5 * (t - 1.0).powi(2) - 2.0 / 3.0 * (t - 1.0).powi(3);
        for t in [0.5, 1.0, 1.3, 2.0] {
            assert!((s.at(0, t) - u(t)).abs() < 1e-14);
            assert!((s.rate(0, t) - (3.0 - 4.0 * (t - 1.0))).abs() < 1e-14);
            assert!((s.integral(0, 1.2, t) - (big_u(t) - big_u(1.2))).abs() < 1e-13);
        }
        assert!((s.trapezoid(0, 1.0, 2.0) - 0.5 * (u(1.0) + u(2.0))).abs() < 1e-15);
        // Setting another input later re-expands the polynomial about the new time.
        s.set_value(1, 6.0, 1.5);
        assert_eq!(s.reference(), 1.5);
        for t in [1.0, 1.5, 2.5] {
            assert!((s.at(0, t) - u(t)).abs() < 1e-14);
        }
        s.hold(2.0);
        assert!(!s.has_derivatives());
        assert!((s.at(0, 7.0) - u(2.0)).abs() < 1e-15);
        assert_eq!(s.at(1, 9.0), 6.0);
    }
}
