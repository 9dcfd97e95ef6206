//! [`DenseLu`]: dense LU factorizations with partial pivoting (faer, in place), allocated
//! once: factoring and solving allocate nothing (docs/architecture.md#numerics-and-allocation). Solves with
//! the matrix, its transpose and several right-hand sides at once.

use super::FactorError;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::lu::partial_pivoting::{factor, solve};
use faer::{Conj, Mat, MatMut, Par, Spec};

pub struct DenseLu {
    a: Mat<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    stack: MemBuffer,
    max_rhs: usize,
    factored: bool,
    /// Largest over smallest |U_ii| of the last factorization (a cheap condition estimate).
    pub pivot_ratio: f64,
}

impl std::fmt::Debug for DenseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseLu").field("n", &self.a.nrows()).field("pivot_ratio", &self.pivot_ratio).finish()
    }
}

impl DenseLu {
    /// An n x n system solved with up to `max_rhs` right-hand sides at once.
    pub fn new(n: usize, max_rhs: usize) -> Self {
        let max_rhs = max_rhs.max(1);
        let req = StackReq::any_of(&[
            factor::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Spec::default()),
            solve::solve_in_place_scratch::<usize, f64>(n, max_rhs, Par::Seq),
            solve::solve_transpose_in_place_scratch::<usize, f64>(n, 1, Par::Seq),
        ]);
        DenseLu {
            a: Mat::zeros(n, n),
            perm: vec![0; n],
            perm_inv: vec![0; n],
            stack: MemBuffer::new(req),
            max_rhs,
            factored: false,
            pivot_ratio: 1.0,
        }
    }

    /// The matrix to fill before [`DenseLu::factor`] (every entry must be written).
    pub fn matrix(&mut self) -> MatMut<'_, f64> {
        self.factored = false;
        self.a.as_mut()
    }

    /// Factors the matrix in place; a pivot below 1e-14 of the largest entry is singular.
    pub fn factor(&mut self) -> Result<(), FactorError> {
        self.factored = false;
        let n = self.a.nrows();
        if n == 0 {
            self.factored = true;
            self.pivot_ratio = 1.0;
            return Ok(());
        }
        let mut scale = 0.0f64;
        for j in 0..n {
            for i in 0..n {
                scale = scale.max(self.a[(i, j)].abs());
            }
        }
        factor::lu_in_place(
            self.a.as_mut(),
            &mut self.perm,
            &mut self.perm_inv,
            Par::Seq,
            MemStack::new(&mut self.stack),
            Spec::default(),
        );
        let (mut small, mut large) = (f64::INFINITY, 0.0f64);
        for i in 0..n {
            let p = self.a[(i, i)].abs();
            small = small.min(p);
            large = large.max(p);
        }
        if small.is_nan() || !(scale.is_finite()) || small <= 1e-14 * scale {
            return Err(FactorError::Singular);
        }
        self.pivot_ratio = large / small;
        self.factored = true;
        Ok(())
    }

    /// Solves A X = B in place for the columns of `rhs` (at most `max_rhs` of them).
    pub fn solve_columns(&mut self, rhs: MatMut<'_, f64>) {
        assert!(self.factored, "solve before factor");
        assert!(rhs.ncols() <= self.max_rhs);
        if self.a.nrows() == 0 || rhs.ncols() == 0 {
            return;
        }
        let n = self.a.nrows();
        // Safety: perm and perm_inv are the inverse permutations lu_in_place wrote.
        let p = unsafe { faer::perm::PermRef::new_unchecked(&self.perm, &self.perm_inv, n) };
        let a = self.a.as_ref();
        solve::solve_in_place_with_conj(a, a, p, Conj::No, rhs, Par::Seq, MemStack::new(&mut self.stack));
    }

    /// Solves A x = b in place.
    pub fn solve(&mut self, rhs: &mut [f64]) {
        let n = rhs.len();
        self.solve_columns(MatMut::from_column_major_slice_mut(rhs, n, 1));
    }

    /// Solves A^T x = b in place.
    pub fn solve_transpose(&mut self, rhs: &mut [f64]) {
        assert!(self.factored, "solve before factor");
        let n = rhs.len();
        if n == 0 {
            return;
        }
        // Safety: perm and perm_inv are the inverse permutations lu_in_place wrote.
        let p = unsafe { faer::perm::PermRef::new_unchecked(&self.perm, &self.perm_inv, n) };
        let a = self.a.as_ref();
        let x = MatMut::from_column_major_slice_mut(rhs, n, 1);
        solve::solve_transpose_in_place_with_conj(a, a, p, Conj::No, x, Par::Seq, MemStack::new(&mut self.stack));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_with_the_matrix_and_its_transpose() {
        let m = [[2.0, 1.0, 0.5], [0.0, 3.0, -1.0], [4.0, 0.2, 1.0]];
        let mut lu = DenseLu::new(3, 2);
        for (i, row) in m.iter().enumerate() {
            for (j, &value) in row.iter().enumerate() {
                lu.matrix()[(i, j)] = value;
            }
        }
        lu.factor().unwrap();
        let x = [1.0, -2.0, 0.5];
        let mut b: Vec<f64> = (0..3).map(|i| (0..3).map(|j| m[i][j] * x[j]).sum()).collect();
        lu.solve(&mut b);
        let mut bt: Vec<f64> = (0..3).map(|i| (0..3).map(|j| m[j][i] * x[j]).sum()).collect();
        lu.solve_transpose(&mut bt);
        for k in 0..3 {
            assert!((b[k] - x[k]).abs() < 1e-14 && (bt[k] - x[k]).abs() < 1e-14);
        }
        let mut singular = DenseLu::new(2, 1);
        for (i, j, v) in [(0, 0, 1.0), (0, 1, 2.0), (1, 0, 2.0), (1, 1, 4.0)] {
            singular.matrix()[(i, j)] = v;
        }
        assert_eq!(singular.factor(), Err(FactorError::Singular));
    }
}
