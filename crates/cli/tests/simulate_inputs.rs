//! `simulate` with a built-in model's name, with time-varying inputs from a CSV file, and
//! `package` outside the repository. Each test has its own working and cache directory.

use std::path::Path;
use std::process::{Command, Output};

fn mbfmu(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbfmu"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .output()
        .expect("the mbfmu binary runs")
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = mbfmu(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "mbfmu {args:?} failed:\n{stderr}");
    stderr
}

fn fails(dir: &Path, args: &[&str]) -> String {
    let out = mbfmu(dir, args);
    assert_eq!(out.status.code(), Some(1), "mbfmu {args:?} should fail with a reported error");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The rows of a CSV written by `simulate`, as text (bit-identical comparisons).
fn rows(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().skip(1).map(str::to_string).collect()
}

const SLIDER: &str = "SliderCrankFriction";

/// One second of the slider-crank at 0.01 s communication steps with `extra` options.
fn slider(dir: &Path, name: &str, extra: &[&str]) -> Vec<String> {
    let csv = dir.join(format!("{name}.csv"));
    let mut args = vec!["simulate", SLIDER, "--stop-time", "1", "--step", "0.01", "-q"];
    args.extend(["--csv", csv.to_str().unwrap()]);
    args.extend(extra);
    ok(dir, &args);
    rows(&csv)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn input_files_drive_inputs_as_their_rows_say() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let constant = slider(dir, "set", &["--set", "load_force=50"]);
    assert_eq!(constant.len(), 101);

    // A constant table is the constant input.
    let file = write(dir, "constant.csv", "time,load_force\n0,50\n1,50\n");
    assert_eq!(slider(dir, "file", &["--input-file", &file]), constant, "a constant table equals --set");

    // A held jump at 0.5 s: identical up to the communication point 0.5, different after it.
    let file = write(dir, "jump.csv", "time,load_force\n0,50\n0.5,50\n0.5,-200\n1,-200\n");
    let jump = slider(dir, "jump", &["--input-file", &file, "--input-interpolation", "step"]);
    assert_eq!(jump[..51], constant[..51], "the input is the same until the step from t = 0.5");
    assert!(jump[52..].iter().zip(&constant[52..]).all(|(a, b)| a != b), "and changes the motion after it");

    // A linear ramp equals the same ramp given as a held value at every communication point:
    // the interpolation formula against a plain table look-up.
    let file = write(dir, "ramp.csv", "# a comment line\ntime,load_force\n0,0\n1,100\n");
    let ramp = slider(dir, "ramp", &["--input-file", &file]);
    let mut table = String::from("time,load_force\n");
    for i in 0..=100 {
        let t = i as f64 / 100.0;
        table += &format!("{t},{}\n", 100.0 * t);
    }
    let file = write(dir, "ramp_rows.csv", &table);
    let held = slider(dir, "held", &["--input-file", &file, "--input-interpolation", "step"]);
    assert_eq!(ramp, held, "linear interpolation between two rows = the ramp's values at the communication points");
    assert_ne!(ramp, constant);
}

#[test]
fn input_file_mistakes_are_reported_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let run = |text: &str, extra: &[&str]| {
        let file = write(dir, "in.csv", text);
        let mut args = vec!["simulate", SLIDER, "--stop-time", "0.1", "--input-file", &file];
        args.extend(extra);
        fails(dir, &args)
    };
    let e = run("time,load_forse\n0,1\n", &[]);
    assert!(e.contains("line 1") && e.contains("did you mean 'load_force'"), "{e}");
    let e = run("time,load_force\n0,1\n0.5,abc\n", &[]);
    assert!(e.contains("line 3") && e.contains("'abc' is not a number"), "{e}");
    let e = run("time,load_force\n0,1\n", &["--set", "load_force=2"]);
    assert!(e.contains("both by --set and by --input-file"), "{e}");
    let e = fails(dir, &["simulate", SLIDER, "--input-file", "missing.csv"]);
    assert!(e.contains("missing.csv"), "{e}");
}

#[test]
fn a_built_in_model_runs_in_process_or_is_packaged_once_and_a_misspelt_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // FMI 3 (the default): run by the linked library, nothing packaged or unpacked.
    let csv = dir.join("dp.csv");
    let args = ["simulate", "DoublePendulum", "--stop-time", "0.1", "-q", "--csv", csv.to_str().unwrap()];
    let first = ok(dir, &args);
    assert!(!first.contains("packaged"), "{first}");
    assert!(!dir.join("cache/mbfmu").exists(), "no archive packaged or unpacked for an FMI 3 built-in model");
    assert_eq!(rows(&csv).len(), 11, "0.1 s at the default 0.01 s step");
    // FMI 2: packaged into one folder per library under built-in/, then reused.
    let args = ["simulate", "DoublePendulum", "--fmi", "2", "--stop-time", "0.1", "-q", "--csv", "dp2.csv"];
    let first = ok(dir, &args);
    let libraries = || std::fs::read_dir(dir.join("cache/mbfmu/built-in")).unwrap().map(|e| e.unwrap().path());
    assert_eq!(libraries().count(), 1);
    let own = libraries().next().unwrap();
    let cached = own.join("fmi2/DoublePendulum.fmu");
    assert!(first.contains("packaged the built-in model DoublePendulum") && cached.is_file(), "{first}");
    assert_eq!(rows(&dir.join("dp2.csv")), rows(&csv), "FMI 2 and FMI 3 give the same numbers");
    let second = ok(dir, &args);
    assert!(!second.contains("packaged"), "the cached FMU is reused: {second}");
    // Another library's folder unused for more than a week goes when this one packages anew;
    // a recent one stays.
    let (old, recent) =
        (dir.join("cache/mbfmu/built-in/0123456789abcdef"), dir.join("cache/mbfmu/built-in/fedcba9876543210"));
    for d in [&old, &recent] {
        std::fs::create_dir_all(d.join("fmi2")).unwrap();
    }
    let week_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(8 * 24 * 3600);
    std::fs::File::open(&old).unwrap().set_modified(week_ago).unwrap();
    std::fs::remove_file(&cached).unwrap();
    let third = ok(dir, &args);
    assert!(third.contains("packaged") && cached.is_file(), "{third}");
    assert!(!old.exists() && recent.exists(), "a week-old folder of another library is removed, a recent one kept");
    // The folder in use is marked as used when its time is more than a day old (not on every run).
    let modified = || std::fs::metadata(&own).unwrap().modified().unwrap();
    let ago = |hours: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(hours * 3600);
    std::fs::File::open(&own).unwrap().set_modified(ago(1)).unwrap();
    let hour_ago = modified();
    ok(dir, &args);
    assert_eq!(modified(), hour_ago, "touched an hour ago: left alone");
    std::fs::File::open(&own).unwrap().set_modified(ago(48)).unwrap();
    ok(dir, &args);
    assert!(modified() > ago(1), "two days old: touched again");

    let e = fails(dir, &["simulate", "DoublePendulm"]);
    assert!(
        e.contains("no such file") && e.contains("did you mean DoublePendulum?") && e.contains("mbfmu list"),
        "{e}"
    );
}

#[test]
fn package_outside_the_repository_writes_only_the_fmus() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let out = mbfmu(dir, &["package", "--out", "fmus"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("fmus/fmi3/DoublePendulum.fmu").is_file());
    assert!(!dir.join("modelDescription").exists(), "no modelDescription/ outside the repository");
    let entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(entries, ["fmus"], "nothing else is written");
}
