//! Lumped-fluid hydraulics, independent of the multibody formulation (seed 004 Sect. 3).
//!
//! Given the circuit state (pressures p of the volumes, spool positions U of the directional
//! valves) and each cylinder's actuator length |s| and rate s', a [`Circuit`] gives the
//! pressure rates p' (eqs. 22-23 with the valve and cylinder flows of eqs. 24-28, the circuit
//! of Sect. 5 is eq. 44) and the cylinder forces F_s (eq. 29), and their Jacobians by forward
//! differences (eqs. 40-41). Spools follow eq. (27) with the reference held over each step,
//! integrated by the trapezoidal rule in closed form ([`laws::spool_step`]).

pub mod laws;

use mbfmu_model::format::{self, Reference, SealFriction, Valve};
use nalgebra::Vector3;
use std::fmt;

/// A node of the circuit: a volume (a state) or a source (constant pressure).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Node {
    Volume(usize),
    Source(usize),
}

#[derive(Clone, Debug)]
pub struct VolumeSpec {
    pub name: String,
    pub hose: f64,
    pub hose_modulus: f64,
    pub initial: Option<f64>,
}

#[derive(Clone, Debug)]
struct Throttle {
    from: Node,
    to: Node,
    /// C_vt = C_d A_t sqrt(2/rho) (seed 004 eq. 25).
    coefficient: f64,
    laminar: f64,
}

/// A 4/3 directional control valve with its spool (seed 004 eqs. 26-27).
#[derive(Clone, Debug)]
pub struct DirectionalValve {
    pub name: String,
    pump: Node,
    tank: Node,
    port_a: Node,
    port_b: Node,
    flow_constant: f64,
    laminar: f64,
    pub time_constant: f64,
    pub initial_spool: f64,
    pub reference: Reference,
    /// Input index of the reference input.
    pub input: Option<usize>,
}

/// Where a cylinder's length and velocity come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Attachment {
    /// Base at `points[0]` on `bodies[0]`, rod end at `points[1]` on `bodies[1]` (None =
    /// ground); points global at the initial configuration.
    Mechanism { bodies: [Option<usize>; 2], points: [Vector3<f64>; 2] },
    /// Inputs (index into the model's inputs) giving |s| and s'.
    Inputs { length: usize, velocity: usize },
}

#[derive(Clone, Debug)]
pub struct CylinderSpec {
    pub name: String,
    pub piston_side: usize,
    pub rod_side: usize,
    pub area_piston: f64,
    pub area_rod: f64,
    pub stroke: f64,
    pub closed: f64,
    pub wall_modulus: f64,
    pub friction: Option<SealFriction>,
    pub attachment: Attachment,
    pub static_start: bool,
    pub initial_force: Option<f64>,
}

impl CylinderSpec {
    /// Piston- and rod-side chamber lengths (seed 004 eq. 43 with the sign of the stroke
    /// term corrected, benchmarks.md Sect. 5.3: the piston side grows on extension).
    pub fn chambers(&self, length: f64) -> (f64, f64) {
        let a = length - self.closed;
        (a, self.stroke - a)
    }

    /// F_s = p_A A_A - p_B A_B - F_mu(s') (seed 004 eq. 29).
    pub fn force(&self, p_piston: f64, p_rod: f64, velocity: f64) -> f64 {
        let friction = self.friction.as_ref().map_or(0.0, |f| laws::seal_friction(f, velocity));
        p_piston * self.area_piston - p_rod * self.area_rod - friction
    }
}

/// Actuator length |s| and rate s' of a cylinder (seed 004 eq. 45).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stroke {
    pub length: f64,
    pub velocity: f64,
}

/// Why the circuit cannot be evaluated.
#[derive(Clone, Debug, PartialEq)]
pub enum CircuitError {
    /// A piston reached the end of its stroke (the model has no end stops).
    OutOfStroke {
        cylinder: String,
        length: f64,
        min: f64,
        max: f64,
    },
    NonFinite {
        what: String,
    },
}

impl fmt::Display for CircuitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CircuitError::OutOfStroke { cylinder, length, min, max } => write!(
                f,
                "cylinder '{cylinder}' reached the end of its stroke: length {length:.6} m outside ({min}, {max}) m (the model has no end stops; reduce the work cycle or the valve opening)"
            ),
            CircuitError::NonFinite { what } => write!(f, "the hydraulic circuit produced a non-finite {what}"),
        }
    }
}

/// A compiled circuit; never special-cases a model.
#[derive(Clone, Debug)]
pub struct Circuit {
    pub oil_modulus: f64,
    pub volumes: Vec<VolumeSpec>,
    pub sources: Vec<f64>,
    throttles: Vec<Throttle>,
    pub valves: Vec<DirectionalValve>,
    pub cylinders: Vec<CylinderSpec>,
    /// Spool index of each valve of the description (None for throttles).
    pub spool_of_valve: Vec<Option<usize>>,
}

/// Jacobians of [`Circuit::evaluate`], row-major:
/// p' by p (np x np), by |s| and s' (np x nc); F by p (nc x np), by |s| and s' (diagonal, nc).
#[derive(Clone, Debug, Default)]
pub struct CircuitJacobian {
    pub dp_dp: Vec<f64>,
    pub dp_ds: Vec<f64>,
    pub dp_dv: Vec<f64>,
    pub df_dp: Vec<f64>,
    pub df_ds: Vec<f64>,
    pub df_dv: Vec<f64>,
    rates: Vec<f64>,
    forces: Vec<f64>,
    rates_plus: Vec<f64>,
    forces_plus: Vec<f64>,
    p: Vec<f64>,
    strokes: Vec<Stroke>,
}

impl CircuitJacobian {
    fn resize(&mut self, np: usize, nc: usize) {
        self.dp_dp.resize(np * np, 0.0);
        self.dp_ds.resize(np * nc, 0.0);
        self.dp_dv.resize(np * nc, 0.0);
        self.df_dp.resize(nc * np, 0.0);
        self.df_ds.resize(nc, 0.0);
        self.df_dv.resize(nc, 0.0);
        self.rates.resize(np, 0.0);
        self.rates_plus.resize(np, 0.0);
        self.forces.resize(nc, 0.0);
        self.forces_plus.resize(nc, 0.0);
    }
}

/// The differentiation increment of seed 004 eq. (41).
pub fn increment(x: f64) -> f64 {
    1e-8 * x.abs().max(1e-2)
}

impl Circuit {
    /// Compiles the validated circuit of a description.
    pub fn from_description(d: &format::Description) -> Option<Circuit> {
        let h = d.hydraulics.as_ref()?;
        let node = |name: &str| -> Node {
            match h.volumes.iter().position(|v| v.name == name) {
                Some(i) => Node::Volume(i),
                None => Node::Source(h.sources.iter().position(|s| s.name == name).expect("validated node")),
            }
        };
        let volume = |name: &str| h.volumes.iter().position(|v| v.name == name).expect("validated volume");
        let input = |name: &str| d.input_index(name).expect("validated input");
        let mut throttles = Vec::new();
        let mut valves = Vec::new();
        let mut spool_of_valve = Vec::new();
        for v in &h.valves {
            match v {
                Valve::Throttle { from, to, discharge_coefficient, diameter, laminar_limit, .. } => {
                    let area = std::f64::consts::FRAC_PI_4 * diameter * diameter;
                    throttles.push(Throttle {
                        from: node(from),
                        to: node(to),
                        coefficient: discharge_coefficient * area * (2.0 / h.oil.density).sqrt(),
                        laminar: *laminar_limit,
                    });
                    spool_of_valve.push(None);
                }
                Valve::Directional {
                    name,
                    pump,
                    tank,
                    port_a,
                    port_b,
                    flow_constant,
                    laminar_limit,
                    time_constant,
                    initial_spool,
                    reference,
                } => {
                    spool_of_valve.push(Some(valves.len()));
                    valves.push(DirectionalValve {
                        name: name.clone(),
                        pump: node(pump),
                        tank: node(tank),
                        port_a: node(port_a),
                        port_b: node(port_b),
                        flow_constant: *flow_constant,
                        laminar: *laminar_limit,
                        time_constant: *time_constant,
                        initial_spool: *initial_spool,
                        reference: reference.clone(),
                        input: reference.input.as_deref().map(input),
                    });
                }
            }
        }
        let v3 = |a: [f64; 3]| Vector3::new(a[0], a[1], a[2]);
        let body = |name: &str| (name != format::GROUND).then(|| d.body_index(name).expect("validated body"));
        let cylinders = h
            .cylinders
            .iter()
            .map(|c| CylinderSpec {
                name: c.name.clone(),
                piston_side: volume(&c.piston_side),
                rod_side: volume(&c.rod_side),
                area_piston: c.piston_area(),
                area_rod: c.rod_side_area(),
                stroke: c.stroke,
                closed: c.closed(),
                wall_modulus: c.wall_bulk_modulus,
                friction: c.friction.clone(),
                attachment: match (&c.body1, &c.body2, c.point1, c.point2) {
                    (Some(b1), Some(b2), Some(p1), Some(p2)) => {
                        Attachment::Mechanism { bodies: [body(b1), body(b2)], points: [v3(p1), v3(p2)] }
                    }
                    _ => Attachment::Inputs {
                        length: input(c.length_input.as_deref().expect("validated")),
                        velocity: input(c.velocity_input.as_deref().expect("validated")),
                    },
                },
                static_start: c.static_start,
                initial_force: c.initial_force,
            })
            .collect();
        Some(Circuit {
            oil_modulus: h.oil.bulk_modulus,
            volumes: h
                .volumes
                .iter()
                .map(|v| VolumeSpec {
                    name: v.name.clone(),
                    hose: v.hose_volume,
                    hose_modulus: v.hose_bulk_modulus,
                    initial: v.initial_pressure,
                })
                .collect(),
            sources: h.sources.iter().map(|s| s.pressure).collect(),
            throttles,
            valves,
            cylinders,
            spool_of_valve,
        })
    }

    pub fn n_pressures(&self) -> usize {
        self.volumes.len()
    }

    pub fn n_spools(&self) -> usize {
        self.valves.len()
    }

    pub fn n_cylinders(&self) -> usize {
        self.cylinders.len()
    }

    fn pressure(&self, p: &[f64], n: Node) -> f64 {
        match n {
            Node::Volume(i) => p[i],
            Node::Source(i) => self.sources[i],
        }
    }

    /// Calls `f(from, to, coefficient, laminar)` for every orifice: the throttles (eq. 24) and
    /// the two connections the spool opens in each directional valve (eq. 26: U > 0 connects
    /// pump -> A and B -> tank, U < 0 A -> tank and pump -> B, coefficient C_vd |U|).
    fn orifices(&self, spools: &[f64], mut f: impl FnMut(Node, Node, f64, f64)) {
        for t in &self.throttles {
            f(t.from, t.to, t.coefficient, t.laminar);
        }
        for (v, &u) in self.valves.iter().zip(spools) {
            let k = v.flow_constant * u.abs();
            if u >= 0.0 {
                f(v.pump, v.port_a, k, v.laminar);
                f(v.port_b, v.tank, k, v.laminar);
            } else {
                f(v.port_a, v.tank, k, v.laminar);
                f(v.pump, v.port_b, k, v.laminar);
            }
        }
    }

    /// Net flows Q into every volume (eqs. 24, 26, 28) into `flows`, and the cylinder forces.
    fn flows(
        &self,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        flows: &mut [f64],
        forces: &mut [f64],
    ) -> Result<(), CircuitError> {
        flows.iter_mut().for_each(|q| *q = 0.0);
        self.orifices(spools, |from, to, coefficient, laminar| {
            let q = coefficient * laws::orifice(self.pressure(p, from) - self.pressure(p, to), laminar);
            if let Node::Volume(i) = from {
                flows[i] -= q;
            }
            if let Node::Volume(i) = to {
                flows[i] += q;
            }
        });
        for (c, (s, f)) in self.cylinders.iter().zip(strokes.iter().zip(forces.iter_mut())) {
            let (la, lb) = c.chambers(s.length);
            if !(la > 0.0 && lb > 0.0) {
                return Err(CircuitError::OutOfStroke {
                    cylinder: c.name.clone(),
                    length: s.length,
                    min: c.closed,
                    max: c.closed + c.stroke,
                });
            }
            // Seed 004 eq. (28): Q_in = A_A s', Q_out = A_B s'.
            flows[c.piston_side] -= c.area_piston * s.velocity;
            flows[c.rod_side] += c.area_rod * s.velocity;
            *f = c.force(p[c.piston_side], p[c.rod_side], s.velocity);
        }
        Ok(())
    }

    /// B_e / V of volume `i` (eqs. 22-23, 42) with the cylinder chambers as sub-volumes:
    /// 1/B_e = 1/B_oil + V_hose/(V B_hose) + sum V_chamber/(V B_wall), so
    /// B_e/V = 1/(V/B_oil + C) with the compliance C = V_hose/B_hose + sum V_chamber/B_wall.
    /// Also d(B_e/V)/d|s| of every cylinder into `d` (if given).
    fn stiffness(&self, i: usize, strokes: &[Stroke], d: Option<&mut [f64]>) -> f64 {
        let v = &self.volumes[i];
        let (mut total, mut compliance) = (v.hose, v.hose / v.hose_modulus);
        for (c, s) in self.cylinders.iter().zip(strokes) {
            let (la, lb) = c.chambers(s.length);
            if c.piston_side == i {
                total += c.area_piston * la;
                compliance += c.area_piston * la / c.wall_modulus;
            }
            if c.rod_side == i {
                total += c.area_rod * lb;
                compliance += c.area_rod * lb / c.wall_modulus;
            }
        }
        let k = 1.0 / (total / self.oil_modulus + compliance);
        if let Some(d) = d {
            for (c, dk) in self.cylinders.iter().zip(d.iter_mut()) {
                // l_A grows with |s|, l_B shrinks.
                let mut dv = 0.0;
                if c.piston_side == i {
                    dv += c.area_piston;
                }
                if c.rod_side == i {
                    dv -= c.area_rod;
                }
                *dk = -k * k * dv * (1.0 / self.oil_modulus + 1.0 / c.wall_modulus);
            }
        }
        k
    }

    /// Pressure rates p' (seed 004 eqs. 22-28; eq. 44 for the circuit of Sect. 5) into
    /// `rates` and cylinder forces F_s (eq. 29) into `forces`.
    pub fn evaluate(
        &self,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        rates: &mut [f64],
        forces: &mut [f64],
    ) -> Result<(), CircuitError> {
        self.flows(p, spools, strokes, rates, forces)?;
        for (i, r) in rates.iter_mut().enumerate().take(self.volumes.len()) {
            *r *= self.stiffness(i, strokes, None);
        }
        if rates.iter().chain(forces.iter()).any(|x| !x.is_finite()) {
            return Err(CircuitError::NonFinite { what: "pressure rate or cylinder force".into() });
        }
        Ok(())
    }

    /// The Jacobians of [`Circuit::evaluate`] in closed form (derivatives of the orifice law,
    /// of B_e/V in the chamber lengths and of the seal friction).
    pub fn jacobian(
        &self,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        j: &mut CircuitJacobian,
    ) -> Result<(), CircuitError> {
        j.resize(self.n_pressures(), self.n_cylinders());
        self.flows(p, spools, strokes, &mut j.rates, &mut j.forces)?;
        self.jacobian_from_flows(p, spools, strokes, false, j)
    }

    /// As [`Circuit::jacobian`] at a point where `rates` are [`Circuit::evaluate`]'s pressure
    /// rates (the net flows follow as rates / (B_e/V) instead of being evaluated again).
    pub fn jacobian_at_rates(
        &self,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        rates: &[f64],
        j: &mut CircuitJacobian,
    ) -> Result<(), CircuitError> {
        j.resize(self.n_pressures(), self.n_cylinders());
        j.rates.copy_from_slice(rates);
        self.jacobian_from_flows(p, spools, strokes, true, j)
    }

    /// The Jacobians with the net flows of the point in `j.rates`, or the pressure rates
    /// (flows times B_e/V) if `scaled`.
    fn jacobian_from_flows(
        &self,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        scaled: bool,
        j: &mut CircuitJacobian,
    ) -> Result<(), CircuitError> {
        let (np, nc) = (self.n_pressures(), self.n_cylinders());
        for v in [&mut j.dp_dp, &mut j.dp_ds, &mut j.dp_dv, &mut j.df_dp] {
            v.fill(0.0);
        }
        let dp_dp = &mut j.dp_dp;
        self.orifices(spools, |from, to, coefficient, laminar| {
            let slope = coefficient * laws::orifice_slope(self.pressure(p, from) - self.pressure(p, to), laminar);
            for (row, sign) in [(from, -1.0), (to, 1.0)] {
                let Node::Volume(i) = row else { continue };
                if let Node::Volume(a) = from {
                    dp_dp[i * np + a] += sign * slope;
                }
                if let Node::Volume(b) = to {
                    dp_dp[i * np + b] -= sign * slope;
                }
            }
        });
        for (c, cyl) in self.cylinders.iter().enumerate() {
            j.dp_dv[cyl.piston_side * nc + c] -= cyl.area_piston;
            j.dp_dv[cyl.rod_side * nc + c] += cyl.area_rod;
            j.df_dp[c * np + cyl.piston_side] += cyl.area_piston;
            j.df_dp[c * np + cyl.rod_side] -= cyl.area_rod;
            j.df_ds[c] = 0.0;
            j.df_dv[c] = -cyl.friction.as_ref().map_or(0.0, |f| laws::seal_friction_slope(f, strokes[c].velocity));
        }
        for i in 0..np {
            let k = self.stiffness(i, strokes, Some(&mut j.forces_plus[..nc]));
            let flow = if scaled { j.rates[i] / k } else { j.rates[i] };
            for a in 0..np {
                j.dp_dp[i * np + a] *= k;
            }
            for c in 0..nc {
                j.dp_dv[i * nc + c] *= k;
                j.dp_ds[i * nc + c] = j.forces_plus[c] * flow;
            }
        }
        if ![&j.dp_dp, &j.dp_ds, &j.dp_dv, &j.df_dv].iter().all(|v| v.iter().all(|x| x.is_finite())) {
            return Err(CircuitError::NonFinite { what: "circuit Jacobian".into() });
        }
        Ok(())
    }

    /// The Jacobians by forward differences (seed 004 eqs. 40-41), to check [`Circuit::jacobian`].
    pub fn jacobian_fd(
        &self,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        j: &mut CircuitJacobian,
    ) -> Result<(), CircuitError> {
        let (np, nc) = (self.n_pressures(), self.n_cylinders());
        j.resize(np, nc);
        j.p.clear();
        j.p.extend_from_slice(p);
        j.strokes.clear();
        j.strokes.extend_from_slice(strokes);
        self.evaluate(p, spools, strokes, &mut j.rates, &mut j.forces)?;
        for (k, &pk) in p.iter().enumerate().take(np) {
            let eps = increment(pk);
            j.p[k] = pk + eps;
            self.evaluate(&j.p, spools, strokes, &mut j.rates_plus, &mut j.forces_plus)?;
            j.p[k] = pk;
            for i in 0..np {
                j.dp_dp[i * np + k] = (j.rates_plus[i] - j.rates[i]) / eps;
            }
            for c in 0..nc {
                j.df_dp[c * np + k] = (j.forces_plus[c] - j.forces[c]) / eps;
            }
        }
        for c in 0..nc {
            for velocity in [false, true] {
                let x = if velocity { strokes[c].velocity } else { strokes[c].length };
                let eps = increment(x);
                if velocity {
                    j.strokes[c].velocity = x + eps;
                } else {
                    j.strokes[c].length = x + eps;
                }
                self.evaluate(p, spools, &j.strokes, &mut j.rates_plus, &mut j.forces_plus)?;
                j.strokes[c] = strokes[c];
                let (dp, df) = if velocity { (&mut j.dp_dv, &mut j.df_dv) } else { (&mut j.dp_ds, &mut j.df_ds) };
                for i in 0..np {
                    dp[i * nc + c] = (j.rates_plus[i] - j.rates[i]) / eps;
                }
                df[c] = (j.forces_plus[c] - j.forces[c]) / eps;
            }
        }
        Ok(())
    }

    /// U_ref of spool `k` for a step from `t0` to `t1`: the input plus `work_cycle` times the
    /// schedule at the step's midpoint (held over the step; exact for a schedule that
    /// switches on the step grid).
    pub fn reference(&self, k: usize, t0: f64, t1: f64, inputs: &[f64]) -> f64 {
        let v = &self.valves[k];
        let input = v.input.map_or(0.0, |i| inputs[i]);
        input + v.reference.work_cycle * v.reference.cycle_value(0.5 * (t0 + t1))
    }

    /// Spool positions at `t1` from `spools` at `t0` (trapezoidal rule, reference held).
    pub fn advance_spools(&self, spools: &[f64], t0: f64, t1: f64, inputs: &[f64], out: &mut [f64]) {
        for (k, v) in self.valves.iter().enumerate() {
            let r = self.reference(k, t0, t1, inputs);
            out[k] = laws::spool_step(spools[k], r, v.time_constant, t1 - t0);
        }
    }

    /// Start pressures: the volumes' given values, and for a cylinder with a static start
    /// (`forces[c]` = F_s0) p_A = (F_s0 + p_B A_B) / A_A (friction ignored, seed 004 Sect. 5) in
    /// its piston-side volume and the volumes throttles connect to it (no flow at rest).
    pub fn initial_pressures(&self, forces: &[Option<f64>]) -> Vec<f64> {
        let mut p: Vec<Option<f64>> = self.volumes.iter().map(|v| v.initial).collect();
        for (c, f) in self.cylinders.iter().zip(forces) {
            if let (Some(f), None) = (f, p[c.piston_side]) {
                let rod = p[c.rod_side].unwrap_or(0.0);
                p[c.piston_side] = Some((f + rod * c.area_rod) / c.area_piston);
            }
        }
        loop {
            let mut changed = false;
            for t in &self.throttles {
                if let (Node::Volume(a), Node::Volume(b)) = (t.from, t.to) {
                    match (p[a], p[b]) {
                        (Some(x), None) => p[b] = Some(x),
                        (None, Some(x)) => p[a] = Some(x),
                        _ => continue,
                    }
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        p.into_iter().map(|x| x.unwrap_or(0.0)).collect()
    }
}

#[cfg(test)]
mod tests;
