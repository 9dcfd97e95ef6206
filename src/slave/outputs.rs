//! Output values of a co-simulation instance, evaluated together once per step and only when
//! first read: a lazily filled cache that every change of the state (doStep, set, restore,
//! rollback) invalidates. One evaluation of all outputs lets the engine share work between
//! them (a joint's reaction force and torque components, the energies).

use mbfmu_engine::Simulation;
use mbfmu_model::format::Quantity;
use mbfmu_model::variables::{Binding, ModelInterface};

pub(super) struct OutputCache {
    /// Position in `quantities` of each value reference's output (None for other variables).
    slots: Vec<Option<usize>>,
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
                    Some(quantities.len() - 1)
                }
                _ => None,
            })
            .collect();
        let values = vec![f64::NAN; quantities.len()];
        OutputCache { slots, quantities, values, valid: false }
    }

    /// The state changed: the next read evaluates the outputs again.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// The value of output `vr` at the simulation's current state (every output is
    /// evaluated on the first read after an invalidation). None if `vr` is not an output.
    pub fn get(&mut self, vr: u32, sim: &Simulation) -> Option<f64> {
        let slot = (*self.slots.get(vr as usize)?)?;
        if !self.valid {
            sim.quantities(&self.quantities, &mut self.values);
            self.valid = true;
        }
        Some(self.values[slot])
    }
}
