//! Every test file of the workspace is compiled. Cargo's discovery of test files is off (each
//! crate's integration tests are one executable, its tests/suite.rs), so a file that neither
//! the suite nor the crate's Cargo.toml names would silently never run.

use std::path::Path;

#[test]
fn every_test_file_is_a_module_of_the_suite_or_a_test_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for crate_dir in [".", "crates/model", "crates/engine", "crates/package", "crates/cli"] {
        let dir = root.join(crate_dir);
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("autotests = false"), "{crate_dir}/Cargo.toml: the suite layout is off");
        let suite = std::fs::read_to_string(dir.join("tests/suite.rs")).unwrap();
        for entry in std::fs::read_dir(dir.join("tests")).unwrap() {
            let path = entry.unwrap().path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let module = suite.lines().any(|l| l == format!("mod {stem};"));
            let target = manifest.contains(&format!("path = \"tests/{stem}.rs\""));
            assert!(
                module ^ target,
                "{}: name it once, as `mod {stem};` in tests/suite.rs or as a [[test]] of Cargo.toml",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 80, "only {checked} test files were found");
}
