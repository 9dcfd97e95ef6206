//! [`solve_small`]: Gaussian elimination with partial pivoting on a fixed-size system held by
//! value, used while computing integrator coefficients (the MSSTH5 Newton step and quadrature
//! weights, integrators/coefficients.rs).
//!
//! Kept hand-written for bit-identical coefficients: the MSSTH5 tableaus
//! ([Zhang2022, Sect. 2.3]) depend on the last bits of these solves (the Newton iteration stops at a residual
//! of 1e-15, and the quadrature weights are the solution itself). Solving the same systems with
//! faer's dense LU (`Mat::partial_piv_lu`) changed 115 of the 286 MSSTH5 coefficients and
//! abscissae over rho_inf in {0, 0.1, ..., 1} (up to 18048 ulp), nalgebra's LU 86 of them (up to
//! 23552 ulp): their operations round differently, and every integrator output built on MSSTH5
//! would move with them.

/// Solves m x = r by Gaussian elimination with partial pivoting (the last of equally large
/// candidates is the pivot; multipliers by division); None if a pivot is zero or not finite.
pub fn solve_small<const N: usize>(mut m: [[f64; N]; N], mut r: [f64; N]) -> Option<[f64; N]> {
    for col in 0..N {
        let p = (col..N).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))?;
        if m[p][col] == 0.0 || !m[p][col].is_finite() {
            return None;
        }
        m.swap(col, p);
        r.swap(col, p);
        for i in col + 1..N {
            let pivot = m[col];
            let f = m[i][col] / pivot[col];
            for (a, b) in m[i][col..].iter_mut().zip(&pivot[col..]) {
                *a -= f * b;
            }
            r[i] -= f * r[col];
        }
    }
    let mut x = [0.0; N];
    for i in (0..N).rev() {
        let s: f64 = (i + 1..N).map(|j| m[i][j] * x[j]).sum();
        x[i] = (r[i] - s) / m[i][i];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_system_that_needs_pivoting_and_refuses_a_singular_one() {
        let m = [[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, -1.0]];
        let x = [1.0, -2.0, 0.5];
        let r: [f64; 3] = std::array::from_fn(|i| (0..3).map(|j| m[i][j] * x[j]).sum());
        let got = solve_small(m, r).unwrap();
        assert!(got.iter().zip(&x).all(|(a, b)| (a - b).abs() < 1e-14), "{got:?}");
        assert_eq!(solve_small([[1.0, 2.0], [2.0, 4.0]], [1.0, 2.0]), None);
    }
}
