//! The FMU library driven as a C host drives it: the built cdylib is loaded
//! in-process through its exported FMI 3 functions (fmi-sys's libloading bindings, not the
//! Rust engine API) and stepped over the rows of the speed targets. For each row it prints
//! the best wall time of several runs, the instructions per call counted by callgrind when
//! valgrind is installed (only inside the measured function: `--toggle-collect`), and the
//! ratio to the target (<= 1 meets it).
//!
//! Run: `cargo bench -p mbfmu-cli --bench fmi_host` (add `-- --no-valgrind` to skip the
//! instruction counts, `-- --row NAME` for one row).

#[path = "fmi3_host/mod.rs"]
mod fmi3_host;

use fmi3_host::{library, log_message};
use fmi_sys::fmi3 as f3;
use mbfmu_model::catalog;
use mbfmu_model::variables::{FmiVersion, VarType};
use mbfmu_model::Model;
use std::ffi::CString;
use std::process::Command;
use std::time::Instant;

/// One measured configuration and its targets.
struct Row {
    name: &'static str,
    model: &'static str,
    /// `solver.*` parameters set before initialization (name, value as the FMI 3 type's i64
    /// for enumerations and integers, f64 otherwise).
    settings: &'static [(&'static str, Setting)],
    stop: f64,
    h: f64,
    what: What,
    target_ms: f64,
    /// Instructions per call of the measured function.
    target_instructions: Option<f64>,
}

#[derive(Clone, Copy)]
enum Setting {
    Enum(i64),
}

#[derive(Clone, Copy, PartialEq)]
enum What {
    /// fmi3DoStep over the whole run.
    Steps,
    /// fmi3DoStep calls whose step lies within the FMU's time tolerance: the cost of the
    /// call itself (state machine, rollback point, bookkeeping) without internal steps.
    CallOverhead,
    /// fmi3GetFloat64 of every output after each step.
    GetOutputs,
    /// `mbfmu simulate <Model>` as a child process, CSV at every step (the built-in model run
    /// by the FMU library linked into the command), best of seven runs, each after a run of
    /// the in-process loop it is compared with, which reads every output the command writes
    /// (`Reads::Outputs`: the same FMI calls per row).
    Cli,
    /// The same model's FMI 3 archive run by its path (unpacked into the cache by an earlier
    /// run, as for every run after the first of an archive).
    CliArchive,
    /// The archive with an empty cache: its first run, which unpacks it.
    CliFirstRun,
}

const DOUBLE_STEP: Setting = Setting::Enum(2);
const PENALTY: Setting = Setting::Enum(3);

const ROWS: &[Row] = &[
    Row {
        name: "DoublePendulum halfImplicit, h = 1 ms, 8 s",
        model: "DoublePendulum",
        settings: &[],
        stop: 8.0,
        h: 1e-3,
        what: What::Steps,
        target_ms: 8.0,
        target_instructions: Some(11e3),
    },
    Row {
        name: "NLinkChain32 halfImplicit, h = 1 ms, 3 s",
        model: "NLinkChain32",
        settings: &[],
        stop: 3.0,
        h: 1e-3,
        what: What::Steps,
        target_ms: 30.0,
        target_instructions: Some(125e3),
    },
    Row {
        name: "HydraulicFourBar doubleStep, 10 s at 1 ms",
        model: "HydraulicFourBar",
        settings: &[("solver.formulation", DOUBLE_STEP)],
        stop: 10.0,
        h: 1e-3,
        what: What::Steps,
        target_ms: 15.0,
        target_instructions: Some(15e3),
    },
    Row {
        name: "HydraulicFourBar penalty, 10 s at 1 ms",
        model: "HydraulicFourBar",
        settings: &[("solver.formulation", PENALTY)],
        stop: 10.0,
        h: 1e-3,
        what: What::Steps,
        target_ms: 15.0,
        target_instructions: Some(15e3),
    },
    Row {
        name: "HydraulicQuickReturn doubleStep, 10 s at 1 ms",
        model: "HydraulicQuickReturn",
        settings: &[("solver.formulation", DOUBLE_STEP)],
        stop: 10.0,
        h: 1e-3,
        what: What::Steps,
        target_ms: 15.0,
        target_instructions: Some(15e3),
    },
    Row {
        name: "HydraulicQuickReturn penalty, 10 s at 1 ms",
        model: "HydraulicQuickReturn",
        settings: &[("solver.formulation", PENALTY)],
        stop: 10.0,
        h: 1e-3,
        what: What::Steps,
        target_ms: 15.0,
        target_instructions: Some(15e3),
    },
    Row {
        // The rigid PATU lift boom [Khadim2023]: its first 10 s (lift from 2 s, hold from 9 s)
        // at 1 ms communication steps, within twice the four-bar's targets per simulated second.
        name: "PatuLiftBoom doubleStep, 10 s at 1 ms",
        model: "PatuLiftBoom",
        settings: &[("solver.formulation", DOUBLE_STEP)],
        stop: 10.0,
        h: 1e-3,
        what: What::Steps,
        target_ms: 30.0,
        target_instructions: Some(30e3),
    },
    Row {
        name: "doStep call itself (DoublePendulum, 100000 calls, us per call)",
        model: "DoublePendulum",
        settings: &[],
        stop: 1e-5,
        h: 1e-10,
        what: What::CallOverhead,
        // 0.25 us per call, expressed for the 100000 calls.
        target_ms: 25.0,
        target_instructions: None,
    },
    Row {
        name: "GetFloat64 of all Float64 DoublePendulum outputs after each 1 ms step, 8 s",
        model: "DoublePendulum",
        settings: &[],
        stop: 8.0,
        h: 1e-3,
        what: What::GetOutputs,
        // A quarter of a step (the DoublePendulum step row's target).
        target_ms: 2.0,
        target_instructions: Some(11e3 / 4.0),
    },
    Row {
        name: "mbfmu simulate DoublePendulum 8 s at 1 ms output (vs 1.5 x in-process loop)",
        model: "DoublePendulum",
        settings: &[],
        stop: 8.0,
        h: 1e-3,
        what: What::Cli,
        target_ms: f64::NAN, // 1.5 x the in-process loop, measured alongside
        target_instructions: None,
    },
    Row {
        name: "  the same, its FMI 3 archive run by path (no target)",
        model: "DoublePendulum",
        settings: &[],
        stop: 8.0,
        h: 1e-3,
        what: What::CliArchive,
        target_ms: f64::NAN,
        target_instructions: None,
    },
    Row {
        name: "  the same, the archive's first run (unpacks it; no target)",
        model: "DoublePendulum",
        settings: &[],
        stop: 8.0,
        h: 1e-3,
        what: What::CliFirstRun,
        target_ms: f64::NAN,
        target_instructions: None,
    },
];

/// An initialized co-simulation instance of a catalog model.
struct Instance {
    handle: f3::fmi3Instance,
    /// Value references of the Float64 outputs, and of the Int32 ones.
    outputs: Vec<u32>,
    integer_outputs: Vec<u32>,
}

/// What the loop reads after each step.
#[derive(Clone, Copy, PartialEq)]
enum Reads {
    Nothing,
    /// Every Float64 output (one fmi3GetFloat64).
    Float64,
    /// Every output `mbfmu simulate` writes: the Float64 ones and the Int32 ones (one
    /// fmi3GetFloat64 and one fmi3GetInt32), the FMI calls the command makes per row.
    Outputs,
}

impl Instance {
    fn new(row: &Row) -> Instance {
        let entry = catalog::find(row.model).expect("catalog model");
        let model = Model::from_catalog(entry).expect("catalog models build");
        let lib = library();
        let name = CString::new(row.model).unwrap();
        let token = CString::new(entry.token).unwrap();
        let handle = unsafe {
            lib.fmi3InstantiateCoSimulation(
                name.as_ptr(),
                token.as_ptr(),
                std::ptr::null(),
                false,
                std::env::var_os("MBFMU_BENCH_LOG").is_some(),
                false,
                false,
                std::ptr::null(),
                0,
                std::ptr::null_mut(),
                Some(log_message),
                None,
            )
        };
        assert!(!handle.is_null(), "{}: instantiation failed", row.model);
        for (setting, value) in row.settings {
            let vr = model.interface.by_name(setting).expect("setting exists").value_reference;
            let Setting::Enum(v) = *value;
            assert_eq!(unsafe { lib.fmi3SetInt64(handle, &vr, 1, &v, 1) }, 0, "{setting}");
        }
        unsafe {
            assert_eq!(lib.fmi3EnterInitializationMode(handle, false, 0.0, 0.0, true, row.stop.max(1.0)), 0);
            assert!(lib.fmi3ExitInitializationMode(handle) <= 1, "{}: initialization failed", row.model);
        }
        let of = |ty: VarType| model.interface.outputs().filter(|v| v.ty == ty).map(|v| v.value_reference).collect();
        Instance { handle, outputs: of(VarType::Real), integer_outputs: of(VarType::Integer) }
    }

    /// Steps to the stop time, reading `reads` after each step.
    fn run(&self, row: &Row, reads: Reads) -> usize {
        let lib = library();
        let n = (row.stop / row.h).round() as usize;
        let mut values = vec![0.0; self.outputs.len()];
        let mut integers = vec![0; self.integer_outputs.len()];
        let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
        for i in 0..n {
            let t = i as f64 * row.h;
            let status = unsafe {
                lib.fmi3DoStep(self.handle, t, row.h, true, &mut event, &mut terminate, &mut early, &mut last)
            };
            assert_eq!(status, 0, "{}: doStep at {t} failed", row.name);
            if reads != Reads::Nothing {
                let s = unsafe {
                    lib.fmi3GetFloat64(
                        self.handle,
                        self.outputs.as_ptr(),
                        self.outputs.len(),
                        values.as_mut_ptr(),
                        values.len(),
                    )
                };
                assert_eq!(s, 0);
            }
            if reads == Reads::Outputs {
                let s = unsafe {
                    lib.fmi3GetInt32(
                        self.handle,
                        self.integer_outputs.as_ptr(),
                        self.integer_outputs.len(),
                        integers.as_mut_ptr(),
                        integers.len(),
                    )
                };
                assert_eq!(s, 0);
            }
        }
        std::hint::black_box((&values, &integers));
        n
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        unsafe { library().fmi3FreeInstance(self.handle) }
    }
}

/// Best wall time [ms] of `repeat` runs of `f` (each on a new instance).
fn best_of(repeat: usize, mut f: impl FnMut() -> f64) -> f64 {
    (0..repeat).map(|_| f()).fold(f64::INFINITY, f64::min)
}

fn timed(row: &Row, reads: Reads) -> f64 {
    let instance = Instance::new(row);
    let start = Instant::now();
    instance.run(row, reads);
    start.elapsed().as_secs_f64() * 1e3
}

/// The function whose instructions a row counts.
fn measured_function(what: What) -> &'static str {
    match what {
        What::GetOutputs => "fmi3GetFloat64",
        _ => "fmi3DoStep",
    }
}

/// Instructions per call of the row's function, counted by callgrind in a child run of
/// this bench (`--count ROW`); None without valgrind.
fn instructions_per_call(index: usize, row: &Row) -> Option<f64> {
    let out = std::env::temp_dir().join(format!("mbfmu-fmi-host-{}-{index}.callgrind", std::process::id()));
    let exe = std::env::current_exe().ok()?;
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg("--collect-atstart=no")
        .arg(format!("--toggle-collect={}", measured_function(row.what)))
        .arg(exe)
        .args(["--count", &index.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    let text = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_file(&out);
    if !status.success() {
        return None;
    }
    let total: f64 =
        text?.lines().find_map(|l| l.strip_prefix("summary:").or(l.strip_prefix("totals:")))?.trim().parse().ok()?;
    Some(total / calls(row) as f64)
}

fn calls(row: &Row) -> usize {
    (row.stop / row.h).round() as usize
}

/// The FMI 3 archive of a built-in model, written once into a temporary directory.
fn archive(model: &str) -> std::path::PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"));
    let path = dir.path().join(format!("{model}.fmu"));
    if !path.is_file() {
        let library = mbfmu_package::locate_library().expect("the FMU library is built next to this bench");
        let entry = catalog::find(model).expect("a built-in model");
        mbfmu_package::write_fmu(entry, FmiVersion::V3, &library, &path).expect("the archive is written");
        // The cache names an archive by its file's identity only once the file has been
        // unchanged for 2 s (a just-written one is hashed at every run; see unpacked.rs):
        // measured as every archive but a just-written one runs.
        std::thread::sleep(std::time::Duration::from_millis(2100));
    }
    path
}

/// `mbfmu simulate` of the row as a child process [ms] (the built-in model by name, or with
/// `archive` its FMI 3 archive by path): `runs` runs after a warm-up run (which unpacks the
/// archive into the cache), each preceded by `between` (the in-process loop it is compared
/// with, so that both see the same moments of a shared machine's load). Returns the best time
/// of the command and of `between`. With `first_run`, the cache of unpacked FMUs is emptied
/// before each run (a private cache directory: the user's is left alone).
fn cli_ms(row: &Row, archive: bool, first_run: bool, runs: usize, mut between: impl FnMut() -> f64) -> (f64, f64) {
    let csv = std::env::temp_dir().join(format!("mbfmu-fmi-host-{}.csv", std::process::id()));
    let cache = first_run.then(|| tempfile::tempdir().expect("a temporary directory"));
    let source = if archive { self::archive(row.model).into_os_string() } else { row.model.into() };
    let run = || {
        if let Some(cache) = &cache {
            let _ = std::fs::remove_dir_all(cache.path().join("mbfmu/unpacked"));
        }
        let start = Instant::now();
        let mut command = Command::new(env!("CARGO_BIN_EXE_mbfmu"));
        if let Some(cache) = &cache {
            command.env("XDG_CACHE_HOME", cache.path());
        }
        let out = command
            .arg("simulate")
            .arg(&source)
            .args(["--stop-time", &row.stop.to_string(), "--step", &row.h.to_string()])
            .arg("--csv")
            .arg(&csv)
            .output()
            .expect("mbfmu runs");
        assert!(out.status.success(), "mbfmu simulate failed: {}", String::from_utf8_lossy(&out.stderr));
        start.elapsed().as_secs_f64() * 1e3
    };
    run();
    let (mut best, mut best_between) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..runs {
        best_between = best_between.min(between());
        best = best.min(run());
    }
    let _ = std::fs::remove_file(&csv);
    (best, best_between)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    // The child run under callgrind: one run of one row, nothing printed.
    if let Some(index) = flag("--count") {
        let row = &ROWS[index.parse::<usize>().expect("row index")];
        let instance = Instance::new(row);
        instance.run(row, if row.what == What::GetOutputs { Reads::Float64 } else { Reads::Nothing });
        return;
    }
    let only = flag("--row");
    let valgrind = !args.iter().any(|a| a == "--no-valgrind")
        && Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success());
    println!("FMU library driven through its C ABI (fmi3*), best of 5 runs (the command: of 7)");
    println!("{:<78} {:>10} {:>10} {:>12} {:>10}", "case", "time", "target", "instr/call", "ratio");
    for (index, row) in ROWS.iter().enumerate() {
        if only.as_deref().is_some_and(|o| !row.name.contains(o)) {
            continue;
        }
        let (ms, target_ms, unit) = match row.what {
            What::Steps => (best_of(5, || timed(row, Reads::Nothing)), row.target_ms, "ms"),
            What::CallOverhead => {
                let ms = best_of(5, || timed(row, Reads::Nothing));
                let per_call = |ms: f64| ms * 1e3 / calls(row) as f64;
                (per_call(ms), per_call(row.target_ms), "us")
            }
            What::GetOutputs => {
                let with = best_of(5, || timed(row, Reads::Float64));
                let without = best_of(5, || timed(row, Reads::Nothing));
                ((with - without).max(0.0), row.target_ms, "ms")
            }
            What::Cli => {
                let (cli, in_process) = cli_ms(row, false, false, 7, || timed(row, Reads::Outputs));
                (cli, 1.5 * in_process, "ms")
            }
            What::CliArchive => (cli_ms(row, true, false, 7, || 0.0).0, f64::NAN, "ms"),
            What::CliFirstRun => (cli_ms(row, true, true, 3, || 0.0).0, f64::NAN, "ms"),
        };
        let instructions = if valgrind && !matches!(row.what, What::Cli | What::CliArchive | What::CliFirstRun) {
            instructions_per_call(index, row)
        } else {
            None
        };
        let mut ratio = ms / target_ms;
        if let (Some(i), Some(t)) = (instructions, row.target_instructions) {
            ratio = ratio.max(i / t);
        }
        let target = if target_ms.is_nan() { "-".to_string() } else { format!("{target_ms:.3} {unit}") };
        let ratio = if ratio.is_nan() { "-".to_string() } else { format!("{ratio:.2}") };
        println!(
            "{:<78} {:>7.3} {unit} {:>10} {:>12} {:>10}",
            row.name,
            ms,
            target,
            instructions.map_or("-".to_string(), |i| format!("{:.0}", i)),
            ratio
        );
    }
    println!("ratio: the larger of time / target and instructions / target (<= 1 meets the target)");
}
