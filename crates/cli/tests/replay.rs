//! The 3D replay through the command line: `simulate --animate` and `animate RESULTS.csv`
//! write the same scene from the same run, its poses are the run's outputs, bad inputs are
//! refused with what is missing; and, with the player installed, headless Chromium shows a
//! rigid, a beam and a hydraulic model moving where they move and nowhere else.
//!
//! The fast tests stand in a one-line player (MBFMU_REPLAY_BUNDLE) and read the page's data;
//! the browser test needs the player bundle (scripts/install-replay.sh), Node.js and Chromium.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PLAYER: &str = "/* stand-in player */";

fn mbfmu(dir: &Path, bundle: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mbfmu"));
    command.current_dir(dir).args(args);
    match bundle {
        Some(b) => command.env("MBFMU_REPLAY_BUNDLE", b),
        None => command.env_remove("MBFMU_REPLAY_BUNDLE"),
    };
    command.output().expect("the mbfmu binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A directory with the stand-in player.
fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let player = dir.path().join("player.js");
    std::fs::write(&player, PLAYER).unwrap();
    (dir, player)
}

fn ok(dir: &Path, bundle: &Path, args: &[&str]) -> String {
    let out = mbfmu(dir, Some(bundle), args);
    assert!(out.status.success(), "mbfmu {args:?} failed:\n{}{}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}

fn fails(dir: &Path, bundle: Option<&Path>, args: &[&str]) -> String {
    let out = mbfmu(dir, bundle, args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "mbfmu {args:?} should fail with 1:\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stderr)
}

/// The scene a page holds.
fn scene(page: &Path) -> Value {
    let html = std::fs::read_to_string(page).unwrap();
    let start = html.find("id=\"mbfmu-replay-data\">").expect("the data script") + "id=\"mbfmu-replay-data\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    assert!(html.contains(&format!("<script>{PLAYER}</script>")), "the player is embedded");
    serde_json::from_str(&html[start..end]).unwrap()
}

/// The CSV's rows as numbers, by column name.
fn csv_columns(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    let rows: Vec<Vec<f64>> = lines.map(|l| l.split(',').map(|x| x.parse().unwrap()).collect()).collect();
    (header, rows)
}

#[test]
fn simulate_and_animate_write_the_scene_of_the_run() {
    let (dir, player) = setup();
    let d = dir.path();
    let out = ok(d, &player, &["simulate", "DoublePendulum", "--animate", "run.html", "--csv", "run.csv"]);
    assert!(out.contains("wrote run.html (3D replay, 600 samples)"), "{out}");
    let s = scene(&d.join("run.html"));
    let frames: Vec<&str> = s["frames"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(frames, ["ground", "bar1", "bar2"]);
    let time = s["time"].as_array().unwrap();
    assert_eq!(time.len(), 600, "801 communication points thinned to 600 samples");
    assert_eq!((time[0].as_f64(), time[599].as_f64()), (Some(0.0), Some(8.0)), "both ends kept");
    // The poses are the run's outputs, at the kept samples (single precision).
    let (header, rows) = csv_columns(&d.join("run.csv"));
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (k, t) in time.iter().enumerate().step_by(37) {
        let t = t.as_f64().unwrap();
        let row = rows.iter().find(|r| (r[0] - t).abs() < 1e-12).expect("a kept sample is a row of the CSV");
        for name in ["bar2.position.z", "bar1.orientation.e1"] {
            let got = s["channels"][name][k].as_f64().unwrap();
            assert!((got - row[column(name)]).abs() < 1e-6 * (1.0 + got.abs()), "{name} at t = {t}");
        }
    }
    assert_eq!(s["units"]["bar2.position.z"], "m");
    // Both joints, on the ground and on bar 1, with their axes in the frame's coordinates.
    let joints = s["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 2);
    assert_eq!((joints[0]["frame"].as_u64(), joints[1]["frame"].as_u64()), (Some(0), Some(1)));
    // The same run read back from its CSV gives the same scene.
    ok(d, &player, &["animate", "run.csv", "--model", "DoublePendulum", "-o", "again.html"]);
    assert_eq!(scene(&d.join("again.html")), s);
    // Fewer samples on request, a chosen plot, a magnification.
    ok(
        d,
        &player,
        &[
            "animate",
            "run.csv",
            "--model",
            "DoublePendulum",
            "--max-frames",
            "50",
            "--plot-vars",
            "bar2.position.z",
            "--magnification",
            "10",
        ],
    );
    let small = scene(&d.join("run.html"));
    assert_eq!(small["time"].as_array().unwrap().len(), 50);
    assert_eq!(small["plots"], serde_json::json!(["bar2.position.z"]));
    assert_eq!(small["magnification"], 10.0);
}

#[test]
fn hydraulic_pressures_and_valves_ride_along() {
    let (dir, player) = setup();
    let d = dir.path();
    ok(d, &player, &["simulate", "HydraulicFourBar", "--animate", "run.html", "--stop-time", "3"]);
    let s = scene(&d.join("run.html"));
    let cylinder = s["links"].as_array().unwrap().iter().find(|l| l["type"] == "cylinder").expect("the cylinder");
    let pressures = cylinder["pressures"].as_array().unwrap();
    assert!(pressures.iter().all(|p| p.as_str().is_some_and(|p| p.ends_with(".pressure"))), "{pressures:?}");
    let [lo, hi] = [0, 1].map(|k| s["pressure_range"][k].as_f64().unwrap());
    assert!(hi > lo + 1e5, "the chambers' pressures vary over the lift: {lo} .. {hi} Pa");
    let gauges: Vec<&str> = s["gauges"].as_array().unwrap().iter().map(|g| g["channel"].as_str().unwrap()).collect();
    assert!(gauges.iter().any(|g| g.ends_with(".spool")), "{gauges:?}");
}

#[test]
fn a_system_replays_its_components_side_by_side() {
    let (dir, player) = setup();
    let d = dir.path();
    ok(d, &player, &["package", "--out", "fmus"]);
    ok(
        d,
        &player,
        &["simulate", "fmus/ssp/fmi3/HydraulicFourBarValveSplit.ssp", "--animate", "system.html", "--stop-time", "2"],
    );
    let s = scene(&d.join("system.html"));
    let frames: Vec<&str> = s["frames"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert!(frames.len() > 1 && frames[1..].iter().all(|f| f.contains('.')), "component prefixes: {frames:?}");
    // The documentation of every catalog FMU with a mechanism carries its replay beside its page.
    let archive = std::fs::File::open(d.join("fmus/fmi3/SliderCrank.fmu")).unwrap();
    let mut zip = zip::ZipArchive::new(archive).unwrap();
    assert!(zip.by_name("documentation/SliderCrank.replay.html").is_ok());
    let mut page = String::new();
    std::io::Read::read_to_string(&mut zip.by_name("documentation/index.html").unwrap(), &mut page).unwrap();
    assert!(page.contains("<iframe class=\"replay\" src=\"SliderCrank.replay.html\""), "the page shows it");
}

#[test]
fn bad_inputs_name_what_is_missing() {
    let (dir, player) = setup();
    let d = dir.path();
    ok(d, &player, &["simulate", "DoublePendulum", "--csv", "dp.csv", "--stop-time", "0.5"]);
    ok(d, &player, &["simulate", "SliderCrank", "--csv", "sc.csv", "--stop-time", "0.5"]);

    // Outputs that do not pose the model: refused before the run, naming the outputs and the group.
    let err =
        fails(d, Some(&player), &["simulate", "DoublePendulum", "--outputs", "bar1.position.x", "--animate", "x.html"]);
    for needed in ["bar1.orientation.e0", "bar2", "{\"animation\": [\"bodies\", \"beams\"]}"] {
        assert!(err.contains(needed), "names {needed}: {err}");
    }
    assert!(!d.join("DoublePendulum.csv").exists(), "no run was made");

    // A CSV of another model, a wrong time column, an empty run, missing columns.
    let err = fails(d, Some(&player), &["animate", "sc.csv", "--model", "DoublePendulum"]);
    assert!(
        err.contains("not variables of DoublePendulum: is this the model") && err.contains("'slide.position'"),
        "{err}"
    );
    let (header, rows) = csv_columns(&d.join("dp.csv"));
    let write = |name: &str, header: &[String], rows: &[Vec<f64>]| {
        let mut s = header.join(",") + "\n";
        for r in rows {
            s += &(r.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",") + "\n");
        }
        std::fs::write(d.join(name), s).unwrap();
    };
    let mut renamed = header.clone();
    renamed[0] = "t".into();
    write("t.csv", &renamed, &rows);
    let err = fails(d, Some(&player), &["animate", "t.csv", "--model", "DoublePendulum"]);
    assert!(err.contains("the first column is 't', not the time 'time'"), "{err}");
    write("empty.csv", &header, &[]);
    let err = fails(d, Some(&player), &["animate", "empty.csv", "--model", "DoublePendulum"]);
    assert!(err.contains("0 samples of time"), "{err}");
    let keep: Vec<usize> = (0..header.len()).filter(|&k| !header[k].starts_with("bar2.orientation")).collect();
    let pick = |r: &Vec<f64>| keep.iter().map(|&k| r[k]).collect::<Vec<f64>>();
    write(
        "partial.csv",
        &keep.iter().map(|&k| header[k].clone()).collect::<Vec<_>>(),
        &rows.iter().map(pick).collect::<Vec<_>>(),
    );
    let err = fails(d, Some(&player), &["animate", "partial.csv", "--model", "DoublePendulum"]);
    assert!(err.contains("body 'bar2' (bar2.orientation.e0"), "{err}");
    assert!(!d.join("partial.html").exists(), "no page of a run that cannot be posed");

    // A circuit without a mechanism has nothing to draw.
    let err = fails(d, Some(&player), &["simulate", "HydraulicFourBarValveDrive", "--animate", "x.html"]);
    assert!(err.contains("nothing of it moves in space"), "{err}");

    // A model whose description declares no poses.
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/pendulum.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(example).unwrap()).unwrap();
    assert!(!json.to_string().contains("animation"), "the example declares no animation group");
    std::fs::write(d.join("pendulum.json"), json.to_string()).unwrap();
    ok(d, &player, &["package", "--model", "pendulum.json", "--out", "user"]);
    let err = fails(d, Some(&player), &["simulate", "user/fmi3/UserPendulum.fmu", "--animate", "x.html"]);
    assert!(err.contains("body 'bar'") && err.contains("interface.outputs"), "{err}");

    // Without the player: what to install, before the run.
    let err = fails(
        d,
        Some(&d.join("nowhere.js")),
        &["simulate", "DoublePendulum", "--animate", "x.html", "--csv", "no.csv"],
    );
    assert!(err.contains("scripts/install-replay.sh") && err.contains("nowhere.js"), "{err}");
    assert!(!d.join("no.csv").exists(), "no run was made");

    // --plot-vars alone chooses nothing.
    let err = fails(d, Some(&player), &["simulate", "DoublePendulum", "--plot-vars", "bar1.position.x"]);
    assert!(err.contains("--plot or --animate"), "{err}");
}

/// Headless Chromium through the player's harness (crates/package/replay/test/browse.mjs).
mod browser {
    use super::*;

    fn repository() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
    }

    struct Frame {
        width: usize,
        height: usize,
        rgba: Vec<u8>,
    }

    fn read_png(path: &Path) -> Frame {
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        let channels = info.color_type.samples();
        let rgba = buffer[..info.buffer_size()]
            .chunks(channels)
            .flat_map(|p| [p[0], p[1], p[2], if channels == 4 { p[3] } else { 255 }])
            .collect();
        Frame { width: info.width as usize, height: info.height as usize, rgba }
    }

    impl Frame {
        fn pixel(&self, x: usize, y: usize) -> [u8; 4] {
            let k = 4 * (y * self.width + x);
            [self.rgba[k], self.rgba[k + 1], self.rgba[k + 2], self.rgba[k + 3]]
        }
    }

    fn differs(a: [u8; 4], b: [u8; 4], by: u8) -> bool {
        (0..3).any(|k| a[k].abs_diff(b[k]) > by)
    }

    type Boxes = Vec<(String, String, [f64; 4])>;

    fn boxes(frame: &Value) -> Boxes {
        frame["boxes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["visible"].as_bool() != Some(false))
            .map(|b| {
                let r = &b["box"];
                (
                    b["name"].as_str().unwrap().to_string(),
                    b["kind"].as_str().unwrap().to_string(),
                    [0, 1, 2, 3].map(|k| r[k].as_f64().unwrap()),
                )
            })
            .collect()
    }

    fn inside(x: usize, y: usize, b: &[f64; 4], margin: f64) -> bool {
        let (x, y) = (x as f64 + 0.5, y as f64 + 0.5);
        x >= b[0] - margin && x <= b[2] + margin && y >= b[1] - margin && y <= b[3] + margin
    }

    /// Replays `model` at two times in Chromium and checks the two screenshots; returns them.
    fn check(model: &str, times: [f64; 2], extra: &[&str]) -> (PathBuf, PathBuf) {
        let root = repository();
        let bundle = root.join("crates/package/replay/dist/replay.js");
        assert!(
            bundle.is_file(),
            "the replay player is not built at {}: run scripts/install-replay.sh (the full tier does)",
            bundle.display()
        );
        let dir = crate::scratch::dir(&format!("replay-{model}"));
        let mut args = vec!["simulate", model, "--animate", "run.html", "-q"];
        args.extend(extra);
        ok(&dir, &bundle, &args);
        let times = format!("{},{}", times[0], times[1]);
        let out = Command::new("node")
            .arg(root.join("crates/package/replay/test/browse.mjs"))
            .args(["--page", dir.join("run.html").to_str().unwrap(), "--times", &times, "--out"])
            .arg(dir.join("shots"))
            .output()
            .expect("Node.js runs the browser harness (apt-get install nodejs; the full tier has it)");
        assert!(out.status.success(), "{model}: the harness failed:\n{}{}", text(&out.stdout), text(&out.stderr));
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("shots/report.json")).unwrap()).unwrap();
        for errors in ["console_errors", "page_errors", "replay_errors"] {
            assert_eq!(report[errors], serde_json::json!([]), "{model}: {errors}");
        }
        let shots = [0, 1].map(|k| dir.join("shots").join(report["frames"][k]["screenshot"].as_str().unwrap()));
        let [a, b] = [read_png(&shots[0]), read_png(&shots[1])];
        assert_eq!((a.width, a.height), (b.width, b.height));
        let [boxes_a, boxes_b] = [0, 1].map(|k| boxes(&report["frames"][k]));

        // Not blank: the bodies' and beams' boxes hold drawn pixels, unlike the background.
        let background = a.pixel(2, 2);
        let drawn = |f: &Frame, bs: &Boxes| {
            let mut n = 0;
            for y in 0..f.height {
                for x in 0..f.width {
                    let on = bs.iter().any(|(_, kind, b)| (kind == "body" || kind == "beam") && inside(x, y, b, 0.0));
                    if on && differs(f.pixel(x, y), background, 40) {
                        n += 1;
                    }
                }
            }
            n
        };
        for (f, bs) in [(&a, &boxes_a), (&b, &boxes_b)] {
            let n = drawn(f, bs);
            assert!(n > 300, "{model}: only {n} drawn pixels on the bodies and beams");
        }

        // The frames differ where the mechanism moved and nowhere else: every changed pixel lies
        // in the box (at either time, 3 px of edge) of an element that moved.
        let moved: Vec<[f64; 4]> = boxes_a
            .iter()
            .flat_map(|(name, kind, ba)| {
                let bb = boxes_b.iter().find(|(n, k, _)| n == name && k == kind).map(|x| x.2);
                match bb {
                    Some(bb) if (0..4).all(|k| (bb[k] - ba[k]).abs() < 0.5) => vec![],
                    Some(bb) => vec![*ba, bb],
                    None => vec![*ba],
                }
            })
            .chain(boxes_b.iter().filter(|(n, k, _)| !boxes_a.iter().any(|(m, j, _)| m == n && j == k)).map(|x| x.2))
            .collect();
        assert!(!moved.is_empty(), "{model}: nothing moved between the two times");
        let (mut changed, mut outside) = (0, 0);
        for y in 0..a.height {
            for x in 0..a.width {
                if differs(a.pixel(x, y), b.pixel(x, y), 24) {
                    changed += 1;
                    if !moved.iter().any(|m| inside(x, y, m, 3.0)) {
                        outside += 1;
                    }
                }
            }
        }
        assert!(changed > 200, "{model}: only {changed} pixels changed between the frames");
        assert!(outside == 0, "{model}: {outside} of {changed} changed pixels lie outside every moving element");
        (shots[0].clone(), shots[1].clone())
    }

    #[test]
    #[ignore = "external: Chromium, Node.js and the replay player (scripts/install-replay.sh; the full tier installs them)"]
    fn a_rigid_mechanism_moves_in_the_browser() {
        check("DoublePendulum", [1.0, 3.0], &[]);
    }

    #[test]
    #[ignore = "external: Chromium, Node.js and the replay player (scripts/install-replay.sh; the full tier installs them)"]
    fn a_beam_model_moves_in_the_browser() {
        check("FlexibleFourBar", [0.2, 0.7], &["--magnification", "20"]);
    }

    #[test]
    #[ignore = "external: Chromium, Node.js and the replay player (scripts/install-replay.sh; the full tier installs them)"]
    fn a_hydraulic_machine_moves_in_the_browser() {
        check("PatuLiftBoom", [1.0, 6.0], &[]);
    }
}
