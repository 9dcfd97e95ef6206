//! The Newton matrix of [`super::dae`] solved through its Schur complement when the dynamic
//! block is block diagonal per body: no element couples two bodies (springs and dampers to
//! ground only, no beams, no hydraulic circuit). The iteration matrix of [Fang2023, Sect. 2.3]
//!   [A  G^T] [da]   [f]
//!   [G  0  ] [dl] = [c],   A = blockdiag(A_b),
//!   A_b = [m I, 0; 0, J_bar + b0 (w_bar~ J_bar - (J_bar w_bar)~)] - b0 C_b - b0^2 K_b,
//! is solved as S dl = G A^-1 f - c with S = G A^-1 G^T (n_c x n_c, not symmetric: the
//! gyroscopic term is not), then da = A^-1 f - (A^-1 G^T) dl: 6 x 6 blocks and one small
//! dense LU instead of an LU of the whole (6 n_b + n_c) system. The half-implicit step uses
//! the same complement with constant blocks ([`super::schur`]).

use super::geometry::Row;
use super::schur::Gen;
use super::{Constraint, Mechanism};
use crate::linalg::{FactorError, SmallLu};
use nalgebra::{Matrix3, Vector3};

/// Largest constraint count solved this way (as [`crate::linalg::DENSE_LIMIT`] for the whole
/// matrix); longer mechanisms keep the sparse LU of the whole matrix, whose cost grows
/// linearly along chains where a dense S grows cubically. Andrews' squeezer (50 rows) runs
/// its default experiment in 23 % fewer instructions this way.
pub const MAX_CONSTRAINTS: usize = 64;

/// One nonzero block of G: row `row`, side `slot` of its constraint, on body `body`.
#[derive(Clone, Copy, Debug)]
struct Entry {
    row: usize,
    slot: usize,
}

/// A_b^-1 of one body: the inverse mass and inverse rotational block when no element acts on
/// the body, else an LU of the whole 6 x 6 block.
#[derive(Debug)]
enum Block {
    Rigid { inv_mass: f64, rot_inv: Matrix3<f64> },
    Loaded { lu: SmallLu, tmp: [f64; 6] },
}

impl Block {
    /// v <- A_b^-1 v.
    #[inline]
    fn apply(&mut self, v: &mut Gen) {
        match self {
            Block::Rigid { inv_mass, rot_inv } => {
                let r = *rot_inv * Vector3::new(v[3], v[4], v[5]);
                *v = [v[0] * *inv_mass, v[1] * *inv_mass, v[2] * *inv_mass, r.x, r.y, r.z];
            }
            Block::Loaded { lu, tmp } => lu.solve(v, tmp),
        }
    }
}

/// The per-body Schur path of the dynamic iteration matrix; allocated once.
#[derive(Debug)]
pub struct BodySchur {
    /// G's blocks grouped by body (a body's entries in ascending rows).
    entries: Vec<Entry>,
    body_ranges: Vec<std::ops::Range<usize>>,
    /// A_b^-1 G_kb^T per entry.
    u: Vec<Gen>,
    blocks: Vec<Block>,
    /// The element blocks -b0 C - b0^2 K summed per loaded body (row-major 6 x 6).
    loads: Vec<[f64; 36]>,
    /// The Jacobian rows S was formed with (the solves use the factored operator).
    g: Vec<Row>,
    /// A^-1 f per body during a solve.
    x: Vec<Gen>,
    s: SmallLu,
    tmp: Vec<f64>,
}

impl BodySchur {
    /// The path for `m`, if its dynamic block is block diagonal and its constraints few.
    pub fn for_mechanism(m: &Mechanism) -> Option<BodySchur> {
        let nc = m.n_constraints();
        let uncoupled = m.element_pairs().all(|p| match p {
            [Some(a), Some(b)] => a == b,
            _ => true,
        });
        if m.hydraulics.is_some()
            || !m.beams.elements.is_empty()
            || m.has_offset_masses()
            || !uncoupled
            || nc > MAX_CONSTRAINTS
        {
            return None;
        }
        let nb = m.n_bodies();
        let mut loaded = vec![false; nb];
        for b in m.element_pairs().flatten().flatten() {
            loaded[b] = true;
        }
        let mut per_body: Vec<Vec<Entry>> = vec![Vec::new(); nb];
        for (k, c) in m.constraints.iter().enumerate() {
            for (slot, b) in c.pair.iter().enumerate() {
                if let Some(b) = b {
                    per_body[*b].push(Entry { row: k, slot });
                }
            }
        }
        let mut entries = Vec::new();
        let mut body_ranges = Vec::new();
        for list in per_body {
            let start = entries.len();
            entries.extend(list);
            body_ranges.push(start..entries.len());
        }
        let blocks = loaded
            .iter()
            .map(|&l| match l {
                true => Block::Loaded { lu: SmallLu::new(6), tmp: [0.0; 6] },
                false => Block::Rigid { inv_mass: 0.0, rot_inv: Matrix3::zeros() },
            })
            .collect();
        Some(BodySchur {
            u: vec![[0.0; 6]; entries.len()],
            entries,
            body_ranges,
            blocks,
            loads: vec![[0.0; 36]; nb],
            g: vec![[[0.0; 6]; 2]; nc],
            x: vec![[0.0; 6]; nb],
            s: SmallLu::new(nc),
            tmp: vec![0.0; nc],
        })
    }

    /// Zeroes the element blocks before [`BodySchur::add_load`].
    pub fn clear_loads(&mut self) {
        self.loads.iter_mut().for_each(|l| *l = [0.0; 36]);
    }

    /// Adds `value` to entry (i, j) of body `b`'s element block.
    #[inline]
    pub fn add_load(&mut self, b: usize, i: usize, j: usize, value: f64) {
        self.loads[b][6 * i + j] += value;
    }

    /// Forms A_b of every body from its mass, its rotational block `rotational(b)` (J_bar +
    /// b0 times the gyroscopic Jacobian) and the element blocks, then S = G A^-1 G^T from the
    /// Jacobian `rows`, and factors both.
    pub fn factor(
        &mut self,
        m: &Mechanism,
        rows: &[Row],
        rotational: impl Fn(usize) -> Matrix3<f64>,
    ) -> Result<(), FactorError> {
        for (b, block) in self.blocks.iter_mut().enumerate() {
            let (mass, rot) = (m.bodies[b].mass, rotational(b));
            match block {
                Block::Rigid { inv_mass, rot_inv } => {
                    *inv_mass = 1.0 / mass;
                    *rot_inv = rot.try_inverse().ok_or(FactorError::Singular)?;
                }
                Block::Loaded { lu, .. } => {
                    let load = &self.loads[b];
                    for i in 0..6 {
                        for j in 0..6 {
                            let inertia = match (i < 3, j < 3) {
                                (true, true) if i == j => mass,
                                (false, false) => rot[(i - 3, j - 3)],
                                _ => 0.0,
                            };
                            *lu.at(i, j) = inertia + load[6 * i + j];
                        }
                    }
                    if !lu.factor() {
                        return Err(FactorError::Singular);
                    }
                }
            }
        }
        let nc = self.s.dim();
        self.g.copy_from_slice(&rows[..nc]);
        let rows = &self.g;
        self.s.clear();
        for (b, range) in self.body_ranges.iter().enumerate() {
            for e in range.clone() {
                let Entry { row, slot } = self.entries[e];
                self.u[e] = rows[row][slot];
                self.blocks[b].apply(&mut self.u[e]);
            }
            for e in range.clone() {
                let g = &rows[self.entries[e].row][self.entries[e].slot];
                for f in range.clone() {
                    let u = &self.u[f];
                    *self.s.at(self.entries[e].row, self.entries[f].row) +=
                        g[0] * u[0] + g[1] * u[1] + g[2] * u[2] + g[3] * u[3] + g[4] * u[4] + g[5] * u[5];
                }
            }
        }
        let scale = self.s.a.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if nc > 0 && (!self.s.factor() || self.s.min_pivot <= 1e-14 * scale) {
            return Err(FactorError::Singular);
        }
        Ok(())
    }

    /// out_b = sum_k G_kb^T x_k with the Jacobian `rows` of the current point (the residual's
    /// G^T lambda): per body in ascending rows, the sums of [`super::add_rows_transpose`] in
    /// the same order, without its indexing by body per row.
    pub fn rows_transpose(&self, rows: &[Row], x: &[f64], out: &mut [Gen]) {
        for (range, o) in self.body_ranges.iter().zip(out.iter_mut()) {
            let mut acc = [0.0; 6];
            for e in &self.entries[range.clone()] {
                let (g, xk) = (&rows[e.row][e.slot], x[e.row]);
                for i in 0..6 {
                    acc[i] += g[i] * xk;
                }
            }
            *o = acc;
        }
    }

    /// Solves the iteration matrix in place: `rhs` = [f per body (6 each); c per row] becomes
    /// [da; dl]. False if the result is not finite.
    pub fn solve(&mut self, constraints: &[Constraint], rhs: &mut [f64]) -> bool {
        let nb = self.x.len();
        let (f, c) = rhs.split_at_mut(6 * nb);
        for (b, x) in self.x.iter_mut().enumerate() {
            x.copy_from_slice(&f[6 * b..6 * b + 6]);
            self.blocks[b].apply(x);
        }
        // S dl = G A^-1 f - c
        for ((ck, k), row) in c.iter_mut().zip(constraints).zip(&self.g) {
            *ck = super::row_times(k, row, &self.x) - *ck;
        }
        if !c.is_empty() {
            self.s.solve(c, &mut self.tmp);
        }
        // da = A^-1 f - sum_k (A^-1 G_kb^T) dl_k
        for (b, range) in self.body_ranges.iter().enumerate() {
            let mut da = self.x[b];
            for (e, u) in self.entries[range.clone()].iter().zip(&self.u[range.clone()]) {
                let l = c[e.row];
                for i in 0..6 {
                    da[i] -= u[i] * l;
                }
            }
            f[6 * b..6 * b + 6].copy_from_slice(&da);
        }
        rhs.iter().all(|v| v.is_finite())
    }
}
