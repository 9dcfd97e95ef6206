//! libcosim (the Open Simulation Platform's co-simulation library, through libcosimpy), an
//! independent importer, on every packaged FMI 2.0 FMU (libcosim reads no FMI 3.0): the
//! default experiment run by libcosim equals FMPy stepping the same FMU at libcosim's
//! communication points bit for bit, and FMPy's own simulate_fmu to round-off; and the split
//! hydraulic four-bar coupled by libcosim converges to the monolithic FMU. The checks are in
//! tests/libcosim_checks.py; .ci/run installs fmpy and libcosimpy into .venv.

use crate::common_fmu;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The catalog packaged once for both tests.
fn packaged() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| common_fmu::packaged_catalog_for_static("libcosim-catalog"))
}

fn checks(args: &[&str]) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/libcosim_checks.py");
    let output = match Command::new("python3").arg(script).args(args).output() {
        Ok(output) => output,
        Err(e) => panic!("cannot run python3 ({e}): install Python 3 with fmpy and libcosimpy in a virtual environment (.ci/run does) and put its bin directory first on PATH"),
    };
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    match output.status.code() {
        Some(0) => stdout,
        Some(3) => panic!("a Python package is missing: {stderr}"),
        code => panic!("libcosim checks failed (exit status {code:?}):\n{stdout}\n{stderr}"),
    }
}

/// `key=value` of one output line.
fn field(line: &str, key: &str) -> f64 {
    let prefix = format!("{key}=");
    let value =
        line.split_whitespace().find_map(|w| w.strip_prefix(&prefix)).unwrap_or_else(|| panic!("{key} in {line}"));
    value.parse().unwrap_or_else(|_| panic!("{key} in {line}"))
}

#[test]
#[ignore = "external: python3 with libcosimpy 0.0.6 and fmpy (scripts/test-all.sh installs them)"]
fn libcosim_runs_every_fmi2_fmu_like_fmpy() {
    let stdout = checks(&["catalog", packaged().to_str().unwrap()]);
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("ok ")).collect();
    assert_eq!(lines.len(), mbfmu_model::catalog::CATALOG.len(), "every FMI 2.0 FMU passed:\n{stdout}");
    for line in lines {
        // The script has already required libcosim == FMPy at libcosim's points, bit for bit.
        // simulate_fmu steps to start + k h, which differs from libcosim's nanosecond points
        // by ulps; the trajectories then differ by round-off that the dynamics amplify (the
        // chaotic double pendulum and chains most: measured up to 2.2e-8 of an output's range).
        let rel = field(line, "simulate_fmu_rel");
        assert!(rel < 1e-6, "{line}");
    }
}

#[test]
#[ignore = "external: python3 with libcosimpy 0.0.6 and fmpy (scripts/test-all.sh installs them)"]
fn the_split_four_bar_coupled_by_libcosim_converges_to_the_monolithic_fmu() {
    let steps_ns = [100_000u64, 50_000];
    let args: Vec<String> = ["split".to_string(), packaged().to_str().unwrap().to_string()]
        .into_iter()
        .chain(steps_ns.iter().map(u64::to_string))
        .collect();
    let stdout = checks(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let errors: Vec<f64> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("split "))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(errors.len(), steps_ns.len(), "{stdout}");
    println!("| libcosim communication step [s] | max |angle error| against HydraulicFourBar [rad] |");
    for (h, e) in steps_ns.iter().zip(&errors) {
        println!("| {:e} | {e:.3e} |", *h as f64 * 1e-9);
    }
    // libcosim's fixed-step algorithm is Jacobi with the inputs held: first order in the step
    // (tests/hydraulics_cosimulation.rs measures the same with its own master).
    let order = (errors[0] / errors[1]).log2();
    assert!(order > 0.8, "order {order}: {errors:?}");
    assert!(errors[0] < 2.5e-3, "{errors:?}");
}
