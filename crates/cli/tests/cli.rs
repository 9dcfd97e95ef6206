//! End-to-end tests of the `mbfmu` binary: package the catalog into a temporary directory,
//! then simulate the FMUs of both FMI versions through the command line and check the CSV
//! and PNG files it writes and the errors it reports.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const MODEL: &str = "DoublePendulum";

fn mbfmu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbfmu")).args(args).output().expect("the mbfmu binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs mbfmu and requires success; returns stdout.
fn ok(args: &[&str]) -> String {
    let out = mbfmu(args);
    assert!(out.status.success(), "mbfmu {args:?} failed:\n{}{}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}

/// Runs mbfmu and requires failure; returns stderr.
fn fails(args: &[&str]) -> String {
    let out = mbfmu(args);
    assert!(!out.status.success(), "mbfmu {args:?} should fail but printed:\n{}", text(&out.stdout));
    assert_eq!(out.status.code(), Some(1), "a reported error exits with 1, not a crash");
    text(&out.stderr)
}

/// The catalog packaged once per test run: (temporary root, stdout of `package`).
fn packaged() -> &'static (PathBuf, String) {
    static DIR: OnceLock<(PathBuf, String)> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = crate::scratch::dir("cli-catalog");
        let out = dir.join("fmus");
        let md = dir.join("modelDescription");
        let stdout = ok(&["package", "--out", out.to_str().unwrap(), "--model-descriptions", md.to_str().unwrap()]);
        (dir, stdout)
    })
}

fn fmu(version: u32) -> PathBuf {
    packaged().0.join(format!("fmus/fmi{version}/{MODEL}.fmu"))
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<f64>>,
    /// The time column as written.
    time_text: Vec<String>,
}

fn read_csv(path: &Path) -> Csv {
    let content = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = content.lines();
    let header: Vec<String> = lines.next().expect("header").split(',').map(String::from).collect();
    let (mut rows, mut time_text) = (Vec::new(), Vec::new());
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), header.len(), "row width: {line}");
        time_text.push(cells[0].to_string());
        rows.push(cells.iter().map(|c| c.parse::<f64>().unwrap_or_else(|_| panic!("not a number: {c}"))).collect());
    }
    Csv { header, rows, time_text }
}

fn column<'a>(csv: &'a Csv, name: &str) -> impl Iterator<Item = f64> + 'a {
    let i = csv.header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
    csv.rows.iter().map(move |r| r[i])
}

/// Width and height from the IHDR chunk, after checking the PNG signature.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes(b.try_into().unwrap());
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

#[test]
fn package_writes_both_versions_with_the_library_of_this_build() {
    let (dir, stdout) = packaged();
    // The library cargo built for this test run sits in target/<profile>/deps, like this test.
    let exe = std::env::current_exe().unwrap();
    let library = std::fs::read(exe.parent().unwrap().join("libmbfmu.so")).expect("cargo test builds the cdylib");
    for (version, platform) in [(2, "linux64"), (3, "x86_64-linux")] {
        let path = fmu(version);
        assert!(stdout.contains(path_str(&path)), "package reports {}:\n{stdout}", path.display());
        let mut archive = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
        let mut binary = Vec::new();
        archive.by_name(&format!("binaries/{platform}/{MODEL}.so")).unwrap().read_to_end(&mut binary).unwrap();
        assert!(binary == library, "FMI {version}: the archived binary is the library this build compiled");
        let mut xml = String::new();
        archive.by_name("modelDescription.xml").unwrap().read_to_string(&mut xml).unwrap();
        assert!(xml.contains(&format!("fmiVersion=\"{version}.0\"")));
        let copy = dir.join(format!("modelDescription/fmi{version}/{MODEL}.xml"));
        assert_eq!(std::fs::read_to_string(&copy).unwrap(), xml, "checked-in copy equals the archived XML");
    }
}

/// One run of the pendulum for 1 s at 0.01 s with three outputs; returns the CSV.
fn pendulum(version: u32, dir: &Path, name: &str, extra: &[&str]) -> Csv {
    let csv = dir.join(format!("{name}.csv"));
    let fmu = fmu(version);
    let mut args = vec!["simulate", path_str(&fmu), "--stop-time", "1", "--step", "0.01"];
    args.extend(["--outputs", "pivot.angle,elbow.angle", "--outputs", "total_energy", "--csv", path_str(&csv), "-q"]);
    args.extend(extra);
    let stdout = ok(&args);
    assert!(stdout.is_empty(), "--quiet prints nothing: {stdout}");
    read_csv(&csv)
}

fn check_grid(csv: &Csv) {
    assert_eq!(csv.header, ["time", "pivot.angle", "elbow.angle", "total_energy"]);
    assert_eq!(csv.rows.len(), 101, "(stop - start) / step + 1 rows");
    for (i, row) in csv.rows.iter().enumerate() {
        // Exactly the decimal grid point: 0.07, not 0.07000000000000001.
        assert_eq!(row[0], i as f64 / 100.0, "time in row {i}: {}", csv.time_text[i]);
        assert!(csv.time_text[i].len() <= 4, "short time text: {}", csv.time_text[i]);
        assert!(row.iter().all(|v| v.is_finite()), "finite values in row {i}: {row:?}");
    }
}

fn max_difference(a: &Csv, b: &Csv, name: &str) -> f64 {
    column(a, name).zip(column(b, name)).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

#[test]
fn simulates_both_versions_and_overrides_change_results() {
    let dir = tempfile::tempdir().unwrap();
    for version in [2, 3] {
        let default = pendulum(version, dir.path(), &format!("default{version}"), &[]);
        check_grid(&default);
        assert!(default.rows[0][1].abs() < 1e-12, "the pendulum starts at joint angle 0");
        assert!(column(&default, "pivot.angle").any(|a| a < -0.5), "it falls within a second");

        // The enumeration by item name: a different integrator, a close but different path.
        let bdf1 = pendulum(version, dir.path(), &format!("bdf1_{version}"), &["--set", "solver.method=bdf1"]);
        check_grid(&bdf1);
        for angle in ["pivot.angle", "elbow.angle"] {
            let d = max_difference(&default, &bdf1, angle);
            assert!(d > 1e-6 && d < 0.05, "FMI {version}, {angle}: halfImplicit vs bdf1 differ by {d}");
        }
        // ... and by its number.
        let bdf1_number = pendulum(version, dir.path(), &format!("bdf1n_{version}"), &["--set", "solver.method=2"]);
        assert_eq!(bdf1.rows, bdf1_number.rows);

        // A Real parameter: without gravity the pendulum stays where it was released.
        let still = pendulum(version, dir.path(), &format!("g0_{version}"), &["--set", "gravity_z=0"]);
        assert!(column(&still, "pivot.angle").all(|a| a.abs() < 1e-12), "no motion without gravity");
    }
    // Both standards drive the same library: identical numbers.
    let fmi2 = read_csv(&dir.path().join("default2.csv"));
    let fmi3 = read_csv(&dir.path().join("default3.csv"));
    assert_eq!(fmi2.rows, fmi3.rows);
}

/// `simulate <Model>` runs a built-in model in-process (the FMU library linked into the
/// command); the archive `package` wrote for it, loaded as any FMU, gives the same rows to the
/// last bit, with a parameter and an enumeration set, and the same log lines.
#[test]
fn a_built_in_model_by_name_gives_its_archives_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let run = |source: &str, name: &str| {
        let csv = dir.path().join(format!("{name}.csv"));
        let args = ["simulate", source, "--stop-time", "2", "--step", "0.001", "--csv", path_str(&csv)];
        let out = mbfmu(
            &[&args[..], &["--set", "gravity_z=-3.7", "--set", "solver.method=bdf1", "--debug-logging"]].concat(),
        );
        assert!(out.status.success(), "{source}: {}", text(&out.stderr));
        let logged: Vec<String> =
            text(&out.stderr).lines().filter(|l| l.starts_with("FMU ")).map(String::from).collect();
        (std::fs::read_to_string(&csv).unwrap(), logged)
    };
    let (linked, linked_log) = run(MODEL, "linked");
    let (archive, archive_log) = run(path_str(&fmu(3)), "archive");
    assert_eq!(linked.lines().count(), 2002, "a header and 2001 rows");
    assert_eq!(linked, archive, "the same text, row by row");
    assert!(linked_log.iter().any(|l| l.contains("[logCalls]: fmi3DoStep")), "{linked_log:?}");
    assert_eq!(linked_log, archive_log);
}

#[test]
fn writes_a_png_plot_and_a_default_csv() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = fmu(3);
    let (one, two) = (dir.path().join("one.png"), dir.path().join("two.png"));
    let run = |png: &Path, vars: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_mbfmu"))
            .args(["simulate", path_str(&fmu), "--stop-time", "0.5", "--plot", path_str(png), "--plot-vars", vars])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let stdout = run(&one, "pivot.angle,elbow.angle");
    // The CSV's columns: time and every output of the model.
    let entry = mbfmu_model::catalog::find("DoublePendulum").unwrap();
    let outputs = mbfmu_model::Model::from_catalog(entry).unwrap().interface.outputs().count();
    let written = format!("wrote DoublePendulum.csv (51 rows, {} columns)", 1 + outputs);
    assert!(stdout.contains(&written), "{stdout}");
    assert!(stdout.contains("in 1 panel"), "{stdout}");
    // kinetic_energy [J] is plotted (not only CSV columns can be) in a second panel.
    run(&two, "pivot.angle,kinetic_energy");
    let (w1, h1) = png_size(&one);
    let (w2, h2) = png_size(&two);
    assert_eq!(w1, w2);
    assert!(w1 >= 800 && h1 >= 400, "{w1} x {h1}");
    assert!(h2 > h1, "one panel per unit: {h1} then {h2}");
    assert!(std::fs::metadata(&one).unwrap().len() > 10_000, "the plot has content");
    // The default CSV in the current directory holds every output.
    let csv = read_csv(&dir.path().join("DoublePendulum.csv"));
    assert_eq!(csv.rows.len(), 51);
    assert!(csv.header.contains(&"elbow.angle".to_string()) && csv.header.contains(&"kinetic_energy".to_string()));
}

#[test]
fn help_explains_every_option() {
    let top = ok(&["--help"]);
    for command in ["package", "simulate", "info", "list", "docs"] {
        assert!(top.contains(command), "{command} in:\n{top}");
    }
    let help = ok(&["simulate", "--help"]);
    for needle in [
        "--start-time",
        "--stop-time",
        "--step",
        "--tolerance",
        "--set <NAME=VALUE>",
        "solver.method=bdf1",
        "--outputs",
        "--csv",
        "--plot <FILE.png>",
        "--plot-vars",
        "DefaultExperiment",
        "[s]",
    ] {
        assert!(help.contains(needle), "{needle} in:\n{help}");
    }
    let package = ok(&["package", "--help"]);
    assert!(package.contains("--out") && package.contains("[default: fmus]"), "{package}");
    assert!(ok(&["list"]).contains(MODEL));
}

fn archived_page(fmu: &Path) -> String {
    archived(fmu, "documentation/index.html").unwrap()
}

fn archived(fmu: &Path, name: &str) -> Option<String> {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(fmu).unwrap()).unwrap();
    let mut text = String::new();
    archive.by_name(name).ok()?.read_to_string(&mut text).unwrap();
    Some(text)
}

#[test]
fn docs_writes_the_page_the_archives_carry() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pages");
    let out = path_str(&out);
    // A catalog model: FMI 3.0 by default, FMI 2.0 on request, each the archive's page.
    for (extra, version) in [(&[][..], 3), (&["--fmi", "2"][..], 2)] {
        let mut args = vec!["docs", MODEL, "--out", out];
        args.extend(extra);
        let stdout = ok(&args);
        let page = dir.path().join(format!("pages/fmi{version}/{MODEL}.html"));
        let mut written = stdout.lines();
        assert_eq!(written.next(), Some(path_str(&page)), "docs prints the path it wrote");
        let html = std::fs::read_to_string(&page).unwrap();
        assert_eq!(html, archived_page(&fmu(version)), "FMI {version}: the page of the archive");
        // With the replay player installed, the replay beside the page, as the archive has it.
        let replay = archived(&fmu(version), &format!("documentation/{MODEL}.replay.html"));
        let beside = page.with_file_name(format!("{MODEL}.replay.html"));
        assert_eq!(written.next(), replay.is_some().then(|| path_str(&beside)), "{stdout}");
        assert_eq!(std::fs::read_to_string(&beside).ok(), replay, "FMI {version}: the archive's replay");
        assert!(html.contains(&format!("FMI {version}.0")) && html.contains("solver.method"));
    }
    // An archive: its own page, in its own version.
    let other = dir.path().join("from_fmu");
    let stdout = ok(&["docs", path_str(&fmu(2)), "--out", path_str(&other)]);
    let page = other.join(format!("fmi2/{MODEL}.html"));
    assert_eq!(stdout.lines().next(), Some(path_str(&page)));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), archived_page(&fmu(2)));
    let replay = archived(&fmu(2), &format!("documentation/{MODEL}.replay.html"));
    assert_eq!(std::fs::read_to_string(page.with_file_name(format!("{MODEL}.replay.html"))).ok(), replay);
    let err = fails(&["docs", path_str(&fmu(2)), "--fmi", "3", "--out", path_str(&other)]);
    assert!(err.contains("FMI 2.0 FMU"), "{err}");
    // A description of the user's (the repository's example, found from this package).
    let json = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/pendulum.json");
    let stdout = ok(&["docs", path_str(&json), "--out", out]);
    let html = std::fs::read_to_string(stdout.trim()).unwrap();
    assert!(stdout.trim().ends_with("fmi3/UserPendulum.html") && html.contains("pivot.angle"), "{stdout}");
    // An unknown name lists the catalog.
    let err = fails(&["docs", "DoublePendulm", "--out", out]);
    assert!(err.contains("unknown model 'DoublePendulm'"), "{err}");
    for name in ["DoublePendulum", "SliderCrank", "HydraulicFourBar", "AndrewsSqueezer"] {
        assert!(err.contains(name), "{name} listed in: {err}");
    }
}

#[test]
fn reports_mistakes_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let fmu2 = fmu(2);
    let fmu = path_str(&fmu2);
    let csv = dir.path().join("x.csv");
    let csv = path_str(&csv);

    let err = fails(&["simulate", fmu, "--set", "bar1.mas=3", "--csv", csv]);
    assert!(err.contains("unknown variable 'bar1.mas' in --set") && err.contains("'bar1.mass'"), "{err}");
    let err = fails(&["simulate", fmu, "--outputs", "pivot.angle,nosuch", "--csv", csv]);
    assert!(err.contains("unknown variable 'nosuch' in --outputs"), "{err}");
    let err = fails(&["simulate", fmu, "--set", "solver.method=rk4", "--csv", csv]);
    assert!(err.contains("halfImplicit") && err.contains("bdf1"), "lists the items: {err}");
    let err = fails(&["simulate", fmu, "--set", "bar1.position.x=1", "--csv", csv]);
    assert!(err.contains("cannot set 'bar1.position.x'"), "{err}");
    let err = fails(&["simulate", fmu, "--set", "bar1.mass=heavy", "--csv", csv]);
    assert!(err.contains("expects a number"), "{err}");
    // The FMU's own explanation is forwarded (FMI 3 logs only in enabled categories).
    let fmu3 = self::fmu(3);
    let err = fails(&["simulate", path_str(&fmu3), "--set", "bar1.mass=-1", "--csv", csv]);
    assert!(err.contains("FMU error") && err.contains("fmi3SetFloat64 returned Error"), "{err}");
    // A run that fails before its first row (here after the CSV file was opened) leaves no
    // file behind, and an earlier run's file as it was.
    assert!(!Path::new(csv).exists(), "no CSV file from a run without rows");
    std::fs::write(csv, "an earlier run's rows\n").unwrap();
    fails(&["simulate", path_str(&fmu3), "--set", "bar1.mass=-1", "--csv", csv]);
    assert_eq!(std::fs::read_to_string(csv).unwrap(), "an earlier run's rows\n");
    std::fs::remove_file(csv).unwrap();
    let err = fails(&["simulate", &format!("{fmu}.missing")]);
    assert!(err.contains("no such file"), "{err}");
    let err = fails(&["simulate", fmu, "--step", "-0.1"]);
    assert!(err.contains("step must be positive"), "{err}");
}

#[test]
fn a_failing_step_reports_the_time_reached() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("fail.csv");
    for version in [2, 3] {
        let fmu = fmu(version);
        // Two Newton iterations cannot converge on 0.5 s implicit steps of a falling pendulum.
        let err = fails(&[
            "simulate",
            path_str(&fmu),
            "--stop-time",
            "2",
            "--step",
            "0.5",
            "--set",
            "solver.method=bdf1",
            "--set",
            "solver.stepSize=0.5",
            "--set",
            "solver.maxIterations=2",
            "--csv",
            path_str(&csv),
            "-q",
        ]);
        assert!(err.contains("returned Discard in the communication step from t = 0 to 0.5"), "FMI {version}: {err}");
        assert!(err.contains("reached t = 0 "), "{err}");
        // The rows up to the failure are kept.
        let rows = read_csv(&csv).rows;
        assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), [0.0]);
    }
}

#[test]
fn refuses_a_model_exchange_only_fmu() {
    // The packaged FMI 2 archive with <CoSimulation> turned into <ModelExchange>.
    let dir = tempfile::tempdir().unwrap();
    let mut archive = zip::ZipArchive::new(std::fs::File::open(fmu(2)).unwrap()).unwrap();
    let mut xml = String::new();
    archive.by_name("modelDescription.xml").unwrap().read_to_string(&mut xml).unwrap();
    let me_xml = xml.replacen("<CoSimulation ", "<ModelExchange ", 1);
    assert_ne!(me_xml, xml);
    let path = dir.path().join("me.fmu");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    zip.start_file("modelDescription.xml", zip::write::SimpleFileOptions::default()).unwrap();
    zip.write_all(me_xml.as_bytes()).unwrap();
    zip.finish().unwrap();
    let err = fails(&["simulate", path_str(&path)]);
    assert!(err.contains("not a co-simulation FMU (it offers Model Exchange)"), "{err}");
}

/// Output into a pipe whose reader has gone (`mbfmu schema | head -c 1`) is an error the
/// command reports with exit code 1, not a signal that ends it unexplained.
#[test]
fn a_closed_pipe_is_a_reported_error() {
    use std::process::Stdio;
    // More than a pipe holds (64 KB on Linux): the command is still writing when the reader goes.
    assert!(mbfmu_model::format::json_schema_text().len() > 96 << 10);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mbfmu"))
        .arg("schema")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mbfmu binary runs");
    let mut stdout = child.stdout.take().unwrap();
    stdout.read_exact(&mut [0; 1]).expect("the schema starts");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{:?}: {}", out.status, text(&out.stderr));
    assert!(text(&out.stderr).contains("cannot write the schema"), "{}", text(&out.stderr));
}

/// Started with standard input, output and error closed (`mbfmu ... <&- >&- 2>&-`, as some
/// job runners do), the command still runs, and the files it opens do not take the standard
/// streams' numbers: otherwise its summary, meant for standard output, lands in one of them
/// (the lock it holds on the unpacked FMU in the cache, the first file it keeps open).
#[cfg(unix)]
#[test]
fn runs_with_the_standard_streams_closed() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let csv = dir.path().join("closed.csv");
    let mut command = Command::new(env!("CARGO_BIN_EXE_mbfmu"));
    command.args(["simulate", path_str(&fmu(3)), "--stop-time", "0.1", "--csv", path_str(&csv)]);
    command.env("XDG_CACHE_HOME", &cache);
    // SAFETY: only close(2), which is async-signal-safe, runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            for fd in 0..3 {
                libc::close(fd);
            }
            Ok(())
        })
    };
    assert!(command.status().unwrap().success());
    let written = read_csv(&csv);
    assert_eq!(written.header[0], "time");
    assert_eq!(written.time_text.last().map(String::as_str), Some("0.1"));
    let locks: Vec<_> = std::fs::read_dir(cache.join("mbfmu/unpacked"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "lock"))
        .collect();
    assert!(!locks.is_empty(), "the run held a lock in {}", cache.display());
    for lock in locks {
        assert_eq!(std::fs::read(&lock).unwrap(), b"", "{} is written to", lock.display());
    }
}

/// `--platforms` names what is wrong before any build starts: an unknown platform with the
/// valid names, a missing toolchain with what to install and the set-up script.
#[test]
fn platforms_report_unknown_names_and_missing_toolchains() {
    let out = tempfile::tempdir().unwrap();
    let out_dir = path_str(out.path());
    let unknown = fails(&["package", "--platforms", "x86_64-amiga", "--out", out_dir]);
    assert!(unknown.contains("x86_64-amiga") && unknown.contains("aarch64-darwin"), "{unknown}");

    // No toolchain on PATH: nothing finds the Windows target's standard library.
    let empty = tempfile::tempdir().unwrap();
    let missing = Command::new(env!("CARGO_BIN_EXE_mbfmu"))
        .args(["package", "--platforms", "x86_64-windows", "--out", out_dir])
        .env("PATH", empty.path())
        .env_remove("RUSTC")
        .output()
        .expect("the mbfmu binary runs");
    let stderr = text(&missing.stderr);
    assert_eq!(missing.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("rustup target add x86_64-pc-windows-gnu") && stderr.contains("scripts/setup-cross.sh"),
        "{stderr}"
    );
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none(), "nothing written before the check");
}
