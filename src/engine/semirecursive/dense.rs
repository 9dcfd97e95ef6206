//! Small dense matrices of the semirecursive formulations (a few coordinates and pressures):
//! LU with partial pivoting in preallocated storage, and Gaussian elimination with full
//! pivoting to choose independent coordinates (seed 004 Sect. 2.2, ref. [21]).

/// A row-major n x n matrix and its LU factors (partial pivoting), allocated once.
#[derive(Clone, Debug, Default)]
pub struct Lu {
    n: usize,
    pub a: Vec<f64>,
    perm: Vec<usize>,
    /// Smallest |pivot| of the last factorization.
    pub min_pivot: f64,
}

impl Lu {
    pub fn new(n: usize) -> Lu {
        Lu { n, a: vec![0.0; n * n], perm: (0..n).collect(), min_pivot: 0.0 }
    }

    pub fn dim(&self) -> usize {
        self.n
    }

    pub fn at(&mut self, r: usize, c: usize) -> &mut f64 {
        &mut self.a[r * self.n + c]
    }

    pub fn clear(&mut self) {
        self.a.iter_mut().for_each(|x| *x = 0.0);
    }

    /// Factors in place; false if a pivot is zero or not finite. Rows are handled as
    /// slices (no per-entry index arithmetic: these run a few times per step).
    pub fn factor(&mut self) -> bool {
        let n = self.n;
        if n == 0 {
            self.min_pivot = f64::INFINITY;
            return true;
        }
        let a = &mut self.a[..n * n];
        self.min_pivot = f64::INFINITY;
        for (k, p) in self.perm.iter_mut().enumerate() {
            *p = k;
        }
        for k in 0..n {
            let (mut best, mut row) = (a[k * n + k].abs(), k);
            for (r, x) in a[(k + 1) * n..].chunks_exact(n).enumerate() {
                let v = x[k].abs();
                if v > best {
                    best = v;
                    row = k + 1 + r;
                }
            }
            if !(best > 0.0 && best.is_finite()) {
                self.min_pivot = 0.0;
                return false;
            }
            if row != k {
                let (top, bottom) = a.split_at_mut(row * n);
                top[k * n..(k + 1) * n].swap_with_slice(&mut bottom[..n]);
                self.perm.swap(k, row);
            }
            self.min_pivot = self.min_pivot.min(best);
            let (upper, lower) = a.split_at_mut((k + 1) * n);
            let pivot_row = &upper[k * n..];
            let pivot = pivot_row[k];
            for x in lower.chunks_exact_mut(n) {
                let l = x[k] / pivot;
                x[k] = l;
                if l != 0.0 {
                    for (y, p) in x[k + 1..].iter_mut().zip(&pivot_row[k + 1..]) {
                        *y -= l * p;
                    }
                }
            }
        }
        true
    }

    /// Solves A x = b in place (b becomes x); `tmp` has n entries. Plain index loops: the
    /// systems have a handful of rows, too few to amortize iterator set-up.
    pub fn solve(&self, b: &mut [f64], tmp: &mut [f64]) {
        let n = self.n;
        let (a, x) = (&self.a[..n * n], &mut tmp[..n]);
        for i in 0..n {
            x[i] = b[self.perm[i]];
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
            x[i] = s / a[i * n + i];
        }
        b[..n].copy_from_slice(x);
    }

    /// Solves A^T x = b in place; `tmp` has n entries.
    pub fn solve_transpose(&self, b: &mut [f64], tmp: &mut [f64]) {
        let n = self.n;
        let (a, tmp) = (&self.a[..n * n], &mut tmp[..n]);
        // A = P^T L U: A^T x = U^T L^T P x = b.
        tmp.copy_from_slice(&b[..n]);
        for i in 0..n {
            let s = (0..i).fold(tmp[i], |s, j| s - a[j * n + i] * tmp[j]);
            tmp[i] = s / a[i * n + i];
        }
        for i in (0..n).rev() {
            tmp[i] = (i + 1..n).fold(tmp[i], |s, j| s - a[j * n + i] * tmp[j]);
        }
        for (t, &p) in tmp.iter().zip(&self.perm) {
            b[p] = *t;
        }
    }
}

/// Gaussian elimination with full pivoting on the m x n row-major matrix `a` (destroyed):
/// the columns where the m pivots appear are the dependent coordinates, the others the
/// independent ones (seed 004 Sect. 2.2). Returns the smallest |pivot|, or 0 if the rows are
/// dependent. `dependent` gets m column indices, `independent` n - m, both ascending.
pub fn full_pivoting(
    a: &mut [f64],
    m: usize,
    n: usize,
    dependent: &mut Vec<usize>,
    independent: &mut Vec<usize>,
) -> f64 {
    dependent.clear();
    independent.clear();
    let mut used_rows = [false; 64];
    let mut used_cols = [false; 64];
    assert!(m <= 64 && n <= 64, "small systems only");
    let mut smallest = f64::INFINITY;
    for _ in 0..m {
        let (mut best, mut pr, mut pc) = (0.0, usize::MAX, usize::MAX);
        for r in (0..m).filter(|&r| !used_rows[r]) {
            for c in (0..n).filter(|&c| !used_cols[c]) {
                let v = a[r * n + c].abs();
                if v > best {
                    best = v;
                    pr = r;
                    pc = c;
                }
            }
        }
        if !(best > 0.0 && best.is_finite()) {
            return 0.0;
        }
        smallest = smallest.min(best);
        used_rows[pr] = true;
        used_cols[pc] = true;
        dependent.push(pc);
        let pivot = a[pr * n + pc];
        for r in (0..m).filter(|&r| !used_rows[r]) {
            let l = a[r * n + pc] / pivot;
            if l != 0.0 {
                for c in 0..n {
                    a[r * n + c] -= l * a[pr * n + c];
                }
            }
        }
    }
    dependent.sort_unstable();
    independent.extend((0..n).filter(|c| !used_cols[*c]));
    smallest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_system_factors_and_solves() {
        let mut lu = Lu::new(0);
        assert!(lu.factor());
        lu.solve(&mut [], &mut []);
        lu.solve_transpose(&mut [], &mut []);
    }

    #[test]
    fn lu_solves_and_transposed_solves() {
        let a = [4.0, -2.0, 1.0, 3.0, 6.0, -4.0, 2.0, 1.0, 8.0];
        let mut lu = Lu::new(3);
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
    fn full_pivoting_picks_the_seed_four_bar_independent_coordinate() {
        // Phi_z of the four-bar's cut joint E at the initial configuration (seed 004 Sect. 5,
        // geometry of benchmarks.md Sect. 5.5): columns z1, z2, z3.
        let mut a = [1.0, 1.0, 0.0, 0.0, -3.0, -2.0];
        let (mut dep, mut ind) = (Vec::new(), Vec::new());
        let p = full_pivoting(&mut a, 2, 3, &mut dep, &mut ind);
        assert_eq!(ind, vec![2], "seed 004 Sect. 6.1: z3 is independent");
        assert_eq!(dep, vec![0, 1]);
        assert!((p - 1.0).abs() < 1e-12);
    }
}
