//! A list of output quantities compiled once (when an FMU is instantiated) into the
//! operations that evaluate them together: the x, y, z components of a body's vector in a
//! row become one copy, every component of a joint's reaction one evaluation of the joint
//! (its torque only if asked for), the energies one evaluation, so that evaluating the list
//! once per step walks a short table instead of dispatching on every quantity.

use mbfmu_model::format::Quantity;

/// No output at this position of a multi-valued operation.
pub const NO_OUTPUT: usize = usize::MAX;

/// A state vector of a body whose x, y, z components are three consecutive outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyVector {
    Position,
    Velocity,
    Acceleration,
    /// The global angular velocity A w_bar.
    AngularVelocity,
}

/// One operation of a plan; positions are indices into the values it writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OutputOp {
    /// `vector` of `body` into positions `at`, `at + 1`, `at + 2`.
    BodyVector { at: usize, body: usize, vector: BodyVector },
    /// The reaction of `joint`: force and torque components x, y, z at their positions
    /// ([`NO_OUTPUT`] where not asked for); `with_torque` if one of the torque's is.
    Reaction { joint: usize, force: [usize; 3], torque: [usize; 3], with_torque: bool },
    /// Kinetic, potential and total energy and the energy balance at their positions.
    Energies { kinetic: usize, potential: usize, total: usize, balance: usize },
    /// Any other quantity, alone.
    Single { at: usize, q: Quantity },
}

/// A compiled list of outputs (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct OutputPlan {
    /// Each output's position among the values and its quantity.
    outputs: Vec<(usize, Quantity)>,
    ops: Vec<OutputOp>,
    /// The solver statistics (not state quantities: the simulation's counters).
    statistics: Vec<(usize, Quantity)>,
    /// (position, earlier position of the same quantity): a quantity listed again is copied.
    copies: Vec<(usize, usize)>,
}

impl OutputPlan {
    /// The plan of `outputs`: (position among the values, quantity), positions distinct.
    pub fn new(outputs: &[(usize, Quantity)]) -> OutputPlan {
        let (mut unique, mut copies): (Vec<(usize, Quantity)>, _) = (Vec::new(), Vec::new());
        for &(at, q) in outputs {
            match unique.iter().find(|u| u.1 == q) {
                Some(&(first, _)) => copies.push((at, first)),
                None => unique.push((at, q)),
            }
        }
        let mut ops: Vec<OutputOp> = Vec::new();
        let mut statistics = Vec::new();
        let mut i = 0;
        while i < unique.len() {
            let (at, q) = unique[i];
            if let Some((body, vector)) = body_vector_start(&unique[i..]) {
                ops.push(OutputOp::BodyVector { at, body, vector });
                i += 3;
                continue;
            }
            match q {
                Quantity::NewtonIterations | Quantity::Steps => statistics.push((at, q)),
                Quantity::JointReactionForce { joint, axis } | Quantity::JointReactionTorque { joint, axis }
                    if axis < 3 =>
                {
                    let existing =
                        ops.iter().position(|op| matches!(op, OutputOp::Reaction { joint: j, .. } if *j == joint));
                    let index = existing.unwrap_or_else(|| {
                        ops.push(OutputOp::Reaction {
                            joint,
                            force: [NO_OUTPUT; 3],
                            torque: [NO_OUTPUT; 3],
                            with_torque: false,
                        });
                        ops.len() - 1
                    });
                    if let OutputOp::Reaction { force, torque, with_torque, .. } = &mut ops[index] {
                        if matches!(q, Quantity::JointReactionForce { .. }) {
                            force[axis] = at;
                        } else {
                            torque[axis] = at;
                            *with_torque = true;
                        }
                    }
                }
                Quantity::KineticEnergy
                | Quantity::PotentialEnergy
                | Quantity::TotalEnergy
                | Quantity::EnergyBalance => {
                    let index =
                        ops.iter().position(|op| matches!(op, OutputOp::Energies { .. })).unwrap_or_else(|| {
                            ops.push(OutputOp::Energies {
                                kinetic: NO_OUTPUT,
                                potential: NO_OUTPUT,
                                total: NO_OUTPUT,
                                balance: NO_OUTPUT,
                            });
                            ops.len() - 1
                        });
                    if let OutputOp::Energies { kinetic, potential, total, balance } = &mut ops[index] {
                        *match q {
                            Quantity::KineticEnergy => kinetic,
                            Quantity::PotentialEnergy => potential,
                            Quantity::TotalEnergy => total,
                            _ => balance,
                        } = at;
                    }
                }
                q => ops.push(OutputOp::Single { at, q }),
            }
            i += 1;
        }
        OutputPlan { outputs: outputs.to_vec(), ops, statistics, copies }
    }

    /// The outputs: (position among the values, quantity).
    pub fn outputs(&self) -> &[(usize, Quantity)] {
        &self.outputs
    }

    /// The operations (every output but the solver statistics and the copies in exactly one).
    pub fn ops(&self) -> &[OutputOp] {
        &self.ops
    }

    /// The solver statistics: (position, quantity).
    pub fn statistics(&self) -> &[(usize, Quantity)] {
        &self.statistics
    }

    /// The quantities listed more than once: (position, position of the first listing), to
    /// copy after the rest is evaluated.
    pub fn copies(&self) -> &[(usize, usize)] {
        &self.copies
    }
}

/// The body vector whose x, y, z components are the first three of `outputs`, at three
/// consecutive positions, if they are one.
fn body_vector_start(outputs: &[(usize, Quantity)]) -> Option<(usize, BodyVector)> {
    let of = |q: Quantity| match q {
        Quantity::BodyPosition { body, axis } => Some((body, BodyVector::Position, axis)),
        Quantity::BodyVelocity { body, axis } => Some((body, BodyVector::Velocity, axis)),
        Quantity::BodyAcceleration { body, axis } => Some((body, BodyVector::Acceleration, axis)),
        Quantity::BodyAngularVelocity { body, axis } => Some((body, BodyVector::AngularVelocity, axis)),
        _ => None,
    };
    let &(at, first) = outputs.first()?;
    let (body, vector, 0) = of(first)? else { return None };
    let next = |k: usize| {
        outputs.get(k).is_some_and(|&(position, q)| position == at.wrapping_add(k) && of(q) == Some((body, vector, k)))
    };
    (next(1) && next(2)).then_some((body, vector))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every quantity but the statistics is in exactly one operation, at its own position.
    #[test]
    fn every_quantity_is_planned_once() {
        let q = [
            Quantity::BodyPosition { body: 1, axis: 0 },
            Quantity::BodyPosition { body: 1, axis: 1 },
            Quantity::BodyPosition { body: 1, axis: 2 },
            Quantity::BodyVelocity { body: 0, axis: 0 },
            Quantity::BodyVelocity { body: 0, axis: 2 },
            Quantity::JointReactionTorque { joint: 2, axis: 1 },
            Quantity::KineticEnergy,
            Quantity::Steps,
            Quantity::JointReactionForce { joint: 2, axis: 0 },
            Quantity::TotalEnergy,
            Quantity::BodyAngularVelocity { body: 0, axis: 0 },
            Quantity::BodyAngularVelocity { body: 0, axis: 1 },
        ];
        let outputs: Vec<(usize, Quantity)> = q.iter().copied().enumerate().collect();
        let plan = OutputPlan::new(&outputs);
        assert_eq!(
            plan.ops(),
            &[
                OutputOp::BodyVector { at: 0, body: 1, vector: BodyVector::Position },
                OutputOp::Single { at: 3, q: q[3] },
                OutputOp::Single { at: 4, q: q[4] },
                OutputOp::Reaction {
                    joint: 2,
                    force: [8, NO_OUTPUT, NO_OUTPUT],
                    torque: [NO_OUTPUT, 5, NO_OUTPUT],
                    with_torque: true
                },
                OutputOp::Energies { kinetic: 6, potential: NO_OUTPUT, total: 9, balance: NO_OUTPUT },
                OutputOp::Single { at: 10, q: q[10] },
                OutputOp::Single { at: 11, q: q[11] },
            ]
        );
        assert_eq!(plan.statistics(), &[(7, Quantity::Steps)]);
        assert!(plan.copies().is_empty());
        assert_eq!(plan.outputs(), &outputs[..]);
        // x, y, z at positions that are not consecutive are not one copy.
        let apart = [(0, q[0]), (1, q[1]), (5, q[2])];
        assert!(OutputPlan::new(&apart).ops().iter().all(|op| matches!(op, OutputOp::Single { .. })));
        // A quantity listed again is evaluated once and copied.
        let again = [(0, q[6]), (1, q[8]), (2, q[6]), (3, q[8])];
        let plan = OutputPlan::new(&again);
        assert_eq!(plan.copies(), &[(2, 0), (3, 1)]);
        assert_eq!(plan.ops().len(), 2);
    }
}
