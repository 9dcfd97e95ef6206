//! Directories for the tests' statics (packaged catalogs, the cross builds' archives). A
//! static is never dropped, so a `TempDir` held in one stays in the system's temporary
//! directory after every run (gigabytes for the cross builds); these have fixed names under
//! cargo's temporary directory for tests (target/tmp) and are emptied when a run first uses
//! them.

use std::path::PathBuf;

pub fn dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("emptying {}: {e}", dir.display()));
    }
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
    dir
}
