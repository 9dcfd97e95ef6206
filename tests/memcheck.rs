//! The C-ABI tests (`tests/fmi_abi.rs`: state machines, NULL pointers, bad value references,
//! non-finite values, FMU states and their serialization, both FMI versions) run under
//! valgrind's memcheck: no invalid read or write, no use of uninitialised memory, no
//! definitely lost block. valgrind is a Debian package; `.ci/run`
//! installs it. Runs the `fmi_abi` test binary that this same `cargo test` built (about 40 s
//! under valgrind on one core).

use std::path::PathBuf;
use std::process::Command;

/// The newest `fmi_abi-<hash>` test executable next to this test's own executable.
fn fmi_abi_binary() -> PathBuf {
    let me = std::env::current_exe().expect("test executable path");
    let deps = me.parent().expect("deps directory");
    std::fs::read_dir(deps)
        .expect("deps directory is readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("fmi_abi-") && p.extension().is_none()
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("cargo test builds tests/fmi_abi.rs before running the tests")
}

#[test]
#[ignore = "external: valgrind (scripts/test-all.sh installs it)"]
fn abi_tests_run_clean_under_memcheck() {
    let binary = fmi_abi_binary();
    let out = Command::new("valgrind")
        .args(["--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite"])
        .arg(&binary)
        .args(["--test-threads=1", "--quiet"])
        .output()
        .unwrap_or_else(|e| panic!("valgrind could not be started ({e}); install it: apt-get install valgrind"));
    let report = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = report.lines().rev().take(20).collect();
    assert!(out.status.success(), "memcheck of {}: {:?}\n{}", binary.display(), out.status, tail.join("\n"));
    assert!(report.contains("ERROR SUMMARY: 0 errors"), "{report}");
    assert!(report.contains("definitely lost: 0 bytes in 0 blocks"), "{report}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("test result: ok"), "the ABI tests pass under valgrind");
}
