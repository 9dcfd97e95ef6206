//! Checks of the drivers: the joint coordinate each one prescribes and its motion law.

use super::validate::{invalid, DescriptionError};
use super::{Description, Driver, JointCoordinate, JointKind, Motion};

impl Description {
    pub(super) fn validate_driver(&self, d: &Driver) -> Result<(), DescriptionError> {
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

    pub(super) fn validate_motion(&self, loc: &str, m: &Motion) -> Result<(), DescriptionError> {
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
