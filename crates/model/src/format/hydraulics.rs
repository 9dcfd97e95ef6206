//! Lumped-fluid hydraulic circuits as description data (Jaiswal et al. 2021 Sect. 3 and 5): volumes
//! whose pressures are states (eqs. 22-23), constant-pressure sources (pump, tank), throttle
//! valves (eqs. 24-25), 4/3 directional control valves with first-order spool dynamics
//! (eqs. 26-27) and double-acting cylinders (eqs. 28-29, 42-43) attached to the mechanism or
//! driven from FMU inputs (a pure hydraulic model for co-simulation). For circuits split
//! between FMUs, a node's pressure and a volume's external inflow may be FMU inputs, and the
//! flow the valves deliver into a node is an output.
//!
//! Compiled into build.rs as part of the description module: serde only.

use super::hydraulic_components::{Accumulator, Line, Motor, Pump};
use super::keyword::keyword;
use super::tagged::{tagged, Kinds};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// The circuit of a model.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hydraulics {
    /// The hydraulic fluid.
    pub oil: Oil,
    /// Constant-pressure nodes (pump, tank).
    #[serde(default)]
    pub sources: Vec<Source>,
    /// Control volumes; their pressures are states of the model (Jaiswal et al. 2021 eq. 22).
    pub volumes: Vec<Volume>,
    /// Throttle and directional control valves between nodes.
    #[serde(default)]
    pub valves: Vec<Valve>,
    /// Double-acting cylinders.
    #[serde(default)]
    pub cylinders: Vec<Cylinder>,
    /// Pumps: flow sources driven by a shaft.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pumps: Vec<Pump>,
    /// Hydraulic motors turning revolute joints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub motors: Vec<Motor>,
    /// Long lines (hoses, pipes) with the oil's inertia: segmented into volumes and flows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<Line>,
    /// Gas-loaded accumulators on circuit nodes; each liquid volume is a state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accumulators: Vec<Accumulator>,
}

/// The hydraulic fluid.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Oil {
    /// Bulk modulus of the oil B_oil \[Pa\] (Jaiswal et al. 2021 eq. 23).
    pub bulk_modulus: f64,
    /// Density rho [kg/m3] (throttle flow coefficient, Jaiswal et al. 2021 eq. 25).
    pub density: f64,
}

/// A node whose pressure is given rather than a state: the pump p_P or the tank p_T
/// (Jaiswal et al. 2021 Sect. 5), or, with `pressure_input`, a volume of another FMU whose
/// pressure arrives as an input (the boundary of a circuit split for co-simulation).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Unique name (a C identifier); valves and outputs refer to it.
    pub name: String,
    /// Its constant pressure \[Pa\]; give this or `pressure_input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure: Option<f64>,
    /// The FMU input (in Pa) that gives its pressure; give this or `pressure`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure_input: Option<String>,
}

/// A control volume: a hose (V_h, B_h) plus the cylinder chambers connected to it
/// (Jaiswal et al. 2021 eqs. 23, 42).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Volume {
    /// Unique name (a C identifier); valves, cylinders and outputs refer to it.
    pub name: String,
    /// Hose volume V_h \[m3\].
    pub hose_volume: f64,
    /// Bulk modulus of the hose B_h \[Pa\].
    pub hose_bulk_modulus: f64,
    /// Pressure at the start \[Pa\]; omitted for volumes whose pressure follows from a
    /// cylinder's static start (see `static_start` of cylinders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_pressure: Option<f64>,
    /// An FMU input (in m3/s) giving a flow into the volume besides its valves' and
    /// cylinders' (a term of the sum in Jaiswal et al. 2021 eq. 22): the flow another FMU's
    /// valve delivers into this volume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inflow_input: Option<String>,
}

const VALVES: Kinds = Kinds {
    what: "valve type",
    tag: Some("type"),
    words: &["throttle", "directional", "relief", "check", "counterbalance"],
    hint: |_| None,
};

tagged! {
    /// Valves (Jaiswal et al. 2021 Sect. 3.1).
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Valve reads ValveTwin as "Valve" (VALVES) {
        /// Throttle between two nodes: Q = C_vt sgn(dp) sqrt|dp|, C_vt = C_d A_t sqrt(2/rho)
        /// (Jaiswal et al. 2021 eqs. 24-25), linear below `laminar_limit`. Positive flow from `from` to `to`.
        Throttle {
            /// Unique name (a C identifier).
            name: String,
            /// Upstream node: a source or volume.
            from: String,
            /// Downstream node: a source or volume.
            to: String,
            /// Discharge coefficient C_d [-].
            discharge_coefficient: f64,
            /// Orifice diameter \[m\] (A_t = pi d^2 / 4).
            diameter: f64,
            /// Pressure difference below which the flow is laminar (linear) \[Pa\].
            #[serde(default = "default_laminar_limit")]
            laminar_limit: f64,
            /// An end cushion: the coefficient closes with the distance of a cylinder's piston
            /// to one end of its stroke (docs/modelling.md, "End cushions").
            #[serde(default, skip_serializing_if = "Option::is_none")]
            cushion: Option<Cushion>,
        },
        /// 4/3 directional control valve (Jaiswal et al. 2021 eqs. 26-27): for U > 0 the pump feeds port A
        /// and port B drains to the tank, for U < 0 the reverse; Q = C_vd U sgn(dp) sqrt|dp|,
        /// linear below `laminar_limit`; spool U' = (U_ref - U)/tau.
        Directional {
            /// Unique name (a C identifier); outputs refer to it.
            name: String,
            /// The pressure source feeding the valve.
            pump: String,
            /// The source it drains to.
            tank: String,
            /// Volume at port A (fed for U > 0).
            port_a: String,
            /// Volume at port B (fed for U < 0).
            port_b: String,
            /// Flow constant C_vd per unit of U [m3/(s.V.Pa0.5)].
            flow_constant: f64,
            /// Pressure difference below which the flow is laminar (linear) \[Pa\].
            #[serde(default = "default_laminar_limit")]
            laminar_limit: f64,
            /// Spool time constant tau \[s\].
            time_constant: f64,
            /// Spool position at the start \[V\].
            #[serde(default)]
            initial_spool: f64,
            /// The spool reference U_ref.
            reference: Reference,
        },
        /// Direct-acting pressure relief valve from `from` to `to`: the opening grows linearly
        /// (with rounded ends) from `cracking_pressure` to `full_open_pressure` of the pressure
        /// drop p_from - p_to; flow Q = C_max (leakage + (1 - leakage) x) sgn(dp) sqrt|dp|.
        Relief {
            /// Unique name (a C identifier).
            name: String,
            /// Protected node (the pump line).
            from: String,
            /// Where it relieves to (the tank, or a volume with a path to one).
            to: String,
            /// Pressure drop at which it starts to open \[Pa\].
            cracking_pressure: f64,
            /// Pressure drop at which it is fully open \[Pa\].
            full_open_pressure: f64,
            /// Flow through the fully open valve at `rated_pressure_drop` [m3/s].
            rated_flow: f64,
            /// The pressure drop of `rated_flow` \[Pa\].
            rated_pressure_drop: f64,
            /// Opening of the closed valve as a fraction of the full opening [-].
            #[serde(default = "default_leakage")]
            leakage: f64,
            /// Pressure difference below which the flow is laminar (linear) \[Pa\].
            #[serde(default = "default_laminar_limit")]
            laminar_limit: f64,
        },
        /// Check (non-return) valve: passes flow from `from` to `to` once p_from - p_to exceeds
        /// `cracking_pressure`, fully open at `full_open_pressure`; the same law as `relief`.
        Check {
            /// Unique name (a C identifier).
            name: String,
            /// Inlet node.
            from: String,
            /// Outlet node.
            to: String,
            /// Pressure drop at which it starts to open \[Pa\].
            cracking_pressure: f64,
            /// Pressure drop at which it is fully open \[Pa\].
            full_open_pressure: f64,
            /// Flow through the fully open valve at `rated_pressure_drop` [m3/s].
            rated_flow: f64,
            /// The pressure drop of `rated_flow` \[Pa\].
            rated_pressure_drop: f64,
            /// Opening of the closed valve as a fraction of the full opening [-].
            #[serde(default = "default_leakage")]
            leakage: f64,
            /// Pressure difference below which the flow is laminar (linear) \[Pa\].
            #[serde(default = "default_laminar_limit")]
            laminar_limit: f64,
        },
        /// Counterbalance (load-holding, over-centre) valve: a relief stage from `load` to
        /// `back` opened by (p_load - p_back) + pilot_ratio (p_pilot - p_back) between
        /// `cracking_pressure` and `full_open_pressure`, and a check stage passing free flow
        /// from `back` to `load`.
        Counterbalance {
            /// Unique name (a C identifier).
            name: String,
            /// The cylinder-side node whose load the valve holds.
            load: String,
            /// The valve-side node (to the directional valve).
            back: String,
            /// The pilot node (usually the opposite cylinder line).
            pilot: String,
            /// Pilot area ratio [-] (3 to 10 is usual).
            pilot_ratio: f64,
            /// Opening pressure of the relief stage \[Pa\].
            cracking_pressure: f64,
            /// Pressure at which the relief stage is fully open \[Pa\].
            full_open_pressure: f64,
            /// Flow through a fully open stage at `rated_pressure_drop` [m3/s].
            rated_flow: f64,
            /// The pressure drop of `rated_flow` \[Pa\].
            rated_pressure_drop: f64,
            /// Cracking pressure of the check stage \[Pa\].
            #[serde(default = "default_check_cracking")]
            check_cracking_pressure: f64,
            /// Pressure drop at which the check stage is fully open \[Pa\].
            #[serde(default = "default_check_full_open")]
            check_full_open_pressure: f64,
            /// Opening of each closed stage as a fraction of its full opening [-].
            #[serde(default = "default_leakage")]
            leakage: f64,
            /// Pressure difference below which the flow is laminar (linear) \[Pa\].
            #[serde(default = "default_laminar_limit")]
            laminar_limit: f64,
        },
    }
}

/// The numbers of a pressure-controlled valve's opening law (see [`Valve::opening`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Opening {
    pub cracking_pressure: f64,
    pub full_open_pressure: f64,
    pub rated_flow: f64,
    pub rated_pressure_drop: f64,
    pub leakage: f64,
    pub laminar_limit: f64,
}

impl Opening {
    /// C_max = rated flow / sqrt(rated pressure drop) of the fully open valve.
    pub fn coefficient(&self) -> f64 {
        self.rated_flow / self.rated_pressure_drop.sqrt()
    }
}

fn default_leakage() -> f64 {
    1e-6
}

fn default_check_cracking() -> f64 {
    1e5
}

fn default_check_full_open() -> f64 {
    2e5
}

fn default_laminar_limit() -> f64 {
    2e5
}

impl Valve {
    /// Every node the valve connects or reads (its ports and its pilot), the pressures its
    /// flows depend on.
    pub fn nodes(&self) -> Vec<&str> {
        match self {
            Valve::Throttle { from, to, .. } | Valve::Relief { from, to, .. } | Valve::Check { from, to, .. } => {
                vec![from, to]
            }
            Valve::Directional { pump, tank, port_a, port_b, .. } => vec![pump, tank, port_a, port_b],
            Valve::Counterbalance { load, back, pilot, .. } => vec![load, back, pilot],
        }
    }

    /// The field names of [`Valve::nodes`], in its order.
    pub fn node_fields(&self) -> Vec<&'static str> {
        match self {
            Valve::Throttle { .. } | Valve::Relief { .. } | Valve::Check { .. } => vec!["from", "to"],
            Valve::Directional { .. } => vec!["pump", "tank", "port_a", "port_b"],
            Valve::Counterbalance { .. } => vec!["load", "back", "pilot"],
        }
    }

    /// The opening law of a pressure-controlled valve (relief, check, counterbalance; for
    /// the counterbalance valve its relief stage), None for the others.
    pub fn opening(&self) -> Option<Opening> {
        match self {
            Valve::Relief {
                cracking_pressure,
                full_open_pressure,
                rated_flow,
                rated_pressure_drop,
                leakage,
                laminar_limit,
                ..
            }
            | Valve::Check {
                cracking_pressure,
                full_open_pressure,
                rated_flow,
                rated_pressure_drop,
                leakage,
                laminar_limit,
                ..
            }
            | Valve::Counterbalance {
                cracking_pressure,
                full_open_pressure,
                rated_flow,
                rated_pressure_drop,
                leakage,
                laminar_limit,
                ..
            } => Some(Opening {
                cracking_pressure: *cracking_pressure,
                full_open_pressure: *full_open_pressure,
                rated_flow: *rated_flow,
                rated_pressure_drop: *rated_pressure_drop,
                leakage: *leakage,
                laminar_limit: *laminar_limit,
            }),
            Valve::Throttle { .. } | Valve::Directional { .. } => None,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Valve::Throttle { name, .. }
            | Valve::Directional { name, .. }
            | Valve::Relief { name, .. }
            | Valve::Check { name, .. }
            | Valve::Counterbalance { name, .. } => name,
        }
    }
}

/// An end cushion on a throttle: its flow coefficient is multiplied by a fraction f(d) of
/// the distance d of `cylinder`'s piston to the end `end`, rising from `end_fraction` at
/// d = 0 to 1 at d >= `length` ([OpenHydraulics] `CylinderCushion`: the outflow of the chamber
/// being emptied is throttled near the end of the stroke).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cushion {
    /// The cylinder whose stroke closes the cushion.
    pub cylinder: String,
    /// The end the cushion brakes.
    pub end: CylinderEnd,
    /// Cushion length \[m\]: the distance to the end over which the coefficient closes.
    pub length: f64,
    /// Fraction of the coefficient left at the end (d = 0) \[-\], in (0, 1].
    pub end_fraction: f64,
}

keyword! {
    /// An end of a cylinder's stroke.
    pub enum CylinderEnd("cylinder end") {
        /// Fully retracted: the piston side empties toward it (d = |s| - closed length).
        Retracted = "retracted",
        /// Fully extended: the rod side empties toward it (d = closed length + stroke - |s|).
        Extended = "extended",
    }
}

impl Cushion {
    /// True for a cushion at the retracted end.
    pub fn retracted(&self) -> bool {
        self.end == CylinderEnd::Retracted
    }
}

/// The spool reference U_ref: an FMU input plus, scaled by `work_cycle`, a piecewise-constant
/// schedule (the paper's work cycles, eqs. 46-47). Held constant over each internal step.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// Name of an input added to the schedule \[V\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// Gain of the schedule [-]: 1 plays it, 0 leaves the input alone.
    #[serde(default = "one")]
    pub work_cycle: f64,
    /// `cycle[i].value` applies from `cycle[i].from` until the next entry's `from` (0 before
    /// the first).
    #[serde(default)]
    pub cycle: Vec<CycleStep>,
}

fn one() -> f64 {
    1.0
}

/// One step of a valve's work cycle.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CycleStep {
    /// Time from which `value` applies \[s\].
    pub from: f64,
    /// Spool reference from then on \[V\].
    pub value: f64,
}

impl Reference {
    /// The schedule's value at `t`.
    pub fn cycle_value(&self, t: f64) -> f64 {
        self.cycle.iter().take_while(|c| c.from <= t).last().map_or(0.0, |c| c.value)
    }
}

/// Double-acting cylinder (Jaiswal et al. 2021 Sect. 3.2, eqs. 28-29, 42-43). The piston-side chamber
/// length is l_A = |s| - `closed_length` and the rod-side one l_B = `stroke` - l_A; the paper's
/// l_20 = s_0 - l, l_30 = l - l_20 is the case `closed_length` = `stroke` = l.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cylinder {
    /// Unique name (a C identifier); outputs refer to it.
    pub name: String,
    /// Volume the piston-side chamber belongs to (V2 in Jaiswal et al. 2021).
    pub piston_side: String,
    /// Volume the rod-side chamber belongs to (V3 in Jaiswal et al. 2021).
    pub rod_side: String,
    /// Bore \[m\] (A_piston = pi D^2/4).
    pub piston_diameter: f64,
    /// Rod diameter \[m\] (A_rod side = pi (D^2 - d^2)/4).
    pub rod_diameter: f64,
    /// Stroke l \[m\]: l_A + l_B = l.
    pub stroke: f64,
    /// Pin-to-pin length at l_A = 0 \[m\] (default: the stroke, as in Jaiswal et al. 2021 eq. 43).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_length: Option<f64>,
    /// Bulk modulus of the chamber walls \[Pa\] (a sub-volume in Jaiswal et al. 2021 eq. 23).
    pub wall_bulk_modulus: f64,
    /// Seal friction F_mu (Jaiswal et al. 2021 eq. 29), none if omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<SealFriction>,
    /// Attachment to the mechanism: the body (or `ground`) of the base `point1`. The force
    /// pushes the base and the rod end apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body1: Option<String>,
    /// The base, global at the initial configuration \[m\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point1: Option<[f64; 3]>,
    /// The body (or `ground`) of the rod end `point2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body2: Option<String>,
    /// The rod end, global at the initial configuration \[m\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point2: Option<[f64; 3]>,
    /// Without a mechanism: the input giving the actuator length |s| in m (extrapolated with
    /// the velocity over each communication step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length_input: Option<String>,
    /// Without a mechanism: the input giving the actuator velocity in m/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity_input: Option<String>,
    /// Start from static equilibrium (Jaiswal et al. 2021 Sect. 5): the cylinder force F_s0 that holds
    /// the mechanism still is computed at the start, and the piston-side volume and the
    /// volumes connected to it through throttles start at p = (F_s0 + p_rod A_rod)/A_piston.
    #[serde(default, skip_serializing_if = "is_default")]
    pub static_start: bool,
    /// Like `static_start` with a given force F_s0 \[N\] (cylinders driven by inputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_force: Option<f64>,
}

impl Cylinder {
    /// Piston-side area A_piston \[m2\].
    pub fn piston_area(&self) -> f64 {
        std::f64::consts::FRAC_PI_4 * self.piston_diameter * self.piston_diameter
    }
    /// Rod-side (annulus) area \[m2\].
    pub fn rod_side_area(&self) -> f64 {
        std::f64::consts::FRAC_PI_4
            * (self.piston_diameter * self.piston_diameter - self.rod_diameter * self.rod_diameter)
    }
    pub fn closed(&self) -> f64 {
        self.closed_length.unwrap_or(self.stroke)
    }
    /// True if the cylinder is attached to bodies (or ground) of the mechanism.
    pub fn attached(&self) -> bool {
        self.body1.is_some()
    }
}

/// The LUT group's seal-friction law:
/// F_mu = F_c tanh(4 v/v_s) + (F_s - F_c) (v/v_s) / ((v/v_s)^2/4 + 3/4)^2 + sigma v.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SealFriction {
    /// Coulomb friction F_c \[N\].
    pub coulomb: f64,
    /// Static (breakaway) friction F_s \[N\].
    pub static_friction: f64,
    /// Viscous coefficient sigma [N.s/m].
    pub viscous: f64,
    /// Stribeck velocity v_s [m/s].
    pub stribeck_velocity: f64,
}
