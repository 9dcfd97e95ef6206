//! Output values of a co-simulation instance, evaluated together once per step and only when
//! first read: a lazily filled cache that every change of the state (doStep, set, restore,
//! rollback) invalidates. One evaluation of all outputs lets the engine share work between
//! them (a joint's reaction force and torque components, the energies).

use mbfmu_engine::Simulation;
use mbfmu_model::format::Quantity;
use mbfmu_model::variables::{Binding, ModelInterface};

/// The slot of a variable that is not an output.
const NOT_AN_OUTPUT: u32 = u32::MAX;

pub(super) struct OutputCache {
    /// Position in `quantities` of each value reference's output ([`NOT_AN_OUTPUT`] for
    /// other variables): one compact table lookup per read.
    slots: Vec<u32>,
    quantities: Vec<Quantity>,
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
                    (quantities.len() - 1) as u32
                }
                _ => NOT_AN_OUTPUT,
            })
            .collect();
        let values = vec![f64::NAN; quantities.len()];
        OutputCache { slots, quantities, values, valid: false }
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
            Some(&slot) if slot != NOT_AN_OUTPUT => Some(self.values[slot as usize]),
            _ => None,
        }
    }

    /// The value of output `vr` at the simulation's current state (every output is
    /// evaluated on the first read after an invalidation). None if `vr` is not an output.
    pub fn get(&mut self, vr: u32, sim: &Simulation) -> Option<f64> {
        let slot = *self.slots.get(vr as usize)?;
        if slot == NOT_AN_OUTPUT {
            return None;
        }
        if !self.valid {
            sim.quantities(&self.quantities, &mut self.values);
            self.valid = true;
        }
        Some(self.values[slot as usize])
    }
}
