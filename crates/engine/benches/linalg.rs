//! Factor + solve of one small dense system: the hand-written [`SmallLu`] of the semirecursive
//! formulations against faer's dense LU with partial pivoting (in place, preallocated, the
//! routine behind `linalg::DenseLu`), on the same matrices. Sizes: those the semirecursive
//! formulations factor (1-9 on the hydraulics benchmark: dependent coordinates, tangent,
//! projection, assembly) and a few larger ones.
//!
//!     cargo bench -p mbfmu-engine --bench linalg            # best of 7 runs per size
//!     cargo bench -p mbfmu-engine --bench linalg -- --quick # one run per size
//!
//! Each run factors and solves `BATCH` different matrices (entries uniform in [-1, 1], a fixed
//! pseudo-random sequence, so pivoting happens); the time per system is the best run's average.
//! The faer side copies the matrix in and solves in place with no condition check, the
//! hand-written side also records its smallest pivot: the comparison favours faer slightly.
//!
//! Second table: factor + solve of a block-tridiagonal SPD matrix of N 3 x 3 blocks (the
//! pattern of a chain's Schur complement) by [`BlockTridiagonal`] and by the sparse
//! (envelope) Cholesky behind `LinearSystem`, assembly included, and the largest difference of
//! the two solutions relative to the largest entry.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::lu::partial_pivoting::{factor, solve};
use faer::{Conj, Mat, MatMut, Par, Spec};
use mbfmu_engine::linalg::{BlockTridiagonal, SmallLu, SparseCholesky};
use std::hint::black_box;
use std::time::Instant;

const SIZES: [usize; 12] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24];
const BATCH: usize = 64;

/// Row-major matrices and right-hand sides, a linear congruential sequence (Knuth's MMIX
/// constants) mapped to [-1, 1].
fn systems(n: usize) -> Vec<(Vec<f64>, Vec<f64>)> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64 ^ n as u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        2.0 * ((state >> 11) as f64 / (1u64 << 53) as f64) - 1.0
    };
    (0..BATCH).map(|_| ((0..n * n).map(|_| next()).collect(), (0..n).map(|_| next()).collect())).collect()
}

/// Nanoseconds per factor + solve: the best of `repeat` runs, each over the whole batch enough
/// times to last about 20 ms.
fn time(repeat: usize, mut run_batch: impl FnMut()) -> f64 {
    let start = Instant::now();
    run_batch();
    let once = start.elapsed().as_secs_f64().max(1e-9);
    let rounds = ((0.02 / once) as usize).max(1);
    let mut best = f64::INFINITY;
    for _ in 0..repeat {
        let start = Instant::now();
        for _ in 0..rounds {
            run_batch();
        }
        best = best.min(start.elapsed().as_secs_f64() / rounds as f64);
    }
    best / BATCH as f64 * 1e9
}

fn hand_written(n: usize, cases: &[(Vec<f64>, Vec<f64>)], repeat: usize) -> (f64, Vec<Vec<f64>>) {
    let mut lu = SmallLu::new(n);
    let (mut b, mut tmp) = (vec![0.0; n], vec![0.0; n]);
    let mut run = |keep: &mut Option<&mut Vec<Vec<f64>>>| {
        for (a, rhs) in cases {
            lu.a.copy_from_slice(a);
            assert!(lu.factor(), "the test matrices are regular");
            b.copy_from_slice(rhs);
            lu.solve(&mut b, &mut tmp);
            black_box(&b);
            if let Some(k) = keep {
                k.push(b.clone());
            }
        }
    };
    let mut solutions = Vec::new();
    run(&mut Some(&mut solutions));
    (time(repeat, || run(&mut None)), solutions)
}

fn faer_lu(n: usize, cases: &[(Vec<f64>, Vec<f64>)], repeat: usize) -> (f64, Vec<Vec<f64>>) {
    let mut a = Mat::<f64>::zeros(n, n);
    let (mut perm, mut perm_inv) = (vec![0usize; n], vec![0usize; n]);
    let mut stack = MemBuffer::new(StackReq::any_of(&[
        factor::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Spec::default()),
        solve::solve_in_place_scratch::<usize, f64>(n, 1, Par::Seq),
    ]));
    let mut b = vec![0.0; n];
    let mut run = |keep: &mut Option<&mut Vec<Vec<f64>>>| {
        for (m, rhs) in cases {
            for r in 0..n {
                for c in 0..n {
                    a[(r, c)] = m[r * n + c];
                }
            }
            factor::lu_in_place(
                a.as_mut(),
                &mut perm,
                &mut perm_inv,
                Par::Seq,
                MemStack::new(&mut stack),
                Spec::default(),
            );
            b.copy_from_slice(rhs);
            // Safety: perm and perm_inv are the inverse permutations lu_in_place wrote.
            let p = unsafe { faer::perm::PermRef::new_unchecked(&perm, &perm_inv, n) };
            let x = MatMut::from_column_major_slice_mut(&mut b, n, 1);
            solve::solve_in_place_with_conj(
                a.as_ref(),
                a.as_ref(),
                p,
                Conj::No,
                x,
                Par::Seq,
                MemStack::new(&mut stack),
            );
            black_box(&b);
            if let Some(k) = keep {
                k.push(b.clone());
            }
        }
    };
    let mut solutions = Vec::new();
    run(&mut Some(&mut solutions));
    (time(repeat, || run(&mut None)), solutions)
}

/// Lower entries and values of a diagonally dominant block-tridiagonal SPD matrix of `n`
/// 3 x 3 blocks, and a right-hand side.
fn block_tridiagonal(n: usize) -> (Vec<(usize, usize)>, Vec<f64>, Vec<f64>) {
    let lower: Vec<(usize, usize)> =
        (0..3 * n).flat_map(|r| ((r / 3).saturating_sub(1) * 3..=r).map(move |c| (r, c))).collect();
    let values = lower
        .iter()
        .map(|&(r, c)| if r == c { 9.0 + (r as f64 * 0.37).sin() } else { 0.9 * ((r * 7 + c) as f64).cos() })
        .collect();
    (lower, values, (0..3 * n).map(|i| (i as f64 * 1.3).sin()).collect())
}

/// Nanoseconds per factor + solve of the block-tridiagonal matrix of `n` blocks by the block
/// kernel and by the sparse Cholesky, and the relative difference of the solutions.
fn chain_factor(n: usize, repeat: usize) -> (f64, f64, f64) {
    let (lower, values, b) = block_tridiagonal(n);
    let mut block = BlockTridiagonal::new(n);
    let mut x = b.clone();
    // (diagonal?, block, entry) of each lower entry.
    let slots: Vec<(bool, usize, usize)> =
        lower.iter().map(|&(r, c)| (r / 3 == c / 3, r / 3, 3 * (r % 3) + c % 3)).collect();
    let mut run_block = || {
        block.clear();
        for (&(diagonal, i, e), &v) in slots.iter().zip(&values) {
            if diagonal {
                block.diag[i][e] = v;
            } else {
                block.sub[i][e] = v;
            }
        }
        block.factor().expect("SPD");
        x.copy_from_slice(&b);
        block.solve(&mut x);
        black_box(&x);
    };
    let t_block = time(repeat, &mut run_block) * BATCH as f64;
    let (mut sparse, positions) = SparseCholesky::new(3 * n, &lower);
    let mut y = b.clone();
    let mut run_sparse = || {
        sparse.clear();
        for (&p, &v) in positions.iter().zip(&values) {
            sparse.add(p, v);
        }
        sparse.factor().expect("SPD");
        y.copy_from_slice(&b);
        sparse.solve(&mut y);
        black_box(&y);
    };
    let t_sparse = time(repeat, &mut run_sparse) * BATCH as f64;
    run_block();
    run_sparse();
    let scale = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let diff = x.iter().zip(&y).fold(0.0f64, |m, (u, v)| m.max((u - v).abs())) / scale;
    (t_block, t_sparse, diff)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let repeat = if quick { 1 } else { 7 };
    println!("## Small dense LU, factor + solve of one system (best of {repeat} runs, {BATCH} matrices)\n");
    println!("| n | hand-written [ns] | faer [ns] | faer / hand-written | time saved by hand-written | bit-identical solutions |");
    println!("|---|---|---|---|---|---|");
    for n in SIZES {
        let cases = systems(n);
        let (t_hand, x_hand) = hand_written(n, &cases, repeat);
        let (t_faer, x_faer) = faer_lu(n, &cases, repeat);
        let identical = x_hand.iter().zip(&x_faer).filter(|(u, v)| u == v).count();
        println!(
            "| {n} | {t_hand:.1} | {t_faer:.1} | {:.2} | {:.0} % | {identical} of {BATCH} |",
            t_faer / t_hand,
            100.0 * (1.0 - t_hand / t_faer),
        );
    }
    println!("\n## Block-tridiagonal LDL^T (3 x 3 blocks) against the sparse Cholesky, factor + solve (best of {repeat} runs)\n");
    println!("| blocks | block kernel [ns] | sparse Cholesky [ns] | sparse / block | max difference (relative) |");
    println!("|---|---|---|---|---|");
    for n in [8, 32, 128, 1024] {
        let (t_block, t_sparse, diff) = chain_factor(n, repeat);
        println!("| {n} | {t_block:.0} | {t_sparse:.0} | {:.2} | {diff:.1e} |", t_sparse / t_block);
    }
}
