//! The numeric phase of [`super::SparseCholesky`] in envelope storage, for factors whose rows
//! are (nearly) contiguous from their first nonzero to the diagonal: the banded Schur
//! complements of chains. Row i of L is stored from its first nonzero column to the diagonal,
//! so the factorization is the row-oriented (up-looking) Cholesky of the envelope (George and
//! Liu, Computer Solution of Large Sparse Positive Definite Systems, 1981, Sect. 4.2) over
//! contiguous slices, without the index loads of the column kernel.
//!
//! Every entry is computed with the same operations in the same order as the left-looking
//! column kernel of `cholesky.rs`: L(i,j) = (A(i,j) - sum_k L(i,k) L(j,k)) / L(j,j) with the sum
//! accumulated from zero over ascending k, the forward solve subtracting L(i,k) y_k over
//! ascending k and the backward one L(i,j) y_i over ascending i. Entries of the envelope
//! outside L's pattern are exact zeros and add only zero products, so both kernels give the
//! same factor and solutions (up to the sign of zero results).

/// The envelope of L (permuted indices).
pub(super) struct Envelope {
    n: usize,
    /// Row i holds columns first[i]..=i at row_ptr[i]..row_ptr[i + 1].
    first: Vec<usize>,
    row_ptr: Vec<usize>,
    /// Per column j, the rows i > j of its envelope with the position of L(i, j), ascending i.
    col_ptr: Vec<usize>,
    col: Vec<(usize, usize)>,
    inv_diag: Vec<f64>,
    /// Per row i, the off-diagonal entries L(i, j) as (position, start of the dot product in
    /// row i, start in row j, its length), ascending j.
    tasks_ptr: Vec<usize>,
    tasks: Vec<[usize; 5]>,
}

impl Envelope {
    /// The envelope of the factor whose column j has rows `row_idx[col_ptr[j]..col_ptr[j + 1]]`
    /// (diagonal first), if it stores at most `1.25` times L's entries.
    pub fn of(n: usize, col_ptr: &[usize], row_idx: &[usize]) -> Option<Envelope> {
        let mut first: Vec<usize> = (0..n).collect();
        for j in 0..n {
            for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
                first[i] = first[i].min(j);
            }
        }
        let mut row_ptr = vec![0];
        for (i, f) in first.iter().enumerate() {
            row_ptr.push(row_ptr[i] + i + 1 - f);
        }
        if row_ptr[n] as f64 > 1.25 * row_idx.len() as f64 {
            return None;
        }
        let (mut col_ptr, mut col) = (vec![0], Vec::new());
        let mut members: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for i in 0..n {
            for (j, m) in members.iter_mut().enumerate().take(i).skip(first[i]) {
                m.push((i, row_ptr[i] + j - first[i]));
            }
        }
        for m in members {
            col.extend(m);
            col_ptr.push(col.len());
        }
        let (mut tasks_ptr, mut tasks) = (vec![0], Vec::new());
        for i in 0..n {
            for j in first[i]..i {
                let lo = first[i].max(first[j]);
                tasks.push([
                    row_ptr[i] + j - first[i],
                    row_ptr[i] + lo - first[i],
                    row_ptr[j] + lo - first[j],
                    j - lo,
                    j,
                ]);
            }
            tasks_ptr.push(tasks.len());
        }
        Some(Envelope { n, first, row_ptr, col_ptr, col, inv_diag: vec![0.0; n], tasks_ptr, tasks })
    }

    /// Entries stored.
    pub fn len(&self) -> usize {
        self.row_ptr[self.n]
    }

    /// Position of L(i, j), j <= i, in the storage.
    pub fn position(&self, i: usize, j: usize) -> usize {
        debug_assert!(self.first[i] <= j && j <= i);
        self.row_ptr[i] + j - self.first[i]
    }

    /// Factors the assembled lower triangle in `val` in place; Err(j) if the pivot of
    /// (permuted) row j is not positive.
    pub fn factor(&mut self, val: &mut [f64]) -> Result<(), usize> {
        for i in 0..self.n {
            for &[target, a, b, len, j] in &self.tasks[self.tasks_ptr[i]..self.tasks_ptr[i + 1]] {
                let mut s = 0.0;
                for t in 0..len {
                    s += val[a + t] * val[b + t];
                }
                val[target] = (val[target] - s) * self.inv_diag[j];
            }
            let (start, diag) = (self.row_ptr[i], self.row_ptr[i + 1] - 1);
            let mut s = 0.0;
            for a in &val[start..diag] {
                s += a * a;
            }
            let d = val[diag] - s;
            if d.is_nan() || d <= 0.0 {
                return Err(i);
            }
            let lii = d.sqrt();
            val[diag] = lii;
            self.inv_diag[i] = 1.0 / lii;
        }
        Ok(())
    }

    /// Solves L L^T x = y in place (permuted vector) with the factor in `val`.
    pub fn solve(&self, val: &[f64], y: &mut [f64]) {
        for i in 0..self.n {
            let (start, diag, fi) = (self.row_ptr[i], self.row_ptr[i + 1] - 1, self.first[i]);
            let mut s = y[i];
            for p in start..diag {
                s -= val[p] * y[fi + p - start];
            }
            y[i] = s / val[diag];
        }
        for j in (0..self.n).rev() {
            let mut s = y[j];
            for &(i, p) in &self.col[self.col_ptr[j]..self.col_ptr[j + 1]] {
                s -= val[p] * y[i];
            }
            y[j] = s / val[self.row_ptr[j + 1] - 1];
        }
    }
}
