//! Gaussian elimination with full pivoting to choose independent coordinates (\[Jaiswal2021\]
//! Sect. 2.2, ref. [21]): used by the semirecursive formulations at assembly and whenever the
//! coordinate partition is re-chosen. Small matrices (a few constraints by a few coordinates)
//! in place, no allocation beyond the two index lists.

/// Gaussian elimination with full pivoting on the m x n row-major matrix `a` (destroyed):
/// the columns where the m pivots appear are the dependent coordinates, the others the
/// independent ones ([Jaiswal2021, Sect. 2.2]). Returns the smallest |pivot|, or 0 if the rows are
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
    fn full_pivoting_picks_the_seed_four_bar_independent_coordinate() {
        // Phi_z of the four-bar's cut joint E at the initial configuration ([Jaiswal2021, Sect. 5],
        // geometry of [Jaiswal2021, Fig. 4]): columns z1, z2, z3.
        let mut a = [1.0, 1.0, 0.0, 0.0, -3.0, -2.0];
        let (mut dep, mut ind) = (Vec::new(), Vec::new());
        let p = full_pivoting(&mut a, 2, 3, &mut dep, &mut ind);
        assert_eq!(ind, vec![2], "[Jaiswal2021, Sect. 6.1]: z3 is independent");
        assert_eq!(dep, vec![0, 1]);
        assert!((p - 1.0).abs() < 1e-12);
    }
}
