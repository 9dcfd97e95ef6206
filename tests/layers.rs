//! The layers of docs/architecture.md hold: the FMU library's normal dependency tree has no
//! command-line, plotting, progress-bar, importer or packaging crate, the engine knows
//! nothing of FMI (no fmi-sys, no FMU library, no use of the variable table), and the command
//! reaches the FMU library only through its C ABI. Cargo's own resolver answers (`cargo
//! tree`), so a dependency added to the wrong manifest fails here; the sources are read for
//! the uses a manifest cannot show.

use std::path::Path;
use std::process::Command;

/// Package names in the normal dependency tree of `package` (itself included).
fn normal_dependencies(package: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(["tree", "--offline", "--locked", "-e", "normal", "--prefix", "none", "-p", package])
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo tree -p {package}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_fmu_library_links_no_tool_crates() {
    let deps = normal_dependencies("mbfmu");
    assert!(deps.iter().any(|d| d == "fmi-sys"), "the tree was not read: {deps:?}");
    for forbidden in ["clap", "plotters", "indicatif", "fmi", "tempfile", "zip", "mbfmu-cli", "mbfmu-package", "dejavu"]
    {
        assert!(!deps.iter().any(|d| d == forbidden), "the FMU library depends on {forbidden}");
    }
}

#[test]
fn the_engine_knows_nothing_of_fmi() {
    let deps = normal_dependencies("mbfmu-engine");
    assert!(deps.iter().any(|d| d == "mbfmu-model"), "the tree was not read: {deps:?}");
    for forbidden in ["fmi-sys", "fmi", "mbfmu", "mbfmu-package", "zip"] {
        assert!(!deps.iter().any(|d| d == forbidden), "the engine depends on {forbidden}");
    }
    // The engine reads descriptions, not the FMU variable table (value references,
    // causalities, modelDescription.xml).
    let lines = code_lines("crates/engine/src");
    assert!(!lines.is_empty(), "the sources were not read");
    for (path, line, code) in &lines {
        assert!(
            !code.contains("mbfmu_model::variables") && !code.contains("fmi_sys"),
            "{}:{line}: the engine uses FMI vocabulary: {code}",
            path.display()
        );
    }
}

/// Every `.rs` file under `dir` (relative to the workspace), with its lines of code (comments cut).
fn code_lines(dir: &str) -> Vec<(std::path::PathBuf, usize, String)> {
    let mut lines = Vec::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (k, line) in text.lines().enumerate() {
                    lines.push((path.clone(), k + 1, line.split("//").next().unwrap_or("").to_string()));
                }
            }
        }
    }
    lines
}

/// The command drives FMUs as an importer would, through the C ABI: archives it loads, and
/// the built-in models through the FMU library's exported functions linked into it
/// (crates/cli/src/linked.rs); never the slave or the engine behind them.
#[test]
fn the_command_reaches_the_fmu_library_only_through_its_c_abi() {
    let lines = code_lines("crates/cli/src");
    assert!(lines.iter().any(|(_, _, l)| l.contains("mbfmu::fmi::")), "the sources were not read");
    for (path, line, code) in &lines {
        let uses_library = code.contains("mbfmu::") && !code.contains("mbfmu::fmi::");
        assert!(
            !uses_library && !code.contains("mbfmu_engine"),
            "{}:{line}: the command calls the FMU library below its C ABI: {code}",
            path.display()
        );
    }
}
