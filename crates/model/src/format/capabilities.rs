//! What each formulation can hold, in one table: the description is checked against it when it
//! is read (and so when it is packaged), never first when an FMU initializes, and every refusal
//! quotes the table's row. docs/modelling.md shows the same table ([`capability_table`]; a test
//! keeps the two equal).

use super::validate::invalid;
use super::{AnimationPart, Description, DescriptionError, Formulation, JointKind, Method};

/// One capability and the formulations that hold it.
pub struct Capability {
    /// What the description contains, as the table's first column says it.
    pub feature: &'static str,
    pub index3: &'static str,
    pub state_space: &'static str,
    pub semirecursive: &'static str,
}

/// The rows of the table, in its order.
pub const CAPABILITIES: &[Capability] = &[
    Capability {
        feature: "beams (structural nodes)",
        index3: "yes",
        state_space: "no",
        semirecursive: "no",
    },
    Capability {
        feature: "hydraulic circuit with cylinders on bodies or beam nodes",
        index3: "yes, every method but halfImplicit",
        state_space: "no",
        semirecursive: "yes (bodies only), with trapezoidal",
    },
    Capability {
        feature: "cylinders driven by length and velocity inputs",
        index3: "no",
        state_space: "no",
        semirecursive: "yes",
    },
    Capability {
        feature: "force elements (every type: spring-dampers, forces, torques, actuators, end stops)",
        index3: "yes",
        state_space: "yes",
        semirecursive: "yes",
    },
    Capability {
        feature: "prescribed motions (drivers)",
        index3: "yes",
        state_space: "yes",
        semirecursive: "no",
    },
    Capability {
        feature: "Coulomb friction in translational joints",
        index3: "yes",
        state_space: "yes",
        semirecursive: "no",
    },
    Capability {
        feature: "joints",
        index3: "all",
        state_space: "all",
        semirecursive: "revolute, translational and, in space, spherical in the tree (three joint rotations, their chart re-based away from gimbal lock at steps); loops closed by spherical or distance joints (and revolute, translational in a plane)",
    },
    Capability {
        feature: "Model Exchange",
        index3: "no",
        state_space: "yes",
        semirecursive: "yes (doubleStep)",
    },
    Capability {
        feature: "methods",
        index3: "halfImplicit, bdf1, lms2-4, ss2-4, bathe, msstc3-5, mssth3-5, the three ESDIRKs (trapezoidal refused)",
        state_space: "trapezoidalConstantStep, trapezoidalVariableStep, abm2, sdirk4, rk4, dopri5, dop853, auto",
        semirecursive: "trapezoidal; without a hydraulic circuit also rk4, dopri5, dop853, auto",
    },
];

/// The table as Markdown, as docs/modelling.md shows it.
pub fn capability_table() -> String {
    let mut s = String::from(
        "| the description has | index3 | stateSpace | doubleStep, penalty (semirecursive) |\n|---|---|---|---|\n",
    );
    for c in CAPABILITIES {
        s.push_str(&format!("| {} | {} | {} | {} |\n", c.feature, c.index3, c.state_space, c.semirecursive));
    }
    s
}

/// The table's row of `feature`.
fn row(feature: &str) -> &'static Capability {
    CAPABILITIES.iter().find(|c| c.feature == feature).expect("a row of the table")
}

/// The refusal of row `feature` for the description's formulation.
fn refuse(d: &Description, feature: &str) -> DescriptionError {
    let row = row(feature);
    invalid(
        "solver.formulation",
        format!(
            "'{}' cannot hold {feature}: index3 {}, stateSpace {}, doubleStep and penalty {} (docs/modelling.md, 'What each formulation supports')",
            d.solver.formulation.name(),
            row.index3,
            row.state_space,
            row.semirecursive
        ),
    )
}

impl Description {
    /// Refuses an animation part whose outputs the formulation cannot give, with the table's
    /// wording: body positions and orientations are outputs of every formulation, beam nodes
    /// only of the one that holds beams, pressures and spools of those that hold a circuit.
    pub(super) fn check_animation_capability(&self, part: AnimationPart) -> Result<(), DescriptionError> {
        let f = self.solver.formulation;
        match part {
            AnimationPart::Bodies => Ok(()),
            AnimationPart::Beams if f != Formulation::Index3 => Err(refuse(self, "beams (structural nodes)")),
            AnimationPart::Hydraulics if f == Formulation::StateSpace => {
                Err(refuse(self, "hydraulic circuit with cylinders on bodies or beam nodes"))
            }
            AnimationPart::Beams | AnimationPart::Hydraulics => Ok(()),
        }
    }

    /// Refuses what the chosen formulation (and method) cannot hold, with the table's wording.
    pub(super) fn validate_capabilities(&self) -> Result<(), DescriptionError> {
        let f = self.solver.formulation;
        let semirecursive = f.is_semirecursive();
        if !self.beams.is_empty() && f != Formulation::Index3 {
            return Err(refuse(self, "beams (structural nodes)"));
        }
        if let Some(h) = &self.hydraulics {
            let feature = "hydraulic circuit with cylinders on bodies or beam nodes";
            if f == Formulation::StateSpace {
                return Err(refuse(self, feature));
            }
            if semirecursive && !self.solver.method.holds_circuits() {
                return Err(invalid(
                    "solver.method",
                    format!(
                        "the {} method cannot integrate a hydraulic circuit: its pressure dynamics are stiff, and an explicit method's stability would limit the steps to microseconds; choose solver.method \"trapezoidal\"",
                        self.solver.method.item_name()
                    ),
                ));
            }
            if f == Formulation::Index3 {
                if self.solver.method == Method::HalfImplicit {
                    return Err(invalid(
                        "solver.method",
                        format!("the halfImplicit method cannot hold a hydraulic circuit (index3: {}); choose another solver.method, e.g. \"bdf1\" or \"esdirk324L2SA\"", row("hydraulic circuit with cylinders on bodies or beam nodes").index3),
                    ));
                }
                if h.cylinders.iter().any(|c| !c.attached()) {
                    return Err(refuse(self, "cylinders driven by length and velocity inputs"));
                }
            }
        }
        if semirecursive {
            if !self.drivers.is_empty() {
                return Err(refuse(self, "prescribed motions (drivers)"));
            }
            if self.joints.iter().any(|j| j.friction.is_some()) {
                return Err(refuse(self, "Coulomb friction in translational joints"));
            }
            if let Some(j) = self.joints.iter().find(|j| {
                !matches!(
                    j.kind,
                    JointKind::Revolute | JointKind::Translational | JointKind::Spherical | JointKind::Distance
                )
            }) {
                return Err(invalid(
                    format!("joint '{}'", j.name),
                    format!(
                        "a {} joint: '{}' holds the joints {} (docs/modelling.md, 'What each formulation supports'); use the index3 or stateSpace formulation",
                        format!("{:?}", j.kind).to_lowercase(),
                        f.name(),
                        row("joints").semirecursive
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_modelling_guide_shows_the_table_the_reader_checks() {
        let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/modelling.md"))
            .expect("docs/modelling.md");
        assert!(
            guide.contains(&capability_table()),
            "docs/modelling.md must contain the formulation table exactly as capability_table() writes it:\n{}",
            capability_table()
        );
    }
}
