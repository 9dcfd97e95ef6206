//! Work against precision on the catalog's double pendulum [Fang2023]: the FMU library driven
//! through its exported FMI 3 functions (as `fmi_host.rs` drives it), MuJoCo and Pinocchio, each
//! at a ladder of steps or tolerances, against a reference computed here.
//!
//! Every engine runs the same mechanism from rest to t = 8 s: two steel bars (4 m, 78 kg;
//! 2 m, 39 kg) in revolute joints about the global x axis, bar 1 horizontal along +y, bar 2
//! hanging along -z, gravity -9.81 z. The error of a run is the Euclidean distance of bar 2's
//! centre of mass (the point the FMU outputs) at t = 8 s from the reference's; its cost is the
//! wall time of the stepping loop alone per simulated second, the best of several repetitions
//! (short runs repeated until a block takes 20 ms; instantiation, initialization, model load and
//! process start-up excluded).
//!
//! - The FMU: co-simulation, the solver parameters set before initialization, one `fmi3DoStep`
//!   over the 8 s; each model row names a catalog model and the `solver.method` items to run (the
//!   items a model does not offer, and models not in the catalog, are skipped with a message).
//! - MuJoCo (PyPI `mujoco`): its RK4 and its default semi-implicit Euler in a C loop of `mj_step`
//!   (`work_precision/mujoco_loop.c`, `work_precision/double_pendulum.xml`).
//! - Pinocchio (PyPI `pin`): `aba` with classical RK4 on the minimal coordinates (q, v)
//!   (`work_precision/pinocchio_rk4.cpp`).
//! - The reference: the minimal-coordinate ODE of the pendulum (Lagrange's equations in the two
//!   absolute bar angles) integrated by classical RK4 with compensated summation at 320 000 steps,
//!   checked against 160 000 steps and, when the peers' environment exists, against SciPy's DOP853
//!   (`work_precision/reference.py`).
//!
//! The peers are installed on first run into a Python environment of their own
//! (`target/peers-venv`) and compiled into `target/peers/`; without a network (or with
//! `-- --no-peers`) only the FMU's rows run.
//!
//! Prints every (cost, error) point, the cost at which each row first reaches the errors 1e-2 to
//! 1e-9 (log-log interpolation between ladder points) and the ratios of the FMU's best to
//! Pinocchio's RK4 and to MuJoCo's RK4; writes the points to `target/work_precision.csv` and the
//! plot to `docs/images/work_precision.svg`.
//!
//! Run: `cargo bench -p mbfmu-cli --bench work_precision` (`-- --quick` for a shorter ladder,
//! `-- --no-peers` for the FMU alone).

#[path = "fmi3_host/mod.rs"]
mod fmi3_host;

use fmi3_host::{library, log_message};
use fmi_sys::fmi3 as f3;
use mbfmu_model::catalog;
use mbfmu_model::variables::SolverSetting;
use mbfmu_model::Model;
use std::ffi::CString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// End of every run [s].
const T_END: f64 = 8.0;

/// The errors of the summary table [m].
const TARGET_ERRORS: [f64; 8] = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9];

/// A ladder stops after a point more accurate than this: the table's last error with margin.
const ENOUGH: f64 = 1e-10;

/// One model of the FMU library and the `solver.method` items to run on it; `formulation`, when
/// given, is set as `solver.formulation` where the model offers that parameter (semirecursive
/// models), else the model's description is run in that formulation (its solver block changed,
/// passed to the FMU as a packaged description). Adding a model is one line.
struct FmuModel {
    model: &'static str,
    /// Name of the rows in the tables.
    engine: &'static str,
    formulation: Option<&'static str>,
    methods: &'static [&'static str],
}

const FMU_MODELS: &[FmuModel] = &[
    FmuModel {
        model: "DoublePendulum",
        engine: "FMU index-3",
        formulation: None,
        // The trapezoidal rule's row is gone: it is refused for index-3 descriptions
        // (`Method::refusal`: no dissipation, a growing sign-alternating error).
        methods: &["halfImplicit", "bdf1", "lms2", "lms3", "mssth4", "esdirk324L2SA", "esdirk436L2SA2"],
    },
    FmuModel {
        model: "DoublePendulumStateSpace",
        engine: "FMU state-space",
        formulation: None,
        methods: &["rk4", "dopri5", "dop853", "auto", "sdirk4", "trapezoidalVariableStep"],
    },
    FmuModel {
        model: "DoublePendulum",
        engine: "FMU semirecursive",
        formulation: Some("doubleStep"),
        methods: &["rk4", "dopri5", "dop853", "auto"],
    },
];

/// One measured run: its best wall time [s], error [m] and internal steps.
struct Run {
    seconds: f64,
    error: f64,
    steps: Option<u64>,
}

/// Where a ladder's runs end up: cost per simulated second [s/s] and the error [m].
#[derive(Clone, Debug)]
struct Point {
    /// The ladder's setting: steps over the 8 s, or the tolerance.
    setting: Setting,
    cost: f64,
    error: f64,
    /// Internal steps of the run (the FMU's `steps` output; the ladder's steps for the peers).
    steps: Option<u64>,
}

#[derive(Clone, Copy, Debug)]
enum Setting {
    Steps(u64),
    Tolerance(f64),
}

impl Setting {
    fn describe(self) -> String {
        match self {
            Setting::Steps(n) => format!("h = {:.3e} s ({n} steps)", T_END / n as f64),
            Setting::Tolerance(tol) => format!("tol = {tol:.0e}"),
        }
    }
}

/// One line of the plot and of the tables.
struct Series {
    engine: String,
    method: String,
    /// A row of the FMU library (the product).
    product: bool,
    points: Vec<Point>,
}

impl Series {
    fn label(&self) -> String {
        format!("{} {}", self.engine, self.method)
    }
}

impl Options {
    fn wants(&self, label: &str) -> bool {
        self.only.as_deref().is_none_or(|o| label.contains(o))
    }
}

struct Options {
    quick: bool,
    peers: bool,
    /// A ladder stops after a run (8 s simulated) that took longer than this [s].
    budget: f64,
    /// `--newton TOL`: this Newton tolerance for every FMU run instead of [`newton_tolerance`].
    newton: Option<f64>,
    /// `--row TEXT`: only the rows whose name contains TEXT.
    only: Option<String>,
}

/// Steps over 8 s: 20, 50, 100, 200, 500, ... (h = 0.4, 0.16, 0.08, ... s).
fn step_ladder() -> impl Iterator<Item = Setting> {
    (1..14).flat_map(|decade| [2u64, 5, 10].map(|m| m * 10u64.pow(decade))).map(Setting::Steps)
}

/// Tolerances 1e-3 to 1e-13.
fn tolerance_ladder(quick: bool) -> Vec<Setting> {
    let step = if quick { 2 } else { 1 };
    (3..=13).step_by(step).map(|e| Setting::Tolerance(10f64.powi(-e))).collect()
}

/// Runs `run` along `ladder` until a point is accurate enough ([`ENOUGH`]), a run exceeds the
/// budget, or the error stops falling (round-off or a tolerance floor: two points in a row no
/// better than half the best below 1e-6). `run` gets the setting and the error of the previous
/// point and returns the run, or why it failed.
fn ladder(
    label: &str,
    settings: impl IntoIterator<Item = Setting>,
    options: &Options,
    mut run: impl FnMut(Setting, f64) -> Result<Run, String>,
) -> Vec<Point> {
    let mut points: Vec<Point> = Vec::new();
    let mut previous = 1.0;
    let mut best = f64::INFINITY;
    let mut stalled = 0;
    for setting in settings {
        match run(setting, previous) {
            Ok(Run { seconds, error, steps }) if error.is_finite() => {
                let point = Point { setting, cost: seconds / T_END, error, steps };
                let per_step = steps.map_or(String::new(), |n| {
                    format!("  {n:>7} steps, {:>6.2} us/step", seconds * 1e6 / n.max(1) as f64)
                });
                println!(
                    "  {label:<40} {:<30} cost {:>9.4} ms/s  error {:.3e}{per_step}",
                    setting.describe(),
                    point.cost * 1e3,
                    error
                );
                points.push(point);
                previous = error;
                if error < ENOUGH || seconds > options.budget {
                    break;
                }
                if best < 1e-6 && error > 0.5 * best {
                    stalled += 1;
                    if stalled == 2 {
                        break;
                    }
                } else {
                    stalled = 0;
                }
                best = best.min(error);
            }
            Ok(Run { seconds, .. }) => {
                println!("  {label:<40} {:<30} no finite result", setting.describe());
                if seconds > options.budget {
                    break;
                }
            }
            Err(why) => println!("  {label:<40} {:<30} failed: {why}", setting.describe()),
        }
    }
    points
}

/// Best time per run [s] of `f` (which returns the time of one run): a calibration run sets how
/// many runs make a block of at least 20 ms; the best mean of 5 such blocks (3 if one run is
/// that long) is returned with the result of the last run.
fn best_time<T>(mut f: impl FnMut() -> Result<(f64, T), String>) -> Result<(f64, T), String> {
    let (first, mut result) = f()?;
    let per_block = if first > 0.0 { (0.02 / first).ceil().max(1.0) as usize } else { 1000 };
    let blocks = if per_block == 1 { 3 } else { 5 };
    let mut best = first;
    for _ in 0..blocks {
        let mut sum = 0.0;
        for _ in 0..per_block {
            let (seconds, r) = f()?;
            sum += seconds;
            result = r;
        }
        best = best.min(sum / per_block as f64);
    }
    Ok((best, result))
}

// ---------------------------------------------------------------------------------------------
// The reference: the minimal-coordinate ODE of the pendulum.

/// The pendulum in the absolute bar angles from the downward vertical,
/// y = (theta1, theta2, theta1', theta2'): Lagrange's equations of two uniform bars with
/// centroidal inertias m (w^2 + L^2)/12 (w = 0.05 m) about the joint axis.
fn pendulum_rhs(y: &[f64; 4]) -> [f64; 4] {
    const W: f64 = 0.05;
    const M: [f64; 2] = [78.0, 39.0];
    const L: [f64; 2] = [4.0, 2.0];
    const G: f64 = 9.81;
    let j = [M[0] * (W * W + L[0] * L[0]) / 12.0, M[1] * (W * W + L[1] * L[1]) / 12.0];
    let (c1, c2) = (0.5 * L[0], 0.5 * L[1]);
    let d = y[0] - y[1];
    let a11 = M[0] * c1 * c1 + j[0] + M[1] * L[0] * L[0];
    let a12 = M[1] * L[0] * c2 * d.cos();
    let a22 = M[1] * c2 * c2 + j[1];
    let b1 = -M[1] * L[0] * c2 * d.sin() * y[3] * y[3] - (M[0] * c1 + M[1] * L[0]) * G * y[0].sin();
    let b2 = M[1] * L[0] * c2 * d.sin() * y[2] * y[2] - M[1] * G * c2 * y[1].sin();
    let det = a11 * a22 - a12 * a12;
    [y[2], y[3], (a22 * b1 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det]
}

/// Global (y, z) of bar 2's centre of mass at the angles of `y`.
fn bar2_centre(y: &[f64; 4]) -> [f64; 2] {
    [4.0 * y[0].sin() + y[1].sin(), -4.0 * y[0].cos() - y[1].cos()]
}

/// Classical RK4 [HairerNorsettWanner1993, Table 1.2] from rest at theta1 = pi/2, theta2 = 0
/// to t = 8 s in `n` steps, the state summed with compensation (Kahan) so that round-off does not
/// grow with the number of steps.
fn reference_rk4(n: u64) -> [f64; 2] {
    let h = T_END / n as f64;
    let mut y = [std::f64::consts::FRAC_PI_2, 0.0, 0.0, 0.0];
    let mut carry = [0.0; 4];
    for _ in 0..n {
        let k1 = pendulum_rhs(&y);
        let k2 = pendulum_rhs(&std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]));
        let k3 = pendulum_rhs(&std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]));
        let k4 = pendulum_rhs(&std::array::from_fn(|i| y[i] + h * k3[i]));
        for i in 0..4 {
            let increment = h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) - carry[i];
            let sum = y[i] + increment;
            carry[i] = (sum - y[i]) - increment;
            y[i] = sum;
        }
    }
    bar2_centre(&y)
}

fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

// ---------------------------------------------------------------------------------------------
// The FMU through its C ABI.

/// A value to set before initialization.
#[derive(Clone, Copy)]
enum Value {
    Enum(i64),
    Int(i32),
    Real(f64),
}

/// One co-simulation instance of a catalog model, reset and set up again between runs.
struct Instance {
    handle: f3::fmi3Instance,
    /// Value references of bar2.position.x, y, z.
    position: [u32; 3],
    /// Value reference of the `steps` output (internal steps since the start), if any.
    steps: Option<u32>,
}

impl Instance {
    /// An instance of `model`, whose description the library finds by its token (a catalog
    /// model) or in `resources`/model.json (a packaged description).
    fn new(model: &Model, name: &str, resources: Option<&Path>) -> Result<Instance, String> {
        let lib = library();
        let name = CString::new(name).unwrap();
        let token = CString::new(model.token.as_str()).unwrap();
        let resources = resources.map(|r| CString::new(r.to_str().expect("a UTF-8 path")).unwrap());
        let handle = unsafe {
            lib.fmi3InstantiateCoSimulation(
                name.as_ptr(),
                token.as_ptr(),
                resources.as_ref().map_or(std::ptr::null(), |r| r.as_ptr()),
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
        if handle.is_null() {
            return Err("instantiation failed (MBFMU_BENCH_LOG=1 prints why; a library built after this bench \
                        knows other tokens: build both with one cargo command)"
                .into());
        }
        let position = ["x", "y", "z"].map(|c| model.interface.by_name(&format!("bar2.position.{c}")));
        // Owned from here: freed when dropped, also on the error below.
        let mut instance =
            Instance { handle, position: [0; 3], steps: model.interface.by_name("steps").map(|v| v.value_reference) };
        match position {
            [Some(x), Some(y), Some(z)] => {
                instance.position = [x.value_reference, y.value_reference, z.value_reference];
                Ok(instance)
            }
            _ => Err("the model has no output bar2.position".into()),
        }
    }

    /// Resets the instance, sets `values` and initializes it at t = 0.
    fn prepare(&self, values: &[(u32, Value)]) -> Result<(), String> {
        let lib = library();
        unsafe {
            let status = lib.fmi3Reset(self.handle);
            if status != 0 {
                return Err(format!("fmi3Reset returned status {status}"));
            }
            for &(vr, value) in values {
                let status = match value {
                    Value::Enum(v) => lib.fmi3SetInt64(self.handle, &vr, 1, &v, 1),
                    Value::Int(v) => lib.fmi3SetInt32(self.handle, &vr, 1, &v, 1),
                    Value::Real(v) => lib.fmi3SetFloat64(self.handle, &vr, 1, &v, 1),
                };
                if status != 0 {
                    return Err(format!("setting value reference {vr} failed"));
                }
            }
            if lib.fmi3EnterInitializationMode(self.handle, false, 0.0, 0.0, true, T_END) != 0
                || lib.fmi3ExitInitializationMode(self.handle) > 1
            {
                return Err("initialization failed".into());
            }
        }
        Ok(())
    }

    /// One doStep over the 8 s: its wall time [s], bar 2's centre at the end and the internal
    /// steps taken.
    fn run(&self) -> Result<(f64, End), String> {
        let lib = library();
        let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
        let start = Instant::now();
        let status = unsafe {
            lib.fmi3DoStep(self.handle, 0.0, T_END, false, &mut event, &mut terminate, &mut early, &mut last)
        };
        let seconds = start.elapsed().as_secs_f64();
        if status != 0 {
            return Err(format!("fmi3DoStep returned status {status}"));
        }
        let mut p = [0.0; 3];
        let status = unsafe { lib.fmi3GetFloat64(self.handle, self.position.as_ptr(), 3, p.as_mut_ptr(), 3) };
        if status != 0 {
            return Err("fmi3GetFloat64 failed".into());
        }
        let steps = match self.steps {
            Some(vr) => {
                let mut n = 0;
                if unsafe { lib.fmi3GetInt32(self.handle, &vr, 1, &mut n, 1) } != 0 {
                    return Err("fmi3GetInt32 failed".into());
                }
                Some(n as u64)
            }
            None => None,
        };
        Ok((seconds, End { position: p, steps }))
    }
}

/// Where an FMU run ends: bar 2's centre and the internal steps taken.
struct End {
    position: [f64; 3],
    steps: Option<u64>,
}

impl Drop for Instance {
    fn drop(&mut self) {
        unsafe { library().fmi3FreeInstance(self.handle) }
    }
}

/// The Newton tolerance of a run: three decades below the error the previous point reached
/// (fixed steps) or two below the integration tolerance (variable steps), within 1e-14..1e-8, so
/// that the iterations neither limit the accuracy nor cost more than it needs.
fn newton_tolerance(setting: Setting, previous_error: f64) -> f64 {
    let tol = match setting {
        Setting::Steps(_) => 1e-3 * previous_error,
        Setting::Tolerance(tol) => 1e-2 * tol,
    };
    tol.clamp(1e-14, 1e-8)
}

/// A catalog description in another formulation (its solver block's `formulation`, and `method`
/// as the formulation's default; the outputs reduced to those the bench reads), written as the packaged description the FMU library reads
/// from an instance's resources (`model.json`): the model and that directory.
fn in_formulation(json: &str, formulation: &str, method: &str) -> Result<(Model, PathBuf), String> {
    let mut description: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    description["solver"]["formulation"] = formulation.into();
    description["solver"]["method"] = method.into();
    // The outputs the bench reads (not every output exists in every formulation).
    description["interface"]["outputs"] =
        serde_json::json!([{ "body": "bar2", "quantities": ["position"] }, { "system": ["steps"] }]);
    let text = serde_json::to_string_pretty(&description).map_err(|e| e.to_string())?;
    let model = Model::from_json(&text)?;
    let dir = target_dir().join("work_precision").join(format!("{}-{formulation}", model.description.name));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join(mbfmu_model::RESOURCE_DESCRIPTION), text).map_err(|e| e.to_string())?;
    Ok((model, dir))
}

/// The ladders of one FMU model row.
fn fmu_rows(row: &FmuModel, reference: [f64; 2], options: &Options) -> Vec<Series> {
    let Some(entry) = catalog::find(row.model) else {
        println!("{}: not in the catalog, skipped", row.model);
        return Vec::new();
    };
    let mut model = Model::from_catalog(entry).expect("catalog models build");
    let offers = |model: &Model, formulation: &str| {
        model.interface.enumeration_items(SolverSetting::Formulation).iter().any(|(item, _)| *item == formulation)
    };
    // A formulation the model does not offer as a parameter: its description in that formulation.
    let mut resources = None;
    if let Some(formulation) = row.formulation.filter(|f| !offers(&model, f)) {
        match in_formulation(entry.json, formulation, row.methods[0]) {
            Ok((derived, dir)) => (model, resources) = (derived, Some(dir)),
            Err(why) => {
                println!("{} in the formulation {formulation}: {why}; skipped", row.model);
                return Vec::new();
            }
        }
    }
    let items = model.interface.enumeration_items(SolverSetting::Method);
    println!(
        "{} ({}): solver.method offers {}",
        row.model,
        row.engine,
        items.iter().map(|i| i.0).collect::<Vec<_>>().join(", ")
    );
    let vr = |name: &str| model.interface.by_name(name).map(|v| v.value_reference);
    let mut common = Vec::new();
    if let Some(formulation) = row.formulation {
        let Some(code) = model
            .interface
            .enumeration_items(SolverSetting::Formulation)
            .iter()
            .find(|(item, _)| *item == formulation)
            .map(|(_, code)| *code)
        else {
            println!("{}: solver.formulation does not offer {formulation}, skipped", row.model);
            return Vec::new();
        };
        common.push((vr("solver.formulation").expect("solver.formulation"), Value::Enum(code.into())));
    }
    if let Some(max_steps) = vr("solver.maxStepsPerCall") {
        common.push((max_steps, Value::Int(i32::MAX)));
    }
    let instance = match Instance::new(&model, row.model, resources.as_deref()) {
        Ok(instance) => instance,
        Err(why) => {
            println!("{}: {why}; skipped", row.model);
            return Vec::new();
        }
    };
    let mut series = Vec::new();
    for &name in row.methods {
        let Some(method) = model.interface.methods.iter().find(|m| m.item_name() == name).copied() else {
            println!("{}: solver.method does not offer {name}, skipped", row.model);
            continue;
        };
        // `auto` starts with DOP853 under error control.
        let variable_step = method.variable_step() || name == "auto";
        let settings: Vec<Setting> =
            if variable_step { tolerance_ladder(options.quick) } else { step_ladder().collect() };
        let label = format!("{} {}", row.engine, name);
        if !options.wants(&label) {
            continue;
        }
        let points = ladder(&label, settings, options, |setting, previous| {
            let mut values = common.clone();
            values.push((vr("solver.method").expect("solver.method"), Value::Enum(method.code().into())));
            let newton = options.newton.unwrap_or_else(|| newton_tolerance(setting, previous));
            values.push((vr("solver.tolerance").expect("solver.tolerance"), Value::Real(newton)));
            match setting {
                Setting::Steps(n) => {
                    values.push((vr("solver.stepSize").expect("stepSize"), Value::Real(T_END / n as f64)))
                }
                Setting::Tolerance(tol) => {
                    // No cap on the step: the error control chooses it.
                    values.push((vr("solver.stepSize").expect("stepSize"), Value::Real(T_END)));
                    for name in ["solver.absoluteTolerance", "solver.relativeTolerance"] {
                        values.push((vr(name).ok_or(format!("{name} is missing"))?, Value::Real(tol)));
                    }
                }
            }
            let (seconds, End { position: p, steps }) = best_time(|| {
                instance.prepare(&values)?;
                instance.run()
            })?;
            let error = (p[0] * p[0] + (p[1] - reference[0]).powi(2) + (p[2] - reference[1]).powi(2)).sqrt();
            Ok(Run { seconds, error, steps })
        });
        series.push(Series { engine: row.engine.to_string(), method: name.to_string(), product: true, points });
    }
    series
}

// ---------------------------------------------------------------------------------------------
// The peers: a Python environment of their own, two compiled programs.

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"))
}

fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/work_precision")
}

/// The packages of the peers' environment (Eigen's headers for Pinocchio's come separately).
const PEER_PACKAGES: &[&str] = &["mujoco==4.0.0", "pin==4.1.0", "scipy", "cmeel-eigen==3.4.1"];

/// The peers' environment: its Python and its site-packages directory.
struct Peers {
    python: PathBuf,
    site: PathBuf,
}

impl Peers {
    fn mujoco_include(&self) -> PathBuf {
        self.site.join("mujoco/include")
    }
    fn cmeel(&self) -> PathBuf {
        self.site.join("cmeel.prefix")
    }
    fn complete(&self) -> bool {
        self.mujoco_include().join("mujoco/mujoco.h").is_file()
            && self.mujoco_library().is_some()
            && self.cmeel().join("include/pinocchio/algorithm/aba.hpp").is_file()
            && self.cmeel().join("include/eigen3/Eigen/Core").is_file()
            && self.site.join("scipy").is_dir()
    }
    fn mujoco_library(&self) -> Option<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(self.site.join("mujoco"))
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("libmujoco.so")))
            .collect();
        found.sort();
        found.pop()
    }
}

fn run_quiet(command: &mut Command) -> Result<String, String> {
    let out = command.output().map_err(|e| format!("{command:?}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(8).collect();
        return Err(format!("{command:?} failed:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n")));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The peers' environment, created and installed on first use.
fn peers_environment() -> Result<Peers, String> {
    let venv = target_dir().join("peers-venv");
    let python = venv.join("bin/python");
    if !python.is_file() {
        println!("creating the peers' Python environment in {} ...", venv.display());
        run_quiet(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    }
    let site =
        run_quiet(Command::new(&python).args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]))?;
    let peers = Peers { python, site: PathBuf::from(site.trim()) };
    if !peers.complete() {
        println!("installing {} into it (a few minutes the first time) ...", PEER_PACKAGES.join(" "));
        run_quiet(Command::new(venv.join("bin/pip")).args(["install", "--quiet"]).args(PEER_PACKAGES))?;
        if !peers.complete() {
            return Err("the packages installed, but their headers or libraries are not where expected".into());
        }
    }
    Ok(peers)
}

/// Compiles `source` into target/peers/`name` unless the program is newer than its source.
fn compile(name: &str, compiler: &str, source: &Path, args: &[String]) -> Result<PathBuf, String> {
    let dir = target_dir().join("peers");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let program = dir.join(name);
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if modified(&program).is_some_and(|p| modified(source).is_some_and(|s| p > s)) {
        return Ok(program);
    }
    println!("compiling {} with {compiler} ...", source.display());
    run_quiet(Command::new(compiler).arg("-o").arg(&program).arg(source).args(args))?;
    Ok(program)
}

fn mujoco_program(peers: &Peers) -> Result<PathBuf, String> {
    let lib = peers.mujoco_library().ok_or("libmujoco.so is missing")?;
    let args = vec![
        "-O3".to_string(),
        format!("-I{}", peers.mujoco_include().display()),
        lib.display().to_string(),
        format!("-Wl,-rpath,{}", lib.parent().unwrap().display()),
        "-lm".to_string(),
    ];
    compile("mujoco_loop", "gcc", &sources().join("mujoco_loop.c"), &args)
}

fn pinocchio_program(peers: &Peers) -> Result<PathBuf, String> {
    let prefix = peers.cmeel();
    let mut args: Vec<String> = ["-O3", "-DNDEBUG", "-std=c++17"].map(String::from).to_vec();
    args.push(format!("-I{}", prefix.join("include").display()));
    args.push(format!("-I{}", prefix.join("include/eigen3").display()));
    // The compile definitions of Pinocchio's CMake target pinocchio_headers: header-only use.
    for d in [
        "BOOST_MPL_LIMIT_LIST_SIZE=30",
        "BOOST_MPL_LIMIT_VECTOR_SIZE=30",
        "BOOST_MPL_CFG_NO_PREPROCESSED_HEADERS",
        "BOOST_FUSION_INVOKE_MAX_ARITY=12",
    ] {
        args.push(format!("-D{d}"));
    }
    compile("pinocchio_rk4", "g++", &sources().join("pinocchio_rk4.cpp"), &args)
}

/// Parses a peer program's "seconds_per_run y z" (C's "nan" and "-nan" of an unstable run as NaN).
fn peer_output(text: &str) -> Result<(f64, [f64; 2]), String> {
    let number = |s: &str| match s.parse() {
        Ok(v) => Ok(v),
        Err(_) if s.to_ascii_lowercase().contains("nan") || s.to_ascii_lowercase().contains("inf") => Ok(f64::NAN),
        Err(_) => Err(format!("bad output {text:?}")),
    };
    let v: Vec<f64> = text.split_whitespace().map(number).collect::<Result<_, _>>()?;
    match v[..] {
        [seconds, y, z] => Ok((seconds, [y, z])),
        _ => Err(format!("bad output {text:?}")),
    }
}

fn peer_rows(peers: &Peers, reference: [f64; 2], options: &Options) -> Vec<Series> {
    let mut series = Vec::new();
    match mujoco_program(peers) {
        Ok(program) => {
            let xml = sources().join("double_pendulum.xml");
            for (integrator, method) in [("rk4", "RK4"), ("euler", "Euler")] {
                let label = format!("MuJoCo {method}");
                if !options.wants(&label) {
                    continue;
                }
                let points = ladder(&label, step_ladder(), options, |setting, _| {
                    let Setting::Steps(n) = setting else { unreachable!() };
                    let out = run_quiet(
                        Command::new(&program)
                            .current_dir(target_dir().join("peers"))
                            .arg(&xml)
                            .arg(integrator)
                            .arg(n.to_string()),
                    )?;
                    let (seconds, p) = peer_output(&out)?;
                    Ok(Run { seconds, error: distance(p, reference), steps: Some(n) })
                });
                series.push(Series { engine: "MuJoCo".into(), method: method.into(), product: false, points });
            }
        }
        Err(why) => println!("MuJoCo skipped: {why}"),
    }
    match pinocchio_program(peers) {
        Ok(_) if !options.wants("Pinocchio RK4") => {}
        Ok(program) => {
            let points = ladder("Pinocchio RK4", step_ladder(), options, |setting, _| {
                let Setting::Steps(n) = setting else { unreachable!() };
                let out = run_quiet(Command::new(&program).current_dir(target_dir().join("peers")).arg(n.to_string()))?;
                let (seconds, p) = peer_output(&out)?;
                Ok(Run { seconds, error: distance(p, reference), steps: Some(n) })
            });
            series.push(Series { engine: "Pinocchio".into(), method: "RK4".into(), product: false, points });
        }
        Err(why) => println!("Pinocchio skipped: {why}"),
    }
    series
}

// ---------------------------------------------------------------------------------------------
// Tables, CSV and plot.

/// The cheapest cost [s/s] at which `points` reach `error`: a point at least that accurate, or
/// the log-log interpolation between consecutive points of the ladder that cross it.
fn cost_at(points: &[Point], error: f64) -> Option<f64> {
    let mut best = f64::INFINITY;
    for (i, p) in points.iter().enumerate() {
        if p.error <= error {
            best = best.min(p.cost);
        }
        if let Some(q) = points.get(i + 1) {
            if p.error > error && q.error <= error {
                let s = (error.ln() - p.error.ln()) / (q.error.ln() - p.error.ln());
                best = best.min((p.cost.ln() + s * (q.cost.ln() - p.cost.ln())).exp());
            }
        }
    }
    best.is_finite().then_some(best)
}

fn ms(cost: Option<f64>) -> String {
    cost.map_or("-".to_string(), |c| format!("{:.3}", c * 1e3))
}

fn tables(series: &[Series]) {
    println!();
    println!(
        "Cost [ms per simulated second] at which each row first reaches the error [m] of bar 2's centre at t = 8 s"
    );
    print!("{:<44}", "row");
    for e in TARGET_ERRORS {
        print!(" {:>9}", format!("{e:.0e}"));
    }
    println!();
    for s in series {
        print!("{:<44}", s.label());
        for e in TARGET_ERRORS {
            print!(" {:>9}", ms(cost_at(&s.points, e)));
        }
        println!();
    }

    let find = |engine: &str, method: &str| series.iter().find(|s| s.engine == engine && s.method == method);
    let (pinocchio, mujoco) = (find("Pinocchio", "RK4"), find("MuJoCo", "RK4"));
    println!();
    println!(
        "Goal: the FMU's best within 2x of Pinocchio's RK4 (ratio <= 2) and ahead of MuJoCo's RK4 (ratio < 1) at every error 1e-2 .. 1e-9"
    );
    println!(
        "{:>7} {:>10} {:<36} {:>10} {:>10} {:>11} {:>11}  goal",
        "error", "FMU best", "(row)", "MuJoCo", "Pinocchio", "/Pinocchio", "/MuJoCo"
    );
    let mut all_met = true;
    for e in TARGET_ERRORS {
        let best = series
            .iter()
            .filter(|s| s.product)
            .filter_map(|s| cost_at(&s.points, e).map(|c| (c, s.label())))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let peer = |s: Option<&Series>| s.and_then(|s| cost_at(&s.points, e));
        let (p, m) = (peer(pinocchio), peer(mujoco));
        let ratio = |peer: Option<f64>| match (best.as_ref(), peer) {
            (Some((b, _)), Some(c)) => Some(b / c),
            _ => None,
        };
        let (rp, rm) = (ratio(p), ratio(m));
        // A peer that never reaches the error cannot be behind; a product that never does is.
        let met = best.is_some() && rp.is_none_or(|r| r <= 2.0) && rm.is_none_or(|r| r < 1.0);
        let checked = pinocchio.is_some() || mujoco.is_some();
        all_met &= met;
        let f = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.2}"));
        println!(
            "{:>7} {:>10} {:<36} {:>10} {:>10} {:>11} {:>11}  {}",
            format!("{e:.0e}"),
            ms(best.as_ref().map(|b| b.0)),
            best.as_ref().map_or("-".to_string(), |b| format!("({})", b.1)),
            ms(m),
            ms(p),
            f(rp),
            f(rm),
            if !checked {
                "no peers"
            } else if met {
                "met"
            } else {
                "NOT met"
            }
        );
    }
    if pinocchio.is_some() || mujoco.is_some() {
        println!("goal {}", if all_met { "met at every error" } else { "not met at every error" });
    }
}

fn write_csv(series: &[Series], path: &Path) -> std::io::Result<()> {
    let mut text =
        String::from("engine,method,steps,tolerance,step_size_s,internal_steps,cost_s_per_simulated_s,error_m\n");
    for s in series {
        for p in &s.points {
            let (steps, tol, h) = match p.setting {
                Setting::Steps(n) => (n.to_string(), String::new(), format!("{:e}", T_END / n as f64)),
                Setting::Tolerance(t) => (String::new(), format!("{t:e}"), String::new()),
            };
            let internal = p.steps.map_or(String::new(), |n| n.to_string());
            writeln!(text, "{},{},{steps},{tol},{h},{internal},{:e},{:e}", s.engine, s.method, p.cost, p.error)
                .unwrap();
        }
    }
    std::fs::write(path, text)
}

/// The log-log plot: error on the horizontal axis (more accurate to the right), cost per
/// simulated second on the vertical, one line per row; the peers dashed.
fn write_svg(series: &[Series], path: &Path, note: &str) -> std::io::Result<()> {
    // A family of colours per formulation (blues: index-3, oranges and reds: state space, greens:
    // semirecursive, others for rows added later); the peers in black and greys, dashed.
    const FAMILIES: [(&str, &[&str]); 4] = [
        ("index-3", &["#08306b", "#2171b5", "#6baed6", "#4a1486", "#807dba", "#636363", "#969696", "#bdbdbd"]),
        ("state-space", &["#7f2704", "#d94801", "#fd8d3c", "#a50f15", "#ef3b2c", "#fc9272"]),
        ("semirecursive", &["#00441b", "#238b45", "#74c476", "#a1d99b"]),
        ("", &["#e377c2", "#bcbd22", "#17becf", "#8c564b"]),
    ];
    let mut used = [0usize; FAMILIES.len()];
    let shown: Vec<&Series> = series.iter().filter(|s| s.points.iter().any(|p| p.error < 1.0)).collect();
    let points = || shown.iter().flat_map(|s| s.points.iter()).filter(|p| p.error < 1.0);
    let (e_min, c_min, c_max) = points()
        .fold((1.0f64, f64::INFINITY, 0.0f64), |(e, lo, hi), p| (e.min(p.error), lo.min(p.cost), hi.max(p.cost)));
    let ex = (e_min.max(1e-16).log10().floor() as i32, 0);
    let cy = (c_min.log10().floor() as i32, c_max.log10().ceil() as i32);
    let (w, h, left, right, top, bottom) = (900.0, 520.0, 70.0, 300.0, 30.0, 60.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let x = |e: f64| left + pw * (ex.1 as f64 - e.log10()) / (ex.1 - ex.0) as f64;
    let y = |c: f64| top + ph * (cy.1 as f64 - c.log10()) / (cy.1 - cy.0) as f64;
    let mut svg = String::new();
    writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    )
    .unwrap();
    writeln!(svg, r#"<rect width="{w}" height="{h}" fill="white"/>"#).unwrap();
    for d in ex.0..=ex.1 {
        let xv = x(10f64.powi(d));
        writeln!(svg, r##"<line x1="{xv:.1}" y1="{top}" x2="{xv:.1}" y2="{:.1}" stroke="#ddd"/>"##, top + ph).unwrap();
        writeln!(svg, r#"<text x="{xv:.1}" y="{:.1}" text-anchor="middle">1e{d}</text>"#, top + ph + 15.0).unwrap();
    }
    for d in cy.0..=cy.1 {
        let yv = y(10f64.powi(d));
        writeln!(svg, r##"<line x1="{left}" y1="{yv:.1}" x2="{:.1}" y2="{yv:.1}" stroke="#ddd"/>"##, left + pw)
            .unwrap();
        writeln!(svg, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">1e{d}</text>"#, left - 5.0, yv + 4.0).unwrap();
    }
    writeln!(svg, r#"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#).unwrap();
    writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">error of bar 2's centre at t = 8 s [m]</text>"#,
        left + pw / 2.0,
        h - 25.0
    )
    .unwrap();
    writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10">{note}</text>"#,
        left + pw / 2.0,
        h - 8.0
    )
    .unwrap();
    writeln!(
        svg,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">wall time per simulated second [s]</text>"#,
        top + ph / 2.0
    )
    .unwrap();
    writeln!(
        svg,
        r#"<text x="{:.1}" y="18" text-anchor="middle" font-size="13">Double pendulum [Fang2023]: work against precision</text>"#,
        left + pw / 2.0
    )
    .unwrap();
    for (i, s) in shown.iter().enumerate() {
        let colour = if s.engine == "Pinocchio" {
            "black"
        } else if s.engine == "MuJoCo" {
            if s.method == "RK4" {
                "#444"
            } else {
                "#999"
            }
        } else {
            let family = FAMILIES.iter().position(|(key, _)| s.engine.contains(key)).unwrap();
            let colours = FAMILIES[family].1;
            used[family] += 1;
            colours[(used[family] - 1) % colours.len()]
        };
        let dash = if s.product { "" } else { r#" stroke-dasharray="6 3""# };
        let width = if !s.product {
            2.0
        } else if s.engine.contains("index-3") {
            1.0
        } else {
            1.6
        };
        let coords: Vec<String> = s
            .points
            .iter()
            .filter(|p| p.error < 1.0)
            .map(|p| format!("{:.1},{:.1}", x(p.error.max(10f64.powi(ex.0))), y(p.cost)))
            .collect();
        writeln!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="{width}"{dash}/>"#,
            coords.join(" ")
        )
        .unwrap();
        for c in &coords {
            let (cx, cy) = c.split_once(',').unwrap();
            writeln!(svg, r#"<circle cx="{cx}" cy="{cy}" r="2" fill="{colour}"/>"#).unwrap();
        }
        let ly = top + 10.0 + 15.0 * i as f64;
        let lx = left + pw + 12.0;
        writeln!(
            svg,
            r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="{width}"{dash}/>"#,
            lx + 24.0
        )
        .unwrap();
        writeln!(svg, r#"<text x="{:.1}" y="{:.1}">{}</text>"#, lx + 30.0, ly + 4.0, s.label()).unwrap();
    }
    svg.push_str("</svg>\n");
    std::fs::write(path, svg)
}

fn main() {
    // Coarse steps fail on purpose: the FMU's messages only where asked for.
    fmi3_host::set_quiet(std::env::var_os("MBFMU_BENCH_LOG").is_none());
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let options = Options {
        quick: has("--quick"),
        peers: !has("--no-peers"),
        budget: if has("--quick") { 0.1 } else { 1.0 },
        newton: value("--newton").map(|t| t.parse().expect("--newton takes a number")),
        only: value("--row"),
    };

    // The reference, checked against half its steps.
    let start = Instant::now();
    let reference = reference_rk4(320_000);
    let coarse = reference_rk4(160_000);
    println!(
        "reference: bar 2's centre at t = 8 s: y = {:.15} m, z = {:.15} m (RK4, 320 000 steps, {:.0} ms); differs from 160 000 steps by {:.1e} m",
        reference[0],
        reference[1],
        start.elapsed().as_secs_f64() * 1e3,
        distance(reference, coarse)
    );

    let peers = if options.peers {
        match peers_environment() {
            Ok(peers) => Some(peers),
            Err(why) => {
                println!("the peers are skipped: their environment could not be set up (no network?):\n{why}");
                None
            }
        }
    } else {
        println!("the peers are skipped (--no-peers)");
        None
    };
    if let Some(peers) = &peers {
        match run_quiet(Command::new(&peers.python).arg(sources().join("reference.py"))) {
            Ok(out) => match peer_output(&format!("0 {out}")) {
                Ok((_, p)) => println!(
                    "SciPy's DOP853 at rtol 2.5e-14 differs from the reference by {:.1e} m",
                    distance(p, reference)
                ),
                Err(why) => println!("SciPy's cross-check: {why}"),
            },
            Err(why) => println!("SciPy's cross-check failed: {why}"),
        }
    }

    println!();
    println!("points (cost: wall time of the stepping loop per simulated second, best of several runs):");
    let mut series = Vec::new();
    for row in FMU_MODELS {
        series.extend(fmu_rows(row, reference, &options));
    }
    if let Some(peers) = &peers {
        series.extend(peer_rows(peers, reference, &options));
    }

    tables(&series);

    let csv = target_dir().join("work_precision.csv");
    match write_csv(&series, &csv) {
        Ok(()) => println!("\npoints written to {}", csv.display()),
        Err(e) => println!("\n{}: {e}", csv.display()),
    }
    // The documentation's plot only from a full run with the peers.
    let svg = if options.quick || peers.is_none() {
        target_dir().join("work_precision.svg")
    } else {
        root().join("docs/images/work_precision.svg")
    };
    let note = "one core of a shared 2-vCPU machine; indicative";
    match write_svg(&series, &svg, note) {
        Ok(()) => println!("plot written to {}", svg.display()),
        Err(e) => println!("{}: {e}", svg.display()),
    }
}
