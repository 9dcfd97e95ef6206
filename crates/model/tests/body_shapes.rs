//! The optional visual shape of a body (`"shape": {"box": {"size": [a, b, c]}}`, a cylinder
//! or a sphere): read and written back unchanged, absent when not given, no effect on the
//! variables, and the refusals of sizes that are not positive and finite, a zero axis, an
//! unknown kind and an unknown field, each naming the body and the field.

use mbfmu_model::catalog::find;
use mbfmu_model::format::{self, Shape};
use mbfmu_model::variables::interface_of;
use serde_json::{json, Value};

fn pendulum() -> Value {
    serde_json::from_str(find("DoublePendulum").unwrap().json).unwrap()
}

/// DoublePendulum with `shape` on bar1, read, or its error.
fn with_shape(shape: Value) -> Result<format::Description, String> {
    let mut v = pendulum();
    v["bodies"][0]["shape"] = shape;
    format::parse(&v.to_string()).map_err(|e| e.to_string())
}

fn assert_mentions(e: &str, fragments: &[&str]) {
    for f in fragments {
        assert!(e.contains(f), "error {e:?} should mention {f:?}");
    }
}

#[test]
fn each_kind_reads_and_writes_back_unchanged() {
    let shapes = [
        (json!({"box": {"size": [4.0, 0.05, 0.05]}}), Shape::Box { size: [4.0, 0.05, 0.05] }),
        (
            json!({"cylinder": {"radius": 0.03, "length": 4.0, "axis": [0.0, 1.0, 0.0]}}),
            Shape::Cylinder { radius: 0.03, length: 4.0, axis: [0.0, 1.0, 0.0] },
        ),
        (json!({"sphere": {"radius": 0.1}}), Shape::Sphere { radius: 0.1 }),
    ];
    for (json, shape) in shapes {
        let d = with_shape(json.clone()).unwrap();
        assert_eq!(d.bodies[0].shape, Some(shape));
        assert_eq!(d.bodies[1].shape, None);
        let written = serde_json::to_value(&d).unwrap();
        assert_eq!(written["bodies"][0]["shape"], json);
        assert!(written["bodies"][1].get("shape").is_none(), "no shape is written as none");
        assert_eq!(format::parse(&written.to_string()).unwrap(), d);
        // Visual only: the FMU's variables and token are those of the model without a shape.
        let plain = format::parse(find("DoublePendulum").unwrap().json).unwrap();
        let (a, b) = (interface_of(&d).unwrap(), interface_of(&plain).unwrap());
        assert_eq!(a.variables, b.variables);
    }
}

#[test]
fn sizes_must_be_positive_and_finite_and_the_axis_not_zero() {
    let cases = [
        (json!({"box": {"size": [1.0, 0.0, 1.0]}}), ["body 'bar1'", "shape box size", "positive"]),
        (json!({"box": {"size": [1.0, -1.0, 1.0]}}), ["body 'bar1'", "shape box size", "positive"]),
        (json!({"sphere": {"radius": -0.1}}), ["body 'bar1'", "shape sphere radius -0.1", "positive and finite"]),
        (
            json!({"cylinder": {"radius": 0.0, "length": 1.0, "axis": [1.0, 0.0, 0.0]}}),
            ["body 'bar1'", "shape cylinder radius 0", "positive"],
        ),
        (
            json!({"cylinder": {"radius": 0.1, "length": -2.0, "axis": [1.0, 0.0, 0.0]}}),
            ["body 'bar1'", "shape cylinder length -2", "positive"],
        ),
        (
            json!({"cylinder": {"radius": 0.1, "length": 1.0, "axis": [0.0, 0.0, 0.0]}}),
            ["body 'bar1'", "shape cylinder axis", "zero vector"],
        ),
    ];
    for (shape, fragments) in cases {
        let e = with_shape(shape.clone()).expect_err(&shape.to_string());
        assert_mentions(&e, &fragments);
    }
    // A size may be an expression like every number.
    let mut v = pendulum();
    v["bodies"][1]["shape"] = json!({"sphere": {"radius": "=0.5 * 0.2"}});
    let d = format::parse(&v.to_string()).unwrap();
    assert_eq!(d.bodies[1].shape, Some(Shape::Sphere { radius: 0.1 }));
}

#[test]
fn an_unknown_kind_or_field_names_its_path() {
    let e = with_shape(json!({"cube": {"size": [1.0, 1.0, 1.0]}})).unwrap_err();
    assert_mentions(&e, &["bodies[0].shape", "cube", "box", "cylinder", "sphere"]);
    let e = with_shape(json!({"sphere": {"diameter": 0.2}})).unwrap_err();
    assert_mentions(&e, &["bodies[0].shape", "diameter", "radius"]);
    let e = with_shape(json!({"cylinder": {"radius": 0.1, "length": 1.0}})).unwrap_err();
    assert_mentions(&e, &["bodies[0].shape", "axis"]);
}
