//! What a description implies for the state-space formulation (Negrut et al. Sect. 1): the number
//! of scalar constraints the index-3 mechanism is compiled into and the degrees of freedom
//! ndof = n - m, which fix the Model Exchange state vector (independent positions and
//! velocities) before anything is built. The counts mirror `engine::index3::compile`; a test
//! checks them against every compiled catalog mechanism.

use super::{Description, DescriptionError, JointKind};

impl Description {
    /// Scalar constraint rows: 3 per body of a planar mechanism (offset along the normal and
    /// two rotations out of the plane), those of each joint (fewer in a plane), one per driver.
    pub fn constraint_count(&self) -> usize {
        let planar = self.plane.is_some();
        let plane_rows = if planar { 3 * self.bodies.len() } else { 0 };
        let joint_rows: usize = self
            .joints
            .iter()
            .map(|j| match (j.kind, planar) {
                (JointKind::Revolute, true) => 2,
                (JointKind::Fixed, true) => 3,
                (JointKind::Translational, true) => 2,
                (JointKind::Revolute, false) => 5,
                (JointKind::Fixed, false) => 6,
                (JointKind::Translational, false) => 5,
                (JointKind::Spherical, _) => 3,
                (JointKind::Universal, _) => 4,
                (JointKind::Cylindrical, _) => 4,
                (JointKind::Distance, _) => 1,
            })
            .sum();
        plane_rows + joint_rows + self.drivers.len()
    }

    /// Degrees of freedom 6 n_b - m of the compiled mechanism (negative: over-constrained);
    /// beam nodes count as bodies, bodies attached to them do not.
    pub fn degrees_of_freedom(&self) -> isize {
        6 * (self.free_bodies().count() + self.node_count()) as isize - self.constraint_count() as isize
    }

    /// Rows of the cut-joint constraints Phi(z) = 0 of the semirecursive formulations (Jaiswal
    /// et al. 2021 Sect. 2.2): every body has one tree joint (revolute or translational, in space
    /// also spherical: [`Description::semirecursive_spherical_tree_joints`]); the
    /// other joints are cut: in a plane a revolute or translational cut has 2 rows, in space a
    /// spherical one 3, a distance joint 1. Mirrors `engine::semirecursive::tree` (a test
    /// checks the counts against every compiled catalog model).
    pub fn semirecursive_cut_rows(&self) -> usize {
        let planar = self.plane.is_some();
        let sliding_or_turning = |k: JointKind| matches!(k, JointKind::Revolute | JointKind::Translational);
        let tree_candidates = self.joints.iter().filter(|j| !j.cut && sliding_or_turning(j.kind)).count();
        let flagged = self.joints.iter().filter(|j| j.cut && sliding_or_turning(j.kind)).count();
        let cut_pairs = flagged + tree_candidates.saturating_sub(self.bodies.len());
        let spherical_tree = if planar { 0 } else { self.semirecursive_spherical_tree_joints() };
        let others: usize = self
            .joints
            .iter()
            .map(|j| match j.kind {
                JointKind::Spherical if !planar => 3,
                JointKind::Distance => 1,
                _ => 0,
            })
            .sum::<usize>()
            - 3 * spherical_tree;
        if planar {
            2 * cut_pairs + others
        } else {
            others
        }
    }

    /// Degrees of freedom of the semirecursive formulations: relative coordinates (one per
    /// body, three for a body on a spherical tree joint) minus cut rows (negative:
    /// over-constrained).
    pub fn semirecursive_degrees_of_freedom(&self) -> isize {
        let spherical_tree = if self.plane.is_some() { 0 } else { self.semirecursive_spherical_tree_joints() };
        (self.bodies.len() + 2 * spherical_tree) as isize - self.semirecursive_cut_rows() as isize
    }

    /// Spherical joints the semirecursive spanning tree of a spatial mechanism takes as tree
    /// joints: those not marked `cut` that join the parts the revolute and translational tree
    /// joints leave apart (the tree prefers those; a spanning forest's count, so the order
    /// does not matter). Mirrors `engine::semirecursive::tree`.
    pub fn semirecursive_spherical_tree_joints(&self) -> usize {
        // Union-find over ground (index 0) and the bodies.
        let mut parent: Vec<usize> = (0..=self.bodies.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let node = |name: &str| self.bodies.iter().position(|b| b.name == name).map_or(0, |i| i + 1);
        let join = |parent: &mut Vec<usize>, a: &str, b: &str| {
            let (ra, rb) = (root(parent, node(a)), root(parent, node(b)));
            parent[ra] = rb;
            ra != rb
        };
        for j in
            self.joints.iter().filter(|j| !j.cut && matches!(j.kind, JointKind::Revolute | JointKind::Translational))
        {
            join(&mut parent, &j.body1, &j.body2);
        }
        self.joints
            .iter()
            .filter(|j| !j.cut && j.kind == JointKind::Spherical)
            .filter(|j| join(&mut parent, &j.body1, &j.body2))
            .count()
    }

    /// The method must belong to the formulation; the state-space formulation needs a
    /// mechanism that is not over-constrained and positive tolerances.
    pub(super) fn validate_formulation(&self) -> Result<(), DescriptionError> {
        let s = &self.solver;
        let f = s.formulation;
        if !f.methods().contains(&s.method) {
            let items: Vec<&str> = f.methods().iter().map(|m| m.item_name()).collect();
            return Err(DescriptionError::Invalid {
                location: "solver".into(),
                reason: format!(
                    "method {} is not available in the {} formulation, which offers {}",
                    s.method.item_name(),
                    f.name(),
                    items.join(", ")
                ),
            });
        }
        if let Some(reason) = s.method.refusal(f) {
            return Err(DescriptionError::Invalid { location: "solver.method".into(), reason });
        }
        if let Some(reason) = s.constraint_form.refusal(f, s.method) {
            return Err(DescriptionError::Invalid { location: "solver.constraint_form".into(), reason });
        }
        for (name, value) in [
            ("absolute_tolerance", s.absolute_tolerance),
            ("relative_tolerance", s.relative_tolerance),
            ("velocity_tolerance_factor", s.velocity_tolerance_factor),
        ] {
            if let Some(v) = value {
                if !(v.is_finite() && v > 0.0) {
                    return Err(DescriptionError::Invalid {
                        location: "solver".into(),
                        reason: format!("{name} {v} must be a positive number"),
                    });
                }
            }
        }
        if f == super::Formulation::StateSpace && self.degrees_of_freedom() < 0 {
            return Err(DescriptionError::Invalid {
                location: "solver".into(),
                reason: format!(
                    "the state-space formulation needs independent constraints, but the {} constraint rows exceed the {} coordinates of {} bodies",
                    self.constraint_count(),
                    6 * self.bodies.len(),
                    self.bodies.len()
                ),
            });
        }
        Ok(())
    }
}
