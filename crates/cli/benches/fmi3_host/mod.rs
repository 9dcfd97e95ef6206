//! What the benches that drive the FMU library through its FMI 3 C functions share: the
//! library, loaded once, and the log callback of their instances.

use fmi_sys::fmi3 as f3;
use std::sync::atomic::{AtomicBool, Ordering};

/// The built cdylib's FMI 3 functions (fmi-sys' libloading bindings), loaded once.
pub fn library() -> &'static f3::Fmi3Binding {
    static LIB: std::sync::OnceLock<f3::Fmi3Binding> = std::sync::OnceLock::new();
    LIB.get_or_init(|| {
        let path = mbfmu_package::locate_library().expect("the FMU library is built next to this bench");
        unsafe { f3::Fmi3Binding::new(path).expect("FMI 3 symbols") }
    })
}

static QUIET: AtomicBool = AtomicBool::new(false);

/// Whether [`log_message`] stays silent (a bench whose runs fail on purpose).
#[allow(dead_code)] // not every bench silences it
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Prints what the FMU logs (errors and warnings only while logging is off).
pub unsafe extern "C" fn log_message(
    _env: f3::fmi3InstanceEnvironment,
    status: f3::fmi3Status,
    category: f3::fmi3String,
    message: f3::fmi3String,
) {
    if QUIET.load(Ordering::Relaxed) {
        return;
    }
    let text = |p: f3::fmi3String| unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned();
    eprintln!("FMU [{status}] {}: {}", text(category), text(message));
}
