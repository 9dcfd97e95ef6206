//! Beams of a description -> structural nodes (bodies carrying the lumped inertia) and
//! two-node elements. Nodes follow the description's bodies in the body list, beam by beam.

use super::beam::{default_axis2, node_frame, BeamElement};
use super::{BodyProps, BodyState};
use mbfmu_model::format::{Beam, BeamInertia, Description};
use nalgebra::{Matrix3, Vector3};

/// The compiled beams: elements and, per node, the elements on either side.
#[derive(Clone, Debug, Default)]
pub struct Beams {
    pub elements: Vec<BeamElement>,
    /// Body index of the first node.
    pub first_node: usize,
    /// Elements before and after each node along its beam.
    pub adjacent: Vec<[Option<usize>; 2]>,
}

fn v3(a: &[f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// Initial node poses (at rest) and lumped inertias of one beam: each element gives half its
/// mass m L and section inertia J L to each end node, plus the rotary inertia of that half
/// about the node, m (L/2)^3 / 3 about the section axes (the lumping of the benchmark inputs
/// of Bauchau2016 as built by MBDyn, with the half-element's inertia taken about the node).
/// With consistent mass the elements add m L / 6 [-I I; I -I] to these translational
/// masses (the linear interpolation's m L / 6 [2 1; 1 2]), see `BeamElement::mass_coupling`.
fn nodes(beam: &Beam) -> (Vec<BodyState>, Vec<BodyProps>) {
    let points: Vec<Vector3<f64>> = beam.node_positions().iter().map(v3).collect();
    let n = points.len() - 1;
    let axis2 = beam.axis2.as_ref().map(v3);
    let mut states = Vec::with_capacity(n + 1);
    for i in 0..=n {
        let tangent = points[(i + 1).min(n)] - points[i.saturating_sub(1)];
        let a2 = axis2.unwrap_or_else(|| default_axis2(&tangent));
        states.push(BodyState {
            r: points[i],
            rot: node_frame(&tangent, &a2),
            v: Vector3::zeros(),
            w: Vector3::zeros(),
            acc: Vector3::zeros(),
            wdot: Vector3::zeros(),
        });
    }
    let s = &beam.section;
    let mut mass = vec![0.0; n + 1];
    let mut inertia = vec![Matrix3::zeros(); n + 1];
    for e in 0..n {
        let half = 0.5 * (points[e + 1] - points[e]).norm();
        let m = s.mass_per_length * half;
        let rotary = m * half * half / 3.0;
        let j = Matrix3::from_diagonal(&Vector3::new(
            s.inertia_per_length[0] * half,
            s.inertia_per_length[1] * half + rotary,
            s.inertia_per_length[2] * half + rotary,
        ));
        for k in [e, e + 1] {
            mass[k] += m;
            inertia[k] += j;
        }
    }
    let props = (0..=n)
        .map(|i| BodyProps {
            name: beam.node_name(i),
            mass: mass[i],
            inertia: inertia[i],
            inertia_inv: inertia[i].try_inverse().expect("positive diagonal"),
        })
        .collect();
    (states, props)
}

/// Appends every beam's nodes to `bodies` / `initial` and builds the elements.
pub fn compile_beams(d: &Description, bodies: &mut Vec<BodyProps>, initial: &mut Vec<BodyState>) -> Beams {
    let mut out = Beams { first_node: bodies.len(), ..Beams::default() };
    for beam in &d.beams {
        let first = bodies.len();
        let (states, props) = nodes(beam);
        let n = states.len() - 1;
        for i in 0..n {
            let element = out.elements.len();
            out.adjacent.push([i.checked_sub(1).map(|_| element - 1), Some(element)]);
            let mut element = BeamElement::new(
                [first + i, first + i + 1],
                &states[i],
                &states[i + 1],
                beam.section.stiffness(),
                beam.damping,
            );
            if beam.inertia == BeamInertia::Consistent {
                element.mass_coupling = beam.section.mass_per_length * element.length / 6.0;
            }
            out.elements.push(element);
        }
        out.adjacent.push([Some(out.elements.len() - 1), None]);
        bodies.extend(props);
        initial.extend(states);
    }
    out
}
