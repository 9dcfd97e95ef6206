//! The explicit Runge-Kutta methods on the semirecursive formulations' ODE: the double-step
//! equations in the independent coordinates with the circuit (`ode.rs`, the ODE Model
//! Exchange offers), stepped by [`ExplicitOde`] in co-simulation. Both `solver.formulation`
//! items give this ODE; the penalty treatment belongs to the trapezoidal step.
//!
//! Each advance starts from the co-simulation state: the ODE view reads it, steps, and leaves
//! its last accepted point committed as that state (with the step-size proposal, so that a
//! snapshot continues as the run would). With dense output the DOPRI5 and DOP853 steps pass
//! the communication point and the state committed there is the interpolated one
//! \[HairerNorsettWanner1993, Sect. II.6, II.10\]; the step past it stays pending in the
//! state (`SemiState::dense`, in snapshots and checkpoints) and the next advance continues it,
//! unless an input changed at the point (then the run restarts from the committed state, as
//! after a step shortened to land there). `auto` integrates with DOP853 and, once the steps
//! are limited by stability \[HairerWanner1996, Sect. IV.2\], with the trapezoidal rule of
//! \[Jaiswal2021, Sect. 4\] for the rest of the run. Models with a circuit offer the trapezoidal
//! rule only (their pressure dynamics are stiff from the start).

use super::Semirecursive;
use crate::formulation::{equal_sub_steps, Meter, Progress, StepCounters};
use crate::integrators::explicit::{self, Explicit};
use crate::integrators::{Advance, Outcome, StepError};
use mbfmu_model::format::Method;

/// The tableau a method steps the ODE with; None for the trapezoidal rule. (A model with a
/// circuit offers the trapezoidal rule only: `Method::holds_circuits`.)
pub(super) fn tableau(method: Method) -> Option<&'static Explicit> {
    match method {
        Method::Auto => Some(&explicit::DOP853),
        m => explicit::of(m),
    }
}

impl Semirecursive {
    /// True while an explicit method integrates (not yet switched to the trapezoidal rule).
    pub(super) fn explicit_in_use(&self) -> bool {
        self.explicit.is_some() && !self.state.stiff
    }

    /// Advances to `t_end` with the explicit method, each step attempt charged to `meter`;
    /// `auto` goes on with the trapezoidal rule where it finds the problem stiff. On error the
    /// state is the last accepted step.
    pub(super) fn explicit_advance(
        &mut self,
        t_end: f64,
        counters: &mut StepCounters,
        meter: &mut Meter,
    ) -> Result<Progress, StepError> {
        let mut stepper = self.explicit.take().expect("an explicit method has its stages");
        // The view reads the co-simulation state (it may have been restored or rolled back).
        self.ode.active = false;
        self.activate();
        let t0 = self.state.t;
        let mut h_next = self.state.h_next;
        let settings = self.settings;
        let mut stiffness = self.state.stiffness;
        let test = (settings.method == Method::Auto).then_some(&mut stiffness);
        let run = Advance { t0, t_end, step_size: settings.step_size, control: &settings.control };
        // The pending step moves out of the state while the ODE view steps (no copy).
        let mut dense = std::mem::take(&mut self.state.dense);
        let result = stepper.advance(
            self,
            &run,
            &mut h_next,
            counters,
            meter,
            test,
            Some(&mut dense).filter(|_| settings.control.dense_output),
        );
        self.state.dense = dense;
        self.state.stiffness = stiffness;
        self.state.h_next = h_next;
        self.ode.active = false;
        self.explicit = Some(stepper);
        match result? {
            Outcome::Progress(progress) => Ok(progress),
            Outcome::Stiff { time, h_lambda } => {
                self.state.stiff = true;
                self.notice = Some(format!(
                    "solver.method auto: the problem became stiff at t = {time} (step times the dominant eigenvalue \
                     estimated at {h_lambda:.2}, DOP853's stability boundary {}), so the trapezoidal rule at \
                     solver.stepSize = {} integrates from here on",
                    explicit::DOP853.stability_boundary,
                    settings.step_size
                ));
                equal_sub_steps(self, t_end, counters, meter)
            }
        }
    }

    /// One step of the explicit method to `target` (no farther than the step size).
    pub(super) fn explicit_step(&mut self, target: f64) -> Result<(), StepError> {
        let mut counters = StepCounters::default();
        match self.explicit_advance(target, &mut counters, &mut Meter::unlimited())? {
            Progress::Reached => Ok(()),
            Progress::Budget => Err(StepError::BadStep { time: self.state.t, h: target - self.state.t }),
        }
    }

    /// What the importer's log should hear, once.
    pub(super) fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }
}
