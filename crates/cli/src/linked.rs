//! Built-in models run in-process. `simulate <Model>` (FMI 3.0, the default) drives the FMU
//! library's FMI 3 functions linked into this command: the same crate, catalog and code as
//! the binaries in the archives `mbfmu package` writes, called through the same C ABI, but
//! without packaging an archive into the cache, unpacking it and loading its 10 MB binary
//! (mapping, relocating and faulting it in took a fifth of the command's own time in a short
//! run). Archives, FMI 2.0 built-ins (`--fmi 2`), sweeps and systems load FMUs as any
//! importer does (fmu.rs).

use crate::error::{Error, Result};
use crate::fmi3_slave::{Fmi3Calls, Fmi3Slave, FmiResult};
use crate::fmu::{cstring, logging_categories, status_error, Buffers, Slave};
use crate::log::{fmu_text, forward};
use crate::modeldesc::{self, ModelInfo};
use fmi::fmi3::{Fmi3Error, Fmi3Res};
use fmi_sys::fmi3 as f3;
use mbfmu::fmi::{fmi3 as lib, fmi3_unsupported as unsupported};
use mbfmu_model::catalog::CatalogEntry;
use std::ffi::{c_char, CString};
use std::path::Path;

/// The built-in model that `arg` names, if it names no file and FMI 3 is asked for (the
/// default); None: `arg` is an archive (or an error to report as one).
pub fn built_in(arg: &Path, fmi_version: Option<u8>) -> Option<&'static CatalogEntry> {
    if arg.exists() || fmi_version == Some(2) {
        return None;
    }
    crate::catalog_fmu::entry_named(&arg.to_string_lossy())
}

/// The model description of a built-in model: the modelDescription.xml its FMI 3 archives carry.
pub fn description(entry: &CatalogEntry) -> Result<ModelInfo> {
    modeldesc::parse(entry.fmi3_xml).map_err(|e| e.context(format!("the built-in model {}", entry.name)))
}

/// A co-simulation instance (not yet initialized) of the built-in model described by `info`.
pub fn instantiate(info: &ModelInfo, debug_logging: bool) -> Result<Box<dyn Slave>> {
    let (name, token) = (cstring(&info.model_name)?, cstring(&info.token)?);
    // SAFETY: the strings live across the call; no resource path (the model is the catalog's,
    // found by its token); the logger is a function of this file.
    let instance = unsafe {
        lib::fmi3InstantiateCoSimulation(
            name.as_ptr(),
            token.as_ptr(),
            std::ptr::null(),
            false,
            debug_logging,
            false,
            false,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            Some(log_message),
            None,
        )
    };
    if instance.is_null() {
        return Err(Error::msg(format!(
            "the built-in model {} refused to instantiate (see its log lines above)",
            info.model_name
        )));
    }
    let linked = Linked(instance);
    if let Some(categories) = logging_categories(info, debug_logging) {
        let names: Vec<CString> = categories.iter().map(|c| cstring(c)).collect::<Result<_>>()?;
        let pointers: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
        // SAFETY: a live instance; the category strings outlive the call.
        let status = unsafe { lib::fmi3SetDebugLogging(linked.0, true, pointers.len(), pointers.as_ptr()) };
        result(status).map_err(|e| status_error("fmi3SetDebugLogging", e))?;
    }
    Ok(Box::new(Fmi3Slave { instance: linked, buffers: Buffers::default(), _keep: None }))
}

/// An instance made by the linked functions, freed with it.
pub(crate) struct Linked(f3::fmi3Instance);

impl Drop for Linked {
    fn drop(&mut self) {
        // SAFETY: the instance these functions made, freed once.
        unsafe { lib::fmi3FreeInstance(self.0) }
    }
}

/// A status as the `fmi` crate returns it (FMI 3.0 Sect. 2.2.3); an unknown value is an Error.
fn result(status: f3::fmi3Status) -> FmiResult<Fmi3Res> {
    match status {
        f3::fmi3Status_fmi3OK => Ok(Fmi3Res::OK),
        f3::fmi3Status_fmi3Warning => Ok(Fmi3Res::Warning),
        f3::fmi3Status_fmi3Discard => Err(Fmi3Error::Discard),
        f3::fmi3Status_fmi3Fatal => Err(Fmi3Error::Fatal),
        _ => Err(Fmi3Error::Error),
    }
}

/// The getter and setter of each C type: the library's own for the types its models have,
/// its refusals (no variable of that type) for the others.
macro_rules! linked_calls {
    ($(($get:ident, $set:ident, $t:ty, $cget:path, $cset:path)),* $(,)?) => {
        impl Fmi3Calls for Linked {
            $(
                fn $get(&mut self, vrs: &[u32], values: &mut [$t]) -> FmiResult<Fmi3Res> {
                    // SAFETY: a live instance; both slices outlive the call, their lengths given.
                    result(unsafe { $cget(self.0, vrs.as_ptr(), vrs.len(), values.as_mut_ptr(), values.len()) })
                }
                fn $set(&mut self, vrs: &[u32], values: &[$t]) -> FmiResult<Fmi3Res> {
                    // SAFETY: as for the getter.
                    result(unsafe { $cset(self.0, vrs.as_ptr(), vrs.len(), values.as_ptr(), values.len()) })
                }
            )*

            fn set_string(&mut self, vrs: &[u32], values: &[CString]) -> FmiResult<()> {
                let pointers: Vec<f3::fmi3String> = values.iter().map(|v| v.as_ptr()).collect();
                // SAFETY: as for the getters; the strings outlive the call.
                let status =
                    unsafe { lib::fmi3SetString(self.0, vrs.as_ptr(), vrs.len(), pointers.as_ptr(), pointers.len()) };
                result(status).map(drop)
            }

            fn enter_initialization_mode(
                &mut self,
                tolerance: Option<f64>,
                start: f64,
                stop: Option<f64>,
            ) -> FmiResult<Fmi3Res> {
                // SAFETY: a live instance.
                result(unsafe {
                    lib::fmi3EnterInitializationMode(
                        self.0,
                        tolerance.is_some(),
                        tolerance.unwrap_or(0.0),
                        start,
                        stop.is_some(),
                        stop.unwrap_or(0.0),
                    )
                })
            }

            fn exit_initialization_mode(&mut self) -> FmiResult<Fmi3Res> {
                // SAFETY: a live instance.
                result(unsafe { lib::fmi3ExitInitializationMode(self.0) })
            }

            fn do_step(
                &mut self,
                t: f64,
                h: f64,
                no_set_state_prior: bool,
                event_needed: &mut bool,
                terminate: &mut bool,
                early_return: &mut bool,
                last_successful_time: &mut f64,
            ) -> FmiResult<Fmi3Res> {
                // SAFETY: a live instance; the output arguments are valid for writes.
                result(unsafe {
                    lib::fmi3DoStep(self.0, t, h, no_set_state_prior, event_needed, terminate, early_return, last_successful_time)
                })
            }

            fn terminate(&mut self) -> FmiResult<Fmi3Res> {
                // SAFETY: a live instance.
                result(unsafe { lib::fmi3Terminate(self.0) })
            }
        }
    };
}

linked_calls!(
    (get_float64, set_float64, f64, lib::fmi3GetFloat64, lib::fmi3SetFloat64),
    (get_float32, set_float32, f32, unsupported::fmi3GetFloat32, unsupported::fmi3SetFloat32),
    (get_int8, set_int8, i8, unsupported::fmi3GetInt8, unsupported::fmi3SetInt8),
    (get_int16, set_int16, i16, unsupported::fmi3GetInt16, unsupported::fmi3SetInt16),
    (get_int32, set_int32, i32, lib::fmi3GetInt32, lib::fmi3SetInt32),
    (get_int64, set_int64, i64, lib::fmi3GetInt64, lib::fmi3SetInt64),
    (get_uint8, set_uint8, u8, unsupported::fmi3GetUInt8, unsupported::fmi3SetUInt8),
    (get_uint16, set_uint16, u16, unsupported::fmi3GetUInt16, unsupported::fmi3SetUInt16),
    (get_uint32, set_uint32, u32, unsupported::fmi3GetUInt32, unsupported::fmi3SetUInt32),
    (get_uint64, set_uint64, u64, unsupported::fmi3GetUInt64, unsupported::fmi3SetUInt64),
    (get_boolean, set_boolean, bool, lib::fmi3GetBoolean, lib::fmi3SetBoolean),
);

/// The model's log messages to the `log` facade as the `fmi` crate forwards an archive's
/// (log.rs prints them): the category as the target, Discard as a warning.
unsafe extern "C" fn log_message(
    _environment: f3::fmi3InstanceEnvironment,
    status: f3::fmi3Status,
    category: f3::fmi3String,
    message: f3::fmi3String,
) {
    let level = match status {
        f3::fmi3Status_fmi3OK => log::Level::Info,
        f3::fmi3Status_fmi3Warning | f3::fmi3Status_fmi3Discard => log::Level::Warn,
        _ => log::Level::Error,
    };
    // SAFETY: the library passes NUL-terminated strings valid during the call.
    let (category, message) = unsafe { (fmu_text(category), fmu_text(message)) };
    forward(level, &category, format_args!("{message}"));
}
