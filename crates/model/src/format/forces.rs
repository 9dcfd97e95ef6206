//! Applied force elements. Points and directions are global at the initial configuration.

use super::tagged::{tagged, Kinds};

const FORCES: Kinds = Kinds {
    what: "force type",
    tag: Some("type"),
    words: &["tsda", "rsda", "force", "torque", "actuator", "end_stop"],
    hint: |word| match word {
        "gravity" => Some("gravity is the top-level field `gravity` (a vector in m/s2), not a force"),
        "spring" | "damper" | "spring_damper" => {
            Some("a translational spring-damper is 'tsda', a rotational one 'rsda'")
        }
        _ => None,
    },
};

tagged! {
    /// Applied force elements.
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Force reads ForceTwin as "Force" (FORCES) {
        /// Translational spring-damper-actuator between two points (global, initial configuration).
        /// Tension f = k (l - l0) + c l' + actuator (+ input) pulls the points together.
        Tsda {
            /// Unique name (a C identifier); outputs refer to it.
            name: String,
            /// Body (or beam node, or `ground`) of point1.
            body1: String,
            /// Body (or beam node, or `ground`) of point2.
            body2: String,
            /// Attachment on body1, global \[m\].
            point1: [f64; 3],
            /// Attachment on body2, global \[m\].
            point2: [f64; 3],
            /// Stiffness k [N/m].
            #[serde(default)]
            stiffness: f64,
            /// Damping c [N.s/m].
            #[serde(default)]
            damping: f64,
            /// Free length l0 \[m\]; default: initial length.
            #[serde(default)]
            rest_length: Option<f64>,
            /// Constant tension added \[N\].
            #[serde(default)]
            actuator: f64,
            /// An FMU input (of `interface.inputs`) added to the tension, in N.
            #[serde(default)]
            input: Option<String>,
        },
        /// Rotational spring-damper-actuator about a revolute or cylindrical joint axis, acting on
        /// the joint's relative rotation: torque on body2 = -(k (theta - theta0) + c theta') + actuator.
        Rsda {
            /// Unique name (a C identifier); outputs refer to it.
            name: String,
            /// The revolute or cylindrical joint whose rotation it acts on.
            joint: String,
            /// Stiffness k [N.m/rad].
            #[serde(default)]
            stiffness: f64,
            /// Damping c [N.m.s/rad].
            #[serde(default)]
            damping: f64,
            /// Free angle theta0 in joint coordinates \[rad\] (default: the initial coordinate).
            #[serde(default)]
            rest_angle: Option<f64>,
            /// Constant torque added [N.m].
            #[serde(default)]
            actuator: f64,
            /// An FMU input (of `interface.inputs`) added to the torque, in N.m.
            #[serde(default)]
            input: Option<String>,
        },
        /// Force of magnitude value (+ input) along a global direction at a point of a body
        /// (`"type": "force"` in JSON).
        #[serde(rename = "force")]
        Load {
            /// Unique name (a C identifier); outputs refer to it.
            name: String,
            /// The body (or beam node) loaded.
            body: String,
            /// Direction of the force, global [-] (normalized when read).
            direction: [f64; 3],
            /// Point of application, global \[m\] (default: centre of mass).
            #[serde(default)]
            point: Option<[f64; 3]>,
            /// Magnitude \[N\].
            #[serde(default)]
            value: f64,
            /// An FMU input (of `interface.inputs`) added to the magnitude, in N.
            #[serde(default)]
            input: Option<String>,
        },
        /// Torque of magnitude value (+ input) about a global axis acting on a body.
        Torque {
            /// Unique name (a C identifier); outputs refer to it.
            name: String,
            /// The body (or beam node) loaded.
            body: String,
            /// Axis of the torque, global [-] (normalized when read).
            axis: [f64; 3],
            /// Magnitude [N.m].
            #[serde(default)]
            value: f64,
            /// An FMU input (of `interface.inputs`) added to the magnitude, in N.m.
            #[serde(default)]
            input: Option<String>,
        },
        /// Linear actuator between two points (global, initial configuration): a force of
        /// magnitude value (+ input) along the line that pushes the points apart (e.g. a cylinder
        /// whose force comes from another FMU).
        Actuator {
            /// Unique name (a C identifier); outputs refer to it.
            name: String,
            /// Body (or beam node, or `ground`) of point1.
            body1: String,
            /// Body (or beam node, or `ground`) of point2.
            body2: String,
            /// Attachment on body1, global \[m\].
            point1: [f64; 3],
            /// Attachment on body2, global \[m\].
            point2: [f64; 3],
            /// Force pushing the points apart \[N\].
            #[serde(default)]
            value: f64,
            /// An FMU input (of `interface.inputs`) added to the force, in N.
            #[serde(default)]
            input: Option<String>,
        },
        /// End stop between two points (global, initial configuration): once their distance
        /// has passed a limit by delta, a contact force max(0, k delta + c delta') pushes it
        /// back into [min_length, max_length] (a cylinder's stroke limits). Its `force` output
        /// is the force pushing the points apart (negative at the upper limit).
        EndStop {
            /// Unique name (a C identifier); outputs refer to it.
            name: String,
            /// Body (or beam node, or `ground`) of point1.
            body1: String,
            /// Body (or beam node, or `ground`) of point2.
            body2: String,
            /// Attachment on body1, global \[m\].
            point1: [f64; 3],
            /// Attachment on body2, global \[m\].
            point2: [f64; 3],
            /// Shortest distance of the points \[m\] (default: no lower stop).
            #[serde(default)]
            min_length: Option<f64>,
            /// Longest distance of the points \[m\] (default: no upper stop).
            #[serde(default)]
            max_length: Option<f64>,
            /// Contact stiffness k [N/m].
            stiffness: f64,
            /// Contact damping c [N.s/m], acting only while the force stays a push.
            #[serde(default)]
            damping: f64,
        },
    }
}

/// Where a force element acts: its geometry, apart from its law. Validation, outputs and
/// drawings treat elements by their geometry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ForcePlace<'a> {
    /// Along the line between two points: a length \[m\] and a force \[N\].
    Line { bodies: [&'a str; 2], points: [&'a [f64; 3]; 2] },
    /// About the rotation axis of a revolute or cylindrical joint: an angle \[rad\] and a
    /// torque [N.m].
    JointRotation { joint: &'a str },
    /// At a body point along a global direction: a force \[N\].
    Point { body: &'a str, direction: &'a [f64; 3], point: Option<&'a [f64; 3]> },
    /// About a global axis on a body: a torque [N.m].
    Torque { body: &'a str, axis: &'a [f64; 3] },
}

/// How the drawings show an element acting along a line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LineSymbol {
    /// Spring and/or damper.
    SpringDamper { spring: bool, damper: bool },
    /// A force pushing the ends apart.
    Actuator,
}

impl Force {
    pub fn name(&self) -> &str {
        match self {
            Force::Tsda { name, .. }
            | Force::Rsda { name, .. }
            | Force::Load { name, .. }
            | Force::Torque { name, .. }
            | Force::Actuator { name, .. }
            | Force::EndStop { name, .. } => name,
        }
    }
    pub fn input(&self) -> Option<&str> {
        match self {
            Force::Tsda { input, .. }
            | Force::Rsda { input, .. }
            | Force::Load { input, .. }
            | Force::Torque { input, .. }
            | Force::Actuator { input, .. } => input.as_deref(),
            Force::EndStop { .. } => None,
        }
    }

    /// The element's geometry.
    pub fn place(&self) -> ForcePlace<'_> {
        match self {
            Force::Tsda { body1, body2, point1, point2, .. }
            | Force::Actuator { body1, body2, point1, point2, .. }
            | Force::EndStop { body1, body2, point1, point2, .. } => {
                ForcePlace::Line { bodies: [body1, body2], points: [point1, point2] }
            }
            Force::Rsda { joint, .. } => ForcePlace::JointRotation { joint },
            Force::Load { body, direction, point, .. } => ForcePlace::Point { body, direction, point: point.as_ref() },
            Force::Torque { body, axis, .. } => ForcePlace::Torque { body, axis },
        }
    }

    /// The lengths among the law's numbers, by field name (for the plausibility checks).
    pub fn lengths(&self) -> Vec<(&'static str, f64)> {
        match self {
            Force::Tsda { rest_length, .. } => rest_length.iter().map(|l| ("rest_length", *l)).collect(),
            Force::EndStop { min_length, max_length, .. } => [("min_length", min_length), ("max_length", max_length)]
                .into_iter()
                .filter_map(|(field, l)| l.map(|l| (field, l)))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The symbol of a line element in the drawings.
    pub fn line_symbol(&self) -> LineSymbol {
        match self {
            Force::Tsda { stiffness, damping, .. } => {
                LineSymbol::SpringDamper { spring: *stiffness != 0.0 || *damping == 0.0, damper: *damping != 0.0 }
            }
            Force::EndStop { damping, .. } => LineSymbol::SpringDamper { spring: true, damper: *damping != 0.0 },
            _ => LineSymbol::Actuator,
        }
    }

    /// What the element's `force` output is, for the variable's description.
    pub fn force_meaning(&self) -> String {
        let name = self.name();
        match self {
            Force::Actuator { .. } => format!("Force of actuator {name}, pushing its ends apart"),
            Force::EndStop { .. } => format!("Contact force of end stop {name}, pushing its ends apart"),
            _ => format!("Tension (TSDA), torque (RSDA) or magnitude of {name}"),
        }
    }

    /// Checks the numbers of the element's law (its geometry is checked by the description):
    /// the field and the reason of the first that is not admissible.
    pub fn check_law(&self) -> Result<(), String> {
        let nonneg = |what: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!("{what} {v} must be finite and >= 0"))
            }
        };
        match self {
            Force::Tsda { stiffness, damping, rest_length, actuator, .. } => {
                nonneg("stiffness", *stiffness)?;
                nonneg("damping", *damping)?;
                if let Some(l0) = rest_length {
                    nonneg("rest_length", *l0)?;
                }
                if !actuator.is_finite() {
                    return Err("actuator force is not finite".into());
                }
            }
            Force::Rsda { stiffness, damping, rest_angle, actuator, .. } => {
                nonneg("stiffness", *stiffness)?;
                nonneg("damping", *damping)?;
                if !(rest_angle.unwrap_or(0.0).is_finite() && actuator.is_finite()) {
                    return Err("rest_angle and actuator must be finite".into());
                }
            }
            Force::Load { value, .. } | Force::Torque { value, .. } | Force::Actuator { value, .. } => {
                if !value.is_finite() {
                    return Err("value is not finite".into());
                }
            }
            Force::EndStop { min_length, max_length, stiffness, damping, .. } => {
                if !(stiffness.is_finite() && *stiffness > 0.0) {
                    return Err(format!("stiffness {stiffness} must be positive and finite"));
                }
                nonneg("damping", *damping)?;
                for (what, v) in [("min_length", min_length), ("max_length", max_length)] {
                    if let Some(v) = v {
                        nonneg(what, *v)?;
                    }
                }
                match (min_length, max_length) {
                    (None, None) => return Err("give min_length, max_length or both: the stop has no limit".into()),
                    (Some(lo), Some(hi)) if lo >= hi => {
                        return Err(format!("min_length {lo} must be smaller than max_length {hi}"))
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Damping coefficient of a spring-damper or end stop (0 for the other elements).
    pub fn damping(&self) -> f64 {
        match self {
            Force::Tsda { damping, .. } | Force::Rsda { damping, .. } | Force::EndStop { damping, .. } => *damping,
            _ => 0.0,
        }
    }
}
