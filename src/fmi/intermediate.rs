//! FMI 3 Intermediate Update Mode (FMI 3.0 Sect. 4.2.2, `providesIntermediateUpdate="true"`):
//! the importer's way of interpolating inputs, which replaced `fmi2SetRealInputDerivatives`
//! (FMI 3.0 Sect. 1.1). When the importer passed an `intermediateUpdate` callback to
//! fmi3InstantiateCoSimulation, fmi3DoStep takes its internal steps one at a time on the grid
//! of the uninterrupted step and calls back after each, at its end time t_k:
//! `intermediateStepFinished = true` (the outputs are those of the accepted internal step),
//! `intermediateVariableGetAllowed` if the importer registered intermediate variables,
//! `intermediateVariableSetRequested` before every internal step but the last (inputs set
//! now hold over the next internal step, as a value set at a communication point holds over
//! a doStep), `canReturnEarly = false` (`canReturnEarlyAfterIntermediateUpdate="false"`).
//!
//! The intermediate variables are the continuous inputs and the continuous (Real) outputs,
//! declared `intermediateUpdate="true"`; `requiredIntermediateVariables` must name only those.
//! While the callback runs, the instance is in Intermediate Update Mode and admits exactly the
//! calls Sect. 4.2.2 lists: fmi3Get{Type} and fmi3GetOutputDerivatives of the registered
//! variables (if getting is allowed) and fmi3Set{Type} of the registered inputs (if setting
//! is requested); anything else is an Error, which ends the step with Error (Terminated).
//!
//! Soundness: the callback re-enters the library through the instance handle, so no Rust
//! reference to the instance may live across it. Each stretch between callbacks runs behind
//! the firewall on its own, with a fresh reference; the callback is called in between.

use super::fmi3::{with, I3};
use super::instance::Outcome;
use super::logging::Status;
use super::state::{Call, Fmi3State};
use crate::slave::{SlaveError, StepInProgress};
use fmi_sys::fmi3::*;
use mbfmu_model::variables::Causality;
use mbfmu_model::Model;

/// The importer's intermediate-update callback and what it registered.
pub struct IntermediateUpdate {
    callback: unsafe extern "C" fn(fmi3InstanceEnvironment, fmi3Float64, bool, bool, bool, bool, *mut bool, *mut f64),
    environment: fmi3InstanceEnvironment,
    /// `requiredIntermediateVariables`, sorted.
    required: Vec<u32>,
    /// Some of them are inputs.
    inputs: bool,
}

/// True for the variables declared `intermediateUpdate="true"`: continuous Real inputs and
/// outputs.
pub fn is_intermediate(model: &Model, vr: u32) -> bool {
    model.interface.variable(vr).is_some_and(|v| v.is_continuous_signal())
}

impl IntermediateUpdate {
    /// What fmi3InstantiateCoSimulation was given; None without a callback. An error names
    /// a variable that is not an intermediate one.
    pub fn of_instantiation(
        model: &Model,
        callback: fmi3IntermediateUpdateCallback,
        environment: fmi3InstanceEnvironment,
        required: &[u32],
    ) -> Result<Option<IntermediateUpdate>, String> {
        let Some(callback) = callback else {
            return if required.is_empty() {
                Ok(None)
            } else {
                Err(format!(
                    "requiredIntermediateVariables names {} variable(s), but intermediateUpdate is NULL (FMI 3.0 \
                     Sect. 2.3.1); pass the callback or no variables",
                    required.len()
                ))
            };
        };
        for &vr in required {
            if !is_intermediate(model, vr) {
                let what = model
                    .interface
                    .variable(vr)
                    .map_or("no variable".to_string(), |v| format!("'{}' ({:?}, {:?})", v.name, v.causality, v.ty));
                return Err(format!(
                    "requiredIntermediateVariables: value reference {vr} is {what}, which has no \
                     intermediateUpdate=\"true\"; the intermediate variables are the continuous inputs and the \
                     continuous (Float64) outputs"
                ));
            }
        }
        let mut required = required.to_vec();
        required.sort_unstable();
        required.dedup();
        let inputs = required.iter().any(|&vr| model.interface.variables[vr as usize].causality == Causality::Input);
        Ok(Some(IntermediateUpdate { callback, environment, required, inputs }))
    }
}

impl I3 {
    /// In Intermediate Update Mode: `vrs` must be registered intermediate variables, and
    /// setting (`set`) must be requested or getting allowed now. Outside it: no restriction.
    #[inline]
    pub fn check_intermediate_access(&self, function: &str, vrs: &[u32], set: bool) -> Result<(), String> {
        // Outside Intermediate Update Mode (every call but a callback's): nothing to check.
        match self.state {
            Fmi3State::IntermediateUpdate { .. } => self.check_intermediate_update_access(function, vrs, set),
            _ => Ok(()),
        }
    }

    /// [`Self::check_intermediate_access`] in Intermediate Update Mode.
    fn check_intermediate_update_access(&self, function: &str, vrs: &[u32], set: bool) -> Result<(), String> {
        let Fmi3State::IntermediateUpdate { set: may_set, get: may_get } = self.state else { return Ok(()) };
        let Some(update) = &self.intermediate else { return Ok(()) };
        if set && !may_set || !set && !may_get {
            let flag = if set { "intermediateVariableSetRequested" } else { "intermediateVariableGetAllowed" };
            return Err(format!(
                "{function} is not possible at this intermediate update: {flag} = false (FMI 3.0 Sect. 4.2.2)"
            ));
        }
        for &vr in vrs {
            if update.required.binary_search(&vr).is_err() {
                let name = self.slave.variable(vr).map_or("no variable".to_string(), |v| format!("'{}'", v.name));
                return Err(format!(
                    "value reference {vr} ({name}) is not one of the requiredIntermediateVariables given at \
                     instantiation ({:?}); only those are accessible in Intermediate Update Mode (FMI 3.0 Sect. 4.2.2)",
                    update.required
                ));
            }
        }
        Ok(())
    }
}

/// The output arguments of fmi3DoStep (checked and written behind the firewall).
#[derive(Clone, Copy)]
pub struct StepOutputs {
    pub early_return: *mut bool,
    pub last_successful_time: *mut f64,
}

impl StepOutputs {
    fn write(self, early: bool, last: f64) {
        // Checked non-NULL and aligned before the step began.
        unsafe { (*self.early_return, *self.last_successful_time) = (early, last) };
    }
}

/// The rest of an fmi3DoStep from `t` that has an intermediate-update callback: internal
/// steps and callbacks in turn until the step ends (see the module documentation).
///
/// # Safety
/// `instance` is the handle fmi3DoStep was called with; `outputs` were checked by it.
pub unsafe fn continue_step(
    instance: fmi3Instance,
    mut step: StepInProgress,
    t: f64,
    counters: (u64, u64),
    outputs: StepOutputs,
) -> fmi3Status {
    loop {
        let mut update = None;
        let status = unsafe {
            with(instance, "fmi3DoStep", Call::StepContinuation, |i| match i.slave.step_once(&mut step) {
                Ok((time, last)) => {
                    let u = i.intermediate.as_ref().expect("a step with intermediate updates");
                    let (set, get) = (u.inputs && !last, !u.required.is_empty());
                    i.state = Fmi3State::IntermediateUpdate { set, get };
                    update = Some((u.callback, u.environment, time, last, set, get));
                    Ok(Status::Ok)
                }
                Err(e) => conclude_step(i, t, step.target() - t, counters, Err(e), outputs),
            })
        };
        let Some((callback, environment, time, last, set, get)) = update else { return status };
        // No reference to the instance lives here: the importer calls back into it.
        let (mut early_requested, mut early_time) = (false, time);
        unsafe { callback(environment, time, set, get, true, false, &mut early_requested, &mut early_time) };
        let status = unsafe {
            with(instance, "fmi3DoStep", Call::StepContinuation, |i| {
                if !matches!(i.state, Fmi3State::IntermediateUpdate { .. }) {
                    return Err(format!(
                        "a call of the importer during the intermediate update at t = {time} failed (see the log \
                         above); the step from {t} ends there"
                    ));
                }
                i.state = Fmi3State::StepMode;
                if last {
                    conclude_step(i, t, step.target() - t, counters, Ok(()), outputs)
                } else {
                    Ok(Status::Ok)
                }
            })
        };
        if last || status != Status::Ok.code() {
            return status;
        }
    }
}

/// What fmi3DoStep returns for the result of its step (Sect. 4.2.1): OK with
/// `lastSuccessfulTime`; Discard back at the communication point after a failed step (the
/// state before the call restored); an early return at the last internal step when the
/// step budget ran out and the importer allowed early return, else Discard.
pub fn conclude_step(
    i: &mut I3,
    t: f64,
    h: f64,
    counters: (u64, u64),
    result: Result<(), SlaveError>,
    outputs: StepOutputs,
) -> Outcome {
    match result {
        Ok(()) => {
            i.log_solver_work("fmi3DoStep", t, counters);
            i.last_successful_time = i.slave.time();
            outputs.write(false, i.last_successful_time);
            Ok(Status::Ok)
        }
        Err(SlaveError::Step { error, reached }) => {
            i.slave.rollback().map_err(|e| {
                format!(
                    "the step from {t} failed at {reached} ({error}) and the state before it cannot be restored: {e}"
                )
            })?;
            i.last_successful_time = i.slave.time();
            outputs.write(false, i.last_successful_time);
            i.report(
                Status::Discard,
                &format!(
                    "fmi3DoStep: the step from {t} to {} was discarded: {error}; the internal solver reached \
                     {reached}; the FMU is back at {t} as before the call (retry with a smaller \
                     communicationStepSize, or use fmi3SetFMUState / fmi3Reset)",
                    t + h
                ),
            );
            Ok(Status::Discard)
        }
        // Sect. 4.2.1: early return "for any other reason" is the FMU's request for a
        // communication point at lastSuccessfulTime, allowed if the importer allowed it;
        // otherwise Discard, which needs the state before the call, as above.
        Err(e @ SlaveError::StepBudget { reached, .. }) => {
            i.log_solver_work("fmi3DoStep", t, counters);
            if i.early_return_allowed {
                i.last_successful_time = reached;
                outputs.write(true, reached);
                i.log.log(
                    Status::Ok,
                    "logNonlinearSystems",
                    &format!("fmi3DoStep: early return at {reached} (earlyReturn = true, lastSuccessfulTime = {reached}): {e}"),
                );
                return Ok(Status::Ok);
            }
            i.slave.rollback().map_err(|r| {
                format!("the step from {t} stopped at {reached} ({e}) and the state before it cannot be restored: {r}")
            })?;
            i.last_successful_time = i.slave.time();
            outputs.write(false, i.last_successful_time);
            i.report(
                Status::Discard,
                &format!(
                    "fmi3DoStep: the step from {t} to {} was discarded: {e}; the FMU is back at {t} as before the \
                     call (earlyReturnAllowed = false at instantiation; with true the FMU returns early at \
                     {reached} instead)",
                    t + h
                ),
            );
            Ok(Status::Discard)
        }
        Err(e) => Err(e.to_string()),
    }
}
