//! The half-implicit step ([Fang2023, Sect. 2.2], Eqs. 4-8; `half_implicit.rs`) of a planar
//! mechanism in its in-plane unknowns: per body x = [x, y] (position along e1, e2) and
//! theta = h w_n (the rotation about n over the step), and the multipliers of the in-plane
//! rows; the out-of-plane ones are zero (`planar.rs`). The quasi-Newton matrix of Eq. (12) is
//! [W^-1 G^T; G 0] with W = diag(1/m, 1/m, 1/J_n) per body, solved through its Schur
//! complement S = G W G^T as in `schur.rs`.

use super::planar::{sin_cos, PlanarModel, PlanarRow, Pose};
use super::{forces::Wrench, MechState, Mechanism};
use crate::integrators::{Convergence, FloorReport, NewtonSettings, StepError, StepStats};
use crate::linalg::{FactorError, LinearSystem};

/// Per-body planar generalized vector [x, y, theta].
pub(super) type G3 = [f64; 3];

/// One nonzero block of G: in-plane row `row`, body `body`, slot of the body in the row.
#[derive(Clone, Copy, Debug)]
struct Entry {
    row: usize,
    body: usize,
    slot: usize,
}

/// S = G W G^T of the in-plane rows, sparse as in [`super::schur::Schur`]; the implicit
/// methods' planar Newton iteration (`planar_dae.rs`) solves through it too.
pub(super) struct PlanarSchur {
    /// Nonzero blocks of G grouped by body.
    entries: Vec<Entry>,
    body_ranges: Vec<std::ops::Range<usize>>,
    /// W_b = (1/m, 1/m, 1/J_n).
    pub inv: Vec<G3>,
    /// W G^T per entry.
    wgt: Vec<G3>,
    pub system: LinearSystem,
}

impl PlanarSchur {
    pub fn new(model: &PlanarModel, m: &Mechanism) -> Self {
        let nr = model.rows.len();
        let mut per_body: Vec<Vec<Entry>> = vec![Vec::new(); model.bodies.len()];
        for i in 0..nr {
            for (slot, b) in model.pair(m, i).iter().enumerate() {
                if let Some(b) = *b {
                    per_body[b].push(Entry { row: i, body: b, slot });
                }
            }
        }
        let mut pattern: Vec<(usize, usize)> = (0..nr).map(|k| (k, k)).collect();
        let (mut entries, mut body_ranges) = (Vec::new(), Vec::new());
        for list in per_body {
            let start = entries.len();
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
        PlanarSchur {
            wgt: vec![[0.0; 3]; entries.len()],
            entries,
            body_ranges,
            inv: model.bodies.iter().map(|b| [1.0 / b.mass, 1.0 / b.mass, 1.0 / b.inertia]).collect(),
            system: LinearSystem::new(nr, &pattern, true),
        }
    }

    pub fn factor(&mut self, rows: &[PlanarRow]) -> Result<(), FactorError> {
        self.system.clear();
        let mut s = self.system.assembler();
        // Diagonal slots first, then each body's lower pairs (the pattern's order).
        let mut slot = rows.len();
        for (b, range) in self.body_ranges.iter().enumerate() {
            let w = &self.inv[b];
            for e in range.clone() {
                let g = &rows[self.entries[e].row][self.entries[e].slot];
                self.wgt[e] = [g[0] * w[0], g[1] * w[1], g[2] * w[2]];
            }
            for e in range.clone() {
                let (row, g) = (self.entries[e].row, &rows[self.entries[e].row][self.entries[e].slot]);
                for (f, u) in self.entries[range.clone()].iter().zip(&self.wgt[range.clone()]) {
                    if row >= f.row {
                        s.add(slot, g[0] * u[0] + g[1] * u[1] + g[2] * u[2]);
                        slot += 1;
                    }
                }
            }
        }
        self.system.factor()
    }

    /// out_b = W_b sum_k G_kb^T x_k.
    pub fn w_gt(&self, x: &[f64], out: &mut [G3]) {
        for (range, o) in self.body_ranges.iter().zip(out.iter_mut()) {
            let mut acc = [0.0; 3];
            for (e, u) in self.entries[range.clone()].iter().zip(&self.wgt[range.clone()]) {
                let xk = x[e.row];
                for i in 0..3 {
                    acc[i] += u[i] * xk;
                }
            }
            *o = acc;
        }
    }

    /// y_k = sum_b G_kb . x_b.
    pub fn g_times(&self, rows: &[PlanarRow], x: &[G3], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for e in &self.entries {
            let (g, xb) = (&rows[e.row][e.slot], &x[e.body]);
            y[e.row] += g[0] * xb[0] + g[1] * xb[1] + g[2] * xb[2];
        }
    }
}

/// Work arrays of the planar half-implicit step, allocated once.
pub(super) struct PlanarHalfImplicit {
    model: PlanarModel,
    schur: PlanarSchur,
    rows: Vec<PlanarRow>,
    loads: Vec<Wrench>,
    /// Poses at the step's start and of the current iterate.
    base: Vec<Pose>,
    poses: Vec<Pose>,
    /// Current iterate per body [x, y, theta].
    x: Vec<G3>,
    lambda_hat: Vec<f64>,
    /// W e12 of the first Newton step (including W G^T lambda_hat).
    dx0: Vec<G3>,
    dx: Vec<G3>,
    phi: Vec<f64>,
    rhs: Vec<f64>,
    next: MechState,
}

impl std::fmt::Debug for PlanarHalfImplicit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanarHalfImplicit").field("plane", &self.model.plane).field("rows", &self.rows.len()).finish()
    }
}

impl PlanarHalfImplicit {
    pub fn new(model: PlanarModel, m: &Mechanism, start: &MechState) -> Self {
        let (nb, nr) = (model.bodies.len(), model.rows.len());
        PlanarHalfImplicit {
            schur: PlanarSchur::new(&model, m),
            model,
            rows: vec![[[0.0; 3]; 2]; nr],
            loads: vec![[0.0; 6]; nb],
            base: vec![Pose::default(); nb],
            poses: vec![Pose::default(); nb],
            x: vec![[0.0; 3]; nb],
            lambda_hat: vec![0.0; nr],
            dx0: vec![[0.0; 3]; nb],
            dx: vec![[0.0; 3]; nb],
            phi: vec![0.0; nr],
            rhs: vec![0.0; nr],
            next: start.clone(),
        }
    }

    /// Advances `state` by `h` (as [`super::HalfImplicit::step`]). On error `state` is unchanged.
    pub fn step(
        &mut self,
        m: &Mechanism,
        state: &mut MechState,
        h: f64,
        settings: &NewtonSettings,
        floor: &mut FloorReport,
    ) -> Result<StepStats, StepError> {
        let t1 = state.t + h;
        if !(h.is_finite() && h > 0.0) {
            return Err(StepError::BadStep { time: state.t, h });
        }
        let nr = self.rows.len();
        let plane = self.model.plane;
        // Loads at t_n; no friction (a planar model has none) and no gyroscopic torque
        // (w_bar x J_bar w_bar vanishes for w_bar along the principal axis n_bar).
        m.applied_forces(state.t, &state.bodies, &state.angles, &[], &mut self.loads);
        self.model.poses(&state.bodies, &mut self.base);
        if nr > 0 {
            self.model.rows(&self.base, &mut self.rows);
            self.schur.factor(&self.rows).map_err(|e| StepError::Singular {
                time: state.t,
                detail: format!("constraint Jacobian is rank deficient ({e:?})"),
            })?;
        }
        // Predictor and the first Newton step's dx0 = W e12 (see `half_implicit.rs`), with
        // the sizes of the out-of-plane coordinates n . r for the convergence test.
        let mut out_of_plane = 0.0;
        for (b, (s, pb)) in state.bodies.iter().zip(&self.model.bodies).enumerate() {
            let (r, v, a) = (self.base[b].p, plane.project(&s.v), plane.project(&s.acc));
            let (w, wd) = (s.w.dot(&pb.n_bar), s.wdot.dot(&pb.n_bar));
            let z = s.r.dot(&plane.n);
            out_of_plane += z * z;
            let x = [r[0] + h * v[0] + h * h * a[0], r[1] + h * v[1] + h * h * a[1], h * w + h * h * wd];
            let load = &self.loads[b];
            let f = [
                load[0] * plane.e1.x + load[1] * plane.e1.y + load[2] * plane.e1.z,
                load[0] * plane.e2.x + load[1] * plane.e2.y + load[2] * plane.e2.z,
            ];
            let tau = load[3] * pb.n_bar.x + load[4] * pb.n_bar.y + load[5] * pb.n_bar.z;
            let e12 = [
                pb.mass * (x[0] - r[0] - h * v[0]) - h * h * f[0],
                pb.mass * (x[1] - r[1] - h * v[1]) - h * h * f[1],
                pb.inertia * (x[2] - h * w) - h * h * tau,
            ];
            let inv = &self.schur.inv[b];
            self.x[b] = x;
            self.dx0[b] = [e12[0] * inv[0], e12[1] * inv[1], e12[2] * inv[2]];
        }
        for (l, &k) in self.lambda_hat.iter_mut().zip(&self.model.rows) {
            *l = h * h * state.lambda[k];
        }
        if nr > 0 {
            self.schur.w_gt(&self.lambda_hat, &mut self.dx);
            for (d0, d) in self.dx0.iter_mut().zip(&self.dx) {
                for i in 0..3 {
                    d0[i] += d[i];
                }
            }
        }
        let mut iterations = 0;
        let mut norm = f64::INFINITY;
        let mut test = Convergence::new(settings.tolerance);
        let mut converged = false;
        while iterations < settings.max_iterations {
            iterations += 1;
            let first = iterations == 1;
            let mut sum = 0.0;
            if nr > 0 {
                // Configuration of the iterate (each body turned by theta) and e3 = Phi(q, t_{n+1}).
                for ((p, base), x) in self.poses.iter_mut().zip(&self.base).zip(&self.x) {
                    let (sin, cos) = sin_cos(x[2]);
                    let (c, s) = base.rotated(cos, sin);
                    *p = Pose { p: [x[0], x[1]], c, s };
                }
                self.model.constraint_values(m, t1, state, &self.poses, &mut self.rhs);
                if first {
                    self.schur.g_times(&self.rows, &self.dx0, &mut self.phi);
                    for (r, g) in self.rhs.iter_mut().zip(&self.phi) {
                        *r -= g;
                    }
                }
                if !self.schur.system.solve(&mut self.rhs) {
                    return Err(StepError::Singular {
                        time: t1,
                        detail: "Schur complement solve produced non-finite values".into(),
                    });
                }
                self.schur.w_gt(&self.rhs, &mut self.dx);
                for (l, d) in self.lambda_hat.iter_mut().zip(&self.rhs) {
                    *l += d;
                    sum += d * d;
                }
            } else {
                self.dx.iter_mut().for_each(|d| *d = [0.0; 3]);
            }
            for ((x, dx), dx0) in self.x.iter_mut().zip(&self.dx).zip(&self.dx0) {
                for i in 0..3 {
                    let d = dx[i] + if first { dx0[i] } else { 0.0 };
                    x[i] -= d;
                    sum += d * d;
                }
            }
            norm = sum.sqrt();
            if !norm.is_finite() {
                return Err(StepError::NonFinite { time: t1, what: "half-implicit Newton correction".into() });
            }
            let (x, lambda_hat) = (&self.x, &self.lambda_hat);
            let size = || {
                let sx: f64 = x.iter().flat_map(|g| g.iter()).map(|v| v * v).sum();
                (sx + out_of_plane + lambda_hat.iter().map(|v| v * v).sum::<f64>()).sqrt()
            };
            converged = floor.settle(test.check(norm, size), t1);
            if converged {
                break;
            }
        }
        if !converged {
            return Err(StepError::NotConverged { time: t1, iterations, norm, tolerance: settings.tolerance });
        }
        self.finish(m, state, h);
        if self.next.bodies.iter().any(|s| !(s.r.iter().chain(s.v.iter()).chain(s.w.iter()).all(|x| x.is_finite()))) {
            return Err(StepError::NonFinite { time: t1, what: "state after a half-implicit step".into() });
        }
        std::mem::swap(state, &mut self.next);
        Ok(StepStats { iterations, stages: 1, reused: 0 })
    }

    /// The state at t_n + h from the converged iterate ([Fang2023, eqs. 4a-4d]): positions and
    /// rotations, velocities, accelerations, multipliers, angles, drives and work.
    fn finish(&mut self, m: &Mechanism, state: &MechState, h: f64) {
        let plane = &self.model.plane;
        // Every field of `next` but `energy0` is written below.
        self.next.t = state.t + h;
        self.next.energy0 = state.energy0;
        for (b, (s, old)) in self.next.bodies.iter_mut().zip(&state.bodies).enumerate() {
            let (x, base) = (&self.x[b], &self.base[b]);
            s.r = old.r + plane.e1 * (x[0] - base.p[0]) + plane.e2 * (x[1] - base.p[1]);
            let (sin, cos) = sin_cos(x[2]);
            s.rot = plane.turn(cos, sin, &old.rot);
            let (c, s_) = base.rotated(cos, sin);
            self.poses[b] = Pose { p: [x[0], x[1]], c, s: s_ };
            s.v = (s.r - old.r) / h;
            s.w = self.model.bodies[b].n_bar * (x[2] / h);
            s.acc = (s.v - old.v) / h;
            s.wdot = (s.w - old.w) / h;
        }
        self.next.lambda.iter_mut().for_each(|l| *l = 0.0);
        for (&k, lh) in self.model.rows.iter().zip(&self.lambda_hat) {
            self.next.lambda[k] = lh / (h * h);
        }
        self.model.update_angles(m, &self.poses, &self.next.bodies, &state.angles, &mut self.next.angles);
        m.advance_drives(self.next.t, state, &mut self.next.drive_values);
        self.next.work = state.work + m.work_increment(state, &self.next, &[]);
    }
}
