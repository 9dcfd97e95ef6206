//! The fixed-step co-simulation master that `simulate` and `sweep` share: the communication
//! grid and the loop that steps a slave over it, so that a sweep's run and a `simulate` run
//! of the same parameters make the same calls and give the same numbers.

use crate::args::ExperimentArgs;
use crate::error::{Error, Result};
use crate::fmu::{ReadGroup, Slave, StepOutcome};
use crate::modeldesc::DefaultExperiment;

/// More communication steps than this is almost certainly a typo in --step.
const MAX_STEPS: f64 = 1e9;

/// The communication grid: t_i = start + i * step, the last point exactly at stop.
#[derive(Debug, PartialEq)]
pub struct Grid {
    pub start: f64,
    pub stop: f64,
    pub step: f64,
    pub steps: u64,
    /// The grid in units of the last decimal place of start and step (None when they have
    /// too many decimals to matter).
    decimal: Option<DecimalGrid>,
}

/// Start and step as whole numbers of 10^-d for the d decimal places of start and step:
/// t_i = (start + i * step) / scale is then the decimal number itself, computed exactly.
#[derive(Debug, PartialEq)]
struct DecimalGrid {
    start: f64,
    step: f64,
    scale: f64,
}

impl Grid {
    pub fn new(start: f64, stop: f64, step: f64) -> Result<Grid> {
        for (name, v) in [("start time", start), ("stop time", stop), ("step", step)] {
            if !v.is_finite() {
                return Err(Error::msg(format!("the {name} must be a finite number, got {v}")));
            }
        }
        if stop <= start {
            return Err(Error::msg(format!("the stop time ({stop}) must be greater than the start time ({start})")));
        }
        if step <= 0.0 {
            return Err(Error::msg(format!("the communication step must be positive, got {step}")));
        }
        let ratio = (stop - start) / step;
        if ratio > MAX_STEPS {
            return Err(Error::msg(format!(
                "{ratio:.3e} communication steps of {step} from {start} to {stop} are too many; use a larger --step"
            )));
        }
        // A ratio within rounding of an integer is that integer: 8 / 0.01 is 800 steps, not 801.
        let nearest = ratio.round();
        let steps = if (ratio - nearest).abs() <= 1e-9 * nearest.max(1.0) { nearest } else { ratio.ceil() };
        let decimal = match (decimal_places(start), decimal_places(step)) {
            (Some(a), Some(b)) => {
                let scale = 10f64.powi(a.max(b));
                Some(DecimalGrid { start: (start * scale).round(), step: (step * scale).round(), scale })
            }
            _ => None,
        };
        Ok(Grid { start, stop, step, steps: steps.max(1.0) as u64, decimal })
    }

    /// Communication point i: the decimal number a user expects (0.3, not
    /// 0.30000000000000004), start + i * step in whole units of the last decimal place of
    /// start and step (exact below 2^52 units), divided by the unit's scale once: a
    /// multiply-add and a division per step, where rounding the sum took a library call.
    #[inline]
    pub fn time(&self, i: u64) -> f64 {
        if i >= self.steps {
            return self.stop;
        }
        if let Some(d) = &self.decimal {
            let units = d.start + i as f64 * d.step;
            if units.abs() < 2f64.powi(52) {
                return units / d.scale;
            }
        }
        self.start + i as f64 * self.step
    }
}

impl ExperimentArgs {
    /// The grid and tolerance: the options, else the FMU's DefaultExperiment, else from 0 to
    /// start + 1 in 500 steps without a tolerance.
    pub fn resolve(&self, de: &DefaultExperiment) -> Result<(Grid, Option<f64>)> {
        let start = self.start_time.or(de.start).unwrap_or(0.0);
        let stop = self.stop_time.or(de.stop).unwrap_or(start + 1.0);
        let step = self.step.or(de.step).unwrap_or((stop - start) / 500.0);
        Ok((Grid::new(start, stop, step)?, self.tolerance.or(de.tolerance)))
    }
}

/// Number of decimal places of x's shortest representation, if it has few enough to matter.
fn decimal_places(x: f64) -> Option<i32> {
    let s = format!("{x}");
    let places = s.split_once('.').map_or(0, |(_, frac)| frac.len() as i32);
    (places <= 15).then_some(places)
}

/// How a run over the grid ended.
pub enum Ending {
    /// The stop time was reached.
    Completed,
    /// The FMU asked to end the simulation in the step from `t` (legal; results end at `t`).
    Terminated { t: f64, at: Option<f64> },
    /// The step from `t` to `t_next` returned Discard, Error or Fatal.
    Failed { t: f64, t_next: f64, status: &'static str, last_successful_time: Option<f64> },
    /// Setting inputs, reading outputs or recording a row failed (or a caller stopped the run).
    Error(Error),
}

/// "the FMU returned Discard in the communication step from t = 1 to 1.01; ..."
pub fn step_failure(t: f64, t_next: f64, status: &str, last_successful_time: Option<f64>) -> String {
    let reached_note = match last_successful_time {
        Some(last) => format!("; the FMU reached t = {last} (its last successful time)"),
        None => String::new(),
    };
    format!("the FMU returned {status} in the communication step from t = {t} to {t_next}{reached_note}")
}

/// Why the results of a run that the FMU ended in the step from `t` end at `t`.
pub fn termination_note(t: f64, at: Option<f64>) -> String {
    format!(
        "the FMU ended the simulation during the step from t = {t} (terminateSimulation{}); results end at t = {t}",
        at.map_or(String::new(), |a| format!(", last successful time {a}"))
    )
}

/// Steps `slave` (initialized at `grid.start`) to `grid.stop`. Before the step from t,
/// `before_step(slave, t)` sets inputs; after each completed step to t_next, `row` is read
/// and handed to `after_step(step number from 1, t_next, row)`, whose error ends the run.
/// Returns how the run ended and the last communication point reached.
pub fn step_through(
    slave: &mut dyn Slave,
    grid: &Grid,
    groups: &[ReadGroup],
    row: &mut [f64],
    mut before_step: impl FnMut(&mut dyn Slave, f64) -> Result<()>,
    mut after_step: impl FnMut(u64, f64, &[f64]) -> Result<()>,
) -> (Ending, f64) {
    let mut reached = grid.start;
    let mut t_next = grid.time(0);
    for i in 0..grid.steps {
        let t = t_next;
        t_next = grid.time(i + 1);
        if let Err(e) = before_step(slave, t) {
            return (Ending::Error(e), reached);
        }
        match slave.step(t, t_next - t) {
            StepOutcome::Ok => {}
            StepOutcome::Terminated { at } => return (Ending::Terminated { t, at }, reached),
            StepOutcome::Failed { status, last_successful_time } => {
                return (Ending::Failed { t, t_next, status, last_successful_time }, reached)
            }
        }
        if let Err(e) = slave.read(groups, row) {
            return (Ending::Error(e.context(format!("after the step to t = {t_next}"))), reached);
        }
        if let Err(e) = after_step(i + 1, t_next, row) {
            return (Ending::Error(e), reached);
        }
        reached = t_next;
    }
    (Ending::Completed, reached)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_has_decimal_times_and_ends_at_stop() {
        let g = Grid::new(0.0, 8.0, 0.01).unwrap();
        assert_eq!(g.steps, 800);
        assert_eq!(g.time(7), 0.07);
        assert_eq!(g.time(30), 0.3);
        assert_eq!(g.time(800), 8.0);
        let g = Grid::new(0.0, 1.0, 0.3).unwrap();
        assert_eq!(g.steps, 4);
        assert_eq!((g.time(3), g.time(4)), (0.9, 1.0));
        let g = Grid::new(-1.0, 1.0, 0.1).unwrap();
        assert_eq!((g.steps, g.time(3)), (20, -0.7));
    }

    #[test]
    fn grid_times_are_the_decimal_numbers() {
        // Each time against the parse of its decimal text (the correctly rounded value).
        let g = Grid::new(0.0, 8.0, 0.001).unwrap();
        for i in 0..=g.steps {
            assert_eq!(g.time(i), format!("{}.{:03}", i / 1000, i % 1000).parse::<f64>().unwrap(), "step {i}");
        }
        let g = Grid::new(-2.5, 1e4, 0.05).unwrap();
        for i in (0..g.steps).step_by(997) {
            let hundredths = -250 + 5 * i as i64;
            let sign = if hundredths < 0 { "-" } else { "" };
            let text = format!("{sign}{}.{:02}", hundredths.abs() / 100, hundredths.abs() % 100);
            assert_eq!(g.time(i), text.parse::<f64>().unwrap(), "step {i}");
        }
        // A step with more decimals than doubles resolve: start + i * step as computed.
        let g = Grid::new(0.0, 1.0, 1.0 / 3.0).unwrap();
        assert_eq!((g.steps, g.time(2)), (3, 2.0 / 3.0));
    }

    #[test]
    fn grid_rejects_bad_experiments() {
        assert!(Grid::new(1.0, 1.0, 0.1).is_err());
        assert!(Grid::new(0.0, 1.0, 0.0).is_err());
        assert!(Grid::new(0.0, 1.0, f64::NAN).is_err());
        assert!(Grid::new(0.0, 1e6, 1e-6).is_err());
    }
}
