//! One run of a sweep: a new instance, the fixed and swept parameters, the shared stepping
//! loop of `simulate`, and per-output statistics over the communication points.

use crate::error::{Error, Result};
use crate::fmu::{Fmu, ReadGroup, Slave, Value};
use crate::inputs::InputTable;
use crate::modeldesc::{ModelInfo, Variable};
use crate::stepping::{step_failure, step_through, termination_note, Ending, Grid};
use std::sync::atomic::{AtomicBool, Ordering};

/// What every run shares.
pub struct RunSpec<'a> {
    pub info: &'a ModelInfo,
    pub grid: &'a Grid,
    pub tolerance: Option<f64>,
    /// --set values, set first in every run.
    pub fixed: &'a [(&'a Variable, Value)],
    /// --input-file: the same schedule of inputs in every run, set as `simulate` sets it.
    pub inputs: Option<&'a InputTable<'a>>,
    pub outputs: usize,
    pub groups: &'a [ReadGroup],
    /// Keep the time series (--series).
    pub keep_series: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok,
    /// The FMU ended the run early (terminateSimulation): statistics cover what it ran.
    Terminated,
    Discard,
    Error,
    Fatal,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Terminated => "terminated",
            Status::Discard => "discard",
            Status::Error => "error",
            Status::Fatal => "fatal",
        }
    }

    fn of_step(status: &str) -> Status {
        match status {
            "Discard" => Status::Discard,
            "Fatal" => Status::Fatal,
            _ => Status::Error,
        }
    }
}

/// min, max, mean and final value of one output over a run.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    pub min: f64,
    pub max: f64,
    sum: f64,
    count: u64,
    pub last: f64,
}

impl Stats {
    fn new(x: f64) -> Stats {
        Stats { min: x, max: x, sum: x, count: 1, last: x }
    }

    /// Adds a value in time order. A NaN makes min and max NaN from then on (a comparison
    /// with NaN is false, so it stays); the mean is the plain running sum over the count.
    fn add(&mut self, x: f64) {
        if x.is_nan() || x < self.min {
            self.min = x;
        }
        if x.is_nan() || x > self.max {
            self.max = x;
        }
        self.sum += x;
        self.count += 1;
        self.last = x;
    }

    pub fn mean(&self) -> f64 {
        self.sum / self.count as f64
    }
}

pub struct RunResult {
    pub index: usize,
    pub status: Status,
    /// Why the run failed, with what the FMU logged; empty for a run that succeeded.
    pub message: String,
    /// The last communication point reached.
    pub end_time: f64,
    /// One per output, over the communication points reached (up to `end_time`, also for a
    /// run whose step failed); None for a run that failed before its first point.
    pub stats: Option<Vec<Stats>>,
    /// With --series: time then the outputs, per communication point reached.
    pub series: Vec<f64>,
}

/// Runs parameter set `index` (`values` for `params`). None if `stop` was raised during it.
pub fn simulate(
    fmu: &Fmu,
    spec: &RunSpec,
    index: usize,
    params: &[&Variable],
    values: &[Value],
    stop: &AtomicBool,
) -> Option<RunResult> {
    crate::log::begin_capture();
    let mut result = RunResult {
        index,
        status: Status::Ok,
        message: String::new(),
        end_time: spec.grid.start,
        stats: None,
        series: Vec::new(),
    };
    let (stats, ending) = match start(fmu, spec, index, params, values) {
        Ok(mut slave) => {
            let (stats, ending) = advance(&mut *slave, spec, &mut result, stop);
            if matches!(ending, Ending::Completed | Ending::Terminated { .. }) {
                if let Err(e) = slave.terminate() {
                    return Some(failed(result, Status::Error, e.to_string()));
                }
            }
            (stats, ending)
        }
        Err(e) => return Some(failed(result, Status::Error, e.to_string())),
    };
    match ending {
        Ending::Completed => {}
        Ending::Terminated { t, at } => {
            result.status = Status::Terminated;
            result.message = termination_note(t, at);
        }
        Ending::Failed { t, t_next, status, last_successful_time } => {
            let why = step_failure(t, t_next, status, last_successful_time);
            // The statistics cover the communication points it reached, up to `end_time`.
            let mut result = failed(result, Status::of_step(status), why);
            result.stats = stats;
            return Some(result);
        }
        Ending::Error(_) if stop.load(Ordering::Relaxed) => {
            crate::log::end_capture();
            return None;
        }
        Ending::Error(e) => return Some(failed(result, Status::Error, e.to_string())),
    }
    crate::log::end_capture();
    result.stats = stats;
    Some(result)
}

/// A new instance with the parameters set, initialized at the grid's start.
fn start(fmu: &Fmu, spec: &RunSpec, index: usize, params: &[&Variable], values: &[Value]) -> Result<Box<dyn Slave>> {
    let mut slave = fmu.instantiate(spec.info, &format!("run{index}"), false)?;
    for (var, value) in spec.fixed.iter().map(|(v, x)| (*v, x)).chain(params.iter().copied().zip(values)) {
        slave.set(var, value)?;
    }
    set_inputs(spec, &mut *slave, spec.grid.start)?;
    slave.enter_initialization(spec.tolerance, spec.grid.start, spec.grid.stop)?;
    slave.exit_initialization()?;
    Ok(slave)
}

/// Steps the initialized `slave` to the stop time, gathering statistics (and the series).
fn advance(
    slave: &mut dyn Slave,
    spec: &RunSpec,
    result: &mut RunResult,
    stop: &AtomicBool,
) -> (Option<Vec<Stats>>, Ending) {
    let mut row = vec![0.0; spec.outputs];
    if let Err(e) = slave.read(spec.groups, &mut row) {
        return (None, Ending::Error(e.context("after initialization")));
    }
    let mut stats: Vec<Stats> = row.iter().map(|&x| Stats::new(x)).collect();
    let series = &mut result.series;
    let mut keep = |t: f64, row: &[f64]| {
        if spec.keep_series {
            series.push(t);
            series.extend_from_slice(row);
        }
    };
    keep(spec.grid.start, &row);
    let inputs = |slave: &mut dyn Slave, t: f64| set_inputs(spec, slave, t);
    let (ending, reached) = step_through(slave, spec.grid, spec.groups, &mut row, inputs, |_, t, row| {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::msg("interrupted"));
        }
        for (s, &x) in stats.iter_mut().zip(row) {
            s.add(x);
        }
        keep(t, row);
        Ok(())
    });
    result.end_time = reached;
    (Some(stats), ending)
}

/// The --input-file values at `t`, if there is a table.
fn set_inputs(spec: &RunSpec, slave: &mut dyn Slave, t: f64) -> Result<()> {
    spec.inputs.map_or(Ok(()), |table| table.apply(slave, t))
}

fn failed(mut result: RunResult, status: Status, why: String) -> RunResult {
    let logged = crate::log::end_capture();
    result.status = status;
    result.message = if logged.is_empty() { why } else { format!("{why}; the FMU logged: {}", logged.join(" | ")) };
    result.stats = None;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_are_min_max_mean_and_last_in_order() {
        let mut s = Stats::new(2.0);
        for x in [-1.0, 4.0, 3.0] {
            s.add(x);
        }
        assert_eq!((s.min, s.max, s.mean(), s.last), (-1.0, 4.0, 2.0, 3.0));
        s.add(f64::NAN);
        s.add(10.0);
        assert!(s.min.is_nan() && s.max.is_nan() && s.mean().is_nan(), "a NaN is not hidden");
        assert_eq!(s.last, 10.0);
    }
}
