//! The replay's scene against the descriptions it comes from: posed at the initial
//! configuration, every joint, line element and cylinder end lands on the global point the
//! description gives; moved rigidly, it moves with the bodies; a run that lacks poses, an
//! empty run or a model with nothing to draw are refused with what to add.

use mbfmu_model::catalog::CATALOG;
use mbfmu_model::format::{Description, Orientation};
use mbfmu_package::replay::{scene_json, Channel, Options, Part, ReplayError, Run};
use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};
use serde_json::Value;

fn rotation(o: &Orientation) -> Rotation3<f64> {
    match o {
        Orientation::Matrix(m) => Rotation3::from_matrix(&Matrix3::from_fn(|r, c| m[r][c])),
        Orientation::AxisAngle { axis, angle } => {
            Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(Vector3::from(*axis)), *angle)
        }
    }
}

/// A run of two samples: the initial configuration, then every body rigidly moved by (R, t)
/// from its initial pose and every beam node moved so (its orientation the identity, then R).
fn rigid_run(d: &Description, r: Rotation3<f64>, t: Vector3<f64>) -> Run {
    let mut channels = Vec::new();
    let mut push = |name: String, rest: f64, moved: f64| {
        channels.push(Channel { name, unit: String::new(), values: vec![rest, moved] });
    };
    let q = |rot: Rotation3<f64>| {
        let q = UnitQuaternion::from_rotation_matrix(&rot);
        [q.w, q.i, q.j, q.k]
    };
    for b in &d.bodies {
        let x0 = Vector3::from(b.position);
        let x = r * x0 + t;
        let (e0, e) = (q(rotation(&b.orientation)), q(r * rotation(&b.orientation)));
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            push(format!("{}.position.{axis}", b.name), x0[k], x[k]);
        }
        for k in 0..4 {
            push(format!("{}.orientation.e{k}", b.name), e0[k], e[k]);
        }
    }
    for beam in &d.beams {
        for (i, p) in beam.node_positions().iter().enumerate() {
            let x0 = Vector3::from(*p);
            let x = r * x0 + t;
            for (k, axis) in ["x", "y", "z"].iter().enumerate() {
                push(format!("{}.position.{axis}", beam.node_name(i)), x0[k], x[k]);
            }
            let (e0, e) = (q(Rotation3::identity()), q(r));
            for k in 0..4 {
                push(format!("{}.orientation.e{k}", beam.node_name(i)), e0[k], e[k]);
            }
        }
    }
    Run::new(vec![0.0, 1.0], channels).unwrap()
}

/// Global position of a point given in a frame of the scene, at sample `i`.
fn global(scene: &Value, frame: usize, local: &Value, i: usize) -> Vector3<f64> {
    let v = |x: &Value| Vector3::new(x[0].as_f64().unwrap(), x[1].as_f64().unwrap(), x[2].as_f64().unwrap());
    let f = &scene["frames"][frame];
    let p = v(local);
    if f.get("position").is_none() {
        return p;
    }
    let ch = |name: &Value| scene["channels"][name.as_str().unwrap()][i].as_f64().unwrap();
    let x = Vector3::new(ch(&f["position"][0]), ch(&f["position"][1]), ch(&f["position"][2]));
    match f.get("orientation") {
        Some(o) if !o.is_null() => {
            let q = nalgebra::Quaternion::new(ch(&o[0]), ch(&o[1]), ch(&o[2]), ch(&o[3]));
            x + UnitQuaternion::from_quaternion(q) * p
        }
        _ => x + p,
    }
}

fn scene_of(d: &Description, run: &Run) -> Value {
    let parts = [Part { description: d, prefix: String::new() }];
    serde_json::from_str(&scene_json(&d.name, "", &parts, run, &Options::default()).unwrap()).unwrap()
}

/// Every element end of the scene against the description's global points, moved by (R, t).
/// The channels are single precision, so points agree to float precision of their size.
fn check_ends(d: &Description, r: Rotation3<f64>, t: Vector3<f64>) -> usize {
    let scene = scene_of(d, &rigid_run(d, r, t));
    // Points on the ground stay; the others move with their body.
    let moved = |frame: u64, p: [f64; 3]| if frame == 0 { Vector3::from(p) } else { r * Vector3::from(p) + t };
    let tolerance = 1e-6 * (1.0 + t.norm() + mbfmu_package::replay::scene::model_size(d));
    let mut checked = 0;
    for j in scene["joints"].as_array().unwrap() {
        let name = j["name"].as_str().unwrap();
        let joint = d.joints.iter().find(|x| x.name == name).unwrap();
        let frame = j["frame"].as_u64().unwrap();
        let got = global(&scene, frame as usize, &j["point"], 1);
        let want = moved(frame, joint.point.unwrap());
        assert!((got - want).norm() < tolerance, "{}: joint {name} at {got:?}, not {want:?}", d.name);
        checked += 1;
    }
    for l in scene["links"].as_array().unwrap() {
        let name = l["name"].as_str().unwrap();
        let ends: [[f64; 3]; 2] = if let Some(f) = d.forces.iter().find(|f| f.name() == name) {
            match f.place() {
                mbfmu_model::format::ForcePlace::Line { points, .. } => [*points[0], *points[1]],
                _ => unreachable!("only line elements are links"),
            }
        } else if let Some(j) = d.joints.iter().find(|j| j.name == name) {
            [j.point1.unwrap(), j.point2.unwrap()]
        } else {
            let c = d.hydraulics.iter().flat_map(|h| &h.cylinders).find(|c| c.name == name).unwrap();
            [c.point1.unwrap(), c.point2.unwrap()]
        };
        for (end, want) in [("a", ends[0]), ("b", ends[1])] {
            let frame = l[end]["frame"].as_u64().unwrap();
            let got = global(&scene, frame as usize, &l[end]["point"], 1);
            assert!((got - moved(frame, want)).norm() < tolerance, "{}: {name}.{end} at {got:?}", d.name);
            checked += 1;
        }
    }
    checked
}

#[test]
fn element_ends_land_on_the_description_points_at_rest_and_moved_rigidly() {
    let turn = Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(Vector3::new(1.0, 2.0, -0.5)), 0.7);
    let mut checked = 0;
    for entry in CATALOG {
        let d = mbfmu_model::format::parse(entry.json).unwrap();
        if d.bodies.is_empty() && d.beams.is_empty() {
            continue;
        }
        checked += check_ends(&d, Rotation3::identity(), Vector3::zeros());
        checked += check_ends(&d, turn, Vector3::new(0.3, -1.2, 2.0));
    }
    assert!(checked > 200, "only {checked} element ends checked");
}

#[test]
fn the_extent_holds_the_moved_mechanism() {
    let entry = mbfmu_model::catalog::find("DoublePendulum").unwrap();
    let d = mbfmu_model::format::parse(entry.json).unwrap();
    let shift = Vector3::new(10.0, 0.0, 0.0);
    let scene = scene_of(&d, &rigid_run(&d, Rotation3::identity(), shift));
    let lo = &scene["extent"]["min"];
    let hi = &scene["extent"]["max"];
    for b in &d.bodies {
        let p = Vector3::from(b.position) + shift;
        for k in 0..3 {
            assert!(lo[k].as_f64().unwrap() <= p[k] && p[k] <= hi[k].as_f64().unwrap(), "{} outside", b.name);
        }
    }
}

#[test]
fn a_run_without_poses_is_refused_with_the_outputs_to_add() {
    let entry = mbfmu_model::catalog::find("SliderCrank").unwrap();
    let d = mbfmu_model::format::parse(entry.json).unwrap();
    let full = rigid_run(&d, Rotation3::identity(), Vector3::zeros());
    // Without the crank's orientation.
    let channels: Vec<Channel> =
        full.channels.iter().filter(|c| !c.name.starts_with("crank.orientation")).cloned().collect();
    let run = Run::new(full.time.clone(), channels).unwrap();
    let parts = [Part { description: &d, prefix: String::new() }];
    let err = scene_json(&d.name, "", &parts, &run, &Options::default()).unwrap_err();
    assert!(matches!(&err, ReplayError::MissingPoses { missing, .. } if missing.len() == 1), "{err:?}");
    let text = err.to_string();
    for needed in ["body 'crank'", "crank.orientation.e0", "crank.orientation.e3", "{\"animation\": [\"bodies\""] {
        assert!(text.contains(needed), "the message names {needed}: {text}");
    }
    // An output to plot that the run lacks names some it has.
    let options = Options { plots: vec!["crank.angle_typo".into()], ..Options::default() };
    let err = scene_json(&d.name, "", &parts, &full, &options).unwrap_err().to_string();
    assert!(err.contains("'crank.angle_typo'") && err.contains("'crank.position.x'"), "{err}");
}

#[test]
fn a_circuit_alone_has_nothing_to_draw() {
    let entry = mbfmu_model::catalog::find("HydraulicFourBarValveDrive").unwrap();
    let d = mbfmu_model::format::parse(entry.json).unwrap();
    let run = Run::new(vec![0.0, 1.0], Vec::new()).unwrap();
    let parts = [Part { description: &d, prefix: String::new() }];
    let err = scene_json(&d.name, "", &parts, &run, &Options::default()).unwrap_err();
    assert_eq!(err, ReplayError::NothingToDraw { model: d.name.clone() });
}

#[test]
fn components_of_a_system_are_prefixed_and_share_the_ground() {
    let entry = mbfmu_model::catalog::find("DoublePendulum").unwrap();
    let d = mbfmu_model::format::parse(entry.json).unwrap();
    let one = rigid_run(&d, Rotation3::identity(), Vector3::zeros());
    let mut channels = Vec::new();
    for prefix in ["left.", "right."] {
        channels.extend(one.channels.iter().map(|c| Channel { name: format!("{prefix}{}", c.name), ..c.clone() }));
    }
    let run = Run::new(one.time.clone(), channels).unwrap();
    let parts = [Part { description: &d, prefix: "left.".into() }, Part { description: &d, prefix: "right.".into() }];
    let scene: Value =
        serde_json::from_str(&scene_json("pair", "", &parts, &run, &Options::default()).unwrap()).unwrap();
    let frames: Vec<&str> = scene["frames"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(frames, ["ground", "left.bar1", "left.bar2", "right.bar1", "right.bar2"]);
    assert_eq!(scene["frames"][3]["position"][0], "right.bar1.position.x");
}

#[test]
fn the_page_data_cannot_end_its_script() {
    let entry = mbfmu_model::catalog::find("DoublePendulum").unwrap();
    let mut d = mbfmu_model::format::parse(entry.json).unwrap();
    d.description = "a </script> in the title".into();
    let run = rigid_run(&d, Rotation3::identity(), Vector3::zeros());
    let parts = [Part { description: &d, prefix: String::new() }];
    let scene = scene_json(&d.name, &d.description, &parts, &run, &Options::default()).unwrap();
    assert!(!scene.contains("</"), "{scene}");
    let back: Value = serde_json::from_str(&scene).unwrap();
    assert_eq!(back["title"], "a </script> in the title");
    let page = mbfmu_package::replay::page(&d.name, &scene, "/* player */");
    assert_eq!(page.matches("</script>").count(), 2, "only the two script elements end");
}
