//! Helpers shared by the FMU-level tests: packaging, the Rust-API reference run, raw
//! bindings to the cdylib and capture of the FMU's log lines. Everything is generic over
//! `catalog::CATALOG` and each model's variables.
#![allow(dead_code)]

pub mod abi;
pub mod host;
pub mod orders;

use mbfmu::slave::Slave;
use mbfmu_model::catalog::CatalogEntry;
use mbfmu_model::variables::{Causality, Start, VarType};
use mbfmu_model::Model;
use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Once};

/// The catalog packaged into a temporary directory (fmi2/<Model>.fmu, fmi3/<Model>.fmu).
pub fn packaged_catalog() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    package_catalog_into(dir.path());
    dir
}

/// The catalog packaged into target/tmp/<name>, emptied first, for a static
/// (crates/cli/tests/scratch.rs says why).
pub fn packaged_catalog_for_static(name: &str) -> PathBuf {
    let dir = crate::scratch::dir(name);
    package_catalog_into(&dir);
    dir
}

fn package_catalog_into(dir: &Path) {
    let library = mbfmu_package::locate_library().expect("the cdylib is built next to the test executable");
    mbfmu_package::package_catalog(&library, dir).expect("packaging the catalog");
}

pub fn fmu_path(root: &Path, version: u8, entry: &CatalogEntry) -> PathBuf {
    root.join(format!("fmi{version}")).join(format!("{}.fmu", entry.name))
}

pub fn model(entry: &CatalogEntry) -> Arc<Model> {
    Arc::new(Model::from_catalog(entry).expect("catalog models build"))
}

/// Value reference and type of every output.
pub fn outputs(model: &Model) -> Vec<(u32, VarType)> {
    model.interface.outputs().map(|v| (v.value_reference, v.ty)).collect()
}

/// Value reference, type and start value of every input.
pub fn inputs(model: &Model) -> Vec<(u32, VarType, f64)> {
    model
        .interface
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Input)
        .map(|v| {
            let start = match v.start {
                Some(Start::Real(x)) => x,
                Some(Start::Integer(i)) => i as f64,
                None => panic!("input {} has no start value", v.name),
            };
            (v.value_reference, v.ty, start)
        })
        .collect()
}

/// The FMI 3 FMU unpacked and handed to the `fmi` crate. fmi-schema 0.8 (its XML parser)
/// rejects valid FMI 3.0 descriptions: its Float64 knows no `unit`/`displayUnit`/`nominal`
/// attribute and there is no `<Enumeration>` variable element. The crate therefore gets a copy
/// of modelDescription.xml without those attributes and variables, and without the base units
/// (it knows no ampere exponent `A`, which the volt of the hydraulic models needs); the binary, the token and
/// the DefaultExperiment are the archive's own (fmpy validates the unmodified XML, tests/fmpy.rs).
pub fn import_fmi3(path: &std::path::Path) -> fmi::fmi3::import::Fmi3Import {
    let dir = tempfile::tempdir().unwrap();
    zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap().extract(dir.path()).unwrap();
    let xml = std::fs::read_to_string(dir.path().join("modelDescription.xml")).unwrap();
    let reduced: Vec<String> = xml
        .lines()
        .filter(|line| !line.trim_start().starts_with("<Enumeration ") && !line.trim_start().starts_with("<BaseUnit "))
        .map(|line| {
            if !line.trim_start().starts_with("<Float64 ") {
                return line.to_string();
            }
            let mut line = line.to_string();
            for attribute in [" unit=\"", " displayUnit=\"", " nominal=\""] {
                if let Some(at) = line.find(attribute) {
                    let end = line[at + attribute.len()..].find('"').unwrap() + at + attribute.len() + 1;
                    line.replace_range(at..end, "");
                }
            }
            line
        })
        .collect();
    <fmi::fmi3::import::Fmi3Import as fmi::traits::FmiImport>::new(dir, &reduced.join("\n"))
        .expect("the fmi crate reads the reduced modelDescription")
}

/// The communication points the tests use: (t_k, h) with t_k = start + k h, as fmpy does.
pub fn grid(start: f64, stop: f64, h: f64) -> Vec<(f64, f64)> {
    let n = ((stop - start) / h).round() as usize;
    (0..n).map(|k| (start + k as f64 * h, h)).collect()
}

/// Outputs at the start and after every step of `grid`, driven through the Rust API with
/// the same calls an importer makes.
pub fn reference_run(model: &Arc<Model>, start: f64, stop: f64, steps: &[(f64, f64)]) -> Vec<Vec<f64>> {
    let mut s = Slave::new(model.clone());
    s.setup_experiment(start, Some(stop)).unwrap();
    s.enter_initialization().unwrap();
    for (vr, _, value) in inputs(model) {
        s.set(vr, value).unwrap();
    }
    s.exit_initialization().unwrap();
    let outs = outputs(model);
    let mut rows = Vec::with_capacity(steps.len() + 1);
    let record = |s: &mut Slave| outs.iter().map(|&(vr, _)| s.get(vr).unwrap()).collect::<Vec<f64>>();
    rows.push(record(&mut s));
    for &(t, h) in steps {
        s.do_step(t, h).unwrap();
        rows.push(record(&mut s));
    }
    rows
}

/// Asserts bit-identical rows, naming the first differing output.
pub fn assert_identical(what: &str, model: &Model, expected: &[Vec<f64>], got: &[Vec<f64>]) {
    assert_eq!(expected.len(), got.len(), "{what}: number of communication points");
    let names: Vec<&str> = model.interface.outputs().map(|v| v.name.as_str()).collect();
    for (k, (e, g)) in expected.iter().zip(got).enumerate() {
        for (j, (x, y)) in e.iter().zip(g).enumerate() {
            assert!(
                x.to_bits() == y.to_bits(),
                "{what}: output {} at communication point {k}: expected {x:e}, got {y:e}",
                names[j]
            );
        }
    }
}

pub fn cstring(s: &str) -> CString {
    CString::new(s).unwrap()
}

// ---- Log capture ---------------------------------------------------------------------------

/// FMI 2 log lines arrive through fmi-sys's C logger (it formats the variadic arguments and
/// forwards to the `log` crate with the instance name as target); this captures them.
struct Capture;

/// Lines per instance name, so that looking up one instance's lines does not scan every line
/// of a long fuzzing run.
static FMI2_LINES: Mutex<BTreeMap<String, Vec<(log::Level, String)>>> = Mutex::new(BTreeMap::new());

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }
    fn log(&self, record: &log::Record) {
        if record.module_path() == Some("logger") {
            let line = (record.level(), record.args().to_string());
            FMI2_LINES.lock().unwrap().entry(record.target().to_string()).or_default().push(line);
        }
    }
    fn flush(&self) {}
}

pub fn install_fmi2_log_capture() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        log::set_boxed_logger(Box::new(Capture)).expect("no other logger");
        log::set_max_level(log::LevelFilter::Trace);
    });
}

/// The FMI 2 log lines of one instance (instance names are unique per test).
pub fn fmi2_lines(instance: &str) -> Vec<(log::Level, String)> {
    FMI2_LINES.lock().unwrap().get(instance).cloned().unwrap_or_default()
}

/// FMI 3 log lines: (status, category, message), collected through the instance environment.
#[derive(Default)]
pub struct Fmi3Log(pub Mutex<Vec<(u32, String, String)>>);

impl Fmi3Log {
    pub fn env(&self) -> *mut c_void {
        self as *const Fmi3Log as *mut c_void
    }
    pub fn lines(&self) -> Vec<(u32, String, String)> {
        self.0.lock().unwrap().clone()
    }
    pub fn clear(&self) {
        self.0.lock().unwrap().clear()
    }
}

/// The logMessage callback; `env` is a `&Fmi3Log`.
pub unsafe extern "C" fn fmi3_log(env: *mut c_void, status: u32, category: *const c_char, message: *const c_char) {
    let text = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    let log = unsafe { &*(env as *const Fmi3Log) };
    log.0.lock().unwrap().push((status, text(category), text(message)));
}
