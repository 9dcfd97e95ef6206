//! Lumped-fluid hydraulics, independent of the multibody formulation ([Jaiswal2021, Sect. 3]).
//!
//! Given the circuit state (pressures p of the volumes, spool positions U of the directional
//! valves), each cylinder's actuator length |s| and rate s' and the model's input values, a
//! [`Circuit`] gives the pressure rates p' (eqs. 22-23 with the valve and cylinder flows of
//! eqs. 24-28, the circuit of Sect. 5 is eq. 44) and the cylinder forces F_s (eq. 29), and
//! their Jacobians by forward differences (eqs. 40-41). Spools follow eq. (27) with the
//! reference held over each step, integrated by the trapezoidal rule in closed form
//! ([`laws::spool_step`]). For a circuit split between FMUs, inputs may give a source's
//! pressure (the node's pressure in eqs. 24 and 26) and a flow into a volume (one more term
//! of the sum in eq. 22); [`Circuit::source_flow`] is the flow the orifices deliver into a
//! source node, the other FMU's inflow.

pub mod accumulator;
mod boundary;
pub mod components;
pub mod cushion;
mod evaluate;
pub mod laws;
pub mod motor;
mod supply;
mod switching;

use crate::inputs::InputSignals;
use mbfmu_model::format::{self, Reference, SealFriction, Valve};
pub use motor::MotorSpec;
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
    /// Input index of an external inflow (m3/s).
    pub inflow: Option<usize>,
}

#[derive(Clone, Debug)]
struct Throttle {
    from: Node,
    to: Node,
    /// C_vt = C_d A_t sqrt(2/rho) ([Jaiswal2021, eq. 25]).
    coefficient: f64,
    laminar: f64,
    /// An end cushion scaling the coefficient with a cylinder's stroke (`cushion.rs`).
    cushion: Option<cushion::Cushion>,
}

/// A 4/3 directional control valve with its spool ([Jaiswal2021, eqs. 26-27]).
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
    /// Piston- and rod-side chamber lengths ([Jaiswal2021, eq. 43] with the sign of the stroke
    /// term corrected, docs/references.md#corrections-to-the-cited-works: the piston side grows on extension).
    pub fn chambers(&self, length: f64) -> (f64, f64) {
        let a = length - self.closed;
        (a, self.stroke - a)
    }

    /// F_s = p_A A_A - p_B A_B - F_mu(s') ([Jaiswal2021, eq. 29]).
    pub fn force(&self, p_piston: f64, p_rod: f64, velocity: f64) -> f64 {
        let friction = self.friction.as_ref().map_or(0.0, |f| laws::seal_friction(f, velocity));
        p_piston * self.area_piston - p_rod * self.area_rod - friction
    }

    /// Time derivative of [`CylinderSpec::force`] from the pressure rates and the piston's
    /// acceleration ([Jaiswal2021, eqs. 28-29] with the seal friction's slope).
    pub fn force_rate(&self, pd_piston: f64, pd_rod: f64, velocity: f64, acceleration: f64) -> f64 {
        let slope = self.friction.as_ref().map_or(0.0, |f| laws::seal_friction_slope(f, velocity));
        pd_piston * self.area_piston - pd_rod * self.area_rod - slope * acceleration
    }
}

/// Actuator length |s| and rate s' of a cylinder ([Jaiswal2021, eq. 45]).
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
    /// Constant source pressures (0 where an input gives it).
    pub sources: Vec<f64>,
    /// Input index of each source whose pressure is an input.
    pub source_inputs: Vec<Option<usize>>,
    throttles: Vec<Throttle>,
    pub valves: Vec<DirectionalValve>,
    pub cylinders: Vec<CylinderSpec>,
    /// Hydraulic motors (`motor.rs`): actuators after the cylinders, whose strokes are their
    /// joints' angles and rates and whose forces are their torques.
    pub motors: Vec<MotorSpec>,
    /// Spool index of each valve of the description (None for throttles).
    pub spool_of_valve: Vec<Option<usize>>,
    /// Pressure valves, pumps, accumulators and lines (`components.rs`).
    pub components: components::Components,
    /// Constants of the evaluation, derived once from the above (`evaluate.rs`).
    compiled: Compiled,
}

/// A cylinder chamber inside a volume: the cylinder and which side.
#[derive(Clone, Copy, Debug)]
struct Chamber {
    cylinder: usize,
    piston: bool,
}

/// What [`Circuit::evaluate`] and the Jacobians need per volume and cylinder, formed once so
/// that an evaluation does not search the cylinders of every volume.
#[derive(Clone, Debug, Default)]
struct Compiled {
    /// V_hose / B_hose of every volume.
    hose_compliance: Vec<f64>,
    /// The cylinder chambers in every volume, in cylinder order, piston side first.
    chambers: Vec<Vec<Chamber>>,
    /// d V / d|s| of volume i for cylinder c (A_A if its piston side, minus A_B if its rod
    /// side), np x nc row-major.
    volume_slope: Vec<f64>,
    /// 1/B_oil + 1/B_wall of every cylinder.
    wall_factor: Vec<f64>,
    /// Some throttle has an end cushion (`cushion.rs`); without one the evaluation keeps the
    /// throttles' bare coefficients and never reads the strokes for them.
    cushioned: bool,
    /// No pressure valve, pump, line, accumulator, motor or cushion: the evaluation visits
    /// only the orifices, cylinders and volumes, and one test skips the rest.
    plain: bool,
}

impl Compiled {
    fn of(oil_modulus: f64, volumes: &[VolumeSpec], cylinders: &[CylinderSpec], throttles: &[Throttle]) -> Compiled {
        let mut volume_slope = Vec::with_capacity(volumes.len() * cylinders.len());
        let mut chambers = Vec::with_capacity(volumes.len());
        for i in 0..volumes.len() {
            let mut inside = Vec::new();
            for (c, cyl) in cylinders.iter().enumerate() {
                // l_A grows with |s|, l_B shrinks.
                let mut dv = 0.0;
                if cyl.piston_side == i {
                    dv += cyl.area_piston;
                    inside.push(Chamber { cylinder: c, piston: true });
                }
                if cyl.rod_side == i {
                    dv -= cyl.area_rod;
                    inside.push(Chamber { cylinder: c, piston: false });
                }
                volume_slope.push(dv);
            }
            chambers.push(inside);
        }
        Compiled {
            hose_compliance: volumes.iter().map(|v| v.hose / v.hose_modulus).collect(),
            chambers,
            volume_slope,
            wall_factor: cylinders.iter().map(|c| 1.0 / oil_modulus + 1.0 / c.wall_modulus).collect(),
            cushioned: throttles.iter().any(|t| t.cushion.is_some()),
            plain: false,
        }
    }
}

/// Jacobians of [`Circuit::evaluate`], row-major, over the na actuators (the cylinders, then
/// the motors): p' by p (np x np), by |s| and s' (np x na); F by p (na x np), by |s| and s'
/// (diagonal, na).
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
    #[inline]
    fn resize(&mut self, np: usize, nc: usize) {
        if self.dp_dp.len() == np * np && self.df_ds.len() == nc && self.rates.len() == np {
            return;
        }
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

/// The differentiation increment of [Jaiswal2021, eq. 41].
pub fn increment(x: f64) -> f64 {
    1e-8 * x.abs().max(1e-2)
}

impl Circuit {
    /// Compiles the validated circuit of a description, cylinders attached to its bodies.
    pub fn from_description(d: &format::Description) -> Option<Circuit> {
        Self::from_description_with(d, &|name| d.body_index(name))
    }

    /// [`Circuit::from_description`] with the index of the body (or structural node) a
    /// cylinder attaches to given by `body_index`.
    pub fn from_description_with(
        d: &format::Description,
        body_index: &dyn Fn(&str) -> Option<usize>,
    ) -> Option<Circuit> {
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
                Valve::Throttle { from, to, discharge_coefficient, diameter, laminar_limit, cushion, .. } => {
                    let area = std::f64::consts::FRAC_PI_4 * diameter * diameter;
                    throttles.push(Throttle {
                        from: node(from),
                        to: node(to),
                        coefficient: discharge_coefficient * area * (2.0 / h.oil.density).sqrt(),
                        laminar: *laminar_limit,
                        cushion: cushion.as_ref().map(|c| {
                            let cylinder = h.cylinders.iter().position(|x| x.name == c.cylinder);
                            cushion::Cushion::compile(c, cylinder.expect("validated cylinder"))
                        }),
                    });
                    spool_of_valve.push(None);
                }
                Valve::Relief { .. } | Valve::Check { .. } | Valve::Counterbalance { .. } => {
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
        let body = |name: &str| (name != format::GROUND).then(|| body_index(name).expect("validated body"));
        let cylinders: Vec<CylinderSpec> = h
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
        let mut volumes: Vec<VolumeSpec> = h
            .volumes
            .iter()
            .map(|v| VolumeSpec {
                name: v.name.clone(),
                hose: v.hose_volume,
                hose_modulus: v.hose_bulk_modulus,
                initial: v.initial_pressure,
                inflow: v.inflow_input.as_deref().map(input),
            })
            .collect();
        let components = components::Components::compile(h, &node, &input, &mut volumes);
        let motors = h
            .motors
            .iter()
            .map(|m| MotorSpec::compile(m, &node, d.joint_index(&m.joint).expect("validated joint")))
            .collect();
        let mut compiled = Compiled::of(h.oil.bulk_modulus, &volumes, &cylinders, &throttles);
        compiled.plain = components.is_empty() && h.motors.is_empty() && !compiled.cushioned;
        Some(Circuit {
            oil_modulus: h.oil.bulk_modulus,
            volumes,
            sources: h.sources.iter().map(|s| s.pressure.unwrap_or(0.0)).collect(),
            source_inputs: h.sources.iter().map(|s| s.pressure_input.as_deref().map(input)).collect(),
            throttles,
            valves,
            cylinders,
            motors,
            spool_of_valve,
            components,
            compiled,
        })
    }

    /// The circuit's differential states besides the spools: the volumes' pressures (the
    /// description's, then the line cells'), the line faces' flow states, then the
    /// accumulators' liquid volumes (scaled to Pa, `accumulator.rs`).
    pub fn n_pressures(&self) -> usize {
        self.volumes.len() + self.components.faces.len() + self.components.accumulators.len()
    }

    pub fn n_spools(&self) -> usize {
        self.valves.len()
    }

    pub fn n_cylinders(&self) -> usize {
        self.cylinders.len()
    }

    /// The actuators: the cylinders, then the motors (the length of the strokes and forces
    /// that [`Circuit::evaluate`] takes and gives).
    pub fn n_actuators(&self) -> usize {
        self.cylinders.len() + self.motors.len()
    }

    /// U_ref of spool `k` for a step from `t0` to `t1`, held over the step: the input's
    /// trapezoidal mean over the step (with the held reference the spool's trapezoidal step
    /// is then the trapezoidal rule of the time-varying one, the reference entering the spool
    /// law linearly; the input's value if it is held) plus `work_cycle` times the schedule at
    /// the step's midpoint (exact for a schedule that switches on the step grid).
    pub fn reference(&self, k: usize, t0: f64, t1: f64, inputs: &InputSignals) -> f64 {
        let v = &self.valves[k];
        let input = v.input.map_or(0.0, |i| inputs.trapezoid(i, t0, t1));
        input + v.reference.work_cycle * v.reference.cycle_value(0.5 * (t0 + t1))
    }

    /// First and second time derivatives of spool `k`'s reference U_ref(t) at `t`: the input's
    /// (the work-cycle schedule is piecewise constant).
    pub fn reference_rates(&self, k: usize, t: f64, inputs: &InputSignals) -> [f64; 2] {
        self.valves[k].input.map_or([0.0; 2], |i| [inputs.rate(i, t), inputs.curvature(i)])
    }

    /// First and second time derivatives of spool `k` at position `spool` and time `t` from
    /// the spool law U' = (U_ref - U)/tau ([Jaiswal2021, eq. 27]).
    pub fn spool_rates(&self, k: usize, spool: f64, t: f64, inputs: &InputSignals) -> [f64; 2] {
        let v = &self.valves[k];
        let input = v.input.map_or(0.0, |i| inputs.at(i, t));
        let reference = input + v.reference.work_cycle * v.reference.cycle_value(t);
        let rate = (reference - spool) / v.time_constant;
        [rate, (self.reference_rates(k, t, inputs)[0] - rate) / v.time_constant]
    }

    /// Spool positions after a step of `dt` from `spools`, with the step's `references`
    /// ([`Circuit::reference`] of every spool) held (trapezoidal rule).
    pub fn advance_spools(&self, spools: &[f64], references: &[f64], dt: f64, out: &mut [f64]) {
        for (((o, v), &u), &r) in out.iter_mut().zip(&self.valves).zip(spools).zip(references) {
            *o = laws::spool_step(u, r, v.time_constant, dt);
        }
    }

    /// Start pressures: the volumes' given values, and for a cylinder with a static start
    /// (`forces[c]` = F_s0) p_A = (F_s0 + p_B A_B) / A_A (friction ignored, [Jaiswal2021, Sect. 5]) in
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
        let faces = std::iter::repeat_n(0.0, self.components.faces.len());
        let accumulators = self.components.accumulators.iter().map(|a| a.initial);
        p.into_iter().map(|x| x.unwrap_or(0.0)).chain(faces).chain(accumulators).collect()
    }
}

#[cfg(test)]
mod accumulator_tests;
#[cfg(test)]
mod boundary_tests;
#[cfg(test)]
mod component_tests;
#[cfg(test)]
mod cushion_tests;
#[cfg(test)]
mod motor_tests;
#[cfg(test)]
mod tests;
