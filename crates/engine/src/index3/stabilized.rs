//! The stabilized index-2 form of the joints ([GearGuptaLeimkuhler1985]; [HairerWanner1996,
//! Sect. VII.1]) for the residual-form methods: the position and the velocity constraints
//! together, with a second multiplier mu in the kinematic rows,
//!   r' - v + (W G^T mu)_r = 0,   T(theta) theta' - w_bar + (W G^T mu)_pi = 0,
//!   M r'' + ... + G^T lambda = f,   Phi(q, t) = 0,   G [v; w_bar] - nu(t) = 0,
//! G the constraint rows of [`super::dae`], nu = -Phi_t the drivers' rates and W =
//! blockdiag(I / m, J_bar^-1) (a mass-weighted choice of the matrix that multiplies mu: any B
//! with G B invertible enforces both constraint levels; W makes the correction independent of
//! the units of lengths and angles). Differentiating Phi along a solution gives
//! G W G^T mu = 0, so mu = 0 on the exact solution: it only absorbs the discretization's drift.
//!
//! Newton: with the kinematic residual r_kin of the index-3 iteration ([`super::dae`]), the
//! correction dmu enters the kinematic rows only, r_kin -> r_kin + W G^T dmu. It is chosen so
//! that the position rows ask the same acceleration correction as the velocity rows,
//!   G da = (-Phi + b0 G r_kin') / b0^2 = -(G v - nu) / b0,
//! i.e. S dmu = Phi / b0 - (G v - nu) - G r_kin with S = G W G^T; then the index-3 iteration
//! matrix serves unchanged, with the velocity rows' right-hand side on its constraint rows.

use super::schur::{Gen, Schur};
use super::{add_rows_transpose, row_times, ConstraintEval, MechState, Mechanism};
use crate::integrators::StepError;

/// Work arrays of the stabilized form, allocated once.
#[derive(Debug)]
pub(super) struct Stabilization {
    /// S = G W G^T at the last factorization.
    schur: Schur,
    /// W G^T mu (residual) or W G^T dmu (Newton) per body.
    push: Vec<Gen>,
    /// G^T mu per body.
    gt: Vec<Gen>,
    /// [v; w_bar] per body.
    qdot: Vec<Gen>,
    /// The drivers' rates nu(t) per constraint row.
    nu: Vec<f64>,
    /// dmu.
    dmu: Vec<f64>,
}

impl Stabilization {
    pub fn new(m: &Mechanism) -> Self {
        let (nb, nc) = (m.n_bodies(), m.n_constraints());
        Stabilization {
            schur: Schur::new(m),
            push: vec![[0.0; 6]; nb],
            gt: vec![[0.0; 6]; nb],
            qdot: vec![[0.0; 6]; nb],
            nu: vec![0.0; nc],
            dmu: vec![0.0; nc],
        }
    }

    /// The kinematic rows' term W G^T mu per body (`push`) and the velocity rows
    /// G [v; w_bar] - nu (`velocity_rows`), at the bodies and rows of `ce`.
    #[allow(clippy::too_many_arguments)]
    pub fn residual_terms(
        &mut self,
        m: &Mechanism,
        t: f64,
        base: &MechState,
        bodies: &[super::BodyState],
        ce: &ConstraintEval,
        mu: &[f64],
        velocity_rows: &mut [f64],
    ) -> &[Gen] {
        self.gt.iter_mut().for_each(|g| *g = [0.0; 6]);
        add_rows_transpose(&m.constraints, &ce.rows, mu, &mut self.gt);
        for (b, g) in self.gt.iter().enumerate() {
            self.schur.apply_w(b, g, &mut self.push[b]);
        }
        for (q, s) in self.qdot.iter_mut().zip(bodies) {
            *q = [s.v.x, s.v.y, s.v.z, s.w.x, s.w.y, s.w.z];
        }
        m.constraint_rates(t, base, &mut self.nu);
        for (k, c) in m.constraints.iter().enumerate() {
            velocity_rows[k] = row_times(c, &ce.rows[k], &self.qdot) - self.nu[k];
        }
        &self.push
    }

    /// Forms and factors S = G W G^T at the rows of the iteration matrix.
    pub fn factor(&mut self, t: f64, ce: &ConstraintEval, bodies: &[super::BodyState]) -> Result<(), StepError> {
        self.schur.factor(&ce.rows, bodies).map_err(|e| StepError::Singular {
            time: t,
            detail: format!("stabilized index-2 form: G W G^T ({} rows): {e:?}", ce.rows.len()),
        })
    }

    /// dmu from the position rows `phi` and the velocity rows `velocity` of the residual, and
    /// r_kin + W G^T dmu in place of `r_kin` (see the module's derivation).
    pub fn correct_kinematics(
        &mut self,
        m: &Mechanism,
        ce: &ConstraintEval,
        b0: f64,
        phi: &[f64],
        velocity: &[f64],
        r_kin: &mut [Gen],
    ) -> Result<&[f64], StepError> {
        for (k, c) in m.constraints.iter().enumerate() {
            self.dmu[k] = phi[k] / b0 - velocity[k] - row_times(c, &ce.rows[k], r_kin);
        }
        if !self.schur.solve(&mut self.dmu) {
            return Err(StepError::Singular {
                time: f64::NAN,
                detail: "stabilized index-2 form: non-finite multiplier correction".into(),
            });
        }
        self.schur.w_gt(&self.dmu, &mut self.push);
        for (r, p) in r_kin.iter_mut().zip(&self.push) {
            for i in 0..6 {
                r[i] += p[i];
            }
        }
        Ok(&self.dmu)
    }
}
