//! The boundary of a circuit split between FMUs: the flow the orifices deliver into a source
//! node ([Jaiswal2021, eqs. 24 and 26]), which a volume at that node in the other FMU
//! receives as its inflow input (one term of the sum in [Jaiswal2021, eq. 22]), and its time derivative.

use super::{laws, Circuit, Node};

impl Circuit {
    /// Net flow the throttles and valves deliver into source `k` (positive into the node) at
    /// pressures `p`, spools `spools` and input values `input(i)`.
    pub fn source_flow(&self, k: usize, t: f64, p: &[f64], spools: &[f64], input: &dyn Fn(usize) -> f64) -> f64 {
        let node = Node::Source(k);
        let mut q = 0.0;
        self.moving_orifices(spools, None, None, |from, to, coefficient, _, laminar| {
            if from == node || to == node {
                let dp = self.pressure_with(p, input, from) - self.pressure_with(p, input, to);
                let flow = coefficient * laws::orifice(dp, laminar);
                q += if to == node { flow } else { -flow };
            }
        });
        if !self.components.is_empty() {
            q += self.component_source_flow(k, t, p, input, &|_| 0.0, &|_| 0.0).0;
        }
        q
    }

    /// d [`Circuit::source_flow`] / d u_`by`: how each orifice's pressure drop moves with the
    /// input (+-1 at an end whose pressure is that input) through the slope of its law (eqs.
    /// 24, 26). The direct feed-through of a pressure input to the flow.
    #[allow(clippy::too_many_arguments)]
    pub fn source_flow_by_input(
        &self,
        k: usize,
        t: f64,
        p: &[f64],
        spools: &[f64],
        input: &dyn Fn(usize) -> f64,
        by: usize,
    ) -> f64 {
        let moves = |n: Node| match n {
            Node::Source(i) => f64::from(u8::from(self.source_inputs[i] == Some(by))),
            Node::Volume(_) => 0.0,
        };
        self.source_flow_change(k, t, p, None, spools, None, input, &moves)
    }

    /// Time derivative of [`Circuit::source_flow`] with the volumes' pressure rates `pd`, the
    /// spools' rates (eq. 27) and the inputs' rates `input_rate(i)`.
    #[allow(clippy::too_many_arguments)]
    pub fn source_flow_rate(
        &self,
        k: usize,
        t: f64,
        p: &[f64],
        pd: &[f64],
        spools: &[f64],
        spool_rates: &[f64],
        input: &dyn Fn(usize) -> f64,
        input_rate: &dyn Fn(usize) -> f64,
    ) -> f64 {
        // Constant sources do not change; volumes at their rates, input sources at the input's.
        let pressure_rate = |n: Node| match n {
            Node::Volume(i) => pd[i],
            Node::Source(i) => self.source_inputs[i].map_or(0.0, input_rate),
        };
        self.source_flow_change(k, t, p, Some(pd), spools, Some(spool_rates), input, &pressure_rate)
    }

    /// The change of [`Circuit::source_flow`] along a direction in which the spools move at
    /// `spool_rates` (none: fixed) and the nodes' pressures at `pressure_change(node)`:
    /// d(C U) f(dp) + C U f'(dp) d(dp) for every orifice at the node (f the orifice law of
    /// eqs. 24 and 26).
    #[allow(clippy::too_many_arguments)]
    fn source_flow_change(
        &self,
        k: usize,
        t: f64,
        p: &[f64],
        pd: Option<&[f64]>,
        spools: &[f64],
        spool_rates: Option<&[f64]>,
        input: &dyn Fn(usize) -> f64,
        pressure_change: &dyn Fn(Node) -> f64,
    ) -> f64 {
        let node = Node::Source(k);
        let mut change = 0.0;
        self.moving_orifices(spools, spool_rates, None, |from, to, coefficient, coefficient_rate, laminar| {
            if from == node || to == node {
                let dp = self.pressure_with(p, input, from) - self.pressure_with(p, input, to);
                let dp_change = pressure_change(from) - pressure_change(to);
                let d = coefficient_rate * laws::orifice(dp, laminar)
                    + coefficient * laws::orifice_slope(dp, laminar) * dp_change;
                change += if to == node { d } else { -d };
            }
        });
        if !self.components.is_empty() {
            let state_change = |j: usize| pd.map_or(0.0, |pd| pd[j]);
            change += self.component_source_flow(k, t, p, input, pressure_change, &state_change).1;
        }
        change
    }
}
