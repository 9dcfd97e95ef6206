//! FMPy, an independent importer, on every packaged FMU (both versions): validation,
//! simulation of the DefaultExperiment, FMU state round trips, interleaved instances, a
//! doStep beyond solver.maxStepsPerCall, and
//! Model Exchange with FMPy's CVode against co-simulation where the FMU offers it
//! (tests/fmpy_checks.py); output derivatives, input interpolation and intermediate updates
//! (tests/fmpy_derivatives.py). CI installs fmpy into a virtual environment (.ci/run).

use crate::common_fmu;

use std::process::Command;

/// Runs tests/fmpy_checks.py on `<dir>/fmi2/*.fmu` and `<dir>/fmi3/*.fmu` of `models` models,
/// `model_exchange` of which offer Model Exchange.
fn fmpy_checks(dir: &std::path::Path, models: usize, model_exchange: usize) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fmpy_checks.py");
    let output = match Command::new("python3").arg(script).arg(dir).output() {
        Ok(output) => output,
        Err(e) => panic!("cannot run python3 ({e}): install Python 3 and fmpy in a virtual environment: python3 -m venv .venv && .venv/bin/pip install fmpy, then put .venv/bin first on PATH"),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    match output.status.code() {
        Some(0) => {}
        Some(3) => panic!("fmpy is missing: {stderr}"),
        code => panic!("fmpy checks failed (exit status {code:?}):\n{stdout}\n{stderr}"),
    }
    // Every FMU of both versions went through every check (Model Exchange where offered).
    let passed = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(passed, 2 * (5 * models + model_exchange), "{stdout}");
}

#[test]
#[ignore = "external: python3 with fmpy (scripts/test-all.sh installs it)"]
fn fmpy_validates_and_runs_every_fmu() {
    let dir = common_fmu::packaged_catalog();
    let model_exchange = mbfmu_model::catalog::CATALOG
        .iter()
        .filter(|e| mbfmu_model::format::parse(e.json).unwrap().solver.formulation.model_exchange())
        .count();
    fmpy_checks(dir.path(), mbfmu_model::catalog::CATALOG.len(), model_exchange);
}

/// A description outside the catalog, packaged with its resources/model.json (index 3: no
/// Model Exchange).
#[test]
#[ignore = "external: python3 with fmpy (scripts/test-all.sh installs it)"]
fn fmpy_validates_and_runs_a_user_model() {
    let dir = tempfile::tempdir().unwrap();
    let library = mbfmu_package::locate_library().expect("the cdylib is built next to the test executable");
    let content = mbfmu_package::FmuContent::from_description(include_str!("../docs/examples/pendulum.json")).unwrap();
    mbfmu_package::package_model(&content, &library, dir.path()).unwrap();
    fmpy_checks(dir.path(), 1, 0);
}

/// Output derivatives against central differences (FMI 2 and 3, one model per formulation),
/// FMI 2 input interpolation with setRealInputDerivatives and FMI 3 intermediate updates with
/// a callback, through FMPy's low-level FMU2Slave / FMU3Slave (tests/fmpy_derivatives.py).
#[test]
#[ignore = "external: python3 with fmpy (scripts/test-all.sh installs it)"]
fn fmpy_output_derivatives_input_interpolation_and_intermediate_updates() {
    let dir = common_fmu::packaged_catalog();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fmpy_derivatives.py");
    let output = Command::new("python3").arg(script).arg(dir.path()).output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok ")).count(), 8, "{stdout}");
}
