//! Logging through the importer's callback, filtered by the categories declared in
//! modelDescription.xml (`variables::LOG_CATEGORIES`) and by SetDebugLogging.
//!
//! FMI 2 (Sect. 2.1.5): the logger is variadic and interprets its message as a printf
//! format, so it is always called with the format "%s" and the text as its argument.
//! `loggingOn` switches *debug* logging; warnings and errors are still reported.
//! FMI 3 (Sect. 2.3.1): logMessage is not variadic. With `loggingOn == false` (or debug
//! logging switched off by SetDebugLogging) the FMU calls it only for an Error or a Fatal,
//! whatever the categories, so that a host that installed a logger always learns why a call
//! failed, as an FMI 2 host does: the standard's text after 3.0.2 makes this error logging
//! mandatory ("the FMU ... should call logMessage regardless of the loggingOn setting, unless
//! the logMessage callback function pointer is NULL"); 3.0.2 itself forbade any call with
//! logging off, which left hosts such as FMPy (which instantiates with `loggingOn` only in
//! debug mode) with a bare status. Warnings, Discards and OK messages still need debug
//! logging and their category.

use fmi_sys::{fmi2, fmi3};
use mbfmu_model::variables::LOG_CATEGORIES;
use std::ffi::{c_void, CString};

/// A status as both standards number it (fmi2Status and fmi3Status agree on 0..=4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Ok = 0,
    Warning = 1,
    Discard = 2,
    Error = 3,
    Fatal = 4,
}

impl Status {
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The category that reports this status (the `logStatus*` ones), or `None` for OK.
    pub fn category(self) -> Option<&'static str> {
        match self {
            Status::Ok => None,
            Status::Warning => Some("logStatusWarning"),
            Status::Discard => Some("logStatusDiscard"),
            Status::Error => Some("logStatusError"),
            Status::Fatal => Some("logStatusFatal"),
        }
    }
}

/// Where messages go.
#[derive(Clone, Copy)]
enum Sink {
    None,
    Fmi2 { logger: fmi2::fmi2CallbackLogger, env: *mut c_void },
    Fmi3 { log_message: fmi3::fmi3LogMessageCallback, env: *mut c_void },
}

/// The logging configuration of one instance.
pub struct Logger {
    sink: Sink,
    name: CString,
    logging_on: bool,
    /// Per entry of `LOG_CATEGORIES`.
    enabled: Vec<bool>,
    /// Bit i: a message of category i (of `LOG_CATEGORIES`) with status OK reaches the
    /// callback; and one with a problem status (Warning and worse). Derived from the fields
    /// above whenever they change, so that the checks on every FMI call (`logCalls`,
    /// `logNonlinearSystems`) are one bit test instead of a search by name (with logging on,
    /// the search took 2 % of a DoublePendulum step).
    reaches_ok: u64,
    reaches_problem: u64,
    /// As `reaches_problem`, for Error and Fatal.
    reaches_error: u64,
}

/// Categories on after instantiation with `loggingOn`: everything except the per-call trace.
fn default_categories() -> Vec<bool> {
    LOG_CATEGORIES.iter().map(|(name, _)| *name != "logCalls").collect()
}

/// Index of a category in `LOG_CATEGORIES`.
fn category_index(category: &str) -> Option<usize> {
    LOG_CATEGORIES.iter().position(|(name, _)| *name == category)
}

/// The categories the FMU checks on every call, as their indices (`category_index` of
/// `logCalls` and `logNonlinearSystems`; a test checks them).
pub const LOG_CALLS: usize = 5;
pub const LOG_NONLINEAR_SYSTEMS: usize = 4;

/// A C string from text that may contain NUL bytes.
pub fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', "\\0")).expect("NUL bytes were replaced")
}

impl Logger {
    pub fn fmi2(logger: fmi2::fmi2CallbackLogger, env: *mut c_void, name: &str, logging_on: bool) -> Logger {
        let sink = if logger.is_some() { Sink::Fmi2 { logger, env } } else { Sink::None };
        Logger::new(sink, name, logging_on)
    }

    pub fn fmi3(log_message: fmi3::fmi3LogMessageCallback, env: *mut c_void, name: &str, logging_on: bool) -> Logger {
        let sink = if log_message.is_some() { Sink::Fmi3 { log_message, env } } else { Sink::None };
        Logger::new(sink, name, logging_on)
    }

    fn new(sink: Sink, name: &str, logging_on: bool) -> Logger {
        let mut logger = Logger {
            sink,
            name: c_string(name),
            logging_on,
            enabled: default_categories(),
            reaches_ok: 0,
            reaches_problem: 0,
            reaches_error: 0,
        };
        logger.derive_masks();
        logger
    }

    /// `reaches_ok` and `reaches_problem` from the sink, `logging_on` and `enabled`.
    fn derive_masks(&mut self) {
        let (mut ok, mut problem, mut error) = (0, 0, 0);
        for (i, &on) in self.enabled.iter().enumerate() {
            let (reaches_ok, reaches_problem, reaches_error) = match self.sink {
                Sink::None => (false, false, false),
                // Errors whenever there is a callback (see the module documentation).
                Sink::Fmi3 { log_message, .. } => (self.logging_on && on, self.logging_on && on, log_message.is_some()),
                // Problems are reported even without debug logging (FMI 2.0.4 Sect. 2.1.3).
                Sink::Fmi2 { .. } => (self.logging_on && on, on, on),
            };
            ok |= u64::from(reaches_ok) << i;
            problem |= u64::from(reaches_problem) << i;
            error |= u64::from(reaches_error) << i;
        }
        (self.reaches_ok, self.reaches_problem, self.reaches_error) = (ok, problem, error);
    }

    pub fn instance_name(&self) -> &str {
        self.name.to_str().unwrap_or("")
    }

    /// Whether a message of this status and category reaches the callback.
    pub fn wants(&self, status: Status, category: &str) -> bool {
        category_index(category).is_some_and(|i| self.wants_index(status, i))
    }

    /// [`Logger::wants`] of the category with this index in `LOG_CATEGORIES`.
    #[inline]
    pub fn wants_index(&self, status: Status, index: usize) -> bool {
        let mask = match status {
            Status::Error | Status::Fatal => self.reaches_error,
            Status::Warning | Status::Discard => self.reaches_problem,
            Status::Ok => self.reaches_ok,
        };
        mask >> index & 1 == 1
    }

    /// Sends one message if its status and category are enabled.
    pub fn log(&self, status: Status, category: &str, text: &str) {
        if self.wants(status, category) {
            self.emit(status, category, text);
        }
    }

    /// Sends one message regardless of the filters (FMI 3.0 Sect. 2.3.1 requires a reason
    /// when instantiation fails).
    pub fn emit(&self, status: Status, category: &str, text: &str) {
        let category = c_string(category);
        let text = c_string(text);
        match self.sink {
            Sink::None => {}
            Sink::Fmi2 { logger: Some(logger), env } => unsafe {
                logger(env, self.name.as_ptr(), status.code(), category.as_ptr(), c"%s".as_ptr(), text.as_ptr());
            },
            Sink::Fmi3 { log_message: Some(log_message), env } => unsafe {
                log_message(env, status.code(), category.as_ptr(), text.as_ptr());
            },
            _ => {}
        }
    }

    /// SetDebugLogging (FMI 2.0.4 Sect. 2.1.5, FMI 3.0 Sect. 2.3.1): no categories means all
    /// categories; an unknown category is an error and changes nothing.
    pub fn set_debug_logging(&mut self, on: bool, categories: &[String]) -> Result<(), String> {
        let mut enabled = vec![categories.is_empty(); LOG_CATEGORIES.len()];
        for c in categories {
            match LOG_CATEGORIES.iter().position(|(name, _)| name == c) {
                Some(i) => enabled[i] = true,
                None => {
                    let known: Vec<&str> = LOG_CATEGORIES.iter().map(|(n, _)| *n).collect();
                    return Err(format!("unknown log category '{c}' (declared: {})", known.join(", ")));
                }
            }
        }
        self.logging_on = on;
        if on {
            self.enabled = enabled;
        }
        self.derive_masks();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_categories_are_declared() {
        for s in [Status::Warning, Status::Discard, Status::Error, Status::Fatal] {
            let c = s.category().unwrap();
            assert!(LOG_CATEGORIES.iter().any(|(n, _)| *n == c), "{c}");
        }
        assert_eq!(category_index("logCalls"), Some(LOG_CALLS));
        assert_eq!(category_index("logNonlinearSystems"), Some(LOG_NONLINEAR_SYSTEMS));
        assert!(LOG_CATEGORIES.len() <= 64, "the masks have a bit per category");
    }

    #[test]
    fn debug_logging_honours_categories() {
        unsafe extern "C" fn sink(_: *mut c_void, _: u32, _: *const i8, _: *const i8) {}
        let mut l = Logger::fmi3(Some(sink), std::ptr::null_mut(), "x", true);
        assert!(l.wants(Status::Error, "logStatusError"));
        assert!(!l.wants(Status::Ok, "logCalls"));
        l.set_debug_logging(true, &["logCalls".into()]).unwrap();
        assert!(l.wants(Status::Ok, "logCalls"));
        assert!(!l.wants(Status::Warning, "logStatusWarning"));
        assert!(!l.wants(Status::Discard, "logStatusDiscard"));
        assert!(l.wants(Status::Error, "logStatusError"), "errors reach a callback whatever the categories");
        assert!(l.set_debug_logging(true, &["nope".into()]).is_err());
        assert!(l.wants(Status::Ok, "logCalls"), "a rejected call changes nothing");
        l.set_debug_logging(false, &[]).unwrap();
        assert!(!l.wants(Status::Warning, "logStatusWarning") && !l.wants(Status::Ok, "logCalls"));
        assert!(l.wants(Status::Error, "logStatusError") && l.wants(Status::Fatal, "logStatusFatal"));
        l.set_debug_logging(true, &[]).unwrap();
        assert!(l.wants(Status::Ok, "logCalls") && l.wants(Status::Error, "logStatusError"));
    }

    #[test]
    fn fmi3_reports_errors_but_nothing_else_without_debug_logging() {
        unsafe extern "C" fn sink(_: *mut c_void, _: u32, _: *const i8, _: *const i8) {}
        let l = Logger::fmi3(Some(sink), std::ptr::null_mut(), "x", false);
        assert!(l.wants(Status::Error, "logStatusError") && l.wants(Status::Fatal, "logStatusFatal"));
        assert!(!l.wants(Status::Warning, "logStatusWarning") && !l.wants(Status::Discard, "logStatusDiscard"));
        assert!(!l.wants(Status::Ok, "logNonlinearSystems") && !l.wants(Status::Ok, "logCalls"));
    }

    #[test]
    fn fmi2_reports_problems_without_debug_logging() {
        let handler = fmi_sys::fmi2::logger::callback_logger_handler;
        let l = Logger::fmi2(Some(handler), std::ptr::null_mut(), "x", false);
        assert!(l.wants(Status::Error, "logStatusError"));
        assert!(l.wants(Status::Discard, "logStatusDiscard"));
        assert!(!l.wants(Status::Ok, "logNonlinearSystems"));
        let quiet = Logger::fmi3(None, std::ptr::null_mut(), "x", true);
        assert!(!quiet.wants(Status::Fatal, "logStatusFatal"), "no callback, no logging");
        assert!(!quiet.wants(Status::Error, "logStatusError"), "no callback, no logging");
    }
}
