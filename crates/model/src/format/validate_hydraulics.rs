//! Checks of the hydraulic circuit (names, references, physical values, initial pressures
//! and cylinder strokes). Errors name the component and the field.

use super::hydraulics::Cushion;
use super::keyword::Keyword;
use super::validate::{check_vector, invalid, norm3, DescriptionError};
use super::{Cylinder, Description, Hydraulics, Opening, Valve, GROUND};

/// The end cushion of throttle `loc` between `from` and `to`: a cylinder of the circuit, one
/// of its two ends, a length within its stroke, a fraction in (0, 1], and a throttle between
/// two volumes one of which holds the chamber the cushion empties.
fn check_cushion(h: &Hydraulics, loc: &str, from: &str, to: &str, c: &Cushion) -> Result<(), DescriptionError> {
    let Some(cyl) = h.cylinders.iter().find(|x| x.name == c.cylinder) else {
        let names: Vec<&str> = h.cylinders.iter().map(|x| x.name.as_str()).collect();
        return Err(invalid(
            loc,
            format!(
                "cushion.cylinder '{}' is not a cylinder of the circuit (cylinders: {})",
                c.cylinder,
                names.join(", ")
            ),
        ));
    };
    if !(c.length.is_finite() && c.length > 0.0 && c.length <= cyl.stroke) {
        return Err(invalid(
            loc,
            format!(
                "cushion.length {} m must be positive and at most the stroke {} m of cylinder '{}'",
                c.length, cyl.stroke, cyl.name
            ),
        ));
    }
    if !(c.end_fraction.is_finite() && c.end_fraction > 0.0 && c.end_fraction <= 1.0) {
        return Err(invalid(loc, format!("cushion.end_fraction {} must lie in (0, 1]", c.end_fraction)));
    }
    if !(h.is_volume(from) && h.is_volume(to)) {
        return Err(invalid(
            loc,
            "a cushioned throttle must connect two volumes (the cylinder's chamber and its port volume)",
        ));
    }
    let (chamber, side) = if c.retracted() { (&cyl.piston_side, "piston_side") } else { (&cyl.rod_side, "rod_side") };
    if from != chamber && to != chamber {
        return Err(invalid(
            loc,
            format!(
                "a cushion at the {} end throttles the outflow of cylinder '{}''s {side} volume '{chamber}': from or to must be '{chamber}'",
                c.end.word(),
                cyl.name
            ),
        ));
    }
    Ok(())
}

fn positive(loc: &str, what: &str, v: f64) -> Result<(), DescriptionError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(invalid(loc, format!("{what} {v} must be positive and finite")))
    }
}

fn non_negative(loc: &str, what: &str, v: f64) -> Result<(), DescriptionError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(invalid(loc, format!("{what} {v} must be finite and >= 0")))
    }
}

fn finite(loc: &str, what: &str, v: f64) -> Result<(), DescriptionError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(invalid(loc, format!("{what} {v} is not finite")))
    }
}

impl Hydraulics {
    /// True if `name` is a volume or a source (a node a valve can connect).
    fn is_node(&self, name: &str) -> bool {
        self.volumes.iter().any(|v| v.name == name) || self.sources.iter().any(|s| s.name == name)
    }

    /// The nodes a connection may name, for messages: "volumes: a, b; sources: c".
    fn node_names(&self) -> String {
        let list = |names: Vec<&str>| if names.is_empty() { "none".to_string() } else { names.join(", ") };
        format!(
            "volumes: {}; sources: {}",
            list(self.volumes.iter().map(|v| v.name.as_str()).collect()),
            list(self.sources.iter().map(|s| s.name.as_str()).collect())
        )
    }

    /// True if something connects to volume `name`: a throttle or valve port, a cylinder
    /// chamber or an inflow input.
    fn is_connected(&self, name: &str) -> bool {
        let valves = self.valves.iter().any(|v| v.nodes().contains(&name));
        let chambers = self.cylinders.iter().any(|c| c.piston_side == name || c.rod_side == name);
        let inflow = self.volumes.iter().any(|v| v.name == name && v.inflow_input.is_some());
        let pumps = self.pumps.iter().any(|p| p.inlet == name || p.outlet == name);
        let lines = self.lines.iter().any(|l| l.from == name || l.to == name);
        let motors = self.motors.iter().any(|m| m.port_a == name || m.port_b == name);
        let accumulators = self.accumulators.iter().any(|a| a.node == name);
        valves || chambers || inflow || pumps || lines || motors || accumulators
    }

    pub(super) fn is_volume(&self, name: &str) -> bool {
        self.volumes.iter().any(|v| v.name == name)
    }

    /// True if `name` is a source whose pressure is an FMU input.
    fn is_input_node(&self, name: &str) -> bool {
        self.sources.iter().any(|s| s.name == name && s.pressure_input.is_some())
    }

    /// Volumes whose start pressure follows from a static start: the piston side of every
    /// cylinder with `static_start` or `initial_force`, and what throttles connect to it.
    pub fn static_volumes(&self) -> Vec<bool> {
        let index = |name: &str| self.volumes.iter().position(|v| v.name == name);
        let mut marked = vec![false; self.volumes.len()];
        for c in &self.cylinders {
            if c.static_start || c.initial_force.is_some() {
                if let Some(i) = index(&c.piston_side) {
                    marked[i] = true;
                }
            }
        }
        loop {
            let mut changed = false;
            for v in &self.valves {
                if let Valve::Throttle { from, to, .. } = v {
                    if let (Some(a), Some(b)) = (index(from), index(to)) {
                        if marked[a] != marked[b] {
                            marked[a] = true;
                            marked[b] = true;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                return marked;
            }
        }
    }
}

impl Description {
    /// Names of the hydraulic components (they share the namespace of bodies and joints).
    pub(super) fn hydraulic_names(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let h = self.hydraulics.as_ref();
        let sources = h.into_iter().flat_map(|h| h.sources.iter().map(|s| ("hydraulic source", s.name.as_str())));
        let volumes = h.into_iter().flat_map(|h| h.volumes.iter().map(|v| ("hydraulic volume", v.name.as_str())));
        let valves = h.into_iter().flat_map(|h| h.valves.iter().map(|v| ("valve", v.name())));
        let cylinders = h.into_iter().flat_map(|h| h.cylinders.iter().map(|c| ("cylinder", c.name.as_str())));
        let pumps = h.into_iter().flat_map(|h| h.pumps.iter().map(|p| ("pump", p.name.as_str())));
        let lines = h.into_iter().flat_map(|h| h.lines.iter().map(|l| ("line", l.name.as_str())));
        let motors = h.into_iter().flat_map(|h| h.motors.iter().map(|m| ("motor", m.name.as_str())));
        let accumulators = h.into_iter().flat_map(|h| h.accumulators.iter().map(|a| ("accumulator", a.name.as_str())));
        sources
            .chain(volumes)
            .chain(valves)
            .chain(cylinders)
            .chain(pumps)
            .chain(lines)
            .chain(motors)
            .chain(accumulators)
    }

    fn input_ref(&self, loc: &str, field: &str, name: &str) -> Result<(), DescriptionError> {
        if self.input_index(name).is_none() {
            return Err(invalid(loc, format!("{field} '{name}' is not declared in interface.inputs")));
        }
        Ok(())
    }

    pub(super) fn validate_hydraulics(&self) -> Result<(), DescriptionError> {
        let Some(h) = &self.hydraulics else { return Ok(()) };
        positive("hydraulics.oil", "bulk_modulus", h.oil.bulk_modulus)?;
        positive("hydraulics.oil", "density", h.oil.density)?;
        let spools = h.valves.iter().any(|v| matches!(v, Valve::Directional { .. }));
        if h.volumes.is_empty() && !spools && h.accumulators.is_empty() {
            return Err(invalid(
                "hydraulics",
                "a circuit needs at least one volume or directional valve (its states), or an accumulator",
            ));
        }
        for s in &h.sources {
            let loc = format!("hydraulic source '{}'", s.name);
            match (s.pressure, &s.pressure_input) {
                (Some(p), None) => finite(&loc, "pressure", p)?,
                (None, Some(input)) => self.input_ref(&loc, "pressure_input", input)?,
                _ => return Err(invalid(&loc, "give either pressure (a constant) or pressure_input (an FMU input)")),
            }
        }
        let statics = h.static_volumes();
        for (v, is_static) in h.volumes.iter().zip(&statics) {
            let loc = format!("hydraulic volume '{}'", v.name);
            positive(&loc, "hose_volume", v.hose_volume)?;
            positive(&loc, "hose_bulk_modulus", v.hose_bulk_modulus)?;
            if let Some(input) = &v.inflow_input {
                self.input_ref(&loc, "inflow_input", input)?;
            }
            match (v.initial_pressure, is_static) {
                (Some(p), false) => finite(&loc, "initial_pressure", p)?,
                (None, false) => {
                    return Err(invalid(
                        &loc,
                        "initial_pressure is required (only volumes fed by a static-start cylinder's piston side may omit it)",
                    ))
                }
                (Some(_), true) => {
                    return Err(invalid(
                        &loc,
                        "initial_pressure must be omitted: the static start of a cylinder sets it (piston side and volumes connected to it through throttles)",
                    ))
                }
                (None, true) => {}
            }
        }
        for v in &h.valves {
            let loc = format!("valve '{}'", v.name());
            let node = |field: &str, name: &str| -> Result<(), DescriptionError> {
                if h.is_node(name) {
                    Ok(())
                } else {
                    Err(invalid(
                        &loc,
                        format!("{field} '{name}' is not a hydraulic volume or source ({})", h.node_names()),
                    ))
                }
            };
            match v {
                Valve::Throttle { from, to, discharge_coefficient, diameter, laminar_limit, cushion, .. } => {
                    node("from", from)?;
                    node("to", to)?;
                    if from == to {
                        return Err(invalid(&loc, "from and to are the same node"));
                    }
                    if !h.is_volume(from) && !h.is_volume(to) && !h.is_input_node(from) && !h.is_input_node(to) {
                        return Err(invalid(
                            &loc,
                            "a throttle between two constant-pressure sources changes no state and feeds no output",
                        ));
                    }
                    positive(&loc, "discharge_coefficient", *discharge_coefficient)?;
                    positive(&loc, "diameter", *diameter)?;
                    positive(&loc, "laminar_limit", *laminar_limit)?;
                    if let Some(cushion) = cushion {
                        check_cushion(h, &loc, from, to, cushion)?;
                    }
                }
                Valve::Relief { .. } | Valve::Check { .. } | Valve::Counterbalance { .. } => {
                    let Opening {
                        cracking_pressure,
                        full_open_pressure,
                        rated_flow,
                        rated_pressure_drop,
                        leakage,
                        laminar_limit,
                    } = v.opening().expect("a pressure valve");
                    let nodes = v.nodes();
                    for (field, name) in v.node_fields().into_iter().zip(&nodes) {
                        node(field, name)?;
                    }
                    if nodes[0] == nodes[1] {
                        return Err(invalid(
                            &loc,
                            format!("{} and {} are the same node", v.node_fields()[0], v.node_fields()[1]),
                        ));
                    }
                    non_negative(&loc, "cracking_pressure", cracking_pressure)?;
                    if !(full_open_pressure.is_finite() && full_open_pressure > cracking_pressure) {
                        return Err(invalid(
                            &loc,
                            format!("full_open_pressure {full_open_pressure} Pa must be above cracking_pressure {cracking_pressure} Pa"),
                        ));
                    }
                    positive(&loc, "rated_flow", rated_flow)?;
                    positive(&loc, "rated_pressure_drop", rated_pressure_drop)?;
                    positive(&loc, "laminar_limit", laminar_limit)?;
                    if !(leakage.is_finite() && (0.0..1.0).contains(&leakage)) {
                        return Err(invalid(
                            &loc,
                            format!("leakage {leakage} must lie in [0, 1) (a fraction of the full opening)"),
                        ));
                    }
                    self.validate_pressure_valve(h, v, &loc)?;
                }
                Valve::Directional {
                    pump,
                    tank,
                    port_a,
                    port_b,
                    flow_constant,
                    laminar_limit,
                    time_constant,
                    initial_spool,
                    reference,
                    ..
                } => {
                    for (field, name) in [("pump", pump), ("tank", tank), ("port_a", port_a), ("port_b", port_b)] {
                        node(field, name)?;
                    }
                    if port_a == port_b {
                        return Err(invalid(&loc, "port_a and port_b are the same node"));
                    }
                    non_negative(&loc, "flow_constant", *flow_constant)?;
                    positive(&loc, "laminar_limit", *laminar_limit)?;
                    positive(&loc, "time_constant", *time_constant)?;
                    finite(&loc, "initial_spool", *initial_spool)?;
                    if let Some(input) = &reference.input {
                        self.input_ref(&loc, "reference input", input)?;
                    }
                    finite(&loc, "reference work_cycle", reference.work_cycle)?;
                    for (k, c) in reference.cycle.iter().enumerate() {
                        if !(c.from.is_finite() && c.value.is_finite()) {
                            return Err(invalid(&loc, format!("reference cycle entry {k} is not finite")));
                        }
                        if k > 0 && c.from <= reference.cycle[k - 1].from {
                            return Err(invalid(&loc, "reference cycle entries must have increasing 'from' times"));
                        }
                    }
                }
            }
        }
        for c in &h.cylinders {
            self.validate_cylinder(h, c, &statics)?;
        }
        self.validate_components(h)?;
        if let Some(v) = h.volumes.iter().find(|v| !h.is_connected(&v.name)) {
            return Err(invalid(
                format!("hydraulic volume '{}'", v.name),
                "is connected to nothing: no throttle or valve port, cylinder chamber, pump, line, motor port or inflow_input names it (connect it or remove it)",
            ));
        }
        Ok(())
    }

    fn validate_cylinder(&self, h: &Hydraulics, c: &Cylinder, statics: &[bool]) -> Result<(), DescriptionError> {
        let loc = format!("cylinder '{}'", c.name);
        let loc = loc.as_str();
        for (field, name) in [("piston_side", &c.piston_side), ("rod_side", &c.rod_side)] {
            if !h.is_volume(name) {
                return Err(invalid(
                    loc,
                    format!(
                        "{field} '{name}' is not a hydraulic volume (volumes: {})",
                        h.volumes.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
        if c.piston_side == c.rod_side {
            return Err(invalid(loc, "piston_side and rod_side are the same volume"));
        }
        positive(loc, "piston_diameter", c.piston_diameter)?;
        non_negative(loc, "rod_diameter", c.rod_diameter)?;
        if c.rod_diameter >= c.piston_diameter {
            return Err(invalid(loc, "rod_diameter must be smaller than piston_diameter"));
        }
        positive(loc, "stroke", c.stroke)?;
        positive(loc, "closed_length", c.closed())?;
        positive(loc, "wall_bulk_modulus", c.wall_bulk_modulus)?;
        if let Some(f) = &c.friction {
            non_negative(loc, "friction coulomb", f.coulomb)?;
            non_negative(loc, "friction static_friction", f.static_friction)?;
            non_negative(loc, "friction viscous", f.viscous)?;
            positive(loc, "friction stribeck_velocity", f.stribeck_velocity)?;
        }
        let mechanical = [c.body1.is_some(), c.point1.is_some(), c.body2.is_some(), c.point2.is_some()];
        let external = [c.length_input.is_some(), c.velocity_input.is_some()];
        let length = if mechanical.iter().all(|&x| x) && !external.iter().any(|&x| x) {
            let (b1, b2) = (c.body1.as_deref().unwrap(), c.body2.as_deref().unwrap());
            // Cylinders push on beam nodes only where beams are (the index-3 formulation).
            if self.solver.formulation == super::Formulation::Index3 {
                self.attachment_ref(loc, "body1", b1, true)?;
                self.attachment_ref(loc, "body2", b2, true)?;
            } else {
                self.body_ref(loc, "body1", b1, true)?;
                self.body_ref(loc, "body2", b2, true)?;
            }
            if b1 == b2 || (b1 == GROUND && b2 == GROUND) {
                return Err(invalid(loc, "body1 and body2 are the same"));
            }
            let (p1, p2) = (c.point1.unwrap(), c.point2.unwrap());
            check_vector(loc, "point1", &p1)?;
            check_vector(loc, "point2", &p2)?;
            norm3(&[p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]])
        } else if external.iter().all(|&x| x) && !mechanical.iter().any(|&x| x) {
            let (li, vi) = (c.length_input.as_deref().unwrap(), c.velocity_input.as_deref().unwrap());
            self.input_ref(loc, "length_input", li)?;
            self.input_ref(loc, "velocity_input", vi)?;
            self.interface.inputs[self.input_index(li).unwrap()].start
        } else {
            return Err(invalid(
                loc,
                "give either body1, point1, body2 and point2 (attached to the mechanism) or length_input and velocity_input (driven by inputs)",
            ));
        };
        let piston_chamber = length - c.closed();
        if !(piston_chamber > 0.0 && piston_chamber < c.stroke) {
            return Err(invalid(
                loc,
                format!(
                    "the initial length {length} m must lie strictly between closed_length {} m and closed_length + stroke {} m",
                    c.closed(),
                    c.closed() + c.stroke
                ),
            ));
        }
        if c.static_start && c.initial_force.is_some() {
            return Err(invalid(loc, "give static_start or initial_force, not both"));
        }
        if c.static_start && !c.attached() {
            return Err(invalid(
                loc,
                "static_start needs a cylinder attached to the mechanism (use initial_force otherwise)",
            ));
        }
        if let Some(f) = c.initial_force {
            finite(loc, "initial_force", f)?;
        }
        if c.static_start || c.initial_force.is_some() {
            let rod = h.volumes.iter().position(|v| v.name == c.rod_side).unwrap();
            if statics[rod] {
                return Err(invalid(
                    loc,
                    "the rod-side volume is connected to the piston side through throttles, so the static start has no rod-side pressure to start from",
                ));
            }
        }
        Ok(())
    }
}
