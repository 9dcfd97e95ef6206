//! Cholesky factorization of a small symmetric positive definite matrix stored densely: the
//! Schur complements of the half-implicit step ([Fang2023, eq. 12]) up to
//! [`DENSE_CHOLESKY_LIMIT`] rows, refactored at every step.
//!
//! The rows of such a complement couple only through shared bodies, so in the constraints'
//! own order each row's entries start some way right of column 0: its envelope (profile).
//! Cholesky fills nothing left of a row's first entry [GeorgeLiu1981, Ch. 4], so the
//! factorization runs over the envelope alone when that saves products (the spatial
//! slider-crank's 18 rows: 339 of the 816 products). L is the dense kernel's bit for bit: the
//! skipped products are zeros of either sign ahead of the ones kept, which leave a sum as the
//! kept ones make it but for the sign of a zero sum, and that sign never reaches L (the
//! matrix, assembled by additions to +0, holds no -0 to subtract it from). The solves stay
//! the dense ones over the whole triangle: over the envelope alone they took more
//! instructions at these sizes (loops with bounds known at run time), and a skipped zero
//! product there could change the sign of a zero result.

use super::NotPositiveDefinite;

/// Cholesky of a small SPD matrix stored densely (row-major, lower triangle): below
/// [`DENSE_CHOLESKY_LIMIT`] index bookkeeping of the sparse kernel
/// ([`super::SparseCholesky`]) costs more than the arithmetic it saves. Rows of L are
/// contiguous, so every inner loop is a dot product or an axpy over slices.
pub struct DenseCholesky {
    n: usize,
    /// Row i of L occupies a[i n .. i n + i + 1].
    a: Vec<f64>,
    /// 1 / L(i, i) after factoring.
    inv_diag: Vec<f64>,
    /// The first column of each row's envelope (its leftmost entry in the pattern).
    first: Vec<usize>,
    /// True if the factorization runs over the envelope (the envelope leaves out enough of the triangle).
    envelope: bool,
}

/// Largest SPD system factored densely.
pub const DENSE_CHOLESKY_LIMIT: usize = 32;

fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

/// [`dot`] with the same additions in the same order (left to right from -0.0, as
/// `Iterator::sum`), four products per loop iteration: the same value bit for bit with a
/// quarter of the loop's counting and branching.
#[inline(always)]
fn dot_in_order(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    let (x4, xr) = x[..n].as_chunks::<4>();
    let (y4, yr) = y[..n].as_chunks::<4>();
    let mut s = -0.0;
    for (a, b) in x4.iter().zip(y4) {
        s += a[0] * b[0];
        s += a[1] * b[1];
        s += a[2] * b[2];
        s += a[3] * b[3];
    }
    for (a, b) in xr.iter().zip(yr) {
        s += a * b;
    }
    s
}

impl DenseCholesky {
    /// Like [`super::SparseCholesky::new`]: `lower` lists the entries (row, col), row >= col,
    /// that assembly may write; returns the storage position of each.
    pub fn new(n: usize, lower: &[(usize, usize)]) -> (Self, Vec<usize>) {
        let positions = lower.iter().map(|&(r, c)| r * n + c).collect();
        let mut first: Vec<usize> = (0..n).collect();
        for &(r, c) in lower {
            first[r] = first[r].min(c);
        }
        // Products the envelope leaves out of the factorization, against all of them.
        let kept: usize = (0..n).map(|i| (first[i]..i).map(|j| j - first[i].max(first[j])).sum::<usize>()).sum();
        let all: usize = (0..n).map(|i| i * (i - 1) / 2).sum();
        let envelope = (2..=FIXED_LIMIT).contains(&n) && kept < all && 4 * kept <= 3 * all;
        if !envelope {
            first.iter_mut().for_each(|f| *f = 0);
        }
        (DenseCholesky { n, a: vec![0.0; n * n], inv_diag: vec![0.0; n], first, envelope }, positions)
    }

    /// Zeroes each row's envelope (the whole lower triangle without it), the
    /// only part assembled, factored and read.
    #[inline(always)]
    pub fn clear(&mut self) {
        let n = self.n;
        if self.envelope {
            for (i, &f) in self.first.iter().enumerate() {
                self.a[i * n + f..i * n + i + 1].fill(0.0);
            }
        } else {
            for i in 0..n {
                self.a[i * n..i * n + i + 1].fill(0.0);
            }
        }
    }

    /// The storage: entry (r, c), r >= c, at r n + c. Assembly writes only the entries of the
    /// pattern given to [`DenseCholesky::new`].
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.a
    }

    /// Row-by-row (Cholesky-Banachiewicz) factorization in place:
    /// L(i, j) = (A(i, j) - L(i, :j) . L(j, :j)) / L(j, j).
    pub fn factor(&mut self) -> Result<(), NotPositiveDefinite> {
        macro_rules! fixed {
            ($($size:literal)*) => {
                match (self.n, self.envelope) {
                    $(($size, false) => return factor_fixed::<$size, false>(&mut self.a, &mut self.inv_diag, &self.first),)*
                    $(($size, true) => return factor_fixed::<$size, true>(&mut self.a, &mut self.inv_diag, &self.first),)*
                    _ => {}
                }
            };
        }
        fixed!(2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
        debug_assert!(!self.envelope, "the envelope factorization is fixed-size");
        self.factor_general()
    }

    /// [`DenseCholesky::factor`] for any size.
    fn factor_general(&mut self) -> Result<(), NotPositiveDefinite> {
        let n = self.n;
        for i in 0..n {
            let (done, rest) = self.a.split_at_mut(i * n);
            let row_i = &mut rest[..=i];
            for j in 0..i {
                let row_j = &done[j * n..j * n + j];
                row_i[j] = (row_i[j] - dot(&row_i[..j], row_j)) * self.inv_diag[j];
            }
            let d = row_i[i] - dot(&row_i[..i], &row_i[..i]);
            if d.is_nan() || d <= 0.0 {
                return Err(NotPositiveDefinite(i));
            }
            let lii = d.sqrt();
            row_i[i] = lii;
            self.inv_diag[i] = 1.0 / lii;
        }
        Ok(())
    }

    /// Solves A x = b in place: L y = b by rows, then L^T x = y by rows of L (axpy).
    pub fn solve(&self, b: &mut [f64]) {
        macro_rules! fixed {
            ($($size:literal)*) => {
                match self.n {
                    $($size => return solve_fixed::<$size>(&self.a, &self.inv_diag, b),)*
                    _ => {}
                }
            };
        }
        fixed!(2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
        self.solve_general(b)
    }

    /// [`DenseCholesky::solve`] for any size.
    fn solve_general(&self, b: &mut [f64]) {
        let n = self.n;
        let b = &mut b[..n];
        for i in 0..n {
            let row = &self.a[i * n..i * n + i];
            b[i] = (b[i] - dot(row, &b[..i])) * self.inv_diag[i];
        }
        for i in (0..n).rev() {
            let xi = b[i] * self.inv_diag[i];
            b[i] = xi;
            for (bk, l) in b[..i].iter_mut().zip(&self.a[i * n..i * n + i]) {
                *bk -= l * xi;
            }
        }
    }
}

/// [`DenseCholesky::factor`] for a size known at compile time, on the storage viewed as rows
/// that are arrays: the same operations in the same order (dots summed left to right from
/// -0.0, as `Iterator::sum`), so the same factors bit for bit, without the slice set-up of
/// every row pair (the dots of [`dot_in_order`] measured slower here: 6 440 -> 7 890
/// instructions per factorization of the slider-crank's 18 rows).
///
/// With `ENVELOPE`, over each row's envelope: L(i, j) for first(i) <= j < i, from the
/// products of columns max(first(i), first(j)) <= k < j (the ones left of it are zeros of
/// either sign, see the module's notes). Entries left of the envelope stay the +0 that
/// [`DenseCholesky::clear`] and the pattern leave there, which is what the dense kernel writes
/// for them. Without it, `first` is not read and every row starts at column 0.
fn factor_fixed<const N: usize, const ENVELOPE: bool>(
    a: &mut [f64],
    inv_diag: &mut [f64],
    first: &[usize],
) -> Result<(), NotPositiveDefinite> {
    let m: &mut [[f64; N]; N] = a[..N * N].as_chunks_mut::<N>().0.try_into().expect("N rows of N");
    let inv: &mut [f64; N] = (&mut inv_diag[..N]).try_into().expect("N pivots");
    let first: &[usize] = if ENVELOPE { &first[..N] } else { &[] };
    let first_of = |i: usize| if ENVELOPE { first[i] } else { 0 };
    for i in 0..N {
        let fi = first_of(i);
        let (done, rest) = m.split_at_mut(i);
        let row_i = &mut rest[0];
        for j in fi..i {
            let row_j = &done[j];
            let mut s = -0.0;
            for k in fi.max(first_of(j))..j {
                s += row_i[k] * row_j[k];
            }
            row_i[j] = (row_i[j] - s) * inv[j];
        }
        let mut s = -0.0;
        for x in &row_i[fi..i] {
            s += x * x;
        }
        let d = row_i[i] - s;
        if d.is_nan() || d <= 0.0 {
            return Err(NotPositiveDefinite(i));
        }
        let lii = d.sqrt();
        row_i[i] = lii;
        inv[i] = 1.0 / lii;
    }
    Ok(())
}

/// [`DenseCholesky::solve`] for a size known at compile time: the same operations in the
/// same order (the forward dots summed left to right from -0.0, [`dot_in_order`]), so the
/// same solution bit for bit.
fn solve_fixed<const N: usize>(a: &[f64], inv_diag: &[f64], b: &mut [f64]) {
    let m: &[[f64; N]; N] = a[..N * N].as_chunks::<N>().0.try_into().expect("N rows of N");
    let inv: &[f64; N] = inv_diag[..N].try_into().expect("N pivots");
    let b: &mut [f64; N] = (&mut b[..N]).try_into().expect("N values");
    for i in 0..N {
        let s = dot_in_order(&m[i][..i], &b[..i]);
        b[i] = (b[i] - s) * inv[i];
    }
    for i in (0..N).rev() {
        let xi = b[i] * inv[i];
        b[i] = xi;
        for k in 0..i {
            b[k] -= m[i][k] * xi;
        }
    }
}

/// Largest size with fixed-size kernels (and so with the envelope).
const FIXED_LIMIT: usize = 24;

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed-size dense kernels give the general loops' factors and solutions bit for
    /// bit, at every size they cover.
    #[test]
    fn dense_fixed_kernels_agree_bitwise() {
        for n in 2..=24 {
            let lower: Vec<(usize, usize)> = (0..n).flat_map(|r| (0..=r).map(move |c| (r, c))).collect();
            let value = |r: usize, c: usize| {
                if r == c {
                    2.0 * n as f64 + (r as f64).sin()
                } else {
                    ((3 * r + c) as f64).cos()
                }
            };
            let (mut fixed, positions) = DenseCholesky::new(n, &lower);
            let (mut general, _) = DenseCholesky::new(n, &lower);
            for c in [&mut fixed, &mut general] {
                c.clear();
                for (&p, &(r, col)) in positions.iter().zip(&lower) {
                    c.values_mut()[p] += value(r, col);
                }
            }
            fixed.factor().expect("SPD");
            general.factor_general().expect("SPD");
            let lower_of = |c: &DenseCholesky| -> Vec<u64> { positions.iter().map(|&p| c.a[p].to_bits()).collect() };
            assert_eq!(lower_of(&fixed), lower_of(&general), "factors at n = {n}");
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).cos()).collect();
            let (mut x, mut y) = (b.clone(), b.clone());
            fixed.solve(&mut x);
            general.solve_general(&mut y);
            assert!(x.iter().zip(&y).all(|(a, b)| a.to_bits() == b.to_bits()), "solutions at n = {n}");
            for (i, bi) in b.iter().enumerate() {
                let ax: f64 = (0..n).map(|j| value(i.max(j), i.min(j)) * x[j]).sum();
                assert!((ax - bi).abs() < 1e-12, "row {i} at n = {n}");
            }
        }
    }

    /// The envelope factorization gives the dense kernel's factors bit for bit on staircase
    /// patterns like a mechanism's Schur complement in its constraints' order (blocks coupled
    /// to their neighbours, one row coupled to all as a driver row is), and the dense solves
    /// over its storage the same solutions, for right-hand sides that hold zeros of either
    /// sign.
    #[test]
    fn the_envelope_factorization_agrees_bitwise_with_the_dense_one() {
        for (blocks, driver) in [(vec![5, 3, 4, 5], true), (vec![3; 8], false), (vec![6, 2, 6, 1, 3], true)] {
            let n: usize = blocks.iter().sum::<usize>() + usize::from(driver);
            let mut start = vec![0; n];
            let mut row = 0;
            let mut previous = 0;
            for &b in &blocks {
                start[row..row + b].fill(previous);
                previous = row;
                row += b;
            }
            let lower: Vec<(usize, usize)> = (0..n).flat_map(|r| (start[r]..=r).map(move |c| (r, c))).collect();
            let value = |r: usize, c: usize| {
                if r == c {
                    2.0 * n as f64 + (r as f64).sin()
                } else {
                    ((3 * r + c) as f64).cos()
                }
            };
            let (mut envelope, positions) = DenseCholesky::new(n, &lower);
            assert!(envelope.envelope, "the staircase of {blocks:?} is factored over its envelope");
            let full: Vec<(usize, usize)> = (0..n).flat_map(|r| (0..=r).map(move |c| (r, c))).collect();
            let (mut dense, dense_positions) = DenseCholesky::new(n, &full);
            assert!(!dense.envelope);
            envelope.clear();
            dense.clear();
            for (&p, &(r, c)) in positions.iter().zip(&lower) {
                envelope.values_mut()[p] += value(r, c);
            }
            for (&p, &(r, c)) in dense_positions.iter().zip(&full) {
                if c >= start[r] {
                    dense.values_mut()[p] += value(r, c);
                }
            }
            envelope.factor().expect("SPD");
            dense.factor().expect("SPD");
            let bits = |c: &DenseCholesky| -> Vec<u64> { dense_positions.iter().map(|&p| c.a[p].to_bits()).collect() };
            assert_eq!(bits(&envelope), bits(&dense), "factors of {blocks:?}");
            // Right-hand sides: generic, with zeros of either sign, and zeros alone (a
            // solution of zeros, whose signs the dense kernels decide).
            let generic: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).cos()).collect();
            let some_zeros: Vec<f64> = (0..n).map(|i| [0.0, -0.0, (i as f64).sin()][i % 3]).collect();
            let zeros: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { -0.0 } else { 0.0 }).collect();
            for b in [generic, some_zeros, zeros] {
                let (mut x, mut y) = (b.clone(), b.clone());
                envelope.solve(&mut x);
                dense.solve(&mut y);
                assert!(
                    x.iter().zip(&y).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "solutions of {blocks:?}: {x:?} {y:?}"
                );
            }
        }
    }
}
