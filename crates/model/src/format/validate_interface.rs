//! Checks of the interface: names of parameters and inputs, their values against their
//! bounds, and the components outputs refer to.

use super::validate::{invalid, is_identifier, DescriptionError};
use super::{AnimationPart, Description, Keyword, Valve};
use std::collections::HashSet;

impl Description {
    pub(super) fn validate_interface(&self, json: Option<&serde_json::Value>) -> Result<(), DescriptionError> {
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
        for (k, o) in self.interface.outputs.iter().enumerate() {
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
                Animation { animation } => {
                    self.validate_animation(&format!("interface.outputs[{k}].animation"), animation)?
                }
                Motor { motor, .. } if self.motor_index(motor).is_none() => {
                    return Err(invalid(
                        "interface outputs",
                        format!("motor '{motor}' is not a hydraulic motor of this model"),
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl Description {
    /// The parts of the model an animation output group can name, in their declaration order:
    /// bodies if it has bodies, beams if it has beams, hydraulics if it has cylinders or
    /// directional valves.
    pub fn animation_parts(&self) -> Vec<AnimationPart> {
        let hydraulic = self.hydraulics.as_ref().is_some_and(|h| {
            !h.cylinders.is_empty() || h.valves.iter().any(|v| matches!(v, Valve::Directional { .. }))
        });
        [AnimationPart::Bodies, AnimationPart::Beams, AnimationPart::Hydraulics]
            .into_iter()
            .filter(|p| match p {
                AnimationPart::Bodies => !self.bodies.is_empty(),
                AnimationPart::Beams => !self.beams.is_empty(),
                AnimationPart::Hydraulics => hydraulic,
            })
            .collect()
    }

    /// An animation group names at least one part, and only parts the model has and its
    /// formulation outputs; `location` names the group in errors.
    pub fn validate_animation(&self, location: &str, parts: &[AnimationPart]) -> Result<(), DescriptionError> {
        let has = self.animation_parts();
        let listed = || {
            if has.is_empty() {
                "this model has none (bodies, beams, or hydraulic cylinders and directional valves)".to_string()
            } else {
                format!("this model's parts: {}", has.iter().map(|p| p.word()).collect::<Vec<_>>().join(", "))
            }
        };
        if parts.is_empty() {
            return Err(invalid(location, format!("the animation group lists no part; {}", listed())));
        }
        for &p in parts {
            if !has.contains(&p) {
                let what = match p {
                    AnimationPart::Bodies => "no bodies",
                    AnimationPart::Beams => "no beams",
                    AnimationPart::Hydraulics => "no hydraulic cylinders or directional valves",
                };
                return Err(invalid(location, format!("'{}': the model has {what}; {}", p.word(), listed())));
            }
            self.check_animation_capability(p)?;
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
