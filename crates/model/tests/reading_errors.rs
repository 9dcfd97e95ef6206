//! Reading errors: a wrong word names its JSON path, the word, the nearest
//! valid one and all valid ones; a missing or unknown field names its path; the accepted
//! language is unchanged (old spellings, any key order).

use mbfmu_model::catalog::{find, CATALOG};
use mbfmu_model::format::{self, Formulation, Keyword, Method};
use serde_json::{json, Value};

fn model(name: &str) -> Value {
    serde_json::from_str(find(name).unwrap().json).unwrap()
}

/// The reading error of `v` after `edit`.
fn error(name: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut v = model(name);
    edit(&mut v);
    match format::parse(&v.to_string()) {
        Ok(_) => panic!("the edited {name} was accepted"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(e: &str, fragments: &[&str]) {
    for f in fragments {
        assert!(e.contains(f), "error {e:?} should mention {f:?}");
    }
}

type Edit = fn(&mut Value);

/// Every enum-like field: path, bad word, did-you-mean, the valid choices.
#[test]
fn misspelt_words_name_path_word_nearest_and_choices() {
    let cases: Vec<(&str, Edit, [&str; 4])> = vec![
        (
            "DoublePendulum",
            |v| v["joints"][1]["type"] = json!("revolut"),
            [
                "joints[1].type: ",
                "unknown joint type 'revolut'",
                "did you mean 'revolute'?",
                "Valid: revolute, spherical, translational",
            ],
        ),
        (
            "AndrewsSqueezer",
            |v| v["forces"][1]["type"] = json!("tsdaa"),
            [
                "forces[1].type: ",
                "unknown force type 'tsdaa'",
                "did you mean 'tsda'?",
                "Valid: tsda, rsda, force, torque, actuator",
            ],
        ),
        (
            "DoublePendulum",
            |v| v["interface"]["outputs"][1]["quantities"][1] = json!("veloctiy"),
            [
                "interface.outputs[1].quantities[1]: ",
                "unknown body quantity 'veloctiy'",
                "did you mean 'velocity'?",
                "Valid: position, orientation, velocity, angular_velocity, acceleration",
            ],
        ),
        (
            "DoublePendulum",
            |v| v["interface"]["outputs"][2]["quantities"][2] = json!("reaction_forces"),
            [
                "interface.outputs[2].quantities[2]: ",
                "unknown joint quantity",
                "did you mean 'reaction_force'?",
                "friction_force",
            ],
        ),
        (
            "DoublePendulum",
            |v| v["interface"]["outputs"][4]["system"][0] = json!("kinetic"),
            [
                "interface.outputs[4].system[0]: ",
                "unknown system quantity 'kinetic'",
                "did you mean 'kinetic_energy'?",
                "total_energy",
            ],
        ),
        (
            "SliderCrank",
            |v| v["interface"]["outputs"][2]["quantities"][0] = json!("efort"),
            [
                "interface.outputs[2].quantities[0]: ",
                "unknown driver quantity 'efort'",
                "did you mean 'effort'?",
                "prescribed",
            ],
        ),
        (
            "FlexibleFourBar",
            |v| v["interface"]["outputs"][0]["quantities"][0] = json!("displacment"),
            [
                "interface.outputs[0].quantities[0]: ",
                "unknown node quantity",
                "did you mean 'displacement'?",
                "section_force",
            ],
        ),
        (
            "HydraulicFourBarDrive",
            |v| v["interface"]["outputs"][0]["quantities"][0] = json!("lenght"),
            [
                "interface.outputs[0].quantities[0]: ",
                "unknown cylinder quantity 'lenght'",
                "did you mean 'length'?",
                "work",
            ],
        ),
        (
            "HydraulicFourBarDrive",
            |v| v["interface"]["outputs"][1]["quantities"][0] = json!("presure"),
            [
                "interface.outputs[1].quantities[0]: ",
                "unknown volume quantity",
                "did you mean 'pressure'?",
                "Valid: pressure",
            ],
        ),
        (
            "HydraulicFourBarDrive",
            |v| v["interface"]["outputs"][4]["quantities"][0] = json!("spoll"),
            ["interface.outputs[4].quantities[0]: ", "unknown valve quantity", "did you mean 'spool'?", "reference"],
        ),
        (
            "HydraulicFourBarMechanism",
            |v| v["interface"]["outputs"][3]["quantities"][0] = json!("forse"),
            ["interface.outputs[3].quantities[0]: ", "unknown force quantity", "did you mean 'force'?", "length"],
        ),
        (
            "DoublePendulum",
            |v| v["solver"]["method"] = json!("halfImplict"),
            [
                "solver.method: ",
                "unknown method 'halfImplict'",
                "did you mean 'halfImplicit'?",
                "esdirk324L2SA, esdirk325L2SA",
            ],
        ),
        (
            "DoublePendulum",
            |v| v["solver"]["formulation"] = json!("state_spce"),
            [
                "solver.formulation: ",
                "unknown formulation",
                "did you mean 'stateSpace'?",
                "Valid: index3, doubleStep, penalty, stateSpace",
            ],
        ),
        (
            "HydraulicFourBar",
            |v| v["solver"]["tangent"] = json!("analytical"),
            ["solver.tangent: ", "unknown tangent", "did you mean 'analytic'?", "numerical"],
        ),
        (
            "SliderCrank",
            |v| v["drivers"][0]["motion"]["type"] = json!("constant_rat"),
            ["drivers[0].motion.type: ", "unknown motion type", "did you mean 'constant_rate'?", "speed_ramps"],
        ),
        (
            "SliderCrank",
            |v| v["drivers"][0]["coordinate"] = json!("rotaton"),
            ["drivers[0].coordinate: ", "unknown joint coordinate", "did you mean 'rotation'?", "translation"],
        ),
        (
            "FlexibleFourBar",
            |v| v["beams"][0]["inertia"] = json!("consistant"),
            ["beams[0].inertia: ", "unknown beam inertia", "did you mean 'consistent'?", "Valid: lumped, consistent"],
        ),
        (
            "HydraulicFourBar",
            |v| v["hydraulics"]["valves"][0]["type"] = json!("directionl"),
            ["hydraulics.valves[0].type: ", "unknown valve type", "did you mean 'directional'?", "throttle"],
        ),
        (
            "DoublePendulum",
            |v| v["interface"]["outputs"][0] = json!({ "bdy": "bar1", "quantities": ["position"] }),
            ["interface.outputs[0]: ", "unknown field 'bdy'", "did you mean 'body'?", "body, joint, driver"],
        ),
    ];
    for (name, edit, fragments) in cases {
        assert_mentions(&error(name, edit), &fragments);
    }
}

#[test]
fn words_inside_nested_motions_keep_their_path() {
    let e = error("SliderCrank", |v| {
        v["drivers"][0]["motion"] = json!({ "type": "sum", "terms": [
            { "type": "constant_rate", "initial": 0.0, "rate": 1.0 },
            { "type": "piecewise", "segments": [{ "until": 1.0, "motion": { "type": "harmonc", "amplitude": 1, "frequency": 1 } }] }
        ]});
    });
    assert_mentions(&e, &["drivers[0].motion.terms[1].segments[0].motion.type: ", "did you mean 'harmonic'?"]);
}

#[test]
fn gravity_and_plane_are_top_level_fields() {
    let e = error("DoublePendulum", |v| v["forces"] = json!([{ "type": "gravity", "name": "g" }]));
    assert_mentions(
        &e,
        &["forces[0].type: ", "gravity is the top-level field `gravity`", "not a force", "Valid: tsda"],
    );
    let e = error("DoublePendulum", |v| v["joints"][0]["type"] = json!("plane"));
    assert_mentions(&e, &["joints[0].type: ", "`plane`, not a joint", "Valid: revolute"]);
}

#[test]
fn missing_and_unknown_fields_name_their_path() {
    let e = error("DoublePendulum", |v| drop(v["bodies"][1].as_object_mut().unwrap().remove("mass")));
    assert_mentions(&e, &["bodies[1]: missing field 'mass'"]);
    let e = error("AndrewsSqueezer", |v| drop(v["forces"][1].as_object_mut().unwrap().remove("body1")));
    assert_mentions(&e, &["forces[1]: missing field 'body1'"]);
    let e = error("AndrewsSqueezer", |v| drop(v["forces"][1].as_object_mut().unwrap().remove("type")));
    assert_mentions(&e, &["forces[1]: missing field 'type'", "force type: one of tsda"]);
    let e = error("DoublePendulum", |v| v["bodies"][0]["mas"] = json!(1.0));
    assert_mentions(&e, &["bodies[0]", "unknown field 'mas'", "did you mean 'mass'?", "Valid: name, mass, inertia"]);
    let e = error("AndrewsSqueezer", |v| v["forces"][1]["stifness"] = json!(1.0));
    assert_mentions(&e, &["forces[1]", "unknown field 'stifness'", "did you mean 'stiffness'?"]);
    let e = error("DoublePendulum", |v| v["bodys"] = json!([]));
    assert_mentions(&e, &["unknown field 'bodys'", "did you mean 'bodies'?"]);
    let e = error("DoublePendulum", |v| v["bodies"][0]["orientation"] = json!({ "axis": [1, 0, 0], "angel": 1 }));
    assert_mentions(&e, &["bodies[0].orientation", "unknown field 'angel'", "did you mean 'angle'?"]);
    let e = error("AndrewsSqueezer", |v| v["forces"][1]["stiffness"] = json!("stiff"));
    assert_mentions(&e, &["forces[1].stiffness: invalid type: string \"stiff\", expected a number", "(line 1, column"]);
}

/// Objects whose kind key is not first are buffered and reordered: same errors, same paths.
#[test]
fn key_order_does_not_change_errors() {
    let kind_last = |v: &mut Value| {
        let force = v["forces"][1].as_object_mut().unwrap();
        let kind = force.remove("type").unwrap();
        force.insert("type".into(), kind);
        force.insert("stiffness".into(), json!("stiff"));
    };
    // serde_json's map is sorted, so "type" now follows "body1"... : the buffered path.
    assert_mentions(&error("AndrewsSqueezer", kind_last), &["forces[1].stiffness: invalid type", "expected a number"]);
    let e = error("DoublePendulum", |v| {
        v["interface"]["outputs"][1] = json!({ "quantities": ["position", "veloctiy"], "body": "bar2" })
    });
    assert_mentions(
        &e,
        &["interface.outputs[1].quantities[1]: unknown body quantity 'veloctiy'", "did you mean 'velocity'?"],
    );
}

#[test]
fn wrong_shapes_and_syntax_are_explained() {
    let e = error("DoublePendulum", |v| v["bodies"][0]["inertia"] = json!([1.0, 2.0]));
    assert_mentions(&e, &["bodies[0].inertia: ", "principal moments [Jxx, Jyy, Jzz] or a 3x3 matrix"]);
    let e = error("DoublePendulum", |v| v["bodies"][0]["angular_velocity"] = json!("fast"));
    assert_mentions(&e, &["bodies[0].angular_velocity: ", "{\"body\": [wx, wy, wz]}"]);
    let e = error("DoublePendulum", |v| v["interface"]["outputs"][0] = json!({ "quantities": ["position"] }));
    assert_mentions(&e, &["interface.outputs[0]: ", "missing the key that names the output: one of body, joint"]);
    let json = find("DoublePendulum").unwrap().json;
    let e = format::parse(&json.replacen("\"bodies\": [", "\"bodies\": [,", 1)).unwrap_err().to_string();
    assert_mentions(&e, &["could not be read", "(line "]);
    let e = format::parse(&format!("{json} x")).unwrap_err().to_string();
    assert_mentions(&e, &["trailing characters", "(line "]);
}

/// Reverses the key order of every object: the buffered reading path.
fn reversed(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let items: Vec<String> =
                m.iter().rev().map(|(k, x)| format!("{}: {}", Value::String(k.clone()), reversed(x))).collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(reversed).collect::<Vec<_>>().join(", ")),
        x => x.to_string(),
    }
}

#[test]
fn every_catalog_model_reads_the_same_in_any_key_order_and_round_trips() {
    for entry in CATALOG {
        let d = format::parse(entry.json).unwrap();
        let v: Value = serde_json::from_str(entry.json).unwrap();
        assert_eq!(format::parse(&reversed(&v)).unwrap(), d, "{} with reversed keys", entry.name);
        let written = serde_json::to_string(&d).unwrap();
        assert_eq!(format::parse(&written).unwrap(), d, "{} written and read again", entry.name);
        let from_value: format::Description = serde_json::from_value(serde_json::to_value(&d).unwrap()).unwrap();
        assert_eq!(from_value, d, "{} through serde_json::Value", entry.name);
    }
}

/// One spelling everywhere: descriptions, FMU enumeration items and messages use the FMU's
/// spelling; the old snake_case spelling is still read.
#[test]
fn method_and_formulation_words_are_the_fmu_item_names() {
    for &m in Method::ALL {
        assert_eq!(m.word(), m.item_name());
        assert_eq!(serde_json::to_value(m).unwrap(), json!(m.item_name()));
        for (word, value) in Method::WORDS {
            if *value == m {
                assert_eq!(serde_json::from_value::<Method>(json!(word)).unwrap(), m);
            }
        }
    }
    for &f in Formulation::ALL {
        assert_eq!(f.name(), f.item_name());
        assert_eq!(serde_json::to_value(f).unwrap(), json!(f.item_name()));
    }
    let old = |m: &str, f: &str| {
        let mut v = model("DoublePendulum");
        v["solver"]["method"] = json!(m);
        v["solver"]["formulation"] = json!(f);
        format::parse(&v.to_string()).unwrap().solver
    };
    assert_eq!(old("half_implicit", "index3"), old("halfImplicit", "index3"));
    assert_eq!(old("trapezoidal_variable_step", "state_space"), old("trapezoidalVariableStep", "stateSpace"));
    assert_eq!(old("esdirk324l2sa", "index3").method, Method::Esdirk324L2Sa);
}

/// What each formulation can hold is checked when the description is read, quoting the row
/// of the formulation table (docs/modelling.md): a circuit in the state-space formulation or
/// with the half-implicit method, input-driven cylinders in the index-3 formulation, a fixed
/// joint or a driver in a semirecursive one; a circuit in the index-3 formulation with an
/// implicit method is read.
#[test]
fn each_formulation_refuses_what_it_cannot_hold_when_read() {
    let catalog = |name: &str| -> serde_json::Value {
        serde_json::from_str(mbfmu_model::catalog::find(name).unwrap().json).unwrap()
    };
    let refused = |d: &serde_json::Value, words: &[&str]| {
        let e = mbfmu_model::format::parse(&d.to_string()).unwrap_err().to_string();
        for w in words {
            assert!(e.contains(w), "'{w}' missing in: {e}");
        }
    };
    let mut d = catalog("HydraulicFourBar");
    d["solver"]["formulation"] = "stateSpace".into();
    d["solver"]["method"] = "sdirk4".into();
    refused(
        &d,
        &[
            "solver.formulation",
            "'stateSpace' cannot hold hydraulic circuit",
            "index3 yes, every method but halfImplicit",
            "What each formulation supports",
        ],
    );
    d["solver"]["formulation"] = "index3".into();
    d["solver"]["method"] = "halfImplicit".into();
    refused(&d, &["solver.method", "the halfImplicit method cannot hold a hydraulic circuit"]);
    d["solver"]["method"] = "bdf1".into();
    mbfmu_model::format::parse(&d.to_string()).expect("a circuit in the index-3 formulation");

    let mut d = catalog("HydraulicFourBarDrive");
    d["solver"]["formulation"] = "index3".into();
    d["solver"]["method"] = "bdf1".into();
    refused(&d, &["'index3' cannot hold cylinders driven by length and velocity inputs", "doubleStep and penalty yes"]);

    let mut d = catalog("HydraulicFourBar");
    d["joints"][1]["type"] = "fixed".into();
    refused(&d, &["joint 'C'", "a fixed joint", "'doubleStep' holds the joints revolute, translational"]);

    let mut d = catalog("SliderCrank");
    d["solver"] = serde_json::json!({"formulation": "doubleStep", "method": "trapezoidal"});
    refused(&d, &["'doubleStep' cannot hold prescribed motions (drivers)"]);
}

/// The boundary of a circuit split between FMUs: a source's pressure is a constant or an
/// input, never both or neither; inflow and pressure inputs must be declared; a circuit keeps
/// at least one state; a source output names a source.
#[test]
fn split_circuit_boundaries_are_checked() {
    let cases: [(&str, Edit, &[&str]); 5] = [
        (
            "HydraulicFourBarValveDrive",
            |v| v["hydraulics"]["sources"][2]["pressure"] = json!(5e6),
            &["hydraulic source 'port_A'", "give either pressure (a constant) or pressure_input (an FMU input)"],
        ),
        (
            "HydraulicFourBarValveDrive",
            |v| {
                v["hydraulics"]["sources"][0].as_object_mut().unwrap().remove("pressure");
            },
            &["hydraulic source 'pump'", "give either pressure"],
        ),
        (
            "HydraulicFourBarValveDrive",
            |v| v["hydraulics"]["sources"][3]["pressure_input"] = json!("p_B"),
            &["hydraulic source 'port_B'", "pressure_input 'p_B' is not declared in interface.inputs"],
        ),
        (
            "HydraulicFourBarValveDrive",
            |v| v["hydraulics"]["valves"] = json!([]),
            &["hydraulics", "a circuit needs at least one volume or directional valve"],
        ),
        (
            "HydraulicFourBarCylinderMechanism",
            |v| v["hydraulics"]["volumes"][0]["inflow_input"] = json!("port_flow"),
            &["hydraulic volume 'V1'", "inflow_input 'port_flow' is not declared in interface.inputs"],
        ),
    ];
    for (name, edit, fragments) in cases {
        assert_mentions(&error(name, edit), fragments);
    }
    // Outputs are expanded into variables after reading: an unknown source is named there.
    let mut v = model("HydraulicFourBarValveDrive");
    v["interface"]["outputs"][0]["source"] = json!("port_C");
    let d = format::parse(&v.to_string()).unwrap();
    let e = mbfmu_model::variables::interface_of(&d).unwrap_err().0;
    assert_mentions(&e, &["hydraulic source", "port_C"]);
}

/// A spring-damper or an actuator between two points: on two different bodies, at two
/// different points (else the line of action has no direction).
#[test]
fn two_point_force_elements_need_two_bodies_and_two_points() {
    let e = error("AndrewsSqueezer", |v| v["forces"][1]["point2"] = v["forces"][1]["point1"].clone());
    assert_mentions(&e, &["point1 and point2 coincide: the spring direction is undefined"]);
    let e = error("AndrewsSqueezer", |v| v["forces"][1]["body2"] = v["forces"][1]["body1"].clone());
    assert_mentions(&e, &["body1 and body2 are the same"]);
    let e = error("HydraulicFourBarMechanism", |v| v["forces"][0]["point2"] = v["forces"][0]["point1"].clone());
    assert_mentions(&e, &["point1 and point2 coincide: the force direction is undefined"]);
    let e = error("HydraulicFourBarMechanism", |v| v["forces"][0]["body2"] = json!("link7"));
    assert_mentions(&e, &["body2", "link7"]);
}

/// A circuit's mistakes name the element, the field and the valid choices: a valve on a node
/// that does not exist, a volume nothing connects to, a cylinder attached to a beam node that
/// is not there.
#[test]
fn circuit_mistakes_name_the_element_field_and_choices() {
    let base: serde_json::Value =
        serde_json::from_str(mbfmu_model::catalog::find("HydraulicFourBar").unwrap().json).unwrap();
    let refused = |d: &serde_json::Value, words: &[&str]| {
        let e = mbfmu_model::format::parse(&d.to_string()).unwrap_err().to_string();
        for w in words {
            assert!(e.contains(w), "'{w}' missing in: {e}");
        }
    };
    let mut d = base.clone();
    d["hydraulics"]["valves"][0]["tank"] = "V9".into();
    refused(
        &d,
        &["valve 'dcv'", "tank 'V9' is not a hydraulic volume or source", "volumes: V1, V2, V3; sources: pump, tank"],
    );

    let mut d = base.clone();
    d["hydraulics"]["volumes"].as_array_mut().unwrap().push(serde_json::json!(
        { "name": "V4", "hose_volume": 1e-5, "hose_bulk_modulus": 1.5e8, "initial_pressure": 1e5 }
    ));
    refused(&d, &["hydraulic volume 'V4'", "is connected to nothing"]);

    let boom = include_str!("../../../docs/examples/flexible_boom_cylinder.json");
    let mut d: serde_json::Value = serde_json::from_str(boom).unwrap();
    d["hydraulics"]["cylinders"][0]["body2"] = "boom.node40".into();
    refused(&d, &["cylinder 'lift'", "body2 'boom.node40' is not a node of beam 'boom'", "boom.node0 .. boom.node16"]);
}

/// A description with `"=..."` expressions is read through its JSON tree; its errors still
/// name the line and column of the bad value in the file, as those of a plain one do.
#[test]
fn errors_of_descriptions_with_expressions_name_line_and_column() {
    let mut v = model("DoublePendulum");
    v["interface"]["parameters"] = json!([{"name": "L", "value": 4.0, "unit": "m"}]);
    v["bodies"][0]["mass"] = json!("=19.5 * L");
    let plain = serde_json::to_string_pretty(&v).unwrap();
    format::parse(&plain).expect("the parametric description reads");
    // The line and column where `needle` starts in the text (from 1).
    let at = |text: &str, needle: &str| {
        let i = text.find(needle).unwrap_or_else(|| panic!("{needle} not in the text"));
        let line = text[..i].matches('\n').count() + 1;
        let column = text[..i].rsplit('\n').next().unwrap().chars().count() + 1;
        format!("(line {line}, column {column})")
    };
    // A wrong word read from the evaluated tree.
    let text = plain.replacen("\"revolute\"", "\"revolut\"", 1);
    let e = format::parse(&text).unwrap_err().to_string();
    assert_mentions(&e, &["unknown joint type 'revolut'", &at(&text, "\"revolut\"")]);
    // A bad expression: its own column within the expression, and where it is in the file.
    let text = plain.replacen("=19.5 * L", "=19.5 * Lx", 1);
    let e = format::parse(&text).unwrap_err().to_string();
    assert_mentions(&e, &["bodies[0].mass", "unknown name 'Lx'", &at(&text, "\"=19.5 * Lx\"")]);
    // A number of the wrong type, and an unknown field.
    let text = plain.replacen("\"gravity\": [", "\"gravity\": [\"x\", ", 1);
    let e = format::parse(&text).unwrap_err().to_string();
    assert_mentions(&e, &["gravity", "(line "]);
    let mut w = v.clone();
    w["bodies"][1]["colour"] = json!("red");
    let text = serde_json::to_string_pretty(&w).unwrap();
    let e = format::parse(&text).unwrap_err().to_string();
    assert_mentions(&e, &["bodies[1]", "colour", "(line "]);
}

/// The trapezoidal rule is refused for index-3 descriptions with the field, the reason and
/// the stable methods of the same order; the semirecursive formulations keep their own
/// trapezoidal rule, and the refused item stays an enumeration code of index-3 models.
#[test]
fn the_trapezoidal_rule_is_refused_for_index3_descriptions() {
    for name in ["DoublePendulum", "NLinkChain32", "FlexibleFourBar"] {
        let e = error(name, |v| v["solver"]["method"] = json!("trapezoidal"));
        assert_mentions(
            &e,
            &[
                "solver.method",
                "refused for the index3 formulation",
                "no numerical dissipation",
                "sign-alternating error",
                "ss2",
                "lms2",
                "bathe",
                "solver.rhoInf < 1",
            ],
        );
        // The same description with a stable method of order 2 reads.
        let mut v = model(name);
        v["solver"]["method"] = json!("ss2");
        format::parse(&v.to_string()).unwrap();
    }
    assert!(Method::Trapezoidal.refusal(Formulation::Index3).is_some());
    for f in [Formulation::SemirecursiveDoubleStep, Formulation::SemirecursivePenalty] {
        assert_eq!(Method::Trapezoidal.refusal(f), None);
    }
    for &m in Method::ALL.iter().filter(|&&m| m != Method::Trapezoidal) {
        for &f in Formulation::ALL {
            assert_eq!(m.refusal(f), None, "{m:?} in {f:?}");
        }
    }
    assert!(Formulation::Index3.methods().contains(&Method::Trapezoidal));
    format::parse(find("HydraulicFourBar").unwrap().json).unwrap();
}

/// Keeping the iteration matrix is a setting of the index-3 formulation's implicit methods:
/// another formulation refuses it, naming the field and what it applies to.
#[test]
fn keep_iteration_matrix_is_refused_outside_the_index3_formulation() {
    let e = error("HydraulicFourBar", |d| d["solver"]["keep_iteration_matrix"] = true.into());
    assert_mentions(&e, &["solver", "keep_iteration_matrix applies to the index3 formulation", "doubleStep"]);
    let mut d = model("PatuLiftBoomFlexible");
    d["solver"]["keep_iteration_matrix"] = true.into();
    format::parse(&d.to_string()).expect("index3 keeps it");
}
