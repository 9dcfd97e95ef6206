//! Runs the plan on worker threads (each takes the next parameter set when it is free), shows
//! progress, and stops scheduling on Ctrl-C: runs under way are abandoned at their next
//! communication point, the finished ones are kept.

use super::plan::{value_of, Plan};
use super::run::{self, RunResult, RunSpec, Status};
use crate::fmu::{Fmu, Value};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Progress lines when stderr is not a terminal (CI logs): one per PERIOD.
const PERIOD: Duration = Duration::from_secs(10);

pub struct Outcome {
    /// The finished runs, in plan order.
    pub results: Vec<RunResult>,
    pub interrupted: bool,
    pub seconds: f64,
}

/// Raised by the first Ctrl-C (SIGINT); a second one exits at once.
fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let handler_flag = Arc::clone(&flag);
    let installed = ctrlc::set_handler(move || {
        if handler_flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        crate::log::print_line("interrupted: finishing; the finished runs will be written (Ctrl-C again to quit now)");
    });
    if let Err(e) = installed {
        crate::log::print_line(&format!("warning: Ctrl-C will not keep the finished runs: {e}"));
    }
    flag
}

pub fn run_all(fmu: &Fmu, spec: &RunSpec, plan: &Plan, jobs: usize, show_progress: bool) -> Outcome {
    let stop = interrupt_flag();
    let runs = plan.runs();
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let mut progress = SweepProgress::new(show_progress, runs);
    let mut results: Vec<RunResult> = Vec::with_capacity(runs);
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        for _ in 0..jobs.min(runs) {
            let sender = sender.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                let mut values: Vec<Value> = Vec::with_capacity(plan.variables.len());
                while !stop.load(Ordering::Relaxed) {
                    let r = next.fetch_add(1, Ordering::Relaxed);
                    if r >= runs {
                        break;
                    }
                    values.clear();
                    values.extend(plan.variables.iter().zip(plan.row(r)).map(|(var, &x)| value_of(var, x)));
                    match run::simulate(fmu, spec, r, &plan.variables, &values, stop) {
                        Some(result) => {
                            if sender.send(result).is_err() {
                                break;
                            }
                        }
                        None => break,
                    }
                }
            });
        }
        drop(sender);
        for result in receiver {
            progress.update(&result);
            results.push(result);
        }
    });
    progress.finish();
    results.sort_by_key(|r| r.index);
    Outcome { results, interrupted: stop.load(Ordering::SeqCst), seconds: started.elapsed().as_secs_f64() }
}

/// A bar while stderr is a terminal, else a line every PERIOD.
struct SweepProgress {
    bar: Option<ProgressBar>,
    periodic: bool,
    runs: usize,
    done: usize,
    failed: usize,
    started: Instant,
    last_line: Instant,
}

impl SweepProgress {
    fn new(enabled: bool, runs: usize) -> SweepProgress {
        let terminal = enabled && std::io::stderr().is_terminal();
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(Some(runs as u64), ProgressDrawTarget::stderr_with_hz(10));
            let style = ProgressStyle::with_template(
                "{elapsed_precise} [{wide_bar}] {pos}/{len} runs, {msg} ({per_sec}, {eta} left)",
            )
            .expect("valid template")
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_message("0 failed");
            crate::log::set_progress_bar(Some(bar.clone()));
            bar
        });
        let now = Instant::now();
        SweepProgress { bar, periodic: enabled && !terminal, runs, done: 0, failed: 0, started: now, last_line: now }
    }

    fn update(&mut self, result: &RunResult) {
        self.done += 1;
        if !matches!(result.status, Status::Ok | Status::Terminated) {
            self.failed += 1;
            if let Some(bar) = &self.bar {
                bar.set_message(format!("{} failed", self.failed));
            }
        }
        if let Some(bar) = &self.bar {
            bar.set_position(self.done as u64);
        } else if self.periodic && self.last_line.elapsed() >= PERIOD {
            self.last_line = Instant::now();
            eprintln!(
                "sweep: {} of {} runs done ({} failed), {:.0} s elapsed",
                self.done,
                self.runs,
                self.failed,
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
            crate::log::set_progress_bar(None);
        }
    }
}
