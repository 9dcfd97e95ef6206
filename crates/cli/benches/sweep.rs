//! Throughput of `mbfmu sweep`: runs per second for 1000 short runs (0.2 s of simulated time,
//! 20 communication steps) of DoublePendulum and HydraulicFourBar with 1 and 2 threads, the
//! scaling efficiency (runs/s with 2 threads over twice the runs/s with 1), and the overhead
//! per run of the distributed path (python/mbfmu_sweep on a local Dask cluster of 2 worker
//! processes with FMPy) over the in-process one.
//!
//! `cargo bench -p mbfmu-cli --bench sweep`; the distributed part needs python3 on PATH with
//! fmpy, dask, distributed and pyarrow (as .ci/run installs them into .venv). Each figure is the
//! best of REPEATS runs: the machine is shared, and the best run is the least disturbed.

use std::path::Path;
use std::process::Command;

const RUNS: &str = "1000";
const REPEATS: usize = 5;
const MODELS: [(&str, &str); 2] =
    [("DoublePendulum", "bar2.mass=30:50"), ("HydraulicFourBar", "oil_bulk_modulus=1e9:2e9")];

/// The sweep's options after the FMU: 1000 uniform samples of one parameter, 0.2 s each.
fn sweep_options<'a>(uniform: &'a str, table: &'a str) -> Vec<&'a str> {
    vec!["--samples", RUNS, "--uniform", uniform, "--stop-time", "0.2", "-o", table]
}

/// "... (123.4 runs/s ..." in a sweep's summary line.
fn runs_per_second(stdout: &str) -> f64 {
    let before = stdout.split(" runs/s").next().expect("a summary line");
    let number = before.rsplit(['(', ' ']).next().expect("a rate");
    number.parse().unwrap_or_else(|_| panic!("no rate in {stdout}"))
}

fn run(command: &mut Command) -> String {
    let out = command.output().unwrap_or_else(|e| panic!("{command:?}: {e}"));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{command:?} failed:\n{stdout}{stderr}");
    stdout.into_owned()
}

fn best_rate(mut once: impl FnMut() -> f64) -> f64 {
    (0..REPEATS).map(|_| once()).fold(0.0, f64::max)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("bench.parquet");
    let table = table.to_str().unwrap();
    let python = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python");
    println!("load average (1, 5, 15 min) at the start: {}", load_average());
    println!("sweep throughput: {RUNS} runs of 0.2 s (20 communication steps), FMI 3.0, best of {REPEATS}");
    println!(
        "{:<18} {:>12} {:>12} {:>11} {:>13} {:>16}",
        "model", "1 thread", "2 threads", "efficiency", "Dask 2 proc.", "Dask overhead"
    );
    for (model, uniform) in MODELS {
        // The built-in model's FMU is packaged into a private cache on first use.
        let mbfmu = |jobs: &str| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_mbfmu"));
            c.arg("sweep").arg(model).args(sweep_options(uniform, table)).args(["--jobs", jobs]);
            c.current_dir(dir.path()).env("XDG_CACHE_HOME", dir.path());
            c
        };
        let one = best_rate(|| runs_per_second(&run(&mut mbfmu("1"))));
        let two = best_rate(|| runs_per_second(&run(&mut mbfmu("2"))));
        // Packaged into the private cache's folder of this build's library.
        let fmu = std::fs::read_dir(dir.path().join("mbfmu/built-in"))
            .expect("the sweep packaged the model")
            .map(|e| e.expect("a cache entry").path().join(format!("fmi3/{model}.fmu")))
            .find(|p| p.is_file())
            .expect("the packaged FMU");
        let dask = distributed_rate(python, &fmu, uniform, table);
        let (dask_text, overhead_text) = match dask {
            // Worker time per run on 2 processes, less the in-process time per run on 1 thread.
            Some(rate) => (format!("{rate:.0} runs/s"), format!("{:.2} ms/run", 1e3 * (2.0 / rate - 1.0 / one))),
            None => ("skipped".to_string(), "-".to_string()),
        };
        println!(
            "{model:<18} {:>7.0} r/s {:>7.0} r/s {:>10.0}% {dask_text:>13} {overhead_text:>16}",
            one,
            two,
            100.0 * two / (2.0 * one)
        );
    }
    println!("load average (1, 5, 15 min) at the end: {}", load_average());
    println!("efficiency: runs/s with 2 threads / (2 x runs/s with 1 thread); ideal 100% (needs 2 idle cores)");
    println!("Dask overhead: 2 workers' time per run minus 1 thread's time per run (FMPy calls from Python, tasks)");
}

/// The machine's load: on a shared machine the thread-scaling figures mean little when it
/// exceeds the idle cores.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().take(3).collect::<Vec<_>>().join(", ")
}

/// Runs/s of the same sweep through python/mbfmu_sweep on 2 local worker processes (cluster
/// start excluded), or None when python3 cannot run it.
fn distributed_rate(python: &str, fmu: &Path, uniform: &str, table: &str) -> Option<f64> {
    let probe = Command::new("python3").args(["-c", "import fmpy, dask.distributed, pyarrow"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("note: the distributed path is skipped: python3 with fmpy, dask, distributed and pyarrow is needed");
        return None;
    }
    Some(best_rate(|| {
        let mut c = Command::new("python3");
        c.args(["-m", "mbfmu_sweep", fmu.to_str().unwrap()]).args(sweep_options(uniform, table));
        c.args(["--local-workers", "2"]).env("PYTHONPATH", python);
        runs_per_second(&run(&mut c))
    }))
}
