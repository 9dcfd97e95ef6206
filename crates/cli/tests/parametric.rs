//! The parametric example of docs/modelling.md (docs/examples/slider_crank.json): a planar
//! slider-crank whose crank radius, rod length, speed and start angle are FMU parameters that
//! the points are written in terms of. Packaged with `mbfmu package --model` and run by a real
//! importer (the `fmi` crate behind `mbfmu simulate`) for several parameter sets; the slider
//! position must follow the closed form x(t) = r cos(a + w t) + sqrt(l^2 - r^2 sin^2(a + w t)).

use std::path::Path;
use std::process::{Command, Output};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/slider_crank.json");

fn mbfmu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbfmu")).args(args).output().expect("the mbfmu binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn package(json: &Path, out: &Path) -> Output {
    mbfmu(&["package", "--model", json.to_str().unwrap(), "--out", out.to_str().unwrap()])
}

#[test]
fn link_lengths_are_fmu_parameters_and_the_geometry_follows_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fmus");
    let run = package(Path::new(EXAMPLE), &out);
    assert!(run.status.success(), "{}{}", text(&run.stdout), text(&run.stderr));
    // (r, l, revolutions per second, start angle); the first is the file's own values.
    let cases = [(0.1, 0.4, 1.0, 0.0), (0.15, 0.5, 0.5, 0.0), (0.1, 0.3, 1.0, 1.0), (0.05, 0.12, 2.0, -2.5)];
    for version in [2, 3] {
        let fmu = out.join(format!("fmi{version}/ParametricSliderCrank.fmu"));
        for (k, &(r, l, speed, a)) in cases.iter().enumerate() {
            let csv = dir.path().join(format!("run{version}_{k}.csv"));
            let sets = [
                format!("crank_radius={r}"),
                format!("rod_length={l}"),
                format!("crank_speed={speed}"),
                format!("start_angle={a}"),
            ];
            let mut args = vec!["simulate", fmu.to_str().unwrap(), "-q", "--outputs", "slide.position"];
            args.extend(["--csv", csv.to_str().unwrap()]);
            for s in &sets {
                args.extend(["--set", s.as_str()]);
            }
            let run = mbfmu(&args);
            assert!(run.status.success(), "{sets:?}: {}", text(&run.stderr));
            let w = 2.0 * std::f64::consts::PI * speed;
            let mut worst = 0.0_f64;
            for line in std::fs::read_to_string(&csv).unwrap().lines().skip(1) {
                let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
                let th = a + w * v[0];
                let exact = r * th.cos() + (l * l - (r * th.sin()).powi(2)).sqrt();
                worst = worst.max((v[1] - exact).abs());
            }
            // The crank is prescribed, so the slider follows the constraints exactly: the
            // error is the Newton tolerance's (1e-10), not the integrator's.
            assert!(worst < 1e-9, "FMI {version}, {sets:?}: slider off the closed form by {worst:e} m");
        }
    }
}

#[test]
fn expression_mistakes_are_refused_with_their_location() {
    let dir = tempfile::tempdir().unwrap();
    let example = std::fs::read_to_string(EXAMPLE).unwrap();
    let refused = |from: &str, to: &str| {
        assert!(example.contains(from), "{from}");
        let json = dir.path().join("bad.json");
        std::fs::write(&json, example.replacen(from, to, 1)).unwrap();
        let run = package(&json, &dir.path().join("fmus"));
        assert_eq!(run.status.code(), Some(1));
        assert!(!dir.path().join("fmus").exists(), "nothing is written");
        text(&run.stderr)
    };
    let e = refused("\"=crank_radius / 2\"", "\"=crank_radus / 2\"");
    assert!(e.contains("bodies[0].position[0]") && e.contains("did you mean 'crank_radius'?"), "{e}");
    let e = refused("\"=crank_radius + rod_length / 2\"", "\"=crank_radius + (rod_length / 2\"");
    assert!(e.contains("bodies[1].position[0]") && e.contains("expected ')'"), "{e}");
    let e = refused("\"path\": \"bodies.slider.mass\"", "\"path\": \"bodies.rod.position.0\"");
    assert!(e.contains("expression of named parameters"), "{e}");
    let e = refused(
        "\"name\": \"rod_length\", \"value\": 0.4",
        "\"name\": \"rod_length\", \"value\": 0.4, \"path\": \"gravity.1\"",
    );
    assert!(e.contains("either \"path\"") && e.contains("or \"value\""), "{e}");
}
