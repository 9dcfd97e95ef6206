//! Systems of FMUs (SSP): the packaged split hydraulic four-bar read by FMPy's SSP reader
//! (schema-validated) and run by libcosim, against `mbfmu simulate <system>.ssp`; Jacobi and
//! Gauss-Seidel against the monolithic FMU; extrapolation's fallback; every bad input refused
//! before the first step with the element named; a failing FMU reported with its status and
//! message. Python parts: crates/cli/tests/ssp_checks.py (fmpy and libcosimpy on PATH, as
//! .ci/run installs them).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const SYSTEM: &str = "HydraulicFourBarSplit";
const ANGLES: &str = "mechanism.O.angle,mechanism.C.angle,mechanism.D.angle";

fn mbfmu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbfmu")).args(args).output().expect("the mbfmu binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs mbfmu, requires success, returns (stdout, stderr).
fn ok(args: &[&str]) -> (String, String) {
    let out = mbfmu(args);
    assert!(out.status.success(), "mbfmu {args:?} failed:\n{}{}", text(&out.stdout), text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

/// Runs mbfmu, requires a reported failure (exit status 1), returns stderr.
fn fails(args: &[&str]) -> String {
    let out = mbfmu(args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "mbfmu {args:?} should fail with 1:\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stderr)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The catalog and systems packaged once per test run.
fn root() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (out, md) = (dir.path().join("fmus"), dir.path().join("md"));
        ok(&["package", "--out", s(&out), "--model-descriptions", s(&md)]);
        dir
    })
    .path()
}

fn ssp(version: u8) -> PathBuf {
    root().join(format!("fmus/ssp/fmi{version}/{SYSTEM}.ssp"))
}

fn python(args: &[&str]) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ssp_checks.py");
    let out = match Command::new("python3").arg(script).args(args).output() {
        Ok(out) => out,
        Err(e) => panic!("cannot run python3 ({e}): install fmpy and libcosimpy in a virtual environment (.ci/run) and put its bin directory first on PATH"),
    };
    match out.status.code() {
        Some(0) => text(&out.stdout),
        Some(3) => panic!("a Python package is missing: {}", text(&out.stderr)),
        code => panic!("ssp_checks.py {args:?} failed ({code:?}):\n{}{}", text(&out.stdout), text(&out.stderr)),
    }
}

/// A CSV file as (header, rows of numbers).
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    read_csv_text(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn read_csv_text(content: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut lines = content.lines();
    let header = lines.next().expect("header").split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap_or_else(|_| panic!("not a number: {c}"))).collect())
        .collect();
    (header, rows)
}

/// Runs the system with `extra` options and returns its CSV.
fn run(system: &Path, csv: &Path, extra: &[&str]) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut args = vec!["simulate", s(system), "--csv", s(csv), "-q"];
    args.extend_from_slice(extra);
    ok(&args);
    read_csv(csv)
}

/// The archive unpacked into a directory (a system mbfmu runs as it is).
fn unpacked(version: u8) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    zip::ZipArchive::new(std::fs::File::open(ssp(version)).unwrap()).unwrap().extract(dir.path()).unwrap();
    dir
}

fn edit(path: &Path, from: &str, to: &str) {
    let content = std::fs::read_to_string(path).unwrap();
    assert!(content.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, content.replacen(from, to, 1)).unwrap();
}

/// Rewrites modelDescription.xml inside the FMU at `fmu`.
fn edit_model_description(fmu: &Path, edit: impl Fn(String) -> String) {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(fmu).unwrap()).unwrap();
    let mut entries = Vec::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).unwrap();
        let name = file.name().unwrap().to_string();
        let mut data: Vec<u8> = Vec::new();
        file.read_to_end(&mut data).unwrap();
        if name == "modelDescription.xml" {
            data = edit(String::from_utf8(data).unwrap()).into_bytes();
        }
        entries.push((name, data));
    }
    let mut out = zip::ZipWriter::new(std::fs::File::create(fmu).unwrap());
    for (name, data) in entries {
        out.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
        out.write_all(&data).unwrap();
    }
    out.finish().unwrap();
}

/// The system description the archive was written from.
fn description() -> serde_json::Value {
    serde_json::from_str(include_str!("../../package/systems/HydraulicFourBarSplit.json")).unwrap()
}

/// The start value of `name` in an FMU's modelDescription.xml.
fn start_value(fmu: &Path, name: &str) -> String {
    let mut xml = String::new();
    zip::ZipArchive::new(std::fs::File::open(fmu).unwrap())
        .unwrap()
        .by_name("modelDescription.xml")
        .unwrap()
        .read_to_string(&mut xml)
        .unwrap();
    let at = xml.find(&format!("name=\"{name}\"")).unwrap_or_else(|| panic!("{name}"));
    let rest = &xml[at..];
    let start = rest.find("start=\"").unwrap() + 7;
    rest[start..start + rest[start..].find('"').unwrap()].to_string()
}

#[test]
fn fmpy_reads_and_validates_the_packaged_ssp() {
    let spec = description();
    for version in [2, 3] {
        // read_ssd validates the SSD and each .ssv against the SSP 1.0 schemas FMPy ships.
        let json: serde_json::Value = serde_json::from_str(&python(&["structure", s(&ssp(version))])).unwrap();
        println!("FMI {version}: {json}");
        assert_eq!((json["name"].as_str(), json["version"].as_str()), (Some(SYSTEM), Some("1.0")));
        let components = json["components"].as_array().unwrap();
        let specs = spec["components"].as_array().unwrap();
        assert_eq!(components.len(), specs.len());
        let dir = unpacked(version);
        for (c, sc) in components.iter().zip(specs) {
            let model = sc["model"].as_str().unwrap();
            // The FMU inside is the one `package` writes on its own, byte for byte.
            let inside = std::fs::read(dir.path().join(format!("resources/{model}.fmu"))).unwrap();
            let alone = std::fs::read(root().join(format!("fmus/fmi{version}/{model}.fmu"))).unwrap();
            assert!(inside == alone, "FMI {version}: {model}.fmu in the SSP differs from fmus/fmi{version}");
            assert_eq!(c["name"], sc["name"]);
            assert_eq!(c["source"].as_str().unwrap(), format!("resources/{model}.fmu"));
            assert_eq!(
                c["binding_sources"][0].as_str().unwrap(),
                format!("resources/{}.ssv", sc["name"].as_str().unwrap())
            );
            let parameters = c["parameters"].as_object().unwrap();
            let names: Vec<&str> = sc["parameters"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
            assert_eq!(
                parameters.keys().map(String::as_str).collect::<std::collections::BTreeSet<_>>(),
                names.iter().copied().collect()
            );
            for name in names {
                // The parameter set carries the FMU's own start values.
                let value: f64 = parameters[name][1].as_str().unwrap().parse().unwrap();
                let start: f64 = start_value(&dir.path().join(format!("resources/{model}.fmu")), name).parse().unwrap();
                assert_eq!(value, start, "{model} {name}");
            }
            for output in sc["outputs"].as_array().unwrap() {
                assert!(
                    c["connectors"].as_array().unwrap().iter().any(|k| k[0] == *output && k[1] == "output"),
                    "{output}"
                );
            }
        }
        let connections: Vec<Vec<&str>> = json["connections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect())
            .collect();
        let expected: Vec<Vec<&str>> = spec["connections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                vec![
                    c["from"][0].as_str().unwrap(),
                    c["from"][1].as_str().unwrap(),
                    c["to"][0].as_str().unwrap(),
                    c["to"][1].as_str().unwrap(),
                ]
            })
            .collect();
        assert_eq!(connections, expected);
        // Units by their SI exponents (kg, m, s, A, K, mol, cd, rad).
        let units = &json["units"];
        assert_eq!(units["m"], serde_json::json!([0, 1, 0, 0, 0, 0, 0, 0]));
        assert_eq!(units["N"], serde_json::json!([1, 1, -2, 0, 0, 0, 0, 0]));
        assert_eq!(units["m/s"], serde_json::json!([0, 1, -1, 0, 0, 0, 0, 0]));
    }
}

#[test]
fn libcosim_runs_the_packaged_ssp_exactly_like_the_jacobi_master() {
    let dir = tempfile::tempdir().unwrap();
    let columns = "mechanism.O.angle,mechanism.cylinder.length,drive.cylinder.force,drive.V2.pressure";
    // 10 s at 1e-4 s, sampled every 0.04 s.
    let (step_ns, steps, every) = (100_000u64, 100_000u64, 400u64);
    let started = std::time::Instant::now();
    let names: Vec<&str> = columns.split(',').collect();
    let (archive, libcosim_csv) = (ssp(2), dir.path().join("libcosim.csv"));
    let mut args = vec!["libcosim", s(&archive), s(&libcosim_csv)];
    let numbers = [step_ns.to_string(), steps.to_string(), every.to_string()];
    args.extend(numbers.iter().map(String::as_str));
    args.extend(names.iter().copied());
    python(&args);
    let (_, theirs) = read_csv(&libcosim_csv);
    let libcosim_s = started.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let (header, ours) = run(
        &ssp(2),
        &dir.path().join("jacobi.csv"),
        &["--algorithm", "jacobi", "--step", "1e-4", "--outputs", columns],
    );
    let mbfmu_s = started.elapsed().as_secs_f64();
    assert_eq!(header[1..], names[..]);
    assert_eq!(theirs.len() as u64, steps / every);
    // The same FMU binaries at the same communication points: libcosim keeps time in integer
    // nanoseconds, and k * 1e5 ns / 1e9 is the double nearest k * 1e-4, which is what mbfmu's
    // decimal grid gives; both take the step as the difference of consecutive points; both
    // are Jacobi (every FMU steps from the values of the communication point); both leave
    // initialization with the inputs at the sources' outputs. So the tolerance is zero.
    let mut compared = 0;
    for row in &theirs {
        let k = (row[0] * 1e4).round() as usize;
        let mine = &ours[k];
        assert!((mine[0] - row[0]).abs() < 1e-12, "time {} vs {}", mine[0], row[0]);
        for (c, (a, b)) in mine[1..].iter().zip(&row[1..]).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "{} at t = {}: mbfmu {a:e}, libcosim {b:e}", names[c], row[0]);
        }
        compared += 1;
    }
    println!("libcosim from_ssp_file and mbfmu --algorithm jacobi: {compared} samples of 4 variables bit-identical over 10 s at 1e-4 s (libcosim {libcosim_s:.1} s with Python sampling, mbfmu {mbfmu_s:.1} s)");
    // The FMI 3.0 archive runs the same library: identical results.
    let (_, fmi3) = run(&ssp(3), &dir.path().join("fmi3.csv"), &["--step", "1e-4", "--outputs", columns]);
    assert_eq!(fmi3.len(), ours.len());
    assert!(fmi3.iter().zip(&ours).all(|(a, b)| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())));
}

/// Largest |angle difference| between a run and the monolithic reference at its sample times.
fn error_against(reference: &[Vec<f64>], run: &[Vec<f64>], h: f64) -> f64 {
    let per_sample = (0.04 / h).round() as usize;
    reference
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r[1..].iter().zip(&run[i * per_sample][1..]).map(|(a, b)| (a - b).abs()))
        .fold(0.0, f64::max)
}

#[test]
fn gauss_seidel_and_jacobi_converge_to_the_monolithic_fmu() {
    let dir = tempfile::tempdir().unwrap();
    let mono = root().join("fmus/fmi2/HydraulicFourBar.fmu");
    let (_, reference) =
        run(&mono, &dir.path().join("mono.csv"), &["--step", "0.04", "--outputs", "O.angle,C.angle,D.angle"]);
    let steps = [1e-4, 5e-5, 2.5e-5];
    println!("| communication step [s] | Jacobi: max |angle error| [rad] | order | Gauss-Seidel [rad] | order |");
    println!("|---|---|---|---|---|");
    let mut errors: Vec<[f64; 2]> = Vec::new();
    for (i, h) in steps.iter().enumerate() {
        let mut pair = [0.0; 2];
        for (a, algorithm) in ["jacobi", "gauss-seidel"].iter().enumerate() {
            let csv = dir.path().join(format!("{algorithm}.csv"));
            let (_, rows) =
                run(&ssp(2), &csv, &["--algorithm", algorithm, "--step", &h.to_string(), "--outputs", ANGLES]);
            pair[a] = error_against(&reference, &rows, *h);
        }
        let order = |a: usize| match i {
            0 => "-".to_string(),
            _ => format!("{:.2}", (errors[i - 1][a] / pair[a]).log2()),
        };
        println!("| {h:e} | {:.3e} | {} | {:.3e} | {} |", pair[0], order(0), pair[1], order(1));
        errors.push(pair);
    }
    for a in 0..2 {
        for w in errors.windows(2) {
            // Both hold the inputs over the step: first order, with margin.
            assert!((w[0][a] / w[1][a]).log2() > 0.8, "{errors:?}");
        }
    }
    // Gauss-Seidel's drive sees the mechanism's new state: smaller errors at every step.
    assert!(errors.iter().all(|[j, g]| g < j), "{errors:?}");
    assert!(errors[2][0] < 5e-4, "{errors:?}");
    // And it stays stable at a step where Jacobi diverges (the trapped oil's stiff spring).
    let csv = dir.path().join("coarse.csv");
    let jacobi = fails(&["simulate", s(&ssp(2)), "--step", "1e-3", "--csv", s(&csv), "-q"]);
    assert!(jacobi.contains("returned Discard"), "{jacobi}");
    let (_, rows) = run(&ssp(2), &csv, &["--algorithm", "gauss-seidel", "--step", "1e-3", "--outputs", ANGLES]);
    println!("| 1e-3 | diverges (Discard) | | {:.3e} | |", error_against(&reference, &rows, 1e-3));
}

#[test]
fn extrapolation_falls_back_to_zero_order_hold_without_output_derivatives() {
    // The catalog FMUs declare maxOutputDerivativeOrder="0": --extrapolate must change nothing.
    let dir = tempfile::tempdir().unwrap();
    for algorithm in ["jacobi", "gauss-seidel"] {
        let plain = dir.path().join("plain.csv");
        let extrapolated = dir.path().join("extrapolated.csv");
        ok(&["simulate", s(&ssp(2)), "--algorithm", algorithm, "--stop-time", "1", "--csv", s(&plain), "-q"]);
        let (_, stderr) = ok(&[
            "simulate",
            s(&ssp(2)),
            "--algorithm",
            algorithm,
            "--stop-time",
            "1",
            "--csv",
            s(&extrapolated),
            "--extrapolate",
        ]);
        assert!(
            stderr.contains("mechanism.cylinder.length -> drive.cylinder_length")
                && stderr.contains("held (zero-order hold"),
            "{stderr}"
        );
        assert!(!stderr.contains("extrapolated with"), "{stderr}");
        assert_eq!(std::fs::read(&plain).unwrap(), std::fs::read(&extrapolated).unwrap(), "{algorithm}");
    }
    // --algorithm and --extrapolate belong to systems.
    let fmu = root().join("fmus/fmi2/HydraulicFourBar.fmu");
    let err = fails(&["simulate", s(&fmu), "--algorithm", "jacobi"]);
    assert!(err.contains("--algorithm applies to systems (.ssp) only"), "{err}");
}

#[test]
fn declared_derivatives_are_requested_through_the_standard_functions() {
    // FMUs that declare output derivatives and input interpolation get them used. The
    // catalog's FMU library does not implement the functions yet (it declares order 0), so
    // declaring them by editing the XML makes the master's call reach the library, which
    // answers Error; the message shows the master called the standard function. When the
    // library provides derivatives, this test becomes the accuracy check of --extrapolate.
    for (version, call, how) in [
        (2, "fmi2GetRealOutputDerivatives returned Error", "the target interpolating"),
        (3, "fmi3GetOutputDerivatives returned Error", "held at the step's midpoint value"),
    ] {
        let dir = unpacked(version);
        edit_model_description(&dir.path().join("resources/HydraulicFourBarMechanism.fmu"), |xml| {
            xml.replace("maxOutputDerivativeOrder=\"0\"", "maxOutputDerivativeOrder=\"1\"")
        });
        edit_model_description(&dir.path().join("resources/HydraulicFourBarDrive.fmu"), |xml| {
            xml.replace("canInterpolateInputs=\"false\"", "canInterpolateInputs=\"true\"")
        });
        let csv = dir.path().join("out.csv");
        let err = fails(&["simulate", s(dir.path()), "--extrapolate", "--stop-time", "0.01", "--csv", s(&csv)]);
        assert!(err.contains(&format!("mechanism.cylinder.length -> drive.cylinder_length (line 63): extrapolated with the source's derivative, {how}")), "FMI {version}: {err}");
        assert!(err.contains("component 'mechanism'") && err.contains(call), "FMI {version}: {err}");
        // Without --extrapolate the same FMUs run: no derivative is asked for.
        ok(&["simulate", s(dir.path()), "--stop-time", "0.01", "--csv", s(&csv), "-q"]);
    }
    // An FMI 3.0 drive that provides intermediate update for its inputs is instantiated with
    // them as requiredIntermediateVariables (FMI 3.0 Sect. 4.2.2); the catalog library, which
    // provides none, refuses that at instantiation and says why.
    let dir = unpacked(3);
    edit_model_description(&dir.path().join("resources/HydraulicFourBarMechanism.fmu"), |xml| {
        xml.replace("maxOutputDerivativeOrder=\"0\"", "maxOutputDerivativeOrder=\"1\"")
    });
    edit_model_description(&dir.path().join("resources/HydraulicFourBarDrive.fmu"), |xml| {
        xml.replace("providesIntermediateUpdate=\"false\"", "providesIntermediateUpdate=\"true\"")
            .replace("name=\"cylinder_length\"", "name=\"cylinder_length\" intermediateUpdate=\"true\"")
    });
    let csv = dir.path().join("out.csv");
    let err = fails(&["simulate", s(dir.path()), "--extrapolate", "--stop-time", "0.01", "--csv", s(&csv)]);
    assert!(err.contains("mechanism.cylinder.length -> drive.cylinder_length (line 63): extrapolated with the source's derivative, the target interpolating"), "{err}");
    assert!(err.contains("mechanism.cylinder.rate -> drive.cylinder_velocity (line 64): extrapolated with the source's derivative, held at the step's midpoint value"), "{err}");
    assert!(err.contains("component 'drive'") && err.contains("requiredIntermediateVariables is not empty"), "{err}");
}

#[test]
fn a_failing_fmu_is_reported_with_its_status_and_message_and_the_results_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("diverged.csv");
    // 5 ms steps: the explicit coupling diverges once the valve closes (t = 2.5 s).
    let err = fails(&["simulate", s(&ssp(2)), "--step", "5e-3", "--csv", s(&csv), "-q"]);
    println!("{err}");
    assert!(err.contains("component 'mechanism' (HydraulicFourBarMechanism): the FMU returned Discard in the communication step from t = 3.09 to 3.095"), "{err}");
    assert!(err.contains("what mechanism logged:") && err.contains("Newton iteration did not converge"), "{err}");
    let (_, rows) = read_csv(&csv);
    assert_eq!(rows.last().unwrap()[0], 3.09, "the CSV ends at the last completed communication point");
    assert_eq!(rows.len(), 619);
}

#[test]
fn outputs_set_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("still.csv");
    let png = dir.path().join("plot.png");
    // Without the work cycle the valve stays closed: the boom holds still.
    let (header, rows) = run(
        &ssp(3),
        &csv,
        &[
            "--set",
            "drive.work_cycle=0",
            "--stop-time",
            "2",
            "--step",
            "1e-4",
            "--outputs",
            "mechanism.O.angle,drive.dcv.spool",
            "--plot",
            s(&png),
        ],
    );
    assert_eq!(header, ["time", "mechanism.O.angle", "drive.dcv.spool"]);
    assert!(rows.iter().all(|r| r[1].abs() < 1e-9 && r[2] == 0.0), "{:?}", rows.last());
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    // With it, the valve opens at 1 s.
    let (_, rows) =
        run(&ssp(3), &csv, &["--stop-time", "2", "--step", "1e-4", "--outputs", "mechanism.O.angle,drive.dcv.spool"]);
    assert!(rows.last().unwrap()[2] > 9.0 && rows.last().unwrap()[1].abs() > 1e-3, "{:?}", rows.last());
}

/// One bad system: the SSD edited, then run; the error must contain every fragment, and no
/// CSV may be written (refused before the first step).
fn refused(dir: &Path, edits: &[(&str, &str)], fragments: &[&str]) {
    let ssd = dir.join("SystemStructure.ssd");
    let original = std::fs::read_to_string(&ssd).unwrap();
    for (from, to) in edits {
        edit(&ssd, from, to);
    }
    let csv = dir.join("never.csv");
    let err = fails(&["simulate", s(dir), "--csv", s(&csv), "-q"]);
    for f in fragments {
        assert!(err.contains(f), "expected {f:?} in:\n{err}");
    }
    assert!(!csv.exists(), "refused before the first step");
    std::fs::write(&ssd, original).unwrap();
}

#[test]
fn bad_systems_are_refused_before_the_first_step_naming_the_element() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("never.csv");
    let missing = tmp.path().join("missing.ssp");
    assert!(fails(&["simulate", s(&missing)]).contains("missing.ssp: no such file"));
    let not_zip = tmp.path().join("text.ssp");
    std::fs::write(&not_zip, "not a zip").unwrap();
    assert!(fails(&["simulate", s(&not_zip)]).contains("is not an SSP archive (not a zip file"));
    let no_ssd = tmp.path().join("empty.ssp");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&no_ssd).unwrap());
    zip.start_file("resources/readme.txt", zip::write::SimpleFileOptions::default()).unwrap();
    zip.finish().unwrap();
    assert!(fails(&["simulate", s(&no_ssd)]).contains("it has no SystemStructure.ssd at its root"));

    let dir = unpacked(2);
    let d = dir.path();
    refused(d, &[("</ssd:SystemStructureDescription>", "")], &["SystemStructure.ssd is not well-formed XML"]);
    refused(d, &[(" version=\"1.0\" name=", " version=\"3.0\" name=")], &["SSD version 3.0 is not supported"]);
    // A component whose FMU is missing from the archive.
    refused(
        d,
        &[("source=\"resources/HydraulicFourBarDrive.fmu\"", "source=\"resources/Drive.fmu\"")],
        &["component 'drive' (line 33)", "its FMU resources/Drive.fmu is not in the system"],
    );
    // Connections naming an unknown component or connector.
    refused(
        d,
        &[(
            "endElement=\"drive\" endConnector=\"cylinder_length\"",
            "endElement=\"driv\" endConnector=\"cylinder_length\"",
        )],
        &[
            "connection mechanism.cylinder.length -> driv.cylinder_length (line 63)",
            "no component 'driv'",
            "components: mechanism, drive",
        ],
    );
    refused(
        d,
        &[("endConnector=\"cylinder_length\"", "endConnector=\"cylinder_len\"")],
        &["(line 63)", "component 'drive' has no connector 'cylinder_len'"],
    );
    // A connector that is no variable of the FMU, or of the wrong kind, type or unit.
    refused(
        d,
        &[("<ssd:Connector name=\"cylinder_velocity\"", "<ssd:Connector name=\"cylinder_speed\"")],
        &[
            "component 'drive' (line 33)",
            "connector 'cylinder_speed' (line 38)",
            "HydraulicFourBarDrive has no variable of that name",
        ],
    );
    refused(
        d,
        &[(
            "<ssd:Connector name=\"cylinder_velocity\" kind=\"input\">",
            "<ssd:Connector name=\"cylinder_velocity\" kind=\"output\">",
        )],
        &["connector 'cylinder_velocity' (line 38): kind=\"output\" but the FMU's variable is an input"],
    );
    refused(
        d,
        &[("<ssc:Real unit=\"m/s\"/>", "<ssc:Boolean/>")],
        &[
            "component 'mechanism' (line 5)",
            "connector 'cylinder.rate' (line 22): declared Boolean but the FMU's variable is Float64 (Real)",
        ],
    );
    refused(
        d,
        &[("<ssc:Real unit=\"m/s\"/>", "<ssc:Real unit=\"km/h\"/>")],
        &["connector 'cylinder.rate' (line 22): declared in unit km/h but the FMU's variable is in m/s"],
    );
    // Incompatible connections: Integer to Real, different units, an input fed twice,
    // an output into an output.
    refused(
        d,
        &[
            (
                "<ssd:Connector name=\"energy_balance\" kind=\"output\">\n            <ssc:Real unit=\"J\"/>",
                "<ssd:Connector name=\"steps\" kind=\"output\">\n            <ssc:Integer/>",
            ),
            ("startConnector=\"cylinder.length\"", "startConnector=\"steps\""),
        ],
        &[
            "connection mechanism.steps -> drive.cylinder_length (line 63)",
            "incompatible types: mechanism.steps is Int32 (Integer), drive.cylinder_length is Float64 (Real)",
        ],
    );
    refused(
        d,
        &[("startConnector=\"cylinder.length\"", "startConnector=\"O.angle\"")],
        &[
            "connection mechanism.O.angle -> drive.cylinder_length (line 63)",
            "unit mismatch: rad cannot be converted to m (different base units)",
        ],
    );
    refused(
        d,
        &[("</ssd:Connections>", "<ssd:Connection startElement=\"mechanism\" startConnector=\"cylinder.length\" endElement=\"drive\" endConnector=\"cylinder_length\"/></ssd:Connections>")],
        &["input drive.cylinder_length is connected twice: by mechanism.cylinder.length -> drive.cylinder_length (line 63) and by mechanism.cylinder.length -> drive.cylinder_length (line 66)"],
    );
    refused(
        d,
        &[(
            "endElement=\"drive\" endConnector=\"cylinder_velocity\"",
            "endElement=\"mechanism\" endConnector=\"cylinder.length\"",
        )],
        &["(line 64)", "it joins a connector of kind output to one of kind output"],
    );
    // Unsupported SSP features, named.
    refused(
        d,
        &[("<ssd:Elements>", "<ssd:Elements><ssd:System name=\"inner\"/>")],
        &["line 4", "a nested system", "not supported by mbfmu's master"],
    );
    refused(
        d,
        &[("startElement=\"drive\" startConnector=\"cylinder.force\"", "startConnector=\"cylinder.force\"")],
        &["(line 65)", "'cylinder.force' is a connector of the system itself", "not supported by mbfmu's master"],
    );
    refused(
        d,
        &[(
            "<ssd:ParameterBinding type=\"application/x-ssp-parameter-set\" source=\"resources/drive.ssv\"/>",
            "<ssd:ParameterBinding source=\"resources/drive.ssv\"><ssd:ParameterMapping/></ssd:ParameterBinding>",
        )],
        &["line 58", "a parameter mapping (.ssm) is not supported"],
    );
    // Parameter values of the wrong type, from a missing file.
    let ssv = d.join("resources/drive.ssv");
    let original = std::fs::read_to_string(&ssv).unwrap();
    edit(&ssv, "<ssv:Real value=\"1.0\"/>", "<ssv:Boolean value=\"true\"/>");
    let err = fails(&["simulate", s(d), "--csv", s(&csv)]);
    assert!(
        err.contains(
            "parameter 'work_cycle' (resources/drive.ssv line 8): a Boolean value for work_cycle (Float64 (Real))"
        ),
        "{err}"
    );
    std::fs::write(&ssv, original).unwrap();
    refused(
        d,
        &[("source=\"resources/drive.ssv\"", "source=\"resources/gone.ssv\"")],
        &["line 58", "parameter binding source resources/gone.ssv: cannot read it"],
    );
    // --set and --outputs name <component>.<variable>.
    let err = fails(&["simulate", s(d), "--set", "driv.U_ref=1", "--csv", s(&csv)]);
    assert!(
        err.contains(
            "--set driv.U_ref=1: name a component's variable as <component>.<variable>; components: mechanism, drive"
        ),
        "{err}"
    );
    let err = fails(&["simulate", s(d), "--set", "drive.U_rf=1", "--csv", s(&csv)]);
    assert!(err.contains("component 'drive': unknown variable 'U_rf' in --set") && err.contains("'U_ref'"), "{err}");
    let err = fails(&["simulate", s(d), "--outputs", "mechanism.O.angel", "--csv", s(&csv)]);
    assert!(err.contains("unknown variable 'O.angel' in --outputs"), "{err}");
    assert!(!csv.exists());
}

#[test]
fn a_declared_direct_feedthrough_loop_is_refused() {
    // The drive's force depends directly on the cylinder length (declared), and so does the
    // mechanism's length on the force: an algebraic loop. FMI 2 dependencies are 1-based
    // variable indices.
    let dir = unpacked(2);
    let (mechanism, drive) = (
        dir.path().join("resources/HydraulicFourBarMechanism.fmu"),
        dir.path().join("resources/HydraulicFourBarDrive.fmu"),
    );
    edit_model_description(&drive, |xml| {
        // cylinder.force (index 37) on cylinder_length (35) and cylinder_velocity (36).
        xml.replacen("<Unknown index=\"37\"/>", "<Unknown index=\"37\" dependencies=\"35 36\"/>", 1)
    });
    let csv = dir.path().join("never.csv");
    // The mechanism declares nothing (it may depend on everything): a note, and the run goes on.
    let (_, stderr) = ok(&["simulate", s(dir.path()), "--stop-time", "0.01", "--csv", s(&csv)]);
    assert!(
        stderr.contains("would be algebraic") && stderr.contains("; mechanism declares no such dependency"),
        "{stderr}"
    );
    // Declared feed-through on both sides: refused.
    edit_model_description(&mechanism, |xml| {
        // cylinder.length (index 19) on cylinder_force (12).
        xml.replacen("<Unknown index=\"19\"/>", "<Unknown index=\"19\" dependencies=\"12\"/>", 1)
    });
    std::fs::remove_file(&csv).unwrap();
    let err = fails(&["simulate", s(dir.path()), "--csv", s(&csv)]);
    assert!(
        err.contains("form an algebraic loop")
            && err.contains("drive.cylinder.force -> mechanism.cylinder_force (line 65)"),
        "{err}"
    );
    assert!(!csv.exists());
    // Declared absence of feed-through in the mechanism's length and rate (index 20): no loop,
    // no note.
    edit_model_description(&mechanism, |xml| {
        xml.replacen("dependencies=\"12\"", "dependencies=\"\"", 1).replacen(
            "<Unknown index=\"20\"/>",
            "<Unknown index=\"20\" dependencies=\"\"/>",
            1,
        )
    });
    let (_, stderr) = ok(&["simulate", s(dir.path()), "--stop-time", "0.01", "--csv", s(&csv)]);
    assert!(!stderr.contains("algebraic"), "{stderr}");
}
