//! Gas-loaded accumulators (docs/modelling.md gives the law and its sources): a gas charge
//! p_g V_g^n = p0 V0^n behind a laminar inlet q = G (p_node - p_g) into the accumulator
//! ([SimscapeFluids] "Gas-Charged Accumulator (IL)": the polytropic gas law, the stops at an
//! empty and a full liquid chamber; [WolframHydraulic] `GasChargedAccumulator`: the laminar
//! restriction at the inlet). The liquid volume V_L = V0 - V_g is a state, V_L' = q, and the
//! node's continuity loses q.
//!
//! The state is w = (p0/V0) V_L, in Pa like the circuit's other states, so that the pressure
//! tolerance weighs it (1e-2 Pa of w is 2e-9 V0 at a pre-charge of 5 MPa). With the liquid
//! fraction v = V_L/V0 = w/p0 the gas pressure is p_g = p0 r(v) and dp_g/dw = r'(v).

use super::{Circuit, Node};
use mbfmu_model::format::MIN_GAS_FRACTION;

/// Slope dr/dv of the empty stop (in units of p0/V0): below an empty accumulator the gas
/// pressure falls to zero within about 0.15 % of V0 of negative liquid volume.
const EMPTY_STIFFNESS: f64 = 1.0e3;

/// Width in v of the blend from the gas law's slope to [`EMPTY_STIFFNESS`] below v = 0.
const EMPTY_BLEND: f64 = 1.0e-3;

/// The gas pressure ratio r = p_g/p0 and dr/dv at liquid fraction `v` for polytropic
/// exponent `n`, continuously differentiable (C1) across its four pieces:
/// - 0 <= v <= 1 - g: the gas law r = (1 - v)^-n ([SimscapeFluids] "Gas-Charged Accumulator
///   (IL)", p_g V_g^n = p_pr V_T^n with V_g = V0 (1 - v));
/// - v > 1 - g (the gas below its smallest volume g V0, g = [`MIN_GAS_FRACTION`]): the law
///   continued linearly with its slope n g^-(n+1) there (the stop of a full accumulator);
/// - -e <= v < 0 (e = [`EMPTY_BLEND`]): the quadratic 1 + n v + (n - E) v^2/(2e), whose slope
///   goes from the gas law's n at v = 0 to E = [`EMPTY_STIFFNESS`] at v = -e;
/// - v < -e: linear with slope E (the stop of an empty accumulator).
pub fn gas_ratio(v: f64, n: f64) -> (f64, f64) {
    let (e, stiff) = (EMPTY_BLEND, EMPTY_STIFFNESS);
    let full = 1.0 - MIN_GAS_FRACTION;
    if v < -e {
        (1.0 - 0.5 * e * (n + stiff) + stiff * (v + e), stiff)
    } else if v < 0.0 {
        (1.0 + n * v + 0.5 * (n - stiff) * v * v / e, n + (n - stiff) * v / e)
    } else if v <= full {
        let r = (1.0 - v).powf(-n);
        (r, n * r / (1.0 - v))
    } else {
        let g = MIN_GAS_FRACTION;
        let (r, slope) = (g.powf(-n), n * g.powf(-n - 1.0));
        (r + slope * (v - full), slope)
    }
}

/// A compiled accumulator.
#[derive(Clone, Debug)]
pub struct Accumulator {
    pub name: String,
    pub node: Node,
    /// Pre-charge pressure p0 \[Pa\].
    pub precharge: f64,
    /// Gas volume at the pre-charge V0 [m3].
    pub volume: f64,
    /// Polytropic exponent n.
    pub exponent: f64,
    /// Laminar inlet conductance G [m3/(s Pa)].
    pub conductance: f64,
    /// The state w at the start.
    pub initial: f64,
}

impl Accumulator {
    /// Compiles a validated accumulator at node `node`.
    pub fn compile(a: &mbfmu_model::format::Accumulator, node: Node) -> Accumulator {
        let v0 = a.liquid_volume_at(a.initial_pressure.unwrap_or(a.precharge_pressure));
        Accumulator {
            name: a.name.clone(),
            node,
            precharge: a.precharge_pressure,
            volume: a.volume,
            exponent: a.polytropic_exponent,
            conductance: a.conductance(),
            initial: a.precharge_pressure / a.volume * v0,
        }
    }

    /// The liquid volume V_L [m3] of state `w`.
    #[inline]
    pub fn liquid_volume(&self, w: f64) -> f64 {
        w / self.precharge * self.volume
    }

    /// The gas pressure p_g and dp_g/dw at state `w` ([`gas_ratio`]).
    #[inline]
    pub fn gas_pressure(&self, w: f64) -> (f64, f64) {
        let (r, dr) = gas_ratio(w / self.precharge, self.exponent);
        (self.precharge * r, dr)
    }

    /// The flow q = G (p - p_g(w)) into the accumulator at node pressure `p` and state `w`,
    /// with dq/dp and dq/dw.
    #[inline]
    pub fn flow(&self, p: f64, w: f64) -> (f64, f64, f64) {
        let (pg, slope) = self.gas_pressure(w);
        (self.conductance * (p - pg), self.conductance, -self.conductance * slope)
    }

    /// dw/dV_L = p0/V0: the state's rate is this times q.
    #[inline]
    pub fn scale(&self) -> f64 {
        self.precharge / self.volume
    }
}

impl Circuit {
    /// State index of accumulator `a` (after the volumes and the line faces).
    pub fn accumulator_state(&self, a: usize) -> usize {
        self.volumes.len() + self.components.faces.len() + a
    }

    /// Gas pressure (`pressure`) or liquid volume of accumulator `a` at states `p`.
    pub fn accumulator_quantity(&self, a: usize, p: &[f64], pressure: bool) -> f64 {
        let acc = &self.components.accumulators[a];
        let w = p[self.accumulator_state(a)];
        if pressure {
            acc.gas_pressure(w).0
        } else {
            acc.liquid_volume(w)
        }
    }

    /// The accumulators' flows taken from their volumes, added to `flows`.
    #[inline]
    pub(super) fn accumulator_flows(&self, p: &[f64], flows: &mut [f64]) {
        for (a, acc) in self.components.accumulators.iter().enumerate() {
            if let Node::Volume(i) = acc.node {
                flows[i] -= acc.flow(p[i], p[self.accumulator_state(a)]).0;
            }
        }
    }

    /// d(flow into volume i)/d(state j) of the accumulators, added to `out` (np x np).
    pub(super) fn accumulator_flow_slopes(&self, p: &[f64], np: usize, out: &mut [f64]) {
        for (a, acc) in self.components.accumulators.iter().enumerate() {
            if let Node::Volume(i) = acc.node {
                let j = self.accumulator_state(a);
                let (_, by_pressure, by_state) = acc.flow(p[i], p[j]);
                out[i * np + i] -= by_pressure;
                out[i * np + j] -= by_state;
            }
        }
    }

    /// The accumulators' state rates w' = (p0/V0) q into `rates`.
    pub(super) fn accumulator_rates(&self, p: &[f64], inputs: &[f64], rates: &mut [f64]) {
        for (a, acc) in self.components.accumulators.iter().enumerate() {
            let j = self.accumulator_state(a);
            rates[j] = acc.scale() * acc.flow(self.pressure(p, inputs, acc.node), p[j]).0;
        }
    }

    /// The accumulators' rows of d rate/d state (np x np).
    pub(super) fn accumulator_slopes(&self, p: &[f64], inputs: &[f64], np: usize, out: &mut [f64]) {
        for (a, acc) in self.components.accumulators.iter().enumerate() {
            let j = self.accumulator_state(a);
            let (_, by_pressure, by_state) = acc.flow(self.pressure(p, inputs, acc.node), p[j]);
            if let Node::Volume(i) = acc.node {
                out[j * np + i] += acc.scale() * by_pressure;
            }
            out[j * np + j] += acc.scale() * by_state;
        }
    }
}
