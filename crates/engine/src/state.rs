//! The absolute state of a mechanism: every body's pose, velocities and accelerations, the
//! multipliers and the energy bookkeeping. The common view of all formulations
//! ([`crate::Formulation::state`]): the index-3 and state-space formulations integrate it,
//! the semirecursive ones form it from their relative coordinates.

use nalgebra::{Matrix3, Vector3};
use serde::{Deserialize, Serialize};

/// Kinematic state of one body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    /// Centre-of-mass position, global.
    pub r: Vector3<f64>,
    /// Rotation matrix A (body to global).
    pub rot: Matrix3<f64>,
    /// Centre-of-mass velocity, global.
    pub v: Vector3<f64>,
    /// Angular velocity, body frame (w_bar).
    pub w: Vector3<f64>,
    /// Centre-of-mass acceleration, global.
    pub acc: Vector3<f64>,
    /// Angular acceleration, body frame.
    pub wdot: Vector3<f64>,
}

/// Everything that determines the future of a mechanism's trajectory.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct MechState {
    pub t: f64,
    pub bodies: Vec<BodyState>,
    /// Lagrange multipliers, one per constraint row.
    pub lambda: Vec<f64>,
    /// Current value of each driver's prescribed coordinate for input-rate drivers.
    pub drive_values: Vec<f64>,
    /// Unwrapped rotation of each joint that has an angle (0 for others), measured from the
    /// initial configuration.
    pub angles: Vec<f64>,
    /// Work of non-conservative applied forces and drivers since the start \[J\].
    pub work: f64,
    /// Total energy of the assembled initial state \[J\] (for the energy balance).
    pub energy0: f64,
    /// The hydraulic circuit's state, for a formulation that integrates one with the bodies
    /// (None without a circuit: a mechanism's state stays as small as it was).
    pub circuit: Option<Box<CircuitState>>,
}

/// The state of a hydraulic circuit integrated together with a mechanism's bodies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CircuitState {
    /// Pressures of the volumes \[Pa\] and their time derivatives.
    pub p: Vec<f64>,
    pub pd: Vec<f64>,
    /// Spool positions of the directional valves and the references held over the last step.
    pub spools: Vec<f64>,
    pub references: Vec<f64>,
    /// Work done by each cylinder on the mechanism since the start \[J\].
    pub cylinder_work: Vec<f64>,
}

impl CircuitState {
    /// Field-wise, reusing the vectors' storage.
    fn copy_from(&mut self, source: &Self) {
        self.p.clone_from(&source.p);
        self.pd.clone_from(&source.pd);
        self.spools.clone_from(&source.spools);
        self.references.clone_from(&source.references);
        self.cylinder_work.clone_from(&source.cylinder_work);
    }
}

impl Clone for MechState {
    fn clone(&self) -> Self {
        MechState {
            t: self.t,
            bodies: self.bodies.clone(),
            lambda: self.lambda.clone(),
            drive_values: self.drive_values.clone(),
            angles: self.angles.clone(),
            work: self.work,
            energy0: self.energy0,
            circuit: self.circuit.clone(),
        }
    }

    /// Field-wise, reusing the vectors' storage (the derived version reallocates).
    fn clone_from(&mut self, source: &Self) {
        self.t = source.t;
        self.bodies.clone_from(&source.bodies);
        self.lambda.clone_from(&source.lambda);
        self.drive_values.clone_from(&source.drive_values);
        self.angles.clone_from(&source.angles);
        self.work = source.work;
        self.energy0 = source.energy0;
        match (&mut self.circuit, &source.circuit) {
            (Some(c), Some(s)) => c.copy_from(s),
            (None, None) => {}
            (c, s) => c.clone_from(s),
        }
    }
}
