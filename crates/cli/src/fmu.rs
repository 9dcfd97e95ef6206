//! Loading an FMU with the `fmi` crate and driving it as a co-simulation slave, with one
//! interface for FMI 2.0 and FMI 3.0 so that `simulate` is written once.

use crate::error::{Context, Error, Result};
use crate::fmi3_slave::Fmi3Slave;
use crate::modeldesc::{self, FmiVersion, ModelInfo, VarType, Variable};
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation as _, Common as _, InstanceCS as Fmi2Instance};
use fmi::fmi3::import::Fmi3Import;
use fmi::fmi3::{Common as _, Fmi3Model as _};
use fmi::traits::FmiImport;
use std::ffi::CString;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// A value given on the command line, already converted to the variable's kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Real(f64),
    Int(i64),
    Bool(bool),
    Str(String),
}

/// Variables of one type read with one getter call, and the CSV columns they fill.
pub struct ReadGroup {
    pub ty: VarType,
    pub vrs: Vec<u32>,
    pub columns: Vec<usize>,
    /// The columns, when they follow each other: a Float64 group is then read straight into
    /// the row (the usual case: the outputs of a model in their order).
    pub(crate) span: Option<std::ops::Range<usize>>,
}

/// Groups `vars` by type so that each output row costs one getter call per type.
pub fn read_groups(vars: &[&Variable]) -> Vec<ReadGroup> {
    let mut groups: Vec<ReadGroup> = Vec::new();
    for (column, var) in vars.iter().enumerate() {
        match groups.iter_mut().find(|g| g.ty == var.ty) {
            Some(g) => {
                g.vrs.push(var.vr);
                g.columns.push(column);
            }
            None => groups.push(ReadGroup { ty: var.ty, vrs: vec![var.vr], columns: vec![column], span: None }),
        }
    }
    for g in &mut groups {
        let first = g.columns[0];
        g.span = g.columns.iter().enumerate().all(|(k, &c)| c == first + k).then(|| first..first + g.columns.len());
    }
    groups
}

/// How a communication step ended.
pub enum StepOutcome {
    Ok,
    /// The FMU asked to end the simulation (legal; not an error).
    Terminated {
        at: Option<f64>,
    },
    /// Discard, Error or Fatal.
    Failed {
        status: &'static str,
        last_successful_time: Option<f64>,
    },
}

/// A co-simulation instance of either FMI version.
pub trait Slave {
    fn set(&mut self, var: &Variable, value: &Value) -> Result<()>;
    /// SetupExperiment (FMI 2) and EnterInitializationMode.
    fn enter_initialization(&mut self, tolerance: Option<f64>, start: f64, stop: f64) -> Result<()>;
    fn exit_initialization(&mut self) -> Result<()>;
    /// Reads every group into its columns of `row`.
    fn read(&mut self, groups: &[ReadGroup], row: &mut [f64]) -> Result<()>;
    fn step(&mut self, t: f64, h: f64) -> StepOutcome;
    fn terminate(&mut self) -> Result<()>;
}

/// Reads modelDescription.xml from the archive without extracting it (from the cache's
/// extraction of the same bytes, when there is one: see `unpacked.rs`).
pub fn peek(path: &Path) -> Result<ModelInfo> {
    if !path.exists() {
        return Err(Error::msg(format!("{}: no such file", path.display())));
    }
    if let Some(xml) = crate::unpacked::cached_description(path) {
        return modeldesc::parse(&xml).map_err(|e| e.context(path.display()));
    }
    let file = std::fs::File::open(path).context(path.display())?;
    let mut archive = zip::ZipArchive::new(file)
        .map_err(|e| Error::msg(format!("{} is not an FMU (not a zip archive: {e})", path.display())))?;
    let mut entry = archive.by_name("modelDescription.xml").map_err(|_| {
        Error::msg(format!("{} is not an FMU (no modelDescription.xml in the archive)", path.display()))
    })?;
    let mut xml = String::new();
    entry.read_to_string(&mut xml).context(format!("{}: modelDescription.xml", path.display()))?;
    modeldesc::parse(&xml).map_err(|e| e.context(path.display()))
}

/// An unpacked co-simulation FMU from which instances are created (on any thread): a sweep
/// unpacks and loads the archive once, not once per run.
pub struct Fmu {
    import: Import,
    identifier: String,
    path: std::path::PathBuf,
    /// The loaded binary and the lock on the cached extraction, shared with every instance.
    lease: Lease,
}

/// Held while an import or any of its instances lives.
pub(crate) type Lease = Arc<Resident>;

/// What an FMU's instances need to stay in place (fields drop in this order).
pub(crate) struct Resident {
    /// The binary, loaded once for the import: the `fmi` crate loads it for each instance and
    /// unloads it with the instance, and a sweep's runs then each loaded it anew (mapping
    /// and relocating its 10 MB) and lost what it keeps between instances. None if loading
    /// failed: instantiation then reports why.
    _binary: Option<libloading::Library>,
    /// The shared lock on the cached extraction (see `unpacked.rs`).
    _lock: Option<std::fs::File>,
}

pub(crate) enum Import {
    V2(Arc<Fmi2Import>),
    V3(Arc<Fmi3Import>),
}

/// Unpacks the archive and checks that it has a co-simulation binary for this platform.
pub fn load(path: &Path, info: &ModelInfo) -> Result<Fmu> {
    let identifier = info.cs_identifier.as_deref().ok_or_else(|| {
        let kinds: Vec<&str> =
            [(info.has_model_exchange, "Model Exchange"), (info.has_scheduled_execution, "Scheduled Execution")]
                .into_iter()
                .filter_map(|(has, name)| has.then_some(name))
                .collect();
        Error::msg(format!(
            "{} is not a co-simulation FMU (it offers {}); mbfmu runs co-simulation FMUs only",
            path.display(),
            if kinds.is_empty() { "no interface".to_string() } else { kinds.join(" and ") }
        ))
    })?;
    let load_error = |e: fmi::Error| Error::msg(format!("cannot load {}: {e}", path.display()));
    let crate::unpacked::Unpacked { dir, lease } = crate::unpacked::unpack(path)?;
    let identity = identity_xml(info, identifier);
    let (import, binary) = match info.version {
        FmiVersion::V2 => {
            let import = Fmi2Import::new(dir, &identity).map_err(load_error)?;
            let binary = check_binary(&import, identifier)?;
            (Import::V2(Arc::new(import)), binary)
        }
        FmiVersion::V3 => {
            let import = Fmi3Import::new(dir, &identity).map_err(load_error)?;
            let binary = check_binary(&import, identifier)?;
            (Import::V3(Arc::new(import)), binary)
        }
    };
    // SAFETY: loading runs the binary's initializers, as the `fmi` crate's loading at
    // instantiation does anyway.
    let binary = unsafe { libloading::Library::new(binary) }.ok();
    let lease = Arc::new(Resident { _binary: binary, _lock: lease });
    Ok(Fmu { import, identifier: identifier.to_string(), path: path.to_path_buf(), lease })
}

impl Fmu {
    /// Instantiates it for co-simulation under its model identifier.
    pub fn instantiate_one(&self, info: &ModelInfo, debug_logging: bool) -> Result<Box<dyn Slave>> {
        self.instantiate(info, &self.identifier, debug_logging)
    }

    /// Leaves the binary loaded (and the cached extraction locked) until the process exits,
    /// for a command that ends soon after: unloading unmaps the library while the CSV writer
    /// thread still runs, and each unmapping then interrupts the writer's core to flush its
    /// address translations; the exit drops the whole address space at once.
    pub fn keep_loaded_until_exit(self) {
        std::mem::forget(self.lease);
    }

    /// The import and model identifier, for the system master's instances made through the
    /// C API (system/instance.rs), which calls functions the `fmi` crate does not wrap.
    pub(crate) fn import(&self) -> (&Import, &str) {
        (&self.import, &self.identifier)
    }

    /// A new instance named `name` (the name FMI 2 log messages carry).
    pub fn instantiate(&self, info: &ModelInfo, name: &str, debug_logging: bool) -> Result<Box<dyn Slave>> {
        let path = &self.path;
        let slave: Box<dyn Slave> = match &self.import {
            Import::V2(import) => {
                let mut instance =
                    import.instantiate_cs(name, false, debug_logging).map_err(|e| instantiation_error(e, path))?;
                if let Some(categories) = logging_categories(info, debug_logging) {
                    instance
                        .set_debug_logging(true, &categories)
                        .map_err(|e| status_error("fmi2SetDebugLogging", e))?;
                }
                Box::new(Fmi2Slave {
                    instance,
                    buffers: Buffers::default(),
                    _import: Arc::clone(import),
                    _lease: Arc::clone(&self.lease),
                })
            }
            Import::V3(import) => {
                let mut instance = import
                    .instantiate_cs(name, false, debug_logging, false, false, &[])
                    .map_err(|e| instantiation_error(e, path))?;
                if let Some(categories) = logging_categories(info, debug_logging) {
                    instance
                        .set_debug_logging(true, &categories)
                        .map_err(|e| status_error("fmi3SetDebugLogging", e))?;
                }
                Box::new(Fmi3Slave {
                    instance,
                    buffers: Buffers::default(),
                    _keep: Some((Arc::clone(import), Arc::clone(&self.lease))),
                })
            }
        };
        Ok(slave)
    }
}

/// The log categories to switch on: all with --debug-logging (an empty list means all),
/// otherwise the standard's recommended status categories (`logStatusWarning`,
/// `logStatusError`, ...) that the FMU declares, so that it explains a failure even when an
/// FMU (as FMI 3 allows) stays silent while logging is off. None: leave logging off.
pub(crate) fn logging_categories(info: &ModelInfo, debug_logging: bool) -> Option<Vec<&str>> {
    if debug_logging {
        return Some(Vec::new());
    }
    let status: Vec<&str> =
        info.log_categories.iter().map(String::as_str).filter(|c| c.starts_with("logStatus")).collect();
    (!status.is_empty()).then_some(status)
}

/// The part of modelDescription.xml that the `fmi` crate needs to load and instantiate the
/// FMU. Its schema types are stricter than the standard (fmi-schema 0.8 refuses e.g. `unit`
/// on an FMI 3 Float64 variable), so they get only this; the CLI reads the rest itself.
fn identity_xml(info: &ModelInfo, identifier: &str) -> String {
    let token_attribute = match info.version {
        FmiVersion::V2 => "guid",
        FmiVersion::V3 => "instantiationToken",
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription fmiVersion=\"{}\" modelName=\"{}\" {token_attribute}=\"{}\">\
         <CoSimulation modelIdentifier=\"{}\"/></fmiModelDescription>",
        escape(&info.fmi_version),
        escape(&info.model_name),
        escape(&info.token),
        escape(identifier)
    )
}

fn escape(s: &str) -> String {
    quick_xml::escape::escape(s).into_owned()
}

/// The binary for this platform, with a clearer message than the loader's if the archive has none.
fn check_binary<I: FmiImport>(import: &I, identifier: &str) -> Result<std::path::PathBuf> {
    let relative = import.shared_lib_path(identifier).map_err(|e| Error::msg(e.to_string()))?;
    let binary = import.archive_path().join(&relative);
    if binary.is_file() {
        return Ok(binary);
    }
    let platforms: Vec<String> = std::fs::read_dir(import.archive_path().join("binaries"))
        .map(|dir| dir.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    Err(Error::msg(format!(
        "the FMU has no binary for this platform: {} is missing (binaries present: {})",
        relative.display(),
        if platforms.is_empty() { "none".to_string() } else { platforms.join(", ") }
    )))
}

fn instantiation_error(e: fmi::Error, path: &Path) -> Error {
    match e {
        fmi::Error::Instantiation => Error::msg(format!(
            "{}: the FMU refused to instantiate (its Instantiate function returned NULL; see its log lines above)",
            path.display()
        )),
        e => Error::msg(format!("cannot instantiate {}: {e}", path.display())),
    }
}

pub(crate) fn status_error(call: &str, status: impl std::fmt::Display) -> Error {
    Error::msg(format!("{call} returned {status}"))
}

pub(crate) fn cstring(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::msg("a string value must not contain a NUL character"))
}

/// The getters' C arrays, one per C type, reused for every row (no allocation per read);
/// the system master's FMI 3 instances keep them too.
#[derive(Default)]
pub(crate) struct Buffers {
    pub(crate) f64: Vec<f64>,
    pub(crate) f32: Vec<f32>,
    pub(crate) i8: Vec<i8>,
    pub(crate) i16: Vec<i16>,
    pub(crate) i32: Vec<i32>,
    pub(crate) i64: Vec<i64>,
    pub(crate) u8: Vec<u8>,
    pub(crate) u16: Vec<u16>,
    pub(crate) u32: Vec<u32>,
    pub(crate) u64: Vec<u64>,
    pub(crate) bool: Vec<bool>,
}

/// `buffer` holding `n` elements (it grows only on the first calls).
pub(crate) fn sized<T: Default + Clone>(buffer: &mut Vec<T>, n: usize) -> &mut [T] {
    buffer.resize(n, T::default());
    buffer
}

/// The values of group `g` into their columns of `row`.
pub(crate) fn scatter<T: Copy>(g: &ReadGroup, values: &[T], row: &mut [f64], convert: impl Fn(T) -> f64) {
    for (&column, &value) in g.columns.iter().zip(values) {
        row[column] = convert(value);
    }
}

struct Fmi2Slave {
    // Field order = drop order: free the instance before the import deletes the unpacked files.
    instance: Fmi2Instance,
    buffers: Buffers,
    _import: Arc<Fmi2Import>,
    _lease: Lease,
}

impl Slave for Fmi2Slave {
    fn set(&mut self, var: &Variable, value: &Value) -> Result<()> {
        let vr = [var.vr];
        let result = match value {
            Value::Real(x) => self.instance.set_real(&vr, &[*x]).map(drop),
            Value::Int(i) => {
                let value = i32::try_from(*i)
                    .map_err(|_| Error::msg(format!("{i} is out of range for {} (Integer)", var.name)))?;
                self.instance.set_integer(&vr, &[value]).map(drop)
            }
            Value::Bool(b) => self.instance.set_boolean(&vr, &[i32::from(*b)]).map(drop),
            Value::Str(s) => self.instance.set_string(&vr, &[cstring(s)?]),
        };
        result.map_err(|e| status_error(&format!("setting {}: fmi2Set{}", var.name, fmi2_type(var.ty)), e))
    }

    fn enter_initialization(&mut self, tolerance: Option<f64>, start: f64, stop: f64) -> Result<()> {
        self.instance
            .setup_experiment(tolerance, start, Some(stop))
            .map_err(|e| status_error("fmi2SetupExperiment", e))?;
        self.instance.enter_initialization_mode().map_err(|e| status_error("fmi2EnterInitializationMode", e))?;
        Ok(())
    }

    fn exit_initialization(&mut self) -> Result<()> {
        self.instance.exit_initialization_mode().map_err(|e| status_error("fmi2ExitInitializationMode", e))?;
        Ok(())
    }

    fn read(&mut self, groups: &[ReadGroup], row: &mut [f64]) -> Result<()> {
        let (i, b) = (&mut self.instance, &mut self.buffers);
        for g in groups {
            match g.ty {
                VarType::Float64 => {
                    if let Some(span) = &g.span {
                        i.get_real(&g.vrs, &mut row[span.clone()]).map_err(|e| status_error("fmi2GetReal", e))?;
                    } else {
                        let v = sized(&mut b.f64, g.vrs.len());
                        i.get_real(&g.vrs, v).map_err(|e| status_error("fmi2GetReal", e))?;
                        scatter(g, v, row, |x| x);
                    }
                }
                VarType::Int32 | VarType::Enumeration => {
                    let v = sized(&mut b.i32, g.vrs.len());
                    i.get_integer(&g.vrs, v).map_err(|e| status_error("fmi2GetInteger", e))?;
                    scatter(g, v, row, f64::from);
                }
                VarType::Boolean => {
                    let v = sized(&mut b.i32, g.vrs.len());
                    i.get_boolean(&g.vrs, v).map_err(|e| status_error("fmi2GetBoolean", e))?;
                    scatter(g, v, row, |b| if b != 0 { 1.0 } else { 0.0 });
                }
                other => return Err(Error::msg(format!("cannot read {} variables", other.name()))),
            }
        }
        Ok(())
    }

    fn step(&mut self, t: f64, h: f64) -> StepOutcome {
        use fmi::fmi2::{Fmi2Error, Fmi2Res};
        match self.instance.do_step(t, h, true) {
            Ok(Fmi2Res::OK | Fmi2Res::Warning) => StepOutcome::Ok,
            Ok(Fmi2Res::Pending) => StepOutcome::Failed {
                status: "Pending (asynchronous stepping is not supported)",
                last_successful_time: None,
            },
            Err(Fmi2Error::Discard) => {
                let last = self.instance.last_successful_time().ok();
                if self.instance.terminated().unwrap_or(false) {
                    StepOutcome::Terminated { at: last }
                } else {
                    StepOutcome::Failed { status: "Discard", last_successful_time: last }
                }
            }
            Err(Fmi2Error::Fatal) => StepOutcome::Failed { status: "Fatal", last_successful_time: None },
            Err(_) => StepOutcome::Failed { status: "Error", last_successful_time: None },
        }
    }

    fn terminate(&mut self) -> Result<()> {
        self.instance.terminate().map_err(|e| status_error("fmi2Terminate", e))?;
        Ok(())
    }
}

fn fmi2_type(ty: VarType) -> &'static str {
    match ty {
        VarType::Float64 => "Real",
        VarType::Boolean => "Boolean",
        VarType::String => "String",
        _ => "Integer",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modeldesc::Causality;

    fn variable(vr: u32, ty: VarType) -> Variable {
        Variable {
            name: format!("v{vr}"),
            vr,
            ty,
            causality: Causality::Output,
            variability: "continuous".into(),
            initial: None,
            description: None,
            unit: None,
            declared_type: None,
            start: None,
            min: None,
            max: None,
            is_array: false,
            intermediate_update: false,
        }
    }

    #[test]
    fn groups_by_type_know_whether_their_columns_follow_each_other() {
        let vars = [
            variable(5, VarType::Float64),
            variable(6, VarType::Float64),
            variable(9, VarType::Int32),
            variable(2, VarType::Float64),
        ];
        let groups = read_groups(&vars.iter().collect::<Vec<_>>());
        assert_eq!(groups.len(), 2);
        assert_eq!(
            (groups[0].ty, &groups[0].vrs, &groups[0].columns),
            (VarType::Float64, &vec![5, 6, 2], &vec![0, 1, 3])
        );
        assert_eq!(groups[0].span, None, "column 2 is the integer's");
        assert_eq!(groups[1].span, Some(2..3));
        let in_order = [variable(1, VarType::Float64), variable(2, VarType::Float64), variable(3, VarType::Int32)];
        let groups = read_groups(&in_order.iter().collect::<Vec<_>>());
        assert_eq!((groups[0].span.clone(), groups[1].span.clone()), (Some(0..2), Some(2..3)));
    }
}
