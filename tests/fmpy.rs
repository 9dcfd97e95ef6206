//! FMPy, an independent importer, on every packaged FMU (both versions): validation,
//! simulation of the DefaultExperiment, FMU state round trips, interleaved instances, and
//! Model Exchange with FMPy's CVode against co-simulation where the FMU offers it.
//! The checks are in tests/fmpy_checks.py; CI installs fmpy with `python3 -m pip install fmpy`.

mod common_fmu;

use std::process::Command;

#[test]
fn fmpy_validates_and_runs_every_fmu() {
    let dir = common_fmu::packaged_catalog();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fmpy_checks.py");
    let output = match Command::new("python3").arg(script).arg(dir.path()).output() {
        Ok(output) => output,
        Err(e) => panic!("cannot run python3 ({e}): install Python 3 and fmpy (python3 -m pip install fmpy)"),
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
    let model_exchange = mbfmu::models::CATALOG
        .iter()
        .filter(|e| mbfmu::description::parse(e.json).unwrap().solver.formulation.model_exchange())
        .count();
    assert_eq!(passed, 2 * (4 * mbfmu::models::CATALOG.len() + model_exchange), "{stdout}");
}
