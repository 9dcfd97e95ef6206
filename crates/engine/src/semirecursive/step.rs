//! One step of the trapezoidal rule with positions and pressures as primary variables
//! ([Jaiswal2021, Sect. 4]): predictor z_{k+1} = z_k + z'_k dt + z''_k dt^2/2, p_{k+1} = p_k + p'_k dt;
//! Newton-Raphson (eq. 37) on eq. (35) (double-step, unknowns z^i and p) or eq. (36) (penalty,
//! unknowns z and p, multipliers updated by eq. 19), converged when every coordinate
//! correction is below `tolerance` and every pressure correction below `pressure_tolerance`
//! (each scaled to the size of its unknowns, or stagnating at the round-off floor:
//! `integrators::convergence`);
//! then the dependent coordinates (double-step, eqs. 13-15) or the projections of eqs.
//! (20)-(21) (penalty).

use super::cuts::g_dot_acc;
use super::eval::{add_phiz_transpose, max_abs, Residual, Step};
use super::multiplier_history::ROUND_OFF;
use super::tangent::add_gram;
use super::Semirecursive;
use crate::integrators::{Convergence, StepError, StepStats};
use crate::linalg::{constant_size, copy_small, full_pivoting, zero_small};
use mbfmu_model::format::Tangent;

/// Most halvings of a damped Newton correction.
const MAX_HALVINGS: usize = 10;

/// A partition is re-chosen when the smallest pivot of Phi_z^d falls below this fraction of
/// the smallest pivot full pivoting achieves (hysteresis against switching back and forth).
pub(super) const REPARTITION: f64 = 0.5;
/// When the coordinates moved by less than this fraction of the tolerance since a step's last
/// Newton residual (a converged step's last correction, or a correction of an iteration that
/// continues for the pressures), the next residual or the step's end keeps that residual's
/// positions, Phi_z (Phi to first order) and double-step's LU of Phi_z^d instead of
/// evaluating them at the corrected coordinates (which are still the step's): they lag by far
/// less than Newton resolves, as in [`Semirecursive::solve_positions_to`]. The rates are
/// formed at the corrected coordinates.
pub(super) const NEGLIGIBLE: f64 = 1e-3;
/// A kept Newton tangent is formed anew when a correction is larger than this fraction of
/// the previous one.
const SLOW: f64 = 0.1;

impl Semirecursive {
    /// Advances the state by one step to `t1`. On error the state is unchanged.
    pub fn step_to(&mut self, t1: f64) -> Result<StepStats, StepError> {
        let t0 = self.state.t;
        let dt = t1 - t0;
        if !(dt.is_finite() && dt > 0.0) {
            return Err(StepError::BadStep { time: t0, h: dt });
        }
        let s = Step::new(t1, dt);
        let n = self.tree.n_coordinates();
        let penalty = self.is_penalty();
        self.advance_spools(t0, t1);
        self.load_partition();
        // Predictor ([Jaiswal2021, Sect. 4]; for the pressures with a second-order term from the
        // change of their rates over the last step, which spares a Newton iteration while
        // the circuit oscillates).
        let st = &self.state;
        let w = &mut self.w;
        taylor(&mut w.z[..n], &st.z, &st.zd, &st.zdd, dt);
        let nm = if penalty {
            copy_small(&mut w.x[..n], &w.z[..n]);
            n
        } else {
            for (x, &j) in w.x.iter_mut().zip(&w.ind) {
                *x = w.z[j];
            }
            w.ind.len()
        };
        taylor(&mut w.x[nm..], &st.p, &st.pd, &st.pdd, dt);
        if penalty {
            // Eq. (19) from the parabola through the last steps' multipliers
            // (`multiplier_history.rs`); a change within alpha's share of the round-off of
            // Phi (coordinates of size |z|, at least 1) is no trend.
            let size = max_abs(&st.z).max(1.0);
            let round_off = ROUND_OFF * self.settings.penalty * f64::EPSILON * size;
            st.multipliers.predict(&st.lambda, dt, round_off, &mut w.lambda);
        } else {
            copy_small(&mut w.lambda, &st.lambda);
        }
        let nx = w.x.len();
        let (tol, ptol) = (self.settings.tolerance, self.settings.pressure_tolerance);
        let mut iterations = 0;
        let mut converged = false;
        let mut worst = f64::INFINITY;
        let mut previous = f64::INFINITY;
        let reuse = self.settings.tangent == Tangent::Analytic;
        // Pressure-controlled valves and compensated pumps open along ramps whose corners
        // make full Newton steps cycle between the closed and the open branch, and an
        // accumulator's gas law steepens a thousandfold at its empty stop: their circuits
        // take damped steps.
        let damped = self.tree.circuit.as_ref().is_some_and(|c| c.components.has_openings());
        // On the correction over its scaled tolerance, the larger of the two blocks.
        let mut test = Convergence::new(1.0);
        // A closed-form tangent kept from the last step stands for the one at the predictor,
        // with its W for the projections (`kept_tangent.rs`).
        let kept = reuse && self.state.tangent.usable(dt);
        if kept && penalty {
            self.w.amat.copy_from_slice(&self.state.tangent.amat);
        }
        self.w.amat_fresh = kept;
        let mut formed = false;
        // `w` holds the cache of the last state, not a residual of this step.
        self.w.at_residual = false;
        for iteration in 1..=self.settings.max_iterations {
            iterations = iteration;
            self.residual(s, penalty && iteration > 1, Residual::Base)?;
            // The numerical tangent (eqs. 40-41) is formed at every iteration; the closed-form
            // one at the predictor (unless kept) and again only if the corrections shrink
            // slowly (modified Newton).
            if !reuse || (iteration == 1 && !kept) || worst > SLOW * previous {
                self.tangent(s)?;
                self.tangents += 1;
                formed = true;
            }
            previous = worst;
            let w = &mut self.w;
            negate(&mut w.tmp_n[..nx], &w.f);
            // The factors in use: the kept ones until a tangent is formed.
            let tangent = if formed { &w.tangent } else { &self.state.tangent.lu };
            tangent.solve(&mut w.tmp_n, &mut w.tmp_n2);
            // x += dx (`w.x` is scratch: a failed step leaves the state alone).
            if damped {
                w.x_before[..nx].copy_from_slice(&w.x[..nx]);
            }
            // The convergence test measures the full Newton correction, not a damped one.
            let norms = correct(&mut w.x[..nx], &w.tmp_n[..nx], nm);
            if damped {
                self.damp(s, nm, nx)?;
            }
            let (dz, dp) = (norms.dz, norms.dp);
            if !(dz.is_finite() && dp.is_finite()) {
                return Err(StepError::NonFinite { time: t1, what: "Newton correction".into() });
            }
            worst = (dz / tol).max(dp / ptol) * tol;
            converged = dz <= tol && dp <= ptol;
            if !penalty {
                // The independent coordinates' corrections are in `w.tmp_n[..nm]`.
                self.follow_constraints();
            }
            if converged {
                break;
            }
            // Tolerances scaled to the largest coordinate and pressure (max norms, as dz, dp);
            // double-step's dependent coordinates are not unknowns, so `w.x` is as corrected.
            let ratio = (dz / Convergence::scaled(tol, norms.xz)).max(dp / Convergence::scaled(ptol, norms.xp));
            converged = self.floor.settle(test.check_ratio(ratio), t1);
            if converged {
                break;
            }
        }
        if !converged {
            return Err(StepError::NotConverged {
                time: t1,
                iterations: self.settings.max_iterations,
                norm: worst,
                tolerance: tol,
            });
        }
        // The tangent goes on to the next step if this one converged at once with it.
        let keep = match (reuse && iterations == 1, formed) {
            (false, _) => Keep::Nothing,
            (true, true) => Keep::Formed,
            (true, false) => Keep::Kept,
        };
        self.finalize(s, keep)?;
        Ok(StepStats { iterations, stages: 1, reused: 0 })
    }

    /// Backtracking on the full Newton correction just applied (`w.x_before` + dx in `w.x`,
    /// dx in `w.tmp_n`): halves it while the pressure rows' residual (in Pa) grows over the
    /// one at `w.x_before` (Armijo's rule with a slope factor of 1e-4,
    /// [DennisSchnabel1983, Sect. 6.3]); with no decrease after [`MAX_HALVINGS`], the full correction.
    #[inline(never)]
    fn damp(&mut self, s: Step, nm: usize, nx: usize) -> Result<(), StepError> {
        let merit = |f: &[f64]| f[nm..nx].iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let before = merit(&self.w.f);
        let mut lambda = 1.0;
        for k in 0..=MAX_HALVINGS {
            self.residual(s, false, super::eval::Residual::Base)?;
            if merit(&self.w.f) <= (1.0 - 1e-4 * lambda) * before {
                break;
            }
            lambda = if k == MAX_HALVINGS - 1 { 1.0 } else { 0.5 * lambda };
            if k == MAX_HALVINGS {
                break;
            }
            let w = &mut self.w;
            for i in 0..nx {
                w.x[i] = w.x_before[i] + lambda * w.tmp_n[i];
            }
        }
        Ok(())
    }

    /// Spool positions and references for the step (held reference, trapezoidal rule).
    fn advance_spools(&mut self, t0: f64, t1: f64) {
        if let Some(c) = &self.tree.circuit {
            for k in 0..c.n_spools() {
                self.w.references[k] = c.reference(k, t0, t1, &self.inputs);
            }
            c.advance_spools(&self.state.spools, &self.w.references, t1 - t0, &mut self.w.spools);
        }
    }

    /// The partition of the state into dependent and independent coordinates.
    pub(super) fn load_partition(&mut self) {
        let n = self.tree.n_coordinates();
        let w = &mut self.w;
        // `dep` is always the ascending complement of `ind`.
        if w.ind == self.state.independent && w.ind.len() + w.dep.len() == n {
            return;
        }
        w.ind.clone_from(&self.state.independent);
        w.dep.clear();
        w.dep.extend((0..n).filter(|j| !self.state.independent.contains(j)));
    }

    /// Double-step, at a new state whose Phi_z and LU of Phi_z^d are in `w`: when the
    /// smallest pivot of Phi_z^d has fallen below half of what full pivoting achieved when
    /// the partition was chosen, choose again by full pivoting ([Jaiswal2021, Sects. 2.2, 6.1]).
    /// True if the partition changed.
    fn review_partition(&mut self, t: f64) -> Result<bool, StepError> {
        let m = self.tree.n_constraints();
        if self.is_penalty() || m == 0 || self.w.lu_dep.min_pivot >= REPARTITION * self.state.pivot_reference {
            return Ok(false);
        }
        self.choose_partition(t)
    }

    /// Chooses the independent coordinates by full pivoting on the Phi_z in `w` (\[Jaiswal2021\]
    /// Sects. 2.2, 6.1); the best pivot becomes the reference for [`REPARTITION`]. True if
    /// the partition changed.
    pub(super) fn choose_partition(&mut self, t: f64) -> Result<bool, StepError> {
        let (n, m) = (self.tree.n_coordinates(), self.tree.n_constraints());
        let w = &mut self.w;
        w.scratch_phiz.copy_from_slice(&w.phiz);
        let best = full_pivoting(&mut w.scratch_phiz, m, n, &mut w.dep_best, &mut w.ind_best);
        if best == 0.0 {
            return Err(StepError::Singular {
                time: t,
                detail: "the loop-closure Jacobian Phi_z is rank deficient (redundant constraints or a singular configuration)"
                    .into(),
            });
        }
        self.state.pivot_reference = best;
        if w.ind_best == self.state.independent {
            return Ok(false);
        }
        self.state.independent.clone_from(&w.ind_best);
        self.state.partitions += 1;
        // A tangent in the old partition's unknowns is none in the new one's.
        self.state.tangent.forget();
        Ok(true)
    }

    /// The converged step's state: dependent coordinates or projections, rates, hydraulics,
    /// work; committed to `state`. The positions and Phi_z of the last residual stand for the
    /// converged coordinates if those moved by less than [`NEGLIGIBLE`] of the tolerance.
    /// `keep` says what becomes of the Newton tangent the step used.
    fn finalize(&mut self, s: Step, keep: Keep) -> Result<(), StepError> {
        let m = self.tree.n_constraints();
        let penalty = self.is_penalty();
        self.load_unknowns(s);
        let at_evaluation = self.w.at_residual && self.w.lag() <= NEGLIGIBLE * self.settings.tolerance;
        if penalty && m > 0 {
            self.project(s, at_evaluation)?;
        } else if at_evaluation && m > 0 {
            self.move_dependent_rates(s);
        } else if m > 0 {
            self.solve_positions(s.t)?;
            self.dependent_rates();
        } else {
            let w = &mut self.w;
            if !at_evaluation {
                w.positions(&self.tree);
            }
            self.tree.velocities(&w.zd, &mut w.kin);
            self.tree.accelerations(&w.zd, &w.zdd, &mut w.kin);
        }
        // Only the power: the wrenches are formed afresh by every residual.
        let power = self.applied(s.t, false)?;
        self.tree.gimbal_check(s.t, &self.w.z)?;
        // The last fallible part: the state is committed only after it.
        let repartitioned = self.review_partition(s.t)?;
        // Work: trapezoidal rule on the power of the non-conservative forces.
        let st = &mut self.state;
        let w = &mut self.w;
        st.work += 0.5 * s.dt * (self.power + power);
        // The cylinders' work (the motors' strokes follow them and book only in the total).
        for (c, stroke) in w.strokes.iter().take(st.cylinder_work.len()).enumerate() {
            let p1 = w.forces[c] * stroke.velocity;
            st.cylinder_work[c] += 0.5 * s.dt * (self.cylinder_power[c] + p1);
        }
        let st = &mut self.state;
        let w = &mut self.w;
        st.t = s.t;
        for i in 0..st.p.len() {
            st.pdd[i] = (w.pd[i] - st.pd[i]) / s.dt;
        }
        // Swapped, not copied: every step writes these scratch vectors afresh (predictor,
        // trapezoidal rates, spools) before reading them.
        std::mem::swap(&mut st.z, &mut w.z);
        std::mem::swap(&mut st.zd, &mut w.zd);
        std::mem::swap(&mut st.zdd, &mut w.zdd);
        if penalty {
            st.multipliers.record(&st.lambda, s.dt);
        }
        std::mem::swap(&mut st.lambda, &mut w.lambda);
        std::mem::swap(&mut st.p, &mut w.p);
        std::mem::swap(&mut st.pd, &mut w.pd);
        std::mem::swap(&mut st.spools, &mut w.spools);
        std::mem::swap(&mut st.references, &mut w.references);
        let tangent = &mut st.tangent;
        match keep {
            // Forgotten with the old partition (`choose_partition`).
            _ if repartitioned => {}
            Keep::Nothing => tangent.forget(),
            Keep::Kept => tangent.age += 1,
            Keep::Formed => {
                // `w.tangent` and `w.amat` are formed or copied afresh before a step reads them.
                std::mem::swap(&mut tangent.lu, &mut w.tangent);
                if penalty {
                    std::mem::swap(&mut tangent.amat, &mut w.amat);
                }
                tangent.dt = s.dt;
                tangent.age = 0;
            }
        }
        self.store_cache(power);
        // Spherical tree joints near gimbal lock continue in a new chart (`chart.rs`).
        self.rebase_charts(s.t)?;
        Ok(())
    }

    /// Penalty formulation after convergence: last multiplier update (eq. 19) and the
    /// mass-damping-stiffness-orthogonal projections of velocities and accelerations
    /// (eqs. 20-21) with W = M' + dt/2 C + dt^2/4 K.
    fn project(&mut self, s: Step, at_evaluation: bool) -> Result<(), StepError> {
        let n = self.tree.n_coordinates();
        let m = self.tree.n_constraints();
        let alpha = self.settings.penalty;
        self.w.penalty_constraints(&self.tree, at_evaluation);
        self.w.update_multipliers(alpha);
        // W = M' + dt/2 C + dt^2/4 K, from this step's closed-form tangent if there is one
        // (formed at the predictor), else at the converged point (with the unprojected rates
        // for the cylinders' strokes).
        if !self.w.amat_fresh {
            self.tree.velocities(&self.w.zd, &mut self.w.kin);
            self.cylinder_strokes(s.t);
            self.mechanical_matrix(s, false)?;
        }
        let h4 = 0.25 * s.dt * s.dt;
        let w = &mut self.w;
        // A = W + dt^2/4 alpha Phi_z^T Phi_z.
        w.projection.a.copy_from_slice(&w.amat);
        add_gram(&w.phiz, &self.tree.row_columns, n, h4 * alpha, &mut w.projection.a, n);
        if !w.projection.factor() {
            return Err(StepError::Singular { time: s.t, detail: "projection matrix of eqs. (20)-(21)".into() });
        }
        // Eq. (20): A z' = W z'*.
        mat_vec(&w.amat, &w.zd, &mut w.tmp_n[..n]);
        w.projection.solve(&mut w.tmp_n, &mut w.tmp_n2);
        copy_small(&mut w.zd, &w.tmp_n[..n]);
        // Eq. (21): A z'' = W z''* - dt^2/4 Phi_z^T alpha (Phi_z' z'), with Phi_z' z' from the
        // accelerations at z'' = 0.
        mat_vec(&w.amat, &w.zdd, &mut w.tmp_n[..n]);
        self.tree.velocities(&w.zd, &mut w.kin);
        zero_small(&mut w.tmp_n2[..n]);
        self.tree.accelerations(&w.zd, &w.tmp_n2[..n], &mut w.kin);
        for (r, cut) in self.tree.cuts.iter().enumerate() {
            w.tmp_m[r] = g_dot_acc(&w.kin, &w.rows[r]) + cut.kappa(&w.kin);
        }
        // Phi_z^T (Phi_z' z') summed from -0, as an iterator's sum.
        let products = &mut w.tmp_n2[..n];
        products.fill(-0.0);
        add_phiz_transpose(&w.phiz, &w.tmp_m[..m], products);
        for (t, p) in w.tmp_n[..n].iter_mut().zip(products.iter()) {
            *t -= h4 * alpha * p;
        }
        w.projection.solve(&mut w.tmp_n, &mut w.tmp_n2);
        copy_small(&mut w.zdd, &w.tmp_n[..n]);
        // `kin` holds the accelerations at z'' = 0.
        self.tree.add_accelerations(&w.zdd, &mut w.kin, &mut w.deltas);
        Ok(())
    }

    /// Moves the state along its Taylor expansion for a step too short to solve (e.g. the
    /// 2e-14 s a master's time arithmetic leaves): dividing round-off by dt^2 in eq. (33)
    /// would spoil the rates.
    pub fn drift(&mut self, t1: f64) -> Result<(), StepError> {
        let dt = t1 - self.state.t;
        if !(dt.is_finite() && dt > 0.0) {
            return Err(StepError::BadStep { time: self.state.t, h: dt });
        }
        let t0 = self.state.t;
        self.advance_spools(t0, t1);
        let st = &mut self.state;
        for j in 0..st.z.len() {
            st.z[j] += st.zd[j] * dt + 0.5 * st.zdd[j] * dt * dt;
            st.zd[j] += st.zdd[j] * dt;
        }
        for (p, pd) in st.p.iter_mut().zip(&st.pd) {
            *p += pd * dt;
        }
        st.kin_z.copy_from_slice(&st.z);
        // The multipliers stay; their history no longer fits the steps.
        st.multipliers.forget();
        st.spools.copy_from_slice(&self.w.spools);
        st.references.copy_from_slice(&self.w.references);
        st.work += self.power * dt;
        for (wk, pw) in st.cylinder_work.iter_mut().zip(&self.cylinder_power) {
            *wk += pw * dt;
        }
        st.t = t1;
        self.refresh().map_err(|e| StepError::Model { time: t1, what: e })
    }
}

/// What a converged step leaves of its Newton tangent to the next step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Keep {
    /// None (the step needed more than one iteration, or the tangent is numerical).
    Nothing,
    /// The one it formed.
    Formed,
    /// The one it was given, one step older.
    Kept,
}

/// out = x0 + x0' dt + x0'' dt^2 / 2 (the predictor; with the length a constant up to 8 the
/// loop unrolls, the same operations in the same order).
fn taylor(out: &mut [f64], x0: &[f64], xd0: &[f64], xdd0: &[f64], dt: f64) {
    let one = |x0: f64, xd0: f64, xdd0: f64| x0 + xd0 * dt + 0.5 * xdd0 * dt * dt;
    constant_size!(out.len(),
    N => {
        let out: &mut [f64; N] = out.try_into().expect("N entries");
        let fixed = |x: &[f64]| -> [f64; N] { x[..N].try_into().expect("N entries") };
        let (x0, xd0, xdd0) = (fixed(x0), fixed(xd0), fixed(xdd0));
        for j in 0..N {
            out[j] = one(x0[j], xd0[j], xdd0[j]);
        }
    },
    _ => {
        for (o, (&x0, (&xd0, &xdd0))) in out.iter_mut().zip(x0.iter().zip(xd0.iter().zip(xdd0))) {
            *o = one(x0, xd0, xdd0);
        }
    })
}

/// out = A v for the row-major square `a` (out.len() rows), each entry summed over the row in
/// order. Up to 8 coordinates the size is a constant, so the loops unroll (the same operations
/// in the same order; callgrind, the quick-return's penalty cycle: 233 -> 91 instructions per
/// product of 5 x 5).
fn mat_vec(a: &[f64], v: &[f64], out: &mut [f64]) {
    constant_size!(out.len(),
    N => mat_vec_fixed::<N>(a, v, out),
    _ => {
        let n = out.len();
        for (o, row) in out.iter_mut().zip(a.chunks_exact(n.max(1))) {
            *o = row.iter().zip(&v[..n]).map(|(a, v)| a * v).sum();
        }
    })
}

/// [`mat_vec`] for the constant size `N`.
#[inline(always)]
fn mat_vec_fixed<const N: usize>(a: &[f64], v: &[f64], out: &mut [f64]) {
    let v: &[f64; N] = v[..N].try_into().expect("N entries");
    for (o, row) in out.iter_mut().zip(a[..N * N].chunks_exact(N)) {
        let row: &[f64; N] = row.try_into().expect("rows of N entries");
        *o = row.iter().zip(v).map(|(a, v)| a * v).sum();
    }
}

/// out = -f over out.len() entries. Up to 8 unknowns the size is a constant, so the loop
/// unrolls.
fn negate(out: &mut [f64], f: &[f64]) {
    constant_size!(out.len(),
    N => {
        let (out, f): (&mut [f64; N], &[f64; N]) =
            (out.try_into().expect("N entries"), f[..N].try_into().expect("N entries"));
        for i in 0..N {
            out[i] = -f[i];
        }
    },
    _ => {
        for (o, f) in out.iter_mut().zip(f) {
            *o = -f;
        }
    })
}

/// Max norms of a Newton correction over the coordinates (the first `nm` unknowns) and over
/// the pressures, and of the unknowns after it.
#[derive(Clone, Copy, Debug, Default)]
struct Norms {
    dz: f64,
    dp: f64,
    xz: f64,
    xp: f64,
}

/// x += d with the norms of both (each the fold of `max_abs`: NaN entries are passed over, as
/// there). Up to 8 unknowns the size is a constant, so the loop unrolls (with [`negate`],
/// callgrind over the cycles: 270 and 130 fewer instructions per step than the separate
/// passes in the penalty formulation, four-bar and quick-return, 122 and 92 in double-step).
fn correct(x: &mut [f64], d: &[f64], nm: usize) -> Norms {
    constant_size!(x.len(),
    N => correct_fixed::<N>(x.try_into().expect("N unknowns"), d, nm),
    _ => {
        let mut norms = Norms::default();
        for (i, (x, d)) in x.iter_mut().zip(d).enumerate() {
            *x += d;
            norms.add(i < nm, *x, *d);
        }
        norms
    })
}

#[inline(always)]
fn correct_fixed<const N: usize>(x: &mut [f64; N], d: &[f64], nm: usize) -> Norms {
    let d: &[f64; N] = d[..N].try_into().expect("N corrections");
    let mut norms = Norms::default();
    for i in 0..N {
        x[i] += d[i];
        norms.add(i < nm, x[i], d[i]);
    }
    norms
}

impl Norms {
    /// As `a.max(|v|)` from a = 0 (a NaN v leaves a), with a comparison.
    #[inline(always)]
    fn add(&mut self, coordinate: bool, x: f64, d: f64) {
        let raise = |a: &mut f64, v: f64| {
            if v.abs() > *a {
                *a = v.abs();
            }
        };
        if coordinate {
            raise(&mut self.dz, d);
            raise(&mut self.xz, x);
        } else {
            raise(&mut self.dp, d);
            raise(&mut self.xp, x);
        }
    }
}
