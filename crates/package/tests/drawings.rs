//! The drawings of the documentation pages and icons: one group per element of the
//! description (and per inflow from another FMU) for every catalog model, and odd descriptions (no mechanism, beams only, a
//! circuit only, zero-length and non-finite geometry) drawn without a panic or a NaN.

use mbfmu_model::catalog::CATALOG;
use mbfmu_model::format::Description;
use mbfmu_package::drawing::{circuit::Circuit, mechanism::Scene, Frame};
use mbfmu_package::icon;

/// Number of `<g>` groups of a class.
fn groups(svg: &str, class: &str) -> usize {
    svg.matches(&format!("<g class=\"{class}\" ")).count()
}

fn finite_numbers_only(svg: &str) {
    for bad in ["NaN", "inf"] {
        assert!(!svg.contains(bad), "{bad} in {svg}");
    }
}

/// Mechanism groups the description asks for: bodies, joints, force elements, beams and
/// cylinders attached to the mechanism.
fn expected_mechanism(d: &Description) -> [usize; 5] {
    let attached =
        d.hydraulics.iter().flat_map(|h| &h.cylinders).filter(|c| c.point1.is_some() && c.point2.is_some()).count();
    [d.bodies.len(), d.joints.len(), d.forces.len(), d.beams.len(), attached]
}

fn check_mechanism(d: &Description, frame: &Frame) -> Option<String> {
    let scene = Scene::new(d)?;
    assert_eq!(scene.counts(), expected_mechanism(d), "{}", d.name);
    let svg = scene.svg(frame, &d.name);
    finite_numbers_only(&svg);
    let counted = ["body", "joint", "force", "beam", "cylinder"].map(|c| groups(&svg, c));
    assert_eq!(counted, expected_mechanism(d), "{}: groups in the SVG", d.name);
    Some(svg)
}

fn check_icon(d: &Description) {
    let png = icon::png(d).unwrap_or_else(|e| panic!("{}: {e}", d.name));
    let (w, h, _) = icon::decode_png(&png).expect("the icon is a PNG");
    assert_eq!((w, h), (icon::SIZE, icon::SIZE));
}

#[test]
fn every_catalog_model_draws_each_of_its_elements_once() {
    for entry in CATALOG {
        let d = mbfmu_model::Model::from_catalog(entry).unwrap().description;
        let page = Frame { width: 640.0, height: 400.0, margin: 40.0, labels: true };
        let mechanism = check_mechanism(&d, &page);
        assert_eq!(mechanism.is_some(), !d.bodies.is_empty() || !d.beams.is_empty(), "{}", d.name);
        if let Some(h) = &d.hydraulics {
            let circuit = Circuit::new(Some(h)).unwrap().svg(true, None, &d.name);
            finite_numbers_only(&circuit);
            let inflows = h.volumes.iter().filter(|v| v.inflow_input.is_some()).count();
            let components = h.sources.len() + h.volumes.len() + h.valves.len() + h.cylinders.len() + inflows;
            assert_eq!(groups(&circuit, "hydraulic source"), h.sources.len(), "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic volume"), h.volumes.len(), "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic valve"), h.valves.len(), "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic cylinder"), h.cylinders.len(), "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic feed"), inflows, "{}", d.name);
            assert_eq!(circuit.matches("<g class=\"hydraulic ").count(), components);
        }
        // The icon is the mechanism without labels, or the circuit for a circuit alone.
        let svg = icon::svg(&d);
        assert!(!svg.contains("<text"), "{}: the icon has no text", d.name);
        assert_eq!(svg.contains("class=\"mechanism\""), mechanism.is_some(), "{}", d.name);
        check_icon(&d);
    }
}

fn description(json: &str) -> Description {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

const EXPERIMENT: &str = r#""experiment": {"stop": 1, "step": 0.1}"#;

#[test]
fn a_model_without_a_mechanism_or_circuit_gets_an_empty_frame() {
    let d = description(&format!(r#"{{"name": "nothing", "bodies": [], {EXPERIMENT}}}"#));
    assert!(Scene::new(&d).is_none() && Circuit::new(d.hydraulics.as_ref()).is_none());
    let svg = icon::svg(&d);
    finite_numbers_only(&svg);
    check_icon(&d);
}

#[test]
fn zero_length_and_coincident_geometry_draws_finite_symbols() {
    let d = description(&format!(
        r#"{{"name": "degenerate", "bodies": [
            {{"name": "a", "mass": 1, "inertia": [1, 1, 1], "position": [0, 0, 0]}},
            {{"name": "b", "mass": 1, "inertia": [1, 1, 1], "position": [0, 0, 0]}}],
          "joints": [
            {{"name": "j1", "type": "revolute", "body1": "ground", "body2": "a", "point": [0, 0, 0], "axis": [0, 0, 0]}},
            {{"name": "j2", "type": "translational", "body1": "a", "body2": "b", "point": [0, 0, 0], "axis": [0, 0, 0]}},
            {{"name": "j3", "type": "distance", "body1": "a", "body2": "b", "point1": [0, 0, 0], "point2": [0, 0, 0]}},
            {{"name": "j4", "type": "spherical", "body1": "a", "body2": "b"}}],
          "forces": [
            {{"type": "tsda", "name": "s", "body1": "a", "body2": "b", "point1": [0, 0, 0], "point2": [0, 0, 0], "stiffness": 1, "damping": 1}},
            {{"type": "actuator", "name": "u", "body1": "a", "body2": "b", "point1": [0, 0, 0], "point2": [0, 0, 0]}},
            {{"type": "force", "name": "f", "body": "a", "direction": [0, 0, 0]}},
            {{"type": "torque", "name": "t", "body": "b", "axis": [0, 0, 0]}},
            {{"type": "rsda", "name": "r", "joint": "missing"}}],
          "beams": [{{"name": "beam", "points": [[0, 0, 0], [0, 0, 0]], "elements": 3,
            "section": {{"axial_stiffness": 1, "shear_stiffness": [1, 1], "torsional_stiffness": 1, "bending_stiffness": [1, 1],
                         "mass_per_length": 1, "inertia_per_length": [1, 1, 1]}}}}],
          {EXPERIMENT}}}"#
    ));
    for frame in [Frame::ICON, Frame { width: 640.0, height: 200.0, margin: 40.0, labels: true }] {
        check_mechanism(&d, &frame).unwrap();
    }
    check_icon(&d);
}

#[test]
fn non_finite_positions_are_left_out_not_printed() {
    let d = description(&format!(
        r#"{{"name": "broken", "bodies": [{{"name": "a", "mass": 1, "inertia": [1, 1, 1], "position": [1e308, 0, 0]}}],
          "joints": [{{"name": "j", "type": "revolute", "body1": "ground", "body2": "a", "point": [-1e308, 1e308, 0], "axis": [1e308, 1e308, 0]}}],
          {EXPERIMENT}}}"#
    ));
    let mut d = d;
    d.bodies[0].position[1] = f64::NAN;
    d.gravity = [f64::INFINITY, 0.0, f64::NAN];
    check_mechanism(&d, &Frame::ICON).unwrap();
    check_icon(&d);
}

#[test]
fn beams_alone_and_circuits_alone_are_drawn() {
    let beam = description(&format!(
        r#"{{"name": "cantilever", "bodies": [], "beams": [{{"name": "b", "points": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]],
            "section": {{"axial_stiffness": 1, "shear_stiffness": [1, 1], "torsional_stiffness": 1, "bending_stiffness": [1, 1],
                         "mass_per_length": 1, "inertia_per_length": [1, 1, 1]}}}}], {EXPERIMENT}}}"#
    ));
    let svg = check_mechanism(&beam, &Frame::ICON).unwrap();
    // A polyline through the four nodes.
    assert_eq!(svg.matches("<polyline").count(), 1, "{svg}");
    check_icon(&beam);

    let circuit = description(&format!(
        r#"{{"name": "circuit", "bodies": [], "hydraulics": {{"oil": {{"bulk_modulus": 1e9, "density": 850}},
            "sources": [{{"name": "supply", "pressure": 1e7}}],
            "volumes": [{{"name": "v", "hose_volume": 1e-4, "hose_bulk_modulus": 1e9, "initial_pressure": 1e5}},
                        {{"name": "island", "hose_volume": 1e-4, "hose_bulk_modulus": 1e9, "initial_pressure": 1e5}}],
            "valves": [{{"type": "throttle", "name": "t", "from": "supply", "to": "v", "discharge_coefficient": 0.7, "diameter": 0.001}},
                       {{"type": "throttle", "name": "loop", "from": "v", "to": "v", "discharge_coefficient": 0.7, "diameter": 0.001}}],
            "cylinders": [{{"name": "c", "piston_side": "v", "rod_side": "island", "piston_diameter": 0.05, "rod_diameter": 0.02,
                           "stroke": 0.5, "wall_bulk_modulus": 1e10, "length_input": "x"}}]}}, {EXPERIMENT}}}"#
    ));
    assert!(Scene::new(&circuit).is_none());
    let svg = icon::svg(&circuit);
    finite_numbers_only(&svg);
    assert_eq!(svg.matches("<g class=\"hydraulic ").count(), 6, "{svg}");
    let png = icon::png(&circuit).unwrap();
    let (_, _, rgba) = icon::decode_png(&png).unwrap();
    assert!(icon::ink_fraction(&rgba) > 0.005);
}
