//! What the documentation pages of the FMUs say about the world outside the archive: no
//! internal names (paper keys, issue numbers, the project's notes or source files), links only
//! to the references' DOIs and to anchors on the page, and a bibliography holding every work
//! the page cites.

use crate::internal_names;

use mbfmu_model::catalog::CATALOG;
use mbfmu_model::variables::FmiVersion;
use mbfmu_package::documentation::bibliography;
use regex::Regex;

fn pages() -> Vec<(String, String)> {
    let mut pages = Vec::new();
    for entry in CATALOG {
        for version in [FmiVersion::V2, FmiVersion::V3] {
            pages.push((format!("{} ({version:?})", entry.name), mbfmu_package::documentation_html(entry, version)));
        }
    }
    pages
}

#[test]
fn pages_name_nothing_internal() {
    let found: Vec<String> = pages().iter().flat_map(|(name, page)| internal_names::find(name, page)).collect();
    assert!(found.is_empty(), "internal names on the documentation pages:\n{}", found.join("\n"));
}

#[test]
fn pages_link_only_to_dois_and_their_own_anchors() {
    let link = Regex::new(r#"(?:href|src)="([^"]*)""#).unwrap();
    for (name, page) in pages() {
        for c in link.captures_iter(&page) {
            let target = &c[1];
            if let Some(anchor) = target.strip_prefix('#') {
                assert!(page.contains(&format!("id=\"{anchor}\"")), "{name}: link to a missing anchor {target}");
            } else {
                assert!(target.starts_with("https://doi.org/10."), "{name}: link to {target}, which is not in the FMU");
            }
        }
    }
}

#[test]
fn every_page_lists_the_works_it_cites_with_authors_title_venue_year() {
    for (name, page) in pages() {
        let references = page
            .split("<h2 id=\"references\">References</h2>")
            .nth(1)
            .unwrap_or_else(|| panic!("{name}: no references"));
        let body = page.split("<h2 id=\"references\">").next().unwrap();
        let mut listed = 0;
        for r in bibliography::ALL {
            let cited = r.marks.iter().any(|m| body.contains(m));
            let entry = references.contains(&format!("<li id=\"{}\">", r.id));
            assert!(!cited || entry, "{name}: cites {} but does not list it", r.short);
            if entry {
                listed += 1;
                let title = r.title.replace('&', "&amp;");
                assert!(references.contains(&title) && references.contains(r.venue), "{name}: {}", r.short);
                if let Some(doi) = r.doi {
                    assert!(references.contains(doi), "{name}: {} without its DOI", r.short);
                }
            }
        }
        assert!(listed >= 1, "{name}: an empty bibliography");
    }
    // The formulations' sources are listed wherever they are used.
    let page = |model: &str| pages().into_iter().find(|(n, _)| n.starts_with(&format!("{model} "))).unwrap().1;
    assert!(page("HydraulicFourBar").contains("id=\"ref-jaiswal2021\""));
    assert!(page("DoublePendulumStateSpace").contains("id=\"ref-negrut\""));
    assert!(
        page("DoublePendulum").contains("id=\"ref-fang2023\"")
            && page("DoublePendulum").contains("id=\"ref-zhang2022\"")
    );
    for beams in ["FlexibleFourBar", "RotatingShaft"] {
        for id in ["ref-bauchau2016", "ref-simo1985", "ref-crisfield1999"] {
            assert!(page(beams).contains(&format!("id=\"{id}\"")), "{beams}: {id}");
        }
    }
}
