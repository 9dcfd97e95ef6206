//! Progress of a simulation: a bar when stderr is a terminal, otherwise a line every
//! PERIOD (so CI logs show that a long run is alive). Short runs print nothing.

use crate::csv::format_float;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

const PERIOD: Duration = Duration::from_secs(10);

pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Instant,
    periodic: bool,
    start: f64,
    stop: f64,
    steps: u64,
}

impl Progress {
    pub fn new(enabled: bool, start: f64, stop: f64, steps: u64) -> Progress {
        let now = Instant::now();
        let terminal = enabled && std::io::stderr().is_terminal();
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr_with_hz(10));
            let style =
                ProgressStyle::with_template("{elapsed_precise} [{wide_bar}] t = {msg} s, {percent}% ({eta} left)")
                    .expect("valid template")
                    .progress_chars("=> ");
            bar.set_style(style);
            bar.set_message(format!("{} of {}", format_float(start), format_float(stop)));
            crate::log::set_progress_bar(Some(bar.clone()));
            bar
        });
        Progress { bar, started: now, last_line: now, periodic: enabled && !terminal, start, stop, steps }
    }

    /// After communication step `step` (1-based), which ended at time `t`. Shows something
    /// every 16 steps and at the last (formatting the message every step would cost more
    /// than some FMU steps).
    #[inline]
    pub fn update(&mut self, step: u64, t: f64) {
        if step.is_multiple_of(16) || step == self.steps {
            self.show(step, t);
        }
    }

    fn show(&mut self, step: u64, t: f64) {
        if let Some(bar) = &self.bar {
            bar.set_position(step);
            bar.set_message(format!("{} of {}", format_float(t), format_float(self.stop)));
        } else if self.periodic && self.last_line.elapsed() >= PERIOD {
            self.last_line = Instant::now();
            let fraction = (t - self.start) / (self.stop - self.start);
            eprintln!(
                "simulating: t = {} of {} s ({:.0}%), {:.0} s elapsed",
                format_float(t),
                format_float(self.stop),
                100.0 * fraction,
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
            crate::log::set_progress_bar(None);
        }
    }
}
