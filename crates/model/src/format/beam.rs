//! Geometrically exact beams in a description: a reference line, a section and an element
//! count. A beam of n elements owns n + 1 structural nodes, named `<beam>.node<i>` (also
//! `<beam>.start` and `<beam>.end`), to which joints, drivers, forces and outputs attach
//! like to bodies. Nodes start at rest in the reference configuration, or with the
//! velocities the joints and drivers require at the start time. The element itself (Simo-Reissner strains, objective interpolation) lives
//! in the engine's index-3 formulation.

use super::keyword::keyword;
use super::validate::{check_vector, invalid, norm3};
use super::{Description, DescriptionError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A straight or polygonal beam.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Beam {
    /// Unique name (a C identifier); its nodes are `<name>.node<i>`, `<name>.start`, `<name>.end`.
    pub name: String,
    /// Reference line in the global frame at the initial configuration \[m\]: its two end
    /// points (divided into `elements` equal elements) or every node in order.
    pub points: Vec<[f64; 3]>,
    /// Number of elements when `points` holds the two end points (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elements: Option<usize>,
    /// A direction that fixes section axis 2 at the initial configuration (its part normal to
    /// the beam axis is used) [-]; default: the global axis most normal to the beam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis2: Option<[f64; 3]>,
    /// Sectional stiffness and inertia.
    pub section: Section,
    /// Stiffness-proportional damping: section forces gain `damping` times the stiffness
    /// times the strain rates \[s\].
    #[serde(default)]
    pub damping: f64,
    /// How the beam's mass is distributed to its nodes.
    #[serde(default)]
    pub inertia: BeamInertia,
}

/// Sectional properties, axis 1 along the beam, axes 2 and 3 in the section (diagonal 6x6
/// stiffness, no offsets; the convention of Bauchau et al. 2016).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// EA \[N\].
    pub axial_stiffness: f64,
    /// GA2, GA3: shear stiffness along axes 2 and 3 \[N\].
    pub shear_stiffness: [f64; 2],
    /// GJ [N.m2].
    pub torsional_stiffness: f64,
    /// EI2, EI3: bending stiffness about axes 2 and 3 [N.m2].
    pub bending_stiffness: [f64; 2],
    /// Mass per unit length [kg/m].
    pub mass_per_length: f64,
    /// J11, J22, J33: mass moments of inertia of the section per unit length about axes 1
    /// (polar), 2 and 3 [kg.m].
    pub inertia_per_length: [f64; 3],
}

impl Section {
    /// EA, GA2, GA3, GJ, EI2, EI3.
    pub fn stiffness(&self) -> [f64; 6] {
        let [ga2, ga3] = self.shear_stiffness;
        let [ei2, ei3] = self.bending_stiffness;
        [self.axial_stiffness, ga2, ga3, self.torsional_stiffness, ei2, ei3]
    }
}

keyword! {
    /// Mass distribution of a beam.
    #[derive(Default)]
    pub enum BeamInertia("beam inertia") {
        /// Each element gives half its mass and section inertia to each of its nodes, with the
        /// rotary inertia of that half about the node (as the benchmark models of Bauchau et al.
        /// 2016 do).
        #[default]
        Lumped = "lumped",
        /// The consistent translational mass of the linear interpolation, m L / 6 \[2 1; 1 2\]
        /// per element (coupling neighbouring nodes), with the section's rotary inertia lumped
        /// as above. Not with the half-implicit method, whose update needs a block-diagonal
        /// mass matrix.
        Consistent = "consistent",
    }
}

impl Beam {
    /// Number of elements.
    pub fn element_count(&self) -> usize {
        if self.points.len() == 2 {
            self.elements.unwrap_or(1)
        } else {
            self.points.len().saturating_sub(1)
        }
    }

    /// Initial node positions, global \[m\].
    pub fn node_positions(&self) -> Vec<[f64; 3]> {
        if self.points.len() != 2 {
            return self.points.clone();
        }
        let n = self.element_count();
        let [a, b] = [self.points[0], self.points[1]];
        (0..=n)
            .map(|i| {
                let s = i as f64 / n as f64;
                std::array::from_fn(|k| a[k] + s * (b[k] - a[k]))
            })
            .collect()
    }

    /// Canonical name of node `i`.
    pub fn node_name(&self, i: usize) -> String {
        format!("{}.node{i}", self.name)
    }

    /// Index of the node `name` names (`<beam>.node<i>`, `<beam>.start`, `<beam>.end`).
    pub fn node_of(&self, name: &str) -> Option<usize> {
        let rest = name.strip_prefix(self.name.as_str())?.strip_prefix('.')?;
        let n = self.element_count();
        match rest {
            "start" => Some(0),
            "end" => Some(n),
            _ => {
                let digits = rest.strip_prefix("node")?;
                if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) || digits.len() > 9 {
                    return None;
                }
                let i: usize = digits.parse().ok()?;
                (i <= n).then_some(i)
            }
        }
    }

    fn validate(&self) -> Result<(), DescriptionError> {
        let loc = format!("beam '{}'", self.name);
        let loc = loc.as_str();
        if self.points.len() < 2 {
            return Err(invalid(loc, "points: give the two end points or every node (at least two points)"));
        }
        for (i, p) in self.points.iter().enumerate() {
            check_vector(loc, &format!("points[{i}]"), p)?;
        }
        match self.elements {
            Some(0) => return Err(invalid(loc, "elements must be at least 1")),
            Some(_) if self.points.len() > 2 => {
                return Err(invalid(loc, "elements: give either two end points and an element count, or every node"))
            }
            Some(n) if n > 100_000 => return Err(invalid(loc, format!("elements {n} is more than 100000"))),
            _ => {}
        }
        let nodes = self.node_positions();
        for (i, w) in nodes.windows(2).enumerate() {
            let d = [w[1][0] - w[0][0], w[1][1] - w[0][1], w[1][2] - w[0][2]];
            if norm3(&d).is_nan() || norm3(&d) <= 1e-12 {
                return Err(invalid(loc, format!("element {i} has zero length (points must be distinct)")));
            }
        }
        if let Some(a) = &self.axis2 {
            check_vector(loc, "axis2", a)?;
            if norm3(a) == 0.0 {
                return Err(invalid(loc, "axis2 must be a nonzero vector"));
            }
            for (i, w) in nodes.windows(2).enumerate() {
                let d = [w[1][0] - w[0][0], w[1][1] - w[0][1], w[1][2] - w[0][2]];
                let cross = [d[1] * a[2] - d[2] * a[1], d[2] * a[0] - d[0] * a[2], d[0] * a[1] - d[1] * a[0]];
                if norm3(&cross) <= 1e-9 * norm3(&d) * norm3(a) {
                    return Err(invalid(loc, format!("axis2 is parallel to element {i}; it must cross the beam")));
                }
            }
        }
        let s = &self.section;
        let named = [
            ("section.axial_stiffness", s.axial_stiffness),
            ("section.shear_stiffness[0]", s.shear_stiffness[0]),
            ("section.shear_stiffness[1]", s.shear_stiffness[1]),
            ("section.torsional_stiffness", s.torsional_stiffness),
            ("section.bending_stiffness[0]", s.bending_stiffness[0]),
            ("section.bending_stiffness[1]", s.bending_stiffness[1]),
            ("section.mass_per_length", s.mass_per_length),
            ("section.inertia_per_length[0]", s.inertia_per_length[0]),
            ("section.inertia_per_length[1]", s.inertia_per_length[1]),
            ("section.inertia_per_length[2]", s.inertia_per_length[2]),
        ];
        for (field, v) in named {
            if !(v.is_finite() && v > 0.0) {
                return Err(invalid(loc, format!("{field} = {v} must be a positive number")));
            }
        }
        if !(self.damping.is_finite() && self.damping >= 0.0) {
            return Err(invalid(loc, format!("damping = {} must be zero or positive [s]", self.damping)));
        }
        Ok(())
    }
}

/// A node of some beam: its beam's index and its index along the beam.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeRef {
    pub beam: usize,
    pub node: usize,
}

impl Description {
    /// Total number of beam nodes.
    pub fn node_count(&self) -> usize {
        self.beams.iter().map(|b| b.element_count() + 1).sum()
    }

    /// Index of beam `name`.
    pub fn beam_index(&self, name: &str) -> Option<usize> {
        self.beams.iter().position(|b| b.name == name)
    }

    /// The beam node `name` refers to.
    pub fn node_ref(&self, name: &str) -> Option<NodeRef> {
        let (beam_name, _) = name.split_once('.')?;
        let beam = self.beam_index(beam_name)?;
        Some(NodeRef { beam, node: self.beams[beam].node_of(name)? })
    }

    /// Index of node `name` among all nodes (beams in order, nodes along each beam).
    pub fn node_index(&self, name: &str) -> Option<usize> {
        let r = self.node_ref(name)?;
        Some(self.beams[..r.beam].iter().map(|b| b.element_count() + 1).sum::<usize>() + r.node)
    }

    /// Index of a body or beam node in the list bodies-then-nodes that the index-3
    /// formulation compiles (None for unknown names): the bodies with coordinates of their
    /// own, then the nodes; a body attached to a node (`Body::attached_to`) is its node.
    pub fn body_or_node_index(&self, name: &str) -> Option<usize> {
        if !self.has_attached_bodies() {
            return self.body_index(name).or_else(|| self.node_index(name).map(|n| self.bodies.len() + n));
        }
        let free = self.free_bodies().count();
        match self.body_index(name) {
            Some(b) => match &self.bodies[b].attached_to {
                Some(node) => self.node_index(node).map(|n| free + n),
                None => Some(self.bodies[..b].iter().filter(|b| b.attached_to.is_none()).count()),
            },
            None => self.node_index(name).map(|n| free + n),
        }
    }

    /// Bodies attached to beam nodes: the node exists, the body gives no initial velocity,
    /// and the formulation and method can carry it.
    pub(super) fn validate_attachments(&self) -> Result<(), DescriptionError> {
        for b in &self.bodies {
            let Some(node) = &b.attached_to else { continue };
            let loc = format!("body '{}'", b.name);
            let loc = loc.as_str();
            if self.body_index(node).is_some() {
                return Err(invalid(
                    loc,
                    format!(
                        "attached_to '{node}' is a body: a body can be attached only to a beam node \
                         (<beam>.node<i>, <beam>.start, <beam>.end); join two bodies with a fixed joint"
                    ),
                ));
            }
            if self.beams.is_empty() {
                return Err(invalid(
                    loc,
                    format!("attached_to '{node}': this model has no beams, so there is no node to attach the body to"),
                ));
            }
            self.attachment_ref(loc, "attached_to", node, false)?;
            let same = |other: &super::Body| {
                other.attached_to.as_deref().and_then(|n| self.node_index(n)) == self.node_index(node)
            };
            if let Some(first) = self.bodies.iter().find(|o| same(o)).filter(|o| o.name != b.name) {
                return Err(invalid(
                    loc,
                    format!(
                        "attached_to '{node}': body '{}' is attached to that node already; attach one body per node \
                         (combine their mass and inertia into one body)",
                        first.name
                    ),
                ));
            }
            if self.solver.formulation != super::Formulation::Index3 {
                return Err(invalid(
                    loc,
                    format!(
                        "attached_to '{node}': bodies on beam nodes need the index3 formulation (the {} formulation has no beams)",
                        self.solver.formulation.name()
                    ),
                ));
            }
            let spin = match &b.angular_velocity {
                super::AngularVelocity::Global(w) | super::AngularVelocity::Body { body: w } => *w,
            };
            if b.velocity != [0.0; 3] || spin != [0.0; 3] {
                return Err(invalid(
                    loc,
                    format!(
                        "an attached body moves with its node '{node}': remove its \"velocity\" and \"angular_velocity\" \
                         (the beam's nodes start at rest)"
                    ),
                ));
            }
        }
        // A joint between an attached body and its own node would join the node to itself.
        if self.has_attached_bodies() {
            for j in &self.joints {
                let part = |n: &str| (n != super::GROUND).then(|| self.body_or_node_index(n)).flatten();
                if let (Some(a), Some(b)) = (part(&j.body1), part(&j.body2)) {
                    if a == b {
                        return Err(invalid(
                            format!("joint '{}'", j.name),
                            format!(
                                "'{}' and '{}' are one node (a body attached to a node moves with it): remove the joint",
                                j.body1, j.body2
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The reference position of beam node `name` (validated), the origin if unknown.
    pub fn node_position(&self, name: &str) -> [f64; 3] {
        self.node_ref(name).map_or([0.0; 3], |r| self.beams[r.beam].node_positions()[r.node])
    }

    pub(super) fn validate_beams(&self) -> Result<(), DescriptionError> {
        for b in &self.beams {
            b.validate()?;
        }
        self.validate_attachments()?;
        if !self.beams.is_empty() {
            if self.solver.method == super::Method::HalfImplicit
                && self.beams.iter().any(|b| b.inertia == BeamInertia::Consistent)
            {
                return Err(invalid(
                    "solver",
                    "the half-implicit method needs lumped beam inertia; choose another method or \"inertia\": \"lumped\"",
                ));
            }
            if self.plane.is_some() {
                return Err(invalid("model", "beams move in space: a model with beams cannot be planar ('plane')"));
            }
        }
        Ok(())
    }
}
