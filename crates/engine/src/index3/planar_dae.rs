//! The implicit methods' Newton iteration ([`super::dae`]) of a planar mechanism in its
//! in-plane unknowns (`planar.rs`): per body the accelerations (a_x, a_y) along e1, e2 and
//! alpha about n, and the multipliers of the in-plane rows.
//!
//! For a planar state the iteration matrix of [Fang2023, Sect. 2.3] splits as the
//! half-implicit one does (`planar.rs`): the gyroscopic block b0 (w_bar~ J_bar - (J_bar
//! w_bar)~) has no n_bar-n_bar entry when w_bar is along the principal axis n_bar, so the
//! in-plane block is the constant diag(m, m, J_n) per body and the out-of-plane corrections
//! and multipliers vanish. The in-plane system
//!   [W^-1 G^T] [da]   [f                         ]
//!   [G    0  ] [dl] = [(-Phi + b0 G r_kin) / b0^2]
//! is solved through S = G W G^T ([`PlanarSchur`], shared with the half-implicit step), and
//! the chart coordinates move as in the spatial iteration: dr' = b0 da - r_kin, dtheta' =
//! b0 dw_bar' - r_kin (T(theta) = I on rotations about n_bar). Residual and solve keep the
//! spatial layout of [`super::dae`]. The out-of-plane accelerations, which no in-plane row
//! holds, get the Newton correction of their dynamic rows with the inertia alone (zero loads
//! there): zero in a planar motion, and round-off out of the plane is not extrapolated by the
//! multi-step predictors into a growing rotation.
//!
//! It serves mechanisms without force elements, beams, circuits, friction or offset masses,
//! whose only load is gravity in the plane; the others keep the spatial iteration.

use super::planar::{sin_cos, PlanarModel, PlanarRow, Pose};
use super::planar_step::{PlanarSchur, G3};
use super::{MechState, Mechanism};
use crate::integrators::StepError;
use nalgebra::Vector3;

/// Work arrays of the planar Newton iteration, allocated once.
pub(super) struct PlanarNewton {
    model: PlanarModel,
    schur: PlanarSchur,
    /// Poses of the base state and of the point evaluated last.
    base: Vec<Pose>,
    poses: Vec<Pose>,
    /// In-plane rows at the point evaluated last, and those S was formed with.
    rows: Vec<PlanarRow>,
    factored: Vec<PlanarRow>,
    phi: Vec<f64>,
    /// Gravity loads m g per body (in the plane).
    weight: Vec<[f64; 3]>,
    /// Per body: W f, the kinematic residual's in-plane part, W G^T dl.
    x: Vec<G3>,
    kin: Vec<G3>,
    /// Per body the out-of-plane acceleration corrections [d r'' (3), d w_bar' (3)].
    free: Vec<[f64; 6]>,
    dx: Vec<G3>,
    rhs: Vec<f64>,
    tmp: Vec<f64>,
    b0: f64,
}

impl std::fmt::Debug for PlanarNewton {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanarNewton").field("plane", &self.model.plane).field("rows", &self.rows.len()).finish()
    }
}

fn dot(a: &Vector3<f64>, s: &[f64]) -> f64 {
    a.x * s[0] + a.y * s[1] + a.z * s[2]
}

impl PlanarNewton {
    /// The planar iteration for `m`, if it is planar at `start` and its only load is gravity.
    pub fn for_mechanism(m: &Mechanism, start: &MechState) -> Option<PlanarNewton> {
        if !m.forces.is_empty() || m.hydraulics.is_some() || m.has_offset_masses() {
            return None;
        }
        let model = PlanarModel::detect(m, start)?;
        let (nb, nr) = (model.bodies.len(), model.rows.len());
        let weight = model.bodies.iter().map(|b| (m.gravity * b.mass).into()).collect();
        Some(PlanarNewton {
            schur: PlanarSchur::new(&model, m),
            model,
            base: vec![Pose::default(); nb],
            poses: vec![Pose::default(); nb],
            rows: vec![[[0.0; 3]; 2]; nr],
            factored: vec![[[0.0; 3]; 2]; nr],
            phi: vec![0.0; nr],
            weight,
            x: vec![[0.0; 3]; nb],
            kin: vec![[0.0; 3]; nb],
            free: vec![[0.0; 6]; nb],
            dx: vec![[0.0; 3]; nb],
            rhs: vec![0.0; nr],
            tmp: vec![0.0; nr],
            b0: 0.0,
        })
    }

    /// Poses, in-plane constraint values and rows at the chart point y around `base`.
    fn evaluate(&mut self, m: &Mechanism, base: &MechState, t: f64, y: &[f64]) {
        self.model.poses(&base.bodies, &mut self.base);
        let plane = &self.model.plane;
        for (b, ((p, from), pb)) in self.poses.iter_mut().zip(&self.base).zip(&self.model.bodies).enumerate() {
            let o = 12 * b;
            let turn = dot(&pb.n_bar, &y[o + 3..]);
            let (sin, cos) = sin_cos(turn);
            let (c, s) = from.rotated(cos, sin);
            *p = Pose { p: [dot(&plane.e1, &y[o..]), dot(&plane.e2, &y[o..])], c, s };
        }
        self.model.constraint_values(m, t, base, &self.poses, &mut self.phi);
        self.model.rows(&self.poses, &mut self.rows);
    }

    /// The residual of [`super::dae`] at a planar point: kinematic rows as they are, dynamic
    /// rows in the plane (their out-of-plane parts vanish there), the in-plane constraint
    /// values and zeros for the out-of-plane rows.
    #[allow(clippy::too_many_arguments)]
    pub fn residual(
        &mut self,
        m: &Mechanism,
        base: &MechState,
        t: f64,
        y: &[f64],
        yp: &[f64],
        lambda: &[f64],
        out: &mut [f64],
    ) {
        self.evaluate(m, base, t, y);
        // G^T lambda of the in-plane rows per body, in `x`.
        for (l, &k) in self.tmp.iter_mut().zip(&self.model.rows) {
            *l = lambda[k];
        }
        self.x.iter_mut().for_each(|x| *x = [0.0; 3]);
        for (i, row) in self.rows.iter().enumerate() {
            for (slot, b) in self.model.pair(m, i).iter().enumerate() {
                if let Some(b) = b {
                    for (x, g) in self.x[*b].iter_mut().zip(&row[slot]) {
                        *x += g * self.tmp[i];
                    }
                }
            }
        }
        let plane = &self.model.plane;
        for (b, (pb, body)) in self.model.bodies.iter().zip(&m.bodies).enumerate() {
            let o = 12 * b;
            let gtl = &self.x[b];
            let wdot = body.inertia * Vector3::new(yp[o + 9], yp[o + 10], yp[o + 11]);
            for i in 0..3 {
                out[o + i] = yp[o + i] - y[o + 6 + i];
                out[o + 3 + i] = yp[o + 3 + i] - y[o + 9 + i];
                out[o + 6 + i] =
                    pb.mass * yp[o + 6 + i] + plane.e1[i] * gtl[0] + plane.e2[i] * gtl[1] - self.weight[b][i];
                out[o + 9 + i] = wdot[i] + pb.n_bar[i] * gtl[2];
            }
        }
        let nd = 12 * self.model.bodies.len();
        out[nd..].iter_mut().for_each(|r| *r = 0.0);
        for (&k, phi) in self.model.rows.iter().zip(&self.phi) {
            out[nd + k] = *phi;
        }
    }

    /// Forms and factors S at the chart point y.
    pub fn factor(&mut self, m: &Mechanism, base: &MechState, t: f64, b0: f64, y: &[f64]) -> Result<(), StepError> {
        self.evaluate(m, base, t, y);
        self.factored.copy_from_slice(&self.rows);
        self.b0 = b0;
        if self.rows.is_empty() {
            return Ok(());
        }
        self.schur.factor(&self.factored).map_err(|e| StepError::Singular {
            time: t,
            detail: format!("planar iteration matrix ({} in-plane constraints): {e:?}", self.rows.len()),
        })
    }

    /// The Newton correction for the residual `r` (after [`PlanarNewton::residual`] at the
    /// current point and [`PlanarNewton::factor`]).
    pub fn solve(&mut self, m: &Mechanism, r: &[f64], dyp: &mut [f64], dlambda: &mut [f64]) -> Result<(), StepError> {
        let b0 = self.b0;
        let plane = &self.model.plane;
        let nb = self.model.bodies.len();
        for (b, (pb, body)) in self.model.bodies.iter().zip(&m.bodies).enumerate() {
            let o = 12 * b;
            let w = &self.schur.inv[b];
            self.x[b] = [
                -dot(&plane.e1, &r[o + 6..]) * w[0],
                -dot(&plane.e2, &r[o + 6..]) * w[1],
                -dot(&pb.n_bar, &r[o + 9..]) * w[2],
            ];
            self.kin[b] = [dot(&plane.e1, &r[o..]), dot(&plane.e2, &r[o..]), dot(&pb.n_bar, &r[o + 3..])];
            // The out-of-plane accelerations, which no in-plane row holds: their dynamic rows
            // solved with the inertia alone (free of loads, as the exact planar motion is), so
            // that round-off out of the plane is not carried on by the methods' predictors.
            let along_n = -dot(&plane.n, &r[o + 6..]) / pb.mass;
            let turn = body.inertia_inv * Vector3::new(r[o + 9], r[o + 10], r[o + 11]);
            let about_n = turn.dot(&pb.n_bar);
            self.free[b] = [
                plane.n.x * along_n,
                plane.n.y * along_n,
                plane.n.z * along_n,
                -(turn.x - pb.n_bar.x * about_n),
                -(turn.y - pb.n_bar.y * about_n),
                -(turn.z - pb.n_bar.z * about_n),
            ];
        }
        dlambda.iter_mut().for_each(|l| *l = 0.0);
        if !self.rows.is_empty() {
            // S dl = G W f - c, c = (-Phi + b0 G r_kin) / b0^2 with the current rows.
            self.schur.g_times(&self.rows, &self.kin, &mut self.tmp);
            self.schur.g_times(&self.factored, &self.x, &mut self.rhs);
            for ((s, g), &k) in self.rhs.iter_mut().zip(&self.tmp).zip(&self.model.rows) {
                *s -= (-r[12 * nb + k] + b0 * g) / (b0 * b0);
            }
            if !self.schur.system.solve(&mut self.rhs) {
                return Err(StepError::Singular {
                    time: f64::NAN,
                    detail: "planar Newton solve produced non-finite values".into(),
                });
            }
            self.schur.w_gt(&self.rhs, &mut self.dx);
            for (&k, dl) in self.model.rows.iter().zip(&self.rhs) {
                dlambda[k] = *dl;
            }
        } else {
            self.dx.iter_mut().for_each(|d| *d = [0.0; 3]);
        }
        for (b, pb) in self.model.bodies.iter().enumerate() {
            let o = 12 * b;
            let da = [self.x[b][0] - self.dx[b][0], self.x[b][1] - self.dx[b][1], self.x[b][2] - self.dx[b][2]];
            for i in 0..3 {
                let free = &self.free[b];
                let (a, alpha) =
                    (plane.e1[i] * da[0] + plane.e2[i] * da[1] + free[i], pb.n_bar[i] * da[2] + free[3 + i]);
                dyp[o + 6 + i] = a;
                dyp[o + 9 + i] = alpha;
                dyp[o + i] = b0 * a - r[o + i];
                dyp[o + 3 + i] = b0 * alpha - r[o + 3 + i];
            }
        }
        if dyp.iter().chain(dlambda.iter()).all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(StepError::Singular { time: f64::NAN, detail: "planar Newton solve produced non-finite values".into() })
        }
    }
}
