//! Helpers of the SSP tests (ssp.rs, ssp_refused.rs, ssp_valve_split.rs, split_study.rs):
//! the mbfmu binary, the catalog and systems packaged once per test binary, unpacked and
//! edited systems, CSV files, the monolithic four-bar's angles and the errors against them.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub const SYSTEM: &str = "HydraulicFourBarSplit";
/// The four-bar split at the directional valve's ports.
pub const VALVE_SYSTEM: &str = "HydraulicFourBarValveSplit";
/// The joint angles of the split systems' mechanisms, in the monolithic FMU's order.
pub const ANGLES: &str = "mechanism.O.angle,mechanism.C.angle,mechanism.D.angle";

pub fn mbfmu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbfmu")).args(args).output().expect("the mbfmu binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs mbfmu, requires success, returns (stdout, stderr).
pub fn ok(args: &[&str]) -> (String, String) {
    let out = mbfmu(args);
    assert!(out.status.success(), "mbfmu {args:?} failed:\n{}{}", text(&out.stdout), text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

/// Runs mbfmu, requires a reported failure (exit status 1), returns stderr.
pub fn fails(args: &[&str]) -> String {
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

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The catalog and systems packaged once per test run.
pub fn root() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = crate::scratch::dir("ssp-catalog");
        let (out, md) = (dir.join("fmus"), dir.join("md"));
        ok(&["package", "--out", s(&out), "--model-descriptions", s(&md)]);
        dir
    })
}

pub fn ssp(version: u8) -> PathBuf {
    ssp_of(SYSTEM, version)
}

pub fn ssp_of(system: &str, version: u8) -> PathBuf {
    root().join(format!("fmus/ssp/fmi{version}/{system}.ssp"))
}

pub fn python(args: &[&str]) -> String {
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
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    read_csv_text(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

pub fn read_csv_text(content: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut lines = content.lines();
    let header = lines.next().expect("header").split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap_or_else(|_| panic!("not a number: {c}"))).collect())
        .collect();
    (header, rows)
}

/// Runs the system with `extra` options and returns its CSV.
pub fn run(system: &Path, csv: &Path, extra: &[&str]) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut args = vec!["simulate", s(system), "--csv", s(csv), "-q"];
    args.extend_from_slice(extra);
    ok(&args);
    read_csv(csv)
}

/// The archive unpacked into a directory (a system mbfmu runs as it is).
pub fn unpacked(version: u8) -> tempfile::TempDir {
    unpacked_of(SYSTEM, version)
}

pub fn unpacked_of(system: &str, version: u8) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    zip::ZipArchive::new(std::fs::File::open(ssp_of(system, version)).unwrap()).unwrap().extract(dir.path()).unwrap();
    dir
}

pub fn edit(path: &Path, from: &str, to: &str) {
    let content = std::fs::read_to_string(path).unwrap();
    assert!(content.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, content.replacen(from, to, 1)).unwrap();
}

/// Rewrites modelDescription.xml inside the FMU at `fmu`.
pub fn edit_model_description(fmu: &Path, edit: impl Fn(String) -> String) {
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
pub fn description() -> serde_json::Value {
    description_of(SYSTEM)
}

pub fn description_of(system: &str) -> serde_json::Value {
    let json = match system {
        SYSTEM => include_str!("../../../package/systems/HydraulicFourBarSplit.json"),
        VALVE_SYSTEM => include_str!("../../../package/systems/HydraulicFourBarValveSplit.json"),
        other => panic!("no system {other}"),
    };
    serde_json::from_str(json).unwrap()
}

/// The monolithic HydraulicFourBar's joint angles O, C, D over its 10 s work cycle every
/// 0.04 s (its default internal step, 1 ms), run once per test binary.
pub fn monolithic() -> &'static [Vec<f64>] {
    static ROWS: OnceLock<Vec<Vec<f64>>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let mono = root().join("fmus/fmi2/HydraulicFourBar.fmu");
        run(&mono, &dir.path().join("mono.csv"), &["--step", "0.04", "--outputs", "O.angle,C.angle,D.angle"]).1
    })
}

/// Largest |angle difference| over the three joints between a run at communication step `h`
/// and the monolithic reference, at the reference's sample times.
pub fn angle_error(reference: &[Vec<f64>], run: &[Vec<f64>], h: f64) -> f64 {
    let per_sample = (0.04 / h).round() as usize;
    reference
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            let row = &run[i * per_sample];
            assert!((row[0] - r[0]).abs() < 1e-9, "sample times {} and {}", row[0], r[0]);
            r[1..].iter().zip(&row[1..]).map(|(a, b)| (a - b).abs())
        })
        .fold(0.0, f64::max)
}

/// A split system's run over the whole cycle at communication step `h` with `options`: the
/// largest joint-angle error against the monolithic FMU, or the time at which it failed and
/// the master's message.
pub fn cycle_error(system: &Path, h: f64, options: &[&str]) -> Result<f64, (f64, String)> {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("run.csv");
    let step = h.to_string();
    let mut args = vec!["simulate", s(system), "--step", &step, "--outputs", ANGLES, "--csv", s(&csv), "-q"];
    args.extend_from_slice(options);
    let out = mbfmu(&args);
    let (_, rows) = read_csv(&csv);
    match out.status.code() {
        Some(0) => Ok(angle_error(monolithic(), &rows, h)),
        Some(1) => Err((rows.last().map_or(0.0, |r| r[0]), text(&out.stderr))),
        code => panic!("mbfmu {args:?} ended with {code:?}:\n{}", text(&out.stderr)),
    }
}

/// The start value of `name` in an FMU's modelDescription.xml.
pub fn start_value(fmu: &Path, name: &str) -> String {
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

/// FMPy's read_ssd (schema-validated) of both archives of `system` against its JSON: the FMUs
/// inside equal `package`'s standalone archives, parameter sets carry the FMUs' start values,
/// connectors, connections, and the `connected` units with their SI exponents.
pub fn check_structure(system: &str, connected: &[&str]) {
    let spec = description_of(system);
    for version in [2, 3] {
        // read_ssd validates the SSD and each .ssv against the SSP 1.0 schemas FMPy ships.
        let json: serde_json::Value =
            serde_json::from_str(&python(&["structure", s(&ssp_of(system, version))])).unwrap();
        println!("FMI {version}: {json}");
        assert_eq!((json["name"].as_str(), json["version"].as_str()), (Some(system), Some("1.0")));
        let components = json["components"].as_array().unwrap();
        let specs = spec["components"].as_array().unwrap();
        assert_eq!(components.len(), specs.len());
        let dir = unpacked_of(system, version);
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
        let si: &[(&str, [i64; 8])] = &[
            ("m", [0, 1, 0, 0, 0, 0, 0, 0]),
            ("N", [1, 1, -2, 0, 0, 0, 0, 0]),
            ("m/s", [0, 1, -1, 0, 0, 0, 0, 0]),
            ("Pa", [1, -1, -2, 0, 0, 0, 0, 0]),
            ("m3/s", [0, 3, -1, 0, 0, 0, 0, 0]),
        ];
        let units = json["units"].as_object().unwrap();
        for unit in connected {
            let exponents = si.iter().find(|(u, _)| u == unit).expect("a unit of the table").1;
            assert_eq!(units[*unit], serde_json::json!(exponents), "{unit}");
        }
    }
}
