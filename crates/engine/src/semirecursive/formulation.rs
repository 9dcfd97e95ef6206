//! The semirecursive formulations behind [`Formulation`] (\[Jaiswal2021\]): relative joint
//! coordinates with the hydraulic circuit, double-step partitioning or penalty projections,
//! trapezoidal rule.

use super::{SemiState, Semirecursive};
use crate::formulation::{equal_sub_steps, to_bytes_into, Dims, Formulation, Meter, OdeSystem, Progress, StepCounters};
use crate::hydraulics::{laws, Attachment};
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
            kin_z: Vec::new(),
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
            tangent: Default::default(),
            multipliers: Default::default(),
            h_next: f64::NAN,
            stiff: false,
            stiffness: Default::default(),
            dense: Default::default(),
            charts: Vec::new(),
        };
        copy.clone_from(self);
        copy
    }

    /// Field-wise, reusing the vectors' storage (the derived version reallocates): the
    /// per-step checkpoint copies without allocation.
    fn clone_from(&mut self, s: &Self) {
        self.t = s.t;
        self.z.clone_from(&s.z);
        self.kin_z.clone_from(&s.kin_z);
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
        self.tangent.clone_from(&s.tangent);
        self.multipliers.clone_from(&s.multipliers);
        self.h_next = s.h_next;
        self.stiff = s.stiff;
        self.stiffness = s.stiffness;
        self.dense.clone_from(&s.dense);
        self.charts.clone_from(&s.charts);
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
        Semirecursive::change_inputs(self, change)?;
        self.ode_inputs_changed();
        // New inputs at the communication point: the run restarts from the state there (a
        // step pending past it was taken with the old ones).
        if self.inputs.take_changed() {
            self.state.dense.pending = false;
        }
        Ok(())
    }

    fn hold_inputs(&mut self) -> Result<(), String> {
        Semirecursive::hold_inputs(self);
        Ok(())
    }

    fn step_size(&self) -> f64 {
        self.settings.step_size
    }

    fn step_to(&mut self, target: f64) -> Result<StepStats, StepError> {
        if self.explicit_in_use() {
            self.explicit_step(target)?;
            return Ok(StepStats::default());
        }
        Semirecursive::step_to(self, target)
    }

    fn advance_to(
        &mut self,
        t_end: f64,
        counters: &mut StepCounters,
        meter: &mut Meter,
    ) -> Result<Progress, StepError> {
        if self.explicit_in_use() {
            return self.explicit_advance(t_end, counters, meter);
        }
        equal_sub_steps(self, t_end, counters, meter)
    }

    fn own_step_control(&self) -> bool {
        self.explicit_in_use()
    }

    fn take_notice(&mut self) -> Option<String> {
        Semirecursive::take_notice(self)
    }

    fn set_dense_output(&mut self, on: bool) {
        self.settings.control.dense_output = on;
        self.state.dense.pending = false;
    }

    fn shift_to(&mut self, target: f64) -> Result<StepStats, StepError> {
        self.drift(target)?;
        Ok(StepStats::default())
    }

    fn floor_report(&self) -> FloorReport {
        self.floor
    }

    fn quantity(&self, q: Quantity) -> f64 {
        Semirecursive::quantity(self, q)
    }

    /// Force elements' values add their inputs; a cylinder fed by inputs reports its length
    /// and velocity inputs, and its force F = p_A A_A - p_B A_B - F_mu(s') ([Jaiswal2021, eq. 29])
    /// follows the velocity input through the seal friction; the flow into a source node
    /// follows the pressure inputs at its orifices (eqs. 24, 26).
    fn feedthrough(&self, q: Quantity, input: usize) -> f64 {
        let is = |i: Option<usize>| f64::from(u8::from(i == Some(input)));
        let fed = |c: usize| match self.tree.circuit.as_ref().map(|k| &k.cylinders[c].attachment) {
            Some(Attachment::Inputs { length, velocity }) => Some((*length, *velocity)),
            _ => None,
        };
        match q {
            Quantity::ForceValue { force } => is(self.tree.elements[force].input),
            Quantity::CylinderLength { cylinder } => fed(cylinder).map_or(0.0, |(l, _)| is(Some(l))),
            Quantity::CylinderVelocity { cylinder } => fed(cylinder).map_or(0.0, |(_, v)| is(Some(v))),
            Quantity::CylinderForce { cylinder } => match fed(cylinder) {
                Some((_, v)) if v == input => {
                    let circuit = self.tree.circuit.as_ref().expect("a fed cylinder belongs to a circuit");
                    let velocity = self.strokes[cylinder].velocity;
                    -circuit.cylinders[cylinder]
                        .friction
                        .as_ref()
                        .map_or(0.0, |f| laws::seal_friction_slope(f, velocity))
                }
                _ => 0.0,
            },
            // The orifices at a source follow its and its neighbours' pressure inputs.
            Quantity::SourceFlow { source } => self.tree.circuit.as_ref().map_or(0.0, |c| {
                let (inputs, t) = (&self.inputs, self.state.t);
                c.source_flow_by_input(source, t, &self.state.p, &self.state.spools, &|i| inputs.at(i, t), input)
            }),
            _ => 0.0,
        }
    }

    fn quantity_rates(&self, quantities: &[Quantity], first: &mut [f64], second: &mut [f64]) {
        self.quantity_rates_into(quantities, first, second, &mut self.rate_scratch.borrow_mut());
    }

    fn dims(&self) -> Dims {
        Dims { coordinates: self.n_coordinates(), constraints: self.n_constraints(), unknowns: self.n_unknowns() }
    }

    /// The formulation's state and inputs, followed, for a view a Model Exchange host
    /// drives, by the host's point (`ode.rs`).
    fn snapshot_into(&self, bytes: &mut Vec<u8>) {
        to_bytes_into(&SnapshotView { state: &self.state, inputs: &self.inputs }, bytes);
        self.ode_snapshot_into(bytes);
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
        self.tree.apply_charts(&self.state.charts);
        self.refresh()
    }

    fn forget_failed_step(&mut self) -> Result<(), String> {
        self.refresh()
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        let (s, rest): (Snapshot, &[u8]) = postcard::take_from_bytes(bytes)
            .map_err(|e| format!("the snapshot does not belong to this formulation: {e}"))?;
        self.ode_check(rest)?;
        Semirecursive::restore(self, &s.state, &s.inputs)?;
        self.ode_restore(rest)
    }

    fn assembly(&self) -> &AssemblyReport {
        &self.assembly
    }

    fn ode(&mut self) -> Option<&mut dyn OdeSystem> {
        Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
