//! The semirecursive formulations behind [`Formulation`] (seed 004): relative joint
//! coordinates with the hydraulic circuit, double-step partitioning or penalty projections,
//! trapezoidal rule.

use super::{SemiState, Semirecursive};
use crate::formulation::{from_bytes, to_bytes, Dims, Formulation};
use crate::index3::AssemblyReport;
use crate::integrators::{FloorReport, StepError, StepStats};
use crate::state::MechState;
use mbfmu_model::format::Quantity;
use serde::{Deserialize, Serialize};
use std::any::Any;

/// The snapshot of [`Semirecursive`].
#[derive(Serialize, Deserialize)]
struct Snapshot {
    state: SemiState,
    inputs: Vec<f64>,
}

impl Formulation for Semirecursive {
    fn model_name(&self) -> &str {
        &self.tree.name
    }

    fn time(&self) -> f64 {
        self.state.t
    }

    /// The absolute view of the relative coordinates, formed when first asked for after a step.
    fn state(&self) -> &MechState {
        self.mirror()
    }

    fn inputs(&self) -> &[f64] {
        &self.inputs
    }

    fn set_inputs(&mut self, inputs: &[f64]) -> Result<(), String> {
        Semirecursive::set_inputs(self, inputs)
    }

    fn set_input(&mut self, index: usize, value: f64) -> Result<(), String> {
        Semirecursive::set_input(self, index, value)
    }

    fn step_size(&self) -> f64 {
        self.settings.step_size
    }

    fn step_to(&mut self, target: f64) -> Result<StepStats, StepError> {
        Semirecursive::step_to(self, target)
    }

    fn shift_to(&mut self, target: f64) -> Result<StepStats, StepError> {
        self.drift(target)?;
        Ok(StepStats { iterations: 0, stages: 0 })
    }

    fn floor_report(&self) -> FloorReport {
        self.floor
    }

    fn quantity(&self, q: Quantity) -> f64 {
        Semirecursive::quantity(self, q)
    }

    fn dims(&self) -> Dims {
        Dims { coordinates: self.n_coordinates(), constraints: self.n_constraints(), unknowns: self.n_unknowns() }
    }

    fn snapshot(&self) -> Vec<u8> {
        to_bytes(&Snapshot { state: self.state.clone(), inputs: self.inputs.clone() })
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        let s: Snapshot = from_bytes(bytes)?;
        Semirecursive::restore(self, &s.state, &s.inputs)
    }

    fn assembly(&self) -> &AssemblyReport {
        &self.assembly
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
