//! The Schur complement S = G W G^T of `schur.rs` (seed 003 Eq. 12) for mechanisms whose
//! joints all have three rows (spherical joints) and share bodies only along paths: a chain
//! of bodies in spherical joints, or several such chains. Ordered along the paths, S is block
//! tridiagonal in 3 x 3 blocks (rows of two joints couple only through a shared body), so it
//! is assembled block by block from each body's W G^T columns and factored by
//! [`BlockTridiagonal`], without slot lists or index indirection. Same matrix and
//! solution as the general path up to round-off (unit test `schur.rs`).

use super::geometry::Row;
use super::schur::{Gen, Weights};
use super::Mechanism;
use crate::linalg::{BlockTridiagonal, FactorError};

/// The joints a body is in: at most two, in block order.
#[derive(Clone, Copy, Debug, Default)]
struct Links {
    count: usize,
    /// Block (position along the paths) of each joint.
    block: [usize; 2],
    /// First constraint row of each joint.
    row: [usize; 2],
    /// The body's slot in each joint's rows.
    slot: [usize; 2],
}

#[derive(Debug)]
pub(super) struct ChainSchur {
    links: Vec<Links>,
    /// First constraint row of each block.
    block_row: Vec<usize>,
    /// Block i holds rows 3i..3i+3 (no reordering of right-hand sides).
    natural: bool,
    /// W G^T per body and link: one column per row of the joint.
    wgt: Vec<[[Gen; 3]; 2]>,
    factor: BlockTridiagonal,
    work: Vec<f64>,
}

#[inline]
fn dot6(a: &Gen, b: &Gen) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5]
}

impl ChainSchur {
    /// The chain structure of `m`'s constraints, if they have it.
    pub fn detect(m: &Mechanism) -> Option<ChainSchur> {
        let groups = &m.groups;
        let (nb, ng) = (m.n_bodies(), groups.len());
        let rows_ok = groups
            .iter()
            .all(|g| g.rows.len() == 3 && g.rows.clone().all(|k| m.constraints[k].pair == g.geometry.pair));
        if ng == 0 || !rows_ok || 3 * ng != m.n_constraints() {
            return None;
        }
        // The joints each body is in, and the joints sharing a body.
        let mut touching: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for (j, g) in groups.iter().enumerate() {
            if g.geometry.pair[0].is_some() && g.geometry.pair[0] == g.geometry.pair[1] {
                return None;
            }
            for b in g.geometry.pair.iter().flatten() {
                touching[*b].push(j);
            }
        }
        let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); ng];
        for t in &touching {
            match t[..] {
                [] | [_] => {}
                [a, c] => {
                    if !neighbours[a].contains(&c) {
                        neighbours[a].push(c);
                        neighbours[c].push(a);
                    }
                }
                _ => return None,
            }
        }
        if neighbours.iter().any(|n| n.len() > 2) {
            return None;
        }
        // Walk each path from an end; a joint left over lies on a cycle.
        let mut order = Vec::with_capacity(ng);
        let mut block = vec![usize::MAX; ng];
        for start in 0..ng {
            if block[start] != usize::MAX || neighbours[start].len() > 1 {
                continue;
            }
            let mut current = Some(start);
            while let Some(j) = current {
                block[j] = order.len();
                order.push(j);
                current = neighbours[j].iter().copied().find(|&n| block[n] == usize::MAX);
            }
        }
        if order.len() != ng {
            return None;
        }
        let links = touching
            .iter()
            .enumerate()
            .map(|(b, t)| {
                let mut l = Links::default();
                let mut joints = t.clone();
                joints.sort_by_key(|&j| block[j]);
                for (i, &j) in joints.iter().enumerate() {
                    let g = &groups[j];
                    l.block[i] = block[j];
                    l.row[i] = g.rows.start;
                    l.slot[i] = if g.geometry.pair[0] == Some(b) { 0 } else { 1 };
                }
                l.count = joints.len();
                l
            })
            .collect();
        let block_row: Vec<usize> = order.iter().map(|&j| groups[j].rows.start).collect();
        Some(ChainSchur {
            natural: block_row.iter().enumerate().all(|(i, &r)| r == 3 * i),
            links,
            block_row,
            wgt: vec![[[[0.0; 6]; 3]; 2]; nb],
            factor: BlockTridiagonal::new(ng),
            work: vec![0.0; 3 * ng],
        })
    }

    /// Assembles S = G W G^T block by block and factors it.
    pub fn factor(&mut self, rows: &[Row], w: &Weights) -> Result<(), FactorError> {
        self.factor.clear();
        for (b, (l, wgt)) in self.links.iter().zip(self.wgt.iter_mut()).enumerate() {
            let g = |i: usize, r: usize| &rows[l.row[i] + r][l.slot[i]];
            for i in 0..l.count {
                for (r, column) in wgt[i].iter_mut().enumerate() {
                    w.apply(b, g(i, r), column);
                }
            }
            for i in 0..l.count {
                let d = &mut self.factor.diag[l.block[i]];
                for r in 0..3 {
                    let gr = g(i, r);
                    for c in 0..=r {
                        d[3 * r + c] += dot6(gr, &wgt[i][c]);
                    }
                }
            }
            if l.count == 2 {
                // Adjacent blocks: S(block[1], block[0]) is the sub-diagonal block of block[1].
                let s = &mut self.factor.sub[l.block[1]];
                for r in 0..3 {
                    let gr = g(1, r);
                    for c in 0..3 {
                        s[3 * r + c] += dot6(gr, &wgt[0][c]);
                    }
                }
            }
        }
        self.factor
            .factor()
            .map_err(|e| FactorError::NotPositiveDefinite { row: Some(self.block_row[e.0 / 3] + e.0 % 3) })
    }

    /// Solves S x = rhs in place; false if the result is not finite.
    pub fn solve(&mut self, rhs: &mut [f64]) -> bool {
        if self.natural {
            self.factor.solve(rhs);
        } else {
            for (x, &r) in self.work.chunks_exact_mut(3).zip(&self.block_row) {
                x.copy_from_slice(&rhs[r..r + 3]);
            }
            self.factor.solve(&mut self.work);
            for (x, &r) in self.work.chunks_exact(3).zip(&self.block_row) {
                rhs[r..r + 3].copy_from_slice(x);
            }
        }
        rhs.iter().all(|v| v.is_finite())
    }

    /// out_b = W_b sum_k G_kb^T x_k.
    pub fn w_gt(&self, x: &[f64], out: &mut [Gen]) {
        for ((l, wgt), o) in self.links.iter().zip(&self.wgt).zip(out.iter_mut()) {
            let mut acc = [0.0; 6];
            for i in 0..l.count {
                let xs = &x[l.row[i]..l.row[i] + 3];
                for (column, xk) in wgt[i].iter().zip(xs) {
                    for (a, u) in acc.iter_mut().zip(column) {
                        *a += u * xk;
                    }
                }
            }
            *o = acc;
        }
    }

    /// y_k = sum_b G_kb . x_b for every row.
    pub fn g_times(&self, rows: &[Row], x: &[Gen], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for (l, xb) in self.links.iter().zip(x) {
            for i in 0..l.count {
                for r in 0..3 {
                    y[l.row[i] + r] += dot6(&rows[l.row[i] + r][l.slot[i]], xb);
                }
            }
        }
    }
}
