//! Shows what FMUs log. The `fmi` crate forwards the FMU's logger callback to the `log`
//! facade (target: instance name for FMI 2, category for FMI 3); this logger prints those
//! records to stderr, without tearing the progress bar.

use indicatif::ProgressBar;
use log::{Level, LevelFilter, Log, Metadata, Record};
use std::cell::RefCell;
use std::sync::Mutex;

/// The progress bar being drawn, if any: log lines are printed above it.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

thread_local! {
    /// Lines this thread logs while a capture is on (a sweep's run keeps its FMU's messages).
    static CAPTURED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// From now on, keep the lines this thread logs instead of printing them.
pub fn begin_capture() {
    CAPTURED.with(|c| *c.borrow_mut() = Some(Vec::new()));
}

/// Ends the capture and returns the lines kept since `begin_capture`.
pub fn end_capture() -> Vec<String> {
    CAPTURED.with(|c| c.borrow_mut().take()).unwrap_or_default()
}

/// The text an FMU hands a logger callback, empty for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string that stays valid during the call.
pub unsafe fn fmu_text(p: *const std::ffi::c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: as the caller promises.
        unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// Forwards a message an FMU logged through a callback of this command's own (the linked
/// built-in models, the system master's instances) as the `fmi` crate forwards an archive's,
/// so that [`StderrLogger`] shows it as coming from the FMU.
pub fn forward(level: Level, target: &str, message: std::fmt::Arguments) {
    log::logger().log(&Record::builder().args(message).level(level).module_path(Some("fmu")).target(target).build());
}

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
        let unkept = CAPTURED.with(|c| match c.borrow_mut().as_mut() {
            Some(lines) => {
                lines.push(line);
                None
            }
            None => Some(line),
        });
        if let Some(line) = unkept {
            print_line(&line);
        }
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
