//! Time derivatives of the outputs (FMI 2.0.4 Sect. 4.2.1 `fmi2GetRealOutputDerivatives`,
//! FMI 3.0 Sect. 4.1.2 `fmi3GetOutputDerivatives`), computed by the engine from the current
//! state (`Formulation::quantity_rates`), never by differences in time: all outputs' first
//! and second derivatives are evaluated together on the first read after a change of the
//! state, like the output values.

use super::{Binding, Causality, Phase, Slave, SlaveError};
use mbfmu_engine::Simulation;
use mbfmu_model::format::Quantity;
use mbfmu_model::variables::ModelInterface;

/// The highest output derivative order (modelDescription.xml `maxOutputDerivativeOrder`).
pub const MAX_OUTPUT_ORDER: i32 = mbfmu_model::variables::MAX_OUTPUT_DERIVATIVE_ORDER as i32;

/// First and second derivatives of every output at the current state, evaluated when first
/// read after an invalidation.
pub(super) struct RateCache {
    /// Position in `quantities` of each value reference's output (None for other variables).
    slots: Vec<Option<usize>>,
    quantities: Vec<Quantity>,
    first: Vec<f64>,
    second: Vec<f64>,
    valid: bool,
}

impl RateCache {
    pub fn new(interface: &ModelInterface) -> RateCache {
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
        let n = quantities.len();
        RateCache { slots, quantities, first: vec![0.0; n], second: vec![0.0; n], valid: false }
    }

    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Derivative of `order` (1 or 2) of output `vr`; None if `vr` is not an output.
    fn get(&mut self, vr: u32, order: usize, sim: &Simulation) -> Option<f64> {
        let slot = (*self.slots.get(vr as usize)?)?;
        if !self.valid {
            sim.quantity_rates(&self.quantities, &mut self.first, &mut self.second);
            self.valid = true;
        }
        Some(if order == 1 { self.first[slot] } else { self.second[slot] })
    }
}

impl Slave {
    /// True if `vr` is an output whose derivatives can be asked for (a continuous Real
    /// output).
    pub fn is_continuous_output(&self, vr: u32) -> bool {
        self.variable(vr).is_ok_and(|v| v.causality == Causality::Output && v.is_continuous_signal())
    }

    /// The time derivative of `order` (1 or 2) of output `vr` at the current time; 0 where
    /// the state does not determine it (see the engine's `quantity_rates`).
    pub fn get_output_derivative(&mut self, vr: u32, order: i32) -> Result<f64, SlaveError> {
        let v = self.variable(vr)?;
        if !self.is_continuous_output(vr) {
            return Err(SlaveError::Derivative {
                name: v.name.clone(),
                value_reference: vr,
                reason: "it is not a continuous output; derivatives exist for the outputs of type Real \
                         (causality=\"output\", variability=\"continuous\")"
                    .into(),
            });
        }
        if !(1..=MAX_OUTPUT_ORDER).contains(&order) {
            return Err(SlaveError::InvalidValue {
                name: format!("the derivative order of '{}'", v.name),
                value: order.to_string(),
                reason: format!("orders 1 to {MAX_OUTPUT_ORDER} exist (maxOutputDerivativeOrder = {MAX_OUTPUT_ORDER})"),
            });
        }
        if self.model_exchange {
            return Err(SlaveError::WrongPhase {
                operation: "output derivatives (co-simulation only)",
                phase: self.phase,
            });
        }
        if self.phase == Phase::Instantiated {
            return Err(SlaveError::WrongPhase { operation: "reading output derivatives", phase: self.phase });
        }
        self.ensure_built()?;
        let sim = self.sim.as_ref().expect("built by ensure_built");
        Ok(self.rates.get(vr, order as usize, sim).expect("checked: an output"))
    }
}
