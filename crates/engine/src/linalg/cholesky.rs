//! Cholesky factorization of a symmetric positive definite matrix whose sparsity pattern is
//! fixed for a whole run and refactored at every step (the Schur complement S = G W G^T of
//! the half-implicit method, [Fang2023, eq. 12]).
//!
//! faer provides the fill-reducing ordering (AMD) and the symbolic factor (the pattern of L).
//! Because the pattern never changes, everything else is precomputed once: where each
//! assembled entry lands in L's storage (the matrix is assembled directly into L, already
//! permuted), and, per column j, the columns k < j that update it. The numeric factorization
//! is then the left-looking algorithm over these lists (Davis, Direct Methods for Sparse
//! Linear Systems, 2006, Sect. 4.8), with no symbolic work per call; or, when L is banded,
//! the same arithmetic in envelope storage (`envelope.rs`; callgrind, Schur complement of the
//! N = 32 chain: factorization 27k -> 21k instructions, solves unchanged).

use super::envelope::Envelope;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, SymbolicCholeskyRaw, SymmetricOrdering,
};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::SymbolicSparseColMatRef;
use faer::Side;

pub struct SparseCholesky {
    n: usize,
    /// perm[new] = old index.
    perm: Vec<usize>,
    col_ptr: Vec<usize>,
    /// Row indices of L per column, sorted, diagonal first.
    row_idx: Vec<usize>,
    val: Vec<f64>,
    /// Per column j, the entries (k, position of L(j,k) in column k) with k < j.
    updates_ptr: Vec<usize>,
    updates: Vec<(usize, usize)>,
    work: Vec<f64>,
    rhs: Vec<f64>,
    /// The envelope storage `val` holds instead of the columns, if L is banded.
    envelope: Option<Envelope>,
}

/// Cholesky failed at this original row (the matrix is not positive definite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NotPositiveDefinite(pub usize);

impl SparseCholesky {
    /// `lower` lists the distinct entries (row, col), row >= col, of the lower triangle
    /// (diagonal included). Returns the solver and, for each entry, its position in storage.
    pub fn new(n: usize, lower: &[(usize, usize)]) -> (Self, Vec<usize>) {
        Self::build(n, lower, true)
    }

    /// As [`SparseCholesky::new`]; `envelope` allows the envelope kernel.
    fn build(n: usize, lower: &[(usize, usize)], envelope: bool) -> (Self, Vec<usize>) {
        // Symmetric pattern in CSC (both triangles) for the ordering and symbolic analysis.
        let mut entries: Vec<(usize, usize)> = lower.iter().flat_map(|&(r, c)| [(c, r), (r, c)]).collect();
        entries.extend((0..n).map(|i| (i, i)));
        entries.sort_unstable();
        entries.dedup();
        let mut a_col_ptr = vec![0usize; n + 1];
        let mut a_row_idx = Vec::with_capacity(entries.len());
        for &(c, r) in &entries {
            a_col_ptr[c + 1] += 1;
            a_row_idx.push(r);
        }
        for c in 0..n {
            a_col_ptr[c + 1] += a_col_ptr[c];
        }
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &a_col_ptr, None, &a_row_idx);
        let params = CholeskySymbolicParams {
            supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SIMPLICIAL,
            ..Default::default()
        };
        let symbolic = factorize_symbolic_cholesky(sym, Side::Lower, SymmetricOrdering::Amd, params)
            .expect("symbolic Cholesky of a valid pattern");
        let perm: Vec<usize> = match symbolic.perm() {
            Some(p) => p.arrays().0.to_vec(),
            None => (0..n).collect(),
        };
        let mut perm_inv = vec![0; n];
        for (new, &old) in perm.iter().enumerate() {
            perm_inv[old] = new;
        }
        let SymbolicCholeskyRaw::Simplicial(l) = symbolic.raw() else {
            unreachable!("simplicial factorization was forced")
        };
        let col_ptr: Vec<usize> = l.col_ptr().to_vec();
        let mut row_idx: Vec<usize> = l.row_idx().to_vec();
        for j in 0..n {
            row_idx[col_ptr[j]..col_ptr[j + 1]].sort_unstable();
            assert_eq!(row_idx[col_ptr[j]], j, "the diagonal leads each column of L");
        }
        let envelope = if envelope { Envelope::of(n, &col_ptr, &row_idx) } else { None };
        let position = |r: usize, c: usize| -> usize {
            let (r, c) = (perm_inv[r].max(perm_inv[c]), perm_inv[r].min(perm_inv[c]));
            match &envelope {
                Some(e) => e.position(r, c),
                None => {
                    col_ptr[c] + row_idx[col_ptr[c]..col_ptr[c + 1]].binary_search(&r).expect("A's pattern lies in L's")
                }
            }
        };
        let targets = lower.iter().map(|&(r, c)| position(r, c)).collect();
        // Row patterns: L(j, k) != 0 for k < j.
        let mut rows: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for k in 0..n {
            for p in col_ptr[k] + 1..col_ptr[k + 1] {
                rows[row_idx[p]].push((k, p));
            }
        }
        let mut updates_ptr = vec![0];
        let mut updates = Vec::new();
        for r in rows {
            updates.extend(r);
            updates_ptr.push(updates.len());
        }
        let stored = envelope.as_ref().map_or(row_idx.len(), Envelope::len);
        (
            SparseCholesky {
                n,
                perm,
                col_ptr,
                row_idx,
                val: vec![0.0; stored],
                updates_ptr,
                updates,
                work: vec![0.0; n],
                rhs: vec![0.0; n],
                envelope,
            },
            targets,
        )
    }

    pub fn clear(&mut self) {
        self.val.iter_mut().for_each(|v| *v = 0.0);
    }

    #[inline]
    pub fn add(&mut self, position: usize, value: f64) {
        self.val[position] += value;
    }

    /// Storage of L, where assembled values go before [`SparseCholesky::factor`].
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.val
    }

    /// Factors the assembled matrix in place (left-looking).
    pub fn factor(&mut self) -> Result<(), NotPositiveDefinite> {
        if let Some(e) = &mut self.envelope {
            return e.factor(&mut self.val).map_err(|j| NotPositiveDefinite(self.perm[j]));
        }
        let (col_ptr, row_idx, val, work) = (&self.col_ptr, &self.row_idx, &mut self.val, &mut self.work);
        for j in 0..self.n {
            for &(k, pos) in &self.updates[self.updates_ptr[j]..self.updates_ptr[j + 1]] {
                let ljk = val[pos];
                let end = col_ptr[k + 1];
                for (&i, &l) in row_idx[pos..end].iter().zip(&val[pos..end]) {
                    work[i] += l * ljk;
                }
            }
            let (diag, end) = (col_ptr[j], col_ptr[j + 1]);
            let d = val[diag] - work[j];
            work[j] = 0.0;
            if d.is_nan() || d <= 0.0 {
                return Err(NotPositiveDefinite(self.perm[j]));
            }
            let ljj = d.sqrt();
            let inv = 1.0 / ljj;
            val[diag] = ljj;
            for (&i, l) in row_idx[diag + 1..end].iter().zip(&mut val[diag + 1..end]) {
                *l = (*l - work[i]) * inv;
                work[i] = 0.0;
            }
        }
        Ok(())
    }

    /// Solves A x = b in place with the factorization.
    pub fn solve(&mut self, b: &mut [f64]) {
        let (col_ptr, row_idx, val, y) = (&self.col_ptr, &self.row_idx, &self.val, &mut self.rhs);
        for (new, &old) in self.perm.iter().enumerate() {
            y[new] = b[old];
        }
        if let Some(e) = &self.envelope {
            e.solve(val, y);
            for (new, &old) in self.perm.iter().enumerate() {
                b[old] = y[new];
            }
            return;
        }
        for j in 0..self.n {
            let (diag, end) = (col_ptr[j], col_ptr[j + 1]);
            let yj = y[j] / val[diag];
            y[j] = yj;
            for (&i, &l) in row_idx[diag + 1..end].iter().zip(&val[diag + 1..end]) {
                y[i] -= l * yj;
            }
        }
        for j in (0..self.n).rev() {
            let (diag, end) = (col_ptr[j], col_ptr[j + 1]);
            let mut s = y[j];
            for (&i, &l) in row_idx[diag + 1..end].iter().zip(&val[diag + 1..end]) {
                s -= l * y[i];
            }
            y[j] = s / val[diag];
        }
        for (new, &old) in self.perm.iter().enumerate() {
            b[old] = y[new];
        }
    }
}

impl SparseCholesky {
    /// Nonzeros of the factor L (diagonal included).
    pub fn factor_nnz(&self) -> usize {
        self.row_idx.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A system: size, lower entries with their values, right-hand side.
    struct System {
        n: usize,
        lower: Vec<(usize, usize)>,
        values: Vec<f64>,
        b: Vec<f64>,
    }

    /// A block-tridiagonal SPD matrix of `blocks` 3 x 3 blocks (the pattern of a chain's
    /// Schur complement).
    fn chain(blocks: usize) -> System {
        let n = 3 * blocks;
        let mut lower = Vec::new();
        for r in 0..n {
            for c in (r / 3).saturating_sub(1) * 3..=r {
                lower.push((r, c));
            }
        }
        let values = lower
            .iter()
            .map(|&(r, c)| if r == c { 8.0 + (r as f64 * 0.37).sin() } else { 0.9 * ((r * 7 + c) as f64).cos() })
            .collect();
        System { n, lower, values, b: (0..n).map(|i| (i as f64 * 1.3).sin()).collect() }
    }

    fn solve(c: &mut SparseCholesky, positions: &[usize], values: &[f64], b: &[f64]) -> Vec<f64> {
        c.clear();
        for (&p, &v) in positions.iter().zip(values) {
            c.add(p, v);
        }
        c.factor().expect("SPD");
        let mut x = b.to_vec();
        c.solve(&mut x);
        x
    }

    /// The envelope kernel gives the column kernel's solution bit for bit, and it solves
    /// the system.
    #[test]
    fn envelope_and_column_kernels_agree_bitwise() {
        let System { n, lower, values, b } = chain(12);
        let (mut columns, p_columns) = SparseCholesky::build(n, &lower, false);
        let (mut envelope, p_envelope) = SparseCholesky::build(n, &lower, true);
        assert!(columns.envelope.is_none() && envelope.envelope.is_some(), "the chain's factor is banded");
        let x = solve(&mut columns, &p_columns, &values, &b);
        let y = solve(&mut envelope, &p_envelope, &values, &b);
        assert!(x.iter().zip(&y).all(|(a, b)| (a + 0.0).to_bits() == (b + 0.0).to_bits()));
        for (i, bi) in b.iter().enumerate() {
            let ax: f64 = lower
                .iter()
                .zip(&values)
                .map(|(&(r, c), v)| match (r == i, c == i) {
                    (true, _) => v * x[c],
                    (false, true) => v * x[r],
                    _ => 0.0,
                })
                .sum();
            assert!((ax - bi).abs() < 1e-12, "row {i}");
        }
    }
}
