//! Output values of a co-simulation instance, evaluated together once per step and only when
//! first read: a lazily filled cache that every change of the state (doStep, set, restore,
//! rollback) invalidates. One evaluation of all outputs lets the engine share work between
//! them (a joint's reaction force and torque components, the energies).

use mbfmu_engine::output_plan::OutputPlan;
use mbfmu_engine::Simulation;
use mbfmu_model::variables::{Binding, ModelInterface, VarType};

pub(super) struct OutputCache {
    /// Per value reference: its variable's type if it is an output (what the accessors
    /// check), None for other variables.
    output_types: Vec<Option<VarType>>,
    /// Per value reference: the value of its output (NaN for other variables); with
    /// `output_types` one lookup per read.
    values: Vec<f64>,
    /// The outputs (at their value references), compiled once for their evaluation together.
    plan: OutputPlan,
    valid: bool,
}

impl OutputCache {
    pub fn new(interface: &ModelInterface) -> OutputCache {
        let mut outputs = Vec::new();
        let output_types = (interface.variables.iter().enumerate())
            .map(|(vr, v)| match v.binding {
                Binding::Output(q) => {
                    outputs.push((vr, q));
                    Some(v.ty)
                }
                _ => None,
            })
            .collect();
        let values = vec![f64::NAN; interface.variables.len()];
        OutputCache { output_types, values, plan: OutputPlan::new(&outputs), valid: false }
    }

    /// True if the outputs of the current state are evaluated.
    #[inline]
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// The state changed: the next read evaluates the outputs again.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// The value of output `vr` if the outputs of the current state are evaluated already
    /// (the path of every read after the first of a step).
    #[inline]
    pub fn cached(&self, vr: u32) -> Option<f64> {
        match self.output_types.get(vr as usize) {
            Some(Some(_)) if self.valid => Some(self.values[vr as usize]),
            _ => None,
        }
    }

    /// [`OutputCache::cached`] if the variable's type is one of `accepts` (the path of an
    /// accessor's reads after the first of a step: one table lookup each).
    #[inline]
    pub fn cached_of_type(&self, vr: u32, accepts: &[VarType]) -> Option<f64> {
        match self.output_types.get(vr as usize) {
            Some(Some(ty)) if self.valid && accepts.contains(ty) => Some(self.values[vr as usize]),
            _ => None,
        }
    }

    /// Writes `convert` of the value of each of `vrs` to `out` if the outputs of the current
    /// state are evaluated and every one of `vrs` is an output of a type in `accepts` (and
    /// `convert` takes its value); false as soon as one is not (the caller then reads them one
    /// by one, which explains). One tight loop for a host's read of many outputs.
    #[inline]
    pub fn read_cached<T>(
        &self,
        vrs: &[u32],
        accepts: &[VarType],
        out: &mut [T],
        convert: impl Fn(f64) -> Option<T>,
    ) -> bool {
        if !self.valid {
            return false;
        }
        let accepted = accepts.iter().fold(0u32, |mask, &ty| mask | 1 << ty as u32);
        // Both tables as slices of one length: one bounds check per read.
        let types = &self.output_types[..];
        let values = &self.values[..types.len()];
        for (&vr, o) in vrs.iter().zip(out.iter_mut()) {
            let vr = vr as usize;
            if vr >= types.len() {
                return false;
            }
            let Some(ty) = types[vr] else { return false };
            if accepted & 1 << ty as u32 == 0 {
                return false;
            }
            let Some(v) = convert(values[vr]) else { return false };
            *o = v;
        }
        true
    }

    /// The value of output `vr` at the simulation's current state (every output is
    /// evaluated on the first read after an invalidation). None if `vr` is not an output.
    pub fn get(&mut self, vr: u32, sim: &Simulation) -> Option<f64> {
        let Some(Some(_)) = self.output_types.get(vr as usize) else { return None };
        if !self.valid {
            self.evaluate(sim);
        }
        Some(self.values[vr as usize])
    }

    /// Evaluates every output at the simulation's current state.
    pub fn evaluate(&mut self, sim: &Simulation) {
        sim.planned_quantities(&self.plan, &mut self.values);
        self.valid = true;
    }
}
