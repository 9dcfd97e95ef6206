//! Outputs of body-fixed points (`{"body": ..., "point": ..., "name": ...}`): their variables,
//! the points' order, and the refusals of an unnamed point, a name without a point and a
//! quantity a point does not have.

use mbfmu_model::catalog::find;
use mbfmu_model::format::{self, Quantity};
use mbfmu_model::variables::{interface_of, Binding};
use serde_json::{json, Value};

fn patu() -> Value {
    serde_json::from_str(find("PatuLiftBoom").unwrap().json).unwrap()
}

/// The interface of PatuLiftBoom with `outputs` in place of its own, or its error.
fn interface(outputs: Value) -> Result<mbfmu_model::variables::ModelInterface, String> {
    let mut v = patu();
    v["interface"]["outputs"] = outputs;
    let d = format::parse(&v.to_string()).map_err(|e| e.to_string())?;
    interface_of(&d).map_err(|e| e.to_string())
}

#[test]
fn a_named_point_gives_position_velocity_and_acceleration_variables() {
    let i = interface(json!([
        {"body": "boom", "point": [1.0, 2.0, 0.0], "name": "eye", "quantities": ["position", "acceleration"]},
        {"body": "boom", "quantities": ["position"]},
        {"body": "boom", "point": [2.0, 0.0, 0.0], "name": "tip", "quantities": ["velocity"]},
    ]))
    .unwrap();
    let q = |name: &str| match i.by_name(name).unwrap_or_else(|| panic!("{name}")).binding {
        Binding::Output(q) => Some(q),
        _ => None,
    };
    assert_eq!(q("boom.eye.position.y"), Some(Quantity::PointPosition { point: 0, axis: 1 }));
    assert_eq!(q("boom.eye.acceleration.z"), Some(Quantity::PointAcceleration { point: 0, axis: 2 }));
    assert_eq!(q("boom.position.x"), Some(Quantity::BodyPosition { body: 0, axis: 0 }));
    assert_eq!(q("boom.tip.velocity.x"), Some(Quantity::PointVelocity { point: 1, axis: 0 }));
    assert!(i.by_name("boom.tip.position.x").is_none());
    // The catalog model outputs its tip.
    let d = format::parse(find("PatuLiftBoom").unwrap().json).unwrap();
    assert_eq!(d.output_points(), vec![(0, [2.479782589, 0.1038604434, 0.0])]);
}

#[test]
fn a_point_needs_a_name_and_only_a_point_has_one() {
    let e = interface(json!([{"body": "boom", "point": [1.0, 2.0, 0.0], "quantities": ["position"]}])).unwrap_err();
    assert!(e.contains("needs a \"name\"") && e.contains("boom"), "{e}");
    let e = interface(json!([{"body": "boom", "point": [1.0, 2.0, 0.0], "name": "a b", "quantities": ["position"]}]))
        .unwrap_err();
    assert!(e.contains("needs a \"name\""), "{e}");
    let e = interface(json!([{"body": "boom", "name": "tip", "quantities": ["position"]}])).unwrap_err();
    assert!(e.contains("no \"point\"") && e.contains("'tip'"), "{e}");
    let e =
        interface(json!([{"body": "boom", "point": [1.0, 2.0, 0.0], "name": "tip", "quantities": ["orientation"]}]))
            .unwrap_err();
    assert!(e.contains("is a point") && e.contains("position, velocity and acceleration"), "{e}");
    let e = interface(json!([{"body": "arm", "point": [1.0, 2.0, 0.0], "name": "tip", "quantities": ["position"]}]))
        .unwrap_err();
    assert!(e.contains("arm"), "{e}");
}
