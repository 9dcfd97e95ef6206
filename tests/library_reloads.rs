//! A host that loads and unloads the FMU library around every run (FMPy's `simulate_fmu`
//! does) must not see its memory grow with the runs: the library keeps the models it built in
//! a cache for later instances (`src/fmi/mod.rs`), which it empties when it is unloaded.

use fmi_sys::fmi3 as f3;
use mbfmu_model::catalog;
use std::ffi::CString;

/// Resident memory of this process [KiB] (Linux: /proc/self/status).
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Whether the library at `path` is mapped into this process.
fn mapped(path: &std::path::Path) -> bool {
    std::fs::read_to_string("/proc/self/maps").unwrap().contains(path.to_str().unwrap())
}

/// Loads the library, instantiates `model` (its model is built and cached), frees the
/// instance and unloads the library.
fn load_run_unload(path: &std::path::Path, model: &str) {
    let token = CString::new(catalog::find(model).unwrap().token).unwrap();
    let lib = unsafe { f3::Fmi3Binding::new(path) }.expect("FMI 3 symbols");
    let instance = unsafe {
        lib.fmi3InstantiateCoSimulation(
            c"reloaded".as_ptr(),
            token.as_ptr(),
            std::ptr::null(),
            false,
            false,
            false,
            false,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            None,
            None,
        )
    };
    assert!(!instance.is_null(), "{model} instantiated");
    unsafe { lib.fmi3FreeInstance(instance) };
}

#[test]
fn loading_and_unloading_for_every_run_keeps_memory_flat() {
    // A private copy: no other handle of this process keeps it loaded.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("libmbfmu_reloaded.so");
    std::fs::copy(mbfmu_package::locate_library().unwrap(), &path).unwrap();
    for _ in 0..20 {
        load_run_unload(&path, "HydraulicFourBar");
    }
    let unloaded = !mapped(&path);
    let before = resident_kib();
    for _ in 0..200 {
        load_run_unload(&path, "HydraulicFourBar");
    }
    let growth = resident_kib().saturating_sub(before);
    println!("unloaded between runs: {unloaded}; resident growth over 200 loads: {growth} KiB");
    assert!(growth < 2048, "{growth} KiB more after 200 loads, runs and unloads");
}
