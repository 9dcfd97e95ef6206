//! The JSON Schema of descriptions: the checked-in copy is current, it
//! describes what the reader accepts (every catalog model and the examples validate,
//! misspellings do not), and every field has a description and, where it has one, a unit.

use mbfmu_model::catalog::CATALOG;
use mbfmu_model::format::{self, json_schema, json_schema_text};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The compiled schema (compiling also checks it against the draft 2020-12 meta-schema).
struct Validator(boon::Schemas, boon::SchemaIndex);

fn validator() -> Validator {
    let (mut schemas, mut compiler) = (boon::Schemas::new(), boon::Compiler::new());
    compiler.add_resource("urn:mbfmu:model.schema.json", json_schema()).unwrap();
    let index = compiler.compile("urn:mbfmu:model.schema.json", &mut schemas).expect("a valid JSON Schema");
    Validator(schemas, index)
}

/// The schema's complaints about `instance` (empty if it validates).
fn violations(v: &Validator, instance: &Value) -> Vec<String> {
    match v.0.validate(instance, v.1) {
        Ok(()) => Vec::new(),
        Err(e) => vec![format!("{e}")],
    }
}

#[test]
fn checked_in_schema_is_current() {
    let path = repository().join("docs/model.schema.json");
    if std::env::var_os("MBFMU_REGENERATE").is_some() {
        std::fs::write(&path, json_schema_text()).unwrap();
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == json_schema_text(),
        "docs/model.schema.json differs from the schema the model types generate; regenerate it with \
         `cargo run --release -- schema --output docs/model.schema.json` \
         (or `MBFMU_REGENERATE=1 cargo test --release -p mbfmu-model --test suite schema::`)"
    );
}

#[test]
fn every_catalog_model_and_the_user_example_validate() {
    let v = validator();
    let user = std::fs::read_to_string(repository().join("docs/examples/pendulum.json")).unwrap();
    let mut checked = 0;
    for (name, json) in CATALOG.iter().map(|e| (e.name, e.json)).chain([("UserPendulum", user.as_str())]) {
        let instance: Value = serde_json::from_str(json).unwrap();
        assert_eq!(violations(&v, &instance), Vec::<String>::new(), "{name} does not validate");
        // The written form (new spellings) validates too.
        let written = serde_json::to_value(format::parse(json).unwrap()).unwrap();
        assert_eq!(violations(&v, &written), Vec::<String>::new(), "{name} as written does not validate");
        checked += 1;
    }
    assert!(checked > 20, "only {checked} descriptions checked");
}

#[test]
fn the_documented_examples_validate_with_their_expressions() {
    let v = validator();
    let mut checked = 0;
    for entry in std::fs::read_dir(repository().join("docs/examples")).unwrap() {
        let path = entry.unwrap().path();
        let json = std::fs::read_to_string(&path).unwrap();
        let instance: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(violations(&v, &instance), Vec::<String>::new(), "{} does not validate", path.display());
        format::parse(&json).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        checked += 1;
    }
    assert!(checked >= 1);
    // An expression must start with '=', and a named parameter's value is a plain number.
    let mut d: Value =
        serde_json::from_str(&std::fs::read_to_string(repository().join("docs/examples/slider_crank.json")).unwrap())
            .unwrap();
    d["bodies"][0]["mass"] = "2 * crank_radius".into();
    assert!(!violations(&v, &d).is_empty(), "a string without '=' is not a number");
    d["bodies"][0]["mass"] = 0.5.into();
    d["interface"]["parameters"][0]["value"] = "=0.2".into();
    assert!(!violations(&v, &d).is_empty(), "a named parameter's value is a number");
}

type Edit = fn(&mut Value);

#[test]
fn the_schema_refuses_what_the_reader_refuses() {
    let v = validator();
    let base: Value = serde_json::from_str(mbfmu_model::catalog::find("DoublePendulum").unwrap().json).unwrap();
    let edits: [(&str, Edit); 6] = [
        ("misspelt quantity", |d| d["interface"]["outputs"][0]["quantities"][1] = "veloctiy".into()),
        ("unknown joint type", |d| d["joints"][0]["type"] = "hinge".into()),
        ("unknown field", |d| d["bodies"][0]["mas"] = 1.0.into()),
        ("missing field", |d| drop(d["bodies"][0].as_object_mut().unwrap().remove("mass"))),
        ("gravity as a force", |d| d["forces"] = serde_json::json!([{ "type": "gravity" }])),
        ("unknown method", |d| d["solver"]["method"] = "halfimplicit".into()),
    ];
    for (what, edit) in edits {
        let mut d = base.clone();
        edit(&mut d);
        assert!(!violations(&v, &d).is_empty(), "the schema accepts a description with a {what}");
        assert!(format::parse(&d.to_string()).is_err(), "the reader accepts a description with a {what}");
    }
    // The `$schema` key is allowed and ignored, and the old spellings are still read.
    let mut d = base.clone();
    d["$schema"] = "../docs/model.schema.json".into();
    d["solver"]["method"] = "half_implicit".into();
    assert_eq!(violations(&v, &d), Vec::<String>::new());
    assert_eq!(format::parse(&d.to_string()).unwrap().solver, format::parse(&base.to_string()).unwrap().solver);
}

#[test]
fn animation_groups_and_shapes_validate_and_read_back_unchanged() {
    let v = validator();
    let mut d: Value = serde_json::from_str(mbfmu_model::catalog::find("DoublePendulum").unwrap().json).unwrap();
    d["bodies"][0]["shape"] = serde_json::json!({"box": {"size": [4.0, 0.05, 0.05]}});
    d["bodies"][1]["shape"] = serde_json::json!({"cylinder": {"radius": 0.03, "length": 2.0, "axis": [0.0, 0.0, 1.0]}});
    d["interface"]["outputs"] = serde_json::json!([{"animation": ["bodies"]}, {"system": ["steps"]}]);
    assert_eq!(violations(&v, &d), Vec::<String>::new());
    let read = format::parse(&d.to_string()).unwrap();
    let written = serde_json::to_value(&read).unwrap();
    assert_eq!(violations(&v, &written), Vec::<String>::new());
    assert_eq!(written["interface"]["outputs"][0], d["interface"]["outputs"][0]);
    assert_eq!(written["bodies"][1]["shape"], d["bodies"][1]["shape"]);
    assert_eq!(format::parse(&written.to_string()).unwrap(), read);
    // What the reader refuses, the schema refuses too.
    let edits: [(&str, Edit); 4] = [
        ("misspelt animation part", |d| d["interface"]["outputs"][0]["animation"][0] = "bodys".into()),
        ("unknown shape", |d| d["bodies"][0]["shape"] = serde_json::json!({"cube": {"size": [1.0, 1.0, 1.0]}})),
        ("shape field of another kind", |d| d["bodies"][0]["shape"]["box"]["radius"] = 1.0.into()),
        ("shape with two kinds", |d| d["bodies"][0]["shape"]["sphere"] = serde_json::json!({"radius": 1.0})),
    ];
    for (what, edit) in edits {
        let mut e = d.clone();
        edit(&mut e);
        assert!(!violations(&v, &e).is_empty(), "the schema accepts a description with a {what}");
        assert!(format::parse(&e.to_string()).is_err(), "the reader accepts a description with a {what}");
    }
}

/// Walks every `properties` map of the schema: (path, property schema).
fn properties(node: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    match node {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                for (k, p) in props {
                    out.push((format!("{path}.{k}"), p.clone()));
                }
            }
            for (k, v) in map {
                properties(v, &format!("{path}/{k}"), out);
            }
        }
        Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| properties(v, &format!("{path}[{i}]"), out)),
        _ => {}
    }
}

/// True for a number or an array (of arrays) of numbers, optional or not.
fn numeric(p: &Value) -> bool {
    let ty = |t: &str| p["type"] == t || p["type"].as_array().is_some_and(|a| a.iter().any(|x| x == t));
    ty("number") || (ty("array") && numeric(&p["items"]))
}

#[test]
fn every_field_has_a_description_and_every_number_a_unit() {
    let mut all = Vec::new();
    properties(&json_schema(), "", &mut all);
    assert!(all.len() > 150, "only {} properties found", all.len());
    for (path, p) in &all {
        let d = p["description"].as_str().unwrap_or_else(|| panic!("{path} has no description"));
        assert!(!d.contains("\\[") && !d.contains("[`"), "{path}: rustdoc markup left in {d:?}");
        if numeric(p) {
            // A unit in brackets: an FMI unit, [-] when dimensionless, or words ("[rad or m]").
            assert!(d.contains('[') && d.contains(']'), "{path} is a number without a unit: {d:?}");
        }
        if let Some(unit) = p.get("x-unit") {
            let unit = unit.as_str().unwrap();
            assert!(mbfmu_model::variables::unit_definition(unit).is_some(), "{path}: unknown unit {unit}");
        }
    }
    let unit_of = |suffix: &str| {
        let (_, p) = all.iter().find(|(path, _)| path.ends_with(suffix)).unwrap();
        p["x-unit"].as_str().map(str::to_string)
    };
    assert_eq!(unit_of("Body.mass").as_deref(), Some("kg"));
    assert_eq!(unit_of("Body.inertia").as_deref(), Some("kg.m2"));
    assert_eq!(unit_of(".gravity").as_deref(), Some("m/s2"));
    assert_eq!(unit_of("Volume.hose_volume").as_deref(), Some("m3"));
    assert_eq!(unit_of("Oil.bulk_modulus").as_deref(), Some("Pa"));
}
