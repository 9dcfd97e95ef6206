//! The Python package python/mbfmu_sweep on a local Dask cluster of two worker processes, with
//! FMPy driving the FMUs, against `mbfmu sweep` in this process: the tables (results and time
//! series, Parquet and CSV) must be equal bit for bit. Needs python3 on PATH with fmpy, dask,
//! distributed and pyarrow (.ci/run installs them into .venv); the package is taken from this
//! checkout (PYTHONPATH), not from an installed copy.

use crate::sweep_common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use sweep_common::*;

/// A local cluster starts in a few seconds; a hung worker must not hang the suite.
const TIME_LIMIT: Duration = Duration::from_secs(300);

fn python_sweep(args: &[&str]) {
    let package = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python");
    let mut child = match Command::new("python3")
        .args(["-m", "mbfmu_sweep"])
        .args(args)
        .args(["--local-workers", "2", "-q"])
        .env("PYTHONPATH", package)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => panic!("cannot run python3 ({e}): install Python 3 with fmpy, dask, distributed and pyarrow in a virtual environment (see .ci/run) and put its bin directory first on PATH"),
    };
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > TIME_LIMIT {
            child.kill().unwrap();
            panic!("python -m mbfmu_sweep {args:?} took more than {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    if stderr.contains("ModuleNotFoundError") {
        panic!("a Python package is missing (.ci/run installs fmpy, dask, distributed and pyarrow):\n{stderr}");
    }
    assert!(out.status.success(), "python -m mbfmu_sweep {args:?} failed:\n{}{stderr}", text(&out.stdout));
}

/// Runs the same sweep both ways and compares every table both write.
fn compare(dir: &Path, name: &str, fmu: &Path, sweep: &[&str]) {
    let paths = |side: &str| {
        ["results.parquet", "results.csv", "series.parquet"].map(|f| dir.join(format!("{name}_{side}_{f}")))
    };
    let (ours, theirs) = (paths("rust"), paths("dask"));
    let with_outputs = |p: &[std::path::PathBuf; 3]| -> Vec<String> {
        let mut args: Vec<String> = vec![s(fmu).to_string()];
        args.extend(sweep.iter().map(|a| a.to_string()));
        args.extend(["-o", s(&p[0]), "-o", s(&p[1]), "--series", s(&p[2])].map(String::from));
        args
    };
    let rust_args = with_outputs(&ours);
    let mut args: Vec<&str> = vec!["sweep", "-q"];
    args.extend(rust_args.iter().map(String::as_str));
    ok(&args);
    let dask_args = with_outputs(&theirs);
    python_sweep(&dask_args.iter().map(String::as_str).collect::<Vec<_>>());

    let (a, b) = (read_parquet(&ours[0]), read_parquet(&theirs[0]));
    assert!(a.rows.len() > 1, "{name}: a sweep of several runs");
    assert_same_table(&a, &b, &format!("{name}: results"));
    assert_same_table(&read_parquet(&ours[2]), &read_parquet(&theirs[2]), &format!("{name}: series"));
    let (csv_a, csv_b) = (std::fs::read_to_string(&ours[1]).unwrap(), std::fs::read_to_string(&theirs[1]).unwrap());
    assert_eq!(csv_a, csv_b, "{name}: the CSV tables differ");
}

#[test]
#[ignore = "external: python3 with dask, distributed, pyarrow, fmpy and the mbfmu_sweep package of python/ (scripts/test-all.sh installs them)"]
fn dask_sweep_equals_the_in_process_sweep_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    // Parameter sets from a file, with a run that fails (Discard) among them, on both versions.
    let params = dir.path().join("p.csv");
    std::fs::write(
        &params,
        "solver.method,solver.maxStepsPerCall,bar2.mass\nbdf1,100000,39\nss2,5,40\nhalfImplicit,100000,41.5\nlms2,100000,20\n",
    )
    .unwrap();
    for version in [2, 3] {
        let fmu = fmu(version, "DoublePendulum");
        compare(dir.path(), &format!("file{version}"), &fmu, &["--parameters", s(&params), "--stop-time", "1"]);
    }
    // Seeded uniform and normal samples of the hydraulic machine, with a fixed --set.
    compare(
        dir.path(),
        "samples",
        &fmu(3, "HydraulicFourBar"),
        &[
            "--samples",
            "16",
            "--uniform",
            "oil_bulk_modulus=1e9:2e9",
            "--normal",
            "valve_flow_constant=2e-8:3e-9",
            "--seed",
            "3",
            "--set",
            "solver.method=trapezoidal",
            "--stop-time",
            "1.5",
            "--outputs",
            "V1.pressure,V2.pressure,cylinder.length",
        ],
    );
    // A grid on an FMI 2.0 FMU.
    compare(
        dir.path(),
        "grid",
        &fmu(2, "HydraulicFourBar"),
        &["--grid", "oil_bulk_modulus=1e9:2e9:3", "--grid", "valve_flow_constant=1e-8:3e-8:3", "--stop-time", "1"],
    );
}
