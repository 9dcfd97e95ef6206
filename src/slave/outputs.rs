//! Output values of a co-simulation instance, evaluated together once per step and only when
//! first read: a lazily filled cache that every change of the state (doStep, set, restore,
//! rollback) invalidates. One evaluation of all outputs lets the engine share work between
//! them (a joint's reaction force and torque components, the energies).

use mbfmu_engine::Simulation;
use mbfmu_model::format::Quantity;
use mbfmu_model::variables::{Binding, ModelInterface, VarType};

/// The slot of a variable that is not an output.
const NOT_AN_OUTPUT: u32 = u32::MAX;

pub(super) struct OutputCache {
    /// Per value reference: the position of its output in `quantities` ([`NOT_AN_OUTPUT`]
    /// for other variables) and its variable's type (what the accessors check), one compact
    /// table lookup per read.
    slots: Vec<(u32, VarType)>,
    quantities: Vec<Quantity>,
    /// Positions in `quantities` of the solver statistics (read apart, see
    /// `Simulation::state_quantities`).
    statistics: Vec<usize>,
    values: Vec<f64>,
    valid: bool,
}

impl OutputCache {
    pub fn new(interface: &ModelInterface) -> OutputCache {
        let mut quantities = Vec::new();
        let slots = interface
            .variables
            .iter()
            .map(|v| match v.binding {
                Binding::Output(q) => {
                    quantities.push(q);
                    ((quantities.len() - 1) as u32, v.ty)
                }
                _ => (NOT_AN_OUTPUT, v.ty),
            })
            .collect();
        let values = vec![f64::NAN; quantities.len()];
        let statistics = (0..quantities.len())
            .filter(|&i| matches!(quantities[i], Quantity::NewtonIterations | Quantity::Steps))
            .collect();
        OutputCache { slots, quantities, statistics, values, valid: false }
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
        if !self.valid {
            return None;
        }
        match self.slots.get(vr as usize) {
            Some(&(slot, _)) if slot != NOT_AN_OUTPUT => Some(self.values[slot as usize]),
            _ => None,
        }
    }

    /// [`OutputCache::cached`] if the variable's type is one of `accepts` (the path of an
    /// accessor's reads after the first of a step: one table lookup each).
    #[inline]
    pub fn cached_of_type(&self, vr: u32, accepts: &[VarType]) -> Option<f64> {
        if !self.valid {
            return None;
        }
        match self.slots.get(vr as usize) {
            Some(&(slot, ty)) if slot != NOT_AN_OUTPUT && accepts.contains(&ty) => {
                self.values.get(slot as usize).copied()
            }
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
        for (&vr, o) in vrs.iter().zip(out.iter_mut()) {
            let Some(&(slot, ty)) = self.slots.get(vr as usize) else { return false };
            // A variable that is not an output has the slot NOT_AN_OUTPUT, beyond `values`.
            let (true, Some(&x)) = (accepted & 1 << ty as u32 != 0, self.values.get(slot as usize)) else {
                return false;
            };
            let Some(v) = convert(x) else { return false };
            *o = v;
        }
        true
    }

    /// The value of output `vr` at the simulation's current state (every output is
    /// evaluated on the first read after an invalidation). None if `vr` is not an output.
    pub fn get(&mut self, vr: u32, sim: &Simulation) -> Option<f64> {
        let (slot, _) = *self.slots.get(vr as usize)?;
        if slot == NOT_AN_OUTPUT {
            return None;
        }
        if !self.valid {
            sim.state_quantities(&self.quantities, &mut self.values);
            for &i in &self.statistics {
                self.values[i] = sim.quantity(self.quantities[i]);
            }
            self.valid = true;
        }
        Some(self.values[slot as usize])
    }
}
