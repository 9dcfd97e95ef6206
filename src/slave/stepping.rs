//! The doStep contract: communication points, the stop time, the step budget
//! (`solver.maxStepsPerCall`), sub-stepping, and the same step taken one internal step at a
//! time for FMI 3 intermediate updates (FMI 3.0 Sect. 4.2.2: the FMU calls back at its
//! internal step times; the importer may set inputs and read outputs there).

use super::{close_in_time, Phase, Slave, SlaveError};
use mbfmu_engine::integrators::StepError;
use mbfmu_engine::{Progress, SubSteps};

/// A communication step in progress, taken one internal step at a time ([`Slave::step_once`]).
#[derive(Debug)]
pub struct StepInProgress {
    t: f64,
    target: f64,
    /// Internal steps (attempts, for variable-step methods) the step may take.
    limit: u64,
    /// The equal sub-steps of the uninterrupted advance, so that both land on the same times;
    /// planned at the first internal step taken one at a time ([`Slave::step_once`]: an
    /// uninterrupted advance plans its own).
    plan: Plan,
    taken: u64,
    floor_before: u64,
}

/// How the internal steps of a communication step taken one at a time fall.
#[derive(Debug)]
enum Plan {
    /// Not planned yet.
    Pending,
    /// Equal sub-steps.
    Equal(SubSteps),
    /// The formulation chooses its own steps: one attempt per call.
    Own,
}

impl StepInProgress {
    /// The end of the communication step.
    pub fn target(&self) -> f64 {
        self.target
    }
}

impl Slave {
    /// Advances from `t` (must equal the slave's time) by `h`.
    pub fn do_step(&mut self, t: f64, h: f64) -> Result<(), SlaveError> {
        let Some(step) = self.begin_step(t, h)? else { return Ok(()) };
        let sim = self.sim.as_mut().expect("built at exit of initialization");
        let result = sim.advance_within(step.target, step.limit);
        self.end_step(&step, result)
    }

    /// Checks the arguments of a doStep from `t` by `h` and prepares it; None for a step
    /// within the time tolerance, which only moves the clock (OMSimulator ends runs with a
    /// ~2e-14 s step; an internal step that short corrupts the multipliers).
    pub fn begin_step(&mut self, t: f64, h: f64) -> Result<Option<StepInProgress>, SlaveError> {
        if self.phase != Phase::Running {
            return Err(SlaveError::WrongPhase { operation: "doStep", phase: self.phase });
        }
        if !close_in_time(t, self.time) {
            return Err(SlaveError::CommunicationPoint { expected: self.time, got: t });
        }
        if !h.is_finite() || h < 0.0 {
            return Err(SlaveError::BadStepSize { h, reason: "must be a finite number >= 0".into() });
        }
        let target = t + h;
        if let Some(stop) = self.stop_time {
            if target > stop && !close_in_time(target, stop) {
                return Err(SlaveError::BadStepSize {
                    h,
                    reason: format!("the step ends at {target}, after the stop time {stop}"),
                });
            }
        }
        if close_in_time(target, self.time) {
            self.time = target;
            // The step the input derivatives were set for is over.
            self.hold_inputs()?;
            return Ok(None);
        }
        self.state_changed();
        // Bounded work per call: at most solver.maxStepsPerCall internal steps.
        let limit = self.max_steps_vr.map_or(u64::MAX, |vr| self.values[vr as usize] as u64);
        let sim = self.sim.as_ref().expect("built at exit of initialization");
        let floor_before = sim.floor_count();
        Ok(Some(StepInProgress { t, target, limit, plan: Plan::Pending, taken: 0, floor_before }))
    }

    /// The next internal step of `step`: Ok((time reached, true)) when the communication step
    /// is complete, Ok((time, false)) at an intermediate time, where the outputs are those of
    /// the finished internal step and inputs set now hold from this time on. Errors as
    /// [`Slave::do_step`].
    pub fn step_once(&mut self, step: &mut StepInProgress) -> Result<(f64, bool), SlaveError> {
        let sim = self.sim.as_mut().expect("built at exit of initialization");
        let start = sim.time();
        if let Plan::Pending = step.plan {
            step.plan = match sim.sub_steps(step.target, step.limit) {
                Ok(Some(plan)) => Plan::Equal(plan),
                Ok(None) => Plan::Own,
                Err(error) => return Err(SlaveError::Step { error, reached: self.time }),
            };
        }
        // Until the time moves (a variable-step method may reject attempts) or the step ends.
        let outcome = loop {
            if step.taken >= step.limit {
                break Ok(Progress::Budget);
            }
            step.taken += 1;
            let reached = match &mut step.plan {
                Plan::Equal(plan) => {
                    let target = plan.next_target().unwrap_or(step.target);
                    sim.step_to(target).map(|()| {
                        plan.advance();
                        plan.next_target().is_none()
                    })
                }
                // One attempt; Budget means it ended short of the target.
                Plan::Own | Plan::Pending => sim.advance_within(step.target, 1).map(|p| p == Progress::Reached),
            };
            match reached {
                Ok(false) if sim.time() == start => continue,
                Ok(false) => {
                    self.time = sim.time();
                    self.state_changed();
                    return Ok((self.time, false));
                }
                Ok(true) => break Ok(Progress::Reached),
                Err(e) => break Err(e),
            }
        };
        self.end_step(step, outcome).map(|()| (self.time, true))
    }

    /// Concludes a communication step with the result of its advance: the time, the inputs
    /// held for the next step, the notes on Newton solves at the round-off floor and on the
    /// solver's choices (`auto` switching methods).
    fn end_step(&mut self, step: &StepInProgress, result: Result<Progress, StepError>) -> Result<(), SlaveError> {
        if let Some(text) = self.sim.as_mut().and_then(|sim| sim.take_notice()) {
            self.note("logStatusInfo", format!("doStep from {}: {text}", step.t));
        }
        let sim = self.sim.as_ref().expect("built at exit of initialization");
        if sim.floor_count() > step.floor_before {
            let floor = sim.floor_report();
            self.note(
                "logNonlinearSystems",
                format!(
                    "doStep from {}: {} Newton solve(s) stagnated at the round-off floor and were accepted as \
                     converged (the last at t = {}, its correction {:.3} times solver.tolerance scaled to the \
                     unknowns; accepted up to {} times)",
                    step.t,
                    floor.count - step.floor_before,
                    floor.time,
                    floor.ratio,
                    mbfmu_engine::integrators::convergence::FLOOR_BAND
                ),
            );
        }
        self.state_changed();
        let reached = self.sim.as_ref().expect("built at exit of initialization").time();
        match result {
            Ok(Progress::Reached) => {
                self.time = step.target;
                self.hold_inputs()
            }
            Ok(Progress::Budget) => {
                self.time = reached;
                Err(SlaveError::StepBudget { target: step.target, reached, limit: step.limit })
            }
            Err(error) => {
                self.time = reached;
                Err(SlaveError::Step { error, reached })
            }
        }
    }
}
