//! Checks of the hydraulic components beyond the lumped-fluid circuit: pressure valves,
//! pumps, motors, long lines and accumulators. Errors name the component, the field and the reason.

use super::hydraulic_components::MIN_GAS_FRACTION;
use super::validate::{invalid, DescriptionError};
use super::{Accumulator, Description, Hydraulics, JointKind, Motion, Valve};

fn check(loc: &str, what: &str, v: f64, ok: bool, rule: &str) -> Result<(), DescriptionError> {
    if v.is_finite() && ok {
        Ok(())
    } else {
        Err(invalid(loc, format!("{what} {v} {rule}")))
    }
}

impl Hydraulics {
    fn is_source(&self, name: &str) -> bool {
        self.sources.iter().any(|s| s.name == name)
    }

    /// True if the node `start` is a source or reaches one through valves, lines or pumps
    /// (the path a relief valve's flow takes to the tank).
    pub(super) fn reaches_source(&self, start: &str) -> bool {
        let mut seen = vec![start.to_string()];
        let mut k = 0;
        while k < seen.len() {
            let n = seen[k].clone();
            if self.is_source(&n) {
                return true;
            }
            let mut next: Vec<&str> = Vec::new();
            for v in &self.valves {
                let nodes = v.nodes();
                if nodes.contains(&n.as_str()) {
                    next.extend(nodes);
                }
            }
            for l in &self.lines {
                if l.from == n || l.to == n {
                    next.extend([l.from.as_str(), l.to.as_str()]);
                }
            }
            for x in next {
                if !seen.iter().any(|s| s == x) {
                    seen.push(x.to_string());
                }
            }
            k += 1;
        }
        false
    }
}

impl Description {
    /// The rules of the pressure-controlled valves beyond their numbers.
    pub(super) fn validate_pressure_valve(&self, h: &Hydraulics, v: &Valve, loc: &str) -> Result<(), DescriptionError> {
        match v {
            Valve::Relief { to, .. } if !h.reaches_source(to) => Err(invalid(
                loc,
                format!("to '{to}' has no path to a tank: a relief valve must relieve into a source or a volume connected to one (through valves or lines)"),
            )),
            Valve::Check { cracking_pressure, leakage, .. } if *cracking_pressure == 0.0 && *leakage == 0.0 => {
                Err(invalid(
                    loc,
                    "cracking_pressure and leakage are both 0: the valve's opening would switch at zero pressure drop and chatter; give a cracking pressure or a leakage > 0",
                ))
            }
            Valve::Counterbalance { pilot_ratio, check_cracking_pressure, check_full_open_pressure, .. } => {
                check(loc, "pilot_ratio", *pilot_ratio, *pilot_ratio >= 0.0, "must be finite and >= 0")?;
                check(loc, "check_cracking_pressure", *check_cracking_pressure, *check_cracking_pressure >= 0.0, "must be finite and >= 0")?;
                check(
                    loc,
                    "check_full_open_pressure",
                    *check_full_open_pressure,
                    check_full_open_pressure > check_cracking_pressure,
                    "must be above check_cracking_pressure",
                )
            }
            _ => Ok(()),
        }
    }

    /// Pumps and lines.
    pub(super) fn validate_components(&self, h: &Hydraulics) -> Result<(), DescriptionError> {
        for p in &h.pumps {
            let loc = format!("pump '{}'", p.name);
            let loc = loc.as_str();
            if !h.is_volume(&p.outlet) {
                return Err(invalid(
                    loc,
                    format!("outlet '{}' is not a hydraulic volume (a pump delivers into a volume)", p.outlet),
                ));
            }
            if !h.is_volume(&p.inlet) && !h.is_source(&p.inlet) {
                return Err(invalid(loc, format!("inlet '{}' is not a hydraulic volume or source", p.inlet)));
            }
            check(loc, "displacement", p.displacement, p.displacement > 0.0, "must be positive and finite")?;
            check(loc, "shaft_speed", p.shaft_speed, true, "must be finite")?;
            check(
                loc,
                "leakage_coefficient",
                p.leakage_coefficient,
                p.leakage_coefficient >= 0.0,
                "must be finite and >= 0",
            )?;
            let eta = p.hydromechanical_efficiency;
            check(loc, "hydromechanical_efficiency", eta, eta > 0.0 && eta <= 1.0, "must lie in (0, 1]")?;
            if let Some(input) = &p.speed_input {
                if self.input_index(input).is_none() {
                    return Err(invalid(loc, format!("speed_input '{input}' is not declared in interface.inputs")));
                }
            }
            if let Some(m) = &p.speed_profile {
                if matches!(m, Motion::InputRate { .. }) {
                    return Err(invalid(
                        loc,
                        "speed_profile cannot be input_rate (use speed_input for a speed from an input)",
                    ));
                }
                self.validate_motion(loc, m)?;
            }
            if p.shaft_speed == 0.0 && p.speed_input.is_none() && p.speed_profile.is_none() {
                return Err(invalid(loc, "the shaft never turns: give shaft_speed, speed_input or speed_profile"));
            }
            if let Some(c) = &p.compensator {
                check(loc, "compensator setting", c.setting, c.setting > 0.0, "must be positive and finite")?;
                check(
                    loc,
                    "compensator regulation_range",
                    c.regulation_range,
                    c.regulation_range > 0.0,
                    "must be positive and finite",
                )?;
            }
        }
        for m in &h.motors {
            self.validate_motor(h, m)?;
        }
        for l in &h.lines {
            let loc = format!("line '{}'", l.name);
            let loc = loc.as_str();
            for (field, name) in [("from", &l.from), ("to", &l.to)] {
                if !h.is_volume(name) && !h.is_source(name) {
                    return Err(invalid(loc, format!("{field} '{name}' is not a hydraulic volume or source")));
                }
            }
            if l.from == l.to {
                return Err(invalid(loc, "from and to are the same node"));
            }
            check(loc, "length", l.length, l.length > 0.0, "must be positive and finite")?;
            check(loc, "diameter", l.diameter, l.diameter > 0.0, "must be positive and finite")?;
            if !(1..=200).contains(&l.segments) {
                return Err(invalid(loc, format!("segments {} must lie in 1..=200", l.segments)));
            }
            check(
                loc,
                "kinematic_viscosity",
                l.kinematic_viscosity,
                l.kinematic_viscosity > 0.0,
                "must be positive and finite",
            )?;
            check(
                loc,
                "wall_bulk_modulus",
                l.wall_bulk_modulus,
                l.wall_bulk_modulus > 0.0,
                "must be positive and finite",
            )?;
            check(loc, "initial_pressure", l.initial_pressure, true, "must be finite")?;
        }
        for a in &h.accumulators {
            validate_accumulator(h, a)?;
        }
        Ok(())
    }
}

impl Description {
    /// A hydraulic motor: its ports, its joint and its numbers.
    fn validate_motor(&self, h: &Hydraulics, m: &super::Motor) -> Result<(), DescriptionError> {
        let loc = format!("motor '{}'", m.name);
        let loc = loc.as_str();
        for (field, name) in [("port_a", &m.port_a), ("port_b", &m.port_b)] {
            if !h.is_volume(name) && !h.is_source(name) {
                return Err(invalid(loc, format!("{field} '{name}' is not a hydraulic volume or source")));
            }
        }
        if m.port_a == m.port_b {
            return Err(invalid(loc, "port_a and port_b are the same node (the motor would pass its flow to itself)"));
        }
        if !h.is_volume(&m.port_a) && !h.is_volume(&m.port_b) {
            return Err(invalid(
                loc,
                "port_a and port_b are both sources: the motor's flow would change no state (give one port a volume)",
            ));
        }
        match self.joints.iter().find(|j| j.name == m.joint) {
            None => {
                return Err(invalid(loc, format!("joint '{}' is not a joint of this model", m.joint)));
            }
            Some(j) if j.kind != JointKind::Revolute => {
                return Err(invalid(
                    loc,
                    format!(
                        "joint '{}' is a {} joint: a motor turns a revolute joint",
                        m.joint,
                        format!("{:?}", j.kind).to_lowercase()
                    ),
                ));
            }
            Some(_) => {}
        }
        check(loc, "displacement", m.displacement, m.displacement > 0.0, "must be positive and finite")?;
        check(
            loc,
            "leakage_coefficient",
            m.leakage_coefficient,
            m.leakage_coefficient >= 0.0,
            "must be finite and >= 0",
        )?;
        for (field, eta) in [
            ("volumetric_efficiency", m.volumetric_efficiency),
            ("hydromechanical_efficiency", m.hydromechanical_efficiency),
        ] {
            check(loc, field, eta, eta > 0.0 && eta <= 1.0, "must lie in (0, 1]")?;
        }
        check(loc, "viscous_friction", m.viscous_friction, m.viscous_friction >= 0.0, "must be finite and >= 0")
    }
}

/// Largest polytropic exponent accepted (nitrogen's adiabatic exponent is 1.4; real gases at
/// high pressure exceed it a little).
const MAX_POLYTROPIC_EXPONENT: f64 = 2.0;

fn validate_accumulator(h: &Hydraulics, a: &Accumulator) -> Result<(), DescriptionError> {
    let loc = format!("accumulator '{}'", a.name);
    let loc = loc.as_str();
    if !h.is_volume(&a.node) && !h.is_source(&a.node) {
        return Err(invalid(loc, format!("node '{}' is not a hydraulic volume or source", a.node)));
    }
    let p0 = a.precharge_pressure;
    check(loc, "precharge_pressure", p0, p0 > 0.0, "must be positive and finite (an absolute gas pressure, Pa)")?;
    check(loc, "volume", a.volume, a.volume > 0.0, "must be positive and finite (the gas volume at pre-charge, m3)")?;
    let n = a.polytropic_exponent;
    check(
        loc,
        "polytropic_exponent",
        n,
        (1.0..=MAX_POLYTROPIC_EXPONENT).contains(&n),
        "must lie in [1, 2] (1 isothermal, 1.4 adiabatic nitrogen)",
    )?;
    check(loc, "max_pressure", a.max_pressure, a.max_pressure.is_finite(), "must be finite")?;
    if a.max_pressure <= p0 {
        return Err(invalid(
            loc,
            format!(
                "precharge_pressure {p0} Pa must lie below max_pressure {} Pa (the accumulator would never take oil in its working range)",
                a.max_pressure
            ),
        ));
    }
    // The gas law's pressure where the gas volume reaches the stop.
    let stop = p0 * MIN_GAS_FRACTION.powf(-n);
    if a.max_pressure > stop {
        return Err(invalid(
            loc,
            format!(
                "max_pressure {} Pa is above {stop:.4e} Pa, where the gas would be compressed to {} of its pre-charge volume (the stop); raise precharge_pressure",
                a.max_pressure, MIN_GAS_FRACTION
            ),
        ));
    }
    match (a.inlet_conductance, a.rated_flow, a.rated_pressure_drop) {
        (Some(g), None, None) => check(loc, "inlet_conductance", g, g > 0.0, "must be positive and finite")?,
        (None, Some(q), Some(dp)) => {
            check(loc, "rated_flow", q, q > 0.0, "must be positive and finite")?;
            check(loc, "rated_pressure_drop", dp, dp > 0.0, "must be positive and finite")?;
        }
        _ => {
            return Err(invalid(
                loc,
                "give either inlet_conductance (m3/(s.Pa)) or rated_flow with rated_pressure_drop (the inlet's laminar conductance)",
            ))
        }
    }
    if let Some(p) = a.initial_pressure {
        check(
            loc,
            "initial_pressure",
            p,
            p >= p0 && p <= a.max_pressure,
            &format!("must lie between precharge_pressure {p0} Pa and max_pressure {} Pa", a.max_pressure),
        )?;
    }
    Ok(())
}
