//! `mbfmu sweep` end to end: its runs against `mbfmu simulate` runs of the same parameters,
//! the Parquet and CSV tables against each other, independence from the thread count,
//! failed runs, bad input (refused before any run), and Ctrl-C (the finished runs are kept).

use crate::sweep_common;

use parquet::record::Field;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use sweep_common::*;

/// A simulate CSV: header and rows of numbers.
fn read_simulate_csv(path: &std::path::Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let content = std::fs::read_to_string(path).unwrap();
    let mut lines = content.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines.map(|l| l.split(',').map(|c| c.parse::<f64>().unwrap()).collect()).collect();
    (header, rows)
}

/// Each run of a grid equals `simulate --set` of its parameters: min, max, mean (summed in
/// time order) and final value of every output from simulate's CSV, and the --series rows.
#[test]
fn every_run_equals_simulate_with_its_parameters() {
    let dir = tempfile::tempdir().unwrap();
    for version in [2, 3] {
        let fmu = fmu(version, "DoublePendulum");
        let table = dir.path().join(format!("grid{version}.parquet"));
        let series = dir.path().join(format!("series{version}.parquet"));
        let outputs = "bar1.position.x,bar2.velocity.z,bar2.angular_velocity.y";
        ok(&[
            "sweep",
            s(&fmu),
            "--grid",
            "bar2.mass=30:50:3",
            "--grid",
            "solver.method=1:2:2",
            "--stop-time",
            "0.5",
            "--outputs",
            outputs,
            "-o",
            s(&table),
            "--series",
            s(&series),
            "-q",
        ]);
        let results = read_parquet(&table);
        let series = read_parquet(&series);
        assert_eq!(results.rows.len(), 6);
        let mut series_row = 0;
        for run in 0..6 {
            assert_eq!(results.long(run, "run"), run as i64);
            assert_eq!(results.text(run, "status"), "ok");
            let (mass, method) = (results.real(run, "bar2.mass").unwrap(), results.real(run, "solver.method").unwrap());
            assert_eq!((mass, method), ([30.0, 40.0, 50.0][run / 2], [1.0, 2.0][run % 2]), "first --grid slowest");
            let csv = dir.path().join(format!("run{version}_{run}.csv"));
            ok(&[
                "simulate",
                s(&fmu),
                "--set",
                &format!("bar2.mass={mass}"),
                "--set",
                &format!("solver.method={method}"),
                "--stop-time",
                "0.5",
                "--outputs",
                outputs,
                "--csv",
                s(&csv),
                "-q",
            ]);
            let (header, rows) = read_simulate_csv(&csv);
            assert_eq!(results.real(run, "end_time"), Some(0.5));
            for (k, name) in header.iter().enumerate().skip(1) {
                let column: Vec<f64> = rows.iter().map(|r| r[k]).collect();
                let mean = column.iter().fold(0.0, |s, x| s + x) / column.len() as f64;
                let expected = [
                    ("min", column.iter().copied().fold(f64::INFINITY, f64::min)),
                    ("max", column.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
                    ("mean", mean),
                    ("final", *column.last().unwrap()),
                ];
                for (stat, value) in expected {
                    assert_eq!(results.real(run, &format!("{name}:{stat}")), Some(value), "run {run} {name}:{stat}");
                }
            }
            for row in &rows {
                assert_eq!(series.long(series_row, "run"), run as i64);
                for (k, name) in header.iter().enumerate() {
                    assert_eq!(series.real(series_row, name), Some(row[k]), "series row {series_row} {name}");
                }
                series_row += 1;
            }
        }
        assert_eq!(series_row, series.rows.len(), "the series holds every run's rows and no more");
    }
}

/// `--input-file` plays the same schedule in every run: each run's series equals `simulate
/// --input-file` of its parameters bit for bit, and differs from the run without the table
/// once the input has changed.
#[test]
fn every_run_follows_the_input_file() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("load.csv");
    // A ramp, then a jump at 0.3 s, held to the end.
    std::fs::write(&inputs, "time,load_force\n0,0\n0.3,200\n0.3,-100\n1,-100\n").unwrap();
    // The crank is driven: the load shows in the driver's effort, the friction and the reaction.
    let outputs = "slide.position,crank_drive.effort,slide.friction_force";
    for version in [2, 3] {
        let fmu = fmu(version, "SliderCrankFriction");
        let sweep = |name: &str, extra: &[&str]| {
            let (table, series) = (
                dir.path().join(format!("{name}{version}.parquet")),
                dir.path().join(format!("{name}{version}_s.parquet")),
            );
            let mut args = vec![
                "sweep",
                s(&fmu),
                "--grid",
                "friction_coefficient=0.1:0.3:2",
                "--stop-time",
                "0.5",
                "--step",
                "0.01",
                "--outputs",
                outputs,
                "-o",
                s(&table),
                "--series",
                s(&series),
                "-q",
            ];
            args.extend_from_slice(extra);
            ok(&args);
            (read_parquet(&table), read_parquet(&series))
        };
        let (results, series) = sweep("inputs", &["--input-file", s(&inputs)]);
        let (_, plain) = sweep("plain", &[]);
        assert_eq!(series.rows.len(), 2 * 51);
        for run in 0..2 {
            assert_eq!(results.text(run, "status"), "ok");
            let mu = results.real(run, "friction_coefficient").unwrap();
            let csv = dir.path().join(format!("simulate{version}_{run}.csv"));
            let mu_set = format!("friction_coefficient={mu}");
            ok(&[
                "simulate",
                s(&fmu),
                "--set",
                &mu_set,
                "--input-file",
                s(&inputs),
                "--stop-time",
                "0.5",
                "--step",
                "0.01",
                "--outputs",
                outputs,
                "--csv",
                s(&csv),
                "-q",
            ]);
            let (header, rows) = read_simulate_csv(&csv);
            assert_eq!(rows.len(), 51);
            for (i, row) in rows.iter().enumerate() {
                let r = run * 51 + i;
                assert_eq!(series.long(r, "run"), run as i64);
                for (k, name) in header.iter().enumerate() {
                    assert_eq!(series.real(r, name), Some(row[k]), "fmi{version} run {run} t = {} {name}", row[0]);
                }
            }
            let effort = |t: &Table, i: usize| t.real(run * 51 + i, "crank_drive.effort").unwrap();
            assert_eq!(effort(&series, 0), effort(&plain, 0), "the input starts at zero");
            let changed = (1..51).filter(|&i| effort(&series, i) != effort(&plain, i)).count();
            assert!(changed > 45, "the load changes the crank's effort: {changed} of 50 points");
        }
    }
}

/// The CSV table is the Parquet table in text: same columns, same numbers (shortest
/// round-trip text), empty cells where Parquet has nulls; and the thread count changes nothing.
#[test]
fn csv_and_parquet_agree_and_threads_do_not_matter() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = fmu(3, "HydraulicFourBar");
    let run = |jobs: &str, name: &str| {
        let (parquet, csv) = (dir.path().join(format!("{name}.parquet")), dir.path().join(format!("{name}.csv")));
        ok(&[
            "sweep",
            s(&fmu),
            "--samples",
            "12",
            "--uniform",
            "oil_bulk_modulus=1e9:2e9",
            "--normal",
            "valve_flow_constant=2e-8:2e-9",
            "--seed",
            "5",
            "--stop-time",
            "1",
            "--jobs",
            jobs,
            "-o",
            s(&parquet),
            "-o",
            s(&csv),
            "-q",
        ]);
        (read_parquet(&parquet), std::fs::read_to_string(&csv).unwrap())
    };
    let (one, one_csv) = run("1", "one");
    let (two, two_csv) = run("2", "two");
    assert_same_table(&one, &two, "--jobs 1 vs --jobs 2");
    assert_eq!(one_csv, two_csv);
    let mut lines = one_csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header, one.names);
    for (i, line) in lines.enumerate() {
        for (j, cell) in line.split(',').enumerate() {
            match &one.rows[i][j] {
                Field::Double(x) => assert_eq!(cell.parse::<f64>().unwrap().to_bits(), x.to_bits(), "{}", one.names[j]),
                Field::Long(n) => assert_eq!(cell, n.to_string()),
                Field::Str(t) => assert_eq!(cell, t),
                Field::Null => assert_eq!(cell, ""),
                other => panic!("unexpected cell {other:?}"),
            }
        }
    }
    let bulk = one.column("oil_bulk_modulus");
    assert!(one.rows.iter().all(|r| matches!(r[bulk], Field::Double(x) if (1e9..=2e9).contains(&x))));
}

/// A run that fails records its status and message; the others go on.
#[test]
fn a_failed_run_is_recorded_and_the_sweep_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("p.csv");
    // solver.maxStepsPerCall = 5 cannot reach a 0.01 s communication point in 0.001 s steps.
    std::fs::write(&params, "solver.method,solver.maxStepsPerCall\nbdf1,100000\nss2,5\nhalfImplicit,100000\n").unwrap();
    for version in [2, 3] {
        let table = dir.path().join(format!("f{version}.parquet"));
        let stdout = ok(&[
            "sweep",
            s(&fmu(version, "DoublePendulum")),
            "--parameters",
            s(&params),
            "--stop-time",
            "0.2",
            "-o",
            s(&table),
        ]);
        assert!(stdout.contains("3 of 3 runs done") && stdout.contains("1 failed"), "{stdout}");
        let t = read_parquet(&table);
        assert_eq!(
            (t.text(0, "status"), t.text(1, "status"), t.text(2, "status")),
            ("ok".into(), "discard".into(), "ok".into())
        );
        let message = t.text(1, "message");
        assert!(message.contains("Discard in the communication step from t = 0 to 0.01"), "{message}");
        assert!(message.contains("solver.maxStepsPerCall"), "the FMU's own explanation is kept: {message}");
        assert_eq!(t.real(1, "end_time"), Some(0.0));
        // Statistics over the part that ran: here the start point alone, so each of them is
        // the start value.
        let start = t.real(1, "bar1.position.y:final").expect("statistics of the part that ran");
        for stat in ["min", "max", "mean"] {
            assert_eq!(t.real(1, &format!("bar1.position.y:{stat}")), Some(start), "{stat}");
        }
        assert_eq!((t.text(0, "message"), t.real(0, "end_time")), (String::new(), Some(0.2)));
        assert_eq!((t.real(1, "solver.method"), t.real(1, "solver.maxStepsPerCall")), (Some(7.0), Some(5.0)));
    }
}

/// Runs mbfmu expecting a reported error (exit status 1); returns stderr.
fn refused(args: &[&str]) -> String {
    let out = mbfmu(args);
    assert_eq!(out.status.code(), Some(1), "mbfmu {args:?} should fail:\n{}{}", text(&out.stdout), text(&out.stderr));
    text(&out.stderr)
}

#[test]
fn bad_input_is_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = fmu(3, "HydraulicFourBar");
    let out = dir.path().join("never.parquet");
    let sweep = |extra: &[&str]| {
        let mut args = vec!["sweep", s(&fmu), "-o", s(&out)];
        args.extend_from_slice(extra);
        let err = refused(&args);
        assert!(!out.exists(), "{args:?}: nothing written before the checks pass");
        err
    };
    let e = sweep(&["--grid", "oil_bulk_modulu=1e9:2e9:3"]);
    assert!(e.contains("unknown variable 'oil_bulk_modulu'") && e.contains("did you mean 'oil_bulk_modulus'"), "{e}");
    let e = sweep(&["--grid", "oil_bulk_modulus=0:2e9:3"]);
    assert!(e.contains("below the minimum of oil_bulk_modulus (1)"), "{e}");
    let e = sweep(&["--grid", "work_cycle=0:2:3"]);
    assert!(e.contains("above the maximum of work_cycle (1)"), "{e}");
    let e = sweep(&["--grid", "oil_bulk_modulus=1e9:2e9"]);
    assert!(e.contains("expected START:STOP:COUNT"), "{e}");
    let e = sweep(&["--grid", "V1.pressure=1:2:2"]);
    assert!(e.contains("cannot set 'V1.pressure'"), "{e}");
    let e = sweep(&["--samples", "3", "--uniform", "oil_bulk_modulus=2e9"]);
    assert!(e.contains("expected two finite numbers"), "{e}");
    let e = sweep(&["--samples", "100", "--normal", "oil_bulk_modulus=1e8:1e9"]);
    assert!(e.contains("below the minimum") && e.contains("narrow the distribution"), "{e}");
    let e = sweep(&["--samples", "3"]);
    assert!(e.contains("at least one --uniform"), "{e}");
    let e = sweep(&[]);
    assert!(e.contains("no parameter sets"), "{e}");
    let e = sweep(&["--grid", "oil_bulk_modulus=1e9:2e9:2", "--set", "oil_bulk_modulus=1e9"]);
    assert!(e.contains("both swept and given by --set"), "{e}");
    // --input-file: checked as `simulate` checks it, and an input comes from one place only.
    let table = dir.path().join("in.csv");
    let slider = sweep_common::fmu(3, "SliderCrankFriction");
    let with_table = |text: &str, extra: &[&str]| {
        std::fs::write(&table, text).unwrap();
        let mut args = vec!["sweep", s(&slider), "-o", s(&out), "--input-file", s(&table)];
        args.extend_from_slice(extra);
        let err = refused(&args);
        assert!(!out.exists(), "{args:?}: nothing written before the checks pass");
        err
    };
    let grid = ["--grid", "friction_coefficient=0:0.2:2"];
    let e = with_table("time,load_forse\n0,1\n", &grid);
    assert!(e.contains("in.csv, line 1") && e.contains("did you mean 'load_force'"), "{e}");
    let e = with_table("time,load_force\n0,1\n0.5,abc\n", &grid);
    assert!(e.contains("line 3") && e.contains("'abc' is not a number"), "{e}");
    let e = with_table("time,load_force\n0,1\n", &["--grid", "load_force=0:1:2"]);
    assert!(e.contains("'load_force' is both swept and given by --input-file"), "{e}");
    let e = with_table("time,load_force\n0,1\n", &[&grid[..], &["--set", "load_force=2"]].concat());
    assert!(e.contains("'load_force' is given both by --set and by --input-file"), "{e}");
    let params = dir.path().join("p.csv");
    for (content, expected) in [
        ("oil_bulk_modulus\n1e9\nabc\n", "line 3"),
        ("oil_bulk_modulus,valve_flow_constant\n1e9\n", "line 2"),
        ("oil_bulk_modulus\n", "no rows"),
        ("oil_bulk_modulus\n-5\n", "below the minimum"),
    ] {
        std::fs::write(&params, content).unwrap();
        let e = sweep(&["--parameters", s(&params)]);
        assert!(e.contains("--parameters") && e.contains(expected), "{content:?}: {e}");
    }
    let e = sweep(&["--parameters", s(&dir.path().join("missing.csv"))]);
    assert!(e.contains("missing.csv"), "{e}");
    // Unwritable and unusable output paths.
    let blocker = dir.path().join("a_file");
    std::fs::write(&blocker, "").unwrap();
    for (path, expected) in
        [(blocker.join("t.parquet"), "cannot create"), (dir.path().join("t.txt"), ".parquet or .csv")]
    {
        let e = refused(&["sweep", s(&fmu), "--grid", "oil_bulk_modulus=1e9:2e9:2", "-o", s(&path)]);
        assert!(e.contains("--output") && e.contains(expected), "{e}");
    }
    let e = refused(&["sweep", s(&fmu), "--grid", "oil_bulk_modulus=1e9:2e9:2", "-o", s(&out), "--series", "x.json"]);
    assert!(e.contains("--series") && e.contains(".parquet or .csv"), "{e}");
}

/// SIGINT to a running sweep: it stops, writes the runs that finished (exit status 130), and
/// those rows equal the same runs of a sweep that was not interrupted.
#[test]
fn ctrl_c_keeps_the_finished_runs() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = fmu(3, "DoublePendulum");
    let table = dir.path().join("interrupted.parquet");
    let sample = ["--uniform", "bar2.mass=30:50", "--seed", "11", "--stop-time", "0.2", "--jobs", "2"];
    let mut args = vec!["sweep", s(&fmu), "--samples", "1000000", "-o", s(&table)];
    args.extend_from_slice(&sample);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mbfmu"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Long enough for many runs of 0.2 s (a few milliseconds each), far from the million.
    std::thread::sleep(Duration::from_secs(3));
    // SIGINT as Ctrl-C sends it, through libc rather than the `kill` program (procps), which a
    // minimal machine may lack. SAFETY: a signal to the child process started above.
    let killed = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(killed, 0, "kill: {}", std::io::Error::last_os_error());
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the sweep did not stop within 120 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = child.wait_with_output().unwrap();
    assert_eq!(status.code(), Some(130), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("interrupted"), "{}", text(&output.stderr));
    let t = read_parquet(&table);
    let n = t.rows.len();
    assert!(n > 0 && n < 1_000_000, "{n} runs kept");
    let runs: Vec<i64> = (0..n).map(|i| t.long(i, "run")).collect();
    assert!(runs.windows(2).all(|w| w[0] < w[1]), "rows in plan order, each run once");
    assert!((0..n).all(|i| t.text(i, "status") == "ok"), "an abandoned run is not written");
    // The first runs again, without interruption: a prefix of the sample is the sample.
    let reference = dir.path().join("reference.parquet");
    let mut args = vec!["sweep", s(&fmu), "--samples", "20", "-o", s(&reference), "-q"];
    args.extend_from_slice(&sample);
    ok(&args);
    let reference = read_parquet(&reference);
    let mut compared = 0;
    for (i, &run) in runs.iter().enumerate().filter(|(_, &r)| r < 20) {
        for (j, name) in t.names.iter().enumerate() {
            let expected = &reference.rows[run as usize][j];
            assert!(same_cell(&t.rows[i][j], expected), "run {run} {name}: {:?} != {expected:?}", t.rows[i][j]);
        }
        compared += 1;
    }
    assert!(compared > 0, "run 0 finishes first on any machine");
}

/// A sweep loads the FMU's binary once for all its runs, on every thread (the `fmi` crate
/// alone loads and unloads it with each instance), and the runs' numbers do not depend on it:
/// the same table from one and from two threads. The dynamic loader reports each load
/// (LD_DEBUG=files: one "generating link map" per mapping of a file).
#[test]
fn the_binary_is_loaded_once_for_all_runs() {
    let dir = tempfile::tempdir().unwrap();
    for version in [2, 3] {
        let fmu = fmu(version, "HydraulicFourBar");
        let mut tables = Vec::new();
        for jobs in ["1", "2"] {
            let table = dir.path().join(format!("loads{version}_{jobs}.csv"));
            let out = Command::new(env!("CARGO_BIN_EXE_mbfmu"))
                .args(["sweep", s(&fmu), "--samples", "12", "--uniform", "oil_bulk_modulus=1e9:2e9"])
                .args(["--stop-time", "0.05", "--jobs", jobs, "-q", "-o", s(&table)])
                .env("LD_DEBUG", "files")
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", text(&out.stderr));
            let loads = text(&out.stderr)
                .lines()
                .filter(|l| l.contains("HydraulicFourBar.so") && l.contains("generating link map"))
                .count();
            assert_eq!(loads, 1, "fmi{version}, {jobs} thread(s): the binary was mapped {loads} times");
            tables.push(std::fs::read_to_string(&table).unwrap());
        }
        assert_eq!(tables[0], tables[1], "fmi{version}");
        assert_eq!(tables[0].lines().count(), 13, "fmi{version}: a header and 12 runs");
    }
}
