//! Checks a description before anything is built from it. Every error names what is wrong
//! and where, so that a user can fix their model file.

use super::{
    AngularVelocity, Body, Description, Driver, Force, Joint, JointCoordinate, JointKind, Motion, Orientation, GROUND,
};
use std::collections::HashSet;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum DescriptionError {
    /// The JSON could not be read (syntax, unknown or missing field, wrong type).
    Syntax(String),
    /// The JSON was read but describes something impossible.
    Invalid { location: String, reason: String },
}

impl fmt::Display for DescriptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DescriptionError::Syntax(e) => write!(f, "model description could not be read: {e}"),
            DescriptionError::Invalid { location, reason } => write!(f, "{location}: {reason}"),
        }
    }
}

impl std::error::Error for DescriptionError {}

pub(super) fn invalid(location: impl Into<String>, reason: impl Into<String>) -> DescriptionError {
    DescriptionError::Invalid { location: location.into(), reason: reason.into() }
}

/// A C identifier (FMI modelIdentifier, and each part of a structured variable name).
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn finite3(v: &[f64; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}

pub(super) fn norm3(v: &[f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

pub(super) fn check_vector(location: &str, what: &str, v: &[f64; 3]) -> Result<(), DescriptionError> {
    if !finite3(v) {
        return Err(invalid(location, format!("{what} {v:?} is not finite")));
    }
    Ok(())
}

fn check_axis(location: &str, what: &str, v: &[f64; 3]) -> Result<(), DescriptionError> {
    check_vector(location, what, v)?;
    if norm3(v) < 1e-12 {
        return Err(invalid(location, format!("{what} {v:?} is a zero vector")));
    }
    Ok(())
}

impl Description {
    /// Checks names, references, physical plausibility and the interface.
    pub fn validate(&self) -> Result<(), DescriptionError> {
        self.validate_against(None)
    }

    /// [`Description::validate`] given `json`, this description serialized
    /// (`serde_json::to_value`): the document parameter paths address, for callers that keep
    /// it anyway.
    pub fn validate_serialized(&self, json: &serde_json::Value) -> Result<(), DescriptionError> {
        self.validate_against(Some(json))
    }

    /// Serializes the description for its parameter paths only when `json` is not given and
    /// some parameter has a path.
    fn validate_against(&self, json: Option<&serde_json::Value>) -> Result<(), DescriptionError> {
        if !is_identifier(&self.name) {
            return Err(invalid(
                "model",
                format!("name '{}' must be a C identifier (letters, digits, '_')", self.name),
            ));
        }
        check_vector("model", "gravity", &self.gravity)?;
        if let Some(plane) = &self.plane {
            check_axis("model", "plane normal", &plane.normal)?;
        }
        if self.bodies.is_empty() && self.beams.is_empty() && self.hydraulics.is_none() {
            return Err(invalid("model", "there are no bodies, beams or hydraulic circuit"));
        }
        let mut names = HashSet::new();
        for (kind, name) in self
            .bodies
            .iter()
            .map(|b| ("body", b.name.as_str()))
            .chain(self.joints.iter().map(|j| ("joint", j.name.as_str())))
            .chain(self.drivers.iter().map(|d| ("driver", d.name.as_str())))
            .chain(self.forces.iter().map(|f| ("force", f.name())))
            .chain(self.beams.iter().map(|b| ("beam", b.name.as_str())))
            .chain(self.hydraulic_names())
        {
            if !is_identifier(name) || name == GROUND {
                return Err(invalid(
                    format!("{kind} '{name}'"),
                    format!("the name must be a C identifier other than '{GROUND}'"),
                ));
            }
            if !names.insert(name) {
                return Err(invalid(
                    format!("{kind} '{name}'"),
                    "the name is used twice (bodies, joints, drivers, forces and hydraulic components share one namespace)",
                ));
            }
        }
        for b in &self.bodies {
            b.validate()?;
        }
        for j in &self.joints {
            self.validate_joint(j)?;
        }
        for d in &self.drivers {
            self.validate_driver(d)?;
        }
        for f in &self.forces {
            self.validate_force(f)?;
        }
        self.validate_beams()?;
        self.validate_hydraulics()?;
        self.validate_interface(json)?;
        let e = &self.experiment;
        if !(e.start.is_finite() && e.stop.is_finite() && e.stop > e.start) {
            return Err(invalid("experiment", format!("stop time {} must be after start time {}", e.stop, e.start)));
        }
        if !(e.step.is_finite() && e.step > 0.0) {
            return Err(invalid("experiment", format!("communication step {} must be positive", e.step)));
        }
        let s = &self.solver;
        if !(s.step_size.is_finite() && s.step_size > 0.0) {
            return Err(invalid("solver", format!("step_size {} must be positive", s.step_size)));
        }
        if !(s.tolerance.is_finite() && s.tolerance > 0.0) {
            return Err(invalid("solver", format!("tolerance {} must be positive", s.tolerance)));
        }
        if s.max_iterations == 0 {
            return Err(invalid("solver", "max_iterations must be at least 1"));
        }
        if !(0.0..=1.0).contains(&s.rho_inf) {
            return Err(invalid("solver", format!("rho_inf {} must lie in [0, 1]", s.rho_inf)));
        }
        s.method.check_rho_inf(s.rho_inf).map_err(|e| invalid("solver", e))?;
        if !(s.penalty.is_finite() && s.penalty > 0.0) {
            return Err(invalid("solver", format!("penalty {} must be positive", s.penalty)));
        }
        if !(s.pressure_tolerance.is_finite() && s.pressure_tolerance > 0.0) {
            return Err(invalid("solver", format!("pressure_tolerance {} must be positive", s.pressure_tolerance)));
        }
        self.validate_formulation()?;
        Ok(())
    }

    pub(super) fn body_ref(
        &self,
        location: &str,
        field: &str,
        name: &str,
        allow_ground: bool,
    ) -> Result<(), DescriptionError> {
        if name == GROUND {
            return if allow_ground { Ok(()) } else { Err(invalid(location, format!("{field} cannot be '{GROUND}'"))) };
        }
        if self.body_index(name).is_none() {
            return Err(invalid(location, format!("{field} '{name}' is not a body of this model")));
        }
        Ok(())
    }

    /// A body or a beam node (`<beam>.node<i>`, `<beam>.start`, `<beam>.end`).
    pub(super) fn attachment_ref(
        &self,
        location: &str,
        field: &str,
        name: &str,
        allow_ground: bool,
    ) -> Result<(), DescriptionError> {
        if name == GROUND || self.body_index(name).is_some() {
            return self.body_ref(location, field, name, allow_ground);
        }
        if let Some((beam, _)) = name.split_once('.') {
            if let Some(b) = self.beam_index(beam) {
                if self.node_ref(name).is_none() {
                    let n = self.beams[b].element_count();
                    return Err(invalid(
                        location,
                        format!("{field} '{name}' is not a node of beam '{beam}' (nodes: {beam}.node0 .. {beam}.node{n}, {beam}.start, {beam}.end)"),
                    ));
                }
                return Ok(());
            }
        }
        Err(invalid(location, format!("{field} '{name}' is not a body or beam node of this model")))
    }

    fn validate_joint(&self, j: &Joint) -> Result<(), DescriptionError> {
        let loc = format!("joint '{}' ({})", j.name, format!("{:?}", j.kind).to_lowercase());
        let loc = loc.as_str();
        self.attachment_ref(loc, "body1", &j.body1, true)?;
        self.attachment_ref(loc, "body2", &j.body2, true)?;
        if j.body1 == j.body2 {
            return Err(invalid(loc, format!("body1 and body2 are both '{}'", j.body1)));
        }
        let need = |field: &str, v: Option<[f64; 3]>, is_axis: bool| -> Result<(), DescriptionError> {
            match v {
                None => Err(invalid(loc, format!("'{field}' is required for this joint type"))),
                Some(v) if is_axis => check_axis(loc, field, &v),
                Some(v) => check_vector(loc, field, &v),
            }
        };
        let forbid = |field: &str, present: bool| -> Result<(), DescriptionError> {
            if present {
                Err(invalid(loc, format!("'{field}' does not apply to this joint type")))
            } else {
                Ok(())
            }
        };
        match j.kind {
            JointKind::Revolute if self.plane.is_some() => {
                need("point", j.point, false)?;
                if let Some(a) = j.axis {
                    check_axis(loc, "axis", &a)?;
                }
            }
            JointKind::Revolute | JointKind::Translational | JointKind::Cylindrical => {
                need("point", j.point, false)?;
                need("axis", j.axis, true)?;
            }
            JointKind::Spherical | JointKind::Fixed => need("point", j.point, false)?,
            JointKind::Universal => {
                need("point", j.point, false)?;
                need("axis1", j.axis1, true)?;
                need("axis2", j.axis2, true)?;
                let (a, b) = (j.axis1.unwrap(), j.axis2.unwrap());
                let cos = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (norm3(&a) * norm3(&b));
                // Small deviations (rounded CAD data) are removed by assembly.
                if cos.abs() > 1e-3 {
                    return Err(invalid(loc, format!("axis1 and axis2 must be perpendicular (cosine {cos:.3e})")));
                }
            }
            JointKind::Distance => {
                need("point1", j.point1, false)?;
                need("point2", j.point2, false)?;
                if let Some(l) = j.length {
                    if !(l.is_finite() && l > 0.0) {
                        return Err(invalid(loc, format!("length {l} must be positive")));
                    }
                }
            }
        }
        let distance = j.kind == JointKind::Distance;
        forbid("point", distance && j.point.is_some())?;
        forbid("point1/point2", !distance && (j.point1.is_some() || j.point2.is_some()))?;
        forbid("length", !distance && j.length.is_some())?;
        forbid("axis1/axis2", j.kind != JointKind::Universal && (j.axis1.is_some() || j.axis2.is_some()))?;
        forbid(
            "axis",
            matches!(j.kind, JointKind::Spherical | JointKind::Fixed | JointKind::Universal | JointKind::Distance)
                && j.axis.is_some(),
        )?;
        if !j.initial_coordinate.is_finite() {
            return Err(invalid(loc, "initial_coordinate is not finite"));
        }
        if let Some(plane) = &self.plane {
            let n = plane.normal;
            let along = |a: &[f64; 3]| (a[0] * n[0] + a[1] * n[1] + a[2] * n[2]) / (norm3(a) * norm3(&n));
            match j.kind {
                JointKind::Revolute => {
                    if j.axis.is_some_and(|a| (along(&a).abs() - 1.0).abs() > 1e-9) {
                        return Err(invalid(loc, "in a planar mechanism the axis must be the plane normal (or omitted)"));
                    }
                }
                JointKind::Translational => {
                    if j.axis.is_some_and(|a| along(&a).abs() > 1e-9) {
                        return Err(invalid(loc, "in a planar mechanism the sliding axis must lie in the plane"));
                    }
                }
                JointKind::Fixed | JointKind::Distance => {}
                _ => return Err(invalid(loc, "this joint type is not available in a planar mechanism (use revolute, translational, fixed or distance)")),
            }
        }
        if let Some(f) = &j.friction {
            if j.kind != JointKind::Translational {
                return Err(invalid(loc, "friction is only modelled in translational joints"));
            }
            if !(f.coefficient.is_finite() && f.coefficient >= 0.0) {
                return Err(invalid(loc, format!("friction coefficient {} must be >= 0", f.coefficient)));
            }
            if !(f.zero_speed.is_finite() && f.zero_speed >= 0.0) {
                return Err(invalid(loc, format!("friction zero_speed {} must be >= 0", f.zero_speed)));
            }
        }
        Ok(())
    }

    fn validate_driver(&self, d: &Driver) -> Result<(), DescriptionError> {
        let loc = format!("driver '{}'", d.name);
        let joint = self
            .joints
            .iter()
            .find(|j| j.name == d.joint)
            .ok_or_else(|| invalid(&loc, format!("joint '{}' is not a joint of this model", d.joint)))?;
        let coord = driven_coordinate(joint.kind, d.coordinate)
            .map_err(|reason| invalid(&loc, format!("joint '{}': {reason}", joint.name)))?;
        let _ = coord;
        self.validate_motion(&loc, &d.motion)
    }

    fn validate_motion(&self, loc: &str, m: &Motion) -> Result<(), DescriptionError> {
        let finite = |xs: &[f64]| xs.iter().all(|x| x.is_finite());
        match m {
            Motion::ConstantRate { initial, rate } if !finite(&[*initial, *rate]) => {
                Err(invalid(loc, "motion values must be finite"))
            }
            Motion::Polynomial { coefficients } if coefficients.is_empty() || !finite(coefficients) => {
                Err(invalid(loc, "polynomial motion needs at least one finite coefficient"))
            }
            Motion::Harmonic { offset, amplitude, frequency, phase }
                if !finite(&[*offset, *amplitude, *frequency, *phase]) =>
            {
                Err(invalid(loc, "motion values must be finite"))
            }
            Motion::SmoothStep { t0, t1, from, to } => {
                if !finite(&[*t0, *t1, *from, *to]) || t1 <= t0 {
                    Err(invalid(loc, format!("smooth step needs finite values and t1 > t0 (t0 {t0}, t1 {t1})")))
                } else {
                    Ok(())
                }
            }
            Motion::Piecewise { segments } => {
                if segments.is_empty() {
                    return Err(invalid(loc, "piecewise motion has no segments"));
                }
                for pair in segments.windows(2) {
                    if pair[1].until <= pair[0].until {
                        return Err(invalid(loc, "piecewise segments must have increasing 'until' times"));
                    }
                }
                for s in segments {
                    if matches!(s.motion, Motion::InputRate { .. } | Motion::Piecewise { .. }) {
                        return Err(invalid(loc, "piecewise segments cannot be input-driven or piecewise themselves"));
                    }
                    self.validate_motion(loc, &s.motion)?;
                }
                Ok(())
            }
            Motion::CosineRamp { t0, duration, from, to } => {
                if !finite(&[*t0, *duration, *from, *to]) || *duration <= 0.0 {
                    Err(invalid(
                        loc,
                        format!("cosine ramp needs finite values and a positive duration (got {duration})"),
                    ))
                } else {
                    Ok(())
                }
            }
            Motion::SpeedRamps { initial, ramps } => {
                if !initial.is_finite() || ramps.is_empty() {
                    return Err(invalid(loc, "speed ramps need a finite initial value and at least one ramp"));
                }
                let mut end = f64::NEG_INFINITY;
                for (i, r) in ramps.iter().enumerate() {
                    if !finite(&[r.start, r.duration, r.rate]) || r.duration <= 0.0 {
                        return Err(invalid(
                            loc,
                            format!("speed ramp {i} needs finite values and a positive duration"),
                        ));
                    }
                    if r.start < end {
                        return Err(invalid(
                            loc,
                            format!("speed ramp {i} starts at {} before ramp {} ends at {end}", r.start, i - 1),
                        ));
                    }
                    end = r.start + r.duration;
                }
                Ok(())
            }
            Motion::Sum { terms } => {
                if terms.is_empty() {
                    return Err(invalid(loc, "a sum motion needs at least one term"));
                }
                for term in terms {
                    if matches!(term, Motion::InputRate { .. } | Motion::Piecewise { .. } | Motion::Sum { .. }) {
                        return Err(invalid(
                            loc,
                            "the terms of a sum motion cannot be input-driven, piecewise or sums",
                        ));
                    }
                    self.validate_motion(loc, term)?;
                }
                Ok(())
            }
            Motion::InputRate { input, initial } => {
                if self.input_index(input).is_none() {
                    return Err(invalid(loc, format!("input '{input}' is not declared in interface.inputs")));
                }
                if !initial.is_finite() {
                    return Err(invalid(loc, "initial value must be finite"));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn validate_force(&self, f: &Force) -> Result<(), DescriptionError> {
        let loc = format!("force '{}'", f.name());
        let loc = loc.as_str();
        if let Some(input) = f.input() {
            if self.input_index(input).is_none() {
                return Err(invalid(loc, format!("input '{input}' is not declared in interface.inputs")));
            }
        }
        let nonneg = |what: &str, v: f64| -> Result<(), DescriptionError> {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(invalid(loc, format!("{what} {v} must be finite and >= 0")))
            }
        };
        match f {
            Force::Tsda { body1, body2, point1, point2, stiffness, damping, rest_length, actuator, .. } => {
                self.attachment_ref(loc, "body1", body1, true)?;
                self.attachment_ref(loc, "body2", body2, true)?;
                if body1 == body2 {
                    return Err(invalid(loc, "body1 and body2 are the same"));
                }
                check_vector(loc, "point1", point1)?;
                check_vector(loc, "point2", point2)?;
                let d = [point2[0] - point1[0], point2[1] - point1[1], point2[2] - point1[2]];
                if norm3(&d) < 1e-12 {
                    return Err(invalid(loc, "point1 and point2 coincide: the spring direction is undefined"));
                }
                nonneg("stiffness", *stiffness)?;
                nonneg("damping", *damping)?;
                if let Some(l0) = rest_length {
                    nonneg("rest_length", *l0)?;
                }
                if !actuator.is_finite() {
                    return Err(invalid(loc, "actuator force is not finite"));
                }
            }
            Force::Rsda { joint, stiffness, damping, rest_angle, actuator, .. } => {
                let j = self
                    .joints
                    .iter()
                    .find(|j| &j.name == joint)
                    .ok_or_else(|| invalid(loc, format!("joint '{joint}' is not a joint of this model")))?;
                if !matches!(j.kind, JointKind::Revolute | JointKind::Cylindrical) {
                    return Err(invalid(loc, format!("joint '{joint}' must be revolute or cylindrical")));
                }
                nonneg("stiffness", *stiffness)?;
                nonneg("damping", *damping)?;
                if !(rest_angle.unwrap_or(0.0).is_finite() && actuator.is_finite()) {
                    return Err(invalid(loc, "rest_angle and actuator must be finite"));
                }
            }
            Force::Load { body, direction, point, value, .. } => {
                self.attachment_ref(loc, "body", body, false)?;
                check_axis(loc, "direction", direction)?;
                if let Some(p) = point {
                    check_vector(loc, "point", p)?;
                }
                if !value.is_finite() {
                    return Err(invalid(loc, "value is not finite"));
                }
            }
            Force::Torque { body, axis, value, .. } => {
                self.attachment_ref(loc, "body", body, false)?;
                check_axis(loc, "axis", axis)?;
                if !value.is_finite() {
                    return Err(invalid(loc, "value is not finite"));
                }
            }
            Force::Actuator { body1, body2, point1, point2, value, .. } => {
                self.attachment_ref(loc, "body1", body1, true)?;
                self.attachment_ref(loc, "body2", body2, true)?;
                if body1 == body2 {
                    return Err(invalid(loc, "body1 and body2 are the same"));
                }
                check_vector(loc, "point1", point1)?;
                check_vector(loc, "point2", point2)?;
                let d = [point2[0] - point1[0], point2[1] - point1[1], point2[2] - point1[2]];
                if norm3(&d) < 1e-12 {
                    return Err(invalid(loc, "point1 and point2 coincide: the force direction is undefined"));
                }
                if !value.is_finite() {
                    return Err(invalid(loc, "value is not finite"));
                }
            }
        }
        Ok(())
    }

    fn validate_interface(&self, json: Option<&serde_json::Value>) -> Result<(), DescriptionError> {
        let serialized;
        let json = match json {
            Some(json) => json,
            None if self.interface.parameters.iter().any(|p| p.path.is_some()) => {
                serialized = serde_json::to_value(self).map_err(|e| DescriptionError::Syntax(e.to_string()))?;
                &serialized
            }
            None => &serde_json::Value::Null,
        };
        let mut names = HashSet::new();
        let valid_name = |kind: &str, name: &str| -> Result<(), DescriptionError> {
            if name.split('.').all(is_identifier) && !name.starts_with("solver.") && name != "time" {
                Ok(())
            } else {
                Err(invalid(
                    format!("interface {kind} '{name}'"),
                    "names are dot-separated C identifiers and may not be 'time' or start with 'solver.'",
                ))
            }
        };
        for p in &self.interface.parameters {
            valid_name("parameter", &p.name)?;
            if !names.insert(p.name.as_str()) {
                return Err(invalid(format!("interface parameter '{}'", p.name), "the name is used twice"));
            }
            let location = format!("interface parameter '{}'", p.name);
            let value = match (&p.path, p.value) {
                (Some(path), None) => super::get_number(json, path).map_err(|e| invalid(&location, e.to_string()))?,
                (None, Some(value)) => value,
                _ => {
                    return Err(invalid(
                        location,
                        "give either \"path\" (a number of the description) or \"value\" (a named parameter for expressions)",
                    ))
                }
            };
            check_bounds(&format!("interface parameter '{}'", p.name), value, p.min, p.max)?;
        }
        for i in &self.interface.inputs {
            valid_name("input", &i.name)?;
            if !names.insert(i.name.as_str()) {
                return Err(invalid(format!("interface input '{}'", i.name), "the name is used twice"));
            }
            check_bounds(&format!("interface input '{}'", i.name), i.start, i.min, i.max)?;
        }
        for o in &self.interface.outputs {
            use super::OutputSpec::*;
            match o {
                Body { body, .. } => self.body_ref("interface outputs", "body", body, false)?,
                Node { node, .. } => {
                    self.attachment_ref("interface outputs", "node", node, false)?;
                    if self.node_ref(node).is_none() {
                        return Err(invalid("interface outputs", format!("node '{node}' is a body, not a beam node")));
                    }
                }
                Joint { joint, .. } if self.joint_index(joint).is_none() => {
                    return Err(invalid("interface outputs", format!("joint '{joint}' is not a joint of this model")))
                }
                Driver { driver, .. } if self.driver_index(driver).is_none() => {
                    return Err(invalid(
                        "interface outputs",
                        format!("driver '{driver}' is not a driver of this model"),
                    ))
                }
                Force { force, .. } if self.force_index(force).is_none() => {
                    return Err(invalid(
                        "interface outputs",
                        format!("force '{force}' is not a force element of this model"),
                    ))
                }
                Volume { volume, .. } if self.volume_index(volume).is_none() => {
                    return Err(invalid(
                        "interface outputs",
                        format!("volume '{volume}' is not a hydraulic volume of this model"),
                    ))
                }
                Valve { valve, .. } if self.valve_index(valve).is_none() => {
                    return Err(invalid("interface outputs", format!("valve '{valve}' is not a valve of this model")))
                }
                Cylinder { cylinder, .. } if self.cylinder_index(cylinder).is_none() => {
                    return Err(invalid(
                        "interface outputs",
                        format!("cylinder '{cylinder}' is not a hydraulic cylinder of this model"),
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

fn check_bounds(location: &str, value: f64, min: Option<f64>, max: Option<f64>) -> Result<(), DescriptionError> {
    if !value.is_finite() {
        return Err(invalid(location, format!("value {value} is not finite")));
    }
    if let Some(lo) = min {
        if value < lo {
            return Err(invalid(location, format!("value {value} is below min {lo}")));
        }
    }
    if let Some(hi) = max {
        if value > hi {
            return Err(invalid(location, format!("value {value} is above max {hi}")));
        }
    }
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            return Err(invalid(location, format!("min {lo} exceeds max {hi}")));
        }
    }
    Ok(())
}

/// The coordinate a driver on a joint of kind `kind` prescribes.
pub fn driven_coordinate(kind: JointKind, requested: Option<JointCoordinate>) -> Result<JointCoordinate, String> {
    match (kind, requested) {
        (JointKind::Revolute, None | Some(JointCoordinate::Rotation)) => Ok(JointCoordinate::Rotation),
        (JointKind::Translational, None | Some(JointCoordinate::Translation)) => Ok(JointCoordinate::Translation),
        (JointKind::Cylindrical, Some(c)) => Ok(c),
        (JointKind::Cylindrical, None) => Err("a cylindrical joint needs 'coordinate': rotation or translation".into()),
        (k, _) => Err(format!("a {k:?} joint has no coordinate that can be driven").to_lowercase()),
    }
}

impl Body {
    fn validate(&self) -> Result<(), DescriptionError> {
        let loc = format!("body '{}'", self.name);
        let loc = loc.as_str();
        if !(self.mass.is_finite() && self.mass > 0.0) {
            return Err(invalid(loc, format!("mass {} must be positive and finite", self.mass)));
        }
        let j = self.inertia.matrix();
        for (r, row) in j.iter().enumerate() {
            for (c, &v) in row.iter().enumerate() {
                if !v.is_finite() || (j[c][r] - v).abs() > 1e-12 * (1.0 + v.abs()) {
                    return Err(invalid(loc, "inertia must be a finite symmetric matrix"));
                }
            }
        }
        // Positive definite (Sylvester) and physically realizable (triangle inequality on the
        // principal moments, checked on the diagonal, which holds in any frame).
        let d1 = j[0][0];
        let d2 = j[0][0] * j[1][1] - j[0][1] * j[1][0];
        let d3 = j[0][0] * (j[1][1] * j[2][2] - j[1][2] * j[2][1]) - j[0][1] * (j[1][0] * j[2][2] - j[1][2] * j[2][0])
            + j[0][2] * (j[1][0] * j[2][1] - j[1][1] * j[2][0]);
        if !(d1 > 0.0 && d2 > 0.0 && d3 > 0.0) {
            return Err(invalid(loc, format!("inertia {:?} is not positive definite", self.inertia)));
        }
        let (a, b, c) = (j[0][0], j[1][1], j[2][2]);
        let slack = 1e-9 * (a + b + c);
        if a + b < c - slack || b + c < a - slack || a + c < b - slack {
            return Err(invalid(
                loc,
                format!("inertia {:?} violates the triangle inequality Jxx + Jyy >= Jzz", self.inertia),
            ));
        }
        check_vector(loc, "position", &self.position)?;
        check_vector(loc, "velocity", &self.velocity)?;
        match &self.angular_velocity {
            AngularVelocity::Global(w) | AngularVelocity::Body { body: w } => check_vector(loc, "angular_velocity", w)?,
        }
        match &self.orientation {
            Orientation::Matrix(m) => {
                let mut worst = 0.0f64;
                for r in 0..3 {
                    for s in 0..3 {
                        let dot: f64 = (0..3).map(|k| m[r][k] * m[s][k]).sum();
                        worst = worst.max((dot - if r == s { 1.0 } else { 0.0 }).abs());
                    }
                }
                if !worst.is_finite() || worst > 1e-6 {
                    return Err(invalid(loc, format!("orientation matrix is not orthonormal (error {worst:.2e})")));
                }
                let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                    - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                    + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
                if det < 0.0 {
                    return Err(invalid(loc, "orientation matrix is a reflection (determinant -1)"));
                }
            }
            Orientation::AxisAngle { axis, angle } => {
                check_axis(loc, "orientation axis", axis)?;
                if !angle.is_finite() {
                    return Err(invalid(loc, "orientation angle is not finite"));
                }
            }
        }
        Ok(())
    }
}
