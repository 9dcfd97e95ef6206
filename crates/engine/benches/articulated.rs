//! Cost of one evaluation of an open tree's accelerations against its size: the
//! [Fang2023] chain of N bars in spherical joints (3N joint rotations, `semirecursive/spherical.rs`)
//! at a fixed pseudo-random state, kinematics and loads included, by the articulated-body
//! recursion [Featherstone2008, Sect. 7.3] (`semirecursive/articulated.rs`, what the explicit
//! methods and Model Exchange evaluate) and by the dense mass-matrix solve M' z'' = Q'
//! ([Jaiswal2021, eqs. 11-12], LU of the 3N x 3N matrix), for N = 8 to 128.
//!
//!     cargo bench -p mbfmu-engine --bench articulated            # best of 7 runs per size
//!     cargo bench -p mbfmu-engine --bench articulated -- --quick # one run per size
//!
//! The ratio column is the time at N over the time at N / 2: 2 for O(N), 8 for O(N^3).

use mbfmu_engine::semirecursive::articulated::Articulated;
use mbfmu_engine::semirecursive::dynamics::Inertia;
use mbfmu_engine::semirecursive::kinematics::BodyKin;
use mbfmu_engine::semirecursive::Tree;
use mbfmu_model::catalog::chain::{n_link_chain, CATALOG_SEED};
use mbfmu_model::format::Formulation;
use nalgebra::{DMatrix, DVector, Vector6};
use std::hint::black_box;
use std::time::Instant;

const SIZES: [usize; 5] = [8, 16, 32, 64, 128];

struct Case {
    tree: Tree,
    z: Vec<f64>,
    zd: Vec<f64>,
    kin: Vec<BodyKin>,
    loads: Vec<Vector6<f64>>,
}

impl Case {
    fn new(bars: usize) -> Case {
        let mut d = n_link_chain(bars, CATALOG_SEED);
        d.solver.formulation = Formulation::SemirecursiveDoubleStep;
        let tree = Tree::from_description(&d).expect("the chain compiles");
        let n = tree.n_coordinates();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            2.0 * ((state >> 11) as f64 / (1u64 << 53) as f64) - 1.0
        };
        let z = (0..n).map(|_| 0.5 * next()).collect();
        let zd = (0..n).map(|_| next()).collect();
        Case { tree, z, zd, kin: vec![BodyKin::default(); n], loads: vec![Vector6::zeros(); n] }
    }

    fn kinematics(&mut self) {
        let t = &self.tree;
        t.positions(&self.z, &mut self.kin);
        t.velocities(&self.zd, &mut self.kin);
        t.accelerations(&self.zd, &vec![0.0; self.z.len()], &mut self.kin);
        t.loads(&self.kin, &self.z, &self.zd, &[], &[], &[], &[], true, &mut self.loads);
    }
}

/// Best time of `runs` runs of `repeat` calls of `f`, per call, in microseconds.
fn best(runs: usize, repeat: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..repeat {
                f();
            }
            start.elapsed().as_secs_f64() / repeat as f64 * 1e6
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let runs = if std::env::args().any(|a| a == "--quick") { 1 } else { 7 };
    println!("| N bars | coordinates | recursion (us) | ratio | dense solve (us) | ratio |");
    println!("|---|---|---|---|---|---|");
    let mut last: Option<(f64, f64)> = None;
    for bars in SIZES {
        let mut case = Case::new(bars);
        let n = case.tree.n_coordinates();
        let mut scratch = Articulated::new(n);
        let mut zdd = vec![0.0; n];
        let repeat = (20_000 / bars).max(10);
        let aba = best(runs, repeat, || {
            case.kinematics();
            case.tree.articulated_accelerations(&case.kin, &case.loads, &mut scratch, &mut zdd).expect("regular");
            black_box(&zdd);
        });
        let (mut sums, mut res) = (vec![Vector6::zeros(); n], vec![0.0; n]);
        let (mut inertias, mut mass) = (vec![Inertia::default(); n], vec![0.0; n * n]);
        let dense = best(runs, (repeat / bars).max(3), || {
            case.kinematics();
            case.tree.generalized_residual(&case.kin, &case.loads, &mut sums, &mut res);
            case.tree.mass_matrix(&case.kin, &mut inertias, &mut mass);
            let x = DMatrix::from_row_slice(n, n, &mass).lu().solve(&-DVector::from_column_slice(&res));
            black_box(x);
        });
        let ratio = |now: f64, before: Option<f64>| before.map_or("".to_string(), |b| format!("{:.2}", now / b));
        println!(
            "| {bars} | {n} | {aba:.2} | {} | {dense:.1} | {} |",
            ratio(aba, last.map(|l| l.0)),
            ratio(dense, last.map(|l| l.1))
        );
        last = Some((aba, dense));
    }
}
