//! The boundary of a circuit split between FMUs: the flow the orifices deliver into a source
//! node (Jaiswal et al. 2021 eqs. 24 and 26), which a volume at that node in the other FMU
//! receives as its inflow input (one term of the sum in eq. 22), and its time derivative.

use super::{laws, Circuit, Node};

impl Circuit {
    /// Net flow the throttles and valves deliver into source `k` (positive into the node) at
    /// pressures `p`, spools `spools` and input values `input(i)`.
    pub fn source_flow(&self, k: usize, p: &[f64], spools: &[f64], input: &dyn Fn(usize) -> f64) -> f64 {
        let node = Node::Source(k);
        let mut q = 0.0;
        self.moving_orifices(spools, None, |from, to, coefficient, _, laminar| {
            if from == node || to == node {
                let dp = self.pressure_with(p, input, from) - self.pressure_with(p, input, to);
                let flow = coefficient * laws::orifice(dp, laminar);
                q += if to == node { flow } else { -flow };
            }
        });
        q
    }

    /// d [`Circuit::source_flow`] / d u_`input`: the slope of each orifice's law at the node
    /// (eqs. 24, 26) times how its pressure drop moves with the input (+-1 at an end whose
    /// pressure is that input). The direct feed-through of a pressure input to the flow.
    pub fn source_flow_by_input(
        &self,
        k: usize,
        p: &[f64],
        spools: &[f64],
        input: &dyn Fn(usize) -> f64,
        by: usize,
    ) -> f64 {
        let node = Node::Source(k);
        let moves = |n: Node| match n {
            Node::Source(i) => f64::from(u8::from(self.source_inputs[i] == Some(by))),
            Node::Volume(_) => 0.0,
        };
        let mut d = 0.0;
        self.moving_orifices(spools, None, |from, to, coefficient, _, laminar| {
            if from == node || to == node {
                let dp = self.pressure_with(p, input, from) - self.pressure_with(p, input, to);
                let slope = coefficient * laws::orifice_slope(dp, laminar) * (moves(from) - moves(to));
                d += if to == node { slope } else { -slope };
            }
        });
        d
    }

    /// Time derivative of [`Circuit::source_flow`]: d(C U)/dt f(dp) + C U f'(dp) d(dp)/dt for
    /// every orifice at the node (f the orifice law of eqs. 24 and 26), with the volumes'
    /// pressure rates `pd`, the spools' rates (eq. 27) and the inputs' rates `input_rate(i)`.
    #[allow(clippy::too_many_arguments)]
    pub fn source_flow_rate(
        &self,
        k: usize,
        p: &[f64],
        pd: &[f64],
        spools: &[f64],
        spool_rates: &[f64],
        input: &dyn Fn(usize) -> f64,
        input_rate: &dyn Fn(usize) -> f64,
    ) -> f64 {
        let node = Node::Source(k);
        // Constant sources do not change; volumes at their rates, input sources at the input's.
        let pressure_rate = |n: Node| match n {
            Node::Volume(i) => pd[i],
            Node::Source(i) => self.source_inputs[i].map_or(0.0, input_rate),
        };
        let mut rate = 0.0;
        self.moving_orifices(spools, Some(spool_rates), |from, to, coefficient, coefficient_rate, laminar| {
            if from == node || to == node {
                let dp = self.pressure_with(p, input, from) - self.pressure_with(p, input, to);
                let dp_rate = pressure_rate(from) - pressure_rate(to);
                let d = coefficient_rate * laws::orifice(dp, laminar)
                    + coefficient * laws::orifice_slope(dp, laminar) * dp_rate;
                rate += if to == node { d } else { -d };
            }
        });
        rate
    }
}
