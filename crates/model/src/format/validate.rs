//! Checks a description before anything is built from it. Every error names what is wrong
//! and where, so that a user can fix their model file. This file holds the error type, the
//! shared checks, the model-wide checks and their order; the parts are checked in
//! `validate_mechanism.rs`, `validate_drivers.rs`, `validate_hydraulics.rs`,
//! `validate_interface.rs`, `beam.rs` and `dof.rs`.

use super::{Description, Formulation, GROUND};
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

pub(super) fn check_axis(location: &str, what: &str, v: &[f64; 3]) -> Result<(), DescriptionError> {
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
        self.validate_capabilities()?;
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
        if s.keep_iteration_matrix && s.formulation != Formulation::Index3 {
            return Err(invalid(
                "solver",
                format!(
                    "keep_iteration_matrix applies to the index3 formulation's implicit methods; formulation {} has no iteration matrix to keep (remove the field or set formulation to index3)",
                    s.formulation.name()
                ),
            ));
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
}
