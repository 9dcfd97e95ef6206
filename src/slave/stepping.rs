//! The doStep contract: communication points, the stop time, the budget of internal steps
//! (`solver.maxStepsPerCall`) and of work (`solver.maxWorkPerCall`, counted by the engine's
//! [`Meter`]: model evaluations weighted by the system's size), sub-stepping, and the same step taken one internal step at a
//! time for FMI 3 intermediate updates (FMI 3.0 Sect. 4.2.2: the FMU calls back at its
//! internal step times; the importer may set inputs and read outputs there).

use super::{close_in_time, Phase, Slave, SlaveError};
use mbfmu_engine::integrators::StepError;
use mbfmu_engine::{Budget, Meter, Progress, SubSteps};

/// A communication step in progress, taken one internal step at a time ([`Slave::step_once`]).
#[derive(Debug)]
pub struct StepInProgress {
    t: f64,
    target: f64,
    /// What the step may spend (internal steps, attempts for variable-step methods, and
    /// work) and has spent.
    meter: Meter,
    /// The equal sub-steps of the uninterrupted advance, so that both land on the same times;
    /// planned at the first internal step taken one at a time ([`Slave::step_once`]: an
    /// uninterrupted advance plans its own).
    plan: Plan,
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
        let Some(mut step) = self.begin_step(t, h)? else { return Ok(()) };
        let sim = self.sim.as_mut().expect("built at exit of initialization");
        let result = sim.advance_metered(step.target, &mut step.meter);
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
        // Bounded work per call: at most solver.maxStepsPerCall internal steps and
        // solver.maxWorkPerCall work units (a value beyond u64 saturates, NaN is refused by
        // the parameter's checks).
        let limit = |vr: Option<u32>| vr.map_or(u64::MAX, |vr| self.values[vr as usize] as u64);
        let budget = Budget { steps: limit(self.max_steps_vr), work: limit(self.max_work_vr) };
        let sim = self.sim.as_mut().expect("built at exit of initialization");
        sim.begin_communication_step();
        let floor_before = sim.floor_count();
        let meter = sim.meter(budget);
        Ok(Some(StepInProgress { t, target, meter, plan: Plan::Pending, floor_before }))
    }

    /// The next internal step of `step`: Ok((time reached, true)) when the communication step
    /// is complete, Ok((time, false)) at an intermediate time, where the outputs are those of
    /// the finished internal step and inputs set now hold from this time on. Errors as
    /// [`Slave::do_step`].
    pub fn step_once(&mut self, step: &mut StepInProgress) -> Result<(f64, bool), SlaveError> {
        let sim = self.sim.as_mut().expect("built at exit of initialization");
        let start = sim.time();
        if let Plan::Pending = step.plan {
            step.plan = match sim.sub_steps(step.target, step.meter.budget()) {
                Ok(Some(plan)) => Plan::Equal(plan),
                Ok(None) => Plan::Own,
                Err(error) => return Err(SlaveError::Step { error, reached: self.time }),
            };
        }
        // Until the time moves (a variable-step method may reject attempts) or the step ends.
        let outcome = loop {
            if step.meter.exhausted().is_some() {
                break Ok(Progress::Budget);
            }
            let reached = match &mut step.plan {
                Plan::Equal(plan) => {
                    let target = plan.next_target().unwrap_or(step.target);
                    sim.step_to(target, &mut step.meter).map(|()| {
                        plan.advance();
                        plan.next_target().is_none()
                    })
                }
                // One attempt (a meter of what is left, with one step); Budget means it ended
                // short of the target.
                Plan::Own | Plan::Pending => {
                    let mut one = step.meter.one_step();
                    let progress = sim.advance_metered(step.target, &mut one);
                    step.meter.absorb(&one);
                    progress.map(|p| p == Progress::Reached)
                }
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
                let limit = step.meter.exhausted().unwrap_or(mbfmu_engine::Limit::Steps);
                Err(SlaveError::StepBudget { target: step.target, reached, limit, meter: step.meter })
            }
            Err(error) => {
                self.time = reached;
                Err(SlaveError::Step { error, reached })
            }
        }
    }
}
