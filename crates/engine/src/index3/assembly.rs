//! Consistent initial conditions for the index-3 DAE ([Fang2023, Sect. 2], "start-up:
//! consistent initial accelerations/multipliers from one linear solve"):
//! 1. positions: Gauss-Newton on Phi(q, t0) = 0 with the mass-weighted least change
//!    dq = -W G^T S^-1 Phi;
//! 2. velocities: mass-weighted projection onto Phi_q q' = nu;
//! 3. accelerations and multipliers from [M G^T; G 0][q''; lambda] = [f; gamma].

use super::schur::{Gen, Schur};
use super::{forces, ConstraintEval, MechState, Mechanism};
use crate::linalg::FactorError;
use crate::rotation::exp;
use nalgebra::Vector3;
use std::fmt;

/// What assembly changed, for the log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AssemblyReport {
    /// Largest |Phi| of the description's configuration and the row it occurred in.
    pub initial_violation: f64,
    pub worst_constraint: String,
    /// Largest position change \[m\] and rotation \[rad\] applied to a body.
    pub max_translation: f64,
    pub max_rotation: f64,
    /// Largest change of a velocity component [m/s or rad/s] by the projection.
    pub max_velocity_change: f64,
    pub iterations: u32,
}

impl AssemblyReport {
    /// True if the description's state was noticeably inconsistent (worth a warning): more
    /// than round-off of rounded input data (1e-9 m or rad, 1e-6 m/s or rad/s) was changed.
    pub fn corrected(&self) -> bool {
        self.max_translation > 1e-9 || self.max_rotation > 1e-9 || self.max_velocity_change > 1e-6
    }
}

impl fmt::Display for AssemblyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "initial constraint violation {:.3e} (largest in {}); positions moved by up to {:.3e} m and {:.3e} rad in {} iterations; velocities changed by up to {:.3e}",
            self.initial_violation, self.worst_constraint, self.max_translation, self.max_rotation, self.iterations, self.max_velocity_change
        )
    }
}

/// Why the initial configuration could not be made consistent.
#[derive(Clone, Debug, PartialEq)]
pub enum AssemblyError {
    /// Newton on the position constraints did not converge.
    CannotAssemble {
        violation: f64,
        constraint: String,
    },
    /// The constraint Jacobian is rank deficient (redundant constraints or a singular
    /// configuration).
    Redundant {
        near: String,
    },
    NonFinite,
    /// No static equilibrium was found (`static_start`).
    Static(String),
    /// The hydraulic circuit cannot be evaluated at the start (e.g. a piston out of its stroke).
    Circuit(String),
}

impl fmt::Display for AssemblyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssemblyError::CannotAssemble { violation, constraint } => write!(
                f,
                "the configuration cannot be assembled: constraint violation {violation:.3e} remains in {constraint} (check joint locations, lengths and driver initial values)"
            ),
            AssemblyError::Redundant { near } => write!(
                f,
                "the constraints are redundant or the configuration is singular ({near}); remove duplicate joints or use joints with fewer constraints"
            ),
            AssemblyError::NonFinite => write!(f, "the initial conditions produced non-finite values"),
            AssemblyError::Static(e) => f.write_str(e),
            AssemblyError::Circuit(e) => write!(f, "the hydraulic circuit at the start: {e}"),
        }
    }
}

impl std::error::Error for AssemblyError {}

fn redundant(m: &Mechanism, e: FactorError) -> AssemblyError {
    let near = match e {
        FactorError::NotPositiveDefinite { row: Some(k) } => {
            format!("near {}", m.constraints[k].label)
        }
        _ => format!("{} constraints on {} bodies", m.n_constraints(), m.n_bodies()),
    };
    AssemblyError::Redundant { near }
}

impl Mechanism {
    /// Makes `state` consistent: positions, velocities, accelerations and multipliers.
    pub fn assemble(&self, state: &mut MechState) -> Result<AssemblyReport, AssemblyError> {
        let nb = self.n_bodies();
        let nc = self.n_constraints();
        let mut report = AssemblyReport::default();
        // The general path at any structure: the assembled start does not depend on the
        // stepping kernels (a chain's block-tridiagonal one rounds differently).
        let mut schur = Schur::general(self);
        let mut ce = ConstraintEval::default();
        let mut dq: Vec<Gen> = vec![[0.0; 6]; nb];
        let mut rhs = vec![0.0; nc];
        let original = state.bodies.clone();
        let base = state.clone();

        // 1. Positions.
        let mut converged = nc == 0;
        for it in 0..50 {
            self.constraint_jacobian(state.t, &base, &state.bodies, &mut ce);
            let (worst, &violation) =
                ce.phi.iter().enumerate().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())).unwrap_or((0, &0.0));
            if it == 0 {
                report.initial_violation = violation.abs();
                report.worst_constraint =
                    self.constraints.get(worst).map_or("no constraint".into(), |c| c.label.clone());
            }
            if !violation.is_finite() {
                return Err(AssemblyError::NonFinite);
            }
            if violation.abs() < 1e-12 {
                converged = true;
                break;
            }
            report.iterations = it + 1;
            if let Err(e) = schur.factor(&ce.rows, &state.bodies) {
                // Singular at the description's own configuration: redundant constraints;
                // singular on the way: the iteration ran into a configuration it cannot leave.
                return Err(if it == 0 {
                    redundant(self, e)
                } else {
                    AssemblyError::CannotAssemble {
                        violation: violation.abs(),
                        constraint: self.constraints[worst].label.clone(),
                    }
                });
            }
            rhs.copy_from_slice(&ce.phi);
            if !schur.solve(&mut rhs) {
                return Err(redundant(self, FactorError::Singular));
            }
            schur.w_gt(&rhs, &mut dq);
            for (b, s) in state.bodies.iter_mut().enumerate() {
                s.r -= Vector3::new(dq[b][0], dq[b][1], dq[b][2]);
                s.rot *= exp(&-Vector3::new(dq[b][3], dq[b][4], dq[b][5]));
            }
        }
        if !converged {
            self.constraint_jacobian(state.t, &base, &state.bodies, &mut ce);
            let (worst, violation) =
                ce.phi.iter().enumerate().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())).expect("constraints exist");
            if violation.abs() > 1e-9 {
                return Err(AssemblyError::CannotAssemble {
                    violation: violation.abs(),
                    constraint: self.constraints[worst].label.clone(),
                });
            }
        }
        for (s, o) in state.bodies.iter().zip(&original) {
            report.max_translation = report.max_translation.max((s.r - o.r).norm());
            report.max_rotation = report.max_rotation.max(crate::rotation::log(&(o.rot.transpose() * s.rot)).norm());
        }

        // 2. Velocities: q' -= W G^T S^-1 (G q' - nu).
        if nc > 0 {
            self.constraint_jacobian(state.t, &base, &state.bodies, &mut ce);
            schur.factor(&ce.rows, &state.bodies).map_err(|e| redundant(self, e))?;
            let qdot: Vec<Gen> = state.bodies.iter().map(|s| [s.v.x, s.v.y, s.v.z, s.w.x, s.w.y, s.w.z]).collect();
            for (k, c) in self.constraints.iter().enumerate() {
                rhs[k] = super::row_times(c, &ce.rows[k], &qdot) - ce.nu[k];
            }
            if !schur.solve(&mut rhs) {
                return Err(redundant(self, FactorError::Singular));
            }
            schur.w_gt(&rhs, &mut dq);
            for (b, s) in state.bodies.iter_mut().enumerate() {
                // Beam nodes have no initial velocities in a description: they start with
                // those the constraints and drivers require, which is no correction.
                let described = b < self.beams.first_node || self.beams.elements.is_empty();
                for i in 0..3 {
                    s.v[i] -= dq[b][i];
                    s.w[i] -= dq[b][3 + i];
                    if described {
                        report.max_velocity_change =
                            report.max_velocity_change.max(dq[b][i].abs()).max(dq[b][3 + i].abs());
                    }
                }
            }
        }

        // 3. Accelerations and multipliers.
        let mut angles = vec![0.0; self.joints.len()];
        self.update_angles(&state.bodies, &base.angles, &mut angles);
        state.angles = angles;
        let mut friction = Vec::new();
        forces::friction_forces(self, state, &mut friction);
        let mut applied = vec![[0.0; 6]; nb];
        self.applied_forces(state.t, &state.bodies, &state.angles, &friction, &mut applied);
        self.start_circuit(state, &mut applied).map_err(|e| AssemblyError::Circuit(e.to_string()))?;
        for (b, s) in state.bodies.iter().enumerate() {
            let g = self.gyroscopic(b, &s.w);
            for i in 0..3 {
                applied[b][3 + i] += g[i];
            }
        }
        let mut lambda = vec![0.0; nc];
        let mut wf: Vec<Gen> = vec![[0.0; 6]; nb];
        if nc > 0 {
            self.constraint_jacobian(state.t, &base, &state.bodies, &mut ce);
            schur.factor(&ce.rows, &state.bodies).map_err(|e| redundant(self, e))?;
        }
        // With consistent beam masses the mass matrix is the lumped one plus a coupling:
        // iterate a = M_lumped^-1 (f - coupling a - G^T lambda) (the coupling has eigenvalues
        // in [-2/3, 0] relative to the lumped masses, so the iteration contracts).
        // Bodies attached off a beam node couple that node's translation and rotation the
        // same way (block Jacobi on its positive definite 6 x 6 mass, which contracts).
        let rounds = if self.has_mass_coupling() || self.has_offset_masses() { 200 } else { 1 };
        let mut f = applied.clone();
        for _ in 0..rounds {
            for b in 0..nb {
                schur.apply_w(b, &f[b], &mut wf[b]);
            }
            if nc > 0 {
                for (k, c) in self.constraints.iter().enumerate() {
                    lambda[k] = super::row_times(c, &ce.rows[k], &wf) - ce.gamma[k];
                }
                if !schur.solve(&mut lambda) {
                    return Err(redundant(self, FactorError::Singular));
                }
                schur.w_gt(&lambda, &mut dq);
            }
            let mut change = 0.0f64;
            let mut size = 0.0f64;
            for (b, s) in state.bodies.iter_mut().enumerate() {
                for i in 0..3 {
                    let acc = wf[b][i] - if nc > 0 { dq[b][i] } else { 0.0 };
                    change = change.max((acc - s.acc[i]).abs());
                    size = size.max(acc.abs());
                    s.acc[i] = acc;
                    s.wdot[i] = wf[b][3 + i] - if nc > 0 { dq[b][3 + i] } else { 0.0 };
                }
            }
            if rounds == 1 || change <= 1e-13 * size.max(1e-300) {
                break;
            }
            f.clone_from(&applied);
            self.coupling_inertia_loads(&state.bodies, &mut f);
            self.offset_inertia_loads(&state.bodies, &mut f);
        }
        state.lambda = lambda;
        state.energy0 = self.kinetic_energy(&state.bodies) + self.potential_energy(&state.bodies, &state.angles);
        state.work = 0.0;
        let finite = state
            .bodies
            .iter()
            .all(|s| s.r.iter().chain(s.v.iter()).chain(s.acc.iter()).chain(s.wdot.iter()).all(|x| x.is_finite()))
            && state.lambda.iter().all(|x| x.is_finite());
        if !finite {
            return Err(AssemblyError::NonFinite);
        }
        Ok(report)
    }
}
