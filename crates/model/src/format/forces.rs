//! Applied force elements. Points and directions are global at the initial configuration.

use super::tagged::{tagged, Kinds};

const FORCES: Kinds = Kinds {
    what: "force type",
    tag: Some("type"),
    words: &["tsda", "rsda", "force", "torque", "actuator"],
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
    }
}

impl Force {
    pub fn name(&self) -> &str {
        match self {
            Force::Tsda { name, .. }
            | Force::Rsda { name, .. }
            | Force::Load { name, .. }
            | Force::Torque { name, .. }
            | Force::Actuator { name, .. } => name,
        }
    }
    pub fn input(&self) -> Option<&str> {
        match self {
            Force::Tsda { input, .. }
            | Force::Rsda { input, .. }
            | Force::Load { input, .. }
            | Force::Torque { input, .. }
            | Force::Actuator { input, .. } => input.as_deref(),
        }
    }

    /// Damping coefficient of a spring-damper (0 for the other elements).
    pub fn damping(&self) -> f64 {
        match self {
            Force::Tsda { damping, .. } | Force::Rsda { damping, .. } => *damping,
            _ => 0.0,
        }
    }
}
