//! The animation output group (`{"animation": ["bodies", "beams", "hydraulics"]}`): the
//! variables it declares and their names, that it comes after every other group and declares
//! no name twice, the refusals of a part the model lacks, an empty list, a misspelt part and a
//! part the formulation cannot output, and that every catalog model declares its parts.

use mbfmu_model::catalog::{find, CATALOG};
use mbfmu_model::format::{self, AnimationPart, OutputSpec, Quantity};
use mbfmu_model::variables::{interface_of, Binding, ModelInterface};
use serde_json::{json, Value};

fn model(name: &str) -> Value {
    serde_json::from_str(find(name).unwrap().json).unwrap()
}

/// The interface of catalog model `name` with `outputs` in place of its own, or the error of
/// reading or expanding it.
fn interface(name: &str, outputs: Value) -> Result<ModelInterface, String> {
    let mut v = model(name);
    v["interface"]["outputs"] = outputs;
    let d = format::parse(&v.to_string()).map_err(|e| e.to_string())?;
    interface_of(&d).map_err(|e| e.to_string())
}

fn output_names(i: &ModelInterface) -> Vec<String> {
    i.outputs().map(|v| v.name.clone()).collect()
}

fn quantity(i: &ModelInterface, name: &str) -> Quantity {
    match i.by_name(name).unwrap_or_else(|| panic!("no variable {name}")).binding {
        Binding::Output(q) => q,
        ref b => panic!("{name} is no output: {b:?}"),
    }
}

fn body_names(body: &str, position: bool) -> Vec<String> {
    let mut names = Vec::new();
    if position {
        names.extend(["x", "y", "z"].map(|a| format!("{body}.position.{a}")));
    }
    names.extend((0..4).map(|c| format!("{body}.orientation.e{c}")));
    names
}

#[test]
fn bodies_come_after_every_other_group_and_skip_declared_names() {
    // The group stands first, another declares bar2's orientation and bar1's position.
    let i = interface(
        "DoublePendulum",
        json!([
            {"animation": ["bodies"]},
            {"body": "bar2", "quantities": ["orientation"]},
            {"body": "bar1", "quantities": ["position"]},
            {"system": ["steps"]},
        ]),
    )
    .unwrap();
    let mut expected = body_names("bar2", false);
    expected.extend(["x", "y", "z"].map(|a| format!("bar1.position.{a}")));
    expected.push("steps".into());
    // The animation's own: bar1's orientation, bar2's position (bar2's orientation is declared).
    expected.extend(body_names("bar1", false));
    expected.extend(["x", "y", "z"].map(|a| format!("bar2.position.{a}")));
    assert_eq!(output_names(&i), expected);
    assert_eq!(quantity(&i, "bar2.position.z"), Quantity::BodyPosition { body: 1, axis: 2 });
    assert_eq!(quantity(&i, "bar1.orientation.e3"), Quantity::BodyOrientation { body: 0, component: 3 });
    // The value references stay the positions in the table: the appended outputs follow.
    let refs: Vec<u32> = i.outputs().map(|v| v.value_reference).collect();
    assert!(refs.windows(2).all(|w| w[1] == w[0] + 1), "{refs:?}");
}

#[test]
fn a_part_listed_twice_or_in_two_groups_is_declared_once() {
    let once = interface("DoublePendulum", json!([{"animation": ["bodies"]}])).unwrap();
    let mut expected = body_names("bar1", true);
    expected.extend(body_names("bar2", true));
    assert_eq!(output_names(&once), expected);
    let twice =
        interface("DoublePendulum", json!([{"animation": ["bodies", "bodies"]}, {"animation": ["bodies"]}])).unwrap();
    assert_eq!(output_names(&twice), expected);
}

#[test]
fn beams_give_every_node_by_its_canonical_name() {
    let i = interface(
        "FlexibleFourBar",
        json!([{"node": "bar2.end", "quantities": ["position"]}, {"animation": ["beams"]}]),
    )
    .unwrap();
    let names = output_names(&i);
    let d = format::parse(find("FlexibleFourBar").unwrap().json).unwrap();
    // bar2.end is bar2.node10: its position is the node group's, declared first and once.
    assert_eq!(names[..3], ["x", "y", "z"].map(|a| format!("bar2.node10.position.{a}")));
    let mut expected: Vec<String> = names[..3].to_vec();
    for beam in &d.beams {
        for n in 0..=beam.element_count() {
            let node = format!("{}.node{n}", beam.name);
            if node != "bar2.node10" {
                expected.extend(["x", "y", "z"].map(|a| format!("{node}.position.{a}")));
            }
            expected.extend((0..4).map(|c| format!("{node}.orientation.e{c}")));
        }
    }
    assert_eq!(names, expected);
    assert_eq!(d.node_count(), 33);
    assert_eq!(quantity(&i, "bar1.node0.position.y"), Quantity::NodePosition { node: 0, axis: 1 });
    assert_eq!(quantity(&i, "bar3.node10.orientation.e2"), Quantity::NodeOrientation { node: 32, component: 2 });
}

#[test]
fn hydraulics_give_the_cylinder_chambers_and_the_directional_valves() {
    let i = interface("HydraulicFourBar", json!([{"animation": ["hydraulics"]}])).unwrap();
    // V2 and V3 are the cylinder's chambers; the throttle has no spool, V1 is no chamber.
    assert_eq!(output_names(&i), ["V2.pressure", "V3.pressure", "dcv.spool", "dcv.reference"]);
    assert!(matches!(quantity(&i, "V3.pressure"), Quantity::VolumePressure { .. }));
    assert!(matches!(quantity(&i, "dcv.reference"), Quantity::ValveReference { .. }));
    // A circuit without a mechanism: its cylinder, driven by inputs, and its valve.
    let drive = interface("HydraulicFourBarDrive", json!([{"animation": ["hydraulics"]}])).unwrap();
    assert_eq!(output_names(&drive), ["V2.pressure", "V3.pressure", "dcv.spool", "dcv.reference"]);
}

#[test]
fn the_catalog_models_declare_their_parts_after_their_other_outputs() {
    for entry in CATALOG {
        let d = format::parse(entry.json).unwrap();
        let parts = d.animation_parts();
        let declared: Vec<&Vec<AnimationPart>> = d
            .interface
            .outputs
            .iter()
            .filter_map(|o| match o {
                OutputSpec::Animation { animation } => Some(animation),
                _ => None,
            })
            .collect();
        assert_eq!(declared, [&parts], "{}: one animation group with the model's parts", entry.name);
        assert!(
            matches!(d.interface.outputs.last(), Some(OutputSpec::Animation { .. })),
            "{}: the animation group ends the outputs",
            entry.name
        );
        // Every body's position and orientation is an output: a body attached to a beam node
        // through its node (its centre of mass an output point, its orientation the node's).
        let i = interface_of(&d).unwrap();
        let parts = d.body_parts();
        for (k, b) in d.bodies.iter().enumerate() {
            let position = match d.attached_point(k) {
                Some(point) => Quantity::PointPosition { point, axis: 0 },
                None => Quantity::BodyPosition { body: k, axis: 0 },
            };
            assert_eq!(quantity(&i, &format!("{}.position.x", b.name)), position, "{}", entry.name);
            let e0 = format!("{}.orientation.e0", b.name);
            let body = parts[k];
            assert_eq!(quantity(&i, &e0), Quantity::BodyOrientation { body, component: 0 }, "{}", entry.name);
        }
    }
    let parts = |name: &str| format::parse(find(name).unwrap().json).unwrap().animation_parts();
    use AnimationPart::*;
    assert_eq!(parts("DoublePendulum"), [Bodies]);
    assert_eq!(parts("LateralBuckling"), [Beams]);
    assert_eq!(parts("PatuLiftBoomFlexible"), [Bodies, Beams, Hydraulics]);
    assert_eq!(parts("HydraulicFourBarMechanism"), [Bodies]);
    assert_eq!(parts("HydraulicFourBarValveDrive"), [Hydraulics]);
}

#[test]
fn a_part_the_model_lacks_or_an_empty_list_is_refused_with_the_parts_it_has() {
    let e =
        interface("DoublePendulum", json!([{"system": ["steps"]}, {"animation": ["bodies", "beams"]}])).unwrap_err();
    for fragment in ["interface.outputs[1].animation", "'beams'", "no beams", "this model's parts: bodies"] {
        assert!(e.contains(fragment), "{e:?} should mention {fragment:?}");
    }
    let e = interface("HydraulicFourBarMechanism", json!([{"animation": ["hydraulics"]}])).unwrap_err();
    for fragment in ["interface.outputs[0].animation", "'hydraulics'", "no hydraulic cylinders", "parts: bodies"] {
        assert!(e.contains(fragment), "{e:?} should mention {fragment:?}");
    }
    let e = interface("HydraulicFourBarValveDrive", json!([{"animation": ["bodies"]}])).unwrap_err();
    assert!(e.contains("no bodies") && e.contains("parts: hydraulics"), "{e}");
    let e = interface("PatuLiftBoomFlexible", json!([{"animation": []}])).unwrap_err();
    for fragment in ["interface.outputs[0].animation", "lists no part", "parts: bodies, beams, hydraulics"] {
        assert!(e.contains(fragment), "{e:?} should mention {fragment:?}");
    }
}

#[test]
fn a_misspelt_part_names_the_nearest_and_the_valid_ones() {
    let e = interface("DoublePendulum", json!([{"animation": ["bodys"]}])).unwrap_err();
    for fragment in [
        "interface.outputs[0].animation[0]",
        "unknown animation part 'bodys'",
        "did you mean 'bodies'?",
        "Valid: bodies, beams, hydraulics",
    ] {
        assert!(e.contains(fragment), "{e:?} should mention {fragment:?}");
    }
}

#[test]
fn a_part_the_formulation_cannot_output_is_refused_with_the_table_row() {
    // Reading refuses beams in the state-space formulation first; expanding such a
    // description unvalidated refuses the animation's beams with the same row.
    let mut v = model("FlexibleFourBar");
    v["solver"]["formulation"] = json!("stateSpace");
    let read = format::parse(&v.to_string()).unwrap_err().to_string();
    assert!(read.contains("cannot hold beams (structural nodes)"), "{read}");
    let (d, _) = format::read_parametric(&v.to_string()).unwrap();
    let e = interface_of(&d).unwrap_err().to_string();
    for fragment in
        ["'stateSpace' cannot hold beams (structural nodes)", "index3 yes", "What each formulation supports"]
    {
        assert!(e.contains(fragment), "{e:?} should mention {fragment:?}");
    }
}
