//! The system master's FMU instances, made through the FMI C API (fmi-sys bindings of the
//! archive the `fmi` crate unpacked and loaded, `fmu::load`): the master needs functions the
//! `fmi` crate 0.8 does not wrap, FMI 2 output and input derivatives
//! (fmi2GetRealOutputDerivatives, fmi2SetRealInputDerivatives; FMI 2.0.4 Sect. 4.2.1) and the
//! FMI 3 intermediate-update callback (FMI 3.0 Sect. 4.2.2). Buffers are kept per instance, so
//! the calls of a communication step allocate nothing.

use crate::error::{Error, Result};
use crate::fmu::{sized, Buffers, Fmu, Import, StepOutcome, Value};
use crate::log::{fmu_text, forward};
use crate::modeldesc::{ModelInfo, VarType, Variable};
use fmi::traits::FmiImport;
use fmi_sys::{fmi2 as f2, fmi3 as f3};
use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;

/// One component's instance, of either FMI version.
pub trait Unit {
    fn set(&mut self, var: &Variable, value: &Value) -> Result<()>;
    fn set_reals(&mut self, vrs: &[u32], values: &[f64]) -> Result<()>;
    /// Reads variables of one numeric type into `out` as f64.
    fn get(&mut self, ty: VarType, vrs: &[u32], out: &mut [f64]) -> Result<()>;
    fn enter_initialization(&mut self, tolerance: Option<f64>, start: f64, stop: f64) -> Result<()>;
    fn exit_initialization(&mut self) -> Result<()>;
    fn step(&mut self, t: f64, h: f64) -> StepOutcome;
    fn terminate(&mut self) -> Result<()>;
    /// First time derivatives of Real outputs at the current communication point.
    fn output_derivatives(&mut self, vrs: &[u32], out: &mut [f64]) -> Result<()>;
    /// Real inputs as value and slope over the coming step from `t` (u(t + s) = value + slope
    /// s): FMI 2 sets the value and its first derivative; FMI 3 sets the value and hands the
    /// FMU u(t + s) whenever it asks during the step (intermediate update).
    fn set_real_slopes(&mut self, t: f64, vrs: &[u32], values: &[f64], slopes: &[f64]) -> Result<()>;
}

fn fmi_error(call: &str, status: u32) -> Error {
    let name = ["OK", "Warning", "Discard", "Error", "Fatal", "Pending"].get(status as usize).copied().unwrap_or("?");
    Error::msg(format!("{call} returned {name}"))
}

/// OK and Warning pass (FMI 2 and FMI 3 number their statuses alike up to Fatal).
fn check(call: &str, status: u32) -> Result<()> {
    if status <= 1 {
        Ok(())
    } else {
        Err(fmi_error(call, status))
    }
}

fn cstring(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::msg(format!("'{s}' contains a NUL character")))
}

/// A new instance of `fmu` named `name`. `intermediate`: FMI 3 inputs the master will set
/// during intermediate updates (requiredIntermediateVariables).
pub fn instantiate(
    fmu: &Fmu,
    info: &ModelInfo,
    name: &str,
    debug_logging: bool,
    intermediate: &[u32],
) -> Result<Box<dyn Unit>> {
    let (import, identifier) = fmu.import();
    let categories: Vec<&str> = if debug_logging {
        info.log_categories.iter().map(String::as_str).collect()
    } else {
        info.log_categories.iter().map(String::as_str).filter(|c| c.starts_with("logStatus")).collect()
    };
    let load = |e: fmi::Error| Error::msg(format!("cannot load the binary of {identifier}: {e}"));
    let refused = || {
        Error::msg(format!(
            "{identifier} refused to instantiate (its Instantiate function returned NULL; see its log lines above)"
        ))
    };
    let (name_c, token) = (cstring(name)?, cstring(&info.token)?);
    let category_c: Vec<CString> = categories.iter().map(|c| cstring(c)).collect::<Result<_>>()?;
    let category_p: Vec<*const c_char> = category_c.iter().map(|c| c.as_ptr()).collect();
    match import {
        Import::V2(import) => {
            let b = import.binding(identifier).map_err(load)?;
            let resources = cstring(&import.canonical_resource_path_string())?;
            let callbacks = Box::new(f2::fmi2CallbackFunctions {
                logger: Some(f2::logger::callback_logger_handler),
                allocateMemory: Some(libc::calloc),
                freeMemory: Some(libc::free),
                stepFinished: None,
                componentEnvironment: std::ptr::null_mut(),
            });
            // SAFETY: every pointer outlives the call; the callbacks outlive the instance.
            let c = unsafe {
                b.fmi2Instantiate(
                    name_c.as_ptr(),
                    f2::fmi2Type_fmi2CoSimulation,
                    token.as_ptr(),
                    resources.as_ptr(),
                    &*callbacks,
                    0,
                    i32::from(debug_logging),
                )
            };
            if c.is_null() {
                return Err(refused());
            }
            let mut unit = Fmi2Unit { b, c, _callbacks: callbacks, _import: Arc::clone(import), ints: Vec::new() };
            if !category_p.is_empty() {
                // SAFETY: the category strings live until after the call.
                let s = unsafe { unit.b.fmi2SetDebugLogging(unit.c, 1, category_p.len(), category_p.as_ptr()) };
                check("fmi2SetDebugLogging", s)?;
            }
            unit.ints.reserve(16);
            Ok(Box::new(unit))
        }
        Import::V3(import) => {
            let b = import.binding(identifier).map_err(load)?;
            let resources = cstring(&format!("{}/", import.canonical_resource_path_string()))?;
            let env = Box::into_raw(Box::new(Environment {
                b,
                instance: std::ptr::null_mut(),
                name: name.to_string(),
                t0: 0.0,
                slopes: Vec::new(),
            }));
            // SAFETY: `env` is a live allocation that the FMU hands back to the callbacks; it is
            // freed only after the instance (Drop of Fmi3Unit).
            let instance = unsafe {
                (*env).b.fmi3InstantiateCoSimulation(
                    name_c.as_ptr(),
                    token.as_ptr(),
                    resources.as_ptr(),
                    false,
                    debug_logging,
                    false,
                    false,
                    intermediate.as_ptr(),
                    intermediate.len(),
                    env.cast::<c_void>(),
                    Some(log3),
                    if intermediate.is_empty() { None } else { Some(intermediate_update) },
                )
            };
            let unit = Fmi3Unit { env, _import: Arc::clone(import), buffers: Buffers::default(), orders: Vec::new() };
            if instance.is_null() {
                return Err(refused());
            }
            // SAFETY: no FMU call is under way; the master is the only user of `env` now.
            unsafe { (*unit.env).instance = instance };
            if !category_p.is_empty() {
                let s = unsafe { unit.b().fmi3SetDebugLogging(instance, true, category_p.len(), category_p.as_ptr()) };
                check("fmi3SetDebugLogging", s)?;
            }
            Ok(Box::new(unit))
        }
    }
}

struct Fmi2Unit {
    b: f2::Fmi2Binding,
    c: f2::fmi2Component,
    _callbacks: Box<f2::fmi2CallbackFunctions>,
    /// Keeps the unpacked archive (and the loaded library) while the instance lives.
    _import: Arc<fmi::fmi2::import::Fmi2Import>,
    ints: Vec<i32>,
}

impl Drop for Fmi2Unit {
    fn drop(&mut self) {
        // SAFETY: `c` is the live instance made by this binding.
        unsafe { self.b.fmi2FreeInstance(self.c) };
    }
}

impl Unit for Fmi2Unit {
    fn set(&mut self, var: &Variable, value: &Value) -> Result<()> {
        let vr = var.vr;
        // SAFETY (every call below): one value reference and one value that live across the call.
        let status = match value {
            Value::Real(x) => unsafe { self.b.fmi2SetReal(self.c, &vr, 1, x) },
            Value::Int(i) => {
                let i = i32::try_from(*i).map_err(|_| Error::msg(format!("{i} is out of range for {}", var.name)))?;
                unsafe { self.b.fmi2SetInteger(self.c, &vr, 1, &i) }
            }
            Value::Bool(v) => unsafe { self.b.fmi2SetBoolean(self.c, &vr, 1, &i32::from(*v)) },
            Value::Str(s) => {
                let s = cstring(s)?;
                unsafe { self.b.fmi2SetString(self.c, &vr, 1, &s.as_ptr()) }
            }
        };
        check("fmi2Set", status).map_err(|e| e.context(format!("setting {}", var.name)))
    }

    fn set_reals(&mut self, vrs: &[u32], values: &[f64]) -> Result<()> {
        check("fmi2SetReal", unsafe { self.b.fmi2SetReal(self.c, vrs.as_ptr(), vrs.len(), values.as_ptr()) })
    }

    fn get(&mut self, ty: VarType, vrs: &[u32], out: &mut [f64]) -> Result<()> {
        let n = vrs.len();
        match ty {
            VarType::Float64 => {
                check("fmi2GetReal", unsafe { self.b.fmi2GetReal(self.c, vrs.as_ptr(), n, out.as_mut_ptr()) })
            }
            VarType::Int32 | VarType::Enumeration | VarType::Boolean => {
                self.ints.resize(n, 0);
                let status = if ty == VarType::Boolean {
                    unsafe { self.b.fmi2GetBoolean(self.c, vrs.as_ptr(), n, self.ints.as_mut_ptr()) }
                } else {
                    unsafe { self.b.fmi2GetInteger(self.c, vrs.as_ptr(), n, self.ints.as_mut_ptr()) }
                };
                check("fmi2GetInteger/Boolean", status)?;
                for (o, i) in out.iter_mut().zip(&self.ints) {
                    *o = if ty == VarType::Boolean { f64::from(u8::from(*i != 0)) } else { f64::from(*i) };
                }
                Ok(())
            }
            other => Err(Error::msg(format!("cannot read {} variables", other.name()))),
        }
    }

    fn enter_initialization(&mut self, tolerance: Option<f64>, start: f64, stop: f64) -> Result<()> {
        let s = unsafe {
            self.b.fmi2SetupExperiment(self.c, i32::from(tolerance.is_some()), tolerance.unwrap_or(0.0), start, 1, stop)
        };
        check("fmi2SetupExperiment", s)?;
        check("fmi2EnterInitializationMode", unsafe { self.b.fmi2EnterInitializationMode(self.c) })
    }

    fn exit_initialization(&mut self) -> Result<()> {
        check("fmi2ExitInitializationMode", unsafe { self.b.fmi2ExitInitializationMode(self.c) })
    }

    fn step(&mut self, t: f64, h: f64) -> StepOutcome {
        let status = unsafe { self.b.fmi2DoStep(self.c, t, h, 1) };
        match status {
            0 | 1 => StepOutcome::Ok,
            2 => {
                let (mut last, mut terminated) = (f64::NAN, 0);
                let has_last =
                    unsafe { self.b.fmi2GetRealStatus(self.c, f2::fmi2StatusKind_fmi2LastSuccessfulTime, &mut last) }
                        <= 1;
                let asked =
                    unsafe { self.b.fmi2GetBooleanStatus(self.c, f2::fmi2StatusKind_fmi2Terminated, &mut terminated) };
                let last = has_last.then_some(last);
                if asked <= 1 && terminated != 0 {
                    StepOutcome::Terminated { at: last }
                } else {
                    StepOutcome::Failed { status: "Discard", last_successful_time: last }
                }
            }
            4 => StepOutcome::Failed { status: "Fatal", last_successful_time: None },
            5 => StepOutcome::Failed {
                status: "Pending (asynchronous stepping is not supported)",
                last_successful_time: None,
            },
            _ => StepOutcome::Failed { status: "Error", last_successful_time: None },
        }
    }

    fn terminate(&mut self) -> Result<()> {
        check("fmi2Terminate", unsafe { self.b.fmi2Terminate(self.c) })
    }

    fn output_derivatives(&mut self, vrs: &[u32], out: &mut [f64]) -> Result<()> {
        self.ints.clear();
        self.ints.resize(vrs.len(), 1);
        let s = unsafe {
            self.b.fmi2GetRealOutputDerivatives(self.c, vrs.as_ptr(), vrs.len(), self.ints.as_ptr(), out.as_mut_ptr())
        };
        check("fmi2GetRealOutputDerivatives", s)
    }

    fn set_real_slopes(&mut self, _t: f64, vrs: &[u32], values: &[f64], slopes: &[f64]) -> Result<()> {
        self.set_reals(vrs, values)?;
        self.ints.clear();
        self.ints.resize(vrs.len(), 1);
        let s = unsafe {
            self.b.fmi2SetRealInputDerivatives(self.c, vrs.as_ptr(), vrs.len(), self.ints.as_ptr(), slopes.as_ptr())
        };
        check("fmi2SetRealInputDerivatives", s)
    }
}

/// What the FMI 3 callbacks need: handed to the FMU as its instanceEnvironment.
struct Environment {
    b: f3::Fmi3Binding,
    instance: f3::fmi3Instance,
    name: String,
    /// Start of the step the slopes hold for.
    t0: f64,
    /// (value reference, value at t0, slope) of the inputs set during intermediate updates.
    slopes: Vec<(u32, f64, f64)>,
}

struct Fmi3Unit {
    /// Owned (Box::into_raw); freed after the instance in Drop.
    env: *mut Environment,
    _import: Arc<fmi::fmi3::import::Fmi3Import>,
    /// The getters' arrays of the non-Float64 types, sized on the first read.
    buffers: Buffers,
    /// Derivative orders of fmi3GetOutputDerivatives (all 1).
    orders: Vec<i32>,
}

impl Fmi3Unit {
    fn b(&self) -> &f3::Fmi3Binding {
        // SAFETY: `env` is live for the unit's lifetime.
        unsafe { &(*self.env).b }
    }

    fn instance(&self) -> f3::fmi3Instance {
        unsafe { (*self.env).instance }
    }
}

impl Drop for Fmi3Unit {
    fn drop(&mut self) {
        // SAFETY: the instance is freed before the environment its callbacks read.
        unsafe {
            if !(*self.env).instance.is_null() {
                (*self.env).b.fmi3FreeInstance((*self.env).instance);
            }
            drop(Box::from_raw(self.env));
        }
    }
}

/// The FMU's log messages to the `log` facade, as the `fmi` crate forwards them (log.rs
/// prints them), with the component's name as the target.
unsafe extern "C" fn log3(
    env: f3::fmi3InstanceEnvironment,
    status: f3::fmi3Status,
    category: f3::fmi3String,
    message: f3::fmi3String,
) {
    let name = if env.is_null() { String::new() } else { unsafe { (*env.cast::<Environment>()).name.clone() } };
    let level = match status {
        0 => log::Level::Info,
        1 => log::Level::Warn,
        2 => log::Level::Trace,
        _ => log::Level::Error,
    };
    // SAFETY: the FMU passes NUL-terminated strings valid during the call.
    let (message, category) = unsafe { (fmu_text(message), fmu_text(category)) };
    forward(level, &name, format_args!("{message} ({category})"));
}

/// FMI 3.0 Sect. 4.2.2: during a step the FMU asks for its inputs at `time`; the master gives
/// the line through the communication point's value with the source's slope.
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn intermediate_update(
    env: f3::fmi3InstanceEnvironment,
    time: f64,
    set_requested: bool,
    _get_allowed: bool,
    _step_finished: bool,
    _can_return_early: bool,
    early_return_requested: *mut bool,
    _early_return_time: *mut f64,
) {
    if !early_return_requested.is_null() {
        unsafe { *early_return_requested = false };
    }
    if env.is_null() || !set_requested {
        return;
    }
    // SAFETY: the FMU calls back from inside a master's call on this instance, when only
    // shared access to the environment exists.
    let env = unsafe { &*env.cast::<Environment>() };
    for &(vr, value, slope) in &env.slopes {
        let u = value + slope * (time - env.t0);
        unsafe { env.b.fmi3SetFloat64(env.instance, &vr, 1, &u, 1) };
    }
}

/// One fmi3Get<Type> into f64 through the instance's array of that type (`buffers.$field`),
/// each value `$v` converted by `$convert` (a numeric cast unless given).
macro_rules! get3 {
    ($self:expr, $getter:ident, $field:ident, $vrs:expr, $out:expr) => {
        get3!($self, $getter, $field, $vrs, $out, v => v as f64)
    };
    ($self:expr, $getter:ident, $field:ident, $vrs:expr, $out:expr, $v:ident => $convert:expr) => {{
        // SAFETY: `env` is live for the unit's lifetime (the binding is not part of `buffers`).
        let (b, instance) = (unsafe { &(*$self.env).b }, $self.instance());
        let values = sized(&mut $self.buffers.$field, $vrs.len());
        let s = unsafe { b.$getter(instance, $vrs.as_ptr(), $vrs.len(), values.as_mut_ptr(), values.len()) };
        check(stringify!($getter), s)?;
        for (o, &$v) in $out.iter_mut().zip(values.iter()) {
            *o = $convert;
        }
        Ok(())
    }};
}

macro_rules! set3 {
    ($self:expr, $setter:ident, $t:ty, $var:expr, $i:expr) => {{
        let v = <$t>::try_from(*$i).map_err(|_| Error::msg(format!("{} is out of range for {}", $i, $var.name)))?;
        unsafe { $self.b().$setter($self.instance(), &$var.vr, 1, &v, 1) }
    }};
}

impl Unit for Fmi3Unit {
    fn set(&mut self, var: &Variable, value: &Value) -> Result<()> {
        let (b, i, vr) = (self.b(), self.instance(), var.vr);
        let status = match (var.ty, value) {
            (VarType::Float64, Value::Real(x)) => unsafe { b.fmi3SetFloat64(i, &vr, 1, x, 1) },
            (VarType::Float32, Value::Real(x)) => unsafe { b.fmi3SetFloat32(i, &vr, 1, &(*x as f32), 1) },
            (VarType::Int64 | VarType::Enumeration, Value::Int(n)) => unsafe { b.fmi3SetInt64(i, &vr, 1, n, 1) },
            (VarType::Int8, Value::Int(n)) => set3!(self, fmi3SetInt8, i8, var, n),
            (VarType::Int16, Value::Int(n)) => set3!(self, fmi3SetInt16, i16, var, n),
            (VarType::Int32, Value::Int(n)) => set3!(self, fmi3SetInt32, i32, var, n),
            (VarType::UInt8, Value::Int(n)) => set3!(self, fmi3SetUInt8, u8, var, n),
            (VarType::UInt16, Value::Int(n)) => set3!(self, fmi3SetUInt16, u16, var, n),
            (VarType::UInt32, Value::Int(n)) => set3!(self, fmi3SetUInt32, u32, var, n),
            (VarType::UInt64, Value::Int(n)) => set3!(self, fmi3SetUInt64, u64, var, n),
            (VarType::Boolean, Value::Bool(v)) => unsafe { b.fmi3SetBoolean(i, &vr, 1, v, 1) },
            (VarType::String, Value::Str(s)) => {
                let s = cstring(s)?;
                unsafe { b.fmi3SetString(i, &vr, 1, &s.as_ptr(), 1) }
            }
            (ty, _) => return Err(Error::msg(format!("cannot set {} ({}) to that value", var.name, ty.name()))),
        };
        check("fmi3Set", status).map_err(|e| e.context(format!("setting {}", var.name)))
    }

    fn set_reals(&mut self, vrs: &[u32], values: &[f64]) -> Result<()> {
        let s =
            unsafe { self.b().fmi3SetFloat64(self.instance(), vrs.as_ptr(), vrs.len(), values.as_ptr(), values.len()) };
        check("fmi3SetFloat64", s)
    }

    fn get(&mut self, ty: VarType, vrs: &[u32], out: &mut [f64]) -> Result<()> {
        match ty {
            VarType::Float64 => {
                let s = unsafe {
                    self.b().fmi3GetFloat64(self.instance(), vrs.as_ptr(), vrs.len(), out.as_mut_ptr(), out.len())
                };
                check("fmi3GetFloat64", s)
            }
            VarType::Int64 | VarType::Enumeration => get3!(self, fmi3GetInt64, i64, vrs, out),
            VarType::Float32 => get3!(self, fmi3GetFloat32, f32, vrs, out),
            VarType::Int8 => get3!(self, fmi3GetInt8, i8, vrs, out),
            VarType::Int16 => get3!(self, fmi3GetInt16, i16, vrs, out),
            VarType::Int32 => get3!(self, fmi3GetInt32, i32, vrs, out),
            VarType::UInt8 => get3!(self, fmi3GetUInt8, u8, vrs, out),
            VarType::UInt16 => get3!(self, fmi3GetUInt16, u16, vrs, out),
            VarType::UInt32 => get3!(self, fmi3GetUInt32, u32, vrs, out),
            VarType::UInt64 => get3!(self, fmi3GetUInt64, u64, vrs, out),
            VarType::Boolean => get3!(self, fmi3GetBoolean, bool, vrs, out, v => f64::from(u8::from(v))),
            other => Err(Error::msg(format!("cannot read {} variables", other.name()))),
        }
    }

    fn enter_initialization(&mut self, tolerance: Option<f64>, start: f64, stop: f64) -> Result<()> {
        let s = unsafe {
            self.b().fmi3EnterInitializationMode(
                self.instance(),
                tolerance.is_some(),
                tolerance.unwrap_or(0.0),
                start,
                true,
                stop,
            )
        };
        check("fmi3EnterInitializationMode", s)
    }

    fn exit_initialization(&mut self) -> Result<()> {
        check("fmi3ExitInitializationMode", unsafe { self.b().fmi3ExitInitializationMode(self.instance()) })
    }

    fn step(&mut self, t: f64, h: f64) -> StepOutcome {
        let (mut event, mut terminate, mut early, mut last) = (false, false, false, t);
        let s = unsafe {
            self.b().fmi3DoStep(self.instance(), t, h, true, &mut event, &mut terminate, &mut early, &mut last)
        };
        match s {
            0..=2 if terminate => StepOutcome::Terminated { at: Some(last) },
            0 | 1 => StepOutcome::Ok,
            2 => StepOutcome::Failed { status: "Discard", last_successful_time: Some(last) },
            4 => StepOutcome::Failed { status: "Fatal", last_successful_time: None },
            _ => StepOutcome::Failed { status: "Error", last_successful_time: None },
        }
    }

    fn terminate(&mut self) -> Result<()> {
        check("fmi3Terminate", unsafe { self.b().fmi3Terminate(self.instance()) })
    }

    fn output_derivatives(&mut self, vrs: &[u32], out: &mut [f64]) -> Result<()> {
        self.orders.resize(vrs.len(), 1);
        let s = unsafe {
            self.b().fmi3GetOutputDerivatives(
                self.instance(),
                vrs.as_ptr(),
                vrs.len(),
                self.orders.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        check("fmi3GetOutputDerivatives", s)
    }

    fn set_real_slopes(&mut self, t: f64, vrs: &[u32], values: &[f64], slopes: &[f64]) -> Result<()> {
        self.set_reals(vrs, values)?;
        // SAFETY: no FMU call is under way, so the callback does not read the environment now.
        let env = unsafe { &mut *self.env };
        env.t0 = t;
        env.slopes.clear();
        env.slopes.extend(vrs.iter().zip(values).zip(slopes).map(|((&vr, &v), &s)| (vr, v, s)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counting::allocations_in;
    use crate::modeldesc::Causality;
    use mbfmu_model::variables::FmiVersion as Version;

    /// A communication step of the master's instances (DoStep and one getter call per output
    /// type, the Int32 outputs included) allocates nothing once the first step has sized the
    /// buffers, in both FMI versions.
    #[test]
    fn a_communication_step_allocates_nothing() {
        let entry = mbfmu_model::catalog::find("DoublePendulum").expect("catalog model");
        let library = mbfmu_package::locate_library().expect("the FMU library is built next to the tests");
        let dir = tempfile::tempdir().unwrap();
        for version in [Version::V2, Version::V3] {
            let path = dir.path().join(format!("{version:?}.fmu"));
            mbfmu_package::write_fmu(entry, version, &library, &path).unwrap();
            let info = crate::fmu::peek(&path).unwrap();
            let fmu = crate::fmu::load(&path, &info).unwrap();
            let mut unit = instantiate(&fmu, &info, "unit", false, &[]).unwrap();
            unit.enter_initialization(None, 0.0, 1.0).unwrap();
            unit.exit_initialization().unwrap();
            let outputs = |ty: VarType| -> Vec<u32> {
                info.variables.iter().filter(|v| v.causality == Causality::Output && v.ty == ty).map(|v| v.vr).collect()
            };
            let groups = [(VarType::Float64, outputs(VarType::Float64)), (VarType::Int32, outputs(VarType::Int32))];
            assert!(groups.iter().all(|(_, vrs)| !vrs.is_empty()), "{version:?}: outputs of both types");
            let mut values = vec![f64::NAN; 64];
            let mut step = |unit: &mut Box<dyn Unit>, k: u32| {
                let t = f64::from(k) * 1e-3;
                assert!(matches!(unit.step(t, 1e-3), StepOutcome::Ok), "{version:?}: step from {t}");
                for (ty, vrs) in &groups {
                    unit.get(*ty, vrs, &mut values[..vrs.len()]).unwrap();
                }
            };
            step(&mut unit, 0);
            let allocations = allocations_in(|| (1..100).for_each(|k| step(&mut unit, k)));
            assert_eq!(allocations, 0, "{version:?}");
            // The reads are real: the step counter output (Int32) counts the steps.
            assert_eq!(
                values[..groups[1].1.len()].iter().filter(|&&v| v == 100.0).count(),
                1,
                "{version:?}: {values:?}"
            );
            unit.terminate().unwrap();
        }
    }
}
