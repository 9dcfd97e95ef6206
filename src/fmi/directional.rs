//! fmi2GetDirectionalDerivative (FMI 2.0.4 Sect. 2.1.9) and fmi3GetDirectionalDerivative
//! (FMI 3.0 Sect. 2.2.11): arrays checked, the rest is the slave's (which unknowns and knowns
//! are allowed where, and how the derivatives are formed: `crate::slave` `directional.rs`).
//! A failure of the model equations at the point is a Discard, anything else an Error with
//! a log line naming the function and the variable.

use super::fmi2::{with as with2, I2};
use super::fmi3::{with as with3, I3};
use super::instance::Outcome;
use super::logging::Status;
use super::state::{Call, Machine};
use super::values::{input, output};
use crate::slave::SlaveError;
use fmi_sys::fmi2::*;
use fmi_sys::fmi3::*;

fn finish<S: Machine>(i: &mut super::instance::Instance<S>, function: &str, r: Result<(), SlaveError>) -> Outcome {
    match r {
        Ok(()) => Ok(Status::Ok),
        Err(e) if e.is_discard() => {
            i.report(Status::Discard, &format!("{function}: {e}"));
            Ok(Status::Discard)
        }
        Err(e) => Err(e.to_string()),
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetDirectionalDerivative(
    c: fmi2Component,
    vUnknown_ref: *const fmi2ValueReference,
    nUnknown: usize,
    vKnown_ref: *const fmi2ValueReference,
    nKnown: usize,
    dvKnown: *const fmi2Real,
    dvUnknown: *mut fmi2Real,
) -> fmi2Status {
    const F: &str = "fmi2GetDirectionalDerivative";
    unsafe {
        with2(c, F, Call::GetDirectionalDerivative, |i: &mut I2| {
            let unknowns = input(vUnknown_ref, nUnknown, "vUnknown_ref")?;
            let knowns = input(vKnown_ref, nKnown, "vKnown_ref")?;
            let seed = input(dvKnown, nKnown, "dvKnown")?;
            let out = output(dvUnknown, nUnknown, "dvUnknown")?;
            let r = i.slave.directional_derivative(unknowns, knowns, seed, out);
            finish(i, F, r)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetDirectionalDerivative(
    instance: fmi3Instance,
    unknowns: *const fmi3ValueReference,
    nUnknowns: usize,
    knowns: *const fmi3ValueReference,
    nKnowns: usize,
    seed: *const fmi3Float64,
    nSeed: usize,
    sensitivity: *mut fmi3Float64,
    nSensitivity: usize,
) -> fmi3Status {
    const F: &str = "fmi3GetDirectionalDerivative";
    unsafe {
        with3(instance, F, Call::GetDirectionalDerivative, |i: &mut I3| {
            // Every variable is a scalar: one seed per known, one sensitivity per unknown.
            for (what, n, values, count) in
                [("nSeed", nSeed, "nKnowns", nKnowns), ("nSensitivity", nSensitivity, "nUnknowns", nUnknowns)]
            {
                if n != count {
                    return Err(format!("{what} = {n} but {values} = {count}; every variable of this FMU is a scalar"));
                }
            }
            let unknowns = input(unknowns, nUnknowns, "unknowns")?;
            let knowns = input(knowns, nKnowns, "knowns")?;
            let seed = input(seed, nSeed, "seed")?;
            let out = output(sensitivity, nSensitivity, "sensitivity")?;
            let r = i.slave.directional_derivative(unknowns, knowns, seed, out);
            finish(i, F, r)
        })
    }
}

// ---- Compile-time check of the signatures against the standards' headers ------------------

const _: fmi2GetDirectionalDerivativeTYPE = Some(fmi2GetDirectionalDerivative);
const _: fmi3GetDirectionalDerivativeTYPE = Some(fmi3GetDirectionalDerivative);
