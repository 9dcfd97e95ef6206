//! End stop: a penalty contact that keeps a length between two points within
//! [min_length, max_length], the mechanical stroke limit of a cylinder. With the penetration
//! delta >= 0 past a limit and its rate delta', the contact force is
//! f = max(0, k delta + c delta') \[SimscapeHardStop\], clipped at zero so that the damper
//! never pulls the ends into the stop \[OpenHydraulics\] (`FluidPower2MechTrans`). It pushes the
//! ends apart at the lower limit and together at the upper one, and is reported as the force
//! pushing the ends apart (negative at the upper limit). The spring stores k delta^2 / 2; the
//! damper and the clipping dissipate the rest.

use super::law::Law;

#[derive(Clone, Debug, PartialEq)]
pub struct EndStop {
    /// Lower limit of the length \[m\] (-inf: none).
    pub min_length: f64,
    /// Upper limit of the length \[m\] (+inf: none).
    pub max_length: f64,
    /// Contact stiffness k [N/m].
    pub stiffness: f64,
    /// Contact damping c [N.s/m].
    pub damping: f64,
}

/// Which limit the length has passed.
enum Contact {
    Free,
    /// Past the lower limit by the penetration.
    Lower(f64),
    /// Past the upper limit by the penetration.
    Upper(f64),
}

impl EndStop {
    fn contact(&self, x: f64) -> Contact {
        if x < self.min_length {
            Contact::Lower(self.min_length - x)
        } else if x > self.max_length {
            Contact::Upper(x - self.max_length)
        } else {
            Contact::Free
        }
    }

    /// The contact force magnitude and whether the clipping is inactive, at penetration
    /// `delta` and penetration rate `delta_rate`.
    fn magnitude(&self, delta: f64, delta_rate: f64) -> (f64, bool) {
        let f = self.stiffness * delta + self.damping * delta_rate;
        if f > 0.0 {
            (f, true)
        } else {
            (0.0, false)
        }
    }
}

impl Law for EndStop {
    fn force(&self, x: f64, rate: f64, _input: f64) -> f64 {
        match self.contact(x) {
            Contact::Free => 0.0,
            Contact::Lower(delta) => self.magnitude(delta, -rate).0,
            Contact::Upper(delta) => -self.magnitude(delta, rate).0,
        }
    }

    fn sense(&self) -> f64 {
        1.0
    }

    /// In contact, d(k delta + c delta')/d(x, x') = -(k, c) at either limit.
    fn tangent(&self, x: f64, rate: f64) -> [f64; 2] {
        let touching = match self.contact(x) {
            Contact::Free => false,
            Contact::Lower(delta) => self.magnitude(delta, -rate).1,
            Contact::Upper(delta) => self.magnitude(delta, rate).1,
        };
        if touching {
            [self.stiffness, self.damping]
        } else {
            [0.0; 2]
        }
    }

    fn energy(&self, x: f64) -> f64 {
        match self.contact(x) {
            Contact::Free => 0.0,
            Contact::Lower(delta) | Contact::Upper(delta) => 0.5 * self.stiffness * delta * delta,
        }
    }

    fn stores_energy(&self) -> bool {
        true
    }

    /// V = k delta^2 / 2 with delta' = -+x': dV/dt = k delta delta', d2V/dt2 = k (delta'^2 + delta delta'').
    fn energy_rates(&self, x: f64, rate: f64, accel: f64) -> [f64; 2] {
        let (delta, delta_rate, delta_accel) = match self.contact(x) {
            Contact::Free => return [0.0; 2],
            Contact::Lower(delta) => (delta, -rate, -accel),
            Contact::Upper(delta) => (delta, rate, accel),
        };
        [self.stiffness * delta * delta_rate, self.stiffness * (delta_rate * delta_rate + delta * delta_accel)]
    }

    /// (Q + dV/dx) x': Q less the spring's -dV/dx = +-k delta.
    fn power(&self, x: f64, rate: f64, input: f64) -> f64 {
        let spring = match self.contact(x) {
            Contact::Free => 0.0,
            Contact::Lower(delta) => self.stiffness * delta,
            Contact::Upper(delta) => -self.stiffness * delta,
        };
        (self.force(x, rate, input) - spring) * rate
    }

    /// Trapezoidal rule on the power.
    fn work(&self, old: [f64; 2], new: [f64; 2], _dx: f64, h: f64, _mean_input: f64) -> f64 {
        0.5 * h * (self.power(old[0], old[1], 0.0) + self.power(new[0], new[1], 0.0))
    }

    /// While in contact and not clipped, d/dt f = -+(k x' + c x''); a damped stop's second
    /// derivative needs x''' (0 then).
    fn force_rates(&self, x: f64, rate: f64, accel: f64, _input: [f64; 2]) -> [f64; 2] {
        if self.tangent(x, rate) == [0.0; 2] {
            return [0.0; 2];
        }
        let second = if self.damping == 0.0 { -self.stiffness * accel } else { 0.0 };
        [-(self.stiffness * rate + self.damping * accel), second]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop() -> EndStop {
        EndStop { min_length: 1.0, max_length: 2.0, stiffness: 1e6, damping: 1e3 }
    }

    #[test]
    fn pushes_back_into_the_range_and_never_pulls() {
        let s = stop();
        assert_eq!(s.force(1.5, 3.0, 0.0), 0.0);
        // 1 mm past the lower limit, at rest: k delta pushing apart.
        assert!((s.force(0.999, 0.0, 0.0) - 1e3).abs() < 1e-6);
        // 1 mm past the upper limit, moving further out at 1 m/s: -(k delta + c).
        assert!((s.force(2.001, 1.0, 0.0) + 2e3).abs() < 1e-6);
        // Leaving the lower stop fast: the damper would pull, the contact gives 0.
        assert_eq!(s.force(0.999, 10.0, 0.0), 0.0);
        assert_eq!(s.tangent(0.999, 10.0), [0.0; 2]);
    }

    #[test]
    fn the_tangent_is_the_derivative_of_the_force() {
        let s = stop();
        for (x, r) in [(0.998, -0.3), (0.999, 0.5), (2.002, 0.4), (2.001, -0.5)] {
            let e = 1e-9;
            let q = |x: f64, r: f64| s.sense() * s.force(x, r, 0.0);
            let k = -(q(x + e, r) - q(x - e, r)) / (2.0 * e);
            let c = -(q(x, r + e) - q(x, r - e)) / (2.0 * e);
            let [kt, ct] = s.tangent(x, r);
            assert!((k - kt).abs() < 1e-3 * kt && (c - ct).abs() < 1e-3 * ct, "{x} {r}: {k} {c} vs {kt} {ct}");
        }
    }

    #[test]
    fn power_is_the_force_less_the_springs_gradient() {
        let s = stop();
        for (x, r) in [(0.998, -0.3), (2.001, 0.2), (1.5, 1.0)] {
            let e = 1e-7;
            let dv = (s.energy(x + e) - s.energy(x - e)) / (2.0 * e);
            let expected = (s.sense() * s.force(x, r, 0.0) + dv) * r;
            assert!((s.power(x, r, 0.0) - expected).abs() < 1e-3, "{x} {r}");
            let [dv_dt, _] = s.energy_rates(x, r, 0.0);
            assert!((dv_dt - dv * r).abs() < 1e-3, "{x} {r}");
        }
    }
}
