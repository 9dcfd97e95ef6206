//! Linear systems with a fixed sparsity pattern, solved with faer (ARCHITECTURE.md
//! principle 9): dense in-place factorizations for small systems, sparse Cholesky / LU with
//! the symbolic analysis computed once for large ones. Memory is allocated at construction;
//! assembling, factoring and solving allocate nothing.
//!
//! Assembly is by slot: the pattern is a list of (row, col) entries fixed at construction
//! (duplicates accumulate); values are added in that same order.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::LltParams;
use faer::linalg::lu::partial_pivoting::factor::PartialPivLuParams;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LltRef, SymbolicCholesky, SymmetricOrdering,
};
use faer::sparse::linalg::lu::{factorize_symbolic_lu, LuRef, LuSymbolicParams, NumericLu, SymbolicLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, Par, Side, Spec};

/// Systems up to this size are factored densely.
pub const DENSE_LIMIT: usize = 64;

/// What can go wrong in a factorization.
#[derive(Clone, Debug, PartialEq)]
pub enum FactorError {
    /// Cholesky met a non-positive pivot at this (original) row.
    NotPositiveDefinite { row: Option<usize> },
    /// LU met a (numerically) zero pivot.
    Singular,
}

enum Backend {
    Dense {
        a: Mat<f64>,
        perm: Vec<usize>,
        perm_inv: Vec<usize>,
        stack: MemBuffer,
    },
    SparseCholesky {
        col_ptr: Vec<usize>,
        row_idx: Vec<usize>,
        symbolic: SymbolicCholesky<usize>,
        l_values: Vec<f64>,
        stack: MemBuffer,
    },
    SparseLu {
        col_ptr: Vec<usize>,
        row_idx: Vec<usize>,
        symbolic: SymbolicLu<usize>,
        numeric: NumericLu<usize, f64>,
        stack: MemBuffer,
    },
}

/// A square linear system A x = b with a fixed pattern.
pub struct LinearSystem {
    n: usize,
    spd: bool,
    /// slot -> index into `values`
    targets: Vec<usize>,
    /// dense: column-major n x n; sparse: CSC values
    values: Vec<f64>,
    backend: Backend,
    factored: bool,
}

impl std::fmt::Debug for LinearSystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinearSystem")
            .field("n", &self.n)
            .field("spd", &self.spd)
            .field("slots", &self.targets.len())
            .finish()
    }
}

impl LinearSystem {
    /// `pattern` lists the (row, col) of every slot. For `spd` systems (symmetric positive
    /// definite, Cholesky) the pattern must be symmetric; only the lower triangle is read.
    pub fn new(n: usize, pattern: &[(usize, usize)], spd: bool) -> Self {
        assert!(pattern.iter().all(|&(r, c)| r < n && c < n), "pattern entry outside the matrix");
        if n <= DENSE_LIMIT {
            let targets = pattern.iter().map(|&(r, c)| r + c * n).collect();
            let req =
                if spd {
                    faer::linalg::cholesky::llt::factor::cholesky_in_place_scratch::<f64>(
                        n,
                        Par::Seq,
                        Spec::<LltParams, f64>::default(),
                    )
                } else {
                    faer::linalg::lu::partial_pivoting::factor::lu_in_place_scratch::<usize, f64>(
                        n,
                        n,
                        Par::Seq,
                        Spec::<PartialPivLuParams, f64>::default(),
                    )
                    .or(faer::linalg::lu::partial_pivoting::solve::solve_in_place_scratch::<usize, f64>(n, 1, Par::Seq))
                };
            return LinearSystem {
                n,
                spd,
                targets,
                values: vec![0.0; n * n],
                backend: Backend::Dense {
                    a: Mat::zeros(n, n),
                    perm: vec![0; n],
                    perm_inv: vec![0; n],
                    stack: MemBuffer::new(req),
                },
                factored: false,
            };
        }
        // Compressed sparse columns: sort and deduplicate the pattern.
        let mut entries: Vec<(usize, usize)> = pattern.iter().map(|&(r, c)| (c, r)).collect();
        if spd {
            entries.retain(|&(c, r)| r >= c);
        }
        entries.sort_unstable();
        entries.dedup();
        let mut col_ptr = vec![0usize; n + 1];
        let mut row_idx = Vec::with_capacity(entries.len());
        for &(c, r) in &entries {
            col_ptr[c + 1] += 1;
            row_idx.push(r);
        }
        for c in 0..n {
            col_ptr[c + 1] += col_ptr[c];
        }
        let position = |r: usize, c: usize| -> usize {
            let (r, c) = if spd && r < c { (c, r) } else { (r, c) };
            let start = col_ptr[c];
            start + row_idx[start..col_ptr[c + 1]].binary_search(&r).expect("entry is in the pattern")
        };
        // Upper-triangle slots of SPD systems are dropped (usize::MAX): the lower twin carries the value.
        let targets = pattern.iter().map(|&(r, c)| if spd && r < c { usize::MAX } else { position(r, c) }).collect();
        let nnz = row_idx.len();
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
        let backend = if spd {
            let symbolic = factorize_symbolic_cholesky(
                sym,
                Side::Lower,
                SymmetricOrdering::Amd,
                CholeskySymbolicParams::default(),
            )
            .expect("symbolic Cholesky of a valid pattern");
            let req = symbolic
                .factorize_numeric_llt_scratch::<f64>(Par::Seq, Spec::<LltParams, f64>::default())
                .or(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
            Backend::SparseCholesky {
                l_values: vec![0.0; symbolic.len_val()],
                stack: MemBuffer::new(req),
                symbolic,
                col_ptr,
                row_idx,
            }
        } else {
            let symbolic =
                factorize_symbolic_lu(sym, LuSymbolicParams::default()).expect("symbolic LU of a valid pattern");
            let req = symbolic
                .factorize_numeric_lu_scratch::<f64>(Par::Seq, Spec::<PartialPivLuParams, f64>::default())
                .or(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
            Backend::SparseLu { numeric: NumericLu::new(), stack: MemBuffer::new(req), symbolic, col_ptr, row_idx }
        };
        LinearSystem { n, spd, targets, values: vec![0.0; nnz], backend, factored: false }
    }

    pub fn dim(&self) -> usize {
        self.n
    }

    /// Zeroes every entry before a new assembly.
    pub fn clear(&mut self) {
        self.values.iter_mut().for_each(|v| *v = 0.0);
        self.factored = false;
    }

    /// Adds `value` to the entry of pattern slot `slot`.
    #[inline]
    pub fn add(&mut self, slot: usize, value: f64) {
        let t = self.targets[slot];
        if t != usize::MAX {
            self.values[t] += value;
        }
    }

    /// Factors the assembled matrix.
    pub fn factor(&mut self) -> Result<(), FactorError> {
        self.factored = false;
        let n = self.n;
        match &mut self.backend {
            Backend::Dense { a, perm, perm_inv, stack } => {
                for c in 0..n {
                    for r in 0..n {
                        a[(r, c)] = self.values[r + c * n];
                    }
                }
                if self.spd {
                    faer::linalg::cholesky::llt::factor::cholesky_in_place(
                        a.as_mut(),
                        Default::default(),
                        Par::Seq,
                        MemStack::new(stack),
                        Spec::<LltParams, f64>::default(),
                    )
                    .map_err(|e| match e {
                        faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index } => {
                            FactorError::NotPositiveDefinite { row: Some(index) }
                        }
                    })?;
                } else {
                    let scale = self.values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                    faer::linalg::lu::partial_pivoting::factor::lu_in_place(
                        a.as_mut(),
                        perm,
                        perm_inv,
                        Par::Seq,
                        MemStack::new(stack),
                        Spec::<PartialPivLuParams, f64>::default(),
                    );
                    let smallest = (0..n).map(|i| a[(i, i)].abs()).fold(f64::INFINITY, f64::min);
                    if !(smallest > 1e-14 * scale) {
                        return Err(FactorError::Singular);
                    }
                }
            }
            Backend::SparseCholesky { col_ptr, row_idx, symbolic, l_values, stack } => {
                let sym = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
                let a = SparseColMatRef::new(sym, &self.values);
                symbolic
                    .factorize_numeric_llt(
                        l_values,
                        a,
                        Side::Lower,
                        Default::default(),
                        Par::Seq,
                        MemStack::new(stack),
                        Spec::<LltParams, f64>::default(),
                    )
                    .map_err(|_| FactorError::NotPositiveDefinite { row: None })?;
            }
            Backend::SparseLu { col_ptr, row_idx, symbolic, numeric, stack } => {
                let sym = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
                let a = SparseColMatRef::new(sym, &self.values);
                symbolic
                    .factorize_numeric_lu(
                        numeric,
                        a,
                        Par::Seq,
                        MemStack::new(stack),
                        Spec::<PartialPivLuParams, f64>::default(),
                    )
                    .map_err(|_| FactorError::Singular)?;
            }
        }
        self.factored = true;
        Ok(())
    }

    /// Solves A x = rhs in place with the last factorization. Returns false if the solution
    /// is not finite (a numerically singular matrix).
    pub fn solve(&mut self, rhs: &mut [f64]) -> bool {
        assert!(self.factored, "solve before factor");
        assert_eq!(rhs.len(), self.n);
        let n = self.n;
        let x = MatMut::from_column_major_slice_mut(rhs, n, 1);
        match &mut self.backend {
            Backend::Dense { a, perm, perm_inv, stack } => {
                if self.spd {
                    faer::linalg::cholesky::llt::solve::solve_in_place_with_conj(
                        a.as_ref(),
                        Conj::No,
                        x,
                        Par::Seq,
                        MemStack::new(stack),
                    );
                } else {
                    let p = unsafe { faer::perm::PermRef::new_unchecked(perm, perm_inv, n) };
                    faer::linalg::lu::partial_pivoting::solve::solve_in_place_with_conj(
                        a.as_ref(),
                        a.as_ref(),
                        p,
                        Conj::No,
                        x,
                        Par::Seq,
                        MemStack::new(stack),
                    );
                }
            }
            Backend::SparseCholesky { symbolic, l_values, stack, .. } => {
                LltRef::new(symbolic, l_values).solve_in_place_with_conj(Conj::No, x, Par::Seq, MemStack::new(stack));
            }
            Backend::SparseLu { symbolic, numeric, stack, .. } => {
                LuRef::new_unchecked(symbolic, numeric).solve_in_place_with_conj(
                    Conj::No,
                    x,
                    Par::Seq,
                    MemStack::new(stack),
                );
            }
        }
        rhs.iter().all(|v| v.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diagonally dominant tridiagonal matrix (4 on the diagonal, -1 or -1.5 beside it) of size n, and b = A * ones.
    fn tridiagonal(n: usize, spd: bool) -> (LinearSystem, Vec<f64>) {
        let mut pattern = Vec::new();
        for i in 0..n {
            pattern.push((i, i));
            if i + 1 < n {
                pattern.push((i, i + 1));
                pattern.push((i + 1, i));
            }
        }
        let mut sys = LinearSystem::new(n, &pattern, spd);
        sys.clear();
        let mut slot = 0;
        let mut b = vec![0.0; n];
        for i in 0..n {
            // Unsymmetric test: make the super-diagonal -1.5 when not SPD.
            sys.add(slot, 4.0);
            b[i] += 4.0;
            slot += 1;
            if i + 1 < n {
                let up = if spd { -1.0 } else { -1.5 };
                sys.add(slot, up);
                b[i] += up;
                slot += 1;
                sys.add(slot, -1.0);
                b[i + 1] += -1.0;
                slot += 1;
            }
        }
        (sys, b)
    }

    #[test]
    fn dense_and_sparse_backends_solve_the_same_system() {
        for n in [5, DENSE_LIMIT + 40] {
            for spd in [true, false] {
                let (mut sys, mut b) = tridiagonal(n, spd);
                sys.factor().unwrap();
                assert!(sys.solve(&mut b));
                assert!(b.iter().all(|x| (x - 1.0).abs() < 1e-10), "n {n} spd {spd}: {b:?}");
            }
        }
    }

    #[test]
    fn indefinite_and_singular_matrices_are_reported() {
        for n in [3, DENSE_LIMIT + 5] {
            let pattern: Vec<_> = (0..n).map(|i| (i, i)).collect();
            let mut sys = LinearSystem::new(n, &pattern, true);
            sys.clear();
            for i in 0..n {
                sys.add(i, if i == 1 { -1.0 } else { 1.0 });
            }
            assert!(matches!(sys.factor(), Err(FactorError::NotPositiveDefinite { .. })));
        }
        let mut sys = LinearSystem::new(2, &[(0, 0), (0, 1), (1, 0), (1, 1)], false);
        sys.clear();
        for (slot, v) in [1.0, 2.0, 2.0, 4.0].into_iter().enumerate() {
            sys.add(slot, v);
        }
        assert_eq!(sys.factor(), Err(FactorError::Singular));
    }
}
