//! Dense and sparse linear algebra of the engine, in one place. Every factorization keeps its
//! storage from construction: factoring and solving allocate nothing (docs/architecture.md#numerics-and-allocation).
//!
//! | file | what | used by |
//! |---|---|---|
//! | `system.rs` | [`LinearSystem`]: a square system with a fixed sparsity pattern assembled by slot; dense/sparse Cholesky (SPD) or faer's dense LU (n <= [`DENSE_LIMIT`]) / sparse LU (above) | index-3 formulations (`index3::dae` where the per-body Schur path does not apply, statics, the Schur complement of `index3::schur`) |
//! | `cholesky.rs`, `envelope.rs` | [`SparseCholesky`] (faer's AMD ordering and symbolic factor, numeric phase precompiled for the pattern, in envelope storage when L is banded) | [`LinearSystem`] for symmetric positive definite systems above [`DENSE_CHOLESKY_LIMIT`] |
//! | `dense_cholesky.rs` | [`DenseCholesky`] (n <= [`DENSE_CHOLESKY_LIMIT`]): fixed-size kernels, over each row's envelope where that saves products, bit for bit the dense kernels | [`LinearSystem`] for small symmetric positive definite systems (the half-implicit Schur complements) |
//! | `block_tridiagonal.rs` | [`BlockTridiagonal`]: Cholesky of SPD block-tridiagonal matrices of 3 x 3 blocks (fixed-size kernels, no index lists; the bench result is in the file) | `index3::schur_chain`: Schur complements of chains of spherical joints |
//! | `dense_lu.rs` | [`DenseLu`]: faer's in-place dense LU with partial pivoting, several right-hand sides at once, transposed solves, a pivot-ratio condition estimate | state-space formulation (`statespace`): reduced Newton matrices of tens of unknowns |
//! | `small_lu.rs` | [`SmallLu`]: hand-written LU with partial pivoting, fixed-size kernels for n <= 24 | semirecursive formulations: dependent-coordinate, tangent and projection matrices of a handful of unknowns; the Schur complements of the index-3 iteration matrix (`index3::body_schur`); where it beats faer (measured, see the file) |
//! | `full_pivoting.rs` | [`full_pivoting`]: Gaussian elimination with full pivoting that picks the independent coordinates | semirecursive formulations, coordinate partitioning |
//! | `small_solve.rs` | [`solve_small`]: Gaussian elimination on a fixed-size system held by value | integrator coefficients (MSSTH5 Newton step and quadrature weights); hand-written so the coefficients stay bit-identical (faer and nalgebra change them, see the file) |

/// `$fixed` with `$k` a constant equal to `$n` for 1 to 8 (the systems of a handful of
/// coordinates and pressures of the semirecursive formulations), where loops over `$k`
/// unroll and lose their bounds checks; `$general` for other sizes. Callers keep the same
/// operations in the same order in both, so results do not depend on the branch.
macro_rules! constant_size {
    ($n:expr, $k:ident => $fixed:expr, _ => $general:expr) => {
        constant_size!(@arms $n, $k, $fixed, $general, 1 2 3 4 5 6 7 8)
    };
    (@arms $n:expr, $k:ident, $fixed:expr, $general:expr, $($size:literal)*) => {
        match $n {
            $($size => {
                const $k: usize = $size;
                $fixed
            })*
            _ => $general,
        }
    };
}
pub(crate) use constant_size;

/// `x.fill(0.0)`, with the length a constant up to 8 so that it is a store or two rather than
/// a call to `memset` (rows of a few coordinates, filled at every residual).
#[inline(always)]
pub(crate) fn zero_small(x: &mut [f64]) {
    constant_size!(x.len(),
    N => *<&mut [f64; N]>::try_from(x).expect("N entries") = [0.0; N],
    _ => x.fill(0.0))
}

/// `dst.copy_from_slice(src)`, with the length a constant up to 8 so that the copy is a few
/// moves rather than a call to `memcpy` (the per-step copies of coordinates and multipliers).
#[inline(always)]
pub(crate) fn copy_small(dst: &mut [f64], src: &[f64]) {
    constant_size!(src.len(),
    N => {
        let dst: &mut [f64; N] = dst.try_into().expect("slices of equal length");
        *dst = *<&[f64; N]>::try_from(src).expect("N entries");
    },
    _ => dst.copy_from_slice(src))
}

mod block_tridiagonal;
mod cholesky;
mod dense_cholesky;
mod dense_lu;
mod envelope;
mod full_pivoting;
mod small_lu;
mod small_solve;
mod system;

pub use block_tridiagonal::{BlockPivotError, BlockTridiagonal};
pub use cholesky::{NotPositiveDefinite, SparseCholesky};
pub use dense_cholesky::{DenseCholesky, DENSE_CHOLESKY_LIMIT};
pub use dense_lu::DenseLu;
pub use full_pivoting::full_pivoting;
pub use small_lu::SmallLu;
pub use small_solve::solve_small;
pub use system::{Assembler, LinearSystem, DENSE_LIMIT};

/// What can go wrong in a factorization.
#[derive(Clone, Debug, PartialEq)]
pub enum FactorError {
    /// Cholesky met a non-positive pivot at this (original) row.
    NotPositiveDefinite { row: Option<usize> },
    /// LU met a (numerically) zero pivot.
    Singular,
}

#[cfg(test)]
mod tests {
    use super::{copy_small, zero_small};

    #[test]
    fn small_copies_and_fills_cover_every_length() {
        // The constant sizes 1-8 and the general branch on either side.
        for n in 0..12 {
            let src: Vec<f64> = (0..n).map(|i| i as f64 - 0.5).collect();
            let mut dst = vec![f64::NAN; n];
            copy_small(&mut dst, &src);
            assert_eq!(dst, src, "copy of {n}");
            zero_small(&mut dst);
            assert!(dst.iter().all(|x| x.to_bits() == 0), "zeros of {n}");
        }
    }

    #[test]
    #[should_panic]
    fn a_copy_between_different_lengths_panics() {
        copy_small(&mut [0.0; 3], &[1.0; 4]);
    }
}
