//! Saddle-point systems [W^-1 G^T; G 0] with W^-1 = blockdiag(m_i I, J_bar_i) constant and
//! G = [Phi_r, Pi_bar] (seed 003 Eq. 12), solved through the Schur complement
//! S = G W G^T (n_c x n_c, symmetric positive definite when the constraints are independent).
//! S is sparse: rows k and l couple only if they share a body, so chains give banded S and
//! the cost per step grows linearly with the number of bodies.

use super::geometry::Row;
use super::Mechanism;
use crate::engine::linalg::{FactorError, LinearSystem};

/// Per-body generalized vector [dr (global), dpi_bar (body frame)].
pub type Gen = [f64; 6];

pub struct Schur {
    /// Rows touching each body, with the slot the body occupies in the row's pair.
    touching: Vec<Vec<(usize, usize)>>,
    /// W_b as 6x6 (row-major) per body.
    w: Vec<[[f64; 6]; 6]>,
    system: LinearSystem,
    /// W_b G_kb^T per touching entry, in `touching` order.
    wgt: Vec<Vec<Gen>>,
    /// Scratch for G^T x.
    gt: Vec<Gen>,
}

impl std::fmt::Debug for Schur {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schur").field("system", &self.system).finish()
    }
}

impl Schur {
    pub fn new(m: &Mechanism) -> Self {
        let nb = m.n_bodies();
        let mut touching = vec![Vec::new(); nb];
        for (k, c) in m.constraints.iter().enumerate() {
            for slot in 0..2 {
                if let Some(b) = c.pair[slot] {
                    touching[b].push((k, slot));
                }
            }
        }
        let mut pattern = Vec::new();
        for k in 0..m.n_constraints() {
            pattern.push((k, k));
        }
        for rows in &touching {
            for &(k, _) in rows {
                for &(l, _) in rows {
                    pattern.push((k, l));
                }
            }
        }
        let w = m
            .bodies
            .iter()
            .map(|b| {
                let mut w = [[0.0; 6]; 6];
                for i in 0..3 {
                    w[i][i] = 1.0 / b.mass;
                    for j in 0..3 {
                        w[3 + i][3 + j] = b.inertia_inv[(i, j)];
                    }
                }
                w
            })
            .collect();
        let wgt = touching.iter().map(|t| vec![[0.0; 6]; t.len()]).collect();
        Schur { system: LinearSystem::new(m.n_constraints(), &pattern, true), touching, w, wgt, gt: vec![[0.0; 6]; nb] }
    }

    /// Assembles S = G W G^T from the Jacobian rows and factors it. On failure, the error
    /// carries the row where positive definiteness broke (when known).
    pub fn factor(&mut self, rows: &[Row]) -> Result<(), FactorError> {
        let n = self.system.dim();
        self.system.clear();
        for k in 0..n {
            // Diagonal slots exist for every row (rows touching only ground stay 0 -> singular).
            self.system.add(k, 0.0);
        }
        let mut slot = n;
        for (b, rows_b) in self.touching.iter().enumerate() {
            let w = &self.w[b];
            for (e, &(k, s)) in rows_b.iter().enumerate() {
                let g = &rows[k][s];
                let out = &mut self.wgt[b][e];
                for i in 0..6 {
                    out[i] = (0..6).map(|j| w[i][j] * g[j]).sum();
                }
            }
            for &(k, s) in rows_b {
                let g = &rows[k][s];
                for e in 0..rows_b.len() {
                    let u = &self.wgt[b][e];
                    let v: f64 = (0..6).map(|i| g[i] * u[i]).sum();
                    self.system.add(slot, v);
                    slot += 1;
                }
            }
        }
        self.system.factor()
    }

    /// Solves S x = rhs in place; false if the result is not finite.
    pub fn solve(&mut self, rhs: &mut [f64]) -> bool {
        self.system.solve(rhs)
    }

    /// out_b = W_b sum_k G_kb^T x_k.
    pub fn w_gt(&mut self, m: &Mechanism, rows: &[Row], x: &[f64], out: &mut [Gen]) {
        let mut gt = std::mem::take(&mut self.gt);
        gt.iter_mut().for_each(|g| *g = [0.0; 6]);
        super::add_rows_transpose(&m.constraints, rows, x, &mut gt);
        for (b, o) in out.iter_mut().enumerate() {
            self.apply_w(b, &gt[b], o);
        }
        self.gt = gt;
    }

    /// out = W_b v.
    pub fn apply_w(&self, b: usize, v: &Gen, out: &mut Gen) {
        for i in 0..6 {
            out[i] = (0..6).map(|j| self.w[b][i][j] * v[j]).sum();
        }
    }
}
