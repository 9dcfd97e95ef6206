//! Choice of the independent coordinates ([Negrut1997, Sect. 1], after eq. 1; \[Haug1989\]): Gaussian
//! elimination with full pivoting on the m x n constraint Jacobian Phi_q; the m pivot columns
//! are the dependent coordinates u, whose square block Phi_u is then as well conditioned as
//! the elimination can make it, and the remaining n - m columns are the independent
//! coordinates v.
//!
//! Pivoting compares entries of translation columns (dimensionless) with entries of rotation
//! columns (metres per radian: lever arms), so the choice depends on units. The rotation
//! columns are divided by twice the mechanism's largest lever arm L before the elimination
//! (rotations measured as arc length at 2L): translations then win ties and become dependent
//! where the constraints allow, and in open chains the rotations, which determine every
//! position without singular configurations, are the independent coordinates. (With equal
//! weights the pivoting may make a body's rotation depend on a position, and the partition
//! then meets a fold of the constraint manifold within a few degrees of motion.)

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::full_pivoting::factor;
use faer::{Mat, MatRef, Par, Spec};
use serde::{Deserialize, Serialize};

/// A partition q = (u, v) of the generalized coordinates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    /// Dependent coordinates u (indices into q), increasing.
    pub dependent: Vec<usize>,
    /// Independent coordinates v, increasing: the state-space coordinates.
    pub independent: Vec<usize>,
}

/// Why no partition exists: the constraint rows are dependent at this configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct RankDeficient {
    /// Constraint row whose elimination met a vanishing pivot.
    pub row: usize,
    /// That pivot relative to the first (largest) one.
    pub relative_pivot: f64,
}

/// Name of generalized coordinate `j` (body index and component) for messages.
pub fn coordinate_name(j: usize, bodies: &[String]) -> String {
    const PARTS: [&str; 6] = ["x", "y", "z", "theta_x", "theta_y", "theta_z"];
    format!("{}.{}", bodies.get(j / 6).map_or("?", |s| s.as_str()), PARTS[j % 6])
}

impl Partition {
    /// Full-pivoting LU of `phi_q` (m x n, m <= n) with the rotation columns (3..6 of every
    /// block of 6) multiplied by `rotation_scale`.
    pub fn choose(phi_q: MatRef<'_, f64>, rotation_scale: f64) -> Result<Partition, RankDeficient> {
        let (m, n) = phi_q.shape();
        assert!(m <= n, "more constraints than coordinates");
        if m == 0 {
            return Ok(Partition { dependent: Vec::new(), independent: (0..n).collect() });
        }
        let mut a: Mat<f64> = Mat::from_fn(m, n, |i, j| phi_q[(i, j)] * if j % 6 >= 3 { rotation_scale } else { 1.0 });
        let (mut rp, mut rpi, mut cp, mut cpi) = (vec![0usize; m], vec![0usize; m], vec![0usize; n], vec![0usize; n]);
        let mut stack = MemBuffer::new(factor::lu_in_place_scratch::<usize, f64>(m, n, Par::Seq, Spec::default()));
        factor::lu_in_place(
            a.as_mut(),
            &mut rp,
            &mut rpi,
            &mut cp,
            &mut cpi,
            Par::Seq,
            MemStack::new(&mut stack),
            Spec::default(),
        );
        let first = a[(0, 0)].abs();
        for k in 0..m {
            let p = a[(k, k)].abs();
            if p.is_nan() || p <= 1e-10 * first {
                return Err(RankDeficient { row: rp[k], relative_pivot: if first > 0.0 { p / first } else { 0.0 } });
            }
        }
        let mut dependent: Vec<usize> = cp[..m].to_vec();
        let mut independent: Vec<usize> = cp[m..].to_vec();
        dependent.sort_unstable();
        independent.sort_unstable();
        Ok(Partition { dependent, independent })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pivots_pick_the_best_conditioned_dependent_block() {
        // One constraint x0 + 0.01 x1 + 3 x2 = 0 on three coordinates: x2 is the best pivot.
        let phi = Mat::from_fn(1, 3, |_, j| [1.0, 0.01, 3.0][j]);
        let p = Partition::choose(phi.as_ref(), 1.0).unwrap();
        assert_eq!(p.dependent, vec![2]);
        assert_eq!(p.independent, vec![0, 1]);
        // Two equal rows are rank deficient.
        let twice = Mat::from_fn(2, 3, |_, j| [1.0, 2.0, 0.5][j]);
        assert!(Partition::choose(twice.as_ref(), 1.0).is_err());
        // A point on a body (x, y, theta): x - 2 theta = 0; the rotation column scaled by 1/4
        // loses against the translation.
        let lever = Mat::from_fn(1, 6, |_, j| [1.0, 0.0, 0.0, 0.0, 0.0, -2.0][j]);
        assert_eq!(Partition::choose(lever.as_ref(), 1.0).unwrap().dependent, vec![5]);
        assert_eq!(Partition::choose(lever.as_ref(), 0.25).unwrap().dependent, vec![0]);
    }
}
