//! A mechanism of the user's, not in the catalog, packaged with `mbfmu package --model` and
//! run by a real importer (the `fmi` crate behind `mbfmu simulate`): a compound pendulum whose
//! small-amplitude period has a closed form. Also: a wrong description is refused before
//! anything is written, and an archive whose resources/model.json does not belong to its
//! modelDescription.xml is refused at instantiation with a log line.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output};

/// A 1 m, 2 kg bar hanging from a revolute joint about the global x axis, set swinging
/// with a small angular velocity. Body x runs along the bar; the joint axis is body z.
const PENDULUM: &str = include_str!("../../../docs/examples/pendulum.json");

fn mbfmu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbfmu")).args(args).output().expect("the mbfmu binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn archive_file(fmu: &Path, name: &str) -> Option<String> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(fmu).unwrap()).unwrap();
    let mut file = zip.by_name(name).ok()?;
    let mut s = String::new();
    file.read_to_string(&mut s).unwrap();
    Some(s)
}

/// Times of the upward zero crossings of column `col` (linear interpolation).
fn upward_crossings(csv: &str, col: &str) -> Vec<f64> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let c = header.iter().position(|h| *h == col).unwrap_or_else(|| panic!("no column {col} in {header:?}"));
    let rows: Vec<(f64, f64)> = lines
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            (v[0], v[c])
        })
        .collect();
    rows.windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * (-w[0].1) / (w[1].1 - w[0].1))
        .collect()
}

#[test]
fn a_user_description_becomes_fmus_that_run_in_an_importer() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("pendulum.json");
    std::fs::write(&json, PENDULUM).unwrap();
    let out = dir.path().join("fmus");
    let run = mbfmu(&["package", "--model", json.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}{}", text(&run.stdout), text(&run.stderr));
    assert!(!text(&run.stderr).contains("warning"), "a plausible description: {}", text(&run.stderr));

    // Closed form: T = 2 pi sqrt(J_O / (m g d)), J_O = J_cm + m d^2; the amplitude
    // (5e-3 rad) lengthens it by 1 + theta0^2/16 ~ 2e-6, the method by (omega h)^2/24 ~ 6e-7.
    // The bar's own inertia J_cm = 1/6 kg m^2 stays when a parameter changes the mass.
    let (j_cm, d, g) = (1.0_f64 / 6.0, 0.5_f64, 9.81_f64);
    let period_of = |m: f64| 2.0 * std::f64::consts::PI * ((j_cm + m * d * d) / (m * g * d)).sqrt();
    let period = period_of(2.0);
    for version in [2, 3] {
        let fmu = out.join(format!("fmi{version}/UserPendulum.fmu"));
        assert_eq!(archive_file(&fmu, "resources/model.json").as_deref(), Some(PENDULUM), "fmi{version}");
        let xml = archive_file(&fmu, "modelDescription.xml").unwrap();
        assert!(xml.contains("pivot.angle") && xml.contains("bar.mass"), "fmi{version}");

        let csv = dir.path().join(format!("pendulum{version}.csv"));
        let run = mbfmu(&["simulate", fmu.to_str().unwrap(), "--csv", csv.to_str().unwrap()]);
        assert!(run.status.success(), "fmi{version}: {}{}", text(&run.stdout), text(&run.stderr));
        let crossings = upward_crossings(&std::fs::read_to_string(&csv).unwrap(), "pivot.angle");
        assert!(crossings.len() >= 2, "fmi{version}: {crossings:?}");
        let measured = crossings[1] - crossings[0];
        assert!(
            ((measured - period) / period).abs() < 2e-5,
            "fmi{version}: period {measured} s, closed form {period} s"
        );
    }

    // Parameters work as for catalog models: a heavier bar (same J_cm) swings faster.
    let csv = dir.path().join("heavy.csv");
    let fmu = out.join("fmi2/UserPendulum.fmu");
    let run = mbfmu(&["simulate", fmu.to_str().unwrap(), "--set", "bar.mass=5", "--csv", csv.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let crossings = upward_crossings(&std::fs::read_to_string(&csv).unwrap(), "pivot.angle");
    let (measured, expected) = (crossings[1] - crossings[0], period_of(5.0));
    assert!(((measured - expected) / expected).abs() < 2e-5, "period {measured} s, closed form {expected} s");
    assert!((expected - period).abs() > 0.1, "the parameter changes the period");
}

#[test]
fn a_wrong_description_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bad.json");
    std::fs::write(&json, PENDULUM.replace("\"mass\": 2.0", "\"mass\": -2.0")).unwrap();
    let out = dir.path().join("fmus");
    let run = mbfmu(&["package", "--model", json.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(err.contains("bad.json") && err.contains("bar") && err.contains("mass"), "{err}");
    assert!(!out.exists(), "nothing is written");
}

/// The pendulum written in millimetres is packaged, with a warning that names the file, the
/// field, its line and the likely mistake, and how to silence it; the silencing field does.
#[test]
fn a_description_in_millimetres_is_packaged_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("millimetres.json");
    let millimetres = PENDULUM.replace("\"position\": [0.0, 0.0, -0.5]", "\"position\": [0.0, 0.0, -500.0]").replace(
        "\"inertia\": [0.001, 0.16666666666666666, 0.16666666666666666]",
        "\"inertia\": [1000.0, 166666.7, 166666.7]",
    );
    std::fs::write(&json, &millimetres).unwrap();
    let out = dir.path().join("fmus");
    let run = mbfmu(&["package", "--model", json.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let err = text(&run.stderr);
    assert!(run.status.success(), "a warning, not an error: {err}");
    assert!(out.join("fmi3/UserPendulum.fmu").is_file());
    let position = format!(
        "warning: {}: bodies[0].position: body 'bar': position 500 m from the origin is over 100 m: is the \
         description in millimetres? The format is in SI units (m, kg, s, Pa) (line 7, column 19)",
        json.display()
    );
    assert!(err.contains(&position), "{err}");
    assert!(err.contains("bodies[0].inertia: body 'bar': the radius of gyration"), "{err}");
    assert!(err.contains("\"plausibility\": {\"ignore\": [\"lengths\", \"inertias\"]}"), "{err}");

    let silenced = millimetres.replacen('{', "{\n  \"plausibility\": { \"ignore\": [\"lengths\", \"inertias\"] },", 1);
    std::fs::write(&json, silenced).unwrap();
    let run = mbfmu(&["package", "--model", json.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(run.status.success() && !text(&run.stderr).contains("warning"), "{}", text(&run.stderr));
}

#[test]
fn a_description_that_does_not_match_the_xml_is_refused_at_instantiation() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("pendulum.json");
    std::fs::write(&json, PENDULUM).unwrap();
    let out = dir.path().join("fmus");
    assert!(mbfmu(&["package", "--model", json.to_str().unwrap(), "--out", out.to_str().unwrap()]).status.success());
    for version in [2, 3] {
        // Rewrite the archive with a different bar length in resources/model.json.
        let fmu = out.join(format!("fmi{version}/UserPendulum.fmu"));
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
        let tampered = dir.path().join(format!("tampered{version}.fmu"));
        let mut w = zip::ZipWriter::new(std::fs::File::create(&tampered).unwrap());
        for i in 0..zip.len() {
            let mut f = zip.by_index(i).unwrap();
            let name = f.name().unwrap().to_string();
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes).unwrap();
            if name == "resources/model.json" {
                bytes = PENDULUM.replace("-0.5]", "-0.6]").into_bytes();
            }
            w.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
            w.write_all(&bytes).unwrap();
        }
        w.finish().unwrap();
        let run = mbfmu(&["simulate", tampered.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(1), "fmi{version}");
        let err = text(&run.stderr);
        assert!(err.contains("do not belong together"), "fmi{version}: {err}");
    }
}

/// A flexible boom lifted by a valve-fed cylinder (the index-3 formulation with a circuit and a
/// beam) packaged from its description and run by the importer in both FMI versions: it starts
/// at rest with the piston pressure that carries the load moment, p_A = (M / a + p_B A_B) / A_A,
/// stays there until the valve opens at 0.5 s, then lifts, and both versions give the same rows.
#[test]
fn a_flexible_boom_on_a_valve_fed_cylinder_packages_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let json = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/flexible_boom_cylinder.json");
    let out = dir.path().join("fmus");
    let run = mbfmu(&["package", "--model", json, "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}{}", text(&run.stdout), text(&run.stderr));
    let g = 9.81;
    let moment = 50.0 * g * 0.5 + 20.0 * 4.0 * g * 3.0;
    let (a_p, a_r) =
        (std::f64::consts::PI / 4.0 * 0.08 * 0.08, std::f64::consts::PI / 4.0 * (0.08 * 0.08 - 0.04 * 0.04));
    let holding = (moment / 0.5 + 1e5 * a_r) / a_p;
    let mut tables = Vec::new();
    for version in [2, 3] {
        let fmu = out.join(format!("fmi{version}/FlexibleBoomCylinder.fmu"));
        let csv = dir.path().join(format!("boom{version}.csv"));
        let run = mbfmu(&["simulate", fmu.to_str().unwrap(), "--csv", csv.to_str().unwrap(), "--stop-time", "1.5"]);
        assert!(run.status.success(), "fmi{version}: {}{}", text(&run.stdout), text(&run.stderr));
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines();
        let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
        let rows: Vec<Vec<f64>> = lines.map(|l| l.split(',').map(|x| x.parse().unwrap()).collect()).collect();
        let col = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
        let at = |t: f64, name: &str| rows.iter().find(|r| (r[0] - t).abs() < 1e-9).unwrap()[col(name)];
        let p0 = at(0.0, "piston.pressure");
        assert!((p0 - holding).abs() < 1e-6 * holding, "fmi{version}: p_A {p0} Pa, closed form {holding} Pa");
        assert!(at(0.5, "pivot.angle").abs() < 1e-12, "fmi{version}: the boom moved before the valve opened");
        assert!(at(1.5, "pivot.angle") > 0.05, "fmi{version}: the boom did not lift: {}", at(1.5, "pivot.angle"));
        assert!(
            at(1.0, "piston.pressure") > 2.0 * holding,
            "fmi{version}: the pump did not pressurize the piston side"
        );
        tables.push(text);
    }
    assert_eq!(tables[0], tables[1], "FMI 2.0 and FMI 3.0 rows differ");
}

/// A Newton failure in a step of the index-3 formulation whose iteration holds the circuit's
/// pressures with the boom (a solver step far too large once the valve opens) is a Discard:
/// the FMU stays at its last successful time, which the importer is told, and the rows up to
/// it are kept.
#[test]
fn a_newton_failure_of_the_coupled_boom_and_circuit_is_a_discard_at_the_last_successful_time() {
    let dir = tempfile::tempdir().unwrap();
    let json = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/flexible_boom_cylinder.json");
    let out = dir.path().join("fmus");
    let run = mbfmu(&["package", "--model", json, "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}{}", text(&run.stdout), text(&run.stderr));
    for version in [2, 3] {
        let fmu = out.join(format!("fmi{version}/FlexibleBoomCylinder.fmu"));
        let csv = dir.path().join(format!("failed{version}.csv"));
        let run = mbfmu(&[
            "simulate",
            fmu.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
            "--stop-time",
            "1.5",
            "--step",
            "0.25",
            "--set",
            "solver.stepSize=0.25",
            "--set",
            "solver.maxIterations=3",
        ]);
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "fmi{version}: {err}");
        assert!(err.contains("discarded") && err.contains("Newton iteration did not converge"), "fmi{version}: {err}");
        assert!(
            err.contains("returned Discard") && err.contains("reached t = 0.5 (its last successful time)"),
            "{err}"
        );
        let rows = std::fs::read_to_string(&csv).unwrap();
        let last = rows.lines().last().unwrap().split(',').next().unwrap().to_string();
        assert_eq!(last, "0.5", "fmi{version}: the rows end at {last}");
    }
}
