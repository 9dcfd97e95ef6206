//! The documentation's links resolve: every relative link of README.md and of the book's pages
//! (docs/*.md) names a file of the repository, every `#anchor` a heading or an explicit `id`
//! of the page it points to (heading ids as mdBook and GitHub derive them), and every page of
//! docs/ is listed in the book's table of contents, docs/SUMMARY.md. Links to web addresses are
//! not followed (the check runs offline).

use regex::Regex;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The text without fenced code blocks and inline code spans, where brackets are not links.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    let span = Regex::new(r"`[^`]*`").unwrap();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if !fenced {
            out.push_str(&span.replace_all(line, "``"));
        }
        out.push('\n');
    }
    out
}

/// A heading's id: lower case, letters, digits, `_` and `-` kept, white space as `-`, the rest
/// dropped (after removing inline code marks and link targets).
fn heading_id(heading: &str) -> String {
    let link = Regex::new(r"\[([^\]]*)\]\([^)]*\)").unwrap();
    let text = link.replace_all(heading, "$1");
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Every anchor a page defines: its headings' ids (a repeated heading gets `-1`, `-2`, ...) and
/// explicit `id="..."` attributes.
fn anchors(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut ids = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        if let Some(h) = line.strip_prefix('#') {
            let h = h.trim_start_matches('#');
            if h.starts_with(' ') {
                let base = heading_id(h.trim());
                let mut id = base.clone();
                let mut n = 0;
                while ids.contains(&id) {
                    n += 1;
                    id = format!("{base}-{n}");
                }
                ids.insert(id);
            }
        }
    }
    let explicit = Regex::new(r#"id="([^"]+)""#).unwrap();
    ids.extend(explicit.captures_iter(&text).map(|c| c[1].to_string()));
    ids
}

fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages
}

/// Every broken relative link of `page`, as `page: target (why)`.
fn broken_links(root: &Path, page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let link = Regex::new(r"\]\(([^)\s]+)(?:\s+[^)]*)?\)").unwrap();
    let name = page.strip_prefix(root).unwrap().display().to_string();
    let mut broken = Vec::new();
    for c in link.captures_iter(&prose(&text)) {
        let target = &c[1];
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((f, a)) => (f, Some(a)),
            None => (target, None),
        };
        let path = if file.is_empty() { page.to_path_buf() } else { page.parent().unwrap().join(file) };
        if !path.exists() {
            broken.push(format!("{name}: {target} (no file {})", path.display()));
            continue;
        }
        if let Some(anchor) = anchor {
            if path.extension().is_some_and(|e| e == "md") && !anchors(&path).contains(anchor) {
                broken.push(format!("{name}: {target} (no heading or id {anchor:?} in {file:?})"));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_and_anchor_of_the_documentation_resolves() {
    let root = root();
    let mut files = pages(&root);
    files.push(root.join("README.md"));
    assert!(files.len() > 10, "only {} pages", files.len());
    let broken: Vec<String> = files.iter().flat_map(|p| broken_links(&root, p)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_of_the_book_is_in_its_table_of_contents() {
    let root = root();
    let summary = std::fs::read_to_string(root.join("docs/SUMMARY.md")).expect("docs/SUMMARY.md");
    let listed: BTreeSet<String> =
        Regex::new(r"\]\(([^)#]+\.md)\)").unwrap().captures_iter(&summary).map(|c| c[1].to_string()).collect();
    for page in pages(&root) {
        let name = page.file_name().unwrap().to_str().unwrap().to_string();
        if name != "SUMMARY.md" {
            assert!(listed.contains(&name), "docs/{name} is not listed in docs/SUMMARY.md: {listed:?}");
        }
    }
}

#[test]
fn the_checker_finds_a_broken_anchor_and_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "# Title\n\n## State-space formulation (Negrut et al.)\n").unwrap();
    std::fs::write(
        dir.path().join("b.md"),
        "[ok](a.md#state-space-formulation-negrut-et-al) [ok](#here) [bad](a.md#nowhere) [bad](c.md)\n\
         `[not a link](c.md)`\n\n## Here\n",
    )
    .unwrap();
    let broken = broken_links(dir.path(), &dir.path().join("b.md"));
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].contains("nowhere") && broken[1].contains("c.md"), "{broken:?}");
}
