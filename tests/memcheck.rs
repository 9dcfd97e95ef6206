//! The C-ABI tests (`tests/fmi_abi.rs`: state machines, NULL pointers, bad value references,
//! non-finite values, FMU states and their serialization, both FMI versions) run under
//! valgrind's memcheck: no invalid read or write, no use of uninitialised memory, no
//! definitely lost block. valgrind is a Debian package; `.ci/run`
//! installs it. Runs this test executable again, its `fmi_abi` module only (about 40 s under
//! valgrind on one core).

use std::process::Command;

#[test]
#[ignore = "external: valgrind (scripts/test-all.sh installs it)"]
fn abi_tests_run_clean_under_memcheck() {
    let binary = std::env::current_exe().expect("test executable path");
    let out = Command::new("valgrind")
        .args(["--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite"])
        .arg(&binary)
        .args(["--test-threads=1", "--quiet", "fmi_abi::"])
        .output()
        .unwrap_or_else(|e| panic!("valgrind could not be started ({e}); install it: apt-get install valgrind"));
    let report = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = report.lines().rev().take(20).collect();
    assert!(out.status.success(), "memcheck of {}: {:?}\n{}", binary.display(), out.status, tail.join("\n"));
    assert!(report.contains("ERROR SUMMARY: 0 errors"), "{report}");
    assert!(report.contains("definitely lost: 0 bytes in 0 blocks"), "{report}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("test result: ok") && !stdout.contains("ok. 0 passed"),
        "the ABI tests ran and passed: {stdout}"
    );
}
