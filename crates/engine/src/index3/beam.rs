//! Geometrically exact (Simo-Reissner) beam element on two structural nodes.
//!
//! Strains (Simo 1985, Eqs. 2.10-2.11; Bauchau2016 Sect. 2): Gamma = R^T x' - Gamma_0
//! (axial and shear), kappa = axial(R^T R') - kappa_0 (torsion and bending), both in the
//! section frame. Objective interpolation (Crisfield & Jelenic 1999, Sect. 4): the section
//! triad is interpolated relative to node a's triad, R(s) = R_a exp(s psi~ / L) with
//! psi = log(R_a^T R_b), so kappa = psi / L is constant and a rigid rotation of both nodes
//! changes no strain; positions are linear. One-point (mid-section) quadrature, exact for the
//! constant curvature and free of shear locking for two-node elements (Simo & Vu-Quoc 1986,
//! Sect. 5.2). Rotations are stored as matrices, so nodes turn any number of revolutions;
//! only the relative rotation of neighbouring nodes (|psi| << pi) is parameterised.
//!
//! Virtual strains in the node variations (dr global, dtheta body frame: R = R exp(dtheta~)):
//!   dpsi  = T(psi)^-1 (dtheta_b - R_rel^T dtheta_a),
//!   dphi  = E^T dtheta_a + T(psi/2) dpsi / 2,   E = exp(psi/2), R_m = R_a E,
//!   dGamma = (R_m^T (dr_b - dr_a) + g~ dphi) / L,   g = R_m^T (r_b - r_a),
//!   dkappa = dpsi / L,
//! and the nodal internal forces are F = L B^T sigma with sigma = C (eps + beta eps') (the
//! section forces with stiffness-proportional damping, eps' = B q').

use super::forces::{ElementJacobian, Wrench};
use super::BodyState;
use crate::rotation::{exp, skew, split_in_halves, HalfSplit};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// Strain-displacement matrix: rows (Gamma, kappa), columns (dr_a, dtheta_a, dr_b, dtheta_b).
pub type StrainMatrix = SMatrix<f64, 6, 12>;

/// One two-node element between the bodies (structural nodes) `nodes`.
#[derive(Clone, Debug)]
pub struct BeamElement {
    pub nodes: [usize; 2],
    /// Reference length L \[m\].
    pub length: f64,
    /// Strains of the reference configuration (stress free).
    pub reference: [f64; 6],
    /// Diagonal section stiffness EA, GA2, GA3, GJ, EI2, EI3.
    pub stiffness: [f64; 6],
    /// Stiffness-proportional damping coefficient beta \[s\].
    pub damping: f64,
    /// m L / 6 with consistent translational mass, 0 with lumped mass.
    pub mass_coupling: f64,
}

/// Strains, their rates and the section forces of an element.
#[derive(Clone, Copy, Debug)]
pub struct Section {
    /// Gamma - Gamma_0 (axial, shear 2, shear 3) and kappa - kappa_0 (torsion, bending 2, 3).
    pub strain: [f64; 6],
    pub rate: [f64; 6],
    /// Section forces N1, N2, N3 \[N\] and moments M1, M2, M3 [N m], section frame.
    pub stress: [f64; 6],
}

/// The kinematic quantities of an element configuration.
struct Kinematics {
    /// Total strains (not relative to the reference).
    strain: [f64; 6],
    b: StrainMatrix,
    /// Mid-section triad R_m.
    rm: Matrix3<f64>,
    /// d(phi_m)/d(theta_a), d(phi_m)/d(theta_b).
    dphi: [Matrix3<f64>; 2],
}

fn kinematics(length: f64, a: &BodyState, b: &BodyState) -> Kinematics {
    let rel = a.rot.transpose() * b.rot;
    let HalfSplit { psi, half, tangent_inverse: p, half_tangent } = split_in_halves(&rel);
    let rm = a.rot * half;
    let g = rm.transpose() * (b.r - a.r);
    let q = half_tangent * 0.5;
    let p_rel = p * rel.transpose();
    let gt = skew(&g);
    let inv_l = 1.0 / length;
    let mut bm = StrainMatrix::zeros();
    let rmt = rm.transpose() * inv_l;
    let dphi_a = half.transpose() - q * p_rel;
    let dphi_b = q * p;
    bm.fixed_view_mut::<3, 3>(0, 0).copy_from(&(-rmt));
    bm.fixed_view_mut::<3, 3>(0, 3).copy_from(&(gt * dphi_a * inv_l));
    bm.fixed_view_mut::<3, 3>(0, 6).copy_from(&rmt);
    bm.fixed_view_mut::<3, 3>(0, 9).copy_from(&(gt * dphi_b * inv_l));
    bm.fixed_view_mut::<3, 3>(3, 3).copy_from(&(-p_rel * inv_l));
    bm.fixed_view_mut::<3, 3>(3, 9).copy_from(&(p * inv_l));
    let strain = [g.x * inv_l, g.y * inv_l, g.z * inv_l, psi.x * inv_l, psi.y * inv_l, psi.z * inv_l];
    Kinematics { strain, b: bm, rm, dphi: [dphi_a, dphi_b] }
}

/// Everything the element's forces and tangents need at one configuration.
struct Parts {
    b: StrainMatrix,
    rm: Matrix3<f64>,
    dphi: [Matrix3<f64>; 2],
    stress: [f64; 6],
    force: SVector<f64, 12>,
}

/// Generalized velocities (v_a, w_bar_a, v_b, w_bar_b) of the element's nodes.
fn velocities(a: &BodyState, b: &BodyState) -> SVector<f64, 12> {
    let mut q = SVector::<f64, 12>::zeros();
    for k in 0..3 {
        q[k] = a.v[k];
        q[3 + k] = a.w[k];
        q[6 + k] = b.v[k];
        q[9 + k] = b.w[k];
    }
    q
}

impl BeamElement {
    /// An element between two nodes at their reference (stress-free) poses.
    pub fn new(nodes: [usize; 2], a: &BodyState, b: &BodyState, stiffness: [f64; 6], damping: f64) -> Self {
        let length = (b.r - a.r).norm();
        let reference = kinematics(length, a, b).strain;
        BeamElement { nodes, length, reference, stiffness, damping, mass_coupling: 0.0 }
    }

    fn nodes<'a>(&self, bodies: &'a [BodyState]) -> (&'a BodyState, &'a BodyState) {
        (&bodies[self.nodes[0]], &bodies[self.nodes[1]])
    }

    fn parts(&self, a: &BodyState, b: &BodyState) -> Parts {
        let k = kinematics(self.length, a, b);
        let mut s = Section { strain: [0.0; 6], rate: [0.0; 6], stress: [0.0; 6] };
        if self.damping > 0.0 {
            let rate = k.b * velocities(a, b);
            s.rate.copy_from_slice(rate.as_slice());
        }
        for i in 0..6 {
            s.strain[i] = k.strain[i] - self.reference[i];
            s.stress[i] = self.stiffness[i] * (s.strain[i] + self.damping * s.rate[i]);
        }
        let force = k.b.transpose() * SVector::<f64, 6>::from(s.stress) * self.length;
        Parts { b: k.b, rm: k.rm, dphi: k.dphi, stress: s.stress, force }
    }

    /// Strains, rates and section forces at `bodies`.
    pub fn section(&self, bodies: &[BodyState]) -> Section {
        let (a, b) = self.nodes(bodies);
        let k = kinematics(self.length, a, b);
        let rate = k.b * velocities(a, b);
        let mut s = Section { strain: [0.0; 6], rate: [0.0; 6], stress: [0.0; 6] };
        for i in 0..6 {
            s.strain[i] = k.strain[i] - self.reference[i];
            s.rate[i] = rate[i];
            s.stress[i] = self.stiffness[i] * (s.strain[i] + self.damping * rate[i]);
        }
        s
    }

    /// Internal nodal forces F = L B^T sigma (dr_a, dtheta_a, dr_b, dtheta_b).
    fn internal(&self, a: &BodyState, b: &BodyState) -> SVector<f64, 12> {
        self.parts(a, b).force
    }

    /// Subtracts the internal forces from the generalized loads of the two nodes.
    pub fn add_loads(&self, bodies: &[BodyState], out: &mut [Wrench]) {
        let (a, b) = self.nodes(bodies);
        let f = self.internal(a, b);
        for (slot, &node) in self.nodes.iter().enumerate() {
            for i in 0..6 {
                out[node][i] -= f[6 * slot + i];
            }
        }
    }

    /// Tangents of the loads -F. Translations enter only through g = R_m^T (r_b - r_a), so
    /// their columns are closed-form: dF/dr_b = -dF/dr_a = L B^T C B_b + H with B_b the
    /// r_b columns of B and H the change of B^T with g at fixed section forces (rows of the
    /// rotations: dphi^T N~ R_m^T, from F_rot = dphi^T (N x g)). Rotation columns by forward
    /// differences (perturbation 1e-7, a numerical tangent as for the other force elements,
    /// [Jaiswal2021, eqs. 40-41]; the iteration matrix only steers Newton, the residual is exact).
    /// Velocities: d/d(v, w_bar) = -L beta B^T C B in closed form.
    pub fn jacobian(&self, bodies: &[BodyState]) -> ElementJacobian {
        let (a, b) = self.nodes(bodies);
        let mut jac = ElementJacobian {
            bodies: [Some(self.nodes[0]), Some(self.nodes[1])],
            stiffness: [[0.0; 12]; 12],
            damping: [[0.0; 12]; 12],
            mass_coupling: self.mass_coupling,
        };
        let k = self.parts(a, b);
        let f0 = k.force;
        // Translation columns.
        let mut cb = k.b.fixed_columns::<3>(6).into_owned();
        for i in 0..6 {
            cb.row_mut(i).scale_mut(self.stiffness[i] * self.length);
        }
        let mut translation = k.b.transpose() * cb;
        let n_tilde = skew(&Vector3::new(k.stress[0], k.stress[1], k.stress[2]));
        let rmt = k.rm.transpose();
        let h = [k.dphi[0].transpose() * n_tilde * rmt, k.dphi[1].transpose() * n_tilde * rmt];
        for (offset, h) in [(3, h[0]), (9, h[1])] {
            let mut block = translation.fixed_view_mut::<3, 3>(offset, 0);
            block += h;
        }
        for row in 0..12 {
            for i in 0..3 {
                jac.stiffness[row][6 + i] = -translation[(row, i)];
                jac.stiffness[row][i] = translation[(row, i)];
            }
        }
        // Rotation columns.
        let eps = 1e-7;
        let mut pair = [a.clone(), b.clone()];
        for column in [3, 4, 5, 9, 10, 11] {
            let slot = column / 6;
            let base = if slot == 0 { a } else { b };
            pair[slot].rot = base.rot * exp(&Vector3::ith(column % 3, eps));
            let f = self.internal(&pair[0], &pair[1]);
            pair[slot].rot = base.rot;
            for row in 0..12 {
                jac.stiffness[row][column] = -(f[row] - f0[row]) / eps;
            }
        }
        if self.damping > 0.0 {
            let bm = k.b;
            let mut cb = bm;
            for i in 0..6 {
                cb.row_mut(i).scale_mut(self.stiffness[i] * self.damping * self.length);
            }
            let d = bm.transpose() * cb;
            for row in 0..12 {
                for column in 0..12 {
                    jac.damping[row][column] = -d[(row, column)];
                }
            }
        }
        jac
    }

    /// Strain energy L/2 eps^T C eps \[J\].
    pub fn strain_energy(&self, bodies: &[BodyState]) -> f64 {
        let s = self.section(bodies);
        0.5 * self.length * (0..6).map(|i| self.stiffness[i] * s.strain[i] * s.strain[i]).sum::<f64>()
    }

    /// Power dissipated by the damping, L beta eps'^T C eps' \[W\].
    pub fn dissipation(&self, bodies: &[BodyState]) -> f64 {
        if self.damping == 0.0 {
            return 0.0;
        }
        let s = self.section(bodies);
        self.length * self.damping * (0..6).map(|i| self.stiffness[i] * s.rate[i] * s.rate[i]).sum::<f64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(r: [f64; 3], theta: [f64; 3]) -> BodyState {
        BodyState {
            r: Vector3::from(r),
            rot: exp(&Vector3::from(theta)),
            v: Vector3::zeros(),
            w: Vector3::zeros(),
            acc: Vector3::zeros(),
            wdot: Vector3::zeros(),
        }
    }

    fn element() -> (BeamElement, Vec<BodyState>) {
        let a = node([0.1, 0.0, 0.2], [0.0, 0.0, 0.0]);
        let b = node([0.6, 0.1, 0.2], [0.0, 0.0, 0.2]);
        let e = BeamElement::new([0, 1], &a, &b, [7e3, 2e3, 3e3, 4.0, 5.0, 6.0], 0.0);
        let deformed = vec![node([0.12, -0.01, 0.25], [0.1, -0.2, 0.05]), node([0.55, 0.14, 0.18], [0.3, 0.1, 0.4])];
        (e, deformed)
    }

    /// The internal forces are the gradient of the strain energy (the element is conservative
    /// and B is the exact variation of the strains).
    #[test]
    fn internal_forces_are_the_energy_gradient() {
        let (e, bodies) = element();
        let f = e.internal(&bodies[0], &bodies[1]);
        let h = 1e-6;
        for column in 0..12 {
            let mut energy = [0.0; 2];
            for (k, sign) in [1.0, -1.0].into_iter().enumerate() {
                let mut p = bodies.clone();
                let n = &mut p[column / 6];
                let i = column % 3;
                if column % 6 < 3 {
                    n.r[i] += sign * h;
                } else {
                    n.rot *= exp(&Vector3::ith(i, sign * h));
                }
                energy[k] = e.strain_energy(&p);
            }
            let grad = (energy[0] - energy[1]) / (2.0 * h);
            assert!((grad - f[column]).abs() < 1e-6 * f.amax().max(1.0), "column {column}: {grad} vs {}", f[column]);
        }
    }

    /// A rigid motion (translation and a rotation past 2 pi) of a deformed element changes
    /// neither its strains nor its section forces (objectivity, Crisfield & Jelenic 1999).
    #[test]
    fn strains_are_objective_under_rigid_rotation() {
        let (e, bodies) = element();
        let before = e.section(&bodies);
        for angle in [0.7, 3.5, 2.0 * std::f64::consts::PI + 1.3, 40.0] {
            let q = exp(&(Vector3::new(0.3, -0.5, 0.8).normalize() * angle));
            let moved: Vec<BodyState> = bodies
                .iter()
                .map(|s| BodyState { r: q * s.r + Vector3::new(1.0, 2.0, 3.0), rot: q * s.rot, ..s.clone() })
                .collect();
            let after = e.section(&moved);
            for i in 0..6 {
                assert!((after.stress[i] - before.stress[i]).abs() < 1e-9 * before.stress[i].abs().max(1.0));
            }
        }
    }

    /// The tangent (closed-form translation columns, forward-difference rotation columns)
    /// matches central differences of the internal forces.
    #[test]
    fn tangent_matches_central_differences() {
        let (e, bodies) = element();
        let jac = e.jacobian(&bodies);
        let h = 1e-6;
        let scale = jac.stiffness.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
        for column in 0..12 {
            let mut f = [SVector::<f64, 12>::zeros(); 2];
            for (k, sign) in [1.0, -1.0].into_iter().enumerate() {
                let mut p = bodies.clone();
                let n = &mut p[column / 6];
                if column % 6 < 3 {
                    n.r[column % 3] += sign * h;
                } else {
                    n.rot *= exp(&Vector3::ith(column % 3, sign * h));
                }
                f[k] = e.internal(&p[0], &p[1]);
            }
            for (row, stiffness) in jac.stiffness.iter().enumerate() {
                let reference = -(f[0][row] - f[1][row]) / (2.0 * h);
                let error = (stiffness[column] - reference).abs();
                assert!(error < 1e-5 * scale, "({row}, {column}): {} vs {reference}", stiffness[column]);
            }
        }
    }

    #[test]
    fn reference_configuration_is_stress_free() {
        let a = node([0.0, 0.0, 0.0], [0.2, 0.1, 0.0]);
        let b = node([0.3, 0.2, 0.1], [0.25, 0.1, 0.3]);
        let e = BeamElement::new([0, 1], &a, &b, [1.0; 6], 0.0);
        let s = e.section(&[a, b]);
        assert!(s.stress.iter().all(|x| x.abs() < 1e-14));
    }
}
