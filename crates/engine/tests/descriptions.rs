//! Wrong model descriptions are rejected with errors that say what and where.

use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, Description};
use serde_json::{json, Value};

fn double_pendulum() -> Value {
    serde_json::from_str(mbfmu_model::catalog::find("DoublePendulum").unwrap().json).unwrap()
}

/// The error of parsing, validating, compiling and assembling `v`.
fn error_of(v: &Value) -> String {
    let text = v.to_string();
    let d: Description = match format::parse(&text) {
        Ok(d) => d,
        Err(e) => return e.to_string(),
    };
    if let Err(e) = mbfmu_model::variables::interface_of(&d) {
        return e.to_string();
    }
    match Simulation::new(&d) {
        Ok(_) => panic!("description was accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

fn assert_rejected(v: &Value, fragments: &[&str]) {
    let e = error_of(v);
    for f in fragments {
        assert!(e.contains(f), "error {e:?} should mention {f:?}");
    }
}

#[test]
fn unknown_references_are_named() {
    let mut v = double_pendulum();
    v["joints"][1]["body2"] = json!("bar3");
    assert_rejected(&v, &["joint 'elbow' (revolute)", "body2 'bar3' is not a body"]);

    let mut v = double_pendulum();
    v["interface"]["outputs"][0]["body"] = json!("arm");
    assert_rejected(&v, &["interface outputs", "body 'arm'"]);

    let mut v = double_pendulum();
    v["interface"]["parameters"][1]["path"] = json!("bodies.bar1.mas");
    assert_rejected(&v, &["interface parameter 'bar1.mass'", "'bodies.bar1' has no field 'mas'"]);

    let mut v = double_pendulum();
    v["drivers"] = json!([{ "name": "spin", "joint": "pivot", "motion": { "type": "input_rate", "input": "torque", "initial": 0.0 } }]);
    assert_rejected(&v, &["driver 'spin'", "input 'torque' is not declared"]);
}

#[test]
fn impossible_geometry_and_mass_properties_are_rejected() {
    let mut v = double_pendulum();
    v["joints"][0]["axis"] = json!([0.0, 0.0, 0.0]);
    assert_rejected(&v, &["joint 'pivot' (revolute)", "axis [0.0, 0.0, 0.0] is a zero vector"]);

    let mut v = double_pendulum();
    v["joints"][0].as_object_mut().unwrap().remove("axis");
    assert_rejected(&v, &["joint 'pivot'", "'axis' is required"]);

    let mut v = double_pendulum();
    v["bodies"][0]["mass"] = json!(-78.0);
    assert_rejected(&v, &["body 'bar1'", "mass -78 must be positive"]);

    let mut v = double_pendulum();
    v["bodies"][1]["inertia"] = json!([0.01, 0.0, 13.0]);
    assert_rejected(&v, &["body 'bar2'", "not positive definite"]);

    let mut v = double_pendulum();
    v["bodies"][1]["inertia"] = json!([0.01, 1.0, 13.0]);
    assert_rejected(&v, &["body 'bar2'", "triangle inequality"]);

    let mut v = double_pendulum();
    v["bodies"][0]["orientation"] = json!([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 1.0]]);
    assert_rejected(&v, &["body 'bar1'", "not orthonormal"]);
}

#[test]
fn syntax_errors_name_the_field() {
    let mut v = double_pendulum();
    v["joints"][0]["axsi"] = json!([1.0, 0.0, 0.0]);
    assert_rejected(&v, &["could not be read", "axsi"]);

    let mut v = double_pendulum();
    v["joints"][0]["type"] = json!("hinge");
    assert_rejected(&v, &["could not be read", "hinge"]);
}

#[test]
fn a_configuration_that_cannot_be_assembled_is_reported() {
    // One body held at two fixed points 2 m apart by two 0.3 m rods: no solution.
    let v = json!({
        "name": "Impossible",
        "bodies": [{ "name": "ball", "mass": 1.0, "inertia": [1.0, 1.0, 1.0], "position": [0.0, 0.5, 0.0] }],
        "joints": [
            { "name": "left", "type": "distance", "body1": "ground", "body2": "ball", "point1": [-1.0, 0.0, 0.0], "point2": [0.0, 0.5, 0.0], "length": 0.3 },
            { "name": "right", "type": "distance", "body1": "ground", "body2": "ball", "point1": [1.0, 0.0, 0.0], "point2": [0.0, 0.5, 0.0], "length": 0.3 }
        ],
        "experiment": { "stop": 1.0, "step": 0.01 }
    });
    assert_rejected(&v, &["cannot be assembled", "joint '"]);

    // A driver whose initial value disagrees with the configuration is assembled (and reported).
    let mut v: Value = serde_json::from_str(mbfmu_model::catalog::find("SliderCrank").unwrap().json).unwrap();
    v["drivers"][0]["motion"]["initial"] = json!(1.0);
    let d: Description = format::parse(&v.to_string()).unwrap();
    let sim = Simulation::new(&d).unwrap();
    assert!(sim.assembly.corrected() && sim.assembly.max_rotation > 0.5, "{}", sim.assembly);
    assert!(sim.assembly.to_string().contains("driver 'crank_drive'"), "{}", sim.assembly);
}

#[test]
fn redundant_constraints_are_reported() {
    // The same revolute joint twice: the constraint Jacobian is rank deficient.
    let mut v = double_pendulum();
    let mut twin = v["joints"][0].clone();
    twin["name"] = json!("pivot_twin");
    v["joints"].as_array_mut().unwrap().push(twin);
    assert_rejected(&v, &["redundant", "joint 'pivot"]);
}

#[test]
fn a_driver_on_a_joint_without_that_coordinate_is_rejected() {
    let v = {
        let mut v: Value = serde_json::from_str(mbfmu_model::catalog::find("SliderCrank").unwrap().json).unwrap();
        v["drivers"][0]["joint"] = json!("crank_pin");
        v
    };
    assert_rejected(&v, &["driver 'crank_drive'", "joint 'crank_pin'", "no coordinate that can be driven"]);
}

/// The catalog's descriptions are consistent: assembly changes nothing beyond round-off of
/// their rounded data, so their FMUs start without a warning.
#[test]
fn catalog_models_start_consistent() {
    for entry in mbfmu_model::catalog::CATALOG {
        let d: Description = format::parse(entry.json).unwrap();
        let sim = Simulation::new(&d).unwrap();
        assert!(!sim.assembly.corrected(), "{}: {}", entry.name, sim.assembly);
    }
}

/// A small beam model: a cantilever with a tip load.
fn cantilever() -> Value {
    json!({
        "name": "Cantilever",
        "bodies": [],
        "beams": [{
            "name": "beam", "points": [[0, 0, 0], [1, 0, 0]], "elements": 4,
            "section": { "axial_stiffness": 1e7, "shear_stiffness": [1e6, 1e6], "torsional_stiffness": 1e3,
                         "bending_stiffness": [1e3, 1e3], "mass_per_length": 1.0, "inertia_per_length": [2e-4, 1e-4, 1e-4] }
        }],
        "joints": [{ "name": "clamp", "type": "fixed", "body1": "ground", "body2": "beam.start", "point": [0, 0, 0] }],
        "forces": [{ "type": "force", "name": "tip", "body": "beam.end", "direction": [0, 0, -1], "value": 1.0 }],
        "interface": { "outputs": [{ "node": "beam.node2", "quantities": ["displacement", "section_moment"] }] },
        "experiment": { "stop": 1.0, "step": 0.01 },
        "solver": { "method": "bdf1", "step_size": 0.001 }
    })
}

#[test]
fn beams_with_bad_data_are_rejected_naming_the_beam_and_field() {
    assert!(format::parse(&cantilever().to_string()).is_ok());
    let mut v = cantilever();
    v["beams"][0]["section"]["bending_stiffness"][1] = json!(0.0);
    assert_rejected(&v, &["beam 'beam'", "section.bending_stiffness[1] = 0 must be a positive number"]);
    let mut v = cantilever();
    v["beams"][0]["section"]["mass_per_length"] = json!(-2.0);
    assert_rejected(&v, &["beam 'beam'", "section.mass_per_length = -2"]);
    let mut v = cantilever();
    v["beams"][0]["points"] = json!([[0, 0, 0], [0, 0, 0]]);
    assert_rejected(&v, &["beam 'beam'", "element 0 has zero length"]);
    let mut v = cantilever();
    v["beams"][0]["elements"] = json!(0);
    assert_rejected(&v, &["beam 'beam'", "elements must be at least 1"]);
    let mut v = cantilever();
    v["beams"][0]["axis2"] = json!([2, 0, 0]);
    assert_rejected(&v, &["beam 'beam'", "axis2 is parallel to element 0"]);
    let mut v = cantilever();
    v["beams"][0]["damping"] = json!(-1e-3);
    assert_rejected(&v, &["beam 'beam'", "damping"]);
}

#[test]
fn references_to_beam_nodes_that_do_not_exist_are_named() {
    let mut v = cantilever();
    v["joints"][0]["body2"] = json!("beam.node9");
    assert_rejected(
        &v,
        &["joint 'clamp'", "body2 'beam.node9' is not a node of beam 'beam'", "beam.node0 .. beam.node4"],
    );
    let mut v = cantilever();
    v["forces"][0]["body"] = json!("bean.end");
    assert_rejected(&v, &["force", "body 'bean.end' is not a body or beam node"]);
    let mut v = cantilever();
    v["interface"]["outputs"][0]["node"] = json!("beam.middle");
    assert_rejected(&v, &["interface outputs", "node 'beam.middle' is not a node of beam 'beam'"]);
    let mut v = cantilever();
    v["solver"]["formulation"] = json!("state_space");
    v["solver"]["method"] = json!("trapezoidal_variable_step");
    assert_rejected(&v, &["'stateSpace' cannot hold beams (structural nodes)", "index3 yes"]);
}
