//! Beams of a description -> two-node elements between the layout's structural nodes (bodies
//! carrying the lumped inertia), which follow the description's bodies, beam by beam.

use super::beam::BeamElement;
use super::CompileError;
use super::{BodyProps, BodyState};
use crate::layout::Part;
use mbfmu_model::format::{BeamInertia, Description};
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

/// Appends every beam's nodes (`nodes`: the layout's structural nodes, beam by beam) to
/// `bodies` / `initial` and builds the elements.
pub fn compile_beams(
    d: &Description,
    nodes: &[Part],
    bodies: &mut Vec<BodyProps>,
    initial: &mut Vec<BodyState>,
) -> Result<Beams, CompileError> {
    let mut out = Beams { first_node: bodies.len(), ..Beams::default() };
    let mut nodes = nodes.iter();
    for beam in &d.beams {
        let first = bodies.len();
        let parts: Vec<&Part> = nodes.by_ref().take(beam.node_positions().len()).collect();
        let states: Vec<BodyState> = parts
            .iter()
            .map(|p| BodyState {
                r: p.position,
                rot: p.rot,
                v: Vector3::zeros(),
                w: Vector3::zeros(),
                acc: Vector3::zeros(),
                wdot: Vector3::zeros(),
            })
            .collect();
        let props: Vec<BodyProps> = parts
            .iter()
            .map(|p| BodyProps {
                name: p.name.clone(),
                mass: p.mass,
                inertia: p.inertia,
                inertia_inv: p.inertia.try_inverse().unwrap_or_else(Matrix3::zeros),
                static_moment: (p.static_moment != Vector3::zeros()).then_some(p.static_moment),
            })
            .collect();
        if let Some(p) = props.iter().find(|p| p.inertia_inv == Matrix3::zeros()) {
            return Err(CompileError(format!("beam node '{}': singular inertia", p.name)));
        }
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
    Ok(out)
}
