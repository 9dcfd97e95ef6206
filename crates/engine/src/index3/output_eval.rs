//! Every output of an interface evaluated together (the slave fills its output cache with one
//! such evaluation per step, when an output is first read). What several quantities share
//! is computed once per evaluation: a constraint group's vector values (for the constraint
//! violation and for the reaction of the group's joint), a joint's reaction force and
//! torque, a body's global angular velocity, the energies and the friction forces. Each
//! value comes from the kernels of the single quantities (`outputs.rs`, `mod.rs`) with the
//! same operations, so [`mechanism_quantities`] and [`Mechanism::quantity`] give the same
//! bits, except for a planar mechanism stepped in its plane: its joint rates come from the
//! in-plane kernel of `planar_outputs.rs` (equal to round-off).

use super::outputs::{rotate, vector_value};
use super::planar_outputs::PlanarOutputs;
use super::{MechState, Mechanism, MAX_GROUP_VECTORS};
use crate::output_plan::{BodyVector, OutputOp, OutputPlan, NO_OUTPUT};
use mbfmu_model::format::Quantity;
use nalgebra::Vector3;

/// A joint's reaction force and torque.
type Reaction = ([f64; 3], [f64; 3]);

/// Storage for [`mechanism_quantities`], sized for its mechanism at construction so that
/// evaluating outputs allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct OutputScratch {
    pub(super) friction: Vec<f64>,
    phi: Vec<f64>,
    /// Per constraint group, the values of the vectors its rows use (valid where `have_values`).
    values: Vec<[Vector3<f64>; MAX_GROUP_VECTORS]>,
    have_values: Vec<bool>,
    /// Per joint, its reaction once evaluated.
    reactions: Vec<Option<Reaction>>,
    /// The planar kernels, for a planar mechanism stepped in its plane.
    planar: Option<PlanarOutputs>,
    /// Rates of the coupled circuit's pressures, spools and cylinder forces.
    pub(super) circuit: CircuitRates,
}

/// Time derivatives of the circuit's unknowns at an output state, formed once per call.
#[derive(Clone, Debug, Default)]
pub(crate) struct CircuitRates {
    pub(super) formed: bool,
    pub(super) pressures: Vec<f64>,
    pub(super) spools: Vec<f64>,
    pub(super) forces: Vec<f64>,
    pub(super) inputs: Vec<f64>,
    pub(super) strokes: Vec<crate::hydraulics::Stroke>,
}

impl OutputScratch {
    pub(crate) fn new(m: &Mechanism, planar: Option<PlanarOutputs>) -> std::cell::RefCell<OutputScratch> {
        std::cell::RefCell::new(OutputScratch {
            friction: Vec::with_capacity(m.joints.len()),
            phi: vec![0.0; m.n_constraints()],
            values: vec![[Vector3::zeros(); MAX_GROUP_VECTORS]; m.groups.len()],
            have_values: vec![false; m.groups.len()],
            reactions: vec![None; m.joints.len()],
            planar,
            circuit: CircuitRates::default(),
        })
    }
}

/// The vector values of group `g` at the evaluation's state, computed on first use.
#[inline(always)]
fn group_values<'a>(
    m: &Mechanism,
    state: &MechState,
    values: &'a mut [[Vector3<f64>; MAX_GROUP_VECTORS]],
    have: &mut [bool],
    g: usize,
) -> &'a [Vector3<f64>; MAX_GROUP_VECTORS] {
    if !have[g] {
        // ConstraintGroup::vector_values with the value kernel inlined.
        let group = &m.groups[g];
        let pair = m.pair(&state.bodies, &group.geometry.pair);
        let (vectors, out) = (&group.geometry.vectors, &mut values[g]);
        for &i in &group.used {
            out[i] = vector_value(&vectors[i], &pair);
        }
        have[g] = true;
    }
    &values[g]
}

/// The reaction of joint `j` (its torque only if `torque`; zero otherwise), from its group's
/// shared vector values.
#[inline]
fn evaluate_reaction(
    m: &Mechanism,
    state: &MechState,
    scratch: &mut OutputScratch,
    j: usize,
    torque: bool,
) -> Reaction {
    let values = match m.joint_group(j) {
        Some(g) => &group_values(m, state, &mut scratch.values, &mut scratch.have_values, g)[..],
        None => &[],
    };
    m.joint_reaction_from(j, state, values, torque)
}

/// The reaction of joint `j`, evaluated on first use.
fn reaction(m: &Mechanism, state: &MechState, scratch: &mut OutputScratch, j: usize) -> Reaction {
    if let Some(r) = scratch.reactions[j] {
        return r;
    }
    let r = evaluate_reaction(m, state, scratch, j, true);
    scratch.reactions[j] = Some(r);
    r
}

/// What one evaluation shares between quantities besides `OutputScratch`, formed on first use.
#[derive(Default)]
struct Shared {
    /// Kinetic and potential energy.
    energies: Option<(f64, f64)>,
    friction_done: bool,
    /// The last body whose global angular velocity was asked for (x, y, z come in a row).
    spin: Option<(usize, Vector3<f64>)>,
}

impl Shared {
    fn energies(&mut self, m: &Mechanism, state: &MechState) -> (f64, f64) {
        *self
            .energies
            .get_or_insert_with(|| (m.kinetic_energy(&state.bodies), m.potential_energy(&state.bodies, &state.angles)))
    }
}

/// An energy quantity from the kinetic and potential energy `(k, p)`.
#[inline]
fn energy_quantity(q: Quantity, (k, p): (f64, f64), state: &MechState) -> f64 {
    match q {
        Quantity::KineticEnergy => k,
        Quantity::PotentialEnergy => p,
        Quantity::TotalEnergy => k + p,
        // [Zhang2022, eq. 23]: dE = E - E0 - W.
        _ => k + p - state.energy0 - state.work,
    }
}

/// [`Mechanism::quantity`] of `q`, sharing what `scratch` and `shared` hold (inlined into
/// the two loops: a call per quantity would cost more than most quantities).
#[inline(always)]
fn quantity(m: &Mechanism, state: &MechState, q: Quantity, scratch: &mut OutputScratch, shared: &mut Shared) -> f64 {
    match q {
        Quantity::JointReactionForce { joint, axis } => reaction(m, state, scratch, joint).0[axis],
        Quantity::JointReactionTorque { joint, axis } => reaction(m, state, scratch, joint).1[axis],
        Quantity::BodyAngularVelocity { body, axis } => match shared.spin {
            Some((b, w)) if b == body => w[axis],
            _ => {
                let s = &state.bodies[body];
                let w = rotate(&s.rot, &s.w);
                shared.spin = Some((body, w));
                w[axis]
            }
        },
        Quantity::JointAngleRate { joint } => {
            let planar = match &scratch.planar {
                Some(p) => p.angle_rate(m, joint, state),
                None => None,
            };
            match planar {
                Some(rate) => rate,
                None => m.quantity(q, state),
            }
        }
        Quantity::KineticEnergy | Quantity::PotentialEnergy | Quantity::TotalEnergy | Quantity::EnergyBalance => {
            energy_quantity(q, shared.energies(m, state), state)
        }
        Quantity::JointFrictionForce { joint } => {
            if !shared.friction_done {
                super::friction_forces(m, state, &mut scratch.friction);
                shared.friction_done = true;
            }
            scratch.friction[joint]
        }
        // Mechanism::constraint_violation with the groups' shared vector values.
        Quantity::ConstraintViolation => {
            let OutputScratch { phi, values, have_values, .. } = scratch;
            phi.resize(m.n_constraints(), 0.0);
            for (g, group) in m.groups.iter().enumerate() {
                let v = group_values(m, state, values, have_values, g);
                group.constraint_values(m, state.t, state, v, phi);
            }
            phi.iter().map(|x| x * x).sum::<f64>().sqrt()
        }
        q => m.quantity(q, state),
    }
}

/// [`Mechanism::quantity`] of each of `quantities` into `out`, each shared part computed
/// once (see the module documentation).
pub(crate) fn mechanism_quantities(
    m: &Mechanism,
    state: &MechState,
    quantities: &[Quantity],
    out: &mut [f64],
    scratch: &mut OutputScratch,
) {
    scratch.have_values.fill(false);
    scratch.reactions.fill(None);
    let mut shared = Shared::default();
    for (q, x) in quantities.iter().zip(out.iter_mut()) {
        *x = quantity(m, state, *q, scratch, &mut shared);
    }
}

/// [`mechanism_quantities`] of a plan's quantities by its operations (the solver statistics
/// left as they are): the same values.
pub(crate) fn mechanism_planned_quantities(
    m: &Mechanism,
    state: &MechState,
    plan: &OutputPlan,
    out: &mut [f64],
    scratch: &mut OutputScratch,
) {
    // A plan evaluates each joint's reaction once: `scratch.reactions` is not used.
    scratch.have_values.fill(false);
    let mut shared = Shared::default();
    for op in plan.ops() {
        match *op {
            OutputOp::BodyVector { at, body, vector } => {
                let s = &state.bodies[body];
                let v = match vector {
                    BodyVector::Position => s.r,
                    BodyVector::Velocity => s.v,
                    BodyVector::Acceleration => s.acc,
                    BodyVector::AngularVelocity => rotate(&s.rot, &s.w),
                };
                out[at..at + 3].copy_from_slice(v.as_slice());
            }
            OutputOp::Reaction { joint, force, torque, with_torque } => {
                let (f, n) = evaluate_reaction(m, state, scratch, joint, with_torque);
                for i in 0..3 {
                    if force[i] != NO_OUTPUT {
                        out[force[i]] = f[i];
                    }
                    if torque[i] != NO_OUTPUT {
                        out[torque[i]] = n[i];
                    }
                }
            }
            OutputOp::Energies { kinetic, potential, total, balance } => {
                let e = shared.energies(m, state);
                let energies = [
                    (kinetic, Quantity::KineticEnergy),
                    (potential, Quantity::PotentialEnergy),
                    (total, Quantity::TotalEnergy),
                    (balance, Quantity::EnergyBalance),
                ];
                for (at, q) in energies {
                    if at != NO_OUTPUT {
                        out[at] = energy_quantity(q, e, state);
                    }
                }
            }
            OutputOp::Single { at, q } => out[at] = quantity(m, state, q, scratch, &mut shared),
        }
    }
}
