//! [`LinearSystem`]: a square system with a sparsity pattern fixed at construction
//! (docs/architecture.md#numerics-and-allocation). Memory is allocated at construction; assembling, factoring
//! and solving allocate nothing.
//!
//! - Symmetric positive definite systems: [`DenseCholesky`] up to [`DENSE_CHOLESKY_LIMIT`],
//!   [`SparseCholesky`] (faer's AMD ordering and symbolic factor, numeric phase precompiled
//!   for the pattern) above.
//! - General systems: faer's in-place dense LU with partial pivoting up to [`DENSE_LIMIT`],
//!   faer's sparse LU (symbolic analysis once) above.
//!
//! Assembly is by slot: the pattern is a list of (row, col) entries fixed at construction
//! (duplicates accumulate); values are added in that same order.

use super::cholesky::SparseCholesky;
use super::dense_cholesky::{DenseCholesky, DENSE_CHOLESKY_LIMIT};
use super::FactorError;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor::PartialPivLuParams;
use faer::sparse::linalg::lu::{factorize_symbolic_lu, LuRef, LuSymbolicParams, NumericLu, SymbolicLu};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, Par, Spec};

/// General systems up to this size are factored densely.
pub const DENSE_LIMIT: usize = 64;

enum Backend {
    DenseCholesky(DenseCholesky),
    Cholesky(Box<SparseCholesky>),
    DenseLu {
        a: Mat<f64>,
        perm: Vec<usize>,
        perm_inv: Vec<usize>,
        stack: MemBuffer,
    },
    SparseLu {
        col_ptr: Vec<usize>,
        row_idx: Vec<usize>,
        symbolic: Box<SymbolicLu<usize>>,
        numeric: Box<NumericLu<usize, f64>>,
        stack: MemBuffer,
    },
}

/// A square linear system A x = b with a fixed pattern.
pub struct LinearSystem {
    n: usize,
    /// slot -> index into the backend's value storage (usize::MAX: ignored slot)
    targets: Vec<usize>,
    /// LU backends: dense column-major n x n, or CSC values
    values: Vec<f64>,
    backend: Backend,
    factored: bool,
}

impl std::fmt::Debug for LinearSystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.backend {
            Backend::DenseCholesky(_) => "dense Cholesky",
            Backend::Cholesky(_) => "sparse Cholesky",
            Backend::DenseLu { .. } => "dense LU",
            Backend::SparseLu { .. } => "sparse LU",
        };
        f.debug_struct("LinearSystem")
            .field("n", &self.n)
            .field("kind", &kind)
            .field("slots", &self.targets.len())
            .finish()
    }
}

impl LinearSystem {
    /// `pattern` lists the (row, col) of every slot. For `spd` systems (symmetric positive
    /// definite, Cholesky) the pattern must be symmetric; only slots with row >= col are read.
    pub fn new(n: usize, pattern: &[(usize, usize)], spd: bool) -> Self {
        Self::build(n, pattern, spd, SupernodalThreshold::AUTO)
    }

    /// A general system whose sparse LU (above [`DENSE_LIMIT`]) is always supernodal: for
    /// banded block patterns such as the iteration matrix of a beam model, where faer's
    /// automatic choice takes the simplicial variant; the supernodal one needs half the
    /// instructions there (callgrind, flexible four-bar: 1.4e6 -> 0.75e6 per factorization).
    pub fn new_supernodal(n: usize, pattern: &[(usize, usize)]) -> Self {
        Self::build(n, pattern, false, SupernodalThreshold::FORCE_SUPERNODAL)
    }

    fn build(n: usize, pattern: &[(usize, usize)], spd: bool, threshold: SupernodalThreshold) -> Self {
        assert!(pattern.iter().all(|&(r, c)| r < n && c < n), "pattern entry outside the matrix");
        if spd {
            let mut lower: Vec<(usize, usize)> = pattern.iter().copied().filter(|&(r, c)| r >= c).collect();
            lower.sort_unstable();
            lower.dedup();
            let (backend, positions) = if n <= DENSE_CHOLESKY_LIMIT {
                let (c, p) = DenseCholesky::new(n, &lower);
                (Backend::DenseCholesky(c), p)
            } else {
                let (c, p) = SparseCholesky::new(n, &lower);
                (Backend::Cholesky(Box::new(c)), p)
            };
            let targets = pattern
                .iter()
                .map(|e| if e.0 < e.1 { usize::MAX } else { positions[lower.binary_search(e).expect("listed above")] })
                .collect();
            return LinearSystem { n, targets, values: Vec::new(), backend, factored: false };
        }
        if n <= DENSE_LIMIT {
            let req = faer::linalg::lu::partial_pivoting::factor::lu_in_place_scratch::<usize, f64>(
                n,
                n,
                Par::Seq,
                Spec::<PartialPivLuParams, f64>::default(),
            )
            .or(faer::linalg::lu::partial_pivoting::solve::solve_in_place_scratch::<usize, f64>(
                n,
                1,
                Par::Seq,
            ));
            return LinearSystem {
                n,
                targets: pattern.iter().map(|&(r, c)| r + c * n).collect(),
                values: vec![0.0; n * n],
                backend: Backend::DenseLu {
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
        let targets = pattern
            .iter()
            .map(|&(r, c)| {
                col_ptr[c] + row_idx[col_ptr[c]..col_ptr[c + 1]].binary_search(&r).expect("entry is in the pattern")
            })
            .collect();
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
        let symbolic = factorize_symbolic_lu(
            sym,
            LuSymbolicParams { supernodal_flop_ratio_threshold: threshold, ..Default::default() },
        )
        .expect("symbolic LU of a valid pattern");
        let req = symbolic
            .factorize_numeric_lu_scratch::<f64>(Par::Seq, Spec::<PartialPivLuParams, f64>::default())
            .or(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
        let nnz = row_idx.len();
        LinearSystem {
            n,
            targets,
            values: vec![0.0; nnz],
            backend: Backend::SparseLu {
                numeric: Box::new(NumericLu::new()),
                stack: MemBuffer::new(req),
                symbolic: Box::new(symbolic),
                col_ptr,
                row_idx,
            },
            factored: false,
        }
    }

    pub fn dim(&self) -> usize {
        self.n
    }

    /// Stored nonzeros of the factors (L for Cholesky, the assembled matrix for LU).
    pub fn factor_nnz(&self) -> usize {
        match &self.backend {
            Backend::Cholesky(c) => c.factor_nnz(),
            Backend::DenseCholesky(_) => self.n * (self.n + 1) / 2,
            _ => self.values.len(),
        }
    }

    /// Zeroes every entry before a new assembly.
    #[inline(always)]
    pub fn clear(&mut self) {
        match &mut self.backend {
            Backend::DenseCholesky(c) => c.clear(),
            Backend::Cholesky(c) => c.clear(),
            _ => self.values.iter_mut().for_each(|v| *v = 0.0),
        }
        self.factored = false;
    }

    /// Adds `value` to the entry of pattern slot `slot`.
    #[inline]
    pub fn add(&mut self, slot: usize, value: f64) {
        let t = self.targets[slot];
        if t == usize::MAX {
            return;
        }
        match &mut self.backend {
            Backend::DenseCholesky(c) => c.values_mut()[t] += value,
            Backend::Cholesky(c) => c.add(t, value),
            _ => self.values[t] += value,
        }
    }

    /// The dense Cholesky's storage, if that is the backend: row-major n x n, entry (r, c)
    /// with r >= c at r n + c, the position its slot would add to (no slot lookup per entry).
    pub fn dense_lower_mut(&mut self) -> Option<&mut [f64]> {
        match &mut self.backend {
            Backend::DenseCholesky(c) => Some(c.values_mut()),
            _ => None,
        }
    }

    /// Direct access for assembling many slots (no backend dispatch per entry).
    pub fn assembler(&mut self) -> Assembler<'_> {
        let values = match &mut self.backend {
            Backend::DenseCholesky(c) => c.values_mut(),
            Backend::Cholesky(c) => c.values_mut(),
            _ => &mut self.values,
        };
        Assembler { targets: &self.targets, values }
    }

    /// Factors the assembled matrix.
    pub fn factor(&mut self) -> Result<(), FactorError> {
        self.factored = false;
        let n = self.n;
        match &mut self.backend {
            Backend::DenseCholesky(c) => c.factor().map_err(|e| FactorError::NotPositiveDefinite { row: Some(e.0) })?,
            Backend::Cholesky(c) => c.factor().map_err(|e| FactorError::NotPositiveDefinite { row: Some(e.0) })?,
            Backend::DenseLu { a, perm, perm_inv, stack } => {
                for c in 0..n {
                    for r in 0..n {
                        a[(r, c)] = self.values[r + c * n];
                    }
                }
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
                if smallest.is_nan() || smallest <= 1e-14 * scale {
                    return Err(FactorError::Singular);
                }
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
        match &mut self.backend {
            Backend::DenseCholesky(c) => c.solve(rhs),
            Backend::Cholesky(c) => c.solve(rhs),
            Backend::DenseLu { a, perm, perm_inv, stack } => {
                let x = MatMut::from_column_major_slice_mut(rhs, n, 1);
                // Safety: perm and perm_inv are the inverse permutations lu_in_place wrote.
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
            Backend::SparseLu { symbolic, numeric, stack, .. } => {
                let x = MatMut::from_column_major_slice_mut(rhs, n, 1);
                LuRef::new_unchecked(symbolic, numeric).solve_in_place_with_conj(
                    Conj::No,
                    x,
                    Par::Seq,
                    MemStack::new(stack),
                );
            }
        }
        // Without an early exit, so that the test runs two values per instruction.
        !rhs.iter().fold(false, |bad, v| bad | !v.is_finite())
    }
}

/// Borrowed view that adds values by slot.
pub struct Assembler<'a> {
    targets: &'a [usize],
    values: &'a mut [f64],
}

impl Assembler<'_> {
    #[inline]
    pub fn add(&mut self, slot: usize, value: f64) {
        let t = self.targets[slot];
        if t != usize::MAX {
            self.values[t] += value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diagonally dominant tridiagonal matrix (4 on the diagonal, -1 or -1.5 beside it)
    /// of size n, and b = A * ones.
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
    fn every_backend_solves_the_same_system() {
        for n in [5, DENSE_CHOLESKY_LIMIT + 8, DENSE_LIMIT + 40] {
            for spd in [true, false] {
                let (mut sys, mut b) = tridiagonal(n, spd);
                sys.factor().unwrap();
                assert!(sys.solve(&mut b));
                assert!(b.iter().all(|x| (x - 1.0).abs() < 1e-12), "n {n} spd {spd}: {b:?}");
            }
        }
    }

    #[test]
    fn cholesky_matches_a_dense_reference_on_a_random_sparse_matrix() {
        // S = B B^T + I with a sparse B: SPD with fill-in under any ordering.
        for n in [20, 40] {
            let mut rng = 12345u64;
            let mut next = || {
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (rng >> 11) as f64 / (1u64 << 53) as f64
            };
            let mut b = vec![vec![0.0; n]; n];
            for (i, row) in b.iter_mut().enumerate() {
                for (j, x) in row.iter_mut().enumerate() {
                    if i == j || next() < 0.08 {
                        *x = next() - 0.5;
                    }
                }
            }
            let s: Vec<Vec<f64>> = (0..n)
                .map(|i| {
                    (0..n)
                        .map(|j| (0..n).map(|k| b[i][k] * b[j][k]).sum::<f64>() + if i == j { 1.0 } else { 0.0 })
                        .collect()
                })
                .collect();
            let pattern: Vec<(usize, usize)> =
                (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).filter(|&(i, j)| s[i][j] != 0.0).collect();
            let mut sys = LinearSystem::new(n, &pattern, true);
            for _ in 0..2 {
                sys.clear();
                for (slot, &(i, j)) in pattern.iter().enumerate() {
                    sys.add(slot, s[i][j]);
                }
                sys.factor().unwrap();
                let x_true: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
                let mut rhs: Vec<f64> = (0..n).map(|i| (0..n).map(|j| s[i][j] * x_true[j]).sum()).collect();
                assert!(sys.solve(&mut rhs));
                let err = rhs.iter().zip(&x_true).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                assert!(err < 1e-12, "n {n}: error {err}");
            }
        }
    }

    #[test]
    fn indefinite_and_singular_matrices_are_reported() {
        for n in [3, DENSE_CHOLESKY_LIMIT + 5, DENSE_LIMIT + 5] {
            let pattern: Vec<_> = (0..n).map(|i| (i, i)).collect();
            let mut sys = LinearSystem::new(n, &pattern, true);
            sys.clear();
            for i in 0..n {
                sys.add(i, if i == 1 { -1.0 } else { 1.0 });
            }
            assert_eq!(sys.factor(), Err(FactorError::NotPositiveDefinite { row: Some(1) }));
        }
        let mut sys = LinearSystem::new(2, &[(0, 0), (0, 1), (1, 0), (1, 1)], false);
        sys.clear();
        for (slot, v) in [1.0, 2.0, 2.0, 4.0].into_iter().enumerate() {
            sys.add(slot, v);
        }
        assert_eq!(sys.factor(), Err(FactorError::Singular));
    }
}
