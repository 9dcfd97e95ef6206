//! Saddle-point systems [W^-1 G^T; G 0] with W^-1 = blockdiag(m_i I, J_bar_i) constant and
//! G = [Phi_r, Pi_bar] (seed 003 Eq. 12), solved through the Schur complement
//! S = G W G^T (n_c x n_c, symmetric positive definite when the constraints are independent).
//! S is sparse: rows k and l couple only if they share a body, so chains give banded S and
//! the cost per step grows linearly with the number of bodies.

use super::geometry::Row;
use super::Mechanism;
use crate::linalg::{FactorError, LinearSystem};
use nalgebra::{Matrix3, Vector3};

/// Per-body generalized vector [dr (global), dpi_bar (body frame)].
pub type Gen = [f64; 6];

/// One nonzero block of G: row `row`, body `body`, coefficients [d/dr, d/dpi_bar].
#[derive(Clone, Copy, Debug)]
struct Entry {
    row: usize,
    body: usize,
    slot: usize,
}

pub struct Schur {
    /// Nonzero blocks of G grouped by body (all entries of a body are contiguous).
    entries: Vec<Entry>,
    body_ranges: Vec<std::ops::Range<usize>>,
    /// W_b = (1/m_b I, J_bar_b^-1).
    inv_mass: Vec<f64>,
    inv_inertia: Vec<Matrix3<f64>>,
    /// W G^T per entry.
    wgt: Vec<Gen>,
    system: LinearSystem,
}

impl std::fmt::Debug for Schur {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schur").field("system", &self.system).finish()
    }
}

impl Schur {
    pub fn new(m: &Mechanism) -> Self {
        let nb = m.n_bodies();
        let mut per_body: Vec<Vec<Entry>> = vec![Vec::new(); nb];
        for (k, c) in m.constraints.iter().enumerate() {
            for slot in 0..2 {
                if let Some(b) = c.pair[slot] {
                    per_body[b].push(Entry { row: k, body: b, slot });
                }
            }
        }
        let mut entries = Vec::new();
        let mut body_ranges = Vec::new();
        let mut pattern: Vec<(usize, usize)> = (0..m.n_constraints()).map(|k| (k, k)).collect();
        for list in per_body {
            let start = entries.len();
            // S is symmetric: only the lower triangle (row >= col) is assembled.
            for a in &list {
                for b in &list {
                    if a.row >= b.row {
                        pattern.push((a.row, b.row));
                    }
                }
            }
            entries.extend(list);
            body_ranges.push(start..entries.len());
        }
        Schur {
            wgt: vec![[0.0; 6]; entries.len()],
            entries,
            body_ranges,
            inv_mass: m.bodies.iter().map(|b| 1.0 / b.mass).collect(),
            inv_inertia: m.bodies.iter().map(|b| b.inertia_inv).collect(),
            system: LinearSystem::new(m.n_constraints(), &pattern, true),
        }
    }

    /// Assembles S = G W G^T from the Jacobian rows and factors it. On failure, the error
    /// carries the row where positive definiteness broke (when known).
    pub fn factor(&mut self, rows: &[Row]) -> Result<(), FactorError> {
        let n = self.system.dim();
        self.system.clear();
        let mut s = self.system.assembler();
        // Diagonal slots come first in the pattern (rows touching only ground stay 0 -> singular).
        let mut slot = n;
        for (b, range) in self.body_ranges.iter().enumerate() {
            let im = self.inv_mass[b];
            for e in range.clone() {
                let g = &rows[self.entries[e].row][self.entries[e].slot];
                let p = self.inv_inertia[b] * Vector3::new(g[3], g[4], g[5]);
                self.wgt[e] = [g[0] * im, g[1] * im, g[2] * im, p.x, p.y, p.z];
            }
            // Pairs (e, f) with row(f) <= row(e): a body's entries are in ascending rows.
            for e in range.clone() {
                let g = &rows[self.entries[e].row][self.entries[e].slot];
                for f in range.start..e + 1 {
                    let u = &self.wgt[f];
                    let v = g[0] * u[0] + g[1] * u[1] + g[2] * u[2] + g[3] * u[3] + g[4] * u[4] + g[5] * u[5];
                    s.add(slot, v);
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

    /// out_b = W_b sum_k G_kb^T x_k, with the W G^T blocks of the last [`Schur::factor`].
    pub fn w_gt(&self, x: &[f64], out: &mut [Gen]) {
        for (b, range) in self.body_ranges.iter().enumerate() {
            let mut acc = [0.0; 6];
            for (e, u) in self.entries[range.clone()].iter().zip(&self.wgt[range.clone()]) {
                let xk = x[e.row];
                for i in 0..6 {
                    acc[i] += u[i] * xk;
                }
            }
            out[b] = acc;
        }
    }

    /// out = W_b v.
    pub fn apply_w(&self, b: usize, v: &Gen, out: &mut Gen) {
        let p = self.inv_inertia[b] * Vector3::new(v[3], v[4], v[5]);
        let im = self.inv_mass[b];
        *out = [v[0] * im, v[1] * im, v[2] * im, p.x, p.y, p.z];
    }

    /// y_k = sum_b G_kb . x_b for every row.
    pub fn g_times(&self, rows: &[Row], x: &[Gen], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for e in &self.entries {
            let g = &rows[e.row][e.slot];
            let xb = &x[e.body];
            y[e.row] += g[0] * xb[0] + g[1] * xb[1] + g[2] * xb[2] + g[3] * xb[3] + g[4] * xb[4] + g[5] * xb[5];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Schur solve gives the same (dx, dl) as a dense solve of the saddle-point system.
    #[test]
    fn schur_complement_solves_the_saddle_point_system() {
        let d = mbfmu_model::catalog::chain::n_link_chain(5, 3);
        let m = Mechanism::from_description(&d).unwrap();
        let mut state = m.initial.clone();
        m.assemble(&mut state).unwrap();
        let mut ce = super::super::ConstraintEval::default();
        m.constraint_jacobian(0.0, &state, &state.bodies, &mut ce);
        let mut schur = Schur::new(&m);
        schur.factor(&ce.rows).unwrap();
        let (nb, nc) = (m.n_bodies(), m.n_constraints());
        // rhs: e (per body) and phi (per row) arbitrary.
        let e: Vec<Gen> = (0..nb).map(|b| std::array::from_fn(|i| ((b * 6 + i) as f64 * 0.7).sin())).collect();
        let phi: Vec<f64> = (0..nc).map(|k| (k as f64 * 1.3).cos()).collect();
        // Schur: S dl = phi - G W e ; dx = -W (e + G^T dl)
        let mut we = vec![[0.0; 6]; nb];
        for b in 0..nb {
            schur.apply_w(b, &e[b], &mut we[b]);
        }
        let mut gwe = vec![0.0; nc];
        schur.g_times(&ce.rows, &we, &mut gwe);
        let mut dl: Vec<f64> = phi.iter().zip(&gwe).map(|(p, g)| p - g).collect();
        assert!(schur.solve(&mut dl));
        let mut wgtdl = vec![[0.0; 6]; nb];
        schur.w_gt(&dl, &mut wgtdl);
        // Check: W^-1 dx + G^T dl = -e and G dx = -phi.
        let dx: Vec<Gen> = (0..nb).map(|b| std::array::from_fn(|i| -(we[b][i] + wgtdl[b][i]))).collect();
        let mut gdx = vec![0.0; nc];
        schur.g_times(&ce.rows, &dx, &mut gdx);
        for k in 0..nc {
            assert!((gdx[k] + phi[k]).abs() < 1e-9, "row {k}");
        }
        let mut gtdl = vec![[0.0; 6]; nb];
        super::super::add_rows_transpose(&m.constraints, &ce.rows, &dl, &mut gtdl);
        for b in 0..nb {
            let p = &m.bodies[b];
            let rot = p.inertia * Vector3::new(dx[b][3], dx[b][4], dx[b][5]);
            for i in 0..3 {
                assert!((p.mass * dx[b][i] + gtdl[b][i] + e[b][i]).abs() < 1e-9);
                assert!((rot[i] + gtdl[b][3 + i] + e[b][3 + i]).abs() < 1e-9);
            }
        }
    }
}
