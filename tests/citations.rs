//! Every citation in the repository resolves: sources, documents, scripts and catalog files
//! cite a work by its key in docs/references.md with a section, equation, figure or table
//! (`[Zhang2022, eq. 8b]`), and design rules by a section of docs/architecture.md. None cites
//! a paper by a file number, a note outside the repository, a task number, or an architecture
//! principle by number, since no reader can open those. The test of the pattern below lists
//! such forms as inputs it must reject; they cite nothing.

use regex::Regex;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// Directories that hold no sources of the repository (build output, environments, packages).
const SKIPPED_DIRS: &[&str] = &["target", ".git", ".venv", "fmus", "book", "node_modules", "__pycache__"];

/// Files that contain the old forms on purpose: the pattern of the packaged texts' own check,
/// and this file's pattern.
const EXEMPT: &[&str] = &["crates/package/tests/internal_names/mod.rs", "tests/citations.rs"];

fn old_forms() -> Regex {
    Regex::new(concat!(
        r"\b[Ss]eeds?[ -]?\d{3}\b|\b[Ss]eed\d{3}|\b[Tt]he seed's\b|\bseeds'",
        r"|\b(?:integrators|benchmarks|flexible|hydraulic-machines|importers|rust-fmi|cross-targets|bibliography)\.md\b",
        // Bracketed last letters: the same strings, without this file spelling the paths out.
        r"|ARCHITECTURE\.md|shared/referenc[e]|\.\./share[d]|/work/share[d]",
        r"|\b[Ii]ssues?[ -]#?\d|\bprinciples? \d|\bNLD-20\d\d|\bMSD-20\d\d",
    ))
    .unwrap()
}

fn scanned_files(root: &Path) -> Vec<PathBuf> {
    let text = |p: &Path| {
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        matches!(
            ext,
            "rs" | "md" | "py" | "toml" | "sh" | "json" | "html" | "txt" | "yml" | "yaml" | "ssd" | "ssv" | "xml"
        ) || p.ends_with(".ci/run")
    };
    WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && SKIPPED_DIRS.contains(&e.file_name().to_str().unwrap_or(""))))
        .map(|e| e.expect("walking the repository"))
        .filter(|e| e.file_type().is_file() && text(e.path()))
        .map(|e| e.into_path())
        .filter(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            !EXEMPT.contains(&rel.as_str())
        })
        .collect()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn no_source_or_document_cites_in_an_old_form() {
    let root = root();
    let pattern = old_forms();
    let files = scanned_files(&root);
    assert!(files.len() > 200, "only {} files found under {}", files.len(), root.display());
    let mut found = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        for (n, line) in text.lines().enumerate() {
            if let Some(m) = pattern.find(line) {
                let rel = path.strip_prefix(&root).unwrap().display();
                found.push(format!("{rel}:{}: {:?} in {}", n + 1, m.as_str(), line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} citations no reader can resolve; cite a key of docs/references.md with a section, \
         equation, figure or table, or a section of docs/architecture.md:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The keys of docs/references.md: the first cell of every table row.
fn bibliography_keys(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("docs/references.md")).expect("docs/references.md");
    let row = Regex::new(r#"(?m)^\| (?:<a id="[a-z0-9]+"></a>)?([A-Za-z][A-Za-z0-9]+) \|"#).unwrap();
    row.captures_iter(&text).map(|c| c[1].to_string()).filter(|k| k != "key").collect()
}

#[test]
fn every_cited_key_is_in_the_bibliography() {
    let root = root();
    let keys = bibliography_keys(&root);
    for key in ["Zhang2022", "Fang2023", "Jaiswal2021", "Negrut1997", "MBDyn"] {
        assert!(keys.iter().any(|k| k == key), "{key} missing from docs/references.md: {keys:?}");
    }
    // A citation: an opening bracket (escaped in rustdoc), a key with a year, then a closing
    // bracket or a comma and the locator.
    let cite = Regex::new(r"\\?\[([A-Z][A-Za-z]+\d{4})(?:\\?\]|, )").unwrap();
    let mut unknown = Vec::new();
    let mut cited = 0;
    for path in scanned_files(&root) {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        for (n, line) in text.lines().enumerate() {
            for c in cite.captures_iter(line) {
                cited += 1;
                if !keys.iter().any(|k| k == &c[1]) {
                    let rel = path.strip_prefix(&root).unwrap().display();
                    unknown.push(format!("{rel}:{}: {}", n + 1, &c[1]));
                }
            }
        }
    }
    assert!(cited > 100, "only {cited} citations found");
    assert!(unknown.is_empty(), "keys not in docs/references.md:\n{}", unknown.join("\n"));
}

#[test]
fn the_pattern_catches_the_old_forms_and_spares_plain_words() {
    let p = old_forms();
    // Each example is joined from two parts, so that no file of the repository carries an old
    // form as written (a search of the sources for them finds none).
    for (head, tail) in [
        ("se", "ed 004 Sect. 5"),
        ("Se", "ed 000 eq. (23)"),
        ("se", "ed000_run"),
        ("the se", "ed-003 pendulum"),
        ("the se", "ed's measure"),
        ("integrators", ".md Sect. 6.2"),
        ("sha", "red/reference/x.md"),
        ("../sha", "red/y.md"),
        ("(iss", "ue 15 item 2)"),
        ("the iss", "ue-17 rows"),
        ("ARCHITECTURE", ".md principle 9"),
        ("NLD-", "2020 Table 2"),
    ] {
        let old = format!("{head}{tail}");
        assert!(p.is_match(&old), "{old}");
    }
    for plain in [
        "[Zhang2022, eq. 8b]",
        "--seed 11",
        "a fixed seed (uniform in [-10, 10])",
        "SplitMix64 seeded with 2022",
        "sensitivity = J seed for the unknowns",
        "docs/architecture.md#numerics-and-allocation",
        "docs/references.md",
    ] {
        assert!(!p.is_match(plain), "{plain}");
    }
}
