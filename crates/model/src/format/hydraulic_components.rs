//! Hydraulic components beyond the lumped-fluid circuit of [Jaiswal2021, Sect. 3]: pumps
//! (fixed displacement and pressure compensated), hydraulic motors on revolute joints, long
//! lines with the oil's inertia and gas-loaded accumulators. Their laws are documented in docs/modelling.md; the engine's
//! `hydraulics::components` evaluates them.
//!
//! Compiled into build.rs as part of the description module: serde only.

use super::Motion;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A positive-displacement pump: a flow source from `inlet` to `outlet` driven by a shaft,
/// Q = eps D omega / (2 pi) - C_l (p_outlet - p_inlet).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pump {
    /// Unique name (a C identifier); outputs refer to it.
    pub name: String,
    /// Suction node (usually the tank).
    pub inlet: String,
    /// Delivery node: a volume.
    pub outlet: String,
    /// Displacement D [m3/rev] (the maximum displacement of a compensated pump).
    pub displacement: f64,
    /// Constant shaft speed [rad/s]; `speed_input` and `speed_profile` add to it.
    #[serde(default)]
    pub shaft_speed: f64,
    /// An FMU input (in rad/s) added to the shaft speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_input: Option<String>,
    /// A shaft speed profile omega(t) [rad/s] added to the shaft speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_profile: Option<Motion>,
    /// Internal leakage coefficient C_l [m3/(s.Pa)]: a volumetric efficiency eta_v at speed
    /// omega_r and pressure rise dp_r is C_l = (1 - eta_v) D omega_r / (2 pi dp_r).
    #[serde(default)]
    pub leakage_coefficient: f64,
    /// Hydromechanical efficiency eta_hm [-]: shaft torque T = D dp / (2 pi eta_hm).
    #[serde(default = "one")]
    pub hydromechanical_efficiency: f64,
    /// Pressure compensator: the displacement falls from D to zero as the pressure rise
    /// p_outlet - p_inlet goes from `setting` to `setting + regulation_range`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compensator: Option<Compensator>,
}

fn one() -> f64 {
    1.0
}

/// A fixed-displacement hydraulic motor (rotary actuator) turning a revolute joint: with
/// D_e = D / (2 pi) and omega the joint's rate, it draws q = D_e omega / eta_v + C_l (p_A - p_B)
/// from `port_a` into `port_b` and applies T = eta_hm D_e (p_A - p_B) - B omega to the joint
/// ([HopsanMotor]; [OpenHydraulics] `PartialPumpMotor`; docs/modelling.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Motor {
    /// Unique name (a C identifier); outputs refer to it.
    pub name: String,
    /// Inlet port A: a volume or source; flow from A to B turns the joint positively.
    pub port_a: String,
    /// Outlet port B: a volume or source.
    pub port_b: String,
    /// A revolute joint: its rate omega turns the shaft, body2 receives the torque T about
    /// the joint's axis and body1 -T.
    pub joint: String,
    /// Displacement D [m3/rev].
    pub displacement: f64,
    /// Internal leakage coefficient C_l [m3/(s.Pa)], laminar, from A to B.
    #[serde(default)]
    pub leakage_coefficient: f64,
    /// Volumetric efficiency eta_v [-]: the shaft flow is D_e omega / eta_v.
    #[serde(default = "one")]
    pub volumetric_efficiency: f64,
    /// Hydromechanical efficiency eta_hm [-]: T = eta_hm D_e (p_A - p_B) - B omega.
    #[serde(default = "one")]
    pub hydromechanical_efficiency: f64,
    /// Viscous friction coefficient B [N.m.s/rad] of the shaft.
    #[serde(default)]
    pub viscous_friction: f64,
}

/// The pressure compensator of a variable-displacement pump.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Compensator {
    /// Pressure rise at which the displacement starts to fall \[Pa\].
    pub setting: f64,
    /// Pressure rise above `setting` at which the displacement is zero \[Pa\].
    pub regulation_range: f64,
}

/// A long line between two nodes, cut into `segments` cells: each cell a volume of the
/// line's oil, each face a flow with the inertance rho l/A and the laminar resistance
/// 128 mu l/(pi d^4) of its length (half a cell at the two ends).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Line {
    /// Unique name (a C identifier); outputs refer to it.
    pub name: String,
    /// Node at the start.
    pub from: String,
    /// Node at the end.
    pub to: String,
    /// Length \[m\].
    pub length: f64,
    /// Inner diameter \[m\].
    pub diameter: f64,
    /// Number of cells N (the line's modes up to about N c / (4 l) are resolved).
    pub segments: usize,
    /// Kinematic viscosity of the oil [m2/s].
    pub kinematic_viscosity: f64,
    /// Bulk modulus of the line's wall \[Pa\] (in series with the oil's).
    pub wall_bulk_modulus: f64,
    /// Pressure of the line's cells at the start \[Pa\].
    pub initial_pressure: f64,
}

impl Line {
    /// Flow area A \[m2\].
    pub fn area(&self) -> f64 {
        std::f64::consts::FRAC_PI_4 * self.diameter * self.diameter
    }
}

/// A gas-loaded (bladder, diaphragm or piston) accumulator on a circuit node: a gas charge
/// p_g V_g^n = p0 V0^n ([SimscapeFluids] "Gas-Charged Accumulator (IL)") behind a laminar
/// inlet, q = G (p_node - p_g) into the accumulator; its liquid volume V_L = V0 - V_g is a
/// state.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Accumulator {
    /// Unique name (a C identifier); outputs refer to it.
    pub name: String,
    /// The node the inlet connects to: a volume or a source.
    pub node: String,
    /// Gas pre-charge pressure p0 \[Pa\] (absolute, as the gas law needs), the gas pressure of
    /// the empty accumulator.
    pub precharge_pressure: f64,
    /// Gas volume V0 at the pre-charge [m3]: the accumulator's nominal size.
    pub volume: f64,
    /// Polytropic exponent n [-]: 1 isothermal (slow cycles), 1.4 adiabatic nitrogen (fast).
    #[serde(default = "default_polytropic_exponent")]
    pub polytropic_exponent: f64,
    /// Maximum working pressure of the data sheet \[Pa\]: above the pre-charge, and below the
    /// pressure of the gas stop (gas volume 0.1 V0).
    pub max_pressure: f64,
    /// Laminar inlet conductance G [m3/(s.Pa)]; give this or `rated_flow` with
    /// `rated_pressure_drop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inlet_conductance: Option<f64>,
    /// Flow through the inlet at `rated_pressure_drop` [m3/s] (G = rated_flow /
    /// rated_pressure_drop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated_flow: Option<f64>,
    /// The inlet's pressure drop at `rated_flow` \[Pa\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated_pressure_drop: Option<f64>,
    /// Gas pressure at the start \[Pa\] (default: the pre-charge, an empty accumulator); the
    /// liquid volume follows from the gas law. Give the node's start pressure to start at rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_pressure: Option<f64>,
}

/// Smallest gas volume of an accumulator as a fraction of V0, where the gas law gives way
/// to the stop of a full accumulator (a dead volume of gas, as in [SimscapeFluids]
/// "Gas-Charged Accumulator (IL)", where the liquid chamber's capacity is the total volume
/// minus the minimum gas volume).
pub const MIN_GAS_FRACTION: f64 = 0.1;

fn default_polytropic_exponent() -> f64 {
    1.4
}

impl Accumulator {
    /// The inlet's laminar conductance G [m3/(s.Pa)] (NaN if neither form is given).
    pub fn conductance(&self) -> f64 {
        match (self.inlet_conductance, self.rated_flow, self.rated_pressure_drop) {
            (Some(g), _, _) => g,
            (None, Some(q), Some(dp)) => q / dp,
            _ => f64::NAN,
        }
    }

    /// The liquid volume V_L [m3] at gas pressure `p` from the gas law: V0 (1 - (p0/p)^(1/n))
    /// above the pre-charge ([SimscapeFluids] "Gas-Charged Accumulator (IL)"), 0 below.
    pub fn liquid_volume_at(&self, p: f64) -> f64 {
        if p <= self.precharge_pressure {
            0.0
        } else {
            self.volume * (1.0 - (self.precharge_pressure / p).powf(1.0 / self.polytropic_exponent))
        }
    }
}

impl super::Hydraulics {
    /// The circuit's differential states besides the spools, in the engine's order, as
    /// (name, unit, description): the volumes' pressures, the line cells' pressures, the
    /// line faces' flow states (the flow times the line's impedance sqrt(rho B)/A, in Pa),
    /// then the accumulators' liquid volumes (times p0/V0, in Pa).
    pub fn pressure_states(&self) -> Vec<(String, &'static str, String)> {
        let mut states: Vec<(String, &'static str, String)> = self
            .volumes
            .iter()
            .map(|v| {
                (
                    format!("state.{}.pressure", v.name),
                    "Pa",
                    format!("Pressure of volume {} (Jaiswal et al. 2021, eq. 22)", v.name),
                )
            })
            .collect();
        for l in &self.lines {
            for k in 1..=l.segments {
                states.push((
                    format!("state.{}.cell[{k}].pressure", l.name),
                    "Pa",
                    format!("Pressure of cell {k} of line {}", l.name),
                ));
            }
        }
        for l in &self.lines {
            for k in 0..=l.segments {
                states.push((
                    format!("state.{}.face[{k}].flow", l.name),
                    "Pa",
                    format!("Flow through face {k} of line {} times the line's impedance sqrt(rho B)/A", l.name),
                ));
            }
        }
        for a in &self.accumulators {
            states.push((
                format!("state.{}.liquid_volume", a.name),
                "Pa",
                format!(
                    "Liquid volume of accumulator {} times p0/V0 (its pre-charge pressure over its gas volume)",
                    a.name
                ),
            ));
        }
        states
    }
}
