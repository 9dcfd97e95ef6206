//! Plausibility warnings: no catalog model or documented example has one; a description in
//! millimetres or bar is warned of with the field named; `plausibility.ignore` silences the
//! kinds it lists, and a misspelt kind is refused with the valid ones.

use mbfmu_model::catalog::{chain, CATALOG};
use mbfmu_model::format::{self, PlausibilityCheck};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(name: &str) -> Value {
    let text = std::fs::read_to_string(repository().join("docs/examples").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The warnings of a description given as JSON, as text.
fn warnings(d: &Value) -> Vec<String> {
    let d = format::parse(&d.to_string()).unwrap_or_else(|e| panic!("{e}"));
    d.plausibility_warnings().iter().map(ToString::to_string).collect()
}

fn scale(v: &mut Value, factor: f64) {
    match v {
        Value::Number(x) => *v = json!(x.as_f64().unwrap() * factor),
        Value::Array(items) => items.iter_mut().for_each(|x| scale(x, factor)),
        _ => panic!("not a number or array: {v}"),
    }
}

#[test]
fn no_catalog_model_or_example_is_implausible() {
    let mut checked = 0;
    for entry in CATALOG {
        let d = format::parse(entry.json).unwrap();
        assert_eq!(d.plausibility_warnings(), [], "{}", entry.name);
        checked += 1;
    }
    let mut examples: Vec<_> = std::fs::read_dir(repository().join("docs/examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    examples.sort();
    for path in &examples {
        let d = format::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(d.plausibility_warnings(), [], "{}", path.display());
        checked += 1;
    }
    assert!(examples.len() >= 3 && checked > 20, "{checked} descriptions checked");
    // The long chains of the scaling studies are meant, and say so.
    let long = chain::n_link_chain(128, 1);
    assert_eq!(long.plausibility.ignore, [PlausibilityCheck::Lengths]);
    assert_eq!(long.plausibility_warnings(), []);
}

#[test]
fn a_description_in_millimetres_is_warned_of_with_the_field() {
    let mut d = example("pendulum.json");
    scale(&mut d["bodies"][0]["position"], 1000.0);
    scale(&mut d["bodies"][0]["inertia"], 1e6);
    let w = warnings(&d);
    assert_eq!(w.len(), 2, "{w:#?}");
    assert_eq!(
        w[0],
        "bodies[0].position: body 'bar': position 500 m from the origin is over 100 m: is the description in \
         millimetres? The format is in SI units (m, kg, s, Pa)"
    );
    assert!(w[1].starts_with("bodies[0].inertia: body 'bar': the radius of gyration sqrt(trace(J)/(2 m)) = 289.1 m"));
    assert!(w[1].contains("is the inertia in kg.mm2"), "{}", w[1]);

    // The hydraulic example with its cylinder in millimetres and its pressures in bar.
    let mut d = example("flexible_boom_cylinder.json");
    let cylinder = &mut d["hydraulics"]["cylinders"][0];
    scale(&mut cylinder["piston_diameter"], 1000.0);
    scale(&mut cylinder["rod_diameter"], 1000.0);
    scale(&mut d["hydraulics"]["sources"][0]["pressure"], 1e-5);
    scale(&mut d["hydraulics"]["volumes"][1]["initial_pressure"], 1e-5);
    let w = warnings(&d);
    let has = |path: &str, words: &str| w.iter().any(|x| x.starts_with(path) && x.contains(words));
    assert!(
        has("hydraulics.sources[0].pressure: source 'pump': pressure 100 Pa is under 1 kPa", "in bar or MPa"),
        "{w:#?}"
    );
    assert!(has("hydraulics.volumes[1].initial_pressure: volume 'rod'", "1 Pa is under 1 kPa"), "{w:#?}");
    assert!(
        has("hydraulics.cylinders[0].piston_diameter: cylinder 'lift': piston_diameter 80 m", "millimetres"),
        "{w:#?}"
    );
    assert!(has("hydraulics.cylinders[0].rod_diameter", "40 m is over 2 m"), "{w:#?}");
    assert_eq!(w.len(), 4, "{w:#?}");

    // Pressures far above machine scale, tiny lengths and a bulk modulus in MPa.
    let mut d = example("flexible_boom_cylinder.json");
    scale(&mut d["hydraulics"]["sources"][0]["pressure"], 1e3);
    d["hydraulics"]["oil"]["bulk_modulus"] = json!(1500.0);
    let w = warnings(&d);
    assert!(has_all(&w, "hydraulics.sources[0].pressure", "1e10 Pa is over 1 GPa"), "{w:#?}");
    assert!(has_all(&w, "hydraulics.oil.bulk_modulus", "1500 Pa is under 1 MPa"), "{w:#?}");
    assert_eq!(w.len(), 2, "{w:#?}");
    let mut d = example("pendulum.json");
    d["forces"] = json!([{ "type": "tsda", "name": "spring", "body1": "ground", "body2": "bar",
        "point1": [0.0, 0.0, 0.0], "point2": [0.0, 0.0, -0.5], "stiffness": 10.0, "rest_length": 5e-5 }]);
    let w = warnings(&d);
    assert!(has_all(&w, "forces[0].rest_length: force 'spring'", "5e-5 m is under 0.1 mm"), "{w:#?}");
    assert_eq!(w.len(), 1, "{w:#?}");
}

fn has_all(w: &[String], path: &str, words: &str) -> bool {
    w.iter().any(|x| x.starts_with(path) && x.contains(words))
}

#[test]
fn warnings_carry_the_line_and_column_of_their_field() {
    let text = std::fs::read_to_string(repository().join("docs/examples/pendulum.json"))
        .unwrap()
        .replace("\"position\": [0.0, 0.0, -0.5]", "\"position\": [0.0, 0.0, -500.0]");
    let d = format::parse(&text).unwrap();
    let w = d.plausibility_warnings();
    assert_eq!(w.len(), 1);
    let located = format::plausibility::located(&w[0], &text);
    assert!(located.starts_with("bodies[0].position: ") && located.ends_with("(line 7, column 19)"), "{located}");
}

#[test]
fn the_ignore_list_silences_the_kinds_it_names() {
    let mut d = example("pendulum.json");
    scale(&mut d["bodies"][0]["position"], 1000.0);
    scale(&mut d["bodies"][0]["inertia"], 1e6);
    d["plausibility"] = json!({ "ignore": ["lengths"] });
    let w = warnings(&d);
    assert!(w.len() == 1 && w[0].starts_with("bodies[0].inertia"), "only the inertia is still checked: {w:#?}");
    d["plausibility"] = json!({ "ignore": ["lengths", "inertias"] });
    assert_eq!(warnings(&d), Vec::<String>::new());
    // Written out with the description, and omitted when empty (the catalog's tokens stay).
    let written = serde_json::to_value(format::parse(&d.to_string()).unwrap()).unwrap();
    assert_eq!(written["plausibility"], json!({ "ignore": ["lengths", "inertias"] }));
    let plain = serde_json::to_value(format::parse(&example("pendulum.json").to_string()).unwrap()).unwrap();
    assert!(plain.get("plausibility").is_none());

    d["plausibility"] = json!({ "ignore": ["length"] });
    let e = format::parse(&d.to_string()).unwrap_err().to_string();
    assert!(
        e.contains("plausibility.ignore[0]: unknown plausibility check 'length'; did you mean 'lengths'? Valid: lengths, inertias, diameters, pressures"),
        "{e}"
    );
    d["plausibility"] = json!({ "ignored": ["lengths"] });
    let e = format::parse(&d.to_string()).unwrap_err().to_string();
    assert!(e.contains("plausibility.ignored: unknown field 'ignored'; did you mean 'ignore'?"), "{e}");
}
