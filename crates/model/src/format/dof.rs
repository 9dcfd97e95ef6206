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
    /// beam nodes count as bodies.
    pub fn degrees_of_freedom(&self) -> isize {
        6 * (self.bodies.len() + self.node_count()) as isize - self.constraint_count() as isize
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
