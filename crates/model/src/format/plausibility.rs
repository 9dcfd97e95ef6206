//! Sizes far outside machine scale, which mostly mean a unit mistake (a description written
//! in millimetres, pressures in bar): warnings, not errors, since an odd value may be meant.
//! `mbfmu package` prints them; a description silences kinds of them with
//! `"plausibility": {"ignore": [...]}`. The bounds are wide on purpose (a factor of about
//! 1000 from the catalog's machines), so that only a wrong unit crosses them:
//!
//! - lengths: a point (body position, joint, force, beam or cylinder point) more than 100 m
//!   from the origin; a length (beam, distance joint, free length, stop limit, stroke) over
//!   100 m or, if not zero, under 0.1 mm. Points have no lower bound: one may lie at the origin.
//! - inertias: a body's radius of gyration sqrt(trace(J) / (2 m)), the root-mean-square
//!   distance of its mass from the centre of mass (trace(J) = 2 integral r^2 dm), over 100 m or
//!   under 0.1 mm; the same for a beam section, sqrt(J11 / mass per length). Mass and inertia
//!   in different units move it by a factor of about 30 (kg against g or t) to 1000 (kg.m2
//!   against kg.mm2). Bodies have no size in a description, so this is the density check.
//! - diameters: a cylinder's bore or rod over 2 m or, if not zero, under 1 mm; a throttle's
//!   orifice over 2 m.
//! - pressures: a source's or volume's pressure below 1 kPa (if not zero) or above 1 GPa; a
//!   bulk modulus below 1 MPa (oil and hoses have 0.1 to 2 GPa, steel walls more).

use super::keyword::keyword;
use super::{Description, ForcePlace, Inertia, Valve};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

keyword! {
    /// A kind of plausibility check of sizes (the warnings of `mbfmu package`).
    pub enum PlausibilityCheck("plausibility check") {
        /// Points more than 100 m from the origin; lengths over 100 m or under 0.1 mm.
        Lengths = "lengths",
        /// Radii of gyration of bodies and beam sections (mass against inertia) over 100 m or
        /// under 0.1 mm.
        Inertias = "inertias",
        /// Cylinder bores and rods over 2 m or under 1 mm; throttle orifices over 2 m.
        Diameters = "diameters",
        /// Pressures below 1 kPa or above 1 GPa; bulk moduli below 1 MPa.
        Pressures = "pressures",
    }
}

/// Plausibility checks of sizes that this description switches off: `mbfmu package` warns
/// of values far outside machine scale (a likely unit mistake) unless their kind is listed.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plausibility {
    /// Kinds of checks not made, for a description whose odd sizes are meant.
    #[serde(default)]
    pub ignore: Vec<PlausibilityCheck>,
}

impl Plausibility {
    pub fn is_default(&self) -> bool {
        self.ignore.is_empty()
    }
}

/// A value far outside machine scale.
#[derive(Clone, Debug, PartialEq)]
pub struct PlausibilityWarning {
    pub check: PlausibilityCheck,
    /// JSON path of the value (`bodies[0].position`).
    pub path: String,
    /// The item, the value, the bound and the likely mistake.
    pub message: String,
}

impl fmt::Display for PlausibilityWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

const SI: &str = "The format is in SI units (m, kg, s, Pa)";
const MAX_LENGTH: f64 = 100.0;
const MIN_LENGTH: f64 = 1e-4;
const MAX_DIAMETER: f64 = 2.0;
const MIN_DIAMETER: f64 = 1e-3;
const MIN_PRESSURE: f64 = 1e3;
const MAX_PRESSURE: f64 = 1e9;
const MIN_BULK_MODULUS: f64 = 1e6;

/// A number with four significant digits, as the message reader needs it.
fn number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    if (1e-3..1e6).contains(&x.abs()) {
        let scale = 10f64.powi(3 - x.abs().log10().floor() as i32);
        format!("{}", (x * scale).round() / scale)
    } else {
        let text = format!("{x:.3e}");
        // 3.000e3 -> 3e3
        match text.split_once('e') {
            Some((mantissa, exponent)) => {
                format!("{}e{exponent}", mantissa.trim_end_matches('0').trim_end_matches('.'))
            }
            None => text,
        }
    }
}

fn norm(v: &[f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

fn distance(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    norm(&[b[0] - a[0], b[1] - a[1], b[2] - a[2]])
}

/// Gathers the warnings of one description, skipping the ignored kinds.
struct Findings<'a> {
    ignore: &'a [PlausibilityCheck],
    found: Vec<PlausibilityWarning>,
}

impl Findings<'_> {
    fn add(&mut self, check: PlausibilityCheck, path: String, message: String) {
        if !self.ignore.contains(&check) {
            self.found.push(PlausibilityWarning { check, path, message });
        }
    }

    fn point(&mut self, item: &str, path: String, field: &str, p: &[f64; 3]) {
        let r = norm(p);
        if r > MAX_LENGTH {
            self.add(
                PlausibilityCheck::Lengths,
                path,
                format!(
                    "{item}: {field} {} m from the origin is over {MAX_LENGTH} m: is the description in millimetres? {SI}",
                    number(r)
                ),
            );
        }
    }

    fn length(&mut self, item: &str, path: String, field: &str, l: f64) {
        if l.abs() > MAX_LENGTH {
            self.add(
                PlausibilityCheck::Lengths,
                path,
                format!(
                    "{item}: {field} {} m is over {MAX_LENGTH} m: is the description in millimetres? {SI}",
                    number(l)
                ),
            );
        } else if l != 0.0 && l.abs() < MIN_LENGTH {
            self.add(
                PlausibilityCheck::Lengths,
                path,
                format!(
                    "{item}: {field} {} m is under 0.1 mm: is it mistyped or in another unit than m? {SI}",
                    number(l)
                ),
            );
        }
    }

    /// `r`: a radius of gyration, `how`: how it was computed.
    fn gyration(&mut self, item: &str, path: String, how: &str, r: f64, units: &str) {
        if r > MAX_LENGTH {
            self.add(
                PlausibilityCheck::Inertias,
                path,
                format!(
                    "{item}: the radius of gyration {how} = {} m is over {MAX_LENGTH} m, the inertia is too large for the mass: is the inertia in {units}? {SI}",
                    number(r)
                ),
            );
        } else if r != 0.0 && r < MIN_LENGTH {
            self.add(
                PlausibilityCheck::Inertias,
                path,
                format!(
                    "{item}: the radius of gyration {how} = {} m is under 0.1 mm, the inertia is too small for the mass: is the mass in g or the inertia in another unit? {SI}",
                    number(r)
                ),
            );
        }
    }

    fn diameter(&mut self, item: &str, path: String, field: &str, d: f64, lower: bool) {
        if d > MAX_DIAMETER {
            self.add(
                PlausibilityCheck::Diameters,
                path,
                format!("{item}: {field} {} m is over {MAX_DIAMETER} m: is it in millimetres? {SI}", number(d)),
            );
        } else if lower && d != 0.0 && d < MIN_DIAMETER {
            self.add(
                PlausibilityCheck::Diameters,
                path,
                format!(
                    "{item}: {field} {} m is under 1 mm: is it mistyped or in another unit than m? {SI}",
                    number(d)
                ),
            );
        }
    }

    fn pressure(&mut self, item: &str, path: String, field: &str, p: f64) {
        if p != 0.0 && p.abs() < MIN_PRESSURE {
            self.add(
                PlausibilityCheck::Pressures,
                path,
                format!("{item}: {field} {} Pa is under 1 kPa: is it in bar or MPa? {SI}", number(p)),
            );
        } else if p.abs() > MAX_PRESSURE {
            self.add(
                PlausibilityCheck::Pressures,
                path,
                format!(
                    "{item}: {field} {} Pa is over 1 GPa (10000 bar): is it mistyped or converted to Pa twice? {SI}",
                    number(p)
                ),
            );
        }
    }

    fn bulk_modulus(&mut self, item: &str, path: String, field: &str, b: f64) {
        if b < MIN_BULK_MODULUS {
            self.add(
                PlausibilityCheck::Pressures,
                path,
                format!("{item}: {field} {} Pa is under 1 MPa: is it in bar or MPa? {SI}", number(b)),
            );
        }
    }
}

impl Description {
    /// Values far outside machine scale, with their JSON paths, except the kinds that
    /// `plausibility.ignore` lists. For a valid description (the checks assume validation).
    pub fn plausibility_warnings(&self) -> Vec<PlausibilityWarning> {
        let mut w = Findings { ignore: &self.plausibility.ignore, found: Vec::new() };
        for (i, b) in self.bodies.iter().enumerate() {
            let item = format!("body '{}'", b.name);
            w.point(&item, format!("bodies[{i}].position"), "position", &b.position);
            let j = match b.inertia {
                Inertia::Principal(j) => j,
                Inertia::Full(m) => [m[0][0], m[1][1], m[2][2]],
            };
            if b.mass > 0.0 {
                let r = ((j[0] + j[1] + j[2]) / (2.0 * b.mass)).max(0.0).sqrt();
                w.gyration(
                    &item,
                    format!("bodies[{i}].inertia"),
                    "sqrt(trace(J)/(2 m))",
                    r,
                    "kg.mm2, or the mass in t",
                );
            }
        }
        for (i, j) in self.joints.iter().enumerate() {
            let item = format!("joint '{}'", j.name);
            for (field, p) in [("point", &j.point), ("point1", &j.point1), ("point2", &j.point2)] {
                if let Some(p) = p {
                    w.point(&item, format!("joints[{i}].{field}"), field, p);
                }
            }
            if let Some(l) = j.length {
                w.length(&item, format!("joints[{i}].length"), "length", l);
            }
        }
        for (i, f) in self.forces.iter().enumerate() {
            let item = format!("force '{}'", f.name());
            match f.place() {
                ForcePlace::Line { points, .. } => {
                    w.point(&item, format!("forces[{i}].point1"), "point1", points[0]);
                    w.point(&item, format!("forces[{i}].point2"), "point2", points[1]);
                }
                ForcePlace::Point { point: Some(p), .. } => w.point(&item, format!("forces[{i}].point"), "point", p),
                _ => {}
            }
            for (field, l) in f.lengths() {
                w.length(&item, format!("forces[{i}].{field}"), field, l);
            }
        }
        for (i, b) in self.beams.iter().enumerate() {
            let item = format!("beam '{}'", b.name);
            for (k, p) in b.points.iter().enumerate() {
                w.point(&item, format!("beams[{i}].points[{k}]"), "point", p);
            }
            let length: f64 = b.points.windows(2).map(|s| distance(&s[0], &s[1])).sum();
            w.length(&item, format!("beams[{i}].points"), "length", length);
            let s = &b.section;
            if s.mass_per_length > 0.0 {
                let r = (s.inertia_per_length[0] / s.mass_per_length).max(0.0).sqrt();
                w.gyration(
                    &item,
                    format!("beams[{i}].section.inertia_per_length"),
                    "of the section sqrt(J11/mass_per_length)",
                    r,
                    "kg.mm",
                );
            }
        }
        if let Some(h) = &self.hydraulics {
            w.bulk_modulus("oil", "hydraulics.oil.bulk_modulus".into(), "bulk_modulus", h.oil.bulk_modulus);
            for (i, s) in h.sources.iter().enumerate() {
                if let Some(p) = s.pressure {
                    let item = format!("source '{}'", s.name);
                    w.pressure(&item, format!("hydraulics.sources[{i}].pressure"), "pressure", p);
                }
            }
            for (i, v) in h.volumes.iter().enumerate() {
                let item = format!("volume '{}'", v.name);
                if let Some(p) = v.initial_pressure {
                    w.pressure(&item, format!("hydraulics.volumes[{i}].initial_pressure"), "initial_pressure", p);
                }
                let path = format!("hydraulics.volumes[{i}].hose_bulk_modulus");
                w.bulk_modulus(&item, path, "hose_bulk_modulus", v.hose_bulk_modulus);
            }
            for (i, v) in h.valves.iter().enumerate() {
                if let Valve::Throttle { name, diameter, .. } = v {
                    let path = format!("hydraulics.valves[{i}].diameter");
                    w.diameter(&format!("valve '{name}'"), path, "diameter", *diameter, false);
                }
            }
            for (i, c) in h.cylinders.iter().enumerate() {
                let item = format!("cylinder '{}'", c.name);
                let at = |field: &str| format!("hydraulics.cylinders[{i}].{field}");
                w.diameter(&item, at("piston_diameter"), "piston_diameter", c.piston_diameter, true);
                w.diameter(&item, at("rod_diameter"), "rod_diameter", c.rod_diameter, true);
                w.length(&item, at("stroke"), "stroke", c.stroke);
                if let Some(l) = c.closed_length {
                    w.length(&item, at("closed_length"), "closed_length", l);
                }
                for (field, p) in [("point1", &c.point1), ("point2", &c.point2)] {
                    if let Some(p) = p {
                        w.point(&item, at(field), field, p);
                    }
                }
                w.bulk_modulus(&item, at("wall_bulk_modulus"), "wall_bulk_modulus", c.wall_bulk_modulus);
            }
        }
        w.found
    }
}

/// `warning` with ` (line L, column C)` of its path in `json`, the text it was read from.
pub fn located(warning: &PlausibilityWarning, json: &str) -> String {
    match super::locate::position(json, &super::locate::steps(&warning.path)) {
        Some((line, column)) => format!("{warning} (line {line}, column {column})"),
        None => warning.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_have_four_significant_digits() {
        assert_eq!(number(3000.0), "3000");
        assert_eq!(number(0.123456), "0.1235");
        assert_eq!(number(5e-5), "5e-5");
        assert_eq!(number(7.6e9), "7.6e9");
        assert_eq!(number(-2.5), "-2.5");
    }
}
