//! Bodies attached to beam nodes without a joint (`"attached_to"`): the node's equations about
//! a reference point off the centre of mass ([NewtonEuler, "Any reference frame"]; MBDyn's
//! body element on a structural node, [MBDynInput, "Body"]). Checked against the same body
//! held by a fixed joint, the conservation laws of a free beam carrying an offset mass, a
//! cantilever's closed-form statics and the description's validation; the half-implicit
//! method's coupled node mass ([Fang2023, Sect. 2.2]) against the implicit methods, the
//! closed-form fall of the centre of mass and the fixed joint.

use mbfmu_engine::Simulation;
use mbfmu_model::format::{parse, Quantity};

/// A beam along x from the origin (`elements` elements, length `length`), clamped at x = 0,
/// with a 5 kg box whose centre of mass is `offset` from the tip node: attached to the tip
/// (`attached`) or held there by a fixed joint.
fn tip_mass(length: f64, elements: usize, offset: [f64; 3], attached: bool, solver: &str) -> String {
    let [cx, cy, cz] = offset;
    let (attach, hold) = if attached {
        (r#", "attached_to": "beam.end""#.to_string(), String::new())
    } else {
        (
            String::new(),
            format!(
                r#", {{ "name": "hold", "type": "fixed", "body1": "beam.end", "body2": "box", "point": [{length}, 0, 0] }}"#
            ),
        )
    };
    format!(
        r#"{{
  "name": "TipMass",
  "gravity": [0, 0, -9.81],
  "bodies": [{{ "name": "box", "mass": 5.0, "inertia": [0.02, 0.03, 0.04],
               "orientation": {{ "axis": [0, 0, 1], "angle": 0.3 }},
               "position": [{x}, {cy}, {cz}]{attach} }}],
  "beams": [{{
    "name": "beam", "points": [[0, 0, 0], [{length}, 0, 0]], "elements": {elements}, "axis2": [0, 1, 0],
    "section": {{ "axial_stiffness": 1e8, "shear_stiffness": [4e7, 4e7], "torsional_stiffness": 2e3,
                 "bending_stiffness": [3e3, 2e3], "mass_per_length": 2.0, "inertia_per_length": [0.002, 0.001, 0.001] }}
  }}],
  "joints": [{{ "name": "clamp", "type": "fixed", "body1": "ground", "body2": "beam.start", "point": [0, 0, 0] }}{hold}],
  "experiment": {{ "stop": 0.2, "step": 0.01 }},
  "solver": {solver}
}}"#,
        x = length + cx
    )
}

/// The box's centre of mass, its velocity, its orientation quaternion and the tip node's
/// displacement over 0.2 s of a drop from rest (samples every 0.01 s).
fn drop(json: &str) -> Vec<[f64; 13]> {
    let d = parse(json).expect("valid description");
    let com = d.attached_point(0);
    let body = d.body_parts()[0];
    let tip = d.node_count() - 1;
    let mut sim = Simulation::new(&d).expect("builds");
    (1..=20)
        .map(|k| {
            sim.advance_to(0.01 * k as f64).expect("steps");
            let mut row = [0.0; 13];
            for axis in 0..3 {
                let (p, v) = match com {
                    Some(point) => (Quantity::PointPosition { point, axis }, Quantity::PointVelocity { point, axis }),
                    None => (Quantity::BodyPosition { body, axis }, Quantity::BodyVelocity { body, axis }),
                };
                row[axis] = sim.quantity(p);
                row[3 + axis] = sim.quantity(v);
                row[6 + axis] = sim.quantity(Quantity::NodeDisplacement { node: tip, axis });
            }
            for component in 0..4 {
                row[9 + component] = sim.quantity(Quantity::BodyOrientation { body, component });
            }
            row
        })
        .collect()
}

/// The body attached to the tip node moves as the same body held there by a fixed joint: the
/// two are one model, discretized alike (the joint's model has six more coordinates and six
/// constraint rows). Both converge at order 2 with LMS2; at h = 1e-4 s and 5e-5 s their
/// difference shrinks with the step, by 4.5 (it is the methods' error, not a modelling
/// difference): positions 6.3e-11 and 1.4e-11 m against a tip travel of 1.4e-2 m. Compared:
/// the box's
/// centre of mass and its velocity, its orientation (its axes turned 0.3 rad from the
/// node's) and the tip's displacement.
#[test]
fn attached_body_moves_as_the_body_on_a_fixed_joint() {
    let offset = [0.12, 0.05, -0.08];
    // Per h: the largest difference in positions (centre of mass, tip), velocities and
    // quaternion components.
    let mut differences = Vec::new();
    let mut travel = 0.0f64;
    for h in [1e-4, 5e-5] {
        let solver = format!(r#"{{ "method": "lms2", "rho_inf": 0.6, "step_size": {h}, "tolerance": 1e-12 }}"#);
        let a = drop(&tip_mass(1.0, 8, offset, true, &solver));
        let b = drop(&tip_mass(1.0, 8, offset, false, &solver));
        travel = a.iter().map(|r| r[8].abs()).fold(0.0, f64::max);
        let largest = |columns: &[usize]| {
            a.iter().zip(&b).flat_map(|(x, y)| columns.iter().map(|&c| (x[c] - y[c]).abs())).fold(0.0, f64::max)
        };
        differences.push([largest(&[0, 1, 2, 6, 7, 8]), largest(&[3, 4, 5]), largest(&[9, 10, 11, 12])]);
    }
    eprintln!(
        "tip travel {travel:.4e} m; differences (position, velocity, quaternion) at h = 1e-4, 5e-5 s: {differences:?}"
    );
    assert!(travel > 1e-2, "the tip must move: {travel}");
    let [position, velocity, quaternion] = differences[1];
    assert!(position < 1e-8 * travel, "{differences:?}");
    // Measured at 5e-5 s: 8.2e-9 m/s (of about 0.2 m/s) and 2.8e-11.
    assert!(velocity < 5e-8 && quaternion < 1e-10, "{differences:?}");
    for k in 0..3 {
        assert!(differences[1][k] < 0.5 * differences[0][k], "the difference must fall with the step: {differences:?}");
    }
}

/// The tip-mass model of [`attached_body_moves_as_the_body_on_a_fixed_joint`] made soft enough
/// for the half-implicit method's explicit velocity update (4 elements, axial and shear
/// stiffness / 100: the fastest mode near 4e3 rad/s, within h omega < 2 at h = 1e-4 s).
fn soft_tip_mass(attached: bool, solver: &str) -> String {
    let json = tip_mass(1.0, 4, [0.12, 0.05, -0.08], attached, solver);
    let soft = json.replacen(r#""axial_stiffness": 1e8"#, r#""axial_stiffness": 1e6"#, 1).replacen(
        r#""shear_stiffness": [4e7, 4e7]"#,
        r#""shear_stiffness": [4e5, 4e5]"#,
        1,
    );
    assert_ne!(soft, json);
    soft
}

/// The half-implicit method ([Fang2023, Sect. 2.2]) with the node's coupled mass: the body
/// attached to the tip node and the same body on a fixed joint converge to one motion at
/// order 1, so their difference falls as h (each is a different first-order discretization
/// of the same model: the joint's model steps the body's own coordinates). Compared as in
/// [`attached_body_moves_as_the_body_on_a_fixed_joint`], at h = 1e-4 and 5e-5 s.
#[test]
fn half_implicit_attached_body_moves_as_the_body_on_a_fixed_joint() {
    let mut differences = Vec::new();
    let mut travel = 0.0f64;
    for h in [1e-4, 5e-5] {
        let solver = format!(r#"{{ "method": "half_implicit", "step_size": {h}, "tolerance": 1e-12 }}"#);
        let a = drop(&soft_tip_mass(true, &solver));
        let b = drop(&soft_tip_mass(false, &solver));
        travel = a.iter().map(|r| r[8].abs()).fold(0.0, f64::max);
        let largest = |columns: &[usize]| {
            a.iter().zip(&b).flat_map(|(x, y)| columns.iter().map(|&c| (x[c] - y[c]).abs())).fold(0.0, f64::max)
        };
        differences.push([largest(&[0, 1, 2, 6, 7, 8]), largest(&[3, 4, 5]), largest(&[9, 10, 11, 12])]);
    }
    let orders: Vec<f64> = (0..3).map(|k| (differences[0][k] / differences[1][k]).log2()).collect();
    eprintln!(
        "half-implicit: tip travel {travel:.4e} m; differences (position, velocity, quaternion) at h = 1e-4, 5e-5 s: \
         {differences:?}; orders {orders:?}"
    );
    assert!(travel > 1e-2, "the tip must move: {travel}");
    for (k, order) in orders.iter().enumerate() {
        assert!((0.8..1.3).contains(order), "difference {k} must fall as h: {differences:?}, orders {orders:?}");
    }
    // The difference is the methods' O(h) error, small against the motion.
    assert!(differences[1][0] < 1e-2 * travel, "{differences:?}");
}

/// A beam of one element, free or pinned by a spherical joint at its loaded node, carrying a
/// 2 kg body attached to that node with its centre of mass c = (0.1, 0.05, 0.08) m off the node,
/// falling under gravity and spun up by a torque of 2 N m about z on the body (it turns by
/// about a radian in 0.3 s).
fn spinning_offset_mass(pinned: bool, solver: &str) -> String {
    let pin = if pinned {
        r#"{ "name": "pin", "type": "spherical", "body1": "ground", "body2": "beam.end", "point": [0.5, 0, 0] }"#
    } else {
        ""
    };
    format!(
        r#"{{
  "name": "SpinningOffsetMass",
  "gravity": [0, 0, -9.81],
  "bodies": [{{ "name": "lump", "mass": 2.0, "inertia": [0.01, 0.02, 0.015],
               "orientation": {{ "axis": [1, 1, 0], "angle": 0.4 }},
               "position": [0.6, 0.05, 0.08], "attached_to": "beam.end" }}],
  "beams": [{{
    "name": "beam", "points": [[0, 0, 0], [0.5, 0, 0]], "elements": 1, "axis2": [0, 1, 0],
    "section": {{ "axial_stiffness": 1e5, "shear_stiffness": [5e4, 5e4], "torsional_stiffness": 1e3,
                 "bending_stiffness": [1e3, 8e2], "mass_per_length": 1.0, "inertia_per_length": [0.02, 0.01, 0.01] }}
  }}],
  "joints": [{pin}],
  "forces": [{{ "type": "torque", "name": "spin", "body": "lump", "axis": [0, 0, 1], "value": 2.0 }}],
  "experiment": {{ "stop": 0.3, "step": 0.01 }},
  "solver": {solver}
}}"#
    )
}

/// At t = 0 and every 0.01 s to 0.3 s: the body's centre of mass and its velocity, the free
/// node's position and the centre of mass of the whole (body and the two lumped node masses,
/// 0.25 kg each).
fn spin_run(json: &str) -> Vec<[f64; 12]> {
    let d = parse(json).expect("valid description");
    let com = d.attached_point(0).expect("attached");
    let mut sim = Simulation::new(&d).expect("builds");
    (0..=30)
        .map(|k| {
            if k > 0 {
                sim.advance_to(0.01 * k as f64).expect("steps");
            }
            let mut row = [0.0; 12];
            for axis in 0..3 {
                row[axis] = sim.quantity(Quantity::PointPosition { point: com, axis });
                row[3 + axis] = sim.quantity(Quantity::PointVelocity { point: com, axis });
                row[6 + axis] = sim.quantity(Quantity::NodePosition { node: 0, axis });
                let nodes = sim.quantity(Quantity::NodePosition { node: 0, axis })
                    + sim.quantity(Quantity::NodePosition { node: 1, axis });
                row[9 + axis] = (2.0 * row[axis] + 0.25 * nodes) / 2.5;
            }
            row
        })
        .collect()
}

/// The half-implicit method on a node carrying an offset mass, free and pinned at the node
/// (then the node's coupled 6 x 6 block enters the Schur complement of [Fang2023, eq. 12]),
/// against LMS2 at h = 1e-5 s: the errors of the body's centre of mass, its velocity and the
/// free node's position fall as h (order 1, [Fang2023, Sect. 2.2]) at h = 2e-4, 1e-4, 5e-5 s.
/// Free, the centre of mass of the whole falls as g t^2 / 2 in closed form (the torque and the
/// beam's forces do not move it); the half-implicit's distance from that falls as h too.
#[test]
fn half_implicit_offset_mass_converges_at_order_one() {
    let g = [0.0, 0.0, -9.81];
    for pinned in [false, true] {
        let reference = spin_run(&spinning_offset_mass(
            pinned,
            r#"{ "method": "lms2", "rho_inf": 0.6, "step_size": 1e-5, "tolerance": 1e-12 }"#,
        ));
        // The body's turn about z over the run, seen from the node.
        let end = &reference[30];
        let turned = (end[1] - end[7]).atan2(end[0] - end[6]) - (0.05f64).atan2(0.6);
        let closed = |k: usize, i: usize| {
            let t = 0.01 * k as f64;
            reference[0][9 + i] + 0.5 * g[i] * t * t
        };
        let reference_centre =
            (0..=30).flat_map(|k| (0..3).map(move |i| (k, i))).map(|(k, i)| (reference[k][9 + i] - closed(k, i)).abs());
        let reference_centre = reference_centre.fold(0.0, f64::max);
        let mut errors = Vec::new();
        for h in [2e-4, 1e-4, 5e-5] {
            let solver = format!(r#"{{ "method": "half_implicit", "step_size": {h}, "tolerance": 1e-12 }}"#);
            let run = spin_run(&spinning_offset_mass(pinned, &solver));
            let largest = |columns: std::ops::Range<usize>| {
                run.iter()
                    .zip(&reference)
                    .flat_map(|(x, y)| columns.clone().map(|c| (x[c] - y[c]).abs()))
                    .fold(0.0, f64::max)
            };
            let centre = (0..=30)
                .flat_map(|k| (0..3).map(move |i| (k, i)))
                .map(|(k, i)| (run[k][9 + i] - closed(k, i)).abs())
                .fold(0.0, f64::max);
            errors.push([largest(0..3), largest(3..6), largest(6..9), centre]);
        }
        let orders: Vec<[f64; 4]> =
            errors.windows(2).map(|w| std::array::from_fn(|k| (w[0][k] / w[1][k]).log2())).collect();
        eprintln!(
            "pinned {pinned}: turned {turned:.2} rad; errors (com position, com velocity, node 0, whole centre of mass \
             against g t^2 / 2) at h = 2e-4, 1e-4, 5e-5 s: {errors:?}; orders {orders:?}; LMS2's centre of mass off \
             g t^2 / 2 by {reference_centre:.2e}"
        );
        assert!(turned.abs() > 0.5, "the body must spin: {turned}");
        // Pinned, the joint's reaction moves the centre of mass: no closed form.
        let checked = if pinned { 3 } else { 4 };
        for (k, o) in orders.iter().flat_map(|o| o[..checked].iter().enumerate()) {
            // Free, the velocities show an h^2 term of the beam's fast modes besides the order-1
            // error (a h + b h^2 with b h / a = 0.3 at 1e-4 s): orders 1.30, 1.23, towards 1.
            let band = if k == 1 { 0.9..1.35 } else { 0.9..1.1 };
            assert!(band.contains(o), "order 1 expected: {errors:?}, {orders:?}");
        }
        if !pinned {
            assert!(reference_centre < 1e-3 * errors[2][3], "{reference_centre} vs {errors:?}");
        }
    }
}

/// A free beam (no joint) carrying an offset mass at one end and a spring between the mass and
/// the other end, dropped from rest: the spring and the beam's elastic forces are internal,
/// so the centre of mass of the whole falls as g t^2 / 2, and the energy is conserved up to
/// the method's dissipation (SS2 at rho_inf = 1: none; the energy balance dE = E - E0 - W
/// checks the kinetic and potential energies with the offset terms).
#[test]
fn free_beam_with_offset_mass_keeps_momentum_and_energy() {
    let json = r#"{
  "name": "FreeBeam",
  "gravity": [0, 0, -9.81],
  "bodies": [{ "name": "lump", "mass": 3.0, "inertia": [0.01, 0.02, 0.03],
               "position": [1.1, 0.05, 0.1], "attached_to": "beam.end" }],
  "beams": [{
    "name": "beam", "points": [[0, 0, 0], [1, 0, 0]], "elements": 4, "axis2": [0, 1, 0],
    "section": { "axial_stiffness": 1e7, "shear_stiffness": [4e6, 4e6], "torsional_stiffness": 5e2,
                 "bending_stiffness": [8e2, 6e2], "mass_per_length": 2.0, "inertia_per_length": [0.002, 0.001, 0.001] }
  }],
  "forces": [{ "type": "tsda", "name": "spring", "body1": "lump", "body2": "beam.start",
               "point1": [1.1, 0.05, 0.1], "point2": [0, 0, 0], "stiffness": 2e3, "damping": 0.0,
               "rest_length": 1.0 }],
  "experiment": { "stop": 0.3, "step": 0.01 },
  "solver": { "method": "ss2", "rho_inf": 1.0, "step_size": 2e-4, "tolerance": 1e-12 }
}"#;
    let d = parse(json).expect("valid description");
    let com = d.attached_point(0).expect("attached");
    let mut sim = Simulation::new(&d).expect("builds");
    let nodes = d.node_count();
    // Lumped node masses: half an element's mass at each end of each element.
    let element = 2.0 * 0.25;
    let node_mass = |i: usize| if i == 0 || i == nodes - 1 { 0.5 * element } else { element };
    let total = 2.0 + 3.0;
    let centre = |sim: &Simulation| {
        let mut c = 3.0 * sim.quantity(Quantity::PointPosition { point: com, axis: 2 });
        for i in 0..nodes {
            c += node_mass(i) * sim.quantity(Quantity::NodePosition { node: i, axis: 2 });
        }
        c / total
    };
    let z0 = centre(&sim);
    let spring = 0.5 * 2e3 * ((1.1f64.powi(2) + 0.05f64.powi(2) + 0.1f64.powi(2)).sqrt() - 1.0).powi(2);
    let (mut worst_centre, mut worst_energy) = (0.0f64, 0.0f64);
    for k in 1..=30 {
        let t = 0.01 * k as f64;
        sim.advance_to(t).expect("steps");
        worst_centre = worst_centre.max((centre(&sim) - (z0 - 0.5 * 9.81 * t * t)).abs());
        worst_energy = worst_energy.max(sim.quantity(Quantity::EnergyBalance).abs());
    }
    eprintln!("centre of mass off g t^2/2 by {worst_centre:.3e} m; |dE| up to {worst_energy:.3e} J (spring energy {spring:.3e} J)");
    // Measured: 3.0e-9 m (of a 0.44 m fall) and 6.2e-6 J (5.6e-7 of the spring's energy).
    assert!(worst_centre < 1e-8, "{worst_centre}");
    assert!(worst_energy < 1e-5 * spring, "{worst_energy} vs {spring}");
}

/// Static start of a cantilever (length L, clamped at x = 0) with a mass m attached to its tip
/// node, its centre of mass c = 0.2 m beyond the tip along x: the tip carries the weight P = m g
/// and the moment P c, so its deflection is P L^3 / (3 EI) + P L / GA + P c L^2 / (2 EI)
/// (Timoshenko beam theory as in tests/beam_statics.rs, plus the end moment M L^2 / (2 EI)),
/// and its rotation P L^2 / (2 EI) + P c L / EI. The beam's own mass is 1e-6 of the tip mass.
#[test]
fn cantilever_with_an_offset_tip_mass_matches_the_closed_form() {
    let (l, ei, ga, m, c, g): (f64, f64, f64, f64, f64, f64) = (2.0, 1.0e4, 2.0e6, 1.0, 0.2, 9.81);
    let p = m * g;
    let deflection = p * l.powi(3) / (3.0 * ei) + p * l / ga + p * c * l * l / (2.0 * ei);
    let slope = p * l * l / (2.0 * ei) + p * c * l / ei;
    let mut errors = Vec::new();
    for n in [64, 512] {
        let json = format!(
            r#"{{
  "name": "OffsetTip",
  "gravity": [0, 0, -{g}],
  "bodies": [{{ "name": "tip", "mass": {m}, "inertia": [0.01, 0.01, 0.01], "position": [{x}, 0, 0],
               "attached_to": "beam.end" }}],
  "beams": [{{
    "name": "beam", "points": [[0, 0, 0], [{l}, 0, 0]], "elements": {n}, "axis2": [0, 1, 0],
    "section": {{ "axial_stiffness": 1e9, "shear_stiffness": [{ga}, {ga}], "torsional_stiffness": 1e4,
                 "bending_stiffness": [{ei}, {ei}], "mass_per_length": 5e-7, "inertia_per_length": [2e-8, 1e-8, 1e-8] }}
  }}],
  "joints": [{{ "name": "clamp", "type": "fixed", "body1": "ground", "body2": "beam.start", "point": [0, 0, 0] }}],
  "static_start": true,
  "experiment": {{ "stop": 1.0, "step": 0.01 }},
  "solver": {{ "method": "bdf1", "step_size": 0.001 }}
}}"#,
            x = l + c
        );
        let d = parse(&json).expect("valid description");
        let sim = Simulation::new(&d).expect("static equilibrium");
        let z = -sim.quantity(Quantity::NodeDisplacement { node: n, axis: 2 });
        let theta = sim.quantity(Quantity::NodeRotation { node: n, axis: 1 });
        errors.push(((z - deflection) / deflection, (theta - slope) / slope));
    }
    eprintln!("closed form: deflection {deflection:.6e} m, rotation {slope:.6e} rad; relative errors (64, 512 elements): {errors:?}");
    // Measured at 512 elements: -3.0e-6 in the deflection, -1.8e-6 in the rotation (the
    // geometric nonlinearity of a deflection of 0.15 % of L, and the discretization).
    assert!(errors[1].0.abs() < 1e-5 && errors[1].1.abs() < 1e-5, "{errors:?}");
}

/// Clear errors for what cannot be attached.
#[test]
fn attachment_errors_name_the_field_and_the_choices() {
    let base = tip_mass(1.0, 4, [0.1, 0.0, 0.0], true, r#"{ "method": "lms2", "step_size": 1e-3 }"#);
    let error = |from: &str, to: &str| {
        let json = base.replacen(from, to, 1);
        assert_ne!(json, base, "the replacement of {from} must apply");
        match parse(&json) {
            Ok(_) => panic!("{to} instead of {from} must be refused"),
            Err(e) => e.to_string(),
        }
    };
    let e = error(r#""attached_to": "beam.end""#, r#""attached_to": "beam.node9""#);
    assert!(e.contains("body 'box'") && e.contains("beam.node0 .. beam.node4"), "{e}");
    let e = error(r#""attached_to": "beam.end""#, r#""attached_to": "rotor.node1""#);
    assert!(e.contains("attached_to 'rotor.node1'") && e.contains("not a body or beam node"), "{e}");
    let e = error(r#""attached_to": "beam.end""#, r#""attached_to": "box""#);
    assert!(e.contains("is a body") && e.contains("fixed joint"), "{e}");
    let e = error(r#""attached_to": "beam.end""#, r#""velocity": [0, 1, 0], "attached_to": "beam.end""#);
    assert!(e.contains("remove its \"velocity\""), "{e}");
    let e =
        error(r#""attached_to": "beam.end""#, r#""angular_velocity": {"body": [1, 0, 0]}, "attached_to": "beam.end""#);
    assert!(e.contains("angular_velocity"), "{e}");
    // The half-implicit method takes a centre of mass off the node (the node's coupled mass)
    // but still not consistent beam mass.
    let half = base.replacen(r#""method": "lms2""#, r#""method": "half_implicit""#, 1);
    let d = parse(&half).expect("the half-implicit method with an offset attached body");
    Simulation::new(&d).expect("builds with the half-implicit method");
    let consistent = half.replacen(r#""axis2": [0, 1, 0],"#, r#""axis2": [0, 1, 0], "inertia": "consistent","#, 1);
    assert_ne!(consistent, half);
    let e = parse(&consistent).map(|_| ()).expect_err("refused").to_string();
    assert!(e.contains("half-implicit") && e.contains("lumped"), "{e}");
    let e = error(r#""solver": {"#, r#""solver": { "formulation": "state_space","#);
    assert!(e.contains("index3") || e.contains("beams"), "{e}");
    // A joint between the attached body and its node joins the node to itself.
    let e = error(
        r#""joints": ["#,
        r#""joints": [{ "name": "weld", "type": "fixed", "body1": "beam.end", "body2": "box", "point": [1, 0, 0] }, "#,
    );
    assert!(e.contains("joint 'weld'") && e.contains("one node"), "{e}");
    // Without beams there is no node.
    let json = r#"{ "name": "NoBeam", "bodies": [{ "name": "a", "mass": 1, "inertia": [1, 1, 1], "position": [0, 0, 0],
        "attached_to": "beam.end" }], "experiment": { "stop": 1, "step": 0.1 } }"#;
    let e = parse(json).map(|_| ()).expect_err("refused").to_string();
    assert!(e.contains("no beams"), "{e}");
    // One body per node.
    let json = base.replacen(
        r#""bodies": ["#,
        r#""bodies": [{ "name": "other", "mass": 1, "inertia": [1, 1, 1], "position": [1, 0, 0], "attached_to": "beam.end" }, "#,
        1,
    );
    let e = parse(&json).map(|_| ()).expect_err("refused").to_string();
    assert!(e.contains("attached to that node already"), "{e}");
}
