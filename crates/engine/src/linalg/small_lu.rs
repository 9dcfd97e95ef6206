//! [`SmallLu`]: hand-written LU with partial pivoting for the small dense systems of the
//! semirecursive formulations (a handful of coordinates and pressures) and the Schur
//! complements of small index-3 mechanisms (`index3::body_schur`), in preallocated
//! row-major storage, with solves by the matrix and its transpose.
//!
//! Faster than faer's dense partial-pivoting LU (the routine behind [`super::DenseLu`]) by
//! 17-84 % of faer's time per factor + solve (faer takes 1.2-6.3 times as long) for n <= 16,
//! measured with `cargo bench -p mbfmu-engine --bench linalg` (two runs on a shared, loaded
//! 2-core machine): 82-84 % at n = 1-2, 35-74 % at n = 3-9, 17-51 % at n = 12-16. At n = 24
//! the two are within noise (faer 0.89-1.11 times the time). The semirecursive formulations
//! factor n = 1-9 on the hydraulics benchmark, so every size stays on these kernels; faer's
//! factors also round differently (no solution bit-identical from n = 4 on in the bench), so a
//! switch would change the outputs.

/// Calls the kernel with its size `n` as a literal for 1 to 8 (the systems here: a handful of
/// coordinates and pressures), where the inlined loops unroll and lose their bounds checks;
/// loop set-up would otherwise dominate.
macro_rules! by_size {
    ($n:expr, $kernel:ident($($arg:expr),*)) => {
        match $n {
            1 => $kernel($($arg,)* 1),
            2 => $kernel($($arg,)* 2),
            3 => $kernel($($arg,)* 3),
            4 => $kernel($($arg,)* 4),
            5 => $kernel($($arg,)* 5),
            6 => $kernel($($arg,)* 6),
            7 => $kernel($($arg,)* 7),
            8 => $kernel($($arg,)* 8),
            n => $kernel($($arg,)* n),
        }
    };
}

/// A row-major n x n matrix and its LU factors (partial pivoting), allocated once.
/// Serializable, so that factors can be part of a snapshot ([`SmallLu::is_well_formed`]
/// checks one read back).
#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SmallLu {
    n: usize,
    pub a: Vec<f64>,
    perm: Vec<usize>,
    /// 1 / U_kk: the substitutions multiply (a division's latency would chain through them).
    inverse_pivots: Vec<f64>,
    /// Smallest |pivot| of the last factorization.
    pub min_pivot: f64,
}

impl Clone for SmallLu {
    fn clone(&self) -> Self {
        let mut copy = SmallLu::default();
        copy.clone_from(self);
        copy
    }

    /// Field-wise, reusing the storage (the derived version would allocate).
    fn clone_from(&mut self, source: &Self) {
        self.n = source.n;
        self.a.clone_from(&source.a);
        self.perm.clone_from(&source.perm);
        self.inverse_pivots.clone_from(&source.inverse_pivots);
        self.min_pivot = source.min_pivot;
    }
}

impl SmallLu {
    pub fn new(n: usize) -> SmallLu {
        SmallLu { n, a: vec![0.0; n * n], perm: (0..n).collect(), inverse_pivots: vec![0.0; n], min_pivot: 0.0 }
    }

    pub fn dim(&self) -> usize {
        self.n
    }

    /// Whether this is an n x n matrix whose permutation is one of 0..n: what the solves
    /// index by (a value read back from bytes may be anything).
    pub fn is_well_formed(&self, n: usize) -> bool {
        let mut seen = vec![false; n];
        self.n == n
            && self.a.len() == n * n
            && self.inverse_pivots.len() == n
            && self.perm.len() == n
            && self.perm.iter().all(|&p| p < n && !std::mem::replace(&mut seen[p], true))
    }

    pub fn at(&mut self, r: usize, c: usize) -> &mut f64 {
        &mut self.a[r * self.n + c]
    }

    pub fn clear(&mut self) {
        self.a.iter_mut().for_each(|x| *x = 0.0);
    }

    /// Factors in place; false if a pivot is zero or not finite.
    pub fn factor(&mut self) -> bool {
        // Up to 3 unknowns the in-place kernel unrolls completely; from 4 on the stack copy
        // with array rows, one call per column with constant loop bounds, is faster
        // (callgrind per factorization, in-place -> fixed: 4: 678 -> 362, 5: 1017 -> 527,
        // 8: 2652 -> 1311; the bench's factor + solve 4: 109 -> 84 ns, 8: 270 -> 244 ns. At 3
        // the fixed kernel takes fewer instructions, 335 -> 267, but 60 instead of 38 ns, and
        // at 2 more of both, 116 -> 169).
        // From 9 to 24 (the Schur complements of small index-3 mechanisms, index3::body_schur)
        // the fixed kernel too: at n = 10 (the double pendulum) callgrind counts 7 360 -> 1 630
        // instructions per factorization and 1 150 -> 370 per solve.
        macro_rules! fixed {
            ($($size:literal)*) => {
                match self.n {
                    $($size => factor_fixed::<$size>(&mut self.a, &mut self.perm, &mut self.inverse_pivots),)*
                    n => by_size!(n, factor_in_place(&mut self.a, &mut self.perm, &mut self.inverse_pivots)),
                }
            };
        }
        let (ok, min_pivot) = fixed!(4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
        self.min_pivot = min_pivot;
        ok
    }

    /// Solves A x = b in place (b becomes x); `tmp` has n entries.
    pub fn solve(&self, b: &mut [f64], tmp: &mut [f64]) {
        macro_rules! fixed {
            ($($size:literal)*) => {
                match self.n {
                    $($size => solve_fixed::<$size>(&self.a, &self.perm, &self.inverse_pivots, b),)*
                    _ => solve_in_place(&self.a, &self.perm, &self.inverse_pivots, b, tmp, self.n),
                }
            };
        }
        fixed!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24)
    }

    /// Solves A^T x = b in place; `tmp` has n entries.
    pub fn solve_transpose(&self, b: &mut [f64], tmp: &mut [f64]) {
        by_size!(self.n, solve_transpose_in_place(&self.a, &self.perm, &self.inverse_pivots, b, tmp))
    }
}

/// Partial pivoting in column k: the largest |entry| of `column` (the entries of rows k, k+1,
/// ...; the first one wins ties) and its row, or None if it is zero or not finite.
#[inline(always)]
fn pivot(k: usize, mut column: impl Iterator<Item = f64>) -> Option<(f64, usize)> {
    let (mut best, mut row) = (column.next()?.abs(), k);
    for (r, v) in (k + 1..).zip(column) {
        if v.abs() > best {
            best = v.abs();
            row = r;
        }
    }
    (best > 0.0 && best.is_finite()).then_some((best, row))
}

/// LU with partial pivoting of the row-major n x n `a` in place, row permutation in `perm`
/// (A = P^T L U, unit L below the diagonal); (success, smallest |pivot|). Inlined into the
/// callers of [`by_size`], where n is a constant.
#[inline(always)]
fn factor_in_place(a: &mut [f64], perm: &mut [usize], inverse_pivots: &mut [f64], n: usize) -> (bool, f64) {
    let (a, perm, inverse_pivots) = (&mut a[..n * n], &mut perm[..n], &mut inverse_pivots[..n]);
    let mut min_pivot = f64::INFINITY;
    for (k, p) in perm.iter_mut().enumerate() {
        *p = k;
    }
    for k in 0..n {
        let Some((best, row)) = pivot(k, (k..n).map(|r| a[r * n + k])) else {
            return (false, 0.0);
        };
        if row != k {
            for c in 0..n {
                a.swap(k * n + c, row * n + c);
            }
            perm.swap(k, row);
        }
        min_pivot = min_pivot.min(best);
        let inverse = 1.0 / a[k * n + k];
        inverse_pivots[k] = inverse;
        for r in k + 1..n {
            let l = a[r * n + k] * inverse;
            a[r * n + k] = l;
            for c in k + 1..n {
                a[r * n + c] -= l * a[k * n + c];
            }
        }
    }
    (true, min_pivot)
}

/// [`factor_in_place`] for a size known at compile time, on the storage viewed as rows that
/// are arrays, column by column ([`eliminate`]) with the column a constant: every loop has
/// constant bounds and unrolls, where the triangular loops' set-up and bounds checks dominated.
/// The same operations in the same order, so the same factors bit for bit. (It used to work
/// on a stack copy; viewing the storage in place saves the copies, callgrind over the
/// hydraulic cycles 61-211 instructions per step. At n = 3 the in-place kernel stays: the
/// fixed one takes 138 fewer instructions per step of the four-bar's penalty cycle but
/// 45-47 against 39-43 ns per factor and solve in `cargo bench -p mbfmu-engine --bench
/// linalg`.)
fn factor_fixed<const N: usize>(a: &mut [f64], perm: &mut [usize], inverse_pivots: &mut [f64]) -> (bool, f64) {
    // The storage viewed as N rows of N: no copy to the stack and back.
    let m: &mut [[f64; N]; N] = a[..N * N].as_chunks_mut::<N>().0.try_into().expect("N rows of N");
    let mut p = [0usize; N];
    for (k, pk) in p.iter_mut().enumerate() {
        *pk = k;
    }
    let mut min_pivot = f64::INFINITY;
    // One call per column with the column a constant, so that every loop has constant bounds
    // and unrolls completely.
    macro_rules! columns {
        ($($k:literal)*) => {
            $(
                if $k < N && !eliminate::<N, $k>(m, &mut p, inverse_pivots, &mut min_pivot) {
                    return (false, 0.0);
                }
            )*
        };
    }
    columns!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23);
    perm[..N].copy_from_slice(&p);
    (true, min_pivot)
}

/// Column K of [`factor_fixed`]: partial pivoting as in [`pivot`] (the first of the largest
/// |entries| wins), then the rows below the pivot eliminated; false if the pivot is zero or not
/// finite.
#[inline(always)]
fn eliminate<const N: usize, const K: usize>(
    m: &mut [[f64; N]; N],
    p: &mut [usize; N],
    inverse_pivots: &mut [f64],
    min_pivot: &mut f64,
) -> bool {
    let (mut best, mut row) = (m[K][K].abs(), K);
    for (r, mr) in m.iter().enumerate().skip(K + 1) {
        if mr[K].abs() > best {
            best = mr[K].abs();
            row = r;
        }
    }
    if !(best > 0.0 && best.is_finite()) {
        return false;
    }
    if row != K {
        m.swap(K, row);
        p.swap(K, row);
    }
    *min_pivot = min_pivot.min(best);
    let pivot_row = m[K];
    let inverse = 1.0 / pivot_row[K];
    inverse_pivots[K] = inverse;
    for mr in m.iter_mut().skip(K + 1) {
        let l = mr[K] * inverse;
        mr[K] = l;
        for c in K + 1..N {
            mr[c] -= l * pivot_row[c];
        }
    }
    true
}

/// Forward and back substitution with the factors of [`factor_in_place`]: b becomes x.
#[inline(always)]
fn solve_in_place(a: &[f64], perm: &[usize], inverse_pivots: &[f64], b: &mut [f64], x: &mut [f64], n: usize) {
    let (a, perm, inv, b, x) = (&a[..n * n], &perm[..n], &inverse_pivots[..n], &mut b[..n], &mut x[..n]);
    for i in 0..n {
        x[i] = b[perm[i]];
    }
    for i in 1..n {
        let mut s = x[i];
        for j in 0..i {
            s -= a[i * n + j] * x[j];
        }
        x[i] = s;
    }
    for i in (0..n).rev() {
        let mut s = x[i];
        for j in i + 1..n {
            s -= a[i * n + j] * x[j];
        }
        x[i] = s * inv[i];
    }
    b.copy_from_slice(x);
}

/// [`solve_in_place`] for a size known at compile time, on the factors viewed as rows that
/// are arrays and a stack copy of the right-hand side: the same operations in the same order
/// (callgrind over the hydraulic cycles: 24-30 fewer instructions per step).
#[inline(always)]
fn solve_fixed<const N: usize>(a: &[f64], perm: &[usize], inverse_pivots: &[f64], b: &mut [f64]) {
    let a: &[[f64; N]; N] = a[..N * N].as_chunks::<N>().0.try_into().expect("N rows of N");
    let inv: &[f64; N] = inverse_pivots[..N].try_into().expect("N pivots");
    let b: &mut [f64; N] = (&mut b[..N]).try_into().expect("N entries");
    let mut x = [0.0; N];
    for (xi, &p) in x.iter_mut().zip(&perm[..N]) {
        *xi = b[p];
    }
    for i in 1..N {
        let mut s = x[i];
        for j in 0..i {
            s -= a[i][j] * x[j];
        }
        x[i] = s;
    }
    for i in (0..N).rev() {
        let mut s = x[i];
        for j in i + 1..N {
            s -= a[i][j] * x[j];
        }
        x[i] = s * inv[i];
    }
    *b = x;
}

/// A^T x = b with A = P^T L U: U^T L^T P x = b; b becomes x.
#[inline(always)]
fn solve_transpose_in_place(a: &[f64], perm: &[usize], inverse_pivots: &[f64], b: &mut [f64], x: &mut [f64], n: usize) {
    let (a, perm, inv, b, x) = (&a[..n * n], &perm[..n], &inverse_pivots[..n], &mut b[..n], &mut x[..n]);
    x.copy_from_slice(b);
    for i in 0..n {
        let mut s = x[i];
        for j in 0..i {
            s -= a[j * n + i] * x[j];
        }
        x[i] = s * inv[i];
    }
    for i in (0..n).rev() {
        let mut s = x[i];
        for j in i + 1..n {
            s -= a[j * n + i] * x[j];
        }
        x[i] = s;
    }
    for i in 0..n {
        b[perm[i]] = x[i];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_system_factors_and_solves() {
        let mut lu = SmallLu::new(0);
        assert!(lu.factor());
        lu.solve(&mut [], &mut []);
        lu.solve_transpose(&mut [], &mut []);
    }

    #[test]
    fn factors_read_back_are_checked_before_a_solve_indexes_by_them() {
        let mut lu = SmallLu::new(3);
        lu.a.copy_from_slice(&[4.0, -2.0, 1.0, 3.0, 6.0, -4.0, 2.0, 1.0, 8.0]);
        assert!(lu.factor());
        let copy = lu.clone();
        assert!(copy == lu && copy.is_well_formed(3));
        assert!(!lu.is_well_formed(2));
        for perm in [vec![0, 0, 2], vec![0, 1, 3], vec![0, 1]] {
            let mut bad = lu.clone();
            bad.perm = perm;
            assert!(!bad.is_well_formed(3), "{:?}", bad.perm);
        }
        let mut short = lu.clone();
        short.a.pop();
        assert!(!short.is_well_formed(3));
    }

    #[test]
    fn lu_solves_and_transposed_solves() {
        let a = [4.0, -2.0, 1.0, 3.0, 6.0, -4.0, 2.0, 1.0, 8.0];
        let mut lu = SmallLu::new(3);
        lu.a.copy_from_slice(&a);
        assert!(lu.factor());
        let x = [1.0, -2.0, 0.5];
        let mut b: Vec<f64> = (0..3).map(|i| (0..3).map(|j| a[i * 3 + j] * x[j]).sum()).collect();
        let mut tmp = [0.0; 3];
        lu.solve(&mut b, &mut tmp);
        for i in 0..3 {
            assert!((b[i] - x[i]).abs() < 1e-14);
        }
        let mut bt: Vec<f64> = (0..3).map(|i| (0..3).map(|j| a[j * 3 + i] * x[j]).sum()).collect();
        lu.solve_transpose(&mut bt, &mut tmp);
        for i in 0..3 {
            assert!((bt[i] - x[i]).abs() < 1e-14);
        }
    }

    #[test]
    fn every_size_kernel_solves_a_system_that_needs_pivoting() {
        // Sizes 1-3 and 9-10 take the in-place kernel, 4-8 the fixed-size one; the matrix
        // has a zero leading diagonal entry, so pivoting is required from the first column.
        for n in 1..=10 {
            let a: Vec<f64> = (0..n * n)
                .map(|k| {
                    let (i, j) = (k / n, k % n);
                    if i == j && i == 0 && n > 1 {
                        0.0
                    } else {
                        ((i * 7 + j * 3) % 11) as f64 - 5.0 + if i == j { 12.0 } else { 0.0 }
                    }
                })
                .collect();
            let mut lu = SmallLu::new(n);
            lu.a.copy_from_slice(&a);
            assert!(lu.factor(), "size {n} factors");
            let x: Vec<f64> = (0..n).map(|i| 1.0 - 0.3 * i as f64).collect();
            let mut tmp = vec![0.0; n];
            let mut b: Vec<f64> = (0..n).map(|i| (0..n).map(|j| a[i * n + j] * x[j]).sum()).collect();
            lu.solve(&mut b, &mut tmp);
            let mut bt: Vec<f64> = (0..n).map(|i| (0..n).map(|j| a[j * n + i] * x[j]).sum()).collect();
            lu.solve_transpose(&mut bt, &mut tmp);
            for i in 0..n {
                assert!((b[i] - x[i]).abs() < 1e-12, "size {n}: solve");
                assert!((bt[i] - x[i]).abs() < 1e-12, "size {n}: transposed solve");
            }
        }
        let mut singular = SmallLu::new(5);
        assert!(!singular.factor(), "a zero matrix is refused");
    }
}
