//! The state-space formulation of \[Negrut1997\]: generalized coordinate partitioning (Sect. 1,
//! eqs. 1-13) turns the index-3 DAE of any mechanism description into an ODE in the
//! independent coordinates v and velocities v', integrated by \[Negrut1997\]'s methods
//! (Sect. 2-3): the implicit trapezoidal rule at constant and variable step with Newton on
//! the independent accelerations (eqs. 14-22), the explicit Adams-Bashforth-Moulton scheme
//! (eq. 20), and Hairer and Wanner's SDIRK4 at variable step; and the explicit Runge-Kutta
//! methods RK4, DOPRI5 and DOP853 (`integrators::explicit`). The same ODE is what a Model Exchange host
//! integrates.
//!
//! - [`chart`]: generalized coordinates with rotation-vector charts;
//! - [`partition`]: independent coordinates by LU with full pivoting of Phi_q;
//! - `reduced`: dependent positions, velocities, accelerations, multipliers and the reduced
//!   residual (eqs. 5-14);
//! - `methods`: the integrators and the step-size controller;
//! - `formulation`: [`StateSpaceFormulation`], the formulation behind
//!   [`crate::Formulation`], and its Model Exchange view.
//!
//! The partition (and the charts, re-centred at the same time) is re-chosen after a step
//! when Phi_u has become ill-conditioned (the pivot ratio of its LU grew by
//! [`CONDITION_GROWTH`] since the partition was chosen) or a chart angle exceeds
//! [`CHART_LIMIT`].

pub mod chart;
pub mod formulation;
mod methods;
mod ode_partials;
pub mod partition;
mod reduced;
pub mod sdirk;

pub use chart::Chart;
pub use formulation::{StateSpaceFormulation, StateSpaceSnapshot};
pub use partition::{coordinate_name, Partition};

use crate::index3::{MechState, Mechanism};
use crate::integrators::dense::{DenseStep, MAX_EXTENDED_STAGES};
use crate::integrators::{FloorReport, NewtonSettings, StepError};
use crate::linalg::DenseLu;
use crate::settings::ErrorControl;
use faer::Mat;
use mbfmu_model::format::Method;
use reduced::Reduced;
use serde::{Deserialize, Serialize};

/// Largest chart angle |theta| \[rad\] before the charts are re-centred.
pub const CHART_LIMIT: f64 = 1.5;
/// Growth of the pivot ratio of Phi_u over its value at the choice of the partition that
/// makes the partition ill-conditioned.
pub const CONDITION_GROWTH: f64 = 10.0;

/// Step and iteration counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Accepted steps (ME: completed integrator steps).
    pub steps: u64,
    /// Rejected step attempts of the variable-step methods.
    pub rejected: u64,
    /// Partitions chosen after the first one.
    pub repartitions: u64,
    pub last_iterations: u32,
    pub total_iterations: u64,
}

/// `auto`'s choice: DOP853 until the stiffness test proves the problem stiff
/// (\[HairerWanner1996, Sect. IV.2\]), then SDIRK4 for the rest of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoSwitch {
    pub stiff: bool,
    pub test: crate::integrators::StiffnessTest,
}

/// The Newton iteration matrix of eq. 19, M_hat + gamma h dPsi/dv' + beta h^2 dPsi/dv, with
/// the numerical derivatives kept over steps until convergence slows down.
struct IterationMatrix {
    d_v: Mat<f64>,
    d_vd: Mat<f64>,
    lu: DenseLu,
    stale: bool,
}

/// One mechanism in the state-space formulation with its integrator.
pub struct StateSpace {
    method: Method,
    control: ErrorControl,
    red: Reduced,
    chart: Chart,
    /// The last accepted (co-simulation) or completed (Model Exchange) state: where the next
    /// step starts.
    base: MechState,
    /// The state at the current point (= `base` after a co-simulation step; Model Exchange:
    /// the state at the host's time and continuous states).
    current: MechState,
    /// ODE state [v; v'] and the independent accelerations v'' at the current point.
    y: Vec<f64>,
    a: Vec<f64>,
    v: Vec<f64>,
    vd: Vec<f64>,
    y_new: Vec<f64>,
    a_new: Vec<f64>,
    tv: Vec<f64>,
    tvd: Vec<f64>,
    da: Vec<f64>,
    err: Vec<f64>,
    scratch: Vec<f64>,
    stage_a: Vec<Vec<f64>>,
    stage_vd: Vec<Vec<f64>>,
    jac: IterationMatrix,
    /// Step the controller proposes next (variable-step methods); 0 before the first step.
    h_next: f64,
    auto: AutoSwitch,
    /// The last explicit step's stiffness estimate h |lambda| (0 where it has none).
    h_lambda: f64,
    /// What the importer's log should hear (`auto` switching), once.
    notice: Option<String>,
    /// The explicit pairs' step past the communication point, pending (`methods`).
    dense: DenseStep,
    /// Pivot ratio of Phi_u when the partition was chosen.
    kappa0: f64,
    /// Model Exchange: the host moved the current point (time, states, inputs) since `current`
    /// was computed.
    stale: bool,
    /// The reduced equations hold the evaluation of `current` (false after a restore and
    /// during step attempts).
    evaluated: bool,
    pub counters: Counters,
    /// Stage solves accepted at the round-off floor (cumulative, not in snapshots).
    pub floor: FloorReport,
}

impl std::fmt::Debug for StateSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateSpace").field("method", &self.method).field("reduced", &self.red).finish()
    }
}

fn rank_error(mech: &Mechanism, t: f64, e: &partition::RankDeficient) -> StepError {
    StepError::Singular {
        time: t,
        detail: format!(
            "no coordinate partition exists: the constraints are dependent near {} (relative pivot {:.1e}); remove redundant joints",
            mech.constraints.get(e.row).map_or("?", |c| c.label.as_str()),
            e.relative_pivot
        ),
    }
}

/// The largest distance from a body's centre of mass to one of its joint points [m] (1 if
/// there is none): the length that makes rotation columns comparable with translation
/// columns when the partition is chosen.
fn lever_arm(mech: &Mechanism) -> f64 {
    let l = mech
        .joints
        .iter()
        .flat_map(|j| j.pair.iter().zip(&j.points).filter(|(b, _)| b.is_some()).map(|(_, p)| p.norm()))
        .fold(0.0, f64::max);
    if l > 0.0 {
        l
    } else {
        1.0
    }
}

impl StateSpace {
    /// Starts from an assembled (consistent) state: charts centred at it, the first
    /// partition, and the independent accelerations of the ODE.
    pub fn new(
        mech: &Mechanism,
        state: MechState,
        method: Method,
        control: ErrorControl,
        newton: &NewtonSettings,
    ) -> Result<StateSpace, StepError> {
        let (n, m) = (6 * mech.n_bodies(), mech.n_constraints());
        if m > n {
            return Err(StepError::Singular {
                time: state.t,
                detail: format!("{m} constraints on {n} coordinates: the mechanism is over-constrained"),
            });
        }
        let nd = n - m;
        let trivial = Partition { dependent: (0..m).collect(), independent: (m..n).collect() };
        let red = Reduced::new(mech, trivial, &state.bodies);
        // The SDIRK stages, or the explicit methods' stages, their new point and the extra
        // stages of DOP853's dense output.
        let stages = sdirk::STAGES.max(crate::integrators::explicit::MAX_STAGES + 1).max(MAX_EXTENDED_STAGES);
        let dense = match crate::integrators::explicit::of(if method == Method::Auto { Method::Dop853 } else { method })
        {
            Some(m) if m.dense.is_some() => DenseStep::new(2 * nd),
            _ => DenseStep::default(),
        };
        let mut s = StateSpace {
            method,
            control,
            red,
            chart: Chart::centred_at(&state.bodies),
            base: state.clone(),
            current: state,
            y: vec![0.0; 2 * nd],
            a: vec![0.0; nd],
            v: vec![0.0; nd],
            vd: vec![0.0; nd],
            y_new: vec![0.0; 2 * nd],
            a_new: vec![0.0; nd],
            tv: vec![0.0; nd],
            tvd: vec![0.0; nd],
            da: vec![0.0; nd],
            err: vec![0.0; 2 * nd],
            scratch: vec![0.0; nd],
            stage_a: vec![vec![0.0; nd]; stages],
            stage_vd: vec![vec![0.0; nd]; stages],
            jac: IterationMatrix {
                d_v: Mat::zeros(nd, nd),
                d_vd: Mat::zeros(nd, nd),
                lu: DenseLu::new(nd, 1),
                stale: true,
            },
            h_next: 0.0,
            auto: AutoSwitch::default(),
            h_lambda: 0.0,
            notice: None,
            dense,
            kappa0: 1.0,
            stale: false,
            evaluated: false,
            counters: Counters::default(),
            floor: FloorReport::default(),
        };
        s.choose_partition(mech, newton)?;
        s.counters.repartitions = 0;
        let t = s.current.t;
        s.red.write_state(mech, t, &s.base, &mut s.current);
        // The assembled state's energy and zero work are the reference of the energy balance.
        s.current.work = s.base.work;
        s.base.clone_from(&s.current);
        s.evaluated = true;
        Ok(s)
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// True if an explicit pair's step past the current (communication) point is pending:
    /// the state is its interpolated point, and the next advance continues the step.
    pub fn dense_pending(&self) -> bool {
        self.dense.pending
    }

    /// The method that integrates now: `auto` is DOP853, then SDIRK4 once it found the
    /// problem stiff.
    pub fn running(&self) -> Method {
        match self.method {
            Method::Auto if self.auto.stiff => Method::Sdirk4,
            Method::Auto => Method::Dop853,
            m => m,
        }
    }

    /// A message for the importer's log (`auto` switching), once.
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    /// The state at the current point.
    pub fn state(&self) -> &MechState {
        &self.current
    }

    pub fn partition(&self) -> &Partition {
        &self.red.partition
    }

    pub fn chart(&self) -> &Chart {
        &self.chart
    }

    /// Number of independent coordinates (degrees of freedom).
    pub fn dof(&self) -> usize {
        self.red.nd
    }

    /// Position-level evaluations (Newton solves for the dependent positions) so far.
    pub fn evaluations(&self) -> u64 {
        self.red.evaluations
    }

    /// Evaluations for the work budget ([`crate::Meter`]) so far: position-level ones and
    /// reduced accelerations (eq. 11), each a factorization of its own.
    pub fn work_evaluations(&self) -> u64 {
        self.red.evaluations + self.red.acceleration_evaluations
    }

    /// Charts centred at the current state, a new partition from the LU with full pivoting of
    /// Phi_q there, the ODE state in the new coordinates and the accelerations of the ODE.
    fn choose_partition(&mut self, mech: &Mechanism, newton: &NewtonSettings) -> Result<(), StepError> {
        let t = self.current.t;
        self.chart = Chart::centred_at(&self.current.bodies);
        let n = self.red.n;
        let (mut q, mut qd, mut qdd) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        self.chart.coordinates(&self.current.bodies, &mut q, &mut qd, &mut qdd);
        let phi_q = self.red.full_jacobian(mech, &self.chart, t, &self.base, &q);
        let p = Partition::choose(phi_q.as_ref(), 0.5 / lever_arm(mech)).map_err(|e| rank_error(mech, t, &e))?;
        let nd = self.red.nd;
        for (c, &j) in p.independent.iter().enumerate() {
            self.y[c] = q[j];
            self.y[nd + c] = qd[j];
        }
        self.red.set_partition(p);
        self.red.set_anchor_to(&q);
        self.red.hold_friction(mech, &self.base);
        self.v.copy_from_slice(&self.y[..nd]);
        self.vd.copy_from_slice(&self.y[nd..]);
        self.red.positions(mech, &self.chart, t, &self.base, &self.v, newton)?;
        self.red.velocities(mech, t, &self.base, &self.vd)?;
        self.red.accelerations(mech, t, &mut self.a)?;
        self.red.set_anchor();
        self.kappa0 = self.red.pivot_ratio();
        self.jac.stale = true;
        self.counters.repartitions += 1;
        self.evaluated = true;
        Ok(())
    }

    /// Conditioning of the current partition, for diagnostics.
    pub fn debug_conditioning(&self) -> String {
        format!(
            "pivot ratio {:.3e} (at choice {:.3e}), largest chart angle {:.3}",
            self.red.pivot_ratio(),
            self.kappa0,
            Chart::largest_angle(&self.red.q)
        )
    }

    /// True when the partition should be re-chosen at the current point.
    fn needs_new_partition(&self) -> bool {
        Chart::largest_angle(&self.red.q) > CHART_LIMIT || self.red.pivot_ratio() > CONDITION_GROWTH * self.kappa0
    }
}
