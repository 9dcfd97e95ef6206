//! The Schur complement S = G W G^T of `schur.rs` ([Fang2023, eq. 12]) for mechanisms whose
//! joints are all spherical and share bodies only along paths: a chain of bodies in
//! spherical joints, or several such chains. Ordered along the paths, S is block tridiagonal
//! in 3 x 3 blocks (rows of two joints couple only through a shared body), assembled block by
//! block and factored by [`BlockTridiagonal`], without slot lists or index indirection.
//!
//! A spherical joint's rows are e_r . (P2 - P1), r = x, y, z (`geometry::AxisRow`): on body b
//! in slot s the row is [sigma e_r, c_r] with sigma = +1 in slot 1 and -1 in slot 0. So with
//! W_b = (1/m_b I, J_b^-1),
//!   G_ib W_b G_jb^T = sigma_i sigma_j / m_b I + C_ib J_b^-1 C_jb^T,
//! and W G^T x and G x have the same split: the kernels below skip the products by the exact
//! zeros of e_r and keep the order of the remaining operations of the general path's six-term
//! sums (same values up to the sign of zero results; unit test in `schur.rs`). The c_r are
//! formed here from the bodies' rotations (`geometry::axis_row_rotation`, as the constraint
//! rows form them), so no full rows are written.

use super::geometry::{axis_row_rotation, Vector};
use super::schur::{Gen, Weights};
use super::{BodyState, Mechanism};
use crate::linalg::{BlockTridiagonal, FactorError};
use nalgebra::Vector3;

/// The joints a body is in: at most two, in block order.
#[derive(Clone, Copy, Debug, Default)]
struct Links {
    count: usize,
    /// First constraint row of each joint.
    row: [usize; 2],
    /// The body's slot in each joint's rows.
    slot: [usize; 2],
    /// The joint point in the body's frame.
    local: [Vector3<f64>; 2],
}

impl Links {
    /// sigma of link `i`.
    fn sign(&self, i: usize) -> f64 {
        if self.slot[i] == 1 {
            1.0
        } else {
            -1.0
        }
    }
}

/// A body's contribution to a block of S: the body and its link indices (the block's joint;
/// for a sub-diagonal block, the upper joint and the lower one).
#[derive(Clone, Copy, Debug, Default)]
struct Share {
    body: usize,
    link: usize,
    other: usize,
}

/// The bodies of a block's joint (diagonal) and the bodies it shares with the previous block
/// (sub-diagonal).
#[derive(Clone, Copy, Debug, Default)]
struct BlockBodies {
    diag: [Share; 2],
    n_diag: usize,
    sub: [Share; 2],
    n_sub: usize,
}

#[derive(Debug)]
pub(super) struct ChainSchur {
    links: Vec<Links>,
    blocks: Vec<BlockBodies>,
    /// First constraint row of each block.
    block_row: Vec<usize>,
    /// Block i holds rows 3i..3i+3 (no reordering of right-hand sides).
    natural: bool,
    /// c_r and J_b^-1 c_r per body, link and row.
    c: Vec<[[[f64; 3]; 3]; 2]>,
    jc: Vec<[[[f64; 3]; 3]; 2]>,
    factor: BlockTridiagonal,
    work: Vec<f64>,
}

/// ((a + p0 q0) + p1 q1) + p2 q2: the general path's six-term dot product after its exact
/// zero terms.
#[inline(always)]
fn dot3_after(a: f64, p: &[f64; 3], q: &[f64; 3]) -> f64 {
    a + p[0] * q[0] + p[1] * q[1] + p[2] * q[2]
}

impl ChainSchur {
    /// The chain structure of `m`'s constraints, if they have it.
    pub fn detect(m: &Mechanism) -> Option<ChainSchur> {
        let groups = &m.groups;
        let (nb, ng) = (m.n_bodies(), groups.len());
        let spherical = |g: &super::ConstraintGroup| {
            g.point.is_some_and(|p| p.axes() == Some([0, 1, 2]))
                && g.rows.clone().all(|k| m.constraints[k].pair == g.geometry.pair)
                && !(g.geometry.pair[0].is_some() && g.geometry.pair[0] == g.geometry.pair[1])
        };
        if ng == 0 || !groups.iter().all(spherical) || 3 * ng != m.n_constraints() {
            return None;
        }
        // The joints each body is in, and the joints sharing a body.
        let mut touching: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for (j, g) in groups.iter().enumerate() {
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
        let mut links = vec![Links::default(); nb];
        let mut blocks = vec![BlockBodies::default(); ng];
        for (b, t) in touching.iter().enumerate() {
            let mut joints = t.clone();
            joints.sort_by_key(|&j| block[j]);
            let l = &mut links[b];
            for (i, &j) in joints.iter().enumerate() {
                let g = &groups[j];
                l.row[i] = g.rows.start;
                l.slot[i] = if g.geometry.pair[0] == Some(b) { 0 } else { 1 };
                let between = g.point.expect("spherical").between();
                let Vector::Between { local1, local2 } = &g.geometry.vectors[between] else {
                    unreachable!("a point coincidence's d is a Between vector")
                };
                l.local[i] = if l.slot[i] == 0 { *local1 } else { *local2 };
                let bb = &mut blocks[block[j]];
                bb.diag[bb.n_diag] = Share { body: b, link: i, other: i };
                bb.n_diag += 1;
            }
            l.count = joints.len();
            if l.count == 2 {
                // Adjacent along the path: S(upper, lower) is the upper block's sub-diagonal.
                let bb = &mut blocks[block[joints[1]]];
                bb.sub[bb.n_sub] = Share { body: b, link: 1, other: 0 };
                bb.n_sub += 1;
            }
        }
        let block_row: Vec<usize> = order.iter().map(|&j| groups[j].rows.start).collect();
        Some(ChainSchur {
            natural: block_row.iter().enumerate().all(|(i, &r)| r == 3 * i),
            links,
            blocks,
            block_row,
            c: vec![[[[0.0; 3]; 3]; 2]; nb],
            jc: vec![[[[0.0; 3]; 3]; 2]; nb],
            factor: BlockTridiagonal::new(ng),
            work: vec![0.0; 3 * ng],
        })
    }

    /// Assembles S = G W G^T at the configuration `bodies` block by block and factors it.
    pub fn factor(&mut self, bodies: &[BodyState], w: &Weights) -> Result<(), FactorError> {
        for (b, (l, (c, jc))) in self.links.iter().zip(self.c.iter_mut().zip(self.jc.iter_mut())).enumerate() {
            let rot = &bodies[b].rot;
            for i in 0..l.count {
                for r in 0..3 {
                    c[i][r] = axis_row_rotation(&l.local[i], rot, r, l.sign(i));
                    jc[i][r] = w.rotate(b, &c[i][r]);
                }
            }
        }
        let (c, jc) = (&self.c, &self.jc);
        for (bb, (d, s)) in self.blocks.iter().zip(self.factor.diag.iter_mut().zip(self.factor.sub.iter_mut())) {
            // Lower triangle of the diagonal block: sum over the joint's bodies, in body order.
            let mut acc = [0.0; 9];
            for sh in &bb.diag[..bb.n_diag] {
                let (c, u, im) = (&c[sh.body][sh.link], &jc[sh.body][sh.link], w.inv_mass(sh.body));
                for r in 0..3 {
                    for k in 0..r {
                        acc[3 * r + k] += dot3_after(0.0, &c[r], &u[k]);
                    }
                    acc[4 * r] += dot3_after(im, &c[r], &u[r]);
                }
            }
            *d = acc;
            let mut acc = [0.0; 9];
            for sh in &bb.sub[..bb.n_sub] {
                let l = &self.links[sh.body];
                let (c, u) = (&c[sh.body][sh.link], &jc[sh.body][sh.other]);
                let cross = l.sign(sh.link) * (l.sign(sh.other) * w.inv_mass(sh.body));
                for r in 0..3 {
                    for k in 0..3 {
                        acc[3 * r + k] += dot3_after(if r == k { cross } else { 0.0 }, &c[r], &u[k]);
                    }
                }
            }
            *s = acc;
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
    pub fn w_gt(&self, x: &[f64], w: &Weights, out: &mut [Gen]) {
        for (b, ((l, jc), o)) in self.links.iter().zip(&self.jc).zip(out.iter_mut()).enumerate() {
            let mut acc = [0.0; 6];
            let im = w.inv_mass(b);
            for (i, jci) in jc.iter().enumerate().take(l.count) {
                let xs = &x[l.row[i]..l.row[i] + 3];
                let sim = l.sign(i) * im;
                for r in 0..3 {
                    acc[r] += sim * xs[r];
                }
                for (u, xk) in jci.iter().zip(xs) {
                    for (a, v) in acc[3..].iter_mut().zip(u) {
                        *a += v * xk;
                    }
                }
            }
            *o = acc;
        }
    }

    /// y_k = sum_b G_kb . x_b for every row, with the rows of the last [`ChainSchur::factor`].
    pub fn g_times(&self, x: &[Gen], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for ((l, c), xb) in self.links.iter().zip(&self.c).zip(x) {
            for (i, c) in c.iter().enumerate().take(l.count) {
                let sign = l.sign(i);
                for (r, cr) in c.iter().enumerate() {
                    y[l.row[i] + r] += sign * xb[r] + cr[0] * xb[3] + cr[1] * xb[4] + cr[2] * xb[5];
                }
            }
        }
    }
}
