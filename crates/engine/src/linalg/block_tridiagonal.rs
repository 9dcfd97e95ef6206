//! Block LDL^T factorization of a symmetric positive definite block-tridiagonal matrix of
//! 3 x 3 blocks: the Schur complement S = G W G^T of the half-implicit method (\[Fang2023\]
//! Eq. 12) for chains of spherical joints, whose three rows per joint couple only with the
//! joints that share a body with it (`index3::schur_chain` detects the structure).
//!
//! S = L D L^T with L unit block lower bidiagonal and D block diagonal (Golub and Van Loan,
//! Matrix Computations, 4th ed., 2013, Sect. 4.5, block tridiagonal systems):
//!   L_{i,i-1} = A_{i,i-1} D_{i-1}^-1,   D_i = A_ii - L_{i,i-1} A_{i,i-1}^T,
//! with each D_i^-1 formed by its adjugate (one division per block; positive definiteness is
//! checked on the leading principal minors, Sylvester's criterion). The solves are three
//! block-bidiagonal sweeps of 3 x 3 products. No fill-in, no permutation, no index lists and
//! no square roots: every block is a fixed-size array, so all loops unroll, and the only
//! divisions are one per block in the factorization.
//!
//! Measured on the Schur complement of the N = 32 chain (callgrind, per step of the
//! half-implicit method) against the envelope kernel of [`super::SparseCholesky`] it
//! replaced: factorization 21.3k -> 6.8k instructions, each solve 15.5k -> 3.1k. The linalg
//! bench (`cargo bench -p mbfmu-engine --bench linalg`) times both on 8 to 1024 blocks: factor +
//! solve 1.7-2.1 times faster (the square roots and divisions of the scalar kernel form a
//! latency chain; here one division per block). A block Cholesky (L_ii with reciprocal
//! diagonal, three square roots per block) took fewer instructions (5.6k per factorization)
//! but ran the chain's stepping slower (46 against 41 ms, best of 7 on the same busy machine).

/// A 3 x 3 block, row-major.
pub type Block3 = [f64; 9];

/// Block LDL^T of an SPD block-tridiagonal matrix of `n` 3 x 3 blocks, in place.
#[derive(Debug, Clone)]
pub struct BlockTridiagonal {
    /// Diagonal blocks A_ii (only the lower triangle is read); D_i^-1 after factoring.
    pub diag: Vec<Block3>,
    /// Sub-diagonal blocks A_{i,i-1} (`sub[0]` is ignored); L_{i,i-1} after factoring.
    pub sub: Vec<Block3>,
}

/// Row (0-based, of the block-ordered matrix) where the matrix was found not positive definite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockPivotError(pub usize);

impl BlockTridiagonal {
    /// A zero matrix of `n` blocks (3n rows).
    pub fn new(n: usize) -> Self {
        BlockTridiagonal { diag: vec![[0.0; 9]; n], sub: vec![[0.0; 9]; n] }
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.diag.len()
    }

    /// Zeroes every block before a new assembly.
    pub fn clear(&mut self) {
        self.diag.iter_mut().for_each(|b| *b = [0.0; 9]);
        self.sub.iter_mut().for_each(|b| *b = [0.0; 9]);
    }

    /// Factors the assembled matrix in place.
    pub fn factor(&mut self) -> Result<(), BlockPivotError> {
        // The first block has no sub-diagonal block; the solves multiply it by zeros.
        if let Some(s) = self.sub.first_mut() {
            *s = [0.0; 9];
        }
        let mut previous: Option<&Block3> = None;
        for (i, (d, s)) in self.diag.iter_mut().zip(self.sub.iter_mut()).enumerate() {
            if let Some(p) = previous {
                // L = A_{i,i-1} D_{i-1}^-1, then D_i = A_ii - L A_{i,i-1}^T (lower triangle).
                let mut l = [0.0; 9];
                for r in 0..3 {
                    for c in 0..3 {
                        l[3 * r + c] = s[3 * r] * p[c] + s[3 * r + 1] * p[3 + c] + s[3 * r + 2] * p[6 + c];
                    }
                }
                let dot = |a: usize, b: usize| {
                    l[3 * a] * s[3 * b] + l[3 * a + 1] * s[3 * b + 1] + l[3 * a + 2] * s[3 * b + 2]
                };
                d[0] -= dot(0, 0);
                d[3] -= dot(1, 0);
                d[4] -= dot(1, 1);
                d[6] -= dot(2, 0);
                d[7] -= dot(2, 1);
                d[8] -= dot(2, 2);
                *s = l;
            }
            invert3(d).map_err(|r| BlockPivotError(3 * i + r))?;
            previous = Some(d);
        }
        Ok(())
    }

    /// Solves A x = b in place (b in block order, 3n entries) with the factorization.
    pub fn solve(&self, b: &mut [f64]) {
        let b = &mut b[..3 * self.diag.len()];
        // L z = b (unit block diagonal), then w = D^-1 z in place of z.
        let mut prev = [0.0; 3];
        for ((y, d), s) in b.chunks_exact_mut(3).zip(&self.diag).zip(&self.sub) {
            let mut z = [0.0; 3];
            for r in 0..3 {
                z[r] = y[r] - (s[3 * r] * prev[0] + s[3 * r + 1] * prev[1] + s[3 * r + 2] * prev[2]);
            }
            for r in 0..3 {
                y[r] = d[3 * r] * z[0] + d[3 * r + 1] * z[1] + d[3 * r + 2] * z[2];
            }
            prev = z;
        }
        // L^T x = w, from the last block (whose successor is zero).
        let mut next = [0.0; 3];
        let mut next_sub: &Block3 = &[0.0; 9];
        for (x, s) in b.chunks_exact_mut(3).zip(&self.sub).rev() {
            for c in 0..3 {
                x[c] -= next_sub[c] * next[0] + next_sub[3 + c] * next[1] + next_sub[6 + c] * next[2];
            }
            next = [x[0], x[1], x[2]];
            next_sub = s;
        }
    }
}

/// Inverse of a 3 x 3 SPD block (lower triangle read) in place, full, by its adjugate;
/// Err(r) if the leading principal minor of order r + 1 is not positive (Sylvester's
/// criterion, the minors being the adjugate's entries and the determinant).
#[inline]
fn invert3(d: &mut Block3) -> Result<(), usize> {
    let (a, b, c, e, f, g) = (d[0], d[3], d[4], d[6], d[7], d[8]);
    let c00 = c * g - f * f;
    let c01 = e * f - b * g;
    let c02 = b * f - c * e;
    let c11 = a * g - e * e;
    let c12 = b * e - a * f;
    let c22 = a * c - b * b;
    let det = a * c00 + b * c01 + e * c02;
    for (r, minor) in [a, c22, det].into_iter().enumerate() {
        if minor.is_nan() || minor <= 0.0 {
            return Err(r);
        }
    }
    let q = 1.0 / det;
    let (i00, i01, i02, i11, i12, i22) = (c00 * q, c01 * q, c02 * q, c11 * q, c12 * q, c22 * q);
    *d = [i00, i01, i02, i01, i11, i12, i02, i12, i22];
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block-tridiagonal SPD matrix (diagonally dominant), dense, of `n` blocks.
    fn matrix(n: usize) -> Vec<Vec<f64>> {
        let m = 3 * n;
        let mut a = vec![vec![0.0; m]; m];
        let lower = (0..m).flat_map(|r| ((r / 3).saturating_sub(1) * 3..=r).map(move |c| (r, c)));
        for (r, c) in lower {
            let v = if r == c { 9.0 + (r as f64 * 0.37).sin() } else { 0.9 * ((r * 7 + c) as f64).cos() };
            a[r][c] = v;
            a[c][r] = v;
        }
        a
    }

    fn load(a: &[Vec<f64>], n: usize) -> BlockTridiagonal {
        let mut f = BlockTridiagonal::new(n);
        for i in 0..n {
            for r in 0..3 {
                for c in 0..3 {
                    f.diag[i][3 * r + c] = a[3 * i + r][3 * i + c];
                    if i > 0 {
                        f.sub[i][3 * r + c] = a[3 * i + r][3 * i - 3 + c];
                    }
                }
            }
        }
        f
    }

    #[test]
    fn solves_block_tridiagonal_systems() {
        for n in [1, 2, 5, 40] {
            let a = matrix(n);
            let mut f = load(&a, n);
            f.factor().expect("SPD");
            let x: Vec<f64> = (0..3 * n).map(|i| (i as f64 * 1.3).sin()).collect();
            let mut b: Vec<f64> = a.iter().map(|row| row.iter().zip(&x).map(|(a, x)| a * x).sum()).collect();
            f.solve(&mut b);
            for (u, v) in b.iter().zip(&x) {
                assert!((u - v).abs() < 1e-14, "n {n}: {u} vs {v}");
            }
        }
    }

    /// The same solution as the sparse (envelope) Cholesky to 1e-14 relative.
    #[test]
    fn agrees_with_the_sparse_cholesky() {
        let n = 32;
        let a = matrix(n);
        let lower: Vec<(usize, usize)> =
            (0..3 * n).flat_map(|r| ((r / 3).saturating_sub(1) * 3..=r).map(move |c| (r, c))).collect();
        let (mut sparse, positions) = super::super::SparseCholesky::new(3 * n, &lower);
        for (&p, &(r, c)) in positions.iter().zip(&lower) {
            sparse.add(p, a[r][c]);
        }
        sparse.factor().unwrap();
        let mut f = load(&a, n);
        f.factor().unwrap();
        let b: Vec<f64> = (0..3 * n).map(|i| (i as f64 * 0.7).cos()).collect();
        let (mut x, mut y) = (b.clone(), b);
        sparse.solve(&mut x);
        f.solve(&mut y);
        let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (u, v) in x.iter().zip(&y) {
            assert!((u - v).abs() <= 1e-14 * scale, "{u} vs {v}");
        }
    }

    #[test]
    fn indefinite_matrices_name_the_row() {
        let n = 4;
        let mut a = matrix(n);
        a[7][7] = -1.0;
        let mut f = load(&a, n);
        assert_eq!(f.factor(), Err(BlockPivotError(7)));
    }
}
