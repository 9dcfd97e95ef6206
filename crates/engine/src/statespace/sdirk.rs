//! Coefficients of the L-stable SDIRK method of order 4 with an embedded method of order 3
//! of Hairer and Wanner, "Solving Ordinary Differential Equations II", 2nd ed. (1996),
//! Sect. IV.6, Table 6.5 (gamma = 1/4, stiffly accurate: b is the last row of A). \[Negrut1997\]
//! Sect. 3 names this method as its higher-accuracy variable-step integrator.

/// Stages.
pub const STAGES: usize = 5;
/// The diagonal gamma.
pub const GAMMA: f64 = 0.25;
/// Abscissae c_i.
pub const C: [f64; STAGES] = [0.25, 0.75, 11.0 / 20.0, 0.5, 1.0];
/// Lower-triangular A (diagonal GAMMA).
pub const A: [[f64; STAGES]; STAGES] = [
    [0.25, 0.0, 0.0, 0.0, 0.0],
    [0.5, 0.25, 0.0, 0.0, 0.0],
    [17.0 / 50.0, -1.0 / 25.0, 0.25, 0.0, 0.0],
    [371.0 / 1360.0, -137.0 / 2720.0, 15.0 / 544.0, 0.25, 0.0],
    [25.0 / 24.0, -49.0 / 48.0, 125.0 / 16.0, -85.0 / 12.0, 0.25],
];
/// Weights of the order-4 solution (= last row of A).
pub const B: [f64; STAGES] = [25.0 / 24.0, -49.0 / 48.0, 125.0 / 16.0, -85.0 / 12.0, 0.25];
/// Weights of the embedded order-3 solution.
pub const B_HAT: [f64; STAGES] = [59.0 / 48.0, -17.0 / 96.0, 225.0 / 32.0, -85.0 / 12.0, 0.0];

/// (A^2)_ij: the position update of a second-order system, V_i = v_n + h c_i v'_n + h^2 sum_j (A^2)_ij A_j.
pub fn a_squared() -> [[f64; STAGES]; STAGES] {
    let mut s = [[0.0; STAGES]; STAGES];
    for i in 0..STAGES {
        for j in 0..STAGES {
            s[i][j] = (0..STAGES).map(|k| A[i][k] * A[k][j]).sum();
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    fn times(m: &[[f64; STAGES]; STAGES], v: &[f64]) -> Vec<f64> {
        m.iter().map(|row| dot(row, v)).collect()
    }

    /// Butcher's order conditions (Hairer-Norsett-Wanner I, Table II.2.2): order 4 for b,
    /// order 3 for b_hat, row sums equal to c, and R(infinity) = 0 (L-stability).
    #[test]
    fn order_conditions_hold() {
        let one = [1.0; STAGES];
        let c2: Vec<f64> = C.iter().map(|c| c * c).collect();
        let c3: Vec<f64> = C.iter().map(|c| c * c * c).collect();
        let ac = times(&A, &C);
        let ac2 = times(&A, &c2);
        let aac = times(&A, &ac);
        let cac: Vec<f64> = C.iter().zip(&ac).map(|(c, x)| c * x).collect();
        for (i, row) in A.iter().enumerate() {
            assert!((row.iter().sum::<f64>() - C[i]).abs() < 1e-15, "row {i}");
            assert_eq!(row[i], GAMMA);
        }
        let conditions = |b: &[f64]| {
            [
                dot(b, &one) - 1.0,
                dot(b, &C) - 0.5,
                dot(b, &c2) - 1.0 / 3.0,
                dot(b, &ac) - 1.0 / 6.0,
                dot(b, &c3) - 0.25,
                dot(b, &cac) - 1.0 / 8.0,
                dot(b, &ac2) - 1.0 / 12.0,
                dot(b, &aac) - 1.0 / 24.0,
            ]
        };
        assert!(conditions(&B).iter().all(|e| e.abs() < 1e-14), "{:?}", conditions(&B));
        let hat = conditions(&B_HAT);
        assert!(hat[..4].iter().all(|e| e.abs() < 1e-14), "{hat:?}");
        assert!(hat[4..].iter().any(|e| e.abs() > 1e-3), "the embedded method is of order 3 only");
        assert_eq!(B, A[STAGES - 1]);
        // Stiffly accurate with an invertible A: R(inf) = 1 - b^T A^-1 1 = 0. Solve A x = 1.
        let mut x = [0.0; STAGES];
        for i in 0..STAGES {
            x[i] = (1.0 - (0..i).map(|j| A[i][j] * x[j]).sum::<f64>()) / A[i][i];
        }
        assert!((1.0 - dot(&B, &x)).abs() < 1e-13);
    }
}
