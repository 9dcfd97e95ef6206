//! Saddle-point systems [W^-1 G^T; G 0] with W^-1 = blockdiag(m_i I, J_bar_i) constant and
//! G = [Phi_r, Pi_bar] ([Fang2023, eq. 12]), solved through the Schur complement
//! S = G W G^T (n_c x n_c, symmetric positive definite when the constraints are independent).
//! S is sparse: rows k and l couple only if they share a body, so chains give banded S and
//! the cost per step grows linearly with the number of bodies.

use super::geometry::Row;
use super::schur_chain::ChainSchur;
use super::{BodyState, Mechanism};
use crate::linalg::{FactorError, LinearSystem};
use nalgebra::{Matrix3, Matrix6, Vector3, Vector6};

/// Per-body generalized vector [dr (global), dpi_bar (body frame)].
pub type Gen = [f64; 6];

/// One nonzero block of G: row `row`, body `body`, coefficients [d/dr, d/dpi_bar].
#[derive(Clone, Copy, Debug)]
struct Entry {
    row: usize,
    body: usize,
    slot: usize,
}

/// W_b = (1/m_b I, J_bar_b^-1) of every body, or the inverse of its coupled 6 x 6 mass.
#[derive(Debug)]
pub(super) struct Weights {
    inv_mass: Vec<f64>,
    inv_inertia: Vec<Matrix3<f64>>,
    /// Per body (empty unless [`Schur::with_offset_masses`]): the inverse of the generalized
    /// mass of a body with a static moment ([`Mechanism::offset_mass`]).
    coupled: Vec<Option<Coupled>>,
}

/// W_b of a body whose reference point is not its centre of mass. Its mass
/// [m I, -A s~; s~ A^T, J_bar] is T M_bar T^T with T = diag(A, I) and M_bar constant
/// ([`Mechanism::offset_mass`]), so W_b = T M_bar^-1 T^T: M_bar inverted once, turned by
/// the body's rotation at each [`Schur::factor`].
#[derive(Clone, Debug)]
struct Coupled {
    body_frame: Matrix6<f64>,
    global: Matrix6<f64>,
}

impl Coupled {
    /// out = W_b v.
    #[inline]
    fn apply(&self, v: &Gen, out: &mut Gen) {
        let y = self.global * Vector6::from_column_slice(v);
        out.copy_from_slice(y.as_slice());
    }

    /// global = T M_bar^-1 T^T at rotation `a`, with M_bar^-1 = [P Q; Q^T R]:
    /// [A P A^T, A Q; Q^T A^T, R].
    fn turn(&mut self, a: &Matrix3<f64>) {
        let w = &self.body_frame;
        let p = a * w.fixed_view::<3, 3>(0, 0) * a.transpose();
        let q = a * w.fixed_view::<3, 3>(0, 3);
        self.global.fixed_view_mut::<3, 3>(0, 0).copy_from(&p);
        self.global.fixed_view_mut::<3, 3>(0, 3).copy_from(&q);
        self.global.fixed_view_mut::<3, 3>(3, 0).copy_from(&q.transpose());
        self.global.fixed_view_mut::<3, 3>(3, 3).copy_from(&w.fixed_view::<3, 3>(3, 3));
    }
}

impl Weights {
    /// J_b^-1 v.
    #[inline]
    pub fn rotate(&self, b: usize, v: &[f64]) -> [f64; 3] {
        let p = self.inv_inertia[b] * Vector3::new(v[0], v[1], v[2]);
        [p.x, p.y, p.z]
    }

    /// 1 / m_b.
    #[inline]
    pub fn inv_mass(&self, b: usize) -> f64 {
        self.inv_mass[b]
    }

    /// The coupled block of body `b`, if it has one.
    #[inline]
    fn coupled(&self, b: usize) -> Option<&Coupled> {
        if self.coupled.is_empty() {
            None
        } else {
            self.coupled[b].as_ref()
        }
    }

    /// out = W_b v of a body without a coupled block.
    #[inline]
    pub fn apply(&self, b: usize, v: &Gen, out: &mut Gen) {
        let p = self.inv_inertia[b] * Vector3::new(v[3], v[4], v[5]);
        let im = self.inv_mass[b];
        *out = [v[0] * im, v[1] * im, v[2] * im, p.x, p.y, p.z];
    }
}

/// The general sparse path: G's nonzero blocks listed per body, S assembled by slot into a
/// [`LinearSystem`].
struct General {
    /// Nonzero blocks of G grouped by body (all entries of a body are contiguous).
    entries: Vec<Entry>,
    body_ranges: Vec<std::ops::Range<usize>>,
    /// W G^T per entry.
    wgt: Vec<Gen>,
    system: LinearSystem,
}

enum Kind {
    General(General),
    /// Joints of three rows sharing bodies along paths (`schur_chain.rs`).
    Chain(ChainSchur),
}

pub struct Schur {
    weights: Weights,
    kind: Kind,
}

impl std::fmt::Debug for Schur {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::General(g) => f.debug_struct("Schur").field("system", &g.system).finish(),
            Kind::Chain(c) => f.debug_struct("Schur").field("chain", c).finish(),
        }
    }
}

impl Schur {
    /// The Schur complement of `m`'s constraints: block tridiagonal for chains of spherical
    /// joints, general sparse otherwise.
    pub fn new(m: &Mechanism) -> Self {
        let mut s = Self::general(m);
        if let Some(c) = ChainSchur::detect(m) {
            s.kind = Kind::Chain(c);
        }
        s
    }

    /// The general sparse path, whatever the structure.
    pub fn general(m: &Mechanism) -> Self {
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
            weights: Weights {
                inv_mass: m.bodies.iter().map(|b| 1.0 / b.mass).collect(),
                inv_inertia: m.bodies.iter().map(|b| b.inertia_inv).collect(),
                coupled: Vec::new(),
            },
            kind: Kind::General(General {
                wgt: vec![[0.0; 6]; entries.len()],
                entries,
                body_ranges,
                system: LinearSystem::new(m.n_constraints(), &pattern, true),
            }),
        }
    }

    /// The complement of the half-implicit step ([Fang2023, eq. 12]) with W_b the inverse of
    /// each body's whole generalized mass: for a body with a static moment (attached off a
    /// beam node) the coupled 6 x 6 block of [`Mechanism::offset_mass`], on the general path
    /// (the chain path's kernels assume diagonal blocks); [`Schur::new`] if no body has one.
    pub fn with_offset_masses(m: &Mechanism) -> Self {
        if !m.has_offset_masses() {
            return Self::new(m);
        }
        let mut s = Self::general(m);
        s.weights.coupled = (0..m.n_bodies())
            .map(|b| {
                // Positive definite: the spatial inertia of a body of positive mass and
                // inertia about its centre of mass (its Schur complement J_bar + s~ s~ / m).
                let inverse = m.offset_mass(b)?.cholesky()?.inverse();
                Some(Coupled { body_frame: inverse, global: inverse })
            })
            .collect();
        s
    }

    /// True if S is factored as a block-tridiagonal matrix.
    #[cfg(test)]
    pub fn is_chain(&self) -> bool {
        matches!(self.kind, Kind::Chain(_))
    }

    /// False if [`Schur::factor`] forms G from the bodies alone (the chain path), so that
    /// the caller need not evaluate the Jacobian rows.
    pub fn needs_rows(&self) -> bool {
        matches!(self.kind, Kind::General(_))
    }

    /// Assembles S = G W G^T and factors it: the general path from the Jacobian `rows`, the
    /// chain path from the configuration `bodies` (the rows' own). On failure, the error
    /// carries the row where positive definiteness broke (when known).
    pub fn factor(&mut self, rows: &[Row], bodies: &[BodyState]) -> Result<(), FactorError> {
        if !self.weights.coupled.is_empty() {
            self.turn(bodies);
        }
        let g = match &mut self.kind {
            Kind::General(g) => g,
            Kind::Chain(c) => return c.factor(bodies, &self.weights),
        };
        let n = g.system.dim();
        g.system.clear();
        for (b, range) in g.body_ranges.iter().enumerate() {
            let coupled = self.weights.coupled(b);
            for e in range.clone() {
                let row = &rows[g.entries[e].row][g.entries[e].slot];
                match coupled {
                    Some(c) => c.apply(row, &mut g.wgt[e]),
                    None => self.weights.apply(b, row, &mut g.wgt[e]),
                }
            }
        }
        // Pairs (e, f) of a body's entries with row(f) <= row(e) (a body's entries are in
        // ascending rows), S(row(e), row(f)) += G_e . (W G^T)_f, body by body.
        let pair = |row: &[f64; 6], u: &[f64; 6]| {
            row[0] * u[0] + row[1] * u[1] + row[2] * u[2] + row[3] * u[3] + row[4] * u[4] + row[5] * u[5]
        };
        if let Some(a) = g.system.dense_lower_mut() {
            // The dense Cholesky's storage, at the positions the slots below name.
            for range in &g.body_ranges {
                let (entries, wgt) = (&g.entries[range.clone()], &g.wgt[range.clone()]);
                for (i, e) in entries.iter().enumerate() {
                    let row = &rows[e.row][e.slot];
                    let dst = &mut a[e.row * n..e.row * n + e.row + 1];
                    let pairs = entries[..=i].iter().zip(&wgt[..=i]);
                    if row[0] == 0.0 && row[1] == 0.0 && row[2] == 0.0 {
                        // A row without translation (a perpendicularity, an angle): its first
                        // three products are zeros of either sign, which leave the sum as the
                        // last three make it but for the sign of a zero sum, and S, assembled
                        // by additions to +0, takes a zero of either sign as +0.
                        for (f, u) in pairs {
                            dst[f.row] += row[3] * u[3] + row[4] * u[4] + row[5] * u[5];
                        }
                    } else {
                        for (f, u) in pairs {
                            dst[f.row] += pair(row, u);
                        }
                    }
                }
            }
            return g.system.factor();
        }
        let mut s = g.system.assembler();
        // Diagonal slots come first in the pattern (rows touching only ground stay 0 -> singular).
        let mut slot = n;
        for range in &g.body_ranges {
            for e in range.clone() {
                let row = &rows[g.entries[e].row][g.entries[e].slot];
                for u in &g.wgt[range.start..e + 1] {
                    s.add(slot, pair(row, u));
                    slot += 1;
                }
            }
        }
        g.system.factor()
    }

    /// Turns the coupled blocks W_b to the rotations of `bodies` (nothing without them).
    /// [`Schur::factor`] does it; a step without constraints calls it alone.
    pub fn turn(&mut self, bodies: &[BodyState]) {
        for (c, s) in self.weights.coupled.iter_mut().zip(bodies) {
            if let Some(c) = c {
                c.turn(&s.rot);
            }
        }
    }

    /// Solves S x = rhs in place; false if the result is not finite.
    pub fn solve(&mut self, rhs: &mut [f64]) -> bool {
        match &mut self.kind {
            Kind::General(g) => g.system.solve(rhs),
            Kind::Chain(c) => c.solve(rhs),
        }
    }

    /// out_b = W_b sum_k G_kb^T x_k, with the W G^T blocks of the last [`Schur::factor`].
    pub fn w_gt(&self, x: &[f64], out: &mut [Gen]) {
        let g = match &self.kind {
            Kind::General(g) => g,
            Kind::Chain(c) => return c.w_gt(x, &self.weights, out),
        };
        for (b, range) in g.body_ranges.iter().enumerate() {
            let mut acc = [0.0; 6];
            for (e, u) in g.entries[range.clone()].iter().zip(&g.wgt[range.clone()]) {
                let xk = x[e.row];
                for i in 0..6 {
                    acc[i] += u[i] * xk;
                }
            }
            out[b] = acc;
        }
    }

    /// out = W_b v.
    #[inline]
    pub fn apply_w(&self, b: usize, v: &Gen, out: &mut Gen) {
        match self.weights.coupled(b) {
            Some(c) => c.apply(v, out),
            None => self.weights.apply(b, v, out),
        }
    }

    /// y_k = sum_b G_kb . x_b for every row: the general path with `rows`, the chain path with
    /// the G of its last [`Schur::factor`].
    pub fn g_times(&self, rows: &[Row], x: &[Gen], y: &mut [f64]) {
        let g = match &self.kind {
            Kind::General(g) => g,
            Kind::Chain(c) => return c.g_times(x, y),
        };
        y.iter_mut().for_each(|v| *v = 0.0);
        for e in &g.entries {
            let row = &rows[e.row][e.slot];
            let xb = &x[e.body];
            y[e.row] +=
                row[0] * xb[0] + row[1] * xb[1] + row[2] * xb[2] + row[3] * xb[3] + row[4] * xb[4] + row[5] * xb[5];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Schur solve gives the same (dx, dl) as a dense solve of the saddle-point system,
    /// on the general and the block-tridiagonal path.
    #[test]
    fn schur_complement_solves_the_saddle_point_system() {
        for chain in [false, true] {
            saddle_point_system(chain);
        }
    }

    fn saddle_point_system(chain: bool) {
        let d = mbfmu_model::catalog::chain::n_link_chain(5, 3);
        let m = Mechanism::from_description(&d).unwrap();
        let mut state = m.initial.clone();
        m.assemble(&mut state).unwrap();
        let mut ce = super::super::ConstraintEval::default();
        m.constraint_jacobian(0.0, &state, &state.bodies, &mut ce);
        let mut schur = if chain { Schur::new(&m) } else { Schur::general(&m) };
        assert_eq!(schur.is_chain(), chain);
        schur.factor(&ce.rows, &state.bodies).unwrap();
        let nb = m.n_bodies();
        let (e, dx, dl) = solve_saddle_point(&mut schur, &ce.rows, nb);
        // Check: W^-1 dx + G^T dl = -e (G dx = -phi is checked by the solve).
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

    /// Solves the saddle-point system [W^-1 G^T; G 0] [dx; dl] = [-e; -phi] through the factored
    /// `schur` for arbitrary e (per body) and phi (per row): S dl = phi - G W e, dx = -W (e +
    /// G^T dl). Checks G dx = -phi; returns (e, dx, dl).
    fn solve_saddle_point(schur: &mut Schur, rows: &[Row], nb: usize) -> (Vec<Gen>, Vec<Gen>, Vec<f64>) {
        let nc = rows.len();
        let e: Vec<Gen> = (0..nb).map(|b| std::array::from_fn(|i| ((b * 6 + i) as f64 * 0.7).sin())).collect();
        let phi: Vec<f64> = (0..nc).map(|k| (k as f64 * 1.3).cos()).collect();
        let mut we = vec![[0.0; 6]; nb];
        for b in 0..nb {
            schur.apply_w(b, &e[b], &mut we[b]);
        }
        let mut gwe = vec![0.0; nc];
        schur.g_times(rows, &we, &mut gwe);
        let mut dl: Vec<f64> = phi.iter().zip(&gwe).map(|(p, g)| p - g).collect();
        assert!(schur.solve(&mut dl));
        let mut wgtdl = vec![[0.0; 6]; nb];
        schur.w_gt(&dl, &mut wgtdl);
        let dx: Vec<Gen> = (0..nb).map(|b| std::array::from_fn(|i| -(we[b][i] + wgtdl[b][i]))).collect();
        let mut gdx = vec![0.0; nc];
        schur.g_times(rows, &dx, &mut gdx);
        for k in 0..nc {
            assert!((gdx[k] + phi[k]).abs() < 1e-9, "row {k}");
        }
        (e, dx, dl)
    }

    /// With a body attached off a beam node, [`Schur::with_offset_masses`] solves the
    /// saddle-point system whose node block is the coupled mass [m I, -A s~; s~ A^T, J_bar]
    /// ([NewtonEuler, "Any reference frame"]), formed here from the node's rotation: the beam
    /// is skewed, so A is no axis permutation, and the node is pinned, so its W enters S.
    #[test]
    fn coupled_blocks_solve_the_saddle_point_system_of_the_offset_mass() {
        let json = r#"{
  "name": "Skewed", "gravity": [0, 0, -9.81],
  "bodies": [{ "name": "lump", "mass": 2.0, "inertia": [0.01, 0.02, 0.015],
               "position": [0.4, 0.25, 0.5], "attached_to": "beam.end" }],
  "beams": [{ "name": "beam", "points": [[0, 0, 0], [0.3, 0.2, 0.4]], "elements": 2,
    "section": { "axial_stiffness": 1e5, "shear_stiffness": [5e4, 5e4], "torsional_stiffness": 1e3,
                 "bending_stiffness": [1e3, 8e2], "mass_per_length": 1.0, "inertia_per_length": [0.02, 0.01, 0.01] } }],
  "joints": [{ "name": "pin", "type": "spherical", "body1": "ground", "body2": "beam.end", "point": [0.3, 0.2, 0.4] },
             { "name": "slide", "type": "translational", "body1": "ground", "body2": "beam.start", "point": [0, 0, 0],
               "axis": [0, 0, 1] }],
  "experiment": { "stop": 1, "step": 0.01 }
}"#;
        let d = mbfmu_model::format::parse(json).unwrap();
        let m = Mechanism::from_description(&d).unwrap();
        let mut state = m.initial.clone();
        m.assemble(&mut state).unwrap();
        let mut ce = super::super::ConstraintEval::default();
        m.constraint_jacobian(0.0, &state, &state.bodies, &mut ce);
        let mut schur = Schur::with_offset_masses(&m);
        schur.factor(&ce.rows, &state.bodies).unwrap();
        let nb = m.n_bodies();
        let (e, dx, dl) = solve_saddle_point(&mut schur, &ce.rows, nb);
        // Check: W^-1 dx + G^T dl = -e (G dx = -phi is checked by the solve).
        let mut gtdl = vec![[0.0; 6]; nb];
        super::super::add_rows_transpose(&m.constraints, &ce.rows, &dl, &mut gtdl);
        let mut coupled = 0;
        for b in 0..nb {
            let p = &m.bodies[b];
            let a = &state.bodies[b].rot;
            let t = Vector3::new(dx[b][0], dx[b][1], dx[b][2]);
            let r = Vector3::new(dx[b][3], dx[b][4], dx[b][5]);
            let (mut ft, mut fr) = (t * p.mass, p.inertia * r);
            if let Some(sm) = &p.static_moment {
                assert!((a - Matrix3::identity()).norm() > 0.1, "the node must be turned");
                ft += a * r.cross(sm);
                fr += sm.cross(&(a.transpose() * t));
                coupled += 1;
            }
            for i in 0..3 {
                assert!((ft[i] + gtdl[b][i] + e[b][i]).abs() < 1e-9, "body {b}");
                assert!((fr[i] + gtdl[b][3 + i] + e[b][3 + i]).abs() < 1e-9, "body {b}");
            }
        }
        assert_eq!(coupled, 1);
    }

    /// The block-tridiagonal path of a chain of spherical joints gives the general path's
    /// S^-1 b, W G^T x and G x to 1e-12 relative.
    #[test]
    fn chain_path_agrees_with_the_general_path() {
        let d = mbfmu_model::catalog::chain::n_link_chain(24, 3);
        let m = Mechanism::from_description(&d).unwrap();
        let mut state = m.initial.clone();
        m.assemble(&mut state).unwrap();
        let mut ce = super::super::ConstraintEval::default();
        m.constraint_jacobian(0.0, &state, &state.bodies, &mut ce);
        let (mut chain, mut general) = (Schur::new(&m), Schur::general(&m));
        assert!(chain.is_chain() && !general.is_chain());
        assert!(!chain.needs_rows() && general.needs_rows());
        chain.factor(&[], &state.bodies).unwrap();
        general.factor(&ce.rows, &state.bodies).unwrap();
        let (nb, nc) = (m.n_bodies(), m.n_constraints());
        let close = |a: &[f64], b: &[f64], what: &str| {
            let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            for (k, (u, v)) in a.iter().zip(b).enumerate() {
                assert!((u - v).abs() <= 1e-12 * scale, "{what} {k}: {u} vs {v}");
            }
        };
        let b: Vec<f64> = (0..nc).map(|k| (k as f64 * 1.3).cos()).collect();
        let (mut x, mut y) = (b.clone(), b);
        assert!(chain.solve(&mut x) && general.solve(&mut y));
        close(&x, &y, "S^-1 b");
        let (mut u, mut v) = (vec![[0.0; 6]; nb], vec![[0.0; 6]; nb]);
        chain.w_gt(&x, &mut u);
        general.w_gt(&x, &mut v);
        close(u.as_flattened(), v.as_flattened(), "W G^T x");
        let (mut gu, mut gv) = (vec![0.0; nc], vec![0.0; nc]);
        chain.g_times(&[], &u, &mut gu);
        general.g_times(&ce.rows, &u, &mut gv);
        close(&gu, &gv, "G x");
    }
}
