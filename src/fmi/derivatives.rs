//! Time derivatives of inputs and outputs at the C boundary: FMI 2.0.4 Sect. 4.2.1
//! (`fmi2SetRealInputDerivatives`, `fmi2GetRealOutputDerivatives`; capability flags
//! `canInterpolateInputs="true"`, `maxOutputDerivativeOrder="2"`) and FMI 3.0 Sect. 4.1.2
//! (`fmi3GetOutputDerivatives`; FMI 3 has no input derivatives: intermediate inputs are set
//! in Intermediate Update Mode instead, see [`super::intermediate`]). The slave checks the
//! variables, orders and values and names the valid choices; the firewall logs that with
//! the function's name.

use super::fmi2::{with as with2, I2};
use super::fmi3::{check_counts, with as with3, I3};
use super::instance::{Instance, Outcome};
use super::logging::Status;
use super::state::{Call, Machine};
use super::values::{input, output};
use fmi_sys::{fmi2::*, fmi3::*};

impl<S: Machine> Instance<S> {
    /// Co-simulation only: a Model Exchange instance has no communication steps.
    fn require_co_simulation(&self) -> Result<(), String> {
        if self.slave.is_model_exchange() {
            Err("input and output derivatives belong to co-simulation; this is a Model Exchange instance".into())
        } else {
            Ok(())
        }
    }

    /// Derivatives of the outputs `vrs` of the orders `orders` into `values`.
    fn output_derivatives(&mut self, vrs: &[u32], orders: &[i32], values: &mut [f64]) -> Outcome {
        self.require_co_simulation()?;
        for ((&vr, &order), value) in vrs.iter().zip(orders).zip(values.iter_mut()) {
            *value = self.slave.get_output_derivative(vr, order).map_err(|e| e.to_string())?;
        }
        Ok(Status::Ok)
    }
}

impl I2 {
    /// Sets the derivatives `values` of the orders `orders` of the inputs `vrs`.
    fn input_derivatives(&mut self, vrs: &[u32], orders: &[i32], values: &[f64]) -> Outcome {
        self.require_co_simulation()?;
        for ((&vr, &order), &value) in vrs.iter().zip(orders).zip(values) {
            self.slave.set_input_derivative(vr, order, value).map_err(|e| e.to_string())?;
        }
        Ok(Status::Ok)
    }
}

/// Derivatives of order 1 or 2 of continuous Real inputs, at the current communication point;
/// the input is their polynomial over the next doStep, then held at the value it reached.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetRealInputDerivatives(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    order: *const fmi2Integer,
    value: *const fmi2Real,
) -> fmi2Status {
    unsafe {
        with2(c, "fmi2SetRealInputDerivatives", Call::SetInputDerivatives, |i| {
            i.input_derivatives(input(vr, nvr, "vr")?, input(order, nvr, "order")?, input(value, nvr, "value")?)
        })
    }
}

/// Derivatives of order 1 or 2 of continuous Real outputs at the current time.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealOutputDerivatives(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    order: *const fmi2Integer,
    value: *mut fmi2Real,
) -> fmi2Status {
    unsafe {
        with2(c, "fmi2GetRealOutputDerivatives", Call::GetOutputDerivatives, |i| {
            i.output_derivatives(input(vr, nvr, "vr")?, input(order, nvr, "order")?, output(value, nvr, "value")?)
        })
    }
}

/// Derivatives of order 1 or 2 of continuous outputs at the current time (Step Mode,
/// Terminated, and in Intermediate Update Mode for the intermediate variables the importer
/// may get there).
#[no_mangle]
pub unsafe extern "C" fn fmi3GetOutputDerivatives(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    orders: *const fmi3Int32,
    values: *mut fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    const F: &str = "fmi3GetOutputDerivatives";
    unsafe {
        with3(instance, F, Call::GetOutputDerivatives, |i: &mut I3| {
            check_counts(nValueReferences, nValues)?;
            let vrs = input(valueReferences, nValueReferences, "valueReferences")?;
            i.check_intermediate_access(F, vrs, false)?;
            i.output_derivatives(vrs, input(orders, nValueReferences, "orders")?, output(values, nValues, "values")?)
        })
    }
}

// ---- Compile-time check of the signatures against the headers' typedefs --------------------

const _: fmi2SetRealInputDerivativesTYPE = Some(fmi2SetRealInputDerivatives);
const _: fmi2GetRealOutputDerivativesTYPE = Some(fmi2GetRealOutputDerivatives);
const _: fmi3GetOutputDerivativesTYPE = Some(fmi3GetOutputDerivatives);
