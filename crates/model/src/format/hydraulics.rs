//! Lumped-fluid hydraulic circuits as description data (seed 004 Sect. 3 and 5): volumes
//! whose pressures are states (eqs. 22-23), constant-pressure sources (pump, tank), throttle
//! valves (eqs. 24-25), 4/3 directional control valves with first-order spool dynamics
//! (eqs. 26-27) and double-acting cylinders (eqs. 28-29, 42-43) attached to the mechanism or
//! driven from FMU inputs (a pure hydraulic model for co-simulation).
//!
//! Compiled into build.rs as part of the description module: serde only.

use serde::{Deserialize, Serialize};

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// The circuit of a model.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Hydraulics {
    pub oil: Oil,
    /// Constant-pressure nodes (pump, tank).
    #[serde(default)]
    pub sources: Vec<Source>,
    /// Control volumes; their pressures are states of the model (seed 004 eq. 22).
    pub volumes: Vec<Volume>,
    #[serde(default)]
    pub valves: Vec<Valve>,
    #[serde(default)]
    pub cylinders: Vec<Cylinder>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Oil {
    /// Bulk modulus of the oil B_oil \[Pa\] (seed 004 eq. 23).
    pub bulk_modulus: f64,
    /// Density rho [kg/m^3] (throttle flow coefficient, seed 004 eq. 25).
    pub density: f64,
}

/// A node of constant pressure: the pump p_P or the tank p_T (seed 004 Sect. 5).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub name: String,
    /// \[Pa\]
    pub pressure: f64,
}

/// A control volume: a hose (V_h, B_h) plus the cylinder chambers connected to it
/// (seed 004 eqs. 23, 42).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Volume {
    pub name: String,
    /// Hose volume V_h [m^3].
    pub hose_volume: f64,
    /// Bulk modulus of the hose B_h \[Pa\].
    pub hose_bulk_modulus: f64,
    /// Pressure at the start \[Pa\]; omitted for volumes whose pressure follows from a
    /// cylinder's static start (see [`Cylinder::static_start`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_pressure: Option<f64>,
}

/// Valves (seed 004 Sect. 3.1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Valve {
    /// Throttle between two nodes: Q = C_vt sgn(dp) sqrt|dp|, C_vt = C_d A_t sqrt(2/rho)
    /// (seed 004 eqs. 24-25), linear below `laminar_limit`. Positive flow from `from` to `to`.
    Throttle {
        name: String,
        from: String,
        to: String,
        /// Discharge coefficient C_d [-].
        discharge_coefficient: f64,
        /// Orifice diameter \[m\] (A_t = pi d^2 / 4).
        diameter: f64,
        /// Pressure difference below which the flow is laminar (linear) \[Pa\].
        #[serde(default = "default_laminar_limit")]
        laminar_limit: f64,
    },
    /// 4/3 directional control valve (seed 004 eqs. 26-27): for U > 0 the pump feeds port A
    /// and port B drains to the tank, for U < 0 the reverse; Q = C_vd U sgn(dp) sqrt|dp|,
    /// linear below `laminar_limit`; spool U' = (U_ref - U)/tau.
    Directional {
        name: String,
        pump: String,
        tank: String,
        port_a: String,
        port_b: String,
        /// Flow constant C_vd per unit of U [m^3/(s V Pa^0.5)].
        flow_constant: f64,
        #[serde(default = "default_laminar_limit")]
        laminar_limit: f64,
        /// Spool time constant tau \[s\].
        time_constant: f64,
        /// Spool position at the start \[V\].
        #[serde(default)]
        initial_spool: f64,
        reference: Reference,
    },
}

fn default_laminar_limit() -> f64 {
    2e5
}

impl Valve {
    pub fn name(&self) -> &str {
        match self {
            Valve::Throttle { name, .. } | Valve::Directional { name, .. } => name,
        }
    }
}

/// The spool reference U_ref: an FMU input plus, scaled by `work_cycle`, a piecewise-constant
/// schedule (the seed's work cycles, eqs. 46-47). Held constant over each internal step.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// Name of an input added to the schedule \[V\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// Gain of the schedule: 1 plays it, 0 leaves the input alone.
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

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CycleStep {
    /// \[s\]
    pub from: f64,
    pub value: f64,
}

impl Reference {
    /// The schedule's value at `t`.
    pub fn cycle_value(&self, t: f64) -> f64 {
        self.cycle.iter().take_while(|c| c.from <= t).last().map_or(0.0, |c| c.value)
    }
}

/// Double-acting cylinder (seed 004 Sect. 3.2, eqs. 28-29, 42-43). The piston-side chamber
/// length is l_A = |s| - `closed_length` and the rod-side one l_B = `stroke` - l_A; the seed's
/// l_20 = s_0 - l, l_30 = l - l_20 is the case `closed_length` = `stroke` = l.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Cylinder {
    pub name: String,
    /// Volume the piston-side chamber belongs to (seed: V2).
    pub piston_side: String,
    /// Volume the rod-side chamber belongs to (seed: V3).
    pub rod_side: String,
    /// Bore \[m\] (A_piston = pi D^2/4).
    pub piston_diameter: f64,
    /// Rod diameter \[m\] (A_rod side = pi (D^2 - d^2)/4).
    pub rod_diameter: f64,
    /// Stroke l \[m\]: l_A + l_B = l.
    pub stroke: f64,
    /// Pin-to-pin length at l_A = 0 \[m\] (default: the stroke, as in seed 004 eq. 43).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_length: Option<f64>,
    /// Bulk modulus of the chamber walls \[Pa\] (a sub-volume in seed 004 eq. 23).
    pub wall_bulk_modulus: f64,
    /// Seal friction F_mu (seed 004 eq. 29), none if omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<SealFriction>,
    /// Attachment to the mechanism: the rod end `point2` on `body2`, the base `point1` on
    /// `body1` (global points at the initial configuration). The force pushes them apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body1: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point1: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body2: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point2: Option<[f64; 3]>,
    /// Without a mechanism: inputs giving the actuator length |s| \[m\] and velocity [m/s]
    /// (the length is extrapolated with the velocity over each communication step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length_input: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity_input: Option<String>,
    /// Start from static equilibrium (seed 004 Sect. 5): the cylinder force F_s0 that holds
    /// the mechanism still is computed at the start, and the piston-side volume and the
    /// volumes connected to it through throttles start at p = (F_s0 + p_rod A_rod)/A_piston.
    #[serde(default, skip_serializing_if = "is_default")]
    pub static_start: bool,
    /// Like `static_start` with a given force F_s0 \[N\] (cylinders driven by inputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_force: Option<f64>,
}

impl Cylinder {
    /// Piston-side area A_piston [m^2].
    pub fn piston_area(&self) -> f64 {
        std::f64::consts::FRAC_PI_4 * self.piston_diameter * self.piston_diameter
    }
    /// Rod-side (annulus) area [m^2].
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

/// The LUT group's seal-friction law (benchmarks.md Sect. 5.4):
/// F_mu = F_c tanh(4 v/v_s) + (F_s - F_c) (v/v_s) / ((v/v_s)^2/4 + 3/4)^2 + sigma v.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SealFriction {
    /// Coulomb friction F_c \[N\].
    pub coulomb: f64,
    /// Static (breakaway) friction F_s \[N\].
    pub static_friction: f64,
    /// Viscous coefficient sigma [N s/m].
    pub viscous: f64,
    /// Stribeck velocity v_s [m/s].
    pub stribeck_velocity: f64,
}
