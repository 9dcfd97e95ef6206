//! Helpers of the SSP tests (ssp.rs, ssp_refused.rs): the mbfmu binary, the catalog and
//! systems packaged once per test binary, unpacked and edited systems, CSV files.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub const SYSTEM: &str = "HydraulicFourBarSplit";
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
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (out, md) = (dir.path().join("fmus"), dir.path().join("md"));
        ok(&["package", "--out", s(&out), "--model-descriptions", s(&md)]);
        dir
    })
    .path()
}

pub fn ssp(version: u8) -> PathBuf {
    root().join(format!("fmus/ssp/fmi{version}/{SYSTEM}.ssp"))
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
    let dir = tempfile::tempdir().unwrap();
    zip::ZipArchive::new(std::fs::File::open(ssp(version)).unwrap()).unwrap().extract(dir.path()).unwrap();
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
    serde_json::from_str(include_str!("../../../package/systems/HydraulicFourBarSplit.json")).unwrap()
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
