//! Description texts (catalog sources and notes, variable descriptions, solver summaries) are
//! written with the project's short keys for the papers ("seed 004 Sect. 5", "the seed's
//! angles") and point to its internal reference notes and tests. A documentation page travels
//! alone inside an FMU, so it prints the citation for the key (the full reference is in the
//! page's bibliography) and a plain phrase for the internal file. The mapping of keys to
//! papers is the one of the project's bibliography.

use regex::{Captures, Regex};
use std::sync::LazyLock;

/// The short citation of a paper key ("000".."004"), as the bibliography names it.
fn paper(key: &str) -> Option<&'static str> {
    match key {
        "000" => Some("Zhang et al. 2022"),
        "001" => Some("Negrut et al."),
        "002" | "003" => Some("Fang et al. 2023"),
        "004" => Some("Jaiswal et al. 2021"),
        _ => None,
    }
}

/// The paper a model is built on: the first key in its source text.
pub fn primary_paper(source: &str) -> Option<&'static str> {
    PATTERN.captures_iter(source).find_map(|c| c.name("key").and_then(|k| paper(k.as_str())))
}

static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        (?P<notes>(?P<prep>\b(?:from|in|of)\ )?(?:\.\./)?(?:shared/reference/)?(?P<file>[A-Za-z_]+)\.md
            (?:,?\ Sects?\.)?
            (?:\ [0-9]+(?:\.[0-9]+)*(?:-[0-9]+(?:\.[0-9]+)*)?(?:\ [A-D]\b)?(?:\ and\ [0-9]+(?:\.[0-9]+)*)?)?)
        | (?P<code>\b(?P<dir>tests|src|crates)/[A-Za-z0-9_/.-]*\.rs\b)
        | (?P<shared>\.\./shared[A-Za-z0-9_/.-]*)
        | \b[Ss]eeds?\ (?P<key>[0-9]+)(?P<at>\ (?:Sects?\.|eqs?\.|Figs?\.|Tables?\b))?
        | \b(?P<the>[Tt]he)\ seed(?P<poss>'s)?\b
        | \b[Ss]eed\b(?P<bare_at>\ (?:Sects?\.|eqs?\.|Figs?\.|Tables?\b))?
        | \b[Ii]ssue\ [0-9]+",
    )
    .expect("valid pattern")
});

/// `text` with the project's internal names replaced; `primary` is the model's paper, which
/// "the seed" without a number means.
pub fn resolve(text: &str, primary: Option<&str>) -> String {
    let mut out = PATTERN
        .replace_all(text, |c: &Captures| -> String {
            // A location after a citation reads "Author year, Sect. n".
            let located = |cite: &str, at: Option<regex::Match>| match at {
                Some(at) => format!("{cite},{}", at.as_str()),
                None => cite.to_string(),
            };
            if c.name("notes").is_some() {
                let notes = match c.name("file").map(|f| f.as_str()) {
                    Some("benchmarks") => "the mbfmu benchmark notes",
                    Some("integrators") => "the mbfmu integrator notes",
                    Some("flexible") => "the mbfmu beam benchmark notes",
                    _ => "the mbfmu notes",
                };
                // "from notes.md" keeps its preposition; a bare "geometry notes.md" reads "per".
                format!("{}{notes}", c.name("prep").map_or("per ", |p| p.as_str()))
            } else if c.name("code").is_some() {
                if c.name("dir").is_some_and(|d| d.as_str() == "tests") {
                    "the mbfmu test suite".into()
                } else {
                    "the mbfmu sources".into()
                }
            } else if c.name("shared").is_some() {
                "the mbfmu notes".into()
            } else if let Some(key) = c.name("key") {
                match paper(key.as_str()) {
                    Some(cite) => located(cite, c.name("at")),
                    // Not a paper key: a random-number seed ("SplitMix64 seed 2022").
                    None => format!("seed value {}{}", key.as_str(), c.name("at").map_or("", |a| a.as_str())),
                }
            } else if let Some(the) = c.name("the") {
                format!("{} paper{}", the.as_str(), c.name("poss").map_or("", |p| p.as_str()))
            } else if c.get(0).is_some_and(|m| m.as_str().to_ascii_lowercase().starts_with("seed")) {
                located(primary.unwrap_or("the paper"), c.name("bare_at"))
            } else {
                "the mbfmu project".into()
            }
        })
        .into_owned();
    // "seed 004 (Jaiswal et al. 2021)" became the citation twice.
    for key in ["000", "001", "003", "004"] {
        let cite = paper(key).unwrap_or_default();
        out = out.replace(&format!("{cite} ({cite})"), cite);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_become_citations_and_files_plain_words() {
        let p = Some("Jaiswal et al. 2021");
        assert_eq!(resolve("(seed 000 eq. 23)", p), "(Zhang et al. 2022, eq. 23)");
        assert_eq!(resolve("seed 004 Sect. 5, Fig. 4", p), "Jaiswal et al. 2021, Sect. 5, Fig. 4");
        assert_eq!(resolve("the seed's angles; Seed eq. (43)", p), "the paper's angles; Jaiswal et al. 2021, eq. (43)");
        assert_eq!(resolve("(seed: 225 kg), (seed)", p), "(Jaiswal et al. 2021: 225 kg), (Jaiswal et al. 2021)");
        assert_eq!(resolve("Table 1 of the seed is missing", None), "Table 1 of the paper is missing");
        assert_eq!(resolve("from SplitMix64 seed 2022;", p), "from SplitMix64 seed value 2022;");
        assert_eq!(
            resolve("geometry from shared/reference/benchmarks.md Sect. 1.3 B (Haug 1989)", p),
            "geometry from the mbfmu benchmark notes (Haug 1989)"
        );
        assert_eq!(resolve("(ASSUMED, benchmarks.md 2.3)", p), "(ASSUMED, per the mbfmu benchmark notes)");
        assert_eq!(
            resolve("values benchmarks.md Sects. 2.3 and 5.4 (ASSUMED)", p),
            "values per the mbfmu benchmark notes (ASSUMED)"
        );
        assert_eq!(resolve("mechanism of seed 004 (Jaiswal et al. 2021), x", p), "mechanism of Jaiswal et al. 2021, x");
        assert_eq!(resolve("built in tests/statespace_pendulum.rs.", p), "built in the mbfmu test suite.");
        assert_eq!(resolve("the split of issue 5", p), "the split of the mbfmu project");
        assert_eq!(resolve("seeded, seedless, Seedorf", p), "seeded, seedless, Seedorf");
        assert_eq!(primary_paper("seed 003 Sect. 3; geometry from benchmarks.md"), Some("Fang et al. 2023"));
    }
}
