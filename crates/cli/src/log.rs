//! Shows what FMUs log. The `fmi` crate forwards the FMU's logger callback to the `log`
//! facade (target: instance name for FMI 2, category for FMI 3); this logger prints those
//! records to stderr, without tearing the progress bar.

use indicatif::ProgressBar;
use log::{Level, LevelFilter, Log, Metadata, Record};
use std::sync::Mutex;

/// The progress bar being drawn, if any: log lines are printed above it.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

struct StderrLogger;

/// Module paths the `fmi` crate gives to records that come from the FMU (FMI 2, FMI 3).
fn from_fmu(record: &Record) -> bool {
    matches!(record.module_path(), Some("logger") | Some("fmu"))
}

impl Log for StderrLogger {
    fn enabled(&self, _: &Metadata) -> bool {
        true
    }

    fn log(&self, record: &Record) {
        let line = if from_fmu(record) {
            // fmi-sys maps FMI 2 Discard to Trace; everything else keeps its meaning.
            let status = match record.level() {
                Level::Error => "error",
                Level::Warn => "warning",
                Level::Trace => "discard",
                _ => "info",
            };
            format!("FMU {status} [{}]: {}", record.target(), record.args())
        } else if record.level() <= Level::Warn {
            format!("{}: {}", record.level().as_str().to_lowercase(), record.args())
        } else {
            return;
        };
        print_line(&line);
    }

    fn flush(&self) {}
}

static LOGGER: StderrLogger = StderrLogger;

pub fn init() {
    // Only fails if a logger is already set, which main prevents.
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(LevelFilter::Trace);
}

/// Routes log lines around `bar` while it is drawn (None when it is finished).
pub fn set_progress_bar(bar: Option<ProgressBar>) {
    if let Ok(mut slot) = BAR.lock() {
        *slot = bar;
    }
}

/// Prints a line to stderr above the progress bar, if one is drawn.
pub fn print_line(line: &str) {
    match BAR.lock().ok().and_then(|bar| bar.clone()) {
        Some(bar) => bar.suspend(|| eprintln!("{line}")),
        None => eprintln!("{line}"),
    }
}
