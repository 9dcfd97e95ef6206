//! The hydraulic components beyond [Jaiswal2021, Sect. 3], compiled from the description
//! and evaluated beside its orifices (docs/modelling.md gives each law and its source):
//! - pressure-controlled valves (relief, check, counterbalance): an orifice of the law of
//!   [Jaiswal2021, eq. 24] whose coefficient C = C_max (l + (1 - l) x) opens with a control
//!   pressure c = sum g_k p_k along a linear ramp x from the cracking to the full-open
//!   pressure, its corners rounded ([`ramp`]) so that Newton sees a continuous slope
//!   ([OpenHydraulics] `ReliefValve`, `CheckValve`; [SimscapeFluids] "Pressure Relief Valve
//!   (IL)", "Check Valve (IL)", "Counterbalance Valve (IL)");
//! - pumps: Q = eps D omega/(2 pi) - C_l (p_out - p_in) with the compensator's displacement
//!   fraction eps falling along the same ramp ([OpenHydraulics] `PartialPumpMotor`,
//!   [SimscapeFluids] "Pressure-Compensated Pump (IL)");
//! - long lines: cells of the line's oil as volumes, and between them flows q with
//!   L q' = p_a - p_b - R q, L = rho l/A, R = 128 mu l/(pi d^4) (the lumped transmission
//!   line). A flow's state is w = Z q with Z = sqrt(rho B)/A the line's impedance, so that it
//!   is a pressure and the pressure tolerances weigh it;
//! - gas-loaded accumulators (`accumulator.rs`).

use super::accumulator::Accumulator;
use super::{laws, Circuit, Node, VolumeSpec};
use crate::motion;
use mbfmu_model::format::{self, Motion, Valve};

/// Half-width of the rounded corners of [`ramp`], as a fraction of the ramp.
pub(super) const CORNER: f64 = 0.05;

/// The opening ramp x(y): 0 for y <= -e, 1 for y >= 1 + e, y on [e, 1 - e], and the
/// quadratics (y + e)^2/(4e) and 1 - (1 + e - y)^2/(4e) in between (e = [`CORNER`]): C1,
/// equal to the clamp outside the corners. Returns x and dx/dy.
pub fn ramp(y: f64) -> (f64, f64) {
    let e = CORNER;
    if y <= -e {
        (0.0, 0.0)
    } else if y < e {
        ((y + e) * (y + e) / (4.0 * e), (y + e) / (2.0 * e))
    } else if y <= 1.0 - e {
        (y, 1.0)
    } else if y < 1.0 + e {
        let r = 1.0 + e - y;
        (1.0 - r * r / (4.0 * e), r / (2.0 * e))
    } else {
        (1.0, 0.0)
    }
}

/// An orifice whose coefficient follows a control pressure.
#[derive(Clone, Debug)]
pub struct PressureValve {
    pub from: Node,
    pub to: Node,
    /// C_max of the fully open valve [m3/(s Pa^0.5)].
    coefficient: f64,
    leakage: f64,
    laminar: f64,
    /// c = sum g p over these (node, g).
    control: Vec<(Node, f64)>,
    crack: f64,
    full: f64,
    /// Index of the valve in the description, and its name.
    pub valve: usize,
    pub name: String,
    /// A relief valve (to the tank), the one a pump line's pressure is limited by.
    pub relief: bool,
}

/// A pump from `inlet` to `outlet`.
#[derive(Clone, Debug)]
pub struct Pump {
    pub name: String,
    pub inlet: Node,
    pub outlet: Node,
    /// D / (2 pi) [m3/rad].
    displacement: f64,
    speed: f64,
    speed_input: Option<usize>,
    profile: Option<Motion>,
    leakage: f64,
    pub hydromechanical_efficiency: f64,
    /// (setting, regulation range) of the compensator.
    compensator: Option<(f64, f64)>,
}

/// A flow between two cells of a line (or a cell and the line's end node).
#[derive(Clone, Debug)]
pub struct Face {
    pub a: Node,
    pub b: Node,
    /// Z / L and R / L of the face.
    gain: f64,
    decay: f64,
    /// The line's impedance Z [Pa s/m3]: q = w / Z.
    pub impedance: f64,
}

/// The components of a circuit besides throttles, directional valves and cylinders.
#[derive(Clone, Debug, Default)]
pub struct Components {
    pub valves: Vec<PressureValve>,
    pub pumps: Vec<Pump>,
    pub faces: Vec<Face>,
    pub accumulators: Vec<Accumulator>,
    /// [`Components::has_openings`], formed once (it is asked every step).
    openings: bool,
}

impl Components {
    /// Compiles the components of a validated circuit; appends the line cells to `volumes`
    /// (after the description's volumes). `node` resolves a node name, `input` an input name.
    pub fn compile(
        h: &format::Hydraulics,
        node: &dyn Fn(&str) -> Node,
        input: &dyn Fn(&str) -> usize,
        volumes: &mut Vec<VolumeSpec>,
    ) -> Components {
        let mut valves = Vec::new();
        for (k, v) in h.valves.iter().enumerate() {
            let Some(o) = v.opening() else { continue };
            let stage = |from: Node, to: Node, control: Vec<(Node, f64)>, crack: f64, full: f64| PressureValve {
                from,
                to,
                coefficient: o.coefficient(),
                leakage: o.leakage,
                laminar: o.laminar_limit,
                control,
                crack,
                full,
                valve: k,
                name: v.name().to_string(),
                relief: matches!(v, Valve::Relief { .. }),
            };
            let (crack, full) = (o.cracking_pressure, o.full_open_pressure);
            match v {
                Valve::Counterbalance {
                    load,
                    back,
                    pilot,
                    pilot_ratio,
                    check_cracking_pressure,
                    check_full_open_pressure,
                    ..
                } => {
                    let (l, b, x) = (node(load), node(back), node(pilot));
                    // Relief stage: (p_L - p_B) + k (p_X - p_B) opens it.
                    valves.push(stage(l, b, vec![(l, 1.0), (x, *pilot_ratio), (b, -1.0 - pilot_ratio)], crack, full));
                    // Check stage: free flow back -> load.
                    let control = vec![(b, 1.0), (l, -1.0)];
                    valves.push(stage(b, l, control, *check_cracking_pressure, *check_full_open_pressure));
                }
                _ => {
                    let ends = v.nodes();
                    let (from, to) = (node(ends[0]), node(ends[1]));
                    valves.push(stage(from, to, vec![(from, 1.0), (to, -1.0)], crack, full));
                }
            }
        }
        let pumps: Vec<Pump> = h
            .pumps
            .iter()
            .map(|p| Pump {
                name: p.name.clone(),
                inlet: node(&p.inlet),
                outlet: node(&p.outlet),
                displacement: p.displacement / std::f64::consts::TAU,
                speed: p.shaft_speed,
                speed_input: p.speed_input.as_deref().map(input),
                profile: p.speed_profile.clone(),
                leakage: p.leakage_coefficient,
                hydromechanical_efficiency: p.hydromechanical_efficiency,
                compensator: p.compensator.as_ref().map(|c| (c.setting, c.regulation_range)),
            })
            .collect();
        let mut faces = Vec::new();
        let (rho, oil) = (h.oil.density, h.oil.bulk_modulus);
        for l in &h.lines {
            let n = l.segments;
            let area = l.area();
            let cell = l.length / n as f64;
            let impedance = (rho * oil).sqrt() / area;
            let first = volumes.len();
            for k in 0..n {
                volumes.push(VolumeSpec {
                    name: format!("{}.cell[{}]", l.name, k + 1),
                    hose: area * cell,
                    hose_modulus: l.wall_bulk_modulus,
                    initial: Some(l.initial_pressure),
                    inflow: None,
                });
            }
            let mu = l.kinematic_viscosity * rho;
            for f in 0..=n {
                // Half a cell at each end, a whole one between cells.
                let length = if f == 0 || f == n { 0.5 * cell } else { cell };
                let inertance = rho * length / area;
                let resistance = 128.0 * mu * length / (std::f64::consts::PI * l.diameter.powi(4));
                let a = if f == 0 { node(&l.from) } else { Node::Volume(first + f - 1) };
                let b = if f == n { node(&l.to) } else { Node::Volume(first + f) };
                faces.push(Face { a, b, gain: impedance / inertance, decay: resistance / inertance, impedance });
            }
        }
        let accumulators: Vec<Accumulator> =
            h.accumulators.iter().map(|a| Accumulator::compile(a, node(&a.node))).collect();
        let openings = !valves.is_empty() || pumps.iter().any(|p| p.compensator.is_some()) || !accumulators.is_empty();
        Components { valves, pumps, faces, accumulators, openings }
    }

    /// True if some law opens along a ramp (pressure valves, compensated pumps) or bends
    /// sharply (an accumulator's empty stop): Newton's corrections are damped.
    #[inline]
    pub fn has_openings(&self) -> bool {
        self.openings
    }

    pub fn is_empty(&self) -> bool {
        self.valves.is_empty() && self.pumps.is_empty() && self.faces.is_empty() && self.accumulators.is_empty()
    }
}

impl PressureValve {
    /// The control pressure at which the valve starts to open [Pa].
    pub fn cracking_pressure(&self) -> f64 {
        self.crack
    }

    /// The coefficient C at control pressure `c` and dC/dc.
    #[inline]
    pub fn coefficient(&self, c: f64) -> (f64, f64) {
        let span = self.full - self.crack;
        let (x, dx) = ramp((c - self.crack) / span);
        let open = 1.0 - self.leakage;
        (self.coefficient * (self.leakage + open * x), self.coefficient * open * dx / span)
    }

    /// The control pressure c = sum g p.
    #[inline]
    pub fn control(&self, pressure: impl Fn(Node) -> f64) -> f64 {
        self.control.iter().map(|&(n, g)| g * pressure(n)).sum()
    }

    pub fn control_terms(&self) -> &[(Node, f64)] {
        &self.control
    }

    /// Flow from `from` to `to` and its partial derivatives by the pressure drop and by the
    /// control pressure, at pressures `pressure`.
    #[inline]
    pub fn flow(&self, pressure: impl Fn(Node) -> f64) -> (f64, f64, f64) {
        let dp = pressure(self.from) - pressure(self.to);
        let (c, dc) = self.coefficient(self.control(&pressure));
        let law = laws::orifice(dp, self.laminar);
        (c * law, c * laws::orifice_slope(dp, self.laminar), dc * law)
    }
}

impl Pump {
    /// Shaft speed omega [rad/s] at time `t` with the model's input values `inputs`.
    #[inline]
    pub fn speed(&self, t: f64, inputs: &[f64]) -> f64 {
        let mut w = self.speed;
        if let Some(i) = self.speed_input {
            w += inputs[i];
        }
        if let Some(m) = &self.profile {
            w += motion::evaluate(m, t, None).f;
        }
        w
    }

    /// Delivered flow Q and dQ/d(p_out - p_in) at shaft speed `omega` and pressure rise `dp`.
    #[inline]
    pub fn flow(&self, omega: f64, dp: f64) -> (f64, f64) {
        let (eps, deps) = self.fraction(dp);
        let ideal = self.displacement * omega;
        (eps * ideal - self.leakage * dp, deps * ideal - self.leakage)
    }

    /// Displacement fraction eps and d eps/d(dp) of the compensator (1 without one).
    #[inline]
    pub fn fraction(&self, dp: f64) -> (f64, f64) {
        match self.compensator {
            Some((setting, range)) => {
                let (x, dx) = ramp((dp - setting) / range);
                (1.0 - x, -dx / range)
            }
            None => (1.0, 0.0),
        }
    }

    /// Shaft torque T = eps D dp / (2 pi eta_hm) at pressure rise `dp`.
    pub fn torque(&self, dp: f64) -> f64 {
        self.fraction(dp).0 * self.displacement * dp / self.hydromechanical_efficiency
    }
}

impl Face {
    /// The rate of the face's state w = Z q: Z/L (p_a - p_b) - R/L w.
    #[inline]
    pub fn rate(&self, pa: f64, pb: f64, w: f64) -> f64 {
        self.gain * (pa - pb) - self.decay * w
    }

    /// d rate / d p_a (= -d rate / d p_b) and d rate / d w.
    pub fn slopes(&self) -> (f64, f64) {
        (self.gain, -self.decay)
    }
}

impl Circuit {
    /// Number of volumes (the description's and the line cells): the pressures among the states.
    pub fn n_volumes(&self) -> usize {
        self.volumes.len()
    }

    /// State index of line face `f`.
    pub fn face_state(&self, f: usize) -> usize {
        self.volumes.len() + f
    }

    /// Net flows of the components into the volumes, added to `flows` (pressure valves,
    /// pumps, line faces, accumulators) at time `t`.
    #[inline]
    pub(super) fn component_flows(&self, t: f64, p: &[f64], inputs: &[f64], flows: &mut [f64]) {
        let k = &self.components;
        let pressure = |n: Node| self.pressure(p, inputs, n);
        let mut add = |from: Node, to: Node, q: f64| {
            if let Node::Volume(i) = from {
                flows[i] -= q;
            }
            if let Node::Volume(i) = to {
                flows[i] += q;
            }
        };
        for v in &k.valves {
            add(v.from, v.to, v.flow(pressure).0);
        }
        for pump in &k.pumps {
            let dp = pressure(pump.outlet) - pressure(pump.inlet);
            add(pump.inlet, pump.outlet, pump.flow(pump.speed(t, inputs), dp).0);
        }
        for (f, face) in k.faces.iter().enumerate() {
            add(face.a, face.b, p[self.face_state(f)] / face.impedance);
        }
        self.accumulator_flows(p, flows);
    }

    /// Adds d(flow into volume i)/d(state j) of the components to `out` (np x np row-major,
    /// rows of volumes only), at time `t`.
    pub(super) fn component_slopes(&self, t: f64, p: &[f64], inputs: &[f64], np: usize, out: &mut [f64]) {
        let k = &self.components;
        let pressure = |n: Node| self.pressure(p, inputs, n);
        // A flow q from `from` to `to` changing by `dq` per unit of state `j`.
        let mut add = |from: Node, to: Node, j: Node, dq: f64| {
            let Node::Volume(j) = j else { return };
            if let Node::Volume(i) = from {
                out[i * np + j] -= dq;
            }
            if let Node::Volume(i) = to {
                out[i * np + j] += dq;
            }
        };
        for v in &k.valves {
            let (_, by_drop, by_control) = v.flow(pressure);
            add(v.from, v.to, v.from, by_drop);
            add(v.from, v.to, v.to, -by_drop);
            for &(n, g) in v.control_terms() {
                add(v.from, v.to, n, g * by_control);
            }
        }
        for pump in &k.pumps {
            let dp = pressure(pump.outlet) - pressure(pump.inlet);
            let (_, slope) = pump.flow(pump.speed(t, inputs), dp);
            add(pump.inlet, pump.outlet, pump.outlet, slope);
            add(pump.inlet, pump.outlet, pump.inlet, -slope);
        }
        for (f, face) in k.faces.iter().enumerate() {
            let j = self.face_state(f);
            if let Node::Volume(i) = face.a {
                out[i * np + j] -= 1.0 / face.impedance;
            }
            if let Node::Volume(i) = face.b {
                out[i * np + j] += 1.0 / face.impedance;
            }
        }
        self.accumulator_flow_slopes(p, np, out);
    }

    /// The rates of the faces' states into `rates[face_state(0)..]`.
    pub(super) fn face_rates(&self, p: &[f64], inputs: &[f64], rates: &mut [f64]) {
        for (f, face) in self.components.faces.iter().enumerate() {
            let j = self.face_state(f);
            rates[j] = face.rate(self.pressure(p, inputs, face.a), self.pressure(p, inputs, face.b), p[j]);
        }
    }

    /// The faces' rows of d rate/d state (np x np row-major).
    pub(super) fn face_slopes(&self, np: usize, out: &mut [f64]) {
        for (f, face) in self.components.faces.iter().enumerate() {
            let j = self.face_state(f);
            let (by_pressure, by_state) = face.slopes();
            if let Node::Volume(a) = face.a {
                out[j * np + a] += by_pressure;
            }
            if let Node::Volume(b) = face.b {
                out[j * np + b] -= by_pressure;
            }
            out[j * np + j] += by_state;
        }
    }

    /// The net flow of the components into source `k` at time `t` (part of
    /// [`Circuit::source_flow`]), and its change along the pressure changes `change(node)`
    /// and the faces' and accumulators' state changes `state_change(j)`.
    pub(super) fn component_source_flow(
        &self,
        k: usize,
        t: f64,
        p: &[f64],
        input: &dyn Fn(usize) -> f64,
        change: &dyn Fn(Node) -> f64,
        state_change: &dyn Fn(usize) -> f64,
    ) -> (f64, f64) {
        let node = Node::Source(k);
        let c = &self.components;
        let pressure = |n: Node| self.pressure_with(p, input, n);
        let (mut q, mut dq) = (0.0, 0.0);
        let mut add = |from: Node, to: Node, flow: f64, d: f64| {
            if to == node {
                q += flow;
                dq += d;
            } else if from == node {
                q -= flow;
                dq -= d;
            }
        };
        for v in &c.valves {
            let (flow, by_drop, by_control) = v.flow(pressure);
            let d = by_drop * (change(v.from) - change(v.to))
                + by_control * v.control_terms().iter().map(|&(n, g)| g * change(n)).sum::<f64>();
            add(v.from, v.to, flow, d);
        }
        if !c.pumps.is_empty() {
            let values: Vec<f64> = (0..self.n_inputs_used()).map(input).collect();
            for pump in &c.pumps {
                let dp = pressure(pump.outlet) - pressure(pump.inlet);
                let (flow, slope) = pump.flow(pump.speed(t, &values), dp);
                add(pump.inlet, pump.outlet, flow, slope * (change(pump.outlet) - change(pump.inlet)));
            }
        }
        for (f, face) in c.faces.iter().enumerate() {
            let j = self.face_state(f);
            add(face.a, face.b, p[j] / face.impedance, state_change(j) / face.impedance);
        }
        for (a, acc) in c.accumulators.iter().enumerate() {
            let j = self.accumulator_state(a);
            let (flow, by_pressure, by_state) = acc.flow(pressure(acc.node), p[j]);
            if acc.node == node {
                // The accumulator takes q from its node.
                q -= flow;
                dq -= by_pressure * change(acc.node) + by_state * state_change(j);
            }
        }
        (q, dq)
    }

    /// One more than the highest input index the circuit reads (0 if none).
    fn n_inputs_used(&self) -> usize {
        let pumps = self.components.pumps.iter().filter_map(|p| p.speed_input);
        let sources = self.source_inputs.iter().flatten().copied();
        pumps.chain(sources).max().map_or(0, |i| i + 1)
    }
}
