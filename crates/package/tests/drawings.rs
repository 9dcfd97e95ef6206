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
            let components = h.sources.len()
                + h.volumes.len()
                + h.valves.len()
                + h.cylinders.len()
                + inflows
                + h.pumps.len()
                + h.lines.len();
            assert_eq!(groups(&circuit, "hydraulic source"), h.sources.len(), "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic volume"), h.volumes.len(), "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic valve"), h.valves.len(), "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic cylinder"), h.cylinders.len(), "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic feed"), inflows, "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic pump"), h.pumps.len(), "{}", d.name);
            assert_eq!(groups(&circuit, "hydraulic line"), h.lines.len(), "{}", d.name);
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

/// Points an SVG fragment's shapes pass through: polyline and polygon points, path end
/// points, circle and rectangle extremes (enough for a bounding box).
fn shape_points(svg: &str) -> Vec<(f64, f64)> {
    let attr = |tag: &str, name: &str| -> f64 {
        let key = format!(" {name}=\"");
        let start = tag.find(&key).map(|i| i + key.len()).unwrap_or_else(|| panic!("{name} in {tag}"));
        tag[start..].split('"').next().unwrap().parse().unwrap()
    };
    let numbers = |text: &str| -> Vec<f64> {
        text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).filter_map(|t| t.parse().ok()).collect()
    };
    let mut points = Vec::new();
    for tag in svg.split('<').filter(|t| !t.starts_with('/')) {
        if tag.starts_with("polyline") || tag.starts_with("polygon") {
            let list = tag.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
            points.extend(numbers(list).chunks(2).map(|p| (p[0], p[1])));
        } else if tag.starts_with("circle") {
            let (x, y, r) = (attr(tag, "cx"), attr(tag, "cy"), attr(tag, "r"));
            points.extend([(x - r, y - r), (x + r, y + r)]);
        } else if tag.starts_with("rect") {
            let (x, y) = (attr(tag, "x"), attr(tag, "y"));
            points.extend([(x, y), (x + attr(tag, "width"), y + attr(tag, "height"))]);
        } else if tag.starts_with("path") {
            // Every command here ends with its end point.
            let d = tag.split(" d=\"").nth(1).unwrap().split('"').next().unwrap();
            for command in d.split(['M', 'L', 'A']).filter(|c| !c.trim().is_empty()) {
                let n = numbers(command);
                points.push((n[n.len() - 2], n[n.len() - 1]));
            }
        }
    }
    points
}

/// The inner SVG of the group of the component named `name`.
fn component<'a>(svg: &'a str, name: &str) -> &'a str {
    let start = svg.find(&format!("data-name=\"{name}\">")).unwrap_or_else(|| panic!("no group for {name}"));
    let inner = &svg[start..];
    &inner[..inner.find("</g>").unwrap()]
}

#[test]
fn pumps_pressure_valves_and_long_lines_get_their_own_symbols_and_connections() {
    let d = description(&format!(
        r#"{{"name": "components", "bodies": [], "hydraulics": {{"oil": {{"bulk_modulus": 1.5e9, "density": 850}},
            "sources": [{{"name": "tank", "pressure": 1e5}}],
            "volumes": [
                {{"name": "S", "hose_volume": 1e-4, "hose_bulk_modulus": 1e12, "initial_pressure": 1e7}},
                {{"name": "P", "hose_volume": 1e-4, "hose_bulk_modulus": 1e12, "initial_pressure": 1e7}},
                {{"name": "A", "hose_volume": 5e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 8e6}},
                {{"name": "B", "hose_volume": 5e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 2e6}},
                {{"name": "A2", "hose_volume": 5e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 8e6}},
                {{"name": "L", "hose_volume": 2e-5, "hose_bulk_modulus": 7e8, "initial_pressure": 9e6}}],
            "valves": [
                {{"type": "relief", "name": "rv", "from": "S", "to": "tank", "cracking_pressure": 1.5e7,
                  "full_open_pressure": 1.6e7, "rated_flow": 1e-3, "rated_pressure_drop": 1.6e7}},
                {{"type": "check", "name": "cv", "from": "S", "to": "P", "cracking_pressure": 2e5,
                  "full_open_pressure": 4e5, "rated_flow": 5e-4, "rated_pressure_drop": 1e6}},
                {{"type": "directional", "name": "dv", "pump": "P", "tank": "tank", "port_a": "A", "port_b": "B",
                  "flow_constant": 1e-8, "time_constant": 0.01, "reference": {{"input": "u"}}}},
                {{"type": "counterbalance", "name": "cbv", "load": "L", "back": "B", "pilot": "A2",
                  "pilot_ratio": 4.0, "cracking_pressure": 2e7, "full_open_pressure": 2.2e7,
                  "rated_flow": 5e-4, "rated_pressure_drop": 1e6}}],
            "pumps": [{{"name": "pump", "inlet": "tank", "outlet": "S", "displacement": 2e-5, "shaft_speed": 150.0,
                        "compensator": {{"setting": 1.4e7, "regulation_range": 1e6}}}}],
            "lines": [{{"name": "hose", "from": "A", "to": "A2", "length": 5.0, "diameter": 0.012, "segments": 4,
                        "kinematic_viscosity": 4e-5, "wall_bulk_modulus": 7e8, "initial_pressure": 8e6}}],
            "cylinders": [{{"name": "cyl", "piston_side": "A2", "rod_side": "L", "piston_diameter": 0.08,
                "rod_diameter": 0.035, "stroke": 1.0, "wall_bulk_modulus": 3.15e10,
                "length_input": "s", "velocity_input": "v"}}]}},
          "interface": {{"inputs": [{{"name": "s", "start": 1.4}}, {{"name": "v"}}, {{"name": "u"}}]}},
          "solver": {{"formulation": "doubleStep"}}, {EXPERIMENT}}}"#
    ));
    let h = d.hydraulics.as_ref().unwrap();
    let circuit = Circuit::new(Some(h)).unwrap();
    let svg = circuit.svg(true, None, &d.name);
    finite_numbers_only(&svg);
    // Well-formed: the rasterizer parses it as XML.
    icon::png_of_svg(&svg).unwrap();
    // 1 source, 6 volumes, 4 valves, 1 pump, 1 line, 1 cylinder; connections: pump 2, relief 2,
    // check 2, directional 4, counterbalance 3, line 2, cylinder 2.
    assert_eq!(circuit.counts(), (14, 17));
    assert_eq!(groups(&svg, "hydraulic valve"), 4);
    assert_eq!(groups(&svg, "hydraulic pump"), 1);
    assert_eq!(groups(&svg, "hydraulic line"), 1);

    for (name, symbol) in [
        ("pump", "symbol pump variable"),
        ("rv", "symbol relief-valve"),
        ("cv", "symbol check-valve"),
        ("cbv", "symbol counterbalance-valve"),
        ("hose", "symbol hose"),
    ] {
        assert!(component(&svg, name).contains(&format!("class=\"{symbol}\"")), "{name}: {}", component(&svg, name));
    }
    assert!(component(&svg, "pump").contains("class=\"compensator\""));
    // The relief valve's own pilot and the counterbalance valve's pilot port are dashed.
    assert!(component(&svg, "rv").contains("stroke-dasharray"));

    // Each connection ends on the symbol of its component: count the line ends inside each
    // symbol's box (grown by a pixel).
    let lines_group = &svg[svg.find("id=\"lines\"").unwrap()..];
    let lines_group = &lines_group[..lines_group.find("</g>").unwrap()];
    let ends: Vec<((f64, f64), bool)> = lines_group
        .split("<polyline")
        .skip(1)
        .flat_map(|l| {
            let pts = shape_points(&format!("polyline{l}"));
            let pilot = l.contains("class=\"line pilot\"");
            [(pts[0], pilot), (pts[pts.len() - 1], pilot)]
        })
        .collect();
    assert_eq!(ends.len(), 34);
    let ends_at = |name: &str| {
        let pts = shape_points(component(&svg, name));
        let (x0, x1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let (y0, y1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
        let inside = |p: &(f64, f64)| p.0 >= x0 - 1.0 && p.0 <= x1 + 1.0 && p.1 >= y0 - 1.0 && p.1 <= y1 + 1.0;
        let plain = ends.iter().filter(|(p, pilot)| !pilot && inside(p)).count();
        let pilot = ends.iter().filter(|(p, pilot)| *pilot && inside(p)).count();
        (plain, pilot)
    };
    assert_eq!(ends_at("pump"), (2, 0), "pump: outlet and inlet");
    assert_eq!(ends_at("rv"), (2, 0), "relief valve: from and to");
    assert_eq!(ends_at("cv"), (2, 0), "check valve: from and to");
    assert_eq!(ends_at("cbv"), (2, 1), "counterbalance valve: load and back, and the dashed pilot");
    assert_eq!(ends_at("hose"), (2, 0), "line: from and to");
    // The nodes' ends: the tank takes the pump's suction, the relief's return and the
    // directional valve's return; the pilot line ends at A2.
    assert_eq!(ends_at("tank"), (3, 0));
    assert_eq!(ends_at("A2").1, 1);
}

#[test]
fn a_hydraulic_motor_is_a_circle_with_an_inward_triangle_between_its_ports() {
    let d = description(&format!(
        r#"{{"name": "motor", "bodies": [{{"name": "rotor", "mass": 1.0, "inertia": [0.1, 0.1, 0.2], "position": [0, 0, 0]}}],
            "joints": [{{"name": "shaft", "type": "revolute", "body1": "ground", "body2": "rotor", "point": [0, 0, 0],
                        "axis": [0, 0, 1]}}],
            "hydraulics": {{"oil": {{"bulk_modulus": 1.5e9, "density": 850}},
            "sources": [{{"name": "tank", "pressure": 0}}],
            "volumes": [{{"name": "A", "hose_volume": 1e-3, "hose_bulk_modulus": 1e12, "initial_pressure": 0}}],
            "pumps": [{{"name": "pump", "inlet": "tank", "outlet": "A", "displacement": 1e-5, "shaft_speed": 125.0}}],
            "motors": [{{"name": "m", "port_a": "A", "port_b": "tank", "joint": "shaft", "displacement": 1e-5}}]}},
          "solver": {{"formulation": "index3", "method": "bdf1"}}, {EXPERIMENT}}}"#
    ));
    let circuit = Circuit::new(d.hydraulics.as_ref()).unwrap();
    let svg = circuit.svg(true, None, &d.name);
    finite_numbers_only(&svg);
    icon::png_of_svg(&svg).unwrap();
    // tank, A, pump, motor; the pump's two lines and the motor's two.
    assert_eq!(circuit.counts(), (4, 4));
    assert_eq!(groups(&svg, "hydraulic motor"), 1);
    let m = component(&svg, "m");
    assert!(m.contains("class=\"symbol motor\""), "{m}");
    // The triangle lies inside the circle and points inward: its apex is nearer the centre
    // than its base, the base at the rim on the side of port A.
    let circle = m.split("<circle").nth(1).unwrap();
    let attr = |tag: &str, name: &str| -> f64 {
        let key = format!(" {name}=\"");
        tag[tag.find(&key).unwrap() + key.len()..].split('"').next().unwrap().parse().unwrap()
    };
    let (cx, cy, r) = (attr(circle, "cx"), attr(circle, "cy"), attr(circle, "r"));
    let triangle = m.split("<polygon").nth(1).unwrap().split('>').next().unwrap();
    assert!(triangle.contains("class=\"inward\""));
    let pts = shape_points(&format!("polygon{triangle}"));
    assert_eq!(pts.len(), 3);
    let distance = |p: &(f64, f64)| ((p.0 - cx).powi(2) + (p.1 - cy).powi(2)).sqrt();
    assert!(pts.iter().all(|p| distance(p) <= r + 1e-9), "{pts:?} outside r = {r}");
    let (apex, base) = (&pts[0], &pts[1..]);
    assert!(base.iter().all(|b| distance(b) > r - 1.0 && distance(apex) < distance(b) - 8.0), "{pts:?}");
    let volume = shape_points(component(&svg, "A"));
    let a_below = volume.iter().map(|p| p.1).sum::<f64>() / volume.len() as f64 > cy;
    assert!(base.iter().all(|b| (b.1 > cy) == a_below), "the base faces port A: {pts:?}");
    // Both connections end on the motor's symbol (its ports at the top and bottom).
    let lines_group = &svg[svg.find("id=\"lines\"").unwrap()..];
    let lines_group = &lines_group[..lines_group.find("</g>").unwrap()];
    let ends: Vec<(f64, f64)> = lines_group
        .split("<polyline")
        .skip(1)
        .flat_map(|l| {
            let pts = shape_points(&format!("polyline{l}"));
            [pts[0], pts[pts.len() - 1]]
        })
        .collect();
    let at_motor = ends.iter().filter(|p| (p.0 - cx).abs() < 1.0 && ((p.1 - cy).abs() - 22.0).abs() < 1.0).count();
    assert_eq!(at_motor, 2, "ends {ends:?} vs motor at ({cx}, {cy})");
}

#[test]
fn an_accumulator_gets_its_symbol_above_its_node_and_one_connection() {
    let d = description(&format!(
        r#"{{"name": "charging", "bodies": [], "hydraulics": {{"oil": {{"bulk_modulus": 1.5e9, "density": 850}},
            "sources": [{{"name": "tank", "pressure": 0.0}}],
            "volumes": [{{"name": "P", "hose_volume": 1e-4, "hose_bulk_modulus": 1e12, "initial_pressure": 5e6}}],
            "valves": [{{"type": "relief", "name": "rv", "from": "P", "to": "tank", "cracking_pressure": 1.5e7,
                  "full_open_pressure": 1.6e7, "rated_flow": 1e-3, "rated_pressure_drop": 1.6e7}}],
            "pumps": [{{"name": "pump", "inlet": "tank", "outlet": "P", "displacement": 2e-5, "shaft_speed": 150.0}}],
            "accumulators": [{{"name": "acc", "node": "P", "precharge_pressure": 5e6, "volume": 1e-3,
                  "max_pressure": 2.5e7, "inlet_conductance": 1e-8}}]}},
          "solver": {{"formulation": "index3", "method": "bdf1"}}, {EXPERIMENT}}}"#
    ));
    let circuit = Circuit::new(d.hydraulics.as_ref()).unwrap();
    let svg = circuit.svg(true, None, &d.name);
    finite_numbers_only(&svg);
    icon::png_of_svg(&svg).unwrap();
    // tank, P, pump, rv, acc; connections: pump 2, relief 2, accumulator 1.
    assert_eq!(circuit.counts(), (5, 5));
    assert_eq!(groups(&svg, "hydraulic accumulator"), 1);
    let acc = component(&svg, "acc");
    assert!(acc.contains("class=\"symbol accumulator\"") && acc.contains("class=\"separator\""), "{acc}");
    // The shell is an oval: rounded to half its width.
    assert!(acc.contains("rx=\"11\""), "{acc}");
    // Above its node, and the one line from its port below ends on P's symbol.
    let bbox = |name: &str| {
        let pts = shape_points(component(&svg, name));
        let (x0, x1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let (y0, y1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
        (x0, x1, y0, y1)
    };
    let (a, p) = (bbox("acc"), bbox("P"));
    assert!(a.3 < p.2, "accumulator {a:?} not above P {p:?}");
    let lines_group = &svg[svg.find("id=\"lines\"").unwrap()..];
    let lines_group = &lines_group[..lines_group.find("</g>").unwrap()];
    let inside = |q: (f64, f64), b: (f64, f64, f64, f64)| {
        q.0 >= b.0 - 1.0 && q.0 <= b.1 + 1.0 && q.1 >= b.2 - 1.0 && q.1 <= b.3 + 1.0
    };
    let joining: Vec<Vec<(f64, f64)>> = lines_group
        .split("<polyline")
        .skip(1)
        .map(|l| shape_points(&format!("polyline{l}")))
        .filter(|pts| inside(pts[0], a) || inside(pts[pts.len() - 1], a))
        .collect();
    assert_eq!(joining.len(), 1, "{joining:?}");
    let line = &joining[0];
    assert!(inside(line[0], p) || inside(line[line.len() - 1], p), "{line:?} vs P {p:?}");
}

#[test]
fn a_cushioned_throttle_carries_the_cushion_mark_and_a_plain_one_does_not() {
    let d = description(&format!(
        r#"{{"name": "cushioned", "bodies": [], "hydraulics": {{"oil": {{"bulk_modulus": 1.5e9, "density": 850}},
            "sources": [{{"name": "supply", "pressure": 1e7}}, {{"name": "tank", "pressure": 0.0}}],
            "volumes": [{{"name": "A", "hose_volume": 1e-4, "hose_bulk_modulus": 1e12, "initial_pressure": 1e7}},
                        {{"name": "B", "hose_volume": 1e-6, "hose_bulk_modulus": 1e12, "initial_pressure": 0.0}},
                        {{"name": "PB", "hose_volume": 1e-4, "hose_bulk_modulus": 1e12, "initial_pressure": 0.0}}],
            "valves": [{{"type": "throttle", "name": "feed", "from": "supply", "to": "A", "discharge_coefficient": 0.7, "diameter": 0.02}},
                       {{"type": "throttle", "name": "brake", "from": "B", "to": "PB", "discharge_coefficient": 0.7, "diameter": 0.002,
                         "cushion": {{"cylinder": "cyl", "end": "extended", "length": 0.03, "end_fraction": 0.01}}}},
                       {{"type": "throttle", "name": "drain", "from": "PB", "to": "tank", "discharge_coefficient": 0.7, "diameter": 0.02}}],
            "cylinders": [{{"name": "cyl", "piston_side": "A", "rod_side": "B", "piston_diameter": 0.05, "rod_diameter": 0.028,
                  "stroke": 0.5, "wall_bulk_modulus": 3.15e10, "length_input": "s", "velocity_input": "v"}}]}},
          "interface": {{"inputs": [{{"name": "s", "start": 0.7}}, {{"name": "v"}}]}},
          "solver": {{"formulation": "doubleStep", "method": "trapezoidal"}}, {EXPERIMENT}}}"#
    ));
    let circuit = Circuit::new(d.hydraulics.as_ref()).unwrap();
    let svg = circuit.svg(true, None, &d.name);
    finite_numbers_only(&svg);
    icon::png_of_svg(&svg).unwrap();
    assert_eq!(groups(&svg, "hydraulic valve"), 3);
    let brake = component(&svg, "brake");
    assert!(brake.contains("class=\"cushion\"") && brake.contains("brake (cushion)"), "{brake}");
    for plain in ["feed", "drain"] {
        let g = component(&svg, plain);
        assert!(!g.contains("cushion"), "{plain}: {g}");
    }
}
