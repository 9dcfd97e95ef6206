//! What Model Exchange needs of the circuit besides [`Circuit::evaluate`] and its Jacobians:
//! where its laws are not differentiable, as event indicators, and the pressure rates'
//! derivatives by the spool positions (the spools are states of the host's ODE).
//!
//! The laws of [Jaiswal2021, Sect. 3.1] are continuous everywhere, but their slopes jump at two
//! kinds of places:
//! - the laminar-turbulent transition of every orifice (eqs. 24, 26 and the "less than 2 bar
//!   ... linear relation" below them): at |dp| = dp_lam the slope of the flow in dp goes from
//!   1/sqrt(dp_lam) to 1/(2 sqrt(dp_lam));
//! - the spool's zero (eq. 26 with the 4/3 valve's connections): U > 0 opens pump -> A and
//!   B -> tank, U < 0 A -> tank and pump -> B, so the flows' slope in U jumps at U = 0.
//!
//! The indicators change sign exactly there: |dp| - dp_lam for each throttle and for each of
//! a directional valve's four connections (open or not: the function is continuous either
//! way), and U for each spool. Order: the throttles in description order, then per
//! directional valve P->A, B->T, A->T, P->B and the spool.

use super::{laws, Circuit, CircuitError, Node, Stroke};

/// Event indicators per directional valve: four connections and the spool.
pub const VALVE_INDICATORS: usize = 5;

impl Circuit {
    /// Number of event indicators ([`Circuit::event_indicators`]).
    pub fn event_indicator_count(&self) -> usize {
        self.throttles.len() + VALVE_INDICATORS * self.valves.len()
    }

    /// The event indicators at pressures `p`, spool positions `spools` and input values
    /// `inputs` (of sources whose pressure is an input) into `out`
    /// ([`Circuit::event_indicator_count`] values; the module documentation gives the order).
    pub fn event_indicators(&self, p: &[f64], spools: &[f64], inputs: &[f64], out: &mut [f64]) {
        let gap = |a: Node, b: Node, laminar: f64| {
            (self.pressure(p, inputs, a) - self.pressure(p, inputs, b)).abs() - laminar
        };
        let (throttles, valves) = out.split_at_mut(self.throttles.len());
        for (o, t) in throttles.iter_mut().zip(&self.throttles) {
            *o = gap(t.from, t.to, t.laminar);
        }
        for ((o, v), &u) in valves.chunks_exact_mut(VALVE_INDICATORS).zip(&self.valves).zip(spools) {
            o[0] = gap(v.pump, v.port_a, v.laminar);
            o[1] = gap(v.port_b, v.tank, v.laminar);
            o[2] = gap(v.port_a, v.tank, v.laminar);
            o[3] = gap(v.pump, v.port_b, v.laminar);
            o[4] = u;
        }
    }

    /// d p'/d U, np x ns row-major, into `out`: the directional valves' flows of eq. (26) are
    /// C_vd |U| times the orifice law of the connections the sign of U opens, so their
    /// derivative is +-C_vd times that law (the side U >= 0 at U = 0, where
    /// [`Circuit::evaluate`] takes it), scaled by B_e/V of each volume (eq. 22); `inputs` as
    /// for [`Circuit::evaluate`].
    pub fn rates_by_spool(
        &self,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        inputs: &[f64],
        out: &mut [f64],
    ) -> Result<(), CircuitError> {
        let (np, ns) = (self.n_pressures(), self.n_spools());
        out[..np * ns].fill(0.0);
        for (k, (v, &u)) in self.valves.iter().zip(spools).enumerate() {
            let (connections, sign) = if u >= 0.0 {
                ([(v.pump, v.port_a), (v.port_b, v.tank)], 1.0)
            } else {
                ([(v.port_a, v.tank), (v.pump, v.port_b)], -1.0)
            };
            for (from, to) in connections {
                let q = sign
                    * v.flow_constant
                    * laws::orifice(self.pressure(p, inputs, from) - self.pressure(p, inputs, to), v.laminar);
                if let Node::Volume(i) = from {
                    out[i * ns + k] -= q;
                }
                if let Node::Volume(i) = to {
                    out[i * ns + k] += q;
                }
            }
        }
        for i in 0..self.n_volumes() {
            let stiffness = self.stiffness(i, strokes);
            for x in &mut out[i * ns..(i + 1) * ns] {
                *x *= stiffness;
                if !x.is_finite() {
                    return Err(CircuitError::NonFinite { what: "pressure rate derivative by a spool".into() });
                }
            }
        }
        Ok(())
    }

    /// The time events of the valves' work cycles (eqs. 46-47: the schedule is piecewise
    /// constant): the first switching time after `t`, if any.
    pub fn next_schedule_switch(&self, t: f64) -> Option<f64> {
        self.valves
            .iter()
            .filter(|v| v.reference.work_cycle != 0.0)
            .flat_map(|v| v.reference.cycle.iter().map(|c| c.from))
            .filter(|&from| from > t)
            .min_by(f64::total_cmp)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::seed_circuit;
    use super::*;

    #[test]
    fn spool_derivatives_match_central_differences_on_both_sides_of_zero() {
        let (_, c) = seed_circuit();
        let p = [5.2e6, 4.9e6, 3.1e6];
        let strokes = [Stroke { length: 1.4, velocity: 0.03 }];
        let (mut exact, mut plus, mut minus, mut forces) = ([0.0; 3], [0.0; 3], [0.0; 3], [0.0; 1]);
        for u in [3.7, -2.2] {
            c.rates_by_spool(&p, &[u], &strokes, &[], &mut exact).unwrap();
            let h = 1e-4;
            c.evaluate(0.0, &p, &[u + h], &strokes, &[], &mut plus, &mut forces).unwrap();
            c.evaluate(0.0, &p, &[u - h], &strokes, &[], &mut minus, &mut forces).unwrap();
            for i in 0..3 {
                // The rates are linear in U on either side of zero: differences are exact.
                let fd = (plus[i] - minus[i]) / (2.0 * h);
                assert!((exact[i] - fd).abs() <= 1e-8 * fd.abs().max(1.0), "U = {u}, row {i}: {} vs {fd}", exact[i]);
            }
        }
    }

    #[test]
    fn indicators_change_sign_at_the_laminar_limit_and_at_the_spool_zero() {
        let (_, c) = seed_circuit();
        assert_eq!(c.event_indicator_count(), 1 + VALVE_INDICATORS);
        let mut z = [0.0; 6];
        // Throttle V1 -> V2 at 1.9 and 2.1 bar: laminar, then turbulent.
        c.event_indicators(&[5.0e6, 5.0e6 - 1.9e5, 3.0e6], &[0.5], &[], &mut z);
        assert!(z[0] < 0.0 && z[5] == 0.5);
        c.event_indicators(&[5.0e6, 5.0e6 - 2.1e5, 3.0e6], &[-0.5], &[], &mut z);
        assert!(z[0] > 0.0 && z[5] == -0.5);
        // P -> A: pump at 7.6 MPa.
        assert!((z[1] - ((7.6e6 - 5.0e6) - 2e5)).abs() < 1e-6);
    }
}
