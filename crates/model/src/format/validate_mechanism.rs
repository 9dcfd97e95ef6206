//! Checks of the mechanism's bodies (mass, inertia, initial state), joints (the geometry
//! each joint type needs, planar restrictions, friction) and force elements.

use super::validate::{check_axis, check_vector, invalid, norm3, DescriptionError};
use super::{AngularVelocity, Body, Description, Force, ForcePlace, Joint, JointKind, Orientation, Shape};

impl Description {
    pub(super) fn validate_joint(&self, j: &Joint) -> Result<(), DescriptionError> {
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

    /// A force element between two points on two different bodies (a spring-damper or an
    /// actuator): both attachments exist and the points are apart, so that the `what` acting
    /// along the line through them has a direction.
    fn two_points(
        &self,
        loc: &str,
        [body1, body2]: [&str; 2],
        [point1, point2]: [&[f64; 3]; 2],
        what: &str,
    ) -> Result<(), DescriptionError> {
        self.attachment_ref(loc, "body1", body1, true)?;
        self.attachment_ref(loc, "body2", body2, true)?;
        if body1 == body2 {
            return Err(invalid(loc, "body1 and body2 are the same"));
        }
        check_vector(loc, "point1", point1)?;
        check_vector(loc, "point2", point2)?;
        let d = [point2[0] - point1[0], point2[1] - point1[1], point2[2] - point1[2]];
        if norm3(&d) < 1e-12 {
            return Err(invalid(loc, format!("point1 and point2 coincide: the {what} direction is undefined")));
        }
        Ok(())
    }

    pub(super) fn validate_force(&self, f: &Force) -> Result<(), DescriptionError> {
        let loc = format!("force '{}'", f.name());
        let loc = loc.as_str();
        if let Some(input) = f.input() {
            if self.input_index(input).is_none() {
                return Err(invalid(loc, format!("input '{input}' is not declared in interface.inputs")));
            }
        }
        match f.place() {
            ForcePlace::Line { bodies: [body1, body2], points } => {
                let what = if matches!(f, Force::Tsda { .. }) { "spring" } else { "force" };
                self.two_points(loc, [body1, body2], points, what)?;
            }
            ForcePlace::JointRotation { joint } => {
                let j = self
                    .joints
                    .iter()
                    .find(|j| j.name == joint)
                    .ok_or_else(|| invalid(loc, format!("joint '{joint}' is not a joint of this model")))?;
                if !matches!(j.kind, JointKind::Revolute | JointKind::Cylindrical) {
                    return Err(invalid(loc, format!("joint '{joint}' must be revolute or cylindrical")));
                }
            }
            ForcePlace::Point { body, direction, point } => {
                self.attachment_ref(loc, "body", body, false)?;
                check_axis(loc, "direction", direction)?;
                if let Some(p) = point {
                    check_vector(loc, "point", p)?;
                }
            }
            ForcePlace::Torque { body, axis } => {
                self.attachment_ref(loc, "body", body, false)?;
                check_axis(loc, "axis", axis)?;
            }
        }
        f.check_law().map_err(|reason| invalid(loc, reason))?;
        Ok(())
    }
}

impl Body {
    pub(super) fn validate(&self) -> Result<(), DescriptionError> {
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
        if let Some(shape) = &self.shape {
            validate_shape(loc, shape)?;
        }
        Ok(())
    }
}

/// The visual shape's sizes are positive and finite, a cylinder's axis is not zero.
fn validate_shape(loc: &str, shape: &Shape) -> Result<(), DescriptionError> {
    let positive = |field: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(invalid(loc, format!("shape {field} {v} must be positive and finite")))
        }
    };
    match shape {
        Shape::Box { size } => {
            if !size.iter().all(|v| v.is_finite() && *v > 0.0) {
                return Err(invalid(loc, format!("shape box size {size:?} must be three positive finite lengths")));
            }
        }
        Shape::Cylinder { radius, length, axis } => {
            positive("cylinder radius", *radius)?;
            positive("cylinder length", *length)?;
            check_axis(loc, "shape cylinder axis", axis)?;
        }
        Shape::Sphere { radius } => positive("sphere radius", *radius)?,
    }
    Ok(())
}
