//! Prescribed motion: a driver makes a joint coordinate follow f(t). Values of f are angles
//! \[rad\] for rotations and lengths \[m\] for translations, times in seconds.

use super::keyword::keyword;
use super::tagged::{tagged, Kinds};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

keyword! {
    /// Which coordinate of a joint a driver prescribes.
    pub enum JointCoordinate("joint coordinate") {
        /// The joint angle.
        Rotation = "rotation",
        /// The joint displacement.
        Translation = "translation",
    }
}

/// A prescribed-motion driver: joint coordinate = f(t).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Driver {
    /// Unique name (a C identifier); outputs refer to it.
    pub name: String,
    /// The driven joint (revolute, translational or cylindrical).
    pub joint: String,
    /// Needed only for cylindrical joints; revolute drives rotation, translational translation.
    #[serde(default)]
    pub coordinate: Option<JointCoordinate>,
    /// The law f(t).
    pub motion: Motion,
}

const MOTIONS: Kinds = Kinds {
    what: "motion type",
    tag: Some("type"),
    words: &[
        "constant_rate",
        "polynomial",
        "harmonic",
        "smooth_step",
        "piecewise",
        "cosine_ramp",
        "speed_ramps",
        "sum",
        "input_rate",
    ],
    hint: |_| None,
};

tagged! {
    /// Motion laws f(t) with analytic f' and f''. Values are in the coordinate's unit
    /// (rad or m), rates in that unit per second.
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Motion reads MotionTwin as "Motion" (MOTIONS) {
        /// f = initial + rate t
        ConstantRate {
            /// f(0) [rad or m].
            initial: f64,
            /// f' [rad/s or m/s].
            rate: f64,
        },
        /// f = sum_k c_k t^k
        Polynomial {
            /// c_0, c_1, ... [rad or m, per s^k].
            coefficients: Vec<f64>,
        },
        /// f = offset + amplitude sin(frequency t + phase)
        Harmonic {
            /// [rad or m].
            #[serde(default)]
            offset: f64,
            /// [rad or m].
            amplitude: f64,
            /// Angular frequency [rad/s].
            frequency: f64,
            /// \[rad\].
            #[serde(default)]
            phase: f64,
        },
        /// Quintic step from `from` at `t0` to `to` at `t1` (continuous up to f'').
        SmoothStep {
            /// Start of the step \[s\].
            t0: f64,
            /// End of the step \[s\].
            t1: f64,
            /// Value before t0 [rad or m].
            from: f64,
            /// Value after t1 [rad or m].
            to: f64,
        },
        /// `segments[i]` applies for t < `segments[i].until` (the last one for all later t).
        Piecewise {
            /// The pieces, in increasing `until`.
            segments: Vec<Segment>,
        },
        /// f goes from `from` to `to` over [t0, t0 + duration] along (1 - cos)/2 (zero rate at
        /// both ends; MBDyn's "cosine" drive), and holds its end values outside.
        CosineRamp {
            /// Start of the ramp \[s\].
            t0: f64,
            /// Its duration \[s\].
            duration: f64,
            /// Value before the ramp [rad or m].
            from: f64,
            /// Value after the ramp [rad or m].
            to: f64,
        },
        /// f starts at `initial` at rest; its rate f' changes by cosine ramps (each from the
        /// previous rate to `rate` over [start, start + duration]) and holds between them: a
        /// spin-up profile given by its speeds.
        SpeedRamps {
            /// f(0) [rad or m].
            initial: f64,
            /// The speed changes, in time order.
            ramps: Vec<SpeedRamp>,
        },
        /// f = the sum of the terms' values (e.g. a ramp plus a harmonic: the integral of a
        /// cosine-ramped speed).
        Sum {
            /// The motions added.
            terms: Vec<Motion>,
        },
        /// The rate f' is the FMU input `input` (held over each communication step);
        /// f integrates it from `initial`.
        InputRate {
            /// Name of an input of `interface.inputs`.
            input: String,
            /// f(0) [rad or m].
            initial: f64,
        },
    }
}

/// One speed change of a `speed_ramps` motion.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpeedRamp {
    /// Start of the ramp \[s\].
    pub start: f64,
    /// Its duration \[s\].
    pub duration: f64,
    /// The rate reached at its end [rad/s or m/s].
    pub rate: f64,
}

/// One piece of a `piecewise` motion.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    /// The piece applies before this time \[s\].
    pub until: f64,
    /// The law of this piece.
    pub motion: Motion,
}
