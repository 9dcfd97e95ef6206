//! The semirecursive formulations behind [`Formulation`] (seed 004): relative joint
//! coordinates with the hydraulic circuit, double-step partitioning or penalty projections,
//! trapezoidal rule.

use super::{SemiState, Semirecursive};
use crate::formulation::{from_bytes, to_bytes_into, Dims, Formulation};
use crate::index3::AssemblyReport;
use crate::inputs::InputSignals;
use crate::integrators::{FloorReport, StepError, StepStats};
use crate::state::MechState;
use mbfmu_model::format::Quantity;
use serde::{Deserialize, Serialize};
use std::any::Any;

/// The snapshot of [`Semirecursive`].
#[derive(Serialize, Deserialize)]
struct Snapshot {
    state: SemiState,
    inputs: InputSignals,
}

/// [`Snapshot`] borrowed from the formulation (the same bytes).
#[derive(Serialize)]
struct SnapshotView<'a> {
    state: &'a SemiState,
    inputs: &'a InputSignals,
}

impl Clone for SemiState {
    fn clone(&self) -> Self {
        let mut copy = SemiState {
            t: 0.0,
            z: Vec::new(),
            zd: Vec::new(),
            zdd: Vec::new(),
            lambda: Vec::new(),
            p: Vec::new(),
            pd: Vec::new(),
            pdd: Vec::new(),
            spools: Vec::new(),
            references: Vec::new(),
            independent: Vec::new(),
            work: 0.0,
            cylinder_work: Vec::new(),
            energy0: 0.0,
            input_time: 0.0,
            partitions: 0,
            pivot_reference: 0.0,
        };
        copy.clone_from(self);
        copy
    }

    /// Field-wise, reusing the vectors' storage (the derived version reallocates): the
    /// per-step checkpoint copies without allocation.
    fn clone_from(&mut self, s: &Self) {
        self.t = s.t;
        self.z.clone_from(&s.z);
        self.zd.clone_from(&s.zd);
        self.zdd.clone_from(&s.zdd);
        self.lambda.clone_from(&s.lambda);
        self.p.clone_from(&s.p);
        self.pd.clone_from(&s.pd);
        self.pdd.clone_from(&s.pdd);
        self.spools.clone_from(&s.spools);
        self.references.clone_from(&s.references);
        self.independent.clone_from(&s.independent);
        self.work = s.work;
        self.cylinder_work.clone_from(&s.cylinder_work);
        self.energy0 = s.energy0;
        self.input_time = s.input_time;
        self.partitions = s.partitions;
        self.pivot_reference = s.pivot_reference;
    }
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

    fn inputs(&self) -> &InputSignals {
        &self.inputs
    }

    fn change_inputs(&mut self, change: &mut dyn FnMut(&mut InputSignals)) -> Result<(), String> {
        Semirecursive::change_inputs(self, change)
    }

    fn hold_inputs(&mut self) -> Result<(), String> {
        Semirecursive::hold_inputs(self);
        Ok(())
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

    fn quantity_rates(&self, quantities: &[Quantity], first: &mut [f64], second: &mut [f64]) {
        self.quantity_rates_into(quantities, first, second, &mut self.rate_scratch.borrow_mut());
    }

    fn dims(&self) -> Dims {
        Dims { coordinates: self.n_coordinates(), constraints: self.n_constraints(), unknowns: self.n_unknowns() }
    }

    fn snapshot_into(&self, bytes: &mut Vec<u8>) {
        to_bytes_into(&SnapshotView { state: &self.state, inputs: &self.inputs }, bytes);
    }

    fn checkpoint(&mut self) {
        match &mut self.saved {
            Some(saved) => {
                saved.0.clone_from(&self.state);
                saved.1.clone_from(&self.inputs);
            }
            None => self.saved = Some(Box::new((self.state.clone(), self.inputs.clone()))),
        }
    }

    fn rollback(&mut self) -> Result<(), String> {
        let saved = self.saved.take().ok_or("no checkpoint to return to")?;
        self.state.clone_from(&saved.0);
        self.inputs.clone_from(&saved.1);
        self.saved = Some(saved);
        self.refresh()
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
