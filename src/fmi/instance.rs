//! One FMU instance behind an opaque C handle, and the firewall every exported function
//! goes through (docs/architecture.md#the-c-boundary-is-a-firewall): handle check, state-machine check, panic
//! catching, and mapping of every failure to a status with a log line.

use super::intermediate::IntermediateUpdate;
use super::logging::{Logger, Status, LOG_CALLS, LOG_NONLINEAR_SYSTEMS};
use super::state::{Call, Machine};
use crate::slave::Slave;
use mbfmu_model::Model;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

/// Everything one instance owns; nothing is shared with other instances.
#[repr(C)]
pub struct Instance<S: Machine> {
    /// First field, so that a foreign or freed handle can be told apart (best effort).
    magic: u64,
    pub state: S,
    pub slave: Slave,
    pub log: Logger,
    /// FMI 2 fmi2LastSuccessfulTime: the slave's time after the last doStep.
    pub last_successful_time: f64,
    pub resource_dir: Option<PathBuf>,
    /// FMI 3 `earlyReturnAllowed` of fmi3InstantiateCoSimulation (false for FMI 2).
    pub early_return_allowed: bool,
    /// FMI 3 intermediate-update callback and the variables it may access (None for FMI 2).
    pub intermediate: Option<IntermediateUpdate>,
}

/// Why a function of Model Exchange is not available for a model.
pub const MODEL_EXCHANGE: &str = "this FMU provides co-simulation only (no <ModelExchange> element)";

/// What an operation returns: a status (OK, Warning, Discard; already logged if not OK) or
/// the reason for an Error, which the firewall logs.
pub type Outcome = Result<Status, String>;

impl<S: Machine> Instance<S> {
    pub fn new(model: Arc<Model>, log: Logger, resource_dir: Option<PathBuf>) -> Instance<S> {
        Self::around(Slave::new(model), log, resource_dir)
    }

    /// A Model Exchange instance (models in the state-space formulation only); on failure
    /// the logger comes back for the report.
    pub fn new_model_exchange(
        model: Arc<Model>,
        log: Logger,
        resource_dir: Option<PathBuf>,
    ) -> Result<Instance<S>, (Logger, String)> {
        match Slave::new_model_exchange(model) {
            Ok(slave) => Ok(Self::around(slave, log, resource_dir)),
            Err(e) => Err((log, e.to_string())),
        }
    }

    fn around(slave: Slave, log: Logger, resource_dir: Option<PathBuf>) -> Instance<S> {
        let last_successful_time = slave.time();
        Instance {
            magic: S::MAGIC,
            state: S::INSTANTIATED,
            slave,
            log,
            last_successful_time,
            resource_dir,
            early_return_allowed: false,
            intermediate: None,
        }
    }

    pub fn into_handle(self) -> *mut c_void {
        Box::into_raw(Box::new(self)).cast()
    }

    /// The instance behind a handle, or `None` for NULL and for handles that do not carry
    /// this standard's tag (a freed instance, an instance of the other standard, garbage
    /// that happens to be readable).
    ///
    /// # Safety
    /// `handle` is NULL or points to at least 8 readable bytes; if it is one of ours, no
    /// other reference to the instance exists during the call (FMI 2.0.4 Sect. 2.1.1: one
    /// instance is never called concurrently).
    pub unsafe fn from_handle<'a>(handle: *mut c_void) -> Option<&'a mut Instance<S>> {
        if handle.is_null() || !handle.cast::<u64>().is_aligned() {
            return None;
        }
        if unsafe { handle.cast::<u64>().read() } != S::MAGIC {
            return None;
        }
        Some(unsafe { &mut *handle.cast::<Instance<S>>() })
    }

    /// FreeInstance: NULL and foreign handles are ignored (FMI 3.0 Sect. 2.3.1).
    ///
    /// # Safety
    /// As for [`Instance::from_handle`]; the handle must not be used afterwards.
    pub unsafe fn free(handle: *mut c_void) {
        if let Some(instance) = unsafe { Self::from_handle(handle) } {
            if !instance.state.may_free() {
                // The FMU is inside fmi3DoStep's callback: freeing now would pull the instance
                // from under it. The importer broke the standard; keep the instance.
                let text = format!("FreeInstance: not allowed in state {} (FMI 3.0 Sect. 4.2.2)", instance.state);
                let _ = catch_unwind(AssertUnwindSafe(|| instance.report(Status::Error, &text)));
                return;
            }
            instance.magic = 0;
            let boxed = unsafe { Box::from_raw(instance as *mut Instance<S>) };
            // A panic while dropping must not cross the boundary; the memory may then leak.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(boxed)));
        }
    }

    /// Internal steps taken and Newton iterations spent so far.
    pub fn solver_counters(&self) -> (u64, u64) {
        self.slave.simulation().map_or((0, 0), |s| (s.steps(), s.total_iterations()))
    }

    /// Category logNonlinearSystems: the solver work of the DoStep from `t` that began with
    /// the counters `before` (formatted only when the category is on).
    pub fn log_solver_work(&self, function: &str, t: f64, before: (u64, u64)) {
        if self.log.wants_index(Status::Ok, LOG_NONLINEAR_SYSTEMS) {
            let (steps, iterations) = self.solver_counters();
            let (steps, iterations) = (steps.saturating_sub(before.0), iterations.saturating_sub(before.1));
            let per_step = if steps > 0 { iterations as f64 / steps as f64 } else { 0.0 };
            self.log.log(
                Status::Ok,
                "logNonlinearSystems",
                &format!(
                    "{function}: {t} -> {}: {steps} internal steps, {iterations} Newton iterations ({per_step:.2} per step)",
                    self.slave.time()
                ),
            );
        }
    }

    /// Logs `text` with the category that belongs to `status`.
    pub fn report(&self, status: Status, text: &str) {
        if let Some(category) = status.category() {
            self.log.log(status, category, text);
        }
    }

    /// Forwards the slave's messages; returns Warning if one of them is a warning.
    #[inline]
    pub fn flush_messages(&mut self) -> Status {
        // Most calls produce none.
        if self.slave.has_messages() {
            self.forward_messages()
        } else {
            Status::Ok
        }
    }

    fn forward_messages(&mut self) -> Status {
        let mut status = Status::Ok;
        for m in self.slave.take_messages() {
            let s = if m.category == "logStatusWarning" { Status::Warning } else { Status::Ok };
            status = status.max(s);
            self.log.log(s, m.category, &m.text);
        }
        status
    }

    /// Moves to the state the standard prescribes after an Error return.
    pub fn fail(&mut self) {
        self.state = S::AFTER_ERROR;
    }

    /// For the model-exchange functions: the instance must be a Model Exchange instance and
    /// its state must allow `call` (the functions go through [`run`] as `Call::Unsupported`
    /// so that co-simulation instances get this explanation).
    pub fn require_model_exchange(&self, call: Call) -> Result<(), String> {
        if !self.slave.is_model_exchange() {
            return Err(if self.slave.model().description.solver.formulation.model_exchange() {
                "this is a co-simulation instance; instantiate the FMU for Model Exchange to use this function".into()
            } else {
                MODEL_EXCHANGE.into()
            });
        }
        if !self.state.allows(call) {
            return Err(format!("not allowed in state {} ({})", self.state, rule::<S>()));
        }
        Ok(())
    }
}

/// The text of a panic payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Runs `op` on the instance behind `handle`: checks the handle and the state machine,
/// catches panics, logs failures through the host's callback and applies the standard's
/// transition after an Error (FMI 2.0.4 Sect. 2.1.3; FMI 3.0 Sect. 2.3.1).
///
/// # Safety
/// As for [`Instance::from_handle`].
pub unsafe fn run<S: Machine>(
    handle: *mut c_void,
    function: &'static str,
    call: Call,
    op: impl FnOnce(&mut Instance<S>) -> Outcome,
) -> u32 {
    // Without a valid handle there is no logger to explain the error to.
    let Some(instance) = (unsafe { Instance::<S>::from_handle(handle) }) else {
        return Status::Error.code();
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        if instance.log.wants_index(Status::Ok, LOG_CALLS) {
            instance.log.log(Status::Ok, "logCalls", &format!("{function} (state {})", instance.state));
        }
        if !instance.state.allows(call) {
            return Err(format!("not allowed in state {} ({})", instance.state, rule::<S>()));
        }
        let outcome = op(instance);
        let notes = instance.flush_messages();
        outcome.map(|s| s.max(notes))
    }));
    let reason = match result {
        Ok(Ok(status)) => return status.code(),
        Ok(Err(reason)) => reason,
        Err(payload) => format!(
            "internal error ({}); the instance can be restored with SetFMUstate or Reset",
            panic_text(payload.as_ref())
        ),
    };
    instance.fail();
    // Logging calls into the host; guard it as well.
    let _ = catch_unwind(AssertUnwindSafe(|| instance.report(Status::Error, &format!("{function}: {reason}"))));
    Status::Error.code()
}

/// Where the state machine is defined, for messages.
fn rule<S: Machine>() -> &'static str {
    if S::PREFIX == "fmi2" {
        "FMI 2.0.4 Sect. 3.2.3 and 4.2.4"
    } else {
        "FMI 3.0 Sect. 3.2 and 4.2"
    }
}

/// Catches panics of functions that have no instance yet (instantiation, GetVersion).
pub fn guard<R>(fallback: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}
