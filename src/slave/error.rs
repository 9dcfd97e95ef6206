//! The slave's errors: everything that can go wrong in a slave call, with the context the FMI
//! layer writes into its log line, and which of them leave the instance usable.

use super::Phase;
use mbfmu_engine::integrators::StepError;
use mbfmu_engine::{Limit, Meter};
use mbfmu_model::variables::VarType;
use std::fmt;

/// Everything that can go wrong, with enough context for a log line.
#[derive(Clone, Debug, PartialEq)]
pub enum SlaveError {
    UnknownReference(u32),
    WrongType {
        name: String,
        declared: VarType,
    },
    NotSettable {
        name: String,
        reason: String,
    },
    InvalidValue {
        name: String,
        value: String,
        reason: String,
    },
    /// The model could not be built with the current parameters.
    Model(String),
    /// An internal step failed; the time reached is `reached`.
    Step {
        error: StepError,
        reached: f64,
    },
    /// The step needs more internal steps than `solver.maxStepsPerCall` or more work than
    /// `solver.maxWorkPerCall` allows (`limit` says which); it stopped at `reached`, the time
    /// of the last internal step, in a consistent state, having spent what `meter` counted.
    StepBudget {
        target: f64,
        reached: f64,
        limit: Limit,
        meter: Meter,
    },
    CommunicationPoint {
        expected: f64,
        got: f64,
    },
    BadStepSize {
        h: f64,
        reason: String,
    },
    WrongPhase {
        operation: &'static str,
        phase: Phase,
    },
    Snapshot(String),
    /// A variable that has no time derivative to set or get.
    Derivative {
        name: String,
        value_reference: u32,
        reason: String,
    },
    /// A variable that cannot be an unknown or a known (`role`, with its article) of a
    /// directional derivative.
    Partial {
        role: &'static str,
        name: String,
        value_reference: u32,
        reason: String,
    },
}

impl SlaveError {
    /// True for failures of the numerics that leave the instance usable (FMI Discard).
    pub fn is_discard(&self) -> bool {
        matches!(self, SlaveError::Step { .. } | SlaveError::StepBudget { .. })
    }
}

impl fmt::Display for SlaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlaveError::UnknownReference(vr) => write!(f, "unknown value reference {vr}"),
            SlaveError::WrongType { name, declared } => {
                write!(f, "variable '{name}' is declared {declared:?}; use the matching accessor")
            }
            SlaveError::NotSettable { name, reason } => write!(f, "variable '{name}' cannot be set: {reason}"),
            SlaveError::InvalidValue { name, value, reason } => {
                write!(f, "value {value} for '{name}' rejected: {reason}")
            }
            SlaveError::Model(e) => write!(f, "the model cannot be built: {e}"),
            SlaveError::Step { error, reached } => write!(f, "{error}; the last successful time is {reached}"),
            SlaveError::StepBudget { target, reached, limit: Limit::Steps, meter } => write!(
                f,
                "reaching {target} needs more than solver.maxStepsPerCall = {} internal steps: stopped at {reached} \
                 (bounded work per call; raise the parameter solver.maxStepsPerCall before the end of \
                 initialization, or use shorter communication steps)",
                meter.budget().steps
            ),
            SlaveError::StepBudget { target, reached, limit: Limit::Work, meter } => {
                let reuse = if meter.reuse_weight() < meter.weight() {
                    format!(", {} per Newton iteration on a matrix factored before it", meter.reuse_weight())
                } else {
                    String::new()
                };
                write!(
                    f,
                    "reaching {target} needs more work than solver.maxWorkPerCall = {} work units: stopped at {reached} \
                     after {} internal steps and {} work units ({} per model evaluation of this model{reuse}) (bounded \
                     work per call; raise the parameter solver.maxWorkPerCall before the end of initialization, or use \
                     shorter communication steps)",
                    meter.budget().work,
                    meter.steps(),
                    meter.work(),
                    meter.weight(),
                )
            }
            SlaveError::CommunicationPoint { expected, got } => {
                write!(f, "communication point {got} does not match the FMU's time {expected}")
            }
            SlaveError::BadStepSize { h, reason } => write!(f, "communication step size {h} rejected: {reason}"),
            SlaveError::WrongPhase { operation, phase } => write!(f, "{operation} is not possible in phase {phase:?}"),
            SlaveError::Snapshot(e) => write!(f, "FMU state rejected: {e}"),
            SlaveError::Derivative { name, value_reference, reason } => {
                write!(f, "variable '{name}' (value reference {value_reference}) has no time derivative here: {reason}")
            }
            SlaveError::Partial { role, name, value_reference, reason } => write!(
                f,
                "variable '{name}' (value reference {value_reference}) cannot be {role} of a directional derivative here: {reason}"
            ),
        }
    }
}

impl std::error::Error for SlaveError {}
