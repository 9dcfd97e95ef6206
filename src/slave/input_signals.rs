//! Input derivatives (FMI 2.0.4 Sect. 4.2.1, `fmi2SetRealInputDerivatives`): the importer
//! gives an input's first and second time derivatives at the current communication point,
//! and over the following communication step the input is the polynomial
//! u(t) = u + u' (t - t_c) + u'' (t - t_c)^2 / 2, evaluated inside the integrator wherever
//! the formulation evaluates its inputs (`mbfmu_engine::inputs`).
//!
//! Semantics chosen where the standard is silent: the derivatives apply to the next doStep
//! only. When it completes, every input is held at the value its polynomial reached (the
//! signal stays continuous), its derivatives return to zero, and the getters report that
//! value; a value set at the same communication point keeps the derivatives set there
//! (calls in either order mean the same). Derivatives set before the end of initialization
//! refer to the start time.

use super::{Binding, Causality, Phase, Slave, SlaveError, VarType};
use mbfmu_engine::inputs::MAX_INPUT_ORDER;
use mbfmu_engine::Simulation;

impl Slave {
    /// The input slot of `vr`, or an error naming the variable and the inputs there are.
    fn continuous_input(&self, vr: u32) -> Result<usize, SlaveError> {
        let v = self.variable(vr)?;
        match v.binding {
            Binding::Input { index } if v.ty == VarType::Real => Ok(index),
            _ => {
                let inputs: Vec<String> = self
                    .variables()
                    .iter()
                    .filter(|w| w.causality == Causality::Input)
                    .map(|w| format!("'{}' (value reference {})", w.name, w.value_reference))
                    .collect();
                Err(SlaveError::Derivative {
                    name: v.name.clone(),
                    value_reference: vr,
                    reason: if inputs.is_empty() {
                        "it is not a continuous Real input, and this model has no inputs".into()
                    } else {
                        format!("it is not a continuous Real input; the inputs are {}", inputs.join(", "))
                    },
                })
            }
        }
    }

    /// Sets the time derivative of `order` (1 or 2) of input `vr` at the current
    /// communication point.
    pub fn set_input_derivative(&mut self, vr: u32, order: i32, value: f64) -> Result<(), SlaveError> {
        let index = self.continuous_input(vr)?;
        let name = &self.variable(vr)?.name;
        let order = usize::try_from(order).ok().filter(|o| (1..=MAX_INPUT_ORDER).contains(o)).ok_or_else(|| {
            SlaveError::InvalidValue {
                name: format!("the derivative order of '{name}'"),
                value: order.to_string(),
                reason: format!("orders 1 to {MAX_INPUT_ORDER} are accepted (first and second time derivative)"),
            }
        })?;
        if !value.is_finite() {
            return Err(SlaveError::InvalidValue {
                name: format!("the derivative of order {order} of '{name}'"),
                value: value.to_string(),
                reason: "not a finite number".into(),
            });
        }
        if self.phase == Phase::Terminated {
            return Err(SlaveError::NotSettable { name: name.clone(), reason: "the instance is terminated".into() });
        }
        if let Some(sim) = self.sim.as_mut() {
            sim.set_input_derivative(index, order, value).map_err(|reason| SlaveError::InvalidValue {
                name: format!(
                    "the derivative of order {order} of '{}'",
                    self.model.interface.variables[vr as usize].name
                ),
                value: value.to_string(),
                reason,
            })?;
        }
        self.input_derivatives[index][order - 1] = value;
        self.state_changed();
        Ok(())
    }

    /// The derivatives set so far, into a simulation just built.
    pub(super) fn apply_input_derivatives(&self, sim: &mut Simulation) -> Result<(), SlaveError> {
        for (index, derivatives) in self.input_derivatives.iter().enumerate() {
            for (k, &value) in derivatives.iter().enumerate() {
                if value != 0.0 {
                    sim.set_input_derivative(index, k + 1, value).map_err(SlaveError::Model)?;
                }
            }
        }
        Ok(())
    }

    /// The end of a communication step: inputs with derivatives are held at the value they
    /// reached, which the getters report from now on.
    #[inline]
    pub(super) fn hold_inputs(&mut self) -> Result<(), SlaveError> {
        // Inlined: the check runs after every communication step, the rest rarely.
        if self.input_derivatives.iter().all(|d| *d == [0.0; 2]) {
            return Ok(());
        }
        self.hold_changed_inputs()
    }

    fn hold_changed_inputs(&mut self) -> Result<(), SlaveError> {
        let Some(sim) = self.sim.as_mut() else { return Ok(()) };
        sim.hold_inputs().map_err(SlaveError::Model)?;
        for v in &self.model.interface.variables {
            if let Binding::Input { index } = v.binding {
                self.values[v.value_reference as usize] = sim.inputs()[index];
            }
        }
        self.input_derivatives.iter_mut().for_each(|d| *d = [0.0; 2]);
        Ok(())
    }
}
