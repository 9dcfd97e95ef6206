//! Names that mean something only inside the project: the file numbers its notes gave the papers,
//! issue numbers, its notes outside the repository and source files. An
//! FMU travels alone, so none of its texts may use them; they cite the papers instead.

use regex::Regex;

pub fn pattern() -> Regex {
    Regex::new(r"(?i)\bseeds?\b|seed0|issue \d|\.md\b|shared/|\b(?:tests|src|crates)/\S*\.rs\b").unwrap()
}

/// Every internal name in `text`, with some context, prefixed by `name`.
pub fn find(name: &str, text: &str) -> Vec<String> {
    pattern()
        .find_iter(text)
        .map(|m| {
            let from = text[..m.start()].char_indices().rev().nth(50).map_or(0, |(i, _)| i);
            let to = text[m.end()..].char_indices().nth(30).map_or(text.len(), |(i, _)| m.end() + i);
            format!("{name}: ...{}...", &text[from..to])
        })
        .collect()
}
